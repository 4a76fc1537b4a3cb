# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The RTL rule of tools/rtl_rules.py: synthesizable RTL holds no simulation-only logic
(code under `ifndef SYNTHESIS is checks only, code under `ifdef SYNTHESIS does not exist).

  test_rtl_tree           every file of rtl/ follows the rule (files listed in PENDING are
                          reported, and must leave the list once they are clean)
  test_scanner_*          the scanner on small inline examples: checks pass; a second,
                          blocking implementation, a $display("ERROR") with a flag, a
                          parameter that differs, a synthesis-only branch fail
"""
import warnings

import pytest

from tools import rtl_rules


def test_rtl_tree():
    findings = rtl_rules.scan()
    failing = [f for f in findings if f.path not in rtl_rules.PENDING]
    pending = {f.path for f in findings} & set(rtl_rules.PENDING)
    for path in sorted(pending):
        n = sum(1 for f in findings if f.path == path)
        warnings.warn(f"{path}: {n} finding(s), pending conversion ({rtl_rules.PENDING[path]})")
    assert not failing, ("simulation-only logic in synthesizable RTL (STYLE.md, "
                         "\"SystemVerilog subset\"):\n" + "\n".join(map(str, failing)))
    clean = sorted(set(rtl_rules.PENDING) - pending)
    assert not clean, f"now clean, remove from tools/rtl_rules.py PENDING: {clean}"


def scan(text):
    return rtl_rules.scan_text(text, "t.sv")


CHECKS_ONLY = """\
module t #(parameter int N = 4) (input logic clk, input logic rst, input logic v,
                                 input logic [7:0] d);
  logic [7:0] q;
  always_ff @(posedge clk) if (v) q <= d;
`ifndef SYNTHESIS
  initial begin
    if (N < 1) $fatal(1, "t: N must be >= 1");
  end
  // checker state: its own signals only
  logic [7:0] seen_q;
  logic       any;
  assign any = |seen_q;
  always_ff @(posedge clk) begin
    if (v) begin
      logic [7:0] x;
      x = d ^ q;
      if (!rst) assert (x != 8'hff) else $error("t: d is ~q (%h)", d);
      seen_q <= seen_q | x;
    end
    unique case (d[1:0])
      2'd0:    cover (v);
      default: ;
    endcase
    if (rst) seen_q <= '0;
  end
  a_nz: assert property (@(posedge clk) disable iff (rst) v |-> d != '0)
    else $error("t: zero data");
`endif
endmodule
"""


def test_scanner_accepts_checks():
    assert scan(CHECKS_ONLY) == []


def test_scanner_blocking_implementation_fails():
    text = """\
module t (input logic clk, input logic we, input logic [3:0] a, input logic [7:0] d);
  logic [7:0] mem [16];
  always_ff @(posedge clk) begin
`ifdef SYNTHESIS
    if (we) mem[a] <= d;
`else
    /* verilator lint_off BLKSEQ */
    if (we) mem[a] = d;
    /* verilator lint_on BLKSEQ */
`endif
  end
endmodule
"""
    found = {(f.line, f.reason.split(":")[0].split(" (")[0]) for f in scan(text)}
    assert (5, "synthesis-only code") in found
    assert (7, "BLKSEQ waived") in found
    assert (8, "simulation-only code drives 'mem', which is not the checker's own signal") \
        in found
    assert len(found) == 3
    # the report names the file, the line and the offending text
    assert "t.sv:8: " in str(scan(text)[-1]) and "mem[a] = d;" in str(scan(text)[-1])


def test_scanner_display_error_flag_fails():
    text = """\
module t (input logic clk, input logic rst, input logic v, input logic full);
`ifndef SYNTHESIS
  logic err_q;
  always_ff @(posedge clk) begin
    if (rst) err_q <= 1'b0;
    else if (v && full) begin
      $display("ERROR: %m: push into a full FIFO");
      err_q <= 1'b1;
    end
  end
`endif
endmodule
"""
    f = scan(text)
    assert [x.line for x in f] == [7], "\n".join(map(str, f))
    assert "$display" in f[0].reason and "assert" in f[0].reason


def test_scanner_error_outside_assertion_fails():
    text = """\
module t (input logic clk, input logic v, input logic full);
`ifndef SYNTHESIS
  always_ff @(posedge clk) if (v && full) $error("t: push into a full FIFO");
`endif
endmodule
"""
    f = scan(text)
    assert [x.line for x in f] == [3] and "else branch" in f[0].reason


@pytest.mark.parametrize("text,line,what", [
    # a parameter that differs between simulation and synthesis
    ("module t #(\n`ifdef SYNTHESIS\n  parameter int W = 4,\n`else\n  parameter int W = 8,\n"
     "`endif\n  parameter int D = 2\n) ();\nendmodule\n", 3, "synthesis-only"),
    ("module t #(\n`ifdef SYNTHESIS\n  parameter int W = 4,\n`else\n  parameter int W = 8,\n"
     "`endif\n  parameter int D = 2\n) ();\nendmodule\n", 5, "a parameter"),
    # ifdef VERILATOR is simulation-only too; driving a design signal from it
    ("module t (output logic y);\n`ifdef VERILATOR\n  assign y = 1'b0;\n`else\n"
     "  assign y = 1'b1;\n`endif\nendmodule\n", 3, "drives 'y'"),
    # a plain always and an instance
    ("module t (input logic clk);\n`ifndef SYNTHESIS\n  logic c;\n"
     "  always @(posedge clk) c <= 1'b1;\n`endif\nendmodule\n", 4, "'always'"),
    ("module t (input logic clk);\n`ifndef SYNTHESIS\n  chk #(.N(2)) u_chk (.clk);\n"
     "`endif\nendmodule\n", 3, "an instance"),
])
def test_scanner_other_violations(text, line, what):
    f = scan(text)
    assert any(x.line == line and what in x.reason for x in f), "\n".join(map(str, f))
