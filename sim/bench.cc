// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_sim_bench: speed of the system simulation in simulated cycles per wall-clock
// second (docs/sim.md "Speed"). Node 0 keeps `channels` memory writes of `size` bytes
// (64 KiB) to node 1 in flight: it posts each with one MMIO descriptor write and re-posts
// a channel when a single-status poll finds it DONE; the other nodes idle. After a
// warm-up, `cycles` cycles are timed (wall clock and process CPU time); an idle run (no
// traffic) is timed as well. One run with --threads (default: the harness's choice), or
// with --compare R, R rounds of a run on one thread and a run on threads, alternating
// which goes first, reported as medians, every run and the speedup (threaded / single).
// Results on stdout and, with --json, as JSON.
#include <time.h>

#include <algorithm>
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
  unsigned nodes = 2, channels = 4, compare = 0;
  int link = -1;  // options.link_latency, -1: the default
  int threads = QRDMA_SIM_THREADS_AUTO;
  uint64_t size = 65536;
  const char *json = nullptr;
  bool signature = false, both_edges = false;
};

struct Result {
  unsigned threads = 0;
  uint64_t cycles = 0, ready_cycles = 0, xfers = 0, errors = 0, harness_errors = 0;
  double create_s = 0, wall = 0, cpu = 0, idle_wall = 0, idle_cpu = 0, gbps = 0;
  bool data_ok = false;
  uint64_t signature = 0;
  double rate() const { return cycles / wall; }
  double rate_cpu() const { return cycles / cpu; }
};

void usage(const char *p) {
  fprintf(stderr,
          "usage: %s [--cycles N] [--warmup N] [--idle-cycles N] [--nodes N] [--size B]\n"
          "          [--channels K] [--link L] [--threads T | --compare R] [--json FILE]\n"
          "          [--signature] [--both-edges]\n"
          "  --link L: link latency in cycles (options.link_latency; default 100)\n"
          "  --threads T: options.threads (0: one thread, 1: threaded; default: the harness's\n"
          "               choice, QRDMA_SIM_THREADS)\n"
          "  --compare R: R rounds of a run with --threads 0 and one with --threads 1\n"
          "  --signature: print the hash of every NIC output of every cycle (qrdma_sim.h;\n"
          "               slower: for checking that a change kept the behaviour)\n"
          "  --both-edges: evaluate the falling edge before sampling (reference flow)\n", p);
  exit(2);
}

