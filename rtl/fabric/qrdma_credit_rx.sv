// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_credit_rx: the receiving end of a credit-based link for one credit class
// ([FPGA-NI] §2.4: QFC-like cumulative counters; docs/fabric.md "Credits"). It counts the
// beats forwarded out of the receiver's buffer since the link started and offers that
// cumulative count as a credit update: when it has grown by UPD_MIN beats or more since
// the last update taken, and at least every REFRESH cycles even when it has not, so that
// a lost or corrupted update is repaired by a later one. It also counts the beats that
// arrived and takes the sender's count of beats sent from its sync beats: the difference,
// beats lost on the link (or, negative, beats that arrived uncharged), is added to the
// forwarded count, so a lost packet's credits come back (docs/fabric.md "Faults on
// fabric links").
//
// Contract: rst (synchronous, active high) starts the link; the counts start at 0 (the
// sender's counters start with it). s_free with s_beats (1 .. MAX_PKT) adds beats freed
// in the buffer, one pulse per cycle at most. s_arr with s_arr_beats (1 .. MAX_PKT) adds
// beats that arrived for this class, and s_sync with s_sync_count takes a sync beat's
// count of beats sent up to it, both in the order of the link (never in the same cycle):
// a sync is applied when its difference from the arrivals is below 2^SYNC_W in either
// direction (else refused: stat_sync_bad), two cycles after s_sync; the arrivals then
// equal its count. m_upd_* is a valid/ready stream of one register: m_upd_count holds
// while m_upd_valid waits and is the count of the cycle it was offered; after a handshake
// the next update may be offered two cycles later.
`default_nettype none

module qrdma_credit_rx #(
  parameter int unsigned CNT_W   = 16,    // cumulative counter, modulo 2^CNT_W
  parameter int unsigned MAX_PKT = 17,    // beats freed at once, at most
  parameter int unsigned UPD_MIN = 1,     // beats freed since the last update before a new one
  parameter int unsigned REFRESH = 1024,  // cycles after an update before one is sent unchanged
  parameter int unsigned SYNC_W  = CNT_W - 2, // a sync's difference from the arrivals is below 2^SYNC_W
  localparam int unsigned PKT_W  = $clog2(MAX_PKT + 1),
  localparam int unsigned TMR_W  = $clog2(REFRESH + 1)
) (
  input  logic             clk,
  input  logic             rst,
  input  logic             s_free,        // beats left the buffer
  input  logic [PKT_W-1:0] s_beats,       // how many, 1 .. MAX_PKT
  input  logic             s_arr,         // beats arrived for this class
  input  logic [PKT_W-1:0] s_arr_beats,   // how many, 1 .. MAX_PKT
  input  logic             s_sync,        // a sync beat: the sender's count of beats sent
  input  logic [CNT_W-1:0] s_sync_count,
  output logic             stat_sync_bad, // pulse: a sync refused (too far from the arrivals)
  output logic             m_upd_valid,
  input  logic             m_upd_ready,
  output logic [CNT_W-1:0] m_upd_count,   // beats forwarded since the link started
  output logic [CNT_W-1:0] count          // the count now
);

`ifndef SYNTHESIS
  initial begin
    if (CNT_W < 4 || CNT_W > 32) $fatal(1, "qrdma_credit_rx: CNT_W in 4..32");
    if (UPD_MIN < 1 || UPD_MIN >= (1 << (CNT_W - 2)))
      $fatal(1, "qrdma_credit_rx: UPD_MIN in 1 .. 2^(CNT_W-2) - 1");
    if (REFRESH < 2) $fatal(1, "qrdma_credit_rx: REFRESH >= 2");
    if (SYNC_W < 1 || SYNC_W > CNT_W - 2) $fatal(1, "qrdma_credit_rx: SYNC_W in 1 .. CNT_W-2");
  end
`endif

  logic [CNT_W-1:0] vf_q, last_q;
  logic [TMR_W-1:0] tmr_q;
  logic             grown_q, due_q, hs;
  // arrivals and syncs: Y1 the sync's count and its difference from the arrivals (no
  // arrival comes in a sync's cycle, so the arrivals are those before it), Y2 the range
  // check: the arrivals become the sync's count, the difference goes to the forwarded count
  logic [CNT_W-1:0] va_q, y_cnt_q, y_dif_q;
  logic             y_q, y_ok;

  assign hs   = m_upd_valid && m_upd_ready;
  // |difference| < 2^SYNC_W: its bits from SYNC_W up all equal (two's complement)
  assign y_ok = y_q && (y_dif_q[CNT_W-1:SYNC_W] == '0 || y_dif_q[CNT_W-1:SYNC_W] == '1);

  always_ff @(posedge clk) begin
    y_q     <= s_sync;
    y_cnt_q <= s_sync_count;
    y_dif_q <= s_sync_count - (y_ok ? y_cnt_q : va_q);  // (a sync in the cycle before)
    va_q    <= (y_ok ? y_cnt_q : va_q) + (s_arr ? CNT_W'(s_arr_beats) : '0);
    vf_q    <= vf_q + (s_free ? CNT_W'(s_beats) : '0) + (y_ok ? y_dif_q : '0);
    // (both from registers, a cycle behind: an offer never waits on a carry chain)
    grown_q <= (vf_q - last_q) >= CNT_W'(UPD_MIN);
    due_q   <= tmr_q >= TMR_W'(REFRESH);
    if (hs) begin
      m_upd_valid <= 1'b0;
      last_q      <= m_upd_count;
      tmr_q       <= '0;
      grown_q     <= 1'b0;
      due_q       <= 1'b0;
    end else begin
      if (!m_upd_valid && (grown_q || due_q)) begin
        m_upd_valid <= 1'b1;
        m_upd_count <= vf_q;
      end
      if (tmr_q != TMR_W'(REFRESH)) tmr_q <= tmr_q + TMR_W'(1);
    end
    if (rst) begin
      vf_q        <= '0;
      va_q        <= '0;
      y_q         <= 1'b0;
      last_q      <= '0;
      tmr_q       <= '0;
      grown_q     <= 1'b0;
      due_q       <= 1'b0;
      m_upd_valid <= 1'b0;
    end
  end

  assign stat_sync_bad = y_q && !y_ok;
  assign count = vf_q;

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst && s_free)
      /* verilator lint_off CMPCONST */  // constant when MAX_PKT is 2^PKT_W - 1
      assert (s_beats != '0 && 32'(s_beats) <= MAX_PKT)
        else $error("qrdma_credit_rx: freed beats out of 1..MAX_PKT");
      /* verilator lint_on CMPCONST */
    if (!rst && s_arr)
      /* verilator lint_off CMPCONST */  // constant when MAX_PKT is 2^PKT_W - 1
      assert (!s_sync && s_arr_beats != '0 && 32'(s_arr_beats) <= MAX_PKT)
        else $error("qrdma_credit_rx: arrived beats out of 1..MAX_PKT, or with a sync");
      /* verilator lint_on CMPCONST */
  end
`endif

endmodule

`default_nettype wire
