// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// MmioPort: CPU-side AXI4 master of the host port (see mmio.h).
#include "mmio.h"

#include "Vqrdma_nic.h"

namespace qsim {

MmioPort::MmioPort(unsigned node, unsigned rt_cycles, NodeLog &log)
    : node_(node), d_req_(rt_cycles / 2), d_resp_(rt_cycles - rt_cycles / 2), log_(log),
      awq_(1024), wq_(4096), arf_(64 * kMaxCores), bown_(1024 * kMaxCores) {
  use(0);
}

MmioPort::~MmioPort() = default;

int64_t MmioPort::post_write(unsigned core, uint64_t addr, const void *bytes, size_t len,
                             uint64_t issue) {
  if (len == 0 || len % 8 || addr % 8 || len > 256 * kBusBytes ||
      (addr >> 12) != ((addr + len - 1) >> 12)) {
    log_.error(issue, QRDMA_SIM_ERR_API,
               "node %u mmio write: %zu bytes at 0x%llx (need a multiple of 8 bytes, "
               "8-aligned, within 4 KiB)", node_, len, (unsigned long long)addr);
    return -1;
  }
  Core &c = use(core);
  unsigned beat = kBusBytes;  // largest beat size dividing address and length
  while (beat > 8 && (addr % beat || len % beat)) beat /= 2;
  unsigned nbeats = static_cast<unsigned>(len / beat);
  if (c.awq.full() || c.wq.size() + nbeats > c.wq.capacity()) {
    log_.error(issue, QRDMA_SIM_ERR_API, "node %u mmio write: request queue full", node_);
    return -1;
  }
  uint64_t t = issue + d_req_;
  c.awq.push(Aw{static_cast<uint32_t>(addr), static_cast<uint8_t>(nbeats - 1),
                static_cast<uint8_t>(__builtin_ctz(beat)), static_cast<uint8_t>(core), t});
  const uint8_t *src = static_cast<const uint8_t *>(bytes);
  for (unsigned i = 0; i < nbeats; ++i) {
    W &w = c.wq.back_slot();
    uint64_t a = addr + uint64_t(i) * beat;
    unsigned lane = static_cast<unsigned>(a % kBusBytes);
    memset(w.data, 0, kBusBytes);
    memcpy(w.data + lane, src + size_t(i) * beat, beat);
    w.strb = ((beat == 32 ? 0xffffffffu : ((1u << beat) - 1u))) << lane;
    w.last = i + 1 == nbeats;
    w.t = t;
    c.wq.push();
  }
  if (t < wake_) wake_ = t;
  ++w_posted_;
  return static_cast<int64_t>(c.posted++);
}

bool MmioPort::post_read(unsigned core, uint64_t addr, uint64_t issue) {
  Core &c = use(core);
  if (addr % 8 || c.arq.full()) {
    log_.error(issue, QRDMA_SIM_ERR_API,
               "node %u mmio read at 0x%llx: not 8-aligned or queue full", node_,
               (unsigned long long)addr);
    return false;
  }
  c.arq.push(Ar{static_cast<uint32_t>(addr), static_cast<uint8_t>(core), issue + d_req_,
                c.posted});
  if (issue + d_req_ < wake_) wake_ = issue + d_req_;
  return true;
}

bool MmioPort::read_done(unsigned core, uint64_t now, uint64_t *val, unsigned *resp) {
  Core *c = cores_[core].get();
  if (!c || c->rres.empty() || c->rres.front().t > now) return false;
  *val = c->rres.front().val;
  *resp = c->rres.front().resp;
  if (c->rres.front().t > c->clock) c->clock = c->rres.front().t;
  c->rres.pop();
  return true;
}

uint64_t MmioPort::read_done_bound(unsigned core, uint64_t now) const {
  const Core *c = cores_[core].get();
  uint64_t t = now;
  if (!c) return t;
  if (!c->rres.empty())
    t = c->rres.front().t;
  else if (c->r_taken)
    t = now + d_resp_;
  else if (!c->arq.empty())
    t = (c->arq.front().t > now ? c->arq.front().t : now) + 1 + d_resp_;
  return t < now ? now : t;
}

bool MmioPort::idle() const {
  if (!awq_.empty() || !wq_.empty() || !arf_.empty()) return false;
  for (unsigned k = 0; k < ncores_; ++k) {
    const Core *c = cores_[k].get();
    if (c && (!c->awq.empty() || !c->wq.empty() || !c->arq.empty() || !c->rres.empty()))
      return false;
  }
  return true;
}

size_t MmioPort::reads_outstanding() const {
  size_t n = 0;
  for (unsigned k = 0; k < ncores_; ++k) n += reads_pending(k);
  return n;
}

// Move the writes that have reached the port from the cores' queues into the port's, in
// arrival order, same-cycle arrivals in core order (a write waits in its core's queue while
// the port's are full).
void MmioPort::merge_writes(uint64_t now) {
  for (;;) {
    int best = -1;
    uint64_t bt = 0;
    for (unsigned k = 0; k < ncores_; ++k) {
      const Core *c = cores_[k].get();
      if (c && !c->awq.empty() && c->awq.front().t <= now && (best < 0 || c->awq.front().t < bt)) {
        best = static_cast<int>(k);
        bt = c->awq.front().t;
      }
    }
    if (best < 0) return;
    Core &c = *cores_[best];
    const unsigned nbeats = c.awq.front().len + 1u;
    if (awq_.full() || wq_.size() + nbeats > wq_.capacity()) return;
    awq_.push(c.awq.front());
    c.awq.pop();
    for (unsigned i = 0; i < nbeats; ++i) {
      wq_.push(c.wq.front());
      c.wq.pop();
    }
  }
}

// The core whose read goes on AR this cycle, or -1: the read already offered, else of the
// reads that reached the port and whose core's earlier writes are answered, the first to
// arrive (ties: the lowest core).
int MmioPort::pick_read(uint64_t now) const {
  if (ar_core_ >= 0) return ar_core_;
  int best = -1;
  uint64_t bt = 0;
  for (unsigned k = 0; k < ncores_; ++k) {
    const Core *c = cores_[k].get();
    if (!c || c->arq.empty()) continue;
    const Ar &a = c->arq.front();
    if (a.t <= now && c->answered >= a.writes_before && (best < 0 || a.t < bt)) {
      best = static_cast<int>(k);
      bt = a.t;
    }
  }
  return best;
}

// The first cycle a queued request reaches the port (~0: none queued).
uint64_t MmioPort::next_wake() const {
  uint64_t wake = ~0ull;
  for (unsigned k = 0; k < ncores_; ++k) {
    const Core *c = cores_[k].get();
    if (!c) continue;
    if (!c->awq.empty() && c->awq.front().t < wake) wake = c->awq.front().t;
    if (!c->arq.empty() && c->arq.front().t < wake) wake = c->arq.front().t;
  }
  return wake;
}

// drive and sample are inlined into drive_sample (the hot path) and into their out-of-line
// wrappers below (the both-edges flow).
__attribute__((always_inline)) inline void MmioPort::drive_impl(Vqrdma_nic &m, uint64_t now) {
  merge_writes(now);
  // every write in the port's queues has reached it
  const bool aw = !awq_.empty();
  const bool w = !wq_.empty();
  const int arc = pick_read(now);
  const bool ar = arc >= 0;
  // Nothing to offer (the common case: idle, or requests still on their way): the NIC's
  // inputs keep the values of the last drive, so only valids still high need lowering
  // (readies stay 1, payloads are don't-care). cycle() skips the port until the first
  // queued request is due (each core's queues are in time order: the fronts are the
  // earliest).
  if (primed_ && !aw && !w && !ar) {
    if (aw_offered_ || w_offered_ || ar_offered_) {
      m.s_axi_awvalid = 0;
      m.s_axi_wvalid = 0;
      m.s_axi_arvalid = 0;
      aw_offered_ = w_offered_ = ar_offered_ = false;
    }
    wake_ = next_wake();
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
  ar_core_ = arc;
  m.s_axi_arvalid = ar_offered_;
  if (ar_offered_) {
    m.s_axi_arid = 0;
    m.s_axi_araddr = cores_[arc]->arq.front().addr;
    m.s_axi_arlen = 0;
    m.s_axi_arsize = 3;
    m.s_axi_arburst = 1;
  }
  m.s_axi_bready = 1;
  m.s_axi_rready = 1;
}

__attribute__((always_inline)) inline void MmioPort::sample_impl(Vqrdma_nic &m, uint64_t now) {
  if (aw_offered_ && m.s_axi_awready) {
    bown_.push(awq_.front().core);
    awq_.pop();
  }
  if (w_offered_ && m.s_axi_wready) {
    wq_.pop();
    ++w_seq_;
  }
  if (m.s_axi_bvalid) {
    if (bown_.empty()) {
      log_.error(now, QRDMA_SIM_ERR_AXI, "node %u s_axi_b: B without a write", node_);
    } else {
      Core &c = *cores_[bown_.front()];
      bown_.pop();
      c.last_bresp = m.s_axi_bresp;
      if (c.last_bresp) ++err_count_;
      ++c.answered;
      ++b_count_;
    }
  }
  if (ar_offered_ && m.s_axi_arready) {
    Core &c = *cores_[ar_core_];
    arf_.push(c.arq.front());
    c.arq.pop();
    ++c.r_taken;
    ar_core_ = -1;
  }
  if (m.s_axi_rvalid) {
    if (arf_.empty()) {
      log_.error(now, QRDMA_SIM_ERR_AXI, "node %u s_axi_r: R without a read", node_);
    } else {
      const Ar &a = arf_.front();
      Core &c = *cores_[a.core];
      unsigned lane = a.addr % kBusBytes;
      uint64_t v;
      memcpy(&v, reinterpret_cast<const uint8_t *>(m.s_axi_rdata.data()) + lane, 8);
      if (!m.s_axi_rlast)
        log_.error(now, QRDMA_SIM_ERR_AXI, "node %u s_axi_r: single-beat read without RLAST",
                   node_);
      if (m.s_axi_rresp) ++err_count_;
      c.rres.push(RRes{v, now + d_resp_, static_cast<uint8_t>(m.s_axi_rresp)});
      --c.r_taken;
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
