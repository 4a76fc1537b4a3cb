# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The harness's liveness watchdog (docs/sim.md "Watchdog"), through
sim/check_watchdog.c (libqrdma on the simulation backend, options from
qrdma_tool_backend_open's spec): a transfer that can never finish trips it once, exactly
the watchdog's cycles after the last beat moved (on a point-to-point link and through the
star), with a state dump naming the busy node; by default the process then exits
with status 4; a full notification ring that software leaves alone does not trip it, nor
does an idle system, nor the longest quiet stretch of an 8 MiB write with the default
latencies (a tenth of the default watchdog at most)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_sim_harness import BUILD, _make  # noqa: E402

EXIT_STALL = 4  # QRDMA_SIM_EXIT_STALL, sim/qrdma_sim.h


@pytest.fixture(scope="module")
def prog() -> Path:
    _make("all", "libqrdma")
    return BUILD / "qrdma_sim_check_watchdog"


def _run(prog: Path, mode: str) -> subprocess.CompletedProcess:
    r = subprocess.run([str(prog), mode], capture_output=True, text=True, timeout=300)
    print(r.stdout)
    print(r.stderr[-6000:], file=sys.stderr)
    return r


def _passed(r: subprocess.CompletedProcess) -> None:
    assert r.returncode == 0 and "FAIL" not in r.stdout and "OK: 0 failure(s)" in r.stdout


def _node_line(stderr: str, node: int) -> str:
    """The dump's first line of a node: busy, nq_wait and the nic_state fields."""
    lines = [ln for ln in stderr.splitlines() if ln.startswith(f"qrdma_sim: node {node}: busy=")]
    assert lines, f"no state line of node {node} in the dump"
    return lines[0]


def _fields(line: str) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", line)}


def test_hang_trips_once(prog: Path) -> None:
    r = _run(prog, "hang")
    _passed(r)
    # one dump per trip (two trips: the second after movement resumed), one error line each
    assert r.stderr.count("qrdma_sim: watchdog: cycles ") == 2
    assert r.stderr.count("qrdma_sim: error (stall): ") == 2
    n0 = _fields(_node_line(r.stderr, 0))
    assert n0["busy"] == 1 and n0["nq_wait"] == 0 and n0["xfers"] == 1
    n1 = _fields(_node_line(r.stderr, 1))
    assert n1["busy"] == 0 and n1["xfers"] == 0
    m = re.search(r"watchdog: cycles (\d+) \.\. (\d+) \((\d+)\) without a beat.*busy: node 0\n",
                  r.stderr)
    assert m and int(m.group(3)) == 20000 and int(m.group(2)) - int(m.group(1)) + 1 == 20000
    for part in ("link to node 1: 0 beats held", "mmio: ", "beats: tx "):
        assert f"qrdma_sim: node 0: {part}" in r.stderr
    assert "; memory: 0 read bursts" in r.stderr and "; memory AR " in r.stderr
    assert "rx offered a beat 0, refused 0" in r.stderr


def test_hang_star(prog: Path) -> None:
    r = _run(prog, "hang-star")
    _passed(r)
    assert r.stderr.count("qrdma_sim: error (stall): ") == 1
    assert _fields(_node_line(r.stderr, 0))["xfers"] == 1
    for n in (0, 1, 2):  # each node's one link: to its switch port
        assert f"qrdma_sim: node {n}: link to switch 0: " in r.stderr
    assert "qrdma_sim: node 0: link to node" not in r.stderr
    assert "network star: 0 packets dropped" in r.stderr


def test_hang_exits(prog: Path) -> None:
    r = _run(prog, "hang-exit")
    assert r.returncode == EXIT_STALL
    assert "waiting" in r.stdout and "FAIL" not in r.stdout
    assert "qrdma_sim: watchdog: cycles " in r.stderr
    assert "qrdma_sim: error (stall): " in r.stderr
    assert f"qrdma_sim: watchdog: exit status {EXIT_STALL}" in r.stderr
    n0 = _fields(_node_line(r.stderr, 0))
    assert n0["busy"] == 1 and n0["xfers"] == 1


def test_full_ring_no_trip(prog: Path) -> None:
    r = _run(prog, "ring")
    _passed(r)
    assert "qrdma_sim: watchdog:" not in r.stderr and "error (stall)" not in r.stderr
    # the dump taken while the ring is full: node 1 busy and waiting for a ring slot
    n1 = _fields(_node_line(r.stderr, 1))
    assert n1["busy"] == 1 and n1["nq_wait"] == 1 and n1["rx_ntf"] >= 1


def test_idle_no_trip(prog: Path) -> None:
    r = _run(prog, "idle")
    _passed(r)
    assert "qrdma_sim: watchdog:" not in r.stderr and "error (stall)" not in r.stderr


def test_default_margin(prog: Path) -> None:
    r = _run(prog, "gap")
    _passed(r)
    m = re.search(r"longest run without a moving beat (\d+) cycles", r.stdout)
    assert m and int(m.group(1)) < 20000
