# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""make demo: the 2-node system simulation measured with qrdma-perf, beside [QoS-RDMA] §4.3.

Builds the harness and qrdma-perf (sim/Makefile, unless --no-build), measures the harness
speed (qrdma_sim_bench, N = 2), runs qrdma-perf write_lat and write_bw (and read_lat,
read_bw: node 0 reading node 1's memory, docs/nic.md "Remote reads") over all sizes
(2 B .. 8 MiB) in the two measurement modes of [QoS-RDMA] §4.3 -- one transfer at a time
(post, poll its status until DONE, next channel: -t 1) and 64 outstanding transfers with
collective status reads (-t 64) -- and the message rate of 8-byte inline writes from 1 to 16
pages on their own CPU cores (qrdma-perf msg_rate -q P), prints their perftest-style tables,
a comparison with [QoS-RDMA]'s figures and writes, into build/results/ (or --out):

  qrdma_perf_<test>_t<N>_mem[_<config>].json  the tool's figures (one file per sweep)
  demo_sim_speed.json                         the harness speed run (the median of five)
  msg_rate.json                               the message rate rows (tests/bench/bench_msg_rate.py)
  demo_latency.png, demo_throughput.png       the plots
  demo.json                                   the comparison, speed, runs and wall times

Two harness configurations (-B backend specs of qrdma-perf):
  default   host memory read 200 cycles (1 us), write 100 (500 ns), link 100 (500 ns):
            a host with DRAM and a cable; the sweeps of both tests in both modes
  seedlike  memory 2 cycles and link 2 cycles: [QoS-RDMA] measured BRAM to BRAM inside one
            node (§4.3), so its figures are the NIC's own; write_lat -t 1 and write_bw -t 64
Both: 2 nodes, MMIO round trip 30 cycles (150 ns, [QoS-RDMA]'s PS-PL round trip), nominal
200 MHz. Every transfer's data is verified by qrdma-perf; any failing run (wrong byte:
exit 2, ERROR status or timeout: exit 3) stops the demo with a non-zero exit status.

Iterations are budgeted per size with -n (count) and -b (bytes: at most -b / size
iterations, at least 2), so that the whole demo, venv and Verilator build included,
stays within a few minutes on 2 cores.

  python tools/demo.py [--quick] [--jobs N] [--out DIR] [--no-build] [--no-plots]
                       [--backend-extra SPEC]

--quick: three sizes (2 B, 128 B, 16 KiB) and a few iterations each: the plumbing test
(tests/sim/test_demo_smoke.py). --backend-extra appends items to every -B spec (e.g. to
test that a failing run fails the demo).
"""
from __future__ import annotations

import argparse
import fcntl
import json
import math
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "sim_harness"  # shared with tests/sim/test_sim_harness.py
RESULTS = ROOT / "build" / "results"
PERF = BUILD / "qrdma-perf"
SPEED = BUILD / "qrdma_sim_bench"

CLOCK_HZ = 200e6  # nominal NIC clock: the simulation counts cycles
# payload line rate: one 512-bit beat per cycle, 1 KiB packets = 16 payload beats + 1
# header beat (docs/nic.md: the CRC rides in tuser, no footer beat)
LINE_RATE_GBPS = 512 * CLOCK_HZ * 16 / 17 / 1e9
LINE_RATE_FRACTION = 0.95  # "at line rate": BW average >= 95 % of it

# [QoS-RDMA] §4.3 (Zynq UltraScale+, QoS engine at 150 MHz, user-level A53, intra-node
# BRAM -> BRAM, PS-PL round trip 120-150 ns)
SEED_CLOCK_HZ = 150e6
SEED = {
    "small_latency_ns": 360.0,      # Fig. 4.4 blue: one at a time, small transfers
    "bw_128_outstanding_gbps": 21.6,  # Fig. 4.6 cyan: 64 outstanding, 128 B
    "line_rate_gbps": 68.3,         # 16/18 x 512 b x 150 MHz (header + footer per 1 KiB)
    "line_rate_from_bytes": 16384,  # Fig. 4.5 cyan: reached at 16 KB
}

CONFIGS = {
    "default": ("nodes=2,mem_rd=200,mem_wr=100,link=100,mmio_rt=30",
                "host memory read 200 cycles (1 us), write 100 (500 ns), link 100 cycles "
                "(500 ns), MMIO round trip 30 cycles (150 ns)"),
    "seedlike": ("nodes=2,mem_rd=2,mem_wr=2,link=2,mmio_rt=30",
                 "memory read/write 2 cycles (BRAM, as [QoS-RDMA]'s tests), link 2 cycles, "
                 "MMIO round trip 30 cycles (150 ns)"),
}

QUICK_SIZES = [2, 128, 16384]


@dataclass
class Run:
    """One qrdma-perf sweep: test, outstanding transfers, configuration and budget."""
    name: str
    test: str
    t: int
    config: str
    n: int
    b: str | None = None          # -b byte cap
    sizes: list[int] | None = None  # None: -a (2 B .. 8 MiB)
    mode: str = "mem"
    suffix: str = ""
    # filled in by execute()
    json_path: Path | None = None
    wall_s: float = 0.0
    outputs: list[str] = field(default_factory=list)
    cmds: list[list[str]] = field(default_factory=list)
    rows: list[dict] = field(default_factory=list)


def plan(quick: bool) -> list[Run]:
    """The runs, most expensive first (they start first on the worker pool)."""
    if quick:
        q = QUICK_SIZES
        return [
            Run("write_lat_t1", "write_lat", 1, "default", n=4, sizes=q),
            Run("write_lat_t64", "write_lat", 64, "default", n=64, sizes=q),
            Run("write_bw_t1", "write_bw", 1, "default", n=4, sizes=q),
            Run("write_bw_t64", "write_bw", 64, "default", n=64, sizes=q),
            Run("write_lat_t1_seedlike", "write_lat", 1, "seedlike", n=4, sizes=q),
            Run("write_bw_t64_seedlike", "write_bw", 64, "seedlike", n=64, sizes=q),
            Run("write_bw_128_batch64", "write_bw", 64, "default", n=64, sizes=[128], suffix="_batch64"),
            Run("write_bw_128_batch64_seedlike", "write_bw", 64, "seedlike", n=64, sizes=[128],
                suffix="_batch64"),
            Run("write_lat_inline8", "write_lat", 1, "default", n=4, sizes=[8], mode="inline"),
            Run("write_lat_inline8_seedlike", "write_lat", 1, "seedlike", n=4, sizes=[8], mode="inline"),
            Run("read_lat_t1", "read_lat", 1, "default", n=4, sizes=q),
            Run("read_bw_t64", "read_bw", 64, "default", n=64, sizes=q),
            Run("read_lat_t1_seedlike", "read_lat", 1, "seedlike", n=4, sizes=q),
        ]
    # Budget, in simulated cycles of the default configuration (~50,000 per CPU second
    # with qrdma-perf's data checks): one at a time, a transfer takes ~600 cycles + size /
    # 60 B and every one takes exactly as long (stdev 0), so 50 iterations are plenty;
    # 64 outstanding, small transfers go at ~10-30 cycles each, large ones at line rate
    # (~60 B per cycle). -b caps a large size at -b / 60 cycles: 35,000 for 2M; 8 MiB
    # needs 2 x 140,000 whatever the cap (at least 2 iterations). In all ~6 M cycles,
    # ~2 CPU minutes: about 1 minute on 2 idle cores.
    return [
        Run("write_lat_t1", "write_lat", 1, "default", n=50, b="1M"),
        Run("write_bw_t64", "write_bw", 64, "default", n=1000, b="2M"),
        Run("write_bw_t64_seedlike", "write_bw", 64, "seedlike", n=1000, b="2M"),
        Run("write_bw_t1", "write_bw", 1, "default", n=50, b="2M"),
        Run("write_lat_t64", "write_lat", 64, "default", n=640, b="1M"),
        Run("write_lat_t1_seedlike", "write_lat", 1, "seedlike", n=50, b="1M"),
        # [QoS-RDMA]'s outstanding mode exactly: one batch of 64 posts, polled until all done
        Run("write_bw_128_batch64", "write_bw", 64, "default", n=64, sizes=[128], suffix="_batch64"),
        Run("write_bw_128_batch64_seedlike", "write_bw", 64, "seedlike", n=64, sizes=[128],
            suffix="_batch64"),
        Run("write_lat_inline8", "write_lat", 1, "default", n=50, sizes=[8], mode="inline"),
        Run("write_lat_inline8_seedlike", "write_lat", 1, "seedlike", n=50, sizes=[8], mode="inline"),
        # remote reads: node 0 reads node 1's buffers (a READ_REQ per block, docs/nic.md)
        Run("read_bw_t64", "read_bw", 64, "default", n=1000, b="2M"),
        Run("read_lat_t1", "read_lat", 1, "default", n=50, b="1M"),
        Run("read_lat_t1_seedlike", "read_lat", 1, "seedlike", n=50, b="1M"),
    ]


# ------------------------------------------------------------------------------ build

def build() -> None:
    """sim/Makefile: the harness and qrdma-perf, in build/sim_harness (the directory and
    lock tests/sim/test_sim_harness.py uses, so nothing is built twice)."""
    BUILD.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    print("== building the 2-node harness and qrdma-perf (make -C sim all libqrdma)", flush=True)
    # sim/Makefile's own flags only: no MAKEFLAGS from a caller (tests/simrun.py puts the
    # cocotb builds' -O1 overrides there), -j2 as the machine has 2 cores
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    with open(BUILD / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        r = subprocess.run(["make", "-C", str(ROOT / "sim"), "-j2", f"VENV={sys.prefix}", "all", "libqrdma"],
                           capture_output=True, text=True, env=env)
    if r.returncode != 0:
        print(r.stdout[-4000:])
        print(r.stderr[-4000:], file=sys.stderr)
        raise SystemExit("DEMO FAILED: the harness build (make -C sim all libqrdma) failed")
    print(f"   built in {time.time() - t0:.0f} s", flush=True)


# ------------------------------------------------------------------------------ runs

class Failed(Exception):
    pass


_procs: set[subprocess.Popen] = set()
_procs_lock = threading.Lock()
_stop = threading.Event()


def _call(cmd: list[str], timeout: float) -> tuple[int, str, str]:
    """Run one process we started; on a demo failure the others are terminated."""
    if _stop.is_set():
        raise Failed("not started: another run failed")
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    with _procs_lock:
        _procs.add(p)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        err += f"\n(killed after {timeout:.0f} s wall)"
    finally:
        with _procs_lock:
            _procs.discard(p)
    return p.returncode, out, err


def perf_json(args: list[str], spec: str, out: Path, timeout: float = 1800) -> dict:
    """One qrdma-perf process of a benchmark (args, backend spec, JSON to out): its JSON;
    raises RuntimeError with the command and its error output when it fails."""
    cmd = [str(PERF), *args, "-B", spec, "-o", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    if r.returncode != 0:
        print(r.stdout)
        print(r.stderr, file=sys.stderr)
        raise RuntimeError(f"`{' '.join(cmd)}` exited with status {r.returncode}"
                           f"{' (DATA VERIFICATION FAILED)' if r.returncode == 2 else ''}: "
                           f"{r.stderr.strip()[-500:]}")
    return json.loads(out.read_text())


def _stop_all() -> None:
    _stop.set()
    with _procs_lock:
        for p in list(_procs):
            if p.poll() is None:
                p.terminate()


def execute(run: Run, out: Path, extra: str, timeout: float) -> Run:
    spec = CONFIGS[run.config][0] + ("," + extra if extra else "")
    cfg = "" if run.config == "default" else "_" + run.config
    run.json_path = out / f"qrdma_perf_{run.test}_t{run.t}_{run.mode}{run.suffix}{cfg}.json"
    base = [str(PERF), run.test, "-t", str(run.t), "-m", run.mode, "-n", str(run.n), "-B", spec]
    if run.b:
        base += ["-b", run.b]
    if run.sizes is None:
        jobs = [(["-a"], run.json_path)]
    elif len(run.sizes) == 1:
        jobs = [(["-s", str(run.sizes[0])], run.json_path)]
    else:  # one process per size, rows merged into run.json_path
        jobs = [(["-s", str(s)], run.json_path.with_suffix(f".s{s}.json")) for s in run.sizes]
    t0 = time.time()
    merged = None
    for args, path in jobs:
        cmd = base + args + ["-o", str(path)]
        run.cmds.append(cmd)
        rc, so, se = _call(cmd, timeout)
        run.outputs.append((so + se).replace(str(path), f"{run.json_path} (merged)")
                           if path != run.json_path else so + se)
        if rc != 0:
            _stop_all()
            raise Failed(f"{run.name}: `{' '.join(cmd)}` exited with status {rc}"
                         f"{' (DATA VERIFICATION FAILED)' if rc == 2 else ''}\n{so}{se}")
        res = json.loads(path.read_text())
        if res.get("verified") != "every transfer":
            raise Failed(f"{run.name}: {path} does not say every transfer was verified")
        if merged is None:
            merged = res
        else:
            merged["rows"] += res["rows"]
        if path != run.json_path:
            path.unlink()
    if len(jobs) > 1:
        run.json_path.write_text(json.dumps(merged, indent=2) + "\n")
    run.rows = merged["rows"]
    run.wall_s = time.time() - t0
    return run


def measure_speed(out: Path, quick: bool) -> dict:
    """qrdma_sim_bench, N = 2, alone on the machine (before the sweeps start). Five runs
    (one with --quick); the one with the median traffic speed is the figure, all are kept
    in "runs_cycles_per_s" (a shared machine's speed moves from run to run: the fastest run
    is the one least disturbed by other load)."""
    cycles, warm, idle, n = (20_000, 5_000, 5_000, 1) if quick else (300_000, 20_000, 40_000, 5)
    path = out / "demo_sim_speed.json"
    cmd = [str(SPEED), "--cycles", str(cycles), "--warmup", str(warm), "--idle-cycles", str(idle),
           "--json", str(path)]
    results = []
    for _ in range(n):
        rc, so, se = _call(cmd, 600)
        if rc != 0:
            raise Failed(f"`{' '.join(cmd)}` exited with status {rc}\n{so}{se}")
        res = json.loads(path.read_text())
        res["output"] = so
        results.append(res)
    res = sorted(results, key=lambda r: r["cycles_per_s"])[len(results) // 2]
    res["command"] = " ".join(cmd)
    res["runs_cycles_per_s"] = [r["cycles_per_s"] for r in results]
    path.write_text(json.dumps({k: v for k, v in res.items() if k != "output"}, indent=2) + "\n")
    return res


# ------------------------------------------------------------------------------ figures

def _row(run: Run | None, size: int) -> dict | None:
    if run is None:
        return None
    for r in run.rows:
        if r["bytes"] == size:
            return r
    return None


def _ns(us: float) -> str:
    return f"{us * 1000:.0f} ns ({us * 1e-6 * CLOCK_HZ:.0f} cyc)"


def _gbps(g: float, hz: float = CLOCK_HZ) -> str:
    return f"{g:.1f} Gb/s ({g * 1e9 / hz:.0f} b/cyc)"


def _size(b: int) -> str:
    if b >= 1 << 20 and b % (1 << 20) == 0:
        return f"{b >> 20} MiB"
    if b >= 1024 and b % 1024 == 0:
        return f"{b >> 10} KiB"
    return f"{b} B"


def _line_rate(run: Run | None) -> tuple[int | None, float | None, float | None]:
    """Smallest size from which every larger size is at >= 95 % of line rate; the BW at
    16 KiB; the best BW average of the sweep."""
    if run is None or not run.rows:
        return None, None, None
    rows = sorted(run.rows, key=lambda r: r["bytes"])
    first = None
    for r in rows:
        if r["bw_avg_gbps"] >= LINE_RATE_FRACTION * LINE_RATE_GBPS:
            if first is None:
                first = r["bytes"]
        else:
            first = None
    at16 = _row(run, 16384)
    return first, (at16["bw_avg_gbps"] if at16 else None), max(r["bw_avg_gbps"] for r in rows)


def _name(base: str, config: str) -> str:
    return base + ("" if config == "default" else "_" + config)


def compare(runs: dict[str, Run]) -> list[dict]:
    """The comparison rows: [QoS-RDMA]'s figure, ours in both configurations (text and
    value), and what ours measures."""
    rows = []

    def add(figure, seed, seed_value, key, unit, fmt, measures):
        row = {"figure": figure, "seed": seed, "seed_value": seed_value, "unit": unit,
               "ours_measures": measures}
        for c in CONFIGS:
            v = key(c)
            row[c] = "not measured" if v is None else fmt(v)
            row[c + "_value"] = v
        rows.append(row)

    def field_of(base, size, key):
        return lambda c: (lambda r: r[key] if r else None)(_row(runs.get(_name(base, c)), size))

    seed_cyc = SEED["small_latency_ns"] * 1e-9 * SEED_CLOCK_HZ
    add("small transfer, one at a time",
        f"{SEED['small_latency_ns']:.0f} ns ({seed_cyc:.0f} cyc @150M)", SEED["small_latency_ns"],
        lambda c: (lambda v: v * 1000 if v is not None else None)(field_of("write_lat_t1", 2, "t_avg_us")(c)),
        "ns", lambda v: _ns(v / 1000),
        "write_lat -t 1 -s 2 (memory-to-memory): average of post (descriptor write issued) -> "
        "the single-status read that returned DONE, that read included; no notification")
    add("  8 B inline, one at a time", "-", None,
        lambda c: (lambda v: v * 1000 if v is not None else None)(field_of("write_lat_inline8", 8, "t_avg_us")(c)),
        "ns", lambda v: _ns(v / 1000),
        "write_lat -t 1 -m inline -s 8: the same with the payload in the descriptor "
        "(no memory read at the sender)")
    add("128 B, 64 outstanding: one batch",
        _gbps(SEED["bw_128_outstanding_gbps"], SEED_CLOCK_HZ), SEED["bw_128_outstanding_gbps"],
        field_of("write_bw_128_batch64", 128, "bw_avg_gbps"), "Gb/s", _gbps,
        "write_bw -t 64 -n 64 -s 128, [QoS-RDMA]'s mode: 64 transfers posted on the 64 channels "
        "of a page, collective status reads until all are DONE; 64 x 128 B / (first post -> "
        "the read that saw the last DONE)")
    add("  128 B, 64 kept in flight", "-", None,
        field_of("write_bw_t64", 128, "bw_avg_gbps"), "Gb/s", _gbps,
        "write_bw -t 64 -s 128 over n transfers (JSON: iterations): a channel is re-posted "
        "as soon as a collective read shows it DONE; n x 128 B / (first post -> last DONE read)")
    lr = {c: _line_rate(runs.get(_name("write_bw_t64", c))) for c in CONFIGS}
    add("line rate, 64 outstanding, from", "16 KB", SEED["line_rate_from_bytes"],
        lambda c: lr[c][0] if lr[c][2] is not None else None, "bytes",
        lambda v: _size(v) if v else "not reached",
        f"write_bw -t 64 -a: smallest size from which every size's BW average is >= "
        f"{LINE_RATE_FRACTION:.0%} of the payload line rate")
    add("  BW average at 16 KiB, 64 outstanding",
        f"{SEED['line_rate_gbps']} Gb/s (100 %)", SEED["line_rate_gbps"],
        lambda c: lr[c][1], "Gb/s", lambda v: f"{v:.1f} Gb/s ({100 * v / LINE_RATE_GBPS:.0f} %)",
        "write_bw -t 64 -s 16384; % of our payload line rate")
    add("  payload line rate / best BW average",
        f"{SEED['line_rate_gbps']} / ~68 Gb/s", SEED["line_rate_gbps"],
        lambda c: lr[c][2], "Gb/s", lambda v: f"{LINE_RATE_GBPS:.1f} / {v:.1f} Gb/s",
        f"line rate 16/17 x 512 b x 200 MHz = {LINE_RATE_GBPS:.1f} Gb/s (1 KiB packets + one "
        f"header beat; [QoS-RDMA]: 16/18 x 512 b x 150 MHz, header and footer beats); best of the "
        f"write_bw -t 64 sweep")
    add("remote read, 8 B, one at a time", "- (future work)", None,
        lambda c: (lambda v: v * 1000 if v is not None else None)(field_of("read_lat_t1", 8, "t_avg_us")(c)),
        "ns", lambda v: _ns(v / 1000),
        "read_lat -t 1 -s 8: post -> the single-status read that returned DONE (a READ_REQ, the "
        "responder's memory read, the response packet, its write at the requester); beside "
        "write_lat -t 1 -s 8 above")
    add("  write, 8 B, one at a time", "-", None,
        lambda c: (lambda v: v * 1000 if v is not None else None)(field_of("write_lat_t1", 8, "t_avg_us")(c)),
        "ns", lambda v: _ns(v / 1000),
        "write_lat -t 1 -s 8 (memory-to-memory), in the same run")
    add("  read BW at 4 KiB, 64 outstanding", "-", None,
        field_of("read_bw_t64", 4096, "bw_avg_gbps"), "Gb/s",
        lambda v: f"{v:.1f} Gb/s ({100 * v / LINE_RATE_GBPS:.0f} %)",
        "read_bw -t 64 -s 4096; % of the payload line rate")
    return rows


def print_comparison(rows: list[dict], speed: dict) -> None:
    w0 = max(len(r["figure"]) for r in rows)
    cols = ["seed"] + list(CONFIGS)
    heads = {"seed": "[QoS-RDMA] §4.3", "default": "qrdma default harness",
             "seedlike": "qrdma seed-like harness"}
    ws = {c: max(len(heads[c]), *(len(str(r[c])) for r in rows)) for c in cols}
    rule = "-" * (1 + w0 + sum(ws.values()) + 3 * len(cols))
    print(rule)
    print(" [QoS-RDMA] §4.3 beside qrdma measured in this run (2-node simulation, cycles at a nominal 200 MHz)")
    print(rule)
    print(" " + "figure".ljust(w0) + "".join(" | " + heads[c].ljust(ws[c]) for c in cols))
    print(rule)
    for r in rows:
        print(" " + r["figure"].ljust(w0) + "".join(" | " + str(r[c]).ljust(ws[c]) for c in cols))
    print(rule)
    print(" What our figures measure (node 0 writes into node 1's memory, every transfer's bytes verified):")
    for r in rows:
        print(f"  - {r['figure'].strip()}: {r['ours_measures']}")
    print(" Harness configurations (qrdma-perf -B):")
    for c, (spec, text) in CONFIGS.items():
        print(f"  - {c}: {text} [{spec}]")
    print(" [QoS-RDMA]: user-level programs on the Zynq's A53, QoS engine at 150 MHz, one node, BRAM to")
    print(" BRAM, 120-150 ns PS-PL round trip; its outstanding figures are batches of 64 transfers;")
    print(" cyc = clock cycles (ours at 200 MHz, [QoS-RDMA]'s at 150 MHz), b/cyc = bits per cycle.")
    print(rule)
    runs = speed["runs_cycles_per_s"]
    what = (f"median of {len(runs)} runs of {speed['cycles']:,} cycles" if len(runs) > 1
            else f"{speed['cycles']:,} cycles")
    print(f" Harness speed, N = 2 (qrdma_sim_bench: 64 KiB writes, 4 in flight, {what}):")
    print(f"   {speed['cycles_per_s']:,.0f} simulated cycles per wall-clock second "
          f"({speed['cycles_per_cpu_s']:,.0f} per CPU second, up to {speed['threads']} thread(s); "
          f"idle {speed['idle_cycles_per_s']:,.0f})")
    if len(runs) > 1:
        print(f"   the runs: {', '.join(f'{r:,.0f}' for r in runs)} cycles per wall-clock second "
              f"(fastest {max(runs):,.0f}: the least disturbed by other load on this machine)")
    print(rule, flush=True)


# ------------------------------------------------------------------------------ plots

def plot(runs: dict[str, Run], out: Path) -> list[str]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def xy(name, key, f=lambda v, r: v):
        r = runs.get(name)
        if r is None or not r.rows:
            return [], []
        rows = sorted(r.rows, key=lambda w: w["bytes"])
        return [w["bytes"] for w in rows], [f(w[key], w) for w in rows]

    def size_axis(ax):
        ax.set_xscale("log", base=2)
        ticks = [2 ** k for k in range(1, 24, 2)]
        ax.set_xticks(ticks)
        ax.set_xticklabels([_size(t).replace(" ", "") for t in ticks], rotation=45)
        ax.set_xlabel("transfer size")
        ax.grid(True, which="major", alpha=0.3)

    written = []
    # latency
    fig, ax = plt.subplots(figsize=(10, 7.5))
    for name, label, style in [
        ("write_lat_t1", "one at a time: post -> DONE read (default harness)", "o-"),
        ("write_lat_t1_seedlike", "one at a time: post -> DONE read (seed-like harness)", "s--"),
        ("write_lat_t64", "64 outstanding: post -> DONE read of each transfer (default)", "^-"),
        ("read_lat_t1", "remote read, one at a time: post -> DONE read (default harness)", "x-"),
        ("read_lat_t1_seedlike", "remote read, one at a time (seed-like harness)", "+--"),
    ]:
        x, y = xy(name, "t_avg_us")
        if x:
            ax.plot(x, y, style, label=label, markersize=4)
    for name, label, style in [
        ("write_bw_t64", "64 outstanding: run time / transfers ([QoS-RDMA]'s cyan curve; default)", "v:"),
        ("write_bw_t64_seedlike", "64 outstanding: run time / transfers (seed-like)", "d:"),
    ]:
        x, y = xy(name, "msg_rate_mpps", lambda v, r: 1.0 / v)
        if x:
            ax.plot(x, y, style, label=label, markersize=4)
    ax.plot([2], [SEED["small_latency_ns"] / 1000], "k*", markersize=12,
            label="[QoS-RDMA]: 360 ns small-transfer completion (150 MHz FPGA)")
    ax.set_yscale("log")
    ax.set_ylabel("average time [us] (200 MHz)")
    size_axis(ax)
    ax.set_title("qrdma 2-node simulation: write and read latency vs transfer size")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    fig.tight_layout()
    p = out / "demo_latency.png"
    fig.savefig(p, dpi=110)
    plt.close(fig)
    written.append(str(p))

    # throughput
    fig, ax = plt.subplots(figsize=(10, 7.5))
    for name, label, style in [
        ("write_bw_t64", "64 outstanding (default harness)", "o-"),
        ("write_bw_t64_seedlike", "64 outstanding (seed-like harness)", "s--"),
        ("write_bw_t1", "one at a time (default harness)", "^-"),
        ("write_lat_t1_seedlike", "one at a time (seed-like harness)", "d:"),
        ("read_bw_t64", "remote read, 64 outstanding (default harness)", "x-"),
    ]:
        x, y = xy(name, "bw_avg_gbps")
        if x:
            ax.plot(x, y, style, label=label, markersize=4)
    ax.axhline(LINE_RATE_GBPS, color="gray", linestyle="-.", linewidth=1,
               label=f"payload line rate {LINE_RATE_GBPS:.1f} Gb/s (512 b x 200 MHz x 16/17)")
    ax.axhline(SEED["line_rate_gbps"], color="k", linestyle=":", linewidth=1,
               label="[QoS-RDMA] line rate 68.3 Gb/s (16/18 x 512 b x 150 MHz)")
    ax.plot([128], [SEED["bw_128_outstanding_gbps"]], "k*", markersize=12,
            label="[QoS-RDMA]: 21.6 Gb/s at 128 B, 64 outstanding")
    ax.plot([SEED["line_rate_from_bytes"]], [SEED["line_rate_gbps"]], "kP", markersize=10,
            label="[QoS-RDMA]: line rate from 16 KB, 64 outstanding")
    ax.set_ylabel("BW average [Gb/s] (200 MHz)")
    ax.set_ylim(bottom=0)
    size_axis(ax)
    ax.set_title("qrdma 2-node simulation: write and read throughput vs transfer size")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    fig.tight_layout()
    p = out / "demo_throughput.png"
    fig.savefig(p, dpi=110)
    plt.close(fig)
    written.append(str(p))
    return written


# ------------------------------------------------------------------------------ main

def measure_msg_rate(out: Path, quick: bool) -> dict:
    """qrdma-perf msg_rate -q P for P = 1 .. 16 on both harness configurations
    (tests/bench/bench_msg_rate.py); prints the table, writes out/msg_rate.json."""
    sys.path.insert(0, str(ROOT / "tests" / "bench"))
    import bench_msg_rate

    print("== message rate: 8-byte inline writes, P pages on P CPU cores (qrdma-perf msg_rate -q P)",
          flush=True)
    try:
        res = bench_msg_rate.measure(iters=100 if quick else bench_msg_rate.ITERS)
    except RuntimeError as e:
        raise Failed(str(e)) from e
    (out / "msg_rate.json").write_text(json.dumps(res, indent=2) + "\n")
    print(bench_msg_rate.table(res), flush=True)
    print(f" results: {out / 'msg_rate.json'}", flush=True)
    return res


def run_demo(quick: bool = False, jobs: int | None = None, out: Path = RESULTS, do_build: bool = True,
             plots: bool = True, extra: str = "", summary: str = "demo.json") -> dict:
    """Everything but the argument parsing; returns what it writes to out/summary.
    Raises Failed (or SystemExit for the build) when anything fails."""
    t_start = time.time()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    _stop.clear()
    if do_build:
        build()
    for b in (PERF, SPEED):
        if not b.exists():
            raise Failed(f"{b} missing: build with `make -C sim all libqrdma`")
    jobs = jobs or max(1, min(2, os.cpu_count() or 1))

    print("== harness speed (qrdma_sim_bench, N = 2, alone)", flush=True)
    speed = measure_speed(out, quick)
    print(speed["output"], end="", flush=True)

    runs = plan(quick)
    print(f"== {len(runs)} qrdma-perf runs on {jobs} worker(s)", flush=True)
    t_runs = time.time()

    def one(r: Run) -> Run:
        execute(r, out, extra, timeout=900)
        print(f"   done: {r.name:32s} {r.wall_s:6.1f} s wall", flush=True)
        return r

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(one, r) for r in runs]
        errors = []
        for f in futures:
            try:
                f.result()
            except Failed as e:
                errors.append(str(e))
    if errors:
        real = [e for e in errors if not e.startswith("not started")]
        raise Failed("\n".join(real or errors))
    runs_wall = time.time() - t_runs

    for r in runs:
        print(f"\n== {r.name}: {CONFIGS[r.config][1] if r.config != 'default' else 'default harness'}")
        for o in r.outputs:
            print(o, end="")
    print()
    by_name = {r.name: r for r in runs}
    cmp_rows = compare(by_name)
    print_comparison(cmp_rows, speed)
    rate = measure_msg_rate(out, quick)
    written = plot(by_name, out) if plots else []
    for p in written:
        print(f" plot: {p}")
    res = {
        "demo": "qrdma-perf on the 2-node system simulation beside [QoS-RDMA] §4.3",
        "quick": quick,
        "clock_hz": CLOCK_HZ,
        "line_rate_gbps": LINE_RATE_GBPS,
        "configs": {c: {"backend_spec": s, "what": t} for c, (s, t) in CONFIGS.items()},
        "qos_rdma": SEED,
        "comparison": cmp_rows,
        "sim_speed": {k: v for k, v in speed.items() if k != "output"},
        "msg_rate": rate["rows"],
        "runs": [{"name": r.name, "config": r.config, "json": str(r.json_path), "wall_s": round(r.wall_s, 2),
                  "commands": [" ".join(c) for c in r.cmds]} for r in runs],
        "plots": written,
        "workers": jobs,
        "runs_wall_s": round(runs_wall, 1),
        "wall_s": round(time.time() - t_start, 1),
    }
    (out / summary).write_text(json.dumps(res, indent=2) + "\n")
    print(f" summary: {out / summary}   (demo.py {res['wall_s']:.0f} s wall, runs {runs_wall:.0f} s "
          f"on {jobs} worker(s))", flush=True)
    return res


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="three sizes, few iterations (plumbing test)")
    ap.add_argument("--jobs", type=int, default=None, help="parallel qrdma-perf runs (default: min(2, cores))")
    ap.add_argument("--out", default=str(RESULTS), help="results directory (default build/results)")
    ap.add_argument("--no-build", action="store_true", help="do not run sim/Makefile")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--backend-extra", default="", help="items appended to every -B spec")
    a = ap.parse_args(argv[1:])
    try:
        run_demo(quick=a.quick, jobs=a.jobs, out=Path(a.out), do_build=not a.no_build,
                 plots=not a.no_plots, extra=a.backend_extra)
    except Failed as e:
        print("\n" + "!" * 80, file=sys.stderr)
        print(f"DEMO FAILED: {e}", file=sys.stderr)
        print("!" * 80, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
