// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// The libqrdma backend (sw/include/qrdma_backend.h) of the system simulation: every call
// maps onto the C API of qrdma_sim.h (see qrdma_backend_sim.h for what differs from the
// mmap backend).
#include "qrdma_backend_sim.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct SimBackend {
  qrdma_backend be;  // first: the struct handed out
  qrdma_sim *sim;
  bool owned;
};

SimBackend *ctx_of(void *ctx) { return static_cast<SimBackend *>(ctx); }

int resp_to_err(int resp) {
  if (resp == 0) return QRDMA_OK;
  if (resp < 0) return QRDMA_EINVAL;
  return QRDMA_ESLVERR;
}

int be_mmio_read64(void *ctx, unsigned node, uint64_t addr, uint64_t *val) {
  SimBackend *b = ctx_of(ctx);
  if (node >= b->be.num_nodes) return QRDMA_ENONODE;
  if (!val || addr % 8) return QRDMA_EINVAL;
  int resp = 0;
  uint64_t v = qrdma_sim_mmio_read64(b->sim, node, addr, &resp);
  *val = resp ? 0 : v;
  return resp_to_err(resp);
}

int be_mmio_write64(void *ctx, unsigned node, uint64_t addr, uint64_t val) {
  SimBackend *b = ctx_of(ctx);
  if (node >= b->be.num_nodes) return QRDMA_ENONODE;
  if (addr % 8) return QRDMA_EINVAL;
  return resp_to_err(qrdma_sim_mmio_write64(b->sim, node, addr, val));
}

int be_desc_write(void *ctx, unsigned node, uint64_t addr, const void *data, size_t len) {
  SimBackend *b = ctx_of(ctx);
  if (node >= b->be.num_nodes) return QRDMA_ENONODE;
  if (!data || (len != 32 && len != 64) || addr % len) return QRDMA_EINVAL;
  return resp_to_err(qrdma_sim_mmio_write_desc(b->sim, node, addr, data, len));
}

int be_mem_alloc(void *ctx, unsigned node, size_t size, size_t align, qrdma_buf *buf) {
  SimBackend *b = ctx_of(ctx);
  if (node >= b->be.num_nodes) return QRDMA_ENONODE;
  if (!buf || (align & (align - 1))) return QRDMA_EINVAL;
  if (align < 64) align = 64;
  uint64_t dev = qrdma_sim_mem_alloc(b->sim, node, size, align);
  if (dev == QRDMA_SIM_NOMEM) return QRDMA_ENOMEM;
  buf->cpu = qrdma_sim_mem(b->sim, node, dev, size);
  buf->dev = dev;
  buf->size = size;
  buf->node = node;
  buf->priv = static_cast<uintptr_t>(dev);
  return QRDMA_OK;
}

void be_mem_free(void *ctx, qrdma_buf *buf) {
  SimBackend *b = ctx_of(ctx);
  if (!buf || !buf->cpu || buf->node >= b->be.num_nodes) return;
  qrdma_sim_mem_free(b->sim, buf->node, buf->priv);
  buf->cpu = nullptr;
}

// one cycle, or with reads pending on cores of the node, to the first cycle one may be back
void be_idle(void *ctx, unsigned node) {
  SimBackend *b = ctx_of(ctx);
  if (node < b->be.num_nodes)
    qrdma_sim_core_idle(b->sim, node);
  else
    qrdma_sim_step(b->sim, 1);
}

int be_core_desc_write(void *ctx, unsigned node, unsigned core, uint64_t addr,
                       const void *data, size_t len) {
  SimBackend *b = ctx_of(ctx);
  if (node >= b->be.num_nodes) return QRDMA_ENONODE;
  if (!data || core >= QRDMA_SIM_MAX_CORES || (len != 32 && len != 64) || addr % len)
    return QRDMA_EINVAL;
  return resp_to_err(qrdma_sim_core_write(b->sim, node, core, addr, data, len));
}

int be_core_read_start(void *ctx, unsigned node, unsigned core, uint64_t addr) {
  SimBackend *b = ctx_of(ctx);
  if (node >= b->be.num_nodes) return QRDMA_ENONODE;
  if (core >= QRDMA_SIM_MAX_CORES || addr % 8) return QRDMA_EINVAL;
  return resp_to_err(qrdma_sim_core_read_start(b->sim, node, core, addr));
}

