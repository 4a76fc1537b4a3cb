// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_stamp: writes one benchmark stamp ([FPGA-NI] §4, docs/fabric.md "Benchmark mode")
// into the header beat of a stamped packet (qrdma_bench_pkg::is_stamped) where it passes
// an AXI-Stream point: the cycle count `now` of the cycle the header beat is first offered
// there. KIND selects the stamp: STAMP_SEND (t_send), STAMP_RECV (t_recv), STAMP_SW_IN
// (switch number `hops`'s arrival), STAMP_SW_OUT (its departure; hops + 1). A switch
// stamps while hops < 2.
// Contract: no register on the data path (m_data is s_data with the stamp written, in the
// same cycle); the handshake (valid, ready, last) is observed, not driven. A header beat
// that waits keeps the stamp of its first offered cycle, so m_data stays stable under
// backpressure as AXI-Stream requires. Packets that are not stamped pass unchanged.
`default_nettype none

module qrdma_stamp
  import qrdma_fmt_pkg::*;
  import qrdma_bench_pkg::*;
#(
  parameter int unsigned KIND = 0   // 0 STAMP_SEND, 1 STAMP_RECV, 2 STAMP_SW_IN, 3 STAMP_SW_OUT
) (
  input  logic               clk,
  input  logic               rst,
  input  logic [STAMP_W-1:0] now,     // the device's cycle count
  input  logic               valid,   // the handshake at the point
  input  logic               ready,
  input  logic               last,
  input  logic [511:0]       s_data,
  output logic [511:0]       m_data
);

  localparam int unsigned STAMP_SEND   = 0;
  localparam int unsigned STAMP_RECV   = 1;
  localparam int unsigned STAMP_SW_IN  = 2;
  localparam int unsigned STAMP_SW_OUT = 3;

`ifndef SYNTHESIS
  initial begin
    if (KIND > STAMP_SW_OUT) $fatal(1, "qrdma_stamp: KIND must be 0..3");
    if (NET_HDR_T_SW_W != 4 * STAMP_W || NET_HDR_HOPS_W != 2)
      $fatal(1, "qrdma_stamp: two switches of two stamps each");
  end
`endif

  logic               first_q;   // the next beat is a packet's first (its header)
  logic               held_q;    // the header beat was offered in the cycle before, not taken
  logic [STAMP_W-1:0] stamp_q;   // ... and the count of its first offered cycle
  logic [STAMP_W-1:0] t;
  logic [1:0]         hops;

  assign t    = held_q ? stamp_q : now;
  assign hops = s_data[NET_HDR_HOPS_LSB +: 2];

  always_ff @(posedge clk) begin
    if (valid && ready) first_q <= last;
    held_q  <= first_q && valid && !ready;
    stamp_q <= t;
    if (rst) begin
      first_q <= 1'b1;
      held_q  <= 1'b0;
    end
  end

  always_comb begin
    m_data = s_data;
    if (first_q && is_stamped(s_data)) begin
      unique case (KIND)
        STAMP_SEND: m_data[NET_HDR_T_SEND_LSB +: STAMP_W] = t;
        STAMP_RECV: m_data[NET_HDR_T_RECV_LSB +: STAMP_W] = t;
        STAMP_SW_IN:
          if (!hops[1]) m_data[NET_HDR_T_SW_LSB + 2 * STAMP_W * 32'(hops[0]) +: STAMP_W] = t;
        default:
          if (!hops[1]) begin
            m_data[NET_HDR_T_SW_LSB + 2 * STAMP_W * 32'(hops[0]) + STAMP_W +: STAMP_W] = t;
            m_data[NET_HDR_HOPS_LSB +: 2] = hops + 2'd1;
          end
      endcase
    end
  end

endmodule

`default_nettype wire
