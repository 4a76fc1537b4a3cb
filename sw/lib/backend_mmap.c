/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * The mmap backend of libqrdma: device registers mapped from a file, 64-bit
 * volatile loads and stores, descriptor lines as aligned 64-bit (or 256-bit) stores with
 * a store fence after each line, and a first-fit allocator over a user-provided
 * physically contiguous DMA buffer. Usage and caveats: sw/include/qrdma_backend_mmap.h.
 */
#define _POSIX_C_SOURCE 200809L

#include "qrdma_backend_mmap.h"
#include "qrdma_fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__AVX__)
#include <immintrin.h>
#endif

struct blk {
    uint64_t off, len;
    int used;
};

struct mnode {
    int reg_fd, mem_fd;
    void *reg_map, *mem_map; /* as returned by mmap (page aligned) */
    size_t reg_map_len, mem_map_len;
    volatile uint8_t *reg;   /* device address 0 */
    uint8_t *mem;            /* buffer byte 0 */
    uint64_t reg_len, mem_len, mem_phys;
    struct blk *blks;        /* sorted by offset, covering [0, mem_len) */
    unsigned nblks;
    unsigned nused;          /* live buffers (<= QRDMA_MMAP_MAX_BUFS, so nblks <= MAX_BLKS) */
};

struct mctx {
    struct qrdma_backend be;
    uint32_t flags;
    unsigned num_nodes;
    struct mnode node[QRDMA_MMAP_MAX_NODES];
};

#define MAX_BLKS (2 * QRDMA_MMAP_MAX_BUFS + 1)

static inline void store_fence(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_sfence();
#else
    atomic_thread_fence(memory_order_seq_cst);
#endif
}

/* ----------------------------------------------------------------- MMIO */
static int in_window(const struct mnode *m, uint64_t addr, uint64_t len)
{
    return addr < m->reg_len && len <= m->reg_len - addr;
}

static int mm_read64(void *ctx, unsigned node, uint64_t addr, uint64_t *val)
{
    struct mctx *c = ctx;
    if (node >= c->num_nodes || !val || addr & 7 || !in_window(&c->node[node], addr, 8))
        return QRDMA_EINVAL;
    *val = *(volatile uint64_t *)(c->node[node].reg + addr);
    return QRDMA_OK;
}

static int mm_write64(void *ctx, unsigned node, uint64_t addr, uint64_t val)
{
    struct mctx *c = ctx;
    if (node >= c->num_nodes || addr & 7 || !in_window(&c->node[node], addr, 8))
        return QRDMA_EINVAL;
    *(volatile uint64_t *)(c->node[node].reg + addr) = val;
    store_fence();
    return QRDMA_OK;
}

static int mm_desc_write(void *ctx, unsigned node, uint64_t addr, const void *data, size_t len)
{
    struct mctx *c = ctx;
    const size_t line = QRDMA_DESC_LINE_BYTES;
    if (node >= c->num_nodes || !data || (len != line && len != 2 * line) || addr % len ||
        !in_window(&c->node[node], addr, len))
        return QRDMA_EINVAL;
    volatile uint8_t *dst = c->node[node].reg + addr;
    const uint8_t *src = data;
    for (size_t l = 0; l < len; l += line) {
#if defined(__AVX__)
        if (c->flags & QRDMA_MMAP_AVX) {
            _mm256_store_si256((__m256i *)(uintptr_t)(dst + l), _mm256_loadu_si256((const __m256i *)(src + l)));
            store_fence();
            continue;
        }
#endif
        for (size_t w = 0; w < line; w += 8) {
            uint64_t v;
            memcpy(&v, src + l + w, 8);
            *(volatile uint64_t *)(dst + l + w) = v;
        }
        /* line l complete before any byte of the next line (WC mappings) */
        store_fence();
    }
    return QRDMA_OK;
}

