// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// fuzz_host: random AXI4 transactions on the host port of qrdma_qos_engine (Verilator C++
// bench; docs/qos.md "Fuzzing the host port"). A master issues random bursts over the whole
// address window (every AxLEN, AxSIZE, AxBURST, WSTRB, ID; several outstanding; AW and W in
// either order; random gaps and backpressure) mixed with well-formed descriptors; the bench
// is the network (ACKs every block and inline packet after a random delay, a few NACKs) and
// the external register block. Checked: AXI4 slave protocol (one B per AW after all its W
// beats, ARLEN+1 R beats with RLAST on the last, IDs, order per ID, VALID and payload held
// until READY), no hang, the refusals that depend on the beat alone (R1-R5 and the register
// window rules: SLVERR), read data (replicated lanes, 0 on SLVERR); afterwards known good
// descriptors on known channels give the right blocks / packets and end DONE, and the
// engine's output counters equal the outputs taken.
//
// Usage: fuzz_host <transactions> <seed>; exits 1 with a message on the first violation.
// FUZZ_TRACE=1 prints every B response (cycle, ID, burst, BRESP).
#include "Vqrdma_qos_engine.h"
#include "verilated.h"

#include "qrdma_fmt.h"
#include "qrdma_regs.h"

#include <algorithm>
#include <array>
#include <cstdarg>
#include <cstddef>
#include <functional>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#ifndef HOST_DATA_W
#define HOST_DATA_W 256
#endif
#ifndef HOST_ID_W
#define HOST_ID_W 4
#endif
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 65536
#endif

namespace {

constexpr unsigned DB = HOST_DATA_W / 8;              // bus bytes
constexpr unsigned NIDS = 1u << HOST_ID_W;
constexpr uint32_t AMASK = (1u << QRDMA_ADDR_W) - 1;
constexpr uint32_t EXT_SPAN = 4096;                    // qrdma_qos_engine's external window
constexpr uint32_t ENG_BYTES = sizeof(qrdma_eng_csr_t);
constexpr uint32_t LINE = QRDMA_DESC_LINE_BYTES;
constexpr uint32_t WR_LINES = QRDMA_WR_CH_PER_PAGE * LINE;   // write channels' lines in a page
constexpr uint32_t LINES = QRDMA_CH_PER_PAGE * LINE;         // all channels' lines (read channels' after WR_LINES)
constexpr unsigned NCH = QRDMA_CH_PER_PAGE;                  // channels per page, write and read
constexpr unsigned BURST_INCR = 1;
constexpr unsigned OKAY = 0, SLVERR = 2;
constexpr uint64_t BOUND = 100000;                     // cycles any request may wait
constexpr unsigned EXT_REGS = 16, EXT_READABLE = 12, EXT_WRITABLE = 6;

// ---------------------------------------------------------------- random numbers
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t next() {  // splitmix64
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }
  bool pct(unsigned p) { return below(100) < p; }
  bool one_in(unsigned n) { return below(n) == 0; }
};

Vqrdma_qos_engine *top;
uint64_t now = 0;
uint64_t seed_g = 0;

[[noreturn]] void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::fprintf(stderr, "FAIL cycle %" PRIu64 ": ", now);
  std::vfprintf(stderr, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, " (replay with QRDMA_SEED=%" PRIu64 ")\n", seed_g);
  std::exit(1);
}

// ---------------------------------------------------------------- wide signals
template <typename W> void wide_to_bytes(const W &w, uint8_t *buf, unsigned nbytes) {
  for (unsigned i = 0; i < nbytes; i++) buf[i] = static_cast<uint8_t>(w[i / 4] >> (8 * (i % 4)));
}
template <typename W> void bytes_to_wide(W &w, const uint8_t *buf, unsigned nbytes) {
  for (unsigned i = 0; i < nbytes / 4; i++)
    w[i] = static_cast<uint32_t>(buf[4 * i]) | static_cast<uint32_t>(buf[4 * i + 1]) << 8 |
           static_cast<uint32_t>(buf[4 * i + 2]) << 16 | static_cast<uint32_t>(buf[4 * i + 3]) << 24;
}

// ---------------------------------------------------------------- address decode
enum Cls { C_SLV, C_STATE, C_EXT_OK, C_EXT_ERR, C_RD_STATUS, C_RD_COLL, C_RD_ERR, C_RD_ENG };

bool ext_readable(uint32_t off) {
  return off >= QRDMA_NIC_REG_FIRST && off % 8 == 0 && (off - QRDMA_NIC_REG_FIRST) / 8 < EXT_READABLE;
}
bool ext_writable(uint32_t off) {
  return off >= QRDMA_NIC_REG_FIRST && off % 8 == 0 && (off - QRDMA_NIC_REG_FIRST) / 8 < EXT_WRITABLE;
}

uint32_t lane_mask(uint32_t a, unsigned size) {  // bytes a beat of 1 << size bytes at a addresses
  uint32_t n = 1u << size, lo = a % DB;
  uint64_t m = ((n >= 32 ? 0xFFFFFFFFull : ((1ull << n) - 1))) << lo;
  return static_cast<uint32_t>(m & ((DB >= 32) ? 0xFFFFFFFFull : ((1ull << DB) - 1)));
}

// A write beat (docs/qos.md "Refusal reasons": R1-R5; the register window).
Cls write_beat_cls(uint32_t a, unsigned size, unsigned burst, uint32_t strb) {
  if (size < 3 || (1u << size) > DB) return C_SLV;                        // R1
  if (burst != BURST_INCR) return C_SLV;                                   // R2
  if (a % (1u << size)) return C_SLV;                                      // R3
  if (strb != lane_mask(a, size)) return C_SLV;                            // R4
  if (a < QRDMA_REG_BASE) return (a % QRDMA_PAGE_STRIDE) < LINES ? C_STATE : C_SLV;  // R5
  uint32_t r = a - QRDMA_REG_BASE;
  if (r >= QRDMA_NIC_REG_FIRST && r < EXT_SPAN && size == 3)
    return ext_writable(r) ? C_EXT_OK : C_EXT_ERR;
  return C_SLV;                                                            // R5
}

// A read beat ("Reads: 64-bit only").
Cls read_beat_cls(uint32_t a, unsigned size, unsigned burst) {
  if (size != 3 || burst != BURST_INCR || a % 8) return C_SLV;
  if (a < QRDMA_REG_BASE) {
    uint32_t o = a % QRDMA_PAGE_STRIDE;
    if (o >= QRDMA_STATUS_OFFSET && o < QRDMA_STATUS_OFFSET + 8 * NCH) return C_RD_STATUS;
    if (o >= QRDMA_COLL_OFFSET && o < QRDMA_COLL_OFFSET + 8 * (NCH / 32)) return C_RD_COLL;
    if (o >= QRDMA_ERR_OFFSET && o < QRDMA_ERR_OFFSET + 8 * NCH) return C_RD_ERR;
    return C_SLV;
  }
  uint32_t r = a - QRDMA_REG_BASE;
  if (r < ENG_BYTES) return C_RD_ENG;
  if (r >= QRDMA_NIC_REG_FIRST && r < EXT_SPAN) return ext_readable(r) ? C_EXT_OK : C_EXT_ERR;
  return C_SLV;
}

