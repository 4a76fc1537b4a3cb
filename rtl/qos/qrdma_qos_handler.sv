// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_qos_handler: the message handler of the QoS engine ([QoS-RDMA] §3.11) with the
// pending transactions table it owns (§3.5). Pipeline (docs/qos.md "Message handler"):
// H0 takes an ACK and reads the pending entry of its TID; H1 matches it (valid bit and
// sequence number), retires it and returns a TID-only TID, and reads the metadata of a
// multi-block transfer; H2 updates the metadata and pushes an action (re-queue, control
// queue, completion) into a FIFO drained by m_act_*. One ACK per cycle. Contract: the
// segmenter writes a pending entry (pend_wr_*) for every block and inline packet it
// issues; ACKs are taken only with en; init_done rises once every valid bit is cleared;
// tid_free_* carries the TID pool's returns, the segmenter's unused TIDs (tid_ret_*) too.
`default_nettype none

module qrdma_qos_handler
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
  import qrdma_qos_pkg::*;
#(
  parameter int unsigned MAX_OUTSTANDING = 2,  // blocks of a transfer in flight (1..4)
  parameter int unsigned ACT_FIFO_DEPTH  = 4   // actions in waiting, >= 2
) (
  input  logic                  clk,
  input  logic                  rst,
  input  logic                  en,            // the engine is ready: take ACKs
  output logic                  init_done,     // pending valid bits cleared after reset
  // pending-table entry of an issued block or inline packet (segmenter)
  input  logic                  pend_wr_en,
  input  logic [TIDW-1:0]       pend_wr_tid,
  input  pend_t                 pend_wr_data,
  // acknowledgements from the receive unit
  input  logic                  s_ack_valid,
  output logic                  s_ack_ready,
  input  logic [ACK_DESC_W-1:0] s_ack_data,
  // metadata slot (qrdma_qos_meta)
  output logic                  meta_rd_want,
  input  logic                  meta_rd_allow,
  output logic                  meta_rd_en,
  output logic [XW-1:0]         meta_rd_addr,
  input  meta_t                 meta_rd_data,
  output logic                  meta_wr_en,
  output logic [XW-1:0]         meta_wr_addr,
  output meta_t                 meta_wr_data,
  // a TID the segmenter took and did not use (it goes back first; H1 waits that cycle)
  input  logic                  tid_ret_valid,
  input  logic [TIDW-1:0]       tid_ret_id,
  // a TID-only TID back to its pool
  output logic                  tid_free_valid,
  output logic [TIDW-1:0]       tid_free_id,
  // actions for the segmenter's enqueue and completion ports
  output logic                  m_act_valid,
  input  logic                  m_act_ready,
  output act_t                  m_act_data,
  // event pulses
  output logic                  ev_ack,
  output logic                  ev_nack,
  output logic                  ev_stale
);

  localparam int unsigned ACW = cnt_w(ACT_FIFO_DEPTH);

`ifndef SYNTHESIS
  initial begin
    if (MAX_OUTSTANDING < 1 || MAX_OUTSTANDING > FLOW_BLOCKS)
      $fatal(1, "qrdma_qos_handler: MAX_OUTSTANDING must be in 1..4");
    if (ACT_FIFO_DEPTH < 2)
      $fatal(1, "qrdma_qos_handler: ACT_FIFO_DEPTH must be >= 2");
  end
