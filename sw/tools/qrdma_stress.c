/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * qrdma-stress: bidirectional random traffic between nodes 0 and 1 (or all-to-all among N
 * nodes) through libqrdma, with notification rings drained at slow random intervals, every
 * byte and every notification checked (docs/nic.md "Deadlock freedom"). Links with libqrdma
 * and one backend chosen at link time (qrdma_tool_backend_open), like qrdma-perf.
 *
 *   qrdma-stress [options]
 *     -s SEED    random seed (1); the run is a function of the seed and the options
 *     -N NODES   nodes taking part (2; the backend must have as many)
 *     -P PAGES   pages posting on each node (16)
 *     -C SLOTS   channel pairs per page, each with one transfer in flight (8)
 *     -n ROUNDS  transfers posted on each slot, one after the other (1)
 *     -S BYTES   largest memory write (600K); sizes are log-uniform 1 .. BYTES
 *     -r A,B,..  notification ring entries of node 0, node 1, ... (8,8; the last value for
 *                the nodes not listed)
 *     -d A,B,..  mean cycles between two drains of the ring of node 0, node 1, ...
 *                (2000,2000); each drain takes every entry there is, the next comes after a
 *                random 0.5 .. 1.5 x the mean
 *     -p CYCLES  CPU cycles between two status polling rounds of a node (0: back to back)
 *     -T MS      fail when nothing completes for MS ms of backend time (20)
 *     -R CYCLES[,RETRIES]  response timeout of every node's reliability (RETX_TIMEOUT) and
 *                its re-sends (RETRY_LIMIT.retries, 7; selective, backoff 3); without -R
 *                the registers keep their reset values
 *     -B SPEC    backend specification (qrdma_tool_backend_open); e.g. watchdog=N
 *     -o FILE    JSON summary (default: none)
 *
 * Traffic: every slot (an even/odd channel pair of a page) posts ROUNDS transfers to its
 * peer: the other node of two; of N > 2, slot j of node n writes to node
 * (n + 1 + j mod (N - 1)) mod N, so the slots of every node reach every other node.
 * Transfers are memory writes (log-uniform sizes, random priority, multipath for half of
 * those of at least 256 KiB, a 64-byte descriptor for a quarter of them) and inline
 * writes of 1..32 bytes (a third of the transfers); half of all transfers ask for a
 * notification, and half of the memory writes among those are registered at their
 * receiver (QRDMA_WR_REGISTERED: early notifications, docs/registration.md). All slots of all nodes post their first transfer before any polling,
 * so every direction loads the NICs at once.
 * Checks: each destination is poisoned before the post and must equal its source after
 * DONE; the bytes around each destination stay untouched; every notification matches
 * the oldest transfer of its (node, channel) still owed one, field by field, and at the
 * end every transfer has had exactly its notification. Exit status 0: all exact; 2: a
 * wrong byte or notification; 3: ERROR status, failed post or timeout.
 */
#define _POSIX_C_SOURCE 200809L

#include "qrdma.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_NODES 16
#define GUARD 64ULL
#define SLOT_ALIGN 4096ULL
#define MAX_ROUNDS_OWED 8 /* notifications of one slot that may be outstanding at once */

struct opts {
    uint64_t seed;
    unsigned nodes, pages, slots, rounds;
    uint64_t max_size;
    uint64_t ring[MAX_NODES];
    uint64_t drain[MAX_NODES];
    uint64_t poll_gap;
    uint64_t timeout_ms;
    uint64_t retx_timeout, retries;
    const char *spec, *json;
};

/* What a notification of one transfer must say (qrdma_notif minus seq). */
struct expect {
    uint8_t kind;
    uint64_t size, dst_addr;
    uint32_t tag;
};

struct slot {
    unsigned node, page, ch;       /* sender, its page, first channel of the pair */
    unsigned peer;                 /* the node it writes to */
    uint64_t src_dev, dst_dev;     /* source in the sender's memory, destination in the peer's */
    uint8_t *src, *dst;            /* CPU views */
    unsigned posted, done;         /* transfers posted / seen DONE */
    int busy;
    uint64_t size, off;            /* transfer in flight: bytes and offset in the slot */
    int inl;
    struct expect owed[MAX_ROUNDS_OWED]; /* notifications owed, oldest first */
    unsigned owed_n;
};

