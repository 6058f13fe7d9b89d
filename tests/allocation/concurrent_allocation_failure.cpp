// Running out of memory in the cross-thread front ends (timing_wheel/concurrent.hpp): the global operator new fails
// on the N-th allocation, for every N along a workload of schedules, cancels, reschedules and polls. A request whose
// call threw was not made; every request that was accepted is applied once, whatever failed on the loop's side
// (a poll that throws applies the rest later): each accepted timer fires exactly once unless a cancel was accepted
// for it, and no payload is left alive at the end. A program of its own, since it replaces operator new.
#include "allocation/failing_allocation.hpp"
#include "support/random_ops.hpp"

#include <timing_wheel/concurrent.hpp>
#include <timing_wheel/min_heap.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

using failing_allocation::armed;
using failing_allocation::countdown;
using failing_allocation::counted;

namespace {

// A payload that counts its live objects, so that one lost or destroyed twice shows.
long alive = 0;
struct tracked {
  std::uint64_t id = 0;
  explicit tracked(std::uint64_t i) : id(i) { ++alive; }
  tracked(const tracked& other) : id(other.id) { ++alive; }
  tracked(tracked&& other) noexcept : id(other.id) { ++alive; }
  tracked& operator=(const tracked&) = default;
  tracked& operator=(tracked&&) noexcept = default;
  ~tracked() { --alive; }
};

// What the workload does, the same through both front ends: raw ticks, or a service's milliseconds.
template <class U>
using heap = timing_wheel::min_heap<U>;

template <template <class> class Queue>
struct over_queue {
  using front = timing_wheel::concurrent_queue<tracked, Queue>;
  static constexpr const char* name =
      std::is_same_v<Queue<int>, heap<int>> ? "concurrent_queue<min_heap>" : "concurrent_queue<hierarchical_wheel>";
  front f{[] {}};
  timing_wheel::remote_handle insert(timing_wheel::tick at, tracked t) { return f.insert(at, std::move(t)); }
  void reschedule(timing_wheel::remote_handle h, timing_wheel::tick at) { f.reschedule(h, at); }
  template <class F>
  void advance(timing_wheel::tick to, F&& fired) {
    f.advance(to, [&](timing_wheel::tick due, tracked&& t) { fired(due, t.id); });
  }
  template <class F>
  void drain(F&& fired) {
    f.drain([&](timing_wheel::tick due, tracked&& t) { fired(due, t.id); });
  }
  void ask() { static_cast<void>(f.next_expiration()); }
  [[nodiscard]] timing_wheel::tick now() const { return f.now(); }
};

struct over_service {
  using clock = std::chrono::steady_clock;
  using front = timing_wheel::concurrent_service<tracked>;
  static constexpr const char* name = "concurrent_service";
  clock::time_point epoch{};
  timing_wheel::tick current = 0;
  front f{[] {}, epoch};
  [[nodiscard]] clock::time_point at(timing_wheel::tick t) const { return epoch + std::chrono::milliseconds(t); }
  timing_wheel::remote_handle insert(timing_wheel::tick t, tracked p) { return f.schedule_at(at(t), std::move(p)); }
  void reschedule(timing_wheel::remote_handle h, timing_wheel::tick t) { f.reschedule(h, at(t)); }
  template <class F>
  void advance(timing_wheel::tick to, F&& fired) {
    f.poll(at(to), [&](clock::time_point due, tracked& p) {
      fired(static_cast<timing_wheel::tick>(std::chrono::duration_cast<std::chrono::milliseconds>(due - epoch).count()),
            p.id);
    });
    current = to;
  }
  template <class F>
  void drain(F&& fired) {
    f.drain([&](tracked&& p) { fired(current, p.id); });
  }
  void ask() { static_cast<void>(f.time_until_next(at(current))); }
  [[nodiscard]] timing_wheel::tick now() const { return current; }
};

// Runs the workload with the `fail_at`-th allocation failing. Returns: -1 when something was lost or doubled, 0 when
// no allocation failed (the workload has fewer), 1 when one failed and everything held.
template <class Front>
int run_with_failure_at(long fail_at) {
  struct timer {
    timing_wheel::remote_handle handle;
    bool cancelled = false;  // a cancel for it was accepted
    int fired = 0;
  };
  std::vector<timer> timers;  // the accepted ones, by id
  bool failed_once = false;
  bool broken = false;
  {
    Front front;
    timing_wheel_test::rng r{7};
    countdown = fail_at;
    const auto fired = [&](timing_wheel::tick, std::uint64_t id) {
      armed = false;  // the test's own bookkeeping
      if (id >= timers.size()) {
        std::printf("  %s: timer %llu fired, but its schedule had failed\n", Front::name,
                    static_cast<unsigned long long>(id));
        broken = true;
      } else {
        ++timers[id].fired;
      }
      armed = true;
    };
    std::uint64_t next_id = 0;
    for (int step = 0; step < 3000; ++step) {
      const std::uint64_t choice = r.below(10);
      const timing_wheel::tick deadline = front.now() + r.below(300);
      const std::uint64_t pick = r.next();
      try {
        if (choice < 5) {
          const std::uint64_t id = next_id++;
          const timing_wheel::remote_handle h = counted([&] { return front.insert(deadline, tracked(id)); });
          // Ids name accepted timers only: a schedule that threw was not made.
          if (id != timers.size()) {
            broken = true;
            break;
          }
          timers.push_back(timer{h});
        } else if (choice < 6 && !timers.empty()) {
          counted([&] { front.reschedule(timers[pick % timers.size()].handle, deadline); });
        } else if (choice < 7 && !timers.empty()) {
          timer& t = timers[pick % timers.size()];
          counted([&] { front.f.cancel(t.handle); });
          t.cancelled = true;
        } else if (choice < 8) {
          counted([&] { front.ask(); });
        } else {
          counted([&] { front.advance(front.now() + pick % 200, fired); });
        }
      } catch (const std::bad_alloc&) {
        failed_once = true;
        if (choice < 5) --next_id;  // not made: the id is free again
      }
    }
    countdown = -1;
    front.drain(fired);
  }
  for (std::size_t id = 0; id < timers.size(); ++id) {
    const timer& t = timers[id];
    if (t.fired > 1 || (t.fired == 0 && !t.cancelled)) {
      std::printf("  %s, failing allocation %ld: timer %zu fired %d times%s\n", Front::name, fail_at, id, t.fired,
                  t.cancelled ? " (cancelled)" : "");
      broken = true;
    }
  }
  if (alive != 0) {
    std::printf("  %s, failing allocation %ld: %ld payloads left alive\n", Front::name, fail_at, alive);
    broken = true;
  }
  alive = 0;
  if (broken) return -1;
  return failed_once ? 1 : 0;
}

template <class Front>
bool survives_every_failure() {
  long failures = 0;
  bool held = true;
  for (long n = 0;; ++n) {
    const int result = run_with_failure_at<Front>(n);
    if (result < 0) held = false;
    if (result == 0) break;
    ++failures;
  }
  if (held) std::printf("%s: each of %ld allocations failed in turn, nothing lost\n", Front::name, failures);
  return held && failures > 0;
}
}  // namespace

int main() {
  int failed = 0;
  failed += survives_every_failure<over_queue<timing_wheel::detail::default_service_queue>>() ? 0 : 1;
  failed += survives_every_failure<over_queue<heap>>() ? 0 : 1;
  failed += survives_every_failure<over_service>() ? 0 : 1;
  std::printf("%d passed, %d failed\n", 3 - failed, failed);
  return failed == 0 ? 0 : 1;
}
