# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Reference model of qrdma's network packets (docs/nic.md, tools/formats.py NET_HDR).

Plain Python: builds the exact AXI-Stream beats of a packet (tdata as int, tkeep as int,
tuser = CRC on the last beat) and parses them back.

  packetize(dst, size, max_payload)      -> [(offset_in_block, len), ...]
  data_packet(hdr_fields, payload, dst)  -> Packet (header beat + payload beats at lane dst%64)
  one_beat_packet(hdr_fields)            -> Packet (INLINE/CONTROL/ACK/NACK)
  inline_packet / control_packet / register_packet / ack_packet -> the one-beat packets
  Packet.crc / Packet.beats / Packet.to_axis_frame() / parse(beats)
  block_packets(block_desc, mem_read, node_id, max_payload, gen, epoch) -> [Packet] of a block (its run)
  GenModel(num_nodes).take(dst, tid, new)  -> the generation a descriptor's packets carry
  block_run(block_desc, n_pkts) -> the indices of the packets a block descriptor sends
  is_stamped(hdr_int) / crc_view(hdr_bytes) -> benchmark stamps (docs/fabric.md "Benchmark mode")
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass

from tools.formats import C, NET_HDR

BEAT = C["NET_BEAT_BYTES"]
FULL_KEEP = (1 << BEAT) - 1
STAMP_BYTE = C["STAMP_LSB"] // 8


def is_stamped(hdr: int) -> bool:
    """The header beat (as an int) is a stamped packet's: an INLINE or CONTROL with
    `stamped` set."""
    h = NET_HDR.unpack(hdr)
    return bool(h["stamped"]) and h["ptype"] in (C["NET_INLINE"], C["NET_CONTROL"])


def crc_view(hb: bytes) -> bytes:
    """The header bytes as the CRC takes them: the stamps zero in a stamped packet's."""
    if is_stamped(int.from_bytes(hb[:BEAT], "little")):
        return hb[:STAMP_BYTE] + bytes(BEAT - STAMP_BYTE) + hb[BEAT:]
    return hb


def packetize(dst: int, size: int, max_payload: int) -> list[tuple[int, int]]:
    """Packets of a block at dst of size bytes: (offset from dst, length), split at
    destination addresses that are multiples of max_payload."""
    out = []
    off = 0
    while off < size:
        a = dst + off
        n = min(size - off, max_payload - (a % max_payload))
        out.append((off, n))
        off += n
    return out


def header_bytes(fields: dict) -> bytes:
    """The 64-byte header beat. `size`, `blocks`, `tag` (CONTROL) share bits with
    `inline_data` (INLINE); pass only the ones of the packet's type."""
    return NET_HDR.pack(**fields).to_bytes(BEAT, "little")


@dataclass
class Packet:
    data: bytes           # all bytes on the wire that tkeep marks, in order
    beats: list           # [(tdata int, tkeep int)], header first

    @property
    def crc(self) -> int:
        return zlib.crc32(crc_view(self.data)) & 0xFFFFFFFF

    def header(self) -> dict:
        return NET_HDR.unpack(self.beats[0][0])

    def frame(self) -> list[tuple[int, int, int, int]]:
        """[(tdata, tkeep, tlast, tuser)]: tuser is the CRC on the last beat, else 0."""
        n = len(self.beats)
        return [(d, k, int(i == n - 1), self.crc if i == n - 1 else 0)
                for i, (d, k) in enumerate(self.beats)]

    def to_bytes_with_keep(self) -> tuple[bytes, list[int]]:
        """tdata bytes of every beat and the tkeep of each (for AxiStreamFrame)."""
        buf = b"".join(d.to_bytes(BEAT, "little") for d, _ in self.beats)
        return buf, [k for _, k in self.beats]


def one_beat_packet(fields: dict) -> Packet:
    hb = header_bytes(fields)
    return Packet(hb, [(int.from_bytes(hb, "little"), FULL_KEEP)])


def data_packet(fields: dict, payload: bytes) -> Packet:
    """A DATA packet: header beat, then the payload with its first byte at lane
    fields['dst_addr'] % 64."""
    hb = header_bytes(fields)
    lane = fields["dst_addr"] % BEAT
    beats = [(int.from_bytes(hb, "little"), FULL_KEEP)]
    pos = 0
    first = True
    while pos < len(payload):
        start = lane if first else 0
        n = min(BEAT - start, len(payload) - pos)
        chunk = bytes(start) + payload[pos:pos + n] + bytes(BEAT - start - n)
        keep = ((1 << n) - 1) << start
        beats.append((int.from_bytes(chunk, "little"), keep))
        pos += n
        first = False
    return Packet(hb + payload, beats)


