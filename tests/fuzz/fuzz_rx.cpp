// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// fuzz_rx: a Verilator testbench that fuzzes the network port of the receive unit
// qrdma_rx (docs/protection.md "Fuzzing the network port"). It sends a stream of random
// packets with valid CRCs (a few with bad ones) from source nodes of their own, mixed with
// legitimate blocks of one source whose tracking entries the random packets cannot reach,
// against a window table it registers (and changes while packets flow). It is the AXI4
// write slave (a byte array as host memory, random backpressure), takes m_ack and m_rsp
// with random backpressure and takes notification ring entries as software does.
// Random packets include READ_REQs and read responses (DATA with resp set; this node's own
// entries, which the legitimate source's do not share).
// Checks, failing the run at the first violation: every byte written lies in a window
// valid with write or local-write permission (or in the ring); the memory outside those equals its
// initial image at the end; a beat offered is always taken within STUCK cycles and the
// unit drains; every legitimate block lands byte for byte and is ACKed once; every packet
// is counted by exactly one stat_* pulse, of the class its header allows (CRC, malformed,
// refused, ACK/NACK/MISS/REGISTER: exactly; DATA/INLINE/CONTROL: accepted, duplicate or stale;
// READ_REQ: taken or dropped for want of room); m_ack and m_miss carry exactly the ACK/NACK
// and MISS packets sent, m_rd one job per READ_REQ taken; RTL assertions.
//
// Usage: fuzz_rx [--seed N] [--packets N]   (N random packets; legitimate ones on top)

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "Vqrdma_rx.h"
#include "verilated.h"

#include "qrdma_fmt.h"

// ------------------------------------------------------------------ parameters
// the DUT's parameters (tests/fuzz/test_fuzz_rx.py passes the same values as -G and -D)
#ifndef FZ_NUM_NODES
#define FZ_NUM_NODES 4
#endif
#ifndef FZ_MAX_PAYLOAD
#define FZ_MAX_PAYLOAD 1024
#endif
#ifndef FZ_MAX_BLK_PKTS
#define FZ_MAX_BLK_PKTS 64
#endif
#ifndef FZ_PROT_WINDOWS
#define FZ_PROT_WINDOWS 64
#endif

namespace {

constexpr unsigned NUM_NODES = FZ_NUM_NODES;
constexpr unsigned MAX_PAYLOAD = FZ_MAX_PAYLOAD;
constexpr unsigned MAX_BLK_PKTS = FZ_MAX_BLK_PKTS;
constexpr unsigned WINDOWS = FZ_PROT_WINDOWS;
constexpr unsigned BEAT = QRDMA_NET_BEAT_BYTES;
constexpr unsigned MAXB = MAX_PAYLOAD / BEAT + 1;   // payload beats of the longest DATA
constexpr unsigned TAG_W = QRDMA_RKEY_TAG_W;
constexpr unsigned NENT = NUM_NODES * 1024;

constexpr uint16_t NODE_ID = 0x0106;               // (even: its entries are not the legit's)
constexpr unsigned LEGIT_RES = 1;                   // src_node % NUM_NODES of the legit source
constexpr uint64_t STUCK = 100000;                  // cycles a beat may wait, or a drain take

// host memory: a low region and a high one that ends at 2^64
constexpr uint64_t LOW_SIZE = 8ull << 20;
constexpr uint64_t HI_SIZE = 64ull << 10;
constexpr uint64_t HI_BASE = 0 - HI_SIZE;
constexpr uint64_t LEGIT_LO = 1ull << 20;           // the legit window: [1 MiB, 2 MiB)
constexpr uint64_t LEGIT_HI = 2ull << 20;
constexpr uint64_t FZ_LO = 2ull << 20;              // the random packets' windows
constexpr uint64_t FZ_HI = 7ull << 20;
constexpr unsigned RING_MAX = 64;
constexpr uint64_t RING_BASE = LOW_SIZE - 64 * RING_MAX;
constexpr unsigned LEGIT_SLOTS = 64;                // legit destinations: 16 KiB each
constexpr uint64_t SLOT_BYTES = (LEGIT_HI - LEGIT_LO) / LEGIT_SLOTS;

// stat pulse classes
enum : uint8_t { C_DATA = 1, C_CTRL = 2, C_CRC = 4, C_DUP = 8, C_STALE = 16, C_BAD = 32,
                 C_PROT = 64, C_READ = 128 };
constexpr unsigned N_CLASSES = 8;
const char *const CLASS_NAMES[] = {"data", "ctrl", "crc", "dup", "stale", "bad", "prot",
                                   "read"};

// ------------------------------------------------------------------ random numbers
struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull) {
        for (int i = 0; i < 4; i++) next();
    }
    uint64_t next() {  // splitmix64
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    uint64_t below(uint64_t n) { return n ? next() % n : 0; }
    uint64_t range(uint64_t lo, uint64_t hi) { return lo + below(hi - lo + 1); }  // [lo, hi]
    bool chance(double p) { return (double)(next() >> 11) * (1.0 / 9007199254740992.0) < p; }
};

// ------------------------------------------------------------------ CRC-32 (zlib)
uint32_t crc_table[256];

