# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Wall-clock speed of qrdma_sim_bench binaries side by side (docs/sim.md "Speed").

On a shared machine the speed moves from minute to minute, so the binaries run in rounds,
one run of each per round, the order rotated from round to round; every run and the
median per binary are printed, with each median's ratio to the first binary's.

  .venv/bin/python sim/speed_compare.py [--rounds 7] [--args "--cycles 300000 ..."]
        [--json FILE] NAME=BINARY[,EXTRA ARGS] ...

e.g. `new=build/sim_harness/qrdma_sim_bench old=/tmp/old/qrdma_sim_bench
new-1t=build/sim_harness/qrdma_sim_bench,--threads,0`.
"""
from __future__ import annotations

import argparse
import json
import re
import shlex
import statistics
import subprocess
import sys

TRAFFIC = re.compile(r"traffic: (\d+) cycles in ([\d.]+) s wall \(([\d.]+) s CPU\): (\d+) cycles/s")
IDLE = re.compile(r"idle: +(\d+) cycles in ([\d.]+) s wall \(([\d.]+) s CPU\): (\d+) cycles/s")


def run(cmd: list[str]) -> tuple[float, float]:
    """One run: (traffic cycles per wall-clock second, idle cycles per wall-clock second)."""
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    t, i = TRAFFIC.search(r.stdout), IDLE.search(r.stdout)
    if not t or not i or "data verified" not in r.stdout:
        sys.exit(f"speed_compare: unexpected output of {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    return float(t.group(4)), float(i.group(4))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--args", default="--cycles 300000 --warmup 20000 --idle-cycles 100000",
                    help="qrdma_sim_bench arguments of every run")
    ap.add_argument("--json", help="also write every run and the medians as JSON")
    ap.add_argument("binaries", nargs="+", metavar="NAME=BINARY[,ARGS]")
    a = ap.parse_args()
    cmds: dict[str, list[str]] = {}
    for spec in a.binaries:
        name, _, rest = spec.partition("=")
        binary, *extra = rest.split(",")
        cmds[name] = [binary, *shlex.split(a.args), *extra]
    runs: dict[str, list[tuple[float, float]]] = {n: [] for n in cmds}
    names = list(cmds)
    for k in range(a.rounds):
        for j in range(len(names)):
            n = names[(j + k) % len(names)]
            runs[n].append(run(cmds[n]))
            print(f"round {k + 1}: {n:12s} {runs[n][-1][0]:12,.0f} cycles/s "
                  f"(idle {runs[n][-1][1]:,.0f})", flush=True)
    first = statistics.median(r[0] for r in runs[names[0]])
    res = {"command": " ".join(shlex.quote(x) for x in sys.argv), "rounds": a.rounds,
           "args": a.args, "binaries": {}}
    print(f"\nmedians of {a.rounds} rounds ({a.args}):")
    for n in names:
        med = statistics.median(r[0] for r in runs[n])
        idle = statistics.median(r[1] for r in runs[n])
        res["binaries"][n] = {"cmd": " ".join(cmds[n]), "cycles_per_s": med,
                              "idle_cycles_per_s": idle, "ratio": med / first,
                              "runs_cycles_per_s": [r[0] for r in runs[n]],
                              "runs_idle_cycles_per_s": [r[1] for r in runs[n]]}
        print(f"  {n:12s} {med:12,.0f} cycles/s  x{med / first:.3f}  (idle {idle:,.0f})  runs: "
              + ", ".join(f"{r[0]:,.0f}" for r in runs[n]))
    if a.json:
        with open(a.json, "w") as f:
            f.write(json.dumps(res, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
