// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_rx_hdr: the header processor of qrdma_rx (docs/nic.md "Receive unit"; [RSN] §3.2
// duplicate and stale drop). It takes the packets of the receive buffer in arrival order,
// once their CRC is known, classifies each (bad CRC, malformed, ACK/NACK, DATA, INLINE,
// CONTROL; the checks: docs/nic.md), looks it up in the block tracker (qrdma_rx_track)
// and turns the decision into its outputs: a write command for accepted DATA/INLINE
// payload (a release of the buffer beats for anything dropped), a completion event for a
// packet that completes a block (a redo event for a duplicate of a block whose event was
// issued: its response is sent again, nothing is written), the ACK/NACK record for the
// QoS engine, a write of the notification fields table, a MISS answer for an asking DATA
// packet whose block still lacks packets (docs/reliability.md "Receiver: MISS answers"),
// the record of a REGISTER packet for the registration stage (docs/registration.md; a
// DATA packet of a registered transfer that completes its block makes an event for the
// registration table even when it is the last block of a notifying transfer whose
// CONTROL has not come: a place-only event),
// a NACK ERR_REMOTE_ACCESS for a DATA, INLINE or READ_REQ packet the window check refused
// (docs/protection.md: nothing of it is written, its block's tracking is not touched),
// the record of a MISS packet received, the read-response job of a READ_REQ taken
// (docs/nic.md "Remote reads"; when the job queue is full the READ_REQ is dropped and
// answered with a MISS naming its whole run, so that its requester asks again at once). A read response (DATA
// with resp set) is this node's own read block: it is tracked in this node's entry of
// its TID, and its responses (ACK, NACK, MISS) are addressed to this node.
//
// Ports: s_hdr (packets), m_cmd (write commands, in packet order), m_evt (completion
// events, in packet order; each carries wtag, the count of write commands up to it),
// m_ack (received ACK/NACK), m_ctl_* (writes of the notification fields table, owned by
// the notification writer), m_mrsp (MISS answers and access NACKs to send: rsp_desc; a
// one-cycle pulse, no backpressure), m_miss (MISS packets received: miss_desc; a
// one-cycle pulse, no backpressure), m_rd (read-response jobs: rd_job, RD_DEPTH queued). After rst no packet is taken for NUM_NODES*1024
// cycles (the tracker clears its table).
// Pipeline, one packet per cycle, never stopping: t the packet is taken (its tracker
// lookup starts with its key); t+1 it is classified (stage C, the tracker gets its
// request); t+4 its decision; t+5 command, event and ACK enter their FIFOs (stage 3) and
// a received MISS is on m_miss; t+10 a MISS answer is on m_mrsp (the tracker's MISS
// stages). A packet is taken only when each FIFO has room for it and for the packets
// ahead of it.
`default_nettype none

module qrdma_rx_hdr
  import qrdma_pkg::*;
  import qrdma_fmt_pkg::*;
  import qrdma_bench_pkg::is_stamped;
  import qrdma_rx_pkg::*;
#(
  parameter int unsigned NUM_NODES    = 4,    // source nodes tracked (power of 2)
  parameter int unsigned MAX_PAYLOAD  = 1024, // largest DATA payload in bytes
  parameter int unsigned MAX_BLK_PKTS = 64,   // packets of a block (bits of the mask), 1..256
  parameter int unsigned EVT_DEPTH    = 64,   // completion events queued
  parameter int unsigned RD_DEPTH     = 16,   // read-response jobs queued
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
  input  logic                  s_hdr_prot_ok,   // the window check passes the packet
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
  // MISS answers to send (a pulse each)
  output logic                  m_mrsp_valid,
  output rsp_desc_t             m_mrsp,
  // MISS packets received (a pulse each)
  output logic                  m_miss_valid,
  output miss_desc_t            m_miss,
  // read-response jobs (READ_REQ packets taken)
  output logic                  m_rd_valid,
  input  logic                  m_rd_ready,
  output rd_job_t               m_rd,
  // notification fields table writes (CONTROL, notifying INLINE), by tracking entry
  output logic                  m_ctl_we,
  output logic [KEYW-1:0]       m_ctl_key,
  output rx_ctrl_t              m_ctl,
  output rx_stamp_t             m_stamp,     // with m_ctl: the packet's benchmark stamps
  // registrations (REGISTER packets taken; a pulse each, no backpressure)
  output logic                  m_reg_valid,
  output rx_reg_t               m_reg,
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
  output logic                  stat_bad_drop,
  output logic                  stat_prot_drop,  // DATA / INLINE / READ_REQ refused by the window check
  output logic                  stat_read_req,   // a READ_REQ taken: its job queued
  output logic                  stat_read_drop,  // a READ_REQ dropped: the job queue is full
  output logic                  stat_redo         // a redo event (duplicate of a complete block)
);

`ifndef SYNTHESIS
  initial begin
    if (NUM_NODES < 1 || (NUM_NODES & (NUM_NODES - 1)) != 0)
      $fatal(1, "qrdma_rx_hdr: NUM_NODES must be a power of 2");
    if (EAW > KEYW) $fatal(1, "qrdma_rx_hdr: NUM_NODES must be <= 64 (entry keys of KEYW bits)");
  end
