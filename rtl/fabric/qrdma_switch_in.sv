// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_switch_in: one input port of the buffered-crossbar switch ([FPGA-NI] §3; docs/
// fabric.md "Switch"): routes each packet by its destination node to the crosspoint of
// its output, checks its length, and takes the credit beats of the link (the room at the
// neighbour behind this port: class 0 of a node, or a switch's classes 0 .. CLASSES-1)
// for the output of the same port.
//
// Contract: the input never stalls (the credits keep the crosspoints from overflowing).
// A packet's first beat is its header (net_hdr): dst_node indexes the route table
// (rt_table: entry n at bits n*RW, {enable, class, port}); the class, the packet's credit
// class at the next switch (0 toward a node), goes with the packet as w_tag. A packet with no route (node >=
// ROUTES, entry disabled, port >= P) is dropped whole (st_noroute). A DATA packet must have
// 1 + ceil((dst_addr mod 64 + len) / 64) beats, INLINE, CONTROL, ACK, NACK, MISS and
// REGISTER one; other types any number up to MAX_PKT. A packet whose length is wrong, or that passes
// MAX_PKT beats, is dropped (its crosspoint aborts it: st_bad; beats past MAX_PKT are
// discarded). A credit beat (NET_CREDIT, one beat) is not forwarded: each of its classes
// 0 .. CLASSES-1 whose mask and parity bits say it is good comes out on cr_valid[k] /
// cr_count two cycles after the beat; one without class 0 counts in st_bad. A sync beat
// (a credit beat with its sync bit: the neighbour's counts of beats sent per class, class
// k = this row's crosspoint k) comes out on sy_valid[k] / sy_count in the cycle a write
// would (in the order of the writes). w_* writes the crosspoints of this input's row
// two cycles after the beat arrived (w_valid one-hot; w_port, a register, its index while
// w_valid is not 0). st_pkt pulses once per packet (credit beats not counted).
`default_nettype none

module qrdma_switch_in
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
#(
  parameter int unsigned P       = 8,    // ports
  parameter int unsigned DATA_W  = 512,  // tdata bits
  parameter int unsigned USER_W  = 32,   // tuser bits (the CRC-32 of the packet)
  parameter int unsigned ROUTES  = 64,   // route table entries (nodes 0 .. ROUTES-1)
  parameter int unsigned MAX_PKT = 17,   // beats of the longest packet
  parameter int unsigned CNT_W   = 16,   // credit counts
  parameter int unsigned CLASSES = 1,    // credit classes at the neighbour (1: a node; P: a switch)
  localparam int unsigned KEEP_W = DATA_W / 8,
  localparam int unsigned WIDTH  = DATA_W + KEEP_W + USER_W,
  localparam int unsigned PW     = idx_w(P),
  localparam int unsigned CLW    = idx_w(CLASSES),
  localparam int unsigned RW     = 1 + CLW + PW,
  localparam int unsigned RIW    = idx_w(ROUTES),
  localparam int unsigned PKT_W  = $clog2(MAX_PKT + 1)
) (
  input  logic                 clk,
  input  logic                 rst,
  input  logic [ROUTES*RW-1:0] rt_table,
  // the link in
  input  logic [DATA_W-1:0]    s_tdata,
  input  logic [KEEP_W-1:0]    s_tkeep,
  input  logic [USER_W-1:0]    s_tuser,
  input  logic                 s_tlast,
  input  logic                 s_tvalid,
  // the crosspoints of this input's row
  output logic [P-1:0]         w_valid,
  output logic [WIDTH-1:0]     w_data,
  output logic                 w_last,
  output logic                 w_abort,
  output logic [PKT_W-1:0]     w_beats,
  output logic [PW-1:0]        w_port,     // the output w_valid writes toward
  output logic [CLW-1:0]       w_tag,      // the packet's class at the next switch (with w_last)
  // credit beats for the output of this port
  output logic [CLASSES-1:0]   cr_valid,
  output logic [CLASSES*CNT_W-1:0] cr_count,
  // sync beats for the crosspoints of this input's row
  output logic [P-1:0]         sy_valid,
  output logic [P*CNT_W-1:0]   sy_count,
  // counter pulses
  output logic                 st_pkt,
  output logic                 st_noroute,
  output logic                 st_bad
);

`ifndef SYNTHESIS
  initial begin
    if (DATA_W < NET_CREDIT_W) $fatal(1, "qrdma_switch_in: DATA_W must hold a header beat");
    if (CNT_W > CREDIT_CNT_W) $fatal(1, "qrdma_switch_in: CNT_W <= CREDIT_CNT_W");
    if (CLASSES > P) $fatal(1, "qrdma_switch_in: CLASSES <= P");
    if (ROUTES > (1 << NET_HDR_DST_NODE_W)) $fatal(1, "qrdma_switch_in: ROUTES too large");
  end
