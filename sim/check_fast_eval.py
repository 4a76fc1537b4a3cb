# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Build-time guard of the harness's fast evaluation entry (sim/system.cc, FAST_EVAL=1).

The harness evaluates the rising edge by calling the model's generated
`Vqrdma_nic___024root___eval(rootp)` directly instead of `Vqrdma_nic::eval()`, which
wraps it in per-call bookkeeping of the Verilator runtime: `__Vm_deleter.deleteAll()`
(frees SystemVerilog class objects; two mutexes) and `Verilated::endOfEval()` (flushes
messages that other threads of a multi-threaded model posted; a mutex). Both are no-ops
for this model, and this script proves it for every Verilation, so that a Verilator
version that generates something else breaks the build here rather than the harness
silently:
  * `Vqrdma_nic::eval_step()` is exactly: deleteAll, first-call initialisation guarded by
    `__Vm_didInit`, `Vqrdma_nic___024root___eval(&vlSymsp->TOP)`, endOfEval (debug-only
    lines aside);
  * the model is single-threaded (`threads()` returns 1), has no timing (`eventsPending`
    false) and no SystemVerilog classes (no `VlClass` anywhere in the generated code).
The harness itself checks `__Vm_didInit` at run time and uses eval() for the first call.

It goes one step further: on a rising edge of `clk` after a falling one (the only thing the
harness evaluates), `Vqrdma_nic___024root___eval` calls the input-combinational functions
once and the clocked (nba) functions once; the rest is its scheduler finding that out,
~100 machine instructions per evaluation (docs/sim.md "The cycle loop"). This script
proves that from the generated scheduler functions (the only ico trigger is the first
iteration, the only act trigger is `posedge clk`, no act-region logic, `_eval_ico` and
`_eval_nba` are calls under trigger bit 0) and writes OBJ_DIR/qrdma_fast_eval.h with
`qrdma_fast_eval_rise(rootp)`, which calls exactly those functions in that order.

  python sim/check_fast_eval.py OBJ_DIR   (exit 1 with the reason when a check fails)
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

EXPECTED = [
    "vlSymsp->__Vm_deleter.deleteAll();",
    "if (VL_UNLIKELY(!vlSymsp->__Vm_didInit)) {",
    "Vqrdma_nic___024root___eval_static(&(vlSymsp->TOP));",
    "Vqrdma_nic___024root___eval_initial(&(vlSymsp->TOP));",
    "Vqrdma_nic___024root___eval_settle(&(vlSymsp->TOP));",
    "vlSymsp->__Vm_didInit = true;",
    "}",
    "Vqrdma_nic___024root___eval(&(vlSymsp->TOP));",
    "Verilated::endOfEval(vlSymsp->__Vm_evalMsgQp);",
]


def statements(body: str) -> list[str]:
    """The statements of a generated function body, one per entry: debug-only lines
    (`#if` blocks, VL_DEBUG_IF), comments and the per-function boilerplate dropped,
    continuation lines joined, runs of white space as one space."""
    out, skip, cur = [], 0, ""
    for raw in body.split("\n"):
        t = raw.strip()
        if t.startswith("#if"):
            skip += 1
            continue
        if t.startswith("#endif"):
            skip -= 1
            continue
        if (skip or not t or t.startswith("//") or t.startswith("VL_DEBUG_IF(")
                or t.startswith("Vqrdma_nic__Syms* const __restrict vlSymsp")
                or t == "auto& vlSelfRef = std::ref(*vlSelf).get();"):
            continue
        cur = f"{cur} {t}" if cur else t
        if cur.endswith((";", "{", "}")):
            out.append(re.sub(r"\s+", " ", cur))
            cur = ""
    return out


def eval_step_body(text: str) -> list[str]:
    m = re.search(r"^void Vqrdma_nic::eval_step\(\) \{\n(.*?)^\}", text, re.S | re.M)
    if not m:
        raise ValueError("no `void Vqrdma_nic::eval_step() {` in Vqrdma_nic.cpp")
    return statements(m.group(1))


PFX = "Vqrdma_nic___024root__"


def fast_sources(obj: Path) -> str:
    """The text of the model's fast-path class files of this Verilation (the .mk lists them;
    the directory can hold stale files of earlier Verilations)."""
    mk = (obj / "Vqrdma_nic_classes.mk").read_text()
    m = re.search(r"^VM_CLASSES_FAST \+= \\\n((?:  \S+ \\\n)*)", mk, re.M)
    if not m:
        raise ValueError("no VM_CLASSES_FAST in Vqrdma_nic_classes.mk")
    names = re.findall(r"  (\S+) \\", m.group(1))
    return "\n".join((obj / f"{n}.cpp").read_text() for n in names)


def func_body(text: str, name: str) -> list[str] | None:
    """Statements of `... PFX+name(Vqrdma_nic___024root* vlSelf) {`; None if there is no
    such function."""
    m = re.search(r"^\w+ " + re.escape(PFX + name) + r"\(Vqrdma_nic___024root\* vlSelf\) \{\n(.*?)^\}",
                  text, re.S | re.M)
    return statements(m.group(1)) if m else None


