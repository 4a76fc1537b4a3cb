// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_rx_notif: the completion side of qrdma_rx (docs/nic.md "Receive unit"; seed 004
// §3.3 notification queue). It takes the completion events of the header processor in
// order. The event at the head waits until the write commands it covers are complete:
// done_cmd pulses (one per RING/IMM command whose B came back, in order) are counted,
// and the event is due once that count reaches its wtag. Then
//   * ack: an ACK request (src_node, tid, seq) goes out on m_ackreq (nack is always 0:
//     the receive unit has no condition that refuses a block);
//   * ntf: a notif_entry (marker NOTIF_FULL) is written to the ring at
//     cfg_nq_base + 64 * (issued mod cfg_nq_size) through the write engine, but only while
//     issued - cfg_nq_tail < cfg_nq_size (otherwise it waits for software to take an
//     entry, holding every later event); with cfg_nq_size = 0 notifications are off and
//     the entry is not written. nq_head counts the entries whose B came back (done_ntf).
// The event leaves when both are done, so each ACK and each notification goes out once.
// cfg_nq_reset sets nq_head to 0 (entries still in flight keep their place in `issued`).
//
// Timing: done_cmd in cycle b (the B came at b-1) -> count updated at b+1 -> the head
// event is found due at b+2 -> ACK request valid (registered) and the notification write
// offered at b+3. ACK request and notification of one event go out independently; at
// most one notification every second cycle.
`default_nettype none

module qrdma_rx_notif
  import qrdma_fmt_pkg::*;
  import qrdma_rx_pkg::*;
(
  input  logic            clk,
  input  logic            rst,
  // completion events
  input  logic            s_evt_valid,
  output logic            s_evt_ready,
  input  rx_evt_t         s_evt,
  // write completions (write engine)
  input  logic            done_cmd,
  input  logic            done_ntf,
  // ACK requests to the send unit
  output logic            m_ackreq_valid,
  input  logic            m_ackreq_ready,
  output logic [15:0]     m_ackreq_dst,
  output logic [9:0]      m_ackreq_tid,
  output logic [15:0]     m_ackreq_seq,
  output logic            m_ackreq_nack,
  // notification writes to the write engine
  output logic            m_ntf_valid,
  input  logic            m_ntf_ready,
  output logic [BAW-1:0]  m_ntf_baddr,
  output logic [511:0]    m_ntf_data,
  // ring configuration
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic [63:0]     cfg_nq_base,   // 64-byte aligned: bits 5:0 are not used
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic [31:0]     cfg_nq_size,
  input  logic [31:0]     cfg_nq_tail,
  input  logic            cfg_nq_reset,
  output logic [31:0]     nq_head,
  output logic            stat_notif
);

  logic [TAGW-1:0] bcnt_q;      // write commands complete
  logic [31:0]     issued_q;    // notifications handed to the write engine
  logic [31:0]     head_q;      // notifications written (B back)
  logic            ev_v_q;      // ev_q holds the head event
  rx_evt_t         ev_q;
  logic            ackd_q, ntfd_q;  // its ACK / notification is done
  logic            due_q;       // its writes are complete (registered: one cycle late)
  logic            ring_ok_q;   // the ring has room (registered, see below)
  logic            ntf_go_q;
  logic [TAGW-1:0] wdiff;
  logic            ntf_off, ack_go, ntf_go, ntf_skip, ack_ok, ntf_ok, ev_done;
  notif_entry_t    ent;
  logic [31:0]     slot;        // ring slot of the next notification

  // The head event is registered and `due` and `ring_ok` are computed from registers a
  // cycle ahead (both only become true later than exact, never earlier: bcnt_q only
  // grows; issued_q grows only by ntf_go, and no notification goes in the cycle after one
  // or after cfg_nq_reset, so ring_ok_q never rests on a stale issued_q).
  assign slot    = issued_q & (cfg_nq_size - 32'd1);
  assign wdiff   = bcnt_q - ev_q.wtag;
  assign ntf_off = (cfg_nq_size == '0);

  // ack_pend_q = ev_q.ack && !ackd_q, ntf_pend_q = ev_q.ntf && !ntfd_q: registered with
  // ev_q, ackd_q and ntfd_q (from their next values), so that the handshake logic below,
  // which depends on the ready inputs, combines single bits (cheaper to simulate).
  logic            ack_pend_q, ntf_pend_q;

  assign ack_go   = due_q && ack_pend_q && (!m_ackreq_valid || m_ackreq_ready);
  assign ntf_go   = due_q && ntf_pend_q && ring_ok_q && !ntf_go_q
                    && (!m_ntf_valid || m_ntf_ready);
  assign ntf_skip = due_q && ntf_pend_q && ntf_off;
  assign ack_ok   = !ack_pend_q || ack_go;
  assign ntf_ok   = !ntf_pend_q || ntf_go || ntf_skip;
  assign ev_done  = ev_v_q && due_q && ack_ok && ntf_ok;
  assign s_evt_ready = !ev_v_q || ev_done;

  always_comb begin
    ent          = '0;
    ent.marker   = 8'(NOTIF_FULL);
    ent.kind     = ev_q.kind;
    ent.src_node = ev_q.src_node;
    ent.xfer     = ev_q.xfer;
    ent.pd       = ev_q.pd;
    ent.size     = ev_q.size;
    ent.tag      = ev_q.tag;
    ent.dst_addr = ev_q.dst_addr;
    ent.seq      = ev_q.seq;
  end

  always_ff @(posedge clk) begin
    if (s_evt_valid && s_evt_ready) ev_q <= s_evt;
  end

  // One process, reset last: every register is read before it is written, so Verilator
  // updates them in place (docs/development.md).
  always_ff @(posedge clk) begin
    logic ev_ack_n, ev_ntf_n, ackd_n, ntfd_n;
    ev_ack_n   = (s_evt_valid && s_evt_ready) ? s_evt.ack : ev_q.ack;
    ev_ntf_n   = (s_evt_valid && s_evt_ready) ? s_evt.ntf : ev_q.ntf;
    ackd_n     = !rst && !ev_done && (ackd_q || ack_go);
    ntfd_n     = !rst && !ev_done && (ntfd_q || ntf_go || ntf_skip);
    ack_pend_q <= ev_ack_n && !ackd_n;
    ntf_pend_q <= ev_ntf_n && !ntfd_n;

    bcnt_q <= bcnt_q + TAGW'(done_cmd);
    if (cfg_nq_reset) begin
      head_q   <= '0;
      issued_q <= issued_q + 32'(ntf_go) - head_q - 32'(done_ntf);
    end else begin
      head_q   <= head_q + 32'(done_ntf);
      issued_q <= issued_q + 32'(ntf_go);
    end
    stat_notif <= done_ntf;
    if (s_evt_ready) ev_v_q <= s_evt_valid;
    due_q     <= ev_v_q && !ev_done && !wdiff[TAGW-1];
    ring_ok_q <= !ntf_off && !cfg_nq_reset && (issued_q - cfg_nq_tail) < cfg_nq_size;
    ntf_go_q  <= ntf_go;
    ackd_q    <= ackd_n;
    ntfd_q    <= ntfd_n;
    if (ack_go)              m_ackreq_valid <= 1'b1;
    else if (m_ackreq_ready) m_ackreq_valid <= 1'b0;
    if (ntf_go)              m_ntf_valid <= 1'b1;
    else if (m_ntf_ready)    m_ntf_valid <= 1'b0;
    if (rst) begin
      bcnt_q         <= '0;
      issued_q       <= '0;
      head_q         <= '0;
      ev_v_q         <= 1'b0;
      due_q          <= 1'b0;
      ring_ok_q      <= 1'b0;
      ntf_go_q       <= 1'b0;
      m_ackreq_valid <= 1'b0;
      m_ntf_valid    <= 1'b0;
      stat_notif     <= 1'b0;
    end
  end

  always_ff @(posedge clk) begin
    if (ack_go) begin
      m_ackreq_dst <= ev_q.src_node;
      m_ackreq_tid <= ev_q.tid;
      m_ackreq_seq <= ev_q.seq;
    end
    if (ntf_go) begin
      m_ntf_baddr <= cfg_nq_base[63:6] + BAW'(slot);
      m_ntf_data  <= ent;
    end
  end

  assign m_ackreq_nack = 1'b0;
  assign nq_head       = head_q;

endmodule

`default_nettype wire
