// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_arb_rr: round-robin arbiter over N requesters: the VOQ scheduler of the send unit
// ([FPGA-NI] §2.5, qrdma_tx_sched), its two inputs, and the NIC's two acknowledgement
// sources. Inside: docs/modules.md#qrdma_arb_rr.
//
// Contract: a registered pointer names the requester with the highest priority this cycle; priority falls from ptr_q upwards and wraps around to ptr_q-1. The grant is
// combinational from req and ptr_q: exactly one bit of gnt is set whenever req != 0
// (gnt_valid = |req), none otherwise; gnt_idx is its index (0 when none). The grant counts
// as taken when ack is high in the same cycle: at that edge the pointer moves to just past
// the granted requester, so it gets the lowest priority next. With ack low the pointer
// stays, so a valid/ready consumer can drive ack = ready and hold the same grant until it
// is accepted, as long as req does not change: a request raised meanwhile by a requester
// nearer the pointer takes the grant over (a consumer that needs a stable choice, e.g. an
// AXI-Stream mux, registers or locks it). Under constant requests from k requesters, each
// is granted exactly once in every k consecutive acked grants. After reset the pointer is 0.
`default_nettype none

module qrdma_arb_rr
  import qrdma_pkg::*;
#(
  parameter int unsigned N  = 4,  // number of requesters
  localparam int unsigned IW = idx_w(N)
) (
  input  logic          clk,
  input  logic          rst,
  input  logic [N-1:0]  req,        // request per requester
  input  logic          ack,        // the grant of this cycle is taken (pointer advances)
  output logic [N-1:0]  gnt,        // one-hot grant, zero when req == 0
  output logic          gnt_valid,  // some requester is granted (= |req)
  output logic [IW-1:0] gnt_idx     // index of the granted requester, 0 when none
);

`ifndef SYNTHESIS
  initial begin
    if (N < 1) $fatal(1, "qrdma_arb_rr: N must be >= 1");
  end
`endif

  // The pointer is kept as a thermometer mask: hi_q[i] = requester i is at or above it.
  // The mask after an acked grant is computed from req and hi_q directly, in parallel with
  // the grant rather than after it: the requesters strictly above the lowest set bit of r
  // are r ^ -r, taken of the requests at or above the pointer if there are any, else of
  // all requests. Past the last requester the mask is empty, which grants like pointer 0.
  logic [N-1:0]  hi_q, hi_d;
  logic [N-1:0]  req_hi;     // requests at or above the pointer: these win
  logic [N-1:0]  gnt_hi, gnt_all;
  logic [IW-1:0] idx_hi, idx_all;
  logic          any_hi;

  assign req_hi = req & hi_q;

  // The lowest request at or above the pointer, else the lowest of all: two fixed-priority
  // arbiters (the common block) and a mux.
  qrdma_arb_fixed #(.N(N)) u_hi (
    .req(req_hi), .gnt(gnt_hi), .gnt_valid(any_hi), .gnt_idx(idx_hi)
  );
  qrdma_arb_fixed #(.N(N)) u_all (
    .req(req), .gnt(gnt_all), .gnt_valid(gnt_valid), .gnt_idx(idx_all)
  );
  assign gnt     = any_hi ? gnt_hi : gnt_all;
  assign gnt_idx = any_hi ? idx_hi : idx_all;

  always_comb begin
    hi_d = hi_q;
    if (ack && gnt_valid) begin
      hi_d = any_hi ? (req_hi ^ (~req_hi + N'(1))) : (req ^ (~req + N'(1)));
    end
  end

  always_ff @(posedge clk) begin
    if (rst) hi_q <= '1;
    else     hi_q <= hi_d;
  end

endmodule

`default_nettype wire
