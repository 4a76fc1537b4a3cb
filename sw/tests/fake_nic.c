/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * fake_nic: plain-file register windows and host memories mapped by the mmap backend,
 * wrapped with a C model of the host port and NIC registers (see fake_nic.h). Fields are
 * read and written bit by bit here, independently of libqrdma's packer.
 */
#define _POSIX_C_SOURCE 200809L

#include "fake_nic.h"

#include "qrdma_backend_mmap.h"
#include "qrdma_counters.h"
#include "qrdma_fmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NPG ((unsigned)QRDMA_NUM_PAGES)
#define NCH ((unsigned)QRDMA_CH_PER_PAGE)     /* channels of a page: write, then read */
#define NWCH ((unsigned)QRDMA_WR_CH_PER_PAGE)  /* write channels 0..NWCH-1 */
#define LINE ((unsigned)QRDMA_DESC_LINE_BYTES)
#define WIN (1ULL << QRDMA_ADDR_W)
#define NREG 128 /* register slots: REG_BASE + 8 i */
#define REG_OFF 4096ULL  /* device address 0 at this offset of the register file */
#define MEM_OFF 8192ULL  /* host memory at this offset of the memory file */
#define BLOCK_LOG2 16
#define MAX_PAYLOAD 1024

struct xfer {
    unsigned page, ch;
    uint8_t l0[32], l1[32];
    uint64_t done_at;
    uint64_t t_send;      /* benchmark mode: the cycle its last packet takes the link */
    int held;             /* posted with hold: waits for a start on its page */
};

struct fnode {
    uint8_t *regf;        /* own mapping of the register file (device address 0) */
    void *regf_map;
    uint8_t *mem;         /* own mapping of the memory file */
    void *mem_map;
    uint64_t phys;
    uint8_t st[16][NCH];
    uint8_t why[16][NCH];  /* ERR_* of the channel's last ERROR */
    int lng[16][NCH];     /* the BUSY transfer of (page, ch) is a long descriptor */
    int pend_ch[16];      /* page waits for line 1 at pend_ch + 1 (-1: none) */
    uint8_t pend_l0[16][32];
    uint64_t reg[NREG];
    uint32_t nq_issued;   /* notifications written since NQ_SIZE */
    uint64_t link_free;   /* cycle the node's link is free */
    uint16_t seq;
    struct xfer q[16 * NCH]; /* active transfers in start order */
    unsigned nq;
    struct fake_stats stats;
};

struct fake {
    struct qrdma_backend be;  /* the fake (model around inner) */
    struct qrdma_backend *inner;
    struct fake_cfg cfg;
    uint64_t now;
    unsigned corrupt, overrun, fail, bad_notif, unstamped;
    struct fnode n[FAKE_MAX_NODES];
};

/* ----------------------------------------------------------------- bits (one at a time) */
static uint64_t getb(const uint8_t *b, unsigned lsb, unsigned w)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < w; i++)
        v |= (uint64_t)((b[(lsb + i) / 8] >> ((lsb + i) % 8)) & 1u) << i;
    return v;
}

static void putb(uint8_t *b, unsigned lsb, unsigned w, uint64_t v)
{
    for (unsigned i = 0; i < w; i++) {
        unsigned bit = lsb + i;
        b[bit / 8] = (uint8_t)((b[bit / 8] & ~(1u << (bit % 8))) | (((v >> i) & 1u) << (bit % 8)));
    }
}

#define G0(b, f) getb(b, QRDMA_DESC_LINE0_##f##_LSB, QRDMA_DESC_LINE0_##f##_W)

/* ----------------------------------------------------------------- registers */
static int reg_idx(uint64_t addr)
{
    if (addr < QRDMA_REG_BASE || addr >= QRDMA_REG_BASE + 8 * NREG || addr & 7)
        return -1;
    return (int)((addr - QRDMA_REG_BASE) / 8);
}

#define R(n, member) (n)->reg[reg_idx(QRDMA_REG(member))]

static int reg_exists(uint64_t addr)
{
#define QRDMA_REG_OF(name, member) QRDMA_REG(member),
    static const uint64_t all[] = {QRDMA_REGISTERS(QRDMA_REG_OF)};
#undef QRDMA_REG_OF
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i] == addr)
            return 1;
    return 0;
}

