# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_switch against a model of the P nodes around it (one per port).

Each node sends packets to random nodes through its link in: DATA packets of random
length and lane (their beat count from the header, as the switch checks it), one-beat
INLINE/ACK packets, and packets of a reserved type of any length up to MAX_PKT; it keeps a
virtual output queue per switch output and sends from one only with credits of that
output's class (XP_DEPTH beats per crosspoint, the counts from the switch's credit beats),
with random gaps inside and between packets. It takes packets from its link out under
random backpressure (m_tready), holds them in a receive buffer of CREDITS beats that
drains at a random rate, and returns credit beats for it (class 0), some lost, some
corrupted (a parity bit flipped). Packets are lost on the links both ways (5 %), and both
ends send sync beats (their beats sent per class; the nodes' some lost, some corrupted):
a node checks each of the switch's sync counts against the beats it took, exactly the
beats lost since the last one are missing, and counts them as drained.

  switch_random  every packet not lost on a link delivered exactly once, to the port of
                 its destination, every beat exact, in order per (input, output); every
                 sync count of the switch exact; no receive buffer ever
                 holds more than CREDITS beats and no crosspoint drops (no packet sent
                 without room); counters exact (packets in and out per port, credit
                 beats, the corrupted credit and sync beats as malformed, nothing else
                 dropped); at the end every credit is back on both sides of every link,
                 the lost packets' too (the
                 switch's room at each node is CREDITS, each node's room at each
                 crosspoint XP_DEPTH).
  switch_bad     no route (beyond the table, a disabled entry), a reprogrammed route, a
                 truncated DATA packet, a packet longer than MAX_PKT, a crosspoint overrun
                 by a node that ignores credits, a corrupted and a two-beat credit beat,
                 a credit count beyond what was sent: each dropped or refused and counted,
                 nothing of it delivered, the credits of the dropped packets returned;
                 then random traffic as in switch_random.
  switch_incast  every node sends one-beat packets to node 0 at once (each crosspoint holds
                 many): the output takes them in round-robin order, each P packets in a
                 row from P inputs.
  switch_latency one packet through an idle switch: cycles from its first beat in to its
                 first beat out, for 1 and MAX_PKT beats (store-and-forward), exact.
  switch_stamps  benchmark mode (docs/fabric.md "Benchmark mode"): random traffic from
                 every node under random backpressure, across the wrap of the switch's
                 cycle count: stamped INLINE/CONTROL packets with hops 0 .. 3, unstamped
                 ones, DATA packets with `ask` (the same bit) and other types with it set,
                 the rest of their headers random. Every header at its output exact: a
                 stamped one's t_sw slot `hops` holds the count (cycles since the reset was
                 released, mod 2^STAMP_W) of the cycle it was offered at its input and of
                 the cycle it was first offered at its output, hops + 1, when hops < 2;
                 every other bit, and every other packet, unchanged.

Every test checks every packet out exactly as above (no test but switch_stamps sends a
stamped one), and that every beat offered at an output stays valid and unchanged until it
is taken (AXI-Stream).