static void mm_idle(void *ctx, unsigned node)
{
    (void)ctx;
    (void)node;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static uint64_t mm_now(void *ctx)
{
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ----------------------------------------------------------------- host memory */
static int blk_insert(struct mnode *m, unsigned at, struct blk b)
{
    if (m->nblks >= MAX_BLKS)
        return 0;
    memmove(&m->blks[at + 1], &m->blks[at], (m->nblks - at) * sizeof *m->blks);
    m->blks[at] = b;
    m->nblks++;
    return 1;
}

static void blk_remove(struct mnode *m, unsigned at)
{
    memmove(&m->blks[at], &m->blks[at + 1], (m->nblks - at - 1) * sizeof *m->blks);
    m->nblks--;
}

static int mm_alloc(void *ctx, unsigned node, size_t size, size_t align, struct qrdma_buf *buf)
{
    struct mctx *c = ctx;
    if (node >= c->num_nodes || !buf || size == 0 || align == 0 || (align & (align - 1)))
        return QRDMA_EINVAL;
    struct mnode *m = &c->node[node];
    if (m->nused >= QRDMA_MMAP_MAX_BUFS)
        return QRDMA_ENOMEM;
    for (unsigned i = 0; i < m->nblks; i++) {
        struct blk b = m->blks[i];
        if (b.used)
            continue;
        uint64_t dev = (m->mem_phys + b.off + align - 1) & ~(uint64_t)(align - 1);
        uint64_t off = dev - m->mem_phys;
        if (off - b.off > b.len || size > b.len - (off - b.off))
            continue;
        uint64_t pre = off - b.off, post = b.len - pre - size;
        /* worst case two more blocks: make sure they fit before changing anything */
        if (m->nblks + (pre > 0) + (post > 0) > MAX_BLKS)
            return QRDMA_ENOMEM;
        unsigned at = i;
        m->blks[i] = (struct blk){off, size, 1};
        if (pre) {
            blk_insert(m, i, (struct blk){b.off, pre, 0});
            at = i + 1;
        }
        if (post)
            blk_insert(m, at + 1, (struct blk){off + size, post, 0});
        buf->cpu = m->mem + off;
        buf->dev = dev;
        buf->size = size;
        buf->node = node;
        buf->priv = (uintptr_t)off;
        m->nused++;
        return QRDMA_OK;
    }
    return QRDMA_ENOMEM;
}

static void mm_free(void *ctx, struct qrdma_buf *buf)
{
    struct mctx *c = ctx;
    if (!buf || buf->node >= c->num_nodes)
        return;
    struct mnode *m = &c->node[buf->node];
    for (unsigned i = 0; i < m->nblks; i++) {
        if (m->blks[i].off != (uint64_t)buf->priv || !m->blks[i].used)
            continue;
        m->blks[i].used = 0;
        m->nused--;
        if (i + 1 < m->nblks && !m->blks[i + 1].used) {
            m->blks[i].len += m->blks[i + 1].len;
            blk_remove(m, i + 1);
        }
        if (i > 0 && !m->blks[i - 1].used) {
            m->blks[i - 1].len += m->blks[i].len;
            blk_remove(m, i);
        }
        return;
    }
}

uint64_t qrdma_mmap_mem_used(const struct qrdma_backend *be, unsigned node)
{
    const struct mctx *c = be->ctx;
    uint64_t used = 0;
    if (node >= c->num_nodes)
        return 0;
    for (unsigned i = 0; i < c->node[node].nblks; i++)
        if (c->node[node].blks[i].used)
            used += c->node[node].blks[i].len;
    return used;
}

/* ----------------------------------------------------------------- open / close */
/* Map len bytes at byte offset off of fd; *base gets the page-aligned mapping. */
static void *map_at(int fd, uint64_t off, uint64_t len, void **base, size_t *map_len)
{
    uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t aligned = off & ~(pg - 1);
    size_t ml = (size_t)(len + (off - aligned));
    void *p = mmap(NULL, ml, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)aligned);
    if (p == MAP_FAILED)
        return NULL;
    *base = p;
    *map_len = ml;
    return (uint8_t *)p + (off - aligned);
}

static void mm_destroy(struct qrdma_backend *be)
{
    struct mctx *c = be->ctx;
    for (unsigned i = 0; i < QRDMA_MMAP_MAX_NODES; i++) {
        struct mnode *m = &c->node[i];
        if (m->reg_map)
            munmap(m->reg_map, m->reg_map_len);
        if (m->mem_map)
            munmap(m->mem_map, m->mem_map_len);
        if (m->reg_fd >= 0)
            close(m->reg_fd);
        if (m->mem_fd >= 0)
            close(m->mem_fd);
        free(m->blks);
    }
    free(c);
}

int qrdma_mmap_open(const struct qrdma_mmap_cfg *cfg, struct qrdma_backend **out)
{
    if (!cfg || !out || cfg->num_nodes == 0 || cfg->num_nodes > QRDMA_MMAP_MAX_NODES)
        return QRDMA_EINVAL;
    /* the highest address the library uses: the last register */
    const uint64_t min_reg_len = QRDMA_REG(nic.RX_NOTIFS) + 8;
    for (unsigned i = 0; i < cfg->num_nodes; i++) {
        const struct qrdma_mmap_node *n = &cfg->node[i];
        uint64_t rl = n->reg_len ? n->reg_len : 1ULL << QRDMA_ADDR_W;
        if (!n->reg_path || rl < min_reg_len)
            return QRDMA_EINVAL;
        if (n->mem_path && (n->mem_len == 0 || n->mem_phys & 63 || n->mem_phys + n->mem_len < n->mem_phys))
            return QRDMA_EINVAL;
    }
    struct mctx *c = calloc(1, sizeof *c);
    if (!c)
        return QRDMA_ENOMEM;
    for (unsigned i = 0; i < QRDMA_MMAP_MAX_NODES; i++)
        c->node[i].reg_fd = c->node[i].mem_fd = -1;
    c->flags = cfg->flags;
    c->num_nodes = cfg->num_nodes;
    c->be = (struct qrdma_backend){
        .abi = QRDMA_BACKEND_ABI,
        .name = "mmap",
        .ctx = c,
        .num_nodes = cfg->num_nodes,
        .tick_hz = 1000000000ULL,
        .mmio_read64 = mm_read64,
        .mmio_write64 = mm_write64,
        .desc_write = mm_desc_write,
        .mem_alloc = mm_alloc,
        .mem_free = mm_free,
        .idle = mm_idle,
        .now = mm_now,
        .destroy = mm_destroy,
    };
    int err = QRDMA_OK;
    for (unsigned i = 0; i < cfg->num_nodes && !err; i++) {
        const struct qrdma_mmap_node *n = &cfg->node[i];
        struct mnode *m = &c->node[i];
        m->reg_len = n->reg_len ? n->reg_len : 1ULL << QRDMA_ADDR_W;
        m->reg_fd = open(n->reg_path, O_RDWR | O_CLOEXEC);
        if (m->reg_fd < 0 || !(m->reg = map_at(m->reg_fd, n->reg_offset, m->reg_len, &m->reg_map, &m->reg_map_len))) {
            err = QRDMA_EIO;
            break;
        }
        m->blks = calloc(MAX_BLKS, sizeof *m->blks);
        if (!m->blks) {
            err = QRDMA_ENOMEM;
            break;
        }
        if (!n->mem_path)
            continue;
        m->mem_len = n->mem_len;
        m->mem_phys = n->mem_phys;
        m->mem_fd = open(n->mem_path, O_RDWR | O_CLOEXEC);
        if (m->mem_fd < 0 || !(m->mem = map_at(m->mem_fd, n->mem_offset, m->mem_len, &m->mem_map, &m->mem_map_len))) {
            err = QRDMA_EIO;
            break;
        }
        m->blks[0] = (struct blk){0, m->mem_len, 0};
        m->nblks = 1;
    }
    if (err) {
        int saved = errno;
        mm_destroy(&c->be);
        errno = saved;
        return err;
    }
    *out = &c->be;
    return QRDMA_OK;
}
