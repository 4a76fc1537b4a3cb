# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""qrdma_crc32_512 against zlib.crc32: random frames of 1..9000 bytes (and the edges around
one and two beats, and 9000), back to back and with random idle cycles, random bytes
outside s_keep and random inputs while s_valid is low; every m_crc is compared with
zlib.crc32, m_valid must pulse exactly once per frame, in order, exactly LATENCY cycles
after the frame's last beat. Also: a reset in the middle of a frame starts a new frame,
and the s_keep check (an assertion) stops the simulation on each kind of violation, one
simulation per violation (tests/violation.py); legal frames never fail it (every
simulation runs with assertions on)."""
import collections
import os
import zlib

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

import violation
from seeding import seed_rng
from simrun import full


class CrcModel:
    """What the block must do: one CRC per frame, zlib.crc32 of its bytes, LATENCY cycles
    after the cycle its last beat was given; beats of a frame are KEEP_W bytes, the last
    one 1..KEEP_W."""

    def __init__(self, keep_w, latency):
        self.kw = keep_w
        self.lat = latency
        self.due = collections.deque()  # (cycle m_valid is due, crc)

    def beats(self, frame: bytes):
        """The (bytes, last) beats of a frame."""
        for i in range(0, len(frame), self.kw):
            yield frame[i:i + self.kw], i + self.kw >= len(frame)

    def frame_done(self, now, frame: bytes):
        self.due.append((now + self.lat, zlib.crc32(frame)))


class Driver:
    """Drives s_* and checks m_* once per cycle (drive after RisingEdge, sample in ReadOnly
    of the same cycle)."""

    def __init__(self, dut, rng, model):
        self.dut = dut
        self.rng = rng
        self.model = model
        self.kw = model.kw
        self.keep_zero = int(os.environ.get("P_KEEP_ZERO", "0"))
        self.now = 0
        self.crcs = 0  # m_valid pulses seen

    def _drive_idle(self):
        d, r = self.dut, self.rng
        d.s_valid.value = 0
        d.s_data.value = r.getrandbits(8 * self.kw)  # ignored while s_valid is low
        d.s_keep.value = r.getrandbits(self.kw)
        d.s_last.value = r.getrandbits(1)

    def _drive_beat(self, data: bytes, last: bool):
        d, r = self.dut, self.rng
        n = len(data)
        # bytes outside s_keep are random (the block must ignore them), zero with KEEP_ZERO
        pad = bytes(self.kw - n) if self.keep_zero else r.randbytes(self.kw - n)
        word = int.from_bytes(data + pad, "little")
        d.s_valid.value = 1
        d.s_data.value = word
        d.s_keep.value = (1 << n) - 1
        d.s_last.value = int(last)

    async def cycle(self, beat=None):
        """One clock cycle; beat = (data, last) or None for an idle cycle. Returns after
        checking this cycle's outputs."""
        await RisingEdge(self.dut.clk)
        if beat is None:
            self._drive_idle()
        else:
            self._drive_beat(*beat)
        await ReadOnly()
        self.now += 1
        self.check()

    def check(self):
        due = self.model.due
        if int(self.dut.m_valid.value):
            assert due, f"cycle {self.now}: m_valid with no frame outstanding"
            when, crc = due.popleft()
            assert when == self.now, f"cycle {self.now}: m_valid, expected in cycle {when}"
            got = int(self.dut.m_crc.value)
            assert got == crc, f"cycle {self.now}: m_crc {got:#010x} != zlib {crc:#010x}"
            self.crcs += 1
        else:
            assert not due or due[0][0] > self.now, \
                f"cycle {self.now}: m_valid missing (due in cycle {due[0][0]})"

    async def send(self, frame: bytes, idle: float):
        for data, last in self.model.beats(frame):
            while self.rng.random() < idle:
                await self.cycle()
            await self.cycle((data, last))
        self.model.frame_done(self.now, frame)

    async def drain(self):
        for _ in range(self.model.lat + 3):
            await self.cycle()
        assert not self.model.due, f"{len(self.model.due)} CRCs never came out"


