/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * qrdma_tool_backend_open for tools linked with the mmap backend (build/sw/qrdma-perf-mmap).
 * Not part of libqrdma.a: each backend provides its own, chosen at link time.
 *
 * Spec (option -B, else the environment variable QRDMA_MMAP): one group of key=value
 * pairs per node, groups separated by ';', pairs by ',':
 *   reg=PATH      register window file (/dev/uio0, /sys/bus/pci/devices/<bdf>/resource0)
 *   reg_off=N     offset of device address 0 in it (default 0)
 *   reg_len=N     bytes to map (default 2^ADDR_W)
 *   mem=PATH      physically contiguous DMA buffer file (e.g. /dev/udmabuf0)
 *   mem_off=N     offset of the buffer in it (default 0)
 *   mem_len=N     buffer bytes
 *   phys=N        bus address of the buffer
 *   avx           (any group) descriptor lines as 256-bit stores
 * Numbers: C syntax (0x.. hex).
 * Example: -B "reg=/dev/uio0,mem=/dev/udmabuf0,mem_len=0x10000000,phys=0x80000000"
 */
#define _POSIX_C_SOURCE 200809L

#include "qrdma_backend_mmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int num(const char *v, uint64_t *out)
{
    char *end;
    *out = strtoull(v, &end, 0);
    return *v && !*end;
}

int qrdma_tool_backend_open(const char *spec, struct qrdma_backend **out)
{
    if (!spec || !*spec)
        spec = getenv("QRDMA_MMAP");
    if (!spec || !*spec) {
        fprintf(stderr, "mmap backend: give -B 'reg=PATH,mem=PATH,mem_len=N,phys=ADDR[;...]' or QRDMA_MMAP\n");
        return QRDMA_EINVAL;
    }
    char *buf = strdup(spec);
    if (!buf)
        return QRDMA_ENOMEM;
    struct qrdma_mmap_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    int err = 0;
    char *save_node = NULL;
    for (char *grp = strtok_r(buf, ";", &save_node); grp && !err; grp = strtok_r(NULL, ";", &save_node)) {
        if (cfg.num_nodes == QRDMA_MMAP_MAX_NODES) {
            err = 1;
            break;
        }
        struct qrdma_mmap_node *n = &cfg.node[cfg.num_nodes++];
        char *save_kv = NULL;
        for (char *kv = strtok_r(grp, ",", &save_kv); kv && !err; kv = strtok_r(NULL, ",", &save_kv)) {
            char *v = strchr(kv, '=');
            if (!v) {
                if (!strcmp(kv, "avx"))
                    cfg.flags |= QRDMA_MMAP_AVX;
                else
                    err = 1;
                continue;
            }
            *v++ = 0;
            if (!strcmp(kv, "reg"))
                n->reg_path = v;
            else if (!strcmp(kv, "mem"))
                n->mem_path = v;
            else if (!strcmp(kv, "reg_off"))
                err = !num(v, &n->reg_offset);
            else if (!strcmp(kv, "reg_len"))
                err = !num(v, &n->reg_len);
            else if (!strcmp(kv, "mem_off"))
                err = !num(v, &n->mem_offset);
            else if (!strcmp(kv, "mem_len"))
                err = !num(v, &n->mem_len);
            else if (!strcmp(kv, "phys"))
                err = !num(v, &n->mem_phys);
            else
                err = 1;
        }
    }
    int e = err ? QRDMA_EINVAL : qrdma_mmap_open(&cfg, out);
    if (e)
        fprintf(stderr, "mmap backend: cannot open '%s' (%s)\n", spec, err ? "bad spec" : "open/map failed or bad configuration");
    free(buf);
    return e;
}
