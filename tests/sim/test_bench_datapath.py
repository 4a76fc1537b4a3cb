# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The datapath benchmark program (sim/bench_datapath.c, `make bench` "datapath") in its
quick mode: two sizes, short windows, few transfers. Checks the JSON's shape and that
every transfer and notification was verified; the figures themselves are not asserted
(quick windows are too short to mean anything). Builds in the harness build directory of
tests/sim/test_sim_harness.py under its lock, so the model is built once."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location(
        "bench_datapath", ROOT / "tests" / "bench" / "bench_datapath.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_bench_datapath_quick(tmp_path: Path) -> None:
    bench = _bench()
    bench.build()
    res, out = bench.run(tmp_path / "datapath_quick.json", "--quick", "--sizes", "64,4096")
    print(out)

    tp = res["throughput"]
    assert [(r["size"], r["outstanding"]) for r in tp] == [(64, 1), (64, 64), (4096, 1), (4096, 64)]
    for r in tp:
        assert set(r) >= {"size", "outstanding", "bytes_per_cycle", "gbps_at_200mhz"}
        assert 0 < r["bytes_per_cycle"] <= 64
        assert abs(r["gbps_at_200mhz"] - r["bytes_per_cycle"] * 1.6) < 0.01
        assert r["transfers_verified"] >= 2

    eff = res["payload_efficiency_1k"]
    det = res["payload_efficiency_1k_detail"]
    assert isinstance(eff, float) and 0 < eff <= 64
    assert det["data_packets"] == det["control_packets"] > 0
    assert det["payload_bytes"] == 1024 * det["data_packets"]
    assert det["all_forward"] <= det["data_only"] == eff

    lat, kind, done = res["latency_cycles"], res["latency_kind"], res["latency_done_cycles"]
    assert set(lat) == set(kind) == set(done) == {"8", "64", "1024", "4096", "65536"}
    assert kind["8"] == "inline" and kind["64"] == "memory"
    assert all(isinstance(v, int) and v > 0 for v in (*lat.values(), *done.values()))

    assert res["data_verified"] is True
    assert res["transfers_verified"] >= sum(r["transfers_verified"] for r in tp)
    assert res["notifications_checked"] >= det["data_packets"] + len(lat)
    assert "data verified" in out
