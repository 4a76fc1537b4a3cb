// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_switch: a P-port buffered-crossbar (combined input-crosspoint queueing) switch
// for variable-size packets with credit-based links ([FPGA-NI] §3; docs/fabric.md
// "Switch"). Each input routes a packet by its destination node to the crosspoint buffer
// of its output (qrdma_switch_in, qrdma_switch_xp); each output takes whole packets from
// its column in round-robin order when the far end has credits for them
// (qrdma_switch_out); each input's crosspoints count the beats that left them, and the
// output of the same port carries those counts back upstream in credit beats, one class
// per output.
//
// Contract: port p's link in (s_*) and link out (m_*) go to the same neighbour. The
// inputs never stall: the neighbour sends toward output o only with credits of class o
// (XP_DEPTH beats per crosspoint); a packet that does not fit, has no route or a wrong
// length is dropped and counted. Output p sends only with credits from the neighbour's
// credit beats (cfg_credits beats per class, taken in reset) when cfg_credit_en[p] is set,
// else as m_tready allows, and then sends a sync beat every SYNC cycles (its beats started
// per class), so that the neighbour counts beats lost on the link as freed; the inputs
// take the neighbour's sync beats likewise (docs/fabric.md "Faults on fabric links"). The neighbour is a node (one buffer, class 0) or, with CLASSES
// = P, another switch (two hops, docs/fabric.md "Two hops"): a packet then needs room in
// its class there, the class its route entry names (its output at that switch). The
// route table (node n -> enable, class, port) is node n -> class 0, port n for n < P
// after reset; rt_we writes entry rt_node. Counters (32 bits, wrapping, per
// port): packets in, packets out, dropped for no route, dropped as malformed (length,
// size, bad credit beat), dropped for lack of room, credit and sync counts refused,
// credit beats sent.
//
// Benchmark mode (docs/fabric.md "Benchmark mode"): a stamped packet's header beat
// (qrdma_bench_pkg::is_stamped) gets the switch's arrival stamp as it is offered at
// input p (s_*) and its departure stamp as it is first offered at output p (m_*), both
// from one free-running STAMP_W-bit cycle count (0 in the cycle after rst), with hops + 1
// (qrdma_stamp; while hops < 2). Neither adds a register or a cycle: the stamps are
// written on the ports' beats as they pass.
`default_nettype none

module qrdma_switch
  import qrdma_pkg::*;
#(
  parameter int unsigned P         = 8,     // ports
  parameter int unsigned DATA_W    = 512,   // tdata bits per port
  parameter int unsigned USER_W    = 32,    // tuser bits (the packet's CRC-32)
  parameter int unsigned ROUTES    = 64,    // route table entries (nodes 0 .. ROUTES-1)
  parameter int unsigned MAX_PKT   = 17,    // beats of the longest packet
  parameter int unsigned XP_DEPTH  = 64,    // beats per crosspoint buffer (power of 2)
  parameter int unsigned CNT_W     = 16,    // credit counts
  parameter int unsigned UPD_MIN   = 17,    // beats freed in a crosspoint before it offers an update
  parameter int unsigned REFRESH   = 1024,  // cycles before an unchanged count is sent again
  parameter int unsigned OUT_DEPTH = 4,     // beats in an output's read pipeline and FIFO
  parameter int unsigned CLASSES   = 1,     // credit classes at an output's neighbour: 1 (nodes only) or P (switches too)
  parameter int unsigned SYNC      = 1024,  // cycles between an output's sync beats (0: none)
  localparam int unsigned KEEP_W   = DATA_W / 8,
  localparam int unsigned WIDTH    = DATA_W + KEEP_W + USER_W,
  localparam int unsigned PW       = idx_w(P),
  localparam int unsigned CLW      = idx_w(CLASSES),
  localparam int unsigned TAG_W    = CLASSES > 1 ? CLW : 0,  // a crosspoint's tag: the class
  localparam int unsigned RW       = 1 + CLW + PW,
  localparam int unsigned RIW      = idx_w(ROUTES),
  localparam int unsigned PKT_W    = $clog2(MAX_PKT + 1)
) (
  input  logic                 clk,
  input  logic                 rst,
  input  logic [P-1:0]         cfg_credit_en,
  input  logic [CNT_W-1:0]     cfg_credits,
  // route table
  input  logic                 rt_we,
  input  logic [RIW-1:0]       rt_node,
  input  logic [PW-1:0]        rt_port,
  input  logic [CLW-1:0]       rt_class,     // (CLASSES > 1) the class at the next switch
  input  logic                 rt_en,
  // links in
  input  logic [P*DATA_W-1:0]  s_tdata,
  input  logic [P*KEEP_W-1:0]  s_tkeep,
  input  logic [P*USER_W-1:0]  s_tuser,
  input  logic [P-1:0]         s_tlast,
  input  logic [P-1:0]         s_tvalid,
  output logic [P-1:0]         s_tready,
  // links out
  output logic [P*DATA_W-1:0]  m_tdata,
  output logic [P*KEEP_W-1:0]  m_tkeep,
  output logic [P*USER_W-1:0]  m_tuser,
  output logic [P-1:0]         m_tlast,
  output logic [P-1:0]         m_tvalid,
  input  logic [P-1:0]         m_tready,
  // counters
  output logic [P*32-1:0]      cnt_in,
  output logic [P*32-1:0]      cnt_out,
  output logic [P*32-1:0]      cnt_noroute,
  output logic [P*32-1:0]      cnt_bad,
  output logic [P*32-1:0]      cnt_ovf,
  output logic [P*32-1:0]      cnt_refused,
  output logic [P*32-1:0]      cnt_cb,       // credit beats sent
  output logic [P*CLASSES*CNT_W-1:0] credits  // room at each output's far end, per class (port-major)
);

`ifndef SYNTHESIS
  initial begin
    if (P < 2 || P > qrdma_fmt_pkg::CREDIT_CLASSES)
      $fatal(1, "qrdma_switch: P in 2 .. CREDIT_CLASSES");
    if (CLASSES != 1 && CLASSES != P) $fatal(1, "qrdma_switch: CLASSES is 1 or P");
    if (DATA_W < 512) $fatal(1, "qrdma_switch: DATA_W >= 512 (a header beat with its stamps)");
  end
