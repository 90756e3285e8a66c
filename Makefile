# Each target bootstraps its own virtual environment in .venv (Python >= 3.10 needed).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.deps-installed
DEMO := build/demo
LINTED := collie tests ethnologue safetynet langmodel examples benchmarks tools

.PHONY: demo test lint install bench data clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet '.[test,build-data]'
	touch $(STAMP)

# A regular (non-editable) install, refreshed every time: tests run against the
# installed package, so missing package data fails the tests.
install: $(STAMP)
	$(BIN)/python -m pip install --quiet --no-deps --force-reinstall .

lint: $(STAMP)
	$(BIN)/ruff format --check $(LINTED)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/mypy

# Debian's Chromium and ChromeDriver, for the review page's browser test.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
/usr/bin/chromium /usr/bin/chromedriver:
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium chromium-driver

test: install lint /usr/bin/chromium /usr/bin/chromedriver
	$(BIN)/pytest -n 2 --dist loadgroup --durations=25

demo: install
	rm -rf $(DEMO)
	$(BIN)/collie demo --out $(DEMO)
	$(BIN)/collie -w $(DEMO)/workspace status
	@echo "collie is installed in $(VENV): source $(BIN)/activate puts it on your PATH."

bench: install
	$(BIN)/python -m pip install --quiet '.[bench]'
	-$(BIN)/python benchmarks/bench_langid.py --install-tools
	@for script in benchmarks/bench_*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

# Rebuild the committed data tables from their pinned open-data sources.
data: install
	$(BIN)/python ethnologue/build.py
	PYTHONPATH=. $(BIN)/python safetynet/build.py
	PYTHONPATH=. $(BIN)/python langmodel/build.py

clean:
	rm -rf $(VENV) build dist *.egg-info
