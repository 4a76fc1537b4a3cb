// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_tx_rel: the sender's reliability unit (docs/reliability.md), on the request path
// between the QoS engine and the send unit. It passes block and packet descriptors on
// and answers, on m_nack, for those that will never be acknowledged:
//   * a descriptor for a destination that is not reachable (its cfg_node_mask bit clear,
//     a node above 63, or this node) is not passed on: NACK (tid, seq, ERR_UNREACHABLE);
//   * every descriptor passed on arms the response timer of its TID with its seq and a
//     deadline; an acknowledgement the engine takes (ack_valid: received ACK/NACK, local
//     NACK, this unit's NACKs) with the same tid and seq disarms it; a scan visits one
//     TID per cycle and answers an armed timer past its deadline: NACK (tid, seq,
//     ERR_TIMEOUT), the timer disarmed.
// The engine ends the transfer of a NACKed block in ERROR with the NACK's reason.
// Contract: each descriptor stream passes a register slice (one cycle, registered ready);
// m_nack is a FIFO's head. cfg_timeout is in cycles (0: the timers are off; read when a
// descriptor is passed on), in ticks of 2^TICK_SHIFT cycles; a descriptor passed on in
// cycle t times out in t + cfg_timeout .. t + cfg_timeout + 2 * 2^TICK_SHIFT + NUM_TIDS + 6
// (docs/reliability.md "Timers"). Timing: descriptors one cycle; a NACK for an
// unreachable destination is valid on m_nack two cycles after the engine's handshake.
`default_nettype none

module qrdma_tx_rel
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
#(
  parameter int unsigned TICK_SHIFT = 8,   // timer tick: 2^TICK_SHIFT cycles
  parameter int unsigned STAMP_W    = 16,  // deadline bits (ticks): timeouts up to 2^(STAMP_W-1) - 2 ticks
  localparam int unsigned TW        = ACK_DESC_TID_W,
  localparam int unsigned NUM_TIDS  = 1 << TW,
  localparam int unsigned SEQW      = ACK_DESC_SEQ_W
) (
  input  logic                    clk,
  input  logic                    rst,             // synchronous, active high
  input  logic [15:0]             node_id,         // this node (never a destination)
  input  logic [31:0]             cfg_timeout,     // RETX_TIMEOUT: cycles (0: off)
  input  logic [63:0]             cfg_node_mask,   // NODE_MASK: reachable nodes
  // descriptors from the QoS engine
  input  logic                    s_blk_valid,
  output logic                    s_blk_ready,
  input  logic [BLOCK_DESC_W-1:0] s_blk_data,
  input  logic                    s_pkt_valid,
  output logic                    s_pkt_ready,
  input  logic [PKT_DESC_W-1:0]   s_pkt_data,
  // descriptors to the send unit
  output logic                    m_blk_valid,
  input  logic                    m_blk_ready,
  output logic [BLOCK_DESC_W-1:0] m_blk_data,
  output logic                    m_pkt_valid,
  input  logic                    m_pkt_ready,
  output logic [PKT_DESC_W-1:0]   m_pkt_data,
  // acknowledgements as the engine takes them
  input  logic                    ack_valid,
  /* verilator lint_off UNUSEDSIGNAL */  // the nack flag and the reason do not matter here
  input  logic [ACK_DESC_W-1:0]   ack_data,
  /* verilator lint_on UNUSEDSIGNAL */
  // NACKs of this unit, to the engine
  output logic                    m_nack_valid,
  input  logic                    m_nack_ready,
  output logic [ACK_DESC_W-1:0]   m_nack_data,
  // statistics (pulses)
  output logic                    stat_timeout,
  output logic                    stat_unreach
);

  localparam int unsigned SW = STAMP_W;
  // largest timeout in ticks: a deadline stays within half the stamp range of the ticks
  // the scan compares it with
  localparam logic [SW-1:0] TO_MAX = SW'((1 << (SW - 1)) - 2);

`ifndef SYNTHESIS
  initial begin
    if (SW < 4 || TICK_SHIFT + SW > 40) $fatal(1, "qrdma_tx_rel: STAMP_W in 4..40-TICK_SHIFT");
  end
