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

  handler_random   per ACK the handler takes (s_ack handshake), HandlerModel predicts from
                   the pending entry of its TID and the metadata the handler reads: stale or
                   matching (ev_ack / ev_nack / ev_stale), the TID returned (tid_free_*), the
                   metadata written back (every field), the action pushed (m_act_*, in
                   order). Random idle on s_ack_*, random backpressure on m_act_* (phases
                   long enough to fill the action FIFO and stop the ACKs), random refusals of
                   the metadata slot (meta_rd_allow). The outputs and ACKs also go through the
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
    """An ACK the handler took, with the pending entry of its TID in that cycle."""
    tid: int
    seq: int
    nack: bool
    reason: int
    entry: dict | None
    cycle: int


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
        self.pipe: collections.deque = collections.deque()     # Taken, H0 .. H1
        self.retire_due = None                 # (Taken, xfer): meta read in the last cycle
        self.exp_meta = None                   # (xfer, META fields) written this cycle
        self.exp_acts: collections.deque = collections.deque()
        self.acts_in: list = []                # actions handed over, applied next cycle
        self.sb_acks: list = []                # ACKs for the Scoreboard, next cycle
        self.tids_back: list = []              # TIDs returned, to the pool next cycle
        self.depth = int(os.environ["P_ACT_FIFO_DEPTH"])
        self.act_cnt = 0                       # the action FIFO's fill at the cycle start
        self.push_at: dict = {}                # cycle -> an action is pushed (H2)
        self.en = False
        self.pend_drive = None
        self.ret_next = self.ret_cur = None    # an unused TID of the model's segmenter
        # knobs
        self.p_post, self.p_step = 0.3, 0.8
        self.ack_idle, self.act_stall, self.slot_busy = 0.1, 0.2, 0.2
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
        # its actions, the model's segmenter, then the answer to its metadata read
        for a in self.acts_in:
            core.apply_action(a)
        self.acts_in = []
        self.completions()
        if self.en and self.posted < self.n_xfers and self.free_ch \
                and rng.random() < self.p_post:
            self.post()
        self.ret_cur, self.ret_next = self.ret_next, None
        self.pend_drive = self.step() if self.en and rng.random() < self.p_step else None
        # the ACKs retired in the previous cycle count from here: a block the model's
        # segmenter issued meanwhile went before the handler's metadata write
        for a in self.sb_acks:
            self.sb.on_ack(*a)
        self.sb_acks = []
        for tid in self.tids_back:
            core.pools.give("tid", tid)
        self.tids_back = []
        self.completions()
        self.exp_meta = None
        if self.retire_due is not None:
            h, x = self.retire_due
            m = dict(core.meta[x])
            d.meta_rd_data.value = META.pack(**m)
            r = self.hdl.retire(h.tid, h.entry, m, h.nack, h.reason)
            self.exp_meta = (x, r.meta)
            if r.act is not None:
                self.exp_acts.append(act_relevant(r.act))
                self.push_at[self.now] = 1
            self.retire_due = None
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
        d.meta_rd_allow.value = int(allow)
        d.m_act_ready.value = int(rng.random() >= self.act_stall)
        d.en.value = int(self.en)
        await ReadOnly()
        self.check(allow)

    def check(self, allow):
        d, core = self.dut, self.core
        now = self.now
        if not self.en:
            assert not int(d.s_ack_ready.value), f"cycle {now}: s_ack_ready without en"
            return
        # H1: the oldest ACK taken in an earlier cycle
        h1 = self.pipe[0] if self.pipe and self.pipe[0].cycle < now else None
        match = h1 is not None and self.hdl.matches(h1.entry, h1.seq)
        need = match and not h1.entry["single"]
        assert int(d.meta_rd_want.value) == int(need), f"cycle {now}: meta_rd_want"
        ret = self.ret_cur
        adv = h1 is not None and self.act_cnt <= self.depth - 2 and (not need or allow) \
            and ret is None
        assert int(d.s_ack_ready.value) == int(h1 is None or adv), f"cycle {now}: s_ack_ready"
        ev = (int(d.ev_ack.value), int(d.ev_nack.value), int(d.ev_stale.value))
        assert sum(ev) == int(adv), f"cycle {now}: events {ev}, H1 advancing {adv}"
        free = int(d.tid_free_valid.value)
        rd = int(d.meta_rd_en.value)
        if adv:
            self.pipe.popleft()
            want = (0, 0, 1) if not match else ((0, 1, 0) if h1.nack else (1, 0, 0))
            assert ev == want, f"cycle {now}: ACK tid {h1.tid} seq {h1.seq}: events " \
                               f"{ev}, expected {want} (entry {h1.entry})"
            self.sb_acks.append((h1.tid, h1.seq, h1.nack, h1.reason))
            self.cnt["stale" if not match else ("nack" if h1.nack else "ack")] += 1
        if ret is not None:
            assert free and int(d.tid_free_id.value) == ret, f"cycle {now}: TID {ret} not " \
                                                             f"returned"
            self.tids_back.append(ret)
            self.cnt["tid_ret"] += 1
        if adv and match:
            e = h1.entry
            assert core.pending.pop(h1.tid) is e
            tid_only = e["cls"] == 1
            assert free == int(tid_only), f"cycle {now}: tid_free_valid {free}"
            if tid_only:
                assert int(d.tid_free_id.value) == h1.tid
                self.tids_back.append(h1.tid)
            assert rd == int(need), f"cycle {now}: meta_rd_en {rd}"
            if need:
                assert int(d.meta_rd_addr.value) == e["xfer"], f"cycle {now}: meta_rd_addr"
                self.retire_due = (h1, e["xfer"])
            else:
                r = self.hdl.retire(h1.tid, e, None, h1.nack, h1.reason)
                self.exp_acts.append(act_relevant(r.act))
                self.push_at[now + 1] = 1
        else:
            assert free == int(ret is not None) and not rd, \
                f"cycle {now}: tid_free {free} / meta_rd_en {rd}"
        # H2's metadata write
        if int(d.meta_wr_en.value):
            assert self.exp_meta is not None, f"cycle {now}: unexpected metadata write"
            x, m = self.exp_meta
            got = META.unpack(int(d.meta_wr_data.value))
            assert int(d.meta_wr_addr.value) == x, f"cycle {now}: meta_wr_addr"
            bad = {k: (got[k], m[k]) for k in m if got[k] != m[k]}
            assert not bad, f"cycle {now}: metadata of xfer {x} (got, expected): {bad}"
            core.meta[x] = got
        else:
            assert self.exp_meta is None, f"cycle {now}: metadata write missing"
        # actions
        if int(d.m_act_valid.value) and int(d.m_act_ready.value):
            got = ACT.unpack(int(d.m_act_data.value))
            assert self.exp_acts, f"cycle {now}: unexpected action {got}"
            want = self.exp_acts.popleft()
            assert act_relevant(got) == want, f"cycle {now}: action {act_relevant(got)}, " \
                                              f"expected {want}"
            self.acts_in.append(got)
            self.cnt["enq" if got["enq"] else "cmpl"] += 1
            self.act_cnt -= 1
        self.act_cnt += self.push_at.pop(now, 0)
        assert self.act_cnt <= self.depth, f"cycle {now}: action FIFO over {self.depth}"
        # H0: an ACK taken sees the pending table as written up to this cycle
        if int(d.s_ack_valid.value) and int(d.s_ack_ready.value):
            tid, seq, nack, why = self.ack_cur
            e = core.pending.get(tid)
            self.pipe.append(Taken(tid, seq, nack, why, e, now))
            self.ack_cur = None

    def idle(self):
        return (self.posted >= self.n_xfers and not self.live and not self.heap
                and not self.acks and self.ack_cur is None and not self.pipe
                and not self.exp_acts and not self.acts_in)