Result run(const Args &a, int threads) {
  Result r;
  double t_create = wall_s();
  qrdma_sim_options opt;
  qrdma_sim_default_options(&opt);
  opt.signature = a.signature;
  opt.eval_both_edges = a.both_edges;
  opt.threads = threads;
  if (a.link >= 0) opt.link_latency = static_cast<uint32_t>(a.link);
  qrdma_sim *s = qrdma_sim_create(a.nodes, &opt);
  if (!s) exit(1);
  r.create_s = wall_s() - t_create;
  r.ready_cycles = qrdma_sim_now(s);
  r.threads = qrdma_sim_threads(s);
  // development mode (docs/protection.md): the benchmark's writes carry no key
  for (unsigned n = 0; n < a.nodes; ++n) qrdma_sim_mmio_write64(s, n, QRDMA_REG(nic.PROT_CTRL), 1);

  // idle: no traffic, only the clock
  double w0 = wall_s(), c0 = cpu_s();
  qrdma_sim_step(s, a.idle_cycles);
  r.idle_wall = wall_s() - w0;
  r.idle_cpu = cpu_s() - c0;

  const unsigned src_node = 0, dst_node = 1;
  uint64_t src = qrdma_sim_mem_alloc(s, src_node, a.size * a.channels, 4096);
  uint64_t dst = qrdma_sim_mem_alloc(s, dst_node, a.size * a.channels, 4096);
  if (src == QRDMA_SIM_NOMEM || dst == QRDMA_SIM_NOMEM) {
    fprintf(stderr, "buffers do not fit host memory\n");
    exit(1);
  }
  uint8_t *sp = static_cast<uint8_t *>(qrdma_sim_mem(s, src_node, src, a.size * a.channels));
  for (uint64_t i = 0; i < a.size * a.channels; ++i) sp[i] = static_cast<uint8_t>(i * 7 + 1);

  std::vector<int> busy(a.channels, 0);
  uint64_t done = 0;
  auto post = [&](unsigned c) {
    uint8_t line[32];
    sim_desc_mem(line, src + c * a.size, dst + c * a.size, a.size, dst_node, 0, c);
    qrdma_sim_mmio_write_desc(s, src_node, sim_desc_addr(0, c), line, sizeof line);
    busy[c] = 1;
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
        if (st == QRDMA_ST_ERROR) ++r.errors;
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
  r.wall = wall_s() - w0;
  r.cpu = cpu_s() - c0;
  r.cycles = qrdma_sim_now(s) - t_begin;
  qrdma_sim_node_stats st1;
  qrdma_sim_node_stats_get(s, dst_node, &st1);
  r.xfers = done - done0;

  // verify the last data landed right (every channel's buffer holds the source)
  for (unsigned c = 0; c < a.channels; ++c) {
    for (int i = 0; i < 100000 && busy[c]; ++i) {
      uint64_t st = qrdma_sim_mmio_read64(s, src_node, sim_status_addr(0, c), nullptr) & 3;
      if (st == QRDMA_ST_DONE || st == QRDMA_ST_ERROR) busy[c] = 0;
    }
  }
  r.data_ok = memcmp(qrdma_sim_mem(s, dst_node, dst, a.size * a.channels), sp,
                     a.size * a.channels) == 0;
  r.harness_errors = qrdma_sim_errors(s);
  r.gbps = double(st1.mem_write_beats - st0.mem_write_beats) * 64.0 * 8.0 /
           (r.cycles * 5e-9) / 1e9;
  r.signature = qrdma_sim_signature(s);
  qrdma_sim_destroy(s);
  return r;
}

void print(const Args &a, const Result &r) {
  printf("  threads %u: build+reset %.2f s (%" PRIu64 " cycles to ready)\n", r.threads,
         r.create_s, r.ready_cycles);
  printf("    traffic: %" PRIu64 " cycles in %.3f s wall (%.3f s CPU): %.0f cycles/s (%.0f per CPU s)\n",
         r.cycles, r.wall, r.cpu, r.rate(), r.rate_cpu());
  printf("    idle:    %" PRIu64 " cycles in %.3f s wall (%.3f s CPU): %.0f cycles/s (%.0f per CPU s)\n",
         a.idle_cycles, r.idle_wall, r.idle_cpu, a.idle_cycles / r.idle_wall,
         a.idle_cycles / r.idle_cpu);
  printf("    simulated: %" PRIu64 " transfers done, %.1f Gb/s written at node 1 (200 MHz)\n",
         r.xfers, r.gbps);
  printf("    data %s, %" PRIu64 " ERROR status, %" PRIu64 " harness errors\n",
         r.data_ok ? "verified" : "MISMATCH", r.errors, r.harness_errors);
  if (a.signature) printf("    signature %016" PRIx64 "\n", r.signature);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// "runs": [...], medians of one mode's runs, as JSON members
void json_mode(FILE *f, const Args &a, const std::vector<Result> &rs, const char *indent) {
  std::vector<double> rate, rate_cpu, idle, idle_cpu;
  for (const Result &r : rs) {
    rate.push_back(r.rate());
    rate_cpu.push_back(r.rate_cpu());
    idle.push_back(a.idle_cycles / r.idle_wall);
    idle_cpu.push_back(a.idle_cycles / r.idle_cpu);
  }
  fprintf(f, "%s\"threads\": %u,\n", indent, rs[0].threads);
  fprintf(f, "%s\"cycles_per_s\": %.0f,\n", indent, median(rate));
  fprintf(f, "%s\"cycles_per_cpu_s\": %.0f,\n", indent, median(rate_cpu));
  fprintf(f, "%s\"idle_cycles_per_s\": %.0f,\n", indent, median(idle));
  fprintf(f, "%s\"idle_cycles_per_cpu_s\": %.0f,\n", indent, median(idle_cpu));
  fprintf(f, "%s\"runs_cycles_per_s\": [", indent);
  for (size_t k = 0; k < rs.size(); ++k) fprintf(f, "%s%.0f", k ? ", " : "", rate[k]);
  fprintf(f, "],\n%s\"runs_idle_cycles_per_s\": [", indent);
  for (size_t k = 0; k < rs.size(); ++k) fprintf(f, "%s%.0f", k ? ", " : "", idle[k]);
  fprintf(f, "]");
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
    else if (!strcmp(argv[i], "--threads")) a.threads = atoi(val());
    else if (!strcmp(argv[i], "--link")) a.link = atoi(val());
    else if (!strcmp(argv[i], "--compare")) a.compare = static_cast<unsigned>(atoi(val()));
    else if (!strcmp(argv[i], "--json")) a.json = val();
    else if (!strcmp(argv[i], "--signature")) a.signature = true;
    else if (!strcmp(argv[i], "--both-edges")) a.both_edges = true;
    else usage(argv[0]);
  }
  if (a.nodes < 2 || a.channels < 1 || a.channels > 64 || a.size == 0 || a.cycles == 0 ||
      a.idle_cycles == 0)
    usage(argv[0]);

  printf("qrdma_sim_bench: %u nodes, %u x %" PRIu64 " B writes in flight, node 0 -> node 1\n",
         a.nodes, a.channels, a.size);
  std::vector<Result> single, threaded, all;
  if (a.compare) {
    for (unsigned k = 0; k < a.compare; ++k) {
      for (int pass = 0; pass < 2; ++pass) {
        const bool thr = (pass == 0) == (k % 2 == 1);  // alternate which mode goes first
        Result r = run(a, thr ? 1 : 0);
        print(a, r);
        (thr ? threaded : single).push_back(r);
        all.push_back(r);
      }
    }
  } else {
    Result r = run(a, a.threads);
    print(a, r);
    all.push_back(r);
  }
  bool ok = true, data_ok = true, sig_equal = true;
  for (const Result &r : all) {
    ok = ok && r.data_ok && r.errors == 0 && r.harness_errors == 0;
    data_ok = data_ok && r.data_ok;
    sig_equal = sig_equal && r.signature == all[0].signature;
  }
  double speedup = 0;
  if (a.compare) {
    std::vector<double> s1, s2;
    for (const Result &r : single) s1.push_back(r.rate());
    for (const Result &r : threaded) s2.push_back(r.rate());
    speedup = median(s2) / median(s1);
    printf("  median traffic cycles/s: one thread %.0f, %u threads %.0f: speedup %.2f\n",
           median(s1), threaded[0].threads, median(s2), speedup);
    if (a.signature) printf("  signatures %s\n", sig_equal ? "equal" : "DIFFER");
  }

  if (a.json) {
    qrdma_sim_options defaults;
    qrdma_sim_default_options(&defaults);
    FILE *f = fopen(a.json, "w");
    if (!f) {
      perror(a.json);
      return 1;
    }
    fprintf(f,
            "{\n"
            "  \"benchmark\": \"sim_speed\",\n"
            "  \"nodes\": %u,\n"
            "  \"max_nodes\": %u,\n"
            "  \"traffic\": \"node 0 -> node 1, %u x %" PRIu64 " B memory writes in flight, "
            "MMIO descriptor writes, single-status polling\",\n"
            "  \"cycles\": %" PRIu64 ",\n"
            "  \"idle_cycles\": %" PRIu64 ",\n"
            "  \"link_latency\": %u,\n",
            a.nodes, qrdma_sim_max_nodes(), a.channels, a.size, all[0].cycles, a.idle_cycles,
            a.link >= 0 ? unsigned(a.link) : unsigned(defaults.link_latency));
    if (a.compare) {
      fprintf(f, "  \"rounds\": %u,\n  \"single\": {\n", a.compare);
      json_mode(f, a, single, "    ");
      fprintf(f, "\n  },\n  \"threaded\": {\n");
      json_mode(f, a, threaded, "    ");
      fprintf(f, "\n  },\n  \"speedup\": %.3f,\n", speedup);
    } else {
      const Result &r = all[0];
      fprintf(f,
              "  \"threads\": %u,\n"
              "  \"wall_s\": %.4f,\n"
              "  \"cpu_s\": %.4f,\n"
              "  \"cycles_per_s\": %.0f,\n"
              "  \"cycles_per_cpu_s\": %.0f,\n"
              "  \"idle_cycles_per_s\": %.0f,\n"
              "  \"idle_cycles_per_cpu_s\": %.0f,\n"
              "  \"transfers\": %" PRIu64 ",\n"
              "  \"simulated_gbps\": %.2f,\n",
              r.threads, r.wall, r.cpu, r.rate(), r.rate_cpu(), a.idle_cycles / r.idle_wall,
              a.idle_cycles / r.idle_cpu, r.xfers, r.gbps);
    }
    uint64_t herr = 0;
    for (const Result &r : all) herr += r.harness_errors;
    fprintf(f, "  \"data_ok\": %s,\n  \"harness_errors\": %" PRIu64 "\n}\n",
            data_ok ? "true" : "false", herr);
    fclose(f);
  }
  return ok && sig_equal ? 0 : 1;
}
