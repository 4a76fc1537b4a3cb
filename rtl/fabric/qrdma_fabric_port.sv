// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_fabric_port: a node's end of a credit-based link to a switch port ([FPGA-NI]
// §2.4-§2.5; docs/fabric.md "Node port"). Between the NIC's network stream and the link:
// per-destination virtual output queues (one per switch output, so one per credit class
// of the switch's crosspoints), each sending only with the credits the switch returns
// for it; a receive buffer of cfg_rx_credits beats whose room goes back to the switch in
// credit beats; and the NIC's per-destination pause, raised while a destination's queue
// fills, so that a congested destination never blocks the others. With VOQ = 0 the port
// is the baseline of [FPGA-NI] §3 instead: one queue for every destination, in arrival
// order, whose head packet waits for its own class's credits with every packet behind it
// (head-of-line blocking), and whose fill pauses every destination together.
//
// Contract: s_nic_* takes the NIC's packets (m_axis_tx); a packet goes to the queue of
// class rt_table[dst_node] (node n -> class n for n < CLASSES after reset, as the
// switch's route table; a packet without a class is dropped and counted; VOQ = 0: every
// packet goes to the one queue, tagged with its class). s_nic_tready (a register) is high
// while every queue has room for MAX_PKT + 4 beats. tx_pause[d] (a register) is high
// while destination d's queue (VOQ = 0: the one queue) holds PAUSE_LEVEL beats or more
// and d has a class. m_link_* carries the queues' packets, round robin among those whose
// next packet's class has room at the switch, the receive buffer's credit beats (class 0)
// and, every SYNC cycles, a sync beat (the beats sent per class). s_link_* never stalls:
// credit and sync beats (classes 0 .. CLASSES-1) are taken here (a sync beat's class 0:
// the beats lost on the way come back as credits, docs/fabric.md "Faults on fabric
// links"),
// every other beat goes to the receive buffer, which feeds m_nic_* (the NIC's
// s_axis_rx; RX_WHOLE = 1: a packet once it is whole in the buffer, then one beat per
// cycle); a beat that finds it full (the switch sent without credit) is dropped and
// counted.
`default_nettype none

module qrdma_fabric_port
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
#(
  parameter int unsigned CLASSES     = 8,     // switch ports (credit classes)
  parameter int unsigned VOQ         = 1,     // 1: a queue per class; 0: one queue (the baseline)
  parameter int unsigned NUM_NODES   = 8,     // the NIC's destinations (tx_pause bits)
  parameter int unsigned DATA_W      = 512,
  parameter int unsigned USER_W      = 32,
  parameter int unsigned ROUTES      = 64,    // class table entries (nodes 0 .. ROUTES-1)
  parameter int unsigned MAX_PKT     = 17,    // beats of the longest packet
  parameter int unsigned VOQ_DEPTH   = 128,   // beats per queue (power of 2)
  parameter int unsigned PAUSE_LEVEL = 64,    // queue beats that pause the NIC toward it
  parameter int unsigned RX_DEPTH    = 64,    // receive buffer beats (the credits it gives)
  parameter int unsigned RX_WHOLE    = 0,     // 1: m_nic_* offers a packet once it is whole
  parameter int unsigned CNT_W       = 16,
  parameter int unsigned UPD_MIN     = 17,    // beats freed before a credit beat is offered
  parameter int unsigned REFRESH     = 1024,  // cycles before an unchanged count is sent again
  parameter int unsigned SYNC        = 1024,  // cycles between sync beats toward the switch (0: none)
  localparam int unsigned KEEP_W     = DATA_W / 8,
  localparam int unsigned WIDTH      = DATA_W + KEEP_W + USER_W,
  localparam int unsigned CW         = idx_w(CLASSES),
  localparam int unsigned RW         = 2 + CW,   // qrdma_switch_in's entry: {enable, next class (0), port}
  localparam int unsigned RIW        = idx_w(ROUTES),
  localparam int unsigned PKT_W      = $clog2(MAX_PKT + 1),
  localparam int unsigned VW         = idx_w(VOQ_DEPTH) + 1,
  localparam int unsigned VRW        = idx_w(RX_DEPTH) + 1,
  localparam int unsigned NQ         = VOQ != 0 ? CLASSES : 1,   // queues
  localparam int unsigned TAG_W      = VOQ != 0 ? 0 : CW,        // a queued packet's class
  localparam int unsigned TW         = VOQ != 0 ? 1 : CW
) (
  input  logic                 clk,
  input  logic                 rst,
  input  logic [CNT_W-1:0]     cfg_credits,     // the switch's crosspoint buffer in beats (reset)
  // class table
  input  logic                 rt_we,
  input  logic [RIW-1:0]       rt_node,
  input  logic [CW-1:0]        rt_class,
  input  logic                 rt_en,
  // the NIC's network stream out (its m_axis_tx)
  input  logic [DATA_W-1:0]    s_nic_tdata,
  input  logic [KEEP_W-1:0]    s_nic_tkeep,
  input  logic [USER_W-1:0]    s_nic_tuser,
  input  logic                 s_nic_tlast,
  input  logic                 s_nic_tvalid,
  output logic                 s_nic_tready,
  output logic [NUM_NODES-1:0] tx_pause,
  // the NIC's network stream in (its s_axis_rx)
  output logic [DATA_W-1:0]    m_nic_tdata,
  output logic [KEEP_W-1:0]    m_nic_tkeep,
  output logic [USER_W-1:0]    m_nic_tuser,
  output logic                 m_nic_tlast,
  output logic                 m_nic_tvalid,
  input  logic                 m_nic_tready,
  // the link to the switch port
  output logic [DATA_W-1:0]    m_link_tdata,
  output logic [KEEP_W-1:0]    m_link_tkeep,
  output logic [USER_W-1:0]    m_link_tuser,
  output logic                 m_link_tlast,
  output logic                 m_link_tvalid,
  input  logic                 m_link_tready,
  input  logic [DATA_W-1:0]    s_link_tdata,
  input  logic [KEEP_W-1:0]    s_link_tkeep,
  input  logic [USER_W-1:0]    s_link_tuser,
  input  logic                 s_link_tlast,
  input  logic                 s_link_tvalid,
  output logic                 s_link_tready,
  // counters (32 bits, wrapping)
  output logic [31:0]          cnt_noroute,     // NIC packets without a class
  output logic [31:0]          cnt_bad,         // malformed credit beats from the switch
  output logic [31:0]          cnt_ovf,         // beats that found the receive buffer full
  output logic [31:0]          cnt_refused,     // credit counts refused
  output logic [CLASSES*CNT_W-1:0] credits      // room at the switch, per class
);

`ifndef SYNTHESIS
  initial begin
    if (CLASSES < 2 || CLASSES > CREDIT_CLASSES)
      $fatal(1, "qrdma_fabric_port: CLASSES in 2 .. CREDIT_CLASSES");
    if (PAUSE_LEVEL < 1 || PAUSE_LEVEL > VOQ_DEPTH - MAX_PKT - 4)
      $fatal(1, "qrdma_fabric_port: PAUSE_LEVEL in 1 .. VOQ_DEPTH - MAX_PKT - 4");
    if (RX_DEPTH < MAX_PKT) $fatal(1, "qrdma_fabric_port: RX_DEPTH >= MAX_PKT");
    if (NUM_NODES > ROUTES) $fatal(1, "qrdma_fabric_port: NUM_NODES <= ROUTES");
    if (VOQ > 1) $fatal(1, "qrdma_fabric_port: VOQ is 0 or 1");
  end