def parse(frame: list[tuple[int, int]]) -> tuple[dict, bytes]:
    """Header fields and payload bytes (the tkeep bytes of beats 1..) of a received frame
    given as [(tdata, tkeep)]."""
    hdr = NET_HDR.unpack(frame[0][0])
    payload = bytearray()
    for d, k in frame[1:]:
        b = d.to_bytes(BEAT, "little")
        payload += bytes(b[i] for i in range(BEAT) if (k >> i) & 1)
    return hdr, bytes(payload)


def crc_of(frame: list[tuple[int, int]]) -> int:
    """zlib.crc32 of the tkeep bytes of all beats (a stamped header's stamps zero)."""
    data = bytearray()
    for d, k in frame:
        b = d.to_bytes(BEAT, "little")
        data += bytes(b[i] for i in range(BEAT) if (k >> i) & 1)
    return zlib.crc32(crc_view(bytes(data))) & 0xFFFFFFFF


def block_run(blk: dict, n_pkts: int) -> range:
    """Indices of the packets a block descriptor sends out of the block's n_pkts:
    pkt_first .. pkt_first + pkt_num - 1, pkt_num 0 (or absent): to the block's end."""
    first = blk.get("pkt_first", 0)
    num = blk.get("pkt_num", 0)
    end = n_pkts if num == 0 else first + num
    assert first < n_pkts and first < end <= n_pkts, \
        f"packets {first} + {num} of a block of {n_pkts}"
    return range(first, end)


class GenModel:
    """The sender's generations (docs/reliability.md "Exactly once"): one counter per
    (destination mod num_nodes, TID), which starts at `start` and goes up by one for each
    new block or inline packet; a re-send (the descriptor's resend bit) and a CONTROL
    packet carry the counter as it is."""

    def __init__(self, num_nodes: int, start: int = 0):
        self.num_nodes = num_nodes
        self.start = start
        self.gen: dict[tuple[int, int], int] = {}

    def take(self, dst_node: int, tid: int, new: bool) -> int:
        k = (dst_node % self.num_nodes, tid)
        g = self.gen.get(k, self.start)
        if new:
            g = (g + 1) & 0xFFFF
            self.gen[k] = g
        return g


def block_packets(blk: dict, mem_read, node_id: int, max_payload: int, gen: int = 0,
                  epoch: int = 0) -> list[Packet]:
    """The DATA packets of a block descriptor (BLOCK_DESC fields): those of its run
    (block_run), each as in the whole block's send, with generation `gen` and `epoch`;
    mem_read(addr, n) gives the source bytes. The run's last packet asks for an answer
    (ask) when it is not the block's last (that one always asks at the receiver)."""
    parts = packetize(blk["dst_addr"], blk["size"], max_payload)
    run = block_run(blk, len(parts))
    out = []
    for i in run:
        off, n = parts[i]
        f = dict(ptype=C["NET_DATA"], dst_node=blk["dst_node"], src_node=node_id,
                 tid=blk["tid"], seq=blk["seq"], pkt_idx=i, blk_pkts=len(parts), len=n,
                 dst_addr=blk["dst_addr"] + off, pd=blk["pd"], fid=blk["fid"],
                 path=blk["path"], notify=blk["notify"], last=blk["last"], xfer=blk["xfer"],
                 ask=int(i == run[-1] and i != len(parts) - 1), gen=gen, epoch=epoch,
                 rkey=blk.get("rkey", 0), resp=blk.get("resp", 0))
        if blk.get("registered"):       # a block of a registered transfer
            f.update(registered=1, xblock=blk["block"], xseq=blk["xseq"])
        out.append(data_packet(f, mem_read(blk["src_addr"] + off, n)))
    return out


def read_req_packet(blk: dict, node_id: int, gen: int = 0, epoch: int = 0) -> Packet:
    """The READ_REQ packet of a read block (BLOCK_DESC fields of a read channel's block:
    src_addr at the responder dst_node, dst_addr here, rkey the responder's window, lkey
    this node's, pkt_first / pkt_num the run; docs/nic.md "Remote reads")."""
    return one_beat_packet(dict(ptype=C["NET_READ_REQ"], dst_node=blk["dst_node"],
                                src_node=node_id, tid=blk["tid"], seq=blk["seq"],
                                pkt_idx=blk.get("pkt_first", 0), miss_cnt=blk.get("pkt_num", 0),
                                dst_addr=blk["src_addr"], pd=blk["pd"], fid=blk.get("fid", 0),
                                path=blk.get("path", 0), xfer=blk["xfer"], gen=gen,
                                epoch=epoch, rkey=blk.get("rkey", 0),
                                rd_laddr=blk["dst_addr"], rd_size=blk["size"],
                                rd_lkey=blk.get("lkey", 0)))


