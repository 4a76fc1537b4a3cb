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


def eval_step_body(text: str) -> list[str]:
    m = re.search(r"^void Vqrdma_nic::eval_step\(\) \{\n(.*?)^\}", text, re.S | re.M)
    if not m:
        raise ValueError("no `void Vqrdma_nic::eval_step() {` in Vqrdma_nic.cpp")
    out, skip = [], 0
    for raw in m.group(1).split("\n"):
        s = raw.strip()
        if s.startswith("#if"):
            skip += 1
            continue
        if s.startswith("#endif"):
            skip -= 1
            continue
        if skip or not s or s.startswith("//") or s.startswith("VL_DEBUG_IF("):
            continue
        out.append(s)
    return out


def main(obj: Path) -> int:
    errors = []
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
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1])))
