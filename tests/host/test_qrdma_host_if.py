# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_host_if (seed 000 §3.6, docs/qos.md "Descriptors and their acceptance") driven by
cocotbext-axi's AxiMaster, against a cycle-by-cycle reference model of the address map,
the acceptance rules, the status registers and the counters (layouts and addresses from
tools.formats).

A monitor samples every port each cycle; the model runs one cycle behind it and predicts
  - the decision of every W beat in the cycle after its handshake: the transfer-table
    write (row, byte enables, bytes; compared every cycle), the status update, the new
    transfer, the counters, and the B response of every burst (compared in order);
  - every R beat (value, RRESP, RLAST, RID): a beat reads the status (or error reason) in
    the cycle before it becomes visible on R (docs: "Read path");
  - the new-transfer stream: its fields, and the table bytes of the descriptor it starts.
A fake engine completes started transfers at random times (st_valid, st_err with a random
st_reason) and pulses ev.

  hif_random        16 page programs interleaved: descriptors in 8/16/32-byte words in
                    random order, multi-beat bursts, long descriptors (also to BUSY
                    channels, bad ones, with refused beats in either line), word rewrites,
                    bad fields, bad beats of every kind, conflicting lines, writes to BUSY
                    channels; random reads (status, error reasons, registers); random
                    idle/backpressure on every AXI channel and on new_ready. Every refusal
                    reason must occur.
  hif_bad_inputs    every refusal rule and every bad-descriptor rule once, in isolation,
                    with the expected BRESP asserted per write and the status/counters/error
                    reasons read; a long descriptor refused as a whole in every way (R8)
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
from cocotbext.axi.axi_master import AxiWriteRespCmd

from handshake import StreamSink, seed_rng
from tools import formats as F

C = F.C
L0 = F.DESC_LINE0
IDLE, BUSY, DONE, ERROR = C["ST_IDLE"], C["ST_BUSY"], C["ST_DONE"], C["ST_ERROR"]
NPAGES, WRCH = C["NUM_PAGES"], C["WR_CH_PER_PAGE"]
LINE = C["DESC_LINE_BYTES"]
ADDR_SPACE = 1 << C["ADDR_W"]
INCR, FIXED, WRAP = 1, 0, 2
OKAY, SLVERR = 0, 2
# the QoS engine's registers (the host port's); NIC registers from NIC_REG_FIRST on are
# served elsewhere: the host port answers them with SLVERR
QOS_REGS = [(off, name) for off, name, _, _ in F.REGISTERS
            if off < C.get("NIC_REG_FIRST", 1 << 32)]
REG_NAMES = dict(QOS_REGS)
NREGS = len(QOS_REGS)
assert [off for off, _ in QOS_REGS] == [8 * k for k in range(NREGS)]
EV_NAMES = ["CNT_BLOCKS", "CNT_INLINE", "CNT_CONTROL", "CNT_ACK", "CNT_NACK", "CNT_STALE",
            "CNT_DONE"]  # ev[0..6]
REFUSALS = ["R1_size", "R2_burst", "R3_align", "R4_strobe", "R5_address", "R6_busy",
            "R7_conflict", "R8_skip"]