`endif

  // ---- I0: the beat as it arrived
  logic              v0_q, l0_q, sop0_q;
  logic [WIDTH-1:0]  w0_q;
  logic [DATA_W-1:0] d0;

  always_ff @(posedge clk) begin
    v0_q <= s_tvalid;
    w0_q <= {s_tuser, s_tkeep, s_tdata};
    l0_q <= s_tlast;
    if (v0_q) sop0_q <= l0_q;
    if (rst) begin
      v0_q   <= 1'b0;
      sop0_q <= 1'b1;
    end
  end
  assign d0 = w0_q[DATA_W-1:0];

  // ---- header decode (from I0)
  logic [3:0]                ptype;
  logic [NET_HDR_DST_NODE_W-1:0] node;
  logic [RW-1:0]             ent;
  logic                      rt_ok, cr_hdr, cr_good;
  logic [8:0]                exp_beats;
  logic                      exp_any;
  logic [13:0]               pay_end;

  assign ptype = d0[NET_HDR_PTYPE_LSB +: 4];
  assign node  = d0[NET_HDR_DST_NODE_LSB +: NET_HDR_DST_NODE_W];
  assign ent   = rt_table[32'(node[RIW-1:0]) * RW +: RW];
  /* verilator lint_off CMPCONST */  // constant when P or ROUTES is a power of 2
  assign rt_ok = 32'(node) < ROUTES && ent[RW-1] && 32'(ent[PW-1:0]) < P;
  /* verilator lint_on CMPCONST */
  assign pay_end = 14'(d0[NET_HDR_DST_ADDR_LSB +: 6]) + 14'(d0[NET_HDR_LEN_LSB +: NET_HDR_LEN_W])
                 + 14'd63;
  always_comb begin
    exp_any   = 1'b0;
    exp_beats = 9'd1;
    case (32'(ptype))
      NET_DATA:                                     exp_beats = 9'd1 + 9'(pay_end >> 6);
      NET_INLINE, NET_CONTROL, NET_ACK, NET_NACK,
      NET_MISS, NET_CREDIT, NET_REGISTER:           exp_beats = 9'd1;
      default:                                      exp_any   = 1'b1;
    endcase
  end
  assign cr_hdr  = 32'(ptype) == NET_CREDIT;
  logic [P-1:0]            cr_cls;
  logic [P-1:0][CNT_W-1:0] cr_cnt;
  logic                    cr_sync;
  qrdma_credit_parse #(.N(P), .DATA_W(DATA_W), .CNT_W(CNT_W)) u_crp (
    .word (d0), .good (cr_cls), .sync (cr_sync), .counts (cr_cnt)
  );
  assign cr_good = l0_q && cr_cls[0];

  // ---- I1: the beat with its packet's decisions
  logic              v1_q, l1_q, cut1_q, skip1_q, nort1_q, cr1_q, crok1_q, any1_q, sy1_q;
  logic [WIDTH-1:0]  w1_q;
  logic [PW-1:0]     port1_q;
  logic [CLW-1:0]    cls1_q, cls_q;
  logic [P-1:0]      crk1_q;
  logic [P-1:0]      wv1_q;    // the crosspoint written (one-hot, none for a beat not kept)
  logic [P-1:0][CNT_W-1:0] crc1_q;
  logic [8:0]        exp1_q;
  logic [PKT_W-1:0]  cnt1_q;
  // the packet being received (beats after its first)
  logic              skip_q, nort_q, cr_q, any_q;
  logic [PW-1:0]     port_q;
  logic [8:0]        exp_q;
  logic [PKT_W-1:0]  cnt_q, cnt_d;
  logic              cut;

  assign cnt_d = sop0_q ? PKT_W'(1) : cnt_q + 1'b1;
  // the beat that reaches MAX_PKT without being the last ends the packet (dropped)
  assign cut   = !l0_q && !(!sop0_q && skip_q) && 32'(cnt_d) == MAX_PKT;

  always_ff @(posedge clk) begin
    v1_q <= v0_q;
    w1_q <= w0_q;
    l1_q <= l0_q;
    // the write decoded here, so that each crosspoint's write enable starts at a register
    wv1_q <= '0;
    if (v0_q && !(!sop0_q && skip_q) && !(sop0_q ? !rt_ok : nort_q) && !(sop0_q ? cr_hdr : cr_q))
      wv1_q <= P'(1) << (sop0_q ? ent[PW-1:0] : port_q);
    if (v0_q) begin
      cnt_q <= cnt_d;
      if (sop0_q) begin
        port_q <= ent[PW-1:0];
        cls_q  <= ent[PW +: CLW];
        nort_q <= !rt_ok;
        cr_q   <= cr_hdr;
        exp_q  <= exp_beats;
        any_q  <= exp_any;
        skip_q <= cut;
      end else begin
        skip_q <= (skip_q || cut) && !l0_q;
      end
      port1_q <= sop0_q ? ent[PW-1:0] : port_q;
      cls1_q  <= sop0_q ? ent[PW +: CLW] : cls_q;
      nort1_q <= sop0_q ? !rt_ok : nort_q;
      cr1_q   <= sop0_q ? cr_hdr : cr_q;
      exp1_q  <= sop0_q ? exp_beats : exp_q;
      any1_q  <= sop0_q ? exp_any : any_q;
      skip1_q <= !sop0_q && skip_q;
      cut1_q  <= cut;
      cnt1_q  <= cnt_d;
      crok1_q <= sop0_q && cr_hdr && cr_good;
      crk1_q  <= l0_q ? cr_cls : '0;
      crc1_q  <= cr_cnt;
      sy1_q   <= cr_sync;
    end
    if (rst) begin
      v1_q   <= 1'b0;
      wv1_q  <= '0;
      skip_q <= 1'b0;
    end
  end

  // ---- I2: write the crosspoint (its write logic takes these directly)
  logic end1, bad_len;

  assign end1    = v1_q && !skip1_q && (l1_q || cut1_q);  // the packet's last beat
  assign bad_len = cut1_q || (!any1_q && 9'(cnt1_q) != exp1_q);
  assign w_valid = wv1_q;   // (v1_q && !skip1_q && !nort1_q && !cr1_q: 1 << port1_q)
  assign w_data  = w1_q;
  assign w_last  = l1_q || cut1_q;
  assign w_abort = bad_len;
  assign w_beats = cnt1_q;
  assign w_port  = port1_q;
  assign w_tag   = cls1_q;

  assign cr_valid = (v1_q && crok1_q && !sy1_q) ? crk1_q[CLASSES-1:0] : '0;
  assign sy_valid = (v1_q && crok1_q && sy1_q) ? crk1_q : '0;
  for (genvar k = 0; k < CLASSES; k++) begin : g_crc
    assign cr_count[k * CNT_W +: CNT_W] = crc1_q[k];
  end
  assign sy_count = crc1_q;

  assign st_pkt     = end1 && !cr1_q;
  assign st_noroute = end1 && nort1_q && !cr1_q;
  assign st_bad     = end1 && (cr1_q ? !crok1_q : (!nort1_q && bad_len));

`ifndef SYNTHESIS
  // the write decoded a cycle ahead is the beat's kept packet's crosspoint
  always_ff @(posedge clk) begin
    if (!rst)
      assert (wv1_q == ((v1_q && !skip1_q && !nort1_q && !cr1_q) ? P'(1) << port1_q : '0))
        else $error("qrdma_switch_in: crosspoint write %b, port %0d", wv1_q, port1_q);
  end
`endif

endmodule

`default_nettype wire