@cocotb.test()
async def handler_random(dut):
    p = Params(block_size=8192, cm_min_bytes=16384, mp_min_bytes=65536,
               max_outstanding=int(os.environ["P_MAX_OUTSTANDING"]),
               num_tids=int(os.environ["P_NUM_TIDS"]))
    rng = seed_rng("handler_random")
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    for s in ("en", "pend_wr_en", "tid_ret_valid", "s_ack_valid", "meta_rd_allow",
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
    k = last = quiet = 0
    while not b.idle():
        if b.posted >= (k + 1) * b.n_xfers // len(phases) and k + 1 < len(phases):
            k += 1
        b.ack_idle, b.act_stall, b.slot_busy, b.nack_rate = phases[k]
        await b.cycle()
        progress = b.n_done + sum(b.cnt.values())
        if progress != last:
            last, quiet = progress, 0
        else:
            quiet = quiet + 1 if b.now > INIT_CYCLES + 10 else 0
            assert quiet < 2000, f"cycle {b.now}: no progress (live {len(b.live)}, " \
                                 f"pending {sorted(b.core.pending)[:8]}, pipe {len(b.pipe)})"
    for _ in range(5):
        await b.cycle()
    assert b.sb.check_end() == []
    pools = b.core.pools
    assert pools.all_free(), f"IDs not back: {[(k, sorted(pools.taken[k])) for k in pools.KINDS]}"
    assert b.core.queues.empty() and not b.core.pending
    assert b.n_done == b.posted
    assert b.cnt["stale"] > 0 and b.cnt["nack"] > 0 and b.cnt["enq"] > 0
    dut._log.info("%d transfers, %s", b.posted, dict(b.cnt))


@pytest.mark.parametrize("mo,depth,tids", [(2, 4, 512), (4, 2, 16), (1, 8, 64)],
                         ids=["mo2-act4", "mo4-act2-tids16", "mo1-act8"])
def test_qrdma_qos_handler(mo, depth, tids):
    from simrun import full, run
    run("qrdma_qos_handler", "test_qrdma_qos_handler",
        {"MAX_OUTSTANDING": mo, "ACT_FIFO_DEPTH": depth},
        extra_env={"P_MAX_OUTSTANDING": str(mo), "P_ACT_FIFO_DEPTH": str(depth),
                   "P_NUM_TIDS": str(tids), "P_N": str(N_XFERS * (10 if full() else 1))})
