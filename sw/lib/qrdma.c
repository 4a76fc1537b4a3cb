/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * libqrdma: the user API of qrdma.h on top of a backend (qrdma_backend.h). Descriptors
 * are built field by field from the layouts of qrdma_fmt.h (tools/formats.py) and written
 * with one backend desc_write; status polls are single 64-bit reads (reset-on-read,
 * docs/qos.md "Status and polling"); the notification ring follows docs/nic.md
 * ("Completion notification") and the notif_entry layout.
 */
#include "qrdma.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "libqrdma builds descriptors in little-endian memory order: little-endian hosts only"
#endif

/* ----------------------------------------------------------------- layout facts used below */
#define LINE_BYTES ((size_t)QRDMA_DESC_LINE_BYTES)
#define STATUS_BYTES (QRDMA_STATUS_SINGLE_BITS / 8)
/* channels per collective read: one 64-bit word of 2-bit states */
#define COLL_CH (QRDMA_STATUS_SINGLE_BITS / QRDMA_STATUS_SINGLE_STATUS_W)
#define COLL_GROUPS (QRDMA_CH_PER_PAGE / COLL_CH)
#define NCH ((unsigned)QRDMA_CH_PER_PAGE)       /* channels of a page: write, then read */
#define NWCH ((unsigned)QRDMA_WR_CH_PER_PAGE)   /* write channels 0..NWCH-1 */
#define NOTIF_BYTES (QRDMA_NOTIF_ENTRY_BITS / 8)

_Static_assert(QRDMA_DESC_LINE0_BITS == 8 * QRDMA_DESC_LINE_BYTES, "line 0 is one line");
_Static_assert(QRDMA_DESC_LINE1_BITS == 8 * QRDMA_DESC_LINE_BYTES, "line 1 is one line");
_Static_assert(QRDMA_DESC_LINE0_SRC_ADDR_W == 8 * QRDMA_INLINE_SHORT_MAX,
               "short inline payload fills src_addr");
_Static_assert(QRDMA_DESC_LINE1_INLINE_HI_W == 8 * (QRDMA_INLINE_MAX - QRDMA_INLINE_SHORT_MAX),
               "inline_hi holds the rest of the inline payload");
_Static_assert(QRDMA_DESC_LINE0_SIZE_W > 32, "size holds 2^32");
_Static_assert(QRDMA_CH_PER_PAGE == 128 && QRDMA_WR_CH_PER_PAGE == 64,
               "a page's channels fit a two-word bitmap (chset), write channels in word 0");
_Static_assert(QRDMA_WR_CH_PER_PAGE % COLL_CH == 0 && QRDMA_CH_PER_PAGE % COLL_CH == 0,
               "whole collective groups");
_Static_assert(QRDMA_DESC_LINE1_LKEY_W == 32, "lkey is 32 bits");
_Static_assert(QRDMA_NOTIF_ENTRY_MARKER_LSB == 0 && QRDMA_NOTIF_ENTRY_MARKER_W == 8,
               "the marker is byte 0 of an entry");
_Static_assert(QRDMA_ENG_CSR__ID__MAGIC_bw <= 32 && QRDMA_ENG_CSR__ID__VERSION_bw <= 32, "ID fields");
_Static_assert(QRDMA_STAMP_W == 16 && QRDMA_NOTIF_ENTRY_T_POST_W == QRDMA_STAMP_W
               && QRDMA_NOTIF_ENTRY_T_SEND_W == QRDMA_STAMP_W && QRDMA_NOTIF_ENTRY_T_RECV_W == QRDMA_STAMP_W
               && QRDMA_NOTIF_ENTRY_T_DONE_W == QRDMA_STAMP_W, "a stamp fits a uint16_t of struct qrdma_notif");
_Static_assert(QRDMA_NOTIF_ENTRY_T_SW_W == 4 * QRDMA_STAMP_W && QRDMA_STAMP_HOPS_MAX == 2,
               "t_sw: an arrival and a departure per switch, 2 switches (struct qrdma_notif t_sw[4])");
_Static_assert((1u << QRDMA_NOTIF_ENTRY_HOPS_W) > QRDMA_STAMP_HOPS_MAX, "hops holds 0..HOPS_MAX");

/* A field of register value v: F is its qrdma_regs.h prefix, e.g. FIELD(id, QRDMA_ENG_CSR__ID__MAGIC). */
#define FIELD(v, F) reg_field(v, F##_bp, F##_bw)

/* ----------------------------------------------------------------- bit fields */
/* qrdma_put_bits / qrdma_get_bits: qrdma_fmt.h (generated with the layouts). */
static uint64_t reg_field(uint64_t v, unsigned lsb, unsigned width)
{
    return width >= 64 ? v >> lsb : (v >> lsb) & ((1ULL << width) - 1);
}

#define L0(f) QRDMA_DESC_LINE0_##f##_LSB, QRDMA_DESC_LINE0_##f##_W
#define L1(f) QRDMA_DESC_LINE1_##f##_LSB, QRDMA_DESC_LINE1_##f##_W
#define NE(f) QRDMA_NOTIF_ENTRY_##f##_LSB, QRDMA_NOTIF_ENTRY_##f##_W

/* ----------------------------------------------------------------- channel sets */
/* A set of a page's channels: channel c is bit c % 64 of word c / 64. */
typedef struct {
    uint64_t w[2];
} chset;

static int cs_has(const chset *s, unsigned c) { return (int)(s->w[c >> 6] >> (c & 63) & 1); }
static void cs_add(chset *s, unsigned c) { s->w[c >> 6] |= 1ULL << (c & 63); }
static void cs_del(chset *s, unsigned c) { s->w[c >> 6] &= ~(1ULL << (c & 63)); }
static int cs_any(const chset *s) { return (s->w[0] | s->w[1]) != 0; }

