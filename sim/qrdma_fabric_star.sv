// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_fabric_star: the system simulation's star network (docs/sim.md "Links"): PLANES
// parallel switches (qrdma_switch, a star each) and per node its end of every plane
// (qrdma_fabric_planes: a qrdma_fabric_port per plane; with PLANES = 1 the port alone).
// The harness connects each NIC to its node's end (nic_*), and each port to its switch
// port through links of its own (C++ FIFOs with the harness's link latency): the ports'
// link outputs (up_*) go to the switches' inputs (sw_in_*) and the switches' outputs
// (sw_out_*) to the ports' link inputs (dn_*), link k = plane * P + node. Neither the
// switches' inputs nor the ports' link inputs stall; the links take every beat (the
// credits bound what they hold), at most one beat in every cfg_link_div cycles (0 and 1:
// one per cycle): up_tvalid and sw_out_tvalid mark the beats taken. Route tables: the reset ones (node n on port n).
// tests/fabric/tb_qrdma_fabric.sv closes the links with registers. Not hardware.
`default_nettype none

module qrdma_fabric_star #(
  parameter int unsigned P           = 4,    // nodes (switch ports)
  parameter int unsigned PLANES      = 1,    // parallel switches (1, 2 or 4)
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
  // with planes a NIC feeds one plane's queue for a whole block (1,088 beats of 64 KiB) at
  // up to twice the plane's rate (link_div=2), so half the block stays queued: the pause
  // rises above that, or it would stop the NIC toward the other planes as well
  parameter int unsigned PLANES_PAUSE_LEVEL = 640,
  parameter int unsigned RX_DEPTH    = 512,  // beats of a node port's receive buffer
  parameter int unsigned MAX_PKT     = 17,
  // beats freed before a credit beat is offered: one per four 1 KiB packets, so a link
  // whose reverse direction is fully loaded loses 1/69 of its beats to credit beats
  parameter int unsigned UPD_MIN     = 68,
  parameter int unsigned REFRESH     = 1024,
  localparam int unsigned DATA_W     = 512,
  localparam int unsigned KEEP_W     = 64,
  localparam int unsigned USER_W     = 32,
  localparam int unsigned L          = PLANES * P   // links each way
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
  // the ports' links toward the switch, and the switch's inputs
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
  // the switch's outputs, and the ports' links from the switch
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
  // counters: the switches' per port, the ports' per node, both at index plane * P + node;
  // drops and refusals of all, summed (the harness's report)
  output logic [L*32-1:0]     sw_nr,
  output logic [L*32-1:0]     sw_bad,
  output logic [L*32-1:0]     sw_ovf,
  output logic [L*32-1:0]     sw_ref,
  output logic [L*32-1:0]     sw_in,
  output logic [L*32-1:0]     sw_out,
  output logic [L*16-1:0]     sw_credits,     // a switch's room at each node
  output logic [L*32-1:0]     np_nr,
  output logic [L*32-1:0]     np_bad,
  output logic [L*32-1:0]     np_ovf,
  output logic [L*32-1:0]     np_ref,
  output logic [L*P*16-1:0]   np_credits,     // node p's room at crosspoint (p, o) of plane k: (k*P+p)*P+o
  output logic [31:0]         drops
);

  // the links' beat slots
  logic [7:0] div_q;
  logic       slot;
  assign slot = div_q == '0;
  always_ff @(posedge clk) begin
    div_q <= (div_q + 8'd1 >= cfg_link_div) ? '0 : div_q + 8'd1;
    if (rst) div_q <= '0;
  end

  // node p's end of plane k on links k * P + p: the ends' ports are plane-major per node
  logic [L*DATA_W-1:0] e_up_data, e_dn_data;
  logic [L*KEEP_W-1:0] e_up_keep, e_dn_keep;
  logic [L*USER_W-1:0] e_up_user, e_dn_user;
  logic [L-1:0]        e_up_last, e_up_valid, e_dn_last, e_dn_valid;
  logic [L*32-1:0]     e_nr, e_bad, e_ovf, e_ref;
  logic [L*P*16-1:0]   e_credits;
  for (genvar k = 0; k < PLANES; k++) begin : g_link
    for (genvar p = 0; p < P; p++) begin : g_node
      localparam int unsigned E = p * PLANES + k;   // node p's end, plane k
      localparam int unsigned I = k * P + p;        // link and switch port
      assign up_tdata[I * DATA_W +: DATA_W] = e_up_data[E * DATA_W +: DATA_W];
      assign up_tkeep[I * KEEP_W +: KEEP_W] = e_up_keep[E * KEEP_W +: KEEP_W];
      assign up_tuser[I * USER_W +: USER_W] = e_up_user[E * USER_W +: USER_W];
      assign up_tlast[I]  = e_up_last[E];
      assign up_tvalid[I] = e_up_valid[E] && slot;   // a beat taken
      assign e_dn_data[E * DATA_W +: DATA_W] = dn_tdata[I * DATA_W +: DATA_W];
      assign e_dn_keep[E * KEEP_W +: KEEP_W] = dn_tkeep[I * KEEP_W +: KEEP_W];
      assign e_dn_user[E * USER_W +: USER_W] = dn_tuser[I * USER_W +: USER_W];
      assign e_dn_last[E]  = dn_tlast[I];
      assign e_dn_valid[E] = dn_tvalid[I];
      assign np_nr[I * 32 +: 32]  = e_nr[E * 32 +: 32];
      assign np_bad[I * 32 +: 32] = e_bad[E * 32 +: 32];
      assign np_ovf[I * 32 +: 32] = e_ovf[E * 32 +: 32];
      assign np_ref[I * 32 +: 32] = e_ref[E * 32 +: 32];
      assign np_credits[I * P * 16 +: P * 16] = e_credits[E * P * 16 +: P * 16];
    end
  end

  for (genvar p = 0; p < P; p++) begin : g_node
    /* verilator lint_off PINCONNECTEMPTY */  // route writes: the reset table; s_link_tready: never low
    qrdma_fabric_planes #(.PLANES(PLANES), .CLASSES(P), .VOQ(VOQ), .NUM_NODES(P), .ROUTES(P),
                          .MAX_PKT(MAX_PKT), .VOQ_DEPTH(VOQ_DEPTH),
                          .PAUSE_LEVEL(PLANES > 1 ? PLANES_PAUSE_LEVEL : PAUSE_LEVEL),
                          .RX_DEPTH(RX_DEPTH), .UPD_MIN(UPD_MIN), .REFRESH(REFRESH)) u_end (
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
      .m_link_tdata  (e_up_data[p * PLANES * DATA_W +: PLANES * DATA_W]),
      .m_link_tkeep  (e_up_keep[p * PLANES * KEEP_W +: PLANES * KEEP_W]),
      .m_link_tuser  (e_up_user[p * PLANES * USER_W +: PLANES * USER_W]),
      .m_link_tlast  (e_up_last[p * PLANES +: PLANES]),
      .m_link_tvalid (e_up_valid[p * PLANES +: PLANES]),
      .m_link_tready ({PLANES{slot}}),
      .s_link_tdata  (e_dn_data[p * PLANES * DATA_W +: PLANES * DATA_W]),
      .s_link_tkeep  (e_dn_keep[p * PLANES * KEEP_W +: PLANES * KEEP_W]),
      .s_link_tuser  (e_dn_user[p * PLANES * USER_W +: PLANES * USER_W]),
      .s_link_tlast  (e_dn_last[p * PLANES +: PLANES]),
      .s_link_tvalid (e_dn_valid[p * PLANES +: PLANES]),
      .s_link_tready (),
      .cnt_noroute   (e_nr[p * PLANES * 32 +: PLANES * 32]),
      .cnt_bad       (e_bad[p * PLANES * 32 +: PLANES * 32]),
      .cnt_ovf       (e_ovf[p * PLANES * 32 +: PLANES * 32]),
      .cnt_refused   (e_ref[p * PLANES * 32 +: PLANES * 32]),
      .credits       (e_credits[p * PLANES * P * 16 +: PLANES * P * 16])
    );
    /* verilator lint_on PINCONNECTEMPTY */
  end

  logic [L-1:0] sw_valid;
  assign sw_out_tvalid = sw_valid & {L{slot}};   // beats taken
  for (genvar k = 0; k < PLANES; k++) begin : g_plane
    /* verilator lint_off PINCONNECTEMPTY */  // s_tready: never low; credit beats: not counted here
    qrdma_switch #(.P(P), .ROUTES(P), .MAX_PKT(MAX_PKT), .XP_DEPTH(XP_DEPTH), .UPD_MIN(UPD_MIN),
                   .REFRESH(REFRESH)) u_sw (
      .clk, .rst,
      .cfg_credit_en ('1),
      .cfg_credits   (16'(RX_DEPTH)),
      .rt_we         (1'b0),
      .rt_node       ('0),
      .rt_port       ('0),
      .rt_class      ('0),
      .rt_en         (1'b0),
      .s_tdata       (sw_in_tdata[k * P * DATA_W +: P * DATA_W]),
      .s_tkeep       (sw_in_tkeep[k * P * KEEP_W +: P * KEEP_W]),
      .s_tuser       (sw_in_tuser[k * P * USER_W +: P * USER_W]),
      .s_tlast       (sw_in_tlast[k * P +: P]),
      .s_tvalid      (sw_in_tvalid[k * P +: P]),
      .s_tready      (),
      .m_tdata       (sw_out_tdata[k * P * DATA_W +: P * DATA_W]),
      .m_tkeep       (sw_out_tkeep[k * P * KEEP_W +: P * KEEP_W]),
      .m_tuser       (sw_out_tuser[k * P * USER_W +: P * USER_W]),
      .m_tlast       (sw_out_tlast[k * P +: P]),
      .m_tvalid      (sw_valid[k * P +: P]),
      .m_tready      ({P{slot}}),
      .cnt_in        (sw_in[k * P * 32 +: P * 32]),
      .cnt_out       (sw_out[k * P * 32 +: P * 32]),
      .cnt_noroute   (sw_nr[k * P * 32 +: P * 32]),
      .cnt_bad       (sw_bad[k * P * 32 +: P * 32]),
      .cnt_ovf       (sw_ovf[k * P * 32 +: P * 32]),
      .cnt_refused   (sw_ref[k * P * 32 +: P * 32]),
      .cnt_cb        (),
      .credits       (sw_credits[k * P * 16 +: P * 16])
    );
    /* verilator lint_on PINCONNECTEMPTY */
  end

  always_comb begin
    drops = '0;
    for (int i = 0; i < L; i++)
      drops = drops + np_nr[i * 32 +: 32] + np_bad[i * 32 +: 32] + np_ovf[i * 32 +: 32]
            + np_ref[i * 32 +: 32] + sw_nr[i * 32 +: 32] + sw_bad[i * 32 +: 32] + sw_ovf[i * 32 +: 32]
            + sw_ref[i * 32 +: 32];
  end

endmodule

`default_nettype wire
