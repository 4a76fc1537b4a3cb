# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_arb_fixed against a reference model: for every request vector (exhaustive up to
10 requesters, random patterns of several densities above), gnt is the lowest set bit of
req, gnt_valid = |req and gnt_idx its index (0 when nothing is requested). The arbiter is
combinational and has no handshake: the request vectors themselves are random."""
import os

import cocotb
import pytest
from cocotb.triggers import Timer

from seeding import seed_rng


class ArbFixedModel:
    """Bit 0 has the highest priority."""

    def __init__(self, n):
        self.n = n

    def grant(self, req):
        """(gnt, gnt_valid, gnt_idx) for request vector `req`."""
        if req == 0:
            return 0, 0, 0
        gnt = req & -req
        return gnt, 1, gnt.bit_length() - 1


async def check(dut, model, req):
    dut.req.value = req
    await Timer(1, unit="ns")
    gnt, valid, idx = model.grant(req)
    got = (int(dut.gnt.value), int(dut.gnt_valid.value), int(dut.gnt_idx.value))
    assert got == (gnt, valid, idx), f"req {req:#x}: got (gnt, valid, idx) {got}, want {(gnt, valid, idx)}"


@cocotb.test()
async def arb_fixed_all(dut):
    n = int(os.environ["P_N"])
    rng = seed_rng("arb_fixed_all")
    model = ArbFixedModel(n)
    if n <= 10:
        reqs = list(range(1 << n))
        rng.shuffle(reqs)  # any order: the output must not depend on the previous vector
    else:
        reqs = [0, (1 << n) - 1, 1 << (n - 1), 1]
        for _ in range(4000):
            # density from sparse (a single high bit wins rarely) to dense
            p = rng.choice([0.02, 0.1, 0.5, 0.9])
            reqs.append(sum(1 << i for i in range(n) if rng.random() < p))
        # every single-bit and every "bit i and above" vector: each index and each carry length
        reqs += [1 << i for i in range(n)] + [((1 << n) - 1) & ~((1 << i) - 1) for i in range(n)]
    for req in reqs:
        await check(dut, model, req)


def params():
    from simrun import full

    # (N, CHAIN) -- 66: the QoS core's queue picker (two groups of the grouped carry
    # chain), 130: three; 6 with gates: the segmenter's choice between its classes
    return ([(1, 1), (32, 1), (66, 1), (6, 0), (32, 0)]
            + ([(7, 1), (64, 1), (65, 1), (130, 1), (66, 0)] if full() else []))


@pytest.mark.parametrize("n,chain", params())
def test_qrdma_arb_fixed(n, chain):
    from simrun import run

    run("qrdma_arb_fixed", "test_qrdma_arb_fixed", {"N": n, "CHAIN": chain},
        extra_env={"P_N": str(n)})