/* ----------------------------------------------------------------- state */
struct qrdma_page {
    qrdma_node *node;
    unsigned index;
    int claimed;
    chset alloc;       /* allocated channels (both channels of a pair) */
    chset pair;        /* c: c is the first channel of a pair */
    chset inflight;    /* posted, not yet seen DONE / ERROR */
    chset post_err;    /* the post returned an error: an IDLE answer clears it too */
    int core;          /* the CPU core bound to the page (qrdma_page_bind_core), -1: none */
    int rd_state;      /* qrdma_poll_coll_start: 0 none, 1 read pending on the core, 2 answer held */
    unsigned rd_group; /* its group */
    int rd_err;        /* rd_state 2: the blocking read's result */
    uint64_t rd_val;
};

struct qrdma_node {
    struct qrdma_backend *be;
    unsigned idx;
    struct qrdma_info info;
    struct qrdma_page pages[QRDMA_NUM_PAGES];
    int nq_on;
    struct qrdma_buf nq;
    uint32_t nq_size;
    uint32_t nq_tail;
    uint8_t *win_tag;    /* per window table entry: its last tag (0: never used) */
    uint8_t *win_used;   /* per entry: registered */
    uint32_t tag_rng;    /* xorshift state of the tags */
};

const char *qrdma_strerror(int err)
{
    switch (err) {
    case QRDMA_OK: return "success";
    case QRDMA_EINVAL: return "invalid argument";
    case QRDMA_ESIZE: return "transfer size 0 or above 4 GiB";
    case QRDMA_EINLINE: return "inline payload length 0 or above 32 bytes";
    case QRDMA_EBUSY: return "channel busy (transfer in flight)";
    case QRDMA_ECHAN: return "channel not allocated, or a 64-byte descriptor needs a channel pair";
    case QRDMA_ENOPAGE: return "page taken or no free page";
    case QRDMA_ENOCHAN: return "no free channel";
    case QRDMA_ENOMEM: return "out of memory";
    case QRDMA_EIO: return "backend I/O error";
    case QRDMA_ESLVERR: return "device refused the access (SLVERR)";
    case QRDMA_ENODEV: return "not a qrdma device (ID magic)";
    case QRDMA_EVERSION: return "device format version differs from the library's";
    case QRDMA_ETIMEDOUT: return "timed out";
    case QRDMA_ENOTIF: return "notification ring not configured";
    case QRDMA_ENONODE: return "no such node in the backend";
    default: return "unknown error";
    }
}

/* ----------------------------------------------------------------- node */
static int rd(qrdma_node *n, uint64_t addr, uint64_t *v)
{
    return n->be->mmio_read64(n->be->ctx, n->idx, addr, v);
}

static int wr(qrdma_node *n, uint64_t addr, uint64_t v)
{
    return n->be->mmio_write64(n->be->ctx, n->idx, addr, v);
}

static void idle(qrdma_node *n)
{
    if (n->be->idle)
        n->be->idle(n->be->ctx, n->idx);
}

int qrdma_open(struct qrdma_backend *be, unsigned node_index, qrdma_node **out)
{
    if (!be || !out || !be->mmio_read64 || !be->mmio_write64 || !be->desc_write || !be->now)
        return QRDMA_EINVAL;
    if (be->abi != QRDMA_BACKEND_ABI)
        return QRDMA_EVERSION;
    if (node_index >= be->num_nodes)
        return QRDMA_ENONODE;
    qrdma_node *n = calloc(1, sizeof *n);
    if (!n)
        return QRDMA_ENOMEM;
    n->be = be;
    n->idx = node_index;
    uint64_t id, params, node_id;
    int e = rd(n, QRDMA_REG(eng.ID), &id);
    if (!e && FIELD(id, QRDMA_ENG_CSR__ID__MAGIC) != QRDMA_ID_MAGIC)
        e = QRDMA_ENODEV;
    if (!e && FIELD(id, QRDMA_ENG_CSR__ID__VERSION) != QRDMA_FORMAT_VERSION)
        e = QRDMA_EVERSION;
    if (!e)
        e = rd(n, QRDMA_REG(eng.PARAMS), &params);
    if (!e)
        e = rd(n, QRDMA_REG(nic.NODE_ID), &node_id);
    /* the nodes of the system are the ones the NIC may send to (docs/reliability.md) */
    if (!e)
        e = wr(n, QRDMA_REG(nic.NODE_MASK),
               be->num_nodes >= 64 ? ~0ULL : (1ULL << be->num_nodes) - 1);
    if (e) {
        free(n);
        return e;
    }
    n->info.version = (uint32_t)FIELD(id, QRDMA_ENG_CSR__ID__VERSION);
    n->info.node_id = (uint16_t)node_id;
    unsigned bl2 = (unsigned)FIELD(params, QRDMA_ENG_CSR__PARAMS__BLOCK_LOG2);
    n->info.block_size = bl2 < 32 ? 1u << bl2 : 0;
    n->info.max_outstanding = (uint32_t)FIELD(params, QRDMA_ENG_CSR__PARAMS__MAX_OUTSTANDING);
    n->info.host_data_w = (uint32_t)FIELD(params, QRDMA_ENG_CSR__PARAMS__DATA_W);
    unsigned mp2 = (unsigned)FIELD(params, QRDMA_ENG_CSR__PARAMS__MAX_PAYLOAD_LOG2);
    unsigned nn2 = (unsigned)FIELD(params, QRDMA_ENG_CSR__PARAMS__NODES_LOG2);
    n->info.max_payload = mp2 < 32 ? 1u << mp2 : 0;
    n->info.num_nodes = nn2 < 32 ? 1u << nn2 : 0;
    unsigned pw2 = (unsigned)FIELD(params, QRDMA_ENG_CSR__PARAMS__PROT_WINDOWS_LOG2);
    n->info.prot_windows = pw2 < 17 ? 1u << pw2 : 0;
    n->win_tag = calloc(n->info.prot_windows ? n->info.prot_windows : 1, 1);
    n->win_used = calloc(n->info.prot_windows ? n->info.prot_windows : 1, 1);
    if (!n->win_tag || !n->win_used) {
        free(n->win_tag);
        free(n->win_used);
        free(n);
        return QRDMA_ENOMEM;
    }
    n->tag_rng = (uint32_t)(qrdma_now(n) ^ ((uintptr_t)n >> 4) ^ 0x9E3779B9u) | 1u;
    for (unsigned p = 0; p < QRDMA_NUM_PAGES; p++) {
        n->pages[p].node = n;
        n->pages[p].index = p;
    }
    *out = n;
    return QRDMA_OK;
}

