// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_sdp_ram: simple dual-port RAM (one write port, one read port, one clock) written
// so that synthesis infers block RAM: no reset on the array, synchronous read. Used by the
// FIFO, the shared-space multi-queue and every table of the engine ([QoS-RDMA] §3.1-§3.5:
// the tables are dual-port memories).
//
// Contract: the write port has BE_W lane enables of WIDTH/BE_W bits each (BE_W = 1: one
// enable, wr_be tied high by the user); a lane is written when wr_en and its enable are
// high (the transfer table uses per-byte enables). rd_data is valid the cycle after rd_en
// and holds its value while rd_en is low (OUT_REG = 0). OUT_REG = 1 adds an output
// register (the block RAM's own where the fabric has one), loaded when rd_oe is high:
// with rd_oe high in the cycle after rd_en, rd_data is the word two cycles after rd_en,
// straight from a register (no logic after the RAM's clock-to-out), and holds while
// rd_oe is low, so a pipeline that stalls keeps it there (rd_oe: its stage moves; high
// when not connected). Read during write to the same address in the same cycle (RDW_NEW):
//   0  the read returns the OLD content (read-first).
//   1  the read returns the NEW content: the write is forwarded around the RAM by a
//      registered compare and a mux on rd_data (one WIDTH-wide mux, no extra latency).
// Some block RAMs (ECP5's DP16KD, write and read on different ports) leave such a read
// undefined, and synthesis then keeps the old content with logic of its own (the write
// delayed a cycle, a bypass mux after the RAM's output). RDW_ANY = 1 says that the user
// never uses the data of a read that meets a write of the same word with RDW_NEW = 0 (a
// FIFO, which never reads a word being written): synthesis builds no such logic (Yosys
// `no_rw_check`). With RDW_NEW = 1 and BE_W = 1 the forward replaces the whole word, so
// the same holds without RDW_ANY.
// BANKS > 1 (with OUT_REG = 1; DEPTH and BANKS powers of 2) splits the words into BANKS
// arrays by the top address bits, each read into an output register of its own, and
// selects among those registers by the registered bank bits: where a deep RAM takes more
// than one block RAM in depth, the select comes after the output registers instead of
// between a block RAM's read data and the register. Same contract and cycles.
`default_nettype none

module qrdma_sdp_ram
  import qrdma_pkg::*;
#(
  parameter int unsigned WIDTH  = 32,   // bits per word
  parameter int unsigned DEPTH  = 1024, // words
  parameter bit          RDW_NEW = 1'b0, // read-during-write returns new data (see header)
  parameter int unsigned BE_W   = 1,    // write-enable lanes (WIDTH must be a multiple)
  parameter bit          OUT_REG = 1'b0, // output register after the read (see header)
  parameter bit          RDW_ANY = 1'b0, // the data of a colliding read is never used (header)
  parameter int unsigned BANKS  = 1,    // arrays in depth, selected after the output registers
  localparam int unsigned AW    = idx_w(DEPTH),
  localparam int unsigned LW    = WIDTH / BE_W
) (
  input  logic             clk,
  // write port
  input  logic             wr_en,
  input  logic [BE_W-1:0]  wr_be,
  input  logic [AW-1:0]    wr_addr,
  input  logic [WIDTH-1:0] wr_data,
  // read port
  input  logic             rd_en,
  input  logic [AW-1:0]    rd_addr,
  /* verilator lint_off UNUSEDSIGNAL */  // rd_oe is used only with OUT_REG
  input  logic             rd_oe = 1'b1,  // OUT_REG: load the output register
  /* verilator lint_on UNUSEDSIGNAL */
  output logic [WIDTH-1:0] rd_data
);

`ifndef SYNTHESIS
  initial begin
    if (WIDTH < 1) $fatal(1, "qrdma_sdp_ram: WIDTH must be >= 1");
    if (DEPTH < 2) $fatal(1, "qrdma_sdp_ram: DEPTH must be >= 2");
    if (BE_W < 1 || WIDTH % BE_W != 0) $fatal(1, "qrdma_sdp_ram: WIDTH must be a multiple of BE_W");
    if (BANKS > 1 && (!OUT_REG || (BANKS & (BANKS - 1)) != 0 || (DEPTH & (DEPTH - 1)) != 0
                      || BANKS >= DEPTH))
      $fatal(1, "qrdma_sdp_ram: BANKS > 1 needs OUT_REG and powers of 2 with BANKS < DEPTH");
  end
