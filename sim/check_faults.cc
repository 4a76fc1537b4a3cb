// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_sim_check_faults: the fault model of one link direction (faults.h) alone, driven
// the way the system loop drives it, for tests/sim/test_faults.py, which compares what it
// prints with the reference model (tests/model/link_fault_model.py).
//
// Traffic (--traffic FILE, one packet per line: "beats keep_bytes gap"): the sender waits
// `gap` cycles, then offers the packet's beats one per cycle (a beat waits while the line
// refuses it); every beat has all 64 bytes kept but the last, which keeps keep_bytes (0..64)
// bytes. Beat b of packet k carries k in words 0, 2, 4, b in words 1, 3, 5 (a flipped bit
// leaves a majority) and words 6..15 of mix64(k, b); tuser = 0x5a5a0000 | b. The receiver takes an offered beat unless
// (t % P) < S (--rx-stall P:S). Per cycle t, in the system loop's order: sync, the
// sender's tready (can_take) and the offered receive beat (peek), then the beat taken,
// tick (the line puts a beat on the wire), the receive beat taken.
//
// Prints one line per beat delivered, "beat T K B L F" (cycle, packet, beat, tlast, the
// bit flipped as byte*8+bit, 512+bit for tuser, -1 for none), then "counts" with every
// field of qrdma_sim_fault_counts as name=value, then "end T" (the cycle the line and the
// link were drained).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "faults.h"

using namespace qsim;

namespace {

struct Pkt {
  unsigned beats, keep_bytes, gap;
};

Beat make_beat(uint64_t k, unsigned b, bool last, unsigned keep_bytes) {
  Beat x{};
  for (unsigned w = 0; w < 6; w += 2) {
    x.data[w] = static_cast<uint32_t>(k);
    x.data[w + 1] = b;
  }
  for (unsigned w = 6; w < 16; ++w)
    x.data[w] = static_cast<uint32_t>(mix64(k << 32 ^ uint64_t(b) << 8 ^ w));
  x.keep = last ? (keep_bytes >= 64 ? ~0ull : (1ull << keep_bytes) - 1) : ~0ull;
  x.user = 0x5a5a0000u | b;
  x.last = last;
  return x;
}

int usage() {
  fprintf(stderr,
          "usage: qrdma_sim_check_faults --traffic FILE [--loss P] [--corrupt P] [--dup P]\n"
          "       [--reorder D] [--down S:L[:P]] [--silent] [--seed N] [--src S --dst D]\n"
          "       [--latency L] [--depth N] [--rx-stall P:S] [--max-cycles N]\n");
  return 2;
}

}  // namespace

