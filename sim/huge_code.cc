// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// huge_code.cc: moves the executable's code and constants onto transparent huge pages.
//
// Why (docs/sim.md "Speed"): the model's per-cycle code (~110 KB) and its constant tables
// are read from the executable's file pages, wherever the page cache put them. On the
// shared machine this was measured on, copies of one binary ran consistently between
// -12 % and +12 % of their mean, copy against copy, and the same copy moved when the page
// cache was dropped; on one huge page (physically contiguous) every run of every copy is
// at the mean. The same technique as large-page text remapping in database and JIT runtimes.
#include "huge_code.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__linux__)
#include <link.h>
#include <sys/mman.h>
#endif

namespace qsim {
#if defined(__linux__)
namespace {

constexpr uintptr_t kHuge = uintptr_t(2) << 20;  // PMD size with 4 KiB pages (x86-64, arm64)
constexpr uintptr_t kPage = 4096;
constexpr unsigned kMaxSegs = 8;

struct Seg {
  uintptr_t start;  // 2 MiB aligned
  uintptr_t len;    // rounded up to 2 MiB: the rest is a hole in the original mapping
  uintptr_t bytes;  // mapped by the loader (memory size rounded up to a page)
  int prot;
};

struct Segs {
  unsigned n = 0;
  bool usable = true;  // every read-only segment 2 MiB aligned, at most kMaxSegs
  Seg seg[kMaxSegs];
};

int collect(struct dl_phdr_info *info, size_t, void *data) {
  Segs &s = *static_cast<Segs *>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_W)) continue;
    const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_align < kHuge || start % kHuge != 0 || s.n == kMaxSegs) {
      s.usable = false;
      continue;
    }
    Seg &g = s.seg[s.n++];
    g.start = start;
    g.len = (ph.p_memsz + kHuge - 1) & ~(kHuge - 1);
    g.bytes = (ph.p_memsz + kPage - 1) & ~(kPage - 1);
    g.prot = ((ph.p_flags & PF_R) ? PROT_READ : 0) | ((ph.p_flags & PF_X) ? PROT_EXEC : 0);
  }
  return 1;  // the first object is the executable
}

// Copy the segment into a fresh 2 MiB-aligned anonymous region advised for huge pages,
// give it the segment's protection, then move it over the segment: mremap replaces the
// mapping in one step, so code running in the segment (this function's caller, whose
// bytes are the same in both) goes on running.
bool move(const Seg &g) {
  void *raw = mmap(nullptr, g.len + kHuge, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return false;
  const uintptr_t r = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t a = (r + kHuge - 1) & ~(kHuge - 1);
  if (a > r) munmap(raw, a - r);
  if (r + kHuge > a) munmap(reinterpret_cast<void *>(a + g.len), r + kHuge - a);
  void *dst = reinterpret_cast<void *>(a);
  madvise(dst, g.len, MADV_HUGEPAGE);  // no THP in the kernel: plain pages, still correct
  std::memcpy(dst, reinterpret_cast<const void *>(g.start), g.bytes);
  if (mprotect(dst, g.len, g.prot) != 0 ||
      mremap(dst, g.len, g.len, MREMAP_MAYMOVE | MREMAP_FIXED,
             reinterpret_cast<void *>(g.start)) == MAP_FAILED) {
    munmap(dst, g.len);
    return false;
  }
  return true;
}

}  // namespace
#endif

unsigned long huge_code() {
#if !defined(__linux__)
  return 0;  // mremap, dl_iterate_phdr and transparent huge pages are Linux's
#else
  static bool done = false;
  static unsigned long moved = 0;
  if (done) return moved;
  done = true;
  const char *env = getenv("QRDMA_SIM_HUGE_CODE");
  if (env && !strcmp(env, "0")) return 0;
  Segs s;
  dl_iterate_phdr(collect, &s);
  if (!s.usable) return 0;
  for (unsigned i = 0; i < s.n; ++i)
    if (move(s.seg[i])) moved += s.seg[i].len;
  return moved;
#endif
}

}  // namespace qsim
