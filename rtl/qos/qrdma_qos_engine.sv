// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_qos_engine: the QoS engine of qrdma ([QoS-RDMA] ch. 2-3, Fig. 2.2; docs/qos.md):
// the host port (AXI4 slave: descriptors, status, registers), the transfer table
// (2048 channels x 32 bytes, kept as 1024 rows of 512 bits so that a 64-byte descriptor
// is read in one cycle; the even and the odd channels' halves in two RAMs) and the core
// (queues, segmenter, tables, message handler).
// Outputs: block descriptors and inline/control packets for the send unit, the number of
// transfers in the core (`xfers`); input: ACK/NACK records from the receive unit.
// Layouts: docs/formats.md.
`default_nettype none

module qrdma_qos_engine
  import qrdma_fmt_pkg::*;
  import qrdma_qos_pkg::*;
#(
  parameter int unsigned HOST_DATA_W     = 256,    // AXI4 slave data width: 128 or 256
  parameter int unsigned HOST_ID_W       = 4,      // AXI4 ID width
  parameter int unsigned BLOCK_SIZE      = 65536,  // bytes per block (8K..64K, power of 2)
  parameter int unsigned MAX_OUTSTANDING = 2,      // blocks of one transfer in flight
  parameter int unsigned CM_MIN_BYTES    = 16384,  // congestion-managed from this size
  parameter int unsigned MP_MIN_BYTES    = 262144, // 4xFID (multipath) from this size
  parameter int unsigned NUM_TIDS        = 512,    // TID-only pool
  parameter int unsigned REG_MAX_BLOCKS  = 255,    // largest transfer registered at its
                                                   // receiver (its REG_MASK_W - 1)
  parameter logic [31:0] EXT_PARAMS      = '0,     // PARAMS register bits 63:32 (NIC fields)
  parameter bit          BENCH_STAMPS    = 1'b0    // keep the descriptors' benchmark stamps
                                                   // (docs/fabric.md "Benchmark mode")
) (
  input  logic                       clk,
  input  logic                       rst,
  output logic                       ready,   // ID pools filled: transfers start from here
  // memory writes with notify of this many bytes or more are registered at their receiver
  // as if their descriptor asked for it (0: only those that ask; docs/registration.md)
  input  logic [31:0]                cfg_reg_thresh,
  // benchmark mode: the host port stamps the descriptors it starts (docs/fabric.md
  // "Benchmark mode"; with BENCH_STAMPS)
  input  logic                       cfg_bench,
  // AXI4 slave (host)
  input  logic [HOST_ID_W-1:0]       s_axi_awid,
  input  logic [ADDR_W-1:0]          s_axi_awaddr,
  input  logic [7:0]                 s_axi_awlen,
  input  logic [2:0]                 s_axi_awsize,
  input  logic [1:0]                 s_axi_awburst,
  input  logic                       s_axi_awvalid,
  output logic                       s_axi_awready,
  input  logic [HOST_DATA_W-1:0]     s_axi_wdata,
  input  logic [HOST_DATA_W/8-1:0]   s_axi_wstrb,
  input  logic                       s_axi_wlast,
  input  logic                       s_axi_wvalid,
  output logic                       s_axi_wready,
  output logic [HOST_ID_W-1:0]       s_axi_bid,
  output logic [1:0]                 s_axi_bresp,
  output logic                       s_axi_bvalid,
  input  logic                       s_axi_bready,
  input  logic [HOST_ID_W-1:0]       s_axi_arid,
  input  logic [ADDR_W-1:0]          s_axi_araddr,
  input  logic [7:0]                 s_axi_arlen,
  input  logic [2:0]                 s_axi_arsize,
  input  logic [1:0]                 s_axi_arburst,
  input  logic                       s_axi_arvalid,
  output logic                       s_axi_arready,
  output logic [HOST_ID_W-1:0]       s_axi_rid,
  output logic [HOST_DATA_W-1:0]     s_axi_rdata,
  output logic [1:0]                 s_axi_rresp,
  output logic                       s_axi_rlast,
  output logic                       s_axi_rvalid,
  input  logic                       s_axi_rready,
  // block descriptors to the send unit
  output logic                       m_blk_valid,
  input  logic                       m_blk_ready,
  output logic [BLOCK_DESC_W-1:0]    m_blk_data,
  // inline / control packets to the send unit
  output logic                       m_pkt_valid,
  input  logic                       m_pkt_ready,
  output logic [PKT_DESC_W-1:0]      m_pkt_data,
  // ACK / NACK from the receive unit
  input  logic                       s_ack_valid,
  output logic                       s_ack_ready,
  input  logic [ACK_DESC_W-1:0]      s_ack_data,
  // external register port of the host port (NIC registers, docs/nic.md "Registers"):
  // offsets from REG_BASE in NIC_REG_FIRST .. 4095, see qrdma_host_if
  output logic                       ext_wr_en,
  output logic [11:0]                ext_wr_addr,
  output logic [63:0]                ext_wr_data,
  input  logic                       ext_wr_err,
  output logic [11:0]                ext_rd_addr,
  input  logic [63:0]                ext_rd_data,
  input  logic                       ext_rd_err,
  // transfers handed to the core and not yet completed (saturates at 0xFFFF; registered:
  // counts the handovers and completions of cycle t from t+1)
  output logic [15:0]                xfers
);

  logic            tt_wr_en;
  logic [9:0]      tt_wr_row;
  /* verilator lint_off UNUSEDSIGNAL */  // bit 0 of each byte-enable octet is used (whole words)
  logic [63:0]     tt_wr_be;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [511:0]    tt_wr_data;
  logic [9:0]      tt_rd_row;
  logic [511:0]    tt_rd_data;
  logic            st_wr_en, st_wr_half;
  logic [STAMP_W:0] st_wr_data;

  logic            new_valid, new_ready, new_inline, new_multipath;
  logic [XW-1:0]   new_xfer;
  logic [SZW-1:0]  new_size;
  logic [DLW-1:0]  new_dst_lo;
  logic [3:0]      new_prio;
  logic            st_valid, st_err;
  logic [XW-1:0]   st_ch;
  logic [3:0]      st_reason;
  qos_ev_t         ev;       // the core's event pulses
  qrdma_host_pkg::eng_ev_t host_ev;   // ... as the host port's counters take them

  qrdma_host_if #(
    .DATA_W          (HOST_DATA_W),
    .ID_W            (HOST_ID_W),
    .BLOCK_SIZE      (BLOCK_SIZE),
    .MAX_OUTSTANDING (MAX_OUTSTANDING),
    .EXT_SPAN        (4096),
    .EXT_PARAMS      (EXT_PARAMS)
  ) u_host (
    .clk, .rst, .cfg_bench,
    .s_axi_awid, .s_axi_awaddr, .s_axi_awlen, .s_axi_awsize, .s_axi_awburst,
    .s_axi_awvalid, .s_axi_awready,
    .s_axi_wdata, .s_axi_wstrb, .s_axi_wlast, .s_axi_wvalid, .s_axi_wready,
    .s_axi_bid, .s_axi_bresp, .s_axi_bvalid, .s_axi_bready,
    .s_axi_arid, .s_axi_araddr, .s_axi_arlen, .s_axi_arsize, .s_axi_arburst,
    .s_axi_arvalid, .s_axi_arready,
    .s_axi_rid, .s_axi_rdata, .s_axi_rresp, .s_axi_rlast, .s_axi_rvalid, .s_axi_rready,
    .ext_wr_en, .ext_wr_addr, .ext_wr_data, .ext_wr_err, .ext_rd_addr, .ext_rd_data, .ext_rd_err,
    .tt_wr_en, .tt_wr_row, .tt_wr_be, .tt_wr_data, .st_wr_en, .st_wr_half, .st_wr_data,
    .new_valid, .new_ready, .new_xfer, .new_size, .new_dst_lo, .new_inline, .new_multipath, .new_prio,
    .st_valid, .st_ch, .st_err, .st_reason,
    .ev(host_ev)
  );

  // Transfer table ([QoS-RDMA] §3.1): written by the host port, read by the segmenter
  // (row in D, data in M from the block RAMs' output registers). The host port writes
  // whole aligned 8-byte words (an accepted beat is 8 << AWSIZE bytes, aligned, with
  // exactly those strobes: docs/qos.md "Refusal reasons" R1, R3, R4), so the table has
  // one enable per 8-byte word. It is two RAMs, the lines of the even and of the odd
  // channels, so that a read never meets a write of the same RAM word whose data it uses:
  // the segmenter reads a row only for a transfer in the core (its channel BUSY), and
  // uses the other half of the row only for a 64-byte descriptor (channel c even, line 1
  // in c+1), while the host port writes neither a BUSY channel nor c+1 while c is BUSY
  // with a 64-byte descriptor. A read that meets a write of the other half of its row
  // returns data the segmenter does not use (RDW_ANY; the short inline payload masks the
  // other half off).
  // The host port's write is registered here, beside the table's block RAMs (they span
  // the device's EBR rows; the host port's W2 registers stay with the host port): the
  // table is written a cycle after W2, still a cycle before the segmenter can read the
  // row of a new transfer (its cut-through reads in the cycle after new_valid, W2 + 2).
  logic [7:0]   tt_wr_we, tt_we_q;
  logic [9:0]   tt_row_q;
  logic [511:0] tt_data_q;
  for (genvar i = 0; i < 8; i++) begin : gen_tt_we
    assign tt_wr_we[i] = tt_wr_be[8 * i];
  end

  always_ff @(posedge clk) begin
    tt_we_q   <= (tt_wr_en && !rst) ? tt_wr_we : 8'h00;
    tt_row_q  <= tt_wr_row;
    tt_data_q <= tt_wr_data;
  end

  for (genvar h = 0; h < 2; h++) begin : gen_tt
    qrdma_sdp_ram #(.WIDTH(256), .DEPTH(1024), .BE_W(4), .OUT_REG(1'b1), .RDW_ANY(1'b1))
    u_transfer_table (
      .clk,
      .wr_en(|tt_we_q[4 * h +: 4]), .wr_be(tt_we_q[4 * h +: 4]),
      .wr_addr(tt_row_q), .wr_data(tt_data_q[256 * h +: 256]),
      .rd_en(1'b1), .rd_addr(tt_rd_row), .rd_oe(1'b1),
      .rd_data(tt_rd_data[256 * h +: 256])
    );
  end

  // Benchmark mode: the stamps of the descriptors started ({stamped, t_post}, written by
  // the host port as a descriptor starts), in tables of their own beside the halves,
  // written and read as they are (the table's word enables could not write them into
  // line 0 alone); the segmenter takes its channel's in place of line 0's t_post and
  // stamped (zero without BENCH_STAMPS).
  /* verilator lint_off UNUSEDSIGNAL */  // read by the tables (BENCH_STAMPS) only
  logic [1:0] st_we_q;
  logic [STAMP_W:0] st_data_q;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [1:0][STAMP_W:0] tt_rd_stamp;
  always_ff @(posedge clk) begin
    st_we_q   <= (st_wr_en && !rst) ? 2'b01 << st_wr_half : 2'b00;
    st_data_q <= st_wr_data;
  end
  for (genvar h = 0; h < 2; h++) begin : gen_st
    if (BENCH_STAMPS) begin : gen_ram
      qrdma_sdp_ram #(.WIDTH(STAMP_W + 1), .DEPTH(1024), .OUT_REG(1'b1), .RDW_ANY(1'b1)) u_stamps (
        .clk,
        .wr_en(st_we_q[h]), .wr_be(1'b1), .wr_addr(tt_row_q), .wr_data(st_data_q),
        .rd_en(1'b1), .rd_addr(tt_rd_row), .rd_oe(1'b1), .rd_data(tt_rd_stamp[h])
      );
    end else begin : gen_none
      assign tt_rd_stamp[h] = '0;
    end
  end

  qrdma_qos_core #(
    .BLOCK_SIZE      (BLOCK_SIZE),
    .MAX_OUTSTANDING (MAX_OUTSTANDING),
    .CM_MIN_BYTES    (CM_MIN_BYTES),
    .MP_MIN_BYTES    (MP_MIN_BYTES),
    .NUM_TIDS        (NUM_TIDS),
    .REG_MAX_BLOCKS  (REG_MAX_BLOCKS)
  ) u_core (
    .clk, .rst, .ready(ready), .cfg_reg_thresh,
    .new_valid, .new_ready, .new_xfer, .new_size, .new_dst_lo, .new_inline, .new_multipath, .new_prio,
    .tt_rd_row, .tt_rd_data, .tt_rd_stamp,
    .m_blk_valid, .m_blk_ready, .m_blk_data,
    .m_pkt_valid, .m_pkt_ready, .m_pkt_data,
    .s_ack_valid, .s_ack_ready, .s_ack_data,
    .st_valid, .st_ch, .st_err, .st_reason,
    .ev
  );

  assign host_ev = '{done: ev.done, stale: ev.stale, nack: ev.nack, ack: ev.ack,
                     control: ev.control, inl: ev.inl, block: ev.block};

  // Transfers in the core: +1 per handover (new_valid && new_ready), -1 per completion
  // (st_valid, always of a transfer handed over in an earlier cycle).
  logic [15:0] xfers_q;
  logic        x_inc;

  assign x_inc = new_valid && new_ready;

  always_ff @(posedge clk) begin
    if (x_inc != st_valid) begin
      if (x_inc)                 xfers_q <= xfers_q + 16'(xfers_q != '1);
      else if (xfers_q != '1)    xfers_q <= xfers_q - 16'd1;
    end
    if (rst) xfers_q <= '0;
  end

  assign xfers = xfers_q;

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (st_valid)
      if (!rst) assert (xfers_q != '0 || x_inc)
        else $error("qrdma_qos_engine: completion with no transfer in the core");
  end
`endif

endmodule

`default_nettype wire