void qrdma_close(qrdma_node *n)
{
    if (!n)
        return;
    if (n->nq_on)
        qrdma_nq_teardown(n);
    free(n->win_tag);
    free(n->win_used);
    free(n);
}

const struct qrdma_info *qrdma_node_info(const qrdma_node *n) { return &n->info; }
struct qrdma_backend *qrdma_node_backend(const qrdma_node *n) { return n->be; }
unsigned qrdma_node_index(const qrdma_node *n) { return n->idx; }
uint64_t qrdma_now(const qrdma_node *n) { return n->be->now(n->be->ctx); }

double qrdma_ticks_to_ns(const qrdma_node *n, uint64_t ticks)
{
    return (double)ticks * 1e9 / (double)n->be->tick_hz;
}

int qrdma_buf_alloc(qrdma_node *n, size_t size, size_t align, struct qrdma_buf *buf)
{
    if (!n || !buf || size == 0)
        return QRDMA_EINVAL;
    if (align == 0)
        align = 64;
    if (align & (align - 1))
        return QRDMA_EINVAL;
    if (align < 64)
        align = 64;
    if (!n->be->mem_alloc)
        return QRDMA_ENOMEM;
    return n->be->mem_alloc(n->be->ctx, n->idx, size, align, buf);
}

void qrdma_buf_free(qrdma_node *n, struct qrdma_buf *buf)
{
    if (n && buf && buf->cpu && n->be->mem_free)
        n->be->mem_free(n->be->ctx, buf);
    if (buf)
        memset(buf, 0, sizeof *buf);
}

/* ----------------------------------------------------------------- pages, channels */
int qrdma_page_claim(qrdma_node *n, int page, qrdma_page **out)
{
    if (!n || !out || page < QRDMA_PAGE_ANY || page >= (int)QRDMA_NUM_PAGES)
        return QRDMA_EINVAL;
    unsigned lo = page == QRDMA_PAGE_ANY ? 0 : (unsigned)page;
    unsigned hi = page == QRDMA_PAGE_ANY ? (unsigned)QRDMA_NUM_PAGES : (unsigned)page + 1;
    for (unsigned p = lo; p < hi; p++) {
        struct qrdma_page *pg = &n->pages[p];
        if (!pg->claimed) {
            pg->claimed = 1;
            memset(&pg->alloc, 0, sizeof pg->alloc);
            memset(&pg->pair, 0, sizeof pg->pair);
            memset(&pg->inflight, 0, sizeof pg->inflight);
            memset(&pg->post_err, 0, sizeof pg->post_err);
            pg->core = -1;
            pg->rd_state = 0;
            *out = pg;
            return QRDMA_OK;
        }
    }
    return QRDMA_ENOPAGE;
}

int qrdma_page_release(qrdma_page *p)
{
    if (!p || !p->claimed)
        return QRDMA_EINVAL;
    if (cs_any(&p->inflight) || p->rd_state)
        return QRDMA_EBUSY;
    p->claimed = 0;
    memset(&p->alloc, 0, sizeof p->alloc);
    memset(&p->pair, 0, sizeof p->pair);
    return QRDMA_OK;
}

unsigned qrdma_page_index(const qrdma_page *p) { return p->index; }

/* The backend models CPU cores (qrdma_backend.h "Cores"). */
static int has_cores(const struct qrdma_backend *be)
{
    return be->num_cores && be->core_desc_write && be->core_read_start && be->core_read_end;
}

/* Is the page driven through the backend's core calls? */
static int page_on_core(const qrdma_page *p)
{
    return p->core >= 0 && has_cores(p->node->be);
}

int qrdma_page_bind_core(qrdma_page *p, int core)
{
    if (!p || !p->claimed || core < -1)
        return QRDMA_EINVAL;
    if (p->rd_state)
        return QRDMA_EBUSY;
    const struct qrdma_backend *be = p->node->be;
    if (core >= 0 && has_cores(be) && (unsigned)core >= be->num_cores)
        return QRDMA_EINVAL;
    p->core = core;
    return QRDMA_OK;
}

int qrdma_page_core(const qrdma_page *p) { return p->core; }

unsigned qrdma_num_cores(const qrdma_node *n) { return has_cores(n->be) ? n->be->num_cores : 0; }
qrdma_node *qrdma_page_node(const qrdma_page *p) { return p->node; }

/* The lowest free channel (width 1) or even pair (width 2) in lo .. hi-1. */
static int chan_alloc_in(qrdma_page *p, unsigned width, unsigned lo, unsigned hi)
{
    if (!p || !p->claimed || (width != 1 && width != 2))
        return QRDMA_EINVAL;
    for (unsigned c = lo; c + width <= hi; c += width) {
        if (cs_has(&p->alloc, c) || (width == 2 && cs_has(&p->alloc, c + 1)))
            continue;
        for (unsigned k = c; k < c + width; k++) {
            cs_add(&p->alloc, k);
            cs_del(&p->inflight, k);
            cs_del(&p->post_err, k);
        }
        if (width == 2)
            cs_add(&p->pair, c);
        return (int)c;
    }
    return QRDMA_ENOCHAN;
}

