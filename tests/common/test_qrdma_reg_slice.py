# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_reg_slice against a reference model: every word delivered once and in order, a
word taken in one cycle offered from the next, s_ready high exactly while the slice holds
fewer than two words (one word per cycle sustained), under random idle and random
backpressure and in phases of full throughput and of a stalled sink."""
import collections
import os

import cocotb
import pytest
from cocotb.triggers import ReadOnly, RisingEdge

from seeding import seed_rng
from streams import DataTransaction, data_pair, random_pause


@cocotb.test()
async def slice_random(dut):
    width = int(os.environ["P_WIDTH"])
    rng = seed_rng("slice_random")
    src, snk = await data_pair(dut, rng, 0.3)
    n = 4000
    words = [rng.randrange(1 << width) for _ in range(n)]
    for w in words:
        src.send_nowait(DataTransaction(data=w))

    q = collections.deque()   # words held by the slice (model)
    got = []
    now = 0
    # (cycle: (idle, stall)): random, a burst with neither (full throughput), the sink
    # stalled (the slice fills, s_ready falls), a burst again, then random
    phases = {1000: (0.0, 0.0), 1500: (0.0, 1.0), 1520: (0.0, 0.0), 2000: (0.3, 0.3)}
    burst = 0
    while len(got) < n:
        await RisingEdge(dut.clk)
        await ReadOnly()  # settled values of this cycle: what the next edge samples
        now += 1
        if now in phases:
            idle, stall = phases.pop(now)
            random_pause(src, rng, idle)
            random_pause(snk, rng, stall)
        s_valid, s_ready = int(dut.s_valid.value), int(dut.s_ready.value)
        m_valid, m_ready = int(dut.m_valid.value), int(dut.m_ready.value)
        assert s_ready == (len(q) < 2), f"s_ready {s_ready} with {len(q)} words held"
        assert m_valid == (len(q) > 0), f"m_valid {m_valid} with {len(q)} words held"
        if m_valid and m_ready:
            out = q.popleft()
            assert int(dut.m_data.value) == out, f"data {int(dut.m_data.value):#x} != {out:#x}"
            got.append(out)
        if s_valid and s_ready:
            q.append(int(dut.s_data.value))
        if 1010 < now < 1500 and len(got) < n - 2:
            burst += 1
            assert s_valid and s_ready and m_valid and m_ready, \
                f"no transfer at cycle {now} with neither idle nor backpressure"
        assert now < 40 * n, "timeout"
    assert burst > 0
    assert got == words
    await RisingEdge(dut.clk)
    await ReadOnly()      # the sink has taken the last word at this edge
    assert snk.count() == n


@pytest.mark.parametrize("width", [1, 8, 72])
def test_qrdma_reg_slice(width):
    from simrun import run

    p = {"WIDTH": width}
    run("qrdma_reg_slice", "test_qrdma_reg_slice", p,
        extra_env={f"P_{k}": str(v) for k, v in p.items()})
