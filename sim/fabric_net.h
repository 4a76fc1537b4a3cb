// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// FabricStar: the harness's networks through the switch RTL (docs/sim.md "Links"): a
// Verilated fabric model clocked with the nodes, and a FifoLink of the harness's link
// latency each way on every link of the model. Node i's NIC takes its transmit readiness,
// its receive beat and its per-destination pause from its end of the fabric; the NIC's
// handshakes of a cycle become the end's inputs at the same edge. The model is one for
// all nodes, so the nodes run in lockstep (no threads). Three models with the same ports:
// the star (Vqrdma_fabric_star, sim/qrdma_fabric_star.sv: one switch), the planes
// (Vqrdma_fabric_planes, the same RTL with PLANES = QRDMA_SIM_FAB_PLANES) and the dumbbell
// (Vqrdma_fabric_dumbbell, sim/qrdma_fabric_dumbbell.sv: two switches and a trunk).
#pragma once

#include <memory>

#include "net.h"

class VerilatedContext;

namespace qsim {

enum class FabricTopo { kStar, kPlanes, kDumbbell };

// planes: QRDMA_SIM_FAB_PLANES for kPlanes (1 otherwise); link_div: the links carry a beat
// in one cycle of every link_div (0, 1: every cycle)
std::unique_ptr<Network> make_fabric(unsigned nodes, FabricTopo topo, unsigned planes,
                                     unsigned latency, unsigned depth, unsigned link_div);

template <class M>
class FabricStar final : public Network {
 public:
  FabricStar(unsigned nodes, FabricTopo topo, unsigned planes, unsigned latency,
             unsigned depth, unsigned link_div);
  ~FabricStar() override;
  bool tx_ready(unsigned node) override;
  void tx_push(unsigned node, const Beat &b, uint64_t now) override;
  const Beat *rx_peek(unsigned node, uint64_t now) override;
  void rx_pop(unsigned node) override;
  uint64_t pause(unsigned node) const override;
  void reset(bool high) override;
  bool end_cycle(uint64_t now) override;
  bool idle() const override { return beats_in_ == beats_out_; }
  bool lockstep_only() const override { return true; }
  void tick(unsigned, uint64_t) override {}
  uint64_t dropped_packets() const override;
  const char *name() const override {
    return topo_ == FabricTopo::kDumbbell ? "dumbbell" : planes_ > 1 ? "planes" : "star";
  }
  LinkState link_state(unsigned k, uint64_t now) const override;

 private:
  FabricTopo topo_;
  // links_: [0, L) the model's up_* -> sw_in_*, [L, 2L) sw_out_* -> dn_*; the star and
  // planes: L = planes x ports, link k: plane k / ports, node k % ports; the dumbbell:
  // L = ports + 1, link k < ports node k's (on switch k % 2), link ports the trunk (up:
  // switch 0 -> 1)
  unsigned ports_, planes_, L_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<M> m_;
  std::vector<Beat> rx_;          // the beat each port offers its NIC this cycle
  std::vector<uint8_t> rx_valid_;
  uint64_t beats_in_ = 0, beats_out_ = 0;
};

}  // namespace qsim
