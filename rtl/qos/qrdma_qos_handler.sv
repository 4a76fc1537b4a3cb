// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_qos_handler: the message handler of the QoS engine ([QoS-RDMA] §3.11) with the
// pending transactions table it owns (§3.5). Pipeline (docs/qos.md "Message handler"):
// a two-entry ACK FIFO (head in a register); H0 takes an ACK and reads the pending entry,
// key fields and valid bit of its TID; H1 matches it (valid bit and sequence number),
// retires it and returns a TID-only TID; H2 has the pending entry and moves into a
// two-entry FIFO; H3 reads the metadata of a multi-block transfer through the shared
// pipeline (qrdma_qos_meta: read in H3, entry in H5); H5 compares; H6 decides, writes the
// metadata back and pushes an action (re-queue, control queue, completion) into a FIFO
// drained by m_act_*. One ACK per cycle. Contract: the segmenter writes a pending entry
// (pend_wr_*) for every block and inline packet it issues; ACKs are taken only with en;
// init_done rises once every valid bit is cleared; meta_allow: the slot is free for the
// handler in this cycle; meta_busy: an operation on meta_rd_addr is in flight (the
// handler waits); tid_ret_* (the segmenter's unused TIDs) go to the pool through
// tid_free_* (registered) ahead of the handler's own returns.
`default_nettype none

module qrdma_qos_handler
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
  import qrdma_qos_pkg::*;
#(
  parameter int unsigned MAX_OUTSTANDING = 2,  // blocks of a transfer in flight (1..4)
  parameter int unsigned ACT_FIFO_DEPTH  = 8   // actions in waiting, >= 4
) (
  input  logic                  clk,
  input  logic                  rst,
  input  logic                  en,            // the engine is ready: take ACKs
  output logic                  init_done,     // pending valid bits cleared after reset
  // pending-table entry of an issued block or inline packet (segmenter)
  input  logic                  pend_wr_en,
  input  logic [TIDW-1:0]       pend_wr_tid,
  input  pend_t                 pend_wr_data,
  // acknowledgements from the receive unit
  input  logic                  s_ack_valid,
  output logic                  s_ack_ready,
  input  logic [ACK_DESC_W-1:0] s_ack_data,
  // metadata (qrdma_qos_meta): read in H3, entry in H5, write in H6
  output logic                  meta_want,     // H3 holds an ACK that needs the metadata
  output logic                  meta_refused,  // ... could read now, but the slot is taken
  input  logic                  meta_allow,    // the slot is the handler's if it wants it
  input  logic                  meta_busy,     // its entry is in flight: wait
  output logic                  meta_rd,
  output logic [XW-1:0]         meta_rd_addr,
  input  meta_t                 meta_rd_data,
  output logic                  meta_wr_en,
  output meta_t                 meta_wr_data,
  // a TID the segmenter took and did not use (it goes back first; H1 waits that cycle)
  input  logic                  tid_ret_valid,
  input  logic [TIDW-1:0]       tid_ret_id,
  // a TID-only TID back to its pool
  output logic                  tid_free_valid,
  output logic [TIDW-1:0]       tid_free_id,
  // actions for the segmenter's enqueue and completion ports
  output logic                  m_act_valid,
  input  logic                  m_act_ready,
  output act_t                  m_act_data,
  // event pulses
  output logic                  ev_ack,
  output logic                  ev_nack,
  output logic                  ev_stale
);

  localparam int unsigned ACW  = cnt_w(ACT_FIFO_DEPTH);
  // the tables H0 reads at the ACK's TID (key fields, valid bits) are in KSUB-deep parts,
  // every part's word registered in H0 and the part selected in H1
  localparam int unsigned KSUB = 256;                  // words per part
  localparam int unsigned KN   = (1 << TIDW) / KSUB;   // parts
  localparam int unsigned KLW  = $clog2(KSUB);         // TID bits inside a part

`ifndef SYNTHESIS
  initial begin
    if (MAX_OUTSTANDING < 1 || MAX_OUTSTANDING > FLOW_BLOCKS)
      $fatal(1, "qrdma_qos_handler: MAX_OUTSTANDING must be in 1..4");
    if (ACT_FIFO_DEPTH < 4)
      $fatal(1, "qrdma_qos_handler: ACT_FIFO_DEPTH must be >= 4");
  end
