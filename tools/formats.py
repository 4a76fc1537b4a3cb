# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The one source of truth for qrdma's formats: transfer descriptors, the host address map,
status codes, the QoS engine's output/input records and the network packets. The
registers are described in regs/qrdma_regs.rdl (tools/regs.py, docs/registers.md).

tools/gen_formats.py turns this file into
  rtl/host/qrdma_fmt_pkg.sv     SystemVerilog localparams, packed structs, field offsets
  sw/include/qrdma_fmt.h        C macros (offsets, shifts, masks, addresses)
  docs/formats.md               the human-readable layout and address map
Python (tests, models, tools) imports this module directly and uses pack()/unpack().
A test (tests/test_formats.py) fails when a generated file is out of date.

Bit numbering: bit 0 is the least significant bit of byte 0 (little-endian, as on AXI).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Field:
    name: str
    lsb: int
    width: int
    doc: str


@dataclass(frozen=True)
class Layout:
    name: str
    width: int
    fields: tuple[Field, ...]
    doc: str

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def pack(self, **values) -> int:
        v = 0
        for k, x in values.items():
            f = self.field(k)
            if x < 0 or x >> f.width:
                raise ValueError(f"{self.name}.{k}={x} does not fit {f.width} bits")
            v |= x << f.lsb
        return v

    def unpack(self, v: int) -> dict:
        return {f.name: (v >> f.lsb) & ((1 << f.width) - 1) for f in self.fields}


def _layout(name, width, doc, *fields, overlap_ok=()):
    """A layout; fields may overlap only where overlap_ok names the pair (a union: fields
    of different packet types sharing bits)."""
    fs = tuple(Field(*f) for f in fields)
    ok = {frozenset(p) for p in overlap_ok}
    for i, f in enumerate(fs):
        assert f.lsb + f.width <= width, f"{name}.{f.name} out of range"
        for g in fs[:i]:
            if f.lsb < g.lsb + g.width and g.lsb < f.lsb + f.width:
                assert frozenset((f.name, g.name)) in ok, f"{name}.{f.name} overlaps {g.name}"
    return Layout(name, width, fs, doc)


