/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The qrdma authors
 *
 * qrdma.h: libqrdma, the C11 host library of qrdma ([QoS-RDMA] §2, §3.1, §3.4, §3.6;
 * [RSN] §3.3 for the notification ring).
 *
 * A process opens a node through a backend (qrdma_backend.h), claims pages (protection
 * domains, 16 per node, 64 write channels 0..63 and 64 read channels 64..127 each),
 * allocates channels in a page, posts remote writes on write channels (memory-to-memory
 * or inline) and remote reads on read channels, and learns their completion by
 * polling the channel status (one channel, or 32 at once) and, on the receiving node,
 * from the notification ring. Layouts and addresses come from qrdma_fmt.h (generated
 * from tools/formats.py); behaviour of the device: docs/qos.md, docs/nic.md.
 *
 * Conventions: functions return 0 (QRDMA_OK) or a negative QRDMA_E* code (enum
 * qrdma_error in qrdma_backend.h), unless they say otherwise; qrdma_strerror names them.
 * A node handle, and the pages and buffers obtained from it, are used by one thread at a
 * time. The host must be little-endian (descriptor bytes are built in memory order).
 */
#ifndef QRDMA_H
#define QRDMA_H

#include <stddef.h>
#include <stdint.h>

#include "qrdma_backend.h"
#include "qrdma_counters.h"
#include "qrdma_fmt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct qrdma_node qrdma_node;
typedef struct qrdma_page qrdma_page;

/* What qrdma_open read from the device. */
struct qrdma_info {
    uint32_t version;         /* ID.version (= QRDMA_FORMAT_VERSION) */
    uint16_t node_id;         /* NODE_ID: this node's network ID (dst_node of writes to it) */
    uint32_t block_size;      /* PARAMS: engine block size in bytes */
    uint32_t max_outstanding; /* PARAMS: blocks of one transfer in flight */
    uint32_t host_data_w;     /* PARAMS: host port data width in bits */
    uint32_t max_payload;     /* PARAMS: largest DATA packet payload; packets split at its multiples */
    uint32_t num_nodes;       /* PARAMS: source nodes the receive unit tells apart (node IDs mod this) */
    uint32_t prot_windows;    /* PARAMS: entries of the receive unit's window table */
};

const char *qrdma_strerror(int err);

/* ------------------------------------------------------------------------ node */

/* Open node `node_index` (0..be->num_nodes-1, else QRDMA_ENONODE) of a backend: checks
 * the backend (QRDMA_EVERSION if be->abi is not QRDMA_BACKEND_ABI, QRDMA_EINVAL if a
 * required function is missing) and the ID register (QRDMA_ENODEV if its magic is not
 * ID_MAGIC, QRDMA_EVERSION if its version is not QRDMA_FORMAT_VERSION), reads PARAMS and
 * NODE_ID, and sets NODE_MASK to the backend's nodes 0 .. num_nodes-1 (the nodes the NIC
 * may send to). Several nodes of one backend may be open at once; the backend must
 * outlive them. */
int qrdma_open(struct qrdma_backend *be, unsigned node_index, qrdma_node **out);
/* Close: turns the notification ring off if it is on, frees the library's state. Pages
 * and buffers are released with it (buffers: the application frees them first). */
void qrdma_close(qrdma_node *n);
const struct qrdma_info *qrdma_node_info(const qrdma_node *n);
struct qrdma_backend *qrdma_node_backend(const qrdma_node *n);
unsigned qrdma_node_index(const qrdma_node *n);

/* Backend time (ticks, see qrdma_backend.tick_hz) and its conversion to nanoseconds. */
uint64_t qrdma_now(const qrdma_node *n);
double qrdma_ticks_to_ns(const qrdma_node *n, uint64_t ticks);

/* DMA-able host memory of this node (backend mem_alloc; align a power of 2, 0 = 64). */
int qrdma_buf_alloc(qrdma_node *n, size_t size, size_t align, struct qrdma_buf *buf);
void qrdma_buf_free(qrdma_node *n, struct qrdma_buf *buf);

