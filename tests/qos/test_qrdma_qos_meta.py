# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_qos_meta (the metadata table and its shared read-modify-write slot, [QoS-RDMA]
§3.2, §3.12) against a model of the table and of the slot arbitration.

  meta_random   two clients as the segmenter and the message handler use the slot: the
                segmenter reads when seg_rd_allow is high (at random) and writes the entry
                back in the next cycle (most of the time: an inline transfer writes
                nothing), the handler wants the slot at random, holds its want until it
                reads (with random extra hold-off of its own, as when its action FIFO is
                full) and always writes back. A few entries are shared so that reads meet
                the other client's writes (read-during-write returns the new entry). Every
                read is compared with the model; seg_rd_allow must be low exactly in the
                cycle after one in which the handler wanted the slot and the segmenter read,
                hdl_rd_allow exactly while the segmenter does not read; a handler ready to
                read waits at most one cycle. Each write-back adds one to a count in the
                entry, so at the end a read of every entry shows that no update was lost.

Replay: QRDMA_SEED=<seed printed at the start>. Size: CYCLES (x 10 with make test-full).
"""
from __future__ import annotations

import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from seeding import seed_rng
from model.qos_model import META

CYCLES = 20000
MASK = (1 << META.width) - 1
CNT = (1 << 32) - 1          # the low 32 bits of an entry count its write-backs


class Client:
    """One user of the slot: read in cycle t, write back in t+1."""

    def __init__(self, name):
        self.name = name
        self.rd_addr = None        # read in the previous cycle, write-back due now
        self.expect = None         # entry the read must return
        self.want = False
        self.addr = 0              # the entry the handler wants
        self.wait = 0              # cycles the handler has wanted the slot while able
        self.rmw = 0


class Bench:
    def __init__(self, dut, rng):
        self.dut = dut
        self.rng = rng
        self.mem = {}              # model of the table (entries never written: unknown)
        self.seg, self.hdl = Client("seg"), Client("hdl")
        self.force = False         # the model's "handler refused in the previous cycle"
        self.now = 0
        self.addrs = [rng.randrange(2048) for _ in range(6)]
        self.p_seg, self.p_want, self.p_hold, self.p_skip_wr = 0.6, 0.3, 0.2, 0.2
        self.max_wait = 0
        self.writes = {}           # addr -> write-backs made

    def addr(self):
        return self.rng.choice(self.addrs)

    async def cycle(self, final_reads=None):
        d, rng = self.dut, self.rng
        await RisingEdge(d.clk)
        self.now += 1
        seg, hdl = self.seg, self.hdl
        # write-backs of the reads of the previous cycle (the entry read, checked below:
        # its count + 1, new random upper bits; count 1 over an entry never written)
        seg_wr = seg.rd_addr is not None and final_reads is None \
            and rng.random() >= self.p_skip_wr
        hdl_wr = hdl.rd_addr is not None
        for c, en in ((seg, seg_wr), (hdl, hdl_wr)):
            getattr(d, f"{c.name}_wr_en").value = int(en)
            if en:
                cnt = 1 if c.expect is None else ((c.expect & CNT) + 1) & CNT
                val = (rng.getrandbits(META.width - 32) << 32) | cnt
                getattr(d, f"{c.name}_wr_addr").value = c.rd_addr
                getattr(d, f"{c.name}_wr_data").value = val
            else:
                getattr(d, f"{c.name}_wr_addr").value = rng.randrange(2048)
        # reads: the segmenter when allowed, the handler when it wants, is able and the
        # segmenter does not read
        allow = not self.force
        if final_reads is not None:
            seg_rd = allow and bool(final_reads)
            seg_addr = final_reads[0] if seg_rd else 0
        else:
            seg_rd = allow and rng.random() < self.p_seg
            seg_addr = self.addr()
        if not hdl.want and final_reads is None:
            hdl.want = rng.random() < self.p_want
            hdl.addr = self.addr()
        able = hdl.want and rng.random() >= self.p_hold
        hdl_rd = able and not seg_rd
        d.seg_rd_en.value = int(seg_rd)
        d.seg_rd_addr.value = seg_addr
        d.hdl_rd_want.value = int(hdl.want)
        d.hdl_rd_en.value = int(hdl_rd)
        d.hdl_rd_addr.value = hdl.addr if hdl.want else rng.randrange(2048)
        await ReadOnly()
        # the previous cycle's reads
        for c in (seg, hdl):
            if c.rd_addr is not None:
                got = int(d.rd_data.value)
                if c.expect is not None:
                    assert got == c.expect, f"cycle {self.now}: {c.name} read of entry " \
                        f"{c.rd_addr}: {got:#x}, expected {c.expect:#x}"
        assert int(d.seg_rd_allow.value) == int(allow), f"cycle {self.now}: seg_rd_allow"
        assert int(d.hdl_rd_allow.value) == int(not seg_rd), f"cycle {self.now}: hdl_rd_allow"
        # this cycle's writes, then its reads (read-during-write: the new entry)
        for c, en in ((seg, seg_wr), (hdl, hdl_wr)):
            if en:
                self.mem[c.rd_addr] = int(getattr(d, f"{c.name}_wr_data").value)
                self.writes[c.rd_addr] = self.writes.get(c.rd_addr, 0) + 1
                c.rmw += 1
        seg.rd_addr = hdl.rd_addr = None
        if seg_rd:
            seg.rd_addr, seg.expect = seg_addr, self.mem.get(seg_addr)
            if final_reads is not None:
                final_reads.pop(0)
        if hdl_rd:
            hdl.rd_addr, hdl.expect = hdl.addr, self.mem.get(hdl.addr)
            hdl.want = False
            hdl.wait = 0
        elif not seg_rd:
            hdl.wait = 0           # the slot was free (the handler held off)
        elif able:
            hdl.wait += 1
            self.max_wait = max(self.max_wait, hdl.wait)
            assert hdl.wait <= 1, f"cycle {self.now}: handler refused {hdl.wait} cycles"
        self.force = hdl.want and seg_rd


@cocotb.test()
async def meta_random(dut):
    n = int(os.environ["P_N"])
    rng = seed_rng("meta_random")
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    for s in ("seg_rd_en", "seg_wr_en", "hdl_rd_want", "hdl_rd_en", "hdl_wr_en"):
        getattr(dut, s).value = 0
    dut.rst.value = 1
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    b = Bench(dut, rng)
    # (segmenter read rate, handler want rate, handler hold-off) phases
    phases = [(0.6, 0.3, 0.2), (1.0, 0.5, 0.0), (0.9, 1.0, 0.0), (0.3, 0.8, 0.5),
              (0.0, 0.5, 0.3), (0.7, 0.1, 0.0)]
    for p_seg, p_want, p_hold in phases:
        b.p_seg, b.p_want, b.p_hold = p_seg, p_want, p_hold
        for _ in range(n // len(phases)):
            await b.cycle()
    # finish the handler's pending want, then read every entry once more
    b.p_want = 0.0
    for _ in range(4):
        await b.cycle()
    todo = sorted(set(b.addrs))
    reads = list(todo)
    while reads or b.seg.rd_addr is not None:
        await b.cycle(final_reads=reads)
        if b.seg.rd_addr is not None:
            got = b.seg.expect
            a = b.seg.rd_addr
            if a in b.writes:
                assert got is not None and got & CNT == b.writes[a], \
                    f"entry {a}: {got & CNT if got is not None else None} write-backs " \
                    f"counted, {b.writes[a]} made"
    assert b.seg.rmw > 1000 and b.hdl.rmw > 1000 and b.max_wait == 1
    dut._log.info("%d segmenter and %d handler write-backs", b.seg.rmw, b.hdl.rmw)


def test_qrdma_qos_meta():
    from simrun import full, run
    run("qrdma_qos_meta", "test_qrdma_qos_meta", {},
        extra_env={"P_N": str(CYCLES * (10 if full() else 1))})
