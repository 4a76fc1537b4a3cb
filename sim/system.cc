// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// System: node construction, reset, the lockstep cycle loop and the CPU operations.
#include "system.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "Vqrdma_nic.h"
#include "Vqrdma_nic___024root.h"
#include "qrdma_fmt.h"
#include "verilated.h"

#ifndef QRDMA_SIM_NIC_NODES
#define QRDMA_SIM_NIC_NODES 4
#endif
#ifndef QRDMA_SIM_TRACE
#define QRDMA_SIM_TRACE 0
#endif
#ifndef QRDMA_SIM_FAST_EVAL
#define QRDMA_SIM_FAST_EVAL 0
#endif
#if QRDMA_SIM_FAST_EVAL
#include "Vqrdma_nic__Syms.h"
// The rising edge without Vqrdma_nic::eval(): eval() wraps the generated
// Vqrdma_nic___024root___eval in runtime bookkeeping that is a no-op for this model (three
// mutexes, ~100 instructions per call), and that in turn wraps the model's input and
// clocked functions in a scheduler that, on a rising clk edge, always calls them once each
// (~100 more). sim/check_fast_eval.py proves both from the generated code at every
// Verilation (sim/Makefile FAST_EVAL=1) and writes qrdma_fast_eval.h, whose
// qrdma_fast_eval_rise() calls exactly those functions; a Verilator that generates
// something else fails the check, a renamed function fails the link.
#include "qrdma_fast_eval.h"
#endif
#if QRDMA_SIM_TRACE
#include "verilated_vcd_c.h"
#endif

