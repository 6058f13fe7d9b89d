// The Asio timer service's tests, included once per flavour (asio_test.cpp, boost_asio_test.cpp) after it defines
// `net` (the Asio namespace), `error_code`, `service_type` and FLAVOUR.
#include "support/catch.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

namespace {
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

// Counts how many live copies of a handler's state exist: destroyed handlers are not leaked.
struct token {
  explicit token(std::shared_ptr<int> c) : count(std::move(c)) { ++*count; }
  token(token&& other) noexcept : count(other.count) { ++*count; }
  token(const token&) = delete;
  token& operator=(const token&) = delete;
  token& operator=(token&&) = delete;
  ~token() { --*count; }
  std::shared_ptr<int> count;
};
}  // namespace

TEST_CASE(FLAVOUR ": handlers fire in due order, never early, once, and a cancel posts operation_aborted",
          "[integration]") {
  net::io_context io;
  service_type timers(io);
  struct firing {
    int id;
    bool aborted;
    steady::time_point at;
  };
  std::vector<firing> fired;
  const auto start = steady::now();
  const auto record = [&](int id) { return [&, id](error_code ec) { fired.push_back({id, !!ec, steady::now()}); }; };
  // Timer 1 is due long after the others, so the order below holds however long the scheduling itself takes.
  const timing_wheel::timer_handle late = timers.schedule_after(200ms, record(1));
  timers.schedule_after(10ms, record(2));
  timers.schedule_at(start - 1s, record(3));  // in the past: as soon as the loop runs
  const timing_wheel::timer_handle gone = timers.schedule_after(5ms, record(4));
  const timing_wheel::timer_handle moved = timers.schedule_after(1h, record(5));
  REQUIRE(timers.cancel(gone));
  REQUIRE(fired.empty());  // posted, not called inside cancel()
  REQUIRE_FALSE(timers.cancel(gone));
  REQUIRE(timers.reschedule_after(moved, 20ms));
  REQUIRE(timers.size() == 4);
  io.run();  // returns once nothing is pending: the service's one wait is the only work
  REQUIRE(fired.size() == 5);
  REQUIRE(fired[0].id == 4);  // the aborted handler, posted first
  REQUIRE(fired[0].aborted);
  const std::vector<int> order{fired[1].id, fired[2].id, fired[3].id, fired[4].id};
  REQUIRE(order == std::vector<int>{3, 2, 5, 1});
  REQUIRE(fired[2].at - start >= 10ms);
  REQUIRE(fired[3].at - start >= 20ms);
  REQUIRE(fired[4].at - start >= 200ms);
  for (std::size_t i = 1; i < fired.size(); ++i) REQUIRE_FALSE(fired[i].aborted);
  REQUIRE_FALSE(timers.reschedule(late, steady::now()));  // fired: stale
  REQUIRE(timers.size() == 0);
}

TEST_CASE(FLAVOUR ": a handler may schedule, reschedule and cancel, and periodic timers repeat until cancelled",
          "[integration]") {
  net::io_context io;
  service_type timers(io);
  auto alive = std::make_shared<int>(0);
  int ticks = 0;
  int chained = 0;
  timing_wheel::periodic_handle beat{};
  beat = timers.schedule_every(2ms, [&, t = token(alive)](error_code ec) {
    REQUIRE_FALSE(ec);
    if (++ticks == 5) REQUIRE(timers.cancel(beat));  // destroyed without a call, after this one returns
  });
  std::function<void(error_code)> again;
  again = [&](error_code ec) {
    REQUIRE_FALSE(ec);
    if (++chained < 10) timers.schedule_after(1ms, again);
  };
  timers.schedule_after(1ms, again);
  io.run();
  REQUIRE(ticks == 5);
  REQUIRE(chained == 10);
  REQUIRE(*alive == 0);
}

TEST_CASE(FLAVOUR ": cancel_all aborts every pending handler, and destroying the service destroys them uncalled",
          "[integration]") {
  net::io_context io;
  auto alive = std::make_shared<int>(0);
  int called = 0;
  int aborted = 0;
  {
    service_type timers(io);
    for (int i = 0; i < 100; ++i) {
      timers.schedule_after(std::chrono::milliseconds(1 + i),
                            [&, t = token(alive)](error_code ec) { ++(ec ? aborted : called); });
    }
    timers.schedule_every(1ms, [&, t = token(alive)](error_code ec) { ++(ec ? aborted : called); });
    REQUIRE(timers.cancel_all() == 101);
    REQUIRE(timers.size() == 0);
    io.run();
    REQUIRE(aborted == 101);
    REQUIRE(called == 0);
    io.restart();
    for (int i = 0; i < 50; ++i) {
      timers.schedule_after(1h, [&, t = token(alive)](error_code) { ++called; });
    }
    REQUIRE(*alive == 50);
  }  // destroyed with 50 pending and its wait outstanding
  REQUIRE(*alive == 0);
  io.run();  // the cancelled wait completes and touches nothing
  REQUIRE(called == 0);
}

