/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * test_mmap: the mmap backend alone over plain temporary files: 64-bit loads and stores
 * and 32/64-byte descriptor writes land at exactly (file offset + device address) and
 * nowhere else (read back with pread), argument and configuration errors, the DMA buffer
 * allocator (device vs CPU addresses, alignment, exhaustion, merging on free), time.
 */
#define _POSIX_C_SOURCE 200809L

#include "qrdma_backend_mmap.h"
#include "qrdma_fmt.h"
#include "tap.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define REG_OFF 0x1200ULL   /* deliberately not page aligned */
#define MEM_OFF 0x3040ULL
#define MEM_LEN (1ULL << 20)
#define PHYS 0x80000040ULL  /* 64-byte but not page aligned */
#define FILL 0xEE

static int make_file(char *path, uint64_t size)
{
    strcpy(path, "/tmp/qrdma-test-mmap-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    uint8_t buf[4096];
    memset(buf, FILL, sizeof buf);
    for (uint64_t o = 0; o < size; o += sizeof buf)
        if (pwrite(fd, buf, sizeof buf, (off_t)o) != (ssize_t)sizeof buf)
            return -1;
    return fd;
}

static uint64_t file_u64(int fd, uint64_t off)
{
    uint64_t v = 0;
    if (pread(fd, &v, 8, (off_t)off) != 8)
        return ~0ULL;
    return v;
}

/* bytes [lo, hi) of the file all FILL except [a, b) */
static int only_changed(int fd, uint64_t lo, uint64_t hi, uint64_t a, uint64_t b)
{
    uint8_t *buf = malloc(hi - lo);
    int ok = pread(fd, buf, hi - lo, (off_t)lo) == (ssize_t)(hi - lo);
    for (uint64_t i = lo; ok && i < hi; i++)
        if ((i < a || i >= b) && buf[i - lo] != FILL)
            ok = 0;
    free(buf);
    return ok;
}

int main(void)
{
    char rp[64], mp[64];
    const uint64_t win = 1ULL << QRDMA_ADDR_W;
    int rfd = make_file(rp, REG_OFF + win + 4096);
    int mfd = make_file(mp, MEM_OFF + MEM_LEN + 4096);
    if (rfd < 0 || mfd < 0) {
        printf("not ok 1 - temp files\n");
        return 1;
    }

    /* ---- configuration errors */
    struct qrdma_mmap_cfg cfg = {.num_nodes = 1};
    struct qrdma_backend *be = NULL;
    EQ(qrdma_mmap_open(&cfg, &be), QRDMA_EINVAL, "no reg path -> EINVAL");
    cfg.num_nodes = 0;
    EQ(qrdma_mmap_open(&cfg, &be), QRDMA_EINVAL, "0 nodes -> EINVAL");
    cfg.num_nodes = QRDMA_MMAP_MAX_NODES + 1;
    EQ(qrdma_mmap_open(&cfg, &be), QRDMA_EINVAL, "too many nodes -> EINVAL");
    cfg.num_nodes = 1;
    cfg.node[0] = (struct qrdma_mmap_node){.reg_path = rp, .reg_offset = REG_OFF, .reg_len = 0x100};
    EQ(qrdma_mmap_open(&cfg, &be), QRDMA_EINVAL, "window shorter than the registers -> EINVAL");
    cfg.node[0] = (struct qrdma_mmap_node){.reg_path = rp, .reg_offset = REG_OFF, .mem_path = mp,
                                           .mem_offset = MEM_OFF, .mem_len = MEM_LEN, .mem_phys = PHYS + 8};
    EQ(qrdma_mmap_open(&cfg, &be), QRDMA_EINVAL, "phys not 64-byte aligned -> EINVAL");
    cfg.node[0].mem_phys = PHYS;
    cfg.node[0].mem_len = 0;
    EQ(qrdma_mmap_open(&cfg, &be), QRDMA_EINVAL, "mem path with length 0 -> EINVAL");
    cfg.node[0].mem_len = MEM_LEN;
    cfg.node[0].reg_path = "/nonexistent/qrdma-uio";
    EQ(qrdma_mmap_open(&cfg, &be), QRDMA_EIO, "missing register file -> EIO");
    cfg.node[0].reg_path = rp;

    /* ---- open: window = 2^ADDR_W from REG_OFF */
    EQ(qrdma_mmap_open(&cfg, &be), QRDMA_OK, "open");
    if (!be)
        return tap_done();
    EQ(be->abi, QRDMA_BACKEND_ABI, "abi");
    EQ(be->num_nodes, 1, "one node");
    EQ(be->tick_hz, 1000000000ULL, "ns ticks");
    OK(!strcmp(be->name, "mmap"), "name");

    /* ---- 64-bit stores and loads */
    EQ(be->mmio_write64(be->ctx, 0, QRDMA_REG(nic.NQ_BASE), 0x0123456789ABCDEFULL), QRDMA_OK, "write64");
    EQ(file_u64(rfd, REG_OFF + QRDMA_REG(nic.NQ_BASE)), 0x0123456789ABCDEFULL, "write64 lands at reg_off + addr");
    OK(only_changed(rfd, REG_OFF + QRDMA_REG_BASE, REG_OFF + QRDMA_REG_BASE + 0x200, REG_OFF + QRDMA_REG(nic.NQ_BASE),
                    REG_OFF + QRDMA_REG(nic.NQ_BASE) + 8),
       "write64 touches nothing else");
    uint64_t v = 0x5A5A5A5A5A5A5A5AULL, got = 0;
    if (pwrite(rfd, &v, 8, (off_t)(REG_OFF + QRDMA_REG(eng.CNT_DONE))) != 8)
        return 1;
    EQ(be->mmio_read64(be->ctx, 0, QRDMA_REG(eng.CNT_DONE), &got), QRDMA_OK, "read64");
    EQ(got, v, "read64 loads reg_off + addr");
    EQ(be->mmio_read64(be->ctx, 0, QRDMA_REG(eng.CNT_DONE) + 4, &got), QRDMA_EINVAL, "unaligned read -> EINVAL");
    EQ(be->mmio_write64(be->ctx, 0, 3, 0), QRDMA_EINVAL, "unaligned write -> EINVAL");
    EQ(be->mmio_read64(be->ctx, 0, win, &got), QRDMA_EINVAL, "read past the window -> EINVAL");
    EQ(be->mmio_read64(be->ctx, 1, 0, &got), QRDMA_EINVAL, "node 1 of a 1-node backend -> EINVAL");

    /* ---- descriptor writes */
    uint8_t d[64];
    for (int i = 0; i < 64; i++)
        d[i] = (uint8_t)(i * 3 + 1);
    uint64_t a32 = 3 * QRDMA_PAGE_STRIDE + QRDMA_DESC_OFFSET + 5 * QRDMA_DESC_LINE_BYTES;
    EQ(be->desc_write(be->ctx, 0, a32, d, 32), QRDMA_OK, "desc_write 32");
    uint8_t back[64];
    if (pread(rfd, back, 32, (off_t)(REG_OFF + a32)) != 32)
        return 1;
    MEMEQ(back, d, 32, "32 bytes at page 3 channel 5");
    OK(only_changed(rfd, REG_OFF + 3 * QRDMA_PAGE_STRIDE, REG_OFF + 4 * QRDMA_PAGE_STRIDE, REG_OFF + a32,
                    REG_OFF + a32 + 32),
       "desc_write 32 touches nothing else in the page");
    uint64_t a64 = 2 * QRDMA_PAGE_STRIDE + QRDMA_DESC_OFFSET + 6 * QRDMA_DESC_LINE_BYTES;
    EQ(be->desc_write(be->ctx, 0, a64, d, 64), QRDMA_OK, "desc_write 64");
    if (pread(rfd, back, 64, (off_t)(REG_OFF + a64)) != 64)
        return 1;
    MEMEQ(back, d, 64, "64 bytes at page 2 channels 6 and 7");
    OK(only_changed(rfd, REG_OFF + 2 * QRDMA_PAGE_STRIDE, REG_OFF + 3 * QRDMA_PAGE_STRIDE, REG_OFF + a64,
                    REG_OFF + a64 + 64),
       "desc_write 64 touches nothing else in the page");
    EQ(be->desc_write(be->ctx, 0, a64 + 32, d, 64), QRDMA_EINVAL, "64 bytes at an odd line -> EINVAL");
    EQ(be->desc_write(be->ctx, 0, a32 + 8, d, 32), QRDMA_EINVAL, "32 bytes unaligned -> EINVAL");
    EQ(be->desc_write(be->ctx, 0, a32, d, 16), QRDMA_EINVAL, "16 bytes -> EINVAL");
    EQ(be->desc_write(be->ctx, 0, win - 32, d, 64), QRDMA_EINVAL, "past the window -> EINVAL");

    /* ---- allocator */
    EQ(qrdma_mmap_mem_used(be, 0), 0, "nothing allocated");
    struct qrdma_buf b1, b2, b3;
    EQ(be->mem_alloc(be->ctx, 0, 100, 64, &b1), QRDMA_OK, "alloc 100 B");
    EQ(b1.dev, PHYS, "first buffer at phys");
    OK(b1.cpu != NULL && b1.size == 100 && b1.node == 0, "buffer fields");
    EQ(be->mem_alloc(be->ctx, 0, 5000, 4096, &b2), QRDMA_OK, "alloc 5000 B aligned 4096");
    EQ(b2.dev % 4096, 0, "device address aligned");
    EQ((uint8_t *)b2.cpu - (uint8_t *)b1.cpu, b2.dev - b1.dev, "cpu and dev offsets agree");
    memset(b2.cpu, 0x42, 5000);
    uint8_t chk[5000];
    if (pread(mfd, chk, 5000, (off_t)(MEM_OFF + (b2.dev - PHYS))) != 5000)
        return 1;
    uint8_t w42[5000];
    memset(w42, 0x42, sizeof w42);
    MEMEQ(chk, w42, 5000, "CPU stores land at mem_off + (dev - phys) of the file");
    EQ(be->mem_alloc(be->ctx, 0, MEM_LEN, 64, &b3), QRDMA_ENOMEM, "too big -> ENOMEM");
    EQ(be->mem_alloc(be->ctx, 0, 100, 3, &b3), QRDMA_EINVAL, "alignment not a power of 2 -> EINVAL");
    EQ(qrdma_mmap_mem_used(be, 0), 5100, "used bytes");
    be->mem_free(be->ctx, &b1);
    be->mem_free(be->ctx, &b2);
    EQ(qrdma_mmap_mem_used(be, 0), 0, "all freed");
    EQ(be->mem_alloc(be->ctx, 0, MEM_LEN, 64, &b3), QRDMA_OK, "whole buffer after frees (blocks merged)");
    EQ(b3.dev, PHYS, "whole buffer at phys");
    be->mem_free(be->ctx, &b3);
    /* the block table: QRDMA_MMAP_MAX_BUFS live buffers, then ENOMEM */
    static struct qrdma_buf many[QRDMA_MMAP_MAX_BUFS + 1];
    int n_ok = 0;
    for (int i = 0; i < QRDMA_MMAP_MAX_BUFS; i++)
        n_ok += be->mem_alloc(be->ctx, 0, 64, 64, &many[i]) == QRDMA_OK;
    EQ(n_ok, QRDMA_MMAP_MAX_BUFS, "QRDMA_MMAP_MAX_BUFS buffers");
    EQ(be->mem_alloc(be->ctx, 0, 64, 64, &many[QRDMA_MMAP_MAX_BUFS]), QRDMA_ENOMEM, "one more -> ENOMEM");
    for (int i = QRDMA_MMAP_MAX_BUFS - 1; i >= 0; i -= 2)
        be->mem_free(be->ctx, &many[i]);
    for (int i = QRDMA_MMAP_MAX_BUFS - 2; i >= 0; i -= 2)
        be->mem_free(be->ctx, &many[i]);
    EQ(qrdma_mmap_mem_used(be, 0), 0, "all freed in scattered order");
    EQ(be->mem_alloc(be->ctx, 0, MEM_LEN, 64, &b3), QRDMA_OK, "whole buffer again");
    be->mem_free(be->ctx, &b3);

    /* ---- time */
    uint64_t t0 = be->now(be->ctx);
    be->idle(be->ctx, 0);
    nanosleep(&(struct timespec){.tv_sec = 0, .tv_nsec = 1000000}, NULL);
    uint64_t t1 = be->now(be->ctx);
    OK(t1 - t0 >= 1000000, "now() advances in ns");
    qrdma_backend_close(be);

    /* ---- no memory: mem_alloc ENOMEM; two nodes on the same files */
    cfg.num_nodes = 2;
    cfg.node[0].mem_path = NULL;
    cfg.node[1] = (struct qrdma_mmap_node){.reg_path = rp, .reg_offset = REG_OFF, .mem_path = mp,
                                           .mem_offset = MEM_OFF, .mem_len = MEM_LEN, .mem_phys = PHYS};
    EQ(qrdma_mmap_open(&cfg, &be), QRDMA_OK, "open 2 nodes");
    EQ(be->num_nodes, 2, "two nodes");
    EQ(be->mem_alloc(be->ctx, 0, 64, 64, &b1), QRDMA_ENOMEM, "node without memory -> ENOMEM");
    EQ(be->mem_alloc(be->ctx, 1, 64, 64, &b1), QRDMA_OK, "node 1 memory");
    be->mem_free(be->ctx, &b1);
    qrdma_backend_close(be);

    close(rfd);
    close(mfd);
    unlink(rp);
    unlink(mp);
    return tap_done();
}
