# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_burst_seq against a cycle model: bursts of random address, length, step size
and user fields offered on the burst channel (random gaps), the beat register consumed at
random (`take`); every cycle s_ready / load / valid / addr / last / size / user are
compared with the model (a FIFO of DEPTH bursts behind a burst register that takes the
FIFO's head, or the offered burst directly when the FIFO is empty; AXI INCR beat
addresses: the first beat at AWADDR, then the previous one aligned down to the step plus
the step, modulo 2^ADDR_W), and every beat of every burst must be loaded once, in order."""
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
    depth = int(os.environ["P_DEPTH"])
    uw = int(os.environ["P_USER_W"])
    rng = seed_rng("burst_seq_random")
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    dut.s_valid.value = 0
    dut.take.value = 0
    dut.rst.value = 1
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0

    bursts = collections.deque()
    for _ in range(int(os.environ["P_BURSTS"])):
        size = rng.randrange(8)
        if rng.random() < 0.2:        # near the top of the address space: the sum wraps
            addr = (1 << aw) - rng.randrange(1, 4 << size)
        else:
            addr = rng.randrange(1 << aw)
        ln = rng.choice([0, 0, 1, 3, rng.randrange(16), rng.randrange(256)])
        bursts.append((addr, ln, size, rng.randrange(1 << uw)))
    expected = [(k, i) for k, b in enumerate(bursts) for i in range(b[1] + 1)]
    loaded = []
    fifo = collections.deque()        # (index, burst) taken, behind the burst register
    reg = None                        # [index, burst, beat] in the burst register
    valid = False
    k_in = 0                          # next burst to offer
    p_gap, p_take = 0.2, 0.6
    for cycle in range(200000):
        if k_in == len(bursts) and reg is None and not fifo:
            break
        if cycle % 2000 == 0:
            p_gap, p_take = rng.choice([(0.0, 1.0), (0.2, 0.6), (0.5, 0.3), (0.0, 0.9)])
        offer = k_in < len(bursts) and rng.random() >= p_gap
        take = valid and rng.random() < p_take
        if offer:
            addr, ln, size, user = bursts[k_in]
            dut.s_addr.value, dut.s_len.value = addr, ln
            dut.s_size.value, dut.s_user.value = size, user
        dut.s_valid.value = int(offer)
        dut.take.value = int(take)
        await ReadOnly()
        s_ready = len(fifo) < depth
        load = reg is not None and (not valid or take)
        got = (int(dut.s_ready.value), int(dut.load.value), int(dut.valid.value))
        assert got == (int(s_ready), int(load), int(valid)), \
            f"cycle {cycle}: (s_ready, load, valid) {got}, want {(s_ready, load, valid)}"
        last = False
        if reg is not None:
            k, b, beat = reg
            last = beat == b[1]
            want = (beat_addr(b[0], b[2], beat, aw), int(last), b[2], b[3])
            have = (int(dut.addr.value), int(dut.last.value), int(dut.size.value),
                    int(dut.user.value))
            assert have == want, f"cycle {cycle}: burst {k} beat {beat}: (addr, last, " \
                f"size, user) {have}, want {want}"
        if load:
            loaded.append((reg[0], reg[2]))
            reg[2] += 1
            valid = True
        elif take:
            valid = False
        accepted = offer and s_ready
        if reg is None or (load and last):     # the burst register takes the next burst
            if fifo:
                reg = list(fifo.popleft()) + [0]
                if accepted:
                    fifo.append((k_in, bursts[k_in]))
            elif accepted:
                reg = [k_in, bursts[k_in], 0]
            else:
                reg = None
        elif accepted:
            fifo.append((k_in, bursts[k_in]))
        if accepted:
            k_in += 1
        await RisingEdge(dut.clk)
    assert loaded == expected, "beats missing or out of order"


@pytest.mark.parametrize("addr_w,depth,user_w", [(18, 2, 1), (12, 4, 7), (18, 1, 3)])
def test_qrdma_burst_seq(addr_w, depth, user_w):
    from simrun import full, run

    run("qrdma_burst_seq", "test_qrdma_burst_seq",
        {"ADDR_W": addr_w, "DEPTH": depth, "USER_W": user_w},
        extra_env={"P_ADDR_W": str(addr_w), "P_DEPTH": str(depth), "P_USER_W": str(user_w),
                   "P_BURSTS": str(2000 if full() else 250)})
