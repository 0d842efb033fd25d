# Sova — the two commands a newcomer needs: `make run` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | sha1sum | cut -c1-12)

.PHONY: run test install lint bench fuzz clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	rm -f $(VENV)/.installed-*; touch $(STAMP)

install: $(STAMP)

## make run: install, migrate SQLite in instance/, demo users + one archive packet, then
## web (http://127.0.0.1:5000), worker and beat together. Ctrl-C stops all three.
run: install
	$(BIN)/sova db upgrade heads
	$(BIN)/sova seed-demo
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/sova run

## make lint: ruff, import-linter (DESIGN.md dependency rules and each feature's layers),
## mypy (strict on webapp.domain, the default elsewhere; settings in pyproject.toml).
lint: install
	$(BIN)/ruff check .
	# TODO(integrator): after the one-time `ruff format` of the tree, check it here:
	# $(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy

## make test: install, lint (ruff, import-linter, mypy), pytest.
## Integration tests need SOVA_TEST_DATABASE_URL and SOVA_TEST_REDIS_URL (see .ci/run);
## without them they are skipped with the reason shown.
test: lint
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/pytest -q -rs

## make bench: benchmarks as JSON lines (stdout and bench-results/<name>.jsonl); never in
## make test. Needs PostgreSQL and Redis for submit/soak; BENCH_QUICK=1 for small sizes.
BENCHES ?= run duplicates envelopes submit soak vote
bench: install
	@command -v wrk >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get install -y -qq wrk >/dev/null; } \
	  || echo "bench: wrk is not installed (apt-get install wrk); the submit bench will skip"
	mkdir -p bench-results
	for b in $(BENCHES); do \
	  echo "== $$b"; \
	  PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python -m tests.bench.$$b $(if $(BENCH_QUICK),--quick,) \
	    | tee bench-results/$$b.jsonl || exit 1; \
	done

## make fuzz: the long schemathesis run against /api/v1/openapi.json
fuzz: install
	PATH="$(abspath $(BIN)):$$PATH" SOVA_FUZZ_EXAMPLES=$${SOVA_FUZZ_EXAMPLES:-500} $(BIN)/pytest -q -p no:warnings tests/security/test_api_schema.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
