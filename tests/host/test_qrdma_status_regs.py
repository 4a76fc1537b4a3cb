# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_status_regs ([QoS-RDMA] §3.4) against a reference model, cycle by cycle.

Every cycle the test drives random host / engine / read operations and checks chk_st and
rd_data (the state of the addressed rows at the start of the cycle) against the model,
then applies the cycle's updates to the model with the documented priorities (host set >
read reset; engine sets only a BUSY channel, a read resets DONE/ERROR; a host set and an
engine set never hit one channel in one cycle).

  st_random    phases that focus rows so that the three writers meet: one row for all,
               two rows, four rows, every row; the engine completes BUSY channels (its
               contract); host sets on every kind of channel; single and collective reads. The
               coverage of same-row and same-channel collisions is counted and required.
  st_reset     a reset in the middle of traffic: ready is low for exactly ROWS cycles,
               then every channel is IDLE.
"""
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from seeding import seed_rng
from tools.formats import C

ROW_CH = 32
ROWS = C["NUM_PAGES"] * C["CH_PER_PAGE"] // ROW_CH
IDLE, BUSY, DONE, ERROR = C["ST_IDLE"], C["ST_BUSY"], C["ST_DONE"], C["ST_ERROR"]


# ------------------------------------------------------------------ reference model
class StatusModel:
    """Status of the channels (write and read); ch = row * 32 + i."""

    def __init__(self):
        self.st = [IDLE] * (ROWS * ROW_CH)

    def row(self, r):
        v = 0
        for i in range(ROW_CH):
            v |= self.st[r * ROW_CH + i] << (2 * i)
        return v

    def step(self, host=None, eng=None, rd=None):
        """One clock edge. host = (ch, err), eng = (ch, err), rd = (row, single, sel);
        None: no operation. Returns the read row's value before the updates."""
        out_r = self.row(rd[0]) if rd else None
        new = {}
        if rd:
            r, single, sel = rd
            for i in range(ROW_CH):
                ch = r * ROW_CH + i
                if (not single or i == sel) and self.st[ch] in (DONE, ERROR):
                    new[ch] = IDLE
        if eng:
            ch, err = eng
            assert self.st[ch] == BUSY, f"test drives an engine set of channel {ch}, not BUSY"
            new[ch] = ERROR if err else DONE
        if host:
            ch, err = host
            new[ch] = ERROR if err else BUSY
        for ch, v in new.items():
            self.st[ch] = v
        return out_r


# ------------------------------------------------------------------ helpers
def drive_idle(dut):
    dut.host_set.value = 0
    dut.eng_valid.value = 0
    dut.rd_valid.value = 0
    dut.chk_row.value = 0
    dut.host_ch.value = 0
    dut.host_err.value = 0
    dut.eng_ch.value = 0
    dut.eng_err.value = 0
    dut.rd_row.value = 0
    dut.rd_single.value = 0
    dut.rd_sel.value = 0


async def reset_and_wait_ready(dut, cycles=2):
    """Pulse rst; return the number of cycles ready stays low after rst falls."""
    dut.rst.value = 1
    for _ in range(cycles):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    n = 0
    while True:
        await ReadOnly()
        if int(dut.ready.value):
            return n
        await RisingEdge(dut.clk)
        n += 1


async def check_all_idle(dut):
    """Sweep chk_row over every row (no updates): all zero."""
    for r in range(ROWS):
        await RisingEdge(dut.clk)
        dut.chk_row.value = r
        await ReadOnly()
        assert int(dut.chk_st.value) == 0, f"row {r} not IDLE after reset"


def start_clock(dut):
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())


# ------------------------------------------------------------------ tests
@cocotb.test()
async def st_reset(dut):
    rng = seed_rng("st_reset")
    start_clock(dut)
    drive_idle(dut)
    assert await reset_and_wait_ready(dut) == ROWS
    await check_all_idle(dut)
    # fill with random traffic, then reset in the middle of it
    model = StatusModel()
    for _ in range(2000):
        await RisingEdge(dut.clk)
        host = (rng.randrange(ROWS * ROW_CH), rng.random() < 0.3)
        busy = [ch for ch, v in enumerate(model.st) if v == BUSY and ch != host[0]]
        eng = (rng.choice(busy), rng.random() < 0.5) if busy and rng.random() < 0.5 else None
        dut.host_set.value = 1
        dut.host_ch.value = host[0]
        dut.host_err.value = host[1]
        dut.eng_valid.value = eng is not None
        dut.eng_ch.value = eng[0] if eng else 0
        dut.eng_err.value = eng[1] if eng else 0
        model.step(host, eng)
    await RisingEdge(dut.clk)
    drive_idle(dut)
    await RisingEdge(dut.clk)
    # traffic keeps coming during the sweep (ROWS cycles after rst falls): it must be ignored
    dut.rst.value = 1
    await RisingEdge(dut.clk)
    dut.rst.value = 0
    for n in range(ROWS):
        dut.host_set.value = 1
        dut.host_ch.value = rng.randrange(ROWS * ROW_CH)
        dut.eng_valid.value = 1
        dut.eng_ch.value = rng.randrange(ROWS * ROW_CH)
        dut.rd_valid.value = 1
        dut.rd_row.value = rng.randrange(ROWS)
        await ReadOnly()
        assert not int(dut.ready.value), f"ready after {n} cycles, expected {ROWS}"
        await RisingEdge(dut.clk)
    drive_idle(dut)
    await ReadOnly()
    assert int(dut.ready.value), f"ready still low after {ROWS} cycles"
    await check_all_idle(dut)


