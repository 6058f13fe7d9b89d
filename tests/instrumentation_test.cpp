#include "support/catch.hpp"
#include "support/helpers.hpp"
#include "support/random_ops.hpp"

#include <timing_wheel/instrumentation.hpp>
#include <timing_wheel/timing_wheel.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

using namespace timing_wheel_test;
using timing_wheel::counting_instrumentation;
using timing_wheel::precision;
using timing_wheel::tick;

namespace {
using ring60 = timing_wheel::flat_wheel<int, 60, counting_instrumentation>;
using clock2 = timing_wheel::hierarchical_wheel<int, 2, 6, precision::exact, counting_instrumentation>;
using coarse2 = timing_wheel::hierarchical_wheel<int, 2, 6, precision::coarse, counting_instrumentation>;
using heap = timing_wheel::min_heap<int, counting_instrumentation>;

// Advances one tick at a time, as The Hand's clock does.
template <class Q>
std::vector<int> tick_by_tick(Q& q, tick to) {
  std::vector<int> fired;
  while (q.now() < to) q.advance(q.now() + 1, [&](tick, int&& v) { fired.push_back(v); });
  return fired;
}
}  // namespace

TEST_CASE("the default policy counts nothing and takes no space", "[instrumentation]") {
  STATIC_REQUIRE(std::is_empty_v<timing_wheel::no_instrumentation>);
  STATIC_REQUIRE(timing_wheel::instrumentation_policy<timing_wheel::no_instrumentation>);
  STATIC_REQUIRE(timing_wheel::instrumentation_policy<counting_instrumentation>);
  // [[no_unique_address]]: a counting queue is bigger by no more than its counters (padding aside), and an
  // uncounted one carries none of them.
  STATIC_REQUIRE(sizeof(timing_wheel::hierarchical_wheel<int, 6, 6>) + sizeof(counting_instrumentation) + 8 >=
                 sizeof(timing_wheel::hierarchical_wheel<int, 6, 6, precision::exact, counting_instrumentation>));
  STATIC_REQUIRE(sizeof(timing_wheel::hierarchical_wheel<int, 6, 6>) + sizeof(counting_instrumentation) <=
                 sizeof(timing_wheel::hierarchical_wheel<int, 6, 6, precision::exact, counting_instrumentation>));
  STATIC_REQUIRE(sizeof(timing_wheel::min_heap<int>) + sizeof(counting_instrumentation) <= sizeof(heap));
  STATIC_REQUIRE(sizeof(timing_wheel::flat_wheel<int, 60>) + sizeof(counting_instrumentation) <= sizeof(ring60));
}

TEST_CASE("one ring: a timer due in exactly one revolution needs no full turn", "[instrumentation][flat_wheel]") {
  ring60 q;
  q.insert(60, 1);  // slot 0, zero full revolutions: looked at once, when it fires
  REQUIRE(tick_by_tick(q, 60) == std::vector<int>{1});
  const auto& c = q.instrumentation();
  CHECK(c.inserts == 1);
  CHECK(c.fires == 1);
  CHECK(c.inspections == 1);
  CHECK(c.empty_looks == 0);
  CHECK(c.comparisons == 0);
}

TEST_CASE("one ring: each revolution still to go costs one empty look", "[instrumentation][flat_wheel]") {
  ring60 q;
  q.insert(61, 1);   // slot 1: seen at tick 1 (a later revolution), fires at 61
  q.insert(120, 2);  // slot 0: seen at tick 60, fires at 120
  q.insert(181, 3);  // slot 1: seen at 1 and 61, fires at 181
  q.insert(30, 4);   // fires on the first visit
  REQUIRE(tick_by_tick(q, 200) == std::vector<int>{4, 1, 2, 3});
  const auto& c = q.instrumentation();
  CHECK(c.fires == 4);
  CHECK(c.empty_looks == 1 + 1 + 3);  // rounds (delay - 1) / 60: 1 for 61 and 120, 3 for 181
  CHECK(c.inspections == 4 + 5);
  CHECK(c.max_slot_occupancy == 2);  // slot 1 at tick 1 held timers 1 and 3
  CHECK(c.cascades == 0);
}

