// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_rx_track: the block tracker of the receive unit (docs/nic.md "Receive unit";
// [RSN] §3.2 registration by bitmask, duplicate drop). One table entry per tracking key
// ({src_node mod NUM_NODES, tid}): the block's seq, a bitmask of its packets written,
// their count, done, CONTROL seen, a write issued. For each lookup (in order) it decides
// whether the packet is written, taken, a duplicate or stale, whether it is the block's
// first write, and whether it completes the block (completion event, with a notification
// when due); the rules are in docs/nic.md. An opaque payload (PAY_W bits) travels with
// each lookup so the caller needs no pipeline of its own. Lookups with op TRK_NONE pass
// through in order without touching the table.
// After rst the table is cleared in NENT cycles (s_ready low).
// Pipeline, one lookup per cycle: t the lookup is taken and the table read; t+1 the read
// word goes into the table's output register; t+2 the entry is registered (writes made
// since the read are forwarded); t+3 the decision is offered (m_valid) and the entry
// written back in the cycle it is taken (m_ready).
`default_nettype none

module qrdma_rx_track
  import qrdma_pkg::*;
  import qrdma_rx_pkg::*;
#(
  parameter int unsigned  NENT         = 4096,  // tracking entries (NUM_NODES * 1024)
  parameter int unsigned  MAX_BLK_PKTS = 64,    // packets of a block (bits of the mask), 1..256
  parameter int unsigned  PAY_W        = 8,     // payload bits carried with each lookup
  localparam int unsigned EAW          = idx_w(NENT)
) (
  input  logic             clk,
  input  logic             rst,
  // lookups
  input  logic             s_valid,
  output logic             s_ready,
  input  trk_req_t         s_req,
  input  logic [PAY_W-1:0] s_pay,
  // decisions, in lookup order
  output logic             m_valid,
  input  logic             m_ready,
  output trk_req_t         m_req,
  output trk_dec_t         m_dec,
  output logic [PAY_W-1:0] m_pay
);

  localparam int unsigned CW = cnt_w(MAX_BLK_PKTS);
  localparam int unsigned IW = idx_w(MAX_BLK_PKTS);

`ifndef SYNTHESIS
  initial begin
    if (MAX_BLK_PKTS < 1 || MAX_BLK_PKTS > 256)
      $fatal(1, "qrdma_rx_track: MAX_BLK_PKTS must be in 1..256");
    if (NENT < 2 || EAW > KEYW) $fatal(1, "qrdma_rx_track: NENT must be in 2..2^KEYW");
  end
