// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_sync_fifo: synchronous FIFO with a show-ahead (first-word-fall-through) output,
// valid/ready on both sides, an occupancy count and an almost-full flag. The common FIFO
// of qrdma (STYLE.md): every FIFO in the NIC is one of these.
//
// Two implementations, chosen by depth:
//   DEPTH <  RAM_MIN_DEPTH  registers (or LUT RAM); m_data is read combinationally from the
//                           array, a write is visible at the output the next cycle.
//   DEPTH >= RAM_MIN_DEPTH  qrdma_sdp_ram (block RAM, synchronous read) with its output
//                           register (OUT_REG) as the show-ahead stage: m_data comes from
//                           a register, never through logic after the RAM; a write is
//                           visible at the output three cycles later, throughput stays
//                           one word per cycle.
//   FREE_READ = 1 (block-RAM form)  the RAM reads in every cycle with its read and
//                           output-register enables tied high, and a FIFO of FREE_SKID
//                           words after its output register takes m_ready; a word is
//                           read from the RAM only while that FIFO has room for it
//                           (counted from registers), so no enable fans out from
//                           m_ready to the block RAMs. m_data is read from that FIFO (a
//                           small multiplexer or LUT-RAM read after its registered read
//                           pointer); a write is visible at the output four cycles later,
//                           throughput stays one word per cycle.
//   HEAD_REG = 1 (register form)  the head in a register of its own, the words behind it
//                           in registers or LUT RAM: m_data is a register (no read
//                           multiplexer or LUT-RAM read after it), a write is visible at
//                           the output the next cycle (as in the register form).
//   WE_COPY = 1 (register forms)  the memory's write side (write enable, write pointer)
//                           takes the push from a copy of the s_ready register of its
//                           own: for a wide LUT-RAM FIFO, whose write enable fans out
//                           over every column, that fan-out stays off the count's and the
//                           flags' path.
// Contract, both: s_ready = (count < DEPTH) is a register of its own, as are m_valid
// and almost_full (no combinational path from m_ready to s_ready, none from the count
// to the flags), the FIFO holds exactly DEPTH words, m_data is undefined while m_valid
// is low.
`default_nettype none

module qrdma_sync_fifo
  import qrdma_pkg::*;
#(
  parameter int unsigned WIDTH         = 32,  // bits per word
  parameter int unsigned DEPTH         = 16,  // words held
  parameter int unsigned RAM_MIN_DEPTH = 64,  // at or above this depth use block RAM
  parameter int unsigned ALMOST_FULL   = DEPTH, // almost_full = (count >= ALMOST_FULL)
  parameter bit          HEAD_REG      = 1'b0,  // m_data from a register (register form; header)
  parameter bit          FREE_READ     = 1'b0,  // block RAM read without enables (block-RAM form; header)
  parameter bit          WE_COPY       = 1'b0,  // write side from an s_ready copy (register forms; header)
  localparam int unsigned CW           = cnt_w(DEPTH)
) (
  input  logic             clk,
  input  logic             rst,
  // write side
  input  logic             s_valid,
  output logic             s_ready,
  input  logic [WIDTH-1:0] s_data,
  // read side (show-ahead)
  output logic             m_valid,
  input  logic             m_ready,
  output logic [WIDTH-1:0] m_data,
  // status
  output logic [CW-1:0]    count,
  output logic             almost_full
);

`ifndef SYNTHESIS
  initial begin
    if (WIDTH < 1) $fatal(1, "qrdma_sync_fifo: WIDTH must be >= 1");
    if (DEPTH < 1) $fatal(1, "qrdma_sync_fifo: DEPTH must be >= 1");
    if (ALMOST_FULL < 1 || ALMOST_FULL > DEPTH)
      $fatal(1, "qrdma_sync_fifo: ALMOST_FULL must be in 1..DEPTH");
    if (DEPTH >= RAM_MIN_DEPTH && DEPTH < 2)
      $fatal(1, "qrdma_sync_fifo: block-RAM implementation needs DEPTH >= 2");
    if (HEAD_REG && (DEPTH < 2 || DEPTH >= RAM_MIN_DEPTH))
      $fatal(1, "qrdma_sync_fifo: HEAD_REG needs 2 <= DEPTH < RAM_MIN_DEPTH");
    if (FREE_READ && DEPTH < RAM_MIN_DEPTH)
      $fatal(1, "qrdma_sync_fifo: FREE_READ needs the block-RAM form (DEPTH >= RAM_MIN_DEPTH)");
    if (WE_COPY && DEPTH >= RAM_MIN_DEPTH)
      $fatal(1, "qrdma_sync_fifo: WE_COPY needs DEPTH < RAM_MIN_DEPTH");
  end
