// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_qos_core: the scheduling and transaction part of the QoS engine (seed 000 §3.2,
// §3.5, §3.7-§3.14; behaviour in docs/qos.md). It holds the 66 scheduling queues in one
// shared space, the TID / 1xFID / 4xFID pools, the transfer metadata and pending
// transactions tables, the transfer segmenter and the message handler.
//
// Segmenter (one transfer per cycle):
//   stage 1  pick the first eligible queue (strict order), dequeue its head, take the
//            TID / FID the class needs, read the transfer-table row and the metadata.
//   stage 2  decide and issue: block descriptor, inline or control packet, pending-table
//            entry, metadata write, re-queue, completion. Stage 2 never stalls: stage 1
//            only fires when the output FIFOs have room for two more records, the
//            enqueue port and the completion port give stage 2 priority.
// Message handler (one ACK per cycle):
//   H0  accept an ACK, read the pending entry of its TID.
//   H1  match valid bit + sequence number; clear the valid bit, return a TID-only TID;
//       multi-block transfers read their metadata (shared slot, see below).
//   H2  update the metadata (a NACK aborts the transfer; the first NACK's reason is kept
//       for st_reason); push an action (re-queue / control queue / completion) into a
//       small FIFO that drains into the enqueue and completion ports.
// Metadata slot: one read per cycle, its write the next cycle (read-modify-write with the
// RAM forwarding a same-address write, RDW_NEW), so segmenter and handler see each
// other's updates in order. Stage 1 owns the slot unless the handler was refused in the
// previous cycle (seed §3.12's adaptive "last served" arbitration).
`default_nettype none

module qrdma_qos_core
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
  import qrdma_qos_pkg::*;
#(
  parameter int unsigned BLOCK_SIZE      = 65536,  // bytes per block, power of 2, 8K..64K
  parameter int unsigned MAX_OUTSTANDING = 2,      // blocks of a transfer in flight (1..4)
  parameter int unsigned CM_MIN_BYTES    = 16384,  // memory transfers >= this: FID classes
  parameter int unsigned MP_MIN_BYTES    = 262144, // multipath transfers >= this: 4xFID
  parameter int unsigned NUM_TIDS        = 512,    // TID-only pool size (TIDs 0..NUM_TIDS-1)
  parameter int unsigned OUT_FIFO_DEPTH  = 4,      // block / packet output FIFOs
  parameter int unsigned ACT_FIFO_DEPTH  = 4       // message-handler actions in waiting
) (
  input  logic                      clk,
  input  logic                      rst,
  output logic                      ready,        // ID pools filled, tables cleared
  // new transfers from the host port
  input  logic                      new_valid,
  output logic                      new_ready,
  input  logic [XW-1:0]             new_xfer,
  input  logic [SZW-1:0]            new_size,
  input  logic                      new_inline,
  input  logic                      new_multipath,
  input  logic [3:0]                new_prio,
  // transfer table read port (row = xfer >> 1, data the next cycle)
  output logic                      tt_rd_en,
  output logic [9:0]                tt_rd_row,
  input  logic [511:0]              tt_rd_data,
  // block descriptors to the send unit
  output logic                      m_blk_valid,
  input  logic                      m_blk_ready,
  output logic [BLOCK_DESC_W-1:0]   m_blk_data,
  // inline and control packets to the send unit
  output logic                      m_pkt_valid,
  input  logic                      m_pkt_ready,
  output logic [PKT_DESC_W-1:0]     m_pkt_data,
  // acknowledgements from the receive unit
  input  logic                      s_ack_valid,
  output logic                      s_ack_ready,
  input  logic [ACK_DESC_W-1:0]     s_ack_data,
  // channel results to the status registers
  output logic                      st_valid,
  output logic [9:0]                st_ch,
  output logic                      st_err,
  output logic [3:0]                st_reason,    // ERR_* of the transfer's first NACK (st_err)
  // event pulses: 0 block, 1 inline, 2 control, 3 ACK, 4 NACK, 5 stale, 6 done
  output logic [6:0]                ev
);

  localparam int unsigned BS_LOG2 = $clog2(BLOCK_SIZE);
  localparam int unsigned OCW     = cnt_w(OUT_FIFO_DEPTH);
  localparam int unsigned ACW     = cnt_w(ACT_FIFO_DEPTH);
  localparam logic [SZW-1:0] CM_MIN = SZW'(CM_MIN_BYTES);
  localparam logic [SZW-1:0] MP_MIN = SZW'(MP_MIN_BYTES);

`ifndef SYNTHESIS
  initial begin
    if (BLOCK_SIZE != (1 << BS_LOG2) || BLOCK_SIZE < 8192 || BLOCK_SIZE > 65536)
      $fatal(1, "qrdma_qos_core: BLOCK_SIZE must be a power of 2 in 8192..65536");
    if (MAX_OUTSTANDING < 1 || MAX_OUTSTANDING > FLOW_BLOCKS)
      $fatal(1, "qrdma_qos_core: MAX_OUTSTANDING must be in 1..4");
    if (NUM_TIDS < 2 || NUM_TIDS > 512)
      $fatal(1, "qrdma_qos_core: NUM_TIDS must be in 2..512 (TIDs 512.. belong to FIDs)");
    if (OUT_FIFO_DEPTH < 2 || ACT_FIFO_DEPTH < 2)
      $fatal(1, "qrdma_qos_core: FIFO depths must be >= 2");
    if (CM_MIN_BYTES <= INLINE_MAX || MP_MIN_BYTES < CM_MIN_BYTES)
      $fatal(1, "qrdma_qos_core: need INLINE_MAX < CM_MIN_BYTES <= MP_MIN_BYTES");
  end
