/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * qrdma-perf: perftest-style measurements of qrdma remote writes, in the measurement
 * modes of [QoS-RDMA] (docs/references.md), and the datapath benchmarks of `make bench`
 * (tests/bench/bench_datapath.py), and traffic patterns across nodes (perf_flows.c, the
 * system level of tests/bench/bench_fabric.py). Links with libqrdma and one backend
 * chosen at link time (qrdma_tool_backend_open: the simulation harness, the mmap backend,
 * or the unit tests' fake device).
 *
 *   qrdma-perf write_bw | write_lat | read_bw | read_lat | msg_rate [options]
 *     read_bw / read_lat: node 0 reads node 1's buffers into its own (remote reads on
 *     read channels, docs/nic.md "Remote reads"), memory mode only, without -N / -w;
 *     the options as for write_bw / write_lat
 *     -s SIZE   transfer size in bytes (write_bw, read_bw 65536, write_lat, read_lat 2,
 *               msg_rate 8)
 *     -a        all sizes 2 B .. 8 MiB (powers of 2; inline mode: 2 .. 32 B)
 *     -n ITERS  transfers per size (write_bw 5000, write_lat 1000, msg_rate 10000)
 *     -b BYTES  cap iterations so that ITERS x SIZE <= BYTES (at least 2 iterations)
 *     -t OUT    outstanding transfers: 1 = post, poll the channel's single status until
 *               DONE, move to the next channel; more (64) = keep OUT channels busy and
 *               learn completions by collective status reads (write_bw/msg_rate: 64,
 *               write_lat: 1)
 *     -m MODE   mem (memory-to-memory descriptors), inline (payload in the descriptor,
 *               sizes <= 32), auto (inline up to 32 B, else mem); msg_rate: auto, else mem
 *     -A        align every slot to the size, at least 4 KiB, at most the NIC's block size
 *               (a transfer is whole blocks or lies in one); default 4 KiB
 *     -M        memory transfers are multipath (QRDMA_WR_MULTIPATH: from MP_MIN_BYTES on,
 *               a transfer's blocks spread over 4 flows, paths b mod 4: planes)
 *     -K        keyed writes (write_bw, write_lat): node 1's memory stays closed (no
 *               development mode) and a window over its buffers is registered for the
 *               posting page (qrdma_mr_reg); every transfer carries its key, so every
 *               descriptor is a 64-byte one on a channel pair (at most 32 outstanding).
 *               Keyed reads (read_bw, read_lat): both nodes closed, a window with read
 *               permission over node 1's buffers (rkey) and one with local-write
 *               permission over node 0's (lkey)
 *     -N        every transfer asks for a notification; node 1's ring (256 entries) is
 *               drained and every entry checked field by field against its transfer
 *     -E        with -N, memory writes are registered at the receiver
 *               (QRDMA_WR_REGISTERED, docs/registration.md): those of 2 blocks or more
 *               are notified as their last byte comes in (early notifications counted)
 *     -l END    write_lat end point: done (the status read that saw DONE) or notif (the
 *               receiver's ring entry reads full; needs -N and -t 1)
 *     -S        benchmark mode (write_lat, needs -N; docs/fabric.md "Benchmark mode"):
 *               BENCH.en on at node 0 for the measurement (off after it); both nodes must
 *               be built with stamps (BENCH.stamps, else exit 1); every notification drained must
 *               carry stamps (else, after the size, exit 2 with the count); their stages
 *               are printed under each row and put in its JSON "stamps" (below). Memory
 *               writes, or inline ones of at most STAMP_INLINE_MAX (16) bytes (larger
 *               INLINE packets carry no stamps); not with -E (an early notification has
 *               none)
 *     -c        NIC counters before and after each size: payload efficiency (below)
 *     -w W0,W   windowed throughput (write_bw, -t > 1): keep posting until the window
 *               ends, then drain; -n is ignored (below)
 *     -q P      msg_rate: P pages (1..16), page p driven from CPU core p, all posting at
 *               once, each keeping its -t channels busy with collective reads (below)
 *     -T MS     give up when a transfer is not DONE after MS ms of backend time (100)
 *     -B SPEC   backend specification (passed to qrdma_tool_backend_open)
 *     -o FILE   JSON output (default build/results/qrdma_perf_<test>_t<OUT>_<MODE>.json)
 *
 *   qrdma-perf incast | permutation | alltoall | hotspot [options]      (perf_flows.c)
 *     flows of memory writes between the backend's N nodes, each flow from a page of its
 *     own on its source node: incast nodes 1 .. N-1 -> node 0; permutation node i ->
 *     node (i + 1) mod N; alltoall one flow per ordered pair; hotspot the victim 1 -> 2
 *     alone, then beside nodes 0, 2, 3 .. N-1 -> node 1 (the victim's source). A pattern
 *     that needs more nodes than the backend has (hotspot 3, the others 2) exits with 1.
 *     -s SIZE   transfer size in bytes (65536)
 *     -t OUT    transfers each flow keeps in flight, one channel each (16)
 *     -w W0,W   the window: W0 ticks after the first post (50000), W ticks long (400000);
 *               posting stops when it ends, then everything in flight is drained
 *     -T, -B    as above
 *     -o FILE   JSON output (default build/results/qrdma_perf_<pattern>.json)
 *
 * Nodes: node 0 sends; node 1 receives when the backend hosts two or more nodes (its
 * destination buffers live in its memory and are read through the backend's CPU
 * pointers), else node 0 writes to itself (loopback); the patterns use every node. Times
 * are backend ticks converted with tick_hz: the simulation counts cycles at the nominal
 * 200 MHz.
 *
 * Figures, as perftest defines them:
 *   BW average = bytes of all transfers / (last completion - first post);
 *   BW peak    = best rate over a run i..j of consecutive transfers, (j-i+1) x size /
 *                (completion j - post i), over runs of up to PEAK_RUN transfers starting at
 *                every transfer (or, beyond PEAK_RUN transfers, at PEAK_RUN evenly spaced ones);
 *   MsgRate    = transfers / (last completion - first post);
 *   latency    = post of a transfer -> the status read that saw it DONE (that read included),
 *                t_typical the median, percentiles by rank (ceil(p n)); with -l notif,
 *                post -> the first tick at whose start the receiver's ring entry reads
 *                NOTIF_FULL (host memory checked between idle() calls: every cycle in
 *                simulation), then the status is polled to DONE untimed.
 *   window     (-w W0,W) = node 1's RX_BYTES counter read once W0 ticks after the first
 *                post and again W ticks later: bytes / (ticks between the two reads'
 *                returns); completed = size x transfers whose DONE was seen in the window.
 *   efficiency (-c, sizes that are multiples of 64: every packet's payload then starts and
 *                ends on a 64-byte beat boundary) from counter differences: beats of DATA
 *                packets = TX_DATA_PKTS + TX_DATA_BYTES / 64 (a header beat and the
 *                payload beats, docs/formats.md), every other packet one beat;
 *                data = TX_DATA_BYTES / DATA beats, forward = TX_BYTES / all beats of
 *                node 0, both = node 0's TX_BYTES / the beats of both nodes (ACKs back).
 *   flows      (patterns) per flow: size x the transfers whose DONE was seen in the window
 *                (from the first round of status reads W0 ticks after the first post to
 *                the first round W ticks later) / the window, in bytes per cycle of the
 *                nominal 200 MHz clock and as a fraction of the link's 64 bytes/cycle; it
 *                is off the bytes the flow moved in the window by at most OUT x size (the
 *                transfers in flight at either end). Per receiving node its RX_BYTES read
 *                at both ends, over the ticks between the two reads' returns. The packets
 *                the network dropped, when the backend knows them (net_dropped).
 *   stages     (-S) per notification, from its stamps (qrdma_notif_stages; device cycles,
 *                each a difference mod 2^16): sender t_send - t_post, per switch k the
 *                link to it (arrival - previous departure) and the switch (departure -
 *                arrival), the last link t_recv - last departure, the receiver t_done -
 *                t_recv; total t_done - t_post. Per stage over the notifications that have
 *                it: min, median (rank n/2 + 1, as t_typical), p99 (rank ceil(0.99 n)), max;
 *                the switches seen (hops: the same for every notification, else "mixed"
 *                with the count per hop count). Printed under the row:
 *                  stamps: N notifications, hops H (device cycles, mod 2^16)
 *                  stage        samples        min     median        p99        max
 *                  sender           ...    (one row per stage in path order, then total)
 *                JSON, in the row: "stamps": {"samples", "hops" (null if mixed),
 *                "hops_counts", "stages": [{"stage", "samples", "min", "median", "p99",
 *                "max"}, ...], "total": {...}}.
 * Data verification, of every transfer: each in-flight transfer has its own source and
 * destination slot (of its flow, in the patterns); source slots hold a pattern that
 * depends on slot (and flow) and size; before a transfer is posted its destination slot
 * is overwritten with the complement of the source, after DONE the slot must equal the
 * source; the bytes between and before the slots (guards) must be untouched at the end.
 * A wrong byte exits with status 2 and a message naming the transfer and byte; an ERROR
 * status, a failed post or a timeout with status 3. The poisoning and comparing is CPU
 * work between a completion and the next post of that slot: free in simulation
 * (simulated time does not advance), a small cost on hardware.
 */
#define _POSIX_C_SOURCE 200809L

#include "qrdma.h"
#include "perf_flows.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum test { T_WRITE_BW, T_WRITE_LAT, T_MSG_RATE, T_READ_BW, T_READ_LAT };
enum mode { M_MEM, M_INLINE, M_AUTO };
static const char *test_names[] = {"write_bw", "write_lat", "msg_rate", "read_bw", "read_lat"};
static int is_read(enum test t) { return t == T_READ_BW || t == T_READ_LAT; }
static int is_lat(enum test t) { return t == T_WRITE_LAT || t == T_READ_LAT; }
static const char *mode_names[] = {"mem", "inline", "auto"};

#define MIN_SIZE 2ULL
#define MAX_SIZE (8ULL << 20)
#define PEAK_RUN 4096
#define NQ_ENTRIES 256
#define CNT_N 10 /* the counters of -c, per node */
static const enum qrdma_counter cnt_ids[CNT_N] = {QRDMA_CNT_TX_DATA_PKTS, QRDMA_CNT_TX_CTRL_PKTS,
                                                  QRDMA_CNT_TX_BYTES,     QRDMA_CNT_TX_DATA_BYTES,
                                                  QRDMA_CNT_TX_RETX,      QRDMA_CNT_TX_MISS_RETX,
                                                  QRDMA_CNT_RX_DUP_DROP,  QRDMA_CNT_RX_MISS,
                                                  QRDMA_CNT_RX_PROT_DROP, QRDMA_CNT_RX_READ_REQS};

struct opts {
    enum test test;
    uint64_t size;
    int all;
    uint64_t iters;
    uint64_t max_bytes;
    unsigned outstanding;
    enum mode mode;
    uint64_t timeout_ms;
    const char *spec;
    const char *json;
    int align_size, notify, lat_notif, counters; /* -A, -N, -l notif, -c */
    int multipath;                               /* -M */
    int registered;                              /* -E */
    int keyed;                                   /* -K */
    int stamps;                                  /* -S */
    uint64_t warmup, window;                     /* -w W0,W (window 0: off) */
    uint64_t retx_timeout, retries, backoff;     /* -R T[,R[,B[,M]]] (T 0: registers untouched) */
    uint64_t resend;                             /* -R ...,M: RETRY_LIMIT.resend */
};

/* -S: the stages by kind: sender, link_sw0, sw0, link_sw1, sw1, link_recv, receiver
 * (qrdma_stage_names[QRDMA_STAMP_HOPS_MAX]), then the total t_done - t_post. */
#define ST_KINDS (QRDMA_STAGES_MAX + 1)
#define ST_TOTAL QRDMA_STAGES_MAX
struct stamp_stat {
    uint64_t n, min, med, p99, max; /* cycles */
};

struct row {
    uint64_t bytes, iters;
    unsigned outstanding;   /* transfers in flight actually used */
    int is_inline;
    uint64_t ticks;         /* first post -> last completion */
    double bw_peak, bw_avg, mpps;                          /* Gb/s, Gb/s, Mpps */
    double t_min, t_max, t_typ, t_avg, t_sd, t_p99, t_p999; /* usec */
    uint64_t t_typ_ticks;
    uint64_t align;         /* slot alignment */
    uint64_t notifs;        /* notifications checked */
    uint64_t early;         /* ... written early by the receiver (registered) */
    uint64_t w_ticks, w_bytes, w_done;           /* -w: window, RX_BYTES in it, DONE seen in it */
    int read;                                    /* remote reads: node 1 sends the DATA */
    int cnt;                                     /* -c: cnt_d valid */
    uint64_t cnt_d[2][CNT_N];                    /* -c: counter differences, node 0 and node 1 */
    int stamps;                                  /* -S: the fields below are set */
    uint64_t st_samples;                         /* stamped notifications */
    uint64_t hops_cnt[QRDMA_STAMP_HOPS_MAX + 1]; /* ... with 0, 1, 2 switches */
    struct stamp_stat st[ST_KINDS];              /* per stage kind, and the total */
};

static struct {
    struct qrdma_backend *be;
    qrdma_node *tx, *rx;
    qrdma_page *pg;
} g;

void perf_die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "qrdma-perf: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(code);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: qrdma-perf write_bw|write_lat|read_bw|read_lat|msg_rate [-s size] [-a] [-n iters] [-b max_bytes]\n"
            "                  [-t outstanding] [-m mem|inline|auto] [-A] [-K] [-M] [-N [-E]] [-S] [-l done|notif] [-c]\n"
            "                  [-w warmup,window] [-q pages] [-T ms] [-R cycles[,retries[,backoff[,sr|gbn|timeout]]]]\n"
            "                  [-B backend-spec] [-o json]\n"
            "       qrdma-perf incast|permutation|alltoall|hotspot [-s size] [-t outstanding] [-w warmup,window]\n"
            "                  [-T ms] [-B backend-spec] [-o json]\n");
    exit(1);
}