`endif

  typedef enum logic [3:0] {
    K_CRC, K_BAD, K_ACK, K_DATA, K_INLINE, K_CONTROL, K_MISS, K_PROT, K_RREQ, K_REG
  } kind_e;

  localparam int unsigned LG = $clog2(MAX_PAYLOAD);

  // What travels with a packet through the tracker: its header, kind, payload beats, the
  // end of its payload (lane of the first byte + len) and its INLINE payload on the way
  // to its lanes (rotated by the 8-byte part of the first lane).
  typedef struct packed {
    kind_e          kind;
    logic [NBW-1:0] nb;
    logic [8:0]     rrun;   // READ_REQ: packets of its run (its MISS answer when dropped)
    logic [13:0]    end_b;
    logic [511:0]   imm;
    net_hdr_t       h;
  } pkt_t;

  // The packet's type, one-hot (none set: an unknown type), formed from the buffer's
  // output registers and registered in stage C beside its checks.
  typedef struct packed {
    logic data;
    logic inl;
    logic ctl;
    logic ack;    // ACK or NACK
    logic miss;
    logic rreq;   // READ_REQ
    logic rsp;    // a read response: DATA with resp set
    logic regp;   // REGISTER
  } ty_t;

  function automatic ty_t type_of(input logic [3:0] ptype, input logic resp);
    ty_t t;
    t.data = (ptype == 4'(NET_DATA));
    t.inl  = (ptype == 4'(NET_INLINE));
    t.ctl  = (ptype == 4'(NET_CONTROL));
    t.ack  = (ptype == 4'(NET_ACK)) || (ptype == 4'(NET_NACK));
    t.miss = (ptype == 4'(NET_MISS));
    t.rreq = (ptype == 4'(NET_READ_REQ));
    t.rsp  = t.data && resp;
    t.regp = (ptype == 4'(NET_REGISTER));
    return t;
  endfunction

  // The header checks (docs/nic.md "Receive unit"), each formed from the buffer's output
  // registers and registered in stage C, where they are combined with the type: the
  // packet's kind and, beside it as a flat AND-OR of registered bits, the tracker's op.
  typedef struct packed {
    logic crc_ok;
    logic too_long;  // more payload beats than the buffer kept
    logic node_ne;   // dst_node != node_id
    logic len0;      // len == 0
    logic len_mp;    // len > MAX_PAYLOAD
    logic len_32;    // len > 32
    logic span;      // dst_addr mod MAX_PAYLOAD + len > MAX_PAYLOAD
    logic bp0;       // blk_pkts == 0
    logic bp_big;    // blk_pkts > MAX_BLK_PKTS
    logic idx_bad;   // pkt_idx >= blk_pkts
    logic nb_ne;     // payload beats != ceil((dst_addr mod 64 + len) / 64)
    logic nb_nz;     // payload beats != 0
    logic run_bad;   // MISS: miss_cnt == 0 or pkt_idx + miss_cnt > 256
    logic rq_bad;    // READ_REQ: len != 0, rd_size 0, more than 256 packets, or the run
                     // (pkt_idx, miss_cnt) not within the block's packets
    logic prot_bad;  // the window check refuses it (DATA, INLINE, READ_REQ)
  } chk_t;

  // INLINE bytes 0..31 go to lane lo: lane j holds byte (j - lo) mod 64, so beat 0 (lanes
  // lo..) and beat 1 (lanes ..lo+len-65) are the same word with other strobes. The word
  // is rotated by 8 * lo[5:3] bytes in stage C and by lo[2:0] bytes in stage 3.
  function automatic logic [511:0] rotate(input logic [511:0] w, input logic [5:0] n);
    return 512'(({w, w} << {n, 3'b000}) >> 512);
  endfunction

  // ------------------------------------------------------------------ stage 0: checks
  /* verilator lint_off UNUSEDSIGNAL */  // not every header field is checked
  function automatic chk_t check(input net_hdr_t hd, input logic [NBW-1:0] nbeats,
                                 input logic long, input logic crc_ok,
                                 input logic prot_ok, input logic [15:0] node);
    chk_t c;
    logic [6:0] lo_len;    // first lane + len mod 64
    logic [7:0] nb_rest;   // payload beats - len / 64
    // READ_REQ: the block's last packet is rl = (rd_laddr mod MAX_PAYLOAD + rd_size - 1) /
    // MAX_PAYLOAD; each compare with rl is made against the sum e = rd_laddr mod
    // MAX_PAYLOAD + rd_size instead (rd_size > 0: k > rl <=> k * MAX_PAYLOAD >= e), so no
    // carry chain follows another: the sum beside the packet counts, then the compares
    logic [17:0] e;
    logic [9:0]  run_last; // pkt_idx + miss_cnt - 1: the run's last packet
    c.crc_ok  = crc_ok;
    c.too_long = long;
    c.node_ne = (hd.dst_node != node);
    c.len0    = (hd.len == '0);
    c.len_mp  = (32'(hd.len) > MAX_PAYLOAD);
    c.len_32  = (hd.len > 13'd32);
    c.span    = (32'(hd.dst_addr[11:0]) % MAX_PAYLOAD + 32'(hd.len) > MAX_PAYLOAD);
    c.bp0     = (hd.blk_pkts == '0);
    c.bp_big  = (32'(hd.blk_pkts) > MAX_BLK_PKTS);
    c.idx_bad = (hd.pkt_idx >= hd.blk_pkts);
    // ceil((lo + len) / 64) = len / 64 + (0, 1 or 2 for lo + len mod 64 = 0, 1..64, more)
    lo_len    = 7'(hd.dst_addr[5:0]) + 7'(hd.len[5:0]);
    nb_rest   = 8'(nbeats) - 8'(hd.len[12:6]);
    c.nb_ne   = (nb_rest != 8'((lo_len != '0) + (lo_len > 7'd64)));
    c.nb_nz   = (nbeats != '0);
    c.run_bad = (hd.miss_cnt == '0) || (10'(hd.pkt_idx) + 10'(hd.miss_cnt) > 10'd256);
    e         = 18'(hd[NET_HDR_RD_LADDR_LSB +: LG]) + 18'(hd[NET_HDR_RD_SIZE_LSB +: NET_HDR_RD_SIZE_W]);
    run_last  = 10'(hd.pkt_idx) + 10'(hd.miss_cnt) - 10'd1;
    c.rq_bad  = (hd.len != '0) || (hd[NET_HDR_RD_SIZE_LSB +: NET_HDR_RD_SIZE_W] == '0)
                || (32'(e) > 256 * MAX_PAYLOAD)                            // rl > 255
                || ((32'(hd.pkt_idx) << LG) >= 32'(e))                     // pkt_idx > rl
                || (hd.miss_cnt != '0 && (32'(run_last) << LG) >= 32'(e)); // run past rl
    c.prot_bad = !prot_ok;
    return c;
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // A well-formed READ_REQ's run: miss_cnt packets, or 0: from pkt_idx to the block's
  // last packet (rd_laddr mod MAX_PAYLOAD + rd_size - 1) / MAX_PAYLOAD.
  /* verilator lint_off UNUSEDSIGNAL */  // the run's fields are read
  function automatic logic [8:0] rq_run(input net_hdr_t hd);
    logic [17:0] last;
    last = (18'(hd[NET_HDR_RD_LADDR_LSB +: LG]) + 18'(hd[NET_HDR_RD_SIZE_LSB +: NET_HDR_RD_SIZE_W])
            - 18'd1) >> LG;
    return (hd.miss_cnt != '0) ? hd.miss_cnt : 9'(last + 18'd1 - 18'(hd.pkt_idx));
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  /* verilator lint_off UNUSEDSIGNAL */  // each function reads the type bits and checks it combines
  // For each type, whether the checks of that type pass (rsp: not used).
  function automatic ty_t type_ok(input chk_t c);
    ty_t w;
    w.data = !(c.len0 || c.len_mp || c.span || c.bp0 || c.bp_big || c.idx_bad || c.nb_ne);
    w.inl  = !(c.len0 || c.len_32 || c.nb_nz);
    w.ctl  = !c.nb_nz;
    w.ack  = !c.nb_nz;
    w.miss = !(c.nb_nz || c.run_bad);
    w.rreq = !(c.nb_nz || c.rq_bad);
    w.rsp  = 1'b0;
    w.regp = !c.nb_nz;
    return w;
  endfunction

  // Malformed: a check of all packets or of the packet's type fails, or the type is unknown.
  function automatic logic malformed(input ty_t t, input chk_t c);
    ty_t w;
    w = type_ok(c);
    return c.node_ne || c.too_long
           || !((t.data && w.data) || (t.inl && w.inl) || (t.ctl && w.ctl) || (t.ack && w.ack)
                || (t.miss && w.miss) || (t.rreq && w.rreq) || (t.regp && w.regp));
  endfunction

  // Refused by the window check (DATA, INLINE, READ_REQ).
  function automatic logic refused(input ty_t t, input chk_t c);
    return (t.data || t.inl || t.rreq) && c.prot_bad;
  endfunction

  // The packet's kind, K_BAD if malformed, K_PROT if well formed and refused by the
  // window check, from its type and checks.
  function automatic kind_e classify(input ty_t t, input chk_t c);
    logic [3:0] k;   // the kind of a well-formed packet of the type
    k = (t.data ? 4'(K_DATA)    : 4'd0) | (t.inl  ? 4'(K_INLINE) : 4'd0)
      | (t.ctl  ? 4'(K_CONTROL) : 4'd0) | (t.ack  ? 4'(K_ACK)    : 4'd0)
      | (t.miss ? 4'(K_MISS)    : 4'd0) | (t.rreq ? 4'(K_RREQ)   : 4'd0)
      | (t.regp ? 4'(K_REG)     : 4'd0);
    return !c.crc_ok ? K_CRC : (malformed(t, c) ? K_BAD : (refused(t, c) ? K_PROT : kind_e'(k)));
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // tracking entry of a packet: {src_node mod NUM_NODES, tid}
  function automatic logic [EAW-1:0] entry(input logic [15:0] src, input logic [9:0] tid);
    return EAW'((32'(src) % NUM_NODES) * 1024 + 32'(tid));
  endfunction

  // The node a packet's block belongs to: its sender, or this node for a read response
  // (the block of this node's own READ_REQ). Its entry and its responses go by it.
  /* verilator lint_off UNUSEDSIGNAL */  // the type, resp and src_node are read
  function automatic logic [15:0] origin(input net_hdr_t hd, input logic [15:0] node);
    return (hd.ptype == 4'(NET_DATA) && hd.resp) ? node : hd.src_node;
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // ------------------------------------------------------------------ admission
  // The pipeline after the buffer never stops: a packet taken in cycle t starts its
  // tracker lookup (its key), is in stage C in t+1 (its request follows), is decided in
  // t+4 and pushes its command, event and ACK in t+5 (stage 3). It is taken only when each
  // output FIFO has room for it and for the INFL packets ahead of it that push first:
  // count < DEPTH - INFL, known from the count of the cycle before (registered, room_q),
  // which is at most one lower: count < DEPTH - INFL - 1 (the FIFO's almost_full clear).
  localparam int unsigned INFL      = 5;   // taken in t-1 .. t-5
  localparam int unsigned CMD_DEPTH = 16;
  localparam int unsigned ACK_DEPTH = 16;

`ifndef SYNTHESIS
  initial begin
    if (EVT_DEPTH <= INFL + 1) $fatal(1, "qrdma_rx_hdr: EVT_DEPTH must be > %0d", INFL + 1);
  end
