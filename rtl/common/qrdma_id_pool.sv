// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_id_pool: a pool of NUM_IDS IDs FIRST_ID..FIRST_ID+NUM_IDS-1, kept as a FIFO of
// free IDs (a qrdma_sync_fifo): allocated from the head, returned to the tail, so IDs are
// handed out in the order they were freed. The transaction and flow ID FIFO queues of
// [QoS-RDMA] §3.8 with the initializer of §3.14 built in (docs/modules.md#qrdma_id_pool).
//
// Contract: after reset the pool pushes FIRST_ID, FIRST_ID+1, ... one per cycle in the
// first NUM_IDS cycles with rst low; ready is low during reset and those NUM_IDS cycles,
// high from cycle NUM_IDS on; m_valid stays low while ready is low, and in cycle NUM_IDS
// all IDs are in the pool and m_valid is high. The IDs are free from reset on, so a
// return before ready is a double free (dropped).
// Allocation (m_*) is a show-ahead valid/ready stream: m_id is the next free ID while
// m_valid is high, taken at a clock edge with m_ready high. A returned ID (free_valid,
// free_id) is always accepted; it can be allocated again 1 cycle later when the FIFO is
// made of registers (NUM_IDS < RAM_MIN_DEPTH), 2 cycles later with block RAM. A return of
// an ID that is already free or outside the pool's range fails an assertion in simulation.
`default_nettype none

module qrdma_id_pool
  import qrdma_pkg::*;
#(
  parameter int unsigned NUM_IDS       = 16,  // IDs in the pool
  parameter int unsigned FIRST_ID      = 0,   // lowest ID; the pool holds FIRST_ID..FIRST_ID+NUM_IDS-1
  parameter int unsigned ID_W          = idx_w(FIRST_ID + NUM_IDS), // bits per ID
  parameter int unsigned RAM_MIN_DEPTH = 64   // FIFO: at or above this many IDs use block RAM
) (
  input  logic            clk,
  input  logic            rst,
  output logic            ready,       // initialisation done (all IDs in the pool)
  // allocation (show-ahead)
  output logic            m_valid,
  input  logic            m_ready,
  output logic [ID_W-1:0] m_id,
  // return (always accepted)
  input  logic            free_valid,
  input  logic [ID_W-1:0] free_id
);

`ifndef SYNTHESIS
  initial begin
    if (NUM_IDS < 1) $fatal(1, "qrdma_id_pool: NUM_IDS must be >= 1");
    if (ID_W < 1 || ID_W > 32) $fatal(1, "qrdma_id_pool: ID_W must be in 1..32");
    if (64'(FIRST_ID) + 64'(NUM_IDS) > (64'(1) << ID_W))
      $fatal(1, "qrdma_id_pool: ID_W too narrow for FIRST_ID + NUM_IDS - 1");
    if (NUM_IDS >= RAM_MIN_DEPTH && NUM_IDS < 2)
      $fatal(1, "qrdma_id_pool: block-RAM FIFO needs NUM_IDS >= 2");
  end
`endif

  localparam logic [ID_W-1:0] LAST_ID = ID_W'(FIRST_ID + NUM_IDS - 1);

  logic            ready_q;
  logic [ID_W-1:0] init_id_q;  // next ID the initializer pushes (while !ready_q)
  logic            fifo_s_valid;
  logic [ID_W-1:0] fifo_s_data;
  logic            fifo_m_valid;

  // The FIFO's s_ready and status are not needed: the pool never holds more than NUM_IDS
  // IDs (without a double free), and the initializer pushes exactly NUM_IDS into an empty
  // FIFO, so every push is accepted.
  /* verilator lint_off UNUSEDSIGNAL */
  logic                       fifo_s_ready;
  logic [cnt_w(NUM_IDS)-1:0] fifo_count;
  logic                       fifo_almost_full;
  /* verilator lint_on UNUSEDSIGNAL */

  // Reset last (it overrides): the registers are read before they are written, so the
  // simulator updates them in place (docs/development.md).
  always_ff @(posedge clk) begin
    if (!ready_q) begin
      // In cycle k (k = 0..NUM_IDS-1 after reset) ID FIRST_ID+k is pushed; the push of
      // the last one also raises ready for cycle NUM_IDS.
      init_id_q <= init_id_q + ID_W'(1);
      if (init_id_q == LAST_ID) ready_q <= 1'b1;
    end
    if (rst) begin
      ready_q   <= 1'b0;
      init_id_q <= ID_W'(FIRST_ID);
    end
  end

  assign fifo_s_valid = ready_q ? free_valid : 1'b1;
  assign fifo_s_data  = ready_q ? free_id    : init_id_q;
  assign ready        = ready_q;
  assign m_valid      = ready_q && fifo_m_valid;

  qrdma_sync_fifo #(
    .WIDTH         (ID_W),
    .DEPTH         (NUM_IDS),
    .RAM_MIN_DEPTH (RAM_MIN_DEPTH)
  ) u_fifo (
    .clk         (clk),
    .rst         (rst),
    .s_valid     (fifo_s_valid),
    .s_ready     (fifo_s_ready),
    .s_data      (fifo_s_data),
    .m_valid     (fifo_m_valid),
    .m_ready     (ready_q && m_ready),
    .m_data      (m_id),
    .count       (fifo_count),
    .almost_full (fifo_almost_full)
  );

`ifndef SYNTHESIS
  // Bitmap of free IDs, bit i for ID FIRST_ID+i. All IDs are free from reset on (the ones
  // not yet pushed by the initializer too).
  localparam int unsigned MW = idx_w(NUM_IDS);

  logic [NUM_IDS-1:0] free_map_q;
  logic [ID_W:0]      free_off;           // free_id - FIRST_ID; wraps high when below FIRST_ID
  logic [MW-1:0]      free_bit;
  logic [MW-1:0]      alloc_bit;

  assign free_off  = {1'b0, free_id} - (ID_W + 1)'(FIRST_ID);
  assign free_bit  = MW'(free_off);
  assign alloc_bit = MW'(m_id - ID_W'(FIRST_ID));

  // Computed only in a cycle with an allocation or a return. The map is written once, after
  // its reads, and the reset last: Verilator then updates it in place (docs/development.md).
  always_ff @(posedge clk) begin
    if ((m_valid && m_ready) || free_valid) begin
      logic [NUM_IDS-1:0] map;
      map = free_map_q;
      if (m_valid && m_ready) map[alloc_bit] = 1'b0;
      if (free_valid) begin
        if (!rst) assert (free_off < (ID_W + 1)'(NUM_IDS))
          else $error("qrdma_id_pool: return of ID %0d, outside the pool %0d..%0d",
                      free_id, FIRST_ID, FIRST_ID + NUM_IDS - 1);
        // also catches returning an ID in the cycle it is allocated: it was still free
        if (!rst) assert (free_off >= (ID_W + 1)'(NUM_IDS) || !free_map_q[free_bit])
          else $error("qrdma_id_pool: double free of ID %0d (it is already free)", free_id);
        if (free_off < (ID_W + 1)'(NUM_IDS)) map[free_bit] = 1'b1;
      end
      free_map_q <= map;
    end
    if (rst) free_map_q <= '1;
  end
`endif

endmodule

`default_nettype wire