# ----------------------------------------------------------------- constants
CONST = {
    # host side ([QoS-RDMA] §2, §3.1)
    "NUM_PAGES": (16, "protection domains (pages)"),
    "CH_PER_PAGE": (128, "channels per page: 64 write + 64 read"),
    "WR_CH_PER_PAGE": (64, "write channels per page (0..63); 64..127 are read channels"),
    "NUM_CHANNELS": (2048, "virtual channels in all (NUM_PAGES * CH_PER_PAGE)"),
    "DESC_LINE_BYTES": (32, "one transfer-table line (a short descriptor)"),
    "INLINE_SHORT_MAX": (8, "inline payload bytes that fit a 32-byte descriptor"),
    "INLINE_MAX": (32, "inline payload bytes of a 64-byte descriptor"),
    "MAX_TRANSFER_BYTES": (1 << 32, "largest transfer (4 GiB)"),
    # status codes ([QoS-RDMA] §3.4, Fig. 3.2)
    "ST_IDLE": (0, "channel status: no transfer"),
    "ST_BUSY": (1, "channel status: transfer posted, not yet complete"),
    "ST_DONE": (2, "channel status: every block acknowledged"),
    "ST_ERROR": (3, "channel status: descriptor refused, or a block NACKed"),
    # error reasons (ERR_OFFSET window, NACK packets, ack_desc)
    "ERR_NONE": (0, "error reason: no error"),
    "ERR_BAD_DESC": (1, "error reason: the descriptor was refused when it completed (docs/qos.md)"),
    "ERR_LOCAL_MEM": (2, "error reason: a payload read from this node's memory was answered SLVERR/DECERR"),
    "ERR_REMOTE_MEM": (3, "error reason: a write into the receiver's memory was answered SLVERR/DECERR (NACK)"),
    "ERR_TIMEOUT": (4, "error reason: no ACK or NACK from the destination within RETX_TIMEOUT (docs/reliability.md)"),
    "ERR_UNREACHABLE": (5, "error reason: the destination is not a reachable node: outside NODE_MASK, or this node"),
    "ERR_REMOTE_ACCESS": (6, "error reason: the receiver refused a packet: no window of its protection domain with that remote key holds it with the permission it needs (write, read, or local write for a read response; NACK; docs/protection.md)"),
    # remote keys (docs/protection.md)
    "RKEY_TAG_W": (8, "low bits of a remote key: the window's tag, changed at each registration; the bits above index the window table"),
    # address map (byte addresses on the AXI4 slave)
    "PAGE_STRIDE": (0x2000, "bytes between pages: page p at p * PAGE_STRIDE (8 KiB, OS-page mappable)"),
    "DESC_OFFSET": (0x0000, "in a page: channel c's descriptor line at DESC_OFFSET + 32 c"),
    "STATUS_OFFSET": (0x1000, "in a page: 64-bit single status of channel c (0..127) at STATUS_OFFSET + 8 c"),
    "COLL_OFFSET": (0x1400, "in a page: 64-bit collective status of channels 32 g..32 g+31 (g = 0..3) at COLL_OFFSET + 8 g"),
    "ERR_OFFSET": (0x1800, "in a page: 64-bit error reason (ERR_*) of channel c's (0..127) last ERROR at ERR_OFFSET + 8 c"),
    "REG_BASE": (0x20000, "engine configuration and counter registers (privileged)"),
    "ID_MAGIC": (0x51524D41, "value of the ID register's `magic` field ('QRMA')"),
    "ADDR_W": (18, "AXI4 slave address bits used"),
    # network packets (docs/packet.md)
    "NET_BEAT_BYTES": (64, "bytes of one AXI-Stream beat on the network (512 bits)"),
    "NET_DATA": (0, "packet type: payload of a block (header beat + payload beats)"),
    "NET_INLINE": (1, "packet type: inline payload (one beat: payload in header bytes 32..63)"),
    "NET_CONTROL": (2, "packet type: completion control packet (one beat)"),
    "NET_ACK": (3, "packet type: block / inline acknowledgement (one beat)"),
    "NET_NACK": (4, "packet type: negative acknowledgement (one beat)"),
    "NET_READ_REQ": (5, "packet type: remote read request of one block (one beat; docs/nic.md \"Remote reads\"): the receiver sends the block's bytes back as DATA packets with `resp` set"),
    "NET_READ_RESP": (6, "packet type: reserved (read responses are DATA packets with `resp` set)"),
    "NET_CREDIT": (7, "packet type: link credits (one beat, net_credit; docs/fabric.md): consumed by the link's receiving end, never forwarded or buffered"),
    "CREDIT_CLASSES": (16, "credit classes a credit beat can carry (a switch input's: one per output port)"),
    "CREDIT_CNT_W": (16, "bits of a credit class's cumulative count in a credit beat"),
    "NET_MISS": (8, "packet type: the receiver lacks packets of a block (one beat): packets pkt_idx .. pkt_idx + miss_cnt - 1 (docs/reliability.md)"),
    "NET_REGISTER": (9, "packet type: registration of a transfer at its receiver (one beat, the fields of its CONTROL; docs/registration.md): sent once, ahead of the transfer's first block, neither tracked nor answered"),
    "STAMP_W": (16, "bits of a benchmark stamp: a device's cycle count modulo 2^STAMP_W (docs/fabric.md \"Benchmark mode\")"),
    "STAMP_LSB": (384, "first header bit of the benchmark stamps: bits STAMP_LSB..511 of a stamped packet's header beat are left out of its CRC (taken as zero)"),
    "STAMP_INLINE_MAX": (16, "largest INLINE payload (bytes) that carries benchmark stamps: the stamps share the header with inline payload bytes 16..31"),
    "NOTIF_EMPTY": (0, "notification marker of an empty ring slot"),
    "NOTIF_FULL": (0xA5, "notification marker of a written ring slot"),
    "NIC_REG_FIRST": (0x200, "first NIC register offset (registers below belong to the QoS engine)"),
    # packet output kinds of the QoS engine
    "PKT_INLINE": (0, "packet output: an inline-payload transfer"),
    "PKT_CONTROL": (1, "packet output: a completion control packet"),
}

