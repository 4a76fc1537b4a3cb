# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Registration benchmark -> build/results/registration_bench.json, plot
build/results/registration_latency.png.

[RSN] Fig. 7 in qrdma (docs/registration.md): the receive latency of a write, from its post
at node 0 to its notification full in node 1's ring, registered at the receiver
(QRDMA_WR_REGISTERED, qrdma-perf -E) and not, over sizes from an 8-byte inline write to
1 MiB, on the 2-node system simulation (harness defaults) with link latencies of 2, 100
(the harness's default) and 400 cycles. Both figures of a row come from the same build,
one after the other:

  qrdma-perf write_lat -s SIZE -t 1 -N -l notif -n N [-E] -B mem=64M,link=L

the median of N transfers, in cycles. Every transfer's data and notification is verified
by qrdma-perf (a failing run raises); with -E every transfer of more than a block must
have been notified early, without it none. Sizes are placed 4 KiB-aligned (qrdma-perf's default): a 64 KiB
transfer spans two 64 KiB blocks.

  python tools/bench.py registration
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

OUT = ROOT / "build" / "results" / "registration_bench.json"
PLOT = ROOT / "build" / "results" / "registration_latency.png"
CLOCK_HZ = 200_000_000   # the simulation's ticks are cycles of the nominal 200 MHz clock
SIZES = [8, 1024, 16384, 65536, 98304, 131072, 196608, 262144, 1 << 20]
LINKS = [2, 100, 400]
N = 5
BLOCK = 65536            # the harness NIC's BLOCK_SIZE


def _run(size: int, link: int, registered: bool, tmp: Path) -> tuple[dict, str]:
    spec = f"mem=64M,link={link}"
    args = ["write_lat", "-s", str(size), "-t", "1", "-N", "-l", "notif", "-n", str(N),
            "-m", "inline" if size <= 32 else "mem"] + (["-E"] if registered else [])
    res = demo.perf_json(args, spec, tmp / f"lat_{size}_{link}_{int(registered)}.json")
    if res["verified"] != "every transfer" or res["tick_hz"] != CLOCK_HZ:
        raise RuntimeError(f"unexpected qrdma-perf report for {args}")
    return res["rows"][0], " ".join(["build/sim_harness/qrdma-perf", *args, "-B", spec])


def measure() -> dict:
    t0 = time.time()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for link in LINKS:
            for size in SIZES:
                reg, cmd_r = _run(size, link, True, tmp)
                unreg, cmd_u = _run(size, link, False, tmp)
                # more than a block: two blocks or more, registered; inline: never
                want = reg["notifications"] if size > BLOCK else 0 if size <= 32 else None
                if (want is not None and reg["early_notifications"] != want) \
                        or unreg["early_notifications"]:
                    raise RuntimeError(f"size {size} link {link}: early notifications "
                                       f"{reg['early_notifications']} of {reg['notifications']} "
                                       f"registered, {unreg['early_notifications']} unregistered")
                a, b = reg["t_typical_ticks"], unreg["t_typical_ticks"]
                rows.append({"size": size, "link_latency": link, "registered_cycles": a,
                             "unregistered_cycles": b, "saving": round(1 - a / b, 4),
                             "early_notifications": reg["early_notifications"],
                             "registered_command": cmd_r, "unregistered_command": cmd_u})
    return {"rows": rows, "clock_hz": CLOCK_HZ, "transfers_per_point": N,
            "wall_s": round(time.time() - t0, 1)}


def plot(res: dict) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for link in LINKS:
        rs = [r for r in res["rows"] if r["link_latency"] == link]
        line, = ax.plot([r["size"] for r in rs], [r["unregistered_cycles"] for r in rs],
                        "o--", label=f"unregistered, link {link}")
        ax.plot([r["size"] for r in rs], [r["registered_cycles"] for r in rs], "s-",
                color=line.get_color(), label=f"registered, link {link}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("transfer size (bytes)")
    ax.set_ylabel("post -> notification (cycles)")
    ax.set_title("Receive latency, registered vs unregistered (2 nodes, p2p)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(PLOT, dpi=120)
    plt.close(fig)


def main() -> dict:
    demo.build()
    res = measure()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(res, indent=2) + "\n")
    plot(res)
    for r in res["rows"]:
        print(f"  link {r['link_latency']:>3}  {r['size']:>8} B: registered {r['registered_cycles']:>6}, "
              f"unregistered {r['unregistered_cycles']:>6} cycles (saving {100 * r['saving']:.1f} %)")
    return {"rows": [{k: r[k] for k in ("size", "link_latency", "registered_cycles",
                                        "unregistered_cycles", "saving")} for r in res["rows"]]}


if __name__ == "__main__":
    main()