int qrdma_chan_alloc(qrdma_page *p, unsigned width)
{
    return chan_alloc_in(p, width, 0, NWCH);
}

int qrdma_chan_alloc_read(qrdma_page *p, unsigned width)
{
    return chan_alloc_in(p, width, NWCH, NCH);
}

/* Is c a channel the application may post on (allocated, not the second of a pair)? */
static int chan_ok(const qrdma_page *p, unsigned ch)
{
    if (!p || !p->claimed || ch >= NCH || !cs_has(&p->alloc, ch))
        return 0;
    if (ch & 1 && cs_has(&p->pair, ch - 1))
        return 0;
    return 1;
}

int qrdma_chan_free(qrdma_page *p, unsigned ch)
{
    if (!p || !p->claimed)
        return QRDMA_EINVAL;
    if (!chan_ok(p, ch))
        return QRDMA_ECHAN;
    if (cs_has(&p->inflight, ch))
        return QRDMA_EBUSY;
    if (cs_has(&p->pair, ch))
        cs_del(&p->alloc, ch + 1);
    cs_del(&p->alloc, ch);
    cs_del(&p->pair, ch);
    return QRDMA_OK;
}

int qrdma_chan_forget(qrdma_page *p, unsigned ch)
{
    if (!chan_ok(p, ch))
        return QRDMA_ECHAN;
    cs_del(&p->inflight, ch);
    cs_del(&p->post_err, ch);
    return QRDMA_OK;
}

/* ----------------------------------------------------------------- descriptors */
#define CLUSTER_FLAGS (QRDMA_WR_HOLD | QRDMA_WR_START)
#define WR_FLAGS_ALL (QRDMA_WR_NOTIFY | QRDMA_WR_MULTIPATH | QRDMA_WR_REGISTERED | CLUSTER_FLAGS)
_Static_assert(QRDMA_RD_HOLD == QRDMA_WR_HOLD && QRDMA_RD_START == QRDMA_WR_START,
               "one cluster flag pair for writes and reads");

static void line0_cluster(uint8_t *l0, uint32_t flags)
{
    qrdma_put_bits(l0, L0(HOLD), (flags & QRDMA_WR_HOLD) != 0);
    qrdma_put_bits(l0, L0(START), (flags & QRDMA_WR_START) != 0);
}

static void line0_common(uint8_t *l0, const struct qrdma_write *wr)
{
    qrdma_put_bits(l0, L0(DST_ADDR), wr->dst_addr);
    qrdma_put_bits(l0, L0(DST_NODE), wr->dst_node);
    qrdma_put_bits(l0, L0(PRIO), wr->prio);
    qrdma_put_bits(l0, L0(NOTIFY), (wr->flags & QRDMA_WR_NOTIFY) != 0);
    qrdma_put_bits(l0, L0(TAG), wr->tag);
    line0_cluster(l0, wr->flags);
}

int qrdma_desc_build_write(const struct qrdma_write *wr, uint8_t out[64], size_t *len)
{
    if (!wr || !out || !len)
        return QRDMA_EINVAL;
    if (wr->size == 0 || wr->size > QRDMA_MAX_TRANSFER_BYTES)
        return QRDMA_ESIZE;
    if (wr->prio >> QRDMA_DESC_LINE0_PRIO_W || wr->flags & ~WR_FLAGS_ALL)
        return QRDMA_EINVAL;
    int lng = wr->rkey != 0;
    memset(out, 0, 2 * LINE_BYTES);
    line0_common(out, wr);
    qrdma_put_bits(out, L0(SRC_ADDR), wr->src_addr);
    qrdma_put_bits(out, L0(SIZE), wr->size);
    qrdma_put_bits(out, L0(MULTIPATH), (wr->flags & QRDMA_WR_MULTIPATH) != 0);
    qrdma_put_bits(out, L0(REGISTERED), (wr->flags & QRDMA_WR_REGISTERED) != 0);
    qrdma_put_bits(out, L0(LONG_DESC), (uint64_t)lng);
    if (lng)
        qrdma_put_bits(out + LINE_BYTES, L1(RKEY), wr->rkey);
    *len = lng ? 2 * LINE_BYTES : LINE_BYTES;
    return QRDMA_OK;
}

int qrdma_desc_build_inline(const struct qrdma_write *wr, const void *data, size_t len_inline,
                            uint8_t out[64], size_t *len)
{
    if (!wr || !out || !len || (!data && len_inline))
        return QRDMA_EINVAL;
    if (len_inline == 0 || len_inline > QRDMA_INLINE_MAX)
        return QRDMA_EINLINE;
    if (wr->prio >> QRDMA_DESC_LINE0_PRIO_W || wr->flags & ~(uint32_t)(QRDMA_WR_NOTIFY | CLUSTER_FLAGS))
        return QRDMA_EINVAL;
    const uint8_t *d = data;
    int lng = len_inline > QRDMA_INLINE_SHORT_MAX || wr->rkey != 0;
    memset(out, 0, 2 * LINE_BYTES);
    line0_common(out, wr);
    qrdma_put_bits(out, L0(SIZE), len_inline);
    qrdma_put_bits(out, L0(IS_INLINE), 1);
    qrdma_put_bits(out, L0(LONG_DESC), (uint64_t)lng);
    for (size_t k = 0; k < len_inline; k++) {
        if (k < QRDMA_INLINE_SHORT_MAX)
            qrdma_put_bits(out, QRDMA_DESC_LINE0_SRC_ADDR_LSB + 8 * (unsigned)k, 8, d[k]);
        else
            qrdma_put_bits(out + LINE_BYTES,
                     QRDMA_DESC_LINE1_INLINE_HI_LSB + 8 * (unsigned)(k - QRDMA_INLINE_SHORT_MAX), 8, d[k]);
    }
    if (wr->rkey)
        qrdma_put_bits(out + LINE_BYTES, L1(RKEY), wr->rkey);
    *len = lng ? 2 * LINE_BYTES : LINE_BYTES;
    return QRDMA_OK;
}

