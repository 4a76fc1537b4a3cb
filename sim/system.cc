// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// System: node construction, reset, the cycle loop in lockstep and in threaded quanta,
// and the CPU operations (see system.h).
#include "system.h"

#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <type_traits>

#include "Vqrdma_nic.h"
#include "fabric_net.h"
#include "faults.h"
#include "qrdma_fmt.h"
#include "verilated.h"

#ifndef QRDMA_SIM_NIC_NODES
#define QRDMA_SIM_NIC_NODES 4
#endif
#ifndef QRDMA_SIM_FAB_PLANES
#define QRDMA_SIM_FAB_PLANES 2
#endif
#ifndef QRDMA_SIM_TRACE
#define QRDMA_SIM_TRACE 0
#endif
#if QRDMA_SIM_TRACE
#include "verilated_vcd_c.h"
#endif

namespace qsim {

namespace {
// A beat taken from node i's m_axis_tx: filled in place in a PointToPoint link, through a
// local Beat and tx_push otherwise (the same beat reaches the link either way).
inline Beat &tx_slot(PointToPoint &net, unsigned i, Beat &) { return net.tx_slot(i); }
inline Beat &tx_slot(Network &, unsigned, Beat &local) { return local; }
inline void tx_commit(PointToPoint &net, unsigned i, Beat &, uint64_t t) { net.tx_commit(i, t); }
inline void tx_commit(Network &net, unsigned i, Beat &b, uint64_t t) { net.tx_push(i, b, t); }

// The signature's hash: FNV-1a over the bytes of each value, in the order sign() gives
// them. Fnv folds at once (lockstep); Bytes keeps the bytes for folding after a quantum.
struct Fnv {
  uint64_t h;
  template <typename T>
  void put(const T &v) {
    const unsigned char *p = reinterpret_cast<const unsigned char *>(&v);
    for (size_t k = 0; k < sizeof v; ++k) h = (h ^ p[k]) * 0x100000001b3ull;
  }
  void put_bytes(const uint8_t *p, size_t n) {
    for (size_t k = 0; k < n; ++k) h = (h ^ p[k]) * 0x100000001b3ull;
  }
};
struct Bytes {
  std::vector<uint8_t> &b;
  template <typename T>
  void put(const T &v) {
    const size_t at = b.size();
    b.resize(at + sizeof v);
    memcpy(b.data() + at, &v, sizeof v);
  }
};

// Every output of the NIC in this cycle that means something: each valid, its payload
// while valid, and each ready the NIC drives where the harness offers a valid.
template <class S>
void sign(const Vqrdma_nic &m, S &s) {
  s.put(m.ready);
  // host port (AXI4 slave): readies against the harness's valids, B and R channels
  s.put(uint8_t(m.s_axi_awready && m.s_axi_awvalid));
  s.put(uint8_t(m.s_axi_wready && m.s_axi_wvalid));
  s.put(uint8_t(m.s_axi_arready && m.s_axi_arvalid));
  s.put(m.s_axi_bvalid);
  if (m.s_axi_bvalid) {
    s.put(m.s_axi_bid);
    s.put(m.s_axi_bresp);
  }
  s.put(m.s_axi_rvalid);
  if (m.s_axi_rvalid) {
    s.put(m.s_axi_rid);
    s.put(m.s_axi_rresp);
    s.put(m.s_axi_rlast);
    s.put(m.s_axi_rdata);
  }
  // memory port (AXI4 master)
  s.put(m.m_axi_awvalid);
  if (m.m_axi_awvalid) {
    s.put(m.m_axi_awid);
    s.put(m.m_axi_awaddr);
    s.put(m.m_axi_awlen);
    s.put(m.m_axi_awsize);
    s.put(m.m_axi_awburst);
  }
  s.put(m.m_axi_wvalid);
  if (m.m_axi_wvalid) {
    s.put(m.m_axi_wdata);
    s.put(m.m_axi_wstrb);
    s.put(m.m_axi_wlast);
  }
  s.put(uint8_t(m.m_axi_bready && m.m_axi_bvalid));
  s.put(m.m_axi_arvalid);
  if (m.m_axi_arvalid) {
    s.put(m.m_axi_arid);
    s.put(m.m_axi_araddr);
    s.put(m.m_axi_arlen);
    s.put(m.m_axi_arsize);
    s.put(m.m_axi_arburst);
  }
  s.put(uint8_t(m.m_axi_rready && m.m_axi_rvalid));
  // link
  s.put(m.m_axis_tx_tvalid);
  if (m.m_axis_tx_tvalid) {
    s.put(m.m_axis_tx_tdata);
    s.put(m.m_axis_tx_tkeep);
    s.put(m.m_axis_tx_tuser);
    s.put(m.m_axis_tx_tlast);
  }
  s.put(uint8_t(m.s_axis_rx_tready && m.s_axis_rx_tvalid));
}

// options.threads with QRDMA_SIM_THREADS_AUTO resolved: the environment's
// QRDMA_SIM_THREADS if set, else QRDMA_SIM_THREADS_AUTO
int32_t threads_option(const qrdma_sim_options &o) {
  if (o.threads != QRDMA_SIM_THREADS_AUTO) return o.threads;
  const char *e = getenv("QRDMA_SIM_THREADS");
  return e && *e ? atoi(e) : QRDMA_SIM_THREADS_AUTO;
}

// Threads of a threaded system: at most one per node and per CPU the process may run on
// (threads option 1 or automatic) or the number asked for; 1 for N = 1, a link latency
// below min_latency and TRACE=1 builds.
unsigned thread_count(int32_t want, unsigned nodes, unsigned latency, unsigned min_latency) {
  if (want == 0 || nodes < 2 || latency < min_latency || QRDMA_SIM_TRACE) return 1;
  unsigned cpus = std::thread::hardware_concurrency();
#ifdef CPU_COUNT
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) cpus = static_cast<unsigned>(CPU_COUNT(&set));
#endif
  unsigned n = want > 1 ? static_cast<unsigned>(want) : cpus;
  return std::max(1u, std::min(n, nodes));
}

constexpr const char *kRtlError = "RTL error ($fatal or assertion) in a NIC model";

double now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

// A node's Verilator context: one thread (the model is single-threaded: no thread pool),
// an RTL $fatal / assertion reported, not exit()ed.
VerilatedContext *new_context() {
  VerilatedContext *c = new VerilatedContext;
  c->threads(1);
  c->fatalOnError(false);
  return c;
}
}  // namespace

