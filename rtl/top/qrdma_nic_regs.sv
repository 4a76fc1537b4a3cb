// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_nic_regs: the NIC's registers (regs/qrdma_regs.rdl, addrmap qrdma_nic_csr;
// docs/registers.md), reached through the QoS engine's host port on its external register
// port at offsets NIC_REG_FIRST.. from REG_BASE. The register block itself is generated
// (rtl/generated/qrdma_nic_csr.sv, peakrdl-regblock with the passthrough CPU interface);
// this module connects it to the external register port and to the NIC's signals.
//
// Contract (the host port's external register port, docs/qos.md): ext_wr_en is a write
// request; ext_wr_err answers it in the same cycle (no register there, or a read-only
// one: the write gets SLVERR and changes nothing), otherwise the write takes effect at
// the clock edge. The host port loads no read beat of the register window in a cycle
// with ext_wr_en, so reads use the block's CPU interface in every other cycle:
// ext_rd_data / ext_rd_err are combinational from ext_rd_addr (ext_rd_err: no register
// there). Reads have no side effect. Writing NQ_SIZE sets NQ_TAIL to 0 at the same edge
// and pulses cfg_nq_reset in the next cycle (the receive unit restarts NQ_HEAD).
`default_nettype none

module qrdma_nic_regs
  import qrdma_fmt_pkg::*;
  import qrdma_nic_csr_pkg::*;
(
  input  logic        clk,
  input  logic        rst,
  input  logic [15:0] node_id,
  // external register port of the host port (offset from REG_BASE)
  input  logic        ext_wr_en,
  input  logic [11:0] ext_wr_addr,
  input  logic [63:0] ext_wr_data,
  output logic        ext_wr_err,
  input  logic [11:0] ext_rd_addr,
  output logic [63:0] ext_rd_data,
  output logic        ext_rd_err,
  // notification ring
  output logic [63:0] cfg_nq_base,
  output logic [31:0] cfg_nq_size,
  output logic [31:0] cfg_nq_tail,
  output logic        cfg_nq_reset,
  input  logic [31:0] nq_head,
  // reliability (docs/reliability.md)
  output logic [31:0] cfg_retx_timeout,
  output logic [63:0] cfg_node_mask,
  output logic [7:0]  cfg_retry_limit,
  output logic [3:0]  cfg_backoff,
  // memory protection (docs/protection.md): WIN_CTRL written -> win_we, a pulse, with the
  // window's fields, in the second cycle after the write
  output logic        cfg_prot_open,
  output logic        win_we,
  output logic [15:0] win_index,
  output logic [63:0] win_base,
  output logic [63:0] win_len,
  output logic [RKEY_TAG_W-1:0] win_tag,
  output logic [3:0]  win_pd,
  output logic        win_wr,
  output logic        win_rd,
  output logic        win_lwr,
  output logic        win_valid,
  output logic [1:0]  cfg_resend,
  output logic [7:0]  cfg_epoch,
  output logic [15:0] cfg_esc_timeout,
  output logic [31:0] cfg_reg_thresh,
  // benchmark mode (docs/fabric.md "Benchmark mode"): BENCH.en; BENCH.stamps reads bench_stamps
  output logic        cfg_bench,
  input  logic        bench_stamps,
  input  logic        tx_retx,
  input  logic        tx_miss_retx,
  input  logic        tx_timeout,
  input  logic        tx_unreach,
  // statistics (pulses; byte counts as values)
  input  logic        tx_data_pkt,
  input  logic        tx_ctrl_pkt,
  input  logic [12:0] tx_bytes,
  input  logic        rx_data_pkt,
  input  logic        rx_ctrl_pkt,
  input  logic [12:0] rx_bytes,
  input  logic        rx_crc_drop,
  input  logic        rx_dup_drop,
  input  logic        rx_stale_drop,
  input  logic        rx_bad_drop,
  input  logic        rx_prot_drop,
  input  logic        rx_read_req,
  input  logic        rx_read_drop,
  input  logic        rx_notif,
  input  logic        tx_mem_err,
  input  logic        tx_slot_stall,
  input  logic        tx_link_stall,
  input  logic        rx_mem_err,
  input  logic        rx_nack,
  input  logic        rx_notif_off,
  input  logic        rx_nq_wait,
  input  logic        rx_link_stall,
  input  logic        rx_evt_stall,
  input  logic        rx_redo,
  input  logic        rx_redo_drop,
  input  logic        rx_miss,
  input  logic        rx_miss_drop,
  input  logic        rx_reg,
  input  logic        rx_early,
  input  logic [1:0]  rx_reg_drop,
  // occupancy of the receive unit's response and notification queues (for the peaks)
  input  logic [15:0] rx_rsp_occ,
  input  logic [15:0] rx_ntf_occ
);

  localparam int unsigned AW = QRDMA_NIC_CSR_MIN_ADDR_WIDTH;  // block offset bits

`ifndef SYNTHESIS
  initial begin
    if (QRDMA_NIC_CSR_DATA_WIDTH != 64) $fatal(1, "qrdma_nic_regs: registers must be 64-bit");
    if (NIC_REG_FIRST % (1 << AW) != 0 || NIC_REG_FIRST + (1 << AW) > 4096)
      $fatal(1, "qrdma_nic_regs: the block must sit aligned inside the 4 KiB window");
  end
