/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * qrdma_sim_check_watchdog MODE: the harness's liveness watchdog (docs/sim.md "Watchdog")
 * with libqrdma on the simulation backend, two nodes on a point-to-point link (three on
 * the star for hang-star), options through qrdma_tool_backend_open's spec
 * (tests/sim/test_watchdog.py runs every mode).
 *   hang         watchdog=20000,watchdog_exit=0: node 0 posts a 4 KiB memory write to
 *                dst_node 3, a node that does not exist, with its NODE_MASK opened to
 *                every node (as in a system whose mask is wrong: the NIC sends the packets
 *                instead of refusing the write; docs/reliability.md), node 1 drops the
 *                packets, no ACK comes, node 0 stays busy (its RETX_TIMEOUT, 8,000,000
 *                cycles, is far away): exactly one stall error, 20,000 .. 21,000
 *                cycles after the last beat moved, and no second one while nothing moves;
 *                then a write from node 1 to node 0 moves beats again (the watchdog
 *                re-arms) and, once it is done, the same stall trips a second time as
 *                long after its last beat
 *   hang-star    the same post with three nodes (the star's port 3 has no NIC: the
 *                packets wait in its receive buffer, none is dropped): one stall error, as
 *                long after the last beat
 *   hang-exit    watchdog=20000 (exit on a trip): the same post as hang, then qrdma_wait
 *                without a time limit; the watchdog ends the process with
 *                QRDMA_SIM_EXIT_STALL
 *   ring         watchdog=50000,watchdog_exit=0: node 1's notification ring has one
 *                entry; node 0 posts eight notifying writes to node 1 and software takes
 *                no entry for 300,000 cycles (a notification waits for a slot: nq_wait);
 *                no stall error; then software takes the entries and every transfer
 *                completes
 *   idle         watchdog=1000,watchdog_exit=0: nothing posted for 500,000 cycles, then a
 *                4 KiB write completed and its DONE left unread for 300,000 cycles: no
 *                stall error
 *   gap          the default options (watchdog 200,000 cycles, exit): one 8 MiB memory
 *                write with notification; prints the longest run of cycles in which no
 *                beat moved on a link or memory port between its post and its last beat
 *                (the ACK), which must stay below a tenth of the default
 * The state dumps go to stderr (ring calls qrdma_sim_dump_state while the notifications
 * wait). Exit status 0 when all pass, 1 otherwise; hang-exit ends with 4 (the watchdog).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_report.h"
#include "qrdma.h"
#include "qrdma_backend_sim.h"

static struct qrdma_backend *be;
static qrdma_sim *sim;
static qrdma_node *nd[2];

static int open_sim(const char *spec)
{
    TRY(qrdma_tool_backend_open(spec, &be));
    sim = qrdma_backend_sim_get(be);
    TRY(qrdma_open(be, 0, &nd[0]));
    TRY(qrdma_open(be, 1, &nd[1]));
    TRY(qrdma_prot_open(nd[0], 1));   /* development mode: writes without keys */
    TRY(qrdma_prot_open(nd[1], 1));
    printf("     spec %s\n", spec ? spec : "(defaults)");
    return 0;
}

static uint64_t stalls(void) { return qrdma_sim_error_count(sim, QRDMA_SIM_ERR_STALL); }

/* Beats and handshakes the watchdog counts as movement, over all nodes: link beats in
 * both directions, AR, R, AW, W and B of the memory ports. */
static uint64_t movement(void)
{
    uint64_t sum = 0;
    for (unsigned i = 0; i < qrdma_sim_num_nodes(sim); i++) {
        qrdma_sim_node_stats st;
        qrdma_sim_node_stats_get(sim, i, &st);
        sum += st.tx_beats + st.rx_beats + st.mem_read_bursts + st.mem_read_beats +
               st.mem_write_bursts + st.mem_write_beats + st.mem_write_resps;
    }
    return sum;
}

/* Step one cycle at a time until the number of stall errors reaches `want` (at most
 * max_cycles); *last_move gets the cycle count (qrdma_sim_now) after the last cycle in
 * which something moved. Returns qrdma_sim_now after the cycle of the trip, 0 if none. */
static uint64_t step_to_stall(uint64_t want, uint64_t max_cycles, uint64_t *last_move)
{
    uint64_t mv = movement();
    for (uint64_t k = 0; k < max_cycles; k++) {
        qrdma_sim_step(sim, 1);
        uint64_t m = movement();
        if (m != mv) {
            mv = m;
            *last_move = qrdma_sim_now(sim);
        }
        if (stalls() >= want)
            return qrdma_sim_now(sim);
    }
    return 0;
}