/* ------------------------------------------------------------------------ pages, channels */

#define QRDMA_PAGE_ANY (-1)

/* Claim page `page` (0..NUM_PAGES-1), or the lowest free one with QRDMA_PAGE_ANY.
 * QRDMA_ENOPAGE if it is taken (or none is free). The library hands out each page once
 * per node handle; it has no view of other processes (on hardware the OS maps a page
 * into one process). */
int qrdma_page_claim(qrdma_node *n, int page, qrdma_page **out);
/* Give a page back; QRDMA_EBUSY if one of its channels has a transfer the library has not
 * seen complete (poll it first, or qrdma_chan_forget). */
int qrdma_page_release(qrdma_page *p);
unsigned qrdma_page_index(const qrdma_page *p);
qrdma_node *qrdma_page_node(const qrdma_page *p);

/* The CPU core that drives the page: its posts and polls are issued from that core
 * (qrdma_backend.h "Cores"), one core per page as one process per page would run. Default
 * -1: none, the backend's plain calls. On a backend that models cores (the simulation:
 * qrdma_num_cores() > 0) the page's posts and polls then take that core's time only, so
 * one thread can drive pages on several cores, each as if on its own thread; core must be
 * below qrdma_num_cores() (else QRDMA_EINVAL). On other backends the core is only
 * recorded (the thread that uses the page runs on whichever core it runs on). QRDMA_EBUSY
 * while a collective read started on the page is pending. */
int qrdma_page_bind_core(qrdma_page *p, int core);
int qrdma_page_core(const qrdma_page *p);
/* Cores the node's backend models (0: none; qrdma_page_bind_core only records). */
unsigned qrdma_num_cores(const qrdma_node *n);

/* Allocate a write channel of the page: width 1 gives the lowest free channel c; width 2
 * the lowest free even pair (c, c+1), needed for 64-byte descriptors (inline payload of
 * 9..32 bytes, or a memory write with an rkey). Returns c >= 0, or QRDMA_ENOCHAN /
 * QRDMA_EINVAL. */
int qrdma_chan_alloc(qrdma_page *p, unsigned width);
/* Allocate a read channel of the page, as qrdma_chan_alloc but among the read channels:
 * returns c in 64..127 (a pair: c even, for a 64-byte read descriptor, needed for an
 * rkey or an lkey), or QRDMA_ENOCHAN / QRDMA_EINVAL. A read channel takes only
 * qrdma_post_read; qrdma_chan_free, qrdma_chan_forget, qrdma_poll, qrdma_poll_coll
 * (groups 2, 3), qrdma_chan_error and qrdma_wait work on it as on a write channel. */
int qrdma_chan_alloc_read(qrdma_page *p, unsigned width);
/* Free channel c (the first of a pair frees both). QRDMA_EBUSY if a transfer on it has not
 * been seen complete; QRDMA_ECHAN if it was not allocated. */
int qrdma_chan_free(qrdma_page *p, unsigned ch);
/* Forget that a transfer is in flight on c (after a lost device, a refused write the
 * backend could not report, ...): the next post on c is allowed. */
int qrdma_chan_forget(qrdma_page *p, unsigned ch);

/* ------------------------------------------------------------------------ posting */

/* Flags of a write. */
#define QRDMA_WR_NOTIFY    0x1u /* the receiver writes a completion notification */
#define QRDMA_WR_MULTIPATH 0x2u /* memory write: may be spread over 4 flows (4xFID class) */
/* Clustering (docs/qos.md "Clustering"): a transfer posted with HOLD waits, BUSY, until a
 * transfer with START is posted on the same page; START releases every held transfer of
 * the page and itself, lowest channel first. Writes, inline writes and reads alike. */
