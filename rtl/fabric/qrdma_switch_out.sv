// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_switch_out: one output port of the buffered-crossbar switch ([FPGA-NI] §3,
// "Output Schedulers"; docs/fabric.md "Switch"): a round-robin scheduler over the
// crosspoints of its column that hold a whole packet, the credits of the link's far end
// (qrdma_credit_tx), the credit beats of the input of the same port, and the read
// pipeline from the crosspoint RAMs to the AXI-Stream output.
//
// Contract: a crosspoint is chosen one cycle ahead (pre-grant, registered) and its packet
// starts, with cr_en, only when the far end has room for MAX_PKT beats; the packet's beats
// are charged to the credits as it starts. CLASSES = 1: the far end is one buffer (a
// node's); CLASSES > 1: the far end has a buffer per credit class (a switch input's
// crosspoints, docs/fabric.md "Node port"), r_class names the class of each crosspoint's
// next packet (constant k for a node's virtual output queue k; the tag of the head packet
// for its single queue), and only a crosspoint whose class has room is chosen. A credit
// beat (cb_pending; its word cb_word is sampled two cycles after it starts) goes before
// any packet that has not started yet, and costs no credits (its request is registered:
// it starts a cycle after cb_pending rises). Beats are read one per cycle while the
// output holds fewer than OUT_DEPTH beats in its pipeline and FIFO, so m_tready low never
// reaches the RAMs. With cr_en low the output waits for m_tready only. s_upd_* takes the
// far end's credit counts; one that arrives while the credit counter is busy is dropped
// (a later one repairs it). With cr_en and SYNC > 0 a sync beat goes every SYNC cycles
// before the next packet that has not started: the beats started per class before it
// (docs/fabric.md "Faults on fabric links").
`default_nettype none

module qrdma_switch_out
  import qrdma_pkg::*;
#(
  parameter int unsigned P         = 8,    // ports (crosspoints in the column)
  parameter int unsigned DATA_W    = 512,
  parameter int unsigned USER_W    = 32,
  parameter int unsigned MAX_PKT   = 17,   // beats of the longest packet
  parameter int unsigned CNT_W     = 16,   // credit counts
  parameter int unsigned OUT_DEPTH = 4,    // beats in the read pipeline and the output FIFO
  parameter int unsigned CLASSES   = 1,    // credit classes at the far end (1: r_class ignored)
  parameter int unsigned SYNC      = 1024, // cycles between sync beats (0: none)
  localparam int unsigned KEEP_W   = DATA_W / 8,
  localparam int unsigned WIDTH    = DATA_W + KEEP_W + USER_W,
  localparam int unsigned PW       = idx_w(P),
  localparam int unsigned SW       = idx_w(P + 2),  // source: a crosspoint, P (credit beat) or P + 1 (sync beat)
  localparam int unsigned PKT_W    = $clog2(MAX_PKT + 1),
  localparam int unsigned OW       = cnt_w(OUT_DEPTH),
  localparam int unsigned CLW      = idx_w(CLASSES)
) (
  input  logic                   clk,
  input  logic                   rst,
  input  logic                   cr_en,        // the far end has a credit-counted buffer
  input  logic [CNT_W-1:0]       cfg_credits,  // the far end's buffer (each class's) in beats (taken in reset)
  // the crosspoints of this output's column
  input  logic [P-1:0]           r_avail,
  input  logic [P*PKT_W-1:0]     r_beats,
  input  logic [P*CLW-1:0]       r_class,      // each crosspoint's next packet's class
  output logic [P-1:0]           r_take,
  output logic [P-1:0]           r_en,
  output logic                   r_last,
  input  logic [P*WIDTH-1:0]     r_data,
  // credit beats toward the far end (the counts of the input of this port)
  input  logic                   cb_pending,
  output logic                   cb_take,
  input  logic [DATA_W-1:0]      cb_word,
  // the far end's credit counts (from the input of this port)
  input  logic [CLASSES-1:0]     s_upd_valid,
  input  logic [CLASSES*CNT_W-1:0] s_upd_count,
  // the link out
  output logic [DATA_W-1:0]      m_tdata,
  output logic [KEEP_W-1:0]      m_tkeep,
  output logic [USER_W-1:0]      m_tuser,
  output logic                   m_tlast,
  output logic                   m_tvalid,
  input  logic                   m_tready,
  // counter pulses
  output logic                   st_pkt,       // a packet started
  output logic                   st_cb,        // a credit beat started
  output logic                   st_refused,   // a credit count refused (stale or beyond)
  output logic [CLASSES*CNT_W-1:0] credits     // room at the far end, per class
);

`ifndef SYNTHESIS
  initial begin
    if (OUT_DEPTH < 4) $fatal(1, "qrdma_switch_out: OUT_DEPTH >= 4 (the read pipeline)");
    if (CLASSES < 1) $fatal(1, "qrdma_switch_out: CLASSES >= 1");
    if (SYNC > 0 && SYNC < 4) $fatal(1, "qrdma_switch_out: SYNC is 0 or >= 4");
  end
