#include <timing_wheel/timing_wheel.hpp>

#include <cstdio>
#include <string>

int main() {
  timing_wheel::hierarchical_wheel<std::string> timers;  // 6 levels x 4,096 slots, exact, now() == 0

  timers.insert(250, "flush the log");
  auto heartbeat = timers.insert(1'000, "send heartbeat");
  timers.insert(100'000, "close idle session");
  timers.reschedule(heartbeat, 1'500);  // O(1): activity pushes the deadline back

  while (auto next = timers.next_expiration()) {  // an event loop sleeps until *next
    timers.advance(*next, [](timing_wheel::tick deadline, std::string&& what) {
      std::printf("t=%llu  %s\n", static_cast<unsigned long long>(deadline), what.c_str());
    });
  }
}
