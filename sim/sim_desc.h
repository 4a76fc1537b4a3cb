/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * sim_desc.h: descriptor building for the harness's own drivers (qrdma_sim_check,
 * qrdma_sim_bench), from the generated layouts of qrdma_fmt.h. Applications use libqrdma
 * (sw/) instead.
 */
#ifndef QRDMA_SIM_DESC_H
#define QRDMA_SIM_DESC_H

#include <stdint.h>
#include <string.h>

#include "qrdma_fmt.h"

#define SIM_L0(f) QRDMA_DESC_LINE0_##f##_LSB, QRDMA_DESC_LINE0_##f##_W

/* A memory write of `size` bytes: 32-byte descriptor (line 0). */
static inline void sim_desc_mem(uint8_t line[32], uint64_t src, uint64_t dst, uint64_t size,
                                unsigned dst_node, unsigned notify, uint32_t tag)
{
    memset(line, 0, 32);
    qrdma_put_bits(line, SIM_L0(SRC_ADDR), src);
    qrdma_put_bits(line, SIM_L0(DST_ADDR), dst);
    qrdma_put_bits(line, SIM_L0(SIZE), size);
    qrdma_put_bits(line, SIM_L0(DST_NODE), dst_node);
    qrdma_put_bits(line, SIM_L0(NOTIFY), notify);
    qrdma_put_bits(line, SIM_L0(TAG), tag);
}

/* An inline write of len (1..32) bytes: 32-byte descriptor for len <= 8, else 64 bytes
 * (lines 0 and 1, for an even channel). Returns the descriptor length. */
static inline unsigned sim_desc_inline(uint8_t desc[64], const void *payload, unsigned len,
                                       uint64_t dst, unsigned dst_node, unsigned notify)
{
    uint8_t pl[QRDMA_INLINE_MAX];
    uint64_t lo;
    memset(desc, 0, 64);
    memset(pl, 0, sizeof pl);
    memcpy(pl, payload, len);
    memcpy(&lo, pl, 8);
    qrdma_put_bits(desc, SIM_L0(SRC_ADDR), lo);
    qrdma_put_bits(desc, SIM_L0(DST_ADDR), dst);
    qrdma_put_bits(desc, SIM_L0(SIZE), len);
    qrdma_put_bits(desc, SIM_L0(DST_NODE), dst_node);
    qrdma_put_bits(desc, SIM_L0(IS_INLINE), 1);
    qrdma_put_bits(desc, SIM_L0(NOTIFY), notify);
    if (len <= QRDMA_INLINE_SHORT_MAX)
        return QRDMA_DESC_LINE_BYTES;
    qrdma_put_bits(desc, SIM_L0(LONG_DESC), 1);
    /* line 1: inline_hi holds payload bytes 8..31 from its bit 0 */
    memcpy(desc + QRDMA_DESC_LINE_BYTES + QRDMA_DESC_LINE1_INLINE_HI_LSB / 8,
           pl + QRDMA_INLINE_SHORT_MAX, QRDMA_INLINE_MAX - QRDMA_INLINE_SHORT_MAX);
    return 2 * QRDMA_DESC_LINE_BYTES;
}

/* Host-port addresses of channel ch of page pg. */
static inline uint64_t sim_desc_addr(unsigned pg, unsigned ch)
{
    return pg * QRDMA_PAGE_STRIDE + QRDMA_DESC_OFFSET + QRDMA_DESC_LINE_BYTES * ch;
}
static inline uint64_t sim_status_addr(unsigned pg, unsigned ch)
{
    return pg * QRDMA_PAGE_STRIDE + QRDMA_STATUS_OFFSET + 8 * ch;
}

/* error reason (err_info) of channel ch of page pg */
static inline uint64_t sim_err_addr(unsigned pg, unsigned ch)
{
    return pg * QRDMA_PAGE_STRIDE + QRDMA_ERR_OFFSET + 8 * ch;
}

#endif /* QRDMA_SIM_DESC_H */
