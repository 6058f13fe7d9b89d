// Built with -fno-exceptions: every queue compiles and works; running out of memory would abort instead of throw.
#include <timing_wheel/timing_wheel.hpp>

#include <cstdio>
#include <memory>

template <class Queue>
static bool works() {
  Queue queue;
  queue.reserve(64);
  const auto first = queue.insert(5, std::make_unique<int>(1));
  queue.insert(3, std::make_unique<int>(2));
  if (!queue.reschedule(first, 7)) return false;
  int sum = 0;
  int order = 0;
  queue.advance(10, [&](timing_wheel::tick, std::unique_ptr<int>&& value) { sum += *value * ++order; });
  return sum == 2 * 1 + 1 * 2 && queue.empty() && !queue.pending(first);
}

int main() {
  using payload = std::unique_ptr<int>;
  const bool ok = works<timing_wheel::hierarchical_wheel<payload>>() && works<timing_wheel::min_heap<payload>>() &&
                  works<timing_wheel::flat_wheel<payload>>() &&
                  works<timing_wheel::hierarchical_wheel<payload, 4, 4, timing_wheel::precision::coarse>>();
  std::puts(ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
