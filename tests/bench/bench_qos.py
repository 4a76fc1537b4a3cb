# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""QoS engine benchmark -> build/results/qos_bench.json (issue: QoS engine).

  msg_rate_per_cycle_256 / _128  back-to-back 8-byte inline transfers over 64 channels,
                                 >= 10,000 transfers, through a 256- / 128-bit host port
  inline_latency_cycles          last descriptor beat accepted -> inline packet valid
  block_latency_cycles           last descriptor beat accepted -> first block descriptor valid
Cycle counts are exact (Verilator); the cocotb module is tests/qos/bench_qrdma_qos_engine.py.
"""
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "build" / "results" / "qos_bench.json"


def main() -> dict:
    sys.path.insert(0, str(ROOT / "tests"))
    from simrun import run

    OUT.parent.mkdir(parents=True, exist_ok=True)
    raw = OUT.with_suffix(".raw.json")
    if raw.exists():
        raw.unlink()
    n = os.environ.get("QRDMA_BENCH_N", "10000")
    for w in (256, 128):
        run("qrdma_qos_engine", "bench_qrdma_qos_engine", {"HOST_DATA_W": w},
            extra_env={"QRDMA_BENCH_OUT": str(raw), "QRDMA_BENCH_N": n,
                       "P_HOST_DATA_W": str(w), "COCOTB_LOG_LEVEL": "WARNING"})
    r = json.loads(raw.read_text())
    res = {
        "msg_rate_per_cycle_256": r["msg_rate_per_cycle_256"],
        "msg_rate_per_cycle_128": r["msg_rate_per_cycle_128"],
        "inline_latency_cycles": r["inline_latency_cycles_256"],
        "block_latency_cycles": r["block_latency_cycles_256"],
        "detail": r,
        "nominal_clock_mhz": 200,
    }
    OUT.write_text(json.dumps(res, indent=2) + "\n")
    return res


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
