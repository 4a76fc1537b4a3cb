# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The fabric experiments of [FPGA-NI] §3 on nodes' fabric ports around a switch
(tb_qrdma_fabric, links of LINK_LAT cycles), the NICs played by the test's model sending
1 KiB DATA packets (17 beats) back to back and taking every beat at once
(tests/bench/bench_fabric.py runs it). Per flow: the beats its destination took in a
window after a warm-up, per cycle. The node ports have virtual output queues (VOQ = 1) or
one queue each (VOQ = 0, the baseline): the same experiments in the same order either way.
Writes the rows, each with its VOQ, to QRDMA_BENCH_OUT."""
from __future__ import annotations

import json
import os

import cocotb

from model.fabric_model import FULL_KEEP, HDR, make_packet, put
from test_qrdma_fabric import start

WARM, WIN = int(os.environ.get("P_WARM", "2000")), int(os.environ.get("P_WIN", "6000"))


def big(tb, src: int, dst: int):
    tb.pid += 1
    pkt = make_packet(tb.rng, tb.pid, src, dst, dst, tb.MAX_PKT, "data")
    h = put(pkt.beats[0][0] & ~(((1 << HDR["len"].width) - 1) << HDR["len"].lsb)
            & ~(((1 << 6) - 1) << HDR["dst_addr"].lsb), HDR["len"], 64 * (tb.MAX_PKT - 1))
    pkt.beats = [(h, FULL_KEEP, 0)] + [(i, FULL_KEEP, 0) for i in range(1, tb.MAX_PKT)]
    return pkt


async def measure(tb, flows: list[tuple[int, int]]) -> list[dict]:
    """Saturate every flow (src -> dst), measure each in the window."""
    tb.gap_p, tb.ready_p, tb.stretch = 0.0, 1.0, False
    tb.beats_got.clear()
    per = (WARM + WIN) // tb.MAX_PKT + 8
    for s, d in flows:
        for _ in range(per):
            pkt = big(tb, s, d)
            tb.q[s][d].append(pkt)
            tb.expect[(s, d, 0)].append(pkt)   # (one plane)
    for _ in range(WARM):
        await tb.step()
    tb.counting = True
    for _ in range(WIN):
        await tb.step()
    tb.counting = False
    got = dict(tb.beats_got)
    # drain what is left (every packet still checked)
    while not tb.idle():
        await tb.step()
    return [{"src": s, "dst": d, "bytes_per_cycle": round(64 * got.get((s, d), 0) / WIN, 3),
             "beats_per_cycle": round(got.get((s, d), 0) / WIN, 4)} for s, d in flows]


@cocotb.test()
async def fabric_bench(dut):
    tb = await start(dut, "fabric_bench")
    P = tb.P
    rows = []
    if P == 4:
        fl = await measure(tb, [(1, 0), (2, 0), (3, 0)])
        rows.append({"experiment": "incast", "nodes": P, "flows": fl,
                     "share_of_link": [round(f["beats_per_cycle"], 4) for f in fl]})
        alone = await measure(tb, [(1, 2)])
        # the hotspot is the victim's source node: the three others incast into it
        both = await measure(tb, [(1, 2), (0, 1), (2, 1), (3, 1)])
        rows.append({"experiment": "hotspot", "nodes": P, "flows": both,
                     "victim": {"src": 1, "dst": 2}, "hotspot": 1,
                     "victim_alone_bytes_per_cycle": alone[0]["bytes_per_cycle"],
                     "victim_ratio": round(both[0]["beats_per_cycle"] / alone[0]["beats_per_cycle"], 4)})
        # the victim's source also sends to the hotspot, with two others
        both = await measure(tb, [(1, 2), (1, 0), (2, 0), (3, 0)])
        rows.append({"experiment": "hotspot_shared_source", "nodes": P, "flows": both,
                     "victim": {"src": 1, "dst": 2}, "hotspot": 0,
                     "victim_alone_bytes_per_cycle": alone[0]["bytes_per_cycle"],
                     "victim_ratio": round(both[0]["beats_per_cycle"] / alone[0]["beats_per_cycle"], 4)})
    else:
        fl = await measure(tb, [(i, (i + 1) % P) for i in range(P)])
        rows.append({"experiment": "permutation", "nodes": P, "flows": fl,
                     "min_share_of_link": min(f["beats_per_cycle"] for f in fl)})
    for r in rows:
        r["voq"] = tb.VOQ
        r["drops"] = sum(sum(tb.counters(n)[:P]) for n in ("sw_noroute", "sw_bad", "sw_ovf",
                                                             "np_noroute", "np_bad", "np_ovf"))
    out = os.environ["QRDMA_BENCH_OUT"]
    prev = json.load(open(out)) if os.path.exists(out) else {"rows": []}
    prev["rows"] += rows
    with open(out, "w") as f:
        json.dump(prev, f, indent=2)
