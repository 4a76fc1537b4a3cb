// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_tx_asm: the packet assembler and output stage of the send unit (docs/nic.md
// "Send unit", "Packet format"; CRC per packet, [FPGA-NI] §2.4). Takes packet jobs in
// link order: the header beat, then for a DATA packet its n_out payload beats, made from
// the n_p packed beats of the payload buffer moved to the destination lane, the lanes
// outside tkeep zero. The CRC (qrdma_crc32_512, on the packed view) goes into tuser of the
// last beat: an output buffer delays the stream until it is known. Inside (decision and
// beat pipeline, beat rotation, CRC and output buffer, evaluation cost):
// docs/modules.md#qrdma_tx_asm.
//
// Contract: a DATA header waits for its packet's read status (perr, one per DATA packet,
// in order), which the caller offers only once all n_p packed beats of the packet are in
// the payload buffer and reach its head in time (the assembler's own FIFO of read
// statuses only delays it): the assembler takes one payload beat
// (pay_ready) two cycles after it decided it, without looking at pay_valid, so a packet
// never stalls in the middle. A packet whose payload read was answered SLVERR/DECERR is
// not sent; its packed beats are released and a local NACK (tid, seq, reason
// ERR_LOCAL_MEM) goes to the QoS engine (m_lnack), unless it is a read response (resp
// set: its TID is the requester's, who sends its READ_REQ again after its timeout). Responses (one-beat ACK/NACK packets,
// rsp_hdr) are taken before the next request-class job at every packet boundary. The
// last beat is offered (tvalid) only with its CRC; at full rate the delay costs no
// bubbles after the first packet of a burst.
// Timing: a job taken in cycle t (read status present) -> its header beat is decided in
// t+1, enters the output buffer at the end of t+3 -> m_axis_tx_tvalid in t+4 for a
// multi-beat packet, in t + LATENCY + 5 for a one-beat packet (the CRC); a response at
// the input in t is decided in t. Payload beat j is decided in t+2+j. Stats pulse in the
// cycle a last beat is taken.
`default_nettype none

module qrdma_tx_asm
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
  import qrdma_tx_pkg::*;
  import qrdma_bench_pkg::*;
#(
  parameter int unsigned  OUT_DEPTH = 16   // beats of the output buffer (> CRC LATENCY + 4)
) (
  input  logic                  clk,
  input  logic                  rst,
  // packet jobs (show-ahead)
  input  logic                  job_valid,
  output logic                  job_ready,
  input  job_t                  job,
  // responses: one-beat packets (their header beat), taken first at a packet boundary
  input  logic                  rsp_valid,
  output logic                  rsp_ready,
  input  logic [DATA_W-1:0]     rsp_hdr,
  // read status of the DATA packets, in order (1: a read beat was SLVERR/DECERR); offered
  // once the packet's payload is in the payload buffer (see header)
  input  logic                  perr_valid,
  output logic                  perr_ready,
  input  logic                  perr,
  // local NACKs (ACK_DESC) of DATA packets not sent
  output logic                  m_lnack_valid,
  input  logic                  m_lnack_ready,
  output logic [ACK_DESC_W-1:0] m_lnack_data,
  // packed payload beats (show-ahead)
  /* verilator lint_off UNUSEDSIGNAL */  // checked in simulation only (see header)
  input  logic                  pay_valid,
  /* verilator lint_on UNUSEDSIGNAL */
  output logic                  pay_ready,
  input  logic [DATA_W-1:0]     pay_data,
  // the link
  output logic [DATA_W-1:0]     m_axis_tx_tdata,
  output logic [BEAT_BYTES-1:0] m_axis_tx_tkeep,
  output logic                  m_axis_tx_tlast,
  output logic [31:0]           m_axis_tx_tuser,
  output logic                  m_axis_tx_tvalid,
  input  logic                  m_axis_tx_tready,
  // stat pulses: the last beat of a packet is taken in this cycle
  output logic                  stat_data_pkt,
  output logic                  stat_ctrl_pkt,
  output logic [LEN_W-1:0]      stat_bytes,
  output logic                  stat_mem_err,  // a DATA packet dropped: read error (pulse)
  output logic                  busy           // a job, read status or beat in the assembler
);

  localparam int unsigned OW = $bits(obeat_t);
  localparam int unsigned NL = BEAT_BYTES;
  localparam int unsigned JW = $bits(job_t) - DATA_W;  // a job's fields before its header
  localparam int unsigned JR_DEPTH = 2;  // jobs and read statuses held in the assembler
  localparam int unsigned ROT_D1 = ROT_SPLIT + 1;  // rotation stages in D1 (rot_r), the rest in D2:
                                                   // moves of up to 8 bytes, then of 16 and 32

  // ------------------------------------------------------------------ job, read status
  // The job and the read status pass through small FIFOs of the assembler before the
  // decision: job_ready and perr_ready are their s_ready registers, so the caller's pops
  // (block-RAM reads in qrdma_tx) depend on no logic of the decision, and the decision
  // reads the job's fields and the read status from registers (HEAD_REG). The job's
  // header, read only into registers, waits beside its fields in a FIFO whose pop moves
  // only a read pointer. Two entries keep one job per cycle.
  job_t              jb;          // the job at the head
  logic              jb_valid, jb_take;
  logic [JW-1:0]     jf;          // its fields
  logic [DATA_W-1:0] jh;          // its header
  logic              pe_valid, pe, pe_take;
  /* verilator lint_off UNUSEDSIGNAL */  // the two job FIFOs move together (u_jobf's flags)
  logic              jh_s_ready, jh_valid, jf_af, jh_af, pe_af;
  logic [cnt_w(JR_DEPTH)-1:0] jf_count, jh_count, pe_count;
  /* verilator lint_on UNUSEDSIGNAL */

  qrdma_sync_fifo #(.WIDTH(JW), .DEPTH(JR_DEPTH), .HEAD_REG(1'b1)) u_jobf (
    .clk         (clk),
    .rst         (rst),
    .s_valid     (job_valid),
    .s_ready     (job_ready),
    .s_data      (job[$bits(job_t)-1:DATA_W]),
    .m_valid     (jb_valid),
    .m_ready     (jb_take),
    .m_data      (jf),
    .count       (jf_count),
    .almost_full (jf_af)
  );

  qrdma_sync_fifo #(.WIDTH(DATA_W), .DEPTH(JR_DEPTH)) u_jobh (
    .clk         (clk),
    .rst         (rst),
    .s_valid     (job_valid),
    .s_ready     (jh_s_ready),
    .s_data      (job.hdr),
    .m_valid     (jh_valid),
    .m_ready     (jb_take),
    .m_data      (jh),
    .count       (jh_count),
    .almost_full (jh_af)
  );

  assign jb = job_t'({jf, jh});

  qrdma_sync_fifo #(.WIDTH(1), .DEPTH(JR_DEPTH), .HEAD_REG(1'b1)) u_perr (
    .clk         (clk),
    .rst         (rst),
    .s_valid     (perr_valid),
    .s_ready     (perr_ready),
    .s_data      (perr),
    .m_valid     (pe_valid),
    .m_ready     (pe_take),
    .m_data      (pe),
    .count       (pe_count),
    .almost_full (pe_af)
  );

  // ------------------------------------------------------------------ decision (D)
  // One beat per cycle is decided from registers: the job at the head, the response
  // register, the read status (the assembler's own FIFOs above), and the position in the head job's payload (registered
  // flags for the beat being decided: first, needs a packed beat, last packed beat, last
  // link beat; wl_q / pl_q count the link / packed beats after it).
  logic                  pay_q;      // in the payload beats of the head job
  logic                  skip_q;     // ... releasing them: the packet is dropped
  logic                  first_q, need_q, lw_q, lp_q;
  logic [BEATS_W-1:0]    wl_q, pl_q;
  logic                  ob_room;    // the output buffer takes a beat decided now
  logic                  hdr_go, pay_go, req_go, rsp_go, drop_go, skip_go, start, lnack_free;
  logic                  rsp_first;  // at a packet boundary with a response waiting
  logic [LANE_W:0]       end_sum;    // dlane + len mod 64: the lane after the packet's
                                     // last payload byte on the link, with its carry
  logic [LANE_W-1:0]     len_lo;     // len mod 64: the lane after its last packed byte

  assign rsp_first  = !pay_q && rsp_valid;
  assign lnack_free = !m_lnack_valid || m_lnack_ready;
  assign rsp_go     = rsp_first && ob_room;
  assign start      = !pay_q && !rsp_valid && jb_valid && (!jb.is_data || pe_valid);
  assign drop_go    = start && jb.is_data && pe && lnack_free;
  assign req_go     = start && !(jb.is_data && pe) && ob_room;
  assign hdr_go     = rsp_go || req_go;
  assign pay_go     = pay_q && !skip_q && ob_room;
  assign skip_go    = pay_q && skip_q;
  assign jb_take    = (req_go && !jb.is_data) || (pay_go && lw_q) || (skip_go && lp_q);
  assign rsp_ready  = rsp_go;
  assign pe_take    = (req_go || drop_go) && jb.is_data;
  assign len_lo     = LANE_W'(jb.len);
  assign end_sum    = (LANE_W + 1)'(jb.dlane) + (LANE_W + 1)'(len_lo);

  // The head job's lane masks, registered from its fields in every cycle in two steps:
  // its dlane, len mod 64, their sum and the wrap in registers of their own (the head
  // register then drives only a few flops here), the masks from those. They are used
  // only in D1 of its payload beats: a beat in D1 was decided a cycle before, its job was
  // at the head the cycle before that (its header or a payload beat decided then; a job
  // stays at the head until its last payload beat is decided), so D1 only selects among
  // them. Each is a shift by a lane number with no subtraction before it: the lanes below
  // the lane after the last byte (all lanes when that lane is 0); the packed bytes wrap
  // around on the link when dlane + len mod 64 is above 64 (with len mod 64 = 0: when
  // dlane is not 0).
  logic [LANE_W-1:0] mk_dl_q, mk_ll_q, mk_el_q;  // dlane, len mod 64, end_sum mod 64
  logic              mk_lz_q, mk_ez_q, mk_wrap_q; // len mod 64 = 0, end_sum mod 64 = 0, wrap
  logic [NL-1:0]     m_from_q;   // lanes dlane..63 (the first link beat)
  logic [NL-1:0]     m_to_q;     // lanes 0 up to the last byte's (the last link beat)
  logic [NL-1:0]     m_rot_q;    // the last packed beat's lanes rotated to the link lanes
  logic [NL-1:0]     m_pl_q;     // lanes 0 up to the last byte's (the last packed beat)

  always_ff @(posedge clk) begin
    mk_dl_q   <= jb.dlane;
    mk_ll_q   <= len_lo;
    mk_el_q   <= end_sum[LANE_W-1:0];
    mk_lz_q   <= (len_lo == '0);
    mk_ez_q   <= (end_sum[LANE_W-1:0] == '0);
    mk_wrap_q <= (len_lo == '0) ? (jb.dlane != '0)
                                : (end_sum[LANE_W] && end_sum[LANE_W-1:0] != '0);
  end

  always_ff @(posedge clk) begin
    logic [NL-1:0] from_dl, to_end;
    from_dl  = {NL{1'b1}} << mk_dl_q;
    to_end   = mk_ez_q ? '1 : ~({NL{1'b1}} << mk_el_q);
    m_from_q <= from_dl;
    m_to_q   <= to_end;
    // the packed beat's bytes land in lanes dlane on, up to the link's last lane (mod 64)
    m_rot_q  <= mk_wrap_q ? (from_dl | to_end) : (from_dl & to_end);
    m_pl_q   <= mk_lz_q ? '1 : ~({NL{1'b1}} << mk_ll_q);
  end

  always_ff @(posedge clk) begin
    if ((req_go && jb.is_data) || drop_go) begin
      pay_q   <= 1'b1;
      skip_q  <= drop_go;
      first_q <= 1'b1;
      need_q  <= 1'b1;
      lw_q    <= (jb.n_out == BEATS_W'(1));
      lp_q    <= (jb.n_p == BEATS_W'(1));
      wl_q    <= jb.n_out - BEATS_W'(1);
      pl_q    <= jb.n_p - BEATS_W'(1);
    end else if (pay_go || skip_go) begin
      pay_q   <= !(skip_q ? lp_q : lw_q);
      first_q <= 1'b0;
      need_q  <= (pl_q != '0);
      lw_q    <= (wl_q == BEATS_W'(1));
      lp_q    <= (pl_q == BEATS_W'(1));
      wl_q    <= wl_q - BEATS_W'(1);
      pl_q    <= pl_q - BEATS_W'(1);
    end
    if (rst) begin  // last: overrides
      pay_q  <= 1'b0;
      skip_q <= 1'b0;
    end
  end

  // local NACK of a dropped packet: its block's tid and seq from the header
  always_ff @(posedge clk) begin
    if (drop_go) begin
      ack_desc_t a;
      /* verilator lint_off UNUSEDSIGNAL */  // tid and seq are read
      net_hdr_t  h;
      /* verilator lint_on UNUSEDSIGNAL */
      h = net_hdr_t'(jb.hdr);
      a        = '0;
      a.tid    = h.tid;
      a.seq    = h.seq;
      a.nack   = 1'b1;
      a.reason = 4'(ERR_LOCAL_MEM);
      m_lnack_data <= a;
    end
    if (drop_go && !jb.hdr[NET_HDR_RESP_LSB]) m_lnack_valid <= 1'b1;
    else if (m_lnack_ready) m_lnack_valid <= 1'b0;
    stat_mem_err <= drop_go;
    if (rst) begin
      m_lnack_valid <= 1'b0;
      stat_mem_err  <= 1'b0;
    end
  end

  // The decided beat, registered for D1 (loaded every cycle; used with c1_v_q / c1_pop_q).
  // The controls of the wide data path have a copy per 64-bit group (below).
  logic              c1_v_q, c1_pop_q, c1_first_q, c1_last_q, c1_isd_q, c1_crc_last_q;
  logic              c1_need_q;    // a payload beat with a packed beat
  logic [LEN_W-1:0]  c1_len_q;
  logic [DATA_W-1:0] c1_hdr_data_q;
  logic              c1_stamped_q;  // ... a stamped packet's: its CRC leaves the stamps out
  logic              c1_crc_v_q, c1_hdr_q;

  always_ff @(posedge clk) begin
    c1_v_q   <= hdr_go || pay_go;
    c1_pop_q <= (pay_go && need_q) || skip_go;
    if (rst) begin
      c1_v_q   <= 1'b0;
      c1_pop_q <= 1'b0;
    end
  end

  always_ff @(posedge clk) begin
    c1_first_q    <= first_q;
    c1_need_q     <= need_q;
    c1_isd_q      <= !rsp_first && jb.is_data;
    c1_len_q      <= rsp_first ? '0 : jb.len;
    c1_last_q     <= pay_q ? lw_q : (rsp_valid || !jb.is_data);
    c1_crc_last_q <= pay_q ? lp_q : (rsp_valid || !jb.is_data);
    // the header of the job at a boundary, the response's when one waits (loaded every
    // cycle: no clock enable fans out to it)
    c1_hdr_data_q <= rsp_valid ? rsp_hdr : jb.hdr;
    c1_stamped_q  <= !rsp_valid && is_stamped(jb.hdr);
  end

  // ------------------------------------------------------------------ D1, D2
  // The packed beat is taken from the payload buffer (D1) and rotated left by dlane bytes
  // (rc: D1 does the rotation's stages that move by up to 8 bytes, D2 the two that move by
  // 16 and 32 bytes before the merge into the output buffer). Link beat j is rc of packed
  // beat j in the lanes from dlane on, rc of packed beat j-1 below (zero for j = 0), each
  // cleared past the packet's end (the rotated lane mask, zero for a beat without a packed
  // beat): D2 merges them into the output buffer. A header beat passes unrotated. The CRC
  // takes the header or the packed beat (D1), its byte enables clear the rest. The
  // controls of the 512-bit selections have a copy per 64-bit group (kept as separate
  // flops, which synthesis would otherwise merge: each copy drives 64 selections, not
  // 512): the rotation amount (64 - dlane, a right rotation; zero for a header in D2)
  // and header-or-payload.
  logic                      c2_v_q, c2_crc_v_q, c2_crc_last_q, c2_last_q, c2_isd_q;
  logic [LEN_W-1:0]          c2_len_q;
  logic [NL-1:0]             c2_crc_keep_q, c2_keep_q;
  // bits from x, from prev, kept in prev (a lane's 8 flops are equal: synthesis merges them)
  logic [DATA_W-1:0]         c2_mx_q, c2_sp_q, c2_pm_q;
  logic [DATA_W-1:0]         c2_x_q;        // header, or the packed beat partly rotated
  logic [DATA_W-1:0]         c2_crc_q;      // header, or the packed beat
  logic [DATA_W-1:0]         prev_q;        // rc of the packed beat before, cleared past the end
  logic [NG-1:0][LANE_W-1:0] c1_rot_q;      // 64 - dlane, a copy per group
  logic [NG-1:0][LANE_W-1:0] c2_rot_q;      // the same for D2 (0 for a header)
  logic [NG-1:0]             c1_hdrg_q;     // a header beat, a copy per group

  assign pay_ready = c1_pop_q;
  assign c1_hdr_q  = c1_hdrg_q[0];  // (for the narrow fields)

  (* keep *) always_ff @(posedge clk) begin
    for (int g = 0; g < int'(NG); g++) begin
      c1_hdrg_q[g] <= !pay_q;
      c1_rot_q[g]  <= LANE_W'(-jb.dlane);
    end
  end

  always_ff @(posedge clk) begin
    c1_crc_v_q <= hdr_go || (pay_go && need_q);
    c2_crc_v_q <= c1_crc_v_q;
    if (rst) begin
      c1_crc_v_q <= 1'b0;
      c2_crc_v_q <= 1'b0;
    end
  end

  // c2_v_q a second time for the output buffer's push (c2_v_q enables prev_q's 512 flops),
  // both kept as flops of their own
  logic c2_ob_v_q;
  (* keep *) always_ff @(posedge clk) begin
    c2_v_q    <= c1_v_q;
    c2_ob_v_q <= c1_v_q;
    if (rst) begin
      c2_v_q    <= 1'b0;
      c2_ob_v_q <= 1'b0;
    end
  end

  // (computed in this block: evaluated only with a beat in D1)
  always_ff @(posedge clk) begin
    // the lanes of a payload beat from the head job's masks: by first / last link beat
    // (c1_last_q), last packed beat (c1_crc_last_q), with a packed beat
    if (c1_v_q) begin
      logic [DATA_W-1:0] h;
      logic [NL-1:0]     mrot;  // rc's lanes of the packet (none without a packed beat)
      h          = group_bits(c1_hdrg_q);
      mrot       = !c1_need_q ? '0 : !c1_crc_last_q ? '1 : m_rot_q;
      c2_x_q    <= (c1_hdr_data_q & h) | (rot_r(pay_data, c1_rot_q, 0, ROT_D1) & ~h);
      c2_keep_q <= c1_hdr_q ? '1 : (c1_first_q ? m_from_q : '1) & (c1_last_q ? m_to_q : '1);
      c2_last_q <= c1_last_q;
      c2_isd_q  <= c1_isd_q;
      c2_len_q  <= c1_len_q;
      c2_mx_q   <= lane_bits_of(c1_hdr_q ? '1 : mrot & m_from_q);
      c2_sp_q   <= lane_bits_of(c1_hdr_q ? '0 : ~m_from_q & {NL{!c1_first_q}});
      c2_pm_q   <= lane_bits_of(mrot);
    end
    if (c1_crc_v_q) begin
      logic [DATA_W-1:0] h;
      h              = group_bits(c1_hdrg_q);
      // (a stamped header with bits STAMP_LSB.. zero: qrdma_bench_pkg::crc_view)
      c2_crc_q      <= (c1_hdr_data_q & h & ~(c1_stamped_q ? STAMP_MASK : '0)) | (pay_data & ~h);
      c2_crc_keep_q <= c1_hdr_q ? '1 : c1_crc_last_q ? m_pl_q : '1;
      c2_crc_last_q <= c1_crc_last_q;
    end
  end

  (* keep *) always_ff @(posedge clk) begin
    for (int g = 0; g < int'(NG); g++) c2_rot_q[g] <= c1_hdrg_q[g] ? '0 : c1_rot_q[g];
  end

  // D2: rc (its value matters only with a beat: 'x otherwise, no logic in synthesis, no
  // work in a simulation)
  logic [DATA_W-1:0] rc, ob_data;

  always_comb begin
    rc = 'x;
    if (c2_v_q) rc = rot_r(c2_x_q, c2_rot_q, ROT_D1, LANE_W);
  end

  assign ob_data = (rc & c2_mx_q) | (prev_q & c2_sp_q);

  always_ff @(posedge clk) begin
    if (c2_v_q) prev_q <= rc & c2_pm_q;
  end

  // ------------------------------------------------------------------ output buffer input
  obeat_t            ob_in;
  logic              ob_s_ready;

  always_comb begin
    ob_in.data    = ob_data;
    ob_in.keep    = c2_keep_q;
    ob_in.last    = c2_last_q;
    ob_in.is_data = c2_isd_q;
    ob_in.len     = c2_len_q;
  end

  // ------------------------------------------------------------------ CRC
  logic        crc_m_valid;
  logic [31:0] crc_m_crc;

  qrdma_crc32_512 #(.DATA_W(DATA_W), .CORR_PIPE(1'b1)) u_crc (
    .clk     (clk),
    .rst     (rst),
    .s_valid (c2_crc_v_q),
    .s_data  (c2_crc_q),
    .s_keep  (c2_crc_keep_q),
    .s_last  (c2_crc_last_q),
    .m_valid (crc_m_valid),
    .m_crc   (crc_m_crc)
  );

  // ------------------------------------------------------------------ output buffer
  logic              ob_m_valid, ob_pop;
  logic [OW-1:0]     ob_m_data;
  obeat_t            ob;
  logic              cq_valid, cq_pop;
  logic [31:0]       cq_crc;
  logic              ob_af;
  /* verilator lint_off UNUSEDSIGNAL */
  logic              cq_s_ready;          // always high: at most OUT_DEPTH CRCs wait
  logic [cnt_w(OUT_DEPTH)-1:0]   ob_count;
  logic [cnt_w(OUT_DEPTH+1)-1:0] cq_count;
  logic              cq_af;
  /* verilator lint_on UNUSEDSIGNAL */

  // A beat decided in cycle c is written at the end of c+2: room for it and the two
  // decided before it (almost_full at OUT_DEPTH - 2). Its write enable spreads over the
  // 591-bit LUT RAM: a copy of s_ready of its own (WE_COPY).
  qrdma_sync_fifo #(.WIDTH(OW), .DEPTH(OUT_DEPTH), .ALMOST_FULL(OUT_DEPTH - 2),
                    .WE_COPY(1'b1)) u_obuf (
    .clk         (clk),
    .rst         (rst),
    .s_valid     (c2_ob_v_q),
    .s_ready     (ob_s_ready),
    .s_data      (ob_in),
    .m_valid     (ob_m_valid),
    .m_ready     (ob_pop),
    .m_data      (ob_m_data),
    .count       (ob_count),
    .almost_full (ob_af)
  );

  assign ob_room = !ob_af;

  // The beats' last flags a second time, the head in a register: tvalid and the pops
  // come from flops, not through the output buffer's LUT-RAM read.
  logic ob_last;
  /* verilator lint_off UNUSEDSIGNAL */  // moves with the output buffer (its flags)
  logic lq_s_ready, lq_valid, lq_af;
  logic [cnt_w(OUT_DEPTH)-1:0] lq_count;
  /* verilator lint_on UNUSEDSIGNAL */

  qrdma_sync_fifo #(.WIDTH(1), .DEPTH(OUT_DEPTH), .HEAD_REG(1'b1)) u_lastq (
    .clk         (clk),
    .rst         (rst),
    .s_valid     (c2_ob_v_q),
    .s_ready     (lq_s_ready),
    .s_data      (c2_last_q),
    .m_valid     (lq_valid),
    .m_ready     (ob_pop),
    .m_data      (ob_last),
    .count       (lq_count),
    .almost_full (lq_af)
  );

  // A waiting CRC belongs to a packet whose last beat is in the output buffer (the last
  // link beat is written at most one cycle after the last packed beat goes to the CRC):
  // OUT_DEPTH + 1 entries always suffice.
  qrdma_sync_fifo #(.WIDTH(32), .DEPTH(OUT_DEPTH + 1)) u_crcq (
    .clk         (clk),
    .rst         (rst),
    .s_valid     (crc_m_valid),
    .s_ready     (cq_s_ready),
    .s_data      (crc_m_crc),
    .m_valid     (cq_valid),
    .m_ready     (cq_pop),
    .m_data      (cq_crc),
    .count       (cq_count),
    .almost_full (cq_af)
  );

  assign ob               = obeat_t'(ob_m_data);
  assign busy             = jb_valid || pe_valid || ob_m_valid || c1_v_q || c2_v_q;
  assign m_axis_tx_tvalid = ob_m_valid && (!ob_last || cq_valid);
  assign ob_pop           = m_axis_tx_tvalid && m_axis_tx_tready;
  assign cq_pop           = ob_pop && ob_last;
  assign m_axis_tx_tdata  = ob.data;
  assign m_axis_tx_tkeep  = ob.keep;
  assign m_axis_tx_tlast  = ob_last;
  assign m_axis_tx_tuser  = ob_last ? cq_crc : '0;
  assign stat_data_pkt    = cq_pop && ob.is_data;
  assign stat_ctrl_pkt    = cq_pop && !ob.is_data;
  assign stat_bytes       = cq_pop ? ob.len : '0;

`ifndef SYNTHESIS
  initial begin
    if (OUT_DEPTH < 4) $fatal(1, "qrdma_tx_asm: OUT_DEPTH must be >= 4");
  end

  // a CRC always finds room (see u_crcq); a beat always finds room in the output buffer
  // (ob_room); a payload beat is in the payload buffer when it is taken (see header)
  always_ff @(posedge clk) begin
    if (!rst) begin
      if (crc_m_valid) assert (cq_s_ready)
        else $error("qrdma_tx_asm: CRC queue overflow");
      if (c2_v_q) assert (ob_s_ready)
        else $error("qrdma_tx_asm: output buffer overflow");
      assert (jh_s_ready == job_ready && jh_valid == jb_valid)
        else $error("qrdma_tx_asm: job header and fields apart");
      assert (lq_valid == ob_m_valid && (!lq_valid || ob_last == ob.last))
        else $error("qrdma_tx_asm: last flags apart from the output buffer");
      if (pay_ready) assert (pay_valid)
        else $error("qrdma_tx_asm: payload beat taken before it is in the buffer");
    end
  end
`endif

endmodule

`default_nettype wire
