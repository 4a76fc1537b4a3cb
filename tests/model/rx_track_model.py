# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Reference model of the receive unit's block tracker (rtl/rx/qrdma_rx_track.sv,
docs/nic.md "Receive unit"): one entry per tracking key, the decision for each packet
looked up in order. Plain Python; used by tests/rx/test_qrdma_rx_track.py and by the
receive unit's model (tests/rx/test_qrdma_rx.py).

A lookup names its block by the generation and epoch its sender gave it (NET_HDR gen,
epoch): against the entry's it is the same block (same epoch and generation), a newer one
(no entry yet, another epoch, or a generation 1 .. 2^15 - 1 ahead modulo 2^16), or an
older one (stale, dropped, whether the entry is done or not). The seq plays no part in
the decision: the tracker passes it through for what the block's answers echo.

A DATA packet asks when its ask bit is set or it is its block's last packet. An asking
DATA packet written or a duplicate (same block), after which its block still lacks
packets, is answered with MISS (docs/reliability.md "Receiver: MISS answers"): `miss` in
the decision, and `last_miss` = (first missing packet, missing packets from it on up to
the next received one or the block's end)."""
from __future__ import annotations

from dataclasses import dataclass, field

DATA, INLINE, CONTROL = "data", "inline", "control"
DECISION = ("acc_wr", "acc_ctl", "dup", "stale", "first", "evt", "ntf", "ctl_keep", "redo",
            "miss")


@dataclass
class _Entry:
    gen: int
    epoch: int
    mask: set = field(default_factory=set)
    done: bool = False
    ctrl: bool = False
    wseen: bool = False


class TrackModel:
    """What the tracker decides for each lookup (op, key, gen, epoch, idx, bp, notify,
    ask)."""

    def __init__(self):
        self.ent: dict[int, _Entry] = {}
        self.last_miss: tuple[int, int] | None = None

    @staticmethod
    def run(mask: set, bp: int) -> tuple[int, int]:
        """(f, n): the lowest packet index of 0..bp-1 not in mask and the number of
        consecutive ones not in mask from it on (ending at one in mask or at bp)."""
        f = min(i for i in range(bp) if i not in mask)
        n = 1
        while f + n < bp and f + n not in mask:
            n += 1
        return f, n

    @staticmethod
    def order(e: _Entry | None, gen: int, epoch: int) -> str:
        """Block (gen, epoch) against entry e: "newer", "same" or "older"."""
        if e is None or epoch != e.epoch:
            return "newer"
        if gen == e.gen:
            return "same"
        return "newer" if (gen - e.gen) % 65536 < 32768 else "older"

    def lookup(self, op: str, key: int, gen: int, epoch: int = 0, idx: int = 0,
               bp: int = 1, notify: bool = False, ask: bool = False) -> dict:
        d = dict.fromkeys(DECISION, False)
        self.last_miss = None
        if op not in (DATA, INLINE, CONTROL):
            return d
        e = self.ent.get(key)
        o = self.order(e, gen, epoch)
        newer, same = o == "newer", o == "same"
        if op == CONTROL:
            if newer:
                self.ent[key] = _Entry(gen, epoch, ctrl=True)
                d["acc_ctl"] = d["ctl_keep"] = True
            elif same and not e.ctrl:
                e.ctrl = True
                d["acc_ctl"] = d["ctl_keep"] = True
                d["evt"] = d["ntf"] = e.done    # the block's ACK waited for this CONTROL
            else:
                d["dup" if same else "stale"] = True
                # a CONTROL again of a block whose event was issued: answered again
                d["redo"] = same and e.done
            return d
        if op == INLINE:
            idx, bp, ask = 0, 1, False
        asking = bool(ask) or idx == bp - 1
        if newer:
            e = self.ent[key] = _Entry(gen, epoch)
            d["first"] = True
        elif same and idx not in e.mask:
            d["first"] = not e.wseen
        else:
            d["dup" if same else "stale"] = True
            # a duplicate of a block whose completion event was issued (the last block
            # of a notifying transfer issues it with its CONTROL): answered again, once
            # per copy of the block, at its asking packet
            d["redo"] = (same and e.done and asking
                         and (op == INLINE or not notify or e.ctrl))
            self._miss(d, op == DATA and same and asking, e, bp)
            return d
        d["acc_wr"] = True
        e.mask.add(idx)
        e.wseen = True
        complete = not e.done and len(e.mask) == bp
        e.done = e.done or complete
        if op == INLINE:
            d["evt"] = complete
            d["ntf"] = d["ctl_keep"] = complete and bool(notify)
        else:
            # the last block of a notifying transfer waits for its CONTROL
            d["evt"] = complete and (not notify or (not newer and e.ctrl))
            d["ntf"] = complete and bool(notify)
        self._miss(d, op == DATA and asking, e, bp)
        return d

    def _miss(self, d: dict, asking: bool, e: _Entry, bp: int) -> None:
        """An asking DATA packet written or a duplicate: MISS while its block lacks packets
        (a complete block never, even when its CONTROL has not come)."""
        if asking and not e.done:
            d["miss"] = True
            self.last_miss = self.run(e.mask, bp)
