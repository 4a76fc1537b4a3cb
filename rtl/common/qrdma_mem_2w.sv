// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_mem_2w: a small memory with two write ports and one read port, built from two
// single-write LUT-RAM banks the XOR way (docs/modules.md#qrdma_mem_2w). Used for the
// pending table's valid bits ([QoS-RDMA] §3.5: set at issue by the segmenter, cleared on
// ACK by the message handler) and the host port's error reasons.
//
// Contract: a write is visible to the read port the next cycle. Both ports writing the
// same address in one cycle is not allowed (an assertion in simulation). No reset: the
// contents start unknown; a user that needs a known start clears every address after
// reset.
//   A_LEAD / B_LEAD  that port's address comes two cycles ahead of its enable and data
//                    (x_addr in cycle t, x_en / x_data in t+2: the write at the end of
//                    t+2 goes to the address of t), so that the read of the other bank a
//                    write needs is pipelined over two cycles from registers; the other
//                    port's writes in t and t+1 are forwarded into it.
//   RD_REG           the read port is registered: rd_en in cycle t reads rd_addr's value
//                    at the start of t, which shows on rd_data from t+1 until the cycle
//                    after the next rd_en. Otherwise rd_data is rd_addr's value,
//                    combinationally.
// With any of them the banks are split into SUB_DEPTH-deep parts whose reads are
// registered before the part is selected (DEPTH a power of 2, at least SUB_DEPTH).
`default_nettype none

module qrdma_mem_2w
  import qrdma_pkg::*;
#(
  parameter int unsigned WIDTH     = 1,    // bits per word
  parameter int unsigned DEPTH     = 1024, // words
  parameter bit          A_LEAD    = 1'b0, // port A's address two cycles ahead of its enable and data
  parameter bit          B_LEAD    = 1'b0, // port B's address two cycles ahead of its enable and data
  parameter bit          RD_REG    = 1'b0, // registered read port (rd_en)
  parameter int unsigned SUB_DEPTH = 128,  // words per bank part when pipelined
  localparam int unsigned AW       = idx_w(DEPTH)
) (
  input  logic             clk,
  input  logic             a_en,
  input  logic [AW-1:0]    a_addr,
  input  logic [WIDTH-1:0] a_data,
  input  logic             b_en,
  input  logic [AW-1:0]    b_addr,
  input  logic [WIDTH-1:0] b_data,
  /* verilator lint_off UNUSEDSIGNAL */  // rd_en is used only with RD_REG
  input  logic             rd_en = 1'b1, // RD_REG: read rd_addr in this cycle
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic [AW-1:0]    rd_addr,
  output logic [WIDTH-1:0] rd_data
);

  localparam bit PIPE = A_LEAD || B_LEAD || RD_REG;

`ifndef SYNTHESIS
  initial begin
    if (WIDTH < 1) $fatal(1, "qrdma_mem_2w: WIDTH must be >= 1");
    if (DEPTH < 2) $fatal(1, "qrdma_mem_2w: DEPTH must be >= 2");
    if (PIPE && ((DEPTH & (DEPTH - 1)) != 0 || (SUB_DEPTH & (SUB_DEPTH - 1)) != 0
                 || SUB_DEPTH < 2 || DEPTH < SUB_DEPTH))
      $fatal(1, "qrdma_mem_2w: pipelined, DEPTH and SUB_DEPTH must be powers of 2, DEPTH >= SUB_DEPTH");
  end
