// A translation unit that instantiates every queue and includes every core header, for clang-tidy to read the
// headers through (scripts/lint).
#include <memory>
#include <string>
#include <timing_wheel/chrono.hpp>
#include <timing_wheel/concurrent.hpp>
#include <timing_wheel/eventfd.hpp>
#include <timing_wheel/timing_wheel.hpp>
int main() {
  timing_wheel::hierarchical_wheel<std::string> a;
  timing_wheel::hierarchical_wheel<int, 4, 4, timing_wheel::precision::coarse> b;
  timing_wheel::flat_wheel<std::unique_ptr<int>, 60> c;
  timing_wheel::min_heap<int> d;
  auto f = [](timing_wheel::tick, auto&&) {};
  a.insert(1, "x");
  b.insert(2, 3);
  c.insert(3, nullptr);
  d.insert(4, 5);
  auto h = a.insert(9, "y");
  a.reschedule(h, 10);
  b.reschedule({}, 1);
  c.reschedule({}, 1);
  d.reschedule({}, 1);
  (void)a.cancel(h);
  (void)b.cancel({});
  (void)c.cancel({});
  (void)d.cancel({});
  a.advance(100, f);
  b.advance(100, f);
  c.advance(100, f);
  d.advance(100, f);
  a.drain(f);
  b.drain(f);
  c.drain(f);
  d.drain(f);
  a.clear();
  b.clear();
  c.clear();
  d.clear();
  const bool consistent = a.check_invariants() && b.check_invariants();
  timing_wheel::timer_service<std::string> service;
  const auto now = std::chrono::steady_clock::now();
  auto once = service.schedule_after(std::chrono::seconds(1), "once");
  auto every = service.schedule_every(std::chrono::milliseconds(5), now, "every", timing_wheel::missed_period::burst);
  service.reschedule(once, now);
  service.reschedule(every, now);
  (void)service.cancel(once);
  service.poll(now + std::chrono::seconds(2), [](std::string&) {});
  (void)service.cancel(every);
  return consistent && service.timeout_ms(now) == -1 ? 0 : 1;
}
