// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_rx_prot: the window check of qrdma_rx (docs/protection.md). It holds the window
// table (PROT_WINDOWS entries: base, end, tag, protection domain, permissions, valid) and
// checks every packet header it is given: a DATA, INLINE or READ_REQ packet passes when
// the window its remote key indexes (rkey >> RKEY_TAG_W) is valid, carries the key's tag,
// belongs to the packet's protection domain, permits what the packet does (remote write
// for DATA and INLINE, local write for a read response: DATA with resp set, remote read
// for a READ_REQ) and holds every byte it touches (base <= dst_addr and dst_addr + n <=
// base + length, n = len, or rd_size for a READ_REQ: its whole block). Other packet types
// pass (they neither write nor read this node's memory); with cfg_open every packet
// passes.
//
// Contract: s_valid with s_hdr (no backpressure, at most one per cycle) -> m_valid with
// m_ok exactly 4 cycles later, in order. A window write (win_we, a pulse) is in the
// table from the second cycle after it: a header given from then on sees the new entry.
// After rst the table is cleared in WINDOWS cycles; `ready` rises then (a window write
// before it may be lost).
// Pipeline: P0 the table read at the key's index, the packet's end and the key's fields
// registered; P1 the read word in the RAM's output register; P2 the compares, each
// 64/65-bit compare split in halves registered on their own; P3 their AND.
`default_nettype none

module qrdma_rx_prot
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
#(
  parameter int unsigned WINDOWS = 64,   // window table entries (power of 2, 2..65536)
  localparam int unsigned WAW    = idx_w(WINDOWS)
) (
  input  logic        clk,
  input  logic        rst,
  input  logic        cfg_open,        // development mode: every packet passes
  // window table write (WIN_CTRL)
  input  logic        win_we,
  input  logic [15:0] win_index,       // entries at or above WINDOWS are not written
  input  logic [63:0] win_base,
  input  logic [63:0] win_len,
  input  logic [RKEY_TAG_W-1:0] win_tag,
  input  logic [3:0]  win_pd,
  input  logic        win_wr,          // remote writes permitted
  input  logic        win_rd,          // remote reads permitted
  input  logic        win_lwr,         // local writes permitted (read responses)
  input  logic        win_valid,
  // headers to check
  input  logic        s_valid,
  /* verilator lint_off UNUSEDSIGNAL */  // the check reads the type, address, lengths, pd, key and resp
  input  net_hdr_t    s_hdr,
  /* verilator lint_on UNUSEDSIGNAL */
  output logic        m_valid,
  output logic        m_ok,
  output logic        ready            // the table is cleared: window writes are kept
);

`ifndef SYNTHESIS
  initial begin
    if (WINDOWS < 2 || WINDOWS > 65536 || (WINDOWS & (WINDOWS - 1)) != 0)
      $fatal(1, "qrdma_rx_prot: WINDOWS must be a power of 2 in 2..65536");
  end
