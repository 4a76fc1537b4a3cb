// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_pkg: what every area of qrdma shares. Functions used at elaboration time by the
// common blocks (clog2 that is never zero, so that a 1-deep structure still has a 1-bit
// index). Formats of descriptors, packets and registers live in generated packages of
// their own (docs/formats.md).
`default_nettype none

package qrdma_pkg;

  // Width of an index into N items: at least 1 bit.
  function automatic int unsigned idx_w(input int unsigned n);
    return (n <= 1) ? 1 : $clog2(n);
  endfunction

  // Width of a counter that holds 0..N.
  function automatic int unsigned cnt_w(input int unsigned n);
    return $clog2(n + 1);
  endfunction

endpackage

`default_nettype wire