static struct {
    struct qrdma_backend *be;
    unsigned n;                    /* nodes */
    qrdma_node *node[MAX_NODES];
    qrdma_page *pg[MAX_NODES][QRDMA_NUM_PAGES];
    struct qrdma_buf src[MAX_NODES], dst[MAX_NODES];
    struct slot *slot;
    unsigned nslots;
    uint64_t stride;
    uint64_t rng;
    uint64_t next_drain[MAX_NODES], next_poll[MAX_NODES];
    uint64_t ntf_seen[MAX_NODES], ntf_drains[MAX_NODES], ntf_max_batch[MAX_NODES];
    uint64_t max_size;
    uint64_t bytes, transfers, inl, notify, multipath, long_desc, registered, early;
} g;

static void die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "qrdma-stress: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(code);
}

static uint64_t rnd(void) /* xorshift64* */
{
    g.rng ^= g.rng >> 12;
    g.rng ^= g.rng << 25;
    g.rng ^= g.rng >> 27;
    return g.rng * 0x2545F4914F6CDD1DULL;
}

static uint64_t rnd_range(uint64_t lo, uint64_t hi) { return lo + rnd() % (hi - lo + 1); }

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
    if (*end)
        die(1, "bad %s '%s'", what, s);
    return v;
}

/* "A,B,..." into out[0 ..]: the last value given for the nodes after it */
static void parse_list(const char *s, uint64_t out[MAX_NODES], const char *what)
{
    char buf[256];
    if (strlen(s) >= sizeof buf)
        die(1, "bad %s '%s'", what, s);
    strcpy(buf, s);
    unsigned k = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (k == MAX_NODES)
            die(1, "bad %s '%s' (at most %u values)", what, s, MAX_NODES);
        out[k++] = parse_u64(tok, what);
    }
    if (!k)
        die(1, "bad %s '%s'", what, s);
    for (; k < MAX_NODES; k++)
        out[k] = out[k - 1];
}

static uint8_t pattern(unsigned slot, unsigned round, uint64_t i)
{
    uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ULL ^ (slot + 1) * 0xC2B2AE3D27D4EB4FULL ^ round * 0x165667B19E3779F9ULL;
    return (uint8_t)(x >> 56 ^ x >> 29 ^ x);
}

