// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// Network models of the harness: point-to-point links (N <= 2) and a simple router for
// N > 2 (see net.h).
#include "net.h"

#include <stdexcept>

#include "faults.h"
#include "qrdma_fmt.h"

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

SimpleRouter::SimpleRouter(unsigned nodes, unsigned latency, unsigned depth)
    : Network(nodes * nodes, latency, depth), n_(nodes), in_(nodes), out_(nodes) {}

// The destination is known only from the header beat, which is offered in the same cycle
// as tready is decided: a source may send when every link from it has room.
bool SimpleRouter::tx_ready(unsigned node) {
  for (unsigned d = 0; d < n_; ++d)
    if (lines_.empty() ? !link(node, d).can_push() : !line_ready(node * n_ + d)) return false;
  return true;
}

static unsigned hdr_dst_node(const Beat &b) {
  static_assert(QRDMA_NET_HDR_DST_NODE_LSB + QRDMA_NET_HDR_DST_NODE_W <= 32,
                "dst_node sits in the first 32 bits of the header");
  return (b.data[0] >> QRDMA_NET_HDR_DST_NODE_LSB) & ((1u << QRDMA_NET_HDR_DST_NODE_W) - 1);
}

void SimpleRouter::tx_push(unsigned node, const Beat &b, uint64_t now) {
  In &in = in_[node];
  if (!in.in_packet) {
    unsigned d = hdr_dst_node(b);
    in.dst = (d < n_ && d != node) ? static_cast<int>(d) : -1;
    if (in.dst < 0) ++in.dropped;
  }
  if (in.dst >= 0) {
    if (lines_.empty())
      link(node, static_cast<unsigned>(in.dst)).push(b, now);
    else
      line_push(node * n_ + static_cast<unsigned>(in.dst), b, now);
  }
  in.in_packet = !b.last;
}

const Beat *SimpleRouter::rx_peek(unsigned node, uint64_t now) {
  Out &o = out_[node];
  if (o.src >= 0) return link(static_cast<unsigned>(o.src), node).peek(now);
  for (unsigned k = 0; k < n_; ++k) {
    unsigned s = (o.rr + k) % n_;
    if (const Beat *b = link(s, node).peek(now)) {
      o.src = static_cast<int>(s);  // locked until the packet's last beat is taken
      o.rr = (s + 1) % n_;
      return b;
    }
  }
  return nullptr;
}

void SimpleRouter::rx_pop(unsigned node) {
  Out &o = out_[node];
  FifoLink &l = link(static_cast<unsigned>(o.src), node);
  bool last = l.front().last;  // the beat offered this cycle
  l.pop();
  if (last) o.src = -1;
}

}  // namespace qsim