static int post_mem(int from, unsigned dst_node, uint64_t size, uint32_t flags,
                    struct qrdma_buf *src, struct qrdma_buf *dst, qrdma_page **pg, int *ch)
{
    TRY(qrdma_buf_alloc(nd[from], size, 4096, src));
    TRY(qrdma_buf_alloc(nd[1 - from], size, 4096, dst));
    for (uint64_t i = 0; i < size; i++)
        ((uint8_t *)src->cpu)[i] = (uint8_t)(i * 7 + 3 + (i >> 12));
    memset(dst->cpu, 0, size);
    if (!*pg)
        TRY(qrdma_page_claim(nd[from], QRDMA_PAGE_ANY, pg));
    *ch = qrdma_chan_alloc(*pg, 1);
    TRY(*ch);
    struct qrdma_write wr;
    memset(&wr, 0, sizeof wr);
    wr.src_addr = src->dev;
    wr.dst_addr = dst->dev;
    wr.size = size;
    wr.dst_node = (uint16_t)dst_node;
    wr.flags = flags;
    wr.tag = 0x5EED;
    /* a node the system does not have: NODE_MASK opened, so that the NIC sends it */
    if (dst_node >= qrdma_sim_num_nodes(sim))
        TRY(qrdma_reg_write(nd[from], QRDMA_REG(nic.NODE_MASK), ~0ULL));
    TRY(qrdma_post_write(*pg, (unsigned)*ch, &wr));
    return 0;
}

static int mode_hang(void)
{
    if (open_sim("nodes=2,watchdog=20000,watchdog_exit=0"))
        return 1;
    struct qrdma_buf src, dst;
    qrdma_page *pg = NULL;
    int ch;
    if (post_mem(0, 3, 4096, 0, &src, &dst, &pg, &ch))
        return 1;
    printf("     posted at cycle %" PRIu64 ": 4 KiB from node 0 to dst_node 3\n", qrdma_sim_now(sim));
    uint64_t last = qrdma_sim_now(sim);
    uint64_t trip = step_to_stall(1, 200000, &last);
    printf("     trip at cycle %" PRIu64 ", last beat moved %" PRIu64 " cycles before\n", trip,
           trip - last);
    check(trip != 0, "the watchdog trips");
    check(trip - last >= 20000 && trip - last <= 21000,
          "the trip comes 20,000 .. 21,000 cycles after the last beat moved");
    const char *first = qrdma_sim_error_first(sim, QRDMA_SIM_ERR_STALL);
    printf("     stall error: %s\n", first);
    check(strstr(first, "node 0") != NULL, "the stall error names node 0");
    qrdma_sim_step(sim, 60000);
    check(stalls() == 1 && qrdma_sim_errors(sim) == 1,
          "exactly one stall error (and no other) after 60,000 more cycles of the same stall");

    /* movement resumes: a write from node 1 to node 0 */
    struct qrdma_buf src1, dst1;
    qrdma_page *pg1 = NULL;
    int ch1;
    if (post_mem(1, 0, 4096, 0, &src1, &dst1, &pg1, &ch1))
        return 1;
    last = qrdma_sim_now(sim);
    trip = step_to_stall(2, 200000, &last);
    printf("     second trip at cycle %" PRIu64 ", %" PRIu64 " cycles after the last beat\n",
           trip, trip - last);
    check(trip != 0 && trip - last >= 20000 && trip - last <= 21000 && stalls() == 2,
          "node 0 still stalled: a second stall error 20,000 .. 21,000 cycles after the last beat");
    check(qrdma_poll(pg1, (unsigned)ch1) == QRDMA_ST_DONE && memcmp(src1.cpu, dst1.cpu, 4096) == 0,
          "the write from node 1 to node 0 completed before it");
    qrdma_chan_forget(pg, (unsigned)ch);
    qrdma_buf_free(nd[0], &src);
    qrdma_buf_free(nd[1], &dst);
    return 0;
}

