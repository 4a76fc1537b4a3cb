// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_rx_prot: the window check of qrdma_rx (docs/protection.md). It holds the window
// table (PROT_WINDOWS entries: base, end, tag, protection domain, permissions, valid) and
// checks every packet header it is given: a DATA or INLINE packet passes when the window
// its remote key indexes (rkey >> RKEY_TAG_W) is valid, carries the key's tag, belongs to
// the packet's protection domain, permits remote writes, and holds every byte of the
// packet (base <= dst_addr and dst_addr + len <= base + length). Other packet types pass
// (they write nothing into this node's memory); with cfg_open every packet passes.
//
// Contract: s_valid with s_hdr (no backpressure, at most one per cycle) -> m_valid with
// m_ok exactly LAT = 3 cycles later, in order. A window write (win_we, a pulse) is in the
// table from the second cycle after it: a header given from then on sees the new entry.
// Pipeline: P0 the table read at the key's index (registered read), the packet's end and
// the key's fields registered; P1 the compares, each registered on its own; P2 their AND.
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
  input  logic        win_valid,
  // headers to check
  input  logic        s_valid,
  /* verilator lint_off UNUSEDSIGNAL */  // the check reads the type, address, length, pd and key
  input  net_hdr_t    s_hdr,
  /* verilator lint_on UNUSEDSIGNAL */
  output logic        m_valid,
  output logic        m_ok
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

  assign t_we = clr_q || tw_q;
  assign t_wa = clr_q ? clr_idx_q : tw_idx_q;
  assign t_wd = clr_q ? '0 : tw_q_d;

  qrdma_sdp_ram #(.WIDTH($bits(win_t)), .DEPTH(WINDOWS)) u_table (
    .clk,
    .wr_en(t_we), .wr_be(1'b1), .wr_addr(t_wa), .wr_data(t_wd),
    .rd_en(1'b1), .rd_addr(WAW'(s_hdr.rkey >> RKEY_TAG_W)), .rd_data(ent)
  );

  // the packet's fields beside the read
  logic                  v1_q, need1_q, idx_ok1_q, open1_q;
  logic [63:0]           a1_q;
  logic [64:0]           e1_q;
  logic [RKEY_TAG_W-1:0] tag1_q;
  logic [3:0]            pd1_q;

  always_ff @(posedge clk) begin
    v1_q      <= s_valid;
    need1_q   <= s_hdr.ptype == 4'(NET_DATA) || s_hdr.ptype == 4'(NET_INLINE);
    idx_ok1_q <= (s_hdr.rkey >> RKEY_TAG_W) < 32'(WINDOWS);
    open1_q   <= cfg_open;
    a1_q      <= s_hdr.dst_addr;
    e1_q      <= 65'(s_hdr.dst_addr) + 65'(s_hdr.len);
    tag1_q    <= s_hdr.rkey[RKEY_TAG_W-1:0];
    pd1_q     <= s_hdr.pd;
    if (rst) v1_q <= 1'b0;
  end

  // ------------------------------------------------------------------ P1: compare
  logic v2_q, pass2_q, ent2_q, lo2_q, hi2_q;

  always_ff @(posedge clk) begin
    v2_q    <= v1_q;
    pass2_q <= !need1_q || open1_q;
    ent2_q  <= idx_ok1_q && ent.valid && ent.wr && ent.tag == tag1_q && ent.pd == pd1_q;
    lo2_q   <= a1_q >= ent.base;
    hi2_q   <= e1_q <= ent.lim;
    if (rst) v2_q <= 1'b0;
  end

  // ------------------------------------------------------------------ P2: verdict
  always_ff @(posedge clk) begin
    m_valid <= v2_q;
    m_ok    <= pass2_q || (ent2_q && lo2_q && hi2_q);
    if (rst) m_valid <= 1'b0;
  end

endmodule

`default_nettype wire
