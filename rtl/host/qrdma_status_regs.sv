// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_status_regs: the status (ST_IDLE / ST_BUSY / ST_DONE / ST_ERROR) of the 2048
// channels, write and read (channel index = page * 128 + c), kept as 64 rows of 32
// channels x 2 bits (row = page * 4 + c / 32, channel c mod 32 in bits 2i+1:2i), so that one 64-bit load
// returns a whole row (the collective status read). Implements [QoS-RDMA] §3.4 with the
// host port, the engine and the reads as three independent writers in every cycle, in
// LUT RAM with three write ports built the XOR way (docs/modules.md#qrdma_status_regs).
//
// Contract (one cycle, no latency). After rst the rows are cleared in ROWS cycles, during
// which ready is low, the outputs are meaningless and every update is ignored.
//   check  chk_row selects a row; chk_st is that row's state at the start of the cycle
//          (the host port's BUSY checks; no side effect).
//   host   host_set / host_ch / host_err: the channel becomes BUSY (a descriptor started)
//          or ERROR (host_err: a descriptor refused at completion). Unconditional.
//   engine eng_valid / eng_ch / eng_err: BUSY -> DONE (ERROR when eng_err). Only for a
//          BUSY channel (the engine completes only transfers it was handed; asserted in
//          simulation): the update is a change of the engine's own bank, with no read of
//          the row's state.
//   read   rd_valid / rd_row: rd_data is the row's state at the start of the cycle; every
//          channel found DONE or ERROR is reset to IDLE (rd_single: only channel rd_sel).
// Same cycle, same channel: host set > read reset, applied to the state at the start of
// the cycle, whose value every read of the cycle returns (a DONE channel read and
// re-posted in one cycle reads DONE and ends BUSY). A host set and an engine set never
// hit one channel in one cycle (the host port posts only to channels that are not BUSY,
// the engine completes only BUSY ones: an assertion in simulation); an engine set is of
// a BUSY channel and a read resets DONE/ERROR, so those two never meet on one channel
// either. The result is visible on chk_st / rd_data in the next cycle.
`default_nettype none

module qrdma_status_regs
  import qrdma_fmt_pkg::*;
#(
  localparam int unsigned ROW_CH = 32,                                // channels per row
  localparam int unsigned ROWS   = NUM_PAGES * CH_PER_PAGE / ROW_CH,  // rows (64)
  localparam int unsigned RW     = $clog2(ROWS),                      // row index bits
  localparam int unsigned SW     = $clog2(ROW_CH),                    // channel-in-row bits
  localparam int unsigned CHW    = $clog2(ROWS * ROW_CH),             // channel index bits
  localparam int unsigned RB     = 2 * ROW_CH                         // bits per row (64)
) (
  input  logic           clk,
  input  logic           rst,
  output logic           ready,      // low during the clearing sweep after rst
  // host port: check (read without side effect) and update
  input  logic [RW-1:0]  chk_row,    // row checked
  output logic [RB-1:0]  chk_st,     // state of chk_row at the start of the cycle
  input  logic           host_set,   // channel host_ch becomes BUSY / ERROR
  input  logic [CHW-1:0] host_ch,    // page * 128 + c
  input  logic           host_err,   // 1: ERROR (descriptor refused), 0: BUSY (started)
  // engine: transfer complete
  input  logic           eng_valid,  // channel eng_ch completes (if it is BUSY)
  input  logic [CHW-1:0] eng_ch,     // page * 128 + c
  input  logic           eng_err,    // 1: ERROR (NACK), 0: DONE
  // read with reset
  input  logic           rd_valid,   // read row rd_row and reset what was DONE/ERROR
  input  logic [RW-1:0]  rd_row,     // page * 4 + group
  input  logic           rd_single,  // 1: reset only channel rd_sel; 0: the whole row
  input  logic [SW-1:0]  rd_sel,     // channel within rd_row (rd_single)
  output logic [RB-1:0]  rd_data     // state of rd_row at the start of the cycle
);

`ifndef SYNTHESIS
  initial begin
    if (ROWS * ROW_CH != NUM_PAGES * CH_PER_PAGE || (ROWS & (ROWS - 1)) != 0)
      $fatal(1, "qrdma_status_regs: the channels must fill a power-of-2 number of rows");
    if (RB != STATUS_SINGLE_W)
      $fatal(1, "qrdma_status_regs: a row must be one 64-bit status load");
  end
