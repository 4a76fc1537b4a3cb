# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Protection benchmark -> build/results/protection_bench.json.

What the window check (docs/protection.md) costs: the same qrdma-perf measurements on the
2-node system simulation (harness defaults, node 0 writes to node 1), in one run, with
keys (-K: node 1's memory closed, a window over the destination buffers registered for
the posting page, every transfer carries its key on a 64-byte descriptor) and in the
development mode (no check, 32-byte descriptors):

  throughput   write_bw -s SIZE -t 32 -A -w W0,W: payload landing at node 1 in the window,
               bytes per cycle (32 outstanding: a keyed write takes a channel pair)
  latency      write_lat -s SIZE -t 1 -N -l notif: post -> node 1's ring entry full, the
               median, in cycles

Every transfer's data and notification is verified by qrdma-perf; a failing run raises.

  python tools/bench.py protection
"""
from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import demo  # noqa: E402  (the harness build and the qrdma-perf binary it makes)

OUT = ROOT / "build" / "results" / "protection_bench.json"
CLOCK_HZ = 200_000_000   # the simulation's ticks are cycles of the nominal 200 MHz clock
OUTSTANDING = 32
BW_SIZES = [4096, 65536]
WINDOW = {4096: (20_000, 60_000), 65536: (40_000, 120_000)}
LAT = [(8, "inline"), (64, "mem"), (4096, "mem")]
LAT_N = 20
SPEC = "mem=64M"


def _run(args: list[str], tmp: Path, name: str) -> tuple[dict, str]:
    out = tmp / f"{name}.json"
    res = demo.perf_json(args, SPEC, out)
    if res["verified"] != "every transfer" or res["tick_hz"] != CLOCK_HZ:
        raise RuntimeError(f"{name}: unexpected qrdma-perf report {out}")
    return res, " ".join(["build/sim_harness/qrdma-perf", *args, "-B", SPEC])


def measure() -> dict:
    t0 = time.time()
    bw, lat = [], []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for size in BW_SIZES:
            w0, w = WINDOW[size]
            row = {"size": size, "outstanding": OUTSTANDING}
            for keyed in (False, True):
                args = ["write_bw", "-s", str(size), "-t", str(OUTSTANDING), "-A", "-w", f"{w0},{w}"]
                args += ["-K"] if keyed else []
                res, cmd = _run(args, tmp, f"bw_{size}_{int(keyed)}")
                r = res["rows"][0]
                k = "keyed" if keyed else "open"
                row[f"{k}_bytes_per_cycle"] = round(r["window_rx_bytes"] / r["window_ticks"], 4)
                row[f"{k}_command"] = cmd
            row["ratio"] = round(row["keyed_bytes_per_cycle"] / row["open_bytes_per_cycle"], 4)
            bw.append(row)
        for size, mode in LAT:
            row = {"size": size, "mode": mode}
            for keyed in (False, True):
                args = ["write_lat", "-s", str(size), "-m", mode, "-t", "1", "-N", "-l", "notif",
                        "-n", str(LAT_N)] + (["-K"] if keyed else [])
                res, cmd = _run(args, tmp, f"lat_{size}_{int(keyed)}")
                k = "keyed" if keyed else "open"
                row[f"{k}_cycles"] = res["rows"][0]["t_typical_ticks"]
                row[f"{k}_command"] = cmd
            row["extra_cycles"] = row["keyed_cycles"] - row["open_cycles"]
            lat.append(row)
    return {"throughput": bw, "latency": lat, "clock_hz": CLOCK_HZ,
            "wall_s": round(time.time() - t0, 1)}


def main() -> dict:
    demo.build()
    res = measure()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(res, indent=2) + "\n")
    for r in res["throughput"]:
        print(f"  write_bw {r['size']:>6} B x{r['outstanding']}: open {r['open_bytes_per_cycle']:.3f}, "
              f"keyed {r['keyed_bytes_per_cycle']:.3f} B/cycle (ratio {r['ratio']:.4f})")
    for r in res["latency"]:
        print(f"  write_lat {r['size']:>5} B {r['mode']:>6}: open {r['open_cycles']}, "
              f"keyed {r['keyed_cycles']} cycles ({r['extra_cycles']:+d})")
    return res


if __name__ == "__main__":
    main()
