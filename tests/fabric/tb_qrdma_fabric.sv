// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// tb_qrdma_fabric: P nodes' ends of the fabric (qrdma_fabric_port) around one switch
// (qrdma_switch), each link LINK_LAT cycles long in each direction, for
// tests/fabric/test_qrdma_fabric.py, which plays the NICs. Not hardware.
`default_nettype none

module tb_qrdma_fabric #(
  parameter int unsigned P           = 4,
  parameter int unsigned MAX_PKT     = 17,
  parameter int unsigned XP_DEPTH    = 64,
  parameter int unsigned VOQ_DEPTH   = 128,
  parameter int unsigned PAUSE_LEVEL = 64,
  parameter int unsigned RX_DEPTH    = 64,
  parameter int unsigned ROUTES      = 16,
  parameter int unsigned UPD_MIN     = 17,
  parameter int unsigned REFRESH     = 256,
  parameter int unsigned LINK_LAT    = 4,
  localparam int unsigned DATA_W     = 512,
  localparam int unsigned KEEP_W     = 64,
  localparam int unsigned USER_W     = 32,
  localparam int unsigned WIDTH      = DATA_W + KEEP_W + USER_W + 1
) (
  input  logic                clk,
  input  logic                rst,
  // the NICs' streams out (into their ports)
  input  logic [P*DATA_W-1:0] s_nic_tdata,
  input  logic [P*KEEP_W-1:0] s_nic_tkeep,
  input  logic [P*USER_W-1:0] s_nic_tuser,
  input  logic [P-1:0]        s_nic_tlast,
  input  logic [P-1:0]        s_nic_tvalid,
  output logic [P-1:0]        s_nic_tready,
  output logic [P*P-1:0]      tx_pause,       // node p's pause toward node d at bit p*P+d
  // the NICs' streams in
  output logic [P*DATA_W-1:0] m_nic_tdata,
  output logic [P*KEEP_W-1:0] m_nic_tkeep,
  output logic [P*USER_W-1:0] m_nic_tuser,
  output logic [P-1:0]        m_nic_tlast,
  output logic [P-1:0]        m_nic_tvalid,
  input  logic [P-1:0]        m_nic_tready,
  // counters: the switch's per port, the ports' per node
  output logic [P*32-1:0]     sw_noroute,
  output logic [P*32-1:0]     sw_bad,
  output logic [P*32-1:0]     sw_ovf,
  output logic [P*32-1:0]     sw_refused,
  output logic [P*32-1:0]     sw_in,
  output logic [P*32-1:0]     sw_out,
  output logic [P*16-1:0]     sw_credits,     // the switch's room at each node
  output logic [P*32-1:0]     np_noroute,
  output logic [P*32-1:0]     np_bad,
  output logic [P*32-1:0]     np_ovf,
  output logic [P*32-1:0]     np_refused,
  output logic [P*P*16-1:0]   np_credits      // node p's room at crosspoint (p, o): p*P+o
);

  logic [P*DATA_W-1:0] up_tdata, dn_tdata, upd_tdata, dnd_tdata;
  logic [P*KEEP_W-1:0] up_tkeep, dn_tkeep, upd_tkeep, dnd_tkeep;
  logic [P*USER_W-1:0] up_tuser, dn_tuser, upd_tuser, dnd_tuser;
  logic [P-1:0]        up_tlast, dn_tlast, upd_tlast, dnd_tlast;
  logic [P-1:0]        up_tvalid, dn_tvalid, upd_tvalid, dnd_tvalid;

  for (genvar p = 0; p < P; p++) begin : g_node
    /* verilator lint_off PINCONNECTEMPTY */  // route writes: the reset table; s_link_tready: never low
    qrdma_fabric_port #(.CLASSES(P), .NUM_NODES(P), .ROUTES(ROUTES), .MAX_PKT(MAX_PKT),
                        .VOQ_DEPTH(VOQ_DEPTH), .PAUSE_LEVEL(PAUSE_LEVEL), .RX_DEPTH(RX_DEPTH),
                        .UPD_MIN(UPD_MIN), .REFRESH(REFRESH)) u_port (
      .clk, .rst,
      .cfg_credits   (16'(XP_DEPTH)),
      .rt_we         (1'b0),
      .rt_node       ('0),
      .rt_class      ('0),
      .rt_en         (1'b0),
      .s_nic_tdata   (s_nic_tdata[p * DATA_W +: DATA_W]),
      .s_nic_tkeep   (s_nic_tkeep[p * KEEP_W +: KEEP_W]),
      .s_nic_tuser   (s_nic_tuser[p * USER_W +: USER_W]),
      .s_nic_tlast   (s_nic_tlast[p]),
      .s_nic_tvalid  (s_nic_tvalid[p]),
      .s_nic_tready  (s_nic_tready[p]),
      .tx_pause      (tx_pause[p * P +: P]),
      .m_nic_tdata   (m_nic_tdata[p * DATA_W +: DATA_W]),
      .m_nic_tkeep   (m_nic_tkeep[p * KEEP_W +: KEEP_W]),
      .m_nic_tuser   (m_nic_tuser[p * USER_W +: USER_W]),
      .m_nic_tlast   (m_nic_tlast[p]),
      .m_nic_tvalid  (m_nic_tvalid[p]),
      .m_nic_tready  (m_nic_tready[p]),
      .m_link_tdata  (up_tdata[p * DATA_W +: DATA_W]),
      .m_link_tkeep  (up_tkeep[p * KEEP_W +: KEEP_W]),
      .m_link_tuser  (up_tuser[p * USER_W +: USER_W]),
      .m_link_tlast  (up_tlast[p]),
      .m_link_tvalid (up_tvalid[p]),
      .m_link_tready (1'b1),
      .s_link_tdata  (dnd_tdata[p * DATA_W +: DATA_W]),
      .s_link_tkeep  (dnd_tkeep[p * KEEP_W +: KEEP_W]),
      .s_link_tuser  (dnd_tuser[p * USER_W +: USER_W]),
      .s_link_tlast  (dnd_tlast[p]),
      .s_link_tvalid (dnd_tvalid[p]),
      .s_link_tready (),
      .cnt_noroute   (np_noroute[p * 32 +: 32]),
      .cnt_bad       (np_bad[p * 32 +: 32]),
      .cnt_ovf       (np_ovf[p * 32 +: 32]),
      .cnt_refused   (np_refused[p * 32 +: 32]),
      .credits       (np_credits[p * P * 16 +: P * 16])
    );
    /* verilator lint_on PINCONNECTEMPTY */

    // the links: LINK_LAT registers each way (a link never stalls: credits govern it)
    logic [LINK_LAT-1:0][WIDTH-1:0] up_d, dn_d;
    logic [LINK_LAT-1:0]            up_v, dn_v;
    always_ff @(posedge clk) begin
      up_v[0] <= up_tvalid[p];
      up_d[0] <= {up_tlast[p], up_tuser[p * USER_W +: USER_W], up_tkeep[p * KEEP_W +: KEEP_W],
                  up_tdata[p * DATA_W +: DATA_W]};
      dn_v[0] <= dn_tvalid[p];
      dn_d[0] <= {dn_tlast[p], dn_tuser[p * USER_W +: USER_W], dn_tkeep[p * KEEP_W +: KEEP_W],
                  dn_tdata[p * DATA_W +: DATA_W]};
      for (int i = 1; i < LINK_LAT; i++) begin
        up_v[i] <= up_v[i - 1];
        up_d[i] <= up_d[i - 1];
        dn_v[i] <= dn_v[i - 1];
        dn_d[i] <= dn_d[i - 1];
      end
      if (rst) begin
        up_v <= '0;
        dn_v <= '0;
      end
    end
    assign upd_tvalid[p] = up_v[LINK_LAT-1];
    assign {upd_tlast[p], upd_tuser[p * USER_W +: USER_W], upd_tkeep[p * KEEP_W +: KEEP_W],
            upd_tdata[p * DATA_W +: DATA_W]} = up_d[LINK_LAT-1];
    assign dnd_tvalid[p] = dn_v[LINK_LAT-1];
    assign {dnd_tlast[p], dnd_tuser[p * USER_W +: USER_W], dnd_tkeep[p * KEEP_W +: KEEP_W],
            dnd_tdata[p * DATA_W +: DATA_W]} = dn_d[LINK_LAT-1];
  end

  /* verilator lint_off PINCONNECTEMPTY */  // s_tready: never low; credit beats: not counted here
  qrdma_switch #(.P(P), .ROUTES(ROUTES), .MAX_PKT(MAX_PKT), .XP_DEPTH(XP_DEPTH),
                 .UPD_MIN(UPD_MIN), .REFRESH(REFRESH)) u_sw (
    .clk, .rst,
    .cfg_credit_en ('1),
    .cfg_credits   (16'(RX_DEPTH)),
    .rt_we         (1'b0),
    .rt_node       ('0),
    .rt_port       ('0),
    .rt_en         (1'b0),
    .s_tdata       (upd_tdata),
    .s_tkeep       (upd_tkeep),
    .s_tuser       (upd_tuser),
    .s_tlast       (upd_tlast),
    .s_tvalid      (upd_tvalid),
    .s_tready      (),
    .m_tdata       (dn_tdata),
    .m_tkeep       (dn_tkeep),
    .m_tuser       (dn_tuser),
    .m_tlast       (dn_tlast),
    .m_tvalid      (dn_tvalid),
    .m_tready      ('1),
    .cnt_in        (sw_in),
    .cnt_out       (sw_out),
    .cnt_noroute   (sw_noroute),
    .cnt_bad       (sw_bad),
    .cnt_ovf       (sw_ovf),
    .cnt_refused   (sw_refused),
    .cnt_cb        (),
    .credits       (sw_credits)
  );
  /* verilator lint_on PINCONNECTEMPTY */

endmodule

`default_nettype wire
