// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_credit_parse: the counts of classes 0 .. N-1 in a credit beat (net_credit, docs/
// formats.md; docs/fabric.md "Credit beats"), each with whether the beat carries it and
// its parity holds, and whether it is a sync beat (counts of beats sent). Combinational: the link's receiving end registers what it takes. The
// inverse of qrdma_credit_beat.
`default_nettype none

module qrdma_credit_parse
  import qrdma_fmt_pkg::*;
#(
  parameter int unsigned N      = 8,    // classes taken (1 .. CREDIT_CLASSES)
  parameter int unsigned DATA_W = 512,  // beat bits
  parameter int unsigned CNT_W  = 16    // bits of a count (<= CREDIT_CNT_W)
) (
  /* verilator lint_off UNUSEDSIGNAL */  // the header fields other than the credits
  input  logic [DATA_W-1:0]       word,
  /* verilator lint_on UNUSEDSIGNAL */
  output logic [N-1:0]            good,    // class k carried, its parity right
  output logic                    sync,    // a sync beat: the counts are beats sent
  output logic [N-1:0][CNT_W-1:0] counts
);

`ifndef SYNTHESIS
  initial begin
    if (N < 1 || N > CREDIT_CLASSES) $fatal(1, "qrdma_credit_parse: N in 1 .. CREDIT_CLASSES");
    if (CNT_W > CREDIT_CNT_W) $fatal(1, "qrdma_credit_parse: CNT_W <= CREDIT_CNT_W");
    if (DATA_W < NET_CREDIT_W) $fatal(1, "qrdma_credit_parse: DATA_W must hold a credit beat");
  end
`endif

  assign sync = word[NET_CREDIT_SYNC_LSB];

  always_comb begin
    for (int k = 0; k < N; k++) begin
      good[k]   = word[NET_CREDIT_MASK_LSB + k]
               && !(^{word[NET_CREDIT_COUNT_LSB + k * CREDIT_CNT_W +: CREDIT_CNT_W],
                      word[NET_CREDIT_PARITY_LSB + k]});
      counts[k] = word[NET_CREDIT_COUNT_LSB + k * CREDIT_CNT_W +: CNT_W];
    end
  end

endmodule

`default_nettype wire
