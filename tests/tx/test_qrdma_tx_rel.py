# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_tx_rel against a reference model of its timers and its destination check.

Random block and packet descriptors (reachable destinations, this node, nodes outside
NODE_MASK and above 63) under random backpressure on every output; acknowledgements that
match, stale ones (same TID, another seq) that must not disarm, and every NACK of the unit
fed back as the engine would take it. Checked, cycle by cycle:
  * every reachable descriptor comes out unchanged and in order on its stream, no other;
  * every unreachable one is answered by NACK (tid, seq, ERR_UNREACHABLE), pushed within
    2 cycles of its handshake with the engine when the NACK queue has room;
  * a timeout NACK (tid, seq, ERR_TIMEOUT) only for a descriptor passed on and never
    acknowledged, pushed T cycles or more after the first s_sent pulse of its TID since
    it was passed on and at most T + 2 * 2^TICK_SHIFT + ROUND + 6 cycles after the last
    one (T = RETX_TIMEOUT; ROUND = NUM_TIDS + NUM_TIDS / MV_GAP + 1, the scan's longest
    round with visits out of turn), exactly once, never without a pulse; at the end every
    descriptor left unacknowledged has timed out;
  * with RETX_TIMEOUT 0 nothing times out.
The push cycle of each NACK is the cycle before its statistics pulse (stat_timeout /
stat_unreach), in the FIFO's order. The send unit's s_sent pulse of each descriptor passed
on comes 6 to 6 + 64 cycles after it, one in ten up to 3 T later (a descriptor waiting
behind others in the send unit); a pulse of an earlier use of a TID may come after its
next use passed on (then 6 cycles or more after it, as the send unit's pipeline makes
it), and counts for it.