`endif

  localparam int unsigned AW = idx_w(DEPTH);

  function automatic logic [AW-1:0] ptr_inc(input logic [AW-1:0] p);
    return (p == AW'(DEPTH - 1)) ? '0 : p + AW'(1);
  endfunction

  logic [CW-1:0] count_q;
  logic          s_ready_q;   // count_q < DEPTH
  logic          ne_q;        // count_q != 0 (the register forms' m_valid)
  logic          af_q;        // count_q >= ALMOST_FULL
  logic          push;
  logic          push_w;      // push of the write side (memory, write pointer)
  logic          pop;

  assign s_ready     = s_ready_q;
  assign push        = s_valid && s_ready;
  assign pop         = m_valid && m_ready;
  assign count       = count_q;
  assign almost_full = af_q;

  // the flags are registers of their own, updated from the handshakes and a compare of
  // the count, so that the count's update does not run through them and their fan-out
  always_ff @(posedge clk) begin
    count_q <= count_q + CW'(push) - CW'(pop);
    if (push && !pop) begin
      ne_q      <= 1'b1;
      af_q      <= ({1'b0, count_q} + (CW+1)'(1) >= (CW+1)'(ALMOST_FULL));  // count + 1
    end else if (pop && !push) begin
      ne_q      <= (count_q != CW'(1));
      af_q      <= ({1'b0, count_q} >= (CW+1)'(ALMOST_FULL + 1));           // count - 1
    end
    if (rst) begin
      count_q   <= '0;
      ne_q      <= 1'b0;
      af_q      <= 1'b0;
    end
  end

  // s_ready_q; with WE_COPY twice, the second for the write side, both kept as flops of
  // their own (synthesis merges equal flops unless each is kept, and equal bits of one
  // vector even then)
  if (WE_COPY) begin : gen_we_copy
    logic s_ready_a_q, s_ready_w_q;
    (* keep *) always_ff @(posedge clk) begin
      if (push && !pop) begin
        s_ready_a_q <= (count_q != CW'(DEPTH - 1));
        s_ready_w_q <= (count_q != CW'(DEPTH - 1));
      end else if (pop && !push) begin
        s_ready_a_q <= 1'b1;
        s_ready_w_q <= 1'b1;
      end
      if (rst) begin
        s_ready_a_q <= 1'b1;
        s_ready_w_q <= 1'b1;
      end
    end
    assign s_ready_q = s_ready_a_q;
    assign push_w    = s_valid && s_ready_w_q;
`ifndef SYNTHESIS
    always_ff @(posedge clk) begin
      if (!rst) assert (s_ready_w_q == s_ready_a_q)
        else $error("qrdma_sync_fifo: s_ready copy %0b, s_ready %0b", s_ready_w_q,
                    s_ready_a_q);
    end
