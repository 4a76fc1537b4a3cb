// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// Crew: the threads that run the nodes of a threaded system in quanta (docs/sim.md
// "Threads"). Member 0 is the thread that calls run(); members 1 .. size()-1 are threads
// started by the constructor. run(fn, arg, items) calls fn(arg, i) exactly once for every
// item i < items, on whichever member claims it first: member k claims its own items
// (k, k + size(), ...) first, keeping an item on the same thread from run to run, then
// any item left. So a member that is late (asleep, or not scheduled on a loaded machine)
// leaves its items to the others instead of holding the run up. run() returns when every
// item is done: everything the items wrote is then visible to the caller, and everything
// the caller wrote before run() is visible to them. Between runs the members spin for a
// short while (a run usually follows within microseconds), then sleep until the next.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

namespace qsim {

class Crew {
 public:
  using Fn = void (*)(void *arg, unsigned item);
  Crew(unsigned members, unsigned max_items);
  ~Crew();
  Crew(const Crew &) = delete;
  Crew &operator=(const Crew &) = delete;

  unsigned size() const { return static_cast<unsigned>(threads_.size()) + 1; }
  void run(Fn fn, void *arg, unsigned items);

 private:
  void member(unsigned k);
  void work(unsigned k, uint64_t run);
  // item i for run `run`: only once, and never by a member that woke up for a run that
  // is over (claims only go forward)
  bool claim(unsigned i, uint64_t run) {
    uint64_t r = slots_[i].run.load(std::memory_order_relaxed);
    return r < run && slots_[i].run.compare_exchange_strong(r, run, std::memory_order_acq_rel);
  }

  struct alignas(64) Slot {
    std::atomic<uint64_t> run{0};  // the run that claimed the item last
  };
  std::vector<std::thread> threads_;
  std::unique_ptr<Slot[]> slots_;
  unsigned max_items_;
  // the current run: written before go_ changes, read after
  Fn fn_ = nullptr;
  void *arg_ = nullptr;
  std::atomic<unsigned> items_{0};
  std::atomic<uint64_t> run_{0};
  std::atomic<bool> stop_{false};
  alignas(64) std::atomic<uint32_t> go_{0};    // a member starts a run when this changes
  alignas(64) std::atomic<uint32_t> left_{0};  // items of the current run not done
};

}  // namespace qsim