# ----------------------------------------------------------------- descriptors
DESC_LINE0 = _layout(
    "desc_line0", 256,
    "First 32-byte line of every descriptor, written to channel c. A 64-byte descriptor "
    "(flag LONG) also writes its second line to channel c+1 (c even). In a read channel "
    "(64..127) it is a read descriptor: src_addr is read at dst_node and lands at the "
    "local dst_addr; is_inline and notify must be 0.",
    ("src_addr", 0, 64, "source address (memory transfer; read: at the remote node) or inline payload bytes 0..7 (INLINE)"),
    ("dst_addr", 64, 64, "destination address at the remote node (read: the local address the data lands at)"),
    ("size", 128, 40, "transfer size in bytes, 1..2^32 (inline: 1..32)"),
    ("dst_node", 168, 16, "destination node (read: the remote node read from)"),
    ("prio", 184, 4, "intra-priority 0 (highest) .. 15 of congestion-managed transfers"),
    ("is_inline", 192, 1, "payload is in the descriptor (size <= 32; 0 in a read channel)"),
    ("notify", 193, 1, "send a completion control packet (receiver writes a notification; 0 in a read channel)"),
    ("multipath", 194, 1, "transfer may be spread over 4 flows/paths (4xFID class)"),
    ("long_desc", 195, 1, "a second line follows in channel c+1 (64-byte descriptor)"),
    ("hold", 196, 1, "clustering: the transfer waits until a descriptor with `start` is posted on the same page (docs/qos.md \"Clustering\")"),
    ("start", 197, 1, "clustering: release every held transfer of the page, this one included, in channel order"),
    ("registered", 198, 1, "register the transfer at its receiver (docs/registration.md): a memory write with notify of 2 .. REG_MAX_BLOCKS blocks is announced by a REGISTER packet and notified by the receiver when its last byte is in; ignored for any other transfer"),
    ("t_post", 200, 16, "benchmark mode: software writes 0; the engine uses the host port's stamp in its place, the cycle (mod 2^STAMP_W) it accepted the descriptor (docs/fabric.md \"Benchmark mode\")"),
    ("stamped", 216, 1, "benchmark mode: software writes 0; the engine uses the host port's in its place (t_post is set)"),
    ("tag", 224, 32, "user value carried to the completion notification"),
)

DESC_LINE1 = _layout(
    "desc_line1", 256,
    "Second line of a 64-byte descriptor (channel c+1).",
    ("inline_hi", 0, 192, "inline payload bytes 8..31 (INLINE)"),
    ("lkey", 0, 32, "read: key of the local window the response data is written under (local-write permission; a read has no inline payload)"),
    ("rkey", 192, 32, "remote key of the destination window (memory transfers; read: of the window read, which must permit remote reads)"),
    overlap_ok=(("inline_hi", "lkey"),),
)

