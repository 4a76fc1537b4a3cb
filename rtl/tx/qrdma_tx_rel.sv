// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_tx_rel: the sender's reliability unit (docs/reliability.md), on the request path
// between the QoS engine and the send unit. It passes block and packet descriptors on,
// re-sends those whose response does not come, and answers, on m_nack, for those that
// will never be acknowledged:
//   * a descriptor for a destination that is not reachable (its cfg_node_mask bit clear,
//     a node above 63, or this node) is not passed on: NACK (tid, seq, ERR_UNREACHABLE);
//   * every descriptor passed on is kept per TID and arms the response timer of its TID
//     with its seq; the send unit's pulse on s_sent (the descriptor's last packet picked
//     for the link) sets its deadline; an acknowledgement the engine takes (ack_valid:
//     received ACK/NACK, local NACK, this unit's NACKs) with the same tid and seq disarms
//     it; a scan visits one TID per cycle and finds an armed timer past its deadline
//     (one found in turn without room for its answer holds the scan on its TID):
//     - fewer than cfg_retry_limit re-sends so far: the kept block, inline or control
//       packet (a notifying transfer's last block with its control packet) is passed on
//       again, with the timeout doubled per re-send up to 2^cfg_backoff times (cfg_probe:
//       a block's first re-send is its last packet alone, a probe the receiver answers
//       with a MISS);
//     - else NACK (tid, seq, ERR_TIMEOUT), which disarms it when the engine takes it.
//   * a MISS report (s_miss: packets pkt_first .. pkt_first + pkt_num - 1 of block (tid,
//     seq) are missing at the receiver) is kept per TID and its TID visited out of turn;
//     the scan, visiting the TID, re-sends that run of the kept block (cfg_gbn: from
//     pkt_first to the block's end) when the timer is armed with its seq and not due,
//     without counting it as a re-send for cfg_retry_limit, and drops the report otherwise.
// Whatever it passes on again carries the descriptor's resend bit (the send unit keeps its
// generation, docs/reliability.md "Exactly once"); what it passes on first never does.
// The engine ends the transfer of a NACKed block in ERROR with the NACK's reason.
// Contract: after reset the unit clears its timers and kept descriptors (1024 cycles:
// descriptors wait); each descriptor stream passes a register slice (one cycle,
// registered ready); a re-send has priority over the engine's descriptors; m_nack is a
// FIFO's head. cfg_timeout is in cycles (0: the timers are off; read when a descriptor
// is passed on), in ticks of 2^TICK_SHIFT cycles; a timer whose last s_sent pulse since
// its arm came in cycle t times out in t + T .. t + T + 2 * 2^TICK_SHIFT + ROUND + 6,
// T = cfg_timeout << min(re-sends, cfg_backoff), ROUND = NUM_TIDS + NUM_TIDS / MV_GAP + 1
// (the scan's longest round), and never before a pulse (docs/reliability.md "Timers"). s_sent for a descriptor must come 6 cycles or more after it
// passed on (the send unit's pipeline is longer); a pulse for a TID whose timer is not
// armed does nothing, one of an earlier use of the TID starts its timer early (a re-send
// the receiver drops as a duplicate). Timing: descriptors one
// cycle; a NACK for an unreachable destination is valid on m_nack three cycles after the
// engine's handshake.
// s_miss is a pulse (no backpressure, one per cycle at most): a MISS in cycle m is kept
// from m + 4 on, and its re-send is offered at the earliest in m + 12, by m + 28 when no
// other MISS waits for its visit, and, when no scan round is lost, at the latest in
// m + ROUND + 11, plus the re-sends queued before it (docs/reliability.md "MISS-driven
// re-sends").
`default_nettype none

module qrdma_tx_rel
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
#(
  parameter int unsigned TICK_SHIFT = 8,   // timer tick: 2^TICK_SHIFT cycles
  parameter int unsigned DEADLINE_W = 16,  // deadline bits (ticks): timeouts up to 2^(DEADLINE_W-1) - 2 ticks
  parameter int unsigned RQ_DEPTH   = 4,   // timeouts waiting for their re-send
  parameter int unsigned MV_DEPTH   = 4,   // MISS TIDs waiting for a visit out of turn
  parameter int unsigned MV_GAP     = 4,   // visits in turn after one out of turn, at least
  parameter int unsigned MAX_PAYLOAD = 1024, // the send unit's largest packet payload (power of 2)
  localparam int unsigned TW        = ACK_DESC_TID_W,
  localparam int unsigned NUM_TIDS  = 1 << TW,
  localparam int unsigned SEQW      = ACK_DESC_SEQ_W
) (
  input  logic                    clk,
  input  logic                    rst,             // synchronous, active high
  input  logic [15:0]             node_id,         // this node (never a destination)
  input  logic [31:0]             cfg_timeout,     // RETX_TIMEOUT: cycles (0: off)
  input  logic [63:0]             cfg_node_mask,   // NODE_MASK: reachable nodes
  input  logic [7:0]              cfg_retry_limit, // RETRY_LIMIT: re-sends before ERR_TIMEOUT
  input  logic [3:0]              cfg_backoff,     // RETRY_LIMIT: timeout doublings, at most
  input  logic                    cfg_gbn,         // 1: a MISS re-sends from its first packet to the block's end
  input  logic                    cfg_probe,       // 1: a block's timeout re-sends its last packet only
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
  // a descriptor's last packet picked for the link by the send unit (a pulse, no
  // backpressure): its TID's timer counts from here
  input  logic                    s_sent_valid,
  input  logic [TW-1:0]           s_sent_tid,
  // missing-packet reports from the receive unit (a pulse each, no backpressure)
  input  logic                    s_miss_valid,
  input  logic [MISS_DESC_W-1:0]  s_miss_data,
  // NACKs of this unit, to the engine
  output logic                    m_nack_valid,
  input  logic                    m_nack_ready,
  output logic [ACK_DESC_W-1:0]   m_nack_data,
  // statistics (pulses)
  output logic                    stat_timeout,    // a timer ran out: NACK ERR_TIMEOUT
  output logic                    stat_unreach,    // a descriptor not sent: unreachable
  output logic                    stat_retx,       // a timed-out descriptor sent again
  output logic                    stat_miss_retx   // a run of a block sent again for a MISS
);

  localparam int unsigned SW = DEADLINE_W;
  localparam int unsigned PFW = MISS_DESC_PKT_FIRST_W;
  localparam int unsigned PNW = MISS_DESC_PKT_NUM_W;
  // largest timeout in ticks: a deadline stays within half the stamp range of the ticks
  // the scan compares it with
  localparam logic [SW-1:0] TO_MAX = SW'((1 << (SW - 1)) - 2);
  // words per part of the one-bit two-write memories (qrdma_mem_2w SUB_DEPTH): a read is
  // registered after two 16-word LUT RAMs per bank, the part selected after the register
  localparam int unsigned SUB = 32;

`ifndef SYNTHESIS
  initial begin
    if (SW < 4 || TICK_SHIFT + SW > 40) $fatal(1, "qrdma_tx_rel: DEADLINE_W in 4..40-TICK_SHIFT");
    if (RQ_DEPTH < 1 || RQ_DEPTH > 16) $fatal(1, "qrdma_tx_rel: RQ_DEPTH in 1..16");
    if (MV_DEPTH < 2 || MV_DEPTH > 16) $fatal(1, "qrdma_tx_rel: MV_DEPTH in 2..16");
    if (MV_GAP < 1 || MV_GAP > 255) $fatal(1, "qrdma_tx_rel: MV_GAP in 1..255");
    if (MAX_PAYLOAD < 64 || (MAX_PAYLOAD & (MAX_PAYLOAD - 1)) != 0)
      $fatal(1, "qrdma_tx_rel: MAX_PAYLOAD a power of 2, 64 or more");
  end