TEST_CASE("one ring: a cancelled timer is counted and never looked at again", "[instrumentation][flat_wheel]") {
  ring60 q;
  const auto h = q.insert(90, 1);
  q.insert(150, 2);
  REQUIRE(tick_by_tick(q, 40) == std::vector<int>{});
  REQUIRE(q.cancel(h) == 1);
  REQUIRE(tick_by_tick(q, 200) == std::vector<int>{2});
  const auto& c = q.instrumentation();
  CHECK(c.cancels == 1);
  CHECK(c.fires == 1);
  CHECK(c.inspections == 4);  // timers 1 and 2 at tick 30, then 2 alone at 90 (empty) and 150
  CHECK(c.empty_looks == 3);
}

TEST_CASE("two rings: inside the first ring one look, beyond it one cascade", "[instrumentation][hierarchical_wheel]") {
  clock2 q;
  q.insert(63, 1);   // level 0 (the first 64 ticks): fired, one look
  q.insert(64, 2);   // level 1, slot 1: its slot's lone timer, due when the slot's span begins: fired at once
  q.insert(200, 3);  // level 1, slot 3: cascaded at 192 (too few to spread ahead), fired at 200
  REQUIRE(tick_by_tick(q, 300) == std::vector<int>{1, 2, 3});
  const auto& c = q.instrumentation();
  CHECK(c.fires == 3);
  CHECK(c.cascades == 1);
  CHECK(c.inspections == 3 + 1);
  CHECK(c.empty_looks == 0);
  CHECK(c.comparisons == 0);
}

TEST_CASE("two rings: a short timer crossing a 64-tick boundary is cascaded once",
          "[instrumentation][hierarchical_wheel]") {
  clock2 q(60);
  q.insert(150, 1);  // 90 ticks ahead: level-1 slot 2, two spans after now()'s, until tick 128
  REQUIRE(tick_by_tick(q, 150) == std::vector<int>{1});
  CHECK(q.instrumentation().cascades == 1);
  CHECK(q.instrumentation().inspections == 2);
}

TEST_CASE("two rings: a timer for the next span, whose list is empty, goes straight to where it fires from",
          "[instrumentation][hierarchical_wheel]") {
  clock2 q(60);
  q.insert(100, 1);  // 40 ticks ahead, in the span after now()'s: level 0's spread ring, not level 1
  q.insert(100, 2);
  q.insert(70, 3);
  REQUIRE(tick_by_tick(q, 100) == (std::vector<int>{3, 1, 2}));
  CHECK(q.instrumentation().cascades == 0);
  CHECK(q.instrumentation().inspections == 3);
  // Once that list holds a timer, the next ones join it there (and move down with it): nothing overtakes it.
  clock2 r(0);
  r.insert(150, 1);  // level-1 slot 2, before its span is the next one
  REQUIRE(tick_by_tick(r, 70).empty());
  r.insert(150, 2);
  r.insert(151, 3);
  REQUIRE(tick_by_tick(r, 151) == (std::vector<int>{1, 2, 3}));
  CHECK(r.instrumentation().cascades == 3);
}

TEST_CASE("two rings: a jump over many ticks does no more work than ticking", "[instrumentation][hierarchical_wheel]") {
  clock2 ticked;
  clock2 jumped;
  for (int i = 0; i < 50; ++i) {
    const tick due = 1 + static_cast<tick>(i) * 37 % 3000;
    ticked.insert(due, i);
    jumped.insert(due, i);
  }
  const std::vector<int> a = tick_by_tick(ticked, 4000);
  std::vector<int> b;
  jumped.advance(4000, [&](tick, int&& v) { b.push_back(v); });
  REQUIRE(a == b);
  // A slot's lone timer due within the jump fires at once instead of cascading.
  CHECK(jumped.instrumentation().inspections <= ticked.instrumentation().inspections);
  CHECK(jumped.instrumentation().cascades <= ticked.instrumentation().cascades);
  CHECK(ticked.instrumentation().fires == jumped.instrumentation().fires);
}

