# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_counters against a model: random increments on every counter every cycle, random
reads of every counter compared with the model (wrap-around included)."""
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from seeding import seed_rng


@cocotb.test()
async def counters_random(dut):
    n, cw, iw = (int(os.environ[f"P_{k}"]) for k in ("N", "CNT_W", "INC_W"))
    rng = seed_rng("counters_random")
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    dut.rst.value = 1
    dut.inc.value = 0
    await RisingEdge(dut.clk)
    await RisingEdge(dut.clk)
    dut.rst.value = 0
    model = [0] * n
    for _ in range(3000):
        await RisingEdge(dut.clk)
        incs = [rng.randrange(1 << iw) if rng.random() < 0.5 else 0 for _ in range(n)]
        dut.inc.value = sum(v << (i * iw) for i, v in enumerate(incs))
        idx = rng.randrange(n)
        dut.rd_idx.value = idx
        await ReadOnly()
        assert int(dut.rd_data.value) == model[idx], f"counter {idx}"
        for i, v in enumerate(incs):
            model[i] = (model[i] + v) % (1 << cw)


@pytest.mark.parametrize("n,cw,iw", [(11, 48, 13), (3, 8, 4)])
def test_qrdma_counters(n, cw, iw):
    from simrun import run

    p = {"N": n, "CNT_W": cw, "INC_W": iw}
    run("qrdma_counters", "test_qrdma_counters", p,
        extra_env={f"P_{k}": str(v) for k, v in p.items()})
