/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * test_lib: libqrdma on the fake device (fake_nic.h: the mmap backend over plain files
 * plus a model of the host port): open and ID checks, pages and channels, descriptors at
 * the right device addresses with the right bytes (read back from the register file),
 * exactly one descriptor write per post and no read, error codes on bad input and on a
 * refusing device, single and collective polling with reset-on-read and one read each,
 * the notification ring (entries decoded, rewritten empty, NQ_TAIL advanced, wrap-around,
 * full ring), counters by register address, registers, buffers, waits with a timeout;
 * read channels: allocation, read descriptors, data copied from the remote node, single
 * and collective polls of groups 2 and 3, error reasons, waits; benchmark mode: BENCH
 * written and read, stamped entries decoded field by field and turned into stages (with
 * stamps that wrap around 2^16), and the fake's own stamps end to end.
 */
#include "fake_nic.h"
#include "qrdma.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

/* bound on every wait: a broken library fails a check instead of hanging */
#define WAIT_TICKS 1000000

static struct fake *F;
static struct qrdma_backend *BE;

static uint64_t ref_get(const uint8_t *b, unsigned lsb, unsigned w)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < w; i++)
        v |= (uint64_t)(b[(lsb + i) / 8] >> ((lsb + i) % 8) & 1) << i;
    return v;
}
static void ref_put(uint8_t *b, unsigned lsb, unsigned w, uint64_t v)
{
    for (unsigned i = 0; i < w; i++) {
        unsigned bit = lsb + i;
        b[bit / 8] = (uint8_t)((b[bit / 8] & ~(1u << (bit % 8))) | ((v >> i & 1u) << (bit % 8)));
    }
}
#define G0(b, f) ref_get(b, QRDMA_DESC_LINE0_##f##_LSB, QRDMA_DESC_LINE0_##f##_W)
#define PNE(b, f, v) ref_put(b, QRDMA_NOTIF_ENTRY_##f##_LSB, QRDMA_NOTIF_ENTRY_##f##_W, v)
#define G1(b, f) ref_get(b, QRDMA_DESC_LINE1_##f##_LSB, QRDMA_DESC_LINE1_##f##_W)

static const uint8_t *line_at(unsigned node, unsigned page, unsigned ch)
{
    return fake_regfile(F, node) + page * QRDMA_PAGE_STRIDE + QRDMA_DESC_OFFSET + ch * QRDMA_DESC_LINE_BYTES;
}

static struct fake_stats stats(unsigned node)
{
    struct fake_stats s;
    fake_get_stats(F, node, &s);
    return s;
}

static void new_fake_hops(int auto_complete, unsigned hops)
{
    if (F)
        fake_destroy(F);
    struct fake_cfg cfg = fake_default_cfg();
    cfg.auto_complete = auto_complete;
    cfg.hops = hops;
    cfg.mem_bytes = 16ULL << 20;
    if (fake_create(&cfg, &F) != 0) {
        printf("Bail out! fake_create\n");
        exit(1);
    }
    BE = fake_backend(F);
}

static void new_fake(int auto_complete) { new_fake_hops(auto_complete, 0); }

static void test_open(void)
{
    qrdma_node *n0, *n1, *nx;
    EQ(qrdma_open(BE, 0, &n0), QRDMA_OK, "open node 0");
    EQ(qrdma_open(BE, 1, &n1), QRDMA_OK, "open node 1");
    EQ(qrdma_open(BE, 2, &nx), QRDMA_ENONODE, "open node 2 of 2 -> ENONODE");
    const struct qrdma_info *i0 = qrdma_node_info(n0);
    EQ(i0->node_id, fake_node_id(F, 0), "node 0 ID from NODE_ID");
    EQ(qrdma_node_info(n1)->node_id, fake_node_id(F, 1), "node 1 ID from NODE_ID");
    OK(i0->node_id != qrdma_node_info(n1)->node_id, "node IDs differ");
    EQ(i0->version, QRDMA_FORMAT_VERSION, "format version");
    EQ(i0->block_size, 65536, "PARAMS block size");
    EQ(i0->max_outstanding, 2, "PARAMS max outstanding");
    EQ(i0->host_data_w, 256, "PARAMS host data width");
    EQ(i0->max_payload, 1024, "PARAMS max payload");
    EQ(i0->num_nodes, 4, "PARAMS nodes told apart");
    EQ(qrdma_node_index(n1), 1, "node index");
    qrdma_close(n0);
    qrdma_close(n1);

    uint64_t id = fake_reg(F, 0, QRDMA_REG(eng.ID));
    fake_set_reg(F, 0, QRDMA_REG(eng.ID), id ^ 1);
    EQ(qrdma_open(BE, 0, &nx), QRDMA_ENODEV, "wrong ID magic -> ENODEV");
    fake_set_reg(F, 0, QRDMA_REG(eng.ID), id + (1ULL << QRDMA_ENG_CSR__ID__VERSION_bp));
    EQ(qrdma_open(BE, 0, &nx), QRDMA_EVERSION, "other format version -> EVERSION");
    fake_set_reg(F, 0, QRDMA_REG(eng.ID), id);
    struct qrdma_backend bad = *BE;
    bad.abi = QRDMA_BACKEND_ABI + 1;
    EQ(qrdma_open(&bad, 0, &nx), QRDMA_EVERSION, "other backend ABI -> EVERSION");
    bad = *BE;
    bad.desc_write = NULL;
    EQ(qrdma_open(&bad, 0, &nx), QRDMA_EINVAL, "backend without desc_write -> EINVAL");
}

static void test_pages_channels(void)
{
    qrdma_node *n;
    qrdma_open(BE, 0, &n);
    qrdma_page *p[QRDMA_NUM_PAGES + 1];
    int all = 1;
    for (unsigned i = 0; i < QRDMA_NUM_PAGES; i++)
        all &= qrdma_page_claim(n, QRDMA_PAGE_ANY, &p[i]) == QRDMA_OK && qrdma_page_index(p[i]) == i;
    OK(all, "16 pages claimed, lowest first");
    EQ(qrdma_page_claim(n, QRDMA_PAGE_ANY, &p[16]), QRDMA_ENOPAGE, "17th page -> ENOPAGE");
    EQ(qrdma_page_release(p[3]), QRDMA_OK, "release page 3");
    EQ(qrdma_page_claim(n, 3, &p[3]), QRDMA_OK, "claim page 3 by number");
    EQ(qrdma_page_index(p[3]), 3, "it is page 3");
    EQ(qrdma_page_claim(n, 3, &p[16]), QRDMA_ENOPAGE, "page 3 again -> ENOPAGE");
    EQ(qrdma_page_claim(n, 16, &p[16]), QRDMA_EINVAL, "page 16 -> EINVAL");
    EQ(qrdma_page_release(p[3]), QRDMA_OK, "release");
    EQ(qrdma_page_release(p[3]), QRDMA_EINVAL, "release twice -> EINVAL");

    qrdma_page *pg = p[5];
    int seq = 1;
    for (unsigned c = 0; c < QRDMA_WR_CH_PER_PAGE; c++)
        seq &= qrdma_chan_alloc(pg, 1) == (int)c;
    OK(seq, "64 channels, lowest first");
    EQ(qrdma_chan_alloc(pg, 1), QRDMA_ENOCHAN, "65th channel -> ENOCHAN");
    EQ(qrdma_chan_free(pg, 11), QRDMA_OK, "free 11");
    EQ(qrdma_chan_alloc(pg, 2), QRDMA_ENOCHAN, "no free even pair -> ENOCHAN");
    EQ(qrdma_chan_free(pg, 10), QRDMA_OK, "free 10");
    EQ(qrdma_chan_alloc(pg, 2), 10, "pair 10-11");
    EQ(qrdma_chan_free(pg, 11), QRDMA_ECHAN, "free the second of a pair -> ECHAN");
    EQ(qrdma_chan_free(pg, 10), QRDMA_OK, "free the pair");
    EQ(qrdma_chan_alloc(pg, 1), 10, "10 free again");
    EQ(qrdma_chan_alloc(pg, 1), 11, "11 free again");
    EQ(qrdma_chan_alloc(pg, 3), QRDMA_EINVAL, "width 3 -> EINVAL");
    EQ(qrdma_chan_free(pg, 64), QRDMA_ECHAN, "free channel 64 -> ECHAN");
    qrdma_close(n);
}

