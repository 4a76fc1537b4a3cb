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
// (its word loaded, its end) and one per transfer; a
// released record leaves from a register, four cycles after its issue.
// Records held at reset are dropped with the rest of the state; s_ready stays low for the
// NG cycles after reset in which the map is cleared.
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
  // The held bits in LUT RAM, a GROUP-bit word per group of channels (cleared by a sweep
  // after reset), with a flag per group in flip-flops: the group holds a kept transfer. A
  // kept transfer sets its bit (read, OR, write back in its cycle); a release reads each
  // group's word into word_q (with whether it is flagged) and clears the flag, and writes
  // the word 0 in the next cycle.
  // two copies, one per reader (the kept transfer's group, the release's): neither read
  // address a mux. LUT RAM: the kept transfer's read-modify-write is one cycle (where
  // the group comes from a register, synthesis would otherwise absorb it into a block
  // RAM's read port and put the RAM's clock-to-out before the write data)
  (* ram_style = "distributed" *) logic [GROUP-1:0] held_k [NG];
  (* ram_style = "distributed" *) logic [GROUP-1:0] held_r [NG];
  logic [NG-1:0]    nz_q;          // the group's word holds a kept transfer
  logic             rel_q;         // a release runs ...
  logic [GXW-1:0]   grp_q;         // ... at this group of the page
  logic             wv_q;          // word_q holds the group's transfers still to release ...
  logic             z_q;           // ... and is 0: the group is done
  logic [GROUP-1:0] word_q;
  // a transfer issued: its read address in x0_q, its record in the RAM's read stage, in
  // the RAM's output register, in a register of its own (rec3_q: what leaves is a flop)
  logic             v0_q, v1_q, v2_q, v3_q;
  logic [XW-1:0]    x0_q, x1_q, x2_q, x3_q;
  logic [REC_W-1:0] rec3_q, rd_rec;

  logic take, keep, pass, issue, move1, move2, move3, grp_last, word_one, grp_end, busy;
  logic [XW-1:0]    rd_x;
  logic [GXW-1:0]   s_grp, sw_idx, hm_waddr;
  logic [GROUP-1:0] hm_keep, hm_rel, hm_wdata;
  logic             sweep, load;
  logic             clr_q;         // the group loaded in the cycle before is written 0 ...
  logic [GXW-1:0]   clr_grp_q;     // ... this one

  assign busy     = sweep || clr_q || rel_q || v0_q || v1_q || v2_q || v3_q;
  assign load     = rel_q && !wv_q;
  assign pass     = s_valid && !s_hold && !s_start && !busy;
  assign s_ready  = !busy && ((s_hold || s_start) || m_ready);
  assign take     = s_valid && s_ready;
  assign keep     = take && (s_hold || s_start);
  assign s_grp    = s_xfer[XW-1:GB];
  assign grp_last = (grp_q[GPB-1:0] == {GPB{1'b1}});
  assign move3    = v2_q && (!v3_q || m_ready);
  assign move2    = v1_q && (!v2_q || move3);
  assign move1    = v0_q && (!v1_q || move2);
  assign issue    = wv_q && !z_q && (!v0_q || move1);
  assign word_one = ((word_q & (word_q - GROUP'(1))) == '0);   // one transfer left
  // the group is done: every transfer of it issued (none if it held none)
  assign grp_end  = rel_q && wv_q && z_q;
  assign rd_x     = {grp_q, lowest(word_q)};

  // the map: a read at the kept transfer's group, a read at the release's, one write
  assign hm_keep = held_k[s_grp];
  assign hm_rel  = held_r[grp_q];
  // (every select a register: a kept transfer is never taken in a release or the cycle after)
  assign hm_waddr = sweep ? sw_idx : clr_q ? clr_grp_q : s_grp;
  assign hm_wdata = (sweep || clr_q) ? '0 : (hm_keep | (GROUP'(1) << s_xfer[GB-1:0]));
  always_ff @(posedge clk) begin
    clr_q     <= load;
    clr_grp_q <= grp_q;
    if (keep || clr_q || sweep) begin
      held_k[hm_waddr] <= hm_wdata;
      held_r[hm_waddr] <= hm_wdata;
    end
  end

  qrdma_init_sweep #(.N(NG)) u_sweep (.clk, .rst, .busy(sweep), .idx(sw_idx));

  always_ff @(posedge clk) begin
    if (rst) begin
      nz_q  <= '0;
      rel_q <= 1'b0;
      wv_q  <= 1'b0;
    end else begin
      if (keep) nz_q[s_grp] <= 1'b1;
      if (load) begin
        nz_q[grp_q] <= 1'b0;
        wv_q        <= 1'b1;
      end else if (wv_q && z_q) begin
        wv_q        <= 1'b0;
      end
      if (!rel_q)       rel_q <= keep && s_start;
      else if (grp_end) rel_q <= !grp_last;
    end
  end

  always_ff @(posedge clk) begin
    if (!rel_q)       grp_q <= {s_grp[GXW-1:GPB], GPB'(0)};
    else if (grp_end) grp_q <= grp_q + GXW'(1);
    if (rel_q && !wv_q) word_q <= hm_rel;
    else if (issue)     word_q <= word_q & (word_q - GROUP'(1));
    // a flagged group's word is not 0 (an unflagged one's is); after the issue of its
    // last bit it is
    if (rel_q && !wv_q) z_q <= !nz_q[grp_q];
    else if (issue)     z_q <= word_one;
  end

  // the records: written when kept, read in release order (the address from a register)
  // into the RAM's output register, then into rec3_q (the engine's logic behind m_rec
  // starts from a flop, as it does for a transfer that passes)
  always_ff @(posedge clk) begin
    if (rst) begin
      v0_q <= 1'b0;
      v1_q <= 1'b0;
      v2_q <= 1'b0;
    end else begin
      if (issue)      v0_q <= 1'b1;
      else if (move1) v0_q <= 1'b0;
      if (move1)      v1_q <= 1'b1;
      else if (move2) v1_q <= 1'b0;
      if (move2)      v2_q <= 1'b1;
      else if (move3) v2_q <= 1'b0;
      if (move3)        v3_q <= 1'b1;
      else if (m_ready) v3_q <= 1'b0;
    end
    if (issue) x0_q <= rd_x;
    if (move1) x1_q <= x0_q;
    if (move2) x2_q <= x1_q;
    if (move3) begin
      x3_q   <= x2_q;
      rec3_q <= rd_rec;
    end
  end

  qrdma_sdp_ram #(.WIDTH(REC_W), .DEPTH(1 << XW), .OUT_REG(1'b1), .RDW_ANY(1'b1)) u_rec (
    .clk,
    .wr_en   (keep),
    .wr_be   (1'b1),
    .wr_addr (s_xfer),
    .wr_data (s_rec),
    .rd_en   (move1),
    .rd_addr (x0_q),
    .rd_oe   (move2),
    .rd_data (rd_rec)
  );

  assign m_valid = v3_q || pass;
  assign m_xfer  = v3_q ? x3_q : s_xfer;
  assign m_rec   = v3_q ? rec3_q : s_rec;

`ifndef SYNTHESIS
  // a channel is kept at most once (the host port refuses a descriptor on a BUSY channel)
  always_ff @(posedge clk)
    if (keep)
      if (!rst) assert (!hm_keep[s_xfer[GB-1:0]])
        else $error("qrdma_host_cluster: transfer %0d kept twice", s_xfer);
`endif

endmodule

`default_nettype wire
