# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Keyed writes on the 2-node system simulation (docs/protection.md): qrdma-perf -K keeps
node 1's memory closed, registers a window over its destination buffers for the posting
page and puts the window's key in every transfer. Memory writes, inline writes and
notifying writes all complete, and qrdma-perf verifies every byte, every guard around the
buffers and every notification (exit 0). Node 1's RX_PROT_DROP stays 0 (-c: the counters
before and after). The refusals themselves (wrong key, past the window, deregistered) are
checked end to end by sim/libqrdma_smoke.c (test_sim_harness.py)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_sim_harness import BUILD, _make  # noqa: E402


@pytest.fixture(scope="module")
def harness() -> Path:
    _make("all", "libqrdma")
    return BUILD


@pytest.mark.parametrize("args", [
    ["write_bw", "-s", "4096", "-t", "32", "-n", "96", "-c"],
    ["write_bw", "-s", "100000", "-t", "4", "-n", "8", "-N", "-c"],
    ["write_lat", "-s", "20", "-m", "inline", "-t", "1", "-n", "8", "-N", "-c"],
], ids=["bw4k", "bw100k-notify", "inline20"])
def test_keyed_writes(harness: Path, tmp_path: Path, args: list[str]) -> None:
    js = tmp_path / "keyed.json"
    cmd = [str(harness / "qrdma-perf"), *args, "-K", "-B", "mem=32M", "-o", str(js)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    res = json.loads(js.read_text())
    assert res["keyed"] is True and res["verified"] == "every transfer", res
    (row,) = res["rows"]
    prot = row["counters"][1]["RX_PROT_DROP"]
    assert prot == 0, f"node 1 refused {prot} packets of keyed writes"