#define QRDMA_WR_HOLD      0x4u
#define QRDMA_WR_START     0x8u
/* Receive-side registration (docs/registration.md): a memory write with QRDMA_WR_NOTIFY
 * of 2 .. REG_MASK_W - 1 blocks is registered at its receiver, which writes the
 * notification as soon as the last byte is in, a link round trip before the completion
 * control packet would let it (entry flag `early`). Ignored for any other memory write. */
#define QRDMA_WR_REGISTERED 0x10u

/* A remote write. */
struct qrdma_write {
    uint64_t src_addr;  /* memory write: device address of the source in this node's memory */
    uint64_t dst_addr;  /* device address of the destination in the remote node's memory */
    uint64_t size;      /* memory write: 1..MAX_TRANSFER_BYTES (2^32); inline: set by post */
    uint16_t dst_node;  /* network node ID of the destination (qrdma_info.node_id there) */
    uint8_t prio;       /* 0 (highest) .. 15, intra-priority of congestion-managed transfers */
    uint32_t flags;     /* QRDMA_WR_* */
    uint32_t tag;       /* carried to the receiver's notification (memory writes) */
    uint32_t rkey;      /* remote key; nonzero needs a 64-byte descriptor (channel pair) */
};

/* Post a memory write on channel ch of the page: one 32-byte descriptor (or 64 bytes on
 * a pair when rkey != 0), issued as one backend desc_write, no read. Errors, checked
 * before anything is written: QRDMA_ESIZE (size 0 or > 4 GiB), QRDMA_EINVAL (prio > 15,
 * unknown flag, NULL), QRDMA_ECHAN (channel not allocated, or rkey on a single channel),
 * QRDMA_EBUSY (a transfer posted on it has not been seen complete). A backend error
 * (QRDMA_ESLVERR: the device refused the descriptor) is returned as is; the channel is
 * then considered in flight until a poll sees it DONE, ERROR or IDLE. */
int qrdma_post_write(qrdma_page *p, unsigned ch, const struct qrdma_write *wr);

/* Post an inline write of len (1..INLINE_MAX = 32) bytes of data to wr->dst_addr at
 * wr->dst_node; wr->src_addr and size are not used; prio and tag are written to the
 * descriptor (an inline notification reports tag 0, docs/formats.md notif_entry); flags:
 * QRDMA_WR_NOTIFY (the receiver notifies on arrival), QRDMA_WR_HOLD, QRDMA_WR_START
 * (QRDMA_WR_MULTIPATH: EINVAL).
 * The payload is copied into the descriptor: data may be reused when the call returns.
 * Up to INLINE_SHORT_MAX (8) bytes without a key take a 32-byte descriptor; 9..32 bytes,
 * or a nonzero wr->rkey, a 64-byte one (channel pair, else QRDMA_ECHAN). QRDMA_EINLINE for len 0 or > 32; other errors as
 * qrdma_post_write. */
int qrdma_post_inline(qrdma_page *p, unsigned ch, const struct qrdma_write *wr,
                      const void *data, size_t len);

/* Flags of a read. */
#define QRDMA_RD_MULTIPATH 0x2u /* may be spread over 4 flows (4xFID class), as a write's */
#define QRDMA_RD_HOLD      0x4u /* clustering, as QRDMA_WR_HOLD */
#define QRDMA_RD_START     0x8u /* clustering, as QRDMA_WR_START */

/* A remote read: size bytes at src_addr of node src_node are copied to dst_addr of this
 * node. The read channel's transfer is scheduled in blocks as a write (docs/qos.md); the
 * send unit turns its blocks into read requests (docs/nic.md). A read has no inline
 * payload and no completion notification. */
struct qrdma_read {
    uint64_t src_addr;  /* device address read in the remote node's memory */
    uint64_t dst_addr;  /* device address in this node's memory the data lands at */
    uint64_t size;      /* 1..MAX_TRANSFER_BYTES (2^32) */
    uint16_t src_node;  /* network node ID of the remote node (the descriptor's dst_node) */
    uint8_t prio;       /* 0 (highest) .. 15, intra-priority of congestion-managed transfers */
    uint32_t flags;     /* QRDMA_RD_* */
    uint32_t tag;       /* user value kept in the descriptor */
    uint32_t rkey;      /* remote key of the window read (must permit remote reads) */
    uint32_t lkey;      /* key of the local window the data is written under */
};