`endif

  typedef struct packed {
    logic [TW-1:0]   tid;
    logic [SEQW-1:0] seq;
  } key_t;

  function automatic logic reachable(input logic [15:0] dst, input logic [15:0] self,
                                     input logic [63:0] mask);
    return (dst[15:6] == '0) && mask[dst[5:0]] && (dst != self);
  endfunction

  function automatic logic [ACK_DESC_W-1:0] nack(input key_t k, input logic [3:0] reason);
    ack_desc_t a;
    a        = '0;
    a.tid    = k.tid;
    a.seq    = k.seq;
    a.nack   = 1'b1;
    a.reason = reason;
    return a;
  endfunction

  // ------------------------------------------------------------------ configuration
  // timeout in ticks, rounded up, plus one tick for the phase of the tick counter at the
  // arm (a deadline is never early), clamped to TO_MAX
  logic [31:0]   now_q;
  logic [SW-1:0] to_q;
  logic          on_q;
  logic [63:0]   mask_q;
  logic [32:0]   to_up;

  assign to_up = (33'(cfg_timeout) + 33'((1 << TICK_SHIFT) - 1)) >> TICK_SHIFT;

  always_ff @(posedge clk) begin
    now_q  <= now_q + 32'd1;
    on_q   <= cfg_timeout != '0;
    to_q   <= (to_up >= 33'(TO_MAX)) ? TO_MAX : SW'(to_up) + SW'(1);
    mask_q <= cfg_node_mask;
    if (rst) now_q <= '0;
  end

  logic [SW-1:0] tick;
  assign tick = now_q[TICK_SHIFT +: SW];

  // ------------------------------------------------------------------ descriptor paths
  // the reachability of each descriptor travels through its slice as a bit of its own
  logic                    bq_valid, bq_ready, pq_valid, pq_ready;
  logic [BLOCK_DESC_W:0]   bq_data;
  logic [PKT_DESC_W:0]     pq_data;
  logic                    bq_ok, pq_ok;
  key_t                    bq_key, pq_key;
  logic [15:0]             sb_dst, sp_dst;

  // the fields used here, taken from the generated layouts
  assign sb_dst = s_blk_data[BLOCK_DESC_DST_NODE_LSB +: 16];
  assign sp_dst = s_pkt_data[PKT_DESC_DST_NODE_LSB +: 16];

  qrdma_reg_slice #(.WIDTH(BLOCK_DESC_W + 1)) u_blk_slice (
    .clk, .rst,
    .s_valid(s_blk_valid), .s_ready(s_blk_ready),
    .s_data({reachable(sb_dst, node_id, mask_q), s_blk_data}),
    .m_valid(bq_valid), .m_ready(bq_ready), .m_data(bq_data)
  );
  qrdma_reg_slice #(.WIDTH(PKT_DESC_W + 1)) u_pkt_slice (
    .clk, .rst,
    .s_valid(s_pkt_valid), .s_ready(s_pkt_ready),
    .s_data({reachable(sp_dst, node_id, mask_q), s_pkt_data}),
    .m_valid(pq_valid), .m_ready(pq_ready), .m_data(pq_data)
  );

  assign bq_key = '{tid: bq_data[BLOCK_DESC_TID_LSB +: TW], seq: bq_data[BLOCK_DESC_SEQ_LSB +: SEQW]};
  assign pq_key = '{tid: pq_data[PKT_DESC_TID_LSB +: TW], seq: pq_data[PKT_DESC_SEQ_LSB +: SEQW]};
  assign bq_ok = bq_data[BLOCK_DESC_W];
  assign pq_ok = pq_data[PKT_DESC_W];

  // One timer arm per cycle: a packet passed on in the cycle of a block waits in pend_q
  // and arms in the next cycle; while it waits no further packet is passed on.
  logic nack_room, scan_fire;
  logic blk_pass, pkt_pass, blk_unr, pkt_unr;
  logic pend_q;
  key_t pend_key_q;

  assign m_blk_data  = bq_data[BLOCK_DESC_W-1:0];
  assign m_pkt_data  = pq_data[PKT_DESC_W-1:0];
  assign m_blk_valid = bq_valid && bq_ok;
  assign m_pkt_valid = pq_valid && pq_ok && !pend_q;
  assign blk_pass    = m_blk_valid && m_blk_ready;
  assign pkt_pass    = m_pkt_valid && m_pkt_ready;
  // unreachable: one NACK per cycle, blocks first
  assign blk_unr     = bq_valid && !bq_ok && nack_room;
  assign pkt_unr     = pq_valid && !pq_ok && nack_room && !blk_unr;
  assign bq_ready    = bq_ok ? m_blk_ready : blk_unr;
  assign pq_ready    = pq_ok ? (m_pkt_ready && !pend_q) : pkt_unr;

  logic arm_v_q;
  key_t arm_q;

  always_ff @(posedge clk) begin
    arm_v_q <= blk_pass || pend_q || pkt_pass;
    if (blk_pass)    arm_q <= bq_key;
    else if (pend_q) arm_q <= pend_key_q;
    else             arm_q <= pq_key;
    if (blk_pass) begin
      if (pkt_pass) begin
        pend_q     <= 1'b1;
        pend_key_q <= pq_key;
      end
    end else begin
      pend_q <= 1'b0;
    end
    if (rst) begin
      arm_v_q <= 1'b0;
      pend_q  <= 1'b0;
    end
  end

  // ------------------------------------------------------------------ timer tables
  // armed bits in flip-flops (set by an arm, cleared by a matching acknowledgement or a
  // timeout; an arm wins over a clear of the same TID in the same cycle); the arm's
  // {timed, seq, deadline} for the scan and its seq for the acknowledgement match, each
  // in a RAM of its own (one write port: the arm; one read port each).
  typedef struct packed {
    logic            timed;
    logic [SEQW-1:0] seq;
    logic [SW-1:0]   deadline;
  } tmr_t;

  logic [NUM_TIDS-1:0] armed_q;
  logic                clr_ack, clr_fire;
  logic [TW-1:0]       clr_ack_tid, clr_fire_tid;
  tmr_t                arm_w, sc_rd;
  logic [SEQW-1:0]     ak_rd;

  assign arm_w = '{timed: on_q, seq: arm_q.seq, deadline: tick + to_q};

  always_ff @(posedge clk) begin
    if (clr_ack)  armed_q[clr_ack_tid]  <= 1'b0;
    if (clr_fire) armed_q[clr_fire_tid] <= 1'b0;
    if (arm_v_q)  armed_q[arm_q.tid]    <= 1'b1;
    if (rst) armed_q <= '0;
  end

  // ------------------------------------------------------------------ disarm
  // A0: the acknowledgement taken, its TID's seq read; A1: compared; A2: cleared.
  key_t          ak;
  logic          a1_v_q, a2_v_q, a1_hit_q, a2_hit_q;
  logic [TW-1:0] a1_tid_q, a2_tid_q;
  logic [SEQW-1:0] a1_seq_q;
  logic          a0_hit, a1_hit;

  assign ak     = '{tid: ack_data[ACK_DESC_TID_LSB +: TW], seq: ack_data[ACK_DESC_SEQ_LSB +: SEQW]};
  assign a0_hit = arm_v_q && arm_q.tid == ak.tid;
  assign a1_hit = arm_v_q && arm_q.tid == a1_tid_q;

  // ------------------------------------------------------------------ scan
  // S0 reads TID sc_q (RAM, armed bit), S1 the RAM's output register, S2 compares the
  // deadline with the tick, S3 decides. hit: the TID was armed or disarmed since S0 (the
  // words read may be old): no decision on it in this round.
  logic [TW-1:0] sc_q, s1_tid_q, s2_tid_q, s3_tid_q;
  logic          s1_arm_q, s2_arm_q, s3_arm_q;
  logic          s1_hit_q, s2_hit_q, s3_hit_q;
  logic          s3_due_q;
  logic [SEQW-1:0] s3_seq_q;

  function automatic logic touched(input logic [TW-1:0] t, input logic av, input logic [TW-1:0] at,
                                   input logic cv, input logic [TW-1:0] ct,
                                   input logic fv, input logic [TW-1:0] ft);
    return (av && at == t) || (cv && ct == t) || (fv && ft == t);
  endfunction

  logic s0_hit, s1_hit, s2_hit, s3_hit, s3_ack;
  assign s0_hit = touched(sc_q, arm_v_q, arm_q.tid, clr_ack, clr_ack_tid, clr_fire, clr_fire_tid);
  assign s1_hit = touched(s1_tid_q, arm_v_q, arm_q.tid, clr_ack, clr_ack_tid, clr_fire, clr_fire_tid);
  assign s2_hit = touched(s2_tid_q, arm_v_q, arm_q.tid, clr_ack, clr_ack_tid, clr_fire, clr_fire_tid);
  assign s3_hit = touched(s3_tid_q, arm_v_q, arm_q.tid, clr_ack, clr_ack_tid, 1'b0, clr_fire_tid);

  logic [SW-1:0] s2_late;
  assign s2_late = tick - sc_rd.deadline;

  qrdma_sdp_ram #(.WIDTH($bits(tmr_t)), .DEPTH(NUM_TIDS), .OUT_REG(1'b1)) u_sc_ram (
    .clk,
    .wr_en(arm_v_q), .wr_be(1'b1), .wr_addr(arm_q.tid), .wr_data(arm_w),
    .rd_en(1'b1), .rd_addr(sc_q), .rd_oe(1'b1), .rd_data(sc_rd)
  );

  always_ff @(posedge clk) begin
    sc_q     <= sc_q + TW'(1);
    s1_tid_q <= sc_q;
    s1_arm_q <= armed_q[sc_q];
    s1_hit_q <= s0_hit;
    s2_tid_q <= s1_tid_q;
    s2_arm_q <= s1_arm_q;
    s2_hit_q <= s1_hit_q || s1_hit;
    s3_tid_q <= s2_tid_q;
    s3_arm_q <= s2_arm_q && sc_rd.timed;
    s3_hit_q <= s2_hit_q || s2_hit;
    s3_seq_q <= sc_rd.seq;
    s3_due_q <= !s2_late[SW-1];  // tick >= deadline (modulo 2^SW)
    if (rst) sc_q <= '0;
  end

  // a timeout NACK is pushed when the FIFO has room and no unreachable NACK takes the
  // cycle; otherwise the timer stays armed and is found again a round later
  // nor when an acknowledgement of the TID is on its way to clearing it (any seq: a stale
  // one delays the NACK by a round), so a NACK never follows the acknowledgement it races
  assign s3_ack       = (ack_valid && ak.tid == s3_tid_q) || (a1_v_q && a1_tid_q == s3_tid_q);
  assign scan_fire    = s3_arm_q && s3_due_q && !s3_hit_q && !s3_hit && !s3_ack && on_q
                        && nack_room && !blk_unr && !pkt_unr;
  assign clr_fire     = scan_fire;
  assign clr_fire_tid = s3_tid_q;

  qrdma_sdp_ram #(.WIDTH(SEQW), .DEPTH(NUM_TIDS)) u_ak_ram (
    .clk,
    .wr_en(arm_v_q), .wr_be(1'b1), .wr_addr(arm_q.tid), .wr_data(arm_q.seq),
    .rd_en(ack_valid), .rd_addr(ak.tid), .rd_oe(1'b1), .rd_data(ak_rd)
  );

  always_ff @(posedge clk) begin
    a1_v_q   <= ack_valid;
    a1_tid_q <= ak.tid;
    a1_seq_q <= ak.seq;
    a1_hit_q <= a0_hit;
    a2_v_q   <= a1_v_q && ak_rd == a1_seq_q;
    a2_tid_q <= a1_tid_q;
    a2_hit_q <= a1_hit_q || a1_hit;
    if (rst) begin
      a1_v_q <= 1'b0;
      a2_v_q <= 1'b0;
    end
  end

  // an arm in this cycle wins anyway (armed_q); an arm since A0 means the word compared
  // was older than the TID's timer
  assign clr_ack     = a2_v_q && !a2_hit_q;
  assign clr_ack_tid = a2_tid_q;

  // ------------------------------------------------------------------ NACKs
  logic                  nf_valid;
  logic [ACK_DESC_W-1:0] nf_data;

  always_comb begin
    nf_valid = blk_unr || pkt_unr || scan_fire;
    if (blk_unr)      nf_data = nack(bq_key, 4'(ERR_UNREACHABLE));
    else if (pkt_unr) nf_data = nack(pq_key, 4'(ERR_UNREACHABLE));
    else              nf_data = nack('{tid: s3_tid_q, seq: s3_seq_q}, 4'(ERR_TIMEOUT));
  end

  /* verilator lint_off PINCONNECTEMPTY */  // occupancy not needed
  qrdma_sync_fifo #(.WIDTH(ACK_DESC_W), .DEPTH(4)) u_nack_fifo (
    .clk, .rst,
    .s_valid(nf_valid), .s_ready(nack_room), .s_data(nf_data),
    .m_valid(m_nack_valid), .m_ready(m_nack_ready), .m_data(m_nack_data),
    .count(), .almost_full()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  always_ff @(posedge clk) begin
    stat_timeout <= scan_fire;
    stat_unreach <= blk_unr || pkt_unr;
    if (rst) begin
      stat_timeout <= 1'b0;
      stat_unreach <= 1'b0;
    end
  end

endmodule

`default_nettype wire
