# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""libqrdma (sw/): builds with `make -C sw` (cc -std=c11 -Wall -Wextra -Werror -O2) and runs
the C unit tests, checking every TAP line; compares the descriptor bytes the C library
builds with tools/formats.py packing the same inputs, and its counter table with the
register list; runs qrdma-perf linked with the fake device: table headers, sizes, JSON,
the benchmark options (-A, -N, -l, -c, -w, -S: benchmark-mode stamps), and that wrong
data, an overrun, an ERROR status, a wrong notification and missing stamps make it fail
loudly."""
from __future__ import annotations

import fcntl
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from tools import formats as F  # noqa: E402

B = ROOT / "build" / "sw"

BW_HEADER = "#bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]"
LAT_HEADER = ("#bytes #iterations t_min[usec] t_max[usec] t_typical[usec] t_avg[usec] t_stdev[usec] "
              "99% percentile[usec] 99.9% percentile[usec]")


@pytest.fixture(scope="module")
def built() -> Path:
    """make -C sw, one process at a time (pytest-xdist workers share build/sw)."""
    B.mkdir(parents=True, exist_ok=True)
    with open(B / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        r = subprocess.run(["make", "-C", str(ROOT / "sw"), "-j2"], capture_output=True, text=True,
                           timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return B


def run_tap(binary: Path, min_checks: int) -> str:
    r = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120)
    out = r.stdout
    print(out[-5000:])
    failed = [ln for ln in out.splitlines() if ln.startswith("not ok")]
    assert not failed, "\n".join(failed)
    assert r.returncode == 0, r.stderr
    oks = [ln for ln in out.splitlines() if re.match(r"ok \d+ - ", ln)]
    m = re.search(r"^1\.\.(\d+)$", out, re.M)
    assert m and int(m.group(1)) == len(oks), "TAP plan does not match the checks run"
    assert re.search(rf"^# passed {len(oks)} failed 0$", out, re.M)
    assert len(oks) >= min_checks, f"only {len(oks)} checks ran"
    return out


@pytest.mark.parametrize("name,min_checks", [("test_desc", 40), ("test_mmap", 50), ("test_lib", 190)])
def test_c_unit(built: Path, name: str, min_checks: int) -> None:
    run_tap(built / "tests" / name, min_checks)


def test_desc_bytes_match_formats(built: Path) -> None:
    """Every DESC vector printed by test_desc: the C bytes equal tools/formats.py's packing of
    the same API inputs (line 0, and line 1 for 64-byte descriptors)."""
    out = run_tap(built / "tests" / "test_desc", 40)
    vectors = [ln.split()[1:] for ln in out.splitlines() if ln.startswith("DESC ")]
    assert len(vectors) >= 14
    assert sum("kind=read" in v for v in vectors) >= 5
    assert sum("hold=1" in v for v in vectors) >= 3 and sum("start=1" in v for v in vectors) >= 3
    assert sum("registered=1" in v for v in vectors) >= 1
    for v in vectors:
        name, kv = v[0], dict(x.split("=", 1) for x in v[1:])
        got = bytes.fromhex(kv["bytes"])
        common = dict(dst_addr=int(kv["dst"], 0), dst_node=int(kv["node"]), prio=int(kv["prio"]),
                      notify=int(kv["notify"]), hold=int(kv["hold"]), start=int(kv["start"]),
                      tag=int(kv["tag"]))
        if kv["kind"] == "read":
            rkey, lkey = int(kv["rkey"]), int(kv["lkey"])
            long_desc = int(rkey != 0 or lkey != 0)
            l0 = F.DESC_LINE0.pack(src_addr=int(kv["src"], 0), size=int(kv["size"]),
                                   multipath=int(kv["multipath"]), long_desc=long_desc, **common)
            l1 = F.DESC_LINE1.pack(rkey=rkey, lkey=lkey)
        elif kv["kind"] == "mem":
            rkey = int(kv["rkey"])
            long_desc = int(rkey != 0)
            l0 = F.DESC_LINE0.pack(src_addr=int(kv["src"], 0), size=int(kv["size"]),
                                   multipath=int(kv["multipath"]), long_desc=long_desc,
                                   registered=int(kv["registered"]), **common)
            l1 = F.DESC_LINE1.pack(rkey=rkey)
        else:
            pl = bytes.fromhex(kv["payload"])
            rkey = int(kv["rkey"])
            long_desc = int(len(pl) > F.C["INLINE_SHORT_MAX"] or rkey != 0)
            l0 = F.DESC_LINE0.pack(src_addr=int.from_bytes(pl[:8], "little"), size=len(pl), is_inline=1,
                                   long_desc=long_desc, **common)
            l1 = F.DESC_LINE1.pack(inline_hi=int.from_bytes(pl[8:], "little"), rkey=rkey)
        n = F.C["DESC_LINE_BYTES"]
        want = l0.to_bytes(n, "little") + (l1.to_bytes(n, "little") if long_desc else b"")
        assert got == want, f"{name}: C {got.hex()} != formats.py {want.hex()}"


def test_counters_match_formats(built: Path) -> None:
    """The library's counter table: every statistics register of regs/qrdma_regs.rdl
    (property qrdma_stat), by name and address, in register order."""
    out = run_tap(built / "tests" / "test_desc", 40)
    got = [(ln.split()[1], int(ln.split()[2], 0)) for ln in out.splitlines() if ln.startswith("CNT ")]
    want = [(name, F.reg_addr(name)) for name in F.STATS]
    assert got == want


def perf(built: Path, tmp_path: Path, *args: str, spec: str = "") -> subprocess.CompletedProcess:
    cmd = [str(built / "tests" / "qrdma-perf-fake"), *args]
    if spec:
        cmd += ["-B", spec]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path)


def table(out: str) -> tuple[str, list[list[str]]]:
    lines = out.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.split()[:1] == ["#bytes"])
    rows = []
    for ln in lines[i + 1:]:
        if ln.startswith("---"):
            break
        rows.append(ln.split())
    return " ".join(lines[i].split()), rows


def test_perf_write_bw_all_sizes(built: Path, tmp_path: Path) -> None:
    r = perf(built, tmp_path, "write_bw", "-a", "-n", "16", "-b", "4M")
    assert r.returncode == 0, r.stderr
    header, rows = table(r.stdout)
    assert header == BW_HEADER
    sizes = [1 << k for k in range(1, 24)]
    assert [int(x[0]) for x in rows] == sizes
    assert all(len(x) == 5 for x in rows)
    assert [int(x[1]) for x in rows] == [min(16, max(2, (4 << 20) // s)) for s in sizes]
    res = json.loads((tmp_path / "build/results/qrdma_perf_write_bw_t64_mem.json").read_text())
    assert res["test"] == "write_bw" and res["backend"] == "fake" and res["tick_hz"] == 200_000_000
    assert res["verified"] == "every transfer"
    assert [x["bytes"] for x in res["rows"]] == sizes
    for x, row in zip(res["rows"], rows):
        assert f"{x['bw_avg_gbps']:.2f}" == row[3]
        assert 0 < x["bw_avg_gbps"] <= x["bw_peak_gbps"] + 1e-9
        assert x["msg_rate_mpps"] > 0 and not x["inline"]


def test_perf_write_lat(built: Path, tmp_path: Path) -> None:
    r = perf(built, tmp_path, "write_lat", "-s", "64", "-n", "300", "-o", "lat.json")
    assert r.returncode == 0, r.stderr
    header, rows = table(r.stdout)
    assert header == LAT_HEADER
    assert len(rows) == 1 and rows[0][:2] == ["64", "300"] and len(rows[0]) == 9
    x = json.loads((tmp_path / "lat.json").read_text())["rows"][0]
    assert x["outstanding"] == 1
    assert x["t_min_us"] <= x["t_typical_us"] <= x["t_p99_us"] <= x["t_p999_us"] <= x["t_max_us"]
    # the fake: one read of 30 cycles after a 2-cycle write; DONE after 72 + 1 cycles
    assert x["t_min_us"] >= (72 + 1) / 200


@pytest.mark.parametrize("mode,sizes", [("inline", [2, 4, 8, 16, 32]), ("auto", None)])
def test_perf_msg_rate(built: Path, tmp_path: Path, mode: str, sizes) -> None:
    args = ["msg_rate", "-m", mode, "-n", "500"] + (["-a"] if sizes else ["-s", "8"])
    r = perf(built, tmp_path, *args)
    assert r.returncode == 0, r.stderr
    header, rows = table(r.stdout)
    assert header == BW_HEADER
    assert [int(x[0]) for x in rows] == (sizes or [8])
    res = json.loads((tmp_path / f"build/results/qrdma_perf_msg_rate_t64_{mode}.json").read_text())
    for x in res["rows"]:
        assert x["inline"]
        # 9..32 B inline takes channel pairs: 32 transfers in flight
        assert x["outstanding"] == (64 if x["bytes"] <= 8 else 32)


@pytest.mark.parametrize("spec,code", [("", 0), ("corrupt=1", 2), ("error=1", 3)])
def test_perf_msg_rate_pages(built: Path, tmp_path: Path, spec: str, code: int) -> None:
    """msg_rate -q on a backend without cores: the pages are bound (recorded only), the
    collective reads blocking; every transfer of every page verified."""
    r = perf(built, tmp_path, "msg_rate", "-q", "3", "-n", "100", "-o", "q.json", spec=spec)
    assert r.returncode == code, r.stderr
    if code:
        return
    res = json.loads((tmp_path / "q.json").read_text())
    assert res["pages"] == 3 and res["cores"] == 0 and res["verified"] == "every transfer"
    assert res["rows"][0]["iterations"] == 300 and res["rows"][0]["inline"]


@pytest.mark.parametrize("spec,code,msg", [
    ("corrupt=1", 2, "DATA VERIFICATION FAILED"),
    ("overrun=1", 2, "byte written past slot"),
    ("error=1", 3, "status ERROR"),
])
@pytest.mark.parametrize("test,out", [("write_lat", "1"), ("write_bw", "64")])
def test_perf_fails_loudly(built: Path, tmp_path: Path, spec: str, code: int, msg: str, test: str,
                           out: str) -> None:
    r = perf(built, tmp_path, test, "-s", "1000", "-n", "100", "-t", out, spec=spec)
    assert r.returncode == code, r.stdout + r.stderr
    assert msg in r.stderr


def test_perf_notify_counters_window(built: Path, tmp_path: Path) -> None:
    """write_bw -A -N -c -w on the fake: one notification per transfer, checked; the
    counters' differences are the fake's counts of the run; the window's figures."""
    r = perf(built, tmp_path, "write_bw", "-s", "4096", "-t", "8", "-A", "-N", "-c", "-w", "500,2000",
             "-o", "w.json")
    assert r.returncode == 0, r.stderr
    res = json.loads((tmp_path / "w.json").read_text())
    assert (res["notify"], res["slot_align"], res["latency_end"]) == (True, "size", "done")
    assert (res["window_warmup_ticks"], res["window_min_ticks"]) == (500, 2000)
    x = res["rows"][0]
    n = x["iterations"]
    assert x["notifications"] == n and x["align"] == 4096
    src, dst = x["counters"]
    # the fake: four DATA packets per 4 KiB transfer (MAX_PAYLOAD 1 KiB), a CONTROL packet
    # for the notification, one ACK back
    assert (src["TX_DATA_PKTS"], src["TX_CTRL_PKTS"], src["TX_BYTES"]) == (4 * n, n, 4096 * n)
    assert (dst["TX_DATA_PKTS"], dst["TX_CTRL_PKTS"]) == (0, n)
    assert x["window_ticks"] >= 2000 and 0 < x["window_done"] < n
    assert 0 < x["window_rx_bytes"] <= 4096 * n
    assert f"window: {x['window_rx_bytes']} B in {x['window_ticks']} ticks" in r.stdout


