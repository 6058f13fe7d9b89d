#include "support/catch.hpp"
#include "support/helpers.hpp"
#include "support/queues.hpp"

#include <type_traits>
#include <utility>
#include <vector>

using namespace timing_wheel_test;
using timing_wheel::tick;

TEMPLATE_LIST_TEST_CASE("queues move, handles follow, and the moved-from queue is empty and usable", "[move]",
                        all_queues<int>) {
  static_assert(!std::is_copy_constructible_v<TestType> && !std::is_copy_assignable_v<TestType>);
  static_assert(std::is_nothrow_move_constructible_v<TestType> && std::is_nothrow_move_assignable_v<TestType>);
  TestType a(100);
  const auto h1 = a.insert(150, 1);
  const auto h2 = a.insert(1u << 20, 2);
  a.insert(1ULL << 50, 3);

  TestType b(std::move(a));
  CHECK(b.now() == 100);
  CHECK(b.size() == 3);
  CHECK(b.pending(h1));
  CHECK(b.cancel(h2) == std::optional<int>{2});
  CHECK(a.empty());  // NOLINT(bugprone-use-after-move): a moved-from queue is specified to be empty
  a.insert(5, 9);
  CHECK(values(advance_collect(a, 200)) == std::vector<int>{9});

  TestType c(7);
  c.insert(8, 8);
  c = std::move(b);
  CHECK(c.now() == 100);
  CHECK(c.pending(h1));
  CHECK(values(advance_collect(c, UINT64_MAX)) == std::vector<int>{1, 3});
}
