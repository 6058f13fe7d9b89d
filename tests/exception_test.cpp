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
