#include "support/catch.hpp"
#include "support/helpers.hpp"
#include "support/queues.hpp"

#include <vector>

using namespace timing_wheel_test;
using timing_wheel::tick;

namespace {
template <class Q>
void fill(Q& q) {
  for (int i = 0; i < 300; ++i) {
    const tick deadline = i % 5 == 0 ? 1000 : static_cast<tick>(1 + (i * 7919) % 5000) << (i % 3 == 0 ? 12 : 0);
    q.insert(deadline, i);
  }
}
}  // namespace

TEMPLATE_LIST_TEST_CASE("advance in budgets fires the unbudgeted sequence, however it is split", "[budget]",
                        all_queues<int>) {
  const tick to = tick{1} << 25;
  TestType whole;
  fill(whole);
  const auto expected = advance_collect(whole, to);
  REQUIRE(expected.size() == 300);
  for (const std::size_t budget : std::vector<std::size_t>{1, 2, 3, 7, 64, 299, 300, 1000}) {
    INFO("budget " << budget);
    TestType q;
    fill(q);
    std::vector<firing<int>> fired;
    std::size_t calls = 0;
    for (;;) {
      const std::size_t n = q.advance(
          to,
          [&](tick d, int&& v) {
            fired.push_back({d, v, q.now()});
          },
          budget);
      ++calls;
      REQUIRE(n <= budget);
      const auto next = q.next_expiration();
      if (!next || *next > to) break;
      REQUIRE(n == budget);                                    // it stopped early only because the budget ran out...
      if (!fired.empty()) CHECK(q.now() == fired.back().now);  // ...and now() is the last fire time
    }
    CHECK(fired == expected);
    CHECK(q.now() == to);
    CHECK(calls >= (300 + budget - 1) / budget);
  }
}

TEMPLATE_LIST_TEST_CASE("a zero budget fires nothing and changes nothing while timers are due", "[budget]",
                        all_queues<int>) {
  TestType q(10);
  q.insert(20, 1);
  CHECK(q.advance(
            30, [](tick, int&&) { FAIL("nothing may fire"); }, 0) == 0);
  CHECK(q.now() == 10);
  CHECK(q.advance(
            15, [](tick, int&&) {}, 0) == 0);  // nothing due by 15: time simply moves
  CHECK(q.now() == 15);
}

TEMPLATE_LIST_TEST_CASE("timers inserted between budgeted calls are ordered as usual", "[budget]", exact_queues<int>) {
  TestType q;
  for (int i = 0; i < 4; ++i) q.insert(50, i);
  std::vector<int> fired;
  const auto take = [&](tick, int&& v) { fired.push_back(v); };
  CHECK(q.advance(100, take, 2) == 2);
  CHECK(q.now() == 50);
  q.insert(50, 10);  // due now, inserted after 2 and 3: fires after them
  q.insert(40, 11);  // in the past: due now too
  CHECK(q.advance(100, take) == 4);
  CHECK(fired == std::vector<int>{0, 1, 2, 3, 10, 11});
}
