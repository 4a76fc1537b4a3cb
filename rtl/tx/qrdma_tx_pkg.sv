// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// qrdma_tx_pkg: records passed between the blocks of the send unit qrdma_tx (docs/nic.md
// "Send unit"): the descriptor slot of a VOQ entry, the packet job (scheduler ->
// assembler), the read command (scheduler -> AR issuer), the read info (AR issuer -> R
// realigner) and the output beat (assembler -> output buffer). Field formats of the
// descriptors and of the header beat come from qrdma_fmt_pkg (docs/formats.md).
`default_nettype none

package qrdma_tx_pkg;

  import qrdma_fmt_pkg::*;

  localparam int unsigned BEAT_BYTES = NET_BEAT_BYTES;   // bytes of a network / memory beat
  localparam int unsigned DATA_W     = 8 * BEAT_BYTES;   // 512
  localparam int unsigned LANE_W     = $clog2(BEAT_BYTES); // byte lane of a beat: 6 bits
  localparam int unsigned LEN_W      = NET_HDR_LEN_W;    // payload bytes of a packet (13 bits)
  localparam int unsigned BEATS_W    = 7;                // beats of one packet's payload, 0..65
  localparam int unsigned NG         = DATA_W / 64;      // 64-bit groups of a beat
  localparam int unsigned ROT_SPLIT  = LANE_W / 2;       // rotation stages in a first register stage (rot_r)

  // What a descriptor slot holds.
  typedef enum logic {
    SLOT_BLK = 1'b0,  // a block descriptor (BLOCK_DESC), sent as one or more DATA packets
    SLOT_PKT = 1'b1   // a packet descriptor (PKT_DESC): one INLINE or CONTROL packet
  } slot_kind_e;

  // One descriptor slot: data is a block_desc_t (bits BLOCK_DESC_W-1:0) or a pkt_desc_t, by kind.
  typedef struct packed {
    slot_kind_e        kind;
    logic [DATA_W-1:0] data;
  } slot_rec_t;

  // A packet to send, in link order (scheduler -> assembler). The wide field is the last
  // (bits 511:0): it stays word-aligned in the FIFOs, which simulates faster.
  typedef struct packed {
    logic               is_data;  // DATA: payload beats follow the header
    logic [LANE_W-1:0]  dlane;    // DATA: lane of the first payload byte (dst_addr mod 64)
    logic [LEN_W-1:0]   len;      // payload bytes (DATA, INLINE), 0 for CONTROL/ACK/NACK
    logic [BEATS_W-1:0] n_p;      // DATA: packed payload beats in the buffer, ceil(len/64)
    logic [BEATS_W-1:0] n_out;    // DATA: payload beats on the link, ceil((dlane+len)/64)
    logic [DATA_W-1:0]  hdr;      // the header beat (net_hdr)
  } job_t;

  // A payload read: the n_src beats that hold a packet's payload, its first byte at addr
  // (scheduler -> AR issuer).
  typedef struct packed {
    logic [63:0]        addr;
    logic [BEATS_W-1:0] n_src;  // read beats, ceil((addr mod 64 + len) / 64)
    logic [BEATS_W-1:0] n_p;    // packed beats, ceil(len / 64)
  } rd_cmd_t;

  // What the R realigner needs of a packet's read (AR issuer -> realigner).
  typedef struct packed {
    logic [LANE_W-1:0]  slane;  // lane of the first payload byte in the first read beat
    logic [BEATS_W-1:0] n_src;  // read beats of the packet, ceil((slane+len)/64)
    logic [BEATS_W-1:0] n_p;    // packed beats it becomes, ceil(len/64)
  } rd_info_t;

  // One beat of the link, as buffered before the CRC is attached (data last: word-aligned).
  typedef struct packed {
    logic [BEAT_BYTES-1:0] keep;
    logic                  last;
    logic                  is_data;  // (last beat) the packet is a DATA packet
    logic [LEN_W-1:0]      len;      // (last beat) its payload bytes, for stat_bytes
    logic [DATA_W-1:0]     data;
  } obeat_t;

  // Lanes lo..hi (inclusive, lo <= hi) set.
  function automatic logic [BEAT_BYTES-1:0] lane_mask(input logic [LANE_W-1:0] lo,
                                                      input logic [LANE_W-1:0] hi);
    return ({BEAT_BYTES{1'b1}} << lo) & ({BEAT_BYTES{1'b1}} >> (LANE_W'(BEAT_BYTES - 1) - hi));
  endfunction

  // Bits of lanes lo..hi (inclusive, lo <= hi) set: lane_mask widened to bits, written as
  // two whole-word shifts (a per-byte loop costs an order of magnitude more in Verilator).
  function automatic logic [DATA_W-1:0] lane_bits(input logic [LANE_W-1:0] lo,
                                                  input logic [LANE_W-1:0] hi);
    return ({DATA_W{1'b1}} << {lo, 3'b000})
         & ({DATA_W{1'b1}} >> {LANE_W'(BEAT_BYTES - 1) - hi, 3'b000});
  endfunction

  // x rotated right by the bits k0..k1-1 of s bytes (the whole rotation by s: stages 0 to
  // LANE_W; byte i of it is byte (i + s) mod 64 of x), as stages of 2:1 selections, stage k
  // moving by 2^k bytes where s[k]. s[g] is a copy of the amount for group g (the result's
  // bits 64g..64g+63 in every stage): the caller keeps one register per group, so that
  // each drives 64 selections per stage, not 512. A rotation split in two (the stages
  // below and above LANE_W / 2, moving by at most 4 and at least 8 bytes) spreads it over
  // two register stages.
  function automatic logic [DATA_W-1:0] rot_r(input logic [DATA_W-1:0]         x,
                                              input logic [NG-1:0][LANE_W-1:0] s,
                                              input int unsigned               k0,
                                              input int unsigned               k1);
    logic [DATA_W-1:0] y, m;
    y = x;
    for (int unsigned k = 0; k < LANE_W; k++) begin
      if (k >= k0 && k < k1) begin
        for (int g = 0; g < int'(NG); g++) m[g*64 +: 64] = {64{s[g][k]}};
        y = (y & ~m) | (DATA_W'({y, y} >> (8 << k)) & m);
      end
    end
    return y;
  endfunction

  // The two register stages of a whole rotation: moves of up to 4 bytes (rot_r_lo), then
  // of at least 8 (rot_r_hi); rot_r_hi(rot_r_lo(x, s), s) is x rotated right by s bytes.
  function automatic logic [DATA_W-1:0] rot_r_lo(input logic [DATA_W-1:0]         x,
                                                 input logic [NG-1:0][LANE_W-1:0] s);
    return rot_r(x, s, 0, ROT_SPLIT);
  endfunction

  function automatic logic [DATA_W-1:0] rot_r_hi(input logic [DATA_W-1:0]         x,
                                                 input logic [NG-1:0][LANE_W-1:0] s);
    return rot_r(x, s, ROT_SPLIT, LANE_W);
  endfunction

  // The bits of each 64-bit group set where its flag is.
  function automatic logic [DATA_W-1:0] group_bits(input logic [NG-1:0] f);
    logic [DATA_W-1:0] b;
    for (int g = 0; g < int'(NG); g++) b[g*64 +: 64] = {64{f[g]}};
    return b;
  endfunction

  // The bits of each lane set where its flag is.
  function automatic logic [DATA_W-1:0] lane_bits_of(input logic [BEAT_BYTES-1:0] f);
    logic [DATA_W-1:0] b;
    for (int l = 0; l < int'(BEAT_BYTES); l++) b[l*8 +: 8] = {8{f[l]}};
    return b;
  endfunction

  // Beats that len bytes starting at lane `lane` occupy: ceil((lane + len) / 64).
  function automatic logic [BEATS_W-1:0] beats_of(input logic [LANE_W-1:0] lane,
                                                  input logic [LEN_W-1:0]  len);
    logic [LEN_W:0] end_byte;
    end_byte = (LEN_W + 1)'(lane) + (LEN_W + 1)'(len) + (LEN_W + 1)'(BEAT_BYTES - 1);
    return BEATS_W'(end_byte >> LANE_W);
  endfunction

endpackage

`default_nettype wire