`endif

  // ================================================================ init
  // Clear the pending valid bits (1024 cycles) while the ID pools fill themselves.
  logic            init_q;
  logic [TIDW-1:0] init_cnt_q;
  logic            tid_rdy, fid1_rdy, fid4_rdy;

  always_ff @(posedge clk) begin
    if (init_q) begin
      init_cnt_q <= init_cnt_q + TIDW'(1);
      if (init_cnt_q == '1) init_q <= 1'b0;
    end
    if (rst) begin
      init_q     <= 1'b1;
      init_cnt_q <= '0;
    end
  end
  assign ready = !init_q && tid_rdy && fid1_rdy && fid4_rdy;

  // ================================================================ shared declarations
  logic [NUM_QUEUES-1:0] q_empty;
  logic                  enq_valid;
  logic [QW-1:0]         enq_queue;
  logic [XW-1:0]         enq_xfer;
  logic                  enq_fresh;

  logic                  tid_valid, tid_take;
  logic [TIDW-1:0]       tid_id;
  logic                  tid_free;
  logic [TIDW-1:0]       tid_free_id;
  logic                  fid1_valid, fid1_take, fid1_free;
  logic [FIDW-1:0]       fid1_id, fid1_free_id;
  logic                  fid4_valid, fid4_take, fid4_free;
  logic [3:0]            fid4_id, fid4_free_id;

  logic                  meta_rd_en;
  logic [XW-1:0]         meta_rd_addr;
  logic [$bits(meta_t)-1:0] meta_rdata;
  logic                  meta_wr_en;
  logic [XW-1:0]         meta_wr_addr;
  meta_t                 meta_wdata;

  logic                  pend_wr_en;
  logic [TIDW-1:0]       pend_wr_addr;
  pend_t                 pend_wdata;
  logic [$bits(pend_t)-1:0] pend_rdata;

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

  // ================================================================ ID pools (§3.8, §3.14)
  qrdma_id_pool #(.NUM_IDS(NUM_TIDS), .FIRST_ID(0), .ID_W(TIDW)) u_tid_pool (
    .clk, .rst, .ready(tid_rdy),
    .m_valid(tid_valid), .m_ready(tid_take), .m_id(tid_id),
    .free_valid(tid_free), .free_id(tid_free_id)
  );
  qrdma_id_pool #(.NUM_IDS(FID1_NUM), .FIRST_ID(FID1_FIRST), .ID_W(FIDW)) u_fid1_pool (
    .clk, .rst, .ready(fid1_rdy),
    .m_valid(fid1_valid), .m_ready(fid1_take), .m_id(fid1_id),
    .free_valid(fid1_free), .free_id(fid1_free_id)
  );
  qrdma_id_pool #(.NUM_IDS(FID4_NUM), .FIRST_ID(0), .ID_W(4)) u_fid4_pool (
    .clk, .rst, .ready(fid4_rdy),
    .m_valid(fid4_valid), .m_ready(fid4_take), .m_id(fid4_id),
    .free_valid(fid4_free), .free_id(fid4_free_id)
  );

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

  // "fresh" bit of each queued transfer (seed §3.9.1: the extra bit of the queue head):
  // set when the host queues a new transfer, clear on every re-queue.
  logic fresh_mem [NUM_CHANNELS];
  always_ff @(posedge clk) begin
    if (enq_valid) fresh_mem[enq_xfer] <= enq_fresh;
  end

  // ================================================================ stage 1
  logic [NUM_QUEUES-1:0] q_elig;
  logic                  s1_any;
  logic                  hdl_force_q;
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

  assign q_elig = ~q_empty & ~(TID_QS & {NUM_QUEUES{!tid_valid}})
                & ~(FID1_QS & {NUM_QUEUES{!fid1_valid}}) & ~(FID4_QS & {NUM_QUEUES{!fid4_valid}});

  // only the index of the grant is needed
  /* verilator lint_off PINCONNECTEMPTY */
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
      if (new_q == Q_TID)                                   new_q_ok = tid_valid;
      else if (new_q >= Q_FID1_NEED && new_q < Q_FID4_HAVE) new_q_ok = fid1_valid;
      else if (new_q >= Q_FID4_NEED)                        new_q_ok = fid4_valid;
      else                                                  new_q_ok = 1'b1;
      // queues 0..new_q (new_q < NUM_QUEUES)
      ahead_mask = {NUM_QUEUES{1'b1}} >> (QW'(NUM_QUEUES - 1) - new_q);
      s1_ct      = q_empty[new_q] && !(|(q_elig & ahead_mask)) && new_q_ok;
    end
  end

  assign out_room = (blk_cnt <= OCW'(OUT_FIFO_DEPTH - 2)) && (pkt_cnt <= OCW'(OUT_FIFO_DEPTH - 2));
  assign s1_fire  = ready && (s1_any || s1_ct) && out_room && !hdl_force_q;
  assign s1_q     = s1_ct ? new_q : s1_pick;
  assign s1_xfer  = s1_ct ? new_xfer : s1_head;

  assign tid_take  = s1_fire && (s1_q == Q_TID);
  assign fid1_take = s1_fire && (s1_q >= Q_FID1_NEED) && (s1_q < Q_FID4_HAVE);
  assign fid4_take = s1_fire && (s1_q >= Q_FID4_NEED);

  assign tt_rd_en  = s1_fire;
  assign tt_rd_row = s1_xfer[XW-1:1];

  // stage 2 registers
  logic            s2_valid_q;
  logic [QW-1:0]   s2_q_q;
  logic [XW-1:0]   s2_xfer_q;
  logic            s2_fresh_q;
  logic [TIDW-1:0] s2_tid_q;
  logic [FIDW-1:0] s2_fid_q;

  always_ff @(posedge clk) begin
    if (rst) s2_valid_q <= 1'b0;
    else     s2_valid_q <= s1_fire;
    if (s1_fire) begin
      s2_q_q     <= s1_q;
      s2_xfer_q  <= s1_xfer;
      s2_fresh_q <= s1_ct || fresh_mem[s1_head];
      s2_tid_q   <= tid_id;
      s2_fid_q   <= fid4_take ? FIDW'(FID4_FIRST) + {2'b00, fid4_id, 2'b00} : fid1_id;
    end
  end

  // ================================================================ stage 2
  meta_t       m;
  cls_e        s2_cls;
  logic        s2_ctrl, s2_inline, s2_fresh, s2_abort_path;
  logic [SZW-1:0]     size;
  logic [BS_LOG2-1:0] o;
  logic [SZW:0]       span;
  logic [BW-1:0]      blocks, b, b_next;
  logic [BS_LOG2:0]   first_sz;
  logic [SZW:0]       offset;
  logic [16:0]        bsize;
  logic               last_blk, requeue, ctrl_now;
  logic [FIDW-1:0]    f0, fid;
  logic [TIDW-1:0]    tid;
  logic [3:0]         slot, slot_next;
  logic [15:0]        tid_busy_n;
  logic [BW-1:0]      outst_n;
  logic [QW-1:0]      hq;
  logic               s2_issue;     // a block descriptor is issued
  logic               s2_enq;       // stage 2 uses the enqueue port
  logic               s2_cmpl;      // stage 2 uses the completion port
  logic               s2_cmpl_err;
  logic               s2_meta_wr;
  meta_t              s2_meta_w;

  // Stage 2 computes only in a cycle with s2_valid_q: every result is used only then (the
  // enables -- pushes, writes, enqueue, completion -- are 0 in the other cycles), which
  // leave the data undefined ('x: no logic in synthesis, no work in a cycle-based
  // simulation).
  always_comb begin
    s2_issue    = 1'b0;
    s2_enq      = 1'b0;
    s2_cmpl     = 1'b0;
    s2_cmpl_err = 1'b0;
    s2_meta_wr  = 1'b0;
    blk_push    = 1'b0;
    pkt_push    = 1'b0;
    m = 'x; s2_meta_w = 'x; blk_d = 'x; pkt_d = 'x;
    s2_ctrl = 'x; s2_cls = cls_e'('x); s2_fresh = 'x; s2_inline = 'x; s2_abort_path = 'x;
    size = 'x; o = 'x; span = 'x; blocks = 'x; b = 'x; b_next = 'x; first_sz = 'x;
    offset = 'x; bsize = 'x; last_blk = 'x; requeue = 'x; ctrl_now = 'x; f0 = 'x;
    fid = 'x; tid = 'x; slot = 'x; slot_next = 'x; tid_busy_n = 'x; outst_n = 'x; hq = 'x;
    pend_wdata = 'x;
    if (s2_valid_q) begin
      // records read only here, of which only some fields are used; local to this
      // branch, so that idle cycles do not assign them (docs/sim.md "Speed")
      /* verilator lint_off UNUSEDSIGNAL */
      desc_line0_t d0;
      desc_line1_t d1;
      /* verilator lint_on UNUSEDSIGNAL */
      meta_t       m_rd;
      d0   = desc_line0_t'(s2_xfer_q[0] ? tt_rd_data[511:256] : tt_rd_data[255:0]);
      d1   = desc_line1_t'(tt_rd_data[511:256]);
      m_rd = meta_t'(meta_rdata);
      s2_ctrl   = (s2_q_q == Q_CTRL);
      s2_cls    = s2_ctrl ? m_rd.cls : queue_cls(s2_q_q);
      s2_fresh  = (s2_cls == CLS_TID) ? (s2_fresh_q && !s2_ctrl)
                : (!s2_ctrl && ((s2_q_q >= Q_FID1_NEED && s2_q_q < Q_FID4_HAVE) || s2_q_q >= Q_FID4_NEED));
      m         = s2_fresh ? '0 : m_rd;
      s2_inline = d0.is_inline && !s2_ctrl;
      s2_abort_path = !s2_fresh && m.aborted;

      size     = SZW'(d0.size);
      o        = d0.dst_addr[BS_LOG2-1:0];
      span     = (SZW+1)'(o) + (SZW+1)'(size);
      blocks   = BW'((span + (SZW+1)'(BLOCK_SIZE - 1)) >> BS_LOG2);
      first_sz = (BS_LOG2+1)'(BLOCK_SIZE) - (BS_LOG2+1)'(o);
      b        = m.issued;
      b_next   = b + BW'(1);
      last_blk = (b_next == blocks);
      offset   = (b == '0) ? '0 : (SZW+1)'(first_sz) + ((SZW+1)'(b - BW'(1)) << BS_LOG2);
      if (blocks == BW'(1))      bsize = 17'(size);
      else if (b == '0)          bsize = 17'(first_sz);
      else if (last_blk)         bsize = 17'(span - ((SZW+1)'(b) << BS_LOG2));
      else                       bsize = 17'(BLOCK_SIZE);

      f0 = s2_fresh ? s2_fid_q : m.fid;
      unique case (s2_cls)
        CLS_FID1: begin
          fid = f0;
          tid = {f0, b[1:0]};
          slot = {2'b00, b[1:0]};
          slot_next = {2'b00, b_next[1:0]};
          hq = Q_FID1_HAVE + QW'(d0.prio);
        end
        CLS_FID4: begin
          fid = f0 + FIDW'(b[1:0]);
          tid = {fid, b[3:2]};
          slot = b[3:0];
          slot_next = b_next[3:0];
          hq = Q_FID4_HAVE + QW'(d0.prio);
        end
        default: begin  // TID-only
          fid = '0;
          tid = s2_tid_q;
          slot = '0;
          slot_next = '0;
          hq = Q_TID;
        end
      endcase
      tid_busy_n = (s2_cls == CLS_TID) ? 16'h0 : (m.tid_busy | (16'h1 << slot));
      outst_n    = b_next - m.acked;
      requeue    = !last_blk && (outst_n < BW'(MAX_OUTSTANDING)) && !tid_busy_n[slot_next];
      ctrl_now   = last_blk && d0.notify && (m.acked == blocks - BW'(1));

      s2_issue    = !s2_ctrl && !s2_inline && !s2_abort_path;
      s2_enq      = s2_issue && requeue;
      s2_meta_w   = m;
      pkt_d       = '0;

      blk_d = '0;
      blk_d.src_addr = d0.src_addr + 64'(offset);
      blk_d.dst_addr = d0.dst_addr + 64'(offset);
      blk_d.dst_node = d0.dst_node;
      blk_d.pd       = s2_xfer_q[XW-1:7];
      blk_d.tid      = tid;
      blk_d.seq      = seq_q;
      blk_d.size     = bsize;
      blk_d.cm       = (s2_cls != CLS_TID);
      blk_d.chained  = (s2_cls != CLS_TID) && (b != '0);
      blk_d.has_next = (s2_cls != CLS_TID) && !last_blk;
      blk_d.notify   = last_blk && d0.notify;
      blk_d.last     = last_blk;
      blk_d.fid      = fid;
      blk_d.path     = (s2_cls == CLS_FID4) ? b[1:0] : 2'b00;
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
        s2_meta_wr = 1'b1;
        s2_meta_w.in_q = 1'b0;
        if (m.aborted) begin
          s2_cmpl     = (m.acked == m.issued);
          s2_cmpl_err = 1'b1;
        end else begin
          pkt_push        = 1'b1;
          pkt_d.kind      = 1'(PKT_CONTROL);
          pkt_d.tid       = m.last_tid;
          pkt_d.seq       = m.last_seq;
          pkt_d.blocks    = 21'(m.blocks);
          s2_meta_w.ctrl_sent = 1'b1;
          s2_cmpl         = (m.acked == m.blocks);
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
        s2_meta_wr = 1'b1;
        s2_meta_w.in_q = 1'b0;
        s2_cmpl     = (m.acked == m.issued);
        s2_cmpl_err = 1'b1;
      end else begin
        blk_push = 1'b1;
        s2_meta_wr = 1'b1;
        s2_meta_w.issued    = b_next;
        s2_meta_w.acked     = m.acked;
        s2_meta_w.blocks    = blocks;
        s2_meta_w.fid       = f0;
        s2_meta_w.tid_busy  = tid_busy_n;
        s2_meta_w.in_q      = requeue;
        s2_meta_w.notify    = d0.notify;
        s2_meta_w.ctrl_sent = ctrl_now;
        s2_meta_w.aborted     = 1'b0;
        if (last_blk) begin
          s2_meta_w.last_tid = tid;
          s2_meta_w.last_seq = seq_q;
        end
        s2_meta_w.hq  = hq;
        s2_meta_w.cls = s2_cls;
        if (ctrl_now) begin
          pkt_push     = 1'b1;
          pkt_d.kind   = 1'(PKT_CONTROL);
          pkt_d.tid    = tid;
          pkt_d.seq    = seq_q;
          pkt_d.blocks = 21'(blocks);
        end
      end

      // pending-table entry of an issued block or inline packet
      pend_wdata        = '0;
      pend_wdata.seq    = seq_q;
      pend_wdata.xfer   = s2_xfer_q;
      pend_wdata.block  = s2_inline ? '0 : b;
      pend_wdata.single = s2_inline || (blocks == BW'(1));
      pend_wdata.cls    = s2_inline ? CLS_TID : s2_cls;
      pend_wdata.fid    = f0;
      pend_wdata.time_  = now_q;
    end
  end

  assign pend_wr_en   = s2_issue || (s2_valid_q && s2_inline);
  assign pend_wr_addr = s2_inline ? s2_tid_q : tid;

  always_ff @(posedge clk) begin
    if (pend_wr_en) seq_q <= seq_q + SEQW'(1);
    if (rst)        seq_q <= '0;
  end

  // ================================================================ output FIFOs
  // Pushes never find them full (stage 1 checks the counts), so s_ready is not needed.
  /* verilator lint_off PINCONNECTEMPTY */
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

  // ================================================================ message handler (§3.11)
  /* verilator lint_off UNUSEDSIGNAL */
  ack_desc_t       ack;  // reserved bits unused
  /* verilator lint_on UNUSEDSIGNAL */
  logic            h0_take;
  logic            h1_valid_q, h1_nack_q;
  logic [3:0]      h1_reason_q;
  logic [TIDW-1:0] h1_tid_q;
  logic [SEQW-1:0] h1_seq_q;
  pend_t           h1_pend;
  logic            h1_pv, h1_match, h1_need_meta, h1_adv, h1_meta_go;
  logic            act_room;
  logic [ACW-1:0]  act_cnt;

  assign ack         = ack_desc_t'(s_ack_data);
  assign s_ack_ready = ready && (!h1_valid_q || h1_adv);
  assign h0_take     = s_ack_valid && s_ack_ready;

  qrdma_sdp_ram #(.WIDTH($bits(pend_t)), .DEPTH(1 << TIDW), .RDW_NEW(1'b1)) u_pending (
    .clk,
    .wr_en(pend_wr_en), .wr_be(1'b1), .wr_addr(pend_wr_addr), .wr_data(pend_wdata),
    .rd_en(h0_take), .rd_addr(ack.tid), .rd_data(pend_rdata)
  );

  // valid bits of the pending entries: set at issue (port A), cleared by ACK (port B)
  logic pv_b_en;
  logic [TIDW-1:0] pv_b_addr;
  logic [0:0] pv_rd;
  assign pv_b_en   = init_q || (h1_adv && h1_match);
  assign pv_b_addr = init_q ? init_cnt_q : h1_tid_q;
  qrdma_mem_2w #(.WIDTH(1), .DEPTH(1 << TIDW)) u_pend_valid (
    .clk,
    .a_en(pend_wr_en), .a_addr(pend_wr_addr), .a_data(1'b1),
    .b_en(pv_b_en), .b_addr(pv_b_addr), .b_data(1'b0),
    .rd_addr(h1_tid_q), .rd_data(pv_rd)
  );

  always_ff @(posedge clk) begin
    if (rst) h1_valid_q <= 1'b0;
    else if (s_ack_ready) h1_valid_q <= s_ack_valid;
    if (h0_take) begin
      h1_tid_q  <= ack.tid;
      h1_seq_q  <= ack.seq;
      h1_nack_q <= ack.nack;
      h1_reason_q <= ack.reason;
    end
  end

  assign h1_pend      = pend_t'(pend_rdata);
  assign h1_pv        = pv_rd[0];
  assign h1_match     = h1_pv && (h1_pend.seq == h1_seq_q);
  assign h1_need_meta = h1_match && !h1_pend.single;
  assign act_room     = (act_cnt <= ACW'(ACT_FIFO_DEPTH - 2));
  assign h1_adv       = h1_valid_q && act_room && !(h1_need_meta && s1_fire);
  assign h1_meta_go   = h1_adv && h1_need_meta;

  always_ff @(posedge clk) begin
    if (rst) hdl_force_q <= 1'b0;
    else     hdl_force_q <= h1_valid_q && h1_need_meta && s1_fire;
  end

  // return a TID-only TID as soon as its block is retired
  assign tid_free    = h1_adv && h1_match && (h1_pend.cls == CLS_TID);
  assign tid_free_id = h1_tid_q;

  // H2
  logic            h2_valid_q, h2_single_q, h2_nack_q;
  logic [3:0]      h2_reason_q;
  /* verilator lint_off UNUSEDSIGNAL */
  pend_t           h2_pend_q;  // seq/time are for retransmission (not used by H2)
  /* verilator lint_on UNUSEDSIGNAL */
  meta_t           h2_m, h2_mw;
  logic            h2_push, h2_enq, h2_cmpl, h2_err;
  logic [QW-1:0]   h2_enq_q;
  logic [BW-1:0]   h2_acked;
  logic [3:0]      h2_slot, h2_slot_next;

  always_ff @(posedge clk) begin
    if (rst) h2_valid_q <= 1'b0;
    else     h2_valid_q <= h1_adv && h1_match;
    if (h1_adv) begin
      h2_single_q <= h1_pend.single;
      h2_nack_q   <= h1_nack_q;
      h2_reason_q <= h1_reason_q;
      h2_pend_q   <= h1_pend;
    end
  end

  assign h2_m = meta_t'(meta_rdata);

  // Computed only in a cycle with h2_valid_q (the push and the metadata write are 0 in the
  // other cycles, which leave the data undefined, as in stage 2).
  always_comb begin
    h2_enq   = 1'b0;
    h2_cmpl  = 1'b0;
    h2_push  = 1'b0;
    h2_mw    = 'x;
    h2_enq_q = 'x;
    h2_err   = 'x;
    h2_acked = 'x;
    h2_slot  = 'x;
    h2_slot_next = 'x;
    if (h2_valid_q) begin
      h2_mw    = h2_m;
      h2_enq   = 1'b0;
      h2_enq_q = h2_m.hq;
      h2_cmpl  = 1'b0;
      h2_err   = h2_nack_q;
      h2_acked = h2_m.acked + BW'(1);
      h2_slot  = (h2_m.cls == CLS_FID4) ? h2_pend_q.block[3:0] : {2'b00, h2_pend_q.block[1:0]};
      h2_slot_next = (h2_m.cls == CLS_FID4) ? h2_m.issued[3:0] : {2'b00, h2_m.issued[1:0]};
      if (h2_single_q) begin
        h2_cmpl = 1'b1;
      end else begin
        h2_mw.acked    = h2_acked;
        h2_mw.last_acked = h2_m.last_acked || (h2_pend_q.block == h2_m.blocks - BW'(1));
        h2_mw.tid_busy = (h2_m.cls == CLS_TID) ? 16'h0 : (h2_m.tid_busy & ~(16'h1 << h2_slot));
        h2_mw.aborted    = h2_m.aborted || h2_nack_q;
        h2_mw.reason     = h2_m.aborted ? h2_m.reason : h2_reason_q;   // the first NACK's
        if (h2_mw.aborted) begin
          h2_err  = 1'b1;
          h2_cmpl = (h2_acked == h2_m.issued) && !h2_m.in_q;
        end else begin
          h2_cmpl = (h2_acked == h2_m.blocks) && (!h2_m.notify || h2_m.ctrl_sent);
          // the control packet goes once every block but the last is acknowledged (the last
          // is issued): counted without the last block, whose ACK may come first. Then the
          // receiver's notification, which waits for the control packet and the last block,
          // covers every block of the transfer.
          if (!h2_m.in_q && h2_m.notify && !h2_m.ctrl_sent && h2_m.issued == h2_m.blocks &&
              h2_acked - BW'(h2_mw.last_acked) == h2_m.blocks - BW'(1)) begin
            h2_enq   = 1'b1;
            h2_enq_q = Q_CTRL;
          end else if (!h2_m.in_q && h2_m.issued < h2_m.blocks &&
                       (h2_m.issued - h2_acked) < BW'(MAX_OUTSTANDING) &&
                       !h2_mw.tid_busy[h2_slot_next]) begin
            h2_enq   = 1'b1;
            h2_enq_q = h2_m.hq;
          end
        end
        h2_mw.in_q = h2_m.in_q || h2_enq;
      end
      h2_push = h2_enq || h2_cmpl;
    end
  end

  // ================================================================ metadata table (§3.2, §3.12)
  assign meta_rd_en   = s1_fire || h1_meta_go;
  assign meta_rd_addr = s1_fire ? s1_xfer : h1_pend.xfer;

  assign meta_wr_en   = (s2_valid_q && s2_meta_wr) || (h2_valid_q && !h2_single_q);
  assign meta_wr_addr = (s2_valid_q && s2_meta_wr) ? s2_xfer_q : h2_pend_q.xfer;
  assign meta_wdata   = (s2_valid_q && s2_meta_wr) ? s2_meta_w : h2_mw;

  qrdma_sdp_ram #(.WIDTH($bits(meta_t)), .DEPTH(NUM_CHANNELS), .RDW_NEW(1'b1)) u_meta (
    .clk,
    .wr_en(meta_wr_en), .wr_be(1'b1), .wr_addr(meta_wr_addr), .wr_data(meta_wdata),
    .rd_en(meta_rd_en), .rd_addr(meta_rd_addr), .rd_data(meta_rdata)
  );

  // ================================================================ handler actions
  typedef struct packed {
    logic          enq;
    logic [QW-1:0] q;
    logic          cmpl;
    logic          err;
    logic [3:0]    reason;
    logic [XW-1:0] xfer;
    cls_e          cls;
    logic [FIDW-1:0] fid;
  } act_t;

  act_t act_in, act_out;
  logic act_valid, act_pop;

  always_comb begin
    act_in.enq  = h2_enq;
    act_in.q    = h2_enq_q;
    act_in.cmpl = h2_cmpl;
    act_in.err  = h2_err;
    act_in.reason = h2_single_q ? h2_reason_q : h2_mw.reason;
    act_in.xfer = h2_pend_q.xfer;
    act_in.cls  = h2_single_q ? h2_pend_q.cls : h2_m.cls;
    act_in.fid  = h2_single_q ? h2_pend_q.fid : h2_m.fid;
  end

  logic [$bits(act_t)-1:0] act_out_bits;
  // H1 only advances with room in the FIFO (act_room), so s_ready is not needed.
  /* verilator lint_off PINCONNECTEMPTY */
  qrdma_sync_fifo #(.WIDTH($bits(act_t)), .DEPTH(ACT_FIFO_DEPTH)) u_act_fifo (
    .clk, .rst,
    .s_valid(h2_push), .s_ready(), .s_data(act_in),
    .m_valid(act_valid), .m_ready(act_pop), .m_data(act_out_bits),
    .count(act_cnt), .almost_full()
  );
  /* verilator lint_on PINCONNECTEMPTY */
  assign act_out = act_t'(act_out_bits);
  assign act_pop = act_valid && (!act_out.enq || !s2_enq) && (!act_out.cmpl || !s2_cmpl);

  // ================================================================ enqueue port
  // stage 2 re-queue > handler action > new transfer from the host
  always_comb begin
    enq_valid = 1'b0;
    enq_queue = '0;
    enq_xfer  = '0;
    enq_fresh = 1'b0;
    new_ready = s1_fire && s1_ct;
    if (s2_enq) begin
      enq_valid = 1'b1;
      enq_queue = hq;
      enq_xfer  = s2_xfer_q;
    end else if (act_pop && act_out.enq) begin
      enq_valid = 1'b1;
      enq_queue = act_out.q;
      enq_xfer  = act_out.xfer;
    end else begin
      new_ready = ready;
      enq_valid = new_valid && ready && !(s1_fire && s1_ct);
      enq_queue = new_q;
      enq_xfer  = new_xfer;
      enq_fresh = 1'b1;
    end
  end

  // ================================================================ completion port
  logic            c_valid, c_err;
  logic [3:0]      c_reason;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [XW-1:0]   c_xfer;  // bit 6 (read-channel half) is always 0 for a write channel
  /* verilator lint_on UNUSEDSIGNAL */
  cls_e            c_cls;
  logic [FIDW-1:0] c_fid;

  always_comb begin
    if (s2_cmpl) begin
      c_valid = 1'b1;
      c_err   = s2_cmpl_err;
      c_reason = m.reason;
      c_xfer  = s2_xfer_q;
      c_cls   = s2_cls;
      c_fid   = m.fid;
    end else begin
      c_valid = act_pop && act_out.cmpl;
      c_err   = act_out.err;
      c_reason = act_out.reason;
      c_xfer  = act_out.xfer;
      c_cls   = act_out.cls;
      c_fid   = act_out.fid;
    end
  end

  assign st_valid     = c_valid;
  assign st_ch        = {c_xfer[XW-1:7], c_xfer[5:0]};
  assign st_err       = c_err;
  assign st_reason    = c_reason;
  assign fid1_free    = c_valid && (c_cls == CLS_FID1);
  assign fid1_free_id = c_fid;
  assign fid4_free    = c_valid && (c_cls == CLS_FID4);
  assign fid4_free_id = 4'((c_fid - FIDW'(FID4_FIRST)) >> 2);

  // ================================================================ events
  assign ev[0] = blk_push;
  assign ev[1] = s2_valid_q && s2_inline;
  assign ev[2] = pkt_push && !(s2_valid_q && s2_inline);
  assign ev[3] = h1_adv && h1_match && !h1_nack_q;
  assign ev[4] = h1_adv && h1_match && h1_nack_q;
  assign ev[5] = h1_adv && !h1_match;
  assign ev[6] = c_valid;

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    // each check nested under its push (docs/sim.md "Speed")
    if (blk_push)
      if (!rst) assert (blk_cnt != OCW'(OUT_FIFO_DEPTH))
        else $error("qrdma_qos_core: block FIFO overflow");
    if (pkt_push)
      if (!rst) assert (pkt_cnt != OCW'(OUT_FIFO_DEPTH))
        else $error("qrdma_qos_core: packet FIFO overflow");
    if (h2_push)
      if (!rst) assert (act_cnt != ACW'(ACT_FIFO_DEPTH))
        else $error("qrdma_qos_core: action FIFO overflow");
  end
`endif

endmodule

`default_nettype wire
