// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// Network models of the harness: point-to-point links (N <= 2) and a simple router for
// N > 2 (see net.h).
#include "net.h"

#include <stdexcept>

#include "qrdma_fmt.h"

namespace qsim {

PointToPoint::PointToPoint(unsigned nodes, unsigned latency, unsigned depth) {
  if (nodes < 1 || nodes > 2) throw std::invalid_argument("PointToPoint: 1 or 2 nodes");
  for (unsigned i = 0; i < nodes; ++i) link_.emplace_back(latency, depth);
  peer_[0] = nodes == 2 ? 1 : 0;
  peer_[1] = 0;
}

SimpleRouter::SimpleRouter(unsigned nodes, unsigned latency, unsigned depth)
    : n_(nodes), in_(nodes), out_(nodes) {
  links_.reserve(static_cast<size_t>(nodes) * nodes);
  for (unsigned i = 0; i < nodes * nodes; ++i) links_.emplace_back(latency, depth);
}

// The destination is known only from the header beat, which is offered in the same cycle
// as tready is decided: a source may send when every link from it has room.
bool SimpleRouter::tx_ready(unsigned node, uint64_t) {
  for (unsigned d = 0; d < n_; ++d)
    if (!link(node, d).can_push()) return false;
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
    if (in.dst < 0) ++dropped_;
  }
  if (in.dst >= 0) link(node, static_cast<unsigned>(in.dst)).push(b, now);
  in.in_packet = !b.last;
  last_move_ = now;
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

void SimpleRouter::rx_pop(unsigned node, uint64_t now) {
  Out &o = out_[node];
  FifoLink &l = link(static_cast<unsigned>(o.src), node);
  bool last = l.peek(UINT64_MAX)->last;  // the beat offered this cycle (due by now)
  l.pop();
  if (last) o.src = -1;
  last_move_ = now;
}

}  // namespace qsim
