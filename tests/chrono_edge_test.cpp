// timer_service at the ends of its clock: time_point::min() and max(), saturating schedule_after, epochs near
// either end, polls at max(), on manual clocks of several reps, periods and resolutions. Every timer fires exactly
// once and never early, and time_until_next() / timeout_ms() never answer 0 when a poll would fire nothing.
#include "support/catch.hpp"
#include "support/random_ops.hpp"

#include <timing_wheel/chrono.hpp>
#include <timing_wheel/flat_wheel.hpp>
#include <timing_wheel/min_heap.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <ratio>
#include <string>
#include <vector>

using namespace timing_wheel_test;

namespace {
template <class Rep, class Period>
struct edge_clock {
  using rep = Rep;
  using period = Period;
  using duration = std::chrono::duration<Rep, Period>;
  using time_point = std::chrono::time_point<edge_clock>;
  [[maybe_unused]] static constexpr bool is_steady = true;
  static inline time_point current{};
  static time_point now() noexcept { return current; }
};

template <class U>
using coarse_queue = timing_wheel::hierarchical_wheel<U, 6, 6, timing_wheel::precision::coarse>;
template <class U>
using tiny_coarse_queue = timing_wheel::hierarchical_wheel<U, 2, 3, timing_wheel::precision::coarse>;
template <class U>
using flat_queue = timing_wheel::flat_wheel<U, 64>;
template <class U>
using heap_queue =
    timing_wheel::min_heap<U>;  // an alias: clang 14 takes no defaulted parameters for `template <class>`

// Schedules timers at and near both ends of the clock from several epochs, polls towards max() and at max(), and
// checks each firing and each answer of time_until_next() against what was scheduled.
template <class Clock, class Resolution, template <class> class Queue>
void run_edges(Resolution resolution, std::uint64_t seed) {
  using service_type = timing_wheel::timer_service<int, Clock, Resolution, Queue>;
  using time_point = typename Clock::time_point;
  using duration = typename Clock::duration;
  const time_point lo = time_point::min();
  const time_point hi = time_point::max();
  const duration unit = std::chrono::ceil<duration>(resolution);
  rng r{seed};
  // How far max() is from `from`, in clock units, capped at what one duration holds.
  const auto room = [&](time_point from) {
    const auto span = static_cast<std::uint64_t>(hi.time_since_epoch().count()) -
                      static_cast<std::uint64_t>(from.time_since_epoch().count());
    return std::min<std::uint64_t>(span, static_cast<std::uint64_t>(duration::max().count()));
  };
  const std::vector<time_point> epochs = {lo, lo + unit * 3, time_point{}, hi - unit * 5, hi - unit / 2 - duration(1),
                                          hi};
  for (const time_point epoch : epochs) {
    INFO("epoch " << epoch.time_since_epoch().count());
    Clock::current = epoch;
    service_type s(epoch, resolution);
    std::vector<time_point> when;  // by id: the time point it may not fire before
    std::vector<int> fired_count;
    const auto at = [&](time_point t) {
      s.schedule_at(t, static_cast<int>(when.size()));
      when.push_back(std::max(t, epoch));
      fired_count.push_back(0);
    };
    const auto after = [&](duration d) {
      const time_point now = Clock::now();
      const time_point t = d > duration::zero() && now > hi - d   ? hi
                           : d < duration::zero() && now < lo - d ? lo
                                                                  : now + d;
      s.schedule_after(d, static_cast<int>(when.size()));
      when.push_back(std::max(t, epoch));
      fired_count.push_back(0);
    };
    at(lo);
    at(hi);
    at(hi - duration(1));
    at(epoch);
    after(duration::max());
    after(duration::min());
    after(duration::zero());
    after(unit);
    for (int i = 0; i < 20; ++i) {
      at(epoch + duration(static_cast<typename duration::rep>(r.below(room(epoch)) >> r.below(64))));
    }
    // Periodic timers (payload -1 - k), any missed-period policy: each firing due no earlier than the last, never
    // early.
    struct periodic {
      time_point first;
      duration period;
      std::optional<time_point> last;
    };
    std::vector<periodic> periodic_timers;
    for (int i = 0; i < 4; ++i) {
      const time_point first =
          epoch + duration(static_cast<typename duration::rep>(r.below(room(epoch)) >> r.below(64)));
      const auto longest = std::max<std::uint64_t>(room(first) >> r.below(64), 1);
      const duration period(static_cast<typename duration::rep>(1 + r.below(longest)));
      const auto policy = static_cast<timing_wheel::missed_period>(r.below(3));
      const auto handle = s.schedule_every(period, first, -1 - static_cast<int>(periodic_timers.size()), policy);
      periodic_timers.push_back({first, *s.period(handle), std::nullopt});
    }
    const auto poll = [&](time_point now) {
      Clock::current = now;
      s.poll(now, [&](time_point due, int& id) {
        CHECK(due <= now);  // never early
        if (id < 0) {
          periodic& p = periodic_timers[static_cast<std::size_t>(-1 - id)];
          INFO("periodic " << -1 - id << " first " << p.first.time_since_epoch().count() << " period "
                           << p.period.count() << " due " << due.time_since_epoch().count());
          CHECK(due >= p.first);  // (`due` is the start of the tick it fired in: its due time, rounded up)
          // (Not strictly: ticks finer than the clock's unit round up to the same time point, and ticks further from
          // the epoch than a duration reaches all start at max(), as time_of() says.)
          if (p.last) CHECK(due >= *p.last);
          p.last = due;
          return;
        }
        ++fired_count[static_cast<std::size_t>(id)];
        CHECK(when[static_cast<std::size_t>(id)] <= now);  // never early
      });
      // Whatever was due at `now` has fired: a wait of 0 now would spin.
      const auto wait = s.time_until_next(now);
      CHECK(wait.has_value() == !s.empty());
      if (wait) CHECK(*wait > Resolution::zero());
      CHECK(s.timeout_ms(now) != 0);
    };
    time_point now = epoch;
    for (int i = 0; i < 30 && now < hi; ++i) {
      now += duration(static_cast<typename duration::rep>(r.below(room(now)) >> r.below(64) >> 1));
      poll(now);
    }
    poll(hi - duration(1));
    poll(hi);
    poll(hi);
    CHECK(s.empty());
    CHECK_FALSE(s.time_until_next(hi).has_value());
    CHECK(s.timeout_ms(hi) == -1);
    for (std::size_t id = 0; id < fired_count.size(); ++id) {
      INFO("timer " << id << " due " << when[id].time_since_epoch().count());
      CHECK(fired_count[id] == 1);
    }
  }
}

template <class Clock, class Resolution>
void run_edges_on_every_queue(Resolution resolution) {
  const std::uint64_t seed = seed_or(20261201);
  INFO("replay with TIMING_WHEEL_SEED=" << seed);
  run_edges<Clock, Resolution, timing_wheel::detail::default_service_queue>(resolution, seed);
  run_edges<Clock, Resolution, coarse_queue>(resolution, seed);
  run_edges<Clock, Resolution, tiny_coarse_queue>(resolution, seed);
  run_edges<Clock, Resolution, flat_queue>(resolution, seed);
  run_edges<Clock, Resolution, heap_queue>(resolution, seed);
}
}  // namespace