int qrdma_desc_build_read(const struct qrdma_read *rd, uint8_t out[64], size_t *len)
{
    if (!rd || !out || !len)
        return QRDMA_EINVAL;
    if (rd->size == 0 || rd->size > QRDMA_MAX_TRANSFER_BYTES)
        return QRDMA_ESIZE;
    if (rd->prio >> QRDMA_DESC_LINE0_PRIO_W || rd->flags & ~(uint32_t)(QRDMA_RD_MULTIPATH | CLUSTER_FLAGS))
        return QRDMA_EINVAL;
    int lng = rd->rkey != 0 || rd->lkey != 0;
    memset(out, 0, 2 * LINE_BYTES);
    /* is_inline and notify stay 0 (a read with either is refused, docs/qos.md D7) */
    qrdma_put_bits(out, L0(SRC_ADDR), rd->src_addr);
    qrdma_put_bits(out, L0(DST_ADDR), rd->dst_addr);
    qrdma_put_bits(out, L0(SIZE), rd->size);
    qrdma_put_bits(out, L0(DST_NODE), rd->src_node);
    qrdma_put_bits(out, L0(PRIO), rd->prio);
    qrdma_put_bits(out, L0(MULTIPATH), (rd->flags & QRDMA_RD_MULTIPATH) != 0);
    qrdma_put_bits(out, L0(LONG_DESC), (uint64_t)lng);
    qrdma_put_bits(out, L0(TAG), rd->tag);
    line0_cluster(out, rd->flags);
    if (lng) {
        qrdma_put_bits(out + LINE_BYTES, L1(RKEY), rd->rkey);
        qrdma_put_bits(out + LINE_BYTES, L1(LKEY), rd->lkey);
    }
    *len = lng ? 2 * LINE_BYTES : LINE_BYTES;
    return QRDMA_OK;
}

static uint64_t page_base(const qrdma_page *p)
{
    return (uint64_t)p->index * QRDMA_PAGE_STRIDE;
}

/* Post descriptor bytes on channel ch, a read channel (read) or a write channel. */
static int post(qrdma_page *p, unsigned ch, int read, const uint8_t *desc, size_t len)
{
    if (!chan_ok(p, ch) || (ch >= NWCH) != (read != 0))
        return QRDMA_ECHAN;
    if (len > LINE_BYTES && !cs_has(&p->pair, ch))
        return QRDMA_ECHAN;
    if (cs_has(&p->inflight, ch) || p->rd_state)
        return QRDMA_EBUSY;
    qrdma_node *n = p->node;
    uint64_t addr = page_base(p) + QRDMA_DESC_OFFSET + LINE_BYTES * ch;
    int e = page_on_core(p) ? n->be->core_desc_write(n->be->ctx, n->idx, (unsigned)p->core, addr, desc, len)
                            : n->be->desc_write(n->be->ctx, n->idx, addr, desc, len);
    cs_add(&p->inflight, ch);
    if (e)
        cs_add(&p->post_err, ch);
    return e;
}

int qrdma_post_write(qrdma_page *p, unsigned ch, const struct qrdma_write *wr)
{
    _Alignas(64) uint8_t d[64];
    size_t len;
    if (!p)
        return QRDMA_EINVAL;
    int e = qrdma_desc_build_write(wr, d, &len);
    return e ? e : post(p, ch, 0, d, len);
}

int qrdma_post_inline(qrdma_page *p, unsigned ch, const struct qrdma_write *wr,
                      const void *data, size_t len_inline)
{
    _Alignas(64) uint8_t d[64];
    size_t len;
    if (!p)
        return QRDMA_EINVAL;
    int e = qrdma_desc_build_inline(wr, data, len_inline, d, &len);
    return e ? e : post(p, ch, 0, d, len);
}

int qrdma_post_read(qrdma_page *p, unsigned ch, const struct qrdma_read *rd)
{
    _Alignas(64) uint8_t d[64];
    size_t len;
    int e = p ? qrdma_desc_build_read(rd, d, &len) : QRDMA_EINVAL;
    return e ? e : post(p, ch, 1, d, len);
}

/* ----------------------------------------------------------------- completion */
/* A read of the page's window: from its core when it is bound to one (start, then wait for
 * the answer with the idle hook between tries), else a plain blocking read. */
static int page_rd(qrdma_page *p, uint64_t addr, uint64_t *v)
{
    qrdma_node *n = p->node;
    if (p->rd_state)
        return QRDMA_EBUSY;
    if (!page_on_core(p))
        return rd(n, addr, v);
    int e = n->be->core_read_start(n->be->ctx, n->idx, (unsigned)p->core, addr);
    if (e)
        return e;
    for (;;) {
        int r = n->be->core_read_end(n->be->ctx, n->idx, (unsigned)p->core, v);
        if (r)
            return r < 0 ? r : QRDMA_OK;
        idle(n);
    }
}

/* What a status answer `st` means for the library's view of channel ch. */
static void seen(qrdma_page *p, unsigned ch, unsigned st)
{
    if (st == QRDMA_ST_DONE || st == QRDMA_ST_ERROR || (st == QRDMA_ST_IDLE && cs_has(&p->post_err, ch))) {
        cs_del(&p->inflight, ch);
        cs_del(&p->post_err, ch);
    }
}

int qrdma_poll(qrdma_page *p, unsigned ch)
{
    if (!p || !p->claimed || ch >= NCH)
        return QRDMA_EINVAL;
    uint64_t v;
    int e = page_rd(p, page_base(p) + QRDMA_STATUS_OFFSET + STATUS_BYTES * ch, &v);
    if (e)
        return e;
    unsigned st = (unsigned)reg_field(v, QRDMA_STATUS_SINGLE_STATUS_LSB, QRDMA_STATUS_SINGLE_STATUS_W);
    seen(p, ch, st);
    return (int)st;
}

