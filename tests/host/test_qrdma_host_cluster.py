# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_host_cluster against the cluster model (tests/model/host_model.py ClusterModel;
docs/qos.md "Clustering"):

  cluster_random  random transfers with and without hold / start on a few pages, random
                  idle and backpressure, and phases of large clusters: every transfer
                  leaves exactly once, in the model's order, with its record; a transfer
                  with neither flag leaves in the cycle it is offered while nothing else
                  waits to leave.
  cluster_whole   every channel of a page held, then a start: one transfer per cycle in
                  channel order within a group of 32 channels, two idle cycles between
                  groups, the whole release within two cycles per group plus one per
                  transfer plus five (the first load, four from issue to out).
"""
import collections
import os

import cocotb
import pytest
from cocotb.triggers import ReadOnly, RisingEdge
from cocotbext.axi.stream import define_stream

from model.host_model import ClusterModel
from seeding import seed_rng
from streams import quiet, random_pause, start_s_m

InBus, InTransaction, InSource, InSink, InMonitor = define_stream(
    "In", signals=["xfer", "hold", "start", "rec", "valid", "ready"])
OutBus, OutTransaction, OutSource, OutSink, OutMonitor = define_stream(
    "Out", signals=["xfer", "rec", "valid", "ready"])

GROUP = 32


class Env:
    def __init__(self, dut, rng):
        self.dut, self.rng = dut, rng
        self.xw = int(os.environ["P_XW"])
        self.chw = int(os.environ["P_CH_W"])
        self.recw = int(os.environ["P_REC_W"])
        self.nch = 1 << self.chw
        self.model = ClusterModel(self.nch)
        self.exp = collections.deque()   # transfers the model says leave, in order
        self.sent = 0
        self.got = 0
        self.cycle = 0
        self.log = []                    # (cycle, xfer) of every transfer out
        self.last_start = -1000          # cycle a start was last taken
        # the longest a release runs from the start's cycle to the last transfer out: two
        # cycles per group, one per transfer, the first load's, four from issue to out
        self.release_bound = 2 * (self.nch // GROUP) + self.nch + 5

    async def start(self, p):
        dut = self.dut
        await start_s_m(dut)
        for _ in range((1 << self.xw) // GROUP + 1):   # the map's clearing sweep
            await RisingEdge(dut.clk)
        quiet(dut, "s", "m")
        self.src = InSource(InBus.from_prefix(dut, "s"), dut.clk, dut.rst)
        self.snk = OutSink(OutBus.from_prefix(dut, "m"), dut.clk, dut.rst)
        self.pause(p)
        cocotb.start_soon(self._monitor())

    def pause(self, p):
        random_pause(self.src, self.rng, p)
        random_pause(self.snk, self.rng, p)

    def send(self, xfer, hold, start):
        t = dict(xfer=xfer, hold=hold, start=start, rec=self.rng.getrandbits(self.recw))
        self.src.send_nowait(InTransaction(**t))
        self.sent += 1
        return t

    async def _monitor(self):
        dut = self.dut
        v = lambda s: int(s.value)  # noqa: E731
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            self.cycle += 1
            if (v(dut.s_valid) and not v(dut.s_hold) and not v(dut.s_start) and not self.exp
                    and self.cycle - self.last_start > self.release_bound):
                # nothing waits to leave and no release runs: it passes at once
                assert v(dut.m_valid) and v(dut.m_xfer) == v(dut.s_xfer), \
                    f"cycle {self.cycle}: transfer {v(dut.s_xfer)} not passed through"
                assert v(dut.s_ready) == v(dut.m_ready)
            if v(dut.s_valid) and v(dut.s_ready):
                t = dict(xfer=v(dut.s_xfer), hold=v(dut.s_hold), start=v(dut.s_start),
                         rec=v(dut.s_rec))
                self.exp.extend(self.model.push(t))
                if t["start"]:
                    self.last_start = self.cycle
            if v(dut.m_valid) and v(dut.m_ready):
                assert self.exp, f"cycle {self.cycle}: unexpected transfer {v(dut.m_xfer)}"
                e = self.exp.popleft()
                got = (v(dut.m_xfer), v(dut.m_rec))
                assert got == (e["xfer"], e["rec"]), f"cycle {self.cycle}: out {got} != {e}"
                self.got += 1
                self.log.append((self.cycle, got[0]))

    async def settle(self, limit=2000):
        """Wait until every transfer sent is out (or held): up to `limit` cycles plus 20
        for each transfer still queued or expected (the random pauses slow each one)."""
        limit += 20 * (self.src.count() + len(self.exp))
        n = 0
        while self.src.count() or self.src.active or self.exp:
            await RisingEdge(self.dut.clk)
            n += 1
            assert n < limit, f"stuck: {len(self.exp)} transfers not out"
        for _ in range(4):
            await RisingEdge(self.dut.clk)


@cocotb.test()
async def cluster_random(dut):
    rng = seed_rng("cluster_random")
    env = Env(dut, rng)
    await env.start(0.3)
    pages = rng.sample(range(1 << (env.xw - env.chw)), min(3, 1 << (env.xw - env.chw)))
    held = {p: set() for p in pages}      # channels held (not to be posted again)
    n = 3000
    counts = collections.Counter()
    for i in range(n):
        if i == n // 3:
            env.pause(0.0)                # phase: no idle, no backpressure
        if i == n // 2:
            env.pause(0.6)
        p_hold, p_start = (0.6, 0.04) if (i // 500) % 2 else (0.15, 0.06)
        p = rng.choice(pages)
        free = [c for c in range(env.nch) if c not in held[p]]
        c = rng.choice(free)
        hold, start = int(rng.random() < p_hold), int(rng.random() < p_start)
        start |= len(free) == 1           # the page's last free channel: release it
        env.send(p * env.nch + c, hold, start)
        if start:
            counts["cluster"] += 1
            counts["released"] += len(held[p]) + 1
            held[p] = set()
        elif hold:
            held[p].add(c)
        else:
            counts["passed"] += 1
        if rng.random() < 0.02:
            await env.settle()
    await env.settle()
    dut._log.info("sent %d, out %d, still held %d, %s", env.sent, env.got,
                  env.model.waiting(), dict(counts))
    assert env.model.waiting() == sum(len(h) for h in held.values())
    assert env.got == env.sent - env.model.waiting()
    assert counts["cluster"] >= 50 and counts["released"] > 2 * counts["cluster"]


@cocotb.test()
async def cluster_whole(dut):
    rng = seed_rng("cluster_whole")
    env = Env(dut, rng)
    await env.start(0.0)
    page = (1 << (env.xw - env.chw)) - 1
    chans = list(range(env.nch))
    rng.shuffle(chans)
    for c in chans[:-1]:
        env.send(page * env.nch + c, 1, 0)
    await env.settle()
    assert env.got == 0 and env.model.waiting() == env.nch - 1
    env.send(page * env.nch + chans[-1], 0, 1)
    await env.settle()
    t0 = env.last_start
    out = env.log[-env.nch:]
    assert [x for _, x in out] == [page * env.nch + c for c in range(env.nch)]
    cyc = [t for t, _ in out]
    # one per cycle; between two groups the group's end and the next group's load
    gaps = [b - a for a, b in zip(cyc, cyc[1:])]
    assert all(g == (3 if (i + 1) % GROUP == 0 else 1) for i, g in enumerate(gaps)), \
        f"not one per cycle within a group: {cyc}"
    assert cyc[-1] - t0 <= env.release_bound, \
        f"release took {cyc[-1] - t0} cycles > {env.release_bound}"
    dut._log.info("%d transfers released in %d cycles", env.nch, cyc[-1] - t0)
    # a start alone releases itself
    env.send(3, 0, 1)
    await env.settle()
    assert env.log[-1][1] == 3 and env.model.waiting() == 0


@pytest.mark.parametrize("xw,ch_w,rec_w", [(11, 7, 55), (8, 6, 3)])
def test_qrdma_host_cluster(xw, ch_w, rec_w):
    from simrun import run

    p = {"XW": xw, "CH_W": ch_w, "REC_W": rec_w}
    run("qrdma_host_cluster", "test_qrdma_host_cluster", p,
        extra_env={f"P_{k}": str(v) for k, v in p.items()})
