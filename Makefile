# Every target bootstraps the virtual environment from the lock file on first use.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: help venv test test-fast lint typecheck serve consumer bento stack notebook notebook-app \
        lock clean bench bench-full bench-curtois bench-scaling bench-search bench-timefold
.DEFAULT_GOAL := help

$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

## The list of targets, with what each does (the "## " comments above each target).
help:
	@awk '/^## / { text = text (text ? "\n" : "") substr($$0, 4); next } \
	     /^[a-z][a-z-]*:/ { if (text) { split($$0, name, ":"); \
	         n = split(text, lines, "\n"); printf "  %-14s %s\n", name[1], lines[1]; \
	         for (i = 2; i <= n; i++) printf "  %-14s %s\n", "", lines[i] } text = ""; next } \
	     { text = "" }' $(MAKEFILE_LIST)

## The virtual environment, installed from the lock file (every target does this first).
venv: $(STAMP)

## Whole test suite: lint, format check, type check, the import contracts
## (lint-imports), then pytest on both cores (the slowest tests listed at the end).
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -n 2 --durations=25

# What the fast lane leaves out, by the marks of pyproject.toml: tests/conftest.py sets the
# server marks from the fixtures a test uses; slow is set by hand.
FAST_LANE := not postgres and not redis and not browser and not bento_build and not slow

## The fast lane, under a minute on 2 cores: the import contracts, then pytest without
## PostgreSQL, redis-server, Chromium, a Bento build or the tests marked slow. `make test`
## is still the whole suite.
test-fast: $(STAMP)
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -n 2 -m "$(FAST_LANE)"

## Lint and formatting checks only.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

## Type check only.
typecheck: $(STAMP)
	$(BIN)/mypy

# exec (here and in consumer): the server replaces the recipe's shell, so the SIGTERM make
# passes on to its child on a stop reaches the server itself; a shell in between would die
# and leave the server running, orphaned, on its port.

## The HTTP service on its embedded default: a SQLite file under var/, a demo account
## whose API key and dashboard sign-in are printed on start. Listens on this machine only
## (127.0.0.1) unless HOST opens it (HOST=0.0.0.0: every interface). PORT (default 3000),
## DEMO_API_KEY, DEMO_PASSWORD, DATABASE_URL.
serve: $(STAMP)
	exec env BENTOML_DO_NOT_TRACK=true $(BIN)/bentoml serve shiftsched.service.app:ShiftScheduler --host $${HOST:-127.0.0.1} --port $${PORT:-3000}

## A separate job consumer, to scale queued solves out: start the service with
## JOBS_CONSUMER=external and run this (as often as wanted) with the same DATABASE_URL and
## JOBS_REDIS_URL (or JOBS_DB_PATH on one host). JOBS_WORKERS jobs at once (default 1).
consumer: $(STAMP)
	exec env SOLVE_PROCESSES=$${SOLVE_PROCESSES:-$${JOBS_WORKERS:-1}} $(BIN)/huey_consumer shiftsched.service.solving.jobs.huey --workers $${JOBS_WORKERS:-1} --worker-type thread

## The Bento (bentofile.yaml) in the local Bento store; prints its tag.
bento: $(STAMP)
	BENTOML_DO_NOT_TRACK=true $(BIN)/bentoml build --output tag

## Where Docker runs: the Bento as the image shiftsched:latest, then the stack of
## deploy/compose.yaml started with deploy/.env (docs/operations.md).
stack: bento
	BENTOML_DO_NOT_TRACK=true $(BIN)/bentoml containerize shiftsched:latest -t shiftsched:latest
	docker compose -f deploy/compose.yaml --env-file deploy/.env up -d

## The marimo notebooks in the editor (explore, fairness, infeasibility); marimo prints
## the address with its access token. NOTEBOOK_PORT (default 2718).
notebook: $(STAMP)
	$(BIN)/marimo edit notebooks --headless --port $${NOTEBOOK_PORT:-2718}

## One notebook as a read-only app: make notebook-app NB=explore (or fairness, infeasibility).
notebook-app: $(STAMP)
	$(BIN)/marimo run notebooks/$${NB:-explore}.py --headless --port $${NOTEBOOK_PORT:-2718}

## Recompile the lock file after editing requirements.in (needs network access to PyPI).
lock:
	$(BIN)/python -m pip install --quiet uv
	$(BIN)/uv pip compile requirements.in -o requirements.lock --python-version 3.11 --no-header

# Benchmarks (benchmarks/README.md): results, summary and charts go to benchmarks/results/.
## The quick benchmark suite (under 10 min on 2 cores).
bench: $(STAMP)
	$(BIN)/python -m benchmarks run --suite quick --workers 2

## Every method on every size.
bench-full: $(STAMP)
	$(BIN)/python -m benchmarks run --suite full --workers 2

## Curtois & Qu 1-12 at 60 s each, checked independently.
bench-curtois: $(STAMP)
	$(BIN)/python -m benchmarks curtois-report --instances 1-12 --time-limit 60 --workers 2

## One instance at 1, 2, 4 and 8 workers.
bench-scaling: $(STAMP)
	$(BIN)/python -m benchmarks scaling --instance syn-80k --workers 1,2,4,8

## The search targets: engine at 10 s and 30 s against plain CP-SAT at 30 s, on the size
## sweep at three seeds (about 40 min on 2 cores).
bench-search: $(STAMP)
	$(BIN)/python -m benchmarks run --suite search --workers 2

TIMEFOLD_STAMP := $(VENV)/.timefold-installed

$(TIMEFOLD_STAMP): $(STAMP) requirements-timefold.lock
	@command -v java >/dev/null || { echo "Timefold Solver needs a Java 17 runtime" \
	    "(apt-get install openjdk-17-jre-headless)" >&2; exit 1; }
	$(BIN)/python -m pip install --quiet -r requirements-timefold.lock
	touch $(TIMEFOLD_STAMP)

## The engine beside Timefold Solver (the optional timefold extra, installed first; needs
## Java 17): SIZES, SEEDS, ENGINE and TIMEFOLD (time limits) narrow it. Resumable: runs
## already in benchmarks/results/timefold-side-by-side.csv are skipped (hours in full).
bench-timefold: $(TIMEFOLD_STAMP)
	$(BIN)/python -m benchmarks side-by-side $(if $(SIZES),--sizes $(SIZES)) \
	    --seeds $${SEEDS:-0,1,2} --engine $${ENGINE:-10,30} --timefold $${TIMEFOLD:-10,30,300}

## Remove the virtual environment and the tools' caches.
clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis
