// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// tb_qrdma_credit: a credit class's two ends for tests/fabric/test_qrdma_credit.py, which
// models the data path (packets into the receiver's buffer, freed from it) and the update
// channel between them (loss, delay, reordering), and with sync beats a data path that
// loses packets. Not hardware.
`default_nettype none

module tb_qrdma_credit #(
  parameter int unsigned CNT_W   = 8,
  parameter int unsigned MAX_PKT = 17,
  parameter int unsigned UPD_MIN = 1,
  parameter int unsigned REFRESH = 64,
  parameter int unsigned SYNC_W  = 6,
  localparam int unsigned PKT_W  = $clog2(MAX_PKT + 1)
) (
  input  logic             clk,
  input  logic             rst,
  input  logic [CNT_W-1:0] cfg_credits,
  // sending end
  output logic             ok,
  input  logic             s_send,
  input  logic [PKT_W-1:0] s_beats,
  input  logic             s_upd_valid,
  output logic             s_upd_ready,
  input  logic [CNT_W-1:0] s_upd_count,
  output logic [CNT_W-1:0] credits,
  output logic             stat_refused,
  output logic [CNT_W-1:0] sent,
  // receiving end
  input  logic             r_free,
  input  logic [PKT_W-1:0] r_beats,
  input  logic             r_arr,
  input  logic [PKT_W-1:0] r_arr_beats,
  input  logic             r_sync,
  input  logic [CNT_W-1:0] r_sync_count,
  output logic             stat_sync_bad,
  output logic             m_upd_valid,
  input  logic             m_upd_ready,
  output logic [CNT_W-1:0] m_upd_count,
  output logic [CNT_W-1:0] count
);

  qrdma_credit_tx #(.CNT_W(CNT_W), .MAX_PKT(MAX_PKT)) u_tx (
    .clk, .rst, .cfg_credits, .ok, .s_send, .s_beats,
    .s_upd_valid, .s_upd_ready, .s_upd_count, .credits, .sent, .stat_refused
  );

  qrdma_credit_rx #(.CNT_W(CNT_W), .MAX_PKT(MAX_PKT), .UPD_MIN(UPD_MIN), .REFRESH(REFRESH),
                    .SYNC_W(SYNC_W))
  u_rx (
    .clk, .rst, .s_free(r_free), .s_beats(r_beats),
    .s_arr(r_arr), .s_arr_beats(r_arr_beats), .s_sync(r_sync), .s_sync_count(r_sync_count),
    .stat_sync_bad,
    .m_upd_valid, .m_upd_ready, .m_upd_count, .count
  );

endmodule

`default_nettype wire
