// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_qos_seg: the transfer segmenter of the QoS engine ([QoS-RDMA] §3.7, §3.9, §3.10,
// §3.13) with the 66 scheduling queues it serves. Stage 1 picks the first eligible queue
// (strict order, or a new transfer cut through), takes the TID / FID its class needs and
// reads the transfer-table row and the metadata; stage 2 issues a block descriptor, an
// inline or a control packet, writes the pending entry and the metadata, re-queues the
// transfer or completes it (docs/qos.md "Segmenter"). One transfer per cycle; stage 2
// never stalls. Contract: tt_rd_data and meta_rd_data hold the row / entry read in the
// previous cycle; handler actions (s_act_*) are taken when the enqueue and completion
// ports they need are free; the output FIFOs take every record stage 2 makes.
`default_nettype none

module qrdma_qos_seg
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
  import qrdma_qos_pkg::*;
#(
  parameter int unsigned BLOCK_SIZE      = 65536,  // bytes per block, power of 2, 8K..64K
  parameter int unsigned MAX_OUTSTANDING = 2,      // blocks of a transfer in flight (1..4)
  parameter int unsigned CM_MIN_BYTES    = 16384,  // memory transfers >= this: FID classes
  parameter int unsigned MP_MIN_BYTES    = 262144, // multipath transfers >= this: 4xFID
  parameter int unsigned OUT_FIFO_DEPTH  = 4       // block / packet output FIFOs, >= 2
) (
  input  logic                    clk,
  input  logic                    rst,
  input  logic                    en,           // the engine is ready: serve the queues
  // new transfers from the host port
  input  logic                    new_valid,
  output logic                    new_ready,
  input  logic [XW-1:0]           new_xfer,
  input  logic [SZW-1:0]          new_size,
  input  logic                    new_inline,
  input  logic                    new_multipath,
  input  logic [3:0]              new_prio,
  // transfer table read port (row = xfer >> 1, data the next cycle)
  output logic                    tt_rd_en,
  output logic [9:0]              tt_rd_row,
  input  logic [511:0]            tt_rd_data,
  // IDs (qrdma_qos_ids)
  input  logic                    s_tid_valid,
  output logic                    s_tid_ready,
  input  logic [TIDW-1:0]         s_tid_id,
  input  logic                    s_fid1_valid,
  output logic                    s_fid1_ready,
  input  logic [FIDW-1:0]         s_fid1_id,
  input  logic                    s_fid4_valid,
  output logic                    s_fid4_ready,
  input  logic [FIDW-1:0]         s_fid4_id,    // first FID of the group
  // metadata slot (qrdma_qos_meta)
  input  logic                    meta_rd_allow,
  output logic                    meta_rd_en,
  output logic [XW-1:0]           meta_rd_addr,
  input  meta_t                   meta_rd_data,
  output logic                    meta_wr_en,
  output logic [XW-1:0]           meta_wr_addr,
  output meta_t                   meta_wr_data,
  // a TID taken in stage 1 and not used: an aborted TID-only transfer ends (to the pool
  // through qrdma_qos_handler, the cycle after stage 2)
  output logic                    tid_ret_valid,
  output logic [TIDW-1:0]         tid_ret_id,
  // pending-table entry of an issued block or inline packet (qrdma_qos_handler)
  output logic                    pend_wr_en,
  output logic [TIDW-1:0]         pend_wr_tid,
  output pend_t                   pend_wr_data,
  // message-handler actions
  input  logic                    s_act_valid,
  output logic                    s_act_ready,
  input  act_t                    s_act_data,
  // block descriptors to the send unit
  output logic                    m_blk_valid,
  input  logic                    m_blk_ready,
  output logic [BLOCK_DESC_W-1:0] m_blk_data,
  // inline and control packets to the send unit
  output logic                    m_pkt_valid,
  input  logic                    m_pkt_ready,
  output logic [PKT_DESC_W-1:0]   m_pkt_data,
  // completed transfers: channel result and the FIDs to return
  output logic                    cmpl_valid,
  output logic [XW-1:0]           cmpl_xfer,
  output logic                    cmpl_err,
  output logic [3:0]              cmpl_reason,  // ERR_* of the first NACK (cmpl_err)
  output cls_e                    cmpl_cls,
  output logic [FIDW-1:0]         cmpl_fid,
  // event pulses
  output logic                    ev_block,
  output logic                    ev_inline,
  output logic                    ev_control
);

  localparam int unsigned BS_LOG2 = $clog2(BLOCK_SIZE);
  localparam int unsigned OCW     = cnt_w(OUT_FIFO_DEPTH);
  localparam logic [SZW-1:0] CM_MIN = SZW'(CM_MIN_BYTES);
  localparam logic [SZW-1:0] MP_MIN = SZW'(MP_MIN_BYTES);

`ifndef SYNTHESIS
  initial begin
    if (BLOCK_SIZE != (1 << BS_LOG2) || BLOCK_SIZE < 8192 || BLOCK_SIZE > 65536)
      $fatal(1, "qrdma_qos_seg: BLOCK_SIZE must be a power of 2 in 8192..65536");
    if (MAX_OUTSTANDING < 1 || MAX_OUTSTANDING > FLOW_BLOCKS)
      $fatal(1, "qrdma_qos_seg: MAX_OUTSTANDING must be in 1..4");
    if (OUT_FIFO_DEPTH < 2)
      $fatal(1, "qrdma_qos_seg: OUT_FIFO_DEPTH must be >= 2");
    if (CM_MIN_BYTES <= INLINE_MAX || MP_MIN_BYTES < CM_MIN_BYTES)
      $fatal(1, "qrdma_qos_seg: need INLINE_MAX < CM_MIN_BYTES <= MP_MIN_BYTES");
  end
