# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The files generated from regs/qrdma_regs.rdl (register blocks, C headers, docs) are up to
date, and the description fits the host address map of tools/formats.py."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def test_generated_register_files_up_to_date():
    r = subprocess.run([sys.executable, "tools/gen_regs.py", "--check"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_register_map_fits_the_host_port():
    from tools import formats as F
    from tools import regs

    top = regs.compile_top()
    eng, nic = top.get_child_by_name("eng"), top.get_child_by_name("nic")
    # the host port decodes the engine's registers in REG_BASE + 0 .. 127 and forwards
    # NIC_REG_FIRST .. to the NIC (qrdma_host_pkg)
    assert eng.absolute_address == 0 and eng.size <= 128
    assert nic.absolute_address == F.C["NIC_REG_FIRST"]
    assert F.C["NIC_REG_FIRST"] + nic.size <= 4096
    assert F.C["REG_BASE"] % 4096 == 0
    for off, name, _, _ in regs.REGISTERS:
        assert off % 8 == 0, name
        assert F.reg_addr(name) == F.C["REG_BASE"] + off


def test_counter_list_is_the_stat_registers():
    from tools import regs

    h = (ROOT / "sw/include/qrdma_counters.h").read_text()
    counters = h[h.index("#define QRDMA_COUNTERS(X)"):h.index("#define QRDMA_REGISTERS(X)")]
    every = h[h.index("#define QRDMA_REGISTERS(X)"):]
    names = [[ln.split("X(")[1].split(",")[0] for ln in part.splitlines()
              if ln.strip().startswith("X(")] for part in (counters, every)]
    assert names[0] == list(regs.STATS)
    assert names[1] == [r[1] for r in regs.REGISTERS]
    assert "RX_RSP_PEAK" in names[0] and "CNT_DESC_OK" in names[0]
