# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_mem_2w against a model: two write ports and a read port, random traffic on all
three every cycle (never both ports writing one address in one cycle), every read
compared; a write is visible the next cycle. With A_LEAD / B_LEAD a port's address is
driven two cycles before its enable and data (the other port writing that address in
between is forwarded, so the traffic has no other rule); with RD_REG a read (rd_en)
shows the value at the start of its cycle from the next cycle until the cycle after the
next read."""
import collections
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
    lead = {"a": int(os.environ["P_A_LEAD"]), "b": int(os.environ["P_B_LEAD"])}
    rd_reg = int(os.environ["P_RD_REG"])
    rng = seed_rng("mem_2w_random")
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    model = [None] * depth  # unknown until written
    # addresses a leading port drove in the last two cycles (oldest first)
    ahead = {p: collections.deque([0, 0]) for p in "ab"}
    for p in "ab":
        getattr(dut, f"{p}_en").value = 0
        getattr(dut, f"{p}_addr").value = 0
    dut.rd_en.value = 0
    dut.rd_addr.value = 0

    def write_addr(p, fresh):
        """Address port p writes in this cycle if it writes (a leading port: the one it
        drove two cycles ago) and the address it drives now."""
        if lead[p]:
            return ahead[p][0], fresh
        return fresh, fresh

    def drive(writes, drv):
        for p in "ab":
            w = writes[p]
            getattr(dut, f"{p}_en").value = int(w is not None)
            getattr(dut, f"{p}_data").value = w[1] if w else 0
            getattr(dut, f"{p}_addr").value = drv[p]
            if lead[p]:
                ahead[p].popleft()
                ahead[p].append(drv[p])

    # write every address once through alternating ports so the model is known: port p
    # writes address i in cycle i + 2 (a leading port drove it in cycle i)
    def port_of(a):
        return "a" if a % 2 else "b"

    for i in range(depth + 2):
        await RisingEdge(dut.clk)
        writes = {"a": None, "b": None}
        drv = {}
        for p in "ab":
            wi = i - 2 if lead[p] else i
            if 0 <= wi < depth and port_of(wi) == p:
                writes[p] = (wi, rng.randrange(1 << width))
            drv[p] = i % depth if lead[p] else (writes[p][0] if writes[p] else 0)
        drive(writes, drv)
        for w in writes.values():
            if w:
                model[w[0]] = w[1]
    await RisingEdge(dut.clk)
    for p in "ab":
        getattr(dut, f"{p}_en").value = 0
        if lead[p]:
            ahead[p].popleft()
            ahead[p].append(int(getattr(dut, f"{p}_addr").value))
    assert None not in model
    checked = 0
    last_read = None
    for cyc in range(20000):
        await RisingEdge(dut.clk)
        hot = [rng.randrange(depth) for _ in range(3)]   # a few addresses: collisions
        drv, wa = {}, {}
        for p in "ab":
            fresh = rng.choice(hot) if rng.random() < 0.7 else rng.randrange(depth)
            wa[p], drv[p] = write_addr(p, fresh)
        en = {p: rng.random() < 0.6 for p in "ab"}
        if en["a"] and en["b"] and wa["a"] == wa["b"]:
            en[rng.choice("ab")] = False
        writes = {p: (wa[p], rng.randrange(1 << width)) if en[p] else None for p in "ab"}
        drive(writes, drv)
        ra = rng.choice(hot + [rng.randrange(depth)])
        ren = rng.random() < 0.5
        dut.rd_addr.value = ra
        dut.rd_en.value = int(ren)
        await ReadOnly()
        if rd_reg:
            if last_read is not None:
                assert int(dut.rd_data.value) == last_read[1], \
                    f"cycle {cyc}: registered read of {last_read[0]}"
                checked += 1
            if ren:
                last_read = (ra, model[ra])
        else:
            assert int(dut.rd_data.value) == model[ra], f"cycle {cyc}: addr {ra}"
            checked += 1
        for w in writes.values():
            if w:
                model[w[0]] = w[1]
    assert checked > 15000


def params():
    """(WIDTH, DEPTH, A_LEAD, B_LEAD, RD_REG, SUB_DEPTH): the flat form, the pipelined
    form as the host port uses it, a small mixed one; the others in make test-full."""
    from simrun import full

    p = [(1, 1024, 0, 0, 0, 128), (4, 1024, 1, 1, 1, 128), (2, 8, 1, 0, 1, 8)]
    if full():
        p += [(5, 13, 0, 0, 0, 128), (3, 16, 0, 1, 0, 4)]
    return p


@pytest.mark.parametrize("width,depth,a_lead,b_lead,rd_reg,sub", params())
def test_qrdma_mem_2w(width, depth, a_lead, b_lead, rd_reg, sub):
    from simrun import run

    p = {"WIDTH": width, "DEPTH": depth, "A_LEAD": a_lead, "B_LEAD": b_lead,
         "RD_REG": rd_reg, "SUB_DEPTH": sub}
    run("qrdma_mem_2w", "test_qrdma_mem_2w", p,
        extra_env={f"P_{k}": str(v) for k, v in p.items()})
