// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_fabric_dumbbell: the system simulation's two-switch network (docs/sim.md "Links"):
// two switches (qrdma_switch, CLASSES = their ports: a class per output of the next
// switch) joined by a trunk on their last ports, node n's end of the fabric
// (qrdma_fabric_planes with one plane) on switch n mod 2, port n / 2, so that nodes of
// different parity are two hops apart (docs/fabric.md "Two hops"). The harness connects
// each NIC to its node's end (nic_*) and every link through a C++ FIFO of the harness's
// link latency, with the port lists of qrdma_fabric_star: link k < P is node k's (up_*:
// its end's output, to sw_in_* k: its switch port's input; sw_out_* k: the switch port's
// output, to dn_* k: its end's input), link P the trunk (up_* P: switch 0's trunk output,
// to sw_in_* P: switch 1's trunk input; sw_out_* P: switch 1's trunk output, to dn_* P:
// switch 0's trunk input). Links take every beat, at most one in every cfg_link_div
// cycles, as in the star. After reset the route tables are written, one node per cycle
// (a switch sends a node of its own to the node's port, class 0, and any other to the
// trunk, with the node's port at the other switch as its class; a node's end queues by
// the output at its switch); the NICs' streams wait for that (nic_tx_tready low), and a
// NIC never sends before its own bring-up, thousands of cycles later. Not hardware.
`default_nettype none

module qrdma_fabric_dumbbell #(
  parameter int unsigned P           = 4,    // nodes: even, 2 .. 2 * (CREDIT_CLASSES - 1)
  parameter int unsigned VOQ_DEPTH   = 1024, // as qrdma_fabric_star
  parameter int unsigned PAUSE_LEVEL = 384,
  // crosspoints and node receive buffers alike: a switch output takes one cfg_credits for
  // every class, toward a node or the other switch
  parameter int unsigned XP_DEPTH    = 512,
  parameter int unsigned MAX_PKT     = 17,
  parameter int unsigned UPD_MIN     = 68,
  parameter int unsigned REFRESH     = 1024,
  localparam int unsigned M          = P / 2,        // nodes per switch
  localparam int unsigned SP         = M + 1,        // switch ports: M nodes and the trunk
  localparam int unsigned SPW        = $clog2(SP),
  localparam int unsigned NW         = $clog2(P),
  localparam int unsigned DATA_W     = 512,
  localparam int unsigned KEEP_W     = 64,
  localparam int unsigned USER_W     = 32,
  localparam int unsigned L          = P + 1         // links each way
) (
  input  logic                clk,
  input  logic                rst,
  input  logic [7:0]          cfg_link_div,   // a link beat in one cycle of every cfg_link_div
  // the NICs
  input  logic [P*DATA_W-1:0] nic_tx_tdata,
  input  logic [P*KEEP_W-1:0] nic_tx_tkeep,
  input  logic [P*USER_W-1:0] nic_tx_tuser,
  input  logic [P-1:0]        nic_tx_tlast,
  input  logic [P-1:0]        nic_tx_tvalid,
  output logic [P-1:0]        nic_tx_tready,
  output logic [P*P-1:0]      nic_tx_pause,   // node p's pause toward node d: bit p*P+d
  output logic [P*DATA_W-1:0] nic_rx_tdata,
  output logic [P*KEEP_W-1:0] nic_rx_tkeep,
  output logic [P*USER_W-1:0] nic_rx_tuser,
  output logic [P-1:0]        nic_rx_tlast,
  output logic [P-1:0]        nic_rx_tvalid,
  input  logic [P-1:0]        nic_rx_tready,
  // links: see the header
  output logic [L*DATA_W-1:0] up_tdata,
  output logic [L*KEEP_W-1:0] up_tkeep,
  output logic [L*USER_W-1:0] up_tuser,
  output logic [L-1:0]        up_tlast,
  output logic [L-1:0]        up_tvalid,
  input  logic [L*DATA_W-1:0] sw_in_tdata,
  input  logic [L*KEEP_W-1:0] sw_in_tkeep,
  input  logic [L*USER_W-1:0] sw_in_tuser,
  input  logic [L-1:0]        sw_in_tlast,
  input  logic [L-1:0]        sw_in_tvalid,
  output logic [L*DATA_W-1:0] sw_out_tdata,
  output logic [L*KEEP_W-1:0] sw_out_tkeep,
  output logic [L*USER_W-1:0] sw_out_tuser,
  output logic [L-1:0]        sw_out_tlast,
  output logic [L-1:0]        sw_out_tvalid,
  input  logic [L*DATA_W-1:0] dn_tdata,
  input  logic [L*KEEP_W-1:0] dn_tkeep,
  input  logic [L*USER_W-1:0] dn_tuser,
  input  logic [L-1:0]        dn_tlast,
  input  logic [L-1:0]        dn_tvalid,
  // packets dropped or refused anywhere (the harness's report)
  output logic [31:0]         drops
);

`ifndef SYNTHESIS
  initial if (P < 2 || P % 2 != 0 || SP > qrdma_fmt_pkg::CREDIT_CLASSES)
    $fatal(1, "qrdma_fabric_dumbbell: P even, 2 .. 2 * (CREDIT_CLASSES - 1)");
