// The spreading, how exact wheels cascade without bursts: the timers of a level's next span move down a bounded share
// per advance in the advances before that span begins, instead of all at once when it begins. Each case feeds a
// counting wheel and a min_heap the same timers, and checks the most timers moved in one advance and the order they
// fire in.
#include "support/catch.hpp"
#include "support/random_ops.hpp"

#include <timing_wheel/hierarchical_wheel.hpp>
#include <timing_wheel/instrumentation.hpp>
#include <timing_wheel/min_heap.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

using timing_wheel::counting_instrumentation;
using timing_wheel::precision;
using timing_wheel::tick;

namespace {

template <std::size_t Levels>
using counted_wheel = timing_wheel::hierarchical_wheel<int, Levels, 6, precision::exact, counting_instrumentation>;

// A counting wheel of `Levels` levels of 64 slots and a min_heap fed the same timers.
template <std::size_t Levels>
struct cascade_trial {
  counted_wheel<Levels> wheel;
  timing_wheel::min_heap<int> reference;
  std::vector<int> fired;
  std::vector<int> expected;
  std::uint64_t worst = 0;  // the most timers moved down in one advance

  explicit cascade_trial(tick start) : wheel(start), reference(start) {}

  void insert(tick due, int id) {
    wheel.insert(due, id);
    reference.insert(due, id);
  }
  // Advances both `step` ticks, in step (so a timer inserted in between is due at the same now() in both).
  // Returns: the timers the wheel has moved down so far.
  std::uint64_t advance(tick step) {
    const std::uint64_t before = wheel.instrumentation().cascades;
    wheel.advance(wheel.now() + step, [&](tick, int&& v) { fired.push_back(v); });
    reference.advance(reference.now() + step, [&](tick, int&& v) { expected.push_back(v); });
    worst = std::max(worst, wheel.instrumentation().cascades - before);
    return wheel.instrumentation().cascades;
  }
  // Due-time order, equal due times first-in first-out: the heap's sequence.
  [[nodiscard]] bool fired_in_heap_order() const { return fired == expected; }
};

}  // namespace

TEST_CASE("spreading: a level-1 span moves down over the span before it, a bounded share per tick",
          "[hierarchical_wheel][cascade]") {
  cascade_trial<2> trial(0);
  trial.insert(130, -1);  // level-1 slot 2, while its span is not yet the next one
  while (trial.wheel.now() < 64) trial.advance(1);
  for (int i = 0; i < 6400; ++i) trial.insert(128 + static_cast<tick>(i) * 7 % 64, i);  // join it there
  while (trial.wheel.now() < 200) {
    trial.advance(1);
    REQUIRE(trial.wheel.check_invariants());
  }
  CHECK(trial.worst <= (6401 + 62) / 63);  // ceil(6401 / 63 ticks left after the first advance): no burst at 128
  CHECK(trial.wheel.instrumentation().cascades == 6401);
  REQUIRE(trial.fired_in_heap_order());
}

TEST_CASE("spreading: timers for the next span whose list is empty go straight to its spread ring, in order",
          "[hierarchical_wheel][cascade]") {
  cascade_trial<2> trial(64);
  // Level-1 slot 2 is the next span's list and holds nothing: nothing there ever needs moving. Equal due times
  // (7 apart mod 64) keep their order in the ring.
  for (int i = 0; i < 6400; ++i) trial.insert(128 + static_cast<tick>(i) * 7 % 64, i);
  while (trial.wheel.now() < 200) {
    trial.advance(1);
    REQUIRE(trial.wheel.check_invariants());
  }
  CHECK(trial.wheel.instrumentation().cascades == 0);
  REQUIRE(trial.fired_in_heap_order());
  // Three levels: a level-2 span's timers go to level 1's spread ring, then down once more from there.
  cascade_trial<3> deeper(4096 + 4000);
  for (int i = 0; i < 6400; ++i) deeper.insert(8192 + static_cast<tick>(i) * 7919 % 4096, i);
  while (deeper.wheel.now() < 12'400) {
    deeper.advance(1);
    REQUIRE(deeper.wheel.check_invariants());
  }
  CHECK(deeper.wheel.instrumentation().cascades <= 6400);  // once each at most, instead of twice
  REQUIRE(deeper.fired_in_heap_order());
}

TEST_CASE("spreading: idle ticks skip none of it: the share starts moving when the span before begins",
          "[hierarchical_wheel][cascade]") {
  cascade_trial<2> trial(0);
  for (int i = 0; i < 6400; ++i) trial.insert(128 + static_cast<tick>(i) * 11 % 64, i);  // nothing to move before 64
  std::uint64_t moved_before_64 = 0;
  while (trial.wheel.now() < 200) {
    const std::uint64_t moved = trial.advance(1);
    if (trial.wheel.now() < 64) moved_before_64 = moved;
    REQUIRE(trial.wheel.check_invariants());
  }
  CHECK(moved_before_64 == 0);
  CHECK(trial.worst <= (6400 + 63) / 64);  // ticks 64..127 each move a 64th, instead of 6,400 at tick 128
  CHECK(trial.wheel.instrumentation().cascades == 6400);
  REQUIRE(trial.fired_in_heap_order());
}