int qrdma_chan_error(qrdma_page *p, unsigned ch)
{
    if (!p || !p->claimed || ch >= NCH)
        return QRDMA_EINVAL;
    uint64_t v;
    int e = page_rd(p, page_base(p) + QRDMA_ERR_OFFSET + 8 * ch, &v);
    if (e)
        return e;
    return (int)reg_field(v, QRDMA_ERR_INFO_REASON_LSB, QRDMA_ERR_INFO_REASON_W);
}

const char *qrdma_err_reason_str(int reason)
{
    switch (reason) {
    case QRDMA_ERR_NONE: return "no error";
    case QRDMA_ERR_BAD_DESC: return "descriptor refused";
    case QRDMA_ERR_LOCAL_MEM: return "local memory read refused (SLVERR/DECERR)";
    case QRDMA_ERR_REMOTE_MEM: return "remote memory write refused (NACK)";
    case QRDMA_ERR_TIMEOUT: return "no response from the destination (timeout)";
    case QRDMA_ERR_UNREACHABLE: return "destination not reachable";
    case QRDMA_ERR_REMOTE_ACCESS: return "remote access refused: no window with that key permits the access (NACK)";
    default: return "unknown reason";
    }
}

/* What a collective answer v of group g says (seen() on each of its channels). */
static void coll_decode(qrdma_page *p, unsigned group, uint64_t v, struct qrdma_coll *out)
{
    out->raw = v;
    out->done = out->error = out->busy = 0;
    for (unsigned i = 0; i < COLL_CH; i++) {
        unsigned st = (unsigned)(v >> (QRDMA_STATUS_SINGLE_STATUS_W * i)) & 3u;
        if (st == QRDMA_ST_DONE)
            out->done |= 1u << i;
        else if (st == QRDMA_ST_ERROR)
            out->error |= 1u << i;
        else if (st == QRDMA_ST_BUSY)
            out->busy |= 1u << i;
        seen(p, group * COLL_CH + i, st);
    }
}

static uint64_t coll_addr(const qrdma_page *p, unsigned group)
{
    return page_base(p) + QRDMA_COLL_OFFSET + 8 * group;
}

int qrdma_poll_coll(qrdma_page *p, unsigned group, struct qrdma_coll *out)
{
    if (!p || !p->claimed || !out || group >= COLL_GROUPS)
        return QRDMA_EINVAL;
    uint64_t v;
    int e = page_rd(p, coll_addr(p, group), &v);
    if (e)
        return e;
    coll_decode(p, group, v, out);
    return QRDMA_OK;
}

int qrdma_poll_coll_start(qrdma_page *p, unsigned group)
{
    if (!p || !p->claimed || group >= COLL_GROUPS)
        return QRDMA_EINVAL;
    if (p->rd_state)
        return QRDMA_EBUSY;
    qrdma_node *n = p->node;
    p->rd_group = group;
    if (page_on_core(p)) {
        int e = n->be->core_read_start(n->be->ctx, n->idx, (unsigned)p->core, coll_addr(p, group));
        if (e)
            return e;
        p->rd_state = 1;
    } else {
        p->rd_err = rd(n, coll_addr(p, group), &p->rd_val);
        p->rd_state = 2;
    }
    return QRDMA_OK;
}

int qrdma_poll_coll_end(qrdma_page *p, struct qrdma_coll *out)
{
    if (!p || !p->claimed || !out || !p->rd_state)
        return QRDMA_EINVAL;
    qrdma_node *n = p->node;
    if (p->rd_state == 1) {
        int r = n->be->core_read_end(n->be->ctx, n->idx, (unsigned)p->core, &p->rd_val);
        if (r == 0)
            return 0;
        p->rd_err = r < 0 ? r : QRDMA_OK;
    }
    p->rd_state = 0;
    if (p->rd_err)
        return p->rd_err;
    coll_decode(p, p->rd_group, p->rd_val, out);
    return 1;
}

static int timed_out(const qrdma_node *n, uint64_t t0, uint64_t timeout)
{
    return timeout && qrdma_now(n) - t0 >= timeout;
}

int qrdma_wait(qrdma_page *p, unsigned ch, uint64_t timeout_ticks)
{
    if (!p || !p->claimed)
        return QRDMA_EINVAL;
    uint64_t t0 = qrdma_now(p->node);
    for (;;) {
        int st = qrdma_poll(p, ch);
        if (st < 0 || st == (int)QRDMA_ST_DONE || st == (int)QRDMA_ST_ERROR)
            return st;
        if (timed_out(p->node, t0, timeout_ticks))
            return QRDMA_ETIMEDOUT;
        idle(p->node);
    }
}

/* ----------------------------------------------------------------- notifications */
int qrdma_nq_teardown(qrdma_node *n)
{
    if (!n)
        return QRDMA_EINVAL;
    if (!n->nq_on)
        return QRDMA_ENOTIF;
    int e = wr(n, QRDMA_REG(nic.NQ_SIZE), 0);
    qrdma_buf_free(n, &n->nq);
    n->nq_on = 0;
    n->nq_size = n->nq_tail = 0;
    return e;
}

/* ------------------------------------------------------------------------ memory windows */

#define WIN_CTRL(field, v) (((uint64_t)(v) << QRDMA_NIC_CSR__WIN_CTRL__##field##_bp) \
                            & QRDMA_NIC_CSR__WIN_CTRL__##field##_bm)

/* The next tag of entry i: 1..255, never its last one. */
static uint8_t next_tag(qrdma_node *n, uint32_t i)
{
    uint8_t t;
    do {
        uint32_t x = n->tag_rng;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        n->tag_rng = x;
        t = (uint8_t)(1u + x % 255u);
    } while (t == n->win_tag[i]);
    return t;
}

