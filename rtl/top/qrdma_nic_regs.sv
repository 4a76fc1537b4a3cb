// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_nic_regs: the NIC's registers (docs/formats.md, offsets NIC_REG_FIRST.. from
// REG_BASE), reached through the QoS engine's host port on its external register port:
// NODE_ID, the notification ring (NQ_BASE, NQ_SIZE, NQ_HEAD, NQ_TAIL), the send / receive
// statistics counters (TX_DATA_PKTS .. RX_EVT_STALL, consecutive) and the high-water
// marks of the receive unit's response and notification queues.
// ext_rd_data / ext_rd_err are combinational from ext_rd_addr (the host port registers
// them on R), ext_wr_err from ext_wr_addr; a write (ext_wr_en) takes effect at the clock
// edge. ext_rd_err: no register at the address; ext_wr_err: no writable register there
// (the host port answers SLVERR and does not raise ext_wr_en).
// Writing NQ_SIZE restarts the ring: NQ_HEAD and NQ_TAIL go to 0 (cfg_nq_reset pulses).
`default_nettype none

module qrdma_nic_regs
  import qrdma_fmt_pkg::*;
#(
  parameter int unsigned CNT_W = 48  // bits of the statistics counters (read as 64)
) (
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
  // occupancy of the receive unit's response and notification queues (for the peaks)
  input  logic [15:0] rx_rsp_occ,
  input  logic [15:0] rx_ntf_occ
);

  localparam int unsigned NCNT = 21;  // TX_DATA_PKTS .. RX_EVT_STALL, consecutive registers
  localparam logic [11:0] CNT_FIRST = 12'(REG_TX_DATA_PKTS);
  localparam logic [11:0] CNT_LAST  = 12'(REG_RX_EVT_STALL);

`ifndef SYNTHESIS
  initial begin
    if (REG_RX_EVT_STALL - REG_TX_DATA_PKTS != 8 * (NCNT - 1))
      $fatal(1, "qrdma_nic_regs: counter registers must be consecutive (tools/formats.py)");
  end
`endif

  logic [63:0] nq_base_q;
  logic [31:0] nq_size_q, nq_tail_q;
  logic        nq_reset_q;

  always_ff @(posedge clk) begin
    if (rst) begin
      nq_base_q  <= '0;
      nq_size_q  <= '0;
      nq_tail_q  <= '0;
      nq_reset_q <= 1'b0;
    end else begin
      nq_reset_q <= 1'b0;
      if (ext_wr_en) begin
        unique case (ext_wr_addr)
          12'(REG_NQ_BASE): nq_base_q <= {ext_wr_data[63:6], 6'b0};
          12'(REG_NQ_SIZE): begin
            nq_size_q  <= ext_wr_data[31:0];
            nq_tail_q  <= '0;
            nq_reset_q <= 1'b1;
          end
          12'(REG_NQ_TAIL): nq_tail_q <= ext_wr_data[31:0];
          default: ;
        endcase
      end
    end
  end

  assign ext_wr_err = !(ext_wr_addr == 12'(REG_NQ_BASE) || ext_wr_addr == 12'(REG_NQ_SIZE)
                       || ext_wr_addr == 12'(REG_NQ_TAIL));

  assign cfg_nq_base  = nq_base_q;
  assign cfg_nq_size  = nq_size_q;
  assign cfg_nq_tail  = nq_tail_q;
  assign cfg_nq_reset = nq_reset_q;

  // One bank: increment i of the counter at CNT_FIRST + 8 i (payload byte counts as
  // values, everything else as pulses).
  logic [NCNT-1:0][12:0] inc;
  logic [4:0]            cnt_idx;
  logic [CNT_W-1:0]      cnt_val;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [11:0]           cnt_off;  // only the counter index bits [7:3] select
  /* verilator lint_on UNUSEDSIGNAL */

  assign inc = {13'(rx_evt_stall), 13'(rx_link_stall), 13'(rx_nq_wait), 13'(rx_notif_off),
                13'(rx_nack), 13'(rx_mem_err), 13'(tx_link_stall), 13'(tx_slot_stall),
                13'(tx_mem_err), tx_data_pkt ? tx_bytes : 13'd0,
                13'(rx_notif), 13'(rx_bad_drop), 13'(rx_stale_drop), 13'(rx_dup_drop),
                13'(rx_crc_drop), rx_bytes, 13'(rx_ctrl_pkt), 13'(rx_data_pkt),
                tx_bytes, 13'(tx_ctrl_pkt), 13'(tx_data_pkt)};
  assign cnt_off = ext_rd_addr - CNT_FIRST;
  assign cnt_idx = cnt_off[7:3];

  qrdma_counters #(.N(NCNT), .CNT_W(CNT_W), .INC_W(13)) u_cnt (
    .clk, .rst, .inc, .rd_idx(cnt_idx), .rd_data(cnt_val)
  );

  // high-water marks
  logic [15:0] rsp_peak_q, ntf_peak_q;
  always_ff @(posedge clk) begin
    if (rx_rsp_occ > rsp_peak_q) rsp_peak_q <= rx_rsp_occ;
    if (rx_ntf_occ > ntf_peak_q) ntf_peak_q <= rx_ntf_occ;
    if (rst) begin
      rsp_peak_q <= '0;
      ntf_peak_q <= '0;
    end
  end

  always_comb begin
    ext_rd_data = '0;
    ext_rd_err  = 1'b0;
    if (ext_rd_addr >= CNT_FIRST && ext_rd_addr <= CNT_LAST && ext_rd_addr[2:0] == 3'b0) begin
      ext_rd_data = 64'(cnt_val);
    end else begin
      unique case (ext_rd_addr)
        12'(REG_NODE_ID): ext_rd_data = 64'(node_id);
        12'(REG_NQ_BASE): ext_rd_data = nq_base_q;
        12'(REG_NQ_SIZE): ext_rd_data = 64'(nq_size_q);
        12'(REG_NQ_HEAD): ext_rd_data = 64'(nq_head);
        12'(REG_NQ_TAIL): ext_rd_data = 64'(nq_tail_q);
        12'(REG_RX_RSP_PEAK): ext_rd_data = 64'(rsp_peak_q);
        12'(REG_RX_NTF_PEAK): ext_rd_data = 64'(ntf_peak_q);
        default:          ext_rd_err  = 1'b1;
      endcase
    end
  end

endmodule

`default_nettype wire
