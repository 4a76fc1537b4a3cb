// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// tb_qrdma_nic_pair: testbench top (not hardware) of two qrdma_nic, node 0 and node 1,
// back to back through two tb_qrdma_link models (one per direction). Each node's host
// port and host-memory master are brought out flat under n0_ / n1_ so that cocotbext-axi
// binds an AxiMaster and an AxiRam by prefix (tests/top/test_qrdma_nic.py).
// Generated once by hand from the port lists of qrdma_nic; keep it in step with it.
`default_nettype none

module tb_qrdma_nic_pair
  import qrdma_fmt_pkg::*;
#(
  parameter int unsigned HOST_DATA_W       = 256,    // host port width (128 or 256)
  parameter int unsigned HOST_ID_W         = 4,      // host AXI ID width
  parameter int unsigned NUM_NODES         = 4,      // qrdma_nic NUM_NODES
  parameter int unsigned MAX_PAYLOAD       = 1024,   // qrdma_nic MAX_PAYLOAD
  parameter int unsigned BLOCK_SIZE        = 65536,  // qrdma_nic BLOCK_SIZE
  parameter int unsigned MAX_OUTSTANDING   = 2,      // qrdma_nic MAX_OUTSTANDING
  parameter int unsigned TX_SLOTS          = 64,     // qrdma_nic TX_SLOTS
  parameter int unsigned READ_WINDOW_BEATS = 256,    // qrdma_nic READ_WINDOW_BEATS
  parameter int unsigned RX_BUF_BEATS      = 256,    // qrdma_nic RX_BUF_BEATS
  parameter int unsigned LINK_LATENCY      = 100,    // link latency in cycles
  parameter int unsigned LINK_DEPTH        = 256     // link FIFO beats
) (
  input  logic clk,
  input  logic rst,
  // node 0: host port (AXI4 slave) and host memory (AXI4 master)
  input  logic [HOST_ID_W-1:0] n0_s_axi_awid,
  input  logic [ADDR_W-1:0] n0_s_axi_awaddr,
  input  logic [8-1:0] n0_s_axi_awlen,
  input  logic [3-1:0] n0_s_axi_awsize,
  input  logic [2-1:0] n0_s_axi_awburst,
  input  logic n0_s_axi_awvalid,
  output logic n0_s_axi_awready,
  input  logic [HOST_DATA_W-1:0] n0_s_axi_wdata,
  input  logic [HOST_DATA_W/8-1:0] n0_s_axi_wstrb,
  input  logic n0_s_axi_wlast,
  input  logic n0_s_axi_wvalid,
  output logic n0_s_axi_wready,
  output logic [HOST_ID_W-1:0] n0_s_axi_bid,
  output logic [2-1:0] n0_s_axi_bresp,
  output logic n0_s_axi_bvalid,
  input  logic n0_s_axi_bready,
  input  logic [HOST_ID_W-1:0] n0_s_axi_arid,
  input  logic [ADDR_W-1:0] n0_s_axi_araddr,
  input  logic [8-1:0] n0_s_axi_arlen,
  input  logic [3-1:0] n0_s_axi_arsize,
  input  logic [2-1:0] n0_s_axi_arburst,
  input  logic n0_s_axi_arvalid,
  output logic n0_s_axi_arready,
  output logic [HOST_ID_W-1:0] n0_s_axi_rid,
  output logic [HOST_DATA_W-1:0] n0_s_axi_rdata,
  output logic [2-1:0] n0_s_axi_rresp,
  output logic n0_s_axi_rlast,
  output logic n0_s_axi_rvalid,
  input  logic n0_s_axi_rready,
  output logic [4-1:0] n0_m_axi_awid,
  output logic [64-1:0] n0_m_axi_awaddr,
  output logic [8-1:0] n0_m_axi_awlen,
  output logic [3-1:0] n0_m_axi_awsize,
  output logic [2-1:0] n0_m_axi_awburst,
  output logic n0_m_axi_awvalid,
  input  logic n0_m_axi_awready,
  output logic [512-1:0] n0_m_axi_wdata,
  output logic [64-1:0] n0_m_axi_wstrb,
  output logic n0_m_axi_wlast,
  output logic n0_m_axi_wvalid,
  input  logic n0_m_axi_wready,
  input  logic [4-1:0] n0_m_axi_bid,
  input  logic [2-1:0] n0_m_axi_bresp,
  input  logic n0_m_axi_bvalid,
  output logic n0_m_axi_bready,
  output logic [4-1:0] n0_m_axi_arid,
  output logic [64-1:0] n0_m_axi_araddr,
  output logic [8-1:0] n0_m_axi_arlen,
  output logic [3-1:0] n0_m_axi_arsize,
  output logic [2-1:0] n0_m_axi_arburst,
  output logic n0_m_axi_arvalid,
  input  logic n0_m_axi_arready,
  input  logic [4-1:0] n0_m_axi_rid,
  input  logic [512-1:0] n0_m_axi_rdata,
  input  logic [2-1:0] n0_m_axi_rresp,
  input  logic n0_m_axi_rlast,
  input  logic n0_m_axi_rvalid,
  output logic n0_m_axi_rready,
  output logic n0_ready,
  input  logic [NUM_NODES-1:0] n0_tx_pause,
  output logic n0_busy,
  output logic n0_nq_wait,
  output logic [NIC_STATE_W-1:0] n0_state,
  // link from node 0 to node 1: fault injection and counters
  input  logic l0_flip_en,
  input  logic [8:0] l0_flip_bit,
  output logic [31:0] l0_flips,
  output logic [511:0] l0_flip_hdr,
  output logic [31:0] l0_beats,
  input  logic l0_fault_on,             // tb_qrdma_link's fault model (fault_cfg, fault_cnt)
  input  logic [480:0] l0_fault_cfg,
  output logic [415:0] l0_fault_cnt,
  // node 1: host port (AXI4 slave) and host memory (AXI4 master)
  input  logic [HOST_ID_W-1:0] n1_s_axi_awid,
  input  logic [ADDR_W-1:0] n1_s_axi_awaddr,
  input  logic [8-1:0] n1_s_axi_awlen,
  input  logic [3-1:0] n1_s_axi_awsize,
  input  logic [2-1:0] n1_s_axi_awburst,
  input  logic n1_s_axi_awvalid,
  output logic n1_s_axi_awready,
  input  logic [HOST_DATA_W-1:0] n1_s_axi_wdata,
  input  logic [HOST_DATA_W/8-1:0] n1_s_axi_wstrb,
  input  logic n1_s_axi_wlast,
  input  logic n1_s_axi_wvalid,
  output logic n1_s_axi_wready,
  output logic [HOST_ID_W-1:0] n1_s_axi_bid,
  output logic [2-1:0] n1_s_axi_bresp,
  output logic n1_s_axi_bvalid,
  input  logic n1_s_axi_bready,
  input  logic [HOST_ID_W-1:0] n1_s_axi_arid,
  input  logic [ADDR_W-1:0] n1_s_axi_araddr,
  input  logic [8-1:0] n1_s_axi_arlen,
  input  logic [3-1:0] n1_s_axi_arsize,
  input  logic [2-1:0] n1_s_axi_arburst,
  input  logic n1_s_axi_arvalid,
  output logic n1_s_axi_arready,
  output logic [HOST_ID_W-1:0] n1_s_axi_rid,
  output logic [HOST_DATA_W-1:0] n1_s_axi_rdata,
  output logic [2-1:0] n1_s_axi_rresp,
  output logic n1_s_axi_rlast,
  output logic n1_s_axi_rvalid,
  input  logic n1_s_axi_rready,
  output logic [4-1:0] n1_m_axi_awid,
  output logic [64-1:0] n1_m_axi_awaddr,
  output logic [8-1:0] n1_m_axi_awlen,
  output logic [3-1:0] n1_m_axi_awsize,
  output logic [2-1:0] n1_m_axi_awburst,
  output logic n1_m_axi_awvalid,
  input  logic n1_m_axi_awready,
  output logic [512-1:0] n1_m_axi_wdata,
  output logic [64-1:0] n1_m_axi_wstrb,
  output logic n1_m_axi_wlast,
  output logic n1_m_axi_wvalid,
  input  logic n1_m_axi_wready,
  input  logic [4-1:0] n1_m_axi_bid,
  input  logic [2-1:0] n1_m_axi_bresp,
  input  logic n1_m_axi_bvalid,
  output logic n1_m_axi_bready,
  output logic [4-1:0] n1_m_axi_arid,
  output logic [64-1:0] n1_m_axi_araddr,
  output logic [8-1:0] n1_m_axi_arlen,
  output logic [3-1:0] n1_m_axi_arsize,
  output logic [2-1:0] n1_m_axi_arburst,
  output logic n1_m_axi_arvalid,
  input  logic n1_m_axi_arready,
  input  logic [4-1:0] n1_m_axi_rid,
  input  logic [512-1:0] n1_m_axi_rdata,
  input  logic [2-1:0] n1_m_axi_rresp,
  input  logic n1_m_axi_rlast,
  input  logic n1_m_axi_rvalid,
  output logic n1_m_axi_rready,
  output logic n1_ready,
  input  logic [NUM_NODES-1:0] n1_tx_pause,
  output logic n1_busy,
  output logic n1_nq_wait,
  output logic [NIC_STATE_W-1:0] n1_state,
  // link from node 1 to node 0: fault injection and counters
  input  logic l1_flip_en,
  input  logic [8:0] l1_flip_bit,
  output logic [31:0] l1_flips,
  output logic [511:0] l1_flip_hdr,
  output logic [31:0] l1_beats,
  input  logic l1_fault_on,
  input  logic [480:0] l1_fault_cfg,
  output logic [415:0] l1_fault_cnt,
  output logic [15:0] l1_occ,
  output logic [15:0] l0_occ,
  // cycles in which a beat moved on a link or on a memory port of either node (watchdog)
  output logic [31:0] activity,
  // injection into node 1's receive port (directed tests): while inj_sel is high node 1
  // takes packets from inj_* and link 0 holds its beats
  input  logic         inj_sel,
  input  logic [511:0] inj_tdata,
  input  logic [63:0]  inj_tkeep,
  input  logic         inj_tlast,
  input  logic [31:0]  inj_tuser,
  input  logic         inj_tvalid,
  output logic         inj_tready,
  // node 1's receive port as it takes beats (from link 0 or the injection), for monitors
  output logic [511:0] rx1_tdata,
  output logic [63:0]  rx1_tkeep,
  output logic         rx1_tlast,
  output logic [31:0]  rx1_tuser,
  output logic         rx1_take
);

  logic [511:0] t0_tdata, r0_tdata;
  logic [63:0]  t0_tkeep, r0_tkeep;
  logic [31:0]  t0_tuser, r0_tuser;
  logic         t0_tlast, t0_tvalid, t0_tready, r0_tlast, r0_tvalid, r0_tready;

  logic [511:0] t1_tdata, r1_tdata;
  logic [63:0]  t1_tkeep, r1_tkeep;
  logic [31:0]  t1_tuser, r1_tuser;
  logic         t1_tlast, t1_tvalid, t1_tready, r1_tlast, r1_tvalid, r1_tready;

  // link 0 output or injection into node 1
  logic [511:0] l0_tdata;
  logic [63:0]  l0_tkeep;
  logic [31:0]  l0_tuser;
  logic         l0_tlast, l0_tvalid, l0_tready;

  assign r1_tdata   = inj_sel ? inj_tdata  : l0_tdata;
  assign r1_tkeep   = inj_sel ? inj_tkeep  : l0_tkeep;
  assign r1_tlast   = inj_sel ? inj_tlast  : l0_tlast;
  assign r1_tuser   = inj_sel ? inj_tuser  : l0_tuser;
  assign r1_tvalid  = inj_sel ? inj_tvalid : l0_tvalid;
  assign l0_tready  = !inj_sel && r1_tready;
  assign inj_tready = inj_sel && r1_tready;
  assign rx1_tdata  = r1_tdata;
  assign rx1_tkeep  = r1_tkeep;
  assign rx1_tlast  = r1_tlast;
  assign rx1_tuser  = r1_tuser;
  assign rx1_take   = r1_tvalid && r1_tready;

  qrdma_nic #(
    .HOST_DATA_W(HOST_DATA_W), .NUM_NODES(NUM_NODES), .MAX_PAYLOAD(MAX_PAYLOAD),
    .BLOCK_SIZE(BLOCK_SIZE), .MAX_OUTSTANDING(MAX_OUTSTANDING), .TX_SLOTS(TX_SLOTS),
    .READ_WINDOW_BEATS(READ_WINDOW_BEATS), .RX_BUF_BEATS(RX_BUF_BEATS)
  ) u_nic0 (
    .clk, .rst, .node_id(16'd0), .ready(n0_ready),
    .s_axi_awid(n0_s_axi_awid),
    .s_axi_awaddr(n0_s_axi_awaddr),
    .s_axi_awlen(n0_s_axi_awlen),
    .s_axi_awsize(n0_s_axi_awsize),
    .s_axi_awburst(n0_s_axi_awburst),
    .s_axi_awvalid(n0_s_axi_awvalid),
    .s_axi_awready(n0_s_axi_awready),
    .s_axi_wdata(n0_s_axi_wdata),
    .s_axi_wstrb(n0_s_axi_wstrb),
    .s_axi_wlast(n0_s_axi_wlast),
    .s_axi_wvalid(n0_s_axi_wvalid),
    .s_axi_wready(n0_s_axi_wready),
    .s_axi_bid(n0_s_axi_bid),
    .s_axi_bresp(n0_s_axi_bresp),
    .s_axi_bvalid(n0_s_axi_bvalid),
    .s_axi_bready(n0_s_axi_bready),
    .s_axi_arid(n0_s_axi_arid),
    .s_axi_araddr(n0_s_axi_araddr),
    .s_axi_arlen(n0_s_axi_arlen),
    .s_axi_arsize(n0_s_axi_arsize),
    .s_axi_arburst(n0_s_axi_arburst),
    .s_axi_arvalid(n0_s_axi_arvalid),
    .s_axi_arready(n0_s_axi_arready),
    .s_axi_rid(n0_s_axi_rid),
    .s_axi_rdata(n0_s_axi_rdata),
    .s_axi_rresp(n0_s_axi_rresp),
    .s_axi_rlast(n0_s_axi_rlast),
    .s_axi_rvalid(n0_s_axi_rvalid),
    .s_axi_rready(n0_s_axi_rready),
    .m_axi_awid(n0_m_axi_awid),
    .m_axi_awaddr(n0_m_axi_awaddr),
    .m_axi_awlen(n0_m_axi_awlen),
    .m_axi_awsize(n0_m_axi_awsize),
    .m_axi_awburst(n0_m_axi_awburst),
    .m_axi_awvalid(n0_m_axi_awvalid),
    .m_axi_awready(n0_m_axi_awready),
    .m_axi_wdata(n0_m_axi_wdata),
    .m_axi_wstrb(n0_m_axi_wstrb),
    .m_axi_wlast(n0_m_axi_wlast),
    .m_axi_wvalid(n0_m_axi_wvalid),
    .m_axi_wready(n0_m_axi_wready),
    .m_axi_bid(n0_m_axi_bid),
    .m_axi_bresp(n0_m_axi_bresp),
    .m_axi_bvalid(n0_m_axi_bvalid),
    .m_axi_bready(n0_m_axi_bready),
    .m_axi_arid(n0_m_axi_arid),
    .m_axi_araddr(n0_m_axi_araddr),
    .m_axi_arlen(n0_m_axi_arlen),
    .m_axi_arsize(n0_m_axi_arsize),
    .m_axi_arburst(n0_m_axi_arburst),
    .m_axi_arvalid(n0_m_axi_arvalid),
    .m_axi_arready(n0_m_axi_arready),
    .m_axi_rid(n0_m_axi_rid),
    .m_axi_rdata(n0_m_axi_rdata),
    .m_axi_rresp(n0_m_axi_rresp),
    .m_axi_rlast(n0_m_axi_rlast),
    .m_axi_rvalid(n0_m_axi_rvalid),
    .m_axi_rready(n0_m_axi_rready),
    .m_axis_tx_tdata(t0_tdata), .m_axis_tx_tkeep(t0_tkeep), .m_axis_tx_tlast(t0_tlast),
    .m_axis_tx_tuser(t0_tuser), .m_axis_tx_tvalid(t0_tvalid), .m_axis_tx_tready(t0_tready),
    .s_axis_rx_tdata(r0_tdata), .s_axis_rx_tkeep(r0_tkeep), .s_axis_rx_tlast(r0_tlast),
    .s_axis_rx_tuser(r0_tuser), .s_axis_rx_tvalid(r0_tvalid), .s_axis_rx_tready(r0_tready),
    .tx_pause(n0_tx_pause),
    .busy(n0_busy), .nq_wait(n0_nq_wait), .state(n0_state)
  );

  tb_qrdma_link #(.LATENCY(LINK_LATENCY), .DEPTH(LINK_DEPTH), .SRC(0), .DST(1)) u_link0 (
    .clk, .rst,
    .s_axis_tdata(t0_tdata), .s_axis_tkeep(t0_tkeep), .s_axis_tlast(t0_tlast),
    .s_axis_tuser(t0_tuser), .s_axis_tvalid(t0_tvalid), .s_axis_tready(t0_tready),
    .m_axis_tdata(l0_tdata), .m_axis_tkeep(l0_tkeep), .m_axis_tlast(l0_tlast),
    .m_axis_tuser(l0_tuser), .m_axis_tvalid(l0_tvalid), .m_axis_tready(l0_tready),
    .flip_en(l0_flip_en), .flip_bit(l0_flip_bit), .flips(l0_flips), .flip_hdr(l0_flip_hdr), .beats(l0_beats),
    .occ(l0_occ), .fault_on(l0_fault_on), .fault_cfg(l0_fault_cfg), .fault_cnt(l0_fault_cnt)
  );

  qrdma_nic #(
    .HOST_DATA_W(HOST_DATA_W), .NUM_NODES(NUM_NODES), .MAX_PAYLOAD(MAX_PAYLOAD),
    .BLOCK_SIZE(BLOCK_SIZE), .MAX_OUTSTANDING(MAX_OUTSTANDING), .TX_SLOTS(TX_SLOTS),
    .READ_WINDOW_BEATS(READ_WINDOW_BEATS), .RX_BUF_BEATS(RX_BUF_BEATS)
  ) u_nic1 (
    .clk, .rst, .node_id(16'd1), .ready(n1_ready),
    .s_axi_awid(n1_s_axi_awid),
    .s_axi_awaddr(n1_s_axi_awaddr),
    .s_axi_awlen(n1_s_axi_awlen),
    .s_axi_awsize(n1_s_axi_awsize),
    .s_axi_awburst(n1_s_axi_awburst),
    .s_axi_awvalid(n1_s_axi_awvalid),
    .s_axi_awready(n1_s_axi_awready),
    .s_axi_wdata(n1_s_axi_wdata),
    .s_axi_wstrb(n1_s_axi_wstrb),
    .s_axi_wlast(n1_s_axi_wlast),
    .s_axi_wvalid(n1_s_axi_wvalid),
    .s_axi_wready(n1_s_axi_wready),
    .s_axi_bid(n1_s_axi_bid),
    .s_axi_bresp(n1_s_axi_bresp),
    .s_axi_bvalid(n1_s_axi_bvalid),
    .s_axi_bready(n1_s_axi_bready),
    .s_axi_arid(n1_s_axi_arid),
    .s_axi_araddr(n1_s_axi_araddr),
    .s_axi_arlen(n1_s_axi_arlen),
    .s_axi_arsize(n1_s_axi_arsize),
    .s_axi_arburst(n1_s_axi_arburst),
    .s_axi_arvalid(n1_s_axi_arvalid),
    .s_axi_arready(n1_s_axi_arready),
    .s_axi_rid(n1_s_axi_rid),
    .s_axi_rdata(n1_s_axi_rdata),
    .s_axi_rresp(n1_s_axi_rresp),
    .s_axi_rlast(n1_s_axi_rlast),
    .s_axi_rvalid(n1_s_axi_rvalid),
    .s_axi_rready(n1_s_axi_rready),
    .m_axi_awid(n1_m_axi_awid),
    .m_axi_awaddr(n1_m_axi_awaddr),
    .m_axi_awlen(n1_m_axi_awlen),
    .m_axi_awsize(n1_m_axi_awsize),
    .m_axi_awburst(n1_m_axi_awburst),
    .m_axi_awvalid(n1_m_axi_awvalid),
    .m_axi_awready(n1_m_axi_awready),
    .m_axi_wdata(n1_m_axi_wdata),
    .m_axi_wstrb(n1_m_axi_wstrb),
    .m_axi_wlast(n1_m_axi_wlast),
    .m_axi_wvalid(n1_m_axi_wvalid),
    .m_axi_wready(n1_m_axi_wready),
    .m_axi_bid(n1_m_axi_bid),
    .m_axi_bresp(n1_m_axi_bresp),
    .m_axi_bvalid(n1_m_axi_bvalid),
    .m_axi_bready(n1_m_axi_bready),
    .m_axi_arid(n1_m_axi_arid),
    .m_axi_araddr(n1_m_axi_araddr),
    .m_axi_arlen(n1_m_axi_arlen),
    .m_axi_arsize(n1_m_axi_arsize),
    .m_axi_arburst(n1_m_axi_arburst),
    .m_axi_arvalid(n1_m_axi_arvalid),
    .m_axi_arready(n1_m_axi_arready),
    .m_axi_rid(n1_m_axi_rid),
    .m_axi_rdata(n1_m_axi_rdata),
    .m_axi_rresp(n1_m_axi_rresp),
    .m_axi_rlast(n1_m_axi_rlast),
    .m_axi_rvalid(n1_m_axi_rvalid),
    .m_axi_rready(n1_m_axi_rready),
    .m_axis_tx_tdata(t1_tdata), .m_axis_tx_tkeep(t1_tkeep), .m_axis_tx_tlast(t1_tlast),
    .m_axis_tx_tuser(t1_tuser), .m_axis_tx_tvalid(t1_tvalid), .m_axis_tx_tready(t1_tready),
    .s_axis_rx_tdata(r1_tdata), .s_axis_rx_tkeep(r1_tkeep), .s_axis_rx_tlast(r1_tlast),
    .s_axis_rx_tuser(r1_tuser), .s_axis_rx_tvalid(r1_tvalid), .s_axis_rx_tready(r1_tready),
    .tx_pause(n1_tx_pause),
    .busy(n1_busy), .nq_wait(n1_nq_wait), .state(n1_state)
  );

  tb_qrdma_link #(.LATENCY(LINK_LATENCY), .DEPTH(LINK_DEPTH), .SRC(1), .DST(0)) u_link1 (
    .clk, .rst,
    .s_axis_tdata(t1_tdata), .s_axis_tkeep(t1_tkeep), .s_axis_tlast(t1_tlast),
    .s_axis_tuser(t1_tuser), .s_axis_tvalid(t1_tvalid), .s_axis_tready(t1_tready),
    .m_axis_tdata(r0_tdata), .m_axis_tkeep(r0_tkeep), .m_axis_tlast(r0_tlast),
    .m_axis_tuser(r0_tuser), .m_axis_tvalid(r0_tvalid), .m_axis_tready(r0_tready),
    .flip_en(l1_flip_en), .flip_bit(l1_flip_bit), .flips(l1_flips), .flip_hdr(l1_flip_hdr), .beats(l1_beats),
    .occ(l1_occ), .fault_on(l1_fault_on), .fault_cfg(l1_fault_cfg), .fault_cnt(l1_fault_cnt)
  );

  always_ff @(posedge clk) begin
    if (rst) activity <= '0;
    else if ((t0_tvalid && t0_tready) || (t1_tvalid && t1_tready)
             || (r0_tvalid && r0_tready) || (r1_tvalid && r1_tready)
             || (n0_m_axi_arvalid && n0_m_axi_arready) || (n0_m_axi_rvalid && n0_m_axi_rready)
             || (n0_m_axi_awvalid && n0_m_axi_awready) || (n0_m_axi_wvalid && n0_m_axi_wready)
             || (n0_m_axi_bvalid && n0_m_axi_bready)
             || (n1_m_axi_arvalid && n1_m_axi_arready) || (n1_m_axi_rvalid && n1_m_axi_rready)
             || (n1_m_axi_awvalid && n1_m_axi_awready) || (n1_m_axi_wvalid && n1_m_axi_wready)
             || (n1_m_axi_bvalid && n1_m_axi_bready))
      activity <= activity + 32'd1;
  end

endmodule

`default_nettype wire