MISS reports (rel_miss*): random pulses on s_miss for timers armed with the report's seq
(some of them due), with a stale seq, for TIDs not armed, and for inline packets' timers.
Every block re-sent with a run (pkt_first / pkt_num set) must be the kept block with the
run of a MISS of its tid and the timer's seq taken 12 cycles or more before (cfg_gbn:
pkt_num 0), for a block's timer, armed or acknowledged at most one cycle before, without
the block's control packet (for a notifying block's timer too); it arms the timer again
with the same re-send count (a timeout NACK after fewer than RETRY_LIMIT timeout re-sends
fails the test) and the same timeout. Every MISS for a block's armed timer that no newer
MISS of its TID replaces is answered (by the end; rel_miss_bound: within 2 x ROUND
cycles) by such a re-send, by a whole re-send, by a descriptor of the
engine with its TID passed on, or by the timer's acknowledgement or NACK; stat_miss_retx
pulses once per MISS re-send passed on.
With cfg_probe (rel_miss) the first timeout re-send of a block is the kept block's last
packet alone (pkt_first ((dst_addr mod MAX_PAYLOAD) + size - 1) / MAX_PAYLOAD, pkt_num 1),
later ones the kept block whole; without it, every one is the kept block whole.
rel_reset: the kept descriptors do not outlive a reset (the engine's seq numbers start
again at reset). rel_seq_wrap: a kept control packet does not outlive its TID's use (a
later block of the TID with the same 16-bit seq re-sends alone). rel_ctl_ahead: a control
packet that passes on before its block re-sends alone, never with the block kept from an
earlier use of the TID with the same 16-bit seq.
rel_miss_bound (no backpressure, no stale acknowledgement, timers off): every MISS re-send
passes within ROUND + 11 cycles of its MISS plus 4 cycles per re-send passed meanwhile, and
within 28 cycles plus 4 per re-send passed meanwhile when no other MISS came in the 32
cycles before it and no sent pulse of its TID comes in the 24 cycles after it (its TID is
visited out of turn, or in turn within 15 visits, and nothing of the TID changes during
the visit).
Replay: QRDMA_SEED=<seed printed at the start of a test>."""
import collections
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

from seeding import seed_rng
from tools import formats as F

ERR_TIMEOUT = F.CONST["ERR_TIMEOUT"][0]
ERR_UNREACHABLE = F.CONST["ERR_UNREACHABLE"][0]
NODE_ID = 2
MAX_PAYLOAD = 1024   # qrdma_tx_rel's default
NODE_MASK = 0b1011_0111   # nodes 0, 1, 2 (self), 4, 5, 7
# descriptors of the long timer tests: make test-full runs five times as many
LONG_N = {"rel_retx": 2000, "rel_miss": 1000, "rel_miss_gbn": 1000}
LONG_SCALE = 5 if os.environ.get("QRDMA_FULL", "0") not in ("", "0") else 1


def reachable(dst):
    return dst < 64 and (NODE_MASK >> dst) & 1 and dst != NODE_ID


def put(layout, word, **fields):
    """word with the given fields of layout replaced."""
    for k, x in fields.items():
        f = layout.field(k)
        word = (word & ~(((1 << f.width) - 1) << f.lsb)) | (x << f.lsb)
    return word


def field(layout, word, name):
    f = layout.field(name)
    return (word >> f.lsb) & ((1 << f.width) - 1)


def scan_round() -> int:
    """the scan's longest round: NUM_TIDS visits in turn and at most one out of turn
    before every MV_GAP of them (module header)"""
    gap = int(os.environ["P_MV_GAP"])
    return 1024 + 1024 // gap + 1


async def run_timers(dut, timeout, n_desc, ack_share, name, take_p=0.6, stale_p=0.2,
                     unreach_p=0.2, rounds=0, retries=0, backoff=0, seq0=0, ctl_p=0.0, ready_p=0.7,
                     miss_p=0.0, gbn=0, miss_bound=False, miss_live=None, probe=0,
                     retx_late_ok=None):
    """rounds None: no upper bound on a timeout NACK's lateness (a scan round of NUM_TIDS
    cycles is lost whenever an acknowledgement of the same TID is on its way, and a due
    timer without room in the NACK queue, an unreachable NACK taking the cycle, holds the
    scan); every timer still fires by the end.
    retries, backoff: RETRY_LIMIT's fields. seq0: the first seq. ctl_p: the share of packet
    descriptors that are control packets of a block (its tid and seq, as the engine sends
    one while the receiver holds that block's response): of a block passed on, or, for
    half of them when there is one, of a block the unit took but has not passed on yet
    (the control packet may pass first); the others are inline packets with a TID of
    their own. miss_p: the chance of a MISS pulse per cycle; gbn: cfg_gbn; miss_bound:
    check the latency bound of every MISS re-send (module docstring); miss_live: cycles
    within which a MISS for a block's armed timer is answered (None: by the end; a scan
    round is lost whenever the re-send queue is full at the TID's visit, which with many
    timers due at once repeats round after round, as for timeouts). probe: cfg_probe (a
    block's timeout re-send is its last packet alone). retx_late_ok: cycles within which
    every timeout re-send passes on after its span."""
    tick_shift = int(os.environ["P_TICK_SHIFT"])
    rnd = scan_round()
    rng = seed_rng(name)
    cocotb.start_soon(Clock(dut.clk, 2, "ns").start())
    dut.rst.value = 1
    dut.node_id.value = NODE_ID
    dut.cfg_node_mask.value = NODE_MASK
    dut.cfg_timeout.value = timeout
    dut.cfg_retry_limit.value = retries
    dut.cfg_backoff.value = backoff
    dut.cfg_gbn.value = gbn
    dut.cfg_probe.value = probe
    dut.s_miss_valid.value = 0
    dut.s_miss_data.value = 0
    dut.s_sent_valid.value = 0
    dut.s_sent_tid.value = 0
    for sig in ("s_blk_valid", "s_pkt_valid", "ack_valid", "m_blk_ready", "m_pkt_ready",
                "m_nack_ready"):
        getattr(dut, sig).value = 0
    dut.s_blk_data.value = 0
    dut.s_pkt_data.value = 0
    dut.ack_data.value = 0
    for _ in range(5):
        await RisingEdge(dut.clk)
    await FallingEdge(dut.clk)
    dut.rst.value = 0

    def span(rt):
        """timeout of a timer armed by the rt-th send (0: the first)"""
        return timeout << min(rt, backoff)

    free = list(range(1024))
    rng.shuffle(free)
    seq = seq0
    made = 0
    ctl_pending = {}                    # tid -> seq: a control packet not passed on yet
    early = set()                       # tids whose control packet came before their block passed
    # tid -> timer: seq, cycle (re)armed, re-sends so far, what it covers
    armed = {}
    # timers the unit keeps armed after the engine took their acknowledgement: a re-send
    # that passed on in the cycle of the take or the next one arms again
    ghost = {}
    kept = collections.defaultdict(dict)  # tid -> {"blk"/"pkt": last descriptor passed on}
    acked = {}                          # (tid, seq) -> (cycle passed on, cycle acknowledged)
    out_q = {"blk": collections.deque(), "pkt": collections.deque()}
    pushes = collections.deque()        # (kind, push cycle) of the unit's NACKs, in order
    expect_unr = {}                     # (tid, seq) -> handshake cycle, unreachables
    offer = {"blk": None, "pkt": None}  # (data, tid, seq, dst) offered until taken
    stats = collections.Counter()
    slack = 2 * (1 << tick_shift) + rnd + 6
    limit = span(retries) + slack
    late_ok = limit if rounds is not None else None
    layout = {"blk": F.BLOCK_DESC, "pkt": F.PKT_DESC}
    now = 0
    quiet_after = None
    # the send unit's pulses: cycle -> tid (one per cycle)
    sent_at = {}
    sent_long = 3 * timeout

    def sent_after(tid):
        """tid passed on in this cycle: its pulse, later; a pending pulse of an earlier
        use of the TID moves out of the 6 cycles after this pass"""
        for c in [c for c, t in sent_at.items() if t == tid and now <= c < now + 6]:
            del sent_at[c]
            sched(tid, now + 6)
        sched(tid, now + (rng.randint(6, 6 + sent_long) if rng.random() < 0.1
                          else rng.randint(6, 6 + 64)))

    def sched(tid, c):
        while c in sent_at:
            c += 1
        sent_at[c] = tid

    def sent_pulse(tid):
        """the pulse of this cycle: it counts for the TID's timer armed 6 cycles or more
        ago"""
        for where in (armed, ghost):
            if tid in where and now >= where[tid]["t"] + 6:
                where[tid]["sent"].append(now)

    def sent_base(tmr, fire, what):
        """the first pulse counted for timer tmr, whose timeout decision came before cycle
        fire: one must have come 8 cycles or more before that cycle"""
        assert any(c <= fire - 8 for c in tmr["sent"]), \
            f"{what}: timer {tmr} ran out without a sent pulse (cycle {fire})"
        return tmr["sent"][0]

    def make(kind):
        nonlocal seq, made
        blocks = [t for t, m in armed.items() if m["kind"] == "blk" and t not in ctl_pending]
        waiting = [(t, s, d) for d, t, s in out_q["blk"] if t not in ctl_pending]
        # until a control packet has passed before its block once (stats "ctl_first"),
        # every control made while a block waits is for a waiting one
        want_early = ctl_p > 0 and bool(waiting) and not stats["ctl_first"]
        if kind == "pkt" and (blocks or waiting) and (want_early or rng.random() < ctl_p):
            if waiting and (not blocks or want_early or rng.random() < 0.5):
                tid, s, blk = rng.choice(waiting)
                early.add(tid)
            else:
                tid = rng.choice(blocks)
                s, blk = armed[tid]["seq"], kept[tid]["blk"]
            dst = field(F.BLOCK_DESC, blk, "dst_node")
            ctl_pending[tid] = s
            made += 1
            d = put(F.PKT_DESC, rng.getrandbits(F.PKT_DESC.width), tid=tid, seq=s,
                    dst_node=dst, kind=1, resend=0, announce=0)   # (REGISTER: rel_register)
            return (d, tid, s, dst)
        tid = free.pop()
        s = seq
        seq = (seq + 1) & 0xFFFF
        made += 1
        dst = (rng.choice([0, 1, 4, 5, 7]) if rng.random() >= unreach_p else
               rng.choice([NODE_ID, 3, 6, 63, 64, 1000, 0xFFFF]))
        d = put(layout[kind], rng.getrandbits(layout[kind].width), tid=tid, seq=s,
                dst_node=dst, resend=0)   # (the engine never sets the resend bit)
        if kind == "pkt":
            d = put(F.PKT_DESC, d, kind=0)
        else:   # the engine sends whole blocks of 1..BLOCK_SIZE bytes
            d = put(F.BLOCK_DESC, d, pkt_first=0, pkt_num=0, size=rng.randint(1, 1 << 16))
        return (d, tid, s, dst)

    # MISS reports: miss_recs[tid], those a MISS re-send may answer, oldest first
    # (seq, pkt_first, expected pkt_num, cycle); miss_open, the ones that must be answered
    # (tid, seq, cycle)
    miss_recs = collections.defaultdict(list)
    miss_at: list[int] = []   # the cycle of every MISS pulse
    miss_open = []
    passes = []                         # cycles of re-sends passed on
    miss_pass = {}                      # tid -> cycle of its last MISS re-send

    def make_miss():
        """a MISS pulse's (tid, seq, pkt_first, pkt_num), or None"""
        c = rng.random()
        live = False
        blocks = [t for t, m in armed.items() if m["kind"] != "inl" and t not in early]
        inl = [t for t, m in armed.items() if m["kind"] == "inl"]
        pf = rng.randrange(1 if gbn else 0, 256)
        pn = rng.randint(2 if probe else 1, 256)   # (a run of one packet could be a probe)
        if c < 0.6 and blocks:
            due = [t for t in blocks if armed[t]["sent"]
                   and now - armed[t]["sent"][0] >= span(armed[t]["rt"])]
            tid = rng.choice(due if due and rng.random() < 0.2 else blocks)
            s = armed[tid]["seq"]
            live = True
            stats["miss_match"] += 1
        elif c < 0.75 and armed:
            tid = rng.choice(list(armed))
            s = (armed[tid]["seq"] - rng.randint(1, 50)) & 0xFFFF
            stats["miss_stale"] += 1
        elif c < 0.85 and inl:
            tid = rng.choice(inl)
            s = armed[tid]["seq"]
            stats["miss_inl"] += 1
        else:
            tid = rng.randrange(1024)
            if tid in armed:
                return None
            s = (seq - rng.randint(1, 100)) & 0xFFFF
            stats["miss_unarmed"] += 1
        # (a newer report of a TID replaces the one the unit keeps)
        miss_open[:] = [o for o in miss_open if o[0] != tid]
        if live:
            miss_open.append((tid, s, now))
        # alone: no other MISS in the 32 cycles before it, no sent pulse of its TID in the
        # 24 cycles after it (a write of the TID's deadline during its visit)
        alone = (not any(now - 32 <= c for c in miss_at[-1:])
                 and not any(t == tid and now <= c <= now + 24 for c, t in sent_at.items()))
        miss_recs[tid].append((s, pf, 0 if gbn else pn, now, alone))
        miss_at.append(now)
        return (tid, s, pf, pn)

    def miss_resolve(tid):
        """the timer of tid was acknowledged, NACKed or re-sent: its MISSes are answered"""
        for o in miss_open:
            if o[0] == tid:
                stats["miss_ans_max"] = max(stats["miss_ans_max"], now - o[2])
        miss_open[:] = [o for o in miss_open if o[0] != tid]

    def unrun(d):
        return put(F.BLOCK_DESC, d, pkt_first=0, pkt_num=0)

    def pre_rt(kind, tid, s):
        """re-sends of the timer (tid, s) before the re-send passing now"""
        t = (armed[tid] if tid in armed and armed[tid]["seq"] == s else
             ghost[tid] if tid in ghost and ghost[tid]["seq"] == s else
             armed_at_ack.get((tid, s)))
        if t is None:
            return 0
        if kind == "blk" and t["kind"] == "ctl" and t.get("before") is not None:
            t = t["before"]   # (its control packet passed first and armed again)
        return t["rt"]

    def timeout_resend(kind, tid, s):
        """what a timeout re-sends: the kept descriptor, or with probe a block's last
        packet alone at its first re-send (packets do not cross a MAX_PAYLOAD boundary of
        the destination)"""
        d = kept[tid].get(kind)
        if not probe or kind != "blk" or d is None or pre_rt(kind, tid, s) != 0:
            return d
        da, size = field(F.BLOCK_DESC, d, "dst_addr"), field(F.BLOCK_DESC, d, "size")
        return put(F.BLOCK_DESC, d, pkt_first=(da % MAX_PAYLOAD + size - 1) // MAX_PAYLOAD,
                   pkt_num=1)

    def resent(kind, d):
        """a re-send passed on: check it against the timer it answers; arm again"""
        tid, s = field(layout[kind], d, "tid"), field(layout[kind], d, "seq")
        miss = kind == "blk" and d != timeout_resend(kind, tid, s)
        if miss:
            assert unrun(d) == kept[tid].get(kind), \
                f"MISS re-send ({tid}, {s}) is not the kept block with a run"
        else:
            assert timeout_resend(kind, tid, s) == d, \
                f"{kind}: re-sent ({tid}, {s}) is not the kept one (probe {probe})"
            stats["probe"] += d != kept[tid].get(kind)
            # a MISS re-send sends the block's run only, never its control packet (the
            # TID's next re-send is a scan round later)
            assert not (kind == "pkt" and now - miss_pass.get(tid, -10**9) < 16), \
                f"control packet ({tid}, {s}) re-sent with a MISS re-send"
        passes.append(now)
        if tid in armed and armed[tid]["seq"] == s:
            tmr, where = armed[tid], armed
        elif tid in ghost and ghost[tid]["seq"] == s:
            tmr, where = ghost[tid], ghost
        else:
            assert (tid, s) in acked, f"{kind}: re-send of ({tid}, {s}), never sent"
            assert now <= acked[(tid, s)][1] + 1, \
                f"{kind}: re-send of ({tid}, {s}) {now - acked[(tid, s)][1]} cycles after its ack"
            tmr, where = dict(armed_at_ack[(tid, s)]), ghost
            stats["ghost"] += 1
        if miss:
            pf, pn = field(F.BLOCK_DESC, d, "pkt_first"), field(F.BLOCK_DESC, d, "pkt_num")
            recs = miss_recs[tid]
            k = next((i for i, r in enumerate(recs) if r[:3] == (s, pf, pn)), None)
            assert k is not None, \
                f"MISS re-send ({tid}, {s}) packets {pf} + {pn}: no such MISS ({recs})"
            m = recs[k][3]
            assert now - m >= 12, f"MISS re-send {now - m} cycles after its MISS"
            assert tmr["kind"] != "inl", "MISS re-send for an inline packet's timer"
            if miss_bound:
                k_other = sum(1 for c in passes[:-1] if c > m)
                assert now - m <= rnd + 11 + 4 * k_other, \
                    f"MISS re-send {now - m} cycles after its MISS ({k_other} re-sends between)"
                if recs[k][4]:
                    stats["miss_alone"] += 1
                    assert now - m <= 28 + 4 * k_other, \
                        f"MISS re-send {now - m} cycles after its MISS, alone ({k_other} " \
                        f"re-sends between)"
            del recs[:k + 1]   # (older ones were overwritten by it in the unit)
            miss_resolve(tid)
            miss_pass[tid] = now
            stats["mretx"] += 1
            stats["mretx_ctl"] += tmr["kind"] == "ctl"
            stats["miss_lat_max"] = max(stats["miss_lat_max"], now - m)
            # the same re-send count and timeout, from now
            where[tid] = dict(tmr, t=now, sent=[], blk_first=False, before=None)
            sent_after(tid)
            return
        miss_resolve(tid)
        # a block re-sent with its control packet does not arm; the control packet does,
        # in the same cycle or before or after it: the block answers the timer before
        with_ctl = kind == "blk" and tmr["kind"] == "ctl"
        base = tmr
        if with_ctl:
            if tmr.get("before") is not None:
                base, tmr["before"] = tmr["before"], None
            else:
                tmr["blk_first"] = True
        age = now - sent_base(base, now, f"{kind} re-send ({tid}, {s})")
        assert age >= span(base["rt"]), f"re-sent {age} cycles after its pulse (re-send {base['rt']}) {kind} {tid} {tmr} {where is ghost} {now}"
        assert base["rt"] < retries, "re-sent more often than RETRY_LIMIT"
        stats["retx"] += 1
        # the first part of a re-send to pass: a block and its control packet re-sent
        # together are one re-send (one stat_retx pulse), whichever passes first
        stats["retx_first"] += int(not (with_ctl and base is not tmr)
                                   and not (kind == "pkt" and tmr["kind"] == "ctl"
                                            and tmr.get("blk_first")))
        # how long after its span the re-send passed: the wait for the scan, for room in
        # the re-send queue (a due timer keeps the scan on it) and for the send unit
        stats["retx_late_max"] = max(stats["retx_late_max"], age - span(base["rt"]))
        assert retx_late_ok is None or age - span(base["rt"]) <= retx_late_ok, \
            f"{kind} re-send ({tid}, {s}) {age - span(base['rt'])} cycles after its span"
        if not with_ctl:
            ctl = kind == "pkt" and tmr["kind"] == "ctl" and not tmr.get("blk_first")
            where[tid] = dict(tmr, t=now, sent=[], rt=tmr["rt"] + 1, blk_first=False,
                              before=dict(tmr) if ctl else None)
        sent_after(tid)

    armed_at_ack = {}

    while True:
        await FallingEdge(dut.clk)   # registered outputs have settled
        now += 1
        producing = made < n_desc
        for kind in ("blk", "pkt"):
            if offer[kind] is None and producing and free and rng.random() < 0.3:
                offer[kind] = make(kind)
            getattr(dut, f"s_{kind}_valid").value = int(offer[kind] is not None)
            if offer[kind] is not None:
                getattr(dut, f"s_{kind}_data").value = offer[kind][0]
        dut.m_blk_ready.value = int(rng.random() < ready_p)
        dut.m_pkt_ready.value = int(rng.random() < ready_p)
        # the acknowledgement tap: a NACK of the unit as the engine takes it, else
        # (sometimes) an acknowledgement from the network, for a timer armed 8 cycles ago
        # or more (a response never comes sooner): matching, or stale
        tap, own = None, False
        if rng.random() < take_p and int(dut.m_nack_valid.value):
            dut.m_nack_ready.value = 1
            tap, own = int(dut.m_nack_data.value), True
        else:
            dut.m_nack_ready.value = 0
            if armed and producing and rng.random() < ack_share:
                # half of them for a timer past its span: its re-send may be on its way
                due = [t for t, m in armed.items() if now - m["t"] >= span(m["rt"])]
                tid = rng.choice(due if due and rng.random() < 0.5 else list(armed))
                s = armed[tid]["seq"]
                if now - armed[tid]["t"] < 8 or tid in ctl_pending or tid in early:
                    pass
                elif rng.random() < stale_p:
                    tap = F.ACK_DESC.pack(tid=tid, seq=(s + rng.randrange(1, 0x10000)) & 0xFFFF)
                else:
                    tap = F.ACK_DESC.pack(tid=tid, seq=s, nack=int(rng.random() < 0.1),
                                          reason=3)
        dut.ack_valid.value = int(tap is not None)
        dut.ack_data.value = tap or 0
        st = sent_at.pop(now, None)
        dut.s_sent_valid.value = int(st is not None)
        dut.s_sent_tid.value = st or 0
        if st is not None:
            sent_pulse(st)
        mi = make_miss() if producing and miss_p and rng.random() < miss_p else None
        dut.s_miss_valid.value = int(mi is not None)
        if mi is not None:
            dut.s_miss_data.value = F.MISS_DESC.pack(tid=mi[0], seq=mi[1], pkt_first=mi[2],
                                                     pkt_num=mi[3])
        await ReadOnly()
        # handshakes at the coming edge
        for kind in ("blk", "pkt"):
            if offer[kind] is not None and int(getattr(dut, f"s_{kind}_ready").value):
                d, tid, s, dst = offer[kind]
                if reachable(dst):
                    out_q[kind].append((d, tid, s))
                else:
                    expect_unr[(tid, s)] = now
                offer[kind] = None
            if int(getattr(dut, f"m_{kind}_valid").value):
                # a re-send carries its resend bit, a descriptor passed on first never
                d = int(getattr(dut, f"m_{kind}_data").value)
                rs = field(layout[kind], d, "resend")
                d = put(layout[kind], d, resend=0)
                original = not rs and bool(out_q[kind]) and d == out_q[kind][0][0]
                assert original or rs, f"{kind}: a re-send without its resend bit"
                if int(getattr(dut, f"m_{kind}_ready").value):
                    if original:
                        _, tid, s = out_q[kind].popleft()
                        tk = "blk" if kind == "blk" else ("ctl" if field(F.PKT_DESC, d, "kind")
                                                          else "inl")
                        if tk == "ctl":
                            # the control packet arms its block's timer again, afresh
                            assert ctl_pending.pop(tid) == s
                        elif tid in early:
                            early.discard(tid)
                            if tid in armed:
                                # its control packet passed on first: the block's arm
                                # restarts the timer, which still covers both
                                assert armed[tid]["kind"] == "ctl" and armed[tid]["seq"] == s
                                tk = "ctl"
                                stats["ctl_first"] += 1
                        else:
                            assert tid not in armed
                        ghost.pop(tid, None)
                        miss_resolve(tid)   # (the timer starts afresh; queued re-sends die)
                        kept[tid][kind] = d
                        armed[tid] = {"seq": s, "t": now, "rt": 0, "kind": tk, "sent": [],
                                      "prev": armed.get(tid)}
                        sent_after(tid)
                    else:
                        resent(kind, d)
                elif not original:
                    tid = field(layout[kind], d, "tid")
                    assert kept[tid].get(kind) in (d, unrun(d) if kind == "blk" else d), \
                        f"{kind}: offered a descriptor never sent"
        # a statistics pulse is registered: its NACK was pushed a cycle earlier
        if int(dut.stat_timeout.value):
            pushes.append(("t", now - 1))
        if int(dut.stat_unreach.value):
            pushes.append(("u", now - 1))
        stats["retx_stat"] += int(dut.stat_retx.value)
        stats["mretx_stat"] += int(dut.stat_miss_retx.value)
        late = [o for o in miss_open if miss_live is not None and now - o[2] > miss_live]
        assert not late, (f"MISS (tid, seq, cycle) {late[0]} not answered by cycle {now}: "
                          f"timer {armed.get(late[0][0])}, records {miss_recs[late[0][0]]}")
        if tap is not None:
            t, s = F.ACK_DESC.unpack(tap)["tid"], F.ACK_DESC.unpack(tap)["seq"]
            if own:
                a = F.ACK_DESC.unpack(tap)
                assert a["nack"] == 1
                kind, pcyc = pushes.popleft()
                if a["reason"] == ERR_UNREACHABLE:
                    assert kind == "u"
                    assert (t, s) in expect_unr, "unreachable NACK for no such descriptor"
                    assert pcyc >= expect_unr.pop((t, s)) + 1
                    stats["unreach"] += 1
                    free.append(t)
                else:
                    assert a["reason"] == ERR_TIMEOUT and kind == "t", f"reason {a['reason']}"
                    if t in armed and armed[t]["seq"] == s:
                        tmr = armed.pop(t)
                        miss_resolve(t)
                        if t not in ctl_pending and t not in early:
                            free.append(t)
                        if tmr["t"] >= now - 3:
                            # armed again (a control packet passed on) since A0's cycle
                            # minus 3: the arm outlives the NACK's clear
                            ghost[t] = tmr
                            stats["ghost"] += 1
                        if tmr["t"] >= pcyc and tmr.get("prev"):
                            # that control packet passed on after the NACK's decision
                            tmr = tmr["prev"]
                            stats["nack_raced_ctl"] += 1
                        age = pcyc - sent_base(tmr, pcyc + 1, f"NACK ({t}, {s})")
                        late = pcyc - tmr["sent"][-1]
                        assert tmr["rt"] == retries, \
                            f"timeout NACK after {tmr['rt']} re-sends, RETRY_LIMIT {retries}"
                        assert age >= span(retries), f"timed out {age} cycles after its pulse"
                        assert late_ok is None or late <= late_ok, \
                            f"timed out {late} cycles after its last pulse"
                        stats["age_min"] = min(stats["age_min"] or age, age)
                        stats["age_max"] = max(stats["age_max"], age)
                    elif t in ghost and ghost[t]["seq"] == s:
                        ghost.pop(t)
                        stats["ghost_nack"] += 1
                    else:
                        # pushed before an acknowledgement that the engine took first (it
                        # waited in the NACK queue): the engine finds it stale
                        assert (t, s) in acked, f"timeout NACK ({t}, {s}) for nothing sent"
                        passed, acyc = acked[(t, s)]
                        assert pcyc < acyc, "timeout NACK pushed after the acknowledgement"
                        stats["raced"] += 1
                    stats["timeout"] += 1
            elif t in armed and armed[t]["seq"] == s:
                tmr = armed.pop(t)
                miss_resolve(t)
                acked[(t, s)] = (tmr["t"], now)
                armed_at_ack[(t, s)] = tmr
                if tmr["t"] == now:   # re-armed by a re-send in this very cycle
                    ghost[t] = tmr
                    stats["ghost"] += 1
                free.append(t)   # (never a tid with a control packet pending: not acked)
                stats["acked"] += 1
            else:
                stats["stale"] += 1
        if not producing and quiet_after is None and not any(offer.values()):
            quiet_after = now
        total = sum(span(r) for r in range(retries + 1)) + (retries + 1) * slack
        settle = total + 200 + (retries + 1) * sent_long + (8 * 1024 if rounds is None else 0)
        if (quiet_after is not None and not pushes and not int(dut.m_nack_valid.value)
                and (now > quiet_after + settle or (timeout and not armed and not ghost))):
            break
        assert now < 200 * n_desc + 10 * total + (retries + 1) * sent_long, "test did not finish"

    if timeout:
        assert not armed, f"{len(armed)} descriptors never timed out: {armed} now {now} quiet {quiet_after}"
        assert stats["timeout"] > 0
    else:
        assert stats["timeout"] == 0 and len(armed) > 0
    assert not expect_unr and not out_q["blk"] and not out_q["pkt"]
    assert stats["acked"] > 0
    assert (stats["unreach"] > 0) == (unreach_p > 0) and (stats["stale"] > 0) == (stale_p > 0)
    assert (stats["retx"] > 0) == (retries > 0 and timeout > 0)
    assert (stats["ctl_first"] > 0) == (ctl_p > 0)
    # one statistics pulse per re-send: a control re-sent with its block counts once
    assert stats["retx_stat"] == stats["retx_first"], (stats["retx_stat"], stats["retx_first"])
    assert (stats["retx_stat"] > 0) == (stats["retx"] > 0)
    # MISS re-sends: one stat_miss_retx each, none without MISS reports
    assert stats["mretx_stat"] == stats["mretx"]
    assert (stats["mretx"] > 0) == (miss_p > 0), "no MISS re-send"
    assert not miss_bound or stats["miss_alone"] > 0, "no MISS re-send alone"
    assert (stats["probe"] > 0) == bool(probe and retries and timeout), "probes"
    assert not miss_open, f"MISS reports never answered: {miss_open[:5]}"
    if miss_p:
        assert all(stats[k] > 0 for k in ("miss_match", "miss_stale", "miss_unarmed")), stats
        assert stats["mretx_ctl"] > 0 or not ctl_p, "no MISS re-send for a notifying block"
    dut._log.info(f"{name}: {dict(stats)}")


@cocotb.test()
async def rel_timers(dut):
    await run_timers(dut, int(os.environ["P_TIMEOUT"]), 3000, 0.05, "rel_timers", rounds=None)


@cocotb.test()
async def rel_bound(dut):
    """NACKs always taken, no stale acknowledgement, no unreachable destination: every
    timeout within the bound of the register's description."""
    await run_timers(dut, int(os.environ["P_TIMEOUT"]), 2000, 0.05, "rel_bound", take_p=1.0,
                     stale_p=0.0, unreach_p=0.0)


@cocotb.test()
async def rel_off(dut):
    await run_timers(dut, 0, 600, 0.05, "rel_off")


@cocotb.test()
async def rel_retx(dut):
    """Three re-sends with the timeout doubling twice, then NACK: every re-send is the kept
    descriptor, after its timer's span, never two cycles after its acknowledgement.
    Re-sends come faster than the send unit takes them (ready 30 %): every one passes
    within 16,384 cycles after its span (a due timer that finds the re-send queue full
    holds the scan; one passed over round after round for 32,768 cycles would stop being
    due with 12-bit deadlines of 16-cycle ticks)."""
    await run_timers(dut, int(os.environ["P_TIMEOUT"]),
                     LONG_N["rel_retx"] * LONG_SCALE, 0.03, "rel_retx", rounds=None,
                     retries=3, backoff=2, seq0=0x8000, ctl_p=0.3, ready_p=0.3,
                     retx_late_ok=16384)


@cocotb.test()
async def rel_miss(dut):
    """MISS reports of every kind beside timeouts (3 re-sends, backoff 2, cfg_probe),
    control packets, ready at 30 %: MISS re-sends are the kept block with the MISS's run,
    do not count toward RETRY_LIMIT, never pass two cycles after their acknowledgement; a
    block's timeout re-send is its last packet."""
    await run_timers(dut, int(os.environ["P_TIMEOUT"]),
                     LONG_N["rel_miss"] * LONG_SCALE, 0.03, "rel_miss", rounds=None,
                     retries=3, backoff=2, seq0=0x4000, ctl_p=0.3, ready_p=0.3, miss_p=0.05,
                     probe=1)


@cocotb.test()
async def rel_miss_gbn(dut):
    """As rel_miss with cfg_gbn 1: every MISS re-send runs to the block's end (pkt_num 0)."""
    await run_timers(dut, int(os.environ["P_TIMEOUT"]),
                     LONG_N["rel_miss_gbn"] * LONG_SCALE, 0.03, "rel_miss_gbn",
                     rounds=None, retries=3, backoff=1, seq0=0xA000, ctl_p=0.2, ready_p=0.6,
                     miss_p=0.05, gbn=1)


@cocotb.test()
async def rel_miss_bound(dut):
    """Timers off, no backpressure, no stale acknowledgement: every MISS re-send within its
    bound (module docstring)."""
    await run_timers(dut, 0, 1500, 0.05, "rel_miss_bound", take_p=1.0, stale_p=0.0,
                     unreach_p=0.1, seq0=0xC000, ready_p=1.0, miss_p=0.02, miss_bound=True,
                     miss_live=2 * scan_round())


async def offer(dut, stream: str, word: int):
    """Offers word on s_<stream> until the unit takes it (its ready is a register)."""
    await FallingEdge(dut.clk)
    getattr(dut, f"s_{stream}_data").value = word
    getattr(dut, f"s_{stream}_valid").value = 1
    while True:
        rdy = int(getattr(dut, f"s_{stream}_ready").value)
        await FallingEdge(dut.clk)
        if rdy:
            break
    getattr(dut, f"s_{stream}_valid").value = 0


async def pulse_ack(dut, tid: int, seq: int):
    await FallingEdge(dut.clk)
    dut.ack_data.value = F.ACK_DESC.pack(tid=tid, seq=seq)
    dut.ack_valid.value = 1
    await FallingEdge(dut.clk)
    dut.ack_valid.value = 0


class KeptHarness:
    """the unit with every output ready: what passes on is recorded, the send unit's
    pulse for each comes 8 cycles later"""

    def __init__(self, dut):
        self.dut = dut
        self.timeout = int(os.environ["P_TIMEOUT"])
        self.slack = 2 * (1 << int(os.environ["P_TICK_SHIFT"])) + scan_round() + 6
        self.seen = []   # (stream, word) passed on
        self.nacks = []  # NACK words on m_nack
        dut.rst.value = 1
        cocotb.start_soon(Clock(dut.clk, 2, "ns").start())
        dut.node_id.value = NODE_ID
        dut.cfg_node_mask.value = NODE_MASK
        dut.cfg_timeout.value = self.timeout
        dut.cfg_retry_limit.value = 1
        dut.cfg_backoff.value = 0
        dut.cfg_gbn.value = 0
        dut.cfg_probe.value = 0
        for sig in ("s_blk_valid", "s_pkt_valid", "ack_valid", "s_miss_valid", "s_sent_valid"):
            getattr(dut, sig).value = 0
        dut.m_blk_ready.value = 1
        dut.m_pkt_ready.value = 1
        dut.m_nack_ready.value = 1
        cocotb.start_soon(self.watch())

    async def watch(self):
        dut = self.dut
        pulses = collections.deque()
        n = 0
        while True:
            await FallingEdge(dut.clk)
            n += 1
            go = bool(pulses) and pulses[0][0] == n
            dut.s_sent_valid.value = int(go)
            if go:
                dut.s_sent_tid.value = pulses.popleft()[1]
            if int(dut.m_nack_valid.value):
                self.nacks.append(int(dut.m_nack_data.value))
            for st in ("blk", "pkt"):
                if int(getattr(dut, f"m_{st}_valid").value):
                    w = int(getattr(dut, f"m_{st}_data").value)
                    self.seen.append((st, w))
                    layout = F.BLOCK_DESC if st == "blk" else F.PKT_DESC
                    # (the send unit starts no timer for a REGISTER packet)
                    if not (st == "pkt" and field(F.PKT_DESC, w, "announce")):
                        pulses.append((n + 8 + len(pulses), field(layout, w, "tid")))

    async def reset(self):
        await FallingEdge(self.dut.clk)
        self.dut.rst.value = 1
        for _ in range(5):
            await FallingEdge(self.dut.clk)
        self.dut.rst.value = 0

    async def cycles(self, n):
        for _ in range(n):
            await FallingEdge(self.dut.clk)

    async def send(self, stream, word):
        """word offered and passed on (after the 1024 cycles of the sweep after reset)"""
        n = len(self.seen)
        await offer(self.dut, stream, word)
        for _ in range(2000):
            if len(self.seen) > n:
                break
            await FallingEdge(self.dut.clk)
        assert self.seen[n:] == [(stream, word)], self.show(self.seen[n:])

    async def send_acked(self, stream, word):
        """word passed on and acknowledged a round trip later"""
        await self.send(stream, word)
        layout = F.BLOCK_DESC if stream == "blk" else F.PKT_DESC
        await self.cycles(16)
        await pulse_ack(self.dut, field(layout, word, "tid"), field(layout, word, "seq"))

    async def resent_after(self, n):
        """what passes on from the n-th record on until its first timeout's re-sends
        have passed"""
        for _ in range(self.timeout + self.slack + 64):
            await FallingEdge(self.dut.clk)
            if any(field(F.BLOCK_DESC if st == "blk" else F.PKT_DESC, w, "resend")
                   for st, w in self.seen[n:]):
                break
        await self.cycles(64)   # (a control packet would follow its block within a few cycles)
        return self.seen[n:]

    @staticmethod
    def show(recs):
        return [(st, F.PKT_DESC.unpack(w) if st == "pkt" else F.BLOCK_DESC.unpack(w))
                for st, w in recs]


@cocotb.test()
async def rel_reset(dut):
    """The kept descriptors do not outlive a reset: a control packet (tid T, seq S) passed
    on and acknowledged, reset (the engine's seq numbers start again), then a block (T, S)
    that times out: its re-send is the block alone, never the control packet kept from
    before the reset (whose seq matches the new timer's)."""
    await kept_block_alone(dut, reset_between=True)


@cocotb.test()
async def rel_seq_wrap(dut):
    """A kept control packet does not outlive its TID's use: a control packet (tid T, seq
    S) passed on and acknowledged, then, as 65,536 seqs later, a block (T, S) that times
    out: its re-send is the block alone, never the control packet of the earlier use."""
    await kept_block_alone(dut, reset_between=False)


async def kept_block_alone(dut, reset_between):
    """a control packet (T, S) passed on and acknowledged; reset when reset_between; a
    block (T, S) passed on that times out: its re-send is the block alone"""
    h = KeptHarness(dut)
    tid, seq = 77, 5
    await h.reset()
    await h.send_acked("pkt", F.PKT_DESC.pack(tid=tid, seq=seq, dst_node=1, kind=1))
    if reset_between:
        await h.reset()
    n = len(h.seen)
    blk = F.BLOCK_DESC.pack(tid=tid, seq=seq, dst_node=1, size=4096)
    await h.send("blk", blk)
    got = await h.resent_after(n)
    assert got == [("blk", blk), ("blk", put(F.BLOCK_DESC, blk, resend=1))], h.show(got)
    await pulse_ack(dut, tid, seq)


@cocotb.test()
async def rel_ctl_ahead(dut):
    """A control packet that passes on before its block covers itself alone: a block
    (T, S) passed on and acknowledged, a block (T2, S - 1) (the engine's seq wrapped
    round since), then the control packet (T, S) of a new block (T, S) that has not
    passed on yet times out: its re-send is the control packet alone, never the block
    kept from the earlier use (whose seq matches); the block, passed on after it, then
    covers both."""
    h = KeptHarness(dut)
    tid, seq = 77, 5
    await h.reset()
    old = F.BLOCK_DESC.pack(tid=tid, seq=seq, dst_node=1, size=100, dst_addr=0x1000)
    await h.send_acked("blk", old)
    await h.send_acked("blk", F.BLOCK_DESC.pack(tid=78, seq=seq - 1, dst_node=1, size=64))
    n = len(h.seen)
    ctl = F.PKT_DESC.pack(tid=tid, seq=seq, dst_node=1, kind=1)
    await h.send("pkt", ctl)
    got = await h.resent_after(n)
    assert got == [("pkt", ctl), ("pkt", put(F.PKT_DESC, ctl, resend=1))], h.show(got)
    n = len(h.seen)
    new = F.BLOCK_DESC.pack(tid=tid, seq=seq, dst_node=1, size=200, dst_addr=0x2000)
    await h.send("blk", new)
    got = await h.resent_after(n)
    assert got == [("blk", new), ("blk", put(F.BLOCK_DESC, new, resend=1)),
                   ("pkt", put(F.PKT_DESC, ctl, resend=1))], h.show(got)
    await pulse_ack(dut, tid, seq)


@cocotb.test()
async def rel_register(dut):
    """A REGISTER packet (a control packet with announce, docs/registration.md) passes on
    as it is, neither kept nor timed: a registered block (T, S) and its REGISTER (T, S)
    passed on, the block times out: its re-send is the block alone, and its NACK the only
    one. A REGISTER for a node that is not reachable is dropped, without a NACK."""
    h = KeptHarness(dut)
    tid, seq = 77, 5
    await h.reset()
    n = len(h.seen)
    blk = F.BLOCK_DESC.pack(tid=tid, seq=seq, dst_node=1, size=4096, registered=1, xseq=seq)
    reg = F.PKT_DESC.pack(tid=tid, seq=seq, dst_node=1, kind=1, registered=1, announce=1,
                          xseq=seq, blocks=3, size=9000)
    await h.send("blk", blk)
    await h.send("pkt", reg)
    got = await h.resent_after(n)
    assert got == [("blk", blk), ("pkt", reg), ("blk", put(F.BLOCK_DESC, blk, resend=1))], \
        h.show(got)
    for _ in range(h.timeout + h.slack + 64):   # the re-send's timeout: NACK (retry limit 1)
        if h.nacks:
            break
        await h.cycles(1)
    assert [(field(F.ACK_DESC, w, "tid"), field(F.ACK_DESC, w, "seq")) for w in h.nacks] \
        == [(tid, seq)], h.nacks
    await pulse_ack(dut, tid, seq)   # (the engine takes the NACK: the timer disarms)
    n, k = len(h.seen), len(h.nacks)
    await offer(dut, "pkt", put(F.PKT_DESC, reg, dst_node=NODE_ID, tid=9, seq=6))
    await h.cycles(64)
    assert h.seen[n:] == [] and h.nacks[k:] == [], (h.show(h.seen[n:]), h.nacks[k:])


@pytest.mark.parametrize("params", [
    {"TICK_SHIFT": 8, "DEADLINE_W": 16, "MV_GAP": 4, "TIMEOUT": 2000},
    {"TICK_SHIFT": 4, "DEADLINE_W": 12, "MV_GAP": 2, "TIMEOUT": 900},
])
def test_qrdma_tx_rel(params):
    from simrun import run

    p = {k: v for k, v in params.items() if k != "TIMEOUT"}
    run("qrdma_tx_rel", "test_qrdma_tx_rel", p,
        extra_env={f"P_{k}": str(v) for k, v in params.items()})
