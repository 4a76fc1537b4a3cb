// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_host_rd: the read path of the host port (AXI4 AR/R; [QoS-RDMA] §3.4, §3.6): single
// and collective status reads (the storage resets what it returns), error-reason reads,
// the engine's registers (ID, PARAMS and the event counters, which live here: the
// register block qrdma_eng_csr, generated from regs/qrdma_regs.rdl) and the external
// register window. Rules and timing: docs/qos.md "Host port: precise rules and
// timing", "Host port modules"; address map: docs/formats.md; inside:
// docs/modules.md#qrdma_host_rd.
//
// Contract: AR -> AR FIFO (qrdma_burst_seq) -> one beat per cycle, decoded into a beat
// register (A), read into the answer register (B), then into the R output register (AR
// handshake in t -> rvalid in t+4 at the earliest; each stage moves when the next is
// empty or moving on).
// In the cycle a beat moves from A to B (the read is performed) it drives sr_rd_*,
// err_rd_en / err_rd_addr and ext_rd_addr (and reads the engine's registers) from A's
// registers and takes sr_rd_data and ext_rd_data / ext_rd_err combinationally: the
// storage answers with its state at the start of that cycle and applies the read reset at
// its end. err_rd_data is a registered read: the error reason at the start of the cycle
// of err_rd_en, from the next cycle until the cycle after the next err_rd_en. An event
// pulse (desc_ok, desc_err, eng_ev) in cycle t is in the counters that a beat moving into
// B in t+2 or later reads. ARREADY is low while store_ready is. No beat of the register
// window (REG_BASE .. + EXT_SPAN - 1) moves into B in a cycle with ext_wr_busy: the
// external register block then serves one access per cycle (qrdma_nic_regs).
`default_nettype none

module qrdma_host_rd
  import qrdma_fmt_pkg::*;
  import qrdma_host_pkg::*;
  import qrdma_eng_csr_pkg::*;
#(
  parameter int unsigned DATA_W          = 256,   // AXI4 data width: 128 or 256
  parameter int unsigned ID_W            = 4,     // AXI4 ID width
  parameter int unsigned BLOCK_SIZE      = 65536, // engine block size (PARAMS register)
  parameter int unsigned MAX_OUTSTANDING = 2,     // engine blocks in flight (PARAMS register)
  parameter int unsigned EXT_SPAN        = 4096,  // external register window: REG_BASE + NIC_REG_FIRST .. + EXT_SPAN - 1
  parameter logic [31:0] EXT_PARAMS      = '0,    // PARAMS register bits 63:32
  localparam int unsigned EXT_SH         = $clog2(EXT_SPAN)  // external window offset bits
) (
  input  logic                clk,            // clock
  input  logic                rst,            // synchronous reset, active high
  input  logic                store_ready,    // status and error-reason storage cleared after reset: AR taken only while high
  // AXI4 slave: read address
  input  logic [ID_W-1:0]     s_axi_arid,     // burst ID
  input  logic [ADDR_W-1:0]   s_axi_araddr,   // address of the first beat
  input  logic [7:0]          s_axi_arlen,    // beats - 1
  input  logic [2:0]          s_axi_arsize,   // log2 bytes per beat (only 3 is served)
  input  logic [1:0]          s_axi_arburst,  // burst type (only INCR is served)
  input  logic                s_axi_arvalid,  // AR valid
  output logic                s_axi_arready,  // AR ready
  // read data
  output logic [ID_W-1:0]     s_axi_rid,      // burst ID
  output logic [DATA_W-1:0]   s_axi_rdata,    // the 64-bit value on every 64-bit lane
  output logic [1:0]          s_axi_rresp,    // OKAY, or SLVERR (data 0)
  output logic                s_axi_rlast,    // last beat of the burst
  output logic                s_axi_rvalid,   // R valid
  input  logic                s_axi_rready,   // R ready
  // status read with reset (cycle of the load)
  output logic                sr_rd_valid,    // read row sr_rd_row and reset what it returns as DONE / ERROR
  output logic [PW+GW-1:0]    sr_rd_row,      // page * 4 + group
  output logic                sr_rd_single,   // 1: single status (reset only channel sr_rd_sel); 0: collective
  output logic [SW-1:0]       sr_rd_sel,      // channel within the row (single status)
  input  logic [STATUS_SINGLE_W-1:0] sr_rd_data,  // the row at the start of the cycle (2 bits per channel)
  // error reasons (cycle of the read; the answer from the next cycle on)
  output logic                err_rd_en,      // read err_rd_addr in this cycle
  output logic [PW+CW-1:0]    err_rd_addr,    // channel: page * 128 + c
  input  logic [3:0]          err_rd_data,    // ERR_* of its last ERROR, registered after err_rd_en
  // external register read (cycle of the load), offsets from REG_BASE
  output logic [EXT_SH-1:0]   ext_rd_addr,    // register offset
  input  logic [63:0]         ext_rd_data,    // comb. from ext_rd_addr
  input  logic                ext_rd_err,     // comb. from ext_rd_addr: unmapped (the read gets SLVERR)
  input  logic                ext_wr_busy,    // the write path requests an external register write (ext_wr_en) in this cycle
  // events to count, one pulse each
  input  logic                desc_ok,        // a descriptor started (CNT_DESC_OK)
  input  logic                desc_err,       // a beat refused or a bad descriptor (CNT_DESC_ERR)
  input  eng_ev_t             eng_ev          // engine events (CNT_BLOCKS .. CNT_DONE)
);

  localparam int unsigned AR_DEPTH = 2;                               // AR FIFO
  localparam int unsigned EAW      = QRDMA_ENG_CSR_MIN_ADDR_WIDTH;    // engine register offset bits

`ifndef SYNTHESIS
  initial begin
    if (DATA_W != 128 && DATA_W != 256)
      $fatal(1, "qrdma_host_rd: DATA_W must be 128 or 256");
    if (ID_W < 1) $fatal(1, "qrdma_host_rd: ID_W must be >= 1");
    if (QRDMA_ENG_CSR_DATA_WIDTH != 64 || QRDMA_ENG_CSR_MIN_ADDR_WIDTH > REG_SH)
      $fatal(1, "qrdma_host_rd: the engine's registers must be 64-bit, inside REG_BASE + 0 .. 127");
    if (BLOCK_SIZE < 1 || (BLOCK_SIZE & (BLOCK_SIZE - 1)) != 0)
      $fatal(1, "qrdma_host_rd: BLOCK_SIZE must be a power of 2");
    if (MAX_OUTSTANDING > 255) $fatal(1, "qrdma_host_rd: MAX_OUTSTANDING must fit 8 bits");
    if (!map_ok(EXT_SPAN))
      $fatal(1, "qrdma_host_rd: address regions must be aligned powers of 2");
  end
