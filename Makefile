# Two commands matter: `make demo` (the main job) and `make test` (every test).
# Both run `setup` first, which installs what is missing and is quick when all is there.

SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
DEBS := emscripten chromium firefox-esr mesa-vulkan-drivers libvulkan1 vulkan-tools vulkan-validationlayers spirv-tools wabt
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup demo test lint fast debs clean

setup: debs $(VENV)/.installed node_modules/.installed

# apt-get only when some package is missing, so a ready machine pays nothing.
debs:
	@missing=$$(for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:" $$missing; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

$(VENV)/.installed: pyproject.toml
	@[ -x $(PY) ] || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	@touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

demo: setup
	$(VENV)/bin/webhal demo

lint: setup
	$(VENV)/bin/ruff check .

# Tests run in $(JOBS) pytest-xdist workers (one per core; JOBS=0: one process), a test file at a
# time per worker (loadscope): a file's module fixtures (a built package, a browser, the demos'
# reference outputs) are made once; the correctness and GPU matrices go test by test
# (tests/conftest.py). Not loadgroup: xdist 3.8 cannot tag pytest 9.2's node ids with groups.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
PYTEST := $(VENV)/bin/pytest -n $(JOBS) --dist loadscope

test: setup lint
	$(PYTEST)

# The fast set: everything but slow and browser tests.
fast: setup
	$(PYTEST) -m "not slow and not browser"

clean:
	rm -rf $(VENV) node_modules build .pytest_cache
