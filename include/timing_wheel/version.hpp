// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

// The single source of the library's version: CMake reads these three lines.
#define TIMING_WHEEL_VERSION_MAJOR 0
#define TIMING_WHEEL_VERSION_MINOR 1
#define TIMING_WHEEL_VERSION_PATCH 0

#define TIMING_WHEEL_VERSION \
  (TIMING_WHEEL_VERSION_MAJOR * 10000 + TIMING_WHEEL_VERSION_MINOR * 100 + TIMING_WHEEL_VERSION_PATCH)
