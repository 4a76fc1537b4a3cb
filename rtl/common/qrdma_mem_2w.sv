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
// A_LEAD / B_LEAD: that port's address comes one cycle ahead of its enable and data
// (x_addr in cycle t, x_en / x_data in t+1: the write at the end of t+1 goes to the
// address of t), so that the read of the other bank a write needs is made from a
// register a cycle early. The other port must not write that address in cycle t when
// this one writes it in t+1 (an assertion in simulation).
`default_nettype none

module qrdma_mem_2w
  import qrdma_pkg::*;
#(
  parameter int unsigned WIDTH  = 1,    // bits per word
  parameter int unsigned DEPTH  = 1024, // words
  parameter bit          A_LEAD = 1'b0, // port A's address a cycle ahead of its enable and data
  parameter bit          B_LEAD = 1'b0, // port B's address a cycle ahead of its enable and data
  localparam int unsigned AW    = idx_w(DEPTH)
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
`endif

  // LUT RAM (the read port is asynchronous): also when every read address of a bank
  // comes from a register, which would let synthesis take a block RAM
  (* ram_style = "distributed" *) logic [WIDTH-1:0] bank_a [DEPTH];
  (* ram_style = "distributed" *) logic [WIDTH-1:0] bank_b [DEPTH];

  // each port's write address and the other bank's word there
  logic [AW-1:0]    a_wa, b_wa;
  logic [WIDTH-1:0] a_ob, b_ob;

  if (A_LEAD) begin : gen_a_lead
    logic [AW-1:0]    wa_q;
    logic [WIDTH-1:0] ob_q;
    always_ff @(posedge clk) begin
      wa_q <= a_addr;
      ob_q <= bank_b[a_addr];
    end
    assign a_wa = wa_q;
    assign a_ob = ob_q;
  end else begin : gen_a_now
    assign a_wa = a_addr;
    assign a_ob = bank_b[a_addr];
  end

  if (B_LEAD) begin : gen_b_lead
    logic [AW-1:0]    wa_q;
    logic [WIDTH-1:0] ob_q;
    always_ff @(posedge clk) begin
      wa_q <= b_addr;
      ob_q <= bank_a[b_addr];
    end
    assign b_wa = wa_q;
    assign b_ob = ob_q;
  end else begin : gen_b_now
    assign b_wa = b_addr;
    assign b_ob = bank_a[b_addr];
  end

  always_ff @(posedge clk) begin
    if (a_en) bank_a[a_wa] <= a_data ^ a_ob;
  end

  always_ff @(posedge clk) begin
    if (b_en) bank_b[b_wa] <= b_data ^ b_ob;
  end

  assign rd_data = bank_a[rd_addr] ^ bank_b[rd_addr];

`ifndef SYNTHESIS
  // a leading port's early read must not miss a write of the other port in between
  logic a_missed_q, b_missed_q;
  always_ff @(posedge clk) begin
    a_missed_q <= A_LEAD && b_en && (b_wa == a_addr);
    b_missed_q <= B_LEAD && a_en && (a_wa == b_addr);
    if (a_en && b_en) assert (a_wa != b_wa)
      else $error("qrdma_mem_2w: both ports write address %0d in one cycle", a_wa);
    if (a_en) assert (!a_missed_q)
      else $error("qrdma_mem_2w: port B wrote address %0d as port A read it ahead", a_wa);
    if (b_en) assert (!b_missed_q)
      else $error("qrdma_mem_2w: port A wrote address %0d as port B read it ahead", b_wa);
  end
`endif

endmodule

`default_nettype wire
