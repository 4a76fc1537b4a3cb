// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_bench_pkg: benchmark mode ([FPGA-NI] §4, docs/fabric.md "Benchmark mode"): which
// header beats carry stamps, and the view of a header beat that its CRC covers (the
// stamps left out, so that switches and the receiving NIC may write theirs).
`default_nettype none

package qrdma_bench_pkg;
  import qrdma_fmt_pkg::*;

  // The header bits of the stamps (STAMP_LSB .. 511).
  localparam logic [511:0] STAMP_MASK = {{(512 - STAMP_LSB){1'b1}}, {STAMP_LSB{1'b0}}};

  // The header beat h is a stamped packet's: an INLINE or CONTROL with `stamped` set.
  function automatic logic is_stamped(input logic [511:0] h);
    logic [NET_HDR_PTYPE_W-1:0] t;
    t = h[NET_HDR_PTYPE_LSB +: NET_HDR_PTYPE_W];
    return h[NET_HDR_STAMPED_LSB]
           && (t == NET_HDR_PTYPE_W'(NET_INLINE) || t == NET_HDR_PTYPE_W'(NET_CONTROL));
  endfunction

  // The header beat as its CRC takes it: bits STAMP_LSB..511 zero when it is stamped.
  function automatic logic [511:0] crc_view(input logic [511:0] h);
    return is_stamped(h) ? h & ~STAMP_MASK : h;
  endfunction

endpackage

`default_nettype wire
