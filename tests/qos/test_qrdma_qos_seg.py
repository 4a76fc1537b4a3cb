# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_qos_seg (the transfer segmenter with its scheduling queues, [QoS-RDMA] §3.7,
§3.9-§3.13) against the model's Queues and SegmenterModel (tests/model/qos_model.py),
cycle by cycle.

The rest of the core is the model: the transfer table (tt_rd_*, the row in M), the
metadata (meta_*: the entry in M as the model holds it; the model's handler never changes
a transfer the segmenter has between D and W, as the metadata pipeline's forwarding and
the handler's wait for an entry in flight make it), the ID pools (IdPools offering their
oldest free ID on s_tid_* / s_fid1_* / s_fid4_*, sometimes withholding it; *_more only
when a second one is there and then kept), and the message handler (HandlerModel: it
takes the ACKs a responder sends for every block and inline packet that left m_blk_* /
m_pkt_* after a random delay and in random order, some NACKs, duplicates and ACKs for
random TIDs, updates the metadata in one step, returns TID-only TIDs and hands its
actions to s_act_*); hdl_want / hdl_refused are driven at random.

  seg_random   random transfers of every class (inline short and long, TID-only crossing
               block boundaries, 1xFID, 4xFID, notify, priorities, odd and even channels)
               offered on new_* with random idle; random backpressure on m_blk_* / m_pkt_*,
               random idle on s_act_*, phases that exhaust the pools. Predicted every cycle
               from the model: new_ready (the two-entry new-transfer FIFO), the pick (strict
               order over the queues as their flags show them, a queue requested now only
               with two entries, an ID class only with a second ID when one is taken now,
               output FIFO room, hdl_refused) and its request and ID take a cycle later, the
               transfer in D (dequeued two cycles after its request, or cut through: the
               new transfer when no dequeued one is there, hdl_want low, no queue of its
               kind holds one by the last cycle's flags nor gets one decided in the last
               three cycles, its ID there and not taken by the request) and its
               reads; M and W by SegmenterModel: the block / packet records (compared in full
               at the outputs, in order), the pending entry, the metadata written back, the
               re-queue (enqueue port in W, in the queues two cycles later) and the completion
               (completion port in W, beside the handler's), the unused TID returned, the
               events. The engine's Scoreboard sees every output and ACK. At the end every
               transfer has completed once, every ID is back, the queues are empty and
               nothing is pending or missing.

Replay: QRDMA_SEED=<seed printed at the start>. Size: N_XFERS (x 10 with make test-full).
"""
from __future__ import annotations

import collections
import dataclasses
import heapq
import os
import random

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from seeding import seed_rng
from model.qos_model import (ACT, META, PEND, Q_TID, SEQ_MOD, CoreModel, Descriptor,
                             HandlerModel, Params, Scoreboard, queue_of, queue_takes,
                             xfer_index)
from tools.formats import BLOCK_DESC, C, PKT_DESC

N_XFERS = 3000
KINDS = ("tid", "fid1", "fid4")


def random_desc(rng: random.Random, p: Params, long_ok: bool) -> Descriptor:
    bs = p.block_size
    k = rng.random()
    if k < 0.25:
        n = rng.randint(1, 32 if long_ok else 8)
        return Descriptor.inline_payload(rng.randbytes(n), notify=rng.getrandbits(1),
                                         dst_addr=rng.getrandbits(64), tag=rng.getrandbits(32),
                                         dst_node=rng.getrandbits(16), prio=rng.getrandbits(4),
                                         long_desc=int(n > 8 or (long_ok and rng.random() < 0.3)))
    size = rng.choice([rng.randint(1, p.cm_min_bytes - 1), rng.randint(1, 2 * bs),
                       rng.randint(p.cm_min_bytes, 10 * bs),
                       rng.randint(p.mp_min_bytes, p.mp_min_bytes + 20 * bs)])
    return Descriptor(src_addr=rng.getrandbits(64), dst_addr=rng.getrandbits(64), size=size,
                      multipath=rng.getrandbits(1), notify=rng.getrandbits(1),
                      registered=rng.getrandbits(1),
                      prio=rng.getrandbits(4), tag=rng.getrandbits(32),
                      dst_node=rng.getrandbits(16),
                      long_desc=int(long_ok and rng.random() < 0.2),
                      rkey=rng.getrandbits(32))


class Bench:
    def __init__(self, dut, rng, p: Params, depth: int, n_xfers: int):
        self.dut = dut
        self.rng = rng
        self.p = p
        self.depth = depth
        self.n_xfers = n_xfers
        self.core = CoreModel(p)
        self.core.return_unused = False         # the RTL returns them (tid_ret_*)
        self.q = self.core.queues
        self.pools = self.core.pools
        self.hdl = HandlerModel(p)
        self.sb = Scoreboard(p)
        self.now = 0
        self.en = False
        self.rows: dict[int, int] = {}          # transfer table: row -> 512 bits
        pairs = [(pg, ch) for pg in range(16) for ch in range(0, 64, 2)]
        rng.shuffle(pairs)
        self.free_ch = [(pg, ch + i) for pg, ch in pairs[:48] for i in (0, 1)]
        rng.shuffle(self.free_ch)
        self.live = {}                          # xfer -> (Scoreboard transfer, [channels])
        self.posted = 0
        self.n_done = 0
        self.offer = None                       # (x, d) on new_*
        self.nr: collections.deque = collections.deque()   # the new-transfer FIFO: (x, q)
        self.req = None                         # the pick of the last cycle: request now
        self.qpipe = collections.deque([None, None])   # requested: D in 2 cycles
        self.stages = collections.deque([None, None, None])  # D, R, M of the last cycle
        self.enqs = collections.deque([None, None])  # (q, x, fresh) decided 2, 1 cycles ago
        self.recent = collections.deque([None, None, None])   # queues decided 3, 2, 1 ago
        self.kind_empty = dict.fromkeys(KINDS, False)   # as the flags were in the last cycle
        self.room = False                       # the registered room flag
        self.blk_exp: collections.deque = collections.deque()
        self.pkt_exp: collections.deque = collections.deque()
        self.blk_cnt = self.pkt_cnt = 0
        self.acts: collections.deque = collections.deque()
        self.act_cur = None
        self.heap: list = []
        self.order = 0
        self.due: collections.deque = collections.deque()
        self.valid = dict.fromkeys(KINDS, False)
        self.more = dict.fromkeys(KINDS, False)
        self.promised = dict.fromkeys(KINDS, False)   # valid must be high now (a pool's
        # offer stays until taken; a take with more leaves the next one offered)
        self.ids = dict.fromkeys(KINDS, 0)
        self.time_off = None
        self.cnt = collections.Counter()
        # knobs
        self.new_idle, self.blk_stall, self.pkt_stall, self.act_idle = 0.3, 0.2, 0.2, 0.2
        self.refuse, self.withhold, self.delay, self.nack_rate = 0.1, 0.05, (1, 40), 0.02
        self.hdl_idle, self.dup_rate, self.junk_rate = 0.1, 0.02, 0.005

    # ---------------------------------------------------------- transfers
    def post(self):
        rng = self.rng
        page, ch = self.free_ch.pop()
        pair = (page, ch + 1)
        long_ok = ch % 2 == 0 and pair in self.free_ch
        d = random_desc(rng, self.p, long_ok)
        x = xfer_index(page, ch)
        chans = [(page, ch)]
        lines = d.lines()
        if len(lines) == 2:
            self.free_ch.remove(pair)
            chans.append(pair)
        row = self.rows.get(x >> 1, rng.getrandbits(512))
        for i, ln in enumerate(lines):
            half = (x + i) & 1
            v = int.from_bytes(ln, "little")
            row = (row & ~(((1 << 256) - 1) << (256 * half))) | (v << (256 * half))
        self.rows[x >> 1] = row
        self.live[x] = (self.sb.post(page, ch, d), chans)
        self.core.desc[x] = d
        self.posted += 1
        return x, d

    def completions(self):
        while self.n_done < len(self.core.done):
            x, err, why = self.core.done[self.n_done]
            self.n_done += 1
            t, chans = self.live.pop(x)
            assert t.complete, f"cycle {self.now}: xfer {x} completed early: {t.remaining()}"
            assert err == int(t.nacked), f"cycle {self.now}: xfer {x} completed err {err}"
            if err:
                assert why == t.nack_reason, f"cycle {self.now}: xfer {x} reason {why}"
            self.sb.retire(t)
            for c in chans:
                self.free_ch.insert(0, c)

    # ---------------------------------------------------------- the model's handler
    def in_flight(self):
        """Transfers the segmenter has between D and W (the handler waits for them)."""
        return {st["x"] for st in self.stages if st is not None}

    def handle_ack(self):
        core = self.core
        tid, seq, nack, why = self.due[0]
        e = core.pending.get(tid)
        if e is not None and self.hdl.matches(e, seq) and e["xfer"] in self.in_flight():
            self.cnt["hdl_wait"] += 1
            return
        self.due.popleft()
        t = self.sb.on_ack(tid, seq, nack, why)
        assert (t is not None) == self.hdl.matches(e, seq), "test bug: models disagree"
        if t is None:
            self.cnt["stale"] += 1
            return
        del core.pending[tid]
        x = e["xfer"]
        r = self.hdl.retire(tid, e, None if e["single"] else dict(core.meta[x]), nack, why)
        if r.tid_free is not None:
            self.pools.give("tid", r.tid_free)
        if r.meta is not None:
            core.meta[x] = r.meta
        if r.act is not None:
            self.acts.append(r.act)
        self.cnt["nack" if nack else "ack"] += 1

    def answer(self, tid, seq):
        """A block or inline packet left: its ACK comes after a random delay."""
        rng = self.rng
        lo, hi = self.delay
        nack = rng.random() < self.nack_rate
        self.order += 1
        heapq.heappush(self.heap, (self.now + rng.randint(lo, hi), self.order, tid, seq,
                                   nack, rng.randrange(1, 16) if nack else 0))
        if rng.random() < self.dup_rate:
            self.order += 1
            heapq.heappush(self.heap, (self.now + rng.randint(hi, 2 * hi), self.order, tid,
                                       seq, False, 0))

    # ---------------------------------------------------------- one cycle
    async def cycle(self):
        d, rng, core = self.dut, self.rng, self.core
        await RisingEdge(d.clk)
        self.now += 1
        # ACKs due, the model's handler (one per cycle)
        while self.heap and self.heap[0][0] <= self.now:
            batch = []
            while self.heap and self.heap[0][0] <= self.now:
                batch.append(heapq.heappop(self.heap)[2:])
            rng.shuffle(batch)
            self.due.extend(batch)
        if rng.random() < self.junk_rate:
            self.due.append((rng.randrange(1024), rng.randrange(SEQ_MOD), False, 0))
        if self.due and rng.random() >= self.hdl_idle:
            self.handle_ack()
        # M of this cycle: the row and metadata of the transfer read in D two cycles ago
        m = self.stages[1]
        if m is not None:
            x = m["x"]
            meta = dict(core.meta[x])
            d.meta_rd_data.value = META.pack(**meta)
            d.meta_fwd_data.value = META.pack(**meta)
            d.tt_rd_data.value = self.rows[x >> 1]
            iss = core.seg.issue(core.desc[x], x, m["q"], m["fresh"], meta, m["tid"], m["fid"],
                                 self.now)
            m["iss"] = iss
            if iss.blk is not None:
                self.sb.on_block(BLOCK_DESC.unpack(BLOCK_DESC.pack(**iss.blk)))
            if iss.pkt is not None:
                self.sb.on_packet(PKT_DESC.unpack(PKT_DESC.pack(**iss.pkt)))
            self.cnt[iss.kind] += 1
        # inputs
        if self.en and self.offer is None and self.posted < self.n_xfers and self.free_ch \
                and rng.random() >= self.new_idle:
            self.offer = self.post()
        d.new_valid.value = int(self.offer is not None)
        if self.offer is not None:
            x, ds = self.offer
            d.new_xfer.value = x
            d.new_size.value = ds.size
            d.new_dst_lo.value = ds.dst_addr & 0xFFFF
            d.new_inline.value = ds.is_inline
            d.new_multipath.value = ds.multipath
            d.new_prio.value = ds.prio
        for k in KINDS:
            n = len(self.pools.free[k])
            self.valid[k] = n >= 1 and (self.promised[k] or rng.random() >= self.withhold)
            assert self.valid[k] or not self.promised[k]
            self.more[k] = self.valid[k] and n >= 2 and rng.random() >= self.withhold
            self.ids[k] = self.pools.head(k) if self.valid[k] else rng.randrange(
                1024 if k == "tid" else 256)
            getattr(d, f"s_{k}_valid").value = int(self.valid[k])
            getattr(d, f"s_{k}_more").value = int(self.more[k])
            getattr(d, f"s_{k}_id").value = self.ids[k]
        if self.act_cur is None and self.acts and rng.random() >= self.act_idle:
            self.act_cur = self.acts.popleft()
        d.s_act_valid.value = int(self.act_cur is not None)
        if self.act_cur is not None:
            d.s_act_data.value = ACT.pack(**self.act_cur)
        self.want = rng.random() < self.refuse
        self.refused = rng.random() < self.refuse
        d.hdl_want.value = int(self.want)
        d.hdl_refused.value = int(self.refused)
        d.m_blk_ready.value = int(rng.random() >= self.blk_stall)
        d.m_pkt_ready.value = int(rng.random() >= self.pkt_stall)
        d.en.value = int(self.en)
        await ReadOnly()
        self.check()

    def take(self, k, what):
        got = self.pools.take(k)
        assert got == self.ids[k], f"cycle {self.now}: {what} took {k} {got}, offered " \
                                   f"{self.ids[k]}"
        return got

    def check(self):
        d, core, q = self.dut, self.core, self.q
        now = self.now
        D = self.depth
        # ---- W: the issue of the transfer M decided in the last cycle
        w = self.stages[2]
        iss = w["iss"] if w is not None else None
        blk_push = iss is not None and iss.blk is not None
        pkt_push = iss is not None and iss.pkt is not None
        assert int(d.ev_block.value) == int(blk_push), f"cycle {now}: ev_block"
        assert int(d.ev_inline.value) == int(iss is not None and iss.kind == "inline")
        assert int(d.ev_control.value) == int(pkt_push and iss.kind != "inline"
                                              and not iss.pkt.get("announce"))
        pend = iss.pend if iss is not None else None
        assert int(d.pend_wr_en.value) == int(pend is not None), f"cycle {now}: pend_wr_en"
        if pend is not None:
            tid, e = pend
            got = PEND.unpack(int(d.pend_wr_data.value))
            if self.time_off is None:
                self.time_off = got["time_"] - e["time_"]
            e = dict(e, time_=(e["time_"] + self.time_off) % (1 << 32))
            assert int(d.pend_wr_tid.value) == tid and got == e, \
                f"cycle {now}: pending entry {int(d.pend_wr_tid.value)} {got}, expected {tid} {e}"
            assert tid not in core.pending, f"cycle {now}: TID {tid} written while pending"
            core.pending[tid] = got
        mw = iss.meta if iss is not None else None
        assert int(d.meta_wr_en.value) == int(mw is not None), f"cycle {now}: meta_wr_en"
        if mw is not None:
            got = META.unpack(int(d.meta_wr_data.value))
            bad = {k: (got[k], mw[k]) for k in mw if got[k] != mw[k]}
            assert not bad, f"cycle {now}: metadata of xfer {w['x']} (got, expected): {bad}"
            core.meta[w["x"]] = got
        if blk_push:
            self.blk_exp.append(BLOCK_DESC.pack(**iss.blk))
        if pkt_push:
            self.pkt_exp.append(PKT_DESC.pack(**iss.pkt))
        ret = int(d.tid_ret_valid.value)
        assert ret == int(iss is not None and iss.tid_ret is not None), \
            f"cycle {now}: tid_ret_valid {ret}"
        if ret:
            assert int(d.tid_ret_id.value) == iss.tid_ret
            self.pools.give("tid", iss.tid_ret)
            self.cnt["tid_ret"] += 1
        w_enq = iss is not None and iss.enq is not None
        w_cmpl = iss is not None and iss.cmpl is not None
        # ---- handler action, completion port
        act = self.act_cur
        taken = False
        if act is not None:
            want = (not act["enq"] or not w_enq) and (not act["cmpl"] or not w_cmpl)
            assert int(d.s_act_ready.value) == int(want), f"cycle {now}: s_act_ready"
            taken = want
        exp_c = None
        if w_cmpl:
            exp_c = dict(iss.cmpl, xfer=w["x"])
        elif taken and act["cmpl"]:
            exp_c = {k: act[k] for k in ("err", "reason", "cls", "fid", "xfer")}
        assert int(d.cmpl_valid.value) == int(exp_c is not None), f"cycle {now}: cmpl_valid"
        if exp_c is not None:
            got = {k: int(getattr(d, f"cmpl_{k}").value) for k in exp_c}
            assert got == exp_c, f"cycle {now}: completion {got}, expected {exp_c}"
            core.complete(exp_c["xfer"], exp_c)
        act_enq = taken and act["enq"]
        if taken:
            self.act_cur = None

        # ---- the queues as their flags show them in this cycle (requests up to the last
        # cycle, enqueues that took effect up to the last cycle)
        def n_of(qn):
            return len(q.q[qn])

        req = self.req                          # requested in this cycle (picked last)
        kind_now = {"tid": n_of(Q_TID) == 0,
                    "fid1": all(n_of(qn) == 0 for qn in range(18, 34)),
                    "fid4": all(n_of(qn) == 0 for qn in range(50, 66))}
        d_deq = self.qpipe[0]                   # requested two cycles ago: in D now
        nr = self.nr[0] if self.nr else None    # (x, queue) at the head of NR
        # ---- P: the pick, registered for the request of the next cycle
        nr_kind = queue_takes(nr[1]) if nr is not None else None
        ct_pot = nr is not None and d_deq is None

        def ok(k):
            take = (req is not None and queue_takes(req) == k) or (ct_pot and nr_kind == k)
            return self.more[k] if take else self.valid[k]

        def elig(qn):
            n = n_of(qn)
            if not (n >= 2 if qn == req else n >= 1):
                return False
            k = queue_takes(qn)
            return k is None or ok(k)

        pick_en = self.en and self.room and not self.refused
        pick = next((qn for qn in range(len(q.q)) if elig(qn)), None) if pick_en else None
        # ---- Q: the request picked in the last cycle, its ID
        req_take = queue_takes(req) if req is not None else None
        # ---- D: the dequeued transfer, or a cut-through
        ct = False
        if d_deq is None and nr is not None and self.en and not self.want and self.room:
            k = nr_kind
            inflight = [e for e in self.recent if e is not None]
            if k == "tid":
                kind_empty = self.kind_empty[k] and Q_TID not in inflight
            else:
                lo = 18 if k == "fid1" else 50
                kind_empty = self.kind_empty[k] and not any(lo <= e < lo + 16 for e in inflight)
            ct = kind_empty and self.valid[k] and req_take != k
        for k in KINDS:
            got = int(getattr(d, f"s_{k}_ready").value)
            exp = (req_take == k) or (ct and nr_kind == k)
            assert got == int(exp), f"cycle {now}: s_{k}_ready {got} (request queue {req}, " \
                                    f"cut-through {ct} of {nr})"
        dst = None
        if d_deq is not None:
            dst = d_deq
        elif ct:
            x, qn = nr
            k = nr_kind
            tid = self.take(k, "cut-through") if k == "tid" else self.ids["tid"]
            fid = self.take(k, "cut-through") if k in ("fid1", "fid4") else \
                self.ids["fid4" if k == "fid4" else "fid1"]
            dst = dict(x=x, q=qn, fresh=True, tid=tid, fid=fid)
            self.cnt["cut-through"] += 1
        assert int(d.meta_rd_en.value) == int(dst is not None), \
            f"cycle {now}: D valid {int(d.meta_rd_en.value)}, expected {dst} (cut-through " \
            f"{ct}, NR {list(self.nr)}, want {self.want}, room {self.room})"
        assert int(d.meta_deq.value) == int(d_deq is not None), f"cycle {now}: meta_deq"
        if dst is not None:
            assert int(d.meta_rd_addr.value) == dst["x"] and \
                int(d.tt_rd_row.value) == dst["x"] >> 1, \
                f"cycle {now}: D read {int(d.meta_rd_addr.value)}, expected {dst['x']}"
        # the request of this cycle (after the cut-through: its ID as driven)
        qd = None
        if req is not None:
            x, fresh = q.pop(req)
            k = req_take
            tid = self.take(k, "request") if k == "tid" else self.ids["tid"]
            fid = self.take(k, "request") if k in ("fid1", "fid4") else \
                self.ids["fid4" if k == "fid4" else "fid1"]
            qd = dict(x=x, q=req, fresh=fresh, tid=tid, fid=fid)
            self.cnt["dequeue"] += 1
        for k in KINDS:
            taken_k = (req_take == k) or (ct and nr_kind == k)
            self.promised[k] = self.more[k] if taken_k else self.valid[k]
        # ---- enqueue port: W's re-queue > handler action > the head of NR
        enq = None
        nr_enq = False
        if w_enq:
            enq = (iss.enq, w["x"], False)
        elif act_enq:
            enq = (act["q"], act["xfer"], False)
        elif nr is not None and not ct:
            nr_enq = True
            enq = (nr[1], nr[0], True)
        new_ready = self.en and len(self.nr) < 2
        if nr is not None and (ct or nr_enq):
            self.nr.popleft()
        assert int(d.new_ready.value) == int(new_ready), f"cycle {now}: new_ready"
        if self.offer is not None and new_ready:
            x, ds = self.offer
            self.nr.append((x, queue_of(ds, self.p)))
            self.offer = None
        # ---- the enqueue decided two cycles ago takes effect in this cycle
        done = self.enqs.popleft()
        if done is not None:
            q.push(*done)
        self.enqs.append(enq)
        self.recent.popleft()
        self.recent.append(enq[0] if enq is not None else None)
        self.kind_empty = kind_now
        # ---- outputs
        pop_b = int(d.m_blk_valid.value) and int(d.m_blk_ready.value)
        if pop_b:
            got = int(d.m_blk_data.value)
            assert self.blk_exp, f"cycle {now}: unexpected block descriptor"
            want = self.blk_exp.popleft()
            assert got == want, f"cycle {now}: block {BLOCK_DESC.unpack(got)}, expected " \
                                f"{BLOCK_DESC.unpack(want)}"
            f = BLOCK_DESC.unpack(got)
            self.answer(f["tid"], f["seq"])
        pop_p = int(d.m_pkt_valid.value) and int(d.m_pkt_ready.value)
        if pop_p:
            got = int(d.m_pkt_data.value)
            assert self.pkt_exp, f"cycle {now}: unexpected packet"
            want = self.pkt_exp.popleft()
            assert got == want, f"cycle {now}: packet {PKT_DESC.unpack(got)}, expected " \
                                f"{PKT_DESC.unpack(want)}"
            f = PKT_DESC.unpack(got)
            if f["kind"] == C["PKT_INLINE"]:
                self.answer(f["tid"], f["seq"])
        # room in the next cycle: the counts at the start of this one
        self.room = self.blk_cnt <= D - 8 and self.pkt_cnt <= D - 8
        self.blk_cnt += int(blk_push) - pop_b
        self.pkt_cnt += int(pkt_push) - pop_p
        assert self.blk_cnt <= D and self.pkt_cnt <= D
        # ---- move the pipeline
        self.stages.rotate(1)
        self.stages[0] = dst
        self.qpipe.popleft()
        self.qpipe.append(qd)
        self.req = pick
        if os.environ.get("SEG_TRACE"):
            print(f"TRACE {now}: pick {pick} req {req} D {dst} ct {ct} W "
                  f"{iss and (iss.kind, iss.enq, iss.cmpl)} enq {enq} NR {list(self.nr)}")
        self.completions()

    def idle(self):
        return (self.posted >= self.n_xfers and self.offer is None and not self.live
                and not self.heap and not self.due and not self.acts and self.act_cur is None
                and not self.nr and self.req is None and not any(self.qpipe)
                and not any(self.stages) and not any(self.enqs)
                and not self.blk_exp and not self.pkt_exp)


@cocotb.test()
async def seg_random(dut):
    env = os.environ
    rng = seed_rng("seg_random")
    # the registration threshold (REG_CTRL.thresh): off, or 1 B .. 4 blocks
    p = Params.from_env(env)
    p = dataclasses.replace(p, reg_thresh=rng.choice([0, rng.randint(1, 4 * p.block_size)]))
    dut.cfg_reg_thresh.value = p.reg_thresh
    dut._log.info("registration threshold %d", p.reg_thresh)
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    for s in ("en", "new_valid", "s_tid_valid", "s_fid1_valid", "s_fid4_valid", "s_tid_more",
              "s_fid1_more", "s_fid4_more", "hdl_want", "hdl_refused", "s_act_valid",
              "m_blk_ready", "m_pkt_ready"):
        getattr(dut, s).value = 0
    dut.rst.value = 1
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    b = Bench(dut, rng, p, int(env["P_OUT_FIFO_DEPTH"]), int(env["P_N"]))
    for _ in range(5):                      # nothing fires without en
        await b.cycle()
    b.en = True
    # (new idle, blk stall, pkt stall, act idle, slot refusals, ID withheld, ACK delay,
    #  NACK rate) phases, the last until the end
    phases = [(0.3, 0.2, 0.2, 0.2, 0.1, 0.05, (1, 40), 0.02),
              (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, (1, 10), 0.0),
              (0.0, 0.6, 0.6, 0.5, 0.4, 0.3, (20, 200), 0.05),
              (0.1, 0.9, 0.1, 0.0, 0.2, 0.0, (50, 400), 0.01),
              (0.5, 0.1, 0.9, 0.7, 0.1, 0.5, (1, 30), 0.1),
              (0.2, 0.2, 0.2, 0.2, 0.2, 0.1, (1, 40), 0.03)]
    k = last = quiet = 0
    while not b.idle():
        if b.posted >= (k + 1) * b.n_xfers // len(phases) and k + 1 < len(phases):
            k += 1
        (b.new_idle, b.blk_stall, b.pkt_stall, b.act_idle, b.refuse, b.withhold, b.delay,
         b.nack_rate) = phases[k]
        await b.cycle()
        progress = b.n_done + sum(b.cnt.values())
        if progress != last:
            last, quiet = progress, 0
        else:
            quiet += 1
            assert quiet < 3000, f"cycle {b.now}: no progress (live {len(b.live)}, queues " \
                                 f"{b.q.where}, pending {sorted(b.core.pending)[:8]})"
    for _ in range(5):
        await b.cycle()
    assert b.sb.check_end() == []
    pools = b.pools
    assert pools.all_free(), f"IDs not back: {[(k, sorted(pools.taken[k])) for k in KINDS]}"
    assert b.q.empty() and not b.core.pending and b.n_done == b.posted
    # (with one block in flight a transfer is never queued while a block is out: the
    # control packet always goes with the last block, a NACK never meets it queued)
    assert b.cnt["cut-through"] > 0 and b.cnt["dequeue"] > 0 and b.cnt["nack"] > 0
    assert (b.cnt["control"] > 0 and b.cnt["abort"] > 0) or p.max_outstanding == 1
    assert b.sb.n["announce"] > 0   # registered transfers met (their REGISTER packets)
    dut._log.info("%d transfers in %d cycles, %s", b.posted, b.now, dict(b.cnt))


# (parameters, model-only pool size, id): default engine, small blocks with a deep window
# and a small TID pool; in make test-full also one block in flight and 9-deep output FIFOs
CONFIGS = [
    ({"BLOCK_SIZE": 65536, "MAX_OUTSTANDING": 2, "CM_MIN_BYTES": 16384,
      "MP_MIN_BYTES": 262144, "OUT_FIFO_DEPTH": 16}, 512, "default"),
    ({"BLOCK_SIZE": 8192, "MAX_OUTSTANDING": 4, "CM_MIN_BYTES": 16384,
      "MP_MIN_BYTES": 65536, "OUT_FIFO_DEPTH": 16, "REG_MAX_BLOCKS": 6}, 16,
     "bs8k-mo4-tids16-reg6"),
    ({"BLOCK_SIZE": 8192, "MAX_OUTSTANDING": 1, "CM_MIN_BYTES": 8192,
      "MP_MIN_BYTES": 32768, "OUT_FIFO_DEPTH": 9}, 64, "bs8k-mo1-fifo9"),
]


def configs():
    from simrun import full

    return [pytest.param(p, t, id=i) for p, t, i in (CONFIGS if full() else CONFIGS[:2])]


@pytest.mark.parametrize("params,tids", configs())
def test_qrdma_qos_seg(params, tids):
    from simrun import full, run
    env = {f"P_{k}": str(v) for k, v in params.items()}
    env["P_NUM_TIDS"] = str(tids)
    env["P_N"] = str(N_XFERS * (10 if full() else 1))
    run("qrdma_qos_seg", "test_qrdma_qos_seg", params, extra_env=env)
