# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Packets and credit beats of the fabric's links (docs/fabric.md), for the switch and
node-port tests: header fields from tools/formats.py."""
from __future__ import annotations

import random

from tools import formats as F

C = {k: v[0] for k, v in F.CONST.items()}
HDR = {f.name: f for f in F.NET_HDR.fields}
CRB = {f.name: f for f in F.NET_CREDIT_BEAT.fields}
DATA_W, KEEP_W, USER_W = 512, 64, 32
FULL_KEEP = (1 << KEEP_W) - 1
CW = C["CREDIT_CNT_W"]
MOD = 1 << CW
ID_LSB = 400                      # a packet's id, in header bits the fabric does not read


def put(word: int, f, v: int) -> int:
    return word | ((v & ((1 << f.width) - 1)) << f.lsb)


def get(word: int, f) -> int:
    return (word >> f.lsb) & ((1 << f.width) - 1)


def data_beats(lane: int, length: int) -> int:
    """Beats of a DATA packet: its header and the payload from lane `lane` on."""
    return 1 + (lane + length + 63) // 64


def pkt_id(header: int) -> int:
    return (header >> ID_LSB) & 0xFFFFFFFF


class Pkt:
    """A packet: beats of (tdata, tkeep, tuser); source and destination node, id, and the
    credit class it travels in (the destination's switch port)."""
    __slots__ = ("beats", "src", "dst", "pid", "cls")

    def __init__(self, beats, src, dst, pid, cls):
        self.beats, self.src, self.dst, self.pid, self.cls = beats, src, dst, pid, cls


def make_packet(rng: random.Random, pid: int, src: int, dst: int, cls: int, max_pkt: int,
                kind: str = "rand", paths: bool = False) -> Pkt:
    """A random packet: "data" (random lane and length up to max_pkt beats), "one" (a
    one-beat INLINE or ACK), "any" (a reserved type, any length up to max_pkt); `paths`:
    a random path (the plane it crosses with several planes), else path 0."""
    if kind == "rand":
        kind = rng.choices(["data", "one", "any"], weights=[6, 3, 1])[0]
    h = put(0, HDR["dst_node"], dst)
    h = put(h, HDR["src_node"], src)
    if paths:
        h = put(h, HDR["path"], rng.randrange(4))
    h |= pid << ID_LSB
    if kind == "data":
        lane = rng.randrange(64)
        room = (max_pkt - 1) * 64 - lane
        length = rng.randrange(1, room + 1) if rng.random() < 0.7 else room
        h = put(h, HDR["ptype"], C["NET_DATA"])
        h = put(h, HDR["len"], length)
        h = put(h, HDR["dst_addr"], (rng.getrandbits(40) << 6) | lane)
        n = data_beats(lane, length)
    elif kind == "one":
        h = put(h, HDR["ptype"], rng.choice([C["NET_INLINE"], C["NET_ACK"]]))
        n = 1
    else:
        h = put(h, HDR["ptype"], C["NET_READ_REQ"])     # a type the fabric does not size
        n = rng.randrange(1, max_pkt + 1)
    beats = [(h, FULL_KEEP, 0)]
    for _ in range(n - 1):
        beats.append((rng.getrandbits(DATA_W), rng.getrandbits(KEEP_W), 0))
    beats[-1] = (beats[-1][0], beats[-1][1], rng.getrandbits(USER_W))
    return Pkt(beats, src, dst, pid, cls)


def credit_beat(counts: dict[int, int], corrupt: int | None = None, sync: bool = False) -> int:
    """A credit beat carrying class k's count for each k in counts; `corrupt`: the class
    whose parity bit is wrong; `sync`: a sync beat (the counts are beats sent)."""
    w = put(0, CRB["ptype"], C["NET_CREDIT"])
    w = put(w, CRB["sync"], int(sync))
    for k, c in counts.items():
        w = put(w, CRB["mask"], get(w, CRB["mask"]) | (1 << k))
        w |= (c % MOD) << (CRB["count"].lsb + CW * k)
        par = bin(c % MOD).count("1") & 1
        if corrupt == k:
            par ^= 1
        w |= par << (CRB["parity"].lsb + k)
    return w


def is_credit(header: int) -> bool:
    return get(header, HDR["ptype"]) == C["NET_CREDIT"]


def is_sync(word: int) -> bool:
    """A credit beat that is a sync beat: its counts are the beats its sender sent."""
    return bool(get(word, CRB["sync"]))


def credit_counts(word: int) -> dict[int, int]:
    """The classes a credit beat carries and their counts; asserts every parity bit."""
    mask = get(word, CRB["mask"])
    out = {}
    for k in range(C["CREDIT_CLASSES"]):
        if mask >> k & 1:
            c = (word >> (CRB["count"].lsb + CW * k)) & (MOD - 1)
            par = (word >> (CRB["parity"].lsb + k)) & 1
            assert par == bin(c).count("1") & 1, f"credit beat: class {k}'s parity"
            out[k] = c
    return out


def newer(count: int, vr: int, vs: int) -> bool:
    """A cumulative count taken by a sender with vr taken and vs sent: not beyond vs."""
    return (count - vr) % MOD <= (vs - vr) % MOD
