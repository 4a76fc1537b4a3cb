// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_sim_check: end-to-end check of the system simulation through its C API
// (tests/sim/test_sim_harness.py runs it). On N nodes (2 by default): every node's
// NODE_ID and ID registers; a 4 KiB memory write from node 0 to node 1 posted with one
// descriptor write and completed by single-status polling, the bytes compared (and the
// bytes around the destination untouched); 8-byte and 32-byte inline writes; an
// unaligned write back from node 1 to node 0; the CPU cores' MMIO streams kept apart (a
// read waits for its own core's writes only, a pending read delays no other core's posts).
// Exit status 0 when all pass.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "qrdma_fmt.h"
#include "qrdma_sim.h"
#include "sim_desc.h"

namespace {

int failures = 0;

void check(bool ok, const char *what) {
  printf("%s %s\n", ok ? "PASS" : "FAIL", what);
  if (!ok) ++failures;
}

uint64_t rng_state = 0x9e3779b97f4a7c15ull;
uint8_t rnd8() {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return static_cast<uint8_t>(rng_state >> 24);
}

// Poll channel ch of page 0 on node `node` until it is not BUSY; returns the status.
uint64_t wait_channel(qrdma_sim *s, unsigned node, unsigned ch, uint64_t *reads) {
  uint64_t st = 0;
  *reads = 0;
  for (int i = 0; i < 100000; ++i) {
    st = qrdma_sim_mmio_read64(s, node, sim_status_addr(0, ch), nullptr) & 3;
    ++*reads;
    if (st != QRDMA_ST_BUSY && st != QRDMA_ST_IDLE) return st;
  }
  return st;
}

// Memory write of `size` bytes from src_node to dst_node at the given offsets within
// fresh buffers; checks the data and the guard bytes around it.
void mem_write(qrdma_sim *s, unsigned src_node, unsigned dst_node, unsigned ch, uint64_t size,
               unsigned src_off, unsigned dst_off, const char *name) {
  const uint64_t guard = 256;
  uint64_t src = qrdma_sim_mem_alloc(s, src_node, size + src_off + guard, 4096);
  uint64_t dst = qrdma_sim_mem_alloc(s, dst_node, size + dst_off + 2 * guard, 4096);
  std::vector<uint8_t> data(size), before(size + dst_off + 2 * guard), after(before.size());
  for (auto &b : data) b = rnd8();
  for (auto &b : before) b = rnd8();
  qrdma_sim_mem_write(s, src_node, src + src_off, data.data(), size);
  qrdma_sim_mem_write(s, dst_node, dst, before.data(), before.size());
  uint64_t d = dst + guard + dst_off;

  uint8_t line[32];
  sim_desc_mem(line, src + src_off, d, size, dst_node, 0, 0);
  uint64_t t0 = qrdma_sim_now(s);
  int r = qrdma_sim_mmio_write_desc(s, src_node, sim_desc_addr(0, ch), line, sizeof line);
  uint64_t reads = 0;
  uint64_t st = wait_channel(s, src_node, ch, &reads);
  uint64_t t1 = qrdma_sim_now(s);
  printf("     %s: %" PRIu64 " bytes, DONE seen after %" PRIu64 " cycles (%" PRIu64
         " status reads)\n", name, size, t1 - t0, reads);
  char what[160];
  snprintf(what, sizeof what, "%s: descriptor posted", name);
  check(r == 0, what);
  snprintf(what, sizeof what, "%s: status DONE", name);
  check(st == QRDMA_ST_DONE, what);
  qrdma_sim_mem_read(s, dst_node, dst, after.data(), after.size());
  bool data_ok = memcmp(after.data() + guard + dst_off, data.data(), size) == 0;
  bool guard_ok = memcmp(after.data(), before.data(), guard + dst_off) == 0 &&
                  memcmp(after.data() + guard + dst_off + size,
                         before.data() + guard + dst_off + size, guard) == 0;
  snprintf(what, sizeof what, "%s: destination bytes match", name);
  check(data_ok, what);
  snprintf(what, sizeof what, "%s: bytes around the destination untouched", name);
  check(guard_ok, what);
  qrdma_sim_mem_free(s, src_node, src);
  qrdma_sim_mem_free(s, dst_node, dst);
}

void inline_write(qrdma_sim *s, unsigned src_node, unsigned dst_node, unsigned ch, unsigned len,
                  const char *name) {
  uint64_t dst = qrdma_sim_mem_alloc(s, dst_node, 256, 64);
  std::vector<uint8_t> zero(256, 0xEE), payload(len), after(256);
  for (auto &b : payload) b = rnd8();
  qrdma_sim_mem_write(s, dst_node, dst, zero.data(), zero.size());
  uint8_t desc[64];
  unsigned dlen = sim_desc_inline(desc, payload.data(), len, dst + 64 + 3, dst_node, 0);
  uint64_t t0 = qrdma_sim_now(s);
  int r = qrdma_sim_mmio_write_desc(s, src_node, sim_desc_addr(0, ch), desc, dlen);
  uint64_t reads = 0;
  uint64_t st = wait_channel(s, src_node, ch, &reads);
  printf("     %s: %u bytes, DONE seen after %" PRIu64 " cycles\n", name, len,
         qrdma_sim_now(s) - t0);
  char what[160];
  snprintf(what, sizeof what, "%s: descriptor posted and DONE", name);
  check(r == 0 && st == QRDMA_ST_DONE, what);
  qrdma_sim_mem_read(s, dst_node, dst, after.data(), after.size());
  std::vector<uint8_t> want = zero;
  memcpy(want.data() + 64 + 3, payload.data(), len);
  snprintf(what, sizeof what, "%s: destination bytes match", name);
  check(after == want, what);
  qrdma_sim_mem_free(s, dst_node, dst);
}

// Cycles from now until the read just started on `core` of node 0 is back.
uint64_t core_read_cycles(qrdma_sim *s, unsigned core, uint64_t t0) {
  uint64_t v = 0;
  int resp = 0;
  while (qrdma_sim_core_read_end(s, 0, core, &v, &resp) == 0) qrdma_sim_core_idle(s, 0);
  return qrdma_sim_now(s) - t0;
}

// Cycles from t0 until every write core `core` of node 0 posted is answered (B).
uint64_t core_writes_cycles(qrdma_sim *s, unsigned core, uint64_t t0) {
  uint64_t answered = 0;
  while (qrdma_sim_core_writes(s, 0, core, &answered) != answered) qrdma_sim_step(s, 1);
  return qrdma_sim_now(s) - t0;
}

// k posted register writes (NQ_BASE: harmless while NQ_SIZE is 0) from a core of node 0.
void core_posts(qrdma_sim *s, unsigned core, unsigned k) {
  for (unsigned i = 0; i < k; ++i) {
    uint64_t v = 4096 * (i + 1);
    qrdma_sim_core_write(s, 0, core, QRDMA_REG(nic.NQ_BASE), &v, 8);
  }
}

// CPU cores (docs/sim.md "MMIO"): each core's stream is its own. Every case starts from a
// quiet system, so the same requests take the same cycles; the figures are exact.
void cores_check(qrdma_sim *s) {
  const unsigned k = 32;
  qrdma_sim_wait_quiet(s, 100000);
  uint64_t t0 = qrdma_sim_now(s);
  qrdma_sim_core_read_start(s, 0, 0, QRDMA_REG(eng.ID));
  const uint64_t alone = core_read_cycles(s, 0, t0);
  // core 0's read after core 0's own k writes waits for their B responses
  qrdma_sim_wait_quiet(s, 100000);
  t0 = qrdma_sim_now(s);
  core_posts(s, 0, k);
  qrdma_sim_core_read_start(s, 0, 0, QRDMA_REG(eng.ID));
  const uint64_t own = core_read_cycles(s, 0, t0);
  // the same k writes from core 1, whose read then waits; core 0 reads in the same cycle
  qrdma_sim_wait_quiet(s, 100000);
  t0 = qrdma_sim_now(s);
  core_posts(s, 1, k);
  qrdma_sim_core_read_start(s, 0, 1, QRDMA_REG(eng.ID));
  qrdma_sim_core_read_start(s, 0, 0, QRDMA_REG(eng.ID));
  const uint64_t other = core_read_cycles(s, 0, t0);
  const uint64_t waited = core_read_cycles(s, 1, t0);
  printf("     core reads: alone %" PRIu64 ", after %u writes of its core %" PRIu64
         ", beside %u writes and a waiting read of core 1 %" PRIu64 " (core 1's read %" PRIu64
         ") cycles\n", alone, k, own, k, other, waited);
  check(own > alone, "cores: a read waits for the B of its own core's earlier writes");
  check(other == alone, "cores: another core's writes and waiting read do not delay a read");
  check(waited == own, "cores: core 1's read waits for its writes as core 0's did");
  // posts of core 0 while a read of core 1 is pending: issued one per cycle, answered in the
  // same cycles as with no read anywhere
  qrdma_sim_wait_quiet(s, 100000);
  t0 = qrdma_sim_now(s);
  core_posts(s, 0, k);
  const uint64_t clock_alone = qrdma_sim_core_now(s, 0, 0) - t0;
  const uint64_t w_alone = core_writes_cycles(s, 0, t0);
  qrdma_sim_wait_quiet(s, 100000);
  t0 = qrdma_sim_now(s);
  qrdma_sim_core_read_start(s, 0, 1, QRDMA_REG(eng.ID));
  core_posts(s, 0, k);
  const uint64_t clock_beside = qrdma_sim_core_now(s, 0, 0) - t0;
  const uint64_t w_beside = core_writes_cycles(s, 0, t0);
  core_read_cycles(s, 1, t0);
  printf("     %u posts of core 0: issued in %" PRIu64 " / %" PRIu64 " cycles, answered after %" PRIu64
         " / %" PRIu64 " cycles (alone / beside a read of core 1)\n", k, clock_alone, clock_beside,
         w_alone, w_beside);
  check(clock_alone == k && clock_beside == k, "cores: posts issue one per cycle beside a pending read");
  check(w_beside == w_alone, "cores: a pending read of core 1 does not delay core 0's writes");
  // a pause moves the core's clock one cycle past now and steps nothing: the read after it
  // issues one cycle later
  qrdma_sim_wait_quiet(s, 100000);
  t0 = qrdma_sim_now(s);
  const int paused = qrdma_sim_core_pause(s, 0, 0);
  const uint64_t clock_paused = qrdma_sim_core_now(s, 0, 0) - t0, stepped = qrdma_sim_now(s) - t0;
  qrdma_sim_core_read_start(s, 0, 0, QRDMA_REG(eng.ID));
  const uint64_t after_pause = core_read_cycles(s, 0, t0);
  printf("     core pause: clock +%" PRIu64 ", system +%" PRIu64 ", a read after it %" PRIu64
         " cycles\n", clock_paused, stepped, after_pause);
  check(paused == 0 && clock_paused == 1 && stepped == 0,
        "cores: a pause moves the core's clock one cycle and steps nothing");
  check(after_pause == alone + 1, "cores: a read after a pause issues one cycle later");
}

}  // namespace