uint64_t Allocator::alloc(uint64_t size, uint64_t align) {
  if (align == 0) align = 64;
  if (size == 0) size = 1;
  if (align & (align - 1)) return QRDMA_SIM_NOMEM;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    uint64_t start = (it->first + align - 1) & ~(align - 1);
    uint64_t end = it->first + it->second;
    if (start < end && end - start >= size) {
      uint64_t fs = it->first, fe = end;
      free_.erase(it);
      if (start > fs) free_[fs] = start - fs;
      if (start + size < fe) free_[start + size] = fe - (start + size);
      used_[start] = size;
      return start;
    }
  }
  return QRDMA_SIM_NOMEM;
}

bool Allocator::free(uint64_t addr) {
  auto u = used_.find(addr);
  if (u == used_.end()) return false;
  uint64_t start = addr, size = u->second;
  used_.erase(u);
  auto next = free_.lower_bound(start);
  if (next != free_.end() && next->first == start + size) {  // merge with the following gap
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {  // and with the preceding one
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      prev->second += size;
      return true;
    }
  }
  free_[start] = size;
  return true;
}

Node::Node(unsigned index, const qrdma_sim_options &o, Diag &diag)
    : ctx(new_context()),
      nic(new Vqrdma_nic(ctx.get(), ("node" + std::to_string(index)).c_str())),
      log(diag),
      mem(index, o.mem_bytes, o.mem_rd_latency, o.mem_wr_latency, o.mem_max_bursts, log),
      mmio(index, o.mmio_rt_cycles, log),
      alloc(o.mem_bytes > 4096 ? 4096 : 0, o.mem_bytes),
      wd(System::kMaxQuantum) {
}

Node::~Node() {
#if QRDMA_SIM_TRACE
  if (vcd) {
    vcd->close();
    delete vcd;
  }
#endif
  nic.reset();  // before its context
}