static int mode_hang_star(void)
{
    if (open_sim("nodes=3,watchdog=20000,watchdog_exit=0"))
        return 1;
    struct qrdma_buf src, dst;
    qrdma_page *pg = NULL;
    int ch;
    if (post_mem(0, 3, 4096, 0, &src, &dst, &pg, &ch))
        return 1;
    uint64_t last = qrdma_sim_now(sim);
    uint64_t trip = step_to_stall(1, 200000, &last);
    printf("     star: trip at cycle %" PRIu64 ", %" PRIu64 " cycles after the last beat; "
           "%" PRIu64 " packets dropped\n", trip, trip - last, qrdma_sim_dropped_packets(sim));
    check(trip != 0 && trip - last >= 20000 && trip - last <= 21000 && stalls() == 1,
          "3 nodes (the packets wait at port 3): one stall error 20,000 .. 21,000 cycles after "
          "the last beat");
    check(qrdma_sim_dropped_packets(sim) == 0, "the fabric dropped no packet");
    qrdma_chan_forget(pg, (unsigned)ch);
    return 0;
}

static int mode_hang_exit(void)
{
    if (open_sim("nodes=2,watchdog=20000"))
        return 1;
    struct qrdma_buf src, dst;
    qrdma_page *pg = NULL;
    int ch;
    if (post_mem(0, 3, 4096, 0, &src, &dst, &pg, &ch))
        return 1;
    printf("     posted at cycle %" PRIu64 ": 4 KiB from node 0 to dst_node 3; waiting\n",
           qrdma_sim_now(sim));
    fflush(stdout);
    int st = qrdma_wait(pg, (unsigned)ch, 0); /* no limit: only the watchdog ends it */
    printf("FAIL qrdma_wait returned %d\n", st);
    return 1;
}

static int mode_ring(void)
{
    enum { K = 8, SIZE = 4096 };
    if (open_sim("nodes=2,watchdog=50000,watchdog_exit=0"))
        return 1;
    TRY(qrdma_nq_setup(nd[1], 1));
    struct qrdma_buf src[K], dst[K];
    qrdma_page *pg = NULL;
    int ch[K];
    for (int k = 0; k < K; k++)
        if (post_mem(0, qrdma_node_info(nd[1])->node_id, SIZE, QRDMA_WR_NOTIFY, &src[k],
                     &dst[k], &pg, &ch[k]))
            return 1;
    uint64_t t0 = qrdma_sim_now(sim);
    qrdma_sim_step(sim, 300000);
    uint64_t waited = qrdma_sim_mmio_read64(sim, 1, QRDMA_REG(nic.RX_NQ_WAIT), NULL);
    printf("     node 1 RX_NQ_WAIT after 300,000 cycles: %" PRIu64 " cycles\n", waited);
    fprintf(stderr, "check_watchdog: state while the ring is full:\n");
    qrdma_sim_dump_state(sim);
    check(waited >= 250000, "a notification waited for a ring slot (nq_wait) most of the time");
    check(stalls() == 0 && qrdma_sim_errors(sim) == 0,
          "no stall error in 300,000 cycles of an undrained 1-entry ring");

    int done[K] = {0}, notifs = 0, ndone = 0;
    while (qrdma_sim_now(sim) < t0 + 600000 && (notifs < K || ndone < K)) {
        struct qrdma_notif nf;
        int r = qrdma_nq_poll(nd[1], &nf);
        TRY(r);
        notifs += r;
        for (int k = 0; k < K; k++) {
            if (done[k])
                continue;
            int st = qrdma_poll(pg, (unsigned)ch[k]);
            TRY(st);
            if (st == QRDMA_ST_DONE || st == QRDMA_ST_ERROR) {
                done[k] = st;
                ndone++;
            }
        }
        qrdma_sim_step(sim, 100);
    }
    int ok = notifs == K && ndone == K;
    for (int k = 0; k < K; k++)
        ok = ok && done[k] == QRDMA_ST_DONE && memcmp(src[k].cpu, dst[k].cpu, SIZE) == 0;
    printf("     %d notifications taken, %d transfers done by cycle %" PRIu64 "\n", notifs,
           ndone, qrdma_sim_now(sim));
    check(ok, "software takes the entries: eight notifications, eight transfers DONE, bytes match");
    check(stalls() == 0 && qrdma_sim_errors(sim) == 0, "no stall error at the end");
    return 0;
}

