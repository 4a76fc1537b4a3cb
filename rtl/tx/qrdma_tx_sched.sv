// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_tx_sched: the VOQs and packet scheduler of the send unit (docs/nic.md "Send
// unit", [FPGA-NI] §2.5). Block descriptors and packet descriptors (the request class)
// each take a descriptor slot (qrdma_id_pool) and wait in the queue of their destination
// (qrdma_multi_queue_pipe, queue = dst_node mod NUM_NODES). A round-robin arbiter (qrdma_arb_rr)
// picks, one packet per cycle, among the queues that are not empty and not paused; the
// picked slot's packet is computed (packetization of docs/nic.md for a block) and its
// header beat built; a block with packets left goes back to the tail of its queue, any
// other slot is freed. ACK/NACK responses never take a slot (qrdma_tx_rsp), so a send
// unit full of requests still answers. A block descriptor's pkt_first / pkt_num (a
// re-send of missing packets, docs/reliability.md) select the run of its packets that is
// sent, each exactly as in the whole block's send. Every DATA, INLINE and CONTROL header
// carries the generation of its (destination, TID) and the epoch (docs/reliability.md
// "Exactly once"): a generation counter per (queue, TID) in block RAM goes up by one for
// each new block or inline packet taken in; a re-send (its resend bit) and a CONTROL
// packet take it as it is (a CONTROL taken before its block: the value the block takes).
// Read-response jobs (rd_job, docs/nic.md "Remote reads") are blocks of another node's
// read: each takes a slot in the queue of its requester and is sent as a block, its
// packets DATA with resp set, carrying the job's TID, sequence number, generation and
// epoch (no counter of this node moves; no sent_valid: no timer of this node starts).
// A block of a read channel (xfer in a page's read half) is a read block: it is sent as
// one READ_REQ packet asking its responder (dst_node) for the block's run; its
// generation counts in the counter of (this node's queue, TID), which no write uses, so
// that the read responses of one TID carry one increasing generation at this node,
// whatever their responder.
// Inside: docs/modules.md#qrdma_tx_sched.
//
// Contract: one descriptor per cycle is accepted (round robin between the three inputs)
// while a slot is free and the queues' single enqueue port is not taken by a re-queued
// block in the next cycle. The accepted descriptor is registered (W, a + 1) and written
// into its slot and its queue from that register: the input arbiter's grant reaches the
// register of the selected word only. Pipeline (cycle t = the cycle of the pick):
//   t    pick: a queue granted (from registered state)
//   t+1  its dequeue requested (one-hot register)
//   t+3  its head slot out of the queues; slot and progress RAMs read
//   t+4  the RAMs' output registers load
//   t+5  A: packet index, last packet, offset, candidate lengths and beat counts (one
//        carry chain each, from the RAM outputs); node_id sampled
//   t+6  B: length, beat counts and addresses selected, header beat built; the block is
//        re-queued (progress + 1) or the slot released
//   t+7  job_valid (and rd_valid for DATA) for one cycle, from registers; sent_valid
//        with it when the packet is its descriptor's last (the response timer's start,
//        docs/reliability.md "Timers"); a released slot returns to the pool (and leaves
//        occ_slots) at the end of t+7
// A descriptor takes its slot from a head of free slots in registers that the pool refills,
// so the take depends on registers and the input arbiter only.
// pick_ok (the caller's room for one more packet) must cover the packets in the seven
// stages after the pick too. A queue is picked in back-to-back cycles while it holds more
// than one entry; a descriptor accepted in cycle a is in its queue from a + 3. A block
// descriptor's run (pkt_first .. pkt_first + pkt_num - 1, pkt_num 0: to the block's last
// packet) must lie within the block's packets (an assertion checks it).
// Generations: the block descriptors that are not re-sends come in the order of their seq
// (modulo 2^16, as the QoS engine issues them), a CONTROL packet descriptor after the
// block descriptor with its seq has come to the engine's block output, and a re-send
// while its TID's next use has not been taken. A CONTROL taken before its block carries
// the generation the block will take (one more than its counter's). A generation is in the
// slot's header from the fifth cycle after the take (a + 5; the slot is read at a + 6 at
// the earliest).
`default_nettype none

module qrdma_tx_sched
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
  import qrdma_tx_pkg::*;
#(
  parameter int unsigned  NUM_NODES   = 4,     // VOQs (destination = dst_node mod NUM_NODES)
  parameter int unsigned  MAX_PAYLOAD = 1024,  // bytes per DATA packet (power of 2, 256..4096)
  parameter int unsigned  SLOTS       = 64,    // descriptor slots shared by all VOQs
  localparam int unsigned QW          = idx_w(NUM_NODES),
  localparam int unsigned SW          = idx_w(SLOTS)
) (
  input  logic                     clk,
  input  logic                     rst,
  input  logic [15:0]              node_id,         // src_node of every header (sampled in A)
  input  logic [7:0]               epoch,           // epoch of every request header (sampled in A)
  // descriptors
  input  logic                     s_blk_valid,
  output logic                     s_blk_ready,
  input  logic [BLOCK_DESC_W-1:0]  s_blk_data,
  input  logic                     s_pkt_valid,
  output logic                     s_pkt_ready,
  input  logic [PKT_DESC_W-1:0]    s_pkt_data,
  input  logic                     s_rsp_valid,     // read-response jobs
  output logic                     s_rsp_ready,
  input  logic [RD_JOB_W-1:0]      s_rsp_data,
  input  logic [NUM_NODES-1:0]     tx_pause,        // queue k is not picked while high
  // picks
  input  logic                     pick_ok,         // room for one more packet (see header)
  output logic                     pick,            // a packet is picked in this cycle
  // the picked packet, one cycle (t+7)
  output logic                     job_valid,
  output job_t                     job,
  output logic                     rd_valid,        // DATA: its payload read
  output rd_cmd_t                  rd,
  // the picked packet is its descriptor's last (the slot is freed), with the job (t+7)
  output logic                     sent_valid,
  output logic [NET_HDR_TID_W-1:0] sent_tid,
  // occupancy and stall
  output logic [SW:0]              occ_slots,       // slots in use
  output logic                     stat_slot_stall  // a descriptor waits: no slot free
);

  localparam int unsigned LG     = $clog2(MAX_PAYLOAD);
  localparam int unsigned MPB    = MAX_PAYLOAD / BEAT_BYTES;  // beats of a full payload
  localparam int unsigned PIDX_W = NET_HDR_PKT_IDX_W;  // packet index in a block
  localparam int unsigned OFF_W  = PIDX_W + LG;        // byte offset of a packet in a block
  localparam int unsigned SIZE_W = BLOCK_DESC_SIZE_W;
  localparam int unsigned REC_W  = $bits(slot_rec_t);
  localparam int unsigned HI_W   = 64 - OFF_W;         // address bits above a packet offset
  localparam int unsigned TW     = NET_HDR_TID_W;
  localparam int unsigned GW     = NET_HDR_GEN_W;      // generation
  localparam int unsigned GKW    = idx_w(NUM_NODES << TW);  // generation counter index

  // What a block slot holds above its block descriptor: for a read-response job, the
  // requester's generation and epoch (resp 0 for this node's own blocks); above these
  // the block's last byte x (below).
  typedef struct packed {
    logic          resp;
    logic [7:0]    epoch;
    logic [GW-1:0] gen;
  } rspx_t;

  // A read channel's transfer: the channel in its page's read half.
  function automatic logic is_read(input logic [BLOCK_DESC_XFER_W-1:0] xfer);
    return xfer[$clog2(WR_CH_PER_PAGE)];
  endfunction

  // The block descriptor of a read-response job: a block of the requester's transfer
  // (its TID, seq, channel), no flow, no notification.
  /* verilator lint_off UNUSEDSIGNAL */  // gen and epoch travel beside the descriptor
  function automatic block_desc_t blk_of_rsp(input rd_job_t j);
    block_desc_t b;
    b           = '0;
    b.src_addr  = j.src_addr;
    b.dst_addr  = j.dst_addr;
    b.dst_node  = j.dst_node;
    b.pd        = j.pd;
    b.tid       = j.tid;
    b.seq       = j.seq;
    b.size      = j.size;
    b.path      = j.path;
    b.xfer      = j.xfer;
    b.pkt_first = j.pkt_first;
    b.pkt_num   = j.pkt_num;
    b.rkey      = j.rkey;
    return b;
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

`ifndef SYNTHESIS
  initial begin
    if (BLOCK_DESC_W + $bits(rspx_t) + SIZE_W + 1 > DATA_W)
      $fatal(1, "qrdma_tx_sched: a block descriptor and the fields above it exceed a slot");
    if (NUM_NODES < 1) $fatal(1, "qrdma_tx_sched: NUM_NODES must be >= 1");
    if (SLOTS < 2) $fatal(1, "qrdma_tx_sched: SLOTS must be >= 2");
    if (MAX_PAYLOAD < 256 || MAX_PAYLOAD > 4096 || (MAX_PAYLOAD & (MAX_PAYLOAD - 1)) != 0)
      $fatal(1, "qrdma_tx_sched: MAX_PAYLOAD must be a power of 2 in 256..4096");
  end