System::System(unsigned nodes, const qrdma_sim_options &opt) : opt_(opt) {
  diag_.now = &now_;
  if (nodes < 1 || nodes > QRDMA_SIM_NIC_NODES)
    throw std::invalid_argument("nodes must be 1.." + std::to_string(QRDMA_SIM_NIC_NODES) +
                                " (the NIC's NUM_NODES; rebuild with NIC_NODES=... for more)");
  if (opt_.mmio_max_posted == 0) opt_.mmio_max_posted = 1;
  unsigned depth = opt_.link_depth;
  if (depth == 0) {
    depth = opt_.link_latency + 2;
    if (depth < 256) depth = 256;
  }
  opt_.link_depth = depth;
#if !QRDMA_SIM_TRACE
  if (opt_.trace) throw std::invalid_argument("options.trace needs a TRACE=1 build");
#endif
  for (unsigned i = 0; i < nodes; ++i) nodes_.emplace_back(new Node(i, opt_, diag_));
#if QRDMA_SIM_TRACE
  if (opt_.trace) {
    for (unsigned i = 0; i < nodes; ++i) {
      Node &nd = *nodes_[i];
      nd.ctx->traceEverOn(true);
      nd.vcd = new VerilatedVcdC;
      nd.nic->trace(nd.vcd, 99);
      nd.vcd->open((std::string(opt_.trace) + ".node" + std::to_string(i) + ".vcd").c_str());
    }
  }
#endif
  if (opt_.topology == QRDMA_SIM_TOPO_STAR ||
      (opt_.topology == QRDMA_SIM_TOPO_AUTO && nodes > 2))
    net_ = make_fabric(nodes, FabricTopo::kStar, 1, opt_.link_latency, depth, opt_.link_div);
  else if (opt_.topology == QRDMA_SIM_TOPO_PLANES)
    net_ = make_fabric(nodes, FabricTopo::kPlanes,
                       opt_.planes ? opt_.planes : QRDMA_SIM_FAB_PLANES, opt_.link_latency,
                       depth, opt_.link_div);
  else if (opt_.topology == QRDMA_SIM_TOPO_DUMBBELL)
    net_ = make_fabric(nodes, FabricTopo::kDumbbell, 1, opt_.link_latency, depth,
                       opt_.link_div);
  else if (opt_.topology != QRDMA_SIM_TOPO_AUTO)
    throw std::invalid_argument("options.topology: QRDMA_SIM_TOPO_AUTO, _STAR, _PLANES or "
                                "_DUMBBELL");
  else if (opt_.link_div > 1)
    throw std::invalid_argument("options.link_div: the fabric topologies only");
  else
    net_.reset(p2p_ = new PointToPoint(nodes, opt_.link_latency, depth));
  set_faults();
  const int32_t want = net_->lockstep_only() ? 0 : threads_option(opt_);
  const unsigned threads = thread_count(want, nodes, opt_.link_latency, kMinLatency);
  if (threads > 1) {
    crew_.reset(new Crew(threads, nodes));
    threaded_ = true;
    adapt_ = want == QRDMA_SIM_THREADS_AUTO;
  }

  both_edges_ = opt_.eval_both_edges || QRDMA_SIM_TRACE;
  for (auto &n : nodes_) {
    Vqrdma_nic &m = *n->nic;
    m.node_id = static_cast<uint16_t>(&n - &nodes_[0]);
    m.tx_pause = 0;
    m.rst = 1;
    m.clk = 0;
    Verilated::threadContextp(n->ctx.get());
    m.eval();  // outputs settle before the first cycle samples them
  }
  net_->reset(true);
  step(opt_.reset_cycles ? opt_.reset_cycles : 1);
  for (auto &n : nodes_) n->nic->rst = 0;
  net_->reset(false);
  // `ready` covers the QoS engine (ID pools filled); the receive unit clears its block
  // table in NUM_NODES * 1024 cycles after rst (rtl/rx/qrdma_rx.sv) without a port that
  // tells, and holds packets meanwhile: wait for both, so that no transfer measured
  // through the harness pays the initialisation.
  const uint64_t rx_init_done = now_ + uint64_t(QRDMA_SIM_NIC_NODES) * 1024 + 16;
  const uint64_t limit = now_ + 100000;
  step(rx_init_done - now_);
  for (;;) {
    bool all = true;
    for (auto &n : nodes_) all = all && n->nic->ready;
    if (all) break;
    if (now_ >= limit) throw std::runtime_error("NICs not ready 100000 cycles after reset");
    step(1);
  }
  // the watchdog watches from here on
  wd_ok_ = now_;
  if (opt_.watchdog_cycles) wd_limit_ = opt_.watchdog_cycles;
}

// The fault model (docs/sim.md "Faults"): a FaultLine for each direction with a fault;
// with any, the network runs through its virtual calls (the point-to-point fast path
// writes into the links directly).
void System::set_faults() {
  const unsigned n = size();
  if (net_->lockstep_only()) {
    // the star (and planes): a FaultLine on each link between a node's port and its switch
    // port; the fabric's sync beats return the credits of what a link loses
    // (docs/fabric.md "Faults on fabric links")
    FaultConfig c;
    c.f = opt_.faults;
    c.seed = opt_.fault_seed;
    if (opt_.silent_nodes || opt_.num_link_faults || c.f.dup > 0 || c.f.reorder > 0)
      throw std::invalid_argument("faults on the star's links: loss, corrupt and down only (a "
                                  "fabric link keeps its order and never duplicates); per-link "
                                  "faults and silent nodes need the point-to-point network "
                                  "(2 nodes)");
    if (c.f.loss < 0 || c.f.loss > 1 || c.f.corrupt < 0 || c.f.corrupt > 1)
      throw std::invalid_argument("faults: loss and corrupt are probabilities (0 .. 1)");
    if (!c.any()) return;
    std::vector<std::unique_ptr<FaultLine>> lines(net_->link_count());
    for (unsigned k = 0; k < lines.size(); ++k) {
      const LinkState l = net_->link_state(k, 0);
      c.src = l.src;
      c.dst = l.dst;
      lines[k].reset(new FaultLine(c));
    }
    net_->set_faults(std::move(lines));
    return;
  }
  std::vector<std::unique_ptr<FaultLine>> lines(net_->link_count());
  bool any = false;
  for (unsigned k = 0; k < lines.size(); ++k) {
    const LinkState l = net_->link_state(k, 0);
    FaultConfig c;
    c.f = opt_.faults;
    for (uint32_t j = 0; opt_.link_faults && j < opt_.num_link_faults; ++j)
      if (opt_.link_faults[j].src == l.src && opt_.link_faults[j].dst == l.dst)
        c.f = opt_.link_faults[j].f;
    c.silent = l.src < 32 && (opt_.silent_nodes >> l.src & 1);
    c.seed = opt_.fault_seed;
    c.src = l.src;
    c.dst = l.dst;
    if (c.f.loss < 0 || c.f.loss > 1 || c.f.corrupt < 0 || c.f.corrupt > 1 || c.f.dup < 0 ||
        c.f.dup > 1)
      throw std::invalid_argument("faults: loss, corrupt and dup are probabilities (0 .. 1)");
    if (!c.any()) continue;
    lines[k].reset(new FaultLine(c));
    any = true;
  }
  for (uint32_t j = 0; opt_.link_faults && j < opt_.num_link_faults; ++j) {
    const qrdma_sim_link_faults &lf = opt_.link_faults[j];
    if (lf.src >= n || lf.dst >= n || (n > 1 && lf.src == lf.dst))
      throw std::invalid_argument("faults: no link direction " + std::to_string(lf.src) +
                                  " -> " + std::to_string(lf.dst));
  }
  opt_.link_faults = nullptr;  // the caller's array: read here only
  opt_.num_link_faults = 0;
  if (!any) return;
  net_->set_faults(std::move(lines));
  p2p_ = nullptr;
}

