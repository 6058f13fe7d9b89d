// Per-timer bookkeeping of the hierarchical wheel (allocation counting lives in allocation/, its own binary, since
// it replaces the global operator new).
#include "support/catch.hpp"

#include <timing_wheel/detail/chunk_list.hpp>
#include <timing_wheel/hierarchical_wheel.hpp>

#include <cstdint>
#include <optional>
#include <vector>

// Bookkeeping per timer beyond the payload: deadline 8, entry position 4, generation 4 in the node, and its 4-byte
// entry in a slot list, whose 64-byte chunks hold 15 entries (and 2 bytes naming the list).
static_assert(sizeof(timing_wheel::detail::wheel_node<std::uint64_t>) - sizeof(std::uint64_t) <= 16);
static_assert(sizeof(timing_wheel::detail::wheel_node<char>) <= 24);
static_assert(sizeof(timing_wheel::detail::entry_chunk) == 64 && timing_wheel::detail::entries_per_chunk == 15);

TEST_CASE("a wheel timer with an 8-byte payload costs under 29 bytes", "[memory]") {
  constexpr double per_timer =
      sizeof(timing_wheel::detail::wheel_node<std::uint64_t>) +
      double{sizeof(timing_wheel::detail::entry_chunk) + 2} / timing_wheel::detail::entries_per_chunk;
  CHECK(sizeof(timing_wheel::detail::wheel_node<std::uint64_t>) == 24);
  CHECK(per_timer < 29.0);
}

TEST_CASE("a wheel's entry chunks grow past the first block and stay consistent", "[memory]") {
  // The first block holds what the first insertion reserves (not a power of two); later blocks start at the next
  // power of two, so indices in between are skipped. 100,000 timers need several blocks.
  timing_wheel::hierarchical_wheel<std::uint64_t> q;
  std::vector<timing_wheel::timer_handle> handles;
  for (std::uint64_t i = 0; i < 100'000; ++i) handles.push_back(q.insert(1 + (i * 7919) % 300'000, i));
  CHECK(q.check_invariants());
  for (std::size_t i = 0; i < handles.size(); i += 3) CHECK(q.cancel(handles[i]).has_value());
  CHECK(q.check_invariants());
  timing_wheel::tick last = 0;
  std::size_t fired = 0;
  bool ordered = true;
  q.advance(400'000, [&](timing_wheel::tick deadline, std::uint64_t&&) {
    ordered = ordered && deadline >= last;
    last = deadline;
    ++fired;
  });
  CHECK(ordered);
  CHECK(fired == 100'000 - (100'000 + 2) / 3);
  CHECK(q.empty());
  CHECK(q.check_invariants());
}

TEST_CASE("a wheel's lists at their most crowded stay within the chunks it reserves", "[memory]") {
  // Three lists (level 0, 1 and 2 slots) of 40,000 timers each; dead_per_live of every dead_per_live + 1 are
  // cancelled, which leaves each list one cancel short of compaction: the most entries per timer a list can keep.
  // The chunks in use must stay within what the wheel reserved for its live timers, and inserting, rescheduling
  // and firing from there must neither run out nor lose order.
  constexpr std::uint64_t group = timing_wheel::detail::dead_per_live + 1;
  timing_wheel::hierarchical_wheel<std::uint64_t> q;
  const timing_wheel::tick deadlines[] = {10, 3'000, 200'000};
  std::vector<timing_wheel::timer_handle> handles;
  for (std::uint64_t i = 0; i < 120'000; ++i) handles.push_back(q.insert(deadlines[(i / group) % 3], i));
  for (std::uint64_t i = 0; i < handles.size(); ++i) {
    if (i % group != 0) REQUIRE(q.cancel(handles[i]) == std::optional<std::uint64_t>{i});
  }
  REQUIRE(q.size() == 120'000 / group);
  CHECK(q.check_invariants());
  for (std::uint64_t i = 0; i < 120'000; i += 2 * group) REQUIRE(q.reschedule(handles[i], 200'000));
  for (std::uint64_t i = 0; i < 1'000; ++i) q.insert(200'000, 120'000 + i);
  CHECK(q.check_invariants());
  std::vector<std::uint64_t> fired;
  q.advance(200'000, [&](timing_wheel::tick, std::uint64_t&& id) { fired.push_back(id); });
  // Order: each deadline's survivors in insertion order, the rescheduled ones after those left at 200,000, then
  // the late insertions.
  std::vector<std::uint64_t> want;
  for (const timing_wheel::tick deadline : deadlines) {
    for (std::uint64_t i = 0; i < 120'000; i += group) {
      if (deadlines[(i / group) % 3] == deadline && i % (2 * group) != 0) want.push_back(i);
    }
  }
  for (std::uint64_t i = 0; i < 120'000; i += 2 * group) want.push_back(i);
  for (std::uint64_t i = 0; i < 1'000; ++i) want.push_back(120'000 + i);
  CHECK(fired == want);
  CHECK(q.empty());
}
