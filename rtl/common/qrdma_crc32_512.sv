// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_crc32_512: CRC-32 (Ethernet polynomial, reflected, init and final xor 0xFFFFFFFF:
// the CRC of Python's zlib.crc32) over frames given as DATA_W-bit beats, one beat per
// cycle, no backpressure: the CRC the send unit appends to packets and the receive unit
// checks before data is placed ([FPGA-NI] §2.4, [RSN] §3.2; docs/nic.md "Packet format").
// Inside (affine decomposition, pipeline, evaluation cost): docs/modules.md#qrdma_crc32_512.
//
// Contract: byte 0 of a beat is s_data[7:0] and is first on the wire; bit 0 of each byte
// goes first. A frame is the beats after the previous s_last (or reset) up to and
// including the beat with s_last; frames may follow back to back, a frame may be one
// beat. For every frame m_valid pulses once, for one cycle, exactly LATENCY cycles after
// its s_last beat (beat in cycle n -> m_valid and m_crc in cycle n + LATENCY); LATENCY is
// 5 for 512-bit beats (6 with DATA_PIPE, with or without CORR_PIPE). s_keep is all ones on every beat but the last, and on the last beat
// contiguous from bit 0 (1..KEEP_W bytes); bytes outside s_keep are ignored (KEEP_ZERO = 0)
// or are zero (KEEP_ZERO = 1: the user masks the data, the first stage takes s_data as it
// is and reads s_keep on the last beat only). A violation fails an assertion in
// simulation; in hardware it gives a wrong CRC. While s_valid is low s_data/s_keep/s_last
// are ignored.
`default_nettype none

module qrdma_crc32_512
  import qrdma_pkg::*;
#(
  parameter int unsigned  DATA_W  = 512,  // beat width in bits, a multiple of 8
  // data bits per table lookup of the data term, 4 or 8: the same function either way.
  // 4 (16-entry tables, each output bit one LUT4 of a nibble) is the form synthesized;
  // with 8 (256-entry tables) Yosys takes very long to reduce the tables.
  parameter int unsigned  TAB_BITS = 4,
  // 1: s_data is zero outside s_keep on every beat (the user masks it), so the data term
  // needs no keep masks (no s_keep fan-out into the 512 data bits' XOR trees)
  parameter bit           KEEP_ZERO = 1'b0,
  // 1: the data term in two register stages, the XORs of 16-bit slices of each group
  // (two LUT4 levels from s_data) and then their XOR per group: one cycle more of
  // LATENCY for a shorter path from s_data, whose bits each fan out over a group's table
  parameter bit           DATA_PIPE = 1'b0,
  // 1: the correction undoes 3 bits of m per matrix stage (2 without), each stage's
  // product registered as partial XORs that the next stage's input XORs together, and
  // m_crc a register of its own after the last stage: at most two LUT4 levels between
  // registers, one cycle more than the matrix stages (for DATA_W = 512 the same LATENCY)
  parameter bit           CORR_PIPE = 1'b0,
  localparam int unsigned KEEP_W  = DATA_W / 8,
  // cycles from the s_last beat to m_valid: 1 (data term; 2 with DATA_PIPE) + 1 (loop) +
  // ceil(log2(KEEP_W)/2) correction stages (CORR_PIPE: ceil(log2(KEEP_W)/3) + 1); 5 for
  // DATA_W = 512 (4 for 40..128, 3 for 8..32), one more with DATA_PIPE
  localparam int unsigned LATENCY = 2 + int'(DATA_PIPE)
                                    + (CORR_PIPE ? (idx_w(KEEP_W) + 2) / 3 + 1
                                                 : (idx_w(KEEP_W) + 1) / 2)
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

  // Design constants; LATENCY follows them.
  localparam int unsigned GROUP_BYTES = 8;  // bytes per partial XOR of the data term
  localparam int unsigned CORR_BITS   = CORR_PIPE ? 3 : 2;  // bits of m undone per stage
  localparam int unsigned GROUPS      = (KEEP_W + GROUP_BYTES - 1) / GROUP_BYTES;
  localparam int unsigned M_W         = idx_w(KEEP_W);  // width of m, missing bytes 0..KEEP_W-1
  localparam int unsigned CORR_STAGES = (M_W + CORR_BITS - 1) / CORR_BITS;
  localparam int unsigned CORR_REGS   = CORR_STAGES + int'(CORR_PIPE);  // registers after the loop

`ifndef SYNTHESIS
  initial begin
    if (DATA_W < 8 || DATA_W % 8 != 0)
      $fatal(1, "qrdma_crc32_512: DATA_W must be a positive multiple of 8");
    if (LATENCY != 2 + int'(DATA_PIPE) + CORR_REGS)
      $fatal(1, "qrdma_crc32_512: LATENCY does not match the pipeline");
    if (TAB_BITS != 4 && TAB_BITS != 8)
      $fatal(1, "qrdma_crc32_512: TAB_BITS must be 4 or 8");
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

  localparam mat_t M_BEAT = zero_bytes_mat(KEEP_W, 1'b0);

  // Number of zero bits of a keep that is contiguous from bit 0 (KEEP_W - bytes).
  // ~keep read from its top is a thermometer code u (u[i] = ~keep[KEEP_W-1-i]); bit b of the
  // count of ones of a thermometer code is the XOR of u[j*2^b - 1], j = 1, 2, ...: shallow
  // XORs instead of an adder tree, each one a parity of ~keep under a constant mask.
  // Exact only for keeps that follow the rule.
  typedef logic [M_W-1:0][KEEP_W-1:0] m_masks_t;

  function automatic m_masks_t missing_masks();
    m_masks_t r = '0;
    for (int b = 0; b < int'(M_W); b++)
      for (int j = 1; j * (1 << b) <= int'(KEEP_W); j++)
        r[b][int'(KEEP_W) - j * (1 << b)] = 1'b1;
    return r;
  endfunction

  localparam m_masks_t M_MASKS = missing_masks();

  function automatic logic [M_W-1:0] missing_bytes(input logic [KEEP_W-1:0] keep);
    logic [M_W-1:0] m;
    for (int b = 0; b < int'(M_W); b++) m[b] = ^(~keep & M_MASKS[b]);
    return m;
  endfunction

  // The data term by tables, one per group of GROUP_BYTES bytes: slice n (TAB_BITS bits)
  // of the group's keep-masked data adds entry 2^TAB_BITS n + value of the group's table,
  // the XOR of the D columns of the slice's set bits. Verilator: one indexed load per
  // slice. Synthesis (TAB_BITS 4): a 16-entry constant mux per nibble, each output bit an
  // XOR of at most 4 inputs. (A table per group, not one for the beat, keeps the muxes
  // Yosys builds before optimising small.)
  localparam int unsigned TAB_N     = 2 ** TAB_BITS;                   // entries per slice
  localparam int unsigned GROUP_TAB = TAB_N * GROUP_BYTES * 8 / TAB_BITS;  // per group
  typedef vec_t grp_tab_t [GROUP_TAB];

  // The column of data bit b of byte j in D: the byte enters a zero state and KEEP_W-1-j
  // zero bytes follow, so the column is F^(KEEP_W-j) applied to unit b.
  function automatic grp_tab_t group_table(input int unsigned g);
    grp_tab_t r;
    vec_t     col [8];  // columns of the bits of byte j
    for (int i = 0; i < int'(GROUP_TAB); i++) r[i] = '0;  // bytes past KEEP_W: never read
    for (int b = 0; b < 8; b++) col[b] = vec_t'(1) << b;
    for (int j = int'(KEEP_W) - 1; j >= int'(g * GROUP_BYTES); j--) begin
      for (int b = 0; b < 8; b++) col[b] = zero_byte(col[b]);
      if (j < int'((g + 1) * GROUP_BYTES))
        for (int h = 0; h < 8 / int'(TAB_BITS); h++) begin  // slice (8/TAB_BITS)(j-8g)+h
          int base = int'(TAB_N) * ((8 / int'(TAB_BITS)) * (j - int'(g * GROUP_BYTES)) + h);
          // entry v = entry (v without its lowest set bit) ^ that bit's column
          for (int v = 1; v < int'(TAB_N); v++) begin
            int lo = 0;
            while (!v[lo]) lo++;
            r[base + v] = r[base + (v & (v - 1))] ^ col[int'(TAB_BITS) * h + lo];
          end
        end
    end
    return r;
  endfunction

  // Byte mask of 4 keep bits: byte i of KEEP_MASK[k] is {8{k[i]}}. Masks a 32-bit word of
  // data in one lookup (in synthesis the entries are wires).
  typedef logic [31:0] keep_mask_t [16];

  function automatic keep_mask_t keep_masks();
    keep_mask_t r;
    for (int k = 0; k < 16; k++) begin
      logic [31:0] t;
      for (int i = 0; i < 4; i++) t[8*i +: 8] = {8{k[i]}};
      r[k] = t;
    end
    return r;
  endfunction

  localparam keep_mask_t KEEP_MASK = keep_masks();

  // ------------------------------------------------------------ stage n+1: data term
  // With DATA_PIPE the data term takes stages n+1 (the slices' XORs, sub_q) and n+2
  // (part_q), and every stage after it is one cycle later than its name says.
  localparam int unsigned SUB_BITS = 16;  // data bits per slice XOR (DATA_PIPE)
  logic              v1_q, last1_q;
  logic [M_W-1:0]    m1_q;
  vec_t              part_q [GROUPS];
  // DATA_PIPE: the beat in sub_q
  /* verilator lint_off UNUSEDSIGNAL */  // without DATA_PIPE: constants no stage reads
  logic              v0_q, last0_q;
  logic [M_W-1:0]    m0_q;
  /* verilator lint_on UNUSEDSIGNAL */

  // Group g: bytes [8g, 8g+8) of the beat, a 64-bit word w (zero-extended in a short last
  // group), masked by s_keep; part_q[g] = XOR of the table entries of its nibbles (with
  // DATA_PIPE: sub_q[h] = XOR of those of its slice h of SUB_BITS bits, part_q[g] = XOR
  // of sub_q a cycle later). Loaded only with a beat (s_valid, v0_q: the flops' clock
  // enable; part_q and sub_q are read only after a beat), so Verilator skips the lookups
  // in idle cycles.
  for (genvar g = 0; g < int'(GROUPS); g++) begin : gen_grp
    localparam int unsigned LO = 64 * g;                                 // first data bit
    localparam int unsigned GW = (DATA_W - LO < 64) ? DATA_W - LO : 64;  // bits in the group
    localparam int unsigned NS = (GW + SUB_BITS - 1) / SUB_BITS;         // slices (DATA_PIPE)
    localparam int unsigned NN = GW / TAB_BITS;                          // lookups
    localparam int unsigned SN = SUB_BITS / TAB_BITS;                    // lookups per slice
    localparam grp_tab_t    T  = group_table(g);

    // the beat's group masked by its s_keep: every beat is masked by its s_keep, which is
    // all ones on a beat that is not the last (the keep rule), the same result as masking
    // the last beat only, without s_last in the 512 masks
    function automatic logic [63:0] group_word(input logic [GW-1:0]   d,
                                               input logic [GW/8-1:0] kp);
      logic [7:0]  k;
      logic [63:0] w;
      k = 8'(kp);
      w = 64'(d);
      if (!KEEP_ZERO) w &= {KEEP_MASK[k[7:4]], KEEP_MASK[k[3:0]]};
      return w;
    endfunction

    if (!DATA_PIPE) begin : gen_one
      always_ff @(posedge clk) begin
        if (s_valid) begin
          logic [63:0] w;
          vec_t        t;
          w = group_word(s_data[LO +: GW], s_keep[LO/8 +: GW/8]);
          t = '0;
          for (int n = 0; n < int'(NN); n++)
            t ^= T[int'(TAB_N) * n + int'(w[int'(TAB_BITS) * n +: TAB_BITS])];
          part_q[g] <= t;
        end
      end
    end else begin : gen_two
      vec_t sub_q [NS];

      always_ff @(posedge clk) begin
        if (s_valid) begin
          logic [63:0] w;
          vec_t        t;
          w = group_word(s_data[LO +: GW], s_keep[LO/8 +: GW/8]);
          for (int h = 0; h < int'(NS); h++) begin
            t = '0;
            for (int n = h * int'(SN); n < (h + 1) * int'(SN) && n < int'(NN); n++)
              t ^= T[int'(TAB_N) * n + int'(w[int'(TAB_BITS) * n +: TAB_BITS])];
            sub_q[h] <= t;
          end
        end
      end

      always_ff @(posedge clk) begin
        if (v0_q) begin
          vec_t t;
          t = '0;
          for (int h = 0; h < int'(NS); h++) t ^= sub_q[h];
          part_q[g] <= t;
        end
      end
    end
  end

  if (!DATA_PIPE) begin : gen_flags_one
    always_ff @(posedge clk) begin
      last1_q <= s_last;
      if (s_valid && s_last) m1_q <= missing_bytes(s_keep);  // read only after a last beat
    end

    always_ff @(posedge clk) begin
      if (rst) v1_q <= 1'b0;
      else     v1_q <= s_valid;
    end

    assign v0_q    = 1'b0;  // no first stage
    assign last0_q = 1'b0;
    assign m0_q    = '0;
  end else begin : gen_flags_two
    always_ff @(posedge clk) begin
      last0_q <= s_last;
      last1_q <= last0_q;
      if (s_valid && s_last) m0_q <= missing_bytes(s_keep);  // read only after a last beat
      if (v0_q && last0_q)   m1_q <= m0_q;
    end

    always_ff @(posedge clk) begin
      if (rst) begin
        v0_q <= 1'b0;
        v1_q <= 1'b0;
      end else begin
        v0_q <= s_valid;
        v1_q <= v0_q;
      end
    end
  end

  // ------------------------------------------------------- stage n+2: the loop
  // c <- M_BEAT c ^ XOR(part_q), computed only in a cycle with a beat (v1_q, the flops'
  // clock enable). Products are written out where they are used: a matrix passed to a
  // function would be copied (and cleared every cycle) by Verilator.
  function automatic vec_t state_next(input vec_t c);
    vec_t r = '0;
    for (int col = 0; col < 32; col++) r ^= M_BEAT[col] & {32{c[col]}};
    for (int g = 0; g < int'(GROUPS); g++) r ^= part_q[g];
    return r;
  endfunction

  vec_t state_q;

  // ------------------------------------------- stages n+3 ..: undo the m zero bytes
  // Stage s computes y = G x, G = F^-(v << s*CORR_BITS) for v = m_slice(m, s), with the
  // matrix G picked one stage ahead into the stage's g_q (1024 flops in the RTL; each bit is
  // one of at most 2^(2^CORR_BITS) functions of v, so synthesis merges equal flops and
  // removes constant ones). A row is ~32 AND-XOR terms of flops, two per LUT4, ~3 levels
  // of LUT4. Element 0 of corr_x_q / corr_m_q / corr_v_q is loaded with the frame's last
  // beat at n+2 (raw state, m); element s+1 by stage s. Stages compute only in a cycle in
  // which they load.
  // CORR_PIPE: stage s registers y as CP_NP(s) partial XORs (corr_p_q[s][j], of the
  // columns [j*32/np, (j+1)*32/np) of G), 4 of 8 columns in stage 0 (two LUT4 levels from
  // corr_x_q[0]), 16 of 2 columns after it (one LUT4 level for the input x, the XOR of
  // the 4 partials before, and one for the partial); a register stage after the last
  // XORs its 16 partials (two levels) and the final xor into corr_x_q[1], m_crc.
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

  // partial XORs of stage s (CORR_PIPE)
  function automatic int unsigned cp_np(input int unsigned s);
    return (s == 0) ? 4 : 16;
  endfunction

  localparam int unsigned CP_MAX = CORR_PIPE ? 16 : 1;             // partials per stage, at most
  localparam int unsigned CX_N   = CORR_PIPE ? 2 : CORR_STAGES + 1;  // corr_x_q elements

  vec_t           corr_x_q [CX_N];         // [CX_N-1] is m_crc
  logic [CORR_REGS:0] corr_v_q;            // bit CORR_REGS is m_valid
  // the last element feeds no stage (never read with a single stage, DATA_W <= 32)
  /* verilator lint_off UNUSEDSIGNAL */
  logic [M_W-1:0] corr_m_q [CORR_STAGES];
  // CORR_PIPE: the stages' partial XORs (stage 0 uses 4 of 16); without it, constants
  // no stage reads
  vec_t           corr_p_q [CORR_STAGES][CP_MAX];
  /* verilator lint_on UNUSEDSIGNAL */

  // The loop register and the load of the correction stages' element 0 share one process,
  // reset last: state_q is read before it is written, so Verilator updates it in place
  // (docs/development.md).
  always_ff @(posedge clk) begin
    if (v1_q) begin
      if (last1_q) begin
        corr_x_q[0] <= state_next(state_q);
        corr_m_q[0] <= m1_q;
        state_q     <= '1;  // the next beat starts a frame
      end else begin
        state_q     <= state_next(state_q);
      end
    end
    if (rst) state_q <= '1;
  end

  always_ff @(posedge clk) begin
    corr_v_q <= {corr_v_q[CORR_REGS-1:0], v1_q && last1_q};  // one shift register
    if (rst) corr_v_q <= '0;
  end

  for (genvar s = 0; s < int'(CORR_STAGES); s++) begin : gen_corr
    localparam bit         LAST = (s == int'(CORR_STAGES) - 1);  // adds the final xor
    localparam corr_mats_t G    = corr_mats(s * CORR_BITS);

    mat_t g_q;  // G of this stage, loaded one stage ahead

    if (s == 0) begin : gen_g_first
      always_ff @(posedge clk) begin
        if (v1_q && last1_q) g_q <= G[m_slice(m1_q, 0)];
      end
    end else begin : gen_g_next
      always_ff @(posedge clk) begin
        if (corr_v_q[s-1]) g_q <= G[m_slice(corr_m_q[s-1], s)];
      end
    end

    if (!CORR_PIPE) begin : gen_full
      always_ff @(posedge clk) begin
        if (corr_v_q[s]) begin
          vec_t y;
          y = '0;
          for (int c = 0; c < 32; c++) y ^= g_q[c] & {32{corr_x_q[s][c]}};
          corr_x_q[s+1] <= y ^ {32{LAST}};
        end
      end

      for (genvar j = 0; j < int'(CP_MAX); j++) begin : gen_p_none
        assign corr_p_q[s][j] = '0;
      end
    end else begin : gen_part
      localparam int unsigned NP   = cp_np(s);                 // partials of this stage
      localparam int unsigned CP   = 32 / NP;                  // columns per partial
      localparam int unsigned PREV = (s == 0) ? 0 : s - 1;     // stage before (s > 0)
      localparam int unsigned NPP  = cp_np(PREV);              // its partials

      always_ff @(posedge clk) begin
        if (corr_v_q[s]) begin
          vec_t x, y;
          if (s == 0) begin
            x = corr_x_q[0];
          end else begin
            x = '0;
            for (int j = 0; j < int'(NPP); j++) x ^= corr_p_q[PREV][j];
          end
          for (int j = 0; j < int'(NP); j++) begin
            y = '0;
            for (int c = j * int'(CP); c < (j + 1) * int'(CP); c++) y ^= g_q[c] & {32{x[c]}};
            corr_p_q[s][j] <= y;
          end
        end
      end
    end

    if (!LAST) begin : gen_m
      always_ff @(posedge clk) begin
        if (corr_v_q[s]) corr_m_q[s+1] <= corr_m_q[s];
      end
    end
  end

  if (CORR_PIPE) begin : gen_corr_out
    localparam int unsigned NPL = cp_np(CORR_STAGES - 1);  // the last stage's partials

    always_ff @(posedge clk) begin
      if (corr_v_q[CORR_STAGES]) begin
        vec_t y;
        y = '1;  // the final xor
        for (int j = 0; j < int'(NPL); j++) y ^= corr_p_q[CORR_STAGES-1][j];
        corr_x_q[1] <= y;
      end
    end
  end

  assign m_valid = corr_v_q[CORR_REGS];
  assign m_crc   = corr_x_q[CX_N-1];

  // ------------------------------------------------------------ simulation-only check
`ifndef SYNTHESIS
  // s_keep widened to bits (KEEP_ZERO's check)
  function automatic logic [DATA_W-1:0] keep_bits(input logic [KEEP_W-1:0] keep);
    logic [DATA_W-1:0] r;
    for (int i = 0; i < int'(KEEP_W); i++) r[8*i +: 8] = {8{keep[i]}};
    return r;
  endfunction

  // the s_keep rule (and with KEEP_ZERO the zero bytes outside it), checked only with a beat
  always_ff @(posedge clk) begin
    if (s_valid) begin
      if (!rst) assert (s_last ? s_keep[0] && ((s_keep & (s_keep + KEEP_W'(1))) == '0) : &s_keep)
        else $error("qrdma_crc32_512: s_keep=%h with s_last=%0d breaks the keep rule",
                    s_keep, s_last);
      if (KEEP_ZERO)
        if (!rst) assert ((s_data & ~keep_bits(s_keep)) == '0)
          else $error("qrdma_crc32_512: s_data not zero outside s_keep=%h (KEEP_ZERO)", s_keep);
    end
  end
`endif

endmodule

`default_nettype wire
