// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_host_wr: the write path of the host port (AXI4 AW/W/B; [QoS-RDMA] §3.6). Every
// accepted beat goes into the transfer table; per page it accumulates the line being
// assembled (word mask, channel, the fields the checks and the scheduler need), refuses
// beats and bad descriptors, keeps the long-descriptor skip record, starts good
// descriptors (status BUSY, new-transfer output) and forwards external register writes.
// Rules and timing: docs/qos.md "Descriptors and their acceptance", "Refusal reasons"
// (R1-R8, D1-D7), "Host port: precise rules and timing", "Host port modules"; pipeline:
// docs/modules.md#qrdma_host_wr.
//
// Contract (W beat handshake in cycle t; no stall inside, one beat per cycle sustained;
// the first W beat of a burst is taken two cycles after its AW at the earliest):
//   every cycle: chk_st must be the status row chk_row at the start of the cycle, and
//        eng_valid / eng_ch the engine's completion that the status store applies at
//        its end (chk_row is the row of the beat N loads, from registers).
//   t    W0: host_ch_ahead is the beat's channel: that of the ERROR update t+2 may bring.
//   t+1  W1: the decision. ext_wr_* are driven in this cycle.
//   t+2  W2: tt_wr_*, desc_ok / desc_err, and host_set (BUSY, or ERROR with host_err) for
//        the beat's descriptor; the status store applies host_set at the end of this
//        cycle (it is forwarded to the status rows kept for the next beats, the W0 check
//        and the W1 decision of the same cycle).
//   t+3  new_valid (later when NEW_FIFO_DEPTH >= 64: block-RAM FIFO) and, for the last
//        beat of a burst, bvalid at the earliest.
// An accepted beat is 8 << AWSIZE bytes, aligned, with exactly those strobes: tt_wr_be
// enables whole aligned 8-byte words (qrdma_qos_engine relies on it). AWREADY is low
// while store_ready is; wready is a register.
`default_nettype none

module qrdma_host_wr
  import qrdma_fmt_pkg::*;
  import qrdma_host_pkg::*;
#(
  parameter int unsigned DATA_W         = 256,   // AXI4 data width: 128 or 256
  parameter int unsigned ID_W           = 4,     // AXI4 ID width
  parameter int unsigned NEW_FIFO_DEPTH = 8,     // new-transfer FIFO entries (>= 4)
  parameter int unsigned EXT_SPAN       = 4096,  // external register window: REG_BASE + NIC_REG_FIRST .. + EXT_SPAN - 1
  localparam int unsigned EXT_SH        = $clog2(EXT_SPAN)                 // external window offset bits
) (
  input  logic                clk,            // clock
  input  logic                rst,            // synchronous reset, active high
  input  logic                store_ready,    // status and error-reason storage cleared after reset: AW taken only while high
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
  input  logic                s_axi_wlast,    // not used: beats are counted from AWLEN (a mismatch is flagged in simulation)
  input  logic                s_axi_wvalid,   // W valid
  output logic                s_axi_wready,   // W ready
  // write response
  output logic [ID_W-1:0]     s_axi_bid,      // burst ID
  output logic [1:0]          s_axi_bresp,    // OKAY, or SLVERR when a beat was refused or completed a bad descriptor
  output logic                s_axi_bvalid,   // B valid
  input  logic                s_axi_bready,   // B ready
  // status check (W0): status row of the next beat's channel c (and of c^1)
  output logic [PW+GW-1:0]    chk_row,        // page * 4 + c / 32
  input  logic [STATUS_SINGLE_W-1:0] chk_st,  // that row at the start of the cycle (2 bits per channel)
  input  logic                eng_valid,      // the engine completes channel eng_ch in this cycle (the status store's eng_valid)
  input  logic [PW+CW-1:0]    eng_ch,         // page * 128 + c
  // status update (W2), to be applied at the end of the cycle
  output logic                host_set,       // channel host_ch becomes BUSY or ERROR
  output logic [PW+CW-1:0]    host_ch,        // page * 128 + c
  output logic                host_err,       // 1: ERROR (descriptor refused at completion), 0: BUSY (started)
  output logic [PW+CW-1:0]    host_ch_ahead,  // (W0) host_ch of an ERROR update two cycles later
  // external register write (W1), offsets from REG_BASE in NIC_REG_FIRST .. EXT_SPAN-1
  output logic                ext_wr_en,      // write request (the register block writes unless it answers ext_wr_err)
  output logic [EXT_SH-1:0]   ext_wr_addr,    // register offset
  output logic [63:0]         ext_wr_data,    // register value
  input  logic                ext_wr_err,     // comb. answer to ext_wr_en: unmapped / read-only (the write gets SLVERR)
  // transfer-table write port (W2): row = xfer >> 1 (channels 2k and 2k+1 in one row)
  output logic                tt_wr_en,       // write enable
  output logic [9:0]          tt_wr_row,      // row
  output logic [63:0]         tt_wr_be,       // byte enables: whole aligned 8-byte words
  output logic [511:0]        tt_wr_data,     // the beat replicated over the row
  // benchmark stamp of a descriptor that starts (with the write that completes it; the
  // engine keeps it beside the table: docs/fabric.md "Benchmark mode"): row tt_wr_row
  output logic                st_wr_en,       // a descriptor starts
  output logic                st_wr_half,     // ... in the row's odd channel
  output logic [STAMP_W:0]    st_wr_data,     // {stamped (BENCH.en), t_post}: line 0 bits 216:200
  // new transfers (descriptor complete, accepted and in the table)
  output logic                new_valid,      // a transfer to start
  input  logic                new_ready,      // the engine takes it
  output logic [XW-1:0]       new_xfer,       // page * 128 + c
  output logic [SZW-1:0]      new_size,       // 1 .. 2^32
  output logic [DLW-1:0]      new_dst_lo,     // dst_addr's low bits
  output logic                new_inline,     // inline payload
  output logic                new_multipath,  // multipath requested
  output logic [3:0]          new_prio,       // priority
  output logic                new_hold,       // clustering: held until a start on its page
  output logic                new_start,      // clustering: releases its page's held transfers
  // descriptor events (W2), one pulse each
  output logic                desc_ok,        // a descriptor started (CNT_DESC_OK)
  output logic                desc_err        // a beat refused or a bad descriptor (CNT_DESC_ERR)
);

  // ------------------------------------------------------------------ geometry
  localparam int unsigned DB        = DATA_W / 8;                     // bytes per beat
  localparam int unsigned LB        = $clog2(DB);                     // log2 DB
  localparam int unsigned TT_ROW_B  = 2 * DESC_LINE_BYTES;            // bytes per table row
  localparam int unsigned LANES     = TT_ROW_B / DB;                  // beats per table row
  localparam int unsigned B_DEPTH   = 5;                              // B FIFO
  localparam int unsigned AW_DEPTH  = 4;                              // AW FIFO
  // the words of line 0 that hold the accumulated fields
  localparam int unsigned WD_A      = DESC_LINE0_SIZE_LSB / 64;       // size, prio
  localparam int unsigned WD_B      = DESC_LINE0_IS_INLINE_LSB / 64;  // inline, multipath, long, hold, start
  localparam int unsigned WD_D      = DESC_LINE0_DST_ADDR_LSB / 64;   // dst_addr
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
    if (NEW_FIFO_DEPTH < 4) $fatal(1, "qrdma_host_wr: NEW_FIFO_DEPTH must be >= 4");
    if (!map_ok(EXT_SPAN))
      $fatal(1, "qrdma_host_wr: address regions must be aligned powers of 2");
    if (!one_word(DESC_LINE0_SIZE_LSB, DESC_LINE0_SIZE_W, WD_A)
        || !one_word(DESC_LINE0_PRIO_LSB, DESC_LINE0_PRIO_W, WD_A)
        || !one_word(DESC_LINE0_IS_INLINE_LSB, 1, WD_B)
        || !one_word(DESC_LINE0_MULTIPATH_LSB, 1, WD_B)
        || !one_word(DESC_LINE0_LONG_DESC_LSB, 1, WD_B)
        || !one_word(DESC_LINE0_HOLD_LSB, 1, WD_B)
        || !one_word(DESC_LINE0_START_LSB, 1, WD_B)
        || !one_word(DESC_LINE0_DST_ADDR_LSB, DLW, WD_D))
      $fatal(1, "qrdma_host_wr: each accumulated field must sit in one 8-byte word");
    if (SW != 5 || CW != GW + SW || !one_word(DESC_LINE0_NOTIFY_LSB, 1, WD_B))
      $fatal(1, "qrdma_host_wr: status rows of 32 channels and notify beside is_inline expected");
    if (DESC_LINE0_STAMPED_LSB != DESC_LINE0_T_POST_LSB + STAMP_W)
      $fatal(1, "qrdma_host_wr: line 0's stamped bit must follow t_post");
  end
`endif

  // ------------------------------------------------------------------ AW
  // The burst the beat sequence walks is held in the sequencer's burst register (from
  // flops): it takes the AW FIFO's head, or the AW of this cycle directly when the FIFO
  // is empty (no cycle lost); the FIFO keeps the bursts behind it.
  typedef struct packed {
    logic [ID_W-1:0] id;
    logic [1:0]      burst;
  } aw_user_t;

  aw_user_t   aw_user;
  logic       aw_s_ready;
  logic [2:0] b_size;      // the burst's AWSIZE

  assign s_axi_awready = aw_s_ready && store_ready;

  // ------------------------------------------------------------------ N: next beat
  // The address side of the next W beat (the sequencer's burst register and its beat) is
  // decoded one cycle ahead into the next-beat register N, loaded when it is empty or its
  // beat is taken (the first W beat of a burst comes at least two cycles after its AW).
  // With it, the BUSY bits of its status row and the long flags of its row's pairs (see
  // "N: status and long flags"). W0 starts from N's flops.
  logic              b_af, new_af;
  logic              n_go, w_hs, w_last, n_valid_q;
  logic [ADDR_W-1:0] w_cur;
  logic [7:0]        w_nbytes;

  qrdma_burst_seq #(.ADDR_W(ADDR_W), .USER_W($bits(aw_user_t)), .DEPTH(AW_DEPTH)) u_seq (
    .clk, .rst,
    .s_valid (s_axi_awvalid && store_ready),
    .s_ready (aw_s_ready),
    .s_addr  (s_axi_awaddr),
    .s_len   (s_axi_awlen),
    .s_size  (s_axi_awsize),
    .s_user  ({s_axi_awid, s_axi_awburst}),
    .load    (n_go),
    .addr    (w_cur),
    .last    (w_last),
    .size    (b_size),
    .user    (aw_user),
    .valid   (n_valid_q),
    .take    (w_hs)
  );

  logic              n_last_q;
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
  logic [$clog2(LANES)-1:0] n_lane_q;

  // wready is a register: set for the next cycle when N will hold a beat and neither the
  // B FIFO nor the new-transfer FIFO is almost full (nothing combinational runs from
  // bready or new_ready, and the W handshake is one gate from the port)
  logic wready_q;
  always_ff @(posedge clk) begin
    if (rst) wready_q <= 1'b0;
    else     wready_q <= (n_go || (n_valid_q && !w_hs)) && !b_af && !new_af;
  end
  assign s_axi_wready = wready_q;
  assign w_hs         = s_axi_wvalid && s_axi_wready;
  assign w_nbytes     = 8'(1) << b_size;

  // the decode and the static checks of the address side, evaluated only under n_go; the
  // page and the channel are the address bits of a descriptor line (meaningful only for
  // a descriptor beat, the only kind whose channel is used)
  always_ff @(posedge clk) begin
    if (n_go) begin : n_load
      /* verilator lint_off UNUSEDSIGNAL */  // the write side needs only desc and ext of the decode
      dec_t               d;
      /* verilator lint_on UNUSEDSIGNAL */
      logic               incr;
      logic [LINE_SH-1:0] slice;   // line byte of lane 0
      d     = decode(w_cur[ADDR_W-1:3], EXT_SPAN);
      incr  = (aw_user.burst == BURST_INCR);
      slice = w_cur[LINE_SH-1:0] & ~LINE_SH'(DB - 1);
      n_desc_q  <= d.desc;
      n_incr_q  <= incr;
      n_wsl_q   <= slice[LINE_SH-1:3];
      n_cl_q    <= incr && (slice == LINE_SH'(LONG_BYTE - LONG_BYTE % DB));
      n_ok_q    <= (b_size >= 3'd3) && (b_size <= 3'(LB))            // size
                && incr                                                  // burst type
                && ((w_cur & ~(ADDR_W'('1) << b_size)) == '0)        // alignment
                && d.desc;                                               // address
      // a register write of the external window: one aligned 64-bit word
      n_ext_q   <= (b_size == 3'd3) && incr && (w_cur[2:0] == 3'd0) && d.ext;
      // (from the beat's 8-byte word: strb_ok matters only to beats aligned to 8 bytes)
      n_strb_q  <= DB'(~(65'('1) << w_nbytes) << {w_cur[LB-1:3], 3'b000});
      n_eaddr_q <= EXT_SH'(w_cur[EXT_SH-1:0]);
      n_esel_q  <= w_cur[LB-1:3];
      n_last_q  <= w_last;
      n_id_q    <= aw_user.id;
      n_page_q  <= w_cur[PAGE_SH +: PW];
      n_ch_q    <= w_cur[LINE_SH +: CW];
      n_mask_q  <= NWORD'(~(9'('1) << w_nbytes[7:3]) << w_cur[LINE_SH-1:3]);
      n_lane_q  <= w_cur[LINE_SH:LB];
    end
  end

  // fields of line 0 carried by this beat, if it holds their word (each field is at the
  // same place within the beat for any bus width: its bit offset modulo DATA_W)
  logic [DESC_LINE0_SIZE_W-1:0] w_size;
  assign w_size = s_axi_wdata[DESC_LINE0_SIZE_LSB % DATA_W +: DESC_LINE0_SIZE_W];

  // ------------------------------------------------------------------ records
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
    logic nt;                // notify (refused in a read channel, D7)
    logic mp;
    logic lng;
    logic hold;              // clustering (qrdma_host_cluster)
    logic start;
  } fb_t;                    // fields of word WD_B
  typedef struct packed {
    logic [DLW-1:0] dlo;     // dst_addr's low bits
  } fd_t;                    // fields of word WD_D

  // A page as a decision sees it (its view): the line being assembled and the skip
  // record. Line 1 of a long descriptor of chan is expected in chan | 1.
  typedef struct packed {
    logic             act;     // assembling a line
    logic             l1;      // act and the line is line 1 of a long descriptor
    logic [CW-1:0]    chan;    // channel of line 0 (while act)
    logic [NWORD-1:0] mask;    // words of the line received (0 unless act)
    fa_t              fa;      // line-0 fields received
    fb_t              fb;
    fd_t              fd;
    logic             sk_on;   // skip record: line 1 of a refused long descriptor of
    logic [CW-2:0]    sk_pair; //   channel 2 sk_pair is expected in 2 sk_pair + 1 ...
    logic [NWORD-1:0] sk_mask; //   ... and these of its words have been seen
  } view_t;

  function automatic logic [CW-1:0] expect_ch(input logic l1, input logic [CW-1:0] chan);
    return l1 ? (chan | CW'(1)) : chan;
  endfunction

  // Per page in memory: the flags act and sk_on in flops (reset), the rest in LUT RAM
  // (meaningful only while its flag is set), read in W0 at the beat's page and written
  // in W2 with the page's state after the W2 beat.
  typedef struct packed {
    logic [NWORD-1:0] mask;
    logic             line1;
    logic [CW-1:0]    chan;
    fa_t              fa;
    fb_t              fb;
    fd_t              fd;
  } pg_t;
  typedef struct packed {
    logic [CW-2:0]    pair;
    logic [NWORD-1:0] mask;
  } sk_t;

  logic [NUM_PAGES-1:0]   pg_act_q, sk_act_q;
  logic [$bits(pg_t)-1:0] pg_mem [NUM_PAGES];
  logic [$bits(sk_t)-1:0] sk_mem [NUM_PAGES];

  // Long flag of each even channel, valid while it is BUSY (an odd channel's R6 check):
  // flag {page, ch[6:1]} lives in column ch[4:1], row {page, ch[6:5]} (the status row),
  // 16 LUT-RAM columns of 1 bit written one flag at a time (no read-modify-write).
  localparam int unsigned LNG_N    = NUM_PAGES * CH_PER_PAGE / 2;      // even channels
  localparam int unsigned LNG_COLS = 16;
  localparam int unsigned LNG_ROWS = LNG_N / LNG_COLS;
  localparam int unsigned LNG_RW   = $clog2(LNG_ROWS);

  // ------------------------------------------------------------------ stage registers
  // W1 (D): the beat handshaken in the cycle before. W2 (E): the beat decided in the cycle
  // before, with its decision as flags: e_acc_q and what the beat does if accepted or
  // refused; g_* below are its consequences, from these flops.
  logic                    s1_valid_q, s1_ok_q, s1_last_q;
  logic                    s1_desc_q;             // address in a channel's descriptor line
  logic [NWORD-1:0]        s1_cw_q;               // words of the line the strobes carry
  logic                    s1_cl_q;               // the strobes carry long_desc = 1
  logic                    s1_ext_q;              // W1 beat is an external register write
  logic [EXT_SH-1:0]       s1_eaddr_q;
  logic [63:0]             s1_edata_q;
  logic [ID_W-1:0]         s1_id_q;
  logic [PW-1:0]           s1_page_q;
  logic [CW-1:0]           s1_ch_q;
  logic [NWORD-1:0]        s1_mask_q;
  logic [$clog2(LANES)-1:0] s1_lane_q;
  logic [DATA_W-1:0]       s1_data_q;
  logic [DB-1:0]           s1_strb_q;
  fa_t                     s1_fa_q;
  fb_t                     s1_fb_q;
  fd_t                     s1_fd_q;

  logic                    e_valid_q, e_acc_q, e_last_q, e_desc_q;
  logic [ID_W-1:0]         e_id_q;
  logic [PW-1:0]           e_page_q;
  logic [CW-1:0]           e_ch_q;
  view_t                   e_v_q;                 // the page as the beat's decision saw it
  logic [NWORD-1:0]        e_mnew_q;              // words of the line with the beat's
  logic                    e_full_q;              // ... the beat completes its line
  fa_t                     e_fa_q;                // line-0 fields with the beat's
  fb_t                     e_fb_q;
  fd_t                     e_fd_q;
  logic                    e_cstart_q;            // if accepted: starts a descriptor
  logic                    e_cbad_q;              // if accepted: a bad descriptor
  logic                    e_skhit_q;             // refused by the skip record (R8)
  logic                    e_ab0_q;               // if refused: ends the wait for line 1
  logic                    e_markr_q;             // if refused: starts a skip record
  logic [NWORD-1:0]        e_cw_q;
  logic                    e_skfh_q;              // the skip record's words all seen with the beat's
  logic                    e_skfa_q;              // line 1's words all seen with the beat's
  logic [CW-1:0]           e_startch_q;           // channel a start (or a bad descriptor) sets
  logic                    e_extok_q;             // a register write the register block took
  logic [$clog2(LANES)-1:0] e_lane_q;
  logic [DATA_W-1:0]       e_data_q;
  logic [DB-1:0]           e_strb_q;

  // ------------------------------------------------------------------ W2: consequences
  // What the W2 beat does, from its flags: the page after it (g_v, written to memory at
  // the end of this cycle and forwarded to the W1 and W0 beats of the same page), the
  // status update, the long flag, the events.
  logic  g_acc, g_end, g_tol1, g_start, g_bad, g_ab, g_mark, g_skhit, g_hs, g_lng_wr;
  logic  g_beat_err, g_sk_wr;
  view_t g_v;

  assign g_acc    = e_valid_q && e_acc_q;
  assign g_end    = e_cstart_q || e_cbad_q;                 // if accepted: the line ends
  assign g_tol1   = e_full_q && !g_end;                     // if accepted: line 1 follows
  assign g_start  = g_acc && e_cstart_q;
  assign g_bad    = g_acc && e_cbad_q;
  assign g_hs     = g_acc && g_end;
  assign g_ab     = e_valid_q && !e_acc_q && e_ab0_q;
  assign g_skhit  = e_valid_q && e_skhit_q;
  assign g_mark   = e_valid_q && (e_acc_q ? (e_cbad_q && e_fb_q.lng && e_desc_q && !e_ch_q[0])
                                          : e_markr_q);
  assign g_sk_wr  = g_mark || g_skhit || g_ab;
  assign g_lng_wr = g_start && !e_startch_q[0];
  // a register write is not a descriptor beat: its only error is the register's own
  assign g_beat_err = e_valid_q && ((!e_acc_q && !e_extok_q) || g_bad);

  always_comb begin
    g_v = e_v_q;
    if (e_acc_q) begin
      g_v.act  = !g_end;
      g_v.l1   = (e_v_q.l1 && !e_full_q) || g_tol1;
      g_v.chan = e_startch_q;
      g_v.mask = e_full_q ? '0 : e_mnew_q;
      g_v.fa   = e_fa_q;
      g_v.fb   = e_fb_q;
      g_v.fd   = e_fd_q;
    end else if (e_ab0_q) begin
      g_v.act  = 1'b0;
      g_v.l1   = 1'b0;
      g_v.mask = '0;
    end
    // skip record: a refused line 0 of a long descriptor in an even channel (a refused
    // beat carrying long_desc = 1, or a bad descriptor with long) starts it; a refused
    // beat of line 1 ends the wait for line 1 and starts it with the words seen; any
    // accepted beat ends it
    if (g_mark) begin
      g_v.sk_on   = 1'b1;
      g_v.sk_pair = e_ch_q[CW-1:1];
      g_v.sk_mask = '0;
    end else if (e_skhit_q) begin
      g_v.sk_on   = !e_skfh_q;
      g_v.sk_mask = e_v_q.sk_mask | e_cw_q;
    end else if (e_acc_q) begin
      g_v.sk_on   = 1'b0;
    end else if (e_ab0_q) begin
      g_v.sk_on   = !e_skfa_q;
      g_v.sk_pair = e_v_q.chan[CW-1:1];
      g_v.sk_mask = e_v_q.mask | e_cw_q;
    end
  end

  always_ff @(posedge clk) begin
    if (g_acc) pg_mem[e_page_q] <= pg_t'{mask: g_v.mask, line1: g_v.l1, chan: g_v.chan,
                                         fa: g_v.fa, fb: g_v.fb, fd: g_v.fd};
  end
  always_ff @(posedge clk) begin
    if (g_sk_wr) sk_mem[e_page_q] <= sk_t'{pair: g_v.sk_pair, mask: g_v.sk_mask};
  end
  always_ff @(posedge clk) begin
    if (g_acc || g_ab) pg_act_q[e_page_q] <= g_v.act;
    if (e_valid_q)     sk_act_q[e_page_q] <= g_v.sk_on;
    if (rst) begin
      pg_act_q <= '0;
      sk_act_q <= '0;
    end
  end

  // ------------------------------------------------------------------ N: status and long flags
  // Two sets of registers, both loaded in every cycle, keep N's status row (BUSY bits) and
  // long-flag row at the start of each cycle without a load enable or a clear from N's
  // load (n_go fans out to the whole beat register; it selects nothing here):
  //   A: the row the beat loadable in this cycle would take (chk_row / chk_st and the
  //      long-flag row, their address from flops: the sequencer's address register), the
  //      status row as read (na_x_q) and the channels of it that the updates applied at
  //      the end of this cycle change (the W2 beat's host_set, the engine's completion;
  //      reads leave BUSY alone) as "changed" and "BUSY" bits (na_c_q, na_v_q); the long
  //      flags with the W2 beat's write applied (na_l_q).
  //   B: N's row as BUSY bits and long flags (nb, nl) with this cycle's updates applied
  //      (nb_q, nl_b_q).
  // n_new_q (N was loaded in the cycle before) selects A, else B: nb and nl are N's rows
  // at the start of the cycle.
  logic [LNG_COLS-1:0] lng_rd;   // the flags of the loaded beat's row
  logic [LNG_RW-1:0]   lng_raddr;
  logic [PW+GW-1:0]    n_row;    // N's status row (and long-flag row)
  logic [STATUS_SINGLE_W-1:0] na_x_q; // A: the row as read
  logic [ROW_CH-1:0]   na_c_q, na_v_q, nb_q, nb;
  logic [LNG_COLS-1:0] na_l_q, nl_b_q, nl;
  logic                n_new_q;

  assign lng_raddr = {w_cur[PAGE_SH +: PW], w_cur[LINE_SH + CW - 1 -: GW]};
  assign chk_row   = lng_raddr;
  assign n_row     = {n_page_q, n_ch_q[CW-1 -: GW]};

  for (genvar j = 0; j < int'(LNG_COLS); j++) begin : gen_lng
    logic lcol [LNG_ROWS];
    always_ff @(posedge clk) begin
      if (g_lng_wr && e_startch_q[SW-1:1] == 4'(j)) lcol[{e_page_q, e_startch_q[CW-1 -: GW]}] <= e_v_q.l1;
    end
    assign lng_rd[j] = lcol[lng_raddr];
  end

  always_comb begin
    for (int i = 0; i < int'(ROW_CH); i++)
      nb[i] = n_new_q ? (na_c_q[i] ? na_v_q[i] : (na_x_q[2 * i +: 2] == S_BUSY)) : nb_q[i];
  end
  assign nl = n_new_q ? na_l_q : nl_b_q;

  // a row's change bits, BUSY bits and long flags with this cycle's updates (A starts from
  // no change, B from every channel changed with N's BUSY bits)
  function automatic logic [2*ROW_CH+LNG_COLS-1:0] upd_rows(
      input logic [PW+GW-1:0] r, input logic [ROW_CH-1:0] c, input logic [ROW_CH-1:0] v,
      input logic [LNG_COLS-1:0] l,
      input logic hs, input logic [PW+CW-1:0] hc, input logic herr,
      input logic evl, input logic [PW+CW-1:0] ec,
      input logic lw, input logic [PW+GW-1:0] lrow, input logic [3:0] lcol, input logic lv);
    for (int i = 0; i < int'(ROW_CH); i++) begin
      if (hs && hc == {r, SW'(i)}) begin
        c[i] = 1'b1;
        v[i] = !herr;
      end else if (evl && ec == {r, SW'(i)}) begin
        c[i] = 1'b1;
        v[i] = 1'b0;
      end
    end
    if (lw && lrow == r) l[lcol] = lv;
    return {c, v, l};
  endfunction

  always_ff @(posedge clk) begin
    begin : n_rows
      /* verilator lint_off UNUSEDSIGNAL */  // B keeps the BUSY bits and flags, not the change bits
      logic [2*ROW_CH+LNG_COLS-1:0] ub;
      /* verilator lint_on UNUSEDSIGNAL */
      na_x_q <= chk_st;
      {na_c_q, na_v_q, na_l_q} <= upd_rows(chk_row, '0, '0, lng_rd, host_set, host_ch,
          host_err, eng_valid, eng_ch, g_lng_wr, {e_page_q, e_startch_q[CW-1 -: GW]},
          e_startch_q[SW-1:1], e_v_q.l1);
      ub = upd_rows(n_row, '1, nb, nl, host_set, host_ch, host_err, eng_valid, eng_ch,
                    g_lng_wr, {e_page_q, e_startch_q[CW-1 -: GW]}, e_startch_q[SW-1:1], e_v_q.l1);
      nb_q   <= ub[LNG_COLS +: ROW_CH];
      nl_b_q <= ub[LNG_COLS-1:0];
    end
    if (rst) n_new_q <= 1'b0;
    else     n_new_q <= n_go;
  end

  // ------------------------------------------------------------------ W0: state read
  // In the cycle of the W handshake, from N: the page (memory, or the W2 beat's g_v when
  // it is the same page) and the compares of the beat's channel with it; the compares
  // with what the W1 beat may leave in the page (its view and its channel: the W1
  // decision selects among them by that beat's flags); the status of the beat's quad of
  // channels (c and c^1 in it), with the updates applied at the end of this cycle
  // forwarded; the long flag of the beat's pair, with the W2 beat's write forwarded.
  view_t            vr_q, d_v;
  logic             eq_exp_r_q, eq_skp_r_q;     // channel == expected / skip pair's odd (vr_q)
  logic             fw_a_q;                     // same page as the beat ahead (in W2 at W1)
  logic             f_vexp_q, f_ch_q, f_ch1_q;  // channel == ahead's expected / its channel / | 1
  logic             fp_ch_q, fp_vsk_q, fp_vchan_q; // pair == ahead's pair / skip pair / chan's pair
  logic             fs_c_q, fs_p_q, fs_pair_q;  // c, c^1, pair == ahead's start channel
  logic [3:0]       sq_q;                       // BUSY of the quad {c[5:2], 0..3}
  logic             lng_r_q;
  logic [CW-1:0]    d_startch;

  // BUSY of the W0 beat's quad of channels
  logic [3:0] row_quad;
  assign row_quad = nb[4 * n_ch_q[SW-1:2] +: 4];

  always_ff @(posedge clk) begin
    if (w_hs) begin : w0_rd
      view_t            mv, vr;
      logic             fwz;
      logic [CW-1:0]    c;
      logic [CW-2:0]    cp;
      logic [CW-1:0]    dexp;
      logic             lr;
      pg_t              pr;
      sk_t              sr;
      c   = n_ch_q;
      cp  = n_ch_q[CW-1:1];
      // the page in memory, or after the W2 beat
      pr         = pg_t'(pg_mem[n_page_q]);
      sr         = sk_t'(sk_mem[n_page_q]);
      mv.act     = pg_act_q[n_page_q];
      mv.l1      = mv.act && pr.line1;
      mv.chan    = pr.chan;
      mv.mask    = mv.act ? pr.mask : '0;
      mv.fa      = pr.fa;
      mv.fb      = pr.fb;
      mv.fd      = pr.fd;
      mv.sk_on   = sk_act_q[n_page_q];
      mv.sk_pair = sr.pair;
      mv.sk_mask = sr.mask;
      fwz        = e_valid_q && (e_page_q == n_page_q);
      vr         = fwz ? g_v : mv;
      vr_q       <= vr;
      eq_exp_r_q <= (c == expect_ch(vr.l1, vr.chan));
      eq_skp_r_q <= (cp == vr.sk_pair);
      // what the W1 beat may leave
      dexp       = expect_ch(d_v.l1, d_v.chan);
      fw_a_q     <= s1_valid_q && (s1_page_q == n_page_q);
      f_vexp_q   <= (c == dexp);
      f_ch_q     <= (c == s1_ch_q);
      f_ch1_q    <= (c == (s1_ch_q | CW'(1)));
      fp_ch_q    <= (cp == s1_ch_q[CW-1:1]);
      fp_vsk_q   <= (cp == d_v.sk_pair);
      fp_vchan_q <= (cp == d_v.chan[CW-1:1]);
      fs_c_q     <= (c == d_startch);
      fs_p_q     <= ((c ^ CW'(1)) == d_startch);
      fs_pair_q  <= (cp == d_startch[CW-1:1]);
      // status of the quad: the row at the start of this cycle, with this cycle's updates
      // (the W2 beat's host_set, the engine's completion; reads leave BUSY alone)
      for (int j = 0; j < 4; j++) begin
        logic [PW+CW-1:0] ch;
        ch = {n_page_q, c[CW-1:2], 2'(j)};
        if (g_hs && {e_page_q, e_startch_q} == ch) sq_q[j] <= !e_cbad_q;
        else sq_q[j] <= row_quad[j] && !(eng_valid && eng_ch == ch);
      end
      // long flag of the pair, with the W2 beat's write
      lr = nl[c[SW-1:1]];
      if (g_lng_wr && {e_page_q, e_startch_q[CW-1:1]} == {n_page_q, cp}) lr = e_v_q.l1;
      lng_r_q <= lr;
    end
  end

  // ------------------------------------------------------------------ W0: beat checks
  // The checks of the beat's strobes and data, evaluated only in the cycle of a W
  // handshake (here, under w_hs).
  always_ff @(posedge clk) begin
    if (rst) s1_valid_q <= 1'b0;
    else     s1_valid_q <= w_hs;
  end

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
      s1_fb_q.nt   <= s_axi_wdata[DESC_LINE0_NOTIFY_LSB % DATA_W];
      s1_fb_q.mp   <= s_axi_wdata[DESC_LINE0_MULTIPATH_LSB % DATA_W];
      s1_fb_q.lng  <= s_axi_wdata[DESC_LINE0_LONG_DESC_LSB % DATA_W];
      s1_fb_q.hold <= s_axi_wdata[DESC_LINE0_HOLD_LSB % DATA_W];
      s1_fb_q.start <= s_axi_wdata[DESC_LINE0_START_LSB % DATA_W];
      s1_fd_q.dlo  <= s_axi_wdata[DESC_LINE0_DST_ADDR_LSB % DATA_W +: DLW];
    end
  end

  // ------------------------------------------------------------------ W1: decision
  // The page is the W2 beat's g_v when that beat is of the same page (fw_a_q), else the
  // one read in W0; the compares with the channel were made in W0 against each value the
  // page can take and are selected here by the W2 beat's flags. Only accept depends on
  // the beat ahead's acceptance through more than a selection; what follows acceptance
  // is registered as flags (e_c*, e_ab0, ...) and applied in W2.
  logic          d_eq_exp, d_eq_skp, d_busy_c, d_busy_p, d_lng;
  logic          d_conflict, d_skip_hit, d_busy, d_acc, d_full, d_bad;
  logic [NWORD-1:0] d_mnew;
  fa_t           d_fa;
  fb_t           d_fb;
  fd_t           d_fd;
  /* verilator lint_off UNUSEDSIGNAL */  // the checks use only the flags of the fields
  fa_t           d_fa_b;
  fb_t           d_fb_b;
  /* verilator lint_on UNUSEDSIGNAL */

  always_comb begin
    d_v        = vr_q;
    d_eq_exp   = eq_exp_r_q;
    d_eq_skp   = eq_skp_r_q;
    d_busy_c   = sq_q[s1_ch_q[1:0]];
    d_busy_p   = sq_q[s1_ch_q[1:0] ^ 2'd1];
    d_lng      = lng_r_q;
    if (fw_a_q) begin
      d_v      = g_v;
      // the expected channel after the beat ahead: unchanged if refused (or none if it
      // ended the wait), its own channel (| 1 when line 1 follows) if it began a line
      d_eq_exp = (e_acc_q && !e_v_q.l1) ? (g_tol1 ? f_ch1_q : f_ch_q) : f_vexp_q;
      d_eq_skp = g_mark ? fp_ch_q : (!e_skhit_q && !e_acc_q && e_ab0_q) ? fp_vchan_q
               : fp_vsk_q;
      if (g_hs && fs_c_q)      d_busy_c = !e_cbad_q;
      if (g_hs && fs_p_q)      d_busy_p = !e_cbad_q;
      if (g_lng_wr && fs_pair_q) d_lng  = e_v_q.l1;
    end
    d_startch  = d_v.l1 ? d_v.chan : s1_ch_q;
    d_conflict = d_v.act && !d_eq_exp;
    d_skip_hit = d_v.sk_on && s1_desc_q && s1_ch_q[0] && d_eq_skp;
    d_busy     = d_busy_c || (s1_ch_q[0] && d_busy_p && d_lng);
    d_acc      = s1_ok_q && !d_busy && !d_conflict && !d_skip_hit;
    d_mnew     = d_v.mask | s1_mask_q;
    d_full     = (d_mnew == '1);
    // line-0 fields: this beat's where it carries their word, else the page's (for the
    // checks, which matter only for line 0, the word alone selects)
    d_fa_b     = s1_mask_q[WD_A] ? s1_fa_q : d_v.fa;
    d_fb_b     = s1_mask_q[WD_B] ? s1_fb_q : d_v.fb;
    d_fa       = (!d_v.l1 && s1_mask_q[WD_A]) ? s1_fa_q : d_v.fa;
    d_fb       = (!d_v.l1 && s1_mask_q[WD_B]) ? s1_fb_q : d_v.fb;
    d_fd       = (!d_v.l1 && s1_mask_q[WD_D]) ? s1_fd_q : d_v.fd;
    d_bad      = d_fa_b.zero
              || d_fa_b.over
              || (d_fb_b.inl && d_fa_b.gt32)
              || (d_fb_b.inl && d_fa_b.gt8 && !d_fb_b.lng)
              || (d_fb_b.lng && s1_ch_q[0])
              || (d_fb_b.lng && d_busy_p)                // c even: partner = c+1
              || (s1_ch_q[CW-1] && (d_fb_b.inl || d_fb_b.nt));   // a read channel (D7)
  end

  always_ff @(posedge clk) begin
    if (rst) e_valid_q <= 1'b0;
    else     e_valid_q <= s1_valid_q;
  end

  always_ff @(posedge clk) begin
    if (s1_valid_q) begin
      e_acc_q     <= d_acc;
      e_last_q    <= s1_last_q;
      e_desc_q    <= s1_desc_q;
      e_id_q      <= s1_id_q;
      e_page_q    <= s1_page_q;
      e_ch_q      <= s1_ch_q;
      e_v_q       <= d_v;
      e_mnew_q    <= d_mnew;
      e_full_q    <= d_full;
      e_fa_q      <= d_fa;
      e_fb_q      <= d_fb;
      e_fd_q      <= d_fd;
      e_cstart_q  <= d_full && (d_v.l1 || (!d_bad && !d_fb_b.lng));
      e_cbad_q    <= d_full && !d_v.l1 && d_bad;
      e_skhit_q   <= d_skip_hit;
      e_ab0_q     <= d_v.l1 && s1_desc_q && d_eq_exp;
      e_markr_q   <= s1_desc_q && !s1_ch_q[0] && s1_cl_q;
      e_cw_q      <= s1_cw_q;
      e_skfh_q    <= ((d_v.sk_mask | s1_cw_q) == '1);
      e_skfa_q    <= ((d_v.mask | s1_cw_q) == '1);
      e_startch_q <= d_startch;
      e_extok_q   <= s1_ext_q && !ext_wr_err;
      e_lane_q    <= s1_lane_q;
      e_data_q    <= s1_data_q;
      e_strb_q    <= s1_strb_q;
    end
  end

  // external register write (W1)
  assign ext_wr_en   = s1_valid_q && s1_ext_q;
  assign ext_wr_addr = s1_eaddr_q;
  assign ext_wr_data = s1_edata_q;

  // ------------------------------------------------------------------ W2: outputs
  assign host_set      = g_hs;
  assign host_ch       = {e_page_q, e_startch_q};
  assign host_err      = e_cbad_q;
  assign host_ch_ahead = {n_page_q, n_ch_q};     // a bad descriptor's channel is its beat's

  // transfer table: the beat's bytes at their place in the row of channels 2k, 2k+1
  assign tt_wr_en   = g_acc;
  assign tt_wr_row  = 10'((32'(e_page_q) * CH_PER_PAGE + 32'(e_ch_q)) >> 1);   // xfer >> 1
  assign tt_wr_be   = 64'(e_strb_q) << (DB * e_lane_q);
  assign tt_wr_data = {LANES{e_data_q}};

  // Benchmark mode: every descriptor that starts gets its stamp, {BENCH.en, the cycle
  // count}, in the same row (a long descriptor's last beat may be line 1's: the row holds
  // both lines); the table's word enables could not write the three bytes alone.
  logic [STAMP_W-1:0] now_q;      // cycle count (docs/fabric.md "Benchmark mode")
  always_ff @(posedge clk) now_q <= rst ? '0 : now_q + STAMP_W'(1);
  assign st_wr_en   = g_start;
  assign st_wr_half = e_startch_q[0];
  assign st_wr_data = {cfg_bench, now_q};

  assign desc_ok  = g_start;
  assign desc_err = g_beat_err;

  // ------------------------------------------------------------------ B responses
  typedef struct packed {
    logic [ID_W-1:0] id;
    logic            err;    // SLVERR
  } b_t;

  logic burst_err_q;
  logic b_s_ready;
  b_t   b_out;

  always_ff @(posedge clk) begin
    if (e_valid_q) burst_err_q <= !e_last_q && (burst_err_q || g_beat_err);
    if (rst)       burst_err_q <= 1'b0;
  end

  // wready looks three beats ahead: it is registered from the FIFO's count of t - 1, and
  // a beat taken in t is pushed in t+2
  /* verilator lint_off PINCONNECTEMPTY */  // count: not used (almost_full paces wready)
  qrdma_sync_fifo #(.WIDTH($bits(b_t)), .DEPTH(B_DEPTH), .ALMOST_FULL(B_DEPTH - 3)) u_b_fifo (
    .clk, .rst,
    .s_valid (e_valid_q && e_last_q),
    .s_ready (b_s_ready),
    .s_data  (b_t'{id: e_id_q, err: burst_err_q || g_beat_err}),
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
    logic           hold;
    logic           start;
    logic [3:0]     prio;
    logic [DLW-1:0] dlo;
  } new_t;

  new_t new_in, new_out;
  logic new_s_ready;

  assign new_in = '{xfer: XW'(e_page_q * CH_PER_PAGE) + XW'(e_startch_q), size: e_fa_q.size,
                    inl: e_fb_q.inl, mp: e_fb_q.mp, hold: e_fb_q.hold, start: e_fb_q.start,
                    prio: e_fa_q.prio, dlo: e_fd_q.dlo};

  /* verilator lint_off PINCONNECTEMPTY */  // count: not used (almost_full paces wready)
  // the head in a register: the engine's new-transfer port comes from flops
  qrdma_sync_fifo #(.WIDTH($bits(new_t)), .DEPTH(NEW_FIFO_DEPTH),
                    .ALMOST_FULL(NEW_FIFO_DEPTH - 3), .HEAD_REG(1'b1)) u_new_fifo (
    .clk, .rst,
    .s_valid (g_start),
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
  assign new_dst_lo    = new_out.dlo;
  assign new_inline    = new_out.inl;
  assign new_multipath = new_out.mp;
  assign new_prio      = new_out.prio;
  assign new_hold      = new_out.hold;
  assign new_start     = new_out.start;

`ifndef SYNTHESIS
  // The B and new-transfer FIFOs always have room (wready looks two beats ahead).
  always_ff @(posedge clk) begin
    // each check nested under its valid, so that idle cycles cost one test (docs/sim.md)
    if (e_valid_q)
      if (!rst && e_last_q) assert (b_s_ready) else $error("qrdma_host_wr: B FIFO overflow");
    if (g_start)
      if (!rst) assert (new_s_ready) else $error("qrdma_host_wr: new-transfer FIFO overflow");
    if (w_hs)
      if (!rst) assert (s_axi_wlast == n_last_q)
        else $warning("qrdma_host_wr: WLAST does not match AWLEN (beats counted from AWLEN)");
  end
`endif

endmodule

`default_nettype wire