/* ----------------------------------------------------------------- memory */
uint8_t *fake_mem(const struct fake *f, unsigned node, uint64_t dev, uint64_t len)
{
    if (node >= f->cfg.nodes)
        return NULL;
    const struct fnode *n = &f->n[node];
    if (dev < n->phys || dev - n->phys > f->cfg.mem_bytes || len > f->cfg.mem_bytes - (dev - n->phys))
        return NULL;
    return n->mem + (dev - n->phys);
}

static int node_by_id(const struct fake *f, uint64_t id)
{
    for (unsigned i = 0; i < f->cfg.nodes; i++)
        if (f->n[i].reg[reg_idx(QRDMA_REG(nic.NODE_ID))] == id)
            return (int)i;
    return -1;
}

/* ----------------------------------------------------------------- transfers */
static void remove_at(struct fnode *n, unsigned i);

/* The transfer goes to the engine: its link time and completion. */
static void launch(struct fake *f, struct fnode *n, struct xfer *x)
{
    uint64_t size = G0(x->l0, SIZE);
    uint64_t wire = f->cfg.bytes_per_cycle ? (size + f->cfg.bytes_per_cycle - 1) / f->cfg.bytes_per_cycle : 0;
    uint64_t go = n->link_free > f->now ? n->link_free : f->now;
    n->link_free = go + wire;
    x->t_send = G0(x->l0, IS_INLINE) ? go : n->link_free; /* an INLINE is one packet; else the CONTROL after the data */
    x->done_at = f->cfg.auto_complete ? n->link_free + f->cfg.base_latency : UINT64_MAX;
    x->held = 0;
}

/* A start on the page: its held transfers go, lowest channel first, to the end of the
 * queue (start order). */
static void release(struct fake *f, struct fnode *n, unsigned page)
{
    for (unsigned ch = 0; ch < NCH; ch++)
        for (unsigned i = 0; i < n->nq; i++)
            if (n->q[i].held && n->q[i].page == page && n->q[i].ch == ch) {
                struct xfer x = n->q[i];
                remove_at(n, i);
                n->q[n->nq] = x;
                launch(f, n, &n->q[n->nq++]);
                break;
            }
}

static void start(struct fake *f, unsigned node, unsigned page, unsigned ch,
                  const uint8_t *l0, const uint8_t *l1)
{
    struct fnode *n = &f->n[node];
    struct xfer *x = &n->q[n->nq++];
    memset(x, 0, sizeof *x);
    x->page = page;
    x->ch = ch;
    memcpy(x->l0, l0, 32);
    if (l1)
        memcpy(x->l1, l1, 32);
    if (R(n, nic.BENCH) & QRDMA_NIC_CSR__BENCH__EN_bm) { /* benchmark mode: the host port's stamp */
        putb(x->l0, QRDMA_DESC_LINE0_STAMPED_LSB, QRDMA_DESC_LINE0_STAMPED_W, 1);
        putb(x->l0, QRDMA_DESC_LINE0_T_POST_LSB, QRDMA_DESC_LINE0_T_POST_W, f->now);
    }
    x->held = G0(l0, HOLD) || G0(l0, START);
    x->done_at = UINT64_MAX;
    if (!x->held)
        launch(f, n, x);
    else if (G0(l0, START))
        release(f, n, page);
    n->st[page][ch] = QRDMA_ST_BUSY;
    n->lng[page][ch] = l1 != NULL;
    R(n, eng.CNT_DESC_OK)++;
    n->stats.started++;
}

static void remove_at(struct fnode *n, unsigned i)
{
    memmove(&n->q[i], &n->q[i + 1], (n->nq - i - 1) * sizeof n->q[0]);
    n->nq--;
}

/* Benchmark mode: the stamps of transfer x's notification entry e (written now). */
static void put_stamps(const struct fake *f, uint8_t *e, const struct xfer *x)
{
    uint64_t hops = f->cfg.hops, link = FAKE_LINK_CYCLES, sw = FAKE_SW_CYCLES;
    if (hops * (link + sw) + link > f->cfg.base_latency)
        link = sw = f->cfg.base_latency / (2 * hops + 2);
    uint64_t t = x->t_send, tsw = 0;
    for (unsigned k = 0; k < hops; k++) {
        t += link;
        tsw |= (t & 0xFFFF) << (32 * k);
        t += sw;
        tsw |= (t & 0xFFFF) << (32 * k + 16);
    }
    putb(e, QRDMA_NOTIF_ENTRY_STAMPED_LSB, QRDMA_NOTIF_ENTRY_STAMPED_W, 1);
    putb(e, QRDMA_NOTIF_ENTRY_HOPS_LSB, QRDMA_NOTIF_ENTRY_HOPS_W, hops);
    putb(e, QRDMA_NOTIF_ENTRY_T_POST_LSB, QRDMA_NOTIF_ENTRY_T_POST_W, G0(x->l0, T_POST));
    putb(e, QRDMA_NOTIF_ENTRY_T_SEND_LSB, QRDMA_NOTIF_ENTRY_T_SEND_W, x->t_send);
    putb(e, QRDMA_NOTIF_ENTRY_T_SW_LSB, QRDMA_NOTIF_ENTRY_T_SW_W, tsw);
    putb(e, QRDMA_NOTIF_ENTRY_T_RECV_LSB, QRDMA_NOTIF_ENTRY_T_RECV_W, t + link);
    putb(e, QRDMA_NOTIF_ENTRY_T_DONE_LSB, QRDMA_NOTIF_ENTRY_T_DONE_W, f->now);
}

