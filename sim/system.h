// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// System: N simulated nodes (a Verilator qrdma_nic, its HostMem and its MmioPort) and the
// Network between them, on one clock (docs/sim.md "The cycle loop"). A node's cycle has
// two halves: inputs (the network's tready and receive beat; in the reference flow also
// the memory's and MMIO port's inputs and the falling edge) and edge (the models sample
// the handshakes of the cycle and update their state; the rising edge). The models drive
// the NIC only from their own state, never combinationally from NIC outputs of the same
// cycle, and the NIC's outputs depend on its registers only.
//
// The nodes run either in lockstep, one cycle at a time on the calling thread (every
// node's inputs, then every node's edge), or in quanta of q cycles on a Crew of threads,
// each node's q cycles on one thread, the nodes independent of each other (docs/sim.md
// "Threads"). That is exact when no node can see another's output of the quantum inside
// it: a beat crosses a link in `link_latency` cycles, so q <= link_latency, and no link
// fills up (Network::quantum_room). Everything a node touches in a quantum is its own:
// its model and Verilator context, memory, MMIO port, NodeLog and its ends of the links.
// What needs all nodes in cycle order (the signature, the error record, the watchdog) is
// recorded per node during the quantum and folded in after it, cycle by cycle, node by
// node, as in lockstep; a quantum ends before the first cycle in which the watchdog could
// trip, which runs in lockstep. The C API (qrdma_sim.h) drives the system from one thread
// and between quanta only: every node has reached now() whenever a call returns.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "crew.h"
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
  Node(unsigned index, const qrdma_sim_options &o, Diag &diag);
  ~Node();
  std::unique_ptr<VerilatedContext> ctx;  // the model's own: its errors are the node's
  std::unique_ptr<Vqrdma_nic> nic;
  NodeLog log;
  HostMem mem;
  MmioPort mmio;
  Allocator alloc;
  const Beat *rx_offered = nullptr;  // beat on s_axis_rx this cycle
  VerilatedVcdC *vcd = nullptr;      // TRACE=1 builds with options.trace
  uint64_t tx_beats = 0, rx_beats = 0, mmio_reads = 0;
  uint64_t link_move = 0;  // the last cycle the node sent or took a beat (watchdog)
  // one quantum's record, per cycle of it: the watchdog's bits (busy, nq_wait, an RTL
  // error: see System::edge) and, with options.signature, the bytes the signature folds
  std::vector<uint8_t> wd;
  std::vector<uint8_t> sig;
  std::vector<uint32_t> sig_end;  // end of cycle k's bytes in sig
};

class System {
 public:
  // Quanta: at most kMaxQuantum cycles (the per-node records). Threads only with a link
  // latency of at least kMinLatency (shorter quanta cost more in synchronisation than the
  // nodes' work in them gains; docs/sim.md "Threads").
  static constexpr uint64_t kMaxQuantum = 1024;
  static constexpr unsigned kMinLatency = 8;
  // Automatic choice (options.threads QRDMA_SIM_THREADS_AUTO): threads or lockstep, by the
  // speed measured over windows of kAdaptWindow simulated cycles; the mode not in use is
  // tried again for one window after kAdaptProbe windows, twice as many after each try it
  // loses (at most kAdaptProbeMax).
  static constexpr uint64_t kAdaptWindow = 16384;
  static constexpr unsigned kAdaptProbe = 8, kAdaptProbeMax = 256;

  System(unsigned nodes, const qrdma_sim_options &opt);
  ~System();

  // advance every node by `cycles` (in quanta where possible)
  void step(uint64_t cycles);
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
  unsigned threads() const { return crew_ ? crew_->size() : 1; }
  bool adaptive() const { return adapt_; }
  // the watchdog's state dump (docs/sim.md "Watchdog") to stderr
  void dump_state() const;
  // the fault model of direction src -> dst (nullptr: none), and whether it exists
  const FaultLine *fault_line(unsigned src, unsigned dst) const;
  bool has_link(unsigned src, unsigned dst) const;

