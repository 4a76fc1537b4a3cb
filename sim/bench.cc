// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_sim_bench: speed of the system simulation in simulated cycles per wall-clock
// second (issue 5: goal >= 1,000,000 for N = 2 on one core). Node 0 keeps `channels`
// memory writes of `size` bytes (64 KiB) to node 1 in flight: it posts each with one MMIO
// descriptor write and re-posts a channel when a single-status poll finds it DONE. After
// a warm-up, `cycles` cycles are timed (wall clock and process CPU time); an idle run (no
// traffic) is timed as well. Results on stdout and, with --json, as JSON.
#include <time.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "qrdma_fmt.h"
#include "qrdma_sim.h"
#include "sim_desc.h"

namespace {

double wall_s() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
double cpu_s() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

struct Args {
  uint64_t cycles = 1000000, warmup = 20000, idle_cycles = 200000;
  unsigned nodes = 2, channels = 4;
  uint64_t size = 65536;
  const char *json = nullptr;
  bool signature = false, both_edges = false;
};

void usage(const char *p) {
  fprintf(stderr,
          "usage: %s [--cycles N] [--warmup N] [--idle-cycles N] [--nodes N] [--size B]\n"
          "          [--channels K] [--json FILE] [--signature]\n"
          "  --signature: print the hash of every NIC output of every cycle (qrdma_sim.h;\n"
          "               slower: for checking that an RTL change kept the behaviour)\n"
          "  --both-edges: evaluate the models at the falling edge too (reference flow)\n", p);
  exit(2);
}

}  // namespace

