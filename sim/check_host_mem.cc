// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_sim_check_host_mem: the host memory model (host_mem.h) at its AXI port, cycle by
// cycle (tests/sim/test_sim_harness.py runs it). The program stands in for the NIC's
// memory master: it sets the m_axi_* output ports of a NIC model directly (the model is
// never evaluated) and reads what HostMem drives. Checked: bursts inside memory (data,
// RLAST, timing), every burst that touches a byte outside memory answered DECERR (zeros
// and RRESP = 3 on every read beat, nothing written and BRESP = 3 for a write, also when
// part of the burst is inside), and the error category of each rule (AXI, DECERR, 4 KiB)
// with its first message. Exit status 0 when all pass.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "Vqrdma_nic.h"
#include "diag.h"
#include "host_mem.h"
#include "verilated.h"

namespace {

int failures = 0;

void check(bool ok, const std::string &what) {
  printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
  if (!ok) ++failures;
}

constexpr uint64_t kMem = 0x10400;  // 65 KiB: the memory ends inside a 4 KiB page
constexpr unsigned kRdLat = 7, kWrLat = 5;

struct RBeat {
  uint8_t data[64];
  unsigned resp, id;
  bool last;
  uint64_t t;  // cycle it was taken
};

struct Bench {
  VerilatedContext ctx;
  Vqrdma_nic nic{&ctx, "hostmem"};
  Vqrdma_nic &r = nic;
  qsim::Diag diag;
  qsim::NodeLog log{diag};
  uint64_t now = 0;
  qsim::HostMem mem{0, kMem, kRdLat, kWrLat, 4, log};

  Bench() {
    diag.now = &now;
    r.m_axi_arvalid = r.m_axi_awvalid = r.m_axi_wvalid = 0;
    r.m_axi_rready = r.m_axi_bready = 1;
  }
  // one cycle: HostMem drives its outputs and samples the handshakes
  void cycle() {
    mem.drive_sample(r, now);
    ++now;
  }

  // A read burst: AR offered until taken (cycle *t_ar), then every R beat taken as offered
  // until RLAST (at most 300 beats).
  std::vector<RBeat> read(uint64_t addr, unsigned len, unsigned size, unsigned burst = 1,
                          uint64_t *t_ar = nullptr) {
    r.m_axi_arvalid = 1;
    r.m_axi_araddr = addr;
    r.m_axi_arlen = len;
    r.m_axi_arsize = size;
    r.m_axi_arburst = burst;
    r.m_axi_arid = 5;
    for (;;) {
      cycle();
      if (r.m_axi_arready) break;
    }
    if (t_ar) *t_ar = now - 1;
    r.m_axi_arvalid = 0;
    std::vector<RBeat> beats;
    for (unsigned k = 0; k < 2000 && beats.size() < 300; ++k) {
      cycle();
      if (!r.m_axi_rvalid) continue;
      RBeat b;
      memcpy(b.data, r.m_axi_rdata.data(), 64);
      b.resp = r.m_axi_rresp;
      b.id = r.m_axi_rid;
      b.last = r.m_axi_rlast;
      b.t = now - 1;
      beats.push_back(b);
      if (b.last) break;
    }
    return beats;
  }

