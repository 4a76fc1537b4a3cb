// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_burst_seq: the beat sequencer of an AXI4 slave's address channel. It walks the
// burst at the head of an address FIFO beat by beat (beat counter, first-beat flag, next
// address) and keeps the valid flag of the user's beat register, into which the user
// loads each beat's decoded fields under `load`. Used by the host port's write and read
// paths (qrdma_host_wr, qrdma_host_rd; [QoS-RDMA] §3.6).
//
// Contract (one beat per cycle):
//   load   = s_valid && (beat register empty || take): the beat at `addr` (the burst's
//            last when `last`) enters the beat register at the end of this cycle; the
//            user registers what it needs of it under `load`.
//   addr   the beat's address, counted as INCR for every burst type: s_addr for the
//          first beat, then the previous beat's address aligned down to the step
//          (1 << s_size bytes) plus the step.
//   s_pop  = load && last: the burst's last beat is loaded, pop the address FIFO.
//   valid  the beat register holds a beat; `take` (the user consumes it this cycle) may
//          come in the cycle it is reloaded.
// The burst fields (s_addr, s_len, s_size) must stay stable while s_valid is high and
// until s_pop.
`default_nettype none

module qrdma_burst_seq #(
  parameter int unsigned ADDR_W = 32   // address width
) (
  input  logic              clk,      // clock
  input  logic              rst,      // synchronous reset, active high
  // burst offered (the address FIFO's head)
  input  logic              s_valid,  // a burst is offered
  input  logic [ADDR_W-1:0] s_addr,   // address of its first beat
  input  logic [7:0]        s_len,    // beats - 1
  input  logic [2:0]        s_size,   // log2 of the step in bytes
  output logic              s_pop,    // its last beat is loaded in this cycle
  // beat register
  output logic              load,     // a beat is loaded in this cycle
  output logic [ADDR_W-1:0] addr,     // its address
  output logic              last,     // it is the burst's last beat
  output logic              valid,    // the beat register is full
  input  logic              take      // the beat register's beat is consumed in this cycle
);

  logic              first_q, valid_q;
  logic [7:0]        beat_q;
  logic [ADDR_W-1:0] next_q;
  logic [ADDR_W-1:0] step, keep;

  // the step and the bits an aligned address keeps: constants shifted (no subtraction)
  assign step = ADDR_W'(1) << s_size;
  assign keep = {ADDR_W{1'b1}} << s_size;
  assign load  = s_valid && (!valid_q || take);
  assign addr  = first_q ? s_addr : next_q;
  assign last  = (beat_q == s_len);
  assign s_pop = load && last;
  assign valid = valid_q;

  always_ff @(posedge clk) begin
    if (load) begin
      beat_q  <= last ? '0 : beat_q + 8'd1;
      first_q <= last;
      next_q  <= (addr & keep) + step;
    end
    if (rst) begin
      beat_q  <= '0;
      first_q <= 1'b1;
    end
  end

  always_ff @(posedge clk) begin
    if (rst)       valid_q <= 1'b0;
    else if (load) valid_q <= 1'b1;
    else if (take) valid_q <= 1'b0;
  end

endmodule

`default_nettype wire
