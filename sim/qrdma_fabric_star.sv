// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_fabric_star: the system simulation's star network (docs/sim.md "Links"): P nodes'
// fabric ports (qrdma_fabric_port) and one switch (qrdma_switch). The harness connects
// each NIC to its port (nic_*), and each port to its switch port through links of its
// own (C++ FIFOs with the harness's link latency): the ports' link outputs (up_*) go to
// the switch's inputs (sw_in_*) and the switch's outputs (sw_out_*) to the ports' link
// inputs (dn_*). Neither the switch's inputs nor the ports' link inputs stall; the links
// take every beat (the credits bound what they hold). Route tables: the reset ones (node n
// on port n). tests/fabric/tb_qrdma_fabric.sv closes the links with registers. Not
// hardware.
`default_nettype none

module qrdma_fabric_star #(
  parameter int unsigned P           = 4,    // nodes (switch ports)
  parameter int unsigned VOQ         = 1,    // node ports' queues: 1 one per node, 0 one for all
  // the credited buffers cover a credit round trip at full rate (both link directions,
  // the pipelines and UPD_MIN beats): links of up to ~200 cycles each way (docs/sim.md
  // "Links")
  parameter int unsigned XP_DEPTH    = 512,  // beats per crosspoint
  // the NIC's pause rises at PAUSE_LEVEL beats in a queue: after it falls, the queue feeds
  // the link while the NIC's next payload read is out (200 cycles of host memory and the
  // send unit's pipeline); the queue also holds what the NIC had picked before the pause
  parameter int unsigned VOQ_DEPTH   = 1024, // beats per node-port queue
  parameter int unsigned PAUSE_LEVEL = 384,
  parameter int unsigned RX_DEPTH    = 512,  // beats of a node port's receive buffer
  parameter int unsigned MAX_PKT     = 17,
  // beats freed before a credit beat is offered: one per four 1 KiB packets, so a link
  // whose reverse direction is fully loaded loses 1/69 of its beats to credit beats
  parameter int unsigned UPD_MIN     = 68,
  parameter int unsigned REFRESH     = 1024,
  localparam int unsigned DATA_W     = 512,
  localparam int unsigned KEEP_W     = 64,
  localparam int unsigned USER_W     = 32
) (
  input  logic                clk,
  input  logic                rst,
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
  // the ports' links toward the switch, and the switch's inputs
  output logic [P*DATA_W-1:0] up_tdata,
  output logic [P*KEEP_W-1:0] up_tkeep,
  output logic [P*USER_W-1:0] up_tuser,
  output logic [P-1:0]        up_tlast,
  output logic [P-1:0]        up_tvalid,
  input  logic [P*DATA_W-1:0] sw_in_tdata,
  input  logic [P*KEEP_W-1:0] sw_in_tkeep,
  input  logic [P*USER_W-1:0] sw_in_tuser,
  input  logic [P-1:0]        sw_in_tlast,
  input  logic [P-1:0]        sw_in_tvalid,
  // the switch's outputs, and the ports' links from the switch
  output logic [P*DATA_W-1:0] sw_out_tdata,
  output logic [P*KEEP_W-1:0] sw_out_tkeep,
  output logic [P*USER_W-1:0] sw_out_tuser,
  output logic [P-1:0]        sw_out_tlast,
  output logic [P-1:0]        sw_out_tvalid,
  input  logic [P*DATA_W-1:0] dn_tdata,
  input  logic [P*KEEP_W-1:0] dn_tkeep,
  input  logic [P*USER_W-1:0] dn_tuser,
  input  logic [P-1:0]        dn_tlast,
  input  logic [P-1:0]        dn_tvalid,
  // counters: the switch's per port, the ports' per node; drops and refusals of both,
  // summed (the harness's report)
  output logic [P*32-1:0]     sw_nr,
  output logic [P*32-1:0]     sw_bad,
  output logic [P*32-1:0]     sw_ovf,
  output logic [P*32-1:0]     sw_ref,
  output logic [P*32-1:0]     sw_in,
  output logic [P*32-1:0]     sw_out,
  output logic [P*16-1:0]     sw_credits,     // the switch's room at each node
  output logic [P*32-1:0]     np_nr,
  output logic [P*32-1:0]     np_bad,
  output logic [P*32-1:0]     np_ovf,
  output logic [P*32-1:0]     np_ref,
  output logic [P*P*16-1:0]   np_credits,     // node p's room at crosspoint (p, o): p*P+o
  output logic [31:0]         drops
);

  for (genvar p = 0; p < P; p++) begin : g_node
    /* verilator lint_off PINCONNECTEMPTY */  // route writes: the reset table; s_link_tready: never low
    qrdma_fabric_port #(.CLASSES(P), .VOQ(VOQ), .NUM_NODES(P), .ROUTES(P), .MAX_PKT(MAX_PKT),
                        .VOQ_DEPTH(VOQ_DEPTH), .PAUSE_LEVEL(PAUSE_LEVEL), .RX_DEPTH(RX_DEPTH),
                        .UPD_MIN(UPD_MIN), .REFRESH(REFRESH)) u_port (
      .clk, .rst,
      .cfg_credits   (16'(XP_DEPTH)),
      .rt_we         (1'b0),
      .rt_node       ('0),
      .rt_class      ('0),
      .rt_en         (1'b0),
      .s_nic_tdata   (nic_tx_tdata[p * DATA_W +: DATA_W]),
      .s_nic_tkeep   (nic_tx_tkeep[p * KEEP_W +: KEEP_W]),
      .s_nic_tuser   (nic_tx_tuser[p * USER_W +: USER_W]),
      .s_nic_tlast   (nic_tx_tlast[p]),
      .s_nic_tvalid  (nic_tx_tvalid[p]),
      .s_nic_tready  (nic_tx_tready[p]),
      .tx_pause      (nic_tx_pause[p * P +: P]),
      .m_nic_tdata   (nic_rx_tdata[p * DATA_W +: DATA_W]),
      .m_nic_tkeep   (nic_rx_tkeep[p * KEEP_W +: KEEP_W]),
      .m_nic_tuser   (nic_rx_tuser[p * USER_W +: USER_W]),
      .m_nic_tlast   (nic_rx_tlast[p]),
      .m_nic_tvalid  (nic_rx_tvalid[p]),
      .m_nic_tready  (nic_rx_tready[p]),
      .m_link_tdata  (up_tdata[p * DATA_W +: DATA_W]),
      .m_link_tkeep  (up_tkeep[p * KEEP_W +: KEEP_W]),
      .m_link_tuser  (up_tuser[p * USER_W +: USER_W]),
      .m_link_tlast  (up_tlast[p]),
      .m_link_tvalid (up_tvalid[p]),
      .m_link_tready (1'b1),
      .s_link_tdata  (dn_tdata[p * DATA_W +: DATA_W]),
      .s_link_tkeep  (dn_tkeep[p * KEEP_W +: KEEP_W]),
      .s_link_tuser  (dn_tuser[p * USER_W +: USER_W]),
      .s_link_tlast  (dn_tlast[p]),
      .s_link_tvalid (dn_tvalid[p]),
      .s_link_tready (),
      .cnt_noroute   (np_nr[p * 32 +: 32]),
      .cnt_bad       (np_bad[p * 32 +: 32]),
      .cnt_ovf       (np_ovf[p * 32 +: 32]),
      .cnt_refused   (np_ref[p * 32 +: 32]),
      .credits       (np_credits[p * P * 16 +: P * 16])
    );
    /* verilator lint_on PINCONNECTEMPTY */
  end

  /* verilator lint_off PINCONNECTEMPTY */  // s_tready: never low; credit beats: not counted here
  qrdma_switch #(.P(P), .ROUTES(P), .MAX_PKT(MAX_PKT), .XP_DEPTH(XP_DEPTH), .UPD_MIN(UPD_MIN),
                 .REFRESH(REFRESH)) u_sw (
    .clk, .rst,
    .cfg_credit_en ('1),
    .cfg_credits   (16'(RX_DEPTH)),
    .rt_we         (1'b0),
    .rt_node       ('0),
    .rt_port       ('0),
    .rt_en         (1'b0),
    .s_tdata       (sw_in_tdata),
    .s_tkeep       (sw_in_tkeep),
    .s_tuser       (sw_in_tuser),
    .s_tlast       (sw_in_tlast),
    .s_tvalid      (sw_in_tvalid),
    .s_tready      (),
    .m_tdata       (sw_out_tdata),
    .m_tkeep       (sw_out_tkeep),
    .m_tuser       (sw_out_tuser),
    .m_tlast       (sw_out_tlast),
    .m_tvalid      (sw_out_tvalid),
    .m_tready      ('1),
    .cnt_in        (sw_in),
    .cnt_out       (sw_out),
    .cnt_noroute   (sw_nr),
    .cnt_bad       (sw_bad),
    .cnt_ovf       (sw_ovf),
    .cnt_refused   (sw_ref),
    .cnt_cb        (),
    .credits       (sw_credits)
  );
  /* verilator lint_on PINCONNECTEMPTY */

  always_comb begin
    drops = '0;
    for (int p = 0; p < P; p++)
      drops = drops + np_nr[p * 32 +: 32] + np_bad[p * 32 +: 32] + np_ovf[p * 32 +: 32]
            + np_ref[p * 32 +: 32] + sw_nr[p * 32 +: 32] + sw_bad[p * 32 +: 32] + sw_ovf[p * 32 +: 32]
            + sw_ref[p * 32 +: 32];
  end

endmodule

`default_nettype wire
