// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_rx_notif: the notification writer of qrdma_rx (docs/nic.md "Receive unit";
// [RSN] §3.3 notification queue). It owns the notification fields table (one rx_ctrl_t
// per tracking entry, written by the header processor with a CONTROL or a notifying
// INLINE packet) and the ring pointers. A notification request (from the completion
// unit, in completion order) waits until the ring has a free slot
// (issued - cfg_nq_tail < cfg_nq_size); then its fields are read from the table, the
// notif_entry (marker NOTIF_FULL) is handed to the write engine for
// cfg_nq_base + 64 * (issued mod cfg_nq_size), and the block's ACK, held until then, is
// returned to the completion unit (m_hack). nq_head counts the entries whose B came back
// (done_ntf); cfg_nq_reset sets it to 0 (entries in flight keep their place in `issued`).
// A full ring holds only the notifications (and their ACKs): nq_wait is high while a
// request waits for a slot. A request still waiting when the ring is turned off
// (cfg_nq_size 0) is dropped: its ACK goes, nothing is written (stat_notif_off).
// Requests come through the registration stage (rx_nrq_t, docs/registration.md): a
// receiver-side notification (direct) brings its fields and has no ACK held for it (its
// entry is marked early); a request marked skip was written ahead by the registration
// table: it takes no slot, writes nothing and returns its ACK.
// Timing: the entry and the ACK are offered (m_wr, m_hack) the cycle after a request is
// taken, until taken; at most one request every second cycle
// (docs/modules.md#qrdma_rx_notif).
`default_nettype none

module qrdma_rx_notif
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
  import qrdma_rx_pkg::*;
#(
  parameter int unsigned NENT = 4096,  // tracking entries (notification fields table rows)
  parameter bit          BENCH_STAMPS = 1'b0,  // keep the benchmark stamps of the entries
  localparam int unsigned EAW = idx_w(NENT)
) (
  input  logic            clk,
  input  logic            rst,
  // notification fields table writes (header processor)
  input  logic            ctl_we,
  /* verilator lint_off UNUSEDSIGNAL */  // keys are KEYW bits wide; the table uses EAW of them
  input  logic [KEYW-1:0] ctl_key,
  /* verilator lint_on UNUSEDSIGNAL */
  input  rx_ctrl_t        ctl,
  /* verilator lint_off UNUSEDSIGNAL */  // read only with BENCH_STAMPS
  input  rx_stamp_t       ctl_stamp,     // with ctl: its packet's stamps (BENCH_STAMPS)
  /* verilator lint_on UNUSEDSIGNAL */
  // notification requests (completion unit)
  input  logic            s_ntf_valid,
  output logic            s_ntf_ready,
  input  rx_nrq_t         s_ntf,
  // notification writes to the write engine: one full beat at beat address m_wr_baddr
  output logic            m_wr_valid,
  input  logic            m_wr_ready,
  output logic [BAW-1:0]  m_wr_baddr,
  output logic [511:0]    m_wr_data,
  input  logic            done_ntf,      // a notification write's B came back
  // held ACKs, returned to the completion unit
  output logic            m_hack_valid,
  input  logic            m_hack_ready,
  output rsp_desc_t       m_hack,
  // ring configuration
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic [63:0]     cfg_nq_base,   // 64-byte aligned: bits 5:0 are not used
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic [31:0]     cfg_nq_size,   // 0: off (the completion unit sends no request)
  input  logic [31:0]     cfg_nq_tail,
  input  logic            cfg_nq_reset,
  output logic [31:0]     nq_head,
  output logic            nq_wait,       // a request waits for a ring slot
  output logic            stat_notif,    // a notification was written (pulse)
  output logic            stat_notif_off // a request dropped: the ring was turned off (pulse)
);

`ifndef SYNTHESIS
  initial begin
    if (NENT < 2 || EAW > KEYW) $fatal(1, "qrdma_rx_notif: NENT must be in 2..2^KEYW");
  end
