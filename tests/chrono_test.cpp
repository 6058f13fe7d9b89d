#include "support/catch.hpp"
#include "support/random_ops.hpp"

#include <timing_wheel/chrono.hpp>
#include <timing_wheel/flat_wheel.hpp>
#include <timing_wheel/min_heap.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

using namespace std::chrono_literals;
using timing_wheel::missed_period;
using timing_wheel::periodic_handle;
using timing_wheel::timer_handle;

namespace {
// A clock the test moves by hand.
struct manual_clock {
  using rep = std::int64_t;
  using period = std::nano;
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::time_point<manual_clock>;
  [[maybe_unused]] static constexpr bool is_steady = true;
  static inline time_point current{std::chrono::hours(1)};
  static time_point now() noexcept { return current; }
};
using time_point = manual_clock::time_point;
const time_point epoch{std::chrono::hours(1)};

template <class U>
using flat_queue = timing_wheel::flat_wheel<U, 64>;
template <class U>
using heap_queue = timing_wheel::min_heap<U>;
template <class U>
using coarse_queue = timing_wheel::hierarchical_wheel<U, 6, 6, timing_wheel::precision::coarse>;

template <template <class> class Queue, class Resolution = std::chrono::milliseconds>
using service = timing_wheel::timer_service<int, manual_clock, Resolution, Queue>;

struct fired_at {
  int id;
  time_point due;  // the due time point the service reports (the start of its tick)
  int poll;        // which poll fired it
  friend bool operator==(const fired_at&, const fired_at&) = default;
};

struct one_shot_run {
  std::vector<time_point> scheduled;  // by id
  std::vector<int> scheduled_before;  // by id: the first poll after its scheduling
  std::vector<time_point> polls;      // by poll
  std::vector<fired_at> fired;
};

// Random one-shot timers at nanosecond time points, some in the past, polled at random moments.
template <class Service>
one_shot_run random_one_shots(Service& timers, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  one_shot_run run;
  time_point now = epoch;
  const auto poll = [&] {
    const int index = static_cast<int>(run.polls.size());
    run.polls.push_back(now);
    timers.poll(now, [&](time_point due, int& id) { run.fired.push_back({id, due, index}); });
  };
  for (int round = 0; round < 400; ++round) {
    for (int i = 0; i < 5; ++i) {
      const time_point when = now + std::chrono::nanoseconds(rng() % 50'000'000) - 1ms;
      run.scheduled.push_back(when);
      run.scheduled_before.push_back(round);
      timers.schedule_at(when, static_cast<int>(run.scheduled.size() - 1));
    }
    now += std::chrono::nanoseconds(rng() % 3'000'000);
    poll();
  }
  now += 1h;
  poll();
  return run;
}

template <class Service>
void check_never_early_never_late(const char* name) {
  INFO(name);
  const std::uint64_t seed = timing_wheel_test::seed_or(20261201);
  INFO("replay with TIMING_WHEEL_SEED=" << seed);
  Service timers(epoch, typename Service::resolution_type(3));
  const one_shot_run run = random_one_shots(timers, seed);
  REQUIRE(run.fired.size() == run.scheduled.size());
  REQUIRE(timers.empty());
  std::vector<int> seen(run.scheduled.size(), 0);
  for (const fired_at& f : run.fired) {
    const auto id = static_cast<std::size_t>(f.id);
    ++seen[id];
    const time_point at = std::max(run.scheduled[id], epoch);
    const auto poll = static_cast<std::size_t>(f.poll);
    // Its tick starts at or after its time point, less than one resolution later...
    REQUIRE(f.due >= at);
    REQUIRE(f.due < at + timers.resolution());
    // ...and it fires at the first poll reaching that tick: never before its time point.
    REQUIRE(run.polls[poll] >= f.due);
    if (f.poll > run.scheduled_before[id]) REQUIRE(run.polls[poll - 1] < f.due);
  }
  for (const int count : seen) REQUIRE(count == 1);
}
}  // namespace

