// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// The network between the simulated NICs (docs/sim.md "Links"). `Network` is the
// replaceable part: the system loop offers it each node's transmit beat and asks it for
// each node's receive beat, once per cycle. Two implementations:
//   - PointToPoint: N = 2 back to back (node 0's m_axis_tx to node 1's s_axis_rx and back),
//     or N = 1 looped back; one FifoLink per direction, no look at the packets;
//   - SimpleRouter: N > 2 without a switch model: one FifoLink per (source, destination)
//     pair, packets routed by the header's dst_node (net_hdr, sw/include/qrdma_fmt.h),
//     a round-robin, packet-atomic output per destination. Packets for a node that does
//     not exist (or for their own source) are dropped and counted.
// A switch (later issue) implements Network the same way.
#pragma once

#include <cstdint>
#include <vector>

#include "ring.h"

namespace qsim {

// One AXI-Stream beat of the 512-bit network interface.
struct Beat {
  uint32_t data[16];  // tdata[511:0]; word i = bits 32i+31..32i (byte 0 = data[0] & 0xff)
  uint64_t keep;      // tkeep
  uint32_t user;      // tuser (CRC-32 on the last beat)
  uint8_t last;       // tlast
  uint64_t t_out;     // first cycle the beat may be offered at the far end
};

// One direction of a link: a beat taken at cycle t is offered from cycle t + latency on,
// in order. Lossless: it holds at most `depth` beats (in flight plus waiting at the far
// end); can_push() is low when full. Full rate needs depth >= latency + 2.
class FifoLink {
 public:
  FifoLink(unsigned latency, unsigned depth) : latency_(latency), ring_(depth) {
    depth_ = depth;
  }
  bool can_push() const { return ring_.size() < depth_; }
  void push(const Beat &b, uint64_t now) {
    Beat &s = ring_.back_slot();
    s = b;
    s.t_out = now + latency_;
    ring_.push();
  }
  // push in place: fill slot() (all but t_out), then commit(now); only when can_push()
  Beat &slot() { return ring_.back_slot(); }
  void commit(uint64_t now) {
    ring_.back_slot().t_out = now + latency_;
    ring_.push();
  }
  const Beat *peek(uint64_t now) const {
    if (ring_.empty()) return nullptr;
    const Beat &h = ring_.front();
    return h.t_out <= now ? &h : nullptr;
  }
  void pop() { ring_.pop(); }
  size_t occupancy() const { return ring_.size(); }
  // beats that have reached the far end by cycle now (offered or waiting to be)
  size_t arrived(uint64_t now) const {
    size_t k = 0;
    while (k < ring_.size() && ring_.at(k).t_out <= now) ++k;
    return k;
  }
  unsigned latency() const { return latency_; }

 private:
  unsigned latency_;
  size_t depth_;
  Ring<Beat> ring_;
};

// What one link (direction) holds, for state dumps: from src to dst, `held` beats in all,
// `arrived` of them at the far end (due by the cycle asked about).
struct LinkState {
  unsigned src, dst;
  size_t held, arrived;
};

// Per-cycle protocol (the system loop calls, for cycle t, in this order):
//   tx_ready(i, t) and rx_peek(i, t) for every node (inputs of the cycle), then, after the
//   models have settled, tx_push(i, beat, t) for every beat taken from node i
//   (tvalid && tready) and rx_pop(i, t) for every offered beat node i took, then tick(t).
// rx_peek must keep offering the same beat until it is popped (AXI-Stream stability), and
// tx_ready may depend only on state at the start of the cycle.
class Network {
 public:
  virtual ~Network() = default;
  virtual bool tx_ready(unsigned node, uint64_t now) = 0;
  virtual void tx_push(unsigned node, const Beat &b, uint64_t now) = 0;
  virtual const Beat *rx_peek(unsigned node, uint64_t now) = 0;
  virtual void rx_pop(unsigned node, uint64_t now) = 0;
  virtual void tick(uint64_t) {}
  virtual bool idle() const = 0;  // no beat in flight anywhere
  virtual uint64_t dropped_packets() const { return 0; }
  virtual const char *name() const = 0;
  // the last cycle a beat was pushed or popped on any link (0: none yet): the watchdog's
  // movement on the links; every implementation sets last_move_ in tx_push (and its
  // in-place form) and rx_pop
  uint64_t last_move() const { return last_move_; }
  // the links, for state dumps (not on the per-cycle path)
  virtual unsigned link_count() const = 0;
  virtual LinkState link_state(unsigned k, uint64_t now) const = 0;

