// Running out of memory: the global operator new fails on the N-th allocation, for every N along a workload. The
// call that failed must leave the queue exactly as it was (strong guarantee), and at the end every timer must have
// fired or been cancelled exactly once. A program of its own, since it replaces operator new.
#include "allocation/failing_allocation.hpp"
#include "support/queues.hpp"
#include "support/random_ops.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <new>
#include <optional>
#include <tuple>
#include <typeinfo>
#include <vector>

using failing_allocation::armed;
using failing_allocation::countdown;
using failing_allocation::counted;

using timing_wheel::tick;
using timing_wheel::timer_handle;
using timing_wheel_test::rng;

template <class Q>
struct snapshot {
  std::size_t size;
  std::optional<tick> next;
  std::vector<std::optional<tick>> expiries;
  bool operator==(const snapshot&) const = default;

  snapshot(const Q& q, const std::vector<timer_handle>& handles) : size(q.size()), next(q.next_expiration()) {
    for (const auto h : handles) expiries.push_back(q.expiry(h));
  }
};

// Runs the workload with the `fail_at`-th allocation failing. Returns: -1 on a broken guarantee, 0 when no
// allocation failed (the workload has fewer allocations), 1 when one failed and everything held.
template <class Q>
int run_with_failure_at(long fail_at) {
  std::vector<timer_handle> handles;
  std::map<std::uint64_t, int> outcomes;  // id -> times fired or cancelled
  Q q(1000);
  rng r{42};
  bool failed_once = false;
  countdown = fail_at;
  const auto expire = [&](tick, std::uint64_t&& id) {
    armed = false;  // the test's own bookkeeping
    ++outcomes[id];
    armed = true;
  };
  for (int step = 0; step < 1500; ++step) {
    const std::uint64_t choice = r.below(10);
    const tick deadline = timing_wheel_test::random_time(r, q.now());
    const std::uint64_t pick = r.next();
    const snapshot<Q> before(q, handles);
    try {
      if (choice < 5) {
        const timer_handle h = counted([&] { return q.insert(deadline, handles.size()); });
        handles.push_back(h);
      } else if (choice < 7 && !handles.empty()) {
        counted([&] { return q.reschedule(handles[pick % handles.size()], deadline); });
      } else if (choice < 8 && !handles.empty()) {
        const timer_handle h = handles[pick % handles.size()];
        if (auto id = counted([&] { return q.cancel(h); })) ++outcomes[*id];
      } else {
        counted([&] { return q.advance(q.now() + pick % 3000, expire); });
      }
    } catch (const std::bad_alloc&) {
      failed_once = true;
      if (!(snapshot<Q>(q, handles) == before) || !timing_wheel_test::invariants_hold(q)) {
        std::printf("  %s: the failed call at step %d changed the queue\n", typeid(Q).name(), step);
        return -1;
      }
    }
  }
  countdown = -1;
  q.drain(expire);
  for (std::uint64_t id = 0; id < handles.size(); ++id) {
    if (outcomes[id] != 1) {
      std::printf("  %s: timer %llu ended %d times\n", typeid(Q).name(), static_cast<unsigned long long>(id),
                  outcomes[id]);
      return -1;
    }
  }
  return failed_once ? 1 : 0;
}

template <class Q>
bool survives_every_failure() {
  long failures = 0;
  for (long n = 0;; ++n) {
    const int result = run_with_failure_at<Q>(n);
    if (result < 0) return false;
    if (result == 0) break;
    ++failures;
  }
  std::printf("%s: each of %ld allocations failed in turn, nothing changed or lost\n", typeid(Q).name(), failures);
  return failures > 0;
}

template <class... Q>
int count_failures(std::tuple<Q...>*) {
  return (0 + ... + (survives_every_failure<Q>() ? 0 : 1));
}

int main() {
  using queues = timing_wheel_test::all_queues_and_default<std::uint64_t>;
  const int failed = count_failures(static_cast<queues*>(nullptr));
  std::printf("%d passed, %d failed\n", static_cast<int>(std::tuple_size_v<queues>) - failed, failed);
  return failed == 0 ? 0 : 1;
}
