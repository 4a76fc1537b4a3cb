# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Datapath benchmark (issue 4 "Benchmarks") -> build/results/datapath_bench.json.

Runs sim/bench_datapath.c (build/sim_harness/qrdma_sim_bench_datapath: libqrdma on the
simulation backend, node 0 writing to node 1 over the 64 bytes/cycle link), which
measures and verifies:

  throughput             sizes 64 B .. 4 MiB, 1 and 64 outstanding (steady-state window)
  payload_efficiency_1k  payload bytes per link beat for 1 KiB packets
  latency_cycles         post -> notification in node 1's memory (and post -> DONE)

Methods and definitions: the program's header comment and docs/nic.md "Measured". The
program exits non-zero when a byte, a notification or a status is wrong.
"""
from __future__ import annotations

import fcntl
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "sim_harness"  # the harness build of tests/sim/test_sim_harness.py
BIN = BUILD / "qrdma_sim_bench_datapath"
OUT = ROOT / "build" / "results" / "datapath_bench.json"


def build() -> Path:
    """Build the program with sim/Makefile, holding the harness build's lock (the same one
    tests/sim/test_sim_harness.py takes, so concurrent builds of the model wait)."""
    BUILD.mkdir(parents=True, exist_ok=True)
    venv = Path(sys.prefix)
    with open(BUILD / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        r = subprocess.run(["make", "-C", str(ROOT / "sim"), "-j2", f"VENV={venv}",
                            "datapath-bench-bin"], capture_output=True, text=True, timeout=1800)
    if r.returncode != 0:
        print(r.stdout[-4000:])
        print(r.stderr[-4000:], file=sys.stderr)
        raise RuntimeError("sim/Makefile datapath-bench-bin failed")
    return BIN


def run(json_path: Path, *args: str, timeout: int = 1800) -> tuple[dict, str]:
    """Run the program (already built); returns its JSON and its stdout."""
    json_path.parent.mkdir(parents=True, exist_ok=True)
    r = subprocess.run([str(BIN), "--json", str(json_path), *args], capture_output=True,
                       text=True, timeout=timeout)
    if r.returncode != 0:
        print(r.stdout)
        print(r.stderr, file=sys.stderr)
        raise RuntimeError(f"qrdma_sim_bench_datapath failed (exit {r.returncode}): "
                           f"{r.stderr.strip()[-500:]}")
    return json.loads(json_path.read_text()), r.stdout


def main() -> dict:
    build()
    res, out = run(OUT)
    print(out)
    return res


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
