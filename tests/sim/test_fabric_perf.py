# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma-perf's traffic patterns across nodes (sw/tools/perf_flows.c, docs/sw.md "Traffic
patterns") on four NICs through the fabric RTL (topo=star, docs/sim.md "Links"): incast,
permutation, alltoall and hotspot, each flow keeping OUT memory writes of SIZE bytes in
flight, every byte verified by the tool (exit 0), no packet dropped in the fabric.

The expectations come from the link and the packet format, not from a run:
- A 1 KiB payload is a 17-beat DATA packet (docs/formats.md) on a link of one 64-byte beat
  per cycle: no flow, no receiver can take more than P = 16/17 of the line rate.
- A link that also carries the credit beats of a fully loaded reverse direction (one per
  UPD_MIN = 68 beats freed in the star, docs/sim.md "Links") leaves DATA 68/69 of its
  beats: C x P.
- A flow's figure counts the transfers whose DONE was seen in the window, so it is off the
  bytes it moved by at most the OUT x SIZE bytes in flight at either end: q = OUT x SIZE /
  (W x 64) of the line rate. The receivers' RX_BYTES counters have no such error; beats
  held in the buffers between the link and the memory (at most ~1,024) let a counter run
  ahead of its link by 1024 / W.
- Per receiver, the flows into it add up to its RX_BYTES (the per-flow accounting).
- A switch output's round robin over whole packets of equal size gives every input the
  same share; the victim of the hotspot keeps at least VICTIM = 0.9 of its throughput
  alone, the hotspot experiment's target: it loses the credit beats and ACKs that node 1's
  incast puts on its link and the pauses of its own sending.
The host memory answers payload reads after 2 cycles (mem_rd=2), so that a sender's port
queue, refilled at once after a pause, never starves the link: the shares are the
fabric's. With the default 200-cycle reads a paused sender leaves its link idle while its
next payload read is out (docs/fabric.md "Benchmark": the system-level figures)."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_sim_harness import BUILD, _make  # noqa: E402

LINE = 64                 # bytes per cycle: one beat
P = 16 / 17               # payload share of a 17-beat DATA packet
C = 68 / 69               # DATA share of a link that carries one credit beat per 68 beats
MARGIN = 0.03             # relative: ACKs (one beat per block), pipeline bubbles
SW_HOP = 8                # a one-beat packet through an idle switch (docs/fabric.md "Switch")
VICTIM = 0.9              # the hotspot victim's loaded / alone throughput, at least
SPEC = "topo=star,nodes=4,mem_rd=2"
WARM, WIN = 20000, 100000
SLACK = 1024 / WIN        # beats buffered between a link and the memory


@pytest.fixture(scope="module")
def harness() -> Path:
    _make("all", "libqrdma")
    return BUILD


