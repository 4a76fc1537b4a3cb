// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_rx_early: the registration stage of qrdma_rx ([RSN] §3.2-§3.3;
// docs/registration.md "In the receive unit"). It owns the registration table
// (qrdma_rx_reg), keyed by {src_node, xfer}, and sits on the notification path between
// the completion unit and the notification writer:
//   * a REGISTER packet (s_reg, from the header processor) registers its transfer with
//     blocks + 1 mask bits: bit `blocks` stands for the registration itself, so the mask
//     fills when it and every block are in;
//   * a block placed (s_blk, from the completion unit: every write of the block answered)
//     sets its bit; the end of a transfer that makes no notification request (s_blk_free:
//     its last block failed, or the ring is off) frees its entry (a lookup whose answer
//     is not used); the last one makes the table offer a receiver-side notification, which
//     goes to the notification writer ahead of anything else (direct: its fields come
//     with it, no ACK is held for it);
//   * a notification request of a registered transfer (s_ntf with reg: its CONTROL and
//     last block are in) looks its transfer up and frees the entry; when the table wrote
//     it ahead, the request goes on marked skip (nothing written, its held ACK released),
//     after every receiver-side notification offered before it, else as it is. Requests
//     of unregistered transfers go on as they are.
// Contract: s_reg and s_blk are pulses without backpressure; each waits in a queue of
// Q_DEPTH and one that finds its queue full is dropped and counted (stat_drop), as is a
// registration of 0 or MASK_W or more blocks or a block at index MASK_W - 1 or above:
// the transfer then completes as an unregistered one does, by its CONTROL. The table
// takes the queued registrations first, then the blocks, then the lookup, so every block
// reported before a request is in the table before its lookup. One request at a time.
`default_nettype none

module qrdma_rx_early
  import qrdma_pkg::*;
  import qrdma_rx_pkg::*;
#(
  parameter int unsigned ENTRIES   = 256,   // registration table entries (power of 2)
  parameter int unsigned MASK_W    = 256,   // mask bits: transfers of up to MASK_W - 1 blocks
  parameter int unsigned ESC_DEPTH = 8,     // escape records (blocks before their registration)
  parameter int unsigned TS_W      = 16,    // escape timeout bits
  parameter int unsigned Q_DEPTH   = 4      // registrations / blocks queued for the table
) (
  input  logic                clk,
  input  logic                rst,
  input  logic [TS_W-1:0]     cfg_esc_timeout,  // cycles an escape record is kept (0: for ever)
  // registrations (header processor)
  input  logic                s_reg_valid,
  input  rx_reg_t             s_reg,
  // blocks placed, transfers ended without a request (completion unit)
  input  logic                s_blk_valid,
  input  logic                s_blk_free,     // the transfer's end: its entry is freed
  input  logic [15:0]         s_blk_src,
  input  logic [10:0]         s_blk_xfer,
  input  logic [19:0]         s_blk_xblk,
  input  logic [15:0]         s_blk_xseq,
  // notification requests (completion unit)
  input  logic                s_ntf_valid,
  output logic                s_ntf_ready,
  input  rx_ntf_t             s_ntf,
  // to the notification writer
  output logic                m_ntf_valid,
  input  logic                m_ntf_ready,
  output rx_nrq_t             m_ntf,
  output logic                busy,          // items queued or in hand
  // statistics (pulses)
  output logic                stat_reg,      // a transfer registered
  output logic                stat_early,    // a receiver-side notification offered
  output logic [1:0]          stat_drop      // registrations and blocks not given to the table
);

  // the key {xseq, src_node, xfer}: a transfer; its low bits {src_node, xfer} (its
  // channel) place it in the table, where a newer transfer of the channel replaces it
  localparam int unsigned HASH_W = 16 + 11;
  localparam int unsigned KEY_W  = 16 + HASH_W;
  localparam int unsigned INFO_W = 16 + $bits(rx_ctrl_t);    // {seq, fields}
  localparam int unsigned BW     = idx_w(MASK_W);
  localparam int unsigned CW     = cnt_w(MASK_W);

  // ---------------------------------------------------------------- queues
  // registrations: {key, blocks (the registration's own bit), count, info}
  localparam int unsigned RQ_W = KEY_W + BW + CW + INFO_W;
  logic              rq_push, rq_room, rq_valid, rq_pop, reg_ok;
  logic [RQ_W-1:0]   rq_in, rq_out;
  logic              bq_push, bq_room, bq_valid, bq_pop, blk_ok;
  logic [KEY_W+BW:0] bq_out;
  /* verilator lint_off UNUSEDSIGNAL */  // counts and almost_full: not used here
  logic [cnt_w(Q_DEPTH)-1:0] rq_count, bq_count;
  logic              rq_af, bq_af;
  /* verilator lint_on UNUSEDSIGNAL */

  assign reg_ok  = (s_reg.blocks != '0) && (32'(s_reg.blocks) < MASK_W);
  assign blk_ok  = s_blk_free || (32'(s_blk_xblk) < MASK_W - 1);
  assign rq_push = s_reg_valid && reg_ok && rq_room;
  assign bq_push = s_blk_valid && blk_ok && bq_room;
  assign rq_in   = {s_reg.xseq, s_reg.src_node, s_reg.f.xfer, BW'(s_reg.blocks),
                    CW'(s_reg.blocks + 21'd1),
                    s_reg.seq, s_reg.f};

  qrdma_sync_fifo #(.WIDTH(RQ_W), .DEPTH(Q_DEPTH)) u_rq (
    .clk, .rst,
    .s_valid(rq_push), .s_ready(rq_room), .s_data(rq_in),
    .m_valid(rq_valid), .m_ready(rq_pop), .m_data(rq_out),
    .count(rq_count), .almost_full(rq_af)
  );
  qrdma_sync_fifo #(.WIDTH(1 + KEY_W + BW), .DEPTH(Q_DEPTH)) u_bq (
    .clk, .rst,
    .s_valid(bq_push), .s_ready(bq_room),
    .s_data({s_blk_free, s_blk_xseq, s_blk_src, s_blk_xfer, BW'(s_blk_xblk)}),
    .m_valid(bq_valid), .m_ready(bq_pop), .m_data(bq_out),
    .count(bq_count), .almost_full(bq_af)
  );

  // ---------------------------------------------------------------- requests
  typedef enum logic [1:0] {R_IDLE, R_LOOK, R_WAIT, R_FWD} rstate_e;
  rstate_e st_q;
  logic    skip_q, lk_valid, lk_take, fwd;

  // ---------------------------------------------------------------- the table
  logic              t_valid, t_ready, t_ctl, t_first;
  logic [KEY_W-1:0]  t_key;
  logic [BW-1:0]     t_blk;
  logic [CW-1:0]     t_cnt;
  logic [INFO_W-1:0] t_info;
  logic              rn_valid, rn_ready;
  /* verilator lint_off UNUSEDSIGNAL */  // the notification's xfer comes with its fields
  logic [KEY_W-1:0]  rn_key;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [INFO_W-1:0] rn_info;
  logic              ctl_valid, ctl_notified;
  logic [KEY_W-1:0]  ctl_key;
  /* verilator lint_off UNUSEDSIGNAL */  // the table's outcomes: counted by the unit's own stats
  logic              st_ntf, st_dup, st_late, st_bad, st_conflict, st_replace, st_esc, st_esc_drop;
  logic              st_esc_to;
  /* verilator lint_on UNUSEDSIGNAL */
  logic              t_busy;

  // registrations first, then blocks, then the lookup
  assign lk_valid = (st_q == R_LOOK);
  assign t_valid  = rq_valid || bq_valid || lk_valid;
  assign rq_pop   = rq_valid && t_ready;
  assign bq_pop   = bq_valid && !rq_valid && t_ready;
  assign lk_take  = lk_valid && !rq_valid && !bq_valid && t_ready;
  always_comb begin
    t_ctl = 1'b0; t_first = 1'b0; t_key = '0; t_blk = '0; t_cnt = '0; t_info = '0;
    if (rq_valid) begin
      t_first = 1'b1;
      {t_key, t_blk, t_cnt, t_info} = rq_out;
    end else if (bq_valid) begin
      {t_ctl, t_key, t_blk} = bq_out;
    end else begin
      t_ctl = 1'b1;
      t_key = {s_ntf.xseq, s_ntf.src_node, s_ntf.xfer};
    end
  end

  qrdma_rx_reg #(
    .KEY_W(KEY_W), .HASH_W(HASH_W), .ENTRIES(ENTRIES), .MASK_W(MASK_W), .INFO_W(INFO_W),
    .ESC_DEPTH(ESC_DEPTH), .TS_W(TS_W)
  ) u_table (
    .clk, .rst, .cfg_esc_timeout,
    .s_valid(t_valid), .s_ready(t_ready), .s_ctl(t_ctl), .s_key(t_key), .s_blk(t_blk),
    .s_first(t_first), .s_cnt(t_cnt), .s_info(t_info),
    .m_ntf_valid(rn_valid), .m_ntf_ready(rn_ready), .m_ntf_key(rn_key), .m_ntf_info(rn_info),
    .m_ctl_valid(ctl_valid), .m_ctl_key(ctl_key), .m_ctl_notified(ctl_notified),
    .busy(t_busy),
    .stat_reg, .stat_ntf(st_ntf), .stat_dup(st_dup), .stat_late(st_late), .stat_bad(st_bad),
    .stat_conflict(st_conflict), .stat_replace(st_replace), .stat_esc(st_esc), .stat_esc_drop(st_esc_drop),
    .stat_esc_timeout(st_esc_to)
  );

  // ---------------------------------------------------------------- requests
  // A request of an unregistered transfer goes on from R_IDLE; one of a registered
  // transfer is looked up (R_LOOK until the table takes the lookup, R_WAIT for the
  // answer) and goes on from R_FWD. Receiver-side notifications go first in every state.
  assign fwd         = s_ntf_valid && !rn_valid
                       && ((st_q == R_IDLE && !s_ntf.registered) || st_q == R_FWD);
  assign s_ntf_ready = fwd && m_ntf_ready;
  assign rn_ready    = m_ntf_ready;
  assign m_ntf_valid = rn_valid || fwd;

  always_comb begin
    m_ntf = '0;
    if (rn_valid) begin
      m_ntf.direct   = 1'b1;
      m_ntf.src_node = rn_key[HASH_W-1 -: 16];
      {m_ntf.seq, m_ntf.f} = rn_info;
    end else begin
      m_ntf.skip     = (st_q == R_FWD) && skip_q;
      m_ntf.src_node = s_ntf.src_node;
      m_ntf.key      = s_ntf.key;
      m_ntf.seq      = s_ntf.seq;
    end
  end

  always_ff @(posedge clk) begin
    unique case (st_q)
      R_IDLE: if (s_ntf_valid && s_ntf.registered) st_q <= R_LOOK;
      R_LOOK: if (lk_take) st_q <= R_WAIT;
      // (the answers of the frees queued ahead of the lookup are not its own)
      R_WAIT: if (ctl_valid && ctl_key == {s_ntf.xseq, s_ntf.src_node, s_ntf.xfer}) begin
        skip_q <= ctl_notified;
        st_q   <= R_FWD;
      end
      R_FWD:  if (s_ntf_ready) st_q <= R_IDLE;
      default: st_q <= R_IDLE;
    endcase
    if (rst) st_q <= R_IDLE;
  end

  // ---------------------------------------------------------------- status
  always_ff @(posedge clk) begin
    busy       <= rq_valid || bq_valid || st_q != R_IDLE || t_busy || rn_valid;
    stat_early <= rn_valid && rn_ready;
    stat_drop  <= 2'(s_reg_valid && !(reg_ok && rq_room)) + 2'(s_blk_valid && !(blk_ok && bq_room));
    if (rst) begin
      busy       <= 1'b0;
      stat_early <= 1'b0;
      stat_drop  <= '0;
    end
  end

endmodule

`default_nettype wire
