// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_host_rd: the read path of the host port (AXI4 AR/R; [QoS-RDMA] §3.4, §3.6): single
// and collective status reads (the storage resets what it returns), error-reason reads,
// the engine's registers (ID, PARAMS and the event counters, which live here) and the
// external register window. Rules and timing: docs/qos.md "Host port: precise rules and
// timing", "Host port modules"; address map: docs/formats.md; inside:
// docs/modules.md#qrdma_host_rd.
//
// Contract: AR -> AR FIFO -> one beat per cycle into the R output register when it is
// empty or being emptied (AR handshake in t -> rvalid in t+2 at the earliest). In the
// cycle a beat is loaded (one cycle before it shows on R) it drives sr_rd_* (status
// reads), err_rd_addr and ext_rd_addr, and takes sr_rd_data, err_rd_data and
// ext_rd_data / ext_rd_err combinationally: the storage answers with its state at the
// start of that cycle and applies the read reset at its end. An event pulse (desc_ok,
// desc_err, eng_ev) in cycle t is in the counters that a beat loaded in t+2 or later
// reads. ARREADY is low while store_ready is.
`default_nettype none

module qrdma_host_rd
  import qrdma_fmt_pkg::*;
  import qrdma_host_pkg::*;
#(
  parameter int unsigned DATA_W          = 256,   // AXI4 data width: 128 or 256
  parameter int unsigned ID_W            = 4,     // AXI4 ID width
  parameter int unsigned BLOCK_SIZE      = 65536, // engine block size (PARAMS register)
  parameter int unsigned MAX_OUTSTANDING = 2,     // engine blocks in flight (PARAMS register)
  parameter int unsigned CNT_W           = 48,    // bits of the event counters (read as 64)
  parameter int unsigned EXT_SPAN        = 4096,  // external register window: REG_BASE + NIC_REG_FIRST .. + EXT_SPAN - 1
  parameter logic [31:0] EXT_PARAMS      = '0,    // PARAMS register bits 63:32
  localparam int unsigned EXT_SH         = $clog2(EXT_SPAN)  // external window offset bits
) (
  input  logic                clk,            // clock
  input  logic                rst,            // synchronous reset, active high
  input  logic                store_ready,    // status and error-reason storage cleared after reset: AR taken only while high
  // AXI4 slave: read address
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
  // status read with reset (cycle of the load)
  output logic                sr_rd_valid,    // read row sr_rd_row and reset what it returns as DONE / ERROR
  output logic [PW+GW-1:0]    sr_rd_row,      // page * 2 + group
  output logic                sr_rd_single,   // 1: single status (reset only channel sr_rd_sel); 0: collective
  output logic [SW-1:0]       sr_rd_sel,      // channel within the row (single status)
  input  logic [STATUS_SINGLE_W-1:0] sr_rd_data,  // the row at the start of the cycle (2 bits per channel)
  // error reasons (cycle of the load)
  output logic [PW+CW-1:0]    err_rd_addr,    // channel: page * 64 + c
  input  logic [3:0]          err_rd_data,    // ERR_* of its last ERROR, comb. from err_rd_addr
  // external register read (cycle of the load), offsets from REG_BASE
  output logic [EXT_SH-1:0]   ext_rd_addr,    // register offset
  input  logic [63:0]         ext_rd_data,    // comb. from ext_rd_addr
  input  logic                ext_rd_err,     // comb. from ext_rd_addr: unmapped (the read gets SLVERR)
  // events to count, one pulse each
  input  logic                desc_ok,        // a descriptor started (CNT_DESC_OK)
  input  logic                desc_err,       // a beat refused or a bad descriptor (CNT_DESC_ERR)
  input  eng_ev_t             eng_ev          // engine events (CNT_BLOCKS .. CNT_DONE)
);

  localparam int unsigned AR_DEPTH = 2;   // AR FIFO

`ifndef SYNTHESIS
  initial begin
    if (DATA_W != 128 && DATA_W != 256)
      $fatal(1, "qrdma_host_rd: DATA_W must be 128 or 256");
    if (ID_W < 1) $fatal(1, "qrdma_host_rd: ID_W must be >= 1");
    if (CNT_W < 1 || CNT_W > 64) $fatal(1, "qrdma_host_rd: CNT_W must be in 1..64");
    if (BLOCK_SIZE < 1 || (BLOCK_SIZE & (BLOCK_SIZE - 1)) != 0)
      $fatal(1, "qrdma_host_rd: BLOCK_SIZE must be a power of 2");
    if (MAX_OUTSTANDING > 255) $fatal(1, "qrdma_host_rd: MAX_OUTSTANDING must fit 8 bits");
    if (!map_ok(EXT_SPAN))
      $fatal(1, "qrdma_host_rd: address regions must be aligned powers of 2");
  end