`endif

  // ------------------------------------------------------------------ AR
  typedef struct packed {
    logic [ID_W-1:0] id;
    logic [2:0]      size;
    logic [1:0]      burst;
  } ar_user_t;

  ar_user_t ar;
  logic     ar_s_ready;

  assign s_axi_arready = ar_s_ready && store_ready;

  // ------------------------------------------------------------------ beats
  // Issue: the beats of the sequencer's burst, one per cycle, decoded into the beat
  // register A when it is empty or moving on. Read: A -> B, the cycle of the storage reads (sr_rd_*,
  // err_rd_addr, ext_rd_addr and the engine's registers are driven from A's flops), their
  // answers registered in B. Load: B -> the R register.
  logic              a_go, b_go, r_go, r_last;
  logic [ADDR_W-1:0] r_cur;
  logic              rvalid_q, rlast_q;
  logic [1:0]        rresp_q;
  logic [ID_W-1:0]   rid_q;
  logic [63:0]       rval_q;

  // the beat register: what the read needs, decoded (kinds one-hot, 0 for a refused form)
  logic              a_valid_q, a_last_q;
  logic [ID_W-1:0]   a_id_q;
  logic [EXT_SH-1:0] a_off_q;      // offset in the register window (external and engine's)
  logic [PW+CW-1:0]  a_ech_q;      // error-reason channel: page * 128 + c
  logic              a_win_q;      // in the register window (waits while the window is written)
  logic              a_eng_q;      // in the engine's register block's span
  logic              a_coll_q, a_err_q, a_regs_q, a_ext_q, a_single_q;
  logic [PW+GW-1:0]  a_row_q;
  logic [SW-1:0]     a_sel_q;

  // the answer register: the beat's value in parts, each 0 unless it is the beat's kind
  logic              b_valid_q, b_last_q, b_ok_q, b_coll_q, b_err_q;
  logic [ID_W-1:0]   b_id_q;
  logic [63:0]       b_row_q, b_ext_q, b_eng_q;
  logic [ROW_CH-1:0] b_oh_q;       // single status: its channel in the row, one-hot

  assign b_go = a_valid_q && (!b_valid_q || r_go) && !(ext_wr_busy && a_win_q);
  assign r_go = b_valid_q && (!rvalid_q || s_axi_rready);

  // the AR FIFO and the beats of the burst at its head (8-byte steps: only 64-bit reads are served)
  /* verilator lint_off PINCONNECTEMPTY */  // size: the step is 8 bytes, ARSIZE rides in user
  qrdma_burst_seq #(.ADDR_W(ADDR_W), .USER_W($bits(ar_user_t)), .DEPTH(AR_DEPTH)) u_seq (
    .clk, .rst,
    .s_valid (s_axi_arvalid && store_ready),
    .s_ready (ar_s_ready),
    .s_addr  (s_axi_araddr),
    .s_len   (s_axi_arlen),
    .s_size  (3'd3),
    .s_user  ({s_axi_arid, s_axi_arsize, s_axi_arburst}),
    .load    (a_go),
    .addr    (r_cur),
    .last    (r_last),
    .size    (),
    .user    (ar),
    .valid   (a_valid_q),
    .take    (b_go)
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // the decode of an issued beat, evaluated only under a_go
  always_ff @(posedge clk) begin
    if (a_go) begin : a_load
      /* verilator lint_off UNUSEDSIGNAL */  // desc is not needed: a descriptor address is not readable (SLVERR)
      dec_t d;
      /* verilator lint_on UNUSEDSIGNAL */
      logic fmt_ok, single;
      d       = decode(r_cur[ADDR_W-1:3], EXT_SPAN);
      // 64-bit, INCR, 8-aligned: the only form served
      fmt_ok  = (ar.size == 3'd3) && (ar.burst == BURST_INCR) && (r_cur[2:0] == 3'd0);
      single  = fmt_ok && d.single;
      a_id_q     <= ar.id;
      a_last_q   <= r_last;
      a_off_q    <= r_cur[EXT_SH-1:0];
      a_ech_q    <= {r_cur[PAGE_SH +: PW], r_cur[3 +: CW]};
      a_win_q    <= (r_cur[ADDR_W-1:EXT_SH] == (ADDR_W-EXT_SH)'(REG_BASE >> EXT_SH));
      a_eng_q    <= (r_cur[ADDR_W-1:EAW] == (ADDR_W-EAW)'(REG_BASE >> EAW));
      a_single_q <= single;
      a_coll_q   <= fmt_ok && !d.single && d.coll;
      a_err_q    <= fmt_ok && !d.single && !d.coll && d.err;
      a_ext_q    <= fmt_ok && d.ext;
      a_regs_q   <= fmt_ok && d.regs;
      a_row_q    <= {r_cur[PAGE_SH +: PW], d.single ? r_cur[STAT_SH-1 -: GW] : r_cur[3 +: GW]};
      a_sel_q    <= r_cur[3 +: SW];
    end
  end

  // status reads: the only reads with a side effect (single or collective status)
  // a status read is never in the register window (the pages lie below REG_BASE): its
  // move into B is b_go without the window's wait, so the status store's read-reset
  // does not depend on the write path's external register write
  assign sr_rd_valid  = a_valid_q && (!b_valid_q || r_go) && (a_single_q || a_coll_q);
  assign sr_rd_row    = a_row_q;
  assign sr_rd_single = a_single_q;
  assign sr_rd_sel    = a_sel_q;   // channel in the row (single status)

  assign ext_rd_addr = a_off_q;
  assign err_rd_en   = b_go && a_err_q;
  assign err_rd_addr = a_ech_q;

  // ------------------------------------------------------------------ event counters
  typedef struct packed {
    eng_ev_t eng;
    logic    desc_err;
    logic    desc_ok;
  } cnt_ev_t;

  cnt_ev_t cnt_inc_q;

  // the events are registered first (a counter shows an event one cycle later): the
  // write path's decision then drives flops instead of the clock enables of wide counters
  always_ff @(posedge clk) begin
    if (rst) cnt_inc_q <= '0;
    else     cnt_inc_q <= '{eng: eng_ev, desc_err: desc_err, desc_ok: desc_ok};
  end

  // ------------------------------------------------------------------ engine registers
  // Read in the cycle a beat moves into B (the block's readback is combinational); a write
  // never reaches them (the write path refuses the window below NIC_REG_FIRST).
  qrdma_eng_csr__in_t eng_in;
  logic               eng_req, eng_ack, eng_err;
  logic [63:0]        eng_data;

  assign eng_req = b_go && a_eng_q;

  always_comb begin
    eng_in.ID.magic.next                = 32'(ID_MAGIC);
    eng_in.ID.version.next              = 16'(FORMAT_VERSION);
    eng_in.PARAMS.block_log2.next       = 8'($clog2(BLOCK_SIZE));
    eng_in.PARAMS.max_outstanding.next  = 8'(MAX_OUTSTANDING);
    eng_in.PARAMS.data_w.next           = 16'(DATA_W);
    // EXT_PARAMS: PARAMS bits 63:32, set by the NIC
    eng_in.PARAMS.max_payload_log2.next = EXT_PARAMS[PARAMS_REG_MAX_PAYLOAD_LOG2_LSB - 32 +: 8];
    eng_in.PARAMS.nodes_log2.next       = EXT_PARAMS[PARAMS_REG_NODES_LOG2_LSB - 32 +: 8];
    eng_in.PARAMS.prot_windows_log2.next = EXT_PARAMS[PARAMS_REG_PROT_WINDOWS_LOG2_LSB - 32 +: 8];
    eng_in.CNT_DESC_OK.cnt.incr         = cnt_inc_q.desc_ok;
    eng_in.CNT_DESC_ERR.cnt.incr        = cnt_inc_q.desc_err;
    eng_in.CNT_BLOCKS.cnt.incr          = cnt_inc_q.eng.block;
    eng_in.CNT_INLINE.cnt.incr          = cnt_inc_q.eng.inl;
    eng_in.CNT_CONTROL.cnt.incr         = cnt_inc_q.eng.control;
    eng_in.CNT_ACK.cnt.incr             = cnt_inc_q.eng.ack;
    eng_in.CNT_NACK.cnt.incr            = cnt_inc_q.eng.nack;
    eng_in.CNT_STALE.cnt.incr           = cnt_inc_q.eng.stale;
    eng_in.CNT_DONE.cnt.incr            = cnt_inc_q.eng.done;
  end

  /* verilator lint_off PINCONNECTEMPTY */  // stalls and write answers: reads only, no retiming
  qrdma_eng_csr u_csr (
    .clk, .rst,
    .s_cpuif_req          (eng_req),
    .s_cpuif_req_is_wr    (1'b0),
    .s_cpuif_addr         (a_off_q[EAW-1:0]),
    .s_cpuif_wr_data      ('0),
    .s_cpuif_wr_biten     ('0),
    .s_cpuif_req_stall_wr (),
    .s_cpuif_req_stall_rd (),
    .s_cpuif_rd_ack       (eng_ack),
    .s_cpuif_rd_err       (eng_err),
    .s_cpuif_rd_data      (eng_data),
    .s_cpuif_wr_ack       (),
    .s_cpuif_wr_err       (),
    .hwif_in              (eng_in)
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // ------------------------------------------------------------------ R register
  always_ff @(posedge clk) begin
    if (rst) begin
      rvalid_q <= 1'b0;
    end else if (r_go) begin
      rvalid_q <= 1'b1;
    end else if (s_axi_rready) begin
      rvalid_q <= 1'b0;
    end
  end

  // the answers, each under A's one-hot kind (all 0 for a refused form or address); the
  // status row is registered whole, and the R value is their OR, where the single
  // status's 2 bits are the OR of the row's channels under its one-hot channel: no logic
  // but a mask follows the storage's reads, no binary select follows the row
  logic        ext_ok, reg_ok;

  assign ext_ok = a_ext_q && !ext_rd_err;
  assign reg_ok = a_regs_q && eng_ack && !eng_err;   // the block answers in this cycle (eng_req)

  always_ff @(posedge clk) begin
    if (rst)       b_valid_q <= 1'b0;
    else if (b_go) b_valid_q <= 1'b1;
    else if (r_go) b_valid_q <= 1'b0;
  end

  always_ff @(posedge clk) begin
    if (b_go) begin
      b_id_q   <= a_id_q;
      b_last_q <= a_last_q;
      b_ok_q   <= a_single_q || a_coll_q || a_err_q || ext_ok || reg_ok;
      b_coll_q <= a_coll_q;
      b_oh_q   <= a_single_q ? (ROW_CH'(1) << a_sel_q) : '0;
      b_row_q  <= sr_rd_data & {64{a_coll_q || a_single_q}};
      b_err_q  <= a_err_q;   // the error reason: err_rd_data from the next cycle on
      b_ext_q  <= ext_rd_data & {64{ext_ok}};
      b_eng_q  <= eng_data & {64{reg_ok}};
    end
  end

  always_ff @(posedge clk) begin
    if (r_go) begin : r_load
      logic [1:0] st_one;
      st_one = '0;
      for (int j = 0; j < int'(ROW_CH); j++) st_one |= b_row_q[2*j +: 2] & {2{b_oh_q[j]}};
      rid_q   <= b_id_q;
      rresp_q <= b_ok_q ? RESP_OKAY : RESP_SLVERR;
      rlast_q <= b_last_q;
      rval_q  <= (b_row_q & {64{b_coll_q}}) | 64'(st_one) | 64'(err_rd_data & {4{b_err_q}})
               | b_ext_q | b_eng_q;
    end
  end

  assign s_axi_rvalid = rvalid_q;
  assign s_axi_rid    = rid_q;
  assign s_axi_rresp  = rresp_q;
  assign s_axi_rlast  = rlast_q;
  assign s_axi_rdata  = {(DATA_W / 64){rval_q}};

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst && a_valid_q)
      assert (!(a_win_q && (a_single_q || a_coll_q)))
        else $error("qrdma_host_rd: a status read decoded inside the register window");
  end
`endif

endmodule

`default_nettype wire
