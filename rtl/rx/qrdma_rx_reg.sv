// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_rx_reg: the receive-side registration table ([RSN] §3.2-§3.3;
// docs/registration.md). An operation is the blocks of one transfer; its key (KEY_W
// bits, opaque: the caller forms it) names it. Block events come in on s_*: a block of
// the operation is placed (every packet written, its write responses back). The event
// that carries the operation's block count and notification fields (s_first) registers
// it in the entry at hash(key) (of the key's low HASH_W bits, its channel): a
// MASK_W-bit mask, the block's bit set; an entry of another key of the same channel is an
// operation that is over (the caller starts one per channel at a time): it is freed and
// replaced (stat_replace). Every later
// event sets its block's bit; a bit set already is a duplicate and changes nothing.
// When every bit below the count is set, the operation's notification (key and fields)
// is offered on m_ntf, exactly once. Events of an unregistered operation wait in the
// escape channel (ESC_DEPTH records of key and block) until the registration, which
// replays them, or cfg_esc_timeout cycles, after which they are dropped. A lookup
// (s_ctl = 1: the operation's sender-driven completion has come) is answered on m_ctl
// (pulse: notified or not) and frees the operation's entry and escape records.
// Contract: an operation's registering event comes before its lookup, and no event
// registers it again after the lookup (the caller gives each block's event once);
// s_* is valid/ready (no item is ever dropped at the input); s_ready is low
// during the table's sweep after reset. Items are handled one at a time, in order, in
// five cycles each (and WORDS more for a lookup that frees an entry); an escape replay
// goes before the next input item. The caller takes m_ctl whenever it is valid.
`default_nettype none

module qrdma_rx_reg
  import qrdma_pkg::*;
#(
  parameter int unsigned KEY_W       = 32,    // operation key bits
  parameter int unsigned HASH_W      = KEY_W, // low key bits that place it (its channel)
  parameter int unsigned ENTRIES     = 256,   // table entries (power of 2, >= 2)
  parameter int unsigned MASK_W      = 256,   // blocks per operation (power of 2)
  parameter int unsigned INFO_W      = 128,   // notification fields kept per entry
  parameter int unsigned ESC_DEPTH   = 8,     // escape records (1..32)
  parameter int unsigned TS_W        = 16,    // escape timeout bits (cfg_esc_timeout)
  parameter int unsigned IN_DEPTH    = 4,     // input FIFO words
  parameter int unsigned NTF_DEPTH   = 4,     // notification FIFO words
  localparam int unsigned BW         = idx_w(MASK_W),   // block index bits
  localparam int unsigned CW         = cnt_w(MASK_W)    // block count bits
) (
  input  logic              clk,
  input  logic              rst,
  // cycles an escape record is kept (0: for ever), below 2^(TS_W-1) - ESC_DEPTH - 2
  input  logic [TS_W-1:0]   cfg_esc_timeout,
  // block events and lookups
  input  logic              s_valid,
  output logic              s_ready,
  input  logic              s_ctl,      // 1: lookup (sender-driven completion came)
  input  logic [KEY_W-1:0]  s_key,
  input  logic [BW-1:0]     s_blk,      // event: the block's index in its operation
  input  logic              s_first,    // event: registers (s_cnt, s_info valid)
  input  logic [CW-1:0]     s_cnt,      // blocks of the operation, 1..MASK_W
  input  logic [INFO_W-1:0] s_info,     // notification fields
  // receiver-side notifications
  output logic              m_ntf_valid,
  input  logic              m_ntf_ready,
  output logic [KEY_W-1:0]  m_ntf_key,
  output logic [INFO_W-1:0] m_ntf_info,
  // lookup answers (pulse)
  output logic              m_ctl_valid,
  output logic [KEY_W-1:0]  m_ctl_key,
  output logic              m_ctl_notified,  // 1: m_ntf gave the notification already
  output logic              busy,            // an input item queued or in hand, or a replay due
  // events (pulses)
  output logic              stat_reg,        // an operation registered
  output logic              stat_ntf,        // a notification offered
  output logic              stat_dup,        // a duplicate event dropped
  output logic              stat_late,       // an event of a notified operation dropped
  output logic              stat_bad,        // count 0 or > MASK_W, or block >= count
  output logic              stat_conflict,   // registration refused: entry taken
  output logic              stat_replace,    // an entry of the key's channel replaced
  output logic              stat_esc,        // an event put in the escape channel
  output logic              stat_esc_drop,   // an event dropped: escape channel full
  output logic              stat_esc_timeout // an escape record timed out
);

  localparam int unsigned EIW    = idx_w(ENTRIES);
  localparam int unsigned WORD_W = (MASK_W < 64) ? MASK_W : 64;   // mask bits per word
  localparam int unsigned WORDS  = MASK_W / WORD_W;
  localparam int unsigned WIW    = idx_w(WORDS);
  localparam int unsigned OW     = idx_w(WORD_W);                 // bit in its word
  localparam int unsigned MAW    = EIW + ((WORDS > 1) ? WIW : 0); // mask word address
  localparam int unsigned XW     = idx_w(ESC_DEPTH);
  localparam int unsigned IN_W   = 1 + KEY_W + BW + 1 + CW + INFO_W;
  localparam int unsigned META_W = 1 + 1 + KEY_W + CW + CW;  // valid, notified, key, cnt, rem

`ifndef SYNTHESIS
  initial begin
    if (ENTRIES < 2 || (ENTRIES & (ENTRIES - 1)) != 0)
      $fatal(1, "qrdma_rx_reg: ENTRIES must be a power of 2, >= 2");
    if (MASK_W < 2 || (MASK_W & (MASK_W - 1)) != 0)
      $fatal(1, "qrdma_rx_reg: MASK_W must be a power of 2, >= 2");
    if (ESC_DEPTH < 1 || ESC_DEPTH > 32) $fatal(1, "qrdma_rx_reg: ESC_DEPTH must be 1..32");
    if (TS_W < 8 || TS_W > 32) $fatal(1, "qrdma_rx_reg: TS_W must be 8..32");
  end