/* Sender node 0 page 5, receiver node 1. */
static void test_post_poll(void)
{
    new_fake(0);
    qrdma_node *n, *r;
    qrdma_open(BE, 0, &n);
    qrdma_open(BE, 1, &r);
    qrdma_page *pg;
    qrdma_page_claim(n, 5, &pg);
    for (int c = 0; c < 8; c++)
        qrdma_chan_alloc(pg, 1); /* 0..7 */
    EQ(qrdma_chan_alloc(pg, 2), 8, "pair 8-9");
    struct qrdma_buf src, dst;
    EQ(qrdma_buf_alloc(n, 8192, 4096, &src), QRDMA_OK, "source buffer");
    EQ(qrdma_buf_alloc(r, 8192, 4096, &dst), QRDMA_OK, "destination buffer on node 1");
    EQ(dst.node, 1, "destination in node 1's memory");
    for (int i = 0; i < 8192; i++)
        ((uint8_t *)src.cpu)[i] = (uint8_t)(i * 13 + 5);
    memset(dst.cpu, 0, 8192);

    /* ---- a memory write on channel 7 */
    struct qrdma_write w = {.src_addr = src.dev + 64, .dst_addr = dst.dev + 128, .size = 3000,
                            .dst_node = qrdma_node_info(r)->node_id, .prio = 9, .flags = QRDMA_WR_NOTIFY,
                            .tag = 0xA1B2C3D4};
    struct fake_stats s0 = stats(0);
    EQ(qrdma_post_write(pg, 7, &w), QRDMA_OK, "post write ch 7");
    struct fake_stats s1 = stats(0);
    EQ(s1.desc32 - s0.desc32, 1, "one 32-byte descriptor write");
    EQ(s1.desc64 - s0.desc64, 0, "no 64-byte write");
    EQ(s1.reads - s0.reads, 0, "post reads nothing");
    const uint8_t *l = line_at(0, 5, 7);
    EQ(G0(l, SRC_ADDR), w.src_addr, "line at page 5 ch 7: src_addr");
    EQ(G0(l, DST_ADDR), w.dst_addr, "dst_addr");
    EQ(G0(l, SIZE), 3000, "size");
    EQ(G0(l, DST_NODE), w.dst_node, "dst_node");
    EQ(G0(l, PRIO), 9, "prio");
    EQ(G0(l, IS_INLINE), 0, "not inline");
    EQ(G0(l, NOTIFY), 1, "notify");
    EQ(G0(l, MULTIPATH), 0, "multipath");
    EQ(G0(l, LONG_DESC), 0, "short");
    EQ(G0(l, TAG), 0xA1B2C3D4, "tag");
    uint8_t want[64];
    size_t wl;
    qrdma_desc_build_write(&w, want, &wl);
    MEMEQ(l, want, 32, "the line holds exactly the built descriptor");
    EQ(fake_chan_status(F, 0, 5, 7), QRDMA_ST_BUSY, "device: channel 7 BUSY");
    EQ(fake_reg(F, 0, QRDMA_REG(eng.CNT_DESC_OK)), 1, "device accepted it");

    /* ---- busy channel, bad input: nothing is written */
    s0 = stats(0);
    EQ(qrdma_post_write(pg, 7, &w), QRDMA_EBUSY, "post on a busy channel -> EBUSY");
    struct qrdma_write b = w;
    b.size = 0;
    EQ(qrdma_post_write(pg, 6, &b), QRDMA_ESIZE, "size 0 -> ESIZE");
    b.size = QRDMA_MAX_TRANSFER_BYTES + 1;
    EQ(qrdma_post_write(pg, 6, &b), QRDMA_ESIZE, "size > 4 GiB -> ESIZE");
    b = w;
    b.prio = 16;
    EQ(qrdma_post_write(pg, 6, &b), QRDMA_EINVAL, "prio 16 -> EINVAL");
    EQ(qrdma_post_write(pg, 20, &w), QRDMA_ECHAN, "unallocated channel -> ECHAN");
    EQ(qrdma_post_write(pg, 64, &w), QRDMA_ECHAN, "channel 64 -> ECHAN");
    EQ(qrdma_post_write(pg, 9, &w), QRDMA_ECHAN, "second channel of a pair -> ECHAN");
    b = w;
    b.rkey = 0x1234;
    EQ(qrdma_post_write(pg, 6, &b), QRDMA_ECHAN, "rkey (64-byte) on a single channel -> ECHAN");
    uint8_t pl[33];
    for (int i = 0; i < 33; i++)
        pl[i] = (uint8_t)(0x80 + i);
    EQ(qrdma_post_inline(pg, 6, &w, pl, 33), QRDMA_EINLINE, "inline 33 bytes -> EINLINE");
    EQ(qrdma_post_inline(pg, 6, &w, pl, 0), QRDMA_EINLINE, "inline 0 bytes -> EINLINE");
    EQ(qrdma_post_inline(pg, 6, &w, pl, 9), QRDMA_ECHAN, "inline 9 bytes on a single channel -> ECHAN");
    s1 = stats(0);
    EQ(s1.desc32 + s1.desc64 - s0.desc32 - s0.desc64, 0, "refused posts write nothing");
    EQ(qrdma_page_release(pg), QRDMA_EBUSY, "release a page with a transfer in flight -> EBUSY");
    EQ(qrdma_chan_free(pg, 7), QRDMA_EBUSY, "free a busy channel -> EBUSY");

    /* ---- single poll: one read each, reset-on-read */
    s0 = stats(0);
    EQ(qrdma_poll(pg, 7), QRDMA_ST_BUSY, "poll: BUSY");
    EQ(stats(0).reads - s0.reads, 1, "poll is one read");
    EQ(fake_finish(F, 0, 5, 7, QRDMA_ST_DONE), 0, "device completes it");
    EQ(qrdma_poll(pg, 7), QRDMA_ST_DONE, "poll: DONE");
    EQ(fake_chan_status(F, 0, 5, 7), QRDMA_ST_IDLE, "the read reset it to IDLE");
    EQ(qrdma_poll(pg, 7), QRDMA_ST_IDLE, "next poll: IDLE");
    EQ(stats(0).reads - s0.reads, 3, "three polls, three reads");
    MEMEQ((uint8_t *)dst.cpu + 128, (uint8_t *)src.cpu + 64, 3000, "data arrived in node 1's memory");
    EQ(qrdma_post_write(pg, 7, &w), QRDMA_OK, "channel 7 usable again");
    EQ(qrdma_chan_error(pg, 7), QRDMA_ERR_NONE, "error reason before any ERROR: none");
    fake_finish(F, 0, 5, 7, QRDMA_ST_ERROR);
    EQ(qrdma_poll(pg, 7), QRDMA_ST_ERROR, "poll: ERROR");
    EQ(qrdma_poll(pg, 7), QRDMA_ST_IDLE, "ERROR reset to IDLE by the read");
    s0 = stats(0);
    EQ(qrdma_chan_error(pg, 7), QRDMA_ERR_REMOTE_MEM, "error reason: the receiver's NACK");
    EQ(stats(0).reads - s0.reads, 1, "the reason is one read");
    EQ(qrdma_chan_error(pg, 7), QRDMA_ERR_REMOTE_MEM, "the reason stays (not reset by the read)");
    EQ(qrdma_chan_error(pg, 64), QRDMA_ERR_NONE, "reason of read channel 64: none yet");
    EQ(qrdma_chan_error(pg, 128), QRDMA_EINVAL, "reason of channel 128 -> EINVAL");
    OK(!strcmp(qrdma_err_reason_str(QRDMA_ERR_LOCAL_MEM), "local memory read refused (SLVERR/DECERR)") &&
           !strcmp(qrdma_err_reason_str(99), "unknown reason"),
       "reason texts");

    /* ---- long descriptors on the pair 8-9 */
    b = w;
    b.rkey = 0xFEEDC0DE;
    b.flags = QRDMA_WR_MULTIPATH;
    s0 = stats(0);
    EQ(qrdma_post_write(pg, 8, &b), QRDMA_OK, "rkey write on pair 8-9");
    EQ(stats(0).desc64 - s0.desc64, 1, "one 64-byte descriptor write");
    const uint8_t *l8 = line_at(0, 5, 8), *l9 = line_at(0, 5, 9);
    EQ(G0(l8, LONG_DESC), 1, "line 0 at ch 8: long");
    EQ(G0(l8, MULTIPATH), 1, "multipath");
    EQ(G1(l9, RKEY), 0xFEEDC0DE, "line 1 at ch 9: rkey");
    EQ(fake_chan_status(F, 0, 5, 8), QRDMA_ST_BUSY, "device: 8 BUSY");
    EQ(fake_chan_status(F, 0, 5, 9), QRDMA_ST_IDLE, "device: 9 keeps its own status");
    fake_finish(F, 0, 5, 8, QRDMA_ST_DONE);
    EQ(qrdma_wait(pg, 8, WAIT_TICKS), QRDMA_ST_DONE, "wait: DONE");

    memset(dst.cpu, 0, 64);
    struct qrdma_write iw = {.dst_addr = dst.dev + 3, .dst_node = w.dst_node};
    EQ(qrdma_post_inline(pg, 8, &iw, pl, 20), QRDMA_OK, "inline 20 bytes on pair 8-9");
    EQ(G0(l8, IS_INLINE), 1, "inline flag");
    EQ(G0(l8, SIZE), 20, "size 20");
    uint8_t got_pl[32];
    for (int k = 0; k < 8; k++)
        got_pl[k] = (uint8_t)ref_get(l8, QRDMA_DESC_LINE0_SRC_ADDR_LSB + 8 * k, 8);
    for (int k = 8; k < 20; k++)
        got_pl[k] = (uint8_t)ref_get(l9, QRDMA_DESC_LINE1_INLINE_HI_LSB + 8 * (k - 8), 8);
    MEMEQ(got_pl, pl, 20, "payload bytes 0..7 in src_addr, 8..19 in inline_hi");
    fake_finish(F, 0, 5, 8, QRDMA_ST_DONE);
    EQ(qrdma_poll(pg, 8), QRDMA_ST_DONE, "inline DONE");
    MEMEQ((uint8_t *)dst.cpu + 3, pl, 20, "inline payload arrived");
    s0 = stats(0);
    EQ(qrdma_post_inline(pg, 6, &iw, pl, 8), QRDMA_OK, "inline 8 bytes on a single channel");
    EQ(stats(0).desc32 - s0.desc32, 1, "as a 32-byte descriptor");
    fake_finish(F, 0, 5, 6, QRDMA_ST_DONE);
    qrdma_poll(pg, 6);

    /* ---- the device refuses a descriptor the library thought allowed */
    EQ(qrdma_post_write(pg, 5, &w), QRDMA_OK, "post ch 5");
    EQ(qrdma_chan_forget(pg, 5), QRDMA_OK, "forget it (as after a lost completion)");
    uint64_t err0 = fake_reg(F, 0, QRDMA_REG(eng.CNT_DESC_ERR));
    EQ(qrdma_post_write(pg, 5, &w), QRDMA_ESLVERR, "device refuses a write to a BUSY channel -> ESLVERR");
    EQ(fake_reg(F, 0, QRDMA_REG(eng.CNT_DESC_ERR)) - err0, 1, "CNT_DESC_ERR counted it");
    EQ(qrdma_poll(pg, 5), QRDMA_ST_BUSY, "the first transfer still runs");
    fake_finish(F, 0, 5, 5, QRDMA_ST_DONE);
    EQ(qrdma_poll(pg, 5), QRDMA_ST_DONE, "and completes");
    EQ(qrdma_post_write(pg, 5, &w), QRDMA_OK, "channel usable again");
    fake_finish(F, 0, 5, 5, QRDMA_ST_DONE);
    qrdma_poll(pg, 5);

    /* ---- IDLE answers: they end a transfer only if its post failed */
    EQ(qrdma_post_write(pg, 4, &w), QRDMA_OK, "post ch 4");
    fake_set_status(F, 0, 5, 4, QRDMA_ST_IDLE); /* as if the read overtook the posted write */
    EQ(qrdma_poll(pg, 4), QRDMA_ST_IDLE, "poll: IDLE");
    EQ(qrdma_post_write(pg, 4, &w), QRDMA_EBUSY, "IDLE does not end a posted transfer -> EBUSY");
    fake_set_status(F, 0, 5, 4, QRDMA_ST_BUSY);
    fake_finish(F, 0, 5, 4, QRDMA_ST_DONE);
    EQ(qrdma_poll(pg, 4), QRDMA_ST_DONE, "DONE ends it");
    fake_set_status(F, 0, 5, 3, QRDMA_ST_BUSY); /* the device thinks ch 3 is busy */
    EQ(qrdma_post_write(pg, 3, &w), QRDMA_ESLVERR, "refused post -> ESLVERR");
    EQ(qrdma_post_write(pg, 3, &w), QRDMA_EBUSY, "in flight until a poll answers");
    fake_set_status(F, 0, 5, 3, QRDMA_ST_IDLE);
    EQ(qrdma_poll(pg, 3), QRDMA_ST_IDLE, "poll: IDLE");
    EQ(qrdma_post_write(pg, 3, &w), QRDMA_OK, "IDLE ends a refused post: channel usable");
    fake_finish(F, 0, 5, 3, QRDMA_ST_DONE);
    EQ(qrdma_poll(pg, 3), QRDMA_ST_DONE, "DONE");

    qrdma_buf_free(n, &src);
    qrdma_buf_free(r, &dst);
    qrdma_close(n);
    qrdma_close(r);
}