`endif

  assign s_tready = '1;

  // ---- benchmark mode: the cycle count of the stamps
  logic [qrdma_fmt_pkg::STAMP_W-1:0] now_q;
  always_ff @(posedge clk) begin
    now_q <= now_q + 1'b1;
    if (rst) now_q <= '0;
  end

  // ---- route table
  logic [ROUTES*RW-1:0] rt_q;
  always_ff @(posedge clk) begin
    if (rt_we) rt_q[32'(rt_node) * RW +: RW] <= {rt_en, CLASSES > 1 ? rt_class : '0, rt_port};
    if (rst)
      for (int n = 0; n < ROUTES; n++)
        rt_q[n * RW +: RW] <= n < P ? {1'b1, CLW'(0), PW'(n)} : '0;
  end

  // ---- crosspoint signals, [i][o]: input i (row), output o (column)
  logic [P-1:0][P-1:0]           w_valid;
  logic [P-1:0][WIDTH-1:0]       w_data;
  logic [P-1:0]                  w_last, w_abort;
  logic [P-1:0][PKT_W-1:0]       w_beats;
  logic [P-1:0][P-1:0]           ovf, sy_bad;
  logic [P-1:0][P-1:0]           sy_valid;
  logic [P-1:0][P*CNT_W-1:0]     sy_count;
  logic [P-1:0][P-1:0]           r_avail, r_take, r_en;
  logic [P-1:0][P-1:0][PKT_W-1:0] r_beats;
  logic [P-1:0]                  r_last;     // per output
  logic [P-1:0][P-1:0][WIDTH-1:0] r_data;
  logic [P-1:0][P-1:0]           upd_valid;
  logic [P-1:0][CLW-1:0]         w_tag;
  logic [P-1:0][P-1:0][CLW-1:0]  r_tag;
  logic [P-1:0][P*CLW-1:0]       c_class;
  logic [P-1:0]                  cb_take;    // per input (= the output of its port)
  logic [P-1:0][P-1:0][CNT_W-1:0] xcount;
  // column views for the outputs
  logic [P-1:0][P-1:0]           c_avail, c_take, c_en;
  logic [P-1:0][P*PKT_W-1:0]     c_beats;
  logic [P-1:0][P*WIDTH-1:0]     c_data;

  for (genvar i = 0; i < P; i++) begin : g_row
    for (genvar o = 0; o < P; o++) begin : g_xp
      /* verilator lint_off PINCONNECTEMPTY */  // level: the inputs never stall
      qrdma_switch_xp #(.WIDTH(WIDTH), .DEPTH(XP_DEPTH), .MAX_PKT(MAX_PKT), .CNT_W(CNT_W),
                        .UPD_MIN(UPD_MIN), .REFRESH(REFRESH), .TAG_W(TAG_W)) u_xp (
        .clk, .rst,
        .w_valid   (w_valid[i][o]),
        .w_data    (w_data[i]),
        .w_last    (w_last[i]),
        .w_abort   (w_abort[i]),
        .w_beats   (w_beats[i]),
        .w_tag     (w_tag[i]),
        .ovf       (ovf[i][o]),
        .sy_valid  (sy_valid[i][o]),
        .sy_count  (sy_count[i][o * CNT_W +: CNT_W]),
        .sync_bad  (sy_bad[i][o]),
        .r_avail   (r_avail[i][o]),
        .r_beats   (r_beats[i][o]),
        .r_tag     (r_tag[i][o]),
        .r_take    (r_take[i][o]),
        .r_en      (r_en[i][o]),
        .r_last    (r_last[o]),
        .r_data    (r_data[i][o]),
        .level     (),
        .upd_valid (upd_valid[i][o]),
        .upd_ready (cb_take[i]),
        .count     (xcount[i][o])
      );
      /* verilator lint_on PINCONNECTEMPTY */
      assign c_avail[o][i]                  = r_avail[i][o];
      assign c_beats[o][i * PKT_W +: PKT_W] = r_beats[i][o];
      assign c_data[o][i * WIDTH +: WIDTH]  = r_data[i][o];
      assign c_class[o][i * CLW +: CLW]     = r_tag[i][o];
      assign r_take[i][o]                   = c_take[o][i];
      assign r_en[i][o]                     = c_en[o][i];
    end
  end

  // ---- ports
  logic [P-1:0]            st_in, st_noroute, st_bad, st_out, st_ovf, st_ref, st_cb;
  logic [P-1:0][CLASSES-1:0] cr_valid;
  logic [P-1:0][CLASSES*CNT_W-1:0] cr_count;
  logic [P-1:0][DATA_W-1:0] cb_word;
  // input p's beat with its arrival stamp; output p's beat before its departure stamp
  logic [P-1:0][DATA_W-1:0] s_st, m_un;

  for (genvar p = 0; p < P; p++) begin : g_port
    // arrival: the beat as offered at the port (its handshake: every beat is taken)
    logic [511:0] s_hdr;
    qrdma_stamp #(.KIND(2)) u_st_in (
      .clk, .rst,
      .now    (now_q),
      .valid  (s_tvalid[p]),
      .ready  (s_tready[p]),
      .last   (s_tlast[p]),
      .s_data (s_tdata[p * DATA_W +: 512]),
      .m_data (s_hdr)
    );
    logic [DATA_W-1:0] s_full;
    always_comb begin
      s_full        = s_tdata[p * DATA_W +: DATA_W];
      s_full[511:0] = s_hdr;
    end
    assign s_st[p] = s_full;

    /* verilator lint_off PINCONNECTEMPTY */  // w_port: w_valid names the crosspoint
    qrdma_switch_in #(.P(P), .DATA_W(DATA_W), .USER_W(USER_W), .ROUTES(ROUTES),
                      .MAX_PKT(MAX_PKT), .CNT_W(CNT_W), .CLASSES(CLASSES)) u_in (
      .clk, .rst,
      .rt_table   (rt_q),
      .s_tdata    (s_st[p]),
      .s_tkeep    (s_tkeep[p * KEEP_W +: KEEP_W]),
      .s_tuser    (s_tuser[p * USER_W +: USER_W]),
      .s_tlast    (s_tlast[p]),
      .s_tvalid   (s_tvalid[p]),
      .w_valid    (w_valid[p]),
      .w_data     (w_data[p]),
      .w_last     (w_last[p]),
      .w_abort    (w_abort[p]),
      .w_beats    (w_beats[p]),
      .w_port     (),
      .w_tag      (w_tag[p]),
      .cr_valid   (cr_valid[p]),
      .cr_count   (cr_count[p]),
      .sy_valid   (sy_valid[p]),
      .sy_count   (sy_count[p]),
      .st_pkt     (st_in[p]),
      .st_noroute (st_noroute[p]),
      .st_bad     (st_bad[p])
    );
    /* verilator lint_on PINCONNECTEMPTY */

    // the credit beat toward port p's neighbour: the counts of input p's crosspoints
    qrdma_credit_beat #(.N(P), .DATA_W(DATA_W), .CNT_W(CNT_W)) u_cb (
      .counts (xcount[p]),
      .sync   (1'b0),
      .word   (cb_word[p])
    );

    qrdma_switch_out #(.P(P), .DATA_W(DATA_W), .USER_W(USER_W), .MAX_PKT(MAX_PKT),
                       .CNT_W(CNT_W), .OUT_DEPTH(OUT_DEPTH), .CLASSES(CLASSES),
                       .SYNC(SYNC)) u_out (
      .clk, .rst,
      .cr_en       (cfg_credit_en[p]),
      .cfg_credits,
      .r_avail     (c_avail[p]),
      .r_beats     (c_beats[p]),
      .r_class     (c_class[p]),
      .r_take      (c_take[p]),
      .r_en        (c_en[p]),
      .r_last      (r_last[p]),
      .r_data      (c_data[p]),
      .cb_pending  (|upd_valid[p]),
      .cb_take     (cb_take[p]),
      .cb_word     (cb_word[p]),
      .s_upd_valid (cr_valid[p]),
      .s_upd_count (cr_count[p]),
      .m_tdata     (m_un[p]),
      .m_tkeep     (m_tkeep[p * KEEP_W +: KEEP_W]),
      .m_tuser     (m_tuser[p * USER_W +: USER_W]),
      .m_tlast     (m_tlast[p]),
      .m_tvalid    (m_tvalid[p]),
      .m_tready    (m_tready[p]),
      .st_pkt      (st_out[p]),
      .st_cb       (st_cb[p]),
      .st_refused  (st_ref[p]),
      .credits     (credits[p * CLASSES * CNT_W +: CLASSES * CNT_W])
    );

    // departure: the beat as offered at the link out, whose stream (packets, credit and
    // sync beats, each of those one beat with tlast) it follows from beat to beat
    logic [511:0] m_hdr;
    qrdma_stamp #(.KIND(3)) u_st_out (
      .clk, .rst,
      .now    (now_q),
      .valid  (m_tvalid[p]),
      .ready  (m_tready[p]),
      .last   (m_tlast[p]),
      .s_data (m_un[p][511:0]),
      .m_data (m_hdr)
    );
    logic [DATA_W-1:0] m_full;
    always_comb begin
      m_full        = m_un[p];
      m_full[511:0] = m_hdr;
    end
    assign m_tdata[p * DATA_W +: DATA_W] = m_full;

    assign st_ovf[p] = |ovf[p];

    // counters (registered increments)
    logic [31:0] c_in, c_out, c_nr, c_bad, c_ovf, c_ref, c_cb;
    always_ff @(posedge clk) begin
      c_in  <= c_in  + 32'(st_in[p]);
      c_out <= c_out + 32'(st_out[p]);
      c_nr  <= c_nr  + 32'(st_noroute[p]);
      c_bad <= c_bad + 32'(st_bad[p]);
      c_ovf <= c_ovf + 32'(st_ovf[p]);
      c_ref <= c_ref + 32'(st_ref[p]) + 32'(|sy_bad[p]);
      c_cb  <= c_cb  + 32'(st_cb[p]);
      if (rst) begin
        c_in  <= '0;
        c_out <= '0;
        c_nr  <= '0;
        c_bad <= '0;
        c_ovf <= '0;
        c_ref <= '0;
        c_cb  <= '0;
      end
    end
    assign cnt_in[p * 32 +: 32]      = c_in;
    assign cnt_out[p * 32 +: 32]     = c_out;
    assign cnt_noroute[p * 32 +: 32] = c_nr;
    assign cnt_bad[p * 32 +: 32]     = c_bad;
    assign cnt_ovf[p * 32 +: 32]     = c_ovf;
    assign cnt_refused[p * 32 +: 32] = c_ref;
    assign cnt_cb[p * 32 +: 32]      = c_cb;
  end

endmodule

`default_nettype wire