namespace qsim {

namespace {
// One evaluation per cycle (docs/sim.md "The cycle loop"): the falling edge is not
// evaluated, only recorded as the clock value the model last saw, so that the next rising
// edge triggers. This needs the model's trigger state, an internal of the Verilated class;
// with a Verilator that names it differently the harness falls back to evaluating both
// edges (the result is the same, only slower).
template <typename R>
auto record_fall(R *r, int) -> decltype(r->__Vtrigprevexpr___TOP__clk__0 = 0, bool()) {
  r->__Vtrigprevexpr___TOP__clk__0 = 0;
  return true;
}
template <typename R>
bool record_fall(R *, long) {
  return false;
}

// The rising edge's evaluation in the one-evaluation flow (see QRDMA_SIM_FAST_EVAL above);
// the model must have been evaluated once through eval() (its initialisation), which
// System's constructor does and checks.
inline void eval_fast(Vqrdma_nic &m) {
#if QRDMA_SIM_FAST_EVAL
  qrdma_fast_eval_rise(m.rootp);
#else
  m.eval();
#endif
}
bool fast_eval_ready(const Vqrdma_nic &m) {
#if QRDMA_SIM_FAST_EVAL
  return m.threads() == 1 && m.rootp->vlSymsp->__Vm_didInit;
#else
  (void)m;
  return true;
#endif
}

// A beat taken from node i's m_axis_tx: filled in place in a PointToPoint link, through a
// local Beat and tx_push otherwise (the same beat reaches the link either way).
inline Beat &tx_slot(PointToPoint &net, unsigned i, Beat &) { return net.tx_slot(i); }
inline Beat &tx_slot(Network &, unsigned, Beat &local) { return local; }
inline void tx_commit(PointToPoint &net, unsigned i, Beat &, uint64_t t) { net.tx_commit(i, t); }
inline void tx_commit(Network &net, unsigned i, Beat &b, uint64_t t) { net.tx_push(i, b, t); }
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

Node::Node(unsigned index, const qrdma_sim_options &o, VerilatedContext *ctx, Diag &diag)
    : nic(new Vqrdma_nic(ctx, ("node" + std::to_string(index)).c_str())),
      mem(index, o.mem_bytes, o.mem_rd_latency, o.mem_wr_latency, o.mem_max_bursts, diag),
      mmio(index, o.mmio_rt_cycles, diag),
      alloc(o.mem_bytes > 4096 ? 4096 : 0, o.mem_bytes) {}

Node::~Node() {
#if QRDMA_SIM_TRACE
  if (vcd) {
    vcd->close();
    delete vcd;
  }
#endif
}

System::System(unsigned nodes, const qrdma_sim_options &opt)
    : opt_(opt), ctx_(new VerilatedContext) {
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
  ctx_->fatalOnError(false);  // an RTL $fatal / assertion is reported, not exit()ed
#if QRDMA_SIM_TRACE
  if (opt_.trace) ctx_->traceEverOn(true);
#else
  if (opt_.trace) throw std::invalid_argument("options.trace needs a TRACE=1 build");
#endif
  for (unsigned i = 0; i < nodes; ++i) nodes_.emplace_back(new Node(i, opt_, ctx_.get(), diag_));
#if QRDMA_SIM_TRACE
  if (opt_.trace) {
    for (unsigned i = 0; i < nodes; ++i) {
      Node &nd = *nodes_[i];
      nd.vcd = new VerilatedVcdC;
      nd.nic->trace(nd.vcd, 99);
      nd.vcd->open((std::string(opt_.trace) + ".node" + std::to_string(i) + ".vcd").c_str());
    }
  }
#endif
  if (nodes <= 2)
    net_.reset(p2p_ = new PointToPoint(nodes, opt_.link_latency, depth));
  else
    net_.reset(new SimpleRouter(nodes, opt_.link_latency, depth));

  both_edges_ = opt_.eval_both_edges || QRDMA_SIM_TRACE;
  for (auto &n : nodes_) {
    Vqrdma_nic &m = *n->nic;
    m.node_id = static_cast<uint16_t>(&n - &nodes_[0]);
    m.tx_pause = 0;
    m.rst = 1;
    m.clk = 0;
    m.eval();  // outputs settle before the first cycle samples them
    if (!record_fall(m.rootp, 0)) both_edges_ = true;
    if (!fast_eval_ready(m)) both_edges_ = true;
  }
  step(opt_.reset_cycles ? opt_.reset_cycles : 1);
  for (auto &n : nodes_) n->nic->rst = 0;
  // `ready` covers the QoS engine (ID pools filled); the receive unit clears its block
  // table in NUM_NODES * 1024 cycles after rst (rtl/rx/qrdma_rx.sv) without a port that
  // tells, and holds packets meanwhile: wait for both, so that no transfer measured
  // through the harness pays the initialisation.
  const uint64_t rx_init_done = now_ + uint64_t(QRDMA_SIM_NIC_NODES) * 1024 + 16;
  const uint64_t limit = now_ + 100000;
  for (;;) {
    bool all = true;
    for (auto &n : nodes_) all = all && n->nic->ready;
    if (all && now_ >= rx_init_done) break;
    if (now_ >= limit) throw std::runtime_error("NICs not ready 100000 cycles after reset");
    cycle();
  }
  // the watchdog watches from here on
  wd_ok_ = now_;
  if (opt_.watchdog_cycles) wd_limit_ = opt_.watchdog_cycles;
}

System::~System() {
  for (auto &n : nodes_) n->nic->final();
}

template <bool Both, class Net>
void System::cycle_on(Net &net) {
  const uint64_t t = now_;
  const unsigned n = static_cast<unsigned>(nodes_.size());
  // locals: the calls below are opaque, members would be reloaded after each
  std::unique_ptr<Node> *const nodes = nodes_.data();
  constexpr bool both = Both;  // both_edges_
  const bool signature = opt_.signature;
  // the watchdog's view of the cycle (NIC outputs as the last rising edge left them): bit 0
  // some NIC busy, bit 1 some NIC's nq_wait
  unsigned wd = 0;
  // 1. inputs of cycle t (and, evaluating both edges, the falling edge). With one
  // evaluation per cycle the memory and MMIO models drive their inputs in step 2, right
  // before they sample: the model is not evaluated in between, and they depend on no
  // other node, so the handshakes are the same.
  for (unsigned i = 0; i < n; ++i) {
    Node &nd = *nodes[i];
    Vqrdma_nic &m = *nd.nic;
    Vqrdma_nic___024root &r = *m.rootp;  // its ports as members: one load fewer each
    if (both) {
      nd.mem.drive(r, t);
      nd.mmio.drive(r, t);
    }
    r.m_axis_tx_tready = net.tx_ready(i, t);
    const Beat *rb = net.rx_peek(i, t);
    nd.rx_offered = rb;
    if (rb) {
      memcpy(r.s_axis_rx_tdata.data(), rb->data, sizeof rb->data);
      r.s_axis_rx_tkeep = rb->keep;
      r.s_axis_rx_tuser = rb->user;
      r.s_axis_rx_tlast = rb->last;
      r.s_axis_rx_tvalid = 1;
    } else {
      r.s_axis_rx_tvalid = 0;
    }
    if (both) {
      r.clk = 0;
      m.eval();
#if QRDMA_SIM_TRACE
      if (nd.vcd) nd.vcd->dump(5000 * t + 2500);  // in ps at 200 MHz: falling edge mid-cycle
#endif
    }
  }
  // 2. handshakes of cycle t, rising edge
  for (unsigned i = 0; i < n; ++i) {
    Node &nd = *nodes[i];
    Vqrdma_nic &m = *nd.nic;
    Vqrdma_nic___024root &r = *m.rootp;  // its ports as members: one load fewer each
    if (both) {
      nd.mem.sample(r, t);
      nd.mmio.sample(r, t);
    } else {
      nd.mem.cycle(r, t);
      nd.mmio.cycle(r, t);
    }
    wd |= r.busy | r.nq_wait << 1;  // outputs of cycle t: the rising edge comes below
    if (r.m_axis_tx_tvalid && r.m_axis_tx_tready) {
      Beat b;
      Beat &s = tx_slot(net, i, b);  // PointToPoint: the link's own slot, no second copy
      memcpy(s.data, r.m_axis_tx_tdata.data(), sizeof s.data);
      s.keep = r.m_axis_tx_tkeep;
      s.user = r.m_axis_tx_tuser;
      s.last = r.m_axis_tx_tlast;
      tx_commit(net, i, s, t);
      ++nd.tx_beats;
    }
    if (nd.rx_offered && r.s_axis_rx_tready) {
      net.rx_pop(i, t);
      ++nd.rx_beats;
    }
    if (signature) sign(nd);
    r.clk = 1;
    if (both) {  // the reference flow: public API only
      m.eval();
#if QRDMA_SIM_TRACE
      if (nd.vcd) nd.vcd->dump(5000 * t + 5000);
#endif
    } else {
      eval_fast(m);
      r.clk = 0;
      record_fall(m.rootp, 0);
    }
  }
  net.tick(t);
  // link and memory movement is folded in by watchdog() (Network and HostMem last_move)
  if (wd != 1)
    wd_ok_ = t;
  else if (t - wd_ok_ >= wd_limit_)
    watchdog(t);
  now_ = t + 1;
  if (ctx_->gotError()) {
    diag_.error(QRDMA_SIM_ERR_RTL, "RTL error ($fatal or assertion) in a NIC model");
    ctx_->gotError(false);
  }
}

namespace {
// FNV-1a over the bytes of one value
template <typename T>
inline uint64_t fold(uint64_t h, const T &v) {
  const unsigned char *p = reinterpret_cast<const unsigned char *>(&v);
  for (size_t k = 0; k < sizeof v; ++k) h = (h ^ p[k]) * 0x100000001b3ull;
  return h;
}
}  // namespace

// Every output of the NIC in this cycle that means something: each valid, its payload
// while valid, and each ready the NIC drives where the harness offers a valid.
void System::sign(const Node &nd) {
  const Vqrdma_nic &m = *nd.nic;
  uint64_t h = sig_ ^ now_;
  h = fold(h, m.ready);
  // host port (AXI4 slave): readies against the harness's valids, B and R channels
  h = fold(h, uint8_t(m.s_axi_awready && m.s_axi_awvalid));
  h = fold(h, uint8_t(m.s_axi_wready && m.s_axi_wvalid));
  h = fold(h, uint8_t(m.s_axi_arready && m.s_axi_arvalid));
  h = fold(h, m.s_axi_bvalid);
  if (m.s_axi_bvalid) h = fold(fold(h, m.s_axi_bid), m.s_axi_bresp);
  h = fold(h, m.s_axi_rvalid);
  if (m.s_axi_rvalid)
    h = fold(fold(fold(fold(h, m.s_axi_rid), m.s_axi_rresp), m.s_axi_rlast), m.s_axi_rdata);
  // memory port (AXI4 master)
  h = fold(h, m.m_axi_awvalid);
  if (m.m_axi_awvalid)
    h = fold(fold(fold(fold(fold(h, m.m_axi_awid), m.m_axi_awaddr), m.m_axi_awlen),
                  m.m_axi_awsize), m.m_axi_awburst);
  h = fold(h, m.m_axi_wvalid);
  if (m.m_axi_wvalid) h = fold(fold(fold(h, m.m_axi_wdata), m.m_axi_wstrb), m.m_axi_wlast);
  h = fold(h, uint8_t(m.m_axi_bready && m.m_axi_bvalid));
  h = fold(h, m.m_axi_arvalid);
  if (m.m_axi_arvalid)
    h = fold(fold(fold(fold(fold(h, m.m_axi_arid), m.m_axi_araddr), m.m_axi_arlen),
                  m.m_axi_arsize), m.m_axi_arburst);
  h = fold(h, uint8_t(m.m_axi_rready && m.m_axi_rvalid));
  // link
  h = fold(h, m.m_axis_tx_tvalid);
  if (m.m_axis_tx_tvalid)
    h = fold(fold(fold(fold(h, m.m_axis_tx_tdata), m.m_axis_tx_tkeep), m.m_axis_tx_tuser),
             m.m_axis_tx_tlast);
  h = fold(h, uint8_t(m.s_axis_rx_tready && m.s_axis_rx_tvalid));
  sig_ = h;
}

// Cycles wd_ok_ + 1 .. t had a NIC busy and none waiting for a ring slot. A stall when
// no beat moved on a link or memory port in them either: then the dump, the error and
// (watchdog_exit) the exit. Runs once every watchdog_cycles in a moving system, every
// cycle in a stalled one.
void System::watchdog(uint64_t t) {
  if (net_->last_move() > wd_ok_) wd_ok_ = net_->last_move();
  for (auto &n : nodes_)
    if (n->mem.last_move() > wd_ok_) wd_ok_ = n->mem.last_move();
  if (t - wd_ok_ < wd_limit_ || wd_ok_ == wd_trip_ok_) return;  // moving, or tripped already
  wd_trip_ok_ = wd_ok_;
  std::string who;
  for (auto &n : nodes_)
    if (n->nic->rootp->busy)
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
static_assert(sizeof(Vqrdma_nic___024root::state) * 8 == QRDMA_NIC_STATE_BITS,
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
    const Vqrdma_nic___024root &r = *nd.nic->rootp;
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
      if (l.src == i && (l.dst != i || nodes_.size() == 1))  // the router's self links: unused
        fprintf(stderr,
                "qrdma_sim: node %u: link to node %u: %zu beats held, %zu of them arrived\n",
                i, l.dst, l.held, l.arrived);
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

uint64_t System::mmio_read64(unsigned node, uint64_t off, int *resp) {
  MmioPort &p = nodes_[node]->mmio;
  if (!p.post_read(off, now_)) {
    if (resp) *resp = -1;
    return 0;
  }
  uint64_t v = 0;
  unsigned r = 0;
  while (!p.read_done(now_, &v, &r)) cycle();
  ++nodes_[node]->mmio_reads;
  if (resp) *resp = static_cast<int>(r);
  return r ? 0 : v;
}

int System::mmio_write(unsigned node, uint64_t off, const void *bytes, size_t len) {
  MmioPort &p = nodes_[node]->mmio;
  while (p.writes_posted() - p.writes_answered() >= opt_.mmio_max_posted) cycle();
  int64_t seq = p.post_write(off, bytes, len, now_);
  if (seq < 0) return -1;
  step(opt_.mmio_wr_cycles);
  if (!opt_.mmio_sync_writes) return 0;
  while (p.writes_answered() <= static_cast<uint64_t>(seq)) cycle();
  int resp = static_cast<int>(p.last_bresp());
  step(opt_.mmio_rt_cycles - opt_.mmio_rt_cycles / 2);  // the response travels back
  return resp;
}

void System::mmio_drain(unsigned node) {
  MmioPort &p = nodes_[node]->mmio;
  while (p.writes_answered() < p.writes_posted()) cycle();
}

}  // namespace qsim
