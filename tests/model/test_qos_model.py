# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Unit tests of the QoS engine reference model (tests/model/qos_model.py), no simulator:
segmentation, [QoS-RDMA]'s frog-leap TIDs, classification thresholds and queues,
acceptance (descriptor and beat refusals), the posting writes, and the scoreboard against
an ideal engine written here (it must accept every legal behaviour, including the 16-bit
sequence wrap, and catch each kind of wrong output)."""
import random

import pytest

from model.qos_model import (CONTROL_QUEUE, FID1_FIRST, FID4_FIRST, INCR, MASK64,
                             POST_MODES, SEQ_MOD, TID_QUEUE, Beat, Cls, Descriptor,
                             HostPort, ModelError, Params, Scoreboard, Write, carried,
                             check_ids, decode_addr, descriptor_refusal, expected_announce,
                             expected_blocks, is_registered,
                             expected_control, expected_inline, fid_of_block, interleave,
                             num_blocks, post_writes, queue_of, segment, tid_of_block,
                             in_flight, transfer_class, write_beats, xfer_index,
                             xfer_page_ch)
from tools.formats import (BLOCK_DESC, C, DESC_LINE0, PKT_DESC, coll_addr, desc_addr,
                           err_addr, reg_addr, status_addr)

P = Params()
BS = P.block_size
KB, MB = 1 << 10, 1 << 20


# ------------------------------------------------------------------ segmentation
def check_segments(dst, size, bs=BS):
    segs = segment(dst, size, bs)
    assert len(segs) == num_blocks(dst, size, bs)
    assert sum(s for _, s in segs) == size
    pos = 0
    for b, (off, s) in enumerate(segs):
        assert off == pos and 1 <= s <= bs
        if b > 0:
            assert (dst + off) % bs == 0, "blocks after the first start on a boundary"
        if b < len(segs) - 1:
            assert (dst + off + s) % bs == 0, "blocks before the last end on a boundary"
        pos += s
    return [s for _, s in segs]


@pytest.mark.parametrize("dst,size,sizes", [
    (0, 3 * BS, [BS] * 3),                                  # aligned
    (5 * BS, BS, [BS]),                                     # exactly one block
    (5 * BS + 1, BS, [BS - 1, 1]),                          # one block's size, unaligned
    (0x1234, 1, [1]),                                       # size 1
    (BS - 1, 1, [1]),                                       # size 1 at the last byte
    (BS - 10, 20, [10, 10]),                                # crossing one boundary
    (BS - 10, 10, [10]),                                    # ending on the boundary
    (0x1234, 200000, [BS - 0x1234, BS, BS, 200000 - (3 * BS - 0x1234)]),
    (0, MB, [BS] * 16),                                     # 1 MB aligned
    (1, MB, [BS - 1] + [BS] * 15 + [1]),                    # 1 MB unaligned: 17 blocks
    (BS // 2, MB, [BS // 2] + [BS] * 15 + [BS // 2]),
])
def test_segment_examples(dst, size, sizes):
    assert check_segments(dst, size) == sizes


def test_segment_random():
    rng = random.Random(1)
    for _ in range(3000):
        bs = 1 << rng.randint(12, 16)
        dst = rng.getrandbits(64)
        size = rng.choice([1, rng.randint(1, 64), rng.randint(1, 4 * bs), rng.randint(1, MB)])
        check_segments(dst, size, bs)


def test_segment_4gib():
    assert num_blocks(0, 1 << 32, BS) == 65536
    assert num_blocks(1, 1 << 32, BS) == 65537
    # block indices fit the 20-bit `block` field, counts the 21-bit `blocks`
    assert num_blocks(0, 1 << 32, 4096) - 1 < 1 << BLOCK_DESC.field("block").width
    assert num_blocks(1, 1 << 32, 4096) < 1 << PKT_DESC.field("blocks").width


def test_expected_blocks_fields():
    p = Params()
    d = Descriptor(src_addr=0x1000_0000_0000, dst_addr=3 * BS + 100, size=3 * BS,
                   dst_node=0xBEEF, prio=3, notify=1, multipath=1, tag=7)
    assert transfer_class(d, p) is Cls.FID1               # multipath but below MP_MIN
    bl = expected_blocks(d, 5, 17, p)
    assert [b["size"] for b in bl] == [BS - 100, BS, BS, 100]
    assert [b["src_addr"] - d.src_addr for b in bl] == [0, BS - 100, 2 * BS - 100, 3 * BS - 100]
    assert [b["dst_addr"] % BS for b in bl] == [100, 0, 0, 0]
    assert [b["cm"] for b in bl] == [1] * 4
    assert [b["chained"] for b in bl] == [0, 1, 1, 1]
    assert [b["has_next"] for b in bl] == [1, 1, 1, 0]
    assert [b["last"] for b in bl] == [0, 0, 0, 1]
    assert [b["notify"] for b in bl] == [0, 0, 0, 1]
    assert [b["block"] for b in bl] == [0, 1, 2, 3]
    assert {b["path"] for b in bl} == {0}
    assert {(b["pd"], b["xfer"], b["dst_node"]) for b in bl} == {(5, 5 * 128 + 17, 0xBEEF)}
    # every key is a BLOCK_DESC field, and the runtime ones are left out
    names = {f.name for f in BLOCK_DESC.fields}
    assert set(bl[0]) == names - {"tid", "seq", "fid", "xseq"}
    assert {b["registered"] for b in bl} == {0}
    # registered (docs/registration.md): xseq, a runtime field, takes lkey's bits
    r = expected_blocks(Descriptor(dst_addr=100, size=3 * BS, notify=1, registered=1), 0, 0, p)
    assert {b["registered"] for b in r} == {1} and set(r[0]) == names - {"tid", "seq", "fid",
                                                                          "xseq", "lkey"}


def test_expected_blocks_tid_only_and_4xfid():
    d = Descriptor(dst_addr=0, size=P.cm_min_bytes - 1)
    bl = expected_blocks(d, 0, 0, P)
    assert len(bl) == 1 and bl[0]["cm"] == 0 and bl[0]["chained"] == 0
    assert bl[0]["has_next"] == 0 and bl[0]["last"] == 1 and bl[0]["notify"] == 0
    assert transfer_class(Descriptor(dst_addr=BS - 1, size=BS), P) is Cls.FID1
    small = Descriptor(dst_addr=BS - 1, size=2)               # TID-only, two blocks
    bl = expected_blocks(small, 0, 0, P)
    assert [(b["size"], b["cm"], b["chained"], b["has_next"], b["last"]) for b in bl] == \
        [(1, 0, 0, 0, 0), (1, 0, 0, 0, 1)]
    big = Descriptor(dst_addr=0, size=MB, multipath=1, notify=1)
    bl = expected_blocks(big, 1, 2, P)
    assert transfer_class(big, P) is Cls.FID4
    assert [b["path"] for b in bl] == [b % 4 for b in range(16)]


def test_address_wrap():
    """Addresses wrap at 2^64 (64-bit adders); the last 6 bytes before 2^64 are block 0."""
    d = Descriptor(src_addr=MASK64 - 5, dst_addr=MASK64 - 5, size=100)
    bl = expected_blocks(d, 0, 0, P)
    assert [b["size"] for b in bl] == [6, 94]
    assert bl[1]["dst_addr"] == 0 and bl[1]["src_addr"] == 0


# ------------------------------------------------------------------ IDs
def test_frog_leap_seed_example():
    """[QoS-RDMA] §3.8: multipath transfer of 16 blocks with FID 192: TIDs 768, 772, 776, 780,
    769, 773, ... 783."""
    tids = [tid_of_block(Cls.FID4, b, 192) for b in range(16)]
    assert tids[:6] == [768, 772, 776, 780, 769, 773]
    assert tids[-1] == 783
    assert tids == [4 * (192 + b % 4) + b // 4 for b in range(16)]
    assert sorted(tids) == list(range(768, 784))
    assert [fid_of_block(Cls.FID4, b, 192) for b in range(8)] == [192, 193, 194, 195] * 2
    # the pattern repeats after 16 blocks
    assert tid_of_block(Cls.FID4, 16, 192) == 768 and tid_of_block(Cls.FID4, 21, 252) == 4 * 253 + 1


def test_unipath_tids():
    """[QoS-RDMA] §3.8: FID 128 uses TIDs 512, 513, 514, 515, 512, ..."""
    assert [tid_of_block(Cls.FID1, b, 128) for b in range(6)] == [512, 513, 514, 515, 512, 513]
    assert [fid_of_block(Cls.FID1, b, 191) for b in range(5)] == [191] * 5
    assert tid_of_block(Cls.TID, 3, 0) is None


def test_check_ids():
    assert check_ids(Cls.FID1, 0, 4 * 130, 130, None, P) is None
    assert check_ids(Cls.FID1, 0, 4 * 127, 127, None, P) is not None        # not a 1xFID
    assert check_ids(Cls.FID1, 0, 4 * 192, 192, None, P) is not None        # a 4xFID
    assert check_ids(Cls.FID1, 5, 4 * 130 + 1, 130, 130, P) is None
    assert check_ids(Cls.FID1, 5, 4 * 130 + 2, 130, 130, P) is not None
    assert check_ids(Cls.FID1, 5, 4 * 131 + 1, 131, 130, P) is not None      # FID changed
    assert check_ids(Cls.FID4, 0, 4 * 196, 196, None, P) is None
    assert check_ids(Cls.FID4, 0, 4 * 197, 197, None, P) is not None        # not a group base
    assert check_ids(Cls.FID4, 0, 4 * 128, 128, None, P) is not None
    assert check_ids(Cls.FID4, 6, 4 * 198 + 1, 198, 196, P) is None
    assert check_ids(Cls.FID4, 6, 4 * 198 + 0, 198, 196, P) is not None
    assert check_ids(Cls.TID, 0, 511, 0, None, P) is None
    assert check_ids(Cls.TID, 0, 512, 0, None, P) is not None
    assert check_ids(Cls.TID, 1, 3, 0, 0, Params(num_tids=4)) is None
    assert check_ids(Cls.TID, 1, 4, 0, 0, Params(num_tids=4)) is not None
    assert check_ids(Cls.TID, 0, 5, 128, None, P) is not None               # FID on TID-only


# ------------------------------------------------------------------ classes
@pytest.mark.parametrize("p", [Params(), Params(block_size=4096, cm_min_bytes=8192,
                                                mp_min_bytes=32768)])
def test_classification(p):
    cm, mp = p.cm_min_bytes, p.mp_min_bytes

    def cls(size, multipath=0, inline=0):
        return transfer_class(Descriptor(size=size, multipath=multipath, is_inline=inline), p)

    assert cls(1, inline=1) is Cls.TID and cls(32, inline=1) is Cls.TID
    assert cls(1) is Cls.TID and cls(cm - 1) is Cls.TID and cls(cm - 1, 1) is Cls.TID
    assert cls(cm) is Cls.FID1 and cls(cm, 1) is Cls.FID1
    assert cls(mp - 1, 1) is Cls.FID1 and cls(mp) is Cls.FID1 and cls(1 << 32) is Cls.FID1
    assert cls(mp, 1) is Cls.FID4 and cls(1 << 32, 1) is Cls.FID4
    for prio in (0, 7, 15):
        d = Descriptor(size=cm, prio=prio)
        assert queue_of(d, p) == 18 + prio and queue_of(d, p, have_fid=True) == 2 + prio
        d = Descriptor(size=mp, prio=prio, multipath=1)
        assert queue_of(d, p) == 50 + prio and queue_of(d, p, have_fid=True) == 34 + prio
        assert queue_of(Descriptor(size=8, is_inline=1, prio=prio), p) == TID_QUEUE
        assert queue_of(Descriptor(size=cm - 1, prio=prio), p) == TID_QUEUE
    assert CONTROL_QUEUE == 0 and TID_QUEUE == 1


# ------------------------------------------------------------------ packets
def test_inline_packet():
    payload = bytes(range(1, 21))
    d = Descriptor.inline_payload(payload, dst_addr=0x1234, dst_node=9, tag=0xAB, notify=1)
    assert d.long_desc == 1 and d.size == 20 and d.payload() == payload
    e = expected_inline(d, 3, 4)
    assert e["kind"] == C["PKT_INLINE"] and e["len"] == 20 and e["size"] == 20
    assert e["xfer"] == xfer_index(3, 4) and e["pd"] == 3 and e["notify"] == 1
    assert e["payload"] == payload
    short = Descriptor.inline_payload(b"\x11\x22\x33")
    assert short.long_desc == 0 and len(short.to_bytes()) == 32
    assert DESC_LINE0.unpack(short.line0())["src_addr"] == 0x332211
    # every key is a PKT_DESC field
    names = {f.name for f in PKT_DESC.fields}
    assert set(e) <= names and names - set(e) == {"tid", "seq", "blocks", "xseq", "t_post"}


def test_control_packet():
    d = Descriptor(dst_addr=BS - 1, size=MB, notify=1, tag=5, dst_node=2)
    e = expected_control(d, 1, 2, P)
    assert e["kind"] == C["PKT_CONTROL"] and e["blocks"] == 17 and e["size"] == MB
    assert e["len"] == 0 and e["dst_addr"] == BS - 1
    e = expected_control(Descriptor(size=1 << 32, notify=1), 0, 0, P)
    assert e["size"] == 1 << 32 and e["blocks"] == 65536   # fit their fields
    PKT_DESC.pack(size=e["size"], blocks=e["blocks"])


def test_registration_rule():
    """docs/registration.md "At the sender": which transfers register, and their
    REGISTER packet."""
    p = Params(block_size=BS, reg_max_blocks=5)
    base = dict(dst_addr=BS - 1, notify=1, registered=1)
    assert is_registered(Descriptor(size=2, **base), 0, p)               # 2 blocks
    assert not is_registered(Descriptor(size=1, **base), 0, p)           # 1 block
    assert is_registered(Descriptor(size=4 * BS, **base), 0, p)          # 5 blocks: the most
    assert not is_registered(Descriptor(size=4 * BS + 1, **base), 0, p)  # bytes over the rule
    assert not is_registered(Descriptor(size=2, **dict(base, notify=0)), 0, p)
    assert not is_registered(Descriptor(size=2, **dict(base, registered=0)), 0, p)
    assert not is_registered(Descriptor(size=2, **base), C["WR_CH_PER_PAGE"], p)   # a read
    a = expected_announce(Descriptor(size=2, tag=9, **base), 1, 2, p)
    assert a == dict(expected_control(Descriptor(size=2, tag=9, **base), 1, 2, p), announce=1)
    assert a["registered"] == 1 and a["blocks"] == 2 and a["kind"] == C["PKT_CONTROL"]


def test_descriptor_roundtrip():
    rng = random.Random(2)
    for _ in range(200):
        d = Descriptor(src_addr=rng.getrandbits(64), dst_addr=rng.getrandbits(64),
                       size=rng.getrandbits(33), dst_node=rng.getrandbits(16),
                       prio=rng.getrandbits(4), is_inline=rng.getrandbits(1),
                       notify=rng.getrandbits(1), multipath=rng.getrandbits(1),
                       long_desc=rng.getrandbits(1), tag=rng.getrandbits(32),
                       inline_hi=rng.getrandbits(192), rkey=rng.getrandbits(32))
        b = d.to_bytes()
        assert len(b) == 32 * (1 + d.long_desc)
        l1 = int.from_bytes(b[32:], "little") if d.long_desc else 0
        e = Descriptor.from_lines(int.from_bytes(b[:32], "little"), l1)
        if not d.long_desc:
            e.inline_hi, e.rkey = d.inline_hi, d.rkey
        assert e == d


# ------------------------------------------------------------------ acceptance
@pytest.mark.parametrize("d,ch,nb,why", [
    (Descriptor(size=0), 0, False, "size 0"),
    (Descriptor(size=(1 << 32) + 1), 0, False, "size above 2^32"),
    (Descriptor(size=(1 << 40) - 1), 0, False, "size above 2^32"),
    (Descriptor(size=33, is_inline=1, long_desc=1), 0, False, "inline with size above 32"),
    (Descriptor(size=33, is_inline=1), 0, False, "inline with size above 32"),
    (Descriptor(size=9, is_inline=1), 0, False, "inline with size 9..32 without long"),
    (Descriptor(size=32, is_inline=1), 0, False, "inline with size 9..32 without long"),
    (Descriptor(size=100, long_desc=1), 3, False, "long in an odd channel"),
    (Descriptor(size=9, is_inline=1, long_desc=1), 5, False, "long in an odd channel"),
    (Descriptor(size=100, long_desc=1), 2, True, "long while channel c+1 is BUSY"),
    # accepted
    (Descriptor(size=1 << 32), 0, False, None),
    (Descriptor(size=1), 1, False, None),
    (Descriptor(size=8, is_inline=1), 1, False, None),
    (Descriptor(size=1, is_inline=1, long_desc=1), 0, False, None),
    (Descriptor(size=9, is_inline=1, long_desc=1), 0, False, None),
    (Descriptor(size=32, is_inline=1, long_desc=1), 62, False, None),
    (Descriptor(size=33), 0, False, None),                   # a memory transfer
    (Descriptor(size=100, long_desc=1), 2, False, None),
    (Descriptor(size=100), 2, True, None),                   # not long: c+1 irrelevant
    (Descriptor(size=100, notify=1), 64, False, "read descriptor with is_inline or notify"),
    (Descriptor(size=5, is_inline=1), 127, False, "read descriptor with is_inline or notify"),
    (Descriptor(size=100, long_desc=1, rkey=7), 64, False, None),   # a read descriptor
    (Descriptor(size=100, notify=1), 63, False, None),       # a write channel
])
def test_descriptor_refusal(d, ch, nb, why):
    assert descriptor_refusal(d, ch, nb) == why


def test_decode_addr():
    assert decode_addr(desc_addr(3, 5) + 8) == ("desc", 3, 5, 8)
    assert decode_addr(desc_addr(15, 63) + 31) == ("desc", 15, 63, 31)
    assert decode_addr(desc_addr(2, 64)) == ("desc", 2, 64, 0)
    assert decode_addr(desc_addr(2, 127) + 31) == ("desc", 2, 127, 31)
    assert decode_addr(status_addr(1, 63)) == ("status", 1, 63)
    assert decode_addr(status_addr(1, 127)) == ("status", 1, 127)
    assert decode_addr(coll_addr(1, 1)) == ("coll", 1, 1)
    assert decode_addr(coll_addr(1, 3)) == ("coll", 1, 3)
    assert decode_addr(coll_addr(1, 4)) == ("unmapped",)
    assert decode_addr(err_addr(1, 0)) == ("err", 1, 0)
    assert decode_addr(err_addr(4, 127) + 7) == ("err", 4, 127)
    assert decode_addr(err_addr(4, 128)) == ("unmapped",)
    assert decode_addr(reg_addr("CNT_DONE") + 4) == ("reg", "CNT_DONE")
    assert decode_addr(reg_addr("CNT_DONE") + 8) == ("unmapped",)
    assert decode_addr(0x1C00) == ("unmapped",)
    assert decode_addr((1 << 18) - 8) == ("unmapped",)


def beat(addr, n, lo=None, hi=None, burst=INCR):
    lo = addr if lo is None else lo
    hi = addr + n if hi is None else hi
    return Beat(addr, n, lo, hi, bytes(hi - lo), burst)


@pytest.mark.parametrize("bus", [16, 32])
def test_beat_refusals(bus):
    hp = HostPort(Params(host_data_w=8 * bus))
    a = desc_addr(1, 4)
    assert hp.beat_refusal(beat(a, 8)) is None
    assert hp.beat_refusal(beat(a, 16)) is None
    assert (hp.beat_refusal(beat(a, 32)) is None) == (bus == 32)
    assert hp.beat_refusal(beat(a, 64)) == "beat size 64"
    assert hp.beat_refusal(beat(a, 4)) == "beat size 4"
    assert hp.beat_refusal(beat(a + 8, 16)) == "address not aligned to the beat size"
    assert hp.beat_refusal(beat(a, 8, a, a + 4)) == "strobes are not the addressed bytes"
    assert hp.beat_refusal(beat(a, 8, burst=0)) == "burst not INCR"
    assert hp.beat_refusal(beat(desc_addr(1, 64), 8)) is None
    assert hp.beat_refusal(beat(err_addr(1, 64), 8)) == "err address"
    assert hp.beat_refusal(beat(status_addr(1, 4), 8)) == "status address"
    assert hp.beat_refusal(beat(coll_addr(1, 0), 8)) == "coll address"
    assert hp.beat_refusal(beat(reg_addr("ID"), 8)) == "reg address"
    assert hp.beat_refusal(beat(0x1C00, 8)) == "unmapped address"


def run_writes(hp, writes):
    ok, ev = True, []
    for w in writes:
        o, e = hp.write(w)
        ok &= o
        ev += e
    return ok, ev


def test_host_port_assembly_and_busy():
    hp = HostPort(P)
    d = Descriptor(size=100, src_addr=1, dst_addr=2, long_desc=1, rkey=9)
    ws = post_writes(d, 2, 6, "words", random.Random(3))
    # a word of another channel of the same page while line 0 is assembled: refused
    ok, ev = hp.write(ws[0])
    assert ok and not ev
    bad = post_writes(Descriptor(size=5), 2, 8, "words", random.Random(4))[0]
    assert hp.write(bad) == (False, [])
    # another page may interleave
    ok, ev = run_writes(hp, post_writes(Descriptor(size=5), 3, 8, "line"))
    assert ok and ev[0][:3] == ("start", 3, 8)
    ok, ev = run_writes(hp, ws[1:])
    assert ok and ev == [("start", 2, 6, d)]
    assert hp.busy(2, 6) and hp.blocked(2, 7) and not hp.busy(2, 7)
    # BUSY channel and the second half of a BUSY long descriptor refuse beats
    for ch in (6, 7):
        assert run_writes(hp, post_writes(Descriptor(size=5), 2, ch, "line")) == (False, [])
    # long at 4 while 5 is free is fine; long at 4 while 5 BUSY is refused at line 0
    assert run_writes(hp, post_writes(Descriptor(size=5), 2, 5, "line"))[0]
    ok, ev = run_writes(hp, post_writes(Descriptor(size=5, long_desc=1), 2, 4, "line")[:1])
    assert not ok and ev == [("error", 2, 4, "long while channel c+1 is BUSY")]
    assert hp.read_single(2, 4) == C["ST_ERROR"] and hp.read_single(2, 4) == C["ST_IDLE"]
    # finish, read DONE once, then IDLE; the collective read resets every DONE
    hp.finish(2, 6, C["ST_DONE"])
    assert not hp.blocked(2, 7)
    hp.finish(2, 5, C["ST_DONE"])
    assert hp.read_coll(3, 0) == C["ST_BUSY"] << 16
    assert hp.read_coll(2, 0) == (C["ST_DONE"] << 10) | (C["ST_DONE"] << 12)
    assert hp.read_coll(2, 0) == 0 and hp.read_coll(3, 0) == C["ST_BUSY"] << 16


def test_host_port_refused_beat_changes_nothing():
    hp = HostPort(P)
    d = Descriptor(size=5, src_addr=0x55)
    line = d.lines()[0]
    a = desc_addr(0, 0)
    # words 0..2, then word 3 with bad strobes (4 bytes): refused, line not complete
    for k in range(3):
        w = Beat(a + 8 * k, 8, a + 8 * k, a + 8 * k + 8, line[8 * k:8 * k + 8])
        assert hp.beat(w) == (True, [])
    a3 = a + 24
    assert hp.beat(Beat(a3, 8, a3, a3 + 4, b"\xff" * 4)) == (False, [])
    assert hp.beat(Beat(a3, 8, a3, a3 + 8, line[24:])) == (True, [("start", 0, 0, d)])


@pytest.mark.parametrize("bus", [16, 32])
@pytest.mark.parametrize("mode", POST_MODES)
def test_post_writes_reassemble(bus, mode):
    rng = random.Random(6)
    for _ in range(200):
        long = rng.getrandbits(1)
        d = Descriptor(src_addr=rng.getrandbits(64), size=rng.randint(1, 1000), long_desc=long,
                       inline_hi=rng.getrandbits(192) * long, rkey=rng.getrandbits(32) * long)
        page, ch = rng.randrange(16), 2 * rng.randrange(32)
        ws = post_writes(d, page, ch, mode, rng, bus)
        hp = HostPort(Params(host_data_w=8 * bus))
        ok, ev = run_writes(hp, ws)
        assert ok and ev == [("start", page, ch, d)]
        for w in ws:
            assert (1 << w.size) <= bus and w.addr % (1 << w.size) == 0
            assert len(w.data) % (1 << w.size) == 0
        # line 1 only after every byte of line 0
        if long:
            end0 = desc_addr(page, ch) + 32
            first1 = min(i for i, w in enumerate(ws) if w.addr + len(w.data) > end0)
            assert all(w.addr < end0 for w in ws[:first1])
            assert sum(len(w.data) for w in ws[:first1]) >= 32 or mode == "desc"


def test_carried_lanes():
    a = desc_addr(2, 6)
    line = Descriptor(size=5, long_desc=1).lines()[0]
    # bus 32: one beat carries the whole line and long_desc
    assert carried(Beat(a, 32, a, a + 32, line), 32) == (0xF, True)
    # words 2, 3 (16-byte beat at 16), long in byte 24 -- on a 16-byte bus too
    for bus in (16, 32):
        assert carried(Beat(a + 16, 16, a + 16, a + 32, line[16:]), bus) == (0xC, True)
    # short strobes: no whole word, but byte 24 is written
    assert carried(Beat(a + 24, 8, a + 24, a + 29, line[24:29]), 32) == (0, True)
    assert carried(Beat(a + 24, 8, a + 25, a + 32, line[25:]), 32) == (0, False)
    # 4-byte beat at 24 (refused: size) carries the flag; a beat of a FIXED burst nothing
    assert carried(Beat(a + 24, 4, a + 24, a + 28, line[24:28]), 32) == (0, True)
    assert carried(Beat(a, 32, a, a + 32, line, burst=0), 32) == (0, False)
    short = Descriptor(size=5).lines()[0]
    assert carried(Beat(a, 32, a, a + 32, short), 32) == (0xF, False)
    # beats of a FIXED burst are counted at INCR addresses
    bs = write_beats(a, bytes(16), 3, 0, 32)
    assert [(b.addr, b.lo, b.hi) for b in bs] == [(a, a, a + 8), (a + 8, a, a + 8)]


def skip_case(hp, page, c, d, mode="desc", bus=32):
    """Post d to (page, c); returns (okay, events) of all its writes."""
    return run_writes(hp, post_writes(d, page, c, mode, random.Random(c), bus))


@pytest.mark.parametrize("bus", [16, 32])
@pytest.mark.parametrize("mode", POST_MODES)
def test_long_descriptor_refused_as_a_whole(bus, mode):
    """Line 0 refused (c BUSY) -> line 1 refused too, c+1 untouched, in every posting
    mode; the skip ends with the fourth word of line 1."""
    hp = HostPort(Params(host_data_w=8 * bus))
    assert skip_case(hp, 1, 4, Descriptor(size=5), "line", bus)[0]
    d = Descriptor(size=100, long_desc=1, rkey=3)
    refused0 = hp.refused
    assert skip_case(hp, 1, 4, d, mode, bus) == (False, [])
    assert hp.status(1, 5) == C["ST_IDLE"] and 1 not in hp.skip and 1 not in hp.acc
    assert hp.refused - refused0 == sum(len(write_beats(w.addr, w.data, w.size, w.burst, bus))
                                        for w in post_writes(d, 1, 4, mode,
                                                             random.Random(4), bus))
    assert skip_case(hp, 1, 5, Descriptor(size=7), "line", bus)[1][0][:3] == ("start", 1, 5)


def test_skip_rules():
    hp = HostPort(P)
    a = lambda c: desc_addr(0, c)   # noqa: E731
    l0 = Descriptor(size=100, long_desc=1).lines()[0]
    # a bad long descriptor (size 0): ERROR + ERR_BAD_DESC for c, line 1 refused
    bad = Descriptor(size=0, long_desc=1)
    ok, ev = skip_case(hp, 0, 2, bad)
    assert not ok and ev == [("error", 0, 2, "size 0")]
    assert hp.read_err(0, 2) == C["ERR_BAD_DESC"] and hp.read_err(0, 3) == C["ERR_NONE"]
    assert hp.status(0, 3) == C["ST_IDLE"] and not hp.skip
    # line 0 good, word 1 of line 1 refused: the rest of line 1 too; a descriptor in c+1
    # is refused until a beat of the page is accepted (word 1 was never carried)
    assert hp.write(Write(a(6), l0, 5)) == (True, [])
    assert hp.write(Write(a(7), bytes(8), 3)) == (True, [])
    assert hp.beat(Beat(a(7) + 8, 8, a(7) + 8, a(7) + 12, bytes(4))) == (False, [])
    assert hp.skip[0] == [6, 0b0001] and 0 not in hp.acc
    assert hp.write(Write(a(7) + 16, bytes(16), 3)) == (False, [])
    assert hp.skip[0] == [6, 0b1101]
    assert hp.write(Write(a(7) + 24, bytes(8), 3)) == (False, [])
    assert hp.skip[0] == [6, 0b1101]
    assert skip_case(hp, 0, 9, Descriptor(size=5))[0] and not hp.skip
    # a refused line 0 (page assembling channel 10) followed by its line 1
    assert hp.write(Write(a(10), bytes(8), 3)) == (True, [])
    assert hp.write(Write(a(12), l0 + bytes(32), 5)) == (False, [])
    assert not hp.skip and hp.acc[0].ch == 10
    # line 0 sent again while its line 1 is awaited: both refused, the page free after
    hp2 = HostPort(P)
    assert hp2.write(Write(a(20), l0, 5)) == (True, [])
    assert hp2.write(Write(a(20), l0 + bytes(32), 5)) == (False, [])
    assert not hp2.acc and not hp2.skip
    assert hp2.write(Write(a(20), l0 + bytes(32), 5))[1][0][:3] == ("start", 0, 20)
    # an odd channel's refused beat never starts a skip (line 1 data is arbitrary)
    hp3 = HostPort(P)
    assert skip_case(hp3, 0, 3, Descriptor(size=5))[0]
    assert hp3.write(Write(a(3), l0, 5)) == (False, []) and not hp3.skip


def test_error_reasons():
    hp = HostPort(P)
    assert hp.read_err(3, 9) == C["ERR_NONE"]
    assert skip_case(hp, 3, 9, Descriptor(size=5))[0]
    hp.finish(3, 9, C["ST_ERROR"], C["ERR_REMOTE_MEM"])
    assert hp.read_single(3, 9) == C["ST_ERROR"]
    assert hp.read_err(3, 9) == C["ERR_REMOTE_MEM"] == hp.read_err(3, 9)
    # DONE leaves the last ERROR's reason; a refused descriptor sets ERR_BAD_DESC
    assert skip_case(hp, 3, 9, Descriptor(size=5))[0]
    hp.finish(3, 9, C["ST_DONE"])
    assert hp.read_err(3, 9) == C["ERR_REMOTE_MEM"]
    assert skip_case(hp, 3, 9, Descriptor(size=0)) == (False, [("error", 3, 9, "size 0")])
    assert hp.read_err(3, 9) == C["ERR_BAD_DESC"]


def test_write_beats_like_axi_master():
    bs = write_beats(0x100, bytes(64), 5, INCR, 32)
    assert [(b.addr, b.nbytes, b.lo, b.hi) for b in bs] == [(0x100, 32, 0x100, 0x120),
                                                            (0x120, 32, 0x120, 0x140)]
    bs = write_beats(0x104, bytes(8), 3, INCR, 32)           # unaligned: two partial beats
    assert [(b.addr, b.lo, b.hi) for b in bs] == [(0x104, 0x104, 0x108), (0x108, 0x108, 0x10c)]


def test_interleave_keeps_order():
    rng = random.Random(7)
    seqs = [[(k, i) for i in range(rng.randint(0, 9))] for k in range(16)]
    out = interleave(seqs, rng)
    assert sorted(out) == sorted(x for s in seqs for x in s)
    for k in range(16):
        assert [x for x in out if x[0] == k] == seqs[k]


# ------------------------------------------------------------------ scoreboard
class IdealEngine:
    """A legal engine at the level the scoreboard sees: it issues blocks/packets of the
    posted transfers in random interleavings, allocating IDs by the rules from FIFO pools,
    with at most MAX_OUTSTANDING blocks of a transfer unacknowledged."""

    def __init__(self, p, rng):
        self.p = p
        self.rng = rng
        self.tids = list(range(p.num_tids))
        self.fid1 = list(range(FID1_FIRST, FID1_FIRST + 64))
        self.fid4 = list(range(FID4_FIRST, 256, 4))
        self.seq = 0
        self.xf = {}         # xfer -> state

    def post(self, page, ch, d):
        st = dict(page=page, ch=ch, d=d, next=0, out=0, acked=0, fid=None, last=None,
                  ctl=False, cls=transfer_class(d, self.p))
        st["blocks"] = [] if d.is_inline else expected_blocks(d, page, ch, self.p)
        self.xf[xfer_index(page, ch)] = st

    def issue(self):
        """One output: ("blk"|"pkt", fields) or None when nothing can go."""
        cands = []
        for x, st in self.xf.items():
            d = st["d"]
            if d.is_inline:
                if st["next"] == 0 and self.tids:
                    cands.append(x)
                continue
            if st["next"] < len(st["blocks"]) and st["out"] < self.p.max_outstanding:
                c = st["cls"]
                if c is Cls.TID and not self.tids:
                    continue
                if st["next"] == 0 and c is Cls.FID1 and not self.fid1:
                    continue
                if st["next"] == 0 and c is Cls.FID4 and not self.fid4:
                    continue
                if c is not Cls.TID and st["fid"] is not None:
                    tid = tid_of_block(c, st["next"], st["fid"])
                    if tid in st.get("inflight", set()):
                        continue
                cands.append(x)
            elif (d.notify and not st["ctl"] and st["next"] == len(st["blocks"])
                  and st["acked"] - st.get("acked_last", 0) >= len(st["blocks"]) - 1):
                cands.append(x)
        if not cands:
            return None
        x = self.rng.choice(cands)
        st = self.xf[x]
        d = st["d"]
        if d.is_inline:
            tid = self.tids.pop(0)
            f = dict(expected_inline(d, st["page"], st["ch"]), tid=tid, seq=self.seq % SEQ_MOD,
                     blocks=0)
            f["payload"] = int.from_bytes(d.payload(), "little")
            st["next"] = 1
            st["last"] = (tid, self.seq % SEQ_MOD)
            self.seq += 1
            return "pkt", f
        if st["next"] == len(st["blocks"]):
            st["ctl"] = True
            tid, seq = st["last"]
            return "pkt", dict(expected_control(d, st["page"], st["ch"], self.p), tid=tid,
                               seq=seq, notify=0, payload=0)
        b = st["next"]
        c = st["cls"]
        if b == 0 and c is Cls.FID1:
            st["fid"] = self.fid1.pop(0)
        if b == 0 and c is Cls.FID4:
            st["fid"] = self.fid4.pop(0)
        if c is Cls.TID:
            tid, fid = self.tids.pop(0), 0
        else:
            tid, fid = tid_of_block(c, b, st["fid"]), fid_of_block(c, b, st["fid"])
        st.setdefault("inflight", set()).add(tid)
        f = dict(st["blocks"][b], tid=tid, seq=self.seq % SEQ_MOD, fid=fid)
        st["last"] = (tid, self.seq % SEQ_MOD)
        self.seq += 1
        st["next"] += 1
        st["out"] += 1
        return "blk", f

    def ack(self, x, tid):
        st = self.xf[x]
        st["out"] -= 1
        st["acked"] += 1
        if not st["d"].is_inline and st["next"] == len(st["blocks"]) and tid == st["last"][0]:
            st["acked_last"] = 1      # the last block's ACK: does not count for the control
        st.get("inflight", set()).discard(tid)
        if st["cls"] is Cls.TID:
            self.tids.append(tid)
        n = 1 if st["d"].is_inline else len(st["blocks"])
        if st["acked"] == n:
            if st["cls"] is Cls.FID1:
                self.fid1.append(st["fid"])
            if st["cls"] is Cls.FID4:
                self.fid4.append(st["fid"])

    def done(self, x):
        st = self.xf[x]
        n = 1 if st["d"].is_inline else len(st["blocks"])
        return st["acked"] == n and (st["d"].is_inline or not st["d"].notify or st["ctl"])


def random_desc(rng, p):
    k = rng.random()
    if k < 0.3:
        n = rng.randint(1, 32)
        return Descriptor.inline_payload(rng.randbytes(n), notify=rng.getrandbits(1),
                                         dst_addr=rng.getrandbits(64), tag=rng.getrandbits(32))
    size = rng.choice([rng.randint(1, p.cm_min_bytes), rng.randint(p.cm_min_bytes, MB),
                       rng.randint(p.mp_min_bytes, MB)])
    return Descriptor(src_addr=rng.getrandbits(64), dst_addr=rng.getrandbits(64), size=size,
                      multipath=rng.getrandbits(1), notify=rng.getrandbits(1),
                      prio=rng.getrandbits(4), tag=rng.getrandbits(32),
                      dst_node=rng.getrandbits(16))


def run_ideal(p, rng, n_xfers, mutate=None, max_active=48):
    """Drive the scoreboard with an ideal engine; mutate(kind, fields) may corrupt one
    output. Returns the scoreboard."""
    eng = IdealEngine(p, rng)
    sb = Scoreboard(p)
    free = [(pg, ch) for pg in range(16) for ch in range(64)]
    rng.shuffle(free)
    free = free[:max_active]
    posted = 0
    pend = []            # (x, tid, seq) waiting for an ACK
    while posted < n_xfers or eng.xf:
        touched = []
        if posted < n_xfers and free and rng.random() < 0.3:
            page, ch = free.pop()
            d = random_desc(rng, p)
            sb.post(page, ch, d)
            eng.post(page, ch, d)
            posted += 1
        out = eng.issue() if rng.random() < 0.7 else None
        if out is not None:
            kind, f = out
            if mutate:
                f = mutate(kind, f)
            if kind == "blk":
                sb.on_block(BLOCK_DESC.unpack(BLOCK_DESC.pack(**f)))
                pend.append((f["xfer"], f["tid"], f["seq"]))
            else:
                sb.on_packet(PKT_DESC.unpack(PKT_DESC.pack(**f)))
                if f["kind"] == C["PKT_INLINE"]:
                    pend.append((f["xfer"], f["tid"], f["seq"]))
                else:
                    touched.append(f["xfer"])
        if pend and rng.random() < 0.5:
            x, tid, seq = pend.pop(rng.randrange(len(pend)))
            assert sb.on_ack(tid, seq) is not None
            eng.ack(x, tid)
            touched.append(x)
        for x in set(touched):
            if eng.done(x):
                del eng.xf[x]
                sb.retire(sb.active[x])
                free.insert(0, xfer_page_ch(x))
    return sb


def test_scoreboard_ideal_engine_with_seq_wrap():
    """Small blocks make many outputs per transfer: > 65536 sequence numbers."""
    p = Params(block_size=4096, cm_min_bytes=8192, mp_min_bytes=32768, num_tids=64)
    rng = random.Random(8)
    sb = run_ideal(p, rng, 1300, max_active=24)
    assert sb.check_end() == []
    assert len(sb.seqs) > SEQ_MOD + 1000, "the run must wrap the 16-bit sequence number"
    assert sb.n["retired"] == 1300


def test_scoreboard_small_block_size():
    p = Params(block_size=4096, cm_min_bytes=8192, mp_min_bytes=32768, max_outstanding=3)
    sb = run_ideal(p, random.Random(9), 150)
    assert sb.check_end() == []


def corrupt_once(kind_want, when, apply):
    """A mutate() for run_ideal that corrupts the first output of kind_want for which
    when(fields) holds, with apply(fields)."""
    state = {"done": False}

    def mutate(kind, f):
        if not state["done"] and kind == kind_want and when(f):
            state["done"] = True
            f = dict(f)
            apply(f)
        return f
    return mutate


@pytest.mark.parametrize("name,kind,when,apply,msg", [
    ("field", "blk", lambda f: f["block"] == 2, lambda f: f.update(size=f["size"] ^ 1), "size"),
    ("src", "blk", lambda f: True, lambda f: f.update(src_addr=f["src_addr"] ^ 8), "src_addr"),
    ("flag", "blk", lambda f: f["cm"], lambda f: f.update(chained=1 - f["chained"]), "chained"),
    ("order", "blk", lambda f: f["block"] == 1, lambda f: f.update(block=2), "in order"),
    ("fid", "blk", lambda f: f["block"] == 0 and f["cm"], lambda f: f.update(fid=f["fid"] ^ 1),
     "FID"),
    ("tid", "blk", lambda f: f["block"] == 5 and f["cm"], lambda f: f.update(tid=f["tid"] ^ 2),
     "TID"),
    ("seq", "blk", lambda f: f["seq"] > 10, lambda f: f.update(seq=f["seq"] - 3), "seq"),
    ("pkt_payload", "pkt", lambda f: f["kind"] == 0 and f["len"] > 3,
     lambda f: f.update(payload=f["payload"] ^ (1 << 16)), "payload"),
    ("pkt_notify", "pkt", lambda f: f["kind"] == 0, lambda f: f.update(notify=1 - f["notify"]),
     "notify"),
    ("ctl_tid", "pkt", lambda f: f["kind"] == 1, lambda f: f.update(tid=(f["tid"] + 1) % 1024),
     "control"),
    ("ctl_blocks", "pkt", lambda f: f["kind"] == 1, lambda f: f.update(blocks=f["blocks"] + 1),
     "blocks"),
    ("xfer", "blk", lambda f: True, lambda f: f.update(xfer=f["xfer"] ^ 0x400), "xfer"),
])
def test_scoreboard_catches(name, kind, when, apply, msg):
    with pytest.raises(ModelError, match=msg):
        run_ideal(Params(), random.Random(10), 400, corrupt_once(kind, when, apply))


def test_scoreboard_tid_and_fid_in_use():
    sb = Scoreboard(P)
    a = sb.post(0, 0, Descriptor(size=10))
    b = sb.post(0, 1, Descriptor(size=10))
    ba = dict(expected_blocks(a.desc, 0, 0, P)[0], tid=7, seq=0, fid=0)
    bb = dict(expected_blocks(b.desc, 0, 1, P)[0], tid=7, seq=1, fid=0)
    sb.on_block(ba)
    with pytest.raises(ModelError, match="TID 7 is in flight"):
        sb.on_block(bb)
    sb = Scoreboard(P)
    a = sb.post(0, 0, Descriptor(size=P.cm_min_bytes))
    b = sb.post(0, 1, Descriptor(size=P.cm_min_bytes))
    sb.on_block(dict(expected_blocks(a.desc, 0, 0, P)[0], tid=4 * 130, seq=0, fid=130))
    with pytest.raises(ModelError, match="FID 130 held"):
        sb.on_block(dict(expected_blocks(b.desc, 0, 1, P)[0], tid=4 * 130, seq=1, fid=130))
    # after the ACK the FID is free again
    assert sb.on_ack(4 * 130, 0) is a and a.complete
    sb.on_block(dict(expected_blocks(b.desc, 0, 1, P)[0], tid=4 * 130, seq=1, fid=130))


def test_scoreboard_outstanding_and_nack():
    sb = Scoreboard(P)
    d = Descriptor(size=4 * BS, notify=1)
    t = sb.post(1, 2, d)
    bl = expected_blocks(d, 1, 2, P)
    sb.on_block(dict(bl[0], tid=512, seq=0, fid=128))
    sb.on_block(dict(bl[1], tid=513, seq=1, fid=128))
    with pytest.raises(ModelError, match="MAX_OUTSTANDING"):
        sb.on_block(dict(bl[2], tid=514, seq=2, fid=128))
    # stale ACKs: wrong seq, unknown TID
    assert sb.on_ack(512, 5) is None and sb.on_ack(900, 0) is None and sb.n["stale"] == 2
    assert in_flight(sb) == 1
    assert sb.on_ack(512, 0, nack=True, reason=7) is t and t.nacked and not t.complete
    assert t.nack_reason == 7
    with pytest.raises(ModelError, match="after the transfer was NACKed"):
        sb.on_block(dict(bl[2], tid=514, seq=2, fid=128))
    assert 128 in sb.fid1
    assert sb.on_ack(513, 1, nack=True, reason=2) is t and t.complete and 128 not in sb.fid1
    assert t.nack_reason == 7 and in_flight(sb) == 0             # the first NACK's reason
    assert sb.on_ack(513, 1) is None                    # duplicate
    sb.retire(t)
    assert sb.check_end() == []


def test_scoreboard_control_timing():
    sb = Scoreboard(P)
    d = Descriptor(size=3 * BS, notify=1, tag=3)
    t = sb.post(0, 0, d)
    bl = expected_blocks(d, 0, 0, P)
    ctl = dict(expected_control(d, 0, 0, P), tid=0, seq=2)
    sb.on_block(dict(bl[0], tid=512, seq=0, fid=128))
    sb.on_block(dict(bl[1], tid=513, seq=1, fid=128))
    assert sb.on_ack(512, 0)
    with pytest.raises(ModelError, match="before every block but the last"):
        sb.on_packet(dict(ctl, tid=514))
    sb.on_ack(513, 1)
    # the control packet may come out before its last block; checked when the block does
    sb.on_packet(dict(ctl, tid=514, seq=2))
    assert not t.control_ok
    sb.on_block(dict(bl[2], tid=514, seq=2, fid=128))
    assert t.control_ok
    sb.on_ack(514, 2)
    assert t.complete
    sb.retire(t)
    assert sb.check_end() == []
    # the last block's ACK does not stand in for an earlier block's
    sb = Scoreboard(P)
    t = sb.post(0, 0, d)
    sb.on_block(dict(bl[0], tid=512, seq=0, fid=128))
    sb.on_block(dict(bl[1], tid=513, seq=1, fid=128))
    sb.on_ack(513, 1)
    sb.on_block(dict(bl[2], tid=514, seq=2, fid=128))
    sb.on_ack(514, 2)
    with pytest.raises(ModelError, match=r"blocks \[1, 2\] of 3 acked"):
        sb.on_packet(dict(ctl, tid=514, seq=2))
    sb.on_ack(512, 0)
    sb.on_packet(dict(ctl, tid=514, seq=2))
    assert t.control_ok and t.complete
    # a control packet with the wrong seq is caught when the last block shows up
    sb = Scoreboard(P)
    t = sb.post(0, 0, Descriptor(size=10, notify=1))
    sb.on_block(dict(expected_blocks(t.desc, 0, 0, P)[0], tid=0, seq=0, fid=0))
    with pytest.raises(ModelError, match="last block has"):
        sb.on_packet(dict(expected_control(t.desc, 0, 0, P), tid=0, seq=1))


def test_scoreboard_end_reports_missing():
    sb = Scoreboard(P)
    t = sb.post(0, 0, Descriptor(size=2 * BS))
    bl = expected_blocks(t.desc, 0, 0, P)
    sb.on_block(dict(bl[0], tid=512, seq=0, fid=128))
    bad = sb.check_end()
    assert any("incomplete: 1/2 out" in s for s in bad)
    assert any("TIDs still in flight" in s for s in bad)
    assert any("FIDs still held" in s for s in bad)
    # a gap in the sequence numbers
    sb = Scoreboard(P)
    t = sb.post(0, 0, Descriptor(size=5))
    sb.on_block(dict(expected_blocks(t.desc, 0, 0, P)[0], tid=3, seq=1, fid=0))
    sb.on_ack(3, 1)
    sb.retire(t)
    assert any("sequence numbers" in s for s in sb.check_end())


def test_seq_unwrap():
    sb = Scoreboard(P)
    sb.seq_hi = SEQ_MOD - 2
    assert sb.unwrap(SEQ_MOD - 1) == SEQ_MOD - 1
    assert sb.unwrap(0) == SEQ_MOD
    assert sb.unwrap(SEQ_MOD - 100) == SEQ_MOD - 100   # a late one from before the wrap
    sb.seq_hi = 3 * SEQ_MOD + 5
    assert sb.unwrap(2) == 3 * SEQ_MOD + 2 and sb.unwrap(7) == 3 * SEQ_MOD + 7


# ------------------------------------------------------------------ the core's blocks
def _pkg_structs() -> dict[str, list[tuple[str, int]]]:
    """The packed structs of rtl/qos/qrdma_qos_pkg.sv: name -> [(member, width)], with
    widths from the package's localparams (enough of SystemVerilog for that file)."""
    import re
    from pathlib import Path
    src = (Path(__file__).resolve().parents[2] / "rtl/qos/qrdma_qos_pkg.sv").read_text()
    src = re.sub(r"//.*", "", src)
    consts = {k: int(v) for k, v in
              re.findall(r"localparam\s+int\s+unsigned\s+(\w+)\s*=\s*(\d+)\s*;", src)}
    enums = {m.group(2): int(eval(m.group(1), {}, dict(consts))) + 1 for m in
             re.finditer(r"typedef\s+enum\s+logic\s*\[([^:\]]+):0\]\s*{[^}]*}\s*(\w+)\s*;",
                         src)}
    out = {}
    for body, name in re.findall(r"typedef\s+struct\s+packed\s*{([^}]*)}\s*(\w+)\s*;", src):
        fields = []
        for decl in body.split(";"):
            decl = decl.strip()
            if not decl:
                continue
            m = re.fullmatch(r"logic\s*(?:\[([^:\]]+):0\])?\s*(\w+)", decl)
            if m:
                w = int(eval(m.group(1), {}, dict(consts))) + 1 if m.group(1) else 1
                fields.append((m.group(2), w))
            else:
                typ, n = decl.split()
                fields.append((n, enums[typ]))
        out[name] = fields
    return out


