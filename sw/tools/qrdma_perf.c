/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * qrdma-perf: perftest-style measurements of qrdma remote writes (issue 5 "Tools";
 * seed 000 §4.3 measurement modes). Links with libqrdma and one backend chosen at link
 * time (qrdma_tool_backend_open: the simulation harness, the mmap backend, or the unit
 * tests' fake device).
 *
 *   qrdma-perf write_bw | write_lat | msg_rate [options]
 *     -s SIZE   transfer size in bytes (write_bw 65536, write_lat 2, msg_rate 8)
 *     -a        all sizes 2 B .. 8 MiB (powers of 2; inline mode: 2 .. 32 B)
 *     -n ITERS  transfers per size (write_bw 5000, write_lat 1000, msg_rate 10000)
 *     -b BYTES  cap iterations so that ITERS x SIZE <= BYTES (at least 2 iterations)
 *     -t OUT    outstanding transfers: 1 = post, poll the channel's single status until
 *               DONE, move to the next channel; more (64) = keep OUT channels busy and
 *               learn completions by collective status reads (write_bw/msg_rate: 64,
 *               write_lat: 1)
 *     -m MODE   mem (memory-to-memory descriptors), inline (payload in the descriptor,
 *               sizes <= 32), auto (inline up to 32 B, else mem); msg_rate: auto, else mem
 *     -T MS     give up when a transfer is not DONE after MS ms of backend time (100)
 *     -B SPEC   backend specification (passed to qrdma_tool_backend_open)
 *     -o FILE   JSON output (default build/results/qrdma_perf_<test>_t<OUT>_<MODE>.json)
 *
 * Nodes: node 0 sends; node 1 receives when the backend hosts two or more nodes (its
 * destination buffers live in its memory and are read through the backend's CPU
 * pointers), else node 0 writes to itself (loopback). Times are backend ticks converted
 * with tick_hz: the simulation counts cycles at the nominal 200 MHz.
 *
 * Figures, as perftest defines them:
 *   BW average = bytes of all transfers / (last completion - first post);
 *   BW peak    = best rate over a run i..j of consecutive transfers, (j-i+1) x size /
 *                (completion j - post i), over runs of up to PEAK_RUN transfers starting at
 *                every transfer (or, beyond PEAK_RUN transfers, at PEAK_RUN evenly spaced ones);
 *   MsgRate    = transfers / (last completion - first post);
 *   latency    = post of a transfer -> the status read that saw it DONE (that read included),
 *                t_typical the median, percentiles by rank (ceil(p n)).
 * Data verification, of every transfer: each in-flight transfer has its own source and
 * destination slot; source slots hold a pattern that depends on slot and size; before a
 * transfer is posted its destination slot is overwritten with the complement of the
 * source, after DONE the slot must equal the source; the bytes between and before the
 * slots (guards) must be untouched at the end. A wrong byte exits with status 2 and a
 * message naming the transfer and byte; an ERROR status, a failed post or a timeout with
 * status 3. The poisoning and comparing is CPU work between a completion and the next
 * post of that slot: free in simulation (simulated time does not advance), a small cost
 * on hardware.
 */
#define _POSIX_C_SOURCE 200809L

#include "qrdma.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum test { T_WRITE_BW, T_WRITE_LAT, T_MSG_RATE };
enum mode { M_MEM, M_INLINE, M_AUTO };
static const char *test_names[] = {"write_bw", "write_lat", "msg_rate"};
static const char *mode_names[] = {"mem", "inline", "auto"};

#define MIN_SIZE 2ULL
#define MAX_SIZE (8ULL << 20)
#define SLOT_ALIGN 4096ULL
#define GUARD 64ULL
#define PEAK_RUN 4096

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
};

struct row {
    uint64_t bytes, iters;
    unsigned outstanding;   /* transfers in flight actually used */
    int is_inline;
    uint64_t ticks;         /* first post -> last completion */
    double bw_peak, bw_avg, mpps;                          /* Gb/s, Gb/s, Mpps */
    double t_min, t_max, t_typ, t_avg, t_sd, t_p99, t_p999; /* usec */
};

