/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * qrdma_tool_backend_open for build/sw/tests/qrdma-perf-fake: the unit tests' fake
 * device (fake_nic.h) in auto-completion mode, so qrdma-perf's measurement and
 * verification paths run without the simulation. Its figures mean nothing about qrdma.
 *
 * Spec (-B, else QRDMA_FAKE): comma-separated key=value: nodes=N (2), mem=BYTES per node
 * (64 MiB), latency=CYCLES (72), bpc=BYTES_PER_CYCLE (64), corrupt=K (flip a byte in the
 * destination of the first K transfers), overrun=K (flip the byte after the destination),
 * error=K (finish the first K transfers with status ERROR), bad_notif=K (the first K
 * notifications name a wrong destination): the tool must fail loudly. Benchmark mode:
 * hops=H (switches that stamp, 0..2; 0), stamps=0 (the nodes' BENCH.stamps reads 0: no
 * stamps kept), unstamped=K (the first K notifications that would be stamped are not).
 */
#define _POSIX_C_SOURCE 200809L

#include "fake_nic.h"
#include "qrdma_fmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int qrdma_tool_backend_open(const char *spec, struct qrdma_backend **out)
{
    struct fake_cfg cfg = fake_default_cfg();
    unsigned long long corrupt = 0, overrun = 0, error = 0, bad_notif = 0, unstamped = 0, stamps = 1;
    if (!spec || !*spec)
        spec = getenv("QRDMA_FAKE");
    char *buf = strdup(spec ? spec : "");
    if (!buf)
        return QRDMA_ENOMEM;
    char *save = NULL;
    for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *v = strchr(kv, '=');
        if (!v) {
            fprintf(stderr, "fake backend: bad option '%s'\n", kv);
            free(buf);
            return QRDMA_EINVAL;
        }
        *v++ = 0;
        unsigned long long x = strtoull(v, NULL, 0);
        if (!strcmp(kv, "nodes"))
            cfg.nodes = (unsigned)x;
        else if (!strcmp(kv, "mem"))
            cfg.mem_bytes = x;
        else if (!strcmp(kv, "latency"))
            cfg.base_latency = x;
        else if (!strcmp(kv, "bpc"))
            cfg.bytes_per_cycle = x;
        else if (!strcmp(kv, "corrupt"))
            corrupt = x;
        else if (!strcmp(kv, "bad_notif"))
            bad_notif = x;
        else if (!strcmp(kv, "overrun"))
            overrun = x;
        else if (!strcmp(kv, "error"))
            error = x;
        else if (!strcmp(kv, "hops"))
            cfg.hops = (unsigned)x;
        else if (!strcmp(kv, "stamps"))
            stamps = x;
        else if (!strcmp(kv, "unstamped"))
            unstamped = x;
        else {
            fprintf(stderr, "fake backend: unknown option '%s'\n", kv);
            free(buf);
            return QRDMA_EINVAL;
        }
    }
    free(buf);
    struct fake *f;
    int e = fake_create(&cfg, &f);
    if (e)
        return e;
    fake_corrupt_next(f, (unsigned)corrupt);
    fake_overrun_next(f, (unsigned)overrun);
    fake_fail_next(f, (unsigned)error);
    fake_bad_notif_next(f, (unsigned)bad_notif);
    fake_unstamped_next(f, (unsigned)unstamped);
    for (unsigned i = 0; !stamps && i < cfg.nodes; i++)
        fake_set_reg(f, i, QRDMA_REG(nic.BENCH), 0);
    *out = fake_backend(f);
    return 0;
}