`endif

  // the links' beat slots
  logic [7:0] div_q;
  logic       slot;
  assign slot = div_q == '0;
  always_ff @(posedge clk) begin
    div_q <= (div_q + 8'd1 >= cfg_link_div) ? '0 : div_q + 8'd1;
    if (rst) div_q <= '0;
  end

  // ---- route tables, written after reset: node rt_node in cycle rt_node
  logic [NW:0] wr_q;
  logic        done_q, rt_we;
  logic [NW-1:0] rt_node;
  assign rt_we   = !rst && !done_q;
  assign rt_node = wr_q[NW-1:0];
  always_ff @(posedge clk) begin
    if (rt_we) wr_q <= wr_q + 1'b1;
    done_q <= done_q || 32'(wr_q) == P - 1;
    if (rst) begin
      wr_q   <= '0;
      done_q <= 1'b0;
    end
  end
  // where rt_node is: its switch and its port there
  logic          rt_sw;
  logic [SPW-1:0] rt_port;
  assign rt_sw   = rt_node[0];
  assign rt_port = SPW'(rt_node >> 1);

  // ---- the nodes' ends
  logic [P*32-1:0] e_nr, e_bad, e_ovf, e_ref;
  for (genvar n = 0; n < P; n++) begin : g_node
    localparam int unsigned S = n % 2;
    logic v, r, uv;
    assign v = nic_tx_tvalid[n] && done_q;
    assign nic_tx_tready[n] = r && done_q;
    assign up_tvalid[n] = uv && slot;   // a beat taken
    /* verilator lint_off PINCONNECTEMPTY */  // s_link_tready: never low; room at the switch: not read
    qrdma_fabric_planes #(.PLANES(1), .CLASSES(SP), .VOQ(1), .NUM_NODES(P), .ROUTES(P),
                          .MAX_PKT(MAX_PKT), .VOQ_DEPTH(VOQ_DEPTH), .PAUSE_LEVEL(PAUSE_LEVEL),
                          .RX_DEPTH(XP_DEPTH), .UPD_MIN(UPD_MIN), .REFRESH(REFRESH)) u_end (
      .clk, .rst,
      .cfg_credits   (16'(XP_DEPTH)),
      .rt_we,
      .rt_node,
      .rt_class      (32'(rt_sw) == S ? rt_port : SPW'(M)),
      .rt_en         (1'b1),
      .s_nic_tdata   (nic_tx_tdata[n * DATA_W +: DATA_W]),
      .s_nic_tkeep   (nic_tx_tkeep[n * KEEP_W +: KEEP_W]),
      .s_nic_tuser   (nic_tx_tuser[n * USER_W +: USER_W]),
      .s_nic_tlast   (nic_tx_tlast[n]),
      .s_nic_tvalid  (v),
      .s_nic_tready  (r),
      .tx_pause      (nic_tx_pause[n * P +: P]),
      .m_nic_tdata   (nic_rx_tdata[n * DATA_W +: DATA_W]),
      .m_nic_tkeep   (nic_rx_tkeep[n * KEEP_W +: KEEP_W]),
      .m_nic_tuser   (nic_rx_tuser[n * USER_W +: USER_W]),
      .m_nic_tlast   (nic_rx_tlast[n]),
      .m_nic_tvalid  (nic_rx_tvalid[n]),
      .m_nic_tready  (nic_rx_tready[n]),
      .m_link_tdata  (up_tdata[n * DATA_W +: DATA_W]),
      .m_link_tkeep  (up_tkeep[n * KEEP_W +: KEEP_W]),
      .m_link_tuser  (up_tuser[n * USER_W +: USER_W]),
      .m_link_tlast  (up_tlast[n]),
      .m_link_tvalid (uv),
      .m_link_tready (slot),
      .s_link_tdata  (dn_tdata[n * DATA_W +: DATA_W]),
      .s_link_tkeep  (dn_tkeep[n * KEEP_W +: KEEP_W]),
      .s_link_tuser  (dn_tuser[n * USER_W +: USER_W]),
      .s_link_tlast  (dn_tlast[n]),
      .s_link_tvalid (dn_tvalid[n]),
      .s_link_tready (),
      .cnt_noroute   (e_nr[n * 32 +: 32]),
      .cnt_bad       (e_bad[n * 32 +: 32]),
      .cnt_ovf       (e_ovf[n * 32 +: 32]),
      .cnt_refused   (e_ref[n * 32 +: 32]),
      .credits       ()
    );
    /* verilator lint_on PINCONNECTEMPTY */
  end

  // ---- the switches: switch s's port p < M is node 2p + s, port M the trunk
  logic [2*SP*32-1:0] s_nr, s_bad, s_ovf, s_ref;
  logic [1:0][SP-1:0] s_valid;
  for (genvar s = 0; s < 2; s++) begin : g_sw
    logic [SP*DATA_W-1:0] i_d, o_d;
    logic [SP*KEEP_W-1:0] i_k, o_k;
    logic [SP*USER_W-1:0] i_u, o_u;
    logic [SP-1:0]        i_l, i_v, o_l;
    for (genvar p = 0; p < SP; p++) begin : g_p
      // the link into port p and the one out of it: node 2p + s's, or the trunk's (its
      // link P: up from switch 0, down from switch 1)
      localparam int unsigned NODE = 2 * p + s;
      localparam bit          TRUNK = p == M;
      localparam int unsigned K = TRUNK ? P : NODE;
      if (TRUNK && s == 0) begin : g_trunk0   // out on link P up, in on link P down
        assign i_d[p * DATA_W +: DATA_W] = dn_tdata[K * DATA_W +: DATA_W];
        assign i_k[p * KEEP_W +: KEEP_W] = dn_tkeep[K * KEEP_W +: KEEP_W];
        assign i_u[p * USER_W +: USER_W] = dn_tuser[K * USER_W +: USER_W];
        assign i_l[p] = dn_tlast[K];
        assign i_v[p] = dn_tvalid[K];
        assign up_tdata[K * DATA_W +: DATA_W] = o_d[p * DATA_W +: DATA_W];
        assign up_tkeep[K * KEEP_W +: KEEP_W] = o_k[p * KEEP_W +: KEEP_W];
        assign up_tuser[K * USER_W +: USER_W] = o_u[p * USER_W +: USER_W];
        assign up_tlast[K]  = o_l[p];
        assign up_tvalid[K] = s_valid[s][p] && slot;
      end else begin : g_link   // a node's port, or switch 1's trunk: in on sw_in, out on sw_out
        assign i_d[p * DATA_W +: DATA_W] = sw_in_tdata[K * DATA_W +: DATA_W];
        assign i_k[p * KEEP_W +: KEEP_W] = sw_in_tkeep[K * KEEP_W +: KEEP_W];
        assign i_u[p * USER_W +: USER_W] = sw_in_tuser[K * USER_W +: USER_W];
        assign i_l[p] = sw_in_tlast[K];
        assign i_v[p] = sw_in_tvalid[K];
        assign sw_out_tdata[K * DATA_W +: DATA_W] = o_d[p * DATA_W +: DATA_W];
        assign sw_out_tkeep[K * KEEP_W +: KEEP_W] = o_k[p * KEEP_W +: KEEP_W];
        assign sw_out_tuser[K * USER_W +: USER_W] = o_u[p * USER_W +: USER_W];
        assign sw_out_tlast[K]  = o_l[p];
        assign sw_out_tvalid[K] = s_valid[s][p] && slot;
      end
    end
    /* verilator lint_off PINCONNECTEMPTY */  // s_tready: never low; packet and credit-beat counts, room: not read
    qrdma_switch #(.P(SP), .ROUTES(P), .MAX_PKT(MAX_PKT), .XP_DEPTH(XP_DEPTH),
                   .UPD_MIN(UPD_MIN), .REFRESH(REFRESH), .CLASSES(SP)) u_sw (
      .clk, .rst,
      .cfg_credit_en ('1),
      .cfg_credits   (16'(XP_DEPTH)),
      .rt_we,
      .rt_node,
      .rt_port       (32'(rt_sw) == s ? rt_port : SPW'(M)),
      .rt_class      (32'(rt_sw) == s ? SPW'(0) : rt_port),
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
      .m_tvalid      (s_valid[s]),
      .m_tready      ({SP{slot}}),
      .cnt_in        (),
      .cnt_out       (),
      .cnt_noroute   (s_nr[s * SP * 32 +: SP * 32]),
      .cnt_bad       (s_bad[s * SP * 32 +: SP * 32]),
      .cnt_ovf       (s_ovf[s * SP * 32 +: SP * 32]),
      .cnt_refused   (s_ref[s * SP * 32 +: SP * 32]),
      .cnt_cb        (),
      .credits       ()
    );
    /* verilator lint_on PINCONNECTEMPTY */
  end

  always_comb begin
    drops = '0;
    for (int i = 0; i < P; i++)
      drops = drops + e_nr[i * 32 +: 32] + e_bad[i * 32 +: 32] + e_ovf[i * 32 +: 32]
            + e_ref[i * 32 +: 32];
    for (int i = 0; i < 2 * SP; i++)
      drops = drops + s_nr[i * 32 +: 32] + s_bad[i * 32 +: 32] + s_ovf[i * 32 +: 32]
            + s_ref[i * 32 +: 32];
  end

endmodule

`default_nettype wire
