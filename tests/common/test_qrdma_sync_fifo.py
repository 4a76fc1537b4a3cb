# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_sync_fifo against a reference model: order, count, almost_full, s_ready, and the
show-ahead latency (1 cycle for registers, 3 for block RAM, 4 for block RAM read without
enables) with full throughput, under
random idle and random backpressure, across depths and both implementations."""
import collections
import os

import cocotb
import pytest
from cocotb.triggers import ReadOnly, RisingEdge

from seeding import seed_rng
from streams import DataTransaction, data_pair, random_pause


class FifoModel:
    """What the FIFO must do, edge by edge."""

    def __init__(self, depth, almost_full, latency):
        self.depth = depth
        self.af = almost_full
        self.lat = latency
        self.q = collections.deque()  # (data, edge pushed)

    def edge(self, now, push, pop, data_in):
        """Apply one clock edge; returns the word popped (or None)."""
        out = None
        if pop:
            out = self.q.popleft()[0]
        if push:
            assert len(self.q) < self.depth, "push into a full FIFO"
            self.q.append((data_in, now))
        return out

    def must_be_valid(self, now):
        return bool(self.q) and self.q[0][1] <= now - self.lat


@cocotb.test()
async def fifo_random(dut):
    width = int(os.environ["P_WIDTH"])
    depth = int(os.environ["P_DEPTH"])
    ram = depth >= int(os.environ["P_RAM_MIN_DEPTH"])
    af = int(os.environ["P_ALMOST_FULL"])
    rng = seed_rng("fifo_random")
    src, snk = await data_pair(dut, rng, 0.3)
    free = int(os.environ["P_FREE_READ"])
    model = FifoModel(depth, af, (4 if free else 3) if ram else 1)
    n = 4000 if depth < 200 else 3 * depth + 2000
    words = [rng.randrange(1 << width) for _ in range(n)]
    for w in words:
        src.send_nowait(DataTransaction(data=w))

    got = []
    now = 0
    # phases: random, then a burst with no idle/stall (throughput), then fill (stall)
    # (cycle: (idle, stall)): random, a burst with neither (full throughput), a fill with
    # the sink stalled (full FIFO, s_ready low), then random again
    phases = {n: (0.0, 0.0), n + 500: (0.0, 1.0), n + 520 + depth: (0.3, 0.3)}
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
        count = int(dut.count.value)
        # state before this edge
        assert count == len(model.q), f"count {count} != model {len(model.q)}"
        assert s_ready == (len(model.q) < depth)
        assert int(dut.almost_full.value) == (len(model.q) >= af)
        if model.must_be_valid(now):
            assert m_valid, f"word pushed at edge {model.q[0][1]} not shown at edge {now}"
        if m_valid:
            assert model.q, "m_valid with an empty model"
        push = s_valid and s_ready
        pop = m_valid and m_ready
        out = model.edge(now, push, pop, int(dut.s_data.value) if push else None)
        if pop:
            assert int(dut.m_data.value) == out, f"data {int(dut.m_data.value):#x} != {out:#x}"
            got.append(out)
        assert now < 40 * n, "timeout"
    assert got == words
    await RisingEdge(dut.clk)
    await ReadOnly()      # the sink has taken the last word at this edge
    assert snk.count() == n


def params():
    from simrun import full

    # WIDTH, DEPTH, RAM_MIN_DEPTH, ALMOST_FULL, HEAD_REG, FREE_READ, WE_COPY: one register,
    # LUT RAM (with and without the write side's s_ready copy), the head register form (2
    # and 7 deep, one with the copy), block RAM (the RAM_MIN_DEPTH threshold passed), a wide
    # block-RAM form, block RAM read without enables (deep, and 3 deep: fewer words than its
    # skid FIFO); the other sizes in make test-full
    p = [(8, 1, 64, 1, 0, 0, 0), (16, 5, 64, 3, 0, 0, 0), (16, 5, 64, 3, 0, 0, 1),
         (16, 2, 64, 1, 1, 0, 0), (16, 7, 64, 5, 1, 0, 1), (8, 100, 64, 97, 0, 0, 0),
         (72, 3, 2, 2, 0, 0, 0), (8, 100, 64, 97, 0, 1, 0), (72, 3, 2, 2, 0, 1, 0)]
    if full():
        p += [(8, 2, 64, 1, 0, 0, 0), (32, 16, 64, 12, 0, 0, 0), (32, 64, 64, 60, 0, 0, 0),
              (8, 2, 2, 2, 0, 0, 0), (8, 3, 64, 3, 1, 0, 0), (32, 64, 64, 60, 0, 1, 0),
              (8, 2, 2, 2, 0, 1, 0), (8, 1, 64, 1, 0, 0, 1)]
    return p


@pytest.mark.parametrize("width,depth,ram_min,af,head,free,we", params())
def test_qrdma_sync_fifo(width, depth, ram_min, af, head, free, we):
    from simrun import run

    p = {"WIDTH": width, "DEPTH": depth, "RAM_MIN_DEPTH": ram_min, "ALMOST_FULL": af,
         "HEAD_REG": head, "FREE_READ": free, "WE_COPY": we}
    run("qrdma_sync_fifo", "test_qrdma_sync_fifo", p,
        extra_env={f"P_{k}": str(v) for k, v in p.items()})
