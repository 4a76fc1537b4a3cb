# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_qos_seg (the transfer segmenter with its scheduling queues, [QoS-RDMA] §3.7,
§3.9-§3.13) against the model's Queues and SegmenterModel (tests/model/qos_model.py),
cycle by cycle.

The rest of the core is the model: the transfer table (tt_rd_*), the metadata table
(meta_*, read-during-write returning the new entry), the ID pools (IdPools offering their
oldest free ID on s_tid_* / s_fid1_* / s_fid4_*, sometimes withholding it), and the
message handler (HandlerModel: it takes the ACKs a responder sends for every block and
inline packet that left m_blk_* / m_pkt_* after a random delay and in random order, some
NACKs, duplicates and ACKs for random TIDs, updates the metadata in one step, returns
TID-only TIDs and hands its actions to s_act_*).

  seg_random   random transfers of every class (inline short and long, TID-only crossing
               block boundaries, 1xFID, 4xFID, notify, priorities, odd and even channels)
               offered on new_* with random idle; random backpressure on m_blk_* / m_pkt_*,
               random idle on s_act_*, random refusals of the metadata slot, phases that
               exhaust the pools. Stage 1 is predicted every cycle (which queue or cut-through
               fires, the transfer, the IDs taken, new_ready) from the model's queues, the
               pools' offers and the output FIFOs' fill; stage 2 by SegmenterModel: the block
               / packet records (compared in full at the outputs, in order), the pending
               entry, the metadata written back, the re-queue and the completion (both
               registered: they take the enqueue / completion port in the next cycle, the
               completion beside the handler's), the unused TID returned, the events. The
               engine's Scoreboard sees every output and ACK. At the end every transfer has
               completed once, every ID is back, the queues are empty and nothing is
               pending or missing.

Replay: QRDMA_SEED=<seed printed at the start>. Size: N_XFERS (x 10 with make test-full).
"""
from __future__ import annotations

import collections
import heapq
import os
import random

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from seeding import seed_rng
from model.qos_model import (ACT, META, PEND, SEQ_MOD, CoreModel, Descriptor, HandlerModel,
                             Params, Scoreboard, queue_of, queue_takes, xfer_index)
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
        self.s1 = None                          # stage 1 of the previous cycle
        self.pred = None                        # stage 2 of this cycle (an Issue)
        self.pred_x = None
        self.s3 = (None, None)                  # stage 2 of the previous cycle (stage 3 now)
        self.ret_exp = None                     # TID returned in this cycle
        self.blk_exp: collections.deque = collections.deque()
        self.pkt_exp: collections.deque = collections.deque()
        self.blk_cnt = self.pkt_cnt = 0
        self.acts: collections.deque = collections.deque()
        self.act_cur = None
        self.heap: list = []
        self.order = 0
        self.due: collections.deque = collections.deque()
        self.valid = dict.fromkeys(KINDS, False)
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
    def handle_ack(self):
        core, rng = self.core, self.rng
        tid, seq, nack, why = self.due.popleft()
        t = self.sb.on_ack(tid, seq, nack, why)
        e = core.pending.get(tid)
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
        # ACKs due, the model's handler (one per cycle), new transfers
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
        # stage 2 of this cycle: the metadata and the table row read in the last cycle
        self.pred = None
        if self.s1 is not None:
            x, q, fresh, tid, fid = self.s1
            m = dict(core.meta[x])
            d.meta_rd_data.value = META.pack(**m)
            d.tt_rd_data.value = self.rows[x >> 1]
            self.pred = core.seg.issue(core.desc[x], x, q, fresh, m, tid, fid, self.now)
            self.pred_x = x
            if self.pred.blk is not None:
                self.sb.on_block(BLOCK_DESC.unpack(BLOCK_DESC.pack(**self.pred.blk)))
            if self.pred.pkt is not None:
                self.sb.on_packet(PKT_DESC.unpack(PKT_DESC.pack(**self.pred.pkt)))
            self.cnt[self.pred.kind] += 1
        # inputs
        if self.en and self.offer is None and self.posted < self.n_xfers and self.free_ch \
                and rng.random() >= self.new_idle:
            self.offer = self.post()
        d.new_valid.value = int(self.offer is not None)
        if self.offer is not None:
            x, ds = self.offer
            d.new_xfer.value = x
            d.new_size.value = ds.size
            d.new_inline.value = ds.is_inline
            d.new_multipath.value = ds.multipath
            d.new_prio.value = ds.prio
        for k in KINDS:
            self.valid[k] = self.pools.avail(k) and rng.random() >= self.withhold
            self.ids[k] = self.pools.head(k) if self.valid[k] else rng.randrange(
                1024 if k == "tid" else 256)
            getattr(d, f"s_{k}_valid").value = int(self.valid[k])
            getattr(d, f"s_{k}_id").value = self.ids[k]
        if self.act_cur is None and self.acts and rng.random() >= self.act_idle:
            self.act_cur = self.acts.popleft()
        d.s_act_valid.value = int(self.act_cur is not None)
        if self.act_cur is not None:
            d.s_act_data.value = ACT.pack(**self.act_cur)
        self.allow = rng.random() >= self.refuse
        d.meta_rd_allow.value = int(self.allow)
        d.m_blk_ready.value = int(rng.random() >= self.blk_stall)
        d.m_pkt_ready.value = int(rng.random() >= self.pkt_stall)
        d.en.value = int(self.en)
        await ReadOnly()
        self.check()

    def check(self):
        d, core, q = self.dut, self.core, self.q
        now, pred = self.now, self.pred
        D = self.depth
        # ---- stage 2 of this cycle
        blk_push = pred is not None and pred.blk is not None
        pkt_push = pred is not None and pred.pkt is not None
        assert int(d.ev_block.value) == int(blk_push), f"cycle {now}: ev_block"
        assert int(d.ev_inline.value) == int(pred is not None and pred.kind == "inline")
        assert int(d.ev_control.value) == int(pkt_push and pred.kind != "inline")
        pend = pred.pend if pred is not None else None
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
        mw = pred.meta if pred is not None else None
        assert int(d.meta_wr_en.value) == int(mw is not None), f"cycle {now}: meta_wr_en"
        if mw is not None:
            got = META.unpack(int(d.meta_wr_data.value))
            assert int(d.meta_wr_addr.value) == self.pred_x, f"cycle {now}: meta_wr_addr"
            bad = {k: (got[k], mw[k]) for k in mw if got[k] != mw[k]}
            assert not bad, f"cycle {now}: metadata of xfer {self.pred_x} (got, expected): {bad}"
            core.meta[self.pred_x] = got
        if blk_push:
            self.blk_exp.append(BLOCK_DESC.pack(**pred.blk))
        if pkt_push:
            self.pkt_exp.append(PKT_DESC.pack(**pred.pkt))
        # stage 3 of this cycle: the re-queue and completion stage 2 decided a cycle ago
        s3, s3_x = self.s3
        s3_enq = s3 is not None and s3.enq is not None
        s3_cmpl = s3 is not None and s3.cmpl is not None
        self.s3 = (pred, self.pred_x)
        ret = int(d.tid_ret_valid.value)
        assert ret == int(self.ret_exp is not None), f"cycle {now}: tid_ret_valid {ret}"
        if ret:
            assert int(d.tid_ret_id.value) == self.ret_exp
            self.pools.give("tid", self.ret_exp)
            self.cnt["tid_ret"] += 1
        self.ret_exp = pred.tid_ret if pred is not None else None
        # ---- handler action, completion port
        act = self.act_cur
        taken = False
        if act is not None:
            want = (not act["enq"] or not s3_enq) and (not act["cmpl"] or not s3_cmpl)
            assert int(d.s_act_ready.value) == int(want), f"cycle {now}: s_act_ready"
            taken = want
        exp_c = None
        if s3_cmpl:
            exp_c = dict(s3.cmpl, xfer=s3_x)
        elif taken and act["cmpl"]:
            exp_c = {k: act[k] for k in ("err", "reason", "cls", "fid", "xfer")}
        assert int(d.cmpl_valid.value) == int(exp_c is not None), f"cycle {now}: cmpl_valid"
        if exp_c is not None:
            got = {k: int(getattr(d, f"cmpl_{k}").value) for k in exp_c}
            assert got == exp_c, f"cycle {now}: completion {got}, expected {exp_c}"
            core.complete(exp_c["xfer"], exp_c)
        # ---- stage 1 of this cycle, from the queues as they were at its start
        def elig(qn):
            k = queue_takes(qn)
            return bool(q.q[qn]) and (k is None or self.valid[k])
        pick = next((qn for qn in range(len(q.q)) if elig(qn)), None)
        ct, nq = False, None
        if self.offer is not None:
            nq = queue_of(self.offer[1], self.p)
            k = queue_takes(nq)
            ct = not q.q[nq] and not any(elig(qn) for qn in range(nq + 1)) \
                and (k is None or self.valid[k])
        room = self.blk_cnt <= D - 2 and self.pkt_cnt <= D - 2
        fire = self.en and (pick is not None or ct) and room and self.allow
        assert int(d.meta_rd_en.value) == int(fire), f"cycle {now}: stage 1 fires " \
            f"{int(d.meta_rd_en.value)}, expected {fire} (pick {pick}, cut-through {ct}, " \
            f"room {room}, allow {self.allow}, offer {self.offer and self.offer[0]} -> {nq}, " \
            f"valid {self.valid}, new_valid {int(d.new_valid.value)})"
        assert int(d.tt_rd_en.value) == int(fire)
        qs = (nq if ct else pick) if fire else None
        for k in KINDS:
            got = int(getattr(d, f"s_{k}_ready").value)
            assert got == int(qs is not None and queue_takes(qs) == k), \
                f"cycle {now}: s_{k}_ready {got} (queue {qs})"
        # ---- enqueue port
        act_enq = taken and act["enq"]
        new_ready = (fire and ct) if (s3_enq or act_enq) else self.en
        assert int(d.new_ready.value) == int(new_ready), f"cycle {now}: new_ready"
        s1 = None
        if fire:
            x = self.offer[0] if ct else q.q[qs][0]
            assert int(d.meta_rd_addr.value) == x and int(d.tt_rd_row.value) == x >> 1, \
                f"cycle {now}: stage 1 read {int(d.meta_rd_addr.value)}, expected {x} " \
                f"(queue {qs}, cut-through {ct}, offer {self.offer and self.offer[0]}, " \
                f"queues {q.where}, valid {self.valid})"
            fresh = True if ct else q.pop(qs, x)[1]
            k = queue_takes(qs)
            if k is not None:
                assert self.pools.take(k) == self.ids[k]
            fid = self.ids["fid4"] if k == "fid4" else self.ids["fid1"]
            s1 = (x, qs, fresh, self.ids["tid"], fid)
            self.cnt["cut-through" if ct else "dequeue"] += 1
        self.s1 = s1
        if os.environ.get("SEG_TRACE"):
            print(f"TRACE {now}: fire {fire} q {qs} ct {ct} s1 {s1} s2 "
                  f"{pred and (pred.kind, pred.enq, pred.cmpl)} act {act if taken else None} "
                  f"offer {self.offer and self.offer[0]} new_ready {new_ready} "
                  f"valid {self.valid} where {q.where}")
        if s3_enq:
            q.push(s3.enq, s3_x, False)
        elif act_enq:
            q.push(act["q"], act["xfer"], False)
        if self.offer is not None and new_ready:
            if not (fire and ct):
                q.push(nq, self.offer[0], True)
            self.offer = None
        if taken:
            self.act_cur = None
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
        self.blk_cnt += int(blk_push) - pop_b
        self.pkt_cnt += int(pkt_push) - pop_p
        assert self.blk_cnt <= D and self.pkt_cnt <= D
        self.completions()

    def idle(self):
        return (self.posted >= self.n_xfers and self.offer is None and not self.live
                and not self.heap
                and not self.due and not self.acts and self.act_cur is None
                and self.s1 is None and self.pred is None and self.s3[0] is None
                and not self.blk_exp
                and not self.pkt_exp and self.ret_exp is None)


@cocotb.test()
async def seg_random(dut):
    env = os.environ
    p = Params(block_size=int(env["P_BLOCK_SIZE"]), max_outstanding=int(env["P_MAX_OUTSTANDING"]),
               cm_min_bytes=int(env["P_CM_MIN_BYTES"]), mp_min_bytes=int(env["P_MP_MIN_BYTES"]),
               num_tids=int(env["P_NUM_TIDS"]))
    rng = seed_rng("seg_random")
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    for s in ("en", "new_valid", "s_tid_valid", "s_fid1_valid", "s_fid4_valid",
              "meta_rd_allow", "s_act_valid", "m_blk_ready", "m_pkt_ready"):
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
    assert b.cnt["cut-through"] > 0 and b.cnt["nack"] > 0
    assert (b.cnt["control"] > 0 and b.cnt["abort"] > 0) or p.max_outstanding == 1
    dut._log.info("%d transfers in %d cycles, %s", b.posted, b.now, dict(b.cnt))


# (parameters, model-only pool size): default engine, small blocks with a deep window and
# a small TID pool, one block in flight and 2-deep output FIFOs
CONFIGS = [
    ({"BLOCK_SIZE": 65536, "MAX_OUTSTANDING": 2, "CM_MIN_BYTES": 16384,
      "MP_MIN_BYTES": 262144, "OUT_FIFO_DEPTH": 4}, 512),
    ({"BLOCK_SIZE": 8192, "MAX_OUTSTANDING": 4, "CM_MIN_BYTES": 16384,
      "MP_MIN_BYTES": 65536, "OUT_FIFO_DEPTH": 4}, 16),
    ({"BLOCK_SIZE": 8192, "MAX_OUTSTANDING": 1, "CM_MIN_BYTES": 8192,
      "MP_MIN_BYTES": 32768, "OUT_FIFO_DEPTH": 2}, 64),
]


@pytest.mark.parametrize("params,tids", CONFIGS, ids=["default", "bs8k-mo4-tids16",
                                                      "bs8k-mo1-fifo2"])
def test_qrdma_qos_seg(params, tids):
    from simrun import full, run
    env = {f"P_{k}": str(v) for k, v in params.items()}
    env["P_NUM_TIDS"] = str(tids)
    env["P_N"] = str(N_XFERS * (10 if full() else 1))
    run("qrdma_qos_seg", "test_qrdma_qos_seg", params, extra_env=env)
