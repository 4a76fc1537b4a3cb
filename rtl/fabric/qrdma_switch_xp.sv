// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_switch_xp: one crosspoint buffer of the buffered-crossbar switch ([FPGA-NI] §3,
// "Crosspoint Buffers"; docs/fabric.md "Switch"): the packets of one input toward one
// output, store-and-forward, with the credit count its input's upstream sends for it.
// A packet is visible to the output only once its last beat is in; a packet that does
// not fit (its sender ignored the credits) or that the input aborts leaves nothing
// behind: the write pointer goes back to the last whole packet.
//
// Contract: w_valid writes one beat (w_last: the packet's last; with it w_abort drops the
// packet and w_beats, 1 .. MAX_PKT, says how many beats its sender sent). r_avail: a whole
// packet is in, r_beats its beats; r_take starts it (with r_avail); then the output reads
// its beats in order with r_en, r_last with the last one; r_data is the word two cycles
// after its r_en (the RAM's output register). With TAG_W > 0 each packet carries a tag
// (w_tag with its last beat, r_tag with r_beats: a register). count is the cumulative
// count of beats that left the buffer (read, or dropped: the sender's credits for them
// come back), offered as credit updates on upd_* (qrdma_credit_rx). ovf pulses with the
// last beat of a packet dropped because it did not fit. sy_valid with sy_count is a sync
// beat's count of the beats its sender sent toward this crosspoint, in the order of the
// writes (never with a last beat): the beats lost on the way count as left
// (docs/fabric.md "Faults on fabric links"); sync_bad pulses for one refused.
`default_nettype none

module qrdma_switch_xp
  import qrdma_pkg::*;
#(
  parameter int unsigned WIDTH   = 609,   // bits of a stored beat
  parameter int unsigned DEPTH   = 64,    // beats (power of 2, >= MAX_PKT)
  parameter int unsigned MAX_PKT = 17,    // beats of the longest packet
  parameter int unsigned CNT_W   = 16,    // cumulative credit count, modulo 2^CNT_W
  parameter int unsigned UPD_MIN = 17,    // beats freed before a credit update is offered
  parameter int unsigned REFRESH = 1024,  // cycles after an update before one is offered unchanged
  parameter int unsigned TAG_W   = 0,     // bits of a tag kept with each packet (0: none)
  localparam int unsigned PKT_W  = $clog2(MAX_PKT + 1),
  localparam int unsigned AW     = idx_w(DEPTH),
  localparam int unsigned TW     = TAG_W > 0 ? TAG_W : 1
) (
  input  logic             clk,
  input  logic             rst,
  // from the input
  input  logic             w_valid,
  input  logic [WIDTH-1:0] w_data,
  input  logic             w_last,
  input  logic             w_abort,
  input  logic [PKT_W-1:0] w_beats,
  input  logic [TW-1:0]    w_tag,     // (TAG_W > 0) the packet's tag, with its last beat
  output logic             ovf,
  input  logic             sy_valid,
  input  logic [CNT_W-1:0] sy_count,
  output logic             sync_bad,
  // to the output
  output logic             r_avail,
  output logic [PKT_W-1:0] r_beats,
  output logic [TW-1:0]    r_tag,     // (TAG_W > 0) the tag of the packet r_beats counts; else 0
  input  logic             r_take,
  input  logic             r_en,
  input  logic             r_last,
  output logic [WIDTH-1:0] r_data,
  output logic [AW:0]      level,     // beats held, with those of a packet being written
  // credits for the input's upstream
  output logic             upd_valid,
  input  logic             upd_ready,
  output logic [CNT_W-1:0] count
);

`ifndef SYNTHESIS
  initial begin
    if (DEPTH < MAX_PKT || (DEPTH & (DEPTH - 1)) != 0)
      $fatal(1, "qrdma_switch_xp: DEPTH must be a power of 2 >= MAX_PKT");
  end