TEST_CASE("a timer never fires before its time point, and fires at the first poll at or after it", "[chrono]") {
  check_never_early_never_late<service<timing_wheel::detail::default_service_queue>>("exact wheel, 3 ms");
  check_never_early_never_late<service<heap_queue>>("min_heap, 3 ms");
  check_never_early_never_late<service<flat_queue>>("flat_wheel, 3 ms");
  check_never_early_never_late<service<timing_wheel::detail::default_service_queue, std::chrono::microseconds>>(
      "exact wheel, 3 us");
}

TEST_CASE("emplace_at builds the payload in place and fires it as schedule_at would", "[chrono]") {
  timing_wheel::timer_service<std::pair<int, std::unique_ptr<int>>, manual_clock> timers(time_point{});
  auto owned = std::make_unique<int>(7);
  const timer_handle second = timers.emplace_at(time_point{} + 2ms, 2, std::move(owned));
  timers.emplace_at(time_point{} + 1ms, 1, nullptr);
  CHECK(owned == nullptr);  // taken once the timer is in
  CHECK(timers.size() == 2);
  CHECK(timers.expiry(second) == time_point{} + 2ms);
  std::vector<std::pair<int, int>> fired;  // id, what its pointer held (-1: none)
  timers.poll(time_point{} + 5ms,
              [&](std::pair<int, std::unique_ptr<int>>& p) { fired.emplace_back(p.first, p.second ? *p.second : -1); });
  CHECK(fired == std::vector<std::pair<int, int>>{{1, -1}, {2, 7}});
}

TEST_CASE("timer_service over every queue fires the same sequence", "[chrono][differential]") {
  const std::uint64_t seed = timing_wheel_test::seed_or(20261202);
  INFO("replay with TIMING_WHEEL_SEED=" << seed);
  service<timing_wheel::detail::default_service_queue> wheel(epoch);
  service<heap_queue> heap(epoch);
  service<flat_queue> flat(epoch);
  const auto expected = random_one_shots(wheel, seed).fired;
  REQUIRE(random_one_shots(heap, seed).fired == expected);
  REQUIRE(random_one_shots(flat, seed).fired == expected);
}

TEST_CASE("coarse queues under the service never fire early either", "[chrono][coarse]") {
  service<coarse_queue> timers(epoch);
  const one_shot_run run = random_one_shots(timers, 7);
  REQUIRE(run.fired.size() == run.scheduled.size());
  for (const fired_at& f : run.fired) {
    REQUIRE(run.polls[static_cast<std::size_t>(f.poll)] >= run.scheduled[static_cast<std::size_t>(f.id)]);
  }
}

TEST_CASE("time points map to ticks rounding up for timers and down for polls", "[chrono]") {
  service<timing_wheel::detail::default_service_queue> timers(epoch, 2ms);
  REQUIRE(timers.tick_at_or_after(epoch) == 0);
  REQUIRE(timers.tick_at_or_after(epoch - 5s) == 0);
  REQUIRE(timers.tick_at_or_after(epoch + 1ns) == 1);
  REQUIRE(timers.tick_at_or_after(epoch + 2ms) == 1);
  REQUIRE(timers.tick_at_or_after(epoch + 2ms + 1ns) == 2);
  REQUIRE(timers.tick_at_or_before(epoch + 2ms - 1ns) == 0);
  REQUIRE(timers.tick_at_or_before(epoch + 4ms) == 2);
  REQUIRE(timers.time_of(3) == epoch + 6ms);
  REQUIRE(timers.time_of(UINT64_MAX) == time_point::max());
}

