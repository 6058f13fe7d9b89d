// The structures and shapes every behaviour is tested on.
#pragma once

#include <timing_wheel/timing_wheel.hpp>

#include <cstdint>
#include <tuple>
#include <utility>

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
    std::tuple<min_heap<T>, flat_wheel<T, 256>, flat_wheel<T, 60>, flat_wheel<T, 1>, hierarchical_wheel<T, 8, 8>,
               hierarchical_wheel<T, 6, 6>, hierarchical_wheel<T, 16, 4>, hierarchical_wheel<T, 11, 6>,
               hierarchical_wheel<T, 2, 3>, hierarchical_wheel<T, 1, 8>, hierarchical_wheel<T, 3, 7>>;

template <class T>
using coarse_queues =
    std::tuple<coarse_6x6<T>, hierarchical_wheel<T, 16, 4, precision::coarse>,
               hierarchical_wheel<T, 11, 6, precision::coarse>, hierarchical_wheel<T, 2, 3, precision::coarse>,
               hierarchical_wheel<T, 1, 8, precision::coarse>, hierarchical_wheel<T, 4, 8, precision::coarse>,
               hierarchical_wheel<T, 3, 2, precision::coarse>>;

// Shapes for behaviours every queue shares (cancel, stale handles, payloads, exceptions).
template <class T>
using all_queues = std::tuple<min_heap<T>, flat_wheel<T, 256>, flat_wheel<T, 60>, hierarchical_wheel<T, 8, 8>,
                              hierarchical_wheel<T, 6, 6>, hierarchical_wheel<T, 16, 4>, hierarchical_wheel<T, 11, 6>,
                              hierarchical_wheel<T, 2, 3>, hierarchical_wheel<T, 1, 8>, coarse_6x6<T>,
                              hierarchical_wheel<T, 2, 3, precision::coarse>>;

// Wide levels (1,024 and 4,096 slots, a summary word over each bitmap; the top level of the default 6x12 and of 8x12
// reaches bit 63, 3x10 keeps an overflow heap): random-tested against the model and fuzzed beside the shapes above,
// but kept out of the lists every behaviour's test instantiates (one 6x12 there made a test file 16% slower to
// compile, and compiling is most of CI's time). The default shape is also what every test of the std::chrono, Asio,
// libuv and cross-thread front ends runs on.
template <class T>
using wide_exact_queues = std::tuple<hierarchical_wheel<T>, hierarchical_wheel<T, 3, 10>>;
template <class T>
using wide_coarse_queues = std::tuple<hierarchical_wheel<T, 8, 12, precision::coarse>>;
// all_queues and the default wheel, for the programs of their own that every shape must pass (allocation failure,
// no allocation after reserve).
template <class T>
using all_queues_and_default =
    decltype(std::tuple_cat(std::declval<all_queues<T>>(), std::declval<std::tuple<hierarchical_wheel<T>>>()));
template <class T>
using randomised_exact_queues =
    decltype(std::tuple_cat(std::declval<exact_queues<T>>(), std::declval<wide_exact_queues<T>>()));
template <class T>
using randomised_coarse_queues =
    decltype(std::tuple_cat(std::declval<coarse_queues<T>>(), std::declval<wide_coarse_queues<T>>()));

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
