// The cross-thread front end: requests from any thread, the wake-up protocol, backpressure, shutdown, and a stress
// run of 4 producers and 1 loop (also built under ThreadSanitizer by scripts/test).
#include "support/catch.hpp"

#include <timing_wheel/concurrent.hpp>
#include <timing_wheel/eventfd.hpp>
#include <timing_wheel/flat_wheel.hpp>
#include <timing_wheel/min_heap.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <poll.h>

using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;
using timing_wheel::remote_handle;

namespace {

std::uint64_t test_seed() {
  const char* text = std::getenv("TIMING_WHEEL_SEED");
  return text != nullptr ? std::strtoull(text, nullptr, 0) : 20261205;  // scripts/stress_concurrent draws new ones
}

// A clock the test moves by hand.
struct manual_clock {
  using rep = std::int64_t;
  using period = std::milli;
  using duration = std::chrono::milliseconds;
  using time_point = std::chrono::time_point<manual_clock>;
  [[maybe_unused]] static constexpr bool is_steady = true;
  static time_point now() noexcept { return time_point{}; }
};
using manual_point = manual_clock::time_point;

struct counting_wake {
  std::atomic<int>* calls;
  void operator()() const noexcept { calls->fetch_add(1, std::memory_order_relaxed); }
};

template <class T>
using manual_service = timing_wheel::concurrent_service<T, manual_clock>;

}  // namespace

TEST_CASE("concurrent_service: a cancel or reschedule made before the loop applied the schedule still applies",
          "[concurrent]") {
  std::atomic<int> wakes{0};
  manual_service<int> timers(counting_wake{&wakes}, manual_point{});
  const remote_handle cancelled = timers.schedule_at(manual_point{10ms}, 1);
  const remote_handle moved = timers.schedule_at(manual_point{1h}, 2);
  timers.schedule_at(manual_point{10ms}, 3);
  timers.cancel(cancelled);
  timers.reschedule(moved, manual_point{5ms});
  std::vector<int> fired;
  REQUIRE(timers.poll(manual_point{10ms}, [&](int& v) { fired.push_back(v); }) == 2);
  REQUIRE(fired == std::vector<int>{2, 3});
  // Stale handles are ignored, whatever comes after.
  timers.cancel(cancelled);
  timers.cancel(moved);
  timers.reschedule(moved, manual_point{20ms});
  timers.cancel(remote_handle{});
  timers.cancel(remote_handle{12345, 7});
  REQUIRE(timers.poll(manual_point{1h}, [&](int& v) { fired.push_back(v); }) == 0);
  REQUIRE(timers.stats().ignored == 5);
  REQUIRE(timers.size() == 0);
}

TEST_CASE("concurrent_service: equal due times fire in the order the requests were made", "[concurrent]") {
  manual_service<int> timers([] {}, manual_point{});
  for (int i = 0; i < 100; ++i) timers.schedule_at(manual_point{std::chrono::milliseconds(i % 3)}, i);
  std::vector<int> fired;
  timers.poll(manual_point{5ms}, [&](int& v) { fired.push_back(v); });
  std::vector<int> expected;
  for (int k = 0; k < 3; ++k) {
    for (int i = k; i < 100; i += 3) expected.push_back(i);
  }
  REQUIRE(fired == expected);
}