TEST_CASE("time_until_next: nullopt when idle, zero when due, otherwise never early and never zero", "[chrono]") {
  service<timing_wheel::detail::default_service_queue> timers(epoch, 10ms);
  REQUIRE_FALSE(timers.time_until_next(epoch).has_value());
  REQUIRE(timers.timeout_ms(epoch) == -1);
  timers.schedule_at(epoch + 25ms, 1);  // tick 3, which starts at epoch + 30 ms
  REQUIRE(timers.time_until_next(epoch) == 30ms);
  REQUIRE(timers.time_until_next(epoch + 29ms + 999us) == 1ms);  // 1 us rounded up to a whole Resolution unit
  REQUIRE(timers.timeout_ms(epoch + 29ms + 999us) == 1);
  REQUIRE(timers.time_until_next(epoch + 30ms) == 0ms);
  REQUIRE(timers.timeout_ms(epoch + 30ms) == 0);
  std::mt19937_64 rng(11);
  for (int i = 0; i < 1000; ++i) {
    const time_point now = epoch + std::chrono::nanoseconds(rng() % 40'000'000);
    const auto wait = timers.time_until_next(now);
    REQUIRE(wait.has_value());
    if (*wait == 0ms) {
      REQUIRE(now >= epoch + 30ms);
    } else {
      REQUIRE(now + *wait >= epoch + 30ms);  // sleeping that long reaches the timer's tick
      REQUIRE(now + *wait < epoch + 30ms + 1ms);
    }
  }
  int count = 0;
  REQUIRE(timers.poll(epoch + 29ms, [&](int&) { ++count; }) == 0);
  REQUIRE(timers.poll(epoch + 30ms, [&](int&) { ++count; }) == 1);
  REQUIRE(count == 1);
}

TEST_CASE("epoll_timeout_ms rounds up, caps, and never returns 0 for a timer not yet due", "[chrono]") {
  using timing_wheel::epoll_timeout_ms;
  REQUIRE(epoll_timeout_ms<std::int64_t, std::nano>(std::nullopt) == -1);
  REQUIRE(epoll_timeout_ms(std::optional<std::chrono::nanoseconds>(0ns)) == 0);
  REQUIRE(epoll_timeout_ms(std::optional<std::chrono::nanoseconds>(1ns)) == 1);
  REQUIRE(epoll_timeout_ms(std::optional<std::chrono::microseconds>(1000us)) == 1);
  REQUIRE(epoll_timeout_ms(std::optional<std::chrono::microseconds>(1001us)) == 2);
  REQUIRE(epoll_timeout_ms(std::optional<std::chrono::hours>(100000h)) == INT32_MAX);
  REQUIRE(epoll_timeout_ms(std::optional<std::chrono::seconds>(10s), 250ms) == 250);
  REQUIRE(epoll_timeout_ms(std::optional<std::chrono::nanoseconds>(1ns), 0ms) == 1);
  // Reps and periods where one of the two conversions overflows: INT_MAX ms in 32-bit nanoseconds, hours::max() in
  // milliseconds, thirds of a second.
  REQUIRE(epoll_timeout_ms(std::optional<std::chrono::duration<std::int32_t, std::nano>>(INT32_MAX)) == 2148);
  REQUIRE(epoll_timeout_ms(std::optional<std::chrono::hours>(std::chrono::hours::max())) == INT32_MAX);
  REQUIRE(epoll_timeout_ms(std::optional<std::chrono::hours>(std::chrono::hours::max()), 5ms) == 5);
  using thirds = std::chrono::duration<std::int64_t, std::ratio<1, 3>>;
  REQUIRE(epoll_timeout_ms(std::optional<thirds>(7)) == 2334);
  REQUIRE(epoll_timeout_ms(std::optional<thirds>(7), 2333ms) == 2333);
  REQUIRE(epoll_timeout_ms(std::optional<thirds>(thirds::max())) == INT32_MAX);
}

