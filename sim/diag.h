// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// Diag: the harness's record of the errors it sees, by category (qrdma_sim_error_cat of
// qrdma_sim.h: an AXI rule broken by a NIC, an access outside host memory, a 4 KiB
// crossing, a bad API call, an RTL assertion). Errors are counted per category; the first
// of each category is kept for qrdma_sim_error_first() and the first of all for
// qrdma_sim_error_text(); the first few of all, and the first of each category, are
// printed to stderr with their cycle.
// NodeLog: how a node's models report errors. Outside threaded quanta it passes each error
// on to the Diag at once; inside one (system.h) it keeps them, and the system hands them
// to the Diag after the quantum in the order a lockstep run gives them (by cycle, then by
// node), so that counts, first messages and what is printed are the same either way.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "qrdma_sim.h"

namespace qsim {

class Diag {
 public:
  static constexpr uint64_t kPrintMax = 20;
  static constexpr unsigned kCats = QRDMA_SIM_ERR_NUM_CATS;
  const uint64_t *now = nullptr;  // the system clock, for messages of error()

  // an error in the cycle the system clock shows
  void error(qrdma_sim_error_cat cat, const char *fmt, ...)
      __attribute__((format(printf, 3, 4))) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    record(now ? *now : 0, cat, buf);
  }
  // an error in cycle t
  void record(uint64_t t, qrdma_sim_error_cat cat, const char *text) {
    const unsigned c = static_cast<unsigned>(cat) < kCats ? static_cast<unsigned>(cat) : 0;
    char line[600];
    snprintf(line, sizeof line, "cycle %llu: %s", static_cast<unsigned long long>(t), text);
    if (total_ == 0) first_ = line;
    if (count_[c] == 0) first_cat_[c] = line;
    if (total_ < kPrintMax || count_[c] == 0)
      fprintf(stderr, "qrdma_sim: error (%s): %s\n",
              qrdma_sim_error_cat_name(static_cast<qrdma_sim_error_cat>(c)), line);
    ++count_[c];
    ++total_;
  }
  uint64_t count() const { return total_; }
  const char *first() const { return first_.c_str(); }
  uint64_t count(qrdma_sim_error_cat cat) const {
    return static_cast<unsigned>(cat) < kCats ? count_[cat] : 0;
  }
  const char *first(qrdma_sim_error_cat cat) const {
    return static_cast<unsigned>(cat) < kCats ? first_cat_[cat].c_str() : "";
  }

 private:
  uint64_t total_ = 0;
  uint64_t count_[kCats] = {};
  std::string first_;
  std::string first_cat_[kCats];
};

class NodeLog {
 public:
  struct Entry {
    uint64_t t;
    qrdma_sim_error_cat cat;
    std::string text;
  };
  explicit NodeLog(Diag &diag) : diag_(diag) {}

  // an error of this node in cycle t
  void error(uint64_t t, qrdma_sim_error_cat cat, const char *fmt, ...)
      __attribute__((format(printf, 4, 5))) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (keep_)
      kept_.push_back(Entry{t, cat, buf});
    else
      diag_.record(t, cat, buf);
  }
  // keep errors from now on (a threaded quantum starts), or pass them on again
  void keep(bool on) { keep_ = on; }
  // the kept errors, oldest first; the system empties it after passing them on
  std::vector<Entry> &kept() { return kept_; }

 private:
  Diag &diag_;
  bool keep_ = false;
  std::vector<Entry> kept_;
};

}  // namespace qsim
