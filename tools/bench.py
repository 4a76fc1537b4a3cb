# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""make bench: run every benchmark and print its figures.

A benchmark is a module tests/bench/bench_<name>.py with a ``main() -> dict`` that runs its
simulations and returns the figures it also wrote to build/results/<name>.json. Benchmarks
measure cycles in simulation; they are not tests and assert nothing about speed.

One more is built in: ``perf``, the qrdma-perf sweeps of the 2-node system simulation that
make demo runs (tools/demo.py: builds the harness, writes build/results/qrdma_perf_*.json,
demo_sim_speed.json and the summary perf_sweep.json; no plots).

  python tools/bench.py [name ...] [--flag ...]   (names: the bench_<name> modules, perf;
                                                  flags go to the benchmarks whose main()
                                                  takes argv, e.g. fabric --n16)
"""
import importlib
import inspect
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "bench"))
sys.path.insert(0, str(ROOT / "tools"))

from simrun import ensure_tool_path  # noqa: E402


def demo_failed():
    import demo

    return demo.Failed


def bench_perf() -> dict:
    """The demo's qrdma-perf sweeps and harness speed, without plots."""
    import demo

    res = demo.run_demo(plots=False, summary="perf_sweep.json")
    return {k: res[k] for k in ("comparison", "sim_speed", "runs", "wall_s")}


def main(argv):
    names = [a for a in argv[1:] if not a.startswith("--")]
    flags = [a for a in argv[1:] if a.startswith("--")]
    mods = sorted(p.stem for p in (ROOT / "tests" / "bench").glob("bench_*.py")) + ["perf"]
    if names:
        mods = [m for m in mods if m.removeprefix("bench_") in names]
    if not mods:
        print("no benchmark selected")
        return 1
    for m in mods:
        t0 = time.time()
        if m == "perf":
            try:
                res = bench_perf()
            except demo_failed() as e:
                print(f"BENCH perf FAILED: {e}", file=sys.stderr)
                return 1
        else:
            ensure_tool_path()
            fn = importlib.import_module(m).main
            res = fn(flags) if flags and inspect.signature(fn).parameters.get("argv") else fn()
        print(f"== {m.removeprefix('bench_')} ({time.time() - t0:.0f} s wall)")
        print(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
