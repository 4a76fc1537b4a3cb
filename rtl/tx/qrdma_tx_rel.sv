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
//     ERR_TIMEOUT), which disarms it when the engine takes it.
// The engine ends the transfer of a NACKed block in ERROR with the NACK's reason.
// Contract: after reset the unit clears its timers (1024 cycles: descriptors wait); each
// descriptor stream passes a register slice (one cycle, registered ready);
// m_nack is a FIFO's head. cfg_timeout is in cycles (0: the timers are off; read when a
// descriptor is passed on), in ticks of 2^TICK_SHIFT cycles; a descriptor passed on in
// cycle t times out in t + cfg_timeout .. t + cfg_timeout + 2 * 2^TICK_SHIFT + NUM_TIDS + 6
// (docs/reliability.md "Timers"). Timing: descriptors one cycle; a NACK for an
// unreachable destination is valid on m_nack three cycles after the engine's handshake.
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

  // after reset the armed bits are cleared, one TID per cycle (NUM_TIDS cycles): no
  // descriptor passes meanwhile
  logic          init_q, init1_q, init2_q, init_busy;
  logic [TW-1:0] init_tid_q;

  // (the clears are written two cycles after their address: busy until the last one;
  // init_busy = init_q || init1_q || init2_q, a register of its own)

  always_ff @(posedge clk) begin
    if (init_q) begin
      init_tid_q <= init_tid_q + TW'(1);
      if (init_tid_q == TW'(NUM_TIDS - 1)) init_q <= 1'b0;
    end
    init1_q   <= init_q;
    init2_q   <= init1_q;
    init_busy <= init_q || init1_q;  // (init_q only falls: it implies init1_q next)
    if (rst) begin
      init_q     <= 1'b1;
      init1_q    <= 1'b1;
      init2_q    <= 1'b1;
      init_busy  <= 1'b1;
      init_tid_q <= '0;
    end
  end

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
  assign m_blk_valid = bq_valid && bq_ok && !init_busy;
  assign m_pkt_valid = pq_valid && pq_ok && !pend_q && !init_busy;
  assign blk_pass    = m_blk_valid && m_blk_ready;
  assign pkt_pass    = m_pkt_valid && m_pkt_ready;
  // unreachable: one NACK per cycle, blocks first
  assign blk_unr     = bq_valid && !bq_ok && nack_room && !init_busy;
  assign pkt_unr     = pq_valid && !pq_ok && nack_room && !blk_unr && !init_busy;
  assign bq_ready    = bq_ok ? (m_blk_ready && !init_busy) : blk_unr;
  assign pq_ready    = pq_ok ? (m_pkt_ready && !pend_q && !init_busy) : pkt_unr;

  // the arm: its key registered (arm_q: the address of the armed bits' set port, which
  // takes it two cycles ahead), then written (arm3_q) into the armed bits and both timer
  // RAMs
  logic arm_v_q, arm2_v_q, arm3_v_q;
  key_t arm_d, arm_q, arm2_q, arm3_q;

  always_comb begin
    if (blk_pass)    arm_d = bq_key;
    else if (pend_q) arm_d = pend_key_q;
    else             arm_d = pq_key;
  end

  always_ff @(posedge clk) begin
    arm_v_q  <= blk_pass || pend_q || pkt_pass;
    arm_q    <= arm_d;
    arm2_v_q <= arm_v_q;
    arm2_q   <= arm_q;
    arm3_v_q <= arm2_v_q;
    arm3_q   <= arm2_q;
    if (blk_pass) begin
      if (pkt_pass) begin
        pend_q     <= 1'b1;
        pend_key_q <= pq_key;
      end
    end else begin
      pend_q <= 1'b0;
    end
    if (rst) begin
      arm_v_q  <= 1'b0;
      arm2_v_q <= 1'b0;
      arm3_v_q <= 1'b0;
      pend_q  <= 1'b0;
    end
  end

  // ------------------------------------------------------------------ timer tables
  // The armed bits in a two-write memory (port A: the arm sets, port B: a matching
  // acknowledgement clears; after reset port B clears every TID, init_q). A timeout does
  // not clear its bit: its NACK does, when the engine takes it (the acknowledgement
  // path), long before the scan comes round again. The arm's {timed, seq, deadline} for
  // the scan and its seq for the acknowledgement match each in a RAM of its own (written
  // by the arm).
  typedef struct packed {
    logic            timed;
    logic [SEQW-1:0] seq;
    logic [SW-1:0]   deadline;
  } tmr_t;

  logic                clr_ack;
  logic [TW-1:0]       clr_ack_tid;
  tmr_t                arm_w, sc_rd;
  logic [SEQW-1:0]     ak_rd;
  logic [0:0]          arm_rd;

  assign arm_w = '{timed: on_q, seq: arm3_q.seq, deadline: tick + to_q};

  // ------------------------------------------------------------------ disarm
  // A0: the acknowledgement taken, its TID's seq read; A1: the RAM's output register
  // (and the TID given to the armed bits' clear port, two cycles ahead); A2: compared;
  // A3: cleared.
  key_t          ak;
  logic          a1_v_q, a2_v_q, a3_v_q, a1_hit_q, a2_hit_q;
  logic [TW-1:0] a1_tid_q, a2_tid_q, a3_tid_q;
  logic [SEQW-1:0] a1_seq_q, a2_seq_q;
  logic          a0_hit, a1_hit, a2_hit;

  assign ak     = '{tid: ack_data[ACK_DESC_TID_LSB +: TW], seq: ack_data[ACK_DESC_SEQ_LSB +: SEQW]};
  assign a0_hit = arm3_v_q && arm3_q.tid == ak.tid;
  assign a1_hit = arm3_v_q && arm3_q.tid == a1_tid_q;
  assign a2_hit = arm3_v_q && arm3_q.tid == a2_tid_q;

  // ------------------------------------------------------------------ scan
  // S0 reads TID sc_q (armed bit, timer RAM), S1 has the armed bit, S2 the RAM's output
  // register and computes tick - deadline, S3 decides. hit: the TID was armed or
  // disarmed since S0 (the words read may be old): no decision on it in this round.
  logic [TW-1:0] sc_q, s1_tid_q, s2_tid_q, s3_tid_q;
  logic          s2_arm_q, s3_arm_q;
  logic          s1_hit_q, s2_hit_q, s3_hit_q;
  logic          s3_due_q;
  logic [SEQW-1:0] s3_seq_q;

  function automatic logic touched(input logic [TW-1:0] t, input logic av, input logic [TW-1:0] at,
                                   input logic cv, input logic [TW-1:0] ct);
    return (av && at == t) || (cv && ct == t);
  endfunction

  logic s0_hit, s1_hit, s2_hit, s3_hit, s3_ack;
  assign s0_hit = touched(sc_q, arm3_v_q, arm3_q.tid, clr_ack, clr_ack_tid);
  assign s1_hit = touched(s1_tid_q, arm3_v_q, arm3_q.tid, clr_ack, clr_ack_tid);
  assign s2_hit = touched(s2_tid_q, arm3_v_q, arm3_q.tid, clr_ack, clr_ack_tid);
  assign s3_hit = touched(s3_tid_q, arm3_v_q, arm3_q.tid, clr_ack, clr_ack_tid);

  logic [SW-1:0] s2_late;
  assign s2_late = tick - sc_rd.deadline;

  qrdma_mem_2w #(.WIDTH(1), .DEPTH(NUM_TIDS), .A_LEAD(1'b1), .B_LEAD(1'b1), .RD_REG(1'b1))
  u_armed (
    .clk,
    .a_en(arm3_v_q), .a_addr(arm_q.tid), .a_data(1'b1),
    .b_en(init2_q || clr_ack), .b_addr(init_q ? init_tid_q : a1_tid_q), .b_data(1'b0),
    .rd_en(1'b1), .rd_addr(sc_q), .rd_data(arm_rd)
  );

  // (RDW_ANY: a read that meets an arm of its TID is a hit, its data is not used)
  qrdma_sdp_ram #(.WIDTH($bits(tmr_t)), .DEPTH(NUM_TIDS), .OUT_REG(1'b1), .RDW_ANY(1'b1))
  u_sc_ram (
    .clk,
    .wr_en(arm3_v_q), .wr_be(1'b1), .wr_addr(arm3_q.tid), .wr_data(arm_w),
    .rd_en(1'b1), .rd_addr(sc_q), .rd_oe(1'b1), .rd_data(sc_rd)
  );

  always_ff @(posedge clk) begin
    sc_q     <= sc_q + TW'(1);
    s1_tid_q <= sc_q;
    s1_hit_q <= s0_hit;
    s2_tid_q <= s1_tid_q;
    s2_arm_q <= arm_rd[0];
    s2_hit_q <= s1_hit_q || s1_hit;
    s3_tid_q <= s2_tid_q;
    s3_arm_q <= s2_arm_q && sc_rd.timed;
    s3_hit_q <= s2_hit_q || s2_hit;
    s3_seq_q <= sc_rd.seq;
    s3_due_q <= !s2_late[SW-1];  // tick >= deadline (modulo 2^SW)
    if (rst) sc_q <= '0;
  end

  // a timeout NACK is pushed when the FIFO has room and no unreachable NACK takes the
  // cycle, nor when an acknowledgement of the TID is on its way to clearing it (any seq: a
  // stale one delays the NACK by a round), so a NACK never follows the acknowledgement
  // it races; otherwise the timer stays armed and is found again a round later
  assign s3_ack    = (ack_valid && ak.tid == s3_tid_q) || (a1_v_q && a1_tid_q == s3_tid_q)
                     || (a2_v_q && a2_tid_q == s3_tid_q);
  assign scan_fire = s3_arm_q && s3_due_q && !s3_hit_q && !s3_hit && !s3_ack && on_q
                     && !init_busy && nack_room && !blk_unr && !pkt_unr;

  qrdma_sdp_ram #(.WIDTH(SEQW), .DEPTH(NUM_TIDS), .OUT_REG(1'b1), .RDW_ANY(1'b1))
  u_ak_ram (
    .clk,
    .wr_en(arm3_v_q), .wr_be(1'b1), .wr_addr(arm3_q.tid), .wr_data(arm3_q.seq),
    .rd_en(ack_valid), .rd_addr(ak.tid), .rd_oe(1'b1), .rd_data(ak_rd)
  );

  always_ff @(posedge clk) begin
    a1_v_q   <= ack_valid && !init_q;  // (init_q: the armed bits' clear port is the sweep's)
    a1_tid_q <= ak.tid;
    a1_seq_q <= ak.seq;
    a1_hit_q <= a0_hit;
    a2_v_q   <= a1_v_q;
    a2_tid_q <= a1_tid_q;
    a2_seq_q <= a1_seq_q;
    a2_hit_q <= a1_hit_q || a1_hit;
    // the clear of A3 decided here: the seqs equal, no arm of the TID since A0 (a2_hit:
    // the one of this cycle), none in A3 either (its key is arm2 now: the two ports never
    // write one TID in a cycle; the arm sets the bit anyway)
    a3_v_q   <= a2_v_q && ak_rd == a2_seq_q && !a2_hit_q && !a2_hit
                && !(arm2_v_q && arm2_q.tid == a2_tid_q);
    a3_tid_q <= a2_tid_q;
    if (rst) begin
      a1_v_q <= 1'b0;
      a2_v_q <= 1'b0;
      a3_v_q <= 1'b0;
    end
  end

  // (an arm since A0 means the word compared was older than the TID's timer)
  assign clr_ack     = a3_v_q;
  assign clr_ack_tid = a3_tid_q;

  // ------------------------------------------------------------------ NACKs
  logic                  nf_valid;
  logic [ACK_DESC_W-1:0] nf_data;

  always_comb begin
    nf_valid = blk_unr || pkt_unr || scan_fire;
    if (blk_unr)      nf_data = nack(bq_key, 4'(ERR_UNREACHABLE));
    else if (pkt_unr) nf_data = nack(pq_key, 4'(ERR_UNREACHABLE));
    else              nf_data = nack('{tid: s3_tid_q, seq: s3_seq_q}, 4'(ERR_TIMEOUT));
  end

  // the NACK decided in a cycle is pushed in the next (nq_q): room means room for it
  // with one push on its way (almost full at DEPTH - 1)
  logic                  nq_v_q, nack_af, nack_sready;
  logic [ACK_DESC_W-1:0] nq_q;

  assign nack_room = !nack_af;

  always_ff @(posedge clk) begin
    nq_v_q       <= nf_valid;
    nq_q         <= nf_data;
    stat_timeout <= scan_fire;
    stat_unreach <= blk_unr || pkt_unr;
    if (rst) begin
      nq_v_q       <= 1'b0;
      stat_timeout <= 1'b0;
      stat_unreach <= 1'b0;
    end
  end

  /* verilator lint_off PINCONNECTEMPTY */  // occupancy not needed
  qrdma_sync_fifo #(.WIDTH(ACK_DESC_W), .DEPTH(4), .ALMOST_FULL(3)) u_nack_fifo (
    .clk, .rst,
    .s_valid(nq_v_q), .s_ready(nack_sready), .s_data(nq_q),
    .m_valid(m_nack_valid), .m_ready(m_nack_ready), .m_data(m_nack_data),
    .count(), .almost_full(nack_af)
  );
  /* verilator lint_on PINCONNECTEMPTY */

`ifndef SYNTHESIS
  // the NACK queue never overflows: a push finds room
  always_ff @(posedge clk) begin
    if (!rst && nq_v_q) assert (nack_sready) else $error("qrdma_tx_rel: NACK queue overflow");
  end
`endif

endmodule

`default_nettype wire
