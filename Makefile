# Sova — the two commands a newcomer needs: `make run` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | sha1sum | cut -c1-12)

.PHONY: run test install lint bench clean

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

lint: install
	$(BIN)/ruff check .
	$(BIN)/lint-imports

## make test: install, ruff, import-linter (DESIGN.md dependency rules), pytest.
## Integration tests need SOVA_TEST_DATABASE_URL and SOVA_TEST_REDIS_URL (see .ci/run);
## without them they are skipped with the reason shown.
test: lint
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/pytest -q -rs

bench: install
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python -m tests.bench.run

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
