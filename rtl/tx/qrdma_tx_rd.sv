// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_tx_rd: the payload read issuer of the send unit (docs/nic.md "Send unit"). Turns
// each read command (len bytes at addr) into AXI4 INCR bursts of 64-byte beats (ARSIZE 6,
// one ID, AXI_ID = 0) covering the beats that hold the bytes, split so that no burst
// crosses a 4 KiB boundary (a packet of <= 4096 bytes needs at most two bursts). When it
// takes a command it passes the packet's read info (first lane, read beats, packed beats)
// to the R realigner, before the packet's first AR is presented, so the info is always
// there when the read data comes back. Buffer space for the data is reserved by the
// caller before the command is issued: the R channel is always ready.
// Timing: a command taken in cycle t is on AR (arvalid) in t+1; one AR per cycle while
// arready is high (the next command is taken in the cycle of the last AR of the one
// before).
`default_nettype none

module qrdma_tx_rd
  import qrdma_tx_pkg::*;
#(
  parameter int unsigned AXI_ID_W = 4  // width of m_axi_arid
) (
  input  logic                clk,
  input  logic                rst,
  // read commands
  input  logic                cmd_valid,
  output logic                cmd_ready,
  input  rd_cmd_t             cmd,
  // read info to the R realigner (one per command, pushed when it is taken)
  output logic                info_valid,
  input  logic                info_ready,
  output rd_info_t            info,
  // AXI4 read address channel
  output logic [AXI_ID_W-1:0] m_axi_arid,
  output logic [63:0]         m_axi_araddr,
  output logic [7:0]          m_axi_arlen,
  output logic [2:0]          m_axi_arsize,
  output logic [1:0]          m_axi_arburst,
  output logic                m_axi_arvalid,
  input  logic                m_axi_arready
);

  localparam int unsigned PAGE_BEATS = 4096 / BEAT_BYTES;  // beats of a 4 KiB page (64)
  localparam int unsigned PW         = $clog2(PAGE_BEATS);

  logic                  act_q;       // a packet's bursts are being issued
  logic [63-LANE_W:0]    beat_q;      // beat address of the next burst
  logic [BEATS_W-1:0]    left_q;      // beats still to request
  logic [BEATS_W-1:0]    to_page;     // beats from beat_q to the next 4 KiB boundary
  logic [BEATS_W-1:0]    blen;        // beats of the burst on AR
  logic                  ar_fire, ar_done, load;

  assign to_page = BEATS_W'(PAGE_BEATS) - BEATS_W'(beat_q[PW-1:0]);
  assign blen    = (left_q < to_page) ? left_q : to_page;
  assign ar_fire = act_q && m_axi_arready;
  assign ar_done = ar_fire && (left_q == blen);
  assign load    = cmd_valid && info_ready && (!act_q || ar_done);

  assign cmd_ready  = load;
  assign info_valid = load;
  assign info.slane = cmd.addr[LANE_W-1:0];
  assign info.n_src = beats_of(cmd.addr[LANE_W-1:0], cmd.len);
  assign info.n_p   = beats_of('0, cmd.len);

  always_ff @(posedge clk) begin
    if (rst) begin
      act_q <= 1'b0;
    end else if (load) begin
      act_q <= 1'b1;
    end else if (ar_done) begin
      act_q <= 1'b0;
    end
  end

  // (the branch that reads the registers first: Verilator then updates them in place,
  // docs/development.md)
  always_ff @(posedge clk) begin
    if (!load) begin
      if (ar_fire) begin
        beat_q <= beat_q + (64 - LANE_W)'(blen);
        left_q <= left_q - blen;
      end
    end else begin
      beat_q <= cmd.addr[63:LANE_W];
      left_q <= beats_of(cmd.addr[LANE_W-1:0], cmd.len);  // info.n_src
    end
  end

  assign m_axi_arid    = '0;
  assign m_axi_araddr  = {beat_q, LANE_W'(0)};
  assign m_axi_arlen   = 8'(blen - BEATS_W'(1));
  assign m_axi_arsize  = 3'(LANE_W);  // 64-byte beats
  assign m_axi_arburst = 2'b01;       // INCR
  assign m_axi_arvalid = act_q;

endmodule

`default_nettype wire
