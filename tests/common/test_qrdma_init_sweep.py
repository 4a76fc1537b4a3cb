# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_init_sweep against its contract: after each reset (of random length, also one
that comes in the middle of a sweep), busy is high for exactly N cycles with idx = 0, 1,
.., N-1 in them, one per cycle, then low for good (idx holds)."""
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from seeding import seed_rng


async def sweep(dut, n: int, rst_cycles: int, cut: int | None = None) -> None:
    """A reset of rst_cycles cycles, then the sweep checked cycle by cycle (cut: a new
    reset comes after that many cycles of it)."""
    dut.rst.value = 1
    for _ in range(rst_cycles):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    seen = []
    for c in range(n + 20):
        await ReadOnly()        # the cycle's values, sampled by the coming edge
        if cut is not None and c == cut:
            assert seen == list(range(cut)), seen
            await RisingEdge(dut.clk)
            return
        if int(dut.busy.value):
            seen.append(int(dut.idx.value))
        else:
            assert len(seen) == n, f"busy fell after {len(seen)} cycles, expected {n}"
        await RisingEdge(dut.clk)
    assert seen == list(range(n)), seen


@cocotb.test()
async def init_sweep(dut):
    n = int(os.environ["P_N"])
    rng = seed_rng("init_sweep")
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    await sweep(dut, n, 2)
    await sweep(dut, n, rng.randint(1, 5), cut=rng.randint(0, n - 1))   # reset mid-sweep
    await sweep(dut, n, rng.randint(1, 5))


@pytest.mark.parametrize("n", [1, 5, 64])
def test_qrdma_init_sweep(n):
    from simrun import run

    run("qrdma_init_sweep", "test_qrdma_init_sweep", {"N": n}, extra_env={"P_N": str(n)})