def guarded_calls(body: list[str] | None, trig: str, what: str) -> list[str]:
    """`if ((1ULL & vlSelfRef.<trig>[0U])) { f(vlSelf); ... }` -> [f, ...]"""
    head = f"if ((1ULL & vlSelfRef.{trig}[0U])) {{"
    if not body or body[0] != head or body[-1] != "}":
        raise ValueError(f"{what} is not calls under trigger bit 0: {body}")
    calls = []
    for st in body[1:-1]:
        m = re.fullmatch(r"(" + re.escape(PFX) + r"\w+)\(vlSelf\);", st)
        if not m:
            raise ValueError(f"{what}: unexpected statement {st!r}")
        calls.append(m.group(1))
    return calls


def direct_calls(obj: Path) -> tuple[list[str], list[str]]:
    """(ico functions, nba functions) that ___eval runs on a rising clk edge."""
    text = fast_sources(obj)
    want = {
        "_eval_triggers_vec__ico": [
            "vlSelfRef.__VicoTriggered[0U] = ((0xfffffffffffffffeULL & "
            "vlSelfRef.__VicoTriggered[0U]) | (IData)((IData)(vlSelfRef.__VicoFirstIteration)));"],
        "_eval_triggers_vec__act": [
            "vlSelfRef.__VactTriggered[0U] = (QData)((IData)( ((IData)(vlSelfRef.clk) & "
            "(~ (IData)(vlSelfRef.__Vtrigprevexpr___TOP__clk__0)))));",
            "vlSelfRef.__Vtrigprevexpr___TOP__clk__0 = vlSelfRef.clk;"],
        "_eval_phase__act": [
            PFX + "_eval_triggers_vec__act(vlSelf);",
            PFX + "_trigger_orInto__act_vec_vec(vlSelfRef.__VnbaTriggered, vlSelfRef.__VactTriggered);",
            "return (0U);"],
    }
    for name, body in want.items():
        got = func_body(text, name)
        if got != body:
            raise ValueError(f"{PFX}{name} is not what the direct evaluation expects:\n      "
                             + "\n      ".join(got or ["(missing)"]))
    if func_body(text, "_eval_act") is not None:
        raise ValueError("the model has act-region logic (_eval_act)")
    ico = guarded_calls(func_body(text, "_eval_ico"), "__VicoTriggered", "_eval_ico")
    nba = guarded_calls(func_body(text, "_eval_nba"), "__VnbaTriggered", "_eval_nba")
    if not nba:
        raise ValueError("_eval_nba calls nothing")
    return ico, nba


def write_header(obj: Path, ico: list[str], nba: list[str]) -> None:
    decl = "".join(f"void {f}(Vqrdma_nic___024root *vlSelf);\n" for f in ico + nba)
    calls = "".join(f"  {f}(r);\n" for f in ico + nba)
    (obj / "qrdma_fast_eval.h").write_text(
        "// Generated by sim/check_fast_eval.py from this Verilation: what\n"
        "// Vqrdma_nic___024root___eval runs on a rising clk edge (after a falling one).\n"
        "#pragma once\n#include \"Vqrdma_nic___024root.h\"\n" + decl +
        "inline void qrdma_fast_eval_rise(Vqrdma_nic___024root *r) {\n" + calls + "}\n")


def main(obj: Path) -> int:
    errors = []
    try:
        ico, nba = direct_calls(obj)
    except (OSError, ValueError) as e:
        errors.append(str(e))
    try:
        body = eval_step_body((obj / "Vqrdma_nic.cpp").read_text())
        if body != EXPECTED:
            errors.append("Vqrdma_nic::eval_step() is not what the harness expects:\n    "
                          + "\n    ".join(body))
    except (OSError, ValueError) as e:
        errors.append(str(e))
    model = (obj / "Vqrdma_nic.cpp").read_text() if (obj / "Vqrdma_nic.cpp").exists() else ""
    if "unsigned Vqrdma_nic::threads() const { return 1; }" not in model:
        errors.append("the model is not single-threaded (Vqrdma_nic::threads() != 1)")
    if "bool Vqrdma_nic::eventsPending() { return false; }" not in model:
        errors.append("the model has timing (eventsPending)")
    for f in sorted(obj.glob("Vqrdma_nic*.h")) + sorted(obj.glob("Vqrdma_nic*.cpp")):
        if "VlClass" in f.read_text():
            errors.append(f"{f.name} uses SystemVerilog classes (VlClass)")
    if errors:
        print("sim/check_fast_eval.py: the fast evaluation entry of sim/system.cc is not "
              "safe with this Verilator output (build with FAST_EVAL=0, or update the "
              "harness):\n  " + "\n  ".join(errors), file=sys.stderr)
        return 1
    write_header(obj, ico, nba)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1])))