/* Perform transfer i of node `node` with final status st; 0, or -2 if its notification
 * does not fit the destination's ring yet. A write copies src_addr of this node to
 * dst_addr of node dst_node; a read (a read channel's transfer) copies src_addr of node
 * dst_node (the remote node) to dst_addr of this node. */
static int finish(struct fake *f, unsigned node, unsigned i, unsigned st)
{
    struct fnode *n = &f->n[node];
    struct xfer *x = &n->q[i];
    uint64_t size = G0(x->l0, SIZE), dst = G0(x->l0, DST_ADDR), src = G0(x->l0, SRC_ADDR);
    int inl = (int)G0(x->l0, IS_INLINE), notify = (int)G0(x->l0, NOTIFY);
    int rd = x->ch >= NWCH;
    int dn = node_by_id(f, G0(x->l0, DST_NODE));  /* the remote node */
    int rn = rd ? (int)node : dn;                  /* the node whose memory is written */
    uint8_t *d = rn >= 0 ? fake_mem(f, (unsigned)rn, dst, size) : NULL;
    const uint8_t *s = inl ? NULL : rd ? (dn >= 0 ? fake_mem(f, (unsigned)dn, src, size) : NULL)
                                       : fake_mem(f, node, src, size);
    /* (an ERROR asked for by the test stands for a NACK of the remote node) */
    unsigned why = st == QRDMA_ST_ERROR ? QRDMA_ERR_REMOTE_MEM : QRDMA_ERR_NONE;
    if (st == QRDMA_ST_DONE && !inl && !s) {
        st = QRDMA_ST_ERROR; /* the source read would be answered DECERR (a read: by the remote) */
        why = rd ? QRDMA_ERR_REMOTE_MEM : QRDMA_ERR_LOCAL_MEM;
    } else if (st == QRDMA_ST_DONE && !d) {
        st = QRDMA_ST_ERROR; /* the write would be refused (a write: the receiver NACKs) */
        why = rd ? QRDMA_ERR_LOCAL_MEM : QRDMA_ERR_REMOTE_MEM;
    }
    if (st == QRDMA_ST_DONE && f->fail) {
        st = QRDMA_ST_ERROR;
        why = QRDMA_ERR_REMOTE_MEM;
        f->fail--;
    }
    struct fnode *m = dn >= 0 ? &f->n[dn] : NULL;
    uint8_t *ent = NULL;
    if (st == QRDMA_ST_DONE && notify && R(m, nic.NQ_SIZE)) {
        uint64_t nqs = R(m, nic.NQ_SIZE);
        if ((uint32_t)(m->nq_issued - (uint32_t)R(m, nic.NQ_TAIL)) >= nqs)
            return -2;
        ent = fake_mem(f, (unsigned)dn, R(m, nic.NQ_BASE) + 64 * (m->nq_issued % nqs), 64);
    }
    if (st == QRDMA_ST_DONE) {
        if (inl) {
            uint8_t p[32];
            for (unsigned k = 0; k < size; k++)
                p[k] = k < 8 ? (uint8_t)getb(x->l0, QRDMA_DESC_LINE0_SRC_ADDR_LSB + 8 * k, 8)
                             : (uint8_t)getb(x->l1, QRDMA_DESC_LINE1_INLINE_HI_LSB + 8 * (k - 8), 8);
            memcpy(d, p, size);
        } else {
            memmove(d, s, size);
        }
        if (f->corrupt) {
            d[size / 2] ^= 0x5a;
            f->corrupt--;
        }
        if (f->overrun && fake_mem(f, (unsigned)rn, dst, size + 1)) {
            d[size] ^= 0x5a;
            f->overrun--;
        }
        uint64_t blocks = inl ? 1 : ((dst & ((1u << BLOCK_LOG2) - 1)) + size + (1u << BLOCK_LOG2) - 1) >> BLOCK_LOG2;
        uint64_t pkts = ((dst & (MAX_PAYLOAD - 1)) + size + MAX_PAYLOAD - 1) / MAX_PAYLOAD;
        n->seq = (uint16_t)(n->seq + blocks);
        R(n, eng.CNT_BLOCKS) += inl ? 0 : blocks;
        R(n, eng.CNT_INLINE) += inl;
        R(n, eng.CNT_CONTROL) += notify && !inl;
        R(n, eng.CNT_ACK) += blocks;
        R(n, eng.CNT_DONE)++;
        /* the data goes from the node that holds it to the one written; a write's
         * receiver acknowledges its blocks (a read's packets are the network side's) */
        struct fnode *tx = rd ? m : n, *rx = rd ? n : m;
        R(tx, nic.TX_DATA_PKTS) += inl ? 0 : pkts;
        R(tx, nic.TX_CTRL_PKTS) += (uint64_t)inl + (notify && !inl);
        R(tx, nic.TX_BYTES) += size;
        R(rx, nic.RX_DATA_PKTS) += inl ? 0 : pkts;
        R(rx, nic.RX_CTRL_PKTS) += (uint64_t)inl + (notify && !inl);
        R(rx, nic.RX_BYTES) += size;
        if (!rd) {
            R(m, nic.TX_CTRL_PKTS) += blocks; /* the ACKs */
            R(n, nic.RX_CTRL_PKTS) += blocks;
        }
        if (ent) {
            uint8_t e[64] = {0};
            putb(e, QRDMA_NOTIF_ENTRY_KIND_LSB, QRDMA_NOTIF_ENTRY_KIND_W, inl ? QRDMA_NET_INLINE : QRDMA_NET_CONTROL);
            putb(e, QRDMA_NOTIF_ENTRY_SRC_NODE_LSB, QRDMA_NOTIF_ENTRY_SRC_NODE_W, R(n, nic.NODE_ID));
            putb(e, QRDMA_NOTIF_ENTRY_XFER_LSB, QRDMA_NOTIF_ENTRY_XFER_W, x->page * QRDMA_CH_PER_PAGE + x->ch);
            putb(e, QRDMA_NOTIF_ENTRY_PD_LSB, QRDMA_NOTIF_ENTRY_PD_W, x->page);
            putb(e, QRDMA_NOTIF_ENTRY_SIZE_LSB, QRDMA_NOTIF_ENTRY_SIZE_W, size);
            putb(e, QRDMA_NOTIF_ENTRY_TAG_LSB, QRDMA_NOTIF_ENTRY_TAG_W, inl ? 0 : G0(x->l0, TAG));
            putb(e, QRDMA_NOTIF_ENTRY_DST_ADDR_LSB, QRDMA_NOTIF_ENTRY_DST_ADDR_W, dst + (f->bad_notif ? 64 : 0));
            f->bad_notif -= f->bad_notif > 0;
            putb(e, QRDMA_NOTIF_ENTRY_SEQ_LSB, QRDMA_NOTIF_ENTRY_SEQ_W, (uint16_t)(n->seq - 1));
            int stamped = G0(x->l0, STAMPED) && (inl ? size <= QRDMA_STAMP_INLINE_MAX : !G0(x->l0, REGISTERED))
                          && (R(m, nic.BENCH) & QRDMA_NIC_CSR__BENCH__STAMPS_bm);
            if (stamped && f->unstamped) {
                stamped = 0;
                f->unstamped--;
            }
            if (stamped)
                put_stamps(f, e, x);
            memcpy(ent + 1, e + 1, 63);
            ent[0] = (uint8_t)QRDMA_NOTIF_FULL; /* marker last */
            m->nq_issued++;
            R(m, nic.NQ_HEAD) = m->nq_issued;
            R(m, nic.RX_NOTIFS)++;
        }
    } else {
        R(n, eng.CNT_NACK)++;
        R(n, eng.CNT_DONE)++;
    }
    n->st[x->page][x->ch] = (uint8_t)st;
    if (st == QRDMA_ST_ERROR)
        n->why[x->page][x->ch] = (uint8_t)why;
    n->lng[x->page][x->ch] = 0;
    n->stats.finished++;
    remove_at(n, i);
    return 0;
}

