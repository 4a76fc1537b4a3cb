// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// Diag: the harness's record of protocol errors it sees (an AXI rule broken by the NIC,
// an access outside host memory, a bad API call). Errors are counted, the first is kept
// for qrdma_sim_error_text(), the first few are printed to stderr with their cycle.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <string>

namespace qsim {

class Diag {
 public:
  static constexpr uint64_t kPrintMax = 20;
  const uint64_t *now = nullptr;  // the system clock, for messages

  void error(const char *fmt, ...) __attribute__((format(printf, 2, 3))) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char line[600];
    snprintf(line, sizeof line, "cycle %llu: %s",
             static_cast<unsigned long long>(now ? *now : 0), buf);
    if (count_ == 0) first_ = line;
    if (count_ < kPrintMax) fprintf(stderr, "qrdma_sim: error: %s\n", line);
    ++count_;
  }
  uint64_t count() const { return count_; }
  const char *first() const { return first_.c_str(); }

 private:
  uint64_t count_ = 0;
  std::string first_;
};

}  // namespace qsim
