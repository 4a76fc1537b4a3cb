# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Message rate end to end, as perftest measures it -> build/results/msg_rate.json.

qrdma-perf msg_rate -q P (sw/tools/qrdma_perf.c, docs/sw.md) on the 2-node system
simulation: P pages of node 0 (P = 1, 2, 4, 8, 16), page p driven from CPU core p, all
posting 8-byte inline writes to node 1 at once, each keeping its 64 channels busy and
learning completions by collective status reads; one thread drives the cores with the
two-halved collective read (docs/sim.md "MMIO": each core its own MMIO stream). Both
harness configurations of tools/demo.py ("default" and "seedlike"). Every transfer's data
is verified by qrdma-perf; a failing run raises.

  transfers_per_cycle  all pages' transfers / (last completion - first post), in cycles
  mpps_at_200mhz       the same at the nominal 200 MHz clock

What bounds the figures: docs/sw.md "Message rate".

  python tools/bench.py msg_rate
"""
from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import demo  # noqa: E402  (the harness build, its qrdma-perf and the configurations)

OUT = ROOT / "build" / "results" / "msg_rate.json"
CLOCK_HZ = 200_000_000  # the simulation's ticks are cycles of the nominal 200 MHz clock
PAGES = [1, 2, 4, 8, 16]
SIZE = 8
ITERS = 2000  # transfers per page


def run(pages: int, config: str, iters: int, tmp: Path, extra: str = "") -> tuple[dict, str]:
    """One qrdma-perf msg_rate -q process; its JSON row and the command as a reader reruns it."""
    out = tmp / f"msg_rate_q{pages}_{config}.json"
    spec = demo.CONFIGS[config][0] + extra
    args = ["msg_rate", "-q", str(pages), "-s", str(SIZE), "-m", "inline", "-n", str(iters)]
    res = demo.perf_json(args, spec, out, timeout=1800)
    row = res["rows"][0]
    if (res["verified"] != "every transfer" or res["tick_hz"] != CLOCK_HZ or res["pages"] != pages
            or row["iterations"] != pages * iters or not row["inline"]):
        raise RuntimeError(f"msg_rate -q {pages} ({config}): unexpected qrdma-perf report {out}")
    return row, " ".join(["build/sim_harness/qrdma-perf", *args, "-B", spec])


def measure(iters: int = ITERS, pages: list[int] | None = None,
            configs: tuple[str, ...] = ("default", "seedlike")) -> dict:
    """Every (configuration, P) run; the benchmark's JSON as a dict."""
    t0 = time.time()
    rows, cmds = [], []
    with tempfile.TemporaryDirectory() as d:
        for config in configs:
            for p in pages or PAGES:
                row, cmd = run(p, config, iters, Path(d))
                cmds.append(cmd)
                tpc = row["iterations"] / row["ticks"]
                rows.append({"pages": p, "size": SIZE, "mode": "inline", "harness": config,
                             "transfers": row["iterations"], "cycles": row["ticks"],
                             "transfers_per_cycle": round(tpc, 4),
                             "mpps_at_200mhz": round(tpc * CLOCK_HZ / 1e6, 2)})
    return {"benchmark": "msg_rate", "clock_mhz": CLOCK_HZ // 1_000_000,
            "transfers_per_page": iters, "verified": "every transfer",
            "harness": {c: demo.CONFIGS[c][1] for c in configs},
            "rows": rows, "commands": cmds, "wall_s": round(time.time() - t0, 1)}


def table(res: dict) -> str:
    """The rows as a text table (pages down, harness across)."""
    configs = list(res["harness"])
    head = " pages " + "".join(f"| {c:>9} Mpps  transfers/cycle " for c in configs)
    lines = [head]
    for p in sorted({r["pages"] for r in res["rows"]}):
        cells = []
        for c in configs:
            r = next(x for x in res["rows"] if x["pages"] == p and x["harness"] == c)
            cells.append(f"| {r['mpps_at_200mhz']:>14.2f}  {r['transfers_per_cycle']:>15.4f} ")
        lines.append(f" {p:>5} " + "".join(cells))
    return "\n".join(lines)


def main(iters: int = ITERS, out: Path = OUT, build: bool = True) -> dict:
    if build:
        demo.build()
    res = measure(iters)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=2) + "\n")
    print(table(res))
    print(f"wrote {out}")
    return res


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
