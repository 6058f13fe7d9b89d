// The structures and shapes every behaviour is tested on.
#pragma once

#include <timing_wheel/timing_wheel.hpp>

#include <cstdint>
#include <tuple>

namespace timing_wheel_test {
using timing_wheel::flat_wheel;
using timing_wheel::hierarchical_wheel;
using timing_wheel::min_heap;
using timing_wheel::precision;

template <class T>
using coarse_6x6 = hierarchical_wheel<T, 6, 6, precision::coarse>;

// Every queue that promises the exact order: non-decreasing due time, ties first-in first-out.
template <class T>
using exact_queues =
    std::tuple<min_heap<T>, flat_wheel<T, 256>, flat_wheel<T, 60>, flat_wheel<T, 1>, hierarchical_wheel<T>,
               hierarchical_wheel<T, 6, 6>, hierarchical_wheel<T, 16, 4>, hierarchical_wheel<T, 11, 6>,
               hierarchical_wheel<T, 2, 3>, hierarchical_wheel<T, 1, 8>, hierarchical_wheel<T, 3, 7>,
               hierarchical_wheel<T, 6, 12>, hierarchical_wheel<T, 3, 10>>;

template <class T>
using coarse_queues =
    std::tuple<coarse_6x6<T>, hierarchical_wheel<T, 16, 4, precision::coarse>,
               hierarchical_wheel<T, 11, 6, precision::coarse>, hierarchical_wheel<T, 2, 3, precision::coarse>,
               hierarchical_wheel<T, 1, 8, precision::coarse>, hierarchical_wheel<T, 4, 8, precision::coarse>,
               hierarchical_wheel<T, 3, 2, precision::coarse>, hierarchical_wheel<T, 8, 12, precision::coarse>>;

// Shapes for behaviours every queue shares (cancel, stale handles, payloads, exceptions).
template <class T>
using all_queues = std::tuple<min_heap<T>, flat_wheel<T, 256>, flat_wheel<T, 60>, hierarchical_wheel<T>,
                              hierarchical_wheel<T, 6, 6>, hierarchical_wheel<T, 16, 4>, hierarchical_wheel<T, 11, 6>,
                              hierarchical_wheel<T, 2, 3>, hierarchical_wheel<T, 1, 8>, coarse_6x6<T>,
                              hierarchical_wheel<T, 2, 3, precision::coarse>, hierarchical_wheel<T, 6, 12>>;

template <class Q>
constexpr bool is_coarse = false;
template <class T, std::size_t L, std::size_t B>
constexpr bool is_coarse<hierarchical_wheel<T, L, B, precision::coarse>> = true;

// How many steps apart a random run checks a queue's invariants: 4, or 64 for wheels of 1,024 slots a level and
// more, whose check walks every slot list (45,056 of them at Bits = 12: checked every 4 steps, one such shape took
// longer than the other twelve together).
template <class Q>
constexpr std::size_t check_interval = 4;
template <class T, std::size_t L, std::size_t B, precision P, class I>
constexpr std::size_t check_interval<hierarchical_wheel<T, L, B, P, I>> = B >= 10 ? 64 : 4;

// Checks a queue's internal invariants. A queue without a checker does not compile here: a test that cannot check
// would pass whatever the queue holds.
template <class Q>
bool invariants_hold(const Q& q) {
  static_assert(
      requires { q.check_invariants(); }, "invariants_hold() needs a queue with check_invariants()");
  return q.check_invariants();
}

}  // namespace timing_wheel_test