TEST_CASE("a clock stepping backwards fires nothing and loses nothing", "[chrono]") {
  service<timing_wheel::detail::default_service_queue> timers(epoch);
  for (int i = 0; i < 10; ++i) timers.schedule_at(epoch + std::chrono::milliseconds(100 * i + 50), i);
  std::vector<int> fired;
  const auto record = [&](int& id) { fired.push_back(id); };
  REQUIRE(timers.poll(epoch + 300ms, record) == 3);
  REQUIRE(timers.poll(epoch + 100ms, record) == 0);  // stepped back
  REQUIRE(timers.poll(epoch - 1h, record) == 0);     // before the epoch
  REQUIRE(timers.size() == 7);
  timers.schedule_at(epoch + 200ms, 99);  // a past time point: due at the next poll that reaches now
  REQUIRE(timers.poll(epoch + 320ms, record) == 1);
  REQUIRE(timers.poll(epoch + 2s, record) == 7);
  REQUIRE(fired == std::vector<int>{0, 1, 2, 99, 3, 4, 5, 6, 7, 8, 9});
}

TEST_CASE("schedule_after is relative to the clock's now, and saturates", "[chrono]") {
  manual_clock::current = epoch + 5s;
  service<timing_wheel::detail::default_service_queue> timers(epoch);
  const timer_handle h = timers.schedule_after(250ms, 1);
  REQUIRE(timers.expiry(h) == epoch + 5s + 250ms);
  const timer_handle far = timers.schedule_after(manual_clock::duration::max(), 2);
  REQUIRE(timers.pending(far));
  REQUIRE(timers.poll(epoch + 5s + 249ms, [](int&) {}) == 0);
  REQUIRE(timers.poll(epoch + 5s + 250ms, [](int&) {}) == 1);
  REQUIRE(timers.cancel(far) == 2);
  REQUIRE_FALSE(timers.cancel(far).has_value());
  manual_clock::current = epoch;
}

TEST_CASE("one-shot cancel and reschedule go through to the queue", "[chrono]") {
  service<timing_wheel::detail::default_service_queue> timers(epoch);
  const timer_handle a = timers.schedule_at(epoch + 10ms, 1);
  const timer_handle b = timers.schedule_at(epoch + 20ms, 2);
  REQUIRE(timers.reschedule(a, epoch + 30ms));
  REQUIRE(*timers.get(a) == 1);
  std::vector<int> fired;
  timers.poll(epoch + 25ms, [&](int& id) { fired.push_back(id); });
  REQUIRE(fired == std::vector<int>{2});
  REQUIRE_FALSE(timers.reschedule(b, epoch + 40ms));
  REQUIRE(timers.cancel(a) == 1);
  REQUIRE(timers.empty());
}

TEST_CASE("callable payloads are invoked by poll(now), with a context when given", "[chrono]") {
  timing_wheel::timer_service<std::function<void()>, manual_clock> plain(epoch);
  int calls = 0;
  plain.schedule_at(epoch + 1ms, [&calls] { ++calls; });
  plain.schedule_every(
      2ms, epoch + 2ms, [&calls] { calls += 10; }, missed_period::burst);
  REQUIRE(plain.poll(epoch + 4ms) == 3);
  REQUIRE(calls == 21);

  struct context {
    std::vector<int> log;
  };
  timing_wheel::timer_service<std::function<void(context&)>, manual_clock> with_context(epoch);
  with_context.schedule_at(epoch + 1ms, [](context& c) { c.log.push_back(1); });
  with_context.schedule_at(epoch + 2ms, [](context& c) { c.log.push_back(2); });
  context ctx;
  REQUIRE(with_context.poll(epoch + 5ms, ctx) == 2);
  REQUIRE(ctx.log == std::vector<int>{1, 2});
}

