#include "support/catch.hpp"
#include "support/helpers.hpp"
#include "support/queues.hpp"

#include <vector>

using namespace timing_wheel_test;
using timing_wheel::tick;

TEMPLATE_LIST_TEST_CASE("time near the end of the tick range", "[edge]", all_queues<int>) {
  const tick start = UINT64_MAX - 1000;
  TestType q(start);
  q.insert(UINT64_MAX, 1);
  q.insert(UINT64_MAX - 1, 2);
  q.insert(start + 500, 3);
  q.insert(0, 4);
  CHECK(q.next_expiration() == start);
  CHECK(values(advance_collect(q, start)) == std::vector<int>{4});
  std::vector<int> fired;
  std::vector<tick> at;
  q.advance(UINT64_MAX, [&](tick deadline, int&& v) {
    fired.push_back(v);
    at.push_back(q.now());
    CHECK(q.now() >= deadline);
  });
  CHECK(fired == std::vector<int>{3, 2, 1});
  CHECK(at.back() == UINT64_MAX);
  CHECK(q.now() == UINT64_MAX);
  // At the end of time everything inserted is due now.
  q.insert(5, 5);
  q.insert(UINT64_MAX, 6);
  CHECK(q.next_expiration() == tick{UINT64_MAX});
  CHECK(values(advance_collect(q, UINT64_MAX)) == std::vector<int>{5, 6});
}

TEMPLATE_LIST_TEST_CASE("now() near the end with timers just before it", "[edge]", exact_queues<int>) {
  TestType q(UINT64_MAX - 70);
  for (int i = 0; i < 70; ++i) q.insert(UINT64_MAX - 69 + static_cast<tick>(i), i);
  const auto fired = advance_collect(q, UINT64_MAX);
  REQUIRE(fired.size() == 70);
  for (int i = 0; i < 70; ++i) CHECK(fired[static_cast<std::size_t>(i)].now == UINT64_MAX - 69 + static_cast<tick>(i));
}