/* Post a remote read on read channel ch (qrdma_chan_alloc_read): one 32-byte descriptor,
 * or 64 bytes on a pair when rkey or lkey is nonzero. Errors as qrdma_post_write:
 * QRDMA_ESIZE, QRDMA_EINVAL (prio > 15, unknown flag, NULL), QRDMA_ECHAN (not an
 * allocated read channel, or a key on a single channel), QRDMA_EBUSY, backend errors.
 * qrdma_post_write and qrdma_post_inline on a read channel give QRDMA_ECHAN. */
int qrdma_post_read(qrdma_page *p, unsigned ch, const struct qrdma_read *rd);

/* The descriptor bytes qrdma_post_write / qrdma_post_inline / qrdma_post_read write (for tests and tools):
 * fills out[0..*len) and *len = 32 or 64, with the same argument checks (a 64-byte
 * descriptor is built regardless of channel width). data/len_inline only for inline. */
int qrdma_desc_build_write(const struct qrdma_write *wr, uint8_t out[64], size_t *len);
int qrdma_desc_build_inline(const struct qrdma_write *wr, const void *data, size_t len_inline,
                            uint8_t out[64], size_t *len);
int qrdma_desc_build_read(const struct qrdma_read *rd, uint8_t out[64], size_t *len);

/* ------------------------------------------------------------------------ completion */

/* Poll channel ch (0..127, write or read): one 64-bit read of its single status. Returns QRDMA_ST_IDLE, _BUSY,
 * _DONE or _ERROR (>= 0) or a negative error. Reset-on-read (docs/qos.md): the read that
 * returns DONE or ERROR resets the channel to IDLE, so it is reported exactly once; the
 * next poll returns IDLE. A channel the library saw posted stays "in flight" (posting on
 * it again gives QRDMA_EBUSY) until a poll returns DONE or ERROR; an IDLE answer for it
 * does not clear it unless the post itself reported an error. */
int qrdma_poll(qrdma_page *p, unsigned ch);

/* The result of a collective read: channel 32 g + i is channel i below. */
struct qrdma_coll {
    uint64_t raw;   /* the register: channel i in bits 2i+1:2i (QRDMA_ST_*) */
    uint32_t done;  /* bit i: channel i was DONE (now reset to IDLE) */
    uint32_t error; /* bit i: channel i was ERROR (now reset to IDLE) */
    uint32_t busy;  /* bit i: channel i is BUSY */
};

/* Poll channels 32 g .. 32 g + 31 (g = 0..3: 0, 1 write channels, 2, 3 read channels)
 * with one 64-bit read of the collective status; every DONE / ERROR found is reset to
 * IDLE by that read. */
int qrdma_poll_coll(qrdma_page *p, unsigned group, struct qrdma_coll *out);

/* qrdma_poll_coll in two halves, so that one thread can keep several cores busy: start
 * issues the read of group g from the page's core and returns at once; end returns 1 and
 * *out (as qrdma_poll_coll) once the answer is back, 0 while it is not (call the backend's
 * idle hook, or work on other pages, in between), or a negative error. One read per page
 * at a time: while it is pending, the page's posts and polls return QRDMA_EBUSY (the core
 * waits for its read). On a page without a core, or a backend that models none, start
 * makes the blocking read and end returns its answer. */
int qrdma_poll_coll_start(qrdma_page *p, unsigned group);
int qrdma_poll_coll_end(qrdma_page *p, struct qrdma_coll *out);

