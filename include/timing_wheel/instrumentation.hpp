// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

// Instrumentation (opt-in): a policy that counts what a queue does, for every queue's trailing template parameter.
//
//     timing_wheel::flat_wheel<int, 60, timing_wheel::counting_instrumentation> ring;
//     ring.insert(90, 1);
//     ring.advance(90, [](timing_wheel::tick, int&&) {});
//     const auto& counts = ring.instrumentation();   // inspections 2 (tick 30: a later revolution's; tick 90: fired)

#include <timing_wheel/timer_queue.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

TIMING_WHEEL_NAMESPACE_BEGIN

/// Counts every event an instrumentation_policy is told of. Plain counters, no atomics: one queue, one thread.
struct counting_instrumentation {
  std::uint64_t inserts = 0;             ///< timers inserted
  std::uint64_t cancels = 0;             ///< timers cancelled
  std::uint64_t fires = 0;               ///< timers fired
  std::uint64_t inspections = 0;         ///< timers looked at while a slot was processed
  std::uint64_t empty_looks = 0;         ///< of those, timers put back because not yet due
  std::uint64_t cascades = 0;            ///< timers moved down a level (or in from the overflow store)
  std::uint64_t comparisons = 0;         ///< heap comparisons of two timers
  std::uint64_t slots_processed = 0;     ///< slot visits (fired or cascaded)
  std::uint64_t max_slot_occupancy = 0;  ///< the most timers met in one slot visit

  void inserted() noexcept { ++inserts; }          ///< counts one
  void cancelled() noexcept { ++cancels; }         ///< counts one
  void fired() noexcept { ++fires; }               ///< counts one
  void inspected() noexcept { ++inspections; }     ///< counts one
  void looked_empty() noexcept { ++empty_looks; }  ///< counts one
  void cascaded() noexcept { ++cascades; }         ///< counts one
  void compared() noexcept { ++comparisons; }      ///< counts one
  /// Counts a slot visit and keeps the largest occupancy seen.
  void slot_processed(std::size_t timers) noexcept {
    ++slots_processed;
    max_slot_occupancy = std::max<std::uint64_t>(max_slot_occupancy, timers);
  }

  /// Returns: every timer looked at, in one unit: wheel inspections plus heap comparisons.
  [[nodiscard]] std::uint64_t looks() const noexcept { return inspections + comparisons; }
  /// Effects: every counter back to zero.
  void reset() noexcept { *this = counting_instrumentation{}; }
};
static_assert(instrumentation_policy<counting_instrumentation>);
static_assert(instrumentation_policy<no_instrumentation>);

TIMING_WHEEL_NAMESPACE_END
