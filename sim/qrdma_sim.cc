// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// The C API of qrdma_sim.h on top of qsim::System.
#include "qrdma_sim.h"

#include <cstdio>
#include <cstring>
#include <exception>

#include "faults.h"
#include "system.h"

#ifndef QRDMA_SIM_NIC_NODES
#define QRDMA_SIM_NIC_NODES 4
#endif
#ifndef QRDMA_SIM_TRACE
#define QRDMA_SIM_TRACE 0
#endif

using qsim::System;

struct qrdma_sim {
  explicit qrdma_sim(unsigned n, const qrdma_sim_options &o) : sys(n, o) {}
  System sys;
};

namespace {
// A call's node index: true (and an API error counted) if the node does not exist. The
// error record is not part of what a const qrdma_sim * promises to leave alone.
bool bad_node_at(const qrdma_sim *s, unsigned node, const char *call) {
  if (!s) return true;
  if (node < s->sys.size()) return false;
  const_cast<qrdma_sim *>(s)->sys.diag().error(QRDMA_SIM_ERR_API,
                                               "%s: node %u does not exist (%u nodes)", call,
                                               node, s->sys.size());
  return true;
}
#define bad_node(s, node) bad_node_at((s), (node), __func__)

// [addr, addr + len) of the node's memory, or nullptr and an API error
void *mem_span(qrdma_sim *s, unsigned node, uint64_t addr, size_t len, const char *call) {
  if (bad_node_at(s, node, call)) return nullptr;
  void *p = s->sys.node(node).mem.ptr(addr, len);
  if (!p)
    s->sys.diag().error(QRDMA_SIM_ERR_API,
                        "%s: node %u [0x%llx, +%zu) outside host memory (%llu bytes)", call,
                        node, (unsigned long long)addr, len,
                        (unsigned long long)s->sys.node(node).mem.size());
  return p;
}
}  // namespace

