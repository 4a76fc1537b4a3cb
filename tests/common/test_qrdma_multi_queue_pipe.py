# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_multi_queue_pipe ([QoS-RDMA] §3.7, pipelined dequeue) against the reference model of
multi_queue_model.py (MultiQueueModel: a list of deques and the set of entries in queues).
Every cycle the test checks the whole empty and multi vectors (registered: they reflect
every earlier operation) and, in the cycle after a dequeue request, deq_entry.

  mqp_random     the random phases of multi_queue_model.py (enqueue and request of one
                 queue in one cycle, enqueue into a queue whose only entry is requested,
                 long runs of back-to-back requests of one queue, a request of a queue
                 the cycle after it was enqueued while empty, the entry just output
                 enqueued again, a few queues vs all, near-full); the "re-enqueue" case
                 takes the entry on deq_entry (the earliest the user knows it)
  mqp_full_rate  100,000 cycles with an enqueue AND a request in every cycle
  mqp_corners    the legal corner cases one by one: enqueue into an empty queue, enqueue
                 into a queue whose only entry is requested, re-enqueue of the entry output
  mqp_violation  the RTL checks: request of an empty queue, of a queue just emptied, a
                 request that is not one-hot, double enqueue, numbers out of range
Legal traffic never fails an assertion: every simulation runs with assertions on.
"""
import collections
import os
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

import violation
from seeding import seed_rng

sys.path.insert(0, str(Path(__file__).resolve().parent))
from multi_queue_model import PHASES, MultiQueueModel, Stats, Stimulus, full_rate  # noqa: E402


class PipeStimulus(Stimulus):
    """The stimulus of multi_queue_model.py with the pipelined timing: an enqueue
    presented in cycle t is in the model (MultiQueueModel, stepped by the driver) from the
    end of t+1, an entry requested in t is known to the user, and free again, in t+2 (the
    "re-enqueue" case takes the entry output in this cycle). Requests name queues that
    are non-empty in the model, which is what the RTL holds."""

    def __init__(self, model, rng):
        super().__init__(model, rng)
        self.out = None              # the entry on deq_entry in this cycle
        self.due = collections.deque()   # (cycle, entry): output (free again) in that cycle
        self.cycle = 0

    def pick(self):
        while self.due and self.due[0][0] <= self.cycle:
            e = self.due.popleft()[1]
            self.free.add(e)
            self.out = e
        eq, ee, dq, de = super().pick()
        if ee is not None and ee == de:
            if self.out is not None and self.out in self.free:
                ee = self.out
            elif self.free:
                ee = self.free.choice(self.rng)
            else:
                eq = ee = None
        elif ee is not None and self.out is not None and self.out in self.free \
                and self.rng.random() < self.p["reenq"]:
            ee = self.out
        return eq, ee, dq, de

    def commit(self, eq, ee, dq, de):
        """After the driver stepped the model (this cycle's request, last cycle's enqueue)."""
        m = self.m
        self.last_new = None
        if dq is not None:
            self.due.append((self.cycle + 2, de))
        if eq is not None:
            self.free.remove(ee)
        for k in {q for q in (dq, self.prev_eq) if q is not None}:
            if m.q[k] and k not in self.nonempty:
                self.nonempty.add(k)
                if len(m.q[k]) == 1:
                    self.last_new = k
            elif not m.q[k] and k in self.nonempty:
                self.nonempty.remove(k)
        self.prev_eq = eq
        self.last_deq = dq
        self.out = None
        self.cycle += 1

    prev_eq = None


async def reset(dut):
    dut.enq_valid.value = 0
    dut.deq_valid.value = 0
    dut.enq_queue.value = 0
    dut.enq_entry.value = 0
    dut.deq_sel.value = 0
    dut.rst.value = 1
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0


def params():
    return int(os.environ["P_NUM_QUEUES"]), int(os.environ["P_NUM_ENTRIES"])


async def start(dut):
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    await reset(dut)


def multi_of(m):
    v = 0
    for k, q in enumerate(m.q):
        if len(q) >= 2:
            v |= 1 << k
    return v


class Driver:
    """Drive right after the edge, sample in ReadOnly of the same cycle: the flags against
    the model (requests up to the last cycle, enqueues presented up to two cycles ago),
    deq_entry against the entry the model gave for the request of two cycles ago; then
    step the model with this cycle's request and the enqueue presented in the last one."""

    def __init__(self, dut, model):
        self.dut = dut
        self.m = model
        self.clk = dut.clk
        self.h = (dut.enq_valid, dut.enq_queue, dut.enq_entry, dut.deq_valid, dut.deq_sel)
        self.cur = [0, 0, 0, 0, 0]
        self.deq_entry = dut.deq_entry
        self.empty = dut.empty
        self.multi = dut.multi
        self.cycle = 0
        self.expect = collections.deque([None, None])   # (queue, entry) output in 2 cycles
        self.enq_prev = None                              # (queue, entry) presented last cycle
        self.hits = collections.Counter()                 # cases that took effect

    def check_out(self):
        e = self.expect.popleft()
        if e is not None:
            q, ent = e
            got = self.deq_entry.value.to_unsigned()
            if got != ent:
                raise AssertionError(f"cycle {self.cycle}: request of queue {q} gave entry "
                                     f"{got}, model {ent}")

    def step(self, dq):
        m = self.m
        got_empty = self.empty.value.to_unsigned()
        if got_empty != m.empty:
            raise AssertionError(f"cycle {self.cycle}: empty {got_empty:#x} != model {m.empty:#x}")
        got_multi = self.multi.value.to_unsigned()
        if got_multi != multi_of(m):
            raise AssertionError(
                f"cycle {self.cycle}: multi {got_multi:#x} != model {multi_of(m):#x}")
        self.check_out()
        eq, ee = self.enq_prev if self.enq_prev is not None else (None, None)
        if eq is not None and eq == dq:
            self.hits["enq_and_request_same_queue"] += 1
            if len(m.q[dq]) == 1:
                self.hits["enq_as_only_entry_leaves"] += 1
            if len(m.q[dq]) == 2:
                self.hits["enq_as_one_of_two_leaves"] += 1
        out = m.step(eq, ee, dq)
        self.expect.append(None if dq is None else (dq, out))
        self.cycle += 1

    async def run(self, ops):
        """ops: iterator of (eq, ee, dq, de, callback)."""
        h, cur = self.h, self.cur
        edge, ro = RisingEdge(self.clk), ReadOnly()
        for eq, ee, dq, de, after in ops:
            await edge
            new = (0, cur[1], cur[2], 0, 0) if eq is None else (1, eq, ee, 0, 0)
            if dq is not None:
                new = new[:3] + (1, 1 << dq)
            for i in range(5):
                if new[i] != cur[i]:
                    h[i].value = new[i]
                    cur[i] = new[i]
            await ro
            self.step(dq)
            self.enq_prev = None if eq is None else (eq, ee)
            if after is not None:
                after(eq, ee, dq, de)
        for _ in range(3):          # the last enqueue takes effect, the last outputs
            await edge
            for i in (0, 3):
                h[i].value = 0
                cur[i] = 0
            await ro
            self.step(None)
            self.enq_prev = None

    async def drain(self, stim=None):
        """Request every queue until all are empty, checking the order."""
        def ops():
            for k in range(self.m.nq):
                while self.m.q[k]:
                    yield None, None, k, self.m.q[k][0], stim.commit if stim else None
        await self.run(ops())
        assert self.empty.value.to_unsigned() == (1 << self.m.nq) - 1
        assert self.multi.value.to_unsigned() == 0


