// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// Ring: a fixed-capacity FIFO (power-of-two slots, allocated once) used by every model of
// the harness, so that the per-cycle loop never allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace qsim {

template <typename T>
class Ring {
 public:
  explicit Ring(size_t min_capacity = 16) {
    size_t cap = 1;
    while (cap < min_capacity) cap <<= 1;
    buf_.resize(cap);
    mask_ = cap - 1;
  }
  size_t capacity() const { return mask_ + 1; }
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  bool full() const { return count_ > mask_; }
  T &front() { return buf_[head_]; }
  const T &front() const { return buf_[head_]; }
  // i-th entry from the head (0 = front)
  T &at(size_t i) { return buf_[(head_ + i) & mask_]; }
  const T &at(size_t i) const { return buf_[(head_ + i) & mask_]; }
  // slot of the next push: fill it, then commit with push()
  T &back_slot() { return buf_[(head_ + count_) & mask_]; }
  void push() { ++count_; }
  void push(const T &v) { back_slot() = v; ++count_; }
  void pop() { head_ = (head_ + 1) & mask_; --count_; }
  void pop(size_t k) { head_ = (head_ + k) & mask_; count_ -= k; }  // k <= size()
  void clear() { head_ = 0; count_ = 0; }

 private:
  std::vector<T> buf_;
  size_t mask_ = 0, head_ = 0, count_ = 0;
};

}  // namespace qsim