/* Why channel ch (0..127) last ended in ERROR: one 64-bit read of its error reason (ERR_OFFSET
 * window). Returns QRDMA_ERR_NONE (no ERROR since reset), QRDMA_ERR_BAD_DESC (the
 * descriptor was refused), QRDMA_ERR_LOCAL_MEM (a payload read of this node's memory
 * failed), QRDMA_ERR_REMOTE_MEM (the receiver's memory refused a write: NACK),
 * QRDMA_ERR_TIMEOUT (no response within RETX_TIMEOUT), QRDMA_ERR_UNREACHABLE (the
 * destination is not a node of the system, or is this node), or a negative error. The reason is kept until the channel's next ERROR (reads do not reset
 * it): read it after a poll returned ERROR. */
int qrdma_chan_error(qrdma_page *p, unsigned ch);
/* A short text for an ERR_* reason ("remote memory write refused", ...). */
const char *qrdma_err_reason_str(int reason);

/* Spin on qrdma_poll until channel ch is DONE or ERROR (returned, >= 0), calling the
 * backend's idle hook between polls; QRDMA_ETIMEDOUT after timeout_ticks backend ticks
 * (0: no limit). */
int qrdma_wait(qrdma_page *p, unsigned ch, uint64_t timeout_ticks);

/* ------------------------------------------------------------------------ notifications */

/* A completion notification taken from the ring (notif_entry in qrdma_fmt.h). */
struct qrdma_notif {
    uint8_t kind;      /* QRDMA_NET_INLINE or QRDMA_NET_CONTROL */
    uint16_t src_node; /* sender's node ID */
    uint16_t xfer;     /* sender's channel: page * CH_PER_PAGE + channel */
    uint8_t pd;        /* protection domain (sender's page) */
    uint64_t size;     /* transfer size in bytes */
    uint32_t tag;      /* descriptor tag (memory writes; 0 for inline) */
    uint64_t dst_addr; /* destination address of the transfer */
    uint16_t seq;      /* sequence number of the last block (early: of the first) */
    uint8_t early;     /* written by the receiver as the last byte came in, ahead of the
                          control packet (QRDMA_WR_REGISTERED, docs/registration.md) */
    /* Benchmark mode (qrdma_bench_set): the stamps of the packet that completed, each a
     * device's cycle count mod 2^QRDMA_STAMP_W (intervals: qrdma_stamp_diff,
     * qrdma_notif_stages). All 0 when stamped is 0 (the notification carries none). */
    uint8_t stamped;   /* 1: the fields below are set */
    uint8_t hops;      /* switches that stamped the packet (0..QRDMA_STAMP_HOPS_MAX) */
    uint16_t t_post;   /* the sender's host port accepted the descriptor */
    uint16_t t_send;   /* the header first offered on the sending NIC's link */
    uint16_t t_sw[4];  /* switch 0 arrival, switch 0 departure, switch 1 arrival, switch 1
                          departure (the first 2 * hops are set) */
    uint16_t t_recv;   /* the header first offered to the receiving NIC */
    uint16_t t_done;   /* the receiver issued the notification's write (the data is written) */
};

/* Set up this node's notification ring with `entries` 64-byte entries (a power of 2,
 * 1..2^31): allocates it in host memory (64-byte aligned), marks every entry empty,
 * writes NQ_BASE, then NQ_SIZE (which restarts the ring: NQ_HEAD = NQ_TAIL = 0). A ring
 * already set up is replaced. QRDMA_EINVAL for a bad size. */
int qrdma_nq_setup(qrdma_node *n, uint32_t entries);
/* Turn notifications off (NQ_SIZE = 0) and free the ring. */
int qrdma_nq_teardown(qrdma_node *n);
/* Take the next notification if there is one: returns 1 and *out, 0 if the ring is
 * empty (the marker of the next entry is NOTIF_EMPTY), or an error (QRDMA_ENOTIF if no
 * ring). Taking an entry rewrites its marker NOTIF_EMPTY and then writes NQ_TAIL (the
 * count of entries taken, mod 2^32) so the NIC may reuse the slot. No MMIO read. */