uint64_t perf_parse_u64(const char *s, const char *what)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s)
        perf_die(1, "bad %s '%s'", what, s);
    if (*end == 'k' || *end == 'K')
        v <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        v <<= 20, end++;
    else if (*end == 'g' || *end == 'G')
        v <<= 30, end++;
    if (*end)
        perf_die(1, "bad %s '%s'", what, s);
    return v;
}

static double ticks_s(uint64_t t) { return (double)t / (double)g.be->tick_hz; }
static double ticks_us(uint64_t t) { return (double)t * 1e6 / (double)g.be->tick_hz; }

void perf_parse_window(const char *arg, uint64_t *warmup, uint64_t *window)
{
    char buf[64];
    char *comma = strlen(arg) < sizeof buf ? strchr(strcpy(buf, arg), ',') : NULL;
    if (!comma)
        perf_die(1, "bad window '%s' (W0,W)", arg);
    *comma = 0;
    *warmup = perf_parse_u64(buf, "warm-up");
    *window = perf_parse_u64(comma + 1, "window");
    if (!*window)
        perf_die(1, "the window must be at least 1 tick");
}

uint8_t perf_pattern(uint64_t slot, uint64_t i, uint64_t size)
{
    uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ULL ^ (slot + 1) * 0xC2B2AE3D27D4EB4FULL ^ size;
    return (uint8_t)(x >> 56 ^ x >> 29 ^ x);
}

void perf_fill(uint8_t *p, uint64_t slot, uint64_t size)
{
    for (uint64_t i = 0; i < size; i++)
        p[i] = perf_pattern(slot, i, size);
}

void perf_poison(uint8_t *dst, const uint8_t *src, uint64_t size)
{
    for (uint64_t i = 0; i < size; i++)
        dst[i] = (uint8_t)~src[i];
}

void perf_verify(const uint8_t *src, const uint8_t *dst, uint64_t size, const char *what_fmt, ...)
{
    if (memcmp(src, dst, size) == 0)
        return;
    uint64_t i = 0;
    while (src[i] == dst[i])
        i++;
    char what[256];
    va_list ap;
    va_start(ap, what_fmt);
    vsnprintf(what, sizeof what, what_fmt, ap);
    va_end(ap);
    perf_die(2, "DATA VERIFICATION FAILED: %s: byte %llu is 0x%02x, expected 0x%02x", what, (unsigned long long)i,
             dst[i], src[i]);
}

