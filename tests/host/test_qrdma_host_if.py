# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_host_if ([QoS-RDMA] §3.4, §3.6; docs/qos.md "Descriptors and their acceptance")
driven by cocotbext-axi's AxiMaster, against the cycle-by-cycle reference model of the
address map, the acceptance rules, the status registers and the counters
(tests/model/host_model.py; stimulus: tests/host/host_stim.py; layouts and addresses from
tools.formats).

A monitor samples every port each cycle; the model runs one cycle behind it and predicts
  - the decision of every W beat in the cycle after its handshake: the status update,
    the new transfer, the counters, the B response of every burst (compared in order),
    and a cycle later the transfer-table write (row, byte enables, bytes; compared every
    cycle);
  - every R beat (value, RRESP, RLAST, RID): a beat reads the status (or error reason) in
    the cycle it moves into the read path's answer register (its b_go), at least two
    cycles before it shows on R;
  - the new-transfer stream: its fields, and the table bytes of the descriptor it starts.
A fake engine completes started transfers at random times (st_valid, st_err with a random
st_reason; the host port applies a completion at the end of the second cycle after
st_valid) and pulses ev.

  hif_random        16 page programs interleaved: descriptors in 8/16/32-byte words in
                    random order, multi-beat bursts, long descriptors (also to BUSY
                    channels, bad ones, with refused beats in either line), word rewrites,
                    bad fields, bad beats of every kind, conflicting lines, writes to BUSY
                    channels, in write and read channels (D7); random reads (status, error reasons, registers); random
                    idle/backpressure on every AXI channel and on new_ready. Every refusal
                    reason must occur.
  hif_bad_inputs    every refusal rule and every bad-descriptor rule once, in isolation,
                    with the expected BRESP asserted per write and the status/counters/error
                    reasons read; a long descriptor refused as a whole in every way (R8);
                    read channels: read descriptors accepted, R6, D7, single, collective
                    (groups 2, 3) and error-reason reads
  hif_back_to_back  64 single-beat descriptors in 64 channels, no backpressure: one AW, one
                    W, one B and one new transfer per cycle (exact cycle count asserted)
