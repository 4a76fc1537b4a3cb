# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Reference model of the host port (qrdma_host_if and its write and read paths,
qrdma_host_wr / qrdma_host_rd; docs/qos.md "Descriptors and their acceptance", "Host port:
precise rules and timing"). Plain Python, no simulator inside: a test steps it cycle by
cycle with what it observed, and it says what the hardware must do.

  decide         the decision of one W beat: refusal (R1..R8), table write, descriptor
                 checks (D1..D7), the long-descriptor skip record, the new transfer, the
                 status update (applied a cycle later: `pending`), external register writes;
                 its counter events in `cnt_dec` (the host port pulses them a cycle later)
  read           one R beat: value, RRESP and the channels whose status it resets
  end_of_cycle   the status and error-reason updates of a cycle (host > engine > read)
  decision_events  the counter events of the previous cycle's decision become this cycle's
  events         the event counters (an event of cycle t counted at the end of t+1)

The status and error reasons it holds are the storage of qrdma_host_if; a test of a path
alone may also use an instance as the storage the path talks to. Layouts and addresses
come from tools.formats.
"""
import collections

from tools import formats as F

C = F.C
L0 = F.DESC_LINE0
IDLE, BUSY, DONE, ERROR = C["ST_IDLE"], C["ST_BUSY"], C["ST_DONE"], C["ST_ERROR"]
NPAGES, NCH, WRCH = C["NUM_PAGES"], C["CH_PER_PAGE"], C["WR_CH_PER_PAGE"]
LINE = C["DESC_LINE_BYTES"]
ADDR_SPACE = 1 << C["ADDR_W"]
INCR, FIXED, WRAP = 1, 0, 2
OKAY, SLVERR = 0, 2
# the QoS engine's registers (the host port's); the registers from NIC_REG_FIRST on are
# forwarded on the external register port (the NIC's)
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
            "D6_long_busy", "D7_read_flags"]


class ClusterModel:
    """qrdma_host_cluster (docs/qos.md "Clustering"): the started transfers (decide's
    "new") that go to the engine, in order. A transfer with hold waits; one with start
    releases its page's waiting transfers and itself, lowest channel first."""

    def __init__(self, nch=NCH):
        self.nch = nch   # channels per page
        self.held = {}   # page -> {channel: transfer}

    def push(self, new):
        """The transfers that leave when `new` is started (none, itself, or a cluster)."""
        if not (new["hold"] or new["start"]):
            return [new]
        page, c = divmod(new["xfer"], self.nch)
        pg = self.held.setdefault(page, {})
        assert c not in pg, f"transfer {new['xfer']} held twice"
        pg[c] = new
        if not new["start"]:
            return []
        del self.held[page]
        return [pg[k] for k in sorted(pg)]

    def waiting(self):
        return sum(len(pg) for pg in self.held.values())


