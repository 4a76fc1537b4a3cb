# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_axis_demux against a reference model: a cocotbext-axi AxiStreamSource sends random
packets (1 to 8 beats) under random idle, each with a random output number in the first
beat's tdata (the test drives s_sel from it, as qrdma_fabric_planes does from the header's
path); the outputs take beats under random backpressure each, with a phase of none. Every
packet arrives whole at its output and nowhere else, in order; only the chosen output
sees tvalid; s_axis_tready is the chosen output's tready; in the phase without idle or
backpressure one beat passes per cycle."""
import collections
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSource

from seeding import seed_rng
from streams import quiet, random_pause

FULL = (600, 1100)    # cycles without idle or backpressure


@cocotb.test()
async def demux_random(dut):
    n_out, dw = int(os.environ["P_N"]), int(os.environ["P_DATA_W"])
    rng = seed_rng("demux_random")
    cocotb.start_soon(Clock(dut.clk, 2, "ns").start())
    quiet(dut, "s_axis")
    src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
    random_pause(src, rng, 0.3)
    dut.m_axis_tready.value = 0
    dut.rst.value = 1
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0

    total = 600
    expect = [collections.deque() for _ in range(n_out)]
    for _ in range(total):
        o = rng.randrange(n_out)
        beats = [rng.getrandbits(dw) for _ in range(rng.randint(1, 8))]
        beats[0] = (beats[0] & ~0xFF) | o                  # the output, in the first beat
        expect[o].append(beats)
        src.send_nowait(AxiStreamFrame(b"".join(b.to_bytes(dw // 8, "little") for b in beats),
                                       tuser=rng.getrandbits(int(os.environ["P_USER_W"]))))
    frames = [[] for _ in range(n_out)]
    got, cycle, full_beats, first = 0, 0, 0, True
    stall_p = 0.3
    while got < total:
        await FallingEdge(dut.clk)
        cycle += 1
        if cycle == FULL[0]:
            stall_p = 0.0
            random_pause(src, rng, 0.0)
        if cycle == FULL[1]:
            stall_p = 0.3
            random_pause(src, rng, 0.3)
        dut.m_axis_tready.value = sum((rng.random() >= stall_p) << o for o in range(n_out))
        offered = first and int(dut.s_axis_tvalid.value)
        dut.s_sel.value = dut.s_axis_tdata.value.to_unsigned() & 0xFF if offered else 0
        await ReadOnly()
        sv, sr = int(dut.s_axis_tvalid.value), int(dut.s_axis_tready.value)
        mv, mr = dut.m_axis_tvalid.value.to_unsigned(), dut.m_axis_tready.value.to_unsigned()
        if sv:
            o = dut.s_axis_tdata.value.to_unsigned() & 0xFF if first else sel
            assert mv == 1 << o, f"cycle {cycle}: tvalid {mv:b} for output {o}"
            assert sr == (mr >> o & 1), f"cycle {cycle}: s_axis_tready {sr}, output {o}'s {mr >> o & 1}"
        else:
            assert mv == 0
        if sv and sr:
            sel = o
            full_beats += FULL[0] + 20 < cycle < FULL[1]
            frames[o].append(dut.m_axis_tdata.value.to_unsigned())
            first = bool(dut.m_axis_tlast.value)
            if first:
                assert expect[o], f"output {o}: a packet not sent to it"
                assert frames[o] == expect[o].popleft(), f"output {o}: packet differs or out of order"
                frames[o] = []
                got += 1
        assert cycle < 40 * total * 8, "timeout"
    assert not any(expect)
    span = FULL[1] - FULL[0] - 21
    assert full_beats == span, f"{full_beats} beats in {span} cycles without idle or backpressure"


@pytest.mark.parametrize("n", [1, 2, 3])
def test_qrdma_axis_demux(n):
    from simrun import run

    p = {"N": n, "DATA_W": 32, "USER_W": 5}
    run("qrdma_axis_demux", "test_qrdma_axis_demux", p,
        extra_env={f"P_{k}": str(v) for k, v in p.items()})
