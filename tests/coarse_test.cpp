#include "support/catch.hpp"
#include "support/helpers.hpp"
#include "support/queues.hpp"
#include "support/random_ops.hpp"

#include <algorithm>
#include <vector>

using namespace timing_wheel_test;
using timing_wheel::hierarchical_wheel;
using timing_wheel::precision;
using timing_wheel::tick;

TEMPLATE_LIST_TEST_CASE("coarse: never early, late by less than one granule of the level", "[coarse]",
                        coarse_queues<int>) {
  rng r{seed_or(77)};
  INFO("replay with TIMING_WHEEL_SEED=" << r.state);
  for (int round = 0; round < 300; ++round) {
    const tick start = r.below(2) == 0 ? r.below(1 << 20) : r.next() >> r.below(64);
    TestType q(start);
    std::vector<tick> due;
    for (int i = 0; i < 20; ++i) {
      const tick delay = std::min<tick>(r.below(tick{1} << r.below(40)), UINT64_MAX - start);
      due.push_back(start + delay);
      q.insert(start + delay, i);
    }
    tick last = 0;
    while (auto next = q.next_expiration()) {
      // next_expiration is the tick of the next firing: one before it fires nothing.
      if (*next > q.now()) CHECK(q.advance(*next - 1, [](tick, int&&) {}) == 0);
      const auto fired = advance_collect(q, *next);
      REQUIRE(!fired.empty());
      for (const auto& f : fired) {
        const tick d = due[static_cast<std::size_t>(f.value)];
        CHECK(f.now >= d);
        CHECK(f.now - d <= TestType::max_lateness(d - start));
        CHECK(f.now >= last);
        last = f.now;
      }
    }
  }
}

TEST_CASE("coarse 64-slot levels are at most 1/7.75 late relative to the delay", "[coarse]") {
  using wheel = hierarchical_wheel<int, 6, 6, precision::coarse>;
  static_assert(wheel::level_shift == 3);
  rng r{seed_or(78)};
  for (int i = 0; i < 20000; ++i) {
    wheel q(r.next() >> 8);
    const tick delay = 64 + r.below(wheel::horizon - 64);
    q.insert(q.now() + delay, 0);
    const tick when = *q.next_expiration();
    CHECK(when >= q.now() + delay);
    CHECK((when - q.now() - delay) * 62 < delay * 8);  // lateness < 2^3 / (64 - 2) of the delay
  }
}

TEST_CASE("coarse: a timer in the last granule before the end of time still fires", "[coarse]") {
  hierarchical_wheel<int, 6, 6, precision::coarse> q(UINT64_MAX - 5000);
  q.insert(UINT64_MAX - 1, 1);  // would round up past the last tick
  q.insert(UINT64_MAX, 2);
  CHECK(q.next_expiration() == tick{UINT64_MAX - 1});
  CHECK(values(advance_collect(q, UINT64_MAX)) == std::vector<int>{1, 2});
}

TEST_CASE("coarse: a delay inside level 0 is exact", "[coarse]") {
  hierarchical_wheel<int, 6, 6, precision::coarse> q(1000);
  q.insert(1063, 1);
  CHECK(q.next_expiration() == tick{1063});
  q.insert(1064, 2);  // 64 ahead: level 1, granule 8, fires at 1064 (already aligned)
  q.insert(1065, 3);  // rounds up to 1072
  const auto fired = advance_collect(q, 2000);
  REQUIRE(fired.size() == 3);
  CHECK(fired[0].now == 1063);
  CHECK(fired[1].now == 1064);
  CHECK(fired[2].now == 1072);
}

TEMPLATE_TEST_CASE("coarse: next_expiration() asked from a callback stays right while overflow timers fire",
                   "[coarse][overflow]", (hierarchical_wheel<int, 6, 6, precision::coarse>),
                   (hierarchical_wheel<int, 2, 3, precision::coarse>)) {
  TestType q;
  const tick far = tick{1} << 40;  // beyond the reach of both shapes: the overflow store
  q.insert(far, 1);
  q.insert(far + 1, 2);
  q.insert(far + 1, 3);
  REQUIRE(q.overflow_size() == 3);
  std::vector<int> fired;
  q.advance(far << 1, [&](tick, int&& id) {
    fired.push_back(id);
    const auto next = q.next_expiration();
    CHECK(next.has_value() == !q.empty());
    if (next) CHECK(*next >= q.now());
    CHECK(q.check_invariants());
  });
  CHECK(fired == std::vector<int>{1, 2, 3});
  CHECK(q.empty());
  CHECK_FALSE(q.next_expiration().has_value());
  CHECK(q.check_invariants());
}
