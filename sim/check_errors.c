/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * qrdma_sim_check_errors: the harness's error categories through the C API, with two
 * nodes of 1 MiB memory each (tests/sim/test_sim_harness.py runs it). Bad API calls are
 * refused and counted as QRDMA_SIM_ERR_API; a memory write whose source lies beyond node
 * 0's memory has every R beat of its source reads answered DECERR; one whose destination
 * lies beyond node 1's memory has every write burst answered DECERR and leaves node 1's
 * memory unchanged, byte for byte; each such burst counts once as QRDMA_SIM_ERR_DECERR.
 * The transfer ends in ERROR with the reason of the failing side: ERR_LOCAL_MEM for a
 * source read answered DECERR, ERR_REMOTE_MEM (the receiver's NACK) for a destination
 * write answered DECERR; the channel then takes a good transfer. Exit status 0 when all
 * pass.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_report.h"
#include "qrdma_sim.h"
#include "sim_desc.h"

#define MEM_BYTES (1ull << 20)

static int contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

static uint64_t cat_sum(const qrdma_sim *s)
{
    uint64_t sum = 0;
    for (int c = 0; c < QRDMA_SIM_ERR_NUM_CATS; c++)
        sum += qrdma_sim_error_count(s, (qrdma_sim_error_cat)c);
    return sum;
}

/* Post a memory write on channel ch of node 0 and let it run out: poll its status until it
 * is not BUSY (at most 4000 reads), then until the harness is quiet. Returns the status. */
static uint64_t run_write(qrdma_sim *s, unsigned ch, uint64_t src, uint64_t dst, uint64_t size)
{
    uint8_t line[32];
    sim_desc_mem(line, src, dst, size, 1, 0, 0);
    check(qrdma_sim_mmio_write_desc(s, 0, sim_desc_addr(0, ch), line, sizeof line) == 0,
          "descriptor posted");
    uint64_t st = 0;
    for (int i = 0; i < 4000; i++) {
        st = qrdma_sim_mmio_read64(s, 0, sim_status_addr(0, ch), NULL) & 3;
        if (st != QRDMA_ST_BUSY && st != QRDMA_ST_IDLE)
            break;
    }
    printf("     channel %u status %" PRIu64 " at cycle %" PRIu64 "\n", ch, st, qrdma_sim_now(s));
    check(qrdma_sim_wait_quiet(s, 200000) >= 0, "harness quiet afterwards: every burst answered");
    return st;
}

/* The error reason of channel ch of node 0's page 0. */
static uint64_t reason(qrdma_sim *s, unsigned ch)
{
    int resp = 0;
    uint64_t v = qrdma_sim_mmio_read64(s, 0, sim_err_addr(0, ch), &resp);
    return resp ? ~0ULL : v;
}

int main(void)
{
    qrdma_sim_options opt;
    qrdma_sim_default_options(&opt);
    opt.mem_bytes = MEM_BYTES;
    qrdma_sim *s = qrdma_sim_create(2, &opt);
    if (!s)
        return 1;
    char what[200];

    /* ---- the categories, empty */
    int empty = qrdma_sim_errors(s) == 0 && qrdma_sim_error_text(s)[0] == 0;
    for (int c = 0; c < QRDMA_SIM_ERR_NUM_CATS; c++)
        empty = empty && qrdma_sim_error_count(s, (qrdma_sim_error_cat)c) == 0 &&
                qrdma_sim_error_first(s, (qrdma_sim_error_cat)c)[0] == 0;
    check(empty, "after creation: no error in any category, empty texts");
    /* development mode (docs/protection.md): the writes below carry no key */
    for (unsigned n = 0; n < 2; n++)
        qrdma_sim_mmio_write64(s, n, QRDMA_REG(nic.PROT_CTRL), 1);
    check(!strcmp(qrdma_sim_error_cat_name(QRDMA_SIM_ERR_AXI), "axi") &&
              !strcmp(qrdma_sim_error_cat_name(QRDMA_SIM_ERR_DECERR), "decerr") &&
              !strcmp(qrdma_sim_error_cat_name(QRDMA_SIM_ERR_4K), "4k") &&
              !strcmp(qrdma_sim_error_cat_name(QRDMA_SIM_ERR_API), "api") &&
              !strcmp(qrdma_sim_error_cat_name(QRDMA_SIM_ERR_RTL), "rtl") &&
              !strcmp(qrdma_sim_error_cat_name((qrdma_sim_error_cat)QRDMA_SIM_ERR_NUM_CATS), "?"),
          "category names");
    check(qrdma_sim_error_count(s, (qrdma_sim_error_cat)99) == 0 &&
              qrdma_sim_error_first(s, (qrdma_sim_error_cat)99)[0] == 0,
          "an unknown category: 0, empty text");

    /* ---- bad API calls: refused, counted as API errors, nothing else */
    int resp = 0;
    uint8_t buf[8] = {0};
    check(qrdma_sim_mmio_write64(s, 0, 4, 1) == -1, "MMIO write at offset 4: refused");
    uint64_t v = qrdma_sim_mmio_read64(s, 5, 0, &resp);
    check(v == 0 && resp == -1, "MMIO read of node 5 (of 2): refused, resp -1");
    qrdma_sim_mem_free(s, 0, 12345);
    check(qrdma_sim_mem_write(s, 1, MEM_BYTES - 4, buf, 8) == -1,
          "mem_write of 8 bytes at mem_bytes - 4: refused");
    check(qrdma_sim_poll64(s, 0, 12, 0, 0, 1, NULL) == -1, "poll64 at offset 12: refused");
    /* answers, not errors */
    check(qrdma_sim_mem(s, 0, MEM_BYTES, 8) == NULL, "qrdma_sim_mem outside memory: NULL");
    check(qrdma_sim_mem_alloc(s, 0, 2 * MEM_BYTES, 0) == QRDMA_SIM_NOMEM,
          "an allocation that does not fit: QRDMA_SIM_NOMEM");
    uint64_t api = qrdma_sim_error_count(s, QRDMA_SIM_ERR_API);
    snprintf(what, sizeof what, "5 API errors counted (%" PRIu64 "), total %" PRIu64, api,
             qrdma_sim_errors(s));
    check(api == 5 && qrdma_sim_errors(s) == 5 && cat_sum(s) == 5, what);
    const char *first_api = qrdma_sim_error_first(s, QRDMA_SIM_ERR_API);
    printf("     first API error: %s\n", first_api);
    check(contains(first_api, "node 0 mmio write: 8 bytes at 0x4") &&
              !strcmp(first_api, qrdma_sim_error_text(s)),
          "first API error: the MMIO write at offset 4; also the first of all");
    check(qrdma_sim_error_count(s, QRDMA_SIM_ERR_AXI) == 0 &&
              qrdma_sim_error_count(s, QRDMA_SIM_ERR_DECERR) == 0 &&
              qrdma_sim_error_count(s, QRDMA_SIM_ERR_4K) == 0,
          "no AXI, DECERR or 4 KiB error from them");
    check(qrdma_sim_mmio_errors(s, 0) == 0, "no MMIO response error either");

    /* ---- source beyond node 0's memory: its reads are answered DECERR */
    qrdma_sim_node_stats a0, a1, b0, b1;
    uint64_t dst1 = qrdma_sim_mem_alloc(s, 1, 4096, 4096);
    qrdma_sim_node_stats_get(s, 0, &a0);
    qrdma_sim_node_stats_get(s, 1, &a1);
    uint64_t dec0 = qrdma_sim_error_count(s, QRDMA_SIM_ERR_DECERR);
    check(reason(s, 0) == QRDMA_ERR_NONE, "channel 0: no error reason before");
    check(run_write(s, 0, MEM_BYTES, dst1, 4096) == QRDMA_ST_ERROR,
          "source beyond memory: the transfer ends in ERROR");
    check(reason(s, 0) == QRDMA_ERR_LOCAL_MEM, "... with reason ERR_LOCAL_MEM");
    qrdma_sim_node_stats_get(s, 0, &b0);
    qrdma_sim_node_stats_get(s, 1, &b1);
    uint64_t rbursts = b0.mem_read_bursts - a0.mem_read_bursts;
    uint64_t rbeats = b0.mem_read_beats - a0.mem_read_beats;
    uint64_t rdec = b0.mem_read_decerr_beats - a0.mem_read_decerr_beats;
    uint64_t dec = qrdma_sim_error_count(s, QRDMA_SIM_ERR_DECERR) - dec0;
    printf("     node 0: %" PRIu64 " read bursts, %" PRIu64 " R beats, %" PRIu64
           " with DECERR; %" PRIu64 " DECERR errors\n", rbursts, rbeats, rdec, dec);
    check(rbursts >= 1 && rbeats >= 1 && rbeats <= 64, "node 0 read its source (1 .. 64 beats)");
    check(rdec == rbeats && b0.mem_read_slverr_beats == a0.mem_read_slverr_beats,
          "every R beat node 0's NIC took was DECERR");
    check(dec == rbursts, "one DECERR error per read burst");
    check(b0.mem_write_bursts == a0.mem_write_bursts, "node 0 memory: no write");
    const char *first_dec = qrdma_sim_error_first(s, QRDMA_SIM_ERR_DECERR);
    printf("     first DECERR error: %s\n", first_dec);
    snprintf(what, sizeof what, "node 0 m_axi_ar: burst at 0x%llx,", (unsigned long long)MEM_BYTES);
    check(contains(first_dec, what) && contains(first_dec, "outside host memory (1048576 bytes)"),
          "first DECERR error: node 0's read at mem_bytes");

    /* ---- destination beyond node 1's memory: its writes are answered DECERR, nothing
     * is written */
    uint64_t src0 = qrdma_sim_mem_alloc(s, 0, 8192, 4096);
    uint8_t *sp = qrdma_sim_mem(s, 0, src0, 8192);
    for (unsigned i = 0; i < 8192; i++)
        sp[i] = (uint8_t)(i * 31 + 7);
    uint8_t *snap = malloc(MEM_BYTES);
    qrdma_sim_mem_read(s, 1, 0, snap, MEM_BYTES);
    qrdma_sim_node_stats_get(s, 0, &a0);
    qrdma_sim_node_stats_get(s, 1, &a1);
    dec0 = qrdma_sim_error_count(s, QRDMA_SIM_ERR_DECERR);
    check(run_write(s, 2, src0, MEM_BYTES + 3 * 4096, 8192) == QRDMA_ST_ERROR,
          "destination beyond the receiver's memory: the transfer ends in ERROR");
    check(reason(s, 2) == QRDMA_ERR_REMOTE_MEM, "... with reason ERR_REMOTE_MEM");
    qrdma_sim_node_stats_get(s, 0, &b0);
    qrdma_sim_node_stats_get(s, 1, &b1);
    uint64_t wbursts = b1.mem_write_bursts - a1.mem_write_bursts;
    uint64_t wbeats = b1.mem_write_beats - a1.mem_write_beats;
    uint64_t bresps = b1.mem_write_resps - a1.mem_write_resps;
    uint64_t wdec = b1.mem_write_decerr_resps - a1.mem_write_decerr_resps;
    dec = qrdma_sim_error_count(s, QRDMA_SIM_ERR_DECERR) - dec0;
    printf("     node 1: %" PRIu64 " write bursts, %" PRIu64 " W beats, %" PRIu64 " B, %" PRIu64
           " with DECERR; %" PRIu64 " DECERR errors\n", wbursts, wbeats, bresps, wdec, dec);
    check(wbursts >= 1 && wbeats >= 1, "node 1's NIC wrote to its memory port");
    check(bresps == wbursts && wdec == wbursts &&
              b1.mem_write_slverr_resps == a1.mem_write_slverr_resps,
          "every write burst answered, each with BRESP DECERR");
    check(dec == wbursts, "one DECERR error per write burst");
    uint8_t *now1 = malloc(MEM_BYTES);
    qrdma_sim_mem_read(s, 1, 0, now1, MEM_BYTES);
    check(memcmp(now1, snap, MEM_BYTES) == 0, "node 1 memory unchanged, all 1 MiB");
    check(b0.mem_read_decerr_beats == a0.mem_read_decerr_beats,
          "node 0's source reads: no DECERR");

    /* ---- the channels take good transfers afterwards; the reasons stay until the next
     * ERROR */
    uint64_t dst2 = qrdma_sim_mem_alloc(s, 1, 8192, 4096);
    check(run_write(s, 0, src0, dst2, 8192) == QRDMA_ST_DONE &&
              !memcmp(qrdma_sim_mem(s, 1, dst2, 8192), sp, 8192),
          "channel 0 afterwards: a good transfer, DONE, bytes exact");
    check(reason(s, 0) == QRDMA_ERR_LOCAL_MEM, "channel 0's reason kept (not reset by DONE)");

    /* ---- the accounting */
    snprintf(what, sizeof what,
             "categories: AXI %" PRIu64 ", DECERR %" PRIu64 ", 4K %" PRIu64 ", API %" PRIu64
             ", RTL %" PRIu64 "; total %" PRIu64 " = their sum",
             qrdma_sim_error_count(s, QRDMA_SIM_ERR_AXI),
             qrdma_sim_error_count(s, QRDMA_SIM_ERR_DECERR),
             qrdma_sim_error_count(s, QRDMA_SIM_ERR_4K),
             qrdma_sim_error_count(s, QRDMA_SIM_ERR_API),
             qrdma_sim_error_count(s, QRDMA_SIM_ERR_RTL), qrdma_sim_errors(s));
    check(qrdma_sim_errors(s) == cat_sum(s), what);
    check(qrdma_sim_error_count(s, QRDMA_SIM_ERR_AXI) == 0 &&
              qrdma_sim_error_count(s, QRDMA_SIM_ERR_4K) == 0 &&
              qrdma_sim_error_count(s, QRDMA_SIM_ERR_API) == 5 &&
              qrdma_sim_error_count(s, QRDMA_SIM_ERR_DECERR) == rbursts + wbursts,
          "AXI 0, 4K 0, API 5, DECERR = the bursts outside memory");
    check(!strcmp(qrdma_sim_error_first(s, QRDMA_SIM_ERR_DECERR), first_dec) &&
              !strcmp(qrdma_sim_error_text(s), first_api),
          "first texts kept: of DECERR the read, of all the first API error");

    free(snap);
    free(now1);
    qrdma_sim_destroy(s);
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "OK", failures);
    return failures ? 1 : 0;
}
