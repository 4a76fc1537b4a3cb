// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// HostMem: host memory model behind the NIC's AXI4 memory master (see host_mem.h).
#include "host_mem.h"

#include <sys/mman.h>

#include <cstring>
#include <stdexcept>

#include "Vqrdma_nic.h"

namespace qsim {

namespace {
constexpr unsigned kBeatBytes = 64;  // 512-bit bus
constexpr size_t kWBufBeats = 4096;  // write buffer (256 KiB): ample for wr_latency <= ~4000
}  // namespace

HostMem::HostMem(unsigned node, uint64_t bytes, unsigned rd_latency, unsigned wr_latency,
                 unsigned max_bursts, NodeLog &log)
    : node_(node), size_(bytes), rd_latency_(rd_latency), wr_latency_(wr_latency),
      max_bursts_(max_bursts ? max_bursts : 1), log_(log), rq_(max_bursts_),
      awq_(max_bursts_), wbuf_(kWBufBeats), wdone_(kWBufBeats), pend_(kWBufBeats),
      bq_(kWBufBeats) {
  void *p = mmap(nullptr, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::runtime_error("host memory: mmap failed");
  mem_ = static_cast<uint8_t *>(p);
}

HostMem::~HostMem() {
  if (mem_) munmap(mem_, size_ ? size_ : 1);
}

// The response of a burst (AR or AW): DECERR if it touches a byte outside the memory, else
// SLVERR if it breaks another rule, else OKAY; every rule it breaks is reported.
uint8_t HostMem::check_burst(uint64_t now, const char *ch, uint64_t addr, unsigned len,
                             unsigned size, unsigned burst) {
  uint8_t resp = 0;
  if (burst != 1) {
    log_.error(now, QRDMA_SIM_ERR_AXI, "node %u m_axi_%s: burst type %u (only INCR)", node_,
               ch, burst);
    resp = 2;
  }
  if ((1u << size) > kBeatBytes) {
    log_.error(now, QRDMA_SIM_ERR_AXI, "node %u m_axi_%s: size %u above the bus width", node_,
               ch, size);
    resp = 2;
  }
  // the bytes the burst addresses: from addr to the end of its last beat (beats after the
  // first are size-aligned); span <= 256 * 128 bytes
  const uint64_t bytes = 1ull << size;
  const uint64_t base = addr & ~(bytes - 1);
  const uint64_t span = (uint64_t(len) + 1) * bytes;
  const uint64_t last = base + span - 1;  // wraps only past 2^64, outside memory anyway
  if ((addr >> 12) != (last >> 12)) {
    log_.error(now, QRDMA_SIM_ERR_4K,
               "node %u m_axi_%s: burst at 0x%llx, %u beats of %llu bytes crosses 4 KiB",
               node_, ch, (unsigned long long)addr, len + 1, (unsigned long long)bytes);
    resp = 2;
  }
  if (span > size_ || base > size_ - span) {
    log_.error(now, QRDMA_SIM_ERR_DECERR,
               "node %u m_axi_%s: burst at 0x%llx, %u beats of %llu bytes outside host "
               "memory (%llu bytes): DECERR",
               node_, ch, (unsigned long long)addr, len + 1, (unsigned long long)bytes,
               (unsigned long long)size_);
    resp = 3;
  }
  return resp;
}

// drive and sample are inlined into drive_sample (the hot path) and into their out-of-line
// wrappers below (the both-edges flow).
__attribute__((always_inline)) inline void HostMem::drive_impl(Vqrdma_nic &m, uint64_t now) {
  // ---- read data
  m.m_axi_arready = rq_.size() < max_bursts_;
  r_offered_ = false;
  if (!rq_.empty() && rq_.front().t <= now) {
    const Burst &b = rq_.front();
    if (!r_loaded_) {
      // the 64-byte window of a beat inside memory lies in the mapping (whole pages) even
      // when mem_bytes is not a multiple of 64
      uint64_t a = beat_addr(b, r_beat_) & ~uint64_t(kBeatBytes - 1);
      if (b.resp == 3)
        memset(m.m_axi_rdata.data(), 0, kBeatBytes);
      else
        memcpy(m.m_axi_rdata.data(), mem_ + a, kBeatBytes);
      r_loaded_ = true;
    }
    m.m_axi_rvalid = 1;
    m.m_axi_rlast = r_beat_ == b.len;
    m.m_axi_rid = b.id;
    m.m_axi_rresp = b.resp;
    r_offered_ = true;
  } else {
    m.m_axi_rvalid = 0;
  }
  // ---- writes landing this cycle, B
  while (!pend_.empty() && pend_.front().aw.t <= now && !bq_.full()) {
    const Pending &p = pend_.front();
    apply(p);
    bq_.push(BResp{p.aw.id, p.aw.resp});
    pend_.pop();
  }
  m.m_axi_awready = awq_.size() < max_bursts_;
  m.m_axi_wready = !wbuf_.full();
  b_offered_ = !bq_.empty();
  m.m_axi_bvalid = b_offered_;
  if (b_offered_) {
    m.m_axi_bid = bq_.front().id;
    m.m_axi_bresp = bq_.front().resp;
  }
}

__attribute__((always_inline)) inline void HostMem::sample_impl(Vqrdma_nic &m, uint64_t now) {
  // ---- AR
  if (m.m_axi_arvalid && m.m_axi_arready) {
    Burst &b = rq_.back_slot();
    b.addr = m.m_axi_araddr;
    b.len = m.m_axi_arlen;
    b.size = m.m_axi_arsize;
    b.id = m.m_axi_arid;
    b.t = now + rd_latency_;
    b.resp = check_burst(now, "ar", b.addr, b.len, b.size, m.m_axi_arburst);
    rq_.push();
    ++ar_bursts_;
    last_move_ = now;
  }
  // ---- R
  if (r_offered_ && m.m_axi_rready) {
    ++r_beats_;
    last_move_ = now;
    ++r_resp_beats_[rq_.front().resp];
    r_loaded_ = false;
    if (r_beat_ == rq_.front().len) {
      rq_.pop();
      r_beat_ = 0;
    } else {
      ++r_beat_;
    }
  }
  // ---- AW
  if (m.m_axi_awvalid && m.m_axi_awready) {
    Burst &b = awq_.back_slot();
    b.addr = m.m_axi_awaddr;
    b.len = m.m_axi_awlen;
    b.size = m.m_axi_awsize;
    b.id = m.m_axi_awid;
    b.t = 0;
    b.resp = check_burst(now, "aw", b.addr, b.len, b.size, m.m_axi_awburst);
    awq_.push();
    ++aw_bursts_;
    last_move_ = now;
  }
  // ---- W
  if (m.m_axi_wvalid && m.m_axi_wready) {
    WBeat &w = wbuf_.back_slot();
    memcpy(w.data, m.m_axi_wdata.data(), kBeatBytes);
    w.strb = m.m_axi_wstrb;
    wbuf_.push();
    ++w_beats_;
    last_move_ = now;
    ++w_open_beats_;
    if (m.m_axi_wlast) {
      wdone_.push(WDone{w_open_beats_});
      w_open_beats_ = 0;
    }
  }
  // ---- B
  if (b_offered_ && m.m_axi_bready) {
    ++b_resps_[bq_.front().resp];
    last_move_ = now;
    bq_.pop();
  }
  // ---- AW and W of a burst both taken: it lands wr_latency cycles later
  while (!awq_.empty() && !wdone_.empty()) {
    Pending &p = pend_.back_slot();
    p.aw = awq_.front();
    p.aw.t = now + wr_latency_;
    p.beats = wdone_.front().beats;
    if (p.beats != uint32_t(p.aw.len) + 1u) {
      log_.error(now, QRDMA_SIM_ERR_AXI,
                 "node %u m_axi_w: burst at 0x%llx has AWLEN+1 = %u beats but WLAST on beat %u",
                 node_, (unsigned long long)p.aw.addr, p.aw.len + 1u, p.beats);
      if (!p.aw.resp) p.aw.resp = 2;
    }
    pend_.push();
    awq_.pop();
    wdone_.pop();
  }
}

void HostMem::drive(Vqrdma_nic &m, uint64_t now) { drive_impl(m, now); }
void HostMem::sample(Vqrdma_nic &m, uint64_t now) { sample_impl(m, now); }
void HostMem::drive_sample(Vqrdma_nic &m, uint64_t now) {
  drive_impl(m, now);
  sample_impl(m, now);
  quiet_ = idle() && wdone_.empty() && m.m_axi_arready && m.m_axi_awready && m.m_axi_wready &&
           !m.m_axi_rvalid && !m.m_axi_bvalid;
}

// Write a complete burst into memory: every strobed byte of beat i goes to the 64-byte
// window holding that beat's address (strobes tell the lanes, whatever the size).
void HostMem::apply(const Pending &p) {
  if (p.aw.resp != 3) {
    // beat_addr(p.aw, i) without its per-beat shift; beats past AWLEN (a WLAST error) are
    // dropped
    const uint64_t bytes = 1ull << p.aw.size;
    const uint64_t base = p.aw.addr & ~(bytes - 1);
    const uint32_t n = p.beats < uint32_t(p.aw.len) + 1 ? p.beats : uint32_t(p.aw.len) + 1;
    for (uint32_t i = 0; i < n; ++i) {
      const WBeat &w = wbuf_.at(i);
      const uint64_t a = i == 0 ? p.aw.addr : base + i * bytes;
      uint8_t *dst = mem_ + (a & ~uint64_t(kBeatBytes - 1));
      if (w.strb == ~0ull) {
        memcpy(dst, w.data, kBeatBytes);
      } else {
        uint64_t s = w.strb;
        while (s) {
          unsigned lane = __builtin_ctzll(s);
          dst[lane] = w.data[lane];
          s &= s - 1;
        }
      }
    }
  }
  wbuf_.pop(p.beats);
}

}  // namespace qsim
