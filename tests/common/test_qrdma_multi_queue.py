# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_multi_queue ([QoS-RDMA] §3.7) against a reference model: a list of deques and the set
of entries in queues. Every cycle the test checks deq_entry (combinational, same cycle as
deq_valid) and the whole empty vector (registered: reflects every earlier operation).

  mq_random      random operations in biased phases that hit the hard cases: enqueue and
                 dequeue of one queue in one cycle, enqueue into a queue whose only entry
                 is leaving, long runs of back-to-back dequeues of one queue, enqueue into
                 an empty queue then dequeue it the next cycle, re-enqueue of the entry
                 being dequeued, a few queues vs all queues, near-full (every entry queued)
  mq_full_rate   100,000 cycles with an enqueue AND a dequeue in every cycle
  mq_corners     legal corner cases one by one: enqueue into an empty queue, enqueue into
                 a queue whose only entry leaves, re-enqueue of the leaving entry
  mq_violation   the RTL checks (assertions): one simulation per violation, expected to
                 stop on its assertion (tests/violation.py): dequeue from an empty queue
                 and from a queue just emptied, double enqueue (into another queue, into
                 the same queue, next to a dequeue of another entry), queue and entry
                 numbers out of range
Legal traffic never fails an assertion: every simulation runs with assertions on.

