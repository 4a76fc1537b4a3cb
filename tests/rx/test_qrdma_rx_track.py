# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_rx_track, the receive unit's block tracker (docs/nic.md "Receive unit"), against
the reference model tests/model/rx_track_model.py.

Lookups go in through a cocotbext-axi stream source (define_stream) on s_* with random
idle, decisions come out on m_* into a stream sink with random backpressure. The model
decides every lookup of the sequence in order; the bench checks each output (the lookup
and payload passed through, every decision bit) and, at the end, that every lookup came
out once.

  trk_random    random traffic over a few keys: blocks of 1..MAX_BLK_PKTS packets in any
                order, with duplicates, CONTROL before / during / after / twice, blocks of
                notifying transfers (their event waits for the CONTROL), INLINE with and
                without notify, blocks abandoned for a newer seq, older seqs (stale), a
                done entry reused by any seq, pass-through lookups (TRK_NONE)
  trk_rate      back-to-back lookups of one key and of alternating keys, no idle, no
                backpressure: one decision per cycle (the snoop of a same-key write), and
                nothing taken during the table sweep after reset

Replay: QRDMA_SEED=<seed printed at the start of a test>. Size: P_N lookups (trk_random).
"""
from __future__ import annotations

import logging
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge
from cocotbext.axi.stream import define_stream

from seeding import seed_rng
from model.rx_track_model import CONTROL, DATA, DECISION, INLINE, TrackModel

NENT = int(os.environ.get("P_NENT", "16"))
MAX_BLK_PKTS = int(os.environ.get("P_MAX_BLK_PKTS", "8"))
PAY_W = int(os.environ.get("P_PAY_W", "16"))

OPS = {None: 0, DATA: 1, INLINE: 2, CONTROL: 3}
# trk_req_t, MSB first: op[1:0], key[15:0], seq[15:0], idx[8:0], bp[8:0], notify
# trk_dec_t, MSB first: acc_wr, acc_ctl, dup, stale, first, evt, ntf, ctl_keep
LkBus, LkTr, LkSource, LkSink, LkMonitor = define_stream(
    "Lk", signals=["req", "pay", "valid", "ready"])
DcBus, DcTr, DcSource, DcSink, DcMonitor = define_stream(
    "Dc", signals=["req", "dec", "pay", "valid", "ready"])


def pack_req(op, key, seq, idx=0, bp=0, notify=0) -> int:
    return (OPS[op] << 51) | (key << 35) | (seq << 19) | (idx << 10) | (bp << 1) | int(notify)


def unpack_dec(v: int) -> dict:
    return {name: bool((v >> (len(DECISION) - 1 - i)) & 1) for i, name in enumerate(DECISION)}


def random_lookups(rng, n: int) -> list[tuple]:
    """(op, key, seq, idx, bp, notify) tuples; keys from a few entries of the table."""
    keys = rng.sample(range(NENT), min(NENT, 5))
    blk = {}             # key -> [seq, bp, remaining idx list, notify, control sent]
    seq = {k: rng.randrange(65536) for k in keys}
    out = []
    while len(out) < n:
        k = rng.choice(keys)
        r = rng.random()
        if r < 0.05:
            out.append((None, k, rng.randrange(65536), 0, 0, 0))
            continue
        if r < 0.15:                              # an INLINE (a new block of this key)
            seq[k] = (seq[k] + 1) % 65536
            blk.pop(k, None)
            out.append((INLINE, k, seq[k], 0, 0, rng.random() < 0.5))
            continue
        if k not in blk or r < 0.2:               # a new block (abandons the old one)
            seq[k] = (seq[k] + rng.choice((1, 1, 2, 40000))) % 65536
            bp = rng.randint(1, MAX_BLK_PKTS)
            idxs = list(range(bp))
            rng.shuffle(idxs)
            blk[k] = [seq[k], bp, idxs, rng.random() < 0.4, False]
            if blk[k][3] and rng.random() < 0.3:  # CONTROL first
                out.append((CONTROL, k, seq[k], 0, 0, 0))
                blk[k][4] = True
            continue
        s, bp, idxs, notify, ctl = blk[k]
        if r < 0.25:                              # a duplicate or a stale packet
            old = rng.random() < 0.5
            out.append((DATA, k, (s - rng.randint(1, 30)) % 65536 if old else s,
                        rng.randrange(bp), bp, notify))
            continue
        if r < 0.3 and notify:                    # the CONTROL (again, maybe)
            out.append((CONTROL, k, s, 0, 0, 0))
            blk[k][4] = True
            continue
        if idxs:
            out.append((DATA, k, s, idxs.pop(), bp, notify))
        if not idxs:
            if notify and not ctl:
                out.append((CONTROL, k, s, 0, 0, 0))
            del blk[k]
    return out


class TB:
    def __init__(self, dut, name: str, idle: float, stall: float):
        self.dut = dut
        self.rng = seed_rng(name)
        for lg in ("s", "m"):
            logging.getLogger(f"cocotb.{dut._name}.{lg}").setLevel(logging.WARNING)
        cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
        self.src = LkSource(LkBus.from_prefix(dut, "s"), dut.clk, dut.rst)
        self.snk = DcSink(DcBus.from_prefix(dut, "m"), dut.clk, dut.rst)
        rng = self.rng
        if idle:
            self.src.set_pause_generator(iter(lambda: rng.random() < idle, None))
        if stall:
            self.snk.set_pause_generator(iter(lambda: rng.random() < stall, None))

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0

    async def run(self, lookups: list[tuple]) -> int:
        """Sends the lookups, checks every decision against the model; returns the cycle
        of the last decision."""
        model = TrackModel()
        exp = []
        for i, (op, k, s, idx, bp, ntf) in enumerate(lookups):
            d = model.lookup(op, k, s, idx, bp, ntf) if op else dict.fromkeys(DECISION, False)
            exp.append((pack_req(op, k, s, idx, bp, ntf), i % (1 << PAY_W), d))
            self.src.send_nowait(LkTr(req=exp[-1][0], pay=exp[-1][1]))
        for i, (req, pay, d) in enumerate(exp):
            got = await self.snk.recv()
            assert int(got.req) == req and int(got.pay) == pay, \
                f"lookup {i}: req/payload {int(got.req):#x}/{int(got.pay)} expected {req:#x}/{pay}"
            gd = unpack_dec(int(got.dec))
            assert gd == d, f"lookup {i} {lookups[i]}: decision {gd}, expected {d}"
        await ClockCycles(self.dut.clk, 20)
        assert self.snk.empty(), "decisions beyond the lookups"
        return exp


@cocotb.test()
async def trk_random(dut):
    tb = TB(dut, "trk_random", idle=0.3, stall=0.3)
    await tb.reset()
    lk = random_lookups(tb.rng, int(os.environ.get("P_N", "3000")))
    await tb.run(lk)
    ops = [x[0] for x in lk]
    assert ops.count(CONTROL) and ops.count(INLINE) and ops.count(DATA) and ops.count(None)


@cocotb.test()
async def trk_rate(dut):
    tb = TB(dut, "trk_rate", idle=0.0, stall=0.0)
    await tb.reset()
    # the first lookup is taken only once the table is clear (NENT cycles)
    await RisingEdge(dut.clk)
    dut._log.info("sweep: %d cycles", NENT)
    bp = min(MAX_BLK_PKTS, 8)
    lk = [(DATA, 3 % NENT, 7, i, bp, 0) for i in range(bp)]              # one key
    lk += [(DATA, (k * 5) % NENT, 100 + k, 0, 1, 0) for k in range(16)]   # alternating keys
    lk += [(INLINE, 1, 300 + i, 0, 0, 0) for i in range(16)]              # one key, each new
    t_first = t_last = None
    n = 0

    async def count():
        nonlocal t_first, t_last, n
        cyc = 0
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            cyc += 1
            if int(dut.s_valid.value) and int(dut.s_ready.value):
                assert cyc >= NENT - 1, f"a lookup taken in cycle {cyc}, during the table sweep"
            if int(dut.m_valid.value) and int(dut.m_ready.value):
                n += 1
                t_first = cyc if t_first is None else t_first
                t_last = cyc
    cocotb.start_soon(count())
    await tb.run(lk)
    assert n == len(lk) and t_last - t_first + 1 == len(lk), \
        f"{len(lk)} decisions over {t_last - t_first + 1} cycles"


CASES = [{"NENT": 16, "MAX_BLK_PKTS": 8, "PAY_W": 16},
         {"NENT": 64, "MAX_BLK_PKTS": 1, "PAY_W": 12},
         {"NENT": 32, "MAX_BLK_PKTS": 64, "PAY_W": 16}]


@pytest.mark.parametrize("params", CASES, ids=[f"n{p['NENT']}-b{p['MAX_BLK_PKTS']}" for p in CASES])
def test_qrdma_rx_track(params):
    from simrun import full, run

    env = {f"P_{k}": str(v) for k, v in params.items()}
    env["P_N"] = "30000" if full() else "3000"
    run("qrdma_rx_track", "test_qrdma_rx_track", params, extra_env=env)
