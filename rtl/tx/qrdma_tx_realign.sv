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
// reported once per packet (o_perr_valid) in the cycle its last packed beat is out
// (o_valid), so the payload is complete in the caller's buffer when its status is.
// Timing: R beat taken in cycle t -> registered in t+1 (its part in the packet) -> t+2
// (rotation, halves) -> o_valid in t+3, or in t+4 for a beat that went through the
// pending register.
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

  // ---------------------------------------------------------------- R1: the read beat
  // registered; its part in the packet from the read info and the beat index
  logic                rv_q;
  logic [DATA_W-1:0]   rdat_q;     // read beat k
  logic                rerr_q;     // its RRESP is an error
  logic                racc_q;     // an earlier read beat of the packet was an error
  logic [BEATS_W-1:0]  k_q;        // index of rdat_q in its packet
  logic                last_beat, lo_emit, hi_emit;

  always_ff @(posedge clk) begin
    rv_q <= r_valid;
    if (rst) rv_q <= 1'b0;
  end

  // (the data registers load every cycle: their value matters only with a beat, and no
  // clock enable then fans out to 512 flops)
  always_ff @(posedge clk) begin
    rdat_q <= r_data;
    rerr_q <= r_resp[1];
  end

  assign last_beat  = (k_q == info.n_src - BEATS_W'(1));
  assign lo_emit    = (info.slane != '0) && (k_q != '0);
  assign hi_emit    = (info.slane == '0) || (last_beat && info.n_p == info.n_src);
  assign info_ready = rv_q && last_beat;

  always_ff @(posedge clk) begin
    if (rv_q) begin
      k_q    <= last_beat ? '0 : k_q + BEATS_W'(1);
      racc_q <= !last_beat && (racc_q || rerr_q);
    end
    if (rst) begin  // last: overrides (docs/development.md)
      k_q    <= '0;
      racc_q <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- R2: the data
  // Registered from R1: the beat (rotated by slane mod 8 bytes), what it yields, the lanes
  // the low half takes from rp (lanes below 64 - slane of a beat with lo_emit), and the
  // controls of the 512-bit selections as a copy per 64-bit group (kept as separate
  // flops, which synthesis would otherwise merge: each copy drives 64 selections instead
  // of 512): the rotation amount and the pending flag. act_q (a beat or a pending beat)
  // is the clock enable of the data registers; the R1 beat loads every cycle (its value
  // matters only with a beat).
  logic                       v2_q, lo2_q, hi2_q, last2_q, perr2_q, act_q;
  logic [DATA_W-1:0]          d2_q;
  logic [BEAT_BYTES-1:0]      sel2_q;
  logic [NG-1:0][LANE_W-1:0]  sl2_q;
  logic [NG-1:0]              pv_q;      // pend_v_q, a copy per group
  logic                       pend_v_q;  // the pending register holds a packed beat
  logic                       store;     // the second of two halves goes into it

  assign store = pend_v_q ? (lo2_q || hi2_q) : (lo2_q && hi2_q);

  always_ff @(posedge clk) begin
    v2_q    <= rv_q;
    lo2_q   <= rv_q && lo_emit;
    hi2_q   <= rv_q && hi_emit;
    last2_q <= rv_q && last_beat;
    act_q   <= rv_q || store;
    if (rst) begin
      v2_q    <= 1'b0;
      lo2_q   <= 1'b0;
      hi2_q   <= 1'b0;
      last2_q <= 1'b0;
      act_q   <= 1'b0;
    end
  end

  // the beat rotated by the low bits of slane (the first rotation stages: moves of up to
  // 4 bytes, so short wires for the one select net of each; computed only with a beat)
  always_ff @(posedge clk) begin
    if (rv_q) d2_q <= rot_r_lo(rdat_q, {NG{info.slane}});
    perr2_q <= racc_q || rerr_q;
    sel2_q  <= lo_emit ? {BEAT_BYTES{1'b1}} >> info.slane : '0;
  end

  (* keep *) always_ff @(posedge clk) begin
    for (int g = 0; g < int'(NG); g++) begin
      sl2_q[g] <= info.slane;
      pv_q[g]  <= store;
    end
    if (rst) pv_q <= '0;
  end

  // rc = the beat rotated right by slane bytes (the rest of the rotation); rp = rc of the
  // packet's beat before. The low half of {beat k, beat k-1} >> 8*slane is rp in the sel2
  // lanes, rc above; the high half is rc. Out in order: the pending beat, the low half,
  // the high half; the first goes out, the second waits in the pending register. Each
  // data register is written once, after every read of it (docs/sim.md "Speed").
  logic [DATA_W-1:0] rp_q, pend_q, o_data_q;

  // (computed in this block: evaluated only with a beat or a pending beat)
  always_ff @(posedge clk) begin
    if (act_q) begin
      logic [DATA_W-1:0] rc, m, pv, lo;
      rc = rot_r_hi(d2_q, sl2_q);
      m  = lane_bits_of(sel2_q);
      pv = group_bits(pv_q);
      lo = (rp_q & m) | (rc & ~m);
      // the pending beat, else the low half (which is rc without lo_emit)
      o_data_q <= (pend_q & pv) | (lo & ~pv);
      // with a pending beat out, the one half emitted; else the high half
      if (store) pend_q <= (lo & pv) | (rc & ~pv);
      if (v2_q)  rp_q   <= rc;
    end
  end

  // Valid flags, and the read status of a packet with its last packed beat: now when that
  // beat goes out in this cycle, with the pending register when it waits there.
  logic pperr_q, pperr_v_q, o_valid_q, o_perr_v_q, o_perr_q;

  always_ff @(posedge clk) begin
    o_valid_q  <= pend_v_q || lo2_q || hi2_q;
    pend_v_q   <= store;
    o_perr_v_q <= pend_v_q ? pperr_q : (last2_q && !store);
    o_perr_q   <= pend_v_q ? pperr_v_q : perr2_q;
    if (store) begin
      pperr_q   <= last2_q;
      pperr_v_q <= perr2_q;
    end
    if (rst) begin
      o_valid_q  <= 1'b0;
      pend_v_q   <= 1'b0;
      o_perr_v_q <= 1'b0;
      pperr_q    <= 1'b0;
    end
  end

  assign o_valid      = o_valid_q;
  assign o_data       = o_data_q;
  assign o_perr_valid = o_perr_v_q;
  assign o_perr       = o_perr_q;

`ifndef SYNTHESIS
  // read data comes only for a read command; the pending register never overflows
  always_ff @(posedge clk) begin
    if (rv_q)
      if (!rst) assert (info_valid)
        else $error("qrdma_tx_realign: read data without a read command");
    if (pend_v_q)
      if (!rst) assert (!(lo2_q && hi2_q))
        else $error("qrdma_tx_realign: packed beat lost (pending register full)");
  end
`endif

endmodule

`default_nettype wire