const FaultLine *System::fault_line(unsigned src, unsigned dst) const {
  if (!has_link(src, dst)) return nullptr;
  const unsigned n = size();
  if (net_->lockstep_only()) {  // the star: a port's link to or from its switch
    for (unsigned k = 0; k < net_->link_count(); ++k) {
      const LinkState l = net_->link_state(k, 0);
      if (l.src == src && l.dst == dst) return net_->fault_line(k);
    }
    return nullptr;
  }
  return net_->fault_line(n == 1 ? 0 : src);
}

bool System::has_link(unsigned src, unsigned dst) const {
  const unsigned n = size();
  if (net_->lockstep_only()) {  // the fabric: node i -> its switch, a switch -> node i,
                                // the dumbbell's trunk
    for (unsigned k = 0; k < net_->link_count(); ++k) {
      const LinkState l = net_->link_state(k, 0);
      if (l.src == src && l.dst == dst)
        return std::min(src, dst) < n || std::min(src, dst) >= QRDMA_SIM_SWITCH;
    }
    return false;
  }
  return src < n && dst < n && (n == 1 || src != dst);
}

System::~System() {
  crew_.reset();
  for (auto &n : nodes_) {
    Verilated::threadContextp(n->ctx.get());
    n->nic->final();
  }
}

// ---- the cycle loop

// Node i's inputs of cycle t (in the reference flow also its memory's and MMIO port's, and
// the falling edge).
template <bool Both, class Net>
inline void System::inputs(Node &nd, unsigned i, Net &net, uint64_t t) {
  Vqrdma_nic &m = *nd.nic;
  if (Both) {
    nd.mem.drive(m, t);
    nd.mmio.drive(m, t);
  }
  m.m_axis_tx_tready = net.tx_ready(i);
  if constexpr (!std::is_same_v<Net, PointToPoint>) m.tx_pause = net.pause(i);
  const Beat *rb = net.rx_peek(i, t);
  nd.rx_offered = rb;
  if (rb) {
    memcpy(m.s_axis_rx_tdata.data(), rb->data, sizeof rb->data);
    m.s_axis_rx_tkeep = rb->keep;
    m.s_axis_rx_tuser = rb->user;
    m.s_axis_rx_tlast = rb->last;
    m.s_axis_rx_tvalid = 1;
  } else {
    m.s_axis_rx_tvalid = 0;
  }
  if (Both) {
    m.clk = 0;
    m.eval();
#if QRDMA_SIM_TRACE
    if (nd.vcd) nd.vcd->dump(5000 * t + 2500);  // in ps at 200 MHz: falling edge mid-cycle
#endif
  }
}

