# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Fabric benchmark -> build/results/fabric_bench.json and fabric_flows.png.

Unit level ("rows"): the experiments of [FPGA-NI] §3 on the fabric RTL (node ports
around a switch, tb_qrdma_fabric; the cocotb module is tests/fabric/bench_qrdma_fabric.py),
every node sending 1 KiB DATA packets (17 beats) back to back, every destination taking
every beat at once, links of 4 cycles each way, 128-beat crosspoints and node receive
buffers; node ports with virtual output queues (voq 1) and, at 4 ports, the baseline with
one queue per port (voq 0).

  incast       nodes 1, 2, 3 -> node 0 through 4 ports: each sender's share of node 0's
               link (beats per cycle; the link carries one beat per cycle)
  hotspot      node 1 -> node 2 (the victim) alone, then while nodes 0, 2, 3 incast into
               node 1 (the hotspot is the victim's source node): victim_ratio = the
               victim's beats per cycle with the incast on / alone
  hotspot_shared_source  the same victim beside node 1 -> node 0 and 2, 3 -> node 0 (the
               victim's source also sends to the hotspot: its virtual output queues keep
               the victim going at the link's rest; its one queue holds the victim's
               packets behind those to the hotspot)
  permutation  16 ports, node i -> node i + 1 mod 16: each flow's share of its link

Each row: {"experiment", "nodes", "voq", "flows": [{"src", "dst", "bytes_per_cycle",
"beats_per_cycle"}], "drops", ...} in {"rows": [...]}.
Hops ("hops"): two switches joined by a trunk (tb_qrdma_fabric_2hop, links of 4 cycles):
a packet of 1 and of 17 beats through the idle fabric to a node of the same switch (one
hop) and of the other switch (two hops), cycles from its first beat in to its first out.

System level ("system"): the same experiments through NICs, qrdma-perf's traffic
patterns (docs/sw.md "Traffic patterns") on the system simulation's star (topo=star: the
fabric RTL between Verilated NICs, harness defaults: memory reads 200 cycles, writes 100,
links 100 each way), each flow keeping OUT memory writes of SIZE bytes in flight, every
byte verified: incast (4 nodes), alltoall (4 nodes), hotspot (victim alone and loaded,
4 nodes) and, with --n16, permutation on 16 nodes (a NIC_NODES=16 harness build in
build/sim_harness_n16). Per flow the bytes of the transfers whose DONE was seen in the
window per cycle, as a fraction of the link's 64 bytes/cycle (off the bytes moved by at
most OUT x SIZE / window at the window's ends: "in_flight_error"), per receiver its
RX_BYTES over the window. Cycle counts are exact; at the nominal 200 MHz one beat per
cycle is 102.4 Gb/s.

Planes ("planes"): one sender (node 0 -> node 1, qrdma-perf write_bw -M: multipath
transfers of PLANES_SIZE bytes, PLANES_OUT in flight, windowed) over one plane
(topo=star) and over two (topo=planes), every link of the fabric at half the NIC's rate
(link_div=2); node 1's RX_BYTES over the window per cycle, and the ratio two / one.

One hop ("hop"): an 8-byte inline write from node 0, post -> node 1's notification
(qrdma-perf write_lat -m inline -N -l notif -t 1), point-to-point over a link of
2 x HOP_LINK cycles and through one switch over two links of HOP_LINK (star and planes):
the same wire, so the difference is what a hop of the fabric adds (the node ports and the
switch), in cycles.

  python tools/bench.py fabric [--n16] [--system-only]
    --n16          also permutation on 16 nodes (builds the NIC_NODES=16 harness)
    --system-only  only the system level; the unit rows of an existing fabric_bench.json
                   are kept
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "build" / "results" / "fabric_bench.json"
PLOT = ROOT / "build" / "results" / "fabric_flows.png"
BUILD_N16 = ROOT / "build" / "sim_harness_n16"

