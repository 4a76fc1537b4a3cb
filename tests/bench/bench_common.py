# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Benchmark of the common blocks: sustained operations per cycle of the shared-space
multi-queue (qrdma_multi_queue, [QoS-RDMA] §3.7) at the seed's size (66 queues, 2048
entries), measured in simulation by tests/common/bench_qrdma_multi_queue.py:

  full_rate   enqueue + dequeue every cycle over 10,000 cycles, all queues
  b2b_drain   back-to-back dequeues of one queue holding all 2048 entries
  b2b_rotate  back-to-back dequeues of one queue over 10,000 cycles, each dequeued entry
              enqueued back into the same queue in the same cycle
  latency     enqueue -> not empty, dequeue -> empty (cycles)

Figures are cycles; rates in time are given at the nominal 200 MHz.
Writes build/results/common_bench.json.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
CLOCK_MHZ = 200
PARAMS = {"NUM_QUEUES": 66, "NUM_ENTRIES": 2048}
CYCLES = 10_000


def main() -> dict:
    for p in (ROOT, ROOT / "tests"):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))
    from simrun import BUILD, run

    out_dir = BUILD / "results"
    out_dir.mkdir(parents=True, exist_ok=True)
    raw = BUILD / "results" / "common_bench_multi_queue.raw.json"
    env = {f"P_{k}": str(v) for k, v in PARAMS.items()}
    env.update(P_BENCH_CYCLES=str(CYCLES), P_BENCH_OUT=str(raw))
    run("qrdma_multi_queue", "bench_qrdma_multi_queue", PARAMS, extra_env=env)
    mq = json.loads(raw.read_text())
    raw.unlink()
    for k in ("full_rate", "b2b_drain", "b2b_rotate"):
        mq[k]["mops_per_s_at_200mhz"] = round(mq[k]["ops_per_cycle"] * CLOCK_MHZ, 1)
    res = {"clock_mhz": CLOCK_MHZ, "qrdma_multi_queue": mq}
    (out_dir / "common_bench.json").write_text(json.dumps(res, indent=2) + "\n")
    return res


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