int main(int argc, char **argv) {
  FaultConfig c;
  unsigned latency = 100, depth = 256;
  uint64_t stall_p = 0, stall_s = 0, max_cycles = 10000000;
  const char *traffic = nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--silent") {
      c.silent = true;
      continue;
    }
    if (!v) return usage();
    ++i;
    if (a == "--traffic") traffic = v;
    else if (a == "--loss") c.f.loss = atof(v);
    else if (a == "--corrupt") c.f.corrupt = atof(v);
    else if (a == "--dup") c.f.dup = atof(v);
    else if (a == "--reorder") c.f.reorder = static_cast<uint32_t>(strtoul(v, nullptr, 0));
    else if (a == "--seed") c.seed = strtoull(v, nullptr, 0);
    else if (a == "--src") c.src = static_cast<unsigned>(strtoul(v, nullptr, 0));
    else if (a == "--dst") c.dst = static_cast<unsigned>(strtoul(v, nullptr, 0));
    else if (a == "--latency") latency = static_cast<unsigned>(strtoul(v, nullptr, 0));
    else if (a == "--depth") depth = static_cast<unsigned>(strtoul(v, nullptr, 0));
    else if (a == "--max-cycles") max_cycles = strtoull(v, nullptr, 0);
    else if (a == "--down") {
      unsigned long long s = 0, l = 0, p = 0;
      if (sscanf(v, "%llu:%llu:%llu", &s, &l, &p) < 2) return usage();
      c.f.down_start = s;
      c.f.down_len = l;
      c.f.down_period = p;
    } else if (a == "--rx-stall") {
      unsigned long long p = 0, s = 0;
      if (sscanf(v, "%llu:%llu", &p, &s) != 2) return usage();
      stall_p = p;
      stall_s = s;
    } else {
      return usage();
    }
  }
  if (!traffic) return usage();
  std::vector<Pkt> pkts;
  FILE *f = fopen(traffic, "r");
  if (!f) {
    perror(traffic);
    return 2;
  }
  Pkt p;
  while (fscanf(f, "%u %u %u", &p.beats, &p.keep_bytes, &p.gap) == 3) pkts.push_back(p);
  fclose(f);

  FaultLine line(c);
  FifoLink wire(latency, depth);
  size_t k = 0;         // packet being sent
  unsigned b = 0;       // its next beat
  uint64_t wait = pkts.empty() ? 0 : pkts[0].gap;
  uint64_t t = 0;
  for (; t < max_cycles; ++t) {
    if (k == pkts.size() && line.idle() && wire.occupancy() == 0) break;
    wire.sync();
    const bool ready = line.can_take();
    const Beat *rx = wire.peek(t);
    if (k < pkts.size()) {
      if (wait) {
        --wait;
      } else if (ready) {
        const bool last = b + 1 == pkts[k].beats;
        line.take(make_beat(k, b, last, pkts[k].keep_bytes), t);
        if (last) {
          ++k;
          b = 0;
          wait = k < pkts.size() ? pkts[k].gap : 0;
        } else {
          ++b;
        }
      }
    }
    line.tick(wire, t);
    if (rx && !(stall_p && t % stall_p < stall_s)) {
      const auto vote = [&](unsigned w) {  // words w, w + 2, w + 4: two of them agree
        return rx->data[w] == rx->data[w + 2] ? rx->data[w] : rx->data[w + 4];
      };
      const uint64_t pk = vote(0);
      const unsigned bb = vote(1);
      const Beat ref = make_beat(pk, bb, rx->last, pk < pkts.size() ? pkts[pk].keep_bytes : 64);
      int flip = -1, flips = 0;
      for (unsigned w = 0; w < 16; ++w)
        for (unsigned j = 0; j < 32; ++j)
          if ((rx->data[w] ^ ref.data[w]) >> j & 1) flip = static_cast<int>(32 * w + j), ++flips;
      for (unsigned j = 0; j < 32; ++j)
        if ((rx->user ^ ref.user) >> j & 1) flip = static_cast<int>(512 + j), ++flips;
      if (flips > 1 || rx->keep != ref.keep) {
        fprintf(stderr, "cycle %llu: beat %llu.%u damaged beyond one bit\n",
                (unsigned long long)t, (unsigned long long)pk, bb);
        return 1;
      }
      printf("beat %llu %llu %u %u %d\n", (unsigned long long)t, (unsigned long long)pk, bb,
             unsigned(rx->last), flip);
      wire.pop();
    }
  }
  const qrdma_sim_fault_counts &n = line.counts();
  printf("counts packets_in=%llu beats_in=%llu packets_out=%llu beats_out=%llu silenced=%llu "
         "down_lost=%llu lost=%llu dropped_beats=%llu corrupted=%llu duplicated=%llu "
         "dup_beats=%llu delayed=%llu reordered=%llu\n",
         (unsigned long long)n.packets_in, (unsigned long long)n.beats_in,
         (unsigned long long)n.packets_out, (unsigned long long)n.beats_out,
         (unsigned long long)n.silenced, (unsigned long long)n.down_lost,
         (unsigned long long)n.lost, (unsigned long long)n.dropped_beats,
         (unsigned long long)n.corrupted, (unsigned long long)n.duplicated,
         (unsigned long long)n.dup_beats, (unsigned long long)n.delayed,
         (unsigned long long)n.reordered);
  printf("end %llu\n", (unsigned long long)t);
  return t < max_cycles ? 0 : 1;
}