LINE = 64                       # bytes per cycle of a link
SIZE, OUTSTANDING = 65536, 8    # per flow: 512 KiB in flight
WARMUP, WINDOW = 50_000, 600_000
SYSTEM = [  # (experiment, qrdma-perf pattern, nodes)
    ("incast", "incast", 4),
    ("alltoall", "alltoall", 4),
    ("hotspot", "hotspot", 4),
]
N16 = ("permutation", "permutation", 16)
PLANES_SIZE, PLANES_OUT = 4 << 20, 8     # multipath from the engine's MP_MIN_BYTES, 256 KiB
PLANES_WARMUP, PLANES_WINDOW = 50_000, 400_000
LINK_DIV = 2                             # a plane's links take a beat every second cycle
HOP_LINK = 50                            # each of the two links through a switch


def unit_level() -> dict:
    sys.path.insert(0, str(ROOT / "tests"))
    sys.path.insert(0, str(ROOT / "tests" / "fabric"))
    from simrun import run

    raw = OUT.with_suffix(".raw.json")
    if raw.exists():
        raw.unlink()
    for p, voq, xp, rx in ((4, 1, 128, 128), (4, 0, 128, 128), (16, 1, 128, 128)):
        params = {"P": p, "VOQ": voq, "MAX_PKT": 17, "XP_DEPTH": xp, "VOQ_DEPTH": 128,
                  "PAUSE_LEVEL": 64, "RX_DEPTH": rx, "UPD_MIN": 17, "REFRESH": 256,
                  "LINK_LAT": 4}
        env = {f"P_{k}": str(v) for k, v in params.items()}
        env.update(QRDMA_BENCH_OUT=str(raw), COCOTB_LOG_LEVEL="WARNING")
        run("tb_qrdma_fabric", "bench_qrdma_fabric", params, extra_env=env)
    res = json.loads(raw.read_text())
    raw.unlink()
    # two switches joined by a trunk: a packet's latency to a node of the same switch and
    # to one across the trunk (tests/fabric/test_qrdma_fabric_2hop.py)
    params = {"P": 3, "MAX_PKT": 17, "XP_DEPTH": 64, "VOQ_DEPTH": 128, "PAUSE_LEVEL": 64,
              "UPD_MIN": 17, "REFRESH": 2048, "SYNC": 2048, "LINK_LAT": 4}
    env = {f"P_{k}": str(v) for k, v in params.items()}
    from test_qrdma_switch import HOP1
    env.update(P_P="4", P_SW_P="3", P_RX_DEPTH="64", P_N="20", P_HOP1=str(HOP1),
               QRDMA_BENCH_OUT=str(raw), COCOTB_LOG_LEVEL="WARNING")
    run("tb_qrdma_fabric_2hop", "test_qrdma_fabric_2hop", params, extra_env=env)
    res["hops"] = json.loads(raw.read_text())
    raw.unlink()
    return res


