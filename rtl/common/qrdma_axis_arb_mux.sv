// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_axis_arb_mux: N AXI-Stream inputs onto one output, whole packets, round robin
// among the inputs that offer one (qrdma_arb_rr). The choice is made at a packet's first
// beat and held until its last beat is taken; the output is a register slice
// (qrdma_reg_slice), so neither m_axis_tready nor the output reach back past a register.
//
// Contract: packets leave whole and in their input's order; an input that offers a
// packet is served within N packets; one beat per cycle sustained while the chosen input
// offers one. An input must keep tvalid up from a packet's first beat to its last (a
// packet whose beats come with gaps holds the output for its whole length).
`default_nettype none

module qrdma_axis_arb_mux
  import qrdma_pkg::*;
#(
  parameter int unsigned N      = 2,    // inputs
  parameter int unsigned DATA_W = 512,  // tdata bits
  parameter int unsigned USER_W = 32,   // tuser bits
  localparam int unsigned KEEP_W = DATA_W / 8,
  localparam int unsigned WIDTH  = DATA_W + KEEP_W + USER_W + 1,
  localparam int unsigned IW     = idx_w(N)
) (
  input  logic                clk,
  input  logic                rst,
  input  logic [N*DATA_W-1:0] s_axis_tdata,
  input  logic [N*KEEP_W-1:0] s_axis_tkeep,
  input  logic [N*USER_W-1:0] s_axis_tuser,
  input  logic [N-1:0]        s_axis_tlast,
  input  logic [N-1:0]        s_axis_tvalid,
  output logic [N-1:0]        s_axis_tready,
  output logic [DATA_W-1:0]   m_axis_tdata,
  output logic [KEEP_W-1:0]   m_axis_tkeep,
  output logic [USER_W-1:0]   m_axis_tuser,
  output logic                m_axis_tlast,
  output logic                m_axis_tvalid,
  input  logic                m_axis_tready
);

`ifndef SYNTHESIS
  initial begin
    if (N < 1) $fatal(1, "qrdma_axis_arb_mux: N must be >= 1");
  end
`endif

  // busy_q: inside a packet of input sel_q; otherwise the arbiter's grant starts one
  logic          busy_q, sl_ready, take, first;
  logic [IW-1:0] sel_q, sel, gnt_idx;
  logic          gnt_valid;

  assign first = !busy_q;
  assign sel   = first ? gnt_idx : sel_q;

  /* verilator lint_off PINCONNECTEMPTY */  // gnt: the index selects
  qrdma_arb_rr #(.N(N)) u_arb (
    .clk, .rst,
    .req       (s_axis_tvalid),
    .ack       (first && gnt_valid && sl_ready),
    .gnt       (),
    .gnt_valid,
    .gnt_idx
  );
  /* verilator lint_on PINCONNECTEMPTY */

  assign take = (first ? gnt_valid : s_axis_tvalid[sel_q]) && sl_ready;
  always_comb begin
    s_axis_tready = '0;
    s_axis_tready[sel] = sl_ready && (first ? gnt_valid : 1'b1);
  end

  always_ff @(posedge clk) begin
    if (take) begin
      busy_q <= !s_axis_tlast[sel];
      sel_q  <= sel;
    end
    if (rst) begin
      busy_q <= 1'b0;
      sel_q  <= '0;
    end
  end

  logic [WIDTH-1:0] sl_data;
  qrdma_reg_slice #(.WIDTH(WIDTH)) u_out (
    .clk, .rst,
    .s_valid (take),
    .s_ready (sl_ready),
    .s_data  ({s_axis_tlast[sel], s_axis_tuser[sel * USER_W +: USER_W],
               s_axis_tkeep[sel * KEEP_W +: KEEP_W], s_axis_tdata[sel * DATA_W +: DATA_W]}),
    .m_valid (m_axis_tvalid),
    .m_ready (m_axis_tready),
    .m_data  (sl_data)
  );
  assign {m_axis_tlast, m_axis_tuser, m_axis_tkeep, m_axis_tdata} = sl_data;

endmodule

`default_nettype wire
