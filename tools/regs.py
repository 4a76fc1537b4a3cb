# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The register map as Python sees it, read from regs/qrdma_regs.rdl (the one description
of the registers; docs/registers.md).

  REGISTERS   (offset from REG_BASE, name, access "ro"/"rw", description) in address order
  ID_REG, PARAMS_REG   tools.formats.Layout of the two structured read-only registers
  STATS       names of the registers libqrdma's counter list holds (property qrdma_stat)
  reg_addr(name)       byte address on the host port
"""
from __future__ import annotations

import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RDL = ROOT / "regs" / "qrdma_regs.rdl"
TOP = "qrdma_regs"


@functools.lru_cache(maxsize=None)
def compile_top():
    """The elaborated top addrmap (systemrdl-compiler RootNode's top)."""
    from systemrdl import RDLCompiler

    rdlc = RDLCompiler()
    rdlc.compile_file(str(RDL))
    return rdlc.elaborate(TOP).top


def _regs():
    from systemrdl.node import RegNode

    return [n for n in compile_top().descendants() if isinstance(n, RegNode)]


def _doc(r) -> str:
    """One line: the register's description (else its name), and its field's description
    when it has one field."""
    parts = [(r.get_property("desc") or r.get_property("name") or "").strip().rstrip(".")]
    fields = list(r.fields())
    if len(fields) == 1 and fields[0].get_property("desc"):
        parts.append(fields[0].get_property("desc"))
    return " ".join("; ".join(p for p in parts if p).split())


@functools.lru_cache(maxsize=None)
def _tables():
    from tools.formats import _layout

    regs = _regs()
    table = tuple((r.absolute_address, r.inst_name, "rw" if r.has_sw_writable else "ro", _doc(r))
                  for r in regs)
    stats = tuple(r.inst_name for r in regs if r.get_property("qrdma_stat", default=False))
    lay = {}
    for r in regs:
        if r.inst_name in ("ID", "PARAMS"):
            fields = [(f.inst_name, f.low, f.width, " ".join((f.get_property("desc") or "").split()))
                      for f in r.fields()]
            lay[r.inst_name] = _layout(f"{r.inst_name.lower()}_reg", r.size * 8,
                                       f"Register {r.inst_name} (REG_BASE + {r.absolute_address:#05x}).",
                                       *fields)
    return table, stats, lay


def __getattr__(name):
    table, stats, lay = _tables()
    if name == "REGISTERS":
        return table
    if name == "STATS":
        return stats
    if name == "ID_REG":
        return lay["ID"]
    if name == "PARAMS_REG":
        return lay["PARAMS"]
    raise AttributeError(name)


def reg_addr(name: str) -> int:
    from tools.formats import CONST

    for off, n, _, _ in _tables()[0]:
        if n == name:
            return CONST["REG_BASE"][0] + off
    raise KeyError(name)