LONG_LSB = L0.field("long_desc").lsb          # long_desc: bit 3 of line byte 24
FULL = (1 << (LINE // 8)) - 1                 # the four words of a line
BAD_DESC = ["D1_zero", "D2_over", "D3_inline_gt32", "D4_inline_no_long", "D5_long_odd",
            "D6_long_busy"]


# ====================================================================== reference model
def decode(addr):
    """What an address is (docs/formats.md)."""
    if addr >= C["REG_BASE"]:
        return ("reg", addr - C["REG_BASE"])
    if addr >= NPAGES * C["PAGE_STRIDE"]:
        return ("none",)
    page, off = divmod(addr, C["PAGE_STRIDE"])
    if 0 <= off - C["DESC_OFFSET"] < WRCH * LINE:
        return ("desc", page, (off - C["DESC_OFFSET"]) // LINE)
    if 0 <= off - C["STATUS_OFFSET"] < WRCH * 8:
        return ("single", page, (off - C["STATUS_OFFSET"]) // 8)
    if 0 <= off - C["COLL_OFFSET"] < (WRCH // 32) * 8:
        return ("coll", page, (off - C["COLL_OFFSET"]) // 8)
    if 0 <= off - C["ERR_OFFSET"] < WRCH * 8:
        return ("err", page, (off - C["ERR_OFFSET"]) // 8)
    return ("none",)


def beat_addr(addr, size, i):
    """Address of beat i of an INCR burst (AXI: later beats aligned to the size)."""
    if i == 0:
        return addr
    return ((addr & ~((1 << size) - 1)) + i * (1 << size)) % ADDR_SPACE


class HostIfModel:
    """What the host port must do; the caller steps it cycle by cycle (no simulator)."""

    def __init__(self, db, block_size, max_out, data_w, cnt_w, ext_params=0):
        self.db = db
        self.st = [IDLE] * (NPAGES * WRCH)          # status, index page*64 + c
        self.reason = [C["ERR_NONE"]] * (NPAGES * WRCH)   # ERR_* of the last ERROR
        self.lng = [False] * (NPAGES * WRCH)        # long flag of a started descriptor
        self.pages = [dict(act=False, line1=False, chan=0, mask=0) for _ in range(NPAGES)]
        # skip record: (c, words of line 1 seen) while line 1 of a refused long descriptor
        # of channel c is expected in c+1 (its beats are refused), else None
        self.skip = [None] * NPAGES
        self.table = collections.defaultdict(lambda: bytearray(2 * LINE))  # row -> bytes
        self.cnt = {name: 0 for _, name in QOS_REGS if name.startswith("CNT_")}
        self.cnt_mask = (1 << cnt_w) - 1
        self.regs_fixed = {
            "ID": F.ID_REG.pack(magic=C["ID_MAGIC"], version=F.FORMAT_VERSION),
            "PARAMS": F.PARAMS_REG.pack(block_log2=block_size.bit_length() - 1,
                                        max_outstanding=max_out, data_w=data_w)
                      | (ext_params << 32),
        }
        self.cov = collections.Counter()
        self.pending = None   # status update of the previous decision (applied a cycle later)
        self.cnt_now = []     # counter events of this cycle's decision
        self.cnt_prev = []    # events of the previous cycle: counted at the end of this one

    def view(self, ch):
        """Status as the decision sees it: the previous decision's update forwarded."""
        if self.pending is not None and self.pending[0] == ch:
            return self.pending[1]
        return self.st[ch]

    # ---------------------------------------------------------------- writes
    def carried(self, a, burst, wdata, wstrb):
        """What a beat at address a carries of its line by its strobes: the mask of words
        with all 8 strobes, and whether it writes long_desc = 1 (lane k = line byte
        (a mod 32) - (a mod DB) + k; INCR bursts only)."""
        if burst != INCR:
            return 0, False
        sl = (a % LINE) - (a % self.db) if self.db < LINE else 0
        words = 0
        for w in range(LINE // 8):
            k = 8 * w - sl
            if 0 <= k and k + 8 <= self.db and (wstrb >> k) & 0xFF == 0xFF:
                words |= 1 << w
        k = LONG_LSB // 8 - sl
        lng = 0 <= k < self.db and bool((wstrb >> k) & 1) \
            and bool((wdata >> (8 * k + LONG_LSB % 8)) & 1)
        return words, lng

    def decide(self, aw, i, wdata, wstrb):
        """Decision for beat i of burst aw = (id, addr, len, size, burst). Mutates the page
        state, the table, the long flags and the CNT_DESC_* counters; returns a dict with
        the table write, the status update (applied by the caller) and the new transfer."""
        awid, addr, alen, size, burst = aw
        nb = 1 << size
        d = dict(tt=None, host=None, new=None, err=False, last=(i == alen), id=awid)
        a = beat_addr(addr, size, i)
        lane = a % self.db
        what = decode(a)
        reason = None
        if size < 3 or nb > self.db:
            reason = "R1_size"
        elif burst != INCR:
            reason = "R2_burst"
        elif a % nb:
            reason = "R3_align"
        elif wstrb != ((1 << nb) - 1) << lane:
            reason = "R4_strobe"
        elif what[0] != "desc":
            reason = "R5_address"
        desc = what[0] == "desc"
        skip_hit = False
        if desc:
            page, c = what[1], what[2]
            ch = page * WRCH + c
            pg = self.pages[page]
            sk = self.skip[page]
            skip_hit = sk is not None and c == sk[0] + 1
        if reason is None:
            if self.view(ch) == BUSY or (c % 2 and self.view(ch - 1) == BUSY and self.lng[ch - 1]):
                reason = "R6_busy"
            elif pg["act"] and c != (pg["chan"] | 1 if pg["line1"] else pg["chan"]):
                reason = "R7_conflict"
        if skip_hit:
            reason = "R8_skip"
        if reason is not None:
            self.cov[reason] += 1
            d["err"] = True
            self.cnt_now.append("CNT_DESC_ERR")
            if desc:
                self._refused_line_beat(page, c, skip_hit, *self.carried(a, burst, wdata, wstrb))
            return d
        # accepted: bytes into the table; the page's skip record ends
        self.skip[page] = None
        self.cov["beat_ok"] += 1
        xfer = page * C["CH_PER_PAGE"] + c
        row = xfer >> 1
        off = (c % 2) * LINE + (a % LINE)
        data = bytes((wdata >> (8 * (lane + k))) & 0xFF for k in range(nb))
        self.table[row][off:off + nb] = data
        d["tt"] = (row, ((1 << nb) - 1) << off, data, off)
        words = ((1 << (nb // 8)) - 1) << ((a % LINE) // 8)
        line1 = pg["act"] and pg["line1"]
        mask = (pg["mask"] if pg["act"] else 0) | words
        if mask != FULL:
            if not pg["act"]:
                pg.update(act=True, line1=False, chan=c)
            pg["mask"] = mask
            return d
        if line1:
            c0 = pg["chan"]
            self.cov["long_start"] += 1
            return self._start(d, page, c0, True)
        f = L0.unpack(int.from_bytes(self.line(page, c), "little"))
        size_ = f["size"]
        bad = None
        if size_ == 0:
            bad = "D1_zero"
        elif size_ > C["MAX_TRANSFER_BYTES"]:
            bad = "D2_over"
        elif f["is_inline"] and size_ > C["INLINE_MAX"]:
            bad = "D3_inline_gt32"
        elif f["is_inline"] and size_ > C["INLINE_SHORT_MAX"] and not f["long_desc"]:
            bad = "D4_inline_no_long"
        elif f["long_desc"] and c % 2:
            bad = "D5_long_odd"
        elif f["long_desc"] and self.view(ch + 1) == BUSY:
            bad = "D6_long_busy"
        if bad is not None:
            self.cov[bad] += 1
            pg["act"] = False
            d["err"] = True
            d["host"] = (ch, ERROR)
            self.cnt_now.append("CNT_DESC_ERR")
            if f["long_desc"] and c % 2 == 0:
                self.cov["skip_bad_desc"] += 1
                self.skip[page] = (c, 0)
            return d
        if f["long_desc"]:
            pg.update(act=True, line1=True, chan=c, mask=0)
            return d
        self.cov["short_start"] += 1
        return self._start(d, page, c, False)

    def _refused_line_beat(self, page, c, skip_hit, words, lng):
        """The skip rules for a refused beat addressed to write channel c of page (docs:
        "Host port: precise rules")."""
        pg = self.pages[page]
        sk = self.skip[page]
        abandon = pg["act"] and pg["line1"] and c == pg["chan"] | 1
        if c % 2 == 0 and lng:                   # a refused line 0 of a long descriptor
            self.cov["skip_refused_line0"] += 1
            self.skip[page] = (c, 0)
        elif skip_hit:
            m = sk[1] | words
            self.skip[page] = (sk[0], m) if m != FULL else None
        elif abandon:                            # a refused beat of line 1
            self.cov["skip_line1_refused"] += 1
            m = pg["mask"] | words
            self.skip[page] = (pg["chan"], m) if m != FULL else None
        if abandon:
            self.cov["line1_abandoned"] += 1
            pg["act"] = False

    def _start(self, d, page, c, long_):
        ch = page * WRCH + c
        f = L0.unpack(int.from_bytes(self.line(page, c), "little"))
        self.pages[page]["act"] = False
        if c % 2 == 0:
            self.lng[ch] = long_
        d["host"] = (ch, BUSY)
        d["new"] = dict(xfer=page * C["CH_PER_PAGE"] + c, size=f["size"],
                        inline=f["is_inline"], multipath=f["multipath"], prio=f["prio"],
                        long=long_)
        self.cnt_now.append("CNT_DESC_OK")
        return d

    def line(self, page, c):
        row = (page * C["CH_PER_PAGE"] + c) >> 1
        return bytes(self.table[row][(c % 2) * LINE:(c % 2 + 1) * LINE])

    # ---------------------------------------------------------------- reads
    def read(self, ar, i):
        """Beat i of read burst ar: (value, rresp, reset) where reset = (chs) to clear."""
        arid, addr, alen, size, burst = ar
        a = beat_addr(addr, size, i)
        what = decode(a)
        if size != 3 or burst != INCR or a % 8:
            self.cov["rd_bad"] += 1
            return 0, SLVERR, ()
        if what[0] == "single":
            ch = what[1] * WRCH + what[2]
            self.cov["rd_single"] += 1
            return self.st[ch], OKAY, (ch,)
        if what[0] == "coll":
            base = what[1] * WRCH + 32 * what[2]
            self.cov["rd_coll"] += 1
            v = sum(self.st[base + k] << (2 * k) for k in range(32))
            return v, OKAY, tuple(range(base, base + 32))
        if what[0] == "err":
            self.cov["rd_err"] += 1
            return self.reason[what[1] * WRCH + what[2]], OKAY, ()
        if what[0] == "reg" and what[1] in REG_NAMES:
            name = REG_NAMES[what[1]]
            self.cov["rd_reg"] += 1
            v = self.regs_fixed[name] if name in self.regs_fixed else self.cnt[name]
            return v & ((1 << 64) - 1), OKAY, ()
        self.cov["rd_bad"] += 1
        return 0, SLVERR, ()

    # ---------------------------------------------------------------- end of a cycle
    def end_of_cycle(self, host, eng, rd_reset):
        """Apply one cycle's status updates: host set (of the previous cycle's decision) >
        engine set > read reset; `host` (this cycle's decision) is applied next cycle. The
        error reasons are written with them: ERR_BAD_DESC by a host ERROR, the engine's
        reason by every engine ERROR (st_err)."""
        host, self.pending = self.pending, host
        new = {}
        for ch in rd_reset:
            if self.st[ch] in (DONE, ERROR):
                new[ch] = IDLE
        if eng is not None:
            ch, err, why = eng
            if self.st[ch] == BUSY:
                new[ch] = ERROR if err else DONE
            if err:
                self.reason[ch] = why
        if host is not None:
            new[host[0]] = host[1]
            if host[1] == ERROR:
                self.reason[host[0]] = C["ERR_BAD_DESC"]
        for ch, v in new.items():
            self.st[ch] = v

    def events(self, ev):
        """End of a cycle: the counters take the previous cycle's events (the host port
        registers them first) and this cycle's wait for the next."""
        for name in self.cnt_prev:
            self.cnt[name] = (self.cnt[name] + 1) & self.cnt_mask
        self.cnt_prev = self.cnt_now + [name for k, name in enumerate(EV_NAMES) if (ev >> k) & 1]
        self.cnt_now = []


# ====================================================================== test bench
class Env:
    """DUT + AxiMaster + new_ready sink + fake engine + monitor/scoreboard."""

    def __init__(self, dut, rng, stall=0.3, p_done=0.2, p_ev=0.2):
        self.dut = dut
        self.rng = rng
        self.data_w = int(os.environ["P_DATA_W"])
        self.db = self.data_w // 8
        self.model = HostIfModel(self.db, int(os.environ["P_BLOCK_SIZE"]),
                                 int(os.environ["P_MAX_OUTSTANDING"]), self.data_w,
                                 int(os.environ.get("P_CNT_W", "48")),
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
        self.sink = StreamSink(dut.clk, dut, "new_", [], rng, stall=stall,
                               callback=lambda _: None)
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
        def gen():
            while True:
                yield self.rng.random() < p
        m = self.master
        for ch in (m.write_if.aw_channel, m.write_if.w_channel, m.write_if.b_channel,
                   m.read_if.ar_channel, m.read_if.r_channel):
            if p > 0:
                ch.set_pause_generator(gen())
            else:
                ch.clear_pause_generator()
                ch.pause = False

    # ---------------------------------------------------------------- fake engine
    async def _engine(self):
        dut = self.dut
        while True:
            await RisingEdge(dut.clk)
            dut.st_valid.value = 0
            if self.engine_on and self.started and self.rng.random() < self.p_done:
                x = self.started.pop(self.rng.randrange(len(self.started)))
                page, c = divmod(x, C["CH_PER_PAGE"])
                dut.st_valid.value = 1
                dut.st_ch.value = page * WRCH + c
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
                 nw=None, rvalid=v(d.s_axi_rvalid), rready=v(d.s_axi_rready))
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
                           multipath=v(d.new_multipath), prio=v(d.new_prio))
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
        # 1. an R beat loaded into the R register in cycle k (visible from k+1)
        rd_reset = ()
        if nxt["rvalid"] and (not rec["rvalid"] or rec["rready"]):
            assert self.ar_q, f"cycle {k}: R beat without a read burst"
            ar = self.ar_q[0]
            val, resp, rd_reset = m.read(ar, self.ar_beat)
            last = self.ar_beat == ar[2]
            rid, rdata, rresp, rlast = nxt["r"]
            exp = 0 if resp else sum(val << (64 * j) for j in range(self.data_w // 64))
            assert (rid, rresp, rlast) == (ar[0], resp, int(last)), \
                f"cycle {k}: R beat {self.ar_beat} of {ar}: id/resp/last " \
                f"{(rid, rresp, rlast)} != {(ar[0], resp, int(last))}"
            assert rdata == exp, f"cycle {k}: R beat {self.ar_beat} of {ar}: data " \
                                 f"{rdata:#x} != {exp:#x}"
            if resp:
                rd_reset = ()
            self.n_r += 1
            if last:
                self.ar_q.popleft()
                self.ar_beat = 0
            else:
                self.ar_beat += 1
        # 2. the decision of the W beat handshaken in k-1
        host = None
        if self.prev_w is not None:
            aw, i, wdata, wstrb = self.prev_w
            dec = m.decide(aw, i, wdata, wstrb)
            host = dec["host"]
            if dec["tt"] is None:
                assert rec["tt"] is None, f"cycle {k}: table write of a refused beat"
            else:
                assert rec["tt"] is not None, f"cycle {k}: accepted beat not written"
                row, be, data, off = dec["tt"]
                grow, gbe, gdata = rec["tt"]
                assert (grow, gbe) == (row, be), \
                    f"cycle {k}: table write row/be {grow}/{gbe:#x} != {row}/{be:#x}"
                gbytes = gdata.to_bytes(2 * LINE, "little")[off:off + len(data)]
                assert gbytes == data, f"cycle {k}: table bytes {gbytes.hex()} != {data.hex()}"
            if dec["new"] is not None:
                self.exp_new.append(dec["new"])
            self.burst_err |= dec["err"]
            if dec["last"]:
                self.exp_b.append((dec["id"], SLVERR if self.burst_err else OKAY))
                self.burst_err = False
        else:
            assert rec["tt"] is None, f"cycle {k}: table write without a beat"
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
        # 5. end of cycle k: status updates, event counters
        m.end_of_cycle(host, rec["st"], rd_reset)
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
        assert self.prev_w is None

    async def read_everything(self):
        """Collective status of every row, the error reasons of every channel (one burst
        per page), then every register (all checked by the model)."""
        for p in range(NPAGES):
            for g in range(WRCH // 32):
                await self.master.read(F.coll_addr(p, g), 8, size=3)
            await self.master.read(F.err_addr(p, 0), 8 * WRCH, size=3)
        await self.master.read(C["REG_BASE"], 8 * NREGS, size=3)


# ====================================================================== stimulus
def make_line(rng, kind, c):
    """32-byte line 0 of a descriptor; kind: 'short', 'long', or a bad-descriptor name."""
    f = dict(src_addr=rng.getrandbits(64), dst_addr=rng.getrandbits(64),
             dst_node=rng.getrandbits(16), prio=rng.getrandbits(4), notify=rng.getrandbits(1),
             multipath=rng.getrandbits(1), tag=rng.getrandbits(32), is_inline=0, long_desc=0)
    r = rng.random()
    if kind == "short":
        if r < 0.4:
            f.update(is_inline=1, size=rng.randint(1, C["INLINE_SHORT_MAX"]))
        elif r < 0.9:
            f.update(size=rng.randint(1, 1 << 20))
        else:
            f.update(size=rng.choice([C["MAX_TRANSFER_BYTES"], rng.randint(1, 1 << 32)]))
    elif kind == "long":
        f.update(long_desc=1)
        if r < 0.5:
            f.update(is_inline=1, size=rng.randint(1, C["INLINE_MAX"]))
        else:
            f.update(size=rng.randint(1, C["MAX_TRANSFER_BYTES"]))
    elif kind == "D1_zero":
        f.update(size=0, is_inline=rng.getrandbits(1))
    elif kind == "D2_over":
        f.update(size=rng.choice([C["MAX_TRANSFER_BYTES"] + 1, rng.randint(1 << 32, (1 << 40) - 1)]))
    elif kind == "D3_inline_gt32":
        f.update(is_inline=1, long_desc=rng.getrandbits(1) if c % 2 == 0 else 0,
                 size=rng.choice([33, rng.randint(33, 1 << 32)]))
    elif kind == "D4_inline_no_long":
        f.update(is_inline=1, size=rng.randint(C["INLINE_SHORT_MAX"] + 1, C["INLINE_MAX"]))
    elif kind == "D5_long_odd":
        f.update(long_desc=1, size=rng.randint(1, 1 << 20))
    else:
        raise ValueError(kind)
    return L0.pack(**f).to_bytes(LINE, "little")


def set_long(line, on=True):
    """line with long_desc set (on) or cleared."""
    v = int.from_bytes(line, "little") & ~(1 << LONG_LSB) | (int(on) << LONG_LSB)
    return v.to_bytes(LINE, "little")


def line_ops(rng, db, addr, data):
    """Write ops (addr, data, size, burst) that write the 32-byte line `data` at `addr`:
    words of a random size in random order, sometimes one multi-beat burst, sometimes a
    word written twice."""
    s = rng.choice([x for x in (8, 16, 32) if x <= db])
    if rng.random() < 0.25:
        s2 = rng.choice([x for x in (8, 16) if x <= db])
        return [(addr, data, s2.bit_length() - 1, INCR)]  # whole line, one INCR burst
    chunks = [(addr + o, data[o:o + s]) for o in range(0, LINE, s)]
    rng.shuffle(chunks)
    if len(chunks) > 1 and rng.random() < 0.1:
        chunks.insert(rng.randrange(len(chunks)), chunks[rng.randrange(len(chunks))])
    return [(a, d, s.bit_length() - 1, INCR) for a, d in chunks]


def bad_beat_op(rng, db, page):
    """One write op whose every beat is refused (R1..R5), and its reason."""
    base = F.page_base(page)
    c = rng.randrange(WRCH)
    kind = rng.choice(["size", "burst_fixed", "burst_wrap", "align", "strobe", "readch",
                       "status", "coll", "reg", "unmapped"])
    if kind == "size":
        return (F.desc_addr(page, c), rng.randbytes(rng.choice([4, 8])), 2, INCR)
    if kind == "burst_fixed":
        return (F.desc_addr(page, c), rng.randbytes(16), 3, FIXED)
    if kind == "burst_wrap":
        return (F.desc_addr(page, c), rng.randbytes(32), 3, WRAP)
    if kind == "align":
        return (F.desc_addr(page, c) + 8 * rng.randrange(4) + 4, rng.randbytes(8), 3, INCR)
    if kind == "strobe":
        return (F.desc_addr(page, c) + 8 * rng.randrange(4), rng.randbytes(rng.randint(1, 7)),
                3, INCR)
    if kind == "readch":
        return (base + C["DESC_OFFSET"] + LINE * rng.randrange(WRCH, C["CH_PER_PAGE"]),
                rng.randbytes(LINE), min(5, db.bit_length() - 1), INCR)
    if kind == "status":
        return (F.status_addr(page, c), rng.randbytes(8), 3, INCR)
    if kind == "coll":
        return (F.coll_addr(page, rng.randrange(2)), rng.randbytes(8), 3, INCR)
    if kind == "reg":
        return (C["REG_BASE"] + 8 * rng.randrange(NREGS + 4), rng.randbytes(8), 3,
                INCR)
    return (base + rng.choice([0x1400, 0x1210, 0x1800, 0x1FF8]), rng.randbytes(8), 3, INCR)


class Issuer:
    """Issues write ops in the order of each page's queue, pages interleaved at random,
    at most one new op per cycle and only when the master can take it at once (so the
    AXI order is the issue order)."""

    def __init__(self, env):
        self.env = env
        self.queues = {p: collections.deque() for p in range(NPAGES)}
        cocotb.start_soon(self._run())

    def put(self, page, op):
        ev = Event()
        self.queues[page].append((op, ev))
        return ev

    async def _run(self):
        env = self.env
        wq = env.master.write_if.write_command_queue
        while True:
            await RisingEdge(env.dut.clk)
            ready = [p for p, q in self.queues.items() if q]
            if not ready or wq.full():
                continue
            (addr, data, size, burst), ev = self.queues[env.rng.choice(ready)].popleft()
            # the master queues the command when the task first runs: tasks run in the
            # order they are started, so the AXI order is the issue order
            task = cocotb.start_soon(env.master.write(addr, data, awid=env.rng.randrange(16),
                                                      size=size, burst=burst))
            cocotb.start_soon(_chain(task, ev))


async def _chain(task, ev):
    await task
    ev.set()


async def page_program(env, issuer, page, ntrans, hot):
    """Transactions on one page, one at a time (all its writes answered before the next):
    descriptors (good and bad), bad beats, conflicting lines, writes to BUSY channels."""
    rng = env.rng
    m = env.model
    db = env.db
    for _ in range(ntrans):
        ops = []
        pg = m.pages[page]
        if pg["act"]:
            # a line left incomplete (its other words were refused): complete it
            c = pg["chan"] | 1 if pg["line1"] else pg["chan"]
            data = make_line(rng, "short", c)
            for w in range(4):
                if not (pg["mask"] >> w) & 1:
                    ops.append((F.desc_addr(page, c) + 8 * w, data[8 * w:8 * w + 8], 3, INCR))
        else:
            r = rng.random()
            free = [c for c in hot if m.st[page * WRCH + c] != BUSY]
            if r < 0.12:
                ops.append(bad_beat_op(rng, db, page))
            else:
                if r < 0.2 or not free:
                    kind = rng.choice(BAD_DESC[:5])
                elif r < 0.25:
                    kind = "bad_long"
                elif r < 0.5:
                    kind = "long"
                else:
                    kind = "short"
                if kind == "D5_long_odd":
                    c = rng.choice([c for c in hot if c % 2] or [1])
                elif kind in ("long", "bad_long"):
                    evens = [c for c in free if c % 2 == 0 and c + 1 in hot]
                    busy = [c for c in hot if c % 2 == 0 and m.st[page * WRCH + c] == BUSY]
                    if busy and rng.random() < 0.2:
                        c = rng.choice(busy)      # line 0 refused: line 1 must be too
                    elif evens and rng.random() < 0.9:
                        c = rng.choice(evens)
                    else:
                        c = rng.choice(hot) & ~1
                else:
                    c = rng.choice(free) if free and rng.random() < 0.85 else rng.choice(hot)
                if kind == "bad_long":
                    data = set_long(make_line(rng, rng.choice(BAD_DESC[:3]), c))
                else:
                    data = make_line(rng, kind, c)
                lops = line_ops(rng, db, F.desc_addr(page, c), data)
                if kind == "long" and rng.random() < 0.08:
                    # line 0 in 4-byte beats: every beat refused, one carries long_desc
                    lops = [(F.desc_addr(page, c), data, 2, INCR)]
                if rng.random() < 0.15 and len(lops) > 1:
                    # another channel of the page while the line is being assembled (a
                    # whole line, so that it is a complete descriptor if it is accepted)
                    c2 = rng.choice([x for x in hot if x != c])
                    lops.insert(rng.randrange(1, len(lops)),
                                (F.desc_addr(page, c2), make_line(rng, "short", c2),
                                 min(5, db.bit_length() - 1), INCR))
                ops += lops
                if kind in ("long", "bad_long") and c % 2 == 0:
                    line1 = rng.randbytes(LINE)
                    if db == 32 and rng.random() < 0.2 and len(lops) == 1 and lops[0][2] == 5:
                        # both lines in one burst of two 32-byte beats
                        ops[-1] = (F.desc_addr(page, c), data + line1, 5, INCR)
                    else:
                        l1ops = line_ops(rng, db, F.desc_addr(page, c + 1), line1)
                        if rng.random() < 0.12:
                            # a refused beat in line 1 (strobes short of its bytes or
                            # 4-byte beats): the whole descriptor is refused
                            k = rng.randrange(len(l1ops))
                            a1, d1, s1, b1 = l1ops[k]
                            l1ops[k] = ((a1, d1[:-rng.randint(1, 7)], s1, b1)
                                        if rng.random() < 0.6 else (a1, d1, 2, b1))
                        ops += l1ops
        evs = [issuer.put(page, op) for op in ops]
        for ev in evs:
            await ev.wait()
        env.progress += 1


async def read_program(env, stop):
    """Random reads until stop is set: single/collective status of the hot channels,
    registers, bursts, and reads that must get SLVERR."""
    rng = env.rng
    m = env.master
    while not stop.is_set():
        await RisingEdge(env.dut.clk)
        if rng.random() > 0.15 or not m.read_if.read_command_queue.empty():
            continue
        p = rng.randrange(NPAGES)
        r = rng.random()
        if r < 0.4:
            m.init_read(F.status_addr(p, rng.randrange(WRCH)), 8, arid=rng.randrange(16), size=3)
        elif r < 0.6:
            m.init_read(F.coll_addr(p, rng.randrange(2)), 8, arid=rng.randrange(16), size=3)
        elif r < 0.7:
            n = rng.randint(1, 6)
            m.init_read(F.status_addr(p, rng.randrange(WRCH - n)), 8 * n, size=3)
        elif r < 0.75:
            m.init_read(C["REG_BASE"] + 8 * rng.randrange(NREGS), 8, size=3)
        elif r < 0.8:
            n = rng.randint(1, 3)
            m.init_read(F.err_addr(p, rng.randrange(WRCH - n + 1)), 8 * n, size=3)
        else:
            kind = rng.randrange(7)
            if kind == 0:
                m.init_read(F.status_addr(p, 0), 4, size=2)                   # size
            elif kind == 1:
                m.init_read(F.status_addr(p, 0), 16, size=3, burst=AxiBurstType.FIXED)
            elif kind == 2:
                m.init_read(F.status_addr(p, 1) + 4, 8, size=3)               # unaligned
            elif kind == 3:
                m.init_read(F.desc_addr(p, rng.randrange(WRCH)), 8, size=3)   # descriptor
            elif kind == 4:
                m.init_read(F.coll_addr(p, 0), 32, size=3)                    # coll + unmapped
                m.init_read(F.err_addr(p, WRCH - 1), 16, size=3)              # err + unmapped
            elif kind == 5:
                m.init_read(C["REG_BASE"] + 8 * NREGS - 8, 24, size=3)      # past the last
            else:
                m.init_read(C["REG_BASE"] + C.get("NIC_REG_FIRST", 0x100), 8, size=3)  # NIC's


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
        hot = rng.sample(range(WRCH), rng.choice([4, 8, 16]))
        hot += [c ^ 1 for c in hot if c ^ 1 not in hot][:2]
        tasks.append(cocotb.start_soon(page_program(env, issuer, p, ntrans, hot)))
    total = ntrans * NPAGES
    for frac, pause, stall in ((0.3, 0.2, 0.3), (0.55, 0.0, 0.0), (0.75, 0.0, 0.9),
                               (1.0, 0.5, 0.6)):
        env.set_pauses(pause)
        env.sink.stall = stall
        while env.progress < frac * total:
            await RisingEdge(dut.clk)
    for t in tasks:
        await t
    stop.set()
    await rd
    env.set_pauses(0.0)
    await env.drain()
    await env.read_everything()
    await env.drain()
    env.check_empty()
    cov = env.model.cov
    dut._log.info("cycles %d, B %d, new %d, R beats %d, coverage %s", env.cycle, env.n_b,
                  env.n_new, env.n_r, dict(cov))
    for k in REFUSALS + BAD_DESC[:5] + ["short_start", "long_start", "rd_single", "rd_coll",
                                        "rd_reg", "rd_err", "rd_bad", "skip_refused_line0",
                                        "skip_bad_desc", "skip_line1_refused"]:
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
    aw = m.aw_channel._transaction_obj()
    aw.awid, aw.awaddr, aw.awlen, aw.awsize, aw.awburst = awid, addr, len(beats) - 1, awsize, burst
    ev = Event()
    m.in_flight_operations += 1
    m._idle.clear()
    m.active_id[awid] += 1
    await m.aw_channel.send(aw)
    for k, (data, strb) in enumerate(beats):
        w = m.w_channel._transaction_obj()
        w.wdata, w.wstrb, w.wlast = data, strb, int(k == len(beats) - 1)
        await m.w_channel.send(w)
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
    # R5 not a write channel's descriptor
    for a in (F.page_base(0) + C["DESC_OFFSET"] + LINE * 64, F.page_base(1) + LINE * 127,
              F.status_addr(0, 5), F.coll_addr(0, 1), C["REG_BASE"], C["REG_BASE"] + 0x50,
              C["REG_BASE"] + 0x1000, F.page_base(2) + 0x1210, F.page_base(15) + 0x1FF8):
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
    await env.read_everything()
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
    # W beat -> new_valid: 2 cycles (W1 decision, FIFO); first AW -> first W: 1 cycle
    assert w[0] - aw[0] == 1
    assert nw[-1] - w[-1] == 2
    # first AW to last new_valid: 1 (AW FIFO: first W a cycle after its AW) + 64 x beats - 1
    # (the other W beats, back to back) + 2 (W -> new_valid) = 66 at 256 bits, 130 at 128
    assert nw[-1] - aw[0] == WRCH * beats + 2, nw[-1] - aw[0]


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
    run("qrdma_host_if", "test_qrdma_host_if", p, extra_env=env)