uint32_t next_addr(uint32_t a, unsigned step_log2) {  // INCR beat addresses (qrdma_burst_seq)
  uint32_t step = 1u << step_log2;
  return ((a & ~(step - 1)) + step) & AMASK;
}

// ---------------------------------------------------------------- the master's transactions
enum Expect { E_OKAY, E_SLVERR, E_EITHER };

struct Beat {
  std::array<uint8_t, DB> data;
  uint32_t strb;
};

struct WBurst {
  uint32_t id, addr;
  unsigned len, size, burst;
  std::vector<Beat> beats;
  Expect expect;
  unsigned wsent = 0;
  uint64_t aw_cycle = 0, wlast_cycle = 0;
  bool aw_done = false, b_done = false;
  int tag = -1;  // index of a known-good write (final phase), else -1
  unsigned resp = 0;
};

struct RBurst {
  uint32_t id, addr;
  unsigned len, size, burst;
  std::vector<Cls> cls;
  unsigned got = 0;
  uint64_t ar_cycle = 0;
  std::vector<uint64_t> data;  // the values read (final phase)
  std::vector<unsigned> resp;
};

struct Stats {
  uint64_t writes = 0, reads = 0, descs = 0, w_okay = 0, w_slverr = 0, w_predicted_slverr = 0;
  uint64_t r_beats = 0, r_slverr = 0, blocks = 0, inl = 0, ctrl = 0, announce = 0, acks = 0, nacks = 0;
  uint64_t ext_wr = 0, ext_rd = 0;
};
Stats st;

// ---------------------------------------------------------------- ext register block model
struct Ext {
  std::array<uint64_t, EXT_REGS> val{};
  std::array<std::deque<uint64_t>, EXT_REGS> hist;
  Ext() {
    for (unsigned k = 0; k < EXT_REGS; k++) {
      val[k] = 0xE0000000ull + k;
      hist[k].push_back(val[k]);
    }
  }
  bool known(unsigned k, uint64_t v) const {
    for (uint64_t h : hist[k])
      if (h == v) return true;
    return false;
  }
};
Ext ext;

// ---------------------------------------------------------------- the bench
struct Ack {
  uint64_t due;
  uint32_t word;
  bool operator>(const Ack &o) const { return due > o.due; }
};

struct Knobs {  // one phase's rates (percent)
  unsigned aw_gap = 10, w_gap = 10, ar_gap = 10, bready = 90, rready = 90, blk_ready = 90,
           pkt_ready = 90, ack_gap = 10, ack_delay = 20, max_out = 8, nack_per_mille = 4;
};

struct Bench {
  Rng rng;
  Knobs k;
  std::deque<std::unique_ptr<WBurst>> wall;   // generated write bursts until their B
  std::deque<WBurst *> awq, wq;               // waiting for AW / for W beats
  std::array<std::deque<WBurst *>, NIDS> bq;  // AW done, B awaited, per ID
  std::deque<std::unique_ptr<RBurst>> rall;
  std::deque<RBurst *> arq;
  std::array<std::deque<RBurst *>, NIDS> rq;
  size_t w_open = 0, r_open = 0;
  std::priority_queue<Ack, std::vector<Ack>, std::greater<Ack>> acks;
  bool ack_on = false;
  uint32_t ack_word = 0;
  bool nack_enabled = true;
  bool was_ready = false;
  uint64_t aw_wait = 0, w_wait = 0, ar_wait = 0, last_net = 0;
  // previous cycle's B / R outputs (stability)
  bool pb_v = false, pb_r = false, pr_v = false, pr_r = false;
  uint32_t pb_id = 0, pb_resp = 0, pr_id = 0, pr_resp = 0, pr_last = 0;
  std::array<uint32_t, HOST_DATA_W / 32> pr_data{};
  // outputs seen in the final phase, by xfer
  bool record = false;
  bool trace = std::getenv("FUZZ_TRACE") != nullptr;
  std::map<unsigned, std::vector<std::vector<uint8_t>>> blk_seen, pkt_seen;

  explicit Bench(uint64_t seed) : rng(seed) {}

  // ------------------------------------------------------------ generation
  unsigned pick_len() {
    unsigned r = rng.below(100);
    if (r < 70) return 0;
    if (r < 90) return 1 + rng.below(3);
    if (r < 97) return 4 + rng.below(12);
    return 16 + rng.below(240);
  }

  uint32_t pick_addr() {
    unsigned r = rng.below(100);
    uint32_t page = rng.below(QRDMA_NUM_PAGES) * QRDMA_PAGE_STRIDE;
    // descriptor lines, mostly of a few channels so that partial lines get completed and
    // free their page again
    if (r < 35) return page + (rng.pct(70) ? rng.below(4) : rng.below(QRDMA_WR_CH_PER_PAGE)) * LINE + 8 * rng.below(4);
    if (r < 42) return page + WR_LINES + rng.below(QRDMA_WR_CH_PER_PAGE) * LINE + 8 * rng.below(4);
    if (r < 50) return page + QRDMA_STATUS_OFFSET + 8 * rng.below(NCH + 4);
    if (r < 55) return page + QRDMA_COLL_OFFSET + 8 * rng.below(NCH / 32 + 2);
    if (r < 60) return page + QRDMA_ERR_OFFSET + 8 * rng.below(NCH + 4);
    if (r < 65) return QRDMA_REG_BASE + 8 * rng.below(ENG_BYTES / 8 + 4);
    if (r < 77) return QRDMA_REG_BASE + QRDMA_NIC_REG_FIRST + 8 * rng.below(EXT_REGS + 4);
    if (r < 82) return QRDMA_REG_BASE + 8 * rng.below(EXT_SPAN / 8);
    if (r < 87) return page + QRDMA_ERR_OFFSET + 8 * NCH + rng.below(QRDMA_PAGE_STRIDE - QRDMA_ERR_OFFSET - 8 * NCH);
    if (r < 92) return QRDMA_REG_BASE + EXT_SPAN + rng.below((AMASK + 1) - QRDMA_REG_BASE - EXT_SPAN);
    return rng.below(AMASK + 1);
  }

  unsigned pick_size() {
    if (rng.pct(75)) return 3 + rng.below(DB == 32 ? 3 : 2);
    return rng.below(8);
  }

  void push_write(std::unique_ptr<WBurst> b) {
    // expected response from the beats alone
    bool slv = false, state = false, ext_err = false;
    uint32_t a = b->addr;
    for (unsigned i = 0; i <= b->len; i++) {
      switch (write_beat_cls(a, b->size, b->burst, b->beats[i].strb)) {
        case C_SLV: slv = true; break;
        case C_STATE: state = true; break;
        case C_EXT_ERR: ext_err = true; break;
        default: break;
      }
      a = next_addr(a, b->size);
    }
    b->expect = slv ? E_SLVERR : state ? E_EITHER : ext_err ? E_SLVERR : E_OKAY;
    if (b->expect == E_SLVERR) st.w_predicted_slverr++;
    awq.push_back(b.get());
    wq.push_back(b.get());
    wall.push_back(std::move(b));
    w_open++;
    st.writes++;
  }