static void test_collective(void)
{
    new_fake(0);
    qrdma_node *n, *r;
    qrdma_open(BE, 0, &n);
    qrdma_open(BE, 1, &r);
    qrdma_page *pg;
    qrdma_page_claim(n, 2, &pg);
    for (int c = 0; c < 64; c++)
        qrdma_chan_alloc(pg, 1);
    struct qrdma_buf dst;
    qrdma_buf_alloc(r, 4096, 64, &dst);
    struct qrdma_write w = {.dst_addr = dst.dev, .dst_node = qrdma_node_info(r)->node_id};
    uint8_t pl[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int all = 1;
    for (unsigned c = 32; c < 64; c++) {
        w.dst_addr = dst.dev + 8 * (c - 32);
        all &= qrdma_post_inline(pg, c, &w, pl, 8) == QRDMA_OK;
    }
    OK(all, "32 inline writes on channels 32..63");
    fake_finish(F, 0, 2, 32 + 3, QRDMA_ST_DONE);
    fake_finish(F, 0, 2, 32 + 7, QRDMA_ST_ERROR);
    fake_finish(F, 0, 2, 32 + 31, QRDMA_ST_DONE);
    struct fake_stats s0 = stats(0);
    struct qrdma_coll c;
    EQ(qrdma_poll_coll(pg, 1, &c), QRDMA_OK, "collective read of group 1");
    EQ(stats(0).reads - s0.reads, 1, "one read");
    EQ(c.done, (1u << 3) | (1u << 31), "DONE: channels 35 and 63");
    EQ(c.error, 1u << 7, "ERROR: channel 39");
    EQ(c.busy, ~((1u << 3) | (1u << 7) | (1u << 31)), "BUSY: the other 29");
    uint64_t raw = 0;
    for (unsigned i = 0; i < 32; i++)
        raw |= (uint64_t)(i == 3 || i == 31 ? QRDMA_ST_DONE : i == 7 ? QRDMA_ST_ERROR : QRDMA_ST_BUSY) << (2 * i);
    EQ(c.raw, raw, "raw: channel 32+i in bits 2i+1:2i");
    EQ(fake_chan_status(F, 0, 2, 35), QRDMA_ST_IDLE, "35 reset by the collective read");
    EQ(fake_chan_status(F, 0, 2, 39), QRDMA_ST_IDLE, "39 reset by the collective read");
    EQ(qrdma_poll_coll(pg, 1, &c), QRDMA_OK, "second collective read");
    EQ(c.done | c.error, 0, "nothing reported twice");
    EQ(c.raw & 3, QRDMA_ST_BUSY, "32 still BUSY");
    EQ(c.raw >> 6 & 3, QRDMA_ST_IDLE, "35 IDLE");
    EQ(qrdma_post_inline(pg, 35, &w, pl, 8), QRDMA_OK, "35 may be posted again");
    EQ(qrdma_post_inline(pg, 36, &w, pl, 8), QRDMA_EBUSY, "36 still in flight -> EBUSY");
    EQ(qrdma_poll_coll(pg, 0, &c), QRDMA_OK, "group 0");
    EQ(c.raw, 0, "group 0 all IDLE");
    EQ(qrdma_poll_coll(pg, 2, &c), QRDMA_OK, "group 2 (read channels 64..95)");
    EQ(c.raw, 0, "group 2 all IDLE");
    EQ(qrdma_poll_coll(pg, 4, &c), QRDMA_EINVAL, "group 4 -> EINVAL");
    qrdma_buf_free(r, &dst);
    qrdma_close(n);
    qrdma_close(r);
}

/* Reads: node 0 page 4 reads node 1's memory into its own. */
static void test_reads(void)
{
    new_fake(0);
    qrdma_node *n, *r;
    qrdma_open(BE, 0, &n);
    qrdma_open(BE, 1, &r);
    qrdma_page *pg;
    qrdma_page_claim(n, 4, &pg);
    EQ(qrdma_chan_alloc_read(pg, 1), 64, "first read channel: 64");
    EQ(qrdma_chan_alloc_read(pg, 2), 66, "a read pair: 66-67");
    EQ(qrdma_chan_alloc(pg, 1), 0, "write channels apart: 0");
    EQ(qrdma_chan_alloc_read(pg, 3), QRDMA_EINVAL, "width 3 -> EINVAL");
    struct qrdma_buf src, dst;
    qrdma_buf_alloc(r, 8192, 64, &src);
    qrdma_buf_alloc(n, 8192, 64, &dst);
    for (unsigned k = 0; k < 8192; k++)
        ((uint8_t *)src.cpu)[k] = (uint8_t)(k * 7 + 3);
    memset(dst.cpu, 0, 8192);
    uint16_t rid = qrdma_node_info(r)->node_id;
    struct qrdma_read rd = {.src_addr = src.dev + 100, .dst_addr = dst.dev + 8, .size = 3000,
                            .src_node = rid, .prio = 6, .tag = 0xABCD};
    struct fake_stats s0 = stats(0);
    EQ(qrdma_post_read(pg, 64, &rd), QRDMA_OK, "post a read on 64");
    EQ(stats(0).desc32 - s0.desc32, 1, "one 32-byte descriptor write");
    EQ(stats(0).reads - s0.reads, 0, "no read");
    const uint8_t *l = line_at(0, 4, 64);
    OK(G0(l, SRC_ADDR) == rd.src_addr && G0(l, DST_ADDR) == rd.dst_addr && G0(l, SIZE) == 3000
       && G0(l, DST_NODE) == rid && G0(l, PRIO) == 6 && G0(l, TAG) == 0xABCD,
       "read descriptor fields at channel 64's line");
    EQ(G0(l, IS_INLINE) | G0(l, NOTIFY) | G0(l, LONG_DESC), 0, "no inline, no notify, short");
    EQ(qrdma_post_read(pg, 64, &rd), QRDMA_EBUSY, "64 in flight -> EBUSY");
    struct qrdma_write w = {.src_addr = dst.dev, .dst_addr = src.dev, .size = 8, .dst_node = rid};
    EQ(qrdma_post_write(pg, 64, &w), QRDMA_ECHAN, "a write on a read channel -> ECHAN");
    EQ(qrdma_post_inline(pg, 64, &w, "x", 1), QRDMA_ECHAN, "inline on a read channel -> ECHAN");
    EQ(qrdma_post_read(pg, 0, &rd), QRDMA_ECHAN, "a read on a write channel -> ECHAN");
    EQ(qrdma_post_read(pg, 65, &rd), QRDMA_ECHAN, "a read on an unallocated channel -> ECHAN");
    struct qrdma_read rk = rd;
    rk.rkey = 0x1201;
    EQ(qrdma_post_read(pg, 64, &rk), QRDMA_ECHAN, "rkey on a single channel -> ECHAN");
    EQ(qrdma_poll(pg, 64), QRDMA_ST_BUSY, "64 BUSY");
    EQ(fake_finish(F, 0, 4, 64, QRDMA_ST_DONE), 0, "the fake completes the read");
    OK(!memcmp((uint8_t *)dst.cpu + 8, (uint8_t *)src.cpu + 100, 3000), "remote bytes landed locally");
    EQ(((uint8_t *)dst.cpu)[7] | ((uint8_t *)dst.cpu)[3008], 0, "nothing outside the destination");
    EQ(qrdma_poll(pg, 64), QRDMA_ST_DONE, "64 DONE");
    EQ(qrdma_poll(pg, 64), QRDMA_ST_IDLE, "64 IDLE after the reset-on-read");
    /* a 64-byte read descriptor: rkey and lkey in line 1 */
    rk.lkey = 0x0BADF00D;
    rk.flags = QRDMA_RD_MULTIPATH;
    s0 = stats(0);
    EQ(qrdma_post_read(pg, 66, &rk), QRDMA_OK, "post a keyed read on the pair 66-67");
    EQ(stats(0).desc64 - s0.desc64, 1, "one 64-byte descriptor write");
    EQ(G0(line_at(0, 4, 66), LONG_DESC), 1, "long_desc");
    EQ(G0(line_at(0, 4, 66), MULTIPATH), 1, "multipath");
    EQ(G1(line_at(0, 4, 67), RKEY), 0x1201, "rkey in line 1");
    EQ(G1(line_at(0, 4, 67), LKEY), 0x0BADF00D, "lkey in line 1 bits 31:0");
    fake_finish(F, 0, 4, 66, QRDMA_ST_ERROR);
    EQ(qrdma_poll(pg, 66), QRDMA_ST_ERROR, "66 ERROR");
    EQ(qrdma_chan_error(pg, 66), QRDMA_ERR_REMOTE_MEM, "reason: the remote refused");
    /* a source outside the remote memory, a destination outside the local one */
    rd.src_addr = src.dev + (64ULL << 20);
    EQ(qrdma_post_read(pg, 64, &rd), QRDMA_OK, "read from outside the remote memory");
    fake_finish(F, 0, 4, 64, QRDMA_ST_DONE);
    EQ(qrdma_poll(pg, 64), QRDMA_ST_ERROR, "ERROR");
    EQ(qrdma_chan_error(pg, 64), QRDMA_ERR_REMOTE_MEM, "reason REMOTE_MEM");
    rd.src_addr = src.dev;
    rd.dst_addr = dst.dev + (64ULL << 20);
    EQ(qrdma_post_read(pg, 64, &rd), QRDMA_OK, "read into outside the local memory");
    fake_finish(F, 0, 4, 64, QRDMA_ST_DONE);
    EQ(qrdma_poll(pg, 64), QRDMA_ST_ERROR, "ERROR");
    EQ(qrdma_chan_error(pg, 64), QRDMA_ERR_LOCAL_MEM, "reason LOCAL_MEM");
    /* D7: a read channel's descriptor with notify (not something the library builds) */
    uint8_t d[64];
    size_t len;
    w.flags = QRDMA_WR_NOTIFY;
    qrdma_desc_build_write(&w, d, &len);
    uint64_t a70 = 4 * QRDMA_PAGE_STRIDE + QRDMA_DESC_OFFSET + 70 * QRDMA_DESC_LINE_BYTES;
    EQ(BE->desc_write(BE->ctx, 0, a70, d, len), QRDMA_ESLVERR, "notify in a read channel -> SLVERR (D7)");
    EQ(fake_chan_status(F, 0, 4, 70), QRDMA_ST_ERROR, "70 ERROR");
    EQ(qrdma_chan_error(pg, 70), QRDMA_ERR_BAD_DESC, "reason BAD_DESC");
    /* collective polls of groups 2 and 3 */
    int all = 1;
    rd.dst_addr = dst.dev;
    unsigned n3 = 0;
    for (int c; (c = qrdma_chan_alloc_read(pg, 1)) >= 0;)
        if (c >= 96) {
            all &= qrdma_post_read(pg, (unsigned)c, &rd) == QRDMA_OK;
            n3++;
        }
    OK(all && n3 == 32, "32 reads on channels 96..127");
    fake_finish(F, 0, 4, 96 + 5, QRDMA_ST_DONE);
    fake_finish(F, 0, 4, 96 + 30, QRDMA_ST_ERROR);
    struct qrdma_coll c;
    s0 = stats(0);
    EQ(qrdma_poll_coll(pg, 3, &c), QRDMA_OK, "collective read of group 3");
    EQ(stats(0).reads - s0.reads, 1, "one read");
    EQ(c.done, 1u << 5, "DONE: 101");
    EQ(c.error, 1u << 30, "ERROR: 126");
    EQ(c.busy, ~((1u << 5) | (1u << 30)), "BUSY: the other 30");
    EQ(qrdma_poll_coll(pg, 3, &c), QRDMA_OK, "again");
    EQ(c.done | c.error, 0, "reset by the first read");
    EQ(qrdma_poll_coll(pg, 2, &c), QRDMA_OK, "group 2");
    EQ(c.error, 1u << (70 - 64), "group 2: ERROR only 70 (D7)");
    EQ(c.done | c.busy, 0, "group 2: nothing else DONE or BUSY");
    EQ(fake_chan_status(F, 0, 4, 70), QRDMA_ST_IDLE, "70 reset by the collective read");
    EQ(qrdma_post_read(pg, 101, &rd), QRDMA_OK, "101 may be posted again");
    EQ(qrdma_post_read(pg, 102, &rd), QRDMA_EBUSY, "102 still in flight -> EBUSY");
    qrdma_buf_free(r, &src);
    qrdma_buf_free(n, &dst);
    qrdma_close(n);
    qrdma_close(r);
    /* auto completion: qrdma_wait on a read channel */
    new_fake(1);
    qrdma_open(BE, 0, &n);
    qrdma_open(BE, 1, &r);
    qrdma_page_claim(n, 0, &pg);
    qrdma_buf_alloc(r, 4096, 64, &src);
    qrdma_buf_alloc(n, 4096, 64, &dst);
    memset(src.cpu, 0x5C, 4096);
    memset(dst.cpu, 0, 4096);
    int ch = qrdma_chan_alloc_read(pg, 1);
    struct qrdma_read ra = {.src_addr = src.dev, .dst_addr = dst.dev, .size = 4096,
                            .src_node = qrdma_node_info(r)->node_id};
    EQ(qrdma_post_read(pg, (unsigned)ch, &ra), QRDMA_OK, "post");
    EQ(qrdma_wait(pg, (unsigned)ch, WAIT_TICKS), QRDMA_ST_DONE, "wait: DONE");
    OK(((uint8_t *)dst.cpu)[0] == 0x5C && ((uint8_t *)dst.cpu)[4095] == 0x5C, "data read");
    qrdma_buf_free(r, &src);
    qrdma_buf_free(n, &dst);
    qrdma_close(n);
    qrdma_close(r);
}

static void test_notifications(void)
{
    new_fake(0);
    qrdma_node *n, *r;
    qrdma_open(BE, 0, &n);
    qrdma_open(BE, 1, &r);
    struct qrdma_notif nt;
    EQ(qrdma_nq_poll(r, &nt), QRDMA_ENOTIF, "poll without a ring -> ENOTIF");
    EQ(qrdma_nq_setup(r, 0), QRDMA_EINVAL, "0 entries -> EINVAL");
    EQ(qrdma_nq_setup(r, 6), QRDMA_EINVAL, "6 entries (not a power of 2) -> EINVAL");
    EQ(qrdma_nq_setup(r, 4), QRDMA_OK, "ring of 4");
    const struct qrdma_buf *ring = qrdma_nq_buf(r);
    OK(ring != NULL, "ring buffer");
    EQ(ring->dev % 64, 0, "ring 64-byte aligned");
    uint64_t base;
    memcpy(&base, fake_regfile(F, 1) + QRDMA_REG(nic.NQ_BASE), 8);
    EQ(base, ring->dev, "NQ_BASE written with the ring's device address");
    EQ(fake_reg(F, 1, QRDMA_REG(nic.NQ_SIZE)), 4, "NQ_SIZE = 4");
    uint8_t zero[256] = {0};
    MEMEQ(ring->cpu, zero, 256, "every entry empty");

    qrdma_page *pg;
    qrdma_page_claim(n, 9, &pg);
    for (int c = 0; c < 8; c++)
        qrdma_chan_alloc(pg, 1);
    struct qrdma_buf src, dst;
    qrdma_buf_alloc(n, 4096, 64, &src);
    qrdma_buf_alloc(r, 4096, 64, &dst);
    struct qrdma_write w = {.src_addr = src.dev, .size = 100, .dst_node = qrdma_node_info(r)->node_id,
                            .flags = QRDMA_WR_NOTIFY};
    for (unsigned c = 0; c < 6; c++) {
        w.dst_addr = dst.dev + 128 * c;
        w.tag = 100 + c;
        qrdma_post_write(pg, c, &w);
    }
    int fin = 0;
    for (unsigned c = 0; c < 4; c++)
        fin += fake_finish(F, 0, 9, c, QRDMA_ST_DONE) == 0;
    EQ(fin, 4, "4 transfers completed, 4 notifications written");
    EQ(fake_finish(F, 0, 9, 4, QRDMA_ST_DONE), -2, "5th held: ring full (NQ_TAIL = 0)");
    EQ(qrdma_nq_poll(r, &nt), 1, "take entry 0");
    EQ(nt.kind, QRDMA_NET_CONTROL, "kind CONTROL");
    EQ(nt.src_node, qrdma_node_info(n)->node_id, "src_node");
    EQ(nt.xfer, 9 * QRDMA_CH_PER_PAGE + 0, "xfer = page 9 * 128 + ch 0");
    EQ(nt.pd, 9, "pd");
    EQ(nt.size, 100, "size");
    EQ(nt.tag, 100, "tag");
    EQ(nt.dst_addr, dst.dev, "dst_addr");
    MEMEQ(ring->cpu, zero, 64, "entry 0 rewritten empty");
    EQ(fake_reg(F, 1, QRDMA_REG(nic.NQ_TAIL)), 1, "NQ_TAIL = 1");
    EQ(qrdma_nq_tail(r), 1, "software tail 1");
    EQ(fake_finish(F, 0, 9, 4, QRDMA_ST_DONE), 0, "5th completes into the freed slot");
    EQ(((const uint8_t *)ring->cpu)[0], QRDMA_NOTIF_FULL, "slot 0 reused (wrap-around)");
    uint32_t tags = 0;
    int taken = 0;
    while (qrdma_nq_poll(r, &nt) == 1) {
        tags = tags * 10 + (nt.tag - 100);
        taken++;
    }
    EQ(taken, 4, "4 more entries");
    EQ(tags, 1234, "in completion order (tags 101..104)");
    EQ(fake_reg(F, 1, QRDMA_REG(nic.NQ_TAIL)), 5, "NQ_TAIL = 5");
    EQ(fake_finish(F, 0, 9, 5, QRDMA_ST_DONE), 0, "6th completes");
    EQ(qrdma_nq_poll(r, &nt), 1, "entry from slot 1");
    EQ(nt.tag, 105, "tag 105");
    EQ(qrdma_nq_poll(r, &nt), 0, "ring empty -> 0");
    for (unsigned c = 0; c < 6; c++)
        qrdma_poll(pg, c);

    /* inline with notify: kind INLINE, tag 0 */
    uint8_t pl[4] = {9, 8, 7, 6};
    struct qrdma_write iw = {.dst_addr = dst.dev + 1000, .dst_node = w.dst_node, .flags = QRDMA_WR_NOTIFY, .tag = 5};
    qrdma_post_inline(pg, 0, &iw, pl, 4);
    fake_finish(F, 0, 9, 0, QRDMA_ST_DONE);
    EQ(qrdma_nq_poll(r, &nt), 1, "inline notification");
    EQ(nt.kind, QRDMA_NET_INLINE, "kind INLINE");
    EQ(nt.size, 4, "size 4");
    EQ(nt.tag, 0, "tag 0 for inline");
    EQ(nt.dst_addr, dst.dev + 1000, "dst_addr");
    qrdma_poll(pg, 0);

    EQ(qrdma_nq_setup(r, 8), QRDMA_OK, "set up again (8 entries)");
    EQ(fake_reg(F, 1, QRDMA_REG(nic.NQ_SIZE)), 8, "NQ_SIZE = 8");
    EQ(fake_reg(F, 1, QRDMA_REG(nic.NQ_TAIL)), 0, "writing NQ_SIZE restarted the tail");
    EQ(qrdma_nq_tail(r), 0, "software tail 0");
    EQ(qrdma_nq_teardown(r), QRDMA_OK, "teardown");
    EQ(fake_reg(F, 1, QRDMA_REG(nic.NQ_SIZE)), 0, "NQ_SIZE = 0");
    EQ(qrdma_nq_poll(r, &nt), QRDMA_ENOTIF, "poll after teardown -> ENOTIF");
    qrdma_buf_free(n, &src);
    qrdma_buf_free(r, &dst);
    qrdma_close(n);
    qrdma_close(r);
}

static void test_counters_regs(void)
{
    new_fake(0);
    qrdma_node *n;
    qrdma_open(BE, 0, &n);
    for (int c = 0; c < QRDMA_CNT_COUNT; c++)
        fake_set_reg(F, 0, qrdma_counter_addr((enum qrdma_counter)c), 0x1000000 + 0x111 * (uint64_t)c);
    uint64_t v[QRDMA_CNT_COUNT];
    struct fake_stats s0 = stats(0);
    EQ(qrdma_counters_read(n, v), QRDMA_OK, "read all counters");
    EQ(stats(0).reads - s0.reads, QRDMA_CNT_COUNT, "one read per counter");
    int all = 1;
    for (int c = 0; c < QRDMA_CNT_COUNT; c++)
        all &= v[c] == 0x1000000 + 0x111 * (uint64_t)c;
    OK(all, "each counter from its own register");
    uint64_t x;
    EQ(qrdma_counter_read(n, QRDMA_CNT_TX_BYTES, &x), QRDMA_OK, "one counter");
    EQ(x, fake_reg(F, 0, QRDMA_REG(nic.TX_BYTES)), "TX_BYTES");
    EQ(qrdma_counter_read(n, QRDMA_CNT_COUNT, &x), QRDMA_EINVAL, "counter out of range -> EINVAL");
    EQ(qrdma_reg_read(n, QRDMA_REG(nic.NODE_ID), &x), QRDMA_OK, "read NODE_ID");
    EQ(x, fake_node_id(F, 0), "NODE_ID value");
    EQ(qrdma_reg_read(n, QRDMA_REG_BASE + 0x60, &x), QRDMA_ESLVERR, "unmapped register -> ESLVERR");
    EQ(x, 0, "SLVERR reads 0");
    EQ(qrdma_reg_read(n, QRDMA_REG(eng.ID) + 4, &x), QRDMA_EINVAL, "unaligned -> EINVAL");
    EQ(qrdma_reg_read(n, QRDMA_STATUS_OFFSET, &x), QRDMA_EINVAL, "below REG_BASE -> EINVAL");
    EQ(qrdma_reg_write(n, QRDMA_REG(eng.CNT_DONE), 1), QRDMA_ESLVERR, "write a read-only register -> ESLVERR");
    EQ(qrdma_reg_write(n, QRDMA_REG(nic.NQ_TAIL), 3), QRDMA_OK, "write NQ_TAIL");
    EQ(fake_reg(F, 0, QRDMA_REG(nic.NQ_TAIL)), 3, "NQ_TAIL = 3");

    struct qrdma_buf b;
    EQ(qrdma_buf_alloc(n, 0, 64, &b), QRDMA_EINVAL, "buffer of 0 bytes -> EINVAL");
    EQ(qrdma_buf_alloc(n, 64, 96, &b), QRDMA_EINVAL, "alignment 96 -> EINVAL");
    EQ(qrdma_buf_alloc(n, 1ULL << 40, 64, &b), QRDMA_ENOMEM, "1 TiB -> ENOMEM");
    EQ(qrdma_buf_alloc(n, 100, 0, &b), QRDMA_OK, "default alignment");
    EQ(b.dev % 64, 0, "64-byte aligned");
    qrdma_buf_free(n, &b);
    OK(b.cpu == NULL, "free clears the struct");
    qrdma_close(n);
}

#define WCTRL(v, f) (((v) & QRDMA_NIC_CSR__WIN_CTRL__##f##_bm) >> QRDMA_NIC_CSR__WIN_CTRL__##f##_bp)

static void test_windows(void)
{
    new_fake(0);
    qrdma_node *n;
    qrdma_open(BE, 0, &n);
    EQ(qrdma_node_info(n)->prot_windows, 4, "PARAMS: 4 windows");
    struct qrdma_mr mr[5];
    EQ(qrdma_mr_reg(n, 3, 0x10000, 0, QRDMA_MR_REMOTE_WRITE, &mr[0]), QRDMA_EINVAL, "length 0 -> EINVAL");
    EQ(qrdma_mr_reg(n, 3, ~0ULL - 10, 12, QRDMA_MR_REMOTE_WRITE, &mr[0]), QRDMA_EINVAL, "past 2^64 -> EINVAL");
    EQ(qrdma_mr_reg(n, 16, 0x10000, 8, QRDMA_MR_REMOTE_WRITE, &mr[0]), QRDMA_EINVAL, "pd 16 -> EINVAL");
    EQ(qrdma_mr_reg(n, 3, 0x10000, 8, 0, &mr[0]), QRDMA_EINVAL, "no access -> EINVAL");
    EQ(qrdma_mr_reg(n, 3, 0x10000, 8, 8, &mr[0]), QRDMA_EINVAL, "unknown access -> EINVAL");
    EQ(qrdma_mr_reg(n, 3, 0x12340, 0x1000, QRDMA_MR_REMOTE_WRITE, &mr[0]), QRDMA_OK, "register");
    EQ(fake_reg(F, 0, QRDMA_REG(nic.WIN_BASE)), 0x12340, "WIN_BASE");
    EQ(fake_reg(F, 0, QRDMA_REG(nic.WIN_LEN)), 0x1000, "WIN_LEN");
    uint64_t c = fake_reg(F, 0, QRDMA_REG(nic.WIN_CTRL));
    EQ(WCTRL(c, INDEX), 0, "entry 0");
    EQ(WCTRL(c, PD), 3, "pd 3");
    EQ(WCTRL(c, RWR), 1, "write permission");
    EQ(WCTRL(c, RRD), 0, "no read permission");
    EQ(WCTRL(c, LWR), 0, "no local-write permission");
    EQ(WCTRL(c, VALID), 1, "valid");
    EQ(mr[0].rkey, WCTRL(c, TAG), "key: entry 0, the tag written");
    OK(WCTRL(c, TAG) != 0, "tag never 0");
    for (int i = 1; i < 4; i++)
        EQ(qrdma_mr_reg(n, 0, 0x100000 * (uint64_t)i, 64, QRDMA_MR_REMOTE_WRITE | QRDMA_MR_REMOTE_READ, &mr[i]),
           QRDMA_OK, "register another");
    EQ(mr[3].index, 3, "entries in order");
    c = fake_reg(F, 0, QRDMA_REG(nic.WIN_CTRL));
    EQ(WCTRL(c, RWR) + 2 * WCTRL(c, RRD) + 4 * WCTRL(c, LWR), 3, "write and read permission");
    EQ(qrdma_mr_dereg(n, &mr[3]), QRDMA_OK, "deregister entry 3");
    EQ(qrdma_mr_reg(n, 2, 0x400000, 64, QRDMA_MR_LOCAL_WRITE, &mr[3]), QRDMA_OK, "register local write");
    c = fake_reg(F, 0, QRDMA_REG(nic.WIN_CTRL));
    EQ(WCTRL(c, RWR) + 2 * WCTRL(c, RRD) + 4 * WCTRL(c, LWR), 4, "local-write permission alone");
    EQ(mr[3].rkey >> QRDMA_RKEY_TAG_W, 3, "key indexes entry 3");
    EQ(qrdma_mr_reg(n, 0, 0, 64, QRDMA_MR_REMOTE_WRITE, &mr[4]), QRDMA_ENOMEM, "table full -> ENOMEM");
    EQ(qrdma_mr_dereg(n, &mr[0]), QRDMA_OK, "deregister");
    c = fake_reg(F, 0, QRDMA_REG(nic.WIN_CTRL));
    EQ(WCTRL(c, INDEX), 0, "deregister: entry 0");
    EQ(WCTRL(c, VALID), 0, "deregister: valid 0");
    EQ(qrdma_mr_dereg(n, &mr[0]), QRDMA_EINVAL, "twice -> EINVAL");
    /* an entry taken again gets another tag every time: a stale key misses */
    int fresh = 1;
    uint32_t last = mr[0].rkey;
    for (int k = 0; k < 300; k++) {
        struct qrdma_mr m;
        EQ(qrdma_mr_reg(n, 1, 0x2000, 64, QRDMA_MR_REMOTE_WRITE, &m), QRDMA_OK, "register again");
        fresh &= m.index == 0 && m.rkey != last && (m.rkey & 0xFF) != 0;
        last = m.rkey;
        struct qrdma_mr stale = m;
        stale.rkey ^= 1;
        fresh &= qrdma_mr_dereg(n, &stale) == QRDMA_EINVAL;
        qrdma_mr_dereg(n, &m);
    }
    OK(fresh, "300 registrations of entry 0: each a new nonzero tag; a stale key does not deregister");
    EQ(qrdma_prot_open(n, 1), QRDMA_OK, "development mode on");
    EQ(fake_reg(F, 0, QRDMA_REG(nic.PROT_CTRL)), 1, "PROT_CTRL.open 1");
    EQ(qrdma_prot_open(n, 0), QRDMA_OK, "off");
    EQ(fake_reg(F, 0, QRDMA_REG(nic.PROT_CTRL)), 0, "PROT_CTRL.open 0");
    OK(strcmp(qrdma_err_reason_str(QRDMA_ERR_REMOTE_ACCESS), "unknown reason") != 0, "reason named");
    qrdma_close(n);
}

static void test_auto(void)
{
    new_fake(1);
    qrdma_node *n, *r;
    qrdma_open(BE, 0, &n);
    qrdma_open(BE, 1, &r);
    qrdma_page *pg;
    qrdma_page_claim(n, QRDMA_PAGE_ANY, &pg);
    int ch = qrdma_chan_alloc(pg, 1);
    struct qrdma_buf src, dst;
    qrdma_buf_alloc(n, 65536, 4096, &src);
    qrdma_buf_alloc(r, 65536, 4096, &dst);
    for (int i = 0; i < 65536; i++)
        ((uint8_t *)src.cpu)[i] = (uint8_t)(i ^ i >> 8);
    struct qrdma_write w = {.src_addr = src.dev, .dst_addr = dst.dev, .size = 65536,
                            .dst_node = qrdma_node_info(r)->node_id};
    uint64_t t0 = qrdma_now(n);
    EQ(qrdma_post_write(pg, (unsigned)ch, &w), QRDMA_OK, "post 64 KiB");
    EQ(qrdma_wait(pg, (unsigned)ch, WAIT_TICKS), QRDMA_ST_DONE, "wait: DONE on its own");
    OK(qrdma_now(n) - t0 >= 65536 / 64 + 72, "no sooner than the modelled latency");
    MEMEQ(dst.cpu, src.cpu, 65536, "64 KiB arrived");
    EQ(qrdma_wait(pg, (unsigned)ch, 1000), QRDMA_ETIMEDOUT, "wait on an idle channel times out");
    OK(qrdma_ticks_to_ns(n, 200) > 999.0 && qrdma_ticks_to_ns(n, 200) < 1001.0, "200 ticks = 1 us at 200 MHz");
    EQ(qrdma_nq_setup(r, 2), QRDMA_OK, "ring");
    w.flags = QRDMA_WR_NOTIFY;
    w.tag = 42;
    qrdma_post_write(pg, (unsigned)ch, &w);
    struct qrdma_notif nt;
    EQ(qrdma_nq_wait(r, &nt, WAIT_TICKS), 1, "nq_wait: a notification");
    EQ(nt.tag, 42, "its tag");
    EQ(qrdma_wait(pg, (unsigned)ch, WAIT_TICKS), QRDMA_ST_DONE, "and DONE");
    EQ(qrdma_nq_wait(r, &nt, 500), QRDMA_ETIMEDOUT, "nq_wait times out on an empty ring");
    qrdma_buf_free(n, &src);
    qrdma_buf_free(r, &dst);
    qrdma_close(n);
    qrdma_close(r);
}

static void test_cluster(void)
{
    new_fake(1);
    qrdma_node *n, *r;
    qrdma_open(BE, 0, &n);
    qrdma_open(BE, 1, &r);
    qrdma_page *pg, *other;
    qrdma_page_claim(n, 2, &pg);
    qrdma_page_claim(n, 3, &other);
    struct qrdma_buf src, dst;
    qrdma_buf_alloc(n, 4096, 64, &src);
    qrdma_buf_alloc(r, 4096, 64, &dst);
    for (unsigned k = 0; k < 4096; k++)
        ((uint8_t *)src.cpu)[k] = (uint8_t)(k * 5 + 1);
    memset(dst.cpu, 0, 4096);
    uint16_t rid = qrdma_node_info(r)->node_id;
    /* three writes held on channels 5, 1, 3 (posted out of channel order) */
    unsigned chs[3] = {5, 1, 3};
    for (unsigned i = 0; i < 6; i++)
        qrdma_chan_alloc(pg, 1);
    qrdma_chan_alloc(other, 1);
    for (unsigned i = 0; i < 3; i++) {
        struct qrdma_write w = {.src_addr = src.dev + 1000 * i, .dst_addr = dst.dev + 1000 * i,
                                .size = 1000, .dst_node = rid, .flags = QRDMA_WR_HOLD};
        EQ(qrdma_post_write(pg, chs[i], &w), QRDMA_OK, "post a held write");
        EQ(G0(line_at(0, 2, chs[i]), HOLD), 1, "hold set in line 0");
        EQ(G0(line_at(0, 2, chs[i]), START), 0, "start clear");
    }
    /* a start on another page releases nothing of this one */
    struct qrdma_write o = {.src_addr = src.dev + 3000, .dst_addr = dst.dev + 3000, .size = 8,
                            .dst_node = rid, .flags = QRDMA_WR_START};
    EQ(qrdma_post_write(other, 0, &o), QRDMA_OK, "a start on another page");
    EQ(qrdma_wait(other, 0, WAIT_TICKS), QRDMA_ST_DONE, "which completes alone");
    for (unsigned i = 0; i < 3; i++)
        EQ(qrdma_poll(pg, chs[i]), QRDMA_ST_BUSY, "held: BUSY");
    EQ(((uint8_t *)dst.cpu)[0] | ((uint8_t *)dst.cpu)[2999], 0, "held: nothing written");
    /* the start on channel 0 releases the cluster */
    struct qrdma_read bad = {.size = 8, .src_node = rid, .flags = 0x10};
    uint8_t buf[64];
    size_t len;
    EQ(qrdma_desc_build_read(&bad, buf, &len), QRDMA_EINVAL, "unknown read flag -> EINVAL");
    bad.flags = QRDMA_RD_HOLD | QRDMA_RD_START;
    EQ(qrdma_desc_build_read(&bad, buf, &len), QRDMA_OK, "a read takes the cluster flags");
    OK(G0(buf, HOLD) == 1 && G0(buf, START) == 1, "both in its line 0");
    struct qrdma_write s = {.dst_addr = dst.dev + 4000, .dst_node = rid, .flags = QRDMA_WR_START};
    EQ(qrdma_post_inline(pg, 0, &s, "cluster!", 8), QRDMA_OK, "an inline write with start");
    for (unsigned i = 0; i < 3; i++)
        EQ(qrdma_wait(pg, chs[i], WAIT_TICKS), QRDMA_ST_DONE, "released: DONE");
    EQ(qrdma_wait(pg, 0, WAIT_TICKS), QRDMA_ST_DONE, "the start: DONE");
    MEMEQ(dst.cpu, src.cpu, 3000, "the cluster's bytes");
    MEMEQ((uint8_t *)dst.cpu + 4000, "cluster!", 8, "the start's bytes");
    qrdma_buf_free(n, &src);
    qrdma_buf_free(r, &dst);
    qrdma_close(n);
    qrdma_close(r);
}


/* A stamped (or not) entry written by hand into ring slot `slot` of node 1: the fields of
 * a CONTROL from node 0 page 3 channel 5, and the stamps given. */
struct stamps {
    unsigned stamped, hops;
    uint16_t t_post, t_send, t_sw[4], t_recv, t_done;
};

static void put_entry(const struct qrdma_buf *ring, unsigned slot, const struct stamps *st)
{
    uint8_t e[64] = {0};
    PNE(e, KIND, QRDMA_NET_CONTROL);
    PNE(e, SRC_NODE, fake_node_id(F, 0));
    PNE(e, XFER, 3 * QRDMA_CH_PER_PAGE + 5);
    PNE(e, PD, 3);
    PNE(e, SIZE, 0x123456789ULL);
    PNE(e, TAG, 0xCAFEF00D);
    PNE(e, DST_ADDR, 0x1122334455667788ULL);
    PNE(e, SEQ, 0xBEEF);
    PNE(e, STAMPED, st->stamped);
    PNE(e, HOPS, st->hops);
    PNE(e, T_POST, st->t_post);
    PNE(e, T_SEND, st->t_send);
    uint64_t sw = 0;
    for (unsigned k = 0; k < 4; k++)
        sw |= (uint64_t)st->t_sw[k] << (16 * k);
    PNE(e, T_SW, sw);
    PNE(e, T_RECV, st->t_recv);
    PNE(e, T_DONE, st->t_done);
    uint8_t *ent = (uint8_t *)ring->cpu + 64 * slot;
    memcpy(ent + 1, e + 1, 63);
    ent[0] = (uint8_t)QRDMA_NOTIF_FULL;
}

/* The stages of nt equal want[0..n-1], their names names[0..n-1], and they add up to
 * t_done - t_post (mod 2^16). */
static void check_stages(const struct qrdma_notif *nt, const uint32_t *want, int n, const char *const *names,
                         const char *what)
{
    uint32_t got[QRDMA_STAGES_MAX];
    char msg[160];
    snprintf(msg, sizeof msg, "%s: %d stages", what, n);
    EQ(qrdma_notif_stages(nt, got), n, msg);
    uint32_t sum = 0;
    for (int i = 0; i < n; i++) {
        snprintf(msg, sizeof msg, "%s: stage %d (%s)", what, i, names[i]);
        EQ(got[i], want[i], msg);
        sum += got[i];
        snprintf(msg, sizeof msg, "%s: stage %d named %s", what, i, names[i]);
        OK(nt->hops <= QRDMA_STAMP_HOPS_MAX && qrdma_stage_names[nt->hops][i]
               && !strcmp(qrdma_stage_names[nt->hops][i], names[i]), msg);
    }
    snprintf(msg, sizeof msg, "%s: no name after the last stage", what);
    OK(n == QRDMA_STAGES_MAX || qrdma_stage_names[nt->hops][n] == NULL, msg);
    snprintf(msg, sizeof msg, "%s: stages add up to t_done - t_post", what);
    EQ(sum & 0xFFFF, qrdma_stamp_diff(nt->t_done, nt->t_post), msg);
}

static int eio_write(void *ctx, unsigned node, uint64_t addr, uint64_t val)
{
    (void)ctx, (void)node, (void)addr, (void)val;
    return QRDMA_EIO;
}

static int eio_read(void *ctx, unsigned node, uint64_t addr, uint64_t *val)
{
    (void)ctx, (void)node, (void)addr;
    *val = 0;
    return QRDMA_EIO;
}

static void test_bench(void)
{
    new_fake(0);
    qrdma_node *n, *r;
    qrdma_open(BE, 0, &n);
    qrdma_open(BE, 1, &r);
    /* ---- BENCH */
    EQ(QRDMA_STAMP_HOPS_MAX, 2, "two switches stamp");
    EQ(QRDMA_STAGES_MAX, 7, "at most 7 stages");
    struct fake_stats s0 = stats(1);
    EQ(qrdma_bench_caps(r), 1, "BENCH.stamps reads 1: the receiver keeps stamps");
    EQ(stats(1).reads - s0.reads, 1, "caps: one read");
    fake_set_reg(F, 1, QRDMA_REG(nic.BENCH), 0);
    EQ(qrdma_bench_caps(r), 0, "BENCH.stamps 0 -> 0");
    fake_set_reg(F, 1, QRDMA_REG(nic.BENCH), QRDMA_NIC_CSR__BENCH__STAMPS_bm);
    s0 = stats(0);
    EQ(qrdma_bench_set(n, 1), QRDMA_OK, "benchmark mode on");
    EQ(stats(0).writes - s0.writes, 1, "one write");
    EQ(fake_reg(F, 0, QRDMA_REG(nic.BENCH)), QRDMA_NIC_CSR__BENCH__EN_bm | QRDMA_NIC_CSR__BENCH__STAMPS_bm,
       "BENCH.en 1 (stamps untouched)");
    uint64_t raw;
    memcpy(&raw, fake_regfile(F, 0) + QRDMA_REG(nic.BENCH), 8);
    EQ(raw, QRDMA_NIC_CSR__BENCH__EN_bm, "the write: en alone");
    EQ(qrdma_bench_set(n, 7), QRDMA_OK, "any nonzero: on");
    memcpy(&raw, fake_regfile(F, 0) + QRDMA_REG(nic.BENCH), 8);
    EQ(raw, QRDMA_NIC_CSR__BENCH__EN_bm, "written as 1");
    EQ(qrdma_bench_set(n, 0), QRDMA_OK, "off");
    EQ(fake_reg(F, 0, QRDMA_REG(nic.BENCH)), QRDMA_NIC_CSR__BENCH__STAMPS_bm, "BENCH.en 0");
    EQ(qrdma_bench_set(NULL, 1), QRDMA_EINVAL, "bench_set(NULL) -> EINVAL");
    EQ(qrdma_bench_caps(NULL), QRDMA_EINVAL, "bench_caps(NULL) -> EINVAL");
    /* a backend error is returned as is */
    struct qrdma_backend bad = *BE;
    qrdma_node *nb;
    EQ(qrdma_open(&bad, 0, &nb), QRDMA_OK, "open through a copy of the backend");
    bad.mmio_write64 = eio_write;
    bad.mmio_read64 = eio_read;
    EQ(qrdma_bench_set(nb, 1), QRDMA_EIO, "bench_set: backend error returned");
    EQ(qrdma_bench_caps(nb), QRDMA_EIO, "bench_caps: backend error returned");

    /* ---- entries written by hand: every field */
    EQ(qrdma_nq_setup(r, 8), QRDMA_OK, "ring of 8");
    const struct qrdma_buf *ring = qrdma_nq_buf(r);
    struct stamps two = {.stamped = 1, .hops = 2, .t_post = 0x1000, .t_send = 0x1010,
                         .t_sw = {0x1030, 0x1045, 0x1050, 0x1070}, .t_recv = 0x1080, .t_done = 0x10A0};
    put_entry(ring, 0, &two);
    struct qrdma_notif nt;
    memset(&nt, 0xA5, sizeof nt);
    EQ(qrdma_nq_poll(r, &nt), 1, "stamped entry taken");
    EQ(nt.kind, QRDMA_NET_CONTROL, "kind");
    EQ(nt.src_node, fake_node_id(F, 0), "src_node");
    EQ(nt.xfer, 3 * QRDMA_CH_PER_PAGE + 5, "xfer");
    EQ(nt.pd, 3, "pd");
    EQ(nt.size, 0x123456789ULL, "size (33 bits)");
    EQ(nt.tag, 0xCAFEF00D, "tag");
    EQ(nt.dst_addr, 0x1122334455667788ULL, "dst_addr");
    EQ(nt.seq, 0xBEEF, "seq");
    EQ(nt.early, 0, "early");
    EQ(nt.stamped, 1, "stamped");
    EQ(nt.hops, 2, "hops 2");
    EQ(nt.t_post, 0x1000, "t_post");
    EQ(nt.t_send, 0x1010, "t_send");
    EQ(nt.t_sw[0], 0x1030, "t_sw[0]: switch 0 arrival (bits 15:0)");
    EQ(nt.t_sw[1], 0x1045, "t_sw[1]: switch 0 departure (bits 31:16)");
    EQ(nt.t_sw[2], 0x1050, "t_sw[2]: switch 1 arrival (bits 47:32)");
    EQ(nt.t_sw[3], 0x1070, "t_sw[3]: switch 1 departure (bits 63:48)");
    EQ(nt.t_recv, 0x1080, "t_recv");
    EQ(nt.t_done, 0x10A0, "t_done");
    uint8_t zero[64] = {0};
    MEMEQ(ring->cpu, zero, 64, "stamped entry rewritten empty");
    {
        static const uint32_t want[] = {0x10, 0x20, 0x15, 0x0B, 0x20, 0x10, 0x20};
        static const char *const names[] = {"sender", "link_sw0", "sw0", "link_sw1", "sw1", "link_recv", "receiver"};
        check_stages(&nt, want, 7, names, "2 hops");
    }

    /* one switch; every stamp from t_send on has wrapped past 2^16 (numerically smaller
     * than t_post); switch 1's bits hold garbage (k >= hops: not used) */
    struct stamps wrap = {.stamped = 1, .hops = 1, .t_post = 0xFFF0, .t_send = 0xFFFA,
                          .t_sw = {0x0003, 0x0010, 0xDEAD, 0xBEEF}, .t_recv = 0x0018, .t_done = 0x0030};
    put_entry(ring, 1, &wrap);
    EQ(qrdma_nq_poll(r, &nt), 1, "wrapping entry taken");
    OK(nt.stamped == 1 && nt.hops == 1 && nt.t_post == 0xFFF0 && nt.t_send == 0xFFFA && nt.t_sw[0] == 0x0003
           && nt.t_sw[1] == 0x0010 && nt.t_sw[2] == 0xDEAD && nt.t_sw[3] == 0xBEEF && nt.t_recv == 0x0018
           && nt.t_done == 0x0030,
       "wrapping entry: every stamp as written");
    {
        static const uint32_t want[] = {10, 9, 13, 8, 24};
        static const char *const names[] = {"sender", "link_sw0", "sw0", "link_recv", "receiver"};
        check_stages(&nt, want, 5, names, "1 hop, wrapped");
    }
    EQ(qrdma_stamp_diff(nt.t_done, nt.t_post), 0x40, "total across the wrap: 0x30 - 0xFFF0 = 0x40");
    EQ(qrdma_stamp_diff(0x0000, 0x0001), 0xFFFF, "stamp_diff is mod 2^16");

    /* no switch; the wrap inside the receiver stage */
    struct stamps none = {.stamped = 1, .hops = 0, .t_post = 0x7FF0, .t_send = 0x8000,
                          .t_sw = {0x1111, 0x2222, 0x3333, 0x4444}, .t_recv = 0xFFF8, .t_done = 0x0008};
    put_entry(ring, 2, &none);
    EQ(qrdma_nq_poll(r, &nt), 1, "entry without switches taken");
    EQ(nt.hops, 0, "hops 0");
    {
        static const uint32_t want[] = {0x10, 0x7FF8, 0x10};
        static const char *const names[] = {"sender", "link_recv", "receiver"};
        check_stages(&nt, want, 3, names, "0 hops");
    }

    /* unstamped: the stamp bits are not reported */
    struct stamps uns = two;
    uns.stamped = 0;
    put_entry(ring, 3, &uns);
    memset(&nt, 0xA5, sizeof nt);
    EQ(qrdma_nq_poll(r, &nt), 1, "unstamped entry taken");
    EQ(nt.tag, 0xCAFEF00D, "its tag");
    EQ(nt.stamped, 0, "stamped 0");
    OK(nt.hops == 0 && nt.t_post == 0 && nt.t_send == 0 && nt.t_sw[0] == 0 && nt.t_sw[1] == 0 && nt.t_sw[2] == 0
           && nt.t_sw[3] == 0 && nt.t_recv == 0 && nt.t_done == 0,
       "unstamped: hops and stamps 0 (whatever the entry's bits)");
    uint32_t st[QRDMA_STAGES_MAX];
    EQ(qrdma_notif_stages(&nt, st), QRDMA_EINVAL, "stages of an unstamped notification -> EINVAL");
    /* hops 3: more than the field of stamps holds */
    struct stamps three = two;
    three.hops = 3;
    put_entry(ring, 4, &three);
    EQ(qrdma_nq_poll(r, &nt), 1, "entry with hops 3 taken");
    EQ(nt.hops, 3, "hops 3 reported as read");
    EQ(qrdma_notif_stages(&nt, st), QRDMA_EINVAL, "stages with hops 3 -> EINVAL");
    EQ(qrdma_notif_stages(NULL, st), QRDMA_EINVAL, "stages(NULL) -> EINVAL");
    EQ(qrdma_notif_stages(&nt, NULL), QRDMA_EINVAL, "stages(, NULL) -> EINVAL");
    qrdma_close(nb);
    qrdma_close(n);
    qrdma_close(r);

    /* ---- the fake's own stamps, end to end (one switch) */
    new_fake_hops(1, 1);
    qrdma_open(BE, 0, &n);
    qrdma_open(BE, 1, &r);
    qrdma_page *pg;
    qrdma_page_claim(n, 6, &pg);
    int ch = qrdma_chan_alloc(pg, 2);
    struct qrdma_buf src, dst;
    qrdma_buf_alloc(n, 4096, 64, &src);
    qrdma_buf_alloc(r, 4096, 64, &dst);
    EQ(qrdma_nq_setup(r, 4), QRDMA_OK, "ring");
    struct qrdma_write w = {.src_addr = src.dev, .dst_addr = dst.dev, .size = 1000,
                            .dst_node = qrdma_node_info(r)->node_id, .flags = QRDMA_WR_NOTIFY, .tag = 77};
    /* benchmark mode off: nothing stamped */
    qrdma_post_write(pg, (unsigned)ch, &w);
    EQ(qrdma_wait(pg, (unsigned)ch, WAIT_TICKS), QRDMA_ST_DONE, "write without benchmark mode");
    EQ(qrdma_nq_wait(r, &nt, WAIT_TICKS), 1, "its notification");
    EQ(nt.stamped, 0, "not stamped");
    EQ(qrdma_bench_set(n, 1), QRDMA_OK, "benchmark mode on at the sender");
    uint64_t t0 = qrdma_now(n);
    EQ(qrdma_post_write(pg, (unsigned)ch, &w), QRDMA_OK, "stamped write");
    uint8_t want[64];
    size_t wl;
    qrdma_desc_build_write(&w, want, &wl);
    MEMEQ(line_at(0, 6, (unsigned)ch), want, 32, "the line written holds no stamp (software writes 0)");
    EQ(qrdma_wait(pg, (unsigned)ch, WAIT_TICKS), QRDMA_ST_DONE, "DONE");
    EQ(qrdma_nq_wait(r, &nt, WAIT_TICKS), 1, "its notification");
    EQ(nt.tag, 77, "tag");
    EQ(nt.stamped, 1, "stamped");
    EQ(nt.hops, 1, "one switch");
    EQ(nt.t_post, (uint16_t)(t0 + fake_default_cfg().write_cycles), "t_post: the cycle the descriptor was accepted");
    uint32_t sv[QRDMA_STAGES_MAX];
    EQ(qrdma_notif_stages(&nt, sv), 5, "5 stages");
    OK(sv[1] == FAKE_LINK_CYCLES && sv[2] == FAKE_SW_CYCLES && sv[3] == FAKE_LINK_CYCLES,
       "links and switch as the fake models them");
    OK(sv[0] >= (1000 + 63) / 64 && sv[0] + sv[1] + sv[2] + sv[3] + sv[4] == qrdma_stamp_diff(nt.t_done, nt.t_post),
       "sender covers the data on the link; stages add up");
    OK(sv[4] > 0 && sv[4] < 100, "receiver stage within the fake's latency");
    /* inline: up to STAMP_INLINE_MAX bytes stamped, above not */
    uint8_t pl[32] = {1, 2, 3};
    w.tag = 0;
    EQ(qrdma_post_inline(pg, (unsigned)ch, &w, pl, QRDMA_STAMP_INLINE_MAX), QRDMA_OK, "inline of 16 bytes");
    qrdma_wait(pg, (unsigned)ch, WAIT_TICKS);
    EQ(qrdma_nq_wait(r, &nt, WAIT_TICKS), 1, "its notification");
    OK(nt.kind == QRDMA_NET_INLINE && nt.stamped == 1 && nt.hops == 1, "INLINE of 16 bytes: stamped");
    EQ(qrdma_post_inline(pg, (unsigned)ch, &w, pl, QRDMA_STAMP_INLINE_MAX + 1), QRDMA_OK, "inline of 17 bytes");
    qrdma_wait(pg, (unsigned)ch, WAIT_TICKS);
    EQ(qrdma_nq_wait(r, &nt, WAIT_TICKS), 1, "its notification");
    OK(nt.kind == QRDMA_NET_INLINE && nt.size == 17 && nt.stamped == 0, "INLINE of 17 bytes: no stamps");
    /* the receiver keeps no stamps */
    fake_set_reg(F, 1, QRDMA_REG(nic.BENCH), 0);
    EQ(qrdma_bench_caps(r), 0, "receiver without stamps");
    qrdma_post_write(pg, (unsigned)ch, &w);
    qrdma_wait(pg, (unsigned)ch, WAIT_TICKS);
    EQ(qrdma_nq_wait(r, &nt, WAIT_TICKS), 1, "notification");
    EQ(nt.stamped, 0, "not stamped at a receiver without stamps");
    qrdma_buf_free(n, &src);
    qrdma_buf_free(r, &dst);
    qrdma_close(n);
    qrdma_close(r);
}

int main(void)
{
    new_fake(0);
    test_open();
    test_pages_channels();
    test_post_poll();
    test_collective();
    test_reads();
    test_notifications();
    test_counters_regs();
    test_windows();
    test_auto();
    test_cluster();
    test_bench();
    fake_destroy(F);
    return tap_done();
}
