# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_tx, the send unit (docs/nic.md "Send unit"), against the packet model
tests/model/net_model.py.

Stand-ins:
  host memory   ReadMem: a 2 MiB random image behind m_axi_ar*/r*, made of cocotbext-axi's
                AR sink and R source channel models (public API). Each burst is answered
                latency() cycles after its AR was taken, several bursts in flight at once (a
                pipelined memory), R in AR order, random AR and R pauses. A beat of a "bad"
                64-byte line comes back with RRESP SLVERR or DECERR.
  network       m_axis_tx_tready at random; the beats are sampled by the test's per-cycle
                monitor, one read per signal and beat (cocotbext-axi's AxiStreamSink reads
                each of the 64 byte lanes of a beat separately, which dominates the run
                time of this test).
  descriptors   s_blk, s_pkt (request class) and s_rsp (response class): cocotbext-axi
                stream sources (define_stream, tests/streams.py) with random idle.
  local NACKs   m_lnack_ready at random; sampled by the monitor.

Checks:
  request class  Every packet is compared beat by beat (tdata of every lane, tkeep, tlast)
                 and by CRC (tuser of the last beat) with the model's packets
                 (nm.block_packets, inline_packet, control_packet) and nm.crc_of. Per VOQ
                 (dst_node mod NUM_NODES) the descriptors are kept in the order the unit took
                 them: the first packet of each must be the oldest not yet started (FIFO
                 service of a queue), every further packet of a block the next one of that
                 block (blocks interleave at packet granularity). Each header's gen is
                 the model's (nm.GenModel, in the order the unit took the descriptors: one
                 more per (dst_node mod NUM_NODES, tid) for a block or inline packet that is
                 not a re-send) and its epoch the input's.
                 A control packet descriptor (not a re-send) carries the seq of a recent
                 block descriptor, queued but perhaps not taken yet: taken before that
                 block, its gen is one more than its counter's (the block's to come).
  read errors    A DATA packet whose source bytes touch a bad line is not sent: the
                 scoreboard skips it (a descriptor whose first packet is dropped starts
                 unseen, so the next one in its VOQ may start after it) and expects one local
                 NACK for it on m_lnack (ack_desc: the block's tid and seq, nack 1, reason
                 ERR_LOCAL_MEM) and one stat_mem_err pulse. Every other packet, including the
                 other packets of the same block, is exact.
  responses      Each is the model's ACK/NACK packet (nm.ack_packet: a NACK carries the
                 request's reason, an ACK reason 0), one beat, in the order they were taken.
                 Order against the request class, from qrdma_tx_rsp and qrdma_tx_asm: a
                 response taken on s_rsp in cycle t is in the response register from t+1,
                 and the assembler starts no request-class job while a response waits (it
                 takes the response at its next packet boundary, never between the beats
                 of a DATA packet); its beat pipeline and output buffer keep the order of
                 its decisions. So the request-class packets that leave before the response
                 are exactly those whose header beat the assembler decided in cycle t or
                 earlier. The test counts those decisions (u_asm.req_go, the one internal
                 signal it reads) and checks that exactly that many request-class packets
                 preceded each response on the link.
  outputs        stat_data_pkt/ctrl_pkt/bytes with each last beat; stat_mem_err per
                 dropped packet; stat_link_stall = tvalid && !tready of the cycle before;
                 stat_slot_stall only after a cycle in which a descriptor waited; occ_*
                 within their bounds (occ_slots also <= the descriptors taken and not
                 finished); busy high from the second cycle after a descriptor or response
                 is taken until the cycle after its last beat (or its local NACK) was
                 taken; at the end busy and every occ_* are 0.
  RTL checks     The assertions of the unit and its blocks (slot pool, VOQs, scheduler,
                 payload buffer, assembler, realigner) stop the simulation, which fails the
                 test (built with --assert).
  reads          At the end the 64-byte source lines of all AR bursts are exactly those of
                 the DATA packets sent, each once per packet: a block descriptor with a run
                 (pkt_first, pkt_num) reads only its run's source bytes.
  At the end nothing may be missing and no stray packet or local NACK may follow. AR bursts
  are checked (ARSIZE 6, INCR, ID 0, no 4 KiB crossing) and R must never be refused.

