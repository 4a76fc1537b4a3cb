/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright (c) 2026 The qrdma authors */
/*
 * The PASS/FAIL reporting shared by the C check programs of the harness (check_*.c,
 * libqrdma_smoke.c): check() prints one line per assertion and counts the failures, the
 * program's summary reads `failures`; TRY() stops the program with status 1 when a
 * libqrdma call fails. One program per translation unit: the state is static.
 */
#pragma once

#include <stdio.h>
#include <stdlib.h>

#include "qrdma.h"

static int failures;

static inline void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "PASS" : "FAIL", what);
    if (!ok)
        failures++;
    fflush(stdout);
}

#define TRY(call)                                                                  \
    do {                                                                           \
        int e_ = (call);                                                           \
        if (e_ < 0) {                                                              \
            printf("FAIL %s: %s\n", #call, qrdma_strerror(e_));                    \
            exit(1);                                                               \
        }                                                                          \
    } while (0)
