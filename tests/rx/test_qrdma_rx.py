# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_rx (docs/nic.md "Receive unit"; [RSN] §3.3) against the reference model RxModel
below.

The network is a cocotbext-axi AxiStreamSource on s_axis_rx (frames built with
tests/model/net_model.py, CRC in tuser of the last beat, random idle); host memory is
cocotbext-axi's AxiSlaveWrite (the unit has no read channels) with a Memory target that
answers SLVERR for writes to "bad" 64-byte lines, with random backpressure on AW, W and
B; m_ack and m_rsp go to cocotbext-axi stream sinks (define_stream) with random
backpressure. A software model polls the notification ring, checks and takes entries and
advances cfg_nq_tail slowly. RxModel
runs the packet sequence first and predicts every output; the bench then checks, cycle
by cycle:
  * every response and every notification AW, in the first cycle it is valid: the data
    it covers is in memory byte for byte, and no burst that wrote it still lacks its B;
  * responses in the model's order within each class (with and without a notification:
    an ACK that waits for its notification may be passed by the others);
  * every notification AW: slot = issued mod NQ_SIZE, issued - NQ_TAIL < NQ_SIZE, the
    slot's marker is NOTIF_EMPTY (software took it);
and at the end: responses, m_ack records and ring entries equal the model's lists (each
exactly once, none extra after a quiet period), MISS responses in the model's order
(those the unit drops for want of room counted by stat_miss_drop, the others by
stat_miss), m_miss records equal the model's, memory equals the initial contents plus
the model's writes byte for byte (so nothing outside destination ranges was written),
nq_head and every stat_* pulse count match, the CRC block's keep check never fired.

  rx_random     random blocks (size, alignment, 1..MAX_BLK_PKTS packets) from two source
                nodes, packets shuffled within a block and interleaved across blocks,
                duplicates, flipped bits (CRC drops), blocks abandoned for the next use
                of the same TID (stale drops), late copies of earlier uses of a TID
                (stale, also on done entries), 16-bit seq and generation wrap, CONTROL
                before / during / after its block (and duplicated), INLINE with and
                without notify (some across 64-byte and 4 KiB boundaries), ACK/NACK
                packets, malformed packets, a few bad memory lines (NACKs); small ring,
                slow software
  rx_prot       the random stream with the window check on (docs/protection.md): keys
                right, of a wrong tag or protection domain, past the table, of empty
                entries; windows without write permission, deregistered, ending inside
                blocks: refused packets written nowhere, counted, answered by a NACK
                ERR_REMOTE_ACCESS; the other tests run in development mode (all open)
  rx_prot_dereg a window deregistered while a block is half in: the rest refused; the
                window registered again with a new tag: the old key refused, the new
                one written and ACKed
  rx_reverse    a block of MAX_BLK_PKTS unaligned packets in reverse order, its CONTROL
                first; then its duplicates and its CONTROL again (dropped); then the
                TID's next use (the next generation) whose seq is 40,000 later (older
                modulo 2^16): accepted, the seq decides nothing
  rx_stale      uses U and U + 1 of TIDs (a block, an INLINE, each after the other, the
                same destination), both complete; then copies of U's DATA, CONTROL and
                INLINE packets: dropped as stale, nothing written (U + 1's data stays),
                no response or notification; a sender's next epoch with an older
                generation: accepted
  rx_bad        each malformed kind (docs/nic.md list) and CRC errors, one by one: counted
                as bad / CRC drops, nothing written, nothing acknowledged; ACK/NACK pass
  rx_errors     writes answered SLVERR in the first, a middle or the last packet of a
                block, in a notifying block, in an INLINE and in the second burst of a
                split INLINE: NACK with ERR_REMOTE_MEM, no notification; the TID's next
                block, sent once that response is out, is acknowledged
  rx_ring_full  NQ_SIZE 2 with software away: two entries written, the other notifying
                packets wait and hold only their own ACKs (the others are acknowledged,
                the link is never stopped); entries in order once software takes them;
                NQ_SIZE 0: ACKs but no entries; cfg_nq_reset: NQ_HEAD 0, entries from slot
                0 again; the ring turned off while requests wait: dropped, ACKs sent
  rx_redo       duplicates of complete blocks (DATA, INLINE with and without notify,
                CONTROL of notifying transfers, failed blocks) answered again with their
                ACK/NACK, once per copy of a block (at its last packet); those whose ACK is held for a full ring dropped, answered once
                it is released; no redo ACK ahead of its held ACK; no response for a
                duplicate of a block not complete yet; copies right behind the packet
                that completes a block whose ACK is held dropped; the redo counters exact
  rx_timing     latencies (last beat -> AW, B -> response, B -> notification AW) and
                throughput (back-to-back 1 KiB packets, aligned and not: no stall)
  rx_registration  receive-side registration (docs/registration.md): a registered
                transfer's notification written early, once, when its REGISTER and
                blocks are in (REGISTER first or after blocks, CONTROL before or after the
                last block), its CONTROL's not written; a lost REGISTER or too many blocks:
                notified by the CONTROL; a newer transfer of a channel replaces an entry
  rx_miss       MISS answers (docs/reliability.md "Receiver: MISS answers"): blocks with
                missing packets and asking packets (the ask bit, the last packet, their
                duplicates), runs at the start, middle and end of a block, a block of
                MAX_BLK_PKTS packets with only its first packet in, a one-packet block
                and stale packets (none), a complete block waiting for its CONTROL
                (none), a re-send of a run ending before the block's last packet with
                ask set that completes it (ACK) and again (the ACK again): the MISS
                responses exactly, in order; then with the response path stopped: half
                the redo FIFO's room taken, the rest dropped and counted; MISS packets
                received (and malformed ones, bad CRC, another node's) on m_miss exactly

Replay: QRDMA_SEED=<seed printed at the start of a test>. Size: P_N blocks per source in
rx_random.
"""
from __future__ import annotations

import collections
import logging
import os
from dataclasses import dataclass, field

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge
from cocotbext.axi import AxiSlaveWrite, AxiStreamBus, AxiStreamFrame, AxiStreamSource, AxiWriteBus

from seeding import seed_rng
from streams import DataBus, DataSink, quiet, random_pause
from model.net_model import (GenModel, ack_packet, block_packets, control_packet, crc_of,
                             data_packet, inline_packet, one_beat_packet, packetize,
                             read_req_packet, register_packet)
from model.rx_reg_model import RegModel
from model.rx_track_model import CONTROL, DATA, INLINE, TrackModel
from tools.formats import ACK_DESC, C, MISS_DESC, NET_HDR, NOTIF_ENTRY, RD_JOB, RSP_DESC

NET_DATA, NET_INLINE, NET_CONTROL = C["NET_DATA"], C["NET_INLINE"], C["NET_CONTROL"]
NET_ACK, NET_NACK, NET_MISS = C["NET_ACK"], C["NET_NACK"], C["NET_MISS"]
NET_READ_REQ, NET_REGISTER = C["NET_READ_REQ"], C["NET_REGISTER"]
REG_ENTRIES, REG_MASK_W, REG_ESC = 256, 256, 8   # qrdma_rx's registration table
REG_HASH_W = 16 + 11                  # its key {xseq, src_node, xfer}: placed by the channel
RD_DEPTH = 64                 # qrdma_rx's read-response job queue
NOTIF_FULL, NOTIF_EMPTY = C["NOTIF_FULL"], C["NOTIF_EMPTY"]

NODE_ID = 0x0105
SRCS = (2, 7)                 # source nodes (distinct entries mod NUM_NODES >= 2)
MEM_SIZE = 1 << 23                 # (room for the destinations of the make test-full stream)
RING_MAX = 64                 # ring entries at most
RING_BASE = MEM_SIZE - 64 * RING_MAX
TRAP = 0x1000                 # malformed packets point here (must never be written)
BLOCK_BASE = 0x10000          # destination ranges from here up to RING_BASE
STUCK = 30000                 # cycles without progress that fail a test
# the unit is built without benchmark stamps (BENCH_STAMPS 0): every notification has none
NO_STAMPS = dict(stamped=0, hops=0, t_post=0, t_send=0, t_sw=0, t_recv=0, t_done=0)


# ------------------------------------------------------------------ parameters
@dataclass
class Params:
    num_nodes: int = 4
    max_payload: int = 1024
    max_blk_pkts: int = 64
    buf_beats: int = 256

    @classmethod
    def from_env(cls, env) -> "Params":
        return cls(*(int(env.get(f"P_{k}", d)) for k, d in
                     (("NUM_NODES", 4), ("MAX_PAYLOAD", 1024), ("MAX_BLK_PKTS", 64),
                      ("BUF_BEATS", 256))))

    def hdl(self) -> dict:
        return {"NUM_NODES": self.num_nodes, "MAX_PAYLOAD": self.max_payload,
                "MAX_BLK_PKTS": self.max_blk_pkts, "BUF_BEATS": self.buf_beats}

    @property
    def maxb(self) -> int:
        """Payload beats of the longest legal DATA packet."""
        return self.max_payload // 64 + 1

    @property
    def entries(self) -> int:
        return self.num_nodes * 1024


# ------------------------------------------------------------------ packets on the wire
@dataclass
class Wire:
    """One packet as sent: beats [(tdata, tkeep)] and the tuser of its last beat."""
    beats: list
    tuser: int
    what: str

    def frame(self) -> AxiStreamFrame:
        data = b"".join(d.to_bytes(64, "little") for d, _ in self.beats)
        keep = [(k >> i) & 1 for _, k in self.beats for i in range(64)]
        user = [0] * (64 * (len(self.beats) - 1)) + [self.tuser] * 64
        return AxiStreamFrame(data, tkeep=keep, tuser=user)


def wire(pkt, what: str) -> Wire:
    return Wire(list(pkt.beats), pkt.crc, what)


def asked(w: Wire) -> Wire:
    """A copy of a DATA packet with its header's ask bit set."""
    h = NET_HDR.unpack(w.beats[0][0])
    raw = b"".join(d.to_bytes(64, "little") for d, _ in w.beats[1:])
    lo = h["dst_addr"] % 64
    return wire(data_packet(dict(h, ask=1), raw[lo:lo + h["len"]]), w.what + " [ask]")


def flipped(w: Wire, rng) -> Wire:
    """A copy with one bit flipped in a tkeep byte (or in the CRC itself)."""
    beats = list(w.beats)
    if rng.random() < 0.1:
        return Wire(beats, w.tuser ^ (1 << rng.randrange(32)), w.what + " [crc flipped]")
    i = rng.randrange(len(beats))
    d, k = beats[i]
    lane = rng.choice([j for j in range(64) if (k >> j) & 1])
    beats[i] = (d ^ (1 << (8 * lane + rng.randrange(8))), k)
    return Wire(beats, w.tuser, w.what + f" [bit flipped in beat {i}]")


# ------------------------------------------------------------------ reference model
@dataclass
class Block:
    """What the receive unit's model keeps of the block of a tracking entry besides the
    tracker's state: the CONTROL's fields, whether a write failed, the bytes written."""
    ctl: dict | None = None
    err: bool = False
    ranges: list = field(default_factory=list)   # (addr, bytes) written for this block
    rsp: dict | None = None       # the response of its completion event
    ntf_idx: int | None = None    # its notification's index (its ACK held until written)


def lines_of(a: int, n: int) -> range:
    return range(a // 64, (a + max(n, 1) - 1) // 64 + 1)


def permits(prot: list[dict], h: dict) -> bool:
    """The window check (docs/protection.md) of a DATA, INLINE or READ_REQ header against
    the window table `prot`: remote write, local write (a read response) or remote read
    over the whole block."""
    key, da = h["rkey"], h["dst_addr"]
    idx = key >> C["RKEY_TAG_W"]
    if idx >= len(prot):
        return False
    if h["ptype"] == NET_READ_REQ:
        perm, n = "rd", h["rd_size"]
    else:
        perm, n = ("lwr" if h["ptype"] == NET_DATA and h["resp"] else "wr"), h["len"]
    w = prot[idx]
    return bool(w["valid"] and w.get(perm, 0) and w["tag"] == key % (1 << C["RKEY_TAG_W"])
                and w["pd"] == h["pd"] and w["base"] <= da
                and da + n <= w["base"] + w["len"])


class RxModel:
    """What qrdma_rx does with a sequence of packets (docs/nic.md "Receive unit"): plain
    Python, run over the whole sequence before the simulation.

    Completion events, in the order the unit decides them, become responses: a NACK
    (reason ERR_REMOTE_MEM) when a write of the block hit a bad line (the memory answers
    SLVERR there and writes nothing of that beat), else an ACK; a notification is due for
    an INLINE with notify, and for a DATA block with notify once both its last packet and
    its CONTROL are in (the ACK waits for both). Responses of events without a due
    notification (or with the ring off, packets of `ring_off`) keep their event order
    ("plain" class); an ACK with a notification is released only once the notification
    is handed to the ring, so those keep their own order ("ntf" class) and may pass or
    fall behind plain ones.

    A duplicate of a block whose completion event was issued (the tracker's redo) is
    answered again with the block's response (ACK, or NACK for a failed write), in a
    class of its own ("redo", event order, behind every response queued before it),
    unless the block's ACK is still held for its notification: then it is dropped. Whether
    it is held when the redo is decided depends on timing; `rel` (one entry per packet, or
    None) says how many notifications had released their ACK when the packet came (a test
    that waits for that), else a redo of a block with a notification may be either
    ("maybe").

    An asking DATA packet (ask bit or the block's last packet) written or a duplicate,
    after which its block still lacks packets, is answered with MISS (first missing
    packet, run length: the tracker model's last_miss) in a class of its own ("miss",
    decision order). A MISS packet received becomes an m_miss record (`misses_in`).

    The tracker's model (TrackModel) decides each DATA, INLINE and CONTROL packet by its
    header's generation and epoch against its entry's; a stale packet (an older
    generation, also on a done entry) is dropped and counted (`stale_done` counts those
    on done entries, for coverage)."""

    def __init__(self, p: Params, node_id: int, bad_lines=frozenset(), prot=None,
                 rd_room: int | None = None):
        self.p = p
        self.rd_room = rd_room             # read jobs the queue takes (None: all)
        self.rd_jobs: list[int] = []       # m_rd records (RD_JOB), in order
        self.node_id = node_id
        self.bad = bad_lines
        self.prot = prot                   # window table (None: development mode, open)
        self.prot_rsps: list[dict] = []    # access NACKs (RSP_DESC fields), in decision order
        self.trk = TrackModel()
        self.blk: dict[int, Block] = {}
        self.stats = collections.Counter()
        self.acks: list[int] = []          # m_ack records (ACK_DESC)
        self.rsps: dict[str, list[dict]] = {"plain": [], "ntf": []}
        self.notifs: list[dict] = []       # NOTIF_ENTRY fields + ranges covered
        self.writes: list[tuple[int, bytes]] = []
        self.outcomes: list[str] = []
        self.ring_off: set[int] = set()
        self.redos: list[dict] = []        # redo responses: rsp + "st": sent / drop / maybe
        self.miss_rsps: list[dict] = []    # MISS responses (RSP_DESC fields)
        self.misses_in: list[int] = []     # m_miss records (MISS_DESC)
        self.rel: int | None = None
        self.stale_done = 0                # stale packets whose entry was done
        # receive-side registration (docs/registration.md): the table's model, the ranges
        # of each registered transfer's placed blocks
        self.reg = RegModel(16 + REG_HASH_W, REG_ENTRIES, REG_MASK_W, REG_ESC, REG_HASH_W)
        self.reg_ranges: dict[int, list] = collections.defaultdict(list)

    def run(self, items: list[Wire], ring_off=frozenset(), rel=None,
            prot_at: dict | None = None) -> "RxModel":
        """prot_at: {i: table}: the window table from packet i on."""
        for i, w in enumerate(items):
            if prot_at and i in prot_at:
                self.prot = prot_at[i]
            self.off = i in ring_off
            self.rel = None if rel is None else rel[i]
            self.outcomes.append(self.process(w))
        return self

    def _redo(self, e: Block):
        """A duplicate of e's complete block: its response again unless its ACK is held."""
        if e.ntf_idx is None:
            st = "sent"
        elif self.rel is None:
            st = "maybe"
        else:
            st = "drop" if e.ntf_idx >= self.rel else "sent"
        self.stats["redo_evt"] += 1
        self.redos.append(dict(e.rsp, st=st, ntf_idx=e.ntf_idx))

    @property
    def nrsp(self) -> int:
        return len(self.rsps["plain"]) + len(self.rsps["ntf"])

    def _bad(self, h: dict, nb: int) -> bool:
        p = self.p
        pt, ln, da = h["ptype"], h["len"], h["dst_addr"]
        bad = h["dst_node"] != self.node_id or nb > p.maxb
        if pt == NET_DATA:
            return (bad or ln == 0 or ln > p.max_payload
                    or (da % p.max_payload) + ln > p.max_payload
                    or h["blk_pkts"] == 0 or h["blk_pkts"] > p.max_blk_pkts
                    or h["pkt_idx"] >= h["blk_pkts"] or nb != (da % 64 + ln + 63) // 64)
        if pt == NET_INLINE:
            return bad or ln == 0 or ln > 32 or nb != 0
        if pt in (NET_CONTROL, NET_ACK, NET_NACK, NET_REGISTER):
            return bad or nb != 0
        if pt == NET_MISS:
            return (bad or nb != 0 or h["miss_cnt"] == 0
                    or h["pkt_idx"] + h["miss_cnt"] > 256)
        if pt == NET_READ_REQ:
            rs = h["rd_size"]
            if bad or nb != 0 or ln != 0 or rs == 0:
                return True
            last = (h["rd_laddr"] % p.max_payload + rs - 1) // p.max_payload
            return (last > 255 or h["pkt_idx"] > last
                    or (h["miss_cnt"] != 0 and h["pkt_idx"] + h["miss_cnt"] > last + 1))
        return True

    def _permits(self, h: dict) -> bool:
        return self.prot is None or permits(self.prot, h)

    @staticmethod
    def reg_key(h: dict) -> int:
        """A registered transfer's key in the registration table: {xseq, src, xfer}."""
        return (h["xseq"] << REG_HASH_W) | (h["src_node"] << 11) | h["xfer"]

    def _reg_item(self, key: int, blk: int, first: bool = False, cnt: int = 0, info=None):
        """An item of the registration table; its receiver-side notifications (early)."""
        n0 = len(self.reg.ntfs)
        self.reg.event(key, blk, first, cnt, info)
        for k, f in self.reg.ntfs[n0:]:
            self.stats["early"] += 1
            if self.off:
                self.stats["notif_off"] += 1
            else:
                self.notifs.append(dict(marker=NOTIF_FULL, src_node=(k >> 11) & 0xFFFF,
                                        early=1, ranges=list(self.reg_ranges[k]),
                                        **NO_STAMPS, **f))

    def _complete(self, src, tid, seq, e: Block, ntf: dict | None, rkey: int | None = None):
        """The completion event of block (src, tid, seq); ntf: the fields of a due
        notification; rkey: its transfer's registration key (registered), looked up
        when the notification goes to the ring: written ahead, it is not written again."""
        rsp = dict(dst_node=src, tid=tid, seq=seq, nack=int(e.err),
                   reason=C["ERR_REMOTE_MEM"] if e.err else 0, miss=0, pkt_idx=0,
                   miss_cnt=0, ranges=list(e.ranges))
        e.rsp, e.ntf_idx = rsp, None
        if ntf is not None and rkey is not None:
            self.reg.lookup(rkey)           # (without a request: the entry freed)
            if not e.err and not self.off and self.reg.ctls[-1][1]:
                self.rsps["ntf"].append(rsp)    # notified ahead: the held ACK is released
                return
        if e.err:
            self.stats["nack"] += 1
            self.rsps["plain"].append(rsp)
        elif ntf is not None and self.off:
            self.stats["notif_off"] += 1
            self.rsps["plain"].append(rsp)
        elif ntf is not None:
            e.ntf_idx = len(self.notifs)
            self.notifs.append(dict(marker=NOTIF_FULL, src_node=src, seq=seq, early=0,
                                    ranges=list(e.ranges), **NO_STAMPS, **ntf))
            self.rsps["ntf"].append(rsp)
        else:
            self.rsps["plain"].append(rsp)

    def _write(self, e: Block, da: int, data: bytes):
        """A write of len(data) bytes at da: beats on bad lines are not written."""
        e.err = e.err or any(ln in self.bad for ln in lines_of(da, len(data)))
        kept = bytearray()
        start = da
        for i, byte in enumerate(data):
            if (da + i) // 64 in self.bad:
                if kept:
                    self.writes.append((start, bytes(kept)))
                    e.ranges.append((start, bytes(kept)))
                kept, start = bytearray(), da + i + 1
            else:
                kept.append(byte)
        if kept:
            self.writes.append((start, bytes(kept)))
            e.ranges.append((start, bytes(kept)))

    def process(self, w: Wire) -> str:
        st = self.stats
        if crc_of(w.beats) != w.tuser:
            st["crc"] += 1
            return "crc"
        h = NET_HDR.unpack(w.beats[0][0])
        nb = len(w.beats) - 1
        if self._bad(h, nb):
            st["bad"] += 1
            return "bad"
        pt, src, tid, seq = h["ptype"], h["src_node"], h["tid"], h["seq"]
        if pt == NET_DATA and h["resp"]:
            # a read response: this node's own block (its entry, its responses to itself)
            src = self.node_id
            h["notify"] = 0
        if pt in (NET_ACK, NET_NACK):
            nack = int(pt == NET_NACK)
            self.acks.append(ACK_DESC.pack(tid=tid, seq=seq, nack=nack,
                                           reason=h["reason"] if nack else 0))
            st["ctrl"] += 1
            return "ack"
        if pt == NET_REGISTER:
            st["ctrl"] += 1
            n = h["blocks"]
            if not 1 <= n < REG_MASK_W:
                st["reg_drop"] += 1
            else:
                info = dict(kind=NET_CONTROL, xfer=h["xfer"], pd=h["pd"], size=h["size"],
                            tag=h["tag"], dst_addr=h["dst_addr"], seq=seq)
                self._reg_item(self.reg_key(h), n, True, n + 1, info)
            return "register"
        if pt == NET_MISS:
            self.misses_in.append(MISS_DESC.pack(tid=tid, seq=seq, pkt_first=h["pkt_idx"],
                                                 pkt_num=h["miss_cnt"]))
            st["ctrl"] += 1
            return "miss_in"
        if pt in (NET_DATA, NET_INLINE, NET_READ_REQ) and not self._permits(h):
            st["prot"] += 1
            self.prot_rsps.append(dict(dst_node=src, tid=tid, seq=seq, nack=1,
                                       reason=C["ERR_REMOTE_ACCESS"], miss=0, pkt_idx=0,
                                       miss_cnt=0, ranges=[]))
            return "prot"
        if pt == NET_READ_REQ:
            if self.rd_room is not None and len(self.rd_jobs) >= self.rd_room:
                # dropped: a MISS naming its run asks the requester to send it again
                st["read_drop"] += 1
                last = (h["rd_laddr"] % self.p.max_payload + h["rd_size"] - 1) \
                    // self.p.max_payload
                run = h["miss_cnt"] or last + 1 - h["pkt_idx"]
                self.miss_rsps.append(dict(dst_node=src, tid=tid, seq=seq, nack=0, reason=0,
                                           miss=1, pkt_idx=h["pkt_idx"], miss_cnt=run))
                return "rreq_drop"
            st["read_req"] += 1
            self.rd_jobs.append(RD_JOB.pack(
                src_addr=h["dst_addr"], dst_addr=h["rd_laddr"], dst_node=src, pd=h["pd"],
                tid=tid, seq=seq, size=h["rd_size"], path=h["path"], xfer=h["xfer"],
                pkt_first=h["pkt_idx"], pkt_num=h["miss_cnt"], rkey=h["rd_lkey"],
                gen=h["gen"], epoch=h["epoch"]))
            return "rreq"
        key = (src % self.p.num_nodes) * 1024 + tid
        e = self.blk.setdefault(key, Block())
        te = self.trk.ent.get(key)
        if te is not None and te.done and self.trk.order(te, h["gen"], h["epoch"]) == "older":
            self.stale_done += 1    # (coverage)
        if pt == NET_CONTROL:
            ctl = dict(kind=NET_CONTROL, xfer=h["xfer"], pd=h["pd"], size=h["size"],
                       tag=h["tag"], dst_addr=h["dst_addr"])
            d = self.trk.lookup(CONTROL, key, h["gen"], h["epoch"])
            if d["redo"]:
                self._redo(e)
            if d["dup"] or d["stale"]:
                st["dup" if d["dup"] else "stale"] += 1
                return "dup" if d["dup"] else "stale"
            e.ctl = ctl
            if d["evt"]:        # the block's ACK waited for this CONTROL
                self._complete(src, tid, seq, e, ctl,
                               self.reg_key(h) if h["registered"] else None)
            st["ctrl"] += 1
            return "control"
        # DATA or INLINE (a one-packet block)
        ln, da = h["len"], h["dst_addr"]
        if pt == NET_DATA:
            d = self.trk.lookup(DATA, key, h["gen"], h["epoch"], h["pkt_idx"], h["blk_pkts"],
                                h["notify"], h["ask"])
            if d["miss"]:
                f, n = self.trk.last_miss
                self.miss_rsps.append(dict(dst_node=src, tid=tid, seq=seq, nack=0, reason=0,
                                           miss=1, pkt_idx=f, miss_cnt=n))
            raw = b"".join(d_.to_bytes(64, "little") for d_, _ in w.beats[1:])
            data = raw[da % 64: da % 64 + ln]   # what the lanes of the strobes hold
        else:
            d = self.trk.lookup(INLINE, key, h["gen"], h["epoch"], notify=h["notify"])
            data = w.beats[0][0].to_bytes(64, "little")[32:32 + ln]
        if d["redo"]:
            self._redo(e)
        if d["dup"] or d["stale"]:
            st["dup" if d["dup"] else "stale"] += 1
            return "dup" if d["dup"] else "stale"
        if d["first"]:          # the block's first write: its state starts afresh
            e.err, e.ranges = False, []
        self._write(e, da, data)
        st["data" if pt == NET_DATA else "ctrl"] += 1
        st["bytes"] += ln
        rkey = self.reg_key(h) if pt == NET_DATA and h["registered"] else None
        # (a notifying event without a request, its block failed or the ring off, only
        # frees the transfer's entry: _complete)
        free = d["evt"] and d["ntf"] and (e.err or self.off)
        if rkey is not None and (d["evt"] or d["ntf"]) and not e.err and not free:
            # a block of a registered transfer placed (before its completion's lookup)
            if h["xblock"] >= REG_MASK_W - 1:
                st["reg_drop"] += 1
            else:
                self.reg_ranges[rkey] += e.ranges
                self._reg_item(rkey, h["xblock"])
        if d["evt"]:
            if pt == NET_INLINE:
                ntf = (dict(kind=NET_INLINE, xfer=h["xfer"], pd=h["pd"], size=ln, tag=0,
                            dst_addr=da) if d["ntf"] else None)
            else:
                ntf = e.ctl if d["ntf"] else None
            self._complete(src, tid, seq, e, ntf, rkey)
        return "data" if pt == NET_DATA else "inline"


# ------------------------------------------------------------------ stimulus
class Alloc:
    """Destination ranges, each alone in its 64-byte beats (gaps >= 64 bytes)."""

    def __init__(self, rng, lo=BLOCK_BASE, hi=RING_BASE):
        self.rng, self.cur, self.hi = rng, lo, hi

    def take(self, size: int, align: int | None = None) -> int:
        self.cur += 64 + self.rng.randrange(192)
        if align is not None:   # start `align` bytes before a 4 KiB boundary
            self.cur = (self.cur + 4095) // 4096 * 4096 + 4096 - align
        else:
            self.cur += self.rng.randrange(64)
        a = self.cur
        self.cur += size
        assert self.cur < self.hi, "test memory exhausted: fewer blocks or more memory"
        return a


class Stim:
    """Builds packets of blocks, inline transfers, controls, ACKs and malformed packets.
    Each source is a sender with its generations (net_model.GenModel: one more for each
    new block or INLINE of a TID, starting near 2^16 so that they wrap) and its epoch;
    `uses` keeps every use of a (source, TID): its generation and its packets."""

    def __init__(self, p: Params, rng):
        self.p, self.rng = p, rng
        self.alloc = Alloc(rng)
        self.seq = {s: 65536 - rng.randint(1, 300) for s in SRCS}   # wraps in every run
        self.gens = {s: GenModel(1, start=65536 - rng.randint(1, 3)) for s in SRCS}
        self.epoch = {s: rng.randrange(256) for s in SRCS}
        self.uses: dict[tuple[int, int], list[dict]] = collections.defaultdict(list)
        # TIDs of notifying blocks and INLINEs, each used once: a sender reuses a TID only
        # after its response, which waits for the notification (the receive unit keeps
        # the notification's fields per TID until then), so a stream made in advance
        # must not reuse them
        self.fresh = {s: iter(range(100, 900)) for s in SRCS}
        # this node's own reads: the generations of its TIDs (near the wrap), its epoch
        # (fixed: the random stream of the other tests stays as it is)
        self.rgen = GenModel(1, start=65534)
        self.my_epoch = 0x5C

    def ntf_tid(self, src: int) -> int | None:
        return next(self.fresh[src], None)

    def next_seq(self, src: int) -> int:
        v = self.seq[src]
        self.seq[src] = (v + self.rng.choice((1, 1, 1, 2, 7))) % 65536
        return v

    def use(self, src: int, tid: int, seq: int, wires: list[Wire]) -> int:
        """The generation of a new use of (src, tid), whose packets are `wires`."""
        gen = self.gens[src].take(NODE_ID, tid, True)
        self.uses[(src, tid)].append(dict(gen=gen, seq=seq, wires=wires))
        return gen

    def block(self, src, tid, size=None, notify=None, align=None, dst=None, reg=None):
        """A block: dict with its DATA wires (in order) and its CONTROL wire (the same
        generation); at `dst` if given. reg: a block of a registered transfer (its
        `block` index, `xseq`, and the transfer's `xfer`, `pd` and CONTROL fields `ctl`)."""
        p, rng = self.p, self.rng
        if size is None:
            r = rng.random()
            size = (rng.randint(1, 200) if r < 0.3 else
                    rng.randint(1, 3 * p.max_payload) if r < 0.75 else
                    rng.randint(1, min(p.max_blk_pkts, 20) * p.max_payload))
        if dst is None:
            dst = self.alloc.take(size, align)
        while len(packetize(dst, size, p.max_payload)) > p.max_blk_pkts:
            size //= 2
        data = rng.randbytes(size)
        seq = self.next_seq(src)
        notify = rng.random() < 0.35 if notify is None else notify
        blk = dict(src_addr=0, dst_addr=dst, dst_node=NODE_ID, tid=tid, seq=seq,
                   pd=rng.randrange(16), fid=rng.randrange(256), path=rng.randrange(4),
                   notify=int(notify), last=int(notify), xfer=rng.randrange(2048), size=size)
        ctl = dict(dst_addr=dst, size=size, blocks=rng.randrange(1, 1 << 21),
                   tag=rng.randrange(1 << 32))
        if reg is not None:
            blk.update(registered=1, block=reg["block"], xseq=reg["xseq"], xfer=reg["xfer"],
                       pd=reg["pd"])
            ctl = dict(reg["ctl"], registered=1, xseq=reg["xseq"])
        uw: list[Wire] = []
        gen, ep = self.use(src, tid, seq, uw), self.epoch[src]
        pk = block_packets(blk, lambda a, n: data[a:a + n], src, p.max_payload, gen, ep)
        pkts = [wire(x, f"DATA src {src} tid {tid} seq {seq} gen {gen} pkt {i}/{len(pk)}")
                for i, x in enumerate(pk)]
        ctrl = wire(control_packet(dict(ctl, dst_node=NODE_ID, tid=tid, seq=seq, pd=blk["pd"],
                                        xfer=blk["xfer"]), src, gen, ep),
                    f"CONTROL src {src} tid {tid} seq {seq} gen {gen}")
        uw += pkts + ([ctrl] if notify else [])
        return dict(src=src, tid=tid, seq=seq, gen=gen, pkts=pkts, ctrl=ctrl, notify=notify,
                    blk=blk)

    def transfer(self, src, nblocks, bsize=None, notify=True, blocks=None, xfer=None):
        """A registered transfer of nblocks blocks (fresh TIDs), the last one notifying:
        dict with its REGISTER wire (`reg`), its blocks (Stim.block dicts, `blks`), the
        last block's CONTROL (`ctrl`) and the notification's fields (`ntf`). blocks: the
        count its REGISTER and CONTROL carry (default nblocks)."""
        rng, p = self.rng, self.p
        # blocks of whole 64-byte lines, so that no two blocks' writes share a line (the
        # bench takes any open burst over a line of a range as unfinished)
        bsize = bsize or 2 * p.max_payload + 128
        xseq, pd = self.seq[src], rng.randrange(16)
        xfer = rng.randrange(2048) if xfer is None else xfer
        dst = (self.alloc.take(nblocks * bsize + 64) + 63) // 64 * 64
        ctl = dict(dst_addr=dst, size=nblocks * bsize, blocks=blocks or nblocks,
                   tag=rng.randrange(1 << 32))
        blks = [self.block(src, self.ntf_tid(src), size=bsize, notify=notify and i == nblocks - 1,
                           dst=dst + i * bsize,
                           reg=dict(block=i, xseq=xseq, xfer=xfer, pd=pd, ctl=ctl))
                for i in range(nblocks)]
        r = wire(register_packet(dict(ctl, dst_node=NODE_ID, seq=xseq, xseq=xseq, xfer=xfer, pd=pd), src),
                 f"REGISTER src {src} xfer {xfer} xseq {xseq} blocks {ctl['blocks']}")
        ntf = dict(kind=NET_CONTROL, xfer=xfer, pd=pd, **{k: ctl[k] for k in ("size", "tag",
                                                                               "dst_addr")})
        return dict(reg=r, blks=blks, ctrl=blks[-1]["ctrl"], ntf=ntf, xseq=xseq)

    def inline(self, src, tid, notify=None, ln=None, cross4k=False, dst=None):
        """An INLINE wire (a use of its TID, a generation of its own); at `dst` if
        given."""
        rng = self.rng
        ln = rng.randint(1, 32) if ln is None else ln
        if dst is None:
            dst = self.alloc.take(ln, align=rng.randint(1, ln - 1) if cross4k and ln > 1
                                  else None)
        seq = self.next_seq(src)
        notify = rng.random() < 0.5 if notify is None else notify
        pkt = dict(dst_node=NODE_ID, tid=tid, seq=seq, len=ln, dst_addr=dst,
                   pd=rng.randrange(16), notify=int(notify), xfer=rng.randrange(2048),
                   payload=rng.getrandbits(256))
        uw: list[Wire] = []
        gen = self.use(src, tid, seq, uw)
        w = wire(inline_packet(pkt, src, gen, self.epoch[src]),
                 f"INLINE src {src} tid {tid} seq {seq} gen {gen} len {ln}")
        uw.append(w)
        return w

    def ack(self, src):
        rng = self.rng
        nack = rng.random() < 0.3
        return wire(ack_packet(NODE_ID, src, rng.randrange(1024), rng.randrange(65536), nack),
                    f"{'NACK' if nack else 'ACK'} src {src}")

    def miss(self, src, tid=None, seq=None, first=None, cnt=None):
        """A MISS packet to this node (well formed: first + cnt <= 256)."""
        rng = self.rng
        first = rng.randrange(256) if first is None else first
        cnt = rng.randint(1, 256 - first) if cnt is None else cnt
        f = dict(ptype=NET_MISS, dst_node=NODE_ID, src_node=src,
                 tid=rng.randrange(1024) if tid is None else tid,
                 seq=rng.randrange(65536) if seq is None else seq, pkt_idx=first,
                 miss_cnt=cnt)
        return wire(one_beat_packet(f), f"MISS src {src} {first}+{cnt}")

    def read_req(self, src, size=None, raddr=None, laddr=None, rkey=0, lkey=0, pd=None,
                 first=None, num=None):
        """A well-formed READ_REQ to this node (docs/nic.md "Remote reads"): a block of
        `size` bytes at raddr here, for laddr at the requester `src`; a random run unless
        first / num are given."""
        rng, mp = self.rng, self.p.max_payload
        laddr = rng.randrange(1 << 40) if laddr is None else laddr
        if size is None:
            size = rng.choice((rng.randint(1, 200), rng.randint(1, 4 * mp),
                               rng.randint(1, 256 * mp)))
        size = min(size, 256 * mp - laddr % mp, (1 << 17) - 1)
        last = (laddr % mp + size - 1) // mp
        if first is None:
            first, num = (0, 0) if rng.random() < 0.6 else (rng.randint(0, last), None)
        if num is None:
            num = 0 if rng.random() < 0.3 else rng.randint(1, last - first + 1)
        blk = dict(src_addr=rng.randrange(1 << 48) if raddr is None else raddr,
                   dst_addr=laddr, size=size, dst_node=NODE_ID, tid=rng.randrange(1024),
                   seq=rng.randrange(65536), pd=rng.randrange(16) if pd is None else pd,
                   path=rng.randrange(4), xfer=rng.randrange(2048), rkey=rkey, lkey=lkey,
                   pkt_first=first, pkt_num=num)
        return wire(read_req_packet(blk, src, rng.randrange(65536), rng.randrange(256)),
                    f"READ_REQ src {src} tid {blk['tid']} size {size} run {first}+{num}")

    RD_BAD_KINDS = ("rd_size0", "rd_len", "rd_beats", "rd_many", "rd_run", "rd_first",
                    "rd_node")

    def bad_read(self, kind: str, src: int) -> Wire:
        """A malformed READ_REQ with a good CRC."""
        rng, mp = self.rng, self.p.max_payload
        w = self.read_req(src, size=rng.randint(1, 8 * mp))
        h = {k: v for k, v in NET_HDR.unpack(w.beats[0][0]).items()   # (the READ_REQ's
             if k not in ("inline_data", "size", "blocks", "tag")}     # view of bits 256..)
        last = (h["rd_laddr"] % mp + h["rd_size"] - 1) // mp
        payload = None
        if kind == "rd_size0":
            h["rd_size"] = 0
        elif kind == "rd_len":
            h["len"] = rng.randint(1, 64)
        elif kind == "rd_beats":
            h["len"], payload = 0, rng.randbytes(64)
        elif kind == "rd_many" and 256 * mp + 1 > (1 << 17) - 1:
            h["rd_size"] = 0                # (rd_size cannot name 257 packets of mp)
        elif kind == "rd_many":             # 257 packets or more
            h["rd_laddr"] -= h["rd_laddr"] % mp
            h["rd_size"] = rng.randint(256 * mp + 1, min(512 * mp, (1 << 17) - 1))
        elif kind in ("rd_run", "rd_first"):
            if rng.random() < 0.5:          # the block ends at a packet's end, the run or
                k = rng.randint(1, 8)       # the first packet just past it
                h["rd_size"] = k * mp - h["rd_laddr"] % mp
                last = k - 1
            edge = rng.random() < 0.5
            if kind == "rd_run":            # the run past the block's last packet
                h["pkt_idx"] = rng.randint(0, last)
                h["miss_cnt"] = (last - h["pkt_idx"] + 2 if edge
                                 else rng.randint(last - h["pkt_idx"] + 2, 511))
            else:                           # the first packet past the block's last
                h["pkt_idx"], h["miss_cnt"] = last + 1 if edge else rng.randint(last + 1, 511), 0
        elif kind == "rd_node":
            h["dst_node"] = NODE_ID ^ (1 << rng.randrange(16))
        pk = (one_beat_packet(h) if payload is None else
              data_packet(dict(h, dst_addr=0), payload))
        return wire(pk, f"bad {kind}")

    def resp_block(self, src, tid, size, dst, lkey=0, pd=0, drop=(), ask=()):
        """The read-response packets (DATA, resp set) the responder `src` sends back for
        this node's read block (tid) of `size` bytes at dst: this node's generation of
        the TID and its epoch, the key lkey; packets `drop` left out, those in `ask` with
        the ask bit."""
        rng, p = self.rng, self.p
        while len(packetize(dst, size, p.max_payload)) > p.max_blk_pkts:
            size //= 2
        data = rng.randbytes(size)
        seq = self.next_seq(src)
        gen = self.rgen.take(NODE_ID, tid, True)
        blk = dict(src_addr=0, dst_addr=dst, dst_node=NODE_ID, tid=tid, seq=seq, pd=pd,
                   fid=0, path=rng.randrange(4), notify=0, last=0, xfer=rng.randrange(2048),
                   size=size, rkey=lkey, resp=1)
        pk = block_packets(blk, lambda a, n: data[a:a + n], src, p.max_payload, gen,
                           self.my_epoch)
        out = []
        for i, x in enumerate(pk):
            if i in drop:
                continue
            w = wire(x, f"RESP src {src} tid {tid} gen {gen} pkt {i}/{len(pk)}")
            out.append(asked(w) if i in ask else w)
        return out

    BAD_KINDS = ("node", "type", "len0", "len_big", "cross", "bp0", "bp_big", "idx", "beats",
                 "long", "inl0", "inl_big", "inl_node", "ctrl_beats", "ack_beats",
                 "miss_beats", "miss_cnt0", "miss_run", "miss_node")

    def bad(self, kind: str, src: int) -> Wire:
        """A malformed packet with a good CRC, pointing at TRAP."""
        p, rng = self.p, self.rng
        mp = p.max_payload
        f = dict(ptype=NET_DATA, dst_node=NODE_ID, src_node=src, tid=rng.randrange(1024),
                 seq=rng.randrange(65536), pkt_idx=0, blk_pkts=1, len=64, dst_addr=TRAP,
                 xfer=rng.randrange(2048))
        payload = rng.randbytes(64)
        if kind == "node":
            f["dst_node"] = NODE_ID ^ (1 << rng.randrange(16))
        elif kind == "type":
            pt = rng.choice([t for t in range(5, 16) if t not in (NET_MISS, NET_REGISTER)])
            return wire(one_beat_packet(dict(f, ptype=pt, len=0)), "bad type")
        elif kind in ("miss_cnt0", "miss_run", "miss_node"):
            g = dict(ptype=NET_MISS, dst_node=NODE_ID, src_node=src, tid=f["tid"],
                     seq=f["seq"], pkt_idx=rng.randrange(256), miss_cnt=0)
            if kind == "miss_run":      # beyond packet 255
                g["pkt_idx"] = rng.randint(1, 511)
                g["miss_cnt"] = rng.randint(max(1, 257 - g["pkt_idx"]), 511)
            elif kind == "miss_node":
                g["dst_node"], g["miss_cnt"] = NODE_ID ^ 1, 1
            return wire(one_beat_packet(g), f"bad {kind}")
        elif kind == "len0":
            f["len"], payload = 0, b""
        elif kind == "len_big":
            f["len"] = mp + 1
            payload = rng.randbytes(mp + 1)
        elif kind == "cross":
            f["dst_addr"] = TRAP + mp - 10
            f["len"] = 20
            payload = rng.randbytes(20)
        elif kind == "bp0":
            f["blk_pkts"] = 0
        elif kind == "bp_big":
            f["blk_pkts"] = p.max_blk_pkts + 1
        elif kind == "idx":
            f["blk_pkts"] = rng.randint(1, p.max_blk_pkts)
            f["pkt_idx"] = rng.randint(f["blk_pkts"], 511)
        elif kind == "beats":
            f["len"] = 100          # two beats at lane 0, one sent
        elif kind == "long":
            f["len"] = mp
            payload = rng.randbytes(mp + 64 * rng.randint(1, 4))
        elif kind in ("inl0", "inl_big", "inl_node"):
            ln = 0 if kind == "inl0" else rng.randint(33, 63) if kind == "inl_big" else 8
            g = dict(ptype=NET_INLINE, dst_node=NODE_ID if kind != "inl_node" else NODE_ID + 1,
                     src_node=src, tid=f["tid"], seq=f["seq"], len=ln, dst_addr=TRAP,
                     notify=1, inline_data=rng.getrandbits(256))
            return wire(one_beat_packet(g), f"bad {kind}")
        elif kind in ("ctrl_beats", "ack_beats", "miss_beats"):
            f["ptype"] = {"ctrl_beats": NET_CONTROL, "ack_beats": NET_ACK}.get(kind, NET_MISS)
            f["miss_cnt"] = 1
        return wire(data_packet(f, payload), f"bad {kind}")


def random_stream(stim: Stim, nblocks: int, window: int = 6) -> list[Wire]:
    """Blocks of two sources interleaved packet by packet (random order within a block),
    with duplicates, flipped bits, abandoned blocks, late copies of earlier uses of a TID
    (their older generations), controls, inline packets, ACK/NACKs and malformed
    packets."""
    rng, p = stim.rng, stim.p
    out: list[Wire] = []
    delayed: list[tuple[int, Wire]] = []     # (send at len(out) >= this, wire)
    active: list[dict] = []
    todo = {s: nblocks for s in SRCS}
    tids = {s: list(range(24)) for s in SRCS}    # few TIDs: they are reused

    def later(w, lo=1, hi=60):
        delayed.append((len(out) + rng.randint(lo, hi), w))

    def old_copy(b):
        """A late copy of a packet (DATA, CONTROL, INLINE) of an earlier use of b's TID,
        with that use's generation; when the TID has none, a one-packet DATA of an older
        generation (1..1000 before b's) and seq."""
        uses = [u for u in stim.uses[(b["src"], b["tid"])]
                if 0 < (b["gen"] - u["gen"]) % 65536 < 32768]
        if uses:
            w = rng.choice(rng.choice(uses)["wires"])
            return Wire(w.beats, w.tuser, "late copy of " + w.what)
        ln = rng.randint(1, 100)
        f = dict(ptype=NET_DATA, dst_node=NODE_ID, src_node=b["src"], tid=b["tid"],
                 seq=(b["seq"] - rng.randint(1, 1000)) % 65536, pkt_idx=0,
                 blk_pkts=1, len=ln, dst_addr=stim.alloc.take(ln),
                 gen=(b["gen"] - rng.randint(1, 1000)) % 65536, epoch=stim.epoch[b["src"]])
        return wire(data_packet(f, rng.randbytes(ln)), "DATA of an older generation")

    stale_sent = [False]

    def random_inline(cross4k=False):
        src = rng.choice(SRCS)
        tid = stim.ntf_tid(src) if rng.random() < 0.5 else None
        if tid is None:
            return stim.inline(src, 900 + rng.randrange(100), notify=False, cross4k=cross4k)
        return stim.inline(src, tid, notify=True, cross4k=cross4k)

    def emit(w):
        r = rng.random()
        if r < 0.04:
            out.append(flipped(w, rng))          # corrupted copy, the good one follows
        out.append(w)
        if r > 0.95:
            later(w)                             # duplicate

    def start(src):
        busy = {b["tid"] for b in active if b["src"] == src}
        tid = stim.ntf_tid(src) if rng.random() < 0.35 else None
        if tid is None:
            tid = rng.choice([t for t in tids[src] if t not in busy])
        b = stim.block(src, tid, notify=tid >= 100)
        rng.shuffle(b["pkts"])
        b["pkts"] = [asked(w) if rng.random() < 0.15 else w for w in b["pkts"]]
        b["had_ctrl"] = b["notify"]
        if b["notify"]:
            r = rng.random()
            if r < 0.3:
                emit(b["ctrl"])                  # CONTROL before any DATA
                b["notify"] = False
            elif r < 0.6:
                b["ctrl_at"] = rng.randrange(len(b["pkts"]))  # in the middle
        active.append(b)
        todo[src] -= 1
        return b

    while any(todo.values()) or active or delayed:
        for s in SRCS:
            while todo[s] and sum(b["src"] == s for b in active) < window // 2:
                start(s)
        due = [x for x in delayed if x[0] <= len(out)]
        if due and rng.random() < 0.5:
            delayed.remove(due[0])
            out.append(due[0][1])
            continue
        r = rng.random()
        if r < 0.06:
            emit(random_inline(cross4k=rng.random() < 0.3))
            continue
        if r < 0.08:
            out.append(stim.ack(rng.choice(SRCS)) if r < 0.075 else stim.miss(rng.choice(SRCS)))
            continue
        if r < 0.09:
            out.append(stim.bad(rng.choice(Stim.BAD_KINDS), rng.choice(SRCS)))
            continue
        if not active:
            if delayed:
                out.append(delayed.pop(0)[1])
            continue
        b = rng.choice(active)
        if r < 0.105 and len(b["pkts"]) >= 2:
            # abandon b: a newer block of the same TID starts; b's rest arrives late (stale)
            active.remove(b)
            rest = b["pkts"]
            nb = stim.block(b["src"], b["tid"], notify=False)
            rng.shuffle(nb["pkts"])
            nb["had_ctrl"] = False
            emit(nb["pkts"].pop())
            if nb["pkts"]:
                active.append(nb)
            for w in rest:
                later(w, 1, 40)
            continue
        emit(b["pkts"].pop())
        if b["pkts"] and (not stale_sent[0] or rng.random() < 0.03):
            # b's entry is being filled: an older use of its TID is stale (at least once
            # per stream)
            stale_sent[0] = True
            out.append(old_copy(b))
        if b.get("ctrl_at") is not None and len(b["pkts"]) == b["ctrl_at"]:
            emit(b["ctrl"])
            b["notify"] = False
        if not b["pkts"]:
            active.remove(b)
            if b["notify"]:
                later(b["ctrl"], 0, 30)          # CONTROL after the block
            if rng.random() < 0.15:
                # a late copy of an earlier use: stale, whether the TID's entry is done or
                # a newer block of the TID is being filled
                later(old_copy(b), 0, 40)
            if b["had_ctrl"] and rng.random() < 0.2:
                later(b["ctrl"])                 # the CONTROL again
    # a few of the rare kinds in every stream, wherever they fall (a corrupted copy of a
    # packet is dropped wherever it comes)
    for _ in range(3):
        for w in (stim.bad(rng.choice(Stim.BAD_KINDS), rng.choice(SRCS)),
                  stim.ack(rng.choice(SRCS)), stim.miss(rng.choice(SRCS)),
                  random_inline()):
            out.insert(rng.randrange(len(out) + 1), w)
    out.insert(rng.randrange(len(out) + 1), flipped(rng.choice(out), rng))
    return out


# ------------------------------------------------------------------ test bench
class Memory:
    """Host memory behind cocotbext-axi's AxiSlaveWrite (its `target`): a write touching
    a bad 64-byte line raises, which AxiSlaveWrite answers with BRESP SLVERR; nothing of
    that beat is written."""

    def __init__(self, size: int):
        self.mem = bytearray(size)
        self.bad: set[int] = set()

    async def write(self, addr: int, data: bytes) -> None:
        if any(ln in self.bad for ln in lines_of(addr, len(data))):
            raise IOError(f"bad line at {addr:#x}")
        self.mem[addr:addr + len(data)] = data

    def poke(self, addr: int, data: bytes) -> None:
        self.mem[addr:addr + len(data)] = data

    def read(self, addr: int, n: int) -> bytes:
        return bytes(self.mem[addr:addr + n])


class TB:
    def __init__(self, dut, name: str, nq_size: int = 8, idle: float = 0.2,
                 stall: float = 0.3):
        self.dut = dut
        self.p = Params.from_env(os.environ)
        self.rng = seed_rng(name)
        self.nq_size = nq_size
        self.miss_drops: int | None = None  # MISS responses the unit may drop (None: any)
        self.prot: list[dict] | None = None  # window table (None: development mode)
        self.prot_at: dict[int, list[dict]] = {}  # the table from packet i of a run on
        self.rd_room: int | None = None     # read jobs the queue takes (None: all)
        self.errors: list[str] = []
        self.cycle = 0
        self.model: RxModel | None = None
        logging.getLogger(f"cocotb.{dut._name}.s_axis_rx").setLevel(logging.WARNING)
        # (ERROR: it warns of every write the Memory refuses, which the tests do on purpose)
        logging.getLogger(f"cocotb.{dut._name}.m_axi").setLevel(logging.ERROR)
        cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
        self.src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis_rx"), dut.clk, dut.rst)
        self.ram = Memory(MEM_SIZE)
        self.slave = AxiSlaveWrite(AxiWriteBus.from_prefix(dut, "m_axi"), dut.clk, dut.rst,
                                   target=self.ram)
        quiet(dut, "m_ack", "m_rsp", "m_rd")
        self.ack_snk = DataSink(DataBus.from_prefix(dut, "m_ack"), dut.clk, dut.rst)
        self.rsp_snk = DataSink(DataBus.from_prefix(dut, "m_rsp"), dut.clk, dut.rst)
        self.rd_snk = DataSink(DataBus.from_prefix(dut, "m_rd"), dut.clk, dut.rst)
        random_pause(self.rd_snk, self.rng, 0.1)
        self.set_idle(idle)
        self.set_backpressure(stall)
        # observed
        self.acks: list[int] = []
        self.rd_got: list[int] = []         # m_rd records
        self.rsps: list[dict] = []
        self.got = {"plain": 0, "ntf": 0}   # responses seen of each class
        self.taken: list[dict] = []         # ring entries taken by software
        self.aws: list[tuple[int, int]] = []  # [lo, hi) of every AW handshake
        self.nb = 0                         # B handshakes
        self.ntf_aw = 0                     # notification AWs seen valid
        self.ntf_base = 0                   # ntf_aw at the last cfg_nq_reset
        self.rsp_seen = 0                   # responses seen valid
        self.redo_rsps: list[dict] = []     # redo responses taken
        self.redo_i = 0                     # model redos matched or passed over
        self.miss_rsps: list[dict] = []     # MISS responses taken
        self.miss_i = 0                     # model MISS responses matched or passed over
        self.misses_in: list[int] = []      # m_miss records
        self.prot_got: list[dict] = []      # access NACKs taken
        self.prot_i = 0                     # model access NACKs matched or passed over
        self.tail = 0
        self.sw_on = True
        self.sw_poll = (20, 200)
        self.stats = collections.Counter()
        self.cov = collections.Counter()    # what the run exercised
        self.ev: dict[str, list[int]] = collections.defaultdict(list)   # cycle stamps
        self.mem0 = b""

    # ---- stream knobs
    def set_idle(self, idle: float):
        random_pause(self.src, self.rng, idle)

    def set_backpressure(self, stall: float):
        for ch in (self.slave.aw_channel, self.slave.w_channel, self.slave.b_channel,
                   self.ack_snk, self.rsp_snk):
            random_pause(ch, self.rng, stall)

    def err(self, msg: str):
        if len(self.errors) < 20:
            self.dut._log.error("cycle %d: %s", self.cycle, msg)
        self.errors.append(msg)

    # ---- set-up
    async def reset(self, wait_init: bool = False):
        d = self.dut
        d.rst.value = 1
        d.node_id.value = NODE_ID
        d.s_axis_rx_tvalid.value = 0
        d.cfg_nq_base.value = RING_BASE
        d.cfg_nq_size.value = self.nq_size
        d.cfg_nq_tail.value = 0
        d.cfg_nq_reset.value = 0
        d.cfg_esc_timeout.value = 0          # blocks wait for their registration for ever
        d.cfg_prot_open.value = int(self.prot is None)
        d.win_we.value = 0
        mem = bytearray(self.rng.randbytes(MEM_SIZE))
        mem[RING_BASE:] = bytes(MEM_SIZE - RING_BASE)
        self.mem0 = bytes(mem)
        self.ram.poke(0, self.mem0)
        for _ in range(5):
            await RisingEdge(d.clk)
        d.rst.value = 0
        cocotb.start_soon(self._monitor())
        cocotb.start_soon(self._software())
        if wait_init:
            for _ in range(self.p.entries + 10):
                await RisingEdge(d.clk)

    async def write_windows(self, table: list[dict] | None = None):
        """Writes `table` (default: self.prot) into the window table, one entry per
        cycle."""
        d = self.dut
        for i, w in enumerate(self.prot if table is None else table):
            await RisingEdge(d.clk)
            d.win_we.value = 1
            d.win_index.value = i
            d.win_base.value, d.win_len.value = w["base"], w["len"]
            d.win_tag.value, d.win_pd.value = w["tag"], w["pd"]
            d.win_wr.value, d.win_valid.value = w["wr"], w["valid"]
            d.win_rd.value, d.win_lwr.value = w.get("rd", 0), w.get("lwr", 0)
        await RisingEdge(d.clk)
        d.win_we.value = 0
        for _ in range(4):
            await RisingEdge(d.clk)

    def new_model(self, items: list[Wire], ring_off=frozenset(), rel=None) -> RxModel:
        return RxModel(self.p, NODE_ID, frozenset(self.ram.bad), self.prot, self.rd_room).run(
            items, ring_off, rel, self.prot_at)

    # ---- handshakes the sinks took (called by the monitor with the handshake's cycle)
    def _on_ack(self, item):
        i = len(self.acks)
        self.acks.append(item["data"])
        exp = self.model.acks
        if i >= len(exp):
            self.err(f"extra m_ack {ACK_DESC.unpack(item['data'])}")
        elif item["data"] != exp[i]:
            self.err(f"m_ack #{i}: {ACK_DESC.unpack(item['data'])} expected "
                     f"{ACK_DESC.unpack(exp[i])}")

    def _on_rd(self, data: int):
        i = len(self.rd_got)
        self.rd_got.append(data)
        exp = self.model.rd_jobs
        if i >= len(exp):
            self.err(f"extra m_rd {RD_JOB.unpack(data)}")
        elif data != exp[i]:
            self.err(f"m_rd #{i}: {RD_JOB.unpack(data)} expected {RD_JOB.unpack(exp[i])}")

    def _match_rsp(self, data: int):
        """The class and expected response an observed response is the next one of (for
        a redo: the next one the model sends, past redos it drops or may drop)."""
        got = RSP_DESC.unpack(data)
        if got["nack"] and got["reason"] == C["ERR_REMOTE_ACCESS"]:
            # the next of the model's access NACKs that equals it (dropped: no room)
            for r in self.model.prot_rsps[self.prot_i:]:
                if all(got[k] == r[k] for k in got if k != "rsvd"):
                    return "prot", r
            return None, None
        if got["miss"]:
            # the next of the model's MISS responses that equals it (the unit drops those
            # it has no room for)
            for r in self.model.miss_rsps[self.miss_i:]:
                if all(got[k] == r[k] for k in got):
                    return "miss", r
            return None, None
        for cls in ("plain", "ntf"):
            exp = self.model.rsps[cls]
            i = self.got[cls]
            if i < len(exp) and all(got[k] == exp[i][k] for k in got if k != "rsvd"):
                return cls, exp[i]
        for r in self.model.redos[self.redo_i:]:
            if r["st"] != "drop" and all(got[k] == r[k] for k in got if k != "rsvd"):
                return "redo", r
            if r["st"] == "sent":
                break
        return None, None

    def _on_rsp(self, item):
        self.ev["rsp_hs"].append(self.cycle)
        cls, e = self._match_rsp(item["data"])
        if cls == "prot":
            self.prot_got.append(item)
            self.prot_i = self.model.prot_rsps.index(e, self.prot_i) + 1
            self.cov["access NACKs"] += 1
            return
        if cls == "miss":
            self.miss_rsps.append(item)
            self.miss_i = self.model.miss_rsps.index(e, self.miss_i) + 1
            self.cov["miss responses"] += 1
            return
        if cls != "redo":
            self.rsps.append(item)
        if cls is None:
            heads = {c: ({k: v for k, v in self.model.rsps[c][self.got[c]].items()
                          if k != "ranges"} if self.got[c] < len(self.model.rsps[c]) else None)
                     for c in ("plain", "ntf")}
            rd = [{k: r[k] for k in ("tid", "seq", "nack", "st")}
                  for r in self.model.redos[self.redo_i:self.redo_i + 3]]
            ms = self.model.miss_rsps[self.miss_i:self.miss_i + 3]
            self.err(f"response {RSP_DESC.unpack(item['data'])} is neither next expected "
                     f"one: {heads}, redo {rd}, MISS {ms}")
            return
        if cls == "redo":
            self.redo_rsps.append(item)
            self.redo_i = self.model.redos.index(e, self.redo_i) + 1
            # never ahead of the ACK it repeats, which was held for its notification
            if e["ntf_idx"] is not None and self.got["ntf"] <= e["ntf_idx"]:
                self.err(f"redo ACK {e['tid']}/{e['seq']} before its held ACK "
                         f"(notification #{e['ntf_idx']})")
        else:
            self.got[cls] += 1
        self.cov[f"{cls} responses"] += 1

    # ---- checks of one cycle
    def _covered_done(self, ranges, what: str, pend_aw=None):
        """The data of `ranges` is in memory and every burst that wrote it has its B."""
        open_aws = self.aws[self.nb:] + ([pend_aw] if pend_aw else [])
        for a, data in ranges:
            for lo, hi in open_aws:
                if lo < a + len(data) and a < hi:
                    self.err(f"{what} before the B of the burst [{lo:#x},{hi:#x}) "
                             f"writing [{a:#x},+{len(data)})")
            if self.ram.read(a, len(data)) != data:
                self.err(f"{what}: memory at [{a:#x},+{len(data)}) does not hold the data")

    def _on_ntf_aw(self, addr: int, ln: int, pend_aw):
        i = self.ntf_aw
        self.ntf_aw += 1
        k = i - self.ntf_base                # entries since the last cfg_nq_reset
        slot = (addr - RING_BASE) // 64
        if ln != 0 or addr % 64:
            self.err(f"notification AW {addr:#x} len {ln}")
        if self.nq_size == 0:
            self.err("notification written with NQ_SIZE 0")
            return
        if slot != k % self.nq_size:
            self.err(f"notification #{i} at slot {slot}, expected {k % self.nq_size}")
        if k - self.tail >= self.nq_size:
            self.err(f"notification #{i} with tail {self.tail}: ring full")
        if self.ram.read(addr, 1)[0] != NOTIF_EMPTY:
            self.err(f"notification #{i} overwrites an entry software has not taken")
        if i < len(self.model.notifs):
            self._covered_done(self.model.notifs[i]["ranges"], f"notification #{i}", pend_aw)
        else:
            self.err(f"extra notification #{i}")

    async def _monitor(self):
        d = self.dut
        aw_pend = rsp_pend = False
        stat_names = ("data_pkt", "ctrl_pkt", "crc_drop", "dup_drop", "stale_drop",
                      "bad_drop", "notif", "notif_off", "nack", "mem_err", "redo_evt",
                      "redo", "redo_drop", "miss", "miss_drop", "prot_drop", "read_req",
                      "read_drop", "reg", "early")
        while True:
            await RisingEdge(d.clk)
            await ReadOnly()
            # the sinks sampled the m_ack / m_rsp handshakes of cycle self.cycle at this edge
            while not self.ack_snk.empty():
                self._on_ack({"data": int(self.ack_snk.recv_nowait().data)})
            while not self.rsp_snk.empty():
                self._on_rsp({"data": int(self.rsp_snk.recv_nowait().data)})
            while not self.rd_snk.empty():
                self._on_rd(int(self.rd_snk.recv_nowait().data))
            self.cycle += 1
            if int(d.m_miss_valid.value):
                v = int(d.m_miss_data.value)
                i = len(self.misses_in)
                self.misses_in.append(v)
                exp = self.model.misses_in
                if i >= len(exp) or v != exp[i]:
                    self.err(f"m_miss #{i}: {MISS_DESC.unpack(v)} expected "
                             f"{MISS_DESC.unpack(exp[i]) if i < len(exp) else None}")
            if int(d.s_axis_rx_tvalid.value) and int(d.s_axis_rx_tready.value):
                self.ev["in_beat"].append(self.cycle)
                if int(d.s_axis_rx_tlast.value):
                    self.ev["in_last"].append(self.cycle)
            aw_v, aw_r = int(d.m_axi_awvalid.value), int(d.m_axi_awready.value)
            addr, ln = int(d.m_axi_awaddr.value), int(d.m_axi_awlen.value)
            cur_aw = (addr, addr + 64 * (ln + 1))
            # response / notification AW: checked in the first cycle they are valid,
            # before this cycle's B counts
            rsp_v = int(d.m_rsp_valid.value)
            if rsp_v and not rsp_pend:
                self.ev["rsp"].append(self.cycle)
                self.rsp_seen += 1
                _, e = self._match_rsp(int(d.m_rsp_data.value))
                if e is not None and not e["miss"]:
                    self._covered_done(e["ranges"], f"response {e['tid']}/{e['seq']}",
                                       cur_aw if aw_v else None)
            rsp_pend = bool(rsp_v and not int(d.m_rsp_ready.value))
            if aw_v and not aw_pend:
                self.ev["aw"].append(self.cycle)
                if int(d.m_axi_awsize.value) != 6 or int(d.m_axi_awburst.value) != 1 \
                        or int(d.m_axi_awid.value) != 0:
                    self.err("AW size/burst/id")
                if cur_aw[1] > MEM_SIZE:
                    self.err(f"AW beyond memory {addr:#x}")
                if addr >= RING_BASE:
                    self.ev["ntf_aw"].append(self.cycle)
                    self._on_ntf_aw(addr, ln, None)
            if aw_v and aw_r:
                self.aws.append(cur_aw)
            aw_pend = bool(aw_v and not aw_r)
            if int(d.m_axi_wvalid.value) and int(d.m_axi_wready.value):
                self.ev["w"].append(self.cycle)
            if int(d.nq_wait.value):
                self.cov["ring full cycles"] += 1
            if int(d.s_axis_rx_tvalid.value) and not int(d.s_axis_rx_tready.value):
                self.cov["tready low cycles"] += 1
            if int(d.m_axi_bvalid.value) and int(d.m_axi_bready.value):
                self.nb += 1
                self.ev["b"].append(self.cycle)
            for s in stat_names:
                if int(getattr(d, f"stat_{s}").value):
                    self.stats[s] += 1
                    self.ev[s].append(self.cycle)
            self.stats["bytes"] += int(d.stat_bytes.value)
            self.stats["reg_drop"] += int(d.stat_reg_drop.value)

    async def _software(self):
        """Takes ring entries: checks them, writes the marker back to NOTIF_EMPTY and
        advances NQ_TAIL, slowly."""
        d = self.dut
        while True:
            for _ in range(self.rng.randint(*self.sw_poll)):
                await RisingEdge(d.clk)
            if not self.sw_on or self.nq_size == 0:
                continue
            addr = RING_BASE + 64 * (self.tail % self.nq_size)
            raw = self.ram.read(addr, 64)
            if raw[0] != NOTIF_FULL:
                continue
            got = NOTIF_ENTRY.unpack(int.from_bytes(raw, "little"))
            i = len(self.taken)
            self.taken.append(got)
            exp = self.model.notifs
            if i >= len(exp):
                self.err(f"extra notification {got}")
            else:
                want = {k: v for k, v in exp[i].items() if k != "ranges"}
                if got != want:
                    self.err(f"notification #{i}: {got} expected {want}")
            self.ram.poke(addr, bytes([NOTIF_EMPTY]))
            self.tail += 1
            d.cfg_nq_tail.value = self.tail

    # ---- run a packet sequence
    async def run(self, items: list[Wire], quiet: int = 400, then: list[Wire] = ()):
        """Send items; `then` (blocks that reuse TIDs of items) only once every response
        to items is out, as a sender reuses a TID only after its response (docs/nic.md
        "Receive unit", block tracking)."""
        self.model = self.new_model(items + list(then))
        m = self.model
        self.dut._log.info("%d packets: %s; %d responses (%d with a notification), "
                           "%d notifications, %d m_ack",
                           len(items) + len(then), dict(collections.Counter(m.outcomes)),
                           m.nrsp, len(m.rsps["ntf"]), len(m.notifs), len(m.acks))
        for w in items:
            self.src.send_nowait(w.frame())
        if then:
            n = self.new_model(items).nrsp
            await self.until(lambda: len(self.rsps) >= n, f"{n} responses before the reuse")
            for w in then:
                self.src.send_nowait(w.frame())
        await self.wait_done()
        for _ in range(quiet):                  # nothing more may come
            await RisingEdge(self.dut.clk)
        self.final_checks()

    def progress(self):
        return (len(self.ev["in_beat"]), len(self.rsps), len(self.acks), len(self.taken),
                self.nb, len(self.miss_rsps), len(self.misses_in), len(self.prot_got),
                len(self.rd_got))

    async def until(self, cond, what: str):
        """Wait for cond(); fail when nothing moves for STUCK cycles or a check failed."""
        last, since = None, 0
        while not cond():
            await RisingEdge(self.dut.clk)
            pr = self.progress()
            since = 0 if pr != last else since + 1
            last = pr
            assert since < STUCK, f"stuck waiting for {what}: (beats in, responses, " \
                                  f"m_ack, entries taken, B, MISS responses, m_miss) = " \
                                  f"{pr}; stat pulses {dict(self.stats)}"
            assert not self.errors, self.errors[0]

    async def wait_done(self):
        m = self.model
        await self.until(lambda: (self.src.empty() and not self.src.active
                                  and len(self.rsps) >= m.nrsp
                                  and len(self.acks) >= len(m.acks)
                                  and len(self.rd_got) >= len(m.rd_jobs)
                                  and len(self.taken) >= (len(m.notifs) if self.nq_size else 0)
                                  and self.nb >= len(self.aws)
                                  and self.redos_done() and self.misses_done()),
                         f"{m.nrsp} responses, {len(m.acks)} m_ack, "
                         f"{len(m.notifs)} notifications")

    def redos_done(self, m=None) -> bool:
        """Every redo of the model decided (sent or dropped) and every one sent taken."""
        m = m or self.model
        return (self.stats["redo"] + self.stats["redo_drop"] >= len(m.redos)
                and len(self.redo_rsps) >= self.stats["redo"])

    def misses_done(self, m=None) -> bool:
        """Every MISS response of the model queued or dropped, every one queued taken, and
        every m_miss record out."""
        m = m or self.model
        return (self.stats["miss"] + self.stats["miss_drop"]
                >= len(m.miss_rsps) + len(m.prot_rsps)
                and len(self.miss_rsps) + len(self.prot_got) >= self.stats["miss"]
                and len(self.misses_in) >= len(m.misses_in))

    def check_misses(self, m=None, drops: int | None = 0):
        """MISS responses: each one the model has either came (in order, matched by
        _on_rsp) or was dropped, and the counters say which; `drops`: how many may be
        dropped (None: any number). m_miss records: exactly the model's."""
        m = m or self.model
        # (access NACKs share the MISS answers' path and counters)
        assert self.stats["miss"] == len(self.miss_rsps) + len(self.prot_got), \
            (self.stats["miss"], len(self.miss_rsps), len(self.prot_got))
        assert self.stats["miss"] + self.stats["miss_drop"] \
            == len(m.miss_rsps) + len(m.prot_rsps), \
            (self.stats["miss"], self.stats["miss_drop"], len(m.miss_rsps), len(m.prot_rsps))
        if drops is not None:
            assert self.stats["miss_drop"] == drops, (self.stats["miss_drop"], drops)
        assert self.misses_in == m.misses_in, (len(self.misses_in), len(m.misses_in))

    def check_redos(self, m=None):
        """Redo responses: those the model sends all came, those it drops none (matched
        in order by _on_rsp), and the counters say so."""
        m = m or self.model
        sent = sum(r["st"] == "sent" for r in m.redos)
        maybe = sum(r["st"] == "maybe" for r in m.redos)
        left = m.redos[self.redo_i:]
        assert all(r["st"] != "sent" for r in left), ("redo responses missing", left[:3])
        assert sent <= len(self.redo_rsps) <= sent + maybe, (len(self.redo_rsps), sent, maybe)
        assert self.stats["redo_evt"] == m.stats["redo_evt"] == len(m.redos), \
            (self.stats["redo_evt"], len(m.redos))
        assert self.stats["redo"] == len(self.redo_rsps), (self.stats["redo"], len(self.redo_rsps))
        assert self.stats["redo_drop"] == len(m.redos) - len(self.redo_rsps), \
            (self.stats["redo_drop"], len(m.redos), len(self.redo_rsps))

    def final_checks(self):
        m, d = self.model, self.dut
        assert not self.errors, f"{len(self.errors)} errors, first: {self.errors[0]}"
        self.check_redos()
        self.check_misses(drops=self.miss_drops)
        assert len(self.rsps) == m.nrsp, "response count"
        assert self.got == {c: len(m.rsps[c]) for c in m.rsps}, (self.got, "response classes")
        assert len(self.acks) == len(m.acks), "m_ack count"
        assert self.rd_got == m.rd_jobs, (len(self.rd_got), len(m.rd_jobs), "m_rd records")
        if self.nq_size:
            assert len(self.taken) == len(m.notifs), "notification count"
            assert self.ntf_aw == len(m.notifs), "notification writes"
        else:
            assert self.ntf_aw == 0
        assert int(d.nq_head.value) == self.ntf_aw - self.ntf_base, "nq_head"
        mem_err = sum(1 for lo, hi in self.aws
                      if any(ln in self.ram.bad for ln in range(lo // 64, hi // 64)))
        want = collections.Counter({"data_pkt": m.stats["data"], "ctrl_pkt": m.stats["ctrl"],
                                    "crc_drop": m.stats["crc"], "dup_drop": m.stats["dup"],
                                    "stale_drop": m.stats["stale"], "bad_drop": m.stats["bad"],
                                    "notif": self.ntf_aw, "bytes": m.stats["bytes"],
                                    "nack": m.stats["nack"], "notif_off": m.stats["notif_off"],
                                    "mem_err": mem_err, "prot_drop": m.stats["prot"],
                                    "read_req": m.stats["read_req"],
                                    "read_drop": m.stats["read_drop"],
                                    "reg": m.reg.stats["reg"], "early": m.stats["early"],
                                    "reg_drop": m.stats["reg_drop"]})
        for k in want:
            assert self.stats[k] == want[k], f"stat_{k}: {self.stats[k]} expected {want[k]}"
        # memory: initial + the model's writes; the ring as written, markers taken
        exp = bytearray(self.mem0)
        for a, data in m.writes:
            exp[a:a + len(data)] = data
        for i, n in enumerate(m.notifs if self.nq_size else []):
            v = NOTIF_ENTRY.pack(**{k: x for k, x in n.items() if k != "ranges"})
            slot = RING_BASE + 64 * (i % self.nq_size)
            exp[slot:slot + 64] = v.to_bytes(64, "little")
            exp[slot] = NOTIF_EMPTY
        got = self.ram.read(0, MEM_SIZE)
        if got != bytes(exp):
            bad = [i for i in range(0, MEM_SIZE, 64) if got[i:i + 64] != exp[i:i + 64]]
            raise AssertionError(f"memory differs in {len(bad)} beats, first at {bad[0]:#x}")


# ------------------------------------------------------------------ tests
DIRECTED = os.environ.get("P_DIRECTED", "1") == "1"


@cocotb.test()
async def rx_random(dut):
    tb = TB(dut, "rx_random", nq_size=4)
    await tb.reset()
    n = int(os.environ.get("P_N", "40"))
    items = random_stream(Stim(tb.p, tb.rng), n)
    # a few bad memory lines under random destinations: their blocks are NACKed. Only
    # under packets after which their TID carries no other sequence number: a sender
    # reuses a TID only after the block's response (docs/nic.md "Receive unit", block
    # tracking), which a stream made in advance cannot wait for
    hs = [NET_HDR.unpack(w.beats[0][0]) for w in items]
    ok, later_seqs = [], collections.defaultdict(set)
    for h in reversed(hs):
        k = (h["src_node"] % tb.p.num_nodes, h["tid"])
        ok.append(later_seqs[k] <= {h["seq"]})
        later_seqs[k].add(h["seq"])
    ok.reverse()
    for h in tb.rng.sample([h for h, o in zip(hs, ok) if o], 6):
        if h["ptype"] in (NET_DATA, NET_INLINE) and BLOCK_BASE <= h["dst_addr"] < RING_BASE:
            tb.ram.bad.add(h["dst_addr"] // 64)
    # phases of load: the knobs change while the stream runs; software is away from the
    # start until the ring is full and a notification waits for room (or no notification
    # is left to come) and stays away a while, so that every stream with more
    # notifications than the ring holds makes one wait
    async def phases():
        tb.sw_on = False
        await tb.until(lambda: tb.cov["ring full cycles"] > 0
                       or tb.ntf_aw >= len(tb.model.notifs), "a notification waiting for room")
        for _ in range(1000):
            await RisingEdge(dut.clk)
        tb.sw_on = True
        while True:
            for _ in range(tb.rng.randint(500, 3000)):
                await RisingEdge(dut.clk)
            tb.set_idle(tb.rng.choice((0.0, 0.1, 0.5)))
            tb.set_backpressure(tb.rng.choice((0.0, 0.2, 0.6)))
            tb.sw_poll = tb.rng.choice(((5, 50), (20, 200), (300, 1500)))   # slow software
    cocotb.start_soon(phases())
    await tb.run(items)
    c = collections.Counter(tb.model.outcomes)
    dut._log.info("coverage: %s", dict(tb.cov))
    for k in ("data", "inline", "control", "ack", "crc", "bad", "dup", "stale"):
        assert c[k] > 0 or n < 20, f"random stream without a {k} packet"
    dut._log.info("stale packets on done entries: %d", tb.model.stale_done)
    assert tb.model.stale_done > 0 or n < 20, "no stale packet on a done entry"
    assert tb.cov["ring full cycles"] > 0 or len(tb.model.notifs) < tb.nq_size + 2, \
        "the ring was never full"
    assert tb.model.stats["nack"] > 0 or n < 20, "no block hit a bad line"


def prot_windows(rng, items: list[Wire], n: int = 64,
                 regions: int = 8) -> tuple[list[dict], int]:
    """A window table for the packets `items` and the size of its parts: windows 0 ..
    regions-1 each over one of `regions` equal parts of the destination area the packets
    use (the last one up to the ring), with a random tag (1..255) and
    protection domain, one without write permission, one deregistered, the other entries
    empty. Most windows have an end moved into a DATA packet of their part (its base a
    byte or more past the packet's first byte, or its end a byte or more before the
    packet's last one), so that packets straddle the windows' ends."""
    hs = [NET_HDR.unpack(w.beats[0][0]) for w in items]
    used = [h for h in hs if h["ptype"] == NET_DATA and BLOCK_BASE <= h["dst_addr"] < RING_BASE]
    top = max((h["dst_addr"] + h["len"] for h in used), default=RING_BASE)
    size = -(-(top - BLOCK_BASE) // regions)
    pkts = collections.defaultdict(list)      # part -> (dst_addr, len) of its DATA packets
    for h in used:
        if h["len"] > 1:
            pkts[(h["dst_addr"] - BLOCK_BASE) // size].append((h["dst_addr"], h["len"]))
    out = []
    for i in range(n):
        w = dict(base=0, len=0, tag=0, pd=0, wr=0, valid=0)
        if i < regions:
            lo = BLOCK_BASE + i * size
            hi = BLOCK_BASE + (i + 1) * size if i < regions - 1 else RING_BASE
            cut = rng.random()
            # a packet of the part may run past its end: the moved base or end stays
            # inside both the packet and the part
            inner = [(da, ln) for da, ln in pkts[i] if da + 1 < hi]
            if inner and cut < 0.4:                      # the base inside a packet
                da, ln = rng.choice(inner)
                lo = rng.randint(da + 1, min(da + ln, hi) - 1)
            elif pkts[i] and cut < 0.8:                  # the end inside a packet
                da, ln = rng.choice(pkts[i])
                hi = rng.randint(da + 1, min(da + ln - 1, hi))
            w = dict(base=lo, len=hi - lo, tag=rng.randint(1, 255), pd=rng.randint(0, 15),
                     wr=int(i != 5), valid=int(i != 6))
            assert w["len"] > 0, w
        out.append(w)
    return out, size


def with_key(w: Wire, rkey: int, pd: int) -> Wire:
    """The packet with another remote key and protection domain, its CRC made again
    (a packet sent with a bad CRC keeps a bad one)."""
    h = NET_HDR.unpack(w.beats[0][0])
    good = crc_of(w.beats) == w.tuser
    h["rkey"], h["pd"] = rkey, pd
    beats = [(NET_HDR.pack(**h), w.beats[0][1])] + list(w.beats[1:])
    crc = crc_of(beats)
    return Wire(beats, crc if good else crc ^ 1, w.what)


@cocotb.test()
async def rx_prot(dut):
    """The window check (docs/protection.md) on the random stream: the packets of each
    block carry one key, most often the right one for the window over their first
    packet's address, else a wrong tag, a wrong protection domain, a key past the table,
    an empty entry's or 0; windows without write permission, deregistered, and with
    ends inside blocks. Checked against the model: nothing refused is written (the whole
    memory), every refused packet counted (stat_prot_drop) and answered by a NACK
    ERR_REMOTE_ACCESS, everything else as in rx_random."""
    tb = TB(dut, "rx_prot", nq_size=8)
    rng = tb.rng
    n = int(os.environ.get("P_N", "40"))
    items = random_stream(Stim(tb.p, rng), n)
    tb.prot, size = prot_windows(rng, items)
    await tb.reset(wait_init=True)
    await tb.write_windows()
    tag_w = C["RKEY_TAG_W"]
    choice: dict[tuple, tuple[int, int]] = {}
    out = []
    for w in items:
        h = NET_HDR.unpack(w.beats[0][0])
        if h["ptype"] not in (NET_DATA, NET_INLINE):
            out.append(w)
            continue
        blk = (h["src_node"], h["tid"], h["gen"], h["epoch"])
        if blk not in choice:
            r = min(max(h["dst_addr"] - BLOCK_BASE, 0) // size, 7)
            win = tb.prot[r]
            key, pd = (r << tag_w) | win["tag"], win["pd"]
            bad = rng.random()
            if bad < 0.08:
                key ^= rng.randint(1, (1 << tag_w) - 1)          # wrong tag
            elif bad < 0.14:
                pd = (pd + rng.randint(1, 15)) % 16              # another domain
            elif bad < 0.18:
                key = (rng.randint(64, (1 << (32 - tag_w)) - 1) << tag_w) | win["tag"]
            elif bad < 0.21:
                key = (rng.randint(8, 63) << tag_w) | rng.randint(0, 255)   # empty entry
            elif bad < 0.23:
                key = 0
            choice[blk] = (key, pd)
        out.append(with_key(w, *choice[blk]))
    # an INLINE packet written, whatever the windows and keys drawn: the first one gets a
    # window of its own (entry 8) if none lets it in
    hs = [NET_HDR.unpack(w.beats[0][0]) for w in out]
    inl = [i for i, h in enumerate(hs) if h["ptype"] == NET_INLINE
           and out[i].what.startswith("INLINE") and crc_of(out[i].beats) == out[i].tuser]
    if inl and not any(permits(tb.prot, hs[i]) for i in inl):
        h = hs[inl[0]]
        tb.prot[8] = dict(base=h["dst_addr"], len=h["len"], tag=rng.randint(1, 255), pd=h["pd"],
                          wr=1, valid=1)
        await tb.write_windows()
        out[inl[0]] = with_key(out[inl[0]], (8 << tag_w) | tb.prot[8]["tag"], h["pd"])
    await tb.run(out)
    c = collections.Counter(tb.model.outcomes)
    dut._log.info("outcomes: %s; coverage: %s", dict(c), dict(tb.cov))
    for k in ("data", "inline", "prot"):
        assert c[k] > 0 or n < 20, f"random stream without a {k} packet"
    # packets refused only because they straddle a window's end: the right key, domain
    # and permission, the first or the last byte outside
    straddle = 0
    for w in out:
        h = NET_HDR.unpack(w.beats[0][0])
        idx = h["rkey"] >> C["RKEY_TAG_W"]
        if h["ptype"] == NET_DATA and idx < len(tb.prot):
            win = tb.prot[idx]
            if (win["valid"] and win["wr"] and win["tag"] == h["rkey"] % 256
                    and win["pd"] == h["pd"]):
                a, e = h["dst_addr"], h["dst_addr"] + h["len"]
                lo, hi = win["base"], win["base"] + win["len"]
                straddle += (a < lo < e) or (a < hi < e)
    dut._log.info("packets across a window's end: %d", straddle)
    assert straddle > 0 or n < 20, "no packet across a window's end"


@cocotb.test(skip=not DIRECTED)
async def rx_prot_dereg(dut):
    """A window deregistered while a block is half in (docs/protection.md): the block's
    packets checked before are written, those after are refused (NACK ERR_REMOTE_ACCESS,
    stat_prot_drop), no ACK; the window registered again with a new tag: the block's
    next use with the old key is refused whole, with the new key written and ACKed."""
    tb = TB(dut, "rx_prot_dereg", nq_size=8)
    stim = Stim(tb.p, tb.rng)
    mp, tag_w = tb.p.max_payload, C["RKEY_TAG_W"]
    n = min(tb.p.max_blk_pkts, 16)
    size = n * mp
    base = BLOCK_BASE + 4 * mp
    win = dict(base=base, len=size + 3 * mp, tag=0x5A, pd=3, wr=1, valid=1)
    empty = dict(base=0, len=0, tag=0, pd=0, wr=0, valid=0)
    t0 = [dict(win) if i == 2 else dict(empty) for i in range(64)]
    t1 = [dict(empty) for _ in range(64)]                                # deregistered
    t2 = [dict(win, tag=0xA7) if i == 2 else dict(empty) for i in range(64)]
    key0, key2 = (2 << tag_w) | 0x5A, (2 << tag_w) | 0xA7
    b1 = stim.block(SRCS[0], 9, size=size, notify=False, dst=base)
    b2 = stim.block(SRCS[0], 9, size=size, notify=False, dst=base)      # the next use
    b3 = stim.block(SRCS[0], 9, size=size, notify=False, dst=base)
    ph1 = [with_key(w, key0, 3) for w in b1["pkts"][:n // 2]]
    ph2 = [with_key(w, key0, 3) for w in b1["pkts"][n // 2:]]
    ph3 = [with_key(w, key0, 3) for w in b2["pkts"]] + [with_key(w, key2, 3) for w in b3["pkts"]]
    tb.prot = t0
    tb.prot_at = {len(ph1): t1, len(ph1) + len(ph2): t2}
    await tb.reset(wait_init=True)
    await tb.write_windows()
    tb.model = tb.new_model(ph1 + ph2 + ph3)
    m = tb.model

    for w in ph1:
        tb.src.send_nowait(w.frame())
    await tb.until(lambda: tb.stats["data_pkt"] >= len(ph1), "the first half written")
    await tb.write_windows(t1)
    for w in ph2:
        tb.src.send_nowait(w.frame())
    await tb.until(lambda: tb.stats["prot_drop"] >= len(ph2), "the second half refused")
    await tb.write_windows(t2)
    for w in ph3:
        tb.src.send_nowait(w.frame())
    await tb.wait_done()
    for _ in range(300):
        await RisingEdge(dut.clk)
    tb.final_checks()
    assert m.outcomes == (["data"] * len(ph1) + ["prot"] * (len(ph2) + len(b2["pkts"]))
                          + ["data"] * len(b3["pkts"])), m.outcomes
    assert tb.stats["prot_drop"] == len(ph2) + len(b2["pkts"])
    assert len(tb.prot_got) == len(ph2) + len(b2["pkts"])
    got = [RSP_DESC.unpack(x["data"]) for x in tb.rsps]
    assert [(r["tid"], r["seq"], r["nack"]) for r in got] == [(9, b3["seq"], 0)], got


@cocotb.test()
async def rx_read(dut):
    """Remote reads at the receive unit (docs/nic.md "Remote reads", docs/protection.md)
    with the window check on. READ_REQs for this node's memory: inside a window with read
    permission (whole blocks and runs: their jobs on m_rd exactly), across its end, under
    a window with write permission only, a deregistered one, a wrong protection domain
    (refused: NACK ERR_REMOTE_ACCESS to the requester, counted), malformed ones (dropped
    as bad). Read responses (DATA with resp set) for this node's own reads: under a
    window with local-write permission written, tracked in this node's entry and answered
    to this node (ACK; MISS for an asking packet with one missing, then the ACK once it
    comes; a duplicate dropped); under a window with remote-write permission only
    refused with a NACK to this node. Plain DATA under the local-write window refused,
    under the write window written. Everything against the model."""
    tb = TB(dut, "rx_read", nq_size=8)
    rng, p = tb.rng, tb.p
    stim = Stim(p, rng)
    mp, tag_w = p.max_payload, C["RKEY_TAG_W"]
    empty = dict(base=0, len=0, tag=0, pd=0, wr=0, valid=0)
    rbase, rlen = 0x40_0000_0000, 1 << 24            # memory readable by the peers
    lbase = BLOCK_BASE                                # where this node's reads land
    llen = 96 * mp
    wbase = BLOCK_BASE + 128 * mp                     # where the peers may write
    wlen = 64 * mp
    win = {0: dict(base=rbase, len=rlen, tag=rng.randint(1, 255), pd=3, wr=0, rd=1, lwr=0,
                   valid=1),
           1: dict(base=lbase, len=llen, tag=rng.randint(1, 255), pd=5, wr=0, rd=0, lwr=1,
                   valid=1),
           2: dict(base=wbase, len=wlen, tag=rng.randint(1, 255), pd=7, wr=1, rd=0, lwr=0,
                   valid=1),
           3: dict(base=rbase, len=rlen, tag=rng.randint(1, 255), pd=3, wr=0, rd=1, lwr=0,
                   valid=0)}
    tb.prot = [dict(empty, **win.get(i, {})) for i in range(64)]
    key = {i: (i << tag_w) | w["tag"] for i, w in win.items()}
    src = SRCS[0]
    items: list[Wire] = []
    # READ_REQs
    for _ in range(12):
        size = rng.randint(1, 40 * mp)
        items.append(stim.read_req(rng.choice(SRCS), size=size,
                                   raddr=rbase + rng.randrange(rlen - size), rkey=key[0],
                                   lkey=rng.randrange(1 << 32), pd=3))
    size = 3 * mp
    items.append(stim.read_req(src, size=size, raddr=rbase + rlen - size + 1, rkey=key[0],
                               pd=3))                                       # across the end
    items.append(stim.read_req(src, size=size, raddr=rbase - 1, rkey=key[0], pd=3))
    items.append(stim.read_req(src, size=64, raddr=wbase, rkey=key[2], pd=7))  # write only
    items.append(stim.read_req(src, size=64, raddr=rbase, rkey=key[3], pd=3))  # invalid
    items.append(stim.read_req(src, size=64, raddr=rbase, rkey=key[0], pd=4))  # domain
    items.append(stim.read_req(src, size=64, raddr=rbase, rkey=key[0] ^ 1, pd=3))  # tag
    for k in Stim.RD_BAD_KINDS:
        items.append(stim.bad_read(k, src))
    # read responses for this node's reads, and plain writes
    r1 = stim.resp_block(src, 40, 5 * mp + 100, lbase + 77, lkey=key[1], pd=5)
    r2 = stim.resp_block(SRCS[1], 41, 2 * mp, lbase + 8 * mp, lkey=key[1], pd=5)
    r3a = stim.resp_block(src, 42, 4 * mp, lbase + 16 * mp, lkey=key[1], pd=5, ask=(2,))
    r3 = [r3a[0], r3a[2], r3a[3]]                # MISS for packet 1, to this node
    r4 = stim.resp_block(src, 43, mp, wbase + mp, lkey=key[2], pd=7)   # no local write
    b1 = stim.block(src, 44, size=2 * mp, notify=False, dst=wbase + 8 * mp)
    b2 = stim.block(src, 45, size=mp, notify=False, dst=lbase + 40 * mp)
    b1p = [with_key(w, key[2], 7) for w in b1["pkts"]]
    b2p = [with_key(w, key[1], 5) for w in b2["pkts"]]              # lwr is not write
    dup = r1[-1]
    n_refused, n_r4 = 6 + len(r4) + len(b2p), len(r4)
    streams = [r1, r2, r3, r4, b1p, b2p, list(items)]
    out: list[Wire] = []
    while any(streams):
        st = rng.choice([x for x in streams if x])
        out.append(st.pop(0))
    out.append(r3a[1])                                               # completes r3
    out.append(dup)                                                  # a duplicate
    tb.prot_at = {}
    await tb.reset(wait_init=True)
    await tb.write_windows()
    await tb.run(out)
    m = tb.model
    c = collections.Counter(m.outcomes)
    dut._log.info("outcomes: %s", dict(c))
    for w, o in zip(out, m.outcomes):
        assert o == "bad" or not w.what.startswith("bad rd_"), (w.what, o)
    assert c["rreq"] == 12 and c["prot"] == n_refused, c
    assert c["bad"] == len(Stim.RD_BAD_KINDS), c
    self_rsps = [r for r in m.rsps["plain"] if r["dst_node"] == NODE_ID]
    assert sorted((r["tid"], r["nack"]) for r in self_rsps) == [(40, 0), (41, 0), (42, 0)], \
        self_rsps
    assert m.miss_rsps and all((r["dst_node"], r["tid"], r["pkt_idx"], r["miss_cnt"])
                               == (NODE_ID, 42, 1, 1) for r in m.miss_rsps), m.miss_rsps
    assert sum(r["dst_node"] == NODE_ID for r in m.prot_rsps) == n_r4, m.prot_rsps
    assert c["dup"] == 1, c


@cocotb.test(skip=not DIRECTED)
async def rx_read_drop(dut):
    """The read-response job queue full (m_rd held): READ_REQs past RD_DEPTH are dropped,
    counted (stat_read_drop) and answered with a MISS naming their run (so that their
    requesters ask again at once), the unit goes on taking packets; the jobs queued come
    out in order once m_rd takes them."""
    tb = TB(dut, "rx_read_drop", nq_size=8)
    stim = Stim(tb.p, tb.rng)
    tb.rd_room = RD_DEPTH
    random_pause(tb.rd_snk, tb.rng, 1.0)
    items = [stim.read_req(tb.rng.choice(SRCS)) for _ in range(RD_DEPTH + 5)]
    blk = stim.block(SRCS[1], 7, size=3 * tb.p.max_payload, notify=False)
    await tb.reset(wait_init=True)
    tb.model = tb.new_model(items + blk["pkts"])
    for w in items + blk["pkts"]:
        tb.src.send_nowait(w.frame())
    await tb.until(lambda: tb.stats["read_req"] + tb.stats["read_drop"] >= len(items)
                   and len(tb.rsps) >= 1, "the READ_REQs decided and the block acknowledged")
    assert tb.stats["read_drop"] == 5 and not tb.rd_got, dict(tb.stats)
    assert len(tb.model.miss_rsps) == 5, tb.model.miss_rsps
    random_pause(tb.rd_snk, tb.rng, 0.3)
    await tb.wait_done()
    for _ in range(200):
        await RisingEdge(dut.clk)
    tb.final_checks()


@cocotb.test(skip=not DIRECTED)
async def rx_reverse(dut):
    tb = TB(dut, "rx_reverse", nq_size=4)
    await tb.reset()
    stim = Stim(tb.p, tb.rng)
    mp = tb.p.max_payload
    n = tb.p.max_blk_pkts
    # unaligned, exactly MAX_BLK_PKTS packets
    b = stim.block(SRCS[0], 5, size=(n - 1) * mp + 17, notify=True)
    assert len(b["pkts"]) == n, len(b["pkts"])
    # then the same TID's next use after 40,000 other sequence numbers went by (looks
    # older modulo 2^16): its generation is the next, so this is a new block, not stale
    stim.seq[SRCS[0]] = (b["seq"] + 40000) % 65536
    b2 = stim.block(SRCS[0], 5, size=3 * mp, notify=False)
    items = ([b["ctrl"]] + b["pkts"][::-1] + b["pkts"][:3] + [b["ctrl"]]
             + b2["pkts"][::-1])
    await tb.run(items)
    o = tb.model.outcomes
    assert o.count("dup") == 4 and len(tb.rsps) == 2 and len(tb.taken) == 1, o
    assert "stale" not in o, o


def payload_of(w: Wire) -> tuple[int, bytes]:
    """(destination, bytes) a DATA or INLINE wire writes."""
    h = NET_HDR.unpack(w.beats[0][0])
    ln, da = h["len"], h["dst_addr"]
    if h["ptype"] == NET_INLINE:
        return da, w.beats[0][0].to_bytes(64, "little")[32:32 + ln]
    raw = b"".join(d.to_bytes(64, "little") for d, _ in w.beats[1:])
    return da, raw[da % 64:da % 64 + ln]


@cocotb.test(skip=not DIRECTED)
async def rx_stale(dut):
    """Late copies of a use U of a TID after its next use U + 1 completed (at the same
    destination, with other data): stale, whatever kind (DATA, CONTROL, INLINE) U and U + 1
    are; nothing of them is written, answered or notified. A sender's next epoch is newer
    than any generation of the one before."""
    tb = TB(dut, "rx_stale", nq_size=8)
    await tb.reset()
    stim = Stim(tb.p, tb.rng)
    mp = tb.p.max_payload
    s0, s1 = SRCS
    # U: a notifying block (with its CONTROL), an INLINE with notify, an INLINE, a block
    a = stim.block(s0, 300, size=2 * mp + 50, notify=True)
    i1 = stim.inline(s1, 301, notify=True, ln=24)
    c1 = stim.inline(s0, 302, notify=False, ln=32)
    d = stim.block(s1, 303, size=mp + 10, notify=False)
    e = stim.block(s0, 304, size=100, notify=False)
    first = [a["ctrl"]] + a["pkts"] + [i1, c1] + d["pkts"] + e["pkts"]
    # U + 1 of each, at U's destination: a block, an INLINE, a block over the INLINE, an
    # INLINE over the block's start
    da, di, dc = (payload_of(w)[0] for w in (a["pkts"][0], i1, c1))
    a2 = stim.block(s0, 300, size=2 * mp + 50, notify=False, dst=da)
    i2 = stim.inline(s1, 301, notify=False, ln=24, dst=di)
    c2 = stim.block(s0, 302, size=100, notify=False, dst=dc)
    d2 = stim.inline(s1, 303, notify=False, ln=32, dst=payload_of(d["pkts"][0])[0])
    # s0's next epoch, its generations from 5 before e's: e's TID's next use
    stim.epoch[s0] = (stim.epoch[s0] + 1) % 256
    stim.gens[s0] = GenModel(1, start=(e["gen"] - 6) % 65536)
    e2 = stim.block(s0, 304, size=100, notify=False)
    assert (e["gen"] - e2["gen"]) % 65536 == 5
    second = a2["pkts"] + [i2] + c2["pkts"] + [d2] + e2["pkts"]
    # copies of U's packets (the last DATA packet asks: no MISS)
    copies = [Wire(w.beats, w.tuser, "late copy of " + w.what)
              for w in a["pkts"] + [a["ctrl"], i1, c1] + d["pkts"][::-1]]
    await tb.run(first, then=second + copies)
    m = tb.model
    n = len(copies)
    assert m.outcomes[-n:] == ["stale"] * n and m.outcomes.count("stale") == n, m.outcomes
    assert m.stale_done == n, m.stale_done
    # independently of the model: counters, responses, notifications, memory
    assert tb.stats["stale_drop"] == n and tb.stats["dup_drop"] == 0, tb.stats
    assert tb.stats["redo_evt"] == 0 and tb.stats["miss"] == 0, tb.stats
    assert len(tb.rsps) == 10 and not tb.redo_rsps and not tb.miss_rsps, len(tb.rsps)
    assert len(tb.taken) == 2, tb.taken
    for w in second:
        at, data = payload_of(w)
        assert tb.ram.read(at, len(data)) == data, f"{w.what}: its data overwritten"
    n_wr = sum(NET_HDR.unpack(w.beats[0][0])["ptype"] != NET_CONTROL for w in first + second)
    assert tb.stats["data_pkt"] + tb.stats["ctrl_pkt"] == n_wr + 1, tb.stats


@cocotb.test(skip=not DIRECTED)
async def rx_bad(dut):
    tb = TB(dut, "rx_bad", nq_size=4)
    await tb.reset()
    stim = Stim(tb.p, tb.rng)
    items = []
    for k in Stim.BAD_KINDS:
        items.append(stim.bad(k, SRCS[0]))
    for _ in range(6):   # corrupted copies only: never written, never acknowledged
        b = stim.block(SRCS[1], tb.rng.randrange(1024), size=tb.rng.randint(1, 3000))
        items.append(flipped(b["pkts"][0], tb.rng))
        items.append(flipped(stim.inline(SRCS[0], 7, notify=True), tb.rng))
    items += [stim.ack(SRCS[0]) for _ in range(4)]
    await tb.run(items)
    o = tb.model.outcomes
    assert o.count("bad") == len(Stim.BAD_KINDS) and o.count("crc") == 12, o
    assert not tb.model.writes and not tb.rsps and o.count("ack") == 4


@cocotb.test(skip=not DIRECTED)
async def rx_errors(dut):
    """Writes answered SLVERR: the block is NACKed (reason ERR_REMOTE_MEM) whichever of
    its packets failed, a notifying block or INLINE gets no notification, the TID's next
    block starts with a clean error state (also when its CONTROL came first), and the
    other blocks are acknowledged as usual."""
    tb = TB(dut, "rx_errors", nq_size=8)
    await tb.reset()
    stim = Stim(tb.p, tb.rng)
    mp = tb.p.max_payload
    items, again, bad = [], [], set()
    for i, where in enumerate(("first", "middle", "last", "none")):
        b = stim.block(SRCS[i % 2], 10 + i, size=3 * mp + 100, notify=(i % 2 == 0))
        pk = [NET_HDR.unpack(w.beats[0][0]) for w in b["pkts"]]
        j = {"first": 0, "middle": 1, "last": len(pk) - 1}.get(where)
        if j is not None:
            bad.add(pk[j]["dst_addr"] // 64 + (1 if where == "middle" else 0))
        seq = b["pkts"][:]
        tb.rng.shuffle(seq)
        items += seq + ([b["ctrl"]] if b["notify"] else [])
        # the same TID again, fresh, once the first block's response is out (a sender
        # reuses a TID only after it): acknowledged (its CONTROL first for a notifying one)
        b2 = stim.block(SRCS[i % 2], 10 + i, size=mp, notify=(i % 2 == 0))
        again += ([b2["ctrl"]] if b2["notify"] else []) + b2["pkts"]
    # INLINEs: one on a bad line (notifying), one crossing into a bad line (2 bursts)
    w = stim.inline(SRCS[0], 30, notify=True, ln=16)
    bad.add(NET_HDR.unpack(w.beats[0][0])["dst_addr"] // 64)
    w2 = stim.inline(SRCS[1], 31, notify=False, ln=32, cross4k=True)
    a2 = NET_HDR.unpack(w2.beats[0][0])["dst_addr"]
    bad.add((a2 + 31) // 64)
    items += [w, w2, stim.inline(SRCS[0], 32, notify=True)]
    tb.ram.bad = bad
    await tb.run(items, then=again)
    m = tb.model
    assert m.stats["nack"] == 5, m.stats
    assert m.nrsp == 11 and len(m.notifs) == 3, (m.rsps, m.notifs)
    nacks = [r for r in tb.rsps if RSP_DESC.unpack(r["data"])["nack"]]
    assert len(nacks) == 5 and all(RSP_DESC.unpack(r["data"])["reason"] == C["ERR_REMOTE_MEM"]
                                   for r in nacks)


@cocotb.test(skip=not DIRECTED)
async def rx_ring_full(dut):
    tb = TB(dut, "rx_ring_full", nq_size=2, idle=0.0, stall=0.0)
    await tb.reset(wait_init=True)
    stim = Stim(tb.p, tb.rng)
    tb.sw_on = False
    # six notifying INLINEs (across 64-byte and 4 KiB boundaries: two one-beat bursts)
    # among four without notification
    items = [stim.inline(SRCS[i % 2], 40 + i, notify=True, ln=32, cross4k=True)
             for i in range(6)]
    for i in range(4):
        items.insert(2 * i + 1, stim.inline(SRCS[i % 2], 50 + i, notify=False))
    tb.model = tb.new_model(items)
    for w in items:
        tb.src.send_nowait(w.frame())
    for _ in range(2000):
        await RisingEdge(dut.clk)
    # two entries written; the other four notifications wait for software and hold only
    # their own ACKs: the four packets without notification are acknowledged
    assert tb.ntf_aw == 2 and int(dut.nq_head.value) == 2, (tb.ntf_aw, int(dut.nq_head.value))
    assert tb.got == {"plain": 4, "ntf": 2}, tb.got
    assert int(dut.nq_wait.value) == 1 and len(tb.ev["in_beat"]) == len(items)
    tb.sw_on = True
    tb.sw_poll = (200, 400)
    await tb.wait_done()
    for _ in range(300):
        await RisingEdge(dut.clk)
    tb.final_checks()
    assert int(dut.nq_wait.value) == 0
    # NQ_SIZE 0: notifications off, their ACKs go, nothing is written
    dut.cfg_nq_size.value = 0
    tb.nq_size = 0
    more = [stim.inline(SRCS[0], 60 + i, notify=True) for i in range(3)]
    seq = items + more
    tb.model = tb.new_model(seq, ring_off=range(len(items), len(seq)))
    for w in more:
        tb.src.send_nowait(w.frame())
    await tb.until(lambda: len(tb.rsps) >= tb.model.nrsp, "the responses")
    for _ in range(300):
        await RisingEdge(dut.clk)
    assert tb.ntf_aw == 6 and int(dut.nq_head.value) == 6 and not tb.errors
    assert tb.stats["notif_off"] == 3, tb.stats
    # cfg_nq_reset: NQ_HEAD back to 0, software starts again at entry 0 of a 2-entry ring,
    # but takes nothing: two entries are written, two requests wait; the ring is turned
    # off: the waiting two are dropped and their ACKs go
    await RisingEdge(dut.clk)
    dut.cfg_nq_reset.value = 1
    dut.cfg_nq_size.value = 2
    await RisingEdge(dut.clk)
    dut.cfg_nq_reset.value = 0
    tb.tail = 0
    dut.cfg_nq_tail.value = 0
    tb.nq_size = 2
    tb.ntf_base = tb.ntf_aw
    tb.sw_on = False
    await RisingEdge(dut.clk)
    await ReadOnly()
    assert int(dut.nq_head.value) == 0, "cfg_nq_reset"
    await RisingEdge(dut.clk)
    last = [stim.inline(SRCS[1], 70 + i, notify=True) for i in range(4)]
    seq3 = seq + last
    m3 = tb.new_model(seq3, ring_off=range(len(items), len(seq)))
    n_written = len(m3.notifs) - 2
    tb.model = m3
    for w in last:
        tb.src.send_nowait(w.frame())
    await tb.until(lambda: tb.ntf_aw - tb.ntf_base >= 2 and int(dut.nq_wait.value),
                   "two entries and a waiting request")
    dut.cfg_nq_size.value = 0
    tb.nq_size = 0
    await tb.until(lambda: len(tb.rsps) >= m3.nrsp, "the responses")
    for _ in range(300):
        await RisingEdge(dut.clk)
    assert tb.ntf_aw - tb.ntf_base == 2 and int(dut.nq_head.value) == 2, tb.ntf_aw
    assert tb.stats["notif_off"] == 5 and tb.got["ntf"] == len(m3.rsps["ntf"]), \
        (tb.stats, tb.got)
    assert n_written == 8 and not tb.errors, tb.errors[:1]


@cocotb.test(skip=not DIRECTED)
async def rx_redo(dut):
    """Duplicates of complete blocks are answered again (ACK, or NACK for a failed write),
    except while the block's ACK is held for its notification (ring full): dropped and
    counted. Duplicates of blocks not complete yet (a packet missing, a notifying block
    whose CONTROL has not come) get no response."""
    tb = TB(dut, "rx_redo", nq_size=2)
    await tb.reset()
    tb.sw_on = False                         # the ring fills: two entries, then held ACKs
    stim = Stim(tb.p, tb.rng)
    mp = tb.p.max_payload
    s0, s1 = SRCS

    def blk(src, tid, notify, bad=False):
        b = stim.block(src, tid, size=2 * mp + 100, notify=notify)
        if bad:                              # its middle packet's first line refuses writes
            tb.ram.bad.add(NET_HDR.unpack(b["pkts"][1].beats[0][0])["dst_addr"] // 64)
        return b

    p_ = blk(s0, 30, False)                  # plain block: ACK
    e_ = blk(s0, 32, False, bad=True)        # failed write: NACK
    en = blk(s1, 33, True, bad=True)         # notifying, failed: NACK, no notification
    n1, n2, n3 = blk(s0, 40, True), blk(s1, 41, True), blk(s1, 43, True)
    n4 = blk(s0, 44, True)                   # its CONTROL comes late
    q_ = blk(s1, 45, False)                  # one packet missing until phase C
    i0 = stim.inline(s1, 31, notify=False)
    i1 = stim.inline(s0, 42, notify=True)
    i2 = stim.inline(s1, 46, notify=True)
    # A: blocks complete in this order; notifications n1, n2 fit the ring; i1, n3 wait
    # (their ACKs held)
    ph_a = (p_["pkts"] + [i0] + e_["pkts"] + en["pkts"] + [en["ctrl"]]
            + n1["pkts"] + [n1["ctrl"]] + n2["pkts"] + [n2["ctrl"]] + [i1]
            + n3["pkts"] + [n3["ctrl"]] + n4["pkts"] + q_["pkts"][1:])
    # B, with 2 ACKs released: answered again p, i0, e, en (DATA and CONTROL), n1 (DATA
    # and CONTROL), n2; dropped i1, n3 (DATA and CONTROL) as held; no redo for n4 (its
    # event waits for its CONTROL) and q (a packet missing); then a notifying INLINE
    # whose notification waits for the full ring and its copies right behind it (the
    # copies' events follow its event through the completion unit back to back, before
    # its held bit is written): dropped
    # A block's copy is answered at its last packet: a copy of another packet of a
    # complete block (p's first) is a plain duplicate.
    ph_b = ([p_["pkts"][0], p_["pkts"][-1], i0, e_["pkts"][-1], en["pkts"][-1], en["ctrl"],
             n1["pkts"][-1], n1["ctrl"], i1, n3["pkts"][-1], n3["ctrl"], n2["pkts"][-1],
             n4["pkts"][-1], q_["pkts"][1], i2, i2, i2, i2])
    # C: software takes entries, n4's CONTROL and q's missing packet come; once every
    # ACK is out (5 released), the held ones' duplicates are answered
    ph_c = [n4["ctrl"], q_["pkts"][0]]
    ph_d = [i1, n3["pkts"][-1], n3["ctrl"], n4["pkts"][-1], n4["ctrl"], q_["pkts"][-1], i2]
    items = ph_a + ph_b + ph_c + ph_d
    rel = [None] * len(ph_a) + [2] * len(ph_b) + [None] * len(ph_c) + [6] * len(ph_d)
    m = tb.model = tb.new_model(items, rel=rel)
    st = [r["st"] for r in m.redos]
    assert st == ["sent"] * 7 + ["drop"] * 3 + ["sent"] + ["drop"] * 3 + ["sent"] * 7, st
    assert [r["nack"] for r in m.redos[:5]] == [0, 0, 1, 1, 1], m.redos[:5]
    assert len(m.notifs) == 6 and len(m.rsps["ntf"]) == 6, m.notifs

    async def send(ws):
        for w in ws:
            tb.src.send_nowait(w.frame())

    await send(ph_a)
    await tb.until(lambda: tb.got["plain"] == 4 and tb.got["ntf"] == 2
                   and tb.cov["ring full cycles"] > 0 and tb.src.empty(),
                   "phase A: 4 plain responses, 2 with a notification, the ring full")
    await send(ph_b)
    await tb.until(lambda: tb.stats["redo"] + tb.stats["redo_drop"] == 14
                   and len(tb.redo_rsps) == 8 and tb.src.empty() and not tb.src.active,
                   "phase B: 8 redo responses, 6 dropped")
    for _ in range(200):
        await RisingEdge(dut.clk)
    assert tb.got == {"plain": 4, "ntf": 2} and tb.stats["redo_drop"] == 6, (tb.got, tb.stats)
    tb.sw_on = True
    await send(ph_c)
    await tb.until(lambda: tb.got["plain"] == 5 and tb.got["ntf"] == 6, "phase C: every ACK")
    await send(ph_d)
    await tb.wait_done()
    for _ in range(300):
        await RisingEdge(dut.clk)
    tb.final_checks()
    assert len(tb.redo_rsps) == 15 and tb.stats["redo_drop"] == 6, tb.stats


@cocotb.test(skip=not DIRECTED)
async def rx_timing(dut):
    tb = TB(dut, "rx_timing", nq_size=4, idle=0.0, stall=0.0)
    await tb.reset(wait_init=True)
    stim = Stim(tb.p, tb.rng)
    mp = tb.p.max_payload
    ev = tb.ev
    sent: list[Wire] = []

    async def one(items):
        sent.extend(items)     # the observed lists are cumulative: so is the model
        tb.model = tb.new_model(sent)
        for k in list(ev):
            ev[k].clear()
        for w in items:
            tb.src.send_nowait(w.frame())
        await tb.until(lambda: len(tb.rsps) >= tb.model.nrsp
                       and tb.ntf_aw >= len(tb.model.notifs)
                       and tb.nb >= len(tb.aws) and tb.stats["notif"] >= tb.ntf_aw,
                       "the outputs")
        for _ in range(50):
            await RisingEdge(dut.clk)

    res = {}
    # payload at lanes 32..63, 0..31: the last CRC beat goes with the last wire beat
    await one([stim.block(SRCS[0], 1, size=64, align=4096 - 32, notify=False)["pkts"][0]])
    res["last->AW"] = ev["aw"][0] - ev["in_last"][0]
    res["B->response"] = ev["rsp"][0] - ev["b"][0]
    # aligned packet: the last wire beat still has bytes for a CRC beat (flushed a cycle
    # later), as for every packet whose last beat has bytes at lanes >= the first lane
    await one([stim.block(SRCS[0], 2, size=mp, align=4096, notify=False)["pkts"][0]])
    res["last->AW flushed"] = ev["aw"][0] - ev["in_last"][0]
    # CONTROL first, then its one-packet block: notification after the data's B
    b = stim.block(SRCS[1], 3, size=100, notify=True)
    await one([b["ctrl"]] + b["pkts"])
    res["B->notification AW"] = ev["ntf_aw"][0] - ev["b"][0]
    res["notification B->stat_notif"] = ev["notif"][0] - ev["b"][1]
    res["B->response with notification"] = ev["rsp"][0] - ev["b"][0]
    dut._log.info("latencies (cycles): %s", res)
    assert res == {"last->AW": 20, "B->response": 9, "last->AW flushed": 21,
                   "B->notification AW": 16, "notification B->stat_notif": 2,
                   "B->response with notification": 17}, res
    # throughput: 48 one-packet blocks of MAX_PAYLOAD bytes back to back, then unaligned
    for off in (0, 20):
        items = [stim.block(SRCS[i % 2], 100 + i, size=mp - off, align=4096 - off,
                            notify=False)["pkts"][0] for i in range(48)]
        beats = sum(len(w.beats) for w in items)
        await one(items)
        span = ev["in_beat"][-1] - ev["in_beat"][0] + 1
        lag = ev["w"][-1] - ev["in_beat"][-1]
        dut._log.info("throughput (payload lane %d): %d beats in %d cycles; last W beat %d "
                      "cycles after the last input beat", off, beats, span, lag)
        assert span == beats, f"input stalled: {beats} beats took {span} cycles"
        # the write side keeps up: the last packet's 16 W beats follow its last beat after
        # the pipeline latency (a cycle lost per packet would add 47)
        assert lag <= res["last->AW flushed"] + 16 + 2, f"W side lags by {lag} cycles"
    await tb.wait_done()
    assert not tb.errors, tb.errors[0]


@cocotb.test(skip=not DIRECTED)
async def rx_miss(dut):
    """MISS answers for asking DATA packets of incomplete blocks, exactly and in order;
    none for complete blocks, one-packet blocks and stale packets; a re-send of a run with
    ask set; drops when the redo FIFO's half for MISSes is full; MISS packets received go
    to m_miss."""
    tb = TB(dut, "rx_miss", nq_size=8, idle=0.0, stall=0.0)
    await tb.reset()
    stim = Stim(tb.p, tb.rng)
    mp, mx = tb.p.max_payload, tb.p.max_blk_pkts
    s0, s1 = SRCS

    def blk(src, tid, n, notify=False):
        b = stim.block(src, tid, size=n * mp, notify=notify, align=4096)
        assert len(b["pkts"]) == n, len(b["pkts"])
        return b

    a, bb, c = blk(s0, 200, 6), blk(s1, 201, mx), blk(s0, 202, 1)
    d = blk(s1, 203, 3)
    d2 = blk(s1, 203, 2)                     # d's TID's next use: d is abandoned
    e = blk(s0, 204, 2, notify=True)
    g = blk(s1, 205, 4)
    A, B, G = a["pkts"], bb["pkts"], g["pkts"]
    ph1 = [A[5], asked(A[1]), asked(A[3]), asked(A[3]), A[0], asked(A[2]), A[4], A[5],
           asked(B[0]), asked(c["pkts"][0]),
           d["pkts"][0], d2["pkts"][0], asked(d["pkts"][2]), d["pkts"][2],
           e["pkts"][0], e["pkts"][1], asked(e["pkts"][0]), e["ctrl"],
           G[3], G[0], G[1], asked(G[2]), G[1], asked(G[2])]
    ph1 += B[1:]                             # b completes (its last packet: no MISS)
    ph1 += [stim.miss(s0), stim.miss(s1, first=0, cnt=256), stim.miss(s0, first=255, cnt=1),
            stim.bad("miss_run", s0), stim.bad("miss_cnt0", s1), stim.bad("miss_node", s0),
            stim.bad("miss_beats", s1), flipped(stim.miss(s1), tb.rng)]
    # the response path stopped: the MISSes of h, (0,9), (0,8), ... take half the redo
    # FIFO, the others are dropped; then h completes
    h = blk(s0, 206, 10)
    H = h["pkts"]
    ph2 = [asked(H[i]) for i in range(9, 1, -1)]
    ph3 = H[:2]
    m = tb.model = tb.new_model(ph1 + ph2 + ph3)
    runs = [(r["tid"], r["pkt_idx"], r["miss_cnt"]) for r in m.miss_rsps]
    want = ([(200, 0, 5), (200, 0, 1), (200, 0, 1), (200, 0, 1), (200, 4, 1), (201, 1, mx - 1),
             (205, 0, 3)] + [(206, 0, k) for k in range(9, 1, -1)])
    assert runs == want, runs
    assert [r["tid"] for r in m.redos] == [200, 205], m.redos
    assert len(m.misses_in) == 3 and m.stats["bad"] == 4 and m.stats["crc"] == 1, m.stats
    assert [o for o in m.outcomes[10:14]] == ["data", "data", "stale", "stale"], m.outcomes

    for w in ph1:
        tb.src.send_nowait(w.frame())
    await tb.until(lambda: tb.stats["miss"] == 7 and len(tb.miss_rsps) == 7
                   and len(tb.redo_rsps) == 2 and len(tb.rsps) == 5 and tb.src.empty()
                   and len(tb.misses_in) == 3, "phase 1: 7 MISS, 2 redo, 5 responses")
    for _ in range(300):
        await RisingEdge(dut.clk)
    assert tb.stats["miss_drop"] == 0 and len(tb.miss_rsps) == 7, tb.stats
    random_pause(tb.rsp_snk, tb.rng, 1.0)
    for w in ph2:
        tb.src.send_nowait(w.frame())
    await tb.until(lambda: tb.stats["miss"] + tb.stats["miss_drop"] == 15 and tb.src.empty()
                   and not tb.src.active, "phase 2: the MISSes queued or dropped")
    for _ in range(100):
        await RisingEdge(dut.clk)
    assert tb.stats["miss"] == 11 and tb.stats["miss_drop"] == 4, tb.stats
    random_pause(tb.rsp_snk, tb.rng, 0.0)
    for w in ph3:
        tb.src.send_nowait(w.frame())
    tb.miss_drops = 4
    await tb.wait_done()
    for _ in range(300):
        await RisingEdge(dut.clk)
    tb.final_checks()
    got = [RSP_DESC.unpack(x["data"]) for x in tb.miss_rsps]
    assert [(r["tid"], r["pkt_idx"], r["miss_cnt"], r["dst_node"], r["nack"]) for r in got] \
        == [w_ + (s0 if w_[0] in (200, 202, 204, 206) else s1, 0) for w_ in want[:11]], got


@cocotb.test(skip=not DIRECTED)
async def rx_registration(dut):
    """Receive-side registration (docs/registration.md), one transfer at a time, each run
    against the model: the notification of a registered transfer is written once its
    REGISTER and every block are in, marked early, ahead of its CONTROL, whose own
    notification is then not written (its held ACK goes); blocks before their REGISTER
    wait in the escape channel; without a REGISTER, or with more blocks than the mask
    holds, the CONTROL notifies as for an unregistered transfer; a newer transfer of the
    same channel takes the entry of one that never completed; a transfer whose last block
    fails frees its entry at its end."""
    tb = TB(dut, "rx_registration", nq_size=8)
    await tb.reset(wait_init=True)
    stim = Stim(tb.p, tb.rng)
    s0, s1 = SRCS

    sent: list[Wire] = []

    async def run(items, early: int, normal: int):
        """One phase: the model runs over every packet sent so far."""
        n0 = len(tb.taken)
        sent.extend(items)
        tb.model = tb.new_model(sent)
        for w in items:
            tb.src.send_nowait(w.frame())
        await tb.wait_done()
        for _ in range(400):
            await RisingEdge(dut.clk)
        tb.final_checks()
        got = tb.taken[n0:]
        assert [n["early"] for n in got].count(1) == early, got
        assert [n["early"] for n in got].count(0) == normal, got

    def pkts(t, order):
        return [w for i in order for w in t["blks"][i]["pkts"]]

    # in order: REGISTER, the blocks, then the CONTROL
    t = stim.transfer(s0, 3)
    await run([t["reg"]] + pkts(t, (0, 1, 2)) + [t["ctrl"]], early=1, normal=0)
    # blocks out of order, the REGISTER after two of them (the escape channel), the
    # CONTROL before the last block (a sender sends it once every other block is in)
    t = stim.transfer(s1, 4)
    await run(pkts(t, (2, 0)) + [t["reg"]] + pkts(t, (1,)) + [t["ctrl"]] + pkts(t, (3,)),
              early=1, normal=0)
    # the REGISTER lost: the CONTROL notifies; its lookup drops the escaped blocks
    t = stim.transfer(s0, 3)
    await run(pkts(t, (0, 1, 2)) + [t["ctrl"]], early=0, normal=1)
    # more blocks than the mask holds: not registered (RX_REG_DROP), the CONTROL notifies
    t = stim.transfer(s1, 2, blocks=REG_MASK_W)
    await run([t["reg"]] + pkts(t, (0, 1)) + [t["ctrl"]], early=0, normal=1)
    # a transfer that never completes (a block and its CONTROL lost), then the channel's
    # next transfer: its REGISTER replaces the first one's entry, it notifies early
    a = stim.transfer(s0, 3)
    b = stim.transfer(s0, 2, xfer=a["ntf"]["xfer"])
    assert b["xseq"] != a["xseq"]
    await run([a["reg"]] + pkts(a, (0, 1)) + [b["reg"]] + pkts(b, (1, 0)) + [b["ctrl"]],
              early=1, normal=0)
    assert tb.model.reg.stats["replace"] == 1, tb.model.reg.stats
    # a transfer whose last block fails (NACK, no notification): its end frees its entry,
    # so a transfer of another channel placed in the same entry registers
    c = stim.transfer(s1, 3)
    d = stim.transfer(s1, 2, xfer=c["ntf"]["xfer"] ^ 0x101)     # (the same hash)
    tb.ram.bad.add(NET_HDR.unpack(c["blks"][2]["pkts"][1].beats[0][0])["dst_addr"] // 64)
    await run([c["reg"]] + pkts(c, (0, 1, 2)) + [c["ctrl"]], early=0, normal=0)
    await run([d["reg"]] + pkts(d, (0, 1)) + [d["ctrl"]], early=1, normal=0)
    # registered: all but the REGISTER lost and the one of too many blocks; early: all
    # but the one that never completes and the failed one; dropped: too many blocks
    assert tb.stats["reg"] == 6 and tb.stats["early"] == 4 and tb.stats["reg_drop"] == 1, \
        tb.stats


# ------------------------------------------------------------------ pytest
CONFIGS = [
    # params, P_N (blocks per source), directed tests
    ({}, 60, True),
    ({"NUM_NODES": 2, "MAX_PAYLOAD": 256, "MAX_BLK_PKTS": 16, "BUF_BEATS": 8}, 60, False),
    ({"MAX_PAYLOAD": 4096, "MAX_BLK_PKTS": 8, "BUF_BEATS": 128}, 20, False),
]


@pytest.mark.parametrize("params,n,directed", CONFIGS, ids=["default", "mp256-buf8", "mp4096"])
def test_qrdma_rx(params, n, directed):
    from simrun import full, run

    p = Params(**{k.lower(): v for k, v in params.items()})
    env = {f"P_{k}": str(v) for k, v in p.hdl().items()}
    env["P_N"] = str(n * 5 if full() else n)
    env["P_DIRECTED"] = "1" if directed else "0"
    run("qrdma_rx", "test_qrdma_rx", p.hdl(), extra_env=env)