def test_records_match_package():
    """META / PEND / ACT are the package's meta_t / pend_t / act_t, member by member."""
    from model.qos_model import ACT, META, PEND
    structs = _pkg_structs()
    for lay in (META, PEND, ACT):
        assert [(f.name, f.width) for f in lay.fields] == structs[lay.name], lay.name


def test_frog_leap_rules():
    """docs/qos.md: 4xFID block b: FID f0 + b mod 4, TID 4 (f0 + b mod 4) + (b div 4)
    mod 4; 1xFID: TID 4f + b mod 4. 16 consecutive 4xFID blocks take 16 distinct TIDs of
    the group, 4 consecutive ones 4 distinct FIDs; the tid_busy slots are one-to-one."""
    from model.qos_model import frog_leap, tid_slot
    for f0 in range(FID4_FIRST, 256, 4):
        for b0 in range(0, 40, 3):
            ids = [frog_leap(Cls.FID4, f0, b) for b in range(b0, b0 + 16)]
            assert sorted(t for _, t in ids) == list(range(4 * f0, 4 * f0 + 16))
            assert len({f for f, _ in ids[:4]}) == 4
            assert sorted(tid_slot(Cls.FID4, b) for b in range(b0, b0 + 16)) == list(range(16))
        for b in range(40):
            assert frog_leap(Cls.FID4, f0, b) == (f0 + b % 4, 4 * (f0 + b % 4) + (b // 4) % 4)
    for f in range(FID1_FIRST, FID1_FIRST + 64):
        assert [frog_leap(Cls.FID1, f, b) for b in range(8)] == \
            [(f, 4 * f + b % 4) for b in range(8)]


def test_id_pools_order():
    from model.qos_model import IdPools
    pools = IdPools(4)
    assert [pools.take("tid") for _ in range(3)] == [0, 1, 2]
    pools.give("tid", 1)
    assert [pools.take("tid") for _ in range(2)] == [3, 1]
    assert not pools.avail("tid")
    with pytest.raises(ModelError):
        pools.give("tid", 3) or pools.give("tid", 3)
    assert pools.take("fid4") == FID4_FIRST and pools.take("fid4") == FID4_FIRST + 4
    pools.give_fids(Cls.FID4, FID4_FIRST)
    assert pools.free["fid4"][-1] == FID4_FIRST


def test_handler_control_rule():
    """The last block's ACK, arriving first, does not send the control packet; the ACK
    that completes blocks 0..n-2 does (docs/qos.md "Completion")."""
    from model.qos_model import CoreModel
    core = CoreModel(P)
    core.post(5, Descriptor(size=3 * BS, dst_addr=0, notify=1))
    outs = []
    while (iss := core.step()) is not None:
        outs.append(iss)
    assert [i.kind for i in outs] == ["block", "block"]       # MAX_OUTSTANDING 2
    t0, s0 = outs[0].pend[0], outs[0].pend[1]["seq"]
    t1, s1 = outs[1].pend[0], outs[1].pend[1]["seq"]
    core.ack(t1, s1)
    i2 = core.step()
    assert i2.kind == "block" and i2.pkt is None and i2.blk["last"] == 1
    t2, s2 = i2.pend[0], i2.pend[1]["seq"]
    core.ack(t2, s2)                   # the last block: no control packet yet
    assert core.step() is None
    r = core.ack(t0, s0)               # blocks 0..1 acked now
    assert r.act == dict(r.act, enq=1, q=0)
    c = core.step()
    assert c.kind == "control" and c.pkt["tid"] == t2 and c.pkt["seq"] == s2
    assert core.done == [(5, 0, 0)] and core.pools.all_free()


def run_core_model(p, rng, n_xfers, nack_rate=0.0, max_active=40):
    """CoreModel driven like the engine: random transfers, outputs to the Scoreboard,
    ACKs (some NACKs, some stale) in random order. Returns (core, scoreboard, posted)."""
    from model.qos_model import CoreModel
    core = CoreModel(p)
    sb = Scoreboard(p)
    free = [(pg, ch) for pg in range(16) for ch in range(0, 64, 2)]
    rng.shuffle(free)
    free = free[:max_active]
    posted, pend, live = 0, [], {}
    n_done = 0
    while posted < n_xfers or live:
        if posted < n_xfers and free and rng.random() < 0.3:
            page, ch = free.pop()
            d = random_desc(rng, p)
            x = xfer_index(page, ch)
            live[x] = (sb.post(page, ch, d), (page, ch))
            posted += 1
            core.post(x, d)
        if rng.random() < 0.7 and (iss := core.step()) is not None:
            if iss.blk is not None:
                sb.on_block(BLOCK_DESC.unpack(BLOCK_DESC.pack(**iss.blk)))
            if iss.pkt is not None:
                sb.on_packet(PKT_DESC.unpack(PKT_DESC.pack(**iss.pkt)))
            if iss.pend is not None:
                pend.append((iss.pend[0], iss.pend[1]["seq"]))
        if pend and rng.random() < 0.5:
            tid, seq = pend.pop(rng.randrange(len(pend)))
            nack = rng.random() < nack_rate
            why = rng.randrange(16) if nack else 0
            t = sb.on_ack(tid, seq, nack, why)
            assert (core.ack(tid, seq, nack, why) is not None) == (t is not None)
            if rng.random() < 0.05:                     # a duplicate: stale
                assert core.ack(tid, seq) is None and sb.on_ack(tid, seq) is None
        while n_done < len(core.done):
            x, err, why = core.done[n_done]
            n_done += 1
            t, key = live.pop(x)
            assert t.complete, f"xfer {x} completed early: {t.remaining()}"
            assert err == int(t.nacked)
            if err:
                assert why == t.nack_reason
            sb.retire(t)
            free.insert(0, key)
    return core, sb, posted


@pytest.mark.parametrize("p,nack_rate", [
    (Params(), 0.0),
    (Params(), 0.05),
    (Params(block_size=4096, cm_min_bytes=8192, mp_min_bytes=32768, num_tids=16,
            max_outstanding=4), 0.02),
    (Params(block_size=8192, max_outstanding=1, num_tids=4), 0.0),
])
def test_core_model_against_scoreboard(p, nack_rate):
    """The unit models composed (CoreModel) behave as the Scoreboard demands: every
    output legal, every transfer completed once (ERROR with the first NACK's reason when
    NACKed), every ID back, no queue or pending entry left."""
    core, sb, posted = run_core_model(p, random.Random(11), 400, nack_rate)
    assert sb.check_end() == []
    assert len(core.done) == posted
    assert core.pools.all_free() and core.queues.empty() and not core.pending
