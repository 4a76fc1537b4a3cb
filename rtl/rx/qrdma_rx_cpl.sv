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
// Responses and notification requests wait in two FIFOs of NENT entries, which are never
// full when pushed, so the unit never waits for the send unit, the link or the ring: only
// for B responses. Inside (pipeline, error bit, FIFO sizing): docs/modules.md#qrdma_rx_cpl.
// Timing: one event per cycle; an event is found due one cycle after the B count reaches
// its wtag; its error bit is read when it leaves the head (E0), passes the RAM's output
// register (E1) and is decided on in E2 from a register; E3 pushes into the FIFOs (a held
// ACK too).
`default_nettype none

module qrdma_rx_cpl
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
  import qrdma_rx_pkg::*;
#(
  parameter int unsigned NENT = 4096,  // tracking entries (NUM_NODES * 1024): FIFO depths
  localparam int unsigned EAW = idx_w(NENT)
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
  output logic                  stat_notif_off   // a notification dropped: ring off (pulse)
);

`ifndef SYNTHESIS
  initial begin
    if (NENT < 2 || EAW > KEYW) $fatal(1, "qrdma_rx_cpl: NENT must be in 2..2^KEYW");
  end
`endif

  logic            e0_go, e1_v_q, e1_move, e2_v_q, e2_go;
  rx_evt_t         ev_q;       // E0: the head event

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

  // ------------------------------------------------------------------ E1, E2: decide
  // E1: the error bit is in the RAM, E2: in its output register (err_rd); each stage
  // waits only while the next one holds an event that does not move.
  /* verilator lint_off UNUSEDSIGNAL */  // wtag is used in E0 only
  rx_evt_t   e1_q, e2_q;
  /* verilator lint_on UNUSEDSIGNAL */
  rsp_desc_t rsp;
  rx_ntf_t   nreq;
  logic      to_ntf, rsp_push_q, ntf_push_q, rsp_s_ready, ntf_s_ready;

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
  assign to_ntf   = e2_q.ntf && !err_rd && !cfg_nq_off;
  assign e2_go    = e2_v_q && !s_hack_valid;
  assign s_hack_ready = 1'b1;

  // E3: the pushes registered (the FIFOs' counts and write ports meet no decision on the
  // RAM's output)
  rsp_desc_t rsp_q;
  rx_ntf_t   nreq_q;

  always_ff @(posedge clk) begin
    rsp_push_q       <= s_hack_valid || (e2_go && !to_ntf);
    ntf_push_q       <= e2_go && to_ntf;
    rsp_q          <= s_hack_valid ? s_hack : rsp;
    nreq_q         <= nreq;
    stat_nack      <= e2_go && err_rd;
    stat_notif_off <= e2_go && e2_q.ntf && !err_rd && cfg_nq_off;
    if (rst) begin
      rsp_push_q       <= 1'b0;
      ntf_push_q       <= 1'b0;
      stat_nack      <= 1'b0;
      stat_notif_off <= 1'b0;
    end
  end

  // ------------------------------------------------------------------ FIFOs
  /* verilator lint_off UNUSEDSIGNAL */  // never full by construction (asserted below)
  logic rsp_af, ntf_af;
  /* verilator lint_on UNUSEDSIGNAL */

  qrdma_sync_fifo #(.WIDTH($bits(rsp_desc_t)), .DEPTH(NENT)) u_rsp_fifo (
    .clk, .rst,
    .s_valid(rsp_push_q), .s_ready(rsp_s_ready), .s_data(rsp_q),
    .m_valid(m_rsp_valid), .m_ready(m_rsp_ready), .m_data(m_rsp),
    .count(occ_rsp), .almost_full(rsp_af)
  );

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
  end
`endif

endmodule

`default_nettype wire
