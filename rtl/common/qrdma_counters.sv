// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_counters: a bank of N statistics counters: the NIC's send / receive statistics
// registers (qrdma_nic_regs; docs/nic.md "Registers").
//
// Contract: counter i adds inc[i] every cycle (0 for none; a pulse is inc = 1, a byte
// count is its value) and wraps at 2^CNT_W. rd_data is the value of counter rd_idx,
// combinational (the user registers it on its bus).
`default_nettype none

module qrdma_counters
  import qrdma_pkg::*;
#(
  parameter int unsigned N     = 4,   // counters
  parameter int unsigned CNT_W = 48,  // bits per counter (1..64)
  parameter int unsigned INC_W = 1,   // bits of an increment
  localparam int unsigned IW   = idx_w(N)
) (
  input  logic                  clk,
  input  logic                  rst,
  input  logic [N-1:0][INC_W-1:0] inc,
  input  logic [IW-1:0]         rd_idx,
  output logic [CNT_W-1:0]      rd_data
);

`ifndef SYNTHESIS
  initial begin
    if (N < 1) $fatal(1, "qrdma_counters: N must be >= 1");
    if (CNT_W < 1 || CNT_W > 64) $fatal(1, "qrdma_counters: CNT_W must be in 1..64");
    if (INC_W < 1 || INC_W > CNT_W) $fatal(1, "qrdma_counters: INC_W must be in 1..CNT_W");
  end
`endif

  logic [CNT_W-1:0] cnt_q [N];

  // (updated only in a cycle with an increment: a simulation skips the adds otherwise)
  always_ff @(posedge clk) begin
    if (rst) begin
      for (int i = 0; i < int'(N); i++) cnt_q[i] <= '0;
    end else if (inc != '0) begin
      for (int i = 0; i < int'(N); i++) cnt_q[i] <= cnt_q[i] + CNT_W'(inc[i]);
    end
  end

  assign rd_data = (int'(rd_idx) < int'(N)) ? cnt_q[rd_idx] : '0;

endmodule

`default_nettype wire