extern "C" {

void qrdma_sim_default_options(qrdma_sim_options *o) {
  memset(o, 0, sizeof *o);
  o->mem_bytes = 64ull << 20;
  o->mem_rd_latency = 200;
  o->mem_wr_latency = 100;
  o->mem_max_bursts = 64;
  o->mmio_rt_cycles = 30;
  o->mmio_wr_cycles = 1;
  o->mmio_max_posted = 64;
  o->mmio_sync_writes = 0;
  o->link_latency = 100;
  o->link_depth = 0;
  o->reset_cycles = 16;
  o->watchdog_cycles = 200000;
  o->watchdog_exit = 1;
  o->threads = QRDMA_SIM_THREADS_AUTO;
}

qrdma_sim *qrdma_sim_create(unsigned nodes, const qrdma_sim_options *opt) {
  qrdma_sim_options o;
  if (opt)
    o = *opt;
  else
    qrdma_sim_default_options(&o);
  try {
    return new qrdma_sim(nodes, o);
  } catch (const std::exception &e) {
    fprintf(stderr, "qrdma_sim_create: %s\n", e.what());
    return nullptr;
  }
}

void qrdma_sim_destroy(qrdma_sim *s) {
  if (s && s->sys.net().dropped_packets())
    fprintf(stderr, "qrdma_sim: network %s: %llu packets dropped\n", s->sys.net().name(),
            (unsigned long long)s->sys.net().dropped_packets());
  if (s && s->sys.net().faulty()) {  // the faults' sums over every link
    const qsim::Network &net = s->sys.net();
    qrdma_sim_fault_counts t{};
    for (unsigned k = 0; k < net.link_count(); ++k)
      if (const qsim::FaultLine *l = net.fault_line(k)) {
        const qrdma_sim_fault_counts &c = l->counts();
        t.packets_in += c.packets_in;
        t.lost += c.lost;
        t.down_lost += c.down_lost;
        t.corrupted += c.corrupted;
      }
    fprintf(stderr, "qrdma_sim: network %s faults: packets=%llu lost=%llu down_lost=%llu "
            "corrupted=%llu\n", net.name(), (unsigned long long)t.packets_in,
            (unsigned long long)t.lost, (unsigned long long)t.down_lost,
            (unsigned long long)t.corrupted);
  }
  delete s;
}

unsigned qrdma_sim_num_nodes(const qrdma_sim *s) { return s ? s->sys.size() : 0; }
unsigned qrdma_sim_max_nodes(void) { return QRDMA_SIM_NIC_NODES; }
unsigned qrdma_sim_host_data_w(void) { return QRDMA_SIM_HOST_DATA_W; }
int qrdma_sim_has_trace(void) { return QRDMA_SIM_TRACE; }
unsigned qrdma_sim_threads(const qrdma_sim *s) { return s ? s->sys.threads() : 0; }
const char *qrdma_sim_network_name(const qrdma_sim *s) {
  return s->sys.net().name();
}

int qrdma_sim_fault_counts_get(const qrdma_sim *s, unsigned src, unsigned dst,
                               qrdma_sim_fault_counts *c) {
  qrdma_sim_fault_counts z{};
  if (!s || !s->sys.has_link(src, dst)) {
    if (c) *c = z;
    return -1;
  }
  const qsim::FaultLine *l = s->sys.fault_line(src, dst);
  if (c) *c = l ? l->counts() : z;
  return l ? 1 : 0;
}

uint64_t qrdma_sim_now(const qrdma_sim *s) { return s->sys.now(); }
void qrdma_sim_step(qrdma_sim *s, uint64_t cycles) { s->sys.step(cycles); }
uint64_t qrdma_sim_signature(const qrdma_sim *s) { return s->sys.signature(); }

uint64_t qrdma_sim_mmio_read64(qrdma_sim *s, unsigned node, uint64_t off, int *resp) {
  if (bad_node(s, node)) {
    if (resp) *resp = -1;
    return 0;
  }
  return s->sys.mmio_read64(node, off, resp);
}

int qrdma_sim_mmio_write64(qrdma_sim *s, unsigned node, uint64_t off, uint64_t val) {
  if (bad_node(s, node)) return -1;
  return s->sys.mmio_write(node, off, &val, 8);
}

int qrdma_sim_mmio_write_desc(qrdma_sim *s, unsigned node, uint64_t off, const void *bytes,
                              size_t len) {
  if (bad_node(s, node)) return -1;
  if (!bytes) {
    s->sys.diag().error(QRDMA_SIM_ERR_API, "%s: NULL bytes", __func__);
    return -1;
  }
  return s->sys.mmio_write(node, off, bytes, len);
}

uint64_t qrdma_sim_mmio_drain(qrdma_sim *s, unsigned node) {
  if (bad_node(s, node)) return 0;
  s->sys.mmio_drain(node);
  return s->sys.node(node).mmio.errors();
}

uint64_t qrdma_sim_mmio_errors(const qrdma_sim *s, unsigned node) {
  if (bad_node(s, node)) return 0;
  return s->sys.node(node).mmio.errors();
}

namespace {
bool bad_core_at(const qrdma_sim *s, unsigned node, unsigned core, const char *call) {
  if (bad_node_at(s, node, call)) return true;
  if (core < QRDMA_SIM_MAX_CORES) return false;
  const_cast<qrdma_sim *>(s)->sys.diag().error(
      QRDMA_SIM_ERR_API, "%s: core %u does not exist (%u cores)", call, core,
      static_cast<unsigned>(QRDMA_SIM_MAX_CORES));
  return true;
}
#define bad_core(s, node, core) bad_core_at((s), (node), (core), __func__)
static_assert(QRDMA_SIM_MAX_CORES == qsim::MmioPort::kMaxCores, "one count of cores");
}  // namespace

int qrdma_sim_core_write(qrdma_sim *s, unsigned node, unsigned core, uint64_t off,
                         const void *bytes, size_t len) {
  if (bad_core(s, node, core)) return -1;
  if (!bytes) {
    s->sys.diag().error(QRDMA_SIM_ERR_API, "%s: NULL bytes", __func__);
    return -1;
  }
  return s->sys.mmio_write(node, core, off, bytes, len, false);
}

int qrdma_sim_core_read_start(qrdma_sim *s, unsigned node, unsigned core, uint64_t off) {
  if (bad_core(s, node, core)) return -1;
  return s->sys.core_read_start(node, core, off) ? 0 : -1;
}

int qrdma_sim_core_read_end(qrdma_sim *s, unsigned node, unsigned core, uint64_t *val,
                            int *resp) {
  if (bad_core(s, node, core)) return -1;
  uint64_t v = 0;
  unsigned r = 0;
  int done = s->sys.core_read_end(node, core, &v, &r);
  if (done == 1) {
    if (val) *val = v;
    if (resp) *resp = static_cast<int>(r);
  }
  return done;
}

uint64_t qrdma_sim_core_now(const qrdma_sim *s, unsigned node, unsigned core) {
  if (bad_core(s, node, core)) return 0;
  return s->sys.core_now(node, core);
}

uint64_t qrdma_sim_core_writes(const qrdma_sim *s, unsigned node, unsigned core,
                               uint64_t *answered) {
  if (bad_core(s, node, core)) return 0;
  const qsim::MmioPort &p = s->sys.node(node).mmio;
  if (answered) *answered = p.writes_answered(core);
  return p.writes_posted(core);
}

void qrdma_sim_core_idle(qrdma_sim *s, unsigned node) {
  if (bad_node(s, node)) return;
  s->sys.core_idle(node);
}

int qrdma_sim_core_pause(qrdma_sim *s, unsigned node, unsigned core) {
  if (bad_core(s, node, core)) return -1;
  return s->sys.core_pause(node, core) ? 0 : -1;
}

int64_t qrdma_sim_poll64(qrdma_sim *s, unsigned node, uint64_t off, uint64_t mask,
                         uint64_t want, uint64_t max_reads, uint64_t *last) {
  if (bad_node(s, node)) return -1;
  for (uint64_t k = 1; max_reads == 0 || k <= max_reads; ++k) {
    int resp = 0;
    uint64_t v = s->sys.mmio_read64(node, off, &resp);
    if (resp < 0) return -1;  // refused (counted as an API error)
    if (last) *last = v;
    if ((v & mask) == want) return static_cast<int64_t>(k);
  }
  return -1;
}

uint64_t qrdma_sim_mem_size(const qrdma_sim *s, unsigned node) {
  if (bad_node(s, node)) return 0;
  return s->sys.node(node).mem.size();
}

void *qrdma_sim_mem(qrdma_sim *s, unsigned node, uint64_t addr, size_t len) {
  if (bad_node(s, node)) return nullptr;
  return s->sys.node(node).mem.ptr(addr, len);  // outside: NULL, an answer
}

int qrdma_sim_mem_write(qrdma_sim *s, unsigned node, uint64_t addr, const void *src, size_t len) {
  void *p = mem_span(s, node, addr, len, __func__);
  if (!p) return -1;
  if (!src && len) {
    s->sys.diag().error(QRDMA_SIM_ERR_API, "%s: NULL source", __func__);
    return -1;
  }
  if (len) memcpy(p, src, len);
  return 0;
}

int qrdma_sim_mem_read(qrdma_sim *s, unsigned node, uint64_t addr, void *dst, size_t len) {
  void *p = mem_span(s, node, addr, len, __func__);
  if (!p) return -1;
  if (!dst && len) {
    s->sys.diag().error(QRDMA_SIM_ERR_API, "%s: NULL destination", __func__);
    return -1;
  }
  if (len) memcpy(dst, p, len);
  return 0;
}

uint64_t qrdma_sim_mem_alloc(qrdma_sim *s, unsigned node, uint64_t size, uint64_t align) {
  if (bad_node(s, node)) return QRDMA_SIM_NOMEM;
  return s->sys.node(node).alloc.alloc(size, align);
}

void qrdma_sim_mem_free(qrdma_sim *s, unsigned node, uint64_t addr) {
  if (bad_node(s, node)) return;
  if (!s->sys.node(node).alloc.free(addr))
    s->sys.diag().error(QRDMA_SIM_ERR_API, "node %u mem_free(0x%llx): not allocated", node,
                        (unsigned long long)addr);
}

int64_t qrdma_sim_wait_mem64(qrdma_sim *s, unsigned node, uint64_t addr, uint64_t mask,
                             uint64_t want, uint64_t max_cycles) {
  const uint8_t *p = static_cast<const uint8_t *>(mem_span(s, node, addr, 8, __func__));
  if (!p) return -1;
  const qsim::HostMem &mem = s->sys.node(node).mem;
  for (uint64_t k = 0;;) {
    uint64_t v;
    memcpy(&v, p, 8);
    if ((v & mask) == want) return static_cast<int64_t>(k);
    if (max_cycles && k >= max_cycles) return -1;
    // the word cannot change before the NIC's next write lands: step there at once
    const uint64_t now = s->sys.now();
    uint64_t n = mem.next_write(now) - now;
    if (n == 0) n = 1;
    if (max_cycles && n > max_cycles - k) n = max_cycles - k;
    s->sys.step(n);
    k += n;
  }
}

int64_t qrdma_sim_wait_until(qrdma_sim *s, int (*pred)(qrdma_sim *, void *), void *arg,
                             uint64_t max_cycles) {
  if (!s || !pred) return -1;
  for (uint64_t k = 0;; ++k) {
    if (pred(s, arg)) return static_cast<int64_t>(k);
    if (max_cycles && k >= max_cycles) return -1;
    s->sys.step(1);
  }
}

int64_t qrdma_sim_wait_quiet(qrdma_sim *s, uint64_t max_cycles) {
  if (!s) return -1;
  for (uint64_t k = 0;; ++k) {
    if (s->sys.quiet()) return static_cast<int64_t>(k);
    if (max_cycles && k >= max_cycles) return -1;
    s->sys.step(1);
  }
}

uint64_t qrdma_sim_errors(const qrdma_sim *s) {
  return s->sys.diag().count();
}

const char *qrdma_sim_error_text(const qrdma_sim *s) {
  return s->sys.diag().first();
}

uint64_t qrdma_sim_error_count(const qrdma_sim *s, qrdma_sim_error_cat cat) {
  return s->sys.diag().count(cat);
}

const char *qrdma_sim_error_first(const qrdma_sim *s, qrdma_sim_error_cat cat) {
  return s->sys.diag().first(cat);
}

const char *qrdma_sim_error_cat_name(qrdma_sim_error_cat cat) {
  switch (cat) {
    case QRDMA_SIM_ERR_AXI: return "axi";
    case QRDMA_SIM_ERR_DECERR: return "decerr";
    case QRDMA_SIM_ERR_4K: return "4k";
    case QRDMA_SIM_ERR_API: return "api";
    case QRDMA_SIM_ERR_RTL: return "rtl";
    case QRDMA_SIM_ERR_STALL: return "stall";
    default: return "?";
  }
}

void qrdma_sim_node_stats_get(const qrdma_sim *s, unsigned node, qrdma_sim_node_stats *st) {
  memset(st, 0, sizeof *st);
  if (bad_node(s, node)) return;
  const qsim::Node &n = s->sys.node(node);
  st->mem_read_beats = n.mem.read_beats();
  st->mem_write_beats = n.mem.write_beats();
  st->tx_beats = n.tx_beats;
  st->rx_beats = n.rx_beats;
  st->mmio_writes = n.mmio.writes_posted();
  st->mmio_reads = n.mmio_reads;
  st->mem_read_bursts = n.mem.read_bursts();
  st->mem_write_bursts = n.mem.write_bursts();
  st->mem_write_resps = n.mem.write_resps(0) + n.mem.write_resps(2) + n.mem.write_resps(3);
  st->mem_read_decerr_beats = n.mem.read_beats_resp(3);
  st->mem_write_decerr_resps = n.mem.write_resps(3);
  st->mem_read_slverr_beats = n.mem.read_beats_resp(2);
  st->mem_write_slverr_resps = n.mem.write_resps(2);
}

uint64_t qrdma_sim_dropped_packets(const qrdma_sim *s) {
  return s->sys.net().dropped_packets();
}

void qrdma_sim_dump_state(const qrdma_sim *s) {
  if (s) s->sys.dump_state();
}

}  // extern "C"
