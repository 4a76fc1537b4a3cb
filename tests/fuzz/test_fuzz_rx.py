# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The network-port fuzzer of the receive unit (tests/fuzz/fuzz_rx.cpp, docs/protection.md
"Fuzzing the network port"): builds qrdma_rx with Verilator (assertions on) and the C++
testbench into build/fuzz_rx/, then runs it with a seed from QRDMA_SEED or a fresh one
(printed: a failure names it for replay). 1,000,000 random packets in make test,
10,000,000 with QRDMA_FULL=1 (make test-full); QRDMA_FUZZ_PACKETS sets the count.
"""
from __future__ import annotations

import os
import subprocess
import time

import pytest

from tests.fuzz.bench_build import build_bench, seed
from tests.simrun import ROOT, full

MAIN = ROOT / "tests" / "fuzz" / "fuzz_rx.cpp"
# the DUT's parameters (qrdma_rx defaults), given to Verilator and to the testbench
PARAMS = {"NUM_NODES": 4, "MAX_PAYLOAD": 1024, "MAX_BLK_PKTS": 64, "PROT_WINDOWS": 64}
PACKETS = 1_000_000
PACKETS_FULL = 10_000_000
# Verilator: loops unrolled as in the system simulation (sim/Makefile), X as zeros (the
# bench resets the unit)
VERILATOR_ARGS = ("-O3", "--x-assign", "fast", "--x-initial", "fast",
                  "--unroll-count", "1024", "--unroll-stmts", "100000")


@pytest.mark.long
def test_fuzz_rx():
    exe = build_bench("fuzz_rx", "qrdma_rx", MAIN, PARAMS, macro_prefix="FZ_",
                      extra=VERILATOR_ARGS)
    s = seed()
    n = int(os.environ.get("QRDMA_FUZZ_PACKETS") or (PACKETS_FULL if full() else PACKETS))
    print(f"fuzz_rx: random seed {s} (replay with QRDMA_SEED={s}), {n} packets")
    t0 = time.monotonic()
    r = subprocess.run([str(exe), "--seed", str(s), "--packets", str(n)], cwd=ROOT,
                       capture_output=True, text=True, timeout=7200)
    print(r.stdout[-3000:])
    print(f"fuzz_rx: {time.monotonic() - t0:.1f} s")
    assert r.returncode == 0, (f"fuzz_rx failed (replay with QRDMA_SEED={s}):\n"
                               + r.stdout[-3000:] + r.stderr[-3000:])