uint64_t perf_guard_bad(const uint8_t *p, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (p[i] != PERF_GUARD_BYTE)
            return i;
    return UINT64_MAX;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ----------------------------------------------------------------- one size */
struct run {
    uint64_t size, iters, stride;
    int inl;
    unsigned width, nch, out;     /* channel width, channels allocated, outstanding */
    int read;                     /* read_bw / read_lat: remote reads on read channels */
    int ch[QRDMA_WR_CH_PER_PAGE]; /* allocated channels */
    struct qrdma_buf src, dst;
    uint64_t *t_post, *t_done;    /* per transfer (post order) / per completion (completion order) */
    uint64_t *lat;                /* per transfer */
    uint64_t slot_xfer[QRDMA_WR_CH_PER_PAGE]; /* transfer index in flight on slot k */
    int slot_used[QRDMA_WR_CH_PER_PAGE];
    uint64_t align, cap;          /* slot alignment; transfers the arrays hold */
    int notify;                   /* -N */
    int multipath;                /* -M */
    int registered;               /* -E */
    int keyed;                    /* -K: a window over dst, its key in every transfer */
    struct qrdma_mr mr;           /* -K: the window over the remote buffers (dst; reads: src) */
    struct qrdma_mr lmr;          /* -K, reads: the window over the local buffers (dst) */
    uint16_t *x_slot, *x_chan;    /* per transfer: its slot and channel (notification checks) */
    uint8_t *x_notif;             /* per transfer: its notification was seen */
    uint64_t notifs;              /* notifications checked */
    uint64_t early;               /* ... written early by the receiver */
    int w_phase;                  /* -w: 0 warm-up, 1 window, 2 drain */
    uint64_t t_w0, t_w1, w_rx0, w_rx1;
    int stamps;                   /* -S */
    uint64_t unstamped;           /* -S: notifications without stamps */
    uint64_t st_n, st_cap;        /* -S: stamped notifications taken; the arrays' room */
    uint64_t *sv[ST_KINDS];       /* -S: per stage kind, its values (cycles) */
    uint64_t sn[ST_KINDS];        /* ... and their count */
    uint64_t hops_cnt[QRDMA_STAMP_HOPS_MAX + 1];
};

static uint8_t *src_slot(struct run *r, unsigned k) { return (uint8_t *)r->src.cpu + r->align + k * r->stride; }
static uint8_t *dst_slot(struct run *r, unsigned k) { return (uint8_t *)r->dst.cpu + r->align + k * r->stride; }

static void verify(struct run *r, unsigned k, uint64_t xfer)
{
    perf_verify(src_slot(r, k), dst_slot(r, k), r->size, "size %llu, transfer #%llu (slot %u)",
                (unsigned long long)r->size, (unsigned long long)xfer, k);
}

static void verify_guards(struct run *r)
{
    const uint8_t *d = r->dst.cpu;
    uint64_t i = perf_guard_bad(d + r->align - PERF_GUARD, PERF_GUARD);
    if (i != UINT64_MAX)
        perf_die(2, "DATA VERIFICATION FAILED: size %llu: byte written before slot 0 (offset -%llu)",
                 (unsigned long long)r->size, (unsigned long long)(PERF_GUARD - i));
    for (unsigned k = 0; k < r->out; k++)
        if ((i = perf_guard_bad(dst_slot(r, k) + r->size, r->stride - r->size)) != UINT64_MAX)
            perf_die(2, "DATA VERIFICATION FAILED: size %llu: byte written past slot %u (offset %llu)",
                     (unsigned long long)r->size, k, (unsigned long long)(r->size + i));
}

/* The per-transfer arrays hold at least n transfers (-w: the count is known at the end). */
static void reserve(struct run *r, uint64_t n)
{
    if (n <= r->cap)
        return;
    uint64_t cap = r->cap ? r->cap : 1024;
    while (cap < n)
        cap *= 2;
    uint64_t *tp = realloc(r->t_post, cap * sizeof *tp), *td = realloc(r->t_done, cap * sizeof *td),
             *la = realloc(r->lat, cap * sizeof *la);
    r->t_post = tp ? tp : r->t_post;
    r->t_done = td ? td : r->t_done;
    r->lat = la ? la : r->lat;
    uint16_t *xs = realloc(r->x_slot, cap * sizeof *xs), *xc = realloc(r->x_chan, cap * sizeof *xc);
    r->x_slot = xs ? xs : r->x_slot;
    r->x_chan = xc ? xc : r->x_chan;
    uint8_t *xn = realloc(r->x_notif, cap);
    r->x_notif = xn ? xn : r->x_notif;
    if (!tp || !td || !la || !xs || !xc || !xn)
        perf_die(3, "out of memory");
    memset(r->x_notif + r->cap, 0, cap - r->cap);
    r->cap = cap;
}

/* Slot k's transfer (index xfer) posted on channel chan: a remote write (memory or
 * inline) or, for read_bw / read_lat, a remote read; its post tick just before. */
static void post(struct run *r, unsigned k, uint64_t xfer, int chan)
{
    const uint64_t src = r->src.dev + r->align + k * r->stride, dst = r->dst.dev + r->align + k * r->stride;
    const struct qrdma_write wr = {
        .src_addr = src,
        .dst_addr = dst,
        .size = r->size,
        .dst_node = qrdma_node_info(g.rx)->node_id,
        .tag = (uint32_t)xfer,
        .flags = (r->notify ? QRDMA_WR_NOTIFY : 0) | (r->multipath && !r->inl ? QRDMA_WR_MULTIPATH : 0)
                 | (r->registered && r->notify && !r->inl ? QRDMA_WR_REGISTERED : 0),
        .rkey = r->keyed ? r->mr.rkey : 0,
    };
    const struct qrdma_read rd = {
        .src_addr = src,
        .dst_addr = dst,
        .size = r->size,
        .src_node = qrdma_node_info(g.rx)->node_id,
        .tag = (uint32_t)xfer,
        .flags = r->multipath ? QRDMA_RD_MULTIPATH : 0,
        .rkey = r->keyed ? r->mr.rkey : 0,
        .lkey = r->keyed ? r->lmr.rkey : 0,
    };
    reserve(r, xfer + 1);
    r->x_slot[xfer] = (uint16_t)k;
    r->x_chan[xfer] = (uint16_t)chan;
    perf_poison(dst_slot(r, k), src_slot(r, k), r->size);
    r->t_post[xfer] = qrdma_now(g.tx);
    int e = r->read  ? qrdma_post_read(g.pg, (unsigned)chan, &rd)
            : r->inl ? qrdma_post_inline(g.pg, (unsigned)chan, &wr, src_slot(r, k), r->size)
                     : qrdma_post_write(g.pg, (unsigned)chan, &wr);
    if (e)
        perf_die(3, "post of transfer #%llu (size %llu, channel %d) failed: %s", (unsigned long long)xfer,
                 (unsigned long long)r->size, chan, qrdma_strerror(e));
    r->slot_xfer[k] = xfer;
    r->slot_used[k] = 1;
}

/* Slot k's transfer was seen DONE by the status read that returned at time `now`. */
static void completed(struct run *r, unsigned k, uint64_t ndone, uint64_t now)
{
    uint64_t x = r->slot_xfer[k];
    r->t_done[ndone] = now;
    r->lat[x] = now - r->t_post[x];
    verify(r, k, x);
}

/* ----------------------------------------------------------------- -N, -l notif, -w, -c */
/* -S: the kind (index of struct row st) of stage i of a notification with h hops. */
static unsigned stage_kind(unsigned h, unsigned i)
{
    return i <= 2 * h ? i : i + 2 * ((unsigned)QRDMA_STAMP_HOPS_MAX - h);
}

/* -S: the stamps of a notification notif_check accepted. */
static void stamp_take(struct run *r, const struct qrdma_notif *nf)
{
    if (!nf->stamped) {
        r->unstamped++;
        return;
    }
    uint32_t st[QRDMA_STAGES_MAX];
    int n = qrdma_notif_stages(nf, st);
    if (n < 0)
        perf_die(2, "BENCHMARK STAMPS CHECK FAILED: size %llu: a notification stamped by %u switches (at most %u)",
                 (unsigned long long)r->size, nf->hops, (unsigned)QRDMA_STAMP_HOPS_MAX);
    if (r->st_n == r->st_cap) {
        uint64_t cap = r->st_cap ? 2 * r->st_cap : 1024;
        for (unsigned k = 0; k < ST_KINDS; k++) {
            uint64_t *a = realloc(r->sv[k], cap * sizeof *a);
            if (!a)
                perf_die(3, "out of memory");
            r->sv[k] = a;
        }
        r->st_cap = cap;
    }
    for (int i = 0; i < n; i++) {
        unsigned k = stage_kind(nf->hops, (unsigned)i);
        r->sv[k][r->sn[k]++] = st[i];
    }
    r->sv[ST_TOTAL][r->sn[ST_TOTAL]++] = qrdma_stamp_diff(nf->t_done, nf->t_post);
    r->hops_cnt[nf->hops]++;
    r->st_n++;
}

/* -S: min, median, p99, max of the values of each stage kind (sorts them). */
static void stamp_stats(struct run *r, struct row *w)
{
    w->stamps = 1;
    w->st_samples = r->st_n;
    memcpy(w->hops_cnt, r->hops_cnt, sizeof w->hops_cnt);
    for (unsigned k = 0; k < ST_KINDS; k++) {
        uint64_t n = r->sn[k], *a = r->sv[k];
        struct stamp_stat *s = &w->st[k];
        s->n = n;
        if (!n)
            continue;
        qsort(a, n, sizeof *a, cmp_u64);
        uint64_t i99 = (uint64_t)ceil(0.99 * (double)n);
        s->min = a[0];
        s->med = a[n / 2];
        s->p99 = a[(i99 ? i99 : 1) - 1];
        s->max = a[n - 1];
    }
}

/* A notification against the transfer it names: by its tag (memory writes, each seen
 * once), by `expect` (one outstanding), or, for inline writes with more outstanding (tag
 * 0), the transfer last posted on the slot its destination names. */
static void notif_check(struct run *r, const struct qrdma_notif *nf, uint64_t posted, uint64_t expect)
{
    uint64_t x = expect != UINT64_MAX ? expect : r->inl ? UINT64_MAX : nf->tag;
    if (x == UINT64_MAX) {
        uint64_t off = nf->dst_addr - r->dst.dev - r->align;
        if (off % r->stride == 0 && off / r->stride < r->out)
            x = r->slot_xfer[off / r->stride];
    }
    if (x >= posted || nf->kind != (r->inl ? QRDMA_NET_INLINE : QRDMA_NET_CONTROL) || nf->size != r->size ||
        nf->tag != (r->inl ? 0 : (uint32_t)x) || nf->src_node != qrdma_node_info(g.tx)->node_id ||
        nf->dst_addr != r->dst.dev + r->align + r->x_slot[x] * r->stride ||
        nf->xfer != qrdma_page_index(g.pg) * QRDMA_CH_PER_PAGE + r->x_chan[x] || r->x_notif[x])
        perf_die(2, "NOTIFICATION CHECK FAILED: size %llu: kind %u size %llu tag %u dst 0x%llx xfer %u src %u "
               "(transfer #%llu%s)", (unsigned long long)r->size, nf->kind, (unsigned long long)nf->size,
                 nf->tag, (unsigned long long)nf->dst_addr, nf->xfer, nf->src_node, (unsigned long long)x,
                 x < posted && r->x_notif[x] ? ", seen before" : "");
    r->x_notif[x] = !r->inl || expect != UINT64_MAX;
    r->notifs++;
    r->early += nf->early;
    if (r->stamps)
        stamp_take(r, nf);
}

/* Take every notification in node 1's ring. */
static void notif_drain(struct run *r, uint64_t posted)
{
    struct qrdma_notif nf;
    int e;
    while ((e = qrdma_nq_poll(g.rx, &nf)) == 1)
        notif_check(r, &nf, posted, UINT64_MAX);
    if (e < 0)
        perf_die(3, "notification ring: %s", qrdma_strerror(e));
}

/* Wait until `want` notifications were checked (expect: as notif_check). */
static void notif_wait(struct run *r, uint64_t want, uint64_t posted, uint64_t expect, uint64_t timeout)
{
    while (r->notifs < want) {
        struct qrdma_notif nf;
        int e = qrdma_nq_wait(g.rx, &nf, timeout);
        if (e != 1)
            perf_die(3, "size %llu: %llu of %llu notifications: %s", (unsigned long long)r->size,
                     (unsigned long long)r->notifs, (unsigned long long)want, qrdma_strerror(e));
        notif_check(r, &nf, posted, expect);
    }
}

/* -l notif: the first tick at whose start node 1's next ring entry reads NOTIF_FULL. */
static uint64_t ring_full_tick(struct run *r, uint64_t t0, uint64_t timeout)
{
    const struct qrdma_buf *nq = qrdma_nq_buf(g.rx);
    const volatile uint8_t *m =
        (const volatile uint8_t *)nq->cpu + 64 * (qrdma_nq_tail(g.rx) % (nq->size / 64));
    for (;;) {
        uint64_t t = qrdma_now(g.rx);
        if (*m == (uint8_t)QRDMA_NOTIF_FULL)
            return t;
        if (t - t0 > timeout)
            perf_die(3, "size %llu: no notification %llu ticks after the post", (unsigned long long)r->size,
                     (unsigned long long)(t - t0));
        if (g.be->idle)
            g.be->idle(g.be->ctx, qrdma_node_index(g.rx));
    }
}

static void read_counter(qrdma_node *n, enum qrdma_counter c, uint64_t *v)
{
    int e = qrdma_counter_read(n, c, v);
    if (e)
        perf_die(3, "counter %s: %s", qrdma_counter_name(c), qrdma_strerror(e));
}

/* -c: cnt_ids of node 0 and node 1 (zeros for node 1 in loopback). */
static void read_counters(uint64_t v[2][CNT_N])
{
    for (unsigned i = 0; i < CNT_N; i++) {
        read_counter(g.tx, cnt_ids[i], &v[0][i]);
        v[1][i] = 0;
        if (g.rx != g.tx)
            read_counter(g.rx, cnt_ids[i], &v[1][i]);
    }
}

/* -w: after each round of status reads; the window's end stops the posting (iters). */
static void window_step(struct run *r, const struct opts *o, uint64_t posted)
{
    uint64_t t = qrdma_now(g.tx);
    if (r->w_phase == 0 && t - r->t_post[0] >= o->warmup) {
        read_counter(g.rx, QRDMA_CNT_RX_BYTES, &r->w_rx0);
        r->t_w0 = qrdma_now(g.tx);
        r->w_phase = 1;
    } else if (r->w_phase == 1 && t - r->t_w0 >= o->window) {
        read_counter(g.rx, QRDMA_CNT_RX_BYTES, &r->w_rx1);
        r->t_w1 = qrdma_now(g.tx);
        r->w_phase = 2;
        r->iters = posted;
    }
}

/* The source buffers on the node the data comes from (node 0 for writes, node 1 for
 * reads), the destination buffers on the other. */
static qrdma_node *src_node(const struct run *r) { return r->read ? g.rx : g.tx; }
static qrdma_node *dst_node(const struct run *r) { return r->read ? g.tx : g.rx; }

static int alloc_bufs(struct run *r, unsigned want)
{
    for (unsigned s = want; s >= 1; s /= 2) {
        uint64_t bytes = r->align + s * r->stride;
        if (qrdma_buf_alloc(src_node(r), bytes, r->align, &r->src) == 0) {
            if (qrdma_buf_alloc(dst_node(r), bytes, r->align, &r->dst) == 0)
                return (int)s;
            qrdma_buf_free(src_node(r), &r->src);
        }
    }
    return 0;
}

static struct row run_size(uint64_t size, const struct opts *o)
{
    struct run r = {.size = size, .iters = o->iters};
    if (o->max_bytes && size * r.iters > o->max_bytes)
        r.iters = o->max_bytes / size < 2 ? 2 : o->max_bytes / size;
    if (o->window)
        r.iters = UINT64_MAX; /* until the window ends (window_step) */
    r.notify = o->notify;
    r.multipath = o->multipath;
    r.registered = o->registered;
    r.keyed = o->keyed;
    r.stamps = o->stamps;
    r.read = is_read(o->test);
    r.inl = !r.read && (o->mode == M_INLINE || (o->mode == M_AUTO && size <= QRDMA_INLINE_MAX));
    if (r.inl && size > QRDMA_INLINE_MAX)
        perf_die(1, "inline mode: size %llu above %llu bytes", (unsigned long long)size,
                 (unsigned long long)QRDMA_INLINE_MAX);
    r.width = (r.inl && size > QRDMA_INLINE_SHORT_MAX) || r.keyed ? 2 : 1;
    for (r.nch = 0; r.nch < QRDMA_WR_CH_PER_PAGE / r.width; r.nch++) {
        r.ch[r.nch] = r.read ? qrdma_chan_alloc_read(g.pg, r.width) : qrdma_chan_alloc(g.pg, r.width);
        if (r.ch[r.nch] < 0)
            perf_die(3, "channel allocation: %s", qrdma_strerror(r.ch[r.nch]));
    }
    r.align = PERF_SLOT_ALIGN;
    if (o->align_size) {
        uint64_t blk = qrdma_node_info(g.tx)->block_size;
        while (r.align * 2 <= size && r.align * 2 <= blk)
            r.align *= 2;
    }
    r.stride = (size + PERF_GUARD + r.align - 1) / r.align * r.align;
    unsigned want = o->outstanding < r.nch ? o->outstanding : r.nch;
    if ((uint64_t)want > r.iters)
        want = (unsigned)r.iters;
    r.out = (unsigned)alloc_bufs(&r, want);
    if (!r.out)
        perf_die(3, "cannot allocate 2 x %llu bytes of host memory", (unsigned long long)(r.align + r.stride));
    if (r.out < want)
        fprintf(stderr, "qrdma-perf: size %llu: %u outstanding transfers (host memory for %u buffers)\n",
                (unsigned long long)size, r.out, r.out);
    reserve(&r, o->window ? 1 : r.iters);
    int e;
    if (r.keyed && !r.read && (e = qrdma_mr_reg(g.rx, qrdma_page_index(g.pg), r.dst.dev, r.dst.size,
                                                QRDMA_MR_REMOTE_WRITE, &r.mr)))
        perf_die(3, "window over the destination buffers: %s", qrdma_strerror(e));
    if (r.keyed && r.read &&
        ((e = qrdma_mr_reg(g.rx, qrdma_page_index(g.pg), r.src.dev, r.src.size, QRDMA_MR_REMOTE_READ, &r.mr)) ||
         (e = qrdma_mr_reg(g.tx, qrdma_page_index(g.pg), r.dst.dev, r.dst.size, QRDMA_MR_LOCAL_WRITE, &r.lmr))))
        perf_die(3, "windows over the read buffers: %s", qrdma_strerror(e));
    for (unsigned k = 0; k < r.out; k++)
        perf_fill(src_slot(&r, k), k, size);
    memset(r.dst.cpu, PERF_GUARD_BYTE, r.dst.size);

    const uint64_t timeout = o->timeout_ms * (g.be->tick_hz / 1000);
    uint64_t cnt0[2][CNT_N], cnt1[2][CNT_N];
    if (o->counters)
        read_counters(cnt0);
    uint64_t posted = 0, ndone = 0;
    if (r.out == 1) {
        /* one at a time: post, poll its single status until DONE, next channel */
        for (; posted < r.iters; posted++) {
            int chan = r.ch[posted % r.nch];
            post(&r, 0, posted, chan);
            uint64_t t0 = r.t_post[posted];
            uint64_t t_read, t_notif = o->lat_notif ? ring_full_tick(&r, t0, timeout) : 0;
            for (;;) {
                int st = qrdma_poll(g.pg, (unsigned)chan);
                t_read = qrdma_now(g.tx);
                if (st == (int)QRDMA_ST_DONE)
                    break;
                if (st < 0 || st == (int)QRDMA_ST_ERROR)
                    perf_die(3, "transfer #%llu (size %llu, channel %d): %s%s", (unsigned long long)posted,
                             (unsigned long long)size, chan, st < 0 ? qrdma_strerror(st) : "status ERROR: ",
                             st < 0 ? "" : qrdma_err_reason_str(qrdma_chan_error(g.pg, (unsigned)chan)));
                if (t_read - t0 > timeout)
                    perf_die(3, "transfer #%llu (size %llu, channel %d) not DONE after %llu ms",
                             (unsigned long long)posted, (unsigned long long)size, chan,
                             (unsigned long long)o->timeout_ms);
                if (g.be->idle)
                    g.be->idle(g.be->ctx, qrdma_node_index(g.tx));
            }
            completed(&r, 0, ndone++, t_read);
            if (o->lat_notif)
                r.lat[posted] = t_notif - t0;
            if (r.notify)
                notif_wait(&r, posted + 1, posted + 1, posted, timeout);
        }
    } else {
        /* r.out outstanding on channels ch[0..out-1] (slot k on ch[k]); collective polling */
        for (; posted < r.out; posted++)
            post(&r, (unsigned)posted, posted, r.ch[posted]);
        int slot_of[QRDMA_CH_PER_PAGE];
        for (unsigned c = 0; c < QRDMA_CH_PER_PAGE; c++)
            slot_of[c] = -1;
        unsigned groups = 0;  /* bit g: collective group g holds a channel in use */
        for (unsigned k = 0; k < r.out; k++) {
            slot_of[r.ch[k]] = (int)k;
            groups |= 1u << ((unsigned)r.ch[k] / 32);
        }
        uint64_t last = qrdma_now(g.tx);
        while (ndone < r.iters) {
            int progress = 0;
            for (unsigned grp = 0; grp < QRDMA_CH_PER_PAGE / 32; grp++) {
                if (!(groups >> grp & 1))
                    continue;
                struct qrdma_coll c;
                int e = qrdma_poll_coll(g.pg, grp, &c);
                uint64_t t_read = qrdma_now(g.tx);
                if (e)
                    perf_die(3, "collective status read: %s", qrdma_strerror(e));
                for (unsigned i = 0; i < 32; i++) {
                    int k = slot_of[32 * grp + i];
                    if (k < 0 || !r.slot_used[k])
                        continue;
                    if (c.error >> i & 1)
                        perf_die(3, "transfer #%llu (size %llu, channel %u): status ERROR: %s",
                                 (unsigned long long)r.slot_xfer[k], (unsigned long long)size, 32 * grp + i,
                                 qrdma_err_reason_str(qrdma_chan_error(g.pg, 32 * grp + i)));
                    if (!(c.done >> i & 1))
                        continue;
                    r.slot_used[k] = 0;
                    completed(&r, (unsigned)k, ndone++, t_read);
                    progress = 1;
                    if (posted < r.iters) {
                        post(&r, (unsigned)k, posted, r.ch[k]);
                        posted++;
                    }
                }
            }
            if (r.notify)
                notif_drain(&r, posted);
            if (o->window)
                window_step(&r, o, posted);
            uint64_t now = qrdma_now(g.tx);
            if (progress)
                last = now;
            else if (now - last > timeout)
                perf_die(3, "size %llu: no transfer completed for %llu ms (%llu of %llu done)",
                         (unsigned long long)size, (unsigned long long)o->timeout_ms, (unsigned long long)ndone,
                         (unsigned long long)r.iters);
            else if (g.be->idle)
                g.be->idle(g.be->ctx, qrdma_node_index(g.tx));
        }
    }
    if (r.notify)
        notif_wait(&r, r.iters, r.iters, UINT64_MAX, timeout);
    if (o->counters)
        read_counters(cnt1);
    verify_guards(&r);
    if (r.stamps && r.unstamped)
        perf_die(2, "BENCHMARK STAMPS MISSING: size %llu: %llu of %llu notifications carry no stamps (stamped = 0) "
                 "in benchmark mode", (unsigned long long)size, (unsigned long long)r.unstamped,
                 (unsigned long long)r.notifs);

    /* figures */
    struct row w = {.bytes = size, .iters = r.iters, .outstanding = r.out, .is_inline = r.inl, .read = r.read,
                    .align = r.align, .notifs = r.notifs, .early = r.early, .cnt = o->counters};
    for (unsigned n = 0; o->counters && n < 2; n++)
        for (unsigned i = 0; i < CNT_N; i++)
            w.cnt_d[n][i] = cnt1[n][i] - cnt0[n][i];
    if (r.stamps)
        stamp_stats(&r, &w);
    if (o->window) {
        w.w_ticks = r.t_w1 - r.t_w0;
        w.w_bytes = r.w_rx1 - r.w_rx0;
        for (uint64_t i = 0; i < r.iters; i++)
            w.w_done += r.t_done[i] > r.t_w0 && r.t_done[i] <= r.t_w1;
    }
    w.ticks = r.t_done[r.iters - 1] - r.t_post[0];
    double secs = ticks_s(w.ticks ? w.ticks : 1);
    w.bw_avg = (double)size * (double)r.iters * 8 / secs / 1e9;
    w.mpps = (double)r.iters / secs / 1e6;
    double best = 0;
    uint64_t step = r.iters <= PEAK_RUN ? 1 : r.iters / PEAK_RUN;
    for (uint64_t i = 0; i < r.iters; i += step)
        for (uint64_t j = i; j < r.iters && j - i < PEAK_RUN; j++) {
            uint64_t dt = r.t_done[j] > r.t_post[i] ? r.t_done[j] - r.t_post[i] : 1;
            double rate = (double)(j - i + 1) / (double)dt;
            if (rate > best)
                best = rate;
        }
    w.bw_peak = best * (double)g.be->tick_hz * (double)size * 8 / 1e9;
    qsort(r.lat, r.iters, sizeof *r.lat, cmp_u64);
    double sum = 0, sq = 0;
    for (uint64_t i = 0; i < r.iters; i++)
        sum += ticks_us(r.lat[i]);
    w.t_avg = sum / (double)r.iters;
    for (uint64_t i = 0; i < r.iters; i++)
        sq += (ticks_us(r.lat[i]) - w.t_avg) * (ticks_us(r.lat[i]) - w.t_avg);
    w.t_sd = sqrt(sq / (double)r.iters);
    w.t_min = ticks_us(r.lat[0]);
    w.t_max = ticks_us(r.lat[r.iters - 1]);
    w.t_typ = ticks_us(r.lat[r.iters / 2]);
    w.t_typ_ticks = r.lat[r.iters / 2];
    uint64_t i99 = (uint64_t)ceil(0.99 * (double)r.iters), i999 = (uint64_t)ceil(0.999 * (double)r.iters);
    w.t_p99 = ticks_us(r.lat[(i99 ? i99 : 1) - 1]);
    w.t_p999 = ticks_us(r.lat[(i999 ? i999 : 1) - 1]);

    if (r.keyed && ((e = qrdma_mr_dereg(g.rx, &r.mr)) ||
                    (r.read && (e = qrdma_mr_dereg(g.tx, &r.lmr)))))
        perf_die(3, "window deregistration: %s", qrdma_strerror(e));
    qrdma_buf_free(src_node(&r), &r.src);
    qrdma_buf_free(dst_node(&r), &r.dst);
    for (unsigned c = 0; c < r.nch; c++)
        qrdma_chan_free(g.pg, (unsigned)r.ch[c]);
    free(r.t_post);
    free(r.t_done);
    free(r.lat);
    free(r.x_slot);
    free(r.x_chan);
    free(r.x_notif);
    for (unsigned k = 0; k < ST_KINDS; k++)
        free(r.sv[k]);
    return w;
}

/* ----------------------------------------------------------------- output */
#define RULE "---------------------------------------------------------------------------------------"

static void print_header(const struct opts *o)
{
    const struct qrdma_info *ti = qrdma_node_info(g.tx), *ri = qrdma_node_info(g.rx);
    printf("%s\n", RULE);
    printf("                    RDMA_%s %s Test (qrdma-perf %s)\n", is_read(o->test) ? "Read" : "Write",
           is_lat(o->test) ? "Latency" : "BW", test_names[o->test]);
    printf(" Backend: %s   Nodes: %u %s %u (node IDs %u, %u)\n", g.be->name, qrdma_node_index(g.tx),
           is_read(o->test) ? "reads" : "->", qrdma_node_index(g.rx), ti->node_id, ri->node_id);
    printf(" Outstanding: %u   Mode: %s   Data verified: every transfer   Page: %u\n", o->outstanding,
           mode_names[o->mode], qrdma_page_index(g.pg));
    printf(" Clock: %.0f MHz (backend ticks)   Block: %u B   Host port: %u bit\n", (double)g.be->tick_hz / 1e6,
           ti->block_size, ti->host_data_w);
    if (o->stamps)
        printf(" Benchmark mode: node %u stamps its descriptors, the stages of every notification below its row\n",
               qrdma_node_index(g.tx));
    printf("%s\n", RULE);
    if (is_lat(o->test))
        printf(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
               "t_stdev[usec]   99%% percentile[usec]   99.9%% percentile[usec]\n");
    else
        printf(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n");
    fflush(stdout);
}

/* -c: payload bytes per beat (top of the file); -1 where not defined. Counter i of
 * cnt_ids: 0 TX_DATA_PKTS, 1 TX_CTRL_PKTS, 2 TX_BYTES, 3 TX_DATA_BYTES. "Forward" is the
 * link the DATA packets take: node 0's for writes, node 1's for reads. */
enum { EFF_DATA, EFF_FORWARD, EFF_BOTH };
static double efficiency(const struct row *w, int which)
{
    const uint64_t *a = w->cnt_d[w->read], *b = w->cnt_d[!w->read];
    if (!w->cnt || (!w->is_inline && w->bytes % QRDMA_NET_BEAT_BYTES) || (which == EFF_BOTH && g.rx == g.tx))
        return -1;
    uint64_t data = a[0] + a[3] / QRDMA_NET_BEAT_BYTES, fwd = data + a[1];
    uint64_t back = b[0] + b[3] / QRDMA_NET_BEAT_BYTES + b[1];
    uint64_t bytes = which == EFF_DATA ? a[3] : a[2], beats = which == EFF_DATA ? data : which == EFF_FORWARD ? fwd : fwd + back;
    return beats ? (double)bytes / (double)beats : -1;
}

/* -S: the hop count of every stamped notification, -1 if they differ (or there are none). */
static int stamp_hops(const struct row *w)
{
    for (unsigned h = 0; h <= QRDMA_STAMP_HOPS_MAX; h++)
        if (w->hops_cnt[h] && w->hops_cnt[h] == w->st_samples)
            return (int)h;
    return -1;
}

static const char *stage_kind_name(unsigned k)
{
    return k == ST_TOTAL ? "total" : qrdma_stage_names[QRDMA_STAMP_HOPS_MAX][k];
}

static void print_stamps(const struct row *w)
{
    int h = stamp_hops(w);
    printf("   stamps: %llu notifications, ", (unsigned long long)w->st_samples);
    if (h >= 0) {
        printf("hops %d", h);
    } else {
        printf("hops mixed (");
        for (unsigned k = 0; k <= QRDMA_STAMP_HOPS_MAX; k++)
            printf("%s%u: %llu", k ? ", " : "", k, (unsigned long long)w->hops_cnt[k]);
        printf(")");
    }
    printf(" (device cycles, mod 2^16)\n");
    printf("   %-12s %8s %10s %10s %10s %10s\n", "stage", "samples", "min", "median", "p99", "max");
    for (unsigned k = 0; k < ST_KINDS; k++) {
        const struct stamp_stat *s = &w->st[k];
        if (s->n)
            printf("   %-12s %8llu %10llu %10llu %10llu %10llu\n", stage_kind_name(k), (unsigned long long)s->n,
                   (unsigned long long)s->min, (unsigned long long)s->med, (unsigned long long)s->p99,
                   (unsigned long long)s->max);
    }
}

static void json_stat(FILE *f, const struct stamp_stat *s)
{
    fprintf(f, "\"samples\": %llu, \"min\": %llu, \"median\": %llu, \"p99\": %llu, \"max\": %llu",
            (unsigned long long)s->n, (unsigned long long)s->min, (unsigned long long)s->med,
            (unsigned long long)s->p99, (unsigned long long)s->max);
}

static void json_stamps(FILE *f, const struct row *w)
{
    int h = stamp_hops(w);
    fprintf(f, "\"stamps\": {\"samples\": %llu, \"unit\": \"cycles\", ", (unsigned long long)w->st_samples);
    if (h >= 0)
        fprintf(f, "\"hops\": %d, ", h);
    else
        fprintf(f, "\"hops\": null, ");
    fprintf(f, "\"hops_counts\": [");
    for (unsigned k = 0; k <= QRDMA_STAMP_HOPS_MAX; k++)
        fprintf(f, "%s%llu", k ? ", " : "", (unsigned long long)w->hops_cnt[k]);
    fprintf(f, "], \"stages\": [");
    int first = 1;
    for (unsigned k = 0; k < ST_TOTAL; k++) {
        if (!w->st[k].n)
            continue;
        fprintf(f, "%s{\"stage\": \"%s\", ", first ? "" : ", ", stage_kind_name(k));
        json_stat(f, &w->st[k]);
        fprintf(f, "}");
        first = 0;
    }
    fprintf(f, "], \"total\": {");
    json_stat(f, &w->st[ST_TOTAL]);
    fprintf(f, "}}, ");
}

static void print_extra(const struct opts *o, const struct row *w)
{
    if (o->window)
        printf("   window: %llu B in %llu ticks after %llu of warm-up = %.3f B/tick (%.2f Gb/s); "
               "%llu transfers DONE in it\n",
               (unsigned long long)w->w_bytes, (unsigned long long)w->w_ticks, (unsigned long long)o->warmup,
               (double)w->w_bytes / (double)(w->w_ticks ? w->w_ticks : 1),
               (double)w->w_bytes * 8 / ticks_s(w->w_ticks ? w->w_ticks : 1) / 1e9, (unsigned long long)w->w_done);
    if (w->cnt) {
        printf("   counters (node 0 / node 1):");
        for (unsigned i = 0; i < CNT_N; i++)
            printf(" %s %llu / %llu", qrdma_counter_name(cnt_ids[i]), (unsigned long long)w->cnt_d[0][i],
                   (unsigned long long)w->cnt_d[1][i]);
        printf("\n   payload per beat: DATA packets %.2f, the DATA link %.2f, both links %.2f (-1: not defined)\n",
               efficiency(w, EFF_DATA), efficiency(w, EFF_FORWARD), efficiency(w, EFF_BOTH));
    }
    if (o->notify)
        printf("   notifications checked: %llu (%llu early)\n", (unsigned long long)w->notifs,
               (unsigned long long)w->early);
    if (w->stamps)
        print_stamps(w);
    fflush(stdout);
}

static void print_row(const struct opts *o, const struct row *w)
{
    if (is_lat(o->test))
        printf(" %-7llu %-10llu %-13.3f %-13.3f %-15.3f %-13.3f %-15.3f %-22.3f %-.3f\n", (unsigned long long)w->bytes,
               (unsigned long long)w->iters, w->t_min, w->t_max, w->t_typ, w->t_avg, w->t_sd, w->t_p99, w->t_p999);
    else
        printf(" %-10llu %-14llu %-18.2f %-20.2f %-.6f\n", (unsigned long long)w->bytes, (unsigned long long)w->iters,
               w->bw_peak, w->bw_avg, w->mpps);
    print_extra(o, w);
}

int perf_mkdirs(const char *path)
{
    char buf[4096];
    if (strlen(path) >= sizeof buf)
        return -1;
    strcpy(buf, path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return 0;
}

static void write_json(const struct opts *o, const struct row *rows, unsigned n)
{
    char def[256];
    const char *path = o->json;
    if (!path) {
        snprintf(def, sizeof def, "build/results/qrdma_perf_%s_t%u_%s.json", test_names[o->test], o->outstanding,
                 mode_names[o->mode]);
        path = def;
    }
    if (perf_mkdirs(path) != 0)
        perf_die(3, "cannot create the directory of %s", path);
    FILE *f = fopen(path, "w");
    if (!f)
        perf_die(3, "cannot write %s: %s", path, strerror(errno));
    const struct qrdma_info *ti = qrdma_node_info(g.tx), *ri = qrdma_node_info(g.rx);
    fprintf(f, "{\n  \"tool\": \"qrdma-perf\",\n  \"test\": \"%s\",\n  \"backend\": \"%s\",\n", test_names[o->test],
            g.be->name);
    fprintf(f, "  \"tick_hz\": %llu,\n  \"src_node\": %u,\n  \"dst_node\": %u,\n", (unsigned long long)g.be->tick_hz,
            ti->node_id, ri->node_id);
    fprintf(f, "  \"outstanding\": %u,\n  \"mode\": \"%s\",\n  \"verified\": \"every transfer\",\n",
            o->outstanding, mode_names[o->mode]);
    fprintf(f, "  \"notify\": %s,\n  \"latency_end\": \"%s\",\n  \"slot_align\": \"%s\",\n",
            o->notify ? "true" : "false", o->lat_notif ? "notification" : "done", o->align_size ? "size" : "4096");
    fprintf(f, "  \"multipath\": %s,\n", o->multipath ? "true" : "false");
    fprintf(f, "  \"registered\": %s,\n", o->registered ? "true" : "false");
    fprintf(f, "  \"keyed\": %s,\n", o->keyed ? "true" : "false");
    fprintf(f, "  \"benchmark_mode\": %s,\n", o->stamps ? "true" : "false");
    if (o->window)
        fprintf(f, "  \"window_warmup_ticks\": %llu,\n  \"window_min_ticks\": %llu,\n", (unsigned long long)o->warmup,
                (unsigned long long)o->window);
    fprintf(f, "  \"block_size\": %u,\n  \"host_data_w\": %u,\n  \"rows\": [\n", ti->block_size, ti->host_data_w);
    for (unsigned i = 0; i < n; i++) {
        const struct row *w = &rows[i];
        fprintf(f, "    {\"bytes\": %llu, \"iterations\": %llu, \"outstanding\": %u, \"inline\": %s, \"ticks\": %llu, ",
                (unsigned long long)w->bytes, (unsigned long long)w->iters, w->outstanding,
                w->is_inline ? "true" : "false", (unsigned long long)w->ticks);
        fprintf(f, "\"bw_peak_gbps\": %.6f, \"bw_avg_gbps\": %.6f, \"msg_rate_mpps\": %.6f, ", w->bw_peak, w->bw_avg,
                w->mpps);
        fprintf(f, "\"align\": %llu, \"notifications\": %llu, \"early_notifications\": %llu, "
                "\"t_typical_ticks\": %llu, ", (unsigned long long)w->align, (unsigned long long)w->notifs,
                (unsigned long long)w->early, (unsigned long long)w->t_typ_ticks);
        if (o->window)
            fprintf(f, "\"window_ticks\": %llu, \"window_rx_bytes\": %llu, \"window_done\": %llu, ",
                    (unsigned long long)w->w_ticks, (unsigned long long)w->w_bytes, (unsigned long long)w->w_done);
        if (w->cnt) {
            fprintf(f, "\"counters\": [");
            for (unsigned n = 0; n < 2; n++) {
                fprintf(f, "%s{", n ? ", " : "");
                for (unsigned i = 0; i < CNT_N; i++)
                    fprintf(f, "%s\"%s\": %llu", i ? ", " : "", qrdma_counter_name(cnt_ids[i]),
                            (unsigned long long)w->cnt_d[n][i]);
                fprintf(f, "}");
            }
            fprintf(f, "], \"payload_per_beat\": {");
            static const char *eff_names[] = {"data", "forward", "both"};
            for (int k = EFF_DATA; k <= EFF_BOTH; k++) {
                double e = efficiency(w, k);
                if (e < 0)
                    fprintf(f, "%s\"%s\": null", k ? ", " : "", eff_names[k]);
                else
                    fprintf(f, "%s\"%s\": %.6f", k ? ", " : "", eff_names[k], e);
            }
            fprintf(f, "}, ");
        }
        if (w->stamps)
            json_stamps(f, w);
        fprintf(f, "\"t_min_us\": %.6f, \"t_max_us\": %.6f, \"t_typical_us\": %.6f, \"t_avg_us\": %.6f, "
                   "\"t_stdev_us\": %.6f, \"t_p99_us\": %.6f, \"t_p999_us\": %.6f}%s\n",
                w->t_min, w->t_max, w->t_typ, w->t_avg, w->t_sd, w->t_p99, w->t_p999, i + 1 < n ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    if (fclose(f) != 0)
        perf_die(3, "cannot write %s", path);
    printf(" results: %s\n", path);
}

/* ----------------------------------------------------------------- msg_rate -q: pages on cores */
/* -q P: P pages, page p bound to CPU core p (qrdma_page_bind_core), each keeping its channels
 * busy as run_size's collective mode does; one thread drives them all with the two-halved
 * collective read (qrdma_poll_coll_start / _end): a page whose read is back handles that
 * group's completions, reposts on its channels and starts the read of its next group, while
 * the reads of the other pages are in flight (backend idle() when none is back). Each page
 * runs run_size's program on its core: rounds of reads of groups 0 .. groups-1, and after a
 * round without a completion the core pauses (backend core_pause) where run_size calls
 * idle(), so that one page on core 0 takes exactly run_size's cycles. */
static unsigned q_pages; /* 0: one page, run_size */

struct qpage {
    qrdma_page *pg;
    struct run r;
    unsigned group, groups;
    int round_done; /* a completion in the reads of the current round */
    int slot_of[QRDMA_WR_CH_PER_PAGE];
    uint64_t posted, ndone;
};

static void qpage_setup(struct qpage *q, unsigned p, const struct opts *o)
{
    struct run *r = &q->r;
    int e = p ? qrdma_page_claim(g.tx, QRDMA_PAGE_ANY, &q->pg) : (q->pg = g.pg, 0);
    if (!e)
        e = qrdma_page_bind_core(q->pg, (int)p);
    if (e)
        perf_die(3, "page %u on core %u: %s", p, p, qrdma_strerror(e));
    *r = (struct run){.size = o->size, .iters = o->iters, .align = PERF_SLOT_ALIGN};
    r->inl = o->mode == M_INLINE || (o->mode == M_AUTO && o->size <= QRDMA_INLINE_MAX);
    r->width = r->inl && o->size > QRDMA_INLINE_SHORT_MAX ? 2 : 1;
    for (r->nch = 0; r->nch < QRDMA_WR_CH_PER_PAGE / r->width; r->nch++)
        if ((r->ch[r->nch] = qrdma_chan_alloc(q->pg, r->width)) < 0)
            perf_die(3, "channel allocation: %s", qrdma_strerror(r->ch[r->nch]));
    r->stride = (o->size + PERF_GUARD + r->align - 1) / r->align * r->align;
    unsigned want = o->outstanding < r->nch ? o->outstanding : r->nch;
    if ((uint64_t)want > r->iters)
        want = (unsigned)r->iters;
    if ((r->out = (unsigned)alloc_bufs(r, want)) < want)
        perf_die(3, "page %u: host memory for %u of %u buffers", p, r->out, want);
    reserve(r, r->iters);
    for (unsigned k = 0; k < r->out; k++)
        perf_fill(src_slot(r, k), k, o->size);
    memset(r->dst.cpu, PERF_GUARD_BYTE, r->dst.size);
    for (unsigned c = 0; c < QRDMA_WR_CH_PER_PAGE; c++)
        q->slot_of[c] = -1;
    for (unsigned k = 0; k < r->out; k++) {
        q->slot_of[r->ch[k]] = (int)k;
        if ((unsigned)r->ch[k] / 32 + 1 > q->groups)
            q->groups = (unsigned)r->ch[k] / 32 + 1;
    }
}

/* Page q's read of its current group is back with c at time now: completions, reposts. */
static int qpage_answer(struct qpage *q, const struct qrdma_coll *c, uint64_t now)
{
    struct run *r = &q->r;
    int progress = 0;
    g.pg = q->pg; /* post() posts on g.pg */
    for (unsigned i = 0; i < 32; i++) {
        unsigned ch = 32 * q->group + i;
        int k = q->slot_of[ch];
        if (k < 0 || !r->slot_used[k])
            continue;
        if (c->error >> i & 1)
            perf_die(3, "page %u: transfer #%llu (size %llu, channel %u): status ERROR: %s", qrdma_page_index(q->pg),
                     (unsigned long long)r->slot_xfer[k], (unsigned long long)r->size, ch,
                     qrdma_err_reason_str(qrdma_chan_error(q->pg, ch)));
        if (!(c->done >> i & 1))
            continue;
        r->slot_used[k] = 0;
        completed(r, (unsigned)k, q->ndone++, now);
        progress = 1;
        if (q->posted < r->iters)
            post(r, (unsigned)k, q->posted++, r->ch[k]);
    }
    return progress;
}

static void run_pages(const struct opts *o)
{
    const unsigned np = q_pages;
    struct qpage *q = calloc(np, sizeof *q);
    if (!q)
        perf_die(3, "out of memory");
    for (unsigned p = 0; p < np; p++)
        qpage_setup(&q[p], p, o);
    printf("%s\n                    RDMA_Write BW Test (qrdma-perf msg_rate -q %u)\n", RULE, np);
    printf(" Backend: %s   Nodes: %u -> %u   Pages: %u, page p on CPU core p (%u cores modelled)\n", g.be->name,
           qrdma_node_index(g.tx), qrdma_node_index(g.rx), np, qrdma_num_cores(g.tx));
    printf(" Outstanding: %u per page   Mode: %s   Data verified: every transfer\n%s\n", q[0].r.out,
           mode_names[o->mode], RULE);
    /* every page posts its first transfers, then starts the read of its group 0 */
    for (unsigned p = 0; p < np; p++) {
        g.pg = q[p].pg;
        for (; q[p].posted < q[p].r.out; q[p].posted++)
            post(&q[p].r, (unsigned)q[p].posted, q[p].posted, q[p].r.ch[q[p].posted]);
        int e = qrdma_poll_coll_start(q[p].pg, 0);
        if (e)
            perf_die(3, "collective status read: %s", qrdma_strerror(e));
    }
    const uint64_t timeout = o->timeout_ms * (g.be->tick_hz / 1000);
    uint64_t last = qrdma_now(g.tx);
    for (unsigned left = np; left;) {
        int progress = 0;
        for (unsigned p = 0; p < np; p++) {
            if (q[p].ndone == q[p].r.iters)
                continue;
            struct qrdma_coll c;
            int e = qrdma_poll_coll_end(q[p].pg, &c);
            if (e == 0)
                continue;
            if (e < 0)
                perf_die(3, "collective status read: %s", qrdma_strerror(e));
            int got = qpage_answer(&q[p], &c, qrdma_now(g.tx));
            progress |= got;
            q[p].round_done |= got;
            if (q[p].ndone == q[p].r.iters) {
                left--;
                continue;
            }
            if (q[p].group + 1 == q[p].groups) {
                if (!q[p].round_done && g.be->core_pause &&
                    (e = g.be->core_pause(g.be->ctx, qrdma_node_index(g.tx), (unsigned)qrdma_page_core(q[p].pg))))
                    perf_die(3, "page %u: core pause: %s", qrdma_page_index(q[p].pg), qrdma_strerror(e));
                q[p].round_done = 0;
            }
            q[p].group = (q[p].group + 1) % q[p].groups;
            if ((e = qrdma_poll_coll_start(q[p].pg, q[p].group)))
                perf_die(3, "collective status read: %s", qrdma_strerror(e));
        }
        uint64_t now = qrdma_now(g.tx);
        if (progress)
            last = now;
        else if (now - last > timeout)
            perf_die(3, "msg_rate -q %u: no transfer completed for %llu ms", np, (unsigned long long)o->timeout_ms);
        else if (g.be->idle)
            g.be->idle(g.be->ctx, qrdma_node_index(g.tx));
    }

    /* figures: all pages' transfers / (last completion - first post) */
    uint64_t first = UINT64_MAX, end = 0, total = 0;
    for (unsigned p = 0; p < np; p++) {
        struct run *r = &q[p].r;
        verify_guards(r);
        total += r->iters;
        if (r->t_post[0] < first)
            first = r->t_post[0];
        if (r->t_done[r->iters - 1] > end)
            end = r->t_done[r->iters - 1];
    }
    uint64_t ticks = end - first ? end - first : 1;
    double mpps = (double)total / ticks_s(ticks) / 1e6, gbps = mpps * 1e6 * (double)o->size * 8 / 1e9;
    double per_tick = (double)total / (double)ticks;
    printf(" #bytes     #pages  #iterations    BW average[Gb/sec]   MsgRate[Mpps]   Transfers/tick\n");
    printf(" %-10llu %-7u %-14llu %-20.2f %-15.6f %.6f\n", (unsigned long long)o->size, np,
           (unsigned long long)total, gbps, mpps, per_tick);
    printf("%s\n", RULE);

    char def[256];
    const char *path = o->json;
    if (!path) {
        snprintf(def, sizeof def, "build/results/qrdma_perf_msg_rate_q%u_%s.json", np, mode_names[o->mode]);
        path = def;
    }
    FILE *f = perf_mkdirs(path) == 0 ? fopen(path, "w") : NULL;
    if (!f)
        perf_die(3, "cannot write %s", path);
    fprintf(f, "{\n  \"tool\": \"qrdma-perf\",\n  \"test\": \"msg_rate\",\n  \"backend\": \"%s\",\n  \"tick_hz\": %llu,\n",
            g.be->name, (unsigned long long)g.be->tick_hz);
    fprintf(f, "  \"pages\": %u,\n  \"cores\": %u,\n  \"outstanding\": %u,\n  \"mode\": \"%s\",\n", np,
            qrdma_num_cores(g.tx), q[0].r.out, mode_names[o->mode]);
    fprintf(f, "  \"verified\": \"every transfer\",\n  \"rows\": [\n");
    fprintf(f, "    {\"bytes\": %llu, \"pages\": %u, \"iterations\": %llu, \"inline\": %s, \"ticks\": %llu, "
               "\"msg_rate_mpps\": %.6f, \"bw_avg_gbps\": %.6f, \"transfers_per_tick\": %.6f}\n",
            (unsigned long long)o->size, np, (unsigned long long)total, q[0].r.inl ? "true" : "false",
            (unsigned long long)ticks, mpps, gbps, per_tick);
    fprintf(f, "  ]\n}\n");
    if (fclose(f) != 0)
        perf_die(3, "cannot write %s", path);
    printf(" results: %s\n", path);
    for (unsigned p = 0; p < np; p++) {
        struct run *r = &q[p].r;
        qrdma_buf_free(g.tx, &r->src);
        qrdma_buf_free(g.rx, &r->dst);
        free(r->t_post);
        free(r->t_done);
        free(r->lat);
        free(r->x_slot);
        free(r->x_chan);
        free(r->x_notif);
    }
    free(q);
}

/* ----------------------------------------------------------------- main */
int main(int argc, char **argv)
{
    if (argc < 2)
        usage();
    if (perf_flows_is_pattern(argv[1]))
        return perf_flows_main(argc, argv);
    struct opts o = {.timeout_ms = 100};
    if (!strcmp(argv[1], "write_bw"))
        o = (struct opts){.test = T_WRITE_BW, .size = 65536, .iters = 5000, .outstanding = 64, .mode = M_MEM, .timeout_ms = 100};
    else if (!strcmp(argv[1], "write_lat"))
        o = (struct opts){.test = T_WRITE_LAT, .size = 2, .iters = 1000, .outstanding = 1, .mode = M_MEM, .timeout_ms = 100};
    else if (!strcmp(argv[1], "read_bw"))
        o = (struct opts){.test = T_READ_BW, .size = 65536, .iters = 5000, .outstanding = 64, .mode = M_MEM, .timeout_ms = 100};
    else if (!strcmp(argv[1], "read_lat"))
        o = (struct opts){.test = T_READ_LAT, .size = 2, .iters = 1000, .outstanding = 1, .mode = M_MEM, .timeout_ms = 100};
    else if (!strcmp(argv[1], "msg_rate"))
        o = (struct opts){.test = T_MSG_RATE, .size = 8, .iters = 10000, .outstanding = 64, .mode = M_AUTO, .timeout_ms = 100};
    else
        usage();
    optind = 2;
    int c;
    while ((c = getopt(argc, argv, "s:an:b:t:m:T:B:o:AKMENSl:cw:q:R:h")) != -1) {
        switch (c) {
        case 's': o.size = perf_parse_u64(optarg, "size"); break;
        case 'a': o.all = 1; break;
        case 'n': o.iters = perf_parse_u64(optarg, "iterations"); break;
        case 'b': o.max_bytes = perf_parse_u64(optarg, "byte cap"); break;
        case 't': o.outstanding = (unsigned)perf_parse_u64(optarg, "outstanding"); break;
        case 'm':
            if (!strcmp(optarg, "mem")) o.mode = M_MEM;
            else if (!strcmp(optarg, "inline")) o.mode = M_INLINE;
            else if (!strcmp(optarg, "auto")) o.mode = M_AUTO;
            else perf_die(1, "bad mode '%s' (mem, inline, auto)", optarg);
            break;
        case 'T': o.timeout_ms = perf_parse_u64(optarg, "timeout"); break;
        case 'R': {
            char buf[64], *save = NULL;
            snprintf(buf, sizeof buf, "%s", optarg);
            char *t = strtok_r(buf, ",", &save), *r = strtok_r(NULL, ",", &save);
            char *b = strtok_r(NULL, ",", &save), *m = strtok_r(NULL, ",", &save);
            o.retx_timeout = perf_parse_u64(t ? t : "", "response timeout");
            o.retries = r ? perf_parse_u64(r, "retries") : 7;
            o.backoff = b ? perf_parse_u64(b, "backoff") : 3;
            if (!o.retx_timeout || o.retries > 255 || o.backoff > 15)
                perf_die(1, "-R: cycles > 0, retries 0..255, backoff 0..15");
            if (!m || !strcmp(m, "sr")) o.resend = 0;
            else if (!strcmp(m, "gbn")) o.resend = 1;
            else if (!strcmp(m, "timeout")) o.resend = 2;
            else perf_die(1, "-R: re-send mode '%s' (sr, gbn, timeout)", m);
            break;
        }
        case 'B': o.spec = optarg; break;
        case 'o': o.json = optarg; break;
        case 'q': q_pages = (unsigned)perf_parse_u64(optarg, "pages"); break;
        case 'A': o.align_size = 1; break;
        case 'M': o.multipath = 1; break;
        case 'E': o.registered = 1; break;
        case 'K': o.keyed = 1; break;
        case 'N': o.notify = 1; break;
        case 'S': o.stamps = 1; break;
        case 'l':
            if (!strcmp(optarg, "done")) o.lat_notif = 0;
            else if (!strcmp(optarg, "notif")) o.lat_notif = 1;
            else perf_die(1, "bad latency end point '%s' (done, notif)", optarg);
            break;
        case 'c': o.counters = 1; break;
        case 'w': perf_parse_window(optarg, &o.warmup, &o.window); break;
        default: usage();
        }
    }
    if (optind != argc)
        usage();
    if (o.iters < 1 || o.outstanding < 1 || o.outstanding > QRDMA_WR_CH_PER_PAGE || o.timeout_ms < 1)
        perf_die(1, "need -n >= 1, 1 <= -t <= %llu, -T >= 1", (unsigned long long)QRDMA_WR_CH_PER_PAGE);
    if (!o.all && (o.size < 1 || o.size > QRDMA_MAX_TRANSFER_BYTES))
        perf_die(1, "size must be 1 .. %llu", (unsigned long long)QRDMA_MAX_TRANSFER_BYTES);
    if (!o.all && o.mode == M_INLINE && o.size > QRDMA_INLINE_MAX)
        perf_die(1, "inline mode: size must be 1 .. %llu", (unsigned long long)QRDMA_INLINE_MAX);
    if (o.lat_notif && (o.test != T_WRITE_LAT || !o.notify || o.outstanding != 1))
        perf_die(1, "-l notif is a write_lat end point and needs -N and -t 1");
    if (o.registered && !o.notify)
        perf_die(1, "-E registers notifying writes: it needs -N");
    if (o.window && (o.test != T_WRITE_BW || o.outstanding < 2))
        perf_die(1, "-w is a write_bw measurement with -t 2 or more");
    if (o.keyed && o.test == T_MSG_RATE)
        perf_die(1, "-K is a write_bw / write_lat / read_bw / read_lat option");
    if (is_read(o.test) && (o.mode != M_MEM || o.notify || o.window || o.lat_notif))
        perf_die(1, "read_bw / read_lat: memory mode, without -N, -w or -l notif");
    if (o.stamps && (o.test != T_WRITE_LAT || !o.notify))
        perf_die(1, "-S (benchmark mode) is a write_lat option and needs -N");
    if (o.stamps && o.registered)
        perf_die(1, "-S: a registered write's notification (-E) comes ahead of its CONTROL packet, without stamps");
    /* INLINE packets above STAMP_INLINE_MAX bytes carry no stamps: sizes 17 .. 32 in inline and auto mode */
    if (o.stamps && o.mode != M_MEM && (o.all || (o.size > QRDMA_STAMP_INLINE_MAX && o.size <= QRDMA_INLINE_MAX)))
        perf_die(1, "-S: inline writes above %llu bytes (STAMP_INLINE_MAX) carry no stamps: use -m mem or -s %llu or less",
                 (unsigned long long)QRDMA_STAMP_INLINE_MAX, (unsigned long long)QRDMA_STAMP_INLINE_MAX);

    int e = qrdma_tool_backend_open(o.spec, &g.be);
    if (e)
        perf_die(3, "backend: %s", qrdma_strerror(e));
    if ((e = qrdma_open(g.be, 0, &g.tx)))
        perf_die(3, "open node 0: %s", qrdma_strerror(e));
    if (g.be->num_nodes >= 2) {
        if ((e = qrdma_open(g.be, 1, &g.rx)))
            perf_die(3, "open node 1: %s", qrdma_strerror(e));
    } else {
        g.rx = g.tx;
    }
    if (is_read(o.test) && g.rx == g.tx)
        perf_die(1, "%s needs two nodes (a node does not read its own memory)", test_names[o.test]);
    /* development mode (docs/protection.md) unless -K: then the writes carry keys */
    if ((e = qrdma_prot_open(g.tx, !o.keyed)) || (e = qrdma_prot_open(g.rx, !o.keyed)))
        perf_die(3, "development mode: %s", qrdma_strerror(e));
    for (unsigned n = 0; o.retx_timeout && n < 2; n++) {
        qrdma_node *nd = n ? g.rx : g.tx;
        if ((e = qrdma_reg_write(nd, QRDMA_REG(nic.RETX_TIMEOUT), o.retx_timeout)) ||
            (e = qrdma_reg_write(nd, QRDMA_REG(nic.RETRY_LIMIT),
                                     o.retries << QRDMA_NIC_CSR__RETRY_LIMIT__RETRIES_bp |
                                     o.backoff << QRDMA_NIC_CSR__RETRY_LIMIT__BACKOFF_bp |
                                     o.resend << QRDMA_NIC_CSR__RETRY_LIMIT__RESEND_bp)))
            perf_die(3, "node %u: -R: %s", n, qrdma_strerror(e));
    }
    if ((e = qrdma_page_claim(g.tx, QRDMA_PAGE_ANY, &g.pg)))
        perf_die(3, "claim a page: %s", qrdma_strerror(e));
    if (o.notify && (e = qrdma_nq_setup(g.rx, NQ_ENTRIES)))
        perf_die(3, "notification ring of node %u: %s", qrdma_node_index(g.rx), qrdma_strerror(e));

    if (q_pages) {
        if (o.test != T_MSG_RATE || o.all || q_pages > QRDMA_NUM_PAGES || o.notify || o.counters)
            perf_die(1, "-q is a msg_rate option for one size (-s), 1 <= -q <= %llu, without -N or -c",
                     (unsigned long long)QRDMA_NUM_PAGES);
        run_pages(&o);
        if (g.rx != g.tx)
            qrdma_close(g.rx);
        qrdma_close(g.tx);
        qrdma_backend_close(g.be);
        return 0;
    }
    uint64_t sizes[32];
    unsigned nsizes = 0;
    if (o.all) {
        uint64_t top = o.mode == M_INLINE ? QRDMA_INLINE_MAX : MAX_SIZE;
        for (uint64_t s = MIN_SIZE; s <= top; s *= 2)
            sizes[nsizes++] = s;
    } else {
        sizes[nsizes++] = o.size;
    }
    if (o.stamps) {
        /* benchmark mode: both NICs must be built with stamps; the sender stamps from now on */
        qrdma_node *both[2] = {g.tx, g.rx};
        for (unsigned k = 0; k < 2; k++) {
            if ((e = qrdma_bench_caps(both[k])) < 0)
                perf_die(3, "node %u: BENCH: %s", qrdma_node_index(both[k]), qrdma_strerror(e));
            if (!e)
                perf_die(1, "-S: node %u keeps no benchmark stamps (BENCH.stamps = 0: the NIC is built "
                         "without them)", qrdma_node_index(both[k]));
        }
        if ((e = qrdma_bench_set(g.tx, 1)))
            perf_die(3, "node %u: benchmark mode on: %s", qrdma_node_index(g.tx), qrdma_strerror(e));
    }
    struct row rows[32];
    print_header(&o);
    for (unsigned i = 0; i < nsizes; i++) {
        rows[i] = run_size(sizes[i], &o);
        print_row(&o, &rows[i]);
    }
    printf("%s\n", RULE);
    if (o.stamps && (e = qrdma_bench_set(g.tx, 0)))
        perf_die(3, "node %u: benchmark mode off: %s", qrdma_node_index(g.tx), qrdma_strerror(e));
    write_json(&o, rows, nsizes);

    if (g.rx != g.tx)
        qrdma_close(g.rx);
    qrdma_close(g.tx);
    qrdma_backend_close(g.be);
    return 0;
}
