// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// Crew: threads for the nodes' quanta (see crew.h).
#include "crew.h"

#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define QSIM_PAUSE() _mm_pause()
#elif defined(__aarch64__)
#define QSIM_PAUSE() __asm__ __volatile__("yield")
#else
#define QSIM_PAUSE() ((void)0)
#endif

namespace qsim {

namespace {
// How long a waiting thread spins before it sleeps: longer than the usual gap between two
// quanta (the calling thread's work between them), short against a scheduler time slice.
constexpr int64_t kSpinNs = 50000;

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

// Wait until a changes from v: spin, then sleep (futex through std::atomic::wait).
void await_change(const std::atomic<uint32_t> &a, uint32_t v) {
  const int64_t t0 = now_ns();
  for (unsigned k = 1;; ++k) {
    if (a.load(std::memory_order_acquire) != v) return;
    QSIM_PAUSE();
    if (k % 16 == 0 && now_ns() - t0 > kSpinNs) break;
  }
  while (a.load(std::memory_order_acquire) == v) a.wait(v, std::memory_order_acquire);
}
}  // namespace

Crew::Crew(unsigned members, unsigned max_items)
    : slots_(new Slot[max_items]), max_items_(max_items) {
  for (unsigned k = 1; k < members; ++k) threads_.emplace_back(&Crew::member, this, k);
}

Crew::~Crew() {
  stop_.store(true, std::memory_order_relaxed);
  go_.fetch_add(1, std::memory_order_release);
  go_.notify_all();
  for (std::thread &t : threads_) t.join();
}

void Crew::run(Fn fn, void *arg, unsigned items) {
  if (items > max_items_) items = max_items_;
  fn_ = fn;
  arg_ = arg;
  items_.store(items, std::memory_order_relaxed);
  left_.store(items, std::memory_order_relaxed);
  const uint64_t run = run_.load(std::memory_order_relaxed) + 1;
  run_.store(run, std::memory_order_release);  // with the above: what a member sees of it
  go_.fetch_add(1, std::memory_order_release);
  go_.notify_all();
  work(0, run);
  for (uint32_t v; (v = left_.load(std::memory_order_acquire)) != 0;) await_change(left_, v);
}

// Member k's share of a run: its own items, then any item nobody has claimed.
void Crew::work(unsigned k, uint64_t run) {
  const unsigned n = items_.load(std::memory_order_relaxed), step = size();
  uint32_t done = 0;
  for (unsigned i = k; i < n; i += step)
    if (claim(i, run)) {
      fn_(arg_, i);
      ++done;
    }
  for (unsigned i = 0; i < n; ++i)
    if (i % step != k && claim(i, run)) {
      fn_(arg_, i);
      ++done;
    }
  if (done && left_.fetch_sub(done, std::memory_order_acq_rel) == done) left_.notify_one();
}

void Crew::member(unsigned k) {
  uint32_t seen = 0;  // go_ before the first run (the thread may start after it)
  for (;;) {
    await_change(go_, seen);
    seen = go_.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_relaxed)) return;
    work(k, run_.load(std::memory_order_acquire));
  }
}

}  // namespace qsim