  void random_write() {
    auto b = std::make_unique<WBurst>();
    b->id = rng.below(NIDS);
    b->len = pick_len();
    b->size = pick_size();
    b->burst = rng.pct(90) ? BURST_INCR : rng.below(4);
    b->addr = pick_addr();
    if (!rng.pct(85)) b->addr = (b->addr + rng.below(64)) & AMASK;
    else b->addr &= ~((1u << b->size) - 1);
    bool raw = rng.one_in(1000);
    uint32_t a = b->addr;
    for (unsigned i = 0; i <= b->len; i++) {
      Beat bt;
      for (auto &x : bt.data) x = static_cast<uint8_t>(rng.next());
      // a line's size field with its top byte set (size above 2^32: D2) unless raw, so
      // that random lines rarely start giant transfers
      unsigned base = (a % LINE) - (a % DB < a % LINE ? a % DB : a % LINE);
      for (unsigned l = 0; l < DB; l++)
        if (base + l == 20 && !raw) bt.data[l] |= 0x02;
      unsigned r = rng.below(100);
      uint32_t full = DB >= 32 ? 0xFFFFFFFFu : ((1u << DB) - 1);
      if (r < 80) bt.strb = (b->size <= 7 && (1u << b->size) <= DB) ? lane_mask(a, b->size) : full;
      else if (r < 88) bt.strb = full;
      else if (r < 94) bt.strb = lane_mask(a, b->size) ^ (1u << rng.below(DB));
      else bt.strb = static_cast<uint32_t>(rng.next()) & full;
      b->beats.push_back(bt);
      a = next_addr(a, b->size);
    }
    push_write(std::move(b));
  }

  void random_read() {
    auto b = std::make_unique<RBurst>();
    b->id = rng.below(NIDS);
    b->len = pick_len();
    b->size = rng.pct(80) ? 3 : rng.below(8);
    b->burst = rng.pct(90) ? BURST_INCR : rng.below(4);
    b->addr = pick_addr();
    if (!rng.pct(90)) b->addr = (b->addr + rng.below(16)) & AMASK;
    else b->addr &= ~7u;
    push_read(std::move(b));
  }

  void push_read(std::unique_ptr<RBurst> b) {
    uint32_t a = b->addr;
    for (unsigned i = 0; i <= b->len; i++) {
      b->cls.push_back(read_beat_cls(a, b->size, b->burst));
      a = next_addr(a, 3);
    }
    arq.push_back(b.get());
    rall.push_back(std::move(b));
    r_open++;
    st.reads++;
  }

  // bytes of a region written as INCR bursts of 1 << size-byte beats (full strobes)
  void write_region(uint32_t addr, const uint8_t *bytes, unsigned n, unsigned size, int tag,
                    bool one_burst) {
    unsigned step = 1u << size;
    unsigned beats_per = one_burst ? n / step : 1;
    for (unsigned off = 0; off < n; off += beats_per * step) {
      auto b = std::make_unique<WBurst>();
      b->id = rng.below(NIDS);
      b->addr = addr + off;
      b->len = beats_per - 1;
      b->size = size;
      b->burst = BURST_INCR;
      b->tag = tag;
      for (unsigned i = 0; i < beats_per; i++) {
        uint32_t a = b->addr + i * step;
        Beat bt{};
        for (unsigned l = 0; l < step; l++) bt.data[a % DB + l] = bytes[off + i * step + l];
        bt.strb = lane_mask(a, size);
        b->beats.push_back(bt);
      }
      push_write(std::move(b));
    }
  }

  struct Desc {
    unsigned page, ch;
    uint64_t src, dst, size;
    unsigned node, prio, tag, rkey;
    bool inl, notify, multipath, lng, hold, start;
    std::array<uint8_t, 2 * LINE> line{};  // line 0, line 1
  };

  void encode(Desc &d) {
    uint8_t *l0 = d.line.data(), *l1 = d.line.data() + LINE;
    QRDMA_DESC_LINE0_SRC_ADDR_PUT(l0, d.src);
    QRDMA_DESC_LINE0_DST_ADDR_PUT(l0, d.dst);
    QRDMA_DESC_LINE0_SIZE_PUT(l0, d.size);
    QRDMA_DESC_LINE0_DST_NODE_PUT(l0, d.node);
    QRDMA_DESC_LINE0_PRIO_PUT(l0, d.prio);
    QRDMA_DESC_LINE0_IS_INLINE_PUT(l0, d.inl);
    QRDMA_DESC_LINE0_NOTIFY_PUT(l0, d.notify);
    QRDMA_DESC_LINE0_MULTIPATH_PUT(l0, d.multipath);
    QRDMA_DESC_LINE0_LONG_DESC_PUT(l0, d.lng);
    QRDMA_DESC_LINE0_HOLD_PUT(l0, d.hold);
    QRDMA_DESC_LINE0_START_PUT(l0, d.start);
    QRDMA_DESC_LINE0_TAG_PUT(l0, d.tag);
    if (d.lng) QRDMA_DESC_LINE1_RKEY_PUT(l1, d.rkey);
  }

  Desc random_desc() {
    Desc d{};
    d.page = rng.below(QRDMA_NUM_PAGES);
    unsigned kind = rng.below(4);  // short memory, long memory, short inline, long inline
    d.lng = kind == 1 || kind == 3;
    d.inl = kind >= 2;
    d.ch = rng.below(NCH) & (d.lng ? ~1u : ~0u);
    d.src = rng.next();
    d.dst = rng.next();
    if (d.inl) d.size = kind == 2 ? 1 + rng.below(QRDMA_INLINE_SHORT_MAX)
                                  : 1 + rng.below(QRDMA_INLINE_MAX);
    else d.size = rng.pct(70) ? 1 + rng.below(2 * BLOCK_SIZE) : 1 + rng.below(16 * BLOCK_SIZE);
    d.node = rng.below(1u << 16);
    d.prio = rng.below(16);
    d.notify = rng.pct(30);
    d.multipath = rng.pct(30);
    d.hold = rng.pct(10);   // clustering: held until a start on the page
    d.start = rng.pct(5);
    d.tag = static_cast<unsigned>(rng.next());
    d.rkey = static_cast<unsigned>(rng.next());
    // a read channel's: a read descriptor (no inline payload, no notify), 1 in 20 not (D7)
    if (d.ch >= QRDMA_WR_CH_PER_PAGE && !rng.pct(5)) d.inl = d.notify = false;
    encode(d);
    if (d.lng)
      for (unsigned i = 0; i < 24; i++) d.line[LINE + i] = static_cast<uint8_t>(rng.next());
    return d;
  }

