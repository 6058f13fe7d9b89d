// The geometry policies on their own (detail/wheel_geometry.hpp): where a due time goes and when it fires there,
// checked against what each mode promises, digit by digit, on several shapes, without a wheel around them.
#include "support/catch.hpp"
#include "support/random_ops.hpp"

#include <timing_wheel/detail/bitmap.hpp>
#include <timing_wheel/detail/wheel_geometry.hpp>
#include <timing_wheel/hierarchical_wheel.hpp>
#include <timing_wheel/instrumentation.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

using namespace timing_wheel_test;
using timing_wheel::tick;
using timing_wheel::detail::coarse_geometry;
using timing_wheel::detail::exact_geometry;
using timing_wheel::detail::wheel_position;

namespace {

// Digit `level` of t in base 2^Bits, or 0 past bit 63.
template <std::size_t Bits>
[[nodiscard]] tick digit(tick t, std::size_t level) {
  const std::size_t shift = Bits * level;
  return shift >= 64 ? 0 : (t >> shift) & ((tick{1} << Bits) - 1);
}
template <std::size_t Bits>
[[nodiscard]] tick above(tick t, std::size_t level) {  // the digits above `level`
  const std::size_t shift = Bits * (level + 1);
  return shift >= 64 ? 0 : t >> shift;
}

using exact_shapes =
    std::tuple<exact_geometry<8, 8>, exact_geometry<6, 6>, exact_geometry<2, 3>, exact_geometry<16, 4>,
               exact_geometry<1, 8>, exact_geometry<11, 6>, exact_geometry<6, 12>, exact_geometry<3, 11>>;
using coarse_shapes = std::tuple<coarse_geometry<8, 8>, coarse_geometry<6, 6>, coarse_geometry<4, 3>,
                                 coarse_geometry<3, 2>, coarse_geometry<12, 4>, coarse_geometry<4, 12>>;

// The occupancy bitmaps of every level of geometry G, and which levels hold a timer.
template <class G>
struct occupancy {
  std::array<timing_wheel::detail::bitmap<G::slots>, G::active_levels> rings{};
  tick used = 0;
  void set(std::size_t level, tick slot) {
    rings[level].set(slot);
    used |= tick{1} << level;
  }
  [[nodiscard]] auto earliest(tick now) const { return G::earliest_slot(used, rings.data(), now); }
};

static_assert(timing_wheel::detail::wheel_geometry<exact_geometry<8, 8>>);
static_assert(timing_wheel::detail::wheel_geometry<coarse_geometry<6, 6>>);

}  // namespace

TEMPLATE_LIST_TEST_CASE("geometry, exact: a due time waits in the highest digit in which it differs from now",
                        "[geometry]", exact_shapes) {
  using g = TestType;
  rng r{seed_or(41)};
  INFO("replay with TIMING_WHEEL_SEED=" << r.state);
  for (int i = 0; i < 20000; ++i) {
    const tick now = r.below(2) == 0 ? r.below(1 << 16) : r.next();
    const tick due = std::max(now, random_time(r, now));
    const wheel_position at = g::locate(due, now);
    CHECK(at.fire == due);
    std::size_t highest = 0;  // the highest differing digit, by brute force
    for (std::size_t level = 0; level * g::bits < 64; ++level) {
      if (digit<g::bits>(due, level) != digit<g::bits>(now, level)) highest = level;
    }
    if (highest >= g::levels) {
      CHECK(at.level == wheel_position::beyond);
      CHECK(g::may_overflow);
      continue;
    }
    REQUIRE(at.level == highest);
    CHECK(at.slot == digit<g::bits>(due, highest));
    CHECK(above<g::bits>(due, highest) == above<g::bits>(now, highest));
    CHECK(g::holds(at.level, at.slot, due, now) == (at.level == 0 || due > now));
    CHECK(g::fire_time(due, at.level, at.slot, now) == due);
    if (at.level > 0) CHECK_FALSE(g::holds(at.level, (at.slot + 1) & g::slot_mask, due, now));
    CHECK(g::max_lateness(due - now) == 0);
  }
}

