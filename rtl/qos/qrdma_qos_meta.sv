// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_qos_meta: the transfer metadata table (one meta_t per transfer, [QoS-RDMA] §3.2)
// and the read-modify-write pipeline the segmenter (seg_*) and the message handler (hdl_*)
// share ([QoS-RDMA] §3.12; docs/qos.md "Metadata slot"). One operation per cycle, of
// either client: read in cycle r (MR), the entry from the block RAM's output register in
// r+2 (MM), written back in r+3 (MW) from the client's registers.
//
// Contract: a client reads only in a cycle the core gives it the slot (never both);
// the handler reads an entry only while hdl_busy is low for it (no operation on that
// entry between its read and its write: it then reads what every earlier operation
// wrote). The segmenter's operations are never in flight together on one entry; its
// reads may meet the handler's operations in flight: fwd_data in its MM cycle is the
// entry with the writes of the handler's operations read in r-1..r-3 (those of r-4 and
// earlier are in the RAM) forwarded. rd_data in MM is the RAM's entry (the handler's
// view). A client writes (its *_wr_en) in its MW cycle; the address is the one it read.
`default_nettype none

module qrdma_qos_meta
  import qrdma_fmt_pkg::*;
  import qrdma_qos_pkg::*;
(
  input  logic          clk,
  input  logic          rst,
  // reads (MR): at most one client per cycle
  input  logic          seg_rd,
  input  logic [XW-1:0] seg_rd_addr,
  input  logic          hdl_rd,
  input  logic          hdl_sel,      // the address is the handler's (hdl_rd, or a read of no one)
  input  logic [XW-1:0] hdl_rd_addr,
  output logic          hdl_busy,     // an operation on hdl_rd_addr is in flight (R1, MM, MW)
  // the entry in MM
  output meta_t         rd_data,      // as read from the RAM
  output meta_t         fwd_data,     // with the handler's writes in flight forwarded
  // write-backs (MW)
  input  logic          seg_wr_en,
  input  meta_t         seg_wr_data,
  input  logic          hdl_wr_en,
  input  meta_t         hdl_wr_data
);

  // the operation in each stage: valid, client, address
  logic          r1_v_q, mm_v_q, mw_v_q;
  logic          r1_h_q, mm_h_q, mw_h_q;
  logic [XW-1:0] r1_a_q, mm_a_q, mw_a_q;
  // the handler's writes of the last two cycles, for forwarding
  logic          w2_v_q;
  meta_t         w2_d_q, w3_d_q;
  // forwarding selects of the segmenter's operation in MM (registered in R1)
  logic          fm1_q, fm2_q, fm3_q;
  logic [XW-1:0] w2_a_q;

  logic          wr_en;
  meta_t         wr_data;
  meta_t         ram_q;

  // The address: the segmenter's unless the core names the handler's. Reading in a cycle
  // nobody uses the data is harmless.
  qrdma_sdp_ram #(
    .WIDTH   ($bits(meta_t)),
    .DEPTH   (NUM_CHANNELS),
    .OUT_REG (1'b1),
    // a read that meets the write of the same entry: the handler never reads an entry in
    // flight (hdl_busy); the segmenter's read meets only a write of the handler, which is
    // forwarded from w3 instead
    .RDW_ANY (1'b1)
  ) u_meta (
    .clk,
    .wr_en   (wr_en),
    .wr_be   (1'b1),
    .wr_addr (mw_a_q),
    .wr_data (wr_data),
    .rd_en   (1'b1),
    .rd_addr (hdl_sel ? hdl_rd_addr : seg_rd_addr),
    .rd_oe   (1'b1),
    .rd_data (ram_q)
  );

  assign wr_en   = mw_v_q && (mw_h_q ? hdl_wr_en : seg_wr_en);
  assign wr_data = mw_h_q ? hdl_wr_data : seg_wr_data;

  assign hdl_busy = (r1_v_q && r1_a_q == hdl_rd_addr) || (mm_v_q && mm_a_q == hdl_rd_addr)
                 || (mw_v_q && mw_a_q == hdl_rd_addr);

  always_ff @(posedge clk) begin
    r1_a_q <= hdl_sel ? hdl_rd_addr : seg_rd_addr;
    r1_h_q <= hdl_rd;
    mm_a_q <= r1_a_q;
    mm_h_q <= r1_h_q;
    mw_a_q <= mm_a_q;
    mw_h_q <= mm_h_q;
    w2_d_q <= hdl_wr_data;
    w2_a_q <= mw_a_q;
    w3_d_q <= w2_d_q;
    // the segmenter's operation in R1 against the handler's writes it will miss: in MM
    // now (writes in the next cycle), in MW (writes now), written in the last cycle
    fm1_q  <= !r1_h_q && mm_v_q && mm_h_q && mm_a_q == r1_a_q;
    fm2_q  <= !r1_h_q && mw_v_q && mw_h_q && hdl_wr_en && mw_a_q == r1_a_q;
    fm3_q  <= !r1_h_q && w2_v_q && w2_a_q == r1_a_q;
    if (rst) begin
      r1_v_q <= 1'b0;
      mm_v_q <= 1'b0;
      mw_v_q <= 1'b0;
      w2_v_q <= 1'b0;
    end else begin
      r1_v_q <= seg_rd || hdl_rd;
      mm_v_q <= r1_v_q;
      mw_v_q <= mm_v_q;
      w2_v_q <= mw_v_q && mw_h_q && hdl_wr_en;
    end
  end

  assign rd_data  = ram_q;
  // fm1: the handler's write of this cycle (its MW register), fm2: of the last cycle,
  // fm3: of the cycle before (the one the read met)
  assign fwd_data = fm1_q ? hdl_wr_data : (fm2_q ? w2_d_q : (fm3_q ? w3_d_q : ram_q));

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (seg_rd) begin
      if (!rst) assert (!hdl_rd)
        else $error("qrdma_qos_meta: both clients read in one cycle");
      if (!rst) assert (!hdl_sel)
        else $error("qrdma_qos_meta: the segmenter reads at the handler's address");
    end
    if (hdl_rd) begin
      if (!rst) assert (hdl_sel)
        else $error("qrdma_qos_meta: the handler reads at the segmenter's address");
      if (!rst) assert (!hdl_busy)
        else $error("qrdma_qos_meta: the handler reads entry %0d while it is in flight",
                    hdl_rd_addr);
    end
    if (seg_wr_en && mw_v_q)
      if (!rst) assert (!mw_h_q)
        else $error("qrdma_qos_meta: the segmenter writes in the handler's MW cycle");
    if (hdl_wr_en && mw_v_q)
      if (!rst) assert (mw_h_q)
        else $error("qrdma_qos_meta: the handler writes in the segmenter's MW cycle");
  end
`endif

endmodule

`default_nettype wire
