// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// The network between the simulated NICs (docs/sim.md "Links"). `Network` is the
// replaceable part: the system loop offers it each node's transmit beat and asks it for
// each node's receive beat, once per cycle. Two implementations:
//   - PointToPoint (here): N = 2 back to back (node 0's m_axis_tx to node 1's s_axis_rx and
//     back), or N = 1 looped back; one FifoLink per direction, no look at the packets;
//   - FabricStar (fabric_net.h): N >= 2 through the fabric RTL (a switch, or planes).
// With faults (docs/sim.md "Faults") each faulty direction has a FaultLine (faults.h) at the
// sending end of its FifoLink: the beats a NIC sends go into the line, and the line puts
// them on the link (tick(), once per cycle of the sending node).
// Every per-cycle call for node i touches only what belongs to node i: the sending end of
// the links from it and the receiving end of the links to it. What
// one end sees of the other end is a snapshot taken by sync() (system.h: every cycle when
// the nodes run in lockstep, once per quantum when they run in threads), so the nodes of a
// quantum may run concurrently and still see exactly what they see in lockstep.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace qsim {

class FaultLine;

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
// The sending end owns `tail_` (beats pushed), the receiving end `head_` (beats popped);
// each end reads the other's counter only as of the last sync(). In lockstep (sync before
// every cycle) that is the state at the start of the cycle, as the protocol of Network
// asks. Over a quantum of q cycles it is exact as long as q <= latency (a beat pushed in
// the quantum is due after it) and q <= depth - occupancy at its start (the link cannot
// fill in it, so can_push() is 1 throughout, as in lockstep): Network::quantum_room().
class FifoLink {
 public:
  FifoLink(unsigned latency, unsigned depth);
  // sending end
  bool can_push() const { return tail_ - head_seen_ < depth_; }
  // push in place: fill slot() (all but t_out), then commit(now); only when can_push()
  Beat &slot() { return ring_[tail_ & mask_]; }
  void commit(uint64_t now) {
    ring_[tail_ & mask_].t_out = now + latency_;
    ++tail_;
  }
  void push(const Beat &b, uint64_t now) {
    slot() = b;
    commit(now);
  }
  // receiving end: the oldest beat if it is due by cycle now
  const Beat *peek(uint64_t now) const {
    if (head_ == tail_seen_) return nullptr;
    const Beat &h = ring_[head_ & mask_];
    return h.t_out <= now ? &h : nullptr;
  }
  const Beat &front() const { return ring_[head_ & mask_]; }  // when peek() gave a beat
  void pop() { ++head_; }
  // both ends (only while no node runs)
  void sync() {
    head_seen_ = head_;
    tail_seen_ = tail_;
  }
  size_t occupancy() const { return static_cast<size_t>(tail_ - head_); }
  size_t room() const { return depth_ - occupancy(); }
  // beats that have reached the far end by cycle now (offered or waiting to be)
  size_t arrived(uint64_t now) const {
    size_t k = 0;
    while (k < occupancy() && ring_[(head_ + k) & mask_].t_out <= now) ++k;
    return k;
  }
  unsigned latency() const { return latency_; }

 private:
  unsigned latency_;
  uint64_t depth_, mask_;
  std::vector<Beat> ring_;  // power-of-two slots >= depth
  // each end's counters on its own cache line: two threads write them
  alignas(64) uint64_t tail_ = 0;  // sending end
  uint64_t head_seen_ = 0;
  alignas(64) uint64_t head_ = 0;  // receiving end
  uint64_t tail_seen_ = 0;
};

// What one link (direction) holds, for state dumps: from src to dst, `held` beats in all,
// `arrived` of them at the far end (due by the cycle asked about).
struct LinkState {
  unsigned src, dst;
  size_t held, arrived;
};

