// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_tx_rd: the payload read issuer of the send unit (docs/nic.md "Send unit"). Turns
// each read command (n_src beats from the beat of addr on) into AXI4 INCR bursts of
// 64-byte beats (ARSIZE 6, one ID, AXI_ID = 0), split so that no burst crosses a 4 KiB
// boundary (a packet of <= 4096 bytes needs at most two bursts). When it
// takes a command it passes the packet's read info (first lane, read beats, packed beats)
// to the R realigner, before the packet's first AR is presented, so the info is always
// there when the read data comes back. Buffer space for the data is reserved by the
// caller before the command is issued: the R channel is always ready.
// Timing: a command taken in cycle t is on AR (arvalid) in t+1; one AR per cycle while
// arready is high (the next command is taken in the cycle of the last AR of the one
// before). Every AR output is a register.
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

  // The burst on AR is held in registers: its beat address, ARLEN, and whether a second
  // burst (from the next 4 KiB page on) follows, with its ARLEN. A command is split at
  // the page boundary when its beats run past it.
  logic                  act_q;       // a burst is on AR
  logic                  two_q;       // a second burst of the same command follows
  logic [63-LANE_W:0]    beat_q;      // beat address of the burst on AR
  logic [7:0]            len_q;       // its ARLEN (beats - 1)
  logic [7:0]            len2_q;      // ARLEN of the second burst
  // The command's first beat in its page (a) plus its beats (n): the command needs two
  // bursts when a + n > PAGE_BEATS; the first then runs to the page's end (ARLEN
  // PAGE_BEATS - 1 - a = ~a) and the second takes a + n - PAGE_BEATS beats. One adder
  // for the split and both lengths, so the head of the command FIFO reaches ARLEN
  // through one carry chain (two for the second burst's).
  localparam int unsigned SUM_W = (PW > BEATS_W ? PW : BEATS_W) + 1;
  logic [PW-1:0]         pg_beat;     // a: the command's first beat in its 4 KiB page
  logic [PW-1:0]         pg_last;     // PAGE_BEATS - 1 - a: ARLEN to the page's end
  logic [SUM_W-1:0]      sum;         // a + n
  logic                  split;       // the command needs two bursts
  logic                  ar_fire, load;

  assign pg_beat = cmd.addr[LANE_W +: PW];
  assign pg_last = ~pg_beat;
  assign sum     = SUM_W'(pg_beat) + SUM_W'(cmd.n_src);
  assign split   = sum > SUM_W'(PAGE_BEATS);
  assign ar_fire = act_q && m_axi_arready;
  assign load    = cmd_valid && info_ready && (!act_q || (ar_fire && !two_q));

  assign cmd_ready  = load;
  assign info_valid = load;
  assign info.slane = cmd.addr[LANE_W-1:0];
  assign info.n_src = cmd.n_src;
  assign info.n_p   = cmd.n_p;

  always_ff @(posedge clk) begin
    if (load) begin
      act_q <= 1'b1;
      two_q <= split;
    end else if (ar_fire) begin
      act_q <= two_q;
      two_q <= 1'b0;
    end
    if (rst) begin  // last: overrides
      act_q <= 1'b0;
      two_q <= 1'b0;
    end
  end

  always_ff @(posedge clk) begin
    if (load) begin
      beat_q <= cmd.addr[63:LANE_W];
      len_q  <= split ? 8'(pg_last) : 8'(cmd.n_src - BEATS_W'(1));
      len2_q <= 8'(sum - SUM_W'(PAGE_BEATS + 1));
    end else if (ar_fire) begin
      // the second burst: from the next page on (the first one ended at its boundary)
      beat_q <= {beat_q[63-LANE_W:PW] + (64 - LANE_W - PW)'(1), PW'(0)};
      len_q  <= len2_q;
    end
  end

  assign m_axi_arid    = '0;
  assign m_axi_araddr  = {beat_q, LANE_W'(0)};
  assign m_axi_arlen   = len_q;
  assign m_axi_arsize  = 3'(LANE_W);  // 64-byte beats
  assign m_axi_arburst = 2'b01;       // INCR
  assign m_axi_arvalid = act_q;

`ifndef SYNTHESIS
  // a command fits two bursts: at most one page boundary inside it
  always_ff @(posedge clk) begin
    if (load)
      if (!rst) assert (cmd.n_src != '0 && 32'(sum) <= 2 * PAGE_BEATS)
        else $error("qrdma_tx_rd: read of %0d beats at 0x%0h: more than two bursts",
                    cmd.n_src, cmd.addr);
  end
`endif

endmodule

`default_nettype wire
