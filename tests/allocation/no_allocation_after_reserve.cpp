// After reserve(n), inserting, cancelling, rescheduling and firing up to n timers allocates nothing; a queue built
// with a fixed capacity allocates nothing after its construction, full or not. This program
// replaces the global operator new to count allocations, so it is a binary of its own.
#include "allocation/replace_new.hpp"
#include "support/queues.hpp"

#include <timing_wheel/chrono.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <tuple>
#include <typeinfo>
#include <vector>

namespace {
bool counting = false;
std::size_t allocations = 0;
}  // namespace

bool allow_allocation() {
  if (counting) ++allocations;
  return true;
}

using timing_wheel::tick;

template <class Q>
bool allocates_nothing_after_reserve() {
  constexpr std::size_t n = 5000;
  Q q(3);
  q.reserve(n);
  Q crowded(3);
  crowded.reserve(n);
  std::vector<timing_wheel::timer_handle> handles;
  handles.reserve(n);
  allocations = 0;
  counting = true;
  for (std::size_t i = 0; i < n; ++i) {
    const tick deadline = i % 3 == 0 ? tick{1} << (i % 64) : 3 + i * 17;  // every scale, beyond the horizon too
    handles.push_back(q.insert(deadline, i));
  }
  for (std::size_t i = 0; i < n; i += 3) static_cast<void>(q.cancel(handles[i]));
  for (std::size_t i = 1; i < n; i += 3) q.reschedule(handles[i], 3 + (i * 7919) % 100000);
  std::size_t fired = 0;
  q.advance(1'000'000, [&](tick, std::uint64_t&&) { ++fired; });
  for (std::size_t i = 0; i < n / 2; ++i) q.insert(2'000'000 + i, i);
  q.advance(UINT64_MAX, [&](tick, std::uint64_t&&) { ++fired; });
  // A crowded slot far ahead, its earliest timer cancelled and next_expiration() asked after each (an exact wheel
  // keeps the slot's earliest timers between the calls).
  handles.clear();
  constexpr tick ahead = 40'000'000;
  for (std::size_t i = 0; i < n; ++i) handles.push_back(crowded.insert(ahead + i, i));
  bool earliest_right = true;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    static_cast<void>(crowded.cancel(handles[i]));
    earliest_right = earliest_right && crowded.next_expiration() == ahead + i + 1;
  }
  counting = false;
  const bool ok = allocations == 0 && fired > n / 2 && q.empty() && earliest_right;
  std::printf("%s: %zu allocations after reserve, %zu fired: %s\n", typeid(Q).name(), allocations, fired,
              ok ? "ok" : "FAILED");
  return ok;
}

// A fixed-capacity queue allocates at construction and never again, even when it is full and keeps being asked.
template <class Q>
bool fixed_capacity_allocates_nothing() {
  constexpr std::size_t n = 3000;
  Q q(timing_wheel::fixed_capacity{n}, 3);
  Q crowded(timing_wheel::fixed_capacity{n}, 3);
  std::vector<timing_wheel::timer_handle> handles;
  handles.reserve(2 * n);
  allocations = 0;
  counting = true;
  std::size_t rejected = 0;
  for (std::size_t round = 0; round < 3; ++round) {
    for (std::size_t i = 0; i < n + n / 3; ++i) {
      const tick deadline = q.now() + (i % 4 == 0 ? tick{1} << (i % 60) : 1 + i % 5000);
      auto result = q.try_insert(deadline, i);
      if (result) {
        handles.push_back(result.handle);
      } else {
        ++rejected;
      }
    }
    for (std::size_t i = 0; i < handles.size(); i += 2) static_cast<void>(q.cancel(handles[i]));
    handles.clear();
    q.advance(q.now() + 4000, [](tick, std::uint64_t&&) {});
  }
  q.advance(UINT64_MAX, [](tick, std::uint64_t&&) {});
  constexpr tick ahead = 40'000'000;  // a crowded slot, as above
  for (std::size_t i = 0; i < n; ++i) handles.push_back(crowded.insert(ahead + i, i));
  bool earliest_right = true;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    static_cast<void>(crowded.cancel(handles[i]));
    earliest_right = earliest_right && crowded.next_expiration() == ahead + i + 1;
  }
  counting = false;
  const bool ok = allocations == 0 && rejected > 0 && q.empty() && earliest_right;
  std::printf("%s fixed: %zu allocations after construction, %zu inserts refused: %s\n", typeid(Q).name(), allocations,
              rejected, ok ? "ok" : "FAILED");
  return ok;
}

// A queue that was never given a timer allocates nothing: constructing, advancing, asking, moving and clearing it
// (a hierarchical wheel's slot lists come with its first insertion or reserve()). reserve(0) asks for nothing.
template <class Q>
bool empty_queue_allocates_nothing() {
  allocations = 0;
  counting = true;
  std::size_t fired = 0;
  {
    Q q(3);
    q.advance(1'000, [&](tick, std::uint64_t&&) { ++fired; });
    q.advance(tick{1} << 50, [&](tick, std::uint64_t&&) { ++fired; });
    q.reserve(0);
    const bool quiet = !q.next_expiration() && !q.peek() && q.empty() && q.check_invariants();
    Q moved(std::move(q));
    q = std::move(moved);
    moved.clear();
    q.clear();
    fired += quiet ? 0 : 1;
  }
  counting = false;
  const bool ok = allocations == 0 && fired == 0;
  std::printf("%s empty: %zu allocations: %s\n", typeid(Q).name(), allocations, ok ? "ok" : "FAILED");
  return ok;
}

// timer_service::reserve(timers, periodic): scheduling, firing and rearming that many allocates nothing.
bool service_allocates_nothing_after_reserve() {
  using namespace std::chrono_literals;
  using clock = std::chrono::steady_clock;
  const clock::time_point epoch{};
  timing_wheel::timer_service<std::uint64_t, clock> timers(epoch);
  timers.reserve(3000, 1000);
  allocations = 0;
  counting = true;
  std::size_t fired = 0;
  for (std::uint64_t i = 0; i < 2000; ++i) timers.schedule_at(epoch + std::chrono::milliseconds(i % 700), i);
  for (std::uint64_t i = 0; i < 1000; ++i) timers.schedule_every(std::chrono::milliseconds(1 + i % 50), epoch, i);
  for (int ms = 0; ms <= 1000; ms += 7)
    timers.poll(epoch + std::chrono::milliseconds(ms), [&](std::uint64_t&) { ++fired; });
  timers.clear();
  counting = false;
  const bool ok = allocations == 0 && fired > 3000 && timers.empty();
  std::printf("timer_service: %zu allocations after reserve, %zu fired: %s\n", allocations, fired,
              ok ? "ok" : "FAILED");
  return ok;
}

template <class... Q>
int count_failures(std::tuple<Q...>*) {
  // Every queue runs, failed or not.
  return (0 + ... + (allocates_nothing_after_reserve<Q>() ? 0 : 1)) +
         (0 + ... + (fixed_capacity_allocates_nothing<Q>() ? 0 : 1)) +
         (0 + ... + (empty_queue_allocates_nothing<Q>() ? 0 : 1));
}

using queues_checked = timing_wheel_test::all_queues_and_default<std::uint64_t>;

int main() {
  constexpr int queues = 3 * std::tuple_size_v<queues_checked> + 1;
  const int failed =
      count_failures(static_cast<queues_checked*>(nullptr)) + (service_allocates_nothing_after_reserve() ? 0 : 1);
  std::printf("%d passed, %d failed\n", queues - failed, failed);
  return failed == 0 ? 0 : 1;
}
