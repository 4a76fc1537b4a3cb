// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_tx: the send unit of the NIC (docs/nic.md "Send unit", "Packet format",
// "Packetization"; VOQs of [FPGA-NI] §2.5). Block descriptors and inline/control packet
// descriptors (the request class) wait in per-destination virtual output queues; a
// round-robin scheduler picks one packet at a time among the destinations that have work
// and are not paused; a DATA packet's payload is read ahead from host memory over AXI4
// into a reserved read window, packed and moved to lane dst_addr mod 64; every packet
// leaves on m_axis_tx as a header beat (plus payload beats for DATA) with its CRC-32 in
// tuser of the last beat. ACK/NACK responses (s_rsp) bypass the slots and VOQs and go
// ahead of the next request-class packet. Inside (block diagram, read window and its
// sizing, DATA latency in detail): docs/modules.md#qrdma_tx.
//
// Timing (cycles; unit idle, no backpressure; tests/tx/test_qrdma_tx.py tx_latency,
// tx_throughput): response taken in 0 -> its beat valid in 9; descriptor taken in 0 ->
// INLINE / CONTROL beat valid in 22, DATA m_axi_arvalid in 12 and its header beat 10 cycles
// after the R beat that completes its payload, the last beat LATENCY + 1 cycles after the
// beat before it (a lone packet of n beats takes n + 5 cycles, back-to-back ones n).
// Full rate: back-to-back 1 KiB packets at 17 beats each with no idle cycle at a memory
// latency of 200 cycles (READ_WINDOW_BEATS >= 240); one-beat packets one per cycle. After
// reset the inputs are ready once the slot pool is initialised (SLOTS cycles). R is always
// accepted (m_axi_rready = 1). A paused destination is not picked and never blocks others.
// Limits: a block descriptor's size is 1 .. 510 * MAX_PAYLOAD bytes (blk_pkts is 9 bits;
// any 64 KiB block qualifies); its pkt_first / pkt_num select a run within the block's
// packets (docs/nic.md "Partial blocks"). Descriptors for a paused destination keep their slots, so
// SLOTS of them stall the request inputs; responses are not affected.
`default_nettype none

module qrdma_tx
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
  import qrdma_tx_pkg::*;
#(
  parameter int unsigned NUM_NODES         = 4,     // VOQs; a packet to dst_node waits in VOQ dst_node mod NUM_NODES (tx_pause bit of the same index)
  parameter int unsigned MAX_PAYLOAD       = 1024,  // largest DATA payload and packetization boundary (power of 2, 256..4096)
  parameter int unsigned SLOTS             = 64,    // descriptor slots shared by all VOQs (block and packet descriptors)
  parameter int unsigned READ_WINDOW_BEATS = 256,   // payload buffer in 64-byte beats = payload reserved/in flight (>= MAX_PAYLOAD/64)
  parameter int unsigned AXI_ID_W          = 4      // width of m_axi_arid / m_axi_rid (one ID, 0, is used)
) (
  input  logic                   clk,
  input  logic                   rst,             // synchronous, active high
  input  logic [15:0]            node_id,         // this node: src_node of every header
  input  logic [7:0]             epoch,           // this node's epoch: in every request header
  // block descriptors (BLOCK_DESC) from the QoS engine
  input  logic                   s_blk_valid,
  output logic                   s_blk_ready,
  input  logic [BLOCK_DESC_W-1:0] s_blk_data,
  // inline / control packet descriptors (PKT_DESC) from the QoS engine
  input  logic                   s_pkt_valid,
  output logic                   s_pkt_ready,
  input  logic [511:0]           s_pkt_data,
  // read-response jobs (RD_JOB) from the receive unit: blocks of other nodes' reads, sent
  // back as DATA packets with resp set (docs/nic.md "Remote reads")
  input  logic                   s_rrsp_valid,
  output logic                   s_rrsp_ready,
  input  logic [RD_JOB_W-1:0]    s_rrsp_data,
  // responses (ACK / NACK packets to send, RSP_DESC) from the receive unit
  input  logic                   s_rsp_valid,
  output logic                   s_rsp_ready,
  input  logic [RSP_DESC_W-1:0]  s_rsp_data,
  // local NACKs (ACK_DESC) to the QoS engine: DATA packets not sent (read error)
  output logic                   m_lnack_valid,
  input  logic                   m_lnack_ready,
  output logic [ACK_DESC_W-1:0]  m_lnack_data,
  // a descriptor's last packet is picked for the link (a pulse, no backpressure): the
  // reliability unit's response timer of its TID starts (docs/reliability.md "Timers")
  output logic                   m_sent_valid,
  output logic [NET_HDR_TID_W-1:0] m_sent_tid,
  // link-level pause per VOQ: no new packet is picked for a paused destination; registered
  // at the port (a change takes effect one cycle later)
  input  logic [NUM_NODES-1:0]   tx_pause,
  // AXI4 read master (payload reads)
  output logic [AXI_ID_W-1:0]    m_axi_arid,
  output logic [63:0]            m_axi_araddr,
  output logic [7:0]             m_axi_arlen,
  output logic [2:0]             m_axi_arsize,    // always 6 (64-byte beats)
  output logic [1:0]             m_axi_arburst,   // always INCR
  output logic                   m_axi_arvalid,
  input  logic                   m_axi_arready,
  /* verilator lint_off UNUSEDSIGNAL */  // one ID is used: R comes back in order
  input  logic [AXI_ID_W-1:0]    m_axi_rid,
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic [511:0]           m_axi_rdata,
  input  logic [1:0]             m_axi_rresp,     // SLVERR/DECERR: the packet is not sent
  /* verilator lint_off UNUSEDSIGNAL */  // beats are counted
  input  logic                   m_axi_rlast,
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic                   m_axi_rvalid,
  output logic                   m_axi_rready,    // always 1 (space is reserved before AR)
  // AXI-Stream to the network
  output logic [511:0]           m_axis_tx_tdata,
  output logic [63:0]            m_axis_tx_tkeep,
  output logic                   m_axis_tx_tlast,
  output logic [31:0]            m_axis_tx_tuser, // CRC-32 of the packet on the last beat, else 0
  output logic                   m_axis_tx_tvalid,
  input  logic                   m_axis_tx_tready,
  // work outstanding and occupancy (state snapshot)
  output logic                   busy,
  output logic [15:0]            occ_slots,       // descriptor slots in use
  output logic [15:0]            occ_jobs,        // packets picked, not yet on the link
  output logic [15:0]            occ_pay,         // payload-buffer beats reserved or filled
  output logic [15:0]            occ_rsp,         // a response waits for the assembler (0/1)
  // statistics: one-cycle pulses in the cycle a packet's last beat is taken
  output logic                   stat_data_pkt,   // a DATA packet
  output logic                   stat_ctrl_pkt,   // an INLINE, CONTROL, ACK or NACK packet
  output logic [12:0]            stat_bytes,      // its payload bytes (DATA, INLINE), else 0
  output logic                   stat_mem_err,    // a DATA packet dropped: read error
  output logic                   stat_slot_stall, // a descriptor waits for a free slot
  output logic                   stat_link_stall  // the link did not take an offered beat
);

  localparam int unsigned MPB       = MAX_PAYLOAD / BEAT_BYTES;  // beats of a full payload
  localparam int unsigned JOB_DEPTH = 64;   // packets between scheduler and assembler (block RAM)
  localparam int unsigned RD_DEPTH  = 16;   // read commands before the AR issuer (small: a
                                            // picked packet's AR follows within a few cycles)
  localparam int unsigned IN_FLIGHT = 9;    // picks not yet in the job and read FIFOs, plus one
                                            // (the scheduler's seven stages, this pick, and the
                                            // room flag's cycle: see pick_ok)
  localparam int unsigned OUT_DEPTH = 16;   // output buffer beats (> CRC LATENCY + 4)
  localparam int unsigned PCW       = cnt_w(READ_WINDOW_BEATS);

`ifndef SYNTHESIS
  initial begin
    if (NUM_NODES < 1) $fatal(1, "qrdma_tx: NUM_NODES must be >= 1");
    if (MAX_PAYLOAD < 256 || MAX_PAYLOAD > 4096 || (MAX_PAYLOAD & (MAX_PAYLOAD - 1)) != 0)
      $fatal(1, "qrdma_tx: MAX_PAYLOAD must be a power of 2 in 256..4096");
    if (SLOTS < 2) $fatal(1, "qrdma_tx: SLOTS must be >= 2");
    if (READ_WINDOW_BEATS < MPB || READ_WINDOW_BEATS < 2)
      $fatal(1, "qrdma_tx: READ_WINDOW_BEATS must be >= MAX_PAYLOAD / 64");
    if (AXI_ID_W < 1) $fatal(1, "qrdma_tx: AXI_ID_W must be >= 1");
  end
