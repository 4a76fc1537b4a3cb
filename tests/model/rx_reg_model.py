# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Reference model of the receive-side registration table (rtl/rx/qrdma_rx_reg.sv,
docs/registration.md): the items (block events and lookups) handled one at a time, in
order; the escape records replayed when their operation registers, before the next item.
Untimed: an escape record times out only when the bench says so (`expire`, after waiting
past the timeout); the random benches run with the timeout off.
Plain Python; used by tests/rx/test_qrdma_rx_reg.py."""
from __future__ import annotations

from dataclasses import dataclass, field

OUTCOMES = ("reg", "ntf", "dup", "late", "bad", "conflict", "replace", "esc", "esc_drop")


@dataclass
class Entry:
    key: int
    cnt: int
    info: int
    mask: set = field(default_factory=set)
    notified: bool = False


def fold(key: int, key_w: int, entries: int) -> int:
    """The entry of a key: its low key_w bits (its channel) folded by XOR into
    log2(entries) bits."""
    eiw = max(1, entries.bit_length() - 1)
    h = 0
    for i in range(key_w):
        if key >> i & 1:
            h ^= 1 << (i % eiw)
    return h


class RegModel:
    """What the table answers to each item: `ntfs` (key, info) in order, `ctls` (key,
    notified) in order, `stats` per outcome."""

    def __init__(self, key_w: int, entries: int, mask_w: int, esc_depth: int,
                 hash_w: int | None = None):
        self.key_w, self.entries, self.mask_w = key_w, entries, mask_w
        self.hash_w = key_w if hash_w is None else hash_w   # the key's channel bits
        self.table: dict[int, Entry] = {}
        self.esc: list[tuple[int, int] | None] = [None] * esc_depth
        self.ntfs: list[tuple[int, int]] = []
        self.ctls: list[tuple[int, bool]] = []
        self.stats = {k: 0 for k in OUTCOMES}
        self.timeouts = 0

    def _event(self, key: int, blk: int, first: bool, cnt: int, info: int) -> None:
        st = self.stats
        h = fold(key, self.hash_w, self.entries)
        e = self.table.get(h)
        if e is not None and e.key == key:
            if e.notified:
                st["late"] += 1
            elif blk >= e.cnt:
                st["bad"] += 1
            elif blk in e.mask:
                st["dup"] += 1
            else:
                e.mask.add(blk)
                if len(e.mask) == e.cnt:
                    self._notify(e)
            return
        if first:
            if not (1 <= cnt <= self.mask_w and blk < cnt):
                st["bad"] += 1
                return
            if e is not None and (e.key ^ key) % (1 << self.hash_w) == 0:
                # an operation of the same channel is over: freed, this one registers
                st["replace"] += 1
                del self.table[h]
            elif e is not None:
                st["conflict"] += 1
                return
            e = self.table[h] = Entry(key, cnt, info, {blk})
            st["reg"] += 1
            if cnt == 1:
                self._notify(e)
            # the key's escape records, lowest first
            for i, r in enumerate(self.esc):
                if r is not None and r[0] == key:
                    self.esc[i] = None
                    self._event(r[0], r[1], False, 0, 0)
            return
        for i, r in enumerate(self.esc):
            if r is None:
                self.esc[i] = (key, blk)
                st["esc"] += 1
                return
        st["esc_drop"] += 1

    def _notify(self, e: Entry) -> None:
        e.notified = True
        self.stats["ntf"] += 1
        self.ntfs.append((e.key, e.info))

    def event(self, key: int, blk: int, first: bool = False, cnt: int = 0,
              info: int = 0) -> None:
        """A block of operation `key` placed; `first`: it registers the operation."""
        self._event(key, blk, first, cnt, info)

    def expire(self, key: int) -> None:
        """The key's escape records time out (a bench that waited past the timeout)."""
        for i, r in enumerate(self.esc):
            if r is not None and r[0] == key:
                self.esc[i] = None
                self.timeouts += 1

    def lookup(self, key: int) -> None:
        """The operation's sender-driven completion: answered, the entry and the key's
        escape records freed."""
        h = fold(key, self.hash_w, self.entries)
        e = self.table.get(h)
        hit = e is not None and e.key == key
        self.ctls.append((key, bool(hit and e.notified)))
        if hit:
            del self.table[h]
        self.esc = [None if r is not None and r[0] == key else r for r in self.esc]
