// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_host_pkg: what the host port's write path (qrdma_host_wr), read path
// (qrdma_host_rd) and top (qrdma_host_if) share: the geometry of the address map, its
// decode, and the engine's event set ([QoS-RDMA] §3.6; address map: docs/formats.md).
`default_nettype none

/* verilator lint_off UNUSEDPARAM */  // not every constant is used by every user of the package
package qrdma_host_pkg;
  import qrdma_fmt_pkg::*;

  // ---------------------------------------------------------------- geometry
  localparam int unsigned PW      = $clog2(NUM_PAGES);                // page bits
  localparam int unsigned CW      = $clog2(CH_PER_PAGE);              // channel bits (write and read)
  localparam int unsigned PAGE_SH = $clog2(PAGE_STRIDE);              // page offset bits
  localparam int unsigned LINE_SH = $clog2(DESC_LINE_BYTES);          // line offset bits
  localparam int unsigned NWORD   = DESC_LINE_BYTES / 8;              // 8-byte words per line
  localparam int unsigned ROW_CH  = STATUS_SINGLE_W / 2;              // channels per status row
  localparam int unsigned SW      = $clog2(ROW_CH);                   // channel-in-row bits
  localparam int unsigned GW      = $clog2(CH_PER_PAGE / ROW_CH);     // row-in-page bits
  localparam int unsigned XW      = $clog2(NUM_CHANNELS);             // transfer index bits
  localparam int unsigned SZW     = $clog2(MAX_TRANSFER_BYTES) + 1;   // transfer size bits
  localparam int unsigned DLW     = qrdma_qos_pkg::DLW;  // dst_addr bits of a new transfer

  // Every region is a power-of-2 span aligned to its size (map_ok), so the decode
  // compares address bits with constants: no adders.
  localparam int unsigned PAGES_SH = $clog2(NUM_PAGES * PAGE_STRIDE);
  localparam int unsigned DESC_SH  = $clog2(CH_PER_PAGE * DESC_LINE_BYTES);
  localparam int unsigned STAT_SH  = $clog2(CH_PER_PAGE * 8);
  localparam int unsigned COLL_SH  = $clog2((CH_PER_PAGE / ROW_CH) * 8);
  localparam int unsigned REG_SH   = 7;   // the engine's register window: offsets 0 .. 127

  localparam logic [1:0] BURST_INCR  = 2'b01;
  localparam logic [1:0] RESP_OKAY   = 2'b00;
  localparam logic [1:0] RESP_SLVERR = 2'b10;

  // ---------------------------------------------------------------- address decode
  typedef struct packed {
    logic          desc;    // descriptor line of a channel (write or read)
    logic          single;  // single status
    logic          coll;    // collective status
    logic          err;     // error reason
    logic          regs;    // the engine's register window (REG_BASE + 0 .. 127)
    logic          ext;     // external register window (REG_BASE + NIC_REG_FIRST .. ext_span-1)
    logic [PW-1:0] page;
    logic [CW-1:0] ch;      // channel (desc, single, err) or group (coll, low bits)
  } dec_t;

  // What the 8-byte word at byte address {a, 3'b000} is. ext_span: the size of the
  // external register window's aligned span (a power of 2, a constant at every call).
  function automatic dec_t decode(input logic [ADDR_W-1:3] a, input int unsigned ext_span);
    dec_t              d;
    logic              in_pages;
    logic [ADDR_W-1:0] b, lo;
    d        = '0;
    b        = {a, 3'b000};
    lo       = ADDR_W'(ext_span - 1);
    in_pages = (a[ADDR_W-1:PAGES_SH] == '0);
    d.page   = a[PAGE_SH +: PW];
    d.regs   = (a[ADDR_W-1:REG_SH] == (ADDR_W-REG_SH)'(REG_BASE >> REG_SH));
    d.ext    = ((b & ~lo) == ADDR_W'(REG_BASE)) && ((b & lo) >= ADDR_W'(NIC_REG_FIRST));
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

  // The address map as decode() needs it (checked at elaboration by its users): 32-byte
  // lines, 64-bit status rows, 2048 channels, power-of-2 regions aligned to their size.
  // Register offsets are the register blocks' (regs/qrdma_regs.rdl; tests/test_regs.py).
  function automatic bit map_ok(input int unsigned ext_span);
    return DESC_LINE_BYTES == 32 && STATUS_SINGLE_W == 64 && NUM_CHANNELS == 2048
        && (1 << PAGE_SH) == PAGE_STRIDE && NUM_PAGES * PAGE_STRIDE <= REG_BASE
        && (1 << PW) == NUM_PAGES && (1 << CW) == CH_PER_PAGE
        && 2 * WR_CH_PER_PAGE == CH_PER_PAGE
        && NUM_PAGES * PAGE_STRIDE <= (1 << ADDR_W) && REG_BASE < (1 << ADDR_W)
        && (DESC_OFFSET % (CH_PER_PAGE * DESC_LINE_BYTES)) == 0
        && (STATUS_OFFSET % (CH_PER_PAGE * 8)) == 0
        && (ERR_OFFSET % (CH_PER_PAGE * 8)) == 0 && ERR_INFO_REASON_LSB == 0
        && (COLL_OFFSET % ((CH_PER_PAGE / ROW_CH) * 8)) == 0
        && (REG_BASE % (1 << REG_SH)) == 0 && (DESC_OFFSET % (2 * DESC_LINE_BYTES)) == 0
        && NIC_REG_FIRST >= (1 << REG_SH)
        && ext_span > 0 && (ext_span & (ext_span - 1)) == 0 && ext_span > NIC_REG_FIRST
        && (REG_BASE % ext_span) == 0 && (NIC_REG_FIRST % (1 << REG_SH)) == 0;
  endfunction

  // ---------------------------------------------------------------- engine events
  // One pulse each per cycle, counted by the host port's event counters.
  typedef struct packed {
    logic done;      // transfer done (CNT_DONE)
    logic stale;     // stale ACK dropped (CNT_STALE)
    logic nack;      // NACK received (CNT_NACK)
    logic ack;       // ACK accepted (CNT_ACK)
    logic control;   // control packet issued (CNT_CONTROL)
    logic inl;       // inline packet issued (CNT_INLINE)
    logic block;     // block issued (CNT_BLOCKS)
  } eng_ev_t;

endpackage
/* verilator lint_on UNUSEDPARAM */

`default_nettype wire
