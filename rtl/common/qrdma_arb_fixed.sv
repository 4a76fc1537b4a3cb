// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_arb_fixed: fixed-priority arbiter over N requesters, purely combinational.
// Requester 0 has the highest priority: gnt is the lowest set bit of req (one-hot, or zero
// when nothing is requested), gnt_valid = |req, and gnt_idx is the index of the granted
// requester (0 when nothing is requested). No state, so the grant of a cycle depends only
// on req of that cycle. A common block of qrdma (STYLE.md: arbiters live in rtl/common).
`default_nettype none

module qrdma_arb_fixed
  import qrdma_pkg::*;
#(
  parameter int unsigned N  = 4,  // number of requesters
  localparam int unsigned IW = idx_w(N)
) (
  input  logic [N-1:0]  req,        // request per requester, bit 0 highest priority
  output logic [N-1:0]  gnt,        // one-hot grant, zero when req == 0
  output logic          gnt_valid,  // some requester is granted (= |req)
  output logic [IW-1:0] gnt_idx     // index of the granted requester, 0 when none
);

`ifndef SYNTHESIS
  initial begin
    if (N < 1) $fatal(1, "qrdma_arb_fixed: N must be >= 1");
  end
`endif

  // Lowest set bit: req & -req (two's complement), a carry chain rather than a priority mux.
  assign gnt       = req & (~req + N'(1));
  assign gnt_valid = |req;

  // gnt is one-hot or zero, so an OR of the indices of its set bits is the encoder: bit b
  // of the index is the OR of the grants of the requesters whose index has bit b set
  // (a constant mask per index bit: word-wide ANDs and ORs in simulation, skipped when
  // nothing is requested -- the index is 0 then anyway).
  function automatic logic [IW-1:0][N-1:0] idx_masks();
    logic [IW-1:0][N-1:0] m;
    for (int unsigned b = 0; b < IW; b++) begin
      for (int unsigned i = 0; i < N; i++) m[b][i] = (((i >> b) & 1) != 0);
    end
    return m;
  endfunction
  localparam logic [IW-1:0][N-1:0] IDX_MASKS = idx_masks();

  always_comb begin
    gnt_idx = '0;
    if (gnt_valid) begin
      for (int unsigned b = 0; b < IW; b++) gnt_idx[b] = |(gnt & IDX_MASKS[b]);
    end
  end

endmodule

`default_nettype wire
