# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The harness's threaded runs (docs/sim.md "Threads") against lockstep on one thread: the
nodes run in quanta of up to one link latency on a crew of threads and must behave
exactly as in lockstep. Compared, with options.threads 0 (one thread), 1 (threaded) and
the automatic choice (QRDMA_SIM_THREADS unset): the signature of every NIC output of every
cycle for the end-to-end check with 2 nodes, also in the reference flow, and for a traffic
run (more than two nodes run through the star, whose model runs in lockstep); for data-moving programs on libqrdma, everything
qrdma-stress reports (every byte and notification checked, cycles, the NICs' counters)
and what the error check and the watchdog print, cycles of every error and trip, state
dumps and exit status included."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_sim_harness import BUILD, _make, _run, _signature  # noqa: E402

MODES = {"lockstep": "0", "threaded": "1", "auto": None}


def _env(mode: str) -> dict:
    env = dict(os.environ)
    env.pop("QRDMA_SIM_THREADS", None)
    if MODES[mode] is not None:
        env["QRDMA_SIM_THREADS"] = MODES[mode]
    return env


@pytest.fixture(scope="module")
def harness() -> Path:
    _make("all", "libqrdma")
    return BUILD


@pytest.mark.parametrize("args", [(), ("--both-edges",)], ids=["2-nodes", "both-edges"])
def test_check_signature(harness: Path, args: tuple) -> None:
    sigs = {}
    for mode in MODES:
        out = _run(harness / "qrdma_sim_check", "--signature", *args, env=_env(mode))
        assert "OK: 0 failure(s)" in out
        sigs[mode] = _signature(out)
    assert len(set(sigs.values())) == 1, sigs


@pytest.mark.parametrize("nodes", ["2"])
def test_bench_signature(harness: Path, nodes: str) -> None:
    """--threads of qrdma_sim_bench is options.threads; the threaded run reports its
    threads."""
    bench = [harness / "qrdma_sim_bench", "--signature", "--nodes", nodes, "--cycles", "20000",
             "--idle-cycles", "3000", "--warmup", "2000"]
    one = _run(*bench, "--threads", "0")
    many = _run(*bench, "--threads", "1")
    assert "threads 1:" in one and "threads 2:" in many
    assert _signature(one) == _signature(many)


def test_stress_exact(harness: Path, tmp_path: Path) -> None:
    """Bidirectional traffic with full notification rings, slow memory writes and a long
    link (the links fill up: their quanta shrink to the room left) through libqrdma: the
    same report, cycle counts and NIC counters included, with -B threads=0 and threads=1."""
    res = {}
    for t in ("0", "1"):
        out = tmp_path / f"t{t}.json"
        cmd = [harness / "qrdma-stress", "-s", "7", "-r", "1,2", "-d", "3000,3000", "-n", "1",
               "-B", f"mem=256M,mem_wr=1000,link=400,threads={t}", "-o", out]
        text = _run(*cmd, env=_env("auto"))
        assert "all exact" in text
        res[t] = (text, json.loads(out.read_text()))
    assert res["0"] == res["1"]
    assert res["1"][1]["counters"]["node0"]["TX_LINK_STALL"] > 0


@pytest.mark.parametrize("prog,args", [("qrdma_sim_check_errors", ()),
                                       ("qrdma_sim_check_watchdog", ("hang",)),
                                       ("qrdma_sim_check_watchdog", ("hang-star",)),
                                       ("qrdma_sim_check_watchdog", ("hang-exit",))],
                         ids=["errors", "watchdog-hang", "watchdog-star", "watchdog-exit"])
def test_errors_and_watchdog_exact(harness: Path, prog: str, args: tuple) -> None:
    """Error records (counts, first messages with their cycles, what is printed) and
    watchdog trips (cycle, state dump, exit status) the same in every mode."""
    runs = {}
    for mode in MODES:
        r = subprocess.run([str(harness / prog), *args], capture_output=True, text=True,
                           timeout=300, env=_env(mode))
        runs[mode] = (r.returncode, r.stdout, r.stderr)
    print(runs["threaded"][1])
    print(runs["threaded"][2][-3000:], file=sys.stderr)
    assert runs["lockstep"][0] in (0, 4) and "FAIL" not in runs["lockstep"][1]
    assert runs["lockstep"] == runs["threaded"] == runs["auto"]