TEMPLATE_LIST_TEST_CASE("geometry, exact: the next event is the lowest occupied level's first slot, at its span start",
                        "[geometry]", exact_shapes) {
  using g = TestType;
  rng r{seed_or(42)};
  INFO("replay with TIMING_WHEEL_SEED=" << r.state);
  for (int i = 0; i < 5000; ++i) {
    const tick now = r.next() >> r.below(64);
    occupancy<g> occupied;
    // Slots a timer may occupy: level 0 at or after now()'s digit, higher levels after it (the wheel's invariant).
    for (std::size_t level = 0; level < g::active_levels; ++level) {
      if (r.below(3) != 0) continue;
      // (A top level reaching past bit 63 has fewer digits than slots: 16 at Bits 12, whose sixth level starts at 60.)
      const tick from = digit<g::bits>(now, level) + (level == 0 ? 0 : 1);
      const tick last = digit<g::bits>(UINT64_MAX, level);
      if (from > last) continue;
      occupied.set(level, from + r.below(last - from + 1));
    }
    const auto event = occupied.earliest(now);
    if (occupied.used == 0) {
      CHECK(event.level == wheel_position::beyond);
      continue;
    }
    const auto lowest = static_cast<std::size_t>(std::countr_zero(occupied.used));
    REQUIRE(event.level == lowest);
    CHECK(event.slot == occupied.rings[lowest].find_first());
    // The first tick at or after now whose digit there is the slot's, with every digit below it zero (level 0: the
    // tick itself), and every digit above it now()'s.
    CHECK(event.at >= now);
    CHECK(digit<g::bits>(event.at, lowest) == event.slot);
    CHECK(above<g::bits>(event.at, lowest) == above<g::bits>(now, lowest));
    for (std::size_t level = 0; level < lowest; ++level) CHECK(digit<g::bits>(event.at, level) == 0);
  }
}

TEMPLATE_LIST_TEST_CASE("geometry, coarse: placed in the lowest level that reaches, fired rounded up, never early",
                        "[geometry]", coarse_shapes) {
  using g = TestType;
  rng r{seed_or(43)};
  INFO("replay with TIMING_WHEEL_SEED=" << r.state);
  for (int i = 0; i < 20000; ++i) {
    const tick now = r.below(2) == 0 ? r.below(1 << 16) : r.next() >> r.below(64);
    const tick due = std::max(now, random_time(r, now));
    const wheel_position at = g::locate(due, now);
    if (at.level == wheel_position::beyond) {
      // Only what no level reaches, or what would round past the last tick.
      CHECK((due - now > g::horizon || due > UINT64_MAX - g::granule(g::active_levels - 1) * g::slots));
      continue;
    }
    REQUIRE(at.level < g::active_levels);
    const tick granule = g::granule(at.level);
    CHECK(at.fire >= due);
    CHECK(at.fire - due < granule);
    CHECK(at.fire - due <= g::max_lateness(due - now));
    CHECK(at.fire % granule == 0);
    CHECK(at.slot == ((at.fire / granule) & g::slot_mask));
    // The slot fires at that time, as now() stands: the ring reaches it within one revolution.
    CHECK(g::slot_time(at.level, at.slot, now) == at.fire);
    CHECK(g::fire_time(due, at.level, at.slot, now) == at.fire);
    CHECK(g::holds(at.level, at.slot, due, now));
    // No lower level reaches it: there it would be a revolution or more away.
    if (at.level > 0 && due > now) {
      const std::size_t below = at.level - 1;
      const std::size_t shift = g::level_shift * below;
      CHECK(((due - 1) >> shift) - (now >> shift) > g::slots - 2);
    }
  }
}

TEMPLATE_LIST_TEST_CASE("geometry, coarse: the next event is the earliest slot time over every level", "[geometry]",
                        coarse_shapes) {
  using g = TestType;
  rng r{seed_or(44)};
  INFO("replay with TIMING_WHEEL_SEED=" << r.state);
  for (int i = 0; i < 5000; ++i) {
    const tick now = r.next() >> r.below(64);
    occupancy<g> occupied;
    tick earliest = UINT64_MAX;
    for (std::size_t level = 0; level < g::active_levels; ++level) {
      for (int k = 0; k < 2; ++k) {
        if (r.below(3) != 0) continue;
        // Never the slot of now()'s own granule once now() is inside it: a timer there would have fired.
        const std::size_t shift = g::level_shift * level;
        const tick slot = r.below(g::slots);
        if (slot == ((now >> shift) & g::slot_mask) && (now & timing_wheel::detail::low_mask(shift)) != 0) continue;
        occupied.set(level, slot);
        const tick when = g::slot_time(level, slot, now);
        CHECK(when >= now);
        earliest = std::min(earliest, when);
      }
    }
    const auto event = occupied.earliest(now);
    if (occupied.used == 0) {
      CHECK(event.level == wheel_position::beyond);
      continue;
    }
    REQUIRE(event.level < g::active_levels);
    CHECK(occupied.rings[event.level].test(event.slot));
    CHECK(event.at == earliest);
  }
}

