# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Goodput over lossy links -> build/results/reliability_bench.json, reliability_goodput.png.

qrdma-perf write_bw (sw/tools/qrdma_perf.c) on the 2-node system simulation (the demo's
"default" harness: memory read 200 cycles, link 100 cycles) with both links losing a share
`loss` of the packets and corrupting loss / 10 of them (docs/sim.md "Faults"), every
transfer's bytes verified by qrdma-perf. Both NICs' RETX_TIMEOUT is TIMEOUT cycles with
the default 7 re-sends (docs/reliability.md), in three re-send modes (RETRY_LIMIT.resend)
measured on the same runs:
  selective  a MISS answer of the receiver re-sends the run of packets it names
  gbn        a MISS answer re-sends from the first missing packet to the block's end
  timeout    MISS answers ignored: a lost packet waits for its block's timer, which
             re-sends the whole block
The loss-free run is one run per size (no packet is re-sent in any mode): every mode's
ratio is taken against it.

  goodput_bytes_per_cycle  transfers x size / (last completion - first post), cycles
  goodput_ratio            the same / the loss-free run's of that size
  retransmitted_bytes      node 0's TX_DATA_BYTES - transfers x size
  resends, miss_resends    node 0's TX_RETX (timeouts) and TX_MISS_RETX (MISS answers)
  p999_latency_cycles      99.9th percentile of post -> DONE

  python tools/bench.py reliability
"""
from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import demo  # noqa: E402  (the harness build, its qrdma-perf and the configurations)

OUT = ROOT / "build" / "results" / "reliability_bench.json"
PLOT = ROOT / "build" / "results" / "reliability_goodput.png"
CLOCK_HZ = 200_000_000
LOSSES = [0.0, 1e-4, 1e-3, 1e-2, 5e-2, 1e-1]
SIZES = {65536: 256, 1 << 20: 32}   # size -> transfers
OUTSTANDING = 64
TIMEOUT = 5_000                      # cycles from the pick of a block's last packet: above
                                     # its wait in the job queue, its read and the round trip
MODES = {"selective": "sr", "gbn": "gbn", "timeout": "timeout"}   # mode -> qrdma-perf -R


def run(size: int, iters: int, loss: float, mode: str, tmp: Path) -> tuple[dict, str]:
    out = tmp / f"rel_{size}_{loss}_{mode}.json"
    spec = demo.CONFIGS["default"][0] + f",loss={loss},corrupt={loss / 10},seed=11,watchdog=0"
    args = ["write_bw", "-s", str(size), "-n", str(iters), "-t", str(OUTSTANDING), "-c",
            "-R", f"{TIMEOUT},7,3,{MODES[mode]}"]
    res = demo.perf_json(args, spec, out, timeout=3600)
    row = res["rows"][0]
    if res["verified"] != "every transfer" or res["tick_hz"] != CLOCK_HZ:
        raise RuntimeError(f"unexpected qrdma-perf report {out}")
    return row, " ".join(["build/sim_harness/qrdma-perf", *args, "-B", spec])


def measure(sizes: dict[int, int] | None = None, losses: list[float] | None = None,
            modes: list[str] | None = None) -> dict:
    t0 = time.time()
    rows, cmds = [], []
    with tempfile.TemporaryDirectory() as d:
        for size, iters in (sizes or SIZES).items():
            base, free = None, None
            for loss in losses or LOSSES:
                for mode in modes or list(MODES):
                    if loss == 0 and free is not None:
                        row = free      # the loss-free run: one for every mode
                    else:
                        row, cmd = run(size, iters, loss, mode, Path(d))
                        cmds.append(cmd)
                    free = row if loss == 0 else free
                    good = row["iterations"] * size / row["ticks"]
                    base = good if loss == 0 else base
                    c0 = row["counters"][0]
                    rows.append({
                        "mode": mode, "loss": loss, "corrupt": loss / 10, "size": size,
                        "transfers": row["iterations"], "cycles": row["ticks"],
                        "goodput_bytes_per_cycle": round(good, 3),
                        "goodput_ratio": round(good / base, 4) if base else None,
                        "retransmitted_bytes": c0["TX_DATA_BYTES"] - row["iterations"] * size,
                        "resends": c0["TX_RETX"], "miss_resends": c0["TX_MISS_RETX"],
                        "p999_latency_cycles": round(row["t_p999_us"] * CLOCK_HZ / 1e6),
                    })
    return {"benchmark": "reliability", "clock_mhz": CLOCK_HZ // 1_000_000,
            "harness": demo.CONFIGS["default"][1], "retx_timeout_cycles": TIMEOUT,
            "retry_limit": 7, "outstanding": OUTSTANDING, "verified": "every transfer",
            "rows": rows, "commands": cmds, "wall_s": round(time.time() - t0, 1)}


def plot(res: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for mode in dict.fromkeys(r["mode"] for r in res["rows"]):
        for size in sorted({r["size"] for r in res["rows"]}):
            pts = [(r["loss"], r["goodput_ratio"]) for r in res["rows"]
                   if r["size"] == size and r["mode"] == mode and r["loss"] > 0]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                    label=f"{mode}, {size >> 10} KiB")
    ax.set_xscale("log")
    ax.set_xlabel("packet loss (corruption: loss / 10)")
    ax.set_ylabel("goodput / loss-free goodput")
    ax.set_ylim(0, 1.05)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def table(res: dict) -> str:
    lines = [" mode       size     loss     goodput B/cycle  ratio   resends  MISS resends"
             "  retransmitted B  p99.9 cycles"]
    for r in res["rows"]:
        ratio = "-" if r["goodput_ratio"] is None else f"{r['goodput_ratio']:.3f}"
        lines.append(f" {r['mode']:<9}  {r['size'] >> 10:>5}K  {r['loss']:<7g}"
                     f"  {r['goodput_bytes_per_cycle']:>14.2f}  {ratio:>5}  {r['resends']:>8}"
                     f"  {r['miss_resends']:>12}  {r['retransmitted_bytes']:>15}"
                     f"  {r['p999_latency_cycles']:>12}")
    return "\n".join(lines)


def main(out: Path = OUT, build: bool = True) -> dict:
    if build:
        demo.build()
    res = measure()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=2) + "\n")
    plot(res, PLOT)
    print(table(res))
    print(f"wrote {out} and {PLOT}")
    return res


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
