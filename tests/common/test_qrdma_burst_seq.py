# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_burst_seq against a cycle model: bursts of random address, length and step size
offered as an address FIFO's head (random gaps), the beat register consumed at random
(`take`); every cycle load / addr / last / s_pop / valid are compared with the model (AXI
INCR beat addresses: the first beat at AWADDR, then the previous one aligned down to the
step plus the step, modulo 2^ADDR_W), and every beat of every burst must be loaded once,
in order."""
import collections
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from seeding import seed_rng


def beat_addr(addr, size, i, aw):
    """Address of beat i of a burst (AXI INCR)."""
    if i == 0:
        return addr
    step = 1 << size
    return ((addr & ~(step - 1)) + i * step) % (1 << aw)


@cocotb.test()
async def burst_seq_random(dut):
    aw = int(os.environ["P_ADDR_W"])
    rng = seed_rng("burst_seq_random")
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    dut.s_valid.value = 0
    dut.take.value = 0
    dut.rst.value = 1
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0

    bursts = collections.deque()
    for _ in range(600):
        size = rng.randrange(8)
        if rng.random() < 0.2:        # near the top of the address space: the sum wraps
            addr = (1 << aw) - rng.randrange(1, 4 << size)
        else:
            addr = rng.randrange(1 << aw)
        ln = rng.choice([0, 0, 1, 3, rng.randrange(16), rng.randrange(256)])
        bursts.append((addr, ln, size))
    expected = [(k, i) for k, b in enumerate(bursts) for i in range(b[1] + 1)]
    loaded = []
    valid, beat, k = False, 0, 0
    p_gap, p_take = 0.2, 0.6
    for cycle in range(200000):
        if not bursts:
            break
        if cycle % 2000 == 0:
            p_gap, p_take = rng.choice([(0.0, 1.0), (0.2, 0.6), (0.5, 0.3), (0.0, 0.9)])
        # the head stays offered from its first offer until it is popped
        offer = bursts and (beat > 0 or rng.random() >= p_gap)
        take = valid and rng.random() < p_take
        if offer:
            addr, ln, size = bursts[0]
            dut.s_addr.value, dut.s_len.value, dut.s_size.value = addr, ln, size
        dut.s_valid.value = int(bool(offer))
        dut.take.value = int(take)
        await ReadOnly()
        load = bool(offer) and (not valid or take)
        got = (int(dut.load.value), int(dut.valid.value), int(dut.s_pop.value))
        last = offer and beat == bursts[0][1]
        assert got == (int(load), int(valid), int(load and last)), \
            f"cycle {cycle}: (load, valid, s_pop) {got}, burst {k} beat {beat}"
        if offer:
            a = beat_addr(addr, size, beat, aw)
            assert int(dut.addr.value) == a and int(dut.last.value) == int(last), \
                f"cycle {cycle}: burst {k} {bursts[0]} beat {beat}: addr " \
                f"{int(dut.addr.value):#x} last {int(dut.last.value)}, want {a:#x} {int(last)}"
        if load:
            loaded.append((k, beat))
            if last:
                bursts.popleft()
                beat, k = 0, k + 1
            else:
                beat += 1
            valid = True
        elif take:
            valid = False
        await RisingEdge(dut.clk)
    assert loaded == expected, "beats missing or out of order"


@pytest.mark.parametrize("addr_w", [18, 12])
def test_qrdma_burst_seq(addr_w):
    from simrun import run

    run("qrdma_burst_seq", "test_qrdma_burst_seq", {"ADDR_W": addr_w},
        extra_env={"P_ADDR_W": str(addr_w)})