/* ----------------------------------------------------------------- posting */
static void post(struct slot *s)
{
    unsigned idx = (unsigned)(s - g.slot);
    struct qrdma_write wr = {0};
    int inl = rnd() % 3 == 0;
    uint64_t size;
    if (inl) {
        size = rnd_range(1, QRDMA_INLINE_MAX);
    } else {
        /* log-uniform 1 .. max_size: a power of 2 at random, then a size up to it */
        unsigned top = 0;
        while ((2ULL << top) <= g.max_size)
            top++;
        uint64_t hi = 1ULL << rnd_range(0, top);
        size = rnd_range(hi / 2 + 1, hi);
        if (size > g.max_size)
            size = g.max_size;
    }
    /* anywhere in the slot; half of the memory writes 64-byte aligned */
    uint64_t room = g.stride - GUARD;
    uint64_t off = rnd_range(0, room - size);
    if (!inl && rnd() % 2)
        off &= ~63ULL;
    s->size = size;
    s->off = off;
    s->inl = inl;
    wr.src_addr = s->src_dev + off;
    wr.size = size;
    wr.dst_addr = s->dst_dev + off;
    wr.dst_node = qrdma_node_info(g.node[s->peer])->node_id;
    wr.prio = (uint8_t)(rnd() % 16);
    wr.tag = (uint32_t)(idx * 1000003u + s->posted);
    if (rnd() % 2)
        wr.flags |= QRDMA_WR_NOTIFY;
    if (!inl && (wr.flags & QRDMA_WR_NOTIFY) && rnd() % 2)
        wr.flags |= QRDMA_WR_REGISTERED;
    if (!inl && size >= (256u << 10) && rnd() % 2)
        wr.flags |= QRDMA_WR_MULTIPATH;
    if (!inl && rnd() % 4 == 0)
        wr.rkey = (uint32_t)(rnd() | 1);
    for (uint64_t i = 0; i < size; i++) {
        s->src[off + i] = pattern(idx, s->posted, i);
        s->dst[off + i] = (uint8_t)~s->src[off + i];
    }
    int e = inl ? qrdma_post_inline(g.pg[s->node][s->page], s->ch, &wr, s->src + off, size)
                : qrdma_post_write(g.pg[s->node][s->page], s->ch, &wr);
    if (e)
        die(3, "node %u page %u channel %u: post of %s %" PRIu64 " B failed: %s", s->node, s->page, s->ch,
            inl ? "inline" : "write", size, qrdma_strerror(e));
    if (wr.flags & QRDMA_WR_NOTIFY) {
        if (s->owed_n == MAX_ROUNDS_OWED)
            die(2, "node %u page %u channel %u: %u notifications owed", s->node, s->page, s->ch, s->owed_n);
        s->owed[s->owed_n++] = (struct expect){
            .kind = inl ? QRDMA_NET_INLINE : QRDMA_NET_CONTROL,
            .size = size,
            .dst_addr = wr.dst_addr,
            .tag = inl ? 0 : wr.tag,
        };
        g.notify++;
    }
    g.inl += inl;
    g.multipath += !!(wr.flags & QRDMA_WR_MULTIPATH);
    g.registered += !!(wr.flags & QRDMA_WR_REGISTERED);
    g.long_desc += wr.rkey != 0;
    s->busy = 1;
    s->posted++;
}

static void completed(struct slot *s)
{
    for (uint64_t i = 0; i < s->size; i++)
        if (s->dst[s->off + i] != s->src[s->off + i])
            die(2, "node %u -> %u, page %u channel %u, transfer %u (%s %" PRIu64 " B at +%" PRIu64
                   "): byte %" PRIu64 " is 0x%02x, expected 0x%02x",
                s->node, s->peer, s->page, s->ch, s->posted - 1, s->inl ? "inline" : "write", s->size,
                s->off, i, s->dst[s->off + i], s->src[s->off + i]);
    s->busy = 0;
    s->done++;
    g.transfers++;
    g.bytes += s->size;
}

/* ----------------------------------------------------------------- notifications */
static struct slot *slot_of(unsigned sender, unsigned xfer)
{
    unsigned page = xfer / QRDMA_CH_PER_PAGE, ch = xfer % QRDMA_CH_PER_PAGE;
    if (page >= g.nslots || ch % 2)
        return NULL;
    for (unsigned i = 0; i < g.nslots; i++)
        if (g.slot[i].node == sender && g.slot[i].page == page && g.slot[i].ch == ch)
            return &g.slot[i];
    return NULL;
}

static void drain(unsigned n)
{
    struct qrdma_notif nt;
    uint64_t batch = 0;
    int r;
    while ((r = qrdma_nq_poll(g.node[n], &nt)) == 1) {
        batch++;
        unsigned sender = 0;
        while (sender < g.n && nt.src_node != qrdma_node_info(g.node[sender])->node_id)
            sender++;
        if (sender == g.n)
            die(2, "node %u: notification from node ID %u", n, nt.src_node);
        struct slot *s = slot_of(sender, nt.xfer);
        if (!s || s->peer != n || !s->owed_n)
            die(2, "node %u: notification for xfer %u (kind %u, size %" PRIu64 ") that nobody owes", n, nt.xfer,
                nt.kind, nt.size);
        const struct expect *x = &s->owed[0];
        if (nt.kind != x->kind || nt.size != x->size || nt.dst_addr != x->dst_addr || nt.tag != x->tag ||
            nt.pd != s->page)
            die(2, "node %u: notification for xfer %u: kind %u size %" PRIu64 " dst 0x%" PRIx64 " tag %u pd %u, "
                   "expected kind %u size %" PRIu64 " dst 0x%" PRIx64 " tag %u pd %u",
                n, nt.xfer, nt.kind, nt.size, nt.dst_addr, nt.tag, nt.pd, x->kind, x->size, x->dst_addr, x->tag,
                s->page);
        memmove(&s->owed[0], &s->owed[1], (s->owed_n - 1) * sizeof s->owed[0]);
        s->owed_n--;
        g.ntf_seen[n]++;
        g.early += nt.early;
    }
    if (r < 0)
        die(3, "node %u: notification ring: %s", n, qrdma_strerror(r));
    g.ntf_drains[n]++;
    if (batch > g.ntf_max_batch[n])
        g.ntf_max_batch[n] = batch;
}

