// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_rx_track: the block tracker of the receive unit (docs/nic.md "Receive unit";
// [RSN] §3.2 registration by bitmask, duplicate drop). One table entry per tracking key
// ({src_node mod NUM_NODES, tid}): the block's generation and its sender's epoch, a
// bitmask of its packets written, their count, done, CONTROL seen, a write issued. For
// each lookup (in order) it decides, from the lookup's generation and epoch against the
// entry's (a newer block, the same, an older one), whether the packet is written, taken,
// a duplicate or stale, whether it is the block's first write, whether it completes the
// block (completion event, with a notification when due), whether it is a duplicate of a
// block whose event was issued (redo: its response is sent again), and whether an asking
// DATA packet leaves its block incomplete (miss: the block's first missing packet and the
// run of missing packets from it follow on m_miss_*); the rules are in docs/nic.md and
// docs/reliability.md. An opaque payload (PAY_W bits) travels with each lookup so the
// caller needs no pipeline of its own. Lookups with op TRK_NONE pass through in order
// without touching the table. Inside (stages, forwarding, compares formed before the
// decision): docs/modules.md#qrdma_rx_track.
// Contract: a lookup starts with its key (s_valid, s_key: the table is read); its request
// and payload follow in the next cycle (s_req, s_pay; s_req.key is not used). The
// pipeline never stops: a lookup started in cycle t is decided in t+4, when m_valid is
// high for that one cycle and the caller takes the decision (it starts a lookup only when
// it can). A decision with miss set is followed TRK_MISS_LAT (qrdma_rx_pkg) cycles later
// by m_miss_valid for one cycle, with the lookup's key and seq, the first missing packet
// (m_miss_first) and the number of missing packets from it on (m_miss_cnt). After rst the
// table is cleared in NENT cycles (s_ready low).
`default_nettype none

module qrdma_rx_track
  import qrdma_pkg::*;
  import qrdma_rx_pkg::*;
#(
  parameter int unsigned  NENT         = 4096,  // tracking entries (NUM_NODES * 1024)
  parameter int unsigned  MAX_BLK_PKTS = 64,    // packets of a block (bits of the mask), 1..256
  parameter int unsigned  PAY_W        = 8,     // payload bits carried with each lookup
  localparam int unsigned EAW          = idx_w(NENT)
) (
  input  logic             clk,
  input  logic             rst,
  // lookups: the key, then (next cycle) the request and payload
  input  logic             s_valid,
  output logic             s_ready,
  input  logic [EAW-1:0]   s_key,
  /* verilator lint_off UNUSEDSIGNAL */  // the key comes with s_valid (s_key)
  input  trk_req_t         s_req,
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic [PAY_W-1:0] s_pay,
  // decisions, in lookup order, four cycles after the key (no backpressure)
  output logic             m_valid,
  output trk_req_t         m_req,
  output trk_dec_t         m_dec,
  output logic [PAY_W-1:0] m_pay,
  // MISS answers, TRK_MISS_LAT cycles after their decision (no backpressure)
  output logic             m_miss_valid,
  output logic [KEYW-1:0]  m_miss_key,
  output logic [15:0]      m_miss_seq,
  output logic [7:0]       m_miss_first,  // the block's first missing packet
  output logic [8:0]       m_miss_cnt     // missing packets from m_miss_first on, 1..255
);

  localparam int unsigned CW = cnt_w(MAX_BLK_PKTS);
  localparam int unsigned IW = idx_w(MAX_BLK_PKTS);
  // the table in banks of BANK_WORDS entries (qrdma_rx_pkg), compared each on its own
  localparam int unsigned BANKS = (NENT > BANK_WORDS) ? NENT / BANK_WORDS : 1;
  localparam int unsigned BA    = idx_w(NENT / BANKS);  // entry bits within a bank
  // the packet's bit in the entry of C: partial ORs of BG mask bits, registered leaving B
  localparam int unsigned BG    = 4;
  localparam int unsigned NBG   = (MAX_BLK_PKTS + BG - 1) / BG;

`ifndef SYNTHESIS
  initial begin
    if (MAX_BLK_PKTS < 1 || MAX_BLK_PKTS > 256)
      $fatal(1, "qrdma_rx_track: MAX_BLK_PKTS must be in 1..256");
    if (NENT < 2 || EAW > KEYW) $fatal(1, "qrdma_rx_track: NENT must be in 2..2^KEYW");
  end