int qrdma_mr_reg(qrdma_node *n, unsigned pd, uint64_t addr, uint64_t len, unsigned access,
                 struct qrdma_mr *out)
{
    if (!n || !out || len == 0 || addr + len - 1 < addr || pd >= QRDMA_NUM_PAGES
        || !access || (access & ~(QRDMA_MR_REMOTE_WRITE | QRDMA_MR_REMOTE_READ | QRDMA_MR_LOCAL_WRITE)))
        return QRDMA_EINVAL;
    uint32_t i = 0;
    while (i < n->info.prot_windows && n->win_used[i])
        i++;
    if (i >= n->info.prot_windows)
        return QRDMA_ENOMEM;
    uint8_t tag = next_tag(n, i);
    int e = wr(n, QRDMA_REG(nic.WIN_BASE), addr);
    if (!e)
        e = wr(n, QRDMA_REG(nic.WIN_LEN), len);
    if (!e)
        e = wr(n, QRDMA_REG(nic.WIN_CTRL),
               WIN_CTRL(INDEX, i) | WIN_CTRL(TAG, tag) | WIN_CTRL(PD, pd)
               | WIN_CTRL(RWR, (access & QRDMA_MR_REMOTE_WRITE) != 0)
               | WIN_CTRL(RRD, (access & QRDMA_MR_REMOTE_READ) != 0)
               | WIN_CTRL(LWR, (access & QRDMA_MR_LOCAL_WRITE) != 0) | WIN_CTRL(VALID, 1));
    if (e)
        return e;
    n->win_used[i] = 1;
    n->win_tag[i] = tag;
    out->rkey = (i << QRDMA_RKEY_TAG_W) | tag;
    out->index = i;
    out->addr = addr;
    out->len = len;
    out->pd = pd;
    out->access = access;
    return QRDMA_OK;
}

int qrdma_mr_dereg(qrdma_node *n, const struct qrdma_mr *mr)
{
    if (!n || !mr || mr->index >= n->info.prot_windows || !n->win_used[mr->index]
        || (mr->rkey & ((1u << QRDMA_RKEY_TAG_W) - 1)) != n->win_tag[mr->index])
        return QRDMA_EINVAL;
    int e = wr(n, QRDMA_REG(nic.WIN_CTRL), WIN_CTRL(INDEX, mr->index));
    if (e)
        return e;
    n->win_used[mr->index] = 0;
    return QRDMA_OK;
}

int qrdma_prot_open(qrdma_node *n, int open)
{
    if (!n)
        return QRDMA_EINVAL;
    return wr(n, QRDMA_REG(nic.PROT_CTRL), open ? 1 : 0);
}

int qrdma_nq_setup(qrdma_node *n, uint32_t entries)
{
    if (!n || entries == 0 || (entries & (entries - 1)) || entries > 1u << 31)
        return QRDMA_EINVAL;
    if (n->nq_on) {
        int e = qrdma_nq_teardown(n);
        if (e)
            return e;
    }
    int e = qrdma_buf_alloc(n, (size_t)entries * NOTIF_BYTES, NOTIF_BYTES, &n->nq);
    if (e)
        return e;
    /* every marker NOTIF_EMPTY before the NIC may write (QRDMA_NOTIF_EMPTY is 0) */
    memset(n->nq.cpu, 0, n->nq.size);
    for (uint32_t i = 0; i < entries; i++)
        ((uint8_t *)n->nq.cpu)[(size_t)i * NOTIF_BYTES] = (uint8_t)QRDMA_NOTIF_EMPTY;
    atomic_thread_fence(memory_order_seq_cst);
    e = wr(n, QRDMA_REG(nic.NQ_BASE), n->nq.dev);
    if (!e)
        e = wr(n, QRDMA_REG(nic.NQ_SIZE), entries);
    if (e) {
        qrdma_buf_free(n, &n->nq);
        return e;
    }
    n->nq_on = 1;
    n->nq_size = entries;
    n->nq_tail = 0;
    return QRDMA_OK;
}

int qrdma_nq_poll(qrdma_node *n, struct qrdma_notif *out)
{
    if (!n || !out)
        return QRDMA_EINVAL;
    if (!n->nq_on)
        return QRDMA_ENOTIF;
    volatile uint8_t *ent = (volatile uint8_t *)n->nq.cpu + (size_t)(n->nq_tail & (n->nq_size - 1)) * NOTIF_BYTES;
    if (ent[0] != (uint8_t)QRDMA_NOTIF_FULL)
        return 0;
    /* the marker is read before the rest of the entry */
    atomic_thread_fence(memory_order_acquire);
    uint8_t e[NOTIF_BYTES];
    for (size_t i = 0; i < NOTIF_BYTES; i++)
        e[i] = ent[i];
    out->kind = (uint8_t)qrdma_get_bits(e, NE(KIND));
    out->src_node = (uint16_t)qrdma_get_bits(e, NE(SRC_NODE));
    out->xfer = (uint16_t)qrdma_get_bits(e, NE(XFER));
    out->pd = (uint8_t)qrdma_get_bits(e, NE(PD));
    out->size = qrdma_get_bits(e, NE(SIZE));
    out->tag = (uint32_t)qrdma_get_bits(e, NE(TAG));
    out->dst_addr = qrdma_get_bits(e, NE(DST_ADDR));
    out->seq = (uint16_t)qrdma_get_bits(e, NE(SEQ));
    out->early = (uint8_t)qrdma_get_bits(e, NE(EARLY));
    out->stamped = (uint8_t)qrdma_get_bits(e, NE(STAMPED));
    out->hops = 0;
    out->t_post = out->t_send = out->t_recv = out->t_done = 0;
    memset(out->t_sw, 0, sizeof out->t_sw);
    if (out->stamped) {
        out->hops = (uint8_t)qrdma_get_bits(e, NE(HOPS));
        out->t_post = (uint16_t)qrdma_get_bits(e, NE(T_POST));
        out->t_send = (uint16_t)qrdma_get_bits(e, NE(T_SEND));
        /* switch k: arrival at bits 32k..32k+15, departure at 32k+16..32k+31 */
        uint64_t sw = qrdma_get_bits(e, NE(T_SW));
        for (unsigned k = 0; k < 4; k++)
            out->t_sw[k] = (uint16_t)(sw >> (QRDMA_STAMP_W * k));
        out->t_recv = (uint16_t)qrdma_get_bits(e, NE(T_RECV));
        out->t_done = (uint16_t)qrdma_get_bits(e, NE(T_DONE));
    }
    /* empty the slot (marker last), then tell the NIC it may reuse it */
    for (size_t i = 1; i < NOTIF_BYTES; i++)
        ent[i] = 0;
    atomic_thread_fence(memory_order_release);
    ent[0] = (uint8_t)QRDMA_NOTIF_EMPTY;
    atomic_thread_fence(memory_order_seq_cst);
    n->nq_tail++;
    int err = wr(n, QRDMA_REG(nic.NQ_TAIL), n->nq_tail);
    return err ? err : 1;
}