static void progress(struct fake *f)
{
    if (!f->cfg.auto_complete)
        return;
    for (unsigned k = 0; k < f->cfg.nodes; k++) {
        struct fnode *n = &f->n[k];
        /* in start order (held transfers are not started); a transfer held by a full
         * ring holds the later ones */
        for (unsigned i = 0; i < n->nq;) {
            if (n->q[i].held) {
                i++;
                continue;
            }
            if (n->q[i].done_at > f->now || finish(f, k, i, QRDMA_ST_DONE) != 0)
                break;
        }
    }
}

int fake_finish(struct fake *f, unsigned node, unsigned page, unsigned ch, unsigned st)
{
    struct fnode *n = &f->n[node];
    for (unsigned i = 0; i < n->nq; i++)
        if (n->q[i].page == page && n->q[i].ch == ch)
            return n->q[i].held ? -1 : finish(f, node, i, st);
    return -1;
}

/* ----------------------------------------------------------------- host port: writes */
/* One 32-byte line at device address a; 0 accepted, QRDMA_ESLVERR refused or bad. */
static int line_write(struct fake *f, unsigned node, uint64_t a, const uint8_t *data)
{
    struct fnode *n = &f->n[node];
    uint64_t page = a / QRDMA_PAGE_STRIDE, off = a % QRDMA_PAGE_STRIDE;
    if (page >= NPG || off - QRDMA_DESC_OFFSET >= (uint64_t)NCH * LINE || off % LINE) { /* wraps below */
        R(n, eng.CNT_DESC_ERR)++; /* R5 */
        return QRDMA_ESLVERR;
    }
    unsigned ch = (unsigned)((off - QRDMA_DESC_OFFSET) / LINE), p = (unsigned)page;
    int pend = n->pend_ch[p];
    if ((pend >= 0 && ch != (unsigned)pend + 1) ||                             /* R7 */
        n->st[p][ch] == QRDMA_ST_BUSY || (ch & 1 && n->st[p][ch - 1] == QRDMA_ST_BUSY && n->lng[p][ch - 1])) { /* R6 */
        R(n, eng.CNT_DESC_ERR)++;
        return QRDMA_ESLVERR;
    }
    int e = f->inner->desc_write(f->inner->ctx, node, a, data, LINE);
    if (e)
        return e;
    const uint8_t *l = n->regf + a; /* decode what landed in the file */
    if (pend >= 0) {
        n->pend_ch[p] = -1;
        start(f, node, p, (unsigned)pend, n->pend_l0[p], l);
        return 0;
    }
    uint64_t size = G0(l, SIZE);
    int inl = (int)G0(l, IS_INLINE), lng = (int)G0(l, LONG_DESC);
    int bad = size == 0 || size > QRDMA_MAX_TRANSFER_BYTES || (inl && size > QRDMA_INLINE_MAX) ||
              (inl && size > QRDMA_INLINE_SHORT_MAX && !lng) || (lng && ch & 1) ||
              (lng && n->st[p][ch + 1] == QRDMA_ST_BUSY) ||
              (ch >= NWCH && (inl || G0(l, NOTIFY)));   /* D7: a read channel's */
    if (bad) {
        n->st[p][ch] = QRDMA_ST_ERROR;
        n->why[p][ch] = QRDMA_ERR_BAD_DESC;
        R(n, eng.CNT_DESC_ERR)++;
        return QRDMA_ESLVERR;
    }
    if (lng) {
        n->pend_ch[p] = (int)ch;
        memcpy(n->pend_l0[p], l, 32);
        return 0;
    }
    start(f, node, p, ch, l, NULL);
    return 0;
}

