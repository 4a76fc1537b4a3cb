// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_reg_slice: a register slice (skid buffer) for a valid/ready handshake. It cuts
// both directions: m_valid and m_data come from an output register, s_ready from a
// register, so no combinational path runs from s_* to m_* or from m_ready to s_ready.
// A second (skid) register takes the word offered in the cycle s_ready is still high
// while the output register holds a word that is not taken.
// Contract: words leave in the order they enter, each once; a word taken in cycle t is
// offered from t+1; one word per cycle sustained; s_ready is high whenever the skid
// register is empty; m_data is undefined while m_valid is low.
`default_nettype none

module qrdma_reg_slice #(
  parameter int unsigned WIDTH = 32  // bits per word
) (
  input  logic             clk,
  input  logic             rst,
  // in
  input  logic             s_valid,
  output logic             s_ready,
  input  logic [WIDTH-1:0] s_data,
  // out
  output logic             m_valid,
  input  logic             m_ready,
  output logic [WIDTH-1:0] m_data
);

`ifndef SYNTHESIS
  initial begin
    if (WIDTH < 1) $fatal(1, "qrdma_reg_slice: WIDTH must be >= 1");
  end
`endif

  logic             s_ready_q, m_valid_q, skid_valid_q;
  logic [WIDTH-1:0] m_data_q, skid_data_q;
  logic             out_free, in_to_out, in_to_skid, skid_to_out;

  // the output register is free when empty or taken in this cycle; a word offered while
  // s_ready_q is high goes there, else into the skid register, which empties into the
  // output register as it frees
  assign out_free    = !m_valid_q || m_ready;
  assign in_to_out   = s_ready_q && out_free;
  assign in_to_skid  = s_ready_q && !out_free;
  assign skid_to_out = !s_ready_q && m_ready;

  always_ff @(posedge clk) begin
    // next cycle the skid register is empty, so a word offered then has a place
    s_ready_q <= m_ready || (!skid_valid_q && (!m_valid_q || !s_valid));
    if (in_to_out)        m_valid_q <= s_valid;
    else if (skid_to_out) m_valid_q <= skid_valid_q;
    if (in_to_skid)       skid_valid_q <= s_valid;
    else if (skid_to_out) skid_valid_q <= 1'b0;
    if (rst) begin
      s_ready_q    <= 1'b0;
      m_valid_q    <= 1'b0;
      skid_valid_q <= 1'b0;
    end
  end

  // The output register loads whenever it is free, the skid word if there is one, else
  // the input word (s_ready_q is high exactly when the skid register is empty; a word
  // loaded without a valid one is not offered): the select is a register, and m_ready
  // reaches the wide register through its load enable alone.
  always_ff @(posedge clk) begin
    if (out_free)   m_data_q <= skid_valid_q ? skid_data_q : s_data;
    if (in_to_skid) skid_data_q <= s_data;
  end

  assign s_ready = s_ready_q;
  assign m_valid = m_valid_q;
  assign m_data  = m_data_q;

`ifndef SYNTHESIS
  // the skid register is empty whenever s_ready is high, and filled only then
  always_ff @(posedge clk) begin
    if (!rst) assert (!(s_ready_q && skid_valid_q))
      else $error("qrdma_reg_slice: s_ready high with the skid register full");
  end
`endif

endmodule

`default_nettype wire
