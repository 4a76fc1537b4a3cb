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
answer came. A key's blocks carry consecutive generations (one more per block or
INLINE) and seqs that advance by 1, 2 or 40,000 (the seq decides nothing).

  trk_random    random traffic over a few keys: blocks of 1..MAX_BLK_PKTS packets in any
                order, with duplicates, CONTROL before / during / after / twice, blocks of
                notifying transfers (their event waits for the CONTROL), INLINE with and
                without notify, blocks abandoned for a newer generation, late copies
                (DATA, INLINE, CONTROL) of a key's earlier blocks with their older
                generations (stale, on entries being filled and on done ones), the
                sender's epoch changing (its generations starting anywhere), generations
                wrapping, pass-through lookups (TRK_NONE); DATA packets with the ask bit
                (a fifth of them), so MISS answers come for random masks, also of blocks
                of one and of MAX_BLK_PKTS packets
  trk_gen       the generation rule, each decision also stated in the test: a done entry
                drops an older generation's DATA, INLINE and CONTROL as stale and takes a
                newer one (DATA, INLINE, a CONTROL that starts the entry); 65535 -> 0 is
                newer, a generation 2^15 ahead is older; another epoch is newer whatever
                its generation; back to back on one key (the forwarding) and again with
                idle cycles
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

import collections
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
# trk_req_t, MSB first (INLINE: idx 0, bp 1); a lookup is the tuple of these fields
# (op, key, seq, gen, epoch, idx, bp, notify, ask), missing trailing ones 0
REQ = (("op", 2), ("key", 16), ("seq", 16), ("gen", 16), ("epoch", 8), ("idx", 9),
       ("bp", 9), ("notify", 1), ("ask", 1))
KEY_LSB = sum(w for _, w in REQ[2:])
NF = len(REQ)
# trk_dec_t, MSB first: the names of DECISION


def pack_req(*f) -> int:
    v = 0
    for (name, w), x in zip(REQ, f):
        x = OPS[x] if name == "op" else int(x)
        assert 0 <= x < 1 << w, (name, x)
        v = (v << w) | x
    return v


def look(op, key, seq, idx=0, bp=0, notify=0, ask=0, gen=None, ep=5) -> tuple:
    """A lookup whose generation follows its seq (seq + 1000) unless given."""
    return (op, key, seq, (seq + 1000) % 65536 if gen is None else gen, ep, idx, bp,
            int(notify), int(ask))


def unpack_dec(v: int) -> dict:
    return {name: bool((v >> (len(DECISION) - 1 - i)) & 1) for i, name in enumerate(DECISION)}


