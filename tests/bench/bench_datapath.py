# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Datapath benchmark -> build/results/datapath_bench.json.

qrdma-perf (sw/tools/qrdma_perf.c; options and figure definitions in docs/sw.md) on the
2-node system simulation (build/sim_harness/qrdma-perf: node 0 writes to node 1 over the
64 bytes/cycle link, harness defaults), one process -- a fresh simulation -- per
measurement:

  throughput             write_bw -A, sizes 64 B .. 4 MiB: -t 1 (transfers one at a time)
                         and -t 64 -w W0,W (payload landing at node 1 in a window)
  payload_efficiency_1k  write_bw -s 1024 -t 64 -N -c: payload bytes per link beat, from
                         the NIC's counters
  latency_cycles         write_lat -N -l notif: post -> node 1's ring entry full (median)
  latency_done_cycles    write_lat -N: post -> the status read that saw DONE (median)

Every transfer's data and every notification is verified by qrdma-perf (exit 2 on a
wrong byte or notification, 3 on any other failure); a failing run raises. The figures
and what bounds them: docs/nic.md "Measured".

  python tools/bench.py datapath
"""
from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import demo  # noqa: E402  (the harness build and the qrdma-perf binary it makes)

OUT = ROOT / "build" / "results" / "datapath_bench.json"
CLOCK_HZ = 200_000_000  # the simulation's ticks are cycles of the nominal 200 MHz clock
LINK_BYTES_PER_CYCLE = 64
BEAT = 64  # bytes of a network beat (docs/formats.md NET_BEAT_BYTES)
BLOCK = 65536  # the NIC's BLOCK_SIZE (checked against qrdma-perf's block_size)
OUTSTANDING = 64
SIZES = [64 << i for i in range(17)]  # 64 B .. 4 MiB
LAT_SIZES = [(8, "inline"), (64, "mem"), (1024, "mem"), (4096, "mem"), (65536, "mem")]

# budgets: (one-at-a-time cycles per size, min, max transfers), warm-up (min, max),
# window (min, max), efficiency transfers, latency repetitions
FULL = dict(one=(100_000, 2, 64), warm=(10_000, 98_304), win=(50_000, 131_072), eff=2000, lat=3)
QUICK = dict(one=(3_000, 2, 3), warm=(2_000, 3_000), win=(3_000, 3_000), eff=100, lat=3)


def _clamp(v: int, lo: int, hi: int) -> int:
    return max(lo, min(hi, v))


def one_transfers(b: dict, size: int) -> int:
    """-t 1: transfers per size, ~b["one"][0] cycles of them (a transfer takes ~800 cycles
    plus its beats)."""
    cycles, lo, hi = b["one"]
    return _clamp(cycles // (800 + size // BEAT), lo, hi) + 1


def warmup_window(b: dict, size: int) -> tuple[int, int]:
    """-t 64: up to 64 KiB a round of 64 transfers takes ~size cycles at line rate: warm up
    over 1.5 rounds and measure 2; beyond, every transfer is still in flight when the
    window ends and the link is shared by all 64 from ~1,000 cycles on, so the minimums
    are used."""
    small = size <= BLOCK
    return (_clamp(size * 3 // 2 if small else 0, *b["warm"]),
            _clamp(2 * size if small else 0, *b["win"]))


def mem_spec(size: int) -> str:
    """Host memory per node for 64 slots (qrdma-perf -A: aligned to the size, 4 KiB .. a
    block, each followed by a guard) and the notification ring."""
    align = _clamp(1 << (size.bit_length() - 1), 4096, BLOCK)
    stride = -(-(size + 64) // align) * align
    need = align + OUTSTANDING * stride + (16 << 20)
    return f"mem={max(64, -(-need // (1 << 20)))}M"


def perf(args: list[str], spec: str, tmp: Path, name: str) -> tuple[dict, list[str]]:
    """One qrdma-perf process; its JSON (one row) and the command."""
    out = tmp / f"{name}.json"
    res = demo.perf_json(args, spec, out, timeout=1800)
    if res["verified"] != "every transfer" or res["tick_hz"] != CLOCK_HZ or res["block_size"] != BLOCK:
        raise RuntimeError(f"{name}: unexpected qrdma-perf report {out}")
    return res, [str(demo.PERF), *args, "-B", spec, "-o", str(out)]


def _display(cmd: list[str]) -> str:
    """A command as a reader reruns it (binary and output relative to the repository)."""
    return " ".join(["build/sim_harness/qrdma-perf", *cmd[1:-2]])


def measure(quick: bool = False, sizes: list[int] | None = None) -> dict:
    """Run every measurement; the benchmark's JSON as a dict."""
    b = QUICK if quick else FULL
    sizes = sizes or SIZES
    t0 = time.time()
    cmds: list[str] = []
    rows_run: list[dict] = []  # every qrdma-perf row, for the verification totals
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)

        def run(args, size, name):
            res, cmd = perf(args, mem_spec(size), tmp, name)
            cmds.append(_display(cmd))
            rows_run.append(res["rows"][0])
            return res["rows"][0], res

        lat, lat_done, kind = {}, {}, {}
        for size, mode in LAT_SIZES:
            base = ["write_lat", "-s", str(size), "-m", mode, "-A", "-N", "-n", str(b["lat"])]
            lat[str(size)] = run([*base, "-l", "notif"], size, f"lat_notif_{size}")[0]["t_typical_ticks"]
            lat_done[str(size)] = run(base, size, f"lat_done_{size}")[0]["t_typical_ticks"]
            kind[str(size)] = "inline" if mode == "inline" else "memory"

        row, _ = run(["write_bw", "-s", "1024", "-t", str(OUTSTANDING), "-A", "-N", "-c",
                      "-n", str(b["eff"])], 1024, "efficiency")
        eff = efficiency(row)

        tp = []
        for size in sizes:
            n = one_transfers(b, size)
            r1, _ = run(["write_bw", "-s", str(size), "-t", "1", "-A", "-n", str(n)], size, f"bw1_{size}")
            bpc = size * r1["iterations"] / r1["ticks"]
            tp.append(_tp_row(size, 1, bpc, bpc, 0, r1["ticks"], r1["iterations"], r1["iterations"]))
            w0, w = warmup_window(b, size)
            r64, res = run(["write_bw", "-s", str(size), "-t", str(OUTSTANDING), "-A", "-w", f"{w0},{w}"],
                           size, f"bw64_{size}")
            tp.append(_tp_row(size, r64["outstanding"], r64["window_rx_bytes"] / r64["window_ticks"],
                              size * r64["window_done"] / r64["window_ticks"], res["window_warmup_ticks"],
                              r64["window_ticks"], r64["window_done"], r64["iterations"]))
            print(f"  {size:>8} B  1 outst. {tp[-2]['bytes_per_cycle']:6.2f} B/cycle   "
                  f"64 outst. {tp[-1]['bytes_per_cycle']:6.2f} B/cycle", flush=True)

    from_ = None  # smallest size from which every 64-outstanding row is >= 90 % of the link
    for r in tp:
        if r["outstanding"] != OUTSTANDING:
            continue
        ok = r["bytes_per_cycle"] >= 0.9 * LINK_BYTES_PER_CYCLE
        from_ = (from_ or r["size"]) if ok else None
    return {
        "benchmark": "datapath",
        "quick": quick,
        "tool": "qrdma-perf on the simulation backend (build/sim_harness/qrdma-perf), "
                "a fresh simulation per measurement",
        "system": "2 nodes, node 0 -> node 1, point-to-point link 64 B/cycle; harness defaults: "
                  "memory read 200 cycles, write 100, link 100, MMIO round trip 30; NIC defaults: "
                  "MAX_PAYLOAD 1024, BLOCK_SIZE 65536, MAX_OUTSTANDING 2",
        "clock_mhz": CLOCK_HZ // 1_000_000,
        "link_bytes_per_cycle": LINK_BYTES_PER_CYCLE,
        "throughput_method": "slots aligned to the size (4 KiB .. 64 KiB, qrdma-perf -A). "
                             "outstanding 1: write_bw -t 1, bytes of all n transfers / (first post -> "
                             "the status read that saw the last DONE). outstanding 64: write_bw -t 64 "
                             "-w warmup,window: node 1's RX_BYTES counter read warmup_cycles after the "
                             "first post and again window_cycles later, bytes_per_cycle = its "
                             "difference / window_cycles; completed_bytes_per_cycle = size x transfers "
                             "seen DONE in the window / window_cycles; then drained. docs/sw.md.",
        "throughput": tp,
        "line_rate_90pct_from": from_,
        "payload_efficiency_1k": eff["data_only"],
        "payload_efficiency_1k_detail": eff,
        "latency_cycles": lat,
        "latency_kind": kind,
        "latency_done_cycles": lat_done,
        "latency_definition": f"write_lat -A -N -n {b['lat']}, the median: one transfer at a time "
                              "with notification, from the tick before the CPU issues the descriptor "
                              "write to: latency_cycles (-l notif), the first cycle at whose start node "
                              "1's ring entry reads NOTIF_FULL in host memory (checked every cycle); "
                              "latency_done_cycles, the cycle the sender's status read returning DONE "
                              "reaches its CPU (single-status reads back to back from the post)",
        "data_verified": True,
        "transfers_verified": sum(r["iterations"] for r in rows_run),
        "bytes_verified": sum(r["iterations"] * r["bytes"] for r in rows_run),
        "notifications_checked": sum(r["notifications"] for r in rows_run),
        "commands": cmds,
        "wall_s": round(time.time() - t0, 1),
    }


