/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * qrdma_backend_mmap.h: the memory-mapped backend of libqrdma (sw/lib/backend_mmap.c).
 *
 * Device registers: for each node, a register window is mapped from a file with mmap
 * (MAP_SHARED): /dev/uioN (offset N * page size selects the UIO map N), a PCI BAR
 * through /sys/bus/pci/devices/<bdf>/resourceK (uncached) or resourceK_wc
 * (write-combining), or, for unit tests, a plain file (sw/tests/fake_nic.c). Device
 * address a of the node is byte reg_offset + a of that file. MMIO reads and writes are
 * 64-bit volatile loads and stores.
 *
 * Descriptor writes: 32 or 64 bytes stored as aligned 64-bit stores in ascending address
 * order (with QRDMA_MMAP_AVX and a compiler targeting AVX: one 256-bit store per line),
 * each 32-byte line followed by a store fence. Write-combining caveat: on a WC mapping
 * (resourceK_wc) the CPU may merge the stores of a line into one burst and may send the
 * words of an incompletely filled buffer in any order; the host port accepts words of a
 * line in any order (docs/qos.md), but the second line of a 64-byte descriptor must not
 * arrive before the first is complete, hence the fence between the lines. On an
 * uncached mapping every 64-bit store is its own 8-byte write, which the host port
 * accepts (8-byte beats), at the cost of 4 bus transactions per line. Write errors
 * (SLVERR) are not visible to the CPU: desc_write and mmio_write64 return 0; the device
 * reports refused descriptors through the channel status (ERROR) and CNT_DESC_ERR.
 *
 * Host memory: the device needs buffers it can reach by bus address, so the backend
 * does not allocate memory itself: the user gives, per node, a file whose mapping is a
 * physically contiguous DMA buffer (a udmabuf /dev/udmabufN, a hugetlbfs file whose
 * physical address is known, a reserved region of /dev/mem, or a plain file in tests),
 * its offset and length, and its device (bus) address `mem_phys`. mem_alloc is a
 * first-fit allocator over that buffer (at most QRDMA_MMAP_MAX_BUFS live buffers,
 * neighbours merged on free); buf.dev = mem_phys + offset, buf.cpu = the mapping +
 * offset, alignment applies to buf.dev. No memory given (mem_path NULL): mem_alloc
 * returns QRDMA_ENOMEM.
 *
 * Time: CLOCK_MONOTONIC in nanoseconds (tick_hz = 1e9). idle: a CPU pause hint.
 */
#ifndef QRDMA_BACKEND_MMAP_H
#define QRDMA_BACKEND_MMAP_H

#include <stdint.h>

#include "qrdma_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

#define QRDMA_MMAP_MAX_NODES 8
#define QRDMA_MMAP_MAX_BUFS 1024

/* flags */
#define QRDMA_MMAP_AVX 0x1u /* descriptor lines as single 256-bit stores, if compiled for AVX */

struct qrdma_mmap_node {
    const char *reg_path;  /* register window file: /dev/uioN, .../resourceK[_wc], a test file */
    uint64_t reg_offset;   /* byte offset of device address 0 in that file */
    uint64_t reg_len;      /* bytes mapped; 0: the whole address space, 2^QRDMA_ADDR_W */
    const char *mem_path;  /* DMA buffer file, or NULL for none */
    uint64_t mem_offset;   /* byte offset of the buffer in that file */
    uint64_t mem_len;      /* buffer bytes */
    uint64_t mem_phys;     /* device (bus) address of the buffer's first byte */
};

struct qrdma_mmap_cfg {
    unsigned num_nodes;    /* 1..QRDMA_MMAP_MAX_NODES */
    uint32_t flags;        /* QRDMA_MMAP_* */
    struct qrdma_mmap_node node[QRDMA_MMAP_MAX_NODES];
};

/* Map every node's files and return the backend (release with qrdma_backend_close).
 * QRDMA_EINVAL for a bad configuration (no path, lengths 0 or too short for the address
 * map, unaligned phys), QRDMA_EIO when a file cannot be opened or mapped (errno kept). */
int qrdma_mmap_open(const struct qrdma_mmap_cfg *cfg, struct qrdma_backend **out);

/* Bytes of node `node`'s buffer currently allocated (for tests and leak checks). */
uint64_t qrdma_mmap_mem_used(const struct qrdma_backend *be, unsigned node);

#ifdef __cplusplus
}
#endif

#endif /* QRDMA_BACKEND_MMAP_H */
