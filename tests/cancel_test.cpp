#include "support/catch.hpp"
#include "support/helpers.hpp"
#include "support/queues.hpp"

#include <algorithm>
#include <optional>
#include <vector>

using namespace timing_wheel_test;
using timing_wheel::tick;
using timing_wheel::timer_handle;

TEMPLATE_LIST_TEST_CASE("cancel returns the payload once", "[cancel]", all_queues<int>) {
  TestType q;
  const auto a = q.insert(50, 7);
  const auto b = q.insert(60, 8);
  CHECK(q.cancel(a) == std::optional<int>{7});
  CHECK(!q.pending(a));
  CHECK(q.cancel(a) == std::nullopt);
  CHECK(q.size() == 1);
  CHECK(values(advance_collect(q, 100)) == std::vector<int>{8});
  CHECK(q.cancel(b) == std::nullopt);  // already fired
}

TEMPLATE_LIST_TEST_CASE("handles that were never valid are never pending", "[cancel]", all_queues<int>) {
  TestType q;
  q.insert(5, 1);
  for (const timer_handle h : {timer_handle{}, timer_handle{0, 0}, timer_handle{0, 2}, timer_handle{0, 3},
                               timer_handle{1, 1}, timer_handle{0xFFFFFFF0U, 1}, timer_handle{UINT32_MAX, 1}}) {
    CHECK(!q.pending(h));
    CHECK(q.cancel(h) == std::nullopt);
    CHECK(!q.reschedule(h, 1));
    CHECK(!q.expiry(h));
    CHECK(q.get(h) == nullptr);
  }
  CHECK(q.size() == 1);
}

TEMPLATE_LIST_TEST_CASE("a stale handle whose slot was reused does not touch the new timer", "[cancel]",
                        all_queues<int>) {
  TestType q;
  const auto old = q.insert(10, 1);
  CHECK(q.cancel(old) == std::optional<int>{1});
  const auto fresh = q.insert(20, 2);
  CHECK(fresh.index == old.index);  // the slab reused the node...
  CHECK(fresh != old);              // ...under a new generation
  CHECK(!q.pending(old));
  CHECK(q.cancel(old) == std::nullopt);
  CHECK(!q.reschedule(old, 5));
  CHECK(q.expiry(fresh) == tick{20});
  CHECK(values(advance_collect(q, 20)) == std::vector<int>{2});
}

TEMPLATE_LIST_TEST_CASE("a callback can cancel a timer due at the same tick", "[cancel]", all_queues<int>) {
  TestType q;
  timer_handle second{};
  q.insert(10, 1);
  second = q.insert(10, 2);
  q.insert(10, 3);
  std::vector<int> fired;
  q.advance(10, [&](tick, int&& v) {
    fired.push_back(v);
    if (v == 1) CHECK(q.cancel(second) == std::optional<int>{2});
  });
  CHECK(fired == std::vector<int>{1, 3});
  CHECK(q.empty());
}

TEMPLATE_LIST_TEST_CASE("a firing timer is no longer pending inside its own callback", "[cancel]", all_queues<int>) {
  TestType q;
  const auto h = q.insert(3, 1);
  bool checked = false;
  q.advance(3, [&](tick, int&&) {
    CHECK(!q.pending(h));
    CHECK(q.cancel(h) == std::nullopt);
    CHECK(!q.reschedule(h, 10));
    CHECK(q.size() == 0);
    checked = true;
  });
  CHECK(checked);
  CHECK(q.empty());
}

TEMPLATE_LIST_TEST_CASE("cancelling most timers of one slot keeps the rest, in order", "[cancel]", all_queues<int>) {
  // Many timers share a slot (and, beyond the horizon, the overflow store); most are cancelled or rescheduled in a
  // scattered order, so the wheel's lists fill with cancelled entries and are compacted while timers remain.
  struct expected {
    tick due;
    int seq;
    int value;
  };
  TestType q;
  std::vector<timer_handle> handles;
  std::vector<std::optional<expected>> model;
  int seq = 0;
  for (int i = 0; i < 600; ++i) {
    const tick due = i % 2 == 0 ? tick{1000} : (tick{1} << 62) + static_cast<tick>(i % 3);
    handles.push_back(q.insert(due, i));
    model.push_back(expected{due, seq++, i});
  }
  for (int round = 0; round < 600; ++round) {
    const auto i = static_cast<std::size_t>((round * 7) % 600);
    if (i % 5 == 0) continue;  // these stay
    if (i % 4 == 1) {
      REQUIRE(q.reschedule(handles[i], 1000));
      model[i] = expected{1000, seq++, static_cast<int>(i)};
    } else {
      REQUIRE(q.cancel(handles[i]) == std::optional<int>{static_cast<int>(i)});
      model[i].reset();
    }
    REQUIRE(invariants_hold(q));
  }
  std::vector<expected> survivors;
  for (const auto& m : model) {
    if (m) survivors.push_back(*m);
  }
  std::sort(survivors.begin(), survivors.end(),
            [](const expected& a, const expected& b) { return a.due < b.due || (a.due == b.due && a.seq < b.seq); });
  REQUIRE(q.size() == survivors.size());
  std::vector<int> fired;
  q.drain([&](tick, int&& value) { fired.push_back(value); });
  std::vector<int> want;
  for (const auto& s : survivors) want.push_back(s.value);
  CHECK(fired == want);
}