# ----------------------------------------------------------------- QoS engine records
BLOCK_DESC = _layout(
    "block_desc", 320,
    "Block descriptor, QoS engine -> send unit (one per block of a memory transfer).",
    ("src_addr", 0, 64, "source address of the block"),
    ("dst_addr", 64, 64, "destination address of the block"),
    ("dst_node", 128, 16, "destination node"),
    ("pd", 144, 4, "protection domain (page) of the transfer"),
    ("tid", 148, 10, "transaction ID (pending-table index)"),
    ("seq", 158, 16, "global sequence number of this issue"),
    ("size", 174, 17, "block size in bytes, 1..BLOCK_SIZE"),
    ("cm", 191, 1, "congestion managed (1xFID or 4xFID transfer)"),
    ("chained", 192, 1, "not the first block of a congestion-managed transfer"),
    ("has_next", 193, 1, "not the last block of a congestion-managed transfer"),
    ("notify", 194, 1, "last block of a transfer with a completion notification"),
    ("last", 195, 1, "last block of the transfer"),
    ("fid", 196, 8, "flow ID (0: none); blocks of a flow follow one path"),
    ("path", 204, 2, "path index of the flow (fid mod 4 for multipath, 0 otherwise)"),
    ("xfer", 206, 11, "channel (transfer-table index) the block belongs to"),
    ("block", 217, 20, "block index within the transfer"),
    ("pkt_first", 237, 8, "first packet of the block to send (0: from its start); a re-send of missing packets"),
    ("pkt_num", 245, 9, "packets to send from pkt_first on (0: to the block's end)"),
    ("resend", 254, 1, "set by the sender's reliability unit on a block it passes on again (a re-send keeps its generation)"),
    ("registered", 255, 1, "a block of a transfer registered at its receiver (docs/registration.md)"),
    ("rkey", 256, 32, "remote key of the destination window (the descriptor's rkey; 0 without a second line)"),
    ("lkey", 288, 32, "read block (xfer a read channel): the local key its responses carry (the descriptor's lkey; 0 without a second line or for a write channel)"),
    ("xseq", 288, 16, "registered block (a write channel's): seq of its transfer's first block"),
    overlap_ok=(("lkey", "xseq"),),
)

PKT_DESC = _layout(
    "pkt_desc", 512,
    "Packet output, QoS engine -> send unit: inline-payload packets and completion "
    "control packets, complete (no memory read needed).",
    ("kind", 0, 1, "PKT_INLINE or PKT_CONTROL"),
    ("dst_node", 1, 16, "destination node"),
    ("pd", 17, 4, "protection domain"),
    ("tid", 21, 10, "inline: its TID; control: TID of the transfer's last block"),
    ("seq", 31, 16, "inline: its sequence number; control: seq of the last block"),
    ("len", 47, 6, "inline payload length 1..32 (control: 0)"),
    ("dst_addr", 53, 64, "inline: destination address; control: transfer's destination address"),
    ("xfer", 117, 11, "channel of the transfer"),
    ("size", 128, 33, "control: transfer size in bytes; inline: payload length"),
    ("tag", 161, 32, "user tag from the descriptor"),
    ("blocks", 193, 21, "control: number of blocks of the transfer"),
    ("notify", 214, 1, "inline: the receiver writes a completion notification on arrival"),
    ("resend", 215, 1, "set by the sender's reliability unit on a packet it passes on again (a re-send keeps its generation)"),
    ("rkey", 216, 32, "remote key of the destination window (the descriptor's rkey, 0 without a second line; a CONTROL packet does not carry it)"),
    ("registered", 248, 1, "control: the transfer is registered at its receiver (docs/registration.md)"),
    ("announce", 249, 1, "control with registered: the registration packet (NET_REGISTER), sent once at the transfer's first block and not tracked; without: the transfer's CONTROL"),
    ("stamped", 250, 1, "benchmark mode: an INLINE of at most STAMP_INLINE_MAX bytes or a CONTROL (not a registration) whose descriptor was stamped; t_post is set"),
    ("payload", 256, 256, "inline payload, byte 0 in bits 7:0"),
    ("xseq", 256, 16, "control with registered (and announce): seq of the transfer's first block"),
    ("t_post", 384, 16, "with stamped: the descriptor's t_post (an INLINE's payload bytes 16 and 17, which it does not use)"),
    overlap_ok=(("payload", "xseq"), ("payload", "t_post")),
)

ACK_DESC = _layout(
    "ack_desc", 32,
    "Acknowledgement, receive unit (ACK/NACK packets) or send unit (local read error) -> "
    "QoS engine.",
    ("tid", 0, 10, "transaction ID of the acknowledged block / inline packet"),
    ("seq", 10, 16, "sequence number it was sent with"),
    ("nack", 26, 1, "1: negative acknowledgement"),
    ("reason", 27, 4, "NACK: ERR_* reason (ERR_REMOTE_MEM, ERR_REMOTE_ACCESS, ERR_LOCAL_MEM, ERR_TIMEOUT, ERR_UNREACHABLE)"),
)