  void post_desc(Desc &d, int tag, unsigned mode) {
    uint32_t a = d.page * QRDMA_PAGE_STRIDE + d.ch * LINE;
    unsigned n = d.lng ? 2 * LINE : LINE;
    unsigned big = DB == 32 ? 5 : 4;
    switch (mode) {
      case 0: write_region(a, d.line.data(), n, big, tag, true); break;   // one burst
      case 1: write_region(a, d.line.data(), n, big, tag, false); break;  // one beat per burst
      case 2: write_region(a, d.line.data(), n, 3, tag, true); break;     // 8-byte beats
      default: {  // words in random order within each line, one burst per word
        for (unsigned l = 0; l < n / LINE; l++) {
          std::array<unsigned, 4> w{0, 1, 2, 3};
          for (unsigned i = 3; i > 0; i--) std::swap(w[i], w[rng.below(i + 1)]);
          for (unsigned i : w)
            write_region(a + l * LINE + 8 * i, d.line.data() + l * LINE + 8 * i, 8, 3, tag, true);
        }
      }
    }
    st.descs++;
  }

  void gen_one() {
    unsigned r = rng.below(100);
    if (r < 45) random_write();
    else if (r < 85) random_read();
    else {
      Desc d = random_desc();
      post_desc(d, -1, rng.below(4));
    }
  }

  void new_phase() {
    auto gap = [&] { return rng.pct(30) ? 0u : rng.below(60); };
    k.aw_gap = gap();
    k.w_gap = gap();
    k.ar_gap = gap();
    k.ack_gap = gap();
    k.bready = rng.pct(30) ? 100 : 20 + rng.below(81);
    k.rready = rng.pct(30) ? 100 : 20 + rng.below(81);
    k.blk_ready = rng.pct(30) ? 100 : 10 + rng.below(91);
    k.pkt_ready = rng.pct(30) ? 100 : 10 + rng.below(91);
    k.ack_delay = rng.below(4) == 0 ? 200 : 1 + rng.below(40);
    k.max_out = 1 + rng.below(16);
  }

  // ------------------------------------------------------------ one clock cycle
  void ext_comb() {
    uint32_t ra = top->ext_rd_addr;
    if (ext_readable(ra)) {
      top->ext_rd_data = ext.val[(ra - QRDMA_NIC_REG_FIRST) / 8];
      top->ext_rd_err = 0;
    } else {
      top->ext_rd_data = 0xBAD0BAD0BAD0BAD0ull;
      top->ext_rd_err = 1;
    }
    top->ext_wr_err = !ext_writable(top->ext_wr_addr);
  }

  void cycle() {
    top->clk = 0;
    top->eval();
    ext_comb();
    top->eval();
    // handshakes of this cycle (before the edge)
    bool aw_hs = top->s_axi_awvalid && top->s_axi_awready;
    bool w_hs = top->s_axi_wvalid && top->s_axi_wready;
    bool ar_hs = top->s_axi_arvalid && top->s_axi_arready;
    bool b_hs = top->s_axi_bvalid && top->s_axi_bready;
    bool r_hs = top->s_axi_rvalid && top->s_axi_rready;
    bool blk_hs = top->m_blk_valid && top->m_blk_ready;
    bool pkt_hs = top->m_pkt_valid && top->m_pkt_ready;
    bool ack_hs = top->s_ack_valid && top->s_ack_ready;
    check_stable();
    if (top->ext_wr_en) {
      uint32_t wa = top->ext_wr_addr;
      if (wa < QRDMA_NIC_REG_FIRST || wa % 8) fail("ext_wr_en with ext_wr_addr %#x", wa);
      if (!top->ext_wr_err) {
        unsigned kk = (wa - QRDMA_NIC_REG_FIRST) / 8;
        ext.val[kk] = top->ext_wr_data;
        ext.hist[kk].push_back(ext.val[kk]);
        if (ext.hist[kk].size() > 256) ext.hist[kk].pop_front();
        st.ext_wr++;
      }
    }
    if (b_hs) on_b();
    if (r_hs) on_r();
    if (blk_hs) on_blk();
    if (pkt_hs) on_pkt();
    if (ack_hs) {
      ack_on = false;
      last_net = now;
    }
    if (aw_hs) {
      WBurst *b = awq.front();
      awq.pop_front();
      b->aw_done = true;
      b->aw_cycle = now;
      bq[b->id].push_back(b);
    }
    if (w_hs) {
      WBurst *b = wq.front();
      b->wsent++;
      if (b->wsent == b->len + 1) {
        b->wlast_cycle = now;
        wq.pop_front();
      }
    }
    if (ar_hs) {
      RBurst *b = arq.front();
      arq.pop_front();
      b->ar_cycle = now;
      rq[b->id].push_back(b);
    }
    aw_wait = top->s_axi_awvalid && !aw_hs ? aw_wait + 1 : 0;
    w_wait = top->s_axi_wvalid && !w_hs ? w_wait + 1 : 0;
    ar_wait = top->s_axi_arvalid && !ar_hs ? ar_wait + 1 : 0;
    if (aw_wait > BOUND || w_wait > BOUND || ar_wait > BOUND)
      fail("request not taken within %" PRIu64 " cycles (AW %" PRIu64 ", W %" PRIu64 ", AR %" PRIu64 ")",
           BOUND, aw_wait, w_wait, ar_wait);
    pb_v = top->s_axi_bvalid; pb_r = top->s_axi_bready;
    pb_id = top->s_axi_bid; pb_resp = top->s_axi_bresp;
    pr_v = top->s_axi_rvalid; pr_r = top->s_axi_rready;
    pr_id = top->s_axi_rid; pr_resp = top->s_axi_rresp; pr_last = top->s_axi_rlast;
    for (unsigned i = 0; i < pr_data.size(); i++) pr_data[i] = top->s_axi_rdata[i];

    top->clk = 1;
    top->eval();
    now++;
    if (top->ready) was_ready = true;
    else if (was_ready) fail("the engine's ready fell");
    if ((now & 1023) == 0) check_age();
    drive(aw_hs, w_hs, ar_hs, ack_hs);
  }

  void check_stable() {
    if (pb_v && !pb_r &&
        (!top->s_axi_bvalid || top->s_axi_bid != pb_id || top->s_axi_bresp != pb_resp))
      fail("B channel changed before BREADY (bvalid %u bid %u bresp %u, was bid %u bresp %u)",
           top->s_axi_bvalid, top->s_axi_bid, top->s_axi_bresp, pb_id, pb_resp);
    if (pr_v && !pr_r) {
      bool same = top->s_axi_rvalid && top->s_axi_rid == pr_id && top->s_axi_rresp == pr_resp &&
                  top->s_axi_rlast == pr_last;
      for (unsigned i = 0; i < pr_data.size(); i++) same = same && top->s_axi_rdata[i] == pr_data[i];
      if (!same) fail("R channel changed before RREADY");
    }
  }

