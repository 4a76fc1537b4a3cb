// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_host_if: the AXI4 slave of the QoS engine ([QoS-RDMA] §3.4, §3.6; behaviour:
// docs/qos.md "Descriptors and their acceptance", "Refusal reasons", "Host port: precise
// rules and timing", "Host port modules"; address map: docs/formats.md). The write path
// (qrdma_host_wr: AW/W/B, descriptors into the transfer table, new transfers) and the
// read path (qrdma_host_rd: AR/R, status, error-reason and register reads, event
// counters) around the state both use: the status of the 2048 channels, write and read
// (qrdma_status_regs) and the error reason of each channel's last ERROR (2048 x 4-bit
// LUT RAM, qrdma_mem_2w: the host port and the engine write it in the same cycle).
//
// Timing (W beat handshake in t): table write in t+2, new_valid and bvalid in t+3 at the
// earliest, status / error reason visible to a read performed in t+3, CNT_DESC_* in t+4;
// AR handshake in t -> rvalid in t+4 at the earliest. The engine's st_valid for a
// transfer must come after the cycle of its new_valid / new_ready handshake (checked in
// simulation); its status and error reason change at the end of the second cycle after
// st_valid. After rst, AWREADY and ARREADY stay low until the status rows and the error
// reasons are cleared (1026 cycles: the two reason-RAM ports clear one entry each per
// cycle).
`default_nettype none

module qrdma_host_if
  import qrdma_fmt_pkg::*;
  import qrdma_host_pkg::*;
#(
  parameter int unsigned DATA_W          = 256,   // AXI4 data width: 128 or 256
  parameter int unsigned ID_W            = 4,     // AXI4 ID width
  parameter int unsigned NEW_FIFO_DEPTH  = 8,     // new-transfer FIFO entries (>= 4)
  parameter int unsigned BLOCK_SIZE      = 65536, // engine block size (PARAMS register)
  parameter int unsigned MAX_OUTSTANDING = 2,     // engine blocks in flight (PARAMS register)
  parameter int unsigned EXT_SPAN        = 4096,  // external register window: REG_BASE + NIC_REG_FIRST .. + EXT_SPAN - 1
  parameter logic [31:0] EXT_PARAMS      = '0     // PARAMS register bits 63:32
) (
  input  logic                clk,            // clock
  input  logic                rst,            // synchronous reset, active high
  input  logic                cfg_bench,      // benchmark mode: stamp the descriptors started (BENCH.en)
  // AXI4 slave: write address
  input  logic [ID_W-1:0]     s_axi_awid,     // burst ID
  input  logic [ADDR_W-1:0]   s_axi_awaddr,   // address of the first beat
  input  logic [7:0]          s_axi_awlen,    // beats - 1
  input  logic [2:0]          s_axi_awsize,   // log2 bytes per beat
  input  logic [1:0]          s_axi_awburst,  // burst type (only INCR is accepted)
  input  logic                s_axi_awvalid,  // AW valid
  output logic                s_axi_awready,  // AW ready
  // write data
  input  logic [DATA_W-1:0]   s_axi_wdata,    // beat data
  input  logic [DATA_W/8-1:0] s_axi_wstrb,    // byte strobes
  input  logic                s_axi_wlast,    // not used: beats are counted from AWLEN
  input  logic                s_axi_wvalid,   // W valid
  output logic                s_axi_wready,   // W ready
  // write response
  output logic [ID_W-1:0]     s_axi_bid,      // burst ID
  output logic [1:0]          s_axi_bresp,    // OKAY or SLVERR
  output logic                s_axi_bvalid,   // B valid
  input  logic                s_axi_bready,   // B ready
  // read address
  input  logic [ID_W-1:0]     s_axi_arid,     // burst ID
  input  logic [ADDR_W-1:0]   s_axi_araddr,   // address of the first beat
  input  logic [7:0]          s_axi_arlen,    // beats - 1
  input  logic [2:0]          s_axi_arsize,   // log2 bytes per beat (only 3 is served)
  input  logic [1:0]          s_axi_arburst,  // burst type (only INCR is served)
  input  logic                s_axi_arvalid,  // AR valid
  output logic                s_axi_arready,  // AR ready
  // read data
  output logic [ID_W-1:0]     s_axi_rid,      // burst ID
  output logic [DATA_W-1:0]   s_axi_rdata,    // the 64-bit value on every 64-bit lane
  output logic [1:0]          s_axi_rresp,    // OKAY, or SLVERR (data 0)
  output logic                s_axi_rlast,    // last beat of the burst
  output logic                s_axi_rvalid,   // R valid
  input  logic                s_axi_rready,   // R ready
  // external register port (offsets from REG_BASE, in the window NIC_REG_FIRST .. EXT_SPAN-1)
  output logic                ext_wr_en,      // write request; no register-window read is served in its cycle
  output logic [$clog2(EXT_SPAN)-1:0] ext_wr_addr,  // write offset
  output logic [63:0]         ext_wr_data,    // write value
  input  logic                ext_wr_err,     // comb. answer to ext_wr_en: unmapped / read-only (nothing written)
  output logic [$clog2(EXT_SPAN)-1:0] ext_rd_addr,  // read offset
  input  logic [63:0]         ext_rd_data,    // comb. from ext_rd_addr
  input  logic                ext_rd_err,     // comb. from ext_rd_addr: unmapped
  // transfer-table write port: row = xfer >> 1 (channels 2k and 2k+1 in one 512-bit row)
  output logic                tt_wr_en,       // write enable
  output logic [9:0]          tt_wr_row,      // row
  output logic [63:0]         tt_wr_be,       // byte enables: whole aligned 8-byte words
  output logic [511:0]        tt_wr_data,     // the beat replicated over the row
  // benchmark stamp of a descriptor that starts, in row tt_wr_row (qrdma_host_wr)
  output logic                st_wr_en,
  output logic                st_wr_half,
  output logic [qrdma_fmt_pkg::STAMP_W:0] st_wr_data,
  // new transfers (descriptor complete, accepted and in the table)
  output logic                new_valid,      // a transfer to start
  input  logic                new_ready,      // the engine takes it
  output logic [XW-1:0]       new_xfer,       // page * 128 + c
  output logic [SZW-1:0]      new_size,       // 1 .. 2^32
  output logic [DLW-1:0]      new_dst_lo,     // dst_addr's low bits (its offset in a block)
  output logic                new_inline,     // inline payload
  output logic                new_multipath,  // multipath requested
  output logic [3:0]          new_prio,       // priority
  // engine: transfer complete (BUSY -> DONE / ERROR)
  input  logic                st_valid,       // channel st_ch completes
  input  logic [XW-1:0]       st_ch,          // page * 128 + c
  input  logic                st_err,         // 1: ERROR, 0: DONE
  input  logic [3:0]          st_reason,      // ERR_* of an ERROR completion (st_err)
  // engine events, one pulse each (eng_ev_t; as bits: 0 block issued, 1 inline packet,
  // 2 control packet, 3 ACK accepted, 4 NACK, 5 stale ACK dropped, 6 transfer done)
  input  eng_ev_t             ev
);

  // ------------------------------------------------------------------ engine completion
  // The engine's completion is registered twice: the status registers and the error
  // reasons apply it at the end of the second cycle after st_valid (the reason memory
  // reads ahead at st_ch from the cycle of st_valid).
  logic       st_valid_q, st_err_q, st_valid_qq, st_err_qq;
  logic [XW-1:0] st_ch_q, st_ch_qq;
  logic [3:0] st_reason_q, st_reason_qq;

  always_ff @(posedge clk) begin
    st_ch_q      <= st_ch;
    st_err_q     <= st_err;
    st_reason_q  <= st_reason;
    st_ch_qq     <= st_ch_q;
    st_err_qq    <= st_err_q;
    st_reason_qq <= st_reason_q;
    if (rst) begin
      st_valid_q  <= 1'b0;
      st_valid_qq <= 1'b0;
    end else begin
      st_valid_q  <= st_valid;
      st_valid_qq <= st_valid_q;
    end
  end

  // ------------------------------------------------------------------ status registers
  logic                       st_ready;
  logic [PW+GW-1:0]           sr_chk_row;
  logic [STATUS_SINGLE_W-1:0] sr_chk_st;
  logic                       hs_valid, hs_err;    // status update of the write path (W2)
  logic [PW+CW-1:0]           hs_ch, hs_ch_ahead;
  logic                       sr_rd_valid, sr_rd_single;
  logic [PW+GW-1:0]           sr_rd_row;
  logic [SW-1:0]              sr_rd_sel;
  logic [STATUS_SINGLE_W-1:0] sr_rd_data;

  qrdma_status_regs u_status (
    .clk, .rst,
    .ready     (st_ready),
    .chk_row   (sr_chk_row),
    .chk_st    (sr_chk_st),
    .host_set  (hs_valid),
    .host_ch   (hs_ch),
    .host_err  (hs_err),
    .eng_valid (st_valid_qq),
    .eng_ch    (st_ch_qq),
    .eng_err   (st_err_qq),
    .rd_valid  (sr_rd_valid),
    .rd_row    (sr_rd_row),
    .rd_single (sr_rd_single),
    .rd_sel    (sr_rd_sel),
    .rd_data   (sr_rd_data)
  );

  // ------------------------------------------------------------------ error reasons
  // ERR_* of each channel's last ERROR (index page * 128 + c), written in the cycle
  // its status becomes ERROR: port A by the write path (a descriptor refused at
  // completion, W2), port B by the engine (st_err, two cycles after st_valid). Both ports
  // give their address two cycles ahead (the write path in W0, the engine with st_valid)
  // and the read port is registered (the read path's err_rd_en), so every read of the
  // 2048-deep LUT RAM is pipelined (qrdma_mem_2w A_LEAD, B_LEAD, RD_REG). The two never
  // write one channel in one cycle: the host port refuses descriptors only in channels
  // that are not BUSY, the engine completes only BUSY ones. After rst both ports clear
  // the RAM (ports A and B an entry each per cycle: ERR_N / 2 cycles, each write two
  // cycles after its address), while AWREADY/ARREADY are low.
  localparam int unsigned ERR_N      = NUM_CHANNELS;
  localparam int unsigned EAW        = $clog2(ERR_N);
  localparam logic [3:0]  R_BAD_DESC = 4'(ERR_BAD_DESC);

  logic           ei_q;                  // clearing: addresses
  logic [1:0]     ei_w_q;                // ... their writes, two cycles later
  logic [EAW-2:0] ei_cnt_q;              // entry cleared by port A (port B: + ERR_N / 2)
  logic           store_ready;
  logic           err_rd_en;
  logic [EAW-1:0] err_rd_addr;
  logic [3:0]     err_rd_data;

  always_ff @(posedge clk) begin
    ei_w_q <= {ei_w_q[0], ei_q};
    if (ei_q) begin
      ei_cnt_q <= ei_cnt_q + (EAW-1)'(1);
      if (ei_cnt_q == '1) ei_q <= 1'b0;
    end
    if (rst) begin
      ei_q     <= 1'b1;
      ei_w_q   <= '0;
      ei_cnt_q <= '0;
    end
  end

  assign store_ready = st_ready && !ei_q && (ei_w_q == '0);

  qrdma_mem_2w #(.WIDTH(4), .DEPTH(ERR_N), .A_LEAD(1'b1), .B_LEAD(1'b1), .RD_REG(1'b1))
  u_err_reason (
    .clk,
    .a_en    (ei_w_q[1] || (hs_valid && hs_err)),
    .a_addr  (ei_q ? {1'b0, ei_cnt_q} : hs_ch_ahead),
    .a_data  (ei_w_q[1] ? 4'(ERR_NONE) : R_BAD_DESC),
    .b_en    (ei_w_q[1] || (st_valid_qq && st_err_qq)),
    .b_addr  (ei_q ? {1'b1, ei_cnt_q} : st_ch),
    .b_data  (ei_w_q[1] ? 4'(ERR_NONE) : st_reason_qq),
    .rd_en   (err_rd_en),
    .rd_addr (err_rd_addr),
    .rd_data (err_rd_data)
  );

  // ------------------------------------------------------------------ write path
  typedef struct packed {
    logic [SZW-1:0] size;
    logic [DLW-1:0] dlo;
    logic           inl;
    logic           mp;
    logic [3:0]     prio;
  } new_rec_t;             // a started transfer's record, as the cluster stage keeps it

  logic desc_ok, desc_err;
  logic w_valid, w_ready, w_hold, w_start;
  logic [XW-1:0] w_xfer;
  new_rec_t w_rec, n_rec;

  qrdma_host_wr #(
    .DATA_W         (DATA_W),
    .ID_W           (ID_W),
    .NEW_FIFO_DEPTH (NEW_FIFO_DEPTH),
    .EXT_SPAN       (EXT_SPAN)
  ) u_wr (
    .clk, .rst, .store_ready, .cfg_bench,
    .s_axi_awid, .s_axi_awaddr, .s_axi_awlen, .s_axi_awsize, .s_axi_awburst,
    .s_axi_awvalid, .s_axi_awready,
    .s_axi_wdata, .s_axi_wstrb, .s_axi_wlast, .s_axi_wvalid, .s_axi_wready,
    .s_axi_bid, .s_axi_bresp, .s_axi_bvalid, .s_axi_bready,
    .chk_row  (sr_chk_row),
    .chk_st   (sr_chk_st),
    .host_set (hs_valid),
    .host_ch  (hs_ch),
    .host_err (hs_err),
    .host_ch_ahead (hs_ch_ahead),
    .eng_valid (st_valid_qq),
    .eng_ch   (st_ch_qq),
    .ext_wr_en, .ext_wr_addr, .ext_wr_data, .ext_wr_err,
    .tt_wr_en, .tt_wr_row, .tt_wr_be, .tt_wr_data, .st_wr_en, .st_wr_half, .st_wr_data,
    .new_valid (w_valid),
    .new_ready (w_ready),
    .new_xfer  (w_xfer),
    .new_size  (w_rec.size),
    .new_dst_lo (w_rec.dlo),
    .new_inline (w_rec.inl),
    .new_multipath (w_rec.mp),
    .new_prio  (w_rec.prio),
    .new_hold  (w_hold),
    .new_start (w_start),
    .desc_ok, .desc_err
  );

  // ------------------------------------------------------------------ clustering
  qrdma_host_cluster #(.XW(XW), .CH_W(CW), .REC_W($bits(new_rec_t))) u_cluster (
    .clk, .rst,
    .s_valid (w_valid),
    .s_ready (w_ready),
    .s_xfer  (w_xfer),
    .s_hold  (w_hold),
    .s_start (w_start),
    .s_rec   (w_rec),
    .m_valid (new_valid),
    .m_ready (new_ready),
    .m_xfer  (new_xfer),
    .m_rec   (n_rec)
  );
  assign new_size      = n_rec.size;
  assign new_dst_lo    = n_rec.dlo;
  assign new_inline    = n_rec.inl;
  assign new_multipath = n_rec.mp;
  assign new_prio      = n_rec.prio;

  // ------------------------------------------------------------------ read path
  qrdma_host_rd #(
    .DATA_W          (DATA_W),
    .ID_W            (ID_W),
    .BLOCK_SIZE      (BLOCK_SIZE),
    .MAX_OUTSTANDING (MAX_OUTSTANDING),
    .EXT_SPAN        (EXT_SPAN),
    .EXT_PARAMS      (EXT_PARAMS)
  ) u_rd (
    .clk, .rst, .store_ready,
    .s_axi_arid, .s_axi_araddr, .s_axi_arlen, .s_axi_arsize, .s_axi_arburst,
    .s_axi_arvalid, .s_axi_arready,
    .s_axi_rid, .s_axi_rdata, .s_axi_rresp, .s_axi_rlast, .s_axi_rvalid, .s_axi_rready,
    .sr_rd_valid, .sr_rd_row, .sr_rd_single, .sr_rd_sel, .sr_rd_data,
    .err_rd_en, .err_rd_addr, .err_rd_data,
    .ext_rd_addr, .ext_rd_data, .ext_rd_err, .ext_wr_busy(ext_wr_en),
    .desc_ok, .desc_err,
    .eng_ev (ev)
  );

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    // nested under its valid, so that idle cycles cost one test (docs/sim.md)
    if (st_valid)
      if (!rst) assert (!(hs_valid && st_ch == hs_ch))
        else $error("qrdma_host_if: st_valid for channel %0d in the cycle it becomes BUSY", st_ch);
  end
`endif

endmodule

`default_nettype wire
