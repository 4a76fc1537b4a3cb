# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Two qrdma_nic back to back (tb_qrdma_nic_pair: node 0 and node 1, one tb_qrdma_link per
direction, LINK_LATENCY cycles) doing verified RDMA writes (docs/nic.md).

Each node has a cocotbext-axi AxiMaster on its host port (the CPU: posts descriptors,
polls status, programs registers) and an AxiRam as host memory with random backpressure
(pause generators on every channel; a paused R or B channel is memory latency). A
software model per node (this file) runs on top: it keeps a set of free channels, posts
transfers, polls (collective reads, sometimes single reads), and takes notification
entries from the ring (NQ_BASE/NQ_SIZE/NQ_TAIL programmed through the host port).

The reference for the outcome is simple and exact: every transfer has its own destination
range; at the end, each node's memory must equal its initial contents with every
finished transfer's source bytes (or inline payload) at its destination range; nothing
else may change. Notifications: one entry per transfer posted with notify, exactly once,
with its fields (kind, src_node, xfer, size, dst_addr; tag for CONTROL). Counters: DATA
packets per direction = the model's packetization ([QoS-RDMA] §3.9 blocks, MAX_PAYLOAD
packets), bytes, no drops, CNT_DONE. A liveness watchdog (Bench.watchdog) fails a run in
which a NIC is busy, neither waits for software and no beat moves on a link or memory
port for a number of cycles, and keeps a dump of both NICs' state (nic_state, links,
transfers in flight).

  nic_random    random transfers in both directions at once: memory 1 B..1 MiB (any
                alignment, priorities, multipath) and inline 1..32 B, with and without
                notification, and remote reads (read channels, docs/nic.md "Remote
                reads"), many pages and channels at once
  nic_dup       the same with both links' fault models duplicating 20 % of the packets and
                delaying each by 0..300 cycles (tb_qrdma_link fault_on), MISS answers
                ignored (RETRY_LIMIT.resend 2): every copy is dropped (RX_DUP_DROP +
                RX_STALE_DROP + CNT_STALE = the link's duplicates + the other node's
                RX_REDO - the copies of its MISS answers: a copy of a packet of a complete
                block is answered again, and that second response is stale at the
                sender), every transfer, byte and notification exact
  nic_loss      the same (memory transfers and reads up to 256 KiB) with both links losing
                1 % and corrupting 1 % of the packets (READ_REQs and read responses too), RETX_TIMEOUT 30,000 cycles, 7 re-sends
                without backoff (no timer wait reaches the watchdog's window): every loss
                recovered by re-sends, of runs after MISS answers (TX_MISS_RETX) and of
                blocks after timeouts,
                every transfer DONE, each packet written exactly once (RX_DATA_PKTS,
                RX_BYTES), every byte and notification exact
  nic_late      the same, with late copies of node 0's packets injected into node 1: every
                DATA, INLINE and CONTROL packet node 1 takes from node 0 is kept per TID,
                and once a packet of a later use (generation) of its TID has come, copies
                of the earlier use's packets are injected (in batches, between link 0's
                packets): every copy is dropped as stale (RX_STALE_DROP = the copies), none
                is written, answered or notified (RX_DATA_PKTS and RX_BYTES exact, no
                re-response, CNT_STALE 0 at node 0), every transfer, byte and notification
                exact
  nic_flips     the same with bits flipped in some packets on both links: every corrupted
                packet is dropped and counted (RX_CRC_DROP = flips), MISS answers ignored
                (RETRY_LIMIT.resend 2): each hits one transfer which then stays BUSY
                until its timer (a transfer is DONE only once its notification is
                written); no wrong byte anywhere, every other transfer is
                perfect; the watchdog trips and its dump holds exactly the stuck transfers
  nic_pause     node 0 paused towards node 2 (VOQ 2) with transfers queued for it: traffic
                to node 1 completes meanwhile; after the pause they leave and node 1 drops
                them as not its own (RX_BAD_DROP)
  nic_inline    64 inline packets back to back (one per channel, posted without waiting):
                all delivered, one link beat each, notifications
  nic_reverse   a 16-packet block injected into node 1 in reverse order (then its
                CONTROL, then all of it again): written once, one ACK and one for the
                copy (node 0's engine drops both as stale: it never sent that block), one
                notification, 16 dups
  nic_registered  registered memory writes (docs/registration.md) among unregistered ones
                in both directions: the registered ones notified early by their
                receivers, every notification once and only after all its bytes are in
                memory (every ring write is checked against the memory when it is made,
                in every test), RX_REGS / RX_EARLY
  nic_regs      NIC registers through the host port: NODE_ID, ring registers, read-only
                and unmapped offsets (SLVERR), QoS registers still there

Replay: QRDMA_SEED=<seed printed at the start>. Size: P_N transfers per node (nic_random),
QRDMA_FULL=1 multiplies it.
"""
from __future__ import annotations

import collections
import logging
import os
import random
from dataclasses import dataclass, field

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge, Timer
from cocotbext.axi.stream import define_stream

from seeding import seed_rng
from streams import quiet, random_pause
from model.link_fault_model import COUNT_NAMES, Faults, fault_cfg
from model.net_model import FULL_KEEP, control_packet, data_packet, packetize
from dataclasses import replace

from model.qos_model import Descriptor, Params, is_registered, post_writes, segment
from tools.formats import (C, ERR_INFO, NET_HDR, NIC_STATE, NOTIF_ENTRY, STATUS_SINGLE,
                           coll_addr, err_addr, reg_addr, status_addr)

ST_IDLE, ST_BUSY, ST_DONE, ST_ERROR = C["ST_IDLE"], C["ST_BUSY"], C["ST_DONE"], C["ST_ERROR"]
NOTIF_FULL, NOTIF_EMPTY = C["NOTIF_FULL"], C["NOTIF_EMPTY"]
NET_INLINE, NET_CONTROL = C["NET_INLINE"], C["NET_CONTROL"]
PAGES, WR_CH = C["NUM_PAGES"], C["WR_CH_PER_PAGE"]
CH_PER_PAGE = C["CH_PER_PAGE"]

MEM = 16 << 20                 # bytes of host memory per node
SRC_END = 6 << 20              # sources in [0, SRC_END)
DST_BASE = 7 << 20             # destination ranges in [DST_BASE, DST_END)
RING_N = 64                    # notification ring entries
RING_BASE = MEM - 64 * RING_N
DST_END = RING_BASE - 4096
OKAY, SLVERR = 0, 2
# no test of this module runs longer (a hang, e.g. a host-port write the NIC never takes,
# fails the test; the longest, nic_timeout, simulates under 1 ms)
SIM_LIMIT_NS = 10_000_000

# the injection port into node 1's receiver (AXI-Stream beats, CRC in tuser of the last)
InjBus, InjTransaction, InjSource, InjSink, InjMonitor = define_stream(
    "Inj", signals=["tdata", "tkeep", "tlast", "tuser", "tvalid", "tready"])


def params() -> dict:
    return {k[2:]: int(v) for k, v in os.environ.items()
            if k.startswith("P_") and k != "P_N"}


@dataclass
class Xfer:
    src: int                    # sending node
    page: int
    ch: int
    d: Descriptor
    data: bytes                 # what must land at d.dst_addr
    kind: str                   # "mem", "inline" or "read" (src reads d.dst_node's memory)
    done: bool = False
    status: int = 0             # ST_DONE or ST_ERROR once done
    posted: int = 0
    finished: int = 0


@dataclass
class Node:
    i: int
    master: object
    ram: object
    free: dict = field(default_factory=dict)       # page -> set of free write channels
    rfree: dict = field(default_factory=dict)      # page -> set of free read channels
    active: dict = field(default_factory=dict)     # (page, ch) -> Xfer
    tail: int = 0                                  # notifications taken
    notifs: list = field(default_factory=list)
    init: bytes = b""


class Bench:
    def __init__(self, dut, rng: random.Random, stall: float = 0.2):
        from cocotbext.axi import AxiBus, AxiMaster, AxiRam
        for n in ("cocotbext.axi",):
            logging.getLogger(n).setLevel(logging.WARNING)
        self.dut = dut
        self.rng = rng
        self.p = params()
        self.block = self.p.get("BLOCK_SIZE", 65536)
        self.maxp = self.p.get("MAX_PAYLOAD", 1024)
        self.nodes = []
        for i in (0, 1):
            m = AxiMaster(AxiBus.from_prefix(dut, f"n{i}_s_axi"), dut.clk, dut.rst)
            r = AxiRam(AxiBus.from_prefix(dut, f"n{i}_m_axi"), dut.clk, dut.rst, size=MEM)
            for n in (f"cocotb.tb_qrdma_nic_pair.n{i}_s_axi", f"cocotb.tb_qrdma_nic_pair.n{i}_m_axi"):
                logging.getLogger(n).setLevel(logging.WARNING)
            if stall:
                for ch in (r.write_if.aw_channel, r.write_if.w_channel, r.write_if.b_channel,
                           r.read_if.ar_channel, r.read_if.r_channel):
                    ch.set_pause_generator(self._pauses(stall))
            node = Node(i, m, r)
            node.free = {p: set(range(WR_CH)) for p in range(PAGES)}
            node.rfree = {p: set(range(WR_CH, CH_PER_PAGE)) for p in range(PAGES)}
            self.nodes.append(node)
        self.xfers: list[Xfer] = []
        self.dst_next = [DST_BASE, DST_BASE]     # next free destination address per node
        self.now = 0
        self.errors: list[str] = []
        self.stall: dict | None = None           # the watchdog's dump, once it tripped
        self.faults: list | None = None          # per link: Faults of its fault model
        self.allow_error = False                 # ERROR is an outcome, not a failure
        self.ntf_checked = 0                     # ring writes checked against the memory
        # per node, the engine's registration rule (docs/registration.md "At the sender")
        # with its REG_CTRL.thresh
        self.qp = [Params(block_size=self.block,
                          reg_max_blocks=self.p.get("REG_MASK_W", 256) - 1)] * 2

    def _pauses(self, stall):
        rng = random.Random(self.rng.randrange(1 << 30))
        while True:
            # bursts of stalls: a memory that answers late now and then
            if rng.random() < stall / 8:
                for _ in range(rng.randrange(1, 16)):
                    yield True
            yield False

    async def _clock(self):
        while True:
            await RisingEdge(self.dut.clk)
            self.now += 1

    async def ring_writes(self, n: Node):
        """Watches node n's memory port: each notification (a write into the ring) is
        checked when its address and its data have been handed over: every byte of its
        transfer must be in memory by then (its writes answered)."""
        d = self.dut
        pre = f"n{n.i}_m_axi_"
        sig = {k: getattr(d, pre + k) for k in ("awvalid", "awready", "awaddr", "awlen",
                                                "wvalid", "wready", "wdata", "wlast")}
        aws: collections.deque = collections.deque()   # [addr, beats left]
        ws: collections.deque = collections.deque()    # W beats not yet matched
        while True:
            await RisingEdge(d.clk)
            await ReadOnly()
            if int(sig["awvalid"].value) and int(sig["awready"].value):
                aws.append([int(sig["awaddr"].value), int(sig["awlen"].value) + 1])
            if int(sig["wvalid"].value) and int(sig["wready"].value):
                ws.append(int(sig["wdata"].value))
            while aws and ws:
                a = aws[0]
                data = ws.popleft()
                if a[0] >= RING_BASE:          # a ring write's beat (64 bytes, one entry)
                    self.check_notif_write(n, NOTIF_ENTRY.unpack(data))
                a[0] += 64
                a[1] -= 1
                if a[1] == 0:
                    aws.popleft()

    def check_notif_write(self, n: Node, e: dict) -> None:
        if e["marker"] != NOTIF_FULL:
            return
        self.ntf_checked += 1
        for x in self.xfers:
            if x.d.dst_node == n.i and x.d.dst_addr == e["dst_addr"] and x.d.notify:
                got = n.ram.read(x.d.dst_addr, x.d.size)
                if got != x.data:
                    bad = [i for i in range(x.d.size) if got[i] != x.data[i]]
                    self.errors.append(
                        f"node {n.i}: notification of the {x.kind} transfer to "
                        f"{x.d.dst_addr:#x} ({x.d.size} B, early {e['early']}) written with "
                        f"{len(bad)} of its bytes not in memory (offsets {bad[0]}..{bad[-1]})")
                return

    async def start(self):
        d = self.dut
        cocotb.start_soon(Clock(d.clk, 5, unit="ns").start())
        cocotb.start_soon(self._clock())
        for n in self.nodes:
            cocotb.start_soon(self.ring_writes(n))
        for i in (0, 1):
            getattr(d, f"n{i}_tx_pause").value = 0
            getattr(d, f"l{i}_flip_en").value = 0
            getattr(d, f"l{i}_flip_bit").value = 0
            getattr(d, f"l{i}_fault_on").value = int(self.faults is not None)
            getattr(d, f"l{i}_fault_cfg").value = fault_cfg(self.faults[i]) if self.faults else 0
        d.inj_sel.value = 0
        d.inj_tvalid.value = 0
        d.rst.value = 1
        for _ in range(10):
            await RisingEdge(d.clk)
        d.rst.value = 0
        for i in (0, 1):
            await self.wait_for(lambda i=i: int(getattr(d, f"n{i}_ready").value) == 1,
                                "engine ready", 5000)
        for n in self.nodes:
            # sources random, destinations a pattern of their own: a stray write shows
            n.ram.write(0, self.rng.randbytes(SRC_END))
            n.ram.write(SRC_END, bytes([0xA5 ^ n.i]) * (MEM - SRC_END))
            n.ram.write(RING_BASE, bytes(64 * RING_N))     # every ring slot empty
            n.init = n.ram.read(0, MEM)
            await self.reg_write(n, "NQ_BASE", RING_BASE)
            await self.reg_write(n, "NQ_SIZE", RING_N)
            # development mode (docs/protection.md): the random transfers carry no key
            await self.reg_write(n, "PROT_CTRL", 1)

    # ---------------------------------------------------------------- liveness
    def state(self) -> dict:
        """Per node: its nic_state fields, busy, nq_wait, the link towards it, the
        transfers its software has in flight."""
        d = self.dut
        out = {}
        for n in self.nodes:
            st = NIC_STATE.unpack(int(getattr(d, f"n{n.i}_state").value))
            st.update(busy=int(getattr(d, f"n{n.i}_busy").value),
                      nq_wait=int(getattr(d, f"n{n.i}_nq_wait").value),
                      link_in_beats=int(getattr(d, f"l{1 - n.i}_occ").value),
                      in_flight=len(n.active))
            out[f"node{n.i}"] = st
        return out

    async def watchdog(self, cycles: int, step: int = 256):
        """Liveness watchdog: trips when a NIC is busy, neither waits for software
        (nq_wait) and no beat moved on a link or memory port (tb `activity`) for `cycles`
        cycles; then self.stall holds the state dump (self.state()) and it stops."""
        d = self.dut
        last, since = None, 0
        while True:
            await ClockCycles(d.clk, step)
            act = int(d.activity.value)
            busy = int(d.n0_busy.value) or int(d.n1_busy.value)
            wait = int(d.n0_nq_wait.value) or int(d.n1_nq_wait.value)
            if act != last or not busy or wait:
                last, since = act, 0
                continue
            since += step
            if since >= cycles:
                self.stall = self.state()
                cocotb.log.warning("watchdog: nothing moved for %d cycles with work "
                                   "outstanding; state: %s", since, self.stall)
                return

    async def wait_for(self, cond, what: str, timeout: int):
        t0 = self.now
        while not cond():
            if self.now - t0 > timeout:
                raise AssertionError(f"timeout after {timeout} cycles waiting for {what}")
            await RisingEdge(self.dut.clk)

    # ---------------------------------------------------------------- host port
    async def reg_write(self, n: Node, name: str, val: int, exp: int = OKAY):
        r = await n.master.write(reg_addr(name), val.to_bytes(8, "little"), size=3)
        assert int(r.resp) == exp, f"node {n.i} write {name}: resp {int(r.resp)}, expected {exp}"

    async def reg_read(self, n: Node, name: str) -> int:
        r = await n.master.read(reg_addr(name), 8, size=3)
        assert int(r.resp) == OKAY, f"node {n.i} read {name}: resp {int(r.resp)}"
        return int.from_bytes(r.data, "little")

    def take_channel(self, n: Node, long_desc: bool, read: bool = False, ok=None
                     ) -> tuple[int, int] | None:
        pages = list(range(PAGES))
        self.rng.shuffle(pages)
        for p in pages:
            fr = n.rfree[p] if read else n.free[p]
            if long_desc:
                cands = [c for c in fr if c % 2 == 0 and c + 1 in fr]
            else:
                cands = list(fr)
            if ok is not None:
                cands = [c for c in cands if ok(p, c)]
            if cands:
                c = self.rng.choice(cands)
                fr.discard(c)
                if long_desc:
                    fr.discard(c + 1)
                return p, c
        return None

    def alloc_dst(self, dst_node: int, size: int, align_any: bool = True) -> int | None:
        a = self.dst_next[dst_node]
        a += self.rng.randrange(0, 200) if align_any else (-a) % 64
        if a + size > DST_END:
            return None
        self.dst_next[dst_node] = a + size
        return a

    def make_xfer(self, src: int, kind: str, size: int, notify: bool,
                  registered: bool | None = None, ok=None) -> Xfer | None:
        """A transfer of src to the other node (registered: the descriptor's flag, random
        for a memory write with notify when None; ok(page, ch): the channels it may take)."""
        n = self.nodes[src]
        dst_node = 1 - src
        before = self.dst_next[dst_node]
        dst = self.alloc_dst(dst_node, size)
        if dst is None:
            return None
        if kind == "read":
            # src reads size bytes of the other node's sources into its own memory
            before = self.dst_next[src]
            dst = self.alloc_dst(src, size)
            if dst is None:
                return None
            s = self.rng.randrange(0, SRC_END - size + 1)
            d = Descriptor(src_addr=s, dst_addr=dst, size=size, dst_node=dst_node,
                           prio=self.rng.randrange(16),
                           multipath=int(self.rng.random() < 0.3),
                           tag=self.rng.randrange(1 << 32))
            if self.rng.random() < 0.15:
                d.long_desc = 1
            pc = self.take_channel(n, bool(d.long_desc), read=True)
            if pc is None:
                self.dst_next[src] = before
                return None
            return Xfer(src, pc[0], pc[1], d, self.nodes[dst_node].init[s:s + size], kind)
        if kind == "inline":
            payload = self.rng.randbytes(size)
            d = Descriptor.inline_payload(payload, dst_addr=dst, dst_node=dst_node,
                                          prio=self.rng.randrange(16), notify=int(notify),
                                          tag=self.rng.randrange(1 << 32))
            data = payload
        else:
            s = self.rng.randrange(0, SRC_END - size + 1)
            d = Descriptor(src_addr=s, dst_addr=dst, size=size, dst_node=dst_node,
                           prio=self.rng.randrange(16), notify=int(notify),
                           multipath=int(self.rng.random() < 0.3),
                           tag=self.rng.randrange(1 << 32),
                           registered=int(notify and self.rng.random() < 0.5)
                           if registered is None else int(registered))
            if self.rng.random() < 0.15:
                d.long_desc = 1
            data = n.init[s:s + size]
        pc = self.take_channel(n, bool(d.long_desc), ok=ok)
        if pc is None:
            # no free channel: the destination range goes back (callers try again every
            # cycle, and would use up the destination space while they wait)
            self.dst_next[dst_node] = before
            return None
        return Xfer(src, pc[0], pc[1], d, data, kind)

    async def post(self, x: Xfer):
        n = self.nodes[x.src]
        for w in post_writes(x.d, x.page, x.ch, self.rng.choice(("desc", "line")), self.rng, 32):
            r = await n.master.write(w.addr, w.data, size=w.size)
            assert int(r.resp) == OKAY, f"node {n.i}: descriptor write refused {x}"
        x.posted = self.now
        n.active[(x.page, x.ch)] = x
        self.xfers.append(x)

    def finish(self, n: Node, page: int, ch: int, st: int, how: str):
        x = n.active.get((page, ch))
        if x is None:
            self.errors.append(f"node {n.i}: {how} status {st} of idle channel ({page},{ch})")
            return
        if st == ST_ERROR and not self.allow_error:
            self.errors.append(f"node {n.i}: transfer {x} ended in ERROR")
        x.status = st
        x.done = True
        x.finished = self.now
        del n.active[(page, ch)]
        fr = n.rfree[page] if x.kind == "read" else n.free[page]
        fr.add(ch)
        if x.d.long_desc:
            fr.add(ch + 1)

    async def poll_once(self, n: Node):
        """Collective reads of every group with a transfer in flight; now and then a single
        read instead."""
        groups = sorted({(p, c // 32) for p, c in n.active})
        for p, g in groups:
            if self.rng.random() < 0.2:
                chans = [c for (pp, c) in list(n.active) if pp == p and c // 32 == g]
                c = self.rng.choice(chans)
                r = await n.master.read(status_addr(p, c), 8, size=3)
                assert int(r.resp) == OKAY
                st = STATUS_SINGLE.unpack(int.from_bytes(r.data, "little"))["status"]
                if st in (ST_DONE, ST_ERROR):
                    self.finish(n, p, c, st, "single")
                elif st != ST_BUSY:
                    self.errors.append(f"node {n.i}: ({p},{c}) status {st} while in flight")
                continue
            r = await n.master.read(coll_addr(p, g), 8, size=3)
            assert int(r.resp) == OKAY
            v = int.from_bytes(r.data, "little")
            for k in range(32):
                st = (v >> (2 * k)) & 3
                c = 32 * g + k
                if st in (ST_DONE, ST_ERROR):
                    self.finish(n, p, c, st, "collective")
                elif st == ST_BUSY and (p, c) not in n.active:
                    self.errors.append(f"node {n.i}: ({p},{c}) BUSY but not posted")

    def take_notifs(self, n: Node) -> int:
        """Software on node n takes every full ring entry (reads it from host memory,
        writes the marker back empty). Returns how many it took."""
        k = 0
        while True:
            a = RING_BASE + 64 * (n.tail % RING_N)
            raw = n.ram.read(a, 64)
            if raw[0] != NOTIF_FULL:
                if raw[0] != NOTIF_EMPTY:
                    self.errors.append(f"node {n.i}: ring slot {a:#x} marker {raw[0]}")
                return k
            n.notifs.append(NOTIF_ENTRY.unpack(int.from_bytes(raw, "little")))
            n.ram.write(a, bytes([NOTIF_EMPTY]))
            n.tail += 1
            k += 1

    async def software(self, n: Node, stop):
        """Polling and notification loop of node n until stop() is true."""
        while not stop():
            await self.poll_once(n)
            if self.take_notifs(n):
                await self.reg_write(n, "NQ_TAIL", n.tail)
            for _ in range(self.rng.randrange(20, 200)):
                await RisingEdge(self.dut.clk)

    async def stop_software(self, loops, stop):
        """After 3,000 more cycles, stops the software loops (stop[0]) and takes every
        notification left in the rings."""
        for _ in range(3000):
            await RisingEdge(self.dut.clk)
        stop[0] = True
        for t in loops:
            await t
        for n in self.nodes:
            self.take_notifs(n)
            await self.reg_write(n, "NQ_TAIL", n.tail)

    # ---------------------------------------------------------------- checks
    @staticmethod
    def lands(x: Xfer) -> int:
        """The node whose memory a transfer writes: its destination, or for a read the
        node that posted it."""
        return x.src if x.kind == "read" else x.d.dst_node

    def expected_memory(self, node: int, only=None) -> bytearray:
        exp = bytearray(self.nodes[node].init)
        for x in self.xfers:
            if self.lands(x) == node and (only is None or only(x)):
                exp[x.d.dst_addr:x.d.dst_addr + x.d.size] = x.data
        return exp

    def check_memory(self, node: int, exp: bytes, ignore=()):
        got = bytearray(self.nodes[node].ram.read(0, MEM))
        # the ring: the software model emptied every entry it took
        for i in range(RING_N):
            a = RING_BASE + 64 * i
            if got[a] not in (NOTIF_EMPTY,):
                self.errors.append(f"node {node}: ring slot {i} not empty at the end")
            got[a:a + 64] = exp[a:a + 64]
        for lo, hi, alt in ignore:      # ranges that may hold either value per byte
            for a in range(lo, hi):
                if got[a] == alt[a - lo]:
                    got[a] = exp[a]
        if got != exp:
            bad = [a for a in range(0, MEM, 64) if got[a:a + 64] != exp[a:a + 64]]
            self.errors.append(f"node {node}: memory differs in {len(bad)} beats, first at "
                               f"{bad[0]:#x}")

    def expected_notif(self, x: Xfer) -> dict:
        e = dict(marker=NOTIF_FULL, kind=NET_INLINE if x.kind == "inline" else NET_CONTROL,
                 src_node=x.src, xfer=x.page * CH_PER_PAGE + x.ch, size=x.d.size,
                 dst_addr=x.d.dst_addr)
        if x.kind != "inline":
            e["tag"] = x.d.tag
        if not self.registered(x):
            e["early"] = 0    # (a registered transfer's: early, or by its CONTROL)
        return e

    def registered(self, x: Xfer) -> bool:
        """The engine registers x at its receiver (docs/registration.md)."""
        return x.kind == "mem" and is_registered(x.d, x.ch, self.qp[x.src])

    def check_notifs(self, node: int, must=lambda x: True):
        """Every notification of node equals one posted transfer with notify (each at
        most once); those for which must(x) holds appear exactly once."""
        exp = {}
        for x in self.xfers:
            if x.d.dst_node == node and x.d.notify:
                exp[x.d.dst_addr] = x
        seen = set()
        for e in self.nodes[node].notifs:
            x = exp.get(e["dst_addr"])
            if x is None:
                self.errors.append(f"node {node}: notification {e} for no transfer")
                continue
            if x.d.dst_addr in seen:
                self.errors.append(f"node {node}: notification twice: {e}")
            seen.add(x.d.dst_addr)
            want = self.expected_notif(x)
            got = {k: e[k] for k in want}
            if got != want:
                self.errors.append(f"node {node}: notification {got}, expected {want}")
        for a, x in exp.items():
            if a not in seen and must(x):
                self.errors.append(f"node {node}: no notification for {x.kind} transfer "
                                   f"of {x.d.size} B to {a:#x}")
        return seen

    def data_packets(self, src: int) -> int:
        """DATA packets node src sends (once each): its memory writes' and the read
        responses to the other node's reads."""
        n = 0
        for x in self.xfers:
            if (x.src == src and x.kind == "mem") or (x.kind == "read" and x.d.dst_node == src):
                for off, sz in segment(x.d.dst_addr, x.d.size, self.block):
                    n += len(packetize(x.d.dst_addr + off, sz, self.maxp))
        return n

    def link_bytes(self, src: int) -> int:
        """Payload bytes node src sends (once each): its writes' and the other node's
        reads'."""
        return sum(x.d.size for x in self.xfers
                   if (x.src == src and x.kind != "read")
                   or (x.kind == "read" and x.d.dst_node == src))

    def read_blocks(self, src: int) -> int:
        """READ_REQs node src sends (once each): the blocks of its reads."""
        return sum(len(segment(x.d.dst_addr, x.d.size, self.block))
                   for x in self.xfers if x.src == src and x.kind == "read")

    def fail_if_errors(self):
        if self.errors:
            raise AssertionError(f"{len(self.errors)} errors: " + "; ".join(self.errors[:8]))


def log_uniform(rng: random.Random, lo: int, hi: int) -> int:
    import math
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


async def traffic(b: Bench, src: int, count: int, max_size: int, outstanding: int,
                  more=None, big: int = 0, reads: float = 0.0):
    """Node src posts `count` random transfers to the other node, at most `outstanding`
    in flight, then inline transfers while more() is true (at most 4,096: each takes a
    TID, so they cycle the TID pool). The first `big` of them are memory transfers of
    max_size bytes."""
    n = b.nodes[src]
    rng = b.rng
    posted = 0
    while posted < count or (more is not None and more() and posted < count + 4096):
        if len(n.active) >= outstanding:
            await RisingEdge(b.dut.clk)
            continue
        r = rng.random()
        kind = ("inline" if posted >= count or r < 0.3 else "read" if r < 0.3 + reads
                else "mem")
        if posted < big:
            kind = "read" if reads and posted % 2 else "mem"
        size = (max_size if posted < big else rng.randrange(1, 33) if kind == "inline"
                else log_uniform(rng, 1, max_size))
        x = b.make_xfer(src, kind, size, notify=kind != "read" and rng.random() < 0.5)
        if x is None:
            await RisingEdge(b.dut.clk)
            if max(b.dst_next) + max_size > DST_END:
                break       # destination space used up
            continue
        await b.post(x)
        posted += 1
        for _ in range(rng.randrange(0, 30)):
            await RisingEdge(b.dut.clk)
    return posted


async def late_copies(b: Bench, count: int, stop, found: list) -> list:
    """Watches node 1's receive port (rx1_*) and keeps node 0's DATA, INLINE and CONTROL
    packets per TID, by generation; once a packet of a later generation of a TID has come,
    the earlier generations' packets are late copies. Injects up to `count` of them into
    node 1, in batches of up to 8, each while link 0 is between packets (inj_sel holds it),
    and those left once stop() is true. found[0]: the late copies found so far. Returns
    the headers injected."""
    dut, rng = b.dut, b.rng
    req = (C["NET_DATA"], C["NET_INLINE"], C["NET_CONTROL"])
    cur: dict[int, tuple[int, list]] = {}   # tid -> (generation, [frame, ...])
    late: list = []                         # (header, frame) of earlier generations
    injected: list = []
    frame: list = []
    quiet(dut, "inj")
    src = InjSource(InjBus.from_prefix(dut, "inj"), dut.clk, dut.rst)
    end = False
    release = False   # inj_sel goes low in this cycle (set at its edge: no beat unseen)
    while len(injected) < count and not (end and not late):
        end = end or stop()   # (then the copies left, and no more)
        found[0] = len(injected) + len(late)
        if release:
            dut.inj_sel.value = 0
            release = False
        else:
            await RisingEdge(dut.clk)
        await ReadOnly()
        # (a beat node 1 takes at the coming edge; inj_sel changes only in a cycle without)
        take = int(dut.rx1_take.value) and not int(dut.inj_sel.value)
        if take:
            frame.append((int(dut.rx1_tdata.value), int(dut.rx1_tkeep.value),
                          int(dut.rx1_tlast.value), int(dut.rx1_tuser.value)))
            if frame[-1][2]:
                h = NET_HDR.unpack(frame[0][0])
                if h["ptype"] in req and h["src_node"] == 0:
                    g, kept = cur.get(h["tid"], (None, []))
                    if g is not None and h["gen"] != g:
                        assert (h["gen"] - g) % 65536 < 32768, (h, g)   # a later use
                        late.extend((NET_HDR.unpack(f[0][0]), f) for f in kept)
                        kept = []
                    if len(kept) < 2 or h["ptype"] != C["NET_DATA"]:
                        kept.append(frame)   # (a block's first two packets, its CONTROL)
                    cur[h["tid"]] = (h["gen"], kept)
                frame = []
        if frame or take or not late or (len(late) < 8 and not end):
            continue
        # link 0 is between packets: hold it and inject a batch of late copies
        await FallingEdge(dut.clk)
        dut.inj_sel.value = 1
        rng.shuffle(late)
        batch, late = late[:8], late[8:]
        for h, f in batch:
            for data, keep, last, user in f:
                src.send_nowait(InjTransaction(tdata=data, tkeep=keep, tlast=last, tuser=user))
            injected.append(h)
        await src.wait()   # (at the edge after the last beat was taken)
        release = True
    if release:
        dut.inj_sel.value = 0
    await ClockCycles(dut.clk, 2000)   # (the last copies through node 1's receive unit)
    return injected


def link_counts(dut, link: int) -> dict:
    v = int(getattr(dut, f"l{link}_fault_cnt").value)
    return {n: (v >> (32 * i)) & 0xFFFFFFFF for i, n in enumerate(COUNT_NAMES)}


async def run_random(dut, flips: int, dup: float = 0.0, reorder: int = 0, loss: float = 0.0,
                     corrupt: float = 0.0, retx_timeout: int = 0, late: int = 0,
                     reads: float = 0.0):
    name = ("nic_flips" if flips else "nic_loss" if loss else "nic_dup" if dup
            else "nic_late" if late else "nic_random")
    rng = seed_rng(name)
    b = Bench(dut, rng)
    if dup or loss or corrupt:
        b.faults = [Faults(dup=dup, reorder=reorder, loss=loss, corrupt=corrupt,
                           seed=rng.randrange(1 << 32), src=k, dst=1 - k) for k in (0, 1)]
    await b.start()
    if retx_timeout:
        # 7 re-sends without backoff: no wait for a timer is longer than retx_timeout,
        # well inside the watchdog's quiet window below (100,000 cycles); MISS answers
        # re-send the runs they name (resend 0)
        for n in b.nodes:
            await b.reg_write(n, "RETX_TIMEOUT", retx_timeout)
            await b.reg_write(n, "RETRY_LIMIT", 7)
    elif dup or flips:
        # dup: copies come from the links only: MISS answers (reordering brings a block's
        # last packet before others) re-send nothing (RETRY_LIMIT.resend 2). flips: a
        # corrupted packet is recovered by nothing but its timer (default RETX_TIMEOUT,
        # beyond the watchdog's quiet window), not by the MISS answer of its block's last
        # packet
        for n in b.nodes:
            await b.reg_write(n, "RETRY_LIMIT", 2 << 12)
    count = int(os.environ.get("P_N", "20")) * (5 if os.environ.get("QRDMA_FULL") else 1)
    max_size = (256 << 10) if loss else (1 << 20)   # (re-sends: fewer cycles per run)
    sw_stop = [False]
    sws = [cocotb.start_soon(b.software(n, lambda: sw_stop[0])) for n in b.nodes]
    flipper = []
    posted = [False]  # every transfer has been posted
    gave_up = [0, 0]  # per link: armings that found no packet to corrupt
    armed = [0, 0]    # per link: armings
    if flips:
        async def flip(link: int):
            en = getattr(dut, f"l{link}_flip_en")
            cnt = getattr(dut, f"l{link}_flips")
            for _ in range(flips):
                for _ in range(rng.randrange(500, 6000)):
                    await RisingEdge(dut.clk)
                getattr(dut, f"l{link}_flip_bit").value = rng.randrange(512)
                before = int(cnt.value)
                armed[link] += 1
                en.value = 1                       # arms the link for one packet
                await RisingEdge(dut.clk)
                en.value = 0
                # the next packet on the link is corrupted; once everything is posted the
                # link may stay quiet for good: then stop flipping (the link stays armed,
                # and the checks below count the flips that happened, l<k>_flips)
                quiet = 0
                while int(cnt.value) == before and not (posted[0] and quiet > 20000):
                    quiet += 1
                    await RisingEdge(dut.clk)
                if int(cnt.value) == before:
                    cocotb.log.info("link %d: no packet to corrupt after posting ended", link)
                    gave_up[link] = 1
                    return
                await RisingEdge(dut.clk)
                h = NET_HDR.unpack(int(getattr(dut, f"l{link}_flip_hdr").value))
                cocotb.log.info("link %d: corrupted %s", link,
                                {k: h[k] for k in ("ptype", "src_node", "tid", "seq", "pkt_idx",
                                                   "blk_pkts", "dst_addr", "len", "xfer")})
        flipper = [cocotb.start_soon(flip(k)) for k in (0, 1)]
    cocotb.start_soon(b.watchdog(20000 if flips else 100000))
    # nic_late: node 0 goes on with inline transfers until enough late copies are found
    found, need = [0], min(late, 16)
    # loss: two transfers of max_size first from each node, so that over a thousand DATA
    # packets cross the links (at 1 %, none lost or none corrupted: below 1 in 10,000)
    posters = [cocotb.start_soon(traffic(b, s, count, max_size, 24,
                                         (lambda: found[0] < need) if late and s == 0 else None,
                                         big=2 if loss else 0, reads=reads))
               for s in (0, 1)]
    injector = (cocotb.start_soon(late_copies(
        b, late, lambda: posted[0] and not any(n.active for n in b.nodes), found))
        if late else None)
    for t in posters:
        await t
    posted[0] = True
    injected = await injector if injector else []
    if late:
        kinds = collections.Counter(h["ptype"] for h in injected)
        cocotb.log.info("late copies injected: %d (by packet type %s)", len(injected),
                        dict(kinds))
        assert len(injected) >= need, len(injected)
    for t in flipper:
        await t
    # wait until everything finished, or the watchdog found the NICs stalled (with flips:
    # the transfers that lost a packet do not finish before the default RETX_TIMEOUT)
    while any(n.active for n in b.nodes) and b.stall is None:
        await RisingEdge(dut.clk)
    if b.stall is not None and not flips:
        raise AssertionError(f"watchdog: the NICs stalled with work outstanding: {b.stall}")
    await b.stop_software(sws, sw_stop)
    b.fail_if_errors()

    nx = len(b.xfers)
    stuck = [x for x in b.xfers if not x.done]
    nreads = sum(x.kind == "read" for x in b.xfers)
    assert nreads > 0 or not reads, "no read posted"
    cocotb.log.info("%d transfers (%d B, %d reads), %d not done, %d notifications, %d cycles",
                    nx, sum(x.d.size for x in b.xfers), nreads, len(stuck),
                    sum(len(n.notifs) for n in b.nodes), b.now)
    regs = {}
    for n in b.nodes:
        regs[n.i] = {k: await b.reg_read(n, k) for k in (
            "TX_DATA_PKTS", "TX_CTRL_PKTS", "TX_BYTES", "RX_DATA_PKTS", "RX_CTRL_PKTS",
            "RX_BYTES", "RX_CRC_DROP", "RX_DUP_DROP", "RX_STALE_DROP", "RX_BAD_DROP",
            "RX_NOTIFS", "NQ_HEAD", "CNT_DONE", "CNT_STALE", "CNT_NACK", "TX_RETX",
            "TX_TIMEOUTS", "RX_REDO", "RX_REDO_DROP", "RX_MISS", "RX_MISS_DROP", "TX_MISS_RETX",
            "RX_READ_REQS", "RX_READ_DROP")}
    link_flips = [int(getattr(dut, f"l{k}_flips").value) for k in (0, 1)]
    if late:
        cocotb.log.info("registers: %s", regs)
    for n in b.nodes:
        o = 1 - n.i
        r, ro = regs[n.i], regs[o]
        sent = [x for x in b.xfers if x.src == n.i]
        assert r["NQ_HEAD"] == n.tail == r["RX_NOTIFS"] == len(n.notifs), (n.i, r)
        if loss:
            # every loss and corruption recovered by re-sends: every transfer DONE below
            lc = link_counts(dut, o)
            cocotb.log.info("link %d: %s; node %d: %s", o, lc, n.i, r)
            assert r["RX_CRC_DROP"] == lc["corrupted"], (n.i, r, lc)
            assert r["CNT_NACK"] == r["TX_TIMEOUTS"] == r["RX_BAD_DROP"] == 0, (n.i, r)
        else:
            assert r["RX_CRC_DROP"] == link_flips[o], (n.i, r, link_flips)
        if loss:
            pass    # (both links together: below)
        elif dup:
            # every copy is dropped: a DATA or inline copy as a duplicate, an ACK copy by
            # the engine as stale, a CONTROL copy as stale. A copy of a packet of a
            # complete block is answered again by the other node (its RX_REDO: the
            # block's ACK/NACK again, unless held for its notification, RX_REDO_DROP);
            # that second response comes after the first on the same link, so this
            # node's engine drops it as stale too. A copy of a MISS answer of the other
            # node is dropped by this node's reliability unit and counted nowhere: at
            # most as many as that node's MISS answers
            lc = link_counts(dut, o)
            cocotb.log.info("link %d: %s; node %d RX_REDO %d RX_REDO_DROP %d RX_MISS %d", o,
                            lc, o, ro["RX_REDO"], ro["RX_REDO_DROP"], ro["RX_MISS"])
            assert lc["duplicated"] > 0 and lc["reordered"] > 0, lc
            assert lc["corrupted"] == lc["lost"] == 0
            assert r["TX_MISS_RETX"] == 0, (n.i, r)
            dmiss = (lc["duplicated"] + ro["RX_REDO"]
                     - (r["RX_DUP_DROP"] + r["RX_STALE_DROP"] + r["CNT_STALE"]))
            assert 0 <= dmiss <= ro["RX_MISS"], (n.i, dmiss, r, ro, lc)
            assert r["RX_BAD_DROP"] == 0 and r["CNT_NACK"] == 0, (n.i, r)
        else:
            assert r["TX_MISS_RETX"] == 0, (n.i, r)
            # late copies: node 1 drops every one as stale, and nothing else
            stale = len(injected) if n.i == 1 else 0
            assert r["RX_STALE_DROP"] == stale, (n.i, r, stale)
            assert r["RX_DUP_DROP"] == r["RX_BAD_DROP"] == 0, (n.i, r)
            assert r["RX_REDO"] == r["RX_REDO_DROP"] == 0, (n.i, r)
            assert r["CNT_NACK"] == r["CNT_STALE"] == 0, (n.i, r)
            if not flips:
                # packets in order, none lost: every block complete at its last packet
                assert r["RX_MISS"] == r["RX_MISS_DROP"] == 0, (n.i, r)
        assert r["CNT_DONE"] == sum(x.done for x in sent), (n.i, r)
        if loss:
            # re-sent packets count again at the sender; the receiver writes each packet
            # of every transfer exactly once (a read's bytes travel from the other node)
            assert r["TX_DATA_PKTS"] >= b.data_packets(n.i), (n.i, r, b.data_packets(n.i))
            assert ro["RX_DATA_PKTS"] == b.data_packets(n.i), (n.i, ro, b.data_packets(n.i))
            assert ro["RX_BYTES"] == b.link_bytes(n.i), (n.i, ro)
            assert ro["RX_READ_REQS"] >= b.read_blocks(n.i), (n.i, ro, b.read_blocks(n.i))
        elif not flips:
            # (with flips, a transfer that lost an ACK stops sending blocks)
            assert r["TX_DATA_PKTS"] == b.data_packets(n.i), (n.i, r["TX_DATA_PKTS"],
                                                            b.data_packets(n.i))
            assert r["TX_BYTES"] == b.link_bytes(n.i), (n.i, r)
            assert ro["RX_READ_REQS"] == b.read_blocks(n.i), (n.i, ro, b.read_blocks(n.i))
            assert ro["RX_READ_DROP"] == 0, (n.i, ro)
            assert ro["RX_DATA_PKTS"] == r["TX_DATA_PKTS"], (n.i, r, ro)
            assert ro["RX_BYTES"] == r["TX_BYTES"], (n.i, r, ro)
    if dup:
        # copies of packets of complete blocks came (on either link: the traffic of a run
        # may be mostly one way)
        assert sum(regs[k]["RX_REDO"] + regs[k]["RX_REDO_DROP"] for k in (0, 1)) > 0, regs
    if loss:
        # (both links: over a thousand DATA packets in all at 1 %, never none of either)
        lcs = [link_counts(dut, k) for k in (0, 1)]
        assert sum(c["lost"] for c in lcs) > 0 and sum(c["corrupted"] for c in lcs) > 0, lcs
        # blocks that lost a packet before their last one are answered with MISS, and the
        # senders re-send the runs named; a lost last packet (or a lost MISS) waits for
        # its timer
        assert sum(regs[k]["RX_MISS"] for k in (0, 1)) > 0, regs
        assert sum(regs[k]["TX_MISS_RETX"] for k in (0, 1)) > 0, regs
    if not flips:
        assert not stuck
        for k in (0, 1):
            b.check_memory(k, b.expected_memory(k))
            b.check_notifs(k)
    else:
        # every transfer either finished (data exact) or not (each of its bytes old or
        # new); notifications only for transfers whose data is all there
        # every arming corrupted a packet, except a last one on a link that stayed
        # quiet after posting ended (still armed: it may have found one later; no arming
        # follows it)
        for k in (0, 1):
            assert armed[k] - gave_up[k] <= link_flips[k] <= armed[k], (link_flips, armed, gave_up)
        assert sum(link_flips) >= 1, link_flips
        for k in (0, 1):
            seen = b.check_notifs(k, must=lambda x: False)   # missing ones: counted below
            # a notified transfer's data is complete
            notified = [x for x in b.xfers if x.d.dst_node == k and x.d.dst_addr in seen]
            mem = b.nodes[k].ram.read(0, MEM)
            for x in notified:
                got = mem[x.d.dst_addr:x.d.dst_addr + x.d.size]
                if got != x.data:
                    bad = [i for i in range(x.d.size) if got[i] != x.data[i]]
                    old = sum(got[i] == b.nodes[k].init[x.d.dst_addr + i] for i in bad)
                    b.errors.append(f"node {k}: notified {x.kind} transfer to "
                                    f"{x.d.dst_addr:#x} ({x.d.size} B, done {x.done}) has "
                                    f"{len(bad)} wrong bytes from offset {bad[0]} to "
                                    f"{bad[-1]}, {old} of them never written")
            ignore = [(x.d.dst_addr, x.d.dst_addr + x.d.size,
                       b.nodes[k].init[x.d.dst_addr:x.d.dst_addr + x.d.size])
                      for x in b.xfers if x.d.dst_node == k and not x.done]
            b.check_memory(k, b.expected_memory(k), ignore=ignore)
        # each corrupted packet costs exactly one transfer its completion; a transfer is
        # DONE only once its notification is written, so none is DONE without one
        missing = [x for x in b.xfers if x.d.notify and x.done
                   and x.d.dst_addr not in {e["dst_addr"] for e in b.nodes[x.d.dst_node].notifs}]
        assert not missing, missing
        assert 1 <= len(stuck) <= 2 * flips, (len(stuck), flips)
        # the stall the watchdog saw: exactly the stuck transfers, nothing else held
        assert b.stall is not None, "flipped packets, but nothing stalled"
        for n in b.nodes:
            st = b.stall[f"node{n.i}"]
            held = {k: v for k, v in st.items() if k not in ("xfers", "busy", "in_flight")}
            assert st["xfers"] == st["in_flight"] == sum(not x.done for x in b.xfers
                                                          if x.src == n.i), st
            assert not any(held.values()), (n.i, st)
        for x in stuck:      # not done means BUSY, never a wrong DONE or ERROR
            r = await b.nodes[x.src].master.read(status_addr(x.page, x.ch), 8, size=3)
            st = STATUS_SINGLE.unpack(int.from_bytes(r.data, "little"))["status"]
            assert st == ST_BUSY, (x, st)
    b.fail_if_errors()


@cocotb.test(timeout_time=SIM_LIMIT_NS, timeout_unit="ns")
async def nic_dup(dut):
    await run_random(dut, flips=0, dup=0.2, reorder=300)


@cocotb.test(timeout_time=SIM_LIMIT_NS, timeout_unit="ns")
async def nic_loss(dut):
    await run_random(dut, flips=0, loss=0.01, corrupt=0.01, retx_timeout=30000, reads=0.25)


@cocotb.test(timeout_time=SIM_LIMIT_NS, timeout_unit="ns")
async def nic_random(dut):
    await run_random(dut, flips=0, reads=0.25)


@cocotb.test(timeout_time=SIM_LIMIT_NS, timeout_unit="ns")
async def nic_late(dut):
    await run_random(dut, flips=0, late=48)


@cocotb.test(timeout_time=SIM_LIMIT_NS, timeout_unit="ns")
async def nic_flips(dut):
    await run_random(dut, flips=3)


@cocotb.test(timeout_time=SIM_LIMIT_NS, timeout_unit="ns")
async def nic_pause(dut):
    """A paused destination (node 2 on VOQ 2 of node 0) never stalls traffic to node 1."""
    b = Bench(dut, seed_rng("nic_pause"))
    await b.start()
    d = dut
    d.n0_tx_pause.value = 1 << 2
    n0, n1 = b.nodes
    blocked = []
    for _ in range(4):
        x = b.make_xfer(0, "mem", b.block, notify=False)
        x.d.dst_node = 2                    # a node behind the paused VOQ
        x.d.dst_addr = DST_BASE + 0x100000 * (len(blocked) + 1)
        await b.post(x)
        blocked.append(x)
    for _ in range(12):
        x = b.make_xfer(0, "mem", b.rng.randrange(1, 16384), notify=True)
        await b.post(x)
    stop = [False]
    sws = [cocotb.start_soon(b.software(n, lambda: stop[0])) for n in b.nodes]
    await b.wait_for(lambda: len(n0.active) == len(blocked), "traffic to node 1", 200000)
    assert await b.reg_read(n1, "RX_BAD_DROP") == 0
    for x in blocked:
        assert not x.done
    # release: the queued packets leave; node 1 drops them (not its node ID)
    d.n0_tx_pause.value = 0
    n_bad = sum(len(packetize(x.d.dst_addr, x.d.size, b.maxp)) for x in blocked)
    for _ in range(20000):
        await RisingEdge(d.clk)
    stop[0] = True
    for t in sws:
        await t
    assert await b.reg_read(n1, "RX_BAD_DROP") == n_bad
    b.take_notifs(n1)
    b.xfers = [x for x in b.xfers if x not in blocked]
    b.check_memory(1, b.expected_memory(1))
    b.check_notifs(1)
    b.fail_if_errors()


def reg_entry(src: int, xfer: int, entries: int = 256) -> int:
    """The receiver's registration-table entry of a transfer of channel (src, xfer): its
    channel's bits {src_node, xfer} folded by XOR (qrdma_rx_reg, docs/registration.md)."""
    k, h, eiw = (src << 11) | xfer, 0, entries.bit_length() - 1
    for i in range(27):
        h ^= ((k >> i) & 1) << (i % eiw)
    return h


@cocotb.test(timeout_time=SIM_LIMIT_NS, timeout_unit="ns")
async def nic_registered(dut):
    """Receive-side registration end to end (docs/registration.md): both nodes post memory
    writes with notify at once, registered ones (2 .. 8 blocks, each in a channel whose
    registration-table entry no other one of the test takes; node 1 also registers those
    of 2 blocks' bytes or more without the flag, REG_CTRL.thresh) among unregistered ones
    (the flag clear, or set on a single-block transfer, which does not register): every
    registered transfer's notification is written by its receiver as soon as its last
    byte is in (early), every other one's by its CONTROL, each exactly once and never
    before all its bytes are in memory; RX_REGS and RX_EARLY count the registered ones,
    nothing is dropped, every transfer is DONE at its sender."""
    b = Bench(dut, seed_rng("nic_registered"))
    await b.start()
    thresh = 2 * b.block
    await b.reg_write(b.nodes[1], "REG_CTRL", (thresh << 32) | 4096)
    b.qp[1] = replace(b.qp[1], reg_thresh=thresh)
    stop = [False]
    sws = [cocotb.start_soon(b.software(n, lambda: stop[0])) for n in b.nodes]
    rng, bs = b.rng, b.block
    used = [set(), set()]   # per receiver: table entries taken

    async def sender(src: int):
        dst = 1 - src
        kinds = ([("reg", rng.randint(bs + 1, 8 * bs - 200)) for _ in range(6)]
                 + [("reg", bs + 1), ("unreg", rng.randint(bs + 1, 2 * bs - 1)),
                    ("unreg", rng.randint(bs + 1, 2 * bs - 1)), ("single", rng.randint(1, 64))]
                 + ([("thresh", rng.randint(2 * bs, 4 * bs)) for _ in range(3)] if src else []))
        rng.shuffle(kinds)
        for kind, size in kinds:
            x = None
            while x is None:
                ok = (lambda p, c: reg_entry(src, p * CH_PER_PAGE + c) not in used[dst]) \
                    if kind != "unreg" else None
                x = b.make_xfer(src, "mem", size, notify=True,
                                registered=kind in ("reg", "single"), ok=ok)
                if x is None:
                    await RisingEdge(dut.clk)
            if b.registered(x):   # (a short one registers when it crosses a block boundary)
                used[dst].add(reg_entry(src, x.page * CH_PER_PAGE + x.ch))
            assert b.registered(x) == (kind in ("reg", "thresh")) or kind == "single", (kind, x.d)
            await b.post(x)
            for _ in range(rng.randrange(0, 400)):
                await RisingEdge(dut.clk)

    for t in [cocotb.start_soon(sender(s)) for s in (0, 1)]:
        await t
    await b.wait_for(lambda: not any(n.active for n in b.nodes), "the transfers", 400_000)
    await b.stop_software(sws, stop)
    for k in (0, 1):
        b.check_memory(k, b.expected_memory(k))
        b.check_notifs(k)
    b.fail_if_errors()
    assert b.ntf_checked == len(b.xfers), (b.ntf_checked, len(b.xfers))
    for n in b.nodes:
        regd = [x for x in b.xfers if x.d.dst_node == n.i and b.registered(x)]
        early = {e["dst_addr"] for e in n.notifs if e["early"]}
        assert early == {x.d.dst_addr for x in regd}, (n.i, early, regd)
        r = {k: await b.reg_read(n, k) for k in ("RX_REGS", "RX_EARLY", "RX_REG_DROP",
                                                 "RX_NOTIFS", "CNT_CONTROL")}
        assert r["RX_REGS"] == r["RX_EARLY"] == len(regd) and r["RX_REG_DROP"] == 0, (n.i, r)
        assert r["RX_NOTIFS"] == sum(x.d.dst_node == n.i for x in b.xfers), (n.i, r)
        # CONTROL packets: one per transfer sent (REGISTER packets are not counted)
        assert r["CNT_CONTROL"] == sum(x.src == n.i for x in b.xfers), (n.i, r)
    assert all(x.status == ST_DONE for x in b.xfers)


@cocotb.test(timeout_time=SIM_LIMIT_NS, timeout_unit="ns")
async def nic_inline(dut):
    """64 inline transfers posted back to back: 64 one-beat packets, all delivered."""
    b = Bench(dut, seed_rng("nic_inline"), stall=0.0)
    await b.start()
    xs = []
    for k in range(64):
        x = b.make_xfer(0, "inline", b.rng.randrange(1, 9), notify=True)  # short: one line
        xs.append(x)
    beats0 = int(dut.l0_beats.value)
    posts = [cocotb.start_soon(b.post(x)) for x in xs]     # AxiMaster pipelines them
    for t in posts:
        await t
    stop = [False]
    sws = [cocotb.start_soon(b.software(n, lambda: stop[0])) for n in b.nodes]
    await b.wait_for(lambda: all(x.done for x in xs), "inline transfers", 50000)
    for _ in range(500):
        await RisingEdge(dut.clk)
    stop[0] = True
    for t in sws:
        await t
    b.take_notifs(b.nodes[1])
    assert int(dut.l0_beats.value) - beats0 == 64
    assert await b.reg_read(b.nodes[0], "TX_CTRL_PKTS") == 64
    b.check_memory(1, b.expected_memory(1))
    b.check_notifs(1)
    b.fail_if_errors()


@cocotb.test(timeout_time=SIM_LIMIT_NS, timeout_unit="ns")
async def nic_reverse(dut):
    """A block arriving in reverse order (injected into node 1: its last packet first, which
    asks and is answered with one MISS naming all the others), then its duplicates
    (answered again at the last packet: the block is complete and its ACK released)."""
    b = Bench(dut, seed_rng("nic_reverse"))
    await b.start()
    n0, n1 = b.nodes
    maxp = b.maxp
    npk = min(16, b.block // maxp)
    dst = DST_BASE + 3 * b.block + 40             # unaligned start inside one block
    size = npk * maxp - 40 - 17
    payload = b.rng.randbytes(size)
    parts = packetize(dst, size, maxp)
    assert len(parts) == npk
    tid, seq, xfer = 77, 5, 3 * CH_PER_PAGE + 9
    pk = []
    for i, (off, sz) in enumerate(parts):
        f = dict(ptype=C["NET_DATA"], dst_node=1, src_node=0, tid=tid, seq=seq, pkt_idx=i,
                 blk_pkts=npk, len=sz, dst_addr=dst + off, pd=0, fid=0, path=0, notify=1,
                 last=1, xfer=xfer)
        pk.append(data_packet(f, payload[off:off + sz]))
    ctl = control_packet(dict(dst_node=1, tid=tid, seq=seq, dst_addr=dst, pd=0, xfer=xfer,
                              size=size, blocks=1, tag=0xC0FFEE), 0)
    quiet(dut, "inj")
    src = InjSource(InjBus.from_prefix(dut, "inj"), dut.clk, dut.rst)
    random_pause(src, b.rng, 0.3)
    dut.inj_sel.value = 1

    def send(p):
        for data, keep, last, user in p.frame():
            src.send_nowait(InjTransaction(tdata=data, tkeep=keep, tlast=last, tuser=user))

    for p in reversed(pk):
        send(p)
    send(ctl)
    await src.wait()
    for _ in range(2000):
        await RisingEdge(dut.clk)
    # the block's ACK has reached node 0 (stale there): its notification is written and
    # the ACK released (node 1 may still have been clearing its tracking table when the
    # packets came, so that they waited in its buffer)
    for _ in range(100):
        if await b.reg_read(n0, "CNT_STALE") == 1:
            break
        for _ in range(500):
            await RisingEdge(dut.clk)
    assert await b.reg_read(n0, "CNT_STALE") == 1, "no ACK for the injected block"
    for p in pk:                                  # all again: duplicates
        send(p)
    await src.wait()
    for _ in range(2000):
        await RisingEdge(dut.clk)
    dut.inj_sel.value = 0
    assert await b.reg_read(n1, "RX_DATA_PKTS") == npk
    assert await b.reg_read(n1, "RX_DUP_DROP") == npk
    # the block's ACK is out when the copy comes: the copy is answered again at its last
    # packet (RX_REDO), so one ACK and one re-response, both stale at node 0 (which never
    # sent the block); before them the MISS of the first packet to arrive, which node 0's
    # reliability unit drops (no timer of its own for that tid and seq)
    redo = {k: await b.reg_read(n1, k) for k in ("RX_REDO", "RX_REDO_DROP", "RX_MISS")}
    assert redo == {"RX_REDO": 1, "RX_REDO_DROP": 0, "RX_MISS": 1}, redo
    assert await b.reg_read(n1, "TX_CTRL_PKTS") == 3
    assert await b.reg_read(n0, "CNT_STALE") == 2
    assert await b.reg_read(n0, "TX_MISS_RETX") == 0
    b.take_notifs(n1)
    assert len(n1.notifs) == 1
    e = n1.notifs[0]
    want = dict(marker=NOTIF_FULL, kind=NET_CONTROL, src_node=0, xfer=xfer, size=size,
                tag=0xC0FFEE, dst_addr=dst, seq=seq)
    assert {k: e[k] for k in want} == want, e
    exp = bytearray(n1.init)
    exp[dst:dst + size] = payload
    await b.reg_write(n1, "NQ_TAIL", n1.tail)
    b.check_memory(1, exp)
    b.fail_if_errors()


async def post_kinds(b: Bench, src: int, kinds, dst_node=None, gap=(0, 20)) -> list:
    """Posts one transfer per (kind, size, notify, multipath) of kinds from node src (to
    dst_node in place of the other node when given), waiting for free channels."""
    xs = []
    for kind, size, notify, mp in kinds:
        x = None
        while x is None:
            x = b.make_xfer(src, kind, size, notify)
            if x is None:
                await RisingEdge(b.dut.clk)
        if kind == "mem":
            x.d.multipath = mp
        if dst_node is not None:
            x.d.dst_node = dst_node
        await b.post(x)
        xs.append(x)
        for _ in range(b.rng.randrange(*gap)):
            await RisingEdge(b.dut.clk)
    return xs


@cocotb.test(timeout_time=SIM_LIMIT_NS, timeout_unit="ns")
async def nic_timeout(dut):
    """Node 1 silent (its link drops every packet it sends: no ACK ever reaches node 0)
    with RETX_TIMEOUT and one re-send set: node 0's transfers of every class are sent
    again once, then end in ERROR with reason ERR_TIMEOUT, more of them than every ID pool holds (20 multipath transfers, 70 1xFID,
    600 TID-only); then transfers to node 5 (outside NODE_MASK) and to node 0 itself end
    in ERROR with ERR_UNREACHABLE at once, 600 of them; then, node 1 speaking again,
    random traffic both ways completes exactly: every ID came back."""
    rng = seed_rng("nic_timeout")
    b = Bench(dut, rng, stall=0.1)
    b.allow_error = True
    b.faults = [Faults(seed=rng.randrange(1 << 32), src=0, dst=1),
                Faults(seed=rng.randrange(1 << 32), src=1, dst=0, silent=True)]
    await b.start()
    n0, n1 = b.nodes
    timeout = 20000
    for n in b.nodes:
        await b.reg_write(n, "RETX_TIMEOUT", timeout)
        await b.reg_write(n, "RETRY_LIMIT", 1)     # one re-send, the same timeout
        await b.reg_write(n, "NODE_MASK", 0b11)
    stop = [False]
    sws = [cocotb.start_soon(b.software(n, lambda: stop[0])) for n in b.nodes]
    cm = 16 << 10    # CM_MIN_BYTES: from this size a transfer takes a FID class
    kinds = ([("mem", rng.randrange(cm, 80 << 10), rng.random() < 0.5, 1) for _ in range(20)]
             + [("mem", rng.randrange(cm, 40 << 10), rng.random() < 0.5, 0) for _ in range(70)]
             + [(rng.choice(("mem", "inline")), rng.randrange(1, 33), rng.random() < 0.5, 0)
                for _ in range(600)])
    rng.shuffle(kinds)
    silent = await post_kinds(b, 0, kinds, gap=(0, 3))
    await b.wait_for(lambda: all(x.done for x in silent), "timeouts", 40 * timeout)
    late = max(x.finished - x.posted for x in silent)
    assert all(x.status == ST_ERROR for x in silent)
    for x in silent[-64:]:      # (channels are reused: the last transfers' reasons stand)
        r = await n0.master.read(err_addr(x.page, x.ch), 8, size=3)
        assert ERR_INFO.unpack(int.from_bytes(r.data, "little"))["reason"] == C["ERR_TIMEOUT"]
    t_out = await b.reg_read(n0, "TX_TIMEOUTS")
    assert t_out >= len(silent), (t_out, len(silent))
    # every timer that ended in a NACK was sent again once before
    retx = await b.reg_read(n0, "TX_RETX")
    assert retx >= t_out, (retx, t_out)
    cocotb.log.info("silent: %d transfers ended ERROR (timeout), %d timers ran out, "
                    "longest %d cycles after posting", len(silent), t_out, late)

    # unreachable destinations: refused at once
    unr = await post_kinds(b, 0, [(rng.choice(("mem", "inline")), rng.randrange(1, 33),
                                   False, 0) for _ in range(560)], dst_node=5, gap=(0, 2))
    unr += await post_kinds(b, 0, [("mem", rng.randrange(1, 40 << 10), True, 1)
                                   for _ in range(40)], dst_node=0, gap=(0, 2))
    await b.wait_for(lambda: all(x.done for x in unr), "unreachable", 200000)
    assert all(x.status == ST_ERROR for x in unr)
    for x in unr[-32:]:
        r = await n0.master.read(err_addr(x.page, x.ch), 8, size=3)
        assert ERR_INFO.unpack(int.from_bytes(r.data, "little"))["reason"] == C["ERR_UNREACHABLE"]
    assert await b.reg_read(n0, "TX_UNREACH") >= len(unr)
    assert await b.reg_read(n0, "TX_TIMEOUTS") == t_out
    # (a refused transfer waits for nothing but the engine: the longest took this long)
    cocotb.log.info("unreachable: %d transfers ended ERROR, longest %d cycles after posting",
                    len(unr), max(x.finished - x.posted for x in unr))
    b.xfers = [x for x in b.xfers if x not in unr]

    # node 1 speaks again: everything works, in both directions
    dut.l1_fault_cfg.value = fault_cfg(Faults(seed=1, src=1, dst=0))
    posters = [cocotb.start_soon(traffic(b, s, 40, 256 << 10, 24)) for s in (0, 1)]
    for t in posters:
        await t
    normal = [x for x in b.xfers if x not in silent]
    await b.wait_for(lambda: all(x.done for x in normal), "traffic after the silence", 2000000)
    await b.stop_software(sws, stop)
    assert all(x.status == ST_DONE for x in normal), \
        [x for x in normal if x.status != ST_DONE][:4]
    assert await b.reg_read(n0, "TX_TIMEOUTS") == t_out
    # the silent phase's transfers reached node 1 in part (no ACK: no further block, no
    # control packet for a transfer of several blocks): each of their bytes old or new;
    # node 0 received nothing of node 1's packets while node 1 was silent
    ignore = [(x.d.dst_addr, x.d.dst_addr + x.d.size,
               n1.init[x.d.dst_addr:x.d.dst_addr + x.d.size]) for x in silent]
    b.check_memory(1, b.expected_memory(1), ignore=ignore)
    b.check_memory(0, b.expected_memory(0))
    b.check_notifs(0)
    b.check_notifs(1, must=lambda x: x not in silent)
    b.fail_if_errors()


@cocotb.test(timeout_time=SIM_LIMIT_NS, timeout_unit="ns")
async def nic_regs(dut):
    """NIC registers through the host port; bad accesses get SLVERR."""
    b = Bench(dut, seed_rng("nic_regs"), stall=0.0)
    await b.start()
    for n in b.nodes:
        assert await b.reg_read(n, "NODE_ID") == n.i
        assert await b.reg_read(n, "NQ_BASE") == RING_BASE
        assert await b.reg_read(n, "NQ_SIZE") == RING_N
        assert await b.reg_read(n, "ID") & 0xFFFFFFFF == C["ID_MAGIC"]
        await b.reg_write(n, "NQ_BASE", 0x123456789ABC)
        assert await b.reg_read(n, "NQ_BASE") == 0x123456789A80          # 64-byte aligned
        await b.reg_write(n, "NQ_TAIL", 5)
        assert await b.reg_read(n, "NQ_TAIL") == 5
        await b.reg_write(n, "NQ_SIZE", 8)                               # restarts the ring
        assert await b.reg_read(n, "NQ_TAIL") == 0
        assert await b.reg_read(n, "NQ_HEAD") == 0
        for ro in ("NODE_ID", "NQ_HEAD", "RX_NOTIFS", "TX_BYTES"):
            await b.reg_write(n, ro, 1, exp=SLVERR)
        assert await b.reg_read(n, "NODE_ID") == n.i
        base = C["REG_BASE"]
        for off in (0x100, 0x108, 0x800, 0xFF8):                          # unmapped
            r = await n.master.read(base + off, 8, size=3)
            assert int(r.resp) == SLVERR, hex(off)
            r = await n.master.write(base + off, bytes(8), size=3)
            assert int(r.resp) == SLVERR, hex(off)
        r = await n.master.read(reg_addr("NODE_ID"), 4, size=2)          # narrow
        assert int(r.resp) == SLVERR
        r = await n.master.write(reg_addr("NQ_TAIL"), bytes(4), size=2)
        assert int(r.resp) == SLVERR
        assert await b.reg_read(n, "NQ_TAIL") == 0
        err = await b.reg_read(n, "CNT_DESC_ERR")
        assert err == 4 * 1 + 4 + 1, err   # refused register writes count as refused beats
    b.fail_if_errors()


@cocotb.test(timeout_time=SIM_LIMIT_NS, timeout_unit="ns")
async def nic_regs_rdl(dut):
    """Every register of regs/qrdma_regs.rdl through the host port, against the description:
    values after reset (the RDL reset values; ID, PARAMS, NODE_ID as the build drives them),
    writes to software-writable fields read back (others keep their value), writes to
    read-only registers get SLVERR and change nothing (each counts in CNT_DESC_ERR),
    counters are not cleared by reads, writing NQ_SIZE sets NQ_TAIL to 0."""
    from tools import regs

    b = Bench(dut, seed_rng("nic_regs_rdl"), stall=0.0)
    await b.start()
    fmt_version = __import__("tools.formats", fromlist=["FORMAT_VERSION"]).FORMAT_VERSION
    reg_nodes = [r for blk in regs.compile_top().children() for r in blk.registers()]
    programmed = {"NQ_BASE": RING_BASE, "NQ_SIZE": RING_N,   # Bench.start wrote these
                  "PROT_CTRL": 1}
    for n in b.nodes:
        built = {"ID": regs.ID_REG.pack(magic=C["ID_MAGIC"], version=fmt_version),
                 "NODE_ID": n.i}
        refused = 0
        err0 = await b.reg_read(n, "CNT_DESC_ERR")
        for r in reg_nodes:
            name = r.inst_name
            got = await b.reg_read(n, name)
            # after reset: the RDL reset values (no traffic has moved: counters 0)
            if name in programmed:
                want = programmed[name]
            elif name in built:
                want = built[name]
            else:
                want = sum((f.get_property("reset") or 0) << f.low for f in r.fields())
            if name == "PARAMS":
                pr = regs.PARAMS_REG.unpack(got)
                assert 1 << pr["block_log2"] == b.block and 1 << pr["max_payload_log2"] == b.maxp, pr
            elif name == "CNT_DESC_ERR":
                assert got == err0 + refused, f"CNT_DESC_ERR {got}, {refused} writes refused"
            else:
                assert got == want, f"node {n.i} {name}: {got:#x} after reset, RDL says {want:#x}"
            assert await b.reg_read(n, name) == got or name == "CNT_DESC_ERR", \
                f"{name}: a read changed it"
            # a write: software-writable fields take it, the rest keep their value
            wmask = sum(((1 << f.width) - 1) << f.low for f in r.fields() if f.is_sw_writable)
            val = 8 if name == "NQ_SIZE" else b.rng.getrandbits(64)
            if not wmask:
                await b.reg_write(n, name, val, exp=SLVERR)
                refused += 1
                if name != "CNT_DESC_ERR":
                    assert await b.reg_read(n, name) == got, f"{name} changed by a refused write"
                continue
            await b.reg_write(n, name, val)
            assert await b.reg_read(n, name) == (val & wmask) | (got & ~wmask), name
            if name == "NQ_SIZE":
                assert await b.reg_read(n, "NQ_TAIL") == 0, "writing NQ_SIZE restarts the tail"
        assert await b.reg_read(n, "CNT_DESC_ERR") == err0 + refused
        for name, v in programmed.items():                     # leave the ring as it was
            await b.reg_write(n, name, v)
    b.fail_if_errors()


# ------------------------------------------------------------------ runner
def cases():
    """(parameters, P_N transfers per node in nic_random): the default NIC; in make
    test-full also small packets and blocks with a short read window and receive buffer."""
    from simrun import full

    c = [pytest.param({}, 12, id="default")]
    if full():
        c.append(pytest.param({"MAX_PAYLOAD": 256, "BLOCK_SIZE": 8192, "HOST_DATA_W": 256,
                               "READ_WINDOW_BEATS": 64, "RX_BUF_BEATS": 32,
                               "LINK_LATENCY": 20}, 30, id="small"))
    return c


@pytest.mark.long
@pytest.mark.parametrize("params,n", cases())
def test_qrdma_nic(params, n):
    from simrun import run
    env = {f"P_{k}": str(v) for k, v in params.items()}
    env["P_N"] = str(n)
    run("tb_qrdma_nic_pair", "test_qrdma_nic", params, extra_env=env)