static int f_desc_write(void *ctx, unsigned node, uint64_t addr, const void *data, size_t len)
{
    struct fake *f = ctx;
    if (node >= f->cfg.nodes || (len != LINE && len != 2 * LINE) || addr % len)
        return QRDMA_EINVAL;
    struct fnode *n = &f->n[node];
    f->now += f->cfg.write_cycles;
    progress(f);
    if (len == LINE)
        n->stats.desc32++;
    else
        n->stats.desc64++;
    int e = 0;
    for (size_t l = 0; l < len; l += LINE) {
        int r = line_write(f, node, addr + l, (const uint8_t *)data + l);
        if (r)
            e = r;
    }
    if (e == QRDMA_ESLVERR)
        n->stats.slverr++;
    return e;
}

static int f_write64(void *ctx, unsigned node, uint64_t addr, uint64_t val)
{
    struct fake *f = ctx;
    if (node >= f->cfg.nodes)
        return QRDMA_EINVAL;
    struct fnode *n = &f->n[node];
    f->now += f->cfg.write_cycles;
    n->stats.writes++;
    /* the protection registers are kept (the fake does not check windows) */
    int prot = addr == QRDMA_REG(nic.PROT_CTRL) || addr == QRDMA_REG(nic.WIN_BASE)
               || addr == QRDMA_REG(nic.WIN_LEN) || addr == QRDMA_REG(nic.WIN_CTRL);
    if (addr != QRDMA_REG(nic.NQ_BASE) && addr != QRDMA_REG(nic.NQ_SIZE) && addr != QRDMA_REG(nic.NQ_TAIL)
        && addr != QRDMA_REG(nic.NODE_MASK) && addr != QRDMA_REG(nic.BENCH) && !prot) {
        n->stats.slverr++;
        progress(f);
        return QRDMA_ESLVERR;
    }
    int e = f->inner->mmio_write64(f->inner->ctx, node, addr, val);
    if (e)
        return e;
    uint64_t v;
    memcpy(&v, n->regf + addr, 8); /* what landed in the file */
    if (addr == QRDMA_REG(nic.NQ_BASE)) {
        R(n, nic.NQ_BASE) = v & ~63ULL;
    } else if (addr == QRDMA_REG(nic.NQ_SIZE)) {
        R(n, nic.NQ_SIZE) = (uint32_t)v;
        R(n, nic.NQ_HEAD) = R(n, nic.NQ_TAIL) = 0;
        n->nq_issued = 0;
    } else if (addr == QRDMA_REG(nic.NODE_MASK)) {
        R(n, nic.NODE_MASK) = v;
    } else if (prot) {
        n->reg[reg_idx(addr)] = v;
    } else if (addr == QRDMA_REG(nic.BENCH)) { /* en written; stamps is read-only */
        R(n, nic.BENCH) = (R(n, nic.BENCH) & ~QRDMA_NIC_CSR__BENCH__EN_bm) | (v & QRDMA_NIC_CSR__BENCH__EN_bm);
    } else {
        R(n, nic.NQ_TAIL) = (uint32_t)v;
    }
    progress(f);
    return 0;
}