`endif

  logic cq_af, eq_af, aq_af, room_q, trk_ready, take;

  assign s_hdr_ready = trk_ready && room_q;
  assign take        = s_hdr_valid && s_hdr_ready;

  always_ff @(posedge clk) begin
    room_q <= !cq_af && !eq_af && !aq_af;
    if (rst) room_q <= 1'b0;
  end

  // ------------------------------------------------------------------ stage C: classify
  chk_t           chk_q;
  ty_t            tyc_q;
  logic           op_d, op_i, op_c;  // the tracker's op: DATA, INLINE, CONTROL taken
  logic [8:0]     rrun_q;
  net_hdr_t       hc_q;
  logic [NBW-1:0] nbc_q;
  logic [13:0]    endc_q;
  logic [511:0]   immc_q;
  pkt_t           pk0;
  trk_req_t       req0;

  // loaded in every cycle (no enable fans out from the handshake): the tracker reads them
  // only in the cycle after a take
  always_ff @(posedge clk) begin
    hc_q   <= s_hdr;
    nbc_q  <= s_hdr_nbeats;
    endc_q <= 14'(s_hdr.dst_addr[5:0]) + 14'(s_hdr.len);
    immc_q <= rotate({256'b0, s_hdr.inline_data}, {s_hdr.dst_addr[5:3], 3'b000});
    chk_q  <= check(s_hdr, s_hdr_nbeats, s_hdr_long, s_hdr_crc_ok, s_hdr_prot_ok, node_id);
    tyc_q  <= type_of(s_hdr.ptype, s_hdr.resp);
    rrun_q <= rq_run(s_hdr);
  end

  always_comb begin
    /* verilator lint_off UNUSEDSIGNAL */  // the checks of the types the tracker takes are read
    ty_t w;
    /* verilator lint_on UNUSEDSIGNAL */
    // the kinds the tracker takes as its op (CRC good, well formed, not refused), each a
    // flat AND of registered bits
    w              = type_ok(chk_q);
    op_d           = chk_q.crc_ok && !chk_q.node_ne && !chk_q.too_long && !chk_q.prot_bad
                     && tyc_q.data && w.data;
    op_i           = chk_q.crc_ok && !chk_q.node_ne && !chk_q.too_long && !chk_q.prot_bad
                     && tyc_q.inl && w.inl;
    op_c           = chk_q.crc_ok && !chk_q.node_ne && !chk_q.too_long && tyc_q.ctl && w.ctl;
    pk0.h          = hc_q;
    pk0.h.src_node = tyc_q.rsp ? node_id : hc_q.src_node;   // origin()
    pk0.h.notify   = hc_q.notify && !tyc_q.rsp;
    pk0.nb      = nbc_q;
    pk0.rrun    = rrun_q;
    pk0.end_b   = endc_q;
    pk0.imm     = immc_q;
    pk0.kind    = classify(tyc_q, chk_q);
    req0        = '0;
    req0.key    = KEYW'(entry(pk0.h.src_node, hc_q.tid));
    req0.seq    = hc_q.seq;
    req0.gen    = hc_q.gen;
    req0.epoch  = hc_q.epoch;
    req0.idx    = tyc_q.inl ? '0 : hc_q.pkt_idx;
    req0.bp     = tyc_q.inl ? 9'd1 : hc_q.blk_pkts;
    req0.notify = pk0.h.notify;
    req0.ask    = hc_q.ask && tyc_q.data;
    // the op of pk0.kind (K_DATA, K_INLINE, K_CONTROL; TRK_NONE for the others)
    req0.op     = op_d ? TRK_DATA : (op_i ? TRK_INLINE : (op_c ? TRK_CONTROL : TRK_NONE));
  end

  // ------------------------------------------------------------------ tracker
  logic     t_valid;
  /* verilator lint_off UNUSEDSIGNAL */  // the key is used; the other fields are in pk
  trk_req_t t_req;
  /* verilator lint_on UNUSEDSIGNAL */
  /* verilator lint_off UNUSEDSIGNAL */  // miss: the tracker's m_miss_* follow it
  trk_dec_t d;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [$bits(pkt_t)-1:0] t_pay;
  /* verilator lint_off UNUSEDSIGNAL */  // the header fields the outputs do not need
  pkt_t     pk;
  /* verilator lint_on UNUSEDSIGNAL */

  // the lookup starts with the packet's key when it is taken; its request and payload
  // follow from stage C
  logic            tm_valid;
  /* verilator lint_off UNUSEDSIGNAL */  // the tid of the key; the node comes in full below
  logic [KEYW-1:0] tm_key;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [15:0]     tm_seq;
  logic [7:0]      tm_first;
  logic [8:0]      tm_cnt;

  qrdma_rx_track #(.NENT(NENT), .MAX_BLK_PKTS(MAX_BLK_PKTS), .PAY_W($bits(pkt_t))) u_track (
    .clk, .rst,
    .s_valid(take), .s_ready(trk_ready), .s_key(entry(origin(s_hdr, node_id), s_hdr.tid)), .s_req(req0), .s_pay(pk0),
    .m_valid(t_valid), .m_req(t_req), .m_dec(d), .m_pay(t_pay),
    .m_miss_valid(tm_valid), .m_miss_key(tm_key), .m_miss_seq(tm_seq),
    .m_miss_first(tm_first), .m_miss_cnt(tm_cnt)
  );

  assign pk = pkt_t'(t_pay);

  // ------------------------------------------------------------------ stage 3: push
  // The decision is registered before it goes into the output FIFOs, which have room
  // (admission above). The write command and the event are built from the packet alone
  // (the command as if it is written); the decision is registered whole on its own
  // (d3_q, loaded in every cycle) and its bits then set the command's operation and
  // first flag, the event's redo and ntf flags, the pushes and the statistics, so the
  // tracker's decision drives a few flip-flops and no clock enable. An event's write tag
  // is the count of write commands after the decision: wcnt_q in stage 3.
  logic      s3_v_q, cmd_ready, evt_ready, ack_ready;
  logic      w3_cmd, w3_evt, w3_ack_q, nbnz3_q;
  /* verilator lint_off UNUSEDSIGNAL */  // ctl_keep and miss act at the decision itself
  trk_dec_t  d3_q;
  /* verilator lint_on UNUSEDSIGNAL */
  rx_cmd_t   cmd3_q, cmd3;
  rx_evt_t   evt3_q, evt3;
  ack_desc_t ack3_q;
  logic [NBW-1:0] nb3_q;   // the packet's payload beats (a command that skips them)
  logic [TAGW-1:0] wcnt_q, wcnt1;   // write commands issued (RING and IMM); + 1
  logic [TAGW-1:0] wcnt_d;

  assign wcnt1  = wcnt_q + TAGW'(1);
  assign wcnt_d = (t_valid && d.acc_wr) ? wcnt1 : wcnt_q;

  assign w3_cmd = d3_q.acc_wr || nbnz3_q;
  // (a DATA packet of a registered transfer that completes the last block of a notifying
  // one before its CONTROL (ntf without evt) pushes a place-only event)
  assign w3_evt = d3_q.evt || d3_q.redo || (d3_q.ntf && evt3_q.blk);

  always_comb begin
    cmd3       = cmd3_q;
    cmd3.first = d3_q.first;
    if (!d3_q.acc_wr) begin
      cmd3.op     = OP_SKIP;
      cmd3.nbeats = nb3_q;
      cmd3.split  = 1'b0;
    end
    evt3      = evt3_q;
    evt3.redo  = d3_q.redo;
    evt3.ntf   = d3_q.ntf && d3_q.evt;
    evt3.place = !d3_q.evt && !d3_q.redo;
    evt3.wtag = wcnt_q;
  end

  // The notification fields table: written with the packet whose fields a notification
  // will report (a CONTROL taken, an INLINE with notify that completes its block). The
  // entry is read by the notification writer only after the completion event, and the
  // sender reuses the TID only after the ACK, which waits for the notification.
  always_ff @(posedge clk) begin
    m_ctl_we <= t_valid && d.ctl_keep;
    if (rst) m_ctl_we <= 1'b0;
  end
  always_ff @(posedge clk) begin
    if (t_valid) begin
      m_ctl_key       <= t_req.key;
      m_ctl.is_ctrl   <= (pk.kind == K_CONTROL);
      m_ctl.xfer      <= pk.h.xfer;
      m_ctl.pd        <= pk.h.pd;
      m_ctl.size      <= (pk.kind == K_CONTROL) ? pk.h[NET_HDR_SIZE_LSB +: NET_HDR_SIZE_W]
                                                : 33'(pk.h.len);
      m_ctl.tag       <= (pk.kind == K_CONTROL) ? pk.h[NET_HDR_TAG_LSB +: NET_HDR_TAG_W] : '0;
      m_ctl.dst_addr  <= pk.h.dst_addr;
      m_stamp.stamped <= is_stamped(pk.h);
      m_stamp.hops    <= pk.h[NET_HDR_HOPS_LSB +: NET_HDR_HOPS_W];
      m_stamp.t_post  <= pk.h[NET_HDR_T_POST_LSB +: NET_HDR_T_POST_W];
      m_stamp.t_send  <= pk.h[NET_HDR_T_SEND_LSB +: NET_HDR_T_SEND_W];
      m_stamp.t_sw    <= pk.h[NET_HDR_T_SW_LSB +: NET_HDR_T_SW_W];
      m_stamp.t_recv  <= pk.h[NET_HDR_T_RECV_LSB +: NET_HDR_T_RECV_W];
    end
  end

  // A registration: its record, a pulse in stage 3.
  always_ff @(posedge clk) begin
    if (t_valid) begin
      m_reg.src_node   <= pk.h.src_node;
      m_reg.blocks     <= pk.h[NET_HDR_BLOCKS_LSB +: NET_HDR_BLOCKS_W];
      m_reg.seq        <= pk.h.seq;
      m_reg.xseq       <= pk.h[NET_HDR_XSEQ_LSB +: NET_HDR_XSEQ_W];
      m_reg.f.is_ctrl  <= 1'b1;
      m_reg.f.xfer     <= pk.h.xfer;
      m_reg.f.pd       <= pk.h.pd;
      m_reg.f.size     <= pk.h[NET_HDR_SIZE_LSB +: NET_HDR_SIZE_W];
      m_reg.f.tag      <= pk.h[NET_HDR_TAG_LSB +: NET_HDR_TAG_W];
      m_reg.f.dst_addr <= pk.h.dst_addr;
    end
    m_reg_valid <= t_valid && pk.kind == K_REG;
    if (rst) m_reg_valid <= 1'b0;
  end

  // The write command, completion event and ACK of the decision, built only when the
  // decision is made (they are used only from the stage-3 registers).
  always_ff @(posedge clk) begin
    if (t_valid) begin
      rx_cmd_t   cmd;
      rx_evt_t   ev;
      ack_desc_t ack;
      // write command
      cmd        = '0;
      cmd.key    = t_req.key;
      cmd.baddr  = pk.h.dst_addr[63:6];
      cmd.lo     = pk.h.dst_addr[5:0];
      cmd.hi     = 6'(pk.end_b - 14'd1);
      cmd.nbeats = pk.nb;
      if (pk.kind == K_INLINE) cmd.data = rotate(pk.imm, {3'b000, pk.h.dst_addr[2:0]});
      if (pk.kind == K_DATA) begin
        cmd.op = OP_RING;
      end else begin
        cmd.op     = OP_IMM;
        cmd.nbeats = (pk.end_b > 14'd64) ? NBW'(2) : NBW'(1);
        cmd.split  = (pk.end_b > 14'd64) && (pk.h.dst_addr[11:6] == 6'h3F);
      end
      // completion event
      ev          = '0;
      ev.src_node = pk.h.src_node;
      ev.key      = t_req.key;
      ev.seq      = pk.h.seq;
      ev.blk      = (pk.kind == K_DATA) && pk.h.registered;
      ev.registered      = (pk.kind == K_DATA || pk.kind == K_CONTROL) && pk.h.registered;
      ev.xfer     = pk.h.xfer;
      ev.xblk     = pk.h[NET_HDR_XBLOCK_LSB +: NET_HDR_XBLOCK_W];
      ev.xseq     = pk.h[NET_HDR_XSEQ_LSB +: NET_HDR_XSEQ_W];
      // received ACK / NACK
      ack        = '0;
      ack.tid    = pk.h.tid;
      ack.seq    = pk.h.seq;
      ack.nack   = (pk.h.ptype == 4'(NET_NACK));
      ack.reason = ack.nack ? pk.h.reason : '0;
      cmd3_q   <= cmd;
      evt3_q   <= ev;
      ack3_q   <= ack;
      nb3_q    <= pk.nb;
      nbnz3_q  <= pk.nb != '0;
      w3_ack_q <= (pk.kind == K_ACK);
    end
  end

  always_ff @(posedge clk) begin
    d3_q   <= d;
    s3_v_q <= t_valid;
    wcnt_q <= wcnt_d;
    if (rst) begin
      s3_v_q <= 1'b0;
      wcnt_q <= '0;
    end
  end

  /* verilator lint_off UNUSEDSIGNAL */  // FIFO outputs this block has no use for
  logic [cnt_w(CMD_DEPTH)-1:0] cq_count;
  logic [cnt_w(ACK_DEPTH)-1:0] aq_count;
  /* verilator lint_on UNUSEDSIGNAL */

  qrdma_sync_fifo #(.WIDTH($bits(rx_cmd_t)), .DEPTH(CMD_DEPTH),
                    .ALMOST_FULL(CMD_DEPTH - INFL - 1)) u_cmd_fifo (
    .clk, .rst,
    .s_valid(s3_v_q && w3_cmd), .s_ready(cmd_ready), .s_data(cmd3),
    .m_valid(m_cmd_valid), .m_ready(m_cmd_ready), .m_data(m_cmd),
    .count(cq_count), .almost_full(cq_af)
  );

  qrdma_sync_fifo #(.WIDTH($bits(rx_evt_t)), .DEPTH(EVT_DEPTH),
                    .ALMOST_FULL(EVT_DEPTH - INFL - 1)) u_evt_fifo (
    .clk, .rst,
    .s_valid(s3_v_q && w3_evt), .s_ready(evt_ready), .s_data(evt3),
    .m_valid(m_evt_valid), .m_ready(m_evt_ready), .m_data(m_evt),
    .count(occ_evts), .almost_full(eq_af)
  );

  qrdma_sync_fifo #(.WIDTH(32), .DEPTH(ACK_DEPTH), .ALMOST_FULL(ACK_DEPTH - INFL - 1))
    u_ack_fifo (
    .clk, .rst,
    .s_valid(s3_v_q && w3_ack_q), .s_ready(ack_ready), .s_data(ack3_q),
    .m_valid(m_ack_valid), .m_ready(m_ack_ready), .m_data(m_ack_data),
    .count(aq_count), .almost_full(aq_af)
  );

  // ------------------------------------------------------------------ MISS
  // A MISS packet received: its record, a pulse in stage 3. A MISS answer: the tracker's
  // comes TRK_MISS_LAT cycles after its decision; the sender's node (the key holds it
  // only modulo NUM_NODES) follows it in a delay line loaded in every cycle.
  logic [15:0] src_d_q [TRK_MISS_LAT];

  // An access NACK: built at the decision of a refused packet, queued in stage 3 and sent
  // on m_mrsp in a cycle without a MISS answer; so is the MISS answer of a READ_REQ
  // dropped for want of room (below). At most one of these comes per packet,
  // so the queue holds at most the packets of the MISS answers' latency (asserted).
  localparam int unsigned PN_DEPTH = 16;
  rsp_desc_t pn3_q, pn_head;
  logic      pn3_v_q, pn_valid, pn_pop;
  /* verilator lint_off UNUSEDSIGNAL */
  logic      pn_ready, pn_af;
  logic [cnt_w(PN_DEPTH)-1:0] pn_count;
  /* verilator lint_on UNUSEDSIGNAL */

  // A READ_REQ is taken when the job queue has room for it beside the one pushed in this
  // cycle (rd_af: count + that push >= RD_DEPTH); else it is dropped, and its MISS answer
  // (its whole run) goes the access NACKs' way.
  logic rd_af;

  always_ff @(posedge clk) begin
    if (t_valid) begin
      pn3_q          <= '0;
      pn3_q.dst_node <= pk.h.src_node;
      pn3_q.tid      <= pk.h.tid;
      pn3_q.seq      <= pk.h.seq;
      if (pk.kind == K_RREQ) begin
        pn3_q.miss     <= 1'b1;
        pn3_q.pkt_idx  <= pk.h.pkt_idx[7:0];
        pn3_q.miss_cnt <= pk.rrun;
      end else begin
        pn3_q.nack     <= 1'b1;
        pn3_q.reason   <= 4'(ERR_REMOTE_ACCESS);
      end
    end
    pn3_v_q <= t_valid && (pk.kind == K_PROT || (pk.kind == K_RREQ && rd_af));
    if (rst) pn3_v_q <= 1'b0;
  end

  assign pn_pop = pn_valid && !tm_valid;

  qrdma_sync_fifo #(.WIDTH($bits(rsp_desc_t)), .DEPTH(PN_DEPTH)) u_pn_fifo (
    .clk, .rst,
    .s_valid(pn3_v_q), .s_ready(pn_ready), .s_data(pn3_q),
    .m_valid(pn_valid), .m_ready(pn_pop), .m_data(pn_head),
    .count(pn_count), .almost_full(pn_af)
  );

  always_ff @(posedge clk) begin
    src_d_q[0] <= pk.h.src_node;
    for (int i = 1; i < int'(TRK_MISS_LAT); i++) src_d_q[i] <= src_d_q[i - 1];
    if (t_valid) begin
      m_miss           <= '0;
      m_miss.tid       <= pk.h.tid;
      m_miss.seq       <= pk.h.seq;
      m_miss.pkt_first <= pk.h.pkt_idx[7:0];
      m_miss.pkt_num   <= pk.h.miss_cnt;
    end
    if (tm_valid) begin
      m_mrsp          <= '0;
      m_mrsp.dst_node <= src_d_q[TRK_MISS_LAT - 1];
      m_mrsp.tid      <= tm_key[9:0];
      m_mrsp.seq      <= tm_seq;
      m_mrsp.miss     <= 1'b1;
      m_mrsp.pkt_idx  <= tm_first;
      m_mrsp.miss_cnt <= tm_cnt;
    end else begin
      m_mrsp          <= pn_head;
    end
  end

  always_ff @(posedge clk) begin
    m_miss_valid <= t_valid && pk.kind == K_MISS;
    m_mrsp_valid <= tm_valid || pn_valid;
    if (rst) begin
      m_miss_valid <= 1'b0;
      m_mrsp_valid <= 1'b0;
    end
  end

  // ------------------------------------------------------------------ read requests
  // A READ_REQ taken: its job is built at its decision and queued in stage 3, or dropped
  // when the queue is full (the receive unit never waits for the send side; the MISS
  // answer above makes the requester send the request again).
  rd_job_t rd3_q;
  logic    rd3_v_q, rd3_drop_q;
  logic [cnt_w(RD_DEPTH)-1:0] rd_count;
  /* verilator lint_off UNUSEDSIGNAL */
  logic    rd_ready, rd_almost;   // (ready at every push: rd_af above)
  /* verilator lint_on UNUSEDSIGNAL */

  assign rd_af = 32'(rd_count) + 32'(rd3_v_q) >= RD_DEPTH;

  always_ff @(posedge clk) begin
    if (t_valid) begin
      rd3_q           <= '0;
      rd3_q.src_addr  <= pk.h.dst_addr;
      rd3_q.dst_addr  <= pk.h[NET_HDR_RD_LADDR_LSB +: NET_HDR_RD_LADDR_W];
      rd3_q.dst_node  <= pk.h.src_node;
      rd3_q.pd        <= pk.h.pd;
      rd3_q.tid       <= pk.h.tid;
      rd3_q.seq       <= pk.h.seq;
      rd3_q.size      <= pk.h[NET_HDR_RD_SIZE_LSB +: NET_HDR_RD_SIZE_W];
      rd3_q.path      <= pk.h.path;
      rd3_q.xfer      <= pk.h.xfer;
      rd3_q.pkt_first <= pk.h.pkt_idx[7:0];
      rd3_q.pkt_num   <= pk.h.miss_cnt;
      rd3_q.rkey      <= pk.h[NET_HDR_RD_LKEY_LSB +: NET_HDR_RD_LKEY_W];
      rd3_q.gen       <= pk.h.gen;
      rd3_q.epoch     <= pk.h.epoch;
    end
    rd3_v_q    <= t_valid && pk.kind == K_RREQ && !rd_af;
    rd3_drop_q <= t_valid && pk.kind == K_RREQ && rd_af;
    if (rst) begin
      rd3_v_q    <= 1'b0;
      rd3_drop_q <= 1'b0;
    end
  end

  qrdma_sync_fifo #(.WIDTH($bits(rd_job_t)), .DEPTH(RD_DEPTH)) u_rd_fifo (
    .clk, .rst,
    .s_valid(rd3_v_q), .s_ready(rd_ready), .s_data(rd3_q),
    .m_valid(m_rd_valid), .m_ready(m_rd_ready), .m_data(m_rd),
    .count(rd_count), .almost_full(rd_almost)
  );

  always_ff @(posedge clk) begin
    stat_read_req  <= rd3_v_q;
    stat_read_drop <= rd3_drop_q;
    if (rst) begin
      stat_read_req  <= 1'b0;
      stat_read_drop <= 1'b0;
    end
  end

  // statistics: one-cycle pulses two cycles after the decision (from the decision
  // registered in stage 3, so that the decision drives single flip-flops, not the byte
  // count's reset)
  logic       st_data, st_ctrl, st_acc, st_crc, st_dup, st_stale, st_bad,
              st_redo;
  logic       k3_prot_q;
  logic [12:0] st_len_q;
  logic       k3_data_q, k3_inl_q, k3_ackmiss_q, k3_crc_q, k3_bad_q;   // the packet's kind

  always_ff @(posedge clk) begin
    k3_data_q    <= pk.kind == K_DATA;
    k3_inl_q     <= pk.kind == K_INLINE;
    k3_ackmiss_q <= pk.kind == K_ACK || pk.kind == K_MISS || pk.kind == K_REG;
    k3_crc_q     <= pk.kind == K_CRC;
    k3_bad_q     <= pk.kind == K_BAD;
    k3_prot_q    <= pk.kind == K_PROT;
    st_len_q     <= pk.h.len;
  end

  always_comb begin
    st_data  = s3_v_q && d3_q.acc_wr && k3_data_q;
    st_ctrl  = s3_v_q && ((d3_q.acc_wr && k3_inl_q) || d3_q.acc_ctl || k3_ackmiss_q);
    st_acc   = s3_v_q && d3_q.acc_wr;
    st_crc   = s3_v_q && k3_crc_q;
    st_dup   = s3_v_q && d3_q.dup;
    st_stale = s3_v_q && d3_q.stale;
    st_bad   = s3_v_q && k3_bad_q;
    st_redo  = s3_v_q && d3_q.redo;
  end

  always_ff @(posedge clk) begin
    stat_data_pkt   <= st_data;
    stat_ctrl_pkt   <= st_ctrl;
    stat_bytes      <= st_acc ? st_len_q : '0;
    stat_crc_drop   <= st_crc;
    stat_dup_drop   <= st_dup;
    stat_stale_drop <= st_stale;
    stat_bad_drop   <= st_bad;
    stat_redo       <= st_redo;
    stat_prot_drop  <= s3_v_q && k3_prot_q;
    stat_stall      <= s_hdr_valid && trk_ready && !room_q;
    if (rst) begin
      stat_data_pkt   <= 1'b0;
      stat_ctrl_pkt   <= 1'b0;
      stat_bytes      <= '0;
      stat_crc_drop   <= 1'b0;
      stat_dup_drop   <= 1'b0;
      stat_stale_drop <= 1'b0;
      stat_bad_drop   <= 1'b0;
      stat_redo       <= 1'b0;
      stat_prot_drop  <= 1'b0;
      stat_stall      <= 1'b0;
    end
  end

`ifndef SYNTHESIS
  // the output FIFOs have room for every push
  always_ff @(posedge clk) begin
    if (s3_v_q)
      if (!rst) assert ((!w3_cmd || cmd_ready) && (!w3_evt || evt_ready)
                        && (!w3_ack_q || ack_ready))
        else $error("qrdma_rx_hdr: output FIFO full at a push");
    if (pn3_v_q)
      if (!rst) assert (pn_ready) else $error("qrdma_rx_hdr: access NACK queue full");
    if (rd3_v_q)
      if (!rst) assert (rd_ready) else $error("qrdma_rx_hdr: read job queue full at a push");
  end
`endif

endmodule

`default_nettype wire
