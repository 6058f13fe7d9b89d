#include "support/catch.hpp"
#include "support/helpers.hpp"
#include "support/queues.hpp"

#include <stdexcept>
#include <vector>

using namespace timing_wheel_test;
using timing_wheel::tick;

namespace {
struct boom : std::runtime_error {
  boom() : std::runtime_error("boom") {}
};

struct fussy {
  int value;
  explicit fussy(int v) : value(v) {
    if (v < 0) throw boom();
  }
};
}  // namespace

TEMPLATE_LIST_TEST_CASE("a throwing callback loses nothing", "[exception]", exact_queues<int>) {
  TestType q;
  for (int i = 0; i < 6; ++i) q.insert(static_cast<tick>(10 + i / 2), i);  // two timers per tick
  std::vector<int> fired;
  CHECK_THROWS_AS(q.advance(100,
                            [&](tick, int&& v) {
                              fired.push_back(v);
                              if (v == 2) throw boom();
                            }),
                  boom);
  // The thrower counts as fired; now() is its fire time; the rest stay pending, in order.
  CHECK(fired == std::vector<int>{0, 1, 2});
  CHECK(q.now() == 11);
  CHECK(q.size() == 3);
  CHECK(invariants_hold(q));
  CHECK(q.next_expiration() == tick{11});
  CHECK(values(advance_collect(q, 100)) == std::vector<int>{3, 4, 5});
  CHECK(q.now() == 100);
}

TEMPLATE_LIST_TEST_CASE("a throwing callback in a coarse wheel loses nothing", "[exception]", coarse_queues<int>) {
  TestType q;
  for (int i = 0; i < 40; ++i) q.insert(static_cast<tick>(3 + i * 7), i);
  int calls = 0;
  CHECK_THROWS_AS(q.advance(10'000,
                            [&](tick, int&&) {
                              if (++calls == 7) throw boom();
                            }),
                  boom);
  CHECK(q.size() == 33);
  CHECK(q.check_invariants());
  CHECK(q.advance(10'000, [](tick, int&&) {}) == 33);
}

TEMPLATE_LIST_TEST_CASE("a throwing payload constructor leaves the queue unchanged", "[exception]", all_queues<fussy>) {
  TestType q;
  const auto h = q.emplace(10, 1);
  CHECK_THROWS_AS(q.emplace(20, -1), boom);
  CHECK_THROWS_AS(q.emplace(tick{1} << 62, -1), boom);
  CHECK(q.size() == 1);
  CHECK(q.pending(h));
  CHECK(invariants_hold(q));
  CHECK(q.next_expiration() == tick{10});
  int fired = 0;
  q.advance(UINT64_MAX, [&](tick, fussy&& f) { fired += f.value; });
  CHECK(fired == 1);
}

namespace {
// A payload whose move constructor throws on the N-th move from now (never, while countdown < 0).
struct throwing_move {
  static inline int countdown = -1;
  int value;
  explicit throwing_move(int v) : value(v) {}
  throwing_move(throwing_move&& other) : value(other.value) {
    if (countdown >= 0 && countdown-- == 0) throw boom();
  }
  throwing_move(const throwing_move&) = delete;
  throwing_move& operator=(const throwing_move&) = delete;
  throwing_move& operator=(throwing_move&&) = delete;
  ~throwing_move() = default;
};

template <class Q>
std::vector<int> pending_values(Q& q, const std::vector<timing_wheel::timer_handle>& handles) {
  std::vector<int> out;
  for (const auto h : handles) out.push_back(q.get(h) ? q.get(h)->value : -1);
  return out;
}
}  // namespace

TEMPLATE_LIST_TEST_CASE("a payload whose move throws: insert and cancel change nothing, firing loses nothing",
                        "[exception]", all_queues<throwing_move>) {
  TestType q;
  std::vector<timing_wheel::timer_handle> handles;
  for (int i = 0; i < 10; ++i) handles.push_back(q.insert(static_cast<tick>(10 + i * 1000), throwing_move(i)));
  const auto before = pending_values(q, handles);
  const auto next = q.next_expiration();

  throwing_move::countdown = 0;  // the move into the node throws
  CHECK_THROWS_AS(q.insert(5, throwing_move(99)), boom);
  throwing_move::countdown = 0;
  CHECK_THROWS_AS(q.insert(tick{1} << 62, throwing_move(98)), boom);
  throwing_move::countdown = 0;  // the move out of the node throws: the timer stays
  CHECK_THROWS_AS(q.cancel(handles[3]), boom);
  throwing_move::countdown = -1;
  CHECK(q.size() == 10);
  CHECK(pending_values(q, handles) == before);
  CHECK(q.next_expiration() == next);
  CHECK(invariants_hold(q));
  CHECK(q.cancel(handles[3])->value == 3);

  // A callback that moves the payload and throws: that timer counts as fired, the rest stay, none fires twice.
  std::vector<int> fired;
  throwing_move::countdown = 2;
  const auto take = [&](tick, throwing_move&& t) {
    const int value = t.value;
    throwing_move kept(std::move(t));
    fired.push_back(value);
  };
  CHECK_THROWS_AS(q.advance(UINT64_MAX, take), boom);
  throwing_move::countdown = -1;
  CHECK(q.size() == 9 - 3);
  CHECK(invariants_hold(q));
  q.drain(take);
  CHECK(fired == std::vector<int>{0, 1, 4, 5, 6, 7, 8, 9});  // 2 threw after being taken from the queue
  CHECK(q.empty());
}
