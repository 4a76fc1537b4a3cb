# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_sdp_ram against a reference model, cycle by cycle: random writes and reads
(random idle on both ports: wr_en and rd_en are random, addresses are drawn from a few
"hot" ones often enough that read-during-write to the same address happens hundreds of
times), random byte (lane) enables, rd_data valid the cycle after rd_en and held while
rd_en is low, read-during-write returning the OLD word (RDW_NEW=0) or the NEW one
(RDW_NEW=1: the old word with the enabled lanes replaced). With OUT_REG=1 the word read
goes on into the output register when rd_oe (random) is high and rd_data shows that
register; BANKS > 1 (the words in several arrays, selected after their output registers)
behaves the same. Lanes never written are unknown to the model and not compared (the RAM has no
reset)."""
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from seeding import seed_rng


class SdpRamModel:
    """What the RAM must do, edge by edge. A word is a list of BE_W lanes; None = unknown."""

    def __init__(self, depth, be_w, lane_w, rdw_new, out_reg):
        self.be_w = be_w
        self.out_reg = out_reg
        self.out = [None] * be_w       # the output register (OUT_REG)
        self.lane_w = lane_w
        self.mem = [[None] * be_w for _ in range(depth)]
        self.rdw_new = rdw_new
        self.rd_data = [None] * be_w   # the read register

    def lanes(self, word):
        mask = (1 << self.lane_w) - 1
        return [(word >> (i * self.lane_w)) & mask for i in range(self.be_w)]

    def merge(self, old, word, be):
        new = self.lanes(word)
        return [new[i] if be >> i & 1 else old[i] for i in range(self.be_w)]

    def shown(self):
        return self.out if self.out_reg else self.rd_data

    def edge(self, wr_en, wr_be, wr_addr, wr_data, rd_en, rd_addr, rd_oe):
        if rd_oe:
            self.out = list(self.rd_data)
        if rd_en:
            old = list(self.mem[rd_addr])
            if wr_en and wr_addr == rd_addr and self.rdw_new:
                self.rd_data = self.merge(old, wr_data, wr_be)
            else:
                self.rd_data = old
        if wr_en:
            self.mem[wr_addr] = self.merge(self.mem[wr_addr], wr_data, wr_be)


@cocotb.test()
async def sdp_ram_random(dut):
    width = int(os.environ["P_WIDTH"])
    depth = int(os.environ["P_DEPTH"])
    rdw_new = int(os.environ["P_RDW_NEW"])
    be_w = int(os.environ["P_BE_W"])
    out_reg = int(os.environ["P_OUT_REG"])
    rng = seed_rng("sdp_ram_random")
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    dut.wr_en.value = 0
    dut.wr_be.value = 0
    dut.rd_en.value = 0
    dut.rd_oe.value = 0
    dut.wr_addr.value = 0
    dut.rd_addr.value = 0
    dut.wr_data.value = 0
    await RisingEdge(dut.clk)

    model = SdpRamModel(depth, be_w, width // be_w, rdw_new, out_reg)
    hot = [0, depth - 1] + [rng.randrange(depth) for _ in range(2)]
    aw = max(1, (depth - 1).bit_length())
    all_be = (1 << be_w) - 1

    def addr():
        return rng.choice(hot) if rng.random() < 0.5 else rng.randrange(depth)

    stats = {"rdw": 0, "rdw_partial": 0, "held": 0, "lanes_checked": 0}
    # (cycles, p_wr, p_rd): random, write-heavy, read-heavy, both ports every cycle, random
    phases = [(1500, 0.5, 0.5), (500, 0.9, 0.2), (500, 0.2, 0.9), (500, 1.0, 1.0),
              (1000, 0.3, 0.3)]
    for cycles, p_wr, p_rd in phases:
        for _ in range(cycles):
            wr_en = rng.random() < p_wr
            rd_en = rng.random() < p_rd
            rd_oe = rng.random() < 0.7
            wr_be = all_be if rng.random() < 0.5 else rng.randrange(1 << be_w)
            wr_addr, rd_addr = addr(), addr()
            if rd_en and wr_en and rng.random() < 0.2:
                rd_addr = wr_addr  # extra read-during-write
            wr_data = rng.randrange(1 << width)
            dut.wr_en.value = int(wr_en)
            dut.wr_be.value = wr_be
            dut.rd_en.value = int(rd_en)
            dut.rd_oe.value = int(rd_oe)
            # idle ports get random addresses (in or out of range): they must not matter
            dut.wr_addr.value = wr_addr if wr_en else rng.randrange(1 << aw)
            dut.rd_addr.value = rd_addr if rd_en else rng.randrange(1 << aw)
            dut.wr_data.value = wr_data
            await ReadOnly()
            # rd_data now shows the result of the reads of earlier edges
            got = model.lanes(int(dut.rd_data.value))
            for i, (g, w) in enumerate(zip(got, model.shown())):
                if w is not None:
                    assert g == w, (f"rd_data lane {i}: {g:#x} != model {w:#x} "
                                    f"(word {int(dut.rd_data.value):#x})")
                    stats["lanes_checked"] += 1
            if rd_en and wr_en and rd_addr == wr_addr:
                stats["rdw"] += 1
                stats["rdw_partial"] += wr_be != all_be
            if not (rd_oe if out_reg else rd_en) and any(w is not None for w in model.shown()):
                stats["held"] += 1
            model.edge(wr_en, wr_be, wr_addr, wr_data, rd_en, rd_addr, out_reg and rd_oe)
            await RisingEdge(dut.clk)
    dut._log.info("%s", stats)
    assert stats["rdw"] > 100 and stats["held"] > 500 and stats["lanes_checked"] > 2000 * be_w
    assert be_w == 1 or stats["rdw_partial"] > 30


def params():
    from simrun import full

    # WIDTH, DEPTH, RDW_NEW, BE_W, OUT_REG, BANKS
    p = [(8, 13, 0, 1, 0, 1), (72, 16, 1, 9, 0, 1), (72, 16, 1, 9, 1, 1), (12, 20, 0, 1, 1, 1),
         (12, 32, 0, 1, 1, 4), (72, 16, 1, 9, 1, 2)]
    if full():
        p += [(1, 2, 1, 1, 0, 1), (33, 100, 0, 3, 0, 1), (32, 5, 1, 1, 0, 1), (1, 2, 1, 1, 1, 1),
              (1, 4, 1, 1, 1, 2)]
    return p


@pytest.mark.parametrize("width,depth,rdw_new,be_w,out_reg,banks", params())
def test_qrdma_sdp_ram(width, depth, rdw_new, be_w, out_reg, banks):
    from simrun import run

    p = {"WIDTH": width, "DEPTH": depth, "RDW_NEW": rdw_new, "BE_W": be_w, "OUT_REG": out_reg,
         "BANKS": banks}
    run("qrdma_sdp_ram", "test_qrdma_sdp_ram", p,
        extra_env={f"P_{k}": str(v) for k, v in p.items()})
