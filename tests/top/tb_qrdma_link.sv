// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// tb_qrdma_link: testbench model of a point-to-point link (not hardware). A beat taken on
// s_axis at cycle t is offered on m_axis from cycle t + LATENCY on, in order, never
// dropped: the beats in flight wait in a FIFO of DEPTH beats and s_axis_tready falls only
// when it is full (so a receiver that stops stalls the sender after DEPTH beats, as a
// credit-based link would). Fault injection: a cycle with flip_en high arms the link; the
// header beat (first beat) of the next packet taken then has bit flip_bit of tdata
// inverted, which disarms it (one packet per arming); `flips` counts the packets
// corrupted so. A corrupted header always fails the receiver's CRC check.
//
// With fault_on high (from reset on, for the whole run) the link is the fault model of the
// system simulation's links (docs/sim.md "Faults", sim/faults.h; reference model
// tests/model/link_fault_model.py), cycle for cycle: random loss, corruption, duplication,
// reordering, link-down windows and a silent sender, configured by fault_cfg and decided
// per packet from (seed, SRC, DST, packet number) with the harness's hash; the beats go
// into a store-and-forward line of CAP beats and from there, one per cycle, whole packets
// in the order of their due cycles, onto a wire of LATENCY cycles and DEPTH beats.
// fault_cnt holds the model's counts (qrdma_sim_fault_counts). flip_en works in both modes
// (it flips the beat as taken).
`default_nettype none

module tb_qrdma_link #(
  parameter int unsigned LATENCY = 100,  // cycles from s_axis handshake to m_axis valid (>= 1)
  parameter int unsigned DEPTH   = 256,  // beats the link holds (>= LATENCY + 2 for full rate)
  parameter int unsigned SRC     = 0,    // direction SRC -> DST: the fault decisions' stream
  parameter int unsigned DST     = 1,
  parameter int unsigned CAP     = 2048  // beats the fault line holds (power of 2; the
                                         // harness's: 2 * reorder + 1024 rounded up)
) (
  input  logic         clk,
  input  logic         rst,
  input  logic [511:0] s_axis_tdata,
  input  logic [63:0]  s_axis_tkeep,
  input  logic         s_axis_tlast,
  input  logic [31:0]  s_axis_tuser,
  input  logic         s_axis_tvalid,
  output logic         s_axis_tready,
  output logic [511:0] m_axis_tdata,
  output logic [63:0]  m_axis_tkeep,
  output logic         m_axis_tlast,
  output logic [31:0]  m_axis_tuser,
  output logic         m_axis_tvalid,
  input  logic         m_axis_tready,
  input  logic         flip_en,
  input  logic [8:0]   flip_bit,
  output logic [31:0]  flips,
  output logic [511:0] flip_hdr,   // the last corrupted header as it was sent
  output logic [31:0]  beats,      // beats delivered on m_axis
  output logic [15:0]  occ,        // beats held
  // fault model: fault_cfg bits 63:0 seed, 127:64 loss, 191:128 corrupt, 255:192 dup
  // (probability p as ceil(p * 2^53)), 287:256 reorder (cycles), 351:288 down_start,
  // 415:352 down_len, 479:416 down_period, 480 silent; fault_cnt word i (bits 32i+31:32i)
  // the i-th count of qrdma_sim_fault_counts (packets_in, beats_in, packets_out,
  // beats_out, silenced, down_lost, lost, dropped_beats, corrupted, duplicated, dup_beats,
  // delayed, reordered)
  input  logic         fault_on,
  input  logic [480:0] fault_cfg,
  output logic [415:0] fault_cnt
);

`ifndef SYNTHESIS
  initial begin
    if (LATENCY < 1 || DEPTH < 2) $fatal(1, "tb_qrdma_link: LATENCY >= 1, DEPTH >= 2");
    if (CAP < 64 || (CAP & (CAP - 1)) != 0) $fatal(1, "tb_qrdma_link: CAP a power of 2 >= 64");
  end
