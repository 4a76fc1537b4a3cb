/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * qrdma_sim_bench_datapath: the datapath benchmarks of issue 4 ("Benchmarks"): node 0
 * writes to node 1 of a 2-node simulation (sim/, docs/sim.md; harness defaults: memory
 * read 200 cycles, write 100, link 100, MMIO round trip 30, link 64 bytes/cycle) through
 * libqrdma on the simulation backend. Figures on stdout, JSON with --json FILE.
 *
 * throughput (sizes 64 B .. 4 MiB, powers of 2; source and destination aligned to the size,
 * at least 4 KiB, at most a 64 KiB block: a transfer is whole blocks or lies in one):
 *   outstanding 1:  post on channel 0, poll its single status back to back until DONE,
 *                   post the next. One warm-up transfer, then n measured:
 *                   bytes/cycle = n x size / (post of the first measured -> the status
 *                   read that saw the last one DONE, that read included).
 *   outstanding 64: channels 0..63 of page 0 each keep one transfer in flight (own
 *                   source and destination slot); completions are learnt by collective
 *                   status reads (two per round, channels 0-31 and 32-63) and the slot is
 *                   re-posted at once. After a warm-up of W0 cycles from the first post, a
 *                   window of W cycles is measured: bytes/cycle = 64 x (W beats node 1's
 *                   memory took in the window) / (cycles of the window). Every transfer
 *                   is 64-byte aligned and a multiple of 64 bytes, so each W beat is 64
 *                   payload bytes, and no notification is written. After the window no
 *                   more is posted and every transfer in flight is drained (completed and
 *                   verified). The transfers completed in the window give a second figure
 *                   (completed_bytes_per_cycle, coarse for large sizes).
 * payload_efficiency_1k: a stream of 1 KiB transfers (1 KiB aligned: one 1 KiB DATA packet
 *   each), with notification (so the forward link carries DATA and CONTROL packets), 64
 *   outstanding; counts taken with the links quiet before and after the stream: node 0's
 *   tx beats (harness), TX_BYTES, TX_DATA_PKTS, TX_CTRL_PKTS (node 0's counters), node 1's
 *   tx beats (the reverse link: ACKs). data_only = TX_BYTES / (tx beats - TX_CTRL_PKTS)
 *   (every control packet is one beat), all_forward = TX_BYTES / tx beats.
 * latency (idle system, one transfer at a time, with notification; 8 B inline, memory
 *   writes of 64 B .. 64 KiB):
 *   t_post: the cycle in which the CPU issues the descriptor write (qrdma_now() just
 *           before qrdma_post_*; the MMIO model offers it on the host port rt/2 = 15 cycles
 *           later);
 *   notification: first cycle at whose start node 1's ring entry reads NOTIF_FULL (the
 *           NIC's write has landed in host memory; checked every cycle, no polling cost);
 *   done: a separate run: the sender polls the channel's single status back to back from
 *           the post; the cycle in which the read that returns DONE reaches the CPU (so it
 *           includes up to one read, ~32 cycles, of polling granularity and 15 cycles of
 *           return trip).
 *
 * Data: every transfer is verified (destination slot poisoned with the complement of the
 * source before the post, compared after DONE; guard bytes after every slot checked at
 * the end of a size; notifications checked field by field). Any mismatch, ERROR status,
 * harness error or timeout prints "FAILED" and exits non-zero (2 data, 3 other).
 *
 * Budget (~11.4 M simulated cycles, ~2 min of one core): outstanding 1: 1 warm-up + n
 * measured transfers, n = clamp(100,000 / (800 + size/64), 2, 64); outstanding 64: up to
 * 64 KiB warm-up clamp(1.5 x size, 10,000, 98,304) and window clamp(2 x size, 50,000,
 * 131,072) cycles, above 10,000 and 50,000, plus the drain (64 x size / 60 cycles: 4.5 M
 * at 4 MiB, the largest part); efficiency: 2,000 transfers; latency: median of 3.
 *
 * Every measurement (each latency size, the efficiency stream, each throughput row) runs
 * on a fresh 2-node simulation (sequence numbers from 0, tables clean). --one-sim runs
 * them all on one simulation instead, as one long-lived program would: on the RTL of
 * commit 4b09235 it hangs at 16 KiB x 64 outstanding (a block dropped as stale by the receiver
 * once the global 16-bit sequence number has moved more than 2^15 past its TID's previous
 * use; docs/nic.md "Measured").
 *
 *   qrdma_sim_bench_datapath [--json FILE] [--sizes 64,4096,...] [--quick] [--one-sim]
 *   --quick: short windows and few iterations (for the test; figures not meaningful)
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qrdma.h"
#include "qrdma_backend_sim.h"
#include "qrdma_sim.h"

#define BLOCK_BYTES 65536ULL /* the NIC's BLOCK_SIZE (checked against PARAMS) */
#define GUARD 64ULL
#define GUARD_BYTE 0xA5
#define NSLOTS 64
#define LINK_BYTES_PER_CYCLE 64.0
#define MIN_SIZE 64ULL
#define MAX_SIZE (4ULL << 20)
#define MAX_SIZES 32
#define NO_PROGRESS_CYCLES 500000ULL /* nothing completed or written for this long: timeout */

/* ------------------------------------------------------------------ budget */
struct budget {
    uint64_t one_cycles;      /* outstanding 1: cycles of measured transfers per size */
    uint64_t one_min, one_max;/* measured transfers per size */
    uint64_t warm_min, warm_max; /* outstanding 64: warm-up at least, at most */
    uint64_t win_min;         /* outstanding 64: window at least */
    uint64_t win_max;         /* window at most */
    uint64_t eff_transfers;   /* payload efficiency stream */
    unsigned lat_reps;        /* latency repetitions per size and kind */
};
static const struct budget full_budget = {
    .one_cycles = 100000, .one_min = 2, .one_max = 64,
    .warm_min = 10000, .warm_max = 98304, .win_min = 50000, .win_max = 131072,
    .eff_transfers = 2000, .lat_reps = 3,
};
static const struct budget quick_budget = {
    .one_cycles = 3000, .one_min = 2, .one_max = 3,
    .warm_min = 2000, .warm_max = 3000, .win_min = 3000, .win_max = 3000,
    .eff_transfers = 100, .lat_reps = 1,
};

/* outstanding 64: warm-up and window of a size. Up to 64 KiB a round of 64 transfers takes
 * ~size cycles at line rate: warm up over 1.5 rounds (every slot refilled at least once)
 * and measure 2 rounds; beyond, every transfer is still in flight when the window ends
 * (64 x size bytes need size cycles): the link is shared by 64 transfers from ~1,000
 * cycles on, so the minimum warm-up and window are used. */
static uint64_t warmup_of(const struct budget *b, uint64_t size)
{
    uint64_t w = size <= 65536 ? size * 3 / 2 : 0;
    w = w > b->warm_min ? w : b->warm_min;
    return w < b->warm_max ? w : b->warm_max;
}
static uint64_t window_of(const struct budget *b, uint64_t size)
{
    uint64_t w = size <= 65536 ? 2 * size : 0;
    w = w > b->win_min ? w : b->win_min;
    return w < b->win_max ? w : b->win_max;
}

/* ------------------------------------------------------------------ state */
static struct {
    struct qrdma_backend *be;
    qrdma_sim *sim;
    qrdma_node *tx, *rx;
    qrdma_page *pg;
    int ch[NSLOTS];
    uint64_t verified, verified_bytes; /* transfers and bytes compared */
    uint64_t notifs_checked;
    int one_sim;                       /* --one-sim: every measurement on one simulation */
    uint64_t sim_cycles, sims;         /* of the simulations closed so far */
} g;

static void die(int code, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "qrdma_sim_bench_datapath: FAILED: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    exit(code);
}

#define TRY(call)                                                                  \
    do {                                                                           \
        int e_ = (call);                                                           \
        if (e_ < 0)                                                                \
            die(3, "%s: %s", #call, qrdma_strerror(e_));                           \
    } while (0)

static uint64_t now(void) { return qrdma_sim_now(g.sim); }

static double wall_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/* Source slots hold a pattern of (slot, size); destinations get its complement before
 * each post, so every byte a transfer does not write is wrong afterwards. */
static void fill_pattern(uint8_t *p, uint64_t len, uint64_t slot, uint64_t size)
{
    uint64_t seed = mix(slot * 0x10001ULL + size);
    for (uint64_t i = 0; i < len; i += 8) {
        uint64_t w = mix(seed + i);
        memcpy(p + i, &w, len - i < 8 ? len - i : 8);
    }
}
static void poison(uint8_t *dst, const uint8_t *src, uint64_t len)
{
    for (uint64_t i = 0; i < len; i++)
        dst[i] = (uint8_t)~src[i];
}
static void verify(const uint8_t *dst, const uint8_t *src, uint64_t len, const char *what,
                   uint64_t size, unsigned out, uint64_t xfer, unsigned slot)
{
    if (memcmp(dst, src, len) == 0) {
        g.verified++;
        g.verified_bytes += len;
        return;
    }
    uint64_t i = 0;
    while (dst[i] == src[i])
        i++;
    die(2, "DATA VERIFICATION: %s size %" PRIu64 " outstanding %u transfer #%" PRIu64
           " (slot %u): destination byte %" PRIu64 " is 0x%02x, expected 0x%02x",
        what, size, out, xfer, slot, i, dst[i], src[i]);
}

/* On a timeout: every counter of both nodes and the busy channels, for the report. */
static void dump_state(void)
{
    uint64_t v[2][QRDMA_CNT_COUNT];
    if (qrdma_counters_read(g.tx, v[0]) || qrdma_counters_read(g.rx, v[1]))
        return;
    fprintf(stderr, "  cycle %" PRIu64 "; counters (node 0, node 1):\n", now());
    for (unsigned c = 0; c < QRDMA_CNT_COUNT; c++)
        fprintf(stderr, "    %-16s %12" PRIu64 " %12" PRIu64 "\n",
                qrdma_counter_name((enum qrdma_counter)c), v[0][c], v[1][c]);
    struct qrdma_coll cl;
    for (unsigned grp = 0; grp < NSLOTS / 32; grp++)
        if (qrdma_poll_coll(g.pg, grp, &cl) == 0)
            fprintf(stderr, "  channels %u..%u busy 0x%08x done 0x%08x\n", 32 * grp,
                    32 * grp + 31, cl.busy, cl.done);
}

static void check_harness(const char *where)
{
    if (qrdma_sim_errors(g.sim))
        die(3, "%s: %" PRIu64 " harness error(s), first: %s", where, qrdma_sim_errors(g.sim),
            qrdma_sim_error_text(g.sim));
    if (qrdma_sim_mmio_errors(g.sim, 0) || qrdma_sim_mmio_errors(g.sim, 1))
        die(3, "%s: SLVERR/DECERR answers on the host port", where);
}

/* Slots (source and destination of one transfer) are aligned to the size, at least 4 KiB
 * and at most a block (64 KiB): a transfer of 64 KiB or more is whole blocks, one of less
 * lies in one block; stride: the size and a guard, rounded up to the alignment. */
static uint64_t slot_align(uint64_t size)
{
    return size < 4096 ? 4096 : size > BLOCK_BYTES ? BLOCK_BYTES : size;
}
static uint64_t slot_stride(uint64_t size)
{
    uint64_t a = slot_align(size);
    return (size + GUARD + a - 1) / a * a;
}

/* ------------------------------------------------------------------ simulations */
/* A simulation with the harness's default latencies, host memory for 64 slots of
 * max_size bytes (mmap'ed: untouched pages cost nothing), node 1's notification ring
 * (256 entries), page 0 of node 0 with channels 0..63. */
static void sim_open(uint64_t max_size)
{
    qrdma_sim_options opt;
    qrdma_sim_default_options(&opt);
    uint64_t need = NSLOTS * slot_stride(max_size) + slot_align(max_size);
    if (opt.mem_bytes < need + (16ULL << 20))
        opt.mem_bytes = need + (16ULL << 20);
    TRY(qrdma_backend_sim_open(2, &opt, &g.be));
    g.sim = qrdma_backend_sim_get(g.be);
    TRY(qrdma_open(g.be, 0, &g.tx));
    TRY(qrdma_open(g.be, 1, &g.rx));
    TRY(qrdma_nq_setup(g.rx, 256));
    TRY(qrdma_page_claim(g.tx, 0, &g.pg));
    for (unsigned k = 0; k < NSLOTS; k++) {
        g.ch[k] = qrdma_chan_alloc(g.pg, 1);
        TRY(g.ch[k]);
    }
}
static void sim_close(void)
{
    check_harness("end of a measurement");
    g.sim_cycles += now();
    g.sims++;
    qrdma_close(g.tx);
    qrdma_close(g.rx);
    qrdma_backend_close(g.be);
    g.be = NULL;
    g.sim = NULL;
}
/* Each measurement runs on a simulation of its own (fresh NICs, sequence numbers from 0),
 * unless --one-sim. */
static void begin(uint64_t max_size)
{
    if (!g.be)
        sim_open(max_size);
}
static void end(void)
{
    if (!g.one_sim)
        sim_close();
}

/* ------------------------------------------------------------------ slots */
struct slots {
    uint64_t size, stride;
    unsigned n;
    struct qrdma_buf src, dst;
};
static uint8_t *src_of(struct slots *s, unsigned k) { return (uint8_t *)s->src.cpu + k * s->stride; }
static uint8_t *dst_of(struct slots *s, unsigned k) { return (uint8_t *)s->dst.cpu + k * s->stride; }

static void slots_alloc(struct slots *s, uint64_t size, unsigned n)
{
    s->size = size;
    s->n = n;
    s->stride = slot_stride(size);
    TRY(qrdma_buf_alloc(g.tx, s->stride * n, slot_align(size), &s->src));
    TRY(qrdma_buf_alloc(g.rx, s->stride * n, slot_align(size), &s->dst));
    for (unsigned k = 0; k < n; k++)
        fill_pattern(src_of(s, k), size, k, size);
    memset(s->dst.cpu, GUARD_BYTE, s->stride * n);
}
static void slots_free(struct slots *s, const char *what)
{
    for (unsigned k = 0; k < s->n; k++) {
        const uint8_t *d = dst_of(s, k);
        for (uint64_t i = s->size; i < s->stride; i++)
            if (d[i] != GUARD_BYTE)
                die(2, "DATA VERIFICATION: %s size %" PRIu64 ": byte %" PRIu64
                       " after destination slot %u was written",
                    what, s->size, i - s->size, k);
    }
    qrdma_buf_free(g.tx, &s->src);
    qrdma_buf_free(g.rx, &s->dst);
}

static void post_mem(struct slots *s, unsigned k, unsigned ch, uint32_t flags, uint32_t tag)
{
    struct qrdma_write wr = {
        .src_addr = s->src.dev + k * s->stride,
        .dst_addr = s->dst.dev + k * s->stride,
        .size = s->size,
        .dst_node = qrdma_node_info(g.rx)->node_id,
        .flags = flags,
        .tag = tag,
    };
    poison(dst_of(s, k), src_of(s, k), s->size);
    int e = qrdma_post_write(g.pg, ch, &wr);
    if (e)
        die(3, "post (size %" PRIu64 ", channel %u): %s", s->size, ch, qrdma_strerror(e));
}

/* Poll channel ch back to back until DONE; returns the cycle the DONE read came back. */
static uint64_t poll_done(unsigned ch, uint64_t t_post, uint64_t size)
{
    for (;;) {
        int st = qrdma_poll(g.pg, ch);
        if (st == (int)QRDMA_ST_DONE)
            return now();
        if (st < 0 || st == (int)QRDMA_ST_ERROR)
            die(3, "size %" PRIu64 " channel %u: %s", size, ch,
                st < 0 ? qrdma_strerror(st) : "status ERROR");
        if (now() - t_post > NO_PROGRESS_CYCLES)
            die(3, "size %" PRIu64 " channel %u: not DONE after %llu cycles", size, ch,
                (unsigned long long)NO_PROGRESS_CYCLES);
    }
}

/* ------------------------------------------------------------------ throughput */
struct tp_row {
    uint64_t size;
    unsigned out;
    double bpc, completed_bpc;
    uint64_t warmup, window, transfers, measured; /* transfers: all verified of this row */
    uint64_t cycles;                              /* simulated cycles this row took */
    double wall;
};

static struct tp_row run_one(const struct budget *b, uint64_t size)
{
    struct tp_row r = {.size = size, .out = 1};
    double w0 = wall_s();
    begin(size);
    uint64_t c0 = now();
    uint64_t est = 800 + size / 64;
    uint64_t n = b->one_cycles / est;
    n = n < b->one_min ? b->one_min : n > b->one_max ? b->one_max : n;
    struct slots s;
    slots_alloc(&s, size, 1);
    uint64_t t_first = 0, t_last = 0;
    for (uint64_t i = 0; i <= n; i++) { /* i = 0: warm-up */
        uint64_t t_post = now();
        post_mem(&s, 0, (unsigned)g.ch[0], 0, (uint32_t)i);
        uint64_t t_done = poll_done((unsigned)g.ch[0], t_post, size);
        verify(dst_of(&s, 0), src_of(&s, 0), size, "throughput", size, 1, i, 0);
        if (i == 1)
            t_first = t_post;
        t_last = t_done;
    }
    slots_free(&s, "throughput");
    r.measured = n;
    r.transfers = n + 1;
    r.window = t_last - t_first;
    r.bpc = (double)(n * size) / (double)r.window;
    r.completed_bpc = r.bpc;
    r.cycles = now() - c0;
    end();
    r.wall = wall_s() - w0;
    return r;
}

enum phase { WARMUP, WINDOW, DRAIN };

static struct tp_row run_many(const struct budget *b, uint64_t size)
{
    struct tp_row r = {.size = size, .out = NSLOTS};
    double w0 = wall_s();
    begin(size);
    uint64_t c0 = now();
    r.warmup = warmup_of(b, size);
    uint64_t window = window_of(b, size);
    struct slots s;
    slots_alloc(&s, size, NSLOTS);
    int busy[NSLOTS];
    uint64_t xfer_of[NSLOTS], posted = 0;
    uint64_t t_first = now();
    for (unsigned k = 0; k < NSLOTS; k++) {
        post_mem(&s, k, (unsigned)g.ch[k], 0, (uint32_t)posted);
        busy[k] = 1;
        xfer_of[k] = posted++;
    }
    enum phase ph = WARMUP;
    uint64_t t_w0 = 0, t_w1 = 0, beats0 = 0, beats1 = 0, done_in_win = 0;
    uint64_t last_progress = now(), inflight = NSLOTS, beats_seen = 0;
    qrdma_sim_node_stats st;
    while (ph != DRAIN || inflight) {
        for (unsigned grp = 0; grp < NSLOTS / 32; grp++) {
            struct qrdma_coll c;
            TRY(qrdma_poll_coll(g.pg, grp, &c));
            if (c.error)
                die(3, "size %" PRIu64 ": status ERROR (channels 0x%08x of group %u)", size,
                    c.error, grp);
            for (unsigned i = 0; i < 32; i++) {
                unsigned k = 32 * grp + i;
                if (!(c.done >> i & 1))
                    continue;
                if (!busy[k])
                    die(3, "size %" PRIu64 ": DONE on idle channel %u", size, k);
                verify(dst_of(&s, k), src_of(&s, k), size, "throughput", size, NSLOTS,
                       xfer_of[k], k);
                r.transfers++;
                if (ph == WINDOW)
                    done_in_win++;
                last_progress = now();
                if (ph == DRAIN) {
                    busy[k] = 0;
                    inflight--;
                } else {
                    post_mem(&s, k, (unsigned)g.ch[k], 0, (uint32_t)posted);
                    xfer_of[k] = posted++;
                }
            }
        }
        uint64_t t = now();
        qrdma_sim_node_stats_get(g.sim, 1, &st);
        if (st.mem_write_beats != beats_seen) { /* progress: payload still landing */
            beats_seen = st.mem_write_beats;
            last_progress = t;
        }
        if (ph == WARMUP && t - t_first >= r.warmup) {
            t_w0 = t;
            beats0 = st.mem_write_beats;
            ph = WINDOW;
        } else if (ph == WINDOW && t - t_w0 >= window) {
            t_w1 = t;
            beats1 = st.mem_write_beats;
            ph = DRAIN;
        }
        if (t - last_progress > NO_PROGRESS_CYCLES) {
            dump_state();
            die(3, "size %" PRIu64 ", 64 outstanding: nothing written or completed for %llu cycles"
                   " (%" PRIu64 " completed before)",
                size, (unsigned long long)NO_PROGRESS_CYCLES, r.transfers);
        }
    }
    slots_free(&s, "throughput");
    r.window = t_w1 - t_w0;
    r.measured = done_in_win;
    r.bpc = (double)(beats1 - beats0) * 64.0 / (double)r.window;
    r.completed_bpc = (double)(done_in_win * size) / (double)r.window;
    r.cycles = now() - c0;
    end();
    r.wall = wall_s() - w0;
    return r;
}

/* ------------------------------------------------------------------ notifications */
static uint64_t ring_entry_addr(void)
{
    const struct qrdma_buf *nq = qrdma_nq_buf(g.rx);
    uint32_t entries = (uint32_t)(nq->size / 64);
    return nq->dev + 64ULL * (qrdma_nq_tail(g.rx) % entries);
}

/* Take the next notification (it must be there) and check it against what was posted. */
static void take_notif(uint8_t kind, uint64_t size, uint64_t dst, uint32_t tag, unsigned ch)
{
    struct qrdma_notif nf;
    int e = qrdma_nq_poll(g.rx, &nf);
    if (e != 1)
        die(3, "expected a notification (size %" PRIu64 "), got %d", size, e);
    if (nf.kind != kind || nf.size != size || nf.dst_addr != dst || nf.tag != tag ||
        nf.src_node != qrdma_node_info(g.tx)->node_id ||
        nf.xfer != qrdma_page_index(g.pg) * QRDMA_WR_CH_PER_PAGE + ch)
        die(2, "NOTIFICATION: kind %u size %" PRIu64 " dst 0x%" PRIx64 " tag %u xfer %u,"
               " expected kind %u size %" PRIu64 " dst 0x%" PRIx64 " tag %u channel %u",
            nf.kind, nf.size, nf.dst_addr, nf.tag, nf.xfer, kind, size, dst, tag, ch);
    g.notifs_checked++;
}

/* ------------------------------------------------------------------ latency */
struct lat_row {
    uint64_t size;
    int is_inline;
    uint64_t notif[8], done[8]; /* per repetition */
    uint64_t notif_med, done_med;
};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
static uint64_t median(const uint64_t *v, unsigned n)
{
    uint64_t t[8];
    memcpy(t, v, n * sizeof *t);
    qsort(t, n, sizeof *t, cmp_u64);
    return t[(n - 1) / 2];
}

/* One transfer on an idle system; measure_notif: wait for the ring entry cycle by cycle,
 * else poll the status back to back. Returns the cycles from the post. */
static uint64_t lat_once(struct slots *s, int is_inline, int measure_notif, uint32_t tag)
{
    unsigned ch = (unsigned)g.ch[0];
    uint64_t dst = s->dst.dev;
    uint64_t entry = ring_entry_addr();
    if (qrdma_sim_wait_quiet(g.sim, 1000000) < 0)
        die(3, "latency: the system does not become quiet");
    qrdma_sim_step(g.sim, 100); /* nothing left in the NIC's pipelines either */
    poison(dst_of(s, 0), src_of(s, 0), s->size);
    uint64_t t_post = now(), t;
    if (is_inline) {
        struct qrdma_write wr = {.dst_addr = dst, .dst_node = qrdma_node_info(g.rx)->node_id,
                                 .flags = QRDMA_WR_NOTIFY};
        TRY(qrdma_post_inline(g.pg, ch, &wr, src_of(s, 0), s->size));
    } else {
        struct qrdma_write wr = {.src_addr = s->src.dev, .dst_addr = dst, .size = s->size,
                                 .dst_node = qrdma_node_info(g.rx)->node_id,
                                 .flags = QRDMA_WR_NOTIFY, .tag = tag};
        TRY(qrdma_post_write(g.pg, ch, &wr));
    }
    if (measure_notif) {
        if (qrdma_sim_wait_mem64(g.sim, 1, entry, 0xFF, QRDMA_NOTIF_FULL, NO_PROGRESS_CYCLES) < 0)
            die(3, "latency: no notification for size %" PRIu64, s->size);
        t = now() - t_post;
        poll_done(ch, t_post, s->size);
    } else {
        t = poll_done(ch, t_post, s->size) - t_post;
        if (qrdma_sim_wait_mem64(g.sim, 1, entry, 0xFF, QRDMA_NOTIF_FULL, NO_PROGRESS_CYCLES) < 0)
            die(3, "latency: no notification for size %" PRIu64, s->size);
    }
    verify(dst_of(s, 0), src_of(s, 0), s->size, "latency", s->size, 1, tag, 0);
    take_notif(is_inline ? QRDMA_NET_INLINE : QRDMA_NET_CONTROL, s->size, dst,
               is_inline ? 0 : tag, ch);
    return t;
}

static struct lat_row run_latency(const struct budget *b, uint64_t size, int is_inline)
{
    struct lat_row r = {.size = size, .is_inline = is_inline};
    struct slots s;
    begin(size);
    slots_alloc(&s, size, 1);
    for (unsigned i = 0; i < b->lat_reps; i++) {
        r.notif[i] = lat_once(&s, is_inline, 1, 2 * i);
        r.done[i] = lat_once(&s, is_inline, 0, 2 * i + 1);
    }
    slots_free(&s, "latency");
    end();
    r.notif_med = median(r.notif, b->lat_reps);
    r.done_med = median(r.done, b->lat_reps);
    return r;
}

/* ------------------------------------------------------------------ payload efficiency */
struct eff {
    uint64_t transfers, payload, fwd_beats, data_pkts, ctrl_pkts, rev_beats, cycles;
    double data_only, all_forward, with_reverse;
};

static void counters(uint64_t *tx_bytes, uint64_t *data_pkts, uint64_t *ctrl_pkts)
{
    TRY(qrdma_counter_read(g.tx, QRDMA_CNT_TX_BYTES, tx_bytes));
    TRY(qrdma_counter_read(g.tx, QRDMA_CNT_TX_DATA_PKTS, data_pkts));
    TRY(qrdma_counter_read(g.tx, QRDMA_CNT_TX_CTRL_PKTS, ctrl_pkts));
}

static void check_eff_notif(const struct qrdma_notif *nf, struct slots *s, uint64_t posted,
                            const uint8_t *slot_of_tag, uint8_t *seen, struct eff *e)
{
    unsigned k = nf->tag < posted ? slot_of_tag[nf->tag] : 0;
    if (nf->kind != QRDMA_NET_CONTROL || nf->size != s->size || nf->tag >= posted ||
        seen[nf->tag] || nf->dst_addr != s->dst.dev + k * s->stride ||
        nf->xfer != qrdma_page_index(g.pg) * QRDMA_WR_CH_PER_PAGE + (unsigned)g.ch[k] ||
        nf->src_node != qrdma_node_info(g.tx)->node_id)
        die(2, "NOTIFICATION (efficiency stream): kind %u size %" PRIu64 " tag %u%s dst 0x%"
               PRIx64 " xfer %u",
            nf->kind, nf->size, nf->tag, nf->tag < posted && seen[nf->tag] ? " (twice)" : "",
            nf->dst_addr, nf->xfer);
    seen[nf->tag] = 1;
    g.notifs_checked++;
    e->transfers++;
}

static struct eff run_efficiency(const struct budget *b)
{
    const uint64_t size = 1024;
    struct eff e = {0};
    struct slots s;
    begin(size);
    slots_alloc(&s, size, NSLOTS);
    if (qrdma_sim_wait_quiet(g.sim, 1000000) < 0)
        die(3, "efficiency: the system does not become quiet");
    qrdma_sim_step(g.sim, 100);
    uint64_t by0, dp0, cp0, by1, dp1, cp1;
    counters(&by0, &dp0, &cp0);
    qrdma_sim_node_stats st0[2], st1[2];
    qrdma_sim_node_stats_get(g.sim, 0, &st0[0]);
    qrdma_sim_node_stats_get(g.sim, 1, &st0[1]);
    uint64_t t0 = now();

    int busy[NSLOTS] = {0};
    uint64_t posted = 0, done = 0, inflight = 0, last_progress = now();
    uint32_t tag_of[NSLOTS];
    /* a notification names its transfer by tag (= posted index): each exactly once, with
     * the slot's destination and channel */
    uint8_t *slot_of_tag = malloc(b->eff_transfers), *seen = calloc(b->eff_transfers, 1);
    if (!slot_of_tag || !seen)
        die(3, "out of memory");
    while (done < b->eff_transfers) {
        for (unsigned k = 0; k < NSLOTS && posted < b->eff_transfers; k++)
            if (!busy[k]) {
                tag_of[k] = (uint32_t)posted;
                slot_of_tag[posted] = (uint8_t)k;
                post_mem(&s, k, (unsigned)g.ch[k], QRDMA_WR_NOTIFY, tag_of[k]);
                busy[k] = 1;
                posted++;
                inflight++;
            }
        for (unsigned grp = 0; grp < NSLOTS / 32; grp++) {
            struct qrdma_coll c;
            TRY(qrdma_poll_coll(g.pg, grp, &c));
            if (c.error)
                die(3, "efficiency: status ERROR");
            for (unsigned i = 0; i < 32; i++)
                if (c.done >> i & 1) {
                    unsigned k = 32 * grp + i;
                    verify(dst_of(&s, k), src_of(&s, k), size, "efficiency", size, NSLOTS,
                           tag_of[k], k);
                    busy[k] = 0;
                    done++;
                    inflight--;
                    last_progress = now();
                }
        }
        /* notifications: each names its slot by tag; the ring must not fill */
        struct qrdma_notif nf;
        int r;
        while ((r = qrdma_nq_poll(g.rx, &nf)) == 1)
            check_eff_notif(&nf, &s, posted, slot_of_tag, seen, &e);
        TRY(r);
        if (now() - last_progress > NO_PROGRESS_CYCLES)
            die(3, "efficiency: no transfer completed for %llu cycles",
                (unsigned long long)NO_PROGRESS_CYCLES);
    }
    (void)inflight;
    /* every notification arrives (it may land after the sender's DONE) */
    while (e.transfers < b->eff_transfers) {
        struct qrdma_notif nf;
        int r = qrdma_nq_poll(g.rx, &nf);
        TRY(r);
        if (r == 1) {
            check_eff_notif(&nf, &s, posted, slot_of_tag, seen, &e);
        } else {
            qrdma_sim_step(g.sim, 1);
            if (now() - last_progress > NO_PROGRESS_CYCLES)
                die(3, "efficiency: %" PRIu64 " of %" PRIu64 " notifications", e.transfers,
                    b->eff_transfers);
        }
    }
    e.cycles = now() - t0;
    free(slot_of_tag);
    free(seen);
    if (qrdma_sim_wait_quiet(g.sim, 1000000) < 0)
        die(3, "efficiency: the system does not become quiet");
    qrdma_sim_step(g.sim, 100);
    qrdma_sim_node_stats_get(g.sim, 0, &st1[0]);
    qrdma_sim_node_stats_get(g.sim, 1, &st1[1]);
    counters(&by1, &dp1, &cp1);
    slots_free(&s, "efficiency");
    end();

    e.payload = by1 - by0;
    e.data_pkts = dp1 - dp0;
    e.ctrl_pkts = cp1 - cp0;
    e.fwd_beats = st1[0].tx_beats - st0[0].tx_beats;
    e.rev_beats = st1[1].tx_beats - st0[1].tx_beats;
    if (e.payload != b->eff_transfers * size || e.data_pkts != b->eff_transfers ||
        e.ctrl_pkts != b->eff_transfers)
        die(3, "efficiency: counters say %" PRIu64 " payload bytes, %" PRIu64 " DATA, %" PRIu64
               " control packets for %" PRIu64 " transfers of 1 KiB",
            e.payload, e.data_pkts, e.ctrl_pkts, b->eff_transfers);
    e.data_only = (double)e.payload / (double)(e.fwd_beats - e.ctrl_pkts);
    e.all_forward = (double)e.payload / (double)e.fwd_beats;
    e.with_reverse = (double)e.payload / (double)(e.fwd_beats + e.rev_beats);
    return e;
}

/* ------------------------------------------------------------------ output */
static double gbps(double bpc) { return bpc * 8.0 * (double)QRDMA_SIM_CLOCK_HZ / 1e9; }

static void write_json(const char *path, const struct budget *b, int quick, struct tp_row *tp,
                       unsigned ntp, struct lat_row *lat, unsigned nlat, const struct eff *e,
                       double wall, uint64_t cycles, int goal_met, uint64_t goal_from)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(3);
    }
    fprintf(f, "{\n  \"benchmark\": \"datapath\",\n");
    fprintf(f, "  \"quick\": %s,\n", quick ? "true" : "false");
    fprintf(f, "  \"simulations\": \"%s\",\n", g.one_sim ? "one for every measurement"
                                                     : "a fresh one per measurement");
    fprintf(f, "  \"system\": \"2 nodes, node 0 -> node 1, point-to-point link 64 B/cycle; "
               "harness defaults: memory read 200 cycles, write 100, link 100, MMIO round trip 30; "
               "NIC defaults: MAX_PAYLOAD 1024, BLOCK_SIZE 65536, MAX_OUTSTANDING 2\",\n");
    fprintf(f, "  \"clock_mhz\": 200,\n  \"link_bytes_per_cycle\": 64,\n");
    fprintf(f, "  \"throughput_method\": \"outstanding 1: post, poll the single status until DONE, "
               "next; 1 warm-up + n measured transfers, bytes / (first measured post -> last DONE "
               "read). outstanding 64: 64 channels each keep a transfer in flight, collective "
               "status reads, re-post on DONE; after warmup_cycles from the first post, "
               "bytes_per_cycle = 64 x W beats node 1's memory took in a window of window_cycles "
               "(payload only); then drained. Every transfer verified.\",\n");
    fprintf(f, "  \"throughput\": [\n");
    for (unsigned i = 0; i < ntp; i++) {
        struct tp_row *r = &tp[i];
        fprintf(f,
                "    {\"size\": %" PRIu64 ", \"outstanding\": %u, \"bytes_per_cycle\": %.3f, "
                "\"gbps_at_200mhz\": %.2f, \"link_fraction\": %.4f, "
                "\"completed_bytes_per_cycle\": %.3f, \"warmup_cycles\": %" PRIu64
                ", \"window_cycles\": %" PRIu64 ", \"transfers_in_window\": %" PRIu64
                ", \"transfers_verified\": %" PRIu64 ", \"sim_cycles\": %" PRIu64
                ", \"wall_s\": %.2f}%s\n",
                r->size, r->out, r->bpc, gbps(r->bpc), r->bpc / LINK_BYTES_PER_CYCLE,
                r->completed_bpc, r->warmup, r->window, r->measured, r->transfers, r->cycles,
                r->wall, i + 1 < ntp ? "," : "");
    }
    fprintf(f, "  ],\n");
    fprintf(f, "  \"goal\": \"bytes_per_cycle >= 0.9 x 64 with 64 outstanding from 4 KiB up\",\n");
    fprintf(f, "  \"goal_met\": %s,\n", goal_met ? "true" : "false");
    if (goal_from)
        fprintf(f, "  \"line_rate_90pct_from\": %" PRIu64 ",\n", goal_from);
    else
        fprintf(f, "  \"line_rate_90pct_from\": null,\n");
    fprintf(f, "  \"payload_efficiency_1k\": %.3f,\n", e->data_only);
    fprintf(f,
            "  \"payload_efficiency_1k_detail\": {\"stream\": \"%" PRIu64 " transfers of 1 KiB "
            "(1 KiB aligned: one DATA packet each) with notification, 64 outstanding; counted "
            "with the links quiet before and after\", \"data_only\": %.3f, \"all_forward\": %.3f, "
            "\"forward_and_reverse\": %.3f, \"goal\": %.3f, \"payload_bytes\": %" PRIu64
            ", \"forward_beats\": %" PRIu64 ", \"data_packets\": %" PRIu64
            ", \"control_packets\": %" PRIu64 ", \"reverse_beats\": %" PRIu64
            ", \"definition\": \"payload = node 0 TX_BYTES; forward beats = node 0 m_axis_tx "
            "beats (harness tx_beats): DATA packets and the one-beat CONTROL packets; "
            "data_only = payload / (forward beats - TX_CTRL_PKTS); all_forward = payload / "
            "forward beats; forward_and_reverse also counts node 1's beats (ACKs, one per "
            "block) on the other link. Without notification the forward link carries DATA "
            "only and all_forward = data_only.\"},\n",
            e->transfers, e->data_only, e->all_forward, e->with_reverse, 64.0 * 16.0 / 17.0,
            e->payload, e->fwd_beats, e->data_pkts, e->ctrl_pkts, e->rev_beats);
    fprintf(f, "  \"latency_cycles\": {");
    for (unsigned i = 0; i < nlat; i++)
        fprintf(f, "%s\"%" PRIu64 "\": %" PRIu64, i ? ", " : "", lat[i].size, lat[i].notif_med);
    fprintf(f, "},\n  \"latency_kind\": {");
    for (unsigned i = 0; i < nlat; i++)
        fprintf(f, "%s\"%" PRIu64 "\": \"%s\"", i ? ", " : "", lat[i].size,
                lat[i].is_inline ? "inline" : "memory");
    fprintf(f, "},\n  \"latency_done_cycles\": {");
    for (unsigned i = 0; i < nlat; i++)
        fprintf(f, "%s\"%" PRIu64 "\": %" PRIu64, i ? ", " : "", lat[i].size, lat[i].done_med);
    fprintf(f, "},\n");
    fprintf(f, "  \"latency_definition\": \"idle system, one transfer with notification, median "
               "of %u; from the cycle the CPU issues the descriptor write (the MMIO model offers "
               "it on the host port 15 cycles later) to: latency_cycles, the first cycle node 1's "
               "ring entry reads NOTIF_FULL in host memory (checked every cycle); "
               "latency_done_cycles, the cycle the sender's status read returning DONE reaches "
               "its CPU (single-status reads back to back from the post, ~32 cycles each)\",\n",
            b->lat_reps);
    fprintf(f, "  \"data_verified\": true,\n  \"transfers_verified\": %" PRIu64
               ",\n  \"bytes_verified\": %" PRIu64 ",\n  \"notifications_checked\": %" PRIu64
               ",\n",
            g.verified, g.verified_bytes, g.notifs_checked);
    fprintf(f, "  \"sim_cycles\": %" PRIu64 ",\n  \"wall_s\": %.1f\n}\n", cycles, wall);
    fclose(f);
}

