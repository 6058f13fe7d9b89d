// Scale: holds N live timers, cancels half of them at random, fires the rest, and checks that every timer was fired
// or cancelled exactly once, never early, in order. Prints the time and peak memory.
//   stress [--timers N] [--seed S]      (CI runs N = 10^6; the 10^8 run needs about 5 GB)
#include "support/random_ops.hpp"

#include <timing_wheel/hierarchical_wheel.hpp>

#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {
using timing_wheel::tick;
using timing_wheel_test::mix;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

int main(int argc, char** argv) {
  std::uint64_t timers = 1'000'000;
  std::uint64_t seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--timers") == 0) timers = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--seed") == 0) seed = std::strtoull(argv[i + 1], nullptr, 10);
  }
  if (timers == 0 || timers >= UINT32_MAX) {
    std::fprintf(stderr, "--timers must be between 1 and 2^32 - 2\n");
    return 2;
  }
  const auto n = static_cast<std::uint32_t>(timers);
  constexpr tick span = tick{1} << 30;  // deadlines over ~12 days of 1 ms ticks
  const auto deadline_of = [&](std::uint32_t id) { return 1 + mix(id ^ (seed << 32)) % span; };

  const auto start = std::chrono::steady_clock::now();
  timing_wheel::hierarchical_wheel<std::uint32_t> wheel;
  wheel.reserve(n);
  std::vector<timing_wheel::timer_handle> handles(n);
  for (std::uint32_t id = 0; id < n; ++id) handles[id] = wheel.insert(deadline_of(id), id);
  const double inserted = seconds_since(start);

  std::vector<std::uint8_t> outcome(n, 0);  // 1 cancelled, 2 fired
  std::uint64_t problems = 0;
  for (std::uint64_t k = 0; k < n / 2; ++k) {  // cancel half, in random order (a permutation by multiplication)
    const auto id = static_cast<std::uint32_t>((k * 0x9E3779B1ULL + seed) % n);
    const auto value = wheel.cancel(handles[id]);
    if (!value || *value != id || outcome[id] != 0) ++problems;
    outcome[id] = 1;
  }
  const double cancelled = seconds_since(start);

  tick last = 0;
  std::uint64_t fired = 0;
  const auto on_expire = [&](tick deadline, std::uint32_t&& id) {
    ++fired;
    if (outcome[id] != 0 || deadline != deadline_of(id) || wheel.now() != deadline || deadline < last) ++problems;
    outcome[id] = 2;
    last = deadline;
  };
  for (tick to = 0; to < span; to += span / 1024) wheel.advance(to, on_expire);  // about 12 minutes per step
  wheel.advance(span, on_expire);
  const double done = seconds_since(start);

  std::uint64_t unaccounted = 0;
  for (std::uint32_t id = 0; id < n; ++id)
    if (outcome[id] == 0) ++unaccounted;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const bool ok = problems == 0 && unaccounted == 0 && wheel.empty() && fired + n / 2 == n;
  std::printf(
      "timers %llu: insert %.2f s, cancel half %.2f s, fire the rest %.2f s (fired %llu), total %.2f s, "
      "peak RSS %.0f MiB, %.1f bytes per timer\n",
      static_cast<unsigned long long>(n), inserted, cancelled - inserted, done - cancelled,
      static_cast<unsigned long long>(fired), done, static_cast<double>(usage.ru_maxrss) / 1024.0,
      static_cast<double>(usage.ru_maxrss) * 1024.0 / static_cast<double>(n));
  std::printf("every timer fired or cancelled exactly once: %s (%llu problems, %llu unaccounted)\n", ok ? "yes" : "NO",
              static_cast<unsigned long long>(problems), static_cast<unsigned long long>(unaccounted));
  return ok ? 0 : 1;
}