TEST_CASE("periodic timers fire at first + k * period, without drift, with the payload in place",
          "[chrono][periodic]") {
  service<timing_wheel::detail::default_service_queue> timers(epoch);
  // 1.5 ms on a 1 ms resolution: each due time is computed from the last, so the ticks alternate 1 and 2 apart.
  const periodic_handle h = timers.schedule_every(1500us, epoch + 1ms, 0);
  std::vector<time_point> polls_fired;
  time_point now = epoch;
  for (int step = 0; step < 3000; ++step) {
    now += 1ms;
    timers.poll(now, [&](int& count) {
      ++count;
      polls_fired.push_back(now);
    });
  }
  REQUIRE(timers.pending(h));
  REQUIRE(polls_fired.size() == 2000);  // due times epoch + 1 ms + k * 1.5 ms up to epoch + 3000 ms
  for (std::size_t k = 0; k < polls_fired.size(); ++k) {
    const time_point due = epoch + 1ms + std::chrono::microseconds(1500 * k);
    REQUIRE(polls_fired[k] >= due);
    REQUIRE(polls_fired[k] < due + 1ms);
  }
  REQUIRE(timers.next_due(h) == epoch + 1ms + std::chrono::microseconds(1500 * 2000));
  REQUIRE(timers.cancel(h));
  REQUIRE_FALSE(timers.pending(h));
  REQUIRE_FALSE(timers.cancel(h));
  REQUIRE(timers.empty());
}

TEST_CASE("periodic timers: missed periods burst up to the limit, skip, or delay", "[chrono][periodic]") {
  const auto late_poll = [](missed_period policy, std::size_t burst_limit) {
    service<timing_wheel::detail::default_service_queue> timers(epoch);
    const periodic_handle h = timers.schedule_every(10ms, epoch + 10ms, 0, policy, burst_limit);
    std::vector<time_point> dues;
    // The loop stalls: first poll 95 ms late (periods 10..90 ms, nine of them, are due).
    timers.poll(epoch + 95ms, [&](time_point due, int&) { dues.push_back(due); });
    return std::pair{dues, *timers.next_due(h)};
  };
  {
    const auto [dues, next] = late_poll(missed_period::burst, 100);
    REQUIRE(dues.size() == 9);
    for (std::size_t k = 0; k < dues.size(); ++k) REQUIRE(dues[k] == epoch + std::chrono::milliseconds(10 * (k + 1)));
    REQUIRE(next == epoch + 100ms);
  }
  {
    const auto [dues, next] = late_poll(missed_period::burst, 4);
    REQUIRE(dues.size() == 4);  // then as skip
    REQUIRE(dues.back() == epoch + 40ms);
    REQUIRE(next == epoch + 100ms);
  }
  {
    const auto [dues, next] = late_poll(missed_period::skip, 0);
    REQUIRE(dues == std::vector<time_point>{epoch + 10ms});
    REQUIRE(next == epoch + 100ms);  // the next multiple after the poll
  }
  {
    const auto [dues, next] = late_poll(missed_period::delay, 0);
    REQUIRE(dues == std::vector<time_point>{epoch + 10ms});
    REQUIRE(next == epoch + 105ms);  // the period restarts from the poll's time
  }
  {  // on time, every policy keeps the grid
    for (const missed_period policy : {missed_period::burst, missed_period::skip, missed_period::delay}) {
      service<timing_wheel::detail::default_service_queue> timers(epoch);
      const periodic_handle h = timers.schedule_every(10ms, epoch + 10ms, 0, policy);
      for (int i = 1; i <= 10; ++i) timers.poll(epoch + std::chrono::milliseconds(10 * i + 3), [](int&) {});
      REQUIRE(timers.next_due(h) == epoch + 110ms);
    }
  }
}

