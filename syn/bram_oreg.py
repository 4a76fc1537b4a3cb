# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Pack block-RAM output registers into the ECP5 block RAMs of a Yosys JSON netlist.

An ECP5 block RAM (DP16KD, PDPW16KD) has an output register of its own on each read port
(REGMODE "OUTREG", loaded when the port's OCE is high). Lattice's synthesis tools put a
register that takes the RAM's read data directly into it; Yosys's `synth_ecp5` does not
and leaves it in the fabric, where the path from the RAM's unregistered output (about
5.8 ns clock-to-out at speed 6) into it, and on from it, is routed. This pass does the
packing on the netlist `synth_ecp5` writes, before nextpnr-ecp5 places it; the RTL
(qrdma_sdp_ram OUT_REG) is unchanged, and the packed netlist computes the same values in
the same cycles.

A read port is packed when it is in NOREG mode and every one of its data outputs that is
used drives exactly one cell, a flip-flop (TRELLIS_FF) on the port's clock, without set or
reset, whose clock enable (if any) is the same net for all of them; the flip-flops go and
their outputs are driven by the RAM's data pins, with OCE = that clock enable.
"""
from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

# block RAM type -> its read ports: (REGMODE parameter, data output prefix, width, clock
# pin, output clock enable pin, reset pin)
READ_PORTS = {
    "DP16KD": (("REGMODE_A", "DOA", 18, "CLKA", "OCEA", "RSTA"),
               ("REGMODE_B", "DOB", 18, "CLKB", "OCEB", "RSTB")),
    "PDPW16KD": (("REGMODE", "DO", 36, "CLKR", "OCER", "RST"),),
}


def _param(c: dict, name: str, default: str = "") -> str:
    return str(c["parameters"].get(name, default)).strip()


def _ff_enable(ff: dict):
    """The flip-flop's clock enable as a net bit, 1 for none, or None if it has set/reset,
    an inverted enable or an inverted clock (not packed)."""
    conn = ff["connections"]
    if _param(ff, "CLKMUX", "CLK") != "CLK":
        return None
    lsr = conn.get("LSR", ["0"])
    if _param(ff, "LSRMUX", "LSR") == "INV" or lsr != ["0"]:
        return None
    cemux = _param(ff, "CEMUX", "1")
    if cemux == "1":
        return 1
    if cemux != "CE":
        return None
    ce = conn.get("CE", ["1"])[0]
    return 1 if ce == "1" else ce


def pack_module(mod: dict) -> int:
    """Pack the output registers of one module's block RAMs; the number of read ports packed."""
    cells = mod["cells"]
    loads: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for name, c in cells.items():
        for port, bits in c["connections"].items():
            if c["port_directions"].get(port) != "output":
                for b in bits:
                    if isinstance(b, int):
                        loads[b].append((name, port))
    port_bits = {b for p in mod.get("ports", {}).values() for b in p["bits"] if isinstance(b, int)}
    packed = 0
    for name in list(cells):
        c = cells.get(name)
        if c is None or c["type"] not in READ_PORTS:
            continue
        for regmode, prefix, width, clk_pin, oce_pin, rst_pin in READ_PORTS[c["type"]]:
            if _param(c, regmode, "NOREG") != "NOREG":
                continue
            conn = c["connections"]
            if conn.get(oce_pin, ["1"]) != ["1"] or conn.get(rst_pin, ["0"]) != ["0"]:
                continue
            clk = conn[clk_pin][0]
            ffs: list[tuple[str, str]] = []   # (data pin, flip-flop)
            enables = set()
            ok = True
            for i in range(width):
                pin = f"{prefix}{i}"
                bit = conn.get(pin, [None])[0]
                if not isinstance(bit, int) or (not loads.get(bit) and bit not in port_bits):
                    continue  # unused output
                ld = loads.get(bit, [])
                ff = cells[ld[0][0]] if len(ld) == 1 else None
                if (bit in port_bits or ff is None or ff["type"] != "TRELLIS_FF"
                        or ld[0][1] != "DI" or ff["connections"]["CLK"][0] != clk):
                    ok = False
                    break
                en = _ff_enable(ff)
                if en is None:
                    ok = False
                    break
                enables.add(en)
                ffs.append((pin, ld[0][0]))
            if not ok or not ffs or len(enables) != 1:
                continue
            en = enables.pop()
            c["parameters"][regmode] = "OUTREG"
            conn[oce_pin] = ["1"] if en == 1 else [en]
            for pin, ff_name in ffs:
                conn[pin] = cells[ff_name]["connections"]["Q"]
                del cells[ff_name]
            packed += 1
    return packed


def pack(netlist: dict) -> int:
    """Pack every module of a Yosys JSON netlist; the number of read ports packed."""
    return sum(pack_module(m) for m in netlist["modules"].values())


def pack_file(src: Path, dst: Path) -> int:
    netlist = json.loads(Path(src).read_text())
    n = pack(netlist)
    Path(dst).write_text(json.dumps(netlist))
    return n


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: bram_oreg.py IN.json OUT.json")
    print(f"{pack_file(Path(sys.argv[1]), Path(sys.argv[2]))} read port(s) packed")
