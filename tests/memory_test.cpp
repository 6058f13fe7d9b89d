// Per-timer bookkeeping of the hierarchical wheel (allocation counting lives in allocation/, its own binary, since
// it replaces the global operator new).
#include "support/catch.hpp"

#include <timing_wheel/hierarchical_wheel.hpp>

#include <cstdint>

// Bookkeeping per timer beyond the payload: deadline 8, two links 8, generation 4, location 4.
static_assert(sizeof(timing_wheel::detail::wheel_node<std::uint64_t>) - sizeof(std::uint64_t) <= 24);
static_assert(sizeof(timing_wheel::detail::wheel_node<char>) <= 32);

TEST_CASE("a wheel node costs 24 bytes beyond an 8-byte payload", "[memory]") {
  CHECK(sizeof(timing_wheel::detail::wheel_node<std::uint64_t>) == 32);
}