  void check_age() {
    for (unsigned i = 0; i < NIDS; i++) {
      if (!bq[i].empty() && now - bq[i].front()->aw_cycle > BOUND)
        fail("no B for ID %u within %" PRIu64 " cycles of its AW (addr %#x len %u)", i, BOUND,
             bq[i].front()->addr, bq[i].front()->len);
      if (!rq[i].empty() && now - rq[i].front()->ar_cycle > BOUND)
        fail("R beats missing for ID %u %" PRIu64 " cycles after its AR (addr %#x len %u got %u)", i,
             BOUND, rq[i].front()->addr, rq[i].front()->len, rq[i].front()->got);
    }
  }

  void on_b() {
    unsigned id = top->s_axi_bid, resp = top->s_axi_bresp;
    if (id >= NIDS || bq[id].empty()) fail("B with ID %u and no AW of that ID awaiting B", id);
    WBurst *b = bq[id].front();
    bq[id].pop_front();
    if (b->wsent != b->len + 1 || b->wlast_cycle >= now)
      fail("B for ID %u (addr %#x len %u) after %u of its %u W beats", id, b->addr, b->len, b->wsent,
           b->len + 1);
    if (resp != OKAY && resp != SLVERR) fail("BRESP %u (ID %u addr %#x)", resp, id, b->addr);
    if ((b->expect == E_SLVERR && resp != SLVERR) || (b->expect == E_OKAY && resp != OKAY))
      fail("write ID %u addr %#x len %u size %u burst %u: BRESP %u, expected %s (first strb %#x)", id,
           b->addr, b->len, b->size, b->burst, resp, b->expect == E_SLVERR ? "SLVERR" : "OKAY",
           b->beats[0].strb);
    (resp == OKAY ? st.w_okay : st.w_slverr)++;
    if (trace) std::printf("%" PRIu64 " B id %u addr %#x len %u size %u burst %u resp %u\n", now, id, b->addr, b->len, b->size, b->burst, resp);
    b->resp = resp;
    if (b->tag >= 0 && resp != OKAY)
      fail("known-good descriptor write addr %#x answered %u", b->addr, resp);
    w_open--;
    b->b_done = true;
    while (!wall.empty() && wall.front()->b_done) wall.pop_front();
  }

  void on_r() {
    unsigned id = top->s_axi_rid, resp = top->s_axi_rresp;
    if (id >= NIDS || rq[id].empty()) fail("R beat with ID %u and no AR of that ID open", id);
    RBurst *b = rq[id].front();
    unsigned i = b->got++;
    bool last = i == b->len;
    if (top->s_axi_rlast != last)
      fail("RLAST %u on beat %u of a %u-beat read (ID %u addr %#x)", top->s_axi_rlast, i, b->len + 1,
           id, b->addr);
    uint64_t v = static_cast<uint64_t>(top->s_axi_rdata[1]) << 32 | top->s_axi_rdata[0];
    for (unsigned l = 1; l < DB / 8; l++) {
      uint64_t x = static_cast<uint64_t>(top->s_axi_rdata[2 * l + 1]) << 32 | top->s_axi_rdata[2 * l];
      if (x != v) fail("RDATA lane %u differs from lane 0 (ID %u addr %#x beat %u)", l, id, b->addr, i);
    }
    Cls c = b->cls[i];
    uint32_t a = b->addr;
    for (unsigned j = 0; j < i; j++) a = next_addr(a, 3);
    bool want_err = c == C_SLV || c == C_EXT_ERR;
    if (resp != (want_err ? SLVERR : OKAY))
      fail("read beat %u of ID %u at %#x (arsize %u arburst %u): RRESP %u, expected %u", i, id, a,
           b->size, b->burst, resp, want_err ? SLVERR : OKAY);
    if (want_err && v) fail("SLVERR read at %#x with data %#" PRIx64, a, v);
    switch (c) {
      case C_RD_STATUS:
        if (v > QRDMA_ST_ERROR) fail("status read at %#x: %#" PRIx64, a, v);
        break;
      case C_RD_ERR:
        if (v > 15) fail("error reason read at %#x: %#" PRIx64, a, v);
        break;
      case C_RD_ENG:
        if (a == QRDMA_REG(eng.ID) && (v & 0xFFFFFFFFull) != QRDMA_ID_MAGIC)
          fail("ID register %#" PRIx64, v);
        break;
      case C_EXT_OK: {
        unsigned kk = (a - QRDMA_REG_BASE - QRDMA_NIC_REG_FIRST) / 8;
        if (!ext.known(kk, v)) fail("external register %#x read %#" PRIx64 ", never written", a, v);
        st.ext_rd++;
        break;
      }
      default: break;
    }
    b->data.push_back(v);
    b->resp.push_back(resp);
    st.r_beats++;
    if (resp) st.r_slverr++;
    if (last) {
      rq[id].pop_front();
      r_open--;
      on_read_done(b);
    }
  }

  std::vector<RBurst *> finished_reads;
  bool keep_reads = false;
  void on_read_done(RBurst *b) {
    if (keep_reads) finished_reads.push_back(b);
    while (!rall.empty() && rall.front()->got == rall.front()->len + 1 && !keep_reads) rall.pop_front();
  }

  void ack(uint32_t tid, uint32_t seq) {
    uint8_t w[4] = {0, 0, 0, 0};
    QRDMA_ACK_DESC_TID_PUT(w, tid);
    QRDMA_ACK_DESC_SEQ_PUT(w, seq);
    bool nack = nack_enabled && rng.below(1000) < k.nack_per_mille;
    if (nack) {
      QRDMA_ACK_DESC_NACK_PUT(w, 1);
      QRDMA_ACK_DESC_REASON_PUT(w, rng.pct(50) ? QRDMA_ERR_REMOTE_MEM : QRDMA_ERR_REMOTE_ACCESS);
      st.nacks++;
    }
    uint32_t word = w[0] | w[1] << 8 | w[2] << 16 | static_cast<uint32_t>(w[3]) << 24;
    acks.push({now + 1 + rng.below(k.ack_delay), word});
    if (nack_enabled && rng.one_in(500)) acks.push({now + 1 + rng.below(4 * k.ack_delay), word});  // duplicate
    st.acks++;
  }

  void on_blk() {
    std::vector<uint8_t> d((QRDMA_BLOCK_DESC_BITS + 7) / 8 + 4);
    wide_to_bytes(top->m_blk_data, d.data(), (QRDMA_BLOCK_DESC_BITS + 7) / 8);
    ack(static_cast<uint32_t>(QRDMA_BLOCK_DESC_TID_GET(d.data())),
        static_cast<uint32_t>(QRDMA_BLOCK_DESC_SEQ_GET(d.data())));
    st.blocks++;
    last_net = now;
    if (record) blk_seen[static_cast<unsigned>(QRDMA_BLOCK_DESC_XFER_GET(d.data()))].push_back(d);
  }