@pytest.mark.parametrize("pattern,nodes,flows", [
    ("incast", 4, [[(1, 0), (2, 0), (3, 0)]]),
    ("permutation", 3, [[(0, 1), (1, 2), (2, 0)]]),
    ("alltoall", 3, [[(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]]),
    ("hotspot", 4, [[(1, 2)], [(1, 2), (0, 1), (2, 1), (3, 1)]]),
])
def test_perf_patterns(built: Path, tmp_path: Path, pattern: str, nodes: int, flows) -> None:
    """The traffic patterns on the fake's nodes: the flows of each pattern (hotspot: the
    victim alone, then loaded), every flow's figures from its transfers in the window, a
    receiver per destination, drops unknown to a backend without net_dropped."""
    r = perf(built, tmp_path, pattern, "-s", "4096", "-t", "4", "-w", "500,2000", "-o", "p.json",
             spec=f"nodes={nodes}")
    assert r.returncode == 0, r.stderr
    assert "Data verified: every transfer" in r.stdout
    res = json.loads((tmp_path / "p.json").read_text())
    assert (res["test"], res["nodes"], res["size"], res["outstanding"]) == (pattern, nodes, 4096, 4)
    assert (res["window_warmup_ticks"], res["window_min_ticks"]) == (500, 2000)
    assert res["dropped_packets"] is None and "stderr" in res["drops"]
    assert [[(f["src"], f["dst"]) for f in run["flows"]] for run in res["runs"]] == flows
    for run in res["runs"]:
        assert run["window_ticks"] >= 2000
        for f in run["flows"]:
            assert 0 < f["transfers"] <= f["transfers_completed"] and f["bytes"] == 4096 * f["transfers"]
            assert f["bytes_per_cycle"] == pytest.approx(f["bytes"] / run["window_ticks"], abs=1e-5)
        assert sorted(x["node"] for x in run["receivers"]) == sorted({f["dst"] for f in run["flows"]})
    if pattern == "hotspot":
        alone, loaded = (run["flows"][0]["bytes_per_cycle"] for run in res["runs"])
        assert res["victim"]["ratio"] == pytest.approx(loaded / alone, abs=1e-5)
        assert "victim 1 -> 2: alone" in r.stdout


@pytest.mark.parametrize("args,code,msg", [
    (["hotspot", "-s", "4096"], 1, "hotspot needs at least 3 nodes; the backend has 2"),
    (["incast", "-t", "65"], 1, "1 <= -t <= 64"),
    (["alltoall", "-w", "100"], 1, "bad window"),
    (["incast", "-s", "4096", "-t", "4", "-w", "500,2000", "-B", "corrupt=1"], 2,
     "DATA VERIFICATION FAILED: flow 1 -> 0"),
    (["incast", "-s", "4096", "-t", "4", "-w", "500,2000", "-B", "overrun=1"], 2, "byte written past slot"),
])
def test_perf_patterns_fail_loudly(built: Path, tmp_path: Path, args: list, code: int, msg: str) -> None:
    r = perf(built, tmp_path, *args)
    assert r.returncode == code, r.stdout + r.stderr
    assert msg in r.stderr


def test_perf_notif_latency(built: Path, tmp_path: Path) -> None:
    """write_lat -N -l notif ends at the receiver's ring entry, before the status read that
    sees DONE (-l done) returns; both check every notification."""
    t = {}
    for end in ("notif", "done"):
        r = perf(built, tmp_path, "write_lat", "-s", "64", "-n", "20", "-N", "-l", end, "-o", f"{end}.json")
        assert r.returncode == 0, r.stderr
        res = json.loads((tmp_path / f"{end}.json").read_text())
        assert res["latency_end"] == ("notification" if end == "notif" else "done")
        assert res["rows"][0]["notifications"] == 20
        t[end] = res["rows"][0]["t_typical_ticks"]
    assert 0 < t["notif"] < t["done"]


@pytest.mark.parametrize("test,out,mode", [("write_lat", "1", "mem"), ("write_bw", "64", "mem"),
                                           ("write_bw", "64", "inline")])
def test_perf_bad_notification(built: Path, tmp_path: Path, test: str, out: str, mode: str) -> None:
    """A notification naming the wrong destination fails the run (-N)."""
    r = perf(built, tmp_path, test, "-s", "16", "-m", mode, "-n", "100", "-t", out, "-N", spec="bad_notif=1")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "NOTIFICATION CHECK FAILED" in r.stderr


@pytest.mark.parametrize("args", [["write_lat", "-l", "notif"], ["write_bw", "-N", "-l", "notif"],
                                  ["write_lat", "-w", "10,100"], ["write_bw", "-t", "1", "-w", "10,100"],
                                  ["write_bw", "-w", "10"], ["write_lat", "-E"]])
def test_perf_option_checks(built: Path, tmp_path: Path, args: list[str]) -> None:
    r = perf(built, tmp_path, *args)
    assert r.returncode == 1, r.stdout + r.stderr


def test_perf_mmap_needs_a_spec(built: Path, tmp_path: Path) -> None:
    """qrdma-perf linked with the mmap backend: refuses to run without a device spec."""
    r = subprocess.run([str(built / "qrdma-perf-mmap"), "write_lat", "-n", "1"], capture_output=True,
                       text=True, timeout=30, cwd=tmp_path, env={"PATH": "/usr/bin:/bin"})
    assert r.returncode == 3 and "reg=PATH" in r.stderr
    r = subprocess.run([str(built / "qrdma-perf-mmap"), "write_lat", "-B", "reg=/nonexistent/uio"],
                       capture_output=True, text=True, timeout=30, cwd=tmp_path)
    assert r.returncode == 3 and "cannot open" in r.stderr
    assert (built / "qrdma_perf.o").exists()


# the fake's benchmark-mode path (fake_nic.h): cycles of a link and of a switch
FAKE_LINK, FAKE_SW = 6, 14


def stamp_table(out: str) -> tuple[str, dict[str, list[int]]]:
    """The "stamps:" line and the stage rows under it (name -> samples, min, median, p99, max)."""
    lines = out.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.strip().startswith("stamps:"))
    assert lines[i + 1].split() == ["stage", "samples", "min", "median", "p99", "max"]
    rows = {}
    for ln in lines[i + 2:]:
        f = ln.split()
        if len(f) != 6 or not f[1].isdigit():
            break
        rows[f[0]] = [int(x) for x in f[1:]]
    return lines[i].strip(), rows


