/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * test_desc: descriptor bytes built by libqrdma (qrdma_desc_build_write / _inline / _read)
 * against a bit-by-bit reference built from the layouts in qrdma_fmt.h, the argument
 * checks and their error codes, error strings and counter names. Each vector is also
 * printed as a "DESC" line (API inputs and the bytes); test_libqrdma.py packs the same
 * inputs with tools/formats.py and compares, so the C bytes are checked against the
 * single source of truth itself.
 */
#include "qrdma.h"
#include "tap.h"

#include <stdio.h>

static void ref_put(uint8_t *b, unsigned lsb, unsigned w, uint64_t v)
{
    for (unsigned i = 0; i < w; i++)
        if (v >> i & 1)
            b[(lsb + i) / 8] |= (uint8_t)(1u << ((lsb + i) % 8));
}

#define P0(b, f, v) ref_put(b, QRDMA_DESC_LINE0_##f##_LSB, QRDMA_DESC_LINE0_##f##_W, v)

/* The reference: the expected 64 bytes (line 1 zero for a 32-byte descriptor). */
static void ref_write(const struct qrdma_write *w, uint8_t out[64])
{
    memset(out, 0, 64);
    P0(out, SRC_ADDR, w->src_addr);
    P0(out, DST_ADDR, w->dst_addr);
    P0(out, SIZE, w->size);
    P0(out, DST_NODE, w->dst_node);
    P0(out, PRIO, w->prio);
    P0(out, NOTIFY, (w->flags & QRDMA_WR_NOTIFY) != 0);
    P0(out, MULTIPATH, (w->flags & QRDMA_WR_MULTIPATH) != 0);
    P0(out, REGISTERED, (w->flags & QRDMA_WR_REGISTERED) != 0);
    P0(out, HOLD, (w->flags & QRDMA_WR_HOLD) != 0);
    P0(out, START, (w->flags & QRDMA_WR_START) != 0);
    P0(out, LONG_DESC, w->rkey != 0);
    P0(out, TAG, w->tag);
    if (w->rkey)
        ref_put(out + 32, QRDMA_DESC_LINE1_RKEY_LSB, QRDMA_DESC_LINE1_RKEY_W, w->rkey);
}

static void ref_inline(const struct qrdma_write *w, const uint8_t *d, size_t n, uint8_t out[64])
{
    memset(out, 0, 64);
    for (size_t k = 0; k < n && k < 8; k++)
        ref_put(out, QRDMA_DESC_LINE0_SRC_ADDR_LSB + 8 * (unsigned)k, 8, d[k]);
    for (size_t k = 8; k < n; k++)
        ref_put(out + 32, QRDMA_DESC_LINE1_INLINE_HI_LSB + 8 * (unsigned)(k - 8), 8, d[k]);
    P0(out, DST_ADDR, w->dst_addr);
    P0(out, SIZE, n);
    P0(out, DST_NODE, w->dst_node);
    P0(out, PRIO, w->prio);
    P0(out, IS_INLINE, 1);
    P0(out, NOTIFY, (w->flags & QRDMA_WR_NOTIFY) != 0);
    P0(out, HOLD, (w->flags & QRDMA_WR_HOLD) != 0);
    P0(out, START, (w->flags & QRDMA_WR_START) != 0);
    P0(out, LONG_DESC, n > 8 || w->rkey != 0);
    P0(out, TAG, w->tag);
    if (w->rkey)
        ref_put(out + 32, QRDMA_DESC_LINE1_RKEY_LSB, QRDMA_DESC_LINE1_RKEY_W, w->rkey);
}

/* A read descriptor's line 0 is a memory write's with the remote node as dst_node and
 * no notify; line 1 adds lkey, which also makes it long. */