TEST_CASE("timer_service at the ends of a nanosecond clock, 1 ms and 7 ms resolution", "[chrono][edges]") {
  using clock = edge_clock<std::int64_t, std::nano>;
  run_edges_on_every_queue<clock>(std::chrono::milliseconds(1));
  run_edges_on_every_queue<clock>(std::chrono::milliseconds(7));
}

TEST_CASE("timer_service at the ends of a microsecond clock, 1 us and 1 s resolution", "[chrono][edges]") {
  using clock = edge_clock<std::int64_t, std::micro>;
  run_edges_on_every_queue<clock>(std::chrono::microseconds(1));
  run_edges_on_every_queue<clock>(std::chrono::seconds(1));
}

// Resolutions finer than the clock's period, resolutions of a narrow rep, and periods that are not a whole number
// of each other: each overflowed a signed multiplication or a narrowing somewhere before (hundreds of failed
// checks each: waits of 0 or less while timers were pending, timers firing early or at the wrong poll).
TEST_CASE("timer_service at the ends of a microsecond clock, 100 ns resolution (finer than the clock)",
          "[chrono][edges]") {
  using clock = edge_clock<std::int64_t, std::micro>;
  run_edges_on_every_queue<clock>(std::chrono::nanoseconds(100));
}

TEST_CASE("timer_service at the ends of a 32-bit second clock, 1 ms and 1.5 s resolution", "[chrono][edges]") {
  using clock = edge_clock<std::int32_t, std::ratio<1>>;
  run_edges_on_every_queue<clock>(std::chrono::milliseconds(1));
  run_edges_on_every_queue<clock>(std::chrono::milliseconds(1500));
}