"""
import collections
import logging
import os
import warnings

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import Event, ReadOnly, RisingEdge
from cocotbext.axi import AxiBurstType, AxiBus, AxiMaster, AxiResp
from cocotbext.axi.axi_channels import AxiAWTransaction, AxiWTransaction
from cocotbext.axi.axi_master import AxiWriteRespCmd

from seeding import seed_rng
from streams import FlowBus, FlowSink, quiet, random_pause
from host.host_stim import (Issuer, check_table_write, make_line, page_program,
                            read_everything, read_program, set_long)
from model.host_model import (BAD_DESC, BUSY, ERROR, IDLE, INCR, FIXED, LINE, NPAGES, NREGS,
                              NCH, ClusterModel, OKAY, QOS_REGS, REFUSALS, SLVERR, WRAP, WRCH, C, F, L0,
                              HostIfModel)


# ====================================================================== test bench
class Env:
    """DUT + AxiMaster + new_ready sink + fake engine + monitor/scoreboard."""

    def __init__(self, dut, rng, stall=0.3, p_done=0.2, p_ev=0.2):
        self.dut = dut
        self.rng = rng
        self.data_w = int(os.environ["P_DATA_W"])
        self.db = self.data_w // 8
        self.id_w = int(os.environ["P_ID_W"])
        self.cluster = ClusterModel()
        self.model = HostIfModel(self.db, int(os.environ["P_BLOCK_SIZE"]),
                                 int(os.environ["P_MAX_OUTSTANDING"]), self.data_w,
                                 48,   # counter bits (regs/qrdma_regs.rdl)
                                 int(os.environ.get("P_EXT_PARAMS", "0")))
        cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
        dut.st_valid.value = 0
        dut.st_ch.value = 0
        dut.st_err.value = 0
        dut.st_reason.value = 0
        dut.ev.value = 0
        logging.getLogger(f"cocotb.{dut._name}.s_axi").setLevel(logging.WARNING)
        self.master = AxiMaster(AxiBus.from_prefix(dut, "s_axi"), dut.clk, dut.rst)
        for name in list(logging.root.manager.loggerDict):
            if name.startswith(f"cocotb.{dut._name}.s_axi"):
                logging.getLogger(name).setLevel(logging.WARNING)
        self.master.write_if.log.setLevel(logging.WARNING)
        self.master.read_if.log.setLevel(logging.WARNING)
        self.wmaster = self.master.write_if
        self.rmaster = self.master.read_if
        quiet(dut, "new")
        self.sink = FlowSink(FlowBus.from_prefix(dut, "new"), dut.clk, dut.rst)
        random_pause(self.sink, rng, stall)
        self.p_done = p_done
        self.p_ev = p_ev
        self.engine_on = True
        self.started = []                 # (xfer) popped from new, not yet completed
        self.cycle = 0
        # scoreboard
        self.aw_q = collections.deque()   # bursts seen on AW, beats not all seen on W
        self.aw_beat = 0
        self.ar_q = collections.deque()
        self.ar_beat = 0
        self.exp_b = collections.deque()
        self.exp_new = collections.deque()
        self.captured = collections.defaultdict(lambda: bytearray(2 * LINE))
        self.prev = None
        self.prev_w = None                # W beat of the previous cycle (decided now)
        self.w2_tt = None                 # table write of the previous decision (due now)
        self.exp_r = collections.deque()  # beats read, not yet on R
        self.st_prev = [None, None]       # the engine's completions of the last two cycles
        self.burst_err = False
        self.n_b = self.n_new = self.n_r = 0
        self.trace = {}                   # cycle -> events (directed tests)
        self.record = False

    # ---------------------------------------------------------------- set-up
    async def reset(self):
        # no register block on the external port: its window answers SLVERR
        self.dut.ext_rd_err.value = 1
        self.dut.ext_wr_err.value = 1
        self.dut.ext_rd_data.value = 0
        self.dut.rst.value = 1
        for _ in range(3):
            await RisingEdge(self.dut.clk)
        self.dut.rst.value = 0
        cocotb.start_soon(self._monitor())
        cocotb.start_soon(self._engine())
        # the status registers clear their rows: AWREADY/ARREADY low meanwhile
        while True:
            await RisingEdge(self.dut.clk)
            await ReadOnly()
            if int(self.dut.s_axi_awready.value):
                break
        await RisingEdge(self.dut.clk)

    def set_pauses(self, p):
        """Random idle/backpressure on every AXI channel (p = probability of a pause)."""
        m = self.master
        for ch in (m.write_if.aw_channel, m.write_if.w_channel, m.write_if.b_channel,
                   m.read_if.ar_channel, m.read_if.r_channel):
            random_pause(ch, self.rng, p)

    # ---------------------------------------------------------------- fake engine
    async def _engine(self):
        dut = self.dut
        while True:
            await RisingEdge(dut.clk)
            dut.st_valid.value = 0
            if self.engine_on and self.started and self.rng.random() < self.p_done:
                x = self.started.pop(self.rng.randrange(len(self.started)))
                dut.st_valid.value = 1
                dut.st_ch.value = x   # page * 128 + c: write and read channels alike
                dut.st_err.value = int(self.rng.random() < 0.2)
                dut.st_reason.value = self.rng.randrange(16)
            ev = 0
            for k in range(7):
                if self.rng.random() < self.p_ev:
                    ev |= 1 << k
            dut.ev.value = ev

    async def complete_all(self):
        """Let the engine complete every started transfer."""
        p, self.p_done = self.p_done, 1.0
        while self.started or self.exp_new:
            await RisingEdge(self.dut.clk)
        for _ in range(4):
            await RisingEdge(self.dut.clk)
        self.p_done = p

    # ---------------------------------------------------------------- monitor
    def _sample(self):
        d = self.dut
        v = lambda s: int(s.value)  # noqa: E731
        r = dict(aw=None, w=None, tt=None, st=None, ev=v(d.ev), ar=None, r=None, b=None,
                 nw=None, rvalid=v(d.s_axi_rvalid), rready=v(d.s_axi_rready),
                 read=v(d.u_rd.b_go),
                 ext=(v(d.ext_wr_addr), v(d.ext_wr_data))
                 if v(d.ext_wr_en) and not v(d.ext_wr_err) else None)
        if v(d.s_axi_awvalid) and v(d.s_axi_awready):
            r["aw"] = (v(d.s_axi_awid), v(d.s_axi_awaddr), v(d.s_axi_awlen),
                       v(d.s_axi_awsize), v(d.s_axi_awburst))
        if v(d.s_axi_wvalid) and v(d.s_axi_wready):
            r["w"] = (v(d.s_axi_wdata), v(d.s_axi_wstrb))
        if v(d.tt_wr_en):
            r["tt"] = (v(d.tt_wr_row), v(d.tt_wr_be), v(d.tt_wr_data))
        if v(d.st_valid):
            r["st"] = (v(d.st_ch), v(d.st_err), v(d.st_reason))
        if v(d.s_axi_arvalid) and v(d.s_axi_arready):
            r["ar"] = (v(d.s_axi_arid), v(d.s_axi_araddr), v(d.s_axi_arlen),
                       v(d.s_axi_arsize), v(d.s_axi_arburst))
        if r["rvalid"]:
            r["r"] = (v(d.s_axi_rid), v(d.s_axi_rdata), v(d.s_axi_rresp), v(d.s_axi_rlast))
        if v(d.s_axi_bvalid) and v(d.s_axi_bready):
            r["b"] = (v(d.s_axi_bid), v(d.s_axi_bresp))
        if v(d.new_valid) and v(d.new_ready):
            r["nw"] = dict(xfer=v(d.new_xfer), size=v(d.new_size), inline=v(d.new_inline),
                           multipath=v(d.new_multipath), prio=v(d.new_prio),
                           dst_lo=v(d.new_dst_lo))
        return r

    async def _monitor(self):
        while True:
            await RisingEdge(self.dut.clk)
            await ReadOnly()
            self.cycle += 1
            cur = self._sample()
            if self.prev is not None:
                self._process(self.prev, cur)
            self.prev = cur

    def _process(self, rec, nxt):
        """Model cycle k (rec), knowing cycle k+1 (nxt): was an R beat loaded in k?"""
        m = self.model
        k = self.cycle - 1
        if self.record:
            self.trace[k] = {key: rec[key] is not None for key in ("aw", "w", "tt", "b", "nw")}
        if rec["aw"]:
            self.aw_q.append(rec["aw"])
        if rec["ar"]:
            self.ar_q.append(rec["ar"])
        # 1. a beat read in cycle k (the read path's b_go: the storage answers and applies
        #    the read reset then), and an R beat loaded into the R register in k (visible
        #    from k+1), in order
        rd_reset = ()
        if rec["read"]:
            assert self.ar_q, f"cycle {k}: beat read without a read burst"
            ar = self.ar_q[0]
            val, resp, rd_reset = m.read(ar, self.ar_beat)
            last = self.ar_beat == ar[2]
            exp = 0 if resp else sum(val << (64 * j) for j in range(self.data_w // 64))
            self.exp_r.append(((ar[0], resp, int(last)), exp, self.ar_beat, ar))
            if resp:
                rd_reset = ()
            if last:
                self.ar_q.popleft()
                self.ar_beat = 0
            else:
                self.ar_beat += 1
        if nxt["rvalid"] and (not rec["rvalid"] or rec["rready"]):
            assert self.exp_r, f"cycle {k}: R beat without a read"
            head, exp, beat, ar = self.exp_r.popleft()
            rid, rdata, rresp, rlast = nxt["r"]
            assert (rid, rresp, rlast) == head, \
                f"cycle {k}: R beat {beat} of {ar}: id/resp/last {(rid, rresp, rlast)} != {head}"
            assert rdata == exp, f"cycle {k}: R beat {beat} of {ar}: data {rdata:#x} != {exp:#x}"
            self.n_r += 1
        # 2. the table write of the decision of k-1 (W2)
        tt, self.w2_tt = self.w2_tt, None
        check_table_write(k, rec["tt"], tt)
        #    the decision of the W beat handshaken in k-1 (W1)
        host = None
        if self.prev_w is not None:
            aw, i, wdata, wstrb = self.prev_w
            dec = m.decide(aw, i, wdata, wstrb)
            host = dec["host"]
            assert rec["ext"] == dec["ext"], f"cycle {k}: external write {rec['ext']} != {dec['ext']}"
            self.w2_tt = dec["tt"]
            if dec["new"] is not None:
                self.exp_new.extend(self.cluster.push(dec["new"]))
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
        # W beat of this cycle: decided in k+1
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
        # 3. B responses, in order
        if rec["b"]:
            assert self.exp_b, f"cycle {k}: unexpected B {rec['b']}"
            exp = self.exp_b.popleft()
            assert rec["b"] == exp, f"cycle {k}: B {rec['b']} != {exp}"
            self.n_b += 1
        # 4. new transfers, in order; their descriptor bytes in the table
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
        # 5. end of cycle k: status updates (the engine's completion of k-2: the host port
        #    registers it twice), event counters
        m.end_of_cycle(host, self.st_prev[0], rd_reset)
        self.st_prev = [self.st_prev[1], rec["st"]]
        m.decision_events()
        m.events(rec["ev"])

    # ---------------------------------------------------------------- end of test
    async def drain(self):
        await self.master.wait()
        await self.complete_all()
        for _ in range(8):
            await RisingEdge(self.dut.clk)

    def check_empty(self):
        assert not self.exp_b, f"B responses missing: {list(self.exp_b)[:4]}"
        assert not self.exp_new, f"new transfers missing: {list(self.exp_new)[:4]}"
        assert not self.aw_q and not self.ar_q, "bursts without all their beats"
        assert not self.exp_r, "beats read but not returned"
        assert self.prev_w is None and self.w2_tt is None


# ====================================================================== tests
@cocotb.test()
async def hif_random(dut):
    rng = seed_rng("hif_random")
    env = Env(dut, rng, stall=0.3, p_done=0.15)
    env.progress = 0
    await env.reset()
    ntrans = int(os.environ.get("P_TRANS", "150"))
    issuer = Issuer(env)
    stop = Event()
    rd = cocotb.start_soon(read_program(env, stop))
    # phases (progress fraction, AXI pause probability, new_ready stall probability):
    # random; none (full rate); full-rate AXI into a mostly stalled new-transfer stream
    # (the new FIFO fills: wready must drop); heavy backpressure everywhere
    tasks = []
    for p in range(NPAGES):
        # write and read channels (a page's hot set has some of each)
        hot = rng.sample(range(WRCH), rng.choice([2, 4, 8])) \
            + rng.sample(range(WRCH, NCH), rng.choice([2, 4, 8]))
        hot += [c ^ 1 for c in hot if c ^ 1 not in hot][:2]
        tasks.append(cocotb.start_soon(page_program(env, issuer, p, ntrans, hot)))
    total = ntrans * NPAGES
    for frac, pause, stall in ((0.3, 0.2, 0.3), (0.55, 0.0, 0.0), (0.75, 0.0, 0.9),
                               (1.0, 0.5, 0.6)):
        env.set_pauses(pause)
        random_pause(env.sink, env.rng, stall)
        while env.progress < frac * total:
            await RisingEdge(dut.clk)
    for t in tasks:
        await t
    stop.set()
    await rd
    env.set_pauses(0.0)
    await env.drain()
    await read_everything(env)
    await env.drain()
    env.check_empty()
    cov = env.model.cov
    dut._log.info("cycles %d, B %d, new %d, R beats %d, held %d, coverage %s", env.cycle,
                  env.n_b, env.n_new, env.n_r, env.cluster.waiting(), dict(cov))
    for k in REFUSALS + BAD_DESC[:5] + ["D7_read_flags", "short_start", "long_start",
                                        "read_start", "rd_single", "rd_single_read_ch",
                                        "rd_coll", "rd_coll_read_ch", "rd_reg", "rd_err",
                                        "rd_bad", "skip_refused_line0", "skip_bad_desc",
                                        "skip_line1_refused", "cluster_hold",
                                        "cluster_start"]:
        if k == "R1_size" or k == "R2_burst":
            assert cov[k] > 0, f"coverage: {k} never happened"
        else:
            assert cov[k] >= 5, f"coverage: {k} happened {cov[k]} times"


async def raw_write(env, addr, awsize, beats, awid=0, burst=INCR):
    """A burst the AxiMaster will not build (AWSIZE above the bus width): drive its AW and
    W channel sources directly and register the response with the master's bookkeeping,
    as AxiMasterWrite._process_write does. Only while the master is idle."""
    m = env.master.write_if
    await m.wait()
    aw = AxiAWTransaction(awid=awid, awaddr=addr, awlen=len(beats) - 1, awsize=awsize,
                          awburst=burst)
    ev = Event()
    m.in_flight_operations += 1
    m.active_id[awid] += 1
    await m.aw_channel.send(aw)
    for k, (data, strb) in enumerate(beats):
        await m.w_channel.send(AxiWTransaction(wdata=data, wstrb=strb,
                                               wlast=int(k == len(beats) - 1)))
    m.tag_context_manager.start_cmd(awid, AxiWriteRespCmd(addr, 0, awsize, len(beats), 0,
                                                          [len(beats)], ev))
    await ev.wait()
    with warnings.catch_warnings():   # the master hands the response over in Event.data
        warnings.simplefilter("ignore", DeprecationWarning)
        return ev.data.resp


@cocotb.test()
async def hif_bad_inputs(dut):
    rng = seed_rng("hif_bad_inputs")
    env = Env(dut, rng, stall=0.0, p_done=0.0, p_ev=0.0)
    await env.reset()
    m = env.master
    db = env.db
    lb = db.bit_length() - 1
    model = env.model

    async def wr(addr, data, size=3, burst=INCR, exp=OKAY):
        r = await m.write(addr, data, size=size, burst=burst)
        assert int(r.resp) == exp, f"write {addr:#x} ({len(data)} bytes, size {size}, " \
                                   f"burst {burst}): {r.resp} != {exp}"

    async def desc(page, c, kind, exp=OKAY, size=3, long_=None):
        data = make_line(rng, kind, c)
        if long_ is not None:
            data = set_long(data, long_)
        await wr(F.desc_addr(page, c), data, size=size, exp=exp)
        return data

    async def err_reason(page, c):
        r = await m.read(F.err_addr(page, c), 8, size=3)
        assert r.resp == AxiResp.OKAY
        return int.from_bytes(r.data, "little")

    async def status(page, c):
        r = await m.read(F.status_addr(page, c), 8, size=3)
        assert r.resp == AxiResp.OKAY
        return int.from_bytes(r.data, "little")

    good = make_line(rng, "short", 0)
    # R1 size below 8 and above the bus width
    await wr(F.desc_addr(0, 0), good[:4], size=2, exp=SLVERR)
    await wr(F.desc_addr(0, 0), good[:8], size=2, exp=SLVERR)
    ones = (1 << db) - 1
    resp = await raw_write(env, F.desc_addr(0, 0), lb + 1,
                           [(int.from_bytes(good * 2, "little") & ((1 << 8 * db) - 1), ones)] * 2)
    assert int(resp) == SLVERR
    # R2 not INCR
    await wr(F.desc_addr(0, 1), good[:16], burst=FIXED, exp=SLVERR)
    await wr(F.desc_addr(0, 1), good, burst=WRAP, exp=SLVERR)
    # R3 unaligned, R4 strobes
    await wr(F.desc_addr(0, 2) + 4, good[:8], exp=SLVERR)
    await wr(F.desc_addr(0, 2) + 8, good[:8], size=4, exp=SLVERR)
    await wr(F.desc_addr(0, 3), good[:5], exp=SLVERR)
    await wr(F.desc_addr(0, 3), good[:12], size=4, exp=SLVERR)
    # R5 not a descriptor line
    for a in (F.err_addr(0, 100), F.coll_addr(1, 3), F.coll_addr(1, NCH // 32),
              F.status_addr(0, 5), F.status_addr(0, 70), F.coll_addr(0, 1), C["REG_BASE"],
              C["REG_BASE"] + 0x50, C["REG_BASE"] + 0x1000, F.page_base(2) + 0x1210,
              F.err_addr(3, NCH), F.page_base(15) + 0x1FF8):
        await wr(a, good[:8], exp=SLVERR)
    assert all(s == IDLE for s in model.st), "a refused beat changed a status"
    # R6 BUSY channel; second half of a BUSY long descriptor
    await desc(1, 4, "short")
    assert await status(1, 4) == BUSY
    await desc(1, 4, "short", exp=SLVERR)
    await desc(1, 6, "long")                      # line 0 ...
    await wr(F.desc_addr(1, 7), rng.randbytes(LINE))  # ... line 1: starts
    assert await status(1, 6) == BUSY
    await wr(F.desc_addr(1, 7), rng.randbytes(8), exp=SLVERR)
    await desc(1, 8, "short")
    await desc(1, 9, "short")                     # 8 is short: 9 is free
    # R7 page assembling another line
    d10 = make_line(rng, "short", 10)
    await wr(F.desc_addr(2, 10), d10[:8])
    await wr(F.desc_addr(2, 11), make_line(rng, "short", 11), exp=SLVERR)
    await wr(F.desc_addr(3, 11), make_line(rng, "short", 11))  # other page: fine
    await wr(F.desc_addr(2, 10) + 16, d10[16:24], size=3)
    await wr(F.desc_addr(2, 10) + 20, d10[20:24], exp=SLVERR)  # refused in the middle
    await wr(F.desc_addr(2, 10) + 8, d10[8:16])
    await wr(F.desc_addr(2, 10) + 24, d10[24:])
    assert await status(2, 10) == BUSY
    await desc(2, 12, "long")
    await wr(F.desc_addr(2, 14), make_line(rng, "short", 14), exp=SLVERR)
    await wr(F.desc_addr(2, 12), make_line(rng, "short", 12), exp=SLVERR)
    await wr(F.desc_addr(2, 13), rng.randbytes(LINE))
    assert await status(2, 12) == BUSY
    # D1..D6: SLVERR, status ERROR, not started
    for c, kind in ((20, "D1_zero"), (21, "D2_over"), (22, "D3_inline_gt32"),
                    (23, "D4_inline_no_long"), (25, "D5_long_odd")):
        assert await err_reason(4, c) == C["ERR_NONE"], kind
        await desc(4, c, kind, exp=SLVERR, long_=(kind == "D5_long_odd"))
        assert await status(4, c) == ERROR, kind
        assert await status(4, c) == IDLE, kind   # reset by the read
        assert await err_reason(4, c) == C["ERR_BAD_DESC"], kind
        assert await err_reason(4, c) == C["ERR_BAD_DESC"], kind   # not reset by a read
    await desc(4, 27, "short")
    await desc(4, 26, "long", exp=SLVERR)         # D6: c+1 BUSY
    assert await status(4, 26) == ERROR
    await desc(4, 26, "short")                    # after an ERROR: accepted
    # page 4 is free again: a good long descriptor in one burst
    await wr(F.desc_addr(4, 30), make_line(rng, "long", 30) + rng.randbytes(LINE),
             size=min(5, lb))
    await long_refused_whole(env, wr, desc, status, err_reason)
    await read_channels(env, wr, desc, status, err_reason)
    cov = model.cov
    for k in REFUSALS + BAD_DESC:
        assert cov[k] > 0, f"{k} not exercised"
    # completions and reads
    env.p_done = 1.0
    await env.complete_all()
    v = await m.read(C["REG_BASE"], 8 * NREGS, size=3)
    assert v.resp == AxiResp.OKAY
    regs = {name: int.from_bytes(v.data[off:off + 8], "little")
            for off, name in QOS_REGS}
    assert regs["ID"] & 0xFFFFFFFF == C["ID_MAGIC"]
    assert regs["CNT_DESC_OK"] == model.cnt["CNT_DESC_OK"] == cov["short_start"] + cov["long_start"]
    assert regs["CNT_DESC_ERR"] == sum(cov[k] for k in REFUSALS + BAD_DESC)
    for kind in range(4):   # reads that get SLVERR
        if kind == 0:
            r = await m.read(F.status_addr(0, 0), 4, size=2)
        elif kind == 1:
            r = await m.read(F.status_addr(0, 0), 16, size=3, burst=AxiBurstType.FIXED)
        elif kind == 2:
            r = await m.read(F.status_addr(0, 0) + 4, 8, size=3)
        else:
            r = await m.read(F.desc_addr(0, 0), 8, size=3)
        assert r.resp == AxiResp.SLVERR, kind
    await read_everything(env)
    await env.drain()
    env.check_empty()


async def long_refused_whole(env, wr, desc, status, err_reason):
    """A 64-byte descriptor is accepted or refused as a whole (docs/qos.md "Host port:
    precise rules", R8): every case with the expected BRESP per write, the status of both
    channels, and a descriptor in c+1 afterwards (the skip has ended). Pages 5..9."""
    rng, lb, model = env.rng, env.db.bit_length() - 1, env.model
    big = min(5, lb)

    def long0(c):
        return make_line(rng, "long", c)

    async def post_ok(page, c):
        await desc(page, c, "short")
        assert await status(page, c) == BUSY

    n_new = env.n_new + len(env.exp_new)
    # (a) c BUSY (short), c+1 IDLE: one 64-byte burst, then the same as word writes
    await post_ok(5, 2)
    await wr(F.desc_addr(5, 2), long0(2) + rng.randbytes(LINE), size=big, exp=SLVERR)
    assert await status(5, 3) == IDLE and await status(5, 2) == BUSY
    l0, l1 = long0(2), rng.randbytes(LINE)
    for c, line in ((2, l0), (3, l1)):               # 8-byte words in random order
        for w in rng.sample(range(4), 4):
            await wr(F.desc_addr(5, c) + 8 * w, line[8 * w:8 * w + 8], exp=SLVERR)
    assert await status(5, 3) == IDLE and await status(5, 2) == BUSY
    await post_ok(5, 3)                               # line 1 complete: the skip is over
    # (b) c BUSY with a long descriptor; (c) c and c+1 BUSY with short ones
    await desc(5, 4, "long")
    await wr(F.desc_addr(5, 5), rng.randbytes(LINE))
    assert await status(5, 4) == BUSY
    await wr(F.desc_addr(5, 4), long0(4) + rng.randbytes(LINE), size=big, exp=SLVERR)
    assert await status(5, 4) == BUSY and await status(5, 5) == IDLE
    await post_ok(5, 6)
    await post_ok(5, 7)
    await wr(F.desc_addr(5, 6), long0(6) + rng.randbytes(LINE), size=3, exp=SLVERR)
    assert await status(5, 6) == BUSY and await status(5, 7) == BUSY
    # (d) the page assembles another line: line 0 refused (R7), line 1 with it; the
    # other line is then completed
    d10 = make_line(rng, "short", 10)
    await wr(F.desc_addr(6, 10), d10[:8])
    await wr(F.desc_addr(6, 12), long0(12) + rng.randbytes(LINE), size=big, exp=SLVERR)
    await wr(F.desc_addr(6, 10) + 8, d10[8:])
    assert await status(6, 10) == BUSY
    assert await status(6, 12) == IDLE and await status(6, 13) == IDLE
    # ... and the other line is line 1 of the same channel (the descriptor sent again
    # while its line 1 is awaited): both are refused, the page is free after it
    l0 = long0(20)
    await wr(F.desc_addr(6, 20), l0)
    await wr(F.desc_addr(6, 20), l0 + rng.randbytes(LINE), size=big, exp=SLVERR)
    assert await status(6, 20) == IDLE and await status(6, 21) == IDLE
    await wr(F.desc_addr(6, 20), l0 + rng.randbytes(LINE), size=big)
    assert await status(6, 20) == BUSY and await status(6, 21) == IDLE
    # (e) beat errors in line 0: 4-byte beats (R1); bad strobes on word 3 (R4, the line
    # stays assembled: its line 1 is refused, then word 3 completes it)
    await wr(F.desc_addr(7, 8), long0(8), size=2, exp=SLVERR)
    await wr(F.desc_addr(7, 9), rng.randbytes(LINE), size=3, exp=SLVERR)
    assert await status(7, 8) == IDLE and await status(7, 9) == IDLE
    l0 = long0(8)
    await wr(F.desc_addr(7, 8), l0[:24])
    await wr(F.desc_addr(7, 8) + 24, l0[24:30], exp=SLVERR)
    await wr(F.desc_addr(7, 9), rng.randbytes(LINE), exp=SLVERR)
    await wr(F.desc_addr(7, 8) + 24, l0[24:])
    await wr(F.desc_addr(7, 9), rng.randbytes(LINE))
    assert await status(7, 8) == BUSY and await status(7, 9) == IDLE
    # (f) a bad long descriptor (size 0): ERROR for c with ERR_BAD_DESC, its line 1
    # refused, c+1 untouched
    bad = set_long(make_line(rng, "D1_zero", 30))
    await wr(F.desc_addr(8, 30), bad + rng.randbytes(LINE), size=big, exp=SLVERR)
    assert await status(8, 30) == ERROR and await status(8, 31) == IDLE
    assert await err_reason(8, 30) == C["ERR_BAD_DESC"]
    assert await err_reason(8, 31) == C["ERR_NONE"]
    await post_ok(8, 31)
    # (g) line 0 good, line 1 refused: word 1 of line 1 with short strobes; words 2, 3
    # refused with it; a write to c+1 is refused until a beat of the page is accepted
    l0 = long0(32)
    await wr(F.desc_addr(9, 32), l0)
    await wr(F.desc_addr(9, 33), rng.randbytes(8))
    await wr(F.desc_addr(9, 33) + 8, rng.randbytes(5), exp=SLVERR)
    await wr(F.desc_addr(9, 33) + 16, rng.randbytes(16), size=min(4, lb), exp=SLVERR)
    assert await status(9, 32) == IDLE and await status(9, 33) == IDLE
    await wr(F.desc_addr(9, 33), rng.randbytes(8), exp=SLVERR)   # word 1 missing: skipped
    await post_ok(9, 34)
    await post_ok(9, 33)
    # ... and line 1 refused then completed by the rest of its words: the skip ends there
    l0 = long0(40)
    await wr(F.desc_addr(9, 40), l0)
    await wr(F.desc_addr(9, 41), rng.randbytes(LINE), size=2, exp=SLVERR)   # carries none
    await wr(F.desc_addr(9, 41), rng.randbytes(LINE), size=3, exp=SLVERR)
    assert await status(9, 40) == IDLE and await status(9, 41) == IDLE
    await post_ok(9, 41)
    # nothing but the short descriptors above started
    assert env.n_new + len(env.exp_new) == n_new + 12
    for k in ("skip_refused_line0", "skip_bad_desc", "skip_line1_refused", "R8_skip"):
        assert model.cov[k] > 0, k


async def read_channels(env, wr, desc, status, err_reason):
    """Read channels (64..127) take read descriptors like write channels take theirs:
    short and long accepted (BUSY, a new transfer of xfer page * 128 + c), R6 on a BUSY
    one, D7 (is_inline or notify) refused at completion with ERR_BAD_DESC (a long one
    with its line 1), D1 like a write channel's; single, collective (groups 2 and 3) and
    error-reason reads with reset-on-read. Pages 10..12."""
    rng, lb, model, m = env.rng, env.db.bit_length() - 1, env.model, env.master
    big = min(5, lb)
    n_new = env.n_new + len(env.exp_new)
    await desc(10, 64, "short")
    await desc(10, 127, "short")
    assert await status(10, 64) == BUSY and await status(10, 127) == BUSY
    await desc(10, 64, "short", exp=SLVERR)                       # R6
    await wr(F.desc_addr(10, 100), make_line(rng, "long", 100) + rng.randbytes(LINE), size=big)
    assert await status(10, 100) == BUSY and await status(10, 101) == IDLE
    await wr(F.desc_addr(10, 101), rng.randbytes(8), exp=SLVERR)  # R6: half of a long one
    # D7: a read descriptor with is_inline, notify or both (a long one in an even channel
    # sets the skip record of c+1: the next channel is another pair's)
    for c in (70, 75, 96, 121):
        await desc(11, c, "D7_read_flags", exp=SLVERR)
        assert await status(11, c) == ERROR and await status(11, c) == IDLE
        assert await err_reason(11, c) == C["ERR_BAD_DESC"]
    # ... long (notify) in one burst: line 1 refused too, c+1 untouched
    bad = set_long(make_line(rng, "D7_read_flags", 110))
    await wr(F.desc_addr(11, 110), bad + rng.randbytes(LINE), size=big, exp=SLVERR)
    assert await status(11, 110) == ERROR and await status(11, 111) == IDLE
    assert await err_reason(11, 111) == C["ERR_NONE"]
    await desc(11, 111, "short")
    await desc(11, 72, "D1_zero", exp=SLVERR)
    # collective reads of groups 2 and 3 (channels 64..95, 96..127): states as the model
    # has them, then every DONE/ERROR reset
    await desc(12, 65, "short")
    await desc(12, 97, "D7_read_flags", exp=SLVERR)
    for g in (2, 3):
        r = await m.read(F.coll_addr(12, g), 8, size=3)
        v = int.from_bytes(r.data[:8], "little")
        exp = {2: BUSY << 2 * (65 - 64), 3: ERROR << 2 * (97 - 96)}[g]
        assert v == exp, f"group {g}: {v:#x} != {exp:#x}"
        r = await m.read(F.coll_addr(12, g), 8, size=3)
        v = int.from_bytes(r.data[:8], "little")
        assert v == (BUSY << 2 if g == 2 else 0), f"group {g} after the read: {v:#x}"
    assert env.n_new + len(env.exp_new) == n_new + 5
    for k in ("D7_read_flags", "read_start", "rd_single_read_ch", "rd_coll_read_ch"):
        assert model.cov[k] > 0, k


@cocotb.test()
async def hif_back_to_back(dut):
    rng = seed_rng("hif_back_to_back")
    env = Env(dut, rng, stall=0.0, p_done=0.0, p_ev=0.0)
    await env.reset()
    env.record = True
    page = rng.randrange(NPAGES)
    lines = []
    for c in range(WRCH):
        f = dict(src_addr=rng.getrandbits(64), dst_addr=rng.getrandbits(64), size=8,
                 is_inline=1, prio=rng.getrandbits(4), tag=rng.getrandbits(32))
        lines.append(L0.pack(**f).to_bytes(LINE, "little"))
    size = (env.db).bit_length() - 1
    tasks = [cocotb.start_soon(env.master.write(F.desc_addr(page, c), lines[c], size=size))
             for c in range(WRCH)]
    for t in tasks:
        assert (await t).resp == AxiResp.OKAY
    await env.drain()
    env.check_empty()
    assert env.n_new == WRCH
    t = env.trace
    aw = [k for k in sorted(t) if t[k]["aw"]]
    w = [k for k in sorted(t) if t[k]["w"]]
    nw = [k for k in sorted(t) if t[k]["nw"]]
    b = [k for k in sorted(t) if t[k]["b"]]
    beats = LINE // env.db
    dut._log.info("first AW %d, last AW %d, first W %d, last W %d, first new %d, last new %d",
                  aw[0], aw[-1], w[0], w[-1], nw[0], nw[-1])
    # one W beat per cycle; one AW, one B and one new transfer per descriptor (every cycle
    # at 256 bits, every other cycle at 128 bits: a descriptor is two beats)
    assert w[-1] - w[0] == WRCH * beats - 1 and len(w) == WRCH * beats, f"W not back to back: {w}"
    for name, ks in (("B", b), ("new", nw)) + ((("AW", aw),) if beats == 1 else ()):
        assert len(ks) == WRCH and all(y - x == beats for x, y in zip(ks, ks[1:])), \
            f"{name} not at one per descriptor: {ks}"
    # (at 128 bits the AW FIFO takes addresses ahead of their data: only their count)
    assert len(aw) == WRCH
    # W beat -> new_valid: 3 cycles (W1 decision, W2 push, FIFO); first AW -> first W: 2
    # cycles (AW FIFO, next-beat register)
    assert w[0] - aw[0] == 2
    assert nw[-1] - w[-1] == 3
    # first AW to last new_valid: 2 (AW -> first W) + 64 x beats - 1 (the other W beats,
    # back to back) + 3 (W -> new_valid) = 68 at 256 bits, 132 at 128
    assert nw[-1] - aw[0] == WRCH * beats + 4, nw[-1] - aw[0]


# ====================================================================== pytest
CONFIGS = [
    # DATA_W, ID_W, BLOCK_SIZE, MAX_OUTSTANDING, EXT_PARAMS (PARAMS bits 63:32)
    (256, 4, 65536, 2, 0),
    (128, 4, 8192, 4, 0x7A5C_0B0C),
]


@pytest.mark.parametrize("data_w,id_w,block_size,max_out,ext", CONFIGS)
def test_qrdma_host_if(data_w, id_w, block_size, max_out, ext):
    from simrun import full, run

    p = {"DATA_W": data_w, "ID_W": id_w, "BLOCK_SIZE": block_size, "MAX_OUTSTANDING": max_out,
         "EXT_PARAMS": ext}
    env = {f"P_{k}": str(v) for k, v in p.items()}
    env["P_TRANS"] = str(1200 if full() else 120)
    run("qrdma_host_if", "test_qrdma_host_if", p, extra_env=env,
        inner={"qrdma_host_rd": ["b_go"]})   # (a read taken: the monitor's read=)
