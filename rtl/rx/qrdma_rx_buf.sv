// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_rx_buf: the store-and-forward receive buffer of qrdma_rx with its CRC check
// (docs/nic.md "Receive unit"; [RSN] §3.2). Packets arrive on s_axis_rx (512-bit beats,
// beat 0 the header, CRC-32 of all tkeep bytes in tuser of the last beat). The header
// beat goes into a header FIFO (pushed at the packet's last beat, with the payload beat
// count), the payload beats into a ring of BUF_BEATS beats (qrdma_sdp_ram) as they are.
// Every beat also goes to the CRC (qrdma_crc32_512) through a realigner that packs the
// payload from lane 0; the CRC result is compared with the packet's tuser as it comes.
// Inside (realigner, evaluation cost): docs/modules.md#qrdma_rx_buf.
//
// Contract: a packet leaves on m_hdr_* once its CRC is known, with m_hdr_crc_ok =
// (CRC == tuser), and once the result of its header check is known: every header is
// given out on m_new_* (a pulse, in the cycle after the packet's last beat) to a checker
// that answers each, in order, on s_chk_* (no backpressure, any number of cycles later);
// m_hdr_chk_ok is its answer. Nothing here drops a packet: the header processor decides and then
// reads (rd_en) or releases (skip_en) the payload beats, in order. Flow control
// (lossless): a header beat is taken while the header FIFO has room, a payload beat while
// the ring has room. A packet with more than MAX_PAYLOAD/64 + 1 payload beats (longer than
// any legal one) keeps only that many in the ring, the rest is taken and dropped and
// m_hdr_long is set, so a malformed packet cannot stall the unit.
// Timing: last beat taken in cycle n -> CRC beat registered into the CRC at n+3 (n+4
// with the flush; the realigner's two rotation stages) -> CRC result at n+3+LATENCY (+1)
// -> both FIFOs' heads at n+4+LATENCY (+1) -> m_hdr_valid (the output register slice) at
// n+5+LATENCY (+1) (LATENCY = 6 with the CRC's DATA_PIPE and CORR_PIPE: n+11 or n+12). rd_data is valid two cycles after rd_en
// (the ring's output register); skip_en must not come with rd_en.
`default_nettype none

module qrdma_rx_buf
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
  import qrdma_bench_pkg::crc_view;
  import qrdma_rx_pkg::*;
  import qrdma_tx_pkg::NG, qrdma_tx_pkg::LANE_W;
  import qrdma_tx_pkg::rot_r_lo, qrdma_tx_pkg::rot_r_hi, qrdma_tx_pkg::lane_bits_of;
#(
  parameter int unsigned MAX_PAYLOAD = 1024, // largest DATA payload in bytes (256..4096, power of 2)
  parameter int unsigned BUF_BEATS   = 256,  // payload beats the ring holds (power of 2, >= MAX_PAYLOAD/64 + 1)
  parameter int unsigned HDR_DEPTH   = 64,   // header FIFO depth: takes HDR_DEPTH - 2 packets
  localparam int unsigned PW         = idx_w(BUF_BEATS),  // ring index bits
  localparam int unsigned OPW        = cnt_w(HDR_DEPTH + 1)  // packets held: FIFO + 2 in the slice
) (
  input  logic              clk,
  input  logic              rst,
  // network in
  input  logic [511:0]      s_axis_rx_tdata,
  input  logic [63:0]       s_axis_rx_tkeep,
  input  logic              s_axis_rx_tlast,
  input  logic [31:0]       s_axis_rx_tuser,   // CRC-32 of the packet on its last beat
  input  logic              s_axis_rx_tvalid,
  output logic              s_axis_rx_tready,
  // packets in arrival order, once their CRC is known
  output logic              m_hdr_valid,
  input  logic              m_hdr_ready,
  output net_hdr_t          m_hdr,             // header
  output logic [NBW-1:0]    m_hdr_nbeats,      // payload beats in the ring
  output logic              m_hdr_long,        // more payload beats came than the ring kept
  output logic              m_hdr_crc_ok,      // CRC matches tuser
  output logic              m_hdr_chk_ok,      // the header check's answer (s_chk_ok)
  // every header as it is stored (a pulse) and the check's answers, in the same order
  output logic              m_new_valid,
  output net_hdr_t          m_new_hdr,
  input  logic              s_chk_valid,
  input  logic              s_chk_ok,
  // payload beats, in order: read one (rd_data two cycles later) or release skip_beats
  input  logic              rd_en,
  output logic [511:0]      rd_data,           // two cycles after rd_en
  input  logic              skip_en,
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic [NBW-1:0]    skip_beats,        // < BUF_BEATS: only the ring index bits are used
  /* verilator lint_on UNUSEDSIGNAL */
  // occupancy (for the NIC's state snapshot and stall counters)
  output logic [PW:0]       occ_beats,     // payload beats in the ring
  output logic [OPW-1:0]    occ_pkts           // packets (headers) waiting, the output slice's too
);

  localparam int unsigned MAXB = MAX_PAYLOAD / 64 + 1;  // payload beats of the longest DATA
  localparam int unsigned HQW  = 512 + NBW + 1;
  localparam int unsigned TQ_DEPTH = 16;  // packets between their last beat and their CRC

`ifndef SYNTHESIS
  initial begin
    if (MAX_PAYLOAD < 256 || MAX_PAYLOAD > 4096 || (MAX_PAYLOAD & (MAX_PAYLOAD - 1)) != 0)
      $fatal(1, "qrdma_rx_buf: MAX_PAYLOAD must be a power of 2 in 256..4096");
    if ((BUF_BEATS & (BUF_BEATS - 1)) != 0 || BUF_BEATS < MAXB)
      $fatal(1, "qrdma_rx_buf: BUF_BEATS must be a power of 2 >= MAX_PAYLOAD/64 + 1");
    if (HDR_DEPTH < 3) $fatal(1, "qrdma_rx_buf: HDR_DEPTH must be >= 3");
  end
