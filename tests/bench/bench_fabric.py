# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Fabric benchmark -> build/results/fabric_bench.json: the experiments of [FPGA-NI] §3 on
the fabric RTL (node ports around a switch, tb_qrdma_fabric; the cocotb module is
tests/fabric/bench_qrdma_fabric.py), every node sending 1 KiB DATA packets (17 beats) back
to back, every destination taking every beat at once, links of 4 cycles each way,
128-beat crosspoints and node receive buffers; node ports with virtual output queues
(voq 1) and, at 4 ports, the baseline with one queue per port (voq 0).

  incast       nodes 1, 2, 3 -> node 0 through 4 ports: each sender's share of node 0's
               link (beats per cycle; the link carries one beat per cycle)
  hotspot      node 1 -> node 2 (the victim) alone, then while nodes 0, 2, 3 incast into
               node 1 (the hotspot is the victim's source node): victim_ratio = the
               victim's beats per cycle with the incast on / alone
  hotspot_shared_source  the same victim beside node 1 -> node 0 and 2, 3 -> node 0 (the
               victim's source also sends to the hotspot: its virtual output queues keep
               the victim going at the link's rest; its one queue holds the victim's
               packets behind those to the hotspot)
  permutation  16 ports, node i -> node i + 1 mod 16: each flow's share of its link

Each row: {"experiment", "nodes", "voq", "flows": [{"src", "dst", "bytes_per_cycle",
"beats_per_cycle"}], "drops", ...} in {"rows": [...]}. Cycle counts are exact; at the
nominal 200 MHz one beat per cycle is 102.4 Gb/s.

  python tools/bench.py fabric
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "build" / "results" / "fabric_bench.json"


def main() -> dict:
    sys.path.insert(0, str(ROOT / "tests"))
    from simrun import run

    OUT.parent.mkdir(parents=True, exist_ok=True)
    raw = OUT.with_suffix(".raw.json")
    if raw.exists():
        raw.unlink()
    for p, voq, xp, rx in ((4, 1, 128, 128), (4, 0, 128, 128), (16, 1, 128, 128)):
        params = {"P": p, "VOQ": voq, "MAX_PKT": 17, "XP_DEPTH": xp, "VOQ_DEPTH": 128,
                  "PAUSE_LEVEL": 64, "RX_DEPTH": rx, "UPD_MIN": 17, "REFRESH": 256,
                  "LINK_LAT": 4}
        env = {f"P_{k}": str(v) for k, v in params.items()}
        env.update(QRDMA_BENCH_OUT=str(raw), COCOTB_LOG_LEVEL="WARNING")
        run("tb_qrdma_fabric", "bench_qrdma_fabric", params, extra_env=env)
    res = json.loads(raw.read_text())
    res["nominal_clock_mhz"] = 200
    res["command"] = "python tools/bench.py fabric"
    OUT.write_text(json.dumps(res, indent=2) + "\n")
    raw.unlink()
    return res


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