async def setup(dut, name):
    rng = seed_rng(name)
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    kw = int(os.environ["P_DATA_W"]) // 8
    lat = int(dut.LATENCY.value)
    assert lat == int(os.environ["P_LATENCY"]), "LATENCY differs from the documented value"
    drv = Driver(dut, rng, CrcModel(kw, lat))
    dut.s_valid.value = 0
    await reset(dut)
    return rng, drv


async def reset(dut, cycles=3):
    dut.rst.value = 1
    for _ in range(cycles):
        await RisingEdge(dut.clk)
    dut.rst.value = 0


def frame_sizes(rng, kw):
    """Edges (around one and two beats, 9000) and random lengths, small ones weighted up."""
    edges = {1, 63, 64, 65, 127, 128, 9000, kw - 1, kw, kw + 1, 2 * kw - 1, 2 * kw, 2 * kw + 1}
    sizes = sorted(s for s in edges if 1 <= s <= 9000)
    # bytes per test scale with the beat width, so that every width runs a similar
    # number of cycles; ten times more under QRDMA_FULL (make test-full)
    budget = max(6000 * kw, 30000) * (10 if full() else 1)
    total = 0
    while total < budget:
        s = rng.randint(1, 9000) if rng.random() < 0.3 else rng.randint(1, 3 * kw)
        sizes.append(s)
        total += s
    rng.shuffle(sizes)
    return sizes


@cocotb.test()
async def crc_random_frames(dut):
    """Random frames, each with its own idle pattern: back to back or random idle cycles."""
    rng, drv = await setup(dut, "crc_random_frames")
    sizes = frame_sizes(rng, drv.kw)
    for n in sizes:
        idle = rng.choice([0.0, 0.0, 0.3, 0.8])
        await drv.send(rng.randbytes(n), idle)
        if rng.random() < 0.2:  # occasional gap between frames only
            for _ in range(rng.randint(1, 4)):
                await drv.cycle()
    await drv.drain()
    assert drv.crcs == len(sizes)
    dut._log.info("%d frames, %d cycles", len(sizes), drv.now)


@cocotb.test()
async def crc_one_beat_frames(dut):
    """Back-to-back one-beat frames of every length 1..KEEP_W: a CRC every cycle."""
    rng, drv = await setup(dut, "crc_one_beat_frames")
    for _ in range(3):
        for n in rng.sample(range(1, drv.kw + 1), drv.kw):
            await drv.send(rng.randbytes(n), 0.0)
    await drv.drain()
    assert drv.crcs == 3 * drv.kw


@cocotb.test()
async def crc_reset_mid_frame(dut):
    """A reset drops a half-sent frame; the next beat starts a new one."""
    rng, drv = await setup(dut, "crc_reset_mid_frame")
    for _ in range(4):
        frame = rng.randbytes(rng.randint(2 * drv.kw + 1, 6 * drv.kw))
        beats = list(drv.model.beats(frame))
        for b in beats[:rng.randint(1, len(beats) - 1)]:
            await drv.cycle(b)
        await RisingEdge(dut.clk)
        dut.s_valid.value = 0
        await reset(dut, rng.randint(1, 3))
        drv.now = 0  # cycles restart counting; nothing is outstanding
        await drv.send(rng.randbytes(rng.randint(1, 3 * drv.kw)), 0.0)
        await drv.send(rng.randbytes(rng.randint(1, 3 * drv.kw)), 0.3)
        await drv.drain()