`endif

  // pointers one bit wider than the address: used = wr - rd; full_q (a register) when it
  // is DEPTH, so the RAM's write enable is one gate after registers. Its next value is
  // chosen by the cycle's write, read and drop among compares of registers (one beat
  // short of full, the committed packets alone filling the buffer), so that no handshake
  // runs through a pointer's sum: a read never leaves it full; a write without a read
  // fills it from one beat short; a drop rewinds the write pointer to cm_q.
  // wr1_q = wr_q + 1 (a register): the write pointer's next value is a choice among
  // registers (kept, stepped, rewound), its sums formed from registers beside it.
  logic [AW:0]      wr_q, wr1_q, cm_q, rd_q, wr_d, rd_d, used;
  logic             full_q, ovf_q, we, commit, drop, almost, cm_full;
  logic [PKT_W-1:0] cur_q;          // beats of the packet being read
  logic             fr_q;           // beats left the buffer last cycle
  logic [PKT_W:0]   fr_beats_q;

  assign used   = wr_q - rd_q;
  assign we     = w_valid && !ovf_q && !full_q;
  assign drop   = w_valid && w_last && (w_abort || ovf_q || full_q);
  assign commit = w_valid && w_last && !drop;
  assign wr_d   = drop ? cm_q : (we ? wr1_q : wr_q);
  assign rd_d   = rd_q + (AW + 1)'(r_en);
  assign almost  = used == (AW + 1)'(DEPTH - 1);
  assign cm_full = (cm_q - rd_q) == (AW + 1)'(DEPTH);

  always_ff @(posedge clk) begin
    wr_q   <= wr_d;
    wr1_q  <= drop ? cm_q + 1'b1 : (we ? wr1_q + 1'b1 : wr1_q);
    rd_q   <= rd_d;
    full_q <= !r_en && (drop ? cm_full : (we ? almost : full_q));
    if (w_valid) begin
      if (commit) cm_q <= wr1_q;
      ovf_q <= !w_last && (ovf_q || full_q);
    end
    if (r_take) cur_q <= r_beats;
    // beats leave when the last of a packet is read, or with a dropped packet
    fr_q       <= (r_en && r_last) || drop;
    fr_beats_q <= (r_en && r_last ? (PKT_W + 1)'(cur_q) : '0)
                + (drop ? (PKT_W + 1)'(w_beats) : '0);
    if (rst) begin
      wr_q   <= '0;
      wr1_q  <= (AW + 1)'(1);
      cm_q   <= '0;
      rd_q   <= '0;
      full_q <= 1'b0;
      ovf_q  <= 1'b0;
      fr_q   <= 1'b0;
    end
  end

  assign ovf   = w_valid && w_last && !w_abort && (ovf_q || full_q);
  assign level = used;

  qrdma_sdp_ram #(.WIDTH(WIDTH), .DEPTH(DEPTH), .OUT_REG(1'b1), .RDW_ANY(1'b1)) u_ram (
    .clk,
    .wr_en   (we),
    .wr_be   (1'b1),
    .wr_addr (wr_q[AW-1:0]),
    .wr_data (w_data),
    .rd_en   (r_en),
    .rd_oe   (1'b1),
    .rd_addr (rd_q[AW-1:0]),
    .rd_data (r_data)
  );

  // beats (and tags) of the whole packets, in order (every packet has a beat in the RAM:
  // no overflow)
  localparam int unsigned LW = PKT_W + TAG_W;
  logic          len_ready;
  logic [LW-1:0] len_in, len_out;
  assign len_in[PKT_W-1:0] = w_beats;
  assign r_beats           = len_out[PKT_W-1:0];
  if (TAG_W > 0) begin : g_tag
    assign len_in[LW-1:PKT_W] = w_tag;
    assign r_tag              = len_out[LW-1:PKT_W];
  end else begin : g_no_tag
    assign r_tag = '0;
    logic unused_tag;  // (no tag kept: w_tag is ignored)
    assign unused_tag = ^w_tag;
  end
  /* verilator lint_off PINCONNECTEMPTY */  // count, almost_full: not used (the FIFO cannot overflow)
  // (the head in a register: the output's choice reads it without a LUT-RAM read)
  qrdma_sync_fifo #(.WIDTH(LW), .DEPTH(DEPTH), .RAM_MIN_DEPTH(DEPTH + 1), .HEAD_REG(1'b1)) u_len (
    .clk, .rst,
    .s_valid     (commit),
    .s_ready     (len_ready),
    .s_data      (len_in),
    .m_valid     (r_avail),
    .m_ready     (r_take),
    .m_data      (len_out),
    .count       (),
    .almost_full ()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  /* verilator lint_off PINCONNECTEMPTY */  // m_upd_count: the credit beat carries the count of the cycle it leaves
  // (every packet's beats arrive with its last beat, kept, aborted or overflowing alike;
  // a sync difference is at most the buffer: the sender never has more beats out)
  qrdma_credit_rx #(.CNT_W(CNT_W), .MAX_PKT(2 * MAX_PKT), .UPD_MIN(UPD_MIN),
                    .REFRESH(REFRESH), .SYNC_W(AW + 1)) u_cr (
    .clk, .rst,
    .s_free        (fr_q),
    .s_beats       (fr_beats_q),
    .s_arr         (w_valid && w_last),
    .s_arr_beats   ((PKT_W + 1)'(w_beats)),
    .s_sync        (sy_valid),
    .s_sync_count  (sy_count),
    .stat_sync_bad (sync_bad),
    .m_upd_valid (upd_valid),
    .m_upd_ready (upd_ready),
    .m_upd_count (),
    .count
  );
  /* verilator lint_on PINCONNECTEMPTY */

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) begin
      assert (!commit || len_ready) else $error("qrdma_switch_xp: length FIFO overflow");
      assert (!r_take || r_avail) else $error("qrdma_switch_xp: take without a packet");
      assert (!r_en || rd_q != cm_q) else $error("qrdma_switch_xp: read past the whole packets");
      assert (wr1_q == wr_q + 1'b1) else $error("qrdma_switch_xp: wr1_q %0d, wr_q %0d", wr1_q, wr_q);
      assert (full_q == (used == (AW + 1)'(DEPTH)))
        else $error("qrdma_switch_xp: full flag %0b, %0d beats held", full_q, used);
      /* verilator lint_off CMPCONST */  // constant when MAX_PKT is 2^PKT_W - 1
      assert (!(w_valid && w_last) || (w_beats != '0 && 32'(w_beats) <= MAX_PKT))
        else $error("qrdma_switch_xp: w_beats out of 1..MAX_PKT");
      /* verilator lint_on CMPCONST */
    end
  end
`endif

endmodule

`default_nettype wire
