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

A DP16KD read 36 bits wide (DATA_WIDTH_B = 36, the pseudo-dual-port form `synth_ecp5`
maps a 512 x 36 memory to: port A writes, port B reads) has one read port whose data
comes out on both halves, DOA0-17 and DOB0-17; it is packed as one port of 36 bits, both
halves or neither, with REGMODE_A = REGMODE_B = OUTREG and the enable on OCEA and OCEB
(as Lattice's PDPW16KD, whose one REGMODE and OCER set both halves), when CLKA is the
read clock too (nextpnr times the DOA half from CLKA).
"""
from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

# block RAM type -> its read ports: (REGMODE parameters, data output pins, clock pins,
# output clock enable pins, reset pins); a port's first clock pin is the one its
# flip-flops must be on, every other listed clock pin must carry the same net
READ_PORTS = {
    "DP16KD": ((("REGMODE_A",), [f"DOA{i}" for i in range(18)], ("CLKA",), ("OCEA",),
                ("RSTA",)),
               (("REGMODE_B",), [f"DOB{i}" for i in range(18)], ("CLKB",), ("OCEB",),
                ("RSTB",))),
    "PDPW16KD": ((("REGMODE",), [f"DO{i}" for i in range(36)], ("CLKR",), ("OCER",),
                  ("RST",)),),
}
# a DP16KD read 36 bits wide: one read port on both halves (module docstring)
DP16KD_X36 = (("REGMODE_A", "REGMODE_B"),
              [f"DOA{i}" for i in range(18)] + [f"DOB{i}" for i in range(18)],
              ("CLKB", "CLKA"), ("OCEB", "OCEA"), ("RSTA", "RSTB"))


def _read_ports(c: dict):
    """The read ports of a block RAM cell, as READ_PORTS lists them."""
    if c["type"] == "DP16KD" and _width(_param(c, "DATA_WIDTH_B", "18")) == 36:
        return (DP16KD_X36,)
    return READ_PORTS.get(c["type"], ())


def _param(c: dict, name: str, default: str = "") -> str:
    return str(c["parameters"].get(name, default)).strip()


def _width(v: str) -> int:
    """An integer parameter as Yosys writes it (a string of binary digits) or as a number."""
    return int(v, 2) if v and set(v) <= {"0", "1"} and len(v) > 2 else int(v)


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
        for regmodes, pins, clk_pins, oce_pins, rst_pins in _read_ports(c):
            if any(_param(c, r, "NOREG") != "NOREG" for r in regmodes):
                continue
            conn = c["connections"]
            # the port's own OCE as synthesis ties it (1); a 36-bit read's second OCE is
            # unused in NOREG mode and may be tied to anything
            if conn.get(oce_pins[0], ["1"]) != ["1"]:
                continue
            if any(conn.get(p, ["0"]) != ["0"] for p in rst_pins):
                continue
            clk = conn[clk_pins[0]][0]
            if any(conn.get(p, [None])[0] != clk for p in clk_pins[1:]):
                continue
            ffs: list[tuple[str, str]] = []   # (data pin, flip-flop)
            enables = set()
            ok = True
            for pin in pins:
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
            for r in regmodes:
                c["parameters"][r] = "OUTREG"
            for p in oce_pins:
                conn[p] = ["1"] if en == 1 else [en]
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
