# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_rx_reg, the receive-side registration table (docs/registration.md), against the
reference model tests/model/rx_reg_model.py.

The bench offers items (block events and lookups) on s_* with random idle cycles, takes
m_ntf with random backpressure, and at the end compares, exactly: the notifications
(key and fields, in order), the lookup answers (key, notified, in order) and every
outcome counter (stat_* pulses). Each notification is also checked on its own: every
block of its operation was offered ahead of it, and no other notification names its key.

  reg_random    operations of 1..MASK_W blocks (mostly small) interleaved, their blocks
                in random order with the registering block anywhere among the first
                ESC_DEPTH + 2 (the others before it wait in the escape channel, or are
                dropped when it is full), duplicates, blocks past the count, bad counts,
                lookups during and after the notification (after the registering
                event, as the unit's contract says), keys colliding in
                the table (few entries), blocks of operations already looked up
  reg_mask      the mask arithmetic: each count from 1 to MASK_W (a set of counts for
                MASK_W > 64), the blocks in order, reversed and shuffled, the registering
                block first or later; every arrival order of counts 1 to 4 with the
                registering block at every place the escape channel allows: exactly one
                notification each, after the last block
  reg_escape    the escape channel's timeout: records older than ESC_TIMEOUT are dropped
                (stat_esc_timeout; their operation then never fills and is completed by
                its lookup: notified 0), younger ones are replayed at the registration;
                a full escape channel drops (stat_esc_drop) and an entry taken refuses a
                registration (stat_conflict); with HASH_W < KEY_W, a registration of the
                same channel (the key's low HASH_W bits) frees and takes the entry
                (stat_replace)
  reg_rate      items back to back: five cycles each, nothing taken during the sweep

Replay: QRDMA_SEED=<seed printed at the start of a test>. Size: P_N operations.
"""
from __future__ import annotations

import itertools
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

from model.rx_reg_model import OUTCOMES, RegModel
from seeding import seed_rng

KEY_W = int(os.environ.get("P_KEY_W", "32"))
HASH_W = int(os.environ.get("P_HASH_W", str(KEY_W)))
ENTRIES = int(os.environ.get("P_ENTRIES", "256"))
MASK_W = int(os.environ.get("P_MASK_W", "256"))
INFO_W = int(os.environ.get("P_INFO_W", "128"))
ESC_DEPTH = int(os.environ.get("P_ESC_DEPTH", "8"))
WORDS = max(1, MASK_W // 64)
ITEM_CYCLES = 5                # an item taken every fifth cycle, back to back
STATS = OUTCOMES + ("esc_timeout",)
# cycles after which every item offered is handled: the input FIFO's and the escape
# channel's items, each with a lookup's sweep of the mask words
QUIET = (ESC_DEPTH + 4 + 2) * (ITEM_CYCLES + WORDS)


class TB:
    def __init__(self, dut, name: str, idle: float = 0.3, ntf_stall: float = 0.2):
        self.dut = dut
        self.rng = seed_rng(name)
        self.idle, self.ntf_stall = idle, ntf_stall
        self.cycle = 0
        self.ntfs: list[tuple[int, int]] = []
        self.ctls: list[tuple[int, bool]] = []
        self.stats = {k: 0 for k in STATS}
        self.takes: list[int] = []
        self.pulses: dict[str, list[int]] = {}    # cycles of each outcome's pulses
        self.given: dict[int, set] = {}     # per key: blocks offered so far
        self.cnt: dict[int, int] = {}       # per key: its count
        self.noted: set[int] = set()
        cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())

    async def reset(self, timeout: int = 0):
        d = self.dut
        d.cfg_esc_timeout.value = timeout
        d.rst.value = 1
        d.s_valid.value = 0
        d.m_ntf_ready.value = 0
        for s in ("s_ctl", "s_key", "s_blk", "s_first", "s_cnt", "s_info"):
            getattr(d, s).value = 0
        await ClockCycles(d.clk, 3)
        d.rst.value = 0
        cocotb.start_soon(self._monitor())

    async def _monitor(self):
        """Each cycle: drive m_ntf_ready, then take what the settled signals hand over at
        the next edge, and the stat pulses of the cycle."""
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            d.m_ntf_ready.value = int(self.rng.random() >= self.ntf_stall)
            await ReadOnly()
            self.cycle += 1
            if int(d.m_ntf_valid.value) and int(d.m_ntf_ready.value):
                key, info = int(d.m_ntf_key.value), int(d.m_ntf_info.value)
                self.ntfs.append((key, info))
                assert key not in self.noted, f"key {key:#x} notified twice"
                self.noted.add(key)
                want = set(range(self.cnt.get(key, 0)))
                assert want and want <= self.given.get(key, set()), \
                    f"key {key:#x} notified before all its {len(want)} blocks were given"
            if int(d.m_ctl_valid.value):
                self.ctls.append((int(d.m_ctl_key.value), bool(int(d.m_ctl_notified.value))))
            if int(d.s_valid.value) and int(d.s_ready.value):
                self.takes.append(self.cycle)
            for k in STATS:
                if int(getattr(d, f"stat_{k}").value):
                    self.stats[k] += 1
                    self.pulses.setdefault(k, []).append(self.cycle)

    async def send(self, items):
        """Offer the items in order (each a dict: ctl, key, blk, first, cnt, info)."""
        d = self.dut
        for it in items:
            while self.rng.random() < self.idle:
                await RisingEdge(d.clk)
            if not it["ctl"]:
                self.given.setdefault(it["key"], set()).add(it["blk"])
                if (it["first"] and it["key"] not in self.cnt
                        and it["blk"] < it["cnt"] <= MASK_W):       # a count the unit takes
                    self.cnt[it["key"]] = it["cnt"]
            d.s_valid.value = 1
            d.s_ctl.value = int(it["ctl"])
            d.s_key.value = it["key"]
            d.s_blk.value = it.get("blk", 0)
            d.s_first.value = int(it.get("first", False))
            d.s_cnt.value = it.get("cnt", 0)
            d.s_info.value = it.get("info", 0)
            while True:
                await ReadOnly()
                taken = int(d.s_ready.value)
                await RisingEdge(d.clk)
                if taken:
                    break
            d.s_valid.value = 0

    async def quiet(self, cycles: int = 0):
        """Wait until every item is handled (the table sweeps WORDS words after a
        lookup that frees) and every notification taken."""
        # the input FIFO and the escape replays handled, each freeing lookup's sweep
        await ClockCycles(self.dut.clk, cycles + QUIET)
        while int(self.dut.m_ntf_valid.value):
            await ClockCycles(self.dut.clk, 8)

    async def run(self, items) -> RegModel:
        """Reset, offer the items, wait until all are handled and compare with the
        model."""
        m = RegModel(KEY_W, ENTRIES, MASK_W, ESC_DEPTH, HASH_W)
        apply(m, items)
        await self.reset()
        await self.send(items)
        await self.quiet()
        self.check(m)
        return m

    def check(self, m: RegModel) -> None:
        assert self.ntfs == m.ntfs, first_diff("notifications", self.ntfs, m.ntfs)
        assert self.ctls == m.ctls, first_diff("lookup answers", self.ctls, m.ctls)
        exp = dict(m.stats, esc_timeout=m.timeouts)
        assert self.stats == exp, f"outcomes {self.stats}, model {exp}"
        self.dut._log.info("outcomes: %s; %d notifications, %d lookups (%d notified)",
                           self.stats, len(self.ntfs), len(self.ctls),
                           sum(n for _, n in self.ctls))


def first_diff(what, got, exp) -> str:
    for i, (g, e) in enumerate(zip(got, exp)):
        if g != e:
            return f"{what} #{i}: {g} expected {e}"
    return f"{what}: {len(got)} taken, {len(exp)} expected"


def ev(key: int, blk: int, first: bool = False, cnt: int = 0, info: int = 0) -> dict:
    return dict(ctl=False, key=key, blk=blk, first=first, cnt=cnt, info=info)


def ctl(key: int) -> dict:
    return dict(ctl=True, key=key)


def apply(m: RegModel, items) -> None:
    for it in items:
        if it["ctl"]:
            m.lookup(it["key"])
        else:
            m.event(it["key"], it["blk"], it["first"], it["cnt"], it["info"])


def op_items(rng, key: int, cnt: int, order: str = "shuffle", reg_pos: int | None = None,
             reg_blk: int | None = None) -> list[dict]:
    """The block events of one operation of cnt blocks: the blocks in the order given,
    the registering one (reg_blk, default the first of that order... or block 0) at
    position reg_pos of the sequence."""
    blks = list(range(cnt))
    if order == "reverse":
        blks.reverse()
    elif order == "shuffle":
        rng.shuffle(blks)
    info = rng.getrandbits(INFO_W)
    if reg_blk is None:
        reg_blk = 0
    blks.remove(reg_blk)
    pos = min(reg_pos if reg_pos is not None else 0, len(blks))
    blks.insert(pos, reg_blk)
    return [ev(key, b, b == reg_blk, cnt if b == reg_blk else 0, info if b == reg_blk else 0)
            for b in blks]


def new_key(rng, used: set) -> int:
    while True:
        k = rng.getrandbits(KEY_W)
        if k not in used:
            used.add(k)
            return k


def collide(rng, key: int, used: set, other_channel: bool = False) -> int | None:
    """Another key on the same entry (two bits EIW apart flipped), not used yet;
    other_channel: of another channel (the bits flipped below HASH_W)."""
    eiw = max(1, ENTRIES.bit_length() - 1)
    span = HASH_W if other_channel else KEY_W
    if span <= eiw:
        return None
    for _ in range(8):
        j = rng.randrange(span - eiw)
        k = key ^ (1 << j) ^ (1 << (j + eiw))
        if k not in used:
            used.add(k)
            return k
    return None


def random_ops(rng, n: int) -> list[dict]:
    """n operations interleaved (up to six at once), each ending with its lookup."""
    used: set = set()
    streams = []
    cw_max = (1 << MASK_W.bit_length()) - 1       # what s_cnt can hold
    for _ in range(n):
        r = rng.random()
        if r < 0.7:
            cnt = rng.randint(1, min(8, MASK_W))
        elif r < 0.9:
            cnt = rng.randint(1, min(64, MASK_W))
        else:
            cnt = rng.randint(1, MASK_W)
        key = None
        if streams and rng.random() < 0.15:
            key = collide(rng, rng.choice(streams)[0]["key"], used)
        if key is None:
            key = new_key(rng, used)
        reg_blk = rng.randrange(cnt) if rng.random() < 0.3 else 0
        items = op_items(rng, key, cnt, "shuffle", rng.randint(0, min(cnt - 1, ESC_DEPTH + 1)),
                         reg_blk)
        for it in list(items):
            if rng.random() < 0.05:                           # a duplicate, later
                items.insert(rng.randint(items.index(it) + 1, len(items)), dict(it))
        if rng.random() < 0.03:                               # a block past the count
            items.insert(rng.randint(0, len(items)),
                         ev(key, rng.randint(cnt, MASK_W - 1)) if cnt < MASK_W else ev(key, 0))
        if rng.random() < 0.03:                               # a bad count
            reg = next(it for it in items if it["first"])
            reg["cnt"] = rng.choice([0, min(cw_max, MASK_W + 1)] if cw_max > MASK_W else [0])
        if rng.random() < 0.05:                               # a block after the notification
            items.append(ev(key, rng.randrange(cnt)))
        # the lookup: mostly after every block, else anywhere after the registering
        # event and its copies (the caller's contract: a lookup ends the operation)
        reg_last = max(i for i, it in enumerate(items) if it["first"])
        pos = len(items) if rng.random() < 0.8 else rng.randint(reg_last + 1, len(items))
        items.insert(pos, ctl(key))
        if pos < len(items) - 1:
            items.append(ctl(key))                            # blocks after it: looked up again
        streams.append(items)
    out, active = [], []
    while streams or active:
        while streams and len(active) < 6:
            active.append(streams.pop(0))
        st = rng.choice(active)
        out.append(st.pop(0))
        if not st:
            active.remove(st)
    return out


@cocotb.test()
async def reg_random(dut):
    tb = TB(dut, "reg_random")
    n = int(os.environ.get("P_N", "150"))
    m = await tb.run(random_ops(tb.rng, n))
    for k in ("reg", "ntf", "dup", "esc", "bad"):
        assert m.stats[k] > 0 or n < 50, f"random stream without a {k} outcome"


@cocotb.test()
async def reg_mask(dut):
    tb = TB(dut, "reg_mask", idle=0.1)
    rng = tb.rng
    counts = list(range(1, MASK_W + 1)) if MASK_W <= 64 else sorted(
        {1, 2, 3, 31, 63, 64, 65, 127, 128, 129, MASK_W - 1, MASK_W} | {rng.randint(1, MASK_W) for _ in range(4)})
    used: set = set()
    items = []
    for i, cnt in enumerate(counts):
        key = new_key(rng, used)
        order = ("inorder", "reverse", "shuffle")[i % 3]
        items += op_items(rng, key, cnt, order, rng.randint(0, min(cnt - 1, ESC_DEPTH)),
                          rng.randrange(cnt))
        items.append(ctl(key))
    # every arrival order of the small counts, the registering block at each place the
    # escape channel allows
    ops = len(counts)
    for cnt in range(1, min(4, MASK_W) + 1):
        for order in itertools.permutations(range(cnt)):
            for pos in range(min(cnt, ESC_DEPTH + 1)):
                key = new_key(rng, used)
                info = rng.getrandbits(INFO_W)
                reg = order[pos]
                items += [ev(key, b, b == reg, cnt if b == reg else 0, info if b == reg else 0)
                          for b in order]
                items.append(ctl(key))
                ops += 1
    m = await tb.run(items)
    assert len(tb.ntfs) == ops and all(n for _, n in tb.ctls), \
        "every operation notified once, before its lookup"
    assert m.stats["esc_drop"] == 0 and m.stats["conflict"] == 0


@cocotb.test()
async def reg_escape(dut):
    tb = TB(dut, "reg_escape", idle=0.0, ntf_stall=0.0)
    rng = tb.rng
    timeout = 3 * QUIET + 100              # longer than a bench step below
    scan = ESC_DEPTH                       # a record is looked at once every ESC_DEPTH cycles
    m = RegModel(KEY_W, ENTRIES, MASK_W, ESC_DEPTH, HASH_W)
    used: set = set()
    await tb.reset(timeout)
    await ClockCycles(dut.clk, ENTRIES * WORDS + 4)

    async def go(items):
        apply(m, items)
        await tb.send(items)
        await tb.quiet()

    # timed out: the blocks after the first wait longer than the timeout; the operation
    # never fills
    n = min(3, ESC_DEPTH + 1)              # blocks of the operations below
    a = new_key(rng, used)
    await go([ev(a, i) for i in range(1, n)])
    await ClockCycles(dut.clk, timeout + scan + 1)
    m.expire(a)
    assert tb.stats["esc_timeout"] == n - 1, tb.stats
    # each record dropped in the first ESC_DEPTH + 1 cycles past its timeout (the scan
    # and its second step)
    ins, outs = tb.pulses["esc"][-(n - 1):], tb.pulses["esc_timeout"]
    for t in outs:
        assert any(timeout <= t - i <= timeout + scan for i in ins), \
            f"a record timed out in cycle {t}, escaped in cycles {ins}, timeout {timeout}"
    await go([ev(a, 0, True, n, 0xA), ctl(a)])
    assert tb.ctls[-1] == (a, False)
    # younger than the timeout: replayed at the registration
    b = new_key(rng, used)
    await go([ev(b, i) for i in reversed(range(1, n))])
    await ClockCycles(dut.clk, QUIET)
    await go([ev(b, 0, True, n, 0xB), ctl(b)])
    assert tb.ntfs[-1] == (b, 0xB) and tb.ctls[-1] == (b, True)
    # the escape channel full: one block dropped, the operation never fills
    c = new_key(rng, used)
    esc0 = tb.stats["esc"]
    await go([ev(c, i) for i in range(1, ESC_DEPTH + 2)])
    assert tb.stats["esc_drop"] == 1 and tb.stats["esc"] == esc0 + ESC_DEPTH, tb.stats
    await go([ev(c, 0, True, ESC_DEPTH + 2, 0xC), ctl(c)])
    assert tb.ctls[-1] == (c, False)
    # a registration refused: the entry is taken by another operation
    e = new_key(rng, used)
    f = collide(rng, e, used, other_channel=True)
    if f is not None:
        await go([ev(e, 0, True, 2, 0xE), ev(f, 0, True, 1, 0xF), ctl(f), ev(e, 1), ctl(e)])
        assert tb.stats["conflict"] == 1 and tb.ctls[-2:] == [(f, False), (e, True)]
    # a registration of another operation of the same channel (the key's bits above
    # HASH_W differ): the entry is freed and taken by it; the first one's later block
    # waits in the escape channel and its lookup finds nothing
    if HASH_W < KEY_W:
        g = new_key(rng, used)
        h = g ^ (1 << rng.randrange(HASH_W, KEY_W))
        used.add(h)
        await go([ev(g, 0, True, 2, 0x6), ev(h, 1, True, 2, 0x7), ev(g, 1), ev(h, 0),
                  ctl(g), ctl(h)])
        assert tb.stats["replace"] == 1, tb.stats
        assert tb.ctls[-2:] == [(g, False), (h, True)] and tb.ntfs[-1] == (h, 0x7)
    tb.check(m)


@cocotb.test()
async def reg_rate(dut):
    tb = TB(dut, "reg_rate", idle=0.0, ntf_stall=0.0)
    await tb.reset()
    used: set = set()
    keys = [new_key(tb.rng, used) for _ in range(24)]
    items = [ctl(k) for k in keys]                 # lookups that find nothing: no sweep
    m = RegModel(KEY_W, ENTRIES, MASK_W, ESC_DEPTH, HASH_W)
    apply(m, items)
    starts = []

    async def watch():
        while len(starts) < len(items):
            await RisingEdge(dut.clk)
            await ReadOnly()
            if int(dut.m_ctl_valid.value):
                starts.append(tb.cycle)
    w = cocotb.start_soon(watch())
    await tb.send(items)
    await tb.quiet()
    await w
    assert tb.takes[0] >= ENTRIES * WORDS, f"an item taken in cycle {tb.takes[0]}, during the sweep"
    gaps = {b - a for a, b in zip(starts, starts[1:])}
    assert gaps == {ITEM_CYCLES}, f"answers {sorted(gaps)} cycles apart"
    tb.check(m)


CASES = [{"ENTRIES": 256, "MASK_W": 256, "ESC_DEPTH": 8},
         {"ENTRIES": 4, "MASK_W": 64, "ESC_DEPTH": 4},
         {"ENTRIES": 64, "MASK_W": 1024, "ESC_DEPTH": 16},
         {"ENTRIES": 16, "MASK_W": 8, "ESC_DEPTH": 1, "KEY_W": 12, "INFO_W": 8},
         {"ENTRIES": 16, "MASK_W": 64, "ESC_DEPTH": 4, "KEY_W": 20, "HASH_W": 8}]


@pytest.mark.parametrize("params", CASES,
                         ids=[f"e{p['ENTRIES']}-m{p['MASK_W']}-x{p['ESC_DEPTH']}"
                              + (f"-h{p['HASH_W']}" if "HASH_W" in p else "") for p in CASES])
def test_qrdma_rx_reg(params):
    from simrun import full, run

    env = {f"P_{k}": str(v) for k, v in params.items()}
    env["P_N"] = "1500" if full() else "150"
    run("qrdma_rx_reg", "test_qrdma_rx_reg", params, extra_env=env)

