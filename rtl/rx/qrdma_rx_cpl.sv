// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_rx_cpl: the completion unit of qrdma_rx (docs/nic.md "Receive unit", "Deadlock
// freedom"; [RSN] §3.2-3.3). It takes the completion events of the header
// processor in order; the event at the head waits until the write commands it covers
// have their B responses (done_cmd pulses counted against its wtag), then becomes a
// response:
//   * a NACK (reason ERR_REMOTE_MEM) when a write of its block was answered SLVERR/DECERR
//     (an error bit per tracking entry);
//   * else, with a notification due and the ring on, a notification request (the ACK is
//     held by the notification writer until the notification is handed to the write
//     engine, which returns it on s_hack);
//   * else an ACK (a notification with the ring off is dropped and counted).
// A redo event (a duplicate of a block whose event was issued) becomes that block's
// response again (ACK, or NACK ERR_REMOTE_MEM by the same error bit) unless the entry's
// ACK is held for its notification (a held bit per tracking entry: set when its request
// goes to the notification FIFO, cleared when its held ACK comes back); such a redo, or
// one finding its FIFO full, is dropped and counted.
// Responses and notification requests wait in two FIFOs of NENT entries, which are never
// full when pushed, so the unit never waits for the send unit, the link or the ring: only
// for B responses. Redo responses wait in a FIFO of their own (REDO_DEPTH), merged after
// the response FIFO into m_rsp (the response FIFO first). Inside (pipeline, error and
// held bits, FIFO sizing): docs/modules.md#qrdma_rx_cpl.
// Timing: one event per cycle; an event is found due one cycle after the B count reaches
// its wtag; its error and held bits are read when it leaves the head (E0), pass the RAM's
// output register (E1) and are decided on in E2 from registers; E3 pushes into the FIFOs
// (a held ACK too). After rst the held bits are cleared in NENT cycles (no event comes
// meanwhile: the block tracker clears its table for as long).
`default_nettype none

module qrdma_rx_cpl
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
  import qrdma_rx_pkg::*;
#(
  parameter int unsigned NENT       = 4096,  // tracking entries (NUM_NODES * 1024): FIFO depths
  parameter int unsigned REDO_DEPTH = 8,     // redo responses queued (more: dropped, counted)
  localparam int unsigned EAW       = idx_w(NENT)
) (
  input  logic                  clk,
  input  logic                  rst,
  // completion events (header processor)
  input  logic                  s_evt_valid,
  output logic                  s_evt_ready,
  input  rx_evt_t               s_evt,
  // write completions (write engine)
  input  logic                  done_cmd,
  /* verilator lint_off UNUSEDSIGNAL */  // keys are KEYW bits wide; the table uses EAW of them
  input  logic [KEYW-1:0]       done_key,
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic                  done_first,
  input  logic                  done_err,
  // ring off (NQ_SIZE = 0): notifications are dropped
  input  logic                  cfg_nq_off,
  // held ACKs returned by the notification writer (priority into the response FIFO)
  input  logic                  s_hack_valid,
  output logic                  s_hack_ready,
  input  rsp_desc_t             s_hack,
  /* verilator lint_off UNUSEDSIGNAL */  // keys are KEYW bits wide; the table uses EAW of them
  input  logic [KEYW-1:0]       s_hack_key,     // its tracking entry (its held bit clears)
  /* verilator lint_on UNUSEDSIGNAL */
  // responses to the send unit
  output logic                  m_rsp_valid,
  input  logic                  m_rsp_ready,
  output rsp_desc_t             m_rsp,
  // notification requests to the notification writer
  output logic                  m_ntf_valid,
  input  logic                  m_ntf_ready,
  output rx_ntf_t               m_ntf,
  // occupancy and statistics
  output logic [cnt_w(NENT)-1:0] occ_rsp,
  output logic [cnt_w(NENT)-1:0] occ_ntf,
  output logic                  stat_nack,       // a NACK was queued (pulse)
  output logic                  stat_notif_off,  // a notification dropped: ring off (pulse)
  output logic                  stat_redo,       // a redo response queued (pulse)
  output logic                  stat_redo_drop   // a redo dropped: ACK held or no room (pulse)
);

`ifndef SYNTHESIS
  initial begin
    if (NENT < 2 || EAW > KEYW) $fatal(1, "qrdma_rx_cpl: NENT must be in 2..2^KEYW");
    if ((NENT & (NENT - 1)) != 0) $fatal(1, "qrdma_rx_cpl: NENT must be a power of 2");
    if (REDO_DEPTH < 2 || REDO_DEPTH >= 64) $fatal(1, "qrdma_rx_cpl: REDO_DEPTH must be in 2..63");
  end
