// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_credit_tx: the sending end of a credit-based link for one credit class
// ([FPGA-NI] §2.4: QFC-like cumulative counters; docs/fabric.md "Credits"). It counts the
// beats sent into the receiver's buffer since the link started (vs) and takes the
// receiver's cumulative count of beats it forwarded out of that buffer (vr), so the room
// downstream is CREDITS - (vs - vr). An update that is lost is repaired by the next one;
// one that is older than the last taken or counts beats never sent (reordered, corrupted)
// is refused and counted. Nothing here holds data: the user starts a packet only with ok.
//
// Contract: rst (synchronous, active high) starts the link: cfg_credits (the receiver's
// buffer in beats, 1 .. 2^(CNT_W-1) - 1, at least MAX_PKT) is taken while rst is high,
// both counters start at 0 (the receiver's starts with it). ok (a register) is high when
// a packet of MAX_PKT beats fits downstream after every packet started before this cycle;
// a packet of s_beats (1 .. MAX_PKT) beats is started by a one-cycle s_send, only in a
// cycle with ok (an assertion in simulation). s_upd_* takes one update every four
// cycles at most (s_upd_ready, a register); a taken update's credit counts for ok from
// the fourth cycle after its handshake, later while a packet starts in every cycle (a
// credit is added in a cycle without a start). credits is the room downstream; sent the
// beats started since the link started (vs, counted as the packet starts: a register, so
// in a cycle it covers the packets started before it), which a sync beat carries.
// An update older than the newest taken by 2^CNT_W - cfg_credits beats or more would be
// taken as new: CNT_W covers the beats freed while an update may be delayed.
`default_nettype none

module qrdma_credit_tx #(
  parameter int unsigned CNT_W   = 16,  // cumulative counters, modulo 2^CNT_W
  parameter int unsigned MAX_PKT = 17,  // beats of the longest packet
  localparam int unsigned PKT_W  = $clog2(MAX_PKT + 1)
) (
  input  logic             clk,
  input  logic             rst,
  input  logic [CNT_W-1:0] cfg_credits,  // the receiver's buffer in beats (taken in reset)
  // packets started toward the receiver
  output logic             ok,           // a packet of MAX_PKT beats may start
  input  logic             s_send,       // a packet starts (only with ok)
  input  logic [PKT_W-1:0] s_beats,      // its beats, 1 .. MAX_PKT
  // the receiver's cumulative count of beats forwarded out of its buffer
  input  logic             s_upd_valid,
  output logic             s_upd_ready,
  input  logic [CNT_W-1:0] s_upd_count,
  output logic [CNT_W-1:0] credits,      // room downstream now, in beats
  output logic [CNT_W-1:0] sent,         // beats of the packets started before this cycle
  output logic             stat_refused  // pulse: an update refused (stale or out of range)
);

`ifndef SYNTHESIS
  initial begin
    if (CNT_W < 4 || CNT_W > 32) $fatal(1, "qrdma_credit_tx: CNT_W in 4..32");
    if (MAX_PKT < 1 || MAX_PKT >= (1 << (CNT_W - 2)))
      $fatal(1, "qrdma_credit_tx: MAX_PKT in 1 .. 2^(CNT_W-2) - 1");
  end
`endif

  // room downstream minus MAX_PKT, one bit wider (signed): ok is its sign, from a register
  logic [CNT_W:0]   rm_q, rm_d;
  logic [CNT_W-1:0] vs_q, vr_q;
  // update pipeline: U1 the update; U2 its distance from vr and the beats outstanding;
  // U3 the compare (taken when it is not past what was sent: a stale update is "past"
  // modulo 2^CNT_W); then its credit waits for a cycle in which no packet starts, so that
  // the room changes by one sum per cycle (a cycle without a start comes at the latest
  // when the room runs out)
  logic             u1_q, u2_q, tk_q, ref_q, rdy_q;
  logic [CNT_W-1:0] u1_cnt_q, u2_cnt_q, tk_cnt_q, du_q, ds_q, cr_q;
  logic             apply;

  assign s_upd_ready = rdy_q;   // nothing in U1, U2 or waiting to apply
  assign apply       = tk_q && !s_send;
  assign rm_d        = s_send ? rm_q - (CNT_W + 1)'(s_beats)
                              : rm_q + (CNT_W + 1)'(apply ? cr_q : '0);

  always_ff @(posedge clk) begin
    u1_q     <= s_upd_valid && rdy_q;
    u1_cnt_q <= s_upd_count;
    rdy_q    <= !(s_upd_valid && rdy_q) && !u1_q && !u2_q && !(tk_q && s_send);
    u2_q     <= u1_q;
    u2_cnt_q <= u1_cnt_q;
    du_q     <= u1_cnt_q - vr_q;
    ds_q     <= vs_q - vr_q;
    ref_q    <= u2_q && du_q > ds_q;
    if (u2_q) begin
      tk_q     <= du_q <= ds_q;
      tk_cnt_q <= u2_cnt_q;
      cr_q     <= du_q;
    end else if (apply) begin
      tk_q     <= 1'b0;
    end
    if (s_send) vs_q <= vs_q + CNT_W'(s_beats);
    if (apply)  vr_q <= tk_cnt_q;
    rm_q     <= rm_d;
    ok       <= !rm_d[CNT_W];
    if (rst) begin
      u1_q  <= 1'b0;
      rdy_q <= 1'b1;
      u2_q  <= 1'b0;
      tk_q  <= 1'b0;
      ref_q <= 1'b0;
      vs_q  <= '0;
      vr_q  <= '0;
      rm_q  <= (CNT_W + 1)'(cfg_credits) - (CNT_W + 1)'(MAX_PKT);
      ok    <= cfg_credits >= CNT_W'(MAX_PKT);
    end
  end

  assign credits      = CNT_W'(rm_q + (CNT_W + 1)'(MAX_PKT));
  assign stat_refused = ref_q;
  assign sent         = vs_q;

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst && s_send) begin
      assert (ok) else $error("qrdma_credit_tx: a packet started without credit");
      /* verilator lint_off CMPCONST */  // constant when MAX_PKT is 2^PKT_W - 1
      assert (s_beats != '0 && 32'(s_beats) <= MAX_PKT)
        else $error("qrdma_credit_tx: packet beats out of 1..MAX_PKT");
      /* verilator lint_on CMPCONST */
    end
  end
`endif

endmodule

`default_nettype wire