def keep_violations(kw):
    """(case, what, s_keep, s_last) of every kind of s_keep violation a KEEP_W of kw has."""
    ones = (1 << kw) - 1
    bad = []
    if kw > 1:
        bad += [("short_not_last", "short beat that is not the last", ones >> 1, 0),
                ("hole_not_last", "beat with a hole that is not the last",
                 ones & ~(1 << (kw // 2)), 0),
                ("last_no_byte0", "last beat without byte 0", (1 << kw) - 2, 1)]
    if kw > 2:
        bad.append(("last_hole", "last beat with a hole", 0b101, 1))
    bad.append(("last_empty", "last beat with no byte", 0, 1))
    return bad


@cocotb.test(skip=violation.skip())
async def crc_keep_violation(dut):
    """A legal frame, then the s_keep violation P_VIOLATION: the assertion stops the run."""
    rng, drv = await setup(dut, "crc_keep_violation")
    kw = drv.kw
    _, what, keep, last = next(v for v in keep_violations(kw) if v[0] == violation.case())
    await drv.send(rng.randbytes(3 * kw - 1), 0.0)
    await drv.drain()
    await RisingEdge(dut.clk)
    violation.announce(dut, what)
    dut.s_valid.value = 1
    dut.s_data.value = rng.getrandbits(8 * kw)
    dut.s_keep.value = keep
    dut.s_last.value = last
    await RisingEdge(dut.clk)
    dut.s_valid.value = 0
    for _ in range(3):
        await RisingEdge(dut.clk)
    violation.not_stopped(what)


def idx_w(n):
    return 1 if n <= 1 else (n - 1).bit_length()


def latency(data_w, data_pipe=0, corr_pipe=0):
    """The documented LATENCY: 2 + one correction stage per 2 bits of the missing-byte
    count (5 for 512-bit beats), one more with DATA_PIPE; with CORR_PIPE one correction
    stage per 3 bits and one register after them (the same for 512-bit beats)."""
    m_w = idx_w(data_w // 8)
    return 2 + data_pipe + ((m_w + 2) // 3 + 1 if corr_pipe else (m_w + 1) // 2)


def crc_params():
    """DATA_W, TAB_BITS, KEEP_ZERO, DATA_PIPE, CORR_PIPE: the forms synthesized (512 bits,
    TAB_BITS 4; the send unit's with the bytes outside s_keep ignored, the receive
    buffer's with them zero, the data term in two stages and the correction in partial
    XORs), the other table form (8: the same function) at 64 bits, the one-byte beat and
    the partial-XOR correction with a single stage (64 bits); each table form at each
    width in make test-full."""
    p = [(512, 4, 0, 0, 0), (512, 4, 1, 1, 1), (64, 8, 0, 0, 0), (8, 4, 0, 0, 0),
         (64, 4, 0, 0, 1)]
    if full():
        p += [(512, 8, 0, 0, 0), (512, 4, 1, 0, 0), (512, 4, 1, 1, 0), (512, 4, 0, 0, 1),
              (64, 4, 0, 0, 0), (64, 4, 1, 0, 0), (24, 8, 0, 0, 0), (24, 8, 0, 1, 0),
              (64, 4, 0, 1, 0), (8, 4, 0, 0, 1), (24, 8, 0, 1, 1)]
    return p


@pytest.mark.parametrize("data_w,tab_bits,keep_zero,data_pipe,corr_pipe", crc_params())
def test_qrdma_crc32_512(data_w, tab_bits, keep_zero, data_pipe, corr_pipe):
    from simrun import run

    run("qrdma_crc32_512", "test_qrdma_crc32_512",
        {"DATA_W": data_w, "TAB_BITS": tab_bits, "KEEP_ZERO": keep_zero,
         "DATA_PIPE": data_pipe, "CORR_PIPE": corr_pipe},
        extra_env={"P_DATA_W": str(data_w),
                   "P_LATENCY": str(latency(data_w, data_pipe, corr_pipe)),
                   "P_KEEP_ZERO": str(keep_zero)})


@pytest.mark.parametrize("kind", [v[0] for v in keep_violations(8)])
def test_qrdma_crc32_512_keep_violation(capfd, kind):
    """Each kind of s_keep violation stops the simulation on the keep assertion (64-bit
    beats: every kind exists)."""
    p = {"DATA_W": 64, "TAB_BITS": 4}
    violation.run_violation(capfd, "qrdma_crc32_512", "test_qrdma_crc32_512", p,
                            "crc_keep_violation", kind, "breaks the keep rule",
                            extra_env={"P_DATA_W": "64", "P_LATENCY": str(latency(64))})
