// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

// What an exact and a coarse hierarchical wheel differ in, as two geometry policies behind one concept: the
// levels' granules and reach, where a due time goes, when a slot's timers fire, which occupied slot comes next.
// The wheel (hierarchical_wheel.hpp) asks its geometry and has no branch on its mode of its own; everything here is
// pure arithmetic on ticks and bitmaps, tested on its own (tests/geometry_test.cpp).
//
// Levels, slots and digits: level L is a ring of 2^Bits slots, each standing for granule(L) ticks. exact: granule(L)
// = 2^(Bits * L), and a due time waits in the highest base-2^Bits digit in which it differs from now(), cascading
// down as now() reaches it. coarse: granule(L) = 2^(level_shift * L) with level_shift = Bits - 3 (1 when Bits < 4):
// levels overlap, as Linux's do, and a due time is placed once, in the lowest level whose ring reaches it, rounded
// up to that level's granule.

#include <timing_wheel/detail/config.hpp>
#include <timing_wheel/types.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>

TIMING_WHEEL_NAMESPACE_BEGIN
namespace detail {

[[nodiscard]] constexpr tick low_mask(std::size_t bits) noexcept {
  return bits >= 64 ? ~tick{0} : (tick{1} << bits) - 1;
}

// Where a due time goes: a level and a slot of that level's ring, or beyond the wheel (level == beyond); and when
// it fires there.
struct wheel_position {
  static constexpr std::uint32_t beyond = UINT32_MAX;
  std::uint32_t level;
  tick slot;
  tick fire;
};

// The next occupied slot over all levels and the tick its event happens at, or level == wheel_position::beyond.
struct slot_event {
  std::uint32_t level;
  tick slot;
  tick at;
};

// Shared by both geometries: the shape and the granules.
template <std::size_t Levels, std::size_t Bits, std::size_t Shift>
struct geometry_shape {
  static constexpr std::size_t levels = Levels;
  static constexpr std::size_t bits = Bits;
  static constexpr std::size_t slots = std::size_t{1} << Bits;
  static constexpr tick slot_mask = slots - 1;
  static constexpr std::size_t level_shift = Shift;  // log2 of the ratio between adjacent levels' granules
  // Levels whose granule fits in a tick; any further levels would stay empty and are not built.
  static constexpr std::size_t active_levels = std::min(Levels, 63 / Shift + 1);

  [[nodiscard]] static constexpr tick granule(std::size_t level) noexcept {
    return level < active_levels ? tick{1} << (Shift * level) : 0;
  }
};

// Exact: cascading, every timer fired on its own due tick.
template <std::size_t Levels, std::size_t Bits>
struct exact_geometry : geometry_shape<Levels, Bits, Bits> {
  using shape = geometry_shape<Levels, Bits, Bits>;
  using shape::slot_mask;
  static constexpr bool cascades = true;  // timers move down the levels; only level 0 fires
  // The aligned span of ticks the wheel covers, or UINT64_MAX when it is the whole tick range.
  static constexpr tick horizon = Levels * Bits >= 64 ? UINT64_MAX : tick{1} << (Levels * Bits);
  static constexpr bool may_overflow = Levels * Bits < 64;  // due times outside now()'s span wait in a heap

  [[nodiscard]] static constexpr tick max_lateness(tick /*delay*/) noexcept { return 0; }

  // For each bit of a tick: the base-2^Bits digit it belongs to, and that digit's lowest bit.
  struct digit_table {
    std::array<std::uint8_t, 64> level;
    std::array<std::uint8_t, 64> shift;
  };
  static constexpr digit_table digit_tables = [] {
    digit_table table{};
    for (std::size_t bit = 0; bit < 64; ++bit) {
      table.level[bit] = static_cast<std::uint8_t>(bit / Bits);
      table.shift[bit] = static_cast<std::uint8_t>(bit / Bits * Bits);
    }
    return table;
  }();