 protected:
  uint64_t last_move_ = 0;
};

// N = 2: node i transmits to node 1 - i. N = 1: node 0 to itself.
class PointToPoint final : public Network {
 public:
  PointToPoint(unsigned nodes, unsigned latency, unsigned depth);
  bool tx_ready(unsigned node, uint64_t) override { return link_[node].can_push(); }
  void tx_push(unsigned node, const Beat &b, uint64_t now) override {
    link_[node].push(b, now);
    last_move_ = now;
  }
  // tx_push in place (the system loop's fast path): fill tx_slot(node), then tx_commit
  Beat &tx_slot(unsigned node) { return link_[node].slot(); }
  void tx_commit(unsigned node, uint64_t now) {
    link_[node].commit(now);
    last_move_ = now;
  }
  const Beat *rx_peek(unsigned node, uint64_t now) override { return link_[peer_[node]].peek(now); }
  void rx_pop(unsigned node, uint64_t now) override {
    link_[peer_[node]].pop();
    last_move_ = now;
  }
  bool idle() const override {
    for (const FifoLink &l : link_)
      if (l.occupancy()) return false;
    return true;
  }
  const char *name() const override { return "point-to-point"; }
  unsigned link_count() const override { return static_cast<unsigned>(link_.size()); }
  LinkState link_state(unsigned k, uint64_t now) const override {
    const FifoLink &l = link_[k];
    return LinkState{k, link_.size() == 2 ? 1 - k : k, l.occupancy(), l.arrived(now)};
  }

 private:
  std::vector<FifoLink> link_;  // link_[i]: from node i
  unsigned peer_[2];            // peer_[i]: the node whose link feeds node i
};

// N > 2 without a switch: full mesh of FifoLinks, routing by dst_node of the header beat.
class SimpleRouter final : public Network {
 public:
  SimpleRouter(unsigned nodes, unsigned latency, unsigned depth);
  bool tx_ready(unsigned node, uint64_t now) override;
  void tx_push(unsigned node, const Beat &b, uint64_t now) override;
  const Beat *rx_peek(unsigned node, uint64_t now) override;
  void rx_pop(unsigned node, uint64_t now) override;
  bool idle() const override {
    for (const FifoLink &l : links_)
      if (l.occupancy()) return false;
    return true;
  }
  uint64_t dropped_packets() const override { return dropped_; }
  const char *name() const override { return "simple-router"; }
  unsigned link_count() const override { return static_cast<unsigned>(links_.size()); }
  LinkState link_state(unsigned k, uint64_t now) const override {
    const FifoLink &l = links_[k];
    return LinkState{k / n_, k % n_, l.occupancy(), l.arrived(now)};
  }

 private:
  FifoLink &link(unsigned src, unsigned dst) { return links_[src * n_ + dst]; }
  unsigned n_;
  std::vector<FifoLink> links_;
  struct In {
    bool in_packet = false;  // next beat taken continues a packet
    int dst = -1;            // its destination (-1: dropped)
  };
  struct Out {
    int src = -1;     // source the output is locked to (mid packet), -1: none
    unsigned rr = 0;  // next source to look at
  };
  std::vector<In> in_;
  std::vector<Out> out_;
  uint64_t dropped_ = 0;
};

}  // namespace qsim
