// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_rx_hdr: the header processor of qrdma_rx (docs/nic.md "Receive unit"; [RSN] §3.2
// block registration by bitmask, duplicate drop). It takes the packets of the receive
// buffer in arrival order, once their CRC is known, and decides for each: dropped (bad
// CRC, malformed, stale, duplicate: its payload beats are released unwritten), ACK/NACK
// (to the QoS engine), or accepted into the block-tracking table (one entry per
// (src_node mod NUM_NODES, tid)): DATA/INLINE payload becomes a write command, the packet
// that completes a block (or the CONTROL that completes a notifying transfer's last
// block) a completion event. The rules: docs/nic.md "Receive unit".
//
// Ports: s_hdr (packets), m_cmd (write commands, in packet order), m_evt (completion
// events, in packet order; each carries wtag, the count of write commands up to it),
// m_ack (received ACK/NACK), m_ctl_* (writes of the notification fields table, owned by
// the notification writer). The table is cleared by a sweep of NUM_NODES*1024 cycles
// after rst, during which no packet is taken.
// Pipeline, one packet per cycle: t stage 0 takes the packet and reads the table; t+1
// stage 1 registers the entry (a write made since the read is snooped); t+2 stage 2
// decides and writes the entry back; t+3 stage 3 pushes command, event, ACK into their
// FIFOs and waits while any of them is full (the stages behind it wait with it).
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
  // notification fields table writes (CONTROL, notifying INLINE), by tracking entry
  output logic                  m_ctl_we,
  output logic [KEYW-1:0]       m_ctl_key,
  output rx_ctrl_t              m_ctl,
  // occupancy and stall (state snapshot, counters)
  output logic [cnt_w(EVT_DEPTH)-1:0] occ_evts,   // completion events queued
  output logic                  stat_stall,       // stage 3 waits for room in an output FIFO
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
    if (EAW > KEYW) $fatal(1, "qrdma_rx_hdr: NUM_NODES must be <= 64 (entry keys of KEYW bits)");
  end
