# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Reference model of the QoS engine (docs/qos.md; [QoS-RDMA] §3.6-§3.13). Plain Python, no
simulator inside: the engine test (tests/qos/test_qrdma_qos_engine.py) feeds it what it
posts and what it observes, and it says what the engine must have done.

  Params            the engine parameters (qrdma_qos_engine's parameters, lower case)
  Descriptor        the fields of desc_line0 / desc_line1, packed with tools.formats
  transfer_class    TID-only / 1xFID / 4xFID (docs/qos.md "Classes and scheduling queues")
  queue_of          the scheduling queue (0..65) a transfer waits in
  segment           block offsets and sizes (docs/qos.md "Segmentation", seed Fig. 3.10)
  expected_blocks   every block_desc field except tid, seq, fid (run-time allocation)
  tid_of_block / fid_of_block / check_ids
                    the ID rules: the FID of block 0 fixes every later TID/FID
  expected_inline / expected_control
                    the pkt_desc of an inline transfer / of a notify memory transfer
  descriptor_refusal, HostPort
                    acceptance: which beats are refused (SLVERR) and which descriptors are
                    refused at completion (SLVERR + status ERROR)
  post_writes, interleave
                    the AXI writes that post a descriptor (one line/descriptor write,
                    8/16-byte word writes in random order, bursts of 8-byte beats)
  Scoreboard        tracks in-flight TIDs, FIDs and sequence numbers and checks every
                    observed block / packet against the expected outputs of its transfer;
                    at the end says what is missing

The core's blocks, each a model its cocotb unit test (tests/qos/test_qrdma_qos_*.py) checks
the RTL against or uses as the rest of the core around it:
  META, PEND, ACT   the records of qrdma_qos_pkg (meta_t, pend_t, act_t) as Layouts
  IdPools           the TID / 1xFID / 4xFID pools (qrdma_qos_ids): oldest free ID first
  Queues            the 66 scheduling queues with their fresh bits, strict-order pick
  SegmenterModel    stage 2 of qrdma_qos_seg: what one dequeued transfer issues (block,
                    inline or control packet, pending entry, metadata, re-queue, completion)
  HandlerModel      qrdma_qos_handler: what one ACK / NACK does (match, retire, metadata,
                    action)
  CoreModel         the four composed, untimed: the engine's core as the Scoreboard sees it
                    (tests/model/test_qos_model.py runs it against the Scoreboard)

Every offset and field comes from tools/formats.py (Layout.pack/unpack, address helpers).

Interpretations of docs/qos.md made here (where the spec is silent or ambiguous):
  * xfer (transfer-table index) = page * CH_PER_PAGE + channel; a read channel's
    (64..127: xfer bit 6 set) transfer is segmented into blocks exactly as a write
    channel's, and never has a control packet (a read descriptor with notify is
    refused, D7).
  * A descriptor is checked when its line 0 is complete (docs/qos.md "Host port: precise
    rules"); refusal is per beat, a burst is SLVERR when any of its beats is.
  * pkt_desc fields the format does not define for a kind are not compared: `blocks` of
    an inline packet, `notify` and `payload` of a control packet; of an inline payload
    only the first `len` bytes are compared (the rest of src_addr / inline_hi is junk).
  * Control packets take no TID and no sequence number (they carry the last block's);
    every block descriptor and inline packet takes the next sequence number, from 0
    after reset.
  * A NACKed (aborted) transfer sends no control packet, and no block is issued after
    the NACK is taken. The latter is exact only when the transfer had MAX_OUTSTANDING
    blocks in flight (the engine processes a NACK a few cycles after taking it); the
    directed NACK test arranges that, the random test sends no NACKs.
"""
from __future__ import annotations

import enum
import random
from dataclasses import dataclass, field

import collections

from tools.formats import (ACK_DESC, BLOCK_DESC, C, DESC_LINE0, DESC_LINE1, PKT_DESC,
                           REGISTERS, Field, Layout, desc_addr)

MASK64 = (1 << 64) - 1
SEQ_MOD = 1 << BLOCK_DESC.field("seq").width          # the global 16-bit counter wraps
FID1_FIRST, FID1_NUM = 128, 64                         # 1xFIDs 128..191
FID4_FIRST, FID4_GROUPS = 192, 16                      # 4xFID groups 192+4g .. 195+4g
FLOW_BLOCKS = 4                                        # a flow is 4 blocks (TIDs 4f..4f+3)
INCR = 1                                               # AXI burst type INCR


# ------------------------------------------------------------------ parameters
@dataclass(frozen=True)
class Params:
    """qrdma_qos_engine's parameters (same names, lower case)."""
    host_data_w: int = 256
    block_size: int = 65536
    max_outstanding: int = 2
    cm_min_bytes: int = 16384
    mp_min_bytes: int = 262144
    num_tids: int = 512
    reg_max_blocks: int = 255    # largest transfer registered at its receiver
    ext_params: int = 0          # PARAMS bits 63:32
    reg_thresh: int = 0          # REG_CTRL.thresh (an input of the engine, not a parameter)

    NAMES = ("HOST_DATA_W", "BLOCK_SIZE", "MAX_OUTSTANDING", "CM_MIN_BYTES",
             "MP_MIN_BYTES", "NUM_TIDS", "REG_MAX_BLOCKS", "EXT_PARAMS")

    @classmethod
    def from_env(cls, env) -> "Params":
        """From P_<NAME> variables (the pytest runner passes them); missing: default."""
        kw = {}
        for n in cls.NAMES:
            if f"P_{n}" in env:
                kw[n.lower()] = int(env[f"P_{n}"])
        return cls(**kw)

    def hdl(self) -> dict:
        """The HDL parameter dict."""
        return {n: getattr(self, n.lower()) for n in self.NAMES}

    @property
    def bus_bytes(self) -> int:
        return self.host_data_w // 8


# ------------------------------------------------------------------ descriptors
@dataclass
class Descriptor:
    """The fields of desc_line0 and desc_line1 (tools.formats)."""
    src_addr: int = 0
    dst_addr: int = 0
    size: int = 1
    dst_node: int = 0
    prio: int = 0
    is_inline: int = 0
    notify: int = 0
    multipath: int = 0
    long_desc: int = 0
    hold: int = 0       # clustering (the host port's: tests/host); the engine model takes
    start: int = 0      #   every transfer as started at once
    tag: int = 0
    registered: int = 0  # register at the receiver (docs/registration.md)
    inline_hi: int = 0
    rkey: int = 0
    t_post: int = 0     # benchmark mode: the host port writes these (docs/fabric.md
    stamped: int = 0    #   "Benchmark mode"); software writes 0

    L0 = tuple(f.name for f in DESC_LINE0.fields)
    # lkey (a read descriptor's) is bits 31:0 of inline_hi (a read has no inline payload)
    L1 = tuple(f.name for f in DESC_LINE1.fields if f.name != "lkey")

    @property
    def lkey(self) -> int:
        return self.inline_hi & ((1 << DESC_LINE1.field("lkey").width) - 1)

    def line0(self) -> int:
        return DESC_LINE0.pack(**{k: getattr(self, k) for k in self.L0})

    def line1(self) -> int:
        return DESC_LINE1.pack(**{k: getattr(self, k) for k in self.L1})

    def lines(self) -> list[bytes]:
        """The 32-byte lines written to channel c (and c+1 when long)."""
        nb = C["DESC_LINE_BYTES"]
        out = [self.line0().to_bytes(nb, "little")]
        if self.long_desc:
            out.append(self.line1().to_bytes(nb, "little"))
        return out

    def to_bytes(self) -> bytes:
        return b"".join(self.lines())

    @classmethod
    def from_lines(cls, line0: int, line1: int = 0) -> "Descriptor":
        f = DESC_LINE0.unpack(line0)
        f.update(DESC_LINE1.unpack(line1))
        return cls(**{k: f[k] for k in cls.L0 + cls.L1})

    @classmethod
    def inline_payload(cls, payload: bytes, long_desc: int | None = None,
                       **kw) -> "Descriptor":
        """An inline descriptor carrying `payload` (1..32 bytes); long by default when it
        does not fit a 32-byte descriptor. Unused payload bytes are left 0."""
        n = len(payload)
        if long_desc is None:
            long_desc = int(n > C["INLINE_SHORT_MAX"])
        buf = bytes(payload) + bytes(C["INLINE_MAX"] - n)
        return cls(src_addr=int.from_bytes(buf[:8], "little"),
                   inline_hi=int.from_bytes(buf[8:], "little"),
                   size=n, is_inline=1, long_desc=long_desc, **kw)

    def payload(self) -> bytes:
        """Inline payload bytes 0..size-1: bytes 0..7 from src_addr, 8..31 from inline_hi."""
        buf = self.src_addr.to_bytes(8, "little") + self.inline_hi.to_bytes(24, "little")
        return buf[:self.size]


def xfer_index(page: int, ch: int) -> int:
    """The transfer-table index (block_desc/pkt_desc `xfer`) of write channel ch of page."""
    return page * C["CH_PER_PAGE"] + ch


def xfer_page_ch(xfer: int) -> tuple[int, int]:
    return divmod(xfer, C["CH_PER_PAGE"])


# ------------------------------------------------------------------ classes and queues
class Cls(enum.Enum):
    TID = "TID-only"
    FID1 = "1xFID"
    FID4 = "4xFID"


CONTROL_QUEUE = 0
TID_QUEUE = 1


def transfer_class(d: Descriptor, p: Params) -> Cls:
    """docs/qos.md table: inline and memory transfers below CM_MIN_BYTES are TID-only;
    congestion-managed ones use 4 FIDs when `multipath` and at least MP_MIN_BYTES."""
    if d.is_inline or d.size < p.cm_min_bytes:
        return Cls.TID
    if d.multipath and d.size >= p.mp_min_bytes:
        return Cls.FID4
    return Cls.FID1


def queue_of(d: Descriptor, p: Params, have_fid: bool = False) -> int:
    """The scheduling queue of a transfer (0 is the control queue, see CONTROL_QUEUE)."""
    c = transfer_class(d, p)
    if c is Cls.TID:
        return TID_QUEUE
    base = {Cls.FID1: (2, 18), Cls.FID4: (34, 50)}[c][0 if have_fid else 1]
    return base + d.prio


# ------------------------------------------------------------------ segmentation
def num_blocks(dst_addr: int, size: int, block_size: int) -> int:
    o = dst_addr % block_size
    return (o + size + block_size - 1) // block_size


def segment(dst_addr: int, size: int, block_size: int) -> list[tuple[int, int]]:
    """[(offset, size)] of every block: blocks end on BLOCK_SIZE boundaries of the
    destination; offset(0) = 0, offset(b) = BLOCK_SIZE - o + (b-1) BLOCK_SIZE."""
    o = dst_addr % block_size
    n = num_blocks(dst_addr, size, block_size)
    out = []
    for b in range(n):
        off = 0 if b == 0 else block_size - o + (b - 1) * block_size
        end = min(size, block_size - o + b * block_size)
        out.append((off, end - off))
    return out


def is_registered(d: Descriptor, ch: int, p: Params) -> bool:
    """docs/registration.md "At the sender": a memory write with notify and the
    descriptor's flag (or of REG_CTRL.thresh bytes or more, when that is not 0), of 2
    blocks or more and at most (REG_MAX_BLOCKS - 1) blocks' bytes (so at most
    REG_MAX_BLOCKS blocks, whatever the offset), is registered."""
    asks = d.registered or (p.reg_thresh and d.size >= p.reg_thresh)
    return bool(asks and d.notify and not d.is_inline and ch < C["WR_CH_PER_PAGE"]
                and num_blocks(d.dst_addr, d.size, p.block_size) >= 2
                and d.size <= (p.reg_max_blocks - 1) * p.block_size)


def remote_key(d: Descriptor) -> int:
    """The remote key a transfer's packets carry: the second line's, 0 without one."""
    return d.rkey if d.long_desc else 0


def block_fields(d: Descriptor, page: int, ch: int, p: Params, b: int) -> dict:
    """Block b of memory transfer d in channel ch of page: every BLOCK_DESC field but tid,
    seq and fid (run-time allocation)."""
    bs = p.block_size
    c = transfer_class(d, p)
    cm = int(c is not Cls.TID)
    o = d.dst_addr % bs
    n = num_blocks(d.dst_addr, d.size, bs)
    off = 0 if b == 0 else bs - o + (b - 1) * bs
    end = min(d.size, bs - o + b * bs)
    last = int(b == n - 1)
    reg = is_registered(d, ch, p)
    f = dict(
        src_addr=(d.src_addr + off) & MASK64,
        dst_addr=(d.dst_addr + off) & MASK64,
        dst_node=d.dst_node,
        pd=page,
        size=end - off,
        cm=cm,
        chained=int(cm and b > 0),
        has_next=int(cm and b < n - 1),
        notify=int(last and d.notify),
        last=last,
        path=b % 4 if c is Cls.FID4 else 0,
        xfer=xfer_index(page, ch),
        block=b,
        pkt_first=0,    # the engine's blocks are whole: runs come from re-sends only
        pkt_num=0,
        resend=0,       # (the reliability unit's mark, never the engine's)
        registered=int(reg),
        rkey=remote_key(d),
        # a read channel's: the local key of its responses (docs/nic.md "Remote reads")
        lkey=d.lkey if d.long_desc and ch >= C["WR_CH_PER_PAGE"] else 0,
    )
    if reg:   # xseq (the first block's seq, over lkey's bits): checked with the seqs
        del f["lkey"]
    return f


def expected_blocks(d: Descriptor, page: int, ch: int, p: Params) -> list[dict]:
    """The block descriptors of memory transfer d in channel ch of page, in block order:
    every BLOCK_DESC field but tid, seq and fid (checked by check_ids)."""
    assert not d.is_inline
    return [block_fields(d, page, ch, p, b)
            for b in range(num_blocks(d.dst_addr, d.size, p.block_size))]


# ------------------------------------------------------------------ ID rules
def valid_first_fid(c: Cls, fid: int) -> bool:
    """Is fid a possible FID of block 0 of a transfer of class c."""
    if c is Cls.TID:
        return fid == 0
    if c is Cls.FID1:
        return FID1_FIRST <= fid < FID1_FIRST + FID1_NUM
    return FID4_FIRST <= fid < FID4_FIRST + 4 * FID4_GROUPS and fid % 4 == 0


def frog_leap(c: Cls, f0: int, b: int) -> tuple[int, int]:
    """(FID, TID) of block b of a congestion-managed transfer whose first FID is f0
    ([QoS-RDMA] §3.8; qrdma_qos_pkg::frog_leap). 1xFID: FID f0, TID 4 f0 + (b mod 4).
    4xFID: FID f0 + (b mod 4), TID 4 (f0 + b mod 4) + ((b div 4) mod 4)."""
    assert c is not Cls.TID
    if c is Cls.FID1:
        return f0, FLOW_BLOCKS * f0 + b % FLOW_BLOCKS
    f = f0 + b % 4
    return f, FLOW_BLOCKS * f + (b // 4) % FLOW_BLOCKS


def tid_slot(c: Cls, b: int) -> int:
    """Bit of block b's TID in meta_t.tid_busy (qrdma_qos_pkg::tid_slot)."""
    return b % 16 if c is Cls.FID4 else b % 4


def fid_of_block(c: Cls, b: int, fid0: int) -> int:
    """FID of block b given block 0's FID (1xFID: f; 4xFID: f0 + b mod 4; TID-only: 0)."""
    if c is Cls.TID:
        return 0
    return frog_leap(c, fid0, b)[0]


def tid_of_block(c: Cls, b: int, fid0: int) -> int | None:
    """TID of block b given block 0's FID. TID-only: None (any free TID of the pool);
    else frog_leap()."""
    if c is Cls.TID:
        return None
    return frog_leap(c, fid0, b)[1]


def check_ids(c: Cls, b: int, tid: int, fid: int, fid0: int | None, p: Params) -> str | None:
    """None when (tid, fid) of block b obeys the rules (fid0: block 0's FID, None when b
    is block 0 itself); else what is wrong. Whether the IDs are free is the
    Scoreboard's business."""
    if b == 0 or fid0 is None:
        if not valid_first_fid(c, fid):
            return f"{c.value} block {b}: FID {fid} is not a valid first FID"
        fid0 = fid
    want_fid = fid_of_block(c, b, fid0)
    if fid != want_fid:
        return f"{c.value} block {b}: FID {fid}, expected {want_fid} (block 0 FID {fid0})"
    want_tid = tid_of_block(c, b, fid0)
    if want_tid is None:
        if not 0 <= tid < p.num_tids:
            return f"TID-only block {b}: TID {tid} outside the pool 0..{p.num_tids - 1}"
    elif tid != want_tid:
        return f"{c.value} block {b}: TID {tid}, expected {want_tid} (block 0 FID {fid0})"
    return None


# ------------------------------------------------------------------ packets
INLINE_DONT_CARE = frozenset({"tid", "seq", "blocks", "payload"})   # payload: first len bytes
CONTROL_DONT_CARE = frozenset({"tid", "seq", "notify", "payload"})


def expected_inline(d: Descriptor, page: int, ch: int) -> dict:
    """pkt_desc of an inline transfer: every field but tid, seq and t_post; `payload` as
    bytes (compare the first `len` bytes); stamped 0 (benchmark mode off: Scoreboard)."""
    assert d.is_inline
    return dict(kind=C["PKT_INLINE"], dst_node=d.dst_node, pd=page, len=d.size,
                dst_addr=d.dst_addr, xfer=xfer_index(page, ch), size=d.size, tag=d.tag,
                notify=d.notify, payload=d.payload(), resend=0, rkey=remote_key(d),
                registered=0, announce=0, stamped=0)


def expected_control(d: Descriptor, page: int, ch: int, p: Params) -> dict:
    """pkt_desc of the completion control packet of a notify memory transfer: every
    field but tid/seq (those of the transfer's last block) and t_post; stamped 0."""
    assert not d.is_inline and d.notify
    return dict(kind=C["PKT_CONTROL"], dst_node=d.dst_node, pd=page, len=0,
                dst_addr=d.dst_addr, xfer=xfer_index(page, ch), size=d.size, tag=d.tag,
                blocks=num_blocks(d.dst_addr, d.size, p.block_size), resend=0,
                rkey=remote_key(d), registered=int(is_registered(d, ch, p)), announce=0,
                stamped=0)


def expected_announce(d: Descriptor, page: int, ch: int, p: Params) -> dict:
    """pkt_desc of the REGISTER packet of a registered transfer (its CONTROL's fields,
    announce set; tid/seq and xseq those of its first block)."""
    assert is_registered(d, ch, p)
    return dict(expected_control(d, page, ch, p), announce=1)


def diff_fields(exp: dict, got: dict) -> list[str]:
    """Mismatches of got (an unpacked record) against exp; exp['payload'] as bytes is
    compared over its length."""
    bad = []
    for k, v in exp.items():
        if k == "payload" and isinstance(v, (bytes, bytearray)):
            g = got["payload"].to_bytes(32, "little")[:len(v)]
            if g != bytes(v):
                bad.append(f"payload {g.hex()} != {bytes(v).hex()}")
        elif got[k] != v:
            bad.append(f"{k} {got[k]:#x} != {v:#x}")
    return bad


# ------------------------------------------------------------------ acceptance
def descriptor_refusal(d: Descriptor, ch: int, next_busy: bool = False) -> str | None:
    """Why the engine refuses descriptor d in write channel ch at completion (SLVERR +
    status ERROR), None when it is accepted. next_busy: channel ch+1 is BUSY."""
    if d.size == 0:
        return "size 0"
    if d.size > C["MAX_TRANSFER_BYTES"]:
        return "size above 2^32"
    if d.is_inline and d.size > C["INLINE_MAX"]:
        return "inline with size above 32"
    if d.is_inline and d.size > C["INLINE_SHORT_MAX"] and not d.long_desc:
        return "inline with size 9..32 without long"
    if d.long_desc and ch % 2:
        return "long in an odd channel"
    if d.long_desc and next_busy:
        return "long while channel c+1 is BUSY"
    if ch >= C["WR_CH_PER_PAGE"] and (d.is_inline or d.notify):
        return "read descriptor with is_inline or notify"
    return None


def decode_addr(addr: int) -> tuple:
    """What an AXI address maps to: ("desc", page, ch, offset) for a channel's
    descriptor line (write or read channel), ("status", page, ch), ("coll", page, group),
    ("err", page, ch), ("reg", name), ("unmapped",)."""
    stride, lb = C["PAGE_STRIDE"], C["DESC_LINE_BYTES"]
    if addr < C["NUM_PAGES"] * stride:
        page, off = divmod(addr, stride)
        d0, s0, c0, e0 = C["DESC_OFFSET"], C["STATUS_OFFSET"], C["COLL_OFFSET"], C["ERR_OFFSET"]
        if d0 <= off < d0 + lb * C["CH_PER_PAGE"]:
            ch, o = divmod(off - d0, lb)
            return ("desc", page, ch, o)
        if s0 <= off < s0 + 8 * C["CH_PER_PAGE"]:
            return ("status", page, (off - s0) // 8)
        if c0 <= off < c0 + 8 * (C["CH_PER_PAGE"] // 32):
            return ("coll", page, (off - c0) // 8)
        if e0 <= off < e0 + 8 * C["CH_PER_PAGE"]:
            return ("err", page, (off - e0) // 8)
        return ("unmapped",)
    rb = C["REG_BASE"]
    for off, name, _, _ in REGISTERS:
        if rb + off <= addr < rb + off + 8:
            return ("reg", name)
    return ("unmapped",)


@dataclass(frozen=True)
class Beat:
    """One AXI write beat: its address as the host port counts it (AWADDR, then the
    previous beat's address aligned to the size plus the size, for every burst type), size
    (bytes) from AW, strobed bytes [lo, hi) (where the master put the data)."""
    addr: int
    nbytes: int
    lo: int
    hi: int
    data: bytes          # the hi-lo strobed bytes
    burst: int = INCR


def write_beats(addr: int, data: bytes, size: int, burst: int, bus_bytes: int) -> list[Beat]:
    """The beats of an AXI write as cocotbext-axi's AxiMaster makes them: the first beat at
    the (maybe unaligned) start address, then 2^size-aligned beats; strobes on the bytes
    of data only (a FIXED burst: every beat's at the start address). Beat.addr is the
    host port's count (INCR for every burst type)."""
    n = 1 << size
    out = []
    pos = 0
    cur = addr
    hw = addr
    while pos < len(data):
        lo = cur
        hi = min((cur // n + 1) * n, addr + len(data))
        out.append(Beat(hw, n, lo, hi, bytes(data[pos:pos + hi - lo]), burst))
        pos += hi - lo
        cur = (cur // n + 1) * n if burst != 0 else addr
        hw = (hw // n + 1) * n
    return out


LONG_BYTE = DESC_LINE0.field("long_desc").lsb // 8     # byte of line 0 holding long_desc
LONG_BIT = DESC_LINE0.field("long_desc").lsb % 8


def carried(bt: Beat, bus_bytes: int) -> tuple[int, bool]:
    """What a beat carries of its line by its strobes (docs/qos.md "Host port: precise
    rules"): the mask of 8-byte words whose 8 bytes it writes, and whether it writes
    long_desc = 1 (byte LONG_BYTE of line 0). INCR bursts only; the bytes on the bus lanes
    of the beat's address (its DB-byte slice of the line)."""
    if bt.burst != INCR:
        return 0, False
    lb = C["DESC_LINE_BYTES"]
    base = bt.addr - bt.addr % lb
    s0 = bt.addr - bt.addr % bus_bytes
    lo, hi = max(bt.lo, s0), min(bt.hi, s0 + bus_bytes)
    words = 0
    for w in range(lb // 8):
        if lo <= base + 8 * w and base + 8 * w + 8 <= hi:
            words |= 1 << w
    a = base + LONG_BYTE
    lng = lo <= a < hi and bool((bt.data[a - bt.lo] >> LONG_BIT) & 1)
    return words, lng


@dataclass
class _Acc:
    ch: int            # channel whose line is being assembled
    line: int          # 0 or 1
    buf: bytearray = field(default_factory=lambda: bytearray(C["DESC_LINE_BYTES"]))
    have: int = 0      # bit per byte written
    line0: int = 0     # the first line of a long descriptor (line == 1)


class HostPort:
    """The host port's acceptance rules and the status table (docs/qos.md "Descriptors
    and their acceptance", "Status and polling"), beat by beat.

    write() returns (okay, events): okay False means SLVERR for the burst; events are
    ("start", page, ch, Descriptor) for an accepted descriptor and ("error", page, ch,
    reason) for one refused at completion. The engine side is told with finish().

    A long descriptor is accepted or refused as a whole: when its line 0 (even channel c)
    is refused (a refused beat carrying long_desc = 1, or a bad descriptor with long) or a
    beat of its line 1 is refused, the page "skips" line 1: the beats of c+1 are refused
    until the four words of that line have been carried (strobes) or a beat of the page
    is accepted."""

    def __init__(self, p: Params):
        self.p = p
        self.st: dict[tuple[int, int], int] = {}   # (page, ch) -> ST_* (default IDLE)
        self.long: set[tuple[int, int]] = set()    # BUSY long descriptors (c+1 blocked)
        self.acc: dict[int, _Acc] = {}             # page -> line being assembled
        self.skip: dict[int, list] = {}            # page -> [c, words of line 1 seen]
        self.reason: dict[tuple[int, int], int] = {}   # (page, ch) -> ERR_* of the last ERROR
        self.refused = 0          # refused beats + refused descriptors (CNT_DESC_ERR)
        self.skipped = 0          # beats refused as line 1 of a refused long descriptor

    # status table
    def status(self, page: int, ch: int) -> int:
        return self.st.get((page, ch), C["ST_IDLE"])

    def busy(self, page: int, ch: int) -> bool:
        return self.status(page, ch) == C["ST_BUSY"]

    def blocked(self, page: int, ch: int) -> bool:
        """Writes to (page, ch) are refused: BUSY or the second half of a BUSY long one."""
        return self.busy(page, ch) or (page, ch - 1) in self.long

    def finish(self, page: int, ch: int, st: int, reason: int = 0) -> None:
        """The engine finished the transfer of (page, ch): ST_DONE, or ST_ERROR with the
        ERR_* reason of its first NACK."""
        assert self.busy(page, ch)
        self.st[(page, ch)] = st
        if st == C["ST_ERROR"]:
            self.reason[(page, ch)] = reason
        self.long.discard((page, ch))

    def read_err(self, page: int, ch: int) -> int:
        """err_info reason of (page, ch): the ERR_* of its last ERROR (not reset)."""
        return self.reason.get((page, ch), C["ERR_NONE"])

    def read_single(self, page: int, ch: int) -> int:
        s = self.status(page, ch)
        if s in (C["ST_DONE"], C["ST_ERROR"]):
            self.st[(page, ch)] = C["ST_IDLE"]
        return s

    def read_coll(self, page: int, group: int) -> int:
        v = 0
        for i in range(32):
            v |= self.read_single(page, 32 * group + i) << (2 * i)
        return v

    # writes
    def beat_refusal(self, bt: Beat) -> str | None:
        """Why a beat is refused (SLVERR, nothing written, nothing changes), or None."""
        if bt.nbytes < 8 or bt.nbytes > self.p.bus_bytes:
            return f"beat size {bt.nbytes}"
        if bt.addr % bt.nbytes:
            return "address not aligned to the beat size"
        if (bt.lo, bt.hi) != (bt.addr, bt.addr + bt.nbytes):
            return "strobes are not the addressed bytes"
        if bt.burst != INCR:
            return "burst not INCR"
        a = decode_addr(bt.addr)
        if a[0] != "desc":
            return f"{a[0]} address"
        _, page, ch, _ = a
        if self.blocked(page, ch):
            return "channel BUSY"
        acc = self.acc.get(page)
        if acc is not None and acc.ch != ch:
            return "page is assembling another line"
        return None

    def beat(self, bt: Beat) -> tuple[bool, list]:
        why = self.beat_refusal(bt)
        a = decode_addr(bt.addr)
        sk = self.skip.get(a[1]) if a[0] == "desc" else None
        skip_hit = sk is not None and a[2] == sk[0] + 1
        if skip_hit:
            self.skipped += 1
            why = why or "line 1 of a refused long descriptor"
        if why is not None:
            self.refused += 1
            if a[0] == "desc":
                self._refused_line_beat(bt, a[1], a[2], skip_hit)
            return False, []
        _, page, ch, off = a
        self.skip.pop(page, None)          # an accepted beat ends the skip
        acc = self.acc.setdefault(page, _Acc(ch, 0))
        acc.buf[off:off + len(bt.data)] = bt.data
        acc.have |= ((1 << len(bt.data)) - 1) << off
        if acc.have != (1 << C["DESC_LINE_BYTES"]) - 1:
            return True, []
        del self.acc[page]
        line = int.from_bytes(acc.buf, "little")
        if acc.line == 1:
            return True, self._start(page, ch - 1, Descriptor.from_lines(acc.line0, line))
        d = Descriptor.from_lines(line)
        nxt = ch + 1 < C["CH_PER_PAGE"] and self.blocked(page, ch + 1)
        why = descriptor_refusal(d, ch, next_busy=bool(d.long_desc and nxt))
        if why is not None:
            self.st[(page, ch)] = C["ST_ERROR"]
            self.reason[(page, ch)] = C["ERR_BAD_DESC"]
            self.refused += 1
            if d.long_desc and ch % 2 == 0:
                self.skip[page] = [ch, 0]
            return False, [("error", page, ch, why)]
        if d.long_desc:
            self.acc[page] = _Acc(ch + 1, 1, line0=line)
            return True, []
        return True, self._start(page, ch, d)

    def _refused_line_beat(self, bt: Beat, page: int, ch: int, skip_hit: bool) -> None:
        """The skip rules for a refused beat addressed to channel ch of page."""
        words, lng = carried(bt, self.p.bus_bytes)
        full = (1 << (C["DESC_LINE_BYTES"] // 8)) - 1
        acc = self.acc.get(page)
        if ch % 2 == 0 and lng:                       # a refused line 0 of a long one
            self.skip[page] = [ch, 0]
        elif skip_hit:
            sk = self.skip[page]
            sk[1] |= words
            if sk[1] == full:
                del self.skip[page]
        elif acc is not None and acc.line == 1 and acc.ch == ch:
            # a refused beat of line 1: the descriptor is refused, the rest of line 1 too
            seen = words
            for w in range(C["DESC_LINE_BYTES"] // 8):
                if (acc.have >> (8 * w)) & 0xFF == 0xFF:
                    seen |= 1 << w
            if seen == full:
                self.skip.pop(page, None)
            else:
                self.skip[page] = [ch - 1, seen]
        if acc is not None and acc.line == 1 and acc.ch == ch:
            del self.acc[page]                        # line 1 no longer expected

    def _start(self, page, ch, d):
        self.st[(page, ch)] = C["ST_BUSY"]
        if d.long_desc:
            self.long.add((page, ch))
        return [("start", page, ch, d)]

    def write(self, w: "Write") -> tuple[bool, list]:
        """A whole AXI write (burst): okay unless some beat or descriptor is refused."""
        ok, ev = True, []
        for bt in write_beats(w.addr, w.data, w.size, w.burst, self.p.bus_bytes):
            o, e = self.beat(bt)
            ok &= o
            ev += e
        return ok, ev


# ------------------------------------------------------------------ posting
@dataclass(frozen=True)
class Write:
    """One AXI write: AxiMaster.write(addr, data, size=size, burst=burst)."""
    addr: int
    data: bytes
    size: int            # AWSIZE: log2 of the beat size in bytes
    burst: int = INCR


POST_MODES = ("line", "desc", "words", "beats8")


def _log2(n: int) -> int:
    assert n & (n - 1) == 0
    return n.bit_length() - 1


def line_writes(addr: int, line: bytes, mode: str, rng: random.Random | None,
                bus_bytes: int) -> list[Write]:
    """The writes of one 32-byte line at addr. line: one burst of bus-width beats;
    beats8: one burst of 8-byte beats; words: 8/16(/32)-byte single-beat writes in random
    order."""
    beat = min(len(line), bus_bytes)
    if mode in ("line", "desc"):
        return [Write(addr, bytes(line), _log2(beat))]
    if mode == "beats8":
        return [Write(addr, bytes(line), 3)]
    assert mode == "words", mode
    rng = rng or random.Random(0)
    chunks = []
    off = 0
    while off < len(line):
        sizes = [8]
        if bus_bytes >= 16 and off % 16 == 0:
            sizes.append(16)
        if bus_bytes >= 32 and off == 0 and rng.random() < 0.15:
            sizes = [32]
        n = rng.choice(sizes)
        chunks.append(Write(addr + off, bytes(line[off:off + n]), _log2(n)))
        off += n
    rng.shuffle(chunks)
    return chunks


def post_writes(d: Descriptor, page: int, ch: int, mode: str = "line",
                rng: random.Random | None = None, bus_bytes: int = 32) -> list[Write]:
    """The AXI writes that post d to write channel ch of page, in order. Modes:
    line   one write per 32-byte line (bursts of bus-width beats);
    desc   one write of the whole descriptor (32 or 64 bytes);
    words  8/16-byte word writes in random order within each line, line 1 after line 0;
    beats8 one burst of 8-byte beats per line."""
    base = desc_addr(page, ch)
    lines = d.lines()
    if mode == "desc":
        data = b"".join(lines)
        return [Write(base, data, _log2(min(len(data), bus_bytes, 32)))]
    out = []
    for i, ln in enumerate(lines):
        out += line_writes(base + i * C["DESC_LINE_BYTES"], ln, mode, rng, bus_bytes)
    return out


def interleave(seqs: list[list], rng: random.Random) -> list:
    """A random merge of several sequences that keeps each one's order."""
    seqs = [list(s) for s in seqs if s]
    pos = [0] * len(seqs)
    left = [len(s) for s in seqs]
    out = []
    while any(left):
        # pick a sequence weighted by what it has left (uniform over merges)
        k = rng.choices(range(len(seqs)), weights=left)[0]
        out.append(seqs[k][pos[k]])
        pos[k] += 1
        left[k] -= 1
    return out


# ------------------------------------------------------------------ scoreboard
class ModelError(AssertionError):
    """An observed output disagrees with the model."""


@dataclass
class Transfer:
    """A posted transfer and what has been seen of it."""
    page: int
    ch: int
    desc: Descriptor
    cls: Cls
    nblocks: int                     # 1 for an inline transfer
    blocks: list[dict]               # expected block descriptors (memory)
    inline: dict | None              # expected inline packet
    control: dict | None             # expected control packet (notify memory transfer)
    announce: dict | None = None     # expected REGISTER packet (registered transfer)
    announce_seen: dict | None = None
    observed: list = field(default_factory=list)      # [(tid, seq)] per block / packet
    in_flight: dict = field(default_factory=dict)     # tid -> seq
    acked: int = 0                   # ACKs accepted by the engine (matching)
    acked_blocks: set = field(default_factory=set)    # indices of the blocks ACKed
    nacked: bool = False
    nack_reason: int | None = None   # ERR_* of the first NACK the engine accepted
    aborted_at: int | None = None    # blocks observed when the NACK was accepted
    fid0: int | None = None
    fids_held: bool = False
    posted_at: int = 0               # the test's cycle of the post (benchmark stamps)
    control_seen: dict | None = None
    control_ok: bool = False         # control packet seen and its tid/seq checked

    @property
    def xfer(self) -> int:
        return xfer_index(self.page, self.ch)

    @property
    def all_acked(self) -> bool:
        return self.acked == self.nblocks

    @property
    def complete(self) -> bool:
        """Everything the engine must output for it has been seen and acknowledged."""
        if self.nacked:
            return not self.in_flight
        return self.all_acked and (self.control is None or self.control_ok) \
            and (self.announce is None or self.announce_seen is not None)

    def remaining(self) -> str:
        s = f"{self.observed.__len__()}/{self.nblocks} out, {self.acked} acked"
        if self.control is not None:
            s += ", control " + ("seen" if self.control_seen else "missing")
        return s


class Scoreboard:
    """Checks observed outputs against the transfers posted.

    post() before the descriptor's last beat is written; on_block()/on_packet() with the
    unpacked fields of every handshake on m_blk/m_pkt; on_ack() for every ACK when the
    engine accepts it (s_ack handshake); retire() when the test has seen the transfer
    DONE/ERROR and wants its channel back; check_end() at the end.

    Checks: expected fields; blocks of a transfer in order 0..n-1; at most
    MAX_OUTSTANDING of a transfer unacknowledged; TID not in flight; TID/FID rules and
    FIDs not held by another transfer; seq unique and increasing per port, every seq
    0..N-1 used once (16-bit wrap unwrapped); a control packet only after blocks
    0..n-2 are acknowledged (the last block's ACK may come first: it does not count),
    with the last block's tid/seq; nothing after a NACK; with bench, which packets are
    stamped (the stamp itself is the test's to check: it knows the cycles)."""

    def __init__(self, p: Params, bench: bool = False):
        self.p = p
        self.bench = bench          # benchmark mode on (the host port stamps descriptors)
        self.active: dict[int, Transfer] = {}
        self.tid_owner: dict[int, tuple[Transfer, int]] = {}    # tid -> (transfer, seq)
        self.fid1: dict[int, Transfer] = {}
        self.fid4: dict[int, Transfer] = {}                     # group base -> transfer
        self.seq_hi = -1
        self.seqs: set[int] = set()
        self.port_last = {"blk": -1, "pkt": -1}
        self.n = dict(posted=0, blocks=0, inline=0, control=0, announce=0, ack=0, nack=0,
                      stale=0, retired=0, read=0)

    # ---------------------------------------------------------- posting
    def post(self, page: int, ch: int, d: Descriptor) -> Transfer:
        x = xfer_index(page, ch)
        if x in self.active:
            raise ModelError(f"test bug: transfer {x} posted while one is active")
        if ch >= C["WR_CH_PER_PAGE"] and (d.is_inline or d.notify):
            raise ModelError(f"test bug: read descriptor with is_inline or notify in {x}")
        self.n["read"] += int(ch >= C["WR_CH_PER_PAGE"])
        c = transfer_class(d, self.p)
        if d.is_inline:
            t = Transfer(page, ch, d, c, 1, [], expected_inline(d, page, ch), None)
        else:
            blocks = expected_blocks(d, page, ch, self.p)
            ctl = expected_control(d, page, ch, self.p) if d.notify else None
            ann = expected_announce(d, page, ch, self.p) \
                if is_registered(d, ch, self.p) else None
            t = Transfer(page, ch, d, c, len(blocks), blocks, None, ctl, ann)
        # benchmark mode (docs/fabric.md "Benchmark mode"): an INLINE of at most
        # STAMP_INLINE_MAX bytes and a CONTROL carry the descriptor's stamp, a REGISTER not
        if t.inline is not None:
            t.inline["stamped"] = int(self.bench and d.size <= C["STAMP_INLINE_MAX"])
        if t.control is not None:
            t.control["stamped"] = int(self.bench)
        if t.announce is not None:
            t.announce["stamped"] = 0
        self.active[x] = t
        self.n["posted"] += 1
        return t

    def retire(self, t: Transfer) -> None:
        """The test is done with t (seen DONE/ERROR and complete): its channel is free."""
        if not t.complete:
            raise ModelError(f"xfer {t.xfer} retired incomplete: {t.remaining()}")
        del self.active[t.xfer]
        self.n["retired"] += 1

    # ---------------------------------------------------------- sequence numbers
    def unwrap(self, seq: int) -> int:
        k = (self.seq_hi + 1 - seq + SEQ_MOD // 2) // SEQ_MOD
        return seq + k * SEQ_MOD

    def _seq(self, seq: int, port: str, what: str) -> int:
        u = self.unwrap(seq)
        if u in self.seqs:
            raise ModelError(f"{what}: seq {seq} (#{u}) used twice")
        if u <= self.port_last[port]:
            raise ModelError(f"{what}: seq {seq} (#{u}) not above the previous on m_{port} "
                             f"(#{self.port_last[port]})")
        self.seqs.add(u)
        self.port_last[port] = u
        self.seq_hi = max(self.seq_hi, u)
        return u

    # ---------------------------------------------------------- outputs
    def _xfer(self, x: int, what: str) -> Transfer:
        t = self.active.get(x)
        if t is None:
            raise ModelError(f"{what}: xfer {x} (page {x // 128} ch {x % 128}) has no "
                             f"transfer posted")
        return t

    def _take_tid(self, t: Transfer, tid: int, seq: int, what: str) -> None:
        if tid in self.tid_owner:
            o = self.tid_owner[tid][0]
            raise ModelError(f"{what}: TID {tid} is in flight (xfer {o.xfer})")
        self.tid_owner[tid] = (t, seq)
        t.in_flight[tid] = seq

    def on_block(self, f: dict) -> Transfer:
        """A block descriptor was handed over (f = BLOCK_DESC.unpack(data))."""
        what = f"block xfer {f['xfer']} #{f['block']} tid {f['tid']} seq {f['seq']}"
        t = self._xfer(f["xfer"], what)
        if t.desc.is_inline:
            raise ModelError(f"{what}: block descriptor of an inline transfer")
        b = len(t.observed)
        if t.nacked:
            raise ModelError(f"{what}: block issued after the transfer was NACKed "
                             f"({t.aborted_at} blocks out then)")
        if b >= t.nblocks:
            raise ModelError(f"{what}: transfer has only {t.nblocks} blocks")
        if f["block"] != b:
            raise ModelError(f"{what}: expected block {b} next (blocks in order)")
        bad = diff_fields(t.blocks[b], f)
        if t.announce is not None and f["xseq"] != (t.observed[0][1] if b else f["seq"]):
            bad.append(f"xseq {f['xseq']}, first block's seq "
                       f"{t.observed[0][1] if b else f['seq']}")
        if bad:
            raise ModelError(f"{what}: " + "; ".join(bad))
        if len(t.in_flight) >= self.p.max_outstanding:
            raise ModelError(f"{what}: {len(t.in_flight)} blocks of the transfer already "
                             f"unacknowledged (MAX_OUTSTANDING {self.p.max_outstanding})")
        why = check_ids(t.cls, b, f["tid"], f["fid"], t.fid0, self.p)
        if why:
            raise ModelError(f"{what}: {why}")
        if b == 0 and t.cls is not Cls.TID:
            pool = self.fid1 if t.cls is Cls.FID1 else self.fid4
            if f["fid"] in pool:
                raise ModelError(f"{what}: FID {f['fid']} held by xfer {pool[f['fid']].xfer}")
            pool[f["fid"]] = t
            t.fid0 = f["fid"]
            t.fids_held = True
        self._take_tid(t, f["tid"], f["seq"], what)
        self._seq(f["seq"], "blk", what)
        t.observed.append((f["tid"], f["seq"]))
        self.n["blocks"] += 1
        if b == t.nblocks - 1 and t.control_seen is not None:
            self._check_control_ids(t)
        if b == 0 and t.announce_seen is not None:
            self._check_announce_ids(t)
        return t

    def on_packet(self, f: dict) -> Transfer:
        """A pkt_desc was handed over (f = PKT_DESC.unpack(data))."""
        kind = "inline" if f["kind"] == C["PKT_INLINE"] else "control"
        what = f"{kind} packet xfer {f['xfer']} tid {f['tid']} seq {f['seq']}"
        t = self._xfer(f["xfer"], what)
        if t.ch >= C["WR_CH_PER_PAGE"]:
            raise ModelError(f"{what}: a packet of a read transfer (only blocks)")
        if f["kind"] == C["PKT_INLINE"]:
            if not t.desc.is_inline:
                raise ModelError(f"{what}: inline packet of a memory transfer")
            if t.observed:
                raise ModelError(f"{what}: second inline packet")
            bad = diff_fields(t.inline, f)
            if bad:
                raise ModelError(f"{what}: " + "; ".join(bad))
            if not 0 <= f["tid"] < self.p.num_tids:
                raise ModelError(f"{what}: TID outside the pool 0..{self.p.num_tids - 1}")
            self._take_tid(t, f["tid"], f["seq"], what)
            self._seq(f["seq"], "pkt", what)
            t.observed.append((f["tid"], f["seq"]))
            self.n["inline"] += 1
            return t
        if f["announce"]:
            what = "REGISTER " + what
            if t.announce is None:
                raise ModelError(f"{what}: REGISTER packet of a transfer not registered")
            if t.announce_seen is not None:
                raise ModelError(f"{what}: second REGISTER packet")
            bad = diff_fields(t.announce, f)
            if bad:
                raise ModelError(f"{what}: " + "; ".join(bad))
            t.announce_seen = f
            self.n["announce"] += 1
            if t.observed:
                self._check_announce_ids(t)
            return t
        if t.control is None:
            raise ModelError(f"{what}: control packet of a transfer without notify "
                             f"(or inline)")
        if t.control_seen is not None:
            raise ModelError(f"{what}: second control packet")
        if t.nacked:
            raise ModelError(f"{what}: control packet of a NACKed transfer")
        if not set(range(t.nblocks - 1)) <= t.acked_blocks:
            raise ModelError(f"{what}: control packet before every block but the last is "
                             f"acknowledged (blocks {sorted(t.acked_blocks)} of "
                             f"{t.nblocks} acked)")
        bad = diff_fields(t.control, f)
        if bad:
            raise ModelError(f"{what}: " + "; ".join(bad))
        t.control_seen = f
        self.n["control"] += 1
        if len(t.observed) == t.nblocks:
            self._check_control_ids(t)
        return t

    def _check_control_ids(self, t: Transfer) -> None:
        f = t.control_seen
        tid, seq = t.observed[-1]
        if (f["tid"], f["seq"]) != (tid, seq):
            raise ModelError(f"control packet xfer {t.xfer}: tid/seq {f['tid']}/{f['seq']}, "
                             f"last block has {tid}/{seq}")
        if t.announce is not None and f["xseq"] != t.observed[0][1]:
            raise ModelError(f"control packet xfer {t.xfer}: xseq {f['xseq']}, first "
                             f"block's seq {t.observed[0][1]}")
        t.control_ok = True

    def _check_announce_ids(self, t: Transfer) -> None:
        f = t.announce_seen
        tid, seq = t.observed[0]
        if (f["tid"], f["seq"], f["xseq"]) != (tid, seq, seq):
            raise ModelError(f"REGISTER packet xfer {t.xfer}: tid/seq/xseq {f['tid']}/"
                             f"{f['seq']}/{f['xseq']}, first block has {tid}/{seq}")

    # ---------------------------------------------------------- acknowledgements
    def on_ack(self, tid: int, seq: int, nack: bool = False,
               reason: int = 0) -> Transfer | None:
        """The engine accepted an ACK/NACK (reason: the NACK's ERR_*). Returns the
        transfer it retires a block of, None when the engine must drop it (no pending entry
        or sequence mismatch)."""
        o = self.tid_owner.get(tid)
        if o is None or o[1] != seq:
            self.n["stale"] += 1
            return None
        t = o[0]
        del self.tid_owner[tid]
        del t.in_flight[tid]
        if nack:
            self.n["nack"] += 1
            if not t.nacked:
                t.nacked = True
                t.nack_reason = reason
                t.aborted_at = len(t.observed)
        else:
            self.n["ack"] += 1
            t.acked += 1
            t.acked_blocks.add(t.observed.index((tid, seq)))
        if t.fids_held and (t.all_acked or (t.nacked and not t.in_flight)):
            pool = self.fid1 if t.cls is Cls.FID1 else self.fid4
            del pool[t.fid0]
            t.fids_held = False
        return t

    def pending(self) -> list[tuple[int, int]]:
        """(tid, seq) of every output not yet acknowledged."""
        return [(tid, s) for tid, (_, s) in self.tid_owner.items()]

    # ---------------------------------------------------------- end
    def seq_problems(self) -> list[str]:
        n = len(self.seqs)
        if n and (min(self.seqs) != 0 or max(self.seqs) != n - 1):
            missing = sorted(set(range(max(self.seqs) + 1)) - self.seqs)
            return [f"sequence numbers not 0..{n - 1} each once: {n} used, max "
                    f"#{max(self.seqs)}, missing {missing[:10]}"]
        if n != self.n["blocks"] + self.n["inline"]:
            return [f"{n} sequence numbers for {self.n['blocks']} blocks + "
                    f"{self.n['inline']} inline packets"]
        return []

    def check_end(self) -> list[str]:
        """What is wrong when every transfer should be over: [] when nothing."""
        bad = []
        for t in self.active.values():
            if not t.complete:
                bad.append(f"xfer {t.xfer} (page {t.page} ch {t.ch}, {t.cls.value}, size "
                           f"{t.desc.size}) incomplete: {t.remaining()}")
        if self.tid_owner:
            bad.append(f"TIDs still in flight: {sorted(self.tid_owner)[:20]}")
        if self.fid1 or self.fid4:
            bad.append(f"FIDs still held: {sorted(self.fid1)} {sorted(self.fid4)}")
        return bad + self.seq_problems()


def ack_word(tid: int, seq: int, nack: bool = False, reason: int = 0) -> int:
    return ACK_DESC.pack(tid=tid, seq=seq % SEQ_MOD, nack=int(nack), reason=reason)


def in_flight(sb: Scoreboard) -> int:
    """Transfers the engine has taken and not yet completed, as far as the outputs and
    ACKs seen tell (exact once the engine is quiet): posted and not complete."""
    return sum(1 for t in sb.active.values() if not t.complete)


# ------------------------------------------------------------------ the core's records
def sv_struct(name: str, fields: list[tuple[str, int]]) -> Layout:
    """The Layout of a SystemVerilog packed struct whose members (name, width) are listed
    in declaration order (the first is the most significant)."""
    width = sum(w for _, w in fields)
    out, lsb = [], width
    for n, w in fields:
        lsb -= w
        out.append(Field(n, lsb, w, ""))
    return Layout(name, width, tuple(out), "")


BW = 20                                  # block index / count bits (qrdma_qos_pkg::BW)
BMASK = (1 << BW) - 1
CLS_CTRL = 0                             # cls_e codes
CLS_CODE = {Cls.TID: 1, Cls.FID1: 2, Cls.FID4: 3}
CLS_OF = {v: k for k, v in CLS_CODE.items()}
Q_CTRL, Q_TID = CONTROL_QUEUE, TID_QUEUE
Q_FID1_HAVE, Q_FID1_NEED, Q_FID4_HAVE, Q_FID4_NEED = 2, 18, 34, 50
NUM_QUEUES = 66

# qrdma_qos_pkg (tests/model/test_qos_model.py checks these against the package source)
META = sv_struct("meta_t", [
    ("issued", BW), ("acked", BW), ("blocks", BW), ("fid", 8), ("tid_busy", 16),
    ("in_q", 1), ("notify", 1), ("ctrl_sent", 1), ("last_acked", 1), ("aborted", 1),
    ("reason", 4), ("last_tid", 10), ("last_seq", 16), ("hq", 7), ("cls", 2),
    ("registered", 1), ("first_seq", 16)])
PEND = sv_struct("pend_t", [
    ("seq", 16), ("xfer", 11), ("block", BW), ("single", 1), ("cls", 2), ("fid", 8),
    ("time_", 32)])
ACT = sv_struct("act_t", [
    ("enq", 1), ("q", 7), ("cmpl", 1), ("err", 1), ("reason", 4), ("xfer", 11), ("cls", 2),
    ("fid", 8)])


def meta_zero() -> dict:
    return {f.name: 0 for f in META.fields}


def queue_cls(q: int):
    """Class of queue q: CLS_CTRL for the control queue, else a Cls."""
    if q == Q_CTRL:
        return CLS_CTRL
    if q == Q_TID:
        return Cls.TID
    return Cls.FID1 if q < Q_FID4_HAVE else Cls.FID4


def queue_takes(q: int) -> str | None:
    """The pool a dequeue from queue q takes an ID from: "tid", "fid1", "fid4" or None."""
    if q == Q_TID:
        return "tid"
    if Q_FID1_NEED <= q < Q_FID4_HAVE:
        return "fid1"
    if q >= Q_FID4_NEED:
        return "fid4"
    return None


def act_relevant(a: dict) -> dict:
    """The fields of an act_t the segmenter uses: q only with enq, the completion fields
    only with cmpl."""
    keep = ["enq", "cmpl", "xfer"] + (["q"] if a["enq"] else []) \
        + (["err", "reason", "cls", "fid"] if a["cmpl"] else [])
    return {k: a[k] for k in keep}


# ------------------------------------------------------------------ ID pools
class IdPools:
    """qrdma_qos_ids: FIFOs of free IDs, handed out oldest first (after reset in order):
    TIDs 0..num_tids-1, 1xFIDs 128..191, 4xFID groups as their first FID 192, 196, ..."""

    KINDS = ("tid", "fid1", "fid4")

    def __init__(self, num_tids: int):
        self.free = {"tid": collections.deque(range(num_tids)),
                     "fid1": collections.deque(range(FID1_FIRST, FID1_FIRST + FID1_NUM)),
                     "fid4": collections.deque(range(FID4_FIRST, FID4_FIRST + 4 * FID4_GROUPS, 4))}
        self.size = {k: len(v) for k, v in self.free.items()}
        self.taken: dict[str, set] = {k: set() for k in self.KINDS}

    def avail(self, kind: str) -> bool:
        return bool(self.free[kind])

    def head(self, kind: str) -> int | None:
        return self.free[kind][0] if self.free[kind] else None

    def take(self, kind: str) -> int:
        i = self.free[kind].popleft()
        self.taken[kind].add(i)
        return i

    def give(self, kind: str, i: int) -> None:
        if i not in self.taken[kind]:
            raise ModelError(f"{kind} {i} returned but not taken")
        self.taken[kind].remove(i)
        self.free[kind].append(i)

    def give_fids(self, cls, fid0: int) -> None:
        """The FIDs of a completed transfer of class cls (a Cls or CLS_CTRL)."""
        if cls is Cls.FID1:
            self.give("fid1", fid0)
        elif cls is Cls.FID4:
            self.give("fid4", fid0)

    def all_free(self) -> bool:
        return all(len(self.free[k]) == self.size[k] for k in self.KINDS)


# ------------------------------------------------------------------ scheduling queues
class Queues:
    """The 66 scheduling queues (FIFOs of transfers) with each transfer's fresh bit (set
    when the host queues it, clear on every re-queue), served in strict order of their
    number, a queue being eligible when the pool its dequeue takes from has an ID."""

    def __init__(self):
        self.q = [collections.deque() for _ in range(NUM_QUEUES)]
        self.where: dict[int, int] = {}
        self.fresh: dict[int, bool] = {}

    def push(self, q: int, x: int, fresh: bool) -> None:
        if x in self.where:
            raise ModelError(f"xfer {x} queued in {q} while in queue {self.where[x]}")
        self.q[q].append(x)
        self.where[x] = q
        self.fresh[x] = fresh

    def pop(self, q: int, x: int | None = None) -> tuple[int, bool]:
        """Dequeue the head of q (which must be x when given): (xfer, fresh)."""
        if not self.q[q]:
            raise ModelError(f"dequeue from empty queue {q}")
        if x is not None and self.q[q][0] != x:
            raise ModelError(f"xfer {x} dequeued from queue {q}, whose head is "
                             f"{self.q[q][0]}")
        x = self.q[q].popleft()
        del self.where[x]
        return x, self.fresh.pop(x)

    def eligible(self, q: int, pools: IdPools) -> bool:
        k = queue_takes(q)
        return bool(self.q[q]) and (k is None or pools.avail(k))

    def pick(self, pools: IdPools) -> int | None:
        for q in range(NUM_QUEUES):
            if self.eligible(q, pools):
                return q
        return None

    def empty(self) -> bool:
        return not self.where


# ------------------------------------------------------------------ segmenter
@dataclass
class Issue:
    """What stage 2 of the segmenter does with one dequeued transfer."""
    kind: str                    # "block", "inline", "control", "abort"
    blk: dict | None = None      # BLOCK_DESC fields
    pkt: dict | None = None      # PKT_DESC fields
    pend: tuple | None = None    # (tid, PEND fields)
    meta: dict | None = None     # META fields written back
    enq: int | None = None       # queue the transfer goes back into
    cmpl: dict | None = None     # err, reason, cls (code), fid
    tid_ret: int | None = None   # the TID taken for it and not used (back to the pool)


class SegmenterModel:
    """Stage 2 of qrdma_qos_seg (docs/qos.md "Segmentation", "Inline transfers",
    "Completion"): given a transfer dequeued from queue q with its fresh bit, its metadata
    as read, the TID taken from the pool (TID queue) and the FID the pools offered (the
    one taken from a need-FID queue), say what is issued and written. The global sequence
    number (+1 per block and inline packet) lives here."""

    def __init__(self, p: Params):
        self.p = p
        self.seq = 0

    def issue(self, d: Descriptor, x: int, q: int, fresh_bit: bool, meta_rd: dict,
              pool_tid: int, new_fid: int, now: int = 0) -> Issue:
        p = self.p
        page, ch = xfer_page_ch(x)
        ctrl = q == Q_CTRL
        cls = CLS_OF[meta_rd["cls"]] if ctrl else queue_cls(q)
        if cls is Cls.TID:
            fresh = fresh_bit and not ctrl
        else:
            fresh = not ctrl and queue_takes(q) is not None
        m = meta_zero() if fresh else dict(meta_rd)
        seq = self.seq % SEQ_MOD
        n = num_blocks(d.dst_addr, d.size, p.block_size) & BMASK
        common = dict(dst_node=d.dst_node, pd=page, dst_addr=d.dst_addr, xfer=x,
                      size=d.size, tag=d.tag, rkey=remote_key(d))
        # registered: by the descriptor at the first issue, by the metadata after it
        reg = is_registered(d, ch, p) if fresh else bool(m["registered"])
        xseq = dict(registered=1, xseq=seq if fresh else m["first_seq"]) if reg \
            else dict(registered=0)
        cmpl_fields = dict(reason=m["reason"], cls=CLS_CODE.get(cls, CLS_CTRL), fid=m["fid"])
        if ctrl:
            w = dict(m, in_q=0)
            if m["aborted"]:
                cm = dict(cmpl_fields, err=1) if m["acked"] == m["issued"] else None
                return Issue("abort", meta=w, cmpl=cm)
            pkt = dict(common, kind=C["PKT_CONTROL"], tid=m["last_tid"], seq=m["last_seq"],
                       blocks=m["blocks"], **xseq)
            w["ctrl_sent"] = 1
            cm = dict(cmpl_fields, err=0) if m["acked"] == m["blocks"] else None
            return Issue("control", pkt=pkt, meta=w, cmpl=cm)
        f0 = new_fid if fresh else m["fid"]
        if d.is_inline:
            pkt = dict(common, kind=C["PKT_INLINE"], tid=pool_tid, seq=seq, len=d.size,
                       notify=d.notify, payload=int.from_bytes(d.payload(), "little"))
            pend = dict(seq=seq, xfer=x, block=0, single=1, cls=CLS_CODE[Cls.TID], fid=f0,
                        time_=now)
            self.seq += 1
            return Issue("inline", pkt=pkt, pend=(pool_tid, pend))
        if m["aborted"]:
            cm = dict(cmpl_fields, err=1) if m["acked"] == m["issued"] else None
            return Issue("abort", meta=dict(m, in_q=0), cmpl=cm,
                         tid_ret=pool_tid if cls is Cls.TID else None)
        b = m["issued"]
        last = b + 1 == n
        if cls is Cls.TID:
            fid, tid, busy, busy_next, hq = 0, pool_tid, 0, False, Q_TID
        else:
            fid, tid = frog_leap(cls, f0, b)
            busy = m["tid_busy"] | (1 << tid_slot(cls, b))
            busy_next = bool((busy >> tid_slot(cls, b + 1)) & 1)
            hq = (Q_FID1_HAVE if cls is Cls.FID1 else Q_FID4_HAVE) + d.prio
        requeue = not last and ((b + 1 - m["acked"]) & BMASK) < p.max_outstanding \
            and not busy_next
        ctrl_now = last and bool(d.notify) and m["acked"] == n - 1
        blk = dict(block_fields(d, page, ch, p, b), tid=tid, seq=seq, fid=fid, **xseq)
        w = dict(m, issued=b + 1, blocks=n, fid=f0, tid_busy=busy, in_q=int(requeue),
                 notify=d.notify, ctrl_sent=int(ctrl_now), aborted=0, hq=hq,
                 cls=CLS_CODE[cls], registered=int(reg))
        if fresh:
            w["first_seq"] = seq
        if last:
            w.update(last_tid=tid, last_seq=seq)
        pkt = None
        if ctrl_now:
            pkt = dict(common, kind=C["PKT_CONTROL"], tid=tid, seq=seq, blocks=n, **xseq)
        elif fresh and reg:   # the REGISTER packet with the first block
            pkt = dict(common, kind=C["PKT_CONTROL"], tid=tid, seq=seq, blocks=n, announce=1,
                       **xseq)
        pend = dict(seq=seq, xfer=x, block=b, single=int(n == 1), cls=CLS_CODE[cls], fid=f0,
                    time_=now)
        self.seq += 1
        return Issue("block", blk=blk, pkt=pkt, pend=(tid, pend), meta=w,
                     enq=hq if requeue else None)


# ------------------------------------------------------------------ message handler
@dataclass
class Retire:
    """What the message handler does with one matching ACK / NACK."""
    tid_free: int | None         # a TID-only TID back to its pool
    meta: dict | None            # META written back (multi-block transfers)
    act: dict | None             # ACT fields pushed (re-queue / control queue / completion)


class HandlerModel:
    """qrdma_qos_handler (docs/qos.md "Completion"): an ACK matches when its TID has a
    pending entry with the same sequence number; a match retires the block (the entry
    leaves the table), updates the transfer's metadata and asks for at most one action."""

    def __init__(self, p: Params):
        self.p = p

    @staticmethod
    def matches(entry: dict | None, seq: int) -> bool:
        """entry: the valid pending entry of the ACK's TID, None when there is none."""
        return entry is not None and entry["seq"] == seq % SEQ_MOD

    def retire(self, tid: int, entry: dict, m: dict | None, nack: bool,
               reason: int) -> Retire:
        """A matching ACK of the block in entry; m: the transfer's metadata as read (not
        used for a single-block or inline transfer)."""
        free = tid if entry["cls"] == CLS_CODE[Cls.TID] else None
        x = entry["xfer"]
        if entry["single"]:
            act = dict(enq=0, q=0, cmpl=1, err=int(nack), reason=reason, xfer=x,
                       cls=entry["cls"], fid=entry["fid"])
            return Retire(free, None, act)
        cls = CLS_OF.get(m["cls"], Cls.TID)
        acked = (m["acked"] + 1) & BMASK
        last_acked = int(bool(m["last_acked"]) or entry["block"] == m["blocks"] - 1)
        busy = 0 if cls is Cls.TID else m["tid_busy"] & ~(1 << tid_slot(cls, entry["block"]))
        aborted = int(bool(m["aborted"]) or nack)
        why = m["reason"] if m["aborted"] else reason         # the first NACK's
        enq = None
        if aborted:
            cmpl = acked == m["issued"] and not m["in_q"]
        else:
            cmpl = acked == m["blocks"] and (not m["notify"] or bool(m["ctrl_sent"]))
            # the control packet goes once the last block is issued and every block but
            # the last is acknowledged
            if (not m["in_q"] and m["notify"] and not m["ctrl_sent"]
                    and m["issued"] == m["blocks"] and acked - last_acked == m["blocks"] - 1):
                enq = Q_CTRL
            elif (not m["in_q"] and m["issued"] < m["blocks"]
                  and ((m["issued"] - acked) & BMASK) < self.p.max_outstanding
                  and not (busy >> tid_slot(cls, m["issued"])) & 1):
                enq = m["hq"]
        w = dict(m, acked=acked, last_acked=last_acked, tid_busy=busy, aborted=aborted,
                 reason=why, in_q=int(bool(m["in_q"]) or enq is not None))
        act = None
        if enq is not None or cmpl:
            act = dict(enq=int(enq is not None), q=enq or 0, cmpl=int(cmpl),
                       err=int(bool(aborted)), reason=why, xfer=x, cls=m["cls"], fid=m["fid"])
        return Retire(free, w, act)


# ------------------------------------------------------------------ the core, untimed
class CoreModel:
    """qrdma_qos_core without timing: the queues, the pools, the segmenter and the message
    handler sharing the metadata and pending tables. step() issues one dequeued transfer
    (the first eligible queue's head), ack() handles one ACK / NACK; completions are
    appended to `done` as (xfer, err, reason). Handler actions are applied at once (the
    segmenter's and the handler's uses of the enqueue and completion ports are
    serialized)."""

    def __init__(self, p: Params):
        self.p = p
        self.desc: dict[int, Descriptor] = {}      # the transfer table
        self.queues = Queues()
        self.pools = IdPools(p.num_tids)
        self.meta: dict[int, dict] = collections.defaultdict(meta_zero)
        self.pending: dict[int, dict] = {}         # TID -> valid pending entry
        self.seg = SegmenterModel(p)
        self.hdl = HandlerModel(p)
        self.done: list[tuple[int, int, int]] = []
        self.now = 0
        self.return_unused = True    # step() returns an unused TID to the pool itself

    def post(self, x: int, d: Descriptor) -> None:
        self.desc[x] = d
        self.queues.push(queue_of(d, self.p), x, True)

    def step(self) -> Issue | None:
        self.now += 1
        q = self.queues.pick(self.pools)
        if q is None:
            return None
        x, fresh = self.queues.pop(q)
        k = queue_takes(q)
        pool_tid = self.pools.take("tid") if k == "tid" else None
        # the FID taken from a need-FID queue (else the value is kept but unused: 0)
        fid = self.pools.take(k) if k in ("fid1", "fid4") else 0
        iss = self.seg.issue(self.desc[x], x, q, fresh, self.meta[x], pool_tid, fid, self.now)
        self.apply_issue(x, iss)
        return iss

    def apply_issue(self, x: int, iss: Issue) -> None:
        if iss.meta is not None:
            self.meta[x] = iss.meta
        if iss.pend is not None:
            tid, e = iss.pend
            if tid in self.pending:
                raise ModelError(f"TID {tid} issued while pending")
            self.pending[tid] = e
        if iss.tid_ret is not None and self.return_unused:
            self.pools.give("tid", iss.tid_ret)
        if iss.enq is not None:
            self.queues.push(iss.enq, x, False)
        if iss.cmpl is not None:
            self.complete(x, iss.cmpl)

    def complete(self, x: int, c: dict) -> None:
        self.pools.give_fids(CLS_OF.get(c["cls"], CLS_CTRL), c["fid"])
        self.done.append((x, c["err"], c["reason"]))

    def ack(self, tid: int, seq: int, nack: bool = False, reason: int = 0) -> Retire | None:
        """None when the ACK is stale (dropped)."""
        e = self.pending.get(tid)
        if not self.hdl.matches(e, seq):
            return None
        del self.pending[tid]
        r = self.hdl.retire(tid, e, None if e["single"] else self.meta[e["xfer"]], nack,
                            reason)
        if r.tid_free is not None:
            self.pools.give("tid", r.tid_free)
        if r.meta is not None:
            self.meta[e["xfer"]] = r.meta
        if r.act is not None:
            self.apply_action(r.act)
        return r

    def apply_action(self, a: dict) -> None:
        if a["enq"]:
            self.queues.push(a["q"], a["xfer"], False)
        if a["cmpl"]:
            self.complete(a["xfer"], a)
