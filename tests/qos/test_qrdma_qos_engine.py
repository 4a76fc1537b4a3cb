# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_qos_engine (docs/qos.md, [QoS-RDMA] ch. 2-3) against the reference model
tests/model/qos_model.py: [QoS-RDMA]'s QoS test-bench (§4.2 ii) at its scale, plus directed
tests of the scheduling, ID and acceptance rules.

A simulated CPU (cocotbext-axi AxiMaster) posts descriptors and polls status; a responder
answers every block descriptor and inline packet with an ACK after a random delay and in
random order (a cocotbext-axi stream source on s_ack_*, with a stream monitor beside it);
both outputs get random backpressure (cocotbext-axi stream sinks on m_blk_*/m_pkt_*). Every output is checked field by field by the model's Scoreboard
(IDs, sequence numbers, block order, MAX_OUTSTANDING, control-packet timing); at the end
nothing may be missing, every TID/FID must be free (shown by using all of them at once)
and the engine's counters must agree with what was seen. The `xfers` output (transfers in
the core) is compared with the model's count of transfers in flight whenever the engine
is quiet (ACKs held), and must be 0 at the end; PARAMS must show EXT_PARAMS in its fields of bits 63:32.
Half the runs (each test's seed decides) have benchmark mode on (cfg_bench, docs/fabric.md
"Benchmark mode"): every INLINE of at most STAMP_INLINE_MAX bytes and every CONTROL comes
out stamped, a REGISTER and a longer INLINE not (the model's expectation), and a stamp's
t_post is a cycle of the host port between the post and the output.

  qos_random                 N random transfers (1 B .. 1 MB, every class, random
                             alignment, priorities, pages, write and read channels (a
                             read transfer: blocks with xfer bit 6 set, no packet, its
                             channel's status), notify, 32/64-byte
                             descriptors, line / descriptor / word / 8-byte-beat writes,
                             several pages' words interleaved), random phases of
                             backpressure, ACK delay, load and duplicate ACKs (which
                             must be dropped); DONE learnt by polling (single and
                             collective reads); some phases end with every ACK held
                             until the engine is quiet (xfers checked)
  qos_small_behind_elephant  on an idle engine each small kind comes out within the
                             latency target (4 cycles); small transfers posted while a
                             4xFID elephant runs are issued before its next block
  qos_fid_exhaustion         all 1xFIDs (then all 4xFID groups) held: a new transfer of
                             that class waits, a have-FID transfer of lower priority and
                             TID-only traffic still go (no head-of-line blocking, §3.9.1);
                             the first FID returned goes to the waiting transfer
  qos_tid_exhaustion         NUM_TIDS inline packets unacknowledged: TID-only transfers
                             wait, FID transfers go; each released TID is reused in order
  qos_interleaved_pages      16 descriptors, one per page, posted by word writes
                             interleaved across pages (in one order and pipelined)
  qos_bad_input              every refusal of docs/qos.md (beat: SLVERR, nothing changes;
                             descriptor: SLVERR + ERROR + ERR_BAD_DESC), a 64-byte
                             descriptor refused as a whole (BUSY channel pair, refused
                             line 1, bad long descriptor), legal borderline descriptors,
                             a background transfer unharmed
  qos_nack                   NACK -> no further blocks, ERROR once nothing is in flight
                             with the first NACK's reason at ERR_OFFSET, no control
                             packet, TIDs/FIDs returned; xfers while NACKs are pending
  qos_stale_ack              ACKs with a wrong seq, for free TIDs, duplicates: dropped and
                             counted (CNT_STALE), the transfers unharmed

Replay: QRDMA_SEED=<seed printed at the start of a test>. Size: P_N transfers in
qos_random (CONFIGS at the bottom: 4,000 in the default run at the default parameters;
100,000 with make test-full, enough for the 16-bit sequence number to wrap).
"""
from __future__ import annotations

import collections
import heapq
import logging
import math
import os
import random
from dataclasses import dataclass, replace

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import Event, ReadOnly, RisingEdge

from seeding import seed_rng
from streams import (DataBus, DataMonitor, DataSink, DataSource, DataTransaction, quiet,
                     random_pause)
from model.host_model import params_ext_mask
from model.qos_model import (MASK64, Cls, Descriptor, HostPort, ModelError, Params,
                             Scoreboard, Write, ack_word, in_flight, interleave, post_writes,
                             transfer_class)
from tools.formats import (BLOCK_DESC, C, ERR_INFO, FORMAT_VERSION, ID_REG, PARAMS_REG,
                           PKT_DESC, STATUS_SINGLE, coll_addr, desc_addr, err_addr,
                           page_base, reg_addr, status_addr)

ST_IDLE, ST_BUSY, ST_DONE, ST_ERROR = C["ST_IDLE"], C["ST_BUSY"], C["ST_DONE"], C["ST_ERROR"]
ST_NAME = {ST_IDLE: "IDLE", ST_BUSY: "BUSY", ST_DONE: "DONE", ST_ERROR: "ERROR"}
NPAGES, NWCH, NCH = C["NUM_PAGES"], C["WR_CH_PER_PAGE"], C["CH_PER_PAGE"]
RESET_WAIT = 1100          # cycles after reset before posting when the top has no `ready`
                           # (ID pools fill in 592, pending valid bits clear in 1024)
LATENCY_TARGET = 8         # docs/qos.md: last descriptor beat -> first output valid
NLANES = 4                 # concurrent AXI writers; page p always uses lane p % NLANES
STUCK = 20000              # cycles without progress that fail a test
STAMP_MOD = 1 << C["STAMP_W"]   # the host port's cycle count wraps (benchmark stamps)
MB = 1 << 20


# ------------------------------------------------------------------ test bench
@dataclass(eq=False)
class Slot:
    """A posted transfer as the simulated CPU sees it."""
    page: int
    ch: int
    t: object                      # the scoreboard's Transfer
    confirmed: int | None = None   # cycle its last write got OKAY
    final: int | None = None       # ST_DONE / ST_ERROR once read by a poll


@dataclass
class Out:
    """One output handshake (for the directed tests)."""
    cycle: int
    port: str          # "blk" / "pkt"
    kind: str          # "block" / "inline" / "control" / "register"
    xfer: int
    block: int
    tid: int
    seq: int
    fid: int
    t: object


class TB:
    def __init__(self, dut, name):
        self.dut = dut
        self.name = name
        self.rng = seed_rng(name)
        # the registration threshold (REG_CTRL.thresh, an input here): off or 1 B .. 4 blocks
        bs = Params.from_env(os.environ).block_size
        self.p = replace(Params.from_env(os.environ),
                         reg_thresh=self.rng.choice([0, self.rng.randint(1, 4 * bs)]))
        # benchmark mode (cfg_bench, BENCH.en) on in half the runs: stamped packets
        self.bench = self.rng.random() < 0.5
        self.sb = Scoreboard(self.p, bench=self.bench)
        self.t_rst = 0           # self.now in the first cycle after the reset
        self.host = HostPort(self.p)
        self.now = 0
        self.errors: list[str] = []
        self.slots: dict[tuple[int, int], Slot] = {}
        self.occupied: set[tuple[int, int]] = set()
        self.expect_err: set[tuple[int, int]] = set()
        self.outs: list[Out] = []
        self.cov = collections.Counter()     # what the stimulus and the engine did
        self.progress = 0
        self.n_done = 0          # transfers read DONE
        self.n_error = 0         # transfers read ERROR after a NACK
        # ACKs
        self.auto_ack = lambda t: True       # which transfers' outputs are answered
        self.ack_delay = (0, 20)
        self.dup_rate = 0.0                  # P(an ACK is sent again later: must be dropped)
        self.ack_heap: list = []
        self.ack_order = 0
        self.held: list[tuple[int, int, object]] = []     # (tid, seq, transfer) not answered
        self.ack_items: collections.deque = collections.deque()   # mirror of the source
        cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
        from cocotbext.axi import AxiBus, AxiMaster
        logging.getLogger(f"cocotb.{dut._name}.s_axi").setLevel(logging.WARNING)
        self.axi = AxiMaster(AxiBus.from_prefix(dut, "s_axi"), dut.clk, dut.rst)
        quiet(dut, "m_blk", "m_pkt", "s_ack")
        self.blk = DataSink(DataBus.from_prefix(dut, "m_blk"), dut.clk, dut.rst)
        self.pkt = DataSink(DataBus.from_prefix(dut, "m_pkt"), dut.clk, dut.rst)
        self.ack = DataSource(DataBus.from_prefix(dut, "s_ack"), dut.clk, dut.rst)
        self.ack_mon = DataMonitor(DataBus.from_prefix(dut, "s_ack"), dut.clk, dut.rst)
        self.set_stress(0.2, 0.2, 0.1, self.ack_delay)
        self.lanes = [collections.deque() for _ in range(NLANES)]
        self.lane_ev = [Event() for _ in range(NLANES)]
        self.lane_busy = [False] * NLANES
        self.last_wlast = -1
        cocotb.start_soon(self._tick())

    # ---------------------------------------------------------- basics
    def fail(self, msg: str) -> None:
        self.dut._log.error("cycle %d: %s", self.now, msg)
        self.errors.append(f"cycle {self.now}: {msg}")

    def check(self) -> None:
        if self.errors:
            raise AssertionError(f"{len(self.errors)} errors, first: {self.errors[0]}")

    async def cycles(self, n: int = 1) -> None:
        for _ in range(n):
            await RisingEdge(self.dut.clk)
        self.check()

    async def wait_for(self, cond, what: str, timeout: int = 2000) -> None:
        for _ in range(timeout):
            if cond():
                self.check()
                return
            await RisingEdge(self.dut.clk)
            self.check()
        raise AssertionError(f"cycle {self.now}: timeout ({timeout} cycles) waiting for {what}"
                             f" ({self.state()})")

    def state(self) -> str:
        """A one-line summary for timeout messages."""
        d = self.dut
        return (f"ACKs queued {self.ack.count()} (s_ack_ready "
                f"{int(d.s_ack_ready.value)}), held {len(self.held)}, pending "
                f"{len(self.sb.tid_owner)}, m_blk_valid {int(d.m_blk_valid.value)}, "
                f"m_pkt_valid {int(d.m_pkt_valid.value)}, outputs {len(self.outs)}, "
                f"transfers {len(self.slots)}")

    async def start(self) -> None:
        """Reset, wait until the engine is ready, check the ID and PARAMS registers."""
        # no register block on the external port: its window answers SLVERR
        self.dut.ext_rd_err.value = 1
        self.dut.ext_wr_err.value = 1
        self.dut.ext_rd_data.value = 0
        self.dut.cfg_reg_thresh.value = self.p.reg_thresh
        self.dut.cfg_bench.value = int(self.bench)
        self.dut.rst.value = 1
        for _ in range(10):
            await RisingEdge(self.dut.clk)
        self.dut.rst.value = 0
        self.t_rst = self.now
        if hasattr(self.dut, "ready"):          # the engine says when transfers can start
            await self.wait_for(lambda: int(self.dut.ready.value) == 1, "ready after reset",
                                timeout=4 * RESET_WAIT)
            self.dut._log.info("ready %d cycles after reset", self.now)
        else:
            await self.cycles(RESET_WAIT)
        idv = await self.read_reg("ID")
        assert idv == ID_REG.pack(magic=C["ID_MAGIC"], version=FORMAT_VERSION), \
            f"ID register {idv:#x}"
        pv = await self.read_reg("PARAMS")
        want = PARAMS_REG.pack(block_log2=self.p.block_size.bit_length() - 1,
                               max_outstanding=self.p.max_outstanding,
                               data_w=self.p.host_data_w) | (self.p.ext_params << 32) & params_ext_mask()
        assert pv == want, f"PARAMS register {pv:#x}, expected {want:#x}"
        assert int(self.dut.xfers.value) == 0, "xfers after reset"

    def set_stress(self, blk=0.0, pkt=0.0, ack_idle=0.0, delay=(0, 0)) -> None:
        random_pause(self.blk, self.rng, blk)
        random_pause(self.pkt, self.rng, pkt)
        random_pause(self.ack, self.rng, ack_idle)
        self.ack_delay = delay

    # ---------------------------------------------------------- outputs and ACKs
    async def _tick(self):
        mon = self.dut
        while True:
            await RisingEdge(self.dut.clk)
            await ReadOnly()
            # the sinks and the ACK monitor sampled the handshakes of cycle self.now at this
            # edge: its outputs first, then its ACKs (an ACK acts from the next cycle on)
            while not self.blk.empty():
                self._on_blk(self.blk.recv_nowait())
            while not self.pkt.empty():
                self._on_pkt(self.pkt.recv_nowait())
            while not self.ack_mon.empty():
                self._on_ack(self.ack_mon.recv_nowait())
            self.now += 1
            if self.ack_heap and self.ack_heap[0][0] <= self.now:
                due = []
                while self.ack_heap and self.ack_heap[0][0] <= self.now:
                    due.append(heapq.heappop(self.ack_heap))
                self.rng.shuffle(due)
                for _, _, tid, seq, match in due:
                    self.send_ack(tid, seq, match=match)
                    if match and self.rng.random() < self.dup_rate:
                        self.ack_order += 1
                        heapq.heappush(self.ack_heap, (self.now + self.rng.randint(1, 100),
                                                       self.ack_order, tid, seq, False))
            if int(mon.s_axi_wvalid.value) and int(mon.s_axi_wready.value) \
                    and int(mon.s_axi_wlast.value):
                self.last_wlast = self.now

    def send_ack(self, tid: int, seq: int, nack: bool = False, match: bool = True,
                 reason: int = 0) -> None:
        """Queue an ACK/NACK (reason: the NACK's ERR_*); match: the test expects the engine
        to accept it as matching."""
        self.ack.send_nowait(DataTransaction(data=ack_word(tid, seq, nack, reason)))
        self.ack_items.append((tid, seq, nack, match, reason))

    def _on_ack(self, item) -> None:
        """Tell the scoreboard about an ACK the engine has taken (s_ack handshake)."""
        tid, seq, nack, match, reason = self.ack_items.popleft()
        if int(item.data) != ack_word(tid, seq, nack, reason):
            self.fail(f"s_ack carried {int(item.data):#x}, the source was given ACK tid {tid} "
                      f"seq {seq} nack {nack}")
        t = self.sb.on_ack(tid, seq, nack, reason)
        if (t is not None) != match:
            self.fail(f"test bug: ACK tid {tid} seq {seq} nack {nack}: model says "
                      f"{'match' if t else 'stale'}")
        self.progress = self.now

    def _answer(self, tid: int, seq: int, t) -> None:
        if self.auto_ack(t):
            lo, hi = self.ack_delay
            self.ack_order += 1
            heapq.heappush(self.ack_heap, (self.now + self.rng.randint(lo, hi),
                                           self.ack_order, tid, seq, True))
        else:
            self.held.append((tid, seq, t))

    def release(self, pred=lambda tid, seq, t: True, nack=False, reason=0) -> int:
        """Answer the held outputs that pred selects (in random order); returns how many."""
        go = [h for h in self.held if pred(*h)]
        self.held = [h for h in self.held if not pred(*h)]
        self.rng.shuffle(go)
        for tid, seq, _ in go:
            self.send_ack(tid, seq, nack, reason=reason)
        return len(go)

    def _on_blk(self, item):
        f = BLOCK_DESC.unpack(int(item.data))
        try:
            t = self.sb.on_block(f)
        except ModelError as e:
            self.fail(str(e))
            return
        self.progress = self.now
        self.note_load()
        self.outs.append(Out(self.now, "blk", "block", f["xfer"], f["block"], f["tid"],
                             f["seq"], f["fid"], t))
        self.cov["read blocks"] += int(f["xfer"] % NCH >= NWCH)
        self._answer(f["tid"], f["seq"], t)

    def note_load(self):
        c = self.cov
        sb = self.sb
        pool = sum(1 for tid in sb.tid_owner if tid < self.p.num_tids)
        c["max pool TIDs in flight"] = max(c["max pool TIDs in flight"], pool)
        c["max 1xFIDs held"] = max(c["max 1xFIDs held"], len(sb.fid1))
        c["max 4xFID groups held"] = max(c["max 4xFID groups held"], len(sb.fid4))

    def _on_pkt(self, item):
        f = PKT_DESC.unpack(int(item.data))
        try:
            t = self.sb.on_packet(f)
        except ModelError as e:
            self.fail(str(e))
            return
        self.progress = self.now
        inline = f["kind"] == C["PKT_INLINE"]
        if f["stamped"]:
            self.check_stamp(f, t)
        if f["announce"]:      # a REGISTER packet: nothing answers it, nothing waits for it
            self.outs.append(Out(self.now, "pkt", "register", f["xfer"], 0, f["tid"], f["seq"],
                                 0, t))
            return
        self.outs.append(Out(self.now, "pkt", "inline" if inline else "control", f["xfer"],
                             0, f["tid"], f["seq"], 0, t))
        if inline:
            self._answer(f["tid"], f["seq"], t)
        else:
            s = self.slots.get((t.page, t.ch))
            if s is not None and s.t is t:
                self.maybe_release(s)

    def check_stamp(self, f: dict, t) -> None:
        """A stamped packet's t_post (docs/fabric.md "Benchmark mode"): the host port's
        cycle count (cycles since the reset, mod 2^STAMP_W) of a cycle between the post's
        first write and this output."""
        self.cov["stamped packets"] += 1
        tp = (f["payload"] >> (PKT_DESC.field("t_post").lsb - PKT_DESC.field("payload").lsb)) \
            & (STAMP_MOD - 1)
        lo, hi = t.posted_at - self.t_rst, self.now - self.t_rst
        if hi - lo < STAMP_MOD and (tp - lo) % STAMP_MOD > hi - lo:
            self.fail(f"xfer {f['xfer']}: t_post {tp} is not a cycle between the post ({lo}) "
                      f"and the output ({hi}) mod 2^{C['STAMP_W']}")

    def outs_of(self, slot: Slot, kind: str | None = None) -> list[Out]:
        return [o for o in self.outs if o.t is slot.t and (kind is None or o.kind == kind)]

    # ---------------------------------------------------------- AXI
    async def write(self, w: Write) -> bool:
        from cocotbext.axi import AxiBurstType, AxiResp
        r = await self.axi.write(w.addr, w.data, size=w.size, burst=AxiBurstType(w.burst))
        return r.resp == AxiResp.OKAY

    async def read64(self, addr: int) -> int:
        from cocotbext.axi import AxiResp
        r = await self.axi.read(addr, 8, size=3)
        assert r.resp == AxiResp.OKAY, f"read {addr:#x}: {r.resp}"
        return int.from_bytes(r.data, "little")

    async def read_reg(self, name: str) -> int:
        return await self.read64(reg_addr(name))

    # ---------------------------------------------------------- posting
    def register(self, page: int, ch: int, d: Descriptor) -> Slot:
        """A descriptor about to be posted that the engine must accept."""
        assert (page, ch) not in self.occupied, f"test bug: ({page},{ch}) occupied"
        t = self.sb.post(page, ch, d)
        t.posted_at = self.now
        kind = (("inline long" if d.long_desc else "inline short") if d.is_inline
                else t.cls.value + (" long" if d.long_desc else ""))
        self.cov[kind] += 1
        self.cov["notify"] += d.notify
        self.cov["read transfers"] += int(ch >= NWCH)
        self.cov["read long"] += int(ch >= NWCH and bool(d.long_desc))
        self.cov["unaligned"] += int(not d.is_inline and d.dst_addr % self.p.block_size != 0)
        self.cov["wraps 2^64"] += int(not d.is_inline and d.dst_addr + d.size > MASK64 + 1)
        s = Slot(page, ch, t)
        self.slots[(page, ch)] = s
        self.occupied.add((page, ch))
        if d.long_desc:
            assert (page, ch + 1) not in self.occupied
            self.occupied.add((page, ch + 1))
        self.expect_err.discard((page, ch))
        return s

    def predict_only(self, w: Write) -> bool:
        """Would the model accept w (no state change)."""
        import copy
        return copy.deepcopy(self.host).write(w)[0]

    def predict(self, w: Write) -> bool:
        """The model's answer to a write; registers descriptors it starts, notes errors."""
        ok, ev = self.host.write(w)
        for e in ev:
            if e[0] == "start":
                self.register(e[1], e[2], e[3])
            else:
                self.expect_err.add((e[1], e[2]))
        return ok

    async def hwrite(self, w: Write, why: str = "") -> bool:
        """A write whose response the model predicts (and checks)."""
        want = self.predict(w)
        ok = await self.write(w)
        if ok != want:
            self.fail(f"write {w.addr:#x} ({len(w.data)} B, size {1 << w.size}, burst "
                      f"{w.burst}) {why}: {'OKAY' if ok else 'SLVERR'}, expected "
                      f"{'OKAY' if want else 'SLVERR'}")
        return ok

    async def post(self, page: int, ch: int, d: Descriptor, mode: str = "line") -> Slot:
        """Post a descriptor the engine must accept, one write after the other."""
        for w in post_writes(d, page, ch, mode, self.rng, self.p.bus_bytes):
            await self.hwrite(w, f"posting to ({page},{ch})")
        s = self.slots[(page, ch)]
        s.confirmed = self.now
        self.check()
        return s

    def queue_job(self, items: list[tuple[int, int, Descriptor, str]], mix: bool) -> list:
        """Queue the writes of several descriptors (all of one lane's pages) on that lane;
        mix: interleave their writes. Returns the slots."""
        seqs, slots = [], []
        lane = items[0][0] % NLANES
        for page, ch, d, mode in items:
            assert page % NLANES == lane
            ws = post_writes(d, page, ch, mode, self.rng, self.p.bus_bytes)
            for w in ws:
                assert self.predict(w), "test bug: a random post would be refused"
            s = self.slots[(page, ch)]
            slots.append(s)
            seqs.append([(w, None) for w in ws[:-1]] + [(ws[-1], s)])
        job = interleave(seqs, self.rng) if mix else [x for q in seqs for x in q]
        self.cov["jobs interleaving pages"] += int(mix)
        for *_, mode in items:
            self.cov[f"mode {mode}"] += 1
        self.lanes[lane].append(job)
        self.lane_ev[lane].set()
        return slots

    async def _lane(self, k: int):
        q = self.lanes[k]
        while True:
            while not q:
                self.lane_ev[k].clear()
                await self.lane_ev[k].wait()
            job = q[0]
            self.lane_busy[k] = True
            for w, s in job:
                if not await self.write(w):
                    self.fail(f"write {w.addr:#x} refused (lane {k})")
                if s is not None:
                    s.confirmed = self.now
            q.popleft()
            self.lane_busy[k] = False

    def start_lanes(self):
        for k in range(NLANES):
            cocotb.start_soon(self._lane(k))

    def lanes_idle(self) -> bool:
        return not any(self.lanes) and not any(self.lane_busy)

    async def post_many(self, items: list[tuple[int, int, Descriptor]], mode="line"):
        """Post many descriptors through the lanes (pipelined); returns their slots."""
        by_page = collections.defaultdict(list)
        for page, ch, d in items:
            by_page[page].append((page, ch, d, mode))
        slots = []
        for page, its in by_page.items():
            for it in its:
                slots += self.queue_job([it], False)
        await self.wait_for(self.lanes_idle, "posting", timeout=50 * len(items) + 1000)
        return slots

    # ---------------------------------------------------------- status
    def observe(self, page: int, ch: int, st: int, issued: int) -> None:
        """Check one channel's status as read by a poll issued at cycle `issued`, and
        learn DONE/ERROR from it (every ACK taken before its cycle is known: _tick)."""
        key = (page, ch)
        s = self.slots.get(key)
        where = f"status ({page},{ch}) read at {issued}: {ST_NAME[st]}"
        if key in self.expect_err:
            if st != ST_ERROR:
                self.fail(f"{where}, expected ERROR (descriptor refused)")
            self.expect_err.discard(key)
            return
        if s is None or s.final is not None:
            if st != ST_IDLE:
                self.fail(f"{where}, expected IDLE (no transfer)")
            return
        t = s.t
        if st == ST_BUSY:
            return
        if st == ST_IDLE:
            if s.confirmed is not None and issued > s.confirmed:
                self.fail(f"{where} while its transfer is in flight ({t.remaining()})")
            return
        if st == ST_DONE:
            if t.nacked or not t.all_acked:
                self.fail(f"{where} but {t.remaining()}" + (", NACKed" if t.nacked else ""))
            s.final = ST_DONE
            self.n_done += 1
        else:   # ERROR
            if not t.nacked or t.in_flight:
                self.fail(f"{where}: {'blocks still in flight' if t.nacked else 'no NACK'}"
                          f" ({t.remaining()})")
            s.final = ST_ERROR
            self.n_error += 1
        self.progress = self.now
        self.maybe_release(s)

    def maybe_release(self, s: Slot) -> None:
        """Free the channel once its final status is read and every output is in."""
        if s.final is None or not s.t.complete:
            return
        try:
            self.sb.retire(s.t)
        except ModelError as e:
            self.fail(str(e))
            return
        del self.slots[(s.page, s.ch)]
        self.occupied.discard((s.page, s.ch))
        if s.t.desc.long_desc:
            self.occupied.discard((s.page, s.ch + 1))
        self.host.finish(s.page, s.ch, s.final, s.t.nack_reason or 0)
        self.host.read_single(s.page, s.ch)
        self.progress = self.now

    async def read_err(self, page: int, ch: int) -> int:
        """The error reason of (page, ch) (ERR_OFFSET window), checked against the model:
        the NACK reason of its last transfer ended in ERROR, ERR_BAD_DESC of a refused
        descriptor, ERR_NONE if none. A channel whose ERROR is not yet released to the model
        (read, outputs not all in) is checked against its transfer."""
        v = await self.read64(err_addr(page, ch))
        r = ERR_INFO.unpack(v)["reason"]
        self.cov["error reason reads"] += 1
        s = self.slots.get((page, ch))
        want = (s.t.nack_reason if s is not None and s.final == ST_ERROR
                else self.host.read_err(page, ch))
        if v != r or r != want:
            self.fail(f"error reason ({page},{ch}): {v:#x}, expected {want}")
        return r

    async def check_xfers(self, what: str) -> None:
        """The engine's xfers output against the model's transfers in flight, once the
        engine is quiet: 40 cycles with no ACK queued or due and no output offered (ACKs
        the test holds stay held)."""
        d = self.dut
        quiet, t0 = 0, self.now
        while quiet < 40:
            await self.cycles(1)
            busy = (self.ack_heap or not self.ack.idle() or int(d.m_blk_valid.value)
                    or int(d.m_pkt_valid.value) or not self.lanes_idle())
            quiet = 0 if busy else quiet + 1
            if self.now - t0 > STUCK:
                raise AssertionError(f"cycle {self.now}: engine never quiet before checking "
                                     f"xfers ({what}; {self.state()})")
        got, want = int(self.dut.xfers.value), in_flight(self.sb)
        self.cov["xfers checks"] += 1
        assert got == want, f"cycle {self.now}: xfers {got}, model {want} in flight ({what})"

    async def poll_single(self, page: int, ch: int) -> int:
        issued = self.now
        st = STATUS_SINGLE.unpack(await self.read64(status_addr(page, ch)))["status"]
        self.cov["single reads"] += 1
        self.observe(page, ch, st, issued)
        return st

    async def poll_coll(self, page: int, group: int) -> int:
        issued = self.now
        v = await self.read64(coll_addr(page, group))
        self.cov["collective reads"] += 1
        self.cov["read collective reads"] += int(32 * group >= NWCH)
        for i in range(32):
            self.observe(page, 32 * group + i, (v >> (2 * i)) & 3, issued)
        return v

    async def poll_once(self, coll_p: float = 0.5) -> None:
        """One status read of a channel (or group) with a transfer not yet seen final,
        preferring ones whose outputs are all acknowledged (a CPU polls those)."""
        cands = [s for s in self.slots.values() if s.final is None]
        if not cands:
            await self.cycles(1)
            return
        likely = [s for s in cands if s.t.complete or (s.t.nacked and not s.t.in_flight)]
        s = self.rng.choice(likely if likely and self.rng.random() < 0.8 else cands)
        if self.rng.random() < coll_p:
            await self.poll_coll(s.page, s.ch // 32)
        else:
            await self.poll_single(s.page, s.ch)

    async def poller(self, stop, gap=lambda: 0):
        while not stop():
            await self.poll_once()
            g = gap()
            if g:
                await self.cycles(g)

    async def drain(self, what="every transfer to finish", timeout=STUCK):
        """Poll until every posted transfer has been read DONE/ERROR and released."""
        self.progress = self.now
        while self.slots or self.expect_err:
            if self.now - self.progress > timeout:
                stuck = [f"({s.page},{s.ch}) {s.t.cls.value} size {s.t.desc.size}: "
                         f"{s.t.remaining()}" + (" NACKed" if s.t.nacked else "")
                         for s in list(self.slots.values())[:10]]
                raise AssertionError(f"cycle {self.now}: no progress for {timeout} cycles "
                                     f"waiting for {what}; {len(self.slots)} left: {stuck}; "
                                     f"{self.state()}")
            if self.expect_err:
                page, ch = next(iter(self.expect_err))
                await self.poll_single(page, ch)
            else:
                await self.poll_once()
        self.check()

    # ---------------------------------------------------------- end checks
    async def check_counters(self) -> None:
        """The engine's counters against what the test saw (after a drain)."""
        n = self.sb.n
        want = {"CNT_DESC_OK": n["posted"], "CNT_BLOCKS": n["blocks"],
                "CNT_INLINE": n["inline"], "CNT_CONTROL": n["control"], "CNT_ACK": n["ack"],
                "CNT_NACK": n["nack"], "CNT_STALE": n["stale"],
                # "transfers completed": the RTL counts ERROR endings (after a NACK) too
                "CNT_DONE": self.n_done + self.n_error}
        got = {k: await self.read_reg(k) for k in want}
        bad = [f"{k} {got[k]} != {v}" for k, v in want.items() if got[k] != v]
        x = int(self.dut.xfers.value)
        if x != 0 or in_flight(self.sb) != 0:
            bad.append(f"xfers {x} (model {in_flight(self.sb)}) after every transfer ended")
        err = await self.read_reg("CNT_DESC_ERR")
        if err != self.host.refused:
            bad.append(f"CNT_DESC_ERR {err} != {self.host.refused} (refused beats + refused "
                       f"descriptors)")
        assert not bad, "counters: " + "; ".join(bad)

    async def check_all_idle(self) -> None:
        for page in range(NPAGES):
            for g in range(NCH // 32):
                v = await self.read64(coll_addr(page, g))
                assert v == 0, f"page {page} group {g} not all IDLE: {v:#018x}"

    def free_channels(self, n: int, pages=range(NPAGES), even=False) -> list[tuple[int, int]]:
        out = []
        for page in pages:
            for ch in range(0, NWCH, 2 if even else 1):
                if (page, ch) not in self.occupied and (page, ch) not in self.expect_err:
                    out.append((page, ch))
                    if len(out) == n:
                        return out
        raise AssertionError("test bug: not enough free channels")

    async def check_ids_free(self) -> None:
        """Every TID and FID is free: hold all ACKs and start 64 1xFID, 16 4xFID and
        NUM_TIDS TID-only transfers at once; each must get its first output."""
        p = self.p
        self.set_stress()
        self.auto_ack = lambda t: False
        bs = p.block_size
        fid1 = Descriptor(size=max(p.cm_min_bytes, 1), dst_addr=0)
        fid4 = Descriptor(size=max(p.mp_min_bytes, 4 * bs), multipath=1, dst_addr=0)
        assert transfer_class(fid1, p) is Cls.FID1 and transfer_class(fid4, p) is Cls.FID4
        chans = self.free_channels(64 + 16 + p.num_tids)
        items = []
        for i, (page, ch) in enumerate(chans):
            if i < 64:
                d = Descriptor(**{**fid1.__dict__, "prio": i % 16, "src_addr": i})
            elif i < 80:
                d = Descriptor(**{**fid4.__dict__, "prio": i % 16, "src_addr": i})
            else:
                d = Descriptor(size=4, is_inline=1, src_addr=i)
            items.append((page, ch, d))
        slots = await self.post_many(items)
        first = lambda s: bool(s.t.observed)     # noqa: E731
        await self.wait_for(lambda: all(first(s) for s in slots),
                            "every ID to be handed out", timeout=10 * len(slots) + 2000)
        await self.check_xfers("every ID in use")
        fids = {s.t.fid0 for s in slots if s.t.cls is not Cls.TID}
        assert fids == set(range(128, 192)) | set(range(192, 256, 4)), "FIDs not all used"
        tids = {s.t.observed[0][0] for s in slots if s.t.cls is Cls.TID}
        assert tids == set(range(p.num_tids)), "TIDs not all used"
        self.auto_ack = lambda t: True
        self.ack_delay = (0, 10)
        self.release()
        await self.drain("the ID check's transfers")


# ------------------------------------------------------------------ random stimulus
def log_uniform(rng: random.Random, lo: int, hi: int) -> int:
    return min(hi, max(lo, int(math.exp(rng.uniform(math.log(lo), math.log(hi + 1))))))


def rand_dst(rng: random.Random, bs: int) -> int:
    r = rng.random()
    if r < 0.25:
        return rng.getrandbits(40) * bs
    if r < 0.4:
        return rng.getrandbits(40) * bs + bs - rng.randint(1, 64)
    if r < 0.55:
        return rng.getrandbits(40) * bs + rng.randint(1, 64)
    if r < 0.98:
        return rng.getrandbits(56)
    return MASK64 - rng.getrandbits(21)           # wraps at 2^64


def gen_desc(rng: random.Random, p: Params, long_ok: bool, read: bool = False) -> Descriptor:
    """A random legal descriptor hitting every class: inline short/long, TID-only,
    1xFID, 4xFID, and the class thresholds; with read, a read descriptor (a read
    channel's: no inline payload, no notify; a long one carries rkey and lkey)."""
    bs, cm, mp = p.block_size, p.cm_min_bytes, p.mp_min_bytes
    common = dict(dst_node=rng.getrandbits(16), tag=rng.getrandbits(32),
                  prio=rng.getrandbits(4), notify=0 if read else int(rng.random() < 0.5),
                  multipath=int(rng.random() < 0.3),
                  registered=int(rng.random() < 0.5))   # (a write with notify registers)
    r = 1.0 if read else rng.random()
    if r < 0.18 or (r < 0.30 and not long_ok):
        return Descriptor(src_addr=rng.getrandbits(64), dst_addr=rng.getrandbits(64),
                          size=rng.randint(1, 8), is_inline=1, **common)
    if r < 0.30:
        return Descriptor(src_addr=rng.getrandbits(64), dst_addr=rng.getrandbits(64),
                          size=rng.choice([rng.randint(1, 32), rng.randint(9, 32)]),
                          is_inline=1, long_desc=1, inline_hi=rng.getrandbits(192),
                          rkey=rng.getrandbits(32), **common)
    k = rng.random()
    if k < 0.35:
        size = log_uniform(rng, 1, cm - 1)
    elif k < 0.65:
        size = log_uniform(rng, cm, MB)
        common["multipath"] = int(common["multipath"] and size < mp)
    elif k < 0.85:
        size = rng.randint(mp, max(mp, MB))
        common["multipath"] = 1
    else:
        size = rng.choice([cm - 1, cm, mp - 1, mp, bs - 1, bs, bs + 1, MB, 32, 33, 1])
    long_desc = int(long_ok and rng.random() < 0.25)
    lkey = rng.getrandbits(32) * long_desc if read else 0
    return Descriptor(src_addr=rng.getrandbits(64), dst_addr=rand_dst(rng, bs), size=size,
                      long_desc=long_desc, rkey=rng.getrandbits(32) * long_desc,
                      inline_hi=lkey, **common)


PHASE = dict(blk=[0.0, 0.2, 0.5, 0.9], pkt=[0.0, 0.2, 0.5, 0.9], ack_idle=[0.0, 0.3, 0.7],
             delay=[(0, 0), (0, 4), (2, 30), (10, 200)], inflight=[2, 16, 64, 300],
             gap=[0, 0, 5, 30], dup=[0.0, 0.0, 0.02])


@cocotb.test()
async def qos_random(dut):
    tb = TB(dut, "qos_random")
    await tb.start()
    tb.start_lanes()
    p, rng = tb.p, tb.rng
    n = int(os.environ.get("P_N", "1000"))
    stop = False
    gap = [0]
    poller = cocotb.start_soon(tb.poller(lambda: stop, lambda: gap[0]))
    inflight = 64
    posted = 0
    frozen_at = 0
    tb.progress = tb.now
    while posted < n:
        if posted % 300 == 0:
            if posted and posted != frozen_at and rng.random() < 0.3:
                frozen_at = posted
                # hold every ACK until the engine is quiet: xfers against the model
                tb.auto_ack = lambda t: False
                await tb.check_xfers(f"qos_random after {posted} posts")
                tb.auto_ack = lambda t: True
                tb.release()
            tb.set_stress(rng.choice(PHASE["blk"]), rng.choice(PHASE["pkt"]),
                          rng.choice(PHASE["ack_idle"]), rng.choice(PHASE["delay"]))
            inflight = rng.choice(PHASE["inflight"])
            gap[0] = rng.choice(PHASE["gap"])
            tb.dup_rate = rng.choice(PHASE["dup"])
        if len(tb.slots) >= inflight or sum(map(len, tb.lanes)) > 8:
            await tb.cycles(1)
            if tb.now - tb.progress > STUCK:
                raise AssertionError(f"no progress for {STUCK} cycles, {len(tb.slots)} "
                                     f"transfers in flight")
            continue
        # one job: 1 descriptor, or 2-3 of different pages of one lane with mixed words
        lane = rng.randrange(NLANES)
        pages = rng.sample(range(lane, NPAGES, NLANES), rng.choice([1, 1, 1, 2, 3]))
        items = []
        for page in pages:
            free = [c for c in range(NCH) if (page, c) not in tb.occupied]
            if not free:
                continue
            ch = rng.choice(free)
            long_ok = ch % 2 == 0 and (page, ch + 1) not in tb.occupied
            d = gen_desc(rng, p, long_ok, read=ch >= NWCH)
            mode = rng.choices(["line", "desc", "words", "beats8"], [4, 2, 3, 1])[0]
            items.append((page, ch, d, mode if len(pages) == 1 else "words"))
            posted += 1
        if items:
            tb.queue_job(items, mix=len(items) > 1)
        if posted % 1000 < len(items):
            dut._log.info("posted %d/%d at cycle %d, %d in flight, %d outputs", posted, n,
                          tb.now, len(tb.slots), len(tb.outs))
        await tb.cycles(rng.choice([0, 0, 1, 3]) or 1)
    await tb.wait_for(tb.lanes_idle, "the last posts", timeout=STUCK)
    stop = True
    await poller
    tb.set_stress(0.1, 0.1, 0.0, (0, 8))
    tb.dup_rate = 0.0
    await tb.drain()
    assert not (bad := tb.sb.check_end()), "\n".join(bad)
    tb.cov["sequence numbers"] = len(tb.sb.seqs)
    tb.cov["duplicate ACKs dropped"] = tb.sb.n["stale"]
    tb.cov["registered transfers"] = tb.sb.n["announce"]
    dut._log.info("%d transfers: %d blocks, %d inline, %d control packets, %d cycles; %s",
                  tb.sb.n["posted"], tb.sb.n["blocks"], tb.sb.n["inline"],
                  tb.sb.n["control"], tb.now, dict(sorted(tb.cov.items())))
    for k in ("inline short", "inline long", "TID-only", "1xFID", "4xFID", "TID-only long",
              "1xFID long", "4xFID long", "mode words", "mode beats8", "mode desc",
              "jobs interleaving pages", "single reads", "collective reads",
              "read transfers", "read blocks", "read long", "read collective reads",
              "registered transfers") + ("stamped packets",) * tb.bench:
        assert tb.cov[k] > 0 or n < 1000, f"random stimulus never produced {k}"
    await tb.check_counters()
    await tb.check_all_idle()
    await tb.check_ids_free()
    assert not (bad := tb.sb.check_end()), "\n".join(bad)


# ------------------------------------------------------------------ directed tests
@cocotb.test()
async def qos_small_behind_elephant(dut):
    """First, on an idle engine, each kind of small transfer comes out within the
    latency target (docs/qos.md: last descriptor beat -> first output valid <= 4 cycles).
    Then a 4xFID elephant (256 blocks) runs with prompt ACKs; small transfers of every
    higher class posted meanwhile come out before its next block: at most
    MAX_OUTSTANDING elephant blocks (already issued, unacknowledged) between the small
    transfer's last write beat and its output. Half the rounds stall m_blk while
    posting."""
    tb = TB(dut, "qos_small_behind_elephant")
    await tb.start()
    p, rng = tb.p, tb.rng
    bs = p.block_size
    tb.set_stress(0.0, 0.0, 0.0, (8, 12))
    smalls = [("inline short", lambda: Descriptor(size=rng.randint(1, 8), is_inline=1)),
              ("inline long", lambda: Descriptor.inline_payload(rng.randbytes(
                  rng.randint(9, 32)))),
              ("TID-only", lambda: Descriptor(size=rng.randint(1, p.cm_min_bytes - 1),
                                              dst_addr=64)),
              ("1xFID", lambda: Descriptor(size=p.cm_min_bytes, dst_addr=0, prio=0))]
    # the latency target, on an idle engine
    idle_lat = []
    for k, (name, mk) in enumerate(smalls * 2):
        slot = await tb.post(1, 2 * k, mk(), mode=rng.choice(["line", "words"]))
        wl = tb.last_wlast
        await tb.wait_for(lambda: bool(slot.t.observed), f"{name} output", 100)
        idle_lat.append((name, tb.outs_of(slot)[0].cycle - wl))
        await tb.cycles(20)
    dut._log.info("idle engine, last beat -> first output: %s", idle_lat)
    assert max(x for _, x in idle_lat) <= LATENCY_TARGET, \
        f"last beat -> first output above the target of {LATENCY_TARGET}: {idle_lat}"
    ele = Descriptor(src_addr=rng.getrandbits(48), dst_addr=rng.getrandbits(30) * bs,
                     size=max(256 * bs, p.mp_min_bytes), multipath=1, prio=15, notify=1)
    assert transfer_class(ele, p) is Cls.FID4
    es = await tb.post(0, 0, ele)
    await tb.wait_for(lambda: len(es.t.observed) >= 4, "the elephant to run")
    results = []
    for k in range(16):
        await tb.cycles(rng.randint(0, 40))
        stall = (k // len(smalls)) % 2 == 1
        if stall:
            random_pause(tb.blk, rng, 1.0)
            await tb.cycles(30)
        name, mk = smalls[k % len(smalls)]
        d = mk()
        ch = 2 + 2 * k          # even: a long descriptor takes ch+1 too
        slot = await tb.post(0, ch, d, mode=rng.choice(["line", "words"]))
        wl = tb.last_wlast
        if stall:
            await tb.cycles(5)
            random_pause(tb.blk, rng, 0.0)
        await tb.wait_for(lambda: bool(slot.t.observed), "the small transfer's output", 500)
        first = tb.outs_of(slot)[0]
        between = [o for o in tb.outs_of(es, "block") if wl < o.cycle < first.cycle]
        results.append((name, stall, first.cycle - wl, len(between)))
        assert len(between) <= p.max_outstanding, \
            (f"round {k}: {len(between)} elephant blocks issued between the small "
             f"transfer's last beat (cycle {wl}) and its output (cycle {first.cycle})")
        assert len(es.t.observed) < es.t.nblocks, "test bug: the elephant finished early"
    dut._log.info("(class, stalled, latency, elephant blocks between): %s", results)
    await tb.drain()


@cocotb.test()
async def qos_fid_exhaustion(dut):
    """[QoS-RDMA] §3.9.1: with every 1xFID (then every 4xFID group) held by transfers waiting
    for ACKs, a new transfer of that class waits while a have-FID transfer of lower
    priority and TID-only transfers proceed; the first FID returned goes to it."""
    tb = TB(dut, "qos_fid_exhaustion")
    await tb.start()
    tb.start_lanes()
    p, rng = tb.p, tb.rng
    bs = p.block_size
    tb.set_stress()
    tb.auto_ack = lambda t: False
    for cls_, n_fids, page0 in ((Cls.FID1, 64, 0), (Cls.FID4, 16, 4)):
        # more blocks than MAX_OUTSTANDING: an ACK lets the next one go
        size = max((p.max_outstanding + 2) * bs, p.cm_min_bytes)
        if cls_ is Cls.FID4:
            size = max(size, p.mp_min_bytes)
        mp = int(cls_ is Cls.FID4)
        hogs = [(page0 + i // 64, i % 64, Descriptor(size=size, dst_addr=0, multipath=mp,
                                                     prio=15, src_addr=i))
                for i in range(n_fids)]
        assert all(transfer_class(d, p) is cls_ for _, _, d in hogs)
        hs = await tb.post_many(hogs)
        nout = min(p.max_outstanding, hs[0].t.nblocks)
        await tb.wait_for(lambda: all(len(s.t.observed) == nout for s in hs),
                          f"{n_fids} {cls_.value} transfers to take every FID", 5000)
        # X: same class, top priority, needs an FID; Y/Z: TID-only
        xd = Descriptor(size=max(p.cm_min_bytes, p.mp_min_bytes * mp), dst_addr=0, prio=0,
                        multipath=mp, src_addr=0x5A)
        assert transfer_class(xd, p) is cls_
        xs = await tb.post(8, 0 + 4 * mp, xd)
        ys = await tb.post(8, 1 + 4 * mp, Descriptor(size=5, is_inline=1))
        zs = await tb.post(8, 2 + 4 * mp, Descriptor(size=100, dst_addr=bs - 50))
        await tb.wait_for(lambda: ys.t.observed and len(zs.t.observed) >= 1,
                          "TID-only transfers while every FID is in use", 300)
        await tb.cycles(100)
        assert not xs.t.observed, f"{cls_.value} transfer issued with every FID in use"
        # a have-FID transfer of the lowest priority proceeds on an ACK
        hog = hs[-1]
        tid0, seq0 = hog.t.observed[0]
        tb.release(lambda tid, seq, t: (tid, seq) == (tid0, seq0))
        await tb.wait_for(lambda: len(hog.t.observed) > nout,
                          "the have-FID transfer's next block", 300)
        await tb.cycles(50)
        assert not xs.t.observed, f"{cls_.value} transfer issued with every FID in use"
        # finish that transfer: its FID(s) go to X
        tb.auto_ack = lambda t, h=hog.t: t is h
        tb.release(lambda tid, seq, t, h=hog.t: t is h)
        tb.ack_delay = (1, 5)
        await tb.wait_for(lambda: bool(xs.t.observed), "X to get the returned FID", 3000)
        assert hog.t.all_acked
        assert xs.t.fid0 == hog.t.fid0, \
            f"X got FID {xs.t.fid0}, the only free one is {hog.t.fid0}"
        tb.auto_ack = lambda t: False
    # release everything
    tb.auto_ack = lambda t: True
    tb.ack_delay = (0, 20)
    tb.release()
    await tb.drain()
    await tb.check_ids_free()
    await tb.check_counters()


@cocotb.test()
async def qos_tid_exhaustion(dut):
    """NUM_TIDS inline packets unacknowledged use every TID: an inline and a TID-only
    memory transfer wait while a 1xFID transfer goes; each TID released is handed to the
    next waiting transfer in queue order."""
    tb = TB(dut, "qos_tid_exhaustion")
    await tb.start()
    tb.start_lanes()
    p = tb.p
    tb.set_stress(0.3, 0.3, 0.0, (0, 10))
    tb.auto_ack = lambda t: False
    chans = tb.free_channels(p.num_tids)
    hs = await tb.post_many([(pg, ch, Descriptor(size=8, is_inline=1, src_addr=i))
                             for i, (pg, ch) in enumerate(chans)])
    await tb.wait_for(lambda: all(s.t.observed for s in hs), "every TID in use", 10000)
    assert {s.t.observed[0][0] for s in hs} == set(range(p.num_tids))
    (pa, ca), (pb, cb), (pc, cc) = tb.free_channels(3, pages=[15])
    a = await tb.post(pa, ca, Descriptor(size=3, is_inline=1, src_addr=0xABC))
    b = await tb.post(pb, cb, Descriptor(size=1000, dst_addr=12))
    c = await tb.post(pc, cc, Descriptor(size=p.cm_min_bytes, dst_addr=0))
    await tb.wait_for(lambda: bool(c.t.observed), "the 1xFID transfer", 300)
    await tb.cycles(200)
    assert not a.t.observed and not b.t.observed, "TID-only transfer issued without a TID"
    for waiting in (a, b):
        h = hs.pop(tb.rng.randrange(len(hs)))
        tid, seq = h.t.observed[0]
        tb.release(lambda t_, s_, x, h=h: x is h.t)
        await tb.wait_for(lambda: bool(waiting.t.observed), "a released TID to be reused",
                          300)
        assert waiting.t.observed[0][0] == tid, \
            f"got TID {waiting.t.observed[0][0]}, the only free one was {tid}"
        other = b if waiting is a else None
        if other is not None:
            await tb.cycles(50)
            assert not other.t.observed, "second TID-only transfer issued without a TID"
    tb.auto_ack = lambda t: True
    tb.release()
    await tb.drain()
    await tb.check_counters()


@cocotb.test()
async def qos_interleaved_pages(dut):
    """16 descriptors, one per page, posted by 8/16-byte word writes (and 8-byte-beat
    bursts) interleaved across the pages: once in a fixed random order one write at a
    time, once with a writer per page running concurrently. All are accepted and run."""
    tb = TB(dut, "qos_interleaved_pages")
    await tb.start()
    p, rng = tb.p, tb.rng
    tb.set_stress(0.2, 0.2, 0.1, (0, 20))
    for rnd in range(12):
        seqs = []
        for page in range(NPAGES):
            ch = rng.randrange(0, NWCH, 2)
            while (page, ch) in tb.occupied or (page, ch + 1) in tb.occupied:
                ch = rng.randrange(0, NWCH, 2)
            d = gen_desc(rng, p, long_ok=True)
            mode = rng.choice(["words", "words", "beats8"])
            seqs.append([(w, page, ch) for w in post_writes(d, page, ch, mode, rng,
                                                           p.bus_bytes)])
        if rnd % 2 == 0:
            for w, page, ch in interleave(seqs, rng):
                await tb.hwrite(w, f"interleaved post to ({page},{ch})")
                if (page, ch) in tb.slots and tb.slots[(page, ch)].confirmed is None:
                    tb.slots[(page, ch)].confirmed = tb.now
        else:
            async def writer(seq):
                for w, page, ch in seq:
                    await tb.cycles(rng.choice([0, 0, 1, 2]) or 1)
                    await tb.hwrite(w, f"concurrent post to ({page},{ch})")
                tb.slots[(seq[0][1], seq[0][2])].confirmed = tb.now
            tasks = [cocotb.start_soon(writer(s)) for s in seqs]
            for t in tasks:
                await t
        assert sum(1 for s in tb.slots.values() if s.confirmed is not None) >= NPAGES
        if rnd % 3 == 2:
            await tb.drain()
    await tb.drain()
    await tb.check_counters()


@cocotb.test()
async def qos_bad_input(dut):
    """Every refusal of docs/qos.md. Beats (SLVERR, nothing written, nothing changes):
    size below 8 bytes, unaligned, strobes, FIXED/WRAP burst, status / error reason /
    collective / register / unmapped address, BUSY channel, second half of a BUSY long
    descriptor, page assembling another line, line 1 of a refused long descriptor (a
    64-byte descriptor to a BUSY channel pair, a refused line 1, a bad long descriptor:
    both channels' status untouched but for the bad one's ERROR, nothing started).
    Descriptors (SLVERR + ERROR, error reason ERR_BAD_DESC): size 0, size above 2^32,
    inline above 32, inline 9..32 short, long in an odd channel, long with c+1 BUSY, a
    read descriptor with is_inline or notify (D7).
    Borderline descriptors are accepted; a descriptor may be posted over ERROR. A
    transfer in another page runs through it all unharmed.
    (A beat size above the bus width cannot be produced by AxiMaster: not covered.)"""
    from cocotbext.axi import AxiBurstType
    tb = TB(dut, "qos_bad_input")
    await tb.start()
    p, rng = tb.p, tb.rng
    bs = p.block_size
    tb.set_stress(0.2, 0.2, 0.1, (30, 80))
    # background: a 1xFID transfer with slow ACKs in page 5; held short ones in page 3
    bg = await tb.post(5, 10, Descriptor(size=8 * bs, dst_addr=bs // 2, src_addr=0x777,
                                         notify=1, tag=0xB6))
    held_keys = {(3, 21), (3, 30), (3, 24), (3, 26), (3, 27)}
    tb.auto_ack = lambda t: (t.page, t.ch) not in held_keys
    await tb.post(3, 21, Descriptor(size=100, dst_addr=3))
    await tb.post(3, 30, Descriptor(size=200, dst_addr=5, long_desc=1, rkey=1))
    for ch in (24, 26, 27):
        await tb.post(3, ch, Descriptor(size=50 + ch, dst_addr=ch))
    good = Descriptor(size=40, dst_addr=0x100, src_addr=0x200, tag=1)
    line = good.lines()[0]
    a0 = desc_addr(3, 0)

    async def refused(w, why, ch_check=None):
        assert not tb.predict_only(w), f"test bug: {why} would be accepted"
        await tb.hwrite(w, why)
        tb.check()
        if ch_check is not None:
            await tb.poll_single(*ch_check)

    # beat refusals
    await refused(Write(a0, line[:4], 2), "4-byte beat", (3, 0))
    await refused(Write(a0 + 4, line[:8], 3), "unaligned 8-byte write")
    await refused(Write(a0 + 8, line[:16], 4), "16-byte beat at an 8-byte offset", (3, 0))
    await refused(Write(a0, line[:4], 3), "8-byte beat with 4 strobes", (3, 0))
    await refused(Write(a0, line[:8], 3, int(AxiBurstType.FIXED)), "FIXED burst")
    await refused(Write(a0, line[:16], 3, int(AxiBurstType.WRAP)), "WRAP burst", (3, 0))
    for addr, why in ((err_addr(3, 64), "error reason of read channel 64"),
                      (status_addr(3, 127), "single status of read channel 127"),
                      (status_addr(3, 0), "single status"), (coll_addr(3, 1), "collective"),
                      (coll_addr(3, 3), "collective of read channels 96..127"),
                      (reg_addr("ID"), "ID register"), (reg_addr("CNT_DONE"), "counter"),
                      (coll_addr(3, NCH // 32), "unmapped in a page"),
                      (err_addr(3, NCH), "unmapped in a page, after the error reasons"),
                      (reg_addr("CNT_DONE") + 8, "unmapped after the registers"),
                      ((1 << 18) - 32, "top of the address space")):
        await refused(Write(addr, bytes(8), 3), why)
    await refused(Write(desc_addr(3, 21), line, 3), "BUSY channel", (3, 21))
    await refused(Write(desc_addr(3, 31), line, 3), "second half of a BUSY long descriptor",
                  (3, 31))
    # page assembling another line; a refused beat of the line changes nothing
    assert await tb.hwrite(Write(a0, line[:8], 3))
    await refused(Write(desc_addr(3, 2), line[:8], 3), "page assembling channel 0")
    await refused(Write(desc_addr(3, 1), line[:8], 3), "page assembling channel 0")
    assert await tb.hwrite(Write(a0 + 16, line[16:24], 3))
    assert await tb.hwrite(Write(a0 + 8, line[8:16], 3))
    await refused(Write(a0 + 24, b"\xff" * 4, 3), "bad strobes completing the line")
    assert not tb.slots.get((3, 0)), "test bug"
    await tb.hwrite(Write(a0 + 24, line[24:], 3))
    s0 = tb.slots[(3, 0)]
    s0.confirmed = tb.now
    await tb.wait_for(lambda: bool(s0.t.observed), "the descriptor assembled around refusals")
    # line 1 of a long descriptor is expected in c+1: other channels are refused
    ld = Descriptor(size=300, dst_addr=9, long_desc=1, rkey=0x1234)
    l0, l1 = ld.lines()
    assert await tb.hwrite(Write(desc_addr(3, 4), l0, 3))
    await refused(Write(desc_addr(3, 6), line[:8], 3), "while a long descriptor's line 1 "
                  "is expected")
    await refused(Write(desc_addr(3, 4), l0[:8], 3), "line 0 again instead of line 1")
    await tb.hwrite(Write(desc_addr(3, 5), l1, 3))
    tb.slots[(3, 4)].confirmed = tb.now
    # descriptor refusals: SLVERR + ERROR (read once), then IDLE
    bad = [(8, Descriptor(size=0)), (9, Descriptor(size=(1 << 32) + 1)),
           (10, Descriptor(size=(1 << 40) - 1)),
           (12, Descriptor(size=33, is_inline=1, long_desc=1)),
           (14, Descriptor(size=33, is_inline=1)), (15, Descriptor(size=9, is_inline=1)),
           (16, Descriptor(size=32, is_inline=1)), (17, Descriptor(size=100, long_desc=1)),
           (20, Descriptor(size=100, long_desc=1)),        # 21 is BUSY
           # D7: read descriptors with is_inline or notify
           (64, Descriptor(size=100, notify=1)), (65, Descriptor(size=5, is_inline=1)),
           (67, Descriptor(size=8, is_inline=1, notify=1)),
           (68, Descriptor(size=1 << 20, notify=1, long_desc=1, rkey=3))]
    for ch, d in bad:
        for w in post_writes(d, 3, ch, "words", rng, p.bus_bytes):
            if w.addr < desc_addr(3, ch) + C["DESC_LINE_BYTES"]:      # line 0 only
                await tb.hwrite(w, f"bad descriptor in (3,{ch})")
        assert (3, ch) in tb.expect_err, "test bug"
        await tb.poll_single(3, ch)
        await tb.poll_single(3, ch)          # IDLE after the reset-on-read
        assert await tb.read_err(3, ch) == C["ERR_BAD_DESC"]
    # a 64-byte descriptor is accepted or refused as a whole: line 0 refused (c BUSY,
    # c BUSY with a long one, c and c+1 BUSY) -> line 1 refused too, c+1 untouched,
    # nothing starts; in one write and in word writes
    ld = Descriptor(size=3000, dst_addr=11, long_desc=1, rkey=7, tag=0x42)
    for ch, mode in ((24, "desc"), (24, "words"), (30, "desc"), (26, "desc"), (26, "beats8")):
        for w in post_writes(ld, 3, ch, mode, rng, p.bus_bytes):
            await refused(w, f"long descriptor to BUSY channel {ch} ({mode})")
        for c in (ch, ch + 1):
            await tb.poll_single(3, c)           # BUSY (held) or IDLE (no transfer)
    await tb.post(3, 25, Descriptor(size=1, is_inline=1))      # c+1 free after it
    # line 0 good, line 1 refused: the descriptor does not start; the rest of line 1 is
    # refused as well, and c+1 until a beat of the page is accepted
    l0, l1 = ld.lines()
    assert await tb.hwrite(Write(desc_addr(3, 32), l0, 3))
    assert await tb.hwrite(Write(desc_addr(3, 33), l1[:8], 3))
    await refused(Write(desc_addr(3, 33) + 8, l1[8:12], 3), "line 1 with short strobes")
    await refused(Write(desc_addr(3, 33) + 16, l1[16:], 3), "the rest of a refused line 1")
    await refused(Write(desc_addr(3, 33), l1[:8], 3), "c+1 after a refused line 1")
    for c in (32, 33):
        await tb.poll_single(3, c)
    await tb.post(3, 34, Descriptor(size=2, is_inline=1))
    await tb.post(3, 33, Descriptor(size=3, is_inline=1))
    # a bad long descriptor: ERROR (ERR_BAD_DESC) for c, its line 1 refused, c+1 untouched
    for w in post_writes(Descriptor(size=0, long_desc=1, rkey=1), 3, 36, "desc", rng,
                         p.bus_bytes):
        await tb.hwrite(w, "bad long descriptor")
    assert (3, 36) in tb.expect_err and tb.host.skipped > 0, "test bug"
    await tb.poll_single(3, 36)
    await tb.poll_single(3, 37)
    assert await tb.read_err(3, 36) == C["ERR_BAD_DESC"]
    assert await tb.read_err(3, 37) == C["ERR_NONE"]
    # a descriptor over an ERROR channel (not read), then borderline good ones
    for w in post_writes(Descriptor(size=0), 3, 40, "line", rng, p.bus_bytes):
        await tb.hwrite(w, "bad descriptor left in ERROR")
    tb.expect_err.discard((3, 40))
    okd = [(40, Descriptor(size=1, dst_addr=5)),            # over ERROR
           (42, Descriptor(size=8, is_inline=1, src_addr=0x0102030405060708)),
           (44, Descriptor.inline_payload(b"\x09" * 9, dst_node=4)),
           (46, Descriptor.inline_payload(b"\x0a" * 32, notify=1)),
           (48, Descriptor.inline_payload(b"\x0b", long_desc=1)),
           (50, Descriptor(size=33, dst_addr=bs - 1, long_desc=1, rkey=5))]
    for ch, d in okd:
        await tb.post(3, ch, d, mode=rng.choice(["line", "words"]))
    # release the held ones and finish; the background transfer completes unharmed
    tb.auto_ack = lambda t: True
    tb.release()
    await tb.drain()
    assert bg.t.complete and bg.final == ST_DONE
    await tb.check_counters()


@cocotb.test()
async def qos_nack(dut):
    """A NACK retires its block and aborts the transfer: no further block, no control
    packet, status BUSY while a block is in flight and ERROR after, with the reason of the
    transfer's first NACK at ERR_OFFSET (not reset by reads, kept over a later DONE);
    TIDs and FIDs come back (all of them are used afterwards). xfers counts the transfers
    in the core throughout."""
    tb = TB(dut, "qos_nack")
    await tb.start()
    tb.start_lanes()
    p, rng = tb.p, tb.rng
    bs = p.block_size
    tb.set_stress(0.2, 0.2, 0.0, (0, 10))
    tb.auto_ack = lambda t: False
    remote, local = C["ERR_REMOTE_MEM"], C["ERR_LOCAL_MEM"]
    # (name, descriptor, blocks ACKed before the NACK, reason of the first NACK, reason
    # of the NACKs of the other blocks in flight (None: they are ACKed))
    cases = [
        ("1xFID", Descriptor(size=6 * bs, dst_addr=0, notify=1, tag=1), 0, remote, local),
        ("4xFID", Descriptor(size=max(p.mp_min_bytes, 8 * bs), dst_addr=3, multipath=1,
                             notify=1), 0, local, None),
        # two blocks, the first ACKed, the last NACKed (no notify: with notify the control
        # packet legitimately goes after the first ACK)
        ("TID-only", Descriptor(size=200, dst_addr=bs - 100), 1, 0xF, None),
        ("inline", Descriptor(size=5, is_inline=1, notify=1), 0, 0xA, None),
        ("one block", Descriptor(size=100, dst_addr=7), 0, 0x5, None),
        ("4 GiB", Descriptor(size=1 << 32, dst_addr=0, multipath=1, notify=1, tag=9), 0,
         remote, 0x6),
    ]
    for i, (name, d, nack_b, why, why2) in enumerate(cases):
        ch = 2 * i
        s = await tb.post(0, ch, d, mode="desc")
        want = min(p.max_outstanding, s.t.nblocks)
        await tb.wait_for(lambda: len(s.t.observed) == want, f"{name}: first blocks")
        await tb.cycles(20)
        assert len(s.t.observed) == want
        await tb.check_xfers(f"{name}: posted, no ACK")
        if nack_b > 0:        # ACK the blocks before the NACKed one
            tb.release(lambda tid, seq, t, s=s: t is s.t and (tid, seq) in s.t.observed[:nack_b])
            await tb.wait_for(lambda: len(s.t.observed) == min(want + nack_b, s.t.nblocks),
                              f"{name}: blocks after the first ACKs")
        tid, seq = s.t.observed[nack_b]
        tb.release(lambda tid_, seq_, t: (tid_, seq_) == (tid, seq), nack=True, reason=why)
        await tb.cycles(60)
        if s.t.in_flight:
            assert await tb.poll_single(0, ch) == ST_BUSY, f"{name}: not BUSY"
            await tb.check_xfers(f"{name}: NACKed, blocks in flight")
            tb.release(lambda tid_, seq_, t, s=s: t is s.t, nack=why2 is not None,
                       reason=why2 or 0)
        await tb.wait_for(lambda: s.t.complete, f"{name}: the last ACK to be taken")
        await tb.check_xfers(f"{name}: ended")
        for _ in range(50):
            if await tb.poll_single(0, ch) == ST_ERROR:
                break
        assert s.final == ST_ERROR, f"{name}: never ERROR after the NACK"
        assert s.t.nack_reason == why
        for _ in range(2):                    # not reset by the read
            assert await tb.read_err(0, ch) == why, f"{name}: error reason"
        assert await tb.read_err(0, ch + 1) == C["ERR_NONE"]
        await tb.cycles(100)     # nothing more comes out (the scoreboard would complain)
        assert not tb.outs_of(s, "control"), f"{name}: control packet after a NACK"
    # a later transfer that ends DONE leaves the reason of the last ERROR
    tb.auto_ack = lambda t: True
    s = await tb.post(0, 0, Descriptor(size=10, dst_addr=1))
    await tb.drain()
    assert s.final == ST_DONE
    assert await tb.read_err(0, 0) == cases[0][3]
    await tb.check_ids_free()
    await tb.check_counters()


@cocotb.test()
async def qos_stale_ack(dut):
    """ACKs with a wrong sequence number, for TIDs not in flight, and duplicates are
    dropped and counted (CNT_STALE); the transfers they name are not disturbed."""
    tb = TB(dut, "qos_stale_ack")
    await tb.start()
    p = tb.p
    bs = p.block_size
    tb.set_stress(0.1, 0.1, 0.0, (0, 5))
    tb.auto_ack = lambda t: False
    nout = p.max_outstanding
    s = await tb.post(0, 0, Descriptor(size=(nout + 1) * bs, dst_addr=0, notify=1))
    await tb.wait_for(lambda: len(s.t.observed) == nout, "MAX_OUTSTANDING blocks")
    (t0, q0) = s.t.observed[0]
    other_fid = 190 if s.t.fid0 == 191 else 191
    stale = [(t0, q0 + 1, False), (t0, q0 - 1, True), (4 * other_fid, q0, False),
             (1000, 0, False), (p.num_tids - 1, q0, False)]
    for tid, seq, nack in stale:
        tb.send_ack(tid, seq, nack, match=False)
    await tb.cycles(100)
    assert len(s.t.observed) == nout, "stale ACK released a block"
    assert await tb.poll_single(0, 0) == ST_BUSY
    tb.release(lambda tid, seq, t: (tid, seq) == (t0, q0))
    await tb.cycles(30)
    tb.send_ack(t0, q0, match=False)                       # duplicate
    tb.auto_ack = lambda t: True
    tb.release()
    await tb.wait_for(lambda: s.t.complete, "the transfer to finish")
    last = s.t.observed[-1]
    await tb.drain()
    tb.send_ack(*last, match=False)                        # duplicate after DONE
    # inline with a wrong seq first
    tb.auto_ack = lambda t: False
    i = await tb.post(0, 1, Descriptor(size=4, is_inline=1))
    await tb.wait_for(lambda: bool(i.t.observed), "the inline packet")
    tid, seq = i.t.observed[0]
    tb.send_ack(tid, (seq + 7) % (1 << 16), match=False)
    await tb.cycles(50)
    assert await tb.poll_single(0, 1) == ST_BUSY
    tb.auto_ack = lambda t: True
    tb.release()
    await tb.drain()
    assert tb.sb.n["stale"] == len(stale) + 3
    await tb.check_counters()


# ------------------------------------------------------------------ pytest
# (HOST_DATA_W, other parameters, qos_random transfers in the default run / make test-full).
# ext_params: the value PARAMS must show in bits 63:32.
# make test-full's 100,000 transfers (~350,000 outputs) make the 16-bit sequence number
# wrap several times (in the default run the system simulation wraps it:
# tests/sim/test_msg_rate.py); the third row sweeps the other parameters (small blocks,
# deep outstanding window, a small TID pool).
CONFIGS = [
    (256, {}, 4_000, 100_000),
    (128, {"ext_params": 0x030C}, 1_500, 20_000),
    (256, {"block_size": 8192, "max_outstanding": 4, "num_tids": 64,
           "mp_min_bytes": 65536, "ext_params": 0x7F3E_5D1B}, 1_000, 10_000),
]


@pytest.mark.long
@pytest.mark.parametrize("width,extra,n,n_full", CONFIGS,
                         ids=["w256", "w128", "w256-bs8k-mo4-tids64"])
def test_qrdma_qos_engine(width, extra, n, n_full):
    from simrun import full, run

    p = Params(host_data_w=width, **extra).hdl()
    env = {f"P_{k}": str(v) for k, v in p.items()}
    p["BENCH_STAMPS"] = 1     # the stamp tables built; each test turns the mode on or not
    env["P_N"] = str(n_full if full() else n)
    run("qrdma_qos_engine", "test_qrdma_qos_engine", p, extra_env=env)