@pytest.mark.parametrize("hops,extra", [(0, []), (1, []), (2, []), (1, ["-t", "4"]), (0, ["-m", "inline", "-s", "16"])])
def test_perf_stamps(built: Path, tmp_path: Path, hops: int, extra: list[str]) -> None:
    """write_lat -N -S on the fake with `hops` stamping switches: every notification
    stamped; one row per stage in path order and the total, printed and in the JSON; the
    fake's links and switches; more than 2^16 cycles of run, so the stamps wrap."""
    n = 3000
    args = ["write_lat", "-s", "64", "-n", str(n), "-N", "-S", "-o", "s.json", *extra]
    r = perf(built, tmp_path, *args, spec=f"hops={hops}")
    assert r.returncode == 0, r.stdout + r.stderr
    res = json.loads((tmp_path / "s.json").read_text())
    assert res["benchmark_mode"] is True
    row = res["rows"][0]
    assert row["ticks"] > 1 << 16, "the run is longer than the stamps' 2^16 cycles"
    st = row["stamps"]
    names = ["sender"] + [x for k in range(hops) for x in (f"link_sw{k}", f"sw{k}")] + ["link_recv", "receiver"]
    assert (st["samples"], st["hops"], st["unit"]) == (n, hops, "cycles")
    assert st["hops_counts"] == [n if k == hops else 0 for k in range(3)]
    assert [x["stage"] for x in st["stages"]] == names
    for x in st["stages"] + [st["total"]]:
        assert x["samples"] == n
        assert x["min"] <= x["median"] <= x["p99"] <= x["max"] < 1 << 16
    by = {x["stage"]: x for x in st["stages"]}
    for name, want in [(nm, FAKE_LINK if nm.startswith("link") else FAKE_SW) for nm in names[1:-1]]:
        assert by[name]["min"] == by[name]["max"] == want, name
    assert sum(x["min"] for x in st["stages"]) <= st["total"]["min"]
    assert st["total"]["max"] <= sum(x["max"] for x in st["stages"])
    # the total: within the fake's post -> notification time, in cycles = ticks here
    assert st["total"]["max"] <= row["t_max_us"] * 200
    line, rows = stamp_table(r.stdout)
    assert line == f"stamps: {n} notifications, hops {hops} (device cycles, mod 2^16)"
    assert list(rows) == names + ["total"]
    for x in st["stages"] + [dict(st["total"], stage="total")]:
        assert rows[x["stage"]] == [x["samples"], x["min"], x["median"], x["p99"], x["max"]]


