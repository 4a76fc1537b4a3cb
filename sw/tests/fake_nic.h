/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * fake_nic: a fake qrdma device for libqrdma's unit tests. Each node's register window
 * and host memory are plain temporary files (in /dev/shm when it exists) mapped by the
 * real mmap backend (sw/lib/backend_mmap.c); the fake wraps that backend with a small C
 * model of the host port (docs/qos.md "Descriptors and their acceptance", "Status and
 * polling") and of the NIC registers (docs/nic.md):
 *   - descriptor writes: per 32-byte line, refusals R5 (not a descriptor line), R6 (BUSY),
 *     R7 (page waiting for line 1 of a long descriptor), descriptor checks D1-D7; an
 *     accepted line is written through the mmap backend into the register file and the
 *     model decodes it from the file (so the bytes the tests inspect are the bytes the
 *     model acted on); refused lines are not written and give QRDMA_ESLVERR;
 *   - reads: the model puts the value into the file, the mmap backend loads it, then the
 *     model applies reset-on-read (single and collective status); unmapped addresses give
 *     QRDMA_ESLVERR and 0;
 *   - registers: ID, PARAMS, the engine counters, NODE_ID, NQ_* (writing NQ_SIZE restarts
 *     the ring), the NIC counters, BENCH (en written, stamps reads 1 unless fake_set_reg
 *     clears it); writes to anything but NQ_BASE/NQ_SIZE/NQ_TAIL, NODE_MASK, the
 *     protection registers and BENCH: SLVERR;
 *   - benchmark mode (docs/fabric.md "Benchmark mode"): while BENCH.en is set, an accepted
 *     descriptor gets stamped = 1 and t_post = the cycle (mod 2^16) in the model's copy of
 *     line 0; the notification of a stamped INLINE of at most STAMP_INLINE_MAX bytes or
 *     CONTROL (not registered) is written stamped when the receiver's BENCH.stamps is set:
 *     t_send when the transfer's last packet takes the link (an INLINE: its start), then
 *     per switch (cfg.hops) FAKE_LINK_CYCLES to its arrival and FAKE_SW_CYCLES to its
 *     departure, FAKE_LINK_CYCLES to t_recv (both shrunk to fit base_latency), t_done the
 *     cycle the notification is written;
 *   - transfers: completed by fake_finish() (manual mode) or on their own after a modelled
 *     latency (auto mode): data copied between the nodes' memories (found by NODE_ID and
 *     device address; a read channel's transfer copies from the remote node's memory
 *     into this node's), a notif_entry written into the destination's ring when asked
 *     (holding the transfer while the ring is full), counters updated, status DONE
 *     (ERROR for an address outside the memories or an unknown node).
 * Time: a cycle counter that MMIO reads, writes and idle calls advance (tick_hz 200 MHz).
 */
#ifndef FAKE_NIC_H
#define FAKE_NIC_H

#include <stdint.h>

#include "qrdma_backend.h"

#define FAKE_MAX_NODES 4

struct fake_cfg {
    unsigned nodes;          /* 1..FAKE_MAX_NODES */
    uint64_t mem_bytes;      /* host memory per node */
    int auto_complete;       /* 1: transfers complete after the modelled latency */
    uint64_t base_latency;   /* cycles from start to DONE for a 0-byte transfer */
    uint64_t bytes_per_cycle;/* link rate of a node (transfers of a node are serialized) */
    uint64_t read_cycles;    /* cycles one MMIO read takes (round trip) */
    uint64_t write_cycles;   /* cycles one MMIO or descriptor write takes */
    uint64_t idle_cycles;    /* cycles one idle() call advances */
    unsigned hops;           /* benchmark mode: switches that stamp a packet (0..2) */
};

/* Benchmark mode: cycles of a link (t_send or a switch's departure to the next arrival)
 * and of a switch (arrival to departure), unless base_latency is too short for them. */
#define FAKE_LINK_CYCLES 6
#define FAKE_SW_CYCLES 14

struct fake_stats {
    uint64_t reads, writes;       /* mmio_read64 / mmio_write64 calls */
    uint64_t desc32, desc64;      /* desc_write calls of 32 / 64 bytes */
    uint64_t slverr;              /* calls answered QRDMA_ESLVERR */
    uint64_t started, finished;   /* transfers */
};

struct fake;

/* Default configuration (2 nodes, 64 MiB each, auto completion, 64 B/cycle). */
struct fake_cfg fake_default_cfg(void);
int fake_create(const struct fake_cfg *cfg, struct fake **out);
void fake_destroy(struct fake *f);
struct qrdma_backend *fake_backend(struct fake *f);

/* The fake's own (second) mapping of a node's register file: the bytes the mmap backend
 * wrote, at device address a = byte a. */
const uint8_t *fake_regfile(const struct fake *f, unsigned node);
/* A node's host memory by device address (NULL if outside it). */
uint8_t *fake_mem(const struct fake *f, unsigned node, uint64_t dev, uint64_t len);
uint64_t fake_mem_phys(const struct fake *f, unsigned node);
uint16_t fake_node_id(const struct fake *f, unsigned node);

void fake_get_stats(const struct fake *f, unsigned node, struct fake_stats *s);
/* Model state of a channel (QRDMA_ST_*), without reading (no reset). */
unsigned fake_chan_status(const struct fake *f, unsigned node, unsigned page, unsigned ch);
/* Force the model status of a channel (e.g. IDLE: a read that overtook a posted write). */
void fake_set_status(struct fake *f, unsigned node, unsigned page, unsigned ch, unsigned st);
/* Complete the transfer on (page, ch) now with QRDMA_ST_DONE (performing it: data,
 * notification, counters) or QRDMA_ST_ERROR (nothing transferred). Returns 0, -1 if no
 * transfer is active there, -2 if it cannot finish (ring full). */
int fake_finish(struct fake *f, unsigned node, unsigned page, unsigned ch, unsigned st);
/* Register values of the model (device address REG_BASE + off). */
uint64_t fake_reg(const struct fake *f, unsigned node, uint64_t addr);
void fake_set_reg(struct fake *f, unsigned node, uint64_t addr, uint64_t val);
/* Fault injection for the tools' tests: flip one byte in the destination of each of the
 * next `count` transfers; flip the byte just past it; finish them with ERROR; write their
 * notifications with a destination address 64 bytes off. */
void fake_corrupt_next(struct fake *f, unsigned count);
void fake_bad_notif_next(struct fake *f, unsigned count);
void fake_overrun_next(struct fake *f, unsigned count);
void fake_fail_next(struct fake *f, unsigned count);
/* Benchmark mode: write the next `count` notifications that would be stamped without
 * stamps (stamped = 0), as a receiver that lost them. */
void fake_unstamped_next(struct fake *f, unsigned count);
uint64_t fake_cycles(const struct fake *f);

#endif /* FAKE_NIC_H */