  void on_pkt() {
    std::vector<uint8_t> d(QRDMA_PKT_DESC_BITS / 8);
    wide_to_bytes(top->m_pkt_data, d.data(), QRDMA_PKT_DESC_BITS / 8);
    // a control packet gets no ACK: it carries the TID and sequence of its transfer's last
    // block, which the block's own ACK answers (docs/qos.md "Completion")
    if (QRDMA_PKT_DESC_KIND_GET(d.data()) == QRDMA_PKT_INLINE) {
      ack(static_cast<uint32_t>(QRDMA_PKT_DESC_TID_GET(d.data())),
          static_cast<uint32_t>(QRDMA_PKT_DESC_SEQ_GET(d.data())));
      st.inl++;
    } else if (QRDMA_PKT_DESC_ANNOUNCE_GET(d.data())) {
      st.announce++;  // a registered transfer's REGISTER packet: not in CNT_CONTROL
    } else {
      st.ctrl++;
    }
    last_net = now;
    if (record) pkt_seen[static_cast<unsigned>(QRDMA_PKT_DESC_XFER_GET(d.data()))].push_back(d);
  }

  void drive(bool aw_hs, bool w_hs, bool ar_hs, bool ack_hs) {
    // AW
    if (!top->s_axi_awvalid || aw_hs) {
      top->s_axi_awvalid = 0;
      if (!awq.empty() && !rng.pct(k.aw_gap)) {
        WBurst *b = awq.front();
        top->s_axi_awvalid = 1;
        top->s_axi_awid = b->id;
        top->s_axi_awaddr = b->addr;
        top->s_axi_awlen = b->len;
        top->s_axi_awsize = b->size;
        top->s_axi_awburst = b->burst;
      } else if (rng.pct(50)) {
        top->s_axi_awaddr = static_cast<uint32_t>(rng.next()) & AMASK;  // junk while invalid
        top->s_axi_awlen = rng.below(256);
      }
    }
    // W
    if (!top->s_axi_wvalid || w_hs) {
      top->s_axi_wvalid = 0;
      if (!wq.empty() && !rng.pct(k.w_gap)) {
        WBurst *b = wq.front();
        const Beat &bt = b->beats[b->wsent];
        top->s_axi_wvalid = 1;
        bytes_to_wide(top->s_axi_wdata, bt.data.data(), DB);
        top->s_axi_wstrb = bt.strb;
        top->s_axi_wlast = b->wsent == b->len;
      }
    }
    // AR
    if (!top->s_axi_arvalid || ar_hs) {
      top->s_axi_arvalid = 0;
      if (!arq.empty() && !rng.pct(k.ar_gap)) {
        RBurst *b = arq.front();
        top->s_axi_arvalid = 1;
        top->s_axi_arid = b->id;
        top->s_axi_araddr = b->addr;
        top->s_axi_arlen = b->len;
        top->s_axi_arsize = b->size;
        top->s_axi_arburst = b->burst;
      }
    }
    top->s_axi_bready = rng.pct(k.bready);
    top->s_axi_rready = rng.pct(k.rready);
    top->m_blk_ready = rng.pct(k.blk_ready);
    top->m_pkt_ready = rng.pct(k.pkt_ready);
    // ACKs
    if (!ack_on || ack_hs) {
      ack_on = false;
      if (!acks.empty() && acks.top().due <= now && !rng.pct(k.ack_gap)) {
        ack_word = acks.top().word;
        acks.pop();
        ack_on = true;
      }
    }
    top->s_ack_valid = ack_on;
    top->s_ack_data = ack_word;
  }


  // ------------------------------------------------------------ after the fuzz
  void gentle() {
    k = Knobs{};
    k.aw_gap = k.w_gap = k.ar_gap = k.ack_gap = 5;
    k.bready = k.rready = k.blk_ready = k.pkt_ready = 80;
    k.ack_delay = 10;
    nack_enabled = false;
  }

  // issue `gen` transactions with at most max_out open, then wait for their responses
  void issue(const char *what, const std::function<void()> &gen) {
    gen();
    settle_requests(what);
  }

  // Each page may hold a line being assembled, await line 1 of a long descriptor and hold
  // a skip record (docs/qos.md "Host port: precise rules and timing"). A full line with a
  // good short descriptor (inline in a write channel, a 1-byte read in a read channel),
  // with `start` (so that no transfer of the page stays held), is written to every channel,
  // twice over: in the
  // first pass a write to the skip record's channel is refused and ends the record (four
  // words seen), and no write sets a new one (no `long_desc`); in the second the write to
  // the channel the page waits for completes its line. Afterwards every page is free.
  void flush_pages() {
    for (unsigned p = 0; p < 2 * QRDMA_NUM_PAGES; p++)
      for (unsigned c = 0; c < NCH; c++) {
        Desc d{};
        d.page = p % QRDMA_NUM_PAGES;
        d.ch = c;
        d.inl = c < QRDMA_WR_CH_PER_PAGE;
        d.size = 1;
        d.start = true;  // releases the page's held transfers (docs/qos.md "Clustering")
        encode(d);
        post_desc(d, -1, 0);
        while (w_open >= 32) cycle();
      }
    settle_requests("the page flush");
  }

  // single status of every channel (one 128-beat burst per page); returns the values
  std::vector<uint64_t> read_all_status() {
    keep_reads = true;
    finished_reads.clear();
    for (unsigned p = 0; p < QRDMA_NUM_PAGES; p++) {
      auto b = std::make_unique<RBurst>();
      b->id = p % NIDS;
      b->addr = p * QRDMA_PAGE_STRIDE + QRDMA_STATUS_OFFSET;
      b->len = NCH - 1;
      b->size = 3;
      b->burst = BURST_INCR;
      push_read(std::move(b));
    }
    settle_requests("the status reads");
    std::vector<uint64_t> out(QRDMA_NUM_PAGES * NCH);
    for (RBurst *b : finished_reads) {
      unsigned p = b->addr / QRDMA_PAGE_STRIDE;
      for (unsigned c = 0; c < NCH; c++) {
        if (b->resp[c] != OKAY) fail("status read of page %u channel %u: RRESP %u", p, c, b->resp[c]);
        out[p * NCH + c] = b->data[c];
      }
    }
    keep_reads = false;
    finished_reads.clear();
    while (!rall.empty() && rall.front()->got == rall.front()->len + 1) rall.pop_front();
    return out;
  }

  // n 64-bit words from addr on, one INCR burst (the responses are checked in on_r)
  std::vector<uint64_t> read64(uint32_t addr, unsigned n) {
    keep_reads = true;
    finished_reads.clear();
    auto b = std::make_unique<RBurst>();
    b->id = rng.below(NIDS);
    b->addr = addr;
    b->len = n - 1;
    b->size = 3;
    b->burst = BURST_INCR;
    push_read(std::move(b));
    settle_requests("a register read");
    std::vector<uint64_t> v = finished_reads.at(0)->data;
    keep_reads = false;
    finished_reads.clear();
    while (!rall.empty() && rall.front()->got == rall.front()->len + 1) rall.pop_front();
    return v;
  }

  uint64_t read_status(unsigned p, unsigned c) {
    return read64(p * QRDMA_PAGE_STRIDE + QRDMA_STATUS_OFFSET + 8 * c, 1).at(0);
  }