`endif

  typedef struct packed {
    logic                    valid;  // used since the sweep
    logic                    done;   // all packets of block seq written
    logic                    ctrl;   // the CONTROL naming block seq came
    logic                    wseen;  // a write of block seq was issued
    logic [15:0]             seq;
    logic [CW-1:0]           cnt;    // packets written
    logic [MAX_BLK_PKTS-1:0] mask;   // packets written, by pkt_idx
  } ent_t;

  // ------------------------------------------------------------------ table sweep
  logic           init_q;
  logic [EAW-1:0] init_idx_q;

  always_ff @(posedge clk) begin
    if (init_q) begin
      init_idx_q <= init_idx_q + EAW'(1);
      if (init_idx_q == EAW'(NENT - 1)) init_q <= 1'b0;
    end
    if (rst) begin
      init_q     <= 1'b1;
      init_idx_q <= '0;
    end
  end

  // ------------------------------------------------------------------ table
  // Stages: A the word read is in the RAM (taken the cycle before), B it is in the RAM's
  // output register, 2 the entry is registered and decided. Each stage waits only while
  // the next one holds a lookup that does not move.
  logic             take, a_valid_q, a_move, b_valid_q, b_move, s2_valid_q, s2_fire, tbl_we;
  logic             snoop, h1_hit, h2_hit;
  ent_t             ent_rd, ent_wr, ent1, ent2_q;
  logic [EAW-1:0]   key_a_q, key_b_q, key2_q;
  trk_req_t         r_a_q, r_b_q, r2_q;
  logic [PAY_W-1:0] p_a_q, p_b_q, p2_q;

  assign take = s_valid && s_ready;

  qrdma_sdp_ram #(.WIDTH($bits(ent_t)), .DEPTH(NENT), .OUT_REG(1'b1)) u_table (
    .clk,
    .wr_en(init_q || tbl_we), .wr_be(1'b1),
    .wr_addr(init_q ? init_idx_q : key2_q), .wr_data(init_q ? '0 : ent_wr),
    .rd_en(take), .rd_addr(EAW'(s_req.key)), .rd_oe(a_move), .rd_data(ent_rd)
  );

  // ------------------------------------------------------------------ stages A, B: entry
  // Only stage 2 writes, in the cycle its lookup leaves. Between a lookup's read (cycle
  // t, read-first) and its move into stage 2, the lookups ahead of it write: at most the
  // two that were in stage 2 and B at t before the move, and the one whose leaving is the
  // move itself. The entries of the last two lookups that left stage 2 are kept (h1 the
  // newest, h2 the one before: what they wrote, or the entry as it was when they wrote
  // nothing); the entry moving into stage 2 takes the newest of: the one leaving in this
  // cycle (snoop), h1, h2, the word read. A kept entry older than the read holds what the
  // table holds unless a newer one of the same key is kept too, which wins. (Keeping them
  // at every leave rather than at writes only keeps the decision out of the selects.)
  typedef struct packed {
    logic           v;
    logic [EAW-1:0] key;
    ent_t           ent;
  } hist_t;
  hist_t h1_q, h2_q;

  assign a_move  = a_valid_q && (!b_valid_q || b_move);
  assign b_move  = b_valid_q && (!s2_valid_q || s2_fire);
  assign s_ready = !init_q && (!a_valid_q || a_move);
  assign snoop   = s2_fire && key2_q == key_b_q;
  assign h1_hit  = h1_q.v && h1_q.key == key_b_q;
  assign h2_hit  = h2_q.v && h2_q.key == key_b_q;

  always_comb begin
    ent1 = ent_rd;
    if (h2_hit) ent1 = h2_q.ent;
    if (h1_hit) ent1 = h1_q.ent;
    if (snoop)  ent1 = ent_wr;
  end

  always_ff @(posedge clk) begin
    if (take) begin
      r_a_q   <= s_req;
      p_a_q   <= s_pay;
      key_a_q <= EAW'(s_req.key);
    end
    if (a_move) begin
      r_b_q   <= r_a_q;
      p_b_q   <= p_a_q;
      key_b_q <= key_a_q;
    end
    if (b_move) begin
      r2_q   <= r_b_q;
      p2_q   <= p_b_q;
      key2_q <= key_b_q;
      ent2_q <= ent1;
    end
    if (s2_fire) begin
      h1_q <= '{v: 1'b1, key: key2_q, ent: ent_wr};
      h2_q <= h1_q;
    end
    // in the process that writes the rest of h1/h2: a field driven from two processes
    // is two drivers in synthesis
    if (rst) begin
      h1_q.v <= 1'b0;
      h2_q.v <= 1'b0;
    end
  end

  always_ff @(posedge clk) begin
    if (take)         a_valid_q <= 1'b1;
    else if (a_move)  a_valid_q <= 1'b0;
    if (a_move)       b_valid_q <= 1'b1;
    else if (b_move)  b_valid_q <= 1'b0;
    if (b_move)       s2_valid_q <= 1'b1;
    else if (s2_fire) s2_valid_q <= 1'b0;
    if (rst) begin
      a_valid_q  <= 1'b0;
      b_valid_q  <= 1'b0;
      s2_valid_q <= 1'b0;
    end
  end

  // ------------------------------------------------------------------ stage 2: decide
  logic                    newer, same, older, bit_set, complete;
  logic [15:0]             sdiff;
  logic [IW-1:0]           idx;
  logic [8:0]              bp;
  logic [MAX_BLK_PKTS-1:0] onehot;
  trk_dec_t                d;

  assign sdiff   = r2_q.seq - ent2_q.seq;
  assign newer   = !ent2_q.valid || (sdiff != '0 && (ent2_q.done || !sdiff[15]));
  assign same    = ent2_q.valid && sdiff == '0;
  assign older   = !newer && !same;
  assign idx     = (r2_q.op == TRK_INLINE) ? '0 : IW'(r2_q.idx);
  assign bp      = (r2_q.op == TRK_INLINE) ? 9'd1 : r2_q.bp;
  assign bit_set = ent2_q.mask[idx];
  assign onehot  = MAX_BLK_PKTS'(1) << idx;

  // A block's completion event comes with the packet that completes it; the last block
  // of a notifying transfer (DATA with notify) also waits for its CONTROL, whichever of
  // the two comes second. An INLINE is a one-packet block with its own notify.
  always_comb begin
    d        = '0;
    complete = 1'b0;
    ent_wr   = ent2_q;
    unique case (r2_q.op)
      TRK_DATA, TRK_INLINE: begin
        if (newer) begin
          d.acc_wr      = 1'b1;
          d.first       = 1'b1;
          ent_wr        = '0;
          ent_wr.valid  = 1'b1;
          ent_wr.seq    = r2_q.seq;
          ent_wr.cnt    = CW'(1);
          ent_wr.mask   = onehot;
          ent_wr.wseen  = 1'b1;
          complete      = (bp == 9'd1);
          ent_wr.done   = complete;
        end else if (same && !bit_set) begin
          d.acc_wr      = 1'b1;
          d.first       = !ent2_q.wseen;
          ent_wr.cnt    = ent2_q.cnt + CW'(1);
          ent_wr.mask   = ent2_q.mask | onehot;
          ent_wr.wseen  = 1'b1;
          complete      = !ent2_q.done && (9'(ent2_q.cnt) + 9'd1 == bp);
          ent_wr.done   = ent2_q.done || complete;
        end else begin
          d.dup   = same;
          d.stale = older;
        end
        if (r2_q.op == TRK_INLINE) begin
          d.evt      = complete;
          d.ntf      = complete && r2_q.notify;
          d.ctl_keep = complete && r2_q.notify;
        end else begin
          d.evt = complete && (!r2_q.notify || (!newer && ent2_q.ctrl));
          d.ntf = complete && r2_q.notify;
        end
      end
      TRK_CONTROL: begin
        if (newer) begin
          d.acc_ctl     = 1'b1;
          d.ctl_keep    = 1'b1;
          ent_wr        = '0;
          ent_wr.valid  = 1'b1;
          ent_wr.seq    = r2_q.seq;
          ent_wr.ctrl   = 1'b1;
        end else if (same && !ent2_q.ctrl) begin
          d.acc_ctl     = 1'b1;
          d.ctl_keep    = 1'b1;
          ent_wr.ctrl   = 1'b1;
          d.evt         = ent2_q.done;   // the block is already complete
          d.ntf         = ent2_q.done;
        end else begin
          d.dup   = same;
          d.stale = older;
        end
      end
      default: ;  // TRK_NONE
    endcase
  end

  assign m_valid = s2_valid_q;
  assign s2_fire = m_valid && m_ready;
  assign tbl_we  = s2_fire && (d.acc_wr || d.acc_ctl);
  assign m_req   = r2_q;
  assign m_dec   = d;
  assign m_pay   = p2_q;

endmodule

`default_nettype wire