static void ref_read(const struct qrdma_read *r, uint8_t out[64])
{
    const struct qrdma_write w = {.src_addr = r->src_addr, .dst_addr = r->dst_addr, .size = r->size,
                                  .dst_node = r->src_node, .prio = r->prio, .tag = r->tag, .rkey = r->rkey,
                                  .flags = (r->flags & QRDMA_RD_MULTIPATH ? QRDMA_WR_MULTIPATH : 0)
                                           | (r->flags & QRDMA_RD_HOLD ? QRDMA_WR_HOLD : 0)
                                           | (r->flags & QRDMA_RD_START ? QRDMA_WR_START : 0)};
    ref_write(&w, out);
    P0(out, LONG_DESC, r->lkey != 0);
    ref_put(out + 32, QRDMA_DESC_LINE1_LKEY_LSB, QRDMA_DESC_LINE1_LKEY_W, r->lkey);
}

static void hex(const uint8_t *b, size_t n, char *s)
{
    for (size_t i = 0; i < n; i++)
        sprintf(s + 2 * i, "%02x", b[i]);
    if (!n)
        strcpy(s, "-");
}

static void print_desc(const char *name, const char *kind, const struct qrdma_write *w, const uint8_t *pl,
                       size_t pn, const uint8_t *bytes, size_t len)
{
    char hb[129], hp[65];
    hex(bytes, len, hb);
    hex(pl, pn, hp);
    printf("DESC %s kind=%s src=0x%llx dst=0x%llx size=%llu node=%u prio=%u notify=%u multipath=%u "
           "registered=%u hold=%u start=%u tag=%u rkey=%u payload=%s bytes=%s\n",
           name, kind, (unsigned long long)w->src_addr, (unsigned long long)w->dst_addr,
           (unsigned long long)w->size, w->dst_node, w->prio, (w->flags & QRDMA_WR_NOTIFY) != 0,
           (w->flags & QRDMA_WR_MULTIPATH) != 0, (w->flags & QRDMA_WR_REGISTERED) != 0,
           (w->flags & QRDMA_WR_HOLD) != 0,
           (w->flags & QRDMA_WR_START) != 0, w->tag, w->rkey, hp, hb);
}

/* The checks of every vector: built with rc OK, the length, the bytes against the reference. */
static void check_built(const char *name, int rc, size_t len, size_t want_len, const uint8_t *got,
                        const uint8_t *want)
{
    char n[128];
    snprintf(n, sizeof n, "%s: build ok", name);
    EQ(rc, QRDMA_OK, n);
    snprintf(n, sizeof n, "%s: length", name);
    EQ(len, want_len, n);
    snprintf(n, sizeof n, "%s: bytes match the layout", name);
    MEMEQ(got, want, len, n);
}

static void check_read(const char *name, struct qrdma_read r, size_t want_len)
{
    uint8_t got[64], want[64];
    size_t len = 0;
    char hb[129];
    memset(got, 0xEE, sizeof got);
    int rc = qrdma_desc_build_read(&r, got, &len);
    ref_read(&r, want);
    check_built(name, rc, len, want_len, got, want);
    hex(got, len, hb);
    printf("DESC %s kind=read src=0x%llx dst=0x%llx size=%llu node=%u prio=%u notify=0 multipath=%u hold=%u "
           "start=%u tag=%u rkey=%u lkey=%u payload=- bytes=%s\n",
           name, (unsigned long long)r.src_addr, (unsigned long long)r.dst_addr, (unsigned long long)r.size,
           r.src_node, r.prio, (r.flags & QRDMA_RD_MULTIPATH) != 0, (r.flags & QRDMA_RD_HOLD) != 0,
           (r.flags & QRDMA_RD_START) != 0, r.tag, r.rkey, r.lkey, hb);
}

static void check_write(const char *name, struct qrdma_write w, size_t want_len)
{
    uint8_t got[64], want[64];
    size_t len = 0;
    memset(got, 0xEE, sizeof got);
    int rc = qrdma_desc_build_write(&w, got, &len);
    ref_write(&w, want);
    check_built(name, rc, len, want_len, got, want);
    print_desc(name, "mem", &w, NULL, 0, got, len);
}

