# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Reference model and stimulus of the shared-space multi-queue ([QoS-RDMA] §3.7), used by
tests/common/test_qrdma_multi_queue_pipe.py: MultiQueueModel (a list of deques and the set
of entries in queues), the biased random phases (PHASES) that hit the hard cases, the
Stimulus that picks each cycle's legal operations, the case counts (Stats) and the
full-rate run (full_rate: an enqueue and a request every cycle) driven through the
test's Driver.
"""
import collections

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
