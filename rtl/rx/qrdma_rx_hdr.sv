// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_rx_hdr: the header processor of qrdma_rx (docs/nic.md "Receive unit"; seed 004
// §3.2-3.3 block registration, duplicate detection and notification). It takes the
// packets of the receive buffer in arrival order, once their CRC is known, and decides:
//   * bad CRC                                   -> dropped (stat_crc_drop)
//   * malformed: type not DATA/INLINE/CONTROL/ACK/NACK, dst_node != node_id, DATA with
//     len 0 or > MAX_PAYLOAD, crossing a MAX_PAYLOAD boundary, blk_pkts 0 or
//     > MAX_BLK_PKTS, pkt_idx >= blk_pkts, or a payload beat count that does not match
//     dst_addr/len; INLINE with len 0 or > 32; any payload beat on a one-beat type; more
//     payload beats than any legal packet has (s_hdr_long)
//                                               -> dropped (stat_bad_drop)
//   * ACK / NACK                                -> m_ack (ACK_DESC)
//   * DATA / INLINE (a one-packet block) / CONTROL: looked up in the block-tracking table,
//     one entry per (src_node mod NUM_NODES, tid): valid, seq, mask of the packets
//     written, their count, done (all blk_pkts written), ctrl (the CONTROL naming this
//     block came). A packet whose seq differs from a done entry's (its block is complete
//     and acknowledged) starts the entry afresh; on an entry still being filled, a newer
//     seq (modulo 2^16; or an unused entry) starts it afresh and an older one is dropped
//     (stat_stale_drop). The sender reuses a TID only after the ACK of its previous block,
//     i.e. after that block's entry is done, so a new block is never mistaken for an old
//     one however many sequence numbers (one global 16-bit counter) went by meanwhile;
//     a late copy of an older block's packet reaching a done entry would be taken as a
//     new block (no such copies exist without retransmission: the reliability layer
//     must bring its own duplicate filter). A packet whose bit is set (or a second
//     CONTROL) is dropped (stat_dup_drop). An accepted DATA/INLINE packet becomes a write
//     command; the one that completes its block emits a completion event (ACK request),
//     with a notification when ctrl is set (fields of the CONTROL, kept in a second table
//     until then) or when it is an INLINE with notify. A CONTROL for a block already done
//     emits a notification event; otherwise it marks the entry notify-pending.
// Every dropped packet's payload beats become a SKIP command (released unwritten). Write
// commands and events leave in packet order; each event carries the number of write
// commands issued up to it (wtag), and is acted on only once that many have their B.
//
// Tables: qrdma_sdp_ram with RDW_NEW, NUM_NODES*1024 entries. After rst they are cleared
// by a sweep of NUM_NODES*1024 cycles during which no packet is taken (they wait in the
// receive buffer). Pipeline, one packet per cycle:
//   t    stage 0: the packet is taken, both tables are read;
//   t+1  stage 1: the table outputs arrive and are registered (a write in the cycle of
//        the read comes by RDW_NEW, a write made by stage 2 since, by a snoop); the
//        packet waits here while stage 2 holds one;
//   t+2  stage 2: the decision; the tables are written (read-modify-write of the entry);
//   t+3  stage 3: command / event / ACK pushed into their output FIFOs (visible at t+4;
//        the event FIFO is block RAM: t+5). Stage 3 waits while any output FIFO is full,
//        and the stages behind it wait with it.
// The registers at the table outputs and after the decision keep the block RAM's
// clock-to-output and the FIFO pushes out of the decision path.
// Simulation speed (docs/sim.md): the checks of stage 0 are evaluated inside the stage-1
// registers' always_ff (only when a packet is taken; node_id, a top-level input, is then
// read by no combinational logic), the write command, event and ACK of stage 2 inside
// the stage-3 registers' always_ff (only when stage 2 fires): Verilator skips them in
// every other cycle.
`default_nettype none

module qrdma_rx_hdr
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
  import qrdma_rx_pkg::*;
#(
  parameter int unsigned NUM_NODES    = 4,    // source nodes tracked (power of 2)
  parameter int unsigned MAX_PAYLOAD  = 1024, // largest DATA payload in bytes
  parameter int unsigned MAX_BLK_PKTS = 64,   // packets of a block (bits of the mask), 1..256
  parameter int unsigned EVT_DEPTH    = 64,   // completion events queued
  localparam int unsigned NENT        = NUM_NODES * 1024,
  localparam int unsigned EAW         = idx_w(NENT)
) (
  input  logic                  clk,
  input  logic                  rst,
  input  logic [15:0]           node_id,
  // packets from the receive buffer
  input  logic                  s_hdr_valid,
  output logic                  s_hdr_ready,
  input  net_hdr_t              s_hdr,
  input  logic [NBW-1:0]        s_hdr_nbeats,
  input  logic                  s_hdr_long,
  input  logic                  s_hdr_crc_ok,
  // write commands to the AXI write engine
  output logic                  m_cmd_valid,
  input  logic                  m_cmd_ready,
  output rx_cmd_t               m_cmd,
  // completion events to the notification writer
  output logic                  m_evt_valid,
  input  logic                  m_evt_ready,
  output rx_evt_t               m_evt,
  // received ACK / NACK
  output logic                  m_ack_valid,
  input  logic                  m_ack_ready,
  output logic [31:0]           m_ack_data,
  // one-cycle pulses (registered)
  output logic                  stat_data_pkt,
  output logic                  stat_ctrl_pkt,
  output logic [12:0]           stat_bytes,
  output logic                  stat_crc_drop,
  output logic                  stat_dup_drop,
  output logic                  stat_stale_drop,
  output logic                  stat_bad_drop
);

  localparam int unsigned CW = cnt_w(MAX_BLK_PKTS);
  localparam int unsigned IW = idx_w(MAX_BLK_PKTS);

`ifndef SYNTHESIS
  initial begin
    if (NUM_NODES < 1 || (NUM_NODES & (NUM_NODES - 1)) != 0)
      $fatal(1, "qrdma_rx_hdr: NUM_NODES must be a power of 2");
    if (MAX_BLK_PKTS < 1 || MAX_BLK_PKTS > 256)
      $fatal(1, "qrdma_rx_hdr: MAX_BLK_PKTS must be in 1..256");
  end
