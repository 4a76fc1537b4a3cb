// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_qos_seg: the transfer segmenter of the QoS engine ([QoS-RDMA] §3.7, §3.9, §3.10,
// §3.13) with the 66 scheduling queues it serves. Pipeline (docs/qos.md "Segmenter"):
// P picks the first eligible queue (strict order, registered); Q requests its head from
// the queues and takes the TID / FID its class needs; D, two cycles later, has the
// transfer (or a new one cut through) and reads its transfer-table row and metadata; R
// waits for the block RAMs; M decides from the row and the metadata (block, inline or
// control packet, metadata, re-queue, completion); W issues: output FIFOs, pending
// entry, metadata write-back, enqueue and completion ports. One transfer per cycle; nothing after D
// stalls. Contract: tt_rd_data and meta_rd_data / meta_fwd_data hold, in M, the row and
// entry read in D; handler actions (s_act_*) are taken when the enqueue and completion
// ports they need are free; the output FIFOs take every record W makes.
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
  parameter int unsigned OUT_FIFO_DEPTH  = 16,     // block / packet output FIFOs, >= 9
  parameter int unsigned REG_MAX_BLOCKS  = 255     // largest transfer registered at its
                                                   // receiver (its REG_MASK_W - 1), >= 2
) (
  input  logic                    clk,
  input  logic                    rst,
  input  logic                    en,           // the engine is ready: serve the queues
  input  logic [31:0]             cfg_reg_thresh, // memory writes with notify of this many
                                                // bytes or more register (0: only flagged ones)
  // new transfers from the host port
  input  logic                    new_valid,
  output logic                    new_ready,
  input  logic [XW-1:0]           new_xfer,
  input  logic [SZW-1:0]          new_size,
  /* verilator lint_off UNUSEDSIGNAL */  // bits BS_LOG2 and up: blocks below 64 KiB
  input  logic [DLW-1:0]          new_dst_lo,   // dst_addr's low bits (offset in the largest block)
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic                    new_inline,
  input  logic                    new_multipath,
  input  logic [3:0]              new_prio,
  // transfer table read port (row = xfer >> 1, read in D, data in M); the table is read
  // in every cycle (no read enable): a row is used only with a transfer in D, which moves
  // on to R and M unconditionally
  output logic [9:0]              tt_rd_row,
  input  logic [511:0]            tt_rd_data,
  input  logic [1:0][STAMP_W:0]   tt_rd_stamp,  // with tt_rd_data: the halves' benchmark stamps, {stamped, t_post}
  // IDs (qrdma_qos_ids): *_more = a second ID follows one taken now
  input  logic                    s_tid_valid,
  input  logic                    s_tid_more,
  output logic                    s_tid_ready,
  input  logic [TIDW-1:0]         s_tid_id,
  input  logic                    s_fid1_valid,
  input  logic                    s_fid1_more,
  output logic                    s_fid1_ready,
  input  logic [FIDW-1:0]         s_fid1_id,
  input  logic                    s_fid4_valid,
  input  logic                    s_fid4_more,
  output logic                    s_fid4_ready,
  input  logic [FIDW-1:0]         s_fid4_id,    // first FID of the group
  // metadata (qrdma_qos_meta): read in D, entry in M, write-back in W
  output logic                    meta_rd_en,
  output logic [XW-1:0]           meta_rd_addr,
  output logic                    meta_deq,      // D holds a dequeued transfer: the slot is ours
  input  logic                    hdl_want,      // the handler waits for the slot: no cut-through
  input  logic                    hdl_refused,   // ... and was refused by a dequeue: no pick
  input  meta_t                   meta_rd_data,  // the entry as read (the segmenter's fields)
  /* verilator lint_off UNUSEDSIGNAL */  // only the fields the handler writes are taken from it
  input  meta_t                   meta_fwd_data, // with the handler's writes forwarded
  /* verilator lint_on UNUSEDSIGNAL */
  output logic                    meta_wr_en,
  output meta_t                   meta_wr_data,
  // a TID taken and not used: an aborted TID-only transfer ends (W; to the pool through
  // qrdma_qos_handler)
  output logic                    tid_ret_valid,
  output logic [TIDW-1:0]         tid_ret_id,
  // pending-table entry of an issued block or inline packet (W; qrdma_qos_handler)
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
  localparam int unsigned OFFW    = BW + BS_LOG2 + 1;   // block offset, with its borrow
  localparam int unsigned BSW     = DLW + 1;            // a block's size, up to the largest
  localparam int unsigned CCW     = cnt_w(NUM_CHANNELS); // a class's entries
  localparam logic [SZW-1:0] CM_MIN = SZW'(CM_MIN_BYTES);
  localparam logic [SZW-1:0] MP_MIN = SZW'(MP_MIN_BYTES);
  // the payload bytes of a stamped packet's t_post (docs/fabric.md "Benchmark mode")
  localparam int unsigned TP_B0 = (PKT_DESC_T_POST_LSB - PKT_DESC_PAYLOAD_LSB) / 8;
  localparam int unsigned TP_B1 = TP_B0 + PKT_DESC_T_POST_W / 8;
  // a transfer of at most REG_MAX_BLOCKS - 1 blocks' bytes has at most REG_MAX_BLOCKS
  // blocks, whatever its offset
  localparam logic [SZW-1:0] REG_MAX_BYTES = SZW'((REG_MAX_BLOCKS - 1) * BLOCK_SIZE);

`ifndef SYNTHESIS
  initial begin
    if (BLOCK_SIZE != (1 << BS_LOG2) || BLOCK_SIZE < 8192 || BLOCK_SIZE > (1 << DLW))
      $fatal(1, "qrdma_qos_seg: BLOCK_SIZE must be a power of 2 in 8192..65536");
    if (MAX_OUTSTANDING < 1 || MAX_OUTSTANDING > FLOW_BLOCKS)
      $fatal(1, "qrdma_qos_seg: MAX_OUTSTANDING must be in 1..4");
    if (OUT_FIFO_DEPTH < 9)
      $fatal(1, "qrdma_qos_seg: OUT_FIFO_DEPTH must be >= 9");
    if (CM_MIN_BYTES <= INLINE_MAX || MP_MIN_BYTES < CM_MIN_BYTES)
      $fatal(1, "qrdma_qos_seg: need INLINE_MAX < CM_MIN_BYTES <= MP_MIN_BYTES");
    if (REG_MAX_BLOCKS < 2 || 64'(REG_MAX_BLOCKS - 1) * 64'(BLOCK_SIZE) >= (64'(1) << 32))
      $fatal(1, "qrdma_qos_seg: REG_MAX_BLOCKS must be >= 2 and its bytes below 4 GiB");
  end
`endif

  // Queue classes of the pick, one-hot, in the order of their queues' numbers.
  localparam int unsigned C_CTRL = 0, C_TID = 1, C_F1H = 2, C_F1N = 3, C_F4H = 4, C_F4N = 5;
  localparam int unsigned NC = 6;

  function automatic logic [NUM_QUEUES-1:0] queue_range(input int unsigned lo,
                                                         input int unsigned hi);
    logic [NUM_QUEUES-1:0] r;
    for (int unsigned q = 0; q < NUM_QUEUES; q++) r[q] = (q >= lo && q < hi);
    return r;
  endfunction
  localparam logic [NUM_QUEUES-1:0] F1N_QS  = queue_range(32'(Q_FID1_NEED), 32'(Q_FID4_HAVE));
  localparam logic [NUM_QUEUES-1:0] F4N_QS  = queue_range(32'(Q_FID4_NEED), NUM_QUEUES);

  // ================================================================ declarations
  logic [NUM_QUEUES-1:0] q_empty, q_multi;
  logic [XW-1:0]         deq_entry;
  logic [TIMEW-1:0]      now_q;
  logic [SEQW-1:0]       seq_q;
  logic                  room_q;       // the output FIFOs take what P .. W can push
  logic                  ct_go_q;      // ... and D holds no dequeued transfer: a cut-through may go
  logic [OCW-1:0]        blk_cnt, pkt_cnt;

  always_ff @(posedge clk) begin
    if (rst) now_q <= '0;
    else     now_q <= now_q + TIMEW'(1);
  end

  // ================================================================ new transfers
  // A two-entry FIFO (NR): new_ready is its room. Its head cuts through into D or is
  // enqueued into its queue. The queue and the single-block bit are decoded on the way in.
  typedef struct packed {
    logic [XW-1:0]      x;
    logic [QW-1:0]      q;
    logic               tid;    // class of the queue: TID-only, 1xFID need, 4xFID need
    logic               f1;
    logic               f4;
    logic               single; // the first block is the last
    logic               fits;   // registers if asked: at most REG_MAX_BYTES
    logic               thr;    // ... and asked by the threshold: cfg_reg_thresh or more
  } nr_t;
  nr_t  nr_in, nr;
  logic nr_v, nr_pop, nr_s_ready;

  // the first block is the last: size <= BS - o (big: size >= 2 BS; sz = size mod 2 BS)
  function automatic logic one_block(input logic big, input logic [BS_LOG2:0] sz,
                                     input logic [BS_LOG2-1:0] o);
    return !big && (((BS_LOG2+2)'(o) + (BS_LOG2+2)'(sz)) <= (BS_LOG2+2)'(BLOCK_SIZE));
  endfunction

  always_comb begin
    nr_in.x   = new_xfer;
    nr_in.q   = new_queue(new_inline, new_size, new_multipath, new_prio, CM_MIN, MP_MIN);
    nr_in.tid = (nr_in.q == Q_TID);
    nr_in.f4  = (nr_in.q >= Q_FID4_NEED);
    nr_in.f1  = !nr_in.tid && !nr_in.f4;
    nr_in.single = one_block(new_size[SZW-1:BS_LOG2+1] != '0, new_size[BS_LOG2:0],
                             new_dst_lo[BS_LOG2-1:0]);
    nr_in.fits   = (new_size <= REG_MAX_BYTES);
    nr_in.thr    = (cfg_reg_thresh != '0) && (new_size >= SZW'(cfg_reg_thresh));
  end

  /* verilator lint_off PINCONNECTEMPTY */  // count, almost_full: s_ready is the room
  qrdma_sync_fifo #(.WIDTH($bits(nr_t)), .DEPTH(2), .HEAD_REG(1'b1)) u_nr (
    .clk, .rst,
    .s_valid(new_valid && en), .s_ready(nr_s_ready), .s_data(nr_in),
    .m_valid(nr_v), .m_ready(nr_pop), .m_data(nr),
    .count(), .almost_full()
  );
  /* verilator lint_on PINCONNECTEMPTY */
  assign new_ready = en && nr_s_ready;

  // ================================================================ scheduling queues (§3.7)
  logic                  enq_v_q, enq_fresh_q;   // the enqueue decided in the last cycle
  // enqueues decided 1, 2 cycles ago: into the TID queue, a need-FID queue (the one of 3
  // cycles ago is counted into kind_*_q)
  logic [1:0]            enq_tid_q, enq_f1n_q, enq_f4n_q;
  logic [QW-1:0]         enq_q_q;
  logic [XW-1:0]         enq_x_q;
  logic                  q_v_q;        // Q: a request, its queue (one-hot) and class
  logic [NUM_QUEUES-1:0] q_oh_q;
  logic [NC-1:0]         q_cls_q;
  logic                  q_tk_tid_q, q_tk_f1_q, q_tk_f4_q;   // ... it takes a TID, 1xFID, 4xFID

  qrdma_multi_queue_pipe #(.NUM_QUEUES(NUM_QUEUES), .NUM_ENTRIES(NUM_CHANNELS)) u_queues (
    .clk, .rst,
    .enq_valid(enq_v_q), .enq_queue(enq_q_q), .enq_entry(enq_x_q),
    .deq_valid(q_v_q), .deq_sel(q_oh_q), .deq_entry(deq_entry),
    .empty(q_empty), .multi(q_multi)
  );

  // "fresh" bit of each transfer in the TID queue ([QoS-RDMA] §3.9.1: the extra bit of
  // the queue head): set when the host queues a new transfer, clear on every re-queue.
  // The bits form a FIFO beside that queue, pushed with its enqueues and popped with its
  // requests, so the head bit is there in Q. Block-RAM form, the head from the RAM's
  // output register: a bit pushed in cycle t is at the head in t + 3, the earliest cycle
  // its transfer is requested (enqueue register in t, in the queues' flags in t + 2,
  // picked then, requested in t + 3).
  logic fresh_push, fresh_pop, fresh_head, fresh_valid;
  assign fresh_push = enq_tid_q[0];   // the enqueue of the last cycle, into the TID queue
  assign fresh_pop  = q_tk_tid_q;
  /* verilator lint_off PINCONNECTEMPTY */  // s_ready, count: the TID queue bounds the fill
  qrdma_sync_fifo #(.WIDTH(1), .DEPTH(NUM_CHANNELS)) u_fresh (
    .clk, .rst,
    .s_valid(fresh_push), .s_ready(), .s_data(enq_fresh_q),
    .m_valid(fresh_valid), .m_ready(fresh_pop), .m_data(fresh_head),
    .count(), .almost_full()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // ================================================================ P: pick
  // The pick is registered a cycle before its request, from flags that do not yet show
  // the request of this cycle: a queue requested now is eligible only with two entries,
  // an ID class only with a second ID when one is taken now (by the request, or by a
  // cut-through that may happen in D now). Strict order: the control queue, the TID
  // queue, then four classes of 16 priorities, each picked by a fixed-priority arbiter;
  // an ID class gates its need queues as a whole, at the choice between the classes, so
  // the arbiters do not wait for it. Whether a class has an eligible queue comes from
  // registers of the class (not from the arbiter over its queues' flags): its entries
  // counted as the queues' flags count them (>= 1, >= 2 flags), and whether the request
  // of this cycle is in the class (it takes one of them).
  logic                  d_deq_q;      // D holds a dequeued transfer (requested in Q)
  logic                  ct_pot;       // a cut-through may take an ID now
  logic                  take_tid, take_fid1, take_fid4, ok_tid, ok_fid1, ok_fid4;
  logic [NUM_QUEUES-1:0] elig;
  logic [3:0][15:0]      cls_gnt;
  logic [3:0]            cls_any;
  logic [3:0]            q_rc_q;       // the request of this cycle is in class c
  logic [3:0]            ce1_q;        // an enqueue into class c takes effect in the queues now
  logic [3:0]            cge1_q, cge2_q, cge3_q;   // class c holds >= 1, 2, 3 entries
  logic [CCW-1:0]        ccnt_q [4];   // ... its entries
  logic [NC-1:0]         top_req, top_gnt;
  logic                  pick_en;
  logic [NUM_QUEUES-1:0] pick_oh;

  assign ct_pot    = nr_v && !d_deq_q;
  assign take_tid  = q_tk_tid_q || (ct_pot && nr.tid);
  assign take_fid1 = q_tk_f1_q  || (ct_pot && nr.f1);
  assign take_fid4 = q_tk_f4_q  || (ct_pot && nr.f4);
  assign ok_tid    = take_tid  ? s_tid_more  : s_tid_valid;
  assign ok_fid1   = take_fid1 ? s_fid1_more : s_fid1_valid;
  assign ok_fid4   = take_fid4 ? s_fid4_more : s_fid4_valid;

  assign elig = (q_oh_q & q_multi) | (~q_oh_q & ~q_empty);

  /* verilator lint_off UNUSEDSIGNAL */  // gnt_valid: only the simulation's check takes it
  logic [3:0]            cls_arb_any;
  /* verilator lint_on UNUSEDSIGNAL */
  for (genvar c = 0; c < 4; c++) begin : gen_cls
    qrdma_arb_fixed #(.N(16)) u_arb (
      /* verilator lint_off PINCONNECTEMPTY */  // the index: the grant is used one-hot
      .req(elig[2 + 16 * c +: 16]), .gnt(cls_gnt[c]), .gnt_valid(cls_arb_any[c]), .gnt_idx()
      /* verilator lint_on PINCONNECTEMPTY */
    );
    // a queue of the class is eligible: an entry left after the request of this cycle
    assign cls_any[c] = q_rc_q[c] ? cge2_q[c] : cge1_q[c];
  end

  // the class counts: +1 where an enqueue takes effect in the queues (the cycle after
  // their enqueue register), -1 with a request, as the queues count their entries
  always_ff @(posedge clk) begin
    for (int unsigned c = 0; c < 4; c++) begin
      ce1_q[c] <= enq_v_q && (enq_q_q >= QW'(2 + 16 * c)) && (enq_q_q < QW'(18 + 16 * c));
      if (ce1_q[c] != q_rc_q[c]) begin
        if (ce1_q[c]) begin
          ccnt_q[c] <= ccnt_q[c] + CCW'(1);
          cge1_q[c] <= 1'b1;
          cge2_q[c] <= cge1_q[c];
          cge3_q[c] <= cge2_q[c];
        end else begin
          ccnt_q[c] <= ccnt_q[c] - CCW'(1);
          cge1_q[c] <= cge2_q[c];
          cge2_q[c] <= cge3_q[c];
          cge3_q[c] <= (ccnt_q[c] >= CCW'(4));
        end
      end
    end
    if (rst) begin
      for (int unsigned c = 0; c < 4; c++) ccnt_q[c] <= '0;
      ce1_q  <= '0;
      cge1_q <= '0;
      cge2_q <= '0;
      cge3_q <= '0;
    end
  end
  assign top_req = {cls_any[3] && ok_fid4, cls_any[2], cls_any[1] && ok_fid1, cls_any[0],
                    elig[Q_TID] && ok_tid, elig[Q_CTRL]};
  // the choice between the classes: a gate per class of its request and those before it
  // (six bits, no carry chain)
  /* verilator lint_off PINCONNECTEMPTY */  // gnt_valid, index: the grant is used one-hot
  qrdma_arb_fixed #(.N(NC), .CHAIN(1'b0)) u_arb_top (
    .req(top_req), .gnt(top_gnt), .gnt_valid(), .gnt_idx()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  always_comb begin
    pick_oh = '0;
    pick_oh[Q_CTRL] = top_gnt[C_CTRL];
    pick_oh[Q_TID]  = top_gnt[C_TID];
    for (int unsigned c = 0; c < 4; c++) begin
      pick_oh[2 + 16 * c +: 16] = cls_gnt[c] & {16{top_gnt[2 + c]}};
    end
  end

  assign pick_en = en && room_q && !hdl_refused;

  always_ff @(posedge clk) begin
    if (rst) begin
      q_v_q      <= 1'b0;
      q_oh_q     <= '0;
      q_tk_tid_q <= 1'b0;
      q_tk_f1_q  <= 1'b0;
      q_tk_f4_q  <= 1'b0;
      q_rc_q     <= '0;
    end else begin
      q_v_q      <= pick_en && (|top_req);
      q_oh_q     <= pick_en ? pick_oh : '0;
      // the request's ID takes, flops of their own (q_v_q fans out over the queues)
      q_tk_tid_q <= pick_en && top_gnt[C_TID];
      q_tk_f1_q  <= pick_en && top_gnt[C_F1N];
      q_tk_f4_q  <= pick_en && top_gnt[C_F4N];
      for (int unsigned c = 0; c < 4; c++) q_rc_q[c] <= pick_en && top_gnt[2 + c];
    end
    q_cls_q <= top_gnt;
  end

  // ================================================================ Q: request, IDs
  // The request's IDs are taken now and registered for D (its transfer arrives from the
  // queues two cycles later); a cut-through takes its own in D (never from the pool the
  // request takes from in that cycle).
  logic            ct;
  logic            q2_v_q, q2_fresh_h_q, d_fresh_q;
  logic [NC-1:0]   q2_cls_q, d_cls_q;
  logic [TIDW-1:0] q2_tid_q, d_tid_q;
  logic [FIDW-1:0] q2_fid_q, d_fid_q;

  assign s_tid_ready  = q_tk_tid_q || (ct && nr.tid);
  assign s_fid1_ready = q_tk_f1_q  || (ct && nr.f1);
  assign s_fid4_ready = q_tk_f4_q  || (ct && nr.f4);

  always_ff @(posedge clk) begin
    if (rst) begin
      q2_v_q  <= 1'b0;
      d_deq_q <= 1'b0;
    end else begin
      q2_v_q  <= q_v_q;
      d_deq_q <= q2_v_q;
    end
    q2_cls_q   <= q_cls_q;
    q2_tid_q   <= s_tid_id;
    q2_fid_q   <= q_cls_q[C_F4N] ? s_fid4_id : s_fid1_id;
    // the fresh bit registered as it leaves the FIFO (the block RAM's output register),
    // chosen by the class a cycle later: a transfer is fresh at its first dequeue, a
    // TID-only one by its fresh bit, a FID one by coming from a need-FID queue
    q2_fresh_h_q <= fresh_head;
    d_cls_q    <= q2_cls_q;
    d_tid_q    <= q2_tid_q;
    d_fid_q    <= q2_fid_q;
    d_fresh_q  <= q2_cls_q[C_TID] ? q2_fresh_h_q : (q2_cls_q[C_F1N] || q2_cls_q[C_F4N]);
  end

  // ================================================================ D: transfer, reads
  // Cut-through (saves the enqueue on an idle engine): the new transfer at the head of NR
  // goes into D directly when no dequeued transfer is there, the handler does not wait for
  // the metadata slot, no queue of its kind holds (or is about to get) a transfer, and its
  // ID is there and not taken by the request of this cycle. Its kind's queues are empty
  // by their flags of the last cycle (registered here), which show the enqueues decided
  // up to four cycles ago; those decided in the last three are counted on their own, the
  // two older ones into the same registers.
  logic          kind_tid_q, kind_f1_q, kind_f4_q;    // ... and no enqueue into them
  logic          ct_ok;
  logic          d_v;
  logic [XW-1:0] d_x;

  always_ff @(posedge clk) begin
    kind_tid_q <= q_empty[Q_TID] && !(|enq_tid_q);
    kind_f1_q  <= &(q_empty | ~F1N_QS) && !(|enq_f1n_q);
    kind_f4_q  <= &(q_empty | ~F4N_QS) && !(|enq_f4n_q);
  end

  always_comb begin
    if (nr.tid)
      ct_ok = kind_tid_q && !enq_tid_q[0] && s_tid_valid && !q_tk_tid_q;
    else if (nr.f1)
      ct_ok = kind_f1_q && !enq_f1n_q[0] && s_fid1_valid && !q_tk_f1_q;
    else
      ct_ok = kind_f4_q && !enq_f4n_q[0] && s_fid4_valid && !q_tk_f4_q;
  end
  assign ct   = en && nr_v && !hdl_want && ct_go_q && ct_ok;
  assign d_v  = d_deq_q || ct;
  assign d_x  = d_deq_q ? deq_entry : nr.x;

  assign tt_rd_row    = d_x[XW-1:1];
  assign meta_rd_en   = d_v;
  assign meta_rd_addr = d_x;
  assign meta_deq     = d_deq_q;

  // A fresh transfer's first block is its last (the descriptor side's last-block test,
  // [QoS-RDMA] §3.9): formed as it enters NR and kept per transfer, written from
  // registers in the cycle after the head leaves NR and read in D like the transfer table
  // (in M from the RAM's output register), so that M decides a fresh transfer from a
  // register, not from the row's o + size. A cut-through's comes along the pipeline (it
  // is read in the cycle it leaves NR). RDW_ANY: a dequeued transfer's entry was written
  // in the cycle after it left NR for the enqueue register, cycles before its dequeue.
  // The registration's size bits (compares of the size) are kept beside it the same way.
  logic          nr_single, sg_rd_data, sg_rd_fits, sg_rd_thr, sg_wr_q, sg_wd_q, sg_wf_q, sg_wt_q;
  logic [XW-1:0] sg_wa_q;
  assign nr_single = nr.single;

  always_ff @(posedge clk) begin
    sg_wr_q <= nr_pop && !rst;
    sg_wa_q <= nr.x;
    sg_wd_q <= nr_single;
    sg_wf_q <= nr.fits;
    sg_wt_q <= nr.thr;
  end

  qrdma_sdp_ram #(.WIDTH(3), .DEPTH(1 << XW), .OUT_REG(1'b1), .RDW_ANY(1'b1)) u_single (
    .clk,
    .wr_en(sg_wr_q), .wr_be(1'b1), .wr_addr(sg_wa_q), .wr_data({sg_wt_q, sg_wf_q, sg_wd_q}),
    .rd_en(1'b1), .rd_addr(d_x), .rd_oe(1'b1), .rd_data({sg_rd_thr, sg_rd_fits, sg_rd_data})
  );

  // ================================================================ R: block RAMs read
  logic            r_v_q, r_fresh_q, r_ct_q, r_single_q, r_fits_q, r_thr_q;
  logic [XW-1:0]   r_x_q;
  logic [NC-1:0]   r_cls_q;
  logic [TIDW-1:0] r_tid_q;
  logic [FIDW-1:0] r_fid_q;

  always_ff @(posedge clk) begin
    if (rst) r_v_q <= 1'b0;
    else     r_v_q <= d_v;
    r_x_q      <= d_x;
    r_ct_q     <= !d_deq_q;
    r_single_q <= nr_single;
    r_fits_q   <= nr.fits;
    r_thr_q    <= nr.thr;
    if (d_deq_q) begin
      r_cls_q   <= d_cls_q;
      r_fresh_q <= d_fresh_q;
      r_tid_q   <= d_tid_q;
      r_fid_q   <= d_fid_q;
    end else begin
      r_cls_q   <= '0;
      r_cls_q[C_TID] <= nr.tid;
      r_cls_q[C_F1N] <= nr.f1;
      r_cls_q[C_F4N] <= nr.f4;
      r_fresh_q <= 1'b1;
      r_tid_q   <= s_tid_id;
      r_fid_q   <= nr.f4 ? s_fid4_id : s_fid1_id;
    end
  end

  logic            mm_v_q, mm_fresh_q, mm_ct_q, mm_single_q, mm_fits_q, mm_thr_q;
  logic [XW-1:0]   mm_x_q;
  logic [NC-1:0]   mm_cls_q;
  logic [TIDW-1:0] mm_tid_q;
  logic [FIDW-1:0] mm_fid_q;

  always_ff @(posedge clk) begin
    if (rst) mm_v_q <= 1'b0;
    else     mm_v_q <= r_v_q;
    mm_x_q     <= r_x_q;
    mm_cls_q   <= r_cls_q;
    mm_fresh_q <= r_fresh_q;
    mm_ct_q    <= r_ct_q;
    mm_single_q <= r_single_q;
    mm_fits_q  <= r_fits_q;
    mm_thr_q   <= r_thr_q;
    mm_tid_q   <= r_tid_q;
    mm_fid_q   <= r_fid_q;
  end

  // ================================================================ M: decide
  // The descriptor side of the segmentation (the block count, the block sizes, the block
  // offset of a later block) from each half of the row, the transfer's half selected at
  // the end; whether a fresh transfer's first block is its last comes from u_single.
  typedef struct packed {
    logic [BW-1:0]   blocks;
    logic [BSW-1:0]  bf;     // the first block's size when it is not the last: BS - o
    logic [BSW-1:0]  bl;     // a later last block's size: (o + size) mod BS, BS for 0
    logic [OFFW-1:0] off;    // block b's offset from the transfer's addresses
  } desc_seg_t;

  function automatic desc_seg_t desc_seg(input logic [SZW-1:0] sz, input logic [BS_LOG2-1:0] oo,
                                         input logic [BW-1:0] bb);
    logic [BS_LOG2-1:0] sp;   // (o + size) mod BS
    desc_seg_t          r;
    sp       = oo + sz[BS_LOG2-1:0];
    r.blocks = BW'(((SZW+1)'(oo) + (SZW+1)'(sz) + (SZW+1)'(BLOCK_SIZE - 1)) >> BS_LOG2);
    r.bf     = BSW'(BLOCK_SIZE) - BSW'(oo);
    r.bl     = (sp[BS_LOG2-1:0] == '0) ? BSW'(BLOCK_SIZE) : BSW'(sp[BS_LOG2-1:0]);
    r.off    = (OFFW'(bb) << BS_LOG2) - OFFW'(oo);
    return r;
  endfunction

  desc_seg_t seg_lo, seg_hi, seg_x;
  assign seg_lo = desc_seg(tt_rd_data[DESC_LINE0_SIZE_LSB +: SZW],
                           tt_rd_data[DESC_LINE0_DST_ADDR_LSB +: BS_LOG2], meta_rd_data.issued);
  assign seg_hi = desc_seg(tt_rd_data[256 + DESC_LINE0_SIZE_LSB +: SZW],
                           tt_rd_data[256 + DESC_LINE0_DST_ADDR_LSB +: BS_LOG2],
                           meta_rd_data.issued);
  assign seg_x  = mm_x_q[0] ? seg_hi : seg_lo;

  // The inline payload's bytes within its length (byte j: j < size), per row half: a
  // compare per byte, no 256-bit carry; the bytes past the length are cleared in W.
  logic [INLINE_MAX-1:0] pm_lo, pm_hi, pm_x;
  for (genvar j = 0; j < INLINE_MAX; j++) begin : gen_pm
    assign pm_lo[j] = (6'(j) < tt_rd_data[DESC_LINE0_SIZE_LSB +: 6]);
    assign pm_hi[j] = (6'(j) < tt_rd_data[256 + DESC_LINE0_SIZE_LSB +: 6]);
  end
  assign pm_x = mm_x_q[0] ? pm_hi : pm_lo;

  meta_t              mq;          // the transfer's metadata before this issue
  /* verilator lint_off UNUSEDSIGNAL */  // only the fields the long paths take
  meta_t              mo;          // ... as stored (a fresh transfer's zero not chosen)
  /* verilator lint_on UNUSEDSIGNAL */
  logic               last_f, last_o, busy_o;   // last block: fresh / stored; next TID busy
  logic [2:0]         out_o;       // blocks in flight after this issue by the entry, mod 8
  meta_t              meta_d;      // ... and after it
  cls_e               qcls, cls_m;
  logic               ctrl, tidq, fid1, fid4, inl, fresh, abort;
  logic [SZW-1:0]     size;
  logic [BW-1:0]      blocks, b;
  logic               last_blk, requeue, ctrl_now, blk_case;
  logic               reg_f, reg_x, ann;   // registered: fresh / this transfer; announce now
  logic [FIDW-1:0]    f0;
  blk_ids_t           ids;
  logic [3:0]         slot;
  logic [15:0]        tid_busy_d;
  logic [QW-1:0]      hq;
  logic [BSW-1:0]     bsize, bsize_l;
  logic [OFFW-1:0]    off;
  // kinds of what W does
  logic               k_blk, k_pkt, k_pend, k_meta, k_enq, k_cmpl, k_err, k_unused, k_seq;
  block_desc_t        blk_m;
  pkt_desc_t          pkt_m;
  pend_t              pend_m;

  // The descriptor lines: plain nets (a variable assigned on one branch of the process
  // below only would keep its value through a loop in synthesis).
  /* verilator lint_off UNUSEDSIGNAL */  // only some fields of the descriptor lines are used
  desc_line0_t d0;
  desc_line1_t d1;
  /* verilator lint_on UNUSEDSIGNAL */
  assign d0 = desc_line0_t'(mm_x_q[0] ? tt_rd_data[511:256] : tt_rd_data[255:0]);
  assign d1 = desc_line1_t'(tt_rd_data[511:256]);
  // the channel's benchmark stamp: kept beside the table (qrdma_qos_engine), not in line 0
  logic [STAMP_W:0] d0_st;
  assign d0_st = tt_rd_stamp[mm_x_q[0]];

  // Computed only in a cycle with mm_v_q: every result is used only then (the kinds are 0
  // in other cycles, the data undefined: no logic in synthesis, no work in a cycle-based
  // simulation). The segmenter's fields of the entry come as read (no operation of the
  // handler changes them), the handler's with its writes in flight forwarded. Block
  // counts in flight are compared mod 8 (at most MAX_OUTSTANDING <= 4 are).
  always_comb begin
    k_blk = 1'b0; k_pkt = 1'b0; k_pend = 1'b0; k_meta = 1'b0; k_enq = 1'b0;
    k_cmpl = 1'b0; k_err = 1'b0; k_unused = 1'b0; k_seq = 1'b0;
    reg_f = 'x; reg_x = 'x; ann = 'x;
    mq = 'x; meta_d = 'x; blk_m = 'x; pkt_m = 'x; pend_m = 'x;
    qcls = cls_e'('x); cls_m = cls_e'('x);
    ctrl = 'x; tidq = 'x; fid1 = 'x; fid4 = 'x; inl = 'x; fresh = 'x; abort = 'x;
    size = 'x; blocks = 'x; b = 'x; last_blk = 'x; requeue = 'x;
    ctrl_now = 'x; blk_case = 'x; f0 = 'x; ids = 'x; slot = 'x; tid_busy_d = 'x;
    mo = 'x; last_f = 'x; last_o = 'x; busy_o = 'x; out_o = 'x; hq = 'x; bsize = 'x; bsize_l = 'x; off = 'x;
    if (mm_v_q) begin
      ctrl  = mm_cls_q[C_CTRL];
      tidq  = mm_cls_q[C_TID];
      fid1  = mm_cls_q[C_F1H] || mm_cls_q[C_F1N];
      fid4  = mm_cls_q[C_F4H] || mm_cls_q[C_F4N];
      qcls  = tidq ? CLS_TID : (fid1 ? CLS_FID1 : (fid4 ? CLS_FID4 : CLS_CTRL));
      fresh = mm_fresh_q;
      mq = meta_rd_data;
      mq.acked      = meta_fwd_data.acked;
      mq.last_acked = meta_fwd_data.last_acked;
      mq.aborted    = meta_fwd_data.aborted;
      mq.reason     = meta_fwd_data.reason;
      mq.tid_busy   = meta_fwd_data.tid_busy;
      mq.in_q       = meta_fwd_data.in_q;
      // mo: the entry as stored; the decisions on the long paths take it and choose a
      // fresh transfer's (no entry yet) only at their end
      mo = mq;
      if (fresh) mq = '0;
      // the class: the queue's, or the metadata's for the control queue
      cls_m = ctrl ? mq.cls : qcls;
      inl   = d0.is_inline && !ctrl;
      abort = !fresh && mq.aborted;

      // segmentation (docs/qos.md "Segmentation"); a fresh transfer issues block 0
      size    = SZW'(d0.size);
      b       = mq.issued;
      last_f   = mm_ct_q ? mm_single_q : sg_rd_data;
      last_o   = (mo.issued + BW'(1) == mo.blocks);
      last_blk = fresh ? last_f : last_o;
      blocks   = fresh ? seg_x.blocks : mo.blocks;
      off = fresh ? '0 : seg_x.off;
      // the block's size if it is the last one, and if not (the last block chosen in W)
      bsize_l = fresh ? BSW'(size) : seg_x.bl;
      bsize   = fresh ? seg_x.bf : BSW'(BLOCK_SIZE);

      // IDs
      f0 = fresh ? mm_fid_q : mq.fid;
      if (fid1 || fid4) begin
        ids       = fresh ? frog_leap(fid4, mm_fid_q, 4'd0)
                          : frog_leap(fid4, mo.fid, mo.issued[3:0]);
        slot      = tid_slot(fid4, b[3:0]);
        hq        = (fid4 ? Q_FID4_HAVE : Q_FID1_HAVE) + QW'(d0.prio);
      end else begin
        ids.fid   = '0;
        ids.tid   = mm_tid_q;
        slot      = '0;
        hq        = Q_TID;
      end
      tid_busy_d = tidq ? 16'h0 : (mq.tid_busy | (16'h1 << slot));
      // the re-queue and the control packet: a fresh transfer has one block in flight
      // after this issue and no TID busy; another has its next slot's TID busy in its
      // entry (the slot issued now is another)
      out_o      = mo.issued[2:0] + 3'd1 - mo.acked[2:0];
      busy_o     = !tidq && mo.tid_busy[tid_slot(fid4, mo.issued[3:0] + 4'd1)];
      requeue    = fresh ? (!last_f && (3'd1 < 3'(MAX_OUTSTANDING)))
                         : (!last_o && (out_o < 3'(MAX_OUTSTANDING)) && !busy_o);
      ctrl_now   = d0.notify && (fresh ? last_f : (last_o && (out_o == 3'd1)));
      // registration at the receiver (docs/registration.md "At the sender"): a memory
      // write with notify of 2 .. REG_MAX_BLOCKS blocks whose descriptor asks for it, or
      // of cfg_reg_thresh bytes or more (as the transfer came in); its first issue also
      // sends the REGISTER packet (announce)
      reg_f      = (d0.registered || (mm_ct_q ? mm_thr_q : sg_rd_thr))
                   && (mm_ct_q ? mm_fits_q : sg_rd_fits)
                   && d0.notify && !d0.is_inline && !last_f && !mm_x_q[$clog2(WR_CH_PER_PAGE)];
      reg_x      = fresh ? reg_f : mo.registered;
      ann        = fresh && reg_f && !ctrl;

      // The kinds (what W does): the control queue (§3.11) sends the control packet, or
      // finishes an aborted transfer (issued == blocks: the handler queues it only
      // then); an inline transfer sends its packet; an aborted one ends; any other
      // issues a block, with the control packet when it is due.
      blk_case = !ctrl && !inl && !abort;
      k_blk    = blk_case;
      k_pkt    = ctrl ? !mq.aborted : (inl || (!abort && (ctrl_now || ann)));
      k_seq    = !ctrl && (inl || (!abort && (ctrl_now || ann)));
      k_pend   = !ctrl && (inl || !abort);
      k_meta   = !inl;
      k_enq    = blk_case && requeue;
      k_err    = ctrl ? mq.aborted : (!inl && abort);
      k_cmpl   = (ctrl || (!inl && abort)) && (mq.acked[2:0] == mq.issued[2:0]);
      k_unused = !ctrl && !inl && abort && tidq;   // dequeued from the TID queue

      // The records: each field is selected by the queue's class and the inline bit
      // (short paths), not by the decisions; a record is used only with its kind.
      pkt_m = '0;
      pkt_m.kind     = inl ? 1'(PKT_INLINE) : 1'(PKT_CONTROL);
      pkt_m.dst_node = d0.dst_node;
      pkt_m.pd       = mm_x_q[XW-1:7];
      pkt_m.dst_addr = d0.dst_addr;
      pkt_m.xfer     = mm_x_q;
      pkt_m.size     = size;
      pkt_m.tag      = d0.tag;
      pkt_m.tid      = ctrl ? mq.last_tid : (inl ? mm_tid_q : ids.tid);
      pkt_m.seq      = ctrl ? mq.last_seq : '0;   // an inline or due control packet's in W
      // the inline fields as read, the block count whatever the kind: each is cleared in
      // W by the registered kind (no clear here, which would end on the register's reset)
      pkt_m.blocks   = ctrl ? 21'(mq.blocks) : 21'(blocks);
      pkt_m.len      = 6'(size);
      pkt_m.notify   = d0.notify;
      pkt_m.payload  = {d1.inline_hi, d0.src_addr};
      pkt_m.rkey     = d0.long_desc ? d1.rkey : '0;   // the second line's
      pkt_m.registered = reg_x;   // (xseq in W)
      pkt_m.announce   = ann;
      // benchmark mode: the descriptor's stamp (an INLINE carries it up to
      // STAMP_INLINE_MAX bytes, a CONTROL always, a REGISTER never: W clears the flag of
      // a REGISTER by its registered `ann`). Its t_post goes in wherever the bytes are
      // not inline payload (the inline bit and the size: short paths, not the decisions);
      // W clears them unless the packet is stamped. An INLINE's size is 1 .. INLINE_MAX
      // (the host port refuses others): its low six bits are compared, as they are its len.
      pkt_m.stamped    = d0_st[STAMP_W] && (!inl || 6'(size) <= 6'(STAMP_INLINE_MAX));
      if (!inl || 6'(size) <= 6'(STAMP_INLINE_MAX))
        pkt_m[PKT_DESC_T_POST_LSB +: PKT_DESC_T_POST_W] = d0_st[STAMP_W-1:0];

      blk_m = '0;
      blk_m.src_addr = d0.src_addr;   // + off in W
      blk_m.dst_addr = d0.dst_addr;
      blk_m.dst_node = d0.dst_node;
      blk_m.pd       = mm_x_q[XW-1:7];
      blk_m.tid      = ids.tid;
      blk_m.size     = bsize;
      blk_m.cm       = !tidq;
      blk_m.chained  = !tidq && !fresh;
      blk_m.has_next = !tidq && !last_blk;
      blk_m.notify   = last_blk && d0.notify;
      blk_m.last     = last_blk;
      blk_m.fid      = ids.fid;
      blk_m.path     = fid4 ? b[1:0] : 2'b00;
      blk_m.xfer     = mm_x_q;
      blk_m.block    = b;
      blk_m.rkey     = d0.long_desc ? d1.rkey : '0;
      blk_m.registered = reg_x;   // (xseq in W)
      // a read channel's (its page's read half): the local key of its responses
      blk_m.lkey     = (d0.long_desc && mm_x_q[$clog2(WR_CH_PER_PAGE)])
                       ? d1[DESC_LINE1_LKEY_LSB +: DESC_LINE1_LKEY_W] : '0;

      // the entry written back: an issued block's new one; the control queue and an
      // aborted transfer leave the queues (an inline transfer writes none)
      meta_d = mq;
      if (!ctrl && !abort) begin
        meta_d.issued   = b + BW'(1);
        meta_d.blocks   = blocks;
        meta_d.fid      = f0;
        meta_d.tid_busy = tid_busy_d;
        meta_d.notify   = d0.notify;
        meta_d.aborted  = 1'b0;
        meta_d.hq       = hq;
        meta_d.cls      = qcls;
        meta_d.registered = reg_x;
        // first_seq of a fresh transfer in W
        // last_tid, last_seq of the last block in W
      end
      meta_d.in_q      = blk_case && requeue;
      meta_d.ctrl_sent = blk_case ? ctrl_now : (mq.ctrl_sent || (ctrl && !mq.aborted));

      // pending-table entry of an issued block or inline packet (seq, time_ in W)
      pend_m        = '0;
      pend_m.xfer   = mm_x_q;
      pend_m.block  = inl ? '0 : b;
      pend_m.single = inl || (fresh ? last_f : (mo.blocks == BW'(1)));
      pend_m.cls    = inl ? CLS_TID : qcls;
      pend_m.fid    = f0;
    end
  end

  // ================================================================ W: issue
  logic            w_blk_q, w_pkt_q, w_pend_q, w_meta_q, w_enq_q, w_cmpl_q, w_unused_q;
  logic            w_err_q, w_seq_q, w_last_q;
  logic            w_reg_q, w_first_q, w_ann_q;   // registered; its first issue; announce
  logic [SEQW-1:0] w_xseq_q;                      // a later issue's xseq (first_seq)
  block_desc_t     w_blk_q_d;
  pkt_desc_t       w_pkt_q_d;
  pend_t           w_pend_q_d;
  meta_t           w_meta_q_d;
  logic [OFFW-1:0] w_off_q;
  logic [BSW-1:0]  w_bsize_l_q;
  logic [INLINE_MAX-1:0] w_pm_q;
  logic [TIDW-1:0] w_pend_tid_q, w_tid_q;
  logic [XW-1:0]   w_x_q;
  logic [QW-1:0]   w_hq_q;
  logic            w_hq_tid_q;
  logic [3:0]      w_reason_q;
  cls_e            w_cls_q;
  logic [FIDW-1:0] w_fid_q;

  always_ff @(posedge clk) begin
    if (rst) begin
      w_blk_q    <= 1'b0;
      w_pkt_q    <= 1'b0;
      w_pend_q   <= 1'b0;
      w_meta_q   <= 1'b0;
      w_enq_q    <= 1'b0;
      w_cmpl_q   <= 1'b0;
      w_unused_q <= 1'b0;
    end else begin
      w_blk_q    <= k_blk;
      w_pkt_q    <= k_pkt;
      w_pend_q   <= k_pend;
      w_meta_q   <= k_meta;
      w_enq_q    <= k_enq;
      w_cmpl_q   <= k_cmpl;
      w_unused_q <= k_unused;
    end
    w_err_q      <= k_err;
    w_seq_q      <= k_seq;
    w_last_q     <= last_blk && k_blk;
    w_reg_q      <= reg_x;
    w_first_q    <= fresh && !ctrl;
    w_ann_q      <= ann;
    w_xseq_q     <= mo.first_seq;
    w_blk_q_d    <= blk_m;
    w_pkt_q_d    <= pkt_m;
    w_pend_q_d   <= pend_m;
    w_meta_q_d   <= meta_d;
    w_off_q      <= off;
    w_bsize_l_q  <= bsize_l;
    w_pm_q       <= pm_x;
    w_pend_tid_q <= inl ? mm_tid_q : ids.tid;
    w_tid_q      <= mm_tid_q;
    w_x_q        <= mm_x_q;
    w_hq_q       <= hq;
    w_hq_tid_q   <= tidq;
    w_reason_q   <= mq.reason;
    w_cls_q      <= cls_m;
    w_fid_q      <= mq.fid;
  end

  block_desc_t blk_d;
  pkt_desc_t   pkt_d;
  logic [BLOCK_DESC_W-1:0] blk_w;
  logic [PKT_DESC_W-1:0]   pkt_w;
  logic [SEQW-1:0]         xseq;   // a registered transfer's first seq

  always_comb begin
    blk_d          = w_blk_q_d;
    blk_d.src_addr = w_blk_q_d.src_addr + 64'(w_off_q);
    blk_d.dst_addr = w_blk_q_d.dst_addr + 64'(w_off_q);
    blk_d.seq      = seq_q;
    if (w_last_q) blk_d.size = w_bsize_l_q;
    pkt_d          = w_pkt_q_d;
    if (w_seq_q) pkt_d.seq = seq_q;
    // an inline packet has no block count; a control packet no length, notification or
    // payload; an inline payload's bytes past its length are zero (a short descriptor's
    // row half belongs to another channel); a stamped packet keeps its t_post (a
    // REGISTER is not stamped)
    pkt_d.stamped  = w_pkt_q_d.stamped && !w_ann_q;
    if (w_pkt_q_d.kind == 1'(PKT_INLINE)) begin
      pkt_d.blocks = '0;
    end else begin
      pkt_d.len    = '0;
      pkt_d.notify = '0;
    end
    for (int unsigned j = 0; j < INLINE_MAX; j++) begin
      if (!(w_pm_q[j] && w_pkt_q_d.kind == 1'(PKT_INLINE))
          && !(pkt_d.stamped && j >= TP_B0 && j < TP_B1))
        pkt_d.payload[8 * j +: 8] = '0;
    end
    pend_wr_data        = w_pend_q_d;
    pend_wr_data.seq    = seq_q;
    pend_wr_data.time_  = now_q;
    meta_wr_data        = w_meta_q_d;
    if (w_last_q) begin
      meta_wr_data.last_tid = w_pend_tid_q;   // the block's TID
      meta_wr_data.last_seq = seq_q;
    end
    // a registered transfer's block and CONTROL (and REGISTER) carry the seq of its first
    // block (xseq: over a write block's lkey bits, a control packet's payload bits)
    xseq  = w_first_q ? seq_q : w_xseq_q;
    if (w_first_q) meta_wr_data.first_seq = seq_q;
    blk_w = blk_d;
    pkt_w = pkt_d;
    if (w_reg_q) begin
      blk_w[BLOCK_DESC_XSEQ_LSB +: BLOCK_DESC_XSEQ_W] = xseq;
      pkt_w[PKT_DESC_XSEQ_LSB +: PKT_DESC_XSEQ_W]     = xseq;
    end
  end

  assign pend_wr_en  = w_pend_q;
  assign pend_wr_tid = w_pend_tid_q;
  assign meta_wr_en  = w_meta_q;

  always_ff @(posedge clk) begin
    if (w_pend_q) seq_q <= seq_q + SEQW'(1);
    if (rst)      seq_q <= '0;
  end

  assign tid_ret_valid = w_unused_q;
  assign tid_ret_id    = w_tid_q;

  // ================================================================ output FIFOs
  // (each a wide LUT RAM whose write enable fans out over every column: the write side
  // from a copy of s_ready of its own, WE_COPY, off the count's path)
  /* verilator lint_off PINCONNECTEMPTY */  // s_ready, almost_full: P checks the counts
  qrdma_sync_fifo #(.WIDTH(BLOCK_DESC_W), .DEPTH(OUT_FIFO_DEPTH), .WE_COPY(1'b1)) u_blk_fifo (
    .clk, .rst,
    .s_valid(w_blk_q), .s_ready(), .s_data(blk_w),
    .m_valid(m_blk_valid), .m_ready(m_blk_ready), .m_data(m_blk_data),
    .count(blk_cnt), .almost_full()
  );
  qrdma_sync_fifo #(.WIDTH(PKT_DESC_W), .DEPTH(OUT_FIFO_DEPTH), .WE_COPY(1'b1)) u_pkt_fifo (
    .clk, .rst,
    .s_valid(w_pkt_q), .s_ready(), .s_data(pkt_w),
    .m_valid(m_pkt_valid), .m_ready(m_pkt_ready), .m_data(m_pkt_data),
    .count(pkt_cnt), .almost_full()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // Room: a pick in P issues in W six cycles later; with the count a cycle old, every
  // push from that cycle up to its own (eight) must fit.
  // ct_go_q: room_q && !d_deq_q as one register of its own beside the cut-through (room_q
  // sits by the counts and fans out to the pick)
  logic room_d;
  assign room_d = (blk_cnt <= OCW'(OUT_FIFO_DEPTH - 8)) && (pkt_cnt <= OCW'(OUT_FIFO_DEPTH - 8));
  always_ff @(posedge clk) begin
    room_q  <= room_d;
    ct_go_q <= room_d && !q2_v_q;
    if (rst) begin
      room_q  <= 1'b0;
      ct_go_q <= 1'b0;
    end
  end

  // ================================================================ enqueue port
  // W's re-queue > handler action > the head of NR (when it does not cut through), into a
  // register; the queues take it from there into theirs, it takes effect a cycle later. A
  // handler action is taken when neither port it needs is used by W.
  logic          act_take, act_enq, nr_enq, nr_wait;
  logic          enq_v_d, enq_fresh_d;
  logic          enq_tid_d, enq_f1n_d, enq_f4n_d;   // into the TID queue, a need-FID queue
  logic [QW-1:0] enq_q_d;
  logic [XW-1:0] enq_x_d;

  assign s_act_ready = (!s_act_data.enq || !w_enq_q) && (!s_act_data.cmpl || !w_cmpl_q);
  assign act_take    = s_act_valid && s_act_ready;
  assign act_enq     = act_take && s_act_data.enq;
  // NR's head waits for W's re-queue or a handler action's enqueue (that action's ready
  // with W's re-queue off); nr_pop is ct || nr_enq with ct at its last gate (NR's head
  // register's load enable follows it)
  assign nr_wait     = w_enq_q || (s_act_valid && s_act_data.enq && !(s_act_data.cmpl && w_cmpl_q));
  assign nr_enq      = nr_v && !ct && !nr_wait;
  assign nr_pop      = ct || (nr_v && !nr_wait);

  always_comb begin
    // the queue's kind from each source's own bits, not from the chosen queue number: a
    // re-queue goes into the TID queue or a have-FID queue, a new transfer into the TID
    // queue or a need-FID queue
    enq_v_d     = 1'b1;
    enq_fresh_d = 1'b0;
    if (w_enq_q) begin
      enq_q_d   = w_hq_q;
      enq_x_d   = w_x_q;
      enq_tid_d = w_hq_tid_q;
      enq_f1n_d = 1'b0;
      enq_f4n_d = 1'b0;
    end else if (act_enq) begin
      enq_q_d   = s_act_data.q;
      enq_x_d   = s_act_data.xfer;
      enq_tid_d = (s_act_data.q == Q_TID);
      enq_f1n_d = (s_act_data.q >= Q_FID1_NEED) && (s_act_data.q < Q_FID4_HAVE);
      enq_f4n_d = (s_act_data.q >= Q_FID4_NEED);
    end else begin
      enq_v_d     = nr_enq;
      enq_q_d     = nr.q;
      enq_x_d     = nr.x;
      enq_fresh_d = 1'b1;
      enq_tid_d   = nr_enq && nr.tid;
      enq_f1n_d   = nr_enq && nr.f1;
      enq_f4n_d   = nr_enq && nr.f4;
    end
  end

  always_ff @(posedge clk) begin
    if (rst) enq_v_q <= 1'b0;
    else     enq_v_q <= enq_v_d;
    enq_q_q     <= enq_q_d;
    enq_x_q     <= enq_x_d;
    enq_fresh_q <= enq_fresh_d;
    enq_tid_q   <= {enq_tid_q[0], enq_tid_d};
    enq_f1n_q   <= {enq_f1n_q[0], enq_f1n_d};
    enq_f4n_q   <= {enq_f4n_q[0], enq_f4n_d};
  end

  // ================================================================ completion port
  // W > handler action
  always_comb begin
    if (w_cmpl_q) begin
      cmpl_valid  = 1'b1;
      cmpl_err    = w_err_q;
      cmpl_reason = w_reason_q;
      cmpl_xfer   = w_x_q;
      cmpl_cls    = w_cls_q;
      cmpl_fid    = w_fid_q;
    end else begin
      cmpl_valid  = act_take && s_act_data.cmpl;
      cmpl_err    = s_act_data.err;
      cmpl_reason = s_act_data.reason;
      cmpl_xfer   = s_act_data.xfer;
      cmpl_cls    = s_act_data.cls;
      cmpl_fid    = s_act_data.fid;
    end
  end

  // ================================================================ events
  assign ev_block   = w_blk_q;
  assign ev_inline  = w_pkt_q && !w_blk_q && w_pend_q;
  assign ev_control = w_pkt_q && !(w_pend_q && !w_blk_q) && !w_ann_q;   // (not REGISTER)

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    // each check nested under its push (docs/sim.md "Speed")
    if (w_blk_q)
      if (!rst) assert (blk_cnt != OCW'(OUT_FIFO_DEPTH))
        else $error("qrdma_qos_seg: block FIFO overflow");
    if (w_pkt_q)
      if (!rst) assert (pkt_cnt != OCW'(OUT_FIFO_DEPTH))
        else $error("qrdma_qos_seg: packet FIFO overflow");
    // the class registers agree with the queues' flags
    if (!rst) assert (cls_any == cls_arb_any)
      else $error("qrdma_qos_seg: class eligibility %b, by the queues' flags %b", cls_any,
                  cls_arb_any);
    if (fresh_pop)
      if (!rst) assert (fresh_valid)
        else $error("qrdma_qos_seg: TID queue dequeued without its fresh bit");
    if (s_tid_ready)
      if (!rst) assert (s_tid_valid && !(q_tk_tid_q && ct && nr.tid))
        else $error("qrdma_qos_seg: TID taken while none is offered, or twice");
    if (s_fid1_ready)
      if (!rst) assert (s_fid1_valid) else $error("qrdma_qos_seg: 1xFID taken while none is offered");
    if (s_fid4_ready)
      if (!rst) assert (s_fid4_valid) else $error("qrdma_qos_seg: 4xFID taken while none is offered");
    // a fresh transfer's kept single-block bit is its descriptor's (new_dst_lo is the
    // table's dst_addr)
    if (mm_v_q && mm_fresh_q)
      if (!rst) assert (last_f == one_block(size[SZW-1:BS_LOG2+1] != '0, size[BS_LOG2:0],
                                            d0.dst_addr[BS_LOG2-1:0]))
        else $error("qrdma_qos_seg: transfer %0d: kept single-block bit %0b, descriptor's %0b",
                    mm_x_q, last_f, !last_f);
  end
`endif

endmodule

`default_nettype wire
