// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// FabricStar (see fabric_net.h).
#include "fabric_net.h"

#include <cstring>
#include <stdexcept>
#include <type_traits>

#ifndef QRDMA_SIM_NIC_NODES
#define QRDMA_SIM_NIC_NODES 4
#endif
#ifndef QRDMA_SIM_FAB_PLANES
#define QRDMA_SIM_FAB_PLANES 2
#endif

#ifndef QRDMA_SIM_DUMBBELL
#define QRDMA_SIM_DUMBBELL 1
#endif

#if QRDMA_SIM_FAB_PLANES > 1
#include "Vqrdma_fabric_planes.h"
#endif
#if QRDMA_SIM_DUMBBELL
#include "Vqrdma_fabric_dumbbell.h"
#endif
#include "Vqrdma_fabric_star.h"
#include "qrdma_sim.h"
#include "verilated.h"

namespace qsim {

namespace {
// Bits lsb .. lsb + w - 1 (w <= 32, not crossing a 32-bit word) of a Verilated port, which
// is an integer up to 64 bits and a VlWide beyond.
template <class T>
uint32_t get_bits(const T &sig, unsigned lsb, unsigned w) {
  const uint32_t mask = w == 32 ? ~0u : (1u << w) - 1;
  if constexpr (std::is_integral_v<T>)
    return static_cast<uint32_t>(static_cast<uint64_t>(sig) >> lsb) & mask;
  else
    return (sig[lsb / 32] >> (lsb % 32)) & mask;
}
template <class T>
void put_bits(T &sig, unsigned lsb, unsigned w, uint32_t v) {
  const uint32_t mask = w == 32 ? ~0u : (1u << w) - 1;
  if constexpr (std::is_integral_v<T>) {
    const uint64_t m = uint64_t(mask) << lsb;
    sig = static_cast<T>((static_cast<uint64_t>(sig) & ~m) | ((uint64_t(v) << lsb) & m));
  } else {
    const uint32_t m = mask << (lsb % 32);
    uint32_t &word = sig[lsb / 32];
    word = (word & ~m) | ((v << (lsb % 32)) & m);
  }
}
// beat p of a P-beat port: tdata (16 words), tkeep (2 words), tuser, tlast
template <class D, class K, class U, class L>
void put_beat(D &d, K &k, U &u, L &l, unsigned p, const Beat &b) {
  for (unsigned w = 0; w < 16; ++w) d[16 * p + w] = b.data[w];
  put_bits(k, 64 * p, 32, static_cast<uint32_t>(b.keep));
  put_bits(k, 64 * p + 32, 32, static_cast<uint32_t>(b.keep >> 32));
  put_bits(u, 32 * p, 32, b.user);
  put_bits(l, p, 1, b.last);
}
template <class D, class K, class U, class L>
void get_beat(const D &d, const K &k, const U &u, const L &l, unsigned p, Beat &b) {
  for (unsigned w = 0; w < 16; ++w) b.data[w] = d[16 * p + w];
  b.keep = get_bits(k, 64 * p, 32) | uint64_t(get_bits(k, 64 * p + 32, 32)) << 32;
  b.user = get_bits(u, 32 * p, 32);
  b.last = static_cast<uint8_t>(get_bits(l, p, 1));
}
}  // namespace

std::unique_ptr<Network> make_fabric(unsigned nodes, FabricTopo topo, unsigned planes,
                                     unsigned latency, unsigned depth, unsigned link_div) {
  if (link_div > 255) throw std::invalid_argument("options.link_div: 0 .. 255");
  switch (topo) {
    case FabricTopo::kStar:
      return std::make_unique<FabricStar<Vqrdma_fabric_star>>(nodes, topo, 1, latency, depth,
                                                              link_div);
    case FabricTopo::kPlanes:
#if QRDMA_SIM_FAB_PLANES > 1
      if (planes == QRDMA_SIM_FAB_PLANES)
        return std::make_unique<FabricStar<Vqrdma_fabric_planes>>(nodes, topo, planes, latency,
                                                                  depth, link_div);
#endif
      throw std::invalid_argument("options.planes: the build's FAB_PLANES (" +
                                  std::to_string(QRDMA_SIM_FAB_PLANES) +
                                  "; 0: no planes model)");
    case FabricTopo::kDumbbell:
#if QRDMA_SIM_DUMBBELL
      return std::make_unique<FabricStar<Vqrdma_fabric_dumbbell>>(nodes, topo, 1, latency,
                                                                  depth, link_div);
#else
      throw std::invalid_argument("the dumbbell topology: not in this build (DUMBBELL=0)");
#endif
  }
  throw std::invalid_argument("make_fabric: unknown topology");
}

namespace {
// links each way: a node's per plane, and the dumbbell's trunk
unsigned links_per_direction(FabricTopo topo, unsigned planes) {
  return topo == FabricTopo::kDumbbell ? QRDMA_SIM_NIC_NODES + 1
                                       : planes * QRDMA_SIM_NIC_NODES;
}
}  // namespace

template <class M>
FabricStar<M>::FabricStar(unsigned nodes, FabricTopo topo, unsigned planes, unsigned latency,
                          unsigned depth, unsigned link_div)
    : Network(2 * links_per_direction(topo, planes), latency, depth),
      topo_(topo), ports_(QRDMA_SIM_NIC_NODES), planes_(planes),
      L_(links_per_direction(topo, planes)),
      ctx_(new VerilatedContext), rx_(QRDMA_SIM_NIC_NODES), rx_valid_(QRDMA_SIM_NIC_NODES) {
  if (latency < 1) throw std::invalid_argument("the fabric's links need link_latency >= 1");
  if (nodes < 2 || nodes > ports_)
    throw std::invalid_argument("the fabric topologies have 2 .. NIC_NODES nodes");
  ctx_->threads(1);
  ctx_->fatalOnError(false);
  m_.reset(new M(ctx_.get(), "fabric"));
  m_->rst = 1;
  m_->clk = 0;
  m_->cfg_link_div = static_cast<uint8_t>(link_div);
  Verilated::threadContextp(ctx_.get());
  m_->eval();
}

template <class M>
FabricStar<M>::~FabricStar() {
  Verilated::threadContextp(ctx_.get());
  m_->final();
  m_.reset();
}

template <class M>
bool FabricStar<M>::tx_ready(unsigned node) { return get_bits(m_->nic_tx_tready, node, 1); }

template <class M>
void FabricStar<M>::tx_push(unsigned node, const Beat &b, uint64_t) {
  put_beat(m_->nic_tx_tdata, m_->nic_tx_tkeep, m_->nic_tx_tuser, m_->nic_tx_tlast, node, b);
  put_bits(m_->nic_tx_tvalid, node, 1, 1);
  ++beats_in_;
}

template <class M>
const Beat *FabricStar<M>::rx_peek(unsigned node, uint64_t) {
  return rx_valid_[node] ? &rx_[node] : nullptr;
}

template <class M>
void FabricStar<M>::rx_pop(unsigned node) {
  put_bits(m_->nic_rx_tready, node, 1, 1);
  ++beats_out_;
}

template <class M>
uint64_t FabricStar<M>::pause(unsigned node) const {
  return get_bits(m_->nic_tx_pause, node * ports_, ports_);
}

template <class M>
void FabricStar<M>::reset(bool high) { m_->rst = high; }

// The edge of cycle `now`: the links' beats due now into the switch and the ports, the
// NICs' handshakes (set by tx_push and rx_pop), then what the edge put on the links
template <class M>
bool FabricStar<M>::end_cycle(uint64_t now) {
  Verilated::threadContextp(ctx_.get());
  const unsigned L = L_;
  for (unsigned p = 0; p < L; ++p) {
    FifoLink &up = links_[p], &dn = links_[L + p];
    up.sync();
    dn.sync();
    const Beat *u = up.peek(now);
    put_bits(m_->sw_in_tvalid, p, 1, u != nullptr);
    if (u) {
      put_beat(m_->sw_in_tdata, m_->sw_in_tkeep, m_->sw_in_tuser, m_->sw_in_tlast, p, *u);
      up.pop();
    }
    const Beat *d = dn.peek(now);
    put_bits(m_->dn_tvalid, p, 1, d != nullptr);
    if (d) {
      put_beat(m_->dn_tdata, m_->dn_tkeep, m_->dn_tuser, m_->dn_tlast, p, *d);
      dn.pop();
    }
  }
  m_->clk = 1;
  m_->eval();
  m_->clk = 0;
  m_->eval();
  m_->nic_tx_tvalid = 0;
  m_->nic_rx_tready = 0;
  for (unsigned p = 0; p < L; ++p) {
    FifoLink &up = links_[p], &dn = links_[L + p];
    if (lines_.empty()) {
      if (get_bits(m_->up_tvalid, p, 1)) {
        get_beat(m_->up_tdata, m_->up_tkeep, m_->up_tuser, m_->up_tlast, p, up.slot());
        up.commit(now + 1);
      }
      if (get_bits(m_->sw_out_tvalid, p, 1)) {
        get_beat(m_->sw_out_tdata, m_->sw_out_tkeep, m_->sw_out_tuser, m_->sw_out_tlast, p,
                 dn.slot());
        dn.commit(now + 1);
      }
      continue;
    }
    // with faults each link's beats go through its FaultLine (which holds a packet until its
    // last beat is in, then puts it on the link a beat per cycle)
    Beat b;
    if (get_bits(m_->up_tvalid, p, 1)) {
      get_beat(m_->up_tdata, m_->up_tkeep, m_->up_tuser, m_->up_tlast, p, b);
      line_push(p, b, now + 1);
    }
    if (get_bits(m_->sw_out_tvalid, p, 1)) {
      get_beat(m_->sw_out_tdata, m_->sw_out_tkeep, m_->sw_out_tuser, m_->sw_out_tlast, p, b);
      line_push(L + p, b, now + 1);
    }
    line_tick(p, now + 1);
    line_tick(L + p, now + 1);
  }
  for (unsigned p = 0; p < ports_; ++p) {
    rx_valid_[p] = static_cast<uint8_t>(get_bits(m_->nic_rx_tvalid, p, 1));
    if (rx_valid_[p])
      get_beat(m_->nic_rx_tdata, m_->nic_rx_tkeep, m_->nic_rx_tuser, m_->nic_rx_tlast, p, rx_[p]);
  }
  if (!ctx_->gotError()) return false;
  ctx_->gotError(false);
  return true;
}

template <class M>
uint64_t FabricStar<M>::dropped_packets() const { return m_->drops; }

template <class M>
LinkState FabricStar<M>::link_state(unsigned k, uint64_t now) const {
  const FifoLink &l = links_[k];
  const unsigned j = k % L_;  // the link's index in its direction
  unsigned node, sw;          // its ends: the node (or switch) and the switch
  if (topo_ == FabricTopo::kDumbbell) {
    if (j == ports_)  // the trunk: up from switch 0, down from switch 1
      return k < L_ ? LinkState{QRDMA_SIM_SWITCH, QRDMA_SIM_SWITCH + 1, l.occupancy(),
                                l.arrived(now)}
                    : LinkState{QRDMA_SIM_SWITCH + 1, QRDMA_SIM_SWITCH, l.occupancy(),
                                l.arrived(now)};
    node = j;
    sw = QRDMA_SIM_SWITCH + j % 2;
  } else {
    node = j % ports_;
    sw = QRDMA_SIM_SWITCH + j / ports_;  // the link's plane
  }
  return k < L_ ? LinkState{node, sw, l.occupancy(), l.arrived(now)}
                : LinkState{sw, node, l.occupancy(), l.arrived(now)};
}

template class FabricStar<Vqrdma_fabric_star>;
#if QRDMA_SIM_FAB_PLANES > 1
template class FabricStar<Vqrdma_fabric_planes>;
#endif
#if QRDMA_SIM_DUMBBELL
template class FabricStar<Vqrdma_fabric_dumbbell>;
#endif

}  // namespace qsim