`endif

  // ================================================================ valid-bit clear
  // After reset every pending valid bit is cleared, one per cycle (1024 cycles).
  logic            init_q;
  logic [TIDW-1:0] init_cnt_q;

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
  assign init_done = !init_q;

  // ================================================================ H0: take, read entry
  /* verilator lint_off UNUSEDSIGNAL */  // the record's reserved bits
  ack_desc_t       ack;
  /* verilator lint_on UNUSEDSIGNAL */
  logic            h0_take;
  logic            h1_valid_q, h1_nack_q;
  logic [3:0]      h1_reason_q;
  logic [TIDW-1:0] h1_tid_q;
  pend_t           h1_pend;
  logic            h1_match_q;   // valid entry, same sequence number
  logic            h1_match, h1_need_meta, h1_adv;
  logic            act_room;
  logic [ACW-1:0]  act_cnt;

  assign ack         = ack_desc_t'(s_ack_data);
  assign s_ack_ready = en && (!h1_valid_q || h1_adv);
  assign h0_take     = s_ack_valid && s_ack_ready;

  qrdma_sdp_ram #(.WIDTH($bits(pend_t)), .DEPTH(1 << TIDW), .RDW_NEW(1'b1)) u_pending (
    .clk,
    .wr_en(pend_wr_en), .wr_be(1'b1), .wr_addr(pend_wr_tid), .wr_data(pend_wr_data),
    .rd_en(h0_take), .rd_addr(ack.tid), .rd_data(h1_pend)
  );

  // valid bits of the pending entries: set at issue (port A), cleared by a matching ACK
  // or by the clear after reset (port B). Read in H0 with the entry, as it is at the end
  // of that cycle (a write or a retire of the same TID in that cycle included), so that
  // H1 matches the entry it holds even when that TID is issued again while H1 waits.
  logic            pv_b_en;
  logic [TIDW-1:0] pv_b_addr;
  logic [0:0]      h0_pv_rd;
  logic            h0_pv;
  assign pv_b_en   = init_q || (h1_adv && h1_match);
  assign pv_b_addr = init_q ? init_cnt_q : h1_tid_q;
  qrdma_mem_2w #(.WIDTH(1), .DEPTH(1 << TIDW)) u_pend_valid (
    .clk,
    .a_en(pend_wr_en), .a_addr(pend_wr_tid), .a_data(1'b1),
    .b_en(pv_b_en), .b_addr(pv_b_addr), .b_data(1'b0),
    .rd_addr(ack.tid), .rd_data(h0_pv_rd)
  );
  assign h0_pv = (h0_pv_rd[0] || (pend_wr_en && pend_wr_tid == ack.tid))
              && !(pv_b_en && pv_b_addr == ack.tid);

  // The fields H1 decides on (sequence number, single, class) are also kept in LUT RAM,
  // read in H0 from the ACK's TID: the match is computed in H0 and registered, so H1's
  // decision does not wait for the pending entry out of block RAM (which feeds only the
  // metadata read and H2). Same contents as u_pending's, a write of this cycle included.
  typedef struct packed {
    logic [SEQW-1:0] seq;
    logic            single;
    logic            tid_only;   // class TID-only: the TID goes back when retired
  } pkey_t;
  pkey_t pkey_mem [1 << TIDW];
  pkey_t pkey_wr, h0_key;
  assign pkey_wr = '{seq: pend_wr_data.seq, single: pend_wr_data.single,
                     tid_only: pend_wr_data.cls == CLS_TID};
  always_ff @(posedge clk) begin
    if (pend_wr_en) pkey_mem[pend_wr_tid] <= pkey_wr;
  end
  assign h0_key = (pend_wr_en && pend_wr_tid == ack.tid) ? pkey_wr : pkey_mem[ack.tid];

  logic h1_single_q, h1_tid_only_q;
  always_ff @(posedge clk) begin
    if (rst) h1_valid_q <= 1'b0;
    else if (s_ack_ready) h1_valid_q <= s_ack_valid;
    if (h0_take) begin
      h1_tid_q      <= ack.tid;
      h1_nack_q     <= ack.nack;
      h1_reason_q   <= ack.reason;
      h1_match_q    <= h0_pv && (h0_key.seq == ack.seq);
      h1_single_q   <= h0_key.single;
      h1_tid_only_q <= h0_key.tid_only;
    end
  end

  // ================================================================ H1: match, retire
  assign h1_match     = h1_match_q;
  assign h1_need_meta = h1_match && !h1_single_q;
  assign act_room     = (act_cnt <= ACW'(ACT_FIFO_DEPTH - 2));
  assign h1_adv       = h1_valid_q && act_room && (!h1_need_meta || meta_rd_allow)
                      && !tid_ret_valid;

  assign meta_rd_want = h1_valid_q && h1_need_meta;
  assign meta_rd_en   = h1_adv && h1_need_meta;
  assign meta_rd_addr = h1_pend.xfer;

  // a TID-only TID goes back as soon as its block is retired
  assign tid_free_valid = tid_ret_valid || (h1_adv && h1_match && h1_tid_only_q);
  assign tid_free_id    = tid_ret_valid ? tid_ret_id : h1_tid_q;

  assign ev_ack   = h1_adv && h1_match && !h1_nack_q;
  assign ev_nack  = h1_adv && h1_match && h1_nack_q;
  assign ev_stale = h1_adv && !h1_match;

  // ================================================================ H2: update, act
  logic            h2_valid_q, h2_single_q, h2_nack_q;
  logic [3:0]      h2_reason_q;
  /* verilator lint_off UNUSEDSIGNAL */  // seq, time_: kept for retransmission, unused here
  pend_t           h2_pend_q;
  /* verilator lint_on UNUSEDSIGNAL */
  meta_t           h2_meta_q, h2_meta_d;
  logic            h2_push, h2_enq, h2_cmpl, h2_err;
  logic [QW-1:0]   h2_enq_q;
  logic [BW-1:0]   h2_acked;
  logic [3:0]      h2_slot, h2_slot_next;
  act_t            act_in;

  always_ff @(posedge clk) begin
    if (rst) h2_valid_q <= 1'b0;
    else     h2_valid_q <= h1_adv && h1_match;
    if (h1_adv) begin
      h2_single_q <= h1_single_q;
      h2_nack_q   <= h1_nack_q;
      h2_reason_q <= h1_reason_q;
      h2_pend_q   <= h1_pend;
    end
  end

  assign h2_meta_q = meta_rd_data;

  // Computed only in a cycle with h2_valid_q: the push and the metadata write are 0 in the
  // other cycles, which leave the data undefined ('x: no logic in synthesis, no work in a
  // cycle-based simulation).
  always_comb begin
    h2_enq       = 1'b0;
    h2_cmpl      = 1'b0;
    h2_push      = 1'b0;
    h2_meta_d    = 'x;
    h2_enq_q     = 'x;
    h2_err       = 'x;
    h2_acked     = 'x;
    h2_slot      = 'x;
    h2_slot_next = 'x;
    if (h2_valid_q) begin
      h2_meta_d    = h2_meta_q;
      h2_enq_q     = h2_meta_q.hq;
      h2_err       = h2_nack_q;
      h2_acked     = h2_meta_q.acked + BW'(1);
      h2_slot      = tid_slot(h2_meta_q.cls == CLS_FID4, h2_pend_q.block[3:0]);
      h2_slot_next = tid_slot(h2_meta_q.cls == CLS_FID4, h2_meta_q.issued[3:0]);
      if (h2_single_q) begin
        h2_cmpl = 1'b1;
      end else begin
        h2_meta_d.acked      = h2_acked;
        // (the sums are on one side of each compare, from operands ready at the start of
        // the cycle, so that the compares run side by side)
        h2_meta_d.last_acked = h2_meta_q.last_acked ||
                               (h2_pend_q.block + BW'(1) == h2_meta_q.blocks);
        h2_meta_d.tid_busy   = (h2_meta_q.cls == CLS_TID) ? 16'h0
                             : (h2_meta_q.tid_busy & ~(16'h1 << h2_slot));
        h2_meta_d.aborted    = h2_meta_q.aborted || h2_nack_q;
        h2_meta_d.reason     = h2_meta_q.aborted ? h2_meta_q.reason : h2_reason_q;  // the first NACK's
        if (h2_meta_d.aborted) begin
          h2_err  = 1'b1;
          h2_cmpl = (h2_acked == h2_meta_q.issued) && !h2_meta_q.in_q;
        end else begin
          h2_cmpl = (h2_acked == h2_meta_q.blocks) && (!h2_meta_q.notify || h2_meta_q.ctrl_sent);
          // the control packet goes once every block but the last is acknowledged and the
          // last is issued (docs/qos.md "Completion"); the last block's ACK does not count
          if (!h2_meta_q.in_q && h2_meta_q.notify && !h2_meta_q.ctrl_sent &&
              h2_meta_q.issued == h2_meta_q.blocks &&
              (h2_meta_d.last_acked ? (h2_acked == h2_meta_q.blocks)
                                    : (h2_meta_q.acked + BW'(2) == h2_meta_q.blocks))) begin
            h2_enq   = 1'b1;
            h2_enq_q = Q_CTRL;
          end else if (!h2_meta_q.in_q && h2_meta_q.issued < h2_meta_q.blocks &&
                       (h2_meta_q.issued - h2_acked) < BW'(MAX_OUTSTANDING) &&
                       !h2_meta_d.tid_busy[h2_slot_next]) begin
            h2_enq   = 1'b1;
            h2_enq_q = h2_meta_q.hq;
          end
        end
        h2_meta_d.in_q = h2_meta_q.in_q || h2_enq;
      end
      h2_push = h2_enq || h2_cmpl;
    end
  end

  assign meta_wr_en   = h2_valid_q && !h2_single_q;
  assign meta_wr_addr = h2_pend_q.xfer;
  assign meta_wr_data = h2_meta_d;

  // ================================================================ action FIFO
  always_comb begin
    act_in.enq    = h2_enq;
    act_in.q      = h2_enq_q;
    act_in.cmpl   = h2_cmpl;
    act_in.err    = h2_err;
    act_in.reason = h2_single_q ? h2_reason_q : h2_meta_d.reason;
    act_in.xfer   = h2_pend_q.xfer;
    act_in.cls    = h2_single_q ? h2_pend_q.cls : h2_meta_q.cls;
    act_in.fid    = h2_single_q ? h2_pend_q.fid : h2_meta_q.fid;
  end

  /* verilator lint_off PINCONNECTEMPTY */  // s_ready, almost_full: H1 advances only with room (act_room)
  qrdma_sync_fifo #(.WIDTH($bits(act_t)), .DEPTH(ACT_FIFO_DEPTH)) u_act_fifo (
    .clk, .rst,
    .s_valid(h2_push), .s_ready(), .s_data(act_in),
    .m_valid(m_act_valid), .m_ready(m_act_ready), .m_data(m_act_data),
    .count(act_cnt), .almost_full()
  );
  /* verilator lint_on PINCONNECTEMPTY */

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (h2_push)   // nested under its push (docs/sim.md "Speed")
      if (!rst) assert (act_cnt != ACW'(ACT_FIFO_DEPTH))
        else $error("qrdma_qos_handler: action FIFO overflow");
  end
`endif

endmodule

`default_nettype wire