RSP_DESC = _layout(
    "rsp_desc", 65,
    "Response request, receive unit -> send unit: one ACK or NACK packet to send.",
    ("dst_node", 0, 16, "node the response goes to (the block's sender)"),
    ("tid", 16, 10, "transaction ID of the block / inline packet"),
    ("seq", 26, 16, "its sequence number"),
    ("nack", 42, 1, "1: NACK"),
    ("reason", 43, 4, "NACK: ERR_* reason"),
    ("miss", 47, 1, "1: a MISS response (nack 0): packets pkt_idx .. pkt_idx + miss_cnt - 1 of the block are missing"),
    ("pkt_idx", 48, 8, "MISS: the block's first missing packet"),
    ("miss_cnt", 56, 9, "MISS: missing packets from pkt_idx on, 1..256"),
)

MISS_DESC = _layout(
    "miss_desc", 43,
    "Missing-packets report, receive unit (NET_MISS packets) -> the sender's reliability "
    "unit: packets pkt_first .. pkt_first + pkt_num - 1 of block (tid, seq) are missing.",
    ("tid", 0, 10, "transaction ID of the block"),
    ("seq", 10, 16, "sequence number it was sent with"),
    ("pkt_first", 26, 8, "first missing packet"),
    ("pkt_num", 34, 9, "missing packets from pkt_first on, 1..256"),
)

RD_JOB = _layout(
    "rd_job", 277,
    "Read-response job, receive unit -> send unit (docs/nic.md \"Remote reads\"): a READ_REQ "
    "the window check passed; the send unit sends the block's packets pkt_first .. back to "
    "the requester as DATA packets with resp set.",
    ("src_addr", 0, 64, "address of the block's first byte in this node's memory (the READ_REQ's dst_addr)"),
    ("dst_addr", 64, 64, "the requester's address of the block's first byte (rd_laddr)"),
    ("dst_node", 128, 16, "the requester"),
    ("pd", 144, 4, "protection domain"),
    ("tid", 148, 10, "the requester's TID"),
    ("seq", 158, 16, "its sequence number"),
    ("size", 174, 17, "block size in bytes"),
    ("path", 191, 2, "path index"),
    ("xfer", 193, 11, "the requester's channel"),
    ("pkt_first", 204, 8, "first packet to send"),
    ("pkt_num", 212, 9, "packets to send from pkt_first on (0: to the block's last)"),
    ("rkey", 221, 32, "the requester's local key (rd_lkey)"),
    ("gen", 253, 16, "generation of the READ_REQ"),
    ("epoch", 269, 8, "epoch of the READ_REQ"),
)