// Node i's handshakes of cycle t and its rising edge. In the default flow the memory and
// MMIO models drive their inputs here, right before they sample (the model is not
// evaluated in between and they depend on no other node, so the handshakes are the same),
// and the falling edge is evaluated right after the rising one (the NIC's outputs depend
// on its registers only: it changes nothing the next cycle samples). Returns busy | nq_wait
// << 1 of the cycle (NIC outputs as the last rising edge left them) | 4 for an RTL error.
// Keep: a quantum's cycle (the signature's bytes kept), else lockstep (folded at once).
template <bool Both, bool Keep, class Net>
inline unsigned System::edge(Node &nd, unsigned i, Net &net, uint64_t t) {
  Vqrdma_nic &m = *nd.nic;
  if (Both) {
    nd.mem.sample(m, t);
    nd.mmio.sample(m, t);
  } else {
    nd.mem.cycle(m, t);
    nd.mmio.cycle(m, t);
  }
  unsigned wd = m.busy | m.nq_wait << 1;
  if (m.m_axis_tx_tvalid && m.m_axis_tx_tready) {
    Beat b;
    Beat &s = tx_slot(net, i, b);  // PointToPoint: the link's own slot, no second copy
    memcpy(s.data, m.m_axis_tx_tdata.data(), sizeof s.data);
    s.keep = m.m_axis_tx_tkeep;
    s.user = m.m_axis_tx_tuser;
    s.last = m.m_axis_tx_tlast;
    tx_commit(net, i, s, t);
    ++nd.tx_beats;
    nd.link_move = t;
  }
  if constexpr (!std::is_same_v<Net, PointToPoint>)
    if (net.faulty()) net.tick(i, t);
  if (nd.rx_offered && m.s_axis_rx_tready) {
    net.rx_pop(i);
    ++nd.rx_beats;
    nd.link_move = t;
  }
  if (opt_.signature) {
    if (Keep) {
      Bytes s{nd.sig};
      sign(m, s);
      nd.sig_end.push_back(static_cast<uint32_t>(nd.sig.size()));
    } else {
      Fnv s{sig_ ^ t};
      sign(m, s);
      sig_ = s.h;
    }
  }
  m.clk = 1;
  m.eval();
#if QRDMA_SIM_TRACE
  if (nd.vcd) nd.vcd->dump(5000 * t + 5000);
#endif
  if (!Both) {
    m.clk = 0;
    m.eval();
  }
  if (nd.ctx->gotError()) {
    nd.ctx->gotError(false);
    wd |= 4;
  }
  return wd;
}

template <bool Both, class Net>
void System::lockstep(Net &net) {
  const uint64_t t = now_;
  const unsigned n = static_cast<unsigned>(nodes_.size());
  std::unique_ptr<Node> *const nodes = nodes_.data();  // a local: the calls are opaque
  net.sync();  // each end sees the other as of the start of the cycle
  for (unsigned i = 0; i < n; ++i) {
    Verilated::threadContextp(nodes[i]->ctx.get());  // see node_quantum()
    inputs<Both>(*nodes[i], i, net, t);
  }
  unsigned wd = 0;
  for (unsigned i = 0; i < n; ++i) {
    Verilated::threadContextp(nodes[i]->ctx.get());
    wd |= edge<Both, false>(*nodes[i], i, net, t);
  }
  if constexpr (!std::is_same_v<Net, PointToPoint>)
    if (net.end_cycle(t)) wd |= 4;
  end_cycle(t, wd);
}

// The end of cycle t: the watchdog (bits 0, 1 of wd: some NIC busy, some NIC's nq_wait;
// the link and memory movement is folded in by watchdog()), the clock, an RTL error (bit
// 2), which is reported with the cycle after t.
void System::end_cycle(uint64_t t, unsigned wd) {
  if ((wd & 3) != 1)
    wd_ok_ = t;
  else if (t - wd_ok_ >= wd_limit_)
    watchdog(t);
  now_ = t + 1;
  if (wd & 4) diag_.error(QRDMA_SIM_ERR_RTL, "%s", kRtlError);
}

void System::step(uint64_t cycles) {
  if (threaded_) {
    while (cycles) {
      const uint64_t q = quantum(cycles);
      run_quantum(q);
      cycles -= q;
    }
  } else {
    while (cycles--) cycle();
  }
  if (adapt_ && now_ >= win_end_) adapt();
}

// The quantum that may start at now_: at most `want` and kMaxQuantum cycles; no node may
// see another's output of the quantum inside it (Network::quantum_room; one cycle always
// can: every node sees the others as of its start, as in lockstep); and the watchdog can
// trip in its last cycle at the earliest, where every node has reached the end of the
// cycle as in lockstep: wd_ok_ + wd_limit_, or, after a trip that nothing has ended yet,
// wd_limit_ cycles after the first cycle that could end it.
uint64_t System::quantum(uint64_t want) {
  uint64_t q = std::min(std::min(want, kMaxQuantum), std::max<uint64_t>(net_->quantum_room(), 1));
  if (wd_limit_ != UINT64_MAX) {
    watchdog_fold();
    const uint64_t trip = (wd_ok_ == wd_trip_ok_ ? now_ : wd_ok_) + wd_limit_;
    q = std::min(q, trip >= now_ ? trip - now_ + 1 : 1);
  }
  return q;
}

void System::run_quantum(uint64_t q) {
  q_t0_ = now_;
  q_len_ = q;
  net_->sync();
  for (auto &n : nodes_) {
    n->log.keep(true);
    n->sig.clear();
    n->sig_end.clear();
  }
  crew_->run(&System::quantum_member, this, size());
  for (auto &n : nodes_) n->log.keep(false);
  fold_quantum();
}

