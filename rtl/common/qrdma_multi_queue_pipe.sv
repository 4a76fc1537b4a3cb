// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_multi_queue_pipe: NUM_QUEUES FIFO queues of entry numbers in one dynamic shared
// space of NUM_ENTRIES entries ([QoS-RDMA] §3.7, Algorithms 1 and 2), pipelined: the
// scheduling queues of the QoS engine (qrdma_qos_seg). Every queue is two linked lists
// used in turn, threaded through one next-pointer block RAM read through its output
// register, so that one queue can be dequeued every cycle although a next pointer takes
// two cycles to read. Inside: docs/modules.md#qrdma_multi_queue_pipe.
//
// Contract: one enqueue and one dequeue request every cycle, to any queues including the
// same one; no stall.
//   enqueue    presented in cycle t (enq_*), taken into a register: it takes effect at
//              the edge that ends t+1.
//   request    presented in cycle t (deq_valid, deq_sel one-hot: a register of the
//              user's), takes effect at the edge that ends t; deq_entry in t+2 is the
//              head the queue had (the entry dequeued), a multiplexer of registers.
//   empty, multi  registered (multi: two or more entries): in cycle t+1 they reflect the
//              requests of t and the enqueues that took effect in t. A user that picks
//              its next request in cycle t from them takes a queue requested in t only
//              when it is multi.
// The entry on deq_entry may be enqueued again (into any queue) in that cycle or later;
// an enqueue may take effect in the cycle its queue's only entry is requested.
// The user guarantees (assertions in simulation): a request only for a non-empty queue
// (counting the requests before it), deq_sel one-hot; an enqueued entry in no queue;
// queue and entry numbers in range.
`default_nettype none

module qrdma_multi_queue_pipe
  import qrdma_pkg::*;
#(
  parameter int unsigned NUM_QUEUES  = 66,   // queues (2 + 4 x 16 classes in the QoS engine)
  parameter int unsigned NUM_ENTRIES = 2048, // entries shared by all queues ([QoS-RDMA]: the transfers)
  localparam int unsigned QW         = idx_w(NUM_QUEUES),
  localparam int unsigned EW         = idx_w(NUM_ENTRIES)
) (
  input  logic                  clk,
  input  logic                  rst,
  // enqueue: always accepted, one per cycle, takes effect a cycle later
  input  logic                  enq_valid,
  input  logic [QW-1:0]         enq_queue,
  input  logic [EW-1:0]         enq_entry,
  // dequeue request: only for a non-empty queue, one per cycle
  input  logic                  deq_valid,
  input  logic [NUM_QUEUES-1:0] deq_sel,    // one-hot queue
  output logic [EW-1:0]         deq_entry,  // two cycles after the request
  // status: registered, exact every cycle
  output logic [NUM_QUEUES-1:0] empty,
  output logic [NUM_QUEUES-1:0] multi       // two or more entries
);

  localparam int unsigned CW = cnt_w(NUM_ENTRIES);

`ifndef SYNTHESIS
  initial begin
    if (NUM_QUEUES < 1)  $fatal(1, "qrdma_multi_queue_pipe: NUM_QUEUES must be >= 1");
    if (NUM_ENTRIES < 2) $fatal(1, "qrdma_multi_queue_pipe: NUM_ENTRIES must be >= 2");
  end
