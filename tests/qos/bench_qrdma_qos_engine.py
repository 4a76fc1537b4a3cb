# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""cocotb benchmark of the QoS engine (run by tests/bench/bench_qos.py, not by pytest).

msg_rate: back-to-back 8-byte inline transfers over 64 channels of page 0, posted as
  single-beat 32-byte descriptor writes through the AXI4 slave (cocotbext-axi AxiMaster,
  no pauses); every inline packet is taken at once and acknowledged at once. The rate is
  transfers / cycles between the first and the last inline packet handshake.
latency: one transfer at a time; cycles from the cycle the last W beat of its descriptor
  is accepted to the first cycle the inline packet (inline_latency_cycles) or the first
  block descriptor (block_latency_cycles) is valid.
Writes its figures as JSON to the file named by QRDMA_BENCH_OUT.
"""
import json
import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge, Timer
from cocotbext.axi import AxiBus, AxiMaster

from model.qos_model import Descriptor, Params, post_writes
from tools.formats import ACK_DESC, BLOCK_DESC, PKT_DESC


def _quiet():
    import logging
    for n in ("cocotbext.axi", "cocotb.qrdma_qos_engine.s_axi"):
        logging.getLogger(n).setLevel(logging.WARNING)


class Bench:
    def __init__(self, dut):
        self.dut = dut
        self.cycle = 0
        self.w_last_cycles = []       # cycles in which a W beat with wlast was accepted
        self.pkt_cycles = []          # cycles of packet handshakes
        self.pkt_first_valid = []     # first cycle m_pkt_valid rose for each packet
        self.blk_first_valid = []
        self.acks = []
        self.pkts = 0
        self.blks = 0

    async def monitor(self):
        d = self.dut
        pkt_v_prev = blk_v_prev = 0
        while True:
            await RisingEdge(d.clk)
            await ReadOnly()
            self.cycle += 1
            if int(d.s_axi_wvalid.value) and int(d.s_axi_wready.value) and int(d.s_axi_wlast.value):
                self.w_last_cycles.append(self.cycle)
            pv, bv = int(d.m_pkt_valid.value), int(d.m_blk_valid.value)
            if pv and not pkt_v_prev:
                self.pkt_first_valid.append(self.cycle)
            if bv and not blk_v_prev:
                self.blk_first_valid.append(self.cycle)
            if pv and int(d.m_pkt_ready.value):
                p = PKT_DESC.unpack(int(d.m_pkt_data.value))
                self.pkt_cycles.append(self.cycle)
                if p["kind"] == 0:
                    self.acks.append(ACK_DESC.pack(tid=p["tid"], seq=p["seq"]))
                self.pkts += 1
                pv = 0  # a following packet in the next cycle counts as a new rise
            if bv and int(d.m_blk_ready.value):
                b = BLOCK_DESC.unpack(int(d.m_blk_data.value))
                self.acks.append(ACK_DESC.pack(tid=b["tid"], seq=b["seq"]))
                self.blks += 1
                bv = 0
            pkt_v_prev, blk_v_prev = pv, bv

    async def responder(self):
        """Always ready for outputs; sends one queued ACK per cycle."""
        d = self.dut
        d.m_pkt_ready.value = 1
        d.m_blk_ready.value = 1
        d.s_ack_valid.value = 0
        cur = None
        while True:
            await RisingEdge(d.clk)
            if cur is not None and int(d.s_ack_ready.value):
                cur = None
            if cur is None and self.acks:
                cur = self.acks.pop(0)
            d.s_ack_valid.value = int(cur is not None)
            if cur is not None:
                d.s_ack_data.value = cur


async def setup(dut):
    _quiet()
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    dut.ext_rd_err.value = 1
    dut.ext_wr_err.value = 1
    dut.ext_rd_data.value = 0
    dut.rst.value = 1
    for _ in range(4):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    bench = Bench(dut)
    cocotb.start_soon(bench.monitor())
    cocotb.start_soon(bench.responder())
    axi = AxiMaster(AxiBus.from_prefix(dut, "s_axi"), dut.clk, dut.rst)
    for _ in range(1100):  # ID pools fill, pending table clears
        await RisingEdge(dut.clk)
    return bench, axi


async def _post(axi, d, page, ch, p):
    for w in post_writes(d, page, ch, "line", None, p.host_data_w // 8):
        r = await axi.write(w.addr, w.data, size=w.size)
        assert r.resp == 0, f"write refused: {r.resp}"


def _write_out(key, value):
    out = os.environ["QRDMA_BENCH_OUT"]
    res = json.loads(open(out).read()) if os.path.exists(out) else {}
    res[key] = value
    with open(out, "w") as f:
        json.dump(res, f, indent=2)


@cocotb.test()
async def msg_rate(dut):
    p = Params.from_env(os.environ)
    n = int(os.environ.get("QRDMA_BENCH_N", "10000"))
    bench, axi = await setup(dut)
    # post back to back; a channel is reused only after its previous packet was ACKed,
    # which the fast responder does long before 64 further posts
    ops = []
    for i in range(n):
        d = Descriptor.inline_payload(bytes([(i + k) & 0xFF for k in range(8)]),
                                      dst_addr=0x1000 + 8 * i)
        for w in post_writes(d, 0, i % 64, "line", None, p.host_data_w // 8):
            ops.append(axi.init_write(w.addr, w.data, size=w.size))
    for op in ops:
        await op.wait()
        if op.data.resp != 0:
            raise AssertionError(f"write refused: {op.data.resp}")
    while bench.pkts < n:
        await RisingEdge(dut.clk)
    cycles = bench.pkt_cycles[n - 1] - bench.pkt_cycles[0] + 1
    rate = n / cycles
    dut._log.info("msg_rate: %d transfers in %d cycles = %.4f per cycle", n, cycles, rate)
    _write_out(f"msg_rate_per_cycle_{p.host_data_w}", round(rate, 4))
    _write_out(f"msg_rate_detail_{p.host_data_w}", {"transfers": n, "cycles": cycles})


@cocotb.test()
async def latency(dut):
    p = Params.from_env(os.environ)
    bench, axi = await setup(dut)
    inl, blk = [], []
    for i in range(8):
        # inline
        d = Descriptor.inline_payload(b"\x11" * 8)
        k0 = len(bench.pkt_first_valid)
        await _post(axi, d, 1, i, p)
        while len(bench.pkt_first_valid) == k0:
            await RisingEdge(dut.clk)
        inl.append(bench.pkt_first_valid[-1] - bench.w_last_cycles[-1])
        await Timer(200, unit="ns")
        # memory transfer of one block
        d = Descriptor(src_addr=0x10000, dst_addr=0x20000, size=4096)
        k0 = len(bench.blk_first_valid)
        await _post(axi, d, 2, i, p)
        while len(bench.blk_first_valid) == k0:
            await RisingEdge(dut.clk)
        blk.append(bench.blk_first_valid[-1] - bench.w_last_cycles[-1])
        await Timer(200, unit="ns")
    dut._log.info("latency: inline %s, block %s", inl, blk)
    assert len(set(inl)) == 1 and len(set(blk)) == 1, "latency should not vary when idle"
    _write_out(f"inline_latency_cycles_{p.host_data_w}", inl[0])
    _write_out(f"block_latency_cycles_{p.host_data_w}", blk[0])
