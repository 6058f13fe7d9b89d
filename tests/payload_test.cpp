#include "support/catch.hpp"
#include "support/helpers.hpp"
#include "support/queues.hpp"

#include <memory>
#include <string>
#include <vector>

using namespace timing_wheel_test;
using timing_wheel::tick;

namespace {
// Counts live instances, so every construction is matched by exactly one destruction.
struct counted {
  static inline int live = 0;
  int id;
  explicit counted(int i) : id(i) { ++live; }
  counted(counted&& other) noexcept : id(other.id) { ++live; }
  counted(const counted&) = delete;
  counted& operator=(const counted&) = delete;
  counted& operator=(counted&&) = delete;
  ~counted() { --live; }
};

// A move-only callable, as a user's payload might be.
struct task {
  std::unique_ptr<int> state;
  int operator()() const { return *state; }
};
}  // namespace

TEMPLATE_LIST_TEST_CASE("move-only, non-default-constructible payloads", "[payload]",
                        all_queues<std::unique_ptr<int>>) {
  TestType q;
  const auto h = q.insert(20, std::make_unique<int>(1));
  q.insert(10, std::make_unique<int>(2));
  REQUIRE(q.get(h) != nullptr);
  CHECK(**q.get(h) == 1);
  std::vector<int> fired;
  q.advance(30, [&](tick, std::unique_ptr<int>&& p) { fired.push_back(*p); });
  CHECK(fired == std::vector<int>{2, 1});
  const auto c = q.insert(40, std::make_unique<int>(3));
  const auto back = q.cancel(c);
  REQUIRE(back.has_value());
  CHECK(**back == 3);
}

TEMPLATE_LIST_TEST_CASE("a move-only callable payload", "[payload]", all_queues<task>) {
  TestType q;
  q.insert(5, task{std::make_unique<int>(42)});
  int result = 0;
  q.advance(5, [&](tick, task&& t) { result = t(); });
  CHECK(result == 42);
}

TEMPLATE_LIST_TEST_CASE("every payload is destroyed exactly once", "[payload]", all_queues<counted>) {
  counted::live = 0;
  {
    TestType q;
    std::vector<timing_wheel::timer_handle> handles;
    for (int i = 0; i < 200; ++i) handles.push_back(q.emplace(static_cast<tick>(i * 13), i));
    CHECK(counted::live == 200);
    for (int i = 0; i < 200; i += 4) CHECK(q.cancel(handles[static_cast<std::size_t>(i)]).has_value());
    CHECK(counted::live == 150);
    q.advance(1000, [](tick, counted&&) {});
    CHECK(counted::live == static_cast<int>(q.size()));
    int drained = 0;
    q.drain([&](counted&&) { ++drained; });
    CHECK(counted::live == 0);
    for (int i = 0; i < 50; ++i) q.emplace(static_cast<tick>(5000 + i), i);
    q.clear();
    CHECK(counted::live == 0);
    for (int i = 0; i < 50; ++i) q.emplace(static_cast<tick>(9000 + i * 1000), i);
  }
  CHECK(counted::live == 0);  // the destructor destroyed the rest
}

TEMPLATE_LIST_TEST_CASE("the payload stays valid while its callback inserts many timers", "[payload]",
                        all_queues<std::string>) {
  TestType q;
  q.insert(1, std::string(100, 'x'));
  bool checked = false;
  q.advance(1, [&](tick, std::string&& s) {
    const std::string* where = &s;
    for (int i = 0; i < 5000; ++i) q.insert(static_cast<tick>(100 + i), std::to_string(i));  // the slab grows
    CHECK(where == &s);
    CHECK(s == std::string(100, 'x'));
    checked = true;
  });
  CHECK(checked);
  CHECK(q.size() == 5000);
}