// Per-cycle protocol (the system loop calls, for cycle t): tx_ready(i) and rx_peek(i, t)
// (inputs of the cycle), then, after the models have settled, tx_push(i, beat, t) for a
// beat taken from node i (tvalid && tready) and rx_pop(i) for an offered beat node i took.
// rx_peek must keep offering the same beat until it is popped (AXI-Stream stability);
// tx_ready and rx_peek depend only on state as of the last sync(). The calls for node i
// touch node i's state only (see the top of this file).
class Network {
 public:
  virtual ~Network();
  virtual bool tx_ready(unsigned node) = 0;
  virtual void tx_push(unsigned node, const Beat &b, uint64_t now) = 0;
  virtual const Beat *rx_peek(unsigned node, uint64_t now) = 0;
  virtual void rx_pop(unsigned node) = 0;
  // between cycles (no node running): publish each end's progress to the other
  void sync() {
    for (FifoLink &l : links_) l.sync();
  }
  // the longest quantum the nodes may run without seeing each other: the link latency,
  // and no more cycles than the fullest link has room for beats
  uint64_t quantum_room() const {
    uint64_t q = latency_;
    for (const FifoLink &l : links_)
      if (l.room() < q) q = l.room();
    return q;
  }
  virtual bool idle() const {  // no beat in flight anywhere
    for (const FifoLink &l : links_)
      if (l.occupancy()) return false;
    return lines_.empty() || lines_idle();
  }
  // Faults: one FaultLine per link (nullptr for a direction without faults), set before
  // the first cycle; then tick(node, now) runs once per cycle of each node, after its
  // tx_push (the system loop calls it only when faulty()).
  void set_faults(std::vector<std::unique_ptr<FaultLine>> lines);
  bool faulty() const { return !lines_.empty(); }
  virtual void tick(unsigned node, uint64_t now) = 0;
  const FaultLine *fault_line(unsigned k) const { return lines_.empty() ? nullptr : lines_[k].get(); }
  virtual uint64_t dropped_packets() const { return 0; }
  // A network with a clocked model of its own (FabricStar): node i's per-destination pause
  // (the NIC's tx_pause), its reset, its edge after every node's edge of cycle `now`
  // (lockstep only; true: the model reported an RTL error)
  virtual uint64_t pause(unsigned node) const { return 0; }
  virtual void reset(bool high) {}
  virtual bool end_cycle(uint64_t now) { return false; }
  virtual bool lockstep_only() const { return false; }
  virtual const char *name() const = 0;
  // the links, for state dumps (not on the per-cycle path)
  unsigned link_count() const { return static_cast<unsigned>(links_.size()); }
  virtual LinkState link_state(unsigned k, uint64_t now) const = 0;

 protected:
  Network(unsigned links, unsigned latency, unsigned depth);
  bool lines_idle() const;
  bool line_ready(unsigned k) const;                       // link k's sending side
  void line_push(unsigned k, const Beat &b, uint64_t now);  // a beat taken for link k
  void line_tick(unsigned k, uint64_t now);
  unsigned latency_;
  std::vector<FifoLink> links_;
  std::vector<std::unique_ptr<FaultLine>> lines_;  // per link, or empty: no faults
};

// N = 2: node i transmits to node 1 - i. N = 1: node 0 to itself.
class PointToPoint final : public Network {
 public:
  PointToPoint(unsigned nodes, unsigned latency, unsigned depth);
  bool tx_ready(unsigned node) override {
    return lines_.empty() ? links_[node].can_push() : line_ready(node);
  }
  void tx_push(unsigned node, const Beat &b, uint64_t now) override {
    if (lines_.empty())
      links_[node].push(b, now);
    else
      line_push(node, b, now);
  }
  void tick(unsigned node, uint64_t now) override { line_tick(node, now); }
  // tx_push in place (the system loop's fast path, without faults): fill tx_slot(node),
  // then tx_commit
  Beat &tx_slot(unsigned node) { return links_[node].slot(); }
  void tx_commit(unsigned node, uint64_t now) { links_[node].commit(now); }
  const Beat *rx_peek(unsigned node, uint64_t now) override {
    return links_[peer_[node]].peek(now);
  }
  void rx_pop(unsigned node) override { links_[peer_[node]].pop(); }
  const char *name() const override { return "point-to-point"; }
  LinkState link_state(unsigned k, uint64_t now) const override {
    const FifoLink &l = links_[k];
    return LinkState{k, links_.size() == 2 ? 1 - k : k, l.occupancy(), l.arrived(now)};
  }

 private:
  unsigned peer_[2];  // peer_[i]: the node whose link feeds node i
};

}  // namespace qsim
