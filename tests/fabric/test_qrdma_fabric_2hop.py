# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Two switches joined by a trunk, P-1 nodes' fabric ports on each (tb_qrdma_fabric_2hop:
qrdma_switch with CLASSES = P, docs/fabric.md "Two hops"); the test plays the NICs as
tests/fabric/test_qrdma_fabric.py does (the same Tb: per-destination queues obeying
tx_pause, random backpressure with stretches of almost none).

  fabric2_random   random packets between random nodes, half of them across the trunk:
                   every packet arrives once, exact, in order per (source, destination);
                   nothing dropped or refused anywhere (switches and ports); at the end
                   every credit is back: each switch's room at every output and class, each
                   node's room at every crosspoint of its switch.
  fabric2_latency  one packet through the idle fabric, 1 and MAX_PKT beats: cycles from
                   its first beat into the sender's port to its first beat out of the
                   receiver's, to a node of the same switch (one hop) and of the other
                   switch (two hops); the second hop costs exactly one switch (HOP1 +
                   beats - 1, store-and-forward, as tests/fabric/test_qrdma_switch.py
                   measures it) and one link (LINK_LAT).

Replay: QRDMA_SEED=<seed printed at the start of a test>."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge

sys.path.insert(0, str(Path(__file__).resolve().parent))
from model.fabric_model import make_packet  # noqa: E402
from seeding import seed_rng  # noqa: E402
from test_qrdma_fabric import Tb, settle  # noqa: E402


class Tb2(Tb):
    """The NICs of the two-switch fabric: P_P is the number of nodes here."""

    def __init__(self, dut, rng):
        super().__init__(dut, rng)
        self.SP = int(os.environ["P_SW_P"])      # ports per switch
        self.M = self.SP - 1                     # nodes per switch
        self.t_in = self.t_out = None

    def start(self, p: int, paused: int):
        c = super().start(p, paused)
        if c is not None and self.t_in is None:
            self.t_in = self.cycle
        return c

    def take(self, p: int, beat, last: int) -> None:
        if not self.rxpkt[p] and self.t_out is None:
            self.t_out = self.cycle
        super().take(p, beat, last)

    async def reset(self) -> None:
        await super().reset()
        while not int(self.dut.cfg_done.value):
            await FallingEdge(self.dut.clk)

    def counters(self, name: str, width: int = 32) -> list[int]:
        v = getattr(self.dut, name).value
        return [(v.to_unsigned() >> (width * i)) & ((1 << width) - 1)
                for i in range(len(v) // width)]

    def check_quiet(self) -> None:
        N, SP = self.P, self.SP
        for name, n in (("sw_noroute", 2 * SP), ("sw_bad", 2 * SP), ("sw_ovf", 2 * SP),
                        ("sw_refused", 2 * SP), ("np_noroute", N), ("np_bad", N),
                        ("np_ovf", N), ("np_refused", N)):
            assert self.counters(name)[:n] == [0] * n, f"{name}: {self.counters(name)[:n]}"
        assert self.counters("sw_credits", 16)[:2 * SP * SP] == [self.XP] * (2 * SP * SP), \
            f"switches' room: {self.counters('sw_credits', 16)[:2 * SP * SP]}"
        assert self.counters("np_credits", 16)[:N * SP] == [self.XP] * (N * SP), \
            f"nodes' room at the crosspoints: {self.counters('np_credits', 16)[:N * SP]}"


async def start(dut, name):
    rng = seed_rng(name)
    cocotb.start_soon(Clock(dut.clk, 2, "ns").start())
    tb = Tb2(dut, rng)
    await tb.reset()
    return tb


@cocotb.test()
async def fabric2_random(dut):
    tb = await start(dut, "fabric2_random")
    N, M, n = tb.P, tb.M, int(os.environ["P_N"])
    across = 0
    for s in range(N):
        for _ in range(n):
            d = tb.rng.randrange(N)
            across += s // M != d // M
            tb.post(s, d)
    limit = 400 * n * N
    while not tb.idle():
        await tb.step()
        assert tb.cycle < limit, f"not delivered by cycle {limit}: deadlock?"
    await settle(tb, int(os.environ["P_REFRESH"]) + 300)
    tb.check_quiet()
    assert across > n * N // 3, f"{across} packets across the trunk"
    dut._log.info("%d cycles, packets per node %s, %d across the trunk, cycles paused %d",
                  tb.cycle, tb.got, across, sum(tb.paused_seen.values()))


@cocotb.test()
async def fabric2_latency(dut):
    tb = await start(dut, "fabric2_latency")
    tb.gap_p = 0.0
    tb.ready_p = 1.0
    tb.stretch = False
    M, MP = tb.M, tb.MAX_PKT
    hop1, link = int(os.environ["P_HOP1"]), int(os.environ["P_LINK_LAT"])
    # (within SYNC and REFRESH cycles of the reset: no refresh or sync beat comes between)
    lat = {}
    for n in (1, MP):
        for dst in (1, M):        # node 1: the same switch as node 0; node M: the other
            for _ in range(30):
                await tb.step()
            tb.pid += 1
            pkt = make_packet(tb.rng, tb.pid, 0, dst, dst, MP, "any")   # (a type of any length)
            pkt.beats = pkt.beats[:1] + [(3, pkt.beats[0][1], 0)] * (n - 1)
            tb.q[0][dst].append(pkt)
            tb.expect[(0, dst, 0)].append(pkt)
            tb.t_in = tb.t_out = None
            while tb.t_out is None:
                await tb.step()
            lat[(n, dst)] = tb.t_out - tb.t_in
            while not tb.idle():
                await tb.step()
        dut._log.info("%d beat(s): one hop %d cycles, two hops %d cycles", n, lat[(n, 1)],
                      lat[(n, M)])
        assert lat[(n, M)] - lat[(n, 1)] == hop1 + n - 1 + link, \
            f"{n} beats: two hops {lat[(n, M)]}, one hop {lat[(n, 1)]}"
    out = os.environ.get("QRDMA_BENCH_OUT")      # tests/bench/bench_fabric.py
    if out:
        rows = [{"beats": n, "one_hop_cycles": lat[(n, 1)], "two_hop_cycles": lat[(n, M)]}
                for n in (1, MP)]
        with open(out, "w") as f:
            json.dump({"link_cycles": link, "rows": rows}, f)


# (parameters, packets per node in fabric2_random)
CONFIGS = [
    pytest.param({"P": 3, "XP_DEPTH": 64, "VOQ_DEPTH": 128, "PAUSE_LEVEL": 64, "LINK_LAT": 4},
                 150, id="p3"),
    pytest.param({"P": 5, "XP_DEPTH": 64, "VOQ_DEPTH": 128, "PAUSE_LEVEL": 64, "LINK_LAT": 9},
                 60, id="p5-long-links"),
]


@pytest.mark.parametrize("params,n", CONFIGS)
def test_qrdma_fabric_2hop(params, n):
    from simrun import full, run
    from test_qrdma_switch import HOP1

    p = dict(params, MAX_PKT=17, REFRESH=2048, UPD_MIN=17, SYNC=2048)
    env = {f"P_{k}": str(v) for k, v in p.items()}
    env.update(P_P=str(2 * (p["P"] - 1)), P_SW_P=str(p["P"]), P_RX_DEPTH=str(p["XP_DEPTH"]),
               P_N=str(n * (5 if full() else 1)), P_HOP1=str(HOP1))
    run("tb_qrdma_fabric_2hop", "test_qrdma_fabric_2hop", p, extra_env=env)
