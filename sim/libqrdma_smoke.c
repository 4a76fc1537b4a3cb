/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * qrdma_sim_libqrdma_smoke: libqrdma (sw/) on the simulation backend, end to end. Opens
 * nodes 0 and 1 of a 2-node simulation through qrdma_backend_sim_open, reads their
 * info, sets up node 1's notification ring, registers a window of node 1's buffer for
 * node 0's page (docs/protection.md: memory is closed until then), posts from node 0 a
 * 4 KiB memory write (with notification) and a 20-byte inline write with the window's
 * key, waits for DONE with qrdma_wait, checks the bytes and the notification entry; then
 * writes that the window check refuses (a wrong key, past the window's end, after the
 * window is deregistered): each ends in ERROR with reason ERR_REMOTE_ACCESS, writes
 * nothing and counts in RX_PROT_DROP. Then remote reads (docs/nic.md "Remote reads"):
 * node 0 reads 6000 bytes of node 1's buffer on a read channel under a window with read
 * permission (rkey) into a window of its own with local-write permission (lkey): DONE,
 * the bytes match; refused: a window without read permission (node 1 refuses the
 * READ_REQ) and a local window without local-write permission (node 0 refuses the
 * responses): ERROR, ERR_REMOTE_ACCESS, nothing written. Then a cluster (docs/qos.md
 * "Clustering"): writes posted with hold stay BUSY and write nothing until an inline write
 * with start on the same page releases them. Exit status 0 when all pass.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check_report.h"
#include "qrdma.h"
#include "qrdma_backend_sim.h"

