// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_rx_wr: the AXI4 write engine of qrdma_rx (docs/nic.md "Receive unit"). It runs
// the write commands of the header processor in order -- RING: the payload beats of a
// DATA packet from the receive buffer, written as they are (they already sit at lane
// dst_addr mod 64); IMM: an INLINE payload rotated to its lane (1 beat, or 2 when it
// crosses a 64-byte boundary); SKIP: release the beats of a dropped packet -- and the
// notification writes of the notification writer (one beat), which go first at the next
// command boundary. Each write is one INCR burst (AWSIZE 6, AWADDR 64-byte aligned, one
// ID, strobes for the partial first/last beat); only an INLINE crossing a 4 KiB boundary
// takes two one-beat bursts (a DATA packet never crosses MAX_PAYLOAD <= 4 KiB).
//
// Contract: B responses come back in order (one ID); a FIFO of KQ_DEPTH entries turns
// each into a pulse done_cmd (a RING/IMM command is complete, with its key, first flag and
// done_err = one of its bursts was answered SLVERR/DECERR) or done_ntf (a notification is
// written). An error response still completes the write.
// Timing: command taken in cycle t -> AW valid (registered) from t+2; its first ring
// beat read at t+1, in the buffer's output register at t+2, in the W FIFO at t+3, W valid
// from t+4; an immediate beat issued at t+1 is in the W FIFO at t+2 (W FIFO of 4 beats,
// one beat per cycle sustained). A W beat is never offered before the AW of its burst.
// The next command is taken in the cycle its predecessor issues its last beat, so beats
// of consecutive commands follow without a gap (an immediate beat waits a cycle after a
// ring beat). A SKIP releases its beats in the cycle after it is taken (buf_skip_en
// registered). B in cycle b -> done_* pulse in b+1.
`default_nettype none

module qrdma_rx_wr
  import qrdma_pkg::*;
  import qrdma_rx_pkg::*;
#(
  parameter int unsigned AXI_ID_W = 4,   // AXI ID width (one ID, 0, is used)
  parameter int unsigned KQ_DEPTH = 32   // bursts in flight (AW issued, B not yet back)
) (
  input  logic                 clk,
  input  logic                 rst,
  // write commands (header processor)
  input  logic                 s_cmd_valid,
  output logic                 s_cmd_ready,
  input  rx_cmd_t              s_cmd,
  // notification writes (notification writer): one full beat at beat address s_ntf_baddr
  input  logic                 s_ntf_valid,
  output logic                 s_ntf_ready,
  input  logic [BAW-1:0]       s_ntf_baddr,
  input  logic [511:0]         s_ntf_data,
  // receive buffer (buf_rd_data two cycles after buf_rd_en)
  output logic                 buf_rd_en,
  input  logic [511:0]         buf_rd_data,
  output logic                 buf_skip_en,
  output logic [NBW-1:0]       buf_skip_beats,
  // AXI4 write master
  output logic [AXI_ID_W-1:0]  m_axi_awid,
  output logic [63:0]          m_axi_awaddr,
  output logic [7:0]           m_axi_awlen,
  output logic [2:0]           m_axi_awsize,
  output logic [1:0]           m_axi_awburst,
  output logic                 m_axi_awvalid,
  input  logic                 m_axi_awready,
  output logic [511:0]         m_axi_wdata,
  output logic [63:0]          m_axi_wstrb,
  output logic                 m_axi_wlast,
  output logic                 m_axi_wvalid,
  input  logic                 m_axi_wready,
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic [AXI_ID_W-1:0]  m_axi_bid,    // one ID: nothing to match
  input  logic [1:0]           m_axi_bresp,  // bit 1: SLVERR or DECERR (bit 0 tells them apart)
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic                 m_axi_bvalid,
  output logic                 m_axi_bready,
  // completions (one-cycle pulses, registered)
  output logic                 done_cmd,
  output logic [KEYW-1:0]      done_key,     // with done_cmd: the command's tracking entry
  output logic                 done_first,   // ... it was its block's first write
  output logic                 done_err,     // ... a burst of it was answered SLVERR/DECERR
  output logic                 done_ntf,
  // occupancy and errors
  output logic [cnt_w(KQ_DEPTH)-1:0] occ_bursts,  // bursts issued, B not yet back
  output logic                 stat_mem_err  // a B answered SLVERR/DECERR (pulse)
);

  localparam int unsigned WQ_DEPTH = 4;
  localparam int unsigned WQW      = 512 + 64 + 1;

  // ------------------------------------------------------------------ current command
  logic            act_q;        // a RING/IMM/notification write is running
  logic            ntf_q;        // it is a notification
  logic            ring_q;       // its beats come from the ring
  logic [BAW-1:0]  baddr_q;
  logic [NBW-1:0]  nbeats_q, beat_q;
  logic [5:0]      lo_q, hi_q;
  logic            split_q;
  logic [511:0]    imm0_q, imm1_q;  // IMM / notification data: two buffers
  logic            cur_q;        // the current command's buffer (imm1_q if set)
  logic [1:0]      aw_q;         // bursts issued for it
  logic [KEYW-1:0] key_q;        // RING/IMM: its tracking entry
  logic            first_q;      // RING/IMM: its block's first write

  logic            aw_go, w_go, aw_done, w_done, fin, load, load_ntf, load_cmd;
  logic [1:0]      aw_need;
  logic            kq_s_ready, kq_af, kq_room_q, wq_s_ready;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [cnt_w(WQ_DEPTH)-1:0] wq_count;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [2:0]      occ_q;        // W FIFO entries and beats on their way to it
  logic            r1_q, r2_q;   // a ring beat was issued one / two cycles before
  logic            i1_q, ib_q;   // an immediate beat was issued the cycle before; its buffer
  logic [63:0]     strb1_q, strb2_q, strb;
  logic            last1_q, last2_q, wlast;
  logic            w_aw_ok;
  logic            wa_now_q, wa_go_q;   // the next W beat's burst: AW issued / issued by aw_go
  logic            w_space_q;           // the W FIFO has room for a beat issued now
  logic            occ_ok_n, ring_n;    // w_space_q's parts for the next cycle
  logic            skip_q;       // a SKIP was taken the cycle before
  logic [NBW-1:0]  skip_nb_q;

  assign aw_need = split_q ? 2'd2 : 2'd1;

  // Predicates on the counters, registered: the handshake logic below (AW and W
  // handshakes, command loads) combines single bits, a short path and cheaper to
  // simulate (it is evaluated again whenever an input of the model changes). aw_more_q = act_q && aw_q != aw_need, aw_last_q = (aw_q + 1 ==
  // aw_need), w_more_q = act_q && beat_q != nbeats_q, w_last_q = (beat_q + 1 == nbeats_q),
  // w_b2_q = split_q && beat_q != 0 (the beat belongs to the second burst).
  logic aw_more_q, aw_last_q, w_more_q, w_last_q, w_b2_q;

  // AW: registered outputs, one burst per command (two for a split IMM)
  // (kq_room_q: the B FIFO had room for two in the cycle before, so it has for one now)
  assign aw_go = aw_more_q && (!m_axi_awvalid || m_axi_awready) && kq_room_q;

  // W: a beat may go once the AW of its burst is issued (now or before), and when the
  // W FIFO will have room for it and for the beats on their way when it arrives (a ring
  // beat two cycles later, from the buffer's output register; an immediate beat the next
  // cycle, so it waits while a ring beat issued the cycle before has yet to land)
  // (w_b2_q ? aw_q == 2 || (aw_q == 1 && aw_go) : aw_q != 0 || aw_go, from two registered
  // predicates: wa_now_q = the burst's AW is issued, wa_go_q = an AW issued now is its)
  assign w_aw_ok = wa_now_q || (wa_go_q && aw_go);
  // (w_space_q: occ_q < WQ_DEPTH && (ring_q || !r1_q), registered)
  assign w_go    = w_more_q && w_aw_ok && w_space_q;

  // (aw_q + aw_go == aw_need, beat_q + w_go == nbeats_q)
  assign aw_done = !aw_more_q || (aw_last_q && aw_go);
  assign w_done  = !w_more_q || (w_last_q && w_go);
  assign fin     = act_q && aw_done && w_done;

  // next command: notifications first; SKIP commands are done as they are taken
  assign load     = !act_q || fin;
  assign load_ntf = load && s_ntf_valid;
  assign load_cmd = load && !s_ntf_valid && s_cmd_valid;
  assign s_ntf_ready = load_ntf;
  assign s_cmd_ready = load_cmd;

  assign buf_rd_en      = w_go && ring_q;
  assign buf_skip_en    = skip_q;
  assign buf_skip_beats = skip_nb_q;

  always_comb begin
    strb = {64{1'b1}};
    if (beat_q == '0) strb &= {64{1'b1}} << lo_q;
    if (w_last_q)     strb &= {64{1'b1}} >> (6'd63 - hi_q);
  end
  assign wlast = w_last_q || (split_q && beat_q == '0);

  // A SKIP is released the cycle after it is taken, from registers: no ring beat is read
  // then (nothing is running: the SKIP was taken as the running command finished).
  always_ff @(posedge clk) begin
    if (rst) begin
      act_q  <= 1'b0;
      occ_q  <= '0;
      kq_room_q <= 1'b0;
      r1_q   <= 1'b0;
      r2_q   <= 1'b0;
      i1_q   <= 1'b0;
      skip_q <= 1'b0;
      w_space_q <= 1'b1;
    end else begin
      r1_q   <= buf_rd_en;
      w_space_q <= occ_ok_n && (ring_n || !buf_rd_en);
      r2_q   <= r1_q;
      // occ_q = W FIFO count + beats issued and not yet in it: + an issued beat, - a W beat
      // taken (the selected increments of a register)
      unique case ({w_go, m_axi_wvalid && m_axi_wready})
        2'b10:   occ_q <= occ_q + 3'd1;
        2'b01:   occ_q <= occ_q - 3'd1;
        default: ;
      endcase
      kq_room_q <= !kq_af;
      i1_q   <= w_go && !ring_q;
      skip_q <= load_cmd && s_cmd.op == OP_SKIP;
      if (load_ntf || (load_cmd && s_cmd.op != OP_SKIP)) act_q <= 1'b1;
      else if (fin)                                     act_q <= 1'b0;
    end
  end

  // The predicates' next values are chosen by the handshakes (loads, aw_go, w_go) among
  // candidates formed from registers and the command offered, so that no handshake
  // feeds a counter compare: a load starts them afresh; otherwise an issued burst or beat
  // steps them (aw_last2 = (aw_q + 2 == aw_need), w_last2 = (beat_q + 2 == nbeats_q)).
  logic aw_last2, w_last2, w_b2_go, stay, cmd_act;
  logic [1:0] aw_n;     // aw_q's next value
  logic       w_b2_n;   // w_b2_q's next value
  assign aw_n   = (load_ntf || load_cmd) ? 2'd0 : aw_q + 2'(aw_go);
  assign w_b2_n = (load_ntf || load_cmd) ? 1'b0 : (w_go ? w_b2_go : w_b2_q);
  // the W FIFO's room next cycle, chosen by the beat issued and the beat taken among
  // compares of registers (as occ_q's next value is chosen among its increments)
  always_comb begin
    unique case ({w_go, m_axi_wvalid && m_axi_wready})
      2'b10:   occ_ok_n = 32'(occ_q + 3'd1) < WQ_DEPTH;
      2'b01:   occ_ok_n = 32'(occ_q - 3'd1) < WQ_DEPTH;
      default: occ_ok_n = 32'(occ_q) < WQ_DEPTH;
    endcase
  end
  assign ring_n = load_ntf ? 1'b0 : load_cmd ? (s_cmd.op == OP_RING) : ring_q;
  assign aw_last2 = split_q && aw_q == 2'd0;
  assign w_last2  = (beat_q + NBW'(2) == nbeats_q);
  assign w_b2_go  = split_q && (beat_q + NBW'(1) != '0);
  assign stay     = act_q && !fin;
  assign cmd_act  = (s_cmd.op != OP_SKIP);

  always_ff @(posedge clk) begin
    if (load_ntf) begin
      aw_more_q <= 1'b1;
      aw_last_q <= 1'b1;
      w_more_q  <= 1'b1;
      w_last_q  <= 1'b1;
      w_b2_q    <= 1'b0;
    end else if (load_cmd) begin
      aw_more_q <= cmd_act;
      aw_last_q <= !s_cmd.split;
      w_more_q  <= cmd_act && s_cmd.nbeats != '0;
      w_last_q  <= (s_cmd.nbeats == NBW'(1));
      w_b2_q    <= 1'b0;
    end else begin
      aw_more_q <= stay && (aw_go ? !aw_last_q : aw_more_q);
      aw_last_q <= aw_go ? aw_last2 : aw_last_q;
      w_more_q  <= stay && (w_go ? !w_last_q : w_more_q);
      w_last_q  <= w_go ? w_last2 : w_last_q;
      w_b2_q    <= w_go ? w_b2_go : w_b2_q;
    end
    if (rst) begin
      aw_more_q <= 1'b0;
      w_more_q  <= 1'b0;
    end
  end

  always_ff @(posedge clk) begin
    if (load_ntf) begin
      ntf_q    <= 1'b1;
      ring_q   <= 1'b0;
      baddr_q  <= s_ntf_baddr;
      nbeats_q <= NBW'(1);
      lo_q     <= 6'd0;
      hi_q     <= 6'd63;
      split_q  <= 1'b0;
    end else if (load_cmd) begin
      key_q    <= s_cmd.key;
      first_q  <= s_cmd.first;
      ntf_q    <= 1'b0;
      ring_q   <= (s_cmd.op == OP_RING);
      baddr_q  <= s_cmd.baddr;
      nbeats_q <= s_cmd.nbeats;
      lo_q     <= s_cmd.lo;
      hi_q     <= s_cmd.hi;
      split_q  <= s_cmd.split;
    end
    if (load_cmd) skip_nb_q <= s_cmd.nbeats;
    beat_q <= (load_ntf || load_cmd) ? '0 : beat_q + NBW'(w_go);
    aw_q   <= aw_n;
    wa_now_q <= w_b2_n ? (aw_n == 2'd2) : (aw_n != 2'd0);
    wa_go_q  <= !w_b2_n || aw_n == 2'd1;
    if (w_go) begin
      strb1_q <= strb;
      last1_q <= wlast;
      ib_q    <= cur_q;
    end
    if (r1_q) begin
      strb2_q <= strb1_q;
      last2_q <= last1_q;
    end
  end

  // Immediate data: the buffer that is not the current command's follows the write
  // offered (a notification first, else the command), so it holds the data of a write
  // loaded in this cycle, which then makes it the current one. A buffer left is kept
  // through the next cycle, when its last beat goes into the W FIFO.
  always_ff @(posedge clk) begin
    if (cur_q) imm0_q <= s_ntf_valid ? s_ntf_data : s_cmd.data;
    else       imm1_q <= s_ntf_valid ? s_ntf_data : s_cmd.data;
    if (load_ntf || load_cmd) cur_q <= !cur_q;
    if (rst) cur_q <= 1'b0;
  end

  // ------------------------------------------------------------------ AW channel
  logic [BAW-1:0] awb_q;

  always_ff @(posedge clk) begin
    if (rst) begin
      m_axi_awvalid <= 1'b0;
    end else if (aw_go) begin
      m_axi_awvalid <= 1'b1;
    end else if (m_axi_awready) begin
      m_axi_awvalid <= 1'b0;
    end
  end

  always_ff @(posedge clk) begin
    if (aw_go) begin
      awb_q       <= baddr_q + BAW'(aw_q);
      m_axi_awlen <= split_q ? 8'd0 : 8'(nbeats_q - NBW'(1));
    end
  end

  assign m_axi_awaddr  = {awb_q, 6'b0};
  assign m_axi_awid    = '0;
  assign m_axi_awsize  = 3'd6;
  assign m_axi_awburst = 2'b01;   // INCR

  // ------------------------------------------------------------------ W channel
  /* verilator lint_off UNUSEDSIGNAL */
  logic wq_af;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [WQW-1:0] wq_m_data;
  logic           wq_s_valid;
  logic [WQW-1:0] wq_s_data;

  // a ring beat issued two cycles before (its data in the buffer's output register) or
  // an immediate beat issued the cycle before: never both (w_space_q)
  assign wq_s_valid = r2_q || i1_q;
  // entries {strb, last, data}: the data word-aligned (faster simulation)
  assign wq_s_data  = r2_q ? {strb2_q, last2_q, buf_rd_data}
                           : {strb1_q, last1_q, ib_q ? imm1_q : imm0_q};

  qrdma_sync_fifo #(.WIDTH(WQW), .DEPTH(WQ_DEPTH)) u_w_fifo (
    .clk, .rst,
    .s_valid(wq_s_valid), .s_ready(wq_s_ready), .s_data(wq_s_data),
    .m_valid(m_axi_wvalid), .m_ready(m_axi_wready),
    .m_data(wq_m_data),
    .count(wq_count), .almost_full(wq_af)
  );

  assign {m_axi_wstrb, m_axi_wlast, m_axi_wdata} = wq_m_data;

  // ------------------------------------------------------------------ B channel
  /* verilator lint_off UNUSEDSIGNAL */  // FIFO outputs this block has no use for
  logic                       kq_m_valid;
  /* verilator lint_on UNUSEDSIGNAL */
  logic                       kq_ntf, kq_end, kq_first, b_err, err_q;
  logic [KEYW-1:0]            kq_key;

  qrdma_sync_fifo #(.WIDTH(3 + KEYW), .DEPTH(KQ_DEPTH), .ALMOST_FULL(KQ_DEPTH - 1)) u_kind_fifo (
    .clk, .rst,
    .s_valid(aw_go), .s_ready(kq_s_ready),
    .s_data({ntf_q, aw_q + 2'd1 == aw_need, first_q, key_q}),
    .m_valid(kq_m_valid), .m_ready(m_axi_bvalid), .m_data({kq_ntf, kq_end, kq_first, kq_key}),
    .count(occ_bursts), .almost_full(kq_af)
  );

  assign m_axi_bready = 1'b1;
  assign b_err        = m_axi_bresp[1];   // SLVERR or DECERR

  // err_q: the first burst of a split IMM was answered with an error (its second burst
  // ends the command and comes next in B order)
  always_ff @(posedge clk) begin
    if (m_axi_bvalid) begin
      done_key   <= kq_key;
      done_first <= kq_first;
      done_err   <= b_err || err_q;
      err_q      <= !kq_end && b_err;
    end
    done_cmd     <= m_axi_bvalid && !kq_ntf && kq_end;
    done_ntf     <= m_axi_bvalid && kq_ntf;
    stat_mem_err <= m_axi_bvalid && b_err;
    if (rst) begin
      done_cmd     <= 1'b0;
      done_ntf     <= 1'b0;
      stat_mem_err <= 1'b0;
      err_q        <= 1'b0;
    end
  end

`ifndef SYNTHESIS
  // every B answers a burst this engine issued; the W FIFO has room for every beat
  always_ff @(posedge clk) begin
    if (m_axi_bvalid)
      if (!rst) assert (kq_m_valid)
        else $error("qrdma_rx_wr: B response without an outstanding burst");
    if (wq_s_valid)
      if (!rst) assert (wq_s_ready && !(r2_q && i1_q))
        else $error("qrdma_rx_wr: W FIFO full or two beats at once");
    if (aw_go)
      if (!rst) assert (kq_s_ready) else $error("qrdma_rx_wr: B FIFO full at an AW");
    if (!rst) assert (w_space_q == ((32'(occ_q) < WQ_DEPTH) && (ring_q || !r1_q)))
      else $error("qrdma_rx_wr: W room flag %0b, occupancy %0d", w_space_q, occ_q);
    if (w_more_q)
      if (!rst) assert (wa_now_q == (w_b2_q ? aw_q == 2'd2 : aw_q != 2'd0)
                        && wa_go_q == (!w_b2_q || aw_q == 2'd1))
        else $error("qrdma_rx_wr: W burst predicates %0b %0b, aw_q %0d, second burst %0b",
                    wa_now_q, wa_go_q, aw_q, w_b2_q);
  end
`endif

endmodule

`default_nettype wire
