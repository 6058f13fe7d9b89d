// Per-timer overhead, and no allocation after reserve(). Replaces the global operator new of this test binary to
// count allocations while a test asks for it.
#include "support/catch.hpp"
#include "support/queues.hpp"

#include <timing_wheel/hierarchical_wheel.hpp>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace {
bool counting = false;
std::size_t allocations = 0;
}  // namespace

void* operator new(std::size_t size) {
  if (counting) ++allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, std::align_val_t align) {
  if (counting) ++allocations;
  const auto a = static_cast<std::size_t>(align);
  if (void* p = std::aligned_alloc(a, (size + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
  if (counting) ++allocations;
  const auto a = static_cast<std::size_t>(align);
  return std::aligned_alloc(a, (size + a - 1) / a * a);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

using namespace timing_wheel_test;
using timing_wheel::tick;

// Bookkeeping per timer beyond the payload: deadline 8, two links 8, generation 4, location 4.
static_assert(sizeof(timing_wheel::detail::wheel_node<std::uint64_t>) - sizeof(std::uint64_t) <= 24);
static_assert(sizeof(timing_wheel::detail::wheel_node<char>) <= 32);

TEMPLATE_LIST_TEST_CASE("after reserve(n), n timers come and go without allocating", "[memory]",
                        all_queues<std::uint64_t>) {
  constexpr std::size_t n = 5000;
  TestType q(3);
  q.reserve(n);
  std::vector<timing_wheel::timer_handle> handles;
  handles.reserve(n);
  allocations = 0;
  counting = true;
  for (std::size_t i = 0; i < n; ++i) {
    const tick deadline = i % 3 == 0 ? tick{1} << (i % 64) : 3 + i * 17;  // every scale, beyond the horizon too
    handles.push_back(q.insert(deadline, i));
  }
  for (std::size_t i = 0; i < n; i += 3) q.cancel(handles[i]);
  for (std::size_t i = 1; i < n; i += 3) q.reschedule(handles[i], 3 + (i * 7919) % 100000);
  std::size_t fired = 0;
  q.advance(1'000'000, [&](tick, std::uint64_t&&) { ++fired; });
  for (std::size_t i = 0; i < n / 2; ++i) q.insert(2'000'000 + i, i);
  q.advance(UINT64_MAX, [&](tick, std::uint64_t&&) { ++fired; });
  counting = false;
  CHECK(allocations == 0);
  CHECK(fired > n / 2);
  CHECK(q.empty());
}