def _tp_row(size, out, bpc, completed, warmup, window, in_window, verified) -> dict:
    return {"size": size, "outstanding": out, "bytes_per_cycle": round(bpc, 3),
            "gbps_at_200mhz": round(bpc * 8 * CLOCK_HZ / 1e9, 2),
            "link_fraction": round(bpc / LINK_BYTES_PER_CYCLE, 4),
            "completed_bytes_per_cycle": round(completed, 3), "warmup_cycles": warmup,
            "window_cycles": window, "transfers_in_window": in_window, "transfers_verified": verified}


def efficiency(row: dict) -> dict:
    """The 1 KiB stream's counters (node 0, node 1) as payload per beat."""
    src, dst = row["counters"]
    ppb = row["payload_per_beat"]

    def beats(c: dict) -> int:  # header and payload beats of DATA packets, one per other packet
        return c["TX_DATA_PKTS"] + c["TX_DATA_BYTES"] // BEAT + c["TX_CTRL_PKTS"]

    return {
        "stream": f"{row['iterations']} transfers of 1 KiB (aligned: one DATA packet each) with "
                  "notification, 64 outstanding; NIC counters read before the first post and "
                  "after the last DONE and notification",
        "data_only": round(ppb["data"], 3), "all_forward": round(ppb["forward"], 3),
        "forward_and_reverse": round(ppb["both"], 3),
        "payload_bytes": src["TX_BYTES"], "forward_beats": beats(src),
        "data_packets": src["TX_DATA_PKTS"], "control_packets": src["TX_CTRL_PKTS"],
        "reverse_beats": beats(dst),
        "definition": "qrdma-perf -c: beats of DATA packets = TX_DATA_PKTS + TX_DATA_BYTES / 64 "
                      "(a header beat and the payload beats; exact as every packet's payload is "
                      "whole beats), every other packet one beat. data_only = node 0's "
                      "TX_DATA_BYTES / its DATA beats; all_forward = node 0's TX_BYTES / all its "
                      "beats (DATA and one CONTROL per transfer); forward_and_reverse also counts "
                      "node 1's beats (ACKs, one per block) on the other link.",
    }


def main(quick: bool = False, sizes: list[int] | None = None, out: Path = OUT) -> dict:
    demo.build()
    res = measure(quick, sizes)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=2) + "\n")
    print(f"wrote {out}")
    return res


if __name__ == "__main__":
    print(json.dumps(main(quick="--quick" in sys.argv), indent=2))
