# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The random generator of a cocotb test: seeded from QRDMA_SEED (a replay) or fresh, with
the seed printed so that any run can be replayed."""
from __future__ import annotations

import os
import random

import cocotb


def seed_rng(name: str) -> random.Random:
    """A Random seeded from QRDMA_SEED or fresh; the seed is printed so a run can be replayed."""
    s = os.environ.get("QRDMA_SEED")
    seed = int(s) if s else random.SystemRandom().randrange(1 << 31)
    cocotb.log.info("%s: random seed %d (replay with QRDMA_SEED=%d)", name, seed, seed)
    return random.Random(seed)
