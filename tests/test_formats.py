# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The generated format files (SV package, C header, docs) match tools/formats.py, and the
layouts are consistent (no overlap, fields fit)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_generated_files_up_to_date():
    r = subprocess.run([sys.executable, "tools/gen_formats.py", "--check"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_pack_unpack_roundtrip():
    from tools import formats as F

    vals = {"src_addr": 0x1122334455667788, "dst_addr": 0xFFFF000011112222, "size": 1 << 32,
            "dst_node": 0xBEEF, "prio": 15, "is_inline": 1, "notify": 1, "multipath": 0,
            "long_desc": 1, "tag": 0xCAFEF00D}
    v = F.DESC_LINE0.pack(**vals)
    assert v < 1 << 256
    got = F.DESC_LINE0.unpack(v)
    for k, x in vals.items():
        assert got[k] == x


def test_address_map_fits():
    from tools import formats as F

    top = F.coll_addr(F.C["NUM_PAGES"] - 1, 1) + 8
    assert top <= F.C["REG_BASE"]
    assert F.reg_addr("CNT_DONE") + 8 <= 1 << F.C["ADDR_W"]
    # descriptors of 128 channels fit below the status block of a page
    assert F.desc_addr(0, F.C["CH_PER_PAGE"]) <= F.C["STATUS_OFFSET"]


def test_manifest_files_exist():
    sys.path.insert(0, str(ROOT))
    from rtl import manifest

    for top in manifest.TOPS:
        for f in manifest.sources(top):
            assert f.exists(), f"{top}: {f} missing"