/* ----------------------------------------------------------------- host port: reads */
static int f_read64(void *ctx, unsigned node, uint64_t addr, uint64_t *val)
{
    struct fake *f = ctx;
    if (node >= f->cfg.nodes || !val)
        return QRDMA_EINVAL;
    struct fnode *n = &f->n[node];
    f->now += f->cfg.read_cycles;
    progress(f);
    n->stats.reads++;
    uint64_t page = addr / QRDMA_PAGE_STRIDE, off = addr % QRDMA_PAGE_STRIDE, v = 0;
    int kind = 0; /* 1 single, 2 collective, 3 register, 4 error reason */
    if (addr & 7)
        kind = 0;
    else if (page < NPG && off >= QRDMA_STATUS_OFFSET && off < QRDMA_STATUS_OFFSET + 8 * NCH)
        kind = 1;
    else if (page < NPG && off >= QRDMA_COLL_OFFSET && off < QRDMA_COLL_OFFSET + 8 * (NCH / 32))
        kind = 2;
    else if (reg_exists(addr))
        kind = 3;
    else if (page < NPG && off >= QRDMA_ERR_OFFSET && off < QRDMA_ERR_OFFSET + 8 * NCH)
        kind = 4;
    unsigned p = (unsigned)page;
    if (kind == 1) {
        v = n->st[p][(off - QRDMA_STATUS_OFFSET) / 8];
    } else if (kind == 2) {
        unsigned g = (unsigned)(off - QRDMA_COLL_OFFSET) / 8;
        for (unsigned i = 0; i < 32; i++)
            v |= (uint64_t)n->st[p][32 * g + i] << (2 * i);
    } else if (kind == 3) {
        v = n->reg[reg_idx(addr)];
    } else if (kind == 4) {
        v = n->why[p][(off - QRDMA_ERR_OFFSET) / 8];
    } else {
        *val = 0;
        n->stats.slverr++;
        return QRDMA_ESLVERR;
    }
    memcpy(n->regf + addr, &v, 8);
    int e = f->inner->mmio_read64(f->inner->ctx, node, addr, val);
    if (e)
        return e;
    /* reset-on-read */
    if (kind == 1) {
        uint8_t *s = &n->st[p][(off - QRDMA_STATUS_OFFSET) / 8];
        if (*s == QRDMA_ST_DONE || *s == QRDMA_ST_ERROR)
            *s = QRDMA_ST_IDLE;
    } else if (kind == 2) {
        unsigned g = (unsigned)(off - QRDMA_COLL_OFFSET) / 8;
        for (unsigned i = 0; i < 32; i++) {
            uint8_t *s = &n->st[p][32 * g + i];
            if (*s == QRDMA_ST_DONE || *s == QRDMA_ST_ERROR)
                *s = QRDMA_ST_IDLE;
        }
    }
    return 0;
}

