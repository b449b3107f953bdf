# Two commands set everything up on a fresh machine (README's Quickstart):
#   make demo   -> .venv, install, redact the bundled sample_traces/ into out/
#   make test   -> .venv, install with [dev]; lint, format and type checks, then the test suite
#                  (what .ci/run runs)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench eval clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/tracepub redact sample_traces --out out/
	@echo "Report: out/review/report.html   Dataset: out/dataset/"

test: lint
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

clean:
	rm -rf $(VENV) out
