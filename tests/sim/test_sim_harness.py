# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The multi-node system simulation (sim/, docs/sim.md): builds the harness with
sim/Makefile (Verilator model of qrdma_nic + C++ models) and runs its end-to-end check:
NODE_ID of every node, a 4 KiB memory write from node 0 to node 1 completed by single
status polling with the bytes compared, inline writes, an unaligned write back, a
multi-block write; then the same through the simple router with 3 nodes, libqrdma (sw/)
on the simulation backend, and the one-evaluation-per-cycle flow against both edges."""
from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "sim_harness"


def _make(*targets: str) -> None:
    """Build with sim/Makefile (at most 2 jobs), one process at a time (pytest-xdist)."""
    BUILD.mkdir(parents=True, exist_ok=True)
    venv = Path(sys.prefix)  # the venv running pytest
    with open(BUILD / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        r = subprocess.run(["make", "-C", str(ROOT / "sim"), "-j2", f"VENV={venv}", *targets],
                           capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        print(r.stdout[-4000:])
        print(r.stderr[-4000:])
    assert r.returncode == 0, "sim/Makefile build failed"


def _run(*cmd: str, timeout: int = 300, env: dict | None = None) -> str:
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout,
                       env=env)
    print(r.stdout)
    print(r.stderr, file=sys.stderr)
    assert r.returncode == 0, f"{cmd[0]} failed (exit {r.returncode})"
    return r.stdout


@pytest.fixture(scope="module")
def harness() -> Path:
    _make("all")
    return BUILD


def test_two_nodes(harness: Path) -> None:
    out = _run(harness / "qrdma_sim_check")
    assert "FAIL" not in out and "OK: 0 failure(s)" in out


def test_three_nodes_router(harness: Path) -> None:
    out = _run(harness / "qrdma_sim_check", "--nodes", "3")
    assert "network simple-router" in out and "OK: 0 failure(s)" in out


@pytest.mark.skipif(not (ROOT / "sw" / "lib" / "qrdma.c").exists(), reason="no libqrdma yet")
def test_libqrdma_on_sim_backend(harness: Path) -> None:
    _make("libqrdma")
    out = _run(harness / "qrdma_sim_libqrdma_smoke")
    assert "OK: 0 failure(s)" in out


def _signature(out: str) -> str:
    sig = [line.split()[-1] for line in out.splitlines() if "signature" in line]
    assert len(sig) == 1, "no signature printed"
    return sig[0]


def test_one_evaluation_per_cycle(harness: Path) -> None:
    """The harness evaluates each model once per cycle (docs/sim.md "The cycle loop"): the
    NICs must show exactly what they show when both clock edges are evaluated, every output
    of every cycle (the signature), for the end-to-end check and for a traffic run; and the
    signature must see a change of behaviour (3 instead of 4 transfers in flight)."""
    one = _signature(_run(harness / "qrdma_sim_check", "--signature"))
    both = _signature(_run(harness / "qrdma_sim_check", "--signature", "--both-edges"))
    assert one == both
    bench = [harness / "qrdma_sim_bench", "--signature", "--cycles", "20000",
             "--idle-cycles", "1000", "--warmup", "2000"]
    one = _signature(_run(*bench))
    both = _signature(_run(*bench, "--both-edges"))
    other = _signature(_run(*bench, "--channels", "3"))
    assert one == both
    assert other != one


def test_speed_smoke(harness: Path) -> None:
    """A short run of the speed benchmark (the measurement itself: make -C sim bench)."""
    out = _run(harness / "qrdma_sim_bench", "--cycles", "20000", "--idle-cycles", "5000",
               "--warmup", "5000")
    assert "data verified" in out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the move is Linux-only")
def test_huge_code(harness: Path, tmp_path: Path) -> None:
    """The executables move their code and constants onto huge pages at the first
    qrdma_sim_create (sim/huge_code.cc): whole 2 MiB regions, at least the code; the NICs
    behave the same with the move turned off (QRDMA_SIM_HUGE_CODE=0), which moves nothing."""
    import json
    bench = [harness / "qrdma_sim_bench", "--signature", "--cycles", "20000",
             "--idle-cycles", "1000", "--warmup", "2000"]
    on = _run(*bench, "--json", tmp_path / "on.json")
    env = dict(os.environ, QRDMA_SIM_HUGE_CODE="0")
    off = _run(*bench, "--json", tmp_path / "off.json", env=env)
    moved = json.loads((tmp_path / "on.json").read_text())["huge_code_bytes"]
    assert moved >= 2 << 20 and moved % (2 << 20) == 0
    assert json.loads((tmp_path / "off.json").read_text())["huge_code_bytes"] == 0
    assert "code on huge pages: 0 MiB" in off
    assert _signature(on) == _signature(off)
