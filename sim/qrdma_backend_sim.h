/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * qrdma_backend_sim.h: libqrdma's simulation backend (sim/backend_sim.cc), the interface
 * of sw/include/qrdma_backend.h on top of the system simulation (qrdma_sim.h).
 *
 * Differences from the mmap backend that a user may notice, all in qrdma_backend.h's
 * terms: now() counts cycles (tick_hz = 200 MHz); idle() steps the simulation by one
 * cycle; mmio_read64 returns QRDMA_ESLVERR on an SLVERR answer. Writes are posted by
 * default (mmio_write64 and desc_write return 0 after the CPU's issue time, like the mmap
 * backend; a refused write shows as channel ERROR, CNT_DESC_ERR and
 * qrdma_sim_mmio_errors()); with options.mmio_sync_writes = 1 every write waits for its
 * B response and returns QRDMA_ESLVERR when refused. One thread calls the backend (inside a
 * call the simulation may run its nodes on several threads, options.threads).
 */
#ifndef QRDMA_BACKEND_SIM_H
#define QRDMA_BACKEND_SIM_H

#include "qrdma_backend.h"
#include "qrdma_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Create a simulation of `nodes` NICs (opt NULL: defaults) and a backend owning it
 * (qrdma_backend_close destroys both). */
int qrdma_backend_sim_open(unsigned nodes, const qrdma_sim_options *opt,
                           struct qrdma_backend **out);
/* A backend on an existing simulation, which the caller keeps and destroys after it. */
int qrdma_backend_sim_wrap(qrdma_sim *sim, struct qrdma_backend **out);
/* The simulation behind a backend made by the two functions above (NULL otherwise). */
qrdma_sim *qrdma_backend_sim_get(struct qrdma_backend *be);

/* qrdma_tool_backend_open (qrdma_backend.h) of the simulation: spec is NULL or a comma-
 * separated list of key=value: nodes (2), mem (bytes, suffix K/M/G; 64M), mem_rd (200),
 * mem_wr (100), mmio_rt (30), mmio_wr (1), max_posted (64), sync_writes (0), link (100),
 * link_depth (0 = auto), watchdog (cycles, 200000; 0 = off), watchdog_exit (1), threads
 * (options.threads: 0 one thread, 1 threaded; default: QRDMA_SIM_THREADS, else threaded),
 * trace (VCD prefix, TRACE=1 builds); faults (docs/sim.md "Faults"; every direction):
 * loss, corrupt, dup (probabilities), reorder (cycles), down (START:LEN[:PERIOD]), seed
 * (options.fault_seed), silent (a node; repeated for several); S-D.<key> (e.g. 0-1.loss=0.1)
 * sets a fault key of the direction S -> D only, which takes the others from the keys
 * without prefix. Latencies in cycles of the 200 MHz clock. A watchdog trip
 * (qrdma_sim.h options.watchdog_cycles) exits the process with QRDMA_SIM_EXIT_STALL unless
 * watchdog_exit=0. */

#ifdef __cplusplus
}
#endif

#endif /* QRDMA_BACKEND_SIM_H */
