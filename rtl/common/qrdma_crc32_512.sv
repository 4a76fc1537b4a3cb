// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_crc32_512: CRC-32 (Ethernet polynomial, reflected, init and final xor 0xFFFFFFFF:
// the CRC of Python's zlib.crc32) over frames given as DATA_W-bit beats, one beat per
// cycle, no backpressure. The CRC of the send unit (appended to packets) and of the
// receive unit (checked before data is placed): docs ARCHITECTURE §3, §4; seed 002 §2.4,
// seed 004 §3.2.
//
// Byte 0 of a beat is s_data[7:0] and is first on the wire; bit 0 of each byte goes first.
// A frame is the beats after the previous s_last (or reset) up to and including the beat
// with s_last; frames may follow back to back, a frame may be one beat. For every frame
// m_valid pulses once, for one cycle, exactly LATENCY cycles after its s_last beat (beat
// in cycle n -> m_valid and m_crc in cycle n + LATENCY); LATENCY is 5 for 512-bit beats.
// The send unit delays its data by LATENCY cycles to append the CRC.
//
// s_keep rule: all ones on every beat but the last; on the last beat contiguous from bit 0
// (1..KEEP_W bytes). Bytes outside s_keep are ignored. Violations are reported in
// simulation only ($display "ERROR" and the sticky flag keep_error_q, cleared by rst); in
// hardware they give a wrong CRC. While s_valid is low s_data/s_keep/s_last are ignored.
//
// Architecture. The CRC is affine over GF(2); c is the raw reflected 32-bit register.
//   * A beat of KEEP_W bytes moves c to  M_BEAT c ^ D(data),  M_BEAT = F^KEEP_W, where F
//     advances c by one zero byte and D is linear in the data and independent of c.
//   * A short last beat of k bytes is taken as the k bytes followed by m = KEEP_W - k zero
//     bytes (bytes outside s_keep are masked to zero), so D needs no per-keep variants;
//     the raw state is then F^m of the true one, which is recovered as F^-m of it.
//   Pipeline (beat in cycle n; the signal named is valid in the cycle given):
//     n+1  part_q   D split in GROUPS partial XORs of 8 bytes each (keep-masked), and m,
//                   the count of missing bytes, from s_keep (XORs of a thermometer code).
//     n+2  state_q  the only loop: c <- M_BEAT c ^ XOR(part_q), at most ~29 inputs per
//                   bit. On the last beat the frame's raw state goes to raw_q and state_q
//                   is set to all ones for the next frame (the flop's synchronous set, off
//                   the XOR path), so back-to-back frames need no mux in the loop.
//     n+3..n+5      3 correction stages: stage s applies F^-(v << 2s), v = m[2s +: 2], one
//                   of 4 constant 32x32 matrices, picked by v one stage ahead into flops
//                   g; each output bit is the XOR of x[j] & g[j][r]. Each g[j][r] is one of
//                   at most 16 functions of v, so synthesis keeps one flop per distinct
//                   function and a stage is ~32 AND-XOR terms of flops per bit. The last
//                   stage adds the final xor.
//   Every matrix is computed at elaboration by the SV functions below (Verilator and
//   read_slang both evaluate them).
//   Simulation speed: the harness of docs/sim.md spent ~60% of its time here, so every
//   product is written as XORs of 32-bit columns, each masked by one input bit (no per-bit
//   branches, no bit-by-bit 32x32 loops), and a correction stage computes only in a cycle
//   in which it loads (its valid, a clock enable): 2.7x the harness speed of the earlier
//   form (per-bit AND-XOR terms with selects decoded one stage ahead, same netlist in
//   essence, same FF count). The data term is computed every cycle: gating it with s_valid
//   (clock enable or synchronous clear of part_q) made the harness 13% (traffic) to 25%
//   (idle) faster but cost ~3% ECP5 Fmax.
//   Measured (ECP5-85 speed 6, nextpnr --seed 1..10; the seed alone moves Fmax by up to
//   +-7%, more than most of the differences below): this form (LATENCY 5) 145..161 MHz,
//   mean 154 (seed 1, docs/synth.md: 145); the earlier form 140..157, mean 148 (seed 1:
//   157); with the data term gated (synchronous clear) 143..154, mean 150. Earlier, seed 1 only: 1 bit of m
//   per correction stage and the partials XORed in a stage of their own gave 170 MHz at
//   LATENCY 9; 3 bits per stage (LATENCY 4) 140 MHz.
`default_nettype none

module qrdma_crc32_512
  import qrdma_pkg::*;
#(
  parameter int unsigned  DATA_W  = 512,  // beat width in bits, a multiple of 8
  localparam int unsigned KEEP_W  = DATA_W / 8,
  // cycles from the s_last beat to m_valid: 1 (data term) + 1 (loop) + ceil(log2(KEEP_W)/2)
  // correction stages; 5 for DATA_W = 512 (4 for 40..128, 3 for 8..32)
  localparam int unsigned LATENCY = 2 + (idx_w(KEEP_W) + 1) / 2
) (
  input  logic              clk,
  input  logic              rst,
  // frame beats, one per cycle while s_valid is high (no ready)
  input  logic              s_valid,
  input  logic [DATA_W-1:0] s_data,
  input  logic [KEEP_W-1:0] s_keep,
  input  logic              s_last,
  // the frame's CRC, one cycle, LATENCY cycles after its s_last beat
  output logic              m_valid,
  output logic [31:0]       m_crc
);

  // Design constants (see the header for the measured alternatives); LATENCY follows them.
  localparam int unsigned GROUP_BYTES = 8;  // bytes per partial XOR of the data term
  localparam int unsigned CORR_BITS   = 2;  // bits of m undone per correction stage (1..3)
  localparam int unsigned GROUPS      = (KEEP_W + GROUP_BYTES - 1) / GROUP_BYTES;
  localparam int unsigned M_W         = idx_w(KEEP_W);  // width of m, missing bytes 0..KEEP_W-1
  localparam int unsigned CORR_STAGES = (M_W + CORR_BITS - 1) / CORR_BITS;

`ifndef SYNTHESIS
  initial begin
    if (DATA_W < 8 || DATA_W % 8 != 0)
      $fatal(1, "qrdma_crc32_512: DATA_W must be a positive multiple of 8");
    if (LATENCY != 2 + CORR_STAGES)
      $fatal(1, "qrdma_crc32_512: LATENCY does not match the pipeline");
  end
