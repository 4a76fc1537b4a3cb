# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_host_rd, the read path of the host port ([QoS-RDMA] §3.4, §3.6; docs/qos.md "Host
port modules"), alone: driven by cocotbext-axi's AxiMasterRead and checked cycle by cycle
against the host-port model (tests/model/host_model.py; stimulus: tests/host/host_stim.py).

The storage the path reads is played by a second instance of the model (`store`): in the
ReadWrite phase of every cycle it answers sr_rd_row and ext_rd_addr with its state at the
start of the cycle (and err_rd_addr under err_rd_en from the next cycle on: a registered
read), and at the end of the cycle it applies the read reset the
path asked for (sr_rd_*), random status updates (host sets, engine completions with their
error reasons) and random changes of the external registers. The reference model sees the
same updates a cycle later, with the read resets it predicts; the event inputs (desc_ok,
desc_err, eng_ev) pulse at random.

The monitor finds the cycle k in which a beat was read (it moved from the beat register
into the answer register: the path's b_go) and the cycle in which a beat was loaded into
the R register (rvalid in k+1, and R empty or taken in k), and compares:
  - the beat (RDATA on every 64-bit lane, RRESP, RLAST, RID) with the model's read in the
    cycle it was read: status (single, collective), error reason, ID / PARAMS / event
    counters, external registers, SLVERR for every other form or address;
  - the status read request of k (sr_rd_valid, row, single, sel) with the model's, and no
    request in a cycle without a read;
  - ARREADY low while store_ready is low;
  - no beat of the register window read in a cycle with ext_wr_busy (driven at random:
    the write path's external register writes), and such beats do wait (coverage).
At the end every read burst must have all its beats, and the store must equal the model.

  rd_random   random reads (single and collective status, bursts over several status
              addresses, error reasons, registers, the external window up to past its
              end, bad forms), dense and sparse; random idle/backpressure on AR and R;
              store_ready low after reset and in short random stretches; then every row,
              every error reason and every register once.
"""
import collections
import logging
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import Event, ReadOnly, ReadWrite, RisingEdge
from cocotbext.axi import AxiMasterRead, AxiReadBus

from seeding import seed_rng
from host.host_stim import read_everything, read_program
from model.host_model import (BUSY, DONE, ERROR, EV_NAMES, NCH, NPAGES, SLVERR, WRCH, C,
                              HostIfModel)


class RdEnv:
    """DUT + AxiMasterRead + storage (a model instance) + event source + monitor."""

    def __init__(self, dut, rng):
        self.dut = dut
        self.rng = rng
        self.data_w = int(os.environ["P_DATA_W"])
        self.db = self.data_w // 8
        self.id_w = int(os.environ["P_ID_W"])
        self.ext_span = int(os.environ["P_EXT_SPAN"])
        cnt_w = 48   # counter bits (regs/qrdma_regs.rdl)
        args = (self.db, int(os.environ["P_BLOCK_SIZE"]), int(os.environ["P_MAX_OUTSTANDING"]),
                self.data_w, cnt_w, int(os.environ["P_EXT_PARAMS"]))
        # external registers: a random map of readable offsets, values changed at random
        offs = range(C["NIC_REG_FIRST"], self.ext_span, 8)
        self.ext_store = {off: rng.getrandbits(64) for off in offs if rng.random() < 0.6}
        self.ext_model = dict(self.ext_store)
        self.store = HostIfModel(*args, ext_span=self.ext_span)
        self.model = HostIfModel(*args, ext_span=self.ext_span, ext_rd=self.ext_model.get)
        # a few rows see every status change, so that reads meet them: two of write
        # channels, two of read channels (row page * 4 + g: g = 2, 3 are read channels)
        rows = range(NPAGES * NCH // 32)
        self.hot = [32 * r + i
                    for r in rng.sample([r for r in rows if 32 * (r % (NCH // 32)) < WRCH], 2)
                    + rng.sample([r for r in rows if 32 * (r % (NCH // 32)) >= WRCH], 2)
                    for i in range(32)]
        cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
        dut.store_ready.value = 0
        dut.sr_rd_data.value = 0
        dut.err_rd_data.value = 0
        dut.ext_rd_data.value = 0
        dut.ext_rd_err.value = 1
        dut.ext_wr_busy.value = 0
        dut.desc_ok.value = 0
        dut.desc_err.value = 0
        dut.eng_ev.value = 0
        self.rmaster = AxiMasterRead(AxiReadBus.from_prefix(dut, "s_axi"), dut.clk, dut.rst)
        for name in list(logging.root.manager.loggerDict):
            if name.startswith(f"cocotb.{dut._name}.s_axi"):
                logging.getLogger(name).setLevel(logging.WARNING)
        self.rmaster.log.setLevel(logging.WARNING)
        self.p_ev = 0.3           # each event input pulses with this probability
        self.p_chg = 0.3          # a status update per cycle
        self.p_ext_chg = 0.2      # an external register changes its value
        self.p_wr_busy = 0.2      # the write path writes an external register this cycle
        self.n_held = 0           # cycles a register-window beat waited for ext_wr_busy
        self.exp_r = collections.deque()   # beats read, not yet loaded into R
        self.err_next = None      # the error reason read, shown from the next cycle on
        self.p_unready = 0.0      # store_ready falls for a few cycles
        self.cycle = 0
        self.prev = None
        self.ar_q = collections.deque()
        self.ar_beat = 0
        self.n_r = 0
        self.n_cleared = 0        # DONE / ERROR channels a read reset to IDLE
        self.n_cleared_rd = 0     # ... of them read channels

    async def reset(self):
        self.dut.rst.value = 1
        for _ in range(3):
            await RisingEdge(self.dut.clk)
        self.dut.rst.value = 0
        cocotb.start_soon(self._respond())
        cocotb.start_soon(self._events())
        cocotb.start_soon(self._monitor())
        cocotb.start_soon(self._store_ready())

    def set_pauses(self, p):
        """Random idle/backpressure on AR and R (p = probability of a pause)."""
        def gen():
            while True:
                yield self.rng.random() < p
        for ch in (self.rmaster.ar_channel, self.rmaster.r_channel):
            if p > 0:
                ch.set_pause_generator(gen())
            else:
                ch.clear_pause_generator()
                ch.pause = False

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

    async def _events(self):
        dut = self.dut
        while True:
            await RisingEdge(dut.clk)
            dut.desc_ok.value = int(self.rng.random() < self.p_ev)
            dut.desc_err.value = int(self.rng.random() < self.p_ev)
            dut.eng_ev.value = sum(int(self.rng.random() < self.p_ev) << i for i in range(7))

    async def _respond(self):
        """The storage answers the addresses the path drives (from its registers and its
        AR FIFO head) once the cycle's inputs are settled: state at the start of the cycle;
        an unmapped external register answers an error with junk data."""
        dut = self.dut
        st, reason = self.store.st, self.store.reason
        while True:
            await RisingEdge(dut.clk)
            if self.err_next is not None:
                dut.err_rd_data.value = self.err_next
                self.err_next = None
            dut.ext_wr_busy.value = int(self.rng.random() < self.p_wr_busy)
            await ReadWrite()
            base = 32 * int(dut.sr_rd_row.value)
            dut.sr_rd_data.value = sum(st[base + i] << (2 * i) for i in range(32))
            # the error reason is a registered read: the value at the start of the cycle
            # of err_rd_en, on err_rd_data from the next cycle on
            if int(dut.err_rd_en.value):
                self.err_next = reason[int(dut.err_rd_addr.value)]
            off = int(dut.ext_rd_addr.value)
            dut.ext_rd_err.value = int(off not in self.ext_store)
            dut.ext_rd_data.value = self.ext_store.get(off, self.rng.getrandbits(64))

    # ---------------------------------------------------------------- monitor
    def _sample(self):
        d = self.dut
        v = lambda s: int(s.value)  # noqa: E731
        r = dict(ar=None, r=None, rvalid=v(d.s_axi_rvalid), rready=v(d.s_axi_rready),
                 sr=None, ev=(v(d.desc_ok), v(d.desc_err), v(d.eng_ev)),
                 store_ready=v(d.store_ready), arready=v(d.s_axi_arready),
                 busy=v(d.ext_wr_busy), read=v(d.b_go), a_valid=v(d.a_valid_q),
                 b_free=int(not v(d.b_valid_q) or (v(d.s_axi_rready) or not v(d.s_axi_rvalid))))
        if v(d.s_axi_arvalid) and v(d.s_axi_arready):
            r["ar"] = (v(d.s_axi_arid), v(d.s_axi_araddr), v(d.s_axi_arlen),
                       v(d.s_axi_arsize), v(d.s_axi_arburst))
        if r["rvalid"]:
            r["r"] = (v(d.s_axi_rid), v(d.s_axi_rdata), v(d.s_axi_rresp), v(d.s_axi_rlast))
        if v(d.sr_rd_valid):
            r["sr"] = (v(d.sr_rd_row), v(d.sr_rd_single), v(d.sr_rd_sel))
        return r

    async def _monitor(self):
        while True:
            await RisingEdge(self.dut.clk)
            await ReadOnly()
            self.cycle += 1
            cur = self._sample()
            self._store_step(cur)
            if self.prev is not None:
                self._process(self.prev, cur)
            self.prev = cur

    def _store_step(self, rec):
        """End of this cycle in the storage: the read reset the path asked for and this
        cycle's random updates (recorded for the model, which applies them a cycle later)."""
        rng = self.rng
        host = eng = ext = None
        if rng.random() < self.p_chg:
            host = (rng.choice(self.hot), rng.choice([BUSY, BUSY, BUSY, ERROR]))
        if rng.random() < self.p_chg:
            busy = [ch for ch in self.hot if self.store.st[ch] == BUSY]
            if busy:
                eng = (rng.choice(busy), rng.random() < 0.4, rng.randrange(16))
        if self.ext_store and rng.random() < self.p_ext_chg:
            ext = (rng.choice(list(self.ext_store)), rng.getrandbits(64))
            self.ext_store[ext[0]] = ext[1]
        rec["chg"] = (host, eng, ext)
        reset = ()
        if rec["sr"] is not None:
            row, single, sel = rec["sr"]
            reset = (32 * row + sel,) if single else tuple(range(32 * row, 32 * row + 32))
            self.n_cleared += sum(self.store.st[ch] in (DONE, ERROR) for ch in reset)
            self.n_cleared_rd += sum(self.store.st[ch] in (DONE, ERROR) for ch in reset
                                     if ch % NCH >= WRCH)
        self.store.end_of_cycle(host, eng, reset)

    def _process(self, rec, nxt):
        """Model cycle k (rec), knowing cycle k+1 (nxt): was an R beat loaded in k?"""
        m = self.model
        k = self.cycle - 1
        if not rec["store_ready"]:
            assert not rec["arready"], f"cycle {k}: ARREADY while store_ready is low"
        if rec["ar"]:
            self.ar_q.append(rec["ar"])
        rd_reset = ()
        read = rec["read"]
        if rec["busy"] and rec["a_valid"] and self.ar_q and self._in_window(self.ar_q[0], self.ar_beat):
            assert not read, f"cycle {k}: register-window beat read while ext_wr_busy"
            self.n_held += rec["b_free"]
        if read:
            assert self.ar_q, f"cycle {k}: beat read without a read burst"
            ar = self.ar_q[0]
            val, resp, rd_reset = m.read(ar, self.ar_beat)
            last = self.ar_beat == ar[2]
            exp = 0 if resp else sum(val << (64 * j) for j in range(self.data_w // 64))
            self.exp_r.append((ar[0], exp, resp, int(last), self.ar_beat, ar))
            if resp == SLVERR:
                rd_reset = ()
            if last:
                self.ar_q.popleft()
                self.ar_beat = 0
            else:
                self.ar_beat += 1
        if nxt["rvalid"] and (not rec["rvalid"] or rec["rready"]):
            assert self.exp_r, f"cycle {k}: R beat loaded without a read"
            rid, exp, resp, last, beat, ar = self.exp_r.popleft()
            assert nxt["r"] == (rid, exp, resp, last), \
                f"cycle {k}: R beat {beat} of {ar}: {nxt['r']} != {(rid, exp, resp, last)}"
            self.n_r += 1
        # the status read request of the read
        exp_sr = None
        if len(rd_reset) == 1:
            exp_sr = (rd_reset[0] // 32, 1, rd_reset[0] % 32)
        elif rd_reset:
            exp_sr = (rd_reset[0] // 32, 0, None)
        got_sr = rec["sr"]
        if got_sr is not None and exp_sr is not None and exp_sr[1] == 0:
            got_sr = got_sr[:2] + (None,)      # sel does not matter for a collective read
        assert got_sr == exp_sr, f"cycle {k}: status read request {rec['sr']} != {exp_sr}"
        # end of cycle k: the storage's updates, then the events of k
        host, eng, ext = rec["chg"]
        m.end_of_cycle(host, eng, rd_reset)
        if ext is not None:
            self.ext_model[ext[0]] = ext[1]
        desc_ok, desc_err, ev = rec["ev"]
        m.cnt_now = ["CNT_DESC_OK"] * desc_ok + ["CNT_DESC_ERR"] * desc_err
        m.events(ev)

    def _in_window(self, ar, beat: int) -> bool:
        """Beat `beat` of burst `ar` is in the register window REG_BASE .. + EXT_SPAN - 1."""
        addr = ar[1] if beat == 0 else (ar[1] & ~7) + 8 * beat
        return addr // self.ext_span == C["REG_BASE"] // self.ext_span

    # ---------------------------------------------------------------- end of test
    async def drain(self):
        await self.rmaster.wait()
        for _ in range(4):
            await RisingEdge(self.dut.clk)

    async def check_empty(self):
        """(The model runs a cycle behind the storage: stop the updates and let it catch up.)"""
        self.p_chg = self.p_ext_chg = self.p_wr_busy = 0.0
        for _ in range(4):
            await RisingEdge(self.dut.clk)
        assert not self.ar_q, f"read bursts without all their beats: {list(self.ar_q)[:4]}"
        assert not self.exp_r, f"beats read but not returned: {list(self.exp_r)[:4]}"
        assert self.store.st == self.model.st, "status: the storage and the model differ"
        assert self.store.reason == self.model.reason, \
            "error reasons: the storage and the model differ"


@cocotb.test()
async def rd_random(dut):
    rng = seed_rng("rd_random")
    env = RdEnv(dut, rng)
    await env.reset()
    ncycles = int(os.environ.get("P_CYCLES", "6000"))
    stop = Event()
    # phases (fraction of the cycles, AXI pause probability, store_ready drop probability,
    # read issue probability per cycle)
    phases = ((0.3, 0.2, 0.01, 0.3), (0.5, 0.0, 0.0, 1.0), (0.8, 0.5, 0.02, 0.5),
              (1.0, 0.0, 0.0, 0.1))
    start = env.cycle
    for frac, pause, unready, p_issue in phases:
        env.set_pauses(pause)
        env.p_unready = unready
        stop.clear()
        task = cocotb.start_soon(read_program(env, stop, p_issue=p_issue, p_ext=0.2,
                                              ext_span=env.ext_span))
        while env.cycle - start < frac * ncycles:
            await RisingEdge(dut.clk)
        stop.set()
        await task
    env.set_pauses(0.0)
    env.p_unready = 0.0
    await env.drain()
    await read_everything(env)
    await env.drain()
    await env.check_empty()
    cov = env.model.cov
    dut._log.info("cycles %d, R beats %d, channels cleared by reads %d, register-window "
                  "beats held by writes %d, coverage %s",
                  env.cycle, env.n_r, env.n_cleared, env.n_held, dict(cov))
    for k in ("rd_single", "rd_coll", "rd_err", "rd_reg", "rd_ext", "rd_bad",
              "rd_single_read_ch", "rd_coll_read_ch"):
        assert cov[k] >= 20, f"coverage: {k} happened {cov[k]} times"
    assert env.n_cleared >= 20, f"coverage: reads cleared {env.n_cleared} channels"
    assert env.n_cleared_rd >= 5, f"coverage: reads cleared {env.n_cleared_rd} read channels"
    assert env.n_held >= 20, f"coverage: register-window beats held by writes {env.n_held}"
    assert all(env.model.cnt[n] > 0 for n in EV_NAMES)


# ====================================================================== pytest
CONFIGS = [
    # DATA_W, ID_W, BLOCK_SIZE, MAX_OUTSTANDING, EXT_SPAN, EXT_PARAMS
    (256, 4, 65536, 2, 4096, 0),
    (128, 1, 8192, 4, 8192, 0x7A5C_0B0C),
]


@pytest.mark.parametrize("data_w,id_w,block_size,max_out,ext_span,ext", CONFIGS)
def test_qrdma_host_rd(data_w, id_w, block_size, max_out, ext_span, ext):
    from simrun import full, run

    p = {"DATA_W": data_w, "ID_W": id_w, "BLOCK_SIZE": block_size,
         "MAX_OUTSTANDING": max_out, "EXT_SPAN": ext_span, "EXT_PARAMS": ext}
    env = {f"P_{k}": str(v) for k, v in p.items()}
    env["P_CYCLES"] = str(60000 if full() else 6000)
    run("qrdma_host_rd", "test_qrdma_host_rd", p, extra_env=env)
