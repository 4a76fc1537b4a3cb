# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""NICs through the fabric RTL in the system simulation (docs/sim.md "Links", topo=star:
a fabric port per NIC and one switch, links of the harness's latency). qrdma-stress -N
runs all-to-all random traffic: every slot of every node writes to another node (memory
writes up to 256 KiB, inline writes, notifications, multipath, 64-byte descriptors), the
notification rings small and drained at slow random intervals. Every byte and
notification is checked by the tool; no packet is dropped anywhere in the fabric (the
harness reports any drop of the switch or of a port on stderr), also with host memory
writes slow enough that every buffer of the fabric fills (without the switch's credits
toward the nodes thousands of packets are dropped there); the same seed through two
planes (topo=planes: a port per plane at each node, the multipath transfers' blocks
spread over both, links at half the NIC's rate) and through two switches (topo=dumbbell:
half the nodes on each, every packet between them over the trunk, two hops) are checked as
well. N = 4 on the default build; N = 8
on a NIC_NODES=8 build with make test-full. With faults on the fabric's links (loss,
corruption, link-down windows) and the NICs' reliability on, every byte and notification
is still exact.
Replay: QRDMA_SEED=<seed printed>."""
from __future__ import annotations

import os
import random
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_sim_harness import BUILD, ROOT, _make, _run  # noqa: E402

N8_BUILD = ROOT / "build" / "sim_harness_n8"


def _stress(build: Path, nodes: int, seed: int, topo: str, extra: str) -> str:
    rings = ",".join(str(v) for v in (8, 2, 4, 1, 8, 1, 2, 4)[:nodes])
    drains = ",".join(str(v) for v in (2000, 5000, 1000, 3000, 500, 8000, 2500, 1500)[:nodes])
    spec = f"mem=256M,nodes={nodes},topo={topo}" + extra
    out = _run(build / "qrdma-stress", "-s", str(seed), "-N", str(nodes), "-P", "4", "-C", "4",
               "-n", "2", "-S", "256K", "-r", rings, "-d", drains, "-B", spec, timeout=900)
    assert "all exact" in out
    return out


@pytest.mark.parametrize("nodes", [4] + ([8] if os.environ.get("QRDMA_FULL") else []))
def test_fabric_all_to_all(nodes: int, capfd) -> None:
    if nodes == 4:
        _make("all", "libqrdma")
        build = BUILD
    else:
        _make("NIC_NODES=8", f"BUILD={N8_BUILD}", "all", "libqrdma")
        build = N8_BUILD
    s = os.environ.get("QRDMA_SEED")
    seed = int(s) if s else random.SystemRandom().randrange(1 << 31)
    print(f"fabric: seed {seed} (replay with QRDMA_SEED={seed})")
    # (slow memory writes: the receive buffers, the switch's crosspoints and the ports'
    # queues fill, and only the credits keep them from overflowing)
    for topo, extra in (("star", ""), ("star", ",mem_wr=2000"), ("planes", ",link_div=2"),
                        ("dumbbell", "")):
        _stress(build, nodes, seed, topo, extra)
        err = capfd.readouterr().err
        assert "packets dropped" not in err, f"{topo}{extra}: {err[-2000:]}"


@pytest.mark.parametrize("topo", ["star", "planes", "dumbbell"])
def test_fabric_faults(topo: str, capfd) -> None:
    """Faults on every link of the fabric, between a port and its switch and on the
    dumbbell's trunk (docs/fabric.md "Faults on fabric links"): 1 % of the packets lost,
    0.5 % corrupted (one bit flipped), and a link-down window of 2,000 cycles every
    25,000 on every link, data, credit and sync
    beats alike; the NICs' reliability on (qrdma-stress -R). Every byte and notification
    exact: the sync beats return the credits of what the links lose (without them a
    class runs out of credits and transfers end in ERROR), the NICs re-send the packets."""
    _make("all", "libqrdma")
    s = os.environ.get("QRDMA_SEED")
    seed = int(s) if s else random.SystemRandom().randrange(1 << 31)
    print(f"fabric faults: seed {seed} (replay with QRDMA_SEED={seed})")
    extra = ",link_div=2" if topo == "planes" else ""
    out = _run(BUILD / "qrdma-stress", "-s", str(seed), "-N", "4", "-P", "4", "-C", "4",
               "-n", "3", "-S", "256K", "-R", "20000", "-T", "5000", "-B",
               f"mem=256M,nodes=4,topo={topo}{extra},loss=0.01,corrupt=0.005,"
               f"down=20000:2000:25000,seed={seed},watchdog=0", timeout=900)
    assert "all exact" in out
    err = capfd.readouterr().err
    m = re.search(r"faults: packets=(\d+) lost=(\d+) down_lost=(\d+) corrupted=(\d+)", err)
    assert m, err[-2000:]
    packets, lost, down, corrupted = (int(g) for g in m.groups())
    assert packets > 5000 and lost > 10 and down > 10 and corrupted > 5, m.group(0)
