// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_qos_meta: the transfer metadata table (one meta_t per transfer, [QoS-RDMA] §3.2)
// and its one read-modify-write slot per cycle, shared by the segmenter (seg_*) and the
// message handler (hdl_*) with the adaptive "last served" arbitration of [QoS-RDMA]
// §3.12 (docs/qos.md "Metadata slot"). Contract: a client reads only in a cycle its
// *_rd_allow is high; rd_data is the entry read in the previous cycle, including a write
// of that cycle to the same entry; the client writes the entry back in the next cycle.
// seg_rd_allow is low for one cycle after a cycle in which the handler wanted the slot
// (hdl_rd_want) and the segmenter read; hdl_rd_allow is low while the segmenter reads.
`default_nettype none

module qrdma_qos_meta
  import qrdma_fmt_pkg::*;
  import qrdma_qos_pkg::*;
(
  input  logic          clk,
  input  logic          rst,
  // segmenter
  output logic          seg_rd_allow,
  input  logic          seg_rd_en,
  input  logic [XW-1:0] seg_rd_addr,
  input  logic          seg_wr_en,
  input  logic [XW-1:0] seg_wr_addr,
  input  meta_t         seg_wr_data,
  // message handler
  input  logic          hdl_rd_want,   // the handler needs the slot in this cycle
  output logic          hdl_rd_allow,
  input  logic          hdl_rd_en,
  input  logic [XW-1:0] hdl_rd_addr,
  input  logic          hdl_wr_en,
  input  logic [XW-1:0] hdl_wr_addr,
  input  meta_t         hdl_wr_data,
  // the entry read in the previous cycle (either client)
  output meta_t         rd_data
);

  logic          hdl_force_q;    // the handler was refused: it has the slot in this cycle
  logic          rd_en, wr_en;
  logic [XW-1:0] rd_addr, wr_addr;
  meta_t         wr_data;

  always_ff @(posedge clk) begin
    if (rst) hdl_force_q <= 1'b0;
    else     hdl_force_q <= hdl_rd_want && seg_rd_en;
  end

  assign seg_rd_allow = !hdl_force_q;
  assign hdl_rd_allow = !seg_rd_en;

  assign rd_en   = seg_rd_en || hdl_rd_en;
  assign rd_addr = seg_rd_en ? seg_rd_addr : hdl_rd_addr;
  assign wr_en   = seg_wr_en || hdl_wr_en;
  assign wr_addr = seg_wr_en ? seg_wr_addr : hdl_wr_addr;
  assign wr_data = seg_wr_en ? seg_wr_data : hdl_wr_data;

  qrdma_sdp_ram #(.WIDTH($bits(meta_t)), .DEPTH(NUM_CHANNELS), .RDW_NEW(1'b1)) u_meta (
    .clk,
    .wr_en(wr_en), .wr_be(1'b1), .wr_addr(wr_addr), .wr_data(wr_data),
    .rd_en(rd_en), .rd_addr(rd_addr), .rd_data(rd_data)
  );

`ifndef SYNTHESIS
  // a read pairs with a write the next cycle, so the clients never meet in either; each
  // check nested under its enable (docs/sim.md "Speed")
  always_ff @(posedge clk) begin
    if (seg_rd_en)
      if (!rst) assert (seg_rd_allow && !hdl_rd_en)
        else $error("qrdma_qos_meta: segmenter read while refused or with the handler's");
    if (seg_wr_en)
      if (!rst) assert (!hdl_wr_en)
        else $error("qrdma_qos_meta: both clients write in one cycle");
  end
`endif

endmodule

`default_nettype wire
