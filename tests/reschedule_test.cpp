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

TEMPLATE_LIST_TEST_CASE("a reschedule within its slot keeps next_expiration() and the order", "[reschedule]",
                        exact_queues<int>) {
  // Deadlines above level 0 (8x8: in 256-tick slots of level 1), moved within their slot and across it: ahead of the
  // earliest, away from being it, into ties, as the last of a slot and alone. (The default wheel, whose level 1 holds
  // them all in one slot, has a random test of this in crowded_slot_test.cpp.)
  TestType q;
  const auto a = q.insert(5000, 1);
  const auto b = q.insert(5100, 2);
  const auto c = q.insert(5200, 3);
  CHECK(q.next_expiration() == tick{5000});
  CHECK(q.reschedule(b, 4900));  // ahead of the earliest
  CHECK(q.next_expiration() == tick{4900});
  CHECK(q.reschedule(b, 5150));  // the earliest, now the last entry, moves back
  CHECK(q.next_expiration() == tick{5000});
  CHECK(q.reschedule(a, 5200));  // ties with c, behind it
  CHECK(q.next_expiration() == tick{5150});
  CHECK(q.reschedule(c, 5200));  // and c behind a
  CHECK(invariants_hold(q));
  CHECK(advance_collect(q, 6000) == std::vector<firing<int>>{{5150, 2, 5150}, {5200, 1, 5200}, {5200, 3, 5200}});

  const auto lone = q.insert(7000, 4);  // alone in its slot
  CHECK(q.next_expiration() == tick{7000});
  CHECK(q.reschedule(lone, 6500));
  CHECK(q.next_expiration() == tick{6500});
  CHECK(q.reschedule(lone, 8000));
  CHECK(q.next_expiration() == tick{8000});
  CHECK(advance_collect(q, 7999).empty());
  CHECK(advance_collect(q, 8000) == std::vector<firing<int>>{{8000, 4, 8000}});
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
