# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""make bench / make demo: run every benchmark and print its figures.

A benchmark is a module tests/bench/bench_<name>.py with a ``main() -> dict`` that runs its
simulations and returns the figures it also wrote to build/results/<name>.json. Benchmarks
measure cycles in simulation; they are not tests and assert nothing about speed.

  python tools/bench.py [--demo] [name ...]
"""
import importlib
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

from simrun import ensure_tool_path  # noqa: E402


def main(argv):
    ensure_tool_path()
    names = [a for a in argv[1:] if not a.startswith("--")]
    mods = sorted(p.stem for p in (ROOT / "tests" / "bench").glob("bench_*.py"))
    if names:
        mods = [m for m in mods if m[len("bench_"):] in names]
    if not mods:
        print("no benchmark selected")
        return 1
    for m in mods:
        t0 = time.time()
        res = importlib.import_module(m).main()
        print(f"== {m[len('bench_'):]} ({time.time() - t0:.0f} s wall)")
        print(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
