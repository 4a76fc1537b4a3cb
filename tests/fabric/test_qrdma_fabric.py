# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""P nodes' fabric ports (qrdma_fabric_port) around a switch (qrdma_switch), links of
LINK_LAT cycles (tb_qrdma_fabric); the test plays the NICs. The ports have virtual output
queues (VOQ = 1) or one queue each (VOQ = 0, the baseline). With PLANES > 1 every node
has a port per plane and there is a switch per plane (qrdma_fabric_planes), the links
carrying a beat in one cycle of every LINK_DIV: a packet crosses plane (its header's
path mod PLANES), so order holds per (source, destination, plane).

Each NIC keeps a queue of packets per destination and starts a packet only toward a
destination its port does not pause (tx_pause, as the NIC's send scheduler does); it
offers beats on AXI-Stream (held until taken) and takes packets under random
backpressure, with stretches in which it takes almost nothing.

  fabric_random     random packets (DATA of random length and lane, one-beat packets,
                    packets of a reserved type of any length) between random nodes,
                    itself included: every packet arrives once, exact, at its
                    destination, in order per (source, destination, plane); nothing is dropped
                    anywhere (every drop and refusal counter of the switch and of the
                    ports is 0: the credits hold every buffer); at the end every credit
                    is back (each node's room at each crosspoint is XP_DEPTH, the
                    switch's room at each node RX_DEPTH).
  fabric_isolation  node 1 takes nothing while node 0 sends to nodes 1 and 2. VOQ = 1:
                    node 0's port pauses destination 1 and not 2, and every packet to node 2
                    arrives while node 1 is still stalled (the virtual output queues: a
                    congested destination does not block the others). VOQ = 0: node 0's
                    packets to node 2 stop arriving while some are still to come, the
                    switch's crosspoint toward node 2 having room for them (every credit of
                    node 0's class 2 back) and the one toward node 1 none: they wait behind
                    a packet to node 1 at the head of the one queue (head-of-line
                    blocking), and node 0's port pauses every destination. Then node 1
                    drains and everything arrives.

Replay: QRDMA_SEED=<seed printed at the start of a test>."""
from __future__ import annotations

import collections
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge

from model.fabric_model import (DATA_W, HDR, KEEP_W, USER_W, get, is_credit, make_packet,
                                pkt_id)
from seeding import seed_rng

MASKS = {"d": (1 << DATA_W) - 1, "k": (1 << KEEP_W) - 1, "u": (1 << USER_W) - 1}


class Tb:
    def __init__(self, dut, rng):
        self.dut, self.rng = dut, rng
        self.P = int(os.environ["P_P"])
        self.MAX_PKT = int(os.environ["P_MAX_PKT"])
        self.XP = int(os.environ["P_XP_DEPTH"])
        self.RX = int(os.environ["P_RX_DEPTH"])
        self.VOQ = int(os.environ.get("P_VOQ", "1"))
        self.PLANES = int(os.environ.get("P_PLANES", "1"))
        self.L = self.PLANES * self.P   # links each way (and ports, and switch ports)
        P = self.P
        self.pid = 0
        self.q = [[collections.deque() for _ in range(P)] for _ in range(P)]   # [src][dst]
        self.rr = [0] * P
        self.cur = [None] * P           # [pkt, index of the beat offered]
        self.ready_seen = [0] * P       # s_nic_tready read at the last falling edge
        self.rxpkt = [[] for _ in range(P)]
        self.expect = collections.defaultdict(collections.deque)   # (src, dst, plane) -> pkts
        self.got = [0] * P
        self.hold = [False] * P         # node takes nothing
        self.ready_p = 0.8
        self.gap_p = 0.1
        self.stretch = True             # stretches of cycles in which the NICs take little
        self.beats_got = collections.Counter()     # (src, dst) -> beats taken, once counting
        self.counting = False
        self.cycle = 0
        self.paused_seen = collections.Counter()   # (src, dst) -> cycles paused

    def post(self, src: int, dst: int) -> None:
        self.pid += 1
        pkt = make_packet(self.rng, self.pid, src, dst, dst, self.MAX_PKT,
                          paths=self.PLANES > 1)
        self.q[src][dst].append(pkt)
        self.expect[(src, dst, self.plane(pkt.beats[0][0]))].append(pkt)

    def plane(self, header: int) -> int:
        return get(header, HDR["path"]) % self.PLANES

    def pending(self, src: int, dst: int) -> int:
        """Packets from src to dst not arrived yet, over every plane."""
        return sum(len(self.expect[(src, dst, k)]) for k in range(self.PLANES))

    async def step(self) -> None:
        dut, rng, P = self.dut, self.rng, self.P
        await FallingEdge(dut.clk)
        self.cycle += 1
        pause = dut.tx_pause.value.to_unsigned()
        for s in range(P):
            for d in range(P):
                if pause >> (s * P + d) & 1:
                    self.paused_seen[(s, d)] += 1
        # ---- the NICs' streams in
        mv = dut.m_nic_tvalid.value.to_unsigned()
        ready = 0
        if mv:
            md = dut.m_nic_tdata.value.to_unsigned()
            mk = dut.m_nic_tkeep.value.to_unsigned()
            mu = dut.m_nic_tuser.value.to_unsigned()
            ml = dut.m_nic_tlast.value.to_unsigned()
        ready_p = self.ready_p if not self.stretch or self.cycle % 1000 > 120 else 0.05
        for p in range(P):
            r = not self.hold[p] and rng.random() < ready_p
            ready |= r << p
            if r and mv >> p & 1:
                self.take(p, ((md >> (p * DATA_W)) & MASKS["d"], (mk >> (p * KEEP_W)) & MASKS["k"],
                              (mu >> (p * USER_W)) & MASKS["u"]), ml >> p & 1)
        dut.m_nic_tready.value = ready
        # ---- the NICs' streams out: a beat offered stays until taken
        tr = dut.s_nic_tready.value.to_unsigned()
        tv = tl = td = tk = tu = 0
        for p in range(P):
            c = self.cur[p]
            if c is not None and c[1] >= 0 and self.ready_seen[p]:
                c[1] += 1                                  # taken at the last edge
                if c[1] == len(c[0].beats):
                    self.cur[p] = c = None
            if c is None:
                c = self.start(p, pause >> (p * P) & ((1 << P) - 1))
            if c is not None and c[1] < 0 and rng.random() >= self.gap_p:
                c[1] = 0                                   # (a gap before a packet)
            if c is not None and c[1] >= 0:
                b = c[0].beats[c[1]]
                tv |= 1 << p
                tl |= int(c[1] == len(c[0].beats) - 1) << p
                td |= b[0] << (p * DATA_W)
                tk |= b[1] << (p * KEEP_W)
                tu |= b[2] << (p * USER_W)
            self.ready_seen[p] = (tr >> p & 1) and (tv >> p & 1)
        dut.s_nic_tvalid.value = tv
        dut.s_nic_tlast.value = tl
        dut.s_nic_tdata.value = td
        dut.s_nic_tkeep.value = tk
        dut.s_nic_tuser.value = tu

    def start(self, p: int, paused: int):
        """The NIC's send scheduler: round robin over destinations not paused."""
        P = self.P
        for i in range(P):
            d = (self.rr[p] + i) % P
            if self.q[p][d] and not paused >> d & 1:
                self.rr[p] = (d + 1) % P
                self.cur[p] = [self.q[p][d].popleft(), -1]
                return self.cur[p]
        return None

    def take(self, p: int, beat, last: int) -> None:
        self.rxpkt[p].append(beat)
        if not last:
            return
        beats, self.rxpkt[p] = self.rxpkt[p], []
        h = beats[0][0]
        assert not is_credit(h), f"node {p} got a credit beat"
        src = get(h, HDR["src_node"])
        q = self.expect[(src, p, self.plane(h))]
        assert q, f"node {p}: a packet from {src} not expected (id {pkt_id(h)})"
        exp = q.popleft()
        assert beats == exp.beats, \
            f"node {p}: packet {exp.pid} from {src} differs (or out of order; got {pkt_id(h)})"
        self.got[p] += 1
        if self.counting:
            self.beats_got[(src, p)] += len(beats)

    def idle(self) -> bool:
        return (all(c is None for c in self.cur) and not any(self.expect.values())
                and not any(q for r in self.q for q in r))

    def counters(self, name: str, width: int = 32) -> list[int]:
        v = getattr(self.dut, name).value.to_unsigned()
        n = v.bit_length() // width + 1
        return [(v >> (width * i)) & ((1 << width) - 1) for i in range(max(n, self.L))]

    async def reset(self) -> None:
        dut = self.dut
        dut.rst.value = 1
        for s in ("s_nic_tvalid", "s_nic_tlast", "s_nic_tdata", "s_nic_tkeep", "s_nic_tuser",
                  "m_nic_tready"):
            getattr(dut, s).value = 0
        for _ in range(4):
            await FallingEdge(dut.clk)
        dut.rst.value = 0

    def check_quiet(self) -> None:
        """No drop anywhere, every credit back."""
        P, L = self.P, self.L
        for name in ("sw_noroute", "sw_bad", "sw_ovf", "sw_refused", "np_noroute", "np_bad",
                     "np_ovf", "np_refused"):
            assert self.counters(name)[:L] == [0] * L, f"{name}: {self.counters(name)[:L]}"
        assert self.counters("sw_credits", 16)[:L] == [self.RX] * L, \
            f"switches' room at the nodes: {self.counters('sw_credits', 16)[:L]}"
        assert self.counters("np_credits", 16)[:L * P] == [self.XP] * (L * P), \
            f"nodes' room at the crosspoints: {self.counters('np_credits', 16)[:L * P]}"


async def start(dut, name):
    rng = seed_rng(name)
    cocotb.start_soon(Clock(dut.clk, 2, "ns").start())
    tb = Tb(dut, rng)
    await tb.reset()
    return tb


async def settle(tb: Tb, cycles: int) -> None:
    tb.ready_p = 1.0
    for _ in range(cycles):
        await tb.step()


@cocotb.test()
async def fabric_random(dut):
    tb = await start(dut, "fabric_random")
    P, n = tb.P, int(os.environ["P_N"])
    for s in range(P):
        for _ in range(n):
            tb.post(s, tb.rng.randrange(P))
    limit = 200 * n * P
    while not tb.idle():
        await tb.step()
        assert tb.cycle < limit, f"not delivered by cycle {limit}: deadlock?"
    await settle(tb, int(os.environ["P_REFRESH"]) + 300)
    tb.check_quiet()
    assert sum(tb.paused_seen.values()) > 0, "no destination was ever paused"
    dut._log.info("%d cycles, packets per node %s, cycles paused %d", tb.cycle, tb.got,
                  sum(tb.paused_seen.values()))


@cocotb.test()
async def fabric_isolation(dut):
    tb = await start(dut, "fabric_isolation")
    tb.gap_p = 0.0
    tb.ready_p = 1.0
    tb.hold[1] = True
    k = 40
    for _ in range(k):
        tb.post(0, 1)
        tb.post(0, 2)
    if tb.VOQ:
        while tb.pending(0, 2):
            await tb.step()
            assert tb.cycle < 100 * k * tb.MAX_PKT, "node 2's packets held up behind node 1's"
        pause = tb.dut.tx_pause.value.to_unsigned()
        assert pause >> 1 & 1 and not pause >> 2 & 1, f"node 0's pause {pause & 0xF:04b}"
    else:
        # stuck: nothing more for node 2 in a stretch longer than a credit refresh
        quiet, still = 0, int(os.environ["P_REFRESH"]) + 300
        while tb.pending(0, 2) and quiet < still:
            got = tb.got[2]
            await tb.step()
            quiet = quiet + 1 if tb.got[2] == got else 0
            assert tb.cycle < 100 * k * tb.MAX_PKT
        assert tb.pending(0, 2), \
            "every packet to node 2 arrived past node 1's stalled ones: no head-of-line blocking"
        room = tb.counters("np_credits", 16)
        assert room[2] == tb.XP and room[1] < tb.MAX_PKT, \
            f"node 0's room at crosspoints (0, 1), (0, 2): {room[1]}, {room[2]}"
        pause = tb.dut.tx_pause.value.to_unsigned()
        assert pause & 0xF == 0xF, f"node 0's pause {pause & 0xF:04b}"
        dut._log.info("%d of node 0's %d packets to node 2 held up behind node 1's",
                      tb.pending(0, 2), k)
    assert tb.pending(0, 1), "node 1 took nothing, yet its packets are gone"
    tb.hold[1] = False
    while not tb.idle():
        await tb.step()
        assert tb.cycle < 400 * k * tb.MAX_PKT
    await settle(tb, int(os.environ["P_REFRESH"]) + 300)
    tb.check_quiet()


# (parameters, packets per node in fabric_random)
CONFIGS = [
    pytest.param({"P": 4, "VOQ": 1, "XP_DEPTH": 64, "VOQ_DEPTH": 128, "PAUSE_LEVEL": 64,
                  "RX_DEPTH": 64, "LINK_LAT": 4}, 200, id="p4"),
    pytest.param({"P": 8, "VOQ": 1, "XP_DEPTH": 32, "VOQ_DEPTH": 64, "PAUSE_LEVEL": 24,
                  "RX_DEPTH": 48, "LINK_LAT": 12}, 30, id="p8-long-links"),
    pytest.param({"P": 4, "VOQ": 0, "XP_DEPTH": 64, "VOQ_DEPTH": 128, "PAUSE_LEVEL": 64,
                  "RX_DEPTH": 64, "LINK_LAT": 4}, 80, id="p4-one-queue"),
    pytest.param({"P": 4, "VOQ": 1, "PLANES": 2, "LINK_DIV": 2, "XP_DEPTH": 64,
                  "VOQ_DEPTH": 128, "PAUSE_LEVEL": 32, "RX_DEPTH": 64, "LINK_LAT": 4}, 120,
                 id="p4-two-planes"),
]


@pytest.mark.parametrize("params,n", CONFIGS)
def test_qrdma_fabric(params, n):
    from simrun import full, run

    p = dict(params, MAX_PKT=17, REFRESH=256, UPD_MIN=17)
    env = {f"P_{k}": str(v) for k, v in p.items()}
    env["P_N"] = str(n * (5 if full() else 1))
    run("tb_qrdma_fabric", "test_qrdma_fabric", p, extra_env=env)
