#include "support/catch.hpp"
#include "support/helpers.hpp"
#include "support/queues.hpp"
#include "support/random_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

using namespace timing_wheel_test;
using timing_wheel::tick;

TEMPLATE_LIST_TEST_CASE("advance backwards fires nothing and changes nothing", "[advance]", all_queues<int>) {
  TestType q(500);
  q.insert(400, 1);  // due now
  q.insert(600, 2);
  CHECK(q.advance(499, [](tick, int&&) { FAIL("nothing may fire"); }) == 0);
  CHECK(q.now() == 500);
  CHECK(q.size() == 2);
  CHECK(q.next_expiration() == tick{500});
  CHECK(values(advance_collect(q, 600)) == std::vector<int>{1, 2});
}

TEMPLATE_LIST_TEST_CASE("advance sets now() to the fire time in callbacks and to the target after", "[advance]",
                        exact_queues<int>) {
  TestType q;
  q.insert(7, 1);
  q.insert(300, 2);
  q.insert(70'000, 3);
  const auto fired = advance_collect(q, 1'000'000);
  CHECK(fired == std::vector<firing<int>>{{7, 1, 7}, {300, 2, 300}, {70'000, 3, 70'000}});
  CHECK(q.now() == 1'000'000);
  CHECK(advance_collect(q, 1'000'000).empty());
}

TEMPLATE_LIST_TEST_CASE("timers scheduled by a callback at or before the target fire in the same call, in order",
                        "[advance]", exact_queues<int>) {
  TestType q;
  q.insert(10, 1);
  q.insert(12, 2);
  std::vector<firing<int>> fired;
  const auto count = q.advance(20, [&](tick deadline, int&& v) {
    fired.push_back({deadline, v, q.now()});
    if (v == 1) {
      q.insert(10, 10);  // due now: after everything already due at 10
      q.insert(12, 12);  // due at 12: after 2
      q.insert(5, 5);    // in the past: due now
      q.insert(21, 21);  // after the target: waits
    }
  });
  CHECK(count == 5);
  CHECK(fired == std::vector<firing<int>>{{10, 1, 10}, {10, 10, 10}, {5, 5, 10}, {12, 2, 12}, {12, 12, 12}});
  CHECK(q.size() == 1);
  CHECK(q.next_expiration() == tick{21});
}

TEMPLATE_LIST_TEST_CASE("huge jumps over sparse timers fire each at its own tick", "[advance]", exact_queues<int>) {
  TestType q(3);
  const std::vector<tick> deadlines{tick{1} << 20, (tick{1} << 36) + 5,  (tick{1} << 48) - 1,
                                    tick{1} << 48, (tick{1} << 60) + 77, UINT64_MAX - 1};
  for (std::size_t i = 0; i < deadlines.size(); ++i) q.insert(deadlines[deadlines.size() - 1 - i], static_cast<int>(i));
  std::vector<tick> seen;
  for (tick to = 3; to < UINT64_MAX - (tick{1} << 48);) {
    to += tick{1} << 48;  // 2^48 ticks at a time
    for (const auto& f : advance_collect(q, to)) seen.push_back(f.now);
  }
  for (const auto& f : advance_collect(q, UINT64_MAX)) seen.push_back(f.now);
  CHECK(seen == deadlines);
}

TEMPLATE_LIST_TEST_CASE("next_expiration is the earliest due time and is kept current", "[advance]",
                        exact_queues<int>) {
  TestType q(100);
  CHECK(!q.next_expiration());
  const auto a = q.insert(5000, 1);
  CHECK(q.next_expiration() == tick{5000});
  const auto b = q.insert(4097, 2);
  CHECK(q.next_expiration() == tick{4097});
  q.insert(1u << 30, 3);
  CHECK(q.next_expiration() == tick{4097});
  q.cancel(b);
  CHECK(q.next_expiration() == tick{5000});
  q.reschedule(a, 1 << 29);
  CHECK(q.next_expiration() == tick{1 << 29});
  q.advance(1 << 29, [](tick, int&&) {});
  CHECK(q.next_expiration() == tick{1u << 30});
}

TEMPLATE_LIST_TEST_CASE("advance takes a payload-only callable, and prefers the deadline form when both fit",
                        "[advance]", all_queues<int>) {
  TestType q;
  q.insert(5, 1);
  q.insert(9, 2);
  std::vector<int> payloads;
  CHECK(q.advance(6, [&](int&& v) { payloads.push_back(v); }) == 1);
  CHECK(q.now() == 6);
  std::vector<tick> deadlines;
  CHECK(q.advance(1000, [&](auto&&... args) {
    static_assert(sizeof...(args) == 2, "the (deadline, payload) form comes first");
    deadlines.push_back(std::get<0>(std::forward_as_tuple(args...)));
  }) == 1);
  CHECK(payloads == std::vector<int>{1});
  CHECK(deadlines == std::vector<tick>{9});
  CHECK(q.empty());
}

// A callable advance() cannot call is refused at the call: see tests/compile_fail (wrong_callback.cpp).
static_assert(timing_wheel::expiry_callback<void (*)(tick, int&&), int>);
static_assert(timing_wheel::expiry_callback<void (*)(int&&), int>);
static_assert(timing_wheel::expiry_callback<void (*)(tick, const int&), int>);
static_assert(!timing_wheel::expiry_callback<void (*)(int&), int>);
static_assert(!timing_wheel::expiry_callback<void (*)(tick, int&), int>);
static_assert(!timing_wheel::expiry_callback<void (*)(tick), std::string>);
static_assert(!timing_wheel::expiry_callback<void (*)(std::string&), std::string>);

// An advance remembers the next event it found; the idle advances after it (now() moving short of that event) keep
// it, and the next advance and next_expiration() start from it. check_invariants() compares what is remembered with
// a fresh search at every step here, while strides of a tick to a span's worth and the odd insertion and question
// move now() between events.
using remembering_wheels =
    std::tuple<hierarchical_wheel<int, 6, 6>, hierarchical_wheel<int, 16, 4>, hierarchical_wheel<int, 2, 3>,
               hierarchical_wheel<int, 1, 8>, hierarchical_wheel<int>, coarse_6x6<int>,
               hierarchical_wheel<int, 2, 3, precision::coarse>>;
TEMPLATE_LIST_TEST_CASE("idle advances keep the next event the last advance found", "[advance]", remembering_wheels) {
  constexpr bool exact = TestType::mode == precision::exact;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);  // replay: this seed alone reproduces the run
    rng random{seed};
    const unsigned span_bits = 6 + static_cast<unsigned>(random.below(30));
    const tick span = tick{1} << span_bits;
    TestType q;
    min_heap<int> reference;
    int id = 0;
    const auto insert = [&](tick deadline) {
      q.insert(deadline, id);
      reference.insert(deadline, id++);
    };
    for (int i = 0; i < 60; ++i) insert(1 + random.below(span));
    std::vector<int> fired;
    std::vector<int> expected;
    while (!reference.empty()) {
      const tick stride = random.below(4) == 0 ? 1 + random.below(span / 64 + 1) : 1 + random.below(3);
      const tick to = q.now() + stride;
      q.advance(to, [&](tick deadline, int&& value) {
        CHECK(deadline <= q.now());
        fired.push_back(value);
      });
      reference.advance(to, [&](int&& value) { expected.push_back(value); });
      REQUIRE(invariants_hold(q));
      if constexpr (exact) {
        REQUIRE(fired == expected);
        if (random.below(8) == 0) REQUIRE(q.next_expiration() == reference.next_expiration());
      } else if (random.below(8) == 0) {
        const std::optional<tick> next = q.next_expiration();  // a firing: after now(), if anything is pending
        REQUIRE(next.has_value() == !q.empty());
        if (next) REQUIRE(*next > q.now());
      }
      if (random.below(64) == 0) insert(q.now() + 1 + random.below(span / 4 + 1));
    }
    // A coarse wheel fires up to a granule late, less than the delay (at most `span`) past the due time.
    q.advance(q.now() + 2 * span + 1, [&](int&& value) { fired.push_back(value); });
    std::sort(fired.begin(), fired.end());
    std::sort(expected.begin(), expected.end());
    CHECK(fired == expected);
    CHECK(q.empty());
  }
}

