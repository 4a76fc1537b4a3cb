// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_host_if: the AXI4 slave of the QoS engine (seed 000 §3.6; behaviour: docs/qos.md
// "Descriptors and their acceptance" and "Host port"; address map: docs/formats.md).
// Writes carry transfer descriptors: every accepted beat is written straight into the
// transfer table with byte enables; per page, only the line being assembled is tracked
// (its 8-byte word mask, its channel, and the few fields the checks and the scheduler
// need: size, prio, inline, multipath, long). Reads return the single / collective
// status (reset-on-read, qrdma_status_regs) and the engine registers.
//
// Write pipeline (no stall inside; one beat per cycle sustained):
//   AW  -> AW FIFO (qrdma_sync_fifo); the W beat is taken once its burst is the FIFO head
//          (the first W beat comes at least one cycle after its AW).
//   W0  cycle of the W handshake: beat address, static checks, field extraction -> regs.
//   W1  next cycle: status and page-state checks, decision. In this cycle: tt_wr_* is
//       driven (the table writes at the end of W1), the page state and the counters are
//       updated, the new-transfer FIFO and the B FIFO are pushed.
//   W2  the status update (BUSY / ERROR) is applied at the end of this cycle (it is
//       registered, and forwarded to the W1 decision of the next beat).
//   An accepted beat is 8 << AWSIZE bytes, aligned, with exactly those strobes (R1, R3,
//   R4): tt_wr_be enables whole aligned 8-byte words (qrdma_qos_engine relies on it).
//   The logic of W0 and W1 is evaluated only while a beat is in that stage (in the
//   always_ff under w_hs, and under s1_valid_q), as is the read mux (under r_go).
//   W beat (handshake in cycle t) -> tt_wr_en in t+1 -> new_valid in t+2 (NEW_FIFO_DEPTH
//   < 64: a register FIFO; from 64 on it is block RAM, +1 cycle) (for the beat that
//   completes a descriptor) and bvalid in t+2 at the earliest (last beat of the burst);
//   a status read performed in t+3 or later sees BUSY / ERROR. The engine's st_valid for
//   a transfer must come after the cycle of its new_valid/new_ready handshake.
//   wready = AW FIFO not empty && B FIFO and new FIFO not almost full: all registered, so
//   nothing combinational runs from bready or new_ready to awready / wready.
//
// A write beat is REFUSED (its burst gets SLVERR, nothing is written, nothing changes):
//   R1 AWSIZE below 8 bytes or above the bus width      R2 AWBURST not INCR
//   R3 beat address not aligned to AWSIZE (only the first beat of a burst can be)
//   R4 WSTRB not exactly the bytes the beat addresses
//   R5 address not a write channel's descriptor line (read channel 64..127, single or
//      collective status, registers, unmapped)
//   R6 channel c BUSY, or c odd and c-1 BUSY with a long descriptor
//   R7 the page is assembling a line of another channel (line 0 of c, or line 1 of a
//      long descriptor at c-1, expected in c)
//   R8 c = e+1 and the page expects line 1 of a refused long descriptor of channel e
// A long descriptor is accepted or refused as a whole: when its line 0 (even channel e) is
// refused -- a refused beat that carries long_desc = 1, or a bad descriptor with long --,
// or a beat of its line 1 is refused, the page refuses the beats of line 1 in e+1 (R8)
// until that line's four words have come or a beat of the page is accepted (the "skip"
// record of the page, docs/qos.md "Host port: precise rules"). What a refused beat carries
// is read from its strobes: lane k of a beat at address A is byte (A mod 32) - (A mod DB)
// + k of its line (INCR bursts only; a beat of another burst type carries nothing).
// An accepted beat that completes line 0 has its descriptor checked; a BAD descriptor
// (D1 size 0, D2 size > 2^32, D3 inline with size > 32, D4 inline with size 9..32 without
// long, D5 long in an odd channel, D6 long while c+1 is BUSY) gets SLVERR for its burst
// and ERROR in the status of c (error reason ERR_BAD_DESC), and is not started. A good
// short descriptor starts in W1 (status BUSY, new-transfer push); a good long one starts
// when its line 1 (channel c+1) is complete. A beat that rewrites a word of the line
// being assembled is accepted (the word's new value counts). A line left incomplete keeps
// its page: every other line of the page is refused (R7) until it is completed (no
// timeout); a refused beat of line 1 ends the wait for it (R8 above). WLAST is not used:
// bursts are counted from AWLEN (a mismatch is reported in simulation).
// CNT_DESC_OK counts started descriptors, CNT_DESC_ERR every refused beat plus every
// bad descriptor (at most one per beat). Every counter (these and ev[6:0]) counts an event
// of cycle t at the end of t+1 (the events are registered first).
//
// Error reasons: a 1024 x 4-bit LUT RAM (qrdma_mem_2w: host port and engine write in the
// same cycle) holds the ERR_* reason of each write channel's last ERROR, written with the
// status (ERR_BAD_DESC by the host port, st_reason by the engine), read at ERR_OFFSET.
//
// Read path: AR -> AR FIFO -> one beat per cycle into the R output register when it is
// empty or being emptied. A beat reads (and resets) the status in the cycle it is loaded
// into the R register, one cycle before it is visible on R: AR handshake in t -> rvalid
// in t+2. 64-bit reads only (ARSIZE = 3, INCR, address 8-aligned) of the single status,
// the collective status, the error reasons and the registers; anything else gets SLVERR
// with data 0. The 64-bit value is replicated on every 64-bit lane of RDATA.
// The register window is REG_BASE + 0 .. 127 (the QoS engine's registers).
//
// External register window REG_BASE + NIC_REG_FIRST .. REG_BASE + EXT_SPAN - 1 (the NIC's
// registers, qrdma_nic_regs): 64-bit reads and writes only (AxSIZE 3, INCR, 8-aligned,
// WSTRB all 8 bytes of the word), forwarded on the ext_* port. A read drives ext_rd_addr
// in the cycle it is loaded into the R register (ext_rd_data / ext_rd_err are sampled
// combinationally then); a write drives ext_wr_en for one cycle in W1 with ext_wr_err
// sampled combinationally in the same cycle. ext_*_err (unmapped or read-only) and any
// other form of access to the window give SLVERR (a refused write is not forwarded).
// Register writes never touch descriptor state or the descriptor counters.
//
// After rst, AWREADY and ARREADY stay low until the status rows and the error reasons are
// cleared (512 cycles: the two reason-RAM ports clear one entry each per cycle).
`default_nettype none

module qrdma_host_if
  import qrdma_fmt_pkg::*;
#(
  parameter int unsigned DATA_W          = 256,   // AXI4 data width: 128 or 256
  parameter int unsigned ID_W            = 4,     // AXI4 ID width
  parameter int unsigned NEW_FIFO_DEPTH  = 8,     // new-transfer FIFO entries (>= 2)
  parameter int unsigned BLOCK_SIZE      = 65536, // engine block size (PARAMS register)
  parameter int unsigned MAX_OUTSTANDING = 2,     // engine blocks in flight (PARAMS register)
  parameter int unsigned CNT_W           = 48,    // bits of the event counters (read as 64)
  parameter int unsigned EXT_SPAN        = 4096,  // external register window: REG_BASE + NIC_REG_FIRST .. + EXT_SPAN - 1
  parameter logic [31:0] EXT_PARAMS      = '0,    // PARAMS register bits 63:32
  localparam int unsigned XW             = $clog2(NUM_CHANNELS),           // transfer index
  localparam int unsigned SZW            = $clog2(MAX_TRANSFER_BYTES) + 1  // transfer size
) (
  input  logic                clk,
  input  logic                rst,
  // AXI4 slave: write address
  input  logic [ID_W-1:0]     s_axi_awid,
  input  logic [ADDR_W-1:0]   s_axi_awaddr,
  input  logic [7:0]          s_axi_awlen,
  input  logic [2:0]          s_axi_awsize,
  input  logic [1:0]          s_axi_awburst,
  input  logic                s_axi_awvalid,
  output logic                s_axi_awready,
  // write data
  input  logic [DATA_W-1:0]   s_axi_wdata,
  input  logic [DATA_W/8-1:0] s_axi_wstrb,
  input  logic                s_axi_wlast,   // not used: beats are counted from AWLEN
  input  logic                s_axi_wvalid,
  output logic                s_axi_wready,
  // write response
  output logic [ID_W-1:0]     s_axi_bid,
  output logic [1:0]          s_axi_bresp,
  output logic                s_axi_bvalid,
  input  logic                s_axi_bready,
  // read address
  input  logic [ID_W-1:0]     s_axi_arid,
  input  logic [ADDR_W-1:0]   s_axi_araddr,
  input  logic [7:0]          s_axi_arlen,
  input  logic [2:0]          s_axi_arsize,
  input  logic [1:0]          s_axi_arburst,
  input  logic                s_axi_arvalid,
  output logic                s_axi_arready,
  // read data
  output logic [ID_W-1:0]     s_axi_rid,
  output logic [DATA_W-1:0]   s_axi_rdata,
  output logic [1:0]          s_axi_rresp,
  output logic                s_axi_rlast,
  output logic                s_axi_rvalid,
  input  logic                s_axi_rready,
  // external register port (offsets from REG_BASE, in the window NIC_REG_FIRST .. EXT_SPAN-1)
  output logic                ext_wr_en,     // one-cycle write strobe
  output logic [$clog2(EXT_SPAN)-1:0] ext_wr_addr,
  output logic [63:0]         ext_wr_data,
  input  logic                ext_wr_err,    // comb. from ext_wr_addr: unmapped / read-only
  output logic [$clog2(EXT_SPAN)-1:0] ext_rd_addr,
  input  logic [63:0]         ext_rd_data,   // comb. from ext_rd_addr
  input  logic                ext_rd_err,    // comb. from ext_rd_addr: unmapped
  // transfer-table write port: row = xfer >> 1 (channels 2k and 2k+1 in one 512-bit row)
  output logic                tt_wr_en,
  output logic [9:0]          tt_wr_row,
  output logic [63:0]         tt_wr_be,
  output logic [511:0]        tt_wr_data,
  // new transfers (descriptor complete, accepted and in the table)
  output logic                new_valid,
  input  logic                new_ready,
  output logic [XW-1:0]       new_xfer,      // page * 128 + c
  output logic [SZW-1:0]      new_size,      // 1 .. 2^32
  output logic                new_inline,
  output logic                new_multipath,
  output logic [3:0]          new_prio,
  // engine: transfer complete (BUSY -> DONE / ERROR)
  input  logic                st_valid,
  input  logic [9:0]          st_ch,         // page * 64 + c
  input  logic                st_err,
  input  logic [3:0]          st_reason,     // ERR_* of an ERROR completion (st_err)
  // engine events, one pulse each: 0 block issued, 1 inline packet, 2 control packet,
  // 3 ACK accepted, 4 NACK, 5 stale ACK dropped, 6 transfer done
  input  logic [6:0]          ev
);

  // ------------------------------------------------------------------ geometry
  localparam int unsigned DB       = DATA_W / 8;                   // bytes per beat
  localparam int unsigned LB       = $clog2(DB);                   // log2 DB
  localparam int unsigned PW       = $clog2(NUM_PAGES);            // page bits
  localparam int unsigned CW       = $clog2(WR_CH_PER_PAGE);       // write-channel bits
  localparam int unsigned PAGE_SH  = $clog2(PAGE_STRIDE);
  localparam int unsigned LINE_SH  = $clog2(DESC_LINE_BYTES);
  localparam int unsigned NWORD    = DESC_LINE_BYTES / 8;          // 8-byte words per line
  localparam int unsigned TT_ROW_B = 2 * DESC_LINE_BYTES;          // bytes per table row
  localparam int unsigned ROW_CH   = STATUS_SINGLE_W / 2;          // channels per status row
  localparam int unsigned SW       = $clog2(ROW_CH);
  localparam int unsigned GW       = $clog2(WR_CH_PER_PAGE / ROW_CH);
  localparam int unsigned B_DEPTH  = 4;                            // B FIFO
  localparam int unsigned AW_DEPTH = 4;                            // AW FIFO
  localparam int unsigned AR_DEPTH = 2;                            // AR FIFO
  // the words of line 0 that hold the accumulated fields
  localparam int unsigned WD_A     = DESC_LINE0_SIZE_LSB / 64;     // size, prio
  localparam int unsigned WD_B     = DESC_LINE0_IS_INLINE_LSB / 64;   // inline, multipath, long
  localparam int unsigned LONG_BYTE = DESC_LINE0_LONG_DESC_LSB / 8;   // byte of long_desc in line 0
  localparam logic [1:0]  S_BUSY   = 2'(ST_BUSY);
  localparam logic [1:0]  BURST_INCR = 2'b01;
  localparam logic [1:0]  RESP_OKAY  = 2'b00;
  localparam logic [1:0]  RESP_SLVERR = 2'b10;
  localparam int unsigned NCNT     = 9;  // CNT_DESC_OK, CNT_DESC_ERR, ev[6:0]

`ifndef SYNTHESIS
  function automatic bit one_word(input int unsigned lsb, input int unsigned w,
                                  input int unsigned word);
    return (lsb / 64 == word) && ((lsb + w - 1) / 64 == word);
  endfunction
  initial begin
    if (DATA_W != 128 && DATA_W != 256)
      $fatal(1, "qrdma_host_if: DATA_W must be 128 or 256");
    if (ID_W < 1) $fatal(1, "qrdma_host_if: ID_W must be >= 1");
    if (NEW_FIFO_DEPTH < 2) $fatal(1, "qrdma_host_if: NEW_FIFO_DEPTH must be >= 2");
    if (CNT_W < 1 || CNT_W > 64) $fatal(1, "qrdma_host_if: CNT_W must be in 1..64");
    if (BLOCK_SIZE < 1 || (BLOCK_SIZE & (BLOCK_SIZE - 1)) != 0)
      $fatal(1, "qrdma_host_if: BLOCK_SIZE must be a power of 2");
    if (MAX_OUTSTANDING > 255) $fatal(1, "qrdma_host_if: MAX_OUTSTANDING must fit 8 bits");
    if (DESC_LINE_BYTES != 32 || STATUS_SINGLE_W != 64 || NUM_CHANNELS != 2048)
      $fatal(1, "qrdma_host_if: built for 32-byte lines, 64-bit status rows, 2048 channels");
    if ((1 << PAGE_SH) != PAGE_STRIDE || NUM_PAGES * PAGE_STRIDE > REG_BASE
        || (1 << PW) != NUM_PAGES || (1 << CW) != WR_CH_PER_PAGE
        || NUM_PAGES * PAGE_STRIDE > (1 << ADDR_W) || REG_BASE >= (1 << ADDR_W))
      $fatal(1, "qrdma_host_if: address map is not a power-of-2 page layout");
    if ((DESC_OFFSET % (WR_CH_PER_PAGE * DESC_LINE_BYTES)) != 0
        || (STATUS_OFFSET % (WR_CH_PER_PAGE * 8)) != 0
        || (ERR_OFFSET % (WR_CH_PER_PAGE * 8)) != 0 || ERR_INFO_REASON_LSB != 0
        || (COLL_OFFSET % ((WR_CH_PER_PAGE / ROW_CH) * 8)) != 0
        || (REG_BASE % (1 << REG_SH)) != 0 || (DESC_OFFSET % TT_ROW_B) != 0
        || REG_CNT_DONE >= (1 << REG_SH) || REG_CNT_STALE >= (1 << REG_SH)
        || REG_CNT_NACK >= (1 << REG_SH) || REG_CNT_ACK >= (1 << REG_SH)
        || REG_CNT_CONTROL >= (1 << REG_SH) || REG_CNT_INLINE >= (1 << REG_SH)
        || REG_CNT_BLOCKS >= (1 << REG_SH) || REG_CNT_DESC_ERR >= (1 << REG_SH)
        || REG_CNT_DESC_OK >= (1 << REG_SH) || REG_PARAMS >= (1 << REG_SH)
        || REG_ID >= (1 << REG_SH) || NIC_REG_FIRST < (1 << REG_SH)
        || (1 << EXT_SH) != EXT_SPAN || EXT_SPAN <= NIC_REG_FIRST
        || (REG_BASE % EXT_SPAN) != 0 || (NIC_REG_FIRST % (1 << REG_SH)) != 0)
      $fatal(1, "qrdma_host_if: address regions must be aligned powers of 2");
    if (!one_word(DESC_LINE0_SIZE_LSB, DESC_LINE0_SIZE_W, WD_A)
        || !one_word(DESC_LINE0_PRIO_LSB, DESC_LINE0_PRIO_W, WD_A)
        || !one_word(DESC_LINE0_IS_INLINE_LSB, 1, WD_B)
        || !one_word(DESC_LINE0_MULTIPATH_LSB, 1, WD_B)
        || !one_word(DESC_LINE0_LONG_DESC_LSB, 1, WD_B))
      $fatal(1, "qrdma_host_if: accumulated fields must sit in two 8-byte words");
  end