TEST_CASE("a periodic timer may cancel or restart itself from its own callback", "[chrono][periodic]") {
  service<timing_wheel::detail::default_service_queue> timers(epoch);
  periodic_handle self{};
  int fired = 0;
  self = timers.schedule_every(1ms, epoch + 1ms, 0, missed_period::burst, 1000);
  const periodic_handle other = timers.schedule_every(1ms, epoch + 1ms, 1, missed_period::burst, 1000);
  timers.poll(epoch + 100ms, [&](int& id) {
    if (id != 0) return;
    if (++fired == 3) {
      REQUIRE(timers.cancel(self));
      REQUIRE_FALSE(timers.pending(self));
      REQUIRE_FALSE(timers.cancel(self));
    }
  });
  REQUIRE(fired == 3);
  REQUIRE_FALSE(timers.pending(self));
  REQUIRE(timers.pending(other));
  REQUIRE(timers.size() == 1);

  // A new periodic timer reuses the record: the old handle stays stale.
  const periodic_handle again = timers.schedule_every(5ms, epoch + 200ms, 2, missed_period::burst, 1000);
  REQUIRE(again.index == self.index);
  REQUIRE_FALSE(timers.pending(self));
  REQUIRE(timers.pending(again));

  std::vector<time_point> dues;
  timers.poll(epoch + 500ms, [&](time_point due, int& id) {
    if (id != 2) return;
    dues.push_back(due);
    if (dues.size() == 1) REQUIRE(timers.reschedule(again, epoch + 400ms));
  });
  REQUIRE(dues.size() == 1 + 21);  // 200, then 400, 405, ..., 500
  REQUIRE(dues[1] == epoch + 400ms);
  REQUIRE(dues.back() == epoch + 500ms);
  REQUIRE(timers.cancel(other));
  REQUIRE(timers.cancel(again));
  REQUIRE(timers.empty());
}

TEST_CASE("callbacks may schedule timers that fire in the same poll, in order", "[chrono]") {
  service<timing_wheel::detail::default_service_queue> timers(epoch);
  timers.schedule_at(epoch + 1ms, 1);
  std::vector<int> order;
  timers.poll(epoch + 10ms, [&](int& id) {
    order.push_back(id);
    if (id == 1) {
      timers.schedule_at(epoch + 5ms, 2);
      timers.schedule_every(3ms, epoch + 2ms, 3, missed_period::burst);
      timers.schedule_every(3ms, epoch + 2ms, 4, missed_period::skip);
    }
  });
  // 1 @1; 3 and 4 @2; 2 @5; 3 @5 and @8 (burst); 4 is late at 2 and skips to 11
  REQUIRE(order == std::vector<int>{1, 3, 4, 2, 3, 3});
}

TEST_CASE("a periodic timer retires when its next due time passes the end of the clock", "[chrono][periodic]") {
  service<timing_wheel::detail::default_service_queue, std::chrono::seconds> timers(epoch);
  const time_point last = time_point::max() - 5s;
  const periodic_handle h = timers.schedule_every(std::chrono::hours(1), last, 0);
  int fired = 0;
  timers.poll(time_point::max(), [&](int&) { ++fired; });
  REQUIRE(fired == 1);
  REQUIRE_FALSE(timers.pending(h));
  REQUIRE(timers.empty());
}

TEST_CASE("a throwing callback: the one-shot counts as fired, the periodic is rearmed", "[chrono][exception]") {
  service<timing_wheel::detail::default_service_queue> timers(epoch);
  timers.schedule_at(epoch + 1ms, 1);
  const periodic_handle h = timers.schedule_every(2ms, epoch + 1ms, 2);
  timers.schedule_at(epoch + 3ms, 3);
  const auto throw_on_first = [](int& id) {
    if (id == 1 || id == 2) throw std::runtime_error("callback failed");
  };
  REQUIRE_THROWS_AS(timers.poll(epoch + 1ms, throw_on_first), std::runtime_error);
  REQUIRE(timers.size() == 2);  // the periodic and id 3: one-shot 1 is gone
  REQUIRE_THROWS_AS(timers.poll(epoch + 1ms, throw_on_first), std::runtime_error);
  REQUIRE(timers.pending(h));
  REQUIRE(timers.next_due(h) == epoch + 3ms);
  std::vector<int> fired;
  timers.poll(epoch + 3ms, [&](int& id) { fired.push_back(id); });
  REQUIRE(fired == std::vector<int>{3, 2});  // rearmed after 3 was scheduled for the same tick
}