static struct {
    struct qrdma_backend *be;
    qrdma_node *tx, *rx;
    qrdma_page *pg;
} g;

static void die(int code, const char *fmt, ...)
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
            "usage: qrdma-perf write_bw|write_lat|msg_rate [-s size] [-a] [-n iters] [-b max_bytes]\n"
            "                  [-t outstanding] [-m mem|inline|auto] [-T ms]\n"
            "                  [-B backend-spec] [-o json]\n");
    exit(1);
}

static uint64_t parse_u64(const char *s, const char *what)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s)
        die(1, "bad %s '%s'", what, s);
    if (*end == 'k' || *end == 'K')
        v <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        v <<= 20, end++;
    else if (*end == 'g' || *end == 'G')
        v <<= 30, end++;
    if (*end)
        die(1, "bad %s '%s'", what, s);
    return v;
}

static double ticks_s(uint64_t t) { return (double)t / (double)g.be->tick_hz; }
static double ticks_us(uint64_t t) { return (double)t * 1e6 / (double)g.be->tick_hz; }

static uint8_t pattern(uint64_t slot, uint64_t i, uint64_t size)
{
    uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ULL ^ (slot + 1) * 0xC2B2AE3D27D4EB4FULL ^ size;
    return (uint8_t)(x >> 56 ^ x >> 29 ^ x);
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
    int ch[QRDMA_WR_CH_PER_PAGE]; /* allocated channels */
    struct qrdma_buf src, dst;
    uint64_t *t_post, *t_done;    /* per transfer (post order) / per completion (completion order) */
    uint64_t *lat;                /* per transfer */
    uint64_t slot_xfer[QRDMA_WR_CH_PER_PAGE]; /* transfer index in flight on slot k */
    int slot_used[QRDMA_WR_CH_PER_PAGE];
};

static uint8_t *src_slot(struct run *r, unsigned k) { return (uint8_t *)r->src.cpu + SLOT_ALIGN + k * r->stride; }
static uint8_t *dst_slot(struct run *r, unsigned k) { return (uint8_t *)r->dst.cpu + SLOT_ALIGN + k * r->stride; }

static void poison(struct run *r, unsigned k)
{
    const uint8_t *s = src_slot(r, k);
    uint8_t *d = dst_slot(r, k);
    for (uint64_t i = 0; i < r->size; i++)
        d[i] = (uint8_t)~s[i];
}

static void verify(struct run *r, unsigned k, uint64_t xfer)
{
    const uint8_t *s = src_slot(r, k), *d = dst_slot(r, k);
    if (memcmp(s, d, r->size) == 0)
        return;
    uint64_t i = 0;
    while (s[i] == d[i])
        i++;
    die(2, "DATA VERIFICATION FAILED: size %llu, transfer #%llu (slot %u): byte %llu is 0x%02x, expected 0x%02x",
        (unsigned long long)r->size, (unsigned long long)xfer, k, (unsigned long long)i, d[i], s[i]);
}

static void verify_guards(struct run *r)
{
    const uint8_t *d = r->dst.cpu;
    for (uint64_t i = SLOT_ALIGN - GUARD; i < SLOT_ALIGN; i++)
        if (d[i] != 0xA5)
            die(2, "DATA VERIFICATION FAILED: size %llu: byte written before slot 0 (offset -%llu)",
                (unsigned long long)r->size, (unsigned long long)(SLOT_ALIGN - i));
    for (unsigned k = 0; k < r->out; k++) {
        const uint8_t *e = dst_slot(r, k);
        for (uint64_t i = r->size; i < r->stride; i++)
            if (e[i] != 0xA5)
                die(2, "DATA VERIFICATION FAILED: size %llu: byte written past slot %u (offset %llu)",
                    (unsigned long long)r->size, k, (unsigned long long)i);
    }
}

