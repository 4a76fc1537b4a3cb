# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Proving that an RTL check fires: a violation of a checked rule must stop the simulation.

RTL checks are immediate assertions (`assert (...) else $error(...)`); the runner builds
with Verilator `--assert`, where a failing assertion ends the simulation with
``%Error: <file>:<line>: Assertion failed in <instance>: <message>`` and a non-zero exit,
so that any violation fails the test that caused it. A test that provokes a violation on
purpose therefore runs in a simulation of its own that is expected to fail:

  cocotb side   a test (skipped unless P_VIOLATION is set, so that the ordinary run of the
                module leaves it out) drives legal traffic, calls ``announce(dut, what)``
                right before the cycle that breaks the rule, and fails if the simulation
                is still running a few cycles later (``not_stopped``).
  pytest side   ``run_violation(capfd, ...)`` runs that test with P_VIOLATION = case and
                passes when the simulator stopped with an assertion failure whose message
                contains ``expect``, after the announcement (so not on the legal traffic
                before it).
"""
from __future__ import annotations

import os
import re

import pytest

MARK = "VIOLATION NEXT:"
ASSERT_RE = re.compile(r"%Error: (\S+): Assertion failed in (\S+): (.*)")


def case() -> str | None:
    """The violation this simulation is to provoke (P_VIOLATION), None in ordinary runs."""
    return os.environ.get("P_VIOLATION")


def skip() -> bool:
    """For ``@cocotb.test(skip=violation.skip())``: the violation test runs only on request."""
    return case() is None


def announce(dut, what: str) -> None:
    """Log the marker: the next clock edge breaks a rule (`what`)."""
    dut._log.info("%s %s", MARK, what)


def not_stopped(what: str) -> None:
    raise AssertionError(f"the RTL check did not stop the simulation: {what}")


def run_violation(capfd, top: str, test_module: str, parameters: dict, testcase: str,
                  violation: str, expect: str, extra_env: dict | None = None) -> str:
    """Run cocotb `testcase` of `test_module` on `top` with P_VIOLATION = `violation`;
    assert that it stops on an RTL assertion whose message contains `expect`, after the
    test's announcement. Returns the assertion line."""
    from simrun import run

    env = dict(extra_env or {})
    env["P_VIOLATION"] = violation
    capfd.readouterr()  # drop what came before
    with pytest.raises(RuntimeError, match="return code"):
        run(top, test_module, parameters, testcase=testcase, extra_env=env)
    out, err = capfd.readouterr()
    text = out + err
    mark = text.find(MARK)
    hit = ASSERT_RE.search(text)
    assert hit, f"{violation}: the simulation failed without an RTL assertion:\n{text[-3000:]}"
    assert mark >= 0 and mark < hit.start(), \
        f"{violation}: an assertion fired before the violation was provoked: {hit.group(0)}"
    assert expect in hit.group(3), \
        f"{violation}: expected an assertion with {expect!r}, got: {hit.group(0)}"
    return hit.group(0)
