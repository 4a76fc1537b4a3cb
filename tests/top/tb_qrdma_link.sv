// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// tb_qrdma_link: testbench model of a point-to-point link (not hardware). A beat taken on
// s_axis at cycle t is offered on m_axis from cycle t + LATENCY on, in order, never
// dropped: the beats in flight wait in a FIFO of DEPTH beats and s_axis_tready falls only
// when it is full (so a receiver that stops stalls the sender after DEPTH beats, as a
// credit-based link would). Fault injection: a cycle with flip_en high arms the link; the
// header beat (first beat) of the next packet taken then has bit flip_bit of tdata
// inverted, which disarms it (one packet per arming); `flips` counts the packets
// corrupted so. A corrupted header always fails the receiver's CRC check.
`default_nettype none

module tb_qrdma_link #(
  parameter int unsigned LATENCY = 100,  // cycles from s_axis handshake to m_axis valid (>= 1)
  parameter int unsigned DEPTH   = 256   // beats the link holds (>= LATENCY + 2 for full rate)
) (
  input  logic         clk,
  input  logic         rst,
  input  logic [511:0] s_axis_tdata,
  input  logic [63:0]  s_axis_tkeep,
  input  logic         s_axis_tlast,
  input  logic [31:0]  s_axis_tuser,
  input  logic         s_axis_tvalid,
  output logic         s_axis_tready,
  output logic [511:0] m_axis_tdata,
  output logic [63:0]  m_axis_tkeep,
  output logic         m_axis_tlast,
  output logic [31:0]  m_axis_tuser,
  output logic         m_axis_tvalid,
  input  logic         m_axis_tready,
  input  logic         flip_en,
  input  logic [8:0]   flip_bit,
  output logic [31:0]  flips,
  output logic [511:0] flip_hdr,   // the last corrupted header as it was sent
  output logic [31:0]  beats,      // beats delivered on m_axis
  output logic [15:0]  occ         // beats held
);

`ifndef SYNTHESIS
  initial begin
    if (LATENCY < 1 || DEPTH < 2) $fatal(1, "tb_qrdma_link: LATENCY >= 1, DEPTH >= 2");
  end
`endif

  typedef struct packed {
    logic [31:0]  ts;
    logic [511:0] data;
    logic [63:0]  keep;
    logic         last;
    logic [31:0]  user;
  } beat_t;

  logic [31:0] now_q;
  logic        first_q;   // next beat taken is the first of a packet
  logic        armed_q;   // corrupt the next packet's header
  logic        hs, flip;
  beat_t       in, out;
  logic        out_valid;

  assign hs   = s_axis_tvalid && s_axis_tready;
  assign flip = hs && first_q && armed_q;
  assign in   = '{ts: now_q, data: s_axis_tdata ^ (512'(flip) << flip_bit),
                  keep: s_axis_tkeep, last: s_axis_tlast, user: s_axis_tuser};

  always_ff @(posedge clk) begin
    if (rst) begin
      now_q   <= '0;
      first_q <= 1'b1;
      armed_q <= 1'b0;
      flips   <= '0;
      flip_hdr <= '0;
      beats   <= '0;
    end else begin
      now_q <= now_q + 32'd1;
      if (hs) first_q <= s_axis_tlast;
      armed_q <= (armed_q || flip_en) && !flip;
      if (flip) flips <= flips + 32'd1;
      if (flip) flip_hdr <= s_axis_tdata;
      if (m_axis_tvalid && m_axis_tready) beats <= beats + 32'd1;
    end
  end

  logic [$clog2(DEPTH + 1)-1:0] count;
  /* verilator lint_off PINCONNECTEMPTY */
  qrdma_sync_fifo #(.WIDTH($bits(beat_t)), .DEPTH(DEPTH)) u_fifo (
    .clk, .rst,
    .s_valid (s_axis_tvalid), .s_ready (s_axis_tready), .s_data (in),
    .m_valid (out_valid), .m_ready (m_axis_tvalid && m_axis_tready), .m_data (out),
    .count (count), .almost_full ()
  );
  /* verilator lint_on PINCONNECTEMPTY */
  assign occ = 16'(count);

  // the head beat is due once LATENCY cycles have passed since it was taken
  assign m_axis_tvalid = out_valid && (now_q - out.ts >= 32'(LATENCY));
  assign m_axis_tdata  = out.data;
  assign m_axis_tkeep  = out.keep;
  assign m_axis_tlast  = out.last;
  assign m_axis_tuser  = out.user;

endmodule

`default_nettype wire
