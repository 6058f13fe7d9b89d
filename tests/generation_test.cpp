#include "support/catch.hpp"
#include "support/helpers.hpp"
#include "support/queues.hpp"

#include <vector>

using namespace timing_wheel_test;
using timing_wheel::tick;

TEMPLATE_LIST_TEST_CASE("stale handles stay stale through many reuses of one node", "[generation]", all_queues<int>) {
  TestType q;
  std::vector<timing_wheel::timer_handle> stale;
  for (int i = 0; i < 10000; ++i) {
    const auto h = q.insert(static_cast<tick>(i), i);
    if (i % 1000 == 0) stale.push_back(h);
    CHECK(q.cancel(h) == std::optional<int>{i});
  }
  const auto live = q.insert(5, 5);
  for (const auto h : stale) {
    CHECK(!q.pending(h));
    CHECK(!q.cancel(h));
  }
  CHECK(q.pending(live));
}

TEMPLATE_LIST_TEST_CASE("a node whose generation would wrap is retired, never reissued", "[generation]",
                        all_queues<int>) {
  TestType q;
  const auto h = q.insert(10, 1);
  q.set_generation_for_testing(h, UINT32_MAX);  // odd: live, the last generation before the wrap
  const timing_wheel::timer_handle aged{h.index, UINT32_MAX};
  CHECK(q.pending(aged));
  CHECK(!q.pending(h));
  CHECK(q.cancel(aged) == std::optional<int>{1});
  const auto next = q.insert(20, 2);
  CHECK(next.index != h.index);  // the worn-out node is parked for good
  CHECK(!q.pending(aged));
  CHECK(!q.pending(timing_wheel::timer_handle{h.index, 1}));
  CHECK(q.size() == 1);
}
