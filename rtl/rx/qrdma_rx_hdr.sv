// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_rx_hdr: the header processor of qrdma_rx (docs/nic.md "Receive unit"; [RSN] §3.2
// duplicate and stale drop). It takes the packets of the receive buffer in arrival order,
// once their CRC is known, classifies each (bad CRC, malformed, ACK/NACK, DATA, INLINE,
// CONTROL; the checks: docs/nic.md), looks it up in the block tracker (qrdma_rx_track)
// and turns the decision into its outputs: a write command for accepted DATA/INLINE
// payload (a release of the buffer beats for anything dropped), a completion event for a
// packet that completes a block, the ACK/NACK record for the QoS engine, a write of the
// notification fields table.
//
// Ports: s_hdr (packets), m_cmd (write commands, in packet order), m_evt (completion
// events, in packet order; each carries wtag, the count of write commands up to it),
// m_ack (received ACK/NACK), m_ctl_* (writes of the notification fields table, owned by
// the notification writer). After rst no packet is taken for NUM_NODES*1024 cycles (the
// tracker clears its table).
// Pipeline, one packet per cycle: t the packet is classified and taken by the tracker;
// t+2 its decision; t+3 command, event and ACK enter their FIFOs (stage 3 waits while any
// of them is full, and the tracker waits with it).
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