`endif

  // ================================================================ declarations
  logic [NUM_QUEUES-1:0] q_empty;
  logic                  enq_valid;
  logic [QW-1:0]         enq_queue;
  logic [XW-1:0]         enq_xfer;
  logic                  enq_fresh;

  logic                  blk_push, pkt_push;
  block_desc_t           blk_d;
  pkt_desc_t             pkt_d;
  logic [OCW-1:0]        blk_cnt, pkt_cnt;

  logic [SEQW-1:0]       seq_q;
  logic [TIMEW-1:0]      now_q;

  always_ff @(posedge clk) begin
    if (rst) now_q <= '0;
    else     now_q <= now_q + TIMEW'(1);
  end

  // ================================================================ scheduling queues (§3.7)
  logic          s1_fire;
  logic [QW-1:0] s1_q, s1_pick;
  logic [XW-1:0] s1_xfer, s1_head;
  logic          s1_ct;     // cut-through: stage 1 takes the new transfer directly

  qrdma_multi_queue #(.NUM_QUEUES(NUM_QUEUES), .NUM_ENTRIES(NUM_CHANNELS)) u_queues (
    .clk, .rst,
    .enq_valid(enq_valid), .enq_queue(enq_queue), .enq_entry(enq_xfer),
    .deq_valid(s1_fire && !s1_ct), .deq_queue(s1_pick), .deq_entry(s1_head),
    .empty(q_empty)
  );

  // "fresh" bit of each transfer in the TID queue ([QoS-RDMA] §3.9.1: the extra bit of
  // the queue head): set when the host queues a new transfer, clear on every re-queue.
  // Only a transfer dequeued from the TID queue uses it, so the bits form a FIFO beside
  // that queue (pushed with its enqueues, popped with its dequeues): the head bit is ready
  // at the start of the cycle, not looked up from the dequeued transfer.
  logic fresh_push, fresh_pop, fresh_head, fresh_valid;
  assign fresh_push = enq_valid && (enq_queue == Q_TID);
  assign fresh_pop  = s1_fire && !s1_ct && (s1_pick == Q_TID);
  /* verilator lint_off PINCONNECTEMPTY */  // s_ready, count: the TID queue bounds the FIFO's fill
  qrdma_sync_fifo #(.WIDTH(1), .DEPTH(NUM_CHANNELS), .RAM_MIN_DEPTH(NUM_CHANNELS + 1)) u_fresh (
    .clk, .rst,
    .s_valid(fresh_push), .s_ready(), .s_data(enq_fresh),
    .m_valid(fresh_valid), .m_ready(fresh_pop), .m_data(fresh_head),
    .count(), .almost_full()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // ================================================================ stage 1
  logic [NUM_QUEUES-1:0] q_elig;
  logic                  s1_any;
  logic                  out_room;

  // A queue is eligible when it is not empty and the ID its class takes is available:
  // constant masks of the queues that take each kind of ID.
  function automatic logic [NUM_QUEUES-1:0] queue_range(input int unsigned lo,
                                                         input int unsigned hi);
    logic [NUM_QUEUES-1:0] m;
    for (int unsigned q = 0; q < NUM_QUEUES; q++) m[q] = (q >= lo && q < hi);
    return m;
  endfunction
  localparam logic [NUM_QUEUES-1:0] TID_QS  = queue_range(32'(Q_TID), 32'(Q_TID) + 1);
  localparam logic [NUM_QUEUES-1:0] FID1_QS = queue_range(32'(Q_FID1_NEED), 32'(Q_FID4_HAVE));
  localparam logic [NUM_QUEUES-1:0] FID4_QS = queue_range(32'(Q_FID4_NEED), NUM_QUEUES);

  assign q_elig = ~q_empty & ~(TID_QS & {NUM_QUEUES{!s_tid_valid}})
                & ~(FID1_QS & {NUM_QUEUES{!s_fid1_valid}})
                & ~(FID4_QS & {NUM_QUEUES{!s_fid4_valid}});

  /* verilator lint_off PINCONNECTEMPTY */  // gnt: only the index of the grant is used
  qrdma_arb_fixed #(.N(NUM_QUEUES)) u_pick (
    .req(q_elig), .gnt(), .gnt_valid(s1_any), .gnt_idx(s1_pick)
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // Cut-through (saves the enqueue cycle on an idle engine): a new transfer whose queue
  // is empty and that no eligible queue of higher or equal priority precedes is taken by
  // stage 1 directly, in the cycle it is offered, without being queued.
  logic [QW-1:0]         new_q;
  logic                  new_q_ok;
  logic [NUM_QUEUES-1:0] ahead_mask;
  // new_q is used only with new_valid (cut-through, enqueue): undefined without it.
  always_comb begin
    new_q      = 'x;
    new_q_ok   = 'x;
    ahead_mask = 'x;
    s1_ct      = 1'b0;
    if (new_valid) begin
      new_q = new_queue(new_inline, new_size, new_multipath, new_prio, CM_MIN, MP_MIN);
      if (new_q == Q_TID)                                   new_q_ok = s_tid_valid;
      else if (new_q >= Q_FID1_NEED && new_q < Q_FID4_HAVE) new_q_ok = s_fid1_valid;
      else if (new_q >= Q_FID4_NEED)                        new_q_ok = s_fid4_valid;
      else                                                  new_q_ok = 1'b1;
      // queues 0..new_q (new_q < NUM_QUEUES)
      ahead_mask = {NUM_QUEUES{1'b1}} >> (QW'(NUM_QUEUES - 1) - new_q);
      s1_ct      = q_empty[new_q] && !(|(q_elig & ahead_mask)) && new_q_ok;
    end
  end

  // stage 2 never finds an output FIFO full: stage 1 fires with room for two records
  assign out_room = (blk_cnt <= OCW'(OUT_FIFO_DEPTH - 2)) && (pkt_cnt <= OCW'(OUT_FIFO_DEPTH - 2));
  assign s1_fire  = en && (s1_any || s1_ct) && out_room && meta_rd_allow;
  assign s1_q     = s1_ct ? new_q : s1_pick;
  assign s1_xfer  = s1_ct ? new_xfer : s1_head;

  assign s_tid_ready  = s1_fire && (s1_q == Q_TID);
  assign s_fid1_ready = s1_fire && (s1_q >= Q_FID1_NEED) && (s1_q < Q_FID4_HAVE);
  assign s_fid4_ready = s1_fire && (s1_q >= Q_FID4_NEED);

  assign tt_rd_en     = s1_fire;
  assign tt_rd_row    = s1_xfer[XW-1:1];
  assign meta_rd_en   = s1_fire;
  assign meta_rd_addr = s1_xfer;

  // stage 2 registers
  logic            s2_valid_q;
  logic [XW-1:0]   s2_xfer_q;
  logic            s2_ctrl_q;    // from the control queue
  cls_e            s2_qcls_q;    // class of the queue (of a transfer not from the control queue)
  logic            s2_fresh_q;   // fresh: no metadata yet (never from the control queue)
  logic [TIDW-1:0] s2_tid_q;
  logic [FIDW-1:0] s2_fid_q;

  always_ff @(posedge clk) begin
    if (rst) s2_valid_q <= 1'b0;
    else     s2_valid_q <= s1_fire;
    if (s1_fire) begin
      s2_xfer_q  <= s1_xfer;
      // a transfer is fresh at its first dequeue: a TID-only one by its fresh bit (the
      // cut-through one is new), a FID one by coming from a need-FID queue
      s2_ctrl_q  <= (s1_q == Q_CTRL);
      s2_qcls_q  <= queue_cls(s1_q);
      s2_fresh_q <= (s1_q == Q_TID) ? (s1_ct || fresh_head)
                  : ((s1_q >= Q_FID1_NEED && s1_q < Q_FID4_HAVE) || s1_q >= Q_FID4_NEED);
      s2_tid_q   <= s_tid_id;
      s2_fid_q   <= s_fid4_ready ? s_fid4_id : s_fid1_id;
    end
  end

  // ================================================================ stage 2
  meta_t              meta_q;      // the transfer's metadata before this issue
  meta_t              meta_d;      // ... and after it
  cls_e               s2_cls;
  logic               s2_ctrl, s2_inline, s2_fresh, s2_abort_path;
  logic [SZW-1:0]     size;
  logic [BS_LOG2-1:0] o;
  logic [SZW:0]       span;
  logic [BW-1:0]      blocks, b, issued_d;
  logic [BS_LOG2:0]   first_sz;
  logic [SZW:0]       offset;
  logic [16:0]        bsize;
  logic               last_blk, requeue, ctrl_now;
  logic [FIDW-1:0]    f0;
  blk_ids_t           ids;
  logic [3:0]         slot, slot_next;
  logic [15:0]        tid_busy_d;
  logic [BW-1:0]      outst_d;     // blocks in flight after this issue
  logic [QW-1:0]      hq;
  logic               s2_issue;    // a block descriptor is issued
  logic               s2_enq;      // stage 3 uses the enqueue port (re-queue)
  logic               s2_cmpl;     // stage 3 uses the completion port
  logic               s2_cmpl_err;
  logic               s2_meta_wr;
  logic               s2_tid_unused; // the TID taken in stage 1 goes back

  // The descriptor lines of stage 2's transfer: plain nets (a variable the process below
  // assigned on the s2_valid_q branch only would keep its value through a loop in
  // synthesis).
  /* verilator lint_off UNUSEDSIGNAL */  // only some fields of the descriptor lines are used
  desc_line0_t d0;
  desc_line1_t d1;
  /* verilator lint_on UNUSEDSIGNAL */
  assign d0 = desc_line0_t'(s2_xfer_q[0] ? tt_rd_data[511:256] : tt_rd_data[255:0]);
  assign d1 = desc_line1_t'(tt_rd_data[511:256]);

  // Stage 2 computes only in a cycle with s2_valid_q: every result is used only then (the
  // enables -- pushes, writes, enqueue, completion -- are 0 in the other cycles, which
  // leave the data undefined ('x: no logic in synthesis, no work in a cycle-based
  // simulation).
  always_comb begin
    s2_issue    = 1'b0;
    s2_enq      = 1'b0;
    s2_cmpl     = 1'b0;
    s2_cmpl_err = 1'b0;
    s2_meta_wr  = 1'b0;
    s2_tid_unused = 1'b0;
    blk_push    = 1'b0;
    pkt_push    = 1'b0;
    meta_q = 'x; meta_d = 'x; blk_d = 'x; pkt_d = 'x;
    s2_ctrl = 'x; s2_cls = cls_e'('x); s2_fresh = 'x; s2_inline = 'x; s2_abort_path = 'x;
    size = 'x; o = 'x; span = 'x; blocks = 'x; b = 'x; issued_d = 'x; first_sz = 'x;
    offset = 'x; bsize = 'x; last_blk = 'x; requeue = 'x; ctrl_now = 'x; f0 = 'x;
    ids = 'x; slot = 'x; slot_next = 'x; tid_busy_d = 'x; outst_d = 'x; hq = 'x;
    pend_wr_data = 'x;
    if (s2_valid_q) begin
      s2_ctrl   = s2_ctrl_q;
      // the class: the queue's, or the metadata's for the control queue (which issues
      // nothing: only its completion uses the class)
      s2_cls    = s2_ctrl ? meta_rd_data.cls : s2_qcls_q;
      s2_fresh  = s2_fresh_q;
      meta_q    = s2_fresh ? '0 : meta_rd_data;
      s2_inline = d0.is_inline && !s2_ctrl;
      s2_abort_path = !s2_fresh && meta_q.aborted;

      // segmentation (docs/qos.md "Segmentation")
      size     = SZW'(d0.size);
      o        = d0.dst_addr[BS_LOG2-1:0];
      span     = (SZW+1)'(o) + (SZW+1)'(size);
      blocks   = BW'((span + (SZW+1)'(BLOCK_SIZE - 1)) >> BS_LOG2);
      first_sz = (BS_LOG2+1)'(BLOCK_SIZE) - (BS_LOG2+1)'(o);
      b        = meta_q.issued;
      issued_d = b + BW'(1);
      last_blk = (issued_d == blocks);
      offset   = (b == '0) ? '0 : (SZW+1)'(first_sz) + ((SZW+1)'(b - BW'(1)) << BS_LOG2);
      if (blocks == BW'(1))      bsize = 17'(size);
      else if (b == '0)          bsize = 17'(first_sz);
      else if (last_blk)         bsize = 17'(span - ((SZW+1)'(b) << BS_LOG2));
      else                       bsize = 17'(BLOCK_SIZE);

      // IDs
      f0 = s2_fresh ? s2_fid_q : meta_q.fid;
      unique case (s2_qcls_q)
        CLS_FID1: begin
          ids       = frog_leap(1'b0, f0, b[3:0]);
          slot      = tid_slot(1'b0, b[3:0]);
          slot_next = tid_slot(1'b0, issued_d[3:0]);
          hq        = Q_FID1_HAVE + QW'(d0.prio);
        end
        CLS_FID4: begin
          ids       = frog_leap(1'b1, f0, b[3:0]);
          slot      = tid_slot(1'b1, b[3:0]);
          slot_next = tid_slot(1'b1, issued_d[3:0]);
          hq        = Q_FID4_HAVE + QW'(d0.prio);
        end
        default: begin  // TID-only
          ids.fid   = '0;
          ids.tid   = s2_tid_q;
          slot      = '0;
          slot_next = '0;
          hq        = Q_TID;
        end
      endcase
      tid_busy_d = (s2_qcls_q == CLS_TID) ? 16'h0 : (meta_q.tid_busy | (16'h1 << slot));
      outst_d    = issued_d - meta_q.acked;
      requeue    = !last_blk && (outst_d < BW'(MAX_OUTSTANDING)) && !tid_busy_d[slot_next];
      ctrl_now   = last_blk && d0.notify && (meta_q.acked == blocks - BW'(1));

      s2_issue = !s2_ctrl && !s2_inline && !s2_abort_path;
      s2_enq   = s2_issue && requeue;
      meta_d   = meta_q;
      pkt_d    = '0;

      blk_d = '0;
      blk_d.src_addr = d0.src_addr + 64'(offset);
      blk_d.dst_addr = d0.dst_addr + 64'(offset);
      blk_d.dst_node = d0.dst_node;
      blk_d.pd       = s2_xfer_q[XW-1:7];
      blk_d.tid      = ids.tid;
      blk_d.seq      = seq_q;
      blk_d.size     = bsize;
      blk_d.cm       = (s2_qcls_q != CLS_TID);
      blk_d.chained  = (s2_qcls_q != CLS_TID) && (b != '0);
      blk_d.has_next = (s2_qcls_q != CLS_TID) && !last_blk;
      blk_d.notify   = last_blk && d0.notify;
      blk_d.last     = last_blk;
      blk_d.fid      = ids.fid;
      blk_d.path     = (s2_qcls_q == CLS_FID4) ? b[1:0] : 2'b00;
      blk_d.xfer     = s2_xfer_q;
      blk_d.block    = b;

      // control packet fields shared by both ways of sending it
      pkt_d.dst_node = d0.dst_node;
      pkt_d.pd       = s2_xfer_q[XW-1:7];
      pkt_d.dst_addr = d0.dst_addr;
      pkt_d.xfer     = s2_xfer_q;
      pkt_d.size     = size;
      pkt_d.tag      = d0.tag;

      if (s2_ctrl) begin
        // dequeued from the control queue (§3.11): send the control packet, or finish an
        // aborted transfer
        s2_meta_wr  = 1'b1;
        meta_d.in_q = 1'b0;
        if (meta_q.aborted) begin
          s2_cmpl     = (meta_q.acked == meta_q.issued);
          s2_cmpl_err = 1'b1;
        end else begin
          pkt_push         = 1'b1;
          pkt_d.kind       = 1'(PKT_CONTROL);
          pkt_d.tid        = meta_q.last_tid;
          pkt_d.seq        = meta_q.last_seq;
          pkt_d.blocks     = 21'(meta_q.blocks);
          meta_d.ctrl_sent = 1'b1;
          s2_cmpl          = (meta_q.acked == meta_q.blocks);
        end
      end else if (s2_inline) begin
        pkt_push       = 1'b1;
        pkt_d.kind     = 1'(PKT_INLINE);
        pkt_d.tid      = s2_tid_q;
        pkt_d.seq      = seq_q;
        pkt_d.len      = 6'(size);
        pkt_d.size     = size;
        pkt_d.notify   = d0.notify;
        // bytes past the payload length are zero (a short descriptor's row half
        // belongs to another channel)
        pkt_d.payload  = {d1.inline_hi, d0.src_addr} & ((256'(1) << {size[5:0], 3'b000}) - 256'(1));
      end else if (s2_abort_path) begin
        s2_meta_wr    = 1'b1;
        meta_d.in_q   = 1'b0;
        s2_cmpl       = (meta_q.acked == meta_q.issued);
        s2_cmpl_err   = 1'b1;
        s2_tid_unused = (s2_qcls_q == CLS_TID);   // dequeued from the TID queue
      end else begin
        blk_push = 1'b1;
        s2_meta_wr = 1'b1;
        meta_d.issued    = issued_d;
        meta_d.acked     = meta_q.acked;
        meta_d.blocks    = blocks;
        meta_d.fid       = f0;
        meta_d.tid_busy  = tid_busy_d;
        meta_d.in_q      = requeue;
        meta_d.notify    = d0.notify;
        meta_d.ctrl_sent = ctrl_now;
        meta_d.aborted   = 1'b0;
        if (last_blk) begin
          meta_d.last_tid = ids.tid;
          meta_d.last_seq = seq_q;
        end
        meta_d.hq  = hq;
        meta_d.cls = s2_qcls_q;
        if (ctrl_now) begin
          pkt_push     = 1'b1;
          pkt_d.kind   = 1'(PKT_CONTROL);
          pkt_d.tid    = ids.tid;
          pkt_d.seq    = seq_q;
          pkt_d.blocks = 21'(blocks);
        end
      end

      // pending-table entry of an issued block or inline packet
      pend_wr_data        = '0;
      pend_wr_data.seq    = seq_q;
      pend_wr_data.xfer   = s2_xfer_q;
      pend_wr_data.block  = s2_inline ? '0 : b;
      pend_wr_data.single = s2_inline || (blocks == BW'(1));
      pend_wr_data.cls    = s2_inline ? CLS_TID : s2_qcls_q;
      pend_wr_data.fid    = f0;
      pend_wr_data.time_  = now_q;
    end
  end

  assign pend_wr_en   = s2_issue || (s2_valid_q && s2_inline);
  assign pend_wr_tid  = s2_inline ? s2_tid_q : ids.tid;
  assign meta_wr_en   = s2_valid_q && s2_meta_wr;
  assign meta_wr_addr = s2_xfer_q;
  assign meta_wr_data = meta_d;

  always_ff @(posedge clk) begin
    if (pend_wr_en) seq_q <= seq_q + SEQW'(1);
    if (rst)        seq_q <= '0;
  end

  logic            tid_ret_q;
  logic [TIDW-1:0] tid_ret_id_q;
  always_ff @(posedge clk) begin
    if (rst) tid_ret_q <= 1'b0;
    else     tid_ret_q <= s2_tid_unused;
    if (s2_tid_unused) tid_ret_id_q <= s2_tid_q;
  end
  assign tid_ret_valid = tid_ret_q;
  assign tid_ret_id    = tid_ret_id_q;

  // ================================================================ output FIFOs
  /* verilator lint_off PINCONNECTEMPTY */  // s_ready, almost_full: stage 1 checks the counts
  qrdma_sync_fifo #(.WIDTH(BLOCK_DESC_W), .DEPTH(OUT_FIFO_DEPTH)) u_blk_fifo (
    .clk, .rst,
    .s_valid(blk_push), .s_ready(), .s_data(blk_d),
    .m_valid(m_blk_valid), .m_ready(m_blk_ready), .m_data(m_blk_data),
    .count(blk_cnt), .almost_full()
  );
  qrdma_sync_fifo #(.WIDTH(PKT_DESC_W), .DEPTH(OUT_FIFO_DEPTH)) u_pkt_fifo (
    .clk, .rst,
    .s_valid(pkt_push), .s_ready(), .s_data(pkt_d),
    .m_valid(m_pkt_valid), .m_ready(m_pkt_ready), .m_data(m_pkt_data),
    .count(pkt_cnt), .almost_full()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // ================================================================ stage 3
  // Stage 2's re-queue and completion are registered and use their ports in the next
  // cycle: the decision, which waits for the metadata and the table row out of block RAM,
  // ends in these flops, not in the scheduling queues' head registers, the ID pools or
  // the handler's action handshake.
  logic            s3_enq_q, s3_cmpl_q, s3_cmpl_err_q;
  logic [QW-1:0]   s3_enq_queue_q;
  logic [XW-1:0]   s3_xfer_q;
  logic [3:0]      s3_reason_q;
  cls_e            s3_cls_q;
  logic [FIDW-1:0] s3_fid_q;

  always_ff @(posedge clk) begin
    if (rst) begin
      s3_enq_q  <= 1'b0;
      s3_cmpl_q <= 1'b0;
    end else begin
      s3_enq_q  <= s2_enq;
      s3_cmpl_q <= s2_cmpl;
    end
    if (s2_enq || s2_cmpl) s3_xfer_q <= s2_xfer_q;
    if (s2_enq) s3_enq_queue_q <= hq;
    if (s2_cmpl) begin
      s3_cmpl_err_q <= s2_cmpl_err;
      s3_reason_q   <= meta_q.reason;
      s3_cls_q      <= s2_cls;
      s3_fid_q      <= meta_q.fid;
    end
  end

  // ================================================================ enqueue port
  // stage 3 re-queue > handler action > new transfer from the host. A handler action is
  // taken when neither port it needs is used by stage 3.
  assign s_act_ready = (!s_act_data.enq || !s3_enq_q) && (!s_act_data.cmpl || !s3_cmpl_q);

  always_comb begin
    enq_valid = 1'b0;
    enq_queue = '0;
    enq_xfer  = '0;
    enq_fresh = 1'b0;
    new_ready = s1_fire && s1_ct;
    if (s3_enq_q) begin
      enq_valid = 1'b1;
      enq_queue = s3_enq_queue_q;
      enq_xfer  = s3_xfer_q;
    end else if (s_act_valid && s_act_ready && s_act_data.enq) begin
      enq_valid = 1'b1;
      enq_queue = s_act_data.q;
      enq_xfer  = s_act_data.xfer;
    end else begin
      new_ready = en;
      enq_valid = new_valid && en && !(s1_fire && s1_ct);
      enq_queue = new_q;
      enq_xfer  = new_xfer;
      enq_fresh = 1'b1;
    end
  end

  // ================================================================ completion port
  // stage 3 > handler action
  always_comb begin
    if (s3_cmpl_q) begin
      cmpl_valid  = 1'b1;
      cmpl_err    = s3_cmpl_err_q;
      cmpl_reason = s3_reason_q;
      cmpl_xfer   = s3_xfer_q;
      cmpl_cls    = s3_cls_q;
      cmpl_fid    = s3_fid_q;
    end else begin
      cmpl_valid  = s_act_valid && s_act_ready && s_act_data.cmpl;
      cmpl_err    = s_act_data.err;
      cmpl_reason = s_act_data.reason;
      cmpl_xfer   = s_act_data.xfer;
      cmpl_cls    = s_act_data.cls;
      cmpl_fid    = s_act_data.fid;
    end
  end

  // ================================================================ events
  assign ev_block   = blk_push;
  assign ev_inline  = s2_valid_q && s2_inline;
  assign ev_control = pkt_push && !(s2_valid_q && s2_inline);

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    // each check nested under its push (docs/sim.md "Speed")
    if (blk_push)
      if (!rst) assert (blk_cnt != OCW'(OUT_FIFO_DEPTH))
        else $error("qrdma_qos_seg: block FIFO overflow");
    if (pkt_push)
      if (!rst) assert (pkt_cnt != OCW'(OUT_FIFO_DEPTH))
        else $error("qrdma_qos_seg: packet FIFO overflow");
    if (fresh_pop)
      if (!rst) assert (fresh_valid)
        else $error("qrdma_qos_seg: TID queue dequeued without its fresh bit");
  end
`endif

endmodule

`default_nettype wire
