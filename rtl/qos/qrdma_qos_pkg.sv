// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_qos_pkg: queue numbering, transfer classes, the frog-leap TID/FID mapping, the
// records of the QoS engine's tables and the records its blocks pass to each other
// (docs/qos.md; [QoS-RDMA] §3.2 metadata table, §3.5 pending table, §3.8 IDs, §3.9.1
// queues).
`default_nettype none

/* verilator lint_off UNUSEDPARAM */  // not every constant is used by every user of the package
package qrdma_qos_pkg;

  // ---------------------------------------------------------------- scheduling queues
  localparam int unsigned NUM_PRIO   = 16;                 // intra-priorities per FID class
  localparam int unsigned NUM_QUEUES = 2 + 4 * NUM_PRIO;   // 66 ([QoS-RDMA]: 2 + 4 x intra)
  localparam int unsigned QW         = 7;                  // bits of a queue index
  localparam logic [QW-1:0] Q_CTRL      = 7'd0;            // control packets
  localparam logic [QW-1:0] Q_TID       = 7'd1;            // TID-only (inline, small)
  localparam logic [QW-1:0] Q_FID1_HAVE = 7'd2;            // + prio
  localparam logic [QW-1:0] Q_FID1_NEED = 7'd18;           // + prio
  localparam logic [QW-1:0] Q_FID4_HAVE = 7'd34;           // + prio
  localparam logic [QW-1:0] Q_FID4_NEED = 7'd50;           // + prio

  // transfer classes
  typedef enum logic [1:0] {
    CLS_CTRL = 2'd0,  // (queue 0 only: a transfer waiting to send its control packet)
    CLS_TID  = 2'd1,
    CLS_FID1 = 2'd2,
    CLS_FID4 = 2'd3
  } cls_e;

  // ---------------------------------------------------------------- IDs
  localparam int unsigned TIDW       = 10;   // TIDs 0..1023 (pending-table index)
  localparam int unsigned FIDW       = 8;    // FIDs 128..255
  localparam int unsigned FID1_FIRST = 128;  // 64 1xFIDs: 128..191
  localparam int unsigned FID1_NUM   = 64;
  localparam int unsigned FID4_FIRST = 192;  // 16 groups of 4: 192..255
  localparam int unsigned FID4_NUM   = 16;
  localparam int unsigned FLOW_BLOCKS = 4;   // blocks per flow: TIDs of FID f are 4f..4f+3

  localparam int unsigned XW   = 11;  // transfer (channel) index: page*128 + ch
  localparam int unsigned BW   = 20;  // block index / count (4 GiB in 4 KiB blocks)
  localparam int unsigned SEQW = 16;  // global sequence number
  localparam int unsigned SZW  = 33;  // transfer size 1..2^32
  localparam int unsigned TIMEW = 32; // issue time (cycles)
  localparam int unsigned DLW  = 16;  // dst_addr bits a new transfer carries: its offset in
                                      // the largest block (64 KiB)

  // Queue of a new transfer (need-FID variants for the FID classes).
  function automatic logic [QW-1:0] new_queue(input logic inl, input logic [SZW-1:0] size,
                                              input logic mp, input logic [3:0] prio,
                                              input logic [SZW-1:0] cm_min,
                                              input logic [SZW-1:0] mp_min);
    if (inl || size < cm_min) return Q_TID;
    else if (mp && size >= mp_min) return Q_FID4_NEED + QW'(prio);
    else return Q_FID1_NEED + QW'(prio);
  endfunction

  // Class of a queue.
  function automatic cls_e queue_cls(input logic [QW-1:0] q);
    if (q == Q_CTRL) return CLS_CTRL;
    else if (q == Q_TID) return CLS_TID;
    else if (q < Q_FID4_HAVE) return CLS_FID1;
    else return CLS_FID4;
  endfunction

  // ---------------------------------------------------------------- frog-leap mapping
  // The IDs of block b of a congestion-managed transfer whose first FID is f0
  // ([QoS-RDMA] §3.8; docs/qos.md "Segmentation"). A flow is FLOW_BLOCKS = 4 blocks, the
  // TIDs of FID f are 4f..4f+3.
  //   1xFID: FID f0 for every block, TID 4 f0 + (b mod 4): the flow's 4 TIDs in turn.
  //   4xFID: the blocks leap from flow to flow of the group: FID f0 + (b mod 4), and
  //          within that flow TID 4 (f0 + b mod 4) + ((b div 4) mod 4). Four consecutive
  //          blocks take four flows (paths), and a TID comes round again after 16 blocks.
  // Only b mod 16 matters. f0 of a 4xFID group is a multiple of 4, so f0 + (b mod 4) has
  // no carry.
  typedef struct packed {
    logic [FIDW-1:0] fid;
    logic [TIDW-1:0] tid;
  } blk_ids_t;

  function automatic blk_ids_t frog_leap(input logic fid4, input logic [FIDW-1:0] f0,
                                         input logic [3:0] b);
    blk_ids_t r;
    if (fid4) begin
      r.fid = f0 + FIDW'(b[1:0]);
      r.tid = {r.fid, b[3:2]};
    end else begin
      r.fid = f0;
      r.tid = {f0, b[1:0]};
    end
    return r;
  endfunction

  // Slot of block b in meta_t.tid_busy: which of the transfer's TIDs it holds (b mod 4 of
  // the one flow of a 1xFID transfer, b mod 16 of the group's 16 TIDs for 4xFID; the
  // frog-leap mapping is one-to-one on those).
  function automatic logic [3:0] tid_slot(input logic fid4, input logic [3:0] b);
    return fid4 ? b : {2'b00, b[1:0]};
  endfunction

  // ---------------------------------------------------------------- metadata table
  // One entry per transfer ([QoS-RDMA] §3.2). Written only through the one
  // read-modify-write slot per cycle that the segmenter and the message handler share
  // (qrdma_qos_meta).
  typedef struct packed {
    logic [BW-1:0]   issued;     // blocks issued
    logic [BW-1:0]   acked;      // blocks acknowledged (ACK or NACK)
    logic [BW-1:0]   blocks;     // blocks of the transfer
    logic [FIDW-1:0] fid;        // FID (1xFID) or first FID of the group (4xFID)
    logic [15:0]     tid_busy;   // TIDs of the flow(s) in flight, by slot (tid_slot)
    logic            in_q;       // in a scheduling queue (or about to be)
    logic            notify;     // transfer has a completion notification
    logic            ctrl_sent;  // control packet sent
    logic            last_acked; // the last block is acknowledged (ACKs may come in any order)
    logic            aborted;    // a block was NACKed: issue no more
    logic [3:0]      reason;     // ERR_* of the first NACK (while aborted)
    logic [TIDW-1:0] last_tid;   // TID of the last block (control packet header)
    logic [SEQW-1:0] last_seq;   // its sequence number
    logic [QW-1:0]   hq;         // home queue (have-ID variant) for re-queueing
    cls_e            cls;
    logic            registered; // registered at its receiver (docs/registration.md)
    logic [SEQW-1:0] first_seq;  // ... the seq of its first block (xseq)
  } meta_t;

  // ---------------------------------------------------------------- pending table
  // One entry per TID ([QoS-RDMA] §3.5), written at issue, read by the message handler;
  // what retransmission will need: issue time, sequence number, transfer, block.
  typedef struct packed {
    logic [SEQW-1:0]  seq;
    logic [XW-1:0]    xfer;
    logic [BW-1:0]    block;
    logic             single;   // the transfer has one block: retire without metadata
    cls_e             cls;
    logic [FIDW-1:0]  fid;      // FID to return when a single-block transfer completes
    logic [TIMEW-1:0] time_;    // issue time
  } pend_t;

  // ---------------------------------------------------------------- handler actions
  // What the message handler asks of the segmenter's enqueue and completion ports after
  // an ACK (qrdma_qos_handler -> qrdma_qos_seg).
  typedef struct packed {
    logic            enq;     // put xfer into queue q
    logic [QW-1:0]   q;
    logic            cmpl;    // the transfer is complete
    logic            err;     // ... in ERROR (aborted by a NACK)
    logic [3:0]      reason;  // ERR_* of its first NACK (err)
    logic [XW-1:0]   xfer;
    cls_e            cls;     // class and FID(s) to return on completion
    logic [FIDW-1:0] fid;
  } act_t;

  // ---------------------------------------------------------------- events
  // One-cycle pulses of the core, counted by the host port's event counters (CNT_*).
  typedef struct packed {
    logic done;     // a transfer completed (DONE or ERROR)
    logic stale;    // an ACK / NACK matched no pending entry: dropped
    logic nack;     // a matching NACK
    logic ack;      // a matching ACK
    logic control;  // a control packet issued
    logic inl;      // an inline packet issued
    logic block;    // a block descriptor issued
  } qos_ev_t;

endpackage
/* verilator lint_on UNUSEDPARAM */

`default_nettype wire