Replay: QRDMA_SEED=<seed printed at the start of a test>."""
from __future__ import annotations

import collections
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge
from cocotb.utils import get_sim_time

from model.fabric_model import (C, CW, DATA_W, FULL_KEEP, HDR, KEEP_W, MOD, USER_W,
                                credit_beat, credit_counts, get, is_credit, is_sync,
                                make_packet, newer, pkt_id, put)
from seeding import seed_rng


class Tb:
    def __init__(self, dut, rng):
        self.dut, self.rng = dut, rng
        self.P = int(os.environ["P_P"])
        self.ROUTES = int(os.environ["P_ROUTES"])
        self.MAX_PKT = int(os.environ["P_MAX_PKT"])
        self.XP = int(os.environ["P_XP_DEPTH"])
        self.CREDITS = int(os.environ["P_CREDITS"])
        self.route = {n: n for n in range(self.P)}           # node -> port (reset table)
        P = self.P
        self.pid = 0
        # node side, per port p
        self.voq = [[collections.deque() for _ in range(P)] for _ in range(P)]  # [p][o]
        self.vs = [[0] * P for _ in range(P)]     # beats sent toward crosspoint (p, o)
        self.vr = [[0] * P for _ in range(P)]     # the switch's count for it
        self.cur = [None] * P                     # (pkt, next beat) being sent
        self.rr = [0] * P
        self.cb_due = [False] * P                 # a credit beat to send at the next boundary
        self.sy_due = [False] * P                 # a sync beat to send at the next boundary
        # the neighbour at port p: a node (one receive buffer, class 0) or, with CLASSES =
        # P, a switch (a buffer per class; a packet to node n is of class ncls[n] there)
        self.CL = int(os.environ.get("P_CLASSES", "1"))
        self.ncls = {n: (rng.randrange(self.CL) if self.CL > 1 else 0) for n in range(P)}
        self.rxbuf = [[0] * self.CL for _ in range(P)]     # beats in [p][class]
        self.drained = [[0] * self.CL for _ in range(P)]   # beats drained from it (count)
        self.sent_cnt = [[0] * self.CL for _ in range(P)]  # counts last sent in a credit beat
        self.arr = [[0] * self.CL for _ in range(P)]       # beats arrived in [p][class]
        self.lost_out = [[0] * self.CL for _ in range(P)]  # ... lost since the last sync
        self.sy_rcvd = [0] * P
        self.lost_in = [0] * P                    # packets lost on node p's link in
        self.rxpkt = [[] for _ in range(P)]       # beats of the packet arriving at node p
        self.expect = collections.defaultdict(collections.deque)  # (src, port) -> pkts
        self.peak = [0] * P
        self.stats = collections.Counter()
        self.cb_corrupt = [0] * P                 # corrupted credit beats sent by node p
        self.cb_sent = [0] * P
        self.cb_rcvd = [0] * P
        self.pkts_in = [0] * P
        self.pkts_out = [0] * P
        self.gap_p = 0.1
        self.ready_p = 0.8
        self.drain_p = 0.7
        self.loss_p = 0.1
        self.corrupt_p = 0.05
        self.pkt_loss_p = 0.05                    # packets lost on a link, both ways
        self.honest = True                        # nodes send only with credits
        self.credits_on = True
        self.out_order = [[] for _ in range(P)]   # input of each packet out of port o
        self.cycle = 0
        self.t_in = self.t_out = None             # cycles of a packet's first beat in, out
        # benchmark stamps: the switch's cycle count is the time since the reset's release
        self.t_rst = 0
        self.t_dep = None                         # count when the header just taken was first offered
        self.arr_t = {}                           # pid -> count when its header went in
        self.offer = [None] * P                   # count when output p's header beat was first offered
        self.held = [None] * P                    # the beat output p offers and was not taken

    def now(self) -> int:
        """The switch's cycle count in the cycle after the current falling edge."""
        return (round(get_sim_time("ns") - self.t_rst) // CLK_NS) % STAMP_MOD

    # ---------------------------------------------------------------- packets
    def make(self, src: int, dst: int, kind: str = "rand"):
        self.pid += 1
        return make_packet(self.rng, self.pid, src, dst, self.route.get(dst, -1), self.MAX_PKT,
                           kind)

    def post(self, pkt) -> None:
        self.voq[pkt.src][pkt.cls].append(pkt)

    # ---------------------------------------------------------------- one cycle
    def room(self, p: int, o: int) -> int:
        return self.XP - (self.vs[p][o] - self.vr[p][o]) % MOD

    def pick(self, p: int):
        """The next packet node p may start: round robin over its VOQs with credits."""
        P = self.P
        for k in range(P):
            o = (self.rr[p] + k) % P
            q = self.voq[p][o]
            if q and (not self.honest or self.room(p, o) >= len(q[0].beats)):
                self.rr[p] = (o + 1) % P
                return q.popleft()
        return None

    async def step(self, drive_extra=None):
        """One cycle: sample the outputs, drive the inputs (at the falling edge)."""
        dut, rng, P = self.dut, self.rng, self.P
        await FallingEdge(dut.clk)
        self.cycle += 1
        # ---- link out of each port: beats the node takes at the next edge
        mv = int(dut.m_tvalid.value)
        ready = 0
        if mv:
            md = dut.m_tdata.value.to_unsigned()
            mk = dut.m_tkeep.value.to_unsigned()
            mu = dut.m_tuser.value.to_unsigned()
            ml = int(dut.m_tlast.value)
        # (with stretches in which the nodes hardly take anything)
        ready_p = self.ready_p if self.ready_p == 1.0 or self.cycle % 900 > 150 else 0.05
        for p in range(P):
            r = rng.random() < ready_p
            ready |= r << p
            if not (mv >> p) & 1:
                assert self.held[p] is None, f"output {p}: a beat offered was withdrawn"
                continue
            beat = ((md >> (p * DATA_W)) & ((1 << DATA_W) - 1),
                    (mk >> (p * KEEP_W)) & ((1 << KEEP_W) - 1),
                    (mu >> (p * USER_W)) & ((1 << USER_W) - 1), (ml >> p) & 1)
            assert self.held[p] is None or self.held[p] == beat, \
                f"output {p}: a beat offered changed before it was taken"
            if not self.rxpkt[p] and self.offer[p] is None:
                self.offer[p] = self.now()        # a header beat, first offered
            self.held[p] = None if r else beat
            if r:
                self.take(p, beat[:3], beat[3])
        dut.m_tready.value = ready
        # ---- receive buffers drain (in phases of a slow and a fast drain, so that they
        # fill); credit beats become due
        drain_p = self.drain_p if (self.cycle // 700) % 2 or self.drain_p == 1.0 else 0.1
        for p in range(P):
            for k in range(self.CL):
                if self.rxbuf[p][k] and rng.random() < drain_p:
                    n = min(self.rxbuf[p][k], rng.randrange(1, 5))
                    self.rxbuf[p][k] -= n
                    self.drained[p][k] += n
                if (self.drained[p][k] - self.sent_cnt[p][k]) >= 8 or (
                        self.cycle % 200 == p and self.drained[p][k] != 0):
                    self.cb_due[p] = True
            if self.cycle % 250 == 3 * p:
                self.sy_due[p] = True
        # ---- links in
        tv = tl = 0
        td = tk = tu = 0
        for p in range(P):
            # a packet injected by the test goes between the node's own packets, whole
            x = drive_extra(p) if drive_extra is not None and self.cur[p] is None else None
            beat, last = x if x is not None else self.next_beat(p)
            if beat is not None:
                tv |= 1 << p
                tl |= last << p
                td |= beat[0] << (p * DATA_W)
                tk |= beat[1] << (p * KEEP_W)
                tu |= beat[2] << (p * USER_W)
        dut.s_tvalid.value = tv
        dut.s_tlast.value = tl
        dut.s_tdata.value = td
        dut.s_tkeep.value = tk
        dut.s_tuser.value = tu

    def next_beat(self, p: int):
        rng = self.rng
        if self.cur[p] is None:
            if rng.random() < self.gap_p:
                return None, 0
            if self.cb_due[p]:                    # a credit beat, at a packet boundary
                self.cb_due[p] = False
                c = list(self.drained[p])
                self.sent_cnt[p] = c
                if rng.random() < self.loss_p:
                    return None, 0                # lost on the way
                corrupt = 0 if rng.random() < self.corrupt_p else None
                self.cb_sent[p] += 1
                self.cb_corrupt[p] += corrupt is not None
                return (credit_beat(dict(enumerate(c)), corrupt), FULL_KEEP, 0), 1
            if self.sy_due[p]:                    # a sync beat: the beats sent per class
                self.sy_due[p] = False
                if rng.random() < self.loss_p:
                    return None, 0
                corrupt = 0 if rng.random() < self.corrupt_p else None
                self.cb_corrupt[p] += corrupt is not None
                return (credit_beat(dict(enumerate(self.vs[p])), corrupt, sync=True),
                        FULL_KEEP, 0), 1
            pkt = self.pick(p)
            if pkt is None:
                return None, 0
            if pkt.cls >= 0:
                self.vs[p][pkt.cls] += len(pkt.beats)
                if rng.random() < self.pkt_loss_p:   # lost on the link: sent, never arrives
                    self.lost_in[p] += 1
                    return None, 0
                self.expect[(p, pkt.cls)].append(pkt)
            self.pkts_in[p] += 1
            self.cur[p] = [pkt, 0]
            self.t_in = self.cycle
            self.arr_t[pkt.pid] = self.now()      # (every beat offered is taken)
        elif rng.random() < self.gap_p:
            return None, 0                        # a gap inside the packet
        pkt, i = self.cur[p]
        self.cur[p][1] += 1
        last = i == len(pkt.beats) - 1
        if last:
            self.cur[p] = None
        return pkt.beats[i], int(last)

    def take(self, p: int, beat, last: int) -> None:
        """Node p takes a beat from its link out."""
        self.rxpkt[p].append(beat)
        if len(self.rxpkt[p]) == 1:
            t_dep, self.offer[p] = self.offer[p], None
            if not is_credit(beat[0]):
                self.t_out = self.cycle
                self.t_dep = t_dep
        if not last:
            return
        beats, self.rxpkt[p] = self.rxpkt[p], []
        h = beats[0][0]
        if is_credit(h) and is_sync(h):
            # the switch's beats sent per class: those not taken here were lost on the way
            assert len(beats) == 1, "a sync beat of more than one beat"
            counts = credit_counts(h)
            assert sorted(counts) == list(range(self.CL)), f"sync beat classes {sorted(counts)}"
            for k, c in counts.items():
                lost = (c - self.arr[p][k]) % MOD
                assert lost == self.lost_out[p][k], \
                    f"port {p} class {k}: sync count {c}, {self.arr[p][k]} beats arrived, " \
                    f"{self.lost_out[p][k]} lost"
                self.arr[p][k] = c
                self.drained[p][k] += lost
                self.lost_out[p][k] = 0
            self.sy_rcvd[p] += 1
            return
        if is_credit(h):
            assert len(beats) == 1, "a credit beat of more than one beat"
            counts = credit_counts(h)
            assert sorted(counts) == list(range(self.P)), f"credit beat classes {sorted(counts)}"
            self.cb_rcvd[p] += 1
            for o, c in counts.items():
                assert newer(c, self.vr[p][o], self.vs[p][o]), \
                    f"port {p} class {o}: count {c} beyond the beats sent"
                self.vr[p][o] = c
            return
        src = get(h, HDR["src_node"])
        q = self.expect[(src, p)]
        assert q, f"port {p}: a packet from {src} not expected (id {pkt_id(h)})"
        exp = q.popleft()
        want = list(exp.beats)
        want[0] = (self.stamped_header(exp, want[0][0], p), *want[0][1:])
        assert beats == want, \
            f"port {p}: packet {exp.pid} from {src} differs (or out of order; got id " \
            f"{pkt_id(h)}; header fields that differ: {diff_fields(h, want[0][0])})"
        self.pkts_out[p] += 1
        self.out_order[p].append(src)
        k = self.ncls.get(get(h, HDR["dst_node"]), 0)
        if self.rng.random() < self.pkt_loss_p:      # lost on the link
            self.lost_out[p][k] += len(beats)
            return
        self.arr[p][k] += len(beats)
        self.rxbuf[p][k] += len(beats)
        self.peak[p] = max(self.peak[p], self.rxbuf[p][k])
        if self.credits_on:
            assert self.rxbuf[p][k] <= self.CREDITS, \
                f"port {p}'s neighbour, class {k}: buffer overflows: {self.rxbuf[p][k]} > " \
                f"{self.CREDITS}"

    def stamped_header(self, pkt, h: int, p: int) -> int:
        """Packet pkt's header h as it leaves at output p (its header just taken there):
        with the switch's stamps when it is a stamped one and hops < 2 (docs/fabric.md
        "Benchmark mode")."""
        t_arr = self.arr_t.pop(pkt.pid, None)
        if not (get(h, HDR["stamped"]) and get(h, HDR["ptype"]) in STAMPED_TYPES):
            return h
        self.stats["stamped"] += 1
        k = get(h, HDR["hops"])
        if k >= 2:
            return h
        assert t_arr is not None and self.t_dep is not None
        lsb = HDR["t_sw"].lsb + 32 * k
        h &= ~((STAMP_MOD - 1) << lsb | (STAMP_MOD - 1) << (lsb + 16) | 3 << HDR["hops"].lsb)
        h |= t_arr << lsb | self.t_dep << (lsb + 16) | (k + 1) << HDR["hops"].lsb
        self.stats["stamps"] += 1
        self.stats["waited"] += self.t_dep != self.now()       # backpressure held it
        self.stats["wrapped"] += self.t_dep < t_arr
        return h

    def idle(self) -> bool:
        return (all(c is None for c in self.cur) and not any(q for r in self.voq for q in r)
                and not any(self.expect.values()) and not any(self.rxpkt))

    async def reset(self) -> None:
        dut = self.dut
        dut.rst.value = 1
        dut.cfg_credits.value = self.CREDITS
        dut.cfg_credit_en.value = (1 << self.P) - 1
        dut.rt_we.value = 0
        dut.rt_node.value = 0
        dut.rt_port.value = 0
        dut.rt_class.value = 0
        dut.rt_en.value = 0
        for s in ("s_tvalid", "s_tlast", "s_tdata", "s_tkeep", "s_tuser", "m_tready"):
            getattr(dut, s).value = 0
        for _ in range(4):
            await FallingEdge(dut.clk)
        dut.rst.value = 0
        self.t_rst = get_sim_time("ns")
        for n in range(self.P):       # the classes at the next switch (CLASSES > 1)
            if self.ncls[n]:
                await self.set_route(n, n, 1)

    async def set_route(self, node: int, port: int, en: int) -> None:
        """Write route entry `node`: port, enable, and the node's class ncls there."""
        dut = self.dut
        await FallingEdge(dut.clk)
        dut.rt_we.value, dut.rt_node.value, dut.rt_port.value, dut.rt_en.value = 1, node, port, en
        dut.rt_class.value = self.ncls.get(node, 0)
        await FallingEdge(dut.clk)
        dut.rt_we.value = 0

    async def run_random(self, n_per_node: int, limit: int, make=None) -> None:
        P, rng = self.P, self.rng
        make = make or self.make
        for p in range(P):
            for _ in range(n_per_node):
                self.post(make(p, rng.choice([n for n in self.route if self.route[n] >= 0])))
        while not self.idle():
            await self.step()
            assert self.cycle < limit, f"not delivered by cycle {limit}: deadlock?"

    async def settle(self, cycles: int) -> None:
        """Drain the receive buffers, send the last credit beats, let the switch refresh."""
        loss, corrupt, ploss = self.loss_p, self.corrupt_p, self.pkt_loss_p
        self.loss_p = self.corrupt_p = self.pkt_loss_p = 0.0
        self.drain_p = 1.0
        for _ in range(cycles):
            await self.step()
        for p in range(self.P):
            assert not any(self.rxbuf[p])
            self.cb_due[p] = self.sy_due[p] = True
        for _ in range(cycles):
            await self.step()
        self.loss_p, self.corrupt_p, self.pkt_loss_p = loss, corrupt, ploss

    def counter(self, name: str, p: int) -> int:
        v = getattr(self.dut, name).value.to_unsigned()
        return (v >> (32 * p)) & 0xFFFFFFFF

    def check_credits_back(self) -> None:
        P = self.P
        cr = self.dut.credits.value.to_unsigned()
        for p in range(P):
            for k in range(self.CL):
                c = (cr >> (CW * (p * self.CL + k))) & (MOD - 1)
                assert c == self.CREDITS, \
                    f"output {p} class {k}: room {c} at the end, not {self.CREDITS}"
            for o in range(P):
                assert self.room(p, o) == self.XP, \
                    f"node {p}: room {self.room(p, o)} at crosspoint ({p},{o}), not {self.XP}"


def diff_fields(got: int, want: int) -> list[str]:
    """The header fields in which header beat `got` differs from `want`."""
    return [n for n, f in HDR.items() if get(got, f) != get(want, f)]


async def start(dut, name):
    rng = seed_rng(name)
    cocotb.start_soon(Clock(dut.clk, CLK_NS, "ns").start())
    tb = Tb(dut, rng)
    await tb.reset()
    return tb


@cocotb.test()
async def switch_random(dut):
    tb = await start(dut, "switch_random")
    P = tb.P
    n = int(os.environ["P_N"])
    await tb.run_random(n, 400 * n * P)
    refresh = int(os.environ["P_REFRESH"])
    await tb.settle(refresh + 200)
    tb.check_credits_back()
    # (a refresh credit beat may be on its way out: the counter lies between the beats
    # taken before it was read and those taken later)
    cb = [tb.counter("cnt_cb", p) for p in range(P)]
    rcvd = list(tb.cb_rcvd)
    for _ in range(1000):
        if all(tb.cb_rcvd[p] >= cb[p] for p in range(P)):
            break
        await tb.step()
    for p in range(P):
        assert tb.counter("cnt_in", p) == tb.pkts_in[p]
        assert tb.counter("cnt_out", p) == tb.pkts_out[p]
        assert rcvd[p] <= cb[p] <= tb.cb_rcvd[p], (rcvd[p], cb[p], tb.cb_rcvd[p])
        assert tb.counter("cnt_bad", p) == tb.cb_corrupt[p]
        for c in ("cnt_noroute", "cnt_ovf", "cnt_refused"):
            assert tb.counter(c, p) == 0, f"{c}[{p}] = {tb.counter(c, p)}"
    # every node's buffer filled close to CREDITS (the credits, not the links, held it back)
    assert max(tb.peak) > tb.CREDITS - tb.MAX_PKT, f"buffers never filled: {tb.peak}"
    # packets were lost both ways and sync beats repaired the credits of each
    assert sum(tb.lost_in) >= P and all(tb.sy_rcvd), (tb.lost_in, tb.sy_rcvd)
    dut._log.info("%d cycles, packets in %s, credit beats out %s, corrupted in %s, peak %s",
                  tb.cycle, tb.pkts_in, tb.cb_rcvd, tb.cb_corrupt, tb.peak)


@cocotb.test()
async def switch_bad(dut):
    tb = await start(dut, "switch_bad")
    P, MP = tb.P, tb.MAX_PKT
    tb.loss_p = tb.corrupt_p = tb.pkt_loss_p = 0.0
    tb.gap_p = 0.0
    tb.ready_p = tb.drain_p = 1.0
    extra = collections.deque()            # (port, beat, last) injected by hand

    def inject(p):
        if extra and extra[0][0] == p:
            _, beat, last = extra.popleft()
            return beat, last
        return None

    async def send(p, beats):
        for i, b in enumerate(beats):
            extra.append((p, b, int(i == len(beats) - 1)))
        while extra:
            await tb.step(inject)

    async def quiet(n=60):
        for _ in range(n):
            await tb.step(inject)

    def hdr(src, dst, ptype, length=0, lane=0):
        h = put(0, HDR["ptype"], ptype)
        h = put(h, HDR["dst_node"], dst)
        h = put(h, HDR["src_node"], src)
        h = put(h, HDR["len"], length)
        return put(h, HDR["dst_addr"], lane)

    keep = FULL_KEEP
    # -- no route: beyond the table, and a disabled entry (nodes >= P are off after reset)
    await send(0, [(hdr(0, tb.ROUTES + 3, C["NET_ACK"]), keep, 0)])
    await send(1, [(hdr(1, P, C["NET_INLINE"]), keep, 0)])
    await quiet()
    assert tb.counter("cnt_noroute", 0) == 1 and tb.counter("cnt_noroute", 1) == 1
    # -- a route programmed: node ROUTES-1 -> port 1; node 0 disabled
    rt = tb.set_route
    await rt(tb.ROUTES - 1, 1, 1)
    await rt(0, 0, 0)
    tb.route[tb.ROUTES - 1] = 1
    tb.route[0] = -1
    pkt = tb.make(2, tb.ROUTES - 1, "data")
    tb.post(pkt)
    await quiet()
    assert tb.pkts_out[1] == 1 and not tb.expect[(2, 1)], "the reprogrammed route"
    await send(3, [(hdr(3, 0, C["NET_ACK"]), keep, 0)])
    await quiet()
    assert tb.counter("cnt_noroute", 3) == 1
    await rt(0, 0, 1)
    tb.route[0] = 0
    # -- a truncated DATA packet: 200 bytes at lane 0 need 5 beats; 3 sent. Its beats are
    # charged to class 1 as its sender sent them and come back as credits
    beats = [(hdr(0, 1, C["NET_DATA"], 200, 0), keep, 0)] + [(1, keep, 0)] * 2
    tb.vs[0][1] += 3
    await send(0, beats)
    await quiet()
    assert tb.counter("cnt_bad", 0) == 1
    # -- longer than MAX_PKT (a type of any length): dropped, MAX_PKT beats credited
    beats = [(hdr(2, 3, C["NET_READ_REQ"]), keep, 0)] + [(5, keep, 0)] * (MP + 4)
    tb.vs[2][3] += MP
    await send(2, beats)
    await quiet()
    assert tb.counter("cnt_bad", 2) == 1
    # -- a node that ignores credits overruns crosspoint (1, 2) while output 2 is stalled:
    # the packets that fit are delivered in order, the rest dropped whole (credited back)
    tb.ready_p = 0.0
    k = tb.XP // MP + 3
    big = [tb.make(1, 2, "any") for _ in range(k)]
    for b in big:
        b.beats = b.beats[:1] + [(7, keep, 0)] * (MP - 2) + [(7, keep, 9)]
        tb.vs[1][2] += MP
        tb.expect[(1, 2)].append(b)
        await send(1, b.beats)
    await quiet()
    ovf = tb.counter("cnt_ovf", 1)
    assert 1 <= ovf <= k - tb.XP // MP, f"{ovf} of {k} dropped"
    tb.ready_p = 1.0
    await quiet(200)
    assert len(tb.expect[(1, 2)]) == ovf, "the packets that fit are delivered, in order"
    tb.expect[(1, 2)].clear()
    # -- credit beats: a corrupted one, a two-beat one: dropped as malformed
    cw = credit_beat({0: 0}, corrupt=0)
    await send(3, [(cw, keep, 0)])
    await send(3, [(credit_beat({0: 0}), keep, 0), (0, keep, 0)])
    await quiet()
    assert tb.counter("cnt_bad", 3) == 2
    # -- a count beyond the beats the switch sent to node 2: refused
    await send(2, [(credit_beat({0: tb.drained[2][0] + 5000}), keep, 0)])
    await quiet()
    assert tb.counter("cnt_refused", 2) == 1
    for p in range(P):
        assert (tb.counter("cnt_ovf", p) != 0) == (p == 1)
    # -- then ordinary traffic, and every credit back
    tb.gap_p, tb.ready_p, tb.drain_p = 0.1, 0.8, 0.7
    tb.loss_p, tb.corrupt_p, tb.pkt_loss_p = 0.1, 0.0, 0.05
    await tb.run_random(20, tb.cycle + 4000 * P)
    await tb.settle(int(os.environ["P_REFRESH"]) + 200)
    tb.check_credits_back()


@cocotb.test()
async def switch_incast(dut):
    tb = await start(dut, "switch_incast")
    P, MP = tb.P, tb.MAX_PKT
    tb.gap_p = tb.loss_p = tb.corrupt_p = tb.pkt_loss_p = 0.0
    tb.ready_p = tb.drain_p = 1.0
    k = 24
    for p in range(P):
        for _ in range(k):
            tb.post(tb.make(p, 0, "one"))
    while not tb.idle():
        await tb.step()
        assert tb.cycle < 100 * k * P * MP
    order = tb.out_order[0]
    assert len(order) == k * P
    # while every input has packets waiting, each P packets in a row come from P inputs
    for i in range(P, len(order) - 3 * P):
        assert len(set(order[i:i + P])) == P, f"output 0 not round robin at {i}: {order[i:i + P]}"


@cocotb.test()
async def switch_latency(dut):
    tb = await start(dut, "switch_latency")
    tb.gap_p = tb.loss_p = tb.pkt_loss_p = 0.0
    tb.ready_p = tb.drain_p = 1.0
    hop1 = int(os.environ["P_HOP1"])
    # (within REFRESH cycles of the reset: no credit beat comes between)
    for n in (1, tb.MAX_PKT):
        for _ in range(20):
            await tb.step()
        pkt = tb.make(0, 1, "any")
        pkt.beats = pkt.beats[:1] + [(3, FULL_KEEP, 0)] * (n - 1)
        tb.post(pkt)
        tb.t_in = tb.t_out = None
        while tb.t_out is None:
            await tb.step()
        # the first beat is driven in cycle t_in and taken from the output in cycle t_out;
        # store-and-forward: a packet leaves once its last beat is in
        dut._log.info("one hop, %d beat(s): %d cycles", n, tb.t_out - tb.t_in)
        assert tb.t_out - tb.t_in == hop1 + n - 1, \
            f"{n} beats: {tb.t_out - tb.t_in} cycles, not {hop1 + n - 1}"


@cocotb.test()
async def switch_stamps(dut):
    tb = await start(dut, "switch_stamps")
    rng = tb.rng
    tb.ready_p = 0.6
    # header bits the switch reads (or the test, src_node), kept; the rest random
    kept = 1 << HDR["stamped"].lsb
    for f in ("ptype", "dst_node", "src_node", "len", "dst_addr"):
        kept |= ((1 << HDR[f].width) - 1) << HDR[f].lsb
    free = ((1 << DATA_W) - 1) & ~kept

    def make(src, dst):
        kind = rng.choices(["stamped", "plain", "ask", "other", "rand"], [6, 2, 2, 1, 1])[0]
        if kind == "rand":                           # as the other tests send them
            return tb.make(src, dst)
        pkt = tb.make(src, dst, {"ask": "data", "other": rng.choice(["one", "any"])}
                      .get(kind, "one"))
        h = pkt.beats[0][0]
        h = (h & kept) | (rng.getrandbits(DATA_W) & free)
        if kind in ("stamped", "plain"):
            h = (h & ~0xF) | rng.choice(sorted(STAMPED_TYPES))
        elif kind == "other" and len(pkt.beats) == 1:
            h = (h & ~0xF) | rng.choice([C["NET_ACK"], C["NET_NACK"], C["NET_MISS"]])
        h |= (kind != "plain") << HDR["stamped"].lsb
        if kind == "stamped":
            h &= ~(3 << HDR["hops"].lsb)
            h |= rng.choices([0, 1, 2, 3], [4, 4, 2, 1])[0] << HDR["hops"].lsb
        pkt.beats[0] = (h, *pkt.beats[0][1:])
        return pkt

    # idle (nothing sent or taken) until shortly before the cycle count wraps
    await ClockCycles(dut.clk, STAMP_MOD - 600 - tb.now())
    n = int(os.environ["P_N"]) // 2
    await tb.run_random(n, tb.cycle + 400 * n * tb.P, make)
    st = tb.stats
    dut._log.info("%d cycles; stamped packets %d, stamps written %d (%d held at their "
                  "output, %d across the wrap)", tb.cycle, st["stamped"], st["stamps"],
                  st["waited"], st["wrapped"])
    assert st["stamps"] > 5 * tb.P and st["waited"] and st["wrapped"], dict(st)
    assert st["stamped"] > st["stamps"], "no stamped packet with hops >= 2"


CLK_NS = 2                                        # the clock's period
STAMP_MOD = 1 << C["STAMP_W"]                     # the switch's cycle count wraps
STAMPED_TYPES = frozenset((C["NET_INLINE"], C["NET_CONTROL"]))


# (P, XP_DEPTH, CREDITS, packets per node in switch_random); 16 ports with make test-full
def configs():
    from simrun import full

    c = [pytest.param({"P": 4, "XP_DEPTH": 32, "ROUTES": 16}, 48, 300, id="p4"),
         pytest.param({"P": 8, "XP_DEPTH": 64, "ROUTES": 64}, 80, 120, id="p8"),
         # a switch behind every port (two hops): a class per output there
         pytest.param({"P": 4, "XP_DEPTH": 32, "ROUTES": 16, "CLASSES": 4}, 48, 300,
                      id="p4_classes")]
    if full():
        c.append(pytest.param({"P": 16, "XP_DEPTH": 32, "ROUTES": 32}, 40, 40, id="p16"))
    return c


@pytest.mark.parametrize("params,credits,n", configs())
def test_qrdma_switch(params, credits, n):
    from simrun import full, run

    p = dict(params, MAX_PKT=17, REFRESH=256, UPD_MIN=17, SYNC=300)
    env = {f"P_{k}": str(v) for k, v in p.items()}
    env.update(P_CREDITS=str(credits), P_N=str(n * (5 if full() else 1)), P_HOP1=str(HOP1))
    run("qrdma_switch", "test_qrdma_switch", p, extra_env=env)


HOP1 = 8   # cycles through an idle switch for a one-beat packet (docs/fabric.md "Switch")
