// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_arb_fixed: fixed-priority arbiter over N requesters, purely combinational: the
// strict-order pick of the scheduling queues ([QoS-RDMA] §3.9.1, qrdma_qos_seg) and the
// two halves of qrdma_arb_rr. A common block (STYLE.md: arbiters live in rtl/common).
// CHAIN = 0 forms the grant from gates instead of carry chains (the same function; for a
// few requesters, as the QoS pick's choice between its six classes).
//
// Contract: requester 0 has the highest priority. gnt is the lowest set bit of req
// (one-hot, or zero when nothing is requested), gnt_valid = |req, and gnt_idx is the index
// of the granted requester (0 when nothing is requested). No state: the grant of a cycle
// depends only on req of that cycle.
`default_nettype none

module qrdma_arb_fixed
  import qrdma_pkg::*;
#(
  parameter int unsigned N  = 4,  // number of requesters
  parameter bit          CHAIN = 1'b1,  // 1: lowest set bit by carry chains; 0: by gates (below)
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

  // Lowest set bit: req & -req (two's complement), a carry chain rather than a priority mux,
  // in groups of G requesters: the lowest group with a request is granted (the same rule
  // over the groups' ORs), and inside it its lowest set bit. The same function as one
  // carry chain over N; groups of 64 keep each step in one 64-bit word of a cycle-based
  // simulation (the QoS core's N = 66 would otherwise take three-word additions and
  // masks), and in hardware it is the usual two-level (group lookahead) form: UltraScale+
  // N = 66 196 LUT against 198 for the single chain; N = 16 40 LUT either way.
  localparam int unsigned G  = 64;                 // requesters per group
  localparam int unsigned NG = (N + G - 1) / G;    // groups
  localparam int unsigned GW = idx_w(N < G ? N : G); // index bits inside a group

  // gnt is one-hot or zero, so an OR of the indices of its set bits is the encoder: bit b
  // of an index is the OR of the grant bits whose index has bit b set (a constant mask per
  // index bit: word-wide ANDs and ORs in simulation, skipped when nothing is requested --
  // the index is 0 then anyway).
  function automatic logic [GW-1:0][G-1:0] idx_masks();
    logic [GW-1:0][G-1:0] m;
    for (int unsigned b = 0; b < GW; b++) begin
      for (int unsigned i = 0; i < G; i++) m[b][i] = (((i >> b) & 1) != 0);
    end
    return m;
  endfunction
  localparam logic [GW-1:0][G-1:0] IDX_MASKS = idx_masks();

  logic [NG-1:0] grp_any;  // a request in group g
  logic [NG-1:0] grp_gnt;  // group g granted: its lowest request is the grant
  logic [GW-1:0] sub_idx;  // index inside the granted group

  // CHAIN = 0: each grant bit a gate of its request and those before it (no carry chain;
  // for a few requesters, where a grant's gate is one LUT level and the chain's entry and
  // exit cost more than that)
  if (CHAIN) begin : gen_grp_chain
    assign grp_gnt = grp_any & (~grp_any + NG'(1));
  end else begin : gen_grp_gates
    for (genvar g = 0; g < int'(NG); g++) begin : gen_bit
      assign grp_gnt[g] = grp_any[g] && ((grp_any & (NG'({NG{1'b1}}) >> (NG - g))) == '0);
    end
  end
  assign gnt_valid = |grp_any;

  for (genvar g = 0; g < int'(NG); g++) begin : gen_grp
    localparam int unsigned W = (g == int'(NG) - 1) ? N - g * G : G;  // requesters in it
    logic [W-1:0] r;
    assign r          = req[g * G +: W];
    assign grp_any[g] = |r;
    if (CHAIN && NG == 1) begin : gen_chain1
      // one group: r & -r is zero when nothing is requested, no gate by grp_gnt (which
      // synthesis cannot see through the carry chain: a LUT level after it)
      assign gnt[g * G +: W] = r & (~r + W'(1));
    end else if (CHAIN) begin : gen_chain
      assign gnt[g * G +: W] = grp_gnt[g] ? (r & (~r + W'(1))) : '0;
    end else begin : gen_gates
      for (genvar i = 0; i < int'(W); i++) begin : gen_bit
        assign gnt[g * G + i] = grp_gnt[g] && r[i] && ((r & (W'({W{1'b1}}) >> (W - i))) == '0);
      end
    end
  end

  // the grant padded to whole groups, so that every group is a constant G-bit slice
  logic [NG*G-1:0] gnt_pad;
  assign gnt_pad = (NG*G)'(gnt);

  always_comb begin
    sub_idx = '0;
    if (gnt_valid) begin
      for (int unsigned g = 0; g < NG; g++) begin
        if (grp_gnt[g]) begin
          for (int unsigned b = 0; b < GW; b++) sub_idx[b] = |(gnt_pad[g * G +: G] & IDX_MASKS[b]);
        end
      end
    end
  end

  if (NG == 1) begin : gen_one
    assign gnt_idx = sub_idx;
  end else begin : gen_grps
    // G is a power of 2: the index is {group, index inside the group}
    logic [IW-GW-1:0] grp_idx;
    always_comb begin
      grp_idx = '0;
      for (int unsigned g = 0; g < NG; g++) if (grp_gnt[g]) grp_idx = (IW-GW)'(g);
    end
    assign gnt_idx = {grp_idx, sub_idx};
  end

endmodule

`default_nettype wire
