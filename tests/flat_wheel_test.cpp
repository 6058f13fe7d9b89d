#include "support/catch.hpp"
#include "support/helpers.hpp"
#include "support/queues.hpp"

#include <vector>

using namespace timing_wheel_test;
using timing_wheel::flat_wheel;
using timing_wheel::tick;

TEST_CASE("flat wheel: delays that are exact multiples of the ring fire on their tick", "[flat_wheel]") {
  flat_wheel<int, 60> q(7);
  q.insert(7 + 60, 1);   // exactly one revolution: zero full rounds to wait after this one
  q.insert(7 + 120, 2);  // two revolutions
  q.insert(7 + 59, 3);
  q.insert(7 + 61, 4);
  q.insert(7 + 0, 5);
  std::vector<tick> at;
  for (const auto& f : advance_collect(q, 1000)) at.push_back(f.now);
  CHECK(at == std::vector<tick>{7, 66, 67, 68, 127});
}

TEST_CASE("flat wheel: one slot holds every revolution", "[flat_wheel]") {
  flat_wheel<int, 1> q;
  q.insert(3, 3);
  q.insert(1, 1);
  q.insert(2, 2);
  CHECK(q.next_expiration() == tick{1});
  CHECK(values(advance_collect(q, 3)) == std::vector<int>{1, 2, 3});
}

TEST_CASE("flat wheel: a long jump does not walk the ticks", "[flat_wheel]") {
  flat_wheel<int, 256> q;
  q.insert(tick{1} << 60, 1);
  q.insert((tick{1} << 60) + 256, 2);
  CHECK(q.next_expiration() == tick{1} << 60);
  CHECK(values(advance_collect(q, UINT64_MAX)) == std::vector<int>{1, 2});
}
