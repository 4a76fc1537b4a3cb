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

    // the ports as pairs (0: A, 1: B): address, write, and every part's word of the
    // other bank at the port's address
    localparam bit [1:0] LEAD = {B_LEAD, A_LEAD};
    /* verilator lint_off UNUSEDSIGNAL */  // a leading port forwards the other's write
    logic             p_en [2];
    logic [WIDTH-1:0] p_wd [2];
    /* verilator lint_on UNUSEDSIGNAL */
    logic [AW-1:0]    p_addr [2], p_wa [2];
    logic [WIDTH-1:0] p_ob [2];
    logic [WIDTH-1:0] p_ro [2][NSUB];             // the other bank at p_addr, every part
    logic [LW-1:0]    r_ra;                       // read port's address in the parts
    logic [WIDTH-1:0] rr_a [NSUB], rr_b [NSUB];   // both banks at r_ra (read port)

    assign p_en   = '{a_en, b_en};
    assign p_addr = '{a_addr, b_addr};
    assign p_wd   = '{a_wd, b_wd};
    assign a_wa   = p_wa[0];
    assign b_wa   = p_wa[1];
    assign a_ob   = p_ob[0];
    assign b_ob   = p_ob[1];
    assign r_ra   = rd_addr[LW-1:0];

    for (genvar g = 0; g < int'(NSUB); g++) begin : gen_part
      (* ram_style = "distributed" *) logic [WIDTH-1:0] mem_a [SUB_DEPTH];
      (* ram_style = "distributed" *) logic [WIDTH-1:0] mem_b [SUB_DEPTH];
      always_ff @(posedge clk) begin
        if (a_en && part(a_wa) == HW'(g)) mem_a[a_wa[LW-1:0]] <= a_wd;
      end
      always_ff @(posedge clk) begin
        if (b_en && part(b_wa) == HW'(g)) mem_b[b_wa[LW-1:0]] <= b_wd;
      end
      assign p_ro[0][g] = mem_b[a_addr[LW-1:0]];
      assign p_ro[1][g] = mem_a[b_addr[LW-1:0]];
      assign rr_a[g]    = mem_a[r_ra];
      assign rr_b[g]    = mem_b[r_ra];
    end

    // Each port: leading, stage 1 (the address's cycle) registers every part's word of
    // the other bank, stage 2 selects the part; a write of the other port to that address
    // in either cycle replaces the word read (its new word). Otherwise the other bank is
    // read in the write's cycle.
    for (genvar p = 0; p < 2; p++) begin : gen_port
      localparam int unsigned O = 1 - p;          // the other port
      if (LEAD[p]) begin : gen_lead
        logic [WIDTH-1:0] c1_q [NSUB];
        logic [AW-1:0]    wa1_q, wa2_q;
        logic             ov1_q;
        logic [WIDTH-1:0] ovd1_q, ob2_q;
        always_ff @(posedge clk) begin
          for (int g = 0; g < int'(NSUB); g++) c1_q[g] <= p_ro[p][g];
          wa1_q  <= p_addr[p];
          ov1_q  <= p_en[O] && (p_wa[O] == p_addr[p]);
          ovd1_q <= p_wd[O];
          wa2_q  <= wa1_q;
          if (p_en[O] && p_wa[O] == wa1_q) ob2_q <= p_wd[O];
          else if (ov1_q)                  ob2_q <= ovd1_q;
          else                             ob2_q <= c1_q[part(wa1_q)];
        end
        assign p_wa[p] = wa2_q;
        assign p_ob[p] = ob2_q;
      end else begin : gen_now
        assign p_wa[p] = p_addr[p];
        assign p_ob[p] = p_ro[p][part(p_addr[p])];
      end
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