static void check_inline(const char *name, struct qrdma_write w, size_t n_inl, size_t want_len)
{
    uint8_t got[64], want[64], data[32];
    size_t len = 0;
    for (size_t k = 0; k < n_inl; k++)
        data[k] = (uint8_t)(0xC0 + 7 * k);
    memset(got, 0xEE, sizeof got);
    int rc = qrdma_desc_build_inline(&w, data, n_inl, got, &len);
    ref_inline(&w, data, n_inl, want);
    check_built(name, rc, len, want_len, got, want);
    print_desc(name, "inline", &w, data, n_inl, got, len);
}

int main(void)
{
    /* ---- memory descriptors */
    check_write("mem_basic", (struct qrdma_write){.src_addr = 0x1122334455667788ULL, .dst_addr = 0x99AABBCCDDEEFF00ULL,
                                                  .size = 0x12345, .dst_node = 0xBEEF, .prio = 5,
                                                  .flags = QRDMA_WR_NOTIFY, .tag = 0xCAFEF00D},
                32);
    check_write("mem_min", (struct qrdma_write){.src_addr = 0x40, .dst_addr = 0x80, .size = 1, .dst_node = 1}, 32);
    check_write("mem_max_multipath", (struct qrdma_write){.src_addr = ~0ULL, .dst_addr = 0x8000000000000001ULL,
                                                          .size = QRDMA_MAX_TRANSFER_BYTES, .dst_node = 0xFFFF,
                                                          .prio = 15, .flags = QRDMA_WR_MULTIPATH, .tag = ~0u},
                32);
    check_write("mem_rkey_long", (struct qrdma_write){.src_addr = 0x1000, .dst_addr = 0x2000, .size = 4096,
                                                      .dst_node = 2, .prio = 1,
                                                      .flags = QRDMA_WR_NOTIFY | QRDMA_WR_MULTIPATH,
                                                      .tag = 77, .rkey = 0xDEADBEEF},
                64);
    /* ---- inline descriptors: 1..8 bytes short, 9..32 long */
    struct qrdma_write iw = {.dst_addr = 0x123456789ULL, .dst_node = 0x33, .prio = 3, .tag = 0x55};
    check_inline("inline_1", iw, 1, 32);
    iw.flags = QRDMA_WR_NOTIFY;
    check_inline("inline_8_notify", iw, 8, 32);
    check_inline("inline_9", iw, 9, 64);
    iw.flags = 0;
    check_inline("inline_20", iw, 20, 64);
    check_inline("inline_32", iw, 32, 64);
    iw.rkey = 0x00012AB7;
    check_inline("inline_4_rkey", iw, 4, 64);
    check_inline("inline_30_rkey", iw, 30, 64);
    iw.flags = QRDMA_WR_START;
    check_inline("inline_16_start", iw, 16, 64);
    check_write("mem_registered", (struct qrdma_write){.src_addr = 0x10000, .dst_addr = 0x20000,
                                                       .size = 1 << 20, .dst_node = 1,
                                                       .flags = QRDMA_WR_NOTIFY | QRDMA_WR_REGISTERED,
                                                       .tag = 9},
                32);
    check_write("mem_hold", (struct qrdma_write){.src_addr = 0x7000, .dst_addr = 0x8000, .size = 100,
                                                 .dst_node = 4, .flags = QRDMA_WR_HOLD | QRDMA_WR_NOTIFY},
                32);
    check_write("mem_hold_start", (struct qrdma_write){.src_addr = 0x7000, .dst_addr = 0x8000, .size = 100,
                                                       .dst_node = 4, .flags = QRDMA_WR_HOLD | QRDMA_WR_START},
                32);

    /* ---- read descriptors: 32 bytes without keys, 64 with rkey and/or lkey */
    check_read("read_basic", (struct qrdma_read){.src_addr = 0x0123456789ABCDEFULL, .dst_addr = 0xFEDCBA9876543210ULL,
                                                .size = 0x54321, .src_node = 0xA5A5, .prio = 9, .tag = 0x600DCAFE},
               32);
    check_read("read_max_multipath", (struct qrdma_read){.src_addr = ~0ULL, .dst_addr = 1, .size = QRDMA_MAX_TRANSFER_BYTES,
                                                        .src_node = 0xFFFF, .prio = 15, .flags = QRDMA_RD_MULTIPATH,
                                                        .tag = ~0u},
               32);
    check_read("read_keys", (struct qrdma_read){.src_addr = 0x1000, .dst_addr = 0x2000, .size = 4096, .src_node = 2,
                                               .prio = 1, .tag = 3, .rkey = 0xDEADBEEF, .lkey = 0x12345678},
               64);
    check_read("read_lkey_only", (struct qrdma_read){.src_addr = 0x40, .dst_addr = 0x80, .size = 1, .src_node = 7,
                                                    .lkey = 0xFFFFFFFF},
               64);
    check_read("read_hold", (struct qrdma_read){.src_addr = 0x40, .dst_addr = 0x80, .size = 9, .src_node = 7,
                                               .flags = QRDMA_RD_HOLD},
               32);
    check_read("read_start_keys", (struct qrdma_read){.src_addr = 0x40, .dst_addr = 0x80, .size = 9, .src_node = 7,
                                                     .flags = QRDMA_RD_START, .rkey = 0x301, .lkey = 0x402},
               64);
    check_read("read_rkey_only", (struct qrdma_read){.src_addr = 0x40, .dst_addr = 0x80, .size = 1, .src_node = 7,
                                                    .rkey = 0x00000101},
               64);

    /* ---- the fields at their documented bit positions (spot checks of the reference) */
    uint8_t d[64];
    size_t len;
    struct qrdma_write w = {.src_addr = 0, .dst_addr = 0, .size = 1, .dst_node = 0, .tag = 0};
    qrdma_desc_build_write(&w, d, &len);
    EQ(d[QRDMA_DESC_LINE0_SIZE_LSB / 8], 1, "size byte 0 is byte 16 of line 0");
    w.flags = QRDMA_WR_NOTIFY;
    qrdma_desc_build_write(&w, d, &len);
    EQ(d[QRDMA_DESC_LINE0_NOTIFY_LSB / 8] >> (QRDMA_DESC_LINE0_NOTIFY_LSB % 8) & 1, 1, "notify bit");
    EQ(QRDMA_DESC_LINE0_NOTIFY_LSB, 193, "notify is bit 193 (docs/formats.md)");

    /* ---- argument checks */
    struct qrdma_write ok = {.src_addr = 0x1000, .dst_addr = 0x2000, .size = 64, .dst_node = 1};
    struct qrdma_write b = ok;
    b.size = 0;
    EQ(qrdma_desc_build_write(&b, d, &len), QRDMA_ESIZE, "size 0 -> ESIZE");
    b.size = QRDMA_MAX_TRANSFER_BYTES + 1;
    EQ(qrdma_desc_build_write(&b, d, &len), QRDMA_ESIZE, "size 4 GiB + 1 -> ESIZE");
    b.size = ~0ULL;
    EQ(qrdma_desc_build_write(&b, d, &len), QRDMA_ESIZE, "size 2^64-1 -> ESIZE");
    b.size = QRDMA_MAX_TRANSFER_BYTES;
    EQ(qrdma_desc_build_write(&b, d, &len), QRDMA_OK, "size 4 GiB accepted");
    b = ok;
    b.prio = 16;
    EQ(qrdma_desc_build_write(&b, d, &len), QRDMA_EINVAL, "prio 16 -> EINVAL");
    b = ok;
    b.flags = 0x20;
    EQ(qrdma_desc_build_write(&b, d, &len), QRDMA_EINVAL, "unknown flag -> EINVAL");
    EQ(qrdma_desc_build_write(NULL, d, &len), QRDMA_EINVAL, "NULL write -> EINVAL");
    uint8_t pl[40] = {0};
    EQ(qrdma_desc_build_inline(&ok, pl, 0, d, &len), QRDMA_EINLINE, "inline 0 bytes -> EINLINE");
    EQ(qrdma_desc_build_inline(&ok, pl, 33, d, &len), QRDMA_EINLINE, "inline 33 bytes -> EINLINE");
    EQ(qrdma_desc_build_inline(&ok, NULL, 4, d, &len), QRDMA_EINVAL, "inline NULL data -> EINVAL");
    b = ok;
    b.flags = QRDMA_WR_MULTIPATH;
    EQ(qrdma_desc_build_inline(&b, pl, 4, d, &len), QRDMA_EINVAL, "inline multipath -> EINVAL");
    b.flags = QRDMA_WR_REGISTERED;
    EQ(qrdma_desc_build_inline(&b, pl, 4, d, &len), QRDMA_EINVAL, "inline registered -> EINVAL");
    b = ok;
    b.prio = 200;
    EQ(qrdma_desc_build_inline(&b, pl, 4, d, &len), QRDMA_EINVAL, "inline prio 200 -> EINVAL");
    struct qrdma_read rok = {.src_addr = 0x1000, .dst_addr = 0x2000, .size = 64, .src_node = 1};
    struct qrdma_read rb = rok;
    rb.size = 0;
    EQ(qrdma_desc_build_read(&rb, d, &len), QRDMA_ESIZE, "read size 0 -> ESIZE");
    rb.size = QRDMA_MAX_TRANSFER_BYTES + 1;
    EQ(qrdma_desc_build_read(&rb, d, &len), QRDMA_ESIZE, "read size 4 GiB + 1 -> ESIZE");
    rb = rok;
    rb.prio = 16;
    EQ(qrdma_desc_build_read(&rb, d, &len), QRDMA_EINVAL, "read prio 16 -> EINVAL");
    rb = rok;
    rb.flags = QRDMA_WR_NOTIFY;
    EQ(qrdma_desc_build_read(&rb, d, &len), QRDMA_EINVAL, "read with notify -> EINVAL (D7)");
    EQ(qrdma_desc_build_read(NULL, d, &len), QRDMA_EINVAL, "NULL read -> EINVAL");
    rb = rok;
    qrdma_desc_build_read(&rb, d, &len);
    EQ(d[QRDMA_DESC_LINE0_IS_INLINE_LSB / 8] & 3u, 0, "a read has is_inline = notify = 0");

    /* ---- error strings: one per code, all different */
    const int codes[] = {QRDMA_OK, QRDMA_EINVAL, QRDMA_ESIZE, QRDMA_EINLINE, QRDMA_EBUSY, QRDMA_ECHAN,
                         QRDMA_ENOPAGE, QRDMA_ENOCHAN, QRDMA_ENOMEM, QRDMA_EIO, QRDMA_ESLVERR, QRDMA_ENODEV,
                         QRDMA_EVERSION, QRDMA_ETIMEDOUT, QRDMA_ENOTIF, QRDMA_ENONODE};
    int distinct = 1;
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(qrdma_strerror(codes[i]), qrdma_strerror(codes[j])))
                distinct = 0;
    OK(distinct, "every error code has its own message");
    OK(!strcmp(qrdma_strerror(-999), "unknown error"), "unknown code");

    /* ---- counter names and addresses (test_libqrdma.py checks them against formats.py) */
    for (int c = 0; c < QRDMA_CNT_COUNT; c++)
        printf("CNT %s 0x%llx\n", qrdma_counter_name((enum qrdma_counter)c),
               (unsigned long long)qrdma_counter_addr((enum qrdma_counter)c));
    OK(qrdma_counter_name(QRDMA_CNT_COUNT) == NULL, "counter name out of range is NULL");
    EQ(qrdma_counter_addr(QRDMA_CNT_RX_NOTIFS), QRDMA_REG(nic.RX_NOTIFS), "RX_NOTIFS address");
    return tap_done();
}
