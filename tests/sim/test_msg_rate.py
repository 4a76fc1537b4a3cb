# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma-perf msg_rate -q P on the 2-node system simulation (docs/sw.md "Message rate"):
P pages of node 0, page p driven from CPU core p (docs/sim.md "MMIO"), one thread driving
the cores. Every run verifies every transfer's bytes (qrdma-perf exits 2 on a wrong byte,
3 on an ERROR or a timeout) and reports all P x n transfers. Exact expectations: one page
on core 0 takes exactly the cycles of the one-page run without cores (msg_rate without -q),
for every n, and a run with threads gives the cycles of the run on one thread. The first
holds because each page runs the plain run's program on its core and the core model of one
core is the single MMIO stream, cycle for cycle: the plain run's blocking reads step the
system to the cycle their data is back and its posts over their issue cycles, a core's reads
and posts issue at the core's clock, which moves by the same cycles; and where the plain run
calls idle() after a round of status reads without a completion (one cycle with no read in
flight), the page's core pauses one cycle (backend core_pause) before its next read. That
one core's pending read delays no other core's posts or reads, and what a pause costs, are
asserted on cycle counts by qrdma_sim_check (sim/check.cc, test_sim_harness.py)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_sim_harness import BUILD, _make  # noqa: E402

SEEDLIKE = "nodes=2,mem_rd=2,mem_wr=2,link=2,mmio_rt=30"
DEFAULT = "nodes=2,mem_rd=200,mem_wr=100,link=100,mmio_rt=30"


@pytest.fixture(scope="module")
def harness() -> Path:
    _make("all", "libqrdma")
    return BUILD


def perf(harness: Path, tmp: Path, name: str, *args: str) -> dict:
    out = tmp / f"{name}.json"
    r = subprocess.run([str(harness / "qrdma-perf"), *args, "-o", str(out)], capture_output=True,
                       text=True, timeout=300)
    print(r.stdout)
    print(r.stderr, file=sys.stderr)
    assert r.returncode == 0, f"qrdma-perf {' '.join(args)}: exit {r.returncode}"
    return json.loads(out.read_text())


@pytest.mark.parametrize("pages", [1, 3, 16])
def test_pages_every_transfer(harness: Path, tmp_path: Path, pages: int) -> None:
    n = 150
    res = perf(harness, tmp_path, "q", "msg_rate", "-q", str(pages), "-m", "inline", "-s", "8",
               "-n", str(n), "-B", SEEDLIKE)
    row = res["rows"][0]
    assert res["verified"] == "every transfer" and res["pages"] == pages and res["cores"] == 16
    assert row["iterations"] == pages * n and row["inline"] and res["outstanding"] == 64
    assert row["transfers_per_tick"] == pytest.approx(pages * n / row["ticks"], rel=1e-5)


@pytest.mark.parametrize("spec", [SEEDLIKE, DEFAULT])
def test_one_page_is_plain_run(harness: Path, tmp_path: Path, spec: str) -> None:
    """-q 1 (page 0 on core 0) against msg_rate without -q, cycle for cycle: n = 1 (one
    transfer, polled alone by the plain run), 5 and 40 (fewer transfers than channels; 40:
    two groups of channels) and 150 (reposts)."""
    for n in (1, 5, 40, 150):
        args = ("msg_rate", "-m", "inline", "-s", "8", "-n", str(n), "-B", spec)
        q = perf(harness, tmp_path, f"q1_{n}", *args[:1], "-q", "1", *args[1:])
        plain = perf(harness, tmp_path, f"plain_{n}", *args)
        assert (n, q["rows"][0]["ticks"]) == (n, plain["rows"][0]["ticks"])


def test_pages_threads_exact(harness: Path, tmp_path: Path) -> None:
    ticks = {}
    for threads in ("0", "1"):
        res = perf(harness, tmp_path, f"t{threads}", "msg_rate", "-q", "4", "-m", "inline", "-n", "200",
                   "-B", f"{DEFAULT},threads={threads}")
        ticks[threads] = res["rows"][0]["ticks"]
    assert ticks["0"] == ticks["1"]


def test_pages_bad_option(harness: Path) -> None:
    r = subprocess.run([str(harness / "qrdma-perf"), "write_bw", "-q", "2", "-B", SEEDLIKE],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "-q is a msg_rate option" in r.stderr


def test_sequence_numbers_wrap(harness: Path, tmp_path: Path) -> None:
    """70,000 inline writes, each one packet that its ACK must match by TID and 16-bit
    sequence number (docs/qos.md "Completion"): the QoS engine's sequence numbers
    wrap past 65,535 and every transfer still completes, verified byte for byte."""
    n = 70_000
    res = perf(harness, tmp_path, "wrap", "msg_rate", "-m", "inline", "-s", "8", "-n", str(n),
               "-c", "-B", SEEDLIKE)
    row = res["rows"][0]
    assert res["verified"] == "every transfer" and row["iterations"] == n
    sent, acked = row["counters"]
    assert sent["TX_CTRL_PKTS"] == n > 1 << 16          # node 0: one packet per transfer
    assert acked["TX_CTRL_PKTS"] == n                   # node 1: one ACK per packet
    assert sent["TX_RETX"] == sent["TX_MISS_RETX"] == acked["RX_DUP_DROP"] == 0
