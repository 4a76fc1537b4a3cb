// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_rx: the receive unit of the qrdma NIC (docs/nic.md "Receive unit"; [RSN] §3.2-3.3:
// block tracking by bitmask, duplicate and stale drop, completion notification into a
// ring with an "empty" marker; a duplicate of a complete block is answered again unless
// its ACK is held for its notification; an asking DATA packet whose block still lacks
// packets is answered with MISS, docs/reliability.md "Receiver: MISS answers"; a DATA,
// INLINE or READ_REQ packet outside the windows registered for it is refused and answered
// with a NACK, docs/protection.md; a READ_REQ taken becomes a read-response job for the
// send unit, docs/nic.md "Remote reads"). Six parts, in packet order: the receive buffer with the CRC
// check (qrdma_rx_buf) and the window check (qrdma_rx_prot) beside it, the header
// processor with the block tracker (qrdma_rx_hdr),
// the AXI4 write engine (qrdma_rx_wr), the completion unit (qrdma_rx_cpl) and the
// notification writer (qrdma_rx_notif); block diagram: docs/modules.md#qrdma_rx.
//
// Contract: the unit takes packets from the link whatever the send unit, the link back or
// the notification ring do: it waits only for its own memory writes (docs/nic.md
// "Deadlock freedom"). NENT = NUM_NODES * 1024 tracking entries, one per
// (src_node mod NUM_NODES, tid). After rst the tracking table is cleared in NENT cycles;
// packets arriving meanwhile wait in the buffer (s_axis_rx_tready falls when it is full).
// stat_* are one-cycle pulses (stat_bytes carries the payload bytes of the accepted
// DATA/INLINE packet of that cycle, else 0). A MISS packet received (good CRC, this
// node's) comes out on m_miss as a one-cycle pulse without backpressure (miss_desc: tid,
// seq, pkt_first = its pkt_idx, pkt_num = its miss_cnt), five cycles after the header
// processor takes it; it is not an acknowledgement (nothing on m_ack). A READ_REQ taken
// comes out on m_rd (rd_job, a queue of RD_DEPTH; a READ_REQ that finds it full is
// dropped, counted and answered with a MISS naming its run, so that its requester asks
// again). A read response (DATA with resp set) is tracked as this node's
// own block, and its responses on m_rsp are addressed to this node (node_id): the NIC
// delivers them locally.
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
  parameter int unsigned AXI_ID_W     = 4,    // AXI ID width (ID 0 is used)
  parameter int unsigned PROT_WINDOWS = 64,   // window table entries (power of 2)
  parameter int unsigned REG_ENTRIES  = 256,  // registration table entries (power of 2)
  parameter int unsigned REG_MASK_W   = 256,  // registration mask bits: transfers of up to REG_MASK_W - 1 blocks
  parameter bit          BENCH_STAMPS = 1'b0  // keep the benchmark stamps for the notifications (docs/fabric.md "Benchmark mode")
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
  // responses (ACK / NACK packets to send) to the send unit
  output logic                 m_rsp_valid,
  input  logic                 m_rsp_ready,
  output logic [RSP_DESC_W-1:0] m_rsp_data,
  // MISS packets received (MISS_DESC), to the sender's reliability unit: a pulse each
  output logic                 m_miss_valid,
  output logic [MISS_DESC_W-1:0] m_miss_data,
  // read-response jobs (RD_JOB), to the send unit
  output logic                 m_rd_valid,
  input  logic                 m_rd_ready,
  output logic [RD_JOB_W-1:0]  m_rd_data,
  // notification ring (NIC registers)
  input  logic [63:0]          cfg_nq_base,         // 64-byte aligned
  input  logic [31:0]          cfg_nq_size,         // entries, power of 2; 0: off
  input  logic [31:0]          cfg_nq_tail,         // entries taken by software
  input  logic                 cfg_nq_reset,        // pulse: nq_head <- 0
  input  logic [15:0]          cfg_esc_timeout,     // registration: cycles a block waits for its registration (0: for ever)
  output logic [31:0]          nq_head,             // entries written (B back)
  output logic                 nq_wait,             // a notification waits for a ring slot
  // memory protection (NIC registers PROT_CTRL, WIN_*; docs/protection.md)
  input  logic                 cfg_prot_open,       // development mode: all memory open
  input  logic                 win_we,              // pulse: write window table entry win_index
  input  logic [15:0]          win_index,
  input  logic [63:0]          win_base,
  input  logic [63:0]          win_len,
  input  logic [RKEY_TAG_W-1:0] win_tag,
  input  logic [3:0]           win_pd,
  input  logic                 win_wr,
  input  logic                 win_rd,
  input  logic                 win_lwr,
  input  logic                 win_valid,
  output logic                 prot_ready,          // the window table is cleared (after rst)
  // work outstanding and occupancy (state snapshot)
  output logic                 busy,
  output logic [15:0]          occ_buf,             // buffer beats in use
  output logic [15:0]          occ_pkts,            // packets in the buffer not yet decided
  output logic [15:0]          occ_evts,            // completion events waiting for B
  output logic [15:0]          occ_rsp,             // responses queued
  output logic [15:0]          occ_ntf,             // notifications waiting for a ring slot
  output logic [15:0]          occ_wr,              // write bursts in flight
  // statistics (one-cycle pulses)
  output logic                 stat_data_pkt,       // DATA accepted (written)
  output logic                 stat_ctrl_pkt,       // INLINE / CONTROL / ACK / NACK accepted
  output logic [12:0]          stat_bytes,          // payload bytes of the packet accepted
  output logic                 stat_crc_drop,
  output logic                 stat_dup_drop,
  output logic                 stat_stale_drop,
  output logic                 stat_bad_drop,
  output logic                 stat_prot_drop,      // DATA / INLINE / READ_REQ refused by the window check
  output logic                 stat_read_req,       // READ_REQ taken (its job queued)
  output logic                 stat_read_drop,      // READ_REQ dropped: job queue full
  output logic                 stat_notif,          // notification written
  output logic                 stat_notif_off,      // notification dropped: ring off
  output logic                 stat_nack,           // NACK queued (a block refused)
  output logic                 stat_mem_err,        // write burst answered SLVERR/DECERR
  output logic                 stat_link_stall,     // a beat offered and not taken
  output logic                 stat_evt_stall,      // header pipeline waits for an output FIFO
  output logic                 stat_redo_evt,       // duplicate of a complete block: redo event
  output logic                 stat_redo,           // redo response queued (ACK/NACK again)
  output logic                 stat_redo_drop,      // redo dropped: ACK held, or no room
  output logic                 stat_miss,           // MISS answer queued
  output logic                 stat_miss_drop,      // MISS answer dropped: no room
  output logic                 stat_reg,            // a transfer registered (REGISTER packet)
  output logic                 stat_early,          // a receiver-side notification (registered transfer)
  output logic [1:0]           stat_reg_drop        // registrations and block reports not taken
);

  localparam int unsigned HDR_DEPTH = 64;  // packets waiting in the buffer (headers)
  localparam int unsigned EVT_DEPTH = 64;  // completion events waiting for their B
  localparam int unsigned RD_DEPTH  = 64;  // read-response jobs waiting for the send unit
  localparam int unsigned KQ_DEPTH  = 32;  // write bursts in flight
  localparam int unsigned NENT      = NUM_NODES * 1024;

  net_hdr_t        hdr;
  logic            hdr_valid, hdr_ready, hdr_long, hdr_crc_ok, hdr_prot_ok;
  logic            new_valid, chk_valid, chk_ok;
  net_hdr_t        new_hdr;
  logic [NBW-1:0]  hdr_nbeats;
  logic            rd_en, skip_en;
  logic [NBW-1:0]  skip_beats;
  logic [511:0]    rd_data;
  logic            cmd_valid, cmd_ready, evt_valid, evt_ready, wcmd_valid, wcmd_ready;
  rx_cmd_t         cmd, wcmd;
  rx_evt_t         evt;
  logic            ctl_we;
  logic [KEYW-1:0] ctl_key;
  rx_stamp_t       ctl_stamp;
  rx_ctrl_t        ctl;
  logic            done_cmd, done_first, done_err, done_ntf;
  logic [KEYW-1:0] done_key;
  logic            ntf_valid, ntf_ready, wr_valid, wr_ready, hack_valid, hack_ready;
  logic            nreq_valid, nreq_ready, nwr_valid, nwr_ready;
  rx_ntf_t         ntf, ereq;
  rx_nrq_t         ereq_out, nreq;
  logic            eout_valid, eout_ready;
  logic            ereq_valid, ereq_ready, early_busy;
  logic            reg_valid, blk_valid, blk_free;
  rx_reg_t         regr;
  logic [15:0]     blk_src;
  logic [10:0]     blk_xfer;
  logic [19:0]     blk_xblk;
  logic [15:0]     blk_xseq;
  rsp_desc_t       hack, rsp, mrsp;
  logic            mrsp_valid;
  miss_desc_t      miss;
  logic [BAW-1:0]  wr_baddr, nwr_baddr;
  logic [511:0]    wr_data, nwr_data;
  logic            notif_off_cpl, notif_off_ntf;
  logic [idx_w(BUF_BEATS):0]    o_beats;
  logic [cnt_w(HDR_DEPTH + 1)-1:0] o_pkts;
  logic [cnt_w(EVT_DEPTH)-1:0]  o_evts;
  logic [cnt_w(NENT)-1:0]       o_rsp, o_ntf;
  logic [cnt_w(KQ_DEPTH)-1:0]   o_wr;

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
    .m_hdr_chk_ok(hdr_prot_ok),
    .m_new_valid(new_valid), .m_new_hdr(new_hdr), .s_chk_valid(chk_valid), .s_chk_ok(chk_ok),
    .rd_en, .rd_data, .skip_en, .skip_beats,
    .occ_beats(o_beats), .occ_pkts(o_pkts)
  );

  qrdma_rx_prot #(.WINDOWS(PROT_WINDOWS)) u_prot (
    .clk, .rst, .cfg_open(cfg_prot_open),
    .win_we, .win_index, .win_base, .win_len, .win_tag, .win_pd, .win_wr, .win_rd, .win_lwr,
    .win_valid,
    .s_valid(new_valid), .s_hdr(new_hdr), .m_valid(chk_valid), .m_ok(chk_ok),
    .ready(prot_ready)
  );

  qrdma_rx_hdr #(
    .NUM_NODES    (NUM_NODES),
    .MAX_PAYLOAD  (MAX_PAYLOAD),
    .MAX_BLK_PKTS (MAX_BLK_PKTS),
    .EVT_DEPTH    (EVT_DEPTH),
    .RD_DEPTH     (RD_DEPTH)
  ) u_hdr (
    .clk, .rst, .node_id,
    .s_hdr_valid(hdr_valid), .s_hdr_ready(hdr_ready), .s_hdr(hdr),
    .s_hdr_nbeats(hdr_nbeats), .s_hdr_long(hdr_long), .s_hdr_crc_ok(hdr_crc_ok),
    .s_hdr_prot_ok(hdr_prot_ok),
    .m_cmd_valid(cmd_valid), .m_cmd_ready(cmd_ready), .m_cmd(cmd),
    .m_evt_valid(evt_valid), .m_evt_ready(evt_ready), .m_evt(evt),
    .m_ack_valid, .m_ack_ready, .m_ack_data,
    .m_mrsp_valid(mrsp_valid), .m_mrsp(mrsp), .m_miss_valid, .m_miss(miss),
    .m_rd_valid, .m_rd_ready, .m_rd(m_rd_data),
    .m_ctl_we(ctl_we), .m_ctl_key(ctl_key), .m_ctl(ctl), .m_stamp(ctl_stamp),
    .m_reg_valid(reg_valid), .m_reg(regr),
    .occ_evts(o_evts), .stat_stall(stat_evt_stall),
    .stat_data_pkt, .stat_ctrl_pkt, .stat_bytes, .stat_crc_drop, .stat_dup_drop,
    .stat_stale_drop, .stat_bad_drop, .stat_prot_drop, .stat_redo(stat_redo_evt),
    .stat_read_req, .stat_read_drop
  );

  qrdma_rx_wr #(
    .AXI_ID_W (AXI_ID_W),
    .KQ_DEPTH (KQ_DEPTH)
  ) u_wr (
    .clk, .rst,
    .s_cmd_valid(wcmd_valid), .s_cmd_ready(wcmd_ready), .s_cmd(wcmd),
    .s_ntf_valid(nwr_valid), .s_ntf_ready(nwr_ready), .s_ntf_baddr(nwr_baddr),
    .s_ntf_data(nwr_data),
    .buf_rd_en(rd_en), .buf_rd_data(rd_data), .buf_skip_en(skip_en), .buf_skip_beats(skip_beats),
    .m_axi_awid, .m_axi_awaddr, .m_axi_awlen, .m_axi_awsize, .m_axi_awburst,
    .m_axi_awvalid, .m_axi_awready,
    .m_axi_wdata, .m_axi_wstrb, .m_axi_wlast, .m_axi_wvalid, .m_axi_wready,
    .m_axi_bid, .m_axi_bresp, .m_axi_bvalid, .m_axi_bready,
    .done_cmd, .done_key, .done_first, .done_err, .done_ntf,
    .occ_bursts(o_wr), .stat_mem_err
  );

  // The write commands through a two-word FIFO whose valid and ready are registers: the
  // write engine's take of a command (after its AW and W handshakes) moves only this
  // FIFO's read pointer and flags, and the header processor's command FIFO pops from
  // registers. A command reaches the write engine a cycle later.
  localparam int unsigned WCMD_DEPTH = 2;  // one command per cycle sustained
  /* verilator lint_off UNUSEDSIGNAL */  // count and almost_full: not used here
  logic [cnt_w(WCMD_DEPTH)-1:0] wcmd_count;
  logic                         wcmd_af;
  /* verilator lint_on UNUSEDSIGNAL */

  qrdma_sync_fifo #(.WIDTH($bits(rx_cmd_t)), .DEPTH(WCMD_DEPTH)) u_cmd_slice (
    .clk, .rst,
    .s_valid(cmd_valid), .s_ready(cmd_ready), .s_data(cmd),
    .m_valid(wcmd_valid), .m_ready(wcmd_ready), .m_data(wcmd),
    .count(wcmd_count), .almost_full(wcmd_af)
  );

  qrdma_rx_cpl #(.NENT(NENT)) u_cpl (
    .clk, .rst,
    .s_evt_valid(evt_valid), .s_evt_ready(evt_ready), .s_evt(evt),
    .done_cmd, .done_key, .done_first, .done_err,
    .cfg_nq_off(cfg_nq_size == '0),
    .s_hack_valid(hack_valid), .s_hack_ready(hack_ready), .s_hack(hack),
    .s_mrsp_valid(mrsp_valid), .s_mrsp(mrsp),
    .m_blk_valid(blk_valid), .m_blk_free(blk_free), .m_blk_src(blk_src), .m_blk_xfer(blk_xfer), .m_blk_xblk(blk_xblk), .m_blk_xseq(blk_xseq),
    .m_rsp_valid, .m_rsp_ready, .m_rsp(rsp),
    .m_ntf_valid(ntf_valid), .m_ntf_ready(ntf_ready), .m_ntf(ntf),
    .occ_rsp(o_rsp), .occ_ntf(o_ntf), .stat_nack, .stat_notif_off(notif_off_cpl),
    .stat_redo, .stat_redo_drop, .stat_miss, .stat_miss_drop
  );

  // Register slices on the notification path: the handshakes of the completion unit's
  // FIFO, the notification writer and the write engine's command and AW decisions meet
  // only registers, each unit's take of the next one's word is its own cycle. The ring
  // writes reach the write engine as its commands do, through a two-word FIFO whose valid
  // and ready are registers: the engine's take (after its AW and W handshakes) moves
  // only the FIFO's read pointer and flags, not the load enables of a 512-bit register
  // (the same timing as a register slice: a word taken in cycle t is offered from t+1).
  qrdma_reg_slice #(.WIDTH($bits(rx_ntf_t))) u_ntf_slice (
    .clk, .rst,
    .s_valid(ntf_valid), .s_ready(ntf_ready), .s_data(ntf),
    .m_valid(ereq_valid), .m_ready(ereq_ready), .m_data(ereq)
  );

  qrdma_rx_early #(.ENTRIES(REG_ENTRIES), .MASK_W(REG_MASK_W)) u_early (
    .clk, .rst, .cfg_esc_timeout,
    .s_reg_valid(reg_valid), .s_reg(regr),
    .s_blk_valid(blk_valid), .s_blk_free(blk_free), .s_blk_src(blk_src), .s_blk_xfer(blk_xfer), .s_blk_xblk(blk_xblk), .s_blk_xseq(blk_xseq),
    .s_ntf_valid(ereq_valid), .s_ntf_ready(ereq_ready), .s_ntf(ereq),
    .m_ntf_valid(eout_valid), .m_ntf_ready(eout_ready), .m_ntf(ereq_out),
    .busy(early_busy), .stat_reg, .stat_early, .stat_drop(stat_reg_drop)
  );

  // the registration stage's request decision (its state, the table's offer) and the
  // notification writer's take meet only registers
  qrdma_reg_slice #(.WIDTH($bits(rx_nrq_t))) u_nrq_slice (
    .clk, .rst,
    .s_valid(eout_valid), .s_ready(eout_ready), .s_data(ereq_out),
    .m_valid(nreq_valid), .m_ready(nreq_ready), .m_data(nreq)
  );

  localparam int unsigned NWR_DEPTH = 2;  // one ring write per cycle sustained
  /* verilator lint_off UNUSEDSIGNAL */  // count and almost_full: not used here
  logic [cnt_w(NWR_DEPTH)-1:0] nwr_count;
  logic                        nwr_af;
  /* verilator lint_on UNUSEDSIGNAL */

  qrdma_sync_fifo #(.WIDTH(BAW + 512), .DEPTH(NWR_DEPTH)) u_wr_slice (
    .clk, .rst,
    .s_valid(wr_valid), .s_ready(wr_ready), .s_data({wr_baddr, wr_data}),
    .m_valid(nwr_valid), .m_ready(nwr_ready), .m_data({nwr_baddr, nwr_data}),
    .count(nwr_count), .almost_full(nwr_af)
  );

  qrdma_rx_notif #(.NENT(NENT), .BENCH_STAMPS(BENCH_STAMPS)) u_notif (
    .clk, .rst,
    .ctl_we, .ctl_key, .ctl, .ctl_stamp,
    .s_ntf_valid(nreq_valid), .s_ntf_ready(nreq_ready), .s_ntf(nreq),
    .m_wr_valid(wr_valid), .m_wr_ready(wr_ready), .m_wr_baddr(wr_baddr), .m_wr_data(wr_data),
    .done_ntf,
    .m_hack_valid(hack_valid), .m_hack_ready(hack_ready), .m_hack(hack),
    .cfg_nq_base, .cfg_nq_size, .cfg_nq_tail, .cfg_nq_reset, .nq_head, .nq_wait,
    .stat_notif, .stat_notif_off(notif_off_ntf)
  );

  assign m_rsp_data     = rsp;
  assign m_miss_data    = miss;
  assign stat_notif_off = notif_off_cpl || notif_off_ntf;

  // occupancy, saturated to 16 bits
  function automatic logic [15:0] sat16(input logic [31:0] v);
    return (v > 32'hFFFF) ? 16'hFFFF : v[15:0];
  endfunction

  always_ff @(posedge clk) begin
    occ_buf  <= sat16(32'(o_beats));
    occ_pkts <= sat16(32'(o_pkts));
    occ_evts <= sat16(32'(o_evts));
    occ_rsp  <= sat16(32'(o_rsp));
    occ_ntf  <= sat16(32'(o_ntf));
    occ_wr   <= sat16(32'(o_wr));
    busy     <= o_beats != '0 || o_pkts != '0 || o_evts != '0 || o_rsp != '0
                || o_ntf != '0 || o_wr != '0 || cmd_valid || wcmd_valid || hack_valid || wr_valid
                || ereq_valid || eout_valid || nreq_valid || early_busy || nwr_valid || m_rd_valid;
    stat_link_stall <= s_axis_rx_tvalid && !s_axis_rx_tready;
    if (rst) begin
      busy            <= 1'b0;
      stat_link_stall <= 1'b0;
    end
  end

endmodule

`default_nettype wire