`endif

  typedef struct packed {
    logic                    valid;  // used since the sweep
    logic                    done;   // all packets of block seq written
    logic                    ctrl;   // the CONTROL naming block seq came
    logic [15:0]             seq;
    logic [CW-1:0]           cnt;    // packets written
    logic [MAX_BLK_PKTS-1:0] mask;   // packets written, by pkt_idx
  } ent_t;

  typedef enum logic [2:0] {
    K_CRC, K_BAD, K_ACK, K_DATA, K_INLINE, K_CONTROL
  } kind_e;

  // ------------------------------------------------------------------ table sweep
  logic           init_q;
  logic [EAW-1:0] init_idx_q;

  always_ff @(posedge clk) begin
    if (init_q) begin
      init_idx_q <= init_idx_q + EAW'(1);
      if (init_idx_q == EAW'(NENT - 1)) init_q <= 1'b0;
    end
    if (rst) begin
      init_q     <= 1'b1;
      init_idx_q <= '0;
    end
  end

  // ------------------------------------------------------------------ stage 0: take
  logic     s1_valid_q, take;
  logic [EAW-1:0] key0;

  assign take = s_hdr_valid && s_hdr_ready;
  assign key0 = EAW'((32'(s_hdr.src_node) % NUM_NODES) * 1024 + 32'(s_hdr.tid));

  // The packet's kind, K_BAD if malformed (see the header; the checks are evaluated only
  // when a packet is taken, in the always_ff of stage 1).
  /* verilator lint_off UNUSEDSIGNAL */  // not every header field is checked
  function automatic kind_e classify(input net_hdr_t       hd,
                                     input logic [NBW-1:0] nbeats,
                                     input logic           long,
                                     input logic [15:0]    node,
                                     input logic [13:0]    end_b);
    logic bad;
    kind_e k;
    bad = (hd.dst_node != node) || long;
    unique case (hd.ptype)
      4'(NET_DATA): begin
        k = K_DATA;
        bad = bad || hd.len == '0 || 32'(hd.len) > MAX_PAYLOAD
              || 32'(hd.dst_addr[11:0]) % MAX_PAYLOAD + 32'(hd.len) > MAX_PAYLOAD
              || hd.blk_pkts == '0 || 32'(hd.blk_pkts) > MAX_BLK_PKTS
              || hd.pkt_idx >= hd.blk_pkts
              || 14'(nbeats) != ((end_b + 14'd63) >> 6);
      end
      4'(NET_INLINE): begin
        k = K_INLINE;
        bad = bad || hd.len == '0 || hd.len > 13'd32 || nbeats != '0;
      end
      4'(NET_CONTROL): begin
        k = K_CONTROL;
        bad = bad || nbeats != '0;
      end
      4'(NET_ACK), 4'(NET_NACK): begin
        k = K_ACK;
        bad = bad || nbeats != '0;
      end
      default: begin
        k = K_BAD;
        bad = 1'b1;
      end
    endcase
    return bad ? K_BAD : k;
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // ------------------------------------------------------------------ tables
  ent_t           ent_rd;     // table output: entry of the packet taken the cycle before
  ent_t           ent_wr;     // stage 2: the entry written back
  rx_ctrl_t       ctl_rd;
  rx_ctrl_t       ctl_wr;     // stage 2: the CONTROL fields of its packet (a register)
  logic           tbl_we, ctl_we;
  logic [EAW-1:0] key1_q, key2_q;

  qrdma_sdp_ram #(.WIDTH($bits(ent_t)), .DEPTH(NENT), .RDW_NEW(1'b1)) u_table (
    .clk,
    .wr_en(init_q || tbl_we), .wr_be(1'b1),
    .wr_addr(init_q ? init_idx_q : key2_q), .wr_data(init_q ? '0 : ent_wr),
    .rd_en(take), .rd_addr(key0), .rd_data(ent_rd)
  );

  qrdma_sdp_ram #(.WIDTH($bits(rx_ctrl_t)), .DEPTH(NENT), .RDW_NEW(1'b1)) u_ctrl_table (
    .clk,
    .wr_en(ctl_we), .wr_be(1'b1), .wr_addr(key2_q), .wr_data(ctl_wr),
    .rd_en(take), .rd_addr(key0), .rd_data(ctl_rd)
  );

  // ------------------------------------------------------------------ stage 1: entry
  // The table output is valid from the cycle after the take and holds while no packet is
  // taken (a write in the cycle of the read is forwarded by RDW_NEW). Only stage 2
  // writes, and only in the cycle its packet leaves; stage 1 waits only while stage 2
  // holds a packet and moves in the cycle that packet leaves. So the one write that can
  // come between the read and the move is in the cycle of the move, where it is snooped:
  // back-to-back packets of one entry see each other's updates, stalled or not.
  // the whole header is kept; the fields the decision does not need are not read
  /* verilator lint_off UNUSEDSIGNAL */
  net_hdr_t       h1_q, h2_q;
  /* verilator lint_on UNUSEDSIGNAL */
  kind_e          k1_q, k2_q;
  logic [NBW-1:0] nb1_q, nb2_q;
  logic [13:0]    end1_q, end2_q;
  ent_t           ent1, ent2_q;
  rx_ctrl_t       ctl1, ctl2_q;
  logic           s2_valid_q, s2_fire, s1_move, snoop;
  logic [TAGW-1:0] wcnt_q;    // write commands issued (RING and IMM)

  assign s1_move = s1_valid_q && (!s2_valid_q || s2_fire);
  assign s_hdr_ready = !init_q && (!s1_valid_q || s1_move);
  // stage 2 fires on the entry of the packet in stage 1: ent_wr is its new value (the
  // entry unchanged when nothing is written), the CONTROL fields only when written
  assign snoop   = s2_fire && key2_q == key1_q;

  always_comb begin
    ent1 = ent_rd;
    ctl1 = ctl_rd;
    if (snoop) ent1 = ent_wr;
    if (snoop && ctl_we) ctl1 = ctl_wr;
  end

  always_ff @(posedge clk) begin
    if (take) begin
      logic [13:0] end0;   // lane of the first byte + len (DATA: 1..4159)
      end0   = 14'(s_hdr.dst_addr[5:0]) + 14'(s_hdr.len);
      h1_q   <= s_hdr;
      k1_q   <= !s_hdr_crc_ok ? K_CRC
                              : classify(s_hdr, s_hdr_nbeats, s_hdr_long, node_id, end0);
      nb1_q  <= s_hdr_nbeats;
      end1_q <= end0;
      key1_q <= key0;
    end
    if (s1_move) begin
      h2_q   <= h1_q;
      ctl_wr.xfer     <= h1_q.xfer;
      ctl_wr.pd       <= h1_q.pd;
      ctl_wr.size     <= h1_q[NET_HDR_SIZE_LSB +: NET_HDR_SIZE_W];
      ctl_wr.tag      <= h1_q[NET_HDR_TAG_LSB +: NET_HDR_TAG_W];
      ctl_wr.dst_addr <= h1_q.dst_addr;
      k2_q   <= k1_q;
      nb2_q  <= nb1_q;
      end2_q <= end1_q;
      key2_q <= key1_q;
      ent2_q <= ent1;
      ctl2_q <= ctl1;
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      s1_valid_q <= 1'b0;
    end else begin
      if (take)         s1_valid_q <= 1'b1;
      else if (s1_move) s1_valid_q <= 1'b0;
    end
  end

  // ------------------------------------------------------------------ stage 2: decide
  logic         newer, same, older, bit_set;
  logic [15:0]  sdiff;
  logic [IW-1:0] idx;
  logic [8:0]   bp;
  logic         acc_wr, acc_ctl, dup, stale, complete, ntf, ntf_from_tbl;
  logic         want_cmd, want_evt, want_ack;
  logic [MAX_BLK_PKTS-1:0] onehot;
  ent_t         ent;
  /* verilator lint_off UNUSEDSIGNAL */
  net_hdr_t     h;            // header of the packet in stage 2 (not every field is read)
  /* verilator lint_on UNUSEDSIGNAL */

  assign ent    = ent2_q;
  assign h      = h2_q;
  assign sdiff  = h.seq - ent.seq;
  assign newer  = !ent.valid || (sdiff != '0 && (ent.done || !sdiff[15]));
  assign same   = ent.valid && sdiff == '0;
  assign older  = !newer && !same;
  assign idx    = (k2_q == K_INLINE) ? '0 : IW'(h.pkt_idx);
  assign bp     = (k2_q == K_INLINE) ? 9'd1 : h.blk_pkts;
  assign bit_set = ent.mask[idx];
  assign onehot = MAX_BLK_PKTS'(1) << idx;

  always_comb begin
    acc_wr   = 1'b0;   // DATA / INLINE written
    acc_ctl  = 1'b0;   // CONTROL taken
    dup      = 1'b0;
    stale    = 1'b0;
    complete = 1'b0;   // the block is done with this packet: ACK
    ntf      = 1'b0;   // notification
    ntf_from_tbl = 1'b0;  // its fields come from the CONTROL table
    ent_wr   = ent;
    if (s2_valid_q) unique case (k2_q)  // (nothing is used without a packet in stage 2)
      K_DATA, K_INLINE: begin
        if (newer) begin
          acc_wr        = 1'b1;
          ent_wr        = '0;
          ent_wr.valid  = 1'b1;
          ent_wr.seq    = h.seq;
          ent_wr.cnt    = CW'(1);
          ent_wr.mask   = onehot;
          complete      = (bp == 9'd1);
          ent_wr.done   = complete;
        end else if (same && !bit_set) begin
          acc_wr        = 1'b1;
          ent_wr.cnt    = ent.cnt + CW'(1);
          ent_wr.mask   = ent.mask | onehot;
          complete      = !ent.done && (9'(ent.cnt) + 9'd1 == bp);
          ent_wr.done   = ent.done || complete;
          ntf_from_tbl  = complete && ent.ctrl;
        end else begin
          dup   = same;
          stale = older;
        end
        ntf = ntf_from_tbl || (acc_wr && k2_q == K_INLINE && h.notify);
      end
      K_CONTROL: begin
        if (newer) begin
          acc_ctl       = 1'b1;
          ent_wr        = '0;
          ent_wr.valid  = 1'b1;
          ent_wr.seq    = h.seq;
          ent_wr.ctrl   = 1'b1;
        end else if (same && !ent.ctrl) begin
          acc_ctl       = 1'b1;
          ent_wr.ctrl   = 1'b1;
          ntf           = ent.done;   // the block is already complete
        end else begin
          dup   = same;
          stale = older;
        end
      end
      default: ;
    endcase
  end

  // CONTROL fields (ctl_wr, the packet's in stage 2): written at every CONTROL taken (read
  // back when its block completes). Registered from stage 1 when the packet moves (in the
  // always_ff of stage 1): a register, not a selection made again every cycle.

  assign want_cmd = acc_wr || nb2_q != '0;
  assign want_evt = complete || ntf;
  assign want_ack = (k2_q == K_ACK);

  // ------------------------------------------------------------------ stage 3: push
  // The decision is registered before it goes into the output FIFOs; stage 3 waits
  // until every output FIFO has room, whatever it pushes (keeps the stall out of the
  // decision path).
  logic      s3_valid_q, s3_fire, cmd_ready, evt_ready, ack_ready;
  logic      w3_cmd_q, w3_evt_q, w3_ack_q;
  rx_cmd_t   cmd3_q;
  rx_evt_t   evt3_q;
  ack_desc_t ack3_q;

  assign s3_fire = s3_valid_q && cmd_ready && evt_ready && ack_ready;
  assign s2_fire = s2_valid_q && (!s3_valid_q || s3_fire);
  assign tbl_we  = s2_fire && (acc_wr || acc_ctl);
  assign ctl_we  = s2_fire && acc_ctl;

  // The write command, completion event and ACK of the decision, built only when stage 2
  // fires (they are used only from the stage-3 registers).
  always_ff @(posedge clk) begin
    if (s2_fire) begin
      rx_cmd_t   cmd;
      rx_evt_t   evt;
      ack_desc_t ack;
      // write command
      cmd        = '0;
      cmd.baddr  = h.dst_addr[63:6];
      cmd.lo     = h.dst_addr[5:0];
      cmd.hi     = 6'(end2_q - 14'd1);
      cmd.data   = h.inline_data;
      cmd.nbeats = nb2_q;
      if (acc_wr && k2_q == K_DATA) begin
        cmd.op = OP_RING;
      end else if (acc_wr) begin
        cmd.op     = OP_IMM;
        cmd.nbeats = (end2_q > 14'd64) ? NBW'(2) : NBW'(1);
        cmd.split  = (end2_q > 14'd64) && (h.dst_addr[11:6] == 6'h3F);
      end else begin
        cmd.op = OP_SKIP;
      end
      // completion event
      evt          = '0;
      evt.ack      = complete;
      evt.ntf      = ntf;
      evt.src_node = h.src_node;
      evt.tid      = h.tid;
      evt.seq      = h.seq;
      evt.wtag     = wcnt_q + TAGW'(acc_wr);
      if (ntf_from_tbl || k2_q == K_CONTROL) begin
        // the CONTROL fields: from the table (notification of an earlier CONTROL), else
        // of this packet
        rx_ctrl_t c;
        c = ntf_from_tbl ? ctl2_q : ctl_wr;
        evt.kind     = 4'(NET_CONTROL);
        evt.xfer     = c.xfer;
        evt.pd       = c.pd;
        evt.size     = c.size;
        evt.tag      = c.tag;
        evt.dst_addr = c.dst_addr;
      end else begin
        evt.kind     = 4'(NET_INLINE);
        evt.xfer     = h.xfer;
        evt.pd       = h.pd;
        evt.size     = 33'(h.len);
        evt.tag      = '0;
        evt.dst_addr = h.dst_addr;
      end
      // received ACK / NACK
      ack      = '0;
      ack.tid  = h.tid;
      ack.seq  = h.seq;
      ack.nack = (h.ptype == 4'(NET_NACK));
      cmd3_q   <= cmd;
      evt3_q   <= evt;
      ack3_q   <= ack;
      w3_cmd_q <= want_cmd;
      w3_evt_q <= want_evt;
      w3_ack_q <= want_ack;
    end
  end

  always_ff @(posedge clk) begin
    if (s1_move)      s2_valid_q <= 1'b1;
    else if (s2_fire) s2_valid_q <= 1'b0;
    if (s2_fire)      s3_valid_q <= 1'b1;
    else if (s3_fire) s3_valid_q <= 1'b0;
    if (s2_fire && acc_wr) wcnt_q <= wcnt_q + TAGW'(1);
    if (rst) begin
      s2_valid_q <= 1'b0;
      s3_valid_q <= 1'b0;
      wcnt_q     <= '0;
    end
  end

  /* verilator lint_off UNUSEDSIGNAL */
  logic [cnt_w(4)-1:0]         cq_count, aq_count;
  logic [cnt_w(EVT_DEPTH)-1:0] eq_count;
  logic                        cq_af, eq_af, aq_af;
  /* verilator lint_on UNUSEDSIGNAL */

  qrdma_sync_fifo #(.WIDTH($bits(rx_cmd_t)), .DEPTH(4)) u_cmd_fifo (
    .clk, .rst,
    .s_valid(s3_fire && w3_cmd_q), .s_ready(cmd_ready), .s_data(cmd3_q),
    .m_valid(m_cmd_valid), .m_ready(m_cmd_ready), .m_data(m_cmd),
    .count(cq_count), .almost_full(cq_af)
  );

  qrdma_sync_fifo #(.WIDTH($bits(rx_evt_t)), .DEPTH(EVT_DEPTH)) u_evt_fifo (
    .clk, .rst,
    .s_valid(s3_fire && w3_evt_q), .s_ready(evt_ready), .s_data(evt3_q),
    .m_valid(m_evt_valid), .m_ready(m_evt_ready), .m_data(m_evt),
    .count(eq_count), .almost_full(eq_af)
  );

  qrdma_sync_fifo #(.WIDTH(32), .DEPTH(4)) u_ack_fifo (
    .clk, .rst,
    .s_valid(s3_fire && w3_ack_q), .s_ready(ack_ready), .s_data(ack3_q),
    .m_valid(m_ack_valid), .m_ready(m_ack_ready), .m_data(m_ack_data),
    .count(aq_count), .almost_full(aq_af)
  );

  // statistics, registered one-cycle pulses at the decision
  always_ff @(posedge clk) begin
    if (rst) begin
      stat_data_pkt   <= 1'b0;
      stat_ctrl_pkt   <= 1'b0;
      stat_bytes      <= '0;
      stat_crc_drop   <= 1'b0;
      stat_dup_drop   <= 1'b0;
      stat_stale_drop <= 1'b0;
      stat_bad_drop   <= 1'b0;
    end else begin
      stat_data_pkt   <= s2_fire && acc_wr && k2_q == K_DATA;
      stat_ctrl_pkt   <= s2_fire && ((acc_wr && k2_q == K_INLINE) || acc_ctl || want_ack);
      stat_bytes      <= (s2_fire && acc_wr) ? h.len : '0;
      stat_crc_drop   <= s2_fire && k2_q == K_CRC;
      stat_dup_drop   <= s2_fire && dup;
      stat_stale_drop <= s2_fire && stale;
      stat_bad_drop   <= s2_fire && k2_q == K_BAD;
    end
  end

endmodule

`default_nettype wire
