/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * qrdma_sim_check_faults_sys SPEC N SEED [TIMEOUT [RETRIES [RESEND]]]: two NICs exchanging memory writes over links with
 * faults (docs/sim.md "Faults"), libqrdma on the simulation backend opened with SPEC
 * (qrdma_tool_backend_open: e.g. corrupt=0.01,seed=3,watchdog=0). Each node posts N writes
 * of 1 B .. 32 KiB (random from SEED) to the other, at most 32 in flight, from one page;
 * a DONE transfer's destination is compared byte for byte and its channel reused. Once every
 * transfer is posted, the run goes on until all are DONE or, with some still BUSY (a packet
 * of theirs lost: RETX_TIMEOUT at its reset value is beyond the run), until the harness has
 * been quiet and no transfer has finished for 20,000 cycles. With TIMEOUT (cycles, 0: left
 * at its reset value), both NICs' RETX_TIMEOUT is set to it and the run waits for every
 * write to finish, DONE or ERROR (reason ERR_TIMEOUT). With TIMEOUT or RETRIES, both NICs'
 * RETRY_LIMIT is written: RETRIES re-sends (0 if not given), no backoff, re-send mode
 * RESEND (0 if not given: selective; 1 go-back-N; 2 timeouts only, MISS answers ignored). It then prints, per direction, the fault model's counts and the NICs'
 * counters, and checks:
 *   - the receiver's RX_CRC_DROP equals the corrupted packets of the direction into it;
 *   - beats: the sender's tx beats = beats_in, the receiver's rx beats = beats_out =
 *     beats_in - dropped_beats + dup_beats; the sender's TX_DATA_PKTS + TX_CTRL_PKTS =
 *     packets_in;
 *   - no DONE transfer with a wrong byte; every transfer DONE when no packet was dropped or
 *     corrupted; at most as many BUSY ones as packets dropped or corrupted;
 *   - with TIMEOUT: none BUSY; every ERROR of reason ERR_TIMEOUT; at most as many ERROR
 *     ones as packets dropped or corrupted, and no more than the timers that ran out
 *     (TX_TIMEOUTS).
 * tests/sim/test_faults.py runs it with threads on and off and compares every line.
 * Exit status 0 when all checks pass, 1 otherwise.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_report.h"
#include "qrdma.h"
#include "qrdma_backend_sim.h"

#define MAX_IN_FLIGHT 32
#define MAX_SIZE 32768

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

struct xfer {
    struct qrdma_buf src, dst;
    uint64_t size;
    int ch; /* channel while in flight, -1 */
    int done; /* 1 DONE, -1 ERROR */
};

