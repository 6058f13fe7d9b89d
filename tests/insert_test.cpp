#include "support/catch.hpp"
#include "support/helpers.hpp"
#include "support/queues.hpp"

#include <type_traits>
#include <vector>

using namespace timing_wheel_test;
using timing_wheel::tick;

static_assert(sizeof(timing_wheel::timer_handle) == 8);
static_assert(std::is_trivially_copyable_v<timing_wheel::timer_handle>);
static_assert(timing_wheel::timer_queue<timing_wheel::min_heap<int>>);
static_assert(timing_wheel::timer_queue<timing_wheel::flat_wheel<int, 60>>);
static_assert(timing_wheel::timer_queue<timing_wheel::hierarchical_wheel<int>>);
static_assert(timing_wheel::timer_queue<coarse_6x6<int>>);

TEMPLATE_LIST_TEST_CASE("a queue starts empty at its start time", "[insert]", all_queues<int>) {
  TestType q(1234);
  CHECK(q.now() == 1234);
  CHECK(q.empty());
  CHECK(q.size() == 0);
  CHECK(!q.next_expiration());
  CHECK(!q.pending(timing_wheel::timer_handle{}));
}

TEMPLATE_LIST_TEST_CASE("a past deadline fires at the next advance, even advance(now())", "[insert]", all_queues<int>) {
  TestType q(1000);
  q.insert(10, 1);
  q.insert(999, 2);
  q.insert(1000, 3);
  CHECK(q.size() == 3);
  CHECK(q.next_expiration() == tick{1000});
  const auto fired = advance_collect(q, 1000);
  REQUIRE(fired.size() == 3);
  // The callback receives the deadline asked for; now() is the due time, max(deadline, now at insertion).
  CHECK(fired[0] == firing<int>{10, 1, 1000});
  CHECK(fired[1] == firing<int>{999, 2, 1000});
  CHECK(fired[2] == firing<int>{1000, 3, 1000});
  CHECK(q.empty());
}

TEMPLATE_LIST_TEST_CASE("timers due at one tick fire in insertion order", "[insert]", exact_queues<int>) {
  TestType q(0);
  q.insert(500, 0);
  q.advance(100, [](tick, int&&) {});
  q.insert(500, 1);
  q.insert(300, 2);
  q.advance(499, [](tick, int&&) {});
  q.insert(500, 3);
  q.insert(0, 4);  // past: due now (499), so before the others
  const auto fired = advance_collect(q, 500);
  CHECK(values(fired) == std::vector<int>{4, 0, 1, 3});
}

TEMPLATE_LIST_TEST_CASE("deadlines 0 and UINT64_MAX are valid", "[insert]", all_queues<int>) {
  TestType q(0);
  q.insert(UINT64_MAX, 1);
  q.insert(0, 2);
  CHECK(values(advance_collect(q, 0)) == std::vector<int>{2});
  CHECK(advance_collect(q, UINT64_MAX - 1).empty());
  CHECK(q.next_expiration() == tick{UINT64_MAX});
  CHECK(advance_collect(q, UINT64_MAX) == std::vector<firing<int>>{{UINT64_MAX, 1, UINT64_MAX}});
}

namespace {
struct two_part {
  two_part(int a, int b) : sum(a + b) {}
  int sum;
};
}  // namespace

TEMPLATE_LIST_TEST_CASE("emplace constructs the payload in place", "[insert]", all_queues<two_part>) {
  TestType q;
  const auto h = q.emplace(5, 2, 3);
  REQUIRE(q.get(h) != nullptr);
  CHECK(q.get(h)->sum == 5);
  CHECK(q.expiry(h) == tick{5});
}
