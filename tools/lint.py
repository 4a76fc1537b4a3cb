# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""make lint: the RTL rule of tools/rtl_rules.py (no simulation-only logic in synthesizable
RTL) over the files of the tops, then `verilator --lint-only -Wall` over every registered
top (rtl/manifest.py), with its default parameters and with each extra parameter set the
manifest lists. Exits non-zero on any finding, warning or error.

  python tools/lint.py [top ...]    only these tops"""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from rtl import manifest  # noqa: E402
from simrun import ensure_tool_path  # noqa: E402
from tools import rtl_rules  # noqa: E402


def main(argv):
    ensure_tool_path()
    only = set(argv[1:])
    files = sorted({f for top in manifest.rtl_tops() if not only or top in only
                    for f in manifest.relative_sources(top) if f.startswith("rtl/")})
    findings = rtl_rules.scan(files)
    rule_fail = [f for f in findings if f.path not in rtl_rules.PENDING]
    for f in findings:
        print(("FAIL " if f in rule_fail else "pending ") + str(f))
    print(f"rtl rules: {len(files)} files, {len(rule_fail)} finding(s)")
    failed = 0
    runs = 0
    for top in manifest.rtl_tops():
        if only and top not in only:
            continue
        t = manifest.TOPS[top]
        for params in ({},) + t.lint:
            cmd = ["verilator", "--lint-only", "-Wall", "--top-module", top]
            cmd += [f"-G{k}={v}" for k, v in params.items()]
            cmd += [str(p) for p in manifest.verilator_sources(top)]
            r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
            runs += 1
            label = top + ("" if not params else " " + " ".join(f"{k}={v}" for k, v in params.items()))
            if r.returncode != 0 or r.stderr.strip():
                failed += 1
                print(f"FAIL {label}\n{r.stderr}")
            else:
                print(f"ok   {label}")
    print(f"lint: {runs - failed} clean, {failed} failing")
    return 1 if failed or rule_fail or runs == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