`endif

  // ---------------------------------------------------------------- input FIFO
  logic              in_valid, in_ready;
  logic [IN_W-1:0]   in_data;
  logic              f_ctl, f_first;
  logic [KEY_W-1:0]  f_key;
  logic [BW-1:0]     f_blk;
  logic [CW-1:0]     f_cnt;
  logic [INFO_W-1:0] f_info;
  logic              init;

  logic s_ready_f;
  /* verilator lint_off UNUSEDSIGNAL */  // the FIFOs' counts and almost_full: not used here
  logic [cnt_w(IN_DEPTH)-1:0]  in_count;
  logic [cnt_w(NTF_DEPTH)-1:0] ntf_count;
  logic                        in_af, ntf_af;
  /* verilator lint_on UNUSEDSIGNAL */
  qrdma_sync_fifo #(.WIDTH(IN_W), .DEPTH(IN_DEPTH)) u_in (
    .clk, .rst,
    .s_valid(s_valid && !init), .s_ready(s_ready_f),
    .s_data({s_ctl, s_key, s_blk, s_first, s_cnt, s_info}),
    .m_valid(in_valid), .m_ready(in_ready), .m_data(in_data),
    .count(in_count), .almost_full(in_af)
  );
  assign s_ready = s_ready_f && !init;
  assign {f_ctl, f_key, f_blk, f_first, f_cnt, f_info} = in_data;

  // ---------------------------------------------------------------- the item in hand
  typedef enum logic [2:0] {S_IDLE, S_RD, S_WAIT, S_CHK, S_ACT, S_CLR} state_e;
  state_e            st_q;
  logic              w_ctl_q, w_first_q;
  logic              again_q;   // S_CLR of a replaced entry: the item runs again
  logic [KEY_W-1:0]  w_key_q;
  logic [BW-1:0]     w_blk_q;
  logic [CW-1:0]     w_cnt_q;
  logic [INFO_W-1:0] w_info_q;
  logic [EIW-1:0]    w_idx_q;
  logic [WIW-1:0]    clr_q;     // S_CLR: the mask word cleared
  logic [WORD_W-1:0] sel_q;     // the block's bit in its mask word (one-hot, from S_RD on)
  logic              act_reg, act_set, act_esc, act_free, act_ntf;  // S_ACT's outcome
  logic              act_repl;  // S_ACT: the entry of the key's channel is freed, the item runs again
  logic              ntf_push, ntf_room;

  // the entry of a key: its low HASH_W bits folded by XOR into EIW bits
  /* verilator lint_off UNUSEDSIGNAL */  // the bits above HASH_W do not place a key
  function automatic logic [EIW-1:0] hash(input logic [KEY_W-1:0] k);
    logic [EIW-1:0] h;
    h = '0;
    for (int i = 0; i < int'(HASH_W); i++) h[i % int'(EIW)] ^= k[i];
    return h;
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  /* verilator lint_off UNUSEDSIGNAL */  // b's bit-in-word bits: not part of the address
  function automatic logic [MAW-1:0] word_addr(input logic [EIW-1:0] e, input logic [BW-1:0] b);
    if (WORDS > 1) return MAW'({e, b[BW-1 -: WIW]});
    else           return MAW'(e);
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // ---------------------------------------------------------------- memories
  logic               meta_we, mask_we, info_we;
  logic [EIW-1:0]     meta_waddr, info_waddr;
  logic [MAW-1:0]     mask_waddr;
  logic [META_W-1:0]  meta_wdata, meta_rd;
  logic [WORD_W-1:0]  mask_wdata, mask_rd;
  logic [INFO_W-1:0]  info_rd;
  logic               rd_en;
  logic [EIW-1:0]     rd_idx;
  logic [MAW-1:0]     rd_waddr;
  logic               sw_busy;
  logic [MAW-1:0]     sw_idx;

  assign rd_en    = (st_q == S_RD);
  assign rd_idx   = hash(w_key_q);
  assign rd_waddr = word_addr(rd_idx, w_blk_q);

  qrdma_sdp_ram #(.WIDTH(META_W), .DEPTH(ENTRIES), .OUT_REG(1'b1), .RDW_ANY(1'b1)) u_meta (
    .clk, .wr_en(meta_we), .wr_be(1'b1), .wr_addr(meta_waddr), .wr_data(meta_wdata),
    .rd_en, .rd_addr(rd_idx), .rd_oe(1'b1), .rd_data(meta_rd)
  );
  qrdma_sdp_ram #(.WIDTH(WORD_W), .DEPTH(ENTRIES * WORDS), .OUT_REG(1'b1), .RDW_ANY(1'b1)) u_mask (
    .clk, .wr_en(mask_we), .wr_be(1'b1), .wr_addr(mask_waddr), .wr_data(mask_wdata),
    .rd_en, .rd_addr(rd_waddr), .rd_oe(1'b1), .rd_data(mask_rd)
  );
  qrdma_sdp_ram #(.WIDTH(INFO_W), .DEPTH(ENTRIES), .OUT_REG(1'b1), .RDW_ANY(1'b1)) u_info (
    .clk, .wr_en(info_we), .wr_be(1'b1), .wr_addr(info_waddr), .wr_data(w_info_q),
    .rd_en, .rd_addr(rd_idx), .rd_oe(1'b1), .rd_data(info_rd)
  );

  // reads (S_RD) and writes (S_ACT, S_CLR, the sweep) never meet in a cycle: RDW_ANY

  // the sweep clears every mask word and entry after reset
  qrdma_init_sweep #(.N(ENTRIES * WORDS)) u_sweep (.clk, .rst, .busy(sw_busy), .idx(sw_idx));
  assign init = sw_busy;

  // ---------------------------------------------------------------- escape channel
  logic [ESC_DEPTH-1:0] e_valid_q, e_hit_q;
  logic [KEY_W-1:0]     e_key_q [ESC_DEPTH];
  logic [BW-1:0]        e_blk_q [ESC_DEPTH];
  logic [TS_W-1:0]      e_dl_q  [ESC_DEPTH];   // deadline: allocation + cfg_esc_timeout
  logic [ESC_DEPTH-1:0] e_ever_q;              // kept for ever (cfg_esc_timeout 0)
  logic [TS_W-1:0]      now_q;
  logic [XW-1:0]        scan_q;
  logic [ESC_DEPTH-1:0] e_match_q;   // S_CHK: records of the item's key
  logic                 e_free_any_q;
  logic [XW-1:0]        e_free_q;    // S_CHK: the lowest free record
  logic                 replay;      // S_IDLE holds an escape record to replay
  logic                 replay_take; // and takes it
  logic                 purge;       // S_ACT of a lookup: the key's records go
  logic [ESC_DEPTH-1:0] e_valid_d, e_hit_d;
  logic [XW-1:0]        replay_i;

  always_comb begin
    replay_i = '0;
    for (int i = ESC_DEPTH - 1; i >= 0; i--) if (e_hit_q[i]) replay_i = XW'(i);
  end
  assign replay = (st_q == S_IDLE) && (|e_hit_q);
  assign replay_take = replay && ntf_room;

  // ---------------------------------------------------------------- S_CHK's registers
  logic              c_hit_q;      // the entry holds the item's operation
  logic              c_same_q;     // ... another operation of the item's channel
  logic              c_valid_q;    // the entry holds an operation
  logic              c_notified_q;
  logic              c_bit_q;      // the block's bit is set
  logic              c_inrange_q;  // block < the entry's count
  logic              c_last_q;     // the entry's remaining count is 1
  logic              c_cnt_ok_q;   // the item's count is 1..MASK_W and block < count
  logic              c_mzero_q;    // a lookup, or an entry of another key held: S_ACT's meta
                                   // write (free, replace) is the invalid entry
  logic [META_W-1:0] c_mreg_q;     // the entry a registration writes
  logic [META_W-1:0] c_mset_q;     // the entry a block's set writes
  logic [WORD_W-1:0] c_wreg_q;     // the mask word a registration writes
  logic [WORD_W-1:0] c_wset_q;     // the mask word a block's set writes

  logic [KEY_W-1:0]  m_key;
  logic [CW-1:0]     m_cnt, m_rem;
  logic              m_valid_b, m_notified;
  assign {m_valid_b, m_notified, m_key, m_cnt, m_rem} = meta_rd;

  // ---------------------------------------------------------------- actions (S_ACT)

  always_comb begin
    act_reg = 1'b0; act_set = 1'b0; act_esc = 1'b0; act_free = 1'b0; act_repl = 1'b0;
    if (st_q == S_ACT) begin
      if (w_ctl_q)                    act_free = c_hit_q;
      else if (c_hit_q)               act_set  = !c_notified_q && c_inrange_q && !c_bit_q;
      else if (w_first_q) begin
        act_reg  = c_cnt_ok_q && !c_valid_q;
        act_repl = c_cnt_ok_q && c_same_q;
      end else                        act_esc  = 1'b1;
    end
  end
  // the notification: the last missing block set, or a registration of a one-block count
  assign act_ntf  = (act_set && c_last_q) || (act_reg && w_cnt_q == CW'(1));
  assign ntf_push = act_ntf;

  // The words written are chosen from candidates registered in S_CHK (a registration's,
  // a block's set) by registered bits, so that no decision feeds the block RAMs' write
  // data: only their write enables wait for the outcome.
  always_comb begin
    meta_we    = init || act_reg || act_set || act_free || act_repl;
    meta_waddr = init ? EIW'(sw_idx >> ((WORDS > 1) ? WIW : 0)) : w_idx_q;
    // free and replace write the entry invalid (its words are cleared in S_CLR)
    meta_wdata = (init || c_mzero_q) ? '0 : (c_hit_q ? c_mset_q : c_mreg_q);
    mask_we    = init || act_reg || act_set || (st_q == S_CLR);
    mask_waddr = init ? sw_idx
               : (st_q == S_CLR) ? ((WORDS > 1) ? MAW'({w_idx_q, clr_q}) : MAW'(w_idx_q))
               : word_addr(w_idx_q, w_blk_q);
    mask_wdata = (init || st_q == S_CLR) ? '0 : (c_hit_q ? c_wset_q : c_wreg_q);
    info_we    = act_reg;
    info_waddr = w_idx_q;
  end

  // ---------------------------------------------------------------- notifications
  qrdma_sync_fifo #(.WIDTH(KEY_W + INFO_W), .DEPTH(NTF_DEPTH)) u_ntf (
    .clk, .rst,
    .s_valid(ntf_push), .s_ready(ntf_room), .s_data({w_key_q, c_hit_q ? info_rd : w_info_q}),
    .m_valid(m_ntf_valid), .m_ready(m_ntf_ready), .m_data({m_ntf_key, m_ntf_info}),
    .count(ntf_count), .almost_full(ntf_af)
  );

  // ---------------------------------------------------------------- sequencing
  // S_IDLE takes an item only with room for its notification (one item at a time: the
  // room seen in S_IDLE is there in S_ACT)
  assign in_ready = (st_q == S_IDLE) && !(|e_hit_q) && ntf_room && !init;
  assign busy     = in_valid || (st_q != S_IDLE) || (|e_hit_q);

  always_ff @(posedge clk) begin
    now_q  <= now_q + TS_W'(1);
    scan_q <= (scan_q == XW'(ESC_DEPTH - 1)) ? '0 : scan_q + XW'(1);
    case (st_q)
      S_IDLE: begin
        // the item registers load in every idle cycle, from the replay or the input,
        // chosen by registered bits: only st_q waits for the take's decision
        if (replay) begin
          w_ctl_q <= 1'b0; w_first_q <= 1'b0;
          w_key_q <= e_key_q[replay_i]; w_blk_q <= e_blk_q[replay_i];
        end else begin
          w_ctl_q <= f_ctl; w_first_q <= f_first; w_key_q <= f_key; w_blk_q <= f_blk;
        end
        w_cnt_q <= f_cnt; w_info_q <= f_info;   // a replayed event does not register
        if (replay_take || (in_valid && in_ready)) st_q <= S_RD;
      end
      S_RD: begin
        w_idx_q <= rd_idx;
        sel_q   <= WORD_W'(1) << w_blk_q[OW-1:0];
        st_q <= S_WAIT;
      end
      S_WAIT: st_q <= S_CHK;
      S_CHK: begin
        c_valid_q    <= m_valid_b;
        c_hit_q      <= m_valid_b && (m_key == w_key_q);
        c_same_q     <= m_valid_b && (m_key != w_key_q)
                        && (m_key[HASH_W-1:0] == w_key_q[HASH_W-1:0]);
        c_notified_q <= m_notified;
        c_bit_q      <= |(mask_rd & sel_q);
        c_inrange_q  <= (CW'(w_blk_q) < m_cnt);
        c_last_q     <= (m_rem == CW'(1));
        c_cnt_ok_q   <= (w_cnt_q != '0) && (w_cnt_q <= CW'(MASK_W)) && (CW'(w_blk_q) < w_cnt_q);
        c_mzero_q    <= w_ctl_q || (m_valid_b && (m_key != w_key_q));
        c_mreg_q     <= {1'b1, w_cnt_q == CW'(1), w_key_q, w_cnt_q, CW'(w_cnt_q - CW'(1))};
        c_mset_q     <= {1'b1, m_rem == CW'(1), w_key_q, m_cnt, CW'(m_rem - CW'(1))};
        c_wreg_q     <= sel_q;
        c_wset_q     <= mask_rd | sel_q;
        for (int i = 0; i < int'(ESC_DEPTH); i++)
          e_match_q[i] <= e_valid_q[i] && !e_hit_q[i] && (e_key_q[i] == w_key_q);
        e_free_any_q <= !(&e_valid_q);
        e_free_q     <= '0;
        for (int i = ESC_DEPTH - 1; i >= 0; i--) if (!e_valid_q[i]) e_free_q <= XW'(i);
        st_q <= S_ACT;
      end
      S_ACT: begin
        clr_q   <= '0;
        again_q <= act_repl;
        st_q    <= (act_free || act_repl) ? S_CLR : S_IDLE;
      end
      S_CLR: begin
        clr_q <= clr_q + WIW'(1);
        if (WORDS == 1 || clr_q == WIW'(WORDS - 1)) st_q <= again_q ? S_RD : S_IDLE;
      end
      default: st_q <= S_IDLE;
    endcase
    if (rst) begin
      st_q  <= S_IDLE;
      now_q <= '0;
      scan_q <= '0;
    end
  end

  // the escape records. The timeout scan looks at one record per cycle in two steps:
  // the record at scan_q is due (its deadline passed) in the first, and expires in the
  // second unless it was replayed, purged or allocated afresh in between.
  logic            scan_expire;
  logic [XW-1:0]   sc_sel_q;
  logic            sc_due_q, sc_new_q;
  logic [TS_W-1:0] sc_past;       // cycles past the deadline (negative: before it)
  assign sc_past = now_q - e_dl_q[scan_q];
  assign purge = (st_q == S_ACT) && w_ctl_q;
  always_ff @(posedge clk) begin
    sc_sel_q <= scan_q;
    sc_due_q <= !e_ever_q[scan_q] && !sc_past[TS_W-1];
    sc_new_q <= act_esc && e_free_any_q && (e_free_q == scan_q);
    if (rst) sc_due_q <= 1'b0;
  end
  assign scan_expire = sc_due_q && !sc_new_q && e_valid_q[sc_sel_q] && !e_hit_q[sc_sel_q]
                       && !(purge && e_match_q[sc_sel_q]);

  always_comb begin
    e_valid_d = e_valid_q;
    e_hit_d   = e_hit_q;
    if (scan_expire) e_valid_d[sc_sel_q] = 1'b0;
    if (replay_take) begin
      e_valid_d[replay_i] = 1'b0;
      e_hit_d[replay_i]   = 1'b0;
    end
    if (act_reg) e_hit_d = e_hit_q | e_match_q;            // replayed before new input
    if (purge) e_valid_d = e_valid_d & ~e_match_q;         // the operation is over
    if (act_esc && e_free_any_q) e_valid_d[e_free_q] = 1'b1;
  end

  always_ff @(posedge clk) begin
    e_valid_q <= e_valid_d;
    e_hit_q   <= e_hit_d;
    if (act_esc && e_free_any_q) begin
      e_key_q[e_free_q] <= w_key_q;
      e_blk_q[e_free_q] <= w_blk_q;
      e_dl_q[e_free_q]  <= now_q + cfg_esc_timeout;
      e_ever_q[e_free_q] <= (cfg_esc_timeout == '0);
    end
    if (rst) begin
      e_valid_q <= '0;
      e_hit_q   <= '0;
    end
  end

  // ---------------------------------------------------------------- outputs
  always_ff @(posedge clk) begin
    m_ctl_valid      <= (st_q == S_ACT) && w_ctl_q;
    m_ctl_key        <= w_key_q;
    m_ctl_notified   <= c_hit_q && c_notified_q;
    stat_reg         <= act_reg;
    stat_ntf         <= act_ntf;
    stat_dup         <= (st_q == S_ACT) && !w_ctl_q && c_hit_q && !c_notified_q && c_inrange_q && c_bit_q;
    stat_late        <= (st_q == S_ACT) && !w_ctl_q && c_hit_q && c_notified_q;
    stat_bad         <= (st_q == S_ACT) && !w_ctl_q && ((c_hit_q && !c_notified_q && !c_inrange_q)
                                                        || (!c_hit_q && w_first_q && !c_cnt_ok_q));
    stat_conflict    <= (st_q == S_ACT) && !w_ctl_q && !c_hit_q && w_first_q && c_cnt_ok_q && c_valid_q
                        && !c_same_q;
    stat_replace     <= act_repl;
    stat_esc         <= act_esc && e_free_any_q;
    stat_esc_drop    <= act_esc && !e_free_any_q;
    stat_esc_timeout <= scan_expire;
    if (rst) begin
      m_ctl_valid <= 1'b0;
      {stat_reg, stat_ntf, stat_dup, stat_late, stat_bad, stat_conflict, stat_replace} <= '0;
      {stat_esc, stat_esc_drop, stat_esc_timeout} <= '0;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) assert (!(rd_en && (meta_we || mask_we || info_we)))
      else $error("qrdma_rx_reg: a table read meets a write (RDW_ANY)");
  end

  // an item is handled whole before the next: exactly one outcome per S_ACT
  always_ff @(posedge clk) begin
    if (!rst && st_q == S_ACT && !w_ctl_q)
      assert ($onehot({act_set, act_reg, act_esc, act_repl,
                       c_hit_q && (c_notified_q || !c_inrange_q || c_bit_q),
                       !c_hit_q && w_first_q && (!c_cnt_ok_q || (c_valid_q && !c_same_q))}))
        else $error("qrdma_rx_reg: an event with no single outcome");
  end
`endif

endmodule

`default_nettype wire
