// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_nic: one qrdma network interface (docs/nic.md; [QoS-RDMA] ch. 2-3 engine,
// [FPGA-NI] §2.5 VOQs, [RSN] §3 receive side): the QoS engine (docs/qos.md) feeding the
// send unit (qrdma_tx), the receive unit (qrdma_rx) feeding acknowledgements back to the
// engine and responses (ACK/NACK packets) to the send unit, and the NIC registers
// (qrdma_nic_regs) on the host port's external register window. Block diagram:
// docs/modules.md#qrdma_nic.
//
// Contract. Message classes (docs/nic.md "Deadlock freedom"): requests (DATA, INLINE,
// CONTROL) take send slots and VOQs; responses (ACK, NACK) have their own queue in the
// receive unit, sized so that it is never full, and their own path to the link in the
// send unit; the receive unit takes every packet whatever the send side does.
// The memory master is shared without arbitration: AR/R belong to the send unit (payload
// reads), AW/W/B to the receive unit (payload and notification writes). All IDs are 0.
// tx_pause[d] stops new request packets to destination d (d = dst_node mod NUM_NODES)
// from the cycle after it rises (registered in the send unit); it is the hook for
// link-level credits and is tied low by a plain link.
// busy: work is outstanding (a transfer posted and not finished, or a packet, write,
// response or notification in flight); nq_wait: a notification waits for a ring slot
// (software must take entries); state: occupancy snapshot (nic_state, docs/formats.md),
// registered. After rst: `ready` rises when the engine's ID pools are filled and the
// receive unit's window table is cleared (transfers may be posted and windows
// registered from then on); the host port accepts AXI requests earlier.
`default_nettype none

module qrdma_nic
  import qrdma_fmt_pkg::*;
#(
  parameter int unsigned HOST_DATA_W       = 256,    // host AXI4 slave data width: 128 or 256
  parameter int unsigned HOST_ID_W         = 4,      // host AXI4 ID width
  parameter int unsigned MEM_ID_W          = 4,      // memory AXI4 master ID width
  parameter int unsigned NUM_NODES         = 4,      // nodes told apart by the send VOQs and the receive block table (power of 2)
  parameter int unsigned MAX_PAYLOAD       = 1024,   // largest packet payload (power of 2, 256..4096)
  parameter int unsigned BLOCK_SIZE        = 65536,  // engine block size (power of 2, 8K..64K)
  parameter int unsigned MAX_OUTSTANDING   = 2,      // blocks of one transfer in flight
  parameter int unsigned TX_SLOTS          = 64,     // send-unit descriptor slots
  parameter int unsigned READ_WINDOW_BEATS = 256,    // send-unit payload read-ahead (64-byte beats)
  parameter int unsigned RX_BUF_BEATS      = 256,    // receive buffer (64-byte beats)
  parameter int unsigned PROT_WINDOWS      = 64,     // receive window table entries (power of 2; docs/protection.md)
  parameter int unsigned REG_ENTRIES       = 256,    // registration table entries (power of 2; docs/registration.md)
  parameter int unsigned REG_MASK_W        = 256,    // its mask bits: transfers of up to REG_MASK_W - 1 blocks register
  parameter bit          BENCH_STAMPS      = 1'b0,   // benchmark mode built: the engine keeps the descriptors' stamps, the receive unit the packets' for their notifications (docs/fabric.md "Benchmark mode")
  localparam int unsigned MAX_BLK_PKTS     = BLOCK_SIZE / MAX_PAYLOAD  // blocks are BLOCK_SIZE-aligned at the destination
) (
  input  logic                      clk,
  input  logic                      rst,          // synchronous, active high
  input  logic [15:0]               node_id,      // this node (src_node of packets; packets for others are dropped)
  output logic                      ready,        // engine and window table ready: transfers can be posted
  // host port (AXI4 slave): descriptors, status, registers (docs/formats.md)
  input  logic [HOST_ID_W-1:0]      s_axi_awid,
  input  logic [ADDR_W-1:0]         s_axi_awaddr,
  input  logic [7:0]                s_axi_awlen,
  input  logic [2:0]                s_axi_awsize,
  input  logic [1:0]                s_axi_awburst,
  input  logic                      s_axi_awvalid,
  output logic                      s_axi_awready,
  input  logic [HOST_DATA_W-1:0]    s_axi_wdata,
  input  logic [HOST_DATA_W/8-1:0]  s_axi_wstrb,
  input  logic                      s_axi_wlast,
  input  logic                      s_axi_wvalid,
  output logic                      s_axi_wready,
  output logic [HOST_ID_W-1:0]      s_axi_bid,
  output logic [1:0]                s_axi_bresp,
  output logic                      s_axi_bvalid,
  input  logic                      s_axi_bready,
  input  logic [HOST_ID_W-1:0]      s_axi_arid,
  input  logic [ADDR_W-1:0]         s_axi_araddr,
  input  logic [7:0]                s_axi_arlen,
  input  logic [2:0]                s_axi_arsize,
  input  logic [1:0]                s_axi_arburst,
  input  logic                      s_axi_arvalid,
  output logic                      s_axi_arready,
  output logic [HOST_ID_W-1:0]      s_axi_rid,
  output logic [HOST_DATA_W-1:0]    s_axi_rdata,
  output logic [1:0]                s_axi_rresp,
  output logic                      s_axi_rlast,
  output logic                      s_axi_rvalid,
  input  logic                      s_axi_rready,
  // host memory (AXI4 master, 512 bits)
  output logic [MEM_ID_W-1:0]       m_axi_awid,
  output logic [63:0]               m_axi_awaddr,
  output logic [7:0]                m_axi_awlen,
  output logic [2:0]                m_axi_awsize,
  output logic [1:0]                m_axi_awburst,
  output logic                      m_axi_awvalid,
  input  logic                      m_axi_awready,
  output logic [511:0]              m_axi_wdata,
  output logic [63:0]               m_axi_wstrb,
  output logic                      m_axi_wlast,
  output logic                      m_axi_wvalid,
  input  logic                      m_axi_wready,
  input  logic [MEM_ID_W-1:0]       m_axi_bid,
  input  logic [1:0]                m_axi_bresp,
  input  logic                      m_axi_bvalid,
  output logic                      m_axi_bready,
  output logic [MEM_ID_W-1:0]       m_axi_arid,
  output logic [63:0]               m_axi_araddr,
  output logic [7:0]                m_axi_arlen,
  output logic [2:0]                m_axi_arsize,
  output logic [1:0]                m_axi_arburst,
  output logic                      m_axi_arvalid,
  input  logic                      m_axi_arready,
  input  logic [MEM_ID_W-1:0]       m_axi_rid,
  input  logic [511:0]              m_axi_rdata,
  input  logic [1:0]                m_axi_rresp,
  input  logic                      m_axi_rlast,
  input  logic                      m_axi_rvalid,
  output logic                      m_axi_rready,
  // network transmit (AXI-Stream, CRC-32 in tuser of the last beat)
  output logic [511:0]              m_axis_tx_tdata,
  output logic [63:0]               m_axis_tx_tkeep,
  output logic                      m_axis_tx_tlast,
  output logic [31:0]               m_axis_tx_tuser,
  output logic                      m_axis_tx_tvalid,
  input  logic                      m_axis_tx_tready,
  // network receive
  input  logic [511:0]              s_axis_rx_tdata,
  input  logic [63:0]               s_axis_rx_tkeep,
  input  logic                      s_axis_rx_tlast,
  input  logic [31:0]               s_axis_rx_tuser,
  input  logic                      s_axis_rx_tvalid,
  output logic                      s_axis_rx_tready,
  // per-destination pause (link credits); tie low without flow control
  input  logic [NUM_NODES-1:0]      tx_pause,
  // work outstanding, waiting for software, occupancy (watchdogs, debug)
  output logic                      busy,
  output logic                      nq_wait,
  output logic [NIC_STATE_W-1:0]    state
);

`ifndef SYNTHESIS
  initial begin
    if (BLOCK_SIZE % MAX_PAYLOAD != 0 || MAX_BLK_PKTS < 1 || MAX_BLK_PKTS > 256)
      $fatal(1, "qrdma_nic: BLOCK_SIZE / MAX_PAYLOAD must be 1..256 packets");
  end