`endif

  logic [31:0] issued_q;    // notifications handed to the write engine
  logic [31:0] head_q;      // notifications written (B back)
  logic [31:0] infl_q;      // issued_q - head_q: handed, B not back
  logic [31:0] used_q;      // issued_q - cfg_nq_tail of the cycle before
  logic        ring_ok_q;   // the ring has a free slot (registered, see header)
  logic        inc, inc_q, rst_ring_q;
  logic        take, take_q, drop, ring_off;
  /* verilator lint_off UNUSEDSIGNAL */  // skip: acted on at the take
  rx_nrq_t     n1_q;        // the request taken the cycle before
  /* verilator lint_on UNUSEDSIGNAL */
  logic        hk, hk_q;    // the request taken returns an ACK (not direct)
  logic [15:0] n2_src_q, n2_seq_q;  // the request whose entry is offered
  logic        n2_direct_q; // ... is a receiver-side notification: fields n2_f_q
  rx_ctrl_t    n2_f_q;
  rx_ctrl_t    ctl_rd;
  rx_stamp_t   stamp_rd;    // the entry's stamps (zero without BENCH_STAMPS)
  logic [STAMP_W-1:0] now_q, n2_done_q;   // cycle count; t_done of the entry offered
  logic [31:0] slot;

  // The table is read in every cycle at the offered request's key; the word read in the
  // cycle of the take goes into the output register (loaded in the cycle after the take),
  // which is the entry offered: no enable fans out from the take. RDW_ANY: the read of a
  // take never meets a write of its entry. The entry is written by the packet that makes
  // the completion event due (the CONTROL or the notifying INLINE), long before the
  // event's request comes here, and next by the next block of the TID, which its sender
  // starts only after this request's ACK (returned on m_hack after the take).
  qrdma_sdp_ram #(.WIDTH($bits(rx_ctrl_t)), .DEPTH(NENT), .OUT_REG(1'b1), .RDW_ANY(1'b1),
                  .BANKS((NENT > BANK_WORDS) ? NENT / BANK_WORDS : 1)) u_ctl (
    .clk,
    .wr_en(ctl_we), .wr_be(1'b1), .wr_addr(EAW'(ctl_key)), .wr_data(ctl),
    .rd_en(1'b1), .rd_addr(EAW'(s_ntf.key)), .rd_oe(take_q), .rd_data(ctl_rd)
  );

  // Benchmark mode (docs/fabric.md "Benchmark mode"): the stamps in a table of their own
  // beside the fields, written and read with them; t_done is the cycle the entry is first
  // offered to the write engine (two cycles after the take).
  if (BENCH_STAMPS) begin : gen_stamps
    qrdma_sdp_ram #(.WIDTH($bits(rx_stamp_t)), .DEPTH(NENT), .OUT_REG(1'b1), .RDW_ANY(1'b1),
                    .BANKS((NENT > BANK_WORDS) ? NENT / BANK_WORDS : 1)) u_stamp (
      .clk,
      .wr_en(ctl_we), .wr_be(1'b1), .wr_addr(EAW'(ctl_key)), .wr_data(ctl_stamp),
      .rd_en(1'b1), .rd_addr(EAW'(s_ntf.key)), .rd_oe(take_q), .rd_data(stamp_rd)
    );
  end else begin : gen_no_stamps
    assign stamp_rd = '0;
  end

  always_ff @(posedge clk) now_q <= rst ? '0 : now_q + STAMP_W'(1);

  // the output registers are free at the end of the next cycle, when the taken request is
  // built into them
  logic wr_pend_q, hack_pend_q;
  assign ring_off    = (cfg_nq_size == '0);
  assign take        = s_ntf_valid && (ring_ok_q || ring_off || s_ntf.skip) && !take_q
                       && (!wr_pend_q || m_wr_ready) && (!hack_pend_q || m_hack_ready);
  assign drop        = take && ring_off && !s_ntf.skip;
  assign s_ntf_ready = take;
  assign nq_wait     = s_ntf_valid && !s_ntf.skip && !ring_ok_q;
  assign slot        = issued_q & (cfg_nq_size - 32'd1);
  assign inc         = take && !ring_off && !s_ntf.skip;
  assign hk          = take && !s_ntf.direct;

  // The counters' next values are selected from sums of registers (take and done_ntf
  // only select). The room check is two registered steps: used_q = issued - tail, then
  // ring_ok_q from used_q plus the take of the cycle before used_q was formed (no take
  // in the cycle after one, see header); for two cycles after cfg_nq_reset it is low.
  always_ff @(posedge clk) begin
    if (take) n1_q <= s_ntf;
    take_q <= take;
    hk_q   <= hk;
    inc_q  <= inc;
    stat_notif_off <= drop;
    unique case ({inc, done_ntf})
      2'b10:   infl_q <= infl_q + 32'd1;
      2'b01:   infl_q <= infl_q - 32'd1;
      default: ;
    endcase
    if (cfg_nq_reset) begin
      head_q   <= '0;
      unique case ({inc, done_ntf})
        2'b10:   issued_q <= infl_q + 32'd1;
        2'b01:   issued_q <= infl_q - 32'd1;
        default: issued_q <= infl_q;
      endcase
    end else begin
      if (done_ntf) head_q   <= head_q + 32'd1;
      if (inc)      issued_q <= issued_q + 32'd1;
    end
    used_q     <= issued_q - cfg_nq_tail;
    rst_ring_q <= cfg_nq_reset;
    ring_ok_q  <= (cfg_nq_size != '0) && !cfg_nq_reset && !rst_ring_q
                  && (inc_q ? (used_q < cfg_nq_size - 32'd1) : (used_q < cfg_nq_size));
    stat_notif <= done_ntf;
    if (rst) begin
      take_q     <= 1'b0;
      hk_q       <= 1'b0;
      inc_q      <= 1'b0;
      stat_notif_off <= 1'b0;
      issued_q   <= '0;
      head_q     <= '0;
      infl_q     <= '0;
      rst_ring_q <= 1'b0;
      ring_ok_q  <= 1'b0;
      stat_notif <= 1'b0;
    end
  end

  // the outputs, registered in the cycle after the take (the table's word goes into its
  // output register then)
  always_comb begin
    notif_entry_t e;
    rx_ctrl_t     f;
    e          = '0;
    e.marker   = 8'(NOTIF_FULL);
    f          = n2_direct_q ? n2_f_q : ctl_rd;
    e.kind     = f.is_ctrl ? 4'(NET_CONTROL) : 4'(NET_INLINE);
    e.early    = n2_direct_q;
    e.src_node = n2_src_q;
    e.xfer     = f.xfer;
    e.pd       = f.pd;
    e.size     = f.size;
    e.tag      = f.tag;
    e.dst_addr = f.dst_addr;
    e.seq      = n2_seq_q;
    if (stamp_rd.stamped && !n2_direct_q) begin
      e.stamped = 1'b1;
      e.hops    = stamp_rd.hops;
      e.t_post  = stamp_rd.t_post;
      e.t_send  = stamp_rd.t_send;
      e.t_sw    = stamp_rd.t_sw;
      e.t_recv  = stamp_rd.t_recv;
      e.t_done  = n2_done_q;
    end
    m_wr_data  = e;
  end

  always_ff @(posedge clk) begin
    if (take_q) begin
      n2_src_q        <= n1_q.src_node;
      n2_seq_q        <= n1_q.seq;
      n2_direct_q     <= n1_q.direct;
      n2_f_q          <= n1_q.f;
      n2_done_q       <= now_q + STAMP_W'(1);
      m_hack          <= '0;
      m_hack.dst_node <= n1_q.src_node;
      m_hack.tid      <= n1_q.key[9:0];
      m_hack.seq      <= n1_q.seq;
    end
    if (take) m_wr_baddr <= cfg_nq_base[63:6] + BAW'(slot);
  end

  // pending flags: both outputs go valid together, each stays until taken
  always_ff @(posedge clk) begin
    if (inc_q)             wr_pend_q <= 1'b1;
    else if (m_wr_ready)   wr_pend_q <= 1'b0;
    if (hk_q)              hack_pend_q <= 1'b1;
    else if (m_hack_ready) hack_pend_q <= 1'b0;
    if (rst) begin
      wr_pend_q   <= 1'b0;
      hack_pend_q <= 1'b0;
    end
  end

  assign m_wr_valid   = wr_pend_q;
  assign m_hack_valid = hack_pend_q;
  assign nq_head      = head_q;

endmodule

`default_nettype wire