`endif

  // ---- class table (node -> class), as the switch's route table
  logic [ROUTES*RW-1:0] rt_q;
  always_ff @(posedge clk) begin
    if (rt_we) rt_q[32'(rt_node) * RW +: RW] <= {rt_en, 1'b0, rt_class};
    if (rst)
      for (int n = 0; n < ROUTES; n++)
        rt_q[n * RW +: RW] <= n < CLASSES ? {2'b10, CW'(n)} : '0;
  end

  // ================================================================ NIC -> link
  logic [CLASSES-1:0]       w_cls;
  logic [CW-1:0]            w_port;
  logic [NQ-1:0]            w_valid;
  logic [WIDTH-1:0]         w_data;
  logic                     w_last, w_abort, nic_in, st_nr;
  logic [PKT_W-1:0]         w_beats;
  logic [NQ-1:0]            q_avail, q_take, q_en, q_ovf;
  logic [NQ*PKT_W-1:0]      q_beats;
  logic [NQ*WIDTH-1:0]      q_data;
  logic [NQ-1:0][VW-1:0]    q_level;
  logic [NQ-1:0][TW-1:0]    q_tag;
  logic [NQ*CW-1:0]         q_class;
  logic                     q_last;

  assign nic_in = s_nic_tvalid && s_nic_tready;

  /* verilator lint_off PINCONNECTEMPTY */  // the NIC sends no credit beats; st_pkt, st_bad: not counted
  qrdma_switch_in #(.P(CLASSES), .DATA_W(DATA_W), .USER_W(USER_W), .ROUTES(ROUTES),
                    .MAX_PKT(MAX_PKT), .CNT_W(CNT_W)) u_in (
    .clk, .rst,
    .rt_table   (rt_q),
    .s_tdata    (s_nic_tdata),
    .s_tkeep    (s_nic_tkeep),
    .s_tuser    (s_nic_tuser),
    .s_tlast    (s_nic_tlast),
    .s_tvalid   (nic_in),
    .w_valid    (w_cls),
    .w_data,
    .w_last,
    .w_abort,
    .w_beats,
    .w_port,
    .w_tag      (),
    .cr_valid   (),
    .cr_count   (),
    .sy_valid   (),
    .sy_count   (),
    .st_pkt     (),
    .st_noroute (st_nr),
    .st_bad     ()
  );

  // a queue per class, each of its own class; or one queue, each packet tagged with its
  // class (the tag comes out with the head packet, a register)
  if (VOQ != 0) begin : g_cls
    assign w_valid = w_cls;
    for (genvar k = 0; k < NQ; k++) begin : g_k
      assign q_class[k * CW +: CW] = CW'(k);
    end
    logic unused_tag;  // (a queue's class is its index)
    assign unused_tag = ^{q_tag, w_port};
  end else begin : g_tag
    assign w_valid = |w_cls;
    assign q_class = q_tag[0];
  end

  for (genvar k = 0; k < NQ; k++) begin : g_voq
    qrdma_switch_xp #(.WIDTH(WIDTH), .DEPTH(VOQ_DEPTH), .MAX_PKT(MAX_PKT), .CNT_W(CNT_W),
                      .TAG_W(TAG_W)) u_voq (
      .clk, .rst,
      .w_valid   (w_valid[k]),
      .w_data,
      .w_last,
      .w_abort,
      .w_beats,
      .w_tag     (TW'(w_port)),
      .ovf       (q_ovf[k]),
      .sy_valid  (1'b0),
      .sy_count  ('0),
      .sync_bad  (),
      .r_avail   (q_avail[k]),
      .r_beats   (q_beats[k * PKT_W +: PKT_W]),
      .r_tag     (q_tag[k]),
      .r_take    (q_take[k]),
      .r_en      (q_en[k]),
      .r_last    (q_last),
      .r_data    (q_data[k * WIDTH +: WIDTH]),
      .level     (q_level[k]),
      .upd_valid (),
      .upd_ready (1'b0),
      .count     ()
    );
  end
  /* verilator lint_on PINCONNECTEMPTY */

  // the NIC may send while every queue has room for a packet and the beats on their way;
  // it sends no new packet of class k while the queue of k holds PAUSE_LEVEL beats
  logic [NQ-1:0]      roomy;
  logic [CLASSES-1:0] cls_full;
  always_comb begin
    for (int k = 0; k < NQ; k++)
      roomy[k] = 32'(q_level[k]) + MAX_PKT + 4 <= VOQ_DEPTH;
    for (int k = 0; k < CLASSES; k++)
      cls_full[k] = 32'(q_level[VOQ != 0 ? k : 0]) >= PAUSE_LEVEL;
  end
  always_ff @(posedge clk) begin
    s_nic_tready <= &roomy;
    for (int d = 0; d < NUM_NODES; d++)
      tx_pause[d] <= rt_q[d * RW + RW - 1] && cls_full[rt_q[d * RW +: CW]];
    if (rst) begin
      s_nic_tready <= 1'b0;
      tx_pause     <= '0;
    end
  end

  // ================================================================ link -> NIC
  logic              v0_q, l0_q, sop0_q, crb, rx_ok, rx_push;
  logic [WIDTH-1:0]  b0_q;
  logic [CLASSES-1:0]            cr_good;
  logic                          cr_sync;
  logic [CLASSES-1:0][CNT_W-1:0] cr_cnt;
  logic [CLASSES-1:0]            upd_v_q;
  logic [CLASSES*CNT_W-1:0]      upd_c_q;
  logic              bad_q, ovf_q;

  assign s_link_tready = 1'b1;

  always_ff @(posedge clk) begin
    v0_q <= s_link_tvalid;
    b0_q <= {s_link_tuser, s_link_tkeep, s_link_tdata};
    l0_q <= s_link_tlast;
    if (v0_q) sop0_q <= l0_q;
    if (rst) begin
      v0_q   <= 1'b0;
      sop0_q <= 1'b1;
    end
  end

  qrdma_credit_parse #(.N(CLASSES), .DATA_W(DATA_W), .CNT_W(CNT_W)) u_crp (
    .word (b0_q[DATA_W-1:0]), .good (cr_good), .sync (cr_sync), .counts (cr_cnt)
  );

  // a credit beat is one beat; a credit-type packet of more beats is malformed (the
  // rest of it is dropped with it)
  logic in_cr_q;
  assign crb     = v0_q && sop0_q && 32'(b0_q[NET_CREDIT_PTYPE_LSB +: NET_CREDIT_PTYPE_W]) == NET_CREDIT;
  assign rx_push = v0_q && !crb && !(!sop0_q && in_cr_q);

  always_ff @(posedge clk) begin
    if (v0_q) in_cr_q <= sop0_q ? crb && !l0_q : in_cr_q && !l0_q;
    for (int k = 0; k < CLASSES; k++) upd_v_q[k] <= crb && l0_q && !cr_sync && cr_good[k];
    upd_c_q <= cr_cnt;
    bad_q   <= crb && (!l0_q || (cr_good | ~b0_q[NET_CREDIT_MASK_LSB +: CLASSES])
                                != '1);
    ovf_q   <= rx_push && !rx_ok;
    if (rst) begin
      in_cr_q <= 1'b0;
      upd_v_q <= '0;
      bad_q   <= 1'b0;
      ovf_q   <= 1'b0;
    end
  end

  logic             f_valid;
  logic [WIDTH:0]   f_data;
  /* verilator lint_off PINCONNECTEMPTY */  // count, almost_full: the credits bound it
  qrdma_sync_fifo #(.WIDTH(WIDTH + 1), .DEPTH(RX_DEPTH)) u_rx (
    .clk, .rst,
    .s_valid     (rx_push),
    .s_ready     (rx_ok),
    .s_data      ({l0_q, b0_q}),
    .m_valid     (f_valid),
    .m_ready     (m_nic_tready),
    .m_data      (f_data),
    .count       (),
    .almost_full ()
  );
  /* verilator lint_on PINCONNECTEMPTY */
  // RX_WHOLE: whole packets only (the head's packet is whole while the buffer holds a
  // last beat), so a packet leaves at one beat per cycle whatever its link's rate
  if (RX_WHOLE != 0) begin : gen_whole
    logic [VRW-1:0] lasts_q, lasts_d;
    logic           whole_q;
    assign lasts_d = lasts_q + VRW'(rx_push && rx_ok && l0_q)
                   - VRW'(m_nic_tvalid && m_nic_tready && m_nic_tlast);
    always_ff @(posedge clk) begin
      lasts_q <= lasts_d;
      whole_q <= lasts_d != '0;
      if (rst) begin
        lasts_q <= '0;
        whole_q <= 1'b0;
      end
    end
    assign m_nic_tvalid = f_valid && whole_q;
  end else begin : gen_cut
    assign m_nic_tvalid = f_valid;
  end
  assign m_nic_tlast  = f_data[WIDTH];
  assign {m_nic_tuser, m_nic_tkeep, m_nic_tdata} = f_data[WIDTH-1:0];

  // the receive buffer's room, counted per beat taken by the NIC, back to the switch
  logic             cb_v, cb_take;
  logic [CNT_W-1:0] rx_count;
  logic [DATA_W-1:0] cb_word;
  /* verilator lint_off PINCONNECTEMPTY */  // m_upd_count: the beat carries the count of its cycle
  // (beats arrive one by one; a beat the full buffer refuses never arrived, so the switch's
  // next sync beat returns its credit; a sync's difference is at most the buffer)
  logic sync_bad;
  qrdma_credit_rx #(.CNT_W(CNT_W), .MAX_PKT(1), .UPD_MIN(UPD_MIN), .REFRESH(REFRESH),
                    .SYNC_W($clog2(RX_DEPTH + 1))) u_cr (
    .clk, .rst,
    .s_free        (m_nic_tvalid && m_nic_tready),
    .s_beats       (1'b1),
    .s_arr         (rx_push && rx_ok),
    .s_arr_beats   (1'b1),
    .s_sync        (crb && l0_q && cr_sync && cr_good[0]),
    .s_sync_count  (cr_cnt[0]),
    .stat_sync_bad (sync_bad),
    .m_upd_valid (cb_v),
    .m_upd_ready (cb_take),
    .m_upd_count (),
    .count       (rx_count)
  );
  /* verilator lint_on PINCONNECTEMPTY */
  qrdma_credit_beat #(.N(1), .DATA_W(DATA_W), .CNT_W(CNT_W)) u_cb (
    .counts (rx_count), .sync (1'b0), .word (cb_word)
  );

  // ---- the queues' scheduler and the link out
  logic st_ref;
  /* verilator lint_off PINCONNECTEMPTY */  // st_pkt, st_cb: not counted here
  qrdma_switch_out #(.P(NQ), .DATA_W(DATA_W), .USER_W(USER_W), .MAX_PKT(MAX_PKT),
                     .CNT_W(CNT_W), .CLASSES(CLASSES), .SYNC(SYNC)) u_out (
    .clk, .rst,
    .cr_en       (1'b1),
    .cfg_credits,
    .r_avail     (q_avail),
    .r_beats     (q_beats),
    .r_class     (q_class),
    .r_take      (q_take),
    .r_en        (q_en),
    .r_last      (q_last),
    .r_data      (q_data),
    .cb_pending  (cb_v),
    .cb_take,
    .cb_word,
    .s_upd_valid (upd_v_q),
    .s_upd_count (upd_c_q),
    .m_tdata     (m_link_tdata),
    .m_tkeep     (m_link_tkeep),
    .m_tuser     (m_link_tuser),
    .m_tlast     (m_link_tlast),
    .m_tvalid    (m_link_tvalid),
    .m_tready    (m_link_tready),
    .st_pkt      (),
    .st_cb       (),
    .st_refused  (st_ref),
    .credits
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // ---- counters
  always_ff @(posedge clk) begin
    cnt_noroute <= cnt_noroute + 32'(st_nr);
    cnt_bad     <= cnt_bad + 32'(bad_q);
    cnt_ovf     <= cnt_ovf + 32'(ovf_q);
    cnt_refused <= cnt_refused + 32'(st_ref) + 32'(sync_bad);
    if (rst) begin
      cnt_noroute <= '0;
      cnt_bad     <= '0;
      cnt_ovf     <= '0;
      cnt_refused <= '0;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) assert (q_ovf == '0) else $error("qrdma_fabric_port: a queue overflowed");
  end
`endif

endmodule

`default_nettype wire
