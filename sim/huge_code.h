// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The qrdma authors
//
// huge_code.h: the simulation's code and constants on transparent huge pages
// (docs/sim.md "Speed", "Code on huge pages").
#pragma once

namespace qsim {

// Moves the executable's read-only PT_LOAD segments (code, constant tables) onto anonymous
// memory advised for transparent huge pages, at the same addresses and with the same
// bytes and protections (never writable and executable at once). The executable must be
// linked with 2 MiB segment alignment (sim/Makefile HUGE_LDFLAGS); otherwise, with
// QRDMA_SIM_HUGE_CODE=0 in the environment, or when a step fails, the mapping stays as it
// was. Runs once per process (later calls return the first result); returns the bytes
// moved (0: none).
unsigned long huge_code();

}  // namespace qsim
