// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

// The spreading: how an exact wheel cascades without bursts. Every level L below the top has a second ring, its
// spread ring. The timers of level L's next span wait in one list of level L+1 (or of L+1's spread ring): the
// source. In the advances before that span begins, a bounded share of the source moves per advance into level L's
// spread ring; when the span begins the two rings swap, an index flip that touches no node, and what is left
// follows. This header holds the spreading's state and its arithmetic; the wheel (hierarchical_wheel.hpp) walks
// its lists and bitmaps with them.
//
// Vocabulary, used nowhere else for anything else:
//   source      the list level L's next span waits in;
//   share       how many of the source's timers move in one advance;
//   span start  the tick at which the spread ring swaps in (the next span of level L begins);
//   plan        what was worked out for a level, valid until its tick, a longer stride or a change to its source.

#include <timing_wheel/detail/config.hpp>
#include <timing_wheel/detail/slab.hpp>
#include <timing_wheel/types.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

TIMING_WHEEL_NAMESPACE_BEGIN
namespace detail {

// a / b rounded up, for any a (no a + b - 1 to overflow). Requires: b > 0.
[[nodiscard]] constexpr tick ceil_div(tick a, tick b) noexcept { return a == 0 ? 0 : (a - 1) / b + 1; }

// How many of a span's timers may still wait in the source when the span begins: a few cascade at once (cheaper
// than moving them one per advance when timers are sparse); a source holding more is spread. 8, not 2: sparse
// timers (W5, 1,000 over 2^32 ticks) no longer pay the spreading's planning for slots of 3 to 8 (10% fewer
// instructions an advance), and W2's moves per poll stay where they were (p99.9 81 to 82, max 88 to 90).
inline constexpr std::uint32_t spread_burst = 8;
// A share smaller than this waits, and moves this many an advance in the last advances before its span instead of
// one in each: the advances in between stay O(1) (sparse timers: W5). 32, not 8: each advance that moves a share
// pays for its planning once, and 32 timers share that better (W1 tick by tick: 8% fewer instructions a timer),
// while W2's poll percentiles stay where they were at 8.
inline constexpr std::uint32_t min_share = 32;
// How many occupied but uncrowded slots the wheel looks past for a crowded source before it plans to look again.
inline constexpr std::size_t sparse_slots_passed = 8;

// True when a source of `live` timers must be spread (more than spread_burst would cascade at the span start).
[[nodiscard]] constexpr bool must_spread(std::uint32_t live) noexcept { return live > spread_burst; }

// The advances min_share a time takes to move what a source of `live` timers must not leave to the span start.
[[nodiscard]] constexpr tick advances_to_spread(std::uint32_t live) noexcept {
  return ceil_div(live > spread_burst ? live - spread_burst : 0, min_share);
}

// What one level does at the end of an advance, given its source.
struct share_decision {
  std::uint32_t moves;  // timers to move from the source's front now (0: it waits)
  tick start;           // moves == 0: the tick at which the first share must move
  std::uint32_t room;   // moves == 0: the most timers the source may hold for `start` to stay right
};

// Works out a source's share. `live`: its timers now; `left`: what the last share left in it, meaningful when
// `started` (a share of this span has moved already); `span_start`: the tick the span begins (> now); `stride`:
// the ticks the next advances are expected to move (>= 1).
// Each advance moves what still waits beyond spread_burst divided by the advances left (rounded up), plus whatever
// arrived since the last share: otherwise a source fed while it is spread grows and its share swells as the span
// nears (W2: from 170 to 1,700 moves an advance in the last ticks before a level-2 span start). A source that
// min_share an advance would empty in time waits until then.
[[nodiscard]] constexpr share_decision decide_share(std::uint32_t live, std::uint32_t left, bool started, tick now,
                                                    tick span_start, tick stride) noexcept {
  const tick advances_left = ceil_div(span_start - now, stride);
  const std::uint32_t arrived = started && live > left ? live - left : 0;
  const std::uint32_t waiting = live - arrived > spread_burst ? live - arrived - spread_burst : 0;
  // `batches` advances ahead of the span start, in this stride, is later than now when it is under advances_left.
  if (const tick batches = ceil_div(waiting, min_share); arrived == 0 && batches < advances_left) {
    // The same start holds while the share still takes `batches` advances: arrivals up to that many wait too.
    const auto room = static_cast<std::uint32_t>(std::min<tick>(spread_burst + batches * min_share, UINT32_MAX));
    return {0, span_start - batches * stride, room};
  }
  const auto moves =
      static_cast<std::uint32_t>(std::min<tick>(live - spread_burst, ceil_div(waiting, advances_left) + arrived));
  return {moves, 0, 0};
}

// The spreading's whole state: what a value-initialised spreading_state holds is "nothing planned, nothing spread",
// so a move or a clear() resets it in one statement. `Levels`: the levels that have a spread ring.
template <std::size_t Levels>
struct spreading_state {
  // Per level (an array each: the wheel reads one or two of them a level), what was last worked out for it, valid
  // while its bit in `planned` is set: nothing to move before quiet[L], for advances of at most stride[L] ticks,
  // while source[L] (the source waiting to be spread, nil when none is crowded) holds at most room[L] timers.
  std::array<tick, Levels> quiet{};
  std::array<tick, Levels> stride{};
  std::array<std::uint32_t, Levels> source = no_sources();
  std::array<std::uint32_t, Levels> room{};
  std::array<tick, Levels> span_start{};     // where each spread ring swaps in
  std::array<std::uint32_t, Levels> left{};  // timers left in the source after the last share
  tick planned = 0;                          // bit L set while level L's plan holds
  tick quiet_stride = UINT64_MAX;            // the longest stride the quiet ticks assume
  // The shortest: the levels whose whole ring an advance of this many ticks crosses were passed over, not planned
  // (there is nothing to move ahead of a span that one advance crosses: its span start cascades it).
  tick least_stride = 0;
  // quiet_stride - least_stride, set with them by the wheel's spread(): the idle advance tests both in one comparison.
  tick stride_range = UINT64_MAX;
  // Nothing to do before this tick, at strides from least_stride to quiet_stride (0: look at the next advance).
  tick until = 0;

  // The level's source may have grown: it is looked at again at the next advance.
  void forget(std::size_t level) noexcept {
    until = 0;
    planned &= ~(tick{1} << level);
  }
  // The sources of the levels below `level` may have changed.
  void forget_below(std::size_t level) noexcept {
    until = 0;
    planned &= level >= 64 ? 0 : ~tick{0} << level;
  }
  // Every level's source may have changed.
  void forget_all() noexcept {
    until = 0;
    planned = 0;
  }
  // Level `level`'s plan stands at `now` for an advance of `ticks` ticks. (`level_bit`: 1 << level, which the
  // caller has at hand.)
  [[nodiscard]] bool holds(tick level_bit, std::size_t level, tick now, tick ticks) const noexcept {
    return (planned & level_bit) != 0 && now < quiet[level] && ticks <= stride[level];
  }

 private:
  [[nodiscard]] static constexpr std::array<std::uint32_t, Levels> no_sources() noexcept {
    std::array<std::uint32_t, Levels> sources{};
    sources.fill(nil);
    return sources;
  }
};

}  // namespace detail
TIMING_WHEEL_NAMESPACE_END