`endif

  // ------------------------------------------------------------------ status registers
  logic                 st_ready;
  logic [PW+GW-1:0]     sr_chk_row;
  logic [2*ROW_CH-1:0]  sr_chk_st;
  logic                 hs_valid_q, hs_err_q;    // W2: status update of the W1 decision
  logic [PW+CW-1:0]     hs_ch_q;
  logic                 sr_rd_valid, sr_rd_single;
  logic [PW+GW-1:0]     sr_rd_row;
  logic [SW-1:0]        sr_rd_sel;
  logic [2*ROW_CH-1:0]  sr_rd_data;

  qrdma_status_regs u_status (
    .clk, .rst,
    .ready     (st_ready),
    .chk_row   (sr_chk_row),
    .chk_st    (sr_chk_st),
    .host_set  (hs_valid_q),
    .host_ch   (hs_ch_q),
    .host_err  (hs_err_q),
    .eng_valid (st_valid),
    .eng_ch    (st_ch),
    .eng_err   (st_err),
    .rd_valid  (sr_rd_valid),
    .rd_row    (sr_rd_row),
    .rd_single (sr_rd_single),
    .rd_sel    (sr_rd_sel),
    .rd_data   (sr_rd_data)
  );

  // ------------------------------------------------------------------ error reasons
  // ERR_* of each write channel's last ERROR (index page * 64 + c), written in the cycle
  // its status becomes ERROR: port A by the host port (a descriptor refused at
  // completion, W2), port B by the engine (st_err). The two never write one channel in one
  // cycle: the host port refuses descriptors only in channels that are not BUSY, the
  // engine completes only BUSY ones. After rst both ports clear the RAM (ports A and B an
  // entry each per cycle: ERR_N / 2 cycles), while AWREADY/ARREADY are low.
  localparam int unsigned ERR_N      = NUM_PAGES * WR_CH_PER_PAGE;
  localparam int unsigned EAW        = $clog2(ERR_N);
  localparam logic [3:0]  R_BAD_DESC = 4'(ERR_BAD_DESC);

  logic           ei_q;                  // clearing
  logic [EAW-2:0] ei_cnt_q;              // entry cleared by port A (port B: + ERR_N / 2)
  logic           host_ready;
  logic [EAW-1:0] err_rd_addr;
  logic [3:0]     err_rd_data;

  always_ff @(posedge clk) begin
    if (ei_q) begin
      ei_cnt_q <= ei_cnt_q + (EAW-1)'(1);
      if (ei_cnt_q == '1) ei_q <= 1'b0;
    end
    if (rst) begin
      ei_q     <= 1'b1;
      ei_cnt_q <= '0;
    end
  end

  assign host_ready = st_ready && !ei_q;

  qrdma_mem_2w #(.WIDTH(4), .DEPTH(ERR_N)) u_err_reason (
    .clk,
    .a_en    (ei_q || (hs_valid_q && hs_err_q)),
    .a_addr  (ei_q ? {1'b0, ei_cnt_q} : hs_ch_q),
    .a_data  (ei_q ? 4'(ERR_NONE) : R_BAD_DESC),
    .b_en    (ei_q || (st_valid && st_err)),
    .b_addr  (ei_q ? {1'b1, ei_cnt_q} : st_ch),
    .b_data  (ei_q ? 4'(ERR_NONE) : st_reason),
    .rd_addr (err_rd_addr),
    .rd_data (err_rd_data)
  );

  // ------------------------------------------------------------------ address decode
  typedef struct packed {
    logic          desc;    // descriptor line of a write channel
    logic          single;  // single status
    logic          coll;    // collective status
    logic          err;     // error reason
    logic          regs;    // register window
    logic          ext;     // external register window
    logic [PW-1:0] page;
    logic [CW-1:0] ch;      // channel (desc, single, err) or group (coll, low bits)
  } dec_t;

  // Every region is a power-of-2 span aligned to its size (checked at elaboration), so
  // the decode compares address bits with constants: no adders.
  localparam int unsigned PAGES_SH = $clog2(NUM_PAGES * PAGE_STRIDE);
  localparam int unsigned DESC_SH  = $clog2(WR_CH_PER_PAGE * DESC_LINE_BYTES);
  localparam int unsigned STAT_SH  = $clog2(WR_CH_PER_PAGE * 8);
  localparam int unsigned COLL_SH  = $clog2((WR_CH_PER_PAGE / ROW_CH) * 8);
  localparam int unsigned REG_SH   = 7;   // the register window: offsets 0 .. 127
  localparam int unsigned EXT_SH   = $clog2(EXT_SPAN);

  // (bits 2:0 never matter: every decoded item is 8-byte aligned)
  function automatic dec_t decode(input logic [ADDR_W-1:3] a);
    dec_t d;
    logic in_pages;
    d        = '0;
    in_pages = (a[ADDR_W-1:PAGES_SH] == '0);
    d.page   = a[PAGE_SH +: PW];
    d.regs   = (a[ADDR_W-1:REG_SH] == (ADDR_W-REG_SH)'(REG_BASE >> REG_SH));
    d.ext    = (a[ADDR_W-1:EXT_SH] == (ADDR_W-EXT_SH)'(REG_BASE >> EXT_SH))
            && (a[EXT_SH-1:REG_SH] >= (EXT_SH-REG_SH)'(NIC_REG_FIRST >> REG_SH));
    if (in_pages && a[PAGE_SH-1:DESC_SH] == (PAGE_SH-DESC_SH)'(DESC_OFFSET >> DESC_SH)) begin
      d.desc = 1'b1;
      d.ch   = a[DESC_SH-1:LINE_SH];
    end
    if (in_pages && a[PAGE_SH-1:STAT_SH] == (PAGE_SH-STAT_SH)'(STATUS_OFFSET >> STAT_SH)) begin
      d.single = 1'b1;
      d.ch     = a[STAT_SH-1:3];
    end
    if (in_pages && a[PAGE_SH-1:STAT_SH] == (PAGE_SH-STAT_SH)'(ERR_OFFSET >> STAT_SH)) begin
      d.err = 1'b1;
      d.ch  = a[STAT_SH-1:3];
    end
    if (in_pages && a[PAGE_SH-1:COLL_SH] == (PAGE_SH-COLL_SH)'(COLL_OFFSET >> COLL_SH)) begin
      d.coll = 1'b1;
      d.ch   = CW'(a[COLL_SH-1:3]);
    end
    return d;
  endfunction

  // ================================================================== write path
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

  // FIFO occupancy outputs that this block does not need are left open.
  /* verilator lint_off PINCONNECTEMPTY */
  qrdma_sync_fifo #(.WIDTH($bits(ax_t)), .DEPTH(AW_DEPTH)) u_aw_fifo (
    .clk, .rst,
    .s_valid (s_axi_awvalid && host_ready),
    .s_ready (aw_s_ready),
    .s_data  (aw_in),
    .m_valid (aw_valid),
    .m_ready (aw_pop),
    .m_data  (aw),
    .count   (),
    .almost_full ()
  );
  /* verilator lint_on PINCONNECTEMPTY */
  assign s_axi_awready = aw_s_ready && host_ready;

  // ------------------------------------------------------------------ W0: handshake
  logic              b_af, new_af;
  logic              w_hs;
  logic [7:0]        wbeat_q;
  logic [ADDR_W-1:0] waddr_q, w_cur;
  logic [7:0]        w_nbytes;
  logic              w_last;

  assign s_axi_wready = aw_valid && !b_af && !new_af;
  assign w_hs         = s_axi_wvalid && s_axi_wready;
  assign w_cur        = (wbeat_q == '0) ? aw.addr : waddr_q;
  assign w_nbytes     = 8'(1) << aw.size;
  assign w_last       = (wbeat_q == aw.len);
  assign aw_pop       = w_hs && w_last;

  always_ff @(posedge clk) begin
    if (w_hs) wbeat_q <= w_last ? '0 : wbeat_q + 8'd1;
    if (rst)  wbeat_q <= '0;
  end
  // next beat: aligned to the size, then + size (INCR; other bursts are refused anyway)
  always_ff @(posedge clk) begin
    if (w_hs) waddr_q <= (w_cur & ~ADDR_W'(w_nbytes - 8'd1)) + ADDR_W'(w_nbytes);
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

  // W0: the static checks, the decode and the beat's place in the line are evaluated
  // only in the cycle of a W handshake (here, under w_hs)
  always_ff @(posedge clk) begin
    if (w_hs) begin : w0
      // the write side needs only desc / ext, page and channel (single, coll, regs: R5)
      /* verilator lint_off UNUSEDSIGNAL */
      dec_t          d;
      /* verilator lint_on UNUSEDSIGNAL */
      logic          strb_ok;   // R4: WSTRB is exactly the bytes the beat addresses
      logic          incr;
      logic [LINE_SH-1:0] slice;   // line byte of lane 0
      logic [NWORD-1:0]   full;    // 8-byte words of the beat with all strobes set
      d       = decode(w_cur[ADDR_W-1:3]);
      strb_ok = (s_axi_wstrb == DB'(((65'(1) << w_nbytes) - 65'(1)) << w_cur[LB-1:0]));
      incr    = (aw.burst == BURST_INCR);
      slice   = w_cur[LINE_SH-1:0] & ~LINE_SH'(DB - 1);
      for (int j = 0; j < int'(NWORD); j++)
        full[j] = (j < int'(DB / 8)) && (&s_axi_wstrb[(8 * j) % DB +: 8]);
      s1_desc_q  <= d.desc;
      s1_cw_q    <= incr ? NWORD'(full << slice[LINE_SH-1:3]) : '0;
      s1_cl_q    <= incr && (slice == LINE_SH'(LONG_BYTE - LONG_BYTE % DB))
                 && s_axi_wstrb[LONG_BYTE % DB]
                 && s_axi_wdata[DESC_LINE0_LONG_DESC_LSB % DATA_W];
      s1_ok_q    <= (aw.size >= 3'd3) && (aw.size <= 3'(LB))              // R1
                 && (aw.burst == BURST_INCR)                              // R2
                 && ((w_cur & ADDR_W'(w_nbytes - 8'd1)) == '0)            // R3
                 && strb_ok                                               // R4
                 && d.desc;                                               // R5
      // a register write of the external window: one aligned 64-bit word, exact strobes
      s1_ext_q   <= (aw.size == 3'd3) && (aw.burst == BURST_INCR) && (w_cur[2:0] == 3'd0)
                 && strb_ok && d.ext;
      s1_eaddr_q <= EXT_SH'(w_cur[EXT_SH-1:0]);
      s1_edata_q <= s_axi_wdata[64 * w_cur[LB-1:3] +: 64];
      s1_last_q  <= w_last;
      s1_id_q    <= aw.id;
      s1_page_q  <= d.page;
      s1_ch_q    <= d.ch;
      s1_mask_q  <= NWORD'(((9'(1) << w_nbytes[7:3]) - 9'd1) << w_cur[LINE_SH-1:3]);
      s1_lane_q  <= w_cur[LINE_SH:LB];
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
  // while active and lives in LUT RAM (no reset), read and written at the W1 page.
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
  // expected in 2 sk.pair + 1 and refused (R8). sk_act_q[p] in flops (reset), the rest in
  // LUT RAM, read and written at the W1 page like pg_mem. Independent of the line being
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

  // ------------------------------------------------------------------ W1: decision
  // Evaluated only when a beat is in W1 (s1_valid_q). In the other cycles the results are
  // 0 or unused: the page, table and long-flag writes, the new-transfer push and the
  // status update are all enabled by accept / start / desc_err, which are then 0.
  logic             line1, accept, complete, start, desc_err, to_line1, beat_err;
  logic             skip_hit, sk_mark, abandon, sk_wr, sk_act_n;
  sk_t              sk_n;
  logic [CW-1:0]    start_ch;
  logic [XW-1:0]    start_xfer;              // page * CH_PER_PAGE + channel
  logic [NWORD-1:0] mask_new;
  fa_t              fa;
  fb_t              fb;
  pg_t              pg;

  // status of c and of its partner c^1 at the start of the cycle (read in W1)
  assign sr_chk_row = {s1_page_q, s1_ch_q[CW-1 -: GW]};

  always_comb begin
    line1    = 1'b0;
    accept   = 1'b0;
    complete = 1'b0;
    start    = 1'b0;
    desc_err = 1'b0;
    to_line1 = 1'b0;
    beat_err = 1'b0;
    skip_hit = 1'b0;
    sk_mark  = 1'b0;
    abandon  = 1'b0;
    sk_wr    = 1'b0;
    sk_act_n = 1'b0;
    sk_n     = '0;
    start_ch = s1_ch_q;
    mask_new = '0;
    fa       = '0;
    fb       = '0;
    pg       = '0;
    if (s1_valid_q) begin : w1
      automatic logic          fwd_row, act, busy, conflict, bad, lng_rd, sk_on;
      automatic logic [1:0]    st_c, st_p, hs_code;
      automatic logic [15:0]   lng_word;
      automatic logic [CW-1:0] expect_ch;
      automatic sk_t           sk;
      pg       = pg_t'(pg_mem[s1_page_q]);
      sk       = sk_t'(sk_mem[s1_page_q]);
      sk_on    = sk_act_q[s1_page_q];
      lng_word = lng_mem[lng_addr[LNG_W-1:4]];
      lng_rd   = lng_word[lng_addr[3:0]];
      // the status of c and c^1, plus the update of the previous decision that the status
      // registers apply at the end of this cycle
      fwd_row  = hs_valid_q && (hs_ch_q[PW+CW-1:SW] == sr_chk_row);
      hs_code  = hs_err_q ? 2'(ST_ERROR) : S_BUSY;
      st_c = (fwd_row && hs_ch_q[SW-1:0] == s1_ch_q[SW-1:0]) ? hs_code
           : sr_chk_st[2*s1_ch_q[SW-1:0] +: 2];
      st_p = (fwd_row && hs_ch_q[SW-1:0] == (s1_ch_q[SW-1:0] ^ SW'(1))) ? hs_code
           : sr_chk_st[2*(s1_ch_q[SW-1:0] ^ SW'(1)) +: 2];            // partner c^1

      act       = pg_act_q[s1_page_q];
      line1     = act && pg.line1;
      expect_ch = line1 ? (pg.chan | CW'(1)) : pg.chan;
      busy      = (st_c == S_BUSY) || (s1_ch_q[0] && st_p == S_BUSY && lng_rd);   // R6
      conflict  = act && (s1_ch_q != expect_ch);                                   // R7
      skip_hit  = sk_on && s1_desc_q && (s1_ch_q == {sk.pair, 1'b1});              // R8
      accept    = s1_ok_q && !busy && !conflict && !skip_hit;
      mask_new  = (act ? pg.mask : '0) | s1_mask_q;
      complete  = accept && (mask_new == '1);

      // line-0 fields: this beat's where it carries their word, else the page's
      fa = (!line1 && s1_mask_q[WD_A]) ? s1_fa_q : pg.fa;
      fb = (!line1 && s1_mask_q[WD_B]) ? s1_fb_q : pg.fb;

      bad = fa.zero                                   // D1
         || fa.over                                   // D2
         || (fb.inl && fa.gt32)                       // D3
         || (fb.inl && fa.gt8 && !fb.lng)             // D4
         || (fb.lng && s1_ch_q[0])                    // D5
         || (fb.lng && st_p == S_BUSY);               // D6 (c even: partner = c+1)

      desc_err = complete && !line1 && bad;
      to_line1 = complete && !line1 && !bad && fb.lng;
      start    = complete && (line1 || (!bad && !fb.lng));
      // a register write is not a descriptor beat: its only error is the register's own
      beat_err = (!accept && !(s1_ext_q && !ext_wr_err)) || desc_err;
      start_ch = line1 ? pg.chan : s1_ch_q;

      // skip record: a refused line 0 of a long descriptor in an even channel (a refused
      // beat carrying long_desc = 1, or a bad descriptor with long) starts it; a refused
      // beat of line 1 ends the wait for line 1 and starts it with the words seen
      sk_mark  = s1_desc_q && !s1_ch_q[0]
              && ((!accept && s1_cl_q) || (desc_err && fb.lng));
      abandon  = line1 && s1_desc_q && !accept && (s1_ch_q == expect_ch);
      sk_n     = sk;
      sk_act_n = 1'b0;
      if (sk_mark) begin
        sk_n.pair = s1_ch_q[CW-1:1];
        sk_n.mask = '0;
        sk_act_n  = 1'b1;
      end else if (skip_hit) begin
        sk_n.mask = sk.mask | s1_cw_q;
        sk_act_n  = (sk_n.mask != '1);
      end else if (abandon) begin
        sk_n.pair = pg.chan[CW-1:1];
        sk_n.mask = pg.mask | s1_cw_q;
        sk_act_n  = (sk_n.mask != '1);
      end else if (!accept) begin
        sk_act_n  = sk_on;
      end
      sk_wr = sk_mark || skip_hit || abandon;
    end
  end

  always_ff @(posedge clk) begin
    if (sk_wr) sk_mem[s1_page_q] <= sk_n;
  end
  always_ff @(posedge clk) begin
    if (rst)             sk_act_q <= '0;
    else if (s1_valid_q) sk_act_q[s1_page_q] <= sk_act_n;
  end

  // external register write (W1)
  assign ext_wr_en   = s1_valid_q && s1_ext_q && !ext_wr_err;
  assign ext_wr_addr = s1_eaddr_q;
  assign ext_wr_data = s1_edata_q;
  assign start_xfer  = XW'(s1_page_q * CH_PER_PAGE) + XW'(start_ch);

  always_ff @(posedge clk) begin
    if (accept) begin : pg_wr
      pg_t n;
      n.mask  = to_line1 ? '0 : mask_new;
      n.line1 = line1 || to_line1;
      n.chan  = line1 ? pg.chan : s1_ch_q;
      n.fa    = fa;
      n.fb    = fb;
      pg_mem[s1_page_q] <= n;
    end
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

  // long flag of a started descriptor's even channel (line1: it is long)
  always_ff @(posedge clk) begin
    if (start && !start_ch[0]) begin
      lng_mem[lng_addr[LNG_W-1:4]] <= lng_mem[lng_addr[LNG_W-1:4]]
        & ~(16'(1) << lng_addr[3:0]) | (16'(line1) << lng_addr[3:0]);
    end
  end

  // the status update is registered (W2): it leaves the status read -> decision -> status
  // write path of W1 and is forwarded to the next decision above (hs_ch_q / hs_err_q
  // only matter while hs_valid_q)
  always_ff @(posedge clk) begin
    if (rst) hs_valid_q <= 1'b0;
    else     hs_valid_q <= start || desc_err;
  end
  always_ff @(posedge clk) begin
    if (start || desc_err) begin
      hs_ch_q  <= {s1_page_q, start_ch};
      hs_err_q <= desc_err;
    end
  end

  // transfer table: the beat's bytes at their place in the row of channels 2k, 2k+1
  assign tt_wr_en   = accept;
  assign tt_wr_row  = 10'((32'(s1_page_q) * CH_PER_PAGE + 32'(s1_ch_q)) >> 1);   // xfer >> 1
  assign tt_wr_be   = 64'(s1_strb_q) << (DB * s1_lane_q);
  assign tt_wr_data = {(TT_ROW_B / DB){s1_data_q}};

  // ------------------------------------------------------------------ B responses
  logic burst_err_q;
  logic b_s_ready, b_m_err;

  always_ff @(posedge clk) begin
    if (s1_valid_q) burst_err_q <= !s1_last_q && (burst_err_q || beat_err);
    if (rst)        burst_err_q <= 1'b0;
  end

  // FIFO occupancy outputs that this block does not need are left open.
  /* verilator lint_off PINCONNECTEMPTY */
  qrdma_sync_fifo #(.WIDTH(ID_W + 1), .DEPTH(B_DEPTH), .ALMOST_FULL(B_DEPTH - 1)) u_b_fifo (
    .clk, .rst,
    .s_valid (s1_valid_q && s1_last_q),
    .s_ready (b_s_ready),
    .s_data  ({s1_id_q, burst_err_q || beat_err}),
    .m_valid (s_axi_bvalid),
    .m_ready (s_axi_bready),
    .m_data  ({s_axi_bid, b_m_err}),
    .count   (),
    .almost_full (b_af)
  );
  /* verilator lint_on PINCONNECTEMPTY */
  assign s_axi_bresp = b_m_err ? RESP_SLVERR : RESP_OKAY;

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

  // FIFO occupancy outputs that this block does not need are left open.
  /* verilator lint_off PINCONNECTEMPTY */
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

  // ------------------------------------------------------------------ counters
  logic [NCNT-1:0]  cnt_inc_q;

  // the events are registered first (a counter shows an event one cycle later): the W1
  // decision then drives 9 flops instead of the clock enables of the wide counters
  always_ff @(posedge clk) begin
    if (rst) cnt_inc_q <= '0;
    else     cnt_inc_q <= {ev, beat_err, start};
  end
  // one register per counter (gen_cnt[i].q), not an array: a simulator then updates only
  // the counters that count, with no per-element bookkeeping in every cycle
  for (genvar i = 0; i < int'(NCNT); i++) begin : gen_cnt
    logic [CNT_W-1:0] q;
    always_ff @(posedge clk) begin
      if (cnt_inc_q[i]) q <= q + CNT_W'(1);
      if (rst)          q <= '0;
    end
  end

  // ================================================================== read path
  ax_t  ar_in, ar;
  logic ar_valid, ar_pop, ar_s_ready;

  assign ar_in = '{id: s_axi_arid, addr: s_axi_araddr, len: s_axi_arlen,
                   size: s_axi_arsize, burst: s_axi_arburst};

  // FIFO occupancy outputs that this block does not need are left open.
  /* verilator lint_off PINCONNECTEMPTY */
  qrdma_sync_fifo #(.WIDTH($bits(ax_t)), .DEPTH(AR_DEPTH)) u_ar_fifo (
    .clk, .rst,
    .s_valid (s_axi_arvalid && host_ready),
    .s_ready (ar_s_ready),
    .s_data  (ar_in),
    .m_valid (ar_valid),
    .m_ready (ar_pop),
    .m_data  (ar),
    .count   (),
    .almost_full ()
  );
  /* verilator lint_on PINCONNECTEMPTY */
  assign s_axi_arready = ar_s_ready && host_ready;

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
  assign err_rd_addr = {r_cur[PAGE_SH +: PW], r_cur[3 +: CW]};   // channel (error reasons)

  // registers
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
      // the read side does not need `desc` (a descriptor address is not readable: SLVERR)
      /* verilator lint_off UNUSEDSIGNAL */
      dec_t        d;
      /* verilator lint_on UNUSEDSIGNAL */
      logic        reg_hit, ok;
      logic [63:0] reg_val;
      d       = decode(r_cur[ADDR_W-1:3]);
      reg_hit = 1'b1;
      reg_val = '0;
      unique case (r_cur[REG_SH-1:0])   // offset in the register window (d.regs)
        REG_SH'(REG_ID):           reg_val = id_val;
        REG_SH'(REG_PARAMS):       reg_val = params_val;
        REG_SH'(REG_CNT_DESC_OK):  reg_val = 64'(gen_cnt[0].q);
        REG_SH'(REG_CNT_DESC_ERR): reg_val = 64'(gen_cnt[1].q);
        REG_SH'(REG_CNT_BLOCKS):   reg_val = 64'(gen_cnt[2].q);
        REG_SH'(REG_CNT_INLINE):   reg_val = 64'(gen_cnt[3].q);
        REG_SH'(REG_CNT_CONTROL):  reg_val = 64'(gen_cnt[4].q);
        REG_SH'(REG_CNT_ACK):      reg_val = 64'(gen_cnt[5].q);
        REG_SH'(REG_CNT_NACK):     reg_val = 64'(gen_cnt[6].q);
        REG_SH'(REG_CNT_STALE):    reg_val = 64'(gen_cnt[7].q);
        REG_SH'(REG_CNT_DONE):     reg_val = 64'(gen_cnt[8].q);
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

`ifndef SYNTHESIS
  // The B and new-transfer FIFOs always have room (wready looks one beat ahead).
  always_ff @(posedge clk) begin
    // each check nested under its valid, so that idle cycles cost one test (docs/sim.md)
    if (s1_valid_q)
      if (!rst && s1_last_q) assert (b_s_ready) else $error("qrdma_host_if: B FIFO overflow");
    if (start)
      if (!rst) assert (new_s_ready) else $error("qrdma_host_if: new-transfer FIFO overflow");
    if (w_hs)
      if (!rst && (s_axi_wlast != w_last))
        $warning("qrdma_host_if: WLAST does not match AWLEN (beats counted from AWLEN)");
    if (st_valid)
      if (!rst) assert (!(hs_valid_q && st_ch == hs_ch_q))
        else $error("qrdma_host_if: st_valid for channel %0d in the cycle it becomes BUSY", st_ch);
  end
`endif

endmodule

`default_nettype wire