  // A write burst of `beats` W beats (WLAST on the last; beat i all bytes fill + i), AW
  // and the first W in the same cycle, full strobes; returns BRESP (-1: none), the cycle of
  // the B in *t_b, the cycle the last W beat was taken in t_wlast.
  uint64_t t_wlast = 0;
  int write(uint64_t addr, unsigned len, unsigned size, unsigned beats, uint8_t fill,
            uint64_t *t_b = nullptr) {
    r.m_axi_awvalid = 1;
    r.m_axi_awaddr = addr;
    r.m_axi_awlen = len;
    r.m_axi_awsize = size;
    r.m_axi_awburst = 1;
    r.m_axi_awid = 2;
    unsigned sent = 0;
    while (r.m_axi_awvalid || sent < beats) {
      r.m_axi_wvalid = sent < beats;
      memset(r.m_axi_wdata.data(), fill + sent, 64);
      r.m_axi_wstrb = ~0ull;
      r.m_axi_wlast = sent + 1 == beats;
      cycle();
      if (r.m_axi_awvalid && r.m_axi_awready) r.m_axi_awvalid = 0;
      if (r.m_axi_wvalid && r.m_axi_wready && ++sent == beats) t_wlast = now - 1;
    }
    r.m_axi_wvalid = 0;
    for (unsigned k = 0; k < 1000; ++k) {
      cycle();
      if (r.m_axi_bvalid) {
        if (t_b) *t_b = now - 1;
        return r.m_axi_bresp;
      }
    }
    return -1;
  }
};

bool all_resp(const std::vector<RBeat> &v, unsigned resp) {
  for (const RBeat &b : v)
    if (b.resp != resp) return false;
  return !v.empty();
}
bool all_zero(const std::vector<RBeat> &v) {
  for (const RBeat &b : v)
    for (uint8_t x : b.data)
      if (x) return false;
  return true;
}
// RLAST on the last beat only, and len + 1 beats
bool shape_ok(const std::vector<RBeat> &v, unsigned len) {
  if (v.size() != len + 1u) return false;
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i].last != (i + 1 == v.size()) || v[i].id != 5) return false;
  return true;
}

}  // namespace