TEST_CASE("move-only payloads work one-shot and periodic", "[chrono][payload]") {
  timing_wheel::timer_service<std::unique_ptr<int>, manual_clock> timers(epoch);
  const timer_handle a = timers.schedule_at(epoch + 1ms, std::make_unique<int>(1));
  timers.schedule_every(1ms, epoch + 1ms, std::make_unique<int>(100), missed_period::burst);
  REQUIRE(**timers.get(a) == 1);
  int sum = 0;
  timers.poll(epoch + 3ms, [&](std::unique_ptr<int>& p) { sum += (*p)++; });
  REQUIRE(sum == 1 + 100 + 101 + 102);
}

TEST_CASE("set_period and set_missed_period change a periodic timer without a new handle", "[chrono][periodic]") {
  service<timing_wheel::detail::default_service_queue> timers(epoch);
  const periodic_handle h = timers.schedule_every(10ms, epoch + 10ms, 0);
  REQUIRE(timers.period(h) == 10ms);
  // From outside: the next due time stays, the ones after follow the new period.
  REQUIRE(timers.set_period(h, 25ms));
  REQUIRE(timers.period(h) == 25ms);
  REQUIRE(timers.next_due(h) == epoch + 10ms);
  std::vector<time_point> dues;
  const auto record = [&](time_point due, int&) { dues.push_back(due); };
  timers.poll(epoch + 10ms, record);
  timers.poll(epoch + 35ms, record);
  REQUIRE(dues == std::vector<time_point>{epoch + 10ms, epoch + 35ms});
  // From inside its own callback: the next due time already follows the new period.
  timers.poll(epoch + 60ms, [&](time_point due, int&) {
    dues.push_back(due);
    REQUIRE(timers.set_period(h, 5ms));
  });
  REQUIRE(timers.next_due(h) == epoch + 65ms);
  // Bad input changes nothing and says so.
  REQUIRE_FALSE(timers.set_period(h, 0ms));
  REQUIRE_FALSE(timers.set_period(h, std::chrono::microseconds(500)));  // shorter than the 1 ms resolution
  REQUIRE(timers.period(h) == 5ms);
  REQUIRE_FALSE(timers.set_period(periodic_handle{}, 5ms));
  REQUIRE_FALSE(timers.set_missed_period(periodic_handle{}, missed_period::burst));
  REQUIRE_FALSE(timers.period(periodic_handle{}).has_value());
  // The missed-period policy: skip by default; switched to burst, a late poll fires every missed period.
  dues.clear();
  timers.poll(epoch + 86ms, record);  // 65, 70, 75, 80, 85 are due
  REQUIRE(dues == std::vector<time_point>{epoch + 65ms});
  REQUIRE(timers.next_due(h) == epoch + 90ms);
  REQUIRE(timers.set_missed_period(h, missed_period::burst, 100));
  dues.clear();
  timers.poll(epoch + 106ms, record);  // 90, 95, 100, 105
  REQUIRE(dues == std::vector<time_point>{epoch + 90ms, epoch + 95ms, epoch + 100ms, epoch + 105ms});
  REQUIRE(timers.set_missed_period(h, missed_period::delay));
  dues.clear();
  timers.poll(epoch + 123ms, record);  // 110 fires; the period restarts from the poll
  REQUIRE(dues == std::vector<time_point>{epoch + 110ms});
  REQUIRE(timers.next_due(h) == epoch + 128ms);
  REQUIRE(timers.cancel(h));
  REQUIRE_FALSE(timers.set_period(h, 5ms));
}