static void usage(const char *p)
{
    fprintf(stderr, "usage: %s [--json FILE] [--sizes S1,S2,...] [--quick] [--one-sim]\n", p);
    exit(1);
}

int main(int argc, char **argv)
{
    const char *json = NULL;
    int quick = 0;
    uint64_t sizes[MAX_SIZES];
    unsigned nsizes = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json = argv[++i];
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--one-sim"))
            g.one_sim = 1;
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            char *p = argv[++i];
            while (*p && nsizes < MAX_SIZES) {
                char *end;
                uint64_t v = strtoull(p, &end, 0);
                if (end == p || v < MIN_SIZE || v > MAX_SIZE || v % 64)
                    usage(argv[0]);
                sizes[nsizes++] = v;
                p = *end == ',' ? end + 1 : end;
                if (*end && *end != ',')
                    usage(argv[0]);
            }
        } else
            usage(argv[0]);
    }
    if (!nsizes)
        for (uint64_t s = MIN_SIZE; s <= MAX_SIZE; s *= 2)
            sizes[nsizes++] = s;
    const struct budget *b = quick ? &quick_budget : &full_budget;

    double t0 = wall_s();
    uint64_t biggest = 65536; /* latency */
    for (unsigned i = 0; i < nsizes; i++)
        biggest = sizes[i] > biggest ? sizes[i] : biggest;
    sim_open(biggest);
    const struct qrdma_info *inf = qrdma_node_info(g.tx);
    if (inf->block_size != BLOCK_BYTES)
        die(3, "the NIC's block size is %u, this program assumes %llu", inf->block_size,
            (unsigned long long)BLOCK_BYTES);
    printf("qrdma_sim_bench_datapath: node 0 -> node 1, %s; block %u B, max outstanding %u "
           "blocks per transfer; %s%s\n",
           qrdma_sim_network_name(g.sim), inf->block_size, inf->max_outstanding,
           g.one_sim ? "one simulation for everything" : "a fresh simulation per measurement",
           quick ? " (QUICK: figures not meaningful)" : "");
    if (!g.one_sim)
        sim_close();

    /* latency first, on the idle system */
    static const uint64_t lat_sizes[] = {8, 64, 1024, 4096, 65536};
    struct lat_row lat[5];
    printf("\nlatency (cycles of 5 ns; median of %u)\n", b->lat_reps);
    printf("  %8s %-7s %14s %14s\n", "bytes", "kind", "post->notif", "post->DONE");
    for (unsigned i = 0; i < 5; i++) {
        lat[i] = run_latency(b, lat_sizes[i], lat_sizes[i] <= 8);
        printf("  %8" PRIu64 " %-7s %14" PRIu64 " %14" PRIu64 "\n", lat[i].size,
               lat[i].is_inline ? "inline" : "memory", lat[i].notif_med, lat[i].done_med);
        fflush(stdout);
    }

    struct eff e = run_efficiency(b);
    printf("\npayload efficiency, %" PRIu64 " x 1 KiB transfers with notification: %.2f B/beat "
           "(DATA packets only; goal 16/17 x 64 = %.2f), %.2f over all forward beats, %.2f with "
           "the reverse link's ACK beats\n",
           e.transfers, e.data_only, 64.0 * 16 / 17, e.all_forward, e.with_reverse);
    printf("  %" PRIu64 " payload bytes, %" PRIu64 " forward beats (%" PRIu64 " DATA + %" PRIu64
           " CONTROL packets), %" PRIu64 " reverse beats\n",
           e.payload, e.fwd_beats, e.data_pkts, e.ctrl_pkts, e.rev_beats);

    struct tp_row tp[2 * MAX_SIZES];
    unsigned ntp = 0;
    printf("\nthroughput (link: 64 B/cycle = 102.4 Gb/s at 200 MHz)\n");
    printf("  %8s %4s %9s %8s %6s %13s %8s %8s %9s %6s\n", "bytes", "out", "B/cycle", "Gb/s",
           "link", "completed B/c", "warmup", "window", "verified", "wall");
    for (unsigned i = 0; i < nsizes; i++)
        for (int m = 0; m < 2; m++) {
            struct tp_row r = m ? run_many(b, sizes[i]) : run_one(b, sizes[i]);
            tp[ntp++] = r;
            printf("  %8" PRIu64 " %4u %9.2f %8.1f %5.1f%% %13.2f %8" PRIu64 " %8" PRIu64
                   " %9" PRIu64 " %5.1fs\n",
                   r.size, r.out, r.bpc, gbps(r.bpc), 100 * r.bpc / LINK_BYTES_PER_CYCLE,
                   r.completed_bpc, r.warmup, r.window, r.transfers, r.wall);
            fflush(stdout);
        }

    /* goal: >= 90 % of the link with 64 outstanding from 4 KiB up */
    int goal_met = 1, seen = 0;
    uint64_t from = 0;
    for (unsigned i = 0; i < ntp; i++) {
        if (tp[i].out != NSLOTS)
            continue;
        int ok = tp[i].bpc >= 0.9 * LINK_BYTES_PER_CYCLE;
        if (tp[i].size >= 4096) {
            seen = 1;
            goal_met &= ok;
        }
        if (ok && !from)
            from = tp[i].size;
        else if (!ok)
            from = 0;
    }
    goal_met &= seen;

    if (g.one_sim)
        sim_close();
    double wall = wall_s() - t0;
    uint64_t cycles = g.sim_cycles;
    printf("\n64 outstanding >= 90%% of the link from 4 KiB up: %s",
           goal_met ? "MET" : seen ? "NOT MET" : "not measured");
    if (from)
        printf(" (>= 90%% from %" PRIu64 " B up)", from);
    printf("\ndata verified: %" PRIu64 " transfers, %" PRIu64 " bytes, %" PRIu64
           " notifications; %" PRIu64 " cycles simulated (%" PRIu64 " simulations) in %.1f s"
           " (%.0f cycles/s)\n",
           g.verified, g.verified_bytes, g.notifs_checked, cycles, g.sims, wall,
           (double)cycles / wall);
    if (json) {
        write_json(json, b, quick, tp, ntp, lat, 5, &e, wall, cycles, goal_met, from);
        printf("wrote %s\n", json);
    }
    return 0;
}