TEST_CASE(FLAVOUR ": on a strand of an io_context run by two threads, every timer fires once", "[integration]") {
  net::io_context io(2);
  auto strand = net::make_strand(io);
  service_type timers(strand);
  constexpr int count = 2000;
  std::vector<int> fired(count, 0);
  std::atomic<int> inside{0};
  int overlapped = 0;
  std::atomic<int> done{0};
  for (int i = 0; i < count; ++i) {
    net::post(strand, [&, i] {
      timers.schedule_after(std::chrono::microseconds(i * 3 % 5000), [&, i](error_code ec) {
        if (inside.fetch_add(1) != 0) ++overlapped;  // the strand runs one handler at a time
        if (!ec) ++fired[static_cast<std::size_t>(i)];
        inside.fetch_sub(1);
        done.fetch_add(1);
      });
    });
  }
  std::thread second([&] { io.run(); });
  io.run();
  second.join();
  REQUIRE(done.load() == count);
  REQUIRE(overlapped == 0);
  for (const int f : fired) REQUIRE(f == 1);
}

TEST_CASE(FLAVOUR ": a later reset fires then, never at the earlier time, and earlier resets and cancels hold",
          "[integration]") {
  net::io_context io;
  service_type timers(io);
  const auto start = steady::now();
  std::vector<std::pair<int, steady::duration>> fired;
  const auto record = [&](int id) {
    return [&, id](error_code ec) {
      if (!ec) fired.emplace_back(id, steady::now() - start);
    };
  };
  const timing_wheel::timer_handle later = timers.schedule_at(start + 5ms, record(1));
  REQUIRE(timers.reschedule(later, start + 30ms));  // recorded: still queued for 5 ms
  REQUIRE(timers.expiry(later) == start + 30ms);
  REQUIRE(timers.reschedule(later, start + 20ms));  // before the due time, after the queued: recorded
  REQUIRE(timers.expiry(later) == start + 20ms);
  const timing_wheel::timer_handle back = timers.schedule_at(start + 50ms, record(2));
  REQUIRE(timers.reschedule(back, start + 80ms));
  REQUIRE(timers.reschedule(back, start + 10ms));  // before the queued 50 ms: moved in the wheel
  const timing_wheel::timer_handle dropped = timers.schedule_at(start + 5ms, record(3));
  REQUIRE(timers.reschedule(dropped, start + 40ms));
  int aborted = 0;
  const timing_wheel::timer_handle aborted_one =
      timers.schedule_at(start + 5ms, [&](error_code ec) { aborted += ec == net::error::operation_aborted; });
  REQUIRE(timers.reschedule(aborted_one, start + 40ms));
  REQUIRE(timers.cancel(dropped));  // cancelled while postponed: never fires
  REQUIRE(timers.cancel(aborted_one));
  REQUIRE_FALSE(timers.pending(dropped));
  // Equal due times: in the order they were queued; a postponed timer counts from when it is queued again.
  const timing_wheel::timer_handle tie = timers.schedule_at(start + 2ms, record(4));
  REQUIRE(timers.reschedule(tie, start + 60ms));  // queued again at 2 ms, after record(5)
  timers.schedule_at(start + 60ms, record(5));
  timers.schedule_at(start + 60ms, record(6));
  REQUIRE(timers.size() == 5);
  io.run();
  std::vector<int> order;
  for (const auto& [id, at] : fired) order.push_back(id);
  REQUIRE(order == std::vector<int>{2, 1, 5, 6, 4});
  REQUIRE(fired[0].second >= 10ms);
  REQUIRE(fired[1].second >= 20ms);
  REQUIRE(fired[2].second >= 60ms);
  REQUIRE(aborted == 1);
  REQUIRE_FALSE(timers.pending(later));
  REQUIRE_FALSE(timers.reschedule(later, steady::now() + 1h));  // fired: stale
  REQUIRE(timers.size() == 0);
}

TEST_CASE(FLAVOUR ": idle timeouts reset many times fire once each, after their last reset", "[integration]") {
  net::io_context io;
  service_type timers(io);
  constexpr int count = 300;
  std::vector<int> fired(count, 0);
  std::vector<steady::time_point> last_reset(count);
  std::vector<steady::duration> early(count, steady::duration::zero());
  std::vector<timing_wheel::timer_handle> handles;
  for (int i = 0; i < count; ++i) {
    last_reset[static_cast<std::size_t>(i)] = steady::now();
    handles.push_back(timers.schedule_after(2ms, [&, i](error_code ec) {
      const auto k = static_cast<std::size_t>(i);
      if (ec) return;
      ++fired[k];
      if (steady::now() - last_reset[k] < 2ms) early[k] = 2ms - (steady::now() - last_reset[k]);
    }));
  }
  // Resets from a ticker on the same loop, later each time: the timers fire only once the resets stop.
  int round = 0;
  net::steady_timer ticker(io);
  std::function<void(error_code)> reset = [&](error_code) {
    for (int i = round % 3; i < count; i += 3) {
      const auto k = static_cast<std::size_t>(i);
      const auto now = steady::now();
      if (timers.reschedule_after(handles[k], 2ms)) {
        last_reset[k] = now;
      } else {
        REQUIRE(fired[k] == 1);  // a late ticker let it time out: no longer pending
      }
    }
    if (++round == 60) return;
    ticker.expires_after(std::chrono::microseconds(500));
    ticker.async_wait(reset);
  };
  ticker.expires_after(std::chrono::microseconds(500));
  ticker.async_wait(reset);
  io.run();
  for (int i = 0; i < count; ++i) {
    const auto k = static_cast<std::size_t>(i);
    REQUIRE(fired[k] == 1);
    REQUIRE(early[k] == steady::duration::zero());
  }
  REQUIRE(timers.size() == 0);
}
