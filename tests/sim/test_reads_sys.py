# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Remote reads on the 2-node system simulation (docs/nic.md "Remote reads"): qrdma-perf
read_bw / read_lat, node 0 reading node 1's buffers on read channels. qrdma-perf verifies
every byte and the guards around every buffer (exit 0). The counters (-c, before and
after) are exact: node 1 took one READ_REQ per block (RX_READ_REQS), sent every byte
read back in DATA packets (TX_DATA_BYTES) and node 0 sent none; nothing was refused,
duplicated or sent again. Keyed (-K): both nodes closed, a window with read permission
over node 1's buffers, one with local-write permission over node 0's. The refusals (a
window without read or local-write permission) are checked end to end by
sim/libqrdma_smoke.c (test_sim_harness.py)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_sim_harness import BUILD, _make  # noqa: E402

BLOCK = 65536   # the harness NIC's BLOCK_SIZE


@pytest.fixture(scope="module")
def harness() -> Path:
    _make("all", "libqrdma")
    return BUILD


@pytest.mark.parametrize("args", [
    ["read_bw", "-s", "4096", "-t", "32", "-n", "96", "-c"],
    ["read_bw", "-s", "262144", "-t", "4", "-n", "8", "-c", "-M", "-A"],
    ["read_lat", "-s", "8", "-t", "1", "-n", "8", "-c"],
    ["read_bw", "-s", "4096", "-t", "16", "-n", "48", "-c", "-K"],
], ids=["bw4k", "bw256k-multipath", "lat8", "bw4k-keyed"])
def test_reads(harness: Path, tmp_path: Path, args: list[str]) -> None:
    js = tmp_path / "read.json"
    cmd = [str(harness / "qrdma-perf"), *args, "-B", "mem=32M", "-o", str(js)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    res = json.loads(js.read_text())
    assert res["test"] == args[0] and res["verified"] == "every transfer", res
    (row,) = res["rows"]
    size, n = row["bytes"], row["iterations"]
    c0, c1 = row["counters"]
    # slots aligned to 4 KiB (-A: to the size, at most a block): every transfer starts a block
    blocks = n * -(-size // BLOCK)
    assert c1["RX_READ_REQS"] == blocks, (c1, blocks)
    assert c1["TX_DATA_BYTES"] == n * size and c0["TX_DATA_BYTES"] == 0, (c0, c1)
    for c in (c0, c1):
        assert c["RX_PROT_DROP"] == c["RX_DUP_DROP"] == c["TX_RETX"] == c["TX_MISS_RETX"] == 0, c
