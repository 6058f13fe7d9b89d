#include "support/catch.hpp"
#include "support/helpers.hpp"
#include "support/queues.hpp"
#include "support/random_ops.hpp"

#include <timing_wheel/hierarchical_wheel.hpp>
#include <timing_wheel/min_heap.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

using namespace timing_wheel_test;
using timing_wheel::tick;

TEMPLATE_LIST_TEST_CASE("equal due times stay first-in first-out across a cascade", "[order]", exact_queues<int>) {
  // In a wheel of 8-slot levels, timer 1 (due 100, inserted at 0) waits in level 2 and cascades twice; 2 is
  // inserted at 64 into level 1, 3 at 96 into level 0, 4 at 99.
  TestType q(0);
  q.insert(100, 1);
  q.advance(64, [](tick, int&&) {});
  q.insert(100, 2);
  q.advance(96, [](tick, int&&) {});
  q.insert(100, 3);
  q.advance(99, [](tick, int&&) {});
  q.insert(100, 4);
  CHECK(values(advance_collect(q, 100)) == std::vector<int>{1, 2, 3, 4});
}

TEMPLATE_LIST_TEST_CASE("equal due times stay first-in first-out across the overflow store", "[order]",
                        exact_queues<int>) {
  TestType q(0);
  const tick far = (tick{1} << 40) + 12345;  // beyond the horizon of the small wheels
  q.insert(far, 1);
  q.insert(far - 1, 0);
  q.advance(far - 100, [](tick, int&&) {});
  q.insert(far, 2);
  q.insert(far, 3);
  CHECK(values(advance_collect(q, far)) == std::vector<int>{0, 1, 2, 3});
}

TEMPLATE_LIST_TEST_CASE("timers fire in due order whatever order they were inserted in", "[order]", exact_queues<int>) {
  TestType q(17);
  std::vector<int> expected;
  for (int i = 0; i < 600; ++i) {
    q.insert(17 + static_cast<tick>((i * 7919) % 600) * 37, i);
  }
  for (int k = 0; k < 600; ++k) {
    for (int i = 0; i < 600; ++i) {
      if ((i * 7919) % 600 == k) expected.push_back(i);
    }
  }
  CHECK(values(advance_collect(q, 1'000'000)) == expected);
}

namespace {
// Clustered due times (many equal, some far) and mostly one-tick advances, so that spread cascades, coinciding
// span boundaries and late insertions into a span already moving down all meet. Returns the first differing step.
template <class Wheel>
int clustered_run(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Wheel wheel;
  timing_wheel::min_heap<int> reference;
  std::vector<timing_wheel::timer_handle> in_wheel;
  std::vector<timing_wheel::timer_handle> in_reference;
  std::vector<std::pair<tick, int>> fired;
  std::vector<std::pair<tick, int>> expected;
  for (int step = 0; step < 3000; ++step) {
    const std::uint64_t op = rng() % 10;
    if (op < 6) {
      const tick due = wheel.now() + (rng() % 4 == 0 ? rng() % (1U << (rng() % 9)) : 40 + rng() % 8);
      in_wheel.push_back(wheel.insert(due, step));
      in_reference.push_back(reference.insert(due, step));
    } else if (op < 7) {
      if (in_wheel.empty()) continue;
      const std::size_t which = rng() % in_wheel.size();
      static_cast<void>(wheel.cancel(in_wheel[which]));
      static_cast<void>(reference.cancel(in_reference[which]));
    } else {
      const tick to = wheel.now() + (rng() % 3 == 0 ? rng() % 40 : rng() % 2);
      wheel.advance(to, [&](tick due, int&& id) { fired.emplace_back(due, id); });
      reference.advance(to, [&](tick due, int&& id) { expected.emplace_back(due, id); });
      if (fired != expected) return step;
    }
  }
  return wheel.check_invariants() ? -1 : 3000;
}
}  // namespace

TEMPLATE_TEST_CASE("exact wheels keep due-time and FIFO order through spread cascades", "[order][cascade]",
                   (timing_wheel::hierarchical_wheel<int, 3, 2>), (timing_wheel::hierarchical_wheel<int, 4, 2>),
                   (timing_wheel::hierarchical_wheel<int, 3, 3>), (timing_wheel::hierarchical_wheel<int, 2, 4>)) {
  const std::uint64_t first = timing_wheel_test::seed_or(20261204);
  for (std::uint64_t seed = first; seed < first + 200; ++seed) {
    INFO("replay with TIMING_WHEEL_SEED=" << seed);
    REQUIRE(clustered_run<TestType>(seed) == -1);
  }
}

TEMPLATE_TEST_CASE("ties keep their order when the heap's 32-bit sequence numbers run out", "[order][heap]",
                   timing_wheel::min_heap<int>, (timing_wheel::hierarchical_wheel<int, 2, 3>),
                   (timing_wheel::hierarchical_wheel<int, 2, 3, timing_wheel::precision::coarse>)) {
  // Sequence numbers order equal due times; 2^32 - 1 operations in, every entry is numbered afresh. Timers
  // inserted before, across and after that point, with equal and different due times (beyond the small wheels'
  // horizon, so they wait in the overflow heap), must fire as if nothing happened.
  TestType q(0);
  const tick far = tick{1} << 40;
  q.set_sequence_for_testing(UINT32_MAX - 6);
  std::vector<timing_wheel::timer_handle> handles;
  for (int i = 0; i < 12; ++i) handles.push_back(q.insert(far + static_cast<tick>(i % 3), i));
  REQUIRE(q.reschedule(handles[0], far + 2));  // a reschedule counts as a new insertion
  REQUIRE(q.check_invariants());
  std::vector<int> expected;
  for (tick due = 0; due < 3; ++due) {
    for (int i = 1; i < 12; ++i) {
      if (static_cast<tick>(i % 3) == due) expected.push_back(i);
    }
  }
  expected.push_back(0);
  std::vector<int> fired;
  q.advance(far + 8, [&](tick, int&& id) { fired.push_back(id); });
  if constexpr (is_coarse<TestType>) {  // coarse order is by fire time only
    std::sort(fired.begin(), fired.end());
    std::sort(expected.begin(), expected.end());
  }
  CHECK(fired == expected);
}