/* ----------------------------------------------------------------- polling */
static int poll_node(unsigned n, unsigned rounds)
{
    int progress = 0;
    for (unsigned p = 0; p < g.nslots; p++) {
        struct slot *first = NULL;
        for (unsigned i = 0; i < g.nslots; i++)
            if (g.slot[i].node == n && g.slot[i].page == p && g.slot[i].busy) {
                first = &g.slot[i];
                break;
            }
        if (!first)
            continue;
        struct qrdma_coll c;
        int e = qrdma_poll_coll(g.pg[n][p], 0, &c);
        if (e)
            die(3, "node %u page %u: collective status read: %s", n, p, qrdma_strerror(e));
        for (unsigned i = 0; i < g.nslots; i++) {
            struct slot *s = &g.slot[i];
            if (s->node != n || s->page != p || !s->busy)
                continue;
            if (c.error >> s->ch & 1)
                die(3, "node %u page %u channel %u: transfer %u (%s %" PRIu64 " B) ended in ERROR: %s", n, p,
                    s->ch, s->posted - 1, s->inl ? "inline" : "write", s->size,
                    qrdma_err_reason_str(qrdma_chan_error(g.pg[n][p], s->ch)));
            if (!(c.done >> s->ch & 1))
                continue;
            completed(s);
            progress = 1;
            if (s->posted < rounds)
                post(s);
        }
    }
    return progress;
}

static int all_done(unsigned rounds)
{
    for (unsigned i = 0; i < g.nslots; i++)
        if (g.slot[i].done < rounds || g.slot[i].owed_n)
            return 0;
    return 1;
}

static void report_counters(FILE *f, const char *indent)
{
    for (unsigned n = 0; n < g.n; n++) {
        uint64_t v[QRDMA_CNT_COUNT];
        int e = qrdma_counters_read(g.node[n], v);
        fprintf(f, "%s\"node%u\": {", indent, n);
        for (unsigned c = 0; c < QRDMA_CNT_COUNT; c++)
            fprintf(f, "%s\"%s\": %" PRIu64, c ? ", " : "", qrdma_counter_name((enum qrdma_counter)c),
                    e ? 0 : v[c]);
        fprintf(f, ", \"notifications_taken\": %" PRIu64 ", \"ring_drains\": %" PRIu64
                   ", \"largest_drain\": %" PRIu64 "}%s\n",
                g.ntf_seen[n], g.ntf_drains[n], g.ntf_max_batch[n], n + 1 < g.n ? "," : "");
    }
}