`endif

  // ---- pre-grant: the next crosspoint, chosen a cycle ahead (loaded in a cycle without
  // one; the crosspoint of a packet started shows its next packet a cycle later)
  logic               pg_q, start, start_cb, start_sy, gnt_valid, go;
  logic [CLASSES-1:0] ok, upd_ready, refused;
  logic [CLASSES-1:0][CNT_W-1:0] sent;
  logic [PW-1:0]      pg_idx_q, gnt_idx;
  logic [P-1:0]       req;
  logic [CLW-1:0]     pg_cls;

  // one class: the far end's room is checked as a packet starts; classes: only a
  // crosspoint whose next packet's class has room is chosen (that room only grows until
  // the packet starts: a class's room shrinks only as a packet of it starts, and the
  // pre-grant is chosen again, from the new room, the cycle after a start)
  if (CLASSES == 1) begin : g_one
    assign req    = r_avail;
    assign go     = ok[0] || !cr_en;
    assign pg_cls = '0;
    logic unused_cls;  // (one class: every packet is of it)
    assign unused_cls = ^r_class;
  end else begin : g_per
    for (genvar i = 0; i < P; i++) begin : g_req
      assign req[i] = r_avail[i] && (ok[r_class[i * CLW +: CLW]] || !cr_en);
    end
    assign go     = 1'b1;
    assign pg_cls = r_class[pg_idx_q * CLW +: CLW];
  end
  /* verilator lint_off PINCONNECTEMPTY */  // gnt: the index is used
  qrdma_arb_rr #(.N(P)) u_arb (
    .clk, .rst,
    .req,
    .ack       (!pg_q),
    .gnt       (),
    .gnt_valid,
    .gnt_idx
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // ---- the packet or credit beat being read
  // (from registers: the beats left to read, whether one is left, whether the pipeline and
  // the FIFO have room for one more)
  logic             busy_q, one_q, room_q, issue, last_issue, free;
  // a credit beat pending, registered (the offers' OR is not on the start's path); the
  // cycle after a credit beat starts it reads 0, as the offers it took are gone then
  logic             cbp_q;
  logic             syp_q;   // a sync beat due
  logic [SW-1:0]    sel_q;
  logic [PKT_W-1:0] rem_q, pg_beats;
  logic [OW-1:0]    occ_q, occ_d;
  logic             pop;

  assign pg_beats   = r_beats[pg_idx_q * PKT_W +: PKT_W];
  assign issue      = busy_q && room_q;
  assign last_issue = issue && one_q;
  assign free       = !busy_q || last_issue;
  assign start_cb   = free && cbp_q;
  assign start_sy   = free && !cbp_q && syp_q;
  assign start      = free && !cbp_q && !syp_q && pg_q && go;

  always_ff @(posedge clk) begin
    if (start || start_cb || start_sy) begin
      busy_q <= 1'b1;
      sel_q  <= start_cb ? SW'(P) : start_sy ? SW'(P + 1) : SW'(pg_idx_q);
      rem_q  <= start_cb || start_sy ? PKT_W'(1) : pg_beats;
      one_q  <= start_cb || start_sy || pg_beats == PKT_W'(1);
    end else if (issue) begin
      busy_q <= !last_issue;
      rem_q  <= rem_q - 1'b1;
      one_q  <= rem_q == PKT_W'(2);
    end
    if (start)                 pg_q <= 1'b0;
    else if (!pg_q) begin
      pg_q     <= gnt_valid;
      pg_idx_q <= gnt_idx;
    end
    occ_q  <= occ_d;
    cbp_q  <= cb_pending && !start_cb;
    room_q <= occ_d < OW'(OUT_DEPTH);
    if (rst) begin
      busy_q <= 1'b0;
      pg_q   <= 1'b0;
      occ_q  <= '0;
      room_q <= 1'b1;
      cbp_q  <= 1'b0;
    end
  end

  assign r_take  = start ? P'(1) << pg_idx_q : '0;
  assign r_en    = issue && sel_q < SW'(P) ? P'(1) << sel_q[PW-1:0] : '0;
  assign r_last  = one_q;
  assign occ_d   = occ_q + OW'(issue) - OW'(pop);
  assign cb_take = start_cb;

  // ---- read pipeline: the RAM's read and output register (two cycles), then the column's
  // multiplexer into the output FIFO
  logic          p1_q, p2_q, l1_q, l2_q;
  logic [SW-1:0] s1_q, s2_q;
  logic [WIDTH-1:0] mux;
  logic [DATA_W-1:0] sy_word;

  always_ff @(posedge clk) begin
    p1_q <= issue;
    p2_q <= p1_q;
    l1_q <= one_q;
    l2_q <= l1_q;
    s1_q <= sel_q;
    s2_q <= s1_q;
    if (rst) begin
      p1_q <= 1'b0;
      p2_q <= 1'b0;
    end
  end

  assign mux = s2_q == SW'(P)     ? {{USER_W{1'b0}}, {KEEP_W{1'b1}}, cb_word}
             : s2_q == SW'(P + 1) ? {{USER_W{1'b0}}, {KEEP_W{1'b1}}, sy_word}
                                  : r_data[32'(s2_q[PW-1:0]) * WIDTH +: WIDTH];

  logic             f_ready, f_valid;
  logic [WIDTH:0]   f_data;
  /* verilator lint_off PINCONNECTEMPTY */  // count, almost_full: the output counts its beats itself (occ_q)
  qrdma_sync_fifo #(.WIDTH(WIDTH + 1), .DEPTH(OUT_DEPTH), .HEAD_REG(1'b1), .WE_COPY(1'b1)) u_out (
    .clk, .rst,
    .s_valid     (p2_q),
    .s_ready     (f_ready),
    .s_data      ({l2_q, mux}),
    .m_valid     (f_valid),
    .m_ready     (m_tready),
    .m_data      (f_data),
    .count       (),
    .almost_full ()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  assign pop      = f_valid && m_tready;
  assign m_tvalid = f_valid;
  assign m_tlast  = f_data[WIDTH];
  assign {m_tuser, m_tkeep, m_tdata} = f_data[WIDTH-1:0];

  // ---- the far end's credits
  for (genvar k = 0; k < CLASSES; k++) begin : g_cr
    qrdma_credit_tx #(.CNT_W(CNT_W), .MAX_PKT(MAX_PKT)) u_cr (
      .clk, .rst,
      .cfg_credits,
      .ok           (ok[k]),
      .s_send       (start && cr_en && 32'(pg_cls) == k),
      .s_beats      (pg_beats),
      .s_upd_valid  (s_upd_valid[k] && cr_en),
      .s_upd_ready  (upd_ready[k]),
      .s_upd_count  (s_upd_count[k * CNT_W +: CNT_W]),
      .credits      (credits[k * CNT_W +: CNT_W]),
      .sent         (sent[k]),
      .stat_refused (refused[k])
    );
  end

  // ---- sync beats: the beats started per class before the beat, taken as it starts (no
  // packet starts until it has been read, so they are the counts of its place in the link)
  if (SYNC > 0) begin : g_sync
    localparam int unsigned YW = $clog2(SYNC + 1);
    logic [YW-1:0]                 tmr_q;
    logic [CLASSES-1:0][CNT_W-1:0] cnt_q;
    always_ff @(posedge clk) begin
      if (start_sy) begin
        syp_q <= 1'b0;
        cnt_q <= sent;
      end else if (tmr_q == YW'(SYNC - 1)) begin
        syp_q <= cr_en;
      end
      tmr_q <= tmr_q == YW'(SYNC - 1) ? '0 : tmr_q + 1'b1;
      if (rst) begin
        syp_q <= 1'b0;
        tmr_q <= '0;
      end
    end
    qrdma_credit_beat #(.N(CLASSES), .DATA_W(DATA_W), .CNT_W(CNT_W)) u_sy (
      .counts (cnt_q), .sync (1'b1), .word (sy_word)
    );
  end else begin : g_no_sync
    assign syp_q   = 1'b0;
    assign sy_word = '0;
    logic unused_sent;  // (no sync beats)
    assign unused_sent = ^sent;
  end
  assign st_refused = |refused;

  assign st_pkt = start;
  assign st_cb  = start_cb;

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) assert (!p2_q || f_ready) else $error("qrdma_switch_out: output FIFO overflow");
  end
`endif

  // (upd_ready low: the count is dropped; the far end's next update repairs it)
  logic unused;
  assign unused = |upd_ready;

endmodule

`default_nettype wire