  // The highest base-2^Bits digit in which due and now differ: the timer waits in that level until now() reaches
  // the span of its slot there, and no lower level can tell its slot apart from now()'s. Requires: due >= now.
  // (The level and its shift come from tables indexed by the highest differing bit: dividing by Bits and
  // multiplying back took 15 instructions and a multiply's latency, the lookups 11.)
  TIMING_WHEEL_HOT [[nodiscard]] static constexpr wheel_position locate(tick due, tick now) noexcept {
    const unsigned highest = static_cast<unsigned>(std::countl_zero((due ^ now) | 1)) ^ 63U;
    const std::uint32_t level = digit_tables.level[highest];
    if (may_overflow && level >= Levels) return {wheel_position::beyond, 0, due};
    return {level, (due >> digit_tables.shift[highest]) & slot_mask, due};
  }

  // When a timer due at `deadline` in (level, slot) fires: its due time (a level-0 slot holding a timer inserted
  // past due fires at now(), the due time it was given).
  [[nodiscard]] static constexpr tick fire_time(tick deadline, std::size_t /*level*/, tick /*slot*/,
                                                tick now) noexcept {
    return std::max(deadline, now);
  }

  // Every timer of a lower level is due before any timer of a higher one, so the lowest occupied level holds the
  // next event; within it, the occupied slots are all above now()'s digit, in order (no wrap-around). The event
  // is the start of the slot's span: level 0 fires there, higher levels cascade.
  template <class Ring>
  [[nodiscard]] static slot_event earliest_slot(tick levels_used, const Ring* occupied, tick now) noexcept {
    if (levels_used == 0) return {wheel_position::beyond, 0, 0};
    const auto level = static_cast<std::size_t>(std::countr_zero(levels_used));
    const tick slot = occupied[level].find_first();
    const std::size_t shift = level * Bits;
    return {static_cast<std::uint32_t>(level), slot, (now & ~low_mask(shift + Bits)) | (slot << shift)};
  }

  // When the overflow timer due at `due` needs the wheel: the start of its span of the whole wheel (it moves in).
  [[nodiscard]] static constexpr tick overflow_event(tick due) noexcept { return due & ~low_mask(Levels * Bits); }

  // check_invariants(): a timer due at `deadline` belongs in (level, slot) at now.
  [[nodiscard]] static constexpr bool holds(std::size_t level, tick slot, tick deadline, tick now) noexcept {
    if (level == 0) {
      const tick fire = (now & ~slot_mask) | slot;
      return fire >= now && deadline <= fire;
    }
    const wheel_position at = locate(deadline, now);
    return deadline > now && at.level == level && at.slot == slot;
  }
};

// Coarse: placed once, fired at the due time rounded up to its level's granule.
template <std::size_t Levels, std::size_t Bits>
struct coarse_geometry : geometry_shape<Levels, Bits, (Bits >= 4 ? Bits - 3 : 1)> {
  using shape = geometry_shape<Levels, Bits, (Bits >= 4 ? Bits - 3 : 1)>;
  using shape::active_levels;
  using shape::granule;
  using shape::level_shift;
  using shape::slot_mask;
  using shape::slots;
  static_assert(Bits >= 2,
                "coarse mode needs Bits >= 2: rings of 2 slots reach no granule ahead, so a timer could fire up to "
                "2^62 ticks late");
  static constexpr bool cascades = false;

  // The longest delay that always lands in the wheel: the top ring less now()'s slot and the ambiguous last one.
  [[nodiscard]] static constexpr tick top_reach() noexcept {
    const std::size_t top_shift = level_shift * (active_levels - 1);
    if (top_shift + Bits >= 64) return UINT64_MAX;
    const tick reach_in_granules = tick{slots} - 2;
    return reach_in_granules << top_shift;
  }
  static constexpr tick horizon = top_reach();
  static constexpr bool may_overflow = true;  // for the last granules of time, whose fire time would round past

  [[nodiscard]] static constexpr tick max_lateness(tick delay) noexcept {
    if (delay == 0) return 0;
    for (std::size_t level = 0; level < active_levels; ++level) {
      if (((delay - 1) >> (level_shift * level)) + 1 <= slots - 2) return granule(level) - 1;
    }
    return granule(active_levels - 1) - 1;
  }