`endif

  typedef struct packed {
    logic [31:0]  ts;
    logic [511:0] data;
    logic [63:0]  keep;
    logic         last;
    logic [31:0]  user;
  } beat_t;

  logic [31:0] now_q;
  logic        first_q;   // next beat taken is the first of a packet
  logic        armed_q;   // corrupt the next packet's header
  logic        hs, flip;
  beat_t       in, out;
  logic        out_valid;
  logic        fifo_s_ready, fifo_valid, line_ready, wire_valid;
  beat_t       wire_head;
  logic [15:0] line_occ;

  assign hs   = s_axis_tvalid && s_axis_tready;
  assign flip = hs && first_q && armed_q;
  assign in   = '{ts: now_q, data: s_axis_tdata ^ (512'(flip) << flip_bit),
                  keep: s_axis_tkeep, last: s_axis_tlast, user: s_axis_tuser};

  always_ff @(posedge clk) begin
    if (rst) begin
      now_q   <= '0;
      first_q <= 1'b1;
      armed_q <= 1'b0;
      flips   <= '0;
      flip_hdr <= '0;
      beats   <= '0;
    end else begin
      now_q <= now_q + 32'd1;
      if (hs) first_q <= s_axis_tlast;
      armed_q <= (armed_q || flip_en) && !flip;
      if (flip) flips <= flips + 32'd1;
      if (flip) flip_hdr <= s_axis_tdata;
      if (m_axis_tvalid && m_axis_tready) beats <= beats + 32'd1;
    end
  end

  // ---------------------------------------------------------------- the plain link
  logic [$clog2(DEPTH + 1)-1:0] count;
  /* verilator lint_off PINCONNECTEMPTY */
  qrdma_sync_fifo #(.WIDTH($bits(beat_t)), .DEPTH(DEPTH)) u_fifo (
    .clk, .rst,
    .s_valid (s_axis_tvalid && !fault_on), .s_ready (fifo_s_ready), .s_data (in),
    .m_valid (out_valid), .m_ready (m_axis_tvalid && m_axis_tready && !fault_on),
    .m_data (out), .count (count), .almost_full ()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // the head beat is due once LATENCY cycles have passed since it was taken
  assign fifo_valid = out_valid && (now_q - out.ts >= 32'(LATENCY));

  // ---------------------------------------------------------------- the fault line
  typedef struct packed {
    logic        silent;
    logic [63:0] down_period;
    logic [63:0] down_len;
    logic [63:0] down_start;
    logic [31:0] reorder;
    logic [63:0] dup_thr;
    logic [63:0] corrupt_thr;
    logic [63:0] loss_thr;
    logic [63:0] seed;
  } cfg_t;
  cfg_t cfg;
  assign cfg = cfg_t'(fault_cfg);

  localparam int unsigned AW = $clog2(CAP);
  localparam int unsigned WDEPTH = 1 << $clog2(DEPTH);
  localparam int unsigned WW = $clog2(WDEPTH) > 0 ? $clog2(WDEPTH) : 1;
  localparam int unsigned NCNT = 13;
  typedef enum int unsigned {
    C_PACKETS_IN, C_BEATS_IN, C_PACKETS_OUT, C_BEATS_OUT, C_SILENCED, C_DOWN_LOST, C_LOST,
    C_DROPPED_BEATS, C_CORRUPTED, C_DUPLICATED, C_DUP_BEATS, C_DELAYED, C_REORDERED
  } cnt_e;

  // splitmix64's output function and the harness's per-packet random words (faults.h)
  function automatic logic [63:0] mix64(input logic [63:0] z0);
    logic [63:0] z;
    z = z0 + 64'h9e3779b97f4a7c15;
    z = (z ^ (z >> 30)) * 64'hbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 64'h94d049bb133111eb;
    return z ^ (z >> 31);
  endfunction
  function automatic logic [63:0] frand(input logic [63:0] seed, input logic [63:0] pkt,
                                        input logic [63:0] k);
    return mix64(mix64(mix64(seed ^ {32'(SRC), 32'(DST)}) ^ pkt) + k);
  endfunction
  function automatic logic hit(input logic [63:0] r, input logic [63:0] thr);
    return (r >> 11) < thr;
  endfunction

  // State of the line (behavioural, testbench only). One process does a cycle in the
  // harness's order on the values sampled at its start: the beat taken, then one beat onto
  // the wire, then the beat the receiver took.
  beat_t       ring [CAP];       // beats of the packets held, in the order taken
  logic [63:0] p_seq [CAP];      // packets held: number, first beat, beats, ...
  logic [31:0] p_first [CAP], p_beats [CAP];
  logic        p_complete [CAP], p_corrupt [CAP];
  logic [1:0]  p_copies [CAP], p_sent [CAP];
  logic [63:0] p_due0 [CAP], p_due1 [CAP];
  logic [31:0] p_flip_beat [CAP];
  logic [6:0]  p_flip_byte [CAP];
  logic [4:0]  p_flip_bit [CAP];
  beat_t       wq [WDEPTH];      // the wire
  logic [31:0] w_head, w_tail;
  logic [31:0] stored, freed, p_head, p_tail;
  logic [63:0] seq;
  logic        in_pkt, dropping, cur_valid, cur_copy;
  logic [AW-1:0] cur;
  logic [31:0] cur_beat;
  logic [31:0] cnt [NCNT];

  assign line_ready = stored - freed < 32'(CAP);
  assign wire_head  = wq[w_head[WW-1:0]];
  assign wire_valid = w_head != w_tail && (now_q - wire_head.ts >= 32'(LATENCY));
  assign line_occ   = 16'(stored - freed + w_tail - w_head);
  for (genvar i = 0; i < NCNT; i++) begin : gen_cnt
    assign fault_cnt[32*i +: 32] = cnt[i];
  end

  /* verilator lint_off BLKSEQ */  // a behavioural model: each step sees the one before
  always_ff @(posedge clk) begin : fault_line
    logic        take, pop, room, last, found, is_down;
    logic [AW-1:0] p;
    logic [31:0] k, best, nkeep, j;
    logic [63:0] t, r, extra, span, bdue, d;
    logic        bc;
    logic [63:0] keep;
    beat_t       b;
    if (rst) begin
      w_head = '0; w_tail = '0; stored = '0; freed = '0; p_head = '0; p_tail = '0;
      seq = '0; in_pkt = 1'b0; dropping = 1'b0; cur_valid = 1'b0;
      cur_copy = 1'b0; cur = '0; cur_beat = '0;
      for (int i = 0; i < NCNT; i++) cnt[i] = '0;
    end else if (fault_on) begin
      take = s_axis_tvalid && s_axis_tready;
      pop  = m_axis_tvalid && m_axis_tready;
      room = w_tail - w_head < 32'(DEPTH);
      t    = 64'(now_q);
      // the beat taken: the packet's fate at its header, the rest at its last beat
      if (take) begin
        last = s_axis_tlast;
        if (!in_pkt) begin
          cnt[C_PACKETS_IN]++;
          d = t - cfg.down_start;
          is_down = cfg.down_len != 0 && t >= cfg.down_start
                    && (cfg.down_period != 0 ? d % cfg.down_period : d) < cfg.down_len;
          dropping = 1'b1;
          if (cfg.silent) cnt[C_SILENCED]++;
          else if (is_down) cnt[C_DOWN_LOST]++;
          else if (hit(frand(cfg.seed, seq, 64'd0), cfg.loss_thr)) cnt[C_LOST]++;
          else dropping = 1'b0;
          if (!dropping) begin
            p = AW'(p_tail);
            p_tail = p_tail + 32'd1;
            p_seq[p] = seq;
            p_first[p] = stored;
            p_beats[p] = '0;
            p_complete[p] = 1'b0;
            p_copies[p] = 2'd1;
            p_sent[p] = 2'd0;
            p_corrupt[p] = 1'b0;
          end
          seq = seq + 64'd1;
        end
        cnt[C_BEATS_IN]++;
        in_pkt = !last;
        if (dropping) begin
          cnt[C_DROPPED_BEATS]++;
        end else begin
          p = AW'(p_tail - 32'd1);
          ring[stored[AW-1:0]] = in;
          stored = stored + 32'd1;
          p_beats[p] = p_beats[p] + 32'd1;
          if (last) begin
            p_complete[p] = 1'b1;
            span = 64'(cfg.reorder) + 64'd1;
            extra = cfg.reorder != 0 ? frand(cfg.seed, p_seq[p], 64'd3) % span : '0;
            p_due0[p] = t + extra;
            if (extra != 0) cnt[C_DELAYED]++;
            if (hit(frand(cfg.seed, p_seq[p], 64'd2), cfg.dup_thr)) begin
              p_copies[p] = 2'd2;
              p_due1[p] = t + (cfg.reorder != 0
                  ? frand(cfg.seed, p_seq[p], 64'd4) % span : '0);
              cnt[C_DUPLICATED]++;
              cnt[C_DUP_BEATS] = cnt[C_DUP_BEATS] + p_beats[p];
            end
            if (hit(frand(cfg.seed, p_seq[p], 64'd1), cfg.corrupt_thr)) begin
              r = frand(cfg.seed, p_seq[p], 64'd5);
              p_corrupt[p] = 1'b1;
              p_flip_beat[p] = 32'(r % 64'(p_beats[p]));
              keep = ring[AW'(p_first[p] + p_flip_beat[p])].keep;
              nkeep = 32'($countones(keep));
              if (nkeep != 0) begin
                j = 32'((r >> 32) % 64'(nkeep));
                for (int i = 0; i < 64; i++) begin
                  if (keep[i]) begin
                    if (j == 0) begin
                      p_flip_byte[p] = 7'(i);
                      break;
                    end
                    j = j - 32'd1;
                  end
                end
                p_flip_bit[p] = 5'((r >> 8) & 64'd7);
              end else begin
                p_flip_byte[p] = 7'd64;
                p_flip_bit[p] = 5'((r >> 8) & 64'd31);
              end
              cnt[C_CORRUPTED]++;
            end
          end
        end
      end
      // one beat onto the wire
      if (room) begin
        if (!cur_valid) begin
          found = 1'b0;
          best = '0;
          bc = '0;
          bdue = '0;
          for (k = p_head; k != p_tail; k = k + 32'd1) begin
            if (!p_complete[k[AW-1:0]]) break;
            if (!p_sent[k[AW-1:0]][0] && p_due0[k[AW-1:0]] <= t
                && (!found || p_due0[k[AW-1:0]] < bdue)) begin
              found = 1'b1; best = k; bc = 1'b0; bdue = p_due0[k[AW-1:0]];
            end
            if (p_copies[k[AW-1:0]] == 2'd2 && !p_sent[k[AW-1:0]][1]
                && p_due1[k[AW-1:0]] <= t && (!found || p_due1[k[AW-1:0]] < bdue)) begin
              found = 1'b1; best = k; bc = 1'b1; bdue = p_due1[k[AW-1:0]];
            end
          end
          if (found) begin
            cur_valid = 1'b1;
            cur = AW'(best);
            cur_copy = bc;
            cur_beat = '0;
            if (p_sent[best[AW-1:0]] == 2'd0) begin
              for (k = p_head; k != best; k = k + 32'd1) begin
                if (p_sent[k[AW-1:0]] == 2'd0) begin
                  cnt[C_REORDERED]++;
                  break;
                end
              end
            end
          end
        end
        if (cur_valid) begin
          b = ring[AW'(p_first[cur] + cur_beat)];
          if (!cur_copy && p_corrupt[cur] && cur_beat == p_flip_beat[cur]) begin
            if (p_flip_byte[cur] < 7'd64)
              b.data[{p_flip_byte[cur][5:0], p_flip_bit[cur][2:0]}] ^= 1'b1;
            else
              b.user[p_flip_bit[cur]] ^= 1'b1;
          end
          b.ts = t[31:0];
          wq[w_tail[WW-1:0]] = b;
          w_tail = w_tail + 32'd1;
          cnt[C_BEATS_OUT]++;
          cur_beat = cur_beat + 32'd1;
          if (cur_beat == p_beats[cur]) begin
            p_sent[cur][cur_copy] = 1'b1;
            cnt[C_PACKETS_OUT]++;
            cur_valid = 1'b0;
            while (p_head != p_tail && p_complete[p_head[AW-1:0]]
                   && p_sent[p_head[AW-1:0]] == (p_copies[p_head[AW-1:0]] == 2'd2 ? 2'd3 : 2'd1))
            begin
              freed = p_first[p_head[AW-1:0]] + p_beats[p_head[AW-1:0]];
              p_head = p_head + 32'd1;
            end
          end
        end
      end
      // the beat the receiver took
      if (pop) w_head = w_head + 32'd1;
    end
  end
  /* verilator lint_on BLKSEQ */

  // ---------------------------------------------------------------- outputs
  assign s_axis_tready = fault_on ? line_ready : fifo_s_ready;
  assign m_axis_tvalid = fault_on ? wire_valid : fifo_valid;
  assign m_axis_tdata  = fault_on ? wire_head.data : out.data;
  assign m_axis_tkeep  = fault_on ? wire_head.keep : out.keep;
  assign m_axis_tlast  = fault_on ? wire_head.last : out.last;
  assign m_axis_tuser  = fault_on ? wire_head.user : out.user;
  assign occ = fault_on ? line_occ : 16'(count);

endmodule

`default_nettype wire