  // the engine's output counters against the outputs the bench took
  void check_counters() {
    static_assert(offsetof(qrdma_eng_csr_t, CNT_INLINE) == offsetof(qrdma_eng_csr_t, CNT_BLOCKS) + 8 &&
                      offsetof(qrdma_eng_csr_t, CNT_CONTROL) == offsetof(qrdma_eng_csr_t, CNT_INLINE) + 8,
                  "CNT_BLOCKS, CNT_INLINE, CNT_CONTROL are consecutive");
    auto v = read64(QRDMA_REG(eng.CNT_BLOCKS), 3);
    if (v[0] != st.blocks || v[1] != st.inl || v[2] != st.ctrl)
      fail("CNT_BLOCKS %" PRIu64 " CNT_INLINE %" PRIu64 " CNT_CONTROL %" PRIu64 ", the bench took %" PRIu64
           " blocks, %" PRIu64 " inline and %" PRIu64 " control packets", v[0], v[1], v[2], st.blocks, st.inl,
           st.ctrl);
  }

  // known good descriptors on known channels of every page: their outputs and DONE
  int known_good() {
    std::vector<Desc> ds;
    for (unsigned p = 0; p < QRDMA_NUM_PAGES; p++) {
      Desc m{};  // memory, 32 bytes, 4 blocks, notify
      m.page = p; m.ch = 1;
      m.src = (p + 1ull) << 32; m.dst = 0x700000000000ull + (static_cast<uint64_t>(p) << 24);
      m.size = 3ull * BLOCK_SIZE + 100; m.node = 0x100 + p; m.prio = p; m.notify = true;
      m.tag = 0xC0DE0000u + p;
      encode(m);
      ds.push_back(m);
      Desc l{};  // memory, 64 bytes (remote key), one block
      l.page = p; l.ch = 6; l.lng = true;
      l.src = (p + 1ull) << 36; l.dst = 0x710000000000ull + (static_cast<uint64_t>(p) << 24);
      l.size = 5000; l.node = 0x200 + p; l.prio = 15 - p; l.rkey = 0x5A000000u + p; l.tag = 7;
      encode(l);
      ds.push_back(l);
      Desc s{};  // inline, 32 bytes
      s.page = p; s.ch = 10; s.inl = true; s.size = 7; s.node = 0x300 + p;
      s.dst = 0x720000000000ull + p; s.src = 0x0706050403020100ull + p;
      encode(s);
      ds.push_back(s);
      Desc t{};  // inline, 64 bytes, notify
      t.page = p; t.ch = 20; t.inl = true; t.lng = true; t.size = 29; t.notify = true;
      t.node = 0x400 + p; t.dst = 0x730000000000ull + 3 * p; t.src = 0x1122334455667788ull ^ p;
      t.tag = 0xFEED0000u + p;
      encode(t);
      for (unsigned i = 0; i < 24; i++) t.line[LINE + i] = static_cast<uint8_t>(0x40 + i + p);
      ds.push_back(t);
    }
    blk_seen.clear();
    pkt_seen.clear();
    record = true;
    for (size_t i = 0; i < ds.size(); i++) post_desc(ds[i], static_cast<int>(i), i % 2 ? 2 : 0);
    settle_requests("the known-good descriptors' B responses");
    // DONE, by polling each channel's single status (a read resets DONE)
    for (auto &d : ds) {
      uint64_t t0 = now;
      for (;;) {
        uint64_t v = read_status(d.page, d.ch);
        if (v == QRDMA_ST_DONE) break;
        if (v != QRDMA_ST_BUSY)
          fail("known-good descriptor page %u channel %u: status %" PRIu64 " (BUSY or DONE expected)",
               d.page, d.ch, v);
        for (int i = 0; i < 50; i++) cycle();
        if (now - t0 > BOUND) fail("page %u channel %u not DONE within %" PRIu64 " cycles", d.page, d.ch, BOUND);
      }
    }
    drain("after the known-good descriptors");
    record = false;
    for (auto &d : ds) check_outputs(d);
    return static_cast<int>(ds.size());
  }

  void check_outputs(const Desc &d) {
    unsigned xfer = d.page * QRDMA_CH_PER_PAGE + d.ch;
    auto &blks = blk_seen[xfer];
    auto &pkts = pkt_seen[xfer];
    const char *what = d.inl ? "inline" : "memory";
    if (d.inl) {
      if (!blks.empty()) fail("inline transfer page %u ch %u: %zu blocks", d.page, d.ch, blks.size());
      if (pkts.size() != 1) fail("inline transfer page %u ch %u: %zu packets", d.page, d.ch, pkts.size());
      const uint8_t *q = pkts[0].data();
      if (QRDMA_PKT_DESC_KIND_GET(q) != QRDMA_PKT_INLINE || QRDMA_PKT_DESC_LEN_GET(q) != d.size ||
          QRDMA_PKT_DESC_DST_ADDR_GET(q) != d.dst || QRDMA_PKT_DESC_DST_NODE_GET(q) != d.node ||
          QRDMA_PKT_DESC_PD_GET(q) != d.page || QRDMA_PKT_DESC_NOTIFY_GET(q) != d.notify)
        fail("inline packet of page %u ch %u: wrong fields (kind %" PRIu64 " len %" PRIu64 " dst %#" PRIx64
             " node %#" PRIx64 " pd %" PRIu64 ")", d.page, d.ch, QRDMA_PKT_DESC_KIND_GET(q),
             QRDMA_PKT_DESC_LEN_GET(q), QRDMA_PKT_DESC_DST_ADDR_GET(q), QRDMA_PKT_DESC_DST_NODE_GET(q),
             QRDMA_PKT_DESC_PD_GET(q));
      for (unsigned i = 0; i < d.size; i++) {
        uint8_t want = i < 8 ? d.line[i] : d.line[LINE + i - 8];
        if (q[QRDMA_PKT_DESC_PAYLOAD_LSB / 8 + i] != want)
          fail("inline packet of page %u ch %u: payload byte %u is %#x, expected %#x", d.page, d.ch, i,
               q[QRDMA_PKT_DESC_PAYLOAD_LSB / 8 + i], want);
      }
      return;
    }
    uint64_t n = (d.size + BLOCK_SIZE - 1) / BLOCK_SIZE;
    if (blks.size() != n) fail("%s transfer page %u ch %u: %zu blocks, expected %" PRIu64, what, d.page, d.ch, blks.size(), n);
    std::vector<bool> seen(n);
    for (auto &bd : blks) {
      const uint8_t *q = bd.data();
      uint64_t b = QRDMA_BLOCK_DESC_BLOCK_GET(q);
      if (b >= n || seen[b]) fail("page %u ch %u: block %" PRIu64 " unexpected or twice", d.page, d.ch, b);
      seen[b] = true;
      uint64_t sz = std::min<uint64_t>(BLOCK_SIZE, d.size - b * BLOCK_SIZE);
      if (QRDMA_BLOCK_DESC_SRC_ADDR_GET(q) != d.src + b * BLOCK_SIZE ||
          QRDMA_BLOCK_DESC_DST_ADDR_GET(q) != d.dst + b * BLOCK_SIZE ||
          QRDMA_BLOCK_DESC_DST_NODE_GET(q) != d.node || QRDMA_BLOCK_DESC_PD_GET(q) != d.page ||
          QRDMA_BLOCK_DESC_SIZE_GET(q) != sz || QRDMA_BLOCK_DESC_LAST_GET(q) != (b == n - 1) ||
          (d.lng && QRDMA_BLOCK_DESC_RKEY_GET(q) != d.rkey))
        fail("block %" PRIu64 " of page %u ch %u: wrong fields (src %#" PRIx64 " dst %#" PRIx64
             " node %#" PRIx64 " pd %" PRIu64 " size %" PRIu64 " last %" PRIu64 " rkey %#" PRIx64 ")",
             b, d.page, d.ch, QRDMA_BLOCK_DESC_SRC_ADDR_GET(q), QRDMA_BLOCK_DESC_DST_ADDR_GET(q),
             QRDMA_BLOCK_DESC_DST_NODE_GET(q), QRDMA_BLOCK_DESC_PD_GET(q), QRDMA_BLOCK_DESC_SIZE_GET(q),
             QRDMA_BLOCK_DESC_LAST_GET(q), QRDMA_BLOCK_DESC_RKEY_GET(q));
    }
    if (pkts.size() != (d.notify ? 1u : 0u))
      fail("%s transfer page %u ch %u: %zu control packets", what, d.page, d.ch, pkts.size());
    if (d.notify) {
      const uint8_t *q = pkts[0].data();
      if (QRDMA_PKT_DESC_KIND_GET(q) != QRDMA_PKT_CONTROL || QRDMA_PKT_DESC_SIZE_GET(q) != d.size ||
          QRDMA_PKT_DESC_TAG_GET(q) != d.tag || QRDMA_PKT_DESC_BLOCKS_GET(q) != n ||
          QRDMA_PKT_DESC_DST_NODE_GET(q) != d.node)
        fail("control packet of page %u ch %u: wrong fields", d.page, d.ch);
    }
  }