TEST_CASE("timer_service at the ends of a microsecond clock, 5 ms resolution of a 32-bit rep", "[chrono][edges]") {
  using clock = edge_clock<std::int64_t, std::micro>;
  run_edges_on_every_queue<clock>(std::chrono::duration<std::int32_t, std::milli>(5));
}

TEST_CASE("timer_service at the ends of a clock ticking in thirds of a second, 1 ms and 2/7 s resolution",
          "[chrono][edges]") {
  using clock = edge_clock<std::int64_t, std::ratio<1, 3>>;
  run_edges_on_every_queue<clock>(std::chrono::milliseconds(1));
  run_edges_on_every_queue<clock>(std::chrono::duration<std::int64_t, std::ratio<1, 7>>(2));
}

TEST_CASE("timer_service at the ends of a 16-bit millisecond clock and of a nanosecond clock with 1000 h ticks",
          "[chrono][edges]") {
  run_edges_on_every_queue<edge_clock<std::int16_t, std::milli>>(std::chrono::milliseconds(1));
  run_edges_on_every_queue<edge_clock<std::int64_t, std::nano>>(std::chrono::hours(1000));
}

TEST_CASE("timer_service at the ends of a 32-bit millisecond clock, 1 ms and 3 s resolution", "[chrono][edges]") {
  using clock = edge_clock<std::int32_t, std::milli>;
  run_edges_on_every_queue<clock>(std::chrono::duration<std::int32_t, std::milli>(1));
  run_edges_on_every_queue<clock>(std::chrono::duration<std::int64_t>(3));
}

TEST_CASE("timer_service: a timer saturated at the end of the clock fires at a poll there", "[chrono][edges]") {
  using clock = edge_clock<std::int64_t, std::nano>;
  const clock::time_point epoch{std::chrono::seconds(1000)};
  clock::current = epoch;
  timing_wheel::timer_service<int, clock> s(epoch);
  const auto h = s.schedule_after(clock::duration::max(), 1);
  REQUIRE(s.expiry(h) == clock::time_point::max());
  clock::current = clock::time_point::max();
  int fired = 0;
  CHECK(s.poll(clock::now(), [&](int&) { ++fired; }) == 1);
  CHECK(fired == 1);
  CHECK(s.empty());
  CHECK(s.timeout_ms(clock::now()) == -1);
}

