/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * qrdma_sim.h: C API of the multi-node system simulation (sim/, docs/sim.md).
 *
 * N qrdma_nic instances (Verilator model of rtl/top/qrdma_nic.sv, node_id = index) run in
 * lockstep on one clock (nominal 200 MHz, QRDMA_SIM_CLOCK_HZ). Each node has a host
 * memory served to the NIC's AXI4 memory master with a read and a write latency, and a
 * CPU port (MMIO) driving the NIC's host port with a round trip; nodes are joined by
 * links (N = 2: back to back; N > 2: the fabric RTL's switch; N = 1: loopback).
 *
 * Time only advances inside qrdma_sim_* calls: qrdma_sim_step() and the calls that stand
 * for CPU work (an MMIO read blocks for its round trip, a posted write for its issue
 * time, the wait helpers step until their condition holds). The API is single-threaded:
 * one thread drives all nodes of a qrdma_sim. Inside a call the nodes may run on several
 * threads (options.threads), with the same results cycle for cycle; whenever a call
 * returns, every node has reached qrdma_sim_now().
 *
 * Host memory addresses are device (bus) addresses of that node's memory, 0 .. mem_bytes-1;
 * qrdma_sim_mem() turns them into CPU pointers (valid until qrdma_sim_destroy).
 */
#ifndef QRDMA_SIM_H
#define QRDMA_SIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QRDMA_SIM_CLOCK_HZ 200000000ULL /* nominal clock: 1 cycle = 5 ns */
#define QRDMA_SIM_NOMEM UINT64_MAX       /* qrdma_sim_mem_alloc: does not fit */
/* exit status of a process whose watchdog trips with options.watchdog_exit (docs/sim.md
 * "Watchdog") */
#define QRDMA_SIM_EXIT_STALL 4
/* options.threads: threaded when it can help (see there) */
#define QRDMA_SIM_THREADS_AUTO (-1)

typedef struct qrdma_sim qrdma_sim;

/* Faults of a link direction (docs/sim.md "Faults"); all zero: a perfect link. Packet-level
 * faults act on whole packets. With any fault on, the direction forwards whole packets (a
 * packet goes on the wire once its last beat is in), one beat per cycle. */
typedef struct qrdma_sim_faults {
    double loss;          /* probability that a packet is lost (all its beats) */
    double corrupt;       /* probability that a packet is delivered with one bit flipped in a
                             byte its CRC covers (the receiver drops it: RX_CRC_DROP) */
    double dup;           /* probability that a packet is delivered twice (the copy as sent,
                             without a corruption of the original) */
    uint32_t reorder;     /* D: each packet (and copy) waits a random 0..D extra cycles; packets
                             overtake each other, never interleave */
    uint64_t down_start;  /* link-down windows: packets whose header beat the link takes in */
    uint64_t down_len;    /* cycles [down_start + k * down_period, + down_len) are lost */
    uint64_t down_period; /* (0: one window; down_len 0: none) */
} qrdma_sim_faults;

/* The faults of one direction, src -> dst, in place of options.faults. */
typedef struct qrdma_sim_link_faults {
    uint32_t src, dst;
    qrdma_sim_faults f;
} qrdma_sim_link_faults;

/* Options of qrdma_sim_create (fill with qrdma_sim_default_options first). Latencies in
 * cycles of the 200 MHz clock. */
typedef struct qrdma_sim_options {
    uint64_t mem_bytes;        /* host memory per node (64 MiB) */
    uint32_t mem_rd_latency;   /* AR handshake -> first R beat offered (200 = 1 us) */
    uint32_t mem_wr_latency;   /* burst complete (AW and WLAST taken) -> data in memory and
                                  B offered (100 = 500 ns) */
    uint32_t mem_max_bursts;   /* read (and write) bursts outstanding (64) */
    uint32_t mmio_rt_cycles;   /* CPU <-> host port round trip (30 = 150 ns): half on the way
                                  in, half on the way back */
    uint32_t mmio_wr_cycles;   /* CPU cycles a posted write (or descriptor) costs (1) */
    uint32_t mmio_max_posted;  /* writes without B before the CPU stalls (64) */
    uint32_t mmio_sync_writes; /* 1: a write call waits for its B response and returns it */
    uint32_t link_latency;     /* link: beat taken -> offered at the far end (100 = 500 ns) */
    uint32_t link_depth;       /* beats a link holds (0: auto, at least latency + 2 and 256) */
    uint32_t reset_cycles;     /* rst high at creation (16); then create waits for `ready` */
    const char *trace;         /* VCD file prefix: node i dumps to <trace>.node<i>.vcd from
                                  creation on (builds with TRACE=1 only; NULL: none) */
    uint32_t signature;        /* 1: fold every NIC's outputs of every cycle into a hash,
                                  qrdma_sim_signature (0: off; costs simulation speed) */
    uint32_t eval_both_edges;  /* 1: evaluate each model at the falling edge as well (the
                                  reference flow; 0: one evaluation per cycle, docs/sim.md) */
    uint64_t watchdog_cycles;  /* liveness watchdog (200000 = 1 ms; 0: off): the run fails
                                  when some NIC is busy, no NIC waits for a notification
                                  ring slot and no beat moves on any link or memory port for
                                  this many consecutive cycles (docs/sim.md "Watchdog") */
    uint32_t watchdog_exit;    /* 1: a trip dumps the state to stderr, records a
                                  QRDMA_SIM_ERR_STALL error and exits the process with
                                  QRDMA_SIM_EXIT_STALL; 0: dumps and records only (1) */
    int32_t threads;           /* 0: all nodes on the calling thread; 1: the nodes spread
                                  over one thread per CPU the process may use (at most one
                                  per node), run in quanta of up to link_latency cycles;
                                  k > 1: k threads; QRDMA_SIM_THREADS_AUTO (default): the
                                  environment's QRDMA_SIM_THREADS if set, else 1. One thread
                                  whatever the setting for N = 1, a link_latency below 8 and
                                  TRACE=1 builds (docs/sim.md "Threads") */
    qrdma_sim_faults faults;   /* faults of every link direction (all zero: none) */
    const qrdma_sim_link_faults *link_faults; /* per-direction faults in place of `faults`
                                  (read by qrdma_sim_create only; NULL: none) */
    uint32_t num_link_faults;
    uint32_t silent_nodes;     /* bit i: node i is silent: it receives, and every packet it
                                  sends is dropped */
    uint64_t fault_seed;       /* seed of every fault decision (0) */
    uint32_t topology;         /* QRDMA_SIM_TOPO_AUTO (0): point-to-point for N <= 2, the
                                  star for N > 2; QRDMA_SIM_TOPO_STAR: every node through
                                  one switch (the fabric RTL, docs/sim.md "Links"; 2 ..
                                  NIC_NODES nodes, lockstep; loss, corruption and link-down
                                  faults only);
                                  QRDMA_SIM_TOPO_PLANES: every node through `planes`
                                  parallel switches, a fabric port per plane (docs/sim.md
                                  "Links"); QRDMA_SIM_TOPO_DUMBBELL: two switches joined
                                  by a trunk, node i on switch i mod 2 (nodes of different
                                  parity two hops apart) */
    uint32_t planes;           /* QRDMA_SIM_TOPO_PLANES: planes (0: the build's FAB_PLANES,
                                  the only other count it has) */
    uint32_t link_div;         /* the fabric: every link carries a beat in one cycle
                                  of every link_div (0, 1: every cycle; up to 255) */
} qrdma_sim_options;

#define QRDMA_SIM_TOPO_AUTO   0u
#define QRDMA_SIM_TOPO_STAR   1u
#define QRDMA_SIM_TOPO_PLANES 2u
#define QRDMA_SIM_TOPO_DUMBBELL 3u

void qrdma_sim_default_options(qrdma_sim_options *opt);

/* Build a system of `nodes` NICs (1 .. qrdma_sim_max_nodes()), reset them and run until
 * every NIC is ready. opt NULL: defaults. NULL on error (message on stderr). */
qrdma_sim *qrdma_sim_create(unsigned nodes, const qrdma_sim_options *opt);
void qrdma_sim_destroy(qrdma_sim *s);

unsigned qrdma_sim_num_nodes(const qrdma_sim *s);
unsigned qrdma_sim_max_nodes(void);       /* NUM_NODES the NIC model was built with */
unsigned qrdma_sim_host_data_w(void);     /* host port width the model was built with */
int qrdma_sim_has_trace(void);            /* 1: built with TRACE=1 (options.trace works) */
unsigned qrdma_sim_threads(const qrdma_sim *s); /* threads running the nodes (1: lockstep) */
const char *qrdma_sim_network_name(const qrdma_sim *s);

/* ------------------------------------------------------------------ time */
uint64_t qrdma_sim_now(const qrdma_sim *s);            /* cycles since creation */
void qrdma_sim_step(qrdma_sim *s, uint64_t cycles);    /* advance every node */
/* With options.signature: a 64-bit hash of everything every NIC showed at its ports, cycle
 * by cycle since creation: each valid (and its payload while valid) and each handshake on
 * a ready the NIC drives. Two runs of the same program give the same signature exactly
 * when the NICs behaved identically at their ports, cycle for cycle: the check that a
 * change of the RTL written for simulation speed changed no behaviour. 0 without it. */
uint64_t qrdma_sim_signature(const qrdma_sim *s);

/* ------------------------------------------------------------------ MMIO (CPU of node -> its NIC)
 * Offsets are host-port addresses (docs/formats.md address map). */

/* 64-bit read (8-aligned). Blocks until the data is back (>= mmio_rt_cycles). *resp (may
 * be NULL) gets the AXI RRESP (0 OKAY, 2 SLVERR), or -1 for a refused call; the value is 0
 * then. */
uint64_t qrdma_sim_mmio_read64(qrdma_sim *s, unsigned node, uint64_t off, int *resp);
/* 64-bit write (8-aligned). Posted: returns 0 after mmio_wr_cycles; with mmio_sync_writes
 * returns the BRESP. -1: bad argument. */
int qrdma_sim_mmio_write64(qrdma_sim *s, unsigned node, uint64_t off, uint64_t val);
/* len bytes (multiple of 8, 8-aligned, within 4 KiB; a descriptor is 32 bytes at a
 * 32-aligned line or 64 at a 64-aligned pair) as one INCR burst, beats of the widest size
 * that divides offset and length (one 32-byte beat per line on a 256-bit port). Posted
 * like qrdma_sim_mmio_write64. */
int qrdma_sim_mmio_write_desc(qrdma_sim *s, unsigned node, uint64_t off, const void *bytes,
                              size_t len);
/* Step until every write posted to the node has its B response; returns the number of
 * SLVERR/DECERR answers (B and R) the node's MMIO has seen since creation. */
uint64_t qrdma_sim_mmio_drain(qrdma_sim *s, unsigned node);
uint64_t qrdma_sim_mmio_errors(const qrdma_sim *s, unsigned node);

/* Poll: read off until (value & mask) == want, at most max_reads reads (0: no limit).
 * Returns the number of reads (>= 1) and the last value in *last (may be NULL), or -1 if
 * it ran out of reads or the read was refused. Each read is a full MMIO round trip. */
int64_t qrdma_sim_poll64(qrdma_sim *s, unsigned node, uint64_t off, uint64_t mask,
                         uint64_t want, uint64_t max_reads, uint64_t *last);

/* ------------------------------------------------------------------ CPU cores (docs/sim.md "MMIO")
 * A node's CPU has QRDMA_SIM_MAX_CORES cores, each with its own stream of MMIO requests
 * and its own clock: the cycle from which its next request issues (never before now). The
 * calls above issue from core 0 and step the simulation (a blocking read until its data is
 * back, a write over its issue time). The calls below step nothing, so that one thread can
 * drive several cores, as several threads would on a host: a write moves the core's clock
 * by mmio_wr_cycles; a read is started, and its result taken later, once it is back. A
 * core's requests take effect in its program order (its read waits for the B of its earlier
 * writes); no core's requests wait for another core's. While a read is pending on a core,
 * the core waits: a write or another read on it is refused (an API error). */
#define QRDMA_SIM_MAX_CORES 16

/* Posted write of len bytes (as qrdma_sim_mmio_write_desc) from the core, issued at its
 * clock; 0, or -1 (bad argument, a read pending on the core). With max_posted writes of the
 * core unanswered the core stalls: the call steps until one is answered. */
int qrdma_sim_core_write(qrdma_sim *s, unsigned node, unsigned core, uint64_t off,
                         const void *bytes, size_t len);
/* Start a 64-bit read (8-aligned) from the core, issued at its clock: 0, or -1. */
int qrdma_sim_core_read_start(qrdma_sim *s, unsigned node, unsigned core, uint64_t off);
/* The core's pending read: 1 and *val (*resp as qrdma_sim_mmio_read64) once its data has
 * reached the core (its clock moves to that cycle), 0 while not, -1 if none is pending. */
int qrdma_sim_core_read_end(qrdma_sim *s, unsigned node, unsigned core, uint64_t *val,
                            int *resp);
/* The core's clock (at least qrdma_sim_now). */
uint64_t qrdma_sim_core_now(const qrdma_sim *s, unsigned node, unsigned core);
/* Writes the core posted so far, and of them those answered (B taken). */
uint64_t qrdma_sim_core_writes(const qrdma_sim *s, unsigned node, unsigned core,
                               uint64_t *answered);
/* Step to the first cycle by which a read pending on one of the node's cores may be back,
 * at least one cycle (one cycle when none is pending): the wait of a program that has
 * nothing to do until a read returns. */
void qrdma_sim_core_idle(qrdma_sim *s, unsigned node);
/* The core's program pauses between two unsuccessful polls, as a program without cores does
 * in qrdma_sim_core_idle with no read pending: the core's clock moves one cycle past
 * qrdma_sim_core_now. Steps nothing; -1 (bad argument, a read pending on the core) or 0. */
int qrdma_sim_core_pause(qrdma_sim *s, unsigned node, unsigned core);

/* ------------------------------------------------------------------ host memory */
uint64_t qrdma_sim_mem_size(const qrdma_sim *s, unsigned node);
/* CPU pointer to [addr, addr + len) of the node's memory, NULL if outside. Stores through
 * it are seen by the NIC's next reads; the NIC's writes appear when they land. */
void *qrdma_sim_mem(qrdma_sim *s, unsigned node, uint64_t addr, size_t len);
/* Copy len bytes in or out of the node's memory: 0, or -1 if [addr, addr + len) is not
 * inside it (an API error). */
int qrdma_sim_mem_write(qrdma_sim *s, unsigned node, uint64_t addr, const void *src, size_t len);
int qrdma_sim_mem_read(qrdma_sim *s, unsigned node, uint64_t addr, void *dst, size_t len);
/* First-fit allocator over the node's memory (addresses from 4096 on, so 0 is never
 * returned): size bytes aligned to align (power of 2; 0 = 64). QRDMA_SIM_NOMEM if full. */
uint64_t qrdma_sim_mem_alloc(qrdma_sim *s, unsigned node, uint64_t size, uint64_t align);
void qrdma_sim_mem_free(qrdma_sim *s, unsigned node, uint64_t addr);

/* ------------------------------------------------------------------ waiting */
/* Step one cycle at a time until the little-endian 64-bit word at addr of the node's
 * memory satisfies (word & mask) == want, at most max_cycles (0: no limit). Returns the
 * cycles stepped (0 if it already held), -1 on timeout or bad address. */
int64_t qrdma_sim_wait_mem64(qrdma_sim *s, unsigned node, uint64_t addr, uint64_t mask,
                             uint64_t want, uint64_t max_cycles);
/* Step until pred(s, arg) returns nonzero (checked before each cycle), at most max_cycles
 * (0: no limit). Returns the cycles stepped, -1 on timeout. */
int64_t qrdma_sim_wait_until(qrdma_sim *s, int (*pred)(qrdma_sim *s, void *arg), void *arg,
                             uint64_t max_cycles);
/* Step until the harness models are idle (no MMIO request, memory burst or network beat
 * in flight), at most max_cycles; -1 on timeout. The NIC itself may still be busy. */
int64_t qrdma_sim_wait_quiet(qrdma_sim *s, uint64_t max_cycles);

/* ------------------------------------------------------------------ diagnostics */
/* What the harness checks, by category (docs/sim.md "Errors"). Each error is counted in
 * one category and the first of each category is kept with its cycle; the first 20 of all,
 * and the first of each category, are printed to stderr. A memory burst that breaks
 * several rules counts once in each category it breaks; its response is DECERR if it
 * touches memory outside the node's, else SLVERR if it breaks another rule, else OKAY. */
typedef enum qrdma_sim_error_cat {
    QRDMA_SIM_ERR_AXI = 0,    /* an AXI rule broken by a NIC. Memory port: a burst type
                                 other than INCR, a size above the bus width, WLAST not on
                                 beat AWLEN (SLVERR). Host port: a B or R without a request,
                                 a single-beat read without RLAST */
    QRDMA_SIM_ERR_DECERR = 1, /* a memory burst that touches bytes outside the node's memory
                                 (0 .. mem_bytes-1): answered DECERR, nothing written, every
                                 R beat zeros */
    QRDMA_SIM_ERR_4K = 2,     /* a memory burst that crosses a 4 KiB boundary (SLVERR; a
                                 write inside memory is still written) */
    QRDMA_SIM_ERR_API = 3,    /* a call the harness refused: a node that does not exist, an
                                 MMIO access not 8-aligned or of a bad length, more posted
                                 MMIO writes than its queues hold, qrdma_sim_mem_read/write
                                 or wait_mem64 outside memory, freeing an address the
                                 allocator did not give, a NULL buffer (qrdma_sim_mem
                                 returning NULL and an allocation that does not fit are
                                 answers, not errors) */
    QRDMA_SIM_ERR_RTL = 4,    /* an assertion or $fatal inside a NIC model */
    QRDMA_SIM_ERR_STALL = 5,  /* the liveness watchdog tripped (options.watchdog_cycles):
                                 work outstanding, nothing moving, no notification waiting
                                 for software; one error per trip */
    QRDMA_SIM_ERR_NUM_CATS    /* number of categories */
} qrdma_sim_error_cat;

/* Errors of all categories (the sum of qrdma_sim_error_count over them), and the text of
 * the first (empty if none). */
uint64_t qrdma_sim_errors(const qrdma_sim *s);
const char *qrdma_sim_error_text(const qrdma_sim *s);
/* Errors of one category, and the text of its first ("cycle N: node i ...", empty if none).
 * An unknown category: 0 and "". */
uint64_t qrdma_sim_error_count(const qrdma_sim *s, qrdma_sim_error_cat cat);
const char *qrdma_sim_error_first(const qrdma_sim *s, qrdma_sim_error_cat cat);
/* Short name of a category ("axi", "decerr", "4k", "api", "rtl", "stall"; "?" if unknown). */
const char *qrdma_sim_error_cat_name(qrdma_sim_error_cat cat);

/* Traffic seen by the models since creation. Responses are counted on their handshake,
 * as the NIC took them. */
typedef struct qrdma_sim_node_stats {
    uint64_t mem_read_beats;   /* R beats served */
    uint64_t mem_write_beats;  /* W beats taken */
    uint64_t tx_beats;         /* beats the NIC sent (m_axis_tx) */
    uint64_t rx_beats;         /* beats the NIC took (s_axis_rx) */
    uint64_t mmio_writes;      /* write bursts posted */
    uint64_t mmio_reads;       /* reads completed */
    uint64_t mem_read_bursts;  /* AR taken */
    uint64_t mem_write_bursts; /* AW taken */
    uint64_t mem_write_resps;  /* B taken */
    uint64_t mem_read_decerr_beats;  /* R beats taken with RRESP = DECERR (3) */
    uint64_t mem_write_decerr_resps; /* B taken with BRESP = DECERR (3) */
    uint64_t mem_read_slverr_beats;  /* R beats taken with RRESP = SLVERR (2) */
    uint64_t mem_write_slverr_resps; /* B taken with BRESP = SLVERR (2) */
} qrdma_sim_node_stats;
void qrdma_sim_node_stats_get(const qrdma_sim *s, unsigned node, qrdma_sim_node_stats *st);
uint64_t qrdma_sim_dropped_packets(const qrdma_sim *s); /* the fabric: packets the
                                                          switch or a node port dropped or
                                                          refused (without faults never,
                                                          unless a bug); on stderr at
                                                          destroy if any */

/* What the fault model of a link direction did since creation (docs/sim.md "Faults").
 * Packets and beats taken from the sending NIC; each taken packet is delivered, or dropped
 * as silenced, down_lost or lost (in this order of precedence, all its beats in
 * dropped_beats); a delivered one may be corrupted, duplicated, delayed. Once the direction
 * is drained: beats_out = beats_in - dropped_beats + dup_beats, packets_out = packets_in -
 * silenced - down_lost - lost + duplicated. */
typedef struct qrdma_sim_fault_counts {
    uint64_t packets_in, beats_in;   /* taken from the sending NIC */
    uint64_t packets_out, beats_out; /* put on the wire towards the receiver, copies included */
    uint64_t silenced;               /* packets dropped: the sender is a silent node */
    uint64_t down_lost;              /* packets dropped: header beat taken while the link is down */
    uint64_t lost;                   /* packets dropped at random (loss) */
    uint64_t dropped_beats;          /* beats of the packets dropped */
    uint64_t corrupted;              /* packets put on the wire with one bit flipped */
    uint64_t duplicated, dup_beats;  /* packets put on the wire twice; the copies' beats */
    uint64_t delayed;                /* packets given an extra delay > 0 (reorder) */
    uint64_t reordered;              /* packets whose first copy went on the wire before any
                                        copy of a packet taken earlier */
} qrdma_sim_fault_counts;
/* The counts of direction src -> dst: 1 if the direction has faults, 0 if it has none
 * (counts all zero), -1 if there is no such direction (N = 2: 0 -> 1 and 1 -> 0; N = 1:
 * 0 -> 0; the star and planes: node i -> QRDMA_SIM_SWITCH
 * + plane and back, the links between a node's port and its switch port; the dumbbell:
 * node i -> QRDMA_SIM_SWITCH + i mod 2 and back, and the trunk QRDMA_SIM_SWITCH <->
 * QRDMA_SIM_SWITCH + 1). */
#define QRDMA_SIM_SWITCH 64u
int qrdma_sim_fault_counts_get(const qrdma_sim *s, unsigned src, unsigned dst,
                               qrdma_sim_fault_counts *c);

/* Print the state dump of a watchdog trip to stderr now (docs/sim.md "Watchdog"): per
 * node its `state` fields, busy and nq_wait, its links, outstanding MMIO and memory
 * bursts, and the harness's beat counters. Time does not advance. */
void qrdma_sim_dump_state(const qrdma_sim *s);

#ifdef __cplusplus
}
#endif

#endif /* QRDMA_SIM_H */