  int finish(std::chrono::steady_clock::time_point t0, std::chrono::steady_clock::time_point t1,
             uint64_t fuzz_cycles) {
    gentle();
    flush_pages();
    drain("after the page flush");
    read_all_status();                      // resets every DONE / ERROR
    auto again = read_all_status();
    for (size_t i = 0; i < again.size(); i++)
      if (again[i] != QRDMA_ST_IDLE)
        fail("page %zu channel %zu: status %" PRIu64 " after a read of every status (IDLE expected)",
             static_cast<size_t>(i / NCH), static_cast<size_t>(i % NCH),
             again[i]);
    int good = known_good();
    check_counters();
    auto t2 = std::chrono::steady_clock::now();
    double fs = std::chrono::duration<double>(t1 - t0).count();
    double all = std::chrono::duration<double>(t2 - t0).count();
    std::printf("fuzz: %" PRIu64 " transactions (%" PRIu64 " writes, %" PRIu64 " reads, %" PRIu64
                " descriptors posted) in %" PRIu64 " cycles, %.1f s: %.0f transactions/s, %.0f cycles/s\n",
                st.writes + st.reads, st.writes, st.reads, st.descs, fuzz_cycles, fs,
                (st.writes + st.reads) / fs, fuzz_cycles / fs);
    std::printf("responses: B OKAY %" PRIu64 ", B SLVERR %" PRIu64 " (%" PRIu64 " predicted from the beats), R beats %" PRIu64
                " (%" PRIu64 " SLVERR); external register writes %" PRIu64 ", reads %" PRIu64 "\n",
                st.w_okay, st.w_slverr, st.w_predicted_slverr, st.r_beats, st.r_slverr, st.ext_wr, st.ext_rd);
    std::printf("network: %" PRIu64 " blocks, %" PRIu64 " inline, %" PRIu64 " control, %" PRIu64
                " REGISTER packets, %" PRIu64 " ACKs (%" PRIu64 " NACKs)\n",
                st.blocks, st.inl, st.ctrl, st.announce, st.acks, st.nacks);
    std::printf("after the fuzz: pages flushed, every status IDLE, %d known-good descriptors DONE with "
                "the right outputs, the output counters right; %" PRIu64 " cycles, %.1f s in all\nPASS\n", good, now, all);
    return 0;
  }

  // ------------------------------------------------------------ phases
  void run_until(const char *what, uint64_t limit, const std::function<bool()> &done) {
    uint64_t t0 = now;
    while (!done()) {
      cycle();
      if (now - t0 > limit) fail("timeout (%" PRIu64 " cycles) waiting for %s", limit, what);
    }
  }

  void settle_requests(const char *what) {
    run_until(what, BOUND, [&] { return w_open == 0 && r_open == 0; });
  }

  void drain(const char *what) {
    // every started transfer finishes; the network keeps moving while any is in flight
    last_net = now;
    uint64_t t0 = now;
    while (top->xfers != 0 || !acks.empty() || ack_on) {
      cycle();
      if (now - last_net > BOUND) fail("%s: no block, packet or ACK for %" PRIu64 " cycles with %u transfers in flight", what, BOUND, top->xfers);
      if (now - t0 > 50000000ull) fail("%s: transfers still in flight after 50M cycles", what);
    }
  }
};


}  // namespace

int main(int argc, char **argv) {
  uint64_t n_target = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : 100000;
  seed_g = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 1;
  std::printf("fuzz_host: HOST_DATA_W %u, %" PRIu64 " transactions, seed %" PRIu64
              " (replay with QRDMA_SEED=%" PRIu64 ")\n", HOST_DATA_W, n_target, seed_g, seed_g);
  std::fflush(stdout);
  auto ctx = std::make_unique<VerilatedContext>();
  ctx->commandArgs(argc, argv);
  ctx->randReset(0);
  top = new Vqrdma_qos_engine{ctx.get()};
  Bench tb(seed_g);
  auto t0 = std::chrono::steady_clock::now();

  // reset, then wait for ready
  top->rst = 1;
  for (int i = 0; i < 10; i++) tb.cycle();
  top->rst = 0;
  tb.run_until("ready after reset", 20000, [] { return top->ready != 0; });

  // ---- fuzz
  uint64_t generated = 0, phase_end = 0;
  while (generated < n_target) {
    if (now >= phase_end) {
      tb.new_phase();
      phase_end = now + 2000 + tb.rng.below(20000);
    }
    while (generated < n_target && tb.w_open + tb.r_open < tb.k.max_out) {
      uint64_t before = st.writes + st.reads;
      tb.gen_one();
      generated += st.writes + st.reads - before;
    }
    tb.cycle();
  }
  uint64_t fuzz_cycles = now;
  tb.settle_requests("the last fuzz transactions' responses");
  tb.drain("after the fuzz");
  auto t1 = std::chrono::steady_clock::now();
  return tb.finish(t0, t1, fuzz_cycles);
}