NET_HDR = _layout(
    "net_hdr", 512,
    "Header beat of every network packet (AXI-Stream beat 0; byte 0 = tdata[7:0]). The "
    "CRC-32 of the whole packet (header and payload bytes, zlib.crc32) travels in tuser "
    "of the last beat. A DATA packet's payload follows in beats 1.. with its first byte "
    "at lane (dst_addr mod 64), so the receiver writes beats without shifting.",
    ("ptype", 0, 4, "NET_* packet type"),
    ("dst_node", 4, 16, "destination node"),
    ("src_node", 20, 16, "source node"),
    ("tid", 36, 10, "transaction ID (DATA/INLINE/ACK/NACK); last block's TID (CONTROL)"),
    ("seq", 46, 16, "sequence number of the block; last block's (CONTROL); first block's (REGISTER)"),
    ("pkt_idx", 62, 9, "DATA: index of this packet within its block; MISS: the first missing packet; READ_REQ: the first packet of the block to send back"),
    ("blk_pkts", 71, 9, "DATA: packets in the block (1..256)"),
    ("len", 80, 13, "payload bytes of this packet (DATA 1..MAX_PAYLOAD, INLINE 1..32; READ_REQ 0)"),
    ("dst_addr", 93, 64, "DATA/INLINE: address of the first payload byte; CONTROL, REGISTER: transfer's; READ_REQ: the block's first byte to read at the receiver"),
    ("pd", 157, 4, "protection domain of the transfer"),
    ("fid", 161, 8, "flow ID (0: none)"),
    ("path", 169, 2, "path index"),
    ("notify", 171, 1, "INLINE: notify on arrival; DATA: block is the last of a notify transfer"),
    ("last", 172, 1, "DATA: last block of its transfer"),
    ("xfer", 173, 11, "sender's channel (page*128 + ch), reported in notifications"),
    ("reason", 184, 4, "NACK: ERR_* reason"),
    ("ask", 188, 1, "DATA: the last packet of a re-send of missing packets. A packet asks when this is set or it is its block's last packet: the receiver answers it with MISS when its block still lacks packets, and with the block's response again when its block is complete already"),
    ("stamped", 188, 1, "INLINE, CONTROL: the packet carries benchmark stamps in bits STAMP_LSB..511 (t_post .. hops), which its CRC leaves out (docs/fabric.md \"Benchmark mode\")"),
    ("miss_cnt", 189, 9, "MISS: missing packets from pkt_idx on (1..256); pkt_idx: the first missing one. READ_REQ: packets to send back from pkt_idx on (0: to the block's last)"),
    ("gen", 198, 16, "DATA/INLINE/CONTROL/READ_REQ: generation of the use of (dst_node, tid): one more for each new block or inline packet the sender sends to that node with that TID; a re-send and a CONTROL carry their block's (docs/reliability.md \"Exactly once\")"),
    ("epoch", 214, 8, "DATA/INLINE/CONTROL/READ_REQ: the sender's epoch (EPOCH register): a receiver takes a packet of another epoch as newer than any it has"),
    ("rkey", 222, 32, "DATA/INLINE: remote key of the destination window; READ_REQ: of the window read (docs/protection.md); DATA with resp: the requester's local key"),
    ("resp", 254, 1, "DATA: a read response: the packet carries bytes of the requester's read block (tid, seq, gen, epoch of its READ_REQ; dst_addr at the requester), is tracked at the requester in its own entry and answered there locally (docs/nic.md \"Remote reads\")"),
    ("registered", 255, 1, "DATA: a block of a transfer registered at the receiver (docs/registration.md), its index in xblock; CONTROL: that transfer's CONTROL (its notification is looked up in the registration table)"),
    ("inline_data", 256, 256, "INLINE: payload bytes 0..31"),
    ("size", 256, 33, "CONTROL, REGISTER: transfer size in bytes"),
    ("blocks", 289, 21, "CONTROL, REGISTER: blocks of the transfer"),
    ("tag", 310, 32, "CONTROL, REGISTER: user tag of the descriptor"),
    ("xblock", 256, 20, "DATA with registered: index of the block in its transfer"),
    ("xseq", 342, 16, "DATA, CONTROL with registered, REGISTER: sequence number of the transfer's first block; with src_node and xfer it names the transfer in the registration table"),
    ("rd_laddr", 256, 64, "READ_REQ: the requester's address of the block's first byte (the responses' dst_addr)"),
    ("rd_size", 320, 17, "READ_REQ: block size in bytes, 1..BLOCK_SIZE"),
    ("rd_lkey", 337, 32, "READ_REQ: the requester's local key, which the responses carry in rkey"),
    ("t_post", 384, 16, "stamped: the cycle the sender's host port accepted the descriptor"),
    ("t_send", 400, 16, "stamped: the cycle the header beat was first offered on the sending NIC's link"),
    ("t_sw", 416, 64, "stamped: switch k (k = 0, 1 along the path) stamps the header beat's arrival at its input at bits 32k..32k+15 and its departure from its output at bits 32k+16..32k+31 of this field"),
    ("t_recv", 480, 16, "stamped: the cycle the header beat was first offered to the receiving NIC"),
    ("hops", 496, 2, "stamped: switches that stamped the packet (a switch stamps when hops < 2 and adds one as the packet leaves it)"),
    overlap_ok=(("stamped", "ask"),
                ("inline_data", "t_post"), ("inline_data", "t_send"), ("inline_data", "t_sw"),
                ("inline_data", "t_recv"), ("inline_data", "hops"),
                ("inline_data", "size"), ("inline_data", "blocks"), ("inline_data", "tag"),
                ("inline_data", "rd_laddr"), ("inline_data", "rd_size"), ("inline_data", "rd_lkey"),
                ("size", "rd_laddr"), ("blocks", "rd_size"), ("blocks", "rd_lkey"), ("tag", "rd_lkey"),
                ("size", "rd_size"), ("blocks", "rd_laddr"), ("tag", "rd_size"), ("tag", "rd_laddr"),
                ("inline_data", "xblock"), ("size", "xblock"), ("rd_laddr", "xblock"),
                ("inline_data", "xseq"), ("rd_lkey", "xseq")),
)