struct side {
    qrdma_node *nd;
    qrdma_page *pg;
    struct xfer *x;
    unsigned n, posted, done, bad, in_flight, errors, bad_reason;
    int by_ch[64]; /* transfer on channel c, -1 */
};

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 7) {
        fprintf(stderr, "usage: qrdma_sim_check_faults_sys SPEC N SEED [TIMEOUT [RETRIES [RESEND]]]\n");
        return 2;
    }
    const unsigned n = (unsigned)strtoul(argv[2], NULL, 0);
    const uint64_t timeout = argc >= 5 ? strtoull(argv[4], NULL, 0) : 0;
    const uint64_t retries = argc >= 6 ? strtoull(argv[5], NULL, 0) : 0;
    const uint64_t resend = argc == 7 ? strtoull(argv[6], NULL, 0) : 0;
    const int set_limit = timeout || argc >= 6;
    rng_state = strtoull(argv[3], NULL, 0) * 0x9e3779b97f4a7c15ull + 1;
    struct qrdma_backend *be;
    TRY(qrdma_tool_backend_open(argv[1], &be));
    qrdma_sim *sim = qrdma_backend_sim_get(be);
    struct side sd[2];
    memset(sd, 0, sizeof sd);
    for (unsigned i = 0; i < 2; i++) {
        TRY(qrdma_open(be, i, &sd[i].nd));
        TRY(qrdma_prot_open(sd[i].nd, 1));   /* development mode: writes without keys */
        TRY(qrdma_page_claim(sd[i].nd, QRDMA_PAGE_ANY, &sd[i].pg));
        if (timeout)
            TRY(qrdma_reg_write(sd[i].nd, QRDMA_REG(nic.RETX_TIMEOUT), timeout));
        if (set_limit)
            TRY(qrdma_reg_write(sd[i].nd, QRDMA_REG(nic.RETRY_LIMIT),
                                retries << QRDMA_NIC_CSR__RETRY_LIMIT__RETRIES_bp |
                                    resend << QRDMA_NIC_CSR__RETRY_LIMIT__RESEND_bp));
        sd[i].n = n;
        sd[i].x = calloc(n, sizeof *sd[i].x);
        for (unsigned c = 0; c < 64; c++)
            sd[i].by_ch[c] = -1;
    }
    for (unsigned k = 0; k < n; k++)
        for (unsigned i = 0; i < 2; i++) {
            struct xfer *x = &sd[i].x[k];
            x->size = 1 + rnd() % MAX_SIZE;
            x->ch = -1;
            TRY(qrdma_buf_alloc(sd[i].nd, x->size, 64, &x->src));
            TRY(qrdma_buf_alloc(sd[1 - i].nd, x->size, 64, &x->dst));
            for (uint64_t b = 0; b < x->size; b++)
                ((uint8_t *)x->src.cpu)[b] = (uint8_t)rnd();
            memset(x->dst.cpu, 0, x->size);
        }
    printf("spec %s, %u writes per node, seed %s, timeout %" PRIu64 ", retries %" PRIu64
           ", resend %" PRIu64 "\n", argv[1], n, argv[3], timeout, retries, resend);

    uint64_t last_progress = qrdma_sim_now(sim);
    for (;;) {
        int all_posted = 1, all_done = 1;
        for (unsigned i = 0; i < 2; i++) {
            struct side *s = &sd[i];
            while (s->posted < s->n && s->in_flight < MAX_IN_FLIGHT) {
                struct xfer *x = &s->x[s->posted];
                int ch = qrdma_chan_alloc(s->pg, 1);
                if (ch < 0)
                    break;
                struct qrdma_write wr;
                memset(&wr, 0, sizeof wr);
                wr.src_addr = x->src.dev;
                wr.dst_addr = x->dst.dev;
                wr.size = x->size;
                wr.dst_node = (uint16_t)(1 - i);
                TRY(qrdma_post_write(s->pg, (unsigned)ch, &wr));
                x->ch = ch;
                s->by_ch[ch] = (int)s->posted;
                s->posted++;
                s->in_flight++;
            }
            for (unsigned g = 0; g < 2; g++) {
                struct qrdma_coll c;
                TRY(qrdma_poll_coll(s->pg, g, &c));
                for (unsigned b = 0; b < 32; b++) {
                    if (!((c.done | c.error) >> b & 1))
                        continue;
                    unsigned ch = 32 * g + b;
                    struct xfer *x = &s->x[s->by_ch[ch]];
                    x->done = (c.done >> b & 1) ? 1 : -1;
                    if (x->done < 0) {
                        s->errors++;
                        if (!timeout || qrdma_chan_error(s->pg, ch) != QRDMA_ERR_TIMEOUT)
                            s->bad_reason++;
                    } else if (memcmp(x->src.cpu, x->dst.cpu, x->size)) {
                        s->bad++;
                    }
                    s->by_ch[ch] = -1;
                    x->ch = -1;
                    s->done++;
                    s->in_flight--;
                    TRY(qrdma_chan_free(s->pg, ch));
                    last_progress = qrdma_sim_now(sim);
                }
            }
            all_posted &= s->posted == s->n;
            all_done &= s->done == s->n;
        }
        if (all_done)
            break;
        if (all_posted && !timeout && qrdma_sim_now(sim) - last_progress > 20000 &&
            qrdma_sim_wait_quiet(sim, 1) >= 0)
            break;
        qrdma_sim_step(sim, 64);
    }
    printf("cycle %" PRIu64 "\n", qrdma_sim_now(sim));

    static const char *const names[] = {"packets_in", "beats_in", "packets_out", "beats_out",
                                        "silenced", "down_lost", "lost", "dropped_beats",
                                        "corrupted", "duplicated", "dup_beats", "delayed",
                                        "reordered"};
    for (unsigned i = 0; i < 2; i++) {
        const unsigned o = 1 - i;
        qrdma_sim_fault_counts fc;
        int has = qrdma_sim_fault_counts_get(sim, i, o, &fc);
        const uint64_t *v = &fc.packets_in;
        printf("link %u>%u faults %d:", i, o, has);
        for (unsigned k = 0; k < sizeof names / sizeof names[0]; k++)
            printf(" %s=%" PRIu64, names[k], v[k]);
        printf("\n");
        uint64_t cnt[2][QRDMA_CNT_COUNT];
        TRY(qrdma_counters_read(sd[i].nd, cnt[0]));
        TRY(qrdma_counters_read(sd[o].nd, cnt[1]));
        qrdma_sim_node_stats st_i, st_o;
        qrdma_sim_node_stats_get(sim, i, &st_i);
        qrdma_sim_node_stats_get(sim, o, &st_o);
        printf("link %u>%u nic: tx_beats=%" PRIu64 " rx_beats=%" PRIu64 " TX_DATA_PKTS=%" PRIu64
               " TX_CTRL_PKTS=%" PRIu64 " RX_DATA_PKTS=%" PRIu64 " RX_CTRL_PKTS=%" PRIu64
               " RX_CRC_DROP=%" PRIu64 " RX_DUP_DROP=%" PRIu64 " RX_STALE_DROP=%" PRIu64
               " CNT_STALE=%" PRIu64 " RX_REDO=%" PRIu64 " RX_MISS=%" PRIu64 "\n",
               i, o, st_i.tx_beats, st_o.rx_beats, cnt[0][QRDMA_CNT_TX_DATA_PKTS],
               cnt[0][QRDMA_CNT_TX_CTRL_PKTS], cnt[1][QRDMA_CNT_RX_DATA_PKTS],
               cnt[1][QRDMA_CNT_RX_CTRL_PKTS], cnt[1][QRDMA_CNT_RX_CRC_DROP],
               cnt[1][QRDMA_CNT_RX_DUP_DROP], cnt[1][QRDMA_CNT_RX_STALE_DROP],
               cnt[1][QRDMA_CNT_CNT_STALE], cnt[0][QRDMA_CNT_RX_REDO], cnt[0][QRDMA_CNT_RX_MISS]);
        printf("node %u: %u of %u writes finished, %u wrong, %u busy, %u error, TX_TIMEOUTS=%" PRIu64
               " TX_RETX=%" PRIu64 " TX_MISS_RETX=%" PRIu64 "\n", i, sd[i].done, n, sd[i].bad,
               n - sd[i].done, sd[i].errors, cnt[0][QRDMA_CNT_TX_TIMEOUTS], cnt[0][QRDMA_CNT_TX_RETX],
               cnt[0][QRDMA_CNT_TX_MISS_RETX]);
        char what[160];
        snprintf(what, sizeof what, "link %u>%u: RX_CRC_DROP of node %u = corrupted", i, o, o);
        check(cnt[1][QRDMA_CNT_RX_CRC_DROP] == fc.corrupted, what);
        if (has > 0) {
            snprintf(what, sizeof what, "link %u>%u: beats in = tx, out = rx = in - dropped + dups", i, o);
            check(st_i.tx_beats == fc.beats_in && st_o.rx_beats == fc.beats_out &&
                      fc.beats_out == fc.beats_in - fc.dropped_beats + fc.dup_beats,
                  what);
            snprintf(what, sizeof what, "link %u>%u: packets in = TX_DATA_PKTS + TX_CTRL_PKTS", i, o);
            check(fc.packets_in == cnt[0][QRDMA_CNT_TX_DATA_PKTS] + cnt[0][QRDMA_CNT_TX_CTRL_PKTS],
                  what);
        }
        snprintf(what, sizeof what, "node %u: no finished write wrong", i);
        check(sd[i].bad == 0, what);
        snprintf(what, sizeof what, "node %u: every ERROR of reason ERR_TIMEOUT, each from a timer", i);
        check(sd[i].bad_reason == 0 && sd[i].errors <= cnt[0][QRDMA_CNT_TX_TIMEOUTS], what);
    }
    uint64_t hits = 0;
    for (unsigned i = 0; i < 2; i++) {
        qrdma_sim_fault_counts fc;
        qrdma_sim_fault_counts_get(sim, i, 1 - i, &fc);
        hits += fc.silenced + fc.down_lost + fc.lost + fc.corrupted;
    }
    unsigned busy = 2 * n - sd[0].done - sd[1].done;
    unsigned errors = sd[0].errors + sd[1].errors;
    check(hits ? busy <= hits : busy == 0, "writes left busy <= packets dropped or corrupted");
    check(hits ? errors <= hits : errors == 0, "writes ended in ERROR <= packets dropped or corrupted");
    if (timeout)
        check(busy == 0, "with a timeout no write is left busy");
    printf("%s: %d failure(s)\n", failures ? "FAIL" : "OK", failures);
    qrdma_backend_close(be);
    return failures ? 1 : 0;
}
