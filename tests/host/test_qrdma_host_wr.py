# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_host_wr, the write path of the host port ([QoS-RDMA] §3.6; docs/qos.md "Host port
modules"), alone: driven by cocotbext-axi's AxiMasterWrite and checked cycle by cycle
against the host-port model (tests/model/host_model.py; stimulus: tests/host/host_stim.py).

The status store the path checks (chk_row -> chk_st) and updates (host_set) is the model's
own status: chk_st is answered in the ReadWrite phase of every cycle with the model's row
at the start of the cycle. A fake engine completes started transfers (driving eng_valid /
eng_ch in the cycle of the completion) and a fake reader resets the DONE / ERROR channels
of a row, both through the model (end_of_cycle). The
external register port answers ext_wr_err from a random map of writable offsets.

Every cycle (ReadOnly) the monitor steps the model and compares:
  - for the W beat handshaken the cycle before: the external register write, the B
    response of its burst and the new transfer it starts (both in order; the table bytes
    of its lines too); a cycle later its table write (row, enables, bytes) and
    desc_ok / desc_err;
  - host_set / host_ch / host_err against the previous decision's update;
  - AWREADY low while store_ready is low.
At the end every expected B response and new transfer must have come.

  wr_random   16 page programs (descriptors good and bad, long ones refused in every way,
              bad beats, conflicting lines, BUSY channels) and external register writes,
              interleaved; random idle/backpressure on AW, W, B and new_ready, a phase that
              stalls new_ready (the new-transfer FIFO fills, wready must drop); store_ready
              low after reset and in short random stretches. Every refusal reason, the bad
              descriptors, the skip-record cases and external writes must occur.