`endif

  // ------------------------------------------------------------------ input side
  logic               in_pkt_q;            // the next beat is a payload beat
  logic [255:0]       hhi_q;               // header beat of the packet being received
  logic [255:0]       hlo_q;
  logic [NBW-1:0]     nb_q;                // payload beats stored so far
  logic               long_q;
  logic [PW:0]        wr_ptr_q, rd_ptr_q;  // ring pointers with a wrap bit
  logic [PW:0]        used;
  logic               store_ok_q, room_q, hroom_q, last_q, in_fire, hdr_beat, pl_wr;
  logic [31:0]        tuser_q;
  logic               hq_s_ready, hq_af, hq_m_valid, cq_m_valid;
  logic [HQW-1:0]     hq_s_data, hq_m_data;
  logic [NBW-1:0]     nb_n;                // nb_q with a payload beat taken now

  assign hdr_beat = !in_pkt_q;
  assign used     = wr_ptr_q - rd_ptr_q;
  // header beat: the header FIFO has room (the packet's entry is pushed in the cycle
  // after its last beat; no other push happens before that but the previous packet's);
  // payload beat: the ring has room, or the beat is beyond what a legal packet has and is
  // dropped anyway. All three are registered: hroom_q = the header FIFO held at most
  // HDR_DEPTH - 3 entries in the cycle before, so it has room for the previous packet's
  // entry and this one's (it holds at most HDR_DEPTH - 1 packets, takes HDR_DEPTH - 2
  // before it holds back a header); store_ok_q = (nb_q < MAXB); room_q = the ring held at
  // most BUF_BEATS - 3 beats in the cycle before, so it holds at most BUF_BEATS - 2 now
  // and at most BUF_BEATS - 1 after this beat: the slot at wr_ptr is always free (the
  // ring's write, below).
  assign s_axis_rx_tready = hdr_beat ? hroom_q : (!store_ok_q || room_q);
  assign in_fire = s_axis_rx_tvalid && s_axis_rx_tready;
  assign pl_wr   = in_fire && !hdr_beat && store_ok_q;

  // Header FIFO entry, pushed from registers in the cycle after the packet's last beat
  // (last_q): header bits 511:256, payload beats, long, header bits 255:0. nb_n assumes
  // the beat is taken: it is used only with the handshake, so the count's next value does
  // not wait for tready.
  assign nb_n      = store_ok_q ? nb_q + NBW'(1) : nb_q;
  assign hq_s_data = {hhi_q, nb_q, long_q, hlo_q};

  // loaded in every header-beat cycle, taken or not (no enable from tready): the last
  // load before the header beat's handshake is the beat itself (AXI-Stream holds tdata
  // until the handshake); the entry is pushed before the next header beat's load
  always_ff @(posedge clk) begin
    if (hdr_beat) begin
      hhi_q <= s_axis_rx_tdata[511:256];
      hlo_q <= s_axis_rx_tdata[255:0];
    end
  end

  always_ff @(posedge clk) begin
    last_q  <= in_fire && s_axis_rx_tlast;
    tuser_q <= s_axis_rx_tuser;   // the last beat's, with last_q
    if (in_fire) begin
      in_pkt_q <= !s_axis_rx_tlast;
      if (hdr_beat) begin
        nb_q       <= '0;
        long_q     <= 1'b0;
        store_ok_q <= 1'b1;
      end else begin
        nb_q       <= nb_n;
        long_q     <= long_q || !store_ok_q;
        if (pl_wr) store_ok_q <= (nb_q < NBW'(MAXB - 1));
      end
    end
    if (pl_wr) wr_ptr_q <= wr_ptr_q + (PW+1)'(1);
    room_q  <= (used <= (PW+1)'(BUF_BEATS - 3));
    hroom_q <= !hq_af;
    if (rst) begin  // last: overrides (docs/development.md)
      last_q     <= 1'b0;
      in_pkt_q   <= 1'b0;
      nb_q       <= '0;
      long_q     <= 1'b0;
      store_ok_q <= 1'b1;
      wr_ptr_q   <= '0;
      room_q     <= 1'b0;
      hroom_q    <= 1'b0;
    end
  end

  // Header FIFO: one entry per packet, pushed at its last beat.
  logic [cnt_w(HDR_DEPTH)-1:0] hq_count;
  /* verilator lint_off UNUSEDSIGNAL */
  logic                        cq_af, cq_s_ready;
  /* verilator lint_on UNUSEDSIGNAL */
  logic                        hq_pop;

  // FREE_READ: the block RAMs read in every cycle, the pop reaches only the FIFO's small
  // skid FIFO after them, not the block RAMs' enables
  qrdma_sync_fifo #(.WIDTH(HQW), .DEPTH(HDR_DEPTH), .ALMOST_FULL(HDR_DEPTH - 2),
                    .FREE_READ(1'b1)) u_hdr_fifo (
    .clk, .rst,
    .s_valid(last_q), .s_ready(hq_s_ready), .s_data(hq_s_data),
    .m_valid(hq_m_valid), .m_ready(hq_pop), .m_data(hq_m_data),
    .count(hq_count), .almost_full(hq_af)
  );

  // ------------------------------------------------------------------ ring
  // Written in every cycle at wr_ptr (the beat on s_axis_rx_tdata, taken or not; wr_ptr
  // moves on with a stored beat): the slot at wr_ptr is free (the ring holds at most
  // BUF_BEATS - 1 beats), so a beat not stored is overwritten by the next one, and the
  // write enable is constant (no enable fans out from tvalid and tready to the block
  // RAMs). Read in every cycle at rd_ptr and through the output register, which loads in
  // every cycle: the beat at rd_ptr in the cycle of rd_en is rd_data two cycles later (no
  // enable fans out from the handshake). RDW_ANY: a read whose data is used is of a beat
  // of a packet already complete, never at the slot being written.
  qrdma_sdp_ram #(.WIDTH(512), .DEPTH(BUF_BEATS), .OUT_REG(1'b1), .RDW_ANY(1'b1)) u_ring (
    .clk,
    .wr_en(1'b1), .wr_be(1'b1), .wr_addr(wr_ptr_q[PW-1:0]), .wr_data(s_axis_rx_tdata),
    .rd_en(1'b1), .rd_addr(rd_ptr_q[PW-1:0]), .rd_oe(1'b1), .rd_data(rd_data)
  );

  always_ff @(posedge clk) begin
    if (skip_en)    rd_ptr_q <= rd_ptr_q + (PW+1)'(skip_beats);
    else if (rd_en) rd_ptr_q <= rd_ptr_q + (PW+1)'(1);
    if (rst) rd_ptr_q <= '0;
  end

  // ------------------------------------------------------------------ CRC realigner
  // Control in the cycle a beat is taken (t): what the held beat and the new one make
  // (emit, its last flag, whether the new beat's bytes count). Data: every held beat is
  // rotated right by its own amount (0 for a header, sh for a payload beat) in two
  // register stages, R1 (moves of up to 4 bytes) and R2 (the rest, with the merge): in
  // t+2 the held beat's rotation (rp_q) and the new one's (rc) are merged by the lanes
  // below 64 - sh, the CRC beat registered at t+3. The rotation amounts have a copy per
  // 64-bit group (kept as separate flops, which synthesis would otherwise merge: each copy
  // drives 64 selections per stage, not 512).
  logic           pv_q;     // a held beat with bytes still to emit
  logic           pf_q;     // the next beat is its packet's first payload beat
  logic           ph_q;     // it is a header beat
  logic           pl_q;     // it is the last beat of its packet
  logic [511:0]   pd_q;
  logic [63:0]    pk_q;
  logic [63:0]    pkr_q;    // its keep rotated by the low bits of esh_q (see R2)
  logic [5:0]     esh;      // rotation amount of the beat taken now
  logic [5:0]     esh_q;    // the held beat's (one copy, for the narrow selections)
  logic [NG-1:0][LANE_W-1:0] eshg_q;   // the same, a copy per group
  logic [63:0]    rest_q;   // lanes >= sh of the current packet
  logic           emit, emit_last, cur_rest, cur_same;

  // lowest set bit of a keep (0 for none)
  function automatic logic [5:0] first_lane(input logic [63:0] k);
    logic [5:0] r = '0;
    for (int i = 63; i >= 0; i--) if (k[i]) r = 6'(i);
    return r;
  endfunction

  // a keep rotated right by the lanes of the bits k0..k1-1 of s (all six bits: lane i of
  // it is lane (i + s) mod 64 of k), as stages of 2:1 selections
  function automatic logic [63:0] rot_keep(input logic [63:0] k, input logic [5:0] s,
                                           input int unsigned k0, input int unsigned k1);
    logic [63:0] y = k;
    for (int unsigned b = 0; b < 6; b++)
      if (b >= k0 && b < k1 && s[b]) y = 64'({y, y} >> (1 << b));
    return y;
  endfunction

  // the beat taken now is a payload beat of the held beat's packet
  assign cur_same = in_fire && !hdr_beat;
  // the new (last) beat has bytes at lanes >= sh that a later CRC beat must carry
  assign cur_rest  = |(s_axis_rx_tkeep & rest_q);

  always_comb begin
    emit      = 1'b0;
    emit_last = 1'b0;
    if (pv_q && ph_q) begin
      // header: emitted as it is when the next beat comes or, if it ends its packet,
      // as soon as no beat comes
      emit      = in_fire || pl_q;
      emit_last = pl_q;
    end else if (pv_q && pl_q) begin
      emit      = 1'b1;            // tail of the last payload beat
      emit_last = 1'b1;
    end else if (pv_q && in_fire) begin
      emit      = 1'b1;            // held payload beat + head of the new one
      emit_last = s_axis_rx_tlast && !cur_rest;   // the new beat is spent too
    end
  end

  // the held-beat flag's next value for a beat taken now (not when the new beat is spent
  // with the held one: the last branch above with emit_last) and for none (a
  // held last beat is flushed), both without the handshake, which only selects: the
  // payload-tail test (cur_rest) runs beside tready, not after it
  logic pv_take, pv_idle;
  assign pv_take = !(pv_q && !ph_q && !pl_q && s_axis_rx_tlast && !cur_rest);
  assign pv_idle = pv_q && !pl_q;
  always_ff @(posedge clk) begin
    pv_q <= in_fire ? pv_take : pv_idle;
    if (rst) pv_q <= 1'b0;
  end

  // a header is not rotated; a packet's payload beats by the first kept lane of its first
  // payload beat (where the payload starts)
  always_comb begin
    esh = esh_q;
    if (hdr_beat)  esh = '0;
    else if (pf_q) esh = first_lane(s_axis_rx_tkeep);
  end

  always_ff @(posedge clk) begin
    if (in_fire) begin
      // (a stamped header as its CRC takes it: qrdma_bench_pkg::crc_view)
      pd_q  <= hdr_beat ? crc_view(s_axis_rx_tdata) : s_axis_rx_tdata;
      pk_q  <= s_axis_rx_tkeep;
      ph_q  <= hdr_beat;
      pl_q  <= s_axis_rx_tlast;
      esh_q <= esh;
      pf_q  <= hdr_beat;
      if (!hdr_beat && pf_q) rest_q <= {64{1'b1}} << first_lane(s_axis_rx_tkeep);
      pkr_q <= rot_keep(s_axis_rx_tkeep, esh_q, 0, 3);
    end
  end

  (* keep *) always_ff @(posedge clk) begin
    for (int g = 0; g < int'(NG); g++) if (in_fire) eshg_q[g] <= esh;
  end

  // R1 (t+1): the held beat of t, rotated by up to 4 bytes, its keep by up to 7 lanes; the
  // lanes the held beat gives a CRC beat (below 64 - its amount); the control of t.
  logic [511:0]              r1_q;
  logic [63:0]               kl1_q, m1_q;
  logic [NG-1:0][LANE_W-1:0] sh1_q;
  logic [5:0]                shk1_q;   // the amount, a copy for the keep's rotation
  logic                      e1_q, el1_q, es1_q;

  always_ff @(posedge clk) begin
    r1_q  <= rot_r_lo(pd_q, eshg_q);
    kl1_q <= rot_keep(pk_q, esh_q, 0, 3);
    m1_q  <= {64{1'b1}} >> esh_q;
    e1_q  <= emit;
    el1_q <= emit_last;
    es1_q <= cur_same;
    if (rst) begin  // (the last flags too: flops, not a shift register before the CRC)
      e1_q  <= 1'b0;
      el1_q <= 1'b0;
    end
  end

  (* keep *) always_ff @(posedge clk) begin
    for (int g = 0; g < int'(NG); g++) sh1_q[g] <= eshg_q[g];
    shk1_q <= esh_q;
  end

  // R2 (t+2): rc = the beat of R1 rotated whole (the beat held in t+1: the new beat of t
  // when one came); rp_q = the rotation of R1's beat one cycle before (the held beat of
  // t). The CRC beat (read by the CRC only with cv_q): the held beat's lanes below
  // 64 - sh, the new beat's above, whose bytes count (keep) only when it is a payload beat
  // of the same packet. The data is zero outside the CRC beat's keep (the CRC's
  // KEEP_ZERO: the masks are here, where each lane's select is a register, not in the
  // CRC's XOR trees): selp_q / selc_q = the lanes taken from the held / the new beat
  // within their keep, registered at t+1, each keep's rotation split over two register
  // stages: selp_q from R1's keep (kl1_q, rotated by the rest of its amount) and lanes;
  // selc_q from the new beat's keep, rotated by the low bits of esh_q when it was taken
  // (pkr_q) and by the rest now, and R1's lanes. selc_q has lanes only for a payload beat
  // after the first (the first follows a header, amount 0, which gives no lanes), and
  // such a beat's amount is esh_q when it is taken: the split rotation is the whole one.
  // The CRC beat's keep is their OR. A header (amount 0) is the held beat whole. The data
  // registers load in every cycle (no enable fans out to them).
  logic [511:0]   rc, rp_q;
  logic [63:0]    selp_q, selc_q;
  logic           e2_q, el2_q;
  logic           cv_q, cl_q;  // CRC beat registered for the CRC block
  logic [511:0]   cd_q;
  logic [63:0]    ck_q;

  assign rc = rot_r_hi(r1_q, sh1_q);

  always_ff @(posedge clk) begin
    rp_q   <= rc;
    e2_q   <= e1_q;
    el2_q  <= el1_q;
    selp_q <= rot_keep(kl1_q, shk1_q, 3, 6) & m1_q;
    selc_q <= rot_keep(pkr_q, esh_q, 3, 6) & ~m1_q & {64{es1_q}};
    cd_q   <= (rp_q & lane_bits_of(selp_q)) | (rc & lane_bits_of(selc_q));
    ck_q   <= selp_q | selc_q;
    cv_q   <= e2_q;
    cl_q   <= el2_q;
    if (rst) begin
      e2_q  <= 1'b0;
      el2_q <= 1'b0;
      cv_q  <= 1'b0;
      cl_q  <= 1'b0;
    end
  end

  logic        crc_valid;
  logic [31:0] crc;

  qrdma_crc32_512 #(.KEEP_ZERO(1'b1), .DATA_PIPE(1'b1), .CORR_PIPE(1'b1)) u_crc (
    .clk, .rst,
    .s_valid(cv_q), .s_data(cd_q), .s_keep(ck_q), .s_last(cl_q),
    .m_valid(crc_valid), .m_crc(crc)
  );

  // tuser of each packet, pushed from a register in the cycle after its last beat (with
  // the header entry), compared with the packet's CRC result as it comes (results come
  // in packet order, at least four cycles after the last beat). A result comes at most
  // LATENCY + 4 cycles after its last beat, so at most that many tusers wait (asserted).
  // The FIFO's head is a register (HEAD_REG): the compare starts at a register, not at
  // a LUT-RAM read.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [cnt_w(TQ_DEPTH)-1:0]  tq_count;
  logic                        tq_af, tq_m_valid;
  /* verilator lint_on UNUSEDSIGNAL */
  logic                        tq_s_ready;
  logic [31:0]                 tq_m_data;

  qrdma_sync_fifo #(.WIDTH(32), .DEPTH(TQ_DEPTH), .HEAD_REG(1'b1)) u_tuser_fifo (
    .clk, .rst,
    .s_valid(last_q), .s_ready(tq_s_ready), .s_data(tuser_q),
    .m_valid(tq_m_valid), .m_ready(crc_valid), .m_data(tq_m_data),
    .count(tq_count), .almost_full(tq_af)
  );

  // CRC checks in packet order. A result comes after its packet's header entry was
  // pushed and both FIFOs pop together, so this FIFO never holds more than the header
  // FIFO: it is never full when a result comes. LUT RAM (no block-RAM latency).
  logic cq_m_data;

  /* verilator lint_off PINCONNECTEMPTY */  // count: not used (its valid is a register)
  qrdma_sync_fifo #(.WIDTH(1), .DEPTH(HDR_DEPTH), .RAM_MIN_DEPTH(HDR_DEPTH + 1)) u_crc_fifo (
    .clk, .rst,
    .s_valid(crc_valid), .s_ready(cq_s_ready), .s_data(crc == tq_m_data),
    .m_valid(cq_m_valid), .m_ready(hq_pop), .m_data(cq_m_data),
    .count(), .almost_full(cq_af)
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // The header checks' answers, in packet order: a check answers after its header entry
  // was pushed and the three FIFOs pop together, so this FIFO never holds more than the
  // header FIFO (LUT RAM, as the CRC's).
  logic kq_m_valid, kq_m_data;
  /* verilator lint_off UNUSEDSIGNAL */
  logic kq_s_ready, kq_af;
  /* verilator lint_on UNUSEDSIGNAL */

  assign m_new_valid = last_q;
  assign m_new_hdr   = net_hdr_t'({hhi_q, hlo_q});

  /* verilator lint_off PINCONNECTEMPTY */  // count: not used
  qrdma_sync_fifo #(.WIDTH(1), .DEPTH(HDR_DEPTH), .RAM_MIN_DEPTH(HDR_DEPTH + 1)) u_chk_fifo (
    .clk, .rst,
    .s_valid(s_chk_valid), .s_ready(kq_s_ready), .s_data(s_chk_ok),
    .m_valid(kq_m_valid), .m_ready(hq_pop), .m_data(kq_m_data),
    .count(), .almost_full(kq_af)
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // ------------------------------------------------------------------ output
  // The joined head of the three FIFOs (a packet's header entry, its CRC check and its
  // header check) goes through a register slice: the FIFOs pop when all heads are there
  // and the slice's registered ready is high, so the pops (the header FIFO's block-RAM
  // read enable among them) come from registers of this block, not from m_hdr_ready; the
  // joined valid is an AND of the FIFOs' valid registers. A header leaves one cycle after
  // all heads are there.
  logic              j_valid, j_ready, m_fire;
  logic [HQW+1:0]    j_data, o_data;
  logic [1:0]        sl_n_q;    // headers in the slice

  assign j_valid = hq_m_valid && cq_m_valid && kq_m_valid;
  assign hq_pop  = j_valid && j_ready;
  assign j_data  = {hq_m_data, kq_m_data, cq_m_data};
  assign m_fire  = m_hdr_valid && m_hdr_ready;

  always_ff @(posedge clk) begin
    sl_n_q <= sl_n_q + 2'(hq_pop) - 2'(m_fire);
    if (rst) sl_n_q <= '0;
  end

  qrdma_reg_slice #(.WIDTH(HQW + 2)) u_out (
    .clk, .rst,
    .s_valid(j_valid), .s_ready(j_ready), .s_data(j_data),
    .m_valid(m_hdr_valid), .m_ready(m_hdr_ready), .m_data(o_data)
  );

  assign {m_hdr[511:256], m_hdr_nbeats, m_hdr_long, m_hdr[255:0], m_hdr_chk_ok,
          m_hdr_crc_ok} = o_data;
  assign occ_beats      = used;
  assign occ_pkts       = OPW'(hq_count) + OPW'(sl_n_q);

`ifndef SYNTHESIS
  // each check nested under its valid (docs/development.md)
  always_ff @(posedge clk) begin
    if (s_chk_valid)
      if (!rst) assert (kq_s_ready) else $error("qrdma_rx_buf: check answer lost (FIFO full)");
    if (crc_valid)
      if (!rst) assert (cq_s_ready && tq_m_valid)
        else $error("qrdma_rx_buf: CRC result lost (FIFO full) or without its tuser");
    if (last_q)
      if (!rst) assert (hq_s_ready && tq_s_ready)
        else $error("qrdma_rx_buf: header or tuser FIFO full at a push");
    if (rd_en)
      if (!rst) assert (!skip_en) else $error("qrdma_rx_buf: skip_en with rd_en");
    // the new beat's keep rotated in two stages is its whole rotation where it gives lanes
    if (es1_q && ~m1_q != '0)
      if (!rst) assert (rot_keep(pkr_q, esh_q, 3, 6) == rot_keep(pk_q, esh_q, 0, 6))
        else $error("qrdma_rx_buf: the new beat's amount changed after it was taken");
    // the ring's write in every cycle needs the slot at wr_ptr free
    if (!rst) assert (used <= (PW+1)'(BUF_BEATS - 1))
      else $error("qrdma_rx_buf: ring holds %0d beats, its write slot is not free", used);
  end
`endif

endmodule

`default_nettype wire