@pytest.mark.parametrize("args,spec,code,msg", [
    (["write_lat", "-N", "-S"], "stamps=0", 1, "keeps no benchmark stamps"),
    (["write_lat", "-N", "-S", "-n", "50"], "unstamped=3", 2,
     "BENCHMARK STAMPS MISSING: size 2: 3 of 50 notifications carry no stamps"),
    (["write_lat", "-N", "-S", "-n", "50", "-t", "8"], "unstamped=1", 2, "1 of 50 notifications carry no stamps"),
    (["write_lat", "-S"], "", 1, "-S (benchmark mode) is a write_lat option and needs -N"),
    (["write_bw", "-N", "-S"], "", 1, "-S (benchmark mode) is a write_lat option and needs -N"),
    (["msg_rate", "-N", "-S"], "", 1, "-S (benchmark mode) is a write_lat option and needs -N"),
    (["write_lat", "-N", "-E", "-S"], "", 1, "-S: a registered write's notification"),
    (["write_lat", "-N", "-S", "-m", "inline", "-s", "17"], "", 1, "inline writes above 16 bytes"),
    (["write_lat", "-N", "-S", "-m", "auto", "-a"], "", 1, "inline writes above 16 bytes"),
])
def test_perf_stamps_fail(built: Path, tmp_path: Path, args: list[str], spec: str, code: int, msg: str) -> None:
    """-S: a receiver without stamps, notifications without stamps, and the option
    combinations that cannot be stamped fail with a message."""
    r = perf(built, tmp_path, *args, spec=spec)
    assert r.returncode == code, r.stdout + r.stderr
    assert msg in r.stderr
