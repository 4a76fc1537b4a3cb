# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The multi-node system simulation (sim/, docs/sim.md): builds the harness with
sim/Makefile (Verilator model of qrdma_nic + C++ models) and runs its end-to-end check:
NODE_ID of every node, a 4 KiB memory write from node 0 to node 1 completed by single
status polling with the bytes compared, inline writes, an unaligned write back, a
multi-block write; then the same through the star with 3 nodes, libqrdma (sw/)
on the simulation backend, the default flow against the reference flow (falling edge
evaluated before sampling), the host memory model at its AXI port, the error categories
through the C API, and docs/sim.md's recipe for linking a program against the harness, run
as written. The threaded runs against lockstep: test_threads.py."""
from __future__ import annotations

import contextlib
import fcntl
import re
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "sim_harness"


@contextlib.contextmanager
def _build_lock() -> Iterator[None]:
    """One process at a time builds in BUILD (pytest-xdist)."""
    BUILD.mkdir(parents=True, exist_ok=True)
    with open(BUILD / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _make(*targets: str) -> None:
    """Build with sim/Makefile (at most 2 jobs), one process at a time (pytest-xdist)."""
    venv = Path(sys.prefix)  # the venv running pytest
    with _build_lock():
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


def test_three_nodes_star(harness: Path) -> None:
    out = _run(harness / "qrdma_sim_check", "--nodes", "3")
    assert "network star" in out and "OK: 0 failure(s)" in out


@pytest.mark.skipif(not (ROOT / "sw" / "lib" / "qrdma.c").exists(), reason="no libqrdma yet")
def test_libqrdma_on_sim_backend(harness: Path) -> None:
    _make("libqrdma")
    out = _run(harness / "qrdma_sim_libqrdma_smoke")
    assert "OK: 0 failure(s)" in out


def _signature(out: str) -> str:
    sig = [line.split()[-1] for line in out.splitlines() if "signature" in line]
    assert len(sig) == 1, "no signature printed"
    return sig[0]


def test_default_flow_against_both_edges(harness: Path) -> None:
    """The default flow samples the handshakes before any evaluation with the cycle's
    inputs and evaluates the falling edge after the rising one (docs/sim.md "The cycle
    loop"): the NICs must show exactly what they show in the reference flow, which
    evaluates the falling edge before sampling, every output of every cycle (the
    signature), for the end-to-end check and for a traffic run; and the signature must see
    a change of behaviour (3 instead of 4 transfers in flight)."""
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


def test_host_mem_port(harness: Path) -> None:
    """The host memory model at its AXI port, the program in place of the NIC
    (sim/check_host_mem.cc): every burst that addresses a byte outside memory (also partly,
    at the last byte, wrapping past 2^64, with beats wider than the bus) answered DECERR,
    zeros and RRESP = 3 on every read beat, nothing written and BRESP = 3 for a write;
    bursts inside memory served with their data and timing; each broken rule counted in its
    category (AXI, DECERR, 4 KiB) with its first message."""
    out = _run(harness / "qrdma_sim_check_host_mem")
    assert "FAIL" not in out and "OK: 0 failure(s)" in out
    assert "per category: AXI 3, DECERR 11, 4K 3, API 0, RTL 0" in out


def test_error_categories(harness: Path) -> None:
    """qrdma_sim_error_count / qrdma_sim_error_first through the C API, from C
    (sim/check_errors.c): five refused calls counted as API errors; a memory write whose
    source lies past node 0's memory (every R beat DECERR) and one whose destination lies
    past node 1's memory (every B DECERR, node 1's memory unchanged), one DECERR error per
    burst; the total the sum of the categories. The channel's status is not checked (what
    the NIC makes of DECERR is the RTL's business)."""
    r = subprocess.run([str(harness / "qrdma_sim_check_errors")], capture_output=True,
                       text=True, timeout=300)
    print(r.stdout)
    print(r.stderr, file=sys.stderr)
    assert r.returncode == 0 and "FAIL" not in r.stdout and "OK: 0 failure(s)" in r.stdout
    # node 0 reads its 4 KiB source in bursts, all outside memory; node 1 writes 8 KiB
    m = re.search(r"node 0: (\d+) read bursts, 64 R beats, 64 with DECERR; (\d+) DECERR",
                  r.stdout)
    assert m and m.group(1) == m.group(2)
    m = re.search(r"node 1: (\d+) write bursts, \d+ W beats, (\d+) B, (\d+) with DECERR; "
                  r"(\d+) DECERR errors", r.stdout)
    assert m and len(set(m.groups())) == 1
    # the printed errors carry their category
    assert "qrdma_sim: error (api): " in r.stderr
    assert "qrdma_sim: error (decerr): " in r.stderr
    assert "node 1 m_axi_aw: burst at 0x103000" in r.stderr


def _doc_recipe() -> list[str]:
    """The shell block of docs/sim.md that builds sim/libqrdma_smoke.c."""
    text = (ROOT / "docs" / "sim.md").read_text()
    blocks = [b for b in re.findall(r"```sh\n(.*?)```", text, re.S) if "libqrdma_smoke.c" in b]
    assert len(blocks) == 1, "docs/sim.md: no (or more than one) link recipe block"
    return [line for line in blocks[0].splitlines() if line.strip()]


def test_doc_link_recipe(harness: Path) -> None:
    """docs/sim.md's recipe for building a program against the harness, every line run as
    written from the top of the repository (with the build lock held: it runs make):
    compiles, links and runs sim/libqrdma_smoke.c."""
    lines = _doc_recipe()
    assert any("build/sw/libqrdma.a" in line and "libqrdma_sim.a" in line for line in lines)
    assert any("-Isw/include" in line for line in lines)
    out = ""
    with _build_lock():
        for line in lines:
            r = subprocess.run(["bash", "-c", line], cwd=ROOT, capture_output=True, text=True,
                               timeout=900)
            print(f"$ {line}\n{r.stdout[-3000:]}")
            print(r.stderr[-3000:], file=sys.stderr)
            assert r.returncode == 0, f"docs/sim.md recipe line failed: {line}"
            out = r.stdout
    assert "OK: 0 failure(s)" in out and "FAIL" not in out
