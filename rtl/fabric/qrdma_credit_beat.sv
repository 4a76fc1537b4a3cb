// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_credit_beat: the credit beat (net_credit, docs/formats.md) that carries the
// cumulative counts of N credit classes, classes 0 .. N-1, each with its parity bit
// ([FPGA-NI] §2.4; docs/fabric.md "Credits"); with sync set, a sync beat: the counts are
// the beats its sender sent per class (docs/fabric.md "Faults on fabric links").
// Combinational: the word is sampled by the link's sender when it goes out, so it carries
// the counts of that cycle.
`default_nettype none

module qrdma_credit_beat
  import qrdma_fmt_pkg::*;
#(
  parameter int unsigned N      = 8,    // classes carried (1 .. CREDIT_CLASSES)
  parameter int unsigned DATA_W = 512,  // beat bits
  parameter int unsigned CNT_W  = 16    // bits of a count (<= CREDIT_CNT_W)
) (
  input  logic [N-1:0][CNT_W-1:0] counts,
  input  logic                    sync,    // 1: counts of beats sent (a sync beat)
  output logic [DATA_W-1:0]       word
);

`ifndef SYNTHESIS
  initial begin
    if (N < 1 || N > CREDIT_CLASSES) $fatal(1, "qrdma_credit_beat: N in 1 .. CREDIT_CLASSES");
    if (CNT_W > CREDIT_CNT_W) $fatal(1, "qrdma_credit_beat: CNT_W <= CREDIT_CNT_W");
    if (DATA_W < NET_CREDIT_W) $fatal(1, "qrdma_credit_beat: DATA_W must hold a credit beat");
  end
`endif

  always_comb begin
    word = '0;
    word[NET_CREDIT_PTYPE_LSB +: NET_CREDIT_PTYPE_W] = NET_CREDIT_PTYPE_W'(NET_CREDIT);
    word[NET_CREDIT_SYNC_LSB]                        = sync;
    for (int k = 0; k < N; k++) begin
      word[NET_CREDIT_MASK_LSB + k]                      = 1'b1;
      word[NET_CREDIT_COUNT_LSB + k * CREDIT_CNT_W +: CREDIT_CNT_W] = CREDIT_CNT_W'(counts[k]);
      word[NET_CREDIT_PARITY_LSB + k]                    = ^counts[k];
    end
  end

endmodule

`default_nettype wire