@cocotb.test()
async def mqp_random(dut):
    nq, ne = params()
    n_ops = int(os.environ["P_OPS"])
    rng = seed_rng("mqp_random")
    await start(dut)
    model = MultiQueueModel(nq, ne)
    stim = PipeStimulus(model, rng)
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
                if ee is not None and ee == stim.out:
                    stats.c["reenq_output"] += 1
                yield eq, ee, dq, de, stim.commit
            done += length

    await drv.run(ops())
    await drv.drain(stim)
    dut._log.info("mqp_random %dx%d: %s", nq, ne, dict(sorted(stats.c.items())))
    c = stats.c
    c.update(drv.hits)
    assert c["cycles"] >= n_ops
    for k in ("enq_and_request_same_queue", "enq_as_only_entry_leaves", "back_to_back_deq",
              "deq_after_enq_into_empty", "cycles_full", "reenq_output"):
        assert c[k] > 0, f"case {k} never hit"


@cocotb.test()
async def mqp_full_rate(dut):
    """An enqueue and a request in every one of N cycles: all accepted, all correct."""
    nq, ne = params()
    n = int(os.environ.get("P_FULL_RATE_CYCLES", "100000"))
    rng = seed_rng("mqp_full_rate")
    await start(dut)
    model = MultiQueueModel(nq, ne)
    drv = Driver(dut, model)
    stim = PipeStimulus(model, rng)
    cycles, stats = await full_rate(drv, stim, model, rng, n)
    assert cycles == n + 3
    await drv.drain(stim)
    dut._log.info("mqp_full_rate %dx%d: %d cycles, each with an enqueue and a request: %s",
                  nq, ne, n, dict(sorted(stats.c.items())))
    assert stats.c["enq_and_deq"] == n


