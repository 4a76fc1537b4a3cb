// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_tx_asm: the packet assembler and output stage of the send unit (docs/nic.md
// "Send unit", "Packet format"; CRC per packet, [FPGA-NI] §2.4). Takes packet jobs in
// link order: the header beat, then for a DATA packet its n_out payload beats, made from
// the n_p packed beats of the payload buffer moved to the destination lane, the lanes
// outside tkeep zero. The CRC (qrdma_crc32_512, on the packed view) goes into tuser of the
// last beat: an output buffer delays the stream until it is known. Inside (beat rotation,
// CRC and output buffer, evaluation cost): docs/modules.md#qrdma_tx_asm.
//
// Contract: a DATA header waits until all n_p packed beats of its packet are in the
// buffer, so a packet never stalls in the middle for want of data. Its read status (perr,
// one per DATA packet, in order) is known by then: a packet whose payload read was
// answered SLVERR/DECERR is not sent; its packed beats are released and a local NACK
// (tid, seq, reason ERR_LOCAL_MEM) goes to the QoS engine (m_lnack). Responses (rsp_job:
// one-beat ACK/NACK packets) are taken before the next request-class job at every packet
// boundary. The last beat is offered (tvalid) only with its CRC; at full rate the delay
// costs no bubbles after the first packet of a burst.
// Timing: a job at the head in cycle t (payload present) -> its header beat enters the
// buffer at the end of t -> m_axis_tx_tvalid in t+1 for a multi-beat packet, in
// t + LATENCY + 1 for a one-beat packet (the CRC). Stats pulse in the cycle a last beat
// is taken.
`default_nettype none

module qrdma_tx_asm
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
  import qrdma_tx_pkg::*;
#(
  parameter int unsigned  PAY_DEPTH = 256,  // beats of the payload buffer (width of pay_count)
  parameter int unsigned  OUT_DEPTH = 16,   // beats of the output buffer (> CRC LATENCY + 2)
  localparam int unsigned PCW       = cnt_w(PAY_DEPTH)
) (
  input  logic                  clk,
  input  logic                  rst,
  // packet jobs (show-ahead)
  input  logic                  job_valid,
  output logic                  job_ready,
  input  job_t                  job,
  // response jobs: one-beat packets, taken first at a packet boundary
  input  logic                  rsp_valid,
  output logic                  rsp_ready,
  input  job_t                  rsp_job,
  // read status of the DATA packets, in order (1: a read beat was SLVERR/DECERR)
  input  logic                  perr_valid,
  output logic                  perr_ready,
  input  logic                  perr,
  // local NACKs (ACK_DESC) of DATA packets not sent
  output logic                  m_lnack_valid,
  input  logic                  m_lnack_ready,
  output logic [ACK_DESC_W-1:0] m_lnack_data,
  // packed payload beats (show-ahead) and how many are in the buffer
  input  logic                  pay_valid,
  output logic                  pay_ready,
  input  logic [DATA_W-1:0]     pay_data,
  input  logic [PCW-1:0]        pay_count,
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
  output logic                  ob_busy        // the output buffer holds beats
);

  localparam int unsigned OW = $bits(obeat_t);

  logic                  pay_q;      // in the payload beats of the head job
  logic                  skip_q;     // ... releasing them: the packet is dropped
  logic [BEATS_W-1:0]    j_q;        // index of the next payload beat on the link
  logic [DATA_W-1:0]     prev_q;     // packed beat j-1 (zero for j = 0)
  logic                  ob_s_ready;
  logic                  hdr_go, pay_go, need, last_w, last_p;
  logic                  start, drop_go, req_go, rsp_go, skip_go, lnack_free;
  /* verilator lint_off UNUSEDSIGNAL */  // the payload fields are read from `job` only
  job_t                  jb;         // the job whose header goes: a response first
  /* verilator lint_on UNUSEDSIGNAL */
  logic [LANE_W-1:0]     end_lane;   // lane of the packet's last payload byte on the link
  logic [LANE_W-1:0]     plast_lane; // lane of its last byte in the last packed beat
  logic [BEAT_BYTES-1:0] keep_w;
  obeat_t                ob_in;
  logic                  crc_s_valid, crc_s_last;
  logic [DATA_W-1:0]     crc_s_data;
  logic [BEAT_BYTES-1:0] crc_s_keep;

  assign need       = (j_q < job.n_p);
  assign last_w     = (j_q == job.n_out - BEATS_W'(1));
  assign last_p     = (j_q == job.n_p - BEATS_W'(1));
  assign end_lane   = LANE_W'(job.dlane + LANE_W'(job.len) - LANE_W'(1));
  assign plast_lane = LANE_W'(job.len - LEN_W'(1));
  // at a packet boundary: a response, else the head job once it can go whole (DATA: all
  // its packed beats and its read status are in); a DATA packet with a read error is
  // dropped (its beats released) when the local NACK register is free
  assign lnack_free = !m_lnack_valid || m_lnack_ready;
  assign rsp_go     = !pay_q && rsp_valid && ob_s_ready;
  assign start      = !pay_q && !rsp_valid && job_valid
                      && (!job.is_data || (pay_count >= PCW'(job.n_p) && perr_valid));
  assign drop_go    = start && job.is_data && perr && lnack_free;
  assign req_go     = start && !(job.is_data && perr) && ob_s_ready;
  assign hdr_go     = rsp_go || req_go;
  assign jb         = rsp_go ? rsp_job : job;
  assign pay_go     = pay_q && !skip_q && ob_s_ready && (!need || pay_valid);
  assign skip_go    = pay_q && skip_q && pay_valid;
  assign keep_w     = lane_mask((j_q == '0) ? job.dlane : '0,
                                last_w ? end_lane : LANE_W'(BEAT_BYTES - 1));
  assign pay_ready  = (pay_go && need) || skip_go;
  assign job_ready  = (req_go && !job.is_data) || (pay_go && last_w) || (skip_go && last_p);
  assign rsp_ready  = rsp_go;
  assign perr_ready = (req_go || drop_go) && job.is_data;

  // Link beat j: the upper half of {packed j, packed j-1} << 8*dlane, formed as one
  // rotation: packed j in lanes ..63-dlane, packed j-1 above, rotated left by dlane bytes
  // (a 512-bit rotation, not a 1024-bit shifter). cur, the packed beat j, is cleared past
  // the packet's end (its last beat: lanes after plast_lane; zero when not needed) and
  // prev_q is zero for j = 0, so the lanes outside tkeep are zero without a mask. Written
  // as expressions only (no signal of their own), so that the simulation evaluates them
  // only where they are stored (the output buffer write, prev_q), not every cycle.
  function automatic logic [DATA_W-1:0] cur_of(input logic [DATA_W-1:0] d,
                                               input logic              nd,
                                               input logic              lp,
                                               input logic [LANE_W-1:0] pl);
    return d & {DATA_W{nd}} & ({DATA_W{1'b1}} >> {lp ? ~pl : LANE_W'(0), 3'b000});
  endfunction

  function automatic logic [DATA_W-1:0] beat_of(input logic [DATA_W-1:0] c,
                                                input logic [DATA_W-1:0] p,
                                                input logic [LANE_W-1:0] dl);
    return DATA_W'(({2{p ^ ((c ^ p) & ({DATA_W{1'b1}} >> {dl, 3'b000}))}} << {dl, 3'b000})
                   >> DATA_W);
  endfunction

  always_comb begin
    ob_in.data    = pay_q ? beat_of(cur_of(pay_data, need, last_p, plast_lane), prev_q,
                                    job.dlane)
                          : jb.hdr;
    ob_in.keep    = pay_q ? keep_w : '1;
    ob_in.last    = pay_q ? last_w : !jb.is_data;
    ob_in.is_data = jb.is_data;
    ob_in.len     = jb.len;
  end

  always_ff @(posedge clk) begin
    if ((req_go && job.is_data) || drop_go) begin
      pay_q  <= 1'b1;
      skip_q <= drop_go;
      j_q    <= '0;
    end else if (pay_go || skip_go) begin
      pay_q <= !(skip_q ? last_p : last_w);
      j_q   <= j_q + BEATS_W'(1);
    end
    if (rst) begin  // last: overrides
      pay_q  <= 1'b0;
      skip_q <= 1'b0;
      j_q    <= '0;
    end
  end

  // local NACK of a dropped packet: its block's tid and seq from the header
  always_ff @(posedge clk) begin
    if (drop_go) begin
      ack_desc_t a;
      /* verilator lint_off UNUSEDSIGNAL */  // tid and seq are read
      net_hdr_t  h;
      /* verilator lint_on UNUSEDSIGNAL */
      h = net_hdr_t'(job.hdr);
      a        = '0;
      a.tid    = h.tid;
      a.seq    = h.seq;
      a.nack   = 1'b1;
      a.reason = 4'(ERR_LOCAL_MEM);
      m_lnack_data <= a;
    end
    if (drop_go)            m_lnack_valid <= 1'b1;
    else if (m_lnack_ready) m_lnack_valid <= 1'b0;
    stat_mem_err <= drop_go;
    if (rst) begin
      m_lnack_valid <= 1'b0;
      stat_mem_err  <= 1'b0;
    end
  end

  always_ff @(posedge clk) begin
    if (hdr_go)      prev_q <= '0;
    else if (pay_go) prev_q <= cur_of(pay_data, need, last_p, plast_lane);
  end

  // ------------------------------------------------------------------ CRC
  assign crc_s_valid = hdr_go || (pay_go && need);
  assign crc_s_data  = pay_q ? pay_data : jb.hdr;  // (not valid when !need)
  assign crc_s_keep  = (pay_q && last_p) ? lane_mask('0, plast_lane) : '1;
  assign crc_s_last  = pay_q ? last_p : !jb.is_data;

  logic        crc_m_valid;
  logic [31:0] crc_m_crc;

  qrdma_crc32_512 #(.DATA_W(DATA_W)) u_crc (
    .clk     (clk),
    .rst     (rst),
    .s_valid (crc_s_valid),
    .s_data  (crc_s_data),
    .s_keep  (crc_s_keep),
    .s_last  (crc_s_last),
    .m_valid (crc_m_valid),
    .m_crc   (crc_m_crc)
  );

  // ------------------------------------------------------------------ output buffer
  logic              ob_m_valid, ob_pop;
  logic [OW-1:0]     ob_m_data;
  obeat_t            ob;
  logic              cq_valid, cq_pop;
  logic [31:0]       cq_crc;
  /* verilator lint_off UNUSEDSIGNAL */
  logic              cq_s_ready;          // always high: at most OUT_DEPTH CRCs wait
  logic [cnt_w(OUT_DEPTH)-1:0]   ob_count;
  logic [cnt_w(OUT_DEPTH+1)-1:0] cq_count;
  logic              ob_af, cq_af;
  /* verilator lint_on UNUSEDSIGNAL */

  qrdma_sync_fifo #(.WIDTH(OW), .DEPTH(OUT_DEPTH)) u_obuf (
    .clk         (clk),
    .rst         (rst),
    .s_valid     (hdr_go || pay_go),
    .s_ready     (ob_s_ready),
    .s_data      (ob_in),
    .m_valid     (ob_m_valid),
    .m_ready     (ob_pop),
    .m_data      (ob_m_data),
    .count       (ob_count),
    .almost_full (ob_af)
  );

  // A waiting CRC belongs to a packet whose last beat is in the output buffer, or to the
  // packet being assembled (its last packed beat went in, its extra last link beat has
  // not): OUT_DEPTH + 1 entries always suffice.
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
  assign ob_busy          = ob_m_valid;
  assign m_axis_tx_tvalid = ob_m_valid && (!ob.last || cq_valid);
  assign ob_pop           = m_axis_tx_tvalid && m_axis_tx_tready;
  assign cq_pop           = ob_pop && ob.last;
  assign m_axis_tx_tdata  = ob.data;
  assign m_axis_tx_tkeep  = ob.keep;
  assign m_axis_tx_tlast  = ob.last;
  assign m_axis_tx_tuser  = ob.last ? cq_crc : '0;
  assign stat_data_pkt    = cq_pop && ob.is_data;
  assign stat_ctrl_pkt    = cq_pop && !ob.is_data;
  assign stat_bytes       = cq_pop ? ob.len : '0;

`ifndef SYNTHESIS
  initial begin
    if (OUT_DEPTH < 2) $fatal(1, "qrdma_tx_asm: OUT_DEPTH must be >= 2");
  end

  // a CRC always finds room (see u_crcq); a read status comes with every DATA packet
  always_ff @(posedge clk) begin
    if (crc_m_valid)
      if (!rst) assert (cq_s_ready)
        else $error("qrdma_tx_asm: CRC queue overflow");
  end
`endif

endmodule

`default_nettype wire