TEST_CASE("concurrent_service: the loop is woken only by a request due before the sleep it announced, once",
          "[concurrent]") {
  std::atomic<int> wakes{0};
  manual_service<int> timers(counting_wake{&wakes}, manual_point{});
  // Awake (never announced a sleep): nothing wakes it; it looks at the inbox before it sleeps.
  timers.schedule_at(manual_point{1ms}, 0);
  REQUIRE(wakes == 0);
  REQUIRE(timers.time_until_next(manual_point{}) == 1ms);  // applies, then announces a sleep until tick 1
  timers.schedule_at(manual_point{1h}, 1);                 // later than the wake-up: no call
  timers.schedule_at(manual_point{1ms}, 2);                // the same tick: no call
  timers.cancel(remote_handle{0, 1});                      // cancels never bring it forward
  REQUIRE(wakes == 0);
  const remote_handle early = timers.schedule_at(manual_point{}, 3);  // due now: wake
  REQUIRE(wakes == 1);
  timers.schedule_at(manual_point{}, 4);  // already woken for this sleep
  timers.reschedule(early, manual_point{});
  REQUIRE(wakes == 1);
  REQUIRE(timers.timeout_ms(manual_point{}) == 0);  // applied: something is due
  timers.schedule_at(manual_point{}, 5);            // the announced sleep was 0 ticks: nothing earlier exists
  REQUIRE(wakes == 1);
  std::vector<int> fired;
  timers.poll(manual_point{2ms}, [&](int& v) { fired.push_back(v); });
  // 0 was cancelled through its handle {0, 1}; 3 was rescheduled after 4 was scheduled: a new insertion.
  REQUIRE(fired == std::vector<int>{4, 3, 5, 2});
  // Idle: an empty service sleeps without a deadline, and any timer wakes it.
  manual_service<int> idle(counting_wake{&wakes}, manual_point{});
  REQUIRE(idle.time_until_next(manual_point{}) == std::nullopt);
  idle.reschedule(remote_handle{}, manual_point{});  // a stale reschedule still calls: it cannot know
  idle.schedule_at(manual_point{100h}, 1);
  REQUIRE(wakes == 2);
  REQUIRE(idle.stats().wakeups == 1);
}

TEST_CASE("concurrent_service: a bounded inbox hands the payload back when full", "[concurrent]") {
  manual_service<std::unique_ptr<int>> timers([] {}, timing_wheel::inbox_capacity{3}, manual_point{});
  for (int i = 0; i < 3; ++i) REQUIRE(timers.try_schedule_at(manual_point{1ms}, std::make_unique<int>(i)));
  auto refused = timers.try_schedule_at(manual_point{1ms}, std::make_unique<int>(99));
  REQUIRE_FALSE(refused);
  REQUIRE(refused.rejected.has_value());
  REQUIRE(**refused.rejected == 99);
  REQUIRE(refused.handle == remote_handle{});
  REQUIRE_THROWS_AS(timers.schedule_at(manual_point{1ms}, std::make_unique<int>(100)), std::length_error);
  REQUIRE_FALSE(timers.try_reschedule(remote_handle{0, 1}, manual_point{2ms}));
  int sum = 0;
  REQUIRE(timers.poll(manual_point{1ms}, [&](std::unique_ptr<int>& p) { sum += *p; }) == 3);
  REQUIRE(sum == 0 + 1 + 2);
  REQUIRE(timers.try_schedule_at(manual_point{1ms}, std::make_unique<int>(5)));
}

TEST_CASE("concurrent_service: drain at shutdown hands over what is pending and what is still in the inbox",
          "[concurrent]") {
  manual_service<std::string> timers([] {}, manual_point{});
  timers.schedule_at(manual_point{3ms}, "pending, late");
  REQUIRE(timers.time_until_next(manual_point{}) == 3ms);  // applied
  timers.schedule_at(manual_point{1ms}, "in the inbox, early");
  const remote_handle gone = timers.schedule_at(manual_point{2ms}, "cancelled");
  timers.cancel(gone);
  std::vector<std::string> handed;
  timers.drain([&](std::string&& s) { handed.push_back(std::move(s)); });
  REQUIRE(handed == std::vector<std::string>{"in the inbox, early", "pending, late"});
  REQUIRE(timers.size() == 0);
  REQUIRE(timers.poll(manual_point{1h}, [](std::string&) { FAIL("drained"); }) == 0);
}