int be_core_read_end(void *ctx, unsigned node, unsigned core, uint64_t *val) {
  SimBackend *b = ctx_of(ctx);
  if (node >= b->be.num_nodes) return QRDMA_ENONODE;
  if (!val || core >= QRDMA_SIM_MAX_CORES) return QRDMA_EINVAL;
  int resp = 0;
  uint64_t v = 0;
  int done = qrdma_sim_core_read_end(b->sim, node, core, &v, &resp);
  if (done <= 0) return done < 0 ? QRDMA_EINVAL : 0;
  *val = resp ? 0 : v;
  return resp ? resp_to_err(resp) : 1;
}

int be_core_pause(void *ctx, unsigned node, unsigned core) {
  SimBackend *b = ctx_of(ctx);
  if (node >= b->be.num_nodes) return QRDMA_ENONODE;
  if (core >= QRDMA_SIM_MAX_CORES) return QRDMA_EINVAL;
  return qrdma_sim_core_pause(b->sim, node, core) ? QRDMA_EINVAL : QRDMA_OK;
}

uint64_t be_now(void *ctx) { return qrdma_sim_now(ctx_of(ctx)->sim); }

int be_net_dropped(void *ctx, uint64_t *packets) {
  if (!packets) return QRDMA_EINVAL;
  *packets = qrdma_sim_dropped_packets(ctx_of(ctx)->sim);
  return QRDMA_OK;
}

void be_destroy(qrdma_backend *be) {
  SimBackend *b = ctx_of(be->ctx);
  if (b->owned) qrdma_sim_destroy(b->sim);
  delete b;
}

int make(qrdma_sim *sim, bool owned, qrdma_backend **out) {
  SimBackend *b = new SimBackend();
  b->sim = sim;
  b->owned = owned;
  qrdma_backend &be = b->be;
  be.abi = QRDMA_BACKEND_ABI;
  be.name = "sim";
  be.ctx = b;
  be.num_nodes = qrdma_sim_num_nodes(sim);
  be.tick_hz = QRDMA_SIM_CLOCK_HZ;
  be.mmio_read64 = be_mmio_read64;
  be.mmio_write64 = be_mmio_write64;
  be.desc_write = be_desc_write;
  be.mem_alloc = be_mem_alloc;
  be.mem_free = be_mem_free;
  be.idle = be_idle;
  be.now = be_now;
  be.destroy = be_destroy;
  be.num_cores = QRDMA_SIM_MAX_CORES;
  be.core_desc_write = be_core_desc_write;
  be.core_read_start = be_core_read_start;
  be.core_read_end = be_core_read_end;
  be.core_pause = be_core_pause;
  be.net_dropped = be_net_dropped;
  *out = &be;
  return QRDMA_OK;
}

bool parse_u64(const std::string &s, uint64_t *v) {
  if (s.empty()) return false;
  char *end = nullptr;
  errno = 0;
  unsigned long long x = strtoull(s.c_str(), &end, 0);
  if (errno) return false;
  std::string suf(end);
  if (suf == "K" || suf == "k") x <<= 10;
  else if (suf == "M" || suf == "m") x <<= 20;
  else if (suf == "G" || suf == "g") x <<= 30;
  else if (!suf.empty()) return false;
  *v = x;
  return true;
}

bool parse_prob(const std::string &s, double *v) {
  if (s.empty()) return false;
  char *end = nullptr;
  errno = 0;
  double x = strtod(s.c_str(), &end);
  if (errno || *end || !(x >= 0 && x <= 1)) return false;
  *v = x;
  return true;
}