`endif

  // One window: its end is base + length, one bit wider (a window may end at 2^64).
  typedef struct packed {
    logic                  valid;
    logic                  wr;
    logic                  rd;
    logic                  lwr;
    logic [3:0]            pd;
    logic [RKEY_TAG_W-1:0] tag;
    logic [64:0]           lim;
    logic [63:0]           base;
  } win_t;

  // ------------------------------------------------------------------ table write
  // The register write is taken into registers (with the end's sum) and written into the
  // table in the next cycle.
  logic           tw_q;
  logic [WAW-1:0] tw_idx_q;
  win_t           tw_q_d;

  always_ff @(posedge clk) begin
    tw_q          <= win_we && (32'(win_index) < WINDOWS);
    tw_idx_q      <= WAW'(win_index);
    tw_q_d.valid  <= win_valid;
    tw_q_d.wr     <= win_wr;
    tw_q_d.rd     <= win_rd;
    tw_q_d.lwr    <= win_lwr;
    tw_q_d.pd     <= win_pd;
    tw_q_d.tag    <= win_tag;
    tw_q_d.base   <= win_base;
    tw_q_d.lim    <= 65'(win_base) + 65'(win_len);
    if (rst) tw_q <= 1'b0;
  end

  // ------------------------------------------------------------------ P0: read
  // The table starts empty: every entry is written invalid after reset (one per cycle,
  // WINDOWS cycles; a packet checked meanwhile is refused, as by an empty table).
  logic           clr_q;
  logic [WAW-1:0] clr_idx_q;
  logic           t_we;
  logic [WAW-1:0] t_wa;
  win_t           t_wd, ent;

  qrdma_init_sweep #(.N(WINDOWS)) u_clear (.clk, .rst, .busy(clr_q), .idx(clr_idx_q));

  assign ready = !clr_q;

  assign t_we = clr_q || tw_q;
  assign t_wa = clr_q ? clr_idx_q : tw_idx_q;
  assign t_wd = clr_q ? '0 : tw_q_d;

  qrdma_sdp_ram #(.WIDTH($bits(win_t)), .DEPTH(WINDOWS), .OUT_REG(1'b1)) u_table (
    .clk,
    .wr_en(t_we), .wr_be(1'b1), .wr_addr(t_wa), .wr_data(t_wd),
    .rd_en(1'b1), .rd_addr(WAW'(s_hdr.rkey >> RKEY_TAG_W)), .rd_data(ent)
  );

  // the packet's fields beside the read; the permission it needs, one-hot (none: it
  // needs no window)
  logic                  v1_q, need1_q, idx_ok1_q, open1_q;
  logic                  pw1_q, pr1_q, pl1_q;   // needs write, read, local write
  logic [63:0]           a1_q;
  logic [64:0]           e1_q;
  logic [RKEY_TAG_W-1:0] tag1_q;
  logic [3:0]            pd1_q;

  always_ff @(posedge clk) begin
    v1_q      <= s_valid;
    need1_q   <= s_hdr.ptype == 4'(NET_DATA) || s_hdr.ptype == 4'(NET_INLINE)
                 || s_hdr.ptype == 4'(NET_READ_REQ);
    pw1_q     <= (s_hdr.ptype == 4'(NET_DATA) && !s_hdr.resp) || s_hdr.ptype == 4'(NET_INLINE);
    pl1_q     <= s_hdr.ptype == 4'(NET_DATA) && s_hdr.resp;
    pr1_q     <= s_hdr.ptype == 4'(NET_READ_REQ);
    idx_ok1_q <= (s_hdr.rkey >> RKEY_TAG_W) < 32'(WINDOWS);
    open1_q   <= cfg_open;
    a1_q      <= s_hdr.dst_addr;
    e1_q      <= 65'(s_hdr.dst_addr)
                 + ((s_hdr.ptype == 4'(NET_READ_REQ)) ? 65'(s_hdr[NET_HDR_RD_SIZE_LSB +: NET_HDR_RD_SIZE_W])
                                                    : 65'(s_hdr.len));
    tag1_q    <= s_hdr.rkey[RKEY_TAG_W-1:0];
    pd1_q     <= s_hdr.pd;
    if (rst) v1_q <= 1'b0;
  end

  // ------------------------------------------------------------------ P1: the word
  // (the table's output register); the packet's fields follow
  logic                  v2_q, pass2_q, idx_ok2_q, pw2_q, pr2_q, pl2_q;
  logic [63:0]           a2_q;
  logic [64:0]           e2_q;
  logic [RKEY_TAG_W-1:0] tag2_q;
  logic [3:0]            pd2_q;

  always_ff @(posedge clk) begin
    v2_q      <= v1_q;
    pass2_q   <= !need1_q || open1_q;
    idx_ok2_q <= idx_ok1_q;
    pw2_q     <= pw1_q;
    pr2_q     <= pr1_q;
    pl2_q     <= pl1_q;
    a2_q      <= a1_q;
    e2_q      <= e1_q;
    tag2_q    <= tag1_q;
    pd2_q     <= pd1_q;
    if (rst) v2_q <= 1'b0;
  end

  // ------------------------------------------------------------------ P2: compare
  // base <= a: a_hi > base_hi, or equal and a_lo >= base_lo; e <= lim likewise (halves
  // of 32 bits, the end's upper half 33)
  logic v3_q, pass3_q, ent3_q, a_gt_hi3_q, a_eq_hi3_q, a_ge_lo3_q, e_lt_hi3_q, e_eq_hi3_q,
        e_le_lo3_q;

  always_ff @(posedge clk) begin
    v3_q       <= v2_q;
    pass3_q    <= pass2_q;
    ent3_q     <= idx_ok2_q && ent.valid && ent.tag == tag2_q && ent.pd == pd2_q
                  && ((pw2_q && ent.wr) || (pr2_q && ent.rd) || (pl2_q && ent.lwr));
    a_gt_hi3_q <= a2_q[63:32] > ent.base[63:32];
    a_eq_hi3_q <= a2_q[63:32] == ent.base[63:32];
    a_ge_lo3_q <= a2_q[31:0] >= ent.base[31:0];
    e_lt_hi3_q <= e2_q[64:32] < ent.lim[64:32];
    e_eq_hi3_q <= e2_q[64:32] == ent.lim[64:32];
    e_le_lo3_q <= e2_q[31:0] <= ent.lim[31:0];
    if (rst) v3_q <= 1'b0;
  end

  // ------------------------------------------------------------------ P3: verdict
  logic lo_ok, hi_ok;

  assign lo_ok = a_gt_hi3_q || (a_eq_hi3_q && a_ge_lo3_q);
  assign hi_ok = e_lt_hi3_q || (e_eq_hi3_q && e_le_lo3_q);

  always_ff @(posedge clk) begin
    m_valid <= v3_q;
    m_ok    <= pass3_q || (ent3_q && lo_ok && hi_ok);
    if (rst) m_valid <= 1'b0;
  end

endmodule

`default_nettype wire
