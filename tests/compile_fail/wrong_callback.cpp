// Must not compile: advance() is given a callback taking the payload by lvalue reference. The build of this file is
// expected to fail at the marked line with a diagnostic naming timing_wheel::expiry_callback (expect_error.cmake).
#include <timing_wheel/timing_wheel.hpp>

#include <string>

int main() {
  timing_wheel::hierarchical_wheel<std::string> timers;
  timers.insert(5, "x");
  timers.advance(10, [](std::string&) {});  // USER LINE
}