/* ----------------------------------------------------------------- main */
int main(int argc, char **argv)
{
    struct opts o = {.seed = 1, .nodes = 2, .pages = 16, .slots = 8, .rounds = 1, .max_size = 600u << 10,
                     .timeout_ms = 20, .retries = 7};
    int c;
    parse_list("8", o.ring, "ring entries");
    parse_list("2000", o.drain, "drain interval");
    while ((c = getopt(argc, argv, "s:N:P:C:n:S:r:d:p:T:R:B:o:h")) != -1) {
        switch (c) {
        case 's': o.seed = parse_u64(optarg, "seed"); break;
        case 'N': o.nodes = (unsigned)parse_u64(optarg, "nodes"); break;
        case 'P': o.pages = (unsigned)parse_u64(optarg, "pages"); break;
        case 'C': o.slots = (unsigned)parse_u64(optarg, "slots"); break;
        case 'n': o.rounds = (unsigned)parse_u64(optarg, "rounds"); break;
        case 'S': o.max_size = parse_u64(optarg, "size"); break;
        case 'r': parse_list(optarg, o.ring, "ring entries"); break;
        case 'd': parse_list(optarg, o.drain, "drain interval"); break;
        case 'p': o.poll_gap = parse_u64(optarg, "poll gap"); break;
        case 'T': o.timeout_ms = parse_u64(optarg, "timeout"); break;
        case 'R': {
            char buf[64], *save = NULL;
            snprintf(buf, sizeof buf, "%s", optarg);
            char *t = strtok_r(buf, ",", &save), *r = strtok_r(NULL, ",", &save);
            o.retx_timeout = parse_u64(t ? t : "", "response timeout");
            if (r) o.retries = parse_u64(r, "retries");
            if (!o.retx_timeout || o.retries > 255)
                die(1, "-R: cycles > 0, retries 0..255");
            break;
        }
        case 'B': o.spec = optarg; break;
        case 'o': o.json = optarg; break;
        default:
            fprintf(stderr, "usage: qrdma-stress [-s seed] [-N nodes] [-P pages] [-C slots] [-n rounds]\n"
                            "                    [-S max_size] [-r ring0,ring1,..] [-d drain0,drain1,..]\n"
                            "                    [-p poll_gap] [-T ms] [-R cycles[,retries]]\n"
                            "                    [-B backend-spec] [-o json]\n");
            return 1;
        }
    }
    if (o.pages < 1 || o.pages > QRDMA_NUM_PAGES || o.slots < 1 || o.slots > QRDMA_WR_CH_PER_PAGE / 2 ||
        o.rounds < 1 || o.max_size < QRDMA_INLINE_MAX || o.max_size > (64u << 20) || o.timeout_ms < 1 ||
        o.nodes < 2 || o.nodes > MAX_NODES)
        die(1, "need 1 <= -P <= %u, 1 <= -C <= %u, -n >= 1, 32 <= -S <= 64M, -T >= 1, 2 <= -N <= %u",
            (unsigned)QRDMA_NUM_PAGES, (unsigned)QRDMA_WR_CH_PER_PAGE / 2, (unsigned)MAX_NODES);
    g.n = o.nodes;
    for (unsigned n = 0; n < g.n; n++)
        if (o.ring[n] < 1 || o.ring[n] > (1u << 16) || (o.ring[n] & (o.ring[n] - 1)) || o.drain[n] < 1)
            die(1, "ring entries must be powers of 2 >= 1 and drain intervals >= 1");
    g.rng = o.seed * 0x9E3779B97F4A7C15ULL + 1;
    g.max_size = o.max_size;

    int e = qrdma_tool_backend_open(o.spec, &g.be);
    if (e)
        die(3, "backend: %s", qrdma_strerror(e));
    if (g.be->num_nodes < g.n)
        die(1, "the backend has %u node(s); -N is %u", g.be->num_nodes, g.n);
    for (unsigned n = 0; n < g.n; n++) {
        if ((e = qrdma_open(g.be, n, &g.node[n])))
            die(3, "open node %u: %s", n, qrdma_strerror(e));
        /* development mode (docs/protection.md): the stress writes carry no key */
        if ((e = qrdma_prot_open(g.node[n], 1)))
            die(3, "node %u: development mode: %s", n, qrdma_strerror(e));
        if ((e = qrdma_nq_setup(g.node[n], (uint32_t)o.ring[n])))
            die(3, "node %u: notification ring: %s", n, qrdma_strerror(e));
        if (o.retx_timeout &&
            ((e = qrdma_reg_write(g.node[n], QRDMA_REG(nic.RETX_TIMEOUT), o.retx_timeout)) ||
             (e = qrdma_reg_write(g.node[n], QRDMA_REG(nic.RETRY_LIMIT),
                                  o.retries << QRDMA_NIC_CSR__RETRY_LIMIT__RETRIES_bp |
                                  3u << QRDMA_NIC_CSR__RETRY_LIMIT__BACKOFF_bp))))
            die(3, "node %u: -R: %s", n, qrdma_strerror(e));
    }

    /* memory: every slot has its source on its node and its destination on its peer: of
     * two nodes, slot j's at j; of more, the destinations of node n's slots at
     * n * per_node + j */
    g.stride = (o.max_size + GUARD + SLOT_ALIGN - 1) / SLOT_ALIGN * SLOT_ALIGN;
    unsigned per_node = o.pages * o.slots;
    unsigned dst_slots = g.n == 2 ? per_node : g.n * per_node;
    g.nslots = g.n * per_node;
    g.slot = calloc(g.nslots, sizeof *g.slot);
    if (!g.slot)
        die(3, "out of memory");
    for (unsigned n = 0; n < g.n; n++) {
        if ((e = qrdma_buf_alloc(g.node[n], per_node * g.stride, SLOT_ALIGN, &g.src[n])) ||
            (e = qrdma_buf_alloc(g.node[n], dst_slots * g.stride, SLOT_ALIGN, &g.dst[n])))
            die(3, "node %u: %" PRIu64 " + %" PRIu64 " bytes of host memory: %s (use -B mem=...)", n,
                per_node * g.stride, dst_slots * g.stride, qrdma_strerror(e));
        memset(g.dst[n].cpu, 0xA5, g.dst[n].size);
    }
    for (unsigned n = 0; n < g.n; n++)
        for (unsigned p = 0; p < o.pages; p++) {
            if ((e = qrdma_page_claim(g.node[n], (int)p, &g.pg[n][p])))
                die(3, "node %u: claim page %u: %s", n, p, qrdma_strerror(e));
            for (unsigned k = 0; k < o.slots; k++) {
                int ch = qrdma_chan_alloc(g.pg[n][p], 2);
                if (ch < 0)
                    die(3, "node %u page %u: channel pair: %s", n, p, qrdma_strerror(ch));
                unsigned i = n * per_node + p * o.slots + k, j = p * o.slots + k;
                unsigned peer = g.n == 2 ? n ^ 1u : (n + 1 + j % (g.n - 1)) % g.n;
                uint64_t d = (g.n == 2 ? j : n * per_node + j) * g.stride;
                g.slot[i] = (struct slot){
                    .node = n, .page = p, .ch = (unsigned)ch, .peer = peer,
                    .src_dev = g.src[n].dev + j * g.stride, .dst_dev = g.dst[peer].dev + d,
                    .src = (uint8_t *)g.src[n].cpu + j * g.stride, .dst = (uint8_t *)g.dst[peer].cpu + d,
                };
            }
        }
    uint64_t t0 = qrdma_now(g.node[0]);
    for (unsigned n = 0; n < g.n; n++)
        g.next_drain[n] = t0 + rnd_range(o.drain[n] / 2, o.drain[n] + o.drain[n] / 2);
    /* every slot of every node posts at once, alternating between the nodes */
    for (unsigned k = 0; k < per_node; k++)
        for (unsigned n = 0; n < g.n; n++)
            post(&g.slot[n * per_node + k]);
    uint64_t t_posted = qrdma_now(g.node[0]);

    const uint64_t timeout = o.timeout_ms * (g.be->tick_hz / 1000);
    uint64_t last = qrdma_now(g.node[0]);
    while (!all_done(o.rounds)) {
        int progress = 0;
        for (unsigned n = 0; n < g.n; n++) {
            uint64_t now = qrdma_now(g.node[0]);
            if (now >= g.next_drain[n]) {
                uint64_t before = g.ntf_seen[n];
                drain(n);
                progress |= g.ntf_seen[n] != before;
                g.next_drain[n] = now + rnd_range(o.drain[n] / 2, o.drain[n] + o.drain[n] / 2);
            }
            if (now >= g.next_poll[n]) {
                progress |= poll_node(n, o.rounds);
                g.next_poll[n] = now + o.poll_gap;
            }
        }
        uint64_t now = qrdma_now(g.node[0]);
        if (progress)
            last = now;
        else if (now - last > timeout) {
            unsigned busy = 0, owed = 0;
            for (unsigned i = 0; i < g.nslots; i++) {
                busy += g.slot[i].busy;
                owed += g.slot[i].owed_n;
            }
            fprintf(stderr, "qrdma-stress: no progress for %" PRIu64 " ms at cycle %" PRIu64 ": %u of %u transfers"
                            " in flight, %u notifications owed; counters:\n",
                    o.timeout_ms, now, busy, g.nslots, owed);
            report_counters(stderr, "  ");
            die(3, "timeout");
        } else if (g.be->idle)
            g.be->idle(g.be->ctx, 0);
    }
    uint64_t t1 = qrdma_now(g.node[0]);

    /* the guard bytes after each slot's largest possible transfer are never written */
    for (unsigned n = 0; n < g.n; n++) {
        const uint8_t *d = g.dst[n].cpu;
        for (unsigned j = 0; j < dst_slots; j++)
            for (uint64_t b = g.stride - GUARD; b < g.stride; b++)
                if (d[j * g.stride + b] != 0xA5)
                    die(2, "node %u: byte written in the guard after destination slot %u", n, j);
    }

    printf("qrdma-stress: seed %" PRIu64 ": %" PRIu64 " transfers (%" PRIu64 " inline, %" PRIu64 " with notification, %"
           PRIu64 " multipath, %" PRIu64 " with 64-byte descriptors), %" PRIu64 " bytes, all exact; %" PRIu64
           " cycles (posting %" PRIu64 ")\n",
           o.seed, g.transfers, g.inl, g.notify, g.multipath, g.long_desc, g.bytes, t1 - t0, t_posted - t0);
    printf("  registered writes %" PRIu64 ", early notifications %" PRIu64 "\n", g.registered, g.early);
    printf("  notifications taken:");
    for (unsigned n = 0; n < g.n; n++)
        printf("%s node %u %" PRIu64 " (%" PRIu64 " drains, largest %" PRIu64 ")", n ? "," : "", n, g.ntf_seen[n],
               g.ntf_drains[n], g.ntf_max_batch[n]);
    printf("\n");
    if (o.json) {
        FILE *f = fopen(o.json, "w");
        if (!f)
            die(3, "cannot write %s: %s", o.json, strerror(errno));
        fprintf(f, "{\n  \"tool\": \"qrdma-stress\",\n  \"seed\": %" PRIu64 ",\n  \"nodes\": %u,\n"
                   "  \"pages\": %u,\n  \"slots\": %u,\n  \"rounds\": %u,\n  \"max_size\": %" PRIu64 ",\n",
                o.seed, g.n, o.pages, o.slots, o.rounds, o.max_size);
        fprintf(f, "  \"ring\": [");
        for (unsigned n = 0; n < g.n; n++)
            fprintf(f, "%s%" PRIu64, n ? ", " : "", o.ring[n]);
        fprintf(f, "],\n  \"drain\": [");
        for (unsigned n = 0; n < g.n; n++)
            fprintf(f, "%s%" PRIu64, n ? ", " : "", o.drain[n]);
        fprintf(f, "],\n");
        fprintf(f, "  \"transfers\": %" PRIu64 ",\n  \"bytes\": %" PRIu64 ",\n  \"cycles\": %" PRIu64
                   ",\n  \"registered\": %" PRIu64 ",\n  \"early_notifications\": %" PRIu64
                   ",\n  \"counters\": {\n",
                g.transfers, g.bytes, t1 - t0, g.registered, g.early);
        report_counters(f, "    ");
        fprintf(f, "  }\n}\n");
        fclose(f);
    }
    for (unsigned n = 0; n < g.n; n++)
        qrdma_close(g.node[n]);
    qrdma_backend_close(g.be);
    return 0;
}
