# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_rx_track, the receive unit's block tracker (docs/nic.md "Receive unit"), against
the reference model tests/model/rx_track_model.py.

The bench drives the lookups as the tracker takes them (the key with s_valid, the
request and payload in the next cycle; random idle cycles), and takes each decision in
the cycle m_valid is high (the tracker never stops). The model decides every lookup of
the sequence in order; the bench checks each output (the lookup and payload passed
through, every decision bit), that it comes exactly four cycles after its key, every
MISS answer (key, seq, first missing packet, run length) exactly TRK_MISS_LAT cycles
after its decision, and, at the end, that every lookup came out once and no other MISS
answer came.

  trk_random    random traffic over a few keys: blocks of 1..MAX_BLK_PKTS packets in any
                order, with duplicates, CONTROL before / during / after / twice, blocks of
                notifying transfers (their event waits for the CONTROL), INLINE with and
                without notify, blocks abandoned for a newer seq, older seqs (stale), a
                done entry reused by any seq, pass-through lookups (TRK_NONE); DATA
                packets with the ask bit (a fifth of them), so MISS answers come for
                random masks, also of blocks of one and of MAX_BLK_PKTS packets
  trk_miss      MISS answers back to back for one key and for alternating keys: the
                run at the block's start, middle and end, a one-packet run, the
                longest run (MAX_BLK_PKTS - 1), none once the block is complete (also
                while it waits for its CONTROL), none for a stale packet
  trk_rate      back-to-back lookups of one key and of alternating keys, no idle: one
                decision per cycle (the forwarding of same-key writes), and nothing taken
                during the table sweep after reset

