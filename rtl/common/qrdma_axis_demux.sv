// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_axis_demux: one AXI-Stream input onto one of N outputs, whole packets: s_sel,
// read with a packet's first beat, chooses the output of every beat of that packet.
//
// Contract: a packet goes whole to output s_sel (as it was with its first beat), its
// beats in order; the outputs share tdata, tkeep, tuser and tlast, and only the chosen
// one sees tvalid; s_axis_tready is the chosen output's tready (combinational: one
// multiplexer). s_sel must be below N.
`default_nettype none

module qrdma_axis_demux
  import qrdma_pkg::*;
#(
  parameter int unsigned N      = 2,    // outputs
  parameter int unsigned DATA_W = 512,  // tdata bits
  parameter int unsigned USER_W = 32,   // tuser bits
  localparam int unsigned KEEP_W = DATA_W / 8,
  localparam int unsigned IW     = idx_w(N)
) (
  input  logic              clk,
  input  logic              rst,
  input  logic [IW-1:0]     s_sel,          // the output of the packet, with its first beat
  input  logic [DATA_W-1:0] s_axis_tdata,
  input  logic [KEEP_W-1:0] s_axis_tkeep,
  input  logic [USER_W-1:0] s_axis_tuser,
  input  logic              s_axis_tlast,
  input  logic              s_axis_tvalid,
  output logic              s_axis_tready,
  output logic [DATA_W-1:0] m_axis_tdata,
  output logic [KEEP_W-1:0] m_axis_tkeep,
  output logic [USER_W-1:0] m_axis_tuser,
  output logic              m_axis_tlast,
  output logic [N-1:0]      m_axis_tvalid,
  input  logic [N-1:0]      m_axis_tready
);

`ifndef SYNTHESIS
  initial begin
    if (N < 1) $fatal(1, "qrdma_axis_demux: N must be >= 1");
  end
`endif

  logic          busy_q;     // inside a packet, whose output is sel_q
  logic [IW-1:0] sel_q, sel;

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst && s_axis_tvalid && !busy_q)
      assert (32'(s_sel) < N) else $error("qrdma_axis_demux: s_sel %0d >= N", s_sel);
  end
`endif

  assign sel           = busy_q ? sel_q : s_sel;
  assign s_axis_tready = m_axis_tready[sel];
  assign m_axis_tdata  = s_axis_tdata;
  assign m_axis_tkeep  = s_axis_tkeep;
  assign m_axis_tuser  = s_axis_tuser;
  assign m_axis_tlast  = s_axis_tlast;
  always_comb begin
    m_axis_tvalid = '0;
    m_axis_tvalid[sel] = s_axis_tvalid;
  end

  always_ff @(posedge clk) begin
    if (s_axis_tvalid && s_axis_tready) begin
      busy_q <= !s_axis_tlast;
      sel_q  <= sel;
    end
    if (rst) begin
      busy_q <= 1'b0;
      sel_q  <= '0;
    end
  end

endmodule

`default_nettype wire
