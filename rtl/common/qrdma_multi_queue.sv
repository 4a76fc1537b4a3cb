// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_multi_queue: NUM_QUEUES FIFO queues of entry numbers in one dynamic shared space
// of NUM_ENTRIES entries ([QoS-RDMA] §3.7, Algorithms 1 and 2, Figures 3.7/3.8): the
// scheduling queues of the QoS engine and the VOQs of the send unit. Every entry is in at
// most one queue at a time; the queues are linked lists threaded through one next-pointer
// block RAM. Inside (pending queue, one-cycle special cases, evaluation cost, longest
// paths): docs/modules.md#qrdma_multi_queue.
//
// Contract: one enqueue and one dequeue every cycle, to any queues including the same
// one; no stall. Cycle t = the cycle a request is presented; it takes effect at the edge
// that ends cycle t:
//   deq_entry  combinational in cycle t: the head of deq_queue (the entry dequeued).
//   empty      registered: in cycle t+1 it reflects every enqueue and dequeue of cycle t,
//              so a queue enqueued in cycle t can be dequeued in cycle t+1.
// An enqueue into a queue whose only entry is being dequeued is allowed, and the entry
// being dequeued may be enqueued again (into any queue) in the same cycle.
// The user guarantees (assertions in simulation): deq_valid only for a non-empty queue;
// enq_entry in no queue (except the entry being dequeued in the same cycle); queue and
// entry numbers in range.
`default_nettype none

module qrdma_multi_queue
  import qrdma_pkg::*;
#(
  parameter int unsigned NUM_QUEUES  = 66,   // queues (2 + 4 x 16 classes, ARCHITECTURE.md)
  parameter int unsigned NUM_ENTRIES = 2048, // entries shared by all queues ([QoS-RDMA]: the transfers)
  localparam int unsigned QW         = idx_w(NUM_QUEUES),
  localparam int unsigned EW         = idx_w(NUM_ENTRIES)
) (
  input  logic                  clk,
  input  logic                  rst,
  // enqueue: always accepted, one per cycle
  input  logic                  enq_valid,
  input  logic [QW-1:0]         enq_queue,
  input  logic [EW-1:0]         enq_entry,
  // dequeue: only for a non-empty queue, one per cycle
  input  logic                  deq_valid,
  input  logic [QW-1:0]         deq_queue,
  output logic [EW-1:0]         deq_entry,  // head of deq_queue, combinational, same cycle
  // status: registered, exact every cycle
  output logic [NUM_QUEUES-1:0] empty
);

`ifndef SYNTHESIS
  initial begin
    if (NUM_QUEUES < 1)  $fatal(1, "qrdma_multi_queue: NUM_QUEUES must be >= 1");
    if (NUM_ENTRIES < 2) $fatal(1, "qrdma_multi_queue: NUM_ENTRIES must be >= 2");
  end
