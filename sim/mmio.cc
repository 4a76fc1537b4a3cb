// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// MmioPort: CPU-side AXI4 master of the host port (see mmio.h).
#include "mmio.h"

#include "Vqrdma_nic.h"

namespace qsim {

MmioPort::MmioPort(unsigned node, unsigned rt_cycles, NodeLog &log)
    : node_(node), d_req_(rt_cycles / 2), d_resp_(rt_cycles - rt_cycles / 2), log_(log),
      awq_(1024), wq_(4096), arq_(64), arf_(64), rres_(64) {}

int64_t MmioPort::post_write(uint64_t addr, const void *bytes, size_t len, uint64_t now) {
  if (len == 0 || len % 8 || addr % 8 || len > 256 * kBusBytes ||
      (addr >> 12) != ((addr + len - 1) >> 12)) {
    log_.error(now, QRDMA_SIM_ERR_API,
               "node %u mmio write: %zu bytes at 0x%llx (need a multiple of 8 bytes, "
               "8-aligned, within 4 KiB)", node_, len, (unsigned long long)addr);
    return -1;
  }
  unsigned beat = kBusBytes;  // largest beat size dividing address and length
  while (beat > 8 && (addr % beat || len % beat)) beat /= 2;
  unsigned nbeats = static_cast<unsigned>(len / beat);
  if (awq_.full() || wq_.size() + nbeats > wq_.capacity()) {
    log_.error(now, QRDMA_SIM_ERR_API, "node %u mmio write: request queue full", node_);
    return -1;
  }
  uint64_t t = now + d_req_;
  awq_.push(Aw{static_cast<uint32_t>(addr), static_cast<uint8_t>(nbeats - 1),
               static_cast<uint8_t>(__builtin_ctz(beat)), t});
  const uint8_t *src = static_cast<const uint8_t *>(bytes);
  for (unsigned i = 0; i < nbeats; ++i) {
    W &w = wq_.back_slot();
    uint64_t a = addr + uint64_t(i) * beat;
    unsigned lane = static_cast<unsigned>(a % kBusBytes);
    memset(w.data, 0, kBusBytes);
    memcpy(w.data + lane, src + size_t(i) * beat, beat);
    w.strb = ((beat == 32 ? 0xffffffffu : ((1u << beat) - 1u))) << lane;
    w.last = i + 1 == nbeats;
    w.t = t;
    wq_.push();
  }
  if (t < wake_) wake_ = t;
  return static_cast<int64_t>(w_posted_++);
}

bool MmioPort::post_read(uint64_t addr, uint64_t now) {
  if (addr % 8 || arq_.full()) {
    log_.error(now, QRDMA_SIM_ERR_API,
               "node %u mmio read at 0x%llx: not 8-aligned or queue full", node_,
               (unsigned long long)addr);
    return false;
  }
  arq_.push(Ar{static_cast<uint32_t>(addr), now + d_req_, w_posted_});
  if (now + d_req_ < wake_) wake_ = now + d_req_;
  return true;
}

bool MmioPort::read_done(uint64_t now, uint64_t *val, unsigned *resp) {
  if (rres_.empty() || rres_.front().t > now) return false;
  *val = rres_.front().val;
  *resp = rres_.front().resp;
  rres_.pop();
  return true;
}

// drive and sample are inlined into drive_sample (the hot path) and into their out-of-line
// wrappers below (the both-edges flow).
__attribute__((always_inline)) inline void MmioPort::drive_impl(Vqrdma_nic &m, uint64_t now) {
  const bool aw = !awq_.empty() && awq_.front().t <= now;
  const bool w = !wq_.empty() && wq_.front().t <= now;
  const bool ar = !arq_.empty() && arq_.front().t <= now &&
                  b_count_ >= arq_.front().writes_before;
  // Nothing to offer (the common case: idle, or requests still on their way): the NIC's
  // inputs keep the values of the last drive, so only valids still high need lowering
  // (readies stay 1, payloads are don't-care). cycle() skips the port until the first
  // queued request is due (queues are in time order: the fronts are the earliest).
  if (primed_ && !aw && !w && !ar) {
    if (aw_offered_ || w_offered_ || ar_offered_) {
      m.s_axi_awvalid = 0;
      m.s_axi_wvalid = 0;
      m.s_axi_arvalid = 0;
      aw_offered_ = w_offered_ = ar_offered_ = false;
    }
    uint64_t wake = ~0ull;
    if (!awq_.empty()) wake = awq_.front().t;
    if (!wq_.empty() && wq_.front().t < wake) wake = wq_.front().t;
    if (!arq_.empty() && arq_.front().t < wake) wake = arq_.front().t;
    wake_ = wake;
    return;
  }
  primed_ = true;
  wake_ = 0;
  aw_offered_ = aw;
  m.s_axi_awvalid = aw_offered_;
  if (aw_offered_) {
    const Aw &a = awq_.front();
    m.s_axi_awid = 0;
    m.s_axi_awaddr = a.addr;
    m.s_axi_awlen = a.len;
    m.s_axi_awsize = a.size;
    m.s_axi_awburst = 1;
  }
  w_offered_ = w;
  m.s_axi_wvalid = w_offered_;
  if (w_offered_ && w_key_ != w_seq_) {
    const W &w = wq_.front();
    memcpy(m.s_axi_wdata.data(), w.data, kBusBytes);
    m.s_axi_wstrb = w.strb;
    m.s_axi_wlast = w.last;
    w_key_ = w_seq_;
  }
  ar_offered_ = ar;
  m.s_axi_arvalid = ar_offered_;
  if (ar_offered_) {
    m.s_axi_arid = 0;
    m.s_axi_araddr = arq_.front().addr;
    m.s_axi_arlen = 0;
    m.s_axi_arsize = 3;
    m.s_axi_arburst = 1;
  }
  m.s_axi_bready = 1;
  m.s_axi_rready = 1;
}

__attribute__((always_inline)) inline void MmioPort::sample_impl(Vqrdma_nic &m, uint64_t now) {
  if (aw_offered_ && m.s_axi_awready) awq_.pop();
  if (w_offered_ && m.s_axi_wready) {
    wq_.pop();
    ++w_seq_;
  }
  if (m.s_axi_bvalid) {
    last_bresp_ = m.s_axi_bresp;
    if (last_bresp_) ++err_count_;
    ++b_count_;
    if (b_count_ > w_posted_)
      log_.error(now, QRDMA_SIM_ERR_AXI, "node %u s_axi_b: B without a write", node_);
  }
  if (ar_offered_ && m.s_axi_arready) {
    arf_.push(arq_.front());
    arq_.pop();
  }
  if (m.s_axi_rvalid) {
    if (arf_.empty()) {
      log_.error(now, QRDMA_SIM_ERR_AXI, "node %u s_axi_r: R without a read", node_);
    } else {
      const Ar &a = arf_.front();
      unsigned lane = a.addr % kBusBytes;
      uint64_t v;
      memcpy(&v, reinterpret_cast<const uint8_t *>(m.s_axi_rdata.data()) + lane, 8);
      if (!m.s_axi_rlast)
        log_.error(now, QRDMA_SIM_ERR_AXI, "node %u s_axi_r: single-beat read without RLAST",
                   node_);
      if (m.s_axi_rresp) ++err_count_;
      rres_.push(RRes{v, now + d_resp_, static_cast<uint8_t>(m.s_axi_rresp)});
      arf_.pop();
    }
  }
}

void MmioPort::drive(Vqrdma_nic &m, uint64_t now) { drive_impl(m, now); }
void MmioPort::sample(Vqrdma_nic &m, uint64_t now) { sample_impl(m, now); }
void MmioPort::drive_sample(Vqrdma_nic &m, uint64_t now) {
  drive_impl(m, now);
  sample_impl(m, now);
}

}  // namespace qsim