`endif
  end else begin : gen_we_one
    always_ff @(posedge clk) begin
      if (push && !pop)      s_ready_q <= (count_q != CW'(DEPTH - 1));
      else if (pop && !push) s_ready_q <= 1'b1;
      if (rst)               s_ready_q <= 1'b1;
    end
    assign push_w = push;
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) begin
      assert (s_ready_q == (count_q < CW'(DEPTH)))
        else $error("qrdma_sync_fifo: s_ready %0b, count %0d", s_ready_q, count_q);
      assert (ne_q == (count_q != '0))
        else $error("qrdma_sync_fifo: not-empty flag %0b, count %0d", ne_q, count_q);
      assert (af_q == (count_q >= CW'(ALMOST_FULL)))
        else $error("qrdma_sync_fifo: almost-full flag %0b, count %0d", af_q, count_q);
    end
  end
`endif

  if (HEAD_REG) begin : gen_head
    // the head (m_data) and the DEPTH - 1 words behind it in a ring: a push goes into the
    // head when it is empty or being emptied with nothing behind it, else behind it; a pop
    // moves the oldest word behind into the head
    localparam int unsigned BN = DEPTH - 1;   // words behind the head
    localparam int unsigned BA = idx_w(BN);
    logic [WIDTH-1:0] head_q;
    logic [WIDTH-1:0] mem [BN];
    logic [BA-1:0]    wr_ptr_q, rd_ptr_q;
    logic             behind, to_head;

    function automatic logic [BA-1:0] bptr_inc(input logic [BA-1:0] p);
      return (p == BA'(BN - 1)) ? '0 : p + BA'(1);
    endfunction

    assign behind  = (count_q > CW'(1));                      // words behind the head
    assign to_head = (count_q == '0) || (pop && !behind);     // a push goes into the head

    always_ff @(posedge clk) begin
      if (push_w && !to_head) mem[wr_ptr_q] <= s_data;
      if (push_w && !to_head) wr_ptr_q <= bptr_inc(wr_ptr_q);
      if (pop && behind)    rd_ptr_q <= bptr_inc(rd_ptr_q);
      if (rst) begin
        wr_ptr_q <= '0;
        rd_ptr_q <= '0;
      end
    end
    always_ff @(posedge clk) begin
      if (pop && behind)       head_q <= mem[rd_ptr_q];
      else if (push && to_head) head_q <= s_data;
    end
    assign m_valid = ne_q;
    assign m_data  = head_q;

  end else if (DEPTH < RAM_MIN_DEPTH) begin : gen_reg
    logic [WIDTH-1:0] mem [DEPTH];
    logic [AW-1:0]    wr_ptr_q, rd_ptr_q;

    // The write and the pointer updates share one process, the write first: every read of
    // a pointer comes before its update, so Verilator updates the pointers in place
    // (docs/development.md, "Writing RTL that Verilator evaluates cheaply"). The array is
    // written with `<=`, the form synthesis infers LUT RAM from.
    always_ff @(posedge clk) begin
      if (push_w) mem[wr_ptr_q] <= s_data;
      if (push_w) wr_ptr_q <= ptr_inc(wr_ptr_q);
      if (pop)  rd_ptr_q <= ptr_inc(rd_ptr_q);
      if (rst) begin
        wr_ptr_q <= '0;
        rd_ptr_q <= '0;
      end
    end

    assign m_valid = ne_q;
    assign m_data  = mem[rd_ptr_q];

  end else if (!FREE_READ) begin : gen_ram
    // Words in the RAM that have not yet been read into its read register.
    logic [CW-1:0] ram_cnt_q;
    logic [AW-1:0] wr_ptr_q, rd_ptr_q;
    logic          r_valid_q;   // the RAM's read register holds a word
    logic          o_valid_q;   // the output register (m_data) holds a word
    logic          o_load, ram_rd;

    // The output register takes the read register's word when it is empty or being
    // emptied; the read register takes the next word when it is empty or moving on. Only
    // words written in earlier cycles are read, so a read never meets a write to the
    // same address (the RAM's read-during-write behaviour does not matter here: RDW_ANY).
    assign o_load = !o_valid_q || m_ready;
    assign ram_rd = (ram_cnt_q != '0) && (!r_valid_q || o_load);

    qrdma_sdp_ram #(
      .WIDTH   (WIDTH),
      .DEPTH   (DEPTH),
      .OUT_REG (1'b1),
      .RDW_ANY (1'b1)
    ) u_ram (
      .clk     (clk),
      .wr_en   (push_w),
      .wr_be   (1'b1),
      .wr_addr (wr_ptr_q),
      .wr_data (s_data),
      .rd_en   (ram_rd),
      .rd_addr (rd_ptr_q),
      .rd_oe   (o_load),
      .rd_data (m_data)
    );

    always_ff @(posedge clk) begin
      if (push_w) wr_ptr_q <= ptr_inc(wr_ptr_q);
      if (ram_rd) rd_ptr_q <= ptr_inc(rd_ptr_q);
      ram_cnt_q <= ram_cnt_q + CW'(push) - CW'(ram_rd);
      if (ram_rd)      r_valid_q <= 1'b1;
      else if (o_load) r_valid_q <= 1'b0;
      if (o_load)      o_valid_q <= r_valid_q;
      if (rst) begin
        wr_ptr_q  <= '0;
        rd_ptr_q  <= '0;
        ram_cnt_q <= '0;
        r_valid_q <= 1'b0;
        o_valid_q <= 1'b0;
      end
    end

    assign m_valid = o_valid_q;

  end else begin : gen_ram_free
    // The RAM reads rd_ptr_q in every cycle; a word issued in cycle t (rd_ptr_q moves on)
    // is in the read register at t+1, in the output register at t+2 and written into the
    // skid FIFO at the end of t+2 (m_valid at t+3). A word is issued while the RAM holds
    // one not yet issued and the words issued and not popped (cred_q: on their way or in
    // the skid FIFO) leave the skid FIFO room: FREE_SKID = 4 words keep one word per cycle
    // (three on their way while the fourth is popped). Only words written in earlier
    // cycles are read, so a read whose data is used never meets a write (RDW_ANY).
    localparam int unsigned FREE_SKID = 4;
    localparam int unsigned SW        = idx_w(FREE_SKID);
    logic [CW-1:0]    ram_cnt_q;       // words in the RAM not yet issued
    logic [AW-1:0]    wr_ptr_q, rd_ptr_q;
    logic [SW:0]      cred_q;          // words issued and not popped, 0..FREE_SKID
    logic [1:0]       iv_q;            // issued words in the read / output register
    logic             issue, sk_ne_q;
    logic [WIDTH-1:0] o_data;
    logic [WIDTH-1:0] sk_mem [FREE_SKID];
    logic [SW-1:0]    sk_wr_q, sk_rd_q;
    logic [SW:0]      sk_n_q;          // words in the skid FIFO

    assign issue = (ram_cnt_q != '0) && (cred_q != (SW+1)'(FREE_SKID));

    qrdma_sdp_ram #(
      .WIDTH   (WIDTH),
      .DEPTH   (DEPTH),
      .OUT_REG (1'b1),
      .RDW_ANY (1'b1)
    ) u_ram (
      .clk     (clk),
      .wr_en   (push_w),
      .wr_be   (1'b1),
      .wr_addr (wr_ptr_q),
      .wr_data (s_data),
      .rd_en   (1'b1),
      .rd_addr (rd_ptr_q),
      .rd_oe   (1'b1),
      .rd_data (o_data)
    );

    // the skid FIFO's array: written from the RAM's output register, read at sk_rd_q
    always_ff @(posedge clk) begin
      if (iv_q[1]) sk_mem[sk_wr_q] <= o_data;
    end

    always_ff @(posedge clk) begin
      if (push_w) wr_ptr_q <= ptr_inc(wr_ptr_q);
      if (issue)  rd_ptr_q <= ptr_inc(rd_ptr_q);
      ram_cnt_q <= ram_cnt_q + CW'(push) - CW'(issue);
      cred_q    <= cred_q + (SW+1)'(issue) - (SW+1)'(pop);
      iv_q      <= {iv_q[0], issue};
      if (iv_q[1]) sk_wr_q <= sk_wr_q + SW'(1);
      if (pop)     sk_rd_q <= sk_rd_q + SW'(1);
      sk_n_q    <= sk_n_q + (SW+1)'(iv_q[1]) - (SW+1)'(pop);
      if (iv_q[1])  sk_ne_q <= 1'b1;
      else if (pop) sk_ne_q <= (sk_n_q != (SW+1)'(1));
      if (rst) begin
        wr_ptr_q  <= '0;
        rd_ptr_q  <= '0;
        ram_cnt_q <= '0;
        cred_q    <= '0;
        iv_q      <= '0;
        sk_wr_q   <= '0;
        sk_rd_q   <= '0;
        sk_n_q    <= '0;
        sk_ne_q   <= 1'b0;
      end
    end

    assign m_valid = sk_ne_q;
    assign m_data  = sk_mem[sk_rd_q];

`ifndef SYNTHESIS
    always_ff @(posedge clk) begin
      if (!rst) assert (sk_ne_q == (sk_n_q != '0) && sk_n_q <= cred_q
                        && cred_q <= (SW+1)'(FREE_SKID))
        else $error("qrdma_sync_fifo: skid FIFO %0d words, flag %0b, credits %0d",
                    sk_n_q, sk_ne_q, cred_q);
    end
`endif
  end

endmodule

`default_nettype wire
