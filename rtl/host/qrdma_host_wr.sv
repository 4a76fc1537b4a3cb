// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_host_wr: the write path of the host port (AXI4 AW/W/B; [QoS-RDMA] §3.6). Every
// accepted beat goes straight into the transfer table; per page it accumulates the line
// being assembled (word mask, channel, the fields the checks and the scheduler need),
// refuses beats and bad descriptors, keeps the long-descriptor skip record, starts good
// descriptors (status BUSY, new-transfer output) and forwards external register writes.
// Rules and timing: docs/qos.md "Descriptors and their acceptance", "Refusal reasons"
// (R1-R8, D1-D6), "Host port: precise rules and timing", "Host port modules"; pipeline:
// docs/modules.md#qrdma_host_wr.
//
// Contract (W beat handshake in cycle t; no stall inside, one beat per cycle sustained;
// the first W beat of a burst is taken two cycles after its AW at the earliest):
//   t    W0: chk_st must be the status row chk_row at the start of this cycle, and
//        eng_valid / eng_ch the engine's completion that the status store applies at
//        its end (chk_row is the next beat's from registers, whether it comes or not).
//   t+1  W1: the decision. tt_wr_*, ext_wr_*, desc_ok / desc_err are driven in this cycle.
//   t+2  W2: host_set (BUSY, or ERROR with host_err) for the beat's channel; the status
//        store applies it at the end of this cycle (it is forwarded to the W0 check and
//        the W1 decision of the same cycle); new_valid (t+3 when NEW_FIFO_DEPTH >= 64:
//        block-RAM FIFO) and, for the last beat of a burst, bvalid at the earliest.
// An accepted beat is 8 << AWSIZE bytes, aligned, with exactly those strobes: tt_wr_be
// enables whole aligned 8-byte words (qrdma_qos_engine relies on it). AWREADY is low
// while store_ready is; wready depends on registers only.
`default_nettype none

module qrdma_host_wr
  import qrdma_fmt_pkg::*;
  import qrdma_host_pkg::*;
#(
  parameter int unsigned DATA_W         = 256,   // AXI4 data width: 128 or 256
  parameter int unsigned ID_W           = 4,     // AXI4 ID width
  parameter int unsigned NEW_FIFO_DEPTH = 8,     // new-transfer FIFO entries (>= 2)
  parameter int unsigned EXT_SPAN       = 4096,  // external register window: REG_BASE + NIC_REG_FIRST .. + EXT_SPAN - 1
  localparam int unsigned EXT_SH        = $clog2(EXT_SPAN)                 // external window offset bits
) (
  input  logic                clk,            // clock
  input  logic                rst,            // synchronous reset, active high
  input  logic                store_ready,    // status and error-reason storage cleared after reset: AW taken only while high
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
  input  logic                s_axi_wlast,    // not used: beats are counted from AWLEN (a mismatch is flagged in simulation)
  input  logic                s_axi_wvalid,   // W valid
  output logic                s_axi_wready,   // W ready
  // write response
  output logic [ID_W-1:0]     s_axi_bid,      // burst ID
  output logic [1:0]          s_axi_bresp,    // OKAY, or SLVERR when a beat was refused or completed a bad descriptor
  output logic                s_axi_bvalid,   // B valid
  input  logic                s_axi_bready,   // B ready
  // status check (W0): status row of the next beat's channel c (and of c^1)
  output logic [PW+GW-1:0]    chk_row,        // page * 2 + c / 32
  input  logic [STATUS_SINGLE_W-1:0] chk_st,  // that row at the start of the cycle (2 bits per channel)
  input  logic                eng_valid,      // the engine completes channel eng_ch in this cycle (the status store's eng_valid)
  input  logic [PW+CW-1:0]    eng_ch,         // page * 64 + c
  // status update (W2), to be applied at the end of the cycle
  output logic                host_set,       // channel host_ch becomes BUSY or ERROR
  output logic [PW+CW-1:0]    host_ch,        // page * 64 + c
  output logic                host_err,       // 1: ERROR (descriptor refused at completion), 0: BUSY (started)
  // external register write (W1), offsets from REG_BASE in NIC_REG_FIRST .. EXT_SPAN-1
  output logic                ext_wr_en,      // write request (the register block writes unless it answers ext_wr_err)
  output logic [EXT_SH-1:0]   ext_wr_addr,    // register offset
  output logic [63:0]         ext_wr_data,    // register value
  input  logic                ext_wr_err,     // comb. answer to ext_wr_en: unmapped / read-only (the write gets SLVERR)
  // transfer-table write port (W1): row = xfer >> 1 (channels 2k and 2k+1 in one row)
  output logic                tt_wr_en,       // write enable
  output logic [9:0]          tt_wr_row,      // row
  output logic [63:0]         tt_wr_be,       // byte enables: whole aligned 8-byte words
  output logic [511:0]        tt_wr_data,     // the beat replicated over the row
  // new transfers (descriptor complete, accepted and in the table)
  output logic                new_valid,      // a transfer to start
  input  logic                new_ready,      // the engine takes it
  output logic [XW-1:0]       new_xfer,       // page * 128 + c
  output logic [SZW-1:0]      new_size,       // 1 .. 2^32
  output logic                new_inline,     // inline payload
  output logic                new_multipath,  // multipath requested
  output logic [3:0]          new_prio,       // priority
  // descriptor events (W1), one pulse each
  output logic                desc_ok,        // a descriptor started (CNT_DESC_OK)
  output logic                desc_err        // a beat refused or a bad descriptor (CNT_DESC_ERR)
);

  // ------------------------------------------------------------------ geometry
  localparam int unsigned DB        = DATA_W / 8;                     // bytes per beat
  localparam int unsigned LB        = $clog2(DB);                     // log2 DB
  localparam int unsigned TT_ROW_B  = 2 * DESC_LINE_BYTES;            // bytes per table row
  localparam int unsigned B_DEPTH   = 4;                              // B FIFO
  localparam int unsigned AW_DEPTH  = 4;                              // AW FIFO
  // the words of line 0 that hold the accumulated fields
  localparam int unsigned WD_A      = DESC_LINE0_SIZE_LSB / 64;       // size, prio
  localparam int unsigned WD_B      = DESC_LINE0_IS_INLINE_LSB / 64;  // inline, multipath, long
  localparam int unsigned LONG_BYTE = DESC_LINE0_LONG_DESC_LSB / 8;   // byte of long_desc in line 0
  localparam logic [1:0]  S_BUSY    = 2'(ST_BUSY);

`ifndef SYNTHESIS
  function automatic bit one_word(input int unsigned lsb, input int unsigned w,
                                  input int unsigned word);
    return (lsb / 64 == word) && ((lsb + w - 1) / 64 == word);
  endfunction
  initial begin
    if (DATA_W != 128 && DATA_W != 256)
      $fatal(1, "qrdma_host_wr: DATA_W must be 128 or 256");
    if (ID_W < 1) $fatal(1, "qrdma_host_wr: ID_W must be >= 1");
    if (NEW_FIFO_DEPTH < 2) $fatal(1, "qrdma_host_wr: NEW_FIFO_DEPTH must be >= 2");
    if (!map_ok(EXT_SPAN))
      $fatal(1, "qrdma_host_wr: address regions must be aligned powers of 2");
    if (!one_word(DESC_LINE0_SIZE_LSB, DESC_LINE0_SIZE_W, WD_A)
        || !one_word(DESC_LINE0_PRIO_LSB, DESC_LINE0_PRIO_W, WD_A)
        || !one_word(DESC_LINE0_IS_INLINE_LSB, 1, WD_B)
        || !one_word(DESC_LINE0_MULTIPATH_LSB, 1, WD_B)
        || !one_word(DESC_LINE0_LONG_DESC_LSB, 1, WD_B))
      $fatal(1, "qrdma_host_wr: accumulated fields must sit in two 8-byte words");
  end