def random_lookups(rng, n: int) -> list[tuple]:
    """Lookups over a few entries of the table (see the module's doc)."""
    keys = rng.sample(range(NENT), min(NENT, 5))
    cur: dict[int, dict] = {}                   # key -> its newest block
    hist: dict[int, list] = {k: [] for k in keys}   # key -> its earlier blocks
    seq = {k: rng.randrange(65536) for k in keys}
    gen = {k: 65530 if i == 0 else rng.randrange(65536) for i, k in enumerate(keys)}
    ep = {k: rng.randrange(256) for k in keys}
    out = []

    def new(k, op, bp, notify):
        if k in cur:
            hist[k] = hist[k][-5:] + [cur[k]]
        seq[k] = (seq[k] + rng.choice((1, 1, 2, 40000))) % 65536
        if k != keys[0] and rng.random() < 0.02:   # another epoch: generations anywhere
            # (not on the first key, whose generations wrap early)
            ep[k] = (ep[k] + rng.randint(1, 255)) % 256
            gen[k] = rng.randrange(65536)
        else:
            gen[k] = (gen[k] + 1) % 65536
        idxs = list(range(bp))
        rng.shuffle(idxs)
        b = cur[k] = dict(op=op, seq=seq[k], gen=gen[k], ep=ep[k], bp=bp, idxs=idxs,
                          notify=notify, ctl=False)
        return b

    def pkt(k, b, idx, ask=0):                  # a DATA or INLINE packet of block b
        if b["op"] == INLINE:
            return (INLINE, k, b["seq"], b["gen"], b["ep"], 0, 1, b["notify"], 0)
        return (DATA, k, b["seq"], b["gen"], b["ep"], idx, b["bp"], b["notify"], ask)

    def ctl(k, b):
        return (CONTROL, k, b["seq"], b["gen"], b["ep"], 0, 0, 0, 0)

    while len(out) < n:
        k = rng.choice(keys)
        b = cur.get(k)
        r = rng.random()
        ask = int(rng.random() < 0.2)
        if r < 0.05:
            out.append((None, k, rng.randrange(65536), rng.randrange(65536),
                        rng.randrange(256), 0, 0, 0, 0))
        elif r < 0.15:                          # an INLINE (a new block of this key)
            b = new(k, INLINE, 1, rng.random() < 0.5)
            b["idxs"] = []
            out.append(pkt(k, b, 0))
        elif r < 0.21:                          # a late copy of an earlier block (stale)
            if hist[k]:
                o = rng.choice(hist[k])
                if o["op"] == DATA and o["notify"] and rng.random() < 0.3:
                    out.append(ctl(k, o))
                else:
                    out.append(pkt(k, o, rng.randrange(o["bp"]), ask))
            elif b is not None:                 # none kept: an older generation
                op = rng.choice((DATA, INLINE, CONTROL))
                bp = rng.randint(1, MAX_BLK_PKTS) if op == DATA else int(op == INLINE)
                out.append((op, k, (b["seq"] - rng.randint(1, 30)) % 65536,
                            (b["gen"] - rng.randint(1, 30)) % 65536, b["ep"],
                            rng.randrange(bp) if op == DATA else 0, bp, 0,
                            ask if op == DATA else 0))
        elif r < 0.25 and b is not None:        # a duplicate of the newest block
            out.append(pkt(k, b, rng.randrange(b["bp"]), ask))
        elif (b is None or r < 0.28
              or (not b["idxs"] and (not b["notify"] or b["ctl"]) and r < 0.5)):
            # a new block (abandons the one being filled)
            b = new(k, DATA, rng.choice((1, MAX_BLK_PKTS, rng.randint(1, MAX_BLK_PKTS))),
                    rng.random() < 0.4)
            if b["notify"] and rng.random() < 0.3:   # CONTROL first
                out.append(ctl(k, b))
                b["ctl"] = True
        elif b["op"] == DATA and b["notify"] and r < 0.33:   # the CONTROL (again, maybe)
            out.append(ctl(k, b))
            b["ctl"] = True
        elif b["idxs"]:
            out.append(pkt(k, b, b["idxs"].pop(), ask))
            if not b["idxs"] and b["notify"] and not b["ctl"]:
                out.append(ctl(k, b))
                b["ctl"] = True
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
        self.model = TrackModel()          # of every lookup since reset
        self.cov = collections.Counter()   # what the lookups exercised
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
        model = self.model
        exp, runs = [], []
        lookups = [tuple(x) + (0,) * (NF - len(x)) for x in lookups]
        for i, (op, k, s, g, ep, idx, bp, ntf, ask) in enumerate(lookups):
            e = model.ent.get(k)
            order = model.order(e, g, ep) if op else None
            dd = (model.lookup(op, k, g, ep, idx, bp, ntf, ask) if op
                  else dict.fromkeys(DECISION, False))
            if op:
                self.cov[f"{order} {'done' if e and e.done else 'open'} {op}"] += 1
                if e is not None and ep != e.epoch:
                    self.cov["another epoch"] += 1
                if e is not None and ep == e.epoch and g < e.gen and order == "newer":
                    self.cov["generation wrap"] += 1
            exp.append((pack_req(*lookups[i]), i % (1 << PAY_W), dd))
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
    dut._log.info("%d MISS answers; lookups by order against their entry: %s", tb.nmiss,
                  dict(tb.cov))
    want = [f"older done {op}" for op in (DATA, INLINE, CONTROL)]
    want += [f"newer done {op}" for op in (DATA, INLINE, CONTROL)]
    want += ["another epoch", "generation wrap", "same done data"]
    if MAX_BLK_PKTS > 1:
        want += ["older open data", "same open data"]
    for c in want:
        assert tb.cov[c] > 0, f"no lookup of the kind {c!r}: {dict(tb.cov)}"


