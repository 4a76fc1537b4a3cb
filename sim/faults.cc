// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// The fault model of one link direction (see faults.h, docs/sim.md "Faults").
#include "faults.h"

namespace qsim {

FaultLine::FaultLine(const FaultConfig &c) : c_(c) {
  // room for the packets a reordering delay holds back while the sender goes on at full
  // rate, and for their duplicates
  const uint64_t want = 2 * uint64_t(c.f.reorder) + 1024;
  cap_ = 1;
  while (cap_ < want) cap_ <<= 1;
  mask_ = cap_ - 1;
  ring_.resize(cap_);
  pkts_.resize(cap_);
}

// The packet's fate is decided at its header beat (silent sender, link down, loss), its
// corruption, duplication and delay at its last beat (when its length is known).
void FaultLine::take(const Beat &b, uint64_t now) {
  if (!in_pkt_) {
    const uint64_t s = seq_++;
    ++n_.packets_in;
    dropping_ = true;
    if (c_.silent)
      ++n_.silenced;
    else if (c_.down(now))
      ++n_.down_lost;
    else if (c_.f.loss > 0 && fault_hit(fault_rand(c_.seed, c_.src, c_.dst, s, kWordLoss), c_.f.loss))
      ++n_.lost;
    else
      dropping_ = false;
    if (!dropping_) {
      Pkt &p = pkt(pkt_tail_++);
      p = Pkt{};
      p.seq = s;
      p.first = stored_;
      p.copies = 1;
    }
  }
  ++n_.beats_in;
  in_pkt_ = !b.last;
  if (dropping_) {
    ++n_.dropped_beats;
    return;
  }
  Pkt &p = pkt(pkt_tail_ - 1);
  ring_[stored_ & mask_] = b;
  ++stored_;
  ++p.beats;
  if (!b.last) return;
  p.complete = true;
  const auto rnd = [&](unsigned k) { return fault_rand(c_.seed, c_.src, c_.dst, p.seq, k); };
  const uint64_t span = uint64_t(c_.f.reorder) + 1;
  const uint64_t extra = c_.f.reorder ? rnd(kWordDelay) % span : 0;
  p.due[0] = now + extra;
  if (extra) ++n_.delayed;
  if (c_.f.dup > 0 && fault_hit(rnd(kWordDup), c_.f.dup)) {
    p.copies = 2;
    p.due[1] = now + (c_.f.reorder ? rnd(kWordDupDelay) % span : 0);
    ++n_.duplicated;
    n_.dup_beats += p.beats;
  }
  if (c_.f.corrupt > 0 && fault_hit(rnd(kWordCorrupt), c_.f.corrupt)) {
    // one bit of a byte the CRC covers (tkeep), of a beat chosen uniformly; a beat without
    // kept bytes gets a bit of its tuser flipped instead
    const uint64_t r = rnd(kWordFlip);
    p.corrupt = true;
    p.flip_beat = static_cast<uint32_t>(r % p.beats);
    const uint64_t keep = ring_[(p.first + p.flip_beat) & mask_].keep;
    const unsigned nkeep = static_cast<unsigned>(__builtin_popcountll(keep));
    if (nkeep) {
      unsigned j = static_cast<unsigned>((r >> 32) % nkeep), byte = 0;
      for (;; ++byte)
        if (keep >> byte & 1 && j-- == 0) break;
      p.flip_byte = byte;
      p.flip_bit = static_cast<uint32_t>(r >> 8) & 7;
    } else {
      p.flip_byte = 64;
      p.flip_bit = static_cast<uint32_t>(r >> 8) & 31;
    }
    ++n_.corrupted;
  }
}

// One beat onto the wire, when it has room: the packet on the wire continues; else the
// packet copy due first (ties: taken first, the original before its duplicate) starts.
void FaultLine::tick(FifoLink &wire, uint64_t now) {
  if (!wire.can_push()) return;
  if (cur_ < 0) {
    int64_t best = -1;
    unsigned bc = 0;
    uint64_t bdue = 0;
    for (uint64_t k = pkt_head_; k < pkt_tail_; ++k) {
      const Pkt &p = pkt(k);
      if (!p.complete) break;  // only the newest packet can be incomplete
      for (unsigned c = 0; c < p.copies; ++c)
        if (!(p.sent >> c & 1) && p.due[c] <= now && (best < 0 || p.due[c] < bdue)) {
          best = static_cast<int64_t>(k);
          bc = c;
          bdue = p.due[c];
        }
    }
    if (best < 0) return;
    cur_ = best;
    cur_copy_ = bc;
    cur_beat_ = 0;
    if (!pkt(static_cast<uint64_t>(best)).sent)  // its first copy: has it overtaken one?
      for (uint64_t k = pkt_head_; k < static_cast<uint64_t>(best); ++k)
        if (!pkt(k).sent) {
          ++n_.reordered;
          break;
        }
  }
  Pkt &p = pkt(static_cast<uint64_t>(cur_));
  Beat &s = wire.slot();
  s = ring_[(p.first + cur_beat_) & mask_];
  if (cur_copy_ == 0 && p.corrupt && cur_beat_ == p.flip_beat) {
    if (p.flip_byte < 64)
      s.data[p.flip_byte / 4] ^= 1u << (8 * (p.flip_byte % 4) + p.flip_bit);
    else
      s.user ^= 1u << p.flip_bit;
  }
  wire.commit(now);
  ++n_.beats_out;
  if (++cur_beat_ < p.beats) return;
  p.sent |= static_cast<uint8_t>(1u << cur_copy_);
  ++n_.packets_out;
  cur_ = -1;
  while (pkt_head_ < pkt_tail_) {
    const Pkt &h = pkt(pkt_head_);
    if (!h.complete || h.sent != (1u << h.copies) - 1) break;
    freed_ = h.first + h.beats;
    ++pkt_head_;
  }
}

}  // namespace qsim