`endif

  // ------------------------------------------------------------------ AW FIFO
  typedef struct packed {
    logic [ID_W-1:0]   id;
    logic [ADDR_W-1:0] addr;
    logic [7:0]        len;
    logic [2:0]        size;
    logic [1:0]        burst;
  } ax_t;

  ax_t  aw_in, aw;
  logic aw_valid, aw_pop, aw_s_ready;

  assign aw_in = '{id: s_axi_awid, addr: s_axi_awaddr, len: s_axi_awlen,
                   size: s_axi_awsize, burst: s_axi_awburst};

  /* verilator lint_off PINCONNECTEMPTY */  // count, almost_full: not used by the AW side
  qrdma_sync_fifo #(.WIDTH($bits(ax_t)), .DEPTH(AW_DEPTH)) u_aw_fifo (
    .clk, .rst,
    .s_valid (s_axi_awvalid && store_ready),
    .s_ready (aw_s_ready),
    .s_data  (aw_in),
    .m_valid (aw_valid),
    .m_ready (aw_pop),
    .m_data  (aw),
    .count   (),
    .almost_full ()
  );
  /* verilator lint_on PINCONNECTEMPTY */
  assign s_axi_awready = aw_s_ready && store_ready;

  // ------------------------------------------------------------------ N: next beat
  // The address side of the next W beat (AW FIFO head and beat counter) is decoded one
  // cycle ahead into the next-beat register N, loaded when it is empty or its beat is
  // taken (the first W beat of a burst comes at least two cycles after its AW). W0 starts
  // from N's flops.
  logic              b_af, new_af;
  logic              n_go, w_hs, w_last, first_q;
  logic [7:0]        wbeat_q;
  logic [ADDR_W-1:0] waddr_q, w_cur;
  logic [7:0]        w_nbytes;

  logic              n_valid_q, n_last_q;
  logic              n_ok_q;        // size, burst, alignment and address of a descriptor beat
  logic              n_ext_q;       // form and address of an external register write
  logic              n_desc_q, n_incr_q, n_cl_q;
  logic [ID_W-1:0]   n_id_q;
  logic [PW-1:0]     n_page_q;
  logic [CW-1:0]     n_ch_q;
  logic [NWORD-1:0]  n_mask_q;
  logic [DB-1:0]     n_strb_q;      // the strobes the beat must carry
  logic [LINE_SH-4:0] n_wsl_q;      // line word of the beat's lane 0
  logic [EXT_SH-1:0] n_eaddr_q;
  logic [LB-4:0]     n_esel_q;      // 64-bit lane of an external register write
  logic [$clog2(TT_ROW_B/DB)-1:0] n_lane_q;

  // wready from registers only: nothing combinational runs from bready or new_ready
  assign s_axi_wready = n_valid_q && !b_af && !new_af;
  assign w_hs         = s_axi_wvalid && s_axi_wready;
  assign n_go         = aw_valid && (!n_valid_q || w_hs);
  assign w_cur        = first_q ? aw.addr : waddr_q;
  assign w_nbytes     = 8'(1) << aw.size;
  assign w_last       = (wbeat_q == aw.len);
  assign aw_pop       = n_go && w_last;

  always_ff @(posedge clk) begin
    if (n_go) begin
      wbeat_q <= w_last ? '0 : wbeat_q + 8'd1;
      first_q <= w_last;
    end
    if (rst) begin
      wbeat_q <= '0;
      first_q <= 1'b1;
    end
  end
  // next beat: aligned to the size, then + size (INCR; other bursts are refused anyway)
  always_ff @(posedge clk) begin
    if (n_go) waddr_q <= (w_cur & ~ADDR_W'(w_nbytes - 8'd1)) + ADDR_W'(w_nbytes);
  end

  always_ff @(posedge clk) begin
    if (rst)       n_valid_q <= 1'b0;
    else if (n_go) n_valid_q <= 1'b1;
    else if (w_hs) n_valid_q <= 1'b0;
  end

  // the decode and the static checks of the address side, evaluated only under n_go
  always_ff @(posedge clk) begin
    if (n_go) begin : n_load
      /* verilator lint_off UNUSEDSIGNAL */  // the write side needs only desc, ext, page, ch of the decode
      dec_t               d;
      /* verilator lint_on UNUSEDSIGNAL */
      logic               incr;
      logic [LINE_SH-1:0] slice;   // line byte of lane 0
      d     = decode(w_cur[ADDR_W-1:3], EXT_SPAN);
      incr  = (aw.burst == BURST_INCR);
      slice = w_cur[LINE_SH-1:0] & ~LINE_SH'(DB - 1);
      n_desc_q  <= d.desc;
      n_incr_q  <= incr;
      n_wsl_q   <= slice[LINE_SH-1:3];
      n_cl_q    <= incr && (slice == LINE_SH'(LONG_BYTE - LONG_BYTE % DB));
      n_ok_q    <= (aw.size >= 3'd3) && (aw.size <= 3'(LB))              // size
                && incr                                                  // burst type
                && ((w_cur & ADDR_W'(w_nbytes - 8'd1)) == '0)            // alignment
                && d.desc;                                               // address
      // a register write of the external window: one aligned 64-bit word
      n_ext_q   <= (aw.size == 3'd3) && incr && (w_cur[2:0] == 3'd0) && d.ext;
      // (from the beat's 8-byte word: strb_ok matters only to beats aligned to 8 bytes)
      n_strb_q  <= DB'(((65'(1) << w_nbytes) - 65'(1)) << {w_cur[LB-1:3], 3'b000});
      n_eaddr_q <= EXT_SH'(w_cur[EXT_SH-1:0]);
      n_esel_q  <= w_cur[LB-1:3];
      n_last_q  <= w_last;
      n_id_q    <= aw.id;
      n_page_q  <= d.page;
      n_ch_q    <= d.ch;
      n_mask_q  <= NWORD'(((9'(1) << w_nbytes[7:3]) - 9'd1) << w_cur[LINE_SH-1:3]);
      n_lane_q  <= w_cur[LINE_SH:LB];
    end
  end

  // fields of line 0 carried by this beat, if it holds their word (each field is at the
  // same place within the beat for any bus width: its bit offset modulo DATA_W)
  logic [DESC_LINE0_SIZE_W-1:0] w_size;
  assign w_size = s_axi_wdata[DESC_LINE0_SIZE_LSB % DATA_W +: DESC_LINE0_SIZE_W];

  // ------------------------------------------------------------------ W1 registers
  typedef struct packed {
    logic [SZW-1:0] size;
    logic           zero;    // size 0
    logic           over;    // size > 2^32
    logic           gt8;     // size > INLINE_SHORT_MAX
    logic           gt32;    // size > INLINE_MAX
    logic [3:0]     prio;
  } fa_t;                    // fields of word WD_A
  typedef struct packed {
    logic inl;
    logic mp;
    logic lng;
  } fb_t;                    // fields of word WD_B

  logic                    s1_valid_q, s1_ok_q, s1_last_q;
  logic                    s1_desc_q;             // address in a write channel's line
  logic [NWORD-1:0]        s1_cw_q;               // words of the line the strobes carry
  logic                    s1_cl_q;               // the strobes carry long_desc = 1
  logic                    s1_ext_q;              // W1 beat is an external register write
  logic [EXT_SH-1:0]       s1_eaddr_q;
  logic [63:0]             s1_edata_q;
  logic [ID_W-1:0]         s1_id_q;
  logic [PW-1:0]           s1_page_q;
  logic [CW-1:0]           s1_ch_q;
  logic [NWORD-1:0]        s1_mask_q;
  logic [$clog2(TT_ROW_B/DB)-1:0] s1_lane_q;   // which DB-byte slice of the table row
  logic [DATA_W-1:0]       s1_data_q;
  logic [DB-1:0]           s1_strb_q;
  fa_t                     s1_fa_q;
  fb_t                     s1_fb_q;

  always_ff @(posedge clk) begin
    if (rst) s1_valid_q <= 1'b0;
    else     s1_valid_q <= w_hs;
  end

  // W0: the checks of the beat's strobes and data, evaluated only in the cycle of a W
  // handshake (here, under w_hs)
  always_ff @(posedge clk) begin
    if (w_hs) begin : w0
      logic             strb_ok;   // WSTRB is exactly the bytes the beat addresses
      logic [NWORD-1:0] full;      // 8-byte words of the beat with all strobes set
      strb_ok = (s_axi_wstrb == n_strb_q);
      for (int j = 0; j < int'(NWORD); j++)
        full[j] = (j < int'(DB / 8)) && (&s_axi_wstrb[(8 * j) % DB +: 8]);
      s1_desc_q  <= n_desc_q;
      s1_cw_q    <= n_incr_q ? NWORD'(full << n_wsl_q) : '0;
      s1_cl_q    <= n_cl_q && s_axi_wstrb[LONG_BYTE % DB]
                 && s_axi_wdata[DESC_LINE0_LONG_DESC_LSB % DATA_W];
      s1_ok_q    <= n_ok_q && strb_ok;
      s1_ext_q   <= n_ext_q && strb_ok;
      s1_eaddr_q <= n_eaddr_q;
      s1_edata_q <= s_axi_wdata[64 * n_esel_q +: 64];
      s1_last_q  <= n_last_q;
      s1_id_q    <= n_id_q;
      s1_page_q  <= n_page_q;
      s1_ch_q    <= n_ch_q;
      s1_mask_q  <= n_mask_q;
      s1_lane_q  <= n_lane_q;
      s1_data_q  <= s_axi_wdata;
      s1_strb_q  <= s_axi_wstrb;
      s1_fa_q.size <= SZW'(w_size);
      s1_fa_q.zero <= (w_size == '0);
      s1_fa_q.over <= (w_size > DESC_LINE0_SIZE_W'(MAX_TRANSFER_BYTES));
      s1_fa_q.gt8  <= (w_size > DESC_LINE0_SIZE_W'(INLINE_SHORT_MAX));
      s1_fa_q.gt32 <= (w_size > DESC_LINE0_SIZE_W'(INLINE_MAX));
      s1_fa_q.prio <= s_axi_wdata[DESC_LINE0_PRIO_LSB % DATA_W +: 4];
      s1_fb_q.inl  <= s_axi_wdata[DESC_LINE0_IS_INLINE_LSB % DATA_W];
      s1_fb_q.mp   <= s_axi_wdata[DESC_LINE0_MULTIPATH_LSB % DATA_W];
      s1_fb_q.lng  <= s_axi_wdata[DESC_LINE0_LONG_DESC_LSB % DATA_W];
    end
  end

  // ------------------------------------------------------------------ per-page state
  // pg_act_q[p]: page p is assembling a line (flops, reset). The rest is meaningful only
  // while active and lives in LUT RAM (no reset), read at the W0 page, written at the W1
  // page.
  typedef struct packed {
    logic [NWORD-1:0] mask;    // words of the current line received
    logic             line1;   // assembling line 1 of a long descriptor at chan (chan+1)
    logic [CW-1:0]    chan;    // channel of line 0
    fa_t              fa;
    fb_t              fb;
  } pg_t;

  logic [NUM_PAGES-1:0] pg_act_q;
  logic [$bits(pg_t)-1:0] pg_mem [NUM_PAGES];

  // skip record of each page: line 1 of a refused long descriptor of channel 2 sk.pair is
  // expected in 2 sk.pair + 1 and refused. sk_act_q[p] in flops (reset), the rest in
  // LUT RAM, read and written like pg_mem. Independent of the line being
  // assembled (a refused line 0 may be refused because the page assembles another line).
  typedef struct packed {
    logic [CW-2:0]    pair;    // channel of the refused line 0, halved
    logic [NWORD-1:0] mask;    // words of line 1 seen (accepted before, or refused)
  } sk_t;

  logic [NUM_PAGES-1:0] sk_act_q;
  logic [$bits(sk_t)-1:0] sk_mem [NUM_PAGES];

  // long flag of each even channel, valid while that channel is BUSY: LUT RAM of 16-bit
  // words, read-modify-write at one address (a 512 x 1 memory trips Yosys' UltraScale
  // LUT-RAM mapping)
  localparam int unsigned LNG_N = NUM_PAGES * WR_CH_PER_PAGE / 2;   // even channels
  localparam int unsigned LNG_W = $clog2(LNG_N);
  logic [15:0]      lng_mem [LNG_N / 16];
  logic [LNG_W-1:0] lng_addr;

  assign lng_addr = {s1_page_q, s1_ch_q[CW-1:1]};

  // ------------------------------------------------------------------ W0: state read
  // The page state and the long flag are read in W0, at the beat's page and channel (N),
  // and registered. The
  // W1 beat of the same cycle writes at the end of it: its writes are registered too
  // (wb_*) and forwarded in W1 when they hit the same page / long-flag word, so that the
  // W1 decision starts from flops.
  logic [PW-1:0]    w_page;
  logic [CW-2:0]    w_pair;      // the beat's channel, halved
  logic [LNG_W-1:0] w_lng_addr;
  pg_t              pg_r_q, wb_pg_q, pg_n;
  sk_t              sk_r_q, wb_sk_q;
  logic [15:0]      lngw_r_q, wb_lngw_q, lng_word, lng_word_n;
  logic             act_r_q, sk_on_r_q, lng_r_q;
  logic             fw_pg_q, fw_lngw_q, fw_lng_q;  // the W1 beat of the W0 cycle: same page / word / flag
  logic             wb_pg_en_q, wb_act_en_q, wb_act_q, wb_sk_en_q, wb_skact_q, wb_lng_en_q, wb_lng_q;
  logic             lng_wr;

  assign w_page     = n_page_q;
  assign w_pair     = n_ch_q[CW-1:1];
  assign w_lng_addr = {w_page, w_pair};

  always_ff @(posedge clk) begin
    if (w_hs) begin : w0_rd
      logic [15:0] lw;
      lw        = lng_mem[w_lng_addr[LNG_W-1:4]];
      pg_r_q    <= pg_t'(pg_mem[w_page]);
      sk_r_q    <= sk_t'(sk_mem[w_page]);
      act_r_q   <= pg_act_q[w_page];
      sk_on_r_q <= sk_act_q[w_page];
      lngw_r_q  <= lw;
      lng_r_q   <= lw[w_lng_addr[3:0]];
      fw_pg_q   <= s1_valid_q && (w_page == s1_page_q);
      fw_lngw_q <= s1_valid_q && (w_lng_addr[LNG_W-1:4] == lng_addr[LNG_W-1:4]);
      fw_lng_q  <= s1_valid_q && (w_lng_addr == lng_addr);
    end
  end

  // ------------------------------------------------------------------ W1: decision
  // Evaluated only when a beat is in W1 (s1_valid_q). In the other cycles the results are
  // 0 or unused: the page, table and long-flag writes, the new-transfer push and the
  // status update are all enabled by accept / start / bad_desc, which are then 0.
  logic             hs_valid_q, hs_err_q;    // W2: status update of the W1 decision
  logic [PW+CW-1:0] hs_ch_q;
  logic             line1, accept, complete, start, bad_desc, to_line1, beat_err;
  logic             skip_hit, sk_mark, abandon, sk_wr, sk_act_d;
  sk_t              sk_d;
  logic [CW-1:0]    start_ch;
  logic [XW-1:0]    start_xfer;              // page * CH_PER_PAGE + channel
  logic [NWORD-1:0] mask_new;
  fa_t              fa;
  fb_t              fb;
  pg_t              pg;

  // W0: BUSY of c and of its partner c^1 at the start of W1: the row at the start of W0,
  // with the status updates applied at the end of W0 (this path's host_set, the engine's
  // completion; read resets leave BUSY alone). W1 adds the update of the decision before.
  logic busy_c_q, busy_p_q;

  assign chk_row = {n_page_q, n_ch_q[CW-1 -: GW]};

  always_ff @(posedge clk) begin
    if (w_hs) begin : w0_st
      logic [PW+CW-1:0] c, p;
      logic             bc, bp;
      c  = {n_page_q, n_ch_q};
      p  = c ^ (PW+CW)'(1);
      bc = (chk_st[2*c[SW-1:0] +: 2] == S_BUSY);
      bp = (chk_st[2*p[SW-1:0] +: 2] == S_BUSY);
      if (hs_valid_q && hs_ch_q == c)      bc = !hs_err_q;
      else if (eng_valid && eng_ch == c)   bc = 1'b0;
      if (hs_valid_q && hs_ch_q == p)      bp = !hs_err_q;
      else if (eng_valid && eng_ch == p)   bp = 1'b0;
      busy_c_q <= bc;
      busy_p_q <= bp;
    end
  end

  always_comb begin
    line1    = 1'b0;
    accept   = 1'b0;
    complete = 1'b0;
    start    = 1'b0;
    bad_desc = 1'b0;
    to_line1 = 1'b0;
    beat_err = 1'b0;
    skip_hit = 1'b0;
    sk_mark  = 1'b0;
    abandon  = 1'b0;
    sk_wr    = 1'b0;
    sk_act_d = 1'b0;
    sk_d     = '0;
    start_ch = s1_ch_q;
    mask_new = '0;
    fa       = '0;
    fb       = '0;
    pg       = '0;
    if (s1_valid_q) begin : w1
      automatic logic          act, busy, conflict, bad, lng_rd, sk_on, busy_c, busy_p;
      automatic logic [CW-1:0] expect_ch;
      automatic sk_t           sk;
      pg       = (fw_pg_q && wb_pg_en_q) ? wb_pg_q : pg_r_q;
      sk       = (fw_pg_q && wb_sk_en_q) ? wb_sk_q : sk_r_q;
      sk_on    = fw_pg_q ? wb_skact_q : sk_on_r_q;
      lng_rd   = (fw_lng_q && wb_lng_en_q) ? wb_lng_q : lng_r_q;
      // BUSY of c and c^1, plus the update of the previous decision that the status
      // store applies at the end of this cycle
      busy_c = (hs_valid_q && hs_ch_q == {s1_page_q, s1_ch_q}) ? !hs_err_q : busy_c_q;
      busy_p = (hs_valid_q && hs_ch_q == {s1_page_q, s1_ch_q ^ CW'(1)}) ? !hs_err_q
             : busy_p_q;                                               // partner c^1

      act       = (fw_pg_q && wb_act_en_q) ? wb_act_q : act_r_q;
      line1     = act && pg.line1;
      expect_ch = line1 ? (pg.chan | CW'(1)) : pg.chan;
      busy      = busy_c || (s1_ch_q[0] && busy_p && lng_rd);
      conflict  = act && (s1_ch_q != expect_ch);
      skip_hit  = sk_on && s1_desc_q && (s1_ch_q == {sk.pair, 1'b1});
      accept    = s1_ok_q && !busy && !conflict && !skip_hit;
      mask_new  = (act ? pg.mask : '0) | s1_mask_q;
      complete  = accept && (mask_new == '1);

      // line-0 fields: this beat's where it carries their word, else the page's
      fa = (!line1 && s1_mask_q[WD_A]) ? s1_fa_q : pg.fa;
      fb = (!line1 && s1_mask_q[WD_B]) ? s1_fb_q : pg.fb;

      bad = fa.zero
         || fa.over
         || (fb.inl && fa.gt32)
         || (fb.inl && fa.gt8 && !fb.lng)
         || (fb.lng && s1_ch_q[0])
         || (fb.lng && busy_p);                       // c even: partner = c+1

      bad_desc = complete && !line1 && bad;
      to_line1 = complete && !line1 && !bad && fb.lng;
      start    = complete && (line1 || (!bad && !fb.lng));
      // a register write is not a descriptor beat: its only error is the register's own
      beat_err = (!accept && !(s1_ext_q && !ext_wr_err)) || bad_desc;
      start_ch = line1 ? pg.chan : s1_ch_q;

      // skip record: a refused line 0 of a long descriptor in an even channel (a refused
      // beat carrying long_desc = 1, or a bad descriptor with long) starts it; a refused
      // beat of line 1 ends the wait for line 1 and starts it with the words seen
      sk_mark  = s1_desc_q && !s1_ch_q[0]
              && ((!accept && s1_cl_q) || (bad_desc && fb.lng));
      abandon  = line1 && s1_desc_q && !accept && (s1_ch_q == expect_ch);
      sk_d     = sk;
      sk_act_d = 1'b0;
      if (sk_mark) begin
        sk_d.pair = s1_ch_q[CW-1:1];
        sk_d.mask = '0;
        sk_act_d  = 1'b1;
      end else if (skip_hit) begin
        sk_d.mask = sk.mask | s1_cw_q;
        sk_act_d  = (sk_d.mask != '1);
      end else if (abandon) begin
        sk_d.pair = pg.chan[CW-1:1];
        sk_d.mask = pg.mask | s1_cw_q;
        sk_act_d  = (sk_d.mask != '1);
      end else if (!accept) begin
        sk_act_d  = sk_on;
      end
      sk_wr = sk_mark || skip_hit || abandon;
    end
  end

  always_ff @(posedge clk) begin
    if (sk_wr) sk_mem[s1_page_q] <= sk_d;
  end
  always_ff @(posedge clk) begin
    if (rst)             sk_act_q <= '0;
    else if (s1_valid_q) sk_act_q[s1_page_q] <= sk_act_d;
  end

  // external register write (W1)
  assign ext_wr_en   = s1_valid_q && s1_ext_q;
  assign ext_wr_addr = s1_eaddr_q;
  assign ext_wr_data = s1_edata_q;
  assign start_xfer  = XW'(s1_page_q * CH_PER_PAGE) + XW'(start_ch);

  always_comb begin
    pg_n       = '0;
    pg_n.mask  = to_line1 ? '0 : mask_new;
    pg_n.line1 = line1 || to_line1;
    pg_n.chan  = line1 ? pg.chan : s1_ch_q;
    pg_n.fa    = fa;
    pg_n.fb    = fb;
  end

  always_ff @(posedge clk) begin
    if (accept) pg_mem[s1_page_q] <= pg_n;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      pg_act_q <= '0;
    end else if (accept) begin
      pg_act_q[s1_page_q] <= !(complete && !to_line1);
    end else if (abandon) begin
      pg_act_q[s1_page_q] <= 1'b0;
    end
  end

  // long flag of a started descriptor's even channel (line1: it is long), written into the
  // word read in W0 (with the forwarded write of the cycle before)
  assign lng_wr     = start && !start_ch[0];
  assign lng_word   = (fw_lngw_q && wb_lng_en_q) ? wb_lngw_q : lngw_r_q;
  assign lng_word_n = lng_word & ~(16'(1) << lng_addr[3:0]) | (16'(line1) << lng_addr[3:0]);

  always_ff @(posedge clk) begin
    if (lng_wr) lng_mem[lng_addr[LNG_W-1:4]] <= lng_word_n;
  end

  // the W1 beat's writes, registered for the W1 decision of the next cycle
  always_ff @(posedge clk) begin
    wb_pg_en_q  <= accept;
    wb_act_en_q <= accept || abandon;
    wb_act_q    <= accept && !(complete && !to_line1);
    wb_sk_en_q  <= sk_wr;
    wb_skact_q  <= sk_act_d;
    wb_lng_en_q <= lng_wr;
    wb_lng_q    <= line1;
    if (accept) wb_pg_q <= pg_n;
    if (sk_wr)  wb_sk_q <= sk_d;
    if (lng_wr) wb_lngw_q <= lng_word_n;
  end

  // the status update is registered (W2): it leaves the status read -> decision -> status
  // write path of W1 and is forwarded to the next decision above (hs_ch_q / hs_err_q
  // only matter while hs_valid_q)
  always_ff @(posedge clk) begin
    if (rst) hs_valid_q <= 1'b0;
    else     hs_valid_q <= start || bad_desc;
  end
  always_ff @(posedge clk) begin
    if (start || bad_desc) begin
      hs_ch_q  <= {s1_page_q, start_ch};
      hs_err_q <= bad_desc;
    end
  end

  assign host_set = hs_valid_q;
  assign host_ch  = hs_ch_q;
  assign host_err = hs_err_q;

  // transfer table: the beat's bytes at their place in the row of channels 2k, 2k+1
  assign tt_wr_en   = accept;
  assign tt_wr_row  = 10'((32'(s1_page_q) * CH_PER_PAGE + 32'(s1_ch_q)) >> 1);   // xfer >> 1
  assign tt_wr_be   = 64'(s1_strb_q) << (DB * s1_lane_q);
  assign tt_wr_data = {(TT_ROW_B / DB){s1_data_q}};

  assign desc_ok  = start;
  assign desc_err = beat_err;

  // ------------------------------------------------------------------ B responses
  typedef struct packed {
    logic [ID_W-1:0] id;
    logic            err;    // SLVERR
  } b_t;

  logic burst_err_q;
  logic b_s_ready;
  b_t   b_out;

  always_ff @(posedge clk) begin
    if (s1_valid_q) burst_err_q <= !s1_last_q && (burst_err_q || beat_err);
    if (rst)        burst_err_q <= 1'b0;
  end

  /* verilator lint_off PINCONNECTEMPTY */  // count: not used (almost_full paces wready)
  qrdma_sync_fifo #(.WIDTH($bits(b_t)), .DEPTH(B_DEPTH), .ALMOST_FULL(B_DEPTH - 1)) u_b_fifo (
    .clk, .rst,
    .s_valid (s1_valid_q && s1_last_q),
    .s_ready (b_s_ready),
    .s_data  (b_t'{id: s1_id_q, err: burst_err_q || beat_err}),
    .m_valid (s_axi_bvalid),
    .m_ready (s_axi_bready),
    .m_data  (b_out),
    .count   (),
    .almost_full (b_af)
  );
  /* verilator lint_on PINCONNECTEMPTY */
  assign s_axi_bid   = b_out.id;
  assign s_axi_bresp = b_out.err ? RESP_SLVERR : RESP_OKAY;

  // ------------------------------------------------------------------ new transfers
  typedef struct packed {
    logic [XW-1:0]  xfer;
    logic [SZW-1:0] size;
    logic           inl;
    logic           mp;
    logic [3:0]     prio;
  } new_t;

  new_t new_in, new_out;
  logic new_s_ready;

  assign new_in = '{xfer: start_xfer, size: fa.size, inl: fb.inl,
                    mp: fb.mp, prio: fa.prio};

  /* verilator lint_off PINCONNECTEMPTY */  // count: not used (almost_full paces wready)
  qrdma_sync_fifo #(.WIDTH($bits(new_t)), .DEPTH(NEW_FIFO_DEPTH),
                    .ALMOST_FULL(NEW_FIFO_DEPTH - 1)) u_new_fifo (
    .clk, .rst,
    .s_valid (start),
    .s_ready (new_s_ready),
    .s_data  (new_in),
    .m_valid (new_valid),
    .m_ready (new_ready),
    .m_data  (new_out),
    .count   (),
    .almost_full (new_af)
  );
  /* verilator lint_on PINCONNECTEMPTY */
  assign new_xfer      = new_out.xfer;
  assign new_size      = new_out.size;
  assign new_inline    = new_out.inl;
  assign new_multipath = new_out.mp;
  assign new_prio      = new_out.prio;

`ifndef SYNTHESIS
  // The B and new-transfer FIFOs always have room (wready looks one beat ahead).
  always_ff @(posedge clk) begin
    // each check nested under its valid, so that idle cycles cost one test (docs/sim.md)
    if (s1_valid_q)
      if (!rst && s1_last_q) assert (b_s_ready) else $error("qrdma_host_wr: B FIFO overflow");
    if (start)
      if (!rst) assert (new_s_ready) else $error("qrdma_host_wr: new-transfer FIFO overflow");
    if (w_hs)
      if (!rst) assert (s_axi_wlast == n_last_q)
        else $warning("qrdma_host_wr: WLAST does not match AWLEN (beats counted from AWLEN)");
  end
`endif

endmodule

`default_nettype wire
