# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_credit_tx and qrdma_credit_rx, a credit class's two ends, against a model of the
link between them (tb_qrdma_credit).

The sender starts packets of 1..MAX_PKT beats whenever its ok allows (random idle); each
arrives in the receiver's buffer a random 2..12 cycles later and is freed from it in
order at a random rate (phases of a stalled and of a fast drain). The receiver's credit
updates cross a channel that loses some, delays each by a random 1..40 cycles (so they
are reordered) and stalls at random. Checked, cycle by cycle:
  * the buffer never holds more than CREDITS beats (no packet is ever started without
    room for it downstream), with CNT_W 9 and 10 so the modulo counters wrap many times;
  * every update the sender refuses is one older than an update it took before
    (stat_refused against the model, which replays the updates in the order they reach
    the sender);
  * the sender's credits never exceed CREDITS minus the beats it has in flight or in the
    buffer (by the model: the packets started and not yet freed);
  * every packet is delivered (no deadlock under loss: the receiver's refresh repairs a
    lost update);
  * at the end, with the buffer empty, credits return to CREDITS exactly (no leak) and
    ok is high.
credit_sync: the data path loses packets (20 %) and now and then delivers one its sender
never sent (a copy), and carries the sender's sync beats (its `sent` count) in order
with the packets; the updates arrive as they are offered. At the end every credit is
back (the syncs counted the lost beats as freed and took the copies' back), a sync too
far from the arrivals is refused (stat_sync_bad, once per such sync, and nothing
changes), and the receiver's count equals the beats sent.
Replay: QRDMA_SEED=<seed printed at the start of a test>."""
import collections
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

from seeding import seed_rng


@cocotb.test()
async def credit_random(dut):
    credits = int(os.environ["P_CREDITS"])
    max_pkt = int(os.environ["P_MAX_PKT"])
    cnt_w = int(os.environ["P_CNT_W"])
    refresh = int(os.environ["P_REFRESH"])
    drop_p = float(os.environ["P_DROP"])
    mod = 1 << cnt_w
    rng = seed_rng("credit_random")
    cocotb.start_soon(Clock(dut.clk, 2, "ns").start())
    dut.rst.value = 1
    dut.cfg_credits.value = credits
    for sig in ("s_send", "s_upd_valid", "r_free", "m_upd_ready"):
        getattr(dut, sig).value = 0
    dut.s_beats.value = 1
    dut.r_beats.value = 1
    dut.s_upd_count.value = 0
    for _ in range(4):
        await RisingEdge(dut.clk)
    await FallingEdge(dut.clk)
    dut.rst.value = 0

    n_pkts = 3000
    started = 0
    wire = collections.deque()     # (arrival cycle, beats) on the link
    buf = collections.deque()      # beats of the packets in the receiver's buffer
    occ = 0                        # beats in the buffer
    held = 0                       # beats started and not yet freed
    freed_true = 0                 # beats freed since the start (not modulo)
    delivered = 0
    chan = []                      # (arrival cycle, seq, true count) of updates in flight
    arrived = collections.deque()  # updates at the sender, in arrival order
    offer = None                   # the update offered to the sender
    vr_model = 0                   # the newest true count the sender took
    refused_model = 0
    refused = 0
    dropped = 0
    peak = 0
    send_p, drain_p = 0.8, 0.5
    now = 0
    seq = 0

    def true_count(cnt):
        """the receiver's count cnt (modulo 2^CNT_W, at most a few cycles old) as the
        true number of beats freed"""
        return freed_true - ((freed_true - cnt) % mod)

    def drive_offer():
        dut.s_upd_valid.value = int(offer is not None)
        if offer is not None:
            dut.s_upd_count.value = offer % mod

    def settle_offer():
        """after ReadOnly: an offered update is taken at the next rising edge, and the
        sender refuses it when it is older than one it took before"""
        nonlocal offer, vr_model, refused_model, refused
        if offer is not None and int(dut.s_upd_ready.value):
            if offer < vr_model:
                refused_model += 1
            else:
                vr_model = offer
            offer = None
        refused += int(dut.stat_refused.value)

    while delivered < n_pkts:
        await FallingEdge(dut.clk)
        now += 1
        if now % 4000 == 1000:
            drain_p = 0.05          # the buffer fills: the sender must stop
        elif now % 4000 == 2000:
            drain_p = 1.0
        elif now % 4000 == 3000:
            drain_p = 0.5
        # -- this cycle's inputs (driven after the falling edge, sampled at the next rise)
        ok = int(dut.ok.value)
        send = ok and started < n_pkts and rng.random() < send_p
        if send:
            beats = rng.randint(1, max_pkt)
            wire.append((now + rng.randint(2, 12), beats))
            started += 1
            held += beats
        dut.s_send.value = int(send)
        dut.s_beats.value = beats if send else 1
        free = bool(buf) and rng.random() < drain_p
        if free:
            b = buf.popleft()
            occ -= b
            held -= b
            freed_true += b
            delivered += 1
        dut.r_free.value = int(free)
        dut.r_beats.value = b if free else 1
        # the receiver's offer, taken by the channel at random
        take_upd = int(dut.m_upd_valid.value) and rng.random() < 0.7
        dut.m_upd_ready.value = int(take_upd)
        if take_upd:
            true = true_count(int(dut.m_upd_count.value))
            if rng.random() < drop_p:
                dropped += 1
            else:
                chan.append((now + rng.randint(1, 40), seq, true))
                seq += 1
        for u in sorted(c for c in chan if c[0] <= now):
            chan.remove(u)
            arrived.append(u[2])
        # the sender takes the offered update when ready (a stall of the channel at random)
        if offer is None and arrived and rng.random() < 0.8:
            offer = arrived.popleft()
        drive_offer()
        await ReadOnly()
        settle_offer()
        # -- checks on this cycle's state
        cr = int(dut.credits.value)
        # (the sender's room counts the packets started before this cycle; a freed beat
        # counts for it only once an update says so)
        inflight = held - (beats if send else 0)
        assert cr <= credits - inflight, \
            f"cycle {now}: credits {cr} with {inflight} beats held of {credits}"
        # packets reaching the buffer at the end of this cycle
        while wire and wire[0][0] <= now:
            _, b = wire.popleft()
            buf.append(b)
            occ += b
        peak = max(peak, occ)
        assert occ <= credits, f"cycle {now}: the buffer holds {occ} beats of {credits}"
        assert now < 200 * n_pkts, "no progress"
    # drain the updates: the refresh brings the last count to the sender
    for _ in range(refresh * 4 + 200):
        await FallingEdge(dut.clk)
        dut.s_send.value = 0
        dut.r_free.value = 0
        take_upd = int(dut.m_upd_valid.value)
        dut.m_upd_ready.value = take_upd
        if offer is None and take_upd:
            offer = true_count(int(dut.m_upd_count.value))
        drive_offer()
        await ReadOnly()
        settle_offer()
    await FallingEdge(dut.clk)
    dut.s_upd_valid.value = 0
    for _ in range(8):
        await RisingEdge(dut.clk)
    await ReadOnly()
    assert held == 0 and occ == 0
    assert int(dut.credits.value) == credits, \
        f"credits {int(dut.credits.value)} at the end, not {credits}: leaked"
    assert int(dut.ok.value) == 1
    assert refused == refused_model, f"refused {refused}, model {refused_model}"
    dut._log.info("packets %d, peak buffer %d of %d beats, updates dropped %d, refused %d",
                  n_pkts, peak, credits, dropped, refused)
    assert peak > credits - max_pkt, f"the buffer never filled (peak {peak})"
    if drop_p > 0:
        assert dropped > 0 and refused > 0, "no lost or reordered update"


@cocotb.test()
async def credit_sync(dut):
    credits = int(os.environ["P_CREDITS"])
    max_pkt = int(os.environ["P_MAX_PKT"])
    cnt_w = int(os.environ["P_CNT_W"])
    refresh = int(os.environ["P_REFRESH"])
    sync_w = int(os.environ["P_SYNC_W"])
    mod = 1 << cnt_w
    rng = seed_rng("credit_sync")
    cocotb.start_soon(Clock(dut.clk, 2, "ns").start())
    dut.rst.value = 1
    dut.cfg_credits.value = credits
    for sig in ("s_send", "s_upd_valid", "r_free", "m_upd_ready", "r_arr", "r_sync"):
        getattr(dut, sig).value = 0
    for sig in ("s_beats", "r_beats", "r_arr_beats"):
        getattr(dut, sig).value = 1
    dut.s_upd_count.value = 0
    dut.r_sync_count.value = 0
    for _ in range(3):
        await RisingEdge(dut.clk)
    await FallingEdge(dut.clk)
    dut.rst.value = 0
    wire = collections.deque()   # ("pkt", beats) / ("sync", count) / ("bogus", count)
    buf = collections.deque()    # beats of the packets in the receiver's buffer
    sent = lost = copies = bogus = bad = syncs = 0
    va = 0                       # the receiver's arrivals, as it counts them
    upd = None
    for now in range(6000):
        await FallingEdge(dut.clk)
        ending = now >= 5000
        draining = now >= 5900       # nothing new on the wire: it empties before the end
        bad += int(dut.stat_sync_bad.value)
        # the sender: a sync beat now and then (its count: packets started before this
        # cycle), then perhaps a packet; the link loses some, and once in a while delivers
        # a copy its sender never charged
        if (rng.random() < 0.03 and not draining) or (ending and now % 500 == 0):
            wire.append(("sync", int(dut.sent.value)))
        if not ending and rng.random() < 0.005:
            wire.append(("bogus", 0))
        send = not ending and int(dut.ok.value) and rng.random() < 0.5
        dut.s_send.value = int(send)
        if send:
            b = rng.randrange(1, max_pkt + 1)
            dut.s_beats.value = b
            sent += b
            if rng.random() < 0.2:
                lost += 1
            else:
                wire.append(("pkt", b))
            if not ending and rng.random() < 0.02:
                wire.append(("pkt", rng.randrange(1, max_pkt + 1)))
                copies += 1
        # the receiver: one arrival or sync per cycle, in the link's order
        dut.r_arr.value = dut.r_sync.value = 0
        if wire and rng.random() < 0.7:
            kind, v = wire.popleft()
            if kind == "pkt":
                dut.r_arr.value, dut.r_arr_beats.value = 1, v
                buf.append(v)
                va += v
            else:
                if kind == "bogus":      # just beyond the range, above the arrivals
                    v = va + (1 << sync_w) + 1 + rng.randrange(8)
                    bogus += 1
                else:
                    va = v
                    syncs += 1
                dut.r_sync.value, dut.r_sync_count.value = 1, v % mod
        free = bool(buf) and rng.random() < 0.4
        dut.r_free.value = int(free)
        dut.r_beats.value = buf.popleft() if free else 1
        # updates: taken as offered, passed on when the sender is ready
        dut.m_upd_ready.value = int(upd is None)
        if upd is None and int(dut.m_upd_valid.value):
            upd = int(dut.m_upd_count.value)
        dut.s_upd_valid.value = int(upd is not None)
        if upd is not None:
            dut.s_upd_count.value = upd
            await ReadOnly()
            if int(dut.s_upd_ready.value):
                upd = None
        assert int(dut.credits.value) <= credits
    await FallingEdge(dut.clk)
    for sig in ("s_send", "r_arr", "r_sync", "r_free", "s_upd_valid"):
        getattr(dut, sig).value = 0
    for _ in range(4):
        await FallingEdge(dut.clk)
        bad += int(dut.stat_sync_bad.value)
    assert not wire and not buf
    assert bad == bogus and bogus > 0, f"{bad} syncs refused, {bogus} out of range sent"
    assert lost > 0 and copies > 0 and syncs > 10
    assert int(dut.count.value) == sent % mod, \
        f"receiver's count {int(dut.count.value)}, beats sent {sent % mod}"
    assert int(dut.credits.value) == credits, \
        f"credits {int(dut.credits.value)} at the end, not {credits}"
    dut._log.info("beats sent %d, packets lost %d, copies %d, syncs %d, refused %d",
                  sent, lost, copies, syncs, bad)


@pytest.mark.parametrize("params", [
    {"CNT_W": 9, "MAX_PKT": 17, "UPD_MIN": 1, "REFRESH": 64, "SYNC_W": 7, "CREDITS": 40,
     "DROP": 0.3},
    {"CNT_W": 10, "MAX_PKT": 5, "UPD_MIN": 4, "REFRESH": 16, "SYNC_W": 8, "CREDITS": 120,
     "DROP": 0.0},
])
def test_qrdma_credit(params):
    from simrun import run

    p = {k: v for k, v in params.items() if k not in ("CREDITS", "DROP")}
    run("tb_qrdma_credit", "test_qrdma_credit", p,
        extra_env={f"P_{k}": str(v) for k, v in params.items()})
