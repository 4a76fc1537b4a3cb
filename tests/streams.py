# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Random idle and backpressure for cocotbext-axi streams and channels, through their public
pause API: a source paused in a cycle does not start a transfer (idle), a sink paused in a
cycle holds its ready low (backpressure). The probability can be changed at any time by
calling again, for bursts and stall phases."""
from __future__ import annotations

import logging
import random

import cocotb

from cocotb.clock import Clock
from cocotb.triggers import RisingEdge
from cocotbext.axi.stream import define_stream


def random_pause(stream, rng: random.Random, p: float) -> None:
    """Pause `stream` (anything with set_pause_generator / clear_pause_generator / pause,
    e.g. a define_stream source or sink, an AXI channel) in each cycle with probability p:
    0 never, 1 always."""
    if 0 < p < 1:
        stream.set_pause_generator(iter(lambda: rng.random() < p, None))
    else:
        # clear_pause_generator() leaves `pause` at its last value: set it explicitly
        stream.clear_pause_generator()
        stream.pause = p >= 1


def quiet(dut, *prefixes: str) -> None:
    """Keep the loggers of the cocotbext-axi models on these port prefixes at WARNING (they
    log under cocotb.<dut>.<prefix>); call before constructing the models."""
    for p in prefixes:
        logging.getLogger(f"cocotb.{dut._name}.{p}").setLevel(logging.WARNING)


# A valid/ready stream with one payload field `data` (descriptors, ACKs, FIFO words):
# DataSource(DataBus.from_prefix(dut, "s_blk"), dut.clk, dut.rst) drives s_blk_data /
# s_blk_valid and honours s_blk_ready.
DataBus, DataTransaction, DataSource, DataSink, DataMonitor = define_stream(
    "Data", signals=["data", "valid", "ready"])

# Only the valid/ready pair: a sink that gives a stream random backpressure while the
# test's own per-cycle monitor reads the payload (FlowSink(FlowBus.from_prefix(dut, "new"), ...)).
FlowBus, FlowTransaction, FlowSource, FlowSink, FlowMonitor = define_stream(
    "Flow", signals=["valid", "ready"])


async def start_s_m(dut) -> None:
    """Start the clock of a block with an `s` stream in and an `m` stream out, hold both
    idle and reset it for three cycles; returns with rst low."""
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    dut.s_valid.value = 0
    dut.m_ready.value = 0
    dut.rst.value = 1
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0


async def data_pair(dut, rng: random.Random, p: float):
    """Clock and reset a block with a `s` Data stream in and an `m` Data stream out (a FIFO,
    a register slice), then a source and a sink on them, each paused with probability p."""
    await start_s_m(dut)
    quiet(dut, "s", "m")
    src = DataSource(DataBus.from_prefix(dut, "s"), dut.clk, dut.rst)
    snk = DataSink(DataBus.from_prefix(dut, "m"), dut.clk, dut.rst)
    random_pause(src, rng, p)
    random_pause(snk, rng, p)
    return src, snk