TEST_CASE("a lone timer far ahead fires without a cascade when a jump reaches it",
          "[instrumentation][hierarchical_wheel]") {
  timing_wheel::hierarchical_wheel<int, 6, 6, precision::exact, counting_instrumentation> q;
  q.insert(tick{3} << 30, 1);  // level 5
  q.insert(9'000, 2);          // level 2, alone in its slot
  std::vector<int> fired;
  q.advance(tick{1} << 32, [&](tick, int&& v) { fired.push_back(v); });
  REQUIRE(fired == std::vector<int>{2, 1});
  CHECK(q.instrumentation().cascades == 0);
  CHECK(q.instrumentation().inspections == 2);
  // In the next span of level 5 it goes straight to level 4's spread ring; there, in slot 0, it moves once, as
  // the ring swaps in (slot 0 is where now() is then), and fires from level 3 without another move.
  timing_wheel::hierarchical_wheel<int, 6, 6, precision::exact, counting_instrumentation> next;
  next.insert(tick{1} << 30, 1);
  REQUIRE(next.advance(tick{1} << 31, [](tick, int&&) {}) == 1);
  CHECK(next.instrumentation().cascades == 1);
  // Ticking up to it instead: one cascade per level on the way down.
  clock2 ticked;
  ticked.insert(200, 1);
  REQUIRE(tick_by_tick(ticked, 200) == std::vector<int>{1});
  CHECK(ticked.instrumentation().cascades == 1);
}

TEST_CASE("coarse: placed once, never cascaded", "[instrumentation][coarse]") {
  coarse2 q;
  for (int i = 0; i < 40; ++i) q.insert(1 + static_cast<tick>(i) * 13, i);
  REQUIRE(tick_by_tick(q, 2000).size() == 40);
  CHECK(q.instrumentation().cascades == 0);
  CHECK(q.instrumentation().inspections == 40);
  CHECK(q.instrumentation().fires == 40);
}

TEST_CASE("heap: comparisons on insert and pop, worked by hand", "[instrumentation][min_heap]") {
  heap q;
  q.insert(30, 1);  // the root: nothing to compare
  CHECK(q.instrumentation().comparisons == 0);
  q.insert(10, 2);  // one comparison with the root, which it replaces
  CHECK(q.instrumentation().comparisons == 1);
  q.insert(20, 3);  // one comparison with the root (10), stays
  CHECK(q.instrumentation().comparisons == 2);
  // Pop 10: 20 (the last entry) moves to the root; its one child, 30, is compared with it and stays below.
  std::vector<int> fired;
  q.advance(10, [&](tick, int&& v) { fired.push_back(v); });
  REQUIRE(fired == std::vector<int>{2});
  CHECK(q.instrumentation().comparisons == 3);
  CHECK(q.instrumentation().fires == 1);
  CHECK(q.instrumentation().inspections == 0);
  CHECK(q.instrumentation().looks() == 3);
}

TEST_CASE("counting changes nothing that fires", "[instrumentation][differential]") {
  const std::uint64_t seed = timing_wheel_test::seed_or(20261203);
  INFO("replay with TIMING_WHEEL_SEED=" << seed);
  std::mt19937_64 rng(seed);
  timing_wheel::hierarchical_wheel<int, 2, 6> plain_wheel;
  clock2 counted_wheel;
  timing_wheel::flat_wheel<int, 60> plain_ring;
  ring60 counted_ring;
  timing_wheel::min_heap<int> plain_heap;
  heap counted_heap;
  for (int i = 0; i < 2000; ++i) {
    const tick due = rng() % 5000;
    plain_wheel.insert(due, i);
    counted_wheel.insert(due, i);
    plain_ring.insert(due, i);
    counted_ring.insert(due, i);
    plain_heap.insert(due, i);
    counted_heap.insert(due, i);
  }
  const auto expected = advance_collect(plain_wheel, 6000);
  REQUIRE(advance_collect(counted_wheel, 6000) == expected);
  REQUIRE(advance_collect(plain_ring, 6000) == expected);
  REQUIRE(advance_collect(counted_ring, 6000) == expected);
  REQUIRE(advance_collect(plain_heap, 6000) == expected);
  REQUIRE(advance_collect(counted_heap, 6000) == expected);
  CHECK(counted_ring.instrumentation().fires == 2000);
  CHECK(counted_heap.instrumentation().fires == 2000);
  CHECK(counted_wheel.instrumentation().fires == 2000);
}