int main(int argc, char **argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    auto val = [&](void) -> const char * {
      if (i + 1 >= argc) usage(argv[0]);
      return argv[++i];
    };
    if (!strcmp(argv[i], "--cycles")) a.cycles = strtoull(val(), nullptr, 0);
    else if (!strcmp(argv[i], "--warmup")) a.warmup = strtoull(val(), nullptr, 0);
    else if (!strcmp(argv[i], "--idle-cycles")) a.idle_cycles = strtoull(val(), nullptr, 0);
    else if (!strcmp(argv[i], "--nodes")) a.nodes = static_cast<unsigned>(atoi(val()));
    else if (!strcmp(argv[i], "--size")) a.size = strtoull(val(), nullptr, 0);
    else if (!strcmp(argv[i], "--channels")) a.channels = static_cast<unsigned>(atoi(val()));
    else if (!strcmp(argv[i], "--json")) a.json = val();
    else if (!strcmp(argv[i], "--signature")) a.signature = true;
    else if (!strcmp(argv[i], "--both-edges")) a.both_edges = true;
    else usage(argv[0]);
  }
  if (a.nodes < 2 || a.channels < 1 || a.channels > 64 || a.size == 0) usage(argv[0]);

  double t_create = wall_s();
  qrdma_sim_options opt;
  qrdma_sim_default_options(&opt);
  opt.signature = a.signature;
  opt.eval_both_edges = a.both_edges;
  qrdma_sim *s = qrdma_sim_create(a.nodes, &opt);
  if (!s) return 1;
  t_create = wall_s() - t_create;

  // idle: no traffic, only the clock
  double w0 = wall_s(), c0 = cpu_s();
  qrdma_sim_step(s, a.idle_cycles);
  double idle_wall = wall_s() - w0, idle_cpu = cpu_s() - c0;

  const unsigned src_node = 0, dst_node = 1;
  uint64_t src = qrdma_sim_mem_alloc(s, src_node, a.size * a.channels, 4096);
  uint64_t dst = qrdma_sim_mem_alloc(s, dst_node, a.size * a.channels, 4096);
  if (src == QRDMA_SIM_NOMEM || dst == QRDMA_SIM_NOMEM) {
    fprintf(stderr, "buffers do not fit host memory\n");
    return 1;
  }
  uint8_t *sp = static_cast<uint8_t *>(qrdma_sim_mem(s, src_node, src, a.size * a.channels));
  for (uint64_t i = 0; i < a.size * a.channels; ++i) sp[i] = static_cast<uint8_t>(i * 7 + 1);

  std::vector<int> busy(a.channels, 0);
  uint64_t posted = 0, done = 0, errors = 0;
  auto post = [&](unsigned c) {
    uint8_t line[32];
    sim_desc_mem(line, src + c * a.size, dst + c * a.size, a.size, dst_node, 0, c);
    qrdma_sim_mmio_write_desc(s, src_node, sim_desc_addr(0, c), line, sizeof line);
    busy[c] = 1;
    ++posted;
  };
  // one round: post every idle channel, poll every busy one once
  auto round = [&]() {
    for (unsigned c = 0; c < a.channels; ++c) {
      if (!busy[c]) {
        post(c);
        continue;
      }
      uint64_t st = qrdma_sim_mmio_read64(s, src_node, sim_status_addr(0, c), nullptr) & 3;
      if (st == QRDMA_ST_DONE || st == QRDMA_ST_ERROR) {
        busy[c] = 0;
        ++done;
        if (st == QRDMA_ST_ERROR) ++errors;
      }
    }
  };

  uint64_t start = qrdma_sim_now(s);
  while (qrdma_sim_now(s) - start < a.warmup) round();
  uint64_t done0 = done;
  qrdma_sim_node_stats st0;
  qrdma_sim_node_stats_get(s, dst_node, &st0);
  uint64_t t_begin = qrdma_sim_now(s);
  w0 = wall_s();
  c0 = cpu_s();
  while (qrdma_sim_now(s) - t_begin < a.cycles) round();
  double wall = wall_s() - w0, cpu = cpu_s() - c0;
  uint64_t cycles = qrdma_sim_now(s) - t_begin;
  qrdma_sim_node_stats st1;
  qrdma_sim_node_stats_get(s, dst_node, &st1);
  uint64_t xfers = done - done0;

  // verify the last data landed right (every channel's buffer holds the source)
  for (unsigned c = 0; c < a.channels; ++c) {
    if (!busy[c]) continue;
    for (int i = 0; i < 100000 && busy[c]; ++i) {
      uint64_t st = qrdma_sim_mmio_read64(s, src_node, sim_status_addr(0, c), nullptr) & 3;
      if (st == QRDMA_ST_DONE || st == QRDMA_ST_ERROR) busy[c] = 0;
    }
  }
  bool data_ok = memcmp(qrdma_sim_mem(s, dst_node, dst, a.size * a.channels), sp,
                        a.size * a.channels) == 0;
  uint64_t harness_errors = qrdma_sim_errors(s);

  double rate = cycles / wall, rate_cpu = cycles / cpu;
  double idle_rate = a.idle_cycles / idle_wall, idle_rate_cpu = a.idle_cycles / idle_cpu;
  double bytes = double(st1.mem_write_beats - st0.mem_write_beats) * 64.0;
  double gbps = bytes * 8.0 / (cycles * 5e-9) / 1e9;
  printf("qrdma_sim_bench: %u nodes, %u x %" PRIu64 " B writes in flight, node 0 -> node 1\n",
         a.nodes, a.channels, a.size);
  printf("  build+reset: %.2f s (%" PRIu64 " cycles to ready); code on huge pages: %lu MiB\n",
         t_create, start - a.idle_cycles, qrdma_sim_huge_code_bytes() >> 20);
  printf("  traffic: %" PRIu64 " cycles in %.3f s wall (%.3f s CPU): %.0f cycles/s (%.0f per CPU s)\n",
         cycles, wall, cpu, rate, rate_cpu);
  printf("  idle:    %" PRIu64 " cycles in %.3f s wall (%.3f s CPU): %.0f cycles/s (%.0f per CPU s)\n",
         a.idle_cycles, idle_wall, idle_cpu, idle_rate, idle_rate_cpu);
  printf("  simulated: %" PRIu64 " transfers done, %.1f Gb/s written at node 1 (200 MHz)\n",
         xfers, gbps);
  printf("  data %s, %" PRIu64 " ERROR status, %" PRIu64 " harness errors\n",
         data_ok ? "verified" : "MISMATCH", errors, harness_errors);
  if (a.signature) printf("  signature %016" PRIx64 "\n", qrdma_sim_signature(s));

  if (a.json) {
    FILE *f = fopen(a.json, "w");
    if (!f) {
      perror(a.json);
      return 1;
    }
    fprintf(f,
            "{\n"
            "  \"benchmark\": \"sim_speed\",\n"
            "  \"nodes\": %u,\n"
            "  \"traffic\": \"node 0 -> node 1, %u x %" PRIu64 " B memory writes in flight, "
            "MMIO descriptor writes, single-status polling\",\n"
            "  \"cycles\": %" PRIu64 ",\n"
            "  \"wall_s\": %.4f,\n"
            "  \"cpu_s\": %.4f,\n"
            "  \"cycles_per_s\": %.0f,\n"
            "  \"cycles_per_cpu_s\": %.0f,\n"
            "  \"idle_cycles_per_s\": %.0f,\n"
            "  \"idle_cycles_per_cpu_s\": %.0f,\n"
            "  \"goal_cycles_per_s\": 1000000,\n"
            "  \"transfers\": %" PRIu64 ",\n"
            "  \"simulated_gbps\": %.2f,\n"
            "  \"data_ok\": %s,\n"
            "  \"harness_errors\": %" PRIu64 ",\n"
            "  \"huge_code_bytes\": %lu\n"
            "}\n",
            a.nodes, a.channels, a.size, cycles, wall, cpu, rate, rate_cpu, idle_rate,
            idle_rate_cpu, xfers, gbps, data_ok ? "true" : "false", harness_errors,
            qrdma_sim_huge_code_bytes());
    fclose(f);
  }
  qrdma_sim_destroy(s);
  return data_ok && errors == 0 && harness_errors == 0 ? 0 : 1;
}
