// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_burst_seq: the address channel of an AXI4 slave, walked beat by beat. Bursts are
// taken into an address FIFO (DEPTH entries) and its burst register, the burst being
// walked, in flops: the register takes the FIFO's head, or the burst of this cycle
// directly when the FIFO is empty (no cycle lost). The burst register holds the address
// of its next beat, its step size, whether that beat is the last and the user's fields,
// all in flops, and keeps the valid flag of the user's beat register, into which the user
// loads each beat's decoded fields under `load`. Used by the host port's write and read
// paths (qrdma_host_wr, qrdma_host_rd; [QoS-RDMA] §3.6).
//
// Contract (one beat per cycle):
//   s_valid / s_ready  the burst channel; s_ready = (FIFO count < DEPTH), a register.
//   load   = a burst is held && (beat register empty || take): the beat at `addr` (the
//            burst's last when `last`) enters the beat register at the end of this cycle;
//            the user registers what it needs of it (addr, last, size, user) under `load`.
//   addr   the beat's address, counted as INCR for every burst type: s_addr for the first
//          beat, then the previous beat's address aligned down to the step (1 << s_size
//          bytes) plus the step. addr, last, size and user are registers.
//   valid  the beat register holds a beat; `take` (the user consumes it this cycle) may
//          come in the cycle it is reloaded.
// A burst taken at t offers its first beat (`load` possible) at t + 1; the first beat of
// the next burst follows the last beat of a burst without a gap.
`default_nettype none

module qrdma_burst_seq #(
  parameter int unsigned ADDR_W = 32,  // address width
  parameter int unsigned USER_W = 1,   // user fields carried with each burst (ID, burst type)
  parameter int unsigned DEPTH  = 2    // bursts the FIFO holds behind the burst register
) (
  input  logic              clk,      // clock
  input  logic              rst,      // synchronous reset, active high
  // burst channel
  input  logic              s_valid,  // a burst is offered
  output logic              s_ready,  // it is taken (registered)
  input  logic [ADDR_W-1:0] s_addr,   // address of its first beat
  input  logic [7:0]        s_len,    // beats - 1
  input  logic [2:0]        s_size,   // log2 of the step in bytes
  input  logic [USER_W-1:0] s_user,   // carried unchanged
  // beat register
  output logic              load,     // a beat is loaded in this cycle
  output logic [ADDR_W-1:0] addr,     // its address
  output logic              last,     // it is the burst's last beat
  output logic [2:0]        size,     // its burst's s_size
  output logic [USER_W-1:0] user,     // its burst's s_user
  output logic              valid,    // the beat register is full
  input  logic              take      // the beat register's beat is consumed in this cycle
);

`ifndef SYNTHESIS
  initial begin
    if (DEPTH < 1) $fatal(1, "qrdma_burst_seq: DEPTH must be >= 1");
  end
`endif

  typedef struct packed {
    logic [USER_W-1:0] user;
    logic [ADDR_W-1:0] addr;
    logic [7:0]        len;
    logic [2:0]        size;
  } burst_t;

  burst_t            in_b, f_b, nxt;
  logic              f_valid, f_s_ready, b_load, byp;
  logic              b_valid_q, valid_q, last_q;
  logic [7:0]        rem_q;          // beats after the next one
  logic [ADDR_W-1:0] addr_q, step_q, keep_q;
  logic [2:0]        size_q;
  logic [USER_W-1:0] user_q;

  assign in_b    = '{user: s_user, addr: s_addr, len: s_len, size: s_size};
  assign load    = b_valid_q && (!valid_q || take);
  assign b_load  = !b_valid_q || (load && last_q);   // the burst register takes the next burst
  assign byp     = b_load && !f_valid;               // ... the one of this cycle, directly
  assign nxt     = f_valid ? f_b : in_b;
  assign s_ready = f_s_ready;

  /* verilator lint_off PINCONNECTEMPTY */  // count, almost_full: not used
  qrdma_sync_fifo #(.WIDTH($bits(burst_t)), .DEPTH(DEPTH)) u_fifo (
    .clk, .rst,
    .s_valid (s_valid && !byp),
    .s_ready (f_s_ready),
    .s_data  (in_b),
    .m_valid (f_valid),
    .m_ready (b_load),
    .m_data  (f_b),
    .count   (),
    .almost_full ()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // the burst register: a new burst's fields under b_load, the next beat's under load
  // (the step and the bits an aligned address keeps: constants shifted, no subtraction)
  always_ff @(posedge clk) begin
    if (b_load) begin
      addr_q <= nxt.addr;
      rem_q  <= nxt.len;
      last_q <= (nxt.len == 8'd0);
      size_q <= nxt.size;
      step_q <= ADDR_W'(1) << nxt.size;
      keep_q <= {ADDR_W{1'b1}} << nxt.size;
      user_q <= nxt.user;
    end else if (load) begin
      addr_q <= (addr_q & keep_q) + step_q;
      rem_q  <= rem_q - 8'd1;
      last_q <= (rem_q == 8'd1);
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      b_valid_q <= 1'b0;
      valid_q   <= 1'b0;
    end else begin
      if (b_load) b_valid_q <= f_valid || (s_valid && f_s_ready);
      if (load)      valid_q <= 1'b1;
      else if (take) valid_q <= 1'b0;
    end
  end

  assign addr  = addr_q;
  assign last  = last_q;
  assign size  = size_q;
  assign user  = user_q;
  assign valid = valid_q;

endmodule

`default_nettype wire