int qrdma_nq_poll(qrdma_node *n, struct qrdma_notif *out);
/* Spin on qrdma_nq_poll (idle hook between tries); 1 and *out, or QRDMA_ETIMEDOUT. */
int qrdma_nq_wait(qrdma_node *n, struct qrdma_notif *out, uint64_t timeout_ticks);
/* The ring's buffer (NULL if none) and entries taken so far (software NQ_TAIL). */
const struct qrdma_buf *qrdma_nq_buf(const qrdma_node *n);
uint32_t qrdma_nq_tail(const qrdma_node *n);

/* ------------------------------------------------------------------------ benchmark mode */

/* Benchmark mode ([FPGA-NI] §4, docs/fabric.md "Benchmark mode", register BENCH): while it
 * is on at the sending node, its host port stamps every descriptor it accepts; the INLINE
 * (of at most QRDMA_STAMP_INLINE_MAX bytes) and CONTROL packets of a stamped transfer
 * (not a registered write's early notification) collect the stamps of the sending NIC, of
 * up to QRDMA_STAMP_HOPS_MAX switches and of the receiving NIC, which the receiver's
 * notification carries (struct qrdma_notif: stamped, hops, t_post .. t_done) if both
 * NICs are built with stamps (qrdma_bench_caps). Stamps cost no cycle. */
#define QRDMA_STAMP_HOPS_MAX (QRDMA_NOTIF_ENTRY_T_SW_W / (2 * QRDMA_STAMP_W)) /* 2 */
/* Stages of a stamped notification with h hops: 2 h + 3 (qrdma_notif_stages). */
#define QRDMA_STAGES_MAX (2 * QRDMA_STAMP_HOPS_MAX + 3)

/* Benchmark mode on (1) or off (0) at this node: one write of BENCH.en; descriptors
 * accepted from then on are stamped (or not). */
int qrdma_bench_set(qrdma_node *n, int on);
/* Whether this node's NIC is built with benchmark stamps (BENCH.stamps, its parameter
 * BENCH_STAMPS): one read; returns 1 or 0, or a negative error. A sender that answers 0
 * stamps no descriptor, a receiver that answers 0 writes every notification unstamped. */
int qrdma_bench_caps(qrdma_node *n);

/* The interval from stamp `earlier` to stamp `later` in cycles: their difference modulo
 * 2^QRDMA_STAMP_W (right for intervals shorter than that). */
static inline uint32_t qrdma_stamp_diff(uint32_t later, uint32_t earlier)
{
    return (later - earlier) & (uint32_t)((1ULL << QRDMA_STAMP_W) - 1);
}

/* The stages of a stamped notification, in cycles (qrdma_stamp_diff), in path order:
 * out[0] the sender (t_send - t_post); per switch k < hops, the link to it (its arrival -
 * the previous departure: t_send for switch 0) and the switch (its departure - its
 * arrival); the last link (t_recv - the last departure, or t_send without switches); the
 * receiver (t_done - t_recv). Returns the number of stages, 2 hops + 3, named by
 * qrdma_stage_names[hops]; QRDMA_EINVAL for NULL, a notification without stamps
 * (stamped 0) or hops above QRDMA_STAMP_HOPS_MAX. The stages add up to t_done - t_post
 * (mod 2^QRDMA_STAMP_W). */
int qrdma_notif_stages(const struct qrdma_notif *nt, uint32_t out[QRDMA_STAGES_MAX]);
/* Names of those stages for 0, 1, 2 hops: qrdma_stage_names[hops][i] for i <
 * 2 hops + 3 ("sender", "link_sw0", "sw0", "link_sw1", "sw1", "link_recv", "receiver";
 * without switches "sender", "link_recv", "receiver"), NULL after them. */
extern const char *const qrdma_stage_names[QRDMA_STAMP_HOPS_MAX + 1][QRDMA_STAGES_MAX];

/* ------------------------------------------------------------------------ memory windows */

