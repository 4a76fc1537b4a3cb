# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The link fault model (docs/sim.md "Faults").

The model of one direction alone (qrdma_sim_check_faults, sim/faults.h) against the
reference model (tests/model/link_fault_model.py): every beat delivered, its cycle, packet,
beat, tlast and flipped bit, the counts and the cycle the line drained, exactly; plus the
rules checked on the output alone: packets never interleave, a delivered packet is whole
and in beat order, dropped packets are absent, duplicates come twice, beats are conserved,
the same seed gives the same run and another seed another one (1,500 packets per case;
10,000 with QRDMA_FULL).

Two NICs through libqrdma (qrdma_sim_check_faults_sys) with the faults the NIC handles
today: corruption (RX_CRC_DROP of each receiver = the corrupted packets of the direction
into it), duplication and reordering (every write finishes with every byte right), the
same output line for line with threads on and off; with RETX_TIMEOUT set, loss, corruption
and a silent node end every write DONE or ERROR (docs/reliability.md); and qrdma-perf's
-B fault keys.
"""
from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_sim_harness import BUILD, _make, _run  # noqa: E402
from model.link_fault_model import Faults, run  # noqa: E402
from simrun import full  # noqa: E402


@pytest.fixture(scope="module")
def harness() -> Path:
    _make("all", "libqrdma")
    return BUILD


def _traffic(seed: int, n: int) -> list[tuple[int, int, int]]:
    rng = random.Random(seed)
    return [(rng.choice([1, 1, 2, 17, rng.randrange(1, 18)]), rng.randrange(0, 65),
             rng.choice([0, 0, 0, 1, 5])) for _ in range(n)]


def _line(harness: Path, tmp_path: Path, packets, args: list[str]):
    tr = tmp_path / "traffic"
    tr.write_text("".join(f"{a} {b} {c}\n" for a, b, c in packets))
    r = subprocess.run([str(harness / "qrdma_sim_check_faults"), "--traffic", str(tr), *args],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    beats = [tuple(int(x) for x in ln.split()[1:]) for ln in lines if ln.startswith("beat ")]
    counts = {kv.split("=")[0]: int(kv.split("=")[1])
              for ln in lines if ln.startswith("counts ") for kv in ln.split()[1:]}
    end = int(next(ln for ln in lines if ln.startswith("end ")).split()[1])
    return beats, counts, end


def _rules(packets, beats, n, f: Faults) -> None:
    """What must hold of any run, from the delivered beats alone."""
    copies: dict[int, int] = {}
    k = 0
    while k < len(beats):
        pkt = beats[k][1]
        nb = packets[pkt][0]
        run_ = beats[k:k + nb]
        assert [b[1] for b in run_] == [pkt] * nb, "beats of two packets interleaved"
        assert [b[2] for b in run_] == list(range(nb)), "a packet delivered out of beat order"
        assert [b[3] for b in run_] == [0] * (nb - 1) + [1]
        copies[pkt] = copies.get(pkt, 0) + 1
        k += nb
    assert sum(1 for c in copies.values() if c == 2) == n["duplicated"]
    assert all(c in (1, 2) for c in copies.values())
    assert len(copies) == n["packets_in"] - n["silenced"] - n["down_lost"] - n["lost"]
    assert n["packets_out"] == len(copies) + n["duplicated"]
    assert n["beats_out"] == n["beats_in"] - n["dropped_beats"] + n["dup_beats"] == len(beats)
    assert n["corrupted"] == sum(1 for b in beats if b[4] >= 0)
    assert n["beats_in"] == sum(p[0] for p in packets)
    first = [b[1] for b in beats if b[2] == 0]
    seen, overtakes = set(), 0
    for p in first:
        if p not in seen:
            overtakes += any(q < p and q in copies and q not in seen for q in range(p))
            seen.add(p)
    assert overtakes == n["reordered"]
    if not f.reorder:
        assert n["reordered"] == 0 and n["delayed"] == 0


CASES = {
    # name: (faults, driver arguments, link latency/depth/receiver stall)
    "all": (Faults(loss=0.05, corrupt=0.05, dup=0.05, reorder=200, seed=7, src=0, dst=1),
            ["--loss", "0.05", "--corrupt", "0.05", "--dup", "0.05", "--reorder", "200",
             "--seed", "7", "--src", "0", "--dst", "1"], {}),
    "loss": (Faults(loss=0.01, seed=11, src=1, dst=0),
             ["--loss", "0.01", "--seed", "11", "--src", "1", "--dst", "0"], {}),
    "corrupt": (Faults(corrupt=0.1, seed=2), ["--corrupt", "0.1", "--seed", "2"], {}),
    "dup-backpressure": (Faults(dup=0.3), ["--dup", "0.3", "--depth", "120", "--rx-stall", "7:3"],
                         {"depth": 120, "rx_stall": (7, 3)}),
    "reorder-short-link": (Faults(reorder=50, seed=5), ["--reorder", "50", "--seed", "5",
                                                        "--latency", "8", "--depth", "16"],
                           {"latency": 8, "depth": 16}),
    "down": (Faults(down_start=1000, down_len=500, down_period=5000, seed=3),
             ["--down", "1000:500:5000", "--seed", "3"], {}),
    "down-dup-stall": (Faults(dup=0.2, down_start=300, down_len=200, down_period=1000, seed=1),
                       ["--dup", "0.2", "--down", "300:200:1000", "--seed", "1",
                        "--rx-stall", "7:3"], {"rx_stall": (7, 3)}),
    "down-once": (Faults(down_start=2000, down_len=3000), ["--down", "2000:3000"], {}),
    "silent": (Faults(silent=True, loss=0.5), ["--silent", "--loss", "0.5"], {}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_line_against_model(harness: Path, tmp_path: Path, case: str) -> None:
    f, args, kw = CASES[case]
    packets = _traffic(sum(map(ord, case)), 10000 if full() else 1500)
    beats, counts, end = _line(harness, tmp_path, packets, args)
    want_beats, want_counts, want_end = run(f, packets, **kw)
    assert counts == want_counts
    assert beats == want_beats
    assert end == want_end
    _rules(packets, beats, counts, f)
    print(case, counts)
    if case == "silent":
        assert counts["silenced"] == len(packets) and not beats
    if case == "down-once":
        # the packets whose header beat was taken in cycles 2000 .. 4999 and none other
        assert counts["down_lost"] > 0 and counts["lost"] == 0
    if case == "all":
        for k in ("lost", "corrupted", "duplicated", "delayed", "reordered"):
            assert counts[k] > 0, k


def test_seed(harness: Path, tmp_path: Path) -> None:
    """A seed replays a run; another seed gives another; the packets lost at a loss rate
    are the same whatever the other faults (one decision per packet and fault kind)."""
    packets = _traffic(1, 2000)
    a = _line(harness, tmp_path, packets, ["--loss", "0.05", "--seed", "9"])
    b = _line(harness, tmp_path, packets, ["--loss", "0.05", "--seed", "9"])
    c = _line(harness, tmp_path, packets, ["--loss", "0.05", "--seed", "10"])
    d = _line(harness, tmp_path, packets, ["--loss", "0.05", "--seed", "9", "--dup", "0.1",
                                            "--reorder", "100", "--corrupt", "0.1"])
    assert a == b and a[0] != c[0]
    assert {x[1] for x in a[0]} == {x[1] for x in d[0]}
    assert a[1]["lost"] == d[1]["lost"]


def _sys(harness: Path, spec: str, n: int, seed: int, threads: str, retx_timeout: int = 0,
         retries: int = 0, resend: int | None = None) -> str:
    """resend: RETRY_LIMIT.resend (None: RETRY_LIMIT written only with retx_timeout)"""
    extra = [str(retx_timeout), str(retries)] if retx_timeout or resend is not None else []
    extra += [str(resend)] if resend is not None else []
    return _run(harness / "qrdma_sim_check_faults_sys", f"{spec},threads={threads}", str(n),
                str(seed), *extra, timeout=900)


def _fields(out: str, prefix: str) -> dict[str, int]:
    line = next(ln for ln in out.splitlines() if ln.startswith(prefix))
    return {kv.split("=")[0]: int(kv.split("=")[1]) for kv in line.split() if "=" in kv}


def _strip(out: str) -> str:
    return "\n".join(ln for ln in out.splitlines() if not ln.startswith("spec "))


@pytest.mark.parametrize("spec,n,seed", [
    ("corrupt=0.01,seed=3,watchdog=0", 60, 1),
    ("dup=0.05,reorder=300,seed=4,watchdog=0", 60, 2),
], ids=["corrupt", "dup-reorder"])
def test_system(harness: Path, spec: str, n: int, seed: int) -> None:
    # dup-reorder counts every copy: the sender ignores MISS answers (RETRY_LIMIT.resend 2),
    # so only the link makes copies
    resend = None if "corrupt" in spec else 2
    one = _sys(harness, spec, n, seed, "0", resend=resend)
    many = _sys(harness, spec, n, seed, "1", resend=resend)
    assert "OK: 0 failure(s)" in one
    assert _strip(one) == _strip(many)
    if "corrupt" in spec:
        for i in (0, 1):
            fc = _fields(one, f"link {i}>{1 - i} faults")
            nic = _fields(one, f"link {i}>{1 - i} nic:")
            # every packet delivered is counted once by the receiver, as DATA, control or
            # a CRC drop; the corrupted ones are exactly the CRC drops
            assert fc["corrupted"] > 0
            assert nic["RX_CRC_DROP"] == fc["corrupted"]
            assert (nic["RX_DATA_PKTS"] + nic["RX_CTRL_PKTS"] + nic["RX_CRC_DROP"]
                    == fc["packets_out"] == fc["packets_in"])
    else:
        for i in (0, 1):
            assert f"node {i}: {n} of {n} writes finished, 0 wrong, 0 busy" in one
            # every duplicate is dropped: a DATA copy as a duplicate (RX_DUP_DROP), an ACK
            # copy by the sender's engine as stale; no DATA packet counted twice. A copy
            # of a packet of a complete block is answered again by its receiver (RX_REDO
            # of the node sending on this link: the block's ACK again, after the first),
            # which the engine it reaches counts as stale too
            fc = _fields(one, f"link {i}>{1 - i} faults")
            nic = _fields(one, f"link {i}>{1 - i} nic:")
            assert fc["duplicated"] > 0 and fc["reordered"] > 0
            # MISS packets (reordering brings a block's last packet before others) are
            # counted as control packets where they arrive and ignored (RETRY_LIMIT.resend
            # 2), so a copy of one (dmiss) counts there only
            assert nic["RX_DATA_PKTS"] == nic["TX_DATA_PKTS"]
            dmiss = (nic["RX_CTRL_PKTS"] - nic["TX_CTRL_PKTS"]
                     - (nic["CNT_STALE"] - nic["RX_REDO"]))
            assert 0 <= dmiss <= nic["RX_MISS"], (dmiss, nic)
            assert (fc["duplicated"]
                    == nic["RX_DUP_DROP"] + nic["CNT_STALE"] - nic["RX_REDO"] + dmiss)


def test_system_without_faults(harness: Path) -> None:
    """No fault option: the directions have no fault model (counts 0)."""
    out = _sys(harness, "seed=5", 20, 3, "0")
    assert "link 0>1 faults 0:" in out and "link 1>0 faults 0:" in out
    assert "OK: 0 failure(s)" in out


def test_spec_keys(harness: Path) -> None:
    """qrdma-perf -B: the fault keys, per direction, and the refusals."""
    perf = harness / "qrdma-perf"
    ok = subprocess.run([str(perf), "write_lat", "-s", "64", "-n", "3", "-B",
                         "1-0.dup=0.5,0-1.reorder=20,seed=1,down=0:1:0"],
                        capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stderr
    for bad, msg in (("loss=2", "bad value"), ("down=5", "bad value"), ("0-1.mem=1", "a direction"),
                     ("0-3.loss=0.1", "no link direction")):
        r = subprocess.run([str(perf), "write_lat", "-s", "64", "-n", "1", "-B", bad],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode != 0 and msg in r.stderr, (bad, r.stderr)


def test_system_silent_node(harness: Path) -> None:
    """Node 1 silent: it takes every packet of node 0, nothing it sends arrives (its DATA
    and its ACKs are silenced), so no write of either node finishes."""
    out = _sys(harness, "silent=1,watchdog=0", 4, 5, "0")
    assert "OK: 0 failure(s)" in out
    back = _fields(out, "link 1>0 faults")
    assert back["silenced"] == back["packets_in"] > 0 and back["packets_out"] == 0
    assert "link 0>1 faults 0:" in out  # 0 -> 1 has no fault: everything arrives
    fwd = _fields(out, "link 0>1 nic:")
    assert fwd["rx_beats"] == fwd["tx_beats"] > 0 and fwd["RX_DATA_PKTS"] == fwd["TX_DATA_PKTS"]
    nic = _fields(out, "link 1>0 nic:")
    assert nic["rx_beats"] == 0 and nic["TX_CTRL_PKTS"] > 0  # node 1's ACKs went nowhere
    for i in (0, 1):
        assert f"node {i}: 0 of 4 writes finished" in out


def test_stress_dup_reorder(harness: Path, tmp_path: Path) -> None:
    """qrdma-stress on two nodes with 10 % duplication and reordering up to 200 cycles in
    both directions: every byte and notification exact (the NIC drops every copy), and the
    same report, JSON included, with threads on and off."""
    res = {}
    for t in ("0", "1"):
        js = tmp_path / f"t{t}.json"
        text = _run(harness / "qrdma-stress", "-s", "3", "-P", "4", "-C", "4", "-S", "64K",
                    "-n", "2", "-B", f"nodes=2,dup=0.1,reorder=200,seed=2,threads={t}",
                    "-o", js)
        assert "all exact" in text
        res[t] = (text, js.read_text())
    assert res["0"] == res["1"]


def test_system_timeouts(harness: Path) -> None:
    """RETX_TIMEOUT set on both NICs, links that lose and corrupt packets in both
    directions: every write finishes, DONE with every byte right or ERROR with reason
    ERR_TIMEOUT (at most one per packet lost or corrupted), none is left BUSY; the same
    output with threads on and off."""
    spec = "loss=0.01,corrupt=0.005,seed=6,watchdog=0"
    one = _sys(harness, spec, 80, 4, "0", retx_timeout=20000)
    many = _sys(harness, spec, 80, 4, "1", retx_timeout=20000)
    assert "OK: 0 failure(s)" in one, one
    assert _strip(one) == _strip(many)
    errors = 0
    for i in (0, 1):
        m = re.search(rf"node {i}: 80 of 80 writes finished, 0 wrong, 0 busy, (\d+) error", one)
        assert m, one
        errors += int(m.group(1))
    hits = sum(_fields(one, f"link {i}>{1 - i} faults")[k] for i in (0, 1)
               for k in ("lost", "corrupted"))
    assert 0 < errors <= hits, (errors, hits)


def test_system_retransmit(harness: Path) -> None:
    """Links that lose 1 % and corrupt 0.1 % of the packets and duplicate 0.1 % (copies
    right behind the original), RETX_TIMEOUT set with the default 7 re-sends: every
    write of both nodes DONE with every byte right, the losses recovered by re-sends
    (TX_RETX), no timer ends in ERROR. 10,000 writes in 5 runs of 1,000 per node (25 runs
    with QRDMA_FULL): each run allocates every write's buffers up front."""
    n = 1000
    for run_seed in range(25 if full() else 5):
        out = _sys(harness, f"loss=0.01,corrupt=0.001,dup=0.001,seed={9 + run_seed},watchdog=0",
                   n, 5 + run_seed, "1", retx_timeout=20000, retries=7)
        assert "OK: 0 failure(s)" in out, out
        retx = 0
        for i in (0, 1):
            assert f"node {i}: {n} of {n} writes finished, 0 wrong, 0 busy, 0 error" in out, out
            f = _fields(out, f"node {i}:")
            assert f["TX_TIMEOUTS"] == 0, out
            retx += f["TX_RETX"]
        hits = sum(_fields(out, f"link {i}>{1 - i} faults")[k] for i in (0, 1)
                   for k in ("lost", "corrupted"))
        assert hits > 0 and retx > 0, (hits, retx)


