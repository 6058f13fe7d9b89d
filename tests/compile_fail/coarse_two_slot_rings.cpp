// Must not compile: a coarse wheel with 2-slot rings (Bits = 1), whose lateness would be unbounded in practice.
#include <timing_wheel/hierarchical_wheel.hpp>

int main() {
  timing_wheel::hierarchical_wheel<int, 8, 1, timing_wheel::precision::coarse> timers;  // USER LINE
  timers.insert(5, 1);
}