void crc_init() {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

uint32_t crc_update(uint32_t c, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c;
}

// ------------------------------------------------------------------ packets
struct Hdr {  // the header fields the checks look at (a copy of what was packed)
    unsigned ptype = 0, len = 0, pkt_idx = 0, blk_pkts = 0, miss_cnt = 0, pd = 0;
    unsigned tid = 0, seq = 0, reason = 0, nack = 0;
    uint16_t dst_node = 0, src_node = 0;
    uint64_t dst_addr = 0;
    uint32_t rkey = 0;
    bool resp = false;              // DATA: a read response
    uint64_t rd_laddr = 0;          // READ_REQ
    unsigned rd_size = 0;
};

struct Pkt {
    uint8_t hdr[BEAT] = {};
    std::vector<uint8_t> pay;       // payload bytes (the tkeep bytes of beats 1..)
    unsigned lo = 0;                // lane of the first payload byte
    uint32_t tuser = 0;
    Hdr h;
    uint8_t cls = 0;                // stat classes it may be counted in
    bool legit = false;
    bool bad_crc = false;
    int legit_tid = -1;             // legit: the block's TID (the last packet: sent_all)
    bool legit_last = false;
    unsigned nb() const {
        return pay.empty() ? 0 : (unsigned)((lo + pay.size() + BEAT - 1) / BEAT);
    }
    unsigned beats() const { return 1 + nb(); }
};

// what the failure messages say of a packet
struct Summary {
    Hdr h;
    unsigned nb = 0, lo = 0;
    size_t plen = 0;
    bool legit = false, bad_crc = false;
};

void put(uint8_t *b, unsigned lsb, unsigned w, uint64_t v) { qrdma_put_bits(b, lsb, w, v); }

#define PUT(pk, F, v) put((pk).hdr, QRDMA_NET_HDR_##F##_LSB, QRDMA_NET_HDR_##F##_W, (v))

// the header fields of pk.h into its header beat
void pack_hdr(Pkt &pk) {
    const Hdr &h = pk.h;
    PUT(pk, PTYPE, h.ptype);
    PUT(pk, DST_NODE, h.dst_node);
    PUT(pk, SRC_NODE, h.src_node);
    PUT(pk, TID, h.tid);
    PUT(pk, SEQ, h.seq);
    PUT(pk, PKT_IDX, h.pkt_idx);
    PUT(pk, BLK_PKTS, h.blk_pkts);
    PUT(pk, LEN, h.len);
    PUT(pk, DST_ADDR, h.dst_addr);
    PUT(pk, PD, h.pd);
    PUT(pk, REASON, h.reason);
    PUT(pk, MISS_CNT, h.miss_cnt);
    PUT(pk, RKEY, h.rkey);
    PUT(pk, RESP, h.resp);
    if (h.ptype == QRDMA_NET_READ_REQ) {
        PUT(pk, RD_LADDR, h.rd_laddr);
        PUT(pk, RD_SIZE, h.rd_size);
    }
}

void seal(Pkt &pk, bool bad_crc, Rng &rng) {
    // the CRC takes a stamped packet's header with its stamp bits as zero
    // (docs/fabric.md "Benchmark mode")
    uint8_t view[BEAT];
    memcpy(view, pk.hdr, BEAT);
    uint64_t t = QRDMA_NET_HDR_PTYPE_GET(view);
    if (QRDMA_NET_HDR_STAMPED_GET(view) && (t == QRDMA_NET_INLINE || t == QRDMA_NET_CONTROL))
        memset(view + QRDMA_STAMP_LSB / 8, 0, BEAT - QRDMA_STAMP_LSB / 8);
    uint32_t c = crc_update(0xFFFFFFFFu, view, BEAT);
    c = crc_update(c, pk.pay.data(), pk.pay.size());
    pk.tuser = ~c;
    pk.bad_crc = bad_crc;
    if (bad_crc) pk.tuser ^= 1u << rng.below(32);
}

Summary summary(const Pkt &pk) {
    Summary s;
    s.h = pk.h;
    s.nb = pk.nb();
    s.lo = pk.lo;
    s.plen = pk.pay.size();
    s.legit = pk.legit;
    s.bad_crc = pk.bad_crc;
    return s;
}

std::string describe(const Summary &pk) {
    char b[320];
    const Hdr &h = pk.h;
    snprintf(b, sizeof b,
             "%s ptype %u src %u dst %#x tid %u seq %u len %u dst_addr %#" PRIx64
             " rkey %#x (index %u tag %u) pd %u pkt %u/%u miss_cnt %u, %u payload beats "
             "(lane %u, %zu bytes)%s",
             pk.legit ? "legit" : "random", h.ptype, h.src_node, h.dst_node, h.tid, h.seq,
             h.len, h.dst_addr, h.rkey, h.rkey >> TAG_W, h.rkey & ((1u << TAG_W) - 1), h.pd,
             h.pkt_idx, h.blk_pkts, h.miss_cnt, pk.nb, pk.lo, pk.plen,
             pk.bad_crc ? ", bad CRC" : "");
    return b;
}

// ------------------------------------------------------------------ windows
struct Win {
    uint64_t base = 0, len = 0;
    unsigned tag = 0, pd = 0;
    bool wr = false, rd = false, lwr = false, valid = false;
    bool open() const { return valid && wr; }
    bool writable() const { return valid && (wr || lwr); }  // by the peers or read responses
};

struct Range {
    uint64_t lo;
    unsigned __int128 hi;   // [lo, hi): hi may be 2^64
};

// ------------------------------------------------------------------ the bench
struct Fuzz {
    Rng rng;
    uint64_t seed, n_fuzz;
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Vqrdma_rx> dut;
    uint64_t cycle = 0;

    // host memory
    std::vector<uint8_t> lo_mem, lo_init, hi_mem, hi_init;
    std::vector<uint8_t> lo_ever, hi_ever;     // bytes of a window ever open for writes
    std::vector<uint8_t> legit_exp;            // the legit window as it must be
    uint8_t *at(uint64_t a) {
        if (a < LOW_SIZE) return &lo_mem[a];
        if (a >= HI_BASE) return &hi_mem[a - HI_BASE];
        return nullptr;
    }

    // window table and what may be written
    Win win[WINDOWS];
    unsigned legit_win = 0;
    std::vector<unsigned> fz_wins;             // entries the random packets' windows use
    std::vector<Range> retiring;               // open until the unit drains
    unsigned nq_size = 8;
    uint32_t nq_tail = 0;

    // AXI slave
    struct Aw { uint64_t addr; unsigned beats, done, id; };
    struct B { uint64_t at; unsigned id; };
    std::deque<Aw> aws;
    std::deque<B> bs;

    // expected outputs
    struct Expect { uint8_t cls; uint64_t n; Summary what; };
    std::deque<Expect> pulses;                 // one per packet, in order
    std::deque<uint32_t> acks;                 // m_ack records
    std::deque<uint64_t> misses;               // m_miss records
    uint64_t sent = 0, pkt_no = 0;

    // legitimate source
    struct LBlk { bool live = false, sent_all = false; unsigned seq = 0, slot = 0;
                  uint64_t dst = 0, size = 0; };
    LBlk lblk[1024];
    uint16_t legit_src = 0;
    unsigned lgen[1024] = {}, lseq = 0, ltid = 0, lepoch = 0, legit_pd = 0;
    bool slot_busy[LEGIT_SLOTS] = {};
    std::deque<Pkt> legit_q;
    uint64_t legit_blocks = 0, legit_acked = 0, legit_pkts = 0;

    // random sources: a few with many packets (tracker traffic), the rest anything
    std::vector<uint16_t> fz_srcs;

    // knobs of the current phase
    double p_idle = 0.1, p_aw = 0.7, p_w = 0.7, p_b = 0.7, p_ack = 0.7, p_rsp = 0.7,
           p_sw = 0.2, p_legit = 0.1;

    // counters
    uint64_t n_class[N_CLASSES] = {}, win_changes = 0, drains = 0, w_beats = 0, notif_taken = 0,
             n_read_req = 0, n_rd_jobs = 0, n_rreq_pass = 0, rsps = 0, miss_in = 0, fuzz_sent = 0, n_straddle = 0, n_pass = 0, n_pass_hi = 0,
             w_fz = 0;

    Fuzz(uint64_t seed_, uint64_t n) : rng(seed_), seed(seed_), n_fuzz(n) {}

    [[noreturn]] void fail(const std::string &msg) {
        fprintf(stderr, "FAIL at cycle %" PRIu64 " (seed %" PRIu64 ", replay: --seed %" PRIu64
                "): %s\n", cycle, seed, seed, msg.c_str());
        fflush(stderr);
        exit(1);
    }

    // ---------------------------------------------------------------- set-up
    void init_memory() {
        lo_mem.resize(LOW_SIZE);
        hi_mem.resize(HI_SIZE);
        for (auto *m : {&lo_mem, &hi_mem})
            for (size_t i = 0; i < m->size(); i += 8) {
                uint64_t v = rng.next();
                memcpy(&(*m)[i], &v, 8);
            }
        memset(&lo_mem[RING_BASE], 0, LOW_SIZE - RING_BASE);
        lo_init = lo_mem;
        hi_init = hi_mem;
        lo_ever.assign(LOW_SIZE, 0);
        hi_ever.assign(HI_SIZE, 0);
        legit_exp.assign(lo_mem.begin() + LEGIT_LO, lo_mem.begin() + LEGIT_HI);
    }

    void mark_ever(const Win &w) {
        if (!w.writable()) return;
        for (uint64_t i = 0; i < w.len; i++) {
            uint64_t a = w.base + i;
            if (a < LOW_SIZE) lo_ever[a] = 1;
            else if (a >= HI_BASE) hi_ever[a - HI_BASE] = 1;
        }
    }

    Win random_window() {
        Win w;
        unsigned r = (unsigned)rng.below(100);
        uint64_t len;
        switch (rng.below(6)) {
            case 0: len = 1; break;
            case 1: len = rng.range(1, 128); break;
            case 2: len = 4096; break;
            case 3: len = rng.range(1, 64 << 10); break;
            case 4: len = rng.range(1, 1 << 20); break;
            default: len = rng.range(1, 8192); break;
        }
        if (r < 20) {   // in the high region, some ending at 2^64
            len = std::min<uint64_t>(len, HI_SIZE);
            w.base = rng.chance(0.5) ? 0 - len : HI_BASE + rng.below(HI_SIZE - len + 1);
        } else {
            len = std::min<uint64_t>(len, FZ_HI - FZ_LO);
            w.base = FZ_LO + rng.below(FZ_HI - FZ_LO - len + 1);
        }
        w.len = len;
        w.tag = (unsigned)rng.range(1, (1u << TAG_W) - 1);
        w.pd = (unsigned)rng.below(QRDMA_NUM_PAGES);
        w.wr = rng.chance(0.85);
        w.rd = rng.chance(0.5);
        w.lwr = rng.chance(0.3);
        w.valid = rng.chance(0.9);
        return w;
    }

    void setup_windows() {
        legit_win = (unsigned)rng.below(WINDOWS);
        std::vector<unsigned> idx;
        for (unsigned i = 0; i < WINDOWS; i++)
            if (i != legit_win) idx.push_back(i);
        for (size_t i = idx.size(); i > 1; i--) std::swap(idx[i - 1], idx[rng.below(i)]);
        unsigned n = std::min<unsigned>(24, WINDOWS - 1);
        fz_wins.assign(idx.begin(), idx.begin() + n);
        for (unsigned i = 0; i < WINDOWS; i++) {
            Win w;
            if (i == legit_win) {
                w.base = LEGIT_LO;
                w.len = LEGIT_HI - LEGIT_LO;
                w.tag = (unsigned)rng.range(1, (1u << TAG_W) - 1);
                w.pd = legit_pd = (unsigned)rng.below(QRDMA_NUM_PAGES);
                w.wr = w.valid = true;
            } else if (std::find(fz_wins.begin(), fz_wins.end(), i) != fz_wins.end()) {
                w = random_window();
            } else {    // empty entries, written with some contents
                w = random_window();
                w.valid = false;
            }
            write_window(i, w);
            tick();
        }
        idle_cycles(8);
    }

    // a window register write: one cycle with win_we
    void write_window(unsigned i, const Win &w) {
        Win &old = win[i];
        if (old.writable()) retiring.push_back({old.base, (unsigned __int128)old.base + old.len});
        old = w;
        mark_ever(w);
        dut->win_we = 1;
        dut->win_index = (uint16_t)i;
        dut->win_base = w.base;
        dut->win_len = w.len;
        dut->win_tag = (uint8_t)w.tag;
        dut->win_pd = (uint8_t)w.pd;
        dut->win_wr = w.wr;
        dut->win_rd = w.rd;
        dut->win_lwr = w.lwr;
        dut->win_valid = w.valid;
    }

    // ---------------------------------------------------------------- prediction
    bool permits(const Hdr &h) const {
        unsigned idx = h.rkey >> TAG_W;
        if (idx >= WINDOWS) return false;
        const Win &w = win[idx];
        bool rreq = h.ptype == QRDMA_NET_READ_REQ;
        bool perm = rreq ? w.rd : (h.ptype == QRDMA_NET_DATA && h.resp) ? w.lwr : w.wr;
        unsigned n = rreq ? h.rd_size : h.len;
        return w.valid && perm && w.tag == (h.rkey & ((1u << TAG_W) - 1)) && w.pd == h.pd &&
               w.base <= h.dst_addr &&
               (unsigned __int128)h.dst_addr + n <= (unsigned __int128)w.base + w.len;
    }

    // docs/nic.md "Receive unit": the malformed packets (tests/rx/test_qrdma_rx.py _bad)
    static bool malformed(const Hdr &h, unsigned nb) {
        bool bad = h.dst_node != NODE_ID || nb > MAXB;
        switch (h.ptype) {
            case QRDMA_NET_DATA:
                return bad || h.len == 0 || h.len > MAX_PAYLOAD ||
                       (h.dst_addr % MAX_PAYLOAD) + h.len > MAX_PAYLOAD || h.blk_pkts == 0 ||
                       h.blk_pkts > MAX_BLK_PKTS || h.pkt_idx >= h.blk_pkts ||
                       nb != (unsigned)((h.dst_addr % BEAT + h.len + BEAT - 1) / BEAT);
            case QRDMA_NET_INLINE:
                return bad || h.len == 0 || h.len > QRDMA_INLINE_MAX || nb != 0;
            case QRDMA_NET_CONTROL:
            case QRDMA_NET_ACK:
            case QRDMA_NET_NACK:
            case QRDMA_NET_REGISTER:
                return bad || nb != 0;
            case QRDMA_NET_MISS:
                return bad || nb != 0 || h.miss_cnt == 0 || h.pkt_idx + h.miss_cnt > 256;
            case QRDMA_NET_READ_REQ: {
                if (bad || nb != 0 || h.len != 0 || h.rd_size == 0) return true;
                unsigned last = (unsigned)((h.rd_laddr % MAX_PAYLOAD + h.rd_size - 1) / MAX_PAYLOAD);
                return last > 255 || h.pkt_idx > last ||
                       (h.miss_cnt != 0 && h.pkt_idx + h.miss_cnt > last + 1);
            }
            default:
                return true;
        }
    }

    // the classes a random packet may be counted in, and its m_ack / m_miss record
    void classify(Pkt &pk) {
        const Hdr &h = pk.h;
        if (pk.bad_crc) { pk.cls = C_CRC; return; }
        if (malformed(h, pk.nb())) { pk.cls = C_BAD; return; }
        switch (h.ptype) {
            case QRDMA_NET_ACK:
            case QRDMA_NET_NACK: {
                uint8_t b[4] = {};
                bool nack = h.ptype == QRDMA_NET_NACK;
                qrdma_put_bits(b, QRDMA_ACK_DESC_TID_LSB, QRDMA_ACK_DESC_TID_W, h.tid);
                qrdma_put_bits(b, QRDMA_ACK_DESC_SEQ_LSB, QRDMA_ACK_DESC_SEQ_W, h.seq);
                qrdma_put_bits(b, QRDMA_ACK_DESC_NACK_LSB, QRDMA_ACK_DESC_NACK_W, nack);
                qrdma_put_bits(b, QRDMA_ACK_DESC_REASON_LSB, QRDMA_ACK_DESC_REASON_W,
                               nack ? h.reason : 0);
                uint32_t v;
                memcpy(&v, b, 4);
                acks.push_back(v);
                pk.cls = C_CTRL;
                return;
            }
            case QRDMA_NET_MISS: {
                uint8_t b[8] = {};
                qrdma_put_bits(b, QRDMA_MISS_DESC_TID_LSB, QRDMA_MISS_DESC_TID_W, h.tid);
                qrdma_put_bits(b, QRDMA_MISS_DESC_SEQ_LSB, QRDMA_MISS_DESC_SEQ_W, h.seq);
                qrdma_put_bits(b, QRDMA_MISS_DESC_PKT_FIRST_LSB, QRDMA_MISS_DESC_PKT_FIRST_W,
                               h.pkt_idx);
                qrdma_put_bits(b, QRDMA_MISS_DESC_PKT_NUM_LSB, QRDMA_MISS_DESC_PKT_NUM_W,
                               h.miss_cnt);
                uint64_t v;
                memcpy(&v, b, 8);
                misses.push_back(v);
                pk.cls = C_CTRL;
                return;
            }
            case QRDMA_NET_CONTROL:
                pk.cls = C_CTRL | C_DUP | C_STALE;
                return;
            case QRDMA_NET_REGISTER:  // into the registration table, or dropped (counted)
                pk.cls = C_CTRL;
                return;
            case QRDMA_NET_READ_REQ:  // taken, or dropped when the job queue is full
                pk.cls = permits(h) ? C_READ : C_PROT;
                n_rreq_pass += pk.cls == C_READ;
                return;
            default: {  // DATA, INLINE
                unsigned idx = h.rkey >> TAG_W;
                const Win &w = win[idx < WINDOWS ? idx : 0];
                bool key_ok = idx < WINDOWS && w.open() && w.pd == h.pd &&
                              w.tag == (h.rkey & ((1u << TAG_W) - 1));
                if (!permits(h)) {
                    pk.cls = C_PROT;
                    n_straddle += key_ok;   // refused for its bytes alone
                    return;
                }
                n_pass++;
                n_pass_hi += h.dst_addr >= HI_BASE;
            }
                pk.cls = (h.ptype == QRDMA_NET_DATA ? C_DATA : C_CTRL) | C_DUP | C_STALE;
        }
    }

    // ---------------------------------------------------------------- random packets
    uint32_t key_of(unsigned i) const { return (i << TAG_W) | win[i].tag; }

    unsigned rand_len_data() {
        switch (rng.below(10)) {
            case 0: return 0;
            case 1: return 1;
            case 2: return MAX_PAYLOAD - 1;
            case 3: return MAX_PAYLOAD;
            case 4: return MAX_PAYLOAD + 1;
            case 5: return (unsigned)rng.below(1u << QRDMA_NET_HDR_LEN_W);
            case 6: return (1u << QRDMA_NET_HDR_LEN_W) - 1;
            default: return (unsigned)rng.range(1, MAX_PAYLOAD);
        }
    }

    unsigned rand_len_inline() {
        switch (rng.below(12)) {
            case 0: return 0;
            case 1: return 1;
            case 2: return QRDMA_INLINE_MAX;
            case 3: return QRDMA_INLINE_MAX + 1;
            case 4: return (unsigned)rng.below(1u << QRDMA_NET_HDR_LEN_W);
            default: return (unsigned)rng.range(1, QRDMA_INLINE_MAX);
        }
    }

    // a destination address for len bytes around window w
    uint64_t rand_addr(const Win &w, unsigned len) {
        uint64_t end = w.base + w.len;   // (0 for a window ending at 2^64)
        switch (rng.below(16)) {
            case 0: return end - rng.range(1, std::max(1u, len));           // past the end
            case 1: return w.base - rng.range(1, std::max(1u, len));        // before the base
            case 2: return end - len;                                       // the last bytes
            case 3: return w.base;
            case 4: return rng.next();
            case 5: return 0 - rng.range(1, 4096);                          // near 2^64
            case 6: return LEGIT_LO + rng.below(LEGIT_HI - LEGIT_LO);       // legit data
            case 7: return rng.below(LOW_SIZE);
            default: return w.base + rng.below(w.len > len ? w.len - len + 1 : 1);
        }
    }

    uint16_t fuzz_src() {
        uint16_t s = !fz_srcs.empty() && rng.chance(0.7) ? fz_srcs[rng.below(fz_srcs.size())]
                                     : (uint16_t)rng.below(1u << 16);
        if (s % NUM_NODES == LEGIT_RES) s = (uint16_t)(s - LEGIT_RES + (LEGIT_RES + 1) % NUM_NODES);
        return s;
    }

    Pkt fuzz_packet() {
        Pkt pk;
        for (unsigned i = 0; i < BEAT; i += 8) {   // every header bit random first
            uint64_t v = rng.next();
            memcpy(&pk.hdr[i], &v, 8);
        }
        Hdr &h = pk.h;
        unsigned r = (unsigned)rng.below(100);
        h.ptype = r < 34 ? QRDMA_NET_DATA : r < 50 ? QRDMA_NET_INLINE : r < 60 ? QRDMA_NET_CONTROL
                  : r < 68 ? QRDMA_NET_ACK : r < 73 ? QRDMA_NET_NACK : r < 80 ? QRDMA_NET_MISS
                  : r < 90 ? QRDMA_NET_READ_REQ : (unsigned)rng.below(16);
        h.dst_node = rng.chance(0.97) ? NODE_ID : (uint16_t)rng.below(1u << 16);
        h.src_node = fuzz_src();
        h.tid = (unsigned)(rng.chance(0.6) ? rng.below(16) : rng.below(1024));
        h.seq = (unsigned)rng.below(1u << 16);
        // gen and epoch: from a few values, so that packets meet their blocks
        PUT(pk, GEN, rng.chance(0.7) ? rng.below(4) : rng.below(1u << 16));
        PUT(pk, EPOCH, rng.chance(0.8) ? 0 : rng.below(256));
        h.blk_pkts = (unsigned)(rng.chance(0.6) ? rng.range(1, std::min(8u, MAX_BLK_PKTS))
                                : rng.chance(0.75) ? rng.range(0, MAX_BLK_PKTS + 1)
                                : rng.below(1u << QRDMA_NET_HDR_BLK_PKTS_W));
        h.pkt_idx = (unsigned)(rng.chance(0.93) && h.blk_pkts ? rng.below(h.blk_pkts)
                                                               : rng.below(512));
        h.miss_cnt = (unsigned)(rng.chance(0.7) ? rng.range(1, 8) : rng.below(512));
        if (h.ptype == QRDMA_NET_MISS && rng.chance(0.7)) h.pkt_idx &= 0xFF;
        h.reason = (unsigned)rng.below(16);
        PUT(pk, NOTIFY, rng.chance(0.3));
        PUT(pk, ASK, rng.chance(0.2));
        h.len = h.ptype == QRDMA_NET_INLINE ? rand_len_inline() : rand_len_data();
        h.resp = h.ptype == QRDMA_NET_DATA && rng.chance(0.25);
        if (h.ptype == QRDMA_NET_READ_REQ) {   // mostly well formed: no payload, a run
            if (rng.chance(0.85)) h.len = 0;
            h.rd_laddr = rng.next();
            h.rd_size = (unsigned)(rng.chance(0.05) ? 0 : rng.chance(0.6)
                                       ? rng.range(1, 16 * MAX_PAYLOAD)
                                       : rng.below(1u << QRDMA_NET_HDR_RD_SIZE_W));
            h.rd_size = std::min<unsigned>(h.rd_size, (1u << QRDMA_NET_HDR_RD_SIZE_W) - 1);
            if (rng.chance(0.6)) {
                h.pkt_idx = 0;
                h.miss_cnt = 0;
            } else if (rng.chance(0.7)) {
                h.pkt_idx = (unsigned)rng.below(4);
                h.miss_cnt = (unsigned)rng.below(4);
            }
        }
        // the window it aims at and its key
        unsigned wi = rng.chance(0.8) ? fz_wins[rng.below(fz_wins.size())]
                                      : (unsigned)rng.below(WINDOWS);
        const Win &w = win[wi];
        h.dst_addr = rand_addr(w, h.ptype == QRDMA_NET_READ_REQ ? h.rd_size : h.len);
        if (h.ptype == QRDMA_NET_DATA && rng.chance(0.75)) {  // mostly within MAX_PAYLOAD
            unsigned room = MAX_PAYLOAD - (unsigned)(h.dst_addr % MAX_PAYLOAD);
            if (h.len == 0 || h.len > room) h.len = (unsigned)rng.range(1, room);
        }
        unsigned k = (unsigned)rng.below(100);
        uint32_t key = key_of(wi);
        if (k < 65) {
        } else if (k < 73) {
            key ^= (uint32_t)rng.range(1, (1u << TAG_W) - 1);              // wrong tag
        } else if (k < 79) {
            key = ((uint32_t)rng.below(WINDOWS) << TAG_W) | w.tag;         // wrong index
        } else if (k < 84) {   // past the table: often the window's index and tag above it
            key = rng.chance(0.5)
                      ? (uint32_t)((wi + WINDOWS * rng.range(1, (1u << (32 - TAG_W)) / WINDOWS - 1))
                                   << TAG_W) | w.tag
                      : ((uint32_t)rng.range(WINDOWS, (1u << (32 - TAG_W)) - 1) << TAG_W) |
                            (uint32_t)rng.below(1u << TAG_W);
        } else if (k < 88) {
            key = 0;
        } else if (k < 92) {
            key = (uint32_t)rng.next();
        } else {
            key = key_of((unsigned)rng.below(WINDOWS));                    // another entry's
        }
        h.rkey = key;
        h.pd = rng.chance(0.85) ? w.pd : (unsigned)rng.below(QRDMA_NUM_PAGES);
        // never into the legit window: such a packet gets another protection domain
        if ((h.ptype == QRDMA_NET_DATA || h.ptype == QRDMA_NET_INLINE) &&
            (h.rkey >> TAG_W) == legit_win && permits(h))
            h.pd = (h.pd + 1) % QRDMA_NUM_PAGES;
        pack_hdr(pk);
        // payload: the right number of beats at the right lane, or not
        unsigned plen = 0;
        pk.lo = (unsigned)(h.dst_addr % BEAT);
        if (h.ptype == QRDMA_NET_DATA) {
            unsigned p = (unsigned)rng.below(100);
            plen = p < 88 ? h.len : p < 93 ? (unsigned)rng.below(MAX_PAYLOAD + 4 * BEAT)
                   : p < 97 ? h.len + (unsigned)rng.range(1, BEAT) : (h.len > 0 ? h.len - 1 : 0);
            if (rng.chance(0.03)) pk.lo = (unsigned)rng.below(BEAT);
        } else if (rng.chance(0.05)) {
            plen = (unsigned)rng.range(1, 3 * BEAT);   // (a malformed one-beat packet)
            pk.lo = (unsigned)rng.below(BEAT);
        }
        pk.pay.resize(plen);
        for (auto &b : pk.pay) b = (uint8_t)rng.next();
        seal(pk, rng.chance(0.01), rng);
        classify(pk);
        return pk;
    }

    // ---------------------------------------------------------------- legit blocks
    bool start_legit_block() {
        unsigned tid = ltid;
        for (unsigned i = 0; i < 1024 && lblk[tid].live; i++) tid = (tid + 1) % 1024;
        if (lblk[tid].live) return false;
        int slot = -1;
        for (unsigned i = 0, s = (unsigned)rng.below(LEGIT_SLOTS); i < LEGIT_SLOTS; i++)
            if (!slot_busy[(s + i) % LEGIT_SLOTS]) { slot = (int)((s + i) % LEGIT_SLOTS); break; }
        if (slot < 0) return false;
        ltid = (tid + 1) % 1024;
        uint64_t size = rng.chance(0.4) ? rng.range(1, 200) : rng.range(1, 8 * MAX_PAYLOAD);
        uint64_t dst = LEGIT_LO + (uint64_t)slot * SLOT_BYTES + rng.below(SLOT_BYTES - size + 1);
        LBlk &b = lblk[tid];
        b.live = true;
        b.sent_all = false;
        b.seq = lseq;
        lseq = (lseq + (unsigned)rng.range(1, 3)) & 0xFFFF;
        b.slot = (unsigned)slot;
        b.dst = dst;
        b.size = size;
        slot_busy[slot] = true;
        unsigned gen = lgen[tid] = (lgen[tid] + 1) & 0xFFFF;
        bool notify = rng.chance(0.2);
        std::vector<uint8_t> data(size);
        for (auto &x : data) x = (uint8_t)rng.next();
        memcpy(&legit_exp[dst - LEGIT_LO], data.data(), size);
        // packets split at multiples of MAX_PAYLOAD (docs/nic.md "Packetization")
        std::vector<std::pair<uint64_t, unsigned>> parts;
        for (uint64_t off = 0; off < size;) {
            uint64_t a = dst + off;
            unsigned n = (unsigned)std::min<uint64_t>(size - off, MAX_PAYLOAD - a % MAX_PAYLOAD);
            parts.push_back({off, n});
            off += n;
        }
        auto common = [&](Pkt &pk, unsigned ptype) {
            Hdr &h = pk.h;
            h.ptype = ptype;
            h.dst_node = NODE_ID;
            h.src_node = legit_src;
            h.tid = tid;
            h.seq = b.seq;
            h.pd = legit_pd;
            PUT(pk, GEN, gen);
            PUT(pk, EPOCH, lepoch);
            PUT(pk, NOTIFY, notify);
            PUT(pk, LAST, notify);
            PUT(pk, XFER, rng.below(2048));
            pk.legit = true;
            pk.legit_tid = (int)tid;
        };
        std::vector<Pkt> pkts;
        for (size_t i = 0; i < parts.size(); i++) {
            Pkt pk;
            common(pk, QRDMA_NET_DATA);
            Hdr &h = pk.h;
            h.pkt_idx = (unsigned)i;
            h.blk_pkts = (unsigned)parts.size();
            h.len = parts[i].second;
            h.dst_addr = dst + parts[i].first;
            h.rkey = key_of(legit_win);
            pack_hdr(pk);
            pk.lo = (unsigned)(h.dst_addr % BEAT);
            pk.pay.assign(data.begin() + (long)parts[i].first,
                          data.begin() + (long)(parts[i].first + parts[i].second));
            seal(pk, false, rng);
            pk.cls = C_DATA;
            pkts.push_back(std::move(pk));
        }
        if (notify) {
            Pkt pk;
            common(pk, QRDMA_NET_CONTROL);
            pk.h.dst_addr = dst;
            pack_hdr(pk);
            PUT(pk, SIZE, size);
            PUT(pk, BLOCKS, 1);
            PUT(pk, TAG, rng.next() & 0xFFFFFFFFu);
            seal(pk, false, rng);
            pk.cls = C_CTRL;
            size_t at = rng.chance(0.6) ? pkts.size() : rng.below(pkts.size() + 1);
            pkts.insert(pkts.begin() + (long)at, std::move(pk));
        }
        pkts.back().legit_last = true;
        for (auto &p : pkts) legit_q.push_back(std::move(p));
        legit_blocks++;
        return true;
    }

    void on_legit_rsp(const uint8_t *r) {
        unsigned tid = (unsigned)QRDMA_RSP_DESC_TID_GET(r);
        unsigned seq = (unsigned)QRDMA_RSP_DESC_SEQ_GET(r);
        LBlk &b = lblk[tid];
        char msg[200];
        snprintf(msg, sizeof msg, "legit response tid %u seq %u nack %u reason %u miss %u",
                 tid, seq, (unsigned)QRDMA_RSP_DESC_NACK_GET(r),
                 (unsigned)QRDMA_RSP_DESC_REASON_GET(r), (unsigned)QRDMA_RSP_DESC_MISS_GET(r));
        if (!b.live) fail(std::string(msg) + ": no such block outstanding");
        if (b.seq != seq || QRDMA_RSP_DESC_NACK_GET(r) || QRDMA_RSP_DESC_MISS_GET(r) ||
            QRDMA_RSP_DESC_REASON_GET(r))
            fail(std::string(msg) + ": expected the ACK of seq " + std::to_string(b.seq));
        if (!b.sent_all) fail(std::string(msg) + ": ACK before the block's last packet was sent");
        if (memcmp(&lo_mem[b.dst], &legit_exp[b.dst - LEGIT_LO], b.size) != 0) {
            uint64_t i = 0;
            while (lo_mem[b.dst + i] == legit_exp[b.dst - LEGIT_LO + i]) i++;
            snprintf(msg, sizeof msg, "legit block tid %u seq %u [%#" PRIx64 ", +%" PRIu64
                     "): ACKed, byte %" PRIu64 " differs", tid, seq, b.dst, b.size, i);
            fail(msg);
        }
        b.live = false;
        slot_busy[b.slot] = false;
        legit_acked++;
    }

    // ---------------------------------------------------------------- the stream
    enum { S_NEXT, S_SEND, S_WIN_PRE, S_WIN_POST, S_DRAIN, S_DONE } st = S_NEXT;
    Pkt cur;
    unsigned beat = 0, wait = 0;
    bool offering = false;
    uint64_t stuck = 0, drain_t = 0, next_drain = 0, next_win = 0, next_phase = 0;
    std::vector<uint8_t> bytes;   // cur's wire bytes: header, then the payload beats

    void load(Pkt &&pk) {
        cur = std::move(pk);
        beat = 0;
        pulses.push_back({cur.cls, pkt_no++, summary(cur)});
        sent++;
        if (cur.legit) legit_pkts++;
        else fuzz_sent++;
        // beats: header, then lanes lo.. of the first payload beat, ...
        unsigned nb = cur.nb();
        bytes.assign((size_t)(1 + nb) * BEAT, 0);
        memcpy(bytes.data(), cur.hdr, BEAT);
        if (!cur.pay.empty()) memcpy(&bytes[BEAT + cur.lo], cur.pay.data(), cur.pay.size());
        st = S_SEND;
    }

    uint64_t keep_of(unsigned b) const {
        if (b == 0) return ~0ull;
        uint64_t first = (uint64_t)(b - 1) * BEAT, lo_b = cur.lo, hi_b = cur.lo + cur.pay.size();
        uint64_t s = std::max(first, lo_b), e = std::min(first + BEAT, hi_b);
        if (e <= s) return 0;
        unsigned n = (unsigned)(e - s), off = (unsigned)(s - first);
        return (n == 64 ? ~0ull : ((1ull << n) - 1)) << off;
    }

    void pick_next() {
        if (fuzz_sent >= n_fuzz && legit_q.empty()) {
            st = S_DONE;
            return;
        }
        if (fuzz_sent >= next_win && fuzz_sent < n_fuzz) {
            st = S_WIN_PRE;
            wait = 12;
            return;
        }
        if (fuzz_sent >= next_drain && fuzz_sent < n_fuzz) {
            st = S_DRAIN;
            drain_t = cycle;
            return;
        }
        if (legit_q.empty() && fuzz_sent < n_fuzz && rng.chance(p_legit)) start_legit_block();
        if (!legit_q.empty() && (fuzz_sent >= n_fuzz || rng.chance(p_legit * 4))) {
            Pkt pk = std::move(legit_q.front());
            legit_q.pop_front();
            if (pk.legit_last) lblk[pk.legit_tid].sent_all = true;
            load(std::move(pk));
            return;
        }
        if (fuzz_sent < n_fuzz) load(fuzz_packet());
    }

    void change_window() {
        unsigned i = fz_wins[rng.below(fz_wins.size())];
        Win w = win[i];
        switch (rng.below(5)) {
            case 0: w.tag = (w.tag % ((1u << TAG_W) - 1)) + 1; w.valid = true; break;
            case 1: w = random_window(); break;
            case 2: w.valid = false; break;
            case 3: w.wr = !w.wr; w.rd = rng.chance(0.5); w.lwr = rng.chance(0.3); break;
            default: w.pd = (w.pd + 1) % QRDMA_NUM_PAGES; break;
        }
        write_window(i, w);
        win_changes++;
    }

    void new_phase() {
        static const double idle[] = {0.0, 0.0, 0.1, 0.5};
        static const double ready[] = {1.0, 0.8, 0.5, 0.2};
        p_idle = idle[rng.below(4)];
        p_aw = ready[rng.below(4)];
        p_w = ready[rng.below(4)];
        p_b = ready[rng.below(4)];
        p_ack = ready[rng.below(4)];
        p_rsp = ready[rng.below(4)];
        p_sw = rng.chance(0.2) ? 0.005 : rng.chance(0.5) ? 0.05 : 0.5;
        next_phase = cycle + rng.range(2000, 40000);
    }

    bool drained() const {
        return !dut->busy && aws.empty() && bs.empty() && pulses.empty() && acks.empty() &&
               misses.empty();
    }

    // ---------------------------------------------------------------- one clock cycle
    // Inputs for the cycle, evaluate, sample the handshakes, clock edge, act on them.
    void tick() {
        Vqrdma_rx &d = *dut;
        // stream
        bool want = false;
        if (st == S_SEND) want = offering || !rng.chance(p_idle);
        d.s_axis_rx_tvalid = want;
        if (want) {
            for (unsigned i = 0; i < 16; i++) {
                uint32_t v;
                memcpy(&v, &bytes[(size_t)beat * BEAT + 4 * i], 4);
                d.s_axis_rx_tdata[i] = v;
            }
            d.s_axis_rx_tkeep = keep_of(beat);
            bool last = beat + 1 == cur.beats();
            d.s_axis_rx_tlast = last;
            d.s_axis_rx_tuser = last ? cur.tuser : 0;
        }
        // AXI slave, sinks
        d.m_axi_awready = rng.chance(p_aw);
        d.m_axi_wready = !aws.empty() && rng.chance(p_w);
        bool bv = !bs.empty() && bs.front().at <= cycle;
        d.m_axi_bvalid = bv;
        d.m_axi_bid = bv ? (uint8_t)bs.front().id : 0;
        d.m_axi_bresp = 0;
        d.m_ack_ready = rng.chance(p_ack);
        d.m_rsp_ready = rng.chance(p_rsp);
        d.m_rd_ready = rng.chance(p_rsp);
        d.cfg_nq_tail = nq_tail;
        d.clk = 0;
        d.eval();

        // sample
        bool s_fire = want && d.s_axis_rx_tready;
        bool aw_fire = d.m_axi_awvalid && d.m_axi_awready;
        uint64_t aw_addr = d.m_axi_awaddr;
        unsigned aw_len = d.m_axi_awlen, aw_size = d.m_axi_awsize, aw_burst = d.m_axi_awburst;
        unsigned aw_id = d.m_axi_awid;
        bool w_fire = d.m_axi_wvalid && d.m_axi_wready;
        uint8_t wdata[64];
        uint64_t wstrb = d.m_axi_wstrb;
        bool wlast = d.m_axi_wlast;
        if (w_fire)
            for (unsigned i = 0; i < 16; i++) {
                uint32_t v = d.m_axi_wdata[i];
                memcpy(&wdata[4 * i], &v, 4);
            }
        bool b_fire = bv && d.m_axi_bready;
        bool ack_fire = d.m_ack_valid && d.m_ack_ready;
        uint32_t ack_data = d.m_ack_data;
        bool rsp_fire = d.m_rsp_valid && d.m_rsp_ready;
        uint8_t rsp[12] = {};
        if (rsp_fire)
            for (unsigned i = 0; i < 3; i++) {
                uint32_t v = d.m_rsp_data[i];
                memcpy(&rsp[4 * i], &v, 4);
            }
        bool miss_v = d.m_miss_valid;
        uint64_t miss_data = d.m_miss_data;
        uint8_t cls = (uint8_t)((d.stat_data_pkt ? C_DATA : 0) | (d.stat_ctrl_pkt ? C_CTRL : 0) |
                                (d.stat_crc_drop ? C_CRC : 0) | (d.stat_dup_drop ? C_DUP : 0) |
                                (d.stat_stale_drop ? C_STALE : 0) |
                                (d.stat_bad_drop ? C_BAD : 0) | (d.stat_prot_drop ? C_PROT : 0) |
                                (d.stat_read_req || d.stat_read_drop ? C_READ : 0));
        bool rd_fire = d.m_rd_valid && d.m_rd_ready;
        n_read_req += d.stat_read_req;

        d.clk = 1;
        d.eval();
        cycle++;
        d.win_we = 0;
        if (ctx->gotFinish()) fail("the simulation finished ($finish or an RTL assertion)");

        // stream
        if (want) {
            offering = !s_fire;
            stuck = s_fire ? 0 : stuck + 1;
            if (stuck >= STUCK)
                fail("no beat taken for " + std::to_string(STUCK) + " cycles, offering beat " +
                     std::to_string(beat) + " of " + describe(summary(cur)));
            if (s_fire && ++beat == cur.beats()) {
                offering = false;
                st = S_NEXT;
            }
        }
        // AXI
        if (aw_fire) {
            char m[160];
            if (aw_size != 6 || aw_burst != 1 || aw_addr % BEAT) {
                snprintf(m, sizeof m, "AW addr %#" PRIx64 " size %u burst %u", aw_addr, aw_size,
                         aw_burst);
                fail(m);
            }
            if ((aw_addr & 4095) + (uint64_t)(aw_len + 1) * BEAT > 4096) {
                snprintf(m, sizeof m, "AW addr %#" PRIx64 " len %u crosses 4 KiB", aw_addr,
                         aw_len);
                fail(m);
            }
            aws.push_back({aw_addr, aw_len + 1, 0, aw_id});
        }
        if (w_fire) on_w(wdata, wstrb, wlast);
        if (b_fire) bs.pop_front();
        if (ack_fire) {
            if (acks.empty()) fail("m_ack record " + std::to_string(ack_data) + " unexpected");
            if (acks.front() != ack_data)
                fail("m_ack record " + std::to_string(ack_data) + ", expected " +
                     std::to_string(acks.front()));
            acks.pop_front();
        }
        if (rsp_fire) {
            rsps++;
            unsigned dst = (unsigned)QRDMA_RSP_DESC_DST_NODE_GET(rsp);
            if (dst == legit_src) on_legit_rsp(rsp);
            else if (dst % NUM_NODES == LEGIT_RES)
                fail("response to node " + std::to_string(dst) + ": no such sender");
        }
        if (miss_v) {
            miss_in++;
            if (misses.empty() || misses.front() != miss_data)
                fail("m_miss record " + std::to_string(miss_data) + " unexpected");
            misses.pop_front();
        }
        if (rd_fire) n_rd_jobs++;
        if (cls) on_pulse(cls);
        // software: takes ring entries (briskly while the stream waits for the unit)
        if (rng.chance(st == S_DRAIN || st == S_DONE ? 0.5 : p_sw)) {
            uint8_t &mk = lo_mem[RING_BASE + 64 * (nq_tail % nq_size)];
            if (mk == QRDMA_NOTIF_FULL) {
                mk = QRDMA_NOTIF_EMPTY;
                nq_tail++;
                notif_taken++;
            }
        }
        if (cycle >= next_phase) new_phase();
    }

    void on_pulse(uint8_t cls) {
        if (cls & (cls - 1)) fail("one packet counted twice: stat pulses " + std::to_string(cls));
        unsigned k = 0;
        while (!(cls >> k & 1)) k++;
        n_class[k]++;
        if (pulses.empty()) fail(std::string("stat_") + CLASS_NAMES[k] + " pulse without a packet");
        Expect &e = pulses.front();
        if (!(e.cls & cls)) {
            std::string allowed;
            for (unsigned i = 0; i < N_CLASSES; i++)
                if (e.cls >> i & 1) allowed += std::string(allowed.empty() ? "" : "/") + CLASS_NAMES[i];
            fail("packet #" + std::to_string(e.n) + " counted as " + CLASS_NAMES[k] +
                 ", expected " + allowed + ": " + describe(e.what));
        }
        pulses.pop_front();
    }

    // [a, b] (b >= a) lies in one window open for writes now, one retiring, or the ring
    bool allowed(uint64_t a, uint64_t b) const {
        if (a >= RING_BASE && b < RING_BASE + 64ull * nq_size) return true;
        for (unsigned i = 0; i < WINDOWS; i++) {
            const Win &w = win[i];
            if (w.writable() && a >= w.base && (unsigned __int128)b < (unsigned __int128)w.base + w.len)
                return true;
        }
        for (const Range &r : retiring)
            if (a >= r.lo && (unsigned __int128)b < r.hi) return true;
        return false;
    }

    void on_w(const uint8_t *data, uint64_t strb, bool wlast) {
        Aw &aw = aws.front();
        uint64_t base = aw.addr + (uint64_t)aw.done * BEAT;
        // the strobed bytes in one region (the usual case), else byte by byte
        bool whole = strb && allowed(base + (unsigned)__builtin_ctzll(strb),
                                     base + 63 - (unsigned)__builtin_clzll(strb));
        for (unsigned i = 0; i < BEAT; i++) {
            if (!(strb >> i & 1)) continue;
            uint64_t a = base + i;
            uint8_t *m = whole || allowed(a, a) ? at(a) : nullptr;
            if (!m) {
                char msg[200];
                snprintf(msg, sizeof msg, "write of byte %#" PRIx64 " (burst at %#" PRIx64
                         ", beat %u, strobe %#" PRIx64 "): outside every writable window",
                         a, aw.addr, aw.done, strb);
                fail(msg);
            }
            *m = data[i];
        }
        w_beats++;
        w_fz += base < LEGIT_LO || base >= LEGIT_HI;
        aw.done++;
        if (wlast != (aw.done == aw.beats))
            fail("wlast " + std::to_string(wlast) + " at beat " + std::to_string(aw.done) +
                 " of a burst of " + std::to_string(aw.beats));
        if (aw.done == aw.beats) {
            bs.push_back({cycle + rng.below(p_b > 0.9 ? 2 : 30), aw.id});
            aws.pop_front();
        }
    }

    // ---------------------------------------------------------------- run
    void idle_cycles(unsigned n) {
        for (unsigned i = 0; i < n; i++) tick();
    }

    int run() {
        crc_init();
        ctx = std::make_unique<VerilatedContext>();
        dut = std::make_unique<Vqrdma_rx>(ctx.get());
        init_memory();
        legit_src = (uint16_t)((rng.below(1u << 16) & ~(uint64_t)(NUM_NODES - 1)) | LEGIT_RES);
        lepoch = (unsigned)rng.below(256);
        for (auto &g : lgen) g = (unsigned)(0x10000 - rng.range(1, 3));   // they wrap
        lseq = (unsigned)(0x10000 - rng.range(1, 300));
        for (unsigned i = 0; i < 6; i++) fz_srcs.push_back(fuzz_src());
        nq_size = 1u << rng.range(1, 4);
        Vqrdma_rx &d = *dut;
        d.node_id = NODE_ID;
        d.cfg_nq_base = RING_BASE;
        d.cfg_nq_size = nq_size;
        d.cfg_nq_reset = 0;
        d.cfg_prot_open = 0;
        d.rst = 1;
        idle_cycles(10);
        d.rst = 0;
        idle_cycles(NENT + WINDOWS + 16);   // the tables' clearing after reset
        setup_windows();
        new_phase();
        next_drain = rng.range(1000, 50000);
        next_win = rng.range(1000, 30000);
        auto t0 = std::chrono::steady_clock::now();
        uint64_t c0 = cycle;
        printf("fuzz_rx: seed %" PRIu64 ", %" PRIu64 " random packets, legit source %u, "
               "window %u legit, %zu random windows, ring of %u\n",
               seed, n_fuzz, legit_src, legit_win, fz_wins.size(), nq_size);
        fflush(stdout);
        while (st != S_DONE) {
            switch (st) {
                case S_NEXT: pick_next(); break;
                case S_WIN_PRE:
                    if (--wait == 0) {
                        change_window();
                        st = S_WIN_POST;
                        wait = 12;
                    }
                    break;
                case S_WIN_POST:
                    if (--wait == 0) {
                        next_win = fuzz_sent + rng.range(1000, 30000);
                        st = S_NEXT;
                    }
                    break;
                case S_DRAIN:
                    if (drained()) {
                        retiring.clear();
                        drains++;
                        next_drain = fuzz_sent + rng.range(1000, 50000);
                        st = S_NEXT;
                    } else if (cycle - drain_t > STUCK) {
                        fail("the unit does not drain (busy " + std::to_string(d.busy) +
                             ", " + std::to_string(pulses.size()) + " packets not counted)");
                    }
                    break;
                default: break;
            }
            if (st == S_DONE) break;
            tick();
        }
        // the end: everything drains, every legit block is ACKed
        uint64_t t_end = cycle;
        while (!(drained() && legit_acked == legit_blocks)) {
            tick();
            if (cycle - t_end > STUCK)
                fail("not drained at the end: busy " + std::to_string(d.busy) + ", " +
                     std::to_string(pulses.size()) + " packets not counted, " +
                     std::to_string(legit_blocks - legit_acked) + " legit blocks not ACKed");
        }
        retiring.clear();
        idle_cycles(2000);   // nothing more comes
        if (!drained() || !pulses.empty()) fail("activity after the drain");
        if (n_rd_jobs != n_read_req)
            fail(std::to_string(n_rd_jobs) + " read-response jobs out for " +
                 std::to_string(n_read_req) + " READ_REQs taken");
        final_memory();
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        uint64_t cyc = cycle - c0;
        printf("fuzz_rx: PASS: %" PRIu64 " packets (%" PRIu64 " random, %" PRIu64
               " legit in %" PRIu64 " blocks, all ACKed), %" PRIu64 " cycles, %.1f s: "
               "%.0f packets/s, %.0f cycles/s\n",
               sent, fuzz_sent, legit_pkts, legit_blocks, cyc, secs, sent / secs, cyc / secs);
        printf("fuzz_rx: counted");
        for (unsigned i = 0; i < N_CLASSES; i++) printf(" %s %" PRIu64, CLASS_NAMES[i], n_class[i]);
        printf("; %" PRIu64 " window changes, %" PRIu64 " drains, %" PRIu64 " W beats, %" PRIu64
               " responses, %" PRIu64 " MISS in, %" PRIu64 " notifications taken\n",
               win_changes, drains, w_beats, rsps, miss_in, notif_taken);
        printf("fuzz_rx: random DATA/INLINE passing the check %" PRIu64 " (%" PRIu64
               " near 2^64), refused for their bytes alone %" PRIu64 "; W beats outside the "
               "legit window %" PRIu64 "\n", n_pass, n_pass_hi, n_straddle, w_fz);
        printf("fuzz_rx: READ_REQs passing the check %" PRIu64 ", taken %" PRIu64 "\n",
               n_rreq_pass, n_read_req);
        dut->final();
        return 0;
    }

    void final_memory() {
        for (uint64_t a = 0; a < LOW_SIZE; a++) {
            if (a >= RING_BASE) break;
            if (a >= LEGIT_LO && a < LEGIT_HI) {
                if (lo_mem[a] != legit_exp[a - LEGIT_LO])
                    fail("legit window byte " + std::to_string(a) + " differs at the end");
            } else if (!lo_ever[a] && lo_mem[a] != lo_init[a]) {
                fail("byte " + std::to_string(a) + " outside every writable window changed");
            }
        }
        for (uint64_t i = 0; i < HI_SIZE; i++)
            if (!hi_ever[i] && hi_mem[i] != hi_init[i])
                fail("byte 2^64-" + std::to_string(HI_SIZE - i) +
                     " outside every writable window changed");
    }
};

}  // namespace

int main(int argc, char **argv) {
    uint64_t seed = 1, n = 1000000;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--seed" && i + 1 < argc) seed = strtoull(argv[++i], nullptr, 0);
        else if (a == "--packets" && i + 1 < argc) n = strtoull(argv[++i], nullptr, 0);
        else if (a.rfind("+verilator", 0) == 0) continue;
        else {
            fprintf(stderr, "usage: %s [--seed N] [--packets N]\n", argv[0]);
            return 2;
        }
    }
    Fuzz f(seed, n);
    return f.run();
}