@cocotb.test()
async def trk_gen(dut):
    tb = TB(dut, "trk_gen", idle=0.0)
    await tb.reset()
    bp = min(MAX_BLK_PKTS, 2)
    W, F, E, N, K = "acc_wr", "first", "evt", "ntf", "ctl_keep"
    C, S, D, R = "acc_ctl", "stale", "dup", "redo"

    def seq_for(k0, k1, k2):
        """(lookup, the decision bits set) for keys k0, k1, k2; seqs unrelated to gens."""
        x = []
        # k0, epoch 3: a block of generation 7 completes
        if bp == 2:
            x += [(look(DATA, k0, 100, 0, 2, gen=7, ep=3), {W, F}),
                  (look(DATA, k0, 100, 1, 2, gen=7, ep=3), {W, E})]
        else:
            x += [(look(DATA, k0, 100, 0, 1, gen=7, ep=3), {W, F, E})]
        # late copies of generation 6 on the done entry: stale (also asking: no MISS)
        x += [(look(DATA, k0, 99, 0, 1, gen=6, ep=3), {S}),
              (look(INLINE, k0, 99, 0, 1, gen=6, ep=3), {S}),
              (look(CONTROL, k0, 99, gen=6, ep=3), {S}),
              (look(DATA, k0, 7, 0, bp, 0, 1, gen=5, ep=3), {S}),
              # a copy of generation 7's last packet: the block's response again
              (look(DATA, k0, 100, bp - 1, bp, gen=7, ep=3), {D, R}),
              # generation 8 starts with its CONTROL, its one packet completes it
              (look(CONTROL, k0, 101, gen=8, ep=3), {C, K}),
              (look(DATA, k0, 101, 0, 1, 1, gen=8, ep=3), {W, F, E, N}),
              # generation 7 again, DATA and CONTROL, on the done entry of 8: stale
              (look(DATA, k0, 100, 0, bp, gen=7, ep=3), {S}),
              (look(CONTROL, k0, 100, gen=7, ep=3), {S}),
              (look(INLINE, k0, 102, 0, 1, 1, gen=9, ep=3), {W, F, E, N, K}),
              (look(INLINE, k0, 102, 0, 1, 1, gen=8, ep=3), {S})]
        # k1, epoch 0: generations wrap; 2^15 ahead is older, 2^15 - 1 ahead newer
        x += [(look(INLINE, k1, 5, 0, 1, gen=65535, ep=0), {W, F, E}),
              (look(INLINE, k1, 6, 0, 1, gen=0, ep=0), {W, F, E}),
              (look(INLINE, k1, 5, 0, 1, gen=65535, ep=0), {S}),
              (look(DATA, k1, 7, 0, 1, gen=32768, ep=0), {S}),
              (look(DATA, k1, 8, 0, 1, gen=32767, ep=0), {W, F, E}),
              (look(INLINE, k1, 6, 0, 1, gen=0, ep=0), {S}),
              (look(CONTROL, k1, 9, gen=32766, ep=0), {S})]
        # k2: another epoch is newer whatever its generation
        x += [(look(INLINE, k2, 1, 0, 1, gen=1000, ep=1), {W, F, E}),
              (look(INLINE, k2, 2, 0, 1, gen=10, ep=2), {W, F, E}),
              (look(INLINE, k2, 3, 0, 1, gen=9, ep=2), {S}),
              (look(INLINE, k2, 1, 0, 1, gen=1000, ep=1), {W, F, E}),
              (look(CONTROL, k2, 4, gen=5, ep=3), {C, K}),
              (look(DATA, k2, 4, 0, bp, gen=5, ep=3), {W, F} | ({E} if bp == 1 else set())),
              (look(DATA, k2, 3, 0, bp, 0, 1, gen=4, ep=3), {S}),
              (look(CONTROL, k2, 3, gen=4, ep=3), {S}),
              (look(DATA, k2, 5, 0, 1, gen=4, ep=4), {W, F, E})]
        return x

    # back to back on one key (k0 .. k2 each in a run), then interleaved with idle cycles
    for keys, idle in (((1, 4, 7), 0.0), ((9, 12, 15), 0.5)):
        tb.idle = idle
        x = seq_for(*(k % NENT for k in keys))
        want = [(i, t[0], sorted(t[1])) for i, t in enumerate(x)]
        if idle:
            tb.rng.shuffle(want)
            # the order within each key kept
            by_key = collections.defaultdict(list)
            for w in sorted(want):
                by_key[w[1][1]].append(w)
            want = [by_key[w[1][1]].pop(0) for w in want]
        m0 = tb.model.ent.copy()
        got = await tb.run([w[1] for w in want])
        assert all(k % NENT not in m0 for k in keys)
        for (i, look_, bits), (_, _, dec, _) in zip(want, got):
            on = sorted(k for k, v in unpack_dec(dec).items() if v)
            assert on == bits, f"lookup {i} {look_}: decision {on}, expected {bits}"


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
        lk += [look(DATA, k0, 10, m - 1, m, 0, 0), look(DATA, k0, 10, 0, m, 0, 1),
               look(DATA, k0, 10, 0, m, 0, 1), look(DATA, k0, 10, m // 2, m, 0, 1)]
        # a stale packet asking: no MISS
        lk += [look(DATA, k0, 9, 0, m, 0, 1)]
        # alternating keys back to back: k1, a two-packet block each seq
        lk += [look(DATA, k1, 20, 1, 2, 0, 0), look(DATA, k0, 10, m // 2, m, 1, 1),
               look(DATA, k1, 20, 0, 2, 0, 1), look(DATA, k1, 20, 1, 2, 0, 0)]
        # k0 completed but for one packet in the middle: a one-packet run, then complete:
        # no MISS, also for a notifying block waiting for its CONTROL
        lk += [look(DATA, k0, 10, i, m, 0, 1) for i in range(1, m - 1) if i != m // 2 - 1]
        lk += [look(DATA, k0, 10, m // 2 - 1, m, 0, 1), look(DATA, k0, 10, 0, m, 0, 1)]
        lk += [look(DATA, k1, 21, 0, 2, 1, 1), look(DATA, k1, 21, 1, 2, 1, 0),
               look(DATA, k1, 21, 0, 2, 1, 1)]
    lk += [look(DATA, k0, 11, 0, 1, 0, 1)]             # a one-packet block: no MISS
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
    lk = [look(DATA, 3 % NENT, 7, i, bp, 0) for i in range(bp)]                # one key
    lk += [look(DATA, (k * 5) % NENT, 100 + k, 0, 1, 0) for k in range(16)]   # alternating keys
    lk += [look(INLINE, 1, 300 + i, 0, 1, 0) for i in range(16)]             # one key, each new
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