`ifndef SYNTHESIS
  initial begin
    if (NUM_NODES < 1 || (NUM_NODES & (NUM_NODES - 1)) != 0)
      $fatal(1, "qrdma_rx_hdr: NUM_NODES must be a power of 2");
    if (EAW > KEYW) $fatal(1, "qrdma_rx_hdr: NUM_NODES must be <= 64 (entry keys of KEYW bits)");
  end
`endif

  typedef enum logic [2:0] {
    K_CRC, K_BAD, K_ACK, K_DATA, K_INLINE, K_CONTROL
  } kind_e;

  // What travels with a packet through the tracker: its header, kind, payload beats and
  // the end of its payload (lane of the first byte + len).
  typedef struct packed {
    kind_e          kind;
    logic [NBW-1:0] nb;
    logic [13:0]    end_b;
    net_hdr_t       h;
  } pkt_t;

  // ------------------------------------------------------------------ classify
  // The packet's kind, K_BAD if malformed (docs/nic.md "Receive unit").
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

  pkt_t     pk0;
  trk_req_t req0;

  always_comb begin
    pk0.h     = s_hdr;
    pk0.nb    = s_hdr_nbeats;
    pk0.end_b = 14'(s_hdr.dst_addr[5:0]) + 14'(s_hdr.len);
    pk0.kind  = !s_hdr_crc_ok ? K_CRC
                              : classify(s_hdr, s_hdr_nbeats, s_hdr_long, node_id, pk0.end_b);
    req0        = '0;
    req0.key    = KEYW'((32'(s_hdr.src_node) % NUM_NODES) * 1024 + 32'(s_hdr.tid));
    req0.seq    = s_hdr.seq;
    req0.idx    = s_hdr.pkt_idx;
    req0.bp     = s_hdr.blk_pkts;
    req0.notify = s_hdr.notify;
    unique case (pk0.kind)
      K_DATA:    req0.op = TRK_DATA;
      K_INLINE:  req0.op = TRK_INLINE;
      K_CONTROL: req0.op = TRK_CONTROL;
      default:   req0.op = TRK_NONE;
    endcase
  end

  // ------------------------------------------------------------------ tracker
  logic     t_valid, t_ready;
  /* verilator lint_off UNUSEDSIGNAL */  // the key is used; the other fields are in pk
  trk_req_t t_req;
  /* verilator lint_on UNUSEDSIGNAL */
  trk_dec_t d;
  logic [$bits(pkt_t)-1:0] t_pay;
  /* verilator lint_off UNUSEDSIGNAL */  // the header fields the outputs do not need
  pkt_t     pk;
  /* verilator lint_on UNUSEDSIGNAL */

  qrdma_rx_track #(.NENT(NENT), .MAX_BLK_PKTS(MAX_BLK_PKTS), .PAY_W($bits(pkt_t))) u_track (
    .clk, .rst,
    .s_valid(s_hdr_valid), .s_ready(s_hdr_ready), .s_req(req0), .s_pay(pk0),
    .m_valid(t_valid), .m_ready(t_ready), .m_req(t_req), .m_dec(d), .m_pay(t_pay)
  );

  assign pk = pkt_t'(t_pay);

  // ------------------------------------------------------------------ stage 3: push
  // The decision is registered before it goes into the output FIFOs; stage 3 waits
  // until every output FIFO has room, whatever it pushes (keeps the stall out of the
  // decision path).
  logic      s3_valid_q, s3_fire, s2_fire, cmd_ready, evt_ready, ack_ready;
  logic      w3_cmd_q, w3_evt_q, w3_ack_q;
  rx_cmd_t   cmd3_q;
  rx_evt_t   evt3_q;
  ack_desc_t ack3_q;
  logic [TAGW-1:0] wcnt_q;    // write commands issued (RING and IMM)

  assign s3_fire = s3_valid_q && cmd_ready && evt_ready && ack_ready;
  assign t_ready = !s3_valid_q || s3_fire;
  assign s2_fire = t_valid && t_ready;

  // The notification fields table: written with the packet whose fields a notification
  // will report (a CONTROL taken, an INLINE with notify that completes its block). The
  // entry is read by the notification writer only after the completion event, and the
  // sender reuses the TID only after the ACK, which waits for the notification.
  always_ff @(posedge clk) begin
    m_ctl_we <= s2_fire && d.ctl_keep;
    if (rst) m_ctl_we <= 1'b0;
  end
  always_ff @(posedge clk) begin
    if (s2_fire) begin
      m_ctl_key       <= t_req.key;
      m_ctl.is_ctrl   <= (pk.kind == K_CONTROL);
      m_ctl.xfer      <= pk.h.xfer;
      m_ctl.pd        <= pk.h.pd;
      m_ctl.size      <= (pk.kind == K_CONTROL) ? pk.h[NET_HDR_SIZE_LSB +: NET_HDR_SIZE_W]
                                                : 33'(pk.h.len);
      m_ctl.tag       <= (pk.kind == K_CONTROL) ? pk.h[NET_HDR_TAG_LSB +: NET_HDR_TAG_W] : '0;
      m_ctl.dst_addr  <= pk.h.dst_addr;
    end
  end

  // The write command, completion event and ACK of the decision, built only when the
  // decision is taken (they are used only from the stage-3 registers).
  always_ff @(posedge clk) begin
    if (s2_fire) begin
      rx_cmd_t   cmd;
      rx_evt_t   ev;
      ack_desc_t ack;
      // write command
      cmd        = '0;
      cmd.key    = t_req.key;
      cmd.first  = d.first;
      cmd.baddr  = pk.h.dst_addr[63:6];
      cmd.lo     = pk.h.dst_addr[5:0];
      cmd.hi     = 6'(pk.end_b - 14'd1);
      cmd.data   = pk.h.inline_data;
      cmd.nbeats = pk.nb;
      if (d.acc_wr && pk.kind == K_DATA) begin
        cmd.op = OP_RING;
      end else if (d.acc_wr) begin
        cmd.op     = OP_IMM;
        cmd.nbeats = (pk.end_b > 14'd64) ? NBW'(2) : NBW'(1);
        cmd.split  = (pk.end_b > 14'd64) && (pk.h.dst_addr[11:6] == 6'h3F);
      end else begin
        cmd.op = OP_SKIP;
      end
      // completion event
      ev          = '0;
      ev.ntf      = d.ntf;
      ev.src_node = pk.h.src_node;
      ev.key      = t_req.key;
      ev.seq      = pk.h.seq;
      ev.wtag     = wcnt_q + TAGW'(d.acc_wr);
      // received ACK / NACK
      ack        = '0;
      ack.tid    = pk.h.tid;
      ack.seq    = pk.h.seq;
      ack.nack   = (pk.h.ptype == 4'(NET_NACK));
      ack.reason = ack.nack ? pk.h.reason : '0;
      cmd3_q   <= cmd;
      evt3_q   <= ev;
      ack3_q   <= ack;
      w3_cmd_q <= d.acc_wr || pk.nb != '0;
      w3_evt_q <= d.evt;
      w3_ack_q <= (pk.kind == K_ACK);
    end
  end

  always_ff @(posedge clk) begin
    if (s2_fire)      s3_valid_q <= 1'b1;
    else if (s3_fire) s3_valid_q <= 1'b0;
    if (s2_fire && d.acc_wr) wcnt_q <= wcnt_q + TAGW'(1);
    if (rst) begin
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
    stat_data_pkt   <= s2_fire && d.acc_wr && pk.kind == K_DATA;
    stat_ctrl_pkt   <= s2_fire && ((d.acc_wr && pk.kind == K_INLINE) || d.acc_ctl
                                   || pk.kind == K_ACK);
    stat_bytes      <= (s2_fire && d.acc_wr) ? pk.h.len : '0;
    stat_crc_drop   <= s2_fire && pk.kind == K_CRC;
    stat_dup_drop   <= s2_fire && d.dup;
    stat_stale_drop <= s2_fire && d.stale;
    stat_bad_drop   <= s2_fire && pk.kind == K_BAD;
    stat_stall      <= s3_valid_q && !s3_fire;
    if (rst) begin
      stat_data_pkt   <= 1'b0;
      stat_ctrl_pkt   <= 1'b0;
      stat_bytes      <= '0;
      stat_crc_drop   <= 1'b0;
      stat_dup_drop   <= 1'b0;
      stat_stale_drop <= 1'b0;
      stat_bad_drop   <= 1'b0;
      stat_stall      <= 1'b0;
    end
  end

endmodule

`default_nettype wire
