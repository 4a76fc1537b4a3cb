# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""cocotb module of the common-blocks benchmark (tests/bench/bench_common.py): sustained
operations per cycle of qrdma_multi_queue, measured in simulation, every dequeued entry
checked against the reference model of test_qrdma_multi_queue. Writes its figures as JSON
to $P_BENCH_OUT.

  full_rate     an enqueue and a dequeue in every cycle for N cycles, spread over all
                queues (a quarter of the entries queued)
  b2b_drain     one queue holding every entry, dequeued every cycle until empty
  b2b_rotate    one queue dequeued every cycle for N cycles while the dequeued entry is
                enqueued back into it in the same cycle
  latency       cycles from an enqueue into an empty queue until the empty flag falls and
                the entry can be dequeued
"""
import json
import os

import cocotb
from cocotb.triggers import ReadOnly, RisingEdge

from seeding import seed_rng
from test_qrdma_multi_queue import Driver, MultiQueueModel, start


class Counted:
    """Wraps an operation iterator and counts what it issues."""

    def __init__(self, ops):
        self.ops = ops
        self.enq = 0
        self.deq = 0
        self.cycles = 0

    def __iter__(self):
        for op in self.ops:
            self.cycles += 1
            self.enq += op[0] is not None
            self.deq += op[2] is not None
            yield op


async def measure(dut, drv, ops):
    """Runs ops (one per cycle) and returns their counts and the cycles elapsed."""
    c = Counted(ops)
    t0 = drv.cycle
    await drv.run(c)
    elapsed = drv.cycle - t0
    assert elapsed == c.cycles
    return {"cycles": elapsed, "enqueues": c.enq, "dequeues": c.deq,
            "ops_per_cycle": round((c.enq + c.deq) / elapsed, 4),
            "dequeues_per_cycle": round(c.deq / elapsed, 4)}


@cocotb.test()
async def bench(dut):
    nq, ne = int(os.environ["P_NUM_QUEUES"]), int(os.environ["P_NUM_ENTRIES"])
    n = int(os.environ.get("P_BENCH_CYCLES", "10000"))
    rng = seed_rng("bench_qrdma_multi_queue")
    await start(dut)
    res = {"num_queues": nq, "num_entries": ne}

    # full rate over all queues
    m = MultiQueueModel(nq, ne)
    drv = Driver(dut, m)
    free = list(range(ne))
    rng.shuffle(free)
    await drv.run((int(rng.random() * nq), free.pop(), None, None, None)
                  for _ in range(ne // 4))

    def full_rate():
        for _ in range(n):
            dq = rng.choice([k for k in range(nq) if m.q[k]])
            de = m.q[dq][0]
            free.insert(int(rng.random() * (len(free) + 1)), de)
            yield int(rng.random() * nq), free.pop(0), dq, de, None
    res["full_rate"] = await measure(dut, drv, full_rate())
    await drv.drain()

    # back-to-back dequeues of one queue: drain every entry from queue 0
    await drv.run((0, e, None, None, None) for e in range(ne))
    res["b2b_drain"] = await measure(
        dut, drv, ((None, None, 0, m.q[0][0], None) for _ in range(ne)))

    # back-to-back dequeues of one queue with the entry re-enqueued in the same cycle
    await drv.run((0, e, None, None, None) for e in range(min(ne, 16)))
    res["b2b_rotate"] = await measure(
        dut, drv, ((0, m.q[0][0], 0, m.q[0][0], None) for _ in range(n)))
    await drv.drain()

    # latency: enqueue into an empty queue in cycle 0, count the cycles until its empty
    # flag falls (a dequeue is allowed from then on); dequeue its only entry, count the
    # cycles until the flag rises; deq_entry is checked in the cycle of deq_valid (0)
    k = nq - 1

    async def cycles_until(cond):
        c = 0
        while True:
            await RisingEdge(dut.clk)
            dut.enq_valid.value = 0
            dut.deq_valid.value = 0
            c += 1
            await ReadOnly()
            if cond((dut.empty.value.to_unsigned() >> k) & 1):
                return c

    await RisingEdge(dut.clk)
    dut.enq_valid.value, dut.enq_queue.value, dut.enq_entry.value = 1, k, 0
    lat_enq = await cycles_until(lambda e: not e)
    await RisingEdge(dut.clk)
    dut.deq_valid.value, dut.deq_queue.value = 1, k
    await ReadOnly()
    assert dut.deq_entry.value.to_unsigned() == 0
    lat_deq = await cycles_until(lambda e: e)
    res["latency_cycles"] = {"enqueue_to_not_empty": lat_enq, "dequeue_to_empty": lat_deq,
                             "deq_valid_to_deq_entry": 0}

    with open(os.environ["P_BENCH_OUT"], "w") as f:
        json.dump(res, f)
    dut._log.info("bench: %s", res)
