# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Fuzzing of the host port (AXI4 slave) of qrdma_qos_engine: builds the Verilator C++
bench tests/fuzz/fuzz_host.cpp and runs it (docs/qos.md "Fuzzing the host port").

The bench issues random AXI4 transactions over the whole address window with well-formed
descriptors among them, acts as the network and the external register block, and checks
the AXI4 slave protocol, that nothing hangs, the refusals that depend on the beat alone
(R1-R5, the register window) and, after the fuzz, that known good descriptors still give
the right blocks and packets and end DONE.

N_DEFAULT transactions at HOST_DATA_W 256 in the default run; N_FULL at both bus widths
(256 and 128) with QRDMA_FULL=1 (make test-full).
Replay: QRDMA_SEED=<seed printed by the run>.
"""
from __future__ import annotations

import subprocess

import pytest

from tests.fuzz.bench_build import build_bench, seed
from tests.simrun import ROOT, full

N_DEFAULT = 1_000_000
N_FULL = 20_000_000
BENCH = ROOT / "tests" / "fuzz" / "fuzz_host.cpp"
TOP = "qrdma_qos_engine"


def widths():
    """The default bus width in make test; both (256 and 128) in make test-full."""
    return [256, 128] if full() else [256]


@pytest.mark.long
@pytest.mark.parametrize("data_w", widths())
def test_fuzz_host(data_w):
    exe = build_bench(f"fuzz_host_{data_w}", TOP, BENCH, {"HOST_DATA_W": data_w})
    n = N_FULL if full() else N_DEFAULT
    s = seed()
    print(f"fuzz_host: random seed {s} (replay with QRDMA_SEED={s})")
    r = subprocess.run([str(exe), str(n), str(s)], capture_output=True, text=True)
    print(r.stdout)
    assert r.returncode == 0, (f"fuzz_host failed (replay with QRDMA_SEED={s}):\n"
                               f"{r.stderr.strip()[-3000:]}\n{r.stdout.strip()[-2000:]}")
