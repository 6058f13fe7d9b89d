// Queues need little stack, whatever their shape: a thread with a 64 KB stack (musl's default is 128 KB; coroutines
// and fibers often run on less) keeps hierarchical wheels of every shape as locals (their slot lists live on the
// heap: the default 6 x 12 wheel is a few KB, not the 0.7 MB its lists take), and moves, move-assigns and clears
// every queue, then checks the timers fire as before. A queue whose lists lived inside the object, or a move that
// built a ring-sized temporary, overflows the stack and kills the program. Prints "ok" and exits 0 on success.
#include <timing_wheel/chrono.hpp>
#include <timing_wheel/timing_wheel.hpp>

#include <pthread.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace {

using timing_wheel::tick;

std::string failure;  // written by the small-stack thread, read after it is joined

void expect(bool ok, const std::string& what) {
  if (!ok && failure.empty()) failure = what;
}

// Timers at 10, 300, 70,000 and 2^40 (every level and, for small shapes, the overflow store) survive a move
// construction, a move assignment over a queue holding timers of its own, and fire in order; clear() empties.
template <class Queue>
void moves_and_clears(const std::string& name) {
  auto first = std::make_unique<Queue>();
  const std::vector<tick> deadlines{70'000, 10, tick{1} << 40, 300};
  for (const tick deadline : deadlines) first->insert(deadline, static_cast<int>(deadline % 1000));
  auto second = std::make_unique<Queue>(std::move(*first));
  expect(first->empty() && second->size() == deadlines.size(), name + ": move construction");
  auto third = std::make_unique<Queue>();
  third->insert(5, -1);
  *third = std::move(*second);
  expect(second->empty() && third->size() == deadlines.size(), name + ": move assignment");
  std::vector<tick> fired;
  third->advance(UINT64_MAX - 1, [&](tick due, int&&) { fired.push_back(due); });
  expect(fired == std::vector<tick>{10, 300, 70'000, tick{1} << 40}, name + ": the moved timers fire in order");
  first->insert(1, 1);
  first->clear();
  expect(first->empty() && !first->next_expiration(), name + ": clear()");
  expect(first->check_invariants() && third->check_invariants(), name + ": invariants");
}

// A wheel as a local: timers on every level fire in order, and a moved local keeps them.
template <class Queue>
void on_the_stack(const std::string& name) {
  Queue local;
  for (const tick deadline : {tick{70'000}, tick{10}, tick{1} << 40, tick{300}}) local.insert(deadline, 1);
  Queue moved(std::move(local));
  std::vector<tick> fired;
  moved.advance(UINT64_MAX - 1, [&](tick due, int&&) { fired.push_back(due); });
  expect(fired == std::vector<tick>{10, 300, 70'000, tick{1} << 40} && moved.check_invariants(),
         name + ": a local wheel fires its timers in order");
}

void* on_small_stack(void*) {
  on_the_stack<timing_wheel::hierarchical_wheel<int>>("local hierarchical_wheel<int>");
  on_the_stack<timing_wheel::hierarchical_wheel<int, 8, 8>>("local hierarchical_wheel<int, 8, 8>");
  on_the_stack<timing_wheel::hierarchical_wheel<int, 3, 10>>("local hierarchical_wheel<int, 3, 10>");
  on_the_stack<timing_wheel::hierarchical_wheel<int, 8, 8, timing_wheel::precision::coarse>>(
      "local hierarchical_wheel<int, 8, 8, coarse>");
  moves_and_clears<timing_wheel::hierarchical_wheel<int>>("hierarchical_wheel<int>");
  moves_and_clears<timing_wheel::hierarchical_wheel<int, 8, 8>>("hierarchical_wheel<int, 8, 8>");
  moves_and_clears<timing_wheel::hierarchical_wheel<int, 8, 8, timing_wheel::precision::coarse>>(
      "hierarchical_wheel<int, 8, 8, coarse>");
  moves_and_clears<timing_wheel::flat_wheel<int, 4096>>("flat_wheel<int, 4096>");
  moves_and_clears<timing_wheel::min_heap<int>>("min_heap<int>");
  using service = timing_wheel::timer_service<int>;
  const auto epoch = std::chrono::steady_clock::time_point{};
  auto a = std::make_unique<service>(epoch);
  a->schedule_at(epoch + std::chrono::seconds(3), 3);
  auto b = std::make_unique<service>(std::move(*a));
  auto c = std::make_unique<service>(epoch);
  *c = std::move(*b);
  int got = 0;
  c->poll(epoch + std::chrono::seconds(4), [&](int& value) { got = value; });
  expect(got == 3, "timer_service<int>: a moved service fires its timer");
  return nullptr;
}

}  // namespace

int main() {
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  if (pthread_attr_setstacksize(&attributes, 64 * 1024) != 0) {
    std::puts("cannot make a 64 KB stack");
    return 1;
  }
  pthread_t thread;
  if (pthread_create(&thread, &attributes, on_small_stack, nullptr) != 0) {
    std::puts("cannot start a thread");
    return 1;
  }
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attributes);
  if (!failure.empty()) {
    std::printf("failed: %s\n", failure.c_str());
    return 1;
  }
  std::puts("ok");
  return 0;
}