int main(int argc, char **argv) {
  unsigned nodes = 2;
  qrdma_sim_options opt;
  qrdma_sim_default_options(&opt);
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--nodes") && i + 1 < argc) {
      nodes = static_cast<unsigned>(atoi(argv[++i]));
    } else if (!strcmp(argv[i], "--trace") && i + 1 < argc) {
      opt.trace = argv[++i];  // VCD prefix (TRACE=1 builds)
    } else if (!strcmp(argv[i], "--signature")) {
      opt.signature = 1;
    } else if (!strcmp(argv[i], "--both-edges")) {
      opt.eval_both_edges = 1;
    } else {
      fprintf(stderr, "usage: %s [--nodes N] [--trace PREFIX] [--signature] [--both-edges]\n",
              argv[0]);
      return 2;
    }
  }
  qrdma_sim *s = qrdma_sim_create(nodes, &opt);
  if (!s) return 1;
  // development mode (docs/protection.md): the checks' writes carry no key
  for (unsigned n = 0; n < nodes; ++n) qrdma_sim_mmio_write64(s, n, QRDMA_REG(nic.PROT_CTRL), 1);
  printf("     %u nodes, network %s, ready at cycle %" PRIu64 "\n", nodes,
         qrdma_sim_network_name(s), qrdma_sim_now(s));

  for (unsigned n = 0; n < nodes; ++n) {
    int resp = -1;
    uint64_t id = qrdma_sim_mmio_read64(s, n, QRDMA_REG(nic.NODE_ID), &resp);
    char what[80];
    snprintf(what, sizeof what, "node %u: NODE_ID reads %" PRIu64, n, id);
    check(resp == 0 && id == n, what);
    uint64_t idr = qrdma_sim_mmio_read64(s, n, QRDMA_REG(eng.ID), &resp);
    snprintf(what, sizeof what, "node %u: ID magic 0x%08" PRIx64, n, idr & 0xffffffffu);
    check(resp == 0 && (idr & 0xffffffffu) == QRDMA_ID_MAGIC, what);
  }
  uint64_t t0 = qrdma_sim_now(s);
  qrdma_sim_mmio_read64(s, 0, QRDMA_REG(nic.NODE_ID), nullptr);
  uint64_t rt = qrdma_sim_now(s) - t0;
  printf("     register read round trip: %" PRIu64 " cycles\n", rt);
  check(rt >= 30, "MMIO read costs at least the 30-cycle round trip");

  unsigned peer = nodes > 1 ? 1 : 0;
  mem_write(s, 0, peer, 0, 4096, 0, 0, "4 KiB write node 0 -> 1");
  inline_write(s, 0, peer, 1, 8, "inline 8 B node 0 -> 1");
  inline_write(s, 0, peer, 2, 32, "inline 32 B node 0 -> 1");
  mem_write(s, peer, 0, 4, 1000, 5, 37, "unaligned 1000 B node 1 -> 0");
  mem_write(s, 0, peer, 5, 200000, 64, 0, "200000 B node 0 -> 1 (4 blocks)");

  // N > 2: every other node writes 20000 bytes to node 0 at once (through the star: the
  // switch's output to node 0 shared)
  if (nodes > 2) {
    const uint64_t size = 20000;
    std::vector<uint64_t> src(nodes), dst(nodes);
    std::vector<std::vector<uint8_t>> data(nodes, std::vector<uint8_t>(size));
    for (unsigned n = 1; n < nodes; ++n) {
      for (auto &b : data[n]) b = rnd8();
      src[n] = qrdma_sim_mem_alloc(s, n, size, 4096);
      dst[n] = qrdma_sim_mem_alloc(s, 0, size, 4096);
      qrdma_sim_mem_write(s, n, src[n], data[n].data(), size);
      uint8_t line[32];
      sim_desc_mem(line, src[n], dst[n], size, 0, 0, n);
      qrdma_sim_mmio_write_desc(s, n, sim_desc_addr(0, 7), line, sizeof line);
    }
    bool all_ok = true;
    for (unsigned n = 1; n < nodes; ++n) {
      uint64_t reads = 0;
      bool done = wait_channel(s, n, 7, &reads) == QRDMA_ST_DONE;
      std::vector<uint8_t> got(size);
      qrdma_sim_mem_read(s, 0, dst[n], got.data(), size);
      all_ok = all_ok && done && got == data[n];
    }
    char what[80];
    snprintf(what, sizeof what, "%u nodes write to node 0 at once: all DONE, bytes match", nodes - 1);
    check(all_ok, what);
    check(qrdma_sim_dropped_packets(s) == 0, "the fabric dropped no packet");
  }

  // ordering: a status read right after a descriptor write sees the write (BUSY)
  {
    uint64_t src = qrdma_sim_mem_alloc(s, 0, 65536, 4096);
    uint64_t dst = qrdma_sim_mem_alloc(s, peer, 65536, 4096);
    uint8_t line[32];
    sim_desc_mem(line, src, dst, 65536, peer, 0, 0);
    qrdma_sim_mmio_write_desc(s, 0, sim_desc_addr(0, 6), line, sizeof line);
    uint64_t st = qrdma_sim_mmio_read64(s, 0, sim_status_addr(0, 6), nullptr) & 3;
    check(st == QRDMA_ST_BUSY, "status read right after the descriptor write reads BUSY");
    uint64_t reads = 0;
    check(wait_channel(s, 0, 6, &reads) == QRDMA_ST_DONE, "... and later DONE");
  }
  cores_check(s);
  qrdma_sim_wait_quiet(s, 100000);
  check(qrdma_sim_errors(s) == 0, "no harness protocol errors");
  for (unsigned n = 0; n < nodes; ++n) {
    char what[80];
    snprintf(what, sizeof what, "node %u: no SLVERR on MMIO", n);
    check(qrdma_sim_mmio_errors(s, n) == 0, what);
  }
  // refused accesses are seen: a read of a write-only address, a write to a read channel
  {
    int resp = 0;
    uint64_t v = qrdma_sim_mmio_read64(s, 0, sim_desc_addr(0, 0), &resp);
    check(resp == 2 && v == 0, "read of a descriptor address: SLVERR, 0");
    uint8_t line[32] = {0};
    qrdma_sim_mmio_write_desc(s, 0, sim_desc_addr(0, 64), line, sizeof line);
    check(qrdma_sim_mmio_drain(s, 0) == 2, "descriptor write to a read channel: SLVERR counted");
  }
  if (qrdma_sim_errors(s)) printf("     first error: %s\n", qrdma_sim_error_text(s));
  if (opt.signature) printf("     signature %016" PRIx64 "\n", qrdma_sim_signature(s));
  printf("%s: %d failure(s), %" PRIu64 " cycles simulated\n", failures ? "FAILED" : "OK",
         failures, qrdma_sim_now(s));
  qrdma_sim_destroy(s);
  return failures ? 1 : 0;
}
