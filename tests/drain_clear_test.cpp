#include "support/catch.hpp"
#include "support/helpers.hpp"
#include "support/queues.hpp"

#include <utility>
#include <vector>

using namespace timing_wheel_test;
using timing_wheel::tick;

TEMPLATE_LIST_TEST_CASE("drain hands everything over in fire order and keeps now()", "[drain]", exact_queues<int>) {
  TestType q(50);
  q.insert(1u << 30, 1);
  q.insert(60, 2);
  q.insert(10, 3);  // due now
  q.insert(1ULL << 45, 4);
  q.insert(60, 5);
  std::vector<std::pair<tick, int>> handed;
  q.drain([&](tick deadline, int&& v) { handed.emplace_back(deadline, v); });
  CHECK(handed == std::vector<std::pair<tick, int>>{{10, 3}, {60, 2}, {60, 5}, {1u << 30, 1}, {1ULL << 45, 4}});
  CHECK(q.empty());
  CHECK(q.now() == 50);
  q.insert(70, 6);
  CHECK(values(advance_collect(q, 70)) == std::vector<int>{6});
}

TEMPLATE_LIST_TEST_CASE("drain takes a payload-only callable too", "[drain]", all_queues<int>) {
  TestType q;
  q.insert(3, 1);
  q.insert(1, 2);
  std::vector<int> handed;
  q.drain([&](int&& v) { handed.push_back(v); });
  CHECK(handed.size() == 2);
  CHECK(q.empty());
}

TEMPLATE_LIST_TEST_CASE("clear empties the queue and old handles stay stale through reuse", "[clear]",
                        all_queues<int>) {
  TestType q(10);
  std::vector<timing_wheel::timer_handle> old;
  for (int i = 0; i < 100; ++i) old.push_back(q.insert(static_cast<tick>(i * 1000), i));
  q.clear();
  CHECK(q.empty());
  CHECK(!q.next_expiration());
  CHECK(q.now() == 10);
  for (int i = 0; i < 100; ++i) q.insert(static_cast<tick>(i), 1000 + i);  // reuses every node
  for (const auto h : old) {
    CHECK(!q.pending(h));
    CHECK(!q.cancel(h));
  }
  CHECK(q.size() == 100);
  CHECK(invariants_hold(q));
}
