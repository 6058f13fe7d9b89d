#include "support/catch.hpp"
#include "support/helpers.hpp"
#include "support/queues.hpp"

#include <vector>

using namespace timing_wheel_test;
using timing_wheel::tick;

TEMPLATE_LIST_TEST_CASE("a reschedule counts as a new insertion", "[reschedule]", exact_queues<int>) {
  TestType q;
  const auto a = q.insert(10, 1);
  q.insert(10, 2);
  const auto c = q.insert(90, 3);
  CHECK(q.reschedule(a, 10));  // same deadline, but now behind 2
  CHECK(q.reschedule(c, 10));
  CHECK(values(advance_collect(q, 10)) == std::vector<int>{2, 1, 3});
}

TEMPLATE_LIST_TEST_CASE("reschedule moves the deadline both ways and keeps the payload in place", "[reschedule]",
                        all_queues<int>) {
  TestType q(100);
  const auto h = q.insert(5000, 1);
  int* const where = q.get(h);
  CHECK(q.reschedule(h, 200));
  CHECK(q.get(h) == where);
  CHECK(q.expiry(h) == tick{200});
  CHECK(q.reschedule(h, 1'000'000'000));
  CHECK(q.reschedule(h, 150));
  CHECK(advance_collect(q, 149).empty());
  CHECK(advance_collect(q, 150) == std::vector<firing<int>>{{150, 1, 150}});
  CHECK(!q.reschedule(h, 300));
}

TEMPLATE_LIST_TEST_CASE("rescheduling into the past makes a timer due now", "[reschedule]", all_queues<int>) {
  TestType q(1000);
  const auto h = q.insert(2000, 1);
  CHECK(q.reschedule(h, 3));
  CHECK(q.expiry(h) == tick{3});
  CHECK(q.next_expiration() == tick{1000});
  CHECK(advance_collect(q, 1000) == std::vector<firing<int>>{{3, 1, 1000}});
}
