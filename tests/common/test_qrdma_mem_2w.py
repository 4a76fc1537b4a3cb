# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_mem_2w against a model: two write ports and an asynchronous read port, random
traffic on all three every cycle (never both ports on one address in one cycle), every
read compared; a write is visible the next cycle. With A_LEAD / B_LEAD a port's address
is driven a cycle before its enable and data, and the other port never writes, in that
cycle, the address it drives."""
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
    rng = seed_rng("mem_2w_random")
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    model = [None] * depth  # unknown until written
    dut.a_en.value = 0
    dut.b_en.value = 0
    ahead = {"a": 0, "b": 0}          # address a leading port drove in the cycle before

    def drive(writes, pick_next):
        """This cycle's writes {port: (addr, data) or None}; the next addresses of the
        leading ports (pick_next(port, this cycle's other write address))."""
        for port in "ab":
            w = writes[port]
            getattr(dut, f"{port}_en").value = int(w is not None)
            getattr(dut, f"{port}_data").value = w[1] if w else 0
            other = writes["b" if port == "a" else "a"]
            if lead[port]:
                ahead[port] = pick_next(port, other[0] if other else None)
                getattr(dut, f"{port}_addr").value = ahead[port]
            else:
                getattr(dut, f"{port}_addr").value = w[0] if w else 0

    # write every address once through alternating ports so the model is known; a leading
    # port drives the address it writes next in the cycle before
    def port_of(a):
        return "a" if a % 2 else "b"

    dut.a_addr.value = 0
    dut.b_addr.value = 0
    for i in range(depth + 1):
        await RisingEdge(dut.clk)
        writes = {"a": None, "b": None}
        if i < depth:
            writes[port_of(i)] = (i, rng.randrange(1 << width))
        drive(writes, lambda p, o: i + 1 if i + 1 < depth and port_of(i + 1) == p else 0)
        for w in writes.values():
            if w:
                model[w[0]] = w[1]
    await RisingEdge(dut.clk)
    dut.a_en.value = 0
    dut.b_en.value = 0
    assert None not in model
    checked = 0
    for _ in range(20000):
        await RisingEdge(dut.clk)
        addr = {p: (ahead[p] if lead[p] else rng.randrange(depth)) for p in "ab"}
        en = {p: rng.random() < 0.6 for p in "ab"}
        if en["a"] and en["b"] and addr["a"] == addr["b"]:
            en[rng.choice("ab")] = False
        writes = {p: (addr[p], rng.randrange(1 << width)) if en[p] else None for p in "ab"}

        def pick_next(p, other):
            while True:
                x = rng.choice([rng.randrange(depth), addr["a"], addr["b"]])
                if x != other:
                    return x
        drive(writes, pick_next)
        ra = rng.choice([addr["a"], addr["b"], rng.randrange(depth)])
        dut.rd_addr.value = ra
        await ReadOnly()
        assert int(dut.rd_data.value) == model[ra], f"addr {ra}"
        checked += 1
        for w in writes.values():
            if w:
                model[w[0]] = w[1]
    assert checked == 20000


@pytest.mark.parametrize("width,depth,a_lead,b_lead",
                         [(1, 1024, 0, 0), (5, 13, 0, 0), (4, 1024, 1, 1), (3, 7, 0, 1)])
def test_qrdma_mem_2w(width, depth, a_lead, b_lead):
    from simrun import run

    p = {"WIDTH": width, "DEPTH": depth, "A_LEAD": a_lead, "B_LEAD": b_lead}
    run("qrdma_mem_2w", "test_qrdma_mem_2w", p,
        extra_env={f"P_{k}": str(v) for k, v in p.items()})
