// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// MmioPort: the CPU side of one node's host port, an AXI4 master driving the NIC's
// s_axi_* (HOST_DATA_W bits, ID 0, in order). Model (docs/sim.md "MMIO"):
//   - the CPU has kMaxCores cores, each with its own stream of requests and its own clock
//     (the cycle from which its next request issues, never before now). A request a core
//     issues in cycle t reaches the host port in cycle t + rt/2; a read's data taken in
//     cycle u reaches the core in cycle u + (rt - rt/2). So a read costs its core rt cycles
//     plus the NIC's own AR-to-R time (3 cycles for status and registers) plus any wait for
//     the port.
//   - writes are posted: a core pays only its issue time (the system's mmio_wr_cycles)
//     and goes on; up to max_posted writes of a core may be unanswered (no B yet) before
//     that core stalls, as on a bus with write credits.
//   - ordering: each core's requests take effect in its program order. A core's writes are
//     offered in order; its read's AR is offered only when every earlier write of the same
//     core has had its B response (the host port makes a write visible to status reads by
//     the time of its B, docs/qos.md). Other cores' requests never wait for it.
//   - arbitration: the port serves writes in the order they reach it, writes reaching it in
//     the same cycle in core order (lowest first); of the reads that may go (reached the
//     port, their core's writes answered), the one that reached it first, ties in core
//     order, is offered on AR and kept there until taken.
//   - one write call = one INCR burst: beats of the largest size (8 bytes .. bus width)
//     that divides both the address and the length, strobes exactly the bytes addressed.
// With one core (core 0, the calls of qrdma_sim.h without a core) this is one in-order
// stream. The CPU's calls (post_*, read_done) come from the thread of the C API between
// cycles; drive and sample from the thread that runs the node (system.h).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>

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
  // cores of the CPU (QRDMA_SIM_MAX_CORES in qrdma_sim.h)
  static constexpr unsigned kMaxCores = 16;

  MmioPort(unsigned node, unsigned rt_cycles, NodeLog &log);
  ~MmioPort();

  // The cycle from which the core's next request issues: its clock, or now if that is later.
  uint64_t issue_cycle(unsigned core, uint64_t now) const {
    uint64_t c = cores_[core] ? cores_[core]->clock : 0;
    return c > now ? c : now;
  }
  // The core is busy issuing until cycle t (set by the caller after a request).
  void set_clock(unsigned core, uint64_t t) { use(core).clock = t; }
  // Queue a write of len bytes (multiple of 8, 8-aligned, not crossing 4 KiB) issued by
  // the core in cycle `issue` (>= now). Returns its sequence number among the core's
  // writes (its B is the seq-th of the core), or -1.
  int64_t post_write(unsigned core, uint64_t addr, const void *bytes, size_t len,
                     uint64_t issue);
  // Queue a 64-bit read issued by the core in cycle `issue`; its result comes with read_done().
  bool post_read(unsigned core, uint64_t addr, uint64_t issue);
  // The core's oldest read's result, once it has reached the CPU by cycle now; the core's
  // clock moves to the cycle it arrived in.
  bool read_done(unsigned core, uint64_t now, uint64_t *val, unsigned *resp);
  // The first cycle, from now on, by which the core's oldest outstanding read may have
  // reached the CPU: its data comes back rt - rt/2 cycles after its R beat, and the R beat
  // of a read whose AR is still queued comes at least one cycle after the AR is taken (the
  // NIC's outputs depend on its registers only), which is no earlier than it is offered.
  uint64_t read_done_bound(unsigned core, uint64_t now) const;
  // reads of the core posted whose data it has not taken with read_done
  size_t reads_pending(unsigned core) const {
    const Core *c = cores_[core].get();
    return c ? c->arq.size() + c->r_taken + c->rres.size() : 0;
  }

  uint64_t writes_posted() const { return w_posted_; }
  uint64_t writes_answered() const { return b_count_; }
  uint64_t writes_posted(unsigned core) const { return cores_[core] ? cores_[core]->posted : 0; }
  uint64_t writes_answered(unsigned core) const {
    return cores_[core] ? cores_[core]->answered : 0;
  }
  // of the core's write number writes_answered(core)-1
  unsigned last_bresp(unsigned core) const {
    return cores_[core] ? cores_[core]->last_bresp : 0;
  }
  uint64_t errors() const { return err_count_; }       // SLVERR/DECERR answers (B and R)
  bool idle() const;
  // reads posted whose data has not reached the CPU (for state dumps)
  size_t reads_outstanding() const;

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
    uint8_t len, size, core;
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
    uint8_t core;
    uint64_t t;
    uint64_t writes_before;  // writes of its core posted before it: their B must come first
  };
  struct RRes {
    uint64_t val;
    uint64_t t;  // cycle it reaches the CPU
    uint8_t resp;
  };
  // One core's requests on their way to the port (in issue order, so in time order) and
  // its read results on their way back.
  struct Core {
    Core() : awq(1024), wq(4096), arq(64), rres(64) {}
    Ring<Aw> awq;
    Ring<W> wq;
    Ring<Ar> arq;     // reads not yet taken by the port (AR)
    Ring<RRes> rres;
    uint64_t posted = 0, answered = 0, clock = 0;
    unsigned r_taken = 0;  // reads taken (AR), R not yet
    unsigned last_bresp = 0;
  };

  Core &use(unsigned core) {
    if (!cores_[core]) cores_[core].reset(new Core());
    if (core >= ncores_) ncores_ = core + 1;
    return *cores_[core];
  }
  void merge_writes(uint64_t now);
  int pick_read(uint64_t now) const;
  uint64_t next_wake() const;
  inline void drive_impl(Vqrdma_nic &m, uint64_t now);
  inline void sample_impl(Vqrdma_nic &m, uint64_t now);

  unsigned node_;
  unsigned d_req_, d_resp_;
  NodeLog &log_;
  std::unique_ptr<Core> cores_[kMaxCores];
  unsigned ncores_ = 1;  // cores used: 0 .. ncores_-1 may have requests
  // at the port: writes that have reached it (every core's, in arrival order), reads
  // taken waiting for R, and the core of every write taken whose B has not come
  Ring<Aw> awq_;
  Ring<W> wq_;
  Ring<Ar> arf_;
  Ring<uint8_t> bown_;
  int ar_core_ = -1;  // the core whose read is on AR (offered until taken)
  bool aw_offered_ = false, w_offered_ = false, ar_offered_ = false;
  bool primed_ = false;  // every input of the port driven once (drive's idle shortcut)
  uint64_t wake_ = 0;    // see cycle(): set by drive's idle shortcut, lowered by a request
  uint64_t w_key_ = ~0ull, w_seq_ = 0;  // which W beat is on s_axi_wdata
  uint64_t w_posted_ = 0, b_count_ = 0, err_count_ = 0;
};

}  // namespace qsim