// The automatic choice at the end of a window: the speed of the mode used in it; after a
// window that tried the other mode, the faster of the two; after probe_every_ windows, a
// window of the other mode.
void System::adapt() {
  const double t = now_ns();
  if (win_t0_ != 0) {
    const uint64_t cycles = now_ - (win_end_ - kAdaptWindow);
    ns_per_cycle_[threaded_] = (t - win_t0_) / static_cast<double>(cycles ? cycles : 1);
    if (probing_) {
      probing_ = false;
      const bool faster = ns_per_cycle_[1] <= ns_per_cycle_[0];
      probe_every_ = faster == threaded_ ? kAdaptProbe : std::min(2 * probe_every_, kAdaptProbeMax);
      threaded_ = faster;
    } else if (++since_probe_ >= probe_every_ || ns_per_cycle_[!threaded_] == 0) {
      since_probe_ = 0;
      probing_ = true;
      threaded_ = !threaded_;
    }
  }
  win_t0_ = t;
  win_end_ = now_ + kAdaptWindow;
}

// Node i's cycles of the quantum, on the crew member that claimed it.
void System::quantum_member(void *self, unsigned i) {
  System &s = *static_cast<System *>(self);
  Node &nd = *s.nodes_[i];
  if (s.p2p_)
    s.both_edges_ ? s.node_quantum<true>(nd, i, *s.p2p_) : s.node_quantum<false>(nd, i, *s.p2p_);
  else
    s.both_edges_ ? s.node_quantum<true>(nd, i, *s.net_) : s.node_quantum<false>(nd, i, *s.net_);
}

template <bool Both, class Net>
void System::node_quantum(Node &nd, unsigned i, Net &net) {
  const uint64_t t0 = q_t0_, q = q_len_;
  // the thread's Verilator context: where the runtime records an RTL error ($stop, $fatal,
  // an assertion) of the model it evaluates, which edge() then finds in the node's context
  Verilated::threadContextp(nd.ctx.get());
  for (uint64_t k = 0; k < q; ++k) {
    inputs<Both>(nd, i, net, t0 + k);
    nd.wd[k] = static_cast<uint8_t>(edge<Both, true>(nd, i, net, t0 + k));
  }
}

// After a quantum: what the nodes recorded, folded in cycle by cycle and node by node, as
// lockstep folds it: each node's errors, the signature, the watchdog's view, an RTL error.
// The last cycle ends as in lockstep (end_cycle): every node stands where lockstep leaves
// it, so a watchdog trip there dumps the same state; no trip is due before it (quantum()).
void System::fold_quantum() {
  const unsigned n = size();
  size_t at[QRDMA_SIM_NIC_NODES] = {};  // per node: its next kept error
  for (uint64_t k = 0; k < q_len_; ++k) {
    const uint64_t t = q_t0_ + k;
    unsigned wd = 0;
    for (unsigned i = 0; i < n; ++i) {
      Node &nd = *nodes_[i];
      const std::vector<NodeLog::Entry> &kept = nd.log.kept();
      for (; at[i] < kept.size() && kept[at[i]].t == t; ++at[i])
        diag_.record(t, kept[at[i]].cat, kept[at[i]].text.c_str());
      wd |= nd.wd[k];
    }
    if (opt_.signature) {
      for (unsigned i = 0; i < n; ++i) {
        const Node &nd = *nodes_[i];
        const uint32_t b = k ? nd.sig_end[k - 1] : 0, e = nd.sig_end[k];
        Fnv s{sig_ ^ t};
        s.put_bytes(nd.sig.data() + b, e - b);
        sig_ = s.h;
      }
    }
    now_ = t;
    if (k + 1 == q_len_) {
      end_cycle(t, wd);
    } else {
      if ((wd & 3) != 1) wd_ok_ = t;
      if (wd & 4) diag_.record(t + 1, QRDMA_SIM_ERR_RTL, kRtlError);
    }
  }
  for (auto &nd : nodes_) nd->log.kept().clear();
}

// ---- the watchdog

// wd_ok_ with the last link and memory movement folded in
void System::watchdog_fold() {
  for (auto &n : nodes_) {
    if (n->link_move > wd_ok_) wd_ok_ = n->link_move;
    if (n->mem.last_move() > wd_ok_) wd_ok_ = n->mem.last_move();
  }
}

// Cycles wd_ok_ + 1 .. t had a NIC busy and none waiting for a ring slot. A stall when
// no beat moved on a link or memory port in them either: then the dump, the error and
// (watchdog_exit) the exit. Runs once every watchdog_cycles in a moving system, every
// cycle in a stalled one.
void System::watchdog(uint64_t t) {
  watchdog_fold();
  if (t - wd_ok_ < wd_limit_ || wd_ok_ == wd_trip_ok_) return;  // moving, or tripped already
  wd_trip_ok_ = wd_ok_;
  std::string who;
  for (auto &n : nodes_)
    if (n->nic->busy)
      who += (who.empty() ? "" : ",") + std::to_string(&n - &nodes_[0]);
  fprintf(stderr,
          "qrdma_sim: watchdog: cycles %llu .. %llu (%llu) without a beat on any link or "
          "memory port while a NIC was busy and none waited for a notification ring slot; "
          "busy: node %s\n",
          (unsigned long long)(wd_ok_ + 1), (unsigned long long)t,
          (unsigned long long)(t - wd_ok_), who.c_str());
  dump_state();
  diag_.error(QRDMA_SIM_ERR_STALL,
              "watchdog: no beat moved in cycles %llu .. %llu while busy: node %s",
              (unsigned long long)(wd_ok_ + 1), (unsigned long long)t, who.c_str());
  if (!opt_.watchdog_exit) return;
#if QRDMA_SIM_TRACE
  for (auto &n : nodes_)
    if (n->vcd) n->vcd->close();
#endif
  fprintf(stderr, "qrdma_sim: watchdog: exit status %d\n", QRDMA_SIM_EXIT_STALL);
  fflush(nullptr);
  _exit(QRDMA_SIM_EXIT_STALL);  // from inside the cycle loop: no atexit handler runs
}