`endif

  typedef struct packed {
    logic [TW-1:0]   tid;
    logic [SEQW-1:0] seq;
  } key_t;

  // what a TID's timer covers, i.e. what a re-send passes on again
  typedef enum logic [1:0] {
    K_BLK = 2'd0,  // a block
    K_PKT = 2'd1,  // a packet alone: an inline packet, or a control packet that passed on
                   // before its block
    K_CTL = 2'd2   // a notifying transfer's last block and its control packet
  } kind_e;

  // an arm of a timer: by a descriptor passed on, first or again
  typedef struct packed {
    key_t          k;
    kind_e         kind;
    logic [7:0]    rt;   // re-sends so far
    logic [SW-1:0] to;   // timeout in ticks
  } arm_t;

  // a timeout (or a MISS) waiting for its re-send
  typedef struct packed {
    key_t           k;
    kind_e          kind;
    logic [7:0]     rt;    // re-sends with this one (a MISS: the timer's, unchanged)
    logic [SW-1:0]  to;    // its timeout in ticks
    logic           miss;  // a MISS: the block's run pf, pn only
    logic [PFW-1:0] pf;
    logic [PNW-1:0] pn;
  } rq_t;

  // a TID's latest MISS report
  typedef struct packed {
    logic [SEQW-1:0] seq;
    logic [PFW-1:0]  pf;
    logic [PNW-1:0]  pn;
  } miss_t;

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
  logic          on_q, on_d;
  logic [63:0]   mask_b_q, mask_p_q;   // NODE_MASK, a copy for each descriptor stream
  logic [7:0]    lim_q;
  logic [3:0]    bo_q;
  logic [SW-1:0] bo_tab_q [16];  // the timeout doubled k times, at most TO_MAX
  logic [32:0]   to_up;

  assign on_d  = cfg_timeout != '0;
  assign to_up = (33'(cfg_timeout) + 33'((1 << TICK_SHIFT) - 1)) >> TICK_SHIFT;

  (* keep *) always_ff @(posedge clk) begin
    mask_b_q <= cfg_node_mask;
    mask_p_q <= cfg_node_mask;
  end

  always_ff @(posedge clk) begin
    now_q  <= now_q + 32'd1;
    on_q   <= on_d;
    to_q   <= (to_up >= 33'(TO_MAX)) ? TO_MAX : SW'(to_up) + SW'(1);
    lim_q  <= cfg_retry_limit;
    bo_q   <= cfg_backoff;
    for (int k = 0; k < 16; k++) begin
      logic [SW+15:0] w;
      w = (SW + 16)'(to_q) << k;
      bo_tab_q[k] <= (w >= (SW + 16)'(TO_MAX)) ? TO_MAX : SW'(w);
    end
    if (rst) now_q <= '0;
  end

  logic [SW-1:0] tick;
  assign tick = now_q[TICK_SHIFT +: SW];

  // after reset the armed bits are cleared, one TID per cycle (NUM_TIDS cycles): no
  // descriptor passes meanwhile
  logic          init_q, init1_q, init2_q, init_busy, init_nx;
  logic [TW-1:0] init_tid_q, init_tid_nx;

  // (the next cycle's sweep state: the clear ports' addresses are registers that take the
  // sweep's address or the pipeline's)
  assign init_nx     = rst || (init_q && init_tid_q != TW'(NUM_TIDS - 1));
  assign init_tid_nx = rst ? '0 : init_q ? init_tid_q + TW'(1) : init_tid_q;

  // (the clears are written two cycles after their address: busy until the last one;
  // init_busy = init_q || init1_q || init2_q, a register of its own)

  always_ff @(posedge clk) begin
    init_q     <= init_nx;
    init_tid_q <= init_tid_nx;
    init1_q    <= init_q;
    init2_q    <= init1_q;
    init_busy  <= init_q || init1_q;  // (init_q only falls: it implies init1_q next)
    if (rst) begin
      init1_q   <= 1'b1;
      init2_q   <= 1'b1;
      init_busy <= 1'b1;
    end
  end

  // ------------------------------------------------------------------ descriptor paths
  // the reachability of each descriptor travels through its slice as a bit of its own
  logic                    bq_valid, bq_ready, pq_valid, pq_ready;
  logic [BLOCK_DESC_W:0]   bq_data;
  logic [PKT_DESC_W:0]     pq_data;
  logic                    bq_ok, pq_ok;
  logic                    pq_ann;   // a REGISTER packet (announce): passed on, not kept
  key_t                    bq_key, pq_key;
  logic [15:0]             sb_dst, sp_dst;

  // the fields used here, taken from the generated layouts
  assign sb_dst = s_blk_data[BLOCK_DESC_DST_NODE_LSB +: 16];
  assign sp_dst = s_pkt_data[PKT_DESC_DST_NODE_LSB +: 16];

  qrdma_reg_slice #(.WIDTH(BLOCK_DESC_W + 1)) u_blk_slice (
    .clk, .rst,
    .s_valid(s_blk_valid), .s_ready(s_blk_ready),
    .s_data({reachable(sb_dst, node_id, mask_b_q), s_blk_data}),
    .m_valid(bq_valid), .m_ready(bq_ready), .m_data(bq_data)
  );
  qrdma_reg_slice #(.WIDTH(PKT_DESC_W + 1)) u_pkt_slice (
    .clk, .rst,
    .s_valid(s_pkt_valid), .s_ready(s_pkt_ready),
    .s_data({reachable(sp_dst, node_id, mask_p_q), s_pkt_data}),
    .m_valid(pq_valid), .m_ready(pq_ready), .m_data(pq_data)
  );

  assign bq_key = '{tid: bq_data[BLOCK_DESC_TID_LSB +: TW], seq: bq_data[BLOCK_DESC_SEQ_LSB +: SEQW]};
  assign pq_key = '{tid: pq_data[PKT_DESC_TID_LSB +: TW], seq: pq_data[PKT_DESC_SEQ_LSB +: SEQW]};
  assign bq_ok = bq_data[BLOCK_DESC_W];
  assign pq_ok = pq_data[PKT_DESC_W];
  assign pq_ann = pq_data[PKT_DESC_KIND_LSB] == 1'(PKT_CONTROL) && pq_data[PKT_DESC_ANNOUNCE_LSB];

  // ------------------------------------------------------------------ re-send stages
  // A timeout to re-send waits in the queue (rq), then its kept descriptors are read (the
  // two stores, read together, when it is popped): R1 has them in the stores' read
  // registers, R2 in their output registers, from which the fields of the check are
  // registered, RK checks them (still the timer's seq), R3 offers those that passed the
  // check (they stay in the output registers: none loads until R3 is done; none passed:
  // R3 ends at once). One re-send in R2..R3 at a time; R1 holds the next one until they
  // are empty (its words wait in the read registers). A re-send is killed when the engine
  // takes the acknowledgement of its tid and seq (registered: from A1 on), so it never
  // passes on two cycles or more after the engine took it.
  logic                   r1_v_q, r2_v_q, rk_v_q, r3_v_q, r1_k_q, r2_k_q, rk_k_q;
  logic                   r3_b_q, r3_p_q;      // R3 offers its block / its packet (below)
  logic                   r3_sent_q;           // R3: something of its re-send passed on
  rq_t                    r1_q, r2_q, rk_q, r3_q;
  logic [BLOCK_DESC_W-1:0] bs_rd;
  logic [PKT_DESC_W-1:0]  ps_rd;
  logic                   bs_rd_v;             // the block store's word was written since reset
  logic                   r_boff, r_poff, rb_pass, rp_pass, r3_done;
  logic                   r3_x_q;              // R3 superseded by an arm (see below)
  logic                   r3_run_q;            // R3's block with the run of r3_q (a MISS or a probe)
  logic                   probe_q;             // cfg_probe, registered

  // One timer arm per cycle: a packet passed on in the cycle of a block waits in pend_q
  // and arms in the next cycle; while it waits no descriptor is passed on (so every arm
  // is written within 4 cycles of its pass).
  logic nack_go_q;
  logic ob_off, op_off, ob_pass, op_pass, op_keep, blk_arm, pkt_arm, blk_unr, pkt_unr;
  logic pend_q, pend_d;
  arm_t pend_arm_q, arm_blk, arm_pkt;
  // The engine's block (packet) stream may pass unless a packet waits, the sweep runs or
  // R3 offers a block (a packet): !pend_q && !init_busy && !r3_b_q (r3_p_q), figured a
  // cycle ahead from the next values of those registers (go_b_q, go_p_q), so that each
  // slice's ready, which loads its wide registers, is one LUT from registers.
  logic go_b_q, go_p_q;
  logic r3_b_d, r3_p_d;

  assign r_boff      = r3_b_q && !pend_q;
  assign r_poff      = r3_p_q && !pend_q;
  assign ob_off      = bq_valid && bq_ok && go_b_q;
  assign op_off      = pq_valid && pq_ok && go_p_q;
  assign m_blk_valid = r_boff || ob_off;
  assign m_pkt_valid = r_poff || op_off;
  // (a MISS re-send or a probe: the kept block with the run of the MISS, or its last packet)
  // (a re-send carries its resend bit: the send unit keeps its generation)
  always_comb begin
    m_blk_data = r_boff ? bs_rd : bq_data[BLOCK_DESC_W-1:0];
    m_blk_data[BLOCK_DESC_RESEND_LSB] = r_boff;
    if (r_boff && r3_run_q) begin
      m_blk_data[BLOCK_DESC_PKT_FIRST_LSB +: BLOCK_DESC_PKT_FIRST_W] = r3_q.pf;
      m_blk_data[BLOCK_DESC_PKT_NUM_LSB +: BLOCK_DESC_PKT_NUM_W]     = r3_q.pn;
    end
    m_pkt_data = r_poff ? ps_rd : pq_data[PKT_DESC_W-1:0];
    m_pkt_data[PKT_DESC_RESEND_LSB] = r_poff;
  end
  assign ob_pass     = ob_off && m_blk_ready;
  assign op_pass     = op_off && m_pkt_ready;
  assign op_keep     = op_pass && !pq_ann;   // kept and timed: every packet but a REGISTER
  assign rb_pass     = r_boff && m_blk_ready;
  assign rp_pass     = r_poff && m_pkt_ready;
  // unreachable: one NACK per cycle, blocks first (nack_go_q: a register, so that the
  // slices' load enables come from few LUT levels; a slice's m_ready does not matter
  // while it holds no word)
  assign blk_unr     = bq_valid && !bq_ok && nack_go_q;
  // (a REGISTER for an unreachable node is dropped: its transfer's first block is NACKed)
  assign pkt_unr     = pq_valid && !pq_ok && nack_go_q && !blk_unr && !pq_ann;
  assign bq_ready    = bq_ok ? (m_blk_ready && go_b_q) : nack_go_q;
  assign pq_ready    = pq_ok ? (m_pkt_ready && go_p_q)
                             : (pq_ann || (nack_go_q && !(bq_valid && !bq_ok)));

  // what arms: a block passed on (a re-sent one unless it goes with its control packet;
  // a MISS re-send keeps its timer's kind), a packet passed on (a control packet arms its
  // last block's timer again)
  assign blk_arm = ob_pass || (rb_pass && (r3_q.kind == K_BLK || r3_q.miss));
  assign pkt_arm = op_keep || rp_pass;

  // A control packet of the engine passes on before its block when its seq is after the
  // last block's the engine passed on (lb_q; the engine's blocks come in seq order) and
  // its block does not pass in the same cycle: its timer covers the packet alone, so
  // that its re-send never takes the block store's word of an earlier use of the TID;
  // the block's arm, when it passes, covers both (docs/reliability.md "Re-sends").
  logic [SEQW-1:0] lb_q, pq_lb;
  logic            pq_ahead;

  assign pq_lb    = pq_key.seq - lb_q;
  assign pq_ahead = pq_lb != '0 && !pq_lb[SEQW-1] && !(ob_pass && bq_key.seq == pq_key.seq);

  always_ff @(posedge clk) begin
    if (ob_pass) lb_q <= bq_key.seq;
    if (rst) lb_q <= '1;   // (the engine's seqs start again at 0)
  end

  always_comb begin
    if (rb_pass) arm_blk = '{k: r3_q.k, kind: r3_q.miss ? r3_q.kind : K_BLK, rt: r3_q.rt,
                             to: r3_q.to};
    else         arm_blk = '{k: bq_key, kind: K_BLK, rt: 8'd0, to: to_q};
    if (rp_pass) arm_pkt = '{k: r3_q.k, kind: r3_q.kind, rt: r3_q.rt, to: r3_q.to};
    else         arm_pkt = '{k: pq_key,
                             kind: (pq_data[PKT_DESC_KIND_LSB] && !pq_ahead) ? K_CTL : K_PKT,
                             rt: 8'd0, to: to_q};
  end

  // the arm: registered (arm_q: the address of the armed bits' set port, which takes it
  // two cycles ahead), then written (arm3_q) into the armed bits and both timer RAMs
  logic arm_v_q, arm2_v_q, arm3_v_q;
  arm_t arm_d, arm_q, arm2_q, arm3_q;

  always_comb begin
    if (blk_arm)     arm_d = arm_blk;
    else if (pend_q) arm_d = pend_arm_q;
    else             arm_d = arm_pkt;
  end

  // (a block arms only while no packet waits: pend_q is low whenever blk_arm)
  assign pend_d = !rst && blk_arm && pkt_arm;

  always_ff @(posedge clk) begin
    arm_v_q  <= blk_arm || pend_q || pkt_arm;
    arm_q    <= arm_d;
    arm2_v_q <= arm_v_q;
    arm2_q   <= arm_q;
    arm3_v_q <= arm2_v_q;
    arm3_q   <= arm2_q;
    pend_q   <= pend_d;
    if (blk_arm && pkt_arm) pend_arm_q <= arm_pkt;
    // (init_busy's next value is init_q || init1_q; r3_b_d, r3_p_d: R3's, below)
    go_b_q   <= !pend_d && !(init_q || init1_q) && !r3_b_d;
    go_p_q   <= !pend_d && !(init_q || init1_q) && !r3_p_d;
    if (rst) begin
      arm_v_q  <= 1'b0;
      arm2_v_q <= 1'b0;
      arm3_v_q <= 1'b0;
      go_b_q   <= 1'b0;
      go_p_q   <= 1'b0;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) assert (!(blk_arm && pend_q)) else $error("qrdma_tx_rel: a block arms while a packet waits");
    if (!rst) assert (go_b_q == (!pend_q && !init_busy && !r3_b_q)
                      && go_p_q == (!pend_q && !init_busy && !r3_p_q))
      else $error("qrdma_tx_rel: go_b_q / go_p_q differ from their terms");
  end
`endif

  // ------------------------------------------------------------------ kept descriptors
  // The engine's descriptors passed on, per TID (written a cycle after the pass): blocks
  // in one store, inline and control packets in the other. A block word has a valid bit
  // that the sweep after reset clears (the seq numbers start again at reset: a word
  // from before it may carry the seq of a new timer); a packet word is live from its
  // write until its TID's disarm (the live bits, "disarm" below). RDW_ANY: a read that meets a
  // write of its TID is a re-send whose TID the engine has already used again, after it
  // took the re-send's acknowledgement: killed by then, its data is not used.
  logic                    bs_we_q, ps_we_q;
  logic [TW-1:0]           bs_addr_q, ps_addr_q;
  logic [BLOCK_DESC_W-1:0] bs_data_q;
  logic [PKT_DESC_W-1:0]   ps_data_q;
  logic                    r_pop, r1_mv_q;
  logic [TW-1:0]           r_pop_tid, rt_q;   // the popped TID; the stores' read address
  logic                    ps_we2_q, ps_we3_q;   // the packet store's write one, two cycles before
  logic [TW-1:0]           ps_addr2_q;           // its address, a cycle before

  always_ff @(posedge clk) begin
    bs_we_q   <= ob_pass;
    bs_addr_q <= bq_key.tid;
    bs_data_q <= bq_data[BLOCK_DESC_W-1:0];
    ps_we_q   <= op_keep;
    ps_we2_q  <= ps_we_q;
    ps_we3_q  <= ps_we2_q;
    ps_addr_q <= pq_key.tid;
    ps_addr2_q <= ps_addr_q;
    ps_data_q <= pq_data[PKT_DESC_W-1:0];
    if (rst) begin
      bs_we_q  <= 1'b0;
      ps_we_q  <= 1'b0;
      ps_we2_q <= 1'b0;
      ps_we3_q <= 1'b0;
    end
  end

  // (no descriptor passes during the sweep: its writes never meet a pass's)
  qrdma_sdp_ram #(.WIDTH(BLOCK_DESC_W + 1), .DEPTH(NUM_TIDS), .OUT_REG(1'b1), .RDW_ANY(1'b1))
  u_blk_store (
    .clk,
    .wr_en(bs_we_q || init_q), .wr_be(1'b1), .wr_addr(init_q ? init_tid_q : bs_addr_q),
    .wr_data({!init_q, bs_data_q}),
    .rd_en(r_pop), .rd_addr(rt_q), .rd_oe(r1_mv_q), .rd_data({bs_rd_v, bs_rd})
  );

  // (the packet store's words are live from their write until their TID's disarm: the
  // live bits below, which the sweep clears as well)
  qrdma_sdp_ram #(.WIDTH(PKT_DESC_W), .DEPTH(NUM_TIDS), .OUT_REG(1'b1), .RDW_ANY(1'b1))
  u_pkt_store (
    .clk,
    .wr_en(ps_we_q), .wr_be(1'b1), .wr_addr(ps_addr_q), .wr_data(ps_data_q),
    .rd_en(r_pop), .rd_addr(rt_q), .rd_oe(r1_mv_q), .rd_data(ps_rd)
  );

  // ------------------------------------------------------------------ timer tables
  // The armed bits in a two-write memory (port A: the arm sets, port B: a matching
  // acknowledgement clears; after reset port B clears every TID, init_q). A timeout does
  // not clear its bit: its NACK does, when the engine takes it (the acknowledgement
  // path), long before the scan comes round again. The arm's {timed, kind, re-sends,
  // seq} for the scan, its seq for the acknowledgement match and its timeout for the
  // sent pulses each in a RAM of its own (written by the arm).
  // (rt_hi and rt1 are figured from rt at the arm, so that S2's backoff index is a 4-bit
  // compare and a select after the RAM's output register)
  typedef struct packed {
    logic            timed;
    kind_e           kind;
    logic [7:0]      rt;        // re-sends so far
    logic            rt_hi;     // rt >= 16
    logic [3:0]      rt1;       // rt[3:0] + 1
    logic [SEQW-1:0] seq;
  } tmr_t;

  logic                clr_ack;
  logic [TW-1:0]       clr_ack_tid;
  tmr_t                arm_w, sc_rd;
  logic [SEQW-1:0]     ak_rd;
  logic [0:0]          arm_rd;

  assign arm_w = '{timed: on_q, kind: arm3_q.kind, rt: arm3_q.rt, rt_hi: arm3_q.rt[7:4] != 4'd0,
                   rt1: arm3_q.rt[3:0] + 4'd1, seq: arm3_q.k.seq};

  // ------------------------------------------------------------------ sent pulses
  // D0: the pulse, its TID's timeout read (written by the arm); D1: the RAM's output
  // register (and the TID given to the sent bits' set port, two cycles ahead); D2: the
  // deadline tick + timeout registered; D3: written into the deadline RAM and the sent
  // bits. The arm clears the TID's sent bit, so a timer runs only after a pulse that
  // follows its arm. A pulse whose timeout read meets an arm of its TID in D0 is of an
  // earlier use of the TID (a descriptor's pulse comes 6 cycles or more after its arm
  // is written): dropped.
  logic          d1_v_q, d2_v_q, d3_v_q;
  logic [TW-1:0] d1_tid_q, d2_tid_q, d3_tid_q;
  logic [SW-1:0] d3_dl_q, to_rd, dl_rd;
  logic          d3_we;   // D3 writes (an arm of the TID in that cycle takes the bit)
  logic          d3_arm_q; // the arm of D3's cycle is of D3's TID (compared in D2 with arm2)

  always_ff @(posedge clk) begin
    d1_v_q   <= s_sent_valid && !(arm3_v_q && arm3_q.k.tid == s_sent_tid);
    d1_tid_q <= s_sent_tid;
    d2_v_q   <= d1_v_q;
    d2_tid_q <= d1_tid_q;
    d3_v_q   <= d2_v_q;
    d3_tid_q <= d2_tid_q;
    d3_arm_q <= arm2_v_q && arm2_q.k.tid == d2_tid_q;
    d3_dl_q  <= tick + to_rd;
    if (rst) begin
      d1_v_q <= 1'b0;
      d2_v_q <= 1'b0;
      d3_v_q <= 1'b0;
    end
  end

  assign d3_we = d3_v_q && !d3_arm_q;

  qrdma_sdp_ram #(.WIDTH(SW), .DEPTH(NUM_TIDS), .OUT_REG(1'b1), .RDW_ANY(1'b1))
  u_to_ram (
    .clk,
    .wr_en(arm3_v_q), .wr_be(1'b1), .wr_addr(arm3_q.k.tid), .wr_data(arm3_q.to),
    .rd_en(s_sent_valid), .rd_addr(s_sent_tid), .rd_oe(1'b1), .rd_data(to_rd)
  );

  // ------------------------------------------------------------------ disarm
  // A0: the acknowledgement taken, its TID's seq read; A1: the RAM's output register
  // (and the TID given to the armed bits' clear port, two cycles ahead); A2: compared;
  // A3: cleared.
  key_t          ak;
  logic          a1_v_q, a2_v_q, a3_v_q, a1_hit_q, a2_ok_q;
  logic [TW-1:0] a1_tid_q, a2_tid_q, a3_tid_q;
  logic [TW-1:0] clr_tid_q;   // the armed bits' clear address: A1's TID, or the sweep's
  logic [SEQW-1:0] a1_seq_q, a2_seq_q;
  logic          a0_hit, a1_hit;

  assign ak     = '{tid: ack_data[ACK_DESC_TID_LSB +: TW], seq: ack_data[ACK_DESC_SEQ_LSB +: SEQW]};
  assign a0_hit = arm3_v_q && arm3_q.k.tid == ak.tid;
  assign a1_hit = arm3_v_q && arm3_q.k.tid == a1_tid_q;

  // ------------------------------------------------------------------ scan
  // S0 reads TID sc_q (armed bit, timer RAM), S1 has the armed bit, S2 the RAM's output
  // register and computes tick - deadline, S3 decides. hit: the TID was armed or
  // disarmed since S0 (the words read may be old): no decision on it in this round.
  logic [TW-1:0] sc_q, s1_tid_q, s2_tid_q, s3_tid_q;
  logic [TW-1:0] pt_q;   // the scan's next TID in turn
  // S0's address again for each group of memories it reads, kept as flops of their own so
  // that each address net reaches one group: the armed, sent and MISS valid bits' LUT
  // RAMs, and the timer, deadline and MISS record block RAMs (sc_q: the compares)
  logic [TW-1:0] sc_ar_q, sc_se_q, sc_mb_q, sc_rm_q;
  logic          s2_arm_q;
  logic          s1_hit_q, s2_hit_q, s3_hit_q;
  logic          s3_lim_q, s3_inq_q;
  logic          s3_tdue_q;   // armed and timed, sent, tick >= deadline, the timers on
  logic [SEQW-1:0] s3_seq_q;
  kind_e         s3_kind_q;
  logic [7:0]    s3_rt_q;
  logic [3:0]    s3_sa_q;
  logic          sc_it_q, s1_it_q, s2_it_q, s3_it_q;  // the visit is in turn
  logic          s2_inq;   // S2's TID waits for its re-send (in the queue, R1, R2, RK or R3)

  // (a sent pulse's write counts as a hit too: the deadline read may be older)
  function automatic logic touched(input logic [TW-1:0] t);
    return (arm3_v_q && arm3_q.k.tid == t) || (clr_ack && clr_ack_tid == t)
           || (d3_we && d3_tid_q == t);
  endfunction

  logic s0_hit, s1_hit, s2_hit, s3_hit, s3_ack;
  assign s0_hit = touched(sc_q);
  assign s1_hit = touched(s1_tid_q);
  assign s2_hit = touched(s2_tid_q);
  // S3's: the compares with S3's TID made in S2 against what writes in S3's cycle (arm2
  // becomes arm3, A2's TID A3's, D2's D3's), registered
  logic s3_h_arm_q, s3_h_a3_q, s3_h_d3_q;
  // and those of s3_ack / s3_armq below: A1's, A2's and arm2's TIDs against S3's (A0's,
  // A1's and arm's against S2's)
  logic s3_a1_q, s3_a2_q, s3_ar2_q;
  assign s3_hit = s3_h_arm_q || (clr_ack && s3_h_a3_q) || (d3_we && s3_h_d3_q);

  logic [SW-1:0] s2_late;
  logic          s2_bo_ge;   // the timer's re-sends reach the backoff's cap: min(rt, bo) = bo
  logic [0:0]    sent_rd;
  logic          s2_sent_q;
  assign s2_late  = tick - dl_rd;
  assign s2_bo_ge = sc_rd.rt_hi || sc_rd.rt[3:0] >= bo_q;

  qrdma_mem_2w #(.WIDTH(1), .DEPTH(NUM_TIDS), .A_LEAD(1'b1), .B_LEAD(1'b1), .RD_REG(1'b1),
                .SUB_DEPTH(SUB))
  u_armed (
    .clk,
    .a_en(arm3_v_q), .a_addr(arm_q.k.tid), .a_data(1'b1),
    .b_en(init2_q || clr_ack), .b_addr(clr_tid_q), .b_data(1'b0),
    .rd_en(1'b1), .rd_addr(sc_ar_q), .rd_data(arm_rd)
  );

  // (RDW_ANY: a read that meets an arm of its TID is a hit, its data is not used)
  qrdma_sdp_ram #(.WIDTH($bits(tmr_t)), .DEPTH(NUM_TIDS), .OUT_REG(1'b1), .RDW_ANY(1'b1))
  u_sc_ram (
    .clk,
    .wr_en(arm3_v_q), .wr_be(1'b1), .wr_addr(arm3_q.k.tid), .wr_data(arm_w),
    .rd_en(1'b1), .rd_addr(sc_rm_q), .rd_oe(1'b1), .rd_data(sc_rd)
  );

  // the sent bits (port A: the arm clears, port B: a sent pulse sets; never both on one
  // TID in a cycle, d3_we) and the deadlines of the pulses (RDW_ANY: a read that meets a
  // pulse's write of its TID is a hit)
  qrdma_mem_2w #(.WIDTH(1), .DEPTH(NUM_TIDS), .A_LEAD(1'b1), .B_LEAD(1'b1), .RD_REG(1'b1),
                .SUB_DEPTH(SUB))
  u_sent (
    .clk,
    .a_en(arm3_v_q), .a_addr(arm_q.k.tid), .a_data(1'b0),
    .b_en(d3_we), .b_addr(d1_tid_q), .b_data(1'b1),
    .rd_en(1'b1), .rd_addr(sc_se_q), .rd_data(sent_rd)
  );

  qrdma_sdp_ram #(.WIDTH(SW), .DEPTH(NUM_TIDS), .OUT_REG(1'b1), .RDW_ANY(1'b1))
  u_dl_ram (
    .clk,
    .wr_en(d3_we), .wr_be(1'b1), .wr_addr(d3_tid_q), .wr_data(d3_dl_q),
    .rd_en(1'b1), .rd_addr(sc_rm_q), .rd_oe(1'b1), .rd_data(dl_rd)
  );

  // ------------------------------------------------------------------ MISS records
  // A MISS pulse is registered (M1: its TID given to the valid bits' set port, two cycles
  // ahead), and written in M3 into the valid bits (a two-write memory like the armed bits)
  // and the record RAM (seq, run). The scan reads both in S0 with the timer (the valid bit
  // in S1, the record in S2); a MISS of the TID written in S0 .. S3 (mhit) makes the words
  // read old: no MISS decision on the TID in this round. A decision that clears the
  // record (acted on, stale, or the timer due) is registered and written in S4 through
  // the clear port (address in S2), unless a MISS of the TID is written in that cycle
  // (compared a cycle ahead, M2 against S3: both pipelines advance every cycle).
  // MISS pulses during the clearing after reset are dropped (no timer is armed then).
  miss_desc_t    mi;
  logic          mi1_v_q, mi2_v_q, mi3_v_q;
  logic [TW-1:0] mi1_tid_q, mi2_tid_q, mi3_tid_q;
  miss_t         mi1_q, mi2_q, mi3_q;
  logic          gbn_q;
  logic [0:0]    mv_rd;
  miss_t         mr_rd;
  logic          s4_mclr_q, s4_mconf_q, mclr_en;
  logic [TW-1:0] mclr_tid_q;   // the valid bits' clear address: S2's TID, or the sweep's

  assign mi = miss_desc_t'(s_miss_data);

  always_ff @(posedge clk) begin
    mi1_v_q   <= s_miss_valid && !init_busy;
    mi1_tid_q <= mi.tid;
    mi1_q     <= '{seq: mi.seq, pf: mi.pkt_first, pn: mi.pkt_num};
    mi2_v_q   <= mi1_v_q;
    mi2_tid_q <= mi1_tid_q;
    mi2_q     <= mi1_q;
    mi3_v_q   <= mi2_v_q;
    mi3_tid_q <= mi2_tid_q;
    mi3_q     <= mi2_q;
    gbn_q     <= cfg_gbn;
    if (rst) begin
      mi1_v_q <= 1'b0;
      mi2_v_q <= 1'b0;
      mi3_v_q <= 1'b0;
    end
  end

  assign mclr_en = s4_mclr_q && !s4_mconf_q;

  qrdma_mem_2w #(.WIDTH(1), .DEPTH(NUM_TIDS), .A_LEAD(1'b1), .B_LEAD(1'b1), .RD_REG(1'b1),
                .SUB_DEPTH(SUB))
  u_missed (
    .clk,
    .a_en(mi3_v_q), .a_addr(mi1_tid_q), .a_data(1'b1),
    .b_en(init2_q || mclr_en), .b_addr(mclr_tid_q), .b_data(1'b0),
    .rd_en(1'b1), .rd_addr(sc_mb_q), .rd_data(mv_rd)
  );

  // (RDW_ANY: a read that meets a MISS write of its TID is an mhit, its data is not used)
  qrdma_sdp_ram #(.WIDTH($bits(miss_t)), .DEPTH(NUM_TIDS), .OUT_REG(1'b1), .RDW_ANY(1'b1))
  u_miss_ram (
    .clk,
    .wr_en(mi3_v_q), .wr_be(1'b1), .wr_addr(mi3_tid_q), .wr_data(mi3_q),
    .rd_en(1'b1), .rd_addr(sc_rm_q), .rd_oe(1'b1), .rd_data(mr_rd)
  );

  logic            s1_mhit_q, s2_mhit_q, s3_mhit_q, s2_mv_q, s3_mv_q, s3_mseq_q, s3_armb_q;
  logic [PFW-1:0]  s3_pf_q;
  logic [PNW-1:0]  s3_pn_q;
  logic [3:0]      s3_sm_q;
  logic            s0_mhit, s1_mhit, s2_mhit, s3_mhit;
  logic            s3_mi_q;   // mi3's TID is S3's (mi2's compared with S2's)

  assign s0_mhit = mi3_v_q && mi3_tid_q == sc_q;
  assign s1_mhit = mi3_v_q && mi3_tid_q == s1_tid_q;
  assign s2_mhit = mi3_v_q && mi3_tid_q == s2_tid_q;
  assign s3_mhit = mi3_v_q && s3_mi_q;   // (mi3's TID compared in S2, as mi2's)

  // Visits out of turn: the TID of every MISS written (M3) joins a FIFO (dropped when it is
  // full: the scan's round still finds the record), and its head is visited next in S0
  // instead of the scan's next TID in turn (pt_q, which then waits a cycle), when it is in
  // none of S0..S3 (one visit of a TID at a time in the pipeline), at least MV_GAP visits
  // in turn came since the last one out of turn, and the scan does not come to it in turn
  // soon (then it is only popped): near is the head at or after pt_q in the scan's group
  // of 8 TIDs, or in the next group, so a TID visited out of turn is 9 visits in turn or
  // more ahead or was visited in turn less than 8 cycles ago, beyond the pipeline's S0..S4
  // or in it (busy) (compared without a carry chain: the next group's number is kept in
  // a register beside pt_q). A visit out of turn is a visit like any other: the same reads
  // and decisions.
  localparam int unsigned MV_GW = TW - 3;   // group number bits (groups of 8 TIDs)
  logic             mv_v, mv_go, mv_near, mv_busy, mv_pop;
  logic [TW-1:0]    mv_tid;
  logic [7:0]       mv_gap_q;    // visits in turn still due before the next out of turn
  logic [MV_GW-1:0] pt_g1_q;     // pt_q's group + 1
  // the scan's rewind (below)
  logic          rw, rw_q, squash;
  logic [2:0]    sq_q;        // squashed visits still to come after rw_q's
  logic [TW-1:0] rw_tid_q;
  logic [MV_GW-1:0] rw_g1_q;  // rw_tid_q's group + 1

  /* verilator lint_off PINCONNECTEMPTY */  // s_ready: a TID finding the FIFO full is dropped; count, almost_full: not used
  qrdma_sync_fifo #(.WIDTH(TW), .DEPTH(MV_DEPTH), .HEAD_REG(1'b1)) u_mv_fifo (
    .clk, .rst,
    .s_valid(mi3_v_q), .s_ready(), .s_data(mi3_tid_q),
    .m_valid(mv_v), .m_ready(mv_pop), .m_data(mv_tid),
    .count(), .almost_full()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  assign mv_near = (mv_tid[TW-1:3] == pt_q[TW-1:3] && mv_tid[2:0] >= pt_q[2:0])
                   || mv_tid[TW-1:3] == pt_g1_q;
  assign mv_busy = mv_tid == sc_q || mv_tid == s1_tid_q || mv_tid == s2_tid_q
                   || mv_tid == s3_tid_q;
  assign mv_go   = mv_v && !mv_near && !mv_busy && mv_gap_q == 8'd0 && !init_busy;
  assign mv_pop  = mv_go || (mv_v && mv_near);

  always_ff @(posedge clk) begin
    if (rw_q) pt_g1_q <= rw_g1_q;
    else if (!mv_go && pt_q[2:0] == 3'd7) pt_g1_q <= pt_g1_q + MV_GW'(1);
    if (mv_go) mv_gap_q <= 8'(MV_GAP);
    else if (mv_gap_q != 8'd0) mv_gap_q <= mv_gap_q - 8'd1;
    if (rst) begin
      mv_gap_q <= '0;
      pt_g1_q  <= MV_GW'(1);   // (pt_q starts at 1: group 0)
    end
  end

  always_ff @(posedge clk) begin
    s1_mhit_q <= s0_mhit;
    s2_mv_q   <= mv_rd[0];
    s2_mhit_q <= s1_mhit_q || s1_mhit;
    s3_mv_q   <= s2_mv_q;
    s3_mhit_q <= s2_mhit_q || s2_mhit;
    s3_mseq_q <= mr_rd.seq == sc_rd.seq;
    s3_armb_q <= s2_arm_q;   // armed, timed or not
    s3_pf_q   <= mr_rd.pf;
    s3_pn_q   <= gbn_q ? '0 : mr_rd.pn;
    s3_sm_q   <= s2_bo_ge ? bo_q : sc_rd.rt[3:0];  // the timer's own doublings
  end

  (* keep *) always_ff @(posedge clk) begin
    sc_ar_q <= mv_go ? mv_tid : pt_q;
    sc_se_q <= mv_go ? mv_tid : pt_q;
    sc_mb_q <= mv_go ? mv_tid : pt_q;
    sc_rm_q <= mv_go ? mv_tid : pt_q;
    if (rst) begin
      sc_ar_q <= '0;
      sc_se_q <= '0;
      sc_mb_q <= '0;
      sc_rm_q <= '0;
    end
  end

  always_ff @(posedge clk) begin
    sc_q     <= mv_go ? mv_tid : pt_q;
    pt_q     <= rw_q ? rw_tid_q : mv_go ? pt_q : pt_q + TW'(1);
    sc_it_q  <= !mv_go;
    s1_it_q  <= sc_it_q;
    s2_it_q  <= s1_it_q;
    s3_it_q  <= s2_it_q;
    s1_tid_q <= sc_q;
    s1_hit_q <= s0_hit;
    s2_tid_q <= s1_tid_q;
    mclr_tid_q <= init_nx ? init_tid_nx : s1_tid_q;
    s2_arm_q <= arm_rd[0];
    s2_sent_q <= sent_rd[0];
    s2_hit_q <= s1_hit_q || s1_hit;
    s3_tid_q <= s2_tid_q;
    s3_h_arm_q <= arm2_v_q && arm2_q.k.tid == s2_tid_q;
    s3_h_a3_q  <= a2_tid_q == s2_tid_q;
    s3_h_d3_q  <= d2_tid_q == s2_tid_q;
    s3_mi_q    <= mi2_tid_q == s2_tid_q;
    s3_a1_q    <= ak.tid == s2_tid_q;
    s3_a2_q    <= a1_tid_q == s2_tid_q;
    s3_ar2_q   <= arm_q.k.tid == s2_tid_q;
    s3_hit_q <= s2_hit_q || s2_hit;
    s3_seq_q <= sc_rd.seq;
    // (tick >= deadline modulo 2^SW; on_d: on_q in S3's cycle)
    s3_tdue_q <= s2_arm_q && sc_rd.timed && s2_sent_q && !s2_late[SW-1] && on_d;
    s3_kind_q <= sc_rd.kind;
    s3_rt_q  <= sc_rd.rt;
    s3_lim_q <= sc_rd.rt >= lim_q;   // re-sent as often as allowed: NACK
    s3_sa_q  <= s2_bo_ge ? bo_q : sc_rd.rt1;  // (rt < bo <= 15: no carry out)
    s3_inq_q <= s2_inq;
    if (rst) begin
      sc_q <= '0;
      pt_q <= TW'(1);
    end
  end

  // A due timer found in turn that cannot be answered for lack of room (the re-send queue
  // for a re-send, the NACK queue or an unreachable NACK for a NACK) keeps the scan on its
  // TID (rewind, registered: rw_q): the scan's next TID in turn becomes that TID again, so
  // S0 visits it two cycles after rw_q (or later, after visits out of turn) and the round
  // goes on from there; the five visits behind it, in S0..S3 during rw_q and the one
  // chosen in rw_q's cycle, decide nothing (squash): the TIDs in turn among them are made
  // again, a MISS TID visited out of turn among them waits for its round. So due timers
  // are served in the order of the scan, none is passed over while others take the room.
  // A visit out of turn does not rewind (the round comes to its TID).

  assign squash = rw_q || sq_q != 3'd0;

  always_ff @(posedge clk) begin
    rw_q     <= rw;
    rw_tid_q <= s3_tid_q;
    rw_g1_q  <= s3_tid_q[TW-1:3] + MV_GW'(1);
    if (rw_q)               sq_q <= 3'd4;
    else if (sq_q != 3'd0)  sq_q <= sq_q - 3'd1;
    if (rst) begin
      rw_q <= 1'b0;
      sq_q <= '0;
    end
  end

  // A timer found due is not acted on while an acknowledgement of the TID is on its way
  // to clearing it (any seq: a stale one delays it by a round), so neither a NACK nor a
  // re-send follows the acknowledgement it races. A timer re-sent as often as allowed is
  // answered by a NACK when the FIFO has room and no unreachable NACK takes the cycle;
  // another is queued for its re-send when the queue has room and its TID is not waiting
  // there already. Otherwise the timer stays armed and is found again a round later; a
  // re-send arms it again when it passes on.
  logic due, to_fire, rs_fire, rq_room;
  logic tstable, tdue, mrec, mmatch, m_fire, m_clr;
  assign s3_ack  = (ack_valid && ak.tid == s3_tid_q) || (a1_v_q && s3_a1_q) || (a2_v_q && s3_a2_q);
  // (an arm on its way, not yet written, counts as a hit too: its descriptor passed on
  // after the words were read)
  logic s3_armq;
  assign s3_armq = (arm_v_q && arm_q.k.tid == s3_tid_q) || (arm2_v_q && s3_ar2_q)
                   || (pend_q && pend_arm_q.k.tid == s3_tid_q);
  assign due     = s3_tdue_q && !s3_hit_q && !s3_hit && !s3_armq && !s3_ack
                   && !init_busy && !squash;
  assign to_fire = due && s3_lim_q && nack_go_q && !blk_unr && !pkt_unr;
  assign rs_fire = due && !s3_lim_q && !s3_inq_q && rq_room;
  assign rw      = due && s3_it_q && (s3_lim_q ? !(nack_go_q && !blk_unr && !pkt_unr)
                                               : (!s3_inq_q && !rq_room));

  // The TID's MISS record (mrec: read in S0 and not written since): with the timer armed
  // with its seq (a block's timer) and not due, its run is queued for a re-send under the
  // same conditions as a timeout's re-send (tstable: the timer words are current; the
  // queue has room, the TID is not waiting there), with the timer's re-send count and
  // timeout unchanged. The record is cleared when acted on, when the timer is not armed
  // with its seq (or covers a packet alone), and when the due timer is re-sent (whole or a probe) or
  // answered with its NACK; otherwise it waits for the next round.
  assign tstable = !s3_hit_q && !s3_hit && !s3_armq && !s3_ack && !init_busy && !squash;
  assign tdue    = s3_tdue_q;
  assign mrec    = s3_mv_q && !s3_mhit_q && !s3_mhit;
  assign mmatch  = s3_armb_q && s3_mseq_q && s3_kind_q != K_PKT;
  assign m_fire  = mrec && tstable && mmatch && !tdue && !s3_inq_q && rq_room;
  assign m_clr   = mrec && (m_fire || to_fire || rs_fire || (tstable && !mmatch));

  always_ff @(posedge clk) begin
    s4_mclr_q  <= m_clr;
    s4_mconf_q <= mi2_v_q && mi2_tid_q == s3_tid_q;   // M3 writes the TID of S4
    if (rst) s4_mclr_q <= 1'b0;
  end

  qrdma_sdp_ram #(.WIDTH(SEQW), .DEPTH(NUM_TIDS), .OUT_REG(1'b1), .RDW_ANY(1'b1))
  u_ak_ram (
    .clk,
    .wr_en(arm3_v_q), .wr_be(1'b1), .wr_addr(arm3_q.k.tid), .wr_data(arm3_q.k.seq),
    .rd_en(ack_valid), .rd_addr(ak.tid), .rd_oe(1'b1), .rd_data(ak_rd)
  );

  always_ff @(posedge clk) begin
    a1_v_q   <= ack_valid && !init_q;  // (init_q: the armed bits' clear port is the sweep's)
    a1_tid_q <= ak.tid;
    clr_tid_q <= init_nx ? init_tid_nx : ak.tid;
    a1_seq_q <= ak.seq;
    a1_hit_q <= a0_hit;
    a2_v_q   <= a1_v_q;
    a2_tid_q <= a1_tid_q;
    a2_seq_q <= a1_seq_q;
    // the clear of A3 decided in A2: the seqs equal, no arm of the TID since A0 (the one
    // of A2's cycle: arm3 then), none in A3 either (arm2 then: the two ports never write
    // one TID in a cycle; the arm sets the bit anyway); all but the seqs' compare are
    // figured in A1 (a2_ok_q), against the arms a cycle before (arm2, arm)
    a2_ok_q  <= a1_v_q && !a1_hit_q && !a1_hit && !(arm2_v_q && arm2_q.k.tid == a1_tid_q)
                && !(arm_v_q && arm_q.k.tid == a1_tid_q);
    a3_v_q   <= a2_ok_q && ak_rd == a2_seq_q;
    a3_tid_q <= a2_tid_q;
    if (rst) begin
      a1_v_q  <= 1'b0;
      a2_v_q  <= 1'b0;
      a2_ok_q <= 1'b0;
      a3_v_q  <= 1'b0;
    end
  end

  // (an arm since A0 means the word compared was older than the TID's timer)
  assign clr_ack     = a3_v_q;
  assign clr_ack_tid = a3_tid_q;

  // The kept packets' live bits: a packet word of the store is of the TID's current use
  // from its write until the TID is disarmed (the use is over: the engine returns the
  // TID) or swept after reset. A block's timer re-sends the packet store's control packet
  // only while it is live, so a control packet kept from an earlier use of the TID whose
  // seq equals the timer's modulo 2^16 is never sent with a later block. Port A sets (two
  // cycles after the store's write, its TID from the store's write address, a register,
  // two cycles ahead: the packet slice's output drives no LUT-RAM read; no re-send of
  // the TID reads the bit meanwhile: the pass kills those of its earlier use, and its
  // own timer is not yet written), port B clears (the armed bits' clear address and
  // enable); a set and a clear of one TID in a cycle (a packet passed after its TID's
  // disarm was decided) leave it set (pl_conf_q, a cycle ahead).
  // Read as R1 moves on, at R1's TID (a register, no multiplexer before the LUT-RAM
  // read): pl_rd holds through R2, where RK takes it.
  logic          pl_conf_q;
  logic [0:0]    pl_rd;
  logic [TW-1:0] r1_tid_q;   // R1's TID again (the pop's, rt_q), for this read alone

  always_ff @(posedge clk) if (r_pop) r1_tid_q <= rt_q;

  always_ff @(posedge clk) pl_conf_q <= ps_we2_q && ps_addr2_q == a2_tid_q;

  qrdma_mem_2w #(.WIDTH(1), .DEPTH(NUM_TIDS), .A_LEAD(1'b1), .B_LEAD(1'b1), .RD_REG(1'b1),
                .SUB_DEPTH(SUB))
  u_pkt_live (
    .clk,
    .a_en(ps_we3_q), .a_addr(ps_addr_q), .a_data(1'b1),
    .b_en(init2_q || (clr_ack && !pl_conf_q)), .b_addr(clr_tid_q), .b_data(1'b0),
    .rd_en(r1_mv_q), .rd_addr(r1_tid_q), .rd_data(pl_rd)
  );

  // ------------------------------------------------------------------ re-send queue
  // RQ_DEPTH timeouts in registers, each killed when the engine takes the acknowledgement
  // of its tid and seq (A1), or when a descriptor of the engine with its tid passes on
  // (a control packet for its block: the control's arm starts the timer afresh, and the
  // next timeout re-sends both; X, registered); the head is popped into R1 when R1 is
  // empty or moves on (R2..R3 empty), and with the queue empty the push on its way
  // (rp_q) is popped instead of pushed: a re-send decided in cycle e reaches R3 in e + 5,
  // one behind another in the fourth cycle after the one before left R3. In R3 the
  // pass's own compare is registered (r3_x_q), so a superseded re-send never passes on
  // after the descriptor that supersedes it.
  localparam int unsigned RQW = idx_w(RQ_DEPTH);
  rq_t               rq_q [RQ_DEPTH];
  logic [RQ_DEPTH-1:0] rq_v_q, rq_k_q;
  logic [RQW-1:0]    rq_wp_q, rq_rp_q;
  logic              rq_hv_q;   // the head's valid bit, rq_v_q[rq_rp_q], kept in a register
  logic              r_byp, a1_kill_r1, a1_kill_r2, a1_kill_rk, a1_kill_r3;

  function automatic logic kills(input key_t k, input logic v, input logic [TW-1:0] t,
                                 input logic [SEQW-1:0] q);
    return v && k.tid == t && k.seq == q;
  endfunction

  logic          ob_x_q, op_x_q;      // X: a descriptor of the engine passed on
  logic [TW-1:0] ob_xt_q, op_xt_q;

  function automatic logic xkill(input logic [TW-1:0] t, input logic bv, input logic [TW-1:0] bt,
                                 input logic pv, input logic [TW-1:0] pt);
    return (bv && bt == t) || (pv && pt == t);
  endfunction

  function automatic logic [RQW-1:0] rq_next(input logic [RQW-1:0] p);
    return (p == RQW'(RQ_DEPTH - 1)) ? '0 : p + RQW'(1);
  endfunction

  // a timeout is pushed a cycle after its decision (rp_q): room for it is room for one
  // more behind the push on its way
  rq_t  rp_q;
  logic rp_v_q;

  // (R1 moves on when R2..R3 are empty, r1_mv_q below: the stores' output registers
  // load, rd_oe)
  assign rq_room    = rp_v_q ? !rq_v_q[rq_next(rq_wp_q)] : !rq_v_q[rq_wp_q];
  assign r_byp      = !rq_hv_q;   // the queue is empty: pop rp_q
  assign r_pop      = (!r1_v_q || r1_mv_q) && (rq_hv_q || rp_v_q);
  assign r_pop_tid  = r_byp ? rp_q.k.tid : rq_q[rq_rp_q].k.tid;
  assign a1_kill_r1 = kills(r1_q.k, a1_v_q, a1_tid_q, a1_seq_q);
  assign a1_kill_r2 = kills(r2_q.k, a1_v_q, a1_tid_q, a1_seq_q);
  assign a1_kill_rk = kills(rk_q.k, a1_v_q, a1_tid_q, a1_seq_q);
  assign a1_kill_r3 = kills(r3_q.k, a1_v_q, a1_tid_q, a1_seq_q);

  // (each place compared on its own, then ORed: a balanced tree)
  logic [RQ_DEPTH+4:0] s2_inq_at;

  always_comb begin
    s2_inq_at[0] = r1_v_q && r1_q.k.tid == s2_tid_q;
    s2_inq_at[1] = r2_v_q && r2_q.k.tid == s2_tid_q;
    s2_inq_at[2] = rk_v_q && rk_q.k.tid == s2_tid_q;
    s2_inq_at[3] = r3_v_q && r3_q.k.tid == s2_tid_q;
    s2_inq_at[4] = rp_v_q && rp_q.k.tid == s2_tid_q;
    for (int i = 0; i < RQ_DEPTH; i++) s2_inq_at[5 + i] = rq_v_q[i] && rq_q[i].k.tid == s2_tid_q;
    s2_inq = |s2_inq_at;
  end

  // each queued re-send killed in this cycle (compared per entry, then selected for R1)
  logic [RQ_DEPTH-1:0] rq_kill;

  always_comb begin
    for (int i = 0; i < RQ_DEPTH; i++)
      rq_kill[i] = rq_k_q[i] || kills(rq_q[i].k, a1_v_q, a1_tid_q, a1_seq_q)
                   || xkill(rq_q[i].k.tid, ob_x_q, ob_xt_q, op_x_q, op_xt_q);
  end

  // The stores' read address, which fans out to every block RAM of both stores, is a
  // register, rt_q: the TID a pop reads in the next cycle, the queue's head after this
  // cycle's pop and push, else the push on its way then (whose TID is s3_tid_q now). Both
  // outcomes of this cycle's pop are figured from registers and r_pop selects at the
  // end: without a pop the head stays, or with the queue empty the push on its way goes
  // into it; a pop from the queue leaves the entry behind the head (with one entry the
  // push on its way); a pop of the push on its way leaves the queue empty. It equals
  // r_pop_tid whenever r_pop (asserted below).
  logic           rq_pop, rq_push;
  logic [RQW-1:0] rq_rp1;
  logic           rq_v1;
  logic [TW-1:0]  rt_stay, rt_pop;

  assign rq_pop  = r_pop && !r_byp;
  assign rq_push = rp_v_q && !(r_pop && r_byp);
  assign rq_rp1  = rq_next(rq_rp_q);
  assign rq_v1   = RQ_DEPTH > 1 && rq_v_q[rq_rp1];
  assign rt_stay = !r_byp ? rq_q[rq_rp_q].k.tid : (rp_v_q ? rp_q.k.tid : s3_tid_q);
  assign rt_pop  = r_byp ? s3_tid_q : (rq_v1 ? rq_q[rq_rp1].k.tid
                                              : (rp_v_q ? rp_q.k.tid : s3_tid_q));

  always_ff @(posedge clk) rt_q <= r_pop ? rt_pop : rt_stay;

  // the head's valid bit after this cycle's pop and push (as rt_q: the entry behind the
  // head, or the push into it)
  always_ff @(posedge clk) begin
    if (rq_pop) rq_hv_q <= rq_v1 || (rq_push && rq_wp_q == rq_rp1);
    else        rq_hv_q <= rq_hv_q || (rq_push && rq_wp_q == rq_rp_q);
    if (rst) rq_hv_q <= 1'b0;
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst && r_pop) assert (rt_q == r_pop_tid)
      else $error("qrdma_tx_rel: store read address %0d, popped TID %0d", rt_q, r_pop_tid);
    if (!rst && rq_push) assert (!rq_v_q[rq_wp_q])
      else $error("qrdma_tx_rel: push into a full re-send queue");
    if (!rst) assert (rq_hv_q == rq_v_q[rq_rp_q])
      else $error("qrdma_tx_rel: rq_hv_q differs from the head's valid bit");
  end
`endif

  always_ff @(posedge clk) begin
    ob_x_q  <= ob_pass;
    ob_xt_q <= bq_key.tid;
    op_x_q  <= op_keep;
    op_xt_q <= pq_key.tid;
    for (int i = 0; i < RQ_DEPTH; i++)
      if (rq_kill[i]) rq_k_q[i] <= 1'b1;
    rp_v_q <= rs_fire || m_fire;
    // (a push is a timeout's re-send iff the timer is due: tdue selects, from registers)
    rp_q   <= '{k: '{tid: s3_tid_q, seq: s3_seq_q}, kind: s3_kind_q,
              rt: tdue ? s3_rt_q + 8'd1 : s3_rt_q,
              to: tdue ? bo_tab_q[s3_sa_q] : bo_tab_q[s3_sm_q],
              miss: !tdue, pf: s3_pf_q, pn: s3_pn_q};
    // (the entry at the write pointer takes rp_q whenever it is free, so that its load
    // enable comes from registers; the push sets its valid bit: a push finds it free)
    for (int i = 0; i < RQ_DEPTH; i++)
      if (!rq_v_q[i] && rq_wp_q == RQW'(i)) rq_q[i] <= rp_q;
    if (rq_push) begin
      rq_v_q[rq_wp_q] <= 1'b1;
      rq_k_q[rq_wp_q] <= kills(rp_q.k, a1_v_q, a1_tid_q, a1_seq_q)
                         || xkill(rp_q.k.tid, ob_x_q, ob_xt_q, op_x_q, op_xt_q);
      rq_wp_q         <= rq_next(rq_wp_q);
    end
    if (rq_pop) begin
      rq_v_q[rq_rp_q] <= 1'b0;
      rq_rp_q         <= rq_next(rq_rp_q);
    end
    if (rst) begin
      ob_x_q  <= 1'b0;
      op_x_q  <= 1'b0;
      rp_v_q  <= 1'b0;
      rq_v_q  <= '0;
      rq_wp_q <= '0;
      rq_rp_q <= '0;
    end
  end

  // R1: the stores' words in their read registers, until R2..R3 are empty; R2: in their
  // output registers, the fields of the check registered (so that the check starts at
  // registers beside it, not at the block RAMs' outputs); RK: checked (the kept
  // descriptors still carry the timer's seq: the TID was not used again); R3: offered
  // until every part has passed, or killed. r3_b_q / r3_p_q: R3 offers its block / its
  // packet (it holds a re-send, the part passed the check and has not passed on yet, not
  // superseded), so that the offers, and the engine's streams they hold back, start at
  // one register each. r3_v_q does not depend on the check.
  logic rk_go, rk_x, r3_xk;

  assign rk_go = !rk_k_q && !a1_kill_rk && !xkill(rk_q.k.tid, ob_x_q, ob_xt_q, op_x_q, op_xt_q);
  assign rk_x  = xkill(rk_q.k.tid, ob_pass, bq_key.tid, op_keep, pq_key.tid);
  assign r3_xk = xkill(r3_q.k.tid, ob_pass, bq_key.tid, op_keep, pq_key.tid);
  // A block's timer (K_BLK or K_CTL: the engine may pass a control packet on before or
  // after its block, and the later of the two arms) re-sends whichever of the block and
  // its control packet the stores still keep with the timer's seq; the control packet
  // arms when it goes with the block (r3_q.kind K_CTL). A MISS re-sends the block's run
  // only and keeps its timer's kind.
  // A block's first timeout re-send with cfg_probe (a probe) is the kept block's last
  // packet alone, which asks: the receiver answers with a MISS for what else it lacks, or
  // with its ACK; later ones re-send the whole block (a MISS answer may be dropped by a
  // busy receiver, and a whole block needs none). Packets do not cross a MAX_PAYLOAD boundary of the destination, so the last
  // one is ((dst_addr mod MAX_PAYLOAD) + size - 1) / MAX_PAYLOAD, from the store's output
  // register in R2.
  localparam int unsigned PLW = $clog2(MAX_PAYLOAD);
  localparam int unsigned SZW = BLOCK_DESC_SIZE_W;
  logic            rk_bv_q, rk_live_q, rk_pctl_q;
  logic [SEQW-1:0] rk_bseq_q, rk_pseq_q;
  logic [PFW-1:0]  rk_pf_q;     // the block's last packet index
  logic            rk_bok, rk_pok, rk_pkt;
  logic [SZW:0]    r2_end;      // the block's last byte, from the start of its first packet

  assign r2_end = (SZW + 1)'(bs_rd[BLOCK_DESC_DST_ADDR_LSB +: PLW])
                  + (SZW + 1)'(bs_rd[BLOCK_DESC_SIZE_LSB +: SZW]) - (SZW + 1)'(1);

  always_comb begin
    rk_pkt = rk_q.kind == K_PKT;
    rk_bok = !rk_pkt && rk_bv_q && rk_bseq_q == rk_q.k.seq;
    rk_pok = !rk_q.miss && rk_live_q && rk_pseq_q == rk_q.k.seq && (rk_pkt || rk_pctl_q);
  end

  assign r3_done = r3_v_q && (a1_kill_r3 || r3_x_q
                              || ((!r3_b_q || rb_pass) && (!r3_p_q || rp_pass)));

  // R3's offers (next values: go_b_q and go_p_q are figured from them)
  always_comb begin
    r3_b_d = r3_b_q;
    r3_p_d = r3_p_q;
    if (rk_v_q) begin
      r3_b_d = rk_bok && rk_go && !rk_x;
      r3_p_d = rk_pok && rk_go && !rk_x;
    end else begin
      if (rb_pass || r3_done || r3_xk) r3_b_d = 1'b0;
      if (rp_pass || r3_done || r3_xk) r3_p_d = 1'b0;
    end
    if (rst) begin
      r3_b_d = 1'b0;
      r3_p_d = 1'b0;
    end
  end

  always_ff @(posedge clk) begin
    // R1: loaded by a pop, kills gathered while it waits
    if (r1_v_q && !r1_mv_q)
      r1_k_q <= r1_k_q || a1_kill_r1 || xkill(r1_q.k.tid, ob_x_q, ob_xt_q, op_x_q, op_xt_q);
    if (r1_mv_q) r1_v_q <= 1'b0;
    if (r_pop) begin
      r1_v_q <= 1'b1;
      if (r_byp) begin
        r1_q   <= rp_q;
        r1_k_q <= kills(rp_q.k, a1_v_q, a1_tid_q, a1_seq_q)
                  || xkill(rp_q.k.tid, ob_x_q, ob_xt_q, op_x_q, op_xt_q);
      end else begin
        r1_q   <= rq_q[rq_rp_q];
        r1_k_q <= rq_kill[rq_rp_q];
      end
    end
    // R2: the words in the output registers (loaded as R1 moves on)
    r2_v_q    <= r1_mv_q;
    r2_q      <= r1_q;
    r2_k_q    <= r1_k_q || a1_kill_r1 || xkill(r1_q.k.tid, ob_x_q, ob_xt_q, op_x_q, op_xt_q);
    // RK: the check's fields from R2's output registers
    rk_v_q    <= r2_v_q;
    rk_q      <= r2_q;
    rk_k_q    <= r2_k_q || a1_kill_r2 || xkill(r2_q.k.tid, ob_x_q, ob_xt_q, op_x_q, op_xt_q);
    rk_bv_q   <= bs_rd_v;
    rk_bseq_q <= bs_rd[BLOCK_DESC_SEQ_LSB +: SEQW];
    rk_live_q <= pl_rd[0];
    rk_pseq_q <= ps_rd[PKT_DESC_SEQ_LSB +: SEQW];
    rk_pctl_q <= ps_rd[PKT_DESC_KIND_LSB] == 1'(PKT_CONTROL);
    rk_pf_q   <= PFW'(r2_end >> PLW);
    if (rk_v_q) begin
      r3_v_q    <= rk_go;
      r3_sent_q <= 1'b0;
      r3_x_q    <= rk_x;
      r3_q      <= rk_q;
      r3_q.kind <= rk_q.miss ? rk_q.kind : (rk_pkt ? K_PKT : (rk_pok ? K_CTL : K_BLK));
      r3_run_q  <= rk_q.miss || (probe_q && rk_q.rt == 8'd1);
      if (!rk_q.miss) begin
        r3_q.pf <= rk_pf_q;
        r3_q.pn <= PNW'(1);
      end
    end else begin
      if (r3_done) r3_v_q <= 1'b0;
      if (r3_xk) r3_x_q <= 1'b1;
      if (rb_pass || rp_pass) r3_sent_q <= 1'b1;
    end
    // R1 moves on in the next cycle: it holds a re-send then and R2..R3 are empty then
    // (a register: the stores' output-register enables and the live bits' read come
    // from it)
    r1_mv_q <= (r_pop || (r1_v_q && !r1_mv_q)) && !r1_mv_q && !r2_v_q
               && !(rk_v_q ? rk_go : (r3_v_q && !r3_done));
    r3_b_q         <= r3_b_d;
    r3_p_q         <= r3_p_d;
    probe_q        <= cfg_probe;
    // one pulse per re-send that passed on (a block and its control packet count once),
    // also when an acknowledgement ends it in the cycle it passes
    stat_retx      <= r3_done && !r3_q.miss && (r3_sent_q || rb_pass || rp_pass);
    stat_miss_retx <= rb_pass && r3_q.miss;
    if (rst) begin
      r1_v_q         <= 1'b0;
      r1_mv_q        <= 1'b0;
      r2_v_q         <= 1'b0;
      rk_v_q         <= 1'b0;
      r3_v_q         <= 1'b0;
      stat_retx      <= 1'b0;
      stat_miss_retx <= 1'b0;
    end
  end

`ifndef SYNTHESIS
  // an offer of R3 belongs to a re-send in R3 that is not superseded; R1 moves on exactly
  // when it holds a re-send and R2..R3 are empty
  always_ff @(posedge clk) begin
    if (!rst) assert (!(r3_b_q || r3_p_q) || (r3_v_q && !r3_x_q))
      else $error("qrdma_tx_rel: R3 offers without a live re-send");
    if (!rst) assert (r1_mv_q == (r1_v_q && !r2_v_q && !rk_v_q && !r3_v_q))
      else $error("qrdma_tx_rel: r1_mv_q differs from R1's state");
    if (!rst && r1_v_q) assert (r1_tid_q == r1_q.k.tid)
      else $error("qrdma_tx_rel: the live bits' read address differs from R1's TID");
  end
`endif

  // ------------------------------------------------------------------ NACKs
  logic                  nf_valid;
  logic [ACK_DESC_W-1:0] nf_data;

  always_comb begin
    nf_valid = blk_unr || pkt_unr || to_fire;
    if (blk_unr)      nf_data = nack(bq_key, 4'(ERR_UNREACHABLE));
    else if (pkt_unr) nf_data = nack(pq_key, 4'(ERR_UNREACHABLE));
    else              nf_data = nack('{tid: s3_tid_q, seq: s3_seq_q}, 4'(ERR_TIMEOUT));
  end

  // the NACK decided in a cycle is pushed in the next (nq_q). nack_go_q, registered from
  // the almost-full flag of the cycle before (at DEPTH - 2): room for a NACK decided now
  // with two pushes on their way (the decisions of the two cycles before), and the
  // sweep after reset over
  logic                  nq_v_q, nack_af, nack_sready;
  logic [ACK_DESC_W-1:0] nq_q;

  always_ff @(posedge clk) begin
    nack_go_q    <= !nack_af && !init_busy;
    nq_v_q       <= nf_valid;
    nq_q         <= nf_data;
    stat_timeout <= to_fire;
    stat_unreach <= blk_unr || pkt_unr;
    if (rst) begin
      nack_go_q    <= 1'b0;
      nq_v_q       <= 1'b0;
      stat_timeout <= 1'b0;
      stat_unreach <= 1'b0;
    end
  end

  /* verilator lint_off PINCONNECTEMPTY */  // occupancy not needed
  qrdma_sync_fifo #(.WIDTH(ACK_DESC_W), .DEPTH(4), .ALMOST_FULL(2)) u_nack_fifo (
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
