// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_qos_core: the scheduling and transaction part of the QoS engine ([QoS-RDMA] §3.2,
// §3.5, §3.7-§3.14; docs/qos.md). Wiring only: the transfer segmenter with its scheduling
// queues (qrdma_qos_seg), the message handler with the pending transactions table
// (qrdma_qos_handler), the metadata table with its shared slot (qrdma_qos_meta) and the
// TID / FID pools (qrdma_qos_ids). ready rises once the pools are filled and the pending
// valid bits cleared after reset; no transfer or ACK is taken before.
`default_nettype none

module qrdma_qos_core
  import qrdma_fmt_pkg::*;
  import qrdma_qos_pkg::*;
#(
  parameter int unsigned BLOCK_SIZE      = 65536,  // bytes per block, power of 2, 8K..64K
  parameter int unsigned MAX_OUTSTANDING = 2,      // blocks of a transfer in flight (1..4)
  parameter int unsigned CM_MIN_BYTES    = 16384,  // memory transfers >= this: FID classes
  parameter int unsigned MP_MIN_BYTES    = 262144, // multipath transfers >= this: 4xFID
  parameter int unsigned NUM_TIDS        = 512,    // TID-only pool size (TIDs 0..NUM_TIDS-1)
  parameter int unsigned OUT_FIFO_DEPTH  = 16,     // block / packet output FIFOs
  parameter int unsigned ACT_FIFO_DEPTH  = 8,      // message-handler actions in waiting
  parameter int unsigned REG_MAX_BLOCKS  = 255     // largest transfer registered at its receiver
) (
  input  logic                      clk,
  input  logic                      rst,
  output logic                      ready,        // ID pools filled, tables cleared
  input  logic [31:0]               cfg_reg_thresh, // registration size threshold (0: off)
  // new transfers from the host port
  input  logic                      new_valid,
  output logic                      new_ready,
  input  logic [XW-1:0]             new_xfer,
  input  logic [SZW-1:0]            new_size,
  input  logic [DLW-1:0]            new_dst_lo,   // dst_addr's low bits
  input  logic                      new_inline,
  input  logic                      new_multipath,
  input  logic [3:0]                new_prio,
  // transfer table read port (row = xfer >> 1, read in every cycle, data two cycles
  // later: output register)
  output logic [9:0]                tt_rd_row,
  input  logic [511:0]              tt_rd_data,
  input  logic [1:0][STAMP_W:0]     tt_rd_stamp,   // the halves' benchmark stamps (qrdma_qos_engine)
  // block descriptors to the send unit
  output logic                      m_blk_valid,
  input  logic                      m_blk_ready,
  output logic [BLOCK_DESC_W-1:0]   m_blk_data,
  // inline and control packets to the send unit
  output logic                      m_pkt_valid,
  input  logic                      m_pkt_ready,
  output logic [PKT_DESC_W-1:0]     m_pkt_data,
  // acknowledgements from the receive unit
  input  logic                      s_ack_valid,
  output logic                      s_ack_ready,
  input  logic [ACK_DESC_W-1:0]     s_ack_data,
  // channel results to the status registers (registered: a cycle after the completion)
  output logic                      st_valid,
  output logic [XW-1:0]             st_ch,        // page * 128 + c (write and read channels)
  output logic                      st_err,
  output logic [3:0]                st_reason,    // ERR_* of the transfer's first NACK (st_err)
  // event pulses for the host port's counters
  output qos_ev_t                   ev
);

  logic            ids_ready, hdl_init_done;
  // segmenter <-> ID pools
  logic            tid_valid, tid_take, fid1_valid, fid1_take, fid4_valid, fid4_take;
  logic            tid_more, fid1_more, fid4_more;
  logic [TIDW-1:0] tid_id;
  logic [FIDW-1:0] fid1_id, fid4_fid;
  logic            tid_free, tid_ret;
  logic [TIDW-1:0] tid_free_id, tid_ret_id;
  // metadata pipeline
  logic            seg_meta_rd, seg_meta_deq, seg_meta_wr;
  logic [XW-1:0]   seg_meta_rd_addr;
  meta_t           seg_meta_wdata;
  logic            hdl_meta_want, hdl_meta_refused, hdl_meta_busy, hdl_meta_rd, hdl_meta_wr;
  logic [XW-1:0]   hdl_meta_rd_addr;
  meta_t           hdl_meta_wdata;
  meta_t           meta_rdata, meta_fwd;
  // segmenter -> handler: pending entries; handler -> segmenter: actions
  logic            pend_wr_en;
  logic [TIDW-1:0] pend_wr_tid;
  pend_t           pend_wr_data;
  logic            act_valid, act_ready;
  act_t            act_data;
  // completions
  logic            cmpl_valid, cmpl_err;
  logic [3:0]      cmpl_reason;
  logic [XW-1:0]   cmpl_xfer;
  cls_e            cmpl_cls;
  logic [FIDW-1:0] cmpl_fid;

  assign ready = hdl_init_done && ids_ready;

  qrdma_qos_ids #(.NUM_TIDS(NUM_TIDS)) u_ids (
    .clk, .rst, .ready(ids_ready),
    .m_tid_valid(tid_valid), .m_tid_more(tid_more), .m_tid_ready(tid_take), .m_tid_id(tid_id),
    .m_fid1_valid(fid1_valid), .m_fid1_more(fid1_more), .m_fid1_ready(fid1_take),
    .m_fid1_id(fid1_id),
    .m_fid4_valid(fid4_valid), .m_fid4_more(fid4_more), .m_fid4_ready(fid4_take),
    .m_fid4_id(fid4_fid),
    .tid_free_valid(tid_free), .tid_free_id(tid_free_id),
    .fid_free_valid(cmpl_valid), .fid_free_cls(cmpl_cls), .fid_free_fid(cmpl_fid)
  );

  qrdma_qos_seg #(
    .BLOCK_SIZE      (BLOCK_SIZE),
    .MAX_OUTSTANDING (MAX_OUTSTANDING),
    .CM_MIN_BYTES    (CM_MIN_BYTES),
    .MP_MIN_BYTES    (MP_MIN_BYTES),
    .OUT_FIFO_DEPTH  (OUT_FIFO_DEPTH),
    .REG_MAX_BLOCKS  (REG_MAX_BLOCKS)
  ) u_seg (
    .clk, .rst, .en(ready), .cfg_reg_thresh,
    .new_valid, .new_ready, .new_xfer, .new_size, .new_dst_lo, .new_inline, .new_multipath, .new_prio,
    .tt_rd_row, .tt_rd_data, .tt_rd_stamp,
    .s_tid_valid(tid_valid), .s_tid_more(tid_more), .s_tid_ready(tid_take), .s_tid_id(tid_id),
    .s_fid1_valid(fid1_valid), .s_fid1_more(fid1_more), .s_fid1_ready(fid1_take),
    .s_fid1_id(fid1_id),
    .s_fid4_valid(fid4_valid), .s_fid4_more(fid4_more), .s_fid4_ready(fid4_take),
    .s_fid4_id(fid4_fid),
    .meta_rd_en(seg_meta_rd), .meta_rd_addr(seg_meta_rd_addr), .meta_deq(seg_meta_deq),
    .hdl_want(hdl_meta_want), .hdl_refused(hdl_meta_refused),
    .meta_rd_data(meta_rdata), .meta_fwd_data(meta_fwd),
    .meta_wr_en(seg_meta_wr), .meta_wr_data(seg_meta_wdata),
    .tid_ret_valid(tid_ret), .tid_ret_id,
    .pend_wr_en, .pend_wr_tid, .pend_wr_data,
    .s_act_valid(act_valid), .s_act_ready(act_ready), .s_act_data(act_data),
    .m_blk_valid, .m_blk_ready, .m_blk_data,
    .m_pkt_valid, .m_pkt_ready, .m_pkt_data,
    .cmpl_valid, .cmpl_xfer, .cmpl_err, .cmpl_reason, .cmpl_cls, .cmpl_fid,
    .ev_block(ev.block), .ev_inline(ev.inl), .ev_control(ev.control)
  );

  qrdma_qos_handler #(
    .MAX_OUTSTANDING (MAX_OUTSTANDING),
    .ACT_FIFO_DEPTH  (ACT_FIFO_DEPTH)
  ) u_handler (
    .clk, .rst, .en(ready), .init_done(hdl_init_done),
    .pend_wr_en, .pend_wr_tid, .pend_wr_data,
    .s_ack_valid, .s_ack_ready, .s_ack_data,
    .meta_want(hdl_meta_want), .meta_refused(hdl_meta_refused),
    .meta_allow(!seg_meta_deq), .meta_busy(hdl_meta_busy),
    .meta_rd(hdl_meta_rd), .meta_rd_addr(hdl_meta_rd_addr), .meta_rd_data(meta_rdata),
    .meta_wr_en(hdl_meta_wr), .meta_wr_data(hdl_meta_wdata),
    .tid_ret_valid(tid_ret), .tid_ret_id,
    .tid_free_valid(tid_free), .tid_free_id(tid_free_id),
    .m_act_valid(act_valid), .m_act_ready(act_ready), .m_act_data(act_data),
    .ev_ack(ev.ack), .ev_nack(ev.nack), .ev_stale(ev.stale)
  );

  // the handler's address while it waits for the slot (no cut-through then) and no
  // dequeued transfer takes it
  qrdma_qos_meta u_meta (
    .clk, .rst,
    .seg_rd(seg_meta_rd), .seg_rd_addr(seg_meta_rd_addr),
    .hdl_rd(hdl_meta_rd), .hdl_sel(hdl_meta_want && !seg_meta_deq),
    .hdl_rd_addr(hdl_meta_rd_addr), .hdl_busy(hdl_meta_busy),
    .rd_data(meta_rdata), .fwd_data(meta_fwd),
    .seg_wr_en(seg_meta_wr), .seg_wr_data(seg_meta_wdata),
    .hdl_wr_en(hdl_meta_wr), .hdl_wr_data(hdl_meta_wdata)
  );

  // The completion leaves the core from registers (a cycle after the segmenter's or
  // the handler's completion): the host port's status and error-reason stores sit across
  // the placement from the handler's action FIFO, whose head the completion can be.
  always_ff @(posedge clk) begin
    st_ch     <= cmpl_xfer;   // page * 128 + c
    st_err    <= cmpl_err;
    st_reason <= cmpl_reason;
    st_valid  <= cmpl_valid && !rst;
  end

  assign ev.done = st_valid;

endmodule

`default_nettype wire
