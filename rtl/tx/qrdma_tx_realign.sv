// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_tx_realign: packs the payload read data of the send unit (docs/nic.md "Send
// unit"). Read beats come back in order, a packet's first byte at lane slane of its first
// beat; out go packed beats, the packet's byte 64j + b in lane b of packed beat j (the
// last one partly filled). The assembler later moves them to the destination lane; the
// CRC is computed on the packed beats (its byte-enable rule wants them from lane 0).
// A read beat yields 0, 1 or 2 packed beats (n_p in all for a packet); the second of two
// goes through one pending register. Inside (the rotation, why one pending register
// suffices, evaluation cost): docs/modules.md#qrdma_tx_realign.
//
// Contract: R is always accepted (rready = 1; the caller reserved the buffer space). The
// read status of each packet (1: one of its read beats came with RRESP SLVERR/DECERR) is
// reported once per packet (o_perr_valid) with its last read beat, never after its last
// packed beat.
// Timing: R beat taken in cycle t -> registered in t+1 (shift) -> o_valid in t+2, or in
// t+3 for a beat that went through the pending register.
`default_nettype none

module qrdma_tx_realign
  import qrdma_tx_pkg::*;
(
  input  logic              clk,
  input  logic              rst,
  // read data beats (taken every cycle r_valid is high)
  input  logic              r_valid,
  input  logic [DATA_W-1:0] r_data,
  /* verilator lint_off UNUSEDSIGNAL */  // bit 1: SLVERR or DECERR (bit 0 tells them apart)
  input  logic [1:0]        r_resp,
  /* verilator lint_on UNUSEDSIGNAL */
  // read info of the packet being received (show-ahead; popped on its last beat)
  input  logic              info_valid,
  output logic              info_ready,
  input  rd_info_t          info,
  // packed beats (always accepted)
  output logic              o_valid,
  output logic [DATA_W-1:0] o_data,
  // read status per packet (always accepted)
  output logic              o_perr_valid,
  output logic              o_perr
);

  logic                rv_q;
  logic [DATA_W-1:0]   rdat_q;     // read beat k
  logic [DATA_W-1:0]   rp_q;       // rc of read beat k-1 of the same packet (slane != 0)
  logic [BEATS_W-1:0]  k_q;        // index of rdat_q in its packet
  logic                last_beat, lo_emit, hi_emit;
  logic                pend_v_q, o_valid_q;
  logic [DATA_W-1:0]   pend_q, o_data_q;

  always_ff @(posedge clk) begin
    if (rst) rv_q <= 1'b0;
    else     rv_q <= r_valid;
  end

  always_ff @(posedge clk) begin
    if (r_valid) rdat_q <= r_data;
  end

  // read status: rerr_q with rdat_q, accumulated over the packet's beats
  logic rerr_q, racc_q;
  always_ff @(posedge clk) begin
    if (r_valid) rerr_q <= r_resp[1];
    if (rv_q) begin
      racc_q <= !last_beat && (racc_q || rerr_q);
      o_perr <= racc_q || rerr_q;
    end
    o_perr_valid <= rv_q && last_beat;
    if (rst) begin
      racc_q       <= 1'b0;
      o_perr_valid <= 1'b0;
    end
  end

  assign last_beat  = (k_q == info.n_src - BEATS_W'(1));
  assign lo_emit    = rv_q && (info.slane != '0) && (k_q != '0);
  assign hi_emit    = rv_q && ((info.slane == '0) || (last_beat && info.n_p == info.n_src));
  assign info_ready = rv_q && last_beat;

  always_ff @(posedge clk) begin
    if (rv_q) k_q <= last_beat ? '0 : k_q + BEATS_W'(1);
    if (rst)  k_q <= '0;  // last: overrides (docs/development.md)
  end

  // Data: rc = rdat_q rotated right by slane bytes (sh_hi), sh_lo = rp_q in the lanes below
  // 64 - slane, rc above. Computed only in a cycle with a read beat (rv_q), the rotation
  // only for slane != 0 (else rc = rdat_q), sh_lo only when it is emitted; o_data_q and
  // pend_q are loaded only when they become valid (their values otherwise don't matter).
  // Each register is written once, after every read of it: Verilator then keeps no
  // per-cycle shadow copy of the 512-bit registers (docs/sim.md "Speed").
  always_ff @(posedge clk) begin
    if (rv_q || pend_v_q) begin
      logic [DATA_W-1:0] rc, sh_lo, prev_bits;
      rc    = rdat_q;
      sh_lo = rdat_q;
      if (rv_q) begin
        if (info.slane != '0) rc = DATA_W'({rdat_q, rdat_q} >> {info.slane, 3'b000});
        sh_lo = rc;
        if (lo_emit) begin
          prev_bits = {DATA_W{1'b1}} >> {info.slane, 3'b000};
          sh_lo     = (rp_q & prev_bits) | (rc & ~prev_bits);
        end
      end
      // the pending beat goes first; else the low half, else the high half
      if (pend_v_q)                   o_data_q <= pend_q;
      else if (lo_emit || hi_emit)    o_data_q <= lo_emit ? sh_lo : rc;
      // what waits: with a pending beat, the one emitted half; else the high half when
      // both halves are emitted
      if (pend_v_q ? (lo_emit || hi_emit) : (lo_emit && hi_emit))
        pend_q <= (pend_v_q && lo_emit) ? sh_lo : rc;
      if (rv_q && info.slane != '0) rp_q <= rc;
    end
    // In order: the pending beat, the low half, the high half. The first goes out, the
    // second waits in the pending register. (In this process, after the data, and reset
    // last: pend_v_q is read before it is written, docs/development.md.)
    o_valid_q <= pend_v_q || lo_emit || hi_emit;
    pend_v_q  <= (pend_v_q && (lo_emit || hi_emit)) || (lo_emit && hi_emit);
    if (rst) begin
      o_valid_q <= 1'b0;
      pend_v_q  <= 1'b0;
    end
  end

  assign o_valid = o_valid_q;
  assign o_data  = o_data_q;

`ifndef SYNTHESIS
  // read data comes only for a read command; the pending register never overflows
  always_ff @(posedge clk) begin
    if (rv_q)
      if (!rst) assert (info_valid)
        else $error("qrdma_tx_realign: read data without a read command");
    if (pend_v_q)
      if (!rst) assert (!(lo_emit && hi_emit))
        else $error("qrdma_tx_realign: packed beat lost (pending register full)");
  end
`endif

endmodule

`default_nettype wire
