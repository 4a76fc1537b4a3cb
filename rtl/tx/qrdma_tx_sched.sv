// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_tx_sched: the VOQs and packet scheduler of the send unit (docs/nic.md "Send
// unit", [FPGA-NI] §2.5). Block descriptors and packet descriptors (the request class)
// each take a descriptor slot (qrdma_id_pool) and wait in the queue of their destination
// (qrdma_multi_queue, queue = dst_node mod NUM_NODES). A round-robin arbiter (qrdma_arb_rr)
// picks, one packet per cycle, among the queues that are not empty and not paused; the
// picked slot's packet is computed (packetization of docs/nic.md for a block) and its
// header beat built; a block with packets left goes back to the tail of its queue, any
// other slot is freed. ACK/NACK responses never take a slot (qrdma_tx_rsp), so a send
// unit full of requests still answers. Inside: docs/modules.md#qrdma_tx_sched.
//
// Contract: one descriptor per cycle is accepted (round robin between the two inputs)
// while a slot is free and the queues' single enqueue port is not taken by a re-queued
// block in that cycle. Pipeline (cycle t = the cycle of the pick):
//   t    pick: queue granted, its head slot dequeued, slot and progress RAMs read
//   t+1  A: packet offset, length, packet count (narrow arithmetic on the RAM outputs);
//        the slot record registered for B; node_id sampled
//   t+2  B: addresses, header beat; job_valid (and rd_valid for DATA) for one cycle;
//        the block is re-queued (progress + 1) or the slot freed
// pick_ok (the caller's room for one more packet) must cover the packets in stages A and
// B too.
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
  // descriptors
  input  logic                     s_blk_valid,
  output logic                     s_blk_ready,
  input  logic [BLOCK_DESC_W-1:0]  s_blk_data,
  input  logic                     s_pkt_valid,
  output logic                     s_pkt_ready,
  input  logic [PKT_DESC_W-1:0]    s_pkt_data,
  input  logic [NUM_NODES-1:0]     tx_pause,        // queue k is not picked while high
  // picks
  input  logic                     pick_ok,         // room for one more packet (see header)
  output logic                     pick,            // a packet is picked in this cycle
  // the picked packet, one cycle (stage B)
  output logic                     job_valid,
  output job_t                     job,
  output logic                     rd_valid,        // DATA: its payload read
  output rd_cmd_t                  rd,
  // occupancy and stall
  output logic [SW:0]              occ_slots,       // slots in use
  output logic                     stat_slot_stall  // a descriptor waits: no slot free
);

  localparam int unsigned LG     = $clog2(MAX_PAYLOAD);
  localparam int unsigned PIDX_W = NET_HDR_PKT_IDX_W;  // packet index in a block
  localparam int unsigned OFF_W  = PIDX_W + LG;        // byte offset of a packet in a block
  localparam int unsigned SIZE_W = BLOCK_DESC_SIZE_W;
  localparam int unsigned REC_W  = $bits(slot_rec_t);

