// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_rx: the receive unit of the qrdma NIC (docs/nic.md "Receive unit"; seed 004
// §3.2-3.3: block registration by bitmask, duplicate and stale drop, local completion
// notification into a queue with an "empty" marker). Four parts, in packet order:
//
//   s_axis_rx ─▶ qrdma_rx_buf ──headers──▶ qrdma_rx_hdr ──commands──▶ qrdma_rx_wr ─▶ m_axi AW/W
//                (ring + CRC)  ◀──read/skip payload beats───────────┘      │   ◀── B
//                                         │ events              done_cmd/done_ntf
//                                         ▼                                 ▼
//                               qrdma_rx_notif ──▶ m_ackreq, notification writes (via qrdma_rx_wr)
//                               m_ack ◀── ACK/NACK packets (qrdma_rx_hdr)
//
//   qrdma_rx_buf    store and forward: payload beats in a ring of BUF_BEATS beats, headers
//                   in a FIFO of HDR_DEPTH packets, CRC-32 checked against tuser of the
//                   last beat (realigned so that DATA payload at any lane is checked).
//   qrdma_rx_hdr    drops bad CRC / malformed packets, forwards ACK/NACK, tracks blocks
//                   in a table of NUM_NODES*1024 entries keyed by (src_node mod
//                   NUM_NODES, tid): newer seq starts afresh, older is stale, a set bit
//                   is a duplicate; emits write commands and completion events.
//   qrdma_rx_wr     AXI4 INCR bursts (AWSIZE 6, one ID 0, strobes on partial beats),
//                   notification writes, B counting.
//   qrdma_rx_notif  ACK requests and notification entries, each after the B responses of
//                   the data it covers; the ring is never written past NQ_TAIL + NQ_SIZE.
//
// After rst the block table is cleared in NUM_NODES*1024 cycles; packets arriving
// meanwhile wait in the buffer (s_axis_rx_tready falls when it is full).
//
// Timing (cycles, no backpressure; checked by tests/rx/test_qrdma_rx.py rx_timing):
//   last beat of a packet taken (n) -> its AW valid: n+13 when the last beat holds no
//     payload byte at a lane >= the lane of the first payload byte, else n+14 (e.g. every
//     packet whose payload starts at lane 0: its last CRC beat goes a cycle later, see
//     qrdma_rx_buf); the first W beat follows one cycle after the AW
//   B of the block's last write (b) -> m_ackreq_valid: b+4
//   B of the last write a notification covers (b) -> notification AW valid: b+6; the
//     notification's own B (c) -> nq_head advanced and stat_notif: c+2
//   throughput: one beat per cycle in (s_axis_rx_tready stays high for back-to-back
//     1 KiB packets at any lane); the write side needs only the payload beats (not the
//     header beat), so it keeps up with the link.
// Internal sizes: header FIFO HDR_DEPTH = 64 packets, event FIFO EVT_DEPTH = 64
// completion events, 32 bursts in flight on AXI, W FIFO of 4 beats.
// stat_* are one-cycle pulses (stat_bytes carries the payload bytes of the accepted
// DATA/INLINE packet of that cycle, else 0), registered, at the packet's decision
// (stat_notif: when the notification's B comes back).
`default_nettype none

module qrdma_rx
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
  import qrdma_rx_pkg::*;
#(
  parameter int unsigned NUM_NODES    = 4,    // source nodes tracked (power of 2): entry = {src_node mod NUM_NODES, tid}
  parameter int unsigned MAX_PAYLOAD  = 1024, // largest DATA payload in bytes (256..4096, power of 2)
  parameter int unsigned MAX_BLK_PKTS = 64,   // packets per block (bits of the mask, 1..256); more: dropped as bad
  parameter int unsigned BUF_BEATS    = 256,  // receive buffer in 64-byte beats (power of 2, >= MAX_PAYLOAD/64 + 1)
  parameter int unsigned AXI_ID_W     = 4     // AXI ID width (ID 0 is used)
) (
  input  logic                 clk,
  input  logic                 rst,
  input  logic [15:0]          node_id,             // this node: other dst_node is bad
  // network in (AXI-Stream, one packet after the other, CRC in tuser of the last beat)
  input  logic [511:0]         s_axis_rx_tdata,
  input  logic [63:0]          s_axis_rx_tkeep,
  input  logic                 s_axis_rx_tlast,
  input  logic [31:0]          s_axis_rx_tuser,
  input  logic                 s_axis_rx_tvalid,
  output logic                 s_axis_rx_tready,
  // host memory (AXI4 write master; payload and notification writes)
  output logic [AXI_ID_W-1:0]  m_axi_awid,
  output logic [63:0]          m_axi_awaddr,
  output logic [7:0]           m_axi_awlen,
  output logic [2:0]           m_axi_awsize,
  output logic [1:0]           m_axi_awburst,
  output logic                 m_axi_awvalid,
  input  logic                 m_axi_awready,
  output logic [511:0]         m_axi_wdata,
  output logic [63:0]          m_axi_wstrb,
  output logic                 m_axi_wlast,
  output logic                 m_axi_wvalid,
  input  logic                 m_axi_wready,
  input  logic [AXI_ID_W-1:0]  m_axi_bid,
  input  logic [1:0]           m_axi_bresp,
  input  logic                 m_axi_bvalid,
  output logic                 m_axi_bready,
  // ACK / NACK packets received, to the QoS engine (ACK_DESC)
  output logic                 m_ack_valid,
  input  logic                 m_ack_ready,
  output logic [31:0]          m_ack_data,
  // ACK requests to the send unit
  output logic                 m_ackreq_valid,
  input  logic                 m_ackreq_ready,
  output logic [15:0]          m_ackreq_dst,
  output logic [9:0]           m_ackreq_tid,
  output logic [15:0]          m_ackreq_seq,
  output logic                 m_ackreq_nack,       // always 0
  // notification ring (NIC registers)
  input  logic [63:0]          cfg_nq_base,         // 64-byte aligned
  input  logic [31:0]          cfg_nq_size,         // entries, power of 2; 0: off
  input  logic [31:0]          cfg_nq_tail,         // entries taken by software
  input  logic                 cfg_nq_reset,        // pulse: nq_head <- 0
  output logic [31:0]          nq_head,             // entries written (B back)
  // statistics (one-cycle pulses)
  output logic                 stat_data_pkt,       // DATA accepted (written)
  output logic                 stat_ctrl_pkt,       // INLINE / CONTROL / ACK / NACK accepted
  output logic [12:0]          stat_bytes,          // payload bytes of the packet accepted
  output logic                 stat_crc_drop,
  output logic                 stat_dup_drop,
  output logic                 stat_stale_drop,
  output logic                 stat_bad_drop,
  output logic                 stat_notif           // notification written
);

  localparam int unsigned HDR_DEPTH = 64;  // packets waiting in the buffer (headers)
  localparam int unsigned EVT_DEPTH = 64;  // completion events waiting for their B

  net_hdr_t        hdr;
  logic            hdr_valid, hdr_ready, hdr_long, hdr_crc_ok;
  logic [NBW-1:0]  hdr_nbeats;
  logic            rd_en, skip_en;
  logic [NBW-1:0]  skip_n;
  logic [511:0]    rd_data;
  logic            cmd_valid, cmd_ready, evt_valid, evt_ready;
  rx_cmd_t         cmd;
  rx_evt_t         evt;
  logic            ntf_valid, ntf_ready, done_cmd, done_ntf;
  logic [BAW-1:0]  ntf_baddr;
  logic [511:0]    ntf_data;

  qrdma_rx_buf #(
    .MAX_PAYLOAD (MAX_PAYLOAD),
    .BUF_BEATS   (BUF_BEATS),
    .HDR_DEPTH   (HDR_DEPTH)
  ) u_buf (
    .clk, .rst,
    .s_axis_rx_tdata, .s_axis_rx_tkeep, .s_axis_rx_tlast, .s_axis_rx_tuser,
    .s_axis_rx_tvalid, .s_axis_rx_tready,
    .m_hdr_valid(hdr_valid), .m_hdr_ready(hdr_ready), .m_hdr(hdr),
    .m_hdr_nbeats(hdr_nbeats), .m_hdr_long(hdr_long), .m_hdr_crc_ok(hdr_crc_ok),
    .rd_en, .rd_data, .skip_en, .skip_n
  );

  qrdma_rx_hdr #(
    .NUM_NODES    (NUM_NODES),
    .MAX_PAYLOAD  (MAX_PAYLOAD),
    .MAX_BLK_PKTS (MAX_BLK_PKTS),
    .EVT_DEPTH    (EVT_DEPTH)
  ) u_hdr (
    .clk, .rst, .node_id,
    .s_hdr_valid(hdr_valid), .s_hdr_ready(hdr_ready), .s_hdr(hdr),
    .s_hdr_nbeats(hdr_nbeats), .s_hdr_long(hdr_long), .s_hdr_crc_ok(hdr_crc_ok),
    .m_cmd_valid(cmd_valid), .m_cmd_ready(cmd_ready), .m_cmd(cmd),
    .m_evt_valid(evt_valid), .m_evt_ready(evt_ready), .m_evt(evt),
    .m_ack_valid, .m_ack_ready, .m_ack_data,
    .stat_data_pkt, .stat_ctrl_pkt, .stat_bytes, .stat_crc_drop, .stat_dup_drop,
    .stat_stale_drop, .stat_bad_drop
  );

  qrdma_rx_wr #(
    .AXI_ID_W (AXI_ID_W)
  ) u_wr (
    .clk, .rst,
    .s_cmd_valid(cmd_valid), .s_cmd_ready(cmd_ready), .s_cmd(cmd),
    .s_ntf_valid(ntf_valid), .s_ntf_ready(ntf_ready), .s_ntf_baddr(ntf_baddr),
    .s_ntf_data(ntf_data),
    .buf_rd_en(rd_en), .buf_rd_data(rd_data), .buf_skip_en(skip_en), .buf_skip_n(skip_n),
    .m_axi_awid, .m_axi_awaddr, .m_axi_awlen, .m_axi_awsize, .m_axi_awburst,
    .m_axi_awvalid, .m_axi_awready,
    .m_axi_wdata, .m_axi_wstrb, .m_axi_wlast, .m_axi_wvalid, .m_axi_wready,
    .m_axi_bid, .m_axi_bresp, .m_axi_bvalid, .m_axi_bready,
    .done_cmd, .done_ntf
  );

  qrdma_rx_notif u_notif (
    .clk, .rst,
    .s_evt_valid(evt_valid), .s_evt_ready(evt_ready), .s_evt(evt),
    .done_cmd, .done_ntf,
    .m_ackreq_valid, .m_ackreq_ready, .m_ackreq_dst, .m_ackreq_tid, .m_ackreq_seq,
    .m_ackreq_nack,
    .m_ntf_valid(ntf_valid), .m_ntf_ready(ntf_ready), .m_ntf_baddr(ntf_baddr),
    .m_ntf_data(ntf_data),
    .cfg_nq_base, .cfg_nq_size, .cfg_nq_tail, .cfg_nq_reset, .nq_head, .stat_notif
  );

endmodule

`default_nettype wire