  // CPU operations (advance time as described in mmio.h). The blocking ones (a read that
  // waits for its data, a write that steps over its issue time) issue from core 0, or from
  // `core`; they step the system. A core's asynchronous ones (core_write, core_read_start)
  // step nothing: they move the core's clock (docs/sim.md "MMIO").
  uint64_t mmio_read64(unsigned node, uint64_t off, int *resp) {
    return mmio_read64(node, 0, off, resp);
  }
  uint64_t mmio_read64(unsigned node, unsigned core, uint64_t off, int *resp);
  int mmio_write(unsigned node, uint64_t off, const void *bytes, size_t len) {
    return mmio_write(node, 0, off, bytes, len, true);
  }
  int mmio_write(unsigned node, unsigned core, uint64_t off, const void *bytes, size_t len,
                 bool blocking);
  void mmio_drain(unsigned node);
  bool core_read_start(unsigned node, unsigned core, uint64_t off);
  // 1 and *val, *resp once the core's read is back; 0 if not yet; -1 if none is pending
  int core_read_end(unsigned node, unsigned core, uint64_t *val, unsigned *resp);
  uint64_t core_now(unsigned node, unsigned core) const {
    return nodes_[node]->mmio.issue_cycle(core, now_);
  }
  // step to the first cycle by which a read pending on one of the node's cores may be back
  // (at least one cycle)
  void core_idle(unsigned node);
  // the core's program pauses as a program without cores does in idle() with no read
  // pending: its clock moves one cycle past core_now (steps nothing); false (an API error)
  // while a read is pending on the core
  bool core_pause(unsigned node, unsigned core);

 private:
  // one cycle of every node in lockstep; one flow and network per loop (PointToPoint is
  // final: its per-cycle calls bind statically)
  void cycle() {
    if (p2p_)
      both_edges_ ? lockstep<true>(*p2p_) : lockstep<false>(*p2p_);
    else
      both_edges_ ? lockstep<true>(*net_) : lockstep<false>(*net_);
  }
  template <bool Both, class Net>
  void lockstep(Net &net);
  template <bool Both, class Net>
  void inputs(Node &nd, unsigned i, Net &net, uint64_t t);
  template <bool Both, bool Keep, class Net>
  unsigned edge(Node &nd, unsigned i, Net &net, uint64_t t);
  void end_cycle(uint64_t t, unsigned wd);
  // quanta
  uint64_t quantum(uint64_t want);
  void run_quantum(uint64_t q);
  void adapt();
  static void quantum_member(void *self, unsigned node);
  template <bool Both, class Net>
  void node_quantum(Node &nd, unsigned i, Net &net);
  void fold_quantum();
  void watchdog(uint64_t t);
  void watchdog_fold();
  void set_faults();

  qrdma_sim_options opt_;
  Diag diag_;
  uint64_t now_ = 0;
  uint64_t sig_ = 0;  // options.signature
  bool both_edges_ = false;  // evaluate the falling edge first (options.eval_both_edges)
  // Watchdog (options.watchdog_cycles): wd_ok_ is the last cycle known not to be stalled
  // (no NIC busy, or a NIC's nq_wait high, or a beat moved: watchdog_fold() folds in the
  // movement from the nodes' link_move and HostMem::last_move); a trip is due once
  // t - wd_ok_ reaches wd_limit_ (UINT64_MAX: off, and until the end of construction).
  // wd_trip_ok_ is wd_ok_ of the last trip: the same stall trips once.
  uint64_t wd_ok_ = 0;
  uint64_t wd_limit_ = UINT64_MAX;
  uint64_t wd_trip_ok_ = UINT64_MAX;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::unique_ptr<Network> net_;
  PointToPoint *p2p_ = nullptr;  // net_ when it is a PointToPoint (N <= 2)
  std::unique_ptr<Crew> crew_;   // threaded runs: each node a crew item
  uint64_t q_t0_ = 0, q_len_ = 0;  // the quantum being run
  bool threaded_ = false;  // the crew runs the nodes (else lockstep on the calling thread)
  // automatic choice: the current window (end cycle, start time), the last speed measured
  // in each mode (ns per cycle, 0: none yet), windows since the other mode was tried
  bool adapt_ = false, probing_ = false;
  uint64_t win_end_ = 0;
  double win_t0_ = 0, ns_per_cycle_[2] = {0, 0};
  unsigned since_probe_ = 0, probe_every_ = kAdaptProbe;
};

}  // namespace qsim
