# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_qos_ids (the TID / 1xFID / 4xFID pools, [QoS-RDMA] §3.8) against the model's
IdPools (tests/model/qos_model.py).

  ids_random   ready after reset once every pool is filled (no ID is taken before); then
               random takes (random
               backpressure on m_tid_* / m_fid1_* / m_fid4_*) and random returns (random
               idle on tid_free_* / fid_free_*, in random order, with returns of class
               TID-only or control that must be ignored), in phases that drain the pools
               to exhaustion and refill them. Every ID handed out must be the oldest free
               one of its pool (4xFID groups as their first FID), and every free ID must be
               offered within the pool's latency; m_*_more must be exact when high (a take
               leaves the next ID offered in the next cycle) and high once two IDs have
               been free for the latency. At the end every ID is returned and then
               taken once more: each pool gives back exactly its IDs.

Replay: QRDMA_SEED=<seed printed at the start>. Size: CYCLES (x 10 with make test-full).
"""
from __future__ import annotations

import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from seeding import seed_rng
from model.qos_model import CLS_CODE, CLS_CTRL, FID1_FIRST, Cls, IdPools

KINDS = ("tid", "fid1", "fid4")
LATENCY = 4          # cycles from a return to the offer: the pool's FIFO (<= 3), its two-entry FIFO
CYCLES = 6000


class Bench:
    def __init__(self, dut, rng, num_tids):
        self.dut = dut
        self.rng = rng
        self.model = IdPools(num_tids)
        self.held = {k: [] for k in KINDS}          # taken, not returned
        self.since = {}                             # (kind, id) -> cycle it became free
        self.now = 0
        self.ready_at = None
        self.stall = 0.3                            # P(m_*_ready low)
        self.ret_idle = 0.5                         # P(no return in a cycle)
        self.taken = 0
        self.exhausted = {k: 0 for k in KINDS}      # cycles with the pool empty
        self.more_taken = dict.fromkeys(KINDS, False)   # taken with more high last cycle
        self.more_hits = 0

    def sig(self, kind, name):
        return getattr(self.dut, f"m_{kind}_{name}")

    async def cycle(self):
        d, m, rng = self.dut, self.model, self.rng
        await RisingEdge(d.clk)
        self.now += 1
        # returns: one TID and one FID (or a completion of another class) per cycle
        tret = fret = None
        if self.held["tid"] and rng.random() >= self.ret_idle:
            tret = self.held["tid"].pop(rng.randrange(len(self.held["tid"])))
        d.tid_free_valid.value = int(tret is not None)
        d.tid_free_id.value = tret if tret is not None else rng.randrange(1024)
        fk = rng.choice(["fid1", "fid4"])
        cls, fid = CLS_CTRL, rng.randrange(256)
        if self.held[fk] and rng.random() >= self.ret_idle:
            fret = self.held[fk].pop(rng.randrange(len(self.held[fk])))
            cls, fid = CLS_CODE[Cls.FID1 if fk == "fid1" else Cls.FID4], fret
        elif rng.random() < 0.2:               # a completion that returns no FID
            cls = rng.choice([CLS_CTRL, CLS_CODE[Cls.TID]])
        d.fid_free_valid.value = int(fret is not None or cls != CLS_CTRL or rng.random() < 0.5)
        d.fid_free_cls.value = cls
        d.fid_free_fid.value = fid
        for k in KINDS:      # IDs are taken only once ready is high
            self.sig(k, "ready").value = int(self.ready_at is not None
                                             and rng.random() >= self.stall)
        await ReadOnly()
        ready = int(d.ready.value)
        if self.ready_at is None:
            if ready:
                self.ready_at = self.now
                for k in KINDS:
                    for i in m.free[k]:
                        self.since[(k, i)] = self.now
            return
        assert ready, f"cycle {self.now}: ready fell"
        for k in KINDS:
            valid = int(self.sig(k, "valid").value)
            more = int(self.sig(k, "more").value)
            head = m.head(k)
            assert valid or not more, f"cycle {self.now}: {k} more without valid"
            assert valid or not self.more_taken[k], \
                f"cycle {self.now}: {k} taken with more in the last cycle, now not valid"
            if len(m.free[k]) >= 2 and self.now - self.since[(k, m.free[k][1])] > LATENCY:
                assert more, f"cycle {self.now}: {k} two IDs free for the latency, more low"
            taking = valid and int(self.sig(k, "ready").value)
            self.more_taken[k] = bool(taking and more)
            self.more_hits += self.more_taken[k]
            if taking:
                got = int(self.sig(k, "id").value)
                assert head is not None, f"cycle {self.now}: {k} {got} handed out, pool empty"
                assert got == head, f"cycle {self.now}: {k} {got} handed out, the oldest " \
                                    f"free is {head}"
                m.take(k)
                del self.since[(k, got)]
                self.held[k].append(got)
                self.taken += 1
            elif head is not None and self.now - self.since[(k, head)] >= LATENCY:
                assert valid, f"cycle {self.now}: {k} {head} free since cycle " \
                              f"{self.since[(k, head)]} and not offered"
            if head is None:
                self.exhausted[k] += 1
        if tret is not None:
            m.give("tid", tret)
            self.since[("tid", tret)] = self.now
        if fret is not None:
            m.give(fk, fret)
            self.since[(fk, fret)] = self.now


@cocotb.test()
async def ids_random(dut):
    num_tids = int(os.environ["P_NUM_TIDS"])
    n = int(os.environ["P_N"])
    rng = seed_rng("ids_random")
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    dut.rst.value = 1
    dut.tid_free_valid.value = 0
    dut.fid_free_valid.value = 0
    for k in KINDS:
        getattr(dut, f"m_{k}_ready").value = 0
    for _ in range(5):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    b = Bench(dut, rng, num_tids)
    while b.ready_at is None:
        await b.cycle()
        assert b.now < 2000, "ready never rises"
    want = max(num_tids, 64)
    assert abs(b.ready_at - want) <= 2, f"ready {b.ready_at} cycles after reset (pools {want})"

    async def until(cond, limit):
        start = b.now
        while not cond():
            await b.cycle()
            assert b.now - start < limit, "phase did not reach its end"

    # random, drain every pool, refill, bursts, random
    stop = b.now + n // 3
    await until(lambda: b.now >= stop, n)
    b.ret_idle, b.stall = 1.0, 0.2
    await until(lambda: all(not b.model.free[k] for k in KINDS), 20 * want + 500)
    for _ in range(30):
        await b.cycle()
    b.ret_idle, b.stall = 0.0, 1.0
    await until(lambda: all(not b.held[k] for k in KINDS), 20 * want + 500)
    b.ret_idle, b.stall = 0.0, 0.0
    stop = b.now + n // 3
    await until(lambda: b.now >= stop, n)
    b.ret_idle, b.stall = 0.6, 0.6
    stop = b.now + n // 3
    await until(lambda: b.now >= stop, n)
    # scoreboard: everything back, then every ID taken once more
    b.ret_idle, b.stall = 0.0, 1.0
    await until(lambda: all(not b.held[k] for k in KINDS), 20 * want + 500)
    for _ in range(LATENCY + 1):
        await b.cycle()
    assert b.model.all_free()
    b.ret_idle, b.stall = 1.0, 0.0
    await until(lambda: all(not b.model.free[k] for k in KINDS), 2 * want + 50)
    assert sorted(b.held["tid"]) == list(range(num_tids))
    assert sorted(b.held["fid1"]) == list(range(FID1_FIRST, FID1_FIRST + 64))
    assert sorted(b.held["fid4"]) == list(range(192, 256, 4))
    for _ in range(10):                     # nothing more comes out of empty pools
        await b.cycle()
    assert all(b.exhausted[k] > 30 for k in KINDS) and b.taken > 1000 and b.more_hits > 100
    dut._log.info("%d IDs taken", b.taken)


@pytest.mark.parametrize("num_tids", [512, 16])
def test_qrdma_qos_ids(num_tids):
    from simrun import full, run
    run("qrdma_qos_ids", "test_qrdma_qos_ids", {"NUM_TIDS": num_tids},
        extra_env={"P_NUM_TIDS": str(num_tids), "P_N": str(CYCLES * (10 if full() else 1))})