int main(void)
{
    struct qrdma_backend *be = NULL;
    TRY(qrdma_backend_sim_open(2, NULL, &be));
    qrdma_sim *sim = qrdma_backend_sim_get(be);
    qrdma_node *n0 = NULL, *n1 = NULL;
    TRY(qrdma_open(be, 0, &n0));
    TRY(qrdma_open(be, 1, &n1));
    check(qrdma_node_info(n0)->node_id == 0 && qrdma_node_info(n1)->node_id == 1,
          "qrdma_open: node IDs 0 and 1");
    printf("     block %" PRIu32 " B, max outstanding %" PRIu32 ", host port %" PRIu32 " bits\n",
           qrdma_node_info(n0)->block_size, qrdma_node_info(n0)->max_outstanding,
           qrdma_node_info(n0)->host_data_w);
    TRY(qrdma_nq_setup(n1, 16));

    struct qrdma_buf src, dst;
    TRY(qrdma_buf_alloc(n0, 4096, 4096, &src));
    TRY(qrdma_buf_alloc(n1, 8192, 4096, &dst));
    for (unsigned i = 0; i < 4096; i++)
        ((uint8_t *)src.cpu)[i] = (uint8_t)(i * 13 + 5);
    memset(dst.cpu, 0, 8192);

    qrdma_page *pg = NULL;
    TRY(qrdma_page_claim(n0, QRDMA_PAGE_ANY, &pg));
    int ch = qrdma_chan_alloc(pg, 2);   /* a keyed write takes a 64-byte descriptor */
    int pair = qrdma_chan_alloc(pg, 2);
    TRY(ch);
    TRY(pair);
    /* node 1's buffer open to node 0's page; the window ends 100 bytes before the buffer */
    struct qrdma_mr mr;
    TRY(qrdma_mr_reg(n1, qrdma_page_index(pg), dst.dev, 8192 - 100, QRDMA_MR_REMOTE_WRITE, &mr));

    struct qrdma_write wr;
    memset(&wr, 0, sizeof wr);
    wr.src_addr = src.dev;
    wr.dst_addr = dst.dev;
    wr.size = 4096;
    wr.dst_node = qrdma_node_info(n1)->node_id;
    wr.flags = QRDMA_WR_NOTIFY;
    wr.tag = 0xC0FFEE;
    wr.rkey = mr.rkey;
    uint64_t t0 = qrdma_now(n0);
    TRY(qrdma_post_write(pg, (unsigned)ch, &wr));
    int st = qrdma_wait(pg, (unsigned)ch, 100000);
    uint64_t t1 = qrdma_now(n0);
    printf("     4 KiB write: DONE after %.0f ns (%" PRIu64 " cycles)\n", qrdma_ticks_to_ns(n0, t1 - t0),
           t1 - t0);
    check(st == QRDMA_ST_DONE, "4 KiB write: qrdma_wait returns DONE");
    check(memcmp(src.cpu, dst.cpu, 4096) == 0, "4 KiB write: bytes match");

    struct qrdma_notif nt;
    memset(&nt, 0, sizeof nt);
    int r = qrdma_nq_wait(n1, &nt, 100000);
    check(r == 1 && nt.kind == QRDMA_NET_CONTROL && nt.src_node == 0 && nt.size == 4096 &&
              nt.tag == 0xC0FFEE && nt.dst_addr == dst.dev,
          "4 KiB write: notification on node 1 (CONTROL, size, tag, dst_addr)");

    uint8_t inl[20];
    for (unsigned i = 0; i < sizeof inl; i++)
        inl[i] = (uint8_t)(0xA0 + i);
    memset(&wr, 0, sizeof wr);
    wr.dst_addr = dst.dev + 4096 + 7;
    wr.dst_node = qrdma_node_info(n1)->node_id;
    wr.rkey = mr.rkey;
    TRY(qrdma_post_inline(pg, (unsigned)pair, &wr, inl, sizeof inl));
    st = qrdma_wait(pg, (unsigned)pair, 100000);
    check(st == QRDMA_ST_DONE, "inline 20 B: qrdma_wait returns DONE");
    check(memcmp((uint8_t *)dst.cpu + 4096 + 7, inl, sizeof inl) == 0 &&
              ((uint8_t *)dst.cpu)[4096 + 6] == 0 && ((uint8_t *)dst.cpu)[4096 + 27] == 0,
          "inline 20 B: bytes match, neighbours untouched");

    uint64_t cnt = 0;
    TRY(qrdma_counter_read(n1, QRDMA_CNT_RX_NOTIFS, &cnt));
    check(cnt == 1, "node 1 RX_NOTIFS = 1");

    /* refused: a wrong tag, the window's last bytes and beyond, the window deregistered */
    uint8_t before[8192];
    memcpy(before, dst.cpu, sizeof before);
    struct {
        const char *what;
        uint32_t rkey;
        uint64_t off, size;
        int dereg;
    } bad[] = {
        {"wrong key", 0, 0, 512, 0},
        {"past the window's end", 0, 8192 - 356, 300, 0},
        {"deregistered window", 0, 0, 512, 1},
    };
    bad[0].rkey = mr.rkey ^ 1;
    bad[1].rkey = bad[2].rkey = mr.rkey;
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (bad[i].dereg)
            TRY(qrdma_mr_dereg(n1, &mr));
        memset(&wr, 0, sizeof wr);
        wr.src_addr = src.dev;
        wr.dst_addr = dst.dev + bad[i].off;
        wr.size = bad[i].size;
        wr.dst_node = qrdma_node_info(n1)->node_id;
        wr.rkey = bad[i].rkey;
        TRY(qrdma_post_write(pg, (unsigned)ch, &wr));
        st = qrdma_wait(pg, (unsigned)ch, 100000);
        int reason = qrdma_chan_error(pg, (unsigned)ch);
        printf("     %s: %s\n", bad[i].what, qrdma_err_reason_str(reason));
        check(st == QRDMA_ST_ERROR && reason == QRDMA_ERR_REMOTE_ACCESS,
              "refused write: ERROR, reason ERR_REMOTE_ACCESS");
    }
    check(memcmp(before, dst.cpu, sizeof before) == 0, "refused writes: nothing written");
    TRY(qrdma_counter_read(n1, QRDMA_CNT_RX_PROT_DROP, &cnt));
    check(cnt == 3, "node 1 RX_PROT_DROP = 3 (one packet each)");

    /* remote reads: node 1's buffer (read permission) into node 0's (local write) */
    for (unsigned i = 0; i < 8192; i++)
        ((uint8_t *)dst.cpu)[i] = (uint8_t)(i * 7 + 3);
    memset(src.cpu, 0, 4096);
    struct qrdma_buf land;
    TRY(qrdma_buf_alloc(n0, 8192, 4096, &land));
    memset(land.cpu, 0, 8192);
    struct qrdma_mr rmr, lmr, wmr, nolmr;
    TRY(qrdma_mr_reg(n1, qrdma_page_index(pg), dst.dev, 8192, QRDMA_MR_REMOTE_READ, &rmr));
    TRY(qrdma_mr_reg(n1, qrdma_page_index(pg), dst.dev, 8192, QRDMA_MR_REMOTE_WRITE, &wmr));
    TRY(qrdma_mr_reg(n0, qrdma_page_index(pg), land.dev, 8192, QRDMA_MR_LOCAL_WRITE, &lmr));
    TRY(qrdma_mr_reg(n0, qrdma_page_index(pg), land.dev, 8192, QRDMA_MR_REMOTE_WRITE, &nolmr));
    int rch = qrdma_chan_alloc_read(pg, 2);
    TRY(rch);
    struct qrdma_read rd;
    memset(&rd, 0, sizeof rd);
    rd.src_addr = dst.dev + 100;
    rd.dst_addr = land.dev + 50;
    rd.size = 6000;
    rd.src_node = qrdma_node_info(n1)->node_id;
    rd.rkey = rmr.rkey;
    rd.lkey = lmr.rkey;
    t0 = qrdma_now(n0);
    TRY(qrdma_post_read(pg, (unsigned)rch, &rd));
    st = qrdma_wait(pg, (unsigned)rch, 100000);
    t1 = qrdma_now(n0);
    printf("     6000 B read: DONE after %.0f ns (%" PRIu64 " cycles)\n", qrdma_ticks_to_ns(n0, t1 - t0),
           t1 - t0);
    check(st == QRDMA_ST_DONE, "6000 B read: qrdma_wait returns DONE");
    check(memcmp((uint8_t *)dst.cpu + 100, (uint8_t *)land.cpu + 50, 6000) == 0 &&
              ((uint8_t *)land.cpu)[49] == 0 && ((uint8_t *)land.cpu)[6050] == 0,
          "6000 B read: bytes match, neighbours untouched");
    TRY(qrdma_counter_read(n1, QRDMA_CNT_RX_READ_REQS, &cnt));
    check(cnt == 1, "node 1 RX_READ_REQS = 1 (one block)");

    uint8_t lbefore[8192];
    memcpy(lbefore, land.cpu, sizeof lbefore);
    struct {
        const char *what;
        uint32_t rkey, lkey;
    } rbad[] = {
        {"read of a window without read permission", wmr.rkey, lmr.rkey},
        {"read into a window without local-write permission", rmr.rkey, nolmr.rkey},
    };
    for (unsigned i = 0; i < sizeof rbad / sizeof rbad[0]; i++) {
        rd.dst_addr = land.dev + 1000;
        rd.size = 3000;
        rd.rkey = rbad[i].rkey;
        rd.lkey = rbad[i].lkey;
        TRY(qrdma_post_read(pg, (unsigned)rch, &rd));
        st = qrdma_wait(pg, (unsigned)rch, 100000);
        int reason = qrdma_chan_error(pg, (unsigned)rch);
        printf("     %s: %s\n", rbad[i].what, qrdma_err_reason_str(reason));
        check(st == QRDMA_ST_ERROR && reason == QRDMA_ERR_REMOTE_ACCESS,
              "refused read: ERROR, reason ERR_REMOTE_ACCESS");
    }
    check(memcmp(lbefore, land.cpu, sizeof lbefore) == 0, "refused reads: nothing written");
    TRY(qrdma_counter_read(n1, QRDMA_CNT_RX_PROT_DROP, &cnt));
    check(cnt == 4, "node 1 RX_PROT_DROP = 4 (and the READ_REQ refused)");
    TRY(qrdma_counter_read(n0, QRDMA_CNT_RX_PROT_DROP, &cnt));
    check(cnt == 4, "node 0 RX_PROT_DROP = 4 (the four response packets refused)");
    qrdma_buf_free(n0, &land);

    /* clustering (docs/qos.md "Clustering"): three keyed writes posted with HOLD wait,
     * BUSY, writing nothing; an inline write with START on the same page releases them */
    struct qrdma_mr cmr;
    TRY(qrdma_mr_reg(n1, qrdma_page_index(pg), dst.dev, 8192, QRDMA_MR_REMOTE_WRITE, &cmr));
    memset(dst.cpu, 0, 8192);
    int cch[3];
    for (unsigned i = 0; i < 3; i++) {
        cch[i] = qrdma_chan_alloc(pg, 2);
        TRY(cch[i]);
        memset(&wr, 0, sizeof wr);
        wr.src_addr = src.dev + 1024 * i;
        wr.dst_addr = dst.dev + 1024 * i;
        wr.size = 1000;
        wr.dst_node = qrdma_node_info(n1)->node_id;
        wr.flags = QRDMA_WR_HOLD;
        wr.rkey = cmr.rkey;
        TRY(qrdma_post_write(pg, (unsigned)cch[i], &wr));
    }
    check(qrdma_wait(pg, (unsigned)cch[0], 5000) == QRDMA_ETIMEDOUT &&
              qrdma_poll(pg, (unsigned)cch[2]) == QRDMA_ST_BUSY,
          "held writes: still BUSY after 5000 cycles");
    int untouched = 1;
    for (unsigned i = 0; i < 8192; i++)
        untouched &= ((uint8_t *)dst.cpu)[i] == 0;
    check(untouched, "held writes: nothing written");
    memset(&wr, 0, sizeof wr);
    wr.dst_addr = dst.dev + 4000;
    wr.dst_node = qrdma_node_info(n1)->node_id;
    wr.flags = QRDMA_WR_START;
    wr.rkey = cmr.rkey;
    TRY(qrdma_post_inline(pg, (unsigned)pair, &wr, inl, 8));
    int all_done = qrdma_wait(pg, (unsigned)pair, 100000) == QRDMA_ST_DONE;
    for (unsigned i = 0; i < 3; i++)
        all_done &= qrdma_wait(pg, (unsigned)cch[i], 100000) == QRDMA_ST_DONE;
    check(all_done, "start: the three held writes and the start DONE");
    int same = memcmp((uint8_t *)dst.cpu + 4000, inl, 8) == 0;
    for (unsigned i = 0; i < 3; i++)
        same &= memcmp((uint8_t *)dst.cpu + 1024 * i, (uint8_t *)src.cpu + 1024 * i, 1000) == 0;
    check(same, "start: every byte of the cluster landed");
    TRY(qrdma_mr_dereg(n1, &cmr));

    check(qrdma_sim_errors(sim) == 0, "no harness protocol errors");

    qrdma_buf_free(n0, &src);
    qrdma_buf_free(n1, &dst);
    qrdma_close(n0);
    qrdma_close(n1);
    qrdma_backend_close(be);
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "OK", failures);
    return failures ? 1 : 0;
}