TEST_CASE("spreading: level-2 spans move down without a burst too, and order is kept",
          "[hierarchical_wheel][cascade]") {
  cascade_trial<3> trial(4096);
  for (int i = 0; i < 64'000; ++i) trial.insert(8192 + static_cast<tick>(i) * 7919 % 4096, i);  // level-2 slot 2
  while (trial.wheel.now() < 12'400) trial.advance(1);
  REQUIRE(trial.wheel.check_invariants());
  CHECK(trial.worst <= 64);  // ~16 a tick from level 2 and ~16 from level 1, against a burst of 64,000 at tick 8192
  REQUIRE(trial.fired_in_heap_order());
}

TEST_CASE("spreading: idle advances skip to where a crowded span must start moving, in their stride",
          "[hierarchical_wheel][cascade]") {
  // Level-2 slot 2 holds one timer (nothing to spread) and slot 5 holds 20,000: advances before tick 4 * 4096 have
  // nothing to move (and cost O(1) up to the next event), but the share of slot 5 must start moving at 4 * 4096,
  // and spread over the advances left whether the clock ticks or strides there, or it all cascades in one burst at
  // 5 * 4096.
  for (const tick step : {tick{1}, tick{61}, tick{1000}}) {
    INFO("advancing " << step << " ticks at a time");
    cascade_trial<3> trial(0);
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
    // The share is what waits over the advances left, counted in the last advance's stride: a tick at a time, each
    // of levels 2 and 1 waits and then moves min_share an advance; 61 ticks at a time about 300 each (20,000 over
    // 4096 / 61 advances); 1000 at a time a quarter of the span per jump. A share counted in ticks would leave
    // ~18,000 to the last one.
    CHECK(trial.worst <= (step == 1 ? 2 * timing_wheel::detail::min_share : step == 61 ? 700U : 6'000U));
    REQUIRE(trial.fired_in_heap_order());
  }
}

TEST_CASE("spreading: a share left waiting for later advances moves in time when they start striding",
          "[hierarchical_wheel][cascade]") {
  // 100 timers in level-2 slot 5 are few enough to wait until the last few ticks before 5 * 4096 (min_share an
  // advance, a tick at a time). When the clock starts moving 1000 ticks an advance halfway there, the wait must end:
  // the first such advance lands 1,096 ticks before the span and moves half of the 98 waiting (two advances left),
  // where skipping on would leave them all (118 moves with the level-1 ones) to the advance that crosses the span
  // start.
  cascade_trial<3> trial(0);
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

TEST_CASE("spreading: levels passed over while advances cross their whole ring are planned when advances shorten",
          "[hierarchical_wheel][cascade]") {
  // Advances of 5,000 ticks cross level 0's and level 1's whole rings (64 and 4,096 ticks): nothing is planned for
  // them. When the clock starts ticking one at a time at 15,000, before level-2 slot 5's span is next, its 20,000
  // timers must still move down over the span before it, not in one burst at 5 * 4096.
  cascade_trial<3> trial(0);
  for (int i = 0; i < 20'000; ++i) trial.insert(5 * 4096 + static_cast<tick>(i) * 7919 % 4096, i);
  while (trial.wheel.now() < 15'000) {
    trial.advance(5000);
    REQUIRE(trial.wheel.check_invariants());
  }
  CHECK(trial.worst == 0);
  for (int advances = 1; trial.wheel.now() < 6 * 4096 + 200; ++advances) {
    trial.advance(1);
    if (advances % 97 == 0) REQUIRE(trial.wheel.check_invariants());
  }
  REQUIRE(trial.wheel.check_invariants());
  CHECK(trial.worst <= 2 * timing_wheel::detail::min_share);
  REQUIRE(trial.fired_in_heap_order());
}

TEST_CASE("spreading: a span fed while it moves down moves its arrivals at once, not in a swelling share",
          "[hierarchical_wheel][cascade]") {
  // W2's shape near a level-2 boundary: every tick, 100 timers due just past 4096 land in level 2 while that span
  // is being spread down. Moving only (what waits) / (ticks left) would leave arrivals behind and the share would
  // grow toward the boundary (about 100 * ln(ticks) moves an advance by the end); arrivals move in the next
  // advance, so an advance moves about the arrivals plus their second step down.
  cascade_trial<3> trial(3000);
  int id = 0;
  while (trial.wheel.now() < 4096 + 1000) {
    for (int j = 0; j < 100; ++j, ++id) trial.insert(4096 + static_cast<tick>(id) * 7919 % 1000, id);
    trial.advance(1);
  }
  REQUIRE(trial.wheel.check_invariants());
  INFO("most timers moved down in one advance: " << trial.worst);
  CHECK(trial.worst <= 300);
  REQUIRE(trial.fired_in_heap_order());
}

TEST_CASE("spreading: an event loop that inserts between advances to each next expiration keeps it right",
          "[hierarchical_wheel][cascade]") {
  // How services and event loops drive a wheel: ask next_expiration(), advance to it, schedule follow-ups from
  // the loop. The spreading re-plans only the levels an insertion touched, so every step checks that what it kept
  // from earlier steps still holds (check_invariants() asks whether skipped advances would have moved anything).
  const std::uint64_t seed = timing_wheel_test::seed_or(20261202);
  INFO("replay with TIMING_WHEEL_SEED=" << seed);
  timing_wheel_test::rng random{seed};
  cascade_trial<4> trial(0);
  int id = 0;
  for (int j = 0; j < 64; ++j, ++id) trial.insert(1 + random.below(300'000), id);
  constexpr std::array<tick, 5> delays{1, 70, 5'000, 40'000, 600'000};  // levels 0 to 3 of 64-slot rings
  bool held = true;
  for (int step = 0; step < 6'000 && held; ++step) {
    const std::optional<tick> due = trial.wheel.next_expiration();
    REQUIRE(due.has_value());
    trial.advance(*due - trial.wheel.now());
    for (int k = 0, n = static_cast<int>(random.below(4)); k < n; ++k, ++id) {
      trial.insert(trial.wheel.now() + delays[random.below(delays.size())] + random.below(64), id);
    }
    held = trial.wheel.check_invariants();
    if (!held) INFO("invariants broken after step " << step);
  }
  REQUIRE(held);
  trial.advance(UINT64_MAX / 2 - trial.wheel.now());
  REQUIRE(trial.wheel.empty());
  REQUIRE(trial.fired_in_heap_order());
}

// ---- the arithmetic on its own (detail/spreading.hpp)

using timing_wheel::detail::ceil_div;
using timing_wheel::detail::decide_share;
using timing_wheel::detail::min_share;
using timing_wheel::detail::spread_burst;

TEST_CASE("spreading: a share, worked by hand", "[spreading]") {
  // 5,000 timers, 100 advances of one tick left: what waits beyond spread_burst, a hundredth at a time.
  STATIC_REQUIRE(min_share == 32);
  STATIC_REQUIRE(spread_burst == 8);
  CHECK(decide_share(5000, 0, false, 900, 1000, 1).moves == 50);
  // 130 timers with 100 advances left: min_share an advance moves the 122 beyond spread_burst in 4, so the source
  // waits until then, and the same start holds for up to 8 + 4 * 32 timers.
  const auto wait = decide_share(130, 0, false, 900, 1000, 1);
  CHECK(wait.moves == 0);
  CHECK(wait.start == 996);
  CHECK(wait.room == 136);
  // One timer fewer beyond a batch: 3 advances are enough.
  CHECK(decide_share(104, 0, false, 900, 1000, 1).start == 997);
  // In strides of 10 ticks the same 130 timers start 4 strides ahead.
  CHECK(decide_share(130, 0, false, 900, 1000, 10).start == 960);
  // Started, with 10 arrivals since the last share: they move at once, on top of the share of the rest.
  CHECK(decide_share(60, 50, true, 990, 1000, 1).moves == ceil_div(60 - 10 - spread_burst, 10) + 10);
  // The last advance before the span start moves all but spread_burst.
  CHECK(decide_share(500, 500, true, 999, 1000, 1).moves == 500 - spread_burst);
}

TEST_CASE("spreading: followed advance by advance, a source empties by its span start in bounded shares",
          "[spreading]") {
  timing_wheel_test::rng r{timing_wheel_test::seed_or(45)};
  INFO("replay with TIMING_WHEEL_SEED=" << r.state);
  for (int round = 0; round < 3000; ++round) {
    const std::uint32_t initial = spread_burst + 1 + static_cast<std::uint32_t>(r.below(r.below(2) == 0 ? 50 : 5000));
    const tick stride = 1 + r.below(r.below(2) == 0 ? 4 : 300);
    const tick span_start = 1'000'000 + r.below(1000);
    const tick first = span_start - 1 - r.below(std::min<tick>(span_start - 1, 1 + r.below(5000)));
    INFO("timers " << initial << ", stride " << stride << ", from " << first << " to " << span_start);
    std::uint32_t live = initial;
    std::uint32_t left = 0;
    bool started = false;
    tick waits_until = 0;
    tick bound = 0;  // the largest share this source may take in one advance
    for (tick now = first; now < span_start; now += stride) {
      if (now < waits_until) continue;  // the wheel skips these advances: check that nothing was due in them
      const auto share = decide_share(live, left, started, now, span_start, stride);
      if (share.moves == 0) {
        REQUIRE_FALSE(started);
        REQUIRE(share.start > now);
        REQUIRE(share.start < span_start);
        REQUIRE(share.room >= live);
        waits_until = share.start;
        continue;
      }
      if (bound == 0) {
        bound = std::max<tick>(min_share, ceil_div(live - spread_burst, ceil_div(span_start - now, stride)));
      }
      REQUIRE(share.moves <= bound);
      REQUIRE(share.moves <= live - spread_burst);
      live -= share.moves;
      left = live;
      started = true;
    }
    CHECK(live <= spread_burst);
  }
}
