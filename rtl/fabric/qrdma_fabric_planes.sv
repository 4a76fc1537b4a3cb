// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_fabric_planes: a node's end of PLANES parallel fabrics (planes: a switch each),
// one qrdma_fabric_port per plane ([FPGA-NI] §2.4 multipath; docs/fabric.md "Planes").
// The NIC's packets are spread over the planes by the header's `path`: a multipath
// transfer's blocks take paths b mod 4 ([QoS-RDMA] §3.8, docs/qos.md), so consecutive
// blocks cross different planes, and every packet of a block crosses the same one. The
// planes' receive streams are merged whole packets at a time, round robin; the receive
// unit places packets in any order.
//
// Contract: as qrdma_fabric_port's, per plane p on m_link_* / s_link_* slice p: a packet
// of the NIC goes to plane path mod PLANES; tx_pause[d] is high while d is paused on any
// plane; class table writes go to every plane. PLANES = 1 is qrdma_fabric_port itself.
// Counters are per plane (slice p).
`default_nettype none

module qrdma_fabric_planes
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
#(
  parameter int unsigned PLANES      = 2,     // planes (1, 2 or 4)
  parameter int unsigned CLASSES     = 8,     // switch ports (credit classes)
  parameter int unsigned VOQ         = 1,     // 1: a queue per class; 0: one queue
  parameter int unsigned NUM_NODES   = 8,     // the NIC's destinations (tx_pause bits)
  parameter int unsigned DATA_W      = 512,
  parameter int unsigned USER_W      = 32,
  parameter int unsigned ROUTES      = 64,    // class table entries
  parameter int unsigned MAX_PKT     = 17,    // beats of the longest packet
  parameter int unsigned VOQ_DEPTH   = 128,   // beats per queue
  parameter int unsigned PAUSE_LEVEL = 64,    // queue beats that pause the NIC toward it
  parameter int unsigned RX_DEPTH    = 64,    // receive buffer beats per plane
  parameter int unsigned CNT_W       = 16,
  parameter int unsigned UPD_MIN     = 17,    // beats freed before a credit beat is offered
  parameter int unsigned REFRESH     = 1024,  // cycles before an unchanged count is sent again
  localparam int unsigned KEEP_W     = DATA_W / 8,
  localparam int unsigned CW         = idx_w(CLASSES),
  localparam int unsigned RIW        = idx_w(ROUTES),
  localparam int unsigned SW         = idx_w(PLANES)
) (
  input  logic                        clk,
  input  logic                        rst,
  input  logic [CNT_W-1:0]            cfg_credits,
  input  logic                        rt_we,
  input  logic [RIW-1:0]              rt_node,
  input  logic [CW-1:0]               rt_class,
  input  logic                        rt_en,
  // the NIC's network stream out (its m_axis_tx)
  input  logic [DATA_W-1:0]           s_nic_tdata,
  input  logic [KEEP_W-1:0]           s_nic_tkeep,
  input  logic [USER_W-1:0]           s_nic_tuser,
  input  logic                        s_nic_tlast,
  input  logic                        s_nic_tvalid,
  output logic                        s_nic_tready,
  output logic [NUM_NODES-1:0]        tx_pause,
  // the NIC's network stream in (its s_axis_rx)
  output logic [DATA_W-1:0]           m_nic_tdata,
  output logic [KEEP_W-1:0]           m_nic_tkeep,
  output logic [USER_W-1:0]           m_nic_tuser,
  output logic                        m_nic_tlast,
  output logic                        m_nic_tvalid,
  input  logic                        m_nic_tready,
  // the links to the planes' switch ports
  output logic [PLANES*DATA_W-1:0]    m_link_tdata,
  output logic [PLANES*KEEP_W-1:0]    m_link_tkeep,
  output logic [PLANES*USER_W-1:0]    m_link_tuser,
  output logic [PLANES-1:0]           m_link_tlast,
  output logic [PLANES-1:0]           m_link_tvalid,
  input  logic [PLANES-1:0]           m_link_tready,
  input  logic [PLANES*DATA_W-1:0]    s_link_tdata,
  input  logic [PLANES*KEEP_W-1:0]    s_link_tkeep,
  input  logic [PLANES*USER_W-1:0]    s_link_tuser,
  input  logic [PLANES-1:0]           s_link_tlast,
  input  logic [PLANES-1:0]           s_link_tvalid,
  output logic [PLANES-1:0]           s_link_tready,
  // counters per plane (qrdma_fabric_port's)
  output logic [PLANES*32-1:0]        cnt_noroute,
  output logic [PLANES*32-1:0]        cnt_bad,
  output logic [PLANES*32-1:0]        cnt_ovf,
  output logic [PLANES*32-1:0]        cnt_refused,
  output logic [PLANES*CLASSES*CNT_W-1:0] credits
);

`ifndef SYNTHESIS
  initial begin
    if (PLANES != 1 && PLANES != 2 && PLANES != 4)
      $fatal(1, "qrdma_fabric_planes: PLANES is 1, 2 or 4");
  end