`endif

  typedef struct packed {
    logic                    valid;  // used since the sweep
    logic                    done;   // all packets of block seq written
    logic                    ctrl;   // the CONTROL naming block seq came
    logic                    wseen;  // a write of block seq was issued
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

  // ------------------------------------------------------------------ table
  ent_t           ent_rd;     // table output: entry of the packet taken the cycle before
  ent_t           ent_wr;     // stage 2: the entry written back
  logic           tbl_we;
  logic [EAW-1:0] key1_q, key2_q;

  qrdma_sdp_ram #(.WIDTH($bits(ent_t)), .DEPTH(NENT), .RDW_NEW(1'b1)) u_table (
    .clk,
    .wr_en(init_q || tbl_we), .wr_be(1'b1),
    .wr_addr(init_q ? init_idx_q : key2_q), .wr_data(init_q ? '0 : ent_wr),
    .rd_en(take), .rd_addr(key0), .rd_data(ent_rd)
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
  rx_ctrl_t       ctl2_q;     // stage 2: the notification fields of its packet
  logic           s2_valid_q, s2_fire, s1_move, snoop;
  logic [TAGW-1:0] wcnt_q;    // write commands issued (RING and IMM)

  assign s1_move = s1_valid_q && (!s2_valid_q || s2_fire);
  assign s_hdr_ready = !init_q && (!s1_valid_q || s1_move);
  // stage 2 fires on the entry of the packet in stage 1: ent_wr is its new value (the
  // entry unchanged when nothing is written)
  assign snoop   = s2_fire && key2_q == key1_q;

  always_comb begin
    ent1 = ent_rd;
    if (snoop) ent1 = ent_wr;
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
      // the fields a notification reports: a CONTROL's, or a (notifying) INLINE's
      ctl2_q.is_ctrl  <= (k1_q == K_CONTROL);
      ctl2_q.xfer     <= h1_q.xfer;
      ctl2_q.pd       <= h1_q.pd;
      ctl2_q.size     <= (k1_q == K_CONTROL) ? h1_q[NET_HDR_SIZE_LSB +: NET_HDR_SIZE_W]
                                             : 33'(h1_q.len);
      ctl2_q.tag      <= (k1_q == K_CONTROL) ? h1_q[NET_HDR_TAG_LSB +: NET_HDR_TAG_W] : '0;
      ctl2_q.dst_addr <= h1_q.dst_addr;
      k2_q   <= k1_q;
      nb2_q  <= nb1_q;
      end2_q <= end1_q;
      key2_q <= key1_q;
      ent2_q <= ent1;
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
  logic         acc_wr, acc_ctl, dup, stale, complete, evt, ntf, first, ctl_keep;
  logic         want_cmd, want_ack;
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

  // Completion rules (docs/nic.md "Receive unit"): a block's completion event (its ACK,
  // and a notification when the transfer asks for one) comes with the packet that
  // completes it; the last block of a notifying transfer (DATA with `notify`) also waits
  // for its CONTROL, whichever of the two comes second. An INLINE is a one-packet block
  // that carries its own notify.
  always_comb begin
    acc_wr   = 1'b0;   // DATA / INLINE written
    acc_ctl  = 1'b0;   // CONTROL taken
    dup      = 1'b0;
    stale    = 1'b0;
    complete = 1'b0;   // the block's packets are all in with this packet
    evt      = 1'b0;   // completion event
    ntf      = 1'b0;   // ... with a notification
    first    = 1'b0;   // the block's first write
    ctl_keep = 1'b0;   // keep this packet's fields for the notification
    ent_wr   = ent;
    if (s2_valid_q) unique case (k2_q)  // (nothing is used without a packet in stage 2)
      K_DATA, K_INLINE: begin
        if (newer) begin
          acc_wr        = 1'b1;
          first         = 1'b1;
          ent_wr        = '0;
          ent_wr.valid  = 1'b1;
          ent_wr.seq    = h.seq;
          ent_wr.cnt    = CW'(1);
          ent_wr.mask   = onehot;
          ent_wr.wseen  = 1'b1;
          complete      = (bp == 9'd1);
          ent_wr.done   = complete;
        end else if (same && !bit_set) begin
          acc_wr        = 1'b1;
          first         = !ent.wseen;
          ent_wr.cnt    = ent.cnt + CW'(1);
          ent_wr.mask   = ent.mask | onehot;
          ent_wr.wseen  = 1'b1;
          complete      = !ent.done && (9'(ent.cnt) + 9'd1 == bp);
          ent_wr.done   = ent.done || complete;
        end else begin
          dup   = same;
          stale = older;
        end
        if (k2_q == K_INLINE) begin
          evt      = complete;
          ntf      = complete && h.notify;
          ctl_keep = complete && h.notify;
        end else begin
          // the last block of a notifying transfer waits for its CONTROL
          evt = complete && (!h.notify || (!newer && ent.ctrl));
          ntf = complete && h.notify;
        end
      end
      K_CONTROL: begin
        ctl_keep = 1'b1;
        if (newer) begin
          acc_ctl       = 1'b1;
          ent_wr        = '0;
          ent_wr.valid  = 1'b1;
          ent_wr.seq    = h.seq;
          ent_wr.ctrl   = 1'b1;
        end else if (same && !ent.ctrl) begin
          acc_ctl       = 1'b1;
          ent_wr.ctrl   = 1'b1;
          evt           = ent.done;   // the block is already complete
          ntf           = ent.done;
        end else begin
          ctl_keep = 1'b0;
          dup   = same;
          stale = older;
        end
      end
      default: ;
    endcase
  end

  assign want_cmd = acc_wr || nb2_q != '0;
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

  // The notification fields table: written with the packet whose fields a notification
  // will report (a CONTROL taken, an INLINE with notify that completes its block). The
  // entry is read by the notification writer only after the completion event, and the
  // sender reuses the TID only after the ACK, which waits for the notification.
  always_ff @(posedge clk) begin
    m_ctl_we <= s2_fire && ctl_keep && (acc_ctl || acc_wr);
    if (rst) m_ctl_we <= 1'b0;
  end
  always_ff @(posedge clk) begin
    if (s2_fire) begin
      m_ctl_key <= KEYW'(key2_q);
      m_ctl     <= ctl2_q;
    end
  end

  // The write command, completion event and ACK of the decision, built only when stage 2
  // fires (they are used only from the stage-3 registers).
  always_ff @(posedge clk) begin
    if (s2_fire) begin
      rx_cmd_t   cmd;
      rx_evt_t   ev;
      ack_desc_t ack;
      // write command
      cmd        = '0;
      cmd.key    = KEYW'(key2_q);
      cmd.first  = first;
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
      ev          = '0;
      ev.ntf      = ntf;
      ev.src_node = h.src_node;
      ev.key      = KEYW'(key2_q);
      ev.seq      = h.seq;
      ev.wtag     = wcnt_q + TAGW'(acc_wr);
      // received ACK / NACK
      ack        = '0;
      ack.tid    = h.tid;
      ack.seq    = h.seq;
      ack.nack   = (h.ptype == 4'(NET_NACK));
      ack.reason = ack.nack ? h.reason : '0;
      cmd3_q   <= cmd;
      evt3_q   <= ev;
      ack3_q   <= ack;
      w3_cmd_q <= want_cmd;
      w3_evt_q <= evt;
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

  /* verilator lint_off UNUSEDSIGNAL */  // FIFO outputs this block has no use for
  logic [cnt_w(4)-1:0]         cq_count, aq_count;
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
    .count(occ_evts), .almost_full(eq_af)
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
      stat_stall      <= 1'b0;
    end else begin
      stat_stall      <= s3_valid_q && !s3_fire;
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
