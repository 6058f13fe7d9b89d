#include <timing_wheel/timing_wheel.hpp>

#include <cstdio>

int main() {
  timing_wheel::hierarchical_wheel<int> timers;
  timers.insert(42, 1);
  const auto fired = timers.advance(42, [](timing_wheel::tick deadline, int&&) {
    std::printf("timing_wheel %d.%d.%d: fired at %llu\n", TIMING_WHEEL_VERSION_MAJOR, TIMING_WHEEL_VERSION_MINOR,
                TIMING_WHEEL_VERSION_PATCH, static_cast<unsigned long long>(deadline));
  });
  return fired == 1 ? 0 : 1;
}
