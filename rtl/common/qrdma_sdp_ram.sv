// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_sdp_ram: simple dual-port RAM (one write port, one read port, one clock) written
// so that synthesis infers block RAM: no reset on the array, synchronous read. Used by the
// FIFO, the shared-space multi-queue and every table of the engine ([QoS-RDMA] §3.1-§3.5:
// the tables are dual-port memories).
//
// Contract: the write port has BE_W lane enables of WIDTH/BE_W bits each (BE_W = 1: one
// enable, wr_be tied high by the user); a lane is written when wr_en and its enable are
// high (the transfer table uses per-byte enables). rd_data is valid the cycle after rd_en
// and holds its value while rd_en is low. Read during write to the same address in the
// same cycle (RDW_NEW):
//   0  the read returns the OLD content: the block-RAM behaviour (read-first); nothing
//      extra is built.
//   1  the read returns the NEW content: the write is forwarded around the RAM by a
//      registered compare and a mux on rd_data (one WIDTH-wide mux, no extra latency).
`default_nettype none

module qrdma_sdp_ram
  import qrdma_pkg::*;
#(
  parameter int unsigned WIDTH  = 32,   // bits per word
  parameter int unsigned DEPTH  = 1024, // words
  parameter bit          RDW_NEW = 1'b0, // read-during-write returns new data (see header)
  parameter int unsigned BE_W   = 1,    // write-enable lanes (WIDTH must be a multiple)
  localparam int unsigned AW    = idx_w(DEPTH),
  localparam int unsigned LW    = WIDTH / BE_W
) (
  input  logic             clk,
  // write port
  input  logic             wr_en,
  input  logic [BE_W-1:0]  wr_be,
  input  logic [AW-1:0]    wr_addr,
  input  logic [WIDTH-1:0] wr_data,
  // read port
  input  logic             rd_en,
  input  logic [AW-1:0]    rd_addr,
  output logic [WIDTH-1:0] rd_data
);

`ifndef SYNTHESIS
  initial begin
    if (WIDTH < 1) $fatal(1, "qrdma_sdp_ram: WIDTH must be >= 1");
    if (DEPTH < 2) $fatal(1, "qrdma_sdp_ram: DEPTH must be >= 2");
    if (BE_W < 1 || WIDTH % BE_W != 0) $fatal(1, "qrdma_sdp_ram: WIDTH must be a multiple of BE_W");
  end
`endif

  logic [WIDTH-1:0] mem [DEPTH];
  logic [WIDTH-1:0] rd_q;

  // One process, the read first: the read gets the word as it was before the edge
  // (read-first), the form Yosys infers block RAM from.
  always_ff @(posedge clk) begin
    if (rd_en) rd_q <= mem[rd_addr];
    for (int i = 0; i < int'(BE_W); i++) begin
      if (wr_en && wr_be[i]) mem[wr_addr][i*LW +: LW] <= wr_data[i*LW +: LW];
    end
  end

  if (RDW_NEW) begin : gen_fwd
    logic [BE_W-1:0]  fwd_q;
    logic [WIDTH-1:0] fwd_data_q;
    always_ff @(posedge clk) begin
      if (rd_en) begin
        fwd_q      <= (wr_en && (wr_addr == rd_addr)) ? wr_be : '0;
        fwd_data_q <= wr_data;
      end
    end
    for (genvar i = 0; i < int'(BE_W); i++) begin : gen_lane
      assign rd_data[i*LW +: LW] = fwd_q[i] ? fwd_data_q[i*LW +: LW] : rd_q[i*LW +: LW];
    end
  end else begin : gen_nofwd
    assign rd_data = rd_q;
  end

endmodule

`default_nettype wire