`ifndef SYNTHESIS
  initial begin
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

  // ------------------------------------------------------------------ input side
  slot_rec_t   in_rec;
  logic [1:0]  in_req, in_gnt;
  logic        in_gnt_valid;
  logic        in_idx;
  logic        in_open;    // a descriptor can be accepted in this cycle
  logic        in_acc;     // one is accepted
  logic [QW-1:0] in_queue;

  logic          pool_valid;
  logic [SW-1:0] pool_id;
  /* verilator lint_off UNUSEDSIGNAL */
  logic          pool_ready;  // pool_valid already implies it
  /* verilator lint_on UNUSEDSIGNAL */
  logic          free_valid;
  logic [SW-1:0] free_id;

  logic          reenq;      // stage B re-queues a block (takes the enqueue port)

  assign in_req = {s_pkt_valid, s_blk_valid};

  qrdma_arb_rr #(.N(2)) u_in_arb (
    .clk       (clk),
    .rst       (rst),
    .req       (in_req),
    .ack       (in_acc),
    .gnt       (in_gnt),
    .gnt_valid (in_gnt_valid),
    .gnt_idx   (in_idx)
  );

  assign in_open        = pool_valid && !reenq;
  assign in_acc         = in_open && in_gnt_valid;
  assign s_blk_ready    = in_open && in_gnt[0];
  assign s_pkt_ready    = in_open && in_gnt[1];

  assign in_rec   = in_idx ? '{kind: SLOT_PKT, data: s_pkt_data}
                           : '{kind: SLOT_BLK, data: DATA_W'(s_blk_data)};
  assign in_queue = node_queue(
      in_idx ? s_pkt_data[PKT_DESC_DST_NODE_LSB +: PKT_DESC_DST_NODE_W]
             : s_blk_data[BLOCK_DESC_DST_NODE_LSB +: BLOCK_DESC_DST_NODE_W]);

  // slots in use; a descriptor waiting for one
  always_ff @(posedge clk) begin
    occ_slots       <= occ_slots + (SW + 1)'(in_acc) - (SW + 1)'(free_valid);
    stat_slot_stall <= (s_blk_valid || s_pkt_valid) && !pool_valid;
    if (rst) begin
      occ_slots       <= '0;
      stat_slot_stall <= 1'b0;
    end
  end

  qrdma_id_pool #(.NUM_IDS(SLOTS), .ID_W(SW)) u_pool (
    .clk        (clk),
    .rst        (rst),
    .ready      (pool_ready),
    .m_valid    (pool_valid),
    .m_ready    (in_acc),
    .m_id       (pool_id),
    .free_valid (free_valid),
    .free_id    (free_id)
  );

  // ------------------------------------------------------------------ slots and queues
  logic [REC_W-1:0]  slot_rd;
  logic [PIDX_W-1:0] prog_rd;
  logic              prog_we;
  logic [SW-1:0]     prog_waddr;
  logic [PIDX_W-1:0] prog_wdata;
  logic [NUM_NODES-1:0] q_empty;
  logic              enq_valid;
  logic [QW-1:0]     enq_queue;
  logic [SW-1:0]     enq_entry;
  logic [QW-1:0]     pick_queue;
  logic [SW-1:0]     pick_slot;

  qrdma_sdp_ram #(.WIDTH(REC_W), .DEPTH(SLOTS)) u_slot_ram (
    .clk     (clk),
    .wr_en   (in_acc),
    .wr_be   (1'b1),
    .wr_addr (pool_id),
    .wr_data (in_rec),
    .rd_en   (pick),
    .rd_addr (pick_slot),
    .rd_data (slot_rd)
  );

  // Progress of a block: index of its next packet. Written 0 when a slot is filled and
  // i+1 when a block is re-queued (never in the same cycle: both take the enqueue port).
  qrdma_sdp_ram #(.WIDTH(PIDX_W), .DEPTH(SLOTS)) u_prog_ram (
    .clk     (clk),
    .wr_en   (prog_we),
    .wr_be   (1'b1),
    .wr_addr (prog_waddr),
    .wr_data (prog_wdata),
    .rd_en   (pick),
    .rd_addr (pick_slot),
    .rd_data (prog_rd)
  );

  qrdma_multi_queue #(.NUM_QUEUES(NUM_NODES), .NUM_ENTRIES(SLOTS)) u_voq (
    .clk       (clk),
    .rst       (rst),
    .enq_valid (enq_valid),
    .enq_queue (enq_queue),
    .enq_entry (enq_entry),
    .deq_valid (pick),
    .deq_queue (pick_queue),
    .deq_entry (pick_slot),
    .empty     (q_empty)
  );

  // ------------------------------------------------------------------ pick
  logic [NUM_NODES-1:0] elig;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [NUM_NODES-1:0] pick_gnt;  // one-hot form of pick_queue
  /* verilator lint_on UNUSEDSIGNAL */
  logic                 pick_any;
  logic                 a_valid_q;  // stage A holds a pick

  assign elig = ~q_empty & ~tx_pause;

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

  // ------------------------------------------------------------------ stage A
  // The RAM outputs hold the picked slot in A and B (no RAM read in A, see header).
  slot_rec_t          rec;       // A: the picked slot's record (RAM output)
  slot_rec_t          rec_b_q;   // B: the same, registered
  /* verilator lint_off UNUSEDSIGNAL */  // cm, chained, has_next, block: not in the header
  block_desc_t        blk;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [SW-1:0]      a_slot_q;
  logic [QW-1:0]      a_queue_q;
  logic [LG-1:0]      dlow;      // dst_addr mod MAX_PAYLOAD

  assign rec  = slot_rec_t'(slot_rd);
  assign blk  = block_desc_t'(rec.data[BLOCK_DESC_W-1:0]);
  assign dlow = blk.dst_addr[LG-1:0];

  // Packets of a block: ceil((dlow + size) / MAX_PAYLOAD).
  function automatic logic [SIZE_W:0] pkts_of(input logic [LG-1:0] dl,
                                              input logic [SIZE_W-1:0] size);
    return (((SIZE_W + 1)'(dl) + (SIZE_W + 1)'(size) - (SIZE_W + 1)'(1)) >> LG)
           + (SIZE_W + 1)'(1);
  endfunction

  logic               b_valid_q;
  logic [SW-1:0]      b_slot_q;
  logic [QW-1:0]      b_queue_q;
  logic [PIDX_W-1:0]  b_pidx_q;
  logic [OFF_W-1:0]   b_off_q;
  logic [LEN_W-1:0]   b_len_q;
  logic               b_more_q;
  logic [PIDX_W-1:0]  b_pkts_q;
  logic [15:0]        b_node_q;   // node_id, sampled in A

  always_ff @(posedge clk) begin
    if (rst) begin
      a_valid_q <= 1'b0;
      b_valid_q <= 1'b0;
    end else begin
      a_valid_q <= pick;
      b_valid_q <= a_valid_q;
    end
  end

  always_ff @(posedge clk) begin
    if (pick) begin
      a_slot_q  <= pick_slot;
      a_queue_q <= pick_queue;
    end
    // stage A (computed in this block: evaluated only with a packet in A)
    if (a_valid_q) begin
      logic [OFF_W-1:0] a_off;   // offset of this packet in the block
      logic [OFF_W:0]   a_rem;   // bytes of the block from this packet on
      logic [LG:0]      a_room;  // bytes to the next MAX_PAYLOAD boundary of the destination
      a_off  = (prog_rd == '0) ? '0 : {prog_rd, LG'(0)} - OFF_W'(dlow);
      a_rem  = (OFF_W + 1)'(blk.size) - (OFF_W + 1)'(a_off);
      a_room = (prog_rd == '0) ? (LG + 1)'(MAX_PAYLOAD) - (LG + 1)'(dlow)
                               : (LG + 1)'(MAX_PAYLOAD);
      b_slot_q  <= a_slot_q;
      b_queue_q <= a_queue_q;
      b_pidx_q  <= prog_rd;
      b_off_q   <= a_off;
      b_len_q   <= (a_rem < (OFF_W + 1)'(a_room)) ? LEN_W'(a_rem) : LEN_W'(a_room);
      b_more_q  <= (rec.kind == SLOT_BLK) && (a_rem > (OFF_W + 1)'(a_room));
      b_pkts_q  <= PIDX_W'(pkts_of(dlow, blk.size));
      b_node_q  <= node_id;
      rec_b_q   <= rec;
    end
  end

  // ------------------------------------------------------------------ stage B
  logic [63:0]        pkt_dst, pkt_src;
  /* verilator lint_off UNUSEDSIGNAL */  // cm, chained, has_next, block: not in the header
  block_desc_t        blk_b;
  /* verilator lint_on UNUSEDSIGNAL */

  assign blk_b   = block_desc_t'(rec_b_q.data[BLOCK_DESC_W-1:0]);
  assign pkt_dst = blk_b.dst_addr + 64'(b_off_q);
  assign pkt_src = blk_b.src_addr + 64'(b_off_q);

  // The header beat: fields by slot kind; the CONTROL fields that share bits with
  // inline_data are set last.
  function automatic logic [DATA_W-1:0] make_hdr(input slot_rec_t          r,
                                                 input logic [15:0]        src,
                                                 input logic [PIDX_W-1:0]  pidx,
                                                 input logic [PIDX_W-1:0]  pkts,
                                                 input logic [LEN_W-1:0]   len,
                                                 input logic [63:0]        dst);
    /* verilator lint_off UNUSEDSIGNAL */  // cm, chained, has_next, block; reserved bits
    block_desc_t b;
    pkt_desc_t   p;
    /* verilator lint_on UNUSEDSIGNAL */
    net_hdr_t          h;
    logic [DATA_W-1:0] x;
    b = block_desc_t'(r.data[BLOCK_DESC_W-1:0]);
    p = pkt_desc_t'(r.data);
    h          = '0;
    h.src_node = src;
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
      end
      default: begin  // SLOT_PKT
        h.ptype    = (p.kind == 1'(PKT_CONTROL)) ? 4'(NET_CONTROL) : 4'(NET_INLINE);
        h.dst_node = p.dst_node;
        h.tid      = p.tid;
        h.seq      = p.seq;
        h.dst_addr = p.dst_addr;
        h.pd       = p.pd;
        h.xfer     = p.xfer;
        if (p.kind != 1'(PKT_CONTROL)) begin
          h.len    = LEN_W'(p.len);
          h.notify = p.notify;
          // inline payload, bytes from len on cleared (len >= 32: all 32 bytes)
          h.inline_data = (p.len >= 6'd32) ? p.payload
                        : p.payload & ~({256{1'b1}} << {p.len[4:0], 3'b000});
        end
      end
    endcase
    x = DATA_W'(h);
    if (r.kind == SLOT_PKT && p.kind == 1'(PKT_CONTROL)) begin
      x[NET_HDR_SIZE_LSB +: NET_HDR_SIZE_W]     = p.size;
      x[NET_HDR_BLOCKS_LSB +: NET_HDR_BLOCKS_W] = p.blocks;
      x[NET_HDR_TAG_LSB +: NET_HDR_TAG_W]       = p.tag;
    end
    return x;
  endfunction

  // The job: its header is built only in the cycle it is valid (b_valid_q); in other
  // cycles the job is not pushed and its value does not matter.
  always_comb begin
    job_valid   = b_valid_q;
    if (b_valid_q) job.hdr = make_hdr(rec_b_q, b_node_q, b_pidx_q, b_pkts_q, b_len_q, pkt_dst);
    else           job.hdr = '0;
    job.is_data = (rec_b_q.kind == SLOT_BLK);
    job.dlane   = pkt_dst[LANE_W-1:0];
    job.len     = job.hdr[NET_HDR_LEN_LSB +: LEN_W];
    job.n_p     = beats_of('0, b_len_q);
    job.n_out   = beats_of(pkt_dst[LANE_W-1:0], b_len_q);
    rd_valid    = b_valid_q && (rec_b_q.kind == SLOT_BLK);
    rd.addr     = pkt_src;
    rd.len      = b_len_q;
  end

  // Re-queue a block with packets left, or free the slot.
  assign reenq      = b_valid_q && b_more_q;
  assign free_valid = b_valid_q && !b_more_q;
  assign free_id    = b_slot_q;
  assign enq_valid  = reenq || in_acc;
  assign enq_queue  = reenq ? b_queue_q : in_queue;
  assign enq_entry  = reenq ? b_slot_q : pool_id;
  assign prog_we    = reenq || in_acc;
  assign prog_waddr = reenq ? b_slot_q : pool_id;
  assign prog_wdata = reenq ? b_pidx_q + PIDX_W'(1) : '0;

`ifndef SYNTHESIS
  // Descriptors the send unit cannot packetize: a block of size 0, or one with more
  // packets than the 9-bit blk_pkts field holds (> 511: size > ~510 * MAX_PAYLOAD).
  always_ff @(posedge clk) begin
    if (a_valid_q)
      if (!rst && rec.kind == SLOT_BLK)
        assert (blk.size != '0 && pkts_of(dlow, blk.size) <= (SIZE_W + 1)'((1 << PIDX_W) - 1))
          else $error("qrdma_tx_sched: block of %0d bytes at 0x%0h: not packetizable",
                      blk.size, blk.dst_addr);
  end
`endif

endmodule

`default_nettype wire
