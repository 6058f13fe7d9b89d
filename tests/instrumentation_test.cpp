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
  q.insert(100, 1);  // 40 ticks ahead, but 100 and 60 differ above the first digit: level 1 until tick 64
  REQUIRE(tick_by_tick(q, 100) == std::vector<int>{1});
  CHECK(q.instrumentation().cascades == 1);
  CHECK(q.instrumentation().inspections == 2);
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
  q.insert(tick{1} << 30, 1);  // level 5
  q.insert(5'000, 2);          // level 2, alone in its slot
  std::vector<int> fired;
  q.advance(tick{1} << 31, [&](tick, int&& v) { fired.push_back(v); });
  REQUIRE(fired == std::vector<int>{2, 1});
  CHECK(q.instrumentation().cascades == 0);
  CHECK(q.instrumentation().inspections == 2);
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

TEST_CASE("exact: a level-1 cascade is spread over the span before it, a bounded share per tick",
          "[instrumentation][hierarchical_wheel][cascade]") {
  clock2 ticked(64);
  timing_wheel::min_heap<int> reference(64);
  for (int i = 0; i < 6400; ++i) {
    const tick due = 128 + static_cast<tick>(i) * 7 % 64;  // all in level-1 slot 2, span [128, 192)
    ticked.insert(due, i);
    reference.insert(due, i);
  }
  std::vector<int> fired;
  std::uint64_t worst = 0;
  while (ticked.now() < 200) {
    const std::uint64_t before = ticked.instrumentation().cascades;
    ticked.advance(ticked.now() + 1, [&](tick, int&& v) { fired.push_back(v); });
    worst = std::max(worst, ticked.instrumentation().cascades - before);
    REQUIRE(ticked.check_invariants());
  }
  CHECK(worst <= (6400 + 62) / 63);  // ceil(6400 / 63 ticks left after the first advance): no burst of 6400 at 128
  CHECK(ticked.instrumentation().cascades == 6400);
  std::vector<int> expected;
  reference.advance(200, [&](tick, int&& v) { expected.push_back(v); });
  REQUIRE(fired == expected);  // due-time order, equal due times first-in first-out
}

TEST_CASE("exact: idle ticks skip no spreading: the share starts moving when the span before begins",
          "[instrumentation][hierarchical_wheel][cascade]") {
  clock2 ticked(0);
  timing_wheel::min_heap<int> reference(0);
  for (int i = 0; i < 6400; ++i) {
    const tick due = 128 + static_cast<tick>(i) * 11 % 64;  // level-1 slot 2: nothing to move before tick 64
    ticked.insert(due, i);
    reference.insert(due, i);
  }
  std::vector<int> fired;
  std::uint64_t worst = 0;
  std::uint64_t moved_before_64 = 0;
  while (ticked.now() < 200) {
    const std::uint64_t before = ticked.instrumentation().cascades;
    ticked.advance(ticked.now() + 1, [&](tick, int&& v) { fired.push_back(v); });
    worst = std::max(worst, ticked.instrumentation().cascades - before);
    if (ticked.now() < 64) moved_before_64 = ticked.instrumentation().cascades;
    REQUIRE(ticked.check_invariants());
  }
  CHECK(moved_before_64 == 0);
  CHECK(worst <= (6400 + 63) / 64);  // ticks 64..127 each move a 64th, instead of 6,400 at tick 128
  CHECK(ticked.instrumentation().cascades == 6400);
  std::vector<int> expected;
  reference.advance(200, [&](tick, int&& v) { expected.push_back(v); });
  REQUIRE(fired == expected);
}

TEST_CASE("exact: level-2 cascades are spread too, and order is kept",
          "[instrumentation][hierarchical_wheel][cascade]") {
  timing_wheel::hierarchical_wheel<int, 3, 6, precision::exact, counting_instrumentation> ticked(4096);
  timing_wheel::min_heap<int> reference(4096);
  for (int i = 0; i < 64'000; ++i) {
    const tick due = 8192 + static_cast<tick>(i) * 7919 % 4096;  // all in level-2 slot 2, span [8192, 12288)
    ticked.insert(due, i);
    reference.insert(due, i);
  }
  std::vector<int> fired;
  std::uint64_t worst = 0;
  while (ticked.now() < 12'400) {
    const std::uint64_t before = ticked.instrumentation().cascades;
    ticked.advance(ticked.now() + 1, [&](tick, int&& v) { fired.push_back(v); });
    worst = std::max(worst, ticked.instrumentation().cascades - before);
  }
  REQUIRE(ticked.check_invariants());
  CHECK(worst <= 64);  // ~16 a tick from level 2 and ~16 from level 1, against a burst of 64,000 at tick 8192
  std::vector<int> expected;
  reference.advance(12'400, [&](tick, int&& v) { expected.push_back(v); });
  REQUIRE(fired == expected);
}

namespace {
// A three-level wheel and a min_heap fed the same timers: how many timers the wheel moves down in its busiest
// advance, and whether it fires in the heap's order.
struct spread_trial {
  timing_wheel::hierarchical_wheel<int, 3, 6, precision::exact, counting_instrumentation> wheel{0};
  timing_wheel::min_heap<int> reference{0};
  std::vector<int> fired;
  std::uint64_t worst = 0;

  void insert(tick due, int id) {
    wheel.insert(due, id);
    reference.insert(due, id);
  }
  // Advances the wheel `step` ticks. Returns: the timers it has moved down so far.
  std::uint64_t advance(tick step) {
    const std::uint64_t before = wheel.instrumentation().cascades;
    wheel.advance(wheel.now() + step, [&](tick, int&& v) { fired.push_back(v); });
    worst = std::max(worst, wheel.instrumentation().cascades - before);
    return wheel.instrumentation().cascades;
  }
  [[nodiscard]] bool fired_in_heap_order() {
    std::vector<int> expected;
    reference.advance(wheel.now(), [&](tick, int&& v) { expected.push_back(v); });
    return fired == expected;
  }
};
}  // namespace

TEST_CASE("exact: idle advances skip to where a crowded span must start spreading, and its share follows their stride",
          "[instrumentation][hierarchical_wheel][cascade]") {
  // Level-2 slot 2 holds one timer (nothing to spread) and slot 5 holds 20,000: advances before tick 4 * 4096 have
  // nothing to move (and cost O(1) up to the next event), but the share of slot 5 must start moving at 4 * 4096,
  // and spread over the advances left whether the clock ticks or strides there, or it all cascades in one burst at
  // 5 * 4096.
  for (const tick step : {tick{1}, tick{61}, tick{1000}}) {
    INFO("advancing " << step << " ticks at a time");
    spread_trial trial;
    trial.insert(2 * 4096 + 100, -1);
    for (int i = 0; i < 20'000; ++i) trial.insert(5 * 4096 + static_cast<tick>(i) * 7919 % 4096, i);
    std::uint64_t moved_before_spreading = 0;
    for (int advances = 1; trial.wheel.now() < 6 * 4096 + 200; ++advances) {
      const std::uint64_t moved = trial.advance(step);
      if (trial.wheel.now() < 4 * 4096) moved_before_spreading = moved;
      if (advances % 97 == 0) REQUIRE(trial.wheel.check_invariants());
    }
    REQUIRE(trial.wheel.check_invariants());
    CHECK(moved_before_spreading <= 2);  // the lone timer's own way down
    // The share is what waits over the advances left, counted in the last advance's stride: a tick at a time about 5
    // from each of levels 2 and 1 an advance; 61 ticks at a time about 300 each (20,000 over 4096 / 61 advances);
    // 1000 at a time a quarter of the span per jump. A share counted in ticks would leave ~18,000 to the last one.
    CHECK(trial.worst <= (step == 1 ? 16U : step == 61 ? 700U : 6'000U));
    REQUIRE(trial.fired_in_heap_order());
  }
}

TEST_CASE("exact: a share left waiting for later advances moves in time when the advances start striding",
          "[instrumentation][hierarchical_wheel][cascade]") {
  // 100 timers in level-2 slot 5 are few enough to wait until the last dozen ticks before 5 * 4096 (8 an advance,
  // a tick at a time). When the clock starts moving 1000 ticks an advance halfway there, the wait must end: the
  // first such advance lands 1,096 ticks before the span and moves half of the 98 waiting (two advances left), where
  // skipping on would leave them all (118 moves with the level-1 ones) to the advance that crosses the span start.
  spread_trial trial;
  for (int i = 0; i < 100; ++i) trial.insert(5 * 4096 + static_cast<tick>(i) * 7919 % 4096, i);
  std::uint64_t moved_early = 0;
  while (trial.wheel.now() < 6 * 4096) {
    const std::uint64_t moved = trial.advance(trial.wheel.now() < 4 * 4096 + 2000 ? 1 : 1000);
    if (trial.wheel.now() <= 4 * 4096 + 2000) moved_early = moved;
    REQUIRE(trial.wheel.check_invariants());
  }
  INFO("most timers moved in one advance: " << trial.worst);
  CHECK(moved_early == 0);  // a tick at a time, the share waits
  CHECK(trial.worst <= 60);
  REQUIRE(trial.fired_in_heap_order());
}

TEST_CASE("exact: a span fed while it is being spread moves its arrivals at once, not in a swelling share",
          "[instrumentation][hierarchical_wheel][cascade]") {
  // W2's shape near a level-2 boundary: every tick, 100 timers due just past 4096 land in level 2 while that span
  // is being spread down. Moving only (what waits) / (ticks left) would leave arrivals behind and the share would
  // grow toward the boundary (about 100 * ln(ticks) moves an advance by the end); arrivals move in the next
  // advance, so an advance moves about the arrivals plus their second step down.
  timing_wheel::hierarchical_wheel<int, 3, 6, precision::exact, counting_instrumentation> ticked(3000);
  timing_wheel::min_heap<int> reference(3000);
  std::vector<int> fired;
  std::vector<int> expected;
  std::uint64_t worst = 0;
  int id = 0;
  while (ticked.now() < 4096 + 1000) {
    for (int j = 0; j < 100; ++j, ++id) {
      const tick due = 4096 + static_cast<tick>(id) * 7919 % 1000;
      ticked.insert(due, id);
      reference.insert(due, id);
    }
    const std::uint64_t before = ticked.instrumentation().cascades;
    ticked.advance(ticked.now() + 1, [&](tick, int&& v) { fired.push_back(v); });
    reference.advance(reference.now() + 1, [&](tick, int&& v) { expected.push_back(v); });
    worst = std::max(worst, ticked.instrumentation().cascades - before);
  }
  REQUIRE(ticked.check_invariants());
  INFO("most timers moved down in one advance: " << worst);
  CHECK(worst <= 300);
  REQUIRE(fired == expected);
}