  // The lowest level whose ring reaches the due time rounded up to its granule, short of a full revolution (whose
  // slot would be ambiguous). Requires: due >= now.
  TIMING_WHEEL_HOT [[nodiscard]] static constexpr wheel_position locate(tick due, tick now) noexcept {
    if (due == now) return {0, now & slot_mask, due};
    for (std::size_t level = 0; level < active_levels; ++level) {
      const std::size_t shift = level_shift * level;
      const tick rounded_down = (due - 1) >> shift;             // fire time = (rounded_down + 1) << shift
      if (rounded_down - (now >> shift) > slots - 2) continue;  // a full revolution away: ambiguous slot
      if (rounded_down == (UINT64_MAX >> shift)) break;         // would round up past the last tick
      return {static_cast<std::uint32_t>(level), (rounded_down + 1) & slot_mask, (rounded_down + 1) << shift};
    }
    return {wheel_position::beyond, 0, due};
  }

  // The first tick at or after now whose granule in `level` is the slot's, this revolution of the ring or the next.
  [[nodiscard]] static constexpr tick slot_time(std::size_t level, tick slot, tick now) noexcept {
    const std::size_t shift = level_shift * level;
    const tick revolution = now >> shift;
    return (revolution + ((slot - revolution) & slot_mask)) << shift;
  }

  [[nodiscard]] static constexpr tick fire_time(tick /*deadline*/, std::size_t level, tick slot, tick now) noexcept {
    return slot_time(level, slot, now);
  }

  // Levels overlap in time, so every level is asked; each ring is searched from now()'s slot round.
  template <class Ring>
  [[nodiscard]] static slot_event earliest_slot(tick levels_used, const Ring* occupied, tick now) noexcept {
    slot_event best{wheel_position::beyond, 0, UINT64_MAX};
    for (tick used = levels_used; used != 0; used &= used - 1) {
      const auto level = static_cast<std::size_t>(std::countr_zero(used));
      const tick slot = occupied[level].find_next_wrapping((now >> (level_shift * level)) & slot_mask);
      const tick at = slot_time(level, slot, now);
      if (best.level == wheel_position::beyond || at < best.at) best = {static_cast<std::uint32_t>(level), slot, at};
    }
    return best;
  }

  // An overflow timer fires from there, on its due time.
  [[nodiscard]] static constexpr tick overflow_event(tick due) noexcept { return due; }

  [[nodiscard]] static constexpr bool holds(std::size_t level, tick slot, tick deadline, tick now) noexcept {
    const tick fire = slot_time(level, slot, now);
    return fire >= now && fire >= deadline;
  }
};

// What the wheel asks of a geometry. (earliest_slot() is given each level's occupancy bitmap, level 0 first.)
struct geometry_probe_ring {
  [[nodiscard]] std::size_t find_first() const noexcept { return 0; }
  [[nodiscard]] std::size_t find_next_wrapping(std::size_t /*from*/) const noexcept { return 0; }
};
template <class G>
concept wheel_geometry = requires(tick t, std::size_t level, const geometry_probe_ring* occupied) {
  { G::levels } -> std::convertible_to<std::size_t>;
  { G::bits } -> std::convertible_to<std::size_t>;
  { G::slots } -> std::convertible_to<std::size_t>;
  { G::level_shift } -> std::convertible_to<std::size_t>;
  { G::active_levels } -> std::convertible_to<std::size_t>;
  { G::horizon } -> std::convertible_to<tick>;
  { G::cascades } -> std::convertible_to<bool>;
  { G::may_overflow } -> std::convertible_to<bool>;
  { G::granule(level) }
  noexcept->std::same_as<tick>;
  { G::max_lateness(t) }
  noexcept->std::same_as<tick>;
  { G::locate(t, t) }
  noexcept->std::same_as<wheel_position>;
  { G::fire_time(t, level, t, t) }
  noexcept->std::same_as<tick>;
  { G::earliest_slot(t, occupied, t) }
  noexcept->std::same_as<slot_event>;
  { G::overflow_event(t) }
  noexcept->std::same_as<tick>;
  { G::holds(level, t, t, t) }
  noexcept->std::same_as<bool>;
};

}  // namespace detail
TIMING_WHEEL_NAMESPACE_END