Replay: QRDMA_SEED=<seed printed at the start of a test>. Size: P_N lookups (trk_random).
"""
from __future__ import annotations

import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

from seeding import seed_rng
from model.rx_track_model import CONTROL, DATA, DECISION, INLINE, TrackModel

NENT = int(os.environ.get("P_NENT", "16"))
MAX_BLK_PKTS = int(os.environ.get("P_MAX_BLK_PKTS", "8"))
PAY_W = int(os.environ.get("P_PAY_W", "16"))
LATENCY = 4                   # cycles from a lookup's key to its decision
MISS_LAT = 5                  # cycles from a decision to its MISS answer (TRK_MISS_LAT)

OPS = {None: 0, DATA: 1, INLINE: 2, CONTROL: 3}
# trk_req_t, MSB first: op[1:0], key[15:0], seq[15:0], idx[8:0], bp[8:0], notify, ask
# (INLINE: idx 0, bp 1)
# trk_dec_t, MSB first: the names of DECISION
KEY_LSB = 36


def pack_req(op, key, seq, idx=0, bp=0, notify=0, ask=0) -> int:
    return ((OPS[op] << 52) | (key << KEY_LSB) | (seq << 20) | (idx << 11) | (bp << 2)
            | (int(notify) << 1) | int(ask))


def unpack_dec(v: int) -> dict:
    return {name: bool((v >> (len(DECISION) - 1 - i)) & 1) for i, name in enumerate(DECISION)}


def random_lookups(rng, n: int) -> list[tuple]:
    """(op, key, seq, idx, bp, notify, ask) tuples; keys from a few entries of the
    table."""
    keys = rng.sample(range(NENT), min(NENT, 5))
    blk = {}             # key -> [seq, bp, remaining idx list, notify, control sent]
    seq = {k: rng.randrange(65536) for k in keys}
    out = []
    while len(out) < n:
        k = rng.choice(keys)
        r = rng.random()
        ask = int(rng.random() < 0.2)
        if r < 0.05:
            out.append((None, k, rng.randrange(65536), 0, 0, 0, 0))
            continue
        if r < 0.15:                              # an INLINE (a new block of this key)
            seq[k] = (seq[k] + 1) % 65536
            blk.pop(k, None)
            out.append((INLINE, k, seq[k], 0, 1, rng.random() < 0.5, 0))
            continue
        if k not in blk or r < 0.2:               # a new block (abandons the old one)
            seq[k] = (seq[k] + rng.choice((1, 1, 2, 40000))) % 65536
            bp = rng.choice((1, MAX_BLK_PKTS, rng.randint(1, MAX_BLK_PKTS)))
            idxs = list(range(bp))
            rng.shuffle(idxs)
            blk[k] = [seq[k], bp, idxs, rng.random() < 0.4, False]
            if blk[k][3] and rng.random() < 0.3:  # CONTROL first
                out.append((CONTROL, k, seq[k], 0, 0, 0, 0))
                blk[k][4] = True
            continue
        s, bp, idxs, notify, ctl = blk[k]
        if r < 0.25:                              # a duplicate or a stale packet
            old = rng.random() < 0.5
            out.append((DATA, k, (s - rng.randint(1, 30)) % 65536 if old else s,
                        rng.randrange(bp), bp, notify, ask))
            continue
        if r < 0.3 and notify:                    # the CONTROL (again, maybe)
            out.append((CONTROL, k, s, 0, 0, 0, 0))
            blk[k][4] = True
            continue
        if idxs:
            out.append((DATA, k, s, idxs.pop(), bp, notify, ask))
        if not idxs:
            if notify and not ctl:
                out.append((CONTROL, k, s, 0, 0, 0, 0))
            del blk[k]
    return out


class TB:
    def __init__(self, dut, name: str, idle: float):
        self.dut = dut
        self.rng = seed_rng(name)
        self.idle = idle
        self.cycle = 0
        self.takes: list[int] = []         # cycle of each lookup's key
        self.out: list[tuple] = []         # (cycle, req, dec, pay) of each decision
        self.misses: list[tuple] = []      # (cycle, key, seq, first, cnt) of each MISS
        cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
        for sig in (dut.s_valid, dut.s_key, dut.s_req, dut.s_pay):
            sig.value = 0

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        cocotb.start_soon(self._monitor())

    async def _monitor(self):
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            await ReadOnly()
            self.cycle += 1
            if int(d.s_valid.value) and int(d.s_ready.value):
                self.takes.append(self.cycle)
            if int(d.m_valid.value):
                self.out.append((self.cycle, int(d.m_req.value), int(d.m_dec.value),
                                 int(d.m_pay.value)))
            if int(d.m_miss_valid.value):
                self.misses.append((self.cycle, int(d.m_miss_key.value),
                                    int(d.m_miss_seq.value), int(d.m_miss_first.value),
                                    int(d.m_miss_cnt.value)))

    async def _drive(self, exp: list[tuple]):
        """The key of lookup i with s_valid until it is taken, its request and payload in
        the next cycle."""
        d = self.dut
        prev = None                        # (req, pay) of the lookup taken last cycle
        i = 0
        while i < len(exp) or prev is not None:
            req, pay = prev if prev is not None else (0, 0)
            d.s_req.value = req
            d.s_pay.value = pay
            prev = None
            go = i < len(exp) and not (self.idle and self.rng.random() < self.idle)
            d.s_valid.value = int(go)
            if go:
                d.s_key.value = (exp[i][0] >> KEY_LSB) & 0xFFFF
            await ReadOnly()
            taken = go and int(d.s_ready.value)
            await RisingEdge(d.clk)
            if taken:
                prev = exp[i][:2]
                i += 1
        d.s_valid.value = 0

    async def run(self, lookups: list[tuple]) -> list:
        """Sends the lookups, checks every decision against the model."""
        model = TrackModel()
        exp, runs = [], []
        lookups = [tuple(x) + (0,) * (7 - len(x)) for x in lookups]   # ask 0 if not given
        for i, (op, k, s, idx, bp, ntf, ask) in enumerate(lookups):
            dd = (model.lookup(op, k, s, idx, bp, ntf, ask) if op
                  else dict.fromkeys(DECISION, False))
            exp.append((pack_req(op, k, s, idx, bp, ntf, ask), i % (1 << PAY_W), dd))
            runs.append(model.last_miss if op else None)
        n0, t0, m0 = len(self.out), len(self.takes), len(self.misses)
        await self._drive(exp)
        await ClockCycles(self.dut.clk, LATENCY + MISS_LAT + 20)
        got = self.out[n0:]
        assert len(got) == len(exp), f"{len(got)} decisions for {len(exp)} lookups"
        misses = self.misses[m0:]
        mi = 0
        for i, ((cyc, req, dec, pay), (ereq, epay, ed)) in enumerate(zip(got, exp)):
            assert req == ereq and pay == epay, \
                f"lookup {i}: req/payload {req:#x}/{pay} expected {ereq:#x}/{epay}"
            gd = unpack_dec(dec)
            assert gd == ed, f"lookup {i} {lookups[i]}: decision {gd}, expected {ed}"
            assert cyc == self.takes[t0 + i] + LATENCY, \
                f"lookup {i}: decision in cycle {cyc}, key in {self.takes[t0 + i]}"
            if ed["miss"]:
                op, k, s = lookups[i][:3]
                want = (cyc + MISS_LAT, k, s) + runs[i]
                assert mi < len(misses) and misses[mi] == want, \
                    f"lookup {i} {lookups[i]}: MISS {misses[mi:mi + 1]}, expected {want}"
                mi += 1
        assert mi == len(misses), f"MISS answers not decided: {misses[mi:mi + 3]}"
        self.nmiss = getattr(self, "nmiss", 0) + mi
        return got


@cocotb.test()
async def trk_random(dut):
    tb = TB(dut, "trk_random", idle=0.3)
    await tb.reset()
    lk = random_lookups(tb.rng, int(os.environ.get("P_N", "3000")))
    await tb.run(lk)
    ops = [x[0] for x in lk]
    assert ops.count(CONTROL) and ops.count(INLINE) and ops.count(DATA) and ops.count(None)
    assert tb.nmiss > 0 or MAX_BLK_PKTS == 1, "no MISS answer"
    dut._log.info("%d MISS answers", tb.nmiss)


@cocotb.test()
async def trk_miss(dut):
    tb = TB(dut, "trk_miss", idle=0.0)
    await tb.reset()
    m = MAX_BLK_PKTS
    k0, k1 = 2 % NENT, 5 % NENT
    lk = []
    if m >= 2:
        # key k0, seq 10: the last packet first (run 0..m-2), then packet 0 asking (run
        # 1..m-2), a duplicate of packet 0 asking, packets in the middle (the run split)
        lk += [(DATA, k0, 10, m - 1, m, 0, 0), (DATA, k0, 10, 0, m, 0, 1),
               (DATA, k0, 10, 0, m, 0, 1), (DATA, k0, 10, m // 2, m, 0, 1)]
        # a stale packet asking: no MISS
        lk += [(DATA, k0, 9, 0, m, 0, 1)]
        # alternating keys back to back: k1, a two-packet block each seq
        lk += [(DATA, k1, 20, 1, 2, 0, 0), (DATA, k0, 10, m // 2, m, 1, 1),
               (DATA, k1, 20, 0, 2, 0, 1), (DATA, k1, 20, 1, 2, 0, 0)]
        # k0 completed but for one packet in the middle: a one-packet run, then complete:
        # no MISS, also for a notifying block waiting for its CONTROL
        lk += [(DATA, k0, 10, i, m, 0, 1) for i in range(1, m - 1) if i != m // 2 - 1]
        lk += [(DATA, k0, 10, m // 2 - 1, m, 0, 1), (DATA, k0, 10, 0, m, 0, 1)]
        lk += [(DATA, k1, 21, 0, 2, 1, 1), (DATA, k1, 21, 1, 2, 1, 0),
               (DATA, k1, 21, 0, 2, 1, 1)]
    lk += [(DATA, k0, 11, 0, 1, 0, 1)]                   # a one-packet block: no MISS
    got = await tb.run(lk)
    span = got[-1][0] - got[0][0] + 1
    assert span == len(lk), f"{len(lk)} decisions over {span} cycles"
    want = 0 if m == 1 else 3 if m == 2 else 5 if m == 3 else m + 4
    assert tb.nmiss == want, (tb.nmiss, want)
    runs = [x[3:] for x in tb.misses]
    if m >= 4:
        # (first, count) as the sequence above makes them, independently of the model
        h = m // 2
        assert runs[:6] == [(0, m - 1), (1, m - 2), (1, m - 2), (1, h - 1), (0, 1),
                            (1, h - 1)], runs[:6]
        assert runs[-2:] == [(h - 1, 1), (1, 1)], runs[-2:]


@cocotb.test()
async def trk_rate(dut):
    tb = TB(dut, "trk_rate", idle=0.0)
    await tb.reset()
    dut._log.info("sweep: %d cycles", NENT)
    bp = min(MAX_BLK_PKTS, 8)
    lk = [(DATA, 3 % NENT, 7, i, bp, 0) for i in range(bp)]              # one key
    lk += [(DATA, (k * 5) % NENT, 100 + k, 0, 1, 0) for k in range(16)]   # alternating keys
    lk += [(INLINE, 1, 300 + i, 0, 1, 0) for i in range(16)]              # one key, each new
    got = await tb.run(lk)
    # the first lookup is taken only once the table is clear (NENT cycles)
    assert tb.takes[0] >= NENT - 1, f"a lookup taken in cycle {tb.takes[0]}, during the table sweep"
    span = got[-1][0] - got[0][0] + 1
    assert span == len(lk), f"{len(lk)} decisions over {span} cycles"


CASES = [{"NENT": 16, "MAX_BLK_PKTS": 8, "PAY_W": 16},
         {"NENT": 64, "MAX_BLK_PKTS": 1, "PAY_W": 12},
         {"NENT": 32, "MAX_BLK_PKTS": 64, "PAY_W": 16},
         {"NENT": 16, "MAX_BLK_PKTS": 256, "PAY_W": 8}]


@pytest.mark.parametrize("params", CASES, ids=[f"n{p['NENT']}-b{p['MAX_BLK_PKTS']}" for p in CASES])
def test_qrdma_rx_track(params):
    from simrun import full, run

    env = {f"P_{k}": str(v) for k, v in params.items()}
    env["P_N"] = "30000" if full() else "3000"
    run("qrdma_rx_track", "test_qrdma_rx_track", params, extra_env=env)
