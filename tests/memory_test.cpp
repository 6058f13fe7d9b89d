// Per-timer bookkeeping of the hierarchical wheel (allocation counting lives in allocation/, its own binary, since
// it replaces the global operator new).
#include "support/catch.hpp"

#include <timing_wheel/detail/chunk_list.hpp>
#include <timing_wheel/hierarchical_wheel.hpp>

#include <cstdint>

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