`endif

  // ---------------------------------------------------------------- per-queue state
  // The entries of a queue alternate between its lists 0 and 1: the dequeue list dp_q
  // (the head of the queue) holds ceil(c/2) of its c entries, the other floor(c/2); the
  // next enqueue goes to list ep_q. The entry count c and the thermometer flags ge1..ge4
  // (c >= 1..4) tell every list's size class without a compare on the lists. Heads and
  // tails of the lists are in LUT RAM, indexed {queue, list} and by queue.
  logic [CW-1:0]         cnt_q [NUM_QUEUES];
  logic [NUM_QUEUES-1:0] ge1_q, ge2_q, ge3_q, ge4_q;
  logic [NUM_QUEUES-1:0] dp_q, ep_q;
  logic [EW-1:0]         tail0_mem [NUM_QUEUES];
  logic [EW-1:0]         tail1_mem [NUM_QUEUES];

  // ---------------------------------------------------------------- enqueue registers
  // The enqueue presented in t is registered with its one-hot queue (e1) and takes effect
  // in t+1: the per-queue flags and list toggles take it at the end of t+1. Its list (ep
  // with the enqueue taking effect in t counted) and whether it makes the list's head
  // (the queue has at most one entry after t) are registered per queue in t, as one-hot
  // vectors, and reduced over the queues in t+1; they are registered again (e2) for the
  // head and tail writes of t+2. The append's tail read is in t+1.
  logic                  e1_v_q, e2_v_q, e2_l_q, e2_head_q;
  logic                  e1_l, e1_head;
  logic [QW-1:0]         e1_q_q, e2_q_q;
  logic [NUM_QUEUES-1:0] e1_oh_q, e1_lv_q, e1_hv_q;
  logic [EW-1:0]         e1_e_q, e2_e_q;
  logic [NUM_QUEUES-1:0] enq_oh;
  logic [NUM_QUEUES-1:0] ge2_next;      // ge2 after this cycle
  logic [NUM_QUEUES-1:0] deq_oh;

  always_comb begin
    enq_oh = '0;
    if (enq_valid) enq_oh[enq_queue] = 1'b1;
  end

  assign ge2_next = (e1_oh_q & ~deq_oh & ge1_q) | (deq_oh & ~e1_oh_q & ge3_q)
                  | (~(e1_oh_q ^ deq_oh) & ge2_q);
  assign e1_l     = |e1_lv_q;
  assign e1_head  = |e1_hv_q;

  always_ff @(posedge clk) begin
    if (rst) begin
      e1_v_q <= 1'b0;
      e2_v_q <= 1'b0;
    end else begin
      e1_v_q <= enq_valid;
      e2_v_q <= e1_v_q;
    end
    e1_q_q    <= enq_queue;
    e1_oh_q   <= enq_oh;
    e1_lv_q   <= enq_oh & (ep_q ^ e1_oh_q);
    e1_hv_q   <= enq_oh & ~ge2_next;
    e1_e_q    <= enq_entry;
    e2_q_q    <= e1_q_q;
    e2_e_q    <= e1_e_q;
    e2_l_q    <= e1_l;
    e2_head_q <= e1_head;
  end

  // ---------------------------------------------------------------- request pipeline
  // A request in t reads its list's head from the head RAM in t+1 (s2) and outputs it in
  // t+2, when it also reads the entry's next pointer: the list's new head, in the RAM's
  // output register in t+4. r1..r4: the requests of t-1..t-4 (one-hot queue, index, list,
  // whether its list kept entries so that the read is its new head, not consumed yet).
  // The list is requested again at the earliest in t+2; if its new head is not in the
  // head RAM by the read of s2, the output takes it from the next-pointer RAM's output
  // register (fwdc: it arrives in the output cycle; fwdb: a copy of a cycle before) and
  // the head RAM is not written with it ("consumed"). The index and list of a request and
  // its forward cases are reduced over the queues in its cycle (from registers: the
  // request and the per-queue cases); whether its read is a new head is kept per queue
  // (a one-hot vector) and reduced a cycle later.
  logic [NUM_QUEUES-1:0] r1_oh_q;
  logic [NUM_QUEUES-1:0] r1_rdv_q, r2_rdv_q; // requests of t-1, t-2 whose read is a new head
  logic                  r2_rd_q, r3_rd_q, r4_rd_q;
  logic                  r1_l_q, r2_l_q, r3_l_q, r4_l_q;
  logic [QW-1:0]         r1_i_q, r2_i_q, r3_i_q, r4_i_q;
  logic                  s1_v_q, s2_v_q;
  logic [NUM_QUEUES-1:0] casec_q, caseb_q;   // per queue: a request now is fwdc / fwdb
  logic                  fc1_q, fb1_q;       // the request of t-1 is fwdc / fwdb
  logic                  fc2_q, fb2_q;
  logic [EW-1:0]         head_rd, nxsel_q;
  logic [EW-1:0]         ram_q, ram_d1_q;    // next-pointer read data, and a cycle later

  logic [NUM_QUEUES-1:0] deq_rdv;
  logic [QW-1:0]         deq_i;
  logic                  deq_l;

  // the queues whose index has bit b set
  function automatic logic [NUM_QUEUES-1:0] index_bit(input int unsigned b);
    logic [NUM_QUEUES-1:0] r;
    for (int unsigned k = 0; k < NUM_QUEUES; k++) r[k] = ((k >> b) & 1) != 0;
    return r;
  endfunction

  // the reductions over the queues take deq_sel, and deq_valid after them (it gates one
  // gate at their end, not each of the 66 terms)
  assign deq_oh = deq_sel & {NUM_QUEUES{deq_valid}};
  for (genvar b = 0; b < QW; b++) begin : gen_deq_i
    assign deq_i[b] = deq_valid && |(deq_sel & index_bit(b));
  end
  assign deq_l = deq_valid && |(deq_sel & dp_q);
  // its list had two or more entries, or gets one appended as it loses its only one: the
  // read is its new head
  assign deq_rdv = deq_oh & (ge3_q | (e1_oh_q & ~(ep_q ^ dp_q)));

  // ---------------------------------------------------------------- heads
  // Two writers: the new head of a requested list (port A, from the next-pointer RAM's
  // output register, unless consumed), an enqueue into an empty list (port B, in e2: the
  // list is requested at the earliest in that cycle, and reads its head a cycle later).
  // They never write one list in one cycle: a head read not consumed belongs to a list
  // that has kept entries, up to the request that reads it. Address: queue * 2 + list.
  localparam int unsigned HW = idx_w(2 * NUM_QUEUES);
  logic            land_wr, e_head_wr;
  logic [HW-1:0]   head_rd_addr;
  qrdma_mem_2w #(.WIDTH(EW), .DEPTH(2 * NUM_QUEUES)) u_head (
    .clk,
    .a_en(land_wr), .a_addr(HW'({r4_i_q, r4_l_q})), .a_data(ram_q),
    .b_en(e_head_wr), .b_addr(HW'({e2_q_q, e2_l_q})), .b_data(e2_e_q),
    .rd_addr(head_rd_addr), .rd_data(head_rd)
  );

  // ---------------------------------------------------------------- enqueue
  // An enqueue makes its list's head when the list is empty (c <= 1: with c == 1 it is
  // the list other than the head's); otherwise it is appended to the list's tail (the
  // next-pointer write a cycle later), also when the request of the same cycle takes the
  // list's only entry (c == 2): the request's read of that entry's next pointer, in its
  // output cycle, then returns the appended entry as the list's head. The tail is read in
  // e1 and written in e2: the enqueues of one list are two or more cycles apart (a queue's
  // enqueues alternate between its lists), so the next one's read comes after the write.
  // Both lists' tails are read into registers and the list (e2_l_q) selects between them
  // at the write address: the list's reduction over the queues ends at a register.
  logic                  app_v_q;
  logic [EW-1:0]         app_t0_q, app_t1_q, app_addr, app_data_q;

  assign e_head_wr = e2_v_q && e2_head_q;

  always_ff @(posedge clk) begin
    if (e2_v_q) begin
      if (e2_l_q) tail1_mem[e2_q_q] <= e2_e_q;
      else        tail0_mem[e2_q_q] <= e2_e_q;
    end
    if (rst) app_v_q <= 1'b0;
    else     app_v_q <= e1_v_q && !e1_head;
    app_t0_q   <= tail0_mem[e1_q_q];
    app_t1_q   <= tail1_mem[e1_q_q];
    app_data_q <= e1_e_q;
  end

  assign app_addr = e2_l_q ? app_t1_q : app_t0_q;

  // ---------------------------------------------------------------- next pointers
  // Read: next[deq_entry] in the output cycle. Write: the append of the enqueue that took
  // effect in the cycle before. They meet only when the entry output is the tail its list
  // had at that enqueue, i.e. the list's only entry, and then the enqueue made the head
  // instead of appending: the data of a colliding read is never used.
  qrdma_sdp_ram #(
    .WIDTH   (EW),
    .DEPTH   (NUM_ENTRIES),
    .OUT_REG (1'b1),
    .RDW_ANY (1'b1)
  ) u_next (
    .clk     (clk),
    .wr_en   (app_v_q),
    .wr_be   (1'b1),
    .wr_addr (app_addr),
    .wr_data (app_data_q),
    .rd_en   (s2_v_q),
    .rd_addr (deq_entry),
    .rd_oe   (1'b1),
    .rd_data (ram_q)
  );

  assign deq_entry = fc2_q ? ram_q : (fb2_q ? ram_d1_q : nxsel_q);

  // ---------------------------------------------------------------- request registers
  logic [QW-1:0] s1_i_q;
  logic          s1_l_q;
  assign head_rd_addr = HW'({s1_i_q, s1_l_q});
  // the head read of the request four cycles ago, unless a request took it (fwdb: the
  // request of the cycle before)
  assign land_wr = r4_rd_q && !fb1_q;

  always_ff @(posedge clk) begin
    s1_i_q   <= deq_i;
    s1_l_q   <= deq_l;
    nxsel_q  <= head_rd;
    ram_d1_q <= ram_q;
    r1_oh_q  <= deq_oh;
    r1_i_q   <= deq_i;
    r1_l_q   <= deq_l;
    r2_i_q   <= r1_i_q;
    r2_l_q   <= r1_l_q;
    r3_i_q   <= r2_i_q;
    r3_l_q   <= r2_l_q;
    r4_i_q   <= r3_i_q;
    r4_l_q   <= r3_l_q;
    if (rst) begin
      s1_v_q   <= 1'b0;
      s2_v_q   <= 1'b0;
      r1_rdv_q <= '0;
      r2_rdv_q <= '0;
      r2_rd_q  <= 1'b0;
      r3_rd_q  <= 1'b0;
      r4_rd_q  <= 1'b0;
      fc1_q    <= 1'b0;
      fb1_q    <= 1'b0;
      fc2_q    <= 1'b0;
      fb2_q    <= 1'b0;
      casec_q  <= '0;
      caseb_q  <= '0;
    end else begin
      s1_v_q   <= deq_valid;
      s2_v_q   <= s1_v_q;
      r1_rdv_q <= deq_rdv;
      r2_rdv_q <= r1_rdv_q;
      r2_rd_q  <= |r1_rdv_q;
      r3_rd_q  <= r2_rd_q;
      // a head read taken by a request does not write the head RAM (fwdc takes the read
      // of the request two cycles before, fwdb three): r4_rd_q without the fwdc of the
      // cycle before, land_wr without the fwdb of this one
      r4_rd_q  <= r3_rd_q && !fc1_q;
      fc1_q    <= deq_valid && |(deq_sel & casec_q);
      fb1_q    <= deq_valid && |(deq_sel & caseb_q);
      fc2_q    <= fc1_q;
      fb2_q    <= fb1_q;
      // a request of k in the next cycle: the read of k's request of the cycle before
      // this one arrives in its output cycle if k is requested now (fwdc); the read of the
      // request two cycles back arrives a cycle before its output if k was requested in
      // exactly one of the cycles between (fwdb: a read fwdc takes now is of a queue
      // requested in both); an earlier read is in the head RAM by the request's read of it
      casec_q  <= r1_rdv_q & deq_oh;
      caseb_q  <= r2_rdv_q & (r1_oh_q ^ deq_oh);
    end
  end

  // ---------------------------------------------------------------- per-queue updates
  // Only the queues whose enqueue takes effect or that are requested change; every other
  // queue keeps its registers.
  always_ff @(posedge clk) begin
    if (e1_v_q || deq_valid) begin
      for (int unsigned k = 0; k < NUM_QUEUES; k++) begin
        if (e1_oh_q[k] != deq_oh[k]) begin
          if (e1_oh_q[k]) begin
            cnt_q[k] <= cnt_q[k] + CW'(1);
            ge1_q[k] <= 1'b1;
            ge2_q[k] <= ge1_q[k];
            ge3_q[k] <= ge2_q[k];
            ge4_q[k] <= ge3_q[k];
          end else begin
            cnt_q[k] <= cnt_q[k] - CW'(1);
            ge1_q[k] <= ge2_q[k];
            ge2_q[k] <= ge3_q[k];
            ge3_q[k] <= ge4_q[k];
            ge4_q[k] <= (cnt_q[k] >= CW'(5));
          end
        end
        if (deq_oh[k])  dp_q[k] <= !dp_q[k];
        if (e1_oh_q[k]) ep_q[k] <= !ep_q[k];
      end
    end
    if (rst) begin
      for (int unsigned k = 0; k < NUM_QUEUES; k++) cnt_q[k] <= '0;
      ge1_q <= '0;
      ge2_q <= '0;
      ge3_q <= '0;
      ge4_q <= '0;
      dp_q  <= '0;
      ep_q  <= '0;
    end
  end

  assign empty = ~ge1_q;
  assign multi = ge2_q;

`ifndef SYNTHESIS
  // Checker: an in-queue bitmap of the entries, its own state. An enqueue is checked when
  // it takes effect, a request when it is made.
  logic [NUM_ENTRIES-1:0] sim_inq_q;

  always_ff @(posedge clk) begin
    if (deq_valid || e1_v_q || s2_v_q || enq_valid) begin
      if (deq_valid) begin
        if (!rst) assert ($onehot(deq_sel))
          else $error("qrdma_multi_queue_pipe: dequeue request not one-hot (%b)", deq_sel);
        if (!rst) assert (|(deq_sel & ge1_q))
          else $error("qrdma_multi_queue_pipe: dequeue from empty queue (%b)", deq_sel);
      end
      if (enq_valid) begin
        if (!rst) assert (32'(enq_queue) < NUM_QUEUES)
          else $error("qrdma_multi_queue_pipe: enqueue into queue %0d: out of range", enq_queue);
        if (!rst) assert (32'(enq_entry) < NUM_ENTRIES)
          else $error("qrdma_multi_queue_pipe: enqueue of entry %0d: out of range", enq_entry);
      end
      if (s2_v_q) begin
        if (!rst) assert (32'(deq_entry) < NUM_ENTRIES && sim_inq_q[deq_entry])
          else $error("qrdma_multi_queue_pipe: returned entry %0d that is in no queue",
                      deq_entry);
      end
      if (e1_v_q) begin
        // the entry output in the cycle before may have been enqueued again
        if (!rst) assert (!sim_inq_q[e1_e_q])
          else $error("qrdma_multi_queue_pipe: enqueue of entry %0d (queue %0d): already in a queue",
                      e1_e_q, e1_q_q);
      end
      if (s2_v_q && 32'(deq_entry) < NUM_ENTRIES) sim_inq_q[deq_entry] <= 1'b0;
      if (e1_v_q && 32'(e1_e_q) < NUM_ENTRIES)    sim_inq_q[e1_e_q] <= 1'b1;
    end
    if (rst) sim_inq_q <= '0;
  end
`endif

endmodule

`default_nettype wire
