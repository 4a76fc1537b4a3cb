# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Reference model of the link fault model of one direction (docs/sim.md "Faults"): what
the harness's FaultLine (sim/faults.h) and the testbench link (tests/top/tb_qrdma_link.sv)
must do, packet by packet and cycle by cycle.

Decisions: packet n of direction src -> dst draws its random words fault_rand(seed, src,
dst, n, k) (splitmix64 mixing); k = 0 loss, 1 corrupt, 2 dup, 3 delay, 4 the duplicate's
delay, 5 the flip's position. Precedence at the header beat: silent sender, link down,
loss (the packet and all its beats are dropped); at the last beat: delay (0..D), duplicate
(a clean copy with its own delay), corruption (one bit of a kept byte of a beat, of tuser
when the beat keeps none).

Timing (store and forward): a kept packet may go on the wire from its last beat's cycle +
its delay on; each cycle the line puts at most one beat on the wire (a FIFO of `latency`
cycles and `depth` beats): the packet on the wire continues, else the copy due first
starts (ties: the packet taken first, the original before its duplicate). It holds up to
`cap` beats (2 * D + 1024 rounded up to a power of two); a beat is freed once every copy of
its packet and of every packet before it is on the wire.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

M64 = (1 << 64) - 1
W_LOSS, W_CORRUPT, W_DUP, W_DELAY, W_DUP_DELAY, W_FLIP = range(6)


