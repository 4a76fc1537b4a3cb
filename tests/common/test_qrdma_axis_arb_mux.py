# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_axis_arb_mux against a reference model: N inputs offer random packets (1 to 8
beats, random tdata, tkeep, tuser), each input's tvalid held from a packet's first beat to
its last, with random gaps between packets; the output (a cocotbext-axi AxiStreamSink)
takes beats under random backpressure, with a phase of neither gaps nor backpressure.
Every packet arrives whole, never interleaved with another, in its input's order; in the
phase without gaps or backpressure one beat leaves per cycle and the inputs' packets
leave in turn (round robin: with every input offering, input i's packet is followed by
input i + 1 mod N's)."""
import collections
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamSink

from seeding import seed_rng
from streams import quiet, random_pause

FULL = (600, 1100)    # cycles without gaps or backpressure


@cocotb.test()
async def arb_mux_random(dut):
    n_in, dw, uw = int(os.environ["P_N"]), int(os.environ["P_DATA_W"]), int(os.environ["P_USER_W"])
    kw = dw // 8
    rng = seed_rng("arb_mux_random")
    cocotb.start_soon(Clock(dut.clk, 2, "ns").start())
    quiet(dut, "m_axis")
    sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.clk, dut.rst)
    random_pause(sink, rng, 0.3)
    dut.s_axis_tvalid.value = 0
    dut.rst.value = 1
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0

    per_input = 300
    todo = [collections.deque() for _ in range(n_in)]     # packets not offered yet
    sent = [collections.deque() for _ in range(n_in)]     # offered, not arrived
    for i in range(n_in):
        for _ in range(per_input):
            todo[i].append([(rng.getrandbits(dw), rng.getrandbits(kw), rng.getrandbits(uw))
                            for _ in range(rng.randint(1, 8))])
    cur = [None] * n_in          # input i: [beats, index of the beat offered]
    taken = 0                    # inputs whose beat was taken at the last edge
    gap_p = 0.3
    frame, order = [], []        # the packet arriving; (cycle, input) of the packets out
    full_beats = 0
    cycle = 0
    total = n_in * per_input
    while len(order) < total:
        await FallingEdge(dut.clk)
        cycle += 1
        if cycle == FULL[0]:
            gap_p = 0.0
            random_pause(sink, rng, 0.0)
        if cycle == FULL[1]:
            gap_p = 0.3
            random_pause(sink, rng, 0.3)
        tv = td = tk = tu = tl = 0
        for i in range(n_in):
            c = cur[i]
            if c is not None and taken >> i & 1:
                c[1] += 1
                if c[1] == len(c[0]):
                    sent[i].append(c[0])
                    cur[i] = c = None
            if c is None and todo[i] and rng.random() >= gap_p:
                cur[i] = c = [todo[i].popleft(), 0]
            if c is not None:
                b = c[0][c[1]]
                tv |= 1 << i
                td |= b[0] << (i * dw)
                tk |= b[1] << (i * kw)
                tu |= b[2] << (i * uw)
                tl |= int(c[1] == len(c[0]) - 1) << i
        dut.s_axis_tvalid.value = tv
        dut.s_axis_tdata.value = td
        dut.s_axis_tkeep.value = tk
        dut.s_axis_tuser.value = tu
        dut.s_axis_tlast.value = tl
        await ReadOnly()         # settled: what the next rising edge samples
        taken = tv & dut.s_axis_tready.value.to_unsigned()
        if dut.m_axis_tvalid.value and dut.m_axis_tready.value:
            full_beats += FULL[0] + 20 < cycle < FULL[1]
            frame.append((dut.m_axis_tdata.value.to_unsigned(), dut.m_axis_tkeep.value.to_unsigned(),
                          dut.m_axis_tuser.value.to_unsigned()))
            if dut.m_axis_tlast.value:
                heads = [i for i in range(n_in) if sent[i] and sent[i][0] == frame]
                assert heads, (f"cycle {cycle}: a packet of {len(frame)} beats that no input "
                               f"offered next (interleaved, out of order or corrupted)")
                sent[heads[0]].popleft()
                order.append((cycle, heads[0]))
                frame = []
        assert cycle < 20 * total * 8, "timeout"

    assert not any(sent) and all(c is None for c in cur) and not frame
    span = FULL[1] - FULL[0] - 21
    assert full_beats == span, f"{full_beats} beats in {span} cycles without gaps or backpressure"
    turns = [i for c, i in order if FULL[0] + 40 < c < FULL[1]]
    assert len(turns) > 20
    for a, b in zip(turns, turns[1:]):
        assert b == (a + 1) % n_in, f"round robin: input {b} after input {a}: {turns}"
    await RisingEdge(dut.clk)
    assert sink.count() == total
    dut._log.info("%d packets in %d cycles", total, cycle)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_qrdma_axis_arb_mux(n):
    from simrun import run

    p = {"N": n, "DATA_W": 32, "USER_W": 5}
    run("qrdma_axis_arb_mux", "test_qrdma_axis_arb_mux", p,
        extra_env={f"P_{k}": str(v) for k, v in p.items()})