`endif

  // ================================================================ valid-bit clear
  // After reset every pending valid bit is cleared, one per cycle (1024 cycles).
  logic            init_q;
  logic [TIDW-1:0] init_cnt_q;

  always_ff @(posedge clk) begin
    if (init_q) begin
      init_cnt_q <= init_cnt_q + TIDW'(1);
      if (init_cnt_q == '1) init_q <= 1'b0;
    end
    if (rst) begin
      init_q     <= 1'b1;
      init_cnt_q <= '0;
    end
  end
  assign init_done = !init_q;

  // ================================================================ ACK FIFO
  // s_ack_ready is a register (the FIFO's room), whatever the pipeline's stalls; the head
  // (the TID H0 reads the tables at) is a register.
  logic                  ack_v, h0_take, ack_s_ready;
  logic [1:0]            ack_cnt;      // the FIFO's count (cnt_w(2))
  logic [ACK_DESC_W-1:0] ack_w;
  /* verilator lint_off PINCONNECTEMPTY */  // almost_full: not needed
  qrdma_sync_fifo #(.WIDTH(ACK_DESC_W), .DEPTH(2), .HEAD_REG(1'b1)) u_ack_fifo (
    .clk, .rst,
    .s_valid(s_ack_valid && en), .s_ready(ack_s_ready), .s_data(s_ack_data),
    .m_valid(ack_v), .m_ready(h0_take), .m_data(ack_w),
    .count(ack_cnt), .almost_full()
  );
  /* verilator lint_on PINCONNECTEMPTY */
  assign s_ack_ready = en && ack_s_ready;

  // ================================================================ H0: take, read entry
  /* verilator lint_off UNUSEDSIGNAL */  // the record's reserved bits
  ack_desc_t       ack;
  /* verilator lint_on UNUSEDSIGNAL */
  logic            h1_valid_q, h1_nack_q, h1_wr_hit_q;
  logic [3:0]      h1_reason_q;
  logic [TIDW-1:0] h1_tid_q;
  logic            h1_match;     // valid entry, same sequence number
  logic            h1_adv;
  logic            h2_valid_q, h2_move;
  logic            h2_free_q;    // H2 takes an ACK in this cycle (empty, or moving on)
  logic            h2_match_q;   // H1's match of the ACK in H2
  pend_t           h2_pend;      // the pending entry (block RAM output register) in H2

  // H0 takes an ACK when H1 is empty or advances: ack_v && (!h1_valid_q || h1_adv), from
  // two registers figured a cycle ahead (take_a_q: an ACK and H1 empty; take_b_q: an ACK
  // and H2 takes one) and the segmenter's TID return of this cycle, so that the take (the
  // tables' read enables and H1's loads, the FIFO's pop: a wide fan-out) is one LUT from
  // registers
  logic            take_a_q, take_b_q;
  assign ack     = ack_desc_t'(ack_w);
  assign h0_take = take_a_q || (take_b_q && !tid_ret_valid);
  logic            h1_valid_d;   // H1 holds an ACK in the next cycle
  assign h1_valid_d = (!h1_valid_q || h1_adv) ? ack_v : 1'b1;

  // The entry is read in H0 and arrives in H2 in the RAM's output register, which is
  // loaded when the ACK moves from H1 to H2 and holds while H2 waits. A write in the
  // read's cycle is forwarded (RDW_NEW: the entry as it is at the end of H0).
  qrdma_sdp_ram #(.WIDTH($bits(pend_t)), .DEPTH(1 << TIDW), .RDW_NEW(1'b1), .OUT_REG(1'b1))
  u_pending (
    .clk,
    .wr_en(pend_wr_en), .wr_be(1'b1), .wr_addr(pend_wr_tid), .wr_data(pend_wr_data),
    .rd_en(h0_take), .rd_addr(ack.tid), .rd_oe(h1_adv), .rd_data(h2_pend)
  );

  // valid bits of the pending entries: set at issue (port A), cleared by a matching ACK
  // or by the clear after reset (port B). Each port writes two cycles after its address
  // (qrdma_mem_2w A_LEAD, B_LEAD: the other bank's read a write needs is pipelined): the
  // set two cycles after the issue, the clear two cycles after H1's retire. Read in H0
  // with the entry, as it is at the end of that cycle (a write or a retire of the same TID
  // in that cycle included, and the sets and clears still on their way), so that H1
  // matches the entry it holds even when that TID is issued again while H1 waits. H0
  // registers what it read (RD_REG: every part's bit, the part selected in H1) and
  // whether an issue of that cycle or a set on its way, a clear on its way or the ACK
  // retiring in that cycle (in H1) hit its TID; H1 puts them together.
  logic [TIDW-1:0] clr_tid_q;    // the clear's address: init_q ? init_cnt_q : h1_tid_q
  logic            set1_q, set2_q, clr1, clr2_q;     // on their way: one / two cycles old
  logic            init1_q, adv1_q;   // the clear after reset, H1's advance: a cycle old
  logic [TIDW-1:0] set1_tid_q, set2_tid_q, clr1_tid_q, clr2_tid_q;
  logic [0:0]      h1_pv_rd;     // the valid bit as read in H0 (registered, RD_REG)
  logic            h1_set_hit_q, h1_clr_hit_q, h1_prev_hit_q, h1_pv;
  // the clear decided one cycle ago (after reset, or a retire: H1's match is in H2)
  assign clr1    = init1_q || (adv1_q && h2_match_q);
  always_ff @(posedge clk) begin
    set1_tid_q <= pend_wr_tid;
    set2_tid_q <= set1_tid_q;
    clr1_tid_q <= clr_tid_q;
    clr2_tid_q <= clr1_tid_q;
    // figured a cycle ahead (a register, as the port's stage 1 reads the other bank at it)
    if (init_q && init_cnt_q != '1) clr_tid_q <= init_cnt_q + TIDW'(1);
    else if (h0_take)               clr_tid_q <= ack.tid;
    else                            clr_tid_q <= h1_tid_q;
    if (rst) begin
      clr_tid_q <= '0;
      set1_q    <= 1'b0;
      set2_q    <= 1'b0;
      init1_q   <= 1'b0;
      adv1_q    <= 1'b0;
      clr2_q    <= 1'b0;
    end else begin
      set1_q    <= pend_wr_en;
      set2_q    <= set1_q;
      init1_q   <= init_q;
      adv1_q    <= h1_adv;
      clr2_q    <= clr1;
    end
  end
  qrdma_mem_2w #(.WIDTH(1), .DEPTH(1 << TIDW), .A_LEAD(1'b1), .B_LEAD(1'b1), .RD_REG(1'b1),
                 .SUB_DEPTH(KSUB))
  u_pend_valid (
    .clk,
    .a_en(set2_q), .a_addr(pend_wr_tid), .a_data(1'b1),
    .b_en(clr2_q), .b_addr(clr_tid_q), .b_data(1'b0),
    .rd_en(h0_take), .rd_addr(ack.tid), .rd_data(h1_pv_rd)
  );

  // The fields H1 decides on (sequence number, single, class) are also kept in LUT RAM,
  // read in H0 from the ACK's TID, so that H1's match does not wait for the entry out of
  // block RAM. Same contents as u_pending's, in KSUB-deep parts: H0 registers every
  // part's fields as read (the read goes straight into registers, no part multiplexer
  // after it), the ones written in that cycle and the ACK's sequence number against the
  // written one; H1 compares every part's sequence number with the ACK's and selects the
  // TID's part (its high bits, registered), the written one's result on a hit.
  typedef struct packed {
    logic [SEQW-1:0] seq;
    logic            single;
    logic            tid_only;   // class TID-only: the TID goes back when retired
  } pkey_t;
  pkey_t           pkey_wr;
  pkey_t           pkey_rd [KN];                  // every part's word at the ACK's TID (H0)
  pkey_t           h1_rd_q [KN];                  // ... as read, registered
  logic [TIDW-KLW-1:0] h1_part;                  // the TID's part (H1)
  logic [KN-1:0]   h1_rd_eq;                      // every part's sequence number = the ACK's
  logic            h1_wr_single_q, h1_wr_tid_only_q;  // ... as written in H0's cycle
  logic [SEQW-1:0] h1_seq_q;                  // the ACK's sequence number
  logic            h1_wr_eq_q;                // ... matches the one written in H0's cycle
  logic            h1_single, h1_tid_only;
  assign pkey_wr = '{seq: pend_wr_data.seq, single: pend_wr_data.single,
                     tid_only: pend_wr_data.cls == CLS_TID};
  for (genvar g = 0; g < int'(KN); g++) begin : gen_pkey
    // LUT RAM: a register takes its read data, which in block RAM would add the RAM's
    // clock-to-out to H1's compare
    (* ram_style = "distributed" *) pkey_t mem [KSUB];
    always_ff @(posedge clk) begin
      if (pend_wr_en && pend_wr_tid[TIDW-1:KLW] == (TIDW-KLW)'(g))
        mem[pend_wr_tid[KLW-1:0]] <= pkey_wr;
    end
    assign pkey_rd[g]  = mem[ack.tid[KLW-1:0]];
    assign h1_rd_eq[g] = h1_rd_q[g].seq == h1_seq_q;
  end
  assign h1_part = h1_tid_q[TIDW-1:KLW];

  always_ff @(posedge clk) begin
    if (rst) h1_valid_q <= 1'b0;
    else     h1_valid_q <= h1_valid_d;
    if (h0_take) begin
      h1_tid_q         <= ack.tid;
      h1_nack_q        <= ack.nack;
      h1_reason_q      <= ack.reason;
      h1_seq_q         <= ack.seq;
      h1_rd_q          <= pkey_rd;
      h1_wr_eq_q       <= pkey_wr.seq == ack.seq;
      h1_wr_single_q   <= pkey_wr.single;
      h1_wr_tid_only_q <= pkey_wr.tid_only;
      h1_wr_hit_q      <= pend_wr_en && pend_wr_tid == ack.tid;
      h1_set_hit_q     <= (pend_wr_en && pend_wr_tid == ack.tid)
                          || (set1_q && set1_tid_q == ack.tid)
                          || (set2_q && set2_tid_q == ack.tid);
      h1_clr_hit_q     <= (clr1 && clr1_tid_q == ack.tid)
                          || (clr2_q && clr2_tid_q == ack.tid);
      // the ACK in H1 advances in this cycle (H0 takes only then): its retire clears next
      h1_prev_hit_q    <= h1_valid_q && h1_tid_q == ack.tid;
    end
  end

  // ================================================================ H1: match, retire
  // H1 waits for H2, and in a cycle in which the segmenter returns an unused TID (the
  // pool has one return port; both go out registered).
  // h2_match_q: the match of the ACK that left H1 in H0's cycle (h1_prev_hit_q)
  assign h1_pv       = (h1_pv_rd[0] || h1_set_hit_q) && !h1_clr_hit_q
                       && !(h1_prev_hit_q && h2_match_q);
  assign h1_match    = h1_pv && (h1_wr_hit_q ? h1_wr_eq_q : h1_rd_eq[h1_part]);
  assign h1_single   = h1_wr_hit_q ? h1_wr_single_q : h1_rd_q[h1_part].single;
  assign h1_tid_only = h1_wr_hit_q ? h1_wr_tid_only_q : h1_rd_q[h1_part].tid_only;
  assign h1_adv      = h1_valid_q && h2_free_q && !tid_ret_valid;

  logic            tid_free_q;
  logic [TIDW-1:0] tid_free_id_q;
  always_ff @(posedge clk) begin
    if (rst) tid_free_q <= 1'b0;
    else     tid_free_q <= tid_ret_valid || (h1_adv && h1_match && h1_tid_only);
    tid_free_id_q <= tid_ret_valid ? tid_ret_id : h1_tid_q;
  end
  assign tid_free_valid = tid_free_q;
  assign tid_free_id    = tid_free_id_q;

  assign ev_ack   = h1_adv && h1_match && !h1_nack_q;
  assign ev_nack  = h1_adv && h1_match && h1_nack_q;
  assign ev_stale = h1_adv && !h1_match;

  // ================================================================ H2: the entry
  // The pending entry is in the RAM's output register; H2 moves into a two-entry FIFO
  // (whose room is a register, its head too) ahead of the metadata read, so that H1 and
  // H0 never wait for the read's conditions. h2_free_q is !h2_valid_q || the FIFO's room,
  // registered: figured a cycle ahead from H2, H1's advance, the FIFO's count and H3's
  // advance, so that H1's and H0's advance come from registers alone.
  typedef struct packed {
    logic       match;
    logic       meta;     // match && !single: H3 reads the metadata
    logic       single;
    logic       nack;
    logic [3:0] reason;
    pend_t      pend;
  } h3_t;
  h3_t             h2_rec, h3;
  logic            h2_single_q, h2_nack_q;
  logic [3:0]      h2_reason_q;
  logic            h3_v, h3_adv, h3_fifo_ready;
  logic [1:0]      h3_cnt;       // the FIFO's count (cnt_w(2))
  logic            h2_valid_d, h3_full_d, h2_free_d;

  // H2 and the FIFO in the next cycle: H2 holds an ACK; the FIFO is full (its count 2)
  assign h2_valid_d = h2_free_q ? h1_adv : 1'b1;
  assign h3_full_d  = !h3_adv && (h3_cnt == 2'd2 || (h3_cnt == 2'd1 && h2_move));
  assign h2_free_d  = !h2_valid_d || !h3_full_d;
  always_ff @(posedge clk) begin
    if (rst) begin
      h2_valid_q <= 1'b0;
      h2_free_q  <= 1'b1;
    end else begin
      h2_valid_q <= h2_valid_d;
      h2_free_q  <= h2_free_d;
    end
    if (h1_adv) begin
      h2_match_q  <= h1_match;
      h2_single_q <= h1_single;
      h2_nack_q   <= h1_nack_q;
      h2_reason_q <= h1_reason_q;
    end
  end
  assign h2_move = h2_valid_q && h3_fifo_ready;
  assign h2_rec  = '{match: h2_match_q, meta: h2_match_q && !h2_single_q, single: h2_single_q,
                     nack: h2_nack_q, reason: h2_reason_q, pend: h2_pend};

  /* verilator lint_off PINCONNECTEMPTY */  // almost_full: s_ready is the room
  qrdma_sync_fifo #(.WIDTH($bits(h3_t)), .DEPTH(2), .HEAD_REG(1'b1)) u_h3_fifo (
    .clk, .rst,
    .s_valid(h2_move), .s_ready(h3_fifo_ready), .s_data(h2_rec),
    .m_valid(h3_v), .m_ready(h3_adv), .m_data(h3),
    .count(h3_cnt), .almost_full()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // H0's take in the next cycle: the ACK FIFO holds an ACK, H1 holds one, H2 takes one
  logic [1:0] ack_cnt_d;
  logic       ack_v_d;
  assign ack_cnt_d = ack_cnt + 2'(s_ack_valid && s_ack_ready) - 2'(h0_take);
  assign ack_v_d   = ack_cnt_d != 2'd0;
  always_ff @(posedge clk) begin
    if (rst) begin
      take_a_q <= 1'b0;
      take_b_q <= 1'b0;
    end else begin
      take_a_q <= ack_v_d && !h1_valid_d;
      take_b_q <= ack_v_d && h2_free_d;
    end
  end

  // ================================================================ H3: metadata read
  logic            h3_meta;
  logic            act_room_q;   // room for the actions of H4..H6 and this one
  logic [ACW-1:0]  act_cnt;

  assign h3_meta      = h3_v && h3.meta;
  assign meta_want    = h3_meta;
  assign meta_rd_addr = h3.pend.xfer;
  assign meta_rd      = h3_meta && meta_allow && !meta_busy && act_room_q;
  assign meta_refused = h3_meta && !meta_allow && !meta_busy && act_room_q;
  assign h3_adv       = h3_v && act_room_q && (!h3_meta || meta_rd);

  // ================================================================ H4, H5: decide
  logic            h4_valid_q, h5_valid_q;
  logic            h4_single_q, h5_single_q, h4_nack_q, h5_nack_q;
  logic [3:0]      h4_reason_q, h5_reason_q;
  /* verilator lint_off UNUSEDSIGNAL */  // seq, time_: kept for retransmission, unused here
  pend_t           h4_pend_q, h5_pend_q;
  /* verilator lint_on UNUSEDSIGNAL */

  // H4 prepares what H5 needs of the entry alone: the block after the ACK's and its TID
  // slot as a one-hot mask (for either FID class), so that H5 compares and masks the
  // metadata without adding first.
  logic [BW-1:0]   h5_blk1_q;    // h5_pend_q.block + 1
  logic [15:0]     h5_soh1_q, h5_soh4_q;   // the block's slot: 1xFID / 4xFID
  always_ff @(posedge clk) begin
    if (rst) begin
      h4_valid_q <= 1'b0;
      h5_valid_q <= 1'b0;
    end else begin
      h4_valid_q <= h3_adv && h3.match;   // a stale ACK ends in H3
      h5_valid_q <= h4_valid_q;
    end
    h4_single_q <= h3.single;
    h4_nack_q   <= h3.nack;
    h4_reason_q <= h3.reason;
    h4_pend_q   <= h3.pend;
    h5_single_q <= h4_single_q;
    h5_nack_q   <= h4_nack_q;
    h5_reason_q <= h4_reason_q;
    h5_pend_q   <= h4_pend_q;
    h5_blk1_q   <= h4_pend_q.block + BW'(1);
    h5_soh1_q   <= 16'h1 << tid_slot(1'b0, h4_pend_q.block[3:0]);
    h5_soh4_q   <= 16'h1 << tid_slot(1'b1, h4_pend_q.block[3:0]);
  end

  meta_t           m;            // the transfer's metadata (H5)
  meta_t           meta_d;
  logic [BW-1:0]   iss_m1, blk_m1;   // issued - acked - 1, blocks - acked - 1
  logic [15:0]     busy_d;
  logic [3:0]      slot_next;
  act_t            act_d;

  // What H6 decides on, compared in H5 on the entry as read
  typedef struct packed {
    logic single;      // complete from the pending entry alone
    logic in_q;        // the transfer is in a queue
    logic aborted;     // aborted, with this ACK's NACK
    logic iss0;        // acked + 1 == issued
    logic blk0;        // acked + 1 == blocks
    logic blk1;        // acked + 2 == blocks
    logic last_acked;  // the last block acknowledged, with this ACK
    logic ctrl_due;    // notify, the control packet not sent, every block issued
    logic cmpl_ok;     // no control packet to wait for
    logic next_ok;     // a next block may issue (issued < blocks, outstanding, slot free)
  } dec_t;
  dec_t dec_d;

  assign m = meta_rd_data;

  // Computed only in a cycle with h5_valid_q: H6's write and push are 0 in the other
  // cycles, which leave the data undefined ('x: no logic in synthesis, no work in a
  // cycle-based simulation). Every compare is on the entry as read, side by side (acked + 1
  // against issued and blocks is issued - acked - 1 and blocks - acked - 1 against 0) and
  // registered; H6 puts them together.
  always_comb begin
    meta_d    = 'x;
    dec_d     = 'x;
    iss_m1    = 'x;
    blk_m1    = 'x;
    busy_d    = 'x;
    slot_next = 'x;
    act_d     = 'x;
    if (h5_valid_q) begin
      meta_d    = m;
      iss_m1    = m.issued + ~m.acked;
      blk_m1    = m.blocks + ~m.acked;
      busy_d    = (m.cls == CLS_TID) ? 16'h0
                : (m.tid_busy & ~((m.cls == CLS_FID4) ? h5_soh4_q : h5_soh1_q));
      slot_next = tid_slot(m.cls == CLS_FID4, m.issued[3:0]);
      meta_d.acked      = m.acked + BW'(1);
      meta_d.last_acked = m.last_acked || (h5_blk1_q == m.blocks);
      meta_d.tid_busy   = busy_d;
      meta_d.aborted    = m.aborted || h5_nack_q;
      meta_d.reason     = m.aborted ? m.reason : h5_reason_q;  // the first NACK's
      dec_d.single      = h5_single_q;
      dec_d.in_q        = m.in_q;
      dec_d.aborted     = meta_d.aborted;
      dec_d.iss0        = iss_m1 == '0;
      dec_d.blk0        = blk_m1 == '0;
      dec_d.blk1        = blk_m1 == BW'(1);
      dec_d.last_acked  = meta_d.last_acked;
      dec_d.ctrl_due    = m.notify && !m.ctrl_sent && m.issued == m.blocks;
      dec_d.cmpl_ok     = !m.notify || m.ctrl_sent;
      dec_d.next_ok     = m.issued < m.blocks && iss_m1 < BW'(MAX_OUTSTANDING)
                          && !busy_d[slot_next];
      // the action's fields but the decisions (enq, q, cmpl, err: H6)
      act_d.q      = m.hq;
      act_d.reason = h5_single_q ? h5_reason_q : meta_d.reason;
      act_d.xfer   = h5_pend_q.xfer;
      act_d.cls    = h5_single_q ? h5_pend_q.cls : m.cls;
      act_d.fid    = h5_single_q ? h5_pend_q.fid : m.fid;
    end
  end

  // ================================================================ H6: write, act
  // H6 decides from H5's registered compares: a single-block transfer completes; an
  // aborted one completes once every issued block is acknowledged and it is in no queue;
  // else it completes with its last block's ACK (and the control packet sent, if any),
  // and is re-queued when it is in no queue: into the control queue once every block but
  // the last is acknowledged and the last is issued (docs/qos.md "Completion"; the last
  // block's ACK does not count), else into its home queue when a next block may issue.
  logic  h6_valid_q, h6_meta_q, h6_nack_q;
  meta_t h6_meta_d_q;
  act_t  h6_act_q;
  dec_t  h6_dec_q;
  logic  h6_ctrl, h6_enq, h6_cmpl;
  act_t  act_out;               // the action pushed (act_push)
  logic  act_push;
  always_ff @(posedge clk) begin
    if (rst) begin
      h6_valid_q <= 1'b0;
      h6_meta_q  <= 1'b0;
    end else begin
      h6_valid_q <= h5_valid_q;
      h6_meta_q  <= h5_valid_q && !h5_single_q;
    end
    h6_meta_d_q <= meta_d;
    h6_act_q    <= act_d;
    h6_dec_q    <= dec_d;
    h6_nack_q   <= h5_nack_q;
  end

  assign h6_ctrl = !h6_dec_q.in_q && h6_dec_q.ctrl_due
                   && (h6_dec_q.last_acked ? h6_dec_q.blk0 : h6_dec_q.blk1);
  assign h6_enq  = !h6_dec_q.single && !h6_dec_q.aborted && !h6_dec_q.in_q
                   && (h6_dec_q.ctrl_due ? h6_ctrl : h6_dec_q.next_ok);
  assign h6_cmpl = h6_dec_q.single
                   || (h6_dec_q.aborted ? (h6_dec_q.iss0 && !h6_dec_q.in_q)
                                        : (h6_dec_q.blk0 && h6_dec_q.cmpl_ok));
  always_comb begin
    act_out      = h6_act_q;
    act_out.enq  = h6_enq;
    act_out.q    = (h6_enq && h6_dec_q.ctrl_due) ? Q_CTRL : h6_act_q.q;
    act_out.cmpl = h6_cmpl;
    act_out.err  = h6_dec_q.single ? h6_nack_q : h6_dec_q.aborted;
    meta_wr_data      = h6_meta_d_q;
    meta_wr_data.in_q = h6_dec_q.in_q || h6_enq;
  end
  assign act_push   = h6_valid_q && (h6_enq || h6_cmpl);
  assign meta_wr_en = h6_meta_q;

  // ================================================================ action FIFO
  /* verilator lint_off PINCONNECTEMPTY */  // s_ready, almost_full: H3 advances only with room
  qrdma_sync_fifo #(.WIDTH($bits(act_t)), .DEPTH(ACT_FIFO_DEPTH)) u_act_fifo (
    .clk, .rst,
    .s_valid(act_push), .s_ready(), .s_data(act_out),
    .m_valid(m_act_valid), .m_ready(m_act_ready), .m_data(m_act_data),
    .count(act_cnt), .almost_full()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // act_room_q: the FIFO's count at most ACT_FIFO_DEPTH - 4, registered: figured a cycle
  // ahead from the count, push and pop of that cycle (a push always finds room: H3
  // advances only with room for it), so that H3's advance depends on registers and the
  // metadata slot only
  logic           act_pop;
  logic [ACW-1:0] act_cnt_d;
  assign act_pop   = m_act_valid && m_act_ready;
  assign act_cnt_d = act_cnt + ACW'(act_push) - ACW'(act_pop);
  always_ff @(posedge clk) begin
    if (rst) act_room_q <= 1'b1;
    else     act_room_q <= (act_cnt_d <= ACW'(ACT_FIFO_DEPTH - 4));
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (act_push)   // nested under its push (docs/sim.md "Speed")
      if (!rst) assert (act_cnt != ACW'(ACT_FIFO_DEPTH))
        else $error("qrdma_qos_handler: action FIFO overflow");
    if (!rst) begin
      assert (act_room_q == (act_cnt <= ACW'(ACT_FIFO_DEPTH - 4)))
        else $error("qrdma_qos_handler: act_room_q differs from the action FIFO's count");
      assert (h2_free_q == (!h2_valid_q || h3_fifo_ready))
        else $error("qrdma_qos_handler: h2_free_q differs from H2 and the FIFO's room");
      assert (clr_tid_q == (init_q ? init_cnt_q : h1_tid_q))
        else $error("qrdma_qos_handler: clr_tid_q differs from the clear's address");
      assert (h0_take == (ack_v && (!h1_valid_q || h1_adv)))
        else $error("qrdma_qos_handler: H0's take differs from the ACK FIFO, H1 and H2");
    end
  end
`endif

endmodule

`default_nettype wire
