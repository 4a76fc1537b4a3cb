// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_host_cluster: descriptor clustering ([FPGA-NI] §2.2, the "start flag") on the
// stream of started transfers between the host port's write path and the engine. A
// transfer with `hold` is kept (its record in a block RAM, a bit per channel in flops)
// until a transfer with `start` arrives on the same page; that one is kept as well and the
// page's whole cluster is released, in channel order, one transfer per cycle. A transfer
// with neither flag passes straight through (no register on the way) while no release
// runs. Behaviour: docs/qos.md "Clustering".
//
// Contract: valid/ready on both sides; s_* is taken only while no release runs and no
// released transfer waits, so transfers leave in the order of the releases and of the
// passes. A release scans the page's channels in groups of GROUP: two cycles per group
// plus one per transfer; a released record leaves from the RAM's output register (two
// cycles after its read). Records held at reset are dropped with the rest of the state.
`default_nettype none

module qrdma_host_cluster #(
  parameter int unsigned XW    = 11,  // transfer index bits: page * 2^CH_W + channel
  parameter int unsigned CH_W  = 7,   // channel bits of a page (>= log2 GROUP)
  parameter int unsigned REC_W = 55   // record bits carried with a transfer
) (
  input  logic             clk,       // clock
  input  logic             rst,       // synchronous reset, active high
  // started transfers in
  input  logic             s_valid,   // a transfer
  output logic             s_ready,   // taken
  input  logic [XW-1:0]    s_xfer,    // page * 2^CH_W + channel
  input  logic             s_hold,    // keep it until a start on its page
  input  logic             s_start,   // keep it and release its page's cluster
  input  logic [REC_W-1:0] s_rec,     // the rest of the transfer's record
  // transfers to the engine
  output logic             m_valid,   // a transfer
  input  logic             m_ready,   // taken
  output logic [XW-1:0]    m_xfer,    // page * 2^CH_W + channel
  output logic [REC_W-1:0] m_rec      // its record
);

  localparam int unsigned GROUP = 32;                 // channels scanned per step
  localparam int unsigned GB    = $clog2(GROUP);      // channel bits within a group
  localparam int unsigned NG    = (1 << XW) / GROUP;  // groups in all
  localparam int unsigned GXW   = XW - GB;            // group index bits
  localparam int unsigned GPB   = CH_W - GB;          // group-in-page bits

`ifndef SYNTHESIS
  initial begin
    if (CH_W < GB + 1 || CH_W >= XW)
      $fatal(1, "qrdma_host_cluster: CH_W must be in log2(GROUP)+1 .. XW-1");
    if (REC_W < 1) $fatal(1, "qrdma_host_cluster: REC_W must be >= 1");
  end
`endif

  function automatic logic [GB-1:0] lowest(input logic [GROUP-1:0] w);
    lowest = '0;
    for (int i = GROUP - 1; i >= 0; i--)
      if (w[i]) lowest = GB'(i);
  endfunction

  // ------------------------------------------------------------------ state
  logic [GROUP-1:0] held_q [NG];   // a bit per channel: its transfer is kept
  logic             rel_q;         // a release runs ...
  logic [GXW-1:0]   grp_q;         // ... at this group of the page
  logic             ld_q;          // word_q holds the group's bits still to release
  logic [GROUP-1:0] word_q;
  logic             v1_q, v2_q;    // a record in the RAM's read stage / output register
  logic [XW-1:0]    x1_q, x2_q;    // their transfer indexes

  logic take, keep, pass, issue, move2, word_zero, grp_last;
  logic [XW-1:0] rd_x;

  assign pass      = s_valid && !s_hold && !s_start && !rel_q && !v1_q && !v2_q;
  assign s_ready   = !rel_q && !v1_q && !v2_q && ((s_hold || s_start) || m_ready);
  assign take      = s_valid && s_ready;
  assign keep      = take && (s_hold || s_start);
  assign word_zero = (word_q == '0);
  assign grp_last  = (grp_q[GPB-1:0] == {GPB{1'b1}});
  assign move2     = v1_q && (!v2_q || m_ready);
  assign issue     = rel_q && ld_q && !word_zero && (!v1_q || move2);
  assign rd_x      = {grp_q, lowest(word_q)};

  // the held bits: set by a kept transfer, a group cleared when the release loads it
  // (no transfer is kept while a release runs)
  for (genvar g = 0; g < NG; g++) begin : gen_held
    always_ff @(posedge clk) begin
      if (rst)
        held_q[g] <= '0;
      else if (rel_q && !ld_q && grp_q == GXW'(g))
        held_q[g] <= '0;
      else if (keep && s_xfer[XW-1:GB] == GXW'(g))
        held_q[g][s_xfer[GB-1:0]] <= 1'b1;
    end
  end

  // the release: load a group's bits, issue its transfers lowest channel first, next group
  always_ff @(posedge clk) begin
    if (rst) begin
      rel_q <= 1'b0;
      ld_q  <= 1'b0;
    end else if (!rel_q) begin
      rel_q <= keep && s_start;
      ld_q  <= 1'b0;
    end else if (!ld_q) begin
      ld_q  <= 1'b1;
    end else if (word_zero) begin
      ld_q  <= 1'b0;
      rel_q <= !grp_last;
    end
  end

  always_ff @(posedge clk) begin
    if (!rel_q)
      grp_q <= {s_xfer[XW-1:CH_W], GPB'(0)};
    else if (ld_q && word_zero)
      grp_q <= grp_q + GXW'(1);
    if (rel_q && !ld_q)
      word_q <= held_q[grp_q];
    else if (issue)
      word_q <= word_q & (word_q - GROUP'(1));
  end

  // the records: written when kept, read in release order into the RAM's output register
  always_ff @(posedge clk) begin
    if (rst) begin
      v1_q <= 1'b0;
      v2_q <= 1'b0;
    end else begin
      if (issue)      v1_q <= 1'b1;
      else if (move2) v1_q <= 1'b0;
      if (move2)        v2_q <= 1'b1;
      else if (m_ready) v2_q <= 1'b0;
    end
    if (issue) x1_q <= rd_x;
    if (move2) x2_q <= x1_q;
  end

  logic [REC_W-1:0] rd_rec;

  qrdma_sdp_ram #(.WIDTH(REC_W), .DEPTH(1 << XW), .OUT_REG(1'b1), .RDW_ANY(1'b1)) u_rec (
    .clk,
    .wr_en   (keep),
    .wr_be   (1'b1),
    .wr_addr (s_xfer),
    .wr_data (s_rec),
    .rd_en   (issue),
    .rd_addr (rd_x),
    .rd_oe   (move2),
    .rd_data (rd_rec)
  );

  assign m_valid = v2_q || pass;
  assign m_xfer  = v2_q ? x2_q : s_xfer;
  assign m_rec   = v2_q ? rd_rec : s_rec;

`ifndef SYNTHESIS
  // a channel is kept at most once (the host port refuses a descriptor on a BUSY channel)
  always_ff @(posedge clk)
    if (keep)
      if (!rst) assert (!held_q[s_xfer[XW-1:GB]][s_xfer[GB-1:0]])
        else $error("qrdma_host_cluster: transfer %0d kept twice", s_xfer);
`endif

endmodule

`default_nettype wire
