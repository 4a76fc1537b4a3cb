# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Where the system simulation spends its time, in machine instructions (docs/sim.md "Speed").

Builds the harness with debug line info into its own directory (build/sim_prof), runs
`qrdma_sim_bench` (N = 2, node 0 -> node 1 traffic, the nodes in lockstep on one thread)
under valgrind's callgrind twice, with two traffic lengths, and prints:
  * instructions per simulated node-cycle of traffic: the difference of the two runs'
    totals over the difference of their cycles (so set-up, reset and idle cancel out);
    exact and repeatable, unlike wall-clock speed on a shared machine;
  * the instructions of the longer run attributed to RTL instances (the hierarchical name
    on the generated C++ line, cut to --depth levels), the model's evaluation regions and
    the harness files.

Needs valgrind (a developer tool from the distribution, not part of `make test`).
  .venv/bin/python tools/sim_profile.py [--depth 2] [--top 40] [--no-build] [--pgo] [--json F]
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def parse_callgrind(path: Path) -> dict[tuple[str, str, int], int]:
    """Instructions per (file, function, line) of a callgrind output (self cost only)."""
    names: dict[str, str] = {}
    cost: collections.Counter = collections.Counter()
    fl = fn = ""
    line = 0
    skip_call_line = False

    def name(kind: str, spec: str) -> str:
        m = re.match(r"\((\d+)\)(?: (.*))?", spec)
        if not m:
            return spec
        key = kind + m.group(1)
        if m.group(2):
            names[key] = m.group(2)
        return names.get(key, "?")

    with open(path) as f:
        for raw in f:
            s = raw.rstrip("\n")
            if s.startswith(("fl=", "fi=", "fe=")):
                fl = name("f", s[3:])
            elif s.startswith(("cfl=", "cfi=")):
                name("f", s[4:])
            elif s.startswith("fn="):
                fn = name("n", s[3:])
            elif s.startswith("cfn="):
                name("n", s[4:])
            elif s.startswith("calls="):
                skip_call_line = True  # the next cost line is the call's inclusive cost
            elif s and (s[0].isdigit() or s[0] in "+-*"):
                parts = s.split()
                pos = parts[0]
                if pos.startswith(("+", "-")):
                    line += int(pos)
                elif pos != "*":
                    line = int(pos)
                if skip_call_line:
                    skip_call_line = False
                    continue
                if len(parts) > 1:
                    cost[(fl, fn, line)] += int(parts[1])
    return cost


def attribute(cost, obj_dir: Path, depth: int):
    """(per instance, per region, total) of a parse_callgrind result."""
    lines: dict[str, list[str]] = {}
    inst: collections.Counter = collections.Counter()
    region: collections.Counter = collections.Counter()
    total = 0
    for (fl, fn, ln), ir in cost.items():
        total += ir
        base = os.path.basename(fl)
        if base.startswith("Vqrdma_nic") and (obj_dir / base).exists():
            if base not in lines:
                lines[base] = (obj_dir / base).read_text().split("\n")
            text = lines[base]
            key = "(model, no instance name)"
            for k in range(ln - 1, max(ln - 8, -1), -1):
                if 0 <= k < len(text):
                    ids = re.findall(r"qrdma_nic__DOT__([A-Za-z0-9_]+)", text[k])
                    if ids:
                        key = ".".join(ids[-1].split("__DOT__")[:depth])
                        break
            m = re.search(r"___(ico|nba|act|eval)\w*", fn)
            region["model " + (m.group(1) if m else "other")] += ir
        else:
            key = f"[{base or '?'}]"
            region["harness and runtime"] += ir
        inst[key] += ir
    return inst, region, total


def run_bench(exe: Path, out: Path, cycles: int) -> tuple[int, int]:
    """callgrind run; returns (total instructions, traffic cycles)."""
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(exe),
           "--cycles", str(cycles), "--warmup", "5000", "--idle-cycles", "2000", "--threads", "0"]
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    m = re.search(r"Collected : (\d+)", r.stderr)
    t = re.search(r"traffic: (\d+) cycles", r.stdout)
    if not m or not t:
        sys.exit("sim_profile: cannot read the callgrind total or the traffic cycles\n"
                 + r.stdout + r.stderr)
    if "data verified" not in r.stdout:
        sys.exit("sim_profile: the benchmark did not verify its data\n" + r.stdout)
    return int(m.group(1)), int(t.group(1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=str(ROOT / "build" / "sim_prof"))
    ap.add_argument("--depth", type=int, default=2, help="instance levels kept (default 2)")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--cycles", type=int, default=20000, help="traffic cycles, longer run")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--pgo", action="store_true",
                    help="build the model with profile-guided optimisation (sim/Makefile PGO=1; "
                         "default: the default build's PGO=0)")
    ap.add_argument("--json", help="also write the figures as JSON")
    a = ap.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("sim_profile: valgrind not found (apt install valgrind)")
    build = Path(a.build).resolve()  # make -C sim runs elsewhere
    if not a.no_build:
        subprocess.run(["make", "-s", "-C", str(ROOT / "sim"), f"BUILD={build}",
                        f"PGO={1 if a.pgo else 0}", "VERILATOR_EXTRA=-CFLAGS -g",
                        f"{build}/qrdma_sim_bench"], check=True)
    exe = build / "qrdma_sim_bench"
    short = max(a.cycles // 4, 1000)
    ir0, c0 = run_bench(exe, build / "callgrind.short.out", short)
    ir1, c1 = run_bench(exe, build / "callgrind.out", a.cycles)
    per_node_cycle = (ir1 - ir0) / (c1 - c0) / 2
    inst, region, total = attribute(parse_callgrind(build / "callgrind.out"),
                                    build / "obj_nic", a.depth)
    print(f"instructions per node-cycle of traffic (N = 2): {per_node_cycle:,.0f}"
          f"  [({ir1:,} - {ir0:,}) / ({c1} - {c0}) / 2]")
    print(f"\nlonger run, {total:,} instructions, by region:")
    for k, v in region.most_common():
        print(f"  {100 * v / total:6.2f}%  {k}")
    print(f"\nby instance (depth {a.depth}):")
    for k, v in inst.most_common(a.top):
        print(f"  {100 * v / total:6.2f}%  {k}")
    if a.json:
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps({
            "benchmark": "sim_profile", "nodes": 2,
            "instructions_per_node_cycle": round(per_node_cycle),
            "regions": {k: v / total for k, v in region.items()},
            "instances": {k: v / total for k, v in inst.most_common(a.top)},
        }, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