`endif

  logic            e0_go, e1_v_q, e1_move, e2_v_q, e2_go;
  rx_evt_t         ev_q;       // E0: the head event
  /* verilator lint_off UNUSEDSIGNAL */  // wtag is used in E0 only
  rx_evt_t         e1_q, e2_q; // E1, E2
  /* verilator lint_on UNUSEDSIGNAL */
  logic            ntf_push_q; // E3: a notification request is pushed
  rx_ntf_t         nreq_q;     // E3: the request

  // ------------------------------------------------------------------ error bits
  // err[key]: a write of the entry's current block failed. Written at the B of a
  // command: its block's first write writes its own result, a later write sets it.
  // RDW_ANY: an event's read never meets a write of its entry. Its block's B responses
  // are all in at least two cycles before (due is registered from the B count), and the
  // next write of the entry is the next block's, which its sender starts only after this
  // event's response (TID reuse rule, docs/modules.md#qrdma_rx_cpl).
  logic err_rd;

  qrdma_sdp_ram #(.WIDTH(1), .DEPTH(NENT), .OUT_REG(1'b1), .RDW_ANY(1'b1)) u_err (
    .clk,
    .wr_en(done_cmd && (done_first || done_err)), .wr_be(1'b1),
    .wr_addr(EAW'(done_key)), .wr_data(done_err),
    .rd_en(e0_go), .rd_addr(EAW'(ev_q.key)), .rd_oe(e1_move), .rd_data(err_rd)
  );

  // ------------------------------------------------------------------ E0: head event
  logic [TAGW-1:0] bcnt_q;     // write commands complete
  logic            ev_v_q;     // ev_q holds the head event
  logic            due_q;      // its writes are complete (registered: one cycle late)
  logic [TAGW-1:0] wdiff_in, wdiff_hd;
  logic            load;

  assign load        = s_evt_valid && s_evt_ready;
  // the event in E0 next cycle against the count of this cycle: due is never early (the
  // count only grows), at most one cycle late. Both candidates (the event offered, the
  // head) are compared in parallel; e0_go only selects.
  assign wdiff_in    = bcnt_q - s_evt.wtag;
  assign wdiff_hd    = bcnt_q - ev_q.wtag;
  assign e0_go       = ev_v_q && due_q && (!e1_v_q || e1_move);
  assign s_evt_ready = !ev_v_q || e0_go;

  always_ff @(posedge clk) begin
    if (load) ev_q <= s_evt;
  end

  always_ff @(posedge clk) begin
    bcnt_q <= bcnt_q + TAGW'(done_cmd);
    if (s_evt_ready) ev_v_q <= s_evt_valid;
    due_q  <= (ev_v_q && !e0_go) ? !wdiff_hd[TAGW-1] : (s_evt_valid && !wdiff_in[TAGW-1]);
    if (rst) begin
      bcnt_q <= '0;
      ev_v_q <= 1'b0;
      due_q  <= 1'b0;
    end
  end

  // ------------------------------------------------------------------ held bits
  // held[key]: the entry's ACK is held for its notification. Set (port A) two cycles
  // after its event leaves E2 as a notification request (the request's push in E3, then
  // the write), cleared (port B) two cycles after its held ACK comes back on s_hack; both
  // ports give their address two cycles ahead (A_LEAD, B_LEAD). A set and a clear of one
  // key in one cycle keep the set (the clear is of an earlier request of the entry).
  // Read with the error bit (RD_REG: the read of E0's cycle shows the writes enabled up to
  // the cycle before). A set that read misses is of an event ahead of the redo: in E1, in
  // E2, in E3 (its push) or being written; the redo compares its key with those events'
  // (any event with a notification due, whatever E2 makes of it) when it leaves E0 and
  // counts as held on a match: a redo in doubt is dropped (its sender sends it again).
  logic             init_q;           // the held bits are being cleared after rst
  logic [EAW-1:0]   init_idx_q;
  logic             clr_v, clr_v_q, clr_v_qq, set_v_qq, clash_q, held_rd;
  logic [EAW-1:0]   clr_key, clr_key_q, set_key_q;
  logic             conf, conf1_q, held2_q;

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

  assign clr_v   = init_q || s_hack_valid;
  assign clr_key = init_q ? init_idx_q : EAW'(s_hack_key);

  always_ff @(posedge clk) begin
    clr_v_q   <= clr_v;
    clr_v_qq  <= clr_v_q;
    clr_key_q <= clr_key;
    set_v_qq  <= ntf_push_q;
    set_key_q <= EAW'(nreq_q.key);
    // the set and the clear enabled in the next cycle hit one key
    clash_q   <= ntf_push_q && clr_v_q && EAW'(nreq_q.key) == clr_key_q;
    if (rst) begin
      clr_v_q  <= 1'b0;
      clr_v_qq <= 1'b0;
      set_v_qq <= 1'b0;
      clash_q  <= 1'b0;
    end
  end

  qrdma_mem_2w #(.WIDTH(1), .DEPTH(NENT), .A_LEAD(1'b1), .B_LEAD(1'b1), .RD_REG(1'b1),
                 .SUB_DEPTH((NENT < 256) ? NENT : 256)) u_held (
    .clk,
    .a_en(set_v_qq), .a_addr(EAW'(e2_q.key)), .a_data(1'b1),
    .b_en(clr_v_qq && !clash_q), .b_addr(clr_key), .b_data(1'b0),
    .rd_en(e0_go), .rd_addr(EAW'(ev_q.key)), .rd_data(held_rd)
  );

  // leaving E0: the events ahead whose set the read may miss (registers only)
  assign conf = (e1_v_q && e1_q.ntf && e1_q.key == ev_q.key)
             || (e2_v_q && e2_q.ntf && e2_q.key == ev_q.key)
             || (ntf_push_q && nreq_q.key == ev_q.key)
             || (set_v_qq && set_key_q == EAW'(ev_q.key));

  always_ff @(posedge clk) begin
    if (e0_go)   conf1_q <= conf;
    // held_rd holds E1's read until the next read, which is not before E1 moves
    if (e1_move) held2_q <= held_rd || conf1_q;
  end

  // ------------------------------------------------------------------ E1, E2: decide
  // E1: the error bit is in the RAM, E2: in its output register (err_rd); each stage
  // waits only while the next one holds an event that does not move.
  rsp_desc_t rsp;
  rx_ntf_t   nreq;
  logic      to_ntf, rsp_push_q, rsp_s_ready, ntf_s_ready;

  assign e1_move = e1_v_q && (!e2_v_q || e2_go);

  always_ff @(posedge clk) begin
    if (e0_go)   e1_q <= ev_q;
    if (e1_move) e2_q <= e1_q;
    if (e0_go)        e1_v_q <= 1'b1;
    else if (e1_move) e1_v_q <= 1'b0;
    if (e1_move)      e2_v_q <= 1'b1;
    else if (e2_go)   e2_v_q <= 1'b0;
    if (rst) begin
      e1_v_q <= 1'b0;
      e2_v_q <= 1'b0;
    end
  end

  always_comb begin
    rsp          = '0;
    rsp.dst_node = e2_q.src_node;
    rsp.tid      = e2_q.key[9:0];
    rsp.seq      = e2_q.seq;
    rsp.nack     = err_rd;
    rsp.reason   = err_rd ? 4'(ERR_REMOTE_MEM) : 4'(ERR_NONE);
    nreq.src_node = e2_q.src_node;
    nreq.key      = e2_q.key;
    nreq.seq      = e2_q.seq;
  end

  // a notification goes to the ring (the ACK with it, later) unless the block failed or
  // the ring is off; a held ACK has the response FIFO's write port first, and E2 waits in
  // its cycle whatever the event becomes: the stages' moves (the error RAM's enables) do
  // not wait for the decision on the RAM's own output register
  assign to_ntf   = e2_q.ntf && !err_rd && !cfg_nq_off;   // (ntf is 0 in a redo event)
  assign e2_go    = e2_v_q && !s_hack_valid;
  assign s_hack_ready = 1'b1;

  // E3: the pushes registered (the FIFOs' counts and write ports meet no decision on the
  // RAM's output)
  rsp_desc_t rsp_q, redo_q;
  logic      redo_push_q, redo_held_q, redo_s_ready;

  always_ff @(posedge clk) begin
    rsp_push_q     <= s_hack_valid || (e2_go && !e2_q.redo && !to_ntf);
    ntf_push_q     <= e2_go && to_ntf;
    redo_push_q    <= e2_go && e2_q.redo && !held2_q;
    redo_held_q    <= e2_go && e2_q.redo && held2_q;
    rsp_q          <= s_hack_valid ? s_hack : rsp;
    redo_q         <= rsp;
    nreq_q         <= nreq;
    stat_nack      <= e2_go && !e2_q.redo && err_rd;
    stat_notif_off <= e2_go && e2_q.ntf && !err_rd && cfg_nq_off;
    stat_redo      <= redo_push_q && redo_s_ready;
    stat_redo_drop <= redo_held_q || (redo_push_q && !redo_s_ready);
    if (rst) begin
      rsp_push_q     <= 1'b0;
      ntf_push_q     <= 1'b0;
      redo_push_q    <= 1'b0;
      redo_held_q    <= 1'b0;
      stat_nack      <= 1'b0;
      stat_notif_off <= 1'b0;
      stat_redo      <= 1'b0;
      stat_redo_drop <= 1'b0;
    end
  end

  // ------------------------------------------------------------------ FIFOs
  /* verilator lint_off UNUSEDSIGNAL */  // never full by construction (asserted below)
  logic rsp_af, ntf_af;
  /* verilator lint_on UNUSEDSIGNAL */

  logic      main_valid, redo_valid;
  rsp_desc_t main_rsp, redo_rsp;
  /* verilator lint_off UNUSEDSIGNAL */  // a full redo FIFO is seen at the push
  logic [cnt_w(REDO_DEPTH)-1:0] redo_count;
  logic      redo_af;
  /* verilator lint_on UNUSEDSIGNAL */

  qrdma_sync_fifo #(.WIDTH($bits(rsp_desc_t)), .DEPTH(NENT)) u_rsp_fifo (
    .clk, .rst,
    .s_valid(rsp_push_q), .s_ready(rsp_s_ready), .s_data(rsp_q),
    .m_valid(main_valid), .m_ready(m_rsp_ready), .m_data(main_rsp),
    .count(occ_rsp), .almost_full(rsp_af)
  );

  // redo responses: a full FIFO drops the push (counted above)
  qrdma_sync_fifo #(.WIDTH($bits(rsp_desc_t)), .DEPTH(REDO_DEPTH), .HEAD_REG(1'b1)) u_redo_fifo (
    .clk, .rst,
    .s_valid(redo_push_q), .s_ready(redo_s_ready), .s_data(redo_q),
    .m_valid(redo_valid), .m_ready(m_rsp_ready && !main_valid), .m_data(redo_rsp),
    .count(redo_count), .almost_full(redo_af)
  );

  // the response FIFO first: a redo leaves only while it is empty, so never ahead of a
  // response queued before it (a held ACK of its block in particular). Both heads and
  // the select are registers.
  assign m_rsp_valid = main_valid || redo_valid;
  assign m_rsp       = main_valid ? main_rsp : redo_rsp;

  qrdma_sync_fifo #(.WIDTH($bits(rx_ntf_t)), .DEPTH(NENT)) u_ntf_fifo (
    .clk, .rst,
    .s_valid(ntf_push_q), .s_ready(ntf_s_ready),
    .s_data(nreq_q),
    .m_valid(m_ntf_valid), .m_ready(m_ntf_ready), .m_data(m_ntf),
    .count(occ_ntf), .almost_full(ntf_af)
  );

`ifndef SYNTHESIS
  // one response and at most one notification per tracking entry at a time: the FIFOs
  // never overflow (a violation means a sender reused a TID before its response)
  always_ff @(posedge clk) begin
    if (rsp_push_q)
      if (!rst) assert (rsp_s_ready)
        else $error("qrdma_rx_cpl: response FIFO full (%0d entries)", NENT);
    if (ntf_push_q)
      if (!rst) assert (ntf_s_ready)
        else $error("qrdma_rx_cpl: notification FIFO full (%0d entries)", NENT);
    // no event and no held ACK while the held bits are cleared after rst
    if (!rst) assert (!init_q || (!s_evt_valid && !s_hack_valid))
      else $error("qrdma_rx_cpl: an event or a held ACK during the held bits' clear");
  end
`endif

endmodule

`default_nettype wire