NET_CREDIT_BEAT = _layout(
    "net_credit", 512,
    "A credit beat (NET_CREDIT, one beat, tlast set, tuser 0): the cumulative counts of the "
    "beats the sender of the beat forwarded out of its buffers, per credit class, since its "
    "link started (docs/fabric.md \"Credits\"). A switch input sends class k = its crosspoint "
    "toward output port k; a NIC sends class 0 = its receive buffer. A class whose parity "
    "bit does not match is ignored; the next beat repairs it. With `sync` set the beat is a "
    "sync beat: its counts are the beats its sender sent in each class since the link started, "
    "up to the beat, so that the receiving end counts the beats lost on the way as freed "
    "(docs/fabric.md \"Faults on fabric links\").",
    ("ptype", 0, 4, "NET_CREDIT"),
    ("mask", 4, 16, "bit k: the beat carries class k"),
    ("sync", 20, 1, "1: the counts are beats sent (a sync beat), 0: beats forwarded (credits)"),
    ("count", 32, 256, "class k's count (modulo 2^CREDIT_CNT_W) at bits 16k .. 16k+15 of the field"),
    ("parity", 288, 16, "bit k: even parity over class k's count and this bit"),
)

NOTIF_ENTRY = _layout(
    "notif_entry", 512,
    "Completion notification: one 64-byte entry of the notification ring in host memory "
    "(NQ_BASE + 64 * (index mod NQ_SIZE)). Software spins on `marker`: NOTIF_EMPTY (0) "
    "means empty; after taking an entry it writes the marker back to 0 and advances NQ_TAIL.",
    ("marker", 0, 8, "NOTIF_FULL when written by the NIC; software writes NOTIF_EMPTY"),
    ("kind", 8, 4, "NET_INLINE or NET_CONTROL: what completed"),
    ("early", 12, 1, "written by the receiver when the last block of a registered transfer was placed, ahead of its CONTROL (docs/registration.md)"),
    ("src_node", 16, 16, "sender node"),
    ("xfer", 32, 11, "sender's channel: page * CH_PER_PAGE + channel (CH_PER_PAGE = 128 counts the read channels too)"),
    ("pd", 44, 4, "protection domain"),
    ("size", 64, 33, "transfer size in bytes"),
    ("tag", 128, 32, "user tag of the descriptor (CONTROL; 0 for INLINE)"),
    ("dst_addr", 192, 64, "destination address of the transfer"),
    ("seq", 256, 16, "sequence number of the last block"),
    ("stamped", 13, 1, "benchmark mode: the packet that completed was stamped and the receiver keeps stamps (BENCH.stamps); t_post .. t_done are set"),
    ("hops", 14, 2, "stamped: switches that stamped the packet"),
    ("t_post", 384, 16, "stamped: the sender's host port accepted the descriptor (the sender's cycle count mod 2^STAMP_W)"),
    ("t_send", 400, 16, "stamped: the header beat first offered on the sending NIC's link"),
    ("t_sw", 416, 64, "stamped: switch k's arrival at bits 32k..32k+15, departure at bits 32k+16..32k+31 (k < hops)"),
    ("t_recv", 480, 16, "stamped: the header beat first offered to the receiving NIC"),
    ("t_done", 496, 16, "stamped: the receiver issued this notification's write (the transfer's data written)"),
)

