// scoped_timer: a timer owned by a scope is cancelled when the scope ends, unless released; on every structure
// and on the chrono front end (one-shot and periodic).
#include "support/catch.hpp"
#include "support/queues.hpp"

#include <timing_wheel/chrono.hpp>

#include <chrono>
#include <utility>

using namespace timing_wheel_test;
using timing_wheel::scoped_timer;
using timing_wheel::tick;
using timing_wheel::timer_handle;

TEMPLATE_LIST_TEST_CASE("scoped_timer cancels on destruction, keeps on release, moves ownership", "[scoped_timer]",
                        all_queues<int>) {
  TestType q;
  timer_handle kept;
  {
    scoped_timer owned(q, q.insert(10, 1));
    scoped_timer released(q, q.insert(20, 2));
    CHECK(owned.pending());
    CHECK(static_cast<bool>(released));
    kept = released.release();
    CHECK_FALSE(released.pending());
    CHECK(released.get() == timer_handle{});
    CHECK(q.size() == 2);
  }
  CHECK(q.size() == 1);
  CHECK(q.pending(kept));

  scoped_timer<TestType> first(q, q.insert(30, 3));
  const timer_handle h = first.get();
  scoped_timer<TestType> second(std::move(first));
  CHECK_FALSE(first.pending());  // NOLINT(bugprone-use-after-move): a moved-from owner owns nothing
  CHECK(second.pending());
  scoped_timer<TestType> third(q, q.insert(40, 4));
  const timer_handle replaced = third.get();
  third = std::move(second);  // cancels timer 4, takes timer 3
  CHECK_FALSE(q.pending(replaced));
  CHECK(third.get() == h);
  CHECK(q.pending(h));
  third.reset();
  CHECK_FALSE(q.pending(h));
  CHECK(q.size() == 1);

  // A timer that fired is not pending: its owner's destructor does nothing to the queue.
  {
    scoped_timer fired(q, q.insert(5, 5));
    CHECK(q.advance(5, [](tick, int&&) {}) == 1);
    CHECK_FALSE(fired.pending());
  }
  CHECK(q.size() == 1);
  CHECK(q.pending(kept));
}

TEST_CASE("scoped_timer owns one-shot and periodic timers of a timer_service", "[scoped_timer][chrono]") {
  using service = timing_wheel::timer_service<int>;
  const auto epoch = std::chrono::steady_clock::now();
  service timers(epoch);
  timing_wheel::periodic_handle ticker;
  {
    scoped_timer once(timers, timers.schedule_at(epoch + std::chrono::seconds(1), 1));
    scoped_timer<service, timing_wheel::periodic_handle> repeating(
        timers, timers.schedule_every(std::chrono::milliseconds(10), epoch, 2));
    ticker = repeating.get();
    CHECK(timers.size() == 2);
    CHECK(repeating.pending());
  }
  CHECK(timers.empty());
  CHECK_FALSE(timers.pending(ticker));
}