`endif

  // dst_node mod NUM_NODES: the low bits for a power of 2, else a restoring remainder
  // (16 compare-subtract steps on QW+1 bits, no divider).
  function automatic logic [QW-1:0] node_queue(input logic [15:0] n);
    logic [QW:0] r;
    if (NUM_NODES == 1) return '0;
    if ((NUM_NODES & (NUM_NODES - 1)) == 0) return QW'(n);
    r = '0;
    for (int i = 15; i >= 0; i--) begin
      r = {r[QW-1:0], n[i]};
      if (r >= (QW + 1)'(NUM_NODES)) r = r - (QW + 1)'(NUM_NODES);
    end
    return r[QW-1:0];
  endfunction

  // What the progress RAM holds per slot.
  typedef struct packed {
    logic              bmore;  // packet pidx of a block is followed by another of the block
    logic              more;   // ... by another of the run it sends
    logic [PIDX_W-1:0] pidx;   // index of the block's next packet to send
  } prog_t;

  // Packet pf of a block is followed by another (pf < the last index): pf + 1 < the
  // block's packets H + c + (r != 0), with size = H * MAX_PAYLOAD + L and dlow + L =
  // c * MAX_PAYLOAD + r, taken apart so that only an LG-bit sum and compares of pf with H
  // are on the way (pf 0: dlow + size > MAX_PAYLOAD).
  localparam int unsigned CW = ((PIDX_W > SIZE_W - LG) ? PIDX_W : SIZE_W - LG) + 1;
  function automatic logic bmore_of(input logic [LG-1:0] dl, input logic [SIZE_W-1:0] size,
                                    input logic [PIDX_W-1:0] pf);
    logic [CW-1:0] hi, p;
    logic [LG:0]   lo;
    hi = CW'(size[SIZE_W-1:LG]);
    p  = CW'(pf);
    lo = (LG + 1)'(dl) + (LG + 1)'(size[LG-1:0]);
    if (lo[LG] && lo[LG-1:0] != '0) return p <= hi;   // c + (r != 0) = 2
    if (lo != '0) return p < hi;                       // 1
    return p + CW'(1) < hi;                            // 0
  endfunction

  // The block's last byte x = dlow + size - 1 (dlow = dst_addr mod MAX_PAYLOAD), from
  // which stage A reads the last packet's index (x / MAX_PAYLOAD) and length. Formed at
  // the input for each input and kept in the slot above the response fields, so that
  // stage A starts from the slot RAM's output with no carry chain of its own before the
  // last packet's length and beats.
  function automatic logic [SIZE_W:0] last_byte(input logic [LG-1:0]     dl,
                                                input logic [SIZE_W-1:0] size);
    return (SIZE_W + 1)'(dl) + (SIZE_W + 1)'(size) - (SIZE_W + 1)'(1);
  endfunction

  // ------------------------------------------------------------------ input side
  slot_rec_t   in_rec;
  logic [2:0]  in_req, in_gnt;
  logic        in_gnt_valid;
  /* verilator lint_off UNUSEDSIGNAL */  // the one-hot grant selects
  logic [1:0]  in_sel;     // the input granted: 0 block, 1 packet, 2 read response
  /* verilator lint_on UNUSEDSIGNAL */
  logic        in_idx;     // a packet descriptor
  logic        in_rsp;     // a read-response job
  rd_job_t     in_rj;
  rspx_t       in_rx;
  logic        in_open;    // a descriptor can be accepted in this cycle
  logic        in_acc;     // one is accepted
  logic [QW-1:0] in_queue;
  logic          in_bmore, in_more;  // a block's first packet sent is followed by another
  block_desc_t   in_blk;
  // each input's progress flags (below)
  logic          bm_blk, mo_blk, bm_rsp, mo_rsp;
  logic [SIZE_W:0] x_blk, x_rsp, in_x;  // each input's last byte; the granted one's
  /* verilator lint_off UNUSEDSIGNAL */  // the fields the flags read
  block_desc_t   s_blk_d, s_rsp_b;
  /* verilator lint_on UNUSEDSIGNAL */

  localparam int unsigned HEAD_IDS = 2;  // free slots held ahead of the pool (see u_head)

  logic          pool_valid;  // the head holds a free slot (pool_id)
  logic [SW-1:0] pool_id;
  logic          pool_m_valid, head_s_ready;
  logic [SW-1:0] pool_m_id;
  /* verilator lint_off UNUSEDSIGNAL */
  logic          pool_ready;  // pool_m_valid already implies it
  logic [cnt_w(HEAD_IDS)-1:0] head_count;
  logic          head_almost_full;
  /* verilator lint_on UNUSEDSIGNAL */
  logic          free_valid;  // a slot released (stage B's release, registered: t+7)
  logic [SW-1:0] free_id;

  logic          reenq;      // stage B re-queues a block (takes the enqueue port)
  logic          b_reenq_q;  // reenq as a register of its own, loaded in A
  logic          b_reenq_d;  // its next value: stage B re-queues in the next cycle

  // W (a + 1): the accepted descriptor, registered; its slot and queue written from here
  logic          w_valid_q;
  logic [SW-1:0] w_slot_q;
  logic [QW-1:0] w_queue_q;
  slot_rec_t     w_rec_q;
  prog_t         w_prog_q;

  /* verilator lint_off UNUSEDSIGNAL */  // dst_node here
  pkt_desc_t       in_pkt;
  /* verilator lint_on UNUSEDSIGNAL */

  assign in_pkt = pkt_desc_t'(s_pkt_data);
  assign in_rj  = rd_job_t'(s_rsp_data);
  assign in_req = {s_rsp_valid, s_pkt_valid, s_blk_valid};
  assign in_idx = in_gnt[1];
  assign in_rsp = in_gnt[2];
  assign in_rx  = in_rsp ? '{resp: 1'b1, epoch: in_rj.epoch, gen: in_rj.gen} : '0;

  qrdma_arb_rr #(.N(3)) u_in_arb (
    .clk       (clk),
    .rst       (rst),
    .req       (in_req),
    .ack       (in_acc),
    .gnt       (in_gnt),
    .gnt_valid (in_gnt_valid),
    .gnt_idx   (in_sel)
  );

  // W's write takes the enqueue port in the cycle after the accept: none while stage B
  // re-queues in that cycle
  assign in_open        = pool_valid && !b_reenq_d;
  assign in_acc         = in_open && in_gnt_valid;
  assign s_blk_ready    = in_open && in_gnt[0];
  assign s_pkt_ready    = in_open && in_gnt[1];
  assign s_rsp_ready    = in_open && in_gnt[2];

  assign in_blk   = in_rsp ? s_rsp_b : s_blk_d;
  assign in_rec   = in_idx ? '{kind: SLOT_PKT, data: s_pkt_data}
                           : '{kind: SLOT_BLK, data: DATA_W'({in_x, in_rx, in_blk})};
  // of its block; of the run it sends (pkt_num 0: the block's rest, else pkt_num > 1)
  // The progress flags of each input's descriptor, formed from that input alone, the
  // grant selecting among them at the end (no grant in front of the carry chains). A
  // read block is one packet (no flag); a packet descriptor has none.

  assign s_blk_d  = block_desc_t'(s_blk_data);
  assign s_rsp_b  = blk_of_rsp(in_rj);
  assign bm_blk   = !is_read(s_blk_d.xfer) && bmore_of(s_blk_d.dst_addr[LG-1:0], s_blk_d.size,
                                                       PIDX_W'(s_blk_d.pkt_first));
  assign mo_blk   = (s_blk_d.pkt_num == '0) ? bm_blk
                                            : !is_read(s_blk_d.xfer) && (s_blk_d.pkt_num != PIDX_W'(1));
  assign bm_rsp   = bmore_of(s_rsp_b.dst_addr[LG-1:0], s_rsp_b.size, PIDX_W'(s_rsp_b.pkt_first));
  assign mo_rsp   = (s_rsp_b.pkt_num == '0) ? bm_rsp : (s_rsp_b.pkt_num != PIDX_W'(1));
  assign x_blk    = last_byte(s_blk_d.dst_addr[LG-1:0], s_blk_d.size);
  assign x_rsp    = last_byte(s_rsp_b.dst_addr[LG-1:0], s_rsp_b.size);
  assign in_x     = in_rsp ? x_rsp : x_blk;
  assign in_bmore = (in_gnt[0] && bm_blk) || (in_gnt[2] && bm_rsp);
  assign in_more  = (in_gnt[0] && mo_blk) || (in_gnt[2] && mo_rsp);
  assign in_queue = node_queue(in_idx ? in_pkt.dst_node : in_blk.dst_node);

  // W: loaded in every cycle (no enable on the wide word), valid with an accept
  always_ff @(posedge clk) begin
    w_valid_q <= in_acc;
    w_slot_q  <= pool_id;
    w_queue_q <= in_queue;
    w_rec_q   <= in_rec;
    w_prog_q  <= '{pidx: in_idx ? '0 : PIDX_W'(in_blk.pkt_first), bmore: in_bmore,
                   more: in_more};
    if (rst) w_valid_q <= 1'b0;
  end

  // W's descriptor, decoded from its record for the generations
  /* verilator lint_off UNUSEDSIGNAL */  // the fields of the slot's word
  block_desc_t w_blk;
  pkt_desc_t   w_pkt;
  /* verilator lint_on UNUSEDSIGNAL */
  logic        w_idx, w_rsp, w_read;

  assign w_blk  = block_desc_t'(w_rec_q.data[BLOCK_DESC_W-1:0]);
  assign w_pkt  = pkt_desc_t'(w_rec_q.data);
  assign w_idx  = w_rec_q.kind == SLOT_PKT;
  assign w_rsp  = !w_idx && w_rec_q.data[BLOCK_DESC_W + $bits(rspx_t) - 1];
  assign w_read = !w_idx && !w_rsp && is_read(w_blk.xfer);  // one READ_REQ packet

  // blk_seq_q: the seq of the last block taken that is not a re-send (the engine's blocks
  // come in seq order), as of W: a CONTROL packet's block has been taken when
  // blk_seq_q - seq is in [0, 2^15) (see "generations")
  logic [15:0] blk_seq_q;

  always_ff @(posedge clk) begin
    if (w_valid_q && !w_idx && !w_rsp && !w_blk.resend) blk_seq_q <= w_blk.seq;
    if (rst) blk_seq_q <= '1;   // the engine's first seq is 0
  end

  // slots in use; a descriptor waiting for one
  always_ff @(posedge clk) begin
    occ_slots       <= occ_slots + (SW + 1)'(in_acc) - (SW + 1)'(free_valid);
    stat_slot_stall <= (s_blk_valid || s_pkt_valid) && !pool_valid;
    if (rst) begin
      occ_slots       <= '0;
      stat_slot_stall <= 1'b0;
    end
  end

  // Free slots are taken from a head of HEAD_IDS registers, which the pool refills while
  // the head's s_ready register is high: the pool's pop and its FIFO's count depend on
  // registers only, the take (in_acc) updates the head's small count. Two entries keep one
  // take per cycle. A released slot can be taken again a cycle later than the pool alone
  // hands it out.
  qrdma_id_pool #(.NUM_IDS(SLOTS), .ID_W(SW)) u_pool (
    .clk        (clk),
    .rst        (rst),
    .ready      (pool_ready),
    .m_valid    (pool_m_valid),
    .m_ready    (head_s_ready),
    .m_id       (pool_m_id),
    .free_valid (free_valid),
    .free_id    (free_id)
  );

  qrdma_sync_fifo #(.WIDTH(SW), .DEPTH(HEAD_IDS), .HEAD_REG(1'b1)) u_head (
    .clk         (clk),
    .rst         (rst),
    .s_valid     (pool_m_valid),
    .s_ready     (head_s_ready),
    .s_data      (pool_m_id),
    .m_valid     (pool_valid),
    .m_ready     (in_acc),
    .m_data      (pool_id),
    .count       (head_count),
    .almost_full (head_almost_full)
  );

  // ------------------------------------------------------------------ slots and queues
  logic [REC_W-1:0]  slot_rd;
  prog_t             prog_rd;
  logic              prog_we;
  logic [SW-1:0]     prog_waddr;
  prog_t             prog_wdata;
  logic [NUM_NODES-1:0] q_empty;
  logic              enq_valid;
  logic [QW-1:0]     enq_queue;
  logic [SW-1:0]     enq_entry;
  logic [NUM_NODES-1:0] q_multi;
  logic [NUM_NODES-1:0] deq_oh_q;  // the picked queue's dequeue request (one-hot)
  logic [QW-1:0]     pick_queue;
  logic              deq_v_q;      // the queue picked in the cycle before is requested
  logic [QW-1:0]     deq_queue_q;
  logic [SW-1:0]     pick_slot;    // its head, two cycles after the request
  logic              s_valid_q;    // pick_slot is the head of a request (t+3)

  // Both RAMs are read at the dequeue, through their output registers (data two cycles on),
  // and written only into slots that are in no queue: a filled slot comes from the pool,
  // a re-queued block is out of its queue from its pick until its re-queue (stage B), and
  // a slot is picked only while in a queue. So a read never meets a write of the same slot
  // in the same cycle (RDW_ANY).
  qrdma_sdp_ram #(.WIDTH(REC_W), .DEPTH(SLOTS), .OUT_REG(1'b1), .RDW_ANY(1'b1)) u_slot_ram (
    .clk     (clk),
    .wr_en   (w_valid_q),
    .wr_be   (1'b1),
    .wr_addr (w_slot_q),
    .wr_data (w_rec_q),
    .rd_en   (s_valid_q),
    .rd_addr (pick_slot),
    .rd_data (slot_rd)
  );

  // Progress of a block: index of its next packet to send, and whether another packet
  // follows it in the block and in the run. Written {pkt_first, flags of the input} when
  // a slot is filled (0 for a packet descriptor) and {i+1, i+1 != last, i+1 != the run's
  // last} when a block is re-queued after packet i (never in the same cycle: both take the
  // enqueue port).
  qrdma_sdp_ram #(.WIDTH($bits(prog_t)), .DEPTH(SLOTS), .OUT_REG(1'b1), .RDW_ANY(1'b1))
    u_prog_ram (
    .clk     (clk),
    .wr_en   (prog_we),
    .wr_be   (1'b1),
    .wr_addr (prog_waddr),
    .wr_data (prog_wdata),
    .rd_en   (s_valid_q),
    .rd_addr (pick_slot),
    .rd_data (prog_rd)
  );

  // ------------------------------------------------------------------ generations
  // The counter of the taken descriptor's (queue, TID), decoded from W, is read in G1
  // (a + 2) and is in the RAM's output register in G3 (a + 4), which registers it, or the
  // counter a take before it with the same key left (compares registered in G2): the take
  // in G4 (its sum), in G5 or in G6, whose writes come after the read or in its cycle. In
  // G4 (a + 5) the new counter (+1 for a block or inline packet that is not a re-send) is
  // written back, and the header's generation (the counter, +1 for a CONTROL whose block
  // has not been taken yet: the block takes that one) into the slot's word of u_gen_slot.
  // A CONTROL's block is compared in G1 (blk_seq_q as of its W).
  logic           g1_v_q, g2_v_q, g3_v_q, g4_v_q, g5_v_q;
  logic [GKW-1:0] g1_k_q, g2_k_q, g3_k_q, g4_k_q, g5_k_q;
  logic [SW-1:0]  g1_s_q, g2_s_q, g3_s_q, g4_s_q;
  logic           g1_n_q, g2_n_q, g3_n_q, g4_n_q;  // a new use: the counter goes up
  logic           g1_c_q;                   // a CONTROL packet, not a re-send
  logic [15:0]    g1_cseq_q, g1_bseq_q;     // its seq, blk_seq_q as of its W
  logic           g2_e_q, g3_e_q, g4_e_q;   // a CONTROL taken before its block
  logic           g3_f4_q, g3_f5_q, g3_f6_q;  // G3's key is G4's, G5's, G6's
  logic [GW-1:0]  g4_q;                     // G4: the counter before its take
  logic [GW-1:0]  g5_q, g6_q;               // the counters G4 left in the cycles before
  logic [GW-1:0]  g_rd, g_new, g_hdr;
  logic [TW-1:0]  w_tid;

  assign w_tid = w_idx ? w_pkt.tid : w_blk.tid;

  always_ff @(posedge clk) begin
    g1_v_q    <= w_valid_q;
    g1_k_q    <= GKW'({w_read ? node_queue(node_id) : w_queue_q, w_tid});
    g1_s_q    <= w_slot_q;
    g1_n_q    <= w_idx ? (w_pkt.kind == 1'(PKT_INLINE) && !w_pkt.resend)
                       : (!w_blk.resend && !w_rsp);
    g1_c_q    <= w_idx && w_pkt.kind == 1'(PKT_CONTROL) && !w_pkt.resend && !w_pkt.announce;
    g1_cseq_q <= w_pkt.seq;
    g1_bseq_q <= blk_seq_q;
    g2_v_q    <= g1_v_q;
    g2_k_q    <= g1_k_q;
    g2_s_q    <= g1_s_q;
    g2_n_q    <= g1_n_q;
    g2_e_q    <= g1_c_q && 1'((g1_bseq_q - g1_cseq_q) >> 15);
    g3_v_q    <= g2_v_q;
    g3_k_q    <= g2_k_q;
    g3_s_q    <= g2_s_q;
    g3_n_q    <= g2_n_q;
    g3_e_q    <= g2_e_q;
    g3_f4_q   <= g3_v_q && g3_k_q == g2_k_q;
    g3_f5_q   <= g4_v_q && g4_k_q == g2_k_q;
    g3_f6_q   <= g5_v_q && g5_k_q == g2_k_q;
    g4_v_q    <= g3_v_q;
    g4_k_q    <= g3_k_q;
    g4_s_q    <= g3_s_q;
    g4_n_q    <= g3_n_q;
    g4_e_q    <= g3_e_q;
    g4_q      <= g3_f4_q ? g_new : (g3_f5_q ? g5_q : (g3_f6_q ? g6_q : g_rd));
    g5_v_q    <= g4_v_q;
    g5_k_q    <= g4_k_q;
    g5_q      <= g_new;
    g6_q      <= g5_q;
    if (rst) begin
      g1_v_q <= 1'b0;
      g2_v_q <= 1'b0;
      g3_v_q <= 1'b0;
      g4_v_q <= 1'b0;
      g5_v_q <= 1'b0;
    end
  end

  assign g_hdr = g4_q + GW'(g4_n_q || g4_e_q);   // (never both)
  assign g_new = g4_e_q ? g4_q : g_hdr;

  // The counters are not reset: they go on across a reset, so that a copy sent before it
  // stays old at its receiver (docs/reliability.md "Exactly once"). RDW_ANY: a read that
  // meets a write of its key is forwarded from G6.
  qrdma_sdp_ram #(.WIDTH(GW), .DEPTH(NUM_NODES << TW), .OUT_REG(1'b1), .RDW_ANY(1'b1)) u_gen (
    .clk,
    .wr_en(g4_v_q && g4_n_q), .wr_be(1'b1), .wr_addr(g4_k_q), .wr_data(g_new),
    .rd_en(g1_v_q), .rd_addr(g1_k_q), .rd_oe(1'b1), .rd_data(g_rd)
  );

  // the generation of each slot's descriptor, read with the slot (written in G4, a + 5,
  // read at a + 6 at the earliest)
  logic [GW-1:0] gen_rd;
  qrdma_sdp_ram #(.WIDTH(GW), .DEPTH(SLOTS), .OUT_REG(1'b1), .RDW_ANY(1'b1)) u_gen_slot (
    .clk,
    .wr_en(g4_v_q), .wr_be(1'b1), .wr_addr(g4_s_q), .wr_data(g_hdr),
    .rd_en(s_valid_q), .rd_addr(pick_slot), .rd_oe(1'b1), .rd_data(gen_rd)
  );

  qrdma_multi_queue_pipe #(.NUM_QUEUES(NUM_NODES), .NUM_ENTRIES(SLOTS)) u_voq (
    .clk       (clk),
    .rst       (rst),
    .enq_valid (enq_valid),
    .enq_queue (enq_queue),
    .enq_entry (enq_entry),
    .deq_valid (deq_v_q),
    .deq_sel   (deq_oh_q),
    .deq_entry (pick_slot),
    .empty     (q_empty),
    .multi     (q_multi)
  );

  // ------------------------------------------------------------------ pick
  // The arbiter grants from registered state; the granted queue's dequeue is requested in
  // the next cycle (deq_oh_q, one-hot). The queues' flags reflect the requests of the
  // cycles before, so the queue being requested is eligible again only when it holds more
  // than one entry (multi): no grant goes to a queue that the request in flight empties.
  logic [NUM_NODES-1:0] elig, pick_gnt;
  logic                 pick_any;

  assign elig = ~q_empty & ~tx_pause & ~(deq_oh_q & ~q_multi);

  qrdma_arb_rr #(.N(NUM_NODES)) u_arb (
    .clk       (clk),
    .rst       (rst),
    .req       (elig),
    .ack       (pick),
    .gnt       (pick_gnt),
    .gnt_valid (pick_any),
    .gnt_idx   (pick_queue)
  );

  assign pick = pick_any && pick_ok;

  always_ff @(posedge clk) begin
    deq_v_q     <= pick;
    deq_queue_q <= pick_queue;
    deq_oh_q    <= pick ? pick_gnt : '0;
    if (rst) begin
      deq_v_q  <= 1'b0;
      deq_oh_q <= '0;
    end
  end

  // ------------------------------------------------------------------ t+2 .. t+4
  logic          p_valid_q, r_valid_q, a_valid_q, b_valid_q, c_valid_q;
  logic [SW-1:0] r_slot_q, a_slot_q, b_slot_q;
  logic [QW-1:0] p_queue_q, s_queue_q, r_queue_q, a_queue_q, b_queue_q;

  always_ff @(posedge clk) begin
    p_valid_q <= deq_v_q;
    s_valid_q <= p_valid_q;
    r_valid_q <= s_valid_q;
    a_valid_q <= r_valid_q;
    b_valid_q <= a_valid_q;
    b_reenq_q <= b_reenq_d;  // = b_valid_q && b_more_q
    c_valid_q <= b_valid_q;
    if (rst) begin
      p_valid_q <= 1'b0;
      s_valid_q <= 1'b0;
      r_valid_q <= 1'b0;
      a_valid_q <= 1'b0;
      b_valid_q <= 1'b0;
      b_reenq_q <= 1'b0;
      c_valid_q <= 1'b0;
    end
  end

  always_ff @(posedge clk) begin
    p_queue_q <= deq_queue_q;
    s_queue_q <= p_queue_q;
    r_slot_q  <= pick_slot;
    r_queue_q <= s_queue_q;
    a_slot_q  <= r_slot_q;
    a_queue_q <= r_queue_q;
    b_slot_q  <= a_slot_q;
    b_queue_q <= a_queue_q;
  end

  // ------------------------------------------------------------------ stage A (t+5)
  // The RAM outputs hold the picked slot's record and progress in A. The packets of a
  // block (docs/nic.md "Packetization"), with dlow = dst_addr mod MAX_PAYLOAD and
  // x = dlow + size - 1: the last packet's index is x / MAX_PAYLOAD, so packet p is
  // followed by another iff p != x / MAX_PAYLOAD; its length is size (the only one),
  // MAX_PAYLOAD - dlow (the first of several), MAX_PAYLOAD (a middle one) or
  // (x mod MAX_PAYLOAD) + 1 (the last of several); its destination is dst_addr (the
  // first) or the MAX_PAYLOAD boundary dst_addr / MAX_PAYLOAD + p; its offset in the
  // block 0 or p * MAX_PAYLOAD - dlow. The beat counts follow the same cases: a packet
  // after the first starts at lane 0 of the destination. The run sent ends at packet
  // pkt_first + pkt_num - 1, or at the block's last (pkt_num 0): "more" (from the progress
  // RAM) is whether another packet of the run follows (the block is re-queued), "bmore"
  // whether another packet of the block follows (the length case).
  slot_rec_t          rec;       // A: the picked slot's record (RAM output)
  /* verilator lint_off UNUSEDSIGNAL */  // cm, chained, has_next, block: not used here
  block_desc_t        blk;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [LG-1:0]      dlow;
  logic [SIZE_W:0]    a_x;       // dlow + size - 1, kept in the slot

  assign rec  = slot_rec_t'(slot_rd);
  assign blk  = block_desc_t'(rec.data[BLOCK_DESC_W-1:0]);
  assign dlow = blk.dst_addr[LG-1:0];
  assign a_x  = rec.data[BLOCK_DESC_W + $bits(rspx_t) +: SIZE_W + 1];

  slot_rec_t          rec_b_q;    // B: the record, registered
  logic [15:0]        b_node_q;   // node_id, sampled in A
  logic [7:0]         b_epoch_q;  // epoch, sampled in A
  logic [GW-1:0]      b_gen_q;    // the slot's generation
  logic [PIDX_W-1:0]  b_pidx_q;   // packet index
  logic [PIDX_W-1:0]  b_pidx1_q;  // ... + 1
  logic [PIDX_W-1:0]  b_lidx_q;   // index of the block's last packet
  logic [PIDX_W-1:0]  b_rend_q;   // pkt_first + pkt_num - 1: the run's last (pkt_num != 0)
  logic               b_rall_q;   // pkt_num 0: the run ends with the block
  logic               b_first_q;  // the first packet of its block
  logic               b_more_q;   // a block packet followed by another of its run
  logic               b_bmore_q;  // a block packet followed by another of its block
  logic [OFF_W-1:0]   b_off_q;    // offset in the block
  logic [63:0]        b_dst_q;    // destination address
  logic [HI_W-1:0]    b_shi1_q;   // src_addr[63:OFF_W] + 1
  logic [LG:0]        b_room0_q;  // MAX_PAYLOAD - dlow
  logic [LG:0]        b_tail_q;   // (x mod MAX_PAYLOAD) + 1
  logic [BEATS_W-1:0] b_np_q [4]; // packed beats of each length case (size, room0, MAX_PAYLOAD, tail)
  logic [BEATS_W-1:0] b_no_q [2]; // link beats of the first packet (size, room0)

  always_ff @(posedge clk) begin
    // (computed in this block: evaluated only with a packet in A)
    if (a_valid_q) begin
      logic first;
      first      = (prog_rd.pidx == '0);
      rec_b_q    <= rec;
      b_node_q   <= node_id;
      b_epoch_q  <= epoch;
      b_gen_q    <= gen_rd;
      b_pidx_q   <= prog_rd.pidx;
      b_pidx1_q  <= prog_rd.pidx + PIDX_W'(1);
      b_lidx_q   <= PIDX_W'(a_x >> LG);
      b_rend_q   <= PIDX_W'(blk.pkt_first) + PIDX_W'(blk.pkt_num) - PIDX_W'(1);
      b_rall_q   <= blk.pkt_num == '0;
      b_first_q  <= first;
      b_more_q   <= prog_rd.more;
      b_bmore_q  <= prog_rd.bmore;
      b_off_q    <= first ? '0 : {prog_rd.pidx, LG'(0)} - OFF_W'(dlow);
      b_dst_q    <= first ? blk.dst_addr
                          : {blk.dst_addr[63:LG] + (64 - LG)'(prog_rd.pidx), LG'(0)};
      b_shi1_q   <= blk.src_addr[63:OFF_W] + HI_W'(1);
      b_room0_q  <= (LG + 1)'(MAX_PAYLOAD) - (LG + 1)'(dlow);
      b_tail_q   <= (LG + 1)'(a_x[LG-1:0]) + (LG + 1)'(1);
      // packed beats ceil(len / 64) of the four cases
      b_np_q[0]  <= beats_of('0, LEN_W'(blk.size));
      b_np_q[1]  <= BEATS_W'(MPB) - BEATS_W'(dlow >> LANE_W);
      b_np_q[2]  <= BEATS_W'(MPB);
      b_np_q[3]  <= BEATS_W'(a_x[LG-1:LANE_W]) + BEATS_W'(1);
      // link beats ceil((dst lane + len) / 64) of the first packet
      b_no_q[0]  <= beats_of(blk.dst_addr[LANE_W-1:0], LEN_W'(blk.size));
      b_no_q[1]  <= BEATS_W'(MPB) - BEATS_W'(dlow >> LANE_W);
    end
  end

  // ------------------------------------------------------------------ stage B (t+6)
  logic [1:0]          b_case;     // length case: 0 size, 1 room0, 2 MAX_PAYLOAD, 3 tail
  logic [LEN_W-1:0]    b_len;
  logic [OFF_W:0]      b_slo;      // src_addr[OFF_W-1:0] + offset, with its carry
  logic [63:0]         b_src;
  /* verilator lint_off UNUSEDSIGNAL */  // cm, chained, has_next, block: not in the header
  block_desc_t         blk_b;
  /* verilator lint_on UNUSEDSIGNAL */

  assign blk_b  = block_desc_t'(rec_b_q.data[BLOCK_DESC_W-1:0]);
  assign b_case = {!b_first_q, b_first_q ? b_bmore_q : !b_bmore_q};
  always_comb begin
    unique case (b_case)
      2'd0:    b_len = LEN_W'(blk_b.size);
      2'd1:    b_len = LEN_W'(b_room0_q);
      2'd2:    b_len = LEN_W'(MAX_PAYLOAD);
      default: b_len = LEN_W'(b_tail_q);
    endcase
  end
  assign b_slo = (OFF_W + 1)'(blk_b.src_addr[OFF_W-1:0]) + (OFF_W + 1)'(b_off_q);
  assign b_src = {b_slo[OFF_W] ? b_shi1_q : blk_b.src_addr[63:OFF_W], b_slo[OFF_W-1:0]};

  // The header beat: fields by slot kind; the CONTROL fields that share bits with
  // inline_data are set last. ask: the last packet of a run that ends before the block's
  // last packet (that one always asks).
  function automatic logic [DATA_W-1:0] make_hdr(input slot_rec_t          r,
                                                 input logic [15:0]        src,
                                                 input logic [7:0]         ep,
                                                 input logic [GW-1:0]      gen,
                                                 input logic [PIDX_W-1:0]  pidx,
                                                 input logic [PIDX_W-1:0]  pkts,
                                                 input logic [LEN_W-1:0]   len,
                                                 input logic [63:0]        dst,
                                                 input logic               ask);
    /* verilator lint_off UNUSEDSIGNAL */  // cm, chained, has_next, block; reserved bits
    block_desc_t b;
    pkt_desc_t   p;
    /* verilator lint_on UNUSEDSIGNAL */
    rspx_t             rx;
    logic              rdb;
    net_hdr_t          h;
    logic [DATA_W-1:0] x;
    b  = block_desc_t'(r.data[BLOCK_DESC_W-1:0]);
    p  = pkt_desc_t'(r.data);
    rx = rspx_t'(r.data[BLOCK_DESC_W +: $bits(rspx_t)]);
    rdb = r.kind == SLOT_BLK && is_read(b.xfer) && !rx.resp;
    h          = '0;
    h.src_node = src;
    h.epoch    = ep;
    h.gen      = gen;
    unique case (r.kind)
      SLOT_BLK: begin
        h.ptype    = 4'(NET_DATA);
        h.dst_node = b.dst_node;
        h.tid      = b.tid;
        h.seq      = b.seq;
        h.pkt_idx  = pidx;
        h.blk_pkts = pkts;
        h.len      = len;
        h.dst_addr = dst;
        h.pd       = b.pd;
        h.fid      = b.fid;
        h.path     = b.path;
        h.notify   = b.notify;
        h.last     = b.last;
        h.xfer     = b.xfer;
        h.ask      = ask;
        h.rkey     = b.rkey;
        h.registered = b.registered && !rx.resp && !rdb;   // (xblock, xseq below)
        if (rx.resp) begin  // a read response: the requester's block
          h.resp  = 1'b1;
          h.gen   = rx.gen;
          h.epoch = rx.epoch;
        end
        if (rdb) begin      // a read block: its READ_REQ
          h.ptype    = 4'(NET_READ_REQ);
          h.pkt_idx  = PIDX_W'(b.pkt_first);
          h.miss_cnt = b.pkt_num;
          h.blk_pkts = '0;
          h.len      = '0;
          h.dst_addr = b.src_addr;
          h.notify   = 1'b0;
          h.last     = 1'b0;
          h.ask      = 1'b0;
        end
      end
      default: begin  // SLOT_PKT
        h.ptype    = (p.kind == 1'(PKT_INLINE)) ? 4'(NET_INLINE)
                   : (p.announce ? 4'(NET_REGISTER) : 4'(NET_CONTROL));
        h.registered = p.kind == 1'(PKT_CONTROL) && p.registered;
        h.dst_node = p.dst_node;
        h.tid      = p.tid;
        h.seq      = p.seq;
        h.dst_addr = p.dst_addr;
        h.pd       = p.pd;
        h.xfer     = p.xfer;
        if (p.kind == 1'(PKT_CONTROL) && p.announce) begin   // REGISTER: not tracked
          h.tid   = '0;
          h.gen   = '0;
          h.epoch = '0;
        end
        if (p.kind != 1'(PKT_CONTROL)) begin
          h.len    = LEN_W'(p.len);
          h.notify = p.notify;
          h.rkey   = p.rkey;
          // inline payload, bytes from len on cleared (len >= 32: all 32 bytes)
          h.inline_data = (p.len >= 6'd32) ? p.payload
                        : p.payload & ~({256{1'b1}} << {p.len[4:0], 3'b000});
        end
      end
    endcase
    x = DATA_W'(h);
    if (rdb) begin
      x[NET_HDR_RD_LADDR_LSB +: NET_HDR_RD_LADDR_W] = b.dst_addr;
      x[NET_HDR_RD_SIZE_LSB +: NET_HDR_RD_SIZE_W]   = b.size;
      x[NET_HDR_RD_LKEY_LSB +: NET_HDR_RD_LKEY_W]   = b.lkey;
    end
    if (r.kind == SLOT_PKT && p.kind == 1'(PKT_CONTROL)) begin
      x[NET_HDR_SIZE_LSB +: NET_HDR_SIZE_W]     = p.size;
      x[NET_HDR_BLOCKS_LSB +: NET_HDR_BLOCKS_W] = p.blocks;
      x[NET_HDR_TAG_LSB +: NET_HDR_TAG_W]       = p.tag;
      if (p.registered)
        x[NET_HDR_XSEQ_LSB +: NET_HDR_XSEQ_W]   = r.data[PKT_DESC_XSEQ_LSB +: PKT_DESC_XSEQ_W];
    end
    // a block of a registered transfer (a write's): its index and its transfer's first seq
    if (r.kind == SLOT_BLK && b.registered && !rx.resp && !rdb) begin
      x[NET_HDR_XBLOCK_LSB +: NET_HDR_XBLOCK_W] = NET_HDR_XBLOCK_W'(b.block);
      x[NET_HDR_XSEQ_LSB +: NET_HDR_XSEQ_W]     = r.data[BLOCK_DESC_XSEQ_LSB +: BLOCK_DESC_XSEQ_W];
    end
    // benchmark mode: a stamped INLINE or CONTROL (not a REGISTER) carries its t_post; the
    // other stamps are written on the way (qrdma_stamp; docs/fabric.md "Benchmark mode")
    if (r.kind == SLOT_PKT && p.stamped && !(p.kind == 1'(PKT_CONTROL) && p.announce)) begin
      x[NET_HDR_STAMPED_LSB]               = 1'b1;
      x[NET_HDR_T_POST_LSB +: STAMP_W]     = r.data[PKT_DESC_T_POST_LSB +: PKT_DESC_T_POST_W];
    end
    return x;
  endfunction

  // a read-response job's block (its response fields' resp bit); a read block
  logic b_resp, b_read, b_ann;
  assign b_resp = rec_b_q.kind == SLOT_BLK && rec_b_q.data[BLOCK_DESC_W + $bits(rspx_t) - 1];
  assign b_read = rec_b_q.kind == SLOT_BLK && !b_resp && is_read(blk_b.xfer);
  // a REGISTER packet: neither tracked nor answered, no timer starts
  assign b_ann  = rec_b_q.kind == SLOT_PKT && rec_b_q.data[PKT_DESC_KIND_LSB] == 1'(PKT_CONTROL)
                  && rec_b_q.data[PKT_DESC_ANNOUNCE_LSB];

  // the job's registers (t+7)
  logic [DATA_W-1:0]   c_hdr_q;
  logic                c_data_q;   // a DATA packet
  logic                c_sent_q;   // the descriptor's last packet
  logic [LANE_W-1:0]   c_dlane_q;
  logic [LEN_W-1:0]    c_len_q;    // DATA: payload bytes
  logic [BEATS_W-1:0]  c_np_q, c_no_q;
  logic [63:0]         c_src_q;

  always_ff @(posedge clk) begin
    // (computed in this block: evaluated only with a packet in B)
    if (b_valid_q) begin
      c_hdr_q   <= make_hdr(rec_b_q, b_node_q, b_epoch_q, b_gen_q, b_pidx_q,
                            b_lidx_q + PIDX_W'(1), b_len, b_dst_q, !b_more_q && b_bmore_q);
      c_data_q  <= (rec_b_q.kind == SLOT_BLK) && !b_read;
      c_sent_q  <= !b_more_q && !b_resp && !b_ann;
      c_dlane_q <= b_dst_q[LANE_W-1:0];
      c_len_q   <= b_len;
      c_np_q    <= b_np_q[b_case];
      c_no_q    <= b_first_q ? b_no_q[b_case[0]] : b_np_q[b_case];
      c_src_q   <= b_src;
    end
  end

  // ------------------------------------------------------------------ job (t+7)
  always_comb begin
    job_valid   = c_valid_q;
    job.hdr     = c_hdr_q;
    job.is_data = c_data_q;
    job.dlane   = c_dlane_q;
    job.len     = c_hdr_q[NET_HDR_LEN_LSB +: LEN_W];
    job.n_p     = c_np_q;
    job.n_out   = c_no_q;
    rd_valid    = c_valid_q && c_data_q;
    rd.addr     = c_src_q;
    rd.n_src    = beats_of(c_src_q[LANE_W-1:0], c_len_q);
    rd.n_p      = c_np_q;
    sent_valid  = c_valid_q && c_sent_q;
    sent_tid    = c_hdr_q[NET_HDR_TID_LSB +: NET_HDR_TID_W];
  end

  // Re-queue a block with packets left, or free the slot: the release registered (t+7)
  // before the pool's push and the occupancy count, so the pool's FIFO and the count
  // start from a flop. The slot is in no queue and its RAM words are not read from its
  // release on. reenq is a flop; the take (in_acc) reads its next value, an AND of
  // registers (W's write comes a cycle after the take).
  assign reenq      = b_reenq_q;
  assign b_reenq_d  = a_valid_q && prog_rd.more;

  always_ff @(posedge clk) begin
    free_valid <= b_valid_q && !b_more_q;
    free_id    <= b_slot_q;
    if (rst) free_valid <= 1'b0;
  end

  assign enq_valid  = reenq || w_valid_q;
  assign enq_queue  = reenq ? b_queue_q : w_queue_q;
  assign enq_entry  = reenq ? b_slot_q : w_slot_q;
  assign prog_we    = reenq || w_valid_q;
  assign prog_waddr = reenq ? b_slot_q : w_slot_q;
  assign prog_wdata = reenq ? '{pidx: b_pidx1_q, bmore: b_pidx1_q != b_lidx_q,
                               more: (b_pidx1_q != b_lidx_q)
                                     && (b_rall_q || b_pidx1_q != b_rend_q)}
                            : w_prog_q;

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) assert (b_reenq_q == (b_valid_q && b_more_q))
      else $error("qrdma_tx_sched: re-queue flag %0b, stage B valid %0b more %0b",
                  b_reenq_q, b_valid_q, b_more_q);
    if (!rst) assert (!(reenq && w_valid_q))
      else $error("qrdma_tx_sched: a re-queue and W's write in one cycle");
  end

  // Descriptors the send unit cannot packetize: a block of size 0, or one with more
  // packets than the 9-bit blk_pkts field holds (> 511: size > ~510 * MAX_PAYLOAD), or a
  // run (pkt_first, pkt_num) that does not lie within the block's packets.
  always_ff @(posedge clk) begin
    if (a_valid_q)
      if (!rst && rec.kind == SLOT_BLK) begin
        assert (a_x == last_byte(dlow, blk.size))
          else $error("qrdma_tx_sched: slot %0d: last byte %0d, block's %0d", a_slot_q, a_x,
                      last_byte(dlow, blk.size));
        assert (blk.size != '0 && (a_x >> LG) < (SIZE_W + 1)'((1 << PIDX_W) - 1))
          else $error("qrdma_tx_sched: block of %0d bytes at 0x%0h: not packetizable",
                      blk.size, blk.dst_addr);
        assert ((SIZE_W + 1)'(blk.pkt_first) <= (a_x >> LG)
                && (blk.pkt_num == '0
                    || (SIZE_W + 1)'(blk.pkt_first) + (SIZE_W + 1)'(blk.pkt_num)
                       <= (a_x >> LG) + (SIZE_W + 1)'(1)))
          else $error("qrdma_tx_sched: packets %0d + %0d of a block of %0d packets",
                      blk.pkt_first, blk.pkt_num, (a_x >> LG) + 1);
      end
  end
`endif

endmodule

`default_nettype wire