`endif

  // Per-queue state. No reset on the pointers: they are read only while the queue is not
  // empty. A queue is "pending" in the cycle after a dequeue that left it non-empty: its
  // head register and one-entry flag are stale then (the head is the RAM read data, the
  // flag is pend_one_q) and are rewritten at the end of that cycle unless it is dequeued
  // again. Only the (at most three) queues named by enq_queue, deq_queue and the pending
  // queue change in a cycle: the registers are written through those indices (one
  // register write each, no per-queue next-state logic for the others -- the same
  // flops and enables as a per-queue loop, and cheap in a cycle-based simulator).
  logic [EW-1:0]         head_q [NUM_QUEUES];
  logic [EW-1:0]         tail_q [NUM_QUEUES];
  logic [EW-1:0]         pt_q   [NUM_QUEUES];  // predecessor of the tail (>= 2 entries)
  logic [NUM_QUEUES-1:0] empty_q;
  logic [NUM_QUEUES-1:0] one_q;                // exactly one entry (head == tail)

  // The pending queue (see above) of this cycle.
  logic                  pend_q, pend_d;
  logic [QW-1:0]         pend_queue_q;
  logic                  pend_one;               // it has exactly one entry, made of:
  logic                  pend_by_rd_q;           //   it was forwarded: one iff pend_rd_pt_q
  logic                  pend_rd_pt_q;           //   rd_is_pt of the previous cycle
  logic                  pend_by_head_q;         //   not forwarded and head was pt
  logic [EW-1:0]         pend_pt_q, pend_pt_d;   // its pt (a copy: rd_data is late)

  logic [EW-1:0]         rd_data;    // next[entry dequeued in the previous cycle]
  // Head == tail's predecessor (the queue has exactly two entries if it has more than
  // one) of the pending queue (head in rd_data: the only compare after the RAM output)
  // and of the dequeued queue otherwise (registers through deq_queue muxes). Nets and
  // flops of their own so that synthesis, which does not know that rd_data arrives late,
  // does not fold the first into the deeper second and put the RAM data at the start of
  // a chain.
  (* keep *) logic       rd_is_pt;
  (* keep *) logic       head_is_pt;
  logic                  fwd;        // deq_queue is the pending queue: its head is rd_data
  logic                  same;       // enqueue and dequeue of one queue
  logic                  deq_last;   // the dequeue takes the queue's only entry
  logic                  enq_link;   // the enqueue appends to a non-empty queue
  logic                  enq_head;   // the enqueued entry becomes the head (see below)
  logic                  wb;         // the pending queue settles (not dequeued again)
  logic [EW-1:0]         enq_tail;   // tail of enq_queue (the next-pointer write address)

  assign rd_is_pt   = (rd_data == pend_pt_q);
  assign head_is_pt = (head_q[deq_queue] == pt_q[deq_queue]);
  assign fwd        = pend_q && (pend_queue_q == deq_queue);
  assign deq_entry  = fwd ? rd_data : head_q[deq_queue];
  assign same       = enq_valid && deq_valid && (enq_queue == deq_queue);
  // registered flags only: the RAM read data does not reach the empty flags
  assign deq_last   = fwd ? pend_one : one_q[deq_queue];
  assign enq_link   = enq_valid && !empty_q[enq_queue];
  assign enq_tail   = tail_q[enq_queue];
  // Into an empty queue the entry becomes head (one entry). Into the queue being
  // dequeued: if its only entry leaves, likewise; otherwise the queue is pending in the
  // next cycle, where head and one flag are taken from elsewhere, so writing them here
  // does no harm -- and keeps deq_last out of these muxes.
  assign enq_head   = empty_q[enq_queue] || same;
  assign wb         = pend_q && !(deq_valid && fwd);
  assign empty      = empty_q;

  // Next pointers. Write port: next[tail of enq_queue] = enq_entry (Algorithm 1 line 6).
  // Read port: next[head of deq_queue] (Algorithm 2 line 6), arriving in the next cycle.
  // The two addresses are equal only when the dequeued entry is the tail of the enqueued
  // queue and it is that queue's only entry; the queue then takes the enqueued entry as
  // its head and the read data is not used: RDW_NEW is not needed (RDW_ANY).
  qrdma_sdp_ram #(
    .WIDTH   (EW),
    .DEPTH   (NUM_ENTRIES),
    .RDW_NEW (1'b0),
    .RDW_ANY (1'b1)
  ) u_next (
    .clk     (clk),
    .wr_en   (enq_link),
    .wr_be   (1'b1),
    .wr_addr (enq_tail),
    .wr_data (enq_entry),
    .rd_en   (deq_valid),
    .rd_addr (deq_entry),
    .rd_data (rd_data)
  );

  // A dequeue that leaves the queue non-empty makes it pending in the next cycle. It then
  // has exactly one entry iff it had exactly two and nothing was enqueued into it, i.e.
  // iff the head being dequeued is the tail's predecessor (pt). With a forwarded head
  // that compare is the only logic after the RAM output: it has a flop of its own, and
  // the flag is put together after the flops (one level, in parallel with fwd).
  always_comb begin
    pend_d     = deq_valid && !deq_last;
    pend_pt_d  = same ? enq_tail : pt_q[deq_queue];
  end
  assign pend_one = (pend_by_rd_q && pend_rd_pt_q) || pend_by_head_q;

  // Per-queue registers, written only at the indices that change. The enqueue comes last:
  // it wins over the settling of the pending queue (one flag) and over the dequeue (empty
  // flag) of the same queue. The pending queue settling never meets an enqueue that
  // writes the head (the pending queue is neither empty nor dequeued then).
  always_ff @(posedge clk) begin
    if (wb) begin
      head_q[pend_queue_q] <= rd_data;
      one_q[pend_queue_q]  <= pend_one;
    end
    if (enq_valid) begin
      tail_q[enq_queue] <= enq_entry;
      pt_q[enq_queue]   <= enq_tail;  // stale (unused) when the queue was empty
      one_q[enq_queue]  <= enq_head;  // appended to a queue that keeps an entry: >= 2
      if (enq_head) head_q[enq_queue] <= enq_entry;
    end
    pend_by_rd_q   <= !same && fwd;
    pend_rd_pt_q   <= rd_is_pt;
    pend_by_head_q <= !same && !fwd && head_is_pt;
    pend_pt_q      <= pend_pt_d;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      empty_q      <= '1;
      pend_q       <= 1'b0;
      pend_queue_q <= '0;
    end else begin
      if (deq_valid && deq_last) empty_q[deq_queue] <= 1'b1;
      if (enq_valid)             empty_q[enq_queue] <= 1'b0;
      pend_q       <= pend_d;
      pend_queue_q <= deq_queue;
    end
  end

`ifndef SYNTHESIS
  // Checker: an in-queue bitmap of the entries and a copy of the next pointers, its own
  // state. Checked in the cycle of the request, so a violation is reported at the edge
  // that would execute it.
  logic [NUM_ENTRIES-1:0] sim_inq_q;       // entry is in some queue
  logic [EW-1:0]          sim_next [NUM_ENTRIES];  // a copy of the next-pointer RAM
  logic                   sim_enq_v_q, sim_wb_v_q;
  logic [QW-1:0]          sim_enq_q_q, sim_wb_q_q;

  // the queues written at the last edge by an enqueue and by the pending queue settling
  always_ff @(posedge clk) begin
    sim_enq_v_q <= enq_valid;
    sim_enq_q_q <= enq_queue;
    sim_wb_v_q  <= wb;
    sim_wb_q_q  <= pend_queue_q;
  end

  // The checks are computed only in a cycle with a request or a queue to check, inside
  // the clocked process: Verilator then spends nothing on them in other cycles. The
  // bitmap is written after its reads, and the reset last, so that Verilator updates it in
  // place (docs/development.md).
  always_ff @(posedge clk) begin
    if (deq_valid || enq_valid) begin
      logic deq_range, deq_empty, deq_ok, enq_erange;
      deq_range  = 32'(deq_queue) >= NUM_QUEUES;
      deq_empty  = !deq_range && empty_q[deq_queue];
      deq_ok     = deq_valid && !deq_range && !deq_empty;
      enq_erange = 32'(enq_entry) >= NUM_ENTRIES;
      if (deq_valid) begin
        if (!rst) assert (!deq_range)
          else $error("qrdma_multi_queue: dequeue from queue %0d: out of range", deq_queue);
        if (!rst) assert (deq_range || !empty_q[deq_queue])
          else $error("qrdma_multi_queue: dequeue from empty queue %0d", deq_queue);
        if (!rst) assert (!deq_ok || (32'(deq_entry) < NUM_ENTRIES && sim_inq_q[deq_entry]))
          else $error("qrdma_multi_queue: queue %0d returned entry %0d that is in no queue",
                      deq_queue, deq_entry);
      end
      if (enq_valid) begin
        if (!rst) assert (32'(enq_queue) < NUM_QUEUES)
          else $error("qrdma_multi_queue: enqueue into queue %0d: out of range", enq_queue);
        if (!rst) assert (!enq_erange)
          else $error("qrdma_multi_queue: enqueue of entry %0d: out of range", enq_entry);
        // the entry being dequeued in this cycle may be enqueued again
        if (!rst) assert (enq_erange || !sim_inq_q[enq_entry]
                          || (deq_ok && deq_entry == enq_entry))
          else $error("qrdma_multi_queue: enqueue of entry %0d (queue %0d): already in a queue",
                      enq_entry, enq_queue);
      end
      if (deq_ok && 32'(deq_entry) < NUM_ENTRIES) sim_inq_q[deq_entry] <= 1'b0;
      if (enq_valid && !enq_erange)               sim_inq_q[enq_entry] <= 1'b1;
    end
    if (rst) sim_inq_q <= '0;
  end

  // Invariants: a settled (not pending) non-empty queue has one_q == (head == tail), and
  // with two or more entries next[pt] == tail; the pending queue likewise with its head in
  // rd_data and its flag in pend_one. Checked for the queues whose state changed at the
  // last edge (enqueued, settled; a dequeued queue is pending or empty now) and the
  // pending queue (new read data): the others are as already checked.
  always_ff @(posedge clk) begin
    if (pend_q || sim_enq_v_q || sim_wb_v_q) begin
      for (int unsigned i = 0; i < 3; i++) begin
        logic          chk_k, pend_k, one_k;
        logic [QW-1:0] k;
        logic [EW-1:0] head_k;
        unique case (i)
          0:       begin chk_k = pend_q;      k = pend_queue_q; end
          1:       begin chk_k = sim_enq_v_q; k = sim_enq_q_q;  end
          default: begin chk_k = sim_wb_v_q;  k = sim_wb_q_q;   end
        endcase
        if (chk_k && 32'(k) < NUM_QUEUES && !empty_q[k]) begin
          pend_k = pend_q && pend_queue_q == k;
          head_k = pend_k ? rd_data : head_q[k];
          one_k  = pend_k ? pend_one : one_q[k];
          if (!rst) assert (one_k == (head_k == tail_q[k])
                            && (one_k || sim_next[pt_q[k]] == tail_q[k])
                            && !(pend_k && !one_k && pend_pt_q != pt_q[k]))
            else $error("qrdma_multi_queue: queue %0d: inconsistent state (tail %0d, pt %0d)",
                        k, tail_q[k], pt_q[k]);
        end
      end
    end
    if (enq_link) sim_next[enq_tail] <= enq_entry;
  end
`endif

endmodule

`default_nettype wire