namespace {
// bits [lsb, lsb + w) of a wide port (w <= 32)
uint32_t port_bits(const uint32_t *words, unsigned lsb, unsigned w) {
  uint64_t two = words[lsb / 32];
  if (lsb % 32 + w > 32) two |= uint64_t(words[lsb / 32 + 1]) << 32;
  return static_cast<uint32_t>((two >> (lsb % 32)) & ((1ull << w) - 1));
}
}  // namespace

// The fields of nic_state (tools/formats.py) the dump shows, by their generated macros.
#define QRDMA_SIM_STATE_FIELDS(X)                                                         \
  X(XFERS, "xfers") X(TX_SLOTS, "tx_slots") X(TX_JOBS, "tx_jobs") X(TX_PAY, "tx_pay")     \
  X(TX_RSP, "tx_rsp") X(RX_BUF, "rx_buf") X(RX_PKTS, "rx_pkts") X(RX_EVTS, "rx_evts")     \
  X(RX_RSP, "rx_rsp") X(RX_NTF, "rx_ntf") X(RX_WR, "rx_wr")
#define QRDMA_SIM_STATE_CHECK(F, name)                                                    \
  static_assert(QRDMA_NIC_STATE_##F##_W <= 32 &&                                          \
                    QRDMA_NIC_STATE_##F##_LSB + QRDMA_NIC_STATE_##F##_W <= QRDMA_NIC_STATE_BITS, \
                "nic_state field " name ": at most 32 bits, inside the layout");
QRDMA_SIM_STATE_FIELDS(QRDMA_SIM_STATE_CHECK)
#undef QRDMA_SIM_STATE_CHECK
static_assert(sizeof(Vqrdma_nic::state) * 8 == QRDMA_NIC_STATE_BITS,
              "the NIC's state port is nic_state of qrdma_fmt.h");

void System::dump_state() const {
#define QRDMA_SIM_STATE_ROW(F, name) {name, QRDMA_NIC_STATE_##F##_LSB, QRDMA_NIC_STATE_##F##_W},
  static const struct {
    const char *name;
    unsigned lsb, w;
  } fields[] = {QRDMA_SIM_STATE_FIELDS(QRDMA_SIM_STATE_ROW)};
#undef QRDMA_SIM_STATE_ROW
  const uint64_t t = now_;
  for (unsigned i = 0; i < nodes_.size(); ++i) {
    const Node &nd = *nodes_[i];
    const Vqrdma_nic &r = *nd.nic;
    std::string line;
    char buf[96];
    for (const auto &f : fields) {
      snprintf(buf, sizeof buf, " %s=%u", f.name, port_bits(r.state.data(), f.lsb, f.w));
      line += buf;
    }
    fprintf(stderr, "qrdma_sim: node %u: busy=%u nq_wait=%u%s\n", i, unsigned(r.busy),
            unsigned(r.nq_wait), line.c_str());
    fprintf(stderr,
            "qrdma_sim: node %u: link: tx offers a beat %u, link takes %u; rx offered a beat "
            "%u, refused %u\n",
            i, unsigned(r.m_axis_tx_tvalid), unsigned(r.m_axis_tx_tready),
            unsigned(nd.rx_offered != nullptr),
            unsigned(nd.rx_offered != nullptr && !r.s_axis_rx_tready));
    for (unsigned k = 0; k < net_->link_count(); ++k) {
      LinkState l = net_->link_state(k, t);
      if (l.src == i) {
        const bool sw = l.dst >= QRDMA_SIM_SWITCH;  // the star: the link to its switch
        const unsigned to = sw ? l.dst - QRDMA_SIM_SWITCH : l.dst;
        const char *what = sw ? "switch" : "node";
        fprintf(stderr,
                "qrdma_sim: node %u: link to %s %u: %zu beats held, %zu of them arrived\n",
                i, what, to, l.held, l.arrived);
        if (const FaultLine *fl = net_->fault_line(k))
          fprintf(stderr, "qrdma_sim: node %u: link to %s %u: fault line holds %zu beats\n",
                  i, what, to, fl->held());
      }
    }
    fprintf(stderr,
            "qrdma_sim: node %u: mmio: %llu writes without B, %zu reads outstanding; memory: "
            "%zu read bursts, %zu write bursts, %zu W beats held\n",
            i, (unsigned long long)(nd.mmio.writes_posted() - nd.mmio.writes_answered()),
            nd.mmio.reads_outstanding(), nd.mem.reads_outstanding(),
            nd.mem.writes_outstanding(), nd.mem.write_beats_held());
    fprintf(stderr,
            "qrdma_sim: node %u: beats: tx %llu, rx %llu; memory AR %llu, R %llu, AW %llu, W "
            "%llu, B %llu (last in cycle %llu)\n",
            i, (unsigned long long)nd.tx_beats, (unsigned long long)nd.rx_beats,
            (unsigned long long)nd.mem.read_bursts(), (unsigned long long)nd.mem.read_beats(),
            (unsigned long long)nd.mem.write_bursts(), (unsigned long long)nd.mem.write_beats(),
            (unsigned long long)(nd.mem.write_resps(0) + nd.mem.write_resps(1) +
                                 nd.mem.write_resps(2) + nd.mem.write_resps(3)),
            (unsigned long long)nd.mem.last_move());
  }
  fprintf(stderr, "qrdma_sim: network %s: %llu packets dropped\n", net_->name(),
          (unsigned long long)net_->dropped_packets());
}

