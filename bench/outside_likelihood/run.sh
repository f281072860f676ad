#!/usr/bin/env bash
# Outside check of the likelihood method (control test), reproducible end to end (~3 minutes).
# Usage: bash bench/outside_likelihood/run.sh [WORKDIR]   (from the repository root)
set -euo pipefail
W=${1:-/tmp/ol}
export OPENBLAS_NUM_THREADS=1 TOY_API_KEY=dummy
PY=.venv/bin/python
mkdir -p "$W"
# 1. data: published = first 4 (sorted by file name) of gen.py seed 1; controls = first 10 of seed 2
$PY bench/outside/gen.py "$W/pub_all" 1
$PY bench/outside/gen.py "$W/ctl_all" 2
subset() { rm -rf "$W/$1"; mkdir -p "$W/$1/conversations"; cp "$W/$2/annotation_codebook.json" "$W/$1/";
  ls "$W/$2/conversations" | sort | head -"$3" | while read -r f; do cp "$W/$2/conversations/$f" "$W/$1/conversations/"; done; }
subset pub pub_all 4; subset ctl ctl_all 10; subset pub2 pub 2
.venv/bin/attunebench validate "$W/pub" | tail -2
.venv/bin/attunebench validate "$W/ctl" | tail -2
# 2. servers (each is killed by its own PID at the end)
PIDS=()
srv() { $PY bench/outside_likelihood/server.py --port "$1" "${@:2}" 2>"$W/srv_$1.err" & PIDS+=($!); }
srv 8765 --read "$W/pub"; srv 8766; srv 8767 --read "$W/ctl"
srv 8768 --ignore-echo --read "$W/pub"; srv 8769 --mode ngram --read "$W/pub"
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
sleep 2
run() { name=$1; port=$2; data=$3; shift 3
  .venv/bin/inspect eval attunebench_inspect/contamination --model "openai-api-completions/toy/$name" \
    --model-base-url "http://127.0.0.1:$port/v1" -T data="$data" -T methods=likelihood "$@" \
    --log-dir "$W/logs_$name" --display plain >"$W/eval_$name.out" 2>&1
  .venv/bin/attunebench report "$W/logs_$name" --format json | $PY -c "import json,sys
d=json.load(sys.stdin)['contamination'][0]['contamination']; l=d['likelihood']
print('$name:', d['verdict'], '| p', l['p_value'], '| published', l['published'], '| control', l['control'], '| canary', l['canary'], '| texts', l['texts'])"; }
run readpub 8765 "$W/pub" -T likelihood_control="$W/ctl"
run readnone 8766 "$W/pub" -T likelihood_control="$W/ctl"
run readctl 8767 "$W/pub" -T likelihood_control="$W/ctl"
run noecho 8768 "$W/pub" -T likelihood_control="$W/ctl"
run ngram-read-pub 8769 "$W/pub" -T likelihood_control="$W/ctl"
run two-pub 8765 "$W/pub2" -T likelihood_control="$W/ctl"
run decoy 8765 "$W/pub"
# 3. independent recomputation of the three main figures from the server's own scores
$PY bench/outside_likelihood/recompute.py "$W/pub" "$W/ctl" --read "$W/pub"
$PY bench/outside_likelihood/recompute.py "$W/pub" "$W/ctl"
$PY bench/outside_likelihood/recompute.py "$W/pub" "$W/ctl" --read "$W/ctl"
