// peek() is the timer advance() fires next; for_each() visits every pending timer once. On every structure and
// shape, over random operations (ties, past and far deadlines, tiny wheels, the overflow store).
#include "support/catch.hpp"
#include "support/queues.hpp"
#include "support/random_ops.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <utility>
#include <vector>

using namespace timing_wheel_test;

TEMPLATE_LIST_TEST_CASE("peek() on an empty queue is nullopt", "[peek]", all_queues<int>) {
  TestType q;
  CHECK_FALSE(q.peek().has_value());
  CHECK_FALSE(std::as_const(q).peek().has_value());
  const auto h = q.insert(5, 1);
  REQUIRE(q.peek().has_value());
  CHECK(q.peek()->handle == h);
  CHECK(q.peek()->deadline == 5);
  CHECK(*q.peek()->payload == 1);
  *q.peek()->payload = 7;  // the payload in place
  CHECK(*q.get(h) == 7);
  q.cancel(h);
  CHECK_FALSE(q.peek().has_value());
}

TEMPLATE_LIST_TEST_CASE("peek() names the timer that fires next, and for_each() every pending timer",
                        "[peek][for_each]", all_queues<std::uint64_t>) {
  const std::uint64_t seed = seed_or(20261202);
  INFO("replay with TIMING_WHEEL_SEED=" << seed);
  rng r{seed};
  for (int round = 0; round < 40; ++round) {
    const tick start = round % 4 == 0 ? UINT64_MAX - r.below(1 << 20) : r.next() >> r.below(64);
    TestType q(start);
    std::map<std::uint64_t, timer_handle> pending;  // id -> handle
    std::uint64_t next_id = 0;
    for (int step = 0; step < 400; ++step) {
      const std::uint64_t choice = r.below(10);
      if (choice < 5) {
        // Ties are common: deadlines from a small set near now, or far away.
        const tick deadline = r.below(3) == 0 ? random_time(r, q.now()) : add(q.now(), r.below(8) * 100);
        pending[next_id] = q.insert(deadline, next_id);
        ++next_id;
      } else if (choice < 6 && !pending.empty()) {
        auto it = pending.begin();
        std::advance(it, static_cast<long>(r.below(pending.size())));
        REQUIRE(q.cancel(it->second) == it->first);
        pending.erase(it);
      } else if (choice < 7 && !pending.empty()) {
        auto it = pending.begin();
        std::advance(it, static_cast<long>(r.below(pending.size())));
        REQUIRE(q.reschedule(it->second, add(q.now(), r.below(4) * 100)));
      } else if (choice < 8) {
        q.advance(add(q.now(), r.below(300)), [&](tick, std::uint64_t&& id) { pending.erase(id); });
      } else {
        // What peek() shows is what one more firing delivers.
        const auto view = std::as_const(q).peek();
        REQUIRE(view.has_value() == !q.empty());
        if (!view) continue;
        const timing_wheel::timer_view<const std::uint64_t> seen = *view;
        REQUIRE(q.pending(seen.handle));
        REQUIRE(q.expiry(seen.handle) == seen.deadline);
        std::uint64_t fired = UINT64_MAX;
        tick fired_deadline = 0;
        REQUIRE(q.advance(
                    *q.next_expiration(),
                    [&](tick deadline, std::uint64_t&& id) {
                      fired = id;
                      fired_deadline = deadline;
                    },
                    1) == 1);
        REQUIRE(fired == *seen.payload);
        REQUIRE(fired_deadline == seen.deadline);
        pending.erase(fired);
      }
      if (step % 16 == 0) {
        std::map<std::uint64_t, timer_handle> visited;
        q.for_each([&](timer_handle h, tick deadline, std::uint64_t& id) {
          REQUIRE(visited.emplace(id, h).second);
          REQUIRE(q.expiry(h) == deadline);
        });
        REQUIRE(visited == pending);
        std::size_t count = 0;
        std::as_const(q).for_each([&](timer_handle h, tick, const std::uint64_t& id) {
          ++count;
          REQUIRE(pending.at(id) == h);
        });
        REQUIRE(count == q.size());
      }
    }
  }
}

TEMPLATE_LIST_TEST_CASE("peek() keeps first-in first-out among equal due times, across cascades", "[peek]",
                        exact_queues<int>) {
  TestType q;
  // Scheduled far apart in time but due together: the first inserted is at the front.
  q.insert(100'000, 1);
  q.advance(50'000, [](tick, int&&) {});
  q.insert(100'000, 2);
  q.advance(99'990, [](tick, int&&) {});
  q.insert(100'000, 3);
  for (const int expected : {1, 2, 3}) {
    REQUIRE(q.peek().has_value());
    CHECK(*q.peek()->payload == expected);
    q.advance(
        100'000, [](tick, int&&) {}, 1);
  }
  CHECK_FALSE(q.peek().has_value());
}

// A priority queue's "pop" written with peek() and cancel(): the timers come out in fire order, whatever was
// cancelled among them before, at the front of a crowded slot's list or in its middle.
TEMPLATE_LIST_TEST_CASE("peek() and cancel() take timers in fire order, crowded slots and cancelled fronts included",
                        "[peek]", randomised_exact_queues<int>) {
  const std::uint64_t seed = seed_or(0x9e3c);
  INFO("TIMING_WHEEL_SEED=" << seed);
  rng r{seed};
  TestType q;
  std::vector<timer_handle> handles;
  std::map<std::pair<tick, int>, int> expected;             // (deadline, insertion order) -> payload: the fire order
  constexpr std::array<tick, 3> crowded{7, 3'000, 70'000};  // one tick, a slot of level 0 or 1, one above
  for (int i = 0; i < 4000; ++i) {
    // A quarter anywhere, a quarter in a crowded slot above level 0 at times of their own (few ties), the rest tied.
    const std::uint64_t group = r.below(4);
    const tick deadline = group == 0   ? 1 + r.below(1'000'000)
                          : group == 1 ? 300'000 + r.below(20'000)
                                       : crowded[r.below(crowded.size())];
    handles.push_back(q.insert(deadline, i));
    expected[{deadline, i}] = i;
  }
  // Cancelled first: runs of timers in insertion order (each list's front, again and again) and single ones.
  for (std::size_t i = 0, run = 0; i < handles.size(); i += run + r.below(40)) {
    run = r.below(2) == 0 ? 1 : 1 + r.below(30);
    for (std::size_t k = i; k < std::min(handles.size(), i + run); ++k) {
      const std::optional<tick> due = q.expiry(handles[k]);
      REQUIRE(due.has_value());
      REQUIRE(q.cancel(handles[k]) == static_cast<int>(k));
      expected.erase({*due, static_cast<int>(k)});
    }
    REQUIRE(invariants_hold(q));
  }
  std::vector<int> taken;
  while (const auto first = q.peek()) {
    taken.push_back(*first->payload);
    REQUIRE(q.cancel(first->handle) == taken.back());
  }
  std::vector<int> in_order;
  for (const auto& [key, id] : expected) in_order.push_back(id);
  CHECK(taken == in_order);
  CHECK(q.empty());
}
