// A single-threaded queue entered by a second thread while a first is inside it: a debug build stops with a message
// in the user's words (the test passes when the output says so; this program aborts). It races an inserting thread
// against an advancing one until the check trips, for at most 20 seconds.
#undef NDEBUG
#include <timing_wheel/hierarchical_wheel.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

int main() {
  timing_wheel::hierarchical_wheel<int> timers;
  std::atomic<bool> stop{false};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  std::thread inserter([&] {
    for (timing_wheel::tick t = 0; !stop.load(std::memory_order_relaxed); ++t) timers.insert(t % 100'000, 1);
  });
  for (timing_wheel::tick t = 0; std::chrono::steady_clock::now() < deadline; t += 10) {
    timers.advance(t, [](int&&) {});
  }
  stop = true;
  inserter.join();
  std::puts("two threads on one queue were not caught");
  return 1;
}