static int f_alloc(void *ctx, unsigned node, size_t size, size_t align, struct qrdma_buf *buf)
{
    struct fake *f = ctx;
    return f->inner->mem_alloc(f->inner->ctx, node, size, align, buf);
}

static void f_free(void *ctx, struct qrdma_buf *buf)
{
    struct fake *f = ctx;
    f->inner->mem_free(f->inner->ctx, buf);
}

static void f_idle(void *ctx, unsigned node)
{
    struct fake *f = ctx;
    (void)node;
    f->now += f->cfg.idle_cycles ? f->cfg.idle_cycles : 1;
    progress(f);
}

static uint64_t f_now(void *ctx)
{
    return ((struct fake *)ctx)->now;
}

static void f_destroy(struct qrdma_backend *be)
{
    fake_destroy(be->ctx);
}

/* ----------------------------------------------------------------- create / destroy */
struct fake_cfg fake_default_cfg(void)
{
    return (struct fake_cfg){
        .nodes = 2,
        .mem_bytes = 64ULL << 20,
        .auto_complete = 1,
        .base_latency = 72,
        .bytes_per_cycle = 64,
        .read_cycles = 30,
        .write_cycles = 2,
        .idle_cycles = 4,
    };
}

static int tmpfile_of(uint64_t size, char *path, size_t pathlen)
{
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(path, pathlen, "%s/qrdma-fake-XXXXXX", dir);
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    if (ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        unlink(path);
        return -1;
    }
    return fd;
}

