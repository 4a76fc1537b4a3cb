# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Stimulus of the host-port tests (test_qrdma_host_if, test_qrdma_host_wr,
test_qrdma_host_rd): descriptor lines good and bad, the write ops that post them, bad
beats of every kind, page programs that post descriptors while keeping the page state of
the reference model (tests/model/host_model.py) in view, and random reads.

An environment `env` passed here has: rng, db (bus bytes), id_w (AXI ID bits), model
(HostIfModel), dut, progress (page transactions done), wmaster (cocotbext-axi
AxiMasterWrite) and, for the reads, rmaster (AxiMasterRead).
"""
import collections

import cocotb
from cocotb.triggers import Event, RisingEdge
from cocotbext.axi import AxiBurstType

from model.host_model import (BAD_DESC, BUSY, INCR, FIXED, WRAP, L0, LINE, LONG_LSB, NPAGES,
                              NCH, NREGS, WRCH, C, F)


def make_line(rng, kind, c, cluster=False):
    """32-byte line 0 of a descriptor for channel c; kind: 'short', 'long', or a
    bad-descriptor name. In a read channel (c >= WRCH) a good line is a read descriptor
    (no inline payload, no notify). cluster: hold (10 %) and start (5 %) set at random."""
    rd = c >= WRCH
    f = dict(src_addr=rng.getrandbits(64), dst_addr=rng.getrandbits(64),
             dst_node=rng.getrandbits(16), prio=rng.getrandbits(4),
             notify=0 if rd else rng.getrandbits(1),
             multipath=rng.getrandbits(1), tag=rng.getrandbits(32), is_inline=0, long_desc=0,
             hold=int(cluster and rng.random() < 0.1), start=int(cluster and rng.random() < 0.05))
    r = rng.random()
    if rd and kind in ("short", "long"):
        r = max(r, 0.5)   # no inline payload
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
    elif kind == "D7_read_flags":
        assert rd, c
        inl, nt = rng.choice([(1, 0), (0, 1), (1, 1)])
        f.update(is_inline=inl, notify=nt, long_desc=rng.getrandbits(1) if c % 2 == 0 else 0,
                 size=rng.randint(1, C["INLINE_SHORT_MAX"] if inl else 1 << 20))
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
    c = rng.randrange(NCH)
    kind = rng.choice(["size", "burst_fixed", "burst_wrap", "align", "strobe", "err",
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
    if kind == "err":
        return (F.err_addr(page, c), rng.randbytes(8), 3, INCR)
    if kind == "status":
        return (F.status_addr(page, c), rng.randbytes(8), 3, INCR)
    if kind == "coll":
        return (F.coll_addr(page, rng.randrange(NCH // 32)), rng.randbytes(8), 3, INCR)
    if kind == "reg":
        return (C["REG_BASE"] + 8 * rng.randrange(NREGS + 4), rng.randbytes(8), 3,
                INCR)
    return (base + rng.choice([C["COLL_OFFSET"] + NCH // 4, C["ERR_OFFSET"] - 8,
                               C["ERR_OFFSET"] + 8 * NCH, C["PAGE_STRIDE"] - 8]),
            rng.randbytes(8), 3, INCR)


class Issuer:
    """Issues write ops in the order of each queue (one per page, or any other key),
    queues interleaved at random, at most one new op per cycle and only when the master
    can take it at once (so the AXI order is the issue order)."""

    def __init__(self, env):
        self.env = env
        self.queues = collections.defaultdict(collections.deque)
        cocotb.start_soon(self._run())

    def put(self, key, op):
        ev = Event()
        self.queues[key].append((op, ev))
        return ev

    async def _run(self):
        env = self.env
        wq = env.wmaster.write_command_queue
        while True:
            await RisingEdge(env.dut.clk)
            ready = [p for p, q in self.queues.items() if q]
            if not ready or wq.full():
                continue
            (addr, data, size, burst), ev = self.queues[env.rng.choice(ready)].popleft()
            # the master queues the command when the task first runs: tasks run in the
            # order they are started, so the AXI order is the issue order
            task = cocotb.start_soon(env.wmaster.write(addr, data, awid=env.rng.randrange(1 << env.id_w),
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
            data = make_line(rng, "short", c, cluster=True)
            for w in range(4):
                if not (pg["mask"] >> w) & 1:
                    ops.append((F.desc_addr(page, c) + 8 * w, data[8 * w:8 * w + 8], 3, INCR))
        else:
            r = rng.random()
            free = [c for c in hot if m.st[page * NCH + c] != BUSY]
            if r < 0.12:
                ops.append(bad_beat_op(rng, db, page))
            else:
                if r < 0.2 or not free:
                    kind = rng.choice(BAD_DESC[:5] + ["D7_read_flags"])
                elif r < 0.25:
                    kind = "bad_long"
                elif r < 0.5:
                    kind = "long"
                else:
                    kind = "short"
                if kind == "D5_long_odd":
                    c = rng.choice([c for c in hot if c % 2] or [1])
                elif kind == "D7_read_flags":
                    c = rng.choice([c for c in hot if c >= WRCH] or [WRCH])
                elif kind in ("long", "bad_long"):
                    evens = [c for c in free if c % 2 == 0 and c + 1 in hot]
                    busy = [c for c in hot if c % 2 == 0 and m.st[page * NCH + c] == BUSY]
                    if busy and rng.random() < 0.2:
                        c = rng.choice(busy)      # line 0 refused: line 1 must be too
                    elif evens and rng.random() < 0.9:
                        c = rng.choice(evens)
                    else:
                        c = rng.choice(hot) & ~1
                else:
                    c = rng.choice(free) if free and rng.random() < 0.85 else rng.choice(hot)
                if kind == "bad_long":
                    data = set_long(make_line(rng, rng.choice(BAD_DESC[:3]), c, cluster=True))
                else:
                    data = make_line(rng, kind, c, cluster=True)
                lops = line_ops(rng, db, F.desc_addr(page, c), data)
                if kind == "long" and rng.random() < 0.08:
                    # line 0 in 4-byte beats: every beat refused, one carries long_desc
                    lops = [(F.desc_addr(page, c), data, 2, INCR)]
                if rng.random() < 0.15 and len(lops) > 1:
                    # another channel of the page while the line is being assembled (a
                    # whole line, so that it is a complete descriptor if it is accepted)
                    c2 = rng.choice([x for x in hot if x != c])
                    lops.insert(rng.randrange(1, len(lops)),
                                (F.desc_addr(page, c2), make_line(rng, "short", c2, cluster=True),
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


def ext_write_op(rng, db, ext_span):
    """One write op to the external register window: mostly one 64-bit word, sometimes a
    form the window refuses (other size, partial strobes, a burst) or an offset past it."""
    off = rng.randrange(C["NIC_REG_FIRST"], ext_span, 8)
    r = rng.random()
    if r < 0.7:
        return (C["REG_BASE"] + off, rng.randbytes(8), 3, INCR)
    if r < 0.75:
        return (C["REG_BASE"] + rng.randrange(ext_span, ext_span + 64, 8), rng.randbytes(8),
                3, INCR)
    if r < 0.85:
        return (C["REG_BASE"] + off, rng.randbytes(rng.randint(1, 7)), 3, INCR)
    if r < 0.9 and db >= 16:
        return (C["REG_BASE"] + (off & ~15), rng.randbytes(16), 4, INCR)
    return (C["REG_BASE"] + off, rng.randbytes(8 * rng.randint(1, 3)), 3,
            rng.choice([INCR, FIXED]))


async def read_program(env, stop, p_issue=0.15, p_ext=0.0, ext_span=4096):
    """Random reads until stop is set: single/collective status of the hot channels,
    registers, bursts, and reads that must get SLVERR; with p_ext, reads of the external
    register window (up to past its end, ext_span)."""
    rng = env.rng
    m = env.rmaster
    while not stop.is_set():
        await RisingEdge(env.dut.clk)
        if rng.random() > p_issue or not m.read_command_queue.empty():
            continue
        p = rng.randrange(NPAGES)
        r = rng.random()
        if rng.random() < p_ext:
            n = rng.choice([1, 1, 1, 2, 4])
            off = rng.randrange(C["NIC_REG_FIRST"], ext_span + 64, 8)
            m.init_read(C["REG_BASE"] + off, 8 * n, arid=rng.randrange(1 << env.id_w), size=3)
        elif r < 0.4:
            m.init_read(F.status_addr(p, rng.randrange(NCH)), 8, arid=rng.randrange(1 << env.id_w), size=3)
        elif r < 0.6:
            m.init_read(F.coll_addr(p, rng.randrange(NCH // 32)), 8, arid=rng.randrange(1 << env.id_w), size=3)
        elif r < 0.7:
            n = rng.randint(1, 6)
            m.init_read(F.status_addr(p, rng.randrange(NCH - n)), 8 * n, size=3)
        elif r < 0.75:
            m.init_read(C["REG_BASE"] + 8 * rng.randrange(NREGS), 8, size=3)
        elif r < 0.8:
            n = rng.randint(1, 3)
            m.init_read(F.err_addr(p, rng.randrange(NCH - n + 1)), 8 * n, size=3)
        else:
            kind = rng.randrange(7)
            if kind == 0:
                m.init_read(F.status_addr(p, 0), 4, size=2)                   # size
            elif kind == 1:
                m.init_read(F.status_addr(p, 0), 16, size=3, burst=AxiBurstType.FIXED)
            elif kind == 2:
                m.init_read(F.status_addr(p, 1) + 4, 8, size=3)               # unaligned
            elif kind == 3:
                m.init_read(F.desc_addr(p, rng.randrange(NCH)), 8, size=3)    # descriptor
            elif kind == 4:
                m.init_read(F.coll_addr(p, 0), 8 * (NCH // 32 + 1), size=3)   # coll + unmapped
                m.init_read(F.err_addr(p, NCH - 1), 16, size=3)               # err + unmapped
            elif kind == 5:
                m.init_read(C["REG_BASE"] + 8 * NREGS - 8, 24, size=3)      # past the last
            else:
                m.init_read(C["REG_BASE"] + C.get("NIC_REG_FIRST", 0x100), 8, size=3)  # NIC's


async def read_everything(env):
    """Collective status of every row, the error reasons of every channel (one burst per
    page), then every register (all checked by the model)."""
    for p in range(NPAGES):
        for g in range(NCH // 32):
            await env.rmaster.read(F.coll_addr(p, g), 8, size=3)
        await env.rmaster.read(F.err_addr(p, 0), 8 * NCH, size=3)
    await env.rmaster.read(C["REG_BASE"], 8 * NREGS, size=3)


def check_table_write(k, got, exp):
    """The transfer-table write of cycle k: `got` (row, be, data) as monitored or None,
    against `exp` (row, be, bytes, offset in the row) or None."""
    if exp is None:
        assert got is None, f"cycle {k}: table write without an accepted beat"
        return
    assert got is not None, f"cycle {k}: accepted beat not written"
    row, be, data, off = exp
    grow, gbe, gdata = got
    assert (grow, gbe) == (row, be), \
        f"cycle {k}: table write row/be {grow}/{gbe:#x} != {row}/{be:#x}"
    gbytes = gdata.to_bytes(2 * LINE, "little")[off:off + len(data)]
    assert gbytes == data, f"cycle {k}: table bytes {gbytes.hex()} != {data.hex()}"
