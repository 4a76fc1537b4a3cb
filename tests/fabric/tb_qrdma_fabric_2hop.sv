// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// tb_qrdma_fabric_2hop: two switches (qrdma_switch, CLASSES = P: a class per output of the
// next switch) joined by a trunk on their ports P-1, each with P-1 nodes' ends of the
// fabric (qrdma_fabric_port) on its ports 0 .. P-2: node n on switch n / (P-1), port
// n mod (P-1); every link LINK_LAT cycles long each way (docs/fabric.md "Two hops"). After
// reset it writes the route tables itself, one entry per cycle, and raises cfg_done:
// a switch sends a node of its own to its port (class 0, a node's one buffer) and a node
// of the other switch to the trunk, with the node's port there as its class; a node's end
// puts a node of its own switch in the queue of that node's port and the other switch's
// nodes in the trunk's. For tests/fabric/test_qrdma_fabric.py, which plays the NICs. The
// crosspoints and the nodes' receive buffers have the same depth (a switch takes one
// cfg_credits for every output). Not hardware.
`default_nettype none

module tb_qrdma_fabric_2hop #(
  parameter int unsigned P           = 4,     // ports per switch: P-1 nodes and the trunk
  parameter int unsigned MAX_PKT     = 17,
  parameter int unsigned XP_DEPTH    = 64,    // also the nodes' receive buffers
  parameter int unsigned VOQ_DEPTH   = 128,
  parameter int unsigned PAUSE_LEVEL = 64,
  parameter int unsigned UPD_MIN     = 17,
  parameter int unsigned REFRESH     = 256,
  parameter int unsigned SYNC        = 1024,
  parameter int unsigned LINK_LAT    = 4,
  localparam int unsigned N          = 2 * (P - 1),   // nodes
  localparam int unsigned ROUTES     = 16,
  localparam int unsigned DATA_W     = 512,
  localparam int unsigned KEEP_W     = 64,
  localparam int unsigned USER_W     = 32,
  localparam int unsigned WIDTH      = DATA_W + KEEP_W + USER_W + 1,
  localparam int unsigned PW         = $clog2(P)
) (
  input  logic                clk,
  input  logic                rst,
  output logic                cfg_done,       // the route tables are written
  // the NICs' streams out (into their ports)
  input  logic [N*DATA_W-1:0] s_nic_tdata,
  input  logic [N*KEEP_W-1:0] s_nic_tkeep,
  input  logic [N*USER_W-1:0] s_nic_tuser,
  input  logic [N-1:0]        s_nic_tlast,
  input  logic [N-1:0]        s_nic_tvalid,
  output logic [N-1:0]        s_nic_tready,
  output logic [N*N-1:0]      tx_pause,       // node p's pause toward node d at bit p*N+d
  // the NICs' streams in
  output logic [N*DATA_W-1:0] m_nic_tdata,
  output logic [N*KEEP_W-1:0] m_nic_tkeep,
  output logic [N*USER_W-1:0] m_nic_tuser,
  output logic [N-1:0]        m_nic_tlast,
  output logic [N-1:0]        m_nic_tvalid,
  input  logic [N-1:0]        m_nic_tready,
  // counters: the switches' per port at s*P + port, the nodes' ends per node
  output logic [2*P*32-1:0]   sw_noroute,
  output logic [2*P*32-1:0]   sw_bad,
  output logic [2*P*32-1:0]   sw_ovf,
  output logic [2*P*32-1:0]   sw_refused,
  output logic [2*P*P*16-1:0] sw_credits,     // switch s's room at output o, class k: (s*P+o)*P+k
  output logic [N*32-1:0]     np_noroute,
  output logic [N*32-1:0]     np_bad,
  output logic [N*32-1:0]     np_ovf,
  output logic [N*32-1:0]     np_refused,
  output logic [N*P*16-1:0]   np_credits      // node n's room at its switch's crosspoint (., o): n*P+o
);

  // ---- route tables, written after reset: entry k in cycle k
  logic [4:0] wr_q;
  always_ff @(posedge clk) begin
    if (!cfg_done) wr_q <= wr_q + 1'b1;
    cfg_done <= cfg_done || wr_q == 5'(N - 1);
    if (rst) begin
      wr_q     <= '0;
      cfg_done <= 1'b0;
    end
  end
  logic             rt_we;
  logic [3:0]       rt_node;
  assign rt_we   = !rst && !cfg_done;
  assign rt_node = wr_q[3:0];
  localparam int unsigned M = P - 1;   // nodes per switch

  // ---- links: index 0 .. N-1 node n's (up: its end -> its switch; dn: back), N and
  // N + 1 the trunk (switch 0 -> 1, switch 1 -> 0)
  localparam int unsigned LK = N + 2;
  logic [LK-1:0][WIDTH-1:0] lk_in, lk_out, dk_in, dk_out;
  logic [LK-1:0]            lk_vi, lk_vo, dk_vi, dk_vo;
  for (genvar k = 0; k < LK; k++) begin : g_link
    logic [LINK_LAT-1:0][WIDTH-1:0] ud, dd;
    logic [LINK_LAT-1:0]            uv, dv;
    always_ff @(posedge clk) begin
      uv[0] <= lk_vi[k];
      ud[0] <= lk_in[k];
      dv[0] <= dk_vi[k];
      dd[0] <= dk_in[k];
      for (int i = 1; i < LINK_LAT; i++) begin
        uv[i] <= uv[i - 1];
        ud[i] <= ud[i - 1];
        dv[i] <= dv[i - 1];
        dd[i] <= dd[i - 1];
      end
      if (rst) begin
        uv <= '0;
        dv <= '0;
      end
    end
    assign lk_vo[k]  = uv[LINK_LAT-1];
    assign lk_out[k] = ud[LINK_LAT-1];
    assign dk_vo[k]  = dv[LINK_LAT-1];
    assign dk_out[k] = dd[LINK_LAT-1];
  end

  // ---- the nodes' ends
  for (genvar n = 0; n < N; n++) begin : g_node
    localparam int unsigned S = n / M;
    logic [PW-1:0] cls;
    assign cls = 32'(rt_node) / M == S ? PW'(32'(rt_node) % M) : PW'(M);
    logic [DATA_W-1:0] ld;
    logic [KEEP_W-1:0] lk;
    logic [USER_W-1:0] lu;
    logic              ll;
    /* verilator lint_off PINCONNECTEMPTY */  // credits: the room at the switch comes out as np_credits
    qrdma_fabric_port #(.CLASSES(P), .VOQ(1), .NUM_NODES(N), .ROUTES(ROUTES), .MAX_PKT(MAX_PKT),
                        .VOQ_DEPTH(VOQ_DEPTH), .PAUSE_LEVEL(PAUSE_LEVEL), .RX_DEPTH(XP_DEPTH),
                        .UPD_MIN(UPD_MIN), .REFRESH(REFRESH), .SYNC(SYNC)) u_port (
      .clk, .rst,
      .cfg_credits   (16'(XP_DEPTH)),
      .rt_we,
      .rt_node,
      .rt_class      (cls),
      .rt_en         (1'b1),
      .s_nic_tdata   (s_nic_tdata[n * DATA_W +: DATA_W]),
      .s_nic_tkeep   (s_nic_tkeep[n * KEEP_W +: KEEP_W]),
      .s_nic_tuser   (s_nic_tuser[n * USER_W +: USER_W]),
      .s_nic_tlast   (s_nic_tlast[n]),
      .s_nic_tvalid  (s_nic_tvalid[n]),
      .s_nic_tready  (s_nic_tready[n]),
      .tx_pause      (tx_pause[n * N +: N]),
      .m_nic_tdata   (m_nic_tdata[n * DATA_W +: DATA_W]),
      .m_nic_tkeep   (m_nic_tkeep[n * KEEP_W +: KEEP_W]),
      .m_nic_tuser   (m_nic_tuser[n * USER_W +: USER_W]),
      .m_nic_tlast   (m_nic_tlast[n]),
      .m_nic_tvalid  (m_nic_tvalid[n]),
      .m_nic_tready  (m_nic_tready[n]),
      .m_link_tdata  (ld),
      .m_link_tkeep  (lk),
      .m_link_tuser  (lu),
      .m_link_tlast  (ll),
      .m_link_tvalid (lk_vi[n]),
      .m_link_tready (1'b1),
      .s_link_tdata  (dk_out[n][DATA_W-1:0]),
      .s_link_tkeep  (dk_out[n][DATA_W +: KEEP_W]),
      .s_link_tuser  (dk_out[n][DATA_W + KEEP_W +: USER_W]),
      .s_link_tlast  (dk_out[n][WIDTH-1]),
      .s_link_tvalid (dk_vo[n]),
      .s_link_tready (),
      .cnt_noroute   (np_noroute[n * 32 +: 32]),
      .cnt_bad       (np_bad[n * 32 +: 32]),
      .cnt_ovf       (np_ovf[n * 32 +: 32]),
      .cnt_refused   (np_refused[n * 32 +: 32]),
      .credits       (np_credits[n * P * 16 +: P * 16])
    );
    /* verilator lint_on PINCONNECTEMPTY */
    assign lk_in[n] = {ll, lu, lk, ld};
  end

  // ---- the switches: switch s's port p < M is node s * M + p, port M the trunk
  for (genvar s = 0; s < 2; s++) begin : g_sw
    logic [PW-1:0] port, cls;
    assign port = 32'(rt_node) / M == s ? PW'(32'(rt_node) % M) : PW'(M);
    assign cls  = 32'(rt_node) / M == s ? PW'(0) : PW'(32'(rt_node) % M);
    logic [P*DATA_W-1:0] i_d, o_d;
    logic [P*KEEP_W-1:0] i_k, o_k;
    logic [P*USER_W-1:0] i_u, o_u;
    logic [P-1:0]        i_l, i_v, o_l, o_v;
    for (genvar p = 0; p < P; p++) begin : g_p
      // the link into port p: from node s * M + p, or the trunk from the other switch
      localparam int unsigned KI = p < M ? s * M + p : N + (1 - s);
      assign i_d[p * DATA_W +: DATA_W] = lk_out[KI][DATA_W-1:0];
      assign i_k[p * KEEP_W +: KEEP_W] = lk_out[KI][DATA_W +: KEEP_W];
      assign i_u[p * USER_W +: USER_W] = lk_out[KI][DATA_W + KEEP_W +: USER_W];
      assign i_l[p]                    = lk_out[KI][WIDTH-1];
      assign i_v[p]                    = lk_vo[KI];
      if (p < M) begin : g_down
        assign dk_in[s * M + p] = {o_l[p], o_u[p * USER_W +: USER_W], o_k[p * KEEP_W +: KEEP_W],
                                   o_d[p * DATA_W +: DATA_W]};
        assign dk_vi[s * M + p] = o_v[p];
      end else begin : g_trunk
        assign lk_in[N + s] = {o_l[p], o_u[p * USER_W +: USER_W], o_k[p * KEEP_W +: KEEP_W],
                               o_d[p * DATA_W +: DATA_W]};
        assign lk_vi[N + s] = o_v[p];
      end
    end
    /* verilator lint_off PINCONNECTEMPTY */  // s_tready: the inputs never stall; packet counts: not read
    qrdma_switch #(.P(P), .ROUTES(ROUTES), .MAX_PKT(MAX_PKT), .XP_DEPTH(XP_DEPTH),
                   .UPD_MIN(UPD_MIN), .REFRESH(REFRESH), .CLASSES(P), .SYNC(SYNC)) u_sw (
      .clk, .rst,
      .cfg_credit_en (P'((1 << P) - 1)),
      .cfg_credits   (16'(XP_DEPTH)),
      .rt_we,
      .rt_node,
      .rt_port       (port),
      .rt_class      (cls),
      .rt_en         (1'b1),
      .s_tdata       (i_d),
      .s_tkeep       (i_k),
      .s_tuser       (i_u),
      .s_tlast       (i_l),
      .s_tvalid      (i_v),
      .s_tready      (),
      .m_tdata       (o_d),
      .m_tkeep       (o_k),
      .m_tuser       (o_u),
      .m_tlast       (o_l),
      .m_tvalid      (o_v),
      .m_tready      ('1),
      .cnt_in        (),
      .cnt_out       (),
      .cnt_noroute   (sw_noroute[s * P * 32 +: P * 32]),
      .cnt_bad       (sw_bad[s * P * 32 +: P * 32]),
      .cnt_ovf       (sw_ovf[s * P * 32 +: P * 32]),
      .cnt_refused   (sw_refused[s * P * 32 +: P * 32]),
      .cnt_cb        (),
      .credits       (sw_credits[s * P * P * 16 +: P * P * 16])
    );
    /* verilator lint_on PINCONNECTEMPTY */
  end
  // (the trunk's far ends: nothing goes down to a node on links N, N + 1)
  assign dk_in[N]     = '0;
  assign dk_vi[N]     = 1'b0;
  assign dk_in[N + 1] = '0;
  assign dk_vi[N + 1] = 1'b0;
  logic unused;
  assign unused = ^{dk_out[N], dk_out[N + 1], dk_vo[N], dk_vo[N + 1], wr_q[4]};

endmodule

`default_nettype wire