int main() {
  Bench b;
  uint8_t *m = b.mem.data();
  for (uint64_t a = 0; a < kMem; ++a) m[a] = static_cast<uint8_t>(a * 7 + 1);  // no zero bytes
  auto mem_same = [&](const std::vector<uint8_t> &snap) {
    return memcmp(m, snap.data(), kMem) == 0;
  };
  auto errs = [&](qrdma_sim_error_cat c) { return b.diag.count(c); };
  auto no_errors = [&]() {
    return b.diag.count() == 0;
  };

  // ---- inside memory: OKAY, data, timing
  {
    uint64_t t_ar = 0;
    auto v = b.read(0x1000, 3, 6, 1, &t_ar);
    bool data = v.size() == 4;
    for (size_t i = 0; data && i < 4; ++i) data = memcmp(v[i].data, m + 0x1000 + 64 * i, 64) == 0;
    check(shape_ok(v, 3) && all_resp(v, 0) && data, "read 4 beats at 0x1000: OKAY, data, RLAST");
    check(!v.empty() && v[0].t == t_ar + kRdLat && v[3].t == t_ar + kRdLat + 3,
          "read: first beat rd_latency after AR, then one per cycle");
    check(no_errors(), "read inside memory: no error");
  }
  {
    auto v = b.read(kMem - 64, 0, 6);
    check(shape_ok(v, 0) && all_resp(v, 0) && memcmp(v[0].data, m + kMem - 64, 64) == 0,
          "read of the last 64 bytes of memory: OKAY");
    auto n = b.read(kMem - 1, 0, 0);
    check(shape_ok(n, 0) && all_resp(n, 0), "1-byte read of the last byte: OKAY");
    check(no_errors(), "reads up to the last byte: no error");
  }
  {
    std::vector<uint8_t> snap(m, m + kMem);
    uint64_t t_b = 0;
    int resp = b.write(0x2000, 1, 6, 2, 0xA0, &t_b);
    bool written = m[0x2000] == 0xA0 && m[0x203f] == 0xA0 && m[0x2040] == 0xA1 &&
                   m[0x207f] == 0xA1 && m[0x2080] == snap[0x2080] && m[0x1fff] == snap[0x1fff];
    check(resp == 0 && written, "write 2 beats at 0x2000: OKAY, bytes written, none around");
    check(t_b == b.t_wlast + kWrLat, "write: B wr_latency after the last W beat");
    check(b.mem.write_resps(0) == 1 && b.mem.write_bursts() == 1, "write counted (AW, B OKAY)");
    check(no_errors(), "write inside memory: no error");
  }

  // ---- outside memory: DECERR on every beat, zeros, nothing written
  const uint64_t dec0 = b.mem.read_beats_resp(3);
  {
    auto v = b.read(0x20000, 3, 6);
    check(shape_ok(v, 3) && all_resp(v, 3) && all_zero(v),
          "read 4 beats at 0x20000 (outside): RRESP DECERR and zeros on every beat, RLAST last");
    check(errs(QRDMA_SIM_ERR_DECERR) == 1 && b.diag.count() == 1, "... one DECERR error");
  }
  {
    auto v = b.read(kMem, 0, 6);
    check(shape_ok(v, 0) && all_resp(v, 3) && all_zero(v),
          "read of the 64 bytes just past the end: DECERR, zeros");
    auto n = b.read(kMem - 1, 1, 0);
    check(shape_ok(n, 1) && all_resp(n, 3) && all_zero(n),
          "2-byte read of the last byte and the next: DECERR on both beats, zeros");
    // 0x10380 .. 0x1047f: two beats inside memory, two outside, one 4 KiB page
    auto p = b.read(kMem - 128, 3, 6);
    check(shape_ok(p, 3) && all_resp(p, 3) && all_zero(p),
          "read half inside, half outside: DECERR and zeros on every beat, the inside ones too");
    check(errs(QRDMA_SIM_ERR_DECERR) == 4 && b.diag.count() == 4, "... one DECERR error each");
  }
  {
    auto v = b.read(~0ull - 63, 0, 6);
    check(shape_ok(v, 0) && all_resp(v, 3) && all_zero(v), "read at 2^64 - 64: DECERR");
    // wraps past 2^64: outside memory and across a 4 KiB boundary
    auto w = b.read(~0ull - 63, 1, 6);
    check(shape_ok(w, 1) && all_resp(w, 3) && all_zero(w),
          "read wrapping past 2^64: DECERR (4 KiB crossing too)");
    check(errs(QRDMA_SIM_ERR_DECERR) == 6 && errs(QRDMA_SIM_ERR_4K) == 1,
          "... DECERR counted twice, the crossing once");
  }
  {
    // a size above the bus width: a rule broken, and outside memory: DECERR wins
    auto v = b.read(0x40000, 1, 7);
    check(shape_ok(v, 1) && all_resp(v, 3) && all_zero(v),
          "read of 128-byte beats outside memory: DECERR, zeros");
    check(errs(QRDMA_SIM_ERR_AXI) == 1 && errs(QRDMA_SIM_ERR_DECERR) == 7,
          "... counted as an AXI rule and as DECERR");
  }
  check(b.mem.read_beats_resp(3) - dec0 == 4 + 1 + 2 + 4 + 1 + 2 + 2,
        "R beats taken with DECERR counted: 16");
  {
    std::vector<uint8_t> snap(m, m + kMem);
    int resp = b.write(0x30000, 1, 6, 2, 0x11);
    check(resp == 3 && mem_same(snap), "write 2 beats at 0x30000 (outside): BRESP DECERR, "
                                       "memory unchanged");
    resp = b.write(kMem - 128, 3, 6, 4, 0x22);
    check(resp == 3 && mem_same(snap),
          "write half inside, half outside: BRESP DECERR, nothing written (the inside half "
          "neither)");
    resp = b.write(kMem - 1, 1, 0, 2, 0x33);
    check(resp == 3 && mem_same(snap), "2-byte write of the last byte and the next: DECERR, "
                                       "nothing written");
    check(errs(QRDMA_SIM_ERR_DECERR) == 10, "... three more DECERR errors");
    check(b.mem.write_resps(3) == 3 && b.mem.write_bursts() == 4 && b.mem.write_resps(0) == 1,
          "B taken with DECERR counted: 3 (of 4 writes)");
    // the bytes inside memory stay writable
    resp = b.write(kMem - 64, 0, 6, 1, 0x44);
    check(resp == 0 && m[kMem - 64] == 0x44 && m[kMem - 1] == 0x44,
          "write of the last 64 bytes: OKAY, written");
  }

  // ---- other rules: SLVERR, their own categories
  const uint64_t axi0 = errs(QRDMA_SIM_ERR_AXI), k4_0 = errs(QRDMA_SIM_ERR_4K),
                 dec1 = errs(QRDMA_SIM_ERR_DECERR);
  {
    auto v = b.read(0x0fc0, 1, 6);  // 0xfc0 .. 0x103f
    bool data = v.size() == 2 && memcmp(v[0].data, m + 0xfc0, 64) == 0 &&
                memcmp(v[1].data, m + 0x1000, 64) == 0;
    check(shape_ok(v, 1) && all_resp(v, 2) && data,
          "read across 4 KiB inside memory: SLVERR on every beat, data");
    check(errs(QRDMA_SIM_ERR_4K) == k4_0 + 1 && errs(QRDMA_SIM_ERR_AXI) == axi0,
          "... counted as a 4 KiB crossing only");
  }
  {
    auto v = b.read(0x3000, 0, 6, 0);  // FIXED
    check(shape_ok(v, 0) && all_resp(v, 2), "FIXED burst: SLVERR");
    check(errs(QRDMA_SIM_ERR_AXI) == axi0 + 1, "... counted as an AXI rule");
  }
  {
    int resp = b.write(0x5000, 1, 6, 1, 0x55);  // AWLEN 1, WLAST on the first beat
    check(resp == 2, "WLAST on beat 0 of a 2-beat burst: SLVERR");
    check(errs(QRDMA_SIM_ERR_AXI) == axi0 + 2, "... counted as an AXI rule");
  }
  {
    auto v = b.read(0x10fc0, 1, 6);  // 0x10fc0 .. 0x1103f: outside memory, crosses 4 KiB
    check(shape_ok(v, 1) && all_resp(v, 3) && all_zero(v),
          "read outside memory and across 4 KiB: DECERR");
    check(errs(QRDMA_SIM_ERR_DECERR) == dec1 + 1 && errs(QRDMA_SIM_ERR_4K) == k4_0 + 2,
          "... counted in both categories");
  }

  // ---- the accounting: totals, first message of each category
  uint64_t sum = 0;
  for (unsigned c = 0; c < QRDMA_SIM_ERR_NUM_CATS; ++c)
    sum += b.diag.count(static_cast<qrdma_sim_error_cat>(c));
  check(sum == b.diag.count() && b.diag.count() == 3 + 11 + 3,
        "total = sum of the categories (3 AXI, 11 DECERR, 3 4 KiB)");
  check(errs(QRDMA_SIM_ERR_AXI) == 3 && errs(QRDMA_SIM_ERR_DECERR) == 11 &&
            errs(QRDMA_SIM_ERR_4K) == 3 && errs(QRDMA_SIM_ERR_API) == 0 &&
            errs(QRDMA_SIM_ERR_RTL) == 0,
        "per category: AXI 3, DECERR 11, 4K 3, API 0, RTL 0");
  const std::string f_dec = b.diag.first(QRDMA_SIM_ERR_DECERR);
  const std::string f_4k = b.diag.first(QRDMA_SIM_ERR_4K);
  const std::string f_axi = b.diag.first(QRDMA_SIM_ERR_AXI);
  printf("     first DECERR: %s\n     first 4K: %s\n     first AXI: %s\n", f_dec.c_str(),
         f_4k.c_str(), f_axi.c_str());
  check(f_dec.find("m_axi_ar: burst at 0x20000, 4 beats of 64 bytes outside host memory") !=
            std::string::npos,
        "first DECERR message: the read at 0x20000");
  check(f_4k.find("m_axi_ar: burst at 0xffffffffffffffc0") != std::string::npos,
        "first 4 KiB message: the wrapping read");
  check(f_axi.find("size 7 above the bus width") != std::string::npos,
        "first AXI message: the 128-byte beats");
  check(std::string(b.diag.first()) == f_dec, "first of all: the first DECERR");
  check(std::string(b.diag.first(QRDMA_SIM_ERR_API)).empty() &&
            b.diag.count(static_cast<qrdma_sim_error_cat>(99)) == 0 &&
            std::string(b.diag.first(static_cast<qrdma_sim_error_cat>(99))).empty(),
        "a category without errors, an unknown category: 0 and empty text");
  check(b.mem.idle(), "every burst answered");

  printf("%s: %d failure(s)\n", failures ? "FAILED" : "OK", failures);
  return failures ? 1 : 0;
}