def perf(harness: Path, tmp: Path, pattern: str, size: int, out: int, spec: str = SPEC) -> dict:
    js = tmp / f"{pattern}.json"
    cmd = [str(harness / "qrdma-perf"), pattern, "-s", str(size), "-t", str(out),
           "-w", f"{WARM},{WIN}", "-B", spec, "-o", str(js)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    print(" ".join(cmd))
    print(r.stdout)
    print(r.stderr[-4000:], file=sys.stderr)
    assert r.returncode == 0, f"qrdma-perf {pattern} failed (exit {r.returncode})"
    assert "Data verified: every transfer" in r.stdout
    assert "packets dropped" not in r.stderr, r.stderr[-2000:]
    res = json.loads(js.read_text())
    assert (res["nodes"], res["size"], res["outstanding"]) == (4, size, out)
    assert res["dropped_packets"] == 0
    q = out * size / (WIN * LINE)
    for run in res["runs"]:
        ticks = run["window_ticks"]
        assert WIN <= ticks < WIN + 2000
        for f in run["flows"]:
            assert f["bytes"] == f["transfers"] * size
            assert f["transfers_completed"] >= f["transfers"]
            assert f["bytes_per_cycle"] == pytest.approx(f["bytes"] / ticks, abs=1e-5)
            assert f["fraction_of_line_rate"] == pytest.approx(f["bytes_per_cycle"] / LINE, abs=1e-5)
            assert f["gbps"] == pytest.approx(f["bytes_per_cycle"] * 8 * 0.2, abs=1e-3)
        for r in run["receivers"]:
            into = [f for f in run["flows"] if f["dst"] == r["node"]]
            assert into, f"receiver {r['node']} without a flow"
            assert r["ticks"] == pytest.approx(ticks, abs=500)
            assert r["fraction_of_line_rate"] <= P + SLACK
            # the flows into a receiver add up to its RX_BYTES (in flight at the ends)
            flows = sum(f["fraction_of_line_rate"] for f in into)
            assert abs(flows - r["fraction_of_line_rate"]) <= len(into) * q + SLACK, (r, into)
        assert {r["node"] for r in run["receivers"]} == {f["dst"] for f in run["flows"]}
    res["q"] = q
    return res


def rx(run: dict, node: int) -> float:
    return next(r["fraction_of_line_rate"] for r in run["receivers"] if r["node"] == node)


def test_incast(harness: Path, tmp_path: Path) -> None:
    """Nodes 1, 2, 3 -> node 0: node 0's link is full of DATA packets (only the credit
    beats of node 0's ACKs share it), and the switch gives each sender a third."""
    res = perf(harness, tmp_path, "incast", 16384, 8)
    (run,) = res["runs"]
    q = res["q"]
    assert [(f["src"], f["dst"]) for f in run["flows"]] == [(1, 0), (2, 0), (3, 0)]
    assert rx(run, 0) >= P * (1 - MARGIN)
    shares = [f["fraction_of_line_rate"] for f in run["flows"]]
    for s in shares:
        assert abs(s - P / 3) <= q + 0.01, shares
    assert sum(shares) <= 1
    assert sum(shares) <= P + 3 * q


def test_permutation(harness: Path, tmp_path: Path) -> None:
    """Node i -> node i + 1 mod 4: every link carries one flow's DATA and the credit beats
    of the flow it receives; the four are alike."""
    res = perf(harness, tmp_path, "permutation", 16384, 8)
    (run,) = res["runs"]
    q = res["q"]
    assert [(f["src"], f["dst"]) for f in run["flows"]] == [(i, (i + 1) % 4) for i in range(4)]
    recv = [rx(run, n) for n in range(4)]
    for v in recv:
        assert C * P * (1 - MARGIN) <= v <= P + SLACK, recv
    assert max(recv) - min(recv) <= 0.01, recv
    for f in run["flows"]:
        assert f["fraction_of_line_rate"] <= P + q
        assert abs(f["fraction_of_line_rate"] - rx(run, f["dst"])) <= q + SLACK


def test_alltoall(harness: Path, tmp_path: Path) -> None:
    """Every node -> every other node, 12 flows: each node's link in and out carries three
    flows and the credit beats of the other direction; each flow gets a third of its
    receiver's."""
    res = perf(harness, tmp_path, "alltoall", 16384, 8)
    (run,) = res["runs"]
    q = res["q"]
    pairs = [(f["src"], f["dst"]) for f in run["flows"]]
    assert sorted(pairs) == [(i, j) for i in range(4) for j in range(4) if i != j]
    recv = [rx(run, n) for n in range(4)]
    for v in recv:
        assert C * P * (1 - MARGIN) <= v <= P + SLACK, recv
    for f in run["flows"]:
        share = f["fraction_of_line_rate"]
        assert share <= P / 3 + q
        assert abs(share - rx(run, f["dst"]) / 3) <= q + 0.01, (f, recv)


def test_hotspot(harness: Path, tmp_path: Path) -> None:
    """The victim 1 -> 2 alone, then beside nodes 0, 2, 3 -> node 1: node 2 receives the
    victim alone in both runs, so its RX_BYTES is the victim's exactly; loaded, the
    victim's link also carries the credit beats of the incast node 1 takes (one per 68
    beats) and its ACKs. 512 KiB in flight per flow cover the victim's longer round trip
    (its ACKs wait behind the incast in node 2's queue toward node 1, which holds up to
    PAUSE_LEVEL beats, and in its crosspoint)."""
    res = perf(harness, tmp_path, "hotspot", 65536, 8)
    alone, loaded = res["runs"]
    q = res["q"]
    assert (alone["run"], loaded["run"]) == ("alone", "loaded")
    assert [(f["src"], f["dst"]) for f in alone["flows"]] == [(1, 2)]
    assert [(f["src"], f["dst"]) for f in loaded["flows"]] == [(1, 2), (0, 1), (2, 1), (3, 1)]
    v = res["victim"]
    assert v["rx_alone_bytes_per_cycle"] / LINE == pytest.approx(rx(alone, 2), abs=1e-5)
    assert v["rx_loaded_bytes_per_cycle"] / LINE == pytest.approx(rx(loaded, 2), abs=1e-5)
    assert rx(alone, 2) >= P * (1 - MARGIN)
    assert VICTIM <= v["rx_ratio"] <= 1 + SLACK / P
    # the flows' own figures: the same ratio within what is in flight at the window's ends
    alone_f, loaded_f = alone["flows"][0]["fraction_of_line_rate"], loaded["flows"][0]["fraction_of_line_rate"]
    assert v["ratio"] == pytest.approx(loaded_f / alone_f, abs=1e-5)
    assert abs(loaded_f - rx(loaded, 2)) <= q + SLACK and abs(alone_f - rx(alone, 2)) <= q + SLACK
    # the incast into node 1: its link carries the credit beats of the victim's beats too
    assert rx(loaded, 1) >= C * P * (1 - MARGIN)
    for f in loaded["flows"][1:]:
        assert abs(f["fraction_of_line_rate"] - rx(loaded, 1) / 3) <= q + 0.01


def test_refuses_too_few_nodes(harness: Path, tmp_path: Path) -> None:
    """A pattern that needs more nodes than the backend has is refused with status 1."""
    r = subprocess.run([str(harness / "qrdma-perf"), "hotspot", "-B", "topo=star,nodes=2",
                        "-o", str(tmp_path / "h.json")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    assert "hotspot needs at least 3 nodes; the backend has 2" in r.stderr
    assert not (tmp_path / "h.json").exists()


def _bench_fabric():
    spec = importlib.util.spec_from_file_location(
        "bench_fabric", Path(__file__).resolve().parents[1] / "bench" / "bench_fabric.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_planes(harness: Path, tmp_path: Path) -> None:
    """One sender of multipath transfers (node 0 -> node 1, write_bw -M) over one plane and
    over two, every link of the fabric taking a beat every LINK_DIV-th cycle: one plane
    carries its DATA packets at its own rate (P of it: the ACKs and credit beats go the
    other way), two planes twice that, less what the spreading costs: the experiment's
    target is a ratio of 1.9 at least. Node 1's RX_BYTES has no in-flight error."""
    bf = _bench_fabric()
    one = bf.planes_run(harness / "qrdma-perf", "star", tmp_path, WARM, WIN)
    two = bf.planes_run(harness / "qrdma-perf", "planes", tmp_path, WARM, WIN)
    assert (one["planes"], two["planes"]) == (1, 2)
    for r in (one, two):
        assert WIN <= r["window_ticks"] < WIN + 2000
        assert r["bytes_per_cycle"] == pytest.approx(r["window_rx_bytes"] / r["window_ticks"], abs=1e-4)
    assert P * (1 - MARGIN) <= one["fraction_of_plane_rate"] <= P + SLACK
    assert two["fraction_of_plane_rate"] <= 2 * (P + SLACK)
    assert two["bytes_per_cycle"] / one["bytes_per_cycle"] >= 1.9


def test_one_hop(harness: Path) -> None:
    """An 8-byte inline write, post -> notification, over the same wire point to point and
    through one switch: the hop (both node ports store and forward the one-beat packet, the
    switch takes 8 cycles for it, docs/fabric.md "Switch") adds at least the switch's 8
    cycles and less than 40; planes add the merge's register slice at most a few. Through
    two switches (topo=dumbbell, node 0 and node 1 on different switches) the second hop
    adds the trunk's wire and the second switch's 8 cycles, exactly as between the two
    switches of the fabric's own test (docs/fabric.md "Two hops": one switch and one link).
    The runs are in benchmark mode (-S): every notification carries the stamps of its path,
    whose stages add up to its stamped total; the NICs' stages and what the stamps leave
    out are the same on every network; every switch stage is the switch's 8 cycles, the
    point-to-point link and the trunk their wire exactly, and a node's two ends of the
    fabric the same through one switch and through two."""
    bf = _bench_fabric()
    h = bf.hop_level(harness / "qrdma-perf")
    assert [r["topology"] for r in h["rows"]] == ["p2p", "star", "planes", "dumbbell"]
    assert h["rows"][0]["cycles"] > h["wire_cycles"]
    assert 8 <= h["one_hop_cycles"] < 40, h
    assert 0 <= h["one_hop_planes_cycles"] - h["one_hop_cycles"] <= 4, h
    assert h["second_hop_switch_cycles"] == SW_HOP, h
    # benchmark mode (-S, docs/fabric.md "Benchmark mode"): the same runs' stamps
    rows = {r["topology"]: r for r in h["rows"]}
    links = {"p2p": ["link_recv"], "star": ["link_sw0", "link_recv"],
             "planes": ["link_sw0", "link_recv"],
             "dumbbell": ["link_sw0", "link_sw1", "link_recv"]}
    for t, r in rows.items():
        st = r["stages"]
        hops = len(links[t]) - 1
        assert r["hops"] == hops, r
        assert list(st) == ["sender", *[x for k in range(hops) for x in (f"link_sw{k}", f"sw{k}")],
                            "link_recv", "receiver"], r
        assert sum(st.values()) == r["stamped_total"], r
        # the NICs' stages do not depend on the network; neither does what the stamps
        # leave out (the descriptor's way to the host port, the notification's to the host)
        assert (st["sender"], st["receiver"]) == (rows["p2p"]["stages"]["sender"],
                                                  rows["p2p"]["stages"]["receiver"]), r
        assert r["cycles"] - r["stamped_total"] == rows["p2p"]["cycles"] - rows["p2p"]["stamped_total"], r
        # a one-beat packet through an idle switch: its 8 cycles (docs/fabric.md "Switch")
        assert all(st[f"sw{k}"] == SW_HOP for k in range(hops)), r
    # the wire alone where no node port is on the way: the point-to-point link, the trunk
    assert rows["p2p"]["stages"]["link_recv"] == h["wire_cycles"]
    assert rows["dumbbell"]["stages"]["link_sw1"] == bf.HOP_LINK
    # a node's ends of the fabric are the same through one switch and through two
    node_ends = [rows[t]["stages"]["link_sw0"] + rows[t]["stages"]["link_recv"] for t in ("star", "dumbbell")]
    assert node_ends[0] == node_ends[1] > h["wire_cycles"], rows


def test_p2p_spec(harness: Path, tmp_path: Path) -> None:
    """topo=p2p is the point-to-point link: 1 or 2 nodes; asked for more it is refused."""
    cmd = [str(harness / "qrdma-perf"), "write_lat", "-s", "8", "-n", "2", "-o", str(tmp_path / "l.json")]
    r = subprocess.run([*cmd, "-B", "topo=p2p,nodes=3"], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "topo=p2p has 1 or 2 nodes" in r.stderr, r.stderr
    r = subprocess.run([*cmd, "-B", "topo=p2p,nodes=2"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "Data verified" in r.stdout, r.stderr
