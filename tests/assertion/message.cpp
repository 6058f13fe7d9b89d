// With the default TIMING_WHEEL_ASSERT, advance() from inside a callback stops the program with a message in the
// user's words (the test passes when stderr says so; this program aborts).
#undef NDEBUG
#include <timing_wheel/hierarchical_wheel.hpp>

#include <cstdio>

int main() {
  timing_wheel::hierarchical_wheel<int> timers;
  timers.insert(1, 1);
  timers.advance(5, [&](timing_wheel::tick, int&&) { timers.advance(6, [](int&&) {}); });
  std::puts("advance() from a callback was not caught");
  return 1;
}