`endif

  // engine <-> send unit <-> receive unit
  logic                     blk_valid, blk_ready, pkt_valid, pkt_ready, ack_valid, ack_ready;
  logic [BLOCK_DESC_W-1:0]  blk_data;
  logic [PKT_DESC_W-1:0]    pkt_data;
  logic                     tblk_valid, tblk_ready, tpkt_valid, tpkt_ready;
  logic [BLOCK_DESC_W-1:0]  tblk_data;
  logic [PKT_DESC_W-1:0]    tpkt_data;
  logic                     rel_nack_valid, rel_nack_ready;
  logic [ACK_DESC_W-1:0]    rel_nack_data;
  logic [31:0]              retx_timeout;
  logic [63:0]              node_mask;
  logic [ACK_DESC_W-1:0]    ack_data;
  logic                     rx_ack_valid, rx_ack_ready, lnack_valid, lnack_ready;
  logic [ACK_DESC_W-1:0]    rx_ack_data, lnack_data;
  logic                     rsp_valid, rsp_ready, trsp_valid, trsp_ready;
  logic [RSP_DESC_W-1:0]    rsp_data;
  logic                     rrsp_valid, rrsp_ready;   // read-response jobs, rx -> tx
  logic [RD_JOB_W-1:0]      rrsp_data;
  // registers
  logic                     ext_wr_en, ext_wr_err, ext_rd_err;
  logic [11:0]              ext_wr_addr, ext_rd_addr;
  logic [63:0]              ext_wr_data, ext_rd_data;
  logic [63:0]              nq_base;
  logic [31:0]              nq_size, nq_tail, nq_head;
  logic                     nq_reset;
  // statistics
  logic                     tx_data_pkt, tx_ctrl_pkt, rx_data_pkt, rx_ctrl_pkt;
  logic [12:0]              tx_bytes, rx_bytes;
  logic                     rx_crc_drop, rx_dup_drop, rx_stale_drop, rx_bad_drop, rx_notif;
  logic                     rx_prot_drop, rx_read_req, rx_read_drop;
  logic                     eng_ready, prot_ready;
  // memory protection
  logic                     prot_open, win_we, win_wr, win_rd, win_lwr, win_valid;
  logic [15:0]              win_index;
  logic [63:0]              win_base, win_len;
  logic [RKEY_TAG_W-1:0]    win_tag;
  logic [3:0]               win_pd;
  logic                     tx_mem_err, tx_slot_stall, tx_link_stall, rx_mem_err, rx_nack;
  logic                     tx_timeout, tx_unreach, tx_retx;
  logic [7:0]               retry_limit;
  logic [7:0]               epoch;
  logic [3:0]               backoff;
  logic                     rx_notif_off, rx_link_stall, rx_evt_stall, rx_redo, rx_redo_drop;
  /* verilator lint_off UNUSEDSIGNAL */  // RX_REDO + RX_REDO_DROP count every redo event
  logic                     rx_redo_evt;
  /* verilator lint_on UNUSEDSIGNAL */
  logic                     rx_miss, rx_miss_drop, tx_miss_retx;
  logic                     rx_reg, rx_early;
  logic [1:0]               rx_reg_drop;
  logic [15:0]              esc_timeout;
  logic [31:0]              reg_thresh;
  logic                     bench;
  // MISS packets received (miss_desc), to the reliability unit unless RETRY_LIMIT.resend
  // says to ignore them (2, 3); 1: go-back-N
  logic                     rx_miss_valid;
  logic [MISS_DESC_W-1:0]   rx_miss_data;
  // ... and the MISS answers this node's receive unit gives its own read blocks
  logic                     smiss_valid, miss_valid;
  miss_desc_t               smiss_data;
  logic [MISS_DESC_W-1:0]   miss_data;
  logic [1:0]               resend;
  // state
  logic                     tx_busy, rx_busy;
  nic_state_t               st;

  // PARAMS bits 63:32: what software needs of the NIC's parameters (params_reg)
  localparam logic [31:0] EXT_PARAMS =
      32'(($clog2(MAX_PAYLOAD) << (PARAMS_REG_MAX_PAYLOAD_LOG2_LSB - 32))
          | ($clog2(NUM_NODES) << (PARAMS_REG_NODES_LOG2_LSB - 32))
          | ($clog2(PROT_WINDOWS) << (PARAMS_REG_PROT_WINDOWS_LOG2_LSB - 32)));

  qrdma_qos_engine #(
    .HOST_DATA_W     (HOST_DATA_W),
    .HOST_ID_W       (HOST_ID_W),
    .BLOCK_SIZE      (BLOCK_SIZE),
    .MAX_OUTSTANDING (MAX_OUTSTANDING),
    .REG_MAX_BLOCKS  (REG_MASK_W - 1),
    .EXT_PARAMS      (EXT_PARAMS),
    .BENCH_STAMPS    (BENCH_STAMPS)
  ) u_engine (
    .clk, .rst, .ready(eng_ready), .cfg_reg_thresh(reg_thresh), .cfg_bench(bench),
    .s_axi_awid, .s_axi_awaddr, .s_axi_awlen, .s_axi_awsize, .s_axi_awburst,
    .s_axi_awvalid, .s_axi_awready,
    .s_axi_wdata, .s_axi_wstrb, .s_axi_wlast, .s_axi_wvalid, .s_axi_wready,
    .s_axi_bid, .s_axi_bresp, .s_axi_bvalid, .s_axi_bready,
    .s_axi_arid, .s_axi_araddr, .s_axi_arlen, .s_axi_arsize, .s_axi_arburst,
    .s_axi_arvalid, .s_axi_arready,
    .s_axi_rid, .s_axi_rdata, .s_axi_rresp, .s_axi_rlast, .s_axi_rvalid, .s_axi_rready,
    .m_blk_valid(blk_valid), .m_blk_ready(blk_ready), .m_blk_data(blk_data),
    .m_pkt_valid(pkt_valid), .m_pkt_ready(pkt_ready), .m_pkt_data(pkt_data),
    .s_ack_valid(ack_valid), .s_ack_ready(ack_ready), .s_ack_data(ack_data),
    .ext_wr_en, .ext_wr_addr, .ext_wr_data, .ext_wr_err,
    .ext_rd_addr, .ext_rd_data, .ext_rd_err,
    .xfers(st.xfers)
  );

  // the sender's reliability unit: destination check and response timers (a timer
  // counts from its descriptor's last packet picked by the send unit)
  logic                     tx_sent_valid;
  logic [NET_HDR_TID_W-1:0] tx_sent_tid;

  // the sender's reliability unit: destination check and response timers
  qrdma_tx_rel #(.MAX_PAYLOAD(MAX_PAYLOAD)) u_rel (
    .clk, .rst, .node_id,
    .cfg_timeout(retx_timeout), .cfg_node_mask(node_mask),
    .cfg_retry_limit(retry_limit), .cfg_backoff(backoff),
    .s_blk_valid(blk_valid), .s_blk_ready(blk_ready), .s_blk_data(blk_data),
    .s_pkt_valid(pkt_valid), .s_pkt_ready(pkt_ready), .s_pkt_data(pkt_data),
    .m_blk_valid(tblk_valid), .m_blk_ready(tblk_ready), .m_blk_data(tblk_data),
    .m_pkt_valid(tpkt_valid), .m_pkt_ready(tpkt_ready), .m_pkt_data(tpkt_data),
    .ack_valid(ack_valid && ack_ready), .ack_data,
    .cfg_gbn(resend == 2'd1), .cfg_probe(resend == 2'd0), .s_miss_valid(miss_valid && !resend[1]),
    .s_miss_data(miss_data), .s_sent_valid(tx_sent_valid), .s_sent_tid(tx_sent_tid),
    .m_nack_valid(rel_nack_valid), .m_nack_ready(rel_nack_ready), .m_nack_data(rel_nack_data),
    .stat_timeout(tx_timeout), .stat_unreach(tx_unreach), .stat_retx(tx_retx),
    .stat_miss_retx(tx_miss_retx)
  );

  // Benchmark mode (docs/fabric.md "Benchmark mode"): a stamped packet's header gets the
  // cycle it is first offered on the link (t_send) and to this NIC (t_recv), with no
  // register on the way (qrdma_stamp).
  logic [STAMP_W-1:0] now_q;
  logic [511:0]       tx_tdata, rx_tdata;
  always_ff @(posedge clk) now_q <= rst ? '0 : now_q + STAMP_W'(1);

  qrdma_stamp #(.KIND(0)) u_stamp_send (
    .clk, .rst, .now(now_q),
    .valid(m_axis_tx_tvalid), .ready(m_axis_tx_tready), .last(m_axis_tx_tlast),
    .s_data(tx_tdata), .m_data(m_axis_tx_tdata)
  );

  qrdma_stamp #(.KIND(1)) u_stamp_recv (
    .clk, .rst, .now(now_q),
    .valid(s_axis_rx_tvalid), .ready(s_axis_rx_tready), .last(s_axis_rx_tlast),
    .s_data(s_axis_rx_tdata), .m_data(rx_tdata)
  );

  qrdma_tx #(
    .NUM_NODES         (NUM_NODES),
    .MAX_PAYLOAD       (MAX_PAYLOAD),
    .SLOTS             (TX_SLOTS),
    .READ_WINDOW_BEATS (READ_WINDOW_BEATS),
    .AXI_ID_W          (MEM_ID_W)
  ) u_tx (
    .clk, .rst, .node_id, .epoch,
    .s_blk_valid(tblk_valid), .s_blk_ready(tblk_ready), .s_blk_data(tblk_data),
    .s_pkt_valid(tpkt_valid), .s_pkt_ready(tpkt_ready), .s_pkt_data(tpkt_data),
    .s_rrsp_valid(rrsp_valid), .s_rrsp_ready(rrsp_ready), .s_rrsp_data(rrsp_data),
    .s_rsp_valid(trsp_valid), .s_rsp_ready(trsp_ready), .s_rsp_data(rsp_data),
    .m_lnack_valid(lnack_valid), .m_lnack_ready(lnack_ready), .m_lnack_data(lnack_data),
    .m_sent_valid(tx_sent_valid), .m_sent_tid(tx_sent_tid),
    .tx_pause,
    .m_axi_arid, .m_axi_araddr, .m_axi_arlen, .m_axi_arsize, .m_axi_arburst,
    .m_axi_arvalid, .m_axi_arready,
    .m_axi_rid, .m_axi_rdata, .m_axi_rresp, .m_axi_rlast, .m_axi_rvalid, .m_axi_rready,
    .m_axis_tx_tdata(tx_tdata), .m_axis_tx_tkeep, .m_axis_tx_tlast, .m_axis_tx_tuser,
    .m_axis_tx_tvalid, .m_axis_tx_tready,
    .busy(tx_busy), .occ_slots(st.tx_slots), .occ_jobs(st.tx_jobs), .occ_pay(st.tx_pay),
    .occ_rsp(st.tx_rsp),
    .stat_data_pkt(tx_data_pkt), .stat_ctrl_pkt(tx_ctrl_pkt), .stat_bytes(tx_bytes),
    .stat_mem_err(tx_mem_err), .stat_slot_stall(tx_slot_stall), .stat_link_stall(tx_link_stall)
  );

  qrdma_rx #(
    .NUM_NODES    (NUM_NODES),
    .MAX_PAYLOAD  (MAX_PAYLOAD),
    .MAX_BLK_PKTS (MAX_BLK_PKTS),
    .BUF_BEATS    (RX_BUF_BEATS),
    .AXI_ID_W     (MEM_ID_W),
    .PROT_WINDOWS (PROT_WINDOWS),
    .REG_ENTRIES  (REG_ENTRIES),
    .REG_MASK_W   (REG_MASK_W),
    .BENCH_STAMPS (BENCH_STAMPS)
  ) u_rx (
    .clk, .rst, .node_id,
    .s_axis_rx_tdata(rx_tdata), .s_axis_rx_tkeep, .s_axis_rx_tlast, .s_axis_rx_tuser,
    .s_axis_rx_tvalid, .s_axis_rx_tready,
    .m_axi_awid, .m_axi_awaddr, .m_axi_awlen, .m_axi_awsize, .m_axi_awburst,
    .m_axi_awvalid, .m_axi_awready,
    .m_axi_wdata, .m_axi_wstrb, .m_axi_wlast, .m_axi_wvalid, .m_axi_wready,
    .m_axi_bid, .m_axi_bresp, .m_axi_bvalid, .m_axi_bready,
    .m_ack_valid(rx_ack_valid), .m_ack_ready(rx_ack_ready), .m_ack_data(rx_ack_data),
    .m_rsp_valid(rsp_valid), .m_rsp_ready(rsp_ready), .m_rsp_data(rsp_data),
    .m_miss_valid(rx_miss_valid), .m_miss_data(rx_miss_data),
    .m_rd_valid(rrsp_valid), .m_rd_ready(rrsp_ready), .m_rd_data(rrsp_data),
    .cfg_nq_base(nq_base), .cfg_nq_size(nq_size), .cfg_nq_tail(nq_tail),
    .cfg_nq_reset(nq_reset), .nq_head, .nq_wait,
    .cfg_prot_open(prot_open), .win_we, .win_index, .win_base, .win_len, .win_tag, .win_pd,
    .win_wr, .win_rd, .win_lwr, .win_valid, .prot_ready,
    .busy(rx_busy), .occ_buf(st.rx_buf), .occ_pkts(st.rx_pkts), .occ_evts(st.rx_evts),
    .occ_rsp(st.rx_rsp), .occ_ntf(st.rx_ntf), .occ_wr(st.rx_wr),
    .stat_data_pkt(rx_data_pkt), .stat_ctrl_pkt(rx_ctrl_pkt), .stat_bytes(rx_bytes),
    .stat_crc_drop(rx_crc_drop), .stat_dup_drop(rx_dup_drop),
    .stat_stale_drop(rx_stale_drop), .stat_bad_drop(rx_bad_drop),
    .stat_prot_drop(rx_prot_drop), .stat_read_req(rx_read_req),
    .stat_read_drop(rx_read_drop), .stat_notif(rx_notif),
    .stat_notif_off(rx_notif_off), .stat_nack(rx_nack), .stat_mem_err(rx_mem_err),
    .stat_link_stall(rx_link_stall), .stat_evt_stall(rx_evt_stall),
    .stat_redo_evt(rx_redo_evt), .stat_redo(rx_redo), .stat_redo_drop(rx_redo_drop),
    .stat_miss(rx_miss), .stat_miss_drop(rx_miss_drop),
    .cfg_esc_timeout(esc_timeout), .stat_reg(rx_reg), .stat_early(rx_early),
    .stat_reg_drop(rx_reg_drop)
  );

  // Responses the receive unit addresses to this node are those of read responses, i.e.
  // of this node's own read blocks (docs/nic.md "Remote reads"): they are delivered here,
  // an ACK or NACK to the engine's acknowledgement input (through a register slice), a
  // MISS to the reliability unit in a cycle without a MISS packet received. The others
  // go to the send unit.
  rsp_desc_t             rsp_d;
  logic                  rsp_self, sack_s_valid, sack_s_ready, sack_valid, sack_ready;
  ack_desc_t             sack_s_data;
  logic [ACK_DESC_W-1:0] sack_data;

  assign rsp_d        = rsp_desc_t'(rsp_data);
  assign rsp_self     = rsp_d.dst_node == node_id;
  assign trsp_valid   = rsp_valid && !rsp_self;
  assign sack_s_valid = rsp_valid && rsp_self && !rsp_d.miss;
  assign smiss_valid  = rsp_valid && rsp_self && rsp_d.miss && !rx_miss_valid;
  assign rsp_ready    = !rsp_self ? trsp_ready : (rsp_d.miss ? !rx_miss_valid : sack_s_ready);
  always_comb begin
    sack_s_data        = '0;
    sack_s_data.tid    = rsp_d.tid;
    sack_s_data.seq    = rsp_d.seq;
    sack_s_data.nack   = rsp_d.nack;
    sack_s_data.reason = rsp_d.reason;
    smiss_data           = '0;
    smiss_data.tid       = rsp_d.tid;
    smiss_data.seq       = rsp_d.seq;
    smiss_data.pkt_first = rsp_d.pkt_idx;
    smiss_data.pkt_num   = rsp_d.miss_cnt;
  end
  assign miss_valid = rx_miss_valid || smiss_valid;
  assign miss_data  = rx_miss_valid ? rx_miss_data : smiss_data;

  qrdma_reg_slice #(.WIDTH(ACK_DESC_W)) u_sack (
    .clk, .rst,
    .s_valid(sack_s_valid), .s_ready(sack_s_ready), .s_data(sack_s_data),
    .m_valid(sack_valid), .m_ready(sack_ready), .m_data(sack_data)
  );

  // acknowledgements to the engine: received ACK/NACKs, local NACKs, the reliability
  // unit's NACKs and the read blocks' responses, round robin
  logic [3:0] ack_gnt;
  /* verilator lint_off UNUSEDSIGNAL */  // the one-hot grant says it all
  logic       ack_any;
  logic [1:0] ack_idx;
  /* verilator lint_on UNUSEDSIGNAL */
  qrdma_arb_rr #(.N(4)) u_ack_arb (
    .clk, .rst,
    .req({sack_valid, rel_nack_valid, lnack_valid, rx_ack_valid}), .ack(ack_valid && ack_ready),
    .gnt(ack_gnt), .gnt_valid(ack_any), .gnt_idx(ack_idx)
  );
  assign ack_valid      = rx_ack_valid || lnack_valid || rel_nack_valid || sack_valid;
  assign ack_data       = ack_gnt[3] ? sack_data : ack_gnt[2] ? rel_nack_data
                        : ack_gnt[1] ? lnack_data : rx_ack_data;
  assign rx_ack_ready   = ack_ready && ack_gnt[0];
  assign lnack_ready    = ack_ready && ack_gnt[1];
  assign rel_nack_ready = ack_ready && ack_gnt[2];
  assign sack_ready     = ack_ready && ack_gnt[3];

  qrdma_nic_regs u_regs (
    .clk, .rst, .node_id,
    .ext_wr_en, .ext_wr_addr, .ext_wr_data, .ext_wr_err,
    .ext_rd_addr, .ext_rd_data, .ext_rd_err,
    .cfg_nq_base(nq_base), .cfg_nq_size(nq_size), .cfg_nq_tail(nq_tail),
    .cfg_nq_reset(nq_reset), .nq_head,
    .cfg_retx_timeout(retx_timeout), .cfg_node_mask(node_mask),
    .cfg_retry_limit(retry_limit), .cfg_backoff(backoff), .cfg_resend(resend),
    .cfg_epoch(epoch), .tx_retx,
    .cfg_prot_open(prot_open), .win_we, .win_index, .win_base, .win_len, .win_tag, .win_pd,
    .win_wr, .win_rd, .win_lwr, .win_valid, .rx_prot_drop, .rx_read_req, .rx_read_drop,
    .tx_miss_retx,
    .tx_timeout, .tx_unreach,
    .tx_data_pkt, .tx_ctrl_pkt, .tx_bytes,
    .rx_data_pkt, .rx_ctrl_pkt, .rx_bytes,
    .rx_crc_drop, .rx_dup_drop, .rx_stale_drop, .rx_bad_drop, .rx_notif,
    .tx_mem_err, .tx_slot_stall, .tx_link_stall, .rx_mem_err, .rx_nack, .rx_notif_off,
    .rx_nq_wait(nq_wait), .rx_link_stall, .rx_evt_stall, .rx_redo, .rx_redo_drop,
    .rx_miss, .rx_miss_drop, .rx_reg, .rx_early, .rx_reg_drop,
    .cfg_esc_timeout(esc_timeout), .cfg_reg_thresh(reg_thresh),
    .cfg_bench(bench), .bench_stamps(BENCH_STAMPS),
    .rx_rsp_occ(st.rx_rsp), .rx_ntf_occ(st.rx_ntf)
  );

  // ------------------------------------------------------------------ state
  assign ready      = eng_ready && prot_ready;
  assign st.rsvd176 = '0;
  always_ff @(posedge clk) begin
    busy  <= tx_busy || rx_busy || st.xfers != '0;
    state <= st;
    if (rst) busy <= 1'b0;
  end

endmodule

`default_nettype wire