STATUS_SINGLE = _layout(
    "status_single", 64,
    "64-bit read of STATUS_OFFSET + 8 c (reading DONE/ERROR resets the channel to IDLE).",
    ("status", 0, 2, "ST_* of the channel, before the reset-on-read"),
)

ERR_INFO = _layout(
    "err_info", 64,
    "64-bit read of ERR_OFFSET + 8 c: why channel c last ended in ERROR (not reset by reads).",
    ("reason", 0, 4, "ERR_* of the channel's last ERROR (ERR_NONE if none since reset)"),
)

NIC_STATE = _layout(
    "nic_state", 256,
    "Occupancy snapshot of one NIC (qrdma_nic port `state`, for watchdog dumps and debug): "
    "each field saturates at 0xFFFF.",
    ("xfers", 0, 16, "transfers posted and not finished (QoS engine)"),
    ("tx_slots", 16, 16, "send unit: descriptor slots in use (blocks, inline and control packets)"),
    ("tx_jobs", 32, 16, "send unit: packets picked and not yet on the link"),
    ("tx_pay", 48, 16, "send unit: payload-buffer beats reserved or filled"),
    ("tx_rsp", 64, 16, "send unit: ACK/NACK packets waiting for the link"),
    ("rx_buf", 80, 16, "receive unit: buffer beats in use"),
    ("rx_pkts", 96, 16, "receive unit: packets in the buffer not yet decided"),
    ("rx_evts", 112, 16, "receive unit: completion events waiting for their write responses"),
    ("rx_rsp", 128, 16, "receive unit: ACK/NACK responses queued for the send unit"),
    ("rx_ntf", 144, 16, "receive unit: notifications waiting for a ring slot"),
    ("rx_wr", 160, 16, "receive unit: write bursts issued, B not yet back"),
)

LAYOUTS = (DESC_LINE0, DESC_LINE1, BLOCK_DESC, PKT_DESC, ACK_DESC, RSP_DESC, MISS_DESC, RD_JOB, STATUS_SINGLE, ERR_INFO,
           NET_HDR, NET_CREDIT_BEAT, NOTIF_ENTRY, NIC_STATE)

# ----------------------------------------------------------------- registers
# The registers (offsets, access, the ID and PARAMS fields) are described in
# regs/qrdma_regs.rdl; tools/regs.py reads it. REGISTERS, ID_REG, PARAMS_REG and reg_addr
# are taken from there (module __getattr__ below), for the users of this module.
_FROM_REGS = ("REGISTERS", "ID_REG", "PARAMS_REG", "STATS")


def __getattr__(name):
    if name in _FROM_REGS:
        from tools import regs
        return getattr(regs, name)
    raise AttributeError(name)


FORMAT_VERSION = 11


def page_base(page: int) -> int:
    return page * CONST["PAGE_STRIDE"][0]


def desc_addr(page: int, ch: int) -> int:
    return page_base(page) + CONST["DESC_OFFSET"][0] + CONST["DESC_LINE_BYTES"][0] * ch


def status_addr(page: int, ch: int) -> int:
    return page_base(page) + CONST["STATUS_OFFSET"][0] + 8 * ch


def coll_addr(page: int, group: int) -> int:
    return page_base(page) + CONST["COLL_OFFSET"][0] + 8 * group


def err_addr(page: int, ch: int) -> int:
    return page_base(page) + CONST["ERR_OFFSET"][0] + 8 * ch


def reg_addr(name: str) -> int:
    """Byte address of register `name` (regs/qrdma_regs.rdl) on the host port."""
    from tools import regs
    return regs.reg_addr(name)


C = {k: v for k, (v, _) in CONST.items()}
