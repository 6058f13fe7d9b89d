// The TSC as a stopwatch for timing one operation alone (x86-64): calibrated against steady_clock, with the cost of
// an empty measurement subtracted. Shared by the latency programs (bench/latency.cpp, bench/reschedule_tail.cpp).
#pragma once

#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bench {

struct tsc {
  double ns_per_cycle = 1;
  std::uint64_t overhead = 0;  // cycles of an empty measurement

  static std::uint64_t now() noexcept {
    _mm_lfence();
    const std::uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
  }
  tsc() {
    const auto wall0 = std::chrono::steady_clock::now();
    const std::uint64_t c0 = now();
    while (std::chrono::steady_clock::now() - wall0 < std::chrono::milliseconds(100)) {
    }
    const std::uint64_t c1 = now();
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - wall0).count();
    ns_per_cycle = ns / static_cast<double>(c1 - c0);
    std::vector<std::uint64_t> empty(10'000);
    for (auto& e : empty) {
      const std::uint64_t a = now();
      e = now() - a;
    }
    std::nth_element(empty.begin(), empty.begin() + static_cast<std::ptrdiff_t>(empty.size() / 2), empty.end());
    overhead = empty[empty.size() / 2];
  }
  [[nodiscard]] float ns(std::uint64_t cycles) const {
    return static_cast<float>(static_cast<double>(cycles > overhead ? cycles - overhead : 0) * ns_per_cycle);
  }
};

}  // namespace bench