`endif

  // the planes' NIC-side streams
  logic [DATA_W-1:0]        t_data;
  logic [KEEP_W-1:0]        t_keep;
  logic [USER_W-1:0]        t_user;
  logic                     t_last;
  logic [PLANES-1:0]        t_valid, t_ready;
  logic [PLANES*DATA_W-1:0] r_data;
  logic [PLANES*KEEP_W-1:0] r_keep;
  logic [PLANES*USER_W-1:0] r_user;
  logic [PLANES-1:0]        r_last, r_valid, r_ready;
  logic [PLANES*NUM_NODES-1:0] pause;

  if (PLANES == 1) begin : gen_one
    assign {t_data, t_keep, t_user, t_last, t_valid} =
           {s_nic_tdata, s_nic_tkeep, s_nic_tuser, s_nic_tlast, s_nic_tvalid};
    assign s_nic_tready = t_ready;
    assign {m_nic_tdata, m_nic_tkeep, m_nic_tuser, m_nic_tlast, m_nic_tvalid} =
           {r_data, r_keep, r_user, r_last, r_valid};
    assign r_ready  = m_nic_tready;
    assign tx_pause = pause;
  end else begin : gen_many
    // a packet's plane: its header's path, modulo PLANES
    qrdma_axis_demux #(.N(PLANES), .DATA_W(DATA_W), .USER_W(USER_W)) u_split (
      .clk, .rst,
      .s_sel         (s_nic_tdata[NET_HDR_PATH_LSB +: SW]),
      .s_axis_tdata  (s_nic_tdata),
      .s_axis_tkeep  (s_nic_tkeep),
      .s_axis_tuser  (s_nic_tuser),
      .s_axis_tlast  (s_nic_tlast),
      .s_axis_tvalid (s_nic_tvalid),
      .s_axis_tready (s_nic_tready),
      .m_axis_tdata  (t_data),
      .m_axis_tkeep  (t_keep),
      .m_axis_tuser  (t_user),
      .m_axis_tlast  (t_last),
      .m_axis_tvalid (t_valid),
      .m_axis_tready (t_ready)
    );
    qrdma_axis_arb_mux #(.N(PLANES), .DATA_W(DATA_W), .USER_W(USER_W)) u_merge (
      .clk, .rst,
      .s_axis_tdata  (r_data),
      .s_axis_tkeep  (r_keep),
      .s_axis_tuser  (r_user),
      .s_axis_tlast  (r_last),
      .s_axis_tvalid (r_valid),
      .s_axis_tready (r_ready),
      .m_axis_tdata  (m_nic_tdata),
      .m_axis_tkeep  (m_nic_tkeep),
      .m_axis_tuser  (m_nic_tuser),
      .m_axis_tlast  (m_nic_tlast),
      .m_axis_tvalid (m_nic_tvalid),
      .m_axis_tready (m_nic_tready)
    );
    always_comb begin
      tx_pause = '0;
      for (int p = 0; p < PLANES; p++) tx_pause |= pause[p * NUM_NODES +: NUM_NODES];
    end
  end

  for (genvar p = 0; p < PLANES; p++) begin : gen_plane
    qrdma_fabric_port #(.CLASSES(CLASSES), .VOQ(VOQ), .NUM_NODES(NUM_NODES), .DATA_W(DATA_W),
                        .USER_W(USER_W), .ROUTES(ROUTES), .MAX_PKT(MAX_PKT),
                        .VOQ_DEPTH(VOQ_DEPTH), .PAUSE_LEVEL(PAUSE_LEVEL), .RX_DEPTH(RX_DEPTH),
                        .RX_WHOLE(PLANES > 1 ? 1 : 0), .CNT_W(CNT_W), .UPD_MIN(UPD_MIN),
                        .REFRESH(REFRESH)) u_port (
      .clk, .rst, .cfg_credits, .rt_we, .rt_node, .rt_class, .rt_en,
      .s_nic_tdata   (t_data),
      .s_nic_tkeep   (t_keep),
      .s_nic_tuser   (t_user),
      .s_nic_tlast   (t_last),
      .s_nic_tvalid  (t_valid[p]),
      .s_nic_tready  (t_ready[p]),
      .tx_pause      (pause[p * NUM_NODES +: NUM_NODES]),
      .m_nic_tdata   (r_data[p * DATA_W +: DATA_W]),
      .m_nic_tkeep   (r_keep[p * KEEP_W +: KEEP_W]),
      .m_nic_tuser   (r_user[p * USER_W +: USER_W]),
      .m_nic_tlast   (r_last[p]),
      .m_nic_tvalid  (r_valid[p]),
      .m_nic_tready  (r_ready[p]),
      .m_link_tdata  (m_link_tdata[p * DATA_W +: DATA_W]),
      .m_link_tkeep  (m_link_tkeep[p * KEEP_W +: KEEP_W]),
      .m_link_tuser  (m_link_tuser[p * USER_W +: USER_W]),
      .m_link_tlast  (m_link_tlast[p]),
      .m_link_tvalid (m_link_tvalid[p]),
      .m_link_tready (m_link_tready[p]),
      .s_link_tdata  (s_link_tdata[p * DATA_W +: DATA_W]),
      .s_link_tkeep  (s_link_tkeep[p * KEEP_W +: KEEP_W]),
      .s_link_tuser  (s_link_tuser[p * USER_W +: USER_W]),
      .s_link_tlast  (s_link_tlast[p]),
      .s_link_tvalid (s_link_tvalid[p]),
      .s_link_tready (s_link_tready[p]),
      .cnt_noroute   (cnt_noroute[p * 32 +: 32]),
      .cnt_bad       (cnt_bad[p * 32 +: 32]),
      .cnt_ovf       (cnt_ovf[p * 32 +: 32]),
      .cnt_refused   (cnt_refused[p * 32 +: 32]),
      .credits       (credits[p * CLASSES * CNT_W +: CLASSES * CNT_W])
    );
  end

endmodule

`default_nettype wire