"""
import collections
import logging
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, ReadWrite, RisingEdge
from cocotbext.axi import AxiMasterWrite, AxiWriteBus

from seeding import seed_rng
from streams import FlowBus, FlowSink, quiet, random_pause
from host.host_stim import Issuer, check_table_write, ext_write_op, page_program
from model.host_model import (BAD_DESC, BUSY, C, ERROR, LINE, NPAGES, OKAY, REFUSALS, SLVERR,
                              NCH, WRCH, HostIfModel)


class WrEnv:
    """DUT + AxiMasterWrite + new_ready sink + status store / fake engine + monitor."""

    def __init__(self, dut, rng):
        self.dut = dut
        self.rng = rng
        self.data_w = int(os.environ["P_DATA_W"])
        self.db = self.data_w // 8
        self.id_w = int(os.environ["P_ID_W"])
        self.ext_span = int(os.environ["P_EXT_SPAN"])
        offs = range(C["NIC_REG_FIRST"], self.ext_span, 8)
        self.writable = {off for off in offs if rng.random() < 0.7}
        self.model = HostIfModel(self.db, 65536, 2, self.data_w, 48, ext_span=self.ext_span,
                                 ext_wr=lambda off: off in self.writable)
        cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
        dut.store_ready.value = 0
        dut.chk_st.value = 0
        dut.eng_valid.value = 0
        dut.eng_ch.value = 0
        dut.ext_wr_err.value = 1
        self.wmaster = AxiMasterWrite(AxiWriteBus.from_prefix(dut, "s_axi"), dut.clk, dut.rst)
        for name in list(logging.root.manager.loggerDict):
            if name.startswith(f"cocotb.{dut._name}.s_axi"):
                logging.getLogger(name).setLevel(logging.WARNING)
        self.wmaster.log.setLevel(logging.WARNING)
        quiet(dut, "new")
        self.sink = FlowSink(FlowBus.from_prefix(dut, "new"), dut.clk, dut.rst)
        random_pause(self.sink, rng, 0.3)
        self.p_done = 0.15        # fake engine: completes a started transfer
        self.p_read = 0.05        # fake reader: resets the DONE / ERROR channels of a row
        self.p_unready = 0.0      # store_ready falls for a few cycles
        self.started = []
        self.eng_now = None       # the fake engine's completion in this cycle
        self.progress = 0
        self.cycle = 0
        self.aw_q = collections.deque()
        self.aw_beat = 0
        self.prev_w = None
        self.w2 = None            # table write and events due in W2 (the decision of k-1)
        self.burst_err = False
        self.exp_b = collections.deque()
        self.exp_new = collections.deque()
        self.captured = collections.defaultdict(lambda: bytearray(2 * LINE))
        self.n_b = self.n_new = 0
        self.n_unready_aw = 0

    async def reset(self):
        self.dut.rst.value = 1
        for _ in range(3):
            await RisingEdge(self.dut.clk)
        self.dut.rst.value = 0
        cocotb.start_soon(self._respond())
        cocotb.start_soon(self._monitor())
        cocotb.start_soon(self._store_ready())

    def set_pauses(self, p):
        """Random idle/backpressure on AW, W and B (p = probability of a pause)."""
        for ch in (self.wmaster.aw_channel, self.wmaster.w_channel, self.wmaster.b_channel):
            random_pause(ch, self.rng, p)

    # ---------------------------------------------------------------- environment
    async def _store_ready(self):
        """Low for a while after reset (the storage clears itself), then low in short random
        stretches while p_unready > 0."""
        dut = self.dut
        for _ in range(self.rng.randint(5, 40)):
            await RisingEdge(dut.clk)
        dut.store_ready.value = 1
        while True:
            await RisingEdge(dut.clk)
            if self.rng.random() < self.p_unready:
                dut.store_ready.value = 0
                for _ in range(self.rng.randint(1, 6)):
                    await RisingEdge(dut.clk)
                dut.store_ready.value = 1

    async def _respond(self):
        """The status store, the engine and the external registers: answer chk_row and
        ext_wr_addr (both from registers of the path) once the cycle's inputs are settled,
        and drive the engine's completion of the cycle."""
        dut = self.dut
        st = self.model.st
        while True:
            await RisingEdge(dut.clk)
            await ReadWrite()
            base = 32 * int(dut.chk_row.value)
            dut.chk_st.value = sum(st[base + i] << (2 * i) for i in range(32))
            # the fake engine completes transfers handed over in earlier cycles only; the
            # path sees the completion (eng_valid / eng_ch) in the cycle the store applies it
            self.eng_now = None
            if self.started and self.rng.random() < self.p_done:
                x = self.started.pop(self.rng.randrange(len(self.started)))
                self.eng_now = (x, self.rng.random() < 0.2, self.rng.randrange(16))
            dut.eng_valid.value = int(self.eng_now is not None)
            dut.eng_ch.value = self.eng_now[0] if self.eng_now else 0
            dut.ext_wr_err.value = int(int(dut.ext_wr_addr.value) not in self.writable)

    # ---------------------------------------------------------------- monitor
    def _sample(self):
        d = self.dut
        v = lambda s: int(s.value)  # noqa: E731
        r = dict(aw=None, w=None, tt=None, ext=None, b=None, nw=None,
                 host=None, ev=(v(d.desc_ok), v(d.desc_err)),
                 store_ready=v(d.store_ready), awready=v(d.s_axi_awready))
        if v(d.s_axi_awvalid) and v(d.s_axi_awready):
            r["aw"] = (v(d.s_axi_awid), v(d.s_axi_awaddr), v(d.s_axi_awlen),
                       v(d.s_axi_awsize), v(d.s_axi_awburst))
        if v(d.s_axi_wvalid) and v(d.s_axi_wready):
            r["w"] = (v(d.s_axi_wdata), v(d.s_axi_wstrb))
        if v(d.tt_wr_en):
            r["tt"] = (v(d.tt_wr_row), v(d.tt_wr_be), v(d.tt_wr_data))
        if v(d.ext_wr_en) and not v(d.ext_wr_err):   # a request the register block takes
            r["ext"] = (v(d.ext_wr_addr), v(d.ext_wr_data))
        if v(d.host_set):
            r["host"] = (v(d.host_ch), ERROR if v(d.host_err) else BUSY)
        if v(d.s_axi_bvalid) and v(d.s_axi_bready):
            r["b"] = (v(d.s_axi_bid), v(d.s_axi_bresp))
        if v(d.new_valid) and v(d.new_ready):
            r["nw"] = dict(xfer=v(d.new_xfer), size=v(d.new_size), inline=v(d.new_inline),
                           multipath=v(d.new_multipath), prio=v(d.new_prio),
                           dst_lo=v(d.new_dst_lo), hold=v(d.new_hold),
                           start=v(d.new_start))
        return r

    async def _monitor(self):
        while True:
            await RisingEdge(self.dut.clk)
            await ReadOnly()
            self.cycle += 1
            self._process(self._sample())

    def _process(self, rec):
        """Cycle k: the decision of the beat of k-1 (W1), the writes of the decision of k-1
        (W2: table, events, status update), the outputs of k, the end of k."""
        m = self.model
        k = self.cycle
        if not rec["store_ready"]:
            assert not rec["awready"], f"cycle {k}: AWREADY while store_ready is low"
        if rec["aw"]:
            self.aw_q.append(rec["aw"])
        # W2: the status update, the table write and the events of the previous decision
        assert rec["host"] == m.pending, f"cycle {k}: status update {rec['host']} != {m.pending}"
        tt, ev = self.w2 if self.w2 is not None else (None, (0, 0))
        self.w2 = None
        check_table_write(k, rec["tt"], tt)
        assert rec["ev"] == ev, f"cycle {k}: desc_ok/desc_err {rec['ev']} != {ev}"
        # W1: the decision of the beat handshaken in k-1
        host = None
        if self.prev_w is not None:
            aw, i, wdata, wstrb = self.prev_w
            dec = m.decide(aw, i, wdata, wstrb)
            host = dec["host"]
            assert rec["ext"] == dec["ext"], \
                f"cycle {k}: external write {rec['ext']} != {dec['ext']}"
            ev = (int("CNT_DESC_OK" in m.cnt_dec), int("CNT_DESC_ERR" in m.cnt_dec))
            m.cnt_dec = []
            self.w2 = (dec["tt"], ev)
            if dec["new"] is not None:
                self.exp_new.append(dec["new"])
            self.burst_err |= dec["err"]
            if dec["last"]:
                self.exp_b.append((dec["id"], SLVERR if self.burst_err else OKAY))
                self.burst_err = False
        else:
            assert rec["ext"] is None, f"cycle {k}: external write without a beat"
        if rec["tt"] is not None:
            row, be, data = rec["tt"]
            b = data.to_bytes(2 * LINE, "little")
            for j in range(2 * LINE):
                if (be >> j) & 1:
                    self.captured[row][j] = b[j]
        self.prev_w = None
        if rec["w"]:
            assert self.aw_q, f"cycle {k}: W beat without a burst"
            aw = self.aw_q[0]
            self.prev_w = (aw, self.aw_beat, rec["w"][0], rec["w"][1])
            if self.aw_beat == aw[2]:
                self.aw_q.popleft()
                self.aw_beat = 0
            else:
                self.aw_beat += 1
        if rec["b"]:
            assert self.exp_b, f"cycle {k}: unexpected B {rec['b']}"
            exp = self.exp_b.popleft()
            assert rec["b"] == exp, f"cycle {k}: B {rec['b']} != {exp}"
            self.n_b += 1
        # the fake engine's completion of this cycle (chosen and driven by _respond)
        eng = self.eng_now
        if rec["nw"]:
            assert self.exp_new, f"cycle {k}: unexpected new transfer {rec['nw']}"
            exp = self.exp_new.popleft()
            got = rec["nw"]
            assert got == {f: exp[f] for f in got}, f"cycle {k}: new {got} != {exp}"
            page, c = divmod(exp["xfer"], C["CH_PER_PAGE"])
            for cc in ((c, c + 1) if exp["long"] else (c,)):
                row = (page * C["CH_PER_PAGE"] + cc) >> 1
                lo = (cc % 2) * LINE
                assert bytes(self.captured[row][lo:lo + LINE]) == m.line(page, cc), \
                    f"cycle {k}: table line of page {page} channel {cc}"
            self.started.append(exp["xfer"])
            self.n_new += 1
        rd_reset = ()
        if self.rng.random() < self.p_read:
            row = self.rng.randrange(NPAGES * NCH // 32)
            rd_reset = tuple(range(32 * row, 32 * row + 32))
        m.end_of_cycle(host, eng, rd_reset)

    # ---------------------------------------------------------------- end of test
    async def drain(self):
        await self.wmaster.wait()
        p, self.p_done = self.p_done, 1.0
        while self.started or self.exp_new:
            await RisingEdge(self.dut.clk)
        for _ in range(8):
            await RisingEdge(self.dut.clk)
        self.p_done = p

    def check_empty(self):
        assert not self.exp_b, f"B responses missing: {list(self.exp_b)[:4]}"
        assert not self.exp_new, f"new transfers missing: {list(self.exp_new)[:4]}"
        assert not self.aw_q, "bursts without all their beats"
        assert self.prev_w is None and self.w2 is None and self.model.pending is None


async def ext_program(env, issuer, n):
    """n writes to the external register window, one at a time."""
    for _ in range(n):
        await issuer.put("ext", ext_write_op(env.rng, env.db, env.ext_span)).wait()
        env.progress += 1


@cocotb.test()
async def wr_random(dut):
    rng = seed_rng("wr_random")
    env = WrEnv(dut, rng)
    await env.reset()
    ntrans = int(os.environ.get("P_TRANS", "120"))
    issuer = Issuer(env)
    tasks = []
    for p in range(NPAGES):
        hot = rng.sample(range(WRCH), rng.choice([2, 4, 8])) \
            + rng.sample(range(WRCH, NCH), rng.choice([2, 4, 8]))
        hot += [c ^ 1 for c in hot if c ^ 1 not in hot][:2]
        tasks.append(cocotb.start_soon(page_program(env, issuer, p, ntrans, hot)))
    n_ext = 2 * ntrans
    tasks.append(cocotb.start_soon(ext_program(env, issuer, n_ext)))
    total = ntrans * NPAGES + n_ext
    # phases (progress fraction, AXI pause probability, new_ready stall probability,
    # store_ready drop probability): random; full rate; full-rate AXI into a mostly stalled
    # new-transfer stream (the new FIFO fills: wready must drop); heavy backpressure
    for frac, pause, stall, unready in ((0.3, 0.2, 0.3, 0.01), (0.55, 0.0, 0.0, 0.0),
                                        (0.75, 0.0, 0.9, 0.0), (1.0, 0.5, 0.6, 0.02)):
        env.set_pauses(pause)
        random_pause(env.sink, env.rng, stall)
        env.p_unready = unready
        while env.progress < frac * total:
            await RisingEdge(dut.clk)
    for t in tasks:
        await t
    env.set_pauses(0.0)
    env.p_unready = 0.0
    await env.drain()
    env.check_empty()
    cov = env.model.cov
    dut._log.info("cycles %d, B %d, new %d, coverage %s", env.cycle, env.n_b, env.n_new,
                  dict(cov))
    for k in REFUSALS + BAD_DESC[:5] + ["D7_read_flags", "short_start", "long_start",
                                        "read_start", "skip_refused_line0",
                                        "skip_bad_desc", "skip_line1_refused", "ext_wr"]:
        if k in ("R1_size", "R2_burst"):
            assert cov[k] > 0, f"coverage: {k} never happened"
        else:
            assert cov[k] >= 5, f"coverage: {k} happened {cov[k]} times"


# ====================================================================== pytest
CONFIGS = [
    # DATA_W, ID_W, NEW_FIFO_DEPTH, EXT_SPAN
    (256, 4, 8, 4096),
    (128, 1, 4, 8192),
]


@pytest.mark.parametrize("data_w,id_w,new_depth,ext_span", CONFIGS)
def test_qrdma_host_wr(data_w, id_w, new_depth, ext_span):
    from simrun import full, run

    p = {"DATA_W": data_w, "ID_W": id_w, "NEW_FIFO_DEPTH": new_depth, "EXT_SPAN": ext_span}
    env = {f"P_{k}": str(v) for k, v in p.items()}
    env["P_TRANS"] = str(1200 if full() else 120)
    run("qrdma_host_wr", "test_qrdma_host_wr", p, extra_env=env)
