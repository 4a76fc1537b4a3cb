# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Valid/ready stream helpers for cocotb tests of inner (non-AXI) handshakes.

cocotbext-axi covers AXI4 and AXI-Stream ports; the common blocks and inner interfaces of
the engine use plain ``<prefix>valid`` / ``<prefix>ready`` / payload signals. These two
classes drive them right after ``RisingEdge(clk)`` and sample them in the ``ReadOnly`` phase of
the same cycle, when every signal has settled: a handshake is what was sampled there, and
it takes effect at the next rising edge. Monitors in tests use the same convention
(``await RisingEdge(clk); await ReadOnly()``), so nothing depends on the order in which
coroutines resume at an edge.

  src = StreamSource(dut.clk, dut, "s_", ["data"], rng, idle=0.3)
  snk = StreamSink(dut.clk, dut, "m_", ["data"], rng, stall=0.3)
  src.send({"data": 5});  item = await snk.recv()

Every stream of a test gets random idle (source) and random backpressure (sink); the
probabilities can be changed while running (``src.idle = 0``) for bursts and stall phases.
"""
from __future__ import annotations

import collections
import random

import cocotb
from cocotb.triggers import Event, ReadOnly, RisingEdge


def seed_rng(name: str) -> random.Random:
    """A Random seeded from QRDMA_SEED or fresh; the seed is printed so a run can be replayed."""
    import os

    s = os.environ.get("QRDMA_SEED")
    seed = int(s) if s else random.SystemRandom().randrange(1 << 31)
    cocotb.log.info("%s: random seed %d (replay with QRDMA_SEED=%d)", name, seed, seed)
    return random.Random(seed)


def _sig(dut, prefix, name):
    return getattr(dut, f"{prefix}{name}")


class StreamSource:
    """Drives <prefix>valid and payload fields; honours <prefix>ready."""

    def __init__(self, clk, dut, prefix, fields, rng, idle=0.0, valid="valid", ready="ready"):
        self.clk = clk
        self.valid = _sig(dut, prefix, valid)
        self.ready = _sig(dut, prefix, ready)
        self.fields = {f: _sig(dut, prefix, f) for f in fields}
        self.rng = rng
        self.idle = idle
        self.queue: collections.deque = collections.deque()
        self.sent = 0
        self.idle_event = Event()
        self.valid.value = 0
        self._task = cocotb.start_soon(self._run())

    def send(self, item: dict) -> None:
        self.queue.append(item)

    async def wait_idle(self) -> None:
        while self.queue:
            await RisingEdge(self.clk)

    async def _run(self):
        driving = False
        fired = False
        while True:
            await RisingEdge(self.clk)
            if fired:
                self.queue.popleft()
                self.sent += 1
                driving = False
            if not driving and self.queue and self.rng.random() >= self.idle:
                for f, h in self.fields.items():
                    h.value = self.queue[0].get(f, 0)
                driving = True
            self.valid.value = int(driving)
            await ReadOnly()
            fired = driving and bool(int(self.ready.value))


class StreamSink:
    """Samples <prefix>valid/payload; drives <prefix>ready with random backpressure."""

    def __init__(self, clk, dut, prefix, fields, rng, stall=0.0, valid="valid", ready="ready",
                 callback=None):
        self.clk = clk
        self.valid = _sig(dut, prefix, valid)
        self.ready = _sig(dut, prefix, ready)
        self.fields = {f: _sig(dut, prefix, f) for f in fields}
        self.rng = rng
        self.stall = stall
        self.callback = callback
        self.queue: collections.deque = collections.deque()
        self.received = 0
        self._event = Event()
        self.ready.value = 0
        self._task = cocotb.start_soon(self._run())

    async def recv(self) -> dict:
        while not self.queue:
            self._event.clear()
            await self._event.wait()
        return self.queue.popleft()

    async def _run(self):
        while True:
            await RisingEdge(self.clk)
            self.ready.value = int(self.rng.random() >= self.stall)
            await ReadOnly()
            if int(self.ready.value) and int(self.valid.value):
                item = {f: int(h.value) for f, h in self.fields.items()}
                self.received += 1
                if self.callback is not None:
                    self.callback(item)
                else:
                    self.queue.append(item)
                    self._event.set()
