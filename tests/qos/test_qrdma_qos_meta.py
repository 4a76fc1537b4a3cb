# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_qos_meta (the metadata table and the read-modify-write pipeline the segmenter and
the message handler share, [QoS-RDMA] §3.2, §3.12) against a model of the table.

  meta_random   two clients as the core uses the pipeline: per cycle at most one read, of
                the segmenter (at random; never an entry it has in flight itself) or of the
                handler (it wants an entry at random, holds its want until it reads, and
                reads only while hdl_busy is low and the segmenter does not read). An
                operation read in cycle r sees its entry in r+2 and writes it back in r+3
                (the segmenter sometimes does not: an inline transfer). A few entries are
                shared so that operations meet. Checked: the segmenter's fwd_data is the
                entry after the write-backs of every operation read before it (the
                handler's in flight forwarded), the handler's rd_data likewise (it never
                reads an entry in flight); hdl_busy exactly when an operation on the
                handler's entry is between its read and its write. Each write-back adds one
                to a count in the entry, so at the end a read of every entry shows that no
                update was lost.

Replay: QRDMA_SEED=<seed printed at the start>. Size: CYCLES (x 10 with make test-full).
"""
from __future__ import annotations

import collections
import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from seeding import seed_rng
from model.qos_model import META

CYCLES = 20000
CNT = (1 << 32) - 1          # the low 32 bits of an entry count its write-backs


class Op:
    """An operation in the pipeline: read in cycle `rd`, entry in rd+2, write-back rd+3."""

    def __init__(self, client, addr, rd):
        self.client = client
        self.addr = addr
        self.rd = rd
        self.write = None        # value written back (None: no write)


class Bench:
    def __init__(self, dut, rng):
        self.dut = dut
        self.rng = rng
        self.mem = {}                # entry -> value (by the order of the reads)
        self.now = 0
        self.addrs = [rng.randrange(2048) for _ in range(6)]
        self.flight = collections.deque()   # operations read in the last three cycles
        self.want = None             # the handler's entry while it wants one
        self.p_seg, self.p_want, self.p_skip_wr = 0.6, 0.3, 0.2
        self.writes = collections.Counter()
        self.rmw = collections.Counter()
        self.waited = collections.Counter()   # handler cycles: busy, slot taken

    def value(self, op):
        """What the operation must see: the value after every earlier operation's write."""
        return self.mem.get(op.addr)

    async def cycle(self, final_reads=None):
        d, rng = self.dut, self.rng
        await RisingEdge(d.clk)
        self.now += 1
        now = self.now
        ops = {o.rd: o for o in self.flight}
        # MW: the operation read three cycles ago writes back (decided in its MM, below)
        mw = ops.get(now - 3)
        d.seg_wr_en.value = int(mw is not None and mw.client == "seg" and mw.write is not None)
        d.hdl_wr_en.value = int(mw is not None and mw.client == "hdl" and mw.write is not None)
        if mw is not None and mw.write is not None:
            getattr(d, f"{mw.client}_wr_data").value = mw.write
        # reads: the segmenter never reads an entry it has in flight; the handler reads the
        # entry it wants when it is not busy and the segmenter does not read
        busy_addrs = {o.addr for o in self.flight}
        seg_in_flight = {o.addr for o in self.flight if o.client == "seg"}
        if final_reads is not None:
            cand = [a for a in final_reads if a not in busy_addrs]
            seg_addr = cand[0] if cand else None
        else:
            seg_addr = self.rng.choice(self.addrs) if rng.random() < self.p_seg else None
            if seg_addr in seg_in_flight:
                seg_addr = None
        if self.want is None and final_reads is None and rng.random() < self.p_want:
            self.want = rng.choice(self.addrs)
        hdl_addr = self.want if self.want is not None else rng.randrange(2048)
        busy = hdl_addr in busy_addrs
        seg_rd = seg_addr is not None
        hdl_rd = self.want is not None and not busy and not seg_rd
        d.seg_rd.value = int(seg_rd)
        d.seg_rd_addr.value = seg_addr if seg_rd else rng.randrange(2048)
        d.hdl_rd.value = int(hdl_rd)
        d.hdl_sel.value = int(not seg_rd and (self.want is not None or rng.random() < 0.5))
        d.hdl_rd_addr.value = hdl_addr
        await ReadOnly()
        assert int(d.hdl_busy.value) == int(busy), \
            f"cycle {now}: hdl_busy {int(d.hdl_busy.value)} for entry {hdl_addr}, " \
            f"in flight {sorted(busy_addrs)}"
        # MM: the operation read two cycles ago sees its entry and decides its write-back
        mm = ops.get(now - 2)
        if mm is not None:
            port = "fwd_data" if mm.client == "seg" else "rd_data"
            got = int(getattr(d, port).value)
            exp = self.value(mm)
            if exp is not None:
                assert got == exp, f"cycle {now}: {mm.client} read of entry {mm.addr} " \
                    f"(cycle {mm.rd}): {port} {got:#x}, expected {exp:#x}"
            if mm.client == "hdl" or final_reads is None and rng.random() >= self.p_skip_wr:
                cnt = 1 if exp is None else ((exp & CNT) + 1) & CNT
                mm.write = (rng.getrandbits(META.width - 32) << 32) | cnt
                self.mem[mm.addr] = mm.write          # in read order: later reads see it
                self.writes[mm.addr] += 1
                self.rmw[mm.client] += 1
            if final_reads is not None and mm.client == "seg":
                self.final[mm.addr] = got
        # this cycle's read
        while self.flight and self.flight[0].rd <= now - 3:
            self.flight.popleft()
        if self.want is not None and not hdl_rd:
            self.waited["busy" if busy else "slot"] += 1
        if seg_rd:
            self.flight.append(Op("seg", seg_addr, now))
            if final_reads is not None:
                final_reads.remove(seg_addr)
        elif hdl_rd:
            self.flight.append(Op("hdl", hdl_addr, now))
            self.want = None


@cocotb.test()
async def meta_random(dut):
    n = int(os.environ["P_N"])
    rng = seed_rng("meta_random")
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    for s in ("seg_rd", "seg_wr_en", "hdl_rd", "hdl_sel", "hdl_wr_en"):
        getattr(dut, s).value = 0
    dut.rst.value = 1
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    b = Bench(dut, rng)
    # (segmenter read rate, handler want rate) phases
    phases = [(0.6, 0.3), (1.0, 0.5), (0.9, 1.0), (0.3, 0.8), (0.0, 0.5), (0.7, 0.1)]
    for p_seg, p_want in phases:
        b.p_seg, b.p_want = p_seg, p_want
        for _ in range(n // len(phases)):
            await b.cycle()
    # let the handler's want finish, then read every entry once more
    b.p_want, b.p_seg = 0.0, 0.0
    while b.want is not None or b.flight:
        await b.cycle()
    b.final = {}
    reads = sorted(set(b.addrs))
    while reads or b.flight:
        await b.cycle(final_reads=reads)
    for a, cnt in b.writes.items():
        got = b.final[a]
        assert got & CNT == cnt, f"entry {a}: {got & CNT} write-backs counted, {cnt} made"
    assert b.rmw["seg"] > 1000 and b.rmw["hdl"] > 1000
    assert b.waited["busy"] > 100 and b.waited["slot"] > 100
    dut._log.info("write-backs %s, handler waits %s", dict(b.rmw), dict(b.waited))


def test_qrdma_qos_meta():
    from simrun import full, run
    run("qrdma_qos_meta", "test_qrdma_qos_meta", {},
        extra_env={"P_N": str(CYCLES * (10 if full() else 1))})