`endif

  // Yosys reads the attribute's value: no_rw_check = 0 keeps the old content (header).
  /* verilator lint_off UNUSEDPARAM */  // read by synthesis only (the attribute below)
  localparam bit NO_RW_CHECK = RDW_ANY || (RDW_NEW && BE_W == 1);
  /* verilator lint_on UNUSEDPARAM */
  logic [WIDTH-1:0] ram_q;

  if (BANKS == 1) begin : gen_one
    (* no_rw_check = NO_RW_CHECK *) logic [WIDTH-1:0] mem [DEPTH];
    logic [WIDTH-1:0] rd_q;

    // One process, the read first: the read gets the word as it was before the edge
    // (read-first), the form Yosys infers block RAM from.
    always_ff @(posedge clk) begin
      if (rd_en) rd_q <= mem[rd_addr];
      for (int i = 0; i < int'(BE_W); i++) begin
        if (wr_en && wr_be[i]) mem[wr_addr][i*LW +: LW] <= wr_data[i*LW +: LW];
      end
    end

    // the output register, when there is one: the RAM's read data goes into it directly
    if (OUT_REG) begin : gen_oreg
      always_ff @(posedge clk) begin
        if (rd_oe) ram_q <= rd_q;
      end
    end else begin : gen_noreg
      assign ram_q = rd_q;
    end

  end else begin : gen_banks
    localparam int unsigned BD = DEPTH / BANKS;  // words per bank
    localparam int unsigned BA = idx_w(BD);      // address bits within a bank
    localparam int unsigned BW = idx_w(BANKS);   // bank bits (the top address bits)
    logic [BANKS-1:0][WIDTH-1:0] bank_o;         // the banks' output registers
    logic [BW-1:0]               sel_rd_q, sel_o_q;

    for (genvar b = 0; b < int'(BANKS); b++) begin : gen_bank
      (* no_rw_check = NO_RW_CHECK *) logic [WIDTH-1:0] mem [BD];
      logic [WIDTH-1:0] rd_q, o_q;

      always_ff @(posedge clk) begin
        if (rd_en) rd_q <= mem[rd_addr[BA-1:0]];
        for (int i = 0; i < int'(BE_W); i++) begin
          if (wr_en && wr_be[i] && wr_addr[AW-1 -: BW] == BW'(b))
            mem[wr_addr[BA-1:0]][i*LW +: LW] <= wr_data[i*LW +: LW];
        end
      end
      always_ff @(posedge clk) begin
        if (rd_oe) o_q <= rd_q;
      end
      assign bank_o[b] = o_q;
    end

    always_ff @(posedge clk) begin
      if (rd_en) sel_rd_q <= rd_addr[AW-1 -: BW];
      if (rd_oe) sel_o_q  <= sel_rd_q;
    end
    assign ram_q = bank_o[sel_o_q];
  end

  if (RDW_NEW) begin : gen_fwd
    logic [BE_W-1:0]  fwd_q, fwd_o;
    logic [WIDTH-1:0] fwd_data_q, fwd_data_o;
    always_ff @(posedge clk) begin
      if (rd_en) begin
        fwd_q      <= (wr_en && (wr_addr == rd_addr)) ? wr_be : '0;
        fwd_data_q <= wr_data;
      end
    end
    if (OUT_REG) begin : gen_fwd_oreg
      always_ff @(posedge clk) begin
        if (rd_oe) begin
          fwd_o      <= fwd_q;
          fwd_data_o <= fwd_data_q;
        end
      end
    end else begin : gen_fwd_noreg
      assign fwd_o      = fwd_q;
      assign fwd_data_o = fwd_data_q;
    end
    for (genvar i = 0; i < int'(BE_W); i++) begin : gen_lane
      assign rd_data[i*LW +: LW] = fwd_o[i] ? fwd_data_o[i*LW +: LW] : ram_q[i*LW +: LW];
    end
  end else begin : gen_nofwd
    assign rd_data = ram_q;
  end

endmodule

`default_nettype wire
