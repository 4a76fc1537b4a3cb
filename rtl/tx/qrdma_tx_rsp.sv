// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_tx_rsp: the response path of the send unit (docs/nic.md "Send unit", "Deadlock
// freedom"). A response request of the receive unit (rsp_desc: ACK, NACK or MISS of a
// block, to its sender) becomes a one-beat packet: its net_hdr header beat (ptype NET_ACK,
// NET_NACK with reason, or NET_MISS with pkt_idx and miss_cnt; src_node = node_id). Responses take no descriptor slot and do
// not wait in the VOQs: the assembler takes this job ahead of the request class at the
// next packet boundary, so responses wait only for the link.
// Timing: a request taken in cycle t is offered (m_valid) from t+1; one per cycle.
`default_nettype none

module qrdma_tx_rsp
  import qrdma_fmt_pkg::*;
  import qrdma_tx_pkg::*;
(
  input  logic                  clk,
  input  logic                  rst,
  input  logic [15:0]           node_id,
  // response requests (receive unit)
  input  logic                  s_valid,
  output logic                  s_ready,
  input  logic [RSP_DESC_W-1:0] s_data,
  // the packet's header beat (assembler)
  output logic                  m_valid,
  input  logic                  m_ready,
  output logic [DATA_W-1:0]     m_hdr
);

  rsp_desc_t r;
  assign r       = rsp_desc_t'(s_data);
  assign s_ready = !m_valid || m_ready;

  always_ff @(posedge clk) begin
    if (s_ready) m_valid <= s_valid;
    if (rst)     m_valid <= 1'b0;
  end

  always_ff @(posedge clk) begin
    if (s_valid && s_ready) begin
      net_hdr_t h;
      h          = '0;
      h.ptype    = r.miss ? 4'(NET_MISS) : r.nack ? 4'(NET_NACK) : 4'(NET_ACK);
      h.dst_node = r.dst_node;
      h.src_node = node_id;
      h.tid      = r.tid;
      h.seq      = r.seq;
      h.reason   = r.nack ? r.reason : '0;
      h.pkt_idx  = r.miss ? 9'(r.pkt_idx) : '0;
      h.miss_cnt = r.miss ? r.miss_cnt : '0;
      m_hdr     <= DATA_W'(h);
    end
  end

endmodule

`default_nettype wire
