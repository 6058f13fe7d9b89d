#include "support/catch.hpp"
#include "support/helpers.hpp"
#include "support/queues.hpp"

#include <memory>
#include <new>
#include <vector>

using namespace timing_wheel_test;
using timing_wheel::fixed_capacity;
using timing_wheel::tick;

TEMPLATE_LIST_TEST_CASE("a full fixed-capacity queue hands the payload back and changes nothing", "[capacity]",
                        all_queues<std::unique_ptr<int>>) {
  TestType q(fixed_capacity{100}, 7);
  CHECK(q.now() == 7);
  CHECK(q.max_size() == 100);
  CHECK(q.capacity() >= 100);
  std::vector<timing_wheel::timer_handle> handles;
  for (int i = 0; i < 100; ++i) {
    const tick deadline = i % 2 == 0 ? tick{10} + static_cast<tick>(i) : tick{1} << (20 + i % 40);
    auto result = q.try_insert(deadline, std::make_unique<int>(i));
    REQUIRE(result);
    handles.push_back(result.handle);
  }
  CHECK(q.full());
  const auto next = q.next_expiration();
  auto rejected = q.try_insert(8, std::make_unique<int>(-1));
  CHECK(!rejected);
  REQUIRE(rejected.rejected.has_value());
  CHECK(**rejected.rejected == -1);  // the payload comes back
  CHECK(!q.pending(rejected.handle));
  CHECK(q.size() == 100);
  CHECK(q.next_expiration() == next);
  CHECK(invariants_hold(q));
  CHECK_THROWS_AS(q.insert(8, std::make_unique<int>(-2)), std::bad_alloc);
  CHECK(q.size() == 100);

  CHECK(q.cancel(handles[5]));
  CHECK(!q.full());
  CHECK(q.try_insert(9, std::make_unique<int>(100)));
  CHECK(q.full());
  CHECK(q.advance(UINT64_MAX, [](tick, std::unique_ptr<int>&&) {}) == 100);
  for (int i = 0; i < 100; ++i) CHECK(q.try_insert(static_cast<tick>(i), std::make_unique<int>(i)));
  CHECK(!q.try_insert(0, std::make_unique<int>(0)));
}

TEMPLATE_LIST_TEST_CASE("a fixed-capacity queue reuses nodes first-in first-out", "[capacity]", all_queues<int>) {
  TestType q(fixed_capacity{3});
  const auto a = q.insert(1, 1);
  const auto b = q.insert(2, 2);
  q.insert(3, 3);
  q.cancel(a);
  q.cancel(b);
  CHECK(q.insert(4, 4).index == a.index);
  CHECK(q.insert(5, 5).index == b.index);
}

TEMPLATE_LIST_TEST_CASE("a fixed-capacity queue keeps its capacity when a generation wraps", "[capacity]",
                        all_queues<int>) {
  TestType q(fixed_capacity{1});
  const auto h = q.insert(10, 1);
  q.set_generation_for_testing(h, UINT32_MAX);
  const timing_wheel::timer_handle aged{h.index, UINT32_MAX};
  CHECK(q.cancel(aged) == std::optional<int>{1});
  const auto again = q.try_insert(20, 2);
  REQUIRE(again);  // the only node is reused, not parked: the queue still holds one timer
  CHECK(again.handle.index == h.index);
  CHECK(again.handle.generation == 1);  // the generation starts over
  CHECK(!q.pending(aged));
  CHECK(q.pending(again.handle));
  CHECK(invariants_hold(q));
}
