# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PG_URL ?= postgres://postgres@127.0.0.1:5432/test

.PHONY: install run test test-sqlite test-postgres lint check migrate bench bench-live bench-web bench-api bench-faults bench-predictions bench-scale browser-deps clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

migrate: install
	$(BIN)/python manage.py migrate --no-input

# Web server, Celery worker and beat together; Ctrl-C stops all three. Ranks and
# statistics refresh every 2 minutes here (hourly by default) so a new site fills up fast.
run: migrate
	$(BIN)/python manage.py sources ensure-simulator
	DEBUG=$${DEBUG:-1} CELERY_REFRESH_SECONDS=$${CELERY_REFRESH_SECONDS:-120} \
		$(BIN)/python manage.py runstack

# Chromium from Debian for the browser tests (never a test tool's own download).
browser-deps:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing Debian's chromium for the browser tests"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
		|| echo "chromium could not be installed: browser tests will be skipped"; }

check: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check --quiet .
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/python manage.py check
	$(BIN)/lint-imports --no-cache

# The whole suite; DATABASE_URL picks the database (SQLite under var/ by default).
test: install browser-deps check
	$(BIN)/pytest

test-sqlite: install
	env -u DATABASE_URL $(BIN)/pytest

test-postgres: install
	DATABASE_URL=$(PG_URL) $(BIN)/pytest

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: install
	$(BIN)/python -m bench.import_recompute

bench-live: install
	$(BIN)/python -m bench.live

bench-web: install
	$(BIN)/python -m bench.web

bench-api: install
	$(BIN)/python -m bench.api

# Ten million games among a million players against issue 16's targets (scale down with
# ARGS="--games 1000000 --players 100000").
bench-scale: install
	$(BIN)/python -m bench.scale $(ARGS)

# Every rating system tuned on a realistic simulated league; the site's chances calibrated.
bench-predictions: install
	$(BIN)/python -m bench.predictions

# Workers SIGKILLed and cut off while pulling a hostile feed: nothing lost, doubled or stuck.
bench-faults: install
	$(BIN)/python -m bench.faults

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache .hypothesis