TEST_CASE("geometry: the shapes' constants, worked by hand", "[geometry]") {
  static_assert(exact_geometry<8, 8>::horizon == UINT64_MAX && !exact_geometry<8, 8>::may_overflow);
  static_assert(exact_geometry<6, 6>::horizon == tick{1} << 36 && exact_geometry<6, 6>::may_overflow);
  static_assert(exact_geometry<20, 6>::active_levels == 11);  // levels past bit 63 are not built
  static_assert(coarse_geometry<6, 6>::level_shift == 3 && coarse_geometry<6, 6>::horizon == tick{62} << 15);
  static_assert(coarse_geometry<8, 3>::level_shift == 1);
  STATIC_REQUIRE(coarse_geometry<6, 6>::max_lateness(0) == 0);
  STATIC_REQUIRE(coarse_geometry<6, 6>::max_lateness(62) == 0);  // level 0 reaches 62 ticks
  STATIC_REQUIRE(coarse_geometry<6, 6>::max_lateness(64) == 7);  // then level 1, granule 8
  STATIC_REQUIRE(coarse_geometry<6, 6>::locate(100, 100).level == 0);
  STATIC_REQUIRE(coarse_geometry<6, 6>::locate(170, 100).level == 1);
  STATIC_REQUIRE(coarse_geometry<6, 6>::locate(170, 100).fire == 176);  // rounded up to level 1's granule, 8
  STATIC_REQUIRE(exact_geometry<6, 6>::locate(64, 63).level == 1);      // one tick, but a digit above
  // Wide levels: 4,096 slots, six levels reach bit 63 (the top one holds its last four bits).
  static_assert(exact_geometry<6, 12>::slots == 4096 && exact_geometry<6, 12>::horizon == UINT64_MAX);
  static_assert(exact_geometry<8, 12>::active_levels == 6 && exact_geometry<3, 11>::horizon == tick{1} << 33);
  STATIC_REQUIRE(exact_geometry<6, 12>::locate(4095, 0).level == 0);
  STATIC_REQUIRE(exact_geometry<6, 12>::locate(4096, 4095).level == 1);
  STATIC_REQUIRE(exact_geometry<6, 12>::locate(UINT64_MAX, 0).level == 5);
  STATIC_REQUIRE(exact_geometry<6, 12>::locate(UINT64_MAX, 0).slot == 15);
  STATIC_REQUIRE(coarse_geometry<4, 12>::level_shift == 9 && coarse_geometry<4, 12>::max_lateness(4094) == 0);
  STATIC_REQUIRE(coarse_geometry<4, 12>::max_lateness(4096) == 511);
}

TEST_CASE("wide levels: a timer due within the level-0 ring never moves, a later one moves once", "[geometry]") {
  using wide = timing_wheel::hierarchical_wheel<int, 6, 12, timing_wheel::precision::exact,
                                                timing_wheel::counting_instrumentation>;
  auto q = std::make_unique<wide>(tick{5});
  for (int i = 0; i < 4'000; ++i) q->insert(5 + 1 + static_cast<tick>(i), i);  // all within now()'s level-0 span
  std::vector<tick> fired;
  for (tick t = 6; t <= 4'100; ++t) q->advance(t, [&](tick deadline, int&&) { fired.push_back(deadline); });
  CHECK(fired.size() == 4'000);
  CHECK(std::is_sorted(fired.begin(), fired.end()));
  CHECK(q->instrumentation().cascades == 0);
  // Two level-0 spans on: they wait a level up and move down once (a lone timer there would fire straight from it).
  q->insert(3 * 4'096 + 9, 1);
  q->insert(3 * 4'096 + 7, 2);
  REQUIRE(q->check_invariants());
  q->advance(4 * 4'096, [&](tick deadline, int&&) { fired.push_back(deadline); });
  CHECK(fired.size() == 4'002);
  CHECK(fired.back() == 3 * 4'096 + 9);
  CHECK(q->instrumentation().cascades == 2);
  CHECK(q->check_invariants());
}