`endif

  localparam logic [1:0] S_IDLE = 2'(ST_IDLE);
  localparam logic [1:0] S_BUSY = 2'(ST_BUSY);
  localparam logic [1:0] S_DONE = 2'(ST_DONE);
  localparam logic [1:0] S_ERR  = 2'(ST_ERROR);

  // ------------------------------------------------------------------ clearing sweep
  logic          init_q;
  logic [RW-1:0] init_row_q;

  qrdma_init_sweep #(.N(ROWS)) u_init (.clk, .rst, .busy(init_q), .idx(init_row_q));

  assign ready = !init_q;

  // ------------------------------------------------------------------ banks
  // Bank H is written by the host port, E by the engine, R by the reads. Each bank is read
  // at the three writers' addresses (its own write address and the two others) and at the
  // check address: multi-port LUT-RAM primitives (UltraScale RAM32M / RAM32M16: read
  // ports plus one read/write port at the write address), ROWS deep. LUT RAM by
  // attribute: the update reads are addressed by flops (the writers' rows), so synthesis
  // could otherwise take them as synchronous reads of a block RAM, whose clock-to-out
  // would then start the path through the update into the write data.
  (* ram_style = "distributed" *) logic [RB-1:0] bank_h [ROWS];
  (* ram_style = "distributed" *) logic [RB-1:0] bank_e [ROWS];
  (* ram_style = "distributed" *) logic [RB-1:0] bank_r [ROWS];

  logic [RW-1:0] a_h, a_e, a_r;   // the writers' rows: read there, written there
  logic [RW-1:0] wa_h, wa_e, wa_r; // write addresses: the sweep's row while it runs
  logic          we_h, we_e, we_r;

  // The sweep writes zero into the sweep row of all three banks: its write data does not
  // depend on a read, and only the write addresses see the sweep mux (the reads of the
  // update logic are addressed by the writers' rows alone).
  assign a_h  = host_ch[CHW-1:SW];
  assign a_e  = eng_ch[CHW-1:SW];
  assign a_r  = rd_row;
  assign wa_h = init_q ? init_row_q : a_h;
  assign wa_e = init_q ? init_row_q : a_e;
  assign wa_r = init_q ? init_row_q : a_r;

  logic [RB-1:0] old_r;   // row state at the read address

  assign old_r   = bank_h[a_r] ^ bank_e[a_r] ^ bank_r[a_r];
  assign chk_st  = bank_h[chk_row] ^ bank_e[chk_row] ^ bank_r[chk_row];
  assign rd_data = old_r;

  // ------------------------------------------------------------------ updates
  // Each writer writes its own bank with its own change (old ^ new of the channels it
  // changes); the row is the XOR of the banks, so changes of different channels in one
  // row combine. The read resets every DONE / ERROR channel it returns, whatever the host
  // does; on a channel the host sets in the same cycle (host set > read reset) the host's
  // change includes the read's reset of it, so that the channel ends at the host's value
  // (old ^ (new ^ old) ^ (old ^ IDLE) for the host's old ^ new): the read bank's write
  // data does not depend on the host port. The engine meets neither (contract above) and
  // its channel is BUSY, so its change is BUSY ^ new on that channel alone and bank E is
  // read only at its own row. So a bank's write enable is its writer's request alone.
  // Each change is computed inside its bank's always_ff, under the write enable, so that
  // a simulator evaluates it only in the cycles that bank is written (the writes are rare
  // next to the cycles; per-channel loops there synthesize better than 64-bit masks).
  logic       r_row_h;        // the read resets in the host's row
  logic [1:0] e_chg;          // old ^ new of an engine set on a BUSY channel

  assign r_row_h = rd_valid && (a_r == a_h);
  assign e_chg   = S_BUSY ^ (eng_err ? S_ERR : S_DONE);

  assign we_h = host_set;
  assign we_e = eng_valid;
  assign we_r = rd_valid;

  always_ff @(posedge clk) begin
    // engine row: only its own channel changes, from BUSY
    if (init_q || we_e) begin : upd_e
      logic [RB-1:0] w;
      for (int j = 0; j < ROW_CH; j++)
        w[2*j +: 2] = (eng_ch[SW-1:0] == SW'(j)) ? e_chg : 2'b00;
      bank_e[wa_e] <= init_q ? '0 : bank_e[a_e] ^ w;
    end
  end

  always_ff @(posedge clk) begin
    // host row: only its own channel changes
    if (init_q || we_h) begin : upd_h
      logic [RB-1:0] o, w;
      o = bank_h[a_h] ^ bank_e[a_h] ^ bank_r[a_h];
      for (int j = 0; j < ROW_CH; j++) begin
        logic [1:0] oo, nw;
        oo = o[2*j +: 2];
        nw = host_err ? S_ERR : S_BUSY;
        // the read's reset of this channel, if any, is undone here: its change is oo ^ IDLE
        w[2*j +: 2] = (host_ch[SW-1:0] != SW'(j)) ? 2'b00
                    : (r_row_h && (!rd_single || rd_sel == SW'(j)) && oo[1]) ? nw ^ S_IDLE
                    : oo ^ nw;
      end
      bank_h[wa_h] <= init_q ? '0 : bank_h[a_h] ^ w;
    end
  end

  always_ff @(posedge clk) begin
    // read row: every DONE / ERROR channel read becomes IDLE
    if (init_q || we_r) begin : upd_r
      logic [RB-1:0] w;
      logic [1:0]    oo;
      for (int j = 0; j < ROW_CH; j++) begin
        oo = old_r[2*j +: 2];
        w[2*j +: 2] = ((!rd_single || rd_sel == SW'(j)) && oo[1]) ? oo ^ S_IDLE : 2'b00;
      end
      bank_r[wa_r] <= init_q ? '0 : bank_r[a_r] ^ w;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (host_set && eng_valid)
      if (!rst && !init_q) assert (host_ch != eng_ch)
        else $error("qrdma_status_regs: host and engine set channel %0d in one cycle", host_ch);
    if (eng_valid)
      if (!rst && !init_q) begin : chk_e
        logic [RB-1:0] o;
        o = bank_h[a_e] ^ bank_e[a_e] ^ bank_r[a_e];
        assert (o[2 * eng_ch[SW-1:0] +: 2] == S_BUSY)
          else $error("qrdma_status_regs: engine completes channel %0d, which is not BUSY", eng_ch);
      end
  end
`endif

endmodule

`default_nettype wire
