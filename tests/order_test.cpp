#include "support/catch.hpp"
#include "support/helpers.hpp"
#include "support/queues.hpp"

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
