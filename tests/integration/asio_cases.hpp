// The Asio timer service's tests, included once per flavour (asio_test.cpp, boost_asio_test.cpp) after it defines
// `net` (the Asio namespace), `error_code`, `service_type` and FLAVOUR.
#include "support/catch.hpp"

#include <atomic>
#include <chrono>
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

TEST_CASE(FLAVOUR ": handlers fire in due order, never early, once; a cancel posts operation_aborted",
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
  const timing_wheel::timer_handle late = timers.schedule_after(40ms, record(1));
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
  REQUIRE(fired[4].at - start >= 40ms);
  for (std::size_t i = 1; i < fired.size(); ++i) REQUIRE_FALSE(fired[i].aborted);
  REQUIRE_FALSE(timers.reschedule(late, steady::now()));  // fired: stale
  REQUIRE(timers.size() == 0);
}

TEST_CASE(FLAVOUR ": a handler may schedule, reschedule and cancel; periodic timers repeat until cancelled",
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

TEST_CASE(FLAVOUR ": cancel_all aborts every pending handler; destroying the service destroys them uncalled",
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
