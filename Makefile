# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# With DATABASE_URL unset the site runs on an embedded PostgreSQL cluster (web/embedded_db.py)
# here, and `make check` and `make test` on one of their own; each is stopped when its
# command ends. With DATABASE_URL set, that server is used and these stay unused.
EMBEDDED_POSTGRES_DIR ?= $(or $(VAR_DIR),var)/postgres
TEST_POSTGRES_DIR := $(or $(VAR_DIR),var)/postgres-test
WITH_TEST_DB := $(BIN)/python -m web.embedded_db stop-after $(TEST_POSTGRES_DIR) --

.PHONY: install lock run test lint check migrate bench bench-live bench-web bench-api bench-faults bench-predictions bench-integrity bench-scale bench-abuse browser-deps prometheus-deps alerts clean

# Every dependency, runtime and dev, at the exact version and hashes of requirements.lock
# (`make lock` writes it from pyproject.toml); then the project itself, which adds none.
LOCK := requirements.lock
UV_COMPILE := pip compile pyproject.toml --extra dev --generate-hashes --python-version 3.11 \
	--python-platform x86_64-unknown-linux-gnu --custom-compile-command "make lock"

$(STAMP): $(LOCK) pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --require-hashes -r $(LOCK)
	$(BIN)/pip install --quiet --no-deps -e .
	touch $(STAMP)

install: $(STAMP)

# The lock for CPython 3.11 on x86-64 Linux (the CI machine), resolved by uv. The versions
# already in it are kept, so after a change to pyproject.toml only what changed moves:
# `make lock ARGS="--upgrade-package django"` upgrades one package, `ARGS=--upgrade` all.
lock:
	test -x $(BIN)/uv || { test -x $(BIN)/python || $(PYTHON) -m venv $(VENV); \
		$(BIN)/pip install --quiet 'uv>=0.9'; }
	$(BIN)/uv $(UV_COMPILE) --quiet --output-file $(LOCK) $(ARGS)

migrate: install
	$(BIN)/python manage.py migrate --no-input

# Web server, Celery worker and beat together; Ctrl-C stops all three and the embedded
# database. A new site fills up fast here: sources are pulled and games rated every 10 s,
# decay and statistics refreshed every 2 minutes (60 s and hourly by default). /metrics
# adds up the three processes' counts (var/metrics, emptied by runstack at each start).
run: install
	$(BIN)/python -m web.embedded_db stop-after $(EMBEDDED_POSTGRES_DIR) -- sh -c '\
		$(BIN)/python manage.py migrate --no-input && \
		$(BIN)/python manage.py sources ensure-simulator && \
		DEBUG=$${DEBUG:-1} CELERY_PULL_SECONDS=$${CELERY_PULL_SECONDS:-10} \
		CELERY_RATE_SECONDS=$${CELERY_RATE_SECONDS:-10} \
		CELERY_REFRESH_SECONDS=$${CELERY_REFRESH_SECONDS:-120} \
		PROMETHEUS_MULTIPROC_DIR=$${PROMETHEUS_MULTIPROC_DIR:-$(or $(VAR_DIR),var)/metrics} \
		exec $(BIN)/python manage.py runstack'

# Chromium from Debian for the browser tests (never a test tool's own download).
browser-deps:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing Debian's chromium for the browser tests"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
		|| echo "chromium could not be installed: browser tests will be skipped"; }

# Debian's Prometheus: promtool checks and tests the alert rules (`make alerts`), and the
# scrape test (tests/worker/test_prometheus_scrape.py) runs the server.
prometheus-deps:
	@command -v promtool >/dev/null 2>&1 && command -v prometheus >/dev/null 2>&1 || { \
		echo "installing Debian's prometheus for the alert rule tests and the scrape test"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends prometheus >/dev/null; }

alerts: prometheus-deps
	promtool check rules docs/alerts.yml
	promtool test rules docs/alerts.test.yml

check: install alerts
	$(BIN)/ruff check .
	$(BIN)/ruff format --check --quiet .
	$(WITH_TEST_DB) sh -c '$(BIN)/python manage.py makemigrations --check --dry-run && \
		$(BIN)/python manage.py check'
	$(BIN)/lint-imports --no-cache

# The whole suite, on DATABASE_URL's server when set (as .ci/run does).
test: install browser-deps check
	$(WITH_TEST_DB) $(BIN)/pytest

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: install
	$(BIN)/python -m bench.import_recompute

bench-live: install
	$(BIN)/python -m bench.live

bench-web: install
	$(BIN)/python -m bench.web $(ARGS)

bench-api: install
	$(BIN)/python -m bench.api $(ARGS)

# Ten million games among a million players against issue 16's targets (scale down with
# ARGS="--games 1000000 --players 100000").
bench-scale: install
	$(BIN)/python -m bench.scale $(ARGS)

# Issue 35's audit (win-trading, crafted upsets, search load, cache fill) at 1,500,000 games
# among 1,080,000 players (scale down with ARGS="--games 20000 --players 14400").
bench-abuse: install
	$(BIN)/python -m bench.abuse $(ARGS)

# Every rating system tuned on a realistic simulated league; the site's chances calibrated.
bench-predictions: install
	$(BIN)/python -m bench.predictions

# Issue 31 on simulated leagues, the truth hidden from the detectors: suspected alternate
# accounts and the fast track (in memory), then win-trading rings (stored and rated in
# bench databases of DATABASE_URL's server).
bench-integrity: install
	$(BIN)/python -m bench.integrity
	$(BIN)/python -m bench.integrity_rings

# Workers SIGKILLed and cut off while pulling a hostile feed: nothing lost, doubled or stuck.
bench-faults: install
	$(BIN)/python -m bench.faults

clean:
	! test -x $(BIN)/python || for cluster in $(EMBEDDED_POSTGRES_DIR) $(TEST_POSTGRES_DIR); do \
		$(BIN)/python -m web.embedded_db stop $$cluster; done
	rm -rf $(VENV) var .pytest_cache .ruff_cache .hypothesis