def test_system_silent_node_times_out(harness: Path) -> None:
    """Node 1 silent with RETX_TIMEOUT set: every write of both nodes ends in ERROR
    (node 0's get no ACK, node 1's packets never arrive), none stays BUSY."""
    out = _sys(harness, "silent=1,watchdog=0", 4, 5, "0", retx_timeout=5000)
    assert "OK: 0 failure(s)" in out, out
    for i in (0, 1):
        assert f"node {i}: 4 of 4 writes finished, 0 wrong, 0 busy, 4 error" in out, out


def test_reliability_bench_small(harness: Path) -> None:
    """The reliability benchmark (tests/bench/bench_reliability.py) at a small size, in
    the selective and the timeout-only mode: each run verifies every transfer (qrdma-perf);
    the loss-free run (one for both modes) re-sends nothing and is the ratios' base; the
    lossy runs re-send and send more bytes than they deliver: the timeout-only one after
    timeouts only, whole blocks, the selective one mostly after MISS answers, fewer bytes."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    import bench_reliability

    res = bench_reliability.measure(sizes={65536: 24}, losses=[0.0, 0.02],
                                    modes=["selective", "timeout"])
    clean, clean_t, sel, tmo = res["rows"]
    assert res["verified"] == "every transfer" and len(res["commands"]) == 3
    assert clean == dict(clean_t, mode="selective")
    assert clean["goodput_ratio"] == 1.0 and clean["resends"] == clean["miss_resends"] == 0
    assert clean["retransmitted_bytes"] == 0
    for lossy in (sel, tmo):
        assert lossy["retransmitted_bytes"] > 0 and 0 < lossy["goodput_ratio"] <= 1.0
        assert lossy["goodput_bytes_per_cycle"] == round(24 * 65536 / lossy["cycles"], 3)
    assert tmo["resends"] > 0 and tmo["miss_resends"] == 0
    assert sel["miss_resends"] > sel["resends"]
    assert sel["retransmitted_bytes"] < tmo["retransmitted_bytes"]