`endif

  // ------------------------------------------------------------------ GF(2) algebra
  typedef logic [31:0]       vec_t;
  typedef logic [31:0][31:0] mat_t;  // mat[c] is the image of unit vector c (a column)

  localparam vec_t POLY = 32'hEDB88320;  // reflected Ethernet polynomial

  // One bit of the reflected LFSR with a zero input bit.
  function automatic vec_t lfsr_step(input vec_t c);
    return {1'b0, c[31:1]} ^ (c[0] ? POLY : '0);
  endfunction

  // Inverse of lfsr_step: bit 31 of the result of a step is the bit shifted out.
  function automatic vec_t lfsr_unstep(input vec_t c);
    return c[31] ? {c[30:0] ^ POLY[30:0], 1'b1} : {c[30:0], 1'b0};
  endfunction

  // F applied to c: one zero byte.
  function automatic vec_t zero_byte(input vec_t c);
    vec_t r = c;
    for (int i = 0; i < 8; i++) r = lfsr_step(r);
    return r;
  endfunction

  function automatic vec_t mat_apply(input mat_t m, input vec_t x);
    vec_t r = '0;
    for (int c = 0; c < 32; c++) r ^= m[c] & {32{x[c]}};
    return r;
  endfunction

  function automatic mat_t mat_mul(input mat_t a, input mat_t b);
    mat_t r;
    for (int c = 0; c < 32; c++) r[c] = mat_apply(a, b[c]);
    return r;
  endfunction

  // F^n (inverse = 0) or F^-n (inverse = 1), by square and multiply.
  function automatic mat_t zero_bytes_mat(input int unsigned n, input bit inverse);
    mat_t p;  // F^(+-2^i)
    mat_t r;
    int unsigned k = n;
    for (int c = 0; c < 32; c++) begin
      r[c] = vec_t'(1) << c;
      p[c] = vec_t'(1) << c;
      for (int i = 0; i < 8; i++) p[c] = inverse ? lfsr_unstep(p[c]) : lfsr_step(p[c]);
    end
    while (k != 0) begin
      if (k[0]) r = mat_mul(p, r);
      p = mat_mul(p, p);
      k = k >> 1;
    end
    return r;
  endfunction

  // Column of data bit i (byte j = i/8, bit b = i%8) in D: the byte enters a zero state
  // and KEEP_W-1-j zero bytes follow, so the column is F^(KEEP_W-j) applied to unit b.
  function automatic logic [DATA_W-1:0][31:0] data_cols();
    logic [DATA_W-1:0][31:0] r;
    vec_t v [8];
    for (int b = 0; b < 8; b++) v[b] = vec_t'(1) << b;
    for (int j = int'(KEEP_W) - 1; j >= 0; j--) begin
      for (int b = 0; b < 8; b++) begin
        v[b] = zero_byte(v[b]);
        r[8*j+b] = v[b];
      end
    end
    return r;
  endfunction

  localparam mat_t                    M_BEAT = zero_bytes_mat(KEEP_W, 1'b0);
  localparam logic [DATA_W-1:0][31:0] D_COLS = data_cols();

  // Number of zero bits of a keep that is contiguous from bit 0 (KEEP_W - bytes).
  // ~keep read from its top is a thermometer code u (u[i] = ~keep[KEEP_W-1-i]); bit b of the
  // count of ones of a thermometer code is the XOR of u[j*2^b - 1], j = 1, 2, ...: shallow
  // XORs instead of an adder tree. Exact only for keeps that follow the rule.
  function automatic logic [M_W-1:0] missing_bytes(input logic [KEEP_W-1:0] keep);
    logic [M_W-1:0] m = '0;
    for (int b = 0; b < int'(M_W); b++)
      for (int j = 1; j * (1 << b) <= int'(KEEP_W); j++)
        m[b] ^= ~keep[int'(KEEP_W) - j * (1 << b)];
    return m;
  endfunction

  // ------------------------------------------------------------ stage n+1: data term
  logic              v1_q, last1_q;
  logic [M_W-1:0]    m1_q;
  vec_t              part_d [GROUPS];
  vec_t              part_q [GROUPS];

  // Computed every cycle, valid or not (see the header: gating it costs Fmax).
  always_comb begin
    for (int g = 0; g < int'(GROUPS); g++) part_d[g] = '0;
    for (int i = 0; i < int'(DATA_W); i++)
      part_d[i / (8 * GROUP_BYTES)] ^= D_COLS[i] & {32{s_data[i] & s_keep[i / 8]}};
  end

  always_ff @(posedge clk) begin
    part_q  <= part_d;
    last1_q <= s_last;
    m1_q    <= missing_bytes(s_keep);
  end

  always_ff @(posedge clk) begin
    if (rst) v1_q <= 1'b0;
    else     v1_q <= s_valid;
  end

  // ------------------------------------------------------- stage n+2: the loop
  logic [M_W-1:0] m2_q;
  logic           v2_q;  // raw_q holds a finished frame
  vec_t           state_q, state_d, raw_q;

  always_comb begin
    state_d = mat_apply(M_BEAT, state_q);
    for (int g = 0; g < int'(GROUPS); g++) state_d ^= part_q[g];
  end

  always_ff @(posedge clk) begin
    if (rst || (v1_q && last1_q)) state_q <= '1;  // the next beat starts a frame
    else if (v1_q)                state_q <= state_d;
  end

  always_ff @(posedge clk) begin
    if (v1_q && last1_q) begin
      raw_q <= state_d;
      m2_q  <= m1_q;
    end
  end

  always_ff @(posedge clk) begin
    if (rst) v2_q <= 1'b0;
    else     v2_q <= v1_q && last1_q;
  end

  // ------------------------------------------- stages n+3 ..: undo the m zero bytes
  // Stage s computes y = G x, G = F^-(v << s*CORR_BITS) for v = m_slice(m, s), with the
  // matrix G picked one stage ahead into g_q (1024 flops in the RTL; g_q[j][r] is one of at
  // most 2^(2^CORR_BITS) functions of v, so synthesis merges equal flops and removes
  // constant ones). A row is ~32 AND-XOR terms of flops, two per LUT4, ~3 levels of LUT4.
  localparam int unsigned NV = 2 ** CORR_BITS;  // matrices per stage
  typedef mat_t [NV-1:0] corr_mats_t;

  // F^-(v << lo) for v = 0 .. NV-1
  function automatic corr_mats_t corr_mats(input int unsigned lo);
    corr_mats_t r;
    for (int unsigned v = 0; v < NV; v++) r[v] = zero_bytes_mat(v << lo, 1'b1);
    return r;
  endfunction

  // v of stage s: bits [s*CORR_BITS +: CORR_BITS] of m, zero above M_W
  function automatic logic [CORR_BITS-1:0] m_slice(input logic [M_W-1:0] m,
                                                   input int unsigned s);
    logic [CORR_BITS-1:0] r = '0;
    for (int unsigned b = 0; b < CORR_BITS; b++)
      if (s * CORR_BITS + b < M_W) r[b] = m[s * CORR_BITS + b];
    return r;
  endfunction

  // corr_x[s] / corr_g[s] / corr_m[s] / corr_v[s] feed stage s; corr_x[CORR_STAGES] and
  // corr_v[CORR_STAGES] are the output. g for stage 0 is picked at n+2 from m1_q.
  localparam corr_mats_t G_FIRST = corr_mats(0);

  vec_t           corr_x [CORR_STAGES + 1];
  mat_t           corr_g [CORR_STAGES];
  logic [M_W-1:0] corr_m [CORR_STAGES + 1];
  logic           corr_v [CORR_STAGES + 1];
  mat_t           g0_q;

  always_ff @(posedge clk) begin
    if (v1_q && last1_q) g0_q <= G_FIRST[m_slice(m1_q, 0)];
  end

  assign corr_x[0] = raw_q;
  assign corr_g[0] = g0_q;
  assign corr_m[0] = m2_q;
  assign corr_v[0] = v2_q;

  for (genvar s = 0; s < int'(CORR_STAGES); s++) begin : gen_corr
    localparam bit LAST = (s == int'(CORR_STAGES) - 1);  // adds the final xor

    vec_t           x_d, x_q;
    logic [M_W-1:0] m_q;
    logic           v_q;

    // A stage loads only with its valid (a clock enable): Verilator skips the matrix
    // product on all other cycles.
    always_comb begin
      x_d = x_q;
      if (corr_v[s]) x_d = mat_apply(corr_g[s], corr_x[s]) ^ {32{LAST}};
    end

    always_ff @(posedge clk) begin
      x_q <= x_d;
      if (corr_v[s]) m_q <= corr_m[s];
    end

    always_ff @(posedge clk) begin
      if (rst) v_q <= 1'b0;
      else     v_q <= corr_v[s];
    end

    assign corr_x[s+1] = x_q;
    assign corr_m[s+1] = m_q;
    assign corr_v[s+1] = v_q;

    if (!LAST) begin : gen_next  // G of the next stage
      localparam corr_mats_t G_NEXT = corr_mats((s + 1) * CORR_BITS);
      mat_t                  g_q;

      always_ff @(posedge clk) begin
        if (corr_v[s]) g_q <= G_NEXT[m_slice(corr_m[s], s + 1)];
      end

      assign corr_g[s+1] = g_q;
    end
  end

  assign m_valid = corr_v[CORR_STAGES];
  assign m_crc   = corr_x[CORR_STAGES];

  // ------------------------------------------------------------ simulation-only check
`ifndef SYNTHESIS
  // sticky: some beat broke the s_keep rule (cleared by rst); read by tests, not by logic
  /* verilator lint_off UNUSEDSIGNAL */
  logic keep_error_q;
  /* verilator lint_on UNUSEDSIGNAL */
  logic keep_ok;

  always_comb begin
    if (s_last) keep_ok = s_keep[0] && ((s_keep & (s_keep + KEEP_W'(1))) == '0);
    else        keep_ok = &s_keep;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      keep_error_q <= 1'b0;
    end else if (s_valid && !keep_ok) begin
      $display("ERROR: %m: t=%0t s_keep=%h with s_last=%0d breaks the keep rule",
               $time, s_keep, s_last);
      keep_error_q <= 1'b1;
    end
  end
`endif

endmodule

`default_nettype wire
