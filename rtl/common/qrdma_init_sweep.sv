// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_init_sweep: the sweep that clears a table after reset. Block RAMs have no reset,
// so a table that must start empty is written entry by entry: from rst on, `busy` is high
// and `idx` counts 0 .. N-1, one entry per cycle; the owner writes its empty word at `idx`
// while `busy` is high. N cycles after rst falls, `busy` falls and stays low.
`default_nettype none

module qrdma_init_sweep
  import qrdma_pkg::*;
#(
  parameter int unsigned N  = 1024,   // entries (>= 1)
  localparam int unsigned AW = idx_w(N)
) (
  input  logic          clk,
  input  logic          rst,
  output logic          busy,
  output logic [AW-1:0] idx
);

  always_ff @(posedge clk) begin
    if (busy) begin
      idx <= idx + AW'(1);
      if (idx == AW'(N - 1)) busy <= 1'b0;
    end
    if (rst) begin
      busy <= 1'b1;
      idx  <= '0;
    end
  end

endmodule

`default_nettype wire