`endif

  // ------------------------------------------------------------------ AR FIFO
  typedef struct packed {
    logic [ID_W-1:0]   id;
    logic [ADDR_W-1:0] addr;
    logic [7:0]        len;
    logic [2:0]        size;
    logic [1:0]        burst;
  } ax_t;

  ax_t  ar_in, ar;
  logic ar_valid, ar_pop, ar_s_ready;

  assign ar_in = '{id: s_axi_arid, addr: s_axi_araddr, len: s_axi_arlen,
                   size: s_axi_arsize, burst: s_axi_arburst};

  /* verilator lint_off PINCONNECTEMPTY */  // count, almost_full: not used by the AR side
  qrdma_sync_fifo #(.WIDTH($bits(ax_t)), .DEPTH(AR_DEPTH)) u_ar_fifo (
    .clk, .rst,
    .s_valid (s_axi_arvalid && store_ready),
    .s_ready (ar_s_ready),
    .s_data  (ar_in),
    .m_valid (ar_valid),
    .m_ready (ar_pop),
    .m_data  (ar),
    .count   (),
    .almost_full ()
  );
  /* verilator lint_on PINCONNECTEMPTY */
  assign s_axi_arready = ar_s_ready && store_ready;

  // ------------------------------------------------------------------ beats
  logic              r_go, r_last;
  logic [7:0]        rbeat_q;
  logic [ADDR_W-1:0] raddr_q, r_cur;
  logic              r_fmt_ok, r_pages, r_single, r_coll;
  logic              rvalid_q, rlast_q;
  logic [1:0]        rresp_q;
  logic [ID_W-1:0]   rid_q;
  logic [63:0]       rval_q;

  assign r_go   = ar_valid && (!rvalid_q || s_axi_rready);
  assign r_cur  = (rbeat_q == '0) ? ar.addr : raddr_q;
  assign r_last = (rbeat_q == ar.len);
  assign ar_pop = r_go && r_last;

  always_ff @(posedge clk) begin
    if (r_go) rbeat_q <= r_last ? '0 : rbeat_q + 8'd1;
    if (rst)  rbeat_q <= '0;
  end
  always_ff @(posedge clk) begin
    if (r_go) raddr_q <= (r_cur & ~ADDR_W'(7)) + ADDR_W'(8);
  end

  // status reads (the only reads with a side effect, hence decoded in every cycle; the
  // same compares as decode()): 64-bit, INCR, 8-aligned, single or collective status
  assign r_fmt_ok = (ar.size == 3'd3) && (ar.burst == BURST_INCR) && (r_cur[2:0] == 3'd0);
  assign r_pages  = (r_cur[ADDR_W-1:PAGES_SH] == '0);
  assign r_single = r_pages
                 && (r_cur[PAGE_SH-1:STAT_SH] == (PAGE_SH-STAT_SH)'(STATUS_OFFSET >> STAT_SH));
  assign r_coll   = r_pages
                 && (r_cur[PAGE_SH-1:COLL_SH] == (PAGE_SH-COLL_SH)'(COLL_OFFSET >> COLL_SH));

  assign sr_rd_valid  = r_go && r_fmt_ok && (r_single || r_coll);
  assign sr_rd_row    = {r_cur[PAGE_SH +: PW], r_single ? r_cur[STAT_SH-1 -: GW] : r_cur[3 +: GW]};
  assign sr_rd_single = r_single;
  assign sr_rd_sel    = r_cur[3 +: SW];   // channel in the row (single status)

  assign ext_rd_addr = EXT_SH'(r_cur[EXT_SH-1:0]);
  assign err_rd_addr = {r_cur[PAGE_SH +: PW], r_cur[3 +: CW]};

  // ------------------------------------------------------------------ event counters
  typedef struct packed {
    eng_ev_t eng;
    logic    desc_err;
    logic    desc_ok;
  } cnt_ev_t;

  cnt_ev_t cnt_inc_q;

  // the events are registered first (a counter shows an event one cycle later): the
  // write path's decision then drives flops instead of the clock enables of wide counters
  always_ff @(posedge clk) begin
    if (rst) cnt_inc_q <= '0;
    else     cnt_inc_q <= '{eng: eng_ev, desc_err: desc_err, desc_ok: desc_ok};
  end

  // one register per counter, not an array: a simulator then updates only the counters
  // that count, with no per-element bookkeeping in every cycle
  logic [CNT_W-1:0] cnt_desc_ok_q, cnt_desc_err_q, cnt_blocks_q, cnt_inline_q,
                    cnt_control_q, cnt_ack_q, cnt_nack_q, cnt_stale_q, cnt_done_q;

  always_ff @(posedge clk) begin
    if (cnt_inc_q.desc_ok)     cnt_desc_ok_q  <= cnt_desc_ok_q  + CNT_W'(1);
    if (rst)                   cnt_desc_ok_q  <= '0;
  end
  always_ff @(posedge clk) begin
    if (cnt_inc_q.desc_err)    cnt_desc_err_q <= cnt_desc_err_q + CNT_W'(1);
    if (rst)                   cnt_desc_err_q <= '0;
  end
  always_ff @(posedge clk) begin
    if (cnt_inc_q.eng.block)   cnt_blocks_q   <= cnt_blocks_q   + CNT_W'(1);
    if (rst)                   cnt_blocks_q   <= '0;
  end
  always_ff @(posedge clk) begin
    if (cnt_inc_q.eng.inl)     cnt_inline_q   <= cnt_inline_q   + CNT_W'(1);
    if (rst)                   cnt_inline_q   <= '0;
  end
  always_ff @(posedge clk) begin
    if (cnt_inc_q.eng.control) cnt_control_q  <= cnt_control_q  + CNT_W'(1);
    if (rst)                   cnt_control_q  <= '0;
  end
  always_ff @(posedge clk) begin
    if (cnt_inc_q.eng.ack)     cnt_ack_q      <= cnt_ack_q      + CNT_W'(1);
    if (rst)                   cnt_ack_q      <= '0;
  end
  always_ff @(posedge clk) begin
    if (cnt_inc_q.eng.nack)    cnt_nack_q     <= cnt_nack_q     + CNT_W'(1);
    if (rst)                   cnt_nack_q     <= '0;
  end
  always_ff @(posedge clk) begin
    if (cnt_inc_q.eng.stale)   cnt_stale_q    <= cnt_stale_q    + CNT_W'(1);
    if (rst)                   cnt_stale_q    <= '0;
  end
  always_ff @(posedge clk) begin
    if (cnt_inc_q.eng.done)    cnt_done_q     <= cnt_done_q     + CNT_W'(1);
    if (rst)                   cnt_done_q     <= '0;
  end

  // ------------------------------------------------------------------ R register
  id_reg_t     id_val;
  params_reg_t params_val;

  always_comb begin
    id_val                     = '0;
    id_val.magic               = 32'(ID_MAGIC);
    id_val.version             = 16'(FORMAT_VERSION);
    params_val                 = '0;
    params_val.block_log2      = 8'($clog2(BLOCK_SIZE));
    params_val.max_outstanding = 8'(MAX_OUTSTANDING);
    params_val.data_w          = 16'(DATA_W);
    params_val[63:32]          = EXT_PARAMS;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      rvalid_q <= 1'b0;
    end else if (r_go) begin
      rvalid_q <= 1'b1;
    end else if (s_axi_rready) begin
      rvalid_q <= 1'b0;
    end
  end

  // the beat's value: the register mux and the rest of the decode are evaluated only in
  // the cycle a beat is loaded into the R register (here, under r_go)
  always_ff @(posedge clk) begin
    if (r_go) begin : r_load
      /* verilator lint_off UNUSEDSIGNAL */  // desc is not needed: a descriptor address is not readable (SLVERR)
      dec_t        d;
      /* verilator lint_on UNUSEDSIGNAL */
      logic        reg_hit, ok;
      logic [63:0] reg_val;
      d       = decode(r_cur[ADDR_W-1:3], EXT_SPAN);
      reg_hit = 1'b1;
      reg_val = '0;
      unique case (r_cur[REG_SH-1:0])   // offset in the register window (d.regs)
        REG_SH'(REG_ID):           reg_val = id_val;
        REG_SH'(REG_PARAMS):       reg_val = params_val;
        REG_SH'(REG_CNT_DESC_OK):  reg_val = 64'(cnt_desc_ok_q);
        REG_SH'(REG_CNT_DESC_ERR): reg_val = 64'(cnt_desc_err_q);
        REG_SH'(REG_CNT_BLOCKS):   reg_val = 64'(cnt_blocks_q);
        REG_SH'(REG_CNT_INLINE):   reg_val = 64'(cnt_inline_q);
        REG_SH'(REG_CNT_CONTROL):  reg_val = 64'(cnt_control_q);
        REG_SH'(REG_CNT_ACK):      reg_val = 64'(cnt_ack_q);
        REG_SH'(REG_CNT_NACK):     reg_val = 64'(cnt_nack_q);
        REG_SH'(REG_CNT_STALE):    reg_val = 64'(cnt_stale_q);
        REG_SH'(REG_CNT_DONE):     reg_val = 64'(cnt_done_q);
        default:                   reg_hit = 1'b0;
      endcase
      ok = r_fmt_ok && (d.single || d.coll || d.err || (d.regs && reg_hit)
                        || (d.ext && !ext_rd_err));
      rid_q   <= ar.id;
      rresp_q <= ok ? RESP_OKAY : RESP_SLVERR;
      rlast_q <= r_last;
      if (!ok)           rval_q <= '0;
      else if (d.single) rval_q <= 64'(sr_rd_data[2*d.ch[SW-1:0] +: 2]);
      else if (d.coll)   rval_q <= sr_rd_data;
      else if (d.err)    rval_q <= 64'(err_rd_data);
      else if (d.ext)    rval_q <= ext_rd_data;
      else               rval_q <= reg_val;
    end
  end

  assign s_axi_rvalid = rvalid_q;
  assign s_axi_rid    = rid_q;
  assign s_axi_rresp  = rresp_q;
  assign s_axi_rlast  = rlast_q;
  assign s_axi_rdata  = {(DATA_W / 64){rval_q}};

endmodule

`default_nettype wire