/* Remote memory protection (docs/protection.md). A node's memory is closed to remote
 * writes and reads until it registers windows: a DATA or INLINE packet is written only
 * inside a window of its protection domain (the sender's page) whose remote key it
 * carries and which permits remote writes; otherwise the sender's transfer ends in ERROR
 * with reason QRDMA_ERR_REMOTE_ACCESS. The sender puts the key in struct qrdma_write's
 * rkey. A read (struct qrdma_read) needs a window with remote-read permission at the
 * node read (rkey) and one with local-write permission at the reading node for the data
 * that comes back (lkey). */
#define QRDMA_MR_REMOTE_WRITE 1u
#define QRDMA_MR_REMOTE_READ  2u   /* remote reads (qrdma_read.rkey) may read the window */
#define QRDMA_MR_LOCAL_WRITE  4u   /* this node's reads (qrdma_read.lkey) may land in it */

struct qrdma_mr {
    uint32_t rkey;     /* remote key: index << QRDMA_RKEY_TAG_W | tag (tag 1..255, never 0) */
    uint32_t index;    /* window table entry */
    uint64_t addr;     /* first byte */
    uint64_t len;      /* bytes */
    unsigned pd;       /* protection domain (the senders' page) */
    unsigned access;   /* QRDMA_MR_* */
};

/* Register a window of this node's memory [addr, addr + len) for remote access by
 * protection domain pd (0..NUM_PAGES-1) with `access` (QRDMA_MR_REMOTE_WRITE,
 * QRDMA_MR_REMOTE_READ, QRDMA_MR_LOCAL_WRITE, any of them): takes a free table entry, gives it a tag other than its last
 * one (so a stale key of the entry misses), writes WIN_BASE, WIN_LEN, WIN_CTRL. *out
 * holds the key to give the senders. QRDMA_EINVAL (len 0, addr + len beyond 2^64, bad
 * pd or access), QRDMA_ENOMEM (table full). */
int qrdma_mr_reg(qrdma_node *n, unsigned pd, uint64_t addr, uint64_t len, unsigned access,
                 struct qrdma_mr *out);
/* Deregister: packets checked from then on are refused; the entry is free again. */
int qrdma_mr_dereg(qrdma_node *n, const struct qrdma_mr *mr);
/* Development mode (PROT_CTRL.open): 1 opens all of this node's memory to remote writes
 * (no window check), 0 closes it again (the state after reset). */
int qrdma_prot_open(qrdma_node *n, int open);

/* ------------------------------------------------------------------------ counters */

/* The counters of the QoS engine (CNT_*) and the NIC (TX_*, RX_*), in register order
 * (RX_RSP_PEAK and RX_NTF_PEAK are high-water marks, not counts): the list QRDMA_COUNTERS
 * of qrdma_counters.h, generated from regs/qrdma_regs.rdl (its registers marked qrdma_stat). */
#define QRDMA_CNT_ENUM(name, member) QRDMA_CNT_##name,
enum qrdma_counter {
    QRDMA_COUNTERS(QRDMA_CNT_ENUM)
    QRDMA_CNT_COUNT
};

/* Register name as in docs/registers.md ("CNT_DESC_OK", "RX_NOTIFS", ...), NULL if out of range. */
const char *qrdma_counter_name(enum qrdma_counter c);
/* Device address of the counter's register. */
uint64_t qrdma_counter_addr(enum qrdma_counter c);
/* One counter: one 64-bit register read. */
int qrdma_counter_read(qrdma_node *n, enum qrdma_counter c, uint64_t *val);
/* All counters (QRDMA_CNT_COUNT reads), vals[c] for counter c. */
int qrdma_counters_read(qrdma_node *n, uint64_t vals[QRDMA_CNT_COUNT]);

/* Any register by device address (REG_BASE + offset; QRDMA_REG_* in qrdma_fmt.h). */
int qrdma_reg_read(qrdma_node *n, uint64_t addr, uint64_t *val);
int qrdma_reg_write(qrdma_node *n, uint64_t addr, uint64_t val);

#ifdef __cplusplus
}
#endif

#endif /* QRDMA_H */
