# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_tx_rel against a reference model of its timers and its destination check.

Random block and packet descriptors (reachable destinations, this node, nodes outside
NODE_MASK and above 63) under random backpressure on every output; acknowledgements that
match, stale ones (same TID, another seq) that must not disarm, and every NACK of the unit
fed back as the engine would take it. Checked, cycle by cycle:
  * every reachable descriptor comes out unchanged and in order on its stream, no other;
  * every unreachable one is answered by NACK (tid, seq, ERR_UNREACHABLE), pushed within
    2 cycles of its handshake with the engine when the NACK queue has room;
  * a timeout NACK (tid, seq, ERR_TIMEOUT) only for a descriptor passed on and never
    acknowledged, pushed between T and T + 2 * 2^TICK_SHIFT + 1024 + 6 cycles after it
    was passed on (T = RETX_TIMEOUT), exactly once; at the end every descriptor left
    unacknowledged has timed out;
  * with RETX_TIMEOUT 0 nothing times out.
The push cycle of each NACK is the cycle before its statistics pulse (stat_timeout /
stat_unreach), in the FIFO's order."""
import collections
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

from seeding import seed_rng
from tools import formats as F

ERR_TIMEOUT = F.CONST["ERR_TIMEOUT"][0]
ERR_UNREACHABLE = F.CONST["ERR_UNREACHABLE"][0]
NODE_ID = 2
NODE_MASK = 0b1011_0111   # nodes 0, 1, 2 (self), 4, 5, 7


def reachable(dst):
    return dst < 64 and (NODE_MASK >> dst) & 1 and dst != NODE_ID


def put(layout, word, **fields):
    """word with the given fields of layout replaced."""
    for k, x in fields.items():
        f = layout.field(k)
        word = (word & ~(((1 << f.width) - 1) << f.lsb)) | (x << f.lsb)
    return word