TEST_CASE("schedule_every with a period shorter than the resolution fires once a tick, in every build",
          "[chrono][periodic]") {
  for (const auto period : {std::chrono::nanoseconds(0), std::chrono::nanoseconds(-5),
                            std::chrono::nanoseconds(300'000), std::chrono::nanoseconds(999'999)}) {
    service<timing_wheel::detail::default_service_queue> timers(epoch);
    const periodic_handle h = timers.schedule_every(period, epoch + 1ms, 7, missed_period::burst, 100);
    REQUIRE(timers.period(h) == 1ms);  // taken as the resolution
    std::vector<time_point> dues;
    timers.poll(epoch + 4ms, [&](time_point due, int& value) {
      REQUIRE(value == 7);
      dues.push_back(due);
    });
    REQUIRE(dues == std::vector<time_point>{epoch + 1ms, epoch + 2ms, epoch + 3ms, epoch + 4ms});
    REQUIRE(timers.next_due(h) == epoch + 5ms);
  }
  // A resolution that is not a whole number of the clock's units: the period is rounded up to the next unit.
  timing_wheel::timer_service<int, std::chrono::steady_clock, std::chrono::duration<std::int64_t, std::ratio<1, 3>>>
      thirds(std::chrono::steady_clock::time_point{}, std::chrono::duration<std::int64_t, std::ratio<1, 3>>(1));
  const periodic_handle h = thirds.schedule_every(1ns, std::chrono::steady_clock::time_point{}, 0);
  REQUIRE(thirds.period(h) == std::chrono::nanoseconds(333'333'334));
}

TEST_CASE("timer_service clear cancels everything and leaves every old handle stale", "[chrono][clear]") {
  auto live = std::make_shared<int>(0);
  struct counted {
    std::shared_ptr<int> live;
    explicit counted(std::shared_ptr<int> l) : live(std::move(l)) { ++*live; }
    counted(counted&& other) noexcept = default;
    counted& operator=(counted&&) noexcept = default;
    ~counted() {
      if (live) --*live;
    }
  };
  timing_wheel::timer_service<counted, manual_clock> timers(epoch);
  std::vector<timer_handle> once;
  std::vector<periodic_handle> every;
  for (int i = 0; i < 50; ++i) {
    once.push_back(timers.schedule_at(epoch + std::chrono::milliseconds(i), counted(live)));
    every.push_back(timers.schedule_every(std::chrono::milliseconds(i + 1), epoch, counted(live)));
  }
  REQUIRE(timers.cancel(every[3]));  // a free record among the live ones
  REQUIRE(*live == 99);
  timers.clear();
  REQUIRE(*live == 0);
  REQUIRE(timers.empty());
  REQUIRE(timers.time_until_next(epoch) == std::nullopt);
  for (const timer_handle h : once) REQUIRE_FALSE(timers.pending(h));
  for (const periodic_handle h : every) REQUIRE_FALSE(timers.pending(h));
  // Usable afterwards; the records are reused under new generations, the old handles still stale.
  std::vector<periodic_handle> again;
  for (int i = 0; i < 60; ++i) again.push_back(timers.schedule_every(1ms, epoch + 1ms, counted(live)));
  for (const periodic_handle h : every) REQUIRE_FALSE(timers.pending(h));
  for (const periodic_handle h : again) REQUIRE(timers.pending(h));
  REQUIRE(timers.poll(epoch + 1ms, [](counted&) {}) == 60);
  REQUIRE(*live == 60);
  REQUIRE_FALSE(timers.cancel(every[10]));
  REQUIRE(timers.cancel(again[10]));
  REQUIRE(*live == 59);
}

TEST_CASE("timer_service reserve makes room for one-shot and periodic timers", "[chrono][reserve]") {
  service<timing_wheel::detail::default_service_queue> timers(epoch);
  timers.reserve(1000, 100);
  REQUIRE(timers.queue().capacity() >= 1000);
  for (int i = 0; i < 900; ++i) timers.schedule_at(epoch + std::chrono::milliseconds(i), i);
  for (int i = 0; i < 100; ++i) timers.schedule_every(10ms, epoch, i);
  REQUIRE(timers.size() == 1000);
  REQUIRE(timers.queue().capacity() >= 1000);
}
