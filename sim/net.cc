// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// The network of the harness without a switch: point-to-point links (N <= 2; see net.h).
#include "net.h"

#include <stdexcept>

#include "faults.h"

namespace qsim {

FifoLink::FifoLink(unsigned latency, unsigned depth) : latency_(latency), depth_(depth) {
  uint64_t cap = 1;
  while (cap < depth_) cap <<= 1;
  ring_.resize(cap);
  mask_ = cap - 1;
}

Network::Network(unsigned links, unsigned latency, unsigned depth) : latency_(latency) {
  links_.reserve(links);
  for (unsigned i = 0; i < links; ++i) links_.emplace_back(latency, depth);
}

Network::~Network() = default;

void Network::set_faults(std::vector<std::unique_ptr<FaultLine>> lines) {
  lines_ = std::move(lines);
  lines_.resize(links_.size());
}

bool Network::lines_idle() const {
  for (const auto &l : lines_)
    if (l && !l->idle()) return false;
  return true;
}

bool Network::line_ready(unsigned k) const {
  return lines_[k] ? lines_[k]->can_take() : links_[k].can_push();
}

void Network::line_push(unsigned k, const Beat &b, uint64_t now) {
  if (lines_[k])
    lines_[k]->take(b, now);
  else
    links_[k].push(b, now);
}

void Network::line_tick(unsigned k, uint64_t now) {
  if (lines_[k]) lines_[k]->tick(links_[k], now);
}

PointToPoint::PointToPoint(unsigned nodes, unsigned latency, unsigned depth)
    : Network(nodes, latency, depth) {
  if (nodes < 1 || nodes > 2) throw std::invalid_argument("PointToPoint: 1 or 2 nodes");
  peer_[0] = nodes == 2 ? 1 : 0;
  peer_[1] = 0;
}

}  // namespace qsim