def decode(addr):
    """What an address is (docs/formats.md)."""
    if addr >= C["REG_BASE"]:
        return ("reg", addr - C["REG_BASE"])
    if addr >= NPAGES * C["PAGE_STRIDE"]:
        return ("none",)
    page, off = divmod(addr, C["PAGE_STRIDE"])
    if 0 <= off - C["DESC_OFFSET"] < NCH * LINE:
        return ("desc", page, (off - C["DESC_OFFSET"]) // LINE)
    if 0 <= off - C["STATUS_OFFSET"] < NCH * 8:
        return ("single", page, (off - C["STATUS_OFFSET"]) // 8)
    if 0 <= off - C["COLL_OFFSET"] < (NCH // 32) * 8:
        return ("coll", page, (off - C["COLL_OFFSET"]) // 8)
    if 0 <= off - C["ERR_OFFSET"] < NCH * 8:
        return ("err", page, (off - C["ERR_OFFSET"]) // 8)
    return ("none",)


def beat_addr(addr, size, i):
    """Address of beat i of an INCR burst (AXI: later beats aligned to the size)."""
    if i == 0:
        return addr
    return ((addr & ~((1 << size) - 1)) + i * (1 << size)) % ADDR_SPACE


def params_ext_mask() -> int:
    """The PARAMS bits that EXT_PARAMS (PARAMS bits 63:32) sets: its fields from bit 32 on
    (regs/qrdma_regs.rdl); other bits read 0."""
    return sum(((1 << f.width) - 1) << f.lsb for f in F.PARAMS_REG.fields if f.lsb >= 32)


class HostIfModel:
    """What the host port must do; the caller steps it cycle by cycle (no simulator)."""

    def __init__(self, db, block_size, max_out, data_w, cnt_w, ext_params=0, ext_span=4096,
                 ext_rd=None, ext_wr=None):
        """ext_rd(off) -> value, or None when the external register at REG_BASE + off
        answers an error; ext_wr(off) -> True when it takes a write (None: no register
        behind the external window, every access to it is SLVERR)."""
        self.db = db
        self.ext_span = ext_span
        self.ext_rd = ext_rd or (lambda off: None)
        self.ext_wr = ext_wr or (lambda off: False)
        self.st = [IDLE] * (NPAGES * NCH)           # status, index page*128 + c
        self.reason = [C["ERR_NONE"]] * (NPAGES * NCH)    # ERR_* of the last ERROR
        self.lng = [False] * (NPAGES * NCH)         # long flag of a started descriptor
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
                      | (ext_params << 32) & params_ext_mask(),
        }
        self.cov = collections.Counter()
        self.pending = None   # status update of the previous decision (applied a cycle later)
        self.cnt_dec = []     # counter events of this cycle's decision (pulsed the next cycle)
        self.cnt_w2 = []      # ... of the previous cycle's decision
        self.cnt_now = []     # counter events pulsed in this cycle
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
        d = dict(tt=None, host=None, new=None, err=False, last=(i == alen), id=awid, ext=None)
        a = beat_addr(addr, size, i)
        lane = a % self.db
        what = decode(a)
        reason = None
        if self.ext_window(what) and size == 3 and burst == INCR and a % 8 == 0 \
                and wstrb == 0xFF << lane and self.ext_wr(what[1]):
            # a register write of the external window: forwarded, no descriptor state
            self.cov["ext_wr"] += 1
            d["ext"] = (what[1], (wdata >> (8 * lane)) & ((1 << 64) - 1))
            return d
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
            ch = page * NCH + c
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
            self.cnt_dec.append("CNT_DESC_ERR")
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
        elif c >= WRCH and (f["is_inline"] or f["notify"]):
            bad = "D7_read_flags"
        if bad is not None:
            self.cov[bad] += 1
            pg["act"] = False
            d["err"] = True
            d["host"] = (ch, ERROR)
            self.cnt_dec.append("CNT_DESC_ERR")
            if f["long_desc"] and c % 2 == 0:
                self.cov["skip_bad_desc"] += 1
                self.skip[page] = (c, 0)
            return d
        if f["long_desc"]:
            pg.update(act=True, line1=True, chan=c, mask=0)
            return d
        self.cov["short_start"] += 1
        return self._start(d, page, c, False)

    def ext_window(self, what):
        """Whether a decoded address is in the external register window."""
        return what[0] == "reg" and C["NIC_REG_FIRST"] <= what[1] < self.ext_span

    def _refused_line_beat(self, page, c, skip_hit, words, lng):
        """The skip rules for a refused beat addressed to channel c of page (docs:
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
        ch = page * NCH + c
        f = L0.unpack(int.from_bytes(self.line(page, c), "little"))
        self.pages[page]["act"] = False
        if c % 2 == 0:
            self.lng[ch] = long_
        d["host"] = (ch, BUSY)
        if c >= WRCH:
            self.cov["read_start"] += 1
        d["new"] = dict(xfer=page * C["CH_PER_PAGE"] + c, size=f["size"],
                        inline=f["is_inline"], multipath=f["multipath"], prio=f["prio"],
                        dst_lo=f["dst_addr"] & 0xFFFF, long=long_,
                        hold=f["hold"], start=f["start"])
        if f["hold"] or f["start"]:
            self.cov["cluster_" + ("start" if f["start"] else "hold")] += 1
        self.cnt_dec.append("CNT_DESC_OK")
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
            ch = what[1] * NCH + what[2]
            self.cov["rd_single"] += 1
            if what[2] >= WRCH:
                self.cov["rd_single_read_ch"] += 1
            return self.st[ch], OKAY, (ch,)
        if what[0] == "coll":
            base = what[1] * NCH + 32 * what[2]
            self.cov["rd_coll"] += 1
            if 32 * what[2] >= WRCH:
                self.cov["rd_coll_read_ch"] += 1
            v = sum(self.st[base + k] << (2 * k) for k in range(32))
            return v, OKAY, tuple(range(base, base + 32))
        if what[0] == "err":
            self.cov["rd_err"] += 1
            return self.reason[what[1] * NCH + what[2]], OKAY, ()
        if what[0] == "reg" and what[1] in REG_NAMES:
            name = REG_NAMES[what[1]]
            self.cov["rd_reg"] += 1
            v = self.regs_fixed[name] if name in self.regs_fixed else self.cnt[name]
            return v & ((1 << 64) - 1), OKAY, ()
        if self.ext_window(what) and self.ext_rd(what[1]) is not None:
            self.cov["rd_ext"] += 1
            return self.ext_rd(what[1]), OKAY, ()
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

    def decision_events(self):
        """Once per cycle, before events(): the descriptor events of the previous cycle's
        decision pulse in this cycle (the host port emits them with the table write, W2)."""
        self.cnt_now += self.cnt_w2
        self.cnt_w2, self.cnt_dec = self.cnt_dec, []

    def events(self, ev):
        """End of a cycle: the counters take the previous cycle's events (the host port
        registers them first) and this cycle's wait for the next."""
        for name in self.cnt_prev:
            self.cnt[name] = (self.cnt[name] + 1) & self.cnt_mask
        self.cnt_prev = self.cnt_now + [name for k, name in enumerate(EV_NAMES) if (ev >> k) & 1]
        self.cnt_now = []
