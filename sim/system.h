// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// System: N simulated nodes (a Verilator qrdma_nic, its HostMem and its MmioPort) and the
// Network between them, advanced in lockstep by one cycle loop (docs/sim.md). Each cycle
// every model is evaluated twice, once per clock edge:
//   1. per node: the harness drives the NIC's inputs from its own state (valid, data and
//      ready signals of the cycle, never a combinational function of NIC outputs), then
//      clk = 0 and eval(): the NIC's outputs settle for the cycle;
//   2. per node: the harness samples the handshakes of the cycle (valid && ready on every
//      channel), updates its state, then clk = 1 and eval(): the rising edge.
// Then the liveness watchdog looks at the cycle (docs/sim.md "Watchdog").
// The C API (qrdma_sim.h) wraps this class.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "diag.h"
#include "host_mem.h"
#include "mmio.h"
#include "net.h"
#include "qrdma_sim.h"

class Vqrdma_nic;
class VerilatedContext;
class VerilatedVcdC;

namespace qsim {

// First-fit allocator of a node's host memory (not on any hot path).
class Allocator {
 public:
  Allocator(uint64_t base, uint64_t end) { free_[base] = end - base; }
  uint64_t alloc(uint64_t size, uint64_t align);
  bool free(uint64_t addr);

 private:
  std::map<uint64_t, uint64_t> free_;  // start -> bytes
  std::map<uint64_t, uint64_t> used_;  // start -> bytes
};

struct Node {
  Node(unsigned index, const qrdma_sim_options &o, VerilatedContext *ctx, Diag &diag);
  ~Node();
  std::unique_ptr<Vqrdma_nic> nic;
  HostMem mem;
  MmioPort mmio;
  Allocator alloc;
  const Beat *rx_offered = nullptr;  // beat on s_axis_rx this cycle
  VerilatedVcdC *vcd = nullptr;      // TRACE=1 builds with options.trace
  uint64_t tx_beats = 0, rx_beats = 0, mmio_reads = 0;
};

class System {
 public:
  System(unsigned nodes, const qrdma_sim_options &opt);
  ~System();

  void step(uint64_t cycles) {
    while (cycles--) cycle();
  }
  uint64_t now() const { return now_; }
  unsigned size() const { return static_cast<unsigned>(nodes_.size()); }
  Node &node(unsigned i) { return *nodes_[i]; }
  const Node &node(unsigned i) const { return *nodes_[i]; }
  Network &net() { return *net_; }
  const Network &net() const { return *net_; }
  Diag &diag() { return diag_; }
  const Diag &diag() const { return diag_; }
  const qrdma_sim_options &options() const { return opt_; }
  bool quiet() const;
  uint64_t signature() const { return sig_; }
  bool evaluates_both_edges() const { return both_edges_; }
  // the watchdog's state dump (docs/sim.md "Watchdog") to stderr
  void dump_state() const;

  // CPU operations (advance time as described in mmio.h)
  uint64_t mmio_read64(unsigned node, uint64_t off, int *resp);
  int mmio_write(unsigned node, uint64_t off, const void *bytes, size_t len);
  void mmio_drain(unsigned node);

 private:
  void cycle() {
    // one loop per flow and network: no per-node test of the flow; PointToPoint is final,
    // its per-cycle calls bind statically
    if (p2p_)
      both_edges_ ? cycle_on<true>(*p2p_) : cycle_on<false>(*p2p_);
    else
      both_edges_ ? cycle_on<true>(*net_) : cycle_on<false>(*net_);
  }
  template <bool Both, class Net>
  void cycle_on(Net &net);
  void sign(const Node &nd);
  void watchdog(uint64_t t);

  qrdma_sim_options opt_;
  Diag diag_;
  uint64_t now_ = 0;
  uint64_t sig_ = 0;  // options.signature
  bool both_edges_ = false;  // evaluate the falling edge too (options.eval_both_edges)
  // Watchdog (options.watchdog_cycles): wd_ok_ is the last cycle known not to be stalled
  // (no NIC busy, or a NIC's nq_wait high, or a beat moved: watchdog() folds in the
  // movement from Network::last_move and HostMem::last_move); watchdog() runs once
  // t - wd_ok_ reaches wd_limit_ (UINT64_MAX: off, and until the end of construction).
  // wd_trip_ok_ is wd_ok_ of the last trip: the same stall trips once.
  uint64_t wd_ok_ = 0;
  uint64_t wd_limit_ = UINT64_MAX;
  uint64_t wd_trip_ok_ = UINT64_MAX;
  std::unique_ptr<VerilatedContext> ctx_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::unique_ptr<Network> net_;
  PointToPoint *p2p_ = nullptr;  // net_ when it is a PointToPoint (N <= 2)
};

}  // namespace qsim