`endif

  // each port's write address, the other bank's word there, and the word it writes
  logic [AW-1:0]    a_wa, b_wa;
  logic [WIDTH-1:0] a_ob, b_ob, a_wd, b_wd;

  assign a_wd = a_data ^ a_ob;
  assign b_wd = b_data ^ b_ob;

  if (!PIPE) begin : gen_flat
    // LUT RAM (the read port is asynchronous): also when every read address of a bank
    // comes from a register, which would let synthesis take a block RAM
    (* ram_style = "distributed" *) logic [WIDTH-1:0] bank_a [DEPTH];
    (* ram_style = "distributed" *) logic [WIDTH-1:0] bank_b [DEPTH];

    assign a_wa = a_addr;
    assign b_wa = b_addr;
    assign a_ob = bank_b[a_addr];
    assign b_ob = bank_a[b_addr];

    always_ff @(posedge clk) begin
      if (a_en) bank_a[a_wa] <= a_wd;
    end
    always_ff @(posedge clk) begin
      if (b_en) bank_b[b_wa] <= b_wd;
    end

    assign rd_data = bank_a[rd_addr] ^ bank_b[rd_addr];

  end else begin : gen_sub
    localparam int unsigned NSUB = DEPTH / SUB_DEPTH;     // bank parts
    localparam int unsigned LW   = $clog2(SUB_DEPTH);     // address in a part
    localparam int unsigned HW   = idx_w(NSUB);           // part

    // the address's part and its address in the part
    function automatic logic [HW-1:0] part(input logic [AW-1:0] a);
      return (NSUB > 1) ? HW'(a >> LW) : '0;
    endfunction

    // every part's word at the A-side address (a_rd: bank A read at a_ra, and so on)
    logic [LW-1:0]    a_ra, b_ra, r_ra;      // read addresses in the parts
    logic [WIDTH-1:0] ra_b [NSUB];           // bank B at a_ra (port A's other bank)
    logic [WIDTH-1:0] rb_a [NSUB];           // bank A at b_ra (port B's other bank)
    logic [WIDTH-1:0] rr_a [NSUB], rr_b [NSUB];   // both banks at r_ra (read port)

    assign a_ra = a_addr[LW-1:0];
    assign b_ra = b_addr[LW-1:0];
    assign r_ra = rd_addr[LW-1:0];

    for (genvar g = 0; g < int'(NSUB); g++) begin : gen_part
      (* ram_style = "distributed" *) logic [WIDTH-1:0] mem_a [SUB_DEPTH];
      (* ram_style = "distributed" *) logic [WIDTH-1:0] mem_b [SUB_DEPTH];
      always_ff @(posedge clk) begin
        if (a_en && part(a_wa) == HW'(g)) mem_a[a_wa[LW-1:0]] <= a_wd;
      end
      always_ff @(posedge clk) begin
        if (b_en && part(b_wa) == HW'(g)) mem_b[b_wa[LW-1:0]] <= b_wd;
      end
      assign ra_b[g] = mem_b[a_ra];
      assign rb_a[g] = mem_a[b_ra];
      assign rr_a[g] = mem_a[r_ra];
      assign rr_b[g] = mem_b[r_ra];
    end

    // Port A: with A_LEAD, stage 1 (the address's cycle) registers every part's word of
    // bank B, stage 2 selects the part; a write of port B to that address in either
    // cycle replaces the word read (its new word b_wd). Without, bank B is read in the
    // write's cycle.
    if (A_LEAD) begin : gen_a_lead
      logic [WIDTH-1:0] c1_q [NSUB];
      logic [AW-1:0]    wa1_q, wa2_q;
      logic             ov1_q;
      logic [WIDTH-1:0] ovd1_q, ob2_q;
      always_ff @(posedge clk) begin
        for (int g = 0; g < int'(NSUB); g++) c1_q[g] <= ra_b[g];
        wa1_q  <= a_addr;
        ov1_q  <= b_en && (b_wa == a_addr);
        ovd1_q <= b_wd;
        wa2_q  <= wa1_q;
        if (b_en && b_wa == wa1_q) ob2_q <= b_wd;
        else if (ov1_q)            ob2_q <= ovd1_q;
        else                       ob2_q <= c1_q[part(wa1_q)];
      end
      assign a_wa = wa2_q;
      assign a_ob = ob2_q;
    end else begin : gen_a_now
      assign a_wa = a_addr;
      assign a_ob = ra_b[part(a_addr)];
    end

    // Port B: the same with the banks swapped
    if (B_LEAD) begin : gen_b_lead
      logic [WIDTH-1:0] c1_q [NSUB];
      logic [AW-1:0]    wa1_q, wa2_q;
      logic             ov1_q;
      logic [WIDTH-1:0] ovd1_q, ob2_q;
      always_ff @(posedge clk) begin
        for (int g = 0; g < int'(NSUB); g++) c1_q[g] <= rb_a[g];
        wa1_q  <= b_addr;
        ov1_q  <= a_en && (a_wa == b_addr);
        ovd1_q <= a_wd;
        wa2_q  <= wa1_q;
        if (a_en && a_wa == wa1_q) ob2_q <= a_wd;
        else if (ov1_q)            ob2_q <= ovd1_q;
        else                       ob2_q <= c1_q[part(wa1_q)];
      end
      assign b_wa = wa2_q;
      assign b_ob = ob2_q;
    end else begin : gen_b_now
      assign b_wa = b_addr;
      assign b_ob = rb_a[part(b_addr)];
    end

    // Read port: with RD_REG every part's word (banks XORed) is registered under rd_en and
    // the part selected after the register
    if (RD_REG) begin : gen_rd_reg
      logic [WIDTH-1:0] c_q [NSUB];
      logic [HW-1:0]    p_q;
      always_ff @(posedge clk) begin
        if (rd_en) begin
          for (int g = 0; g < int'(NSUB); g++) c_q[g] <= rr_a[g] ^ rr_b[g];
          p_q <= part(rd_addr);
        end
      end
      assign rd_data = c_q[p_q];
    end else begin : gen_rd_now
      assign rd_data = rr_a[part(rd_addr)] ^ rr_b[part(rd_addr)];
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (a_en && b_en) assert (a_wa != b_wa)
      else $error("qrdma_mem_2w: both ports write address %0d in one cycle", a_wa);
  end
`endif

endmodule

`default_nettype wire
