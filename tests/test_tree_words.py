# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The tree speaks of the project and of its present: no words of process or history in
tracked files (and so in what the tools print): no issue numbers, work sessions,
earlier runs or versions, goals, commit hashes; the source designs are cited by their
labels in docs/references.md, not by file numbers; nothing points outside the
repository. ALLOWED lists the few legitimate uses, each with its reason."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

RULES = {
    "issue number": r"\bissues?\s*#?\d+",
    "work session": r"\bsessions?\b",
    "earlier run or version": r"\b(previous|earlier|last)\s+(run|session|version|build)s?\b"
                              r"|\bfirst version\b|\bwas\s+\S+\s+before\b"
                              r"|\bthe run before\b|\(before:",
    "goal": r"\bgoals?\b",
    "source design by file number": r"\bseeds?\s*0\d\d\b",
    "path outside the repository": r"\.\./shared\b",
    "commit hash": r"\bcommits?\s+[0-9a-f]{7,40}\b",
}

# (file, rule): reason
ALLOWED = {
    ("tests/test_tree_words.py", None): "the rules themselves",
}


def tracked_text_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    files = []
    for name in out.stdout.decode().split("\0"):
        if not name:
            continue
        p = ROOT / name
        if not p.is_file():
            continue
        raw = p.read_bytes()
        if b"\0" in raw[:4096]:
            continue  # binary
        files.append(p)
    return files


def violations() -> list[str]:
    pats = {k: re.compile(v, re.IGNORECASE) for k, v in RULES.items()}
    bad = []
    for p in tracked_text_files():
        rel = p.relative_to(ROOT).as_posix()
        if (rel, None) in ALLOWED:
            continue
        for i, line in enumerate(p.read_text(errors="replace").splitlines(), 1):
            for rule, pat in pats.items():
                if (rel, rule) in ALLOWED:
                    continue
                if pat.search(line):
                    bad.append(f"{rel}:{i}: {rule}: {line.strip()[:120]}")
    return bad


def test_no_process_or_history_words() -> None:
    bad = violations()
    assert not bad, f"{len(bad)} lines speak of process or history:\n" + "\n".join(bad[:60])


def test_rules_catch_examples() -> None:
    pats = {k: re.compile(v, re.IGNORECASE) for k, v in RULES.items()}
    hits = lambda s: {k for k, p in pats.items() if p.search(s)}  # noqa: E731
    assert hits("as asked in issue 13") == {"issue number"}
    assert hits("measured in the previous run") == {"earlier run or version"}
    assert hits("29.0 MHz in the run before") == {"earlier run or version"}
    assert hits("(Before: 2,353 LUTs)") == {"earlier run or version"}
    assert hits("the goal is 1M cycles/s") == {"goal"}
    assert hits("seed 000 §3.7") == {"source design by file number"}
    assert hits("see ../shared/STYLE.md") == {"path outside the repository"}
    assert hits("fixed in commit 4441743") == {"commit hash"}
    assert not hits("[QoS-RDMA] §3.7: one enqueue and one dequeue per cycle")
    assert not hits("QRDMA_SEED=123 replays the test")