async def run_timers(dut, timeout, n_desc, ack_share, name, take_p=0.6, stale_p=0.2,
                     unreach_p=0.2, rounds=0):
    """rounds None: no upper bound on a timeout NACK's lateness (a scan round of NUM_TIDS
    cycles is lost whenever the NACK queue is full, an unreachable NACK takes the cycle or
    an acknowledgement of the same TID is on its way); every timer still fires by the end."""
    tick_shift = int(os.environ["P_TICK_SHIFT"])
    rng = seed_rng(name)
    cocotb.start_soon(Clock(dut.clk, 2, "ns").start())
    dut.rst.value = 1
    dut.node_id.value = NODE_ID
    dut.cfg_node_mask.value = NODE_MASK
    dut.cfg_timeout.value = timeout
    for sig in ("s_blk_valid", "s_pkt_valid", "ack_valid", "m_blk_ready", "m_pkt_ready",
                "m_nack_ready"):
        getattr(dut, sig).value = 0
    dut.s_blk_data.value = 0
    dut.s_pkt_data.value = 0
    dut.ack_data.value = 0
    for _ in range(5):
        await RisingEdge(dut.clk)
    await FallingEdge(dut.clk)
    dut.rst.value = 0

    free = list(range(1024))
    rng.shuffle(free)
    seq = 0
    made = 0
    armed = {}                          # tid -> (seq, cycle passed on)
    acked = {}                          # (tid, seq) -> (cycle passed on, cycle acknowledged)
    out_q = {"blk": collections.deque(), "pkt": collections.deque()}
    pushes = collections.deque()        # (kind, push cycle) of the unit's NACKs, in order
    expect_unr = {}                     # (tid, seq) -> handshake cycle, unreachables
    offer = {"blk": None, "pkt": None}  # (data, tid, seq, dst) offered until taken
    stats = collections.Counter()
    limit = timeout + 2 * (1 << tick_shift) + 1024 + 6
    late_ok = limit if rounds is not None else None
    layout = {"blk": F.BLOCK_DESC, "pkt": F.PKT_DESC}
    now = 0
    quiet_after = None

    def make(kind):
        nonlocal seq, made
        tid = free.pop()
        s = seq
        seq = (seq + 1) & 0xFFFF
        made += 1
        dst = (rng.choice([0, 1, 4, 5, 7]) if rng.random() >= unreach_p else
               rng.choice([NODE_ID, 3, 6, 63, 64, 1000, 0xFFFF]))
        d = put(layout[kind], rng.getrandbits(layout[kind].width), tid=tid, seq=s,
                dst_node=dst)
        return (d, tid, s, dst)

    while True:
        await FallingEdge(dut.clk)   # registered outputs have settled
        now += 1
        producing = made < n_desc
        for kind in ("blk", "pkt"):
            if offer[kind] is None and producing and free and rng.random() < 0.3:
                offer[kind] = make(kind)
            getattr(dut, f"s_{kind}_valid").value = int(offer[kind] is not None)
            if offer[kind] is not None:
                getattr(dut, f"s_{kind}_data").value = offer[kind][0]
        dut.m_blk_ready.value = int(rng.random() < 0.7)
        dut.m_pkt_ready.value = int(rng.random() < 0.7)
        # the acknowledgement tap: a NACK of the unit as the engine takes it, else
        # (sometimes) an acknowledgement from the network: matching, or stale
        tap, own = None, False
        if rng.random() < take_p and int(dut.m_nack_valid.value):
            dut.m_nack_ready.value = 1
            tap, own = int(dut.m_nack_data.value), True
        else:
            dut.m_nack_ready.value = 0
            if armed and producing and rng.random() < ack_share:
                tid = rng.choice(list(armed))
                s = armed[tid][0]
                if rng.random() < stale_p:
                    tap = F.ACK_DESC.pack(tid=tid, seq=(s + rng.randrange(1, 0x10000)) & 0xFFFF)
                else:
                    tap = F.ACK_DESC.pack(tid=tid, seq=s, nack=int(rng.random() < 0.1),
                                          reason=3)
        dut.ack_valid.value = int(tap is not None)
        dut.ack_data.value = tap or 0
        await ReadOnly()
        # handshakes at the coming edge
        for kind in ("blk", "pkt"):
            if offer[kind] is not None and int(getattr(dut, f"s_{kind}_ready").value):
                d, tid, s, dst = offer[kind]
                if reachable(dst):
                    out_q[kind].append((d, tid, s))
                else:
                    expect_unr[(tid, s)] = now
                offer[kind] = None
            if int(getattr(dut, f"m_{kind}_valid").value):
                assert out_q[kind], f"{kind}: a descriptor out that was not passed in"
                d, tid, s = out_q[kind][0]
                assert int(getattr(dut, f"m_{kind}_data").value) == d, f"{kind}: data"
                if int(getattr(dut, f"m_{kind}_ready").value):
                    out_q[kind].popleft()
                    assert tid not in armed
                    armed[tid] = (s, now)
        # a statistics pulse is registered: its NACK was pushed a cycle earlier
        if int(dut.stat_timeout.value):
            pushes.append(("t", now - 1))
        if int(dut.stat_unreach.value):
            pushes.append(("u", now - 1))
        if tap is not None:
            t, s = F.ACK_DESC.unpack(tap)["tid"], F.ACK_DESC.unpack(tap)["seq"]
            if own:
                a = F.ACK_DESC.unpack(tap)
                assert a["nack"] == 1
                kind, pcyc = pushes.popleft()
                if a["reason"] == ERR_UNREACHABLE:
                    assert kind == "u"
                    assert (t, s) in expect_unr, "unreachable NACK for no such descriptor"
                    assert pcyc >= expect_unr.pop((t, s)) + 1
                    stats["unreach"] += 1
                    free.append(t)
                else:
                    assert a["reason"] == ERR_TIMEOUT and kind == "t", f"reason {a['reason']}"
                    if t in armed and armed[t][0] == s:
                        passed = armed.pop(t)[1]
                        free.append(t)
                    else:
                        # pushed before an acknowledgement that the engine took first (it
                        # waited in the NACK queue): the engine finds it stale
                        assert (t, s) in acked, f"timeout NACK ({t}, {s}) for nothing sent"
                        passed, acyc = acked.pop((t, s))
                        assert pcyc < acyc, "timeout NACK pushed after the acknowledgement"
                        stats["raced"] += 1
                    age = pcyc - passed
                    assert age >= timeout, f"timed out after {age} cycles"
                    assert late_ok is None or age <= late_ok, f"timed out after {age} cycles"
                    stats["age_min"] = min(stats["age_min"] or age, age)
                    stats["age_max"] = max(stats["age_max"], age)
                    stats["timeout"] += 1
            elif t in armed and armed[t][0] == s:
                acked[(t, s)] = (armed.pop(t)[1], now)
                free.append(t)
                stats["acked"] += 1
            else:
                stats["stale"] += 1
        if not producing and quiet_after is None and not any(offer.values()):
            quiet_after = now
        settle = limit + 200 + (8 * 1024 if rounds is None else 0)
        if (quiet_after is not None and not pushes and not int(dut.m_nack_valid.value)
                and (now > quiet_after + settle or (timeout and not armed))):
            break
        assert now < 200 * n_desc + 10 * limit, "test did not finish"

    if timeout:
        assert not armed, f"{len(armed)} descriptors never timed out"
        assert stats["timeout"] > 0
    else:
        assert stats["timeout"] == 0 and len(armed) > 0
    assert not expect_unr and not out_q["blk"] and not out_q["pkt"]
    assert stats["acked"] > 0
    assert (stats["unreach"] > 0) == (unreach_p > 0) and (stats["stale"] > 0) == (stale_p > 0)
    dut._log.info(f"{name}: {dict(stats)}")


@cocotb.test()
async def rel_timers(dut):
    await run_timers(dut, int(os.environ["P_TIMEOUT"]), 3000, 0.05, "rel_timers", rounds=None)


@cocotb.test()
async def rel_bound(dut):
    """NACKs always taken, no stale acknowledgement, no unreachable destination: every
    timeout within the bound of the register's description."""
    await run_timers(dut, int(os.environ["P_TIMEOUT"]), 2000, 0.05, "rel_bound", take_p=1.0,
                     stale_p=0.0, unreach_p=0.0)


@cocotb.test()
async def rel_off(dut):
    await run_timers(dut, 0, 600, 0.05, "rel_off")


@pytest.mark.parametrize("params", [
    {"TICK_SHIFT": 8, "STAMP_W": 16, "TIMEOUT": 2000},
    {"TICK_SHIFT": 4, "STAMP_W": 12, "TIMEOUT": 900},
])
def test_qrdma_tx_rel(params):
    from simrun import run

    p = {k: v for k, v in params.items() if k != "TIMEOUT"}
    run("qrdma_tx_rel", "test_qrdma_tx_rel", p,
        extra_env={f"P_{k}": str(v) for k, v in params.items()})