int qrdma_nq_wait(qrdma_node *n, struct qrdma_notif *out, uint64_t timeout_ticks)
{
    if (!n)
        return QRDMA_EINVAL;
    uint64_t t0 = qrdma_now(n);
    for (;;) {
        int r = qrdma_nq_poll(n, out);
        if (r)
            return r;
        if (timed_out(n, t0, timeout_ticks))
            return QRDMA_ETIMEDOUT;
        idle(n);
    }
}

const struct qrdma_buf *qrdma_nq_buf(const qrdma_node *n) { return n->nq_on ? &n->nq : NULL; }
uint32_t qrdma_nq_tail(const qrdma_node *n) { return n->nq_tail; }

/* ----------------------------------------------------------------- benchmark mode */
int qrdma_bench_set(qrdma_node *n, int on)
{
    if (!n)
        return QRDMA_EINVAL;
    return wr(n, QRDMA_REG(nic.BENCH), on ? QRDMA_NIC_CSR__BENCH__EN_bm : 0);
}

int qrdma_bench_caps(qrdma_node *n)
{
    if (!n)
        return QRDMA_EINVAL;
    uint64_t v;
    int e = rd(n, QRDMA_REG(nic.BENCH), &v);
    return e ? e : (int)FIELD(v, QRDMA_NIC_CSR__BENCH__STAMPS);
}

const char *const qrdma_stage_names[QRDMA_STAMP_HOPS_MAX + 1][QRDMA_STAGES_MAX] = {
    {"sender", "link_recv", "receiver"},
    {"sender", "link_sw0", "sw0", "link_recv", "receiver"},
    {"sender", "link_sw0", "sw0", "link_sw1", "sw1", "link_recv", "receiver"},
};

int qrdma_notif_stages(const struct qrdma_notif *nt, uint32_t out[QRDMA_STAGES_MAX])
{
    if (!nt || !out || !nt->stamped || nt->hops > QRDMA_STAMP_HOPS_MAX)
        return QRDMA_EINVAL;
    int k = 0;
    out[k++] = qrdma_stamp_diff(nt->t_send, nt->t_post);
    uint16_t prev = nt->t_send; /* the last departure */
    for (unsigned h = 0; h < nt->hops; h++) {
        out[k++] = qrdma_stamp_diff(nt->t_sw[2 * h], prev);
        out[k++] = qrdma_stamp_diff(nt->t_sw[2 * h + 1], nt->t_sw[2 * h]);
        prev = nt->t_sw[2 * h + 1];
    }
    out[k++] = qrdma_stamp_diff(nt->t_recv, prev);
    out[k++] = qrdma_stamp_diff(nt->t_done, nt->t_recv);
    return k;
}

/* ----------------------------------------------------------------- counters, registers */
#define CNT(name, member) { #name, QRDMA_REG(member) },
static const struct {
    const char *name;
    uint64_t addr;
} counters[QRDMA_CNT_COUNT] = { QRDMA_COUNTERS(CNT) };
#undef CNT

const char *qrdma_counter_name(enum qrdma_counter c)
{
    return (unsigned)c < QRDMA_CNT_COUNT ? counters[c].name : NULL;
}

uint64_t qrdma_counter_addr(enum qrdma_counter c)
{
    return (unsigned)c < QRDMA_CNT_COUNT ? counters[c].addr : 0;
}

int qrdma_counter_read(qrdma_node *n, enum qrdma_counter c, uint64_t *val)
{
    if (!n || !val || (unsigned)c >= QRDMA_CNT_COUNT)
        return QRDMA_EINVAL;
    return rd(n, counters[c].addr, val);
}

int qrdma_counters_read(qrdma_node *n, uint64_t vals[QRDMA_CNT_COUNT])
{
    if (!n || !vals)
        return QRDMA_EINVAL;
    for (unsigned c = 0; c < QRDMA_CNT_COUNT; c++) {
        int e = rd(n, counters[c].addr, &vals[c]);
        if (e)
            return e;
    }
    return QRDMA_OK;
}

static int reg_addr_ok(uint64_t addr)
{
    return addr >= QRDMA_REG_BASE && addr < (1ULL << QRDMA_ADDR_W) && !(addr & 7);
}

int qrdma_reg_read(qrdma_node *n, uint64_t addr, uint64_t *val)
{
    if (!n || !val || !reg_addr_ok(addr))
        return QRDMA_EINVAL;
    return rd(n, addr, val);
}

int qrdma_reg_write(qrdma_node *n, uint64_t addr, uint64_t val)
{
    if (!n || !reg_addr_ok(addr))
        return QRDMA_EINVAL;
    return wr(n, addr, val);
}