`endif

  typedef struct packed {
    logic                    valid;  // used since the sweep
    logic                    done;   // all packets of the block written
    logic                    ctrl;   // the block's CONTROL came
    logic                    wseen;  // a write of the block was issued
    logic [15:0]             gen;    // the block's generation
    logic [7:0]              epoch;  // its sender's epoch
    logic [CW-1:0]           cnt;    // packets written
    logic [MAX_BLK_PKTS-1:0] mask;   // packets written, by pkt_idx
  } ent_t;

  // An entry's flags.
  typedef struct packed {
    logic valid;
    logic done;
    logic ctrl;
    logic wseen;
  } flg_t;

  /* verilator lint_off UNUSEDSIGNAL */  // the entry's flags are read, not its block fields
  function automatic flg_t flags(input ent_t e);
    return '{valid: e.valid, done: e.done, ctrl: e.ctrl, wseen: e.wseen};
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // A lookup as the stages carry it: the request and what the decision needs of it.
  typedef struct packed {
    trk_req_t      r;
    logic [IW-1:0] idx;    // packet index
    logic [8:0]    bpm1;   // packets of the block - 1
    logic [8:0]    bpm2;   // packets of the block - 2
    logic          bp1;    // a one-packet block
    logic          bp2;    // a two-packet block
    logic          ask;    // an asking packet: its ask bit, or the block's last packet
  } lk_t;

  // The entry against the lookup, compared before the decision.
  typedef struct packed {
    logic zero;  // same epoch and generation
    logic neg;   // same epoch, bit 15 of lookup generation - entry generation set (older)
    logic bs;    // the lookup's packet bit is set
    logic ceq;   // count + 1 == packets of the block
  } cmp_t;

  function automatic lk_t derive(input trk_req_t r);
    lk_t l;
    l.r    = r;
    l.idx  = IW'(r.idx);
    l.bpm1 = r.bp - 9'd1;
    l.bpm2 = r.bp - 9'd2;
    l.bp1  = (r.bp == 9'd1);
    l.bp2  = (r.bp == 9'd2);
    l.ask  = r.ask || (r.idx == r.bp - 9'd1);
    return l;
  endfunction

  // Generation g of epoch p against generation eg of epoch ep: the same block (zero), an
  // older one (neg: same epoch, g - eg in [2^15, 2^16)); neither: a newer one.
  function automatic logic gen_zero(input logic [15:0] g, input logic [7:0] p,
                                    input logic [15:0] eg, input logic [7:0] ep);
    return p == ep && g == eg;
  endfunction

  function automatic logic gen_neg(input logic [15:0] g, input logic [7:0] p,
                                   input logic [15:0] eg, input logic [7:0] ep);
    return p == ep && 1'((g - eg) >> 15);
  endfunction

  // ------------------------------------------------------------------ table sweep
  logic           init_q;
  logic [EAW-1:0] init_idx_q;

  qrdma_init_sweep #(.N(NENT)) u_init (.clk, .rst, .busy(init_q), .idx(init_idx_q));

  // ------------------------------------------------------------------ table
  // Stages, one cycle each, always moving: A the word read is in the RAM (the key taken
  // the cycle before; the request comes in), B it is in the RAM's output register, C it is
  // registered in the fabric, 2 the entry and its compares are registered and decided; the
  // entry written back is registered (h1) and written into the table in the next cycle.
  logic             take, a_v_q, b_v_q, c_v_q, s2_v_q, tbl_we, we_q, h1_v_q;
  ent_t             ent_wr, ent_bc, ent_c_q, ent2_q, ent2, h1_q, h2_q, h3_q;
  flg_t             fl2_q;
  logic             sn2_q;
  logic [EAW-1:0]   h1_k_q;      // key of h1
  ent_t             rd [BANKS];  // the banks' words
  logic [EAW-1:0]   key_a_q, key_b_q, key_c_q, key2_q;
  trk_req_t         r_b_q;
  lk_t              lk_b, lk_c_q;
  /* verilator lint_off UNUSEDSIGNAL */  // the lookup is carried whole into stage 2
  lk_t              lk2_q;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [PAY_W-1:0] p_b_q, p_c_q, p2_q;
  logic [MAX_BLK_PKTS-1:0] oh_b_q, oh_c_q, oh2_q;   // the lookup's packet bit, one-hot
  logic             h3_a_q, h3_b_q, h2_a_q, h2_b_q, h1_b_q, h1_c_q, sn_c_q;
  logic [BANKS-1:0] bank_b_q;    // one-hot: the bank of the key in B
  cmp_t             cmp_c, cmp_e, cmp_h, cmp_sn, cmp2_q;
  logic [NBG*BG-1:0] mo_b;       // the entry's mask AND the packet's one-hot bit, leaving B
  logic [NBG-1:0]   bsp_c_q;     // its partial ORs
  logic [EAW-1:0]   wr_key;

  assign s_ready = !init_q;
  assign take    = s_valid && s_ready;
  assign wr_key  = init_q ? init_idx_q : h1_k_q;
  assign lk_b    = derive(r_b_q);

  // Read in every cycle (the output register loads in every cycle, so a lookup's word is
  // there two cycles after its key). RDW_ANY: a read that meets a write of its entry
  // never uses the word read: that write's entry is kept as h3 when the lookup leaves B
  // (below), and the sweep writes while no lookup is started.
  for (genvar b = 0; b < int'(BANKS); b++) begin : gen_bank
    logic we;
    if (BANKS == 1) begin : gen_one
      assign we = init_q || we_q;
    end else begin : gen_sel
      assign we = (init_q || we_q) && wr_key[EAW-1:BA] == (EAW-BA)'(b);
    end
    qrdma_sdp_ram #(.WIDTH($bits(ent_t)), .DEPTH(NENT / BANKS), .OUT_REG(1'b1),
                    .RDW_ANY(1'b1)) u_table (
      .clk,
      .wr_en(we), .wr_be(1'b1), .wr_addr(wr_key[BA-1:0]), .wr_data(init_q ? '0 : h1_q),
      .rd_en(1'b1), .rd_addr(s_key[BA-1:0]), .rd_oe(1'b1), .rd_data(rd[b])
    );
  end

  // ------------------------------------------------------------------ stages A, B, C: entry
  // Only stage 2 writes, a cycle after it decides (from h1). A lookup read in cycle t
  // (read-first) moves into stage 2 at the end of t+3; the writes it has not seen are
  // those of the lookups in stage 2 in t-1 .. t+3. h1, h2, h3 keep what the lookups in
  // stage 2 one, two, three cycles before wrote (or their entry as it was when they wrote
  // nothing). Leaving B (end of t+2) the entry is the newest of h1 (stage 2 in t+1), h2
  // (in t), h3 (in t-1) and the word read; leaving C (end of t+3) the newest of the snoop
  // (the lookup being decided, in t+3), h1 (in t+2) and that. Whether each of them holds
  // the lookup's key is compared while it is in stage 2 or h1 and registered; the
  // compares of stage 2 are formed in C from registers, each candidate's on its own.
  always_ff @(posedge clk) begin
    key_a_q <= s_key;   // (read only with a_v_q)
    h2_a_q  <= s2_v_q && key2_q == s_key;
    h3_a_q  <= h1_v_q && h1_k_q == s_key;
    if (a_v_q) begin
      r_b_q    <= s_req;
      oh_b_q   <= MAX_BLK_PKTS'(1) << IW'(s_req.idx);
      p_b_q    <= s_pay;
      key_b_q  <= key_a_q;
      h2_b_q   <= h2_a_q;
      h3_b_q   <= h3_a_q;
      h1_b_q   <= s2_v_q && key2_q == key_a_q;
      for (int i = 0; i < int'(BANKS); i++)
        bank_b_q[i] <= (BANKS == 1 || 32'(key_a_q) >> BA == i);
    end
    if (b_v_q) begin
      lk_c_q  <= lk_b;
      p_c_q   <= p_b_q;
      key_c_q <= key_b_q;
      oh_c_q  <= oh_b_q;
      ent_c_q <= ent_bc;
      for (int g = 0; g < int'(NBG); g++) bsp_c_q[g] <= |mo_b[g*BG +: BG];
      h1_c_q  <= s2_v_q && key2_q == key_b_q;
      sn_c_q  <= c_v_q && key_c_q == key_b_q;
    end
    if (c_v_q) begin
      lk2_q  <= lk_c_q;
      p2_q   <= p_c_q;
      key2_q <= key_c_q;
      oh2_q  <= oh_c_q;
      ent2_q <= h1_c_q ? h1_q : ent_c_q;
      sn2_q  <= sn_c_q;
      fl2_q  <= sn_c_q ? flags(ent_wr) : (h1_c_q ? flags(h1_q) : flags(ent_c_q));
      cmp2_q <= sn_c_q ? cmp_sn : cmp_c;
    end
    h1_q   <= ent_wr;
    h1_k_q <= key2_q;
    h2_q   <= h1_q;
    h3_q   <= h2_q;
  end

  always_ff @(posedge clk) begin
    a_v_q  <= take;
    b_v_q  <= a_v_q;
    c_v_q  <= b_v_q;
    s2_v_q <= c_v_q;
    h1_v_q <= s2_v_q;
    we_q   <= tbl_we;
    if (rst) begin
      a_v_q  <= 1'b0;
      b_v_q  <= 1'b0;
      c_v_q  <= 1'b0;
      s2_v_q <= 1'b0;
      h1_v_q <= 1'b0;
      we_q   <= 1'b0;
    end
  end

  // Stage 2's entry: when the lookup took the snoop's, that is h1 (the entry stage 2
  // wrote back in the cycle before), else the one registered leaving C; its four flags,
  // which the decision reads, are registered on their own (fl2_q). So the entry written
  // back goes into h1 alone, not also through the snoop's select into stage 2's register.
  always_comb begin
    ent2       = sn2_q ? h1_q : ent2_q;
    ent2.valid = fl2_q.valid;
    ent2.done  = fl2_q.done;
    ent2.ctrl  = fl2_q.ctrl;
    ent2.wseen = fl2_q.wseen;
  end

  // leaving B: the word read (of the key's bank), h1, h2 or h3 (registered selects only)
  always_comb begin
    ent_bc = '0;
    for (int i = 0; i < int'(BANKS); i++) ent_bc |= bank_b_q[i] ? rd[i] : '0;
    if (h3_b_q) ent_bc = h3_q;
    if (h2_b_q) ent_bc = h2_q;
    if (h1_b_q) ent_bc = h1_q;
  end

  // leaving C: the compares of the lookup with h1 (formed a cycle ahead, below: cmp_h) and
  // with the entry of C, side by side; the packet's bit in the entry of C an AND-OR of the
  // mask with the packet's one-hot bit (each of its flops drives a gate, where the
  // index's bits would drive every select of a 64:1 multiplexer), its ANDs and first ORs
  // formed leaving B (bsp_c_q), the last OR in C
  assign mo_b = (NBG*BG)'(ent_bc.mask & oh_b_q);
  assign cmp_e = '{zero: gen_zero(lk_c_q.r.gen, lk_c_q.r.epoch, ent_c_q.gen, ent_c_q.epoch),
                   neg:  gen_neg(lk_c_q.r.gen, lk_c_q.r.epoch, ent_c_q.gen, ent_c_q.epoch),
                   bs:   |bsp_c_q,
                   ceq:  (9'(ent_c_q.cnt) == lk_c_q.bpm1)};
  assign cmp_c = h1_c_q ? cmp_h : cmp_e;

  // ------------------------------------------------------------------ stage 2: decide
  // What stage 2 does with its entry (cls), decided from registered compares.
  typedef enum logic [2:0] {
    C_KEEP,   // nothing written (a drop, TRK_NONE): the entry stays
    C_WNEW,   // DATA/INLINE of a newer block: the entry starts afresh with its bit
    C_WSAME,  // DATA/INLINE of the block, its bit clear: the bit set
    C_CNEW,   // CONTROL of a newer block: the entry starts afresh with ctrl
    C_CSAME   // CONTROL of the block, the first: ctrl set
  } cls_e;

  logic     newer, same, older, complete;
  cls_e     cls;
  trk_dec_t d;

  assign newer = !ent2.valid || (!cmp2_q.zero && !cmp2_q.neg);
  assign same  = ent2.valid && cmp2_q.zero;
  assign older = !newer && !same;

  // A block's completion event comes with the packet that completes it; the last block
  // of a notifying transfer (DATA with notify) also waits for its CONTROL, whichever of
  // the two comes second. An INLINE is a one-packet block with its own notify.
  always_comb begin
    d        = '0;
    cls      = C_KEEP;
    complete = 1'b0;
    unique case (lk2_q.r.op)
      TRK_DATA, TRK_INLINE: begin
        if (newer) begin
          cls      = C_WNEW;
          d.acc_wr = 1'b1;
          d.first  = 1'b1;
          complete = lk2_q.bp1;
        end else if (same && !cmp2_q.bs) begin
          cls      = C_WSAME;
          d.acc_wr = 1'b1;
          d.first  = !ent2.wseen;
          complete = !ent2.done && cmp2_q.ceq;
        end else begin
          d.dup   = same;
          d.stale = older;
          // a duplicate of a block whose event was issued (a notifying last block's comes
          // with its CONTROL): its response is sent again, once per copy of the block (at
          // its asking packet)
          d.redo  = same && ent2.done && lk2_q.ask
                    && (lk2_q.r.op == TRK_INLINE || !lk2_q.r.notify || ent2.ctrl);
        end
        // an asking DATA packet written or a duplicate, its block incomplete after it
        // (written: a new block of more than one packet, or the same block not completed
        // by it; a duplicate: the block not done)
        d.miss = lk2_q.r.op == TRK_DATA && lk2_q.ask
                 && (newer ? !lk2_q.bp1 : (same && !ent2.done && (cmp2_q.bs || !cmp2_q.ceq)));
        if (lk2_q.r.op == TRK_INLINE) begin
          d.evt      = complete;
          d.ntf      = complete && lk2_q.r.notify;
          d.ctl_keep = complete && lk2_q.r.notify;
        end else begin
          d.evt = complete && (!lk2_q.r.notify || (!newer && ent2.ctrl));
          d.ntf = complete && lk2_q.r.notify;
        end
      end
      TRK_CONTROL: begin
        if (newer) begin
          cls        = C_CNEW;
          d.acc_ctl  = 1'b1;
          d.ctl_keep = 1'b1;
        end else if (same && !ent2.ctrl) begin
          cls        = C_CSAME;
          d.acc_ctl  = 1'b1;
          d.ctl_keep = 1'b1;
          d.evt      = ent2.done;   // the block is already complete
          d.ntf      = ent2.done;
        end else begin
          d.dup   = same;
          d.stale = older;
          d.redo  = same && ent2.done;   // ctrl is set: its event was issued
        end
      end
      default: ;  // TRK_NONE
    endcase
  end

  // the entry written back
  always_comb begin
    ent_wr = ent2;
    unique case (cls)
      C_WNEW: begin
        ent_wr       = '0;
        ent_wr.valid = 1'b1;
        ent_wr.done  = lk2_q.bp1;
        ent_wr.wseen = 1'b1;
        ent_wr.gen   = lk2_q.r.gen;
        ent_wr.epoch = lk2_q.r.epoch;
        ent_wr.cnt   = CW'(1);
        ent_wr.mask  = oh2_q;
      end
      C_WSAME: begin
        ent_wr.done  = ent2.done || cmp2_q.ceq;
        ent_wr.wseen = 1'b1;
        ent_wr.cnt   = ent2.cnt + CW'(1);
        ent_wr.mask  = ent2.mask | oh2_q;
      end
      C_CNEW: begin
        ent_wr       = '0;
        ent_wr.valid = 1'b1;
        ent_wr.ctrl  = 1'b1;
        ent_wr.gen   = lk2_q.r.gen;
        ent_wr.epoch = lk2_q.r.epoch;
      end
      C_CSAME: ent_wr.ctrl = 1'b1;
      default: ;
    endcase
  end

  // The compares of the lookup in stage C against the entry written back (snoop): formed
  // from the registers of both stages, against each generation and epoch the entry can
  // get, and selected by cls. The compares with the entry of stage 2 (ze, ne, bse) and
  // with h1 (cmp_h) are formed a cycle ahead, when the lookup X leaves B while Y is in
  // stage 2 and Z in C: against Y's lookup and against Y's entry (the entry Y writes back,
  // which is h1 when X is in C, and Z's entry when Z took the snoop: sn2_q then), against
  // Z's entry when it did not (h1 or the word), and against Z's lookup (the generation Z
  // writes when it starts its entry afresh: zr_q / nr_q), each registered on its own with
  // what Y's decision does to its entry (fy_q: started afresh, wy_q: its packet's bit
  // set); in C one LUT of those registers gives each compare, beside the decision. So no
  // carry chain lies between h1 or stage 2's entry and their compares, and no decision
  // runs into the registers of the next. The entries of Y and Z are h1, stage 2's register or the entry
  // of C: each of these three is compared on its own and the compares selected in C (sy_q:
  // Y's entry is h1, hz_q: Z's is). The packet's bit is an AND-OR of the mask with the
  // packet's one-hot bit, registered with the request (each of its flops drives a few
  // gates, where the index's bits would drive every select), and whether X is Y's or Z's
  // packet is an index compare.
  logic fy_q, wy_q, sy_q, hz_q, eqidx_q, e2_q, zr_q, nr_q, zly_q, nly_q;
  logic zh1_q, nh1_q, bh1_q, zs2_q, ns2_q, bs2_q, zec_q, nec_q, bec_q;
  logic zy, ny, by, bse, ze, ne;

  assign zy  = fy_q ? zly_q : (sy_q ? zh1_q : zs2_q);   // against Y's entry written back (h1)
  assign ny  = fy_q ? nly_q : (sy_q ? nh1_q : ns2_q);
  assign by  = (!fy_q && (sy_q ? bh1_q : bs2_q)) || (wy_q && e2_q);
  assign ze  = sn2_q ? zy : (hz_q ? zh1_q : zec_q);     // against stage 2's entry
  assign ne  = sn2_q ? ny : (hz_q ? nh1_q : nec_q);
  assign bse = sn2_q ? by : (hz_q ? bh1_q : bec_q);
  assign cmp_h = '{zero: zy, neg: ny, bs: by, ceq: (9'(h1_q.cnt) == lk_c_q.bpm1)};

  always_comb begin
    logic ceq_1, ceq_2;
    ceq_1  = (9'(ent2.cnt) == lk_c_q.bpm1);   // count unchanged
    ceq_2  = (9'(ent2.cnt) == lk_c_q.bpm2);   // count + 1
    unique case (cls)
      C_WNEW:  cmp_sn = '{zero: zr_q, neg: nr_q, bs: eqidx_q,        ceq: lk_c_q.bp2};
      C_WSAME: cmp_sn = '{zero: ze,   neg: ne,   bs: bse || eqidx_q, ceq: ceq_2};
      C_CNEW:  cmp_sn = '{zero: zr_q, neg: nr_q, bs: 1'b0,           ceq: lk_c_q.bp1};
      default: cmp_sn = '{zero: ze,   neg: ne,   bs: bse,            ceq: ceq_1};
    endcase
  end

  // leaving B (end of t): X is lk_b, Y stage 2's lookup (lk2_q; its entry h1 or ent2_q),
  // Z C's (lk_c_q; its entry h1 or ent_c_q when it did not take the snoop)
  always_ff @(posedge clk) begin
    if (b_v_q) begin
      fy_q  <= cls == C_WNEW || cls == C_CNEW;
      wy_q  <= cls == C_WNEW || cls == C_WSAME;
      sy_q  <= sn2_q;
      hz_q  <= h1_c_q;
      zly_q <= gen_zero(lk_b.r.gen, lk_b.r.epoch, lk2_q.r.gen, lk2_q.r.epoch);
      nly_q <= gen_neg(lk_b.r.gen, lk_b.r.epoch, lk2_q.r.gen, lk2_q.r.epoch);
      zr_q  <= gen_zero(lk_b.r.gen, lk_b.r.epoch, lk_c_q.r.gen, lk_c_q.r.epoch);
      nr_q  <= gen_neg(lk_b.r.gen, lk_b.r.epoch, lk_c_q.r.gen, lk_c_q.r.epoch);
      zh1_q <= gen_zero(lk_b.r.gen, lk_b.r.epoch, h1_q.gen, h1_q.epoch);
      nh1_q <= gen_neg(lk_b.r.gen, lk_b.r.epoch, h1_q.gen, h1_q.epoch);
      bh1_q <= |(h1_q.mask & oh_b_q);
      zs2_q <= gen_zero(lk_b.r.gen, lk_b.r.epoch, ent2_q.gen, ent2_q.epoch);
      ns2_q <= gen_neg(lk_b.r.gen, lk_b.r.epoch, ent2_q.gen, ent2_q.epoch);
      bs2_q <= |(ent2_q.mask & oh_b_q);
      zec_q <= gen_zero(lk_b.r.gen, lk_b.r.epoch, ent_c_q.gen, ent_c_q.epoch);
      nec_q <= gen_neg(lk_b.r.gen, lk_b.r.epoch, ent_c_q.gen, ent_c_q.epoch);
      bec_q <= |(ent_c_q.mask & oh_b_q);
      e2_q  <= (lk2_q.idx == lk_b.idx);
      eqidx_q <= (lk_c_q.idx == lk_b.idx);
    end
  end

  // ------------------------------------------------------------------ MISS answers
  // The block's mask after the packet is h1's (the entry written back, or kept), a cycle
  // after the decision (M1). Bits at and above the block's packet count are taken as
  // received (a mask of MAX_BLK_PKTS + 1 bits, the top bit always set), so that, with m
  // that mask: f = the lowest clear bit of m, and the run of missing packets ends at g,
  // the lowest set bit above f, which exists (the top bit). M1: s = m + 1 (two carry
  // chains of half the width side by side, the upper half's + 1 selected by the lower
  // half being all ones) gives f one-hot (~m & s) and m with its trailing ones cleared
  // (m & s); M2: g one-hot
  // (the lowest set bit of that: x & -x, a carry chain) and f binary; M3: g binary; M4:
  // n = g - f into the output registers. Registers only between the stages; the loop of
  // the decision sees only the miss bit's extra loads.
  localparam int unsigned MW = MAX_BLK_PKTS + 1;
  localparam int unsigned ML = MW / 2;     // the lower half's bits
  localparam int unsigned MH = MW - ML;    // the upper half's bits

  function automatic logic [8:0] enc(input logic [MW-1:0] oh);   // one-hot -> index
    logic [8:0] v;
    v = '0;
    for (int i = 0; i < int'(MW); i++) v |= oh[i] ? 9'(i) : 9'd0;
    return v;
  endfunction

  logic                mv1_q, mv2_q, mv3_q, mv4_q;
  logic [KEYW-1:0]     mk1_q, mk2_q, mk3_q, mk4_q;
  logic [15:0]         ms1_q, ms2_q, ms3_q, ms4_q;
  logic [MW-1:0]       bm1_q;          // M1: bits at and above the block's packet count
  logic [MW-1:0]       m1, s1;
  logic [MH-1:0]       s1_hi;
  logic [MW-1:0]       fo2_q, mc2_q;   // M2: f one-hot, m with its trailing ones cleared
  logic [MW-1:0]       go3_q;          // M3: g one-hot
  logic [8:0]          f3_q, f4_q, g4_q;

  assign m1 = {1'b1, h1_q.mask} | bm1_q;
  assign s1_hi = m1[MW-1:ML] + MH'(1);
  assign s1    = {(&m1[ML-1:0]) ? s1_hi : m1[MW-1:ML], m1[ML-1:0] + ML'(1)};

  always_ff @(posedge clk) begin
    mv1_q <= s2_v_q && d.miss;
    mv2_q <= mv1_q;
    mv3_q <= mv2_q;
    mv4_q <= mv3_q;
    if (rst) begin
      mv1_q <= 1'b0;
      mv2_q <= 1'b0;
      mv3_q <= 1'b0;
      mv4_q <= 1'b0;
    end
  end

  always_ff @(posedge clk) begin
    mk1_q <= KEYW'(key2_q);
    ms1_q <= lk2_q.r.seq;
    for (int i = 0; i < int'(MW); i++) bm1_q[i] <= (10'(i) >= 10'(lk2_q.r.bp));
    mk2_q <= mk1_q;
    ms2_q <= ms1_q;
    fo2_q <= ~m1 & s1;
    mc2_q <= m1 & s1;
    mk3_q <= mk2_q;
    ms3_q <= ms2_q;
    go3_q <= mc2_q & (~mc2_q + MW'(1));
    f3_q  <= enc(fo2_q);
    mk4_q <= mk3_q;
    ms4_q <= ms3_q;
    g4_q  <= enc(go3_q);
    f4_q  <= f3_q;
    m_miss_key   <= mk4_q;
    m_miss_seq   <= ms4_q;
    m_miss_first <= 8'(f4_q);
    m_miss_cnt   <= g4_q - f4_q;
  end

  always_ff @(posedge clk) begin
    m_miss_valid <= mv4_q;
    if (rst) m_miss_valid <= 1'b0;
  end

  assign m_valid = s2_v_q;
  assign tbl_we  = s2_v_q && (d.acc_wr || d.acc_ctl);
  always_comb begin
    m_req     = lk2_q.r;
    m_req.key = KEYW'(key2_q);
  end
  assign m_dec   = d;
  assign m_pay   = p2_q;

endmodule

`default_nettype wire
