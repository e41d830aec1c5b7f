# ecnlab: `make demo` runs the example scenarios, `make test` runs every test.
# Both set everything up first (scripts/setup.sh; fast when nothing changed).

CARGO ?= cargo
VENV  := .venv

.PHONY: all setup test test-rust test-python lint demo clean bench-emu

all: test

setup:
	@scripts/setup.sh

# One release build serves both the extension (maturin) and the Rust tests.
# Both suites always run; the target fails if either failed.
test: setup
	@status=0; \
	$(CARGO) test --workspace --exclude ecnlab-py --release --quiet || status=1; \
	$(VENV)/bin/pytest -q || status=1; \
	exit $$status

test-rust: setup
	$(CARGO) test --workspace --exclude ecnlab-py --release --quiet

test-python: setup
	$(VENV)/bin/pytest -q

lint: setup
	$(VENV)/bin/ruff check python tests
	$(VENV)/bin/ruff format --check python tests
	$(VENV)/bin/mypy -p ecnlab
	$(CARGO) clippy -p ecnlab-py --release --quiet -- -D warnings

# Live-emulation router benchmark (root): shaping accuracy at 10 and 100 Mbit/s,
# lateness, forwarding capacity (docs/emulation.md). Not part of `make test`.
bench-emu: setup
	$(VENV)/bin/python -m ecnlab.emu.bench

demo: setup
	@scripts/demo.sh

clean:
	rm -rf $(VENV) out target .pytest_cache .hypothesis .mypy_cache .ruff_cache
	find python tests -name __pycache__ -type d -prune -exec rm -rf {} +
	rm -f python/ecnlab/_core*.so
