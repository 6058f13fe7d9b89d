#include "support/catch.hpp"
#include "support/helpers.hpp"
#include "support/queues.hpp"

#include <vector>

using namespace timing_wheel_test;
using timing_wheel::hierarchical_wheel;
using timing_wheel::precision;
using timing_wheel::tick;

static_assert(hierarchical_wheel<int>::slots == 4096);
static_assert(hierarchical_wheel<int>::horizon == UINT64_MAX);  // the default covers every tick
static_assert(hierarchical_wheel<int, 6, 6>::slots == 64);
static_assert(hierarchical_wheel<int, 6, 6>::horizon == tick{1} << 36);
static_assert(hierarchical_wheel<int, 16, 4>::horizon == UINT64_MAX);
static_assert(hierarchical_wheel<int, 11, 6>::horizon == UINT64_MAX);
static_assert(hierarchical_wheel<int, 11, 6>::active_levels == 11);
static_assert(hierarchical_wheel<int, 20, 6>::active_levels == 11);  // levels past bit 63 are not built
static_assert(hierarchical_wheel<int, 2, 3>::horizon == 64);
static_assert(hierarchical_wheel<int, 6, 6>::granule(0) == 1 && hierarchical_wheel<int, 6, 6>::granule(2) == 4096);
static_assert(hierarchical_wheel<int>::granule(2) == tick{1} << 24);
static_assert(hierarchical_wheel<int, 8, 8>::slots == 256 && hierarchical_wheel<int, 8, 8>::horizon == UINT64_MAX);
static_assert(hierarchical_wheel<int, 6, 6, precision::coarse>::granule(2) == 64);  // 8x per level
static_assert(hierarchical_wheel<int, 6, 6, precision::coarse>::horizon == tick{62} << 15);

TEMPLATE_LIST_TEST_CASE("timers beyond the horizon are kept and fire on time", "[horizon]", exact_queues<int>) {
  TestType q(5);
  const std::vector<tick> deadlines{64, 65, 4096, tick{1} << 36, (tick{1} << 36) + 1, tick{1} << 50, UINT64_MAX};
  for (std::size_t i = 0; i < deadlines.size(); ++i) q.insert(deadlines[i], static_cast<int>(i));
  CHECK(q.size() == deadlines.size());
  std::vector<tick> seen;
  while (auto next = q.next_expiration()) {
    for (const auto& f : advance_collect(q, *next)) seen.push_back(f.now);
  }
  CHECK(seen == deadlines);
}

TEST_CASE("a small wheel moves overflow timers in when their span comes", "[horizon]") {
  hierarchical_wheel<int, 2, 3> q(0);  // covers aligned spans of 64 ticks
  q.insert(63, 0);
  q.insert(64, 1);
  q.insert(1000, 2);
  CHECK(q.overflow_size() == 2);
  CHECK(q.next_expiration() == tick{63});
  CHECK(values(advance_collect(q, 64)) == std::vector<int>{0, 1});
  CHECK(q.overflow_size() == 1);
  CHECK(q.check_invariants());
  CHECK(q.next_expiration() == tick{1000});
  CHECK(values(advance_collect(q, 1000)) == std::vector<int>{2});
  CHECK(q.overflow_size() == 0);
}

TEST_CASE("a full-range wheel never uses its overflow store", "[horizon]") {
  hierarchical_wheel<int, 11, 6> q(0);
  q.insert(UINT64_MAX, 1);
  q.insert(tick{1} << 63, 2);
  CHECK(q.overflow_size() == 0);
  CHECK(q.check_invariants());
  CHECK(values(advance_collect(q, UINT64_MAX)) == std::vector<int>{2, 1});
}
