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
// A place-only event (the last block of a registered notifying transfer complete before
// its CONTROL) becomes no response: it and every other event of a DATA packet of a
// registered transfer whose block has no failed write are reported on m_blk (block
// placed, docs/registration.md); a notifying event of a registered transfer that makes
// no notification request (a failed block, the ring off) is reported there as its end.
// A redo event (a duplicate of a block whose event was issued) becomes that block's
// response again (ACK, or NACK ERR_REMOTE_MEM by the same error bit) unless the entry's
// ACK is held for its notification (the number of its last notification request, kept
// per tracking entry, against the count of held ACKs returned, which come back in
// request order); such a redo, or one finding its FIFO full, is dropped and counted.
// MISS answers (s_mrsp: a block still lacks packets; advisory, they wait for no B) share
// the redo responses' FIFO: a MISS is queued only while that FIFO holds fewer than
// REDO_DEPTH / 2 responses and no redo is pushed in its cycle, else dropped and counted.
// Responses and notification requests wait in two FIFOs of NENT entries, which are never
// full when pushed, so the unit never waits for the send unit, the link or the ring: only
// for B responses. Redo and MISS responses wait in a FIFO of their own (REDO_DEPTH),
// merged after the response FIFO into m_rsp (the response FIFO first). Inside (pipeline, error and
// held bits, FIFO sizing): docs/modules.md#qrdma_rx_cpl.
// Timing: one event per cycle; an event is found due one cycle after the B count reaches
// its wtag; its error bit and request number are read when it leaves the head (E0), pass
// the RAMs' output registers (E1) and are decided on in E2 from registers; E3 pushes
// into the FIFOs (a held ACK too), a redo's held check is registered in E3 and it is
// pushed in E4. After rst the request numbers are cleared in NENT cycles (no event comes
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
  // MISS answers (header processor; a pulse each, never waited for)
  input  logic                  s_mrsp_valid,
  input  rsp_desc_t             s_mrsp,
  // registered transfers (a pulse each, no backpressure): a block placed (a DATA-issued
  // event whose block has no failed write), or (m_blk_free) the transfer's end without a
  // notification request (its last block failed, or the ring is off): its entry is freed
  output logic                  m_blk_valid,
  output logic                  m_blk_free,
  output logic [15:0]           m_blk_src,
  output logic [10:0]           m_blk_xfer,
  output logic [19:0]           m_blk_xblk,
  output logic [15:0]           m_blk_xseq,
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
  output logic                  stat_redo_drop,  // a redo dropped: ACK held or no room (pulse)
  output logic                  stat_miss,       // a MISS answer queued (pulse)
  output logic                  stat_miss_drop   // a MISS answer dropped: no room (pulse)
);