def response_block(job: dict) -> dict:
    """The block a responder sends back for a read-response job (RD_JOB fields): the
    requester's TID, seq and channel, its address, no flow, no notification, resp set
    (block_packets with the job's generation and epoch gives its packets)."""
    return dict(src_addr=job["src_addr"], dst_addr=job["dst_addr"], dst_node=job["dst_node"],
                tid=job["tid"], seq=job["seq"], pd=job["pd"], fid=0, path=job["path"],
                notify=0, last=0, xfer=job["xfer"], size=job["size"],
                pkt_first=job["pkt_first"], pkt_num=job["pkt_num"], rkey=job["rkey"], resp=1)


def _stamp(pkt: dict) -> dict:
    """The stamp fields the send unit writes for a PKT_DESC (its t_post; the others are
    written on the way)."""
    return dict(stamped=1, t_post=pkt["t_post"]) if pkt.get("stamped") else {}


def inline_packet(pkt: dict, node_id: int, gen: int = 0, epoch: int = 0) -> Packet:
    """The INLINE packet of a PKT_DESC (kind PKT_INLINE); a stamped one has at most
    STAMP_INLINE_MAX bytes."""
    n = pkt["len"]
    data = pkt["payload"] & ((1 << (8 * n)) - 1)
    if pkt.get("stamped"):
        assert n <= C["STAMP_INLINE_MAX"]
        data |= pkt["t_post"] << (NET_HDR.field("t_post").lsb - NET_HDR.field("inline_data").lsb)
    return one_beat_packet(dict(ptype=C["NET_INLINE"], dst_node=pkt["dst_node"],
                                src_node=node_id, tid=pkt["tid"], seq=pkt["seq"], len=n,
                                dst_addr=pkt["dst_addr"], pd=pkt["pd"], notify=pkt["notify"],
                                xfer=pkt["xfer"], inline_data=data, gen=gen, epoch=epoch,
                                rkey=pkt.get("rkey", 0),
                                stamped=1 if pkt.get("stamped") else 0))


def control_packet(pkt: dict, node_id: int, gen: int = 0, epoch: int = 0) -> Packet:
    """The CONTROL packet of a PKT_DESC (kind PKT_CONTROL)."""
    return one_beat_packet(dict(ptype=C["NET_CONTROL"], dst_node=pkt["dst_node"],
                                src_node=node_id, tid=pkt["tid"], seq=pkt["seq"],
                                dst_addr=pkt["dst_addr"], pd=pkt["pd"], xfer=pkt["xfer"],
                                size=pkt["size"], blocks=pkt["blocks"], tag=pkt["tag"],
                                gen=gen, epoch=epoch, registered=pkt.get("registered", 0),
                                xseq=pkt["xseq"] if pkt.get("registered") else 0,
                                **_stamp(pkt)))


def register_packet(pkt: dict, node_id: int) -> Packet:
    """The REGISTER packet of a registered transfer (docs/registration.md): its CONTROL's
    fields, seq (the engine's: its first block's) and xseq; no TID, no generation (it is
    not tracked)."""
    return one_beat_packet(dict(ptype=C["NET_REGISTER"], dst_node=pkt["dst_node"],
                                src_node=node_id, seq=pkt["seq"], dst_addr=pkt["dst_addr"],
                                pd=pkt["pd"], xfer=pkt["xfer"], size=pkt["size"],
                                blocks=pkt["blocks"], tag=pkt["tag"], registered=1,
                                xseq=pkt["xseq"]))


def ack_packet(dst_node: int, node_id: int, tid: int, seq: int, nack: bool = False,
               reason: int = 0) -> Packet:
    """The ACK or NACK packet of a block / inline packet (tid, seq) to dst_node. A NACK
    carries `reason` (ERR_*); an ACK carries none (reason 0, whatever is passed)."""
    return one_beat_packet(dict(ptype=C["NET_NACK"] if nack else C["NET_ACK"],
                                dst_node=dst_node, src_node=node_id, tid=tid, seq=seq,
                                reason=reason if nack else 0))