// A fault key of the spec (docs/sim.md "Faults") into f; set gets the bit of the key (so
// that a per-direction entry takes the keys it does not give from the global faults).
// 0: not a fault key; -1: bad value; 1: done.
int parse_fault(const std::string &key, const std::string &val, qrdma_sim_faults *f,
                unsigned *set) {
  uint64_t v = 0;
  if (key == "loss" || key == "corrupt" || key == "dup") {
    double p = 0;
    if (!parse_prob(val, &p)) return -1;
    if (key == "loss") f->loss = p, *set |= 1;
    else if (key == "corrupt") f->corrupt = p, *set |= 2;
    else f->dup = p, *set |= 4;
    return 1;
  }
  if (key == "reorder") {
    if (!parse_u64(val, &v) || v > UINT32_MAX) return -1;
    f->reorder = static_cast<uint32_t>(v);
    *set |= 8;
    return 1;
  }
  if (key == "down") {  // START:LEN[:PERIOD]
    uint64_t a[3] = {0, 0, 0};
    size_t at = 0;
    for (unsigned k = 0; k < 3; ++k) {
      size_t c = val.find(':', at);
      if (c == std::string::npos) c = val.size();
      if (!parse_u64(val.substr(at, c - at), &a[k])) return -1;
      at = c + 1;
      if (c == val.size()) {
        if (k == 0) return -1;
        break;
      }
      if (k == 2) return -1;
    }
    f->down_start = a[0];
    f->down_len = a[1];
    f->down_period = a[2];
    *set |= 16;
    return 1;
  }
  return 0;
}

void merge_fault(qrdma_sim_faults *dst, const qrdma_sim_faults &src, unsigned set) {
  if (!(set & 1)) dst->loss = src.loss;
  if (!(set & 2)) dst->corrupt = src.corrupt;
  if (!(set & 4)) dst->dup = src.dup;
  if (!(set & 8)) dst->reorder = src.reorder;
  if (!(set & 16)) {
    dst->down_start = src.down_start;
    dst->down_len = src.down_len;
    dst->down_period = src.down_period;
  }
}

}  // namespace

