/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * qrdma_backend.h: the interface between libqrdma and whatever carries its loads and
 * stores to a qrdma device. A backend is a struct of function
 * pointers plus a context; libqrdma never touches a device or its host memory any other
 * way. Two backends implement it:
 *   - mmap (sw/lib/backend_mmap.c, sw/include/qrdma_backend_mmap.h): device registers
 *     mapped from /dev/uioN or a PCI resource file, 64-bit volatile loads and stores;
 *   - the Verilator system simulation (sim/): N simulated NICs with their host memories,
 *     written against this header alone.
 *
 * This header is self-contained (C11, <stddef.h>, <stdint.h>). Everything a backend
 * author needs is here; the device side is described in docs/qos.md ("Host port") and
 * docs/formats.md (address map).
 *
 * ---------------------------------------------------------------------------------------
 * Nodes
 *   A backend hosts num_nodes >= 1 NICs, numbered 0..num_nodes-1 (the *node index*, a
 *   backend notion). Each node has its own device address space (the AXI4 slave of its
 *   host port: pages at 0 .. NUM_PAGES * PAGE_STRIDE, registers at REG_BASE, 2^ADDR_W
 *   bytes in all) and its own host memory. A tool that measures a transfer between two
 *   nodes opens both from one backend (qrdma_open(be, 0, ..), qrdma_open(be, 1, ..)), so
 *   the backend must let the process reach every node's memory through CPU pointers
 *   (mem_alloc on node 1 returns a pointer the process can read to verify data).
 *   The node index is not the network node ID: the library reads that from the node's
 *   NODE_ID register and uses it as the descriptors' dst_node.
 *
 * Device addresses
 *   `addr` arguments of the MMIO calls are byte offsets in the node's device address space
 *   (0 .. 2^QRDMA_ADDR_W - 1), the AXI4 slave address the host port sees. libqrdma only
 *   issues:
 *     - mmio_read64:  8-byte aligned reads of single status, collective status and
 *                     registers (REG_BASE + ...);
 *     - mmio_write64: 8-byte aligned writes of the NIC's read-write registers (NQ_BASE,
 *                     NQ_SIZE, NQ_TAIL);
 *     - desc_write:   32 bytes at a 32-byte aligned descriptor line, or 64 bytes at a
 *                     64-byte aligned pair of lines (channel c even, c and c+1).
 *
 * Ordering (what libqrdma relies on)
 *   Calls for one node take effect on the device in the order they are made. In
 *   particular a read issued after a write (mmio_write64 or desc_write) must observe the
 *   write's effect: a status read after a descriptor write sees BUSY (or the later state),
 *   not the state before the write. A backend whose writes are posted (return before the
 *   device has taken them) must still guarantee this, e.g. the simulation harness waits
 *   for the write response (B) before it issues the read's AR, or delays the AR by the
 *   host port's write-to-status latency (docs/qos.md, 3 cycles).
 *   Stores the CPU makes through a qrdma_buf.cpu pointer before a desc_write are visible
 *   to the device's reads caused by that descriptor; data the device writes into host
 *   memory is visible through .cpu once the device has reported the transfer DONE, and a
 *   notification entry is visible once its marker byte reads NOTIF_FULL.
 *
 * Errors
 *   Every call returns 0 (QRDMA_OK) or a negative QRDMA_E* code below. QRDMA_ESLVERR
 *   means the device answered SLVERR (the simulation knows this for every access; the
 *   mmap backend cannot see it for writes and returns 0). A read answered with SLVERR
 *   stores 0 in *val and returns QRDMA_ESLVERR.
 *
 * Time
 *   now() returns a monotonic tick count, tick_hz ticks per second. The simulation
 *   counts simulated clock cycles and sets tick_hz = 200000000 (the nominal 200 MHz), so
 *   tools report times at the nominal clock; the mmap backend counts CLOCK_MONOTONIC
 *   nanoseconds (tick_hz = 1000000000).
 *
 * Simulated time and spinning
 *   libqrdma spins when it waits (qrdma_wait, qrdma_nq_wait) and tools spin on
 *   qrdma_poll. A blocking call (mmio_read64) advances simulated time by its round trip
 *   by itself. Between two unsuccessful polls the library calls idle(ctx, node): the
 *   simulation advances its clock there (by at least one cycle, so that a spin loop
 *   always makes progress even if a backend's reads took no time); a hardware backend
 *   does nothing or a CPU pause. idle may be NULL.
 *
 * Cores
 *   A host posts from many CPU cores at once, each core with its own stream of loads and
 *   stores: one core waiting for its status read does not hold up another core's
 *   descriptor writes. On hardware this needs nothing from a backend: each thread (on its
 *   core) calls the functions above, and the CPU keeps the streams apart. A backend that
 *   models the CPU (the simulation) offers the optional core_* functions below, so that
 *   one thread can drive several cores: libqrdma uses them for a page bound to a core
 *   (qrdma_page_bind_core), one core per page, as one process per page would. Ordering
 *   holds per core: a read issued from a core observes the effect of every earlier write
 *   issued from that core. The calls on one core stand for one core's program: the
 *   backend keeps each core's time, and idle() is the wait of a program whose cores all
 *   wait for reads (the simulation steps to the first cycle one may be back); core_pause
 *   is one core's program pausing between two unsuccessful polls.
 *
 * Threads
 *   libqrdma calls a backend from the threads that use its node handles; it never calls
 *   one node's backend functions from two threads at once if the application obeys
 *   qrdma.h's rule (one thread per node handle). A backend hosting several nodes must
 *   accept calls for different nodes from different threads, or document that it does
 *   not (the simulation harness is single-threaded: one thread drives all nodes).
 * --------------------------------------------------------------------------------------- */
#ifndef QRDMA_BACKEND_H
#define QRDMA_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of this interface; a backend sets qrdma_backend.abi to it. */
#define QRDMA_BACKEND_ABI 1

/* Error codes, shared by the backend interface and the user API (qrdma.h). */
enum qrdma_error {
    QRDMA_OK = 0,
    QRDMA_EINVAL = -1,    /* bad argument: NULL pointer, out-of-range field, unknown flag */
    QRDMA_ESIZE = -2,     /* memory transfer size 0 or above MAX_TRANSFER_BYTES (4 GiB) */
    QRDMA_EINLINE = -3,   /* inline payload length 0 or above INLINE_MAX (32 bytes) */
    QRDMA_EBUSY = -4,     /* channel (or page) still has a transfer in flight */
    QRDMA_ECHAN = -5,     /* channel not allocated, or a 64-byte descriptor on a single channel */
    QRDMA_ENOPAGE = -6,   /* no free page, or the requested page is already claimed */
    QRDMA_ENOCHAN = -7,   /* no free channel (or no free even pair) in the page */
    QRDMA_ENOMEM = -8,    /* out of host memory (library or DMA buffer) */
    QRDMA_EIO = -9,       /* the backend failed (open, map, system call) */
    QRDMA_ESLVERR = -10,  /* the device refused the access (AXI SLVERR) */
    QRDMA_ENODEV = -11,   /* the ID register does not read ID_MAGIC: not a qrdma device */
    QRDMA_EVERSION = -12, /* the device's format version differs from QRDMA_FORMAT_VERSION */
    QRDMA_ETIMEDOUT = -13,/* a wait ran out of time */
    QRDMA_ENOTIF = -14,   /* the notification ring is not configured */
    QRDMA_ENONODE = -15   /* node index beyond the backend's num_nodes */
};

/* A DMA-able buffer in a node's host memory. */
struct qrdma_buf {
    void *cpu;        /* where the process reads and writes it */
    uint64_t dev;     /* the address the device uses for it (descriptor src/dst, NQ_BASE) */
    size_t size;      /* bytes */
    unsigned node;    /* node index whose host memory holds it */
    uintptr_t priv;   /* the backend's own (e.g. an allocator handle); the library keeps it */
};

struct qrdma_backend {
    unsigned abi;           /* QRDMA_BACKEND_ABI */
    const char *name;       /* short name for reports: "sim", "mmap", ... */
    void *ctx;              /* passed to every function below */
    unsigned num_nodes;     /* nodes 0..num_nodes-1 */
    uint64_t tick_hz;       /* ticks of now() per second (sim: 200000000, mmap: 1e9) */

    /* 64-bit load from device address addr (8-byte aligned) of node `node`. A status
     * read has a side effect on the device (DONE/ERROR reset to IDLE): issue it exactly
     * once, never speculatively or twice. */
    int (*mmio_read64)(void *ctx, unsigned node, uint64_t addr, uint64_t *val);

    /* 64-bit store to device address addr (8-byte aligned). */
    int (*mmio_write64)(void *ctx, unsigned node, uint64_t addr, uint64_t val);

    /* Descriptor write: len = 32 (addr 32-byte aligned) or 64 (addr 64-byte aligned)
     * bytes, data[i] to device address addr + i. Must reach the host port as accepted
     * writes (docs/qos.md): beats of 8, 16 or 32 bytes (at most the bus width), each
     * aligned to its size, strobes exactly the bytes addressed, INCR, and the first
     * 32-byte line complete before any byte of the second (ascending address order does
     * this). The simulation issues one INCR burst: one 32-byte beat per line on a 256-bit
     * port, two 16-byte beats per line on a 128-bit port. data is 8-byte aligned. */
    int (*desc_write)(void *ctx, unsigned node, uint64_t addr, const void *data, size_t len);

    /* Allocate size bytes of node `node`'s host memory, with buf->dev a multiple of
     * align (a power of 2, at least 64). Fill *buf (cpu, dev, size, node, priv). Contents
     * are unspecified. QRDMA_ENOMEM when it does not fit. */
    int (*mem_alloc)(void *ctx, unsigned node, size_t size, size_t align, struct qrdma_buf *buf);

    /* Give back a buffer from mem_alloc (the same struct contents). */
    void (*mem_free)(void *ctx, struct qrdma_buf *buf);

    /* Optional (may be NULL): the caller spins and found nothing; the simulation advances
     * its clock by at least one cycle. */
    void (*idle)(void *ctx, unsigned node);

    /* Monotonic time in ticks (see tick_hz). The simulation: the current cycle. */
    uint64_t (*now)(void *ctx);

    /* Optional: release the backend (unmap, close, free); called by qrdma_backend_close. */
    void (*destroy)(struct qrdma_backend *be);

    /* Optional, all four or none (num_cores 0, NULL): CPU cores (see "Cores" above).
     * core_desc_write is desc_write issued from `core`; core_read_start issues a 64-bit
     * read from `core` and returns at once; core_read_end returns 1 and *val once that
     * read's data is back (a read answered SLVERR: *val 0 and QRDMA_ESLVERR), 0 while it
     * is not, QRDMA_EINVAL when no read is pending on the core. While a read is pending
     * the core waits: the library issues nothing else from it until core_read_end has
     * returned nonzero. */
    unsigned num_cores;
    int (*core_desc_write)(void *ctx, unsigned node, unsigned core, uint64_t addr,
                           const void *data, size_t len);
    int (*core_read_start)(void *ctx, unsigned node, unsigned core, uint64_t addr);
    int (*core_read_end)(void *ctx, unsigned node, unsigned core, uint64_t *val);

    /* Optional (NULL: nothing to do), with the four above: the program on `core` pauses
     * between two unsuccessful polls, where a program without cores calls idle() with no
     * read pending. The simulation moves the core's clock by the cycle that idle() takes
     * then, and steps nothing. QRDMA_EINVAL while a read is pending on the core. */
    int (*core_pause)(void *ctx, unsigned node, unsigned core);

    /* Optional (NULL: not known): *packets = the packets the network between the nodes
     * dropped since the backend was opened (the simulation: qrdma_sim_dropped_packets,
     * docs/sim.md "Links"); 0 or a negative QRDMA_E* code. */
    int (*net_dropped)(void *ctx, uint64_t *packets);
};

/* Release a backend through its destroy function (NULL-safe). */
static inline void qrdma_backend_close(struct qrdma_backend *be)
{
    if (be && be->destroy)
        be->destroy(be);
}

/* Link-time backend selection for tools (sw/tools/qrdma_perf.c). A tool calls
 * qrdma_tool_backend_open with the string given by its -B option (or NULL: the backend's
 * default); the backend object linked into the tool defines it:
 *   sw/lib/backend_mmap_tool.c  spec "reg=PATH[@OFF],mem=PATH[@OFF],len=N,phys=ADDR[;...]"
 *   the simulation harness      its own spec (e.g. nodes, latencies, watchdog;
 *                               sim/qrdma_backend_sim.h)
 *   sw/tests/fake_tool.c        the unit tests' fake device
 * Returns 0 and *out, or a negative QRDMA_E* code (and a message on stderr). Release with
 * qrdma_backend_close. */
int qrdma_tool_backend_open(const char *spec, struct qrdma_backend **out);

#ifdef __cplusplus
}
#endif

#endif /* QRDMA_BACKEND_H */
