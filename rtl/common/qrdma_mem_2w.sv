// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_mem_2w: a small memory with two write ports and one asynchronous read port,
// built from two single-write LUT-RAM banks the XOR way (docs/modules.md#qrdma_mem_2w).
// Used for the pending table's valid bits ([QoS-RDMA] §3.5: set at issue by the
// segmenter, cleared on ACK by the message handler) and the host port's error reasons.
//
// Contract: a write is visible to the read port the next cycle. Both ports writing the
// same address in one cycle is not allowed (an assertion in simulation). No reset: the
// contents start unknown; a user that needs a known start clears every address after
// reset.
`default_nettype none

module qrdma_mem_2w
  import qrdma_pkg::*;
#(
  parameter int unsigned WIDTH = 1,    // bits per word
  parameter int unsigned DEPTH = 1024, // words
  localparam int unsigned AW   = idx_w(DEPTH)
) (
  input  logic             clk,
  input  logic             a_en,
  input  logic [AW-1:0]    a_addr,
  input  logic [WIDTH-1:0] a_data,
  input  logic             b_en,
  input  logic [AW-1:0]    b_addr,
  input  logic [WIDTH-1:0] b_data,
  input  logic [AW-1:0]    rd_addr,
  output logic [WIDTH-1:0] rd_data
);

`ifndef SYNTHESIS
  initial begin
    if (WIDTH < 1) $fatal(1, "qrdma_mem_2w: WIDTH must be >= 1");
    if (DEPTH < 2) $fatal(1, "qrdma_mem_2w: DEPTH must be >= 2");
  end
  always_ff @(posedge clk) begin
    if (a_en && b_en) assert (a_addr != b_addr)
      else $error("qrdma_mem_2w: both ports write address %0d in one cycle", a_addr);
  end
`endif

  logic [WIDTH-1:0] bank_a [DEPTH];
  logic [WIDTH-1:0] bank_b [DEPTH];

  always_ff @(posedge clk) begin
    if (a_en) bank_a[a_addr] <= a_data ^ bank_b[a_addr];
  end

  always_ff @(posedge clk) begin
    if (b_en) bank_b[b_addr] <= b_data ^ bank_a[b_addr];
  end

  assign rd_data = bank_a[rd_addr] ^ bank_b[rd_addr];

endmodule

`default_nettype wire
