// timing_wheel/uv.hpp over libuv: order, never early, cancel, periodic, and a loop that can exit and close.
#include "support/catch.hpp"

#include <timing_wheel/uv.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

namespace {
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

// The queue underneath is a parameter: one test runs the 8 x 256 wheel, a small object for many loops.
template <class U>
using small_wheel = timing_wheel::hierarchical_wheel<U, 8, 8>;
static_assert(sizeof(timing_wheel::uv_timer_service<std::chrono::microseconds, small_wheel>) < 128 * 1024);

struct loop_fixture {
  loop_fixture() { uv_loop_init(&loop); }
  loop_fixture(const loop_fixture&) = delete;
  loop_fixture& operator=(const loop_fixture&) = delete;
  ~loop_fixture() {
    uv_run(&loop, UV_RUN_DEFAULT);
    closed = uv_loop_close(&loop);
  }
  uv_loop_t loop{};
  int closed = -1;
};
}  // namespace

TEST_CASE("uv_timer_service: callbacks fire in due order, never early, once, and cancel drops a callback uncalled",
          "[integration]") {
  loop_fixture fixture;
  std::vector<std::pair<int, steady::duration>> fired;
  auto alive = std::make_shared<int>(1);
  {
    timing_wheel::uv_timer_service<std::chrono::microseconds> timers(&fixture.loop);
    const auto start = steady::now();
    const auto record = [&](int id) { return [&, id] { fired.emplace_back(id, steady::now() - start); }; };
    // Timer 1 is due long after the others, so the order below holds however long the scheduling itself takes.
    const timing_wheel::timer_handle first = timers.schedule_after(200ms, record(1));
    REQUIRE(timers.expiry(first) >= start + 200ms);  // counted from the clock when scheduled
    timers.schedule_after(10ms, record(2));
    timers.schedule_at(start - 1s, record(3));
    const timing_wheel::timer_handle gone =
        timers.schedule_after(5ms, [&, keep = alive] { fired.emplace_back(4, 0s); });
    const timing_wheel::timer_handle moved = timers.schedule_after(1h, record(5));
    REQUIRE(timers.cancel(gone));
    REQUIRE(alive.use_count() == 1);  // destroyed at once
    REQUIRE(timers.reschedule_after(moved, 20ms));
    timing_wheel::periodic_handle beat{};
    int beats = 0;
    beat = timers.schedule_every(3ms, [&] {
      if (++beats == 4) timers.cancel(beat);
    });
    // Returns when nothing is pending: the service stops its handle once it is empty.
    REQUIRE(uv_run(&fixture.loop, UV_RUN_DEFAULT) == 0);
    REQUIRE(beats == 4);
    REQUIRE(timers.size() == 0);
    std::vector<int> order;
    for (const auto& [id, at] : fired) order.push_back(id);
    REQUIRE(order == std::vector<int>{3, 2, 5, 1});
    REQUIRE(fired[1].second >= 10ms);
    REQUIRE(fired[2].second >= 20ms);
    REQUIRE(fired[3].second >= 200ms);
    // Cancelling the last timer stops the handle too: the loop exits at once, not at the cancelled time.
    const timing_wheel::timer_handle last = timers.schedule_after(1h, [] {});
    REQUIRE(timers.cancel(last));
    const auto before = steady::now();
    REQUIRE(uv_run(&fixture.loop, UV_RUN_DEFAULT) == 0);
    REQUIRE(steady::now() - before < 1s);
    timers.schedule_after(1h, [keep = alive] {});  // pending when the service is destroyed
  }
  REQUIRE(alive.use_count() == 1);  // destroyed uncalled with the service
}

TEST_CASE("uv_timer_service: closing releases the handle, so the loop closes cleanly", "[integration]") {
  auto fixture = std::make_unique<loop_fixture>();
  {
    timing_wheel::uv_timer_service<> timers(&fixture->loop);
    int fired = 0;
    std::function<void()> chain = [&] {
      if (++fired < 5) timers.schedule_after(1ms, chain);
    };
    timers.schedule_after(1ms, chain);
    uv_run(&fixture->loop, UV_RUN_DEFAULT);
    REQUIRE(fired == 5);
    timers.schedule_after(1h, [] {});
    timers.close();  // pending callback destroyed; the handle is freed by the loop's next iteration
    timers.close();  // idempotent
    REQUIRE(timers.size() == 0);
  }
  uv_loop_t* loop = &fixture->loop;
  REQUIRE(uv_run(loop, UV_RUN_DEFAULT) == 0);
  REQUIRE(uv_loop_close(loop) == 0);
  uv_loop_init(loop);  // the fixture closes it again
}

TEST_CASE("uv_timer_service (8 x 256 wheel): a later reset fires then, never at the earlier time, ties in order",
          "[integration]") {
  loop_fixture fixture;
  std::vector<std::pair<int, steady::duration>> fired;
  auto alive = std::make_shared<int>(1);
  {
    timing_wheel::uv_timer_service<std::chrono::microseconds, small_wheel> timers(&fixture.loop);
    const auto start = steady::now();
    const auto record = [&](int id) { return [&, id] { fired.emplace_back(id, steady::now() - start); }; };
    const timing_wheel::timer_handle later = timers.schedule_at(start + 5ms, record(1));
    REQUIRE(timers.reschedule(later, start + 30ms));  // recorded: still queued for 5 ms
    REQUIRE(timers.expiry(later) == start + 30ms);
    REQUIRE(timers.reschedule(later, start + 20ms));  // before the due time, after the queued: recorded
    REQUIRE(timers.expiry(later) == start + 20ms);
    const timing_wheel::timer_handle back = timers.schedule_at(start + 50ms, record(2));
    REQUIRE(timers.reschedule(back, start + 80ms));
    REQUIRE(timers.reschedule(back, start + 10ms));  // before the queued 50 ms: moved in the wheel
    const timing_wheel::timer_handle dropped =
        timers.schedule_at(start + 5ms, [&, keep = alive] { fired.emplace_back(3, 0s); });
    REQUIRE(timers.reschedule(dropped, start + 40ms));
    REQUIRE(timers.cancel(dropped));  // cancelled while postponed: destroyed at once, never called
    REQUIRE(alive.use_count() == 1);
    REQUIRE_FALSE(timers.pending(dropped));
    const timing_wheel::timer_handle tie = timers.schedule_at(start + 2ms, record(4));
    REQUIRE(timers.reschedule(tie, start + 60ms));  // queued again at 2 ms, after record(5) and record(6)
    timers.schedule_at(start + 60ms, record(5));
    timers.schedule_at(start + 60ms, record(6));
    REQUIRE(timers.size() == 5);
    REQUIRE(uv_run(&fixture.loop, UV_RUN_DEFAULT) == 0);  // the handle stops once the last timer fired
    std::vector<int> order;
    for (const auto& [id, at] : fired) order.push_back(id);
    REQUIRE(order == std::vector<int>{2, 1, 5, 6, 4});
    REQUIRE(fired[0].second >= 10ms);
    REQUIRE(fired[1].second >= 20ms);
    REQUIRE(fired[2].second >= 60ms);
    REQUIRE_FALSE(timers.pending(later));
    REQUIRE_FALSE(timers.reschedule(later, steady::now() + 1h));  // fired: stale
    const timing_wheel::timer_handle pending_at_close = timers.schedule_after(5ms, [keep = alive] {});
    REQUIRE(timers.reschedule_after(pending_at_close, 1h));
  }
  REQUIRE(alive.use_count() == 1);  // destroyed uncalled with the service, postponed or not
}
