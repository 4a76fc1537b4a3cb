# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_id_pool against a reference model.

  id_pool_init         ready is low during reset and for exactly NUM_IDS cycles after it;
                       m_valid rises with ready; the IDs come out FIRST_ID.. in order;
                       exhaustion (m_valid low with every ID allocated) and recovery
  id_pool_random       random allocation (random backpressure on m_*) and random returns
                       (random idle on free_*) of allocated IDs, checked cycle by cycle
                       against a model of the free FIFO: every ID handed out is the oldest
                       free one, m_valid is high once the oldest free ID has had the FIFO's
                       latency (1 cycle registers, 3 block RAM) to reach the head; phases
                       drain the pool to exhaustion and refill it; nothing is lost at the end
  id_pool_violation    the RTL checks (assertions): one simulation per violation, expected
                       to stop on its assertion (tests/violation.py): double free of a
                       pooled ID, of an ID returned twice (the first return is legal),
                       during initialisation, in the cycle it is allocated; a return of an
                       ID below and above the pool's range
Legal traffic never fails an assertion: every simulation runs with assertions on.
"""
import collections
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge
from cocotbext.axi.stream import define_stream

import violation
from seeding import seed_rng
from streams import quiet, random_pause

IdBus, IdTransaction, IdSource, IdSink, IdMonitor = define_stream(
    "Id", signals=["id", "valid", "ready"])


def cfg():
    n = int(os.environ["P_NUM_IDS"])
    first = int(os.environ["P_FIRST_ID"])
    id_w = int(os.environ["P_ID_W"])
    lat = 3 if n >= int(os.environ["P_RAM_MIN_DEPTH"]) else 1
    return n, first, id_w, lat


class IdPoolModel:
    """The pool after reset: cycle `now` counts cycles with rst low from 0. The
    initializer pushes FIRST_ID+k at the edge ending cycle k; ready from cycle NUM_IDS."""

    def __init__(self, num_ids, first_id, latency):
        self.n = num_ids
        self.first = first_id
        self.lat = latency
        self.q = collections.deque((first_id + k, k) for k in range(num_ids))  # (id, edge pushed)
        self.allocated = set()

    def ready(self, now):
        return now >= self.n

    def must_be_valid(self, now):
        return self.ready(now) and bool(self.q) and self.q[0][1] <= now - self.lat

    def alloc(self):
        i = self.q.popleft()[0]
        self.allocated.add(i)
        return i

    def free(self, i, now):
        assert i in self.allocated, f"test bug: returning {i} which is not allocated"
        self.allocated.remove(i)
        self.q.append((i, now))


async def reset(dut):
    dut.rst.value = 1
    dut.free_valid.value = 0
    dut.free_id.value = 0
    for _ in range(3):
        await RisingEdge(dut.clk)
        await ReadOnly()
        assert int(dut.ready.value) == 0 and int(dut.m_valid.value) == 0, "ready/m_valid in reset"
    await RisingEdge(dut.clk)
    dut.rst.value = 0


class PoolBench:
    """Drives returns (random idle) and checks every cycle against IdPoolModel; the
    allocation side is a StreamSink with random backpressure."""

    def __init__(self, dut, rng, free_idle=0.5, alloc_stall=0.3):
        self.dut = dut
        self.rng = rng
        self.n, self.first, self.id_w, self.lat = cfg()
        self.free_idle = free_idle
        quiet(dut, "m")
        self.sink = IdSink(IdBus.from_prefix(dut, "m"), dut.clk, dut.rst)
        self.stall(alloc_stall)
        self.now = 0
        self.model = IdPoolModel(self.n, self.first, self.lat)
        self.returnable = []      # allocated and not yet chosen for return
        self.exhausted = 0        # cycles with ready and every ID allocated
        self.full = 0             # cycles after ready with every ID in the pool

    def stall(self, p):
        """Backpressure on the allocation side: m_ready low with probability p."""
        random_pause(self.sink, self.rng, p)

    async def cycle(self):
        """One clock cycle: we are right after a rising edge (now = this cycle)."""
        dut, m = self.dut, self.model
        ret = None
        if self.returnable and self.rng.random() >= self.free_idle:
            ret = self.returnable.pop(self.rng.randrange(len(self.returnable)))
        dut.free_valid.value = int(ret is not None)
        dut.free_id.value = ret if ret is not None else self.rng.randrange(1 << self.id_w)
        await ReadOnly()
        ready, m_valid = int(dut.ready.value), int(dut.m_valid.value)
        assert ready == m.ready(self.now), f"cycle {self.now}: ready {ready}"
        if m.must_be_valid(self.now):
            assert m_valid, f"cycle {self.now}: ID {m.q[0][0]} (pushed {m.q[0][1]}) not offered"
        if m_valid:
            assert ready and m.q, f"cycle {self.now}: m_valid with {'no ' if ready else 'not '}ready"
        if ready and not m.q:
            self.exhausted += 1
        if ready and not m.allocated:
            self.full += 1
        if m_valid and int(dut.m_ready.value):
            got = int(dut.m_id.value)
            want = m.alloc()
            assert got == want, f"cycle {self.now}: allocated ID {got}, the oldest free is {want}"
            self.returnable.append(got)
        if ret is not None:
            m.free(ret, self.now)
        self.now += 1
        await RisingEdge(dut.clk)


@cocotb.test()
async def id_pool_init(dut):
    n, first, _, lat = cfg()
    rng = seed_rng("id_pool_init")
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    dut.m_ready.value = 0
    await reset(dut)
    # exact ready latency, counted independently of the model
    low = 0
    while True:
        await ReadOnly()
        if int(dut.ready.value):
            break
        assert int(dut.m_valid.value) == 0, "m_valid before ready"
        low += 1
        assert low <= n + 10, "ready never rises"
        await RisingEdge(dut.clk)
    assert low == n, f"ready low for {low} cycles after reset, expected NUM_IDS = {n}"
    assert int(dut.m_valid.value) == 1, "m_valid does not rise with ready"
    await RisingEdge(dut.clk)
    # take every ID back to back: FIRST_ID.. in increasing order, then exhaustion (no
    # m_valid in the 20 cycles after the last one)
    got = []
    dut.m_ready.value = 1
    for _ in range(n + 20):
        await ReadOnly()
        if int(dut.m_valid.value):
            got.append(int(dut.m_id.value))
        await RisingEdge(dut.clk)
    dut.m_ready.value = 0
    assert got == list(range(first, first + n)), f"initial IDs {got}"
    # recovery: return a random permutation, they come out in the order returned
    order = list(range(first, first + n))
    rng.shuffle(order)
    for i in order:
        dut.free_valid.value = 1
        dut.free_id.value = i
        await RisingEdge(dut.clk)
    dut.free_valid.value = 0
    got = []
    dut.m_ready.value = 1
    for _ in range(n + lat + 5):
        await ReadOnly()
        if int(dut.m_valid.value):
            got.append(int(dut.m_id.value))
        await RisingEdge(dut.clk)
    dut.m_ready.value = 0
    assert got == order


@cocotb.test()
async def id_pool_random(dut):
    n, first, _, _ = cfg()
    rng = seed_rng("id_pool_random")
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    await reset(dut)
    b = PoolBench(dut, rng)
    m = b.model

    async def run_until(cond, limit):
        start = b.now
        while not cond():
            await b.cycle()
            assert b.now - start < limit, "phase did not reach its end condition"

    # (free idle, alloc stall, until): random, drain to exhaustion, refill, burst, random
    await run_until(lambda: b.now >= n + 1500, 10 * n + 5000)
    b.free_idle, b.exhausted = 1.0, 0
    b.stall(0.2)
    await run_until(lambda: b.exhausted > 30, 20 * n + 200)
    b.free_idle, b.full = 0.2, 0
    b.stall(1.0)
    await run_until(lambda: b.full > 30, 20 * n + 200)
    b.free_idle = 0.0
    b.stall(0.0)
    stop = b.now + 1000
    await run_until(lambda: b.now >= stop, 2000)
    b.free_idle = 0.6
    b.stall(0.6)
    stop = b.now + 1500
    await run_until(lambda: b.now >= stop, 2000)
    # scoreboard: return everything, every ID is in the pool exactly once
    b.free_idle = 0.0
    b.stall(1.0)
    await run_until(lambda: not m.allocated, 20 * n + 200)
    assert sorted(i for i, _ in m.q) == list(range(first, first + n))
    assert b.exhausted > 30 and b.full > 30
    assert b.sink.count() >= 1000    # IDs allocated


# (case, what, expected assertion message) of id_pool_violation
VIOLATIONS = [
    ("pooled", "return of a pooled ID (never allocated)", "double free"),
    ("twice", "second return of an allocated ID", "double free"),
    ("init", "return during initialisation", "double free"),
    ("alloc_cycle", "return of the ID allocated in the same cycle", "double free"),
    ("below", "return of an ID below the pool", "outside the pool"),
    ("above", "return of an ID above the pool", "outside the pool"),
]


@cocotb.test(skip=violation.skip())
async def id_pool_violation(dut):
    """Legal traffic, then the one violation P_VIOLATION: the assertion stops the run."""
    n, first, id_w, _ = cfg()
    last = first + n - 1
    kind = violation.case()
    what = dict((c, w) for c, w, _ in VIOLATIONS)[kind]
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    dut.m_ready.value = 0

    async def wait_ready():
        while True:
            await ReadOnly()
            if int(dut.ready.value):
                break
            await RisingEdge(dut.clk)
        await RisingEdge(dut.clk)

    async def ret(i, take=False):
        """Return ID i in one cycle (with take: also allocate the head in that cycle)."""
        dut.free_valid.value = 1
        dut.free_id.value = i
        dut.m_ready.value = int(take)
        await RisingEdge(dut.clk)
        dut.free_valid.value = 0
        dut.m_ready.value = 0
        await RisingEdge(dut.clk)

    async def take():
        dut.m_ready.value = 1
        await ReadOnly()
        assert int(dut.m_valid.value)
        i = int(dut.m_id.value)
        await RisingEdge(dut.clk)
        dut.m_ready.value = 0
        return i

    await reset(dut)
    if kind == "init":
        violation.announce(dut, what)
        await ret(first + n // 2)
    else:
        await wait_ready()
        i = await take()
        assert i == first
        if kind == "pooled":
            violation.announce(dut, what)
            await ret(last if n > 1 else first - 1)
        elif kind == "twice":
            await ret(i)                       # legal
            violation.announce(dut, what)
            await ret(i)
        elif kind == "alloc_cycle":
            await ret(i)                       # legal: the pool is full again
            violation.announce(dut, what)
            await ret(first + 1 if n > 1 else first, take=True)
        else:                                  # out of range: ID i may be returned
            o = first - 1 if kind == "below" else last + 1
            assert 0 <= o < 1 << id_w, "test bug: ID not representable"
            violation.announce(dut, what)
            await ret(o)
    for _ in range(3):
        await RisingEdge(dut.clk)
    violation.not_stopped(what)


def id_w_default(num_ids, first_id):
    return max(1, (first_id + num_ids - 1).bit_length())


def params():
    from simrun import full

    # NUM_IDS, FIRST_ID, ID_W (None: the default), RAM_MIN_DEPTH
    p = [(16, 4, None, 64), (100, 128, None, 64)]
    if full():
        p += [(1, 5, 8, 64), (64, 0, None, 2)]
    return p


@pytest.mark.parametrize("num_ids,first_id,id_w,ram_min", params())
def test_qrdma_id_pool(num_ids, first_id, id_w, ram_min):
    from simrun import run

    p = {"NUM_IDS": num_ids, "FIRST_ID": first_id, "RAM_MIN_DEPTH": ram_min}
    if id_w is not None:
        p["ID_W"] = id_w
    env = {f"P_{k}": str(v) for k, v in p.items()}
    env["P_ID_W"] = str(id_w if id_w is not None else id_w_default(num_ids, first_id))
    run("qrdma_id_pool", "test_qrdma_id_pool", p, extra_env=env)


@pytest.mark.parametrize("kind,expect", [(c, e) for c, _, e in VIOLATIONS])
def test_qrdma_id_pool_violation(capfd, kind, expect):
    """Each violation stops the simulation on the pool's assertion (NUM_IDS 16, FIRST_ID 4:
    IDs below and above the pool are representable)."""
    p = {"NUM_IDS": 16, "FIRST_ID": 4, "RAM_MIN_DEPTH": 64}
    env = {f"P_{k}": str(v) for k, v in p.items()}
    env["P_ID_W"] = str(id_w_default(16, 4))
    violation.run_violation(capfd, "qrdma_id_pool", "test_qrdma_id_pool", p,
                            "id_pool_violation", kind, expect, extra_env=env)
