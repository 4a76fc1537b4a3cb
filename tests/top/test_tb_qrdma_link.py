# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The testbench link model (tests/top/tb_qrdma_link.sv) with its fault model on, against
the reference model (tests/model/link_fault_model.py), the same traffic as
qrdma_sim_check_faults (sim/check_faults.cc) drives into the harness's: every beat
delivered (cycle, packet, beat, tlast, the bit flipped), every count of fault_cnt and the
cycle the link drained, exactly; and with the fault model off, the plain link: every beat
LATENCY cycles after it was taken, in order, flip_en flipping one header bit.

  link_faults   loss, corruption, duplication and reordering at once
  link_down     periodic link-down windows and duplicates, with a receiver that stalls
  link_silent   a silent sender: everything dropped and counted
  link_plain    fault_on low: the FIFO link, one flip_en header flip

Replay: QRDMA_SEED=<seed printed at the start>.
"""
from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from model.link_fault_model import COUNT_NAMES, Faults, fault_cfg, mix64, run  # noqa: E402
from seeding import seed_rng  # noqa: E402

LATENCY, DEPTH, SRC, DST = 100, 256, 0, 1
M32 = (1 << 32) - 1


def make_beat(k: int, b: int, last: bool, keep_bytes: int) -> tuple[int, int, int]:
    """(tdata, tkeep, tuser) of beat b of packet k, as sim/check_faults.cc makes it."""
    words = [0] * 16
    for w in (0, 2, 4):
        words[w] = k & M32
        words[w + 1] = b
    for w in range(6, 16):
        words[w] = mix64(((k << 32) ^ (b << 8) ^ w) & ((1 << 64) - 1)) & M32
    data = sum(x << (32 * i) for i, x in enumerate(words))
    keep = ((1 << keep_bytes) - 1 if keep_bytes < 64 else (1 << 64) - 1) if last else (1 << 64) - 1
    return data, keep, 0x5A5A0000 | b


def decode(data: int, user: int, packets) -> tuple[int, int, int]:
    """(packet, beat, bit flipped or -1) of a delivered beat."""
    w = [(data >> (32 * i)) & M32 for i in range(16)]
    vote = lambda i: w[i] if w[i] == w[i + 2] else w[i + 4]  # noqa: E731
    k, b = vote(0), vote(1)
    nb, kb, _ = packets[k]
    ref, _, ruser = make_beat(k, b, b + 1 == nb, kb)
    diff = (ref ^ data) | ((ruser ^ user) << 512)
    assert diff & (diff - 1) == 0, f"beat {k}.{b} damaged beyond one bit"
    return k, b, diff.bit_length() - 1 if diff else -1


async def drive(dut, f: Faults | None, packets, rx_stall=(0, 0), flip_at: int | None = None):
    """Run the traffic through the link; returns (delivered beats, counts, end cycle,
    cycles each beat was taken)."""
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    dut.fault_on.value = int(f is not None)
    dut.fault_cfg.value = fault_cfg(f) if f else 0
    dut.flip_en.value = 0
    dut.flip_bit.value = 0
    dut.s_axis_tvalid.value = 0
    dut.m_axis_tready.value = 0
    dut.rst.value = 1
    for _ in range(5):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    out, taken = [], []
    k, b, wait = 0, 0, packets[0][2]
    sp, ss = rx_stall
    t = 0
    while True:
        # inputs of cycle t
        sent_all = k == len(packets)
        offer = k < len(packets) and wait == 0
        if offer:
            nb, kb, _ = packets[k]
            data, keep, user = make_beat(k, b, b + 1 == nb, kb)
            dut.s_axis_tdata.value = data
            dut.s_axis_tkeep.value = keep
            dut.s_axis_tuser.value = user
            dut.s_axis_tlast.value = int(b + 1 == nb)
        dut.s_axis_tvalid.value = int(offer)
        dut.m_axis_tready.value = int(not (sp and t % sp < ss))
        dut.flip_en.value = int(flip_at == t)
        await ReadOnly()
        assert int(dut.now_q.value) == t
        if offer and int(dut.s_axis_tready.value):
            taken.append(t)
            if b + 1 == packets[k][0]:
                k, b = k + 1, 0
                wait = packets[k][2] if k < len(packets) else 0
            else:
                b += 1
        elif k < len(packets) and wait:
            wait -= 1
        if int(dut.m_axis_tvalid.value) and int(dut.m_axis_tready.value):
            pk, bb, flip = decode(int(dut.m_axis_tdata.value), int(dut.m_axis_tuser.value),
                                  packets)
            out.append((t, pk, bb, int(dut.m_axis_tlast.value), flip))
        done = sent_all and int(dut.occ.value) == 0
        await RisingEdge(dut.clk)
        t += 1
        if done:
            break
        assert t < 2_000_000
    cnt = int(dut.fault_cnt.value)
    counts = {n: (cnt >> (32 * i)) & M32 for i, n in enumerate(COUNT_NAMES)}
    return out, counts, t - 1, taken


def traffic(rng: random.Random, n: int):
    return [(rng.choice([1, 1, 2, 17, rng.randrange(1, 18)]), rng.randrange(0, 65),
             rng.choice([0, 0, 0, 1, 5])) for _ in range(n)]


async def check_against_model(dut, name: str, f: Faults, rx_stall=(0, 0)):
    rng = seed_rng(name)
    f.seed = rng.randrange(1 << 32)
    f.src, f.dst = SRC, DST
    packets = traffic(rng, int(os.environ.get("P_PACKETS", "400")))
    out, counts, end, _ = await drive(dut, f, packets, rx_stall)
    want, want_counts, want_end = run(f, packets, latency=LATENCY, depth=DEPTH,
                                      rx_stall=rx_stall)
    dut._log.info("%s: %s", name, counts)
    assert counts == want_counts
    assert out == want
    assert end == want_end  # the first cycle with nothing left
    return counts


@cocotb.test()
async def link_faults(dut):
    c = await check_against_model(dut, "link_faults",
                                  Faults(loss=0.05, corrupt=0.05, dup=0.05, reorder=200))
    for k in ("lost", "corrupted", "duplicated", "delayed", "reordered"):
        assert c[k] > 0, k


@cocotb.test()
async def link_down(dut):
    c = await check_against_model(dut, "link_down",
                                  Faults(dup=0.2, down_start=300, down_len=200, down_period=1000),
                                  rx_stall=(7, 3))
    assert c["down_lost"] > 0 and c["duplicated"] > 0


@cocotb.test()
async def link_silent(dut):
    c = await check_against_model(dut, "link_silent", Faults(silent=True, loss=0.5))
    assert c["silenced"] == c["packets_in"] > 0 and c["packets_out"] == 0


@cocotb.test()
async def link_plain(dut):
    rng = seed_rng("link_plain")
    packets = traffic(rng, 100)
    out, counts, _, taken = await drive(dut, None, packets, flip_at=50)
    assert all(v == 0 for v in counts.values())
    assert [(o[1], o[2]) for o in out] == [(k, b) for k, p in enumerate(packets)
                                          for b in range(p[0])]
    assert [o[0] for o in out] == [t + LATENCY for t in taken]
    flipped = [o for o in out if o[4] >= 0]
    assert len(flipped) == 1 and flipped[0][2] == 0 and int(dut.flips.value) == 1


def test_tb_qrdma_link():
    from simrun import full, run as sim_run
    sim_run("tb_qrdma_link", "test_tb_qrdma_link", {"LATENCY": LATENCY, "DEPTH": DEPTH},
            extra_env={"P_PACKETS": "3000" if full() else "400"})