`endif

  // ------------------------------------------------------------------ scheduler
  logic    pick, pick_ok;
  logic    sj_valid, sr_valid;
  logic [idx_w(SLOTS):0] slots_used;
  job_t    sj;
  rd_cmd_t sr;

  // The pause comes from the link (credits, a later block): registered at the port, so that
  // it reaches the pick through no logic of the link (and, in a cycle-based simulation,
  // the pick does not depend on a top-level input: docs/sim.md "Speed").
  logic [NUM_NODES-1:0] tx_pause_q;
  always_ff @(posedge clk) begin
    if (rst) tx_pause_q <= '0;
    else     tx_pause_q <= tx_pause;
  end

  qrdma_tx_sched #(
    .NUM_NODES   (NUM_NODES),
    .MAX_PAYLOAD (MAX_PAYLOAD),
    .SLOTS       (SLOTS)
  ) u_sched (
    .clk            (clk),
    .rst            (rst),
    .node_id        (node_id),
    .epoch          (epoch),
    .s_blk_valid    (s_blk_valid),
    .s_blk_ready    (s_blk_ready),
    .s_blk_data     (s_blk_data),
    .s_pkt_valid    (s_pkt_valid),
    .s_pkt_ready    (s_pkt_ready),
    .s_pkt_data     (s_pkt_data),
    .s_rsp_valid    (s_rrsp_valid),
    .s_rsp_ready    (s_rrsp_ready),
    .s_rsp_data     (s_rrsp_data),
    .tx_pause       (tx_pause_q),
    .pick_ok        (pick_ok),
    .pick           (pick),
    .job_valid      (sj_valid),
    .job            (sj),
    .rd_valid       (sr_valid),
    .rd             (sr),
    .sent_valid     (m_sent_valid),
    .sent_tid       (m_sent_tid),
    .occ_slots      (slots_used),
    .stat_slot_stall(stat_slot_stall)
  );

  // ------------------------------------------------------------------ queues
  logic                 job_valid, job_ready;
  logic [$bits(job_t)-1:0] job_data;
  logic                 rdq_valid, rdq_ready;
  logic [$bits(rd_cmd_t)-1:0] rdq_data;
  logic                 info_s_valid, info_s_ready, info_valid, info_ready;
  logic [$bits(rd_info_t)-1:0] info_s_data, info_data;
  logic [cnt_w(JOB_DEPTH)-1:0] job_count;
  logic [cnt_w(RD_DEPTH)-1:0]  rdq_count;
  /* verilator lint_off UNUSEDSIGNAL */
  // Pushes are gated by pick_ok (job, rd: the counts) or by the FIFO's own s_ready
  // (info), so these are not needed.
  logic                 job_s_ready, rdq_s_ready, info_af, job_af, rdq_af;
  logic [cnt_w(JOB_DEPTH)-1:0] info_count;
  /* verilator lint_on UNUSEDSIGNAL */

  qrdma_sync_fifo #(.WIDTH($bits(job_t)), .DEPTH(JOB_DEPTH)) u_jobq (
    .clk         (clk),
    .rst         (rst),
    .s_valid     (sj_valid),
    .s_ready     (job_s_ready),
    .s_data      (sj),
    .m_valid     (job_valid),
    .m_ready     (job_ready),
    .m_data      (job_data),
    .count       (job_count),
    .almost_full (job_af)
  );

  qrdma_sync_fifo #(.WIDTH($bits(rd_cmd_t)), .DEPTH(RD_DEPTH)) u_rdq (
    .clk         (clk),
    .rst         (rst),
    .s_valid     (sr_valid),
    .s_ready     (rdq_s_ready),
    .s_data      (sr),
    .m_valid     (rdq_valid),
    .m_ready     (rdq_ready),
    .m_data      (rdq_data),
    .count       (rdq_count),
    .almost_full (rdq_af)
  );

  // ------------------------------------------------------------------ reads
  qrdma_tx_rd #(.AXI_ID_W(AXI_ID_W)) u_rd (
    .clk           (clk),
    .rst           (rst),
    .cmd_valid     (rdq_valid),
    .cmd_ready     (rdq_ready),
    .cmd           (rd_cmd_t'(rdq_data)),
    .info_valid    (info_s_valid),
    .info_ready    (info_s_ready),
    .info          (info_s_data),
    .m_axi_arid    (m_axi_arid),
    .m_axi_araddr  (m_axi_araddr),
    .m_axi_arlen   (m_axi_arlen),
    .m_axi_arsize  (m_axi_arsize),
    .m_axi_arburst (m_axi_arburst),
    .m_axi_arvalid (m_axi_arvalid),
    .m_axi_arready (m_axi_arready)
  );

  qrdma_sync_fifo #(.WIDTH($bits(rd_info_t)), .DEPTH(JOB_DEPTH)) u_infoq (
    .clk         (clk),
    .rst         (rst),
    .s_valid     (info_s_valid),
    .s_ready     (info_s_ready),
    .s_data      (info_s_data),
    .m_valid     (info_valid),
    .m_ready     (info_ready),
    .m_data      (info_data),
    .count       (info_count),
    .almost_full (info_af)
  );

  logic              pk_valid;
  logic [DATA_W-1:0] pk_data;

  logic pe_s_valid, pe_s_data, pe_valid, pe_ready, pe_data;

  qrdma_tx_realign u_realign (
    .clk          (clk),
    .rst          (rst),
    .r_valid      (m_axi_rvalid),
    .r_data       (m_axi_rdata),
    .r_resp       (m_axi_rresp),
    .info_valid   (info_valid),
    .info_ready   (info_ready),
    .info         (rd_info_t'(info_data)),
    .o_valid      (pk_valid),
    .o_data       (pk_data),
    .o_perr_valid (pe_s_valid),
    .o_perr       (pe_s_data)
  );

  // read status of the DATA packets between the realigner and the assembler: no more
  // than the job FIFO holds. Pushed with the packet's last packed beat; it reaches the
  // head no earlier than that beat reaches the head of the payload buffer (both FIFOs
  // are of the same form, or the payload buffer of the faster one), which the assembler
  // relies on (qrdma_tx_asm header).
  /* verilator lint_off UNUSEDSIGNAL */  // never full: bounded by the job FIFO
  logic                        pe_s_ready, pe_af;
  logic [cnt_w(JOB_DEPTH)-1:0] pe_count;
  /* verilator lint_on UNUSEDSIGNAL */
  qrdma_sync_fifo #(.WIDTH(1), .DEPTH(JOB_DEPTH)) u_perrq (
    .clk         (clk),
    .rst         (rst),
    .s_valid     (pe_s_valid),
    .s_ready     (pe_s_ready),
    .s_data      (pe_s_data),
    .m_valid     (pe_valid),
    .m_ready     (pe_ready),
    .m_data      (pe_data),
    .count       (pe_count),
    .almost_full (pe_af)
  );

  // ------------------------------------------------------------------ responses
  logic              rj_valid, rj_ready;
  logic [DATA_W-1:0] rj;

  qrdma_tx_rsp u_rsp (
    .clk     (clk),
    .rst     (rst),
    .node_id (node_id),
    .s_valid (s_rsp_valid),
    .s_ready (s_rsp_ready),
    .s_data  (s_rsp_data),
    .m_valid (rj_valid),
    .m_ready (rj_ready),
    .m_hdr   (rj)
  );

  assign m_axi_rready = 1'b1;

  // ------------------------------------------------------------------ payload buffer
  logic              pay_valid, pay_ready, pay_s_ready;
  logic [DATA_W-1:0] pay_data;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [PCW-1:0]    pay_count;
  logic              pay_af;  // space is managed by the credits below
  /* verilator lint_on UNUSEDSIGNAL */

  qrdma_sync_fifo #(.WIDTH(DATA_W), .DEPTH(READ_WINDOW_BEATS)) u_payq (
    .clk         (clk),
    .rst         (rst),
    .s_valid     (pk_valid),
    .s_ready     (pay_s_ready),
    .s_data      (pk_data),
    .m_valid     (pay_valid),
    .m_ready     (pay_ready),
    .m_data      (pay_data),
    .count       (pay_count),
    .almost_full (pay_af)
  );

  // Unreserved beats of the payload buffer (see header): - MPB per pick, + MPB - n_p a
  // cycle after the packet is known (n_p = 0 for packets without payload: ret_q), + 1 per
  // beat taken. pick_ok is a register: the pick of this cycle only selects between the
  // next cycle's flags with and without it (credit for one more pick; room in the job and
  // read FIFOs for the picks on their way, IN_FLIGHT).
  logic [PCW-1:0] credit_q, ret_q, cn;
  logic           pick_ok_q;

  assign cn = credit_q + ret_q + PCW'(pay_ready);

  // (reset last, overriding: credit_q is read before it is written, docs/development.md)
  always_ff @(posedge clk) begin
    credit_q  <= pick ? cn - PCW'(MPB) : cn;
    pick_ok_q <= (32'(job_count) + IN_FLIGHT <= JOB_DEPTH)
              && (32'(rdq_count) + IN_FLIGHT <= RD_DEPTH)
              && (pick ? (32'(cn) >= 2 * MPB) : (32'(cn) >= MPB));
    ret_q     <= sj_valid ? PCW'(MPB) - (sj.is_data ? PCW'(sj.n_p) : '0) : '0;
    if (rst) begin
      credit_q  <= PCW'(READ_WINDOW_BEATS);
      pick_ok_q <= 1'b0;
      ret_q     <= '0;
    end
  end

  assign pick_ok = pick_ok_q;

  // ------------------------------------------------------------------ assembler, output
  logic asm_busy;  // the assembler holds a job, a read status or beats

  qrdma_tx_asm #(.OUT_DEPTH(OUT_DEPTH)) u_asm (
    .clk              (clk),
    .rst              (rst),
    .job_valid        (job_valid),
    .job_ready        (job_ready),
    .job              (job_t'(job_data)),
    .rsp_valid        (rj_valid),
    .rsp_ready        (rj_ready),
    .rsp_hdr          (rj),
    .perr_valid       (pe_valid),
    .perr_ready       (pe_ready),
    .perr             (pe_data),
    .m_lnack_valid    (m_lnack_valid),
    .m_lnack_ready    (m_lnack_ready),
    .m_lnack_data     (m_lnack_data),
    .pay_valid        (pay_valid),
    .pay_ready        (pay_ready),
    .pay_data         (pay_data),
    .m_axis_tx_tdata  (m_axis_tx_tdata),
    .m_axis_tx_tkeep  (m_axis_tx_tkeep),
    .m_axis_tx_tlast  (m_axis_tx_tlast),
    .m_axis_tx_tuser  (m_axis_tx_tuser),
    .m_axis_tx_tvalid (m_axis_tx_tvalid),
    .m_axis_tx_tready (m_axis_tx_tready),
    .stat_data_pkt    (stat_data_pkt),
    .stat_ctrl_pkt    (stat_ctrl_pkt),
    .stat_bytes       (stat_bytes),
    .stat_mem_err     (stat_mem_err),
    .busy             (asm_busy)
  );

  // ------------------------------------------------------------------ state
  function automatic logic [15:0] sat16(input logic [31:0] v);
    return (v > 32'hFFFF) ? 16'hFFFF : v[15:0];
  endfunction

  always_ff @(posedge clk) begin
    occ_slots <= sat16(32'(slots_used));
    occ_jobs  <= sat16(32'(job_count));
    occ_pay   <= sat16(READ_WINDOW_BEATS - 32'(credit_q));
    occ_rsp   <= 16'(rj_valid);
    busy      <= slots_used != '0 || job_count != '0 || credit_q != PCW'(READ_WINDOW_BEATS)
                 || rj_valid || m_lnack_valid || asm_busy;
    stat_link_stall <= m_axis_tx_tvalid && !m_axis_tx_tready;
    if (rst) begin
      busy            <= 1'b0;
      stat_link_stall <= 1'b0;
    end
  end

`ifndef SYNTHESIS
  // R data always finds room in the payload buffer (space is reserved before the AR)
  always_ff @(posedge clk) begin
    if (pk_valid)
      if (!rst) assert (pay_s_ready)
        else $error("qrdma_tx: payload buffer overflow");
  end
`endif

endmodule

`default_nettype wire