// A cancel keeps the next event the last advance found unless it empties the list that event names, or that event is
// a spread ring's span start or the overflow store's. check_invariants() compares what is kept with a fresh search
// at every step, while cancels hit the next event's list, its last timer, spread rings and the overflow store.
TEMPLATE_LIST_TEST_CASE("cancels between advances keep the next event unless they take it", "[advance]",
                        remembering_wheels) {
  constexpr bool exact = TestType::mode == precision::exact;
  {
    TestType q;
    q.insert(5, 1);
    const timing_wheel::timer_handle first = q.insert(9, 2);
    q.insert(9, 3);
    q.advance(1, [](int&&) { FAIL("nothing is due"); });
    REQUIRE(invariants_hold(q));
    q.cancel(first);  // not the next event's list, or not its last timer: the next event stays
    REQUIRE(invariants_hold(q));
    const std::optional<tick> before = q.next_expiration();
    REQUIRE(before.has_value());
    q.advance(*before - 1, [](int&&) { FAIL("nothing is due"); });
    REQUIRE(invariants_hold(q));
    // Cancel every timer of the next firing: the event goes, and the next advance may not fire anything early.
    std::vector<int> taken;
    while (q.peek() && q.peek()->deadline <= *before) taken.push_back(*q.cancel(q.peek()->handle));
    REQUIRE(invariants_hold(q));
    CHECK(!taken.empty());
    CHECK(q.advance(*before, [](int&&) { FAIL("cancelled"); }) == 0);
    REQUIRE(invariants_hold(q));
  }
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    CAPTURE(seed);  // replay: this seed alone reproduces the run
    rng random{seed};
    const unsigned span_bits = 4 + static_cast<unsigned>(random.below(30));
    const tick span = tick{1} << span_bits;
    TestType q;
    min_heap<int> reference;
    std::vector<std::pair<timing_wheel::timer_handle, timing_wheel::timer_handle>> handles;
    const auto insert = [&](tick deadline) {
      const int id = static_cast<int>(handles.size());
      handles.emplace_back(q.insert(deadline, id), reference.insert(deadline, id));
    };
    for (int i = 0; i < 80; ++i) insert(1 + random.below(span));
    std::vector<int> fired;
    std::vector<int> expected;
    while (!reference.empty()) {
      const tick stride = random.below(4) == 0 ? 1 + random.below(span / 64 + 1) : 1 + random.below(3);
      const tick to = q.now() + stride;
      q.advance(to, [&](int&& value) { fired.push_back(value); });
      reference.advance(to, [&](int&& value) { expected.push_back(value); });
      REQUIRE(invariants_hold(q));
      if constexpr (exact) REQUIRE(fired == expected);
      // Cancels: half of them the timer that fires next (in the next event's list, often its last timer), the rest any.
      for (std::uint64_t cancels = random.below(3); cancels > 0; --cancels) {
        const std::optional<timing_wheel::timer_view<int>> next = q.peek();
        const std::size_t victim = random.below(2) == 0 && next
                                       ? static_cast<std::size_t>(*next->payload)
                                       : static_cast<std::size_t>(random.below(handles.size()));
        const bool taken = q.cancel(handles[victim].first).has_value();
        const bool was_pending = reference.cancel(handles[victim].second).has_value();
        if constexpr (exact) {
          CHECK(taken == was_pending);
        } else if (taken && !was_pending) {  // a coarse wheel fires late: the reference had fired it already
          expected.erase(std::find(expected.begin(), expected.end(), static_cast<int>(victim)));
        }
        REQUIRE(invariants_hold(q));
        if constexpr (exact) REQUIRE(q.next_expiration() == reference.next_expiration());
      }
      if (random.below(4) == 0) insert(q.now() + 1 + random.below(span / 4 + 1));
    }
    q.advance(q.now() + 2 * span + 1, [&](int&& value) { fired.push_back(value); });
    std::sort(fired.begin(), fired.end());
    std::sort(expected.begin(), expected.end());
    CHECK(fired == expected);
    CHECK(q.empty());
  }
}