@cocotb.test()
async def st_random(dut):
    rng = seed_rng("st_random")
    cycles = int(os.environ.get("P_CYCLES", "60000"))
    start_clock(dut)
    drive_idle(dut)
    assert await reset_and_wait_ready(dut) == ROWS

    model = StatusModel()
    cov = dict.fromkeys(["h_e_row", "h_r_row", "e_r_row", "h_e_r_row", "h_r_ch",
                         "e_done", "r_reset_coll", "r_reset_single",
                         "h_over_done"], 0)
    # phases: the rows that operations may address (few rows: many collisions)
    phases = [[0], [7, 8], [1, 2, 3, 31, ROWS - 1], list(range(ROWS))]
    plen = cycles // (2 * len(phases))
    for cyc in range(cycles):
        rows = phases[(cyc // plen) % len(phases)]
        await RisingEdge(dut.clk)
        host = eng = rd = None
        if rng.random() < 0.5:
            host = (rng.choice(rows) * ROW_CH + rng.randrange(ROW_CH), rng.random() < 0.2)
        if rng.random() < 0.6:
            busy = [r * ROW_CH + i for r in rows for i in range(ROW_CH)
                    if model.st[r * ROW_CH + i] == BUSY]
            eng = (rng.choice(busy), rng.random() < 0.3) if busy else None
            if host and eng and host[0] == eng[0]:   # not allowed: the engine's set waits
                eng = None
        if rng.random() < 0.5:
            rd = (rng.choice(rows), rng.random() < 0.5, rng.randrange(ROW_CH))
        # drive (idle values of unused ports random: they must not matter)
        dut.host_set.value = host is not None
        dut.host_ch.value = host[0] if host else rng.randrange(ROWS * ROW_CH)
        dut.host_err.value = host[1] if host else rng.randrange(2)
        crow = rng.choice(rows) if rng.random() < 0.8 else rng.randrange(ROWS)
        dut.chk_row.value = crow
        dut.eng_valid.value = eng is not None
        dut.eng_ch.value = eng[0] if eng else rng.randrange(ROWS * ROW_CH)
        dut.eng_err.value = eng[1] if eng else rng.randrange(2)
        dut.rd_valid.value = rd is not None
        dut.rd_row.value = rd[0] if rd else rng.randrange(ROWS)
        dut.rd_single.value = rd[1] if rd else rng.randrange(2)
        dut.rd_sel.value = rd[2] if rd else rng.randrange(ROW_CH)
        await ReadOnly()
        # the check port, every cycle
        assert int(dut.chk_st.value) == model.row(crow), \
            f"cycle {cyc}: chk_st of row {crow}: {int(dut.chk_st.value):#x} != {model.row(crow):#x}"
        # coverage
        er = eng[0] // ROW_CH if eng else None
        hr = host[0] // ROW_CH if host else None
        if host and eng and hr == er:
            cov["h_e_row"] += 1
        if host and rd and hr == rd[0]:
            cov["h_r_row"] += 1
            if (not rd[1] or rd[2] == host[0] % ROW_CH) and model.st[host[0]] in (DONE, ERROR):
                cov["h_r_ch"] += 1
        if eng and rd and er == rd[0]:
            cov["e_r_row"] += 1
        if host and eng and rd and hr == er == rd[0]:
            cov["h_e_r_row"] += 1
        if host and model.st[host[0]] == DONE:
            cov["h_over_done"] += 1
        if eng:
            cov["e_done"] += 1
        if rd and any(model.st[rd[0] * ROW_CH + i] in (DONE, ERROR) for i in range(ROW_CH)):
            cov["r_reset_single" if rd[1] else "r_reset_coll"] += 1
        exp_r = model.step(host, eng, rd)
        if rd:
            got = int(dut.rd_data.value)
            assert got == exp_r, f"cycle {cyc}: rd_data of row {rd[0]}: {got:#x} != {exp_r:#x}"
    await RisingEdge(dut.clk)
    drive_idle(dut)
    # final sweep: every row as the model has it
    for r in range(ROWS):
        await RisingEdge(dut.clk)
        dut.chk_row.value = r
        await ReadOnly()
        assert int(dut.chk_st.value) == model.row(r), f"final row {r}"
    dut._log.info("coverage: %s", cov)
    for k, v in cov.items():
        assert v >= 20, f"coverage {k} = {v}"


# ------------------------------------------------------------------ pytest
def test_qrdma_status_regs():
    from simrun import full, run

    cycles = 30000 * (10 if full() else 1)
    run("qrdma_status_regs", "test_qrdma_status_regs", {}, extra_env={"P_CYCLES": str(cycles)})