int fake_create(const struct fake_cfg *cfg, struct fake **out)
{
    if (!cfg || !out || cfg->nodes == 0 || cfg->nodes > FAKE_MAX_NODES
        || cfg->hops > QRDMA_NOTIF_ENTRY_T_SW_W / (2 * QRDMA_STAMP_W)) /* 2 switches stamp */
        return QRDMA_EINVAL;
    struct fake *f = calloc(1, sizeof *f);
    if (!f)
        return QRDMA_ENOMEM;
    f->cfg = *cfg;
    struct qrdma_mmap_cfg mc = {.num_nodes = cfg->nodes};
    char path[2 * FAKE_MAX_NODES][64];
    int fds[2 * FAKE_MAX_NODES], nfd = 0, err = 0;
    for (unsigned i = 0; i < cfg->nodes && !err; i++) {
        struct fnode *n = &f->n[i];
        int rfd = tmpfile_of(REG_OFF + WIN, path[nfd], sizeof path[nfd]);
        if (rfd < 0) {
            err = QRDMA_EIO;
            break;
        }
        fds[nfd++] = rfd;
        int mfd = tmpfile_of(MEM_OFF + cfg->mem_bytes, path[nfd], sizeof path[nfd]);
        if (mfd < 0) {
            err = QRDMA_EIO;
            break;
        }
        fds[nfd++] = mfd;
        n->regf_map = mmap(NULL, REG_OFF + WIN, PROT_READ | PROT_WRITE, MAP_SHARED, rfd, 0);
        n->mem_map = mmap(NULL, MEM_OFF + cfg->mem_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
        if (n->regf_map == MAP_FAILED || n->mem_map == MAP_FAILED) {
            n->regf_map = n->regf_map == MAP_FAILED ? NULL : n->regf_map;
            n->mem_map = n->mem_map == MAP_FAILED ? NULL : n->mem_map;
            err = QRDMA_EIO;
            break;
        }
        n->regf = (uint8_t *)n->regf_map + REG_OFF;
        n->mem = (uint8_t *)n->mem_map + MEM_OFF;
        n->phys = 0x100000000ULL * (i + 1) + 0x200000;
        mc.node[i] = (struct qrdma_mmap_node){
            .reg_path = path[nfd - 2], .reg_offset = REG_OFF, .reg_len = WIN,
            .mem_path = path[nfd - 1], .mem_offset = MEM_OFF, .mem_len = cfg->mem_bytes,
            .mem_phys = n->phys,
        };
        for (unsigned p = 0; p < NPG; p++)
            n->pend_ch[p] = -1;
        R(n, eng.ID) = QRDMA_ID_MAGIC | (uint64_t)QRDMA_FORMAT_VERSION << QRDMA_ENG_CSR__ID__VERSION_bp;
        R(n, eng.PARAMS) = (uint64_t)BLOCK_LOG2 << QRDMA_ENG_CSR__PARAMS__BLOCK_LOG2_bp |
                       2ULL << QRDMA_ENG_CSR__PARAMS__MAX_OUTSTANDING_bp | 256ULL << QRDMA_ENG_CSR__PARAMS__DATA_W_bp |
                       10ULL << QRDMA_ENG_CSR__PARAMS__MAX_PAYLOAD_LOG2_bp | 2ULL << QRDMA_ENG_CSR__PARAMS__NODES_LOG2_bp |
                       2ULL << QRDMA_ENG_CSR__PARAMS__PROT_WINDOWS_LOG2_bp;
        R(n, nic.NODE_ID) = 0x30 + 3 * i; /* network IDs differ from node indices */
        R(n, nic.BENCH) = QRDMA_NIC_CSR__BENCH__STAMPS_bm; /* the receive unit keeps stamps */
    }
    if (!err)
        err = qrdma_mmap_open(&mc, &f->inner);
    /* the mappings keep the files' pages: nothing is left behind in the file system */
    for (int k = 0; k < nfd; k++) {
        close(fds[k]);
        unlink(path[k]);
    }
    if (err) {
        fake_destroy(f);
        return err;
    }
    f->be = (struct qrdma_backend){
        .abi = QRDMA_BACKEND_ABI,
        .name = "fake",
        .ctx = f,
        .num_nodes = cfg->nodes,
        .tick_hz = 200000000ULL,
        .mmio_read64 = f_read64,
        .mmio_write64 = f_write64,
        .desc_write = f_desc_write,
        .mem_alloc = f_alloc,
        .mem_free = f_free,
        .idle = f_idle,
        .now = f_now,
        .destroy = f_destroy,
    };
    *out = f;
    return 0;
}

void fake_destroy(struct fake *f)
{
    if (!f)
        return;
    qrdma_backend_close(f->inner);
    for (unsigned i = 0; i < FAKE_MAX_NODES; i++) {
        if (f->n[i].regf_map)
            munmap(f->n[i].regf_map, REG_OFF + WIN);
        if (f->n[i].mem_map)
            munmap(f->n[i].mem_map, MEM_OFF + f->cfg.mem_bytes);
    }
    free(f);
}

struct qrdma_backend *fake_backend(struct fake *f) { return &f->be; }
const uint8_t *fake_regfile(const struct fake *f, unsigned node) { return f->n[node].regf; }
uint64_t fake_mem_phys(const struct fake *f, unsigned node) { return f->n[node].phys; }
uint16_t fake_node_id(const struct fake *f, unsigned node) { return (uint16_t)f->n[node].reg[reg_idx(QRDMA_REG(nic.NODE_ID))]; }
void fake_get_stats(const struct fake *f, unsigned node, struct fake_stats *s) { *s = f->n[node].stats; }
unsigned fake_chan_status(const struct fake *f, unsigned node, unsigned page, unsigned ch) { return f->n[node].st[page][ch]; }
void fake_set_status(struct fake *f, unsigned node, unsigned page, unsigned ch, unsigned st) { f->n[node].st[page][ch] = (uint8_t)st; }
uint64_t fake_reg(const struct fake *f, unsigned node, uint64_t addr) { return f->n[node].reg[reg_idx(addr)]; }
void fake_set_reg(struct fake *f, unsigned node, uint64_t addr, uint64_t val) { f->n[node].reg[reg_idx(addr)] = val; }
void fake_corrupt_next(struct fake *f, unsigned count) { f->corrupt = count; }
void fake_bad_notif_next(struct fake *f, unsigned count) { f->bad_notif = count; }
void fake_overrun_next(struct fake *f, unsigned count) { f->overrun = count; }
void fake_fail_next(struct fake *f, unsigned count) { f->fail = count; }
void fake_unstamped_next(struct fake *f, unsigned count) { f->unstamped = count; }
uint64_t fake_cycles(const struct fake *f) { return f->now; }