@cocotb.test()
async def mqp_corners(dut):
    """Legal corner cases, each from an empty multi-queue, checked against the model: an
    enqueue into an empty queue, an enqueue taking effect in the cycle its queue's only
    entry is requested (one-entry and two-entry queue), the entry output enqueued again at
    once, back-to-back requests of one queue, a request the cycle after the enqueue took
    effect."""
    nq, ne = params()
    await start(dut)
    a, b, c = 0, 1, 2 % ne
    q0, q1 = 0, 1 % nq
    drv = Driver(dut, MultiQueueModel(nq, ne))
    N = (None, None, None, None, None)
    seq = [(q0, a, None, None, None), N, (q0, b, None, None, None),   # b arrives as a leaves
           (None, None, q0, a, None), N, (q1, a, None, None, None),     # a output: again
           (None, None, q0, b, None), (None, None, q1, a, None), N,
           (q1, b, None, None, None), (q1, a, None, None, None), N]      # b output: again
    if ne > 2:
        seq += [(q1, c, None, None, None), (None, None, q1, b, None),    # c arrives as b leaves
                (None, None, q1, a, None), (None, None, q1, c, None)]    # back to back
    await drv.run(iter(seq))
    await drv.drain()


VIOLATIONS = [
    ("deq_empty", "request of an empty queue", "dequeue from empty queue"),
    ("deq_emptied", "request of a queue just emptied", "dequeue from empty queue"),
    ("deq_two", "request of two queues at once", "not one-hot"),
    ("dup_other", "double enqueue into another queue", "already in a queue"),
    ("dup_requested", "enqueue of an entry requested, before it is output", "already in a queue"),
    ("enq_queue_range", "enqueue into a queue out of range", "out of range"),
    ("enq_entry_range", "enqueue of an entry out of range", "out of range"),
]


async def op(dut, eq=None, ee=None, sel=None):
    await RisingEdge(dut.clk)
    dut.enq_valid.value = int(eq is not None)
    dut.deq_valid.value = int(sel is not None)
    if eq is not None:
        dut.enq_queue.value = eq
        dut.enq_entry.value = ee
    dut.deq_sel.value = sel or 0
    await RisingEdge(dut.clk)
    dut.enq_valid.value = 0
    dut.deq_valid.value = 0


@cocotb.test(skip=violation.skip())
async def mqp_violation(dut):
    nq, ne = params()
    kind = violation.case()
    what = dict((c, w) for c, w, _ in VIOLATIONS)[kind]
    await start(dut)
    a, b = 0, 1
    legal, bad = {
        "deq_empty":       ([], dict(sel=1)),
        "deq_emptied":     ([dict(eq=1, ee=b), dict(sel=2)], dict(sel=2)),
        "deq_two":         ([dict(eq=0, ee=a), dict(eq=1, ee=b)], dict(sel=3)),
        "dup_other":       ([dict(eq=0, ee=a)], dict(eq=1, ee=a)),
        "dup_requested":   ([dict(eq=0, ee=a), dict(eq=0, ee=b)], dict(eq=1, ee=a, sel=1)),
        "enq_queue_range": ([], dict(eq=nq, ee=0)),
        "enq_entry_range": ([], dict(eq=0, ee=ne)),
    }[kind]
    for o in legal:
        await op(dut, **o)
    violation.announce(dut, what)
    await op(dut, **bad)
    for _ in range(3):
        await RisingEdge(dut.clk)
    violation.not_stopped(what)


# (testcases, NUM_QUEUES, NUM_ENTRIES, random cycles); one build per row
PARAMS = [
    ("mqp_random,mqp_full_rate", 66, 2048, 200_000),  # the QoS engine's configuration
    ("mqp_random", 8, 128, 200_000),
    ("mqp_random,mqp_corners", 5, 12, 150_000),       # few queues, often full
    ("mqp_random,mqp_corners", 1, 2, 25_000),         # one queue, two entries
]
FULL_SCALE = 10


@pytest.mark.parametrize("tests,nq,ne,ops", PARAMS)
def test_qrdma_multi_queue_pipe(tests, nq, ne, ops):
    from simrun import full, run

    if full():
        ops *= FULL_SCALE
    p = {"NUM_QUEUES": nq, "NUM_ENTRIES": ne}
    env = {f"P_{k}": str(v) for k, v in p.items()}
    env["P_OPS"] = str(ops)
    run("qrdma_multi_queue_pipe", "test_qrdma_multi_queue_pipe", p, testcase=tests,
        extra_env=env)


@pytest.mark.parametrize("kind,expect", [(c, e) for c, _, e in VIOLATIONS])
def test_qrdma_multi_queue_pipe_violation(capfd, kind, expect):
    p = {"NUM_QUEUES": 5, "NUM_ENTRIES": 12}
    env = {f"P_{k}": str(v) for k, v in p.items()}
    violation.run_violation(capfd, "qrdma_multi_queue_pipe", "test_qrdma_multi_queue_pipe", p,
                            "mqp_violation", kind, expect, extra_env=env)
