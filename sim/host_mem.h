// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// HostMem: one node's host memory and the AXI4 slave that serves the NIC's 512-bit memory
// master (m_axi_*). Timing model (docs/sim.md "Host memory"):
//   - reads: a burst whose AR handshake is in cycle t offers its first R beat in cycle
//     t + rd_latency, then one beat per cycle (rready permitting), bursts in order; up to
//     max_bursts bursts outstanding (arready low beyond), enough for one beat per cycle.
//     Data is taken from memory when the beat is first offered.
//   - writes: W beats are taken one per cycle into a write buffer (wready low only when it
//     is full), with or before their AW. A burst is complete when its AW and its WLAST
//     beat have both been taken (cycle t); its bytes (by strobe) land in memory in cycle
//     t + wr_latency, and its B response is offered in that same cycle. So data the NIC
//     writes is visible to the CPU exactly when the NIC could know it is written.
// The store is one flat mmap'ed array (untouched pages cost nothing), addressed from 0.
// Checks (reported through the node's NodeLog, by category): INCR bursts only, size <= 64
// bytes, WLAST on beat AWLEN (QRDMA_SIM_ERR_AXI, SLVERR); no 4 KiB crossing
// (QRDMA_SIM_ERR_4K, SLVERR); every byte the burst addresses inside the memory
// (QRDMA_SIM_ERR_DECERR): else the burst is answered DECERR, a read with zeros on every
// beat, a write with nothing written. Everything here is the node's own: a node's thread
// runs it (system.h).
#pragma once

#include <cstdint>

#include "diag.h"
#include "ring.h"

class Vqrdma_nic;

namespace qsim {

class HostMem {
 public:
  HostMem(unsigned node, uint64_t bytes, unsigned rd_latency, unsigned wr_latency,
          unsigned max_bursts, NodeLog &log);
  ~HostMem();
  HostMem(const HostMem &) = delete;
  HostMem &operator=(const HostMem &) = delete;

  uint8_t *data() { return mem_; }
  uint64_t size() const { return size_; }
  // a CPU pointer to [addr, addr + len), nullptr if outside
  uint8_t *ptr(uint64_t addr, uint64_t len) {
    return (addr <= size_ && len <= size_ - addr) ? mem_ + addr : nullptr;
  }

  void drive(Vqrdma_nic &m, uint64_t now);   // inputs of cycle `now`
  void sample(Vqrdma_nic &m, uint64_t now);  // handshakes of cycle `now` (after eval)
  // drive then sample in one call: for the default cycle loop, where the model is not
  // evaluated between the two (its outputs are those of the last rising edge), so the
  // handshakes are the same; one call and one pass over this object's state instead of two
  void drive_sample(Vqrdma_nic &m, uint64_t now);
  // The default flow's per-cycle call: drive_sample, skipped while the memory is
  // quiet (nothing queued, the inputs it drove last those of an idle memory, which still
  // hold) and the NIC requests nothing. A template only so that this header needs no
  // definition of the model class.
  template <class Model>
  void cycle(Model &m, uint64_t now) {
    if (!quiet_ || m.m_axi_arvalid || m.m_axi_awvalid || m.m_axi_wvalid) drive_sample(m, now);
  }

  uint64_t read_beats() const { return r_beats_; }
  uint64_t write_beats() const { return w_beats_; }
  uint64_t read_bursts() const { return ar_bursts_; }    // AR taken
  uint64_t write_bursts() const { return aw_bursts_; }   // AW taken
  // R beats / B responses taken with response resp (0 OKAY, 2 SLVERR, 3 DECERR)
  uint64_t read_beats_resp(unsigned resp) const { return resp < 4 ? r_resp_beats_[resp] : 0; }
  uint64_t write_resps(unsigned resp) const { return resp < 4 ? b_resps_[resp] : 0; }
  bool idle() const {
    return rq_.empty() && awq_.empty() && wbuf_.empty() && pend_.empty() && bq_.empty();
  }
  // the last cycle with a handshake on AR, R, AW, W or B (0: none yet): the watchdog's
  // movement on this port
  uint64_t last_move() const { return last_move_; }
  // for state dumps: read bursts taken and not fully served; write bursts taken (AW) and
  // not answered, W beats held
  size_t reads_outstanding() const { return rq_.size(); }
  size_t writes_outstanding() const { return awq_.size() + pend_.size() + bq_.size(); }
  size_t write_beats_held() const { return wbuf_.size(); }
  // The first cycle, from cycle now on, in which the NIC's writes may change the memory:
  // a burst lands wr_latency cycles after it is complete, and none completes before now.
  uint64_t next_write(uint64_t now) const {
    uint64_t t = now + wr_latency_;
    if (!pend_.empty() && pend_.front().aw.t < t) t = pend_.front().aw.t;
    return t < now ? now : t;
  }

 private:
  struct Burst {
    uint64_t addr;
    uint64_t t;      // read: first cycle its data may be offered; write: when it lands
    uint16_t len;    // beats - 1
    uint8_t size;    // log2 bytes per beat
    uint8_t id;
    uint8_t resp;    // 0 OKAY, 2 SLVERR (protocol), 3 DECERR (outside memory)
  };
  struct WBeat {
    uint8_t data[64];
    uint64_t strb;
  };
  struct WDone {  // a W burst whose WLAST was taken
    uint32_t beats;
  };
  struct Pending {  // AW + W complete, waiting for wr_latency
    Burst aw;
    uint32_t beats;
  };
  struct BResp {
    uint8_t id, resp;
  };

  uint8_t check_burst(uint64_t now, const char *ch, uint64_t addr, unsigned len, unsigned size,
                      unsigned burst);
  uint64_t beat_addr(const Burst &b, unsigned i) const {
    if (i == 0) return b.addr;
    uint64_t bytes = 1ull << b.size;
    return (b.addr & ~(bytes - 1)) + i * bytes;
  }
  void apply(const Pending &p);
  inline void drive_impl(Vqrdma_nic &m, uint64_t now);
  inline void sample_impl(Vqrdma_nic &m, uint64_t now);

  unsigned node_;
  uint8_t *mem_ = nullptr;
  uint64_t size_ = 0;
  unsigned rd_latency_, wr_latency_, max_bursts_;
  NodeLog &log_;

  // read side
  Ring<Burst> rq_;
  unsigned r_beat_ = 0;       // beat of rq_.front() offered next
  bool r_loaded_ = false;     // m_axi_rdata holds that beat (an R handshake moves on)
  bool r_offered_ = false;    // rvalid driven in this cycle
  uint64_t r_beats_ = 0;
  uint64_t r_resp_beats_[4] = {};  // R beats taken, by RRESP
  uint64_t ar_bursts_ = 0;
  // write side
  Ring<Burst> awq_;
  Ring<WBeat> wbuf_;
  Ring<WDone> wdone_;
  Ring<Pending> pend_;
  Ring<BResp> bq_;
  uint32_t w_open_beats_ = 0;  // beats of the W burst being received
  bool b_offered_ = false;
  uint64_t w_beats_ = 0;
  uint64_t b_resps_[4] = {};  // B taken, by BRESP
  uint64_t aw_bursts_ = 0;
  bool quiet_ = false;  // see cycle()
  uint64_t last_move_ = 0;
};

}  // namespace qsim
