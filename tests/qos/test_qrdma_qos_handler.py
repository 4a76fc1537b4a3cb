# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_qos_handler (the message handler with the pending transactions table,
[QoS-RDMA] §3.5, §3.11) against the model's HandlerModel (tests/model/qos_model.py).

The rest of the core is the model's CoreModel: its queues, ID pools and SegmenterModel
issue blocks, inline and control packets of random transfers (the pending entry of every
block and inline packet written into the handler's table through pend_wr_*), its
metadata table is the one the handler reads and writes through meta_*, and it applies the
handler's actions (m_act_*: re-queue, control queue, completion). A responder answers every
block and inline packet with an ACK (some NACKs with a random reason) after a random delay
and in random order, adds duplicates and ACKs for random TIDs (which must be dropped).

  handler_random   every cycle the pipeline is predicted (ACK FIFO, H0 take, H1 advance,
                   H2 into its FIFO, H3 metadata read and advance, H4..H6): per ACK,
                   HandlerModel predicts from the pending entry of its TID as it is at the
                   end of its H0 cycle and the metadata as it is when H3 reads it (the model
                   applies the handler's update then; the entry is driven on meta_rd_data in
                   H5): stale or matching (ev_ack / ev_nack / ev_stale in H1), the TID
                   returned (tid_free_*, the cycle after H1), the metadata written back in H6
                   (every field), the action pushed in H6 (m_act_*, in order). Random idle on s_ack_*, random
                   backpressure on m_act_* (phases long enough to fill the action FIFO and
                   stop the ACKs), random refusals of the metadata slot (meta_allow) and
                   entries in flight (meta_busy). The outputs and ACKs also go through the
                   engine's Scoreboard. At the end every transfer has completed once (ERROR
                   with its first NACK's reason when NACKed), every ID is back, nothing is
                   pending and no predicted action is missing. init_done rises 1024 cycles
                   after reset; no ACK is taken before en.

Replay: QRDMA_SEED=<seed printed at the start>. Size: N_XFERS (x 10 with make test-full).
"""
from __future__ import annotations

import collections
import heapq
import os
import random
from dataclasses import dataclass

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from seeding import seed_rng
from model.qos_model import (ACT, META, PEND, SEQ_MOD, CoreModel, Descriptor, HandlerModel,
                             Params, Scoreboard, act_relevant, ack_word, xfer_index)
from tools.formats import BLOCK_DESC, PKT_DESC

N_XFERS = 1500
INIT_CYCLES = 1024           # pending valid bits cleared one per cycle after reset


@dataclass
class Taken:
    """An ACK the handler took (H0), with the pending entry of its TID in that cycle."""
    tid: int
    seq: int
    nack: bool
    reason: int
    entry: dict | None
    cycle: int
    match: bool


def random_desc(rng: random.Random, p: Params) -> Descriptor:
    bs = p.block_size
    k = rng.random()
    if k < 0.25:
        return Descriptor.inline_payload(rng.randbytes(rng.randint(1, 32)),
                                         notify=rng.getrandbits(1))
    size = rng.choice([rng.randint(1, p.cm_min_bytes - 1), rng.randint(1, 3 * bs),
                       rng.randint(p.cm_min_bytes, 12 * bs),
                       rng.randint(p.mp_min_bytes, p.mp_min_bytes + 24 * bs)])
    return Descriptor(src_addr=rng.getrandbits(64), dst_addr=rng.getrandbits(64), size=size,
                      multipath=rng.getrandbits(1), notify=rng.getrandbits(1),
                      prio=rng.getrandbits(4), tag=rng.getrandbits(32))


class Bench:
    def __init__(self, dut, rng, p: Params, n_xfers: int):
        self.dut = dut
        self.rng = rng
        self.p = p
        self.core = CoreModel(p)
        self.core.return_unused = False        # the handler returns them (tid_ret_*)
        self.hdl = HandlerModel(p)
        self.sb = Scoreboard(p)
        self.now = 0
        self.n_xfers = n_xfers
        self.posted = 0
        self.live = {}                         # xfer -> (Scoreboard transfer, channel)
        self.free_ch = [(pg, ch) for pg in range(16) for ch in range(0, 64, 2)]
        rng.shuffle(self.free_ch)
        self.free_ch = self.free_ch[:48]
        self.n_done = 0
        # ACKs
        self.heap: list = []
        self.order = 0
        self.acks: collections.deque = collections.deque()
        self.ack_cur = None
        self.fifo: collections.deque = collections.deque()     # the ACK FIFO (2 entries)
        self.h1 = self.h2 = None               # Taken in H1 / H2
        self.fifo3: collections.deque = collections.deque()    # H2 -> H3 FIFO (2 entries)
        self.late: collections.deque = collections.deque([None, None, None])  # H4, H5, H6
        self.exp_acts: collections.deque = collections.deque()
        self.acts_in: list = []                # actions handed over, applied next cycle
        self.sb_acks: list = []                # ACKs for the Scoreboard, next cycle
        self.free_exp = None                   # (TID, the segmenter's) on tid_free_* now
        self.tids_back: list = []              # TIDs to the model's pool, next cycle
        self.depth = int(os.environ["P_ACT_FIFO_DEPTH"])
        self.act_cnt = 0                       # the action FIFO's fill at the cycle start
        self.en = False
        self.pend_drive = None
        self.ret_next = self.ret_cur = None    # an unused TID of the model's segmenter
        # knobs
        self.p_post, self.p_step = 0.3, 0.8
        self.ack_idle, self.act_stall, self.slot_busy, self.busy_rate = 0.1, 0.2, 0.2, 0.1
        self.delay = (2, 40)
        self.nack_rate, self.dup_rate, self.junk_rate = 0.03, 0.03, 0.01
        self.cnt = collections.Counter()

    # ---------------------------------------------------------- the rest of the core
    def post(self):
        page, ch = self.free_ch.pop()
        d = random_desc(self.rng, self.p)
        x = xfer_index(page, ch)
        self.live[x] = (self.sb.post(page, ch, d), (page, ch))
        self.posted += 1
        self.core.post(x, d)

    def step(self):
        """One transfer through the model's segmenter; returns the pending write."""
        iss = self.core.step()
        if iss is None:
            return None
        self.cnt[iss.kind] += 1
        if iss.blk is not None:
            self.sb.on_block(BLOCK_DESC.unpack(BLOCK_DESC.pack(**iss.blk)))
        if iss.pkt is not None:
            self.sb.on_packet(PKT_DESC.unpack(PKT_DESC.pack(**iss.pkt)))
        if iss.tid_ret is not None:
            self.ret_next = iss.tid_ret
        if iss.pend is None:
            return None
        tid, e = iss.pend
        lo, hi = self.delay
        nack = self.rng.random() < self.nack_rate
        why = self.rng.randrange(1, 16) if nack else 0
        self.order += 1
        heapq.heappush(self.heap, (self.now + self.rng.randint(lo, hi), self.order, tid,
                                   e["seq"], nack, why))
        return tid, e

    def completions(self):
        while self.n_done < len(self.core.done):
            x, err, why = self.core.done[self.n_done]
            self.n_done += 1
            t, key = self.live.pop(x)
            assert t.complete, f"cycle {self.now}: xfer {x} completed early: {t.remaining()}"
            assert err == int(t.nacked), f"cycle {self.now}: xfer {x} completed err {err}"
            if err:
                assert why == t.nack_reason, f"cycle {self.now}: xfer {x} reason {why}, " \
                                             f"first NACK's {t.nack_reason}"
            self.sb.retire(t)
            self.free_ch.insert(0, key)

    # ---------------------------------------------------------- one cycle
    async def cycle(self):
        d, rng, core = self.dut, self.rng, self.core
        await RisingEdge(d.clk)
        self.now += 1
        # what the handler did in the previous cycle, in the order the hardware sees it:
        # its actions, then the model's segmenter
        for a in self.acts_in:
            core.apply_action(a)
        self.acts_in = []
        self.completions()
        if self.en and self.posted < self.n_xfers and self.free_ch \
                and rng.random() < self.p_post:
            self.post()
        self.ret_cur, self.ret_next = self.ret_next, None
        # the ACKs that left H2 in the previous cycle count from here (their metadata
        # update is in the model since then), and their TID-only TIDs are back
        for a in self.sb_acks:
            self.sb.on_ack(*a)
        self.sb_acks = []
        for tid in self.tids_back:
            core.pools.give("tid", tid)
        self.tids_back = []
        self.pend_drive = self.step() if self.en and rng.random() < self.p_step else None
        self.completions()
        # ACKs due, in random order; duplicates and junk
        due = []
        while self.heap and self.heap[0][0] <= self.now:
            due.append(heapq.heappop(self.heap))
        rng.shuffle(due)
        for _, _, tid, seq, nack, why in due:
            self.acks.append((tid, seq, nack, why))
            if rng.random() < self.dup_rate:
                self.order += 1
                heapq.heappush(self.heap, (self.now + rng.randint(1, 60), self.order, tid,
                                           seq, False, 0))
        if rng.random() < self.junk_rate:
            self.acks.append((rng.randrange(1024), rng.randrange(SEQ_MOD), False, 0))
        if self.ack_cur is None and self.acks and self.en and rng.random() >= self.ack_idle:
            self.ack_cur = self.acks.popleft()
        d.s_ack_valid.value = int(self.ack_cur is not None)
        if self.ack_cur is not None:
            d.s_ack_data.value = ack_word(*self.ack_cur)
        d.tid_ret_valid.value = int(self.ret_cur is not None)
        d.tid_ret_id.value = self.ret_cur if self.ret_cur is not None else rng.randrange(1024)
        pw = self.pend_drive
        d.pend_wr_en.value = int(pw is not None)
        if pw is not None:
            d.pend_wr_tid.value = pw[0]
            d.pend_wr_data.value = PEND.pack(**pw[1])
        allow = rng.random() >= self.slot_busy
        busy = rng.random() < self.busy_rate
        d.meta_allow.value = int(allow)
        d.meta_busy.value = int(busy)
        h4 = self.late[1]
        if h4 is not None and h4[1] is not None:
            d.meta_rd_data.value = META.pack(**h4[1])
        d.m_act_ready.value = int(rng.random() >= self.act_stall)
        d.en.value = int(self.en)
        await ReadOnly()
        self.check(allow, busy)

    def check(self, allow, busy):
        d, core = self.dut, self.core
        now = self.now
        if not self.en:
            assert not int(d.s_ack_ready.value), f"cycle {now}: s_ack_ready without en"
            return
        # the TID returned in this cycle (decided in the last one)
        free = int(d.tid_free_valid.value)
        assert free == int(self.free_exp is not None), f"cycle {now}: tid_free_valid {free}"
        if self.free_exp is not None:
            tid, seg = self.free_exp
            assert int(d.tid_free_id.value) == tid, f"cycle {now}: tid_free_id"
            if seg:
                core.pools.give("tid", tid)
        self.free_exp = None
        # H6: the metadata write and the action push of the ACK that read in H3 3 cycles ago
        h5 = self.late[2]
        wr = int(d.meta_wr_en.value)
        assert wr == int(h5 is not None and h5[2] is not None), f"cycle {now}: meta_wr_en {wr}"
        if wr:
            got = META.unpack(int(d.meta_wr_data.value))
            m = h5[2]
            bad = {k: (got[k], m[k]) for k in m if got[k] != m[k]}
            assert not bad, f"cycle {now}: metadata of xfer {h5[0]} (got, expected): {bad}"
        push = h5 is not None and h5[3] is not None
        if push:
            self.exp_acts.append(act_relevant(h5[3]))
        # H3 (the FIFO's head): the metadata read and the advance
        room = self.act_cnt <= self.depth - 4
        h2 = self.fifo3[0] if self.fifo3 else None
        need = h2 is not None and h2.match and not h2.entry["single"]
        rd = need and allow and not busy and room
        adv2 = h2 is not None and room and (not need or rd)
        assert int(d.meta_want.value) == int(need), f"cycle {now}: meta_want"
        assert int(d.meta_refused.value) == int(need and not allow and not busy and room), \
            f"cycle {now}: meta_refused"
        assert int(d.meta_rd.value) == int(rd), f"cycle {now}: meta_rd"
        if need:
            assert int(d.meta_rd_addr.value) == h2.entry["xfer"], f"cycle {now}: meta_rd_addr"
        nxt = None
        if adv2:
            self.sb_acks.append((h2.tid, h2.seq, h2.nack, h2.reason))
            if h2.match and h2.entry["cls"] == 1:    # TID-only: to the model's pool
                self.tids_back.append(h2.tid)
        if adv2 and h2.match:
            e = h2.entry
            if need:
                x = e["xfer"]
                snap = dict(core.meta[x])
                r = self.hdl.retire(h2.tid, e, snap, h2.nack, h2.reason)
                core.meta[x] = r.meta            # in the order of the reads
                nxt = (x, snap, r.meta, r.act)
            else:
                r = self.hdl.retire(h2.tid, e, None, h2.nack, h2.reason)
                nxt = (e["xfer"], None, None, r.act)
        # H2: into the FIFO when it has room
        move2 = self.h2 is not None and len(self.fifo3) < 2
        # H1: the advance, events, the valid bit, the TID
        h1 = self.h1
        ret = self.ret_cur
        adv1 = h1 is not None and (self.h2 is None or move2) and ret is None
        ev = (int(d.ev_ack.value), int(d.ev_nack.value), int(d.ev_stale.value))
        assert sum(ev) == int(adv1), f"cycle {now}: events {ev}, H1 advancing {adv1}"
        if ret is not None:
            self.free_exp = (ret, True)
            self.cnt["tid_ret"] += 1
        if adv1:
            want = (0, 0, 1) if not h1.match else ((0, 1, 0) if h1.nack else (1, 0, 0))
            assert ev == want, f"cycle {now}: ACK tid {h1.tid} seq {h1.seq}: events " \
                               f"{ev}, expected {want} (entry {h1.entry})"
            self.cnt["stale" if not h1.match else ("nack" if h1.nack else "ack")] += 1
            if h1.match:
                assert core.pending.pop(h1.tid) is h1.entry
                if h1.entry["cls"] == 1:          # TID-only: back to the pool
                    self.free_exp = (h1.tid, False)
        # actions handed over
        if int(d.m_act_valid.value) and int(d.m_act_ready.value):
            got = ACT.unpack(int(d.m_act_data.value))
            assert self.exp_acts, f"cycle {now}: unexpected action {got}"
            want = self.exp_acts.popleft()
            assert act_relevant(got) == want, f"cycle {now}: action {act_relevant(got)}, " \
                                              f"expected {want}"
            self.acts_in.append(got)
            self.cnt["enq" if got["enq"] else "cmpl"] += 1
            self.act_cnt -= 1
        self.act_cnt += int(push)
        assert self.act_cnt <= self.depth, f"cycle {now}: action FIFO over {self.depth}"
        # the ACK FIFO and H0: an ACK taken sees the pending table as written up to this
        # cycle (its valid bit cleared by H1 above included)
        ready = int(d.s_ack_ready.value)
        assert ready == int(len(self.fifo) < 2), f"cycle {now}: s_ack_ready {ready}"
        take0 = bool(self.fifo) and (h1 is None or adv1)
        # move the pipeline
        self.late.rotate(1)
        self.late[0] = nxt
        if adv2:
            self.fifo3.popleft()
        if move2:
            self.fifo3.append(self.h2)
        if move2 or self.h2 is None:
            self.h2 = h1 if adv1 else None
        if adv1 or h1 is None:
            self.h1 = None
            if take0:
                tid, seq, nack, why = self.fifo.popleft()
                e = core.pending.get(tid)
                self.h1 = Taken(tid, seq, nack, why, e, now,
                                self.hdl.matches(e, seq))
        if int(d.s_ack_valid.value) and ready:
            self.fifo.append(self.ack_cur)
            self.ack_cur = None

    def idle(self):
        return (self.posted >= self.n_xfers and not self.live and not self.heap
                and not self.acks and self.ack_cur is None and not self.fifo
                and self.h1 is None and self.h2 is None and not self.fifo3
                and not any(self.late)
                and not self.exp_acts and not self.acts_in and not self.tids_back
                and not self.sb_acks)


@cocotb.test()
async def handler_random(dut):
    p = Params(block_size=8192, cm_min_bytes=16384, mp_min_bytes=65536,
               max_outstanding=int(os.environ["P_MAX_OUTSTANDING"]),
               num_tids=int(os.environ["P_NUM_TIDS"]))
    rng = seed_rng("handler_random")
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    for s in ("en", "pend_wr_en", "tid_ret_valid", "s_ack_valid", "meta_allow", "meta_busy",
              "m_act_ready"):
        getattr(dut, s).value = 0
    dut.rst.value = 1
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    b = Bench(dut, rng, p, int(os.environ["P_N"]))
    while not int(dut.init_done.value):
        await b.cycle()
        assert b.now <= INIT_CYCLES + 5, "init_done never rises"
    assert b.now == INIT_CYCLES, f"init_done {b.now} cycles after reset"
    b.en = True
    # (ACK idle, action backpressure, slot refusals, NACK rate) phases, then a drain
    phases = [(0.1, 0.2, 0.2, 0.03), (0.0, 0.95, 0.5, 0.0), (0.0, 0.0, 0.0, 0.05),
              (0.5, 0.5, 0.8, 0.02), (0.0, 0.1, 0.1, 0.1)]
    busy = [0.1, 0.3, 0.0, 0.5, 0.1]
    k = last = quiet = 0
    while not b.idle():
        if b.posted >= (k + 1) * b.n_xfers // len(phases) and k + 1 < len(phases):
            k += 1
        b.ack_idle, b.act_stall, b.slot_busy, b.nack_rate = phases[k]
        b.busy_rate = busy[k]
        await b.cycle()
        progress = b.n_done + sum(b.cnt.values())
        if progress != last:
            last, quiet = progress, 0
        else:
            quiet = quiet + 1 if b.now > INIT_CYCLES + 10 else 0
            assert quiet < 2000, f"cycle {b.now}: no progress (live {len(b.live)}, " \
                                 f"pending {sorted(b.core.pending)[:8]})"
    for _ in range(5):
        await b.cycle()
    assert b.sb.check_end() == []
    pools = b.core.pools
    assert pools.all_free(), f"IDs not back: {[(k, sorted(pools.taken[k])) for k in pools.KINDS]}"
    assert b.core.queues.empty() and not b.core.pending
    assert b.n_done == b.posted
    assert b.cnt["stale"] > 0 and b.cnt["nack"] > 0 and b.cnt["enq"] > 0
    dut._log.info("%d transfers, %s", b.posted, dict(b.cnt))


def configs():
    """(MAX_OUTSTANDING, ACT_FIFO_DEPTH, TIDs): the engine's, a deep window with a short
    action FIFO and few TIDs; in make test-full also one block in flight."""
    from simrun import full

    c = [pytest.param(2, 8, 512, id="mo2-act8"), pytest.param(4, 4, 16, id="mo4-act4-tids16")]
    if full():
        c.append(pytest.param(1, 16, 64, id="mo1-act16"))
    return c


@pytest.mark.parametrize("mo,depth,tids", configs())
def test_qrdma_qos_handler(mo, depth, tids):
    from simrun import full, run
    run("qrdma_qos_handler", "test_qrdma_qos_handler",
        {"MAX_OUTSTANDING": mo, "ACT_FIFO_DEPTH": depth},
        extra_env={"P_MAX_OUTSTANDING": str(mo), "P_ACT_FIFO_DEPTH": str(depth),
                   "P_NUM_TIDS": str(tids), "P_N": str(N_XFERS * (10 if full() else 1))})