The random operations are split over several configurations (parameters in PARAMS below,
the seed's 66 x 2048 for the largest share) that pytest-xdist runs in parallel; together
they are >= 1,000,000 cycles (operations) in the default run.
"""
import collections
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

import violation
from seeding import seed_rng


# ------------------------------------------------------------------ reference model
class MultiQueueModel:
    """What the multi-queue must do, cycle by cycle (no simulator inside)."""

    def __init__(self, num_queues, num_entries):
        self.nq = num_queues
        self.ne = num_entries
        self.q = [collections.deque() for _ in range(num_queues)]
        self.inq = set()                      # entries in some queue
        self.empty = (1 << num_queues) - 1    # bit k: queue k empty (before this cycle)

    def head(self, k):
        return self.q[k][0]

    def step(self, enq_q, enq_e, deq_q):
        """One clock edge: a dequeue of deq_q and/or an enqueue of enq_e into enq_q (None:
        no operation). Returns the entry dequeued. The entry being dequeued may be
        enqueued again in the same cycle."""
        out = None
        if deq_q is not None:
            assert self.q[deq_q], f"dequeue from empty queue {deq_q}"
            out = self.q[deq_q].popleft()
            self.inq.discard(out)
            if not self.q[deq_q]:
                self.empty |= 1 << deq_q
        if enq_q is not None:
            assert enq_e not in self.inq, f"entry {enq_e} is already in a queue"
            self.q[enq_q].append(enq_e)
            self.inq.add(enq_e)
            self.empty &= ~(1 << enq_q)
        return out


# ------------------------------------------------------------------ stimulus
class IndexSet:
    """A set of small integers with O(1) add, remove and uniform random choice."""

    def __init__(self, items=()):
        self.items = []
        self.pos = {}
        for i in items:
            self.add(i)

    def __len__(self):
        return len(self.items)

    def __contains__(self, i):
        return i in self.pos

    def add(self, i):
        if i not in self.pos:
            self.pos[i] = len(self.items)
            self.items.append(i)

    def remove(self, i):
        p = self.pos.pop(i)
        last = self.items.pop()
        if p < len(self.items):
            self.items[p] = last
            self.pos[last] = p

    def choice(self, rng):
        return self.items[int(rng.random() * len(self.items))]


# A phase: enqueue/dequeue probabilities and biases.
#   sub     enqueues go to this many queues (0: all), a random subset chosen per phase
#   same    P(enqueue into the queue being dequeued)
#   stick   P(dequeue the queue dequeued in the previous cycle: back-to-back dequeues)
#   new     P(dequeue the queue that was enqueued while empty in the previous cycle)
#   eq      P(enqueue into an empty queue of the subset)
#   reenq   P(enqueue the entry being dequeued in the same cycle)
#   len     length in cycles, as a multiple of NUM_ENTRIES (at least MIN_PHASE)
PHASES = {
    "uniform":     dict(enq=0.5, deq=0.5, sub=0, same=0.0, stick=0.0, new=0.0, eq=0.0,
                        reenq=0.0, len=2.0),
    "busy":        dict(enq=0.9, deq=0.9, sub=0, same=0.2, stick=0.3, new=0.2, eq=0.1,
                        reenq=0.05, len=2.0),
    "same_queue":  dict(enq=0.9, deq=0.9, sub=2, same=0.8, stick=0.5, new=0.3, eq=0.2,
                        reenq=0.1, len=1.0),
    "last_entry":  dict(enq=0.6, deq=0.95, sub=3, same=0.9, stick=0.3, new=0.9, eq=0.5,
                        reenq=0.2, len=1.0),
    "fill_few":    dict(enq=1.0, deq=0.15, sub=2, same=0.1, stick=0.5, new=0.0, eq=0.0,
                        reenq=0.0, len=1.0),
    "drain_b2b":   dict(enq=0.2, deq=1.0, sub=2, same=0.3, stick=0.97, new=0.0, eq=0.0,
                        reenq=0.1, len=1.5),
    "empty_then":  dict(enq=0.8, deq=0.8, sub=0, same=0.2, stick=0.1, new=0.9, eq=0.9,
                        reenq=0.1, len=1.0),
    "few_queues":  dict(enq=0.6, deq=0.6, sub=4, same=0.3, stick=0.5, new=0.3, eq=0.2,
                        reenq=0.1, len=1.0),
    "near_full":   dict(enq=1.0, deq=0.5, sub=0, same=0.2, stick=0.5, new=0.1, eq=0.1,
                        reenq=0.5, len=4.0),
    "drain":       dict(enq=0.0, deq=1.0, sub=0, same=0.0, stick=0.5, new=0.0, eq=0.0,
                        reenq=0.0, len=1.5),
}
MIN_PHASE = 300


class Stimulus:
    """Chooses the operations of each cycle, legal by construction, from the model's state."""

    def __init__(self, model, rng):
        self.m = model
        self.rng = rng
        self.free = IndexSet(range(model.ne))   # entries in no queue
        self.nonempty = IndexSet()              # queues with entries
        self.last_deq = None
        self.last_new = None                    # queue enqueued while empty last cycle
        self.set_phase("uniform")

    def set_phase(self, name):
        self.phase = name
        p = PHASES[name]
        self.p = p
        nq = self.m.nq
        if p["sub"] and p["sub"] < nq:
            self.subset = self.rng.sample(range(nq), p["sub"])
        else:
            self.subset = list(range(nq))
        return max(MIN_PHASE, int(p["len"] * self.m.ne))

    def pick(self):
        """(enq_queue, enq_entry, deq_queue, expected deq_entry); None where no operation."""
        rng, p, m = self.rng, self.p, self.m
        dq = de = None
        if self.nonempty and rng.random() < p["deq"]:
            if self.last_deq is not None and self.last_deq in self.nonempty \
                    and rng.random() < p["stick"]:
                dq = self.last_deq
            elif self.last_new is not None and self.last_new in self.nonempty \
                    and rng.random() < p["new"]:
                dq = self.last_new
            else:
                dq = self.nonempty.choice(rng)
            de = m.q[dq][0]
        eq = ee = None
        if rng.random() < p["enq"]:
            if de is not None and (not self.free or rng.random() < p["reenq"]):
                ee = de
            elif self.free:
                ee = self.free.choice(rng)
            if ee is not None:
                if dq is not None and rng.random() < p["same"]:
                    eq = dq
                else:
                    sub = self.subset
                    eq = sub[int(rng.random() * len(sub))]
                    if rng.random() < p["eq"]:
                        for _ in range(4):
                            if not m.q[eq]:
                                break
                            eq = sub[int(rng.random() * len(sub))]
        return eq, ee, dq, de

    def commit(self, eq, ee, dq, de):
        """Book-keeping after the model applied the operations of one cycle."""
        m = self.m
        self.last_new = None
        if dq is not None:
            self.free.add(de)
            if not m.q[dq] and dq in self.nonempty:
                self.nonempty.remove(dq)
        if eq is not None:
            self.free.remove(ee)
            if eq not in self.nonempty:
                self.nonempty.add(eq)
            if len(m.q[eq]) == 1 and eq != dq:
                self.last_new = eq
        self.last_deq = dq


# ------------------------------------------------------------------ helpers
class Stats:
    """Counts of the cases a run hit (the hard cases must all be hit)."""

    def __init__(self):
        self.c = collections.Counter()

    def count(self, m, stim, eq, dq):
        """Call before the model steps (queue lengths are those before the cycle)."""
        c = self.c
        c["cycles"] += 1
        if eq is not None:
            c["enq"] += 1
        if dq is not None:
            c["deq"] += 1
            if eq is not None:
                c["enq_and_deq"] += 1
                if eq == dq:
                    c["same_queue"] += 1
                    if len(m.q[dq]) == 1:
                        c["enq_into_leaving_last"] += 1
            if dq == stim.last_deq:
                c["back_to_back_deq"] += 1
            if dq == stim.last_new:
                c["deq_after_enq_into_empty"] += 1
        if not stim.free:
            c["cycles_full"] += 1


async def reset(dut):
    dut.enq_valid.value = 0
    dut.deq_valid.value = 0
    dut.enq_queue.value = 0
    dut.enq_entry.value = 0
    dut.deq_queue.value = 0
    dut.rst.value = 1
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0


def params():
    return int(os.environ["P_NUM_QUEUES"]), int(os.environ["P_NUM_ENTRIES"])


async def start(dut):
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    await reset(dut)


class Driver:
    """The per-cycle loop: drive right after the edge, sample in ReadOnly of the same cycle,
    check deq_entry and empty against the model, then step the model. Kept lean: handles
    are cached, an input is written only when it changes."""

    def __init__(self, dut, model):
        self.dut = dut
        self.m = model
        self.clk = dut.clk
        self.h = (dut.enq_valid, dut.enq_queue, dut.enq_entry, dut.deq_valid, dut.deq_queue)
        self.cur = [0, 0, 0, 0, 0]
        self.deq_entry = dut.deq_entry
        self.empty = dut.empty
        self.cycle = 0

    async def run(self, ops):
        """ops: iterator of (eq, ee, dq, de, callback)."""
        h, cur, m = self.h, self.cur, self.m
        clk, deq_entry, empty = self.clk, self.deq_entry, self.empty
        edge, ro = RisingEdge(clk), ReadOnly()
        for eq, ee, dq, de, after in ops:
            await edge
            new = (0, cur[1], cur[2], 0, cur[4]) if eq is None else (1, eq, ee, 0, cur[4])
            if dq is not None:
                new = new[:3] + (1, dq)
            for i in range(5):
                if new[i] != cur[i]:
                    h[i].value = new[i]
                    cur[i] = new[i]
            await ro
            got_empty = empty.value.to_unsigned()
            if got_empty != m.empty:
                raise AssertionError(
                    f"cycle {self.cycle}: empty {got_empty:#x} != model {m.empty:#x}")
            if dq is not None:
                got = deq_entry.value.to_unsigned()
                if got != de:
                    raise AssertionError(
                        f"cycle {self.cycle}: dequeue of queue {dq} gave entry {got}, "
                        f"model {de} (queue length {len(m.q[dq])})")
            m.step(eq, ee, dq)
            self.cycle += 1
            if after is not None:
                after(eq, ee, dq, de)
        await edge
        for i in (0, 3):
            h[i].value = 0
            cur[i] = 0

    async def drain(self, stim=None):
        """Dequeue every queue until all are empty, checking the order."""
        def ops():
            for k in range(self.m.nq):
                while self.m.q[k]:
                    yield None, None, k, self.m.q[k][0], stim.commit if stim else None
        await self.run(ops())
        await ReadOnly()
        assert self.empty.value.to_unsigned() == (1 << self.m.nq) - 1


# ------------------------------------------------------------------ tests
@cocotb.test()
async def mq_random(dut):
    nq, ne = params()
    n_ops = int(os.environ["P_OPS"])
    rng = seed_rng("mq_random")
    await start(dut)
    model = MultiQueueModel(nq, ne)
    stim = Stimulus(model, rng)
    stats = Stats()
    drv = Driver(dut, model)
    names = list(PHASES)

    def ops():
        done = 0
        order = []
        while done < n_ops:
            if not order:
                order = names[:]
                rng.shuffle(order)
            length = min(stim.set_phase(order.pop()), n_ops - done)
            stats.c["phase_" + stim.phase] += 1
            for _ in range(length):
                eq, ee, dq, de = stim.pick()
                stats.count(model, stim, eq, dq)
                yield eq, ee, dq, de, stim.commit
            done += length

    await drv.run(ops())
    await drv.drain(stim)
    dut._log.info("mq_random %dx%d: %s", nq, ne, dict(sorted(stats.c.items())))
    c = stats.c
    assert c["cycles"] >= n_ops
    # the hard cases were hit
    for k in ("same_queue", "enq_into_leaving_last", "back_to_back_deq",
              "deq_after_enq_into_empty", "cycles_full"):
        assert c[k] > 0, f"case {k} never hit"


async def full_rate(drv, stim, model, rng, n):
    """An enqueue and a request in each of n cycles after a pre-fill (not counted; the
    occupancy stays constant afterwards: a few entries per queue keeps queues short,
    the subset phases make long ones). Returns the cycles the n operations took and the
    statistics of the cases they hit."""
    nq, ne = model.nq, model.ne
    stats = Stats()
    stim.set_phase("uniform")

    def prefill():
        for _ in range(max(1, min(ne // 2, 4 * nq))):
            e = stim.free.choice(rng)
            q = int(rng.random() * nq)
            yield q, e, None, None, stim.commit

    await drv.run(prefill())
    both = 0

    def ops():
        nonlocal both
        for i in range(n):
            if i % 5000 == 0:
                stim.set_phase(("busy", "same_queue", "last_entry", "drain_b2b")[(i // 5000) % 4])
                stim.p = dict(stim.p, enq=1.0, deq=1.0)
            eq, ee, dq, de = stim.pick()
            assert eq is not None and dq is not None
            stats.count(model, stim, eq, dq)
            both += 1
            yield eq, ee, dq, de, stim.commit

    c0 = drv.cycle
    await drv.run(ops())
    assert both == n
    return drv.cycle - c0, stats


@cocotb.test()
async def mq_full_rate(dut):
    """An enqueue and a dequeue in every one of N cycles: all accepted, all correct."""
    nq, ne = params()
    n = int(os.environ.get("P_FULL_RATE_CYCLES", "100000"))
    rng = seed_rng("mq_full_rate")
    await start(dut)
    model = MultiQueueModel(nq, ne)
    drv = Driver(dut, model)
    stim = Stimulus(model, rng)
    cycles, stats = await full_rate(drv, stim, model, rng, n)
    assert cycles == n
    await drv.drain(stim)
    dut._log.info("mq_full_rate %dx%d: %d cycles, each with an enqueue and a dequeue: %s",
                  nq, ne, n, dict(sorted(stats.c.items())))
    assert stats.c["enq_and_deq"] == n


async def op(dut, eq=None, ee=None, dq=None):
    """One cycle with the given enqueue and/or dequeue, then one idle cycle."""
    await RisingEdge(dut.clk)
    dut.enq_valid.value = int(eq is not None)
    dut.deq_valid.value = int(dq is not None)
    if eq is not None:
        dut.enq_queue.value = eq
        dut.enq_entry.value = ee
    if dq is not None:
        dut.deq_queue.value = dq
    await RisingEdge(dut.clk)
    dut.enq_valid.value = 0
    dut.deq_valid.value = 0


@cocotb.test()
async def mq_corners(dut):
    """Legal corner cases, each from an empty multi-queue, checked against the model."""
    nq, ne = params()
    await start(dut)
    a, b = 0, 1            # two entries (NUM_ENTRIES >= 2)
    q0, q1 = 0, 1 % nq     # two queues (the same one when NUM_QUEUES is 1)
    drv = Driver(dut, MultiQueueModel(nq, ne))
    # enqueue into an empty queue, enqueue into a queue whose only entry leaves,
    # re-enqueue of the leaving entry
    await drv.run(iter([(q0, a, None, None, None), (q0, b, q0, a, None),
                        (q1, a, q0, b, None), (q1, b, q1, a, None), (q1, a, q1, b, None)]))
    await drv.drain()
    await RisingEdge(dut.clk)
    await reset(dut)
    await op(dut, eq=q0, ee=a)
    await op(dut, eq=q1, ee=a, dq=q0)  # the leaving entry into another queue
    await op(dut, dq=q1)


# (case, what, expected assertion message) of mq_violation; the range cases need
# NUM_QUEUES and NUM_ENTRIES that are not powers of 2
VIOLATIONS = [
    ("deq_empty", "dequeue from an empty queue", "dequeue from empty queue"),
    ("deq_emptied", "dequeue from a queue just emptied", "dequeue from empty queue"),
    ("dup_other", "double enqueue into another queue", "already in a queue"),
    ("dup_same", "double enqueue into the same queue", "already in a queue"),
    ("dup_deq", "double enqueue next to a dequeue of another entry", "already in a queue"),
    ("enq_queue_range", "enqueue into a queue out of range", "out of range"),
    ("deq_queue_range", "dequeue from a queue out of range", "out of range"),
    ("enq_entry_range", "enqueue of an entry out of range", "out of range"),
]


@cocotb.test(skip=violation.skip())
async def mq_violation(dut):
    """Legal operations, then the one violation P_VIOLATION: the assertion stops the run."""
    nq, ne = params()
    kind = violation.case()
    what = dict((c, w) for c, w, _ in VIOLATIONS)[kind]
    await start(dut)
    a, b = 0, 1
    q0, q1 = 0, 1 % nq
    legal, bad = {
        "deq_empty":       ([], dict(dq=q0)),
        "deq_emptied":     ([dict(eq=q1, ee=b), dict(dq=q1)], dict(dq=q1)),
        "dup_other":       ([dict(eq=q0, ee=a)], dict(eq=q1, ee=a)),
        "dup_same":        ([dict(eq=q0, ee=a), dict(eq=q0, ee=b)], dict(eq=q0, ee=b)),
        # the dequeue frees a, not b
        "dup_deq":         ([dict(eq=q0, ee=a), dict(eq=q0, ee=b)], dict(eq=q1, ee=b, dq=q0)),
        "enq_queue_range": ([], dict(eq=nq, ee=0)),
        "deq_queue_range": ([dict(eq=q0, ee=a)], dict(dq=nq)),
        "enq_entry_range": ([], dict(eq=0, ee=ne)),
    }[kind]
    for o in legal:
        await op(dut, **o)
    violation.announce(dut, what)
    await op(dut, **bad)
    for _ in range(3):
        await RisingEdge(dut.clk)
    violation.not_stopped(what)


# ------------------------------------------------------------------ pytest
# (testcases, NUM_QUEUES, NUM_ENTRIES, random cycles). Each row is one simulation (one
# build: rows must differ in parameters, build directories are keyed by them).
PARAMS = [
    ("mq_random,mq_full_rate", 66, 2048, 600_000),  # the seed's configuration
    ("mq_random", 8, 128, 250_000),
    ("mq_random,mq_corners", 5, 12, 150_000),       # few queues, often full
    ("mq_random,mq_corners", 1, 2, 25_000),         # degenerate: one queue, two entries
]
FULL_SCALE = 10


@pytest.mark.parametrize("tests,nq,ne,ops", PARAMS)
def test_qrdma_multi_queue(tests, nq, ne, ops):
    from simrun import full, run

    if full():
        ops *= FULL_SCALE
    p = {"NUM_QUEUES": nq, "NUM_ENTRIES": ne}
    env = {f"P_{k}": str(v) for k, v in p.items()}
    env["P_OPS"] = str(ops)
    run("qrdma_multi_queue", "test_qrdma_multi_queue", p, testcase=tests, extra_env=env)


def test_total_random_operations():
    """The default run's random operations add up to at least 1,000,000 cycles."""
    assert sum(r[3] for r in PARAMS if "mq_random" in r[0]) >= 1_000_000


@pytest.mark.parametrize("kind,expect", [(c, e) for c, _, e in VIOLATIONS])
def test_qrdma_multi_queue_violation(capfd, kind, expect):
    """Each violation stops the simulation on the multi-queue's assertion (5 queues, 12
    entries: numbers out of range are representable)."""
    p = {"NUM_QUEUES": 5, "NUM_ENTRIES": 12}
    env = {f"P_{k}": str(v) for k, v in p.items()}
    violation.run_violation(capfd, "qrdma_multi_queue", "test_qrdma_multi_queue", p,
                            "mq_violation", kind, expect, extra_env=env)
