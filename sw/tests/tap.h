/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * tap.h: the C unit tests' checks. Every check prints one TAP line ("ok N - name" or
 * "not ok N - name" with the file, line and both values); tap_done() prints the plan and
 * a summary ("# passed P failed F") and gives the exit code (0 only if nothing failed).
 * sw/tests/test_libqrdma.py runs the binaries and parses these lines.
 */
#ifndef TAP_H
#define TAP_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static unsigned tap_n, tap_failed;

static inline int tap_check(int ok, const char *name, const char *file, int line, const char *detail)
{
    tap_n++;
    if (ok) {
        printf("ok %u - %s\n", tap_n, name);
    } else {
        tap_failed++;
        printf("not ok %u - %s\n#   %s:%d: %s\n", tap_n, name, file, line, detail);
    }
    fflush(stdout); /* a test that hangs later still shows what it checked */
    return ok;
}

static inline int tap_eq(long long got, long long want, const char *name, const char *expr, const char *file,
                         int line)
{
    char d[256];
    snprintf(d, sizeof d, "%s = %lld (0x%llx), want %lld (0x%llx)", expr, got, (unsigned long long)got, want,
             (unsigned long long)want);
    return tap_check(got == want, name, file, line, d);
}

static inline int tap_mem(const void *got, const void *want, size_t n, const char *name, const char *file, int line)
{
    char d[256];
    const uint8_t *g = got, *w = want;
    size_t i = 0;
    while (i < n && g[i] == w[i])
        i++;
    snprintf(d, sizeof d, "first difference at byte %zu of %zu: 0x%02x, want 0x%02x", i, n, i < n ? g[i] : 0,
             i < n ? w[i] : 0);
    return tap_check(i == n, name, file, line, d);
}

/* EQ(got, want, name): integers (error codes, fields, counts) */
#define EQ(got, want, name) tap_eq((long long)(got), (long long)(want), name, #got, __FILE__, __LINE__)
#define OK(cond, name) tap_check(!!(cond), name, __FILE__, __LINE__, #cond)
#define MEMEQ(got, want, n, name) tap_mem(got, want, n, name, __FILE__, __LINE__)

static inline int tap_done(void)
{
    printf("1..%u\n# passed %u failed %u\n", tap_n, tap_n - tap_failed, tap_failed);
    return tap_failed ? 1 : 0;
}

#endif /* TAP_H */
