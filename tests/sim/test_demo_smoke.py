# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The `make demo` driver (tools/demo.py) end to end in its --quick form: three sizes and a
few iterations of every qrdma-perf run of the demo on the 2-node harness, the harness speed
run, the message rate, the comparison with [QoS-RDMA] §4.3, the plots and demo.json; and a failing qrdma-perf
run must fail the demo. The harness is built in build/sim_harness under the lock that
tests/sim/test_sim_harness.py takes, so the two tests share one build."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tools import demo

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def harness() -> Path:
    demo.build()
    return demo.BUILD


def _demo(out: Path, *args: str) -> subprocess.CompletedProcess:
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "demo.py"), "--quick", "--no-build",
                        "--jobs", "1", "--out", str(out), *args],
                       capture_output=True, text=True, timeout=300)
    print(r.stdout[-6000:])
    print(r.stderr[-4000:], file=sys.stderr)
    return r


def test_demo_quick(harness: Path, tmp_path: Path) -> None:
    r = _demo(tmp_path)
    assert r.returncode == 0, "tools/demo.py --quick failed"
    # the tool's perftest-style tables, the comparison and the harness speed are printed
    assert "#bytes #iterations    t_min[usec]" in r.stdout
    assert "BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]" in r.stdout
    assert "[QoS-RDMA] §4.3 beside qrdma" in r.stdout
    assert "transfers/cycle" in r.stdout  # the message-rate table
    assert "simulated cycles per wall-clock second" in r.stdout

    res = json.loads((tmp_path / "demo.json").read_text())
    assert res["quick"] is True
    assert res["sim_speed"]["data_ok"] is True and res["sim_speed"]["cycles_per_s"] > 0
    # every run wrote its JSON, with every transfer verified and one row per size asked
    assert len(res["runs"]) == len(demo.plan(quick=True))
    for run in demo.plan(quick=True):
        match = [x for x in res["runs"] if x["name"] == run.name]
        assert len(match) == 1, run.name
        perf = json.loads(Path(match[0]["json"]).read_text())
        assert perf["verified"] == "every transfer"
        assert [w["bytes"] for w in perf["rows"]] == run.sizes
        assert all(w["ticks"] > 0 for w in perf["rows"])
    # every comparison figure was measured in both configurations
    figures = {row["figure"].strip(): row for row in res["comparison"]}
    for name in ("small transfer, one at a time", "128 B, 64 outstanding: one batch",
                 "BW average at 16 KiB, 64 outstanding"):
        for cfg in demo.CONFIGS:
            assert figures[name][cfg + "_value"] is not None, (name, cfg)
    small = figures["small transfer, one at a time"]
    assert small["seedlike_value"] < small["default_value"]  # memory and link latency count
    # the message rate: P = 1 .. 16 pages on both harnesses, every transfer of every page
    rate = json.loads((tmp_path / "msg_rate.json").read_text())
    assert rate["verified"] == "every transfer"
    assert sorted((r["harness"], r["pages"]) for r in rate["rows"]) == sorted(
        (c, p) for c in demo.CONFIGS for p in (1, 2, 4, 8, 16))
    assert all(r["transfers"] == r["pages"] * rate["transfers_per_page"] for r in rate["rows"])
    assert res["msg_rate"] == rate["rows"]
    for png in ("demo_latency.png", "demo_throughput.png"):
        data = (tmp_path / png).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000, png


def test_demo_fails_loudly(harness: Path, tmp_path: Path) -> None:
    """A qrdma-perf run that fails (here: a backend spec the simulation refuses) stops the
    demo with a non-zero exit status and says which command failed."""
    r = _demo(tmp_path, "--backend-extra", "no_such_key=1", "--no-plots")
    assert r.returncode != 0
    assert "DEMO FAILED" in r.stderr and "qrdma-perf" in r.stderr
    assert "unknown spec key 'no_such_key'" in r.stderr
    assert not (tmp_path / "demo.json").exists()
