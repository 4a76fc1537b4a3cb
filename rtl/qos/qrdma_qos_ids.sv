// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_qos_ids: the QoS engine's three ID pools ([QoS-RDMA] §3.8, initializer §3.14):
// NUM_TIDS TIDs 0..NUM_TIDS-1 for TID-only transfers, the 64 1xFIDs 128..191 and the 16
// 4xFID groups (FIDs 192+4g..195+4g), each a qrdma_id_pool (free IDs handed out oldest
// first) followed by a two-entry register FIFO from which the IDs are taken, so that the
// taker knows a cycle ahead whether a second one follows. Contract: IDs are taken only
// once ready is high (a pool may offer IDs before the others are filled); m_*_id is valid
// with m_*_valid and taken at an edge with m_*_ready; m_*_more: an ID taken in this cycle
// leaves m_*_valid high in the next (a second one is ready). m_fid4_id is the group's
// first FID. A TID returns with tid_free_*; a completed transfer's FIDs return with
// fid_free_* (its class and first FID: TID-only and control are ignored); a returned ID is
// offered again at the earliest four cycles later. An ID must be returned only once, after
// it was taken.
`default_nettype none

module qrdma_qos_ids
  import qrdma_qos_pkg::*;
#(
  parameter int unsigned NUM_TIDS = 512  // TID-only pool size (TIDs 0..NUM_TIDS-1), 2..512
) (
  input  logic            clk,
  input  logic            rst,
  output logic            ready,           // every pool filled after reset
  // TID of the TID-only pool
  output logic            m_tid_valid,
  output logic            m_tid_more,
  input  logic            m_tid_ready,
  output logic [TIDW-1:0] m_tid_id,
  // 1xFID
  output logic            m_fid1_valid,
  output logic            m_fid1_more,
  input  logic            m_fid1_ready,
  output logic [FIDW-1:0] m_fid1_id,
  // 4xFID group: its first FID (192 + 4 g)
  output logic            m_fid4_valid,
  output logic            m_fid4_more,
  input  logic            m_fid4_ready,
  output logic [FIDW-1:0] m_fid4_id,
  // a TID-only TID back
  input  logic            tid_free_valid,
  input  logic [TIDW-1:0] tid_free_id,
  // the FID(s) of a completed transfer back
  input  logic            fid_free_valid,
  input  cls_e            fid_free_cls,
  input  logic [FIDW-1:0] fid_free_fid
);

`ifndef SYNTHESIS
  initial begin
    if (NUM_TIDS < 2 || NUM_TIDS > 512)
      $fatal(1, "qrdma_qos_ids: NUM_TIDS must be in 2..512 (TIDs 512.. belong to FIDs)");
    if (FID4_FIRST % 64 != 0 || FID4_FIRST + 4 * FID4_NUM > 256)
      $fatal(1, "qrdma_qos_ids: the 4xFID groups must start at a multiple of 64");
  end
`endif

  logic            tid_rdy, fid1_rdy, fid4_rdy;
  logic [3:0]      fid4_grp, fid4_free_grp;
  // each pool's offer, into its two-entry FIFO
  logic            tid_pv, tid_pr, fid1_pv, fid1_pr, fid4_pv, fid4_pr;
  logic [TIDW-1:0] tid_pid;
  logic [FIDW-1:0] fid1_pid;
  logic [3:0]      fid4_pid;
  logic [1:0]      tid_cnt, fid1_cnt, fid4_cnt;

  qrdma_id_pool #(.NUM_IDS(NUM_TIDS), .FIRST_ID(0), .ID_W(TIDW)) u_tid_pool (
    .clk, .rst, .ready(tid_rdy),
    .m_valid(tid_pv), .m_ready(tid_pr), .m_id(tid_pid),
    .free_valid(tid_free_valid), .free_id(tid_free_id)
  );
  qrdma_id_pool #(.NUM_IDS(FID1_NUM), .FIRST_ID(FID1_FIRST), .ID_W(FIDW)) u_fid1_pool (
    .clk, .rst, .ready(fid1_rdy),
    .m_valid(fid1_pv), .m_ready(fid1_pr), .m_id(fid1_pid),
    .free_valid(fid_free_valid && fid_free_cls == CLS_FID1), .free_id(fid_free_fid)
  );
  qrdma_id_pool #(.NUM_IDS(FID4_NUM), .FIRST_ID(0), .ID_W(4)) u_fid4_pool (
    .clk, .rst, .ready(fid4_rdy),
    .m_valid(fid4_pv), .m_ready(fid4_pr), .m_id(fid4_pid),
    .free_valid(fid_free_valid && fid_free_cls == CLS_FID4), .free_id(fid4_free_grp)
  );

  // The two-entry FIFOs: filled from the pools whenever they have room, so that under a
  // take per cycle each holds two IDs; more = a second ID is there, or the pool refills
  // the one taken in the same cycle.
  /* verilator lint_off PINCONNECTEMPTY */  // almost_full: the count is used
  qrdma_sync_fifo #(.WIDTH(TIDW), .DEPTH(2)) u_tid_buf (
    .clk, .rst,
    .s_valid(tid_pv), .s_ready(tid_pr), .s_data(tid_pid),
    .m_valid(m_tid_valid), .m_ready(m_tid_ready), .m_data(m_tid_id),
    .count(tid_cnt), .almost_full()
  );
  qrdma_sync_fifo #(.WIDTH(FIDW), .DEPTH(2)) u_fid1_buf (
    .clk, .rst,
    .s_valid(fid1_pv), .s_ready(fid1_pr), .s_data(fid1_pid),
    .m_valid(m_fid1_valid), .m_ready(m_fid1_ready), .m_data(m_fid1_id),
    .count(fid1_cnt), .almost_full()
  );
  qrdma_sync_fifo #(.WIDTH(4), .DEPTH(2)) u_fid4_buf (
    .clk, .rst,
    .s_valid(fid4_pv), .s_ready(fid4_pr), .s_data(fid4_pid),
    .m_valid(m_fid4_valid), .m_ready(m_fid4_ready), .m_data(fid4_grp),
    .count(fid4_cnt), .almost_full()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  assign m_tid_more  = tid_cnt[1] || (tid_cnt[0] && tid_pv);
  assign m_fid1_more = fid1_cnt[1] || (fid1_cnt[0] && fid1_pv);
  assign m_fid4_more = fid4_cnt[1] || (fid4_cnt[0] && fid4_pv);

  // FID4_FIRST is a multiple of 64: the group's first FID is a concatenation
  assign m_fid4_id     = FIDW'(FID4_FIRST) | {2'b00, fid4_grp, 2'b00};
  assign fid4_free_grp = fid_free_fid[5:2];
  assign ready         = tid_rdy && fid1_rdy && fid4_rdy;

endmodule

`default_nettype wire