def mix64(z: int) -> int:
    z = (z + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def fault_rand(seed: int, src: int, dst: int, pkt: int, k: int) -> int:
    d = mix64(seed ^ ((src << 32) | dst))
    return mix64((mix64(d ^ pkt) + k) & M64)


def hit(r: int, p: float) -> bool:
    return (r >> 11) * 2.0 ** -53 < p


@dataclass
class Faults:
    loss: float = 0.0
    corrupt: float = 0.0
    dup: float = 0.0
    reorder: int = 0
    down_start: int = 0
    down_len: int = 0
    down_period: int = 0
    silent: bool = False
    seed: int = 0
    src: int = 0
    dst: int = 0

    def down(self, t: int) -> bool:
        if self.down_len == 0 or t < self.down_start:
            return False
        d = t - self.down_start
        return (d % self.down_period if self.down_period else d) < self.down_len

    def cap(self) -> int:
        c = 1
        while c < 2 * self.reorder + 1024:
            c <<= 1
        return c


@dataclass
class Fate:
    """What happens to a packet that is kept."""
    seq: int
    delay: int = 0
    dup_delay: int | None = None
    flip: tuple[int, int] | None = None   # (beat, bit: byte*8+bit, or 512+bit of tuser)


def dropped(f: Faults, seq: int, take_cycle: int) -> str:
    """Why packet seq, whose header beat is taken in take_cycle, is dropped ("" if not)."""
    if f.silent:
        return "silenced"
    if f.down(take_cycle):
        return "down_lost"
    if f.loss > 0 and hit(fault_rand(f.seed, f.src, f.dst, seq, W_LOSS), f.loss):
        return "lost"
    return ""


def fate(f: Faults, seq: int, beats: int, keeps: list[int]) -> Fate:
    """The fate of kept packet seq of `beats` beats with these keep masks."""
    r = lambda k: fault_rand(f.seed, f.src, f.dst, seq, k)  # noqa: E731
    out = Fate(seq)
    span = f.reorder + 1
    out.delay = r(W_DELAY) % span if f.reorder else 0
    if f.dup > 0 and hit(r(W_DUP), f.dup):
        out.dup_delay = r(W_DUP_DELAY) % span if f.reorder else 0
    if f.corrupt > 0 and hit(r(W_CORRUPT), f.corrupt):
        x = r(W_FLIP)
        b = x % beats
        keep = keeps[b]
        kept = [i for i in range(64) if keep >> i & 1]
        if kept:
            out.flip = (b, kept[(x >> 32) % len(kept)] * 8 + ((x >> 8) & 7))
        else:
            out.flip = (b, 512 + ((x >> 8) & 31))
    return out


def fault_cfg(f: Faults) -> int:
    """The fault_cfg input of tests/top/tb_qrdma_link.sv: probabilities as ceil(p * 2^53)
    (the harness's test, double(r >> 11) * 2^-53 < p, exactly)."""
    thr = lambda p: math.ceil(p * 2.0 ** 53)  # noqa: E731
    fields = [(f.seed, 64), (thr(f.loss), 64), (thr(f.corrupt), 64), (thr(f.dup), 64),
              (f.reorder, 32), (f.down_start, 64), (f.down_len, 64), (f.down_period, 64),
              (int(f.silent), 1)]
    v, at = 0, 0
    for x, w in fields:
        v |= x << at
        at += w
    return v


COUNT_NAMES = ("packets_in", "beats_in", "packets_out", "beats_out", "silenced", "down_lost",
               "lost", "dropped_beats", "corrupted", "duplicated", "dup_beats", "delayed",
               "reordered")


@dataclass
class _Held:
    seq: int
    beats: list = field(default_factory=list)   # (beat index, keep)
    complete: bool = False
    due: list = field(default_factory=list)
    sent: list = field(default_factory=list)
    flip: tuple | None = None


def run(f: Faults, packets: list[tuple[int, int, int]], latency: int = 100, depth: int = 256,
        rx_stall: tuple[int, int] = (0, 0), max_cycles: int = 10_000_000):
    """The driver of sim/check_faults.cc: packets are (beats, keep_bytes of the last beat,
    gap before it). Returns (delivered beats as (cycle, packet, beat, last, flip or -1),
    counts, end cycle)."""
    cap = f.cap()
    n = dict.fromkeys(COUNT_NAMES, 0)
    held: list[_Held] = []          # packets held, in the order taken
    stored = freed = 0              # beats in the line: stored - freed
    wire: list[tuple[int, tuple]] = []   # (due cycle, beat) in order
    out = []
    k, b, wait = 0, 0, packets[0][2] if packets else 0
    seq = 0
    dropping = False
    in_pkt = False
    cur = None                      # (held packet, copy, next beat)
    t = 0
    sp, ss = rx_stall
    while t < max_cycles:
        if k == len(packets) and not held and not in_pkt and not wire:
            break
        wire_len_seen = len(wire)
        ready = stored - freed < cap
        rx = wire[0][1] if wire and wire[0][0] <= t else None
        # the sender
        if k < len(packets):
            if wait:
                wait -= 1
            elif ready:
                nb, kb, _ = packets[k]
                last = b + 1 == nb
                keep = ((1 << kb) - 1 if kb < 64 else (1 << 64) - 1) if last else (1 << 64) - 1
                if not in_pkt:
                    s = seq
                    seq += 1
                    n["packets_in"] += 1
                    why = dropped(f, s, t)
                    dropping = bool(why)
                    if dropping:
                        n[why] += 1
                    else:
                        held.append(_Held(s))
                n["beats_in"] += 1
                in_pkt = not last
                if dropping:
                    n["dropped_beats"] += 1
                else:
                    h = held[-1]
                    h.beats.append((b, keep, k))
                    stored += 1
                    if last:
                        h.complete = True
                        fa = fate(f, h.seq, len(h.beats), [x[1] for x in h.beats])
                        h.due = [t + fa.delay]
                        if fa.delay:
                            n["delayed"] += 1
                        if fa.dup_delay is not None:
                            h.due.append(t + fa.dup_delay)
                            n["duplicated"] += 1
                            n["dup_beats"] += len(h.beats)
                        h.sent = [False] * len(h.due)
                        h.flip = fa.flip
                        if fa.flip:
                            n["corrupted"] += 1
                if last:
                    k += 1
                    b = 0
                    wait = packets[k][2] if k < len(packets) else 0
                else:
                    b += 1
        # the line puts a beat on the wire (room as of the cycle's start: pops of this
        # cycle come after)
        if wire_len_seen < depth:
            if cur is None:
                best = None
                for i, h in enumerate(held):
                    if not h.complete:
                        break
                    for c, d in enumerate(h.due):
                        if not h.sent[c] and d <= t and (best is None or d < best[2]):
                            best = (i, c, d)
                if best is not None:
                    i, c, _ = best
                    cur = [held[i], c, 0]
                    if not any(held[i].sent) and any(not any(h.sent) for h in held[:i]):
                        n["reordered"] += 1
            if cur is not None:
                h, c, bi = cur
                bidx, keep, pk = h.beats[bi]
                flip = h.flip[1] if (c == 0 and h.flip and h.flip[0] == bi) else -1
                lastb = bi + 1 == len(h.beats)
                wire.append((t + latency, (pk, bidx, int(lastb), flip)))
                n["beats_out"] += 1
                cur[2] += 1
                if lastb:
                    h.sent[c] = True
                    n["packets_out"] += 1
                    cur = None
                    while held and held[0].complete and all(held[0].sent):
                        freed += len(held[0].beats)
                        held.pop(0)
        # the receiver
        if rx is not None and not (sp and t % sp < ss):
            out.append((t,) + rx)
            wire.pop(0)
        t += 1
    return out, n, t
