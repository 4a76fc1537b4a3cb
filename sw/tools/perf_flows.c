/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * qrdma-perf's traffic patterns across the nodes of one backend, the system-level
 * experiments of [FPGA-NI] §3 (docs/references.md) through NICs: every flow is a stream of
 * memory writes from one node to another, each flow keeping OUT transfers in flight on a
 * page of its own on its source node; one thread posts on every node and polls each
 * flow's collective status in turn (in simulation the system runs while a read is out).
 * Per flow the bytes of the transfers whose DONE was seen in a window, per cycle, and
 * per receiving node its RX_BYTES counter over the window (docs/sw.md "Traffic
 * patterns"; the options and the figures are described in qrdma_perf.c's header).
 *
 *   incast       nodes 1 .. N-1 -> node 0
 *   permutation  node i -> node (i + 1) mod N
 *   alltoall     every node -> every other node, one flow per ordered pair
 *   hotspot      the victim 1 -> 2 alone, then beside nodes 0, 2, 3 .. N-1 -> node 1 (the
 *                victim's source is the hotspot): the victim's loaded / alone ratio
 */
#define _POSIX_C_SOURCE 200809L

#include "perf_flows.h"

#include "qrdma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_NODES 32
#define MAX_FLOWS (MAX_NODES * (MAX_NODES - 1))
#define NOMINAL_HZ 200e6 /* the NIC's nominal clock; the link carries one 64-byte beat per cycle */
#define RULE "---------------------------------------------------------------------------------------"

enum pattern { P_INCAST, P_PERMUTATION, P_ALLTOALL, P_HOTSPOT, P_COUNT };
static const char *pat_names[P_COUNT] = {"incast", "permutation", "alltoall", "hotspot"};
static const unsigned pat_min_nodes[P_COUNT] = {2, 2, 2, 3};

struct fopts {
    enum pattern pat;
    uint64_t size;
    unsigned out;
    uint64_t warmup, window, timeout_ms;
    const char *spec, *json;
};

struct flow {
    unsigned src, dst;                    /* node indices */
    uint64_t id;                          /* pattern of its slots (distinct per flow) */
    qrdma_page *pg;                       /* its page on the source node */
    int ch[QRDMA_WR_CH_PER_PAGE];         /* slot k's channel */
    int slot_of[QRDMA_WR_CH_PER_PAGE];    /* channel -> slot, -1 */
    unsigned groups;                      /* collective status groups its channels span */
    struct qrdma_buf sb, db;              /* source slots (source node), destination slots */
    int busy[QRDMA_WR_CH_PER_PAGE];
    uint64_t xfer[QRDMA_WR_CH_PER_PAGE];  /* the transfer in flight on slot k */
    uint64_t posted, done;
    uint64_t w_done;                      /* transfers whose DONE was seen in the window */
};

struct rcv {
    unsigned node;
    uint64_t rx0, rx1, t0, t1;            /* RX_BYTES and the tick its read returned */
};

struct run {
    const char *name;
    unsigned nflows;
    struct flow *f;
    unsigned nrcv;
    struct rcv r[MAX_NODES];
    uint64_t t_first, t_w0, t_w1;         /* first post; the window's start and end */
    uint64_t drops;
    int drops_known;
};

static struct {
    struct qrdma_backend *be;
    unsigned n;
    qrdma_node *node[MAX_NODES];
    uint64_t size, stride;
    unsigned out;
    uint64_t flow_ids;
} g;

int perf_flows_is_pattern(const char *test)
{
    for (int p = 0; p < P_COUNT; p++)
        if (!strcmp(test, pat_names[p]))
            return 1;
    return 0;
}

/* ----------------------------------------------------------------- figures */
/* bytes over ticks, per cycle of the nominal clock (per tick in simulation) */
static double per_cycle(uint64_t bytes, uint64_t ticks)
{
    return ticks ? (double)bytes * (double)g.be->tick_hz / (double)ticks / NOMINAL_HZ : 0.0;
}
static double of_line(double bpc) { return bpc / (double)QRDMA_NET_BEAT_BYTES; }
static double gbps(double bpc) { return bpc * NOMINAL_HZ * 8 / 1e9; }

static int drops_get(uint64_t *v)
{
    return g.be->net_dropped && g.be->net_dropped(g.be->ctx, v) == 0;
}

/* ----------------------------------------------------------------- one flow */
static uint8_t *src_slot(struct flow *f, unsigned k) { return (uint8_t *)f->sb.cpu + PERF_SLOT_ALIGN + k * g.stride; }
static uint8_t *dst_slot(struct flow *f, unsigned k) { return (uint8_t *)f->db.cpu + PERF_SLOT_ALIGN + k * g.stride; }

static void flow_setup(struct flow *f)
{
    qrdma_node *sn = g.node[f->src], *dn = g.node[f->dst];
    int e = qrdma_page_claim(sn, QRDMA_PAGE_ANY, &f->pg);
    if (e)
        perf_die(3, "flow %u -> %u: claim a page of node %u: %s", f->src, f->dst, f->src, qrdma_strerror(e));
    for (unsigned c = 0; c < QRDMA_WR_CH_PER_PAGE; c++)
        f->slot_of[c] = -1;
    for (unsigned k = 0; k < g.out; k++) {
        if ((f->ch[k] = qrdma_chan_alloc(f->pg, 1)) < 0)
            perf_die(3, "flow %u -> %u: channel allocation: %s", f->src, f->dst, qrdma_strerror(f->ch[k]));
        f->slot_of[f->ch[k]] = (int)k;
        if ((unsigned)f->ch[k] / 32 + 1 > f->groups)
            f->groups = (unsigned)f->ch[k] / 32 + 1;
    }
    uint64_t bytes = PERF_SLOT_ALIGN + g.out * g.stride;
    if ((e = qrdma_buf_alloc(sn, bytes, PERF_SLOT_ALIGN, &f->sb)) ||
        (e = qrdma_buf_alloc(dn, bytes, PERF_SLOT_ALIGN, &f->db)))
        perf_die(3, "flow %u -> %u: 2 x %llu bytes of host memory: %s (-B mem=...)", f->src, f->dst,
                 (unsigned long long)bytes, qrdma_strerror(e));
    f->id = g.flow_ids++;
    for (unsigned k = 0; k < g.out; k++)
        perf_fill(src_slot(f, k), f->id * QRDMA_WR_CH_PER_PAGE + k, g.size);
    memset(f->db.cpu, PERF_GUARD_BYTE, f->db.size);
}

static void flow_post(struct flow *f, unsigned k)
{
    struct qrdma_write wr = {
        .src_addr = f->sb.dev + PERF_SLOT_ALIGN + k * g.stride,
        .dst_addr = f->db.dev + PERF_SLOT_ALIGN + k * g.stride,
        .size = g.size,
        .dst_node = qrdma_node_info(g.node[f->dst])->node_id,
        .tag = (uint32_t)f->posted,
    };
    perf_poison(dst_slot(f, k), src_slot(f, k), g.size);
    int e = qrdma_post_write(f->pg, (unsigned)f->ch[k], &wr);
    if (e)
        perf_die(3, "flow %u -> %u: post of transfer #%llu (channel %d) failed: %s", f->src, f->dst,
                 (unsigned long long)f->posted, f->ch[k], qrdma_strerror(e));
    f->xfer[k] = f->posted++;
    f->busy[k] = 1;
}

/* One round of the flow's collective status reads: each DONE is verified, counted (in
 * the window: the read returned after its start and no later than its end) and, while
 * posting, replaced by the slot's next transfer. Returns 1 if a transfer completed. */
static int flow_poll(struct flow *f, int in_window, int posting)
{
    int progress = 0;
    for (unsigned grp = 0; grp < f->groups; grp++) {
        struct qrdma_coll c;
        int e = qrdma_poll_coll(f->pg, grp, &c);
        if (e)
            perf_die(3, "flow %u -> %u: collective status read: %s", f->src, f->dst, qrdma_strerror(e));
        for (unsigned i = 0; i < 32; i++) {
            unsigned ch = 32 * grp + i;
            int k = f->slot_of[ch];
            if (k < 0 || !f->busy[k])
                continue;
            if (c.error >> i & 1)
                perf_die(3, "flow %u -> %u: transfer #%llu (size %llu, channel %u): status ERROR: %s", f->src, f->dst,
                         (unsigned long long)f->xfer[k], (unsigned long long)g.size, ch,
                         qrdma_err_reason_str(qrdma_chan_error(f->pg, ch)));
            if (!(c.done >> i & 1))
                continue;
            f->busy[k] = 0;
            perf_verify(src_slot(f, (unsigned)k), dst_slot(f, (unsigned)k), g.size,
                        "flow %u -> %u, size %llu, transfer #%llu (slot %d)", f->src, f->dst,
                        (unsigned long long)g.size, (unsigned long long)f->xfer[k], k);
            f->done++;
            f->w_done += in_window;
            progress = 1;
            if (posting)
                flow_post(f, (unsigned)k);
        }
    }
    return progress;
}

static void flow_finish(struct flow *f)
{
    const uint8_t *d = f->db.cpu;
    uint64_t i = perf_guard_bad(d + PERF_SLOT_ALIGN - PERF_GUARD, PERF_GUARD);
    if (i != UINT64_MAX)
        perf_die(2, "DATA VERIFICATION FAILED: flow %u -> %u: byte written before slot 0 (offset -%llu)", f->src,
                 f->dst, (unsigned long long)(PERF_GUARD - i));
    for (unsigned k = 0; k < g.out; k++)
        if ((i = perf_guard_bad(dst_slot(f, k) + g.size, g.stride - g.size)) != UINT64_MAX)
            perf_die(2, "DATA VERIFICATION FAILED: flow %u -> %u: byte written past slot %u (offset %llu)", f->src,
                     f->dst, k, (unsigned long long)(g.size + i));
    for (unsigned k = 0; k < g.out; k++)
        qrdma_chan_free(f->pg, (unsigned)f->ch[k]);
    qrdma_page_release(f->pg);
    qrdma_buf_free(g.node[f->src], &f->sb);
    qrdma_buf_free(g.node[f->dst], &f->db);
}

/* ----------------------------------------------------------------- one run */
static void read_rx(struct run *R, int end)
{
    for (unsigned j = 0; j < R->nrcv; j++) {
        uint64_t v;
        int e = qrdma_counter_read(g.node[R->r[j].node], QRDMA_CNT_RX_BYTES, &v);
        if (e)
            perf_die(3, "node %u: RX_BYTES: %s", R->r[j].node, qrdma_strerror(e));
        uint64_t t = qrdma_now(g.node[R->r[j].node]);
        if (end)
            R->r[j].rx1 = v, R->r[j].t1 = t;
        else
            R->r[j].rx0 = v, R->r[j].t0 = t;
    }
}

/* Every flow posts OUT transfers, then the flows are polled in turn, each completion
 * re-posted, until the window has ended; then everything in flight is drained. The
 * window opens at the first round at least `warmup` ticks after the first post and
 * closes at the first round at least `window` ticks after it opened; the receivers'
 * RX_BYTES are read at both. */
static void run(struct run *R, const struct fopts *o)
{
    uint64_t d0 = 0;
    R->drops_known = drops_get(&d0);
    for (unsigned i = 0; i < R->nflows; i++) {
        flow_setup(&R->f[i]);
        unsigned j = 0;
        while (j < R->nrcv && R->r[j].node != R->f[i].dst)
            j++;
        if (j == R->nrcv)
            R->r[R->nrcv++].node = R->f[i].dst;
    }
    for (unsigned k = 0; k < g.out; k++) /* slot by slot, so that every flow starts at once */
        for (unsigned i = 0; i < R->nflows; i++)
            flow_post(&R->f[i], k);
    qrdma_node *clk = g.node[0];
    R->t_first = qrdma_now(clk);
    const uint64_t timeout = o->timeout_ms * (g.be->tick_hz / 1000);
    uint64_t last = R->t_first;
    int phase = 0; /* 0 warm-up, 1 window, 2 drain */
    for (;;) {
        int progress = 0;
        uint64_t busy = 0;
        for (unsigned i = 0; i < R->nflows; i++) {
            struct flow *f = &R->f[i];
            if (f->posted == f->done)
                continue;
            progress |= flow_poll(f, phase == 1, phase < 2);
            busy += f->posted - f->done;
        }
        uint64_t now = qrdma_now(clk);
        if (phase == 0 && now - R->t_first >= o->warmup) {
            R->t_w0 = now;
            read_rx(R, 0);
            phase = 1;
        } else if (phase == 1 && now - R->t_w0 >= o->window) {
            R->t_w1 = now;
            read_rx(R, 1);
            phase = 2;
        }
        if (phase == 2 && !busy)
            break;
        if (progress)
            last = now;
        else if (now - last > timeout)
            perf_die(3, "%s: no transfer completed for %llu ms (%llu in flight)", R->name,
                     (unsigned long long)o->timeout_ms, (unsigned long long)busy);
        else if (g.be->idle)
            g.be->idle(g.be->ctx, 0);
    }
    for (unsigned i = 0; i < R->nflows; i++)
        flow_finish(&R->f[i]);
    uint64_t d1 = 0;
    if (R->drops_known && drops_get(&d1))
        R->drops = d1 - d0;
    else
        R->drops_known = 0;
}

/* ----------------------------------------------------------------- output */
static double flow_bpc(const struct run *R, const struct flow *f)
{
    return per_cycle(f->w_done * g.size, R->t_w1 - R->t_w0);
}
static double rcv_bpc(const struct rcv *r) { return per_cycle(r->rx1 - r->rx0, r->t1 - r->t0); }

static void print_run(const struct run *R)
{
    printf(" %s: window %llu ticks, %llu after the first post\n", R->name, (unsigned long long)(R->t_w1 - R->t_w0),
           (unsigned long long)(R->t_w0 - R->t_first));
    printf(" #flow  src   dst   #transfers  #bytes        B/cycle    line rate   BW[Gb/sec]\n");
    uint64_t all = 0;
    for (unsigned i = 0; i < R->nflows; i++) {
        const struct flow *f = &R->f[i];
        double b = flow_bpc(R, f);
        all += f->w_done;
        printf(" %-6u %-5u %-5u %-11llu %-13llu %-10.4f %-11.4f %.2f\n", i, f->src, f->dst,
               (unsigned long long)f->w_done, (unsigned long long)(f->w_done * g.size), b, of_line(b), gbps(b));
    }
    double b = per_cycle(all * g.size, R->t_w1 - R->t_w0);
    printf(" all                 %-11llu %-13llu %-10.4f %-11.4f %.2f\n", (unsigned long long)all,
           (unsigned long long)(all * g.size), b, of_line(b), gbps(b));
    printf(" receiver  RX_BYTES      ticks      B/cycle    line rate   BW[Gb/sec]\n");
    for (unsigned j = 0; j < R->nrcv; j++) {
        const struct rcv *r = &R->r[j];
        double rb = rcv_bpc(r);
        printf(" node %-4u %-13llu %-10llu %-10.4f %-11.4f %.2f\n", r->node, (unsigned long long)(r->rx1 - r->rx0),
               (unsigned long long)(r->t1 - r->t0), rb, of_line(rb), gbps(rb));
    }
    if (R->drops_known)
        printf(" network: %llu packets dropped\n", (unsigned long long)R->drops);
    else
        printf(" network: drops not known to the backend (reported on its stderr, if any)\n");
    printf("%s\n", RULE);
    fflush(stdout);
}

static void json_run(FILE *fp, const struct run *R, int last)
{
    fprintf(fp, "    {\"run\": \"%s\", \"window_start_ticks\": %llu, \"window_ticks\": %llu, ", R->name,
            (unsigned long long)(R->t_w0 - R->t_first), (unsigned long long)(R->t_w1 - R->t_w0));
    if (R->drops_known)
        fprintf(fp, "\"dropped_packets\": %llu,\n", (unsigned long long)R->drops);
    else
        fprintf(fp, "\"dropped_packets\": null,\n");
    fprintf(fp, "     \"flows\": [\n");
    for (unsigned i = 0; i < R->nflows; i++) {
        const struct flow *f = &R->f[i];
        double b = flow_bpc(R, f);
        fprintf(fp, "       {\"src\": %u, \"dst\": %u, \"transfers\": %llu, \"bytes\": %llu, "
                    "\"bytes_per_cycle\": %.6f, \"fraction_of_line_rate\": %.6f, \"gbps\": %.4f, "
                    "\"transfers_completed\": %llu}%s\n",
                f->src, f->dst, (unsigned long long)f->w_done, (unsigned long long)(f->w_done * g.size), b, of_line(b),
                gbps(b), (unsigned long long)f->done, i + 1 < R->nflows ? "," : "");
    }
    fprintf(fp, "     ],\n     \"receivers\": [\n");
    for (unsigned j = 0; j < R->nrcv; j++) {
        const struct rcv *r = &R->r[j];
        double b = rcv_bpc(r);
        fprintf(fp, "       {\"node\": %u, \"rx_bytes\": %llu, \"ticks\": %llu, \"bytes_per_cycle\": %.6f, "
                    "\"fraction_of_line_rate\": %.6f, \"gbps\": %.4f}%s\n",
                r->node, (unsigned long long)(r->rx1 - r->rx0), (unsigned long long)(r->t1 - r->t0), b, of_line(b),
                gbps(b), j + 1 < R->nrcv ? "," : "");
    }
    fprintf(fp, "     ]}%s\n", last ? "" : ",");
}

/* ----------------------------------------------------------------- the patterns */
static unsigned make_flows(enum pattern p, int loaded, struct flow *f)
{
    unsigned n = 0, N = g.n;
    switch (p) {
    case P_INCAST:
        for (unsigned i = 1; i < N; i++)
            f[n++] = (struct flow){.src = i, .dst = 0};
        break;
    case P_PERMUTATION:
        for (unsigned i = 0; i < N; i++)
            f[n++] = (struct flow){.src = i, .dst = (i + 1) % N};
        break;
    case P_ALLTOALL:
        for (unsigned i = 0; i < N; i++)
            for (unsigned j = 0; j < N; j++)
                if (i != j)
                    f[n++] = (struct flow){.src = i, .dst = j};
        break;
    case P_HOTSPOT:
        f[n++] = (struct flow){.src = 1, .dst = 2}; /* the victim: flow 0 */
        for (unsigned i = 0; loaded && i < N; i++)
            if (i != 1)
                f[n++] = (struct flow){.src = i, .dst = 1};
        break;
    default:
        break;
    }
    return n;
}

static const char *describe(enum pattern p)
{
    switch (p) {
    case P_INCAST: return "nodes 1 .. N-1 -> node 0";
    case P_PERMUTATION: return "node i -> node (i + 1) mod N";
    case P_ALLTOALL: return "every node -> every other node";
    case P_HOTSPOT: return "victim 1 -> 2 alone, then beside nodes 0, 2 .. N-1 -> node 1";
    default: return "";
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: qrdma-perf incast|permutation|alltoall|hotspot [-s size] [-t outstanding]\n"
                    "                  [-w warmup,window] [-T ms] [-B backend-spec] [-o json]\n");
    exit(1);
}

int perf_flows_main(int argc, char **argv)
{
    struct fopts o = {.size = 65536, .out = 16, .warmup = 50000, .window = 400000, .timeout_ms = 100};
    for (o.pat = 0; o.pat < P_COUNT && strcmp(argv[1], pat_names[o.pat]); o.pat++)
        ;
    if (o.pat == P_COUNT)
        usage();
    optind = 2;
    int c;
    while ((c = getopt(argc, argv, "s:t:w:T:B:o:h")) != -1) {
        switch (c) {
        case 's': o.size = perf_parse_u64(optarg, "size"); break;
        case 't': o.out = (unsigned)perf_parse_u64(optarg, "outstanding"); break;
        case 'w': perf_parse_window(optarg, &o.warmup, &o.window); break;
        case 'T': o.timeout_ms = perf_parse_u64(optarg, "timeout"); break;
        case 'B': o.spec = optarg; break;
        case 'o': o.json = optarg; break;
        default: usage();
        }
    }
    if (optind != argc)
        usage();
    if (o.size < 1 || o.size > QRDMA_MAX_TRANSFER_BYTES || o.out < 1 || o.out > QRDMA_WR_CH_PER_PAGE ||
        o.timeout_ms < 1)
        perf_die(1, "need 1 <= -s <= %llu, 1 <= -t <= %llu, -T >= 1", (unsigned long long)QRDMA_MAX_TRANSFER_BYTES,
                 (unsigned long long)QRDMA_WR_CH_PER_PAGE);

    int e = qrdma_tool_backend_open(o.spec, &g.be);
    if (e)
        perf_die(3, "backend: %s", qrdma_strerror(e));
    g.n = g.be->num_nodes;
    if (g.n < pat_min_nodes[o.pat])
        perf_die(1, "%s needs at least %u nodes; the backend has %u (-B nodes=N)", pat_names[o.pat],
                 pat_min_nodes[o.pat], g.n);
    if (g.n > MAX_NODES)
        perf_die(1, "%s: at most %u nodes; the backend has %u", pat_names[o.pat], MAX_NODES, g.n);
    if (o.pat == P_ALLTOALL && g.n - 1 > QRDMA_NUM_PAGES)
        perf_die(1, "alltoall: a page per flow, %u flows per node, %llu pages", g.n - 1,
                 (unsigned long long)QRDMA_NUM_PAGES);
    for (unsigned i = 0; i < g.n; i++) {
        if ((e = qrdma_open(g.be, i, &g.node[i])))
            perf_die(3, "open node %u: %s", i, qrdma_strerror(e));
        /* development mode (docs/protection.md): the patterns' writes carry no key */
        if ((e = qrdma_prot_open(g.node[i], 1)))
            perf_die(3, "node %u: development mode: %s", i, qrdma_strerror(e));
    }
    g.size = o.size;
    g.out = o.out;
    g.stride = (o.size + PERF_GUARD + PERF_SLOT_ALIGN - 1) / PERF_SLOT_ALIGN * PERF_SLOT_ALIGN;

    struct run runs[2];
    unsigned nruns = 0;
    struct flow *fl = calloc(2 * MAX_FLOWS, sizeof *fl);
    if (!fl)
        perf_die(3, "out of memory");
    if (o.pat == P_HOTSPOT)
        runs[nruns++] = (struct run){.name = "alone", .f = fl, .nflows = make_flows(o.pat, 0, fl)};
    runs[nruns] = (struct run){.name = o.pat == P_HOTSPOT ? "loaded" : pat_names[o.pat], .f = fl + MAX_FLOWS};
    runs[nruns].nflows = make_flows(o.pat, 1, runs[nruns].f);
    nruns++;

    printf("%s\n                    RDMA_Write BW Test (qrdma-perf %s)\n", RULE, pat_names[o.pat]);
    printf(" Backend: %s   Nodes: %u   Flows: %s\n", g.be->name, g.n, describe(o.pat));
    printf(" Size: %llu B   Outstanding: %u per flow   Mode: mem   Data verified: every transfer\n",
           (unsigned long long)o.size, o.out);
    printf(" Window: %llu ticks after %llu of warm-up   Line rate: %llu B/cycle (%.1f Gb/s at the nominal %.0f MHz)\n",
           (unsigned long long)o.window, (unsigned long long)o.warmup, (unsigned long long)QRDMA_NET_BEAT_BYTES,
           gbps((double)QRDMA_NET_BEAT_BYTES), NOMINAL_HZ / 1e6);
    printf("%s\n", RULE);
    fflush(stdout);
    for (unsigned i = 0; i < nruns; i++) {
        run(&runs[i], &o);
        print_run(&runs[i]);
    }
    double v_alone = 0, v_loaded = 0, r_alone = 0, r_loaded = 0;
    if (o.pat == P_HOTSPOT) {
        /* the victim is flow 0 and node 2 receives from it alone in both runs */
        v_alone = flow_bpc(&runs[0], &runs[0].f[0]);
        v_loaded = flow_bpc(&runs[1], &runs[1].f[0]);
        for (unsigned j = 0; j < runs[1].nrcv; j++)
            if (runs[1].r[j].node == 2)
                r_loaded = rcv_bpc(&runs[1].r[j]);
        r_alone = rcv_bpc(&runs[0].r[0]);
        printf(" victim 1 -> 2: alone %.4f B/cycle, loaded %.4f B/cycle: ratio %.4f "
               "(node 2's RX_BYTES: %.4f, %.4f: ratio %.4f)\n%s\n",
               v_alone, v_loaded, v_alone > 0 ? v_loaded / v_alone : 0.0, r_alone, r_loaded,
               r_alone > 0 ? r_loaded / r_alone : 0.0, RULE);
    }

    char def[256];
    const char *path = o.json;
    if (!path) {
        snprintf(def, sizeof def, "build/results/qrdma_perf_%s.json", pat_names[o.pat]);
        path = def;
    }
    FILE *fp = perf_mkdirs(path) == 0 ? fopen(path, "w") : NULL;
    if (!fp)
        perf_die(3, "cannot write %s", path);
    fprintf(fp, "{\n  \"tool\": \"qrdma-perf\",\n  \"test\": \"%s\",\n  \"backend\": \"%s\",\n  \"tick_hz\": %llu,\n",
            pat_names[o.pat], g.be->name, (unsigned long long)g.be->tick_hz);
    fprintf(fp, "  \"nominal_clock_hz\": %.0f,\n  \"line_rate_bytes_per_cycle\": %llu,\n", NOMINAL_HZ,
            (unsigned long long)QRDMA_NET_BEAT_BYTES);
    fprintf(fp, "  \"nodes\": %u,\n  \"size\": %llu,\n  \"outstanding\": %u,\n  \"mode\": \"mem\",\n"
                "  \"verified\": \"every transfer\",\n",
            g.n, (unsigned long long)o.size, o.out);
    fprintf(fp, "  \"window_warmup_ticks\": %llu,\n  \"window_min_ticks\": %llu,\n", (unsigned long long)o.warmup,
            (unsigned long long)o.window);
    int known = 1;
    uint64_t drops = 0;
    for (unsigned i = 0; i < nruns; i++)
        known &= runs[i].drops_known, drops += runs[i].drops;
    if (known)
        fprintf(fp, "  \"dropped_packets\": %llu,\n", (unsigned long long)drops);
    else
        fprintf(fp, "  \"dropped_packets\": null,\n"
                    "  \"drops\": \"not known to the backend: reported on its stderr\",\n");
    if (o.pat == P_HOTSPOT)
        fprintf(fp, "  \"victim\": {\"src\": 1, \"dst\": 2, \"alone_bytes_per_cycle\": %.6f, "
                    "\"loaded_bytes_per_cycle\": %.6f, \"ratio\": %.6f, \"rx_alone_bytes_per_cycle\": %.6f, "
                    "\"rx_loaded_bytes_per_cycle\": %.6f, \"rx_ratio\": %.6f},\n",
                v_alone, v_loaded, v_alone > 0 ? v_loaded / v_alone : 0.0, r_alone, r_loaded,
                r_alone > 0 ? r_loaded / r_alone : 0.0);
    fprintf(fp, "  \"runs\": [\n");
    for (unsigned i = 0; i < nruns; i++)
        json_run(fp, &runs[i], i + 1 == nruns);
    fprintf(fp, "  ]\n}\n");
    if (fclose(fp) != 0)
        perf_die(3, "cannot write %s", path);
    printf(" results: %s\n", path);

    free(fl);
    for (unsigned i = 0; i < g.n; i++)
        qrdma_close(g.node[i]);
    qrdma_backend_close(g.be);
    return 0;
}
