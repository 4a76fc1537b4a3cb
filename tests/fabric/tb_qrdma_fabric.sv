// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// tb_qrdma_fabric: P nodes' ends of the fabric around PLANES switches (the harness's star,
// sim/qrdma_fabric_star.sv), each link LINK_LAT cycles long in each direction and taking a
// beat in one cycle of every LINK_DIV, for tests/fabric/test_qrdma_fabric.py, which plays
// the NICs. Not hardware.
`default_nettype none

module tb_qrdma_fabric #(
  parameter int unsigned P           = 4,
  parameter int unsigned VOQ         = 1,
  parameter int unsigned PLANES      = 1,
  parameter int unsigned LINK_DIV    = 1,
  parameter int unsigned MAX_PKT     = 17,
  parameter int unsigned XP_DEPTH    = 64,
  parameter int unsigned VOQ_DEPTH   = 128,
  parameter int unsigned PAUSE_LEVEL = 64,
  parameter int unsigned RX_DEPTH    = 64,
  parameter int unsigned UPD_MIN     = 17,
  parameter int unsigned REFRESH     = 256,
  parameter int unsigned LINK_LAT    = 4,
  localparam int unsigned DATA_W     = 512,
  localparam int unsigned KEEP_W     = 64,
  localparam int unsigned USER_W     = 32,
  localparam int unsigned WIDTH      = DATA_W + KEEP_W + USER_W + 1,
  localparam int unsigned L          = PLANES * P
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
  // counters: the switches' per port, the ports' per node, at plane * P + node
  output logic [L*32-1:0]     sw_noroute,
  output logic [L*32-1:0]     sw_bad,
  output logic [L*32-1:0]     sw_ovf,
  output logic [L*32-1:0]     sw_refused,
  output logic [L*32-1:0]     sw_in,
  output logic [L*32-1:0]     sw_out,
  output logic [L*16-1:0]     sw_credits,     // a switch's room at each node
  output logic [L*32-1:0]     np_noroute,
  output logic [L*32-1:0]     np_bad,
  output logic [L*32-1:0]     np_ovf,
  output logic [L*32-1:0]     np_refused,
  output logic [L*P*16-1:0]   np_credits      // node p's room at crosspoint (p, o) of plane k: (k*P+p)*P+o
);

  logic [L*DATA_W-1:0] up_tdata, dn_tdata, upd_tdata, dnd_tdata;
  logic [L*KEEP_W-1:0] up_tkeep, dn_tkeep, upd_tkeep, dnd_tkeep;
  logic [L*USER_W-1:0] up_tuser, dn_tuser, upd_tuser, dnd_tuser;
  logic [L-1:0]        up_tlast, dn_tlast, upd_tlast, dnd_tlast;
  logic [L-1:0]        up_tvalid, dn_tvalid, upd_tvalid, dnd_tvalid;

  /* verilator lint_off PINCONNECTEMPTY */  // drops: the test reads the counters
  qrdma_fabric_star #(.P(P), .PLANES(PLANES), .VOQ(VOQ), .XP_DEPTH(XP_DEPTH), .VOQ_DEPTH(VOQ_DEPTH),
                      .PAUSE_LEVEL(PAUSE_LEVEL), .PLANES_PAUSE_LEVEL(PAUSE_LEVEL),
                      .RX_DEPTH(RX_DEPTH), .MAX_PKT(MAX_PKT),
                      .UPD_MIN(UPD_MIN), .REFRESH(REFRESH)) u_star (
    .clk, .rst,
    .cfg_link_div  (8'(LINK_DIV)),
    .nic_tx_tdata  (s_nic_tdata),
    .nic_tx_tkeep  (s_nic_tkeep),
    .nic_tx_tuser  (s_nic_tuser),
    .nic_tx_tlast  (s_nic_tlast),
    .nic_tx_tvalid (s_nic_tvalid),
    .nic_tx_tready (s_nic_tready),
    .nic_tx_pause  (tx_pause),
    .nic_rx_tdata  (m_nic_tdata),
    .nic_rx_tkeep  (m_nic_tkeep),
    .nic_rx_tuser  (m_nic_tuser),
    .nic_rx_tlast  (m_nic_tlast),
    .nic_rx_tvalid (m_nic_tvalid),
    .nic_rx_tready (m_nic_tready),
    .up_tdata, .up_tkeep, .up_tuser, .up_tlast, .up_tvalid,
    .sw_in_tdata   (upd_tdata),
    .sw_in_tkeep   (upd_tkeep),
    .sw_in_tuser   (upd_tuser),
    .sw_in_tlast   (upd_tlast),
    .sw_in_tvalid  (upd_tvalid),
    .sw_out_tdata  (dn_tdata),
    .sw_out_tkeep  (dn_tkeep),
    .sw_out_tuser  (dn_tuser),
    .sw_out_tlast  (dn_tlast),
    .sw_out_tvalid (dn_tvalid),
    .dn_tdata      (dnd_tdata),
    .dn_tkeep      (dnd_tkeep),
    .dn_tuser      (dnd_tuser),
    .dn_tlast      (dnd_tlast),
    .dn_tvalid     (dnd_tvalid),
    .sw_nr         (sw_noroute),
    .sw_bad, .sw_ovf,
    .sw_ref        (sw_refused),
    .sw_in, .sw_out, .sw_credits,
    .np_nr         (np_noroute),
    .np_bad, .np_ovf,
    .np_ref        (np_refused),
    .np_credits,
    .drops         ()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // the links: LINK_LAT registers each way (a link never stalls: credits govern it)
  for (genvar p = 0; p < L; p++) begin : g_link
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


endmodule

`default_nettype wire