static int mode_idle(void)
{
    qrdma_sim_options o;
    qrdma_sim_default_options(&o);
    check(o.watchdog_cycles == 200000 && o.watchdog_exit == 1,
          "defaults: watchdog 200,000 cycles, exit on a trip");
    check(!strcmp(qrdma_sim_error_cat_name(QRDMA_SIM_ERR_STALL), "stall") &&
              QRDMA_SIM_ERR_STALL + 1 == QRDMA_SIM_ERR_NUM_CATS,
          "the stall category: \"stall\", the last");
    if (open_sim("nodes=2,watchdog=1000,watchdog_exit=0"))
        return 1;
    qrdma_sim_step(sim, 500000);
    check(stalls() == 0 && qrdma_sim_errors(sim) == 0,
          "an idle system: no stall error in 500,000 cycles (watchdog 1,000)");
    struct qrdma_buf src, dst;
    qrdma_page *pg = NULL;
    int ch;
    if (post_mem(0, qrdma_node_info(nd[1])->node_id, 4096, 0, &src, &dst, &pg, &ch))
        return 1;
    check(qrdma_sim_wait_quiet(sim, 100000) >= 0, "a 4 KiB write runs out");
    qrdma_sim_step(sim, 300000);
    check(stalls() == 0 && qrdma_sim_errors(sim) == 0,
          "no stall error in 300,000 cycles with its DONE unread");
    check(qrdma_poll(pg, (unsigned)ch) == QRDMA_ST_DONE && memcmp(src.cpu, dst.cpu, 4096) == 0,
          "the write is DONE, bytes match");
    return 0;
}

struct gap_track {
    uint64_t mv, last, max_gap;
    volatile const uint8_t *marker;
};

/* wait_until predicate (before each cycle): the longest run of cycles without movement
 * between two cycles with movement; true once the notification's marker is written */
static int gap_pred(qrdma_sim *s, void *arg)
{
    struct gap_track *g = arg;
    uint64_t m = movement();
    uint64_t now = qrdma_sim_now(s);
    if (m != g->mv) {
        /* cycle now - 1 moved, the last before it g->last - 1 */
        if (now - g->last - 1 > g->max_gap)
            g->max_gap = now - g->last - 1;
        g->mv = m;
        g->last = now;
    }
    return g->marker && *g->marker == (uint8_t)QRDMA_NOTIF_FULL;
}

static int mode_gap(void)
{
    const uint64_t size = 8ull << 20;
    if (open_sim(NULL))
        return 1;
    TRY(qrdma_nq_setup(nd[1], 4));
    struct qrdma_buf src, dst;
    qrdma_page *pg = NULL;
    int ch;
    if (post_mem(0, qrdma_node_info(nd[1])->node_id, size, QRDMA_WR_NOTIFY, &src, &dst, &pg,
                 &ch))
        return 1;
    uint64_t t0 = qrdma_sim_now(sim);
    struct gap_track g = {movement(), t0, 0, (volatile const uint8_t *)qrdma_nq_buf(nd[1])->cpu};
    int64_t w = qrdma_sim_wait_until(sim, gap_pred, &g, 2000000);
    uint64_t t1 = qrdma_sim_now(sim);
    g.marker = NULL;
    /* then until the sender's side has run out too (its ACK) */
    uint64_t until = t1 + 20000;
    while (qrdma_sim_now(sim) < until)
        qrdma_sim_wait_until(sim, gap_pred, &g, until - qrdma_sim_now(sim));
    int st = qrdma_poll(pg, (unsigned)ch);
    printf("     8 MiB write: notification after %" PRIu64 " cycles; longest run without a "
           "moving beat %" PRIu64 " cycles\n", t1 - t0, g.max_gap);
    check(w >= 0 && st == QRDMA_ST_DONE && memcmp(src.cpu, dst.cpu, size) == 0,
          "8 MiB write: notification, DONE, bytes match");
    check(g.max_gap < 20000, "longest run without movement below a tenth of the default watchdog");
    check(stalls() == 0, "no stall error");
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int r;
    if (!strcmp(mode, "hang"))
        r = mode_hang();
    else if (!strcmp(mode, "hang-star"))
        r = mode_hang_star();
    else if (!strcmp(mode, "hang-exit"))
        r = mode_hang_exit();
    else if (!strcmp(mode, "ring"))
        r = mode_ring();
    else if (!strcmp(mode, "idle"))
        r = mode_idle();
    else if (!strcmp(mode, "gap"))
        r = mode_gap();
    else {
        fprintf(stderr,
                "usage: qrdma_sim_check_watchdog hang|hang-star|hang-exit|ring|idle|gap\n");
        return 2;
    }
    if (r)
        return r;
    printf("%s: %d failure(s), %" PRIu64 " cycles simulated\n", failures ? "FAILED" : "OK",
           failures, qrdma_sim_now(sim));
    for (int i = 0; i < 2; i++)
        if (nd[i])
            qrdma_close(nd[i]);
    qrdma_backend_close(be);
    return failures ? 1 : 0;
}
