// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// The fault model of one link direction (docs/sim.md "Faults"): random loss, corruption (one
// bit flipped inside the bytes the CRC covers), duplication, reordering (a random extra delay
// of 0..D cycles per packet), link-down windows and a silent sender. It sits at the sending
// end of a FifoLink and owns everything it keeps, so it runs on the thread of the sending
// node: it takes the NIC's beats, holds each packet until its last beat is in (store and
// forward), drops or keeps it, and puts the packets it keeps on the wire (the FifoLink) one
// beat per cycle, a whole packet at a time, in the order of their due cycles.
//
// Every decision about a packet is a function of (seed, source, destination, the packet's
// number on the direction) alone (fault_rand): the n-th packet of a direction is lost or not
// whatever the other fault kinds and directions do; and the line is driven by its sending end
// only, at most one beat per cycle onto the link, so a run is the same cycle for cycle in
// lockstep and in threaded quanta (net.h).
#pragma once

#include <cstdint>
#include <vector>

#include "net.h"
#include "qrdma_sim.h"

namespace qsim {

// splitmix64's output function; fault_rand(seed, src, dst, pkt, k) is the k-th random word
// of packet pkt of the direction src -> dst
inline uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
inline uint64_t fault_rand(uint64_t seed, unsigned src, unsigned dst, uint64_t pkt, unsigned k) {
  const uint64_t dir = mix64(seed ^ (uint64_t(src) << 32 | dst));
  return mix64(mix64(dir ^ pkt) + k);
}
// a random word as a probability test: true with probability p (53-bit resolution)
inline bool fault_hit(uint64_t r, double p) { return double(r >> 11) * 0x1p-53 < p; }

// The random words of a packet, by use.
enum FaultWord : unsigned { kWordLoss, kWordCorrupt, kWordDup, kWordDelay, kWordDupDelay, kWordFlip };

// A direction's configuration (qrdma_sim_faults plus what the system adds).
struct FaultConfig {
  qrdma_sim_faults f{};
  bool silent = false;  // the sender is a silent node: every packet dropped
  uint64_t seed = 0;
  unsigned src = 0, dst = 0;
  bool any() const {
    return silent || f.loss > 0 || f.corrupt > 0 || f.dup > 0 || f.reorder > 0 || f.down_len > 0;
  }
  bool down(uint64_t t) const {  // the link is down in cycle t
    if (f.down_len == 0 || t < f.down_start) return false;
    const uint64_t d = t - f.down_start;
    return (f.down_period ? d % f.down_period : d) < f.down_len;
  }
};

class FaultLine {
 public:
  explicit FaultLine(const FaultConfig &c);
  // sending end, once per cycle: can_take() (the NIC's tready), take() for a beat taken,
  // then tick() puts at most one beat on the wire
  bool can_take() const { return stored_ - freed_ < cap_; }
  void take(const Beat &b, uint64_t now);
  void tick(FifoLink &wire, uint64_t now);
  bool idle() const { return pkt_head_ == pkt_tail_ && !in_pkt_; }
  size_t held() const { return static_cast<size_t>(stored_ - freed_); }  // beats
  const qrdma_sim_fault_counts &counts() const { return n_; }
  const FaultConfig &config() const { return c_; }

 private:
  struct Pkt {
    uint64_t seq;        // the packet's number on the direction
    uint64_t first;      // its first beat in the beat ring (stored_ numbering)
    uint32_t beats;      // beats stored so far (all of them once complete)
    bool complete;       // the last beat is in
    uint8_t copies;      // 1, or 2 when duplicated
    uint8_t sent;        // bit c: copy c is on the wire
    uint64_t due[2];     // cycle from which copy c may go on the wire
    bool corrupt;        // copy 0 carries a flipped bit
    uint32_t flip_beat;  // which beat, byte and bit
    uint32_t flip_byte;
    uint32_t flip_bit;
  };
  Pkt &pkt(uint64_t k) { return pkts_[k & mask_]; }

  FaultConfig c_;
  uint64_t cap_, mask_;
  std::vector<Beat> ring_;  // the beats of the packets held, in the order taken
  std::vector<Pkt> pkts_;   // the packets held, in the order taken
  uint64_t stored_ = 0, freed_ = 0;      // beats stored / freed (ring positions)
  uint64_t pkt_head_ = 0, pkt_tail_ = 0;  // packets held: [head, tail)
  uint64_t seq_ = 0;       // packets begun
  bool in_pkt_ = false;    // the next beat taken continues a packet
  bool dropping_ = false;  // ... which is dropped
  int64_t cur_ = -1;       // packet on the wire (index into pkts_ numbering), -1: none
  unsigned cur_copy_ = 0;
  uint32_t cur_beat_ = 0;
  qrdma_sim_fault_counts n_{};
};

}  // namespace qsim