extern "C" {

int qrdma_backend_sim_open(unsigned nodes, const qrdma_sim_options *opt, qrdma_backend **out) {
  if (!out) return QRDMA_EINVAL;
  qrdma_sim_options o;
  if (opt)
    o = *opt;
  else
    qrdma_sim_default_options(&o);
  qrdma_sim *sim = qrdma_sim_create(nodes, &o);
  if (!sim) return QRDMA_EIO;
  return make(sim, true, out);
}

int qrdma_backend_sim_wrap(qrdma_sim *sim, qrdma_backend **out) {
  if (!sim || !out) return QRDMA_EINVAL;
  return make(sim, false, out);
}

qrdma_sim *qrdma_backend_sim_get(qrdma_backend *be) {
  if (!be || be->destroy != be_destroy) return nullptr;
  return ctx_of(be->ctx)->sim;
}

int qrdma_tool_backend_open(const char *spec, qrdma_backend **out) {
  qrdma_sim_options o;
  qrdma_sim_default_options(&o);
  uint64_t nodes = 2;
  std::string trace;  // outlives qrdma_backend_sim_open below
  bool p2p = false;   // topo=p2p: point-to-point, so at most 2 nodes
  std::vector<qrdma_sim_link_faults> dirs;  // per-direction faults (S-D.key=value)
  std::vector<unsigned> dir_set;
  std::string s = spec ? spec : "";
  size_t pos = 0;
  while (pos < s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    std::string item = s.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    std::string key = item.substr(0, eq);
    if (key == "topo" && eq != std::string::npos) {
      const std::string v = item.substr(eq + 1);
      if (v == "star") o.topology = QRDMA_SIM_TOPO_STAR;
      else if (v == "planes") o.topology = QRDMA_SIM_TOPO_PLANES;
      else if (v == "dumbbell") o.topology = QRDMA_SIM_TOPO_DUMBBELL;
      else if (v == "auto") o.topology = QRDMA_SIM_TOPO_AUTO;
      else if (v == "p2p") o.topology = QRDMA_SIM_TOPO_AUTO, p2p = true;
      else {
        fprintf(stderr, "sim backend: topo=%s: auto (point-to-point or star), p2p, star, "
                "planes or dumbbell\n", v.c_str());
        return QRDMA_EINVAL;
      }
      continue;
    }
    if (key == "trace" && eq != std::string::npos) {
      trace = item.substr(eq + 1);
      o.trace = trace.c_str();
      continue;
    }
    if (eq != std::string::npos) {
      unsigned src = 0, dst = 0;
      int used = 0;
      std::string fkey = key;
      qrdma_sim_faults *f = &o.faults;
      unsigned global_set = 0, *set = &global_set;
      if (sscanf(key.c_str(), "%u-%u.%n", &src, &dst, &used) == 2 && used > 0) {
        fkey = key.substr(static_cast<size_t>(used));
        size_t k = 0;
        while (k < dirs.size() && !(dirs[k].src == src && dirs[k].dst == dst)) ++k;
        if (k == dirs.size()) {
          dirs.push_back(qrdma_sim_link_faults{src, dst, {}});
          dir_set.push_back(0);
        }
        f = &dirs[k].f;
        set = &dir_set[k];
      }
      const int r = parse_fault(fkey, item.substr(eq + 1), f, set);
      if (r < 0) {
        fprintf(stderr, "sim backend: bad value in '%s' (loss, corrupt, dup: 0 .. 1; reorder: "
                "cycles; down: START:LEN[:PERIOD])\n", item.c_str());
        return QRDMA_EINVAL;
      }
      if (r > 0) continue;
      if (f != &o.faults) {
        fprintf(stderr, "sim backend: '%s': a direction takes loss, corrupt, dup, reorder, "
                "down\n", item.c_str());
        return QRDMA_EINVAL;
      }
    }
    uint64_t v = 0;
    if (eq == std::string::npos || !parse_u64(item.substr(eq + 1), &v)) {
      fprintf(stderr, "sim backend: bad spec item '%s' (key=value expected)\n", item.c_str());
      return QRDMA_EINVAL;
    }
    if (key == "nodes") nodes = v;
    else if (key == "mem") o.mem_bytes = v;
    else if (key == "mem_rd") o.mem_rd_latency = static_cast<uint32_t>(v);
    else if (key == "mem_wr") o.mem_wr_latency = static_cast<uint32_t>(v);
    else if (key == "mmio_rt") o.mmio_rt_cycles = static_cast<uint32_t>(v);
    else if (key == "mmio_wr") o.mmio_wr_cycles = static_cast<uint32_t>(v);
    else if (key == "max_posted") o.mmio_max_posted = static_cast<uint32_t>(v);
    else if (key == "sync_writes") o.mmio_sync_writes = static_cast<uint32_t>(v);
    else if (key == "link") o.link_latency = static_cast<uint32_t>(v);
    else if (key == "link_depth") o.link_depth = static_cast<uint32_t>(v);
    else if (key == "planes") o.planes = static_cast<uint32_t>(v);
    else if (key == "link_div") o.link_div = static_cast<uint32_t>(v);
    else if (key == "watchdog") o.watchdog_cycles = v;
    else if (key == "watchdog_exit") o.watchdog_exit = static_cast<uint32_t>(v);
    else if (key == "threads") o.threads = static_cast<int32_t>(v);
    else if (key == "seed") o.fault_seed = v;
    else if (key == "silent" && v < 32) o.silent_nodes |= 1u << v;
    else {
      fprintf(stderr, "sim backend: unknown spec key '%s' (nodes, mem, mem_rd, mem_wr, "
              "mmio_rt, mmio_wr, max_posted, sync_writes, link, link_depth, planes, link_div, watchdog, "
              "watchdog_exit, threads, trace, topo, loss, corrupt, dup, reorder, down, seed, "
              "silent, S-D.<fault key>)\n",
              key.c_str());
      return QRDMA_EINVAL;
    }
  }
  if (p2p && nodes > 2) {
    fprintf(stderr, "sim backend: topo=p2p has 1 or 2 nodes (auto: the star for more)\n");
    return QRDMA_EINVAL;
  }
  for (size_t k = 0; k < dirs.size(); ++k) merge_fault(&dirs[k].f, o.faults, dir_set[k]);
  o.link_faults = dirs.empty() ? nullptr : dirs.data();
  o.num_link_faults = static_cast<uint32_t>(dirs.size());
  return qrdma_backend_sim_open(static_cast<unsigned>(nodes), &o, out);
}

}  // extern "C"