Tests:
  tx_random        mixed traffic: blocks 1 B .. 64 KiB with random src/dst alignment and
                   64-bit addresses (a third of them a random run of their packets),
                   INLINE (1..32 B), CONTROL, re-sends (a tenth of the blocks and
                   packets), and ACK/NACK responses to random dst_node
                   (16 bits: the mod-NUM_NODES mapping), read blocks (their READ_REQ, its
                   generation from this node's own counter of the TID) and read-response
                   jobs (DATA with resp set, the job's generation and epoch, no m_sent
                   pulse, no local NACK for a failed read: docs/nic.md "Remote reads"),
                   random pause toggling, random memory latency, every stream
                   idle/backpressured
  tx_ctl_first     a block and its control packet, the control packet taken first: it
                   carries the generation its block takes after it
  tx_pause         dst 1 paused from the start: all traffic to dst 0 and 2 (queued behind
                   and between dst-1 descriptors) completes, and responses to dst 1 go out,
                   no request packet to dst 1; then pause dst 1 while it is sending: at most
                   the read window of its payload still leaves; un-pausing lets it complete
  tx_rsp_full      every slot taken by blocks to a paused destination and more descriptors
                   waiting: responses (to that destination too) still all leave; occ_slots,
                   busy and stat_slot_stall show the stall; un-pausing completes everything
  tx_memerr        blocks whose sources touch bad lines (SLVERR, DECERR): in the first, a
                   middle or the last packet, a line read by two packets, random ones;
                   mixed with other traffic, pauses, backpressure on the link and on
                   m_lnack; then the same sources without errors: the unit goes on normally
  tx_partial       block descriptors with a run of their packets (pkt_first, pkt_num):
                   random runs of random blocks and edge runs (one packet, to the end,
                   pkt_first 255), mixed with whole blocks and packets: the run's packets
                   exactly, ask on its last unless that is the block's last
  tx_throughput    8 x 64 KiB blocks (1 KiB-aligned destinations), memory latency 200
                   cycles, no backpressure: every packet is exactly 17 beats and the link
                   has no idle cycle from the end of the first packet to the last beat
                   (bound 0, explained in the test)
  tx_latency       idle unit, memory latency 1: cycles from descriptor or response to first
                   beat for a response, a CONTROL packet and DATA packets, as documented in
                   rtl/tx/qrdma_tx.sv; 100 CONTROL packets back to back leave at one per
                   cycle, and so do 100 responses

Parameter sets (CASES at the bottom): defaults (MAX_PAYLOAD 1024) for all tests;
MAX_PAYLOAD 256 for tx_random and tx_partial; and NUM_NODES 3 (a modulo that is not a bit slice),
MAX_PAYLOAD 4096 (65-beat packets, two bursts per packet), SLOTS 8, READ_WINDOW_BEATS 128
for tx_random, tx_rsp_full and tx_memerr.

Replay: QRDMA_SEED=<seed printed at the start of a test>. Size: P_N descriptors per kind
in tx_random (responses: 2 P_N), P_N / 2 random blocks (1 B .. 16 KiB) in tx_memerr
(P_N = 40 in the default run, 400 with make test-full).
"""
from __future__ import annotations

import collections
import logging
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, Event, ReadOnly, RisingEdge
from cocotbext.axi import AxiReadBus, AxiResp
from cocotbext.axi.axi_channels import AxiARSink, AxiRSource, AxiRTransaction

from seeding import seed_rng
from streams import DataBus, DataSource, DataTransaction, random_pause
from model import net_model as nm
from tools.formats import ACK_DESC, BLOCK_DESC, C, NET_HDR, PKT_DESC, RD_JOB, RSP_DESC

BEAT = nm.BEAT
MEM_SIZE = 1 << 21          # host memory model: addresses are taken mod 2 MiB
JOB_DEPTH = 64              # qrdma_tx's job FIFO (bound of occ_jobs)
RSP_TYPES = (C["NET_ACK"], C["NET_NACK"])


def param(name, default):
    return int(os.environ.get(f"P_{name}", default))


NUM_NODES = param("NUM_NODES", 4)
MAX_PAYLOAD = param("MAX_PAYLOAD", 1024)
WINDOW = param("READ_WINDOW_BEATS", 256)
SLOTS = param("SLOTS", 64)


# ---------------------------------------------------------------------------- memory
class ReadMem:
    """Host memory on an AXI4 read port: bursts answered `latency()` cycles after their AR
    was taken, pipelined, R in AR order. Built from cocotbext-axi's AxiARSink and
    AxiRSource (their pause generators give random AR/R pauses). A beat of a line in
    `bad` (64-byte line index -> RRESP) carries that RRESP. Checks every AR against the
    send unit's rules (ARSIZE 6, INCR, ID 0, no 4 KiB crossing) and records (cycle, addr,
    beats) of each."""

    def __init__(self, dut, clock, reset, now, latency, data):
        bus = AxiReadBus.from_prefix(dut, "m_axi")
        self.ar_channel = AxiARSink(bus.ar, clock, reset)
        self.r_channel = AxiRSource(bus.r, clock, reset)
        self.clock = clock
        self.now = now            # callable: current cycle
        self.latency = latency    # callable: latency of the next burst
        self.mem = data
        self.bad = {}
        self.ars = []
        self.errors = []
        self._due = collections.deque()   # (cycle due, addr, beats) in AR order
        self._ev = Event()
        cocotb.start_soon(self._take())
        cocotb.start_soon(self._answer())

    def read(self, addr, n):
        a = addr % MEM_SIZE
        assert a + n <= MEM_SIZE
        return bytes(self.mem[a:a + n])

    def set_bad(self, addr, resp):
        self.bad[(addr % MEM_SIZE) // BEAT] = resp

    def touches_bad(self, addr, n):
        """Whether bytes addr .. addr+n-1 touch a bad line (the unit reads those lines)."""
        lo = (addr % MEM_SIZE) // BEAT
        hi = (addr % MEM_SIZE + n - 1) // BEAT
        return any(lo <= line <= hi for line in self.bad)

    async def _take(self):
        while True:
            ar = await self.ar_channel.recv()
            addr, beats = int(ar.araddr), int(ar.arlen) + 1
            if int(ar.arsize) != 6 or int(ar.arburst) != 1 or int(ar.arid) != 0:
                self.errors.append(f"AR size {int(ar.arsize)} burst {int(ar.arburst)} "
                                   f"id {int(ar.arid)}")
            if addr % BEAT or (addr % 4096) + beats * BEAT > 4096:
                self.errors.append(f"AR 0x{addr:x} x{beats} misaligned or crosses 4 KiB")
            self.ars.append((self.now(), addr, beats))
            self._due.append((self.now() + self.latency(), addr, beats))
            self._ev.set()

    async def _answer(self):
        while True:
            while not self._due:
                self._ev.clear()
                await self._ev.wait()
            due, addr, n = self._due.popleft()
            if self.now() < due:
                await ClockCycles(self.clock, due - self.now())
            for i in range(n):
                a = (addr + i * BEAT) % MEM_SIZE
                self.r_channel.send_nowait(AxiRTransaction(
                    rid=0, rdata=int.from_bytes(self.mem[a:a + BEAT], "little"),
                    rresp=self.bad.get(a // BEAT, AxiResp.OKAY), rlast=int(i == n - 1)))


# ---------------------------------------------------------------------------- scoreboard
class Item:
    """A descriptor's expected packets: pkts[i] and drop[i] (not sent: read error), the
    index i of the next one, and a text for messages."""

    def __init__(self, pkts, drop, what):
        self.pkts = pkts
        self.drop = drop
        self.i = 0
        self.what = what

    def next(self):
        """Index of the next packet that goes to the link, None when none is left."""
        j = self.i
        while j < len(self.pkts) and self.drop[j]:
            j += 1
        return j if j < len(self.pkts) else None


class Scoreboard:
    """Request class per VOQ: pending[q], descriptors not yet started in acceptance order;
    active[q], blocks started. Responses: rsp, in the order taken, each with the number of
    request-class packets that must precede it. lnacks: (tid, seq) -> local NACKs due."""

    def __init__(self, nq):
        self.nq = nq
        self.pending = [collections.deque() for _ in range(nq)]
        self.active = [[] for _ in range(nq)]
        self.rsp = collections.deque()
        self.lnacks = collections.Counter()
        self.errors = []
        self.packets = 0
        self.req_frames = 0                    # request-class packets received
        self.data_pkts = 0
        self.payload = 0
        self.dropped = 0                       # DATA packets expected to be dropped
        self.dropped_rsp = 0                   # ... of them read responses (no local NACK)
        self.partial = 0                       # blocks with packets dropped and sent
        self.by_node = collections.Counter()   # request-class packets per dst_node
        self.rsp_by_q = collections.Counter()  # responses per dst_node mod nq

    def add(self, q, pkts, drop, what, tid_seq=None):
        for d in drop:
            if d:
                if tid_seq is not None:
                    self.lnacks[tid_seq] += 1
                else:                       # a read response's: no local NACK
                    self.dropped_rsp += 1
                self.dropped += 1
        self.partial += any(drop) and not all(drop)
        if not all(drop):   # a descriptor with nothing on the link constrains nothing
            self.pending[q].append(Item(pkts, drop, what))

    def add_rsp(self, pkt, what, need):
        self.rsp.append((pkt, what, need))

    def lnack(self, v):
        f = ACK_DESC.unpack(v)
        key = (f["tid"], f["seq"])
        want = ACK_DESC.pack(tid=f["tid"], seq=f["seq"], nack=1, reason=C["ERR_LOCAL_MEM"])
        if v != want:
            self.errors.append(f"local NACK 0x{v:x} != 0x{want:x} ({f})")
        elif not self.lnacks[key]:
            self.errors.append(f"local NACK for tid {key[0]} seq {key[1]}: no packet of it "
                               f"dropped (or one NACK too many)")
        else:
            self.lnacks[key] -= 1
            if not self.lnacks[key]:
                del self.lnacks[key]

    def descriptors_open(self):
        """Request-class descriptors taken and not finished: packets still to come on the
        link, or local NACKs (at least one per descriptor with a dropped packet)."""
        return (sum(len(p) for p in self.pending) + sum(len(a) for a in self.active)
                + sum(self.lnacks.values()))

    def outstanding(self, q=None):
        """Request-class descriptors with packets still to come (VOQ q, or all); for all,
        also the responses and local NACKs still due."""
        qs = range(self.nq) if q is None else [q]
        n = sum(len(self.pending[k]) + len(self.active[k]) for k in qs)
        if q is None:
            n += len(self.rsp) + sum(self.lnacks.values())
        return n

    def check(self, beats, tusers):
        """beats: [(tdata, tkeep)] of a received frame; tusers: tuser of every beat."""
        hdr = NET_HDR.unpack(beats[0][0])
        crc = nm.crc_of(beats)
        if tusers[-1] != crc or any(tusers[:-1]):
            self.errors.append(f"tuser {[hex(t) for t in tusers]} != CRC 0x{crc:08x}")
        self.packets += 1
        if hdr["ptype"] in RSP_TYPES:
            self._check_rsp(hdr, beats, crc)
        else:
            self._check_req(hdr, beats, crc)
        return hdr

    def _check_rsp(self, hdr, beats, crc):
        self.rsp_by_q[hdr["dst_node"] % self.nq] += 1
        if not self.rsp:
            self.errors.append(f"unexpected response {hdr}")
            return
        p, what, need = self.rsp.popleft()
        if p.beats != beats:
            eh = p.header()
            diff = {k: (hdr[k], v) for k, v in eh.items() if hdr[k] != v}
            self.errors.append(f"response {what}: header diff (got, want) {diff}, "
                               f"{len(beats)} beats")
        if self.req_frames != need:
            self.errors.append(f"response {what} after {self.req_frames} request-class "
                               f"packets, want {need} (those started when it was taken)")

    def _check_req(self, hdr, beats, crc):
        q = hdr["dst_node"] % self.nq
        self.by_node[hdr["dst_node"]] += 1
        self.req_frames += 1
        # candidates: the next packet of every started block; the oldest pending
        # descriptor, and the ones after it while the ones before started unseen (their
        # first packet dropped)
        cands = [(it, None) for it in self.active[q]]
        for k, it in enumerate(self.pending[q]):
            cands.append((it, k))
            if not it.drop[0]:
                break
        for it, k in cands:
            j = it.next()
            p = it.pkts[j]
            if p.beats == beats:
                if p.crc != crc:
                    self.errors.append(f"model CRC 0x{p.crc:08x} != crc_of 0x{crc:08x}")
                it.i = j + 1
                if k is not None:
                    for _ in range(k + 1):
                        self.active[q].append(self.pending[q].popleft())
                if it.next() is None:
                    self.active[q].remove(it)
                if hdr["ptype"] == C["NET_DATA"]:
                    self.data_pkts += 1
                    self.payload += hdr["len"]
                elif hdr["ptype"] == C["NET_INLINE"]:
                    self.payload += hdr["len"]
                return
        self.errors.append(self._explain(q, hdr, beats, cands))

    def _explain(self, q, hdr, beats, cands):
        msg = [f"unexpected packet in VOQ {q}: {hdr} ({len(beats)} beats)"]
        for it, k in cands:
            p = it.pkts[it.next()]
            eh = p.header()
            diff = {k: (hdr[k], v) for k, v in eh.items() if hdr[k] != v}
            msg.append(f"  candidate {it.what} pkt {it.next()} "
                       f"({'active' if k is None else f'pending {k}'}):"
                       f" header diff (got, want) {diff}, beats {len(p.beats)}")
            if not diff:
                for i, (a, b) in enumerate(zip(beats, p.beats)):
                    if a != b:
                        msg.append(f"    beat {i}: keep got {a[1]:016x} want {b[1]:016x};"
                                   f" data xor {a[0] ^ b[0]:x}")
                        break
        return "\n".join(msg)


# The unit's generation counters are not reset: they go on from one test to the next of
# the same simulation, and so does their model.
GENS = nm.GenModel(NUM_NODES)


# ---------------------------------------------------------------------------- testbench
class TB:
    def __init__(self, dut, name):
        self.dut = dut
        self.log = cocotb.log
        self.rng = seed_rng(name)
        # the cocotbext-axi models log under the DUT's logger
        logging.getLogger(f"cocotb.{dut._name}").setLevel(logging.WARNING)
        self.cycle = 0
        self.node_id = self.rng.randrange(1 << 16)
        self.epoch = self.rng.randrange(256)
        self.sb = Scoreboard(NUM_NODES)
        self.lat = (1, 40)       # memory latency range of the next burst, cycles
        self.stall = 0.0         # link backpressure: m_axis_tx_tready low with this probability
        self.lnack_stall = 0.0   # the same for m_lnack_ready
        self.mon_errors = []
        self.busy_errors = []
        self.beat_log = []       # (cycle, tlast) of every beat taken
        self.first_beat = []     # cycle of the first beat of every packet
        self.accepted = []       # (cycle, kind) of every descriptor / response taken
        self.ar_cycles = []      # cycle of every AR handshake
        self.r_cycles = []       # cycle of every R beat
        self.stats = collections.Counter()
        self.occ = {}            # occ_* outputs in the current cycle
        self.req_pushed = 0      # request-class headers the assembler has decided
        self.seq = 0xFFFF        # the first descriptor's seq is 0, as the engine's
        self.blk_seqs = collections.deque([0xFFFF], maxlen=32)  # recent new blocks' seqs
        self.gen = GENS          # the generations, in the order the unit takes
        self.blk_taken = 0xFFFF  # seq of the last new block taken
        self.lines_due = collections.Counter()   # source lines the DATA packets read

    async def start(self):
        d = self.dut
        cocotb.start_soon(Clock(d.clk, 5, unit="ns").start())
        d.rst.value = 1
        d.node_id.value = self.node_id
        d.epoch.value = self.epoch
        d.tx_pause.value = 0
        d.m_axis_tx_tready.value = 0
        d.m_lnack_ready.value = 0
        d.m_axi_arready.value = 0
        d.m_axi_rvalid.value = 0
        self.ram = ReadMem(d, d.clk, d.rst, lambda: self.cycle,
                           lambda: self.rng.randint(*self.lat),
                           bytearray(self.rng.randbytes(MEM_SIZE)))
        self.blk = DataSource(DataBus.from_prefix(d, "s_blk"), d.clk, d.rst)
        self.pkt = DataSource(DataBus.from_prefix(d, "s_pkt"), d.clk, d.rst)
        self.rsp = DataSource(DataBus.from_prefix(d, "s_rsp"), d.clk, d.rst)
        self.rrsp = DataSource(DataBus.from_prefix(d, "s_rrsp"), d.clk, d.rst)
        cocotb.start_soon(self._ready())
        cocotb.start_soon(self._monitor())
        for _ in range(5):
            await RisingEdge(d.clk)
        d.rst.value = 0

    def set_random(self, idle, stall, ar_pause, r_pause, lnack_stall=None):
        for s in (self.blk, self.pkt, self.rsp, self.rrsp):
            random_pause(s, self.rng, idle)
        self.stall = stall
        self.lnack_stall = stall if lnack_stall is None else lnack_stall
        random_pause(self.ram.ar_channel, self.rng, ar_pause)
        random_pause(self.ram.r_channel, self.rng, r_pause)

    # -------------------------------------------------------------- descriptors
    def src_addr(self, size, align=None):
        off = self.rng.randrange(MEM_SIZE - size + 1)
        if align:
            off -= off % align
        return (self.rng.getrandbits(43) << 21) | off

    def dst_addr(self, size, align=None):
        a = self.rng.randrange((1 << 64) - (1 << 17) - size)
        if align:
            a -= a % align
        return a

    def next_seq(self):
        self.seq = (self.seq + 1) & 0xFFFF
        return self.seq

    def send_block(self, dst_node, size, src=None, dst=None, run_p=0.0, resend_p=0.0,
                   read=False, **kw):
        """A block descriptor of a write channel (read: of a read channel, docs/nic.md
        "Remote reads"); with probability run_p a random run of its packets (pkt_first,
        pkt_num) instead of the whole block, with probability resend_p marked as a
        re-send (it keeps its TID's generation)."""
        r = self.rng
        f = dict(src_addr=self.src_addr(size) if src is None else src,
                 dst_addr=self.dst_addr(size) if dst is None else dst,
                 dst_node=dst_node, pd=r.randrange(16), tid=r.randrange(1024),
                 seq=self.next_seq(), size=size, cm=r.randrange(2), chained=r.randrange(2),
                 has_next=r.randrange(2), notify=r.randrange(2), last=r.randrange(2),
                 fid=r.randrange(256), path=r.randrange(4),
                 xfer=r.randrange(2048) & ~C["WR_CH_PER_PAGE"],    # a write channel's
                 block=r.randrange(1 << 20), rkey=r.getrandbits(32), lkey=r.getrandbits(32),
                 # a registered transfer's (its xseq over lkey's bits; a read's: ignored)
                 registered=int(r.random() < 0.3))
        if r.random() < run_p:
            f.update(random_run(r, len(nm.packetize(f["dst_addr"], size, MAX_PAYLOAD))))
        f["resend"] = int(r.random() < resend_p)
        if read:
            f["xfer"] |= C["WR_CH_PER_PAGE"]
        f.update(kw)
        if not f["resend"]:
            self.blk_seqs.append(f["seq"])
        self.blk.send_nowait(DataTransaction(data=BLOCK_DESC.pack(**f)))
        return f

    def send_pkt(self, dst_node, control, resend_p=0.0, **kw):
        """An inline or control packet descriptor. A control packet carries the seq of one
        of the recent blocks queued (its last block's, as the engine's), which the unit may
        not have taken yet: it waits for it."""
        r = self.rng
        n = 0 if control else r.randint(1, 32)
        seq = (r.choice(list(self.blk_seqs)[-2:] if r.random() < 0.5 else self.blk_seqs)
               if control else self.next_seq())
        f = dict(kind=C["PKT_CONTROL"] if control else C["PKT_INLINE"], dst_node=dst_node,
                 pd=r.randrange(16), tid=r.randrange(1024), seq=seq, len=n,
                 dst_addr=r.getrandbits(64), xfer=r.randrange(2048),
                 size=r.getrandbits(33) if control else n, tag=r.getrandbits(32),
                 blocks=r.getrandbits(21), notify=r.randrange(2),
                 payload=r.getrandbits(256),   # bytes past len must not reach the packet
                 resend=int(r.random() < resend_p),
                 rkey=r.getrandbits(32))       # a control packet does not carry it
        if control and r.random() < 0.3:       # a registered transfer's (xseq in payload);
            f["registered"] = 1                # its REGISTER packet (announce) or CONTROL
            f["announce"] = int(r.random() < 0.5 and not f["resend"])
        if (control or n <= C["STAMP_INLINE_MAX"]) and r.random() < 0.3:
            # benchmark mode: the packet carries the descriptor's t_post (not a REGISTER)
            f["stamped"] = 1
            f["payload"] &= ~(0xFFFF << (PKT_DESC.field("t_post").lsb - PKT_DESC.field("payload").lsb))
            f["t_post"] = r.getrandbits(16)
        f.update(kw)
        self.pkt.send_nowait(DataTransaction(data=PKT_DESC.pack(**f)))

    def send_rrsp(self, dst_node, size, src=None, dst=None, run_p=0.0):
        """A read-response job (RD_JOB, docs/nic.md "Remote reads"): a block of another
        node's read, with that node's TID, seq, generation and epoch."""
        r = self.rng
        f = dict(src_addr=self.src_addr(size) if src is None else src,
                 dst_addr=self.dst_addr(size) if dst is None else dst,
                 dst_node=dst_node, pd=r.randrange(16), tid=r.randrange(1024),
                 seq=r.randrange(1 << 16), size=size, path=r.randrange(4),
                 xfer=r.randrange(2048), rkey=r.getrandbits(32), gen=r.randrange(1 << 16),
                 epoch=r.randrange(256))
        if r.random() < run_p:
            f.update(random_run(r, len(nm.packetize(f["dst_addr"], size, MAX_PAYLOAD))))
        self.rrsp.send_nowait(DataTransaction(data=RD_JOB.pack(**f)))
        return f

    def send_rsp(self, dst_node):
        """A response request; an ACK's reason is random too (the packet must carry 0)."""
        r = self.rng
        self.rsp.send_nowait(DataTransaction(data=RSP_DESC.pack(
            dst_node=dst_node, tid=r.randrange(1024), seq=self.next_seq(), nack=r.randrange(2),
            reason=r.randrange(16))))

    def _accept(self, kind, v):
        """A descriptor or response was taken by the unit: queue what it must produce."""
        if kind == "blk" and (f := BLOCK_DESC.unpack(v))["xfer"] & C["WR_CH_PER_PAGE"]:
            # a read channel's block: one READ_REQ; its generation counts in this node's
            # own counter of the TID (docs/nic.md "Remote reads")
            if not f["resend"]:
                self.blk_taken = f["seq"]
            gen = self.gen.take(self.node_id, f["tid"], not f["resend"])
            self.stats["read_blk"] += 1
            self.sb.add(f["dst_node"] % NUM_NODES,
                        [nm.read_req_packet(f, self.node_id, gen, self.epoch)], [False],
                        f"read block seq {f['seq']} size {f['size']}", (f["tid"], f["seq"]))
        elif kind == "blk":
            if not f["resend"]:
                self.blk_taken = f["seq"]
            gen = self.gen.take(f["dst_node"], f["tid"], not f["resend"])
            pk = nm.block_packets(f, self.ram.read, self.node_id, MAX_PAYLOAD, gen, self.epoch)
            parts = nm.packetize(f["dst_addr"], f["size"], MAX_PAYLOAD)
            run = nm.block_run(f, len(parts))
            drop = [self.ram.touches_bad(f["src_addr"] + parts[i][0], parts[i][1]) for i in run]
            for i in run:   # the 64-byte source lines each packet of the run reads
                a = f["src_addr"] + parts[i][0]
                self.lines_due.update(range(a // BEAT, (a + parts[i][1] - 1) // BEAT + 1))
            self.stats["run_blocks"] += len(run) != len(parts)
            what = (f"block seq {f['seq']} size {f['size']} src 0x{f['src_addr']:x} "
                    f"dst 0x{f['dst_addr']:x} packets {run.start}..{run.stop - 1} of "
                    f"{len(parts)}")
            self.sb.add(f["dst_node"] % NUM_NODES, pk, drop, what, (f["tid"], f["seq"]))
        elif kind == "rrsp":
            # a read response: the job's generation and epoch, no counter of this node
            f = RD_JOB.unpack(v)
            blk = nm.response_block(f)
            pk = nm.block_packets(blk, self.ram.read, self.node_id, MAX_PAYLOAD, f["gen"],
                                  f["epoch"])
            parts = nm.packetize(f["dst_addr"], f["size"], MAX_PAYLOAD)
            run = nm.block_run(blk, len(parts))
            drop = [self.ram.touches_bad(f["src_addr"] + parts[i][0], parts[i][1]) for i in run]
            for i in run:
                a = f["src_addr"] + parts[i][0]
                self.lines_due.update(range(a // BEAT, (a + parts[i][1] - 1) // BEAT + 1))
            self.stats["read_rsp"] += 1
            self.sb.add(f["dst_node"] % NUM_NODES, pk, drop,
                        f"read response tid {f['tid']} size {f['size']}")
        elif kind == "pkt":
            f = PKT_DESC.unpack(v)
            if f["kind"] == C["PKT_CONTROL"] and f["announce"]:
                # a REGISTER packet: no generation, no timer (no m_sent pulse)
                pk = nm.register_packet(f, self.node_id)
                self.stats["register"] += 1
            elif f["kind"] == C["PKT_CONTROL"]:
                # a control packet taken before its block (its seq) carries the
                # generation that block will take
                early = not f["resend"] and (self.blk_taken - f["seq"]) % 65536 >= 32768
                self.stats["ctl_early"] += early
                gen = (self.gen.take(f["dst_node"], f["tid"], False) + early) & 0xFFFF
                pk = nm.control_packet(f, self.node_id, gen, self.epoch)
            else:
                gen = self.gen.take(f["dst_node"], f["tid"], not f["resend"])
                pk = nm.inline_packet(f, self.node_id, gen, self.epoch)
            self.sb.add(f["dst_node"] % NUM_NODES, [pk], [False],
                        f"pkt seq {f['seq']} kind {f['kind']}")
        else:
            f = RSP_DESC.unpack(v)
            pk = nm.ack_packet(f["dst_node"], self.node_id, f["tid"], f["seq"],
                               bool(f["nack"]), f["reason"])
            # every request-class header pushed up to this cycle goes before it
            self.sb.add_rsp(pk, f"seq {f['seq']} nack {f['nack']}", self.req_pushed)
            self.stats["rsp_overtake"] += self.occ["occ_jobs"] > 0

    # -------------------------------------------------------------- monitors
    async def _ready(self):
        """Random backpressure on the link and on the local NACK port."""
        d = self.dut
        rng = self.rng
        while True:
            await RisingEdge(d.clk)
            d.m_axis_tx_tready.value = int(rng.random() >= self.stall)
            d.m_lnack_ready.value = int(rng.random() >= self.lnack_stall)

    async def _monitor(self):
        """Once per cycle (ReadOnly): descriptors and responses taken, link beats and
        frames, stat pulses, local NACKs, AR/R, and the state outputs."""
        d = self.dut
        err = self.mon_errors
        frame = []       # (tdata, tkeep, tuser) of the packet on the link
        cur = None       # (is_data, len) of that packet
        link_wait = 0    # the cycle before: tvalid && !tready
        desc_wait = 0    # the cycle before: a descriptor waited
        open_hist = collections.deque([0, 0], maxlen=2)   # outstanding after the 2 last cycles
        while True:
            await RisingEdge(d.clk)
            await ReadOnly()
            self.cycle += 1
            c = self.cycle
            if d.rst.value:
                continue
            # registered outputs: state of the cycle(s) before
            ls, ss = int(d.stat_link_stall.value), int(d.stat_slot_stall.value)
            if ls != link_wait:
                err.append(f"cycle {c}: stat_link_stall {ls}, link stalled before: {link_wait}")
            if ss and not desc_wait:
                err.append(f"cycle {c}: stat_slot_stall without a waiting descriptor")
            self.stats["slot_stall"] += ss
            self.stats["link_stall"] += ls
            busy = int(d.busy.value)
            if open_hist[0] and not busy:
                self.busy_errors.append(f"cycle {c}: busy low with work outstanding since "
                                        f"cycle {c - 2}")
            self.occ = occ = {k: int(getattr(d, k).value)
                              for k in ("occ_slots", "occ_jobs", "occ_pay", "occ_rsp")}
            limit = {"occ_slots": min(SLOTS, self.sb.descriptors_open()),
                     "occ_jobs": JOB_DEPTH, "occ_pay": WINDOW, "occ_rsp": 1}
            for k, v in occ.items():
                if v > limit[k]:
                    err.append(f"cycle {c}: {k} {v} > {limit[k]}")
            # request-class headers decided (before the responses taken now)
            if int(d.u_asm.req_go.value):
                self.req_pushed += 1
            if int(d.m_sent_valid.value):
                self.stats["sent"] += 1
            taken = []
            desc_wait = 0
            for kind, valid, ready, data in (("blk", d.s_blk_valid, d.s_blk_ready, d.s_blk_data),
                                             ("pkt", d.s_pkt_valid, d.s_pkt_ready, d.s_pkt_data),
                                             ("rrsp", d.s_rrsp_valid, d.s_rrsp_ready,
                                              d.s_rrsp_data)):
                if valid.value:
                    if ready.value:
                        taken.append((kind, int(data.value)))
                    else:
                        desc_wait = 1
            if len(taken) > 1:
                # the unit takes one descriptor per cycle (its VOQs have one enqueue port)
                err.append(f"cycle {c}: {len(taken)} descriptors taken at once")
            if d.s_rsp_valid.value and d.s_rsp_ready.value:
                taken.append(("rsp", int(d.s_rsp_data.value)))
            for kind, v in taken:
                self.accepted.append((c, kind))
                self._accept(kind, v)
            if d.m_axi_arvalid.value and d.m_axi_arready.value:
                self.ar_cycles.append(c)
            if d.m_axi_rvalid.value:
                self.r_cycles.append(c)
                if not d.m_axi_rready.value:
                    err.append(f"cycle {c}: R refused")
            if d.m_lnack_valid.value and d.m_lnack_ready.value:
                self.stats["lnack"] += 1
                self.sb.lnack(int(d.m_lnack_data.value))
            self.stats["mem_err"] += int(d.stat_mem_err.value)
            tvalid = bool(d.m_axis_tx_tvalid.value)
            fire = tvalid and bool(d.m_axis_tx_tready.value)
            link_wait = int(tvalid and not fire)
            sd, sc, sb = int(d.stat_data_pkt.value), int(d.stat_ctrl_pkt.value), int(d.stat_bytes.value)
            last = 0
            if fire:
                last = int(d.m_axis_tx_tlast.value)
                h = int(d.m_axis_tx_tdata.value)
                frame.append((h, int(d.m_axis_tx_tkeep.value), int(d.m_axis_tx_tuser.value)))
                self.beat_log.append((c, last))
                if cur is None:
                    self.first_beat.append(c)
                    ptype = (h >> NET_HDR.field("ptype").lsb) & 0xF
                    ln = (h >> NET_HDR.field("len").lsb) & ((1 << NET_HDR.field("len").width) - 1)
                    cur = (ptype == C["NET_DATA"], ln)
                if last:
                    want = (int(cur[0]), int(not cur[0]), cur[1])
                    if (sd, sc, sb) != want:
                        err.append(f"cycle {c}: stats {(sd, sc, sb)} != {want}")
                    self.stats["data"] += sd
                    self.stats["ctrl"] += sc
                    self.stats["bytes"] += sb
                    self.sb.check([(t, k) for t, k, _ in frame], [u for _, _, u in frame])
                    frame, cur = [], None
            if not last and (sd or sc or sb):
                err.append(f"cycle {c}: stat pulse without a last beat")
            open_hist.append(self.sb.outstanding())

    # -------------------------------------------------------------- end
    def inputs_queued(self):
        return not (self.blk.idle() and self.pkt.idle() and self.rsp.idle())

    async def wait_done(self, max_cycles, q=None):
        """Until every descriptor and response is taken and everything of VOQ q (all:
        None; then also every response and local NACK) is out."""
        start = self.cycle
        while self.sb.outstanding(q) or self.inputs_queued():
            await ClockCycles(self.dut.clk, 20)
            assert not self.sb.errors, self.sb.errors[0]
            assert not self.mon_errors, self.mon_errors[0]
            if self.cycle - start > max_cycles:
                left = [(k, [it.what for it in self.sb.pending[k]][:3], len(self.sb.active[k]))
                        for k in range(NUM_NODES)]
                raise AssertionError(f"timeout after {max_cycles} cycles; left per VOQ: {left};"
                                     f" responses {len(self.sb.rsp)}, local NACKs"
                                     f" {dict(self.sb.lnacks)}")

    async def finish(self):
        """Everything sent: no stray packet follows, every check is clean, the unit idle."""
        d = self.dut
        nbeats, nlnack = len(self.beat_log), self.stats["lnack"]
        await ClockCycles(d.clk, 400)
        self.log.info("%d packets (%d DATA, %d payload bytes, %d responses, %d of them taken "
                      "while request packets waited for the assembler), %d DATA packets "
                      "dropped, in %d cycles, %d ARs", self.sb.packets, self.sb.data_pkts,
                      self.sb.payload, self.sb.packets - self.sb.req_frames,
                      self.stats["rsp_overtake"], self.sb.dropped, self.cycle,
                      len(self.ram.ars))
        assert len(self.beat_log) == nbeats, "stray packets after the last expected one"
        assert self.stats["lnack"] == nlnack, "stray local NACKs"
        assert not self.sb.errors, "\n".join(self.sb.errors[:5])
        assert not self.mon_errors, "\n".join(self.mon_errors[:5])
        assert not self.ram.errors, "\n".join(self.ram.errors[:5])
        # the source lines read are exactly those of the packets sent (a run of a block
        # reads only its packets' bytes), each once per packet
        read = collections.Counter(line for _, a, n in self.ram.ars
                                   for line in range(a // BEAT, a // BEAT + n))
        extra, missing = read - self.lines_due, self.lines_due - read
        assert not extra and not missing, \
            f"source lines read but not due: {sorted(extra)[:5]}, due but not read: " \
            f"{sorted(missing)[:5]}"
        assert self.sb.outstanding() == 0
        assert self.stats["data"] == self.sb.data_pkts
        assert self.stats["data"] + self.stats["ctrl"] == self.sb.packets
        assert self.stats["bytes"] == self.sb.payload
        assert self.stats["mem_err"] == self.sb.dropped \
            == self.stats["lnack"] + self.sb.dropped_rsp, \
            f"stat_mem_err {self.stats['mem_err']}, dropped {self.sb.dropped} " \
            f"({self.sb.dropped_rsp} read responses), local NACKs {self.stats['lnack']}"
        # one m_sent pulse per descriptor of this node (its last packet picked), none for
        # a read response (no timer of this node) or a REGISTER packet (not tracked)
        own = sum(k in ("blk", "pkt") for _, k in self.accepted) - self.stats["register"]
        assert self.stats["sent"] == own, (self.stats["sent"], own)
        state = {k: int(getattr(d, k).value)
                 for k in ("busy", "occ_slots", "occ_jobs", "occ_pay", "occ_rsp")}
        assert not any(state.values()), f"not idle at the end: {state}"
        assert not self.busy_errors, \
            f"{len(self.busy_errors)} cycles: " + "\n".join(self.busy_errors[:5])


def random_run(rng, n):
    """A run of a block of n packets: pkt_first < min(n, 256), pkt_num 0 (to the end)
    or 1 .. min(n - pkt_first, 256); a third of them a single packet."""
    first = rng.randrange(min(n, 256))
    c = rng.randrange(3)
    num = (0, 1, rng.randint(1, min(n - first, 256)))[c]
    return {"pkt_first": first, "pkt_num": num}


def block_size(rng, top=65536):
    """1 B .. top: a third tiny (<= 2 beats), a third up to 4 KiB, a third up to top."""
    c = rng.randrange(3)
    hi = (128, 4096, top)[c]
    return rng.randint(1, hi)


async def pause_toggler(tb):
    while True:
        await ClockCycles(tb.dut.clk, tb.rng.randint(20, 400))
        tb.dut.tx_pause.value = tb.rng.getrandbits(NUM_NODES) & tb.rng.getrandbits(NUM_NODES)


# ---------------------------------------------------------------------------- tests
@cocotb.test()
async def tx_random(dut):
    tb = TB(dut, "tx_random")
    await tb.start()
    rng = tb.rng
    n = param("N", 40)
    tb.set_random(idle=0.3, stall=0.3, ar_pause=0.2, r_pause=0.1)

    async def phaser():   # phases of randomness: idle, backpressure, pauses, latency
        while True:
            await ClockCycles(dut.clk, rng.randint(200, 3000))
            tb.set_random(idle=rng.choice([0, 0.3, 0.8]), stall=rng.choice([0, 0.3, 0.7]),
                          ar_pause=rng.choice([0, 0.3]), r_pause=rng.choice([0, 0.2]))
            random_pause(tb.rsp, rng, rng.choice([0, 0.5, 0.9]))
            tb.lat = rng.choice([(1, 5), (1, 40), (50, 250)])

    toggler = cocotb.start_soon(pause_toggler(tb))
    phases = cocotb.start_soon(phaser())
    kinds = (["blk"] * n + ["inline"] * n + ["control"] * n + ["rsp"] * (2 * n)
             + ["rrsp"] * (n // 2) + ["rblk"] * (n // 2))
    rng.shuffle(kinds)
    i = 0
    while i < len(kinds):   # bursts of descriptors with gaps, so queues fill and drain
        for k in kinds[i:i + rng.randint(1, 30)]:
            node = rng.randrange(1 << 16)
            if k == "blk":
                tb.send_block(node, block_size(rng), run_p=0.3, resend_p=0.1)
            elif k == "rrsp":
                tb.send_rrsp(node, block_size(rng), run_p=0.3)
            elif k == "rblk":
                tb.send_block(node, block_size(rng), run_p=0.3, resend_p=0.1, read=True)
            elif k == "rsp":
                tb.send_rsp(node)
            else:
                tb.send_pkt(node, k == "control", resend_p=0.1)
            i += 1
        await ClockCycles(dut.clk, rng.choice([1, 10, 300, 2000]))
    # a few blocks at the edges: 1 byte, one max packet, 64 KiB, lanes 63 -> 0 and 0 -> 63
    for size, sa, da in ((1, 63, 0), (MAX_PAYLOAD, 0, 0), (MAX_PAYLOAD, 1, 63),
                         (65536, 63, 1), (65536, 0, 0), (65, 63, 63)):
        src = tb.src_addr(size + 64, 64) + sa
        dst = tb.dst_addr(size + 64, 64) + da
        tb.send_block(rng.randrange(1 << 16), size, src=src, dst=dst)
    await tb.wait_done(max_cycles=400_000)
    tb.log.info("control packets taken before their block: %d", tb.stats["ctl_early"])
    toggler.cancel()
    phases.cancel()
    dut.tx_pause.value = 0
    await tb.finish()


@cocotb.test()
async def tx_partial(dut):
    """Block descriptors that send a run of their packets (pkt_first, pkt_num): random
    runs of random blocks, and at the edges (the last packet alone, the first alone, all
    but the first, all but the last, pkt_first 255 of a block of more than 256 packets),
    mixed with whole blocks and packets, under idle and backpressure: every packet is the
    whole block's packet of that index (header, payload), ask on the run's last when it is
    not the block's last, and the source lines read are exactly the run's (finish)."""
    tb = TB(dut, "tx_partial")
    await tb.start()
    rng = tb.rng
    n = param("N", 40)
    tb.set_random(idle=0.3, stall=0.3, ar_pause=0.2, r_pause=0.1)
    mp = MAX_PAYLOAD
    for size, sa, da, first, num in ((4 * mp, 0, 0, 3, 0), (4 * mp, 5, 7, 0, 1),
                                     (3 * mp + 1, 63, 1, 1, 0), (3 * mp, 0, 60, 0, 3),
                                     (2 * mp + 10, 8, 9, 1, 1), (5 * mp, 1, 2, 1, 3),
                                     (300 * mp, 0, 0, 255, 0), (300 * mp, 3, 0, 255, 2)):
        if size >= 1 << 17:   # the size field's range
            continue
        src = tb.src_addr(size + 64, 64) + sa
        dst = tb.dst_addr(size + mp, mp) + da
        tb.send_block(rng.randrange(1 << 16), size, src=src, dst=dst, pkt_first=first,
                      pkt_num=num)
    for _ in range(n):
        tb.send_block(rng.randrange(1 << 16), block_size(rng), run_p=0.8)
        if rng.random() < 0.3:
            tb.send_pkt(rng.randrange(1 << 16), rng.random() < 0.5)
        if rng.random() < 0.2:
            await ClockCycles(dut.clk, rng.choice([10, 300, 1000]))
    await tb.wait_done(max_cycles=400_000)
    tb.log.info("%d blocks sent as a run of their packets", tb.stats["run_blocks"])
    # (the edge cases above: at least 5 of them are runs shorter than their block, at any
    # MAX_PAYLOAD; a random run may be its whole block)
    assert tb.stats["run_blocks"] >= 5
    await tb.finish()


@cocotb.test()
async def tx_ctl_first(dut):
    """A notifying transfer's last block and its control packet, the block's stream held
    until the unit has taken the control packet: the control packet carries the generation
    the block takes after it (the header check), for a fresh TID and one used before."""
    tb = TB(dut, "tx_ctl_first")
    await tb.start()
    tb.set_random(idle=0, stall=0.1, ar_pause=0, r_pause=0)
    for _ in range(4):
        node, tid = tb.rng.randrange(1 << 16), tb.rng.randrange(1024)
        for _ in range(2):   # the TID's first use here, then its next
            random_pause(tb.blk, tb.rng, 1)
            f = tb.send_block(node, tb.rng.randint(1, 4000), tid=tid)
            n = len(tb.accepted)
            tb.send_pkt(node, True, tid=tid, seq=f["seq"], announce=0)
            for _ in range(200):
                await RisingEdge(dut.clk)
                if any(k == "pkt" for _, k in tb.accepted[n:]):
                    break
            random_pause(tb.blk, tb.rng, 0)
            await tb.wait_done(max_cycles=20_000)
    assert tb.stats["ctl_early"] == 8, tb.stats["ctl_early"]
    await tb.finish()


@cocotb.test()
async def tx_pause(dut):
    tb = TB(dut, "tx_pause")
    await tb.start()
    rng = tb.rng
    tb.set_random(idle=0.2, stall=0.2, ar_pause=0.1, r_pause=0.1)
    tb.lat = (20, 60)
    # part 1: dst 1 paused from the start; its descriptors first and between the others;
    # responses to dst 1 are not paused
    dut.tx_pause.value = 0b10
    per = min(SLOTS // 4, 12)   # fewer than SLOTS for dst 1, so slots stay free for 0 and 2
    for i in range(per):
        tb.send_block(1, rng.randint(1, 8192))
        tb.send_rsp(1 + NUM_NODES)
        tb.send_block(0, rng.randint(1, 8192))
        tb.send_pkt(2, bool(i & 1))
        tb.send_block(2, rng.randint(1, 8192))
        tb.send_rsp(0)
    await tb.wait_done(max_cycles=200_000, q=0)
    await tb.wait_done(max_cycles=200_000, q=2)
    for _ in range(100):
        if not tb.sb.rsp and tb.rsp.idle():
            break
        await ClockCycles(dut.clk, 20)
    await ClockCycles(dut.clk, 200)
    sent1 = sum(v for k, v in tb.sb.by_node.items() if k % NUM_NODES == 1)
    assert sent1 == 0, f"{sent1} packets went to paused dst 1"
    assert tb.sb.rsp_by_q[1] == per, f"{tb.sb.rsp_by_q[1]} of {per} responses to dst 1 left"
    assert not tb.sb.rsp, "responses left behind"
    assert tb.sb.outstanding(1) == per
    dut.tx_pause.value = 0
    await tb.wait_done(max_cycles=200_000)
    # part 2: pause dst 1 while it sends 64 KiB blocks; count what still leaves
    tb.set_random(idle=0, stall=0, ar_pause=0, r_pause=0)
    tb.lat = (200, 200)
    base = tb.sb.by_node[1]
    for _ in range(3):
        tb.send_block(1, 65536)
        tb.send_block(0, 65536)
    for _ in range(5000):
        if tb.sb.by_node[1] >= base + 20:
            break
        await ClockCycles(dut.clk, 4)
    assert tb.sb.by_node[1] >= base + 20, "dst 1 does not send"
    dut.tx_pause.value = 0b10
    at_pause = tb.sb.by_node[1]
    await ClockCycles(dut.clk, 3000)
    after = tb.sb.by_node[1] - at_pause
    # picked before the pause: at most the read window of payload (+ one packet on the
    # link and the one in the scheduler's stage B when the pause came)
    bound = WINDOW * BEAT // MAX_PAYLOAD + 2
    tb.log.info("dst 1 paused: %d packets still left (bound %d)", after, bound)
    assert after <= bound, f"{after} packets to dst 1 after its pause (bound {bound})"
    held = tb.sb.by_node[1]
    await ClockCycles(dut.clk, 2000)
    assert tb.sb.by_node[1] == held, "dst 1 kept sending while paused"
    dut.tx_pause.value = 0
    await tb.wait_done(max_cycles=100_000)
    await tb.finish()


@cocotb.test()
async def tx_rsp_full(dut):
    """All SLOTS slots hold blocks to paused dst 1, two more descriptors wait for a slot:
    no request packet can leave, responses (to dst 1 too) still all do."""
    tb = TB(dut, "tx_rsp_full")
    await tb.start()
    rng = tb.rng
    tb.set_random(idle=0.3, stall=0.3, ar_pause=0.1, r_pause=0.1)
    dut.tx_pause.value = 0b10
    for _ in range(SLOTS):
        tb.send_block(1 + NUM_NODES * rng.randrange(100), rng.randint(1, 2048))
    for _ in range(200):
        if len(tb.accepted) == SLOTS:
            break
        await ClockCycles(dut.clk, 10)
    tb.send_block(0, rng.randint(1, 2048))
    tb.send_pkt(2 % NUM_NODES, False)
    await ClockCycles(dut.clk, 50)
    assert int(dut.occ_slots.value) == SLOTS, f"occ_slots {int(dut.occ_slots.value)}"
    assert len(tb.accepted) == SLOTS, "a descriptor was taken with every slot held"
    nrsp = 3 * SLOTS
    for _ in range(nrsp):
        tb.send_rsp(rng.choice([1, 1 + NUM_NODES, rng.randrange(1 << 16)]))
    for _ in range(2000):
        if not tb.sb.rsp and tb.rsp.idle():
            break
        await ClockCycles(dut.clk, 10)
    assert not tb.sb.rsp and tb.rsp.idle(), \
        f"of {nrsp} responses, {len(tb.sb.rsp)} taken and not sent, {tb.rsp.count()} not offered"
    await ClockCycles(dut.clk, 20)
    assert tb.sb.req_frames == 0, "a request packet left"
    assert tb.sb.packets == nrsp
    state = {k: int(getattr(dut, k).value)
             for k in ("busy", "occ_slots", "occ_rsp", "stat_slot_stall")}
    assert state == {"busy": 1, "occ_slots": SLOTS, "occ_rsp": 0, "stat_slot_stall": 1}, state
    assert tb.stats["slot_stall"] > 0
    tb.log.info("%d responses sent with all %d slots held; %d slot-stall cycles", nrsp,
                SLOTS, tb.stats["slot_stall"])
    dut.tx_pause.value = 0
    await tb.wait_done(max_cycles=200_000)
    await tb.finish()


@cocotb.test()
async def tx_memerr(dut):
    """Blocks whose sources touch bad lines (SLVERR or DECERR): the packets that read them
    are dropped with a local NACK each; then the same sources read without errors."""
    tb = TB(dut, "tx_memerr")
    await tb.start()
    rng = tb.rng
    n = param("N", 40) // 2
    tb.set_random(idle=0.3, stall=0.3, ar_pause=0.2, r_pause=0.1, lnack_stall=0.5)
    tb.lat = (1, 60)
    err = [AxiResp.SLVERR, AxiResp.DECERR]
    mp = MAX_PAYLOAD
    # (size, source lane, destination lane, offsets of bad bytes): a bad line in packet 1
    # of 4, in the first packet, in the last byte (lanes 17 -> 40), and one line read by
    # packets 0 and 1 (source lane 32, destination lane 0)
    edges = [(4 * mp, 0, 0, [mp + 64]), (3 * mp, 0, 0, [0]),
             (2 * mp + 100, 17, 40, [2 * mp + 99]), (2 * mp, 32, 0, [mp])]
    blocks = []
    for size, sl, dl, bad in edges:
        src = tb.src_addr(size + 64, 64) + sl
        dst = tb.dst_addr(size + mp, mp) + dl
        blocks.append((rng.randrange(1 << 16), size, src, dst))
        for off in bad:
            tb.ram.set_bad(src + off, rng.choice(err))
    for _ in range(n):
        size = block_size(rng, 16384)
        src = tb.src_addr(size)
        blocks.append((rng.randrange(1 << 16), size, src, tb.dst_addr(size)))
        if rng.random() < 0.6:   # 1..3 bad lines in its source
            for _ in range(rng.randint(1, 3)):
                tb.ram.set_bad(src + rng.randrange(size), rng.choice(err))
    toggler = cocotb.start_soon(pause_toggler(tb))
    for node, size, src, dst in blocks:
        tb.send_block(node, size, src=src, dst=dst)
        if rng.random() < 0.3:
            tb.send_pkt(rng.randrange(1 << 16), rng.random() < 0.5)
        if rng.random() < 0.5:
            tb.send_rsp(rng.randrange(1 << 16))
        if rng.random() < 0.2:
            await ClockCycles(dut.clk, rng.choice([10, 300, 1000]))
    await tb.wait_done(max_cycles=400_000)
    dropped = tb.sb.dropped
    tb.log.info("phase 1: %d DATA packets dropped, %d sent; %d blocks partly dropped",
                dropped, tb.sb.data_pkts, tb.sb.partial)
    assert dropped > 0 and tb.sb.partial > 0
    # phase 2: no bad lines; the same sources
    toggler.cancel()
    dut.tx_pause.value = 0
    tb.ram.bad.clear()
    tb.set_random(idle=0.2, stall=0.2, ar_pause=0.1, r_pause=0.1)
    for node, size, src, dst in blocks[:len(edges) + n // 4]:
        tb.send_block(node, size, src=src, dst=dst)
        tb.send_rsp(rng.randrange(1 << 16))
    await tb.wait_done(max_cycles=400_000)
    assert tb.sb.dropped == dropped
    await tb.finish()


@cocotb.test()
async def tx_throughput(dut):
    """8 x 64 KiB blocks to 1 KiB-aligned destinations (every packet 1 KiB: 1 + 16 beats),
    sources 64-byte aligned at random offsets (bursts split at 4 KiB), memory latency 200
    cycles, no idle or backpressure anywhere. Idle bound: 0 after the first packet. The
    first packet waits for its CRC (LATENCY cycles) in the output buffer, which then holds
    LATENCY + 1 beats and delays every later last beat just enough. The read window (256
    beats) exceeds what a packet's reservation time needs at 16/17 of a beat per cycle:
    pick -> AR ~7 cycles, memory ~203, packing ~3, the packet's 16 beats buffered before its
    header goes (store and forward per packet), ~8 beats' wait for the pick threshold
    (a pick needs MAX_PAYLOAD/64 free beats): ~240 beats (measured: 240 suffice, 232 give
    2-cycle gaps), so reads stay ahead of the link. Any idle cycle after the first packet
    therefore means lost read-ahead and fails the test."""
    tb = TB(dut, "tx_throughput")
    await tb.start()
    tb.set_random(idle=0, stall=0, ar_pause=0, r_pause=0)
    tb.lat = (200, 200)
    nblk = 8
    for i in range(nblk):
        tb.send_block(tb.rng.randrange(1 << 16), 65536, src=tb.src_addr(65536, 64),
                      dst=tb.dst_addr(65536, 1024))
    await tb.wait_done(max_cycles=100_000)
    await tb.finish()
    pkts = 65536 // MAX_PAYLOAD * nblk
    beats_per = 1 + MAX_PAYLOAD // BEAT
    lasts = [c for c, last in tb.beat_log if last]
    assert len(lasts) == pkts
    firsts = tb.first_beat
    beats_in = collections.Counter()
    k = 0
    for c, last in tb.beat_log:
        beats_in[k] += 1
        k += last
    assert set(beats_in.values()) == {beats_per}, f"beats per packet {collections.Counter(beats_in.values())}"
    cycles = collections.Counter(lasts[i] - firsts[i] + 1 for i in range(1, pkts))
    assert set(cycles) == {beats_per}, f"cycles per packet after the first {cycles}"
    start, end = lasts[0], lasts[-1]
    beats = sum(1 for c, _ in tb.beat_log if start < c <= end)
    idle = (end - start) - beats
    tb.log.info("throughput: %d packets of %d beats; after the first packet %d beats in %d "
                "cycles, %d idle; first beat %d cycles after the first descriptor",
                pkts, beats_per, beats, end - start, idle, firsts[0] - tb.accepted[0][0])
    assert idle <= 0, f"{idle} idle cycles in steady state"


@cocotb.test()
async def tx_latency(dut):
    """Idle unit, memory latency 1, no backpressure: descriptor or response -> first beat
    (cycles as in rtl/tx/qrdma_tx.sv "Timing")."""
    tb = TB(dut, "tx_latency")
    await tb.start()
    tb.set_random(idle=0, stall=0, ar_pause=0, r_pause=0)
    tb.lat = (1, 1)
    await ClockCycles(dut.clk, SLOTS + 10)   # slot pool initialised

    async def one(send):
        k = len(tb.first_beat)
        send()
        await tb.wait_done(max_cycles=1000)
        return tb.first_beat[k] - tb.accepted[-1][0]

    rsp_lat = await one(lambda: tb.send_rsp(5))
    ctl_lat = await one(lambda: tb.send_pkt(3, True))
    for size, sa in ((64, 0), (1024, 0), (1024, 8)):
        k = len(tb.first_beat)
        nar, nr = len(tb.ar_cycles), len(tb.r_cycles)
        tb.send_block(2, size, src=tb.src_addr(size + 64, 64) + sa, dst=tb.dst_addr(size, 1024))
        await tb.wait_done(max_cycles=2000)
        acc = tb.accepted[-1][0]
        ar, r0, r1 = tb.ar_cycles[nar], tb.r_cycles[nr], tb.r_cycles[-1]
        hdr = tb.first_beat[k]
        nsrc = len(tb.r_cycles) - nr
        tb.log.info("DATA %d B (src lane %d, %d read beats): AR at +%d, first R at +%d "
                    "(AR +%d), last R at +%d, header at +%d (last R +%d), last beat at +%d",
                    size, sa, nsrc, ar - acc, r0 - acc, r0 - ar, r1 - acc, hdr - acc,
                    hdr - r1, tb.beat_log[-1][0] - acc)
        assert ar - acc == 12, "AR not in cycle 12 after the descriptor"
        assert hdr - r1 == 10, "header not 10 cycles after the packet's last R beat"
    tb.log.info("response: beat %d cycles after it was taken; CONTROL: %d cycles after its "
                "descriptor", rsp_lat, ctl_lat)
    assert ctl_lat == 22, "CONTROL packet not in cycle 22 after its descriptor"
    assert rsp_lat == 9, "response not in cycle 9 after it was taken"
    # one-beat request packets back to back: the scheduler picks one per cycle
    k = len(tb.first_beat)
    for i in range(100):
        tb.send_pkt(i, True)
    await tb.wait_done(max_cycles=2000)
    span = tb.first_beat[-1] - tb.first_beat[k + 10]
    tb.log.info("CONTROL packets back to back: %d in %d cycles", 89, span)
    assert span == 89, "one-beat request packets not at one per cycle"
    # responses back to back: one per cycle
    k = len(tb.first_beat)
    for i in range(100):
        tb.send_rsp(i)
    await tb.wait_done(max_cycles=2000)
    span = tb.first_beat[-1] - tb.first_beat[k + 10]
    tb.log.info("responses back to back: %d in %d cycles", 89, span)
    assert span == 89, "responses not at one per cycle"
    await tb.finish()


# ---------------------------------------------------------------------------- runner
CASES = [
    # (parameters, cocotb tests)
    ({}, "tx_random,tx_pause"),
    ({}, "tx_throughput,tx_latency,tx_rsp_full,tx_memerr,tx_partial,tx_ctl_first"),
    ({"MAX_PAYLOAD": 256}, "tx_random,tx_partial"),
    ({"NUM_NODES": 3, "MAX_PAYLOAD": 4096, "SLOTS": 8, "READ_WINDOW_BEATS": 128},
     "tx_random,tx_rsp_full,tx_memerr"),
]


@pytest.mark.parametrize("params,tests", CASES,
                         ids=[",".join(f"{k}={v}" for k, v in p.items()) + ":" + t
                              for p, t in CASES])
def test_qrdma_tx(params, tests):
    from simrun import full, run

    env = {f"P_{k}": str(v) for k, v in params.items()}
    env["P_N"] = "400" if full() else "40"
    run("qrdma_tx", "test_qrdma_tx", params, testcase=tests, extra_env=env,
        inner={"qrdma_tx_asm": ["req_go"]})   # (a request-class header decided)