TEST_CASE("concurrent_service: a schedule from another thread wakes a loop asleep on its eventfd", "[concurrent]") {
  timing_wheel::eventfd_wakeup wake;
  timing_wheel::concurrent_service<int, steady> timers(std::ref(wake), steady::now());
  timers.schedule_at(steady::now() + 1h, 100);  // the loop will sleep until then
  std::atomic<int> fired{0};
  std::atomic<bool> asleep{false};
  int first_timeout = 0;
  bool woken = false;
  std::thread loop([&] {
    pollfd watched{wake.fd(), POLLIN, 0};
    first_timeout = timers.timeout_ms(steady::now());
    asleep.store(true);
    woken = ::poll(&watched, 1, 10'000) == 1;  // not woken within 10 s: the test fails below
    wake.clear();
    // The timer due "now" is due at the start of the next 1 ms tick: a short sleep or two more.
    for (int turn = 0; woken && turn < 1000; ++turn) {
      timers.poll(steady::now(), [&](int& v) { fired.fetch_add(v); });
      if (fired.load() != 0) break;
      ::poll(&watched, 1, timers.timeout_ms(steady::now()));
    }
  });
  while (!asleep.load()) std::this_thread::yield();
  std::this_thread::sleep_for(10ms);            // into poll()
  timers.schedule_at(steady::now() + 2h, 200);  // after the loop's wake-up: no call
  REQUIRE(timers.stats().wakeups == 0);
  timers.schedule_at(steady::now(), 2);  // due now: wakes it
  loop.join();
  REQUIRE(first_timeout > 3'500'000);  // about an hour, in ms
  REQUIRE(woken);
  REQUIRE(fired.load() == 2);
  REQUIRE(timers.stats().wakeups == 1);
}

namespace {

// Counts, per timer id, how it ended: fired (and when), or destroyed unfired (cancelled or drained).
struct ledger {
  explicit ledger(std::size_t n) : fired(n), destroyed(n), due(n) {}
  std::vector<std::atomic<int>> fired;
  std::vector<std::atomic<int>> destroyed;
  std::vector<steady::time_point> due;  // written by the producer before it schedules, read by the loop
};

// A payload that reports its end to the ledger; moved-from copies report nothing.
class tracked {
 public:
  tracked(ledger* book, std::uint32_t id) noexcept : m_book(book), m_id(id) {}
  tracked(tracked&& other) noexcept : m_book(std::exchange(other.m_book, nullptr)), m_id(other.m_id) {}
  tracked& operator=(tracked&&) = delete;
  tracked(const tracked&) = delete;
  tracked& operator=(const tracked&) = delete;
  ~tracked() {
    if (m_book != nullptr) m_book->destroyed[m_id].fetch_add(1, std::memory_order_relaxed);
  }
  void fire() {
    m_book->fired[m_id].fetch_add(1, std::memory_order_relaxed);
    m_book = nullptr;
  }
  [[nodiscard]] std::uint32_t id() const noexcept { return m_id; }

 private:
  ledger* m_book;
  std::uint32_t m_id;
};

}  // namespace

TEST_CASE("concurrent_service: 4 producers and 1 loop, mixed requests, every timer ends exactly once, none early",
          "[concurrent][stress]") {
  const char* scale = std::getenv("TIMING_WHEEL_CONCURRENT_REQUESTS");
  const std::size_t requests = scale != nullptr ? std::strtoull(scale, nullptr, 10) : 1'000'000;
  constexpr int producers = 4;
  const std::uint64_t seed = test_seed();
  INFO("TIMING_WHEEL_SEED=" << seed);
  std::printf("concurrent stress: %zu requests, TIMING_WHEEL_SEED=%llu\n", requests,
              static_cast<unsigned long long>(seed));
  const std::size_t per_producer = requests / producers;
  const std::size_t capacity = per_producer * producers;  // at most one schedule per request
  ledger book(capacity);
  std::vector<std::atomic<std::uint64_t>> published(capacity);  // handle of each id once scheduled (0: not yet)
  std::atomic<std::size_t> scheduled{0};

  timing_wheel::eventfd_wakeup wake;
  timing_wheel::concurrent_service<tracked, steady, std::chrono::microseconds> timers(std::ref(wake), steady::now(),
                                                                                      100us);
  std::atomic<bool> stop{false};
  std::uint64_t early = 0;
  std::uint64_t sleeps = 0;
  std::thread loop([&] {
    pollfd watched{wake.fd(), POLLIN, 0};
    while (!stop.load(std::memory_order_acquire)) {
      const int timeout = timers.timeout_ms(steady::now());  // woken for `stop` too
      ++sleeps;
      ::poll(&watched, 1, timeout);
      wake.clear();
      timers.poll(steady::now(), [&](steady::time_point due, tracked& t) {
        if (steady::now() < book.due[t.id()] || due < book.due[t.id()]) ++early;
        t.fire();
      });
    }
  });
  std::vector<std::thread> threads;
  for (int p = 0; p < producers; ++p) {
    threads.emplace_back([&, p] {
      std::mt19937_64 random(seed + static_cast<std::uint64_t>(p));
      for (std::size_t i = 0; i < per_producer; ++i) {
        // Pauses now and then let the loop fall asleep, so that requests must wake it.
        if (i % 500 == 499) std::this_thread::sleep_for(std::chrono::microseconds(500 + random() % 1000));
        const auto choice = random() % 10;
        const std::size_t known = scheduled.load(std::memory_order_acquire);
        if (choice < 6 || known == 0) {  // schedule, due now (one in ten) or up to 20 ms ahead
          const std::size_t id = scheduled.fetch_add(1, std::memory_order_acq_rel);
          const steady::time_point when =
              steady::now() + std::chrono::microseconds(random() % 10 == 0 ? 0 : random() % 20'000);
          book.due[id] = when;
          const remote_handle h = timers.schedule_at(when, tracked(&book, static_cast<std::uint32_t>(id)));
          published[id].store((std::uint64_t{h.index} << 32) | h.generation, std::memory_order_release);
          continue;
        }
        // A timer some thread scheduled (perhaps not yet applied by the loop, or long gone).
        const std::uint64_t packed = published[random() % known].load(std::memory_order_acquire);
        if (packed == 0) continue;
        const remote_handle h{static_cast<std::uint32_t>(packed >> 32), static_cast<std::uint32_t>(packed)};
        if (choice < 8) {
          timers.cancel(h);
        } else {
          // Later only: a reschedule to an earlier time would make its recorded due time a lie.
          timers.reschedule(h, steady::now() + 25ms + std::chrono::microseconds(random() % 10'000));
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::this_thread::sleep_for(50ms);  // the last timers fall due
  stop.store(true, std::memory_order_release);
  wake();
  loop.join();
  std::size_t drained = 0;
  timers.drain([&](tracked&&) { ++drained; });  // destroyed unfired: counted as such

  const std::size_t total = scheduled.load();
  std::size_t fired = 0;
  std::size_t destroyed = 0;
  std::size_t wrong = 0;
  for (std::size_t id = 0; id < total; ++id) {
    fired += static_cast<std::size_t>(book.fired[id].load());
    destroyed += static_cast<std::size_t>(book.destroyed[id].load());
    if (book.fired[id].load() + book.destroyed[id].load() != 1) ++wrong;
  }
  const timing_wheel::concurrent_stats stats = timers.stats();
  std::printf(
      "concurrent stress: %zu scheduled, %zu fired, %zu cancelled or drained (%zu drained), %llu wake-ups "
      "over %llu sleeps, %llu requests applied, %llu ignored\n",
      total, fired, destroyed, drained, static_cast<unsigned long long>(stats.wakeups),
      static_cast<unsigned long long>(sleeps), static_cast<unsigned long long>(stats.requests),
      static_cast<unsigned long long>(stats.ignored));
  REQUIRE(wrong == 0);
  REQUIRE(early == 0);
  REQUIRE(fired + destroyed == total);
  REQUIRE(fired > 0);
  REQUIRE(destroyed > 0);
  REQUIRE(stats.requests >= total);
  // Woken at most once per sleep, and only for schedules and reschedules.
  REQUIRE(stats.wakeups <= sleeps + 1);
  REQUIRE(stats.wakeups < stats.requests);
}

namespace {
// concurrent_queue over each raw queue.
struct over_wheel {
  template <class U>
  using queue = timing_wheel::hierarchical_wheel<U>;
};
struct over_min_heap {
  template <class U>
  using queue = timing_wheel::min_heap<U>;
};
struct over_flat_wheel {
  template <class U>
  using queue = timing_wheel::flat_wheel<U, 64>;
};
}  // namespace

TEMPLATE_TEST_CASE("concurrent_queue: requests apply in order, before the advance, and stale handles are ignored",
                   "[concurrent]", over_wheel, over_min_heap, over_flat_wheel) {
  std::atomic<int> wakes{0};
  timing_wheel::concurrent_queue<int, TestType::template queue> timers(counting_wake{&wakes}, 100);
  REQUIRE(timers.now() == 100);
  const remote_handle cancelled = timers.insert(110, 1);
  const remote_handle moved = timers.insert(5000, 2);
  timers.insert(110, 3);
  timers.insert(7, 4);  // in the past: due at now()
  timers.cancel(cancelled);
  timers.reschedule(moved, 105);
  REQUIRE(timers.size() == 0);  // nothing applied yet
  std::vector<std::pair<timing_wheel::tick, int>> fired;
  const auto record = [&](timing_wheel::tick due, int&& v) { fired.emplace_back(due, v); };
  REQUIRE(timers.advance(110, record) == 3);
  REQUIRE(fired == std::vector<std::pair<timing_wheel::tick, int>>{{7, 4}, {105, 2}, {110, 3}});
  timers.cancel(cancelled);
  timers.reschedule(moved, 200);
  timers.cancel(remote_handle{});
  timers.cancel(remote_handle{999, 3});
  REQUIRE(timers.advance(10'000, record) == 0);
  REQUIRE(timers.stats().ignored == 4);
  REQUIRE(timers.stats().wakeups == 0);  // the loop never announced a sleep
  // Equal deadlines fire in request order; f(T&&) works too.
  for (int i = 0; i < 30; ++i) timers.insert(10'000 + static_cast<timing_wheel::tick>(i % 3), i);
  std::vector<int> order;
  timers.advance(10'010, [&](int&& v) { order.push_back(v); });
  std::vector<int> expected;
  for (int k = 0; k < 3; ++k) {
    for (int i = k; i < 30; i += 3) expected.push_back(i);
  }
  REQUIRE(order == expected);
}

TEST_CASE("concurrent_queue: woken only by a request due before the announced sleep, bounded, drained",
          "[concurrent]") {
  std::atomic<int> wakes{0};
  timing_wheel::concurrent_queue<std::unique_ptr<int>> timers(counting_wake{&wakes}, timing_wheel::inbox_capacity{4});
  timers.insert(50, std::make_unique<int>(1));
  REQUIRE(timers.next_expiration() == 50);  // applied; announces a sleep until tick 50
  timers.insert(80, std::make_unique<int>(2));
  timers.insert(50, std::make_unique<int>(3));
  REQUIRE(wakes == 0);
  timers.insert(49, std::make_unique<int>(4));  // earlier than the wake-up: one call
  timers.insert(10, std::make_unique<int>(5));  // already woken for this sleep
  REQUIRE(wakes == 1);
  auto refused = timers.try_insert(60, std::make_unique<int>(6));  // 4 requests wait
  REQUIRE_FALSE(refused);
  REQUIRE(**refused.rejected == 6);
  REQUIRE_THROWS_AS(timers.insert(60, std::make_unique<int>(7)), std::length_error);
  REQUIRE_FALSE(timers.try_reschedule(remote_handle{0, 1}, 1));
  std::vector<int> handed;
  timers.drain([&](timing_wheel::tick, std::unique_ptr<int>&& p) { handed.push_back(*p); });
  REQUIRE(handed == std::vector<int>{5, 4, 1, 3, 2});
  REQUIRE(timers.size() == 0);
  REQUIRE(timers.next_expiration() == std::nullopt);    // empty: sleep until a request
  timers.insert(UINT64_MAX, std::make_unique<int>(8));  // any timer wakes an idle loop
  REQUIRE(wakes == 2);
  REQUIRE(timers.stats().wakeups == 2);
}

TEST_CASE("concurrent_queue: 4 producers and 1 loop over ticks, every timer ends once, none early, FIFO per producer",
          "[concurrent][stress]") {
  constexpr int producers = 4;
  constexpr std::uint32_t per_producer = 20'000;
  const std::uint64_t seed = test_seed();
  INFO("TIMING_WHEEL_SEED=" << seed);
  std::printf("concurrent_queue stress: TIMING_WHEEL_SEED=%llu\n", static_cast<unsigned long long>(seed));
  struct timer {
    std::uint32_t producer;
    std::uint32_t sequence;  // the producer's count of its inserts
    timing_wheel::tick deadline;
  };
  std::atomic<timing_wheel::tick> loop_now{0};  // producers read the loop's time to aim just ahead of it
  timing_wheel::concurrent_queue<timer> timers([] {});
  std::atomic<int> running{producers};
  std::vector<std::vector<char>> ended(producers, std::vector<char>(per_producer, 0));
  std::vector<std::uint32_t> cancels_sent(producers, 0);
  std::uint64_t early = 0;
  std::uint64_t out_of_order = 0;
  std::thread loop([&] {
    std::vector<std::pair<timing_wheel::tick, std::uint32_t>> last(producers, {0, 0});  // (deadline, sequence)
    const auto on_fire = [&](timing_wheel::tick due, timer&& t) {
      if (due < t.deadline || loop_now.load(std::memory_order_relaxed) < t.deadline) ++early;
      auto& [deadline, sequence] = last[t.producer];
      if (deadline == t.deadline && sequence > t.sequence) ++out_of_order;  // same deadline: request order
      last[t.producer] = {t.deadline, t.sequence};
      ++ended[t.producer][t.sequence];
    };
    while (running.load(std::memory_order_acquire) > 0) {
      const timing_wheel::tick now = loop_now.load(std::memory_order_relaxed) + 1;
      loop_now.store(now, std::memory_order_relaxed);
      timers.advance(now, on_fire);
    }
    loop_now.store(UINT64_MAX - 1, std::memory_order_relaxed);
    timers.advance(UINT64_MAX - 1, on_fire);
  });
  std::vector<std::thread> threads;
  for (int p = 0; p < producers; ++p) {
    threads.emplace_back([&, p] {
      std::mt19937_64 random(seed + static_cast<std::uint64_t>(p));
      std::vector<remote_handle> mine;
      mine.reserve(per_producer);
      for (std::uint32_t i = 0; i < per_producer; ++i) {
        const timing_wheel::tick deadline = loop_now.load(std::memory_order_relaxed) + random() % 64;
        mine.push_back(timers.insert(deadline, timer{static_cast<std::uint32_t>(p), i, deadline}));
        if (random() % 8 == 0) {
          timers.cancel(mine[random() % mine.size()]);  // perhaps fired already: then ignored
          ++cancels_sent[static_cast<std::size_t>(p)];
        }
      }
      running.fetch_sub(1, std::memory_order_release);
    });
  }
  for (std::thread& t : threads) t.join();
  loop.join();
  std::uint64_t fired = 0;
  std::uint64_t twice = 0;
  for (const auto& marks : ended) {
    for (const char m : marks) {
      fired += m == 1 ? 1 : 0;
      twice += m > 1 ? 1 : 0;
    }
  }
  const timing_wheel::concurrent_stats stats = timers.stats();
  REQUIRE(early == 0);
  REQUIRE(out_of_order == 0);
  REQUIRE(twice == 0);
  REQUIRE(timers.size() == 0);
  std::uint64_t sent = 0;
  for (const std::uint32_t c : cancels_sent) sent += c;
  // Every timer fired unless a cancel reached it first: those are the cancels not ignored.
  REQUIRE(fired + (sent - stats.ignored) == std::uint64_t{producers} * per_producer);
  REQUIRE(stats.requests == std::uint64_t{producers} * per_producer + sent);
}