static void post(struct run *r, unsigned k, uint64_t xfer, int chan)
{
    struct qrdma_write wr = {
        .src_addr = r->src.dev + SLOT_ALIGN + k * r->stride,
        .dst_addr = r->dst.dev + SLOT_ALIGN + k * r->stride,
        .size = r->size,
        .dst_node = qrdma_node_info(g.rx)->node_id,
        .tag = (uint32_t)xfer,
    };
    poison(r, k);
    r->t_post[xfer] = qrdma_now(g.tx);
    int e = r->inl ? qrdma_post_inline(g.pg, (unsigned)chan, &wr, src_slot(r, k), r->size)
                   : qrdma_post_write(g.pg, (unsigned)chan, &wr);
    if (e)
        die(3, "post of transfer #%llu (size %llu, channel %d) failed: %s", (unsigned long long)xfer,
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

static int alloc_bufs(struct run *r, unsigned want)
{
    for (unsigned s = want; s >= 1; s /= 2) {
        uint64_t bytes = SLOT_ALIGN + s * r->stride;
        if (qrdma_buf_alloc(g.tx, bytes, SLOT_ALIGN, &r->src) == 0) {
            if (qrdma_buf_alloc(g.rx, bytes, SLOT_ALIGN, &r->dst) == 0)
                return (int)s;
            qrdma_buf_free(g.tx, &r->src);
        }
    }
    return 0;
}

static struct row run_size(uint64_t size, const struct opts *o)
{
    struct run r = {.size = size, .iters = o->iters};
    if (o->max_bytes && size * r.iters > o->max_bytes)
        r.iters = o->max_bytes / size < 2 ? 2 : o->max_bytes / size;
    r.inl = o->mode == M_INLINE || (o->mode == M_AUTO && size <= QRDMA_INLINE_MAX);
    if (r.inl && size > QRDMA_INLINE_MAX)
        die(1, "inline mode: size %llu above %llu bytes", (unsigned long long)size, (unsigned long long)QRDMA_INLINE_MAX);
    r.width = r.inl && size > QRDMA_INLINE_SHORT_MAX ? 2 : 1;
    for (r.nch = 0; r.nch < QRDMA_WR_CH_PER_PAGE / r.width; r.nch++) {
        r.ch[r.nch] = qrdma_chan_alloc(g.pg, r.width);
        if (r.ch[r.nch] < 0)
            die(3, "channel allocation: %s", qrdma_strerror(r.ch[r.nch]));
    }
    r.stride = (size + GUARD + SLOT_ALIGN - 1) / SLOT_ALIGN * SLOT_ALIGN;
    unsigned want = o->outstanding < r.nch ? o->outstanding : r.nch;
    if ((uint64_t)want > r.iters)
        want = (unsigned)r.iters;
    r.out = (unsigned)alloc_bufs(&r, want);
    if (!r.out)
        die(3, "cannot allocate 2 x %llu bytes of host memory", (unsigned long long)(SLOT_ALIGN + r.stride));
    if (r.out < want)
        fprintf(stderr, "qrdma-perf: size %llu: %u outstanding transfers (host memory for %u buffers)\n",
                (unsigned long long)size, r.out, r.out);
    r.t_post = calloc(r.iters, sizeof *r.t_post);
    r.t_done = calloc(r.iters, sizeof *r.t_done);
    r.lat = calloc(r.iters, sizeof *r.lat);
    if (!r.t_post || !r.t_done || !r.lat)
        die(3, "out of memory");
    for (unsigned k = 0; k < r.out; k++)
        for (uint64_t i = 0; i < size; i++)
            src_slot(&r, k)[i] = pattern(k, i, size);
    memset(r.dst.cpu, 0xA5, r.dst.size);

    const uint64_t timeout = o->timeout_ms * (g.be->tick_hz / 1000);
    uint64_t posted = 0, ndone = 0;
    if (r.out == 1) {
        /* one at a time: post, poll its single status until DONE, next channel */
        for (; posted < r.iters; posted++) {
            int chan = r.ch[posted % r.nch];
            post(&r, 0, posted, chan);
            uint64_t t0 = r.t_post[posted];
            uint64_t t_read;
            for (;;) {
                int st = qrdma_poll(g.pg, (unsigned)chan);
                t_read = qrdma_now(g.tx);
                if (st == (int)QRDMA_ST_DONE)
                    break;
                if (st < 0 || st == (int)QRDMA_ST_ERROR)
                    die(3, "transfer #%llu (size %llu, channel %d): %s%s", (unsigned long long)posted,
                        (unsigned long long)size, chan, st < 0 ? qrdma_strerror(st) : "status ERROR: ",
                        st < 0 ? "" : qrdma_err_reason_str(qrdma_chan_error(g.pg, (unsigned)chan)));
                if (t_read - t0 > timeout)
                    die(3, "transfer #%llu (size %llu, channel %d) not DONE after %llu ms", (unsigned long long)posted,
                        (unsigned long long)size, chan, (unsigned long long)o->timeout_ms);
                if (g.be->idle)
                    g.be->idle(g.be->ctx, qrdma_node_index(g.tx));
            }
            completed(&r, 0, ndone++, t_read);
        }
    } else {
        /* r.out outstanding on channels ch[0..out-1] (slot k on ch[k]); collective polling */
        for (; posted < r.out; posted++)
            post(&r, (unsigned)posted, posted, r.ch[posted]);
        int slot_of[QRDMA_WR_CH_PER_PAGE];
        for (unsigned c = 0; c < QRDMA_WR_CH_PER_PAGE; c++)
            slot_of[c] = -1;
        unsigned groups = 0;
        for (unsigned k = 0; k < r.out; k++) {
            slot_of[r.ch[k]] = (int)k;
            if ((unsigned)r.ch[k] / 32 + 1 > groups)
                groups = (unsigned)r.ch[k] / 32 + 1;
        }
        uint64_t last = qrdma_now(g.tx);
        while (ndone < r.iters) {
            int progress = 0;
            for (unsigned grp = 0; grp < groups; grp++) {
                struct qrdma_coll c;
                int e = qrdma_poll_coll(g.pg, grp, &c);
                uint64_t t_read = qrdma_now(g.tx);
                if (e)
                    die(3, "collective status read: %s", qrdma_strerror(e));
                for (unsigned i = 0; i < 32; i++) {
                    int k = slot_of[32 * grp + i];
                    if (k < 0 || !r.slot_used[k])
                        continue;
                    if (c.error >> i & 1)
                        die(3, "transfer #%llu (size %llu, channel %u): status ERROR: %s",
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
            uint64_t now = qrdma_now(g.tx);
            if (progress)
                last = now;
            else if (now - last > timeout)
                die(3, "size %llu: no transfer completed for %llu ms (%llu of %llu done)", (unsigned long long)size,
                    (unsigned long long)o->timeout_ms, (unsigned long long)ndone, (unsigned long long)r.iters);
            else if (g.be->idle)
                g.be->idle(g.be->ctx, qrdma_node_index(g.tx));
        }
    }
    verify_guards(&r);

    /* figures */
    struct row w = {.bytes = size, .iters = r.iters, .outstanding = r.out, .is_inline = r.inl};
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
    uint64_t i99 = (uint64_t)ceil(0.99 * (double)r.iters), i999 = (uint64_t)ceil(0.999 * (double)r.iters);
    w.t_p99 = ticks_us(r.lat[(i99 ? i99 : 1) - 1]);
    w.t_p999 = ticks_us(r.lat[(i999 ? i999 : 1) - 1]);

    qrdma_buf_free(g.tx, &r.src);
    qrdma_buf_free(g.rx, &r.dst);
    for (unsigned c = 0; c < r.nch; c++)
        qrdma_chan_free(g.pg, (unsigned)r.ch[c]);
    free(r.t_post);
    free(r.t_done);
    free(r.lat);
    return w;
}

/* ----------------------------------------------------------------- output */
#define RULE "---------------------------------------------------------------------------------------"

static void print_header(const struct opts *o)
{
    const struct qrdma_info *ti = qrdma_node_info(g.tx), *ri = qrdma_node_info(g.rx);
    printf("%s\n", RULE);
    printf("                    RDMA_Write %s Test (qrdma-perf %s)\n", o->test == T_WRITE_LAT ? "Latency" : "BW",
           test_names[o->test]);
    printf(" Backend: %s   Nodes: %u -> %u (node IDs %u -> %u)\n", g.be->name, qrdma_node_index(g.tx),
           qrdma_node_index(g.rx), ti->node_id, ri->node_id);
    printf(" Outstanding: %u   Mode: %s   Data verified: every transfer   Page: %u\n", o->outstanding,
           mode_names[o->mode], qrdma_page_index(g.pg));
    printf(" Clock: %.0f MHz (backend ticks)   Block: %u B   Host port: %u bit\n", (double)g.be->tick_hz / 1e6,
           ti->block_size, ti->host_data_w);
    printf("%s\n", RULE);
    if (o->test == T_WRITE_LAT)
        printf(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
               "t_stdev[usec]   99%% percentile[usec]   99.9%% percentile[usec]\n");
    else
        printf(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n");
    fflush(stdout);
}

static void print_row(const struct opts *o, const struct row *w)
{
    if (o->test == T_WRITE_LAT)
        printf(" %-7llu %-10llu %-13.3f %-13.3f %-15.3f %-13.3f %-15.3f %-22.3f %-.3f\n", (unsigned long long)w->bytes,
               (unsigned long long)w->iters, w->t_min, w->t_max, w->t_typ, w->t_avg, w->t_sd, w->t_p99, w->t_p999);
    else
        printf(" %-10llu %-14llu %-18.2f %-20.2f %-.6f\n", (unsigned long long)w->bytes, (unsigned long long)w->iters,
               w->bw_peak, w->bw_avg, w->mpps);
    fflush(stdout);
}

static int mkdirs(const char *path)
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
    if (mkdirs(path) != 0)
        die(3, "cannot create the directory of %s", path);
    FILE *f = fopen(path, "w");
    if (!f)
        die(3, "cannot write %s: %s", path, strerror(errno));
    const struct qrdma_info *ti = qrdma_node_info(g.tx), *ri = qrdma_node_info(g.rx);
    fprintf(f, "{\n  \"tool\": \"qrdma-perf\",\n  \"test\": \"%s\",\n  \"backend\": \"%s\",\n", test_names[o->test],
            g.be->name);
    fprintf(f, "  \"tick_hz\": %llu,\n  \"src_node\": %u,\n  \"dst_node\": %u,\n", (unsigned long long)g.be->tick_hz,
            ti->node_id, ri->node_id);
    fprintf(f, "  \"outstanding\": %u,\n  \"mode\": \"%s\",\n  \"verified\": \"every transfer\",\n",
            o->outstanding, mode_names[o->mode]);
    fprintf(f, "  \"block_size\": %u,\n  \"host_data_w\": %u,\n  \"rows\": [\n", ti->block_size, ti->host_data_w);
    for (unsigned i = 0; i < n; i++) {
        const struct row *w = &rows[i];
        fprintf(f, "    {\"bytes\": %llu, \"iterations\": %llu, \"outstanding\": %u, \"inline\": %s, \"ticks\": %llu, ",
                (unsigned long long)w->bytes, (unsigned long long)w->iters, w->outstanding,
                w->is_inline ? "true" : "false", (unsigned long long)w->ticks);
        fprintf(f, "\"bw_peak_gbps\": %.6f, \"bw_avg_gbps\": %.6f, \"msg_rate_mpps\": %.6f, ", w->bw_peak, w->bw_avg,
                w->mpps);
        fprintf(f, "\"t_min_us\": %.6f, \"t_max_us\": %.6f, \"t_typical_us\": %.6f, \"t_avg_us\": %.6f, "
                   "\"t_stdev_us\": %.6f, \"t_p99_us\": %.6f, \"t_p999_us\": %.6f}%s\n",
                w->t_min, w->t_max, w->t_typ, w->t_avg, w->t_sd, w->t_p99, w->t_p999, i + 1 < n ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    if (fclose(f) != 0)
        die(3, "cannot write %s", path);
    printf(" results: %s\n", path);
}

/* ----------------------------------------------------------------- main */
int main(int argc, char **argv)
{
    if (argc < 2)
        usage();
    struct opts o = {.timeout_ms = 100};
    if (!strcmp(argv[1], "write_bw"))
        o = (struct opts){T_WRITE_BW, 65536, 0, 5000, 0, 64, M_MEM, 100, NULL, NULL};
    else if (!strcmp(argv[1], "write_lat"))
        o = (struct opts){T_WRITE_LAT, 2, 0, 1000, 0, 1, M_MEM, 100, NULL, NULL};
    else if (!strcmp(argv[1], "msg_rate"))
        o = (struct opts){T_MSG_RATE, 8, 0, 10000, 0, 64, M_AUTO, 100, NULL, NULL};
    else
        usage();
    optind = 2;
    int c;
    while ((c = getopt(argc, argv, "s:an:b:t:m:T:B:o:h")) != -1) {
        switch (c) {
        case 's': o.size = parse_u64(optarg, "size"); break;
        case 'a': o.all = 1; break;
        case 'n': o.iters = parse_u64(optarg, "iterations"); break;
        case 'b': o.max_bytes = parse_u64(optarg, "byte cap"); break;
        case 't': o.outstanding = (unsigned)parse_u64(optarg, "outstanding"); break;
        case 'm':
            if (!strcmp(optarg, "mem")) o.mode = M_MEM;
            else if (!strcmp(optarg, "inline")) o.mode = M_INLINE;
            else if (!strcmp(optarg, "auto")) o.mode = M_AUTO;
            else die(1, "bad mode '%s' (mem, inline, auto)", optarg);
            break;
        case 'T': o.timeout_ms = parse_u64(optarg, "timeout"); break;
        case 'B': o.spec = optarg; break;
        case 'o': o.json = optarg; break;
        default: usage();
        }
    }
    if (optind != argc)
        usage();
    if (o.iters < 1 || o.outstanding < 1 || o.outstanding > QRDMA_WR_CH_PER_PAGE || o.timeout_ms < 1)
        die(1, "need -n >= 1, 1 <= -t <= %llu, -T >= 1", (unsigned long long)QRDMA_WR_CH_PER_PAGE);
    if (!o.all && (o.size < 1 || o.size > QRDMA_MAX_TRANSFER_BYTES))
        die(1, "size must be 1 .. %llu", (unsigned long long)QRDMA_MAX_TRANSFER_BYTES);
    if (!o.all && o.mode == M_INLINE && o.size > QRDMA_INLINE_MAX)
        die(1, "inline mode: size must be 1 .. %llu", (unsigned long long)QRDMA_INLINE_MAX);

    int e = qrdma_tool_backend_open(o.spec, &g.be);
    if (e)
        die(3, "backend: %s", qrdma_strerror(e));
    if ((e = qrdma_open(g.be, 0, &g.tx)))
        die(3, "open node 0: %s", qrdma_strerror(e));
    if (g.be->num_nodes >= 2) {
        if ((e = qrdma_open(g.be, 1, &g.rx)))
            die(3, "open node 1: %s", qrdma_strerror(e));
    } else {
        g.rx = g.tx;
    }
    if ((e = qrdma_page_claim(g.tx, QRDMA_PAGE_ANY, &g.pg)))
        die(3, "claim a page: %s", qrdma_strerror(e));

    uint64_t sizes[32];
    unsigned nsizes = 0;
    if (o.all) {
        uint64_t top = o.mode == M_INLINE ? QRDMA_INLINE_MAX : MAX_SIZE;
        for (uint64_t s = MIN_SIZE; s <= top; s *= 2)
            sizes[nsizes++] = s;
    } else {
        sizes[nsizes++] = o.size;
    }
    struct row rows[32];
    print_header(&o);
    for (unsigned i = 0; i < nsizes; i++) {
        rows[i] = run_size(sizes[i], &o);
        print_row(&o, &rows[i]);
    }
    printf("%s\n", RULE);
    write_json(&o, rows, nsizes);

    if (g.rx != g.tx)
        qrdma_close(g.rx);
    qrdma_close(g.tx);
    qrdma_backend_close(g.be);
    return 0;
}