`ifndef SYNTHESIS
  initial begin
    if (NENT < 2 || EAW > KEYW) $fatal(1, "qrdma_rx_cpl: NENT must be in 2..2^KEYW");
    if ((NENT & (NENT - 1)) != 0) $fatal(1, "qrdma_rx_cpl: NENT must be a power of 2");
    if (REDO_DEPTH < 4 || REDO_DEPTH >= 64) $fatal(1, "qrdma_rx_cpl: REDO_DEPTH must be in 4..63");
  end
`endif

  logic            e0_go, e1_v_q, e1_move, e2_v_q, e2_go;
  rx_evt_t         ev_q;       // E0: the head event
  /* verilator lint_off UNUSEDSIGNAL */  // wtag is used in E0 only
  rx_evt_t         e1_q, e2_q; // E1, E2
  /* verilator lint_on UNUSEDSIGNAL */
  logic            ntf_push_q; // E3: a notification request is pushed
  logic            to_ntf;     // E2: its event becomes a notification request
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

  // ------------------------------------------------------------------ held ACKs
  // Notification requests are numbered 1, 2, ... as they are pushed (nidx_q), and the
  // notification writer returns their held ACKs in that order (hcnt_q counts them), so
  // an entry's ACK is held while the number kept per entry (pidx, 0 after the sweep that
  // follows rst) is above the count of held ACKs returned: hcnt - pidx < 0 (modulo 2^32:
  // an entry not written for 2^31 requests can look held, which only drops a redo).
  // Every event but a redo writes pidx in E3: its request number with a push, else the
  // count of that cycle (not held). An event reads pidx with the error bit and takes the
  // count as it leaves E0 (hs1_q), so a redo counts a held ACK as returned only when
  // that ACK's push into the response FIFO is at least four cycles ahead of its own push
  // into the redo FIFO (the merge then has it first). The read misses the writes of the
  // events ahead of it (E1, E2, E3 in its cycle: read-first, RDW_ANY): leaving E0 a redo
  // compares its key with theirs, and the youngest of them with its key decides in its
  // place: E3's push, E2's decision (to_ntf), or E1's, taken as that event leaves E2
  // (the redo then leaves E1, so that decision is still on to_ntf).
  localparam int unsigned NW = 32;
  logic             init_q;           // pidx is being cleared after rst
  logic [EAW-1:0]   init_idx_q;
  logic [NW-1:0]    nidx_q;           // number of the next notification request
  logic [NW-1:0]    hcnt_q;           // held ACKs returned
  logic [NW-1:0]    hs1_q, hs2_q;     // hcnt_q as the event in E1, E2 left E0
  logic [NW-1:0]    pidx_rd;          // E2: the entry's last request number
  logic             ev3_q;            // E3: an event other than a redo writes pidx
  logic             m1, m2, m3;       // leaving E0: the event in E1, E2, E3 has its key
  logic             conf1_q, conf2_q; // an event ahead decides instead of pidx
  logic             cv1_q, cv2_q;     // its decision: held
  logic             pend1_q;          // E1's event decides, as it leaves E2

  always_ff @(posedge clk) begin
    if (init_q) begin
      init_idx_q <= init_idx_q + EAW'(1);
      if (init_idx_q == EAW'(NENT - 1)) init_q <= 1'b0;
    end
    if (ntf_push_q)   nidx_q <= nidx_q + NW'(1);
    if (s_hack_valid) hcnt_q <= hcnt_q + NW'(1);
    if (rst) begin
      init_q     <= 1'b1;
      init_idx_q <= '0;
      nidx_q     <= NW'(1);
      hcnt_q     <= '0;
    end
  end

  qrdma_sdp_ram #(.WIDTH(NW), .DEPTH(NENT), .OUT_REG(1'b1), .RDW_ANY(1'b1),
                  .BANKS((NENT > BANK_WORDS) ? NENT / BANK_WORDS : 1)) u_pidx (
    .clk,
    .wr_en(init_q || ev3_q), .wr_be(1'b1),
    .wr_addr(init_q ? init_idx_q : EAW'(nreq_q.key)),
    .wr_data(init_q ? '0 : (ntf_push_q ? nidx_q : hcnt_q)),
    .rd_en(e0_go), .rd_addr(EAW'(ev_q.key)), .rd_oe(e1_move), .rd_data(pidx_rd)
  );

  // leaving E0: the events ahead whose writes the read misses
  assign m1 = e1_v_q && !e1_q.redo && e1_q.key == ev_q.key;
  assign m2 = e2_v_q && !e2_q.redo && e2_q.key == ev_q.key;
  assign m3 = ev3_q && nreq_q.key == ev_q.key;

  always_ff @(posedge clk) begin
    if (e0_go) begin
      conf1_q <= m1 || m2 || m3;
      pend1_q <= m1;
      cv1_q   <= m2 ? to_ntf : ntf_push_q;
      hs1_q   <= hcnt_q;
    end
    if (e1_move) begin
      conf2_q <= conf1_q;
      cv2_q   <= pend1_q ? to_ntf : cv1_q;
      hs2_q   <= hs1_q;
    end
  end

  // ------------------------------------------------------------------ E1, E2: decide
  // E1: the error bit is in the RAM, E2: in its output register (err_rd); each stage
  // waits only while the next one holds an event that does not move.
  rsp_desc_t rsp;
  rx_ntf_t   nreq;
  logic      rsp_push_q, rsp_s_ready, ntf_s_ready;

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
    nreq.registered      = e2_q.registered;
    nreq.xfer     = e2_q.xfer;
    nreq.xseq     = e2_q.xseq;
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
  /* verilator lint_off UNUSEDSIGNAL */  // rsp_q: an ACK/NACK, its MISS fields zero (not stored)
  rsp_desc_t rsp_q;
  /* verilator lint_on UNUSEDSIGNAL */
  rsp_desc_t redo_q, r3_rsp_q, mrsp_q;
  logic      redo_push_q, redo_held_q, redo_s_ready, r3_v_q, r3_conf_q, r3_cv_q, r3_held;
  logic      mrsp_v_q, mrsp_push, redo_af;
  logic [NW-1:0] r3_h_q, r3_p_q, r3_diff;

  // a redo: E3 takes the request number out of the RAM's output register, E4 compares
  // and pushes into the redo FIFO (registers on both sides of the 32-bit subtract)
  assign r3_diff = r3_h_q - r3_p_q;
  assign r3_held = r3_conf_q ? r3_cv_q : r3_diff[NW-1];

  always_ff @(posedge clk) begin
    rsp_push_q     <= s_hack_valid || (e2_go && !e2_q.redo && !e2_q.place && !to_ntf);
    ntf_push_q     <= e2_go && to_ntf;
    ev3_q          <= e2_go && !e2_q.redo;
    r3_v_q         <= e2_go && e2_q.redo;
    r3_conf_q      <= conf2_q;
    r3_cv_q        <= cv2_q;
    r3_h_q         <= hs2_q;
    r3_p_q         <= pidx_rd;
    r3_rsp_q       <= rsp;
    redo_push_q    <= r3_v_q && !r3_held;
    redo_held_q    <= r3_v_q && r3_held;
    rsp_q          <= s_hack_valid ? s_hack : rsp;
    redo_q         <= r3_rsp_q;
    nreq_q         <= nreq;
    stat_nack      <= e2_go && !e2_q.redo && !e2_q.place && err_rd;
    m_blk_valid    <= e2_go && ((e2_q.blk && !err_rd) || (e2_q.ntf && e2_q.registered && !to_ntf));
    m_blk_free     <= e2_q.ntf && e2_q.registered && !to_ntf;
    m_blk_src      <= e2_q.src_node;
    m_blk_xfer     <= e2_q.xfer;
    m_blk_xblk     <= e2_q.xblk;
    m_blk_xseq     <= e2_q.xseq;
    stat_notif_off <= e2_go && e2_q.ntf && !err_rd && cfg_nq_off;
    stat_redo      <= redo_push_q && redo_s_ready;
    stat_redo_drop <= redo_held_q || (redo_push_q && !redo_s_ready);
    mrsp_v_q       <= s_mrsp_valid;
    mrsp_q         <= s_mrsp;
    stat_miss      <= mrsp_push;
    stat_miss_drop <= mrsp_v_q && !mrsp_push;
    if (rst) begin
      rsp_push_q     <= 1'b0;
      ntf_push_q     <= 1'b0;
      ev3_q          <= 1'b0;
      r3_v_q         <= 1'b0;
      redo_push_q    <= 1'b0;
      redo_held_q    <= 1'b0;
      stat_nack      <= 1'b0;
      m_blk_valid    <= 1'b0;
      stat_notif_off <= 1'b0;
      stat_redo      <= 1'b0;
      stat_redo_drop <= 1'b0;
      mrsp_v_q       <= 1'b0;
      stat_miss      <= 1'b0;
      stat_miss_drop <= 1'b0;
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
  /* verilator lint_on UNUSEDSIGNAL */

  // ACKs and NACKs only: the MISS fields (from bit RSP_DESC_MISS_LSB on) are zero and
  // not stored, so the NENT-deep block RAM stays as narrow as an ACK
  logic [RSP_DESC_MISS_LSB-1:0] main_lo;

  qrdma_sync_fifo #(.WIDTH(RSP_DESC_MISS_LSB), .DEPTH(NENT)) u_rsp_fifo (
    .clk, .rst,
    .s_valid(rsp_push_q), .s_ready(rsp_s_ready), .s_data(rsp_q[RSP_DESC_MISS_LSB-1:0]),
    .m_valid(main_valid), .m_ready(m_rsp_ready), .m_data(main_lo),
    .count(occ_rsp), .almost_full(rsp_af)
  );
  assign main_rsp = rsp_desc_t'(RSP_DESC_W'(main_lo));

  // redo and MISS responses: a full FIFO drops a redo (counted above); a redo has the
  // write port, a MISS goes in only in a cycle without a redo push and while the FIFO
  // holds fewer than REDO_DEPTH / 2 (almost_full, a register of the FIFO), so MISSes
  // never take the other half from redos
  assign mrsp_push = mrsp_v_q && !redo_push_q && !redo_af;

  qrdma_sync_fifo #(.WIDTH($bits(rsp_desc_t)), .DEPTH(REDO_DEPTH), .HEAD_REG(1'b1),
                    .ALMOST_FULL(REDO_DEPTH / 2)) u_redo_fifo (
    .clk, .rst,
    .s_valid(redo_push_q || mrsp_push), .s_ready(redo_s_ready),
    .s_data(redo_push_q ? redo_q : mrsp_q),
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
    // no event and no held ACK while the request numbers are cleared after rst
    if (!rst) assert (!init_q || (!s_evt_valid && !s_hack_valid))
      else $error("qrdma_rx_cpl: an event or a held ACK during the held bits' clear");
  end
`endif

endmodule

`default_nettype wire
