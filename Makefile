# Sova — the two commands a newcomer needs: `make run` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
BIN    := $(VENV)/bin
# The pinned, hashed dependencies (Linux x86_64, CPython 3.11): runtime.lock for the wheel
# and deploy/Dockerfile, dev.lock (runtime + test tools) for .venv. `make lock` refreshes both.
LOCKS  := requirements/pip.lock requirements/runtime.lock requirements/dev.lock
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml setup.py $(LOCKS) | sha1sum | cut -c1-12)
LOCK_FLAGS := --generate-hashes --python-version 3.11 --python-platform x86_64-unknown-linux-gnu \
              --no-header --annotation-style line --quiet
# Python's bytecode cache on, whatever the calling environment says: with
# PYTHONDONTWRITEBYTECODE set (some shells and sandboxes set it), every process the tests
# start (each sova command, worker, gunicorn) and each pytest-xdist worker compiled Sova and
# rewrote the test modules from source again, a few CPU seconds each.
unexport PYTHONDONTWRITEBYTECODE
# make run keeps its files in the checkout's instance/ (the CLI's default is the per-user
# data directory, ~/.local/share/sova); a SOVA_INSTANCE_PATH in the environment wins.
run: export SOVA_INSTANCE_PATH ?= $(abspath instance)
# and a rehearsal secret for the SMS gateway (the §3.1 vote; refused in production): seed-demo
# prints it with the `sova vote simulate` command; a SOVA_SMS_SECRET in the environment wins
run: export SOVA_SMS_SECRET ?= sova-demo-sms-rehearsal
# seed-demo's archive packet: a real one from ../shared when the folder is there
DEMO_ARCHIVE := $(wildcard ../shared/data/chgk/alexander-pecheny__chgksuite/Kubok_knyagini_Olgi-2015.docx.canon)

.PHONY: run test pytest test-fast install system-deps lint lock messages bench fuzz clean cluster-test cluster-figures

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

## make install: .venv from the locks (hashes checked; pip itself first), then the project itself, editable,
## without resolving anything again (--no-deps)
$(STAMP): pyproject.toml setup.py $(LOCKS) | $(BIN)/python
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements/pip.lock
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements/dev.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	rm -f $(VENV)/.installed-*; touch $(STAMP)

install: system-deps $(STAMP)

## make system-deps: Pango, HarfBuzz, the fonts (DejaVu, Noto Color Emoji) and chromium;
## installed with apt-get when root, else it stops with the one command to run
## (deploy/system-deps; SOVA_SKIP_SYSTEM_DEPS=1 skips it)
system-deps:
	@sh deploy/system-deps

## make lock: resolve pyproject.toml's dependencies again into the two lock files (uv)
lock: | $(BIN)/python
	$(BIN)/python -m pip install --quiet uv
	$(BIN)/uv pip compile pyproject.toml $(LOCK_FLAGS) -o requirements/runtime.lock
	$(BIN)/uv pip compile pyproject.toml --extra dev $(LOCK_FLAGS) -o requirements/dev.lock

## make messages: the translation catalogs from the code (pyproject.toml's [tool.babel.*] tables):
## extract every marked string to build/messages.pot, update the be and en catalogs (new
## strings untranslated, no fuzzy guesses, unmarked ones dropped, the #: locations rewritten),
## compile the .mo files. Translate the new empty msgstr entries, then run it again.
messages: $(STAMP)
	mkdir -p build
	$(BIN)/pybabel --quiet extract
	$(BIN)/pybabel --quiet update
	$(BIN)/pybabel --quiet compile

## make run: install, migrate SQLite in instance/, demo users + one archive packet, then
## web (http://127.0.0.1:5000), worker and beat together. Ctrl-C stops all three.
run: install
	$(BIN)/sova db upgrade heads
	$(BIN)/sova seed-demo $(if $(DEMO_ARCHIVE),--archive $(DEMO_ARCHIVE))
	PATH="$(abspath $(BIN)):$$PATH" exec $(BIN)/sova run --stop-with-parent

## make lint: ruff, import-linter (DESIGN.md dependency rules and each feature's layers),
## tools/check_imports.py (no import circle, type-checking imports included; no private
## name imported across modules), mypy (strict on webapp.domain, the default elsewhere;
## settings in pyproject.toml).
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/python tools/check_imports.py
	$(BIN)/mypy

## make test: install, then lint (ruff, import-linter, the import check, mypy) and every test at the same
## time (make -j2: lint's one process runs while the tests' processes wait on browsers and
## subprocesses); fails if either fails. The tests are spread over TEST_WORKERS
## pytest-xdist processes (auto: one per core, at most 4; a worker that runs out of tests
## takes queued ones from the other, so no core idles at the end).
## Integration tests need SOVA_TEST_DATABASE_URL and SOVA_TEST_REDIS_URL (see .ci/run);
## without them they are skipped with the reason shown. Worker gwN uses Redis database
## (SOVA_TEST_REDIS_URL's number + N).
TEST_WORKERS ?= auto
PYTEST_XDIST := -n $(TEST_WORKERS) --maxprocesses 4 --dist worksteal
test: install
	@$(MAKE) --no-print-directory -j2 lint pytest

## make pytest: every test, without lint (what make test runs beside lint)
pytest: install
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/pytest -q -rs $(PYTEST_XDIST)

## make test-fast: the inner loop, without the e2e, integration and slow tests (no lint).
test-fast: install
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/pytest -q $(PYTEST_XDIST) -m "not e2e and not integration and not slow"

## make cluster-test: Sova's wheel on four network-namespace hosts (data, two app hosts,
## nginx in front) while an app host is killed, Redis restarts empty, a worker is killed and
## PostgreSQL restarts (tests/cluster/cluster.py; root, nginx, redis-server, PostgreSQL
## binaries; a few minutes; .ci/run runs it). Its figures are printed (-rP) also on success.
## make cluster-figures: the same, and its figures written into docs/operations.md.
cluster-test: install
	SOVA_CLUSTER_TEST=1 PATH="$(abspath $(BIN)):$$PATH" $(BIN)/pytest -q -rsP -p no:cacheprovider \
	  tests/cluster/test_cluster.py --timeout=1200

cluster-figures: install
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python -m tests.cluster.cluster --write-docs

## make bench: benchmarks as JSON lines (stdout and bench-results/<name>.jsonl); never in
## make test. Needs PostgreSQL and Redis for submit/soak; BENCH_QUICK=1 for small sizes.
BENCHES ?= run duplicates envelopes exports archive_import scale staff_lists submit soak vote aids onair
bench: install
	@command -v wrk >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get install -y -qq wrk >/dev/null; } \
	  || echo "bench: wrk is not installed (apt-get install wrk); the submit bench will skip"
	mkdir -p bench-results
	for b in $(BENCHES); do \
	  echo "== $$b"; \
	  PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python -m tests.bench.$$b $(if $(BENCH_QUICK),--quick,) \
	    | tee bench-results/$$b.jsonl || exit 1; \
	done
	@echo "== pairs (Sova and its anchor, each from one run, with the ratio)"
	@grep -h '"pair"' $(patsubst %,bench-results/%.jsonl,$(BENCHES)) || true

## make fuzz: the long schemathesis run against /api/v1/openapi.json
fuzz: install
	PATH="$(abspath $(BIN)):$$PATH" SOVA_FUZZ_EXAMPLES=$${SOVA_FUZZ_EXAMPLES:-500} $(BIN)/pytest -q -p no:warnings tests/security/test_api_schema.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
