# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_mem_2w against a model: two write ports and an asynchronous read port, random
traffic on all three every cycle (never both ports on one address in one cycle), every
read compared; a write is visible the next cycle."""
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from seeding import seed_rng


@cocotb.test()
async def mem_2w_random(dut):
    width = int(os.environ["P_WIDTH"])
    depth = int(os.environ["P_DEPTH"])
    rng = seed_rng("mem_2w_random")
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    model = [None] * depth  # unknown until written
    dut.a_en.value = 0
    dut.b_en.value = 0
    # write every address once through alternating ports so the model is known
    for a in range(depth):
        await RisingEdge(dut.clk)
        port = "a" if a % 2 else "b"
        v = rng.randrange(1 << width)
        getattr(dut, f"{port}_en").value = 1
        getattr(dut, f"{port}_addr").value = a
        getattr(dut, f"{port}_data").value = v
        other = "b" if port == "a" else "a"
        getattr(dut, f"{other}_en").value = 0
        model[a] = v
    checked = 0
    for _ in range(20000):
        await RisingEdge(dut.clk)
        ae, be = rng.random() < 0.6, rng.random() < 0.6
        aa, ba = rng.randrange(depth), rng.randrange(depth)
        if ae and be and aa == ba:
            be = False
        ad, bd = rng.randrange(1 << width), rng.randrange(1 << width)
        ra = rng.choice([aa, ba, rng.randrange(depth)])
        dut.a_en.value, dut.a_addr.value, dut.a_data.value = int(ae), aa, ad
        dut.b_en.value, dut.b_addr.value, dut.b_data.value = int(be), ba, bd
        dut.rd_addr.value = ra
        await ReadOnly()
        assert int(dut.rd_data.value) == model[ra], f"addr {ra}"
        checked += 1
        if ae:
            model[aa] = ad
        if be:
            model[ba] = bd
    assert checked == 20000


@pytest.mark.parametrize("width,depth", [(1, 1024), (5, 13)])
def test_qrdma_mem_2w(width, depth):
    from simrun import run

    p = {"WIDTH": width, "DEPTH": depth}
    run("qrdma_mem_2w", "test_qrdma_mem_2w", p,
        extra_env={f"P_{k}": str(v) for k, v in p.items()})
