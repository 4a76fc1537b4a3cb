// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_rx_pkg: records passed between the parts of the receive unit qrdma_rx
// (docs/nic.md "Receive unit"): the write command (header processor -> AXI write engine),
// the completion event (header processor -> completion unit), the notification request
// (completion unit -> notification writer) and the fields a notification reports, kept
// per tracking entry. Packet, response and notification layouts come from the generated
// qrdma_fmt_pkg (docs/formats.md).
`default_nettype none

// Not every constant is used by every user of the package.
/* verilator lint_off UNUSEDPARAM */
package qrdma_rx_pkg;

  // Payload beats of one packet: 0 .. MAX_PAYLOAD/64 + 1 = 65 (MAX_PAYLOAD <= 4096).
  localparam int unsigned NBW  = 7;
  // Write-completion counters (tags) of the completion events; 32 bits so that the
  // comparison (completed - tag >= 0, modulo 2^32) stays exact while an event waits.
  localparam int unsigned TAGW = 32;
  localparam int unsigned BAW  = 58;  // beat address: byte address bits 63:6

  // Words of a per-entry table kept in one block RAM in depth: a block RAM holds 2048
  // words of 9 bits (ECP5 DP16KD, UltraScale+ RAMB18), so a table of NENT > 2048 entries
  // is built as NENT / 2048 banks, each read into an output register of its own, selected
  // after those registers (qrdma_sdp_ram BANKS).
  localparam int unsigned BANK_WORDS = 2048;

  // Key of a block-tracking entry: {src_node mod NUM_NODES, tid}, at most 16 bits wide
  // (NUM_NODES <= 64).
  localparam int unsigned KEYW = 16;

  // What a packet asks of the block tracker.
  typedef enum logic [1:0] {
    TRK_NONE    = 2'd0,  // nothing (a dropped packet, an ACK/NACK): passed through in order
    TRK_DATA    = 2'd1,  // a DATA packet of a block
    TRK_INLINE  = 2'd2,  // an INLINE packet (a one-packet block)
    TRK_CONTROL = 2'd3   // a CONTROL packet naming a block
  } trk_op_e;

  // Lookup of one packet in the block tracker.
  typedef struct packed {
    trk_op_e         op;
    logic [KEYW-1:0] key;     // tracking entry: {src_node mod NUM_NODES, tid}
    logic [15:0]     seq;     // echoed by the block's responses, events and MISS answers
    logic [15:0]     gen;     // generation of the use of the TID at the sender (compared)
    logic [7:0]      epoch;   // the sender's epoch (compared)
    logic [8:0]      idx;     // DATA: pkt_idx; INLINE: 0
    logic [8:0]      bp;      // DATA: blk_pkts; INLINE: 1
    logic            notify;  // DATA: last block of a notifying transfer; INLINE: notify
    logic            ask;     // DATA: the header's ask bit (the block's last packet asks too)
  } trk_req_t;

  // The tracker's decision for it.
  typedef struct packed {
    logic acc_wr;    // DATA / INLINE: write its payload (its packet bit was clear)
    logic acc_ctl;   // CONTROL: taken
    logic dup;       // dropped: a duplicate (same generation, bit set / CONTROL already seen)
    logic stale;     // dropped: an older generation than the entry's
    logic first;     // the write is the block's first
    logic evt;       // the block's completion event is due with this packet
    logic ntf;       // ... with a notification
    logic ctl_keep;  // keep this packet's fields for the notification
    logic redo;      // dup of a block whose completion event was issued: answer it again
    logic miss;      // an asking DATA packet written or dup, its block still incomplete:
                     // a MISS answer follows TRK_MISS_LAT cycles later (m_miss_*)
  } trk_dec_t;

  // Cycles from a tracker decision with miss set to its MISS answer (first missing packet
  // and run length, computed in registered stages after the decision).
  localparam int unsigned TRK_MISS_LAT = 5;

  // Operation of a write command.
  typedef enum logic [1:0] {
    OP_SKIP = 2'd0,  // release nbeats beats of the receive buffer (dropped packet)
    OP_RING = 2'd1,  // write nbeats beats from the receive buffer (DATA payload)
    OP_IMM  = 2'd2   // write 1-2 beats of inline payload (INLINE)
  } op_e;

  // Write command, header processor -> AXI write engine (in packet order).
  typedef struct packed {
    op_e             op;
    logic [KEYW-1:0] key;     // RING, IMM: the block's tracking entry
    logic            first;   // RING, IMM: the block's first write (restarts its error state)
    logic [BAW-1:0]  baddr;   // beat address of the first beat (dst_addr[63:6])
    logic [NBW-1:0]  nbeats;  // beats written (RING, IMM) or released (SKIP)
    logic [5:0]      lo;      // lane of the first payload byte (first beat)
    logic [5:0]      hi;      // lane of the last payload byte (last beat)
    logic            split;   // IMM of 2 beats across a 4 KiB boundary: two bursts
    logic [511:0]    data;    // IMM: inline payload at its lanes: byte i at lane (lo + i) mod 64
  } rx_cmd_t;

  // Completion event, header processor -> completion unit (in packet order): a block is
  // complete (and, for the last block of a notifying transfer, its CONTROL is in), or
  // (redo) a duplicate of a block whose completion event was issued arrived. Acted on
  // once the TAGW-bit count of completed write commands reaches wtag.
  typedef struct packed {
    logic            redo;      // a duplicate of a complete block: its response again (ntf 0)
    logic            ntf;       // a notification is due (its fields: the CONTROL table)
    logic            place;     // the last block of a registered notifying transfer is
                                // complete before its CONTROL: reported to the
                                // registration table only (no response, no notification)
    logic            blk;       // a DATA packet of a registered transfer completed the
                                // block: reported to the registration table (block xblk)
    logic            registered; // the transfer is registered: its notification is looked up
    logic [10:0]     xfer;      // the sender's channel (registration key with src_node)
    logic [19:0]     xblk;      // the block's index in its transfer (blk)
    logic [15:0]     xseq;      // the transfer's first sequence number (registration key)
    logic [15:0]     src_node;  // the sender: the response goes there
    logic [KEYW-1:0] key;       // tracking entry (tid = key[9:0])
    logic [15:0]     seq;
    logic [TAGW-1:0] wtag;      // write commands that must be complete (B) first
  } rx_evt_t;

  // A notification waiting for a ring slot (completion unit -> notification writer).
  typedef struct packed {
    logic            registered; // the transfer is registered: look its notification up
    logic [10:0]     xfer;      // the sender's channel
    logic [15:0]     xseq;      // the transfer's first sequence number
    logic [15:0]     src_node;
    logic [KEYW-1:0] key;
    logic [15:0]     seq;
  } rx_ntf_t;

  // What a notification reports of its transfer, kept per tracking entry from the CONTROL
  // (or the notifying INLINE) packet until the notification is written.
  typedef struct packed {
    logic        is_ctrl;   // NET_CONTROL (else NET_INLINE)
    logic [10:0] xfer;
    logic [3:0]  pd;
    logic [32:0] size;
    logic [31:0] tag;
    logic [63:0] dst_addr;
  } rx_ctrl_t;

  // The benchmark stamps a notification reports (docs/fabric.md "Benchmark mode"), kept
  // beside its fields when the receive unit is built with BENCH_STAMPS: the header's
  // stamps (NET_HDR t_post .. hops) and whether it was stamped.
  typedef struct packed {
    logic        stamped;
    logic [1:0]  hops;
    logic [15:0] t_post;
    logic [15:0] t_send;
    logic [63:0] t_sw;
    logic [15:0] t_recv;
  } rx_stamp_t;

  // A registration (NET_REGISTER packet), header processor -> registration stage.
  typedef struct packed {
    logic [15:0]     src_node;
    logic [20:0]     blocks;    // blocks of the transfer
    logic [15:0]     seq;       // its first block's
    logic [15:0]     xseq;      // (the same, from xseq: the registration key)
    rx_ctrl_t        f;         // the notification's fields (is_ctrl set)
  } rx_reg_t;

  // A request to the notification writer (registration stage -> notification writer):
  // a request of the completion unit (fields from the CONTROL table, its ACK held), the
  // same marked skip (its notification was written ahead by the registration table:
  // nothing written, the ACK released), or a receiver-side notification (direct: the
  // fields come with it, no ACK is held for it).
  typedef struct packed {
    logic            skip;
    logic            direct;
    logic [15:0]     src_node;
    logic [KEYW-1:0] key;
    logic [15:0]     seq;
    rx_ctrl_t        f;         // direct: the notification's fields
  } rx_nrq_t;

  // Byte-lane mask of lanes lo..hi (lo <= hi).
  function automatic logic [63:0] lane_mask(input logic [5:0] lo, input logic [5:0] hi);
    return ({64{1'b1}} << lo) & ({64{1'b1}} >> (6'd63 - hi));
  endfunction

endpackage
/* verilator lint_on UNUSEDPARAM */

`default_nettype wire
