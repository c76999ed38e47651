# The two README commands are `make demo` and `make test`; the rest are their parts.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
MANAGE := $(PY) manage.py

.PHONY: setup demo serve test lint typecheck migrations-check pytest bench browser-deps clean

$(BIN)/activate: pyproject.toml setup.py evaluation/core/_run_scores.c
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(BIN)/activate

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch node_modules/.installed

setup: $(BIN)/activate node_modules/.installed

# Fresh machine → the app on http://127.0.0.1:$(PORT) with a demo campaign (SQLite, in-process
# tasks). PORT comes from the environment or the command line (`make demo PORT=8080`).
PORT ?= 8000

demo: setup
	mkdir -p var
	$(MANAGE) migrate --noinput
	PORT=$(PORT) $(MANAGE) demo
	$(MANAGE) runserver 127.0.0.1:$(PORT)

serve: setup
	$(MANAGE) runserver 127.0.0.1:$(PORT)

# Fresh machine → lint, types, migrations check and every test against PostgreSQL and Redis.
test: setup browser-deps lint typecheck migrations-check pytest

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: setup
	$(BIN)/mypy .

migrations-check: setup
	DJANGO_SETTINGS_MODULE=config.settings.test $(MANAGE) makemigrations --check --dry-run

pytest: setup
	$(BIN)/pytest

# Chromium for the browser tests comes from Debian's packages.
browser-deps:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -q && apt-get install -y -q chromium; \
	  else sudo apt-get update -q && sudo apt-get install -y -q chromium; fi; }

# Every benchmark at full size; BENCH_ARGS="--small" (1/100 size), "--skip campaign" or
# "--only campaign" choose (bench/run_all.py).
bench: setup
	$(PY) bench/run_all.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) node_modules var staticfiles
