// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// MmioPort: the CPU side of one node's host port, an AXI4 master driving the NIC's
// s_axi_* (HOST_DATA_W bits, ID 0, in order). Model (docs/sim.md "MMIO"):
//   - a request the CPU issues in cycle t reaches the host port in cycle t + rt/2 (its AW
//     and W, or AR, are offered from then on); a read's data taken in cycle u reaches the
//     CPU in cycle u + (rt - rt/2). So a read costs the CPU rt cycles plus the NIC's own
//     AR-to-R time (2 cycles for status and registers) plus any wait for the port.
//   - writes are posted: the CPU pays only its issue time (the system's mmio_wr_cycles)
//     and goes on; up to max_posted writes may be unanswered (no B yet) before the CPU
//     stalls, as on a bus with write credits.
//   - ordering: requests take effect in program order. Writes are offered in order; a
//     read's AR is offered only when every earlier write has had its B response (the host
//     port makes a write visible to status reads by the time of its B, docs/qos.md).
//   - one write call = one INCR burst: beats of the largest size (8 bytes .. bus width)
//     that divides both the address and the length, strobes exactly the bytes addressed.
// The CPU's calls (post_*, read_done) come from the thread of the C API between cycles;
// drive and sample from the thread that runs the node (system.h).
#pragma once

#include <cstdint>
#include <cstring>

#include "diag.h"
#include "ring.h"

#ifndef QRDMA_SIM_HOST_DATA_W
#define QRDMA_SIM_HOST_DATA_W 256
#endif

class Vqrdma_nic;

namespace qsim {

class MmioPort {
 public:
  static constexpr unsigned kBusBytes = QRDMA_SIM_HOST_DATA_W / 8;
  static_assert(kBusBytes == 16 || kBusBytes == 32, "host port is 128 or 256 bits");

  MmioPort(unsigned node, unsigned rt_cycles, NodeLog &log);

  // Queue a write of len bytes (multiple of 8, 8-aligned, not crossing 4 KiB) issued by
  // the CPU in cycle now. Returns its sequence number (its B is the seq-th), or -1.
  int64_t post_write(uint64_t addr, const void *bytes, size_t len, uint64_t now);
  // Queue a 64-bit read issued in cycle now; its result comes with read_done().
  bool post_read(uint64_t addr, uint64_t now);
  // The oldest read's result, once it has reached the CPU by cycle now.
  bool read_done(uint64_t now, uint64_t *val, unsigned *resp);
  // The first cycle, from now on, by which the oldest outstanding read may have reached
  // the CPU: its data comes back rt - rt/2 cycles after its R beat, and the R beat of a
  // read whose AR is still queued comes at least one cycle after the AR is taken (the
  // NIC's outputs depend on its registers only), which is no earlier than it is offered.
  uint64_t read_done_bound(uint64_t now) const {
    uint64_t t = now;
    if (!rres_.empty())
      t = rres_.front().t;
    else if (!arf_.empty())
      t = now + d_resp_;
    else if (!arq_.empty())
      t = (arq_.front().t > now ? arq_.front().t : now) + 1 + d_resp_;
    return t < now ? now : t;
  }

  uint64_t writes_posted() const { return w_posted_; }
  uint64_t writes_answered() const { return b_count_; }
  unsigned last_bresp() const { return last_bresp_; }  // of write number writes_answered()-1
  uint64_t errors() const { return err_count_; }       // SLVERR/DECERR answers (B and R)
  bool idle() const {
    return awq_.empty() && wq_.empty() && arq_.empty() && arf_.empty() && rres_.empty();
  }
  // reads posted whose data has not reached the CPU (for state dumps)
  size_t reads_outstanding() const { return arq_.size() + arf_.size() + rres_.size(); }

  void drive(Vqrdma_nic &m, uint64_t now);
  void sample(Vqrdma_nic &m, uint64_t now);
  // drive then sample in one call, for the default cycle loop (as HostMem's)
  void drive_sample(Vqrdma_nic &m, uint64_t now);
  // The default flow's per-cycle call: drive_sample, skipped while the port has
  // nothing to offer before cycle wake_ (its valids lowered: the inputs it drove last still
  // hold) and the NIC offers no B or R. A template only so that this header needs no
  // definition of the model class.
  template <class Model>
  void cycle(Model &m, uint64_t now) {
    if (now >= wake_ || m.s_axi_bvalid || m.s_axi_rvalid) drive_sample(m, now);
  }

 private:
  struct Aw {
    uint32_t addr;
    uint8_t len, size;
    uint64_t t;  // cycle it reaches the port
  };
  struct W {
    uint8_t data[kBusBytes];
    uint32_t strb;
    uint8_t last;
    uint64_t t;
  };
  struct Ar {
    uint32_t addr;
    uint64_t t;
    uint64_t writes_before;  // writes posted before it: their B must come first
  };
  struct RRes {
    uint64_t val;
    uint64_t t;  // cycle it reaches the CPU
    uint8_t resp;
  };

  inline void drive_impl(Vqrdma_nic &m, uint64_t now);
  inline void sample_impl(Vqrdma_nic &m, uint64_t now);

  unsigned node_;
  unsigned d_req_, d_resp_;
  NodeLog &log_;
  Ring<Aw> awq_;
  Ring<W> wq_;
  Ring<Ar> arq_;
  Ring<Ar> arf_;   // ARs taken, waiting for R
  Ring<RRes> rres_;
  bool aw_offered_ = false, w_offered_ = false, ar_offered_ = false;
  bool primed_ = false;  // every input of the port driven once (drive's idle shortcut)
  uint64_t wake_ = 0;    // see cycle(): set by drive's idle shortcut, lowered by a request
  uint64_t w_key_ = ~0ull, w_seq_ = 0;  // which W beat is on s_axi_wdata
  uint64_t w_posted_ = 0, b_count_ = 0, err_count_ = 0;
  unsigned last_bresp_ = 0;
};

}  // namespace qsim