namespace {
// tick_at_or_after / tick_at_or_before against std::chrono's own rounding: the time since the epoch rounded up
// (or down) to whole resolution units, then to whole ticks of `resolution`. Random distances of every magnitude,
// and the distances next to each unit and tick boundary.
template <class Clock, class Resolution>
void check_tick_rounding(Resolution resolution, std::uint64_t seed) {
  using duration = typename Clock::duration;
  using time_point = typename Clock::time_point;
  const time_point epoch{duration(3)};
  const timing_wheel::timer_service<int, Clock, Resolution> s(epoch, resolution);
  const auto step = static_cast<std::uint64_t>(resolution.count());
  const auto expected = [&](duration since, bool round_up) {
    const auto units = static_cast<std::uint64_t>(
        (round_up ? std::chrono::ceil<Resolution>(since) : std::chrono::floor<Resolution>(since)).count());
    return units / step + (round_up && units % step != 0 ? 1 : 0);
  };
  const auto check = [&](duration since) {
    INFO("since " << since.count() << " clock units, ticks of " << resolution.count() << " units");
    CHECK(s.tick_at_or_after(epoch + since) == expected(since, true));
    CHECK(s.tick_at_or_before(epoch + since) == expected(since, false));
  };
  // Distances whose count of resolution units std::chrono can compute (a resolution finer than the clock's
  // multiplies); beyond them, the last tick for a due time and the one before for a poll.
  const auto units_per_clock_unit =
      std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::chrono::floor<Resolution>(duration(1)).count()));
  const auto limit =
      static_cast<std::uint64_t>((duration::max() - epoch.time_since_epoch()).count()) / units_per_clock_unit;
  if (units_per_clock_unit > 1) {
    // Past what a Resolution holds, the tick count is still exact while it fits in a tick...
    const std::uint64_t units = (limit + 1) * units_per_clock_unit;
    const time_point past = epoch + duration(static_cast<typename duration::rep>(limit + 1));
    CHECK(s.tick_at_or_after(past) == units / step + (units % step != 0 ? 1 : 0));
    CHECK(s.tick_at_or_before(past) == units / step);
    // ...and where it does not, a due time takes the last tick and a poll the one before.
    CHECK(s.tick_at_or_after(time_point::max()) == UINT64_MAX);
    CHECK(s.tick_at_or_before(time_point::max() - duration(1)) == UINT64_MAX - 1);
  }
  rng r{seed};
  for (int i = 0; i < 2000; ++i) {
    check(duration(static_cast<typename duration::rep>(r.below(limit) >> r.below(64))));
  }
  // Around the first ticks: 1, 2 and 3 ticks' length in clock units, and one clock unit either side.
  const duration tick_length = std::chrono::ceil<duration>(resolution);
  for (int ticks = 1; ticks <= 3; ++ticks) {
    for (const duration offset : {duration(-1), duration(0), duration(1)}) check(tick_length * ticks + offset);
  }
  check(duration(1));
}
}  // namespace

TEST_CASE("timer_service rounds time points to ticks as std::chrono rounds them", "[chrono][edges]") {
  const std::uint64_t seed = seed_or(20261204);
  INFO("replay with TIMING_WHEEL_SEED=" << seed);
  using nano_clock = edge_clock<std::int64_t, std::nano>;
  using micro_clock = edge_clock<std::int64_t, std::micro>;
  using milli_clock_32 = edge_clock<std::int32_t, std::milli>;
  check_tick_rounding<nano_clock>(std::chrono::milliseconds(1), seed);
  check_tick_rounding<nano_clock>(std::chrono::milliseconds(7), seed);
  check_tick_rounding<nano_clock>(std::chrono::microseconds(1), seed);
  check_tick_rounding<nano_clock>(std::chrono::microseconds(250), seed);
  check_tick_rounding<nano_clock>(std::chrono::nanoseconds(1), seed);
  check_tick_rounding<nano_clock>(std::chrono::nanoseconds(3), seed);
  check_tick_rounding<nano_clock>(std::chrono::hours(1), seed);
  check_tick_rounding<micro_clock>(std::chrono::microseconds(1), seed);
  check_tick_rounding<micro_clock>(std::chrono::seconds(1), seed);
  check_tick_rounding<micro_clock>(std::chrono::nanoseconds(100), seed);  // finer than the clock
  check_tick_rounding<milli_clock_32>(std::chrono::duration<std::int32_t, std::milli>(1), seed);
  check_tick_rounding<milli_clock_32>(std::chrono::duration<std::int64_t>(3), seed);
}