`endif

  qrdma_nic_csr__in_t  hw_in;
  qrdma_nic_csr__out_t hw_out;

  // ------------------------------------------------------------------ CPU interface
  // One access per cycle: the write when there is one, else the read.
  logic [11:0] addr;
  logic        in_blk, rd_ack, rd_err, wr_ack, wr_err;
  logic [63:0] rd_data;

  assign addr   = ext_wr_en ? ext_wr_addr : ext_rd_addr;
  assign in_blk = (addr[11:AW] == (12-AW)'(NIC_REG_FIRST >> AW));

  /* verilator lint_off PINCONNECTEMPTY */  // stalls: the block never stalls (no retiming)
  qrdma_nic_csr u_csr (
    .clk, .rst,
    .s_cpuif_req          (in_blk),
    .s_cpuif_req_is_wr    (ext_wr_en),
    .s_cpuif_addr         (addr[AW-1:0]),
    .s_cpuif_wr_data      (ext_wr_data),
    .s_cpuif_wr_biten     ({64{1'b1}}),
    .s_cpuif_req_stall_wr (),
    .s_cpuif_req_stall_rd (),
    .s_cpuif_rd_ack       (rd_ack),
    .s_cpuif_rd_err       (rd_err),
    .s_cpuif_rd_data      (rd_data),
    .s_cpuif_wr_ack       (wr_ack),
    .s_cpuif_wr_err       (wr_err),
    .hwif_in              (hw_in),
    .hwif_out             (hw_out)
  );
  /* verilator lint_on PINCONNECTEMPTY */

  assign ext_wr_err  = !(wr_ack && !wr_err);
  assign ext_rd_err  = !(rd_ack && !rd_err);
  assign ext_rd_data = rd_data;

  // ------------------------------------------------------------------ notification ring
  logic nq_reset_q;

  always_ff @(posedge clk) begin
    nq_reset_q <= hw_out.NQ_SIZE.size.swmod;
    if (rst) nq_reset_q <= 1'b0;
  end

  assign cfg_nq_base  = {hw_out.NQ_BASE.addr.value, 6'b0};
  assign cfg_nq_size  = hw_out.NQ_SIZE.size.value;
  assign cfg_nq_tail  = hw_out.NQ_TAIL.tail.value;
  assign cfg_nq_reset = nq_reset_q;

  assign cfg_retx_timeout = hw_out.RETX_TIMEOUT.cycles.value;
  assign cfg_node_mask    = hw_out.NODE_MASK.nodes.value;
  assign cfg_retry_limit  = hw_out.RETRY_LIMIT.retries.value;
  assign cfg_backoff      = hw_out.RETRY_LIMIT.backoff.value;
  assign cfg_resend       = hw_out.RETRY_LIMIT.resend.value;
  assign cfg_epoch        = hw_out.EPOCH.epoch.value;
  assign cfg_esc_timeout  = hw_out.REG_CTRL.esc_timeout.value;
  assign cfg_reg_thresh   = hw_out.REG_CTRL.thresh.value;
  assign cfg_bench        = hw_out.BENCH.en.value;

  // ------------------------------------------------------------------ windows
  logic win_we_q;

  always_ff @(posedge clk) begin
    win_we_q <= hw_out.WIN_CTRL.index.swmod;
    if (rst) win_we_q <= 1'b0;
  end

  assign cfg_prot_open = hw_out.PROT_CTRL.open.value;
  assign win_we        = win_we_q;
  assign win_index     = hw_out.WIN_CTRL.index.value;
  assign win_base      = hw_out.WIN_BASE.addr.value;
  assign win_len       = hw_out.WIN_LEN.len.value;
  assign win_tag       = hw_out.WIN_CTRL.tag.value;
  assign win_pd        = hw_out.WIN_CTRL.pd.value;
  assign win_wr        = hw_out.WIN_CTRL.rwr.value;
  assign win_rd        = hw_out.WIN_CTRL.rrd.value;
  assign win_lwr       = hw_out.WIN_CTRL.lwr.value;
  assign win_valid     = hw_out.WIN_CTRL.valid.value;

  // ------------------------------------------------------------------ hardware inputs
  always_comb begin
    hw_in.NODE_ID.id.next          = node_id;
    hw_in.BENCH.stamps.next        = bench_stamps;
    hw_in.NQ_HEAD.head.next        = nq_head;
    hw_in.NQ_TAIL.tail.next        = '0;   // writing NQ_SIZE restarts the ring
    hw_in.NQ_TAIL.tail.we          = hw_out.NQ_SIZE.size.swmod;
    hw_in.TX_DATA_PKTS.cnt.incr    = tx_data_pkt;
    hw_in.TX_CTRL_PKTS.cnt.incr    = tx_ctrl_pkt;
    hw_in.TX_BYTES.cnt.incr        = 1'b1;
    hw_in.TX_BYTES.cnt.incrvalue   = tx_bytes;
    hw_in.RX_DATA_PKTS.cnt.incr    = rx_data_pkt;
    hw_in.RX_CTRL_PKTS.cnt.incr    = rx_ctrl_pkt;
    hw_in.RX_BYTES.cnt.incr        = 1'b1;
    hw_in.RX_BYTES.cnt.incrvalue   = rx_bytes;
    hw_in.RX_CRC_DROP.cnt.incr     = rx_crc_drop;
    hw_in.RX_DUP_DROP.cnt.incr     = rx_dup_drop;
    hw_in.RX_STALE_DROP.cnt.incr   = rx_stale_drop;
    hw_in.RX_BAD_DROP.cnt.incr     = rx_bad_drop;
    hw_in.RX_PROT_DROP.cnt.incr    = rx_prot_drop;
    hw_in.RX_READ_REQS.cnt.incr    = rx_read_req;
    hw_in.RX_READ_DROP.cnt.incr    = rx_read_drop;
    hw_in.RX_NOTIFS.cnt.incr       = rx_notif;
    hw_in.TX_DATA_BYTES.cnt.incr   = tx_data_pkt;
    hw_in.TX_DATA_BYTES.cnt.incrvalue = tx_bytes;
    hw_in.TX_MEM_ERR.cnt.incr      = tx_mem_err;
    hw_in.TX_SLOT_STALL.cnt.incr   = tx_slot_stall;
    hw_in.TX_LINK_STALL.cnt.incr   = tx_link_stall;
    hw_in.RX_MEM_ERR.cnt.incr      = rx_mem_err;
    hw_in.RX_NACKS.cnt.incr        = rx_nack;
    hw_in.RX_NOTIF_OFF.cnt.incr    = rx_notif_off;
    hw_in.RX_NQ_WAIT.cnt.incr      = rx_nq_wait;
    hw_in.RX_LINK_STALL.cnt.incr   = rx_link_stall;
    hw_in.RX_EVT_STALL.cnt.incr    = rx_evt_stall;
    hw_in.TX_TIMEOUTS.cnt.incr     = tx_timeout;
    hw_in.TX_UNREACH.cnt.incr      = tx_unreach;
    hw_in.TX_RETX.cnt.incr         = tx_retx;
    hw_in.RX_REDO.cnt.incr         = rx_redo;
    hw_in.RX_REDO_DROP.cnt.incr    = rx_redo_drop;
    hw_in.RX_MISS.cnt.incr         = rx_miss;
    hw_in.RX_MISS_DROP.cnt.incr    = rx_miss_drop;
    hw_in.TX_MISS_RETX.cnt.incr    = tx_miss_retx;
    hw_in.RX_REGS.cnt.incr         = rx_reg;
    hw_in.RX_EARLY.cnt.incr        = rx_early;
    hw_in.RX_REG_DROP.cnt.incr     = rx_reg_drop != '0;
    hw_in.RX_REG_DROP.cnt.incrvalue = rx_reg_drop;
    // high-water marks: take the occupancy when it passes the mark
    hw_in.RX_RSP_PEAK.peak.next    = rx_rsp_occ;
    hw_in.RX_RSP_PEAK.peak.we      = rx_rsp_occ > hw_out.RX_RSP_PEAK.peak.value;
    hw_in.RX_NTF_PEAK.peak.next    = rx_ntf_occ;
    hw_in.RX_NTF_PEAK.peak.we      = rx_ntf_occ > hw_out.RX_NTF_PEAK.peak.value;
  end

endmodule

`default_nettype wire
