/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * perf_flows.h: qrdma-perf's traffic patterns across nodes (perf_flows.c: incast,
 * permutation, alltoall, hotspot) and the helpers they share with the single-flow tests
 * of qrdma_perf.c, which defines them: exit with a message, number and window parsing,
 * the data pattern, poisoning and byte-exact verification, guard bytes, the JSON path.
 */
#ifndef PERF_FLOWS_H
#define PERF_FLOWS_H

#include <stdint.h>

#define PERF_SLOT_ALIGN 4096ULL /* default alignment of every source and destination slot */
#define PERF_GUARD 64ULL        /* guard bytes before the first slot and after every slot */
#define PERF_GUARD_BYTE 0xA5    /* what a guard byte holds; the NIC never writes it */

/* ---- qrdma_perf.c */
/* "qrdma-perf: <message>" on stderr, exit with status code (1 usage, 2 data, 3 run). */
void perf_die(int code, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
/* A number in C syntax with an optional K/M/G suffix (powers of 1024); exits 1 if bad. */
uint64_t perf_parse_u64(const char *s, const char *what);
/* -w W0,W: warm-up and window in ticks (the window at least 1); exits 1 if bad. */
void perf_parse_window(const char *arg, uint64_t *warmup, uint64_t *window);
/* Byte i of the source pattern of slot `slot` for transfers of `size` bytes. */
uint8_t perf_pattern(uint64_t slot, uint64_t i, uint64_t size);
/* p[0 .. size-1] = the pattern of slot `slot`. */
void perf_fill(uint8_t *p, uint64_t slot, uint64_t size);
/* dst[i] = ~src[i]: a destination that no byte of its source matches. */
void perf_poison(uint8_t *dst, const uint8_t *src, uint64_t size);
/* dst must equal src; else exit 2: "DATA VERIFICATION FAILED: <what>: byte i is 0x.., expected 0x..". */
void perf_verify(const uint8_t *src, const uint8_t *dst, uint64_t size, const char *what_fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The index of the first of p[0 .. n-1] that is not PERF_GUARD_BYTE, UINT64_MAX if none. */
uint64_t perf_guard_bad(const uint8_t *p, uint64_t n);
/* Creates the directories of a file's path; 0 or -1. */
int perf_mkdirs(const char *path);

/* ---- perf_flows.c */
/* 1 if `test` names a traffic pattern (incast, permutation, alltoall, hotspot). */
int perf_flows_is_pattern(const char *test);
/* qrdma-perf <pattern> [options]: parses argv (argv[1] the pattern), runs, returns the
 * exit status (or exits with perf_die's). */
int perf_flows_main(int argc, char **argv);

#endif /* PERF_FLOWS_H */