bool System::quiet() const {
  for (auto &n : nodes_)
    if (!n->mem.idle() || !n->mmio.idle()) return false;
  return net_->idle();
}

uint64_t System::mmio_read64(unsigned node, unsigned core, uint64_t off, int *resp) {
  MmioPort &p = nodes_[node]->mmio;
  if (p.reads_pending(core) || !p.post_read(core, off, p.issue_cycle(core, now_))) {
    if (p.reads_pending(core))
      diag_.error(QRDMA_SIM_ERR_API, "node %u core %u: a blocking read while a read is pending",
                  node, core);
    if (resp) *resp = -1;
    return 0;
  }
  uint64_t v = 0;
  unsigned r = 0;
  // the result cannot be back before read_done_bound(): step there at once
  while (!p.read_done(core, now_, &v, &r))
    step(std::max<uint64_t>(p.read_done_bound(core, now_) - now_, 1));
  ++nodes_[node]->mmio_reads;
  if (resp) *resp = static_cast<int>(r);
  return r ? 0 : v;
}

int System::mmio_write(unsigned node, unsigned core, uint64_t off, const void *bytes,
                       size_t len, bool blocking) {
  MmioPort &p = nodes_[node]->mmio;
  if (!blocking && p.reads_pending(core)) {
    diag_.error(QRDMA_SIM_ERR_API, "node %u core %u: a write while the core waits for a read",
                node, core);
    return -1;
  }
  // the core stalls for a write credit
  while (p.writes_posted(core) - p.writes_answered(core) >= opt_.mmio_max_posted) step(1);
  const uint64_t issue = p.issue_cycle(core, now_);
  int64_t seq = p.post_write(core, off, bytes, len, issue);
  if (seq < 0) return -1;
  p.set_clock(core, issue + opt_.mmio_wr_cycles);
  if (!blocking) return 0;
  step(issue + opt_.mmio_wr_cycles - now_);
  if (!opt_.mmio_sync_writes) return 0;
  while (p.writes_answered(core) <= static_cast<uint64_t>(seq)) step(1);
  int resp = static_cast<int>(p.last_bresp(core));
  step(opt_.mmio_rt_cycles - opt_.mmio_rt_cycles / 2);  // the response travels back
  return resp;
}

bool System::core_read_start(unsigned node, unsigned core, uint64_t off) {
  MmioPort &p = nodes_[node]->mmio;
  if (p.reads_pending(core)) {
    diag_.error(QRDMA_SIM_ERR_API, "node %u core %u: a read while a read is pending", node,
                core);
    return false;
  }
  return p.post_read(core, off, p.issue_cycle(core, now_));
}

int System::core_read_end(unsigned node, unsigned core, uint64_t *val, unsigned *resp) {
  MmioPort &p = nodes_[node]->mmio;
  if (!p.reads_pending(core)) return -1;
  if (!p.read_done(core, now_, val, resp)) return 0;
  ++nodes_[node]->mmio_reads;
  if (*resp) *val = 0;
  return 1;
}

bool System::core_pause(unsigned node, unsigned core) {
  MmioPort &p = nodes_[node]->mmio;
  if (p.reads_pending(core)) {
    diag_.error(QRDMA_SIM_ERR_API, "node %u core %u: a pause while a read is pending", node,
                core);
    return false;
  }
  p.set_clock(core, p.issue_cycle(core, now_) + 1);
  return true;
}

void System::core_idle(unsigned node) {
  const MmioPort &p = nodes_[node]->mmio;
  uint64_t t = ~0ull;
  for (unsigned k = 0; k < MmioPort::kMaxCores; ++k)
    if (p.reads_pending(k)) t = std::min(t, p.read_done_bound(k, now_));
  step(t == ~0ull || t <= now_ ? 1 : t - now_);
}

void System::mmio_drain(unsigned node) {
  MmioPort &p = nodes_[node]->mmio;
  while (p.writes_answered() < p.writes_posted()) step(1);
}

}  // namespace qsim