def build_n16() -> Path:
    """sim/Makefile with NIC_NODES=16 into build/sim_harness_n16: the harness and qrdma-perf
    (without the planes model, which the permutation does not use; the 16-port star model
    compiled -O1: gcc takes hours over it at -O3)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    args = ["NIC_NODES=16", "FAB_PLANES=0", "DUMBBELL=0", "FAB_OPT=-O1", f"BUILD={BUILD_N16}", "all", "libqrdma"]
    print(f"== building the 16-node harness (make -C sim {' '.join(args)})", flush=True)
    r = subprocess.run(["make", "-C", str(ROOT / "sim"), "-j2", f"VENV={sys.prefix}", *args],
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        print(r.stdout[-4000:])
        print(r.stderr[-4000:], file=sys.stderr)
        raise SystemExit("fabric bench: the NIC_NODES=16 harness build failed")
    return BUILD_N16


def system_run(perf: Path, experiment: str, pattern: str, nodes: int, tmp: Path) -> dict:
    """One qrdma-perf traffic pattern on the star; raises when it fails or drops a packet."""
    js = tmp / f"{experiment}.json"
    cmd = [str(perf), pattern, "-s", str(SIZE), "-t", str(OUTSTANDING), "-w", f"{WARMUP},{WINDOW}",
           "-B", f"topo=star,nodes={nodes}", "-o", str(js)]
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    print(r.stdout, flush=True)
    if r.returncode != 0 or "packets dropped" in r.stderr:
        print(r.stderr, file=sys.stderr)
        raise RuntimeError(f"`{' '.join(cmd)}` exited with status {r.returncode}: {r.stderr.strip()[-500:]}")
    res = json.loads(js.read_text())
    if res["dropped_packets"]:
        raise RuntimeError(f"`{' '.join(cmd)}`: {res['dropped_packets']} packets dropped")
    display = " ".join(str(Path(c).relative_to(ROOT)) if c == str(perf) else c for c in cmd[:-2])
    row = {"experiment": experiment, "nodes": nodes, "command": display, "wall_s": round(time.time() - t0, 1),
           "dropped_packets": res["dropped_packets"]}
    for run in res["runs"]:
        part = {"window_ticks": run["window_ticks"], "flows": run["flows"], "receivers": run["receivers"]}
        if pattern == "hotspot":
            row[run["run"]] = part
        else:
            row.update(part)
    if pattern == "hotspot":
        row["victim"] = res["victim"]
    return row


def planes_run(perf: Path, topo: str, tmp: Path, warmup: int = PLANES_WARMUP,
               window: int = PLANES_WINDOW) -> dict:
    """write_bw -M from node 0 to node 1 through topo (star: one plane, planes: two), links
    at 1/LINK_DIV of the NIC's rate: node 1's received bytes per cycle in the window."""
    js = tmp / f"planes_{topo}.json"
    spec = f"topo={topo},nodes=2,link_div={LINK_DIV}"
    cmd = [str(perf), "write_bw", "-M", "-s", str(PLANES_SIZE), "-t", str(PLANES_OUT),
           "-w", f"{warmup},{window}", "-B", spec, "-o", str(js)]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    print(r.stdout, flush=True)
    if r.returncode != 0 or "packets dropped" in r.stderr:
        print(r.stderr, file=sys.stderr)
        raise RuntimeError(f"`{' '.join(cmd)}` exited with status {r.returncode}: {r.stderr.strip()[-500:]}")
    (row,) = json.loads(js.read_text())["rows"]
    bpc = row["window_rx_bytes"] / row["window_ticks"]
    display = " ".join(str(Path(c).relative_to(ROOT)) if c == str(perf) else c for c in cmd[:-2])
    return {"topology": topo, "planes": 2 if topo == "planes" else 1, "command": display,
            "window_ticks": row["window_ticks"], "window_rx_bytes": row["window_rx_bytes"],
            "bytes_per_cycle": round(bpc, 4), "fraction_of_nic_line_rate": round(bpc / LINE, 4),
            "fraction_of_plane_rate": round(bpc * LINK_DIV / LINE, 4)}


def hop_run(perf: Path, spec: str, tmp: Path) -> dict:
    """An 8-byte inline write in benchmark mode (-S): its typical post -> notification
    latency in cycles ("cycles"), and the median of each stage of its stamps (docs/fabric.md
    "Benchmark mode": "hops", "stages" in path order, "stamped_total" t_done - t_post)."""
    js = tmp / "hop.json"
    cmd = [str(perf), "write_lat", "-s", "8", "-m", "inline", "-t", "1", "-N", "-l", "notif",
           "-S", "-n", "50", "-B", spec, "-o", str(js)]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        print(r.stdout, r.stderr, file=sys.stderr)
        raise RuntimeError(f"`{' '.join(cmd)}` exited with status {r.returncode}")
    (row,) = json.loads(js.read_text())["rows"]
    st = row["stamps"]
    return {"cycles": row["t_typical_ticks"], "hops": st["hops"],
            "stages": {s["stage"]: s["median"] for s in st["stages"]},
            "stamped_total": st["total"]["median"]}


def hop_level(perf: Path) -> dict:
    """p2p over one link of 2 HOP_LINK cycles; the star and the planes over two links of
    HOP_LINK (one switch); the dumbbell over three (node 0 and node 1 on different
    switches: two switches and the trunk)."""
    runs = [("p2p", f"link={2 * HOP_LINK}"), ("star", f"topo=star,nodes=2,link={HOP_LINK}"),
            ("planes", f"topo=planes,nodes=2,link={HOP_LINK}"),
            ("dumbbell", f"topo=dumbbell,nodes=2,link={HOP_LINK}")]
    with tempfile.TemporaryDirectory() as tmp:
        rows = [{"topology": t, "spec": spec, **hop_run(perf, spec, Path(tmp))}
                for t, spec in runs]
    cyc = {r["topology"]: r["cycles"] for r in rows}
    return {"size": 8, "mode": "inline", "end": "notification", "wire_cycles": 2 * HOP_LINK,
            "rows": rows, "one_hop_cycles": cyc["star"] - cyc["p2p"],
            "one_hop_planes_cycles": cyc["planes"] - cyc["p2p"],
            # the second switch and the trunk's HOP_LINK cycles of wire
            "second_hop_cycles": cyc["dumbbell"] - cyc["star"],
            "second_hop_switch_cycles": cyc["dumbbell"] - cyc["star"] - HOP_LINK}


def planes_level(perf: Path) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        one, two = (planes_run(perf, t, Path(tmp)) for t in ("star", "planes"))
    return {"size": PLANES_SIZE, "outstanding": PLANES_OUT, "multipath": True,
            "link_div": LINK_DIV, "warmup_ticks": PLANES_WARMUP, "window_ticks": PLANES_WINDOW,
            "rows": [one, two], "ratio": round(two["bytes_per_cycle"] / one["bytes_per_cycle"], 4)}


def system_level(n16: bool) -> dict:
    sys.path.insert(0, str(ROOT / "tools"))
    import demo  # the default harness build (build/sim_harness) and its qrdma-perf

    demo.build()
    todo = [(demo.PERF, *e) for e in SYSTEM]
    if n16:
        todo.append((build_n16() / "qrdma-perf", *N16))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for perf, experiment, pattern, nodes in todo:
            rows.append(system_run(perf, experiment, pattern, nodes, Path(tmp)))
    return {"topology": "star", "harness": "defaults: memory read 200 cycles, write 100, links 100, MMIO 30",
            "size": SIZE, "outstanding": OUTSTANDING, "warmup_ticks": WARMUP, "window_ticks": WINDOW,
            "line_rate_bytes_per_cycle": LINE,
            "in_flight_error": round(OUTSTANDING * SIZE / (WINDOW * LINE), 4),
            "verified": "every transfer", "rows": rows}


def plot(system: dict, path: Path) -> None:
    """Per flow its fraction of the line rate, one panel per experiment (the hotspot's
    victim alone and loaded), the in-flight error as error bars; the dashed line is the
    payload rate of 1 KiB packets (16/17) divided among the flows into one receiver."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = []
    for row in system["rows"]:
        if row["experiment"] == "hotspot":
            panels.append(("hotspot: alone", row["alone"]))
            panels.append(("hotspot: loaded", row["loaded"]))
        else:
            panels.append((f"{row['experiment']} ({row['nodes']} nodes)", row))
    err = system["in_flight_error"]
    fig, axes = plt.subplots(1, len(panels), figsize=(3.2 * len(panels) + 1, 3.8), squeeze=False,
                             gridspec_kw={"width_ratios": [max(2, len(p[1]["flows"])) for p in panels]})
    for ax, (title, part) in zip(axes[0], panels):
        flows = part["flows"]
        x = list(range(len(flows)))
        ax.bar(x, [f["fraction_of_line_rate"] for f in flows], yerr=err, capsize=2, color="tab:blue")
        ax.set_xticks(x, [f"{f['src']}→{f['dst']}" for f in flows], rotation=90 if len(flows) > 6 else 0,
                      fontsize=8)
        fair = [16 / 17 / sum(1 for g in flows if g["dst"] == f["dst"]) for f in flows]
        for i, v in enumerate(fair):
            ax.plot([i - 0.45, i + 0.45], [v, v], "k--", linewidth=1)
        ax.set_ylim(0, 1.0)
        ax.set_title(title, fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0][0].set_ylabel("fraction of the link's 64 B/cycle")
    fig.suptitle(f"qrdma-perf flows through the star: {system['size'] >> 10} KiB writes, "
                 f"{system['outstanding']} in flight per flow, {system['window_ticks']:,}-cycle window; "
                 f"dashed: 16/17 shared by the flows into a receiver", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def table(system: dict) -> str:
    lines = [" experiment             src  dst  B/cycle   line rate  Gb/s    | receiver  B/cycle   line rate"]
    for row in system["rows"]:
        parts = [("alone", row["alone"]), ("loaded", row["loaded"])] if row["experiment"] == "hotspot" \
            else [("", row)]
        for tag, part in parts:
            name = f"{row['experiment']}{' ' + tag if tag else ''} ({row['nodes']})"
            recv = {r["node"]: r for r in part["receivers"]}
            for f in part["flows"]:
                r = recv[f["dst"]]
                lines.append(f" {name:<22} {f['src']:>3}  {f['dst']:>3}  {f['bytes_per_cycle']:>7.3f}  "
                             f"{f['fraction_of_line_rate']:>9.4f}  {f['gbps']:>6.2f}  | node {r['node']:<4} "
                             f"{r['bytes_per_cycle']:>7.3f}  {r['fraction_of_line_rate']:>9.4f}")
        if row["experiment"] == "hotspot":
            v = row["victim"]
            lines.append(f" victim ratio loaded / alone: {v['ratio']:.4f} (flow), {v['rx_ratio']:.4f} (node 2's RX_BYTES)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    argv = argv or []
    unknown = [a for a in argv if a not in ("--n16", "--system-only")]
    if unknown:
        raise SystemExit(f"fabric bench: unknown option(s) {unknown} (--n16, --system-only)")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    if "--system-only" in argv:
        res = json.loads(OUT.read_text()) if OUT.exists() else {}
        res.pop("system", None)
    else:
        res = unit_level()
    res["system"] = system_level("--n16" in argv)
    sys.path.insert(0, str(ROOT / "tools"))
    import demo
    res["planes"] = planes_level(demo.PERF)
    res["hop"] = hop_level(demo.PERF)
    plot(res["system"], PLOT)
    res["system"]["plot"] = str(PLOT.relative_to(ROOT))
    res["nominal_clock_mhz"] = 200
    res["command"] = "python tools/bench.py fabric" + "".join(f" {a}" for a in argv)
    OUT.write_text(json.dumps(res, indent=2) + "\n")
    print(table(res["system"]))
    pl = res["planes"]
    for row in pl["rows"]:
        print(f" planes {row['planes']}: {row['bytes_per_cycle']:.3f} B/cycle, "
              f"{row['fraction_of_plane_rate']:.4f} of a plane's rate")
    print(f" two planes / one: {pl['ratio']:.4f}")
    print(" 8-byte inline write, post -> notification: "
          + ", ".join(f"{r['topology']} {r['cycles']}" for r in res["hop"]["rows"])
          + f" cycles; one hop {res['hop']['one_hop_cycles']}")
    for r in res["hop"]["rows"]:
        print(f"   {r['topology']} stages (benchmark mode, medians): "
              + ", ".join(f"{k} {v}" for k, v in r["stages"].items())
              + f"; total {r['stamped_total']} of its {r['cycles']}")
    print(f"wrote {OUT} and {PLOT}")
    return res


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:]), indent=2))
