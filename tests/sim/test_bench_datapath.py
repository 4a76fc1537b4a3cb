# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The datapath benchmark (tests/bench/bench_datapath.py: qrdma-perf on the 2-node
simulation, `make bench` "datapath") in its quick mode: two sizes, short windows, few
transfers. qrdma-perf verifies every byte and every notification (a wrong one fails the
run); this test checks the JSON against what the harness's latencies and the packet
format imply: the payload-efficiency counts exactly, throughput and latency within the
bounds that the memory, link and MMIO latencies and the link's 64 bytes/cycle set.
Builds in the harness build directory under its lock (tools/demo.py build), so the model
is built once."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# harness defaults (docs/sim.md), cycles
MEM_RD, MEM_WR, LINK, MMIO_RT = 200, 100, 100, 30
BEAT, MAX_PAYLOAD = 64, 1024


def _bench():
    spec = importlib.util.spec_from_file_location(
        "bench_datapath", ROOT / "tests" / "bench" / "bench_datapath.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _link_ceiling(size: int) -> float:
    """Payload bytes per cycle of a link carrying one beat per cycle, every packet a
    header beat and its payload beats (docs/formats.md)."""
    p = min(size, MAX_PAYLOAD)
    return BEAT * p / (p + BEAT)


@pytest.mark.long
def test_bench_datapath_quick(tmp_path: Path) -> None:
    bench = _bench()
    res = bench.main(quick=True, sizes=[64, 4096], out=tmp_path / "datapath_quick.json")
    b = bench.QUICK

    # -- throughput
    tp = res["throughput"]
    assert [(r["size"], r["outstanding"]) for r in tp] == [(64, 1), (64, 64), (4096, 1), (4096, 64)]
    # a transfer's turnaround: payload read, link, receiver's write, ACK back
    turnaround = MEM_RD + LINK + MEM_WR + LINK
    for r in tp:
        size, bpc = r["size"], r["bytes_per_cycle"]
        assert abs(r["gbps_at_200mhz"] - bpc * 1.6) < 0.01
        if r["outstanding"] == 1:
            assert r["transfers_verified"] == bench.one_transfers(b, size) == r["transfers_in_window"]
            bound = size / (turnaround + size / BEAT)
        else:
            warm, win = bench.warmup_window(b, size)
            assert r["warmup_cycles"] == warm and win <= r["window_cycles"] < win + 200
            # one transfer per channel in flight; the window may catch one packet more
            bound = min(64 * size / turnaround, _link_ceiling(size)) + MAX_PAYLOAD / r["window_cycles"]
            assert r["transfers_verified"] > r["transfers_in_window"] > 0
        assert 0.5 * bound <= bpc <= bound, (r, bound)
    # 64 x 4 KiB in flight fill the link: every beat carries payload but the headers
    assert tp[3]["bytes_per_cycle"] >= 0.95 * _link_ceiling(4096)

    # -- payload efficiency: 1 KiB aligned transfers are one DATA and one CONTROL packet
    # each (17 + 1 beats on the forward link) and one ACK back
    n = b["eff"]
    det = res["payload_efficiency_1k_detail"]
    assert (det["data_packets"], det["control_packets"], det["payload_bytes"]) == (n, n, 1024 * n)
    assert (det["forward_beats"], det["reverse_beats"]) == (18 * n, n)
    assert res["payload_efficiency_1k"] == det["data_only"] == round(1024 / 17, 3)
    assert det["all_forward"] == round(1024 / 18, 3)
    assert det["forward_and_reverse"] == round(1024 / 19, 3)

    # -- latency: at least the CPU's half of the MMIO round trip, the payload read (memory
    # writes), the link, the receiver's write and the payload's beats; DONE also needs the
    # ACK back and the status read's return
    lat, kind, done = res["latency_cycles"], res["latency_kind"], res["latency_done_cycles"]
    assert set(lat) == set(kind) == set(done) == {"8", "64", "1024", "4096", "65536"}
    assert kind == {"8": "inline", "64": "memory", "1024": "memory", "4096": "memory", "65536": "memory"}
    for s, k in kind.items():
        beats = -(-int(s) // BEAT) if k == "memory" else 0
        read = MEM_RD if k == "memory" else 0
        notif_min = MMIO_RT // 2 + read + LINK + MEM_WR + beats
        done_min = MMIO_RT // 2 + read + LINK + beats + LINK + MMIO_RT // 2
        assert notif_min <= lat[s] <= notif_min + 500, (s, lat[s], notif_min)
        assert done_min <= done[s] <= done_min + 600, (s, done[s], done_min)
    mem = [lat[s] for s in ("64", "1024", "4096", "65536")]
    assert mem == sorted(mem)

    # -- verification: every transfer of every run, every notification (the efficiency
    # stream's and one per latency transfer)
    assert res["data_verified"] is True
    assert res["transfers_verified"] == (sum(r["transfers_verified"] for r in tp) + n
                                         + 2 * len(lat) * b["lat"])
    assert res["notifications_checked"] == n + 2 * len(lat) * b["lat"]
    assert len(res["commands"]) == 4 + 1 + 2 * len(lat)
    assert all(c.startswith("build/sim_harness/qrdma-perf ") for c in res["commands"])
