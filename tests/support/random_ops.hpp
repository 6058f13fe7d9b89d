// Random operation sequences at every scale of time, applied to any timer queue and recorded as a trace.
#pragma once

#include "queues.hpp"

#include <timing_wheel/timer_queue.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace timing_wheel_test {
using timing_wheel::tick;
using timing_wheel::timer_handle;

[[nodiscard]] inline std::uint64_t mix(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

struct rng {
  std::uint64_t state;
  std::uint64_t next() noexcept { return mix(state++); }
  std::uint64_t below(std::uint64_t n) noexcept { return n == 0 ? 0 : next() % n; }
};

// Decisions read from a fuzzer's input instead of a generator: small choices take one or two bytes, so the fuzzer
// steers each one; past the end every read is zero and the run stops.
class byte_source {
 public:
  byte_source(const std::uint8_t* data, std::size_t size) noexcept : m_data(data), m_size(size) {}
  std::uint64_t next() noexcept { return read(8); }
  std::uint64_t below(std::uint64_t n) noexcept {
    if (n == 0) return 0;
    return read(n <= 256 ? 1 : n <= 65536 ? 2 : 8) % n;
  }
  [[nodiscard]] bool exhausted() const noexcept { return m_at >= m_size; }

 private:
  std::uint64_t read(std::size_t bytes) noexcept {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < bytes; ++i) value = (value << 8) | (m_at < m_size ? m_data[m_at++] : 0U);
    return value;
  }
  const std::uint8_t* m_data;
  std::size_t m_size;
  std::size_t m_at = 0;
};

[[nodiscard]] inline tick add(tick a, tick b) noexcept { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
[[nodiscard]] inline tick sub(tick a, tick b) noexcept { return a < b ? 0 : a - b; }

// A seed from TIMING_WHEEL_SEED when set (to replay a failure), else `fallback`.
[[nodiscard]] inline std::uint64_t seed_or(std::uint64_t fallback) {
  if (const char* text = std::getenv("TIMING_WHEEL_SEED")) return std::strtoull(text, nullptr, 0);
  return fallback;
}

// A tick near now at one of many scales: the past, now, the next tick, the edges of every level of every
// geometry (relative and aligned), ring multiples, dense ties, the end of time, anywhere.
template <class Source>
[[nodiscard]] tick random_time(Source& r, tick now) {
  const auto jitter = [&r] { return static_cast<tick>(r.below(3)); };  // 0, 1, 2: to be subtracted by one
  switch (r.below(12)) {
    case 0:
      return sub(now, 1 + r.below(100));
    case 1:
      return now;
    case 2:
      return add(now, 1);
    case 3: {
      const std::uint64_t bits = 1 + r.below(8);
      const std::uint64_t shift = bits * r.below(64 / bits + 1);
      return sub(add(add(now, shift >= 64 ? UINT64_MAX : tick{1} << shift), jitter()), 1);
    }
    case 4: {
      const std::uint64_t shift = r.below(64);
      const tick boundary = add(((now >> shift) + 1) << shift, 0);
      return sub(add(boundary, jitter()), 1);
    }
    case 5:
    case 6:
      return add(now, r.below(tick{1} << r.below(64)));
    case 7:
      return add(now, r.below(300));
    case 8:
      return add(now, (1 + r.below(3)) * (r.below(2) == 0 ? 60 : 256));
    case 9:
      return UINT64_MAX - r.below(3);
    case 10:
      return r.next();
    default:
      return add(now, r.below(20));
  }
}

struct trace_event {
  char kind;
  std::uint64_t a, b, c;
  friend bool operator==(const trace_event&, const trace_event&) = default;
};

inline std::string describe(const std::vector<trace_event>& trace, std::size_t at) {
  std::ostringstream out;
  const std::size_t from = at > 8 ? at - 8 : 0;
  for (std::size_t i = from; i < std::min(trace.size(), at + 3); ++i) {
    out << (i == at ? " > " : "   ") << i << ": " << trace[i].kind << ' ' << trace[i].a << ' ' << trace[i].b << ' '
        << trace[i].c << '\n';
  }
  return out.str();
}

// The first difference between two traces, described, or "" when they are equal.
inline std::string compare_traces(const std::vector<trace_event>& expected, const std::vector<trace_event>& actual) {
  const std::size_t n = std::min(expected.size(), actual.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (!(expected[i] == actual[i])) {
      return "first difference at event " + std::to_string(i) + "\nexpected:\n" + describe(expected, i) + "actual:\n" +
             describe(actual, i);
    }
  }
  if (expected.size() != actual.size()) {
    return "traces differ in length: " + std::to_string(expected.size()) + " vs " + std::to_string(actual.size());
  }
  return {};
}

struct callback_failure : std::runtime_error {
  callback_failure() : std::runtime_error("a callback failed on purpose") {}
};

// Drives one queue with a seeded operation sequence. Everything random is drawn from the seed and from what the
// queue did, so two queues that behave alike draw alike and leave identical traces.
template <class Q, class Source = rng>
class random_run {
 public:
  random_run(tick start, std::uint64_t seed, std::size_t operations) requires std::same_as<Source, rng>
      : m_queue(start), m_rng{seed}, m_salt(mix(seed ^ 0x5eedULL)), m_operations(operations) {}
  random_run(tick start, Source source, std::size_t operations, std::uint64_t salt)
      : m_queue(start), m_rng(source), m_salt(salt), m_operations(operations) {}

  // Runs every operation; returns "" or the first broken invariant.
  std::string run() {
    for (m_step = 0; m_step < m_operations; ++m_step) {
      if constexpr (requires { m_rng.exhausted(); }) {
        if (m_rng.exhausted()) break;
      }
      step();
      if (!m_error.empty()) return m_error;
      if (m_step % check_interval<Q> == 0 && !invariants_hold(m_queue))
        return "internal invariants broken at step " + where();
    }
    m_queue.drain([this](tick deadline, std::uint64_t&& id) { record('D', deadline, id, m_queue.now()); });
    record('E', m_queue.size(), m_queue.empty(), m_queue.now());
    return m_error;
  }

  [[nodiscard]] const std::vector<trace_event>& trace() const noexcept { return m_trace; }
  [[nodiscard]] std::size_t fired() const noexcept { return m_fired; }
  // Queue operations made and checked (against the model's trace, or the coarse bounds): inserts, cancels,
  // reschedules, queries, advances, firings.
  [[nodiscard]] std::size_t checked() const noexcept { return m_checked; }

 private:
  static constexpr bool coarse = is_coarse<Q>;

  std::string where() const { return std::to_string(m_step) + " (now " + std::to_string(m_queue.now()) + ")"; }

  void record(char kind, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
    m_trace.push_back({kind, a, b, c});
    ++m_checked;
  }

  void fail(const std::string& what) {
    if (m_error.empty()) m_error = what + " at step " + where();
  }

  timer_handle pick_handle(std::uint64_t choice) const {
    if (choice % 16 == 0 || m_handles.empty()) return {};
    if (choice % 16 == 1) return {0xFFFFFFF0U, 1};
    return m_handles[(choice >> 4) % m_handles.size()];
  }
  std::uint64_t id_of(timer_handle h) const {
    for (std::size_t i = m_handles.size(); i-- > 0;) {
      if (m_handles[i] == h) return i;
    }
    return UINT64_MAX;
  }

  void schedule(tick deadline) {
    const std::uint64_t id = m_handles.size();
    m_handles.push_back(m_queue.insert(deadline, id));
    expect_scheduled(id, deadline);
    record('I', id, deadline, m_queue.now());
  }

  // Coarse mode is not traced against the model; instead every timer is checked against its bounds.
  void expect_scheduled(std::uint64_t id, tick deadline) {
    if constexpr (coarse) {
      const tick due = std::max(deadline, m_queue.now());
      const tick latest = add(due, Q::max_lateness(due - m_queue.now()));
      m_live[id] = {due, latest};
      m_by_latest.emplace(latest, id);
    }
  }
  void expect_gone(std::uint64_t id) {
    if constexpr (coarse) {
      auto it = m_live.find(id);
      if (it == m_live.end()) return fail("timer " + std::to_string(id) + " fired or cancelled twice");
      m_by_latest.erase({it->second.second, id});
      m_live.erase(it);
    }
  }

  // What a callback sees of its own queue, mid-advance: the queries (recorded, so the model's trace checks them;
  // coarse wheels are checked against the timers known pending) and, now and then, the internal invariants.
  void probe(std::uint64_t r) {
    const std::optional<tick> next = m_queue.next_expiration();
    const std::size_t size = m_queue.size();
    ++m_checked;
    if (m_queue.empty() != (size == 0) || next.has_value() == (size == 0)) {
      fail("inside a callback: empty(), size() and next_expiration() disagree");
    }
    if (next && *next < m_queue.now()) fail("inside a callback: next_expiration() is before now()");
    if constexpr (coarse) {
      if (size != m_live.size()) fail("inside a callback: size() disagrees with the timers pending");
      if (next && !m_by_latest.empty() && *next > m_by_latest.begin()->first) {
        fail("inside a callback: next_expiration() is after a pending timer's latest fire time");
      }
      record('q', size, next.has_value(), 0);
    } else {
      record('q', size, next.has_value(), next.value_or(0));
    }
    const timer_handle h = pick_handle(r >> 12);
    const std::uint64_t id = id_of(h);
    const std::uint64_t* payload = m_queue.get(h);
    const bool pending = m_queue.pending(h);
    if ((payload != nullptr) != pending || (payload && *payload != id)) fail("inside a callback: get() and pending()");
    if constexpr (coarse) {
      if (pending != m_live.contains(id) && id != UINT64_MAX) fail("inside a callback: pending() is wrong");
    }
    record('p', id, pending, m_queue.expiry(h).value_or(0));
    if ((r >> 40) % (2 * check_interval<Q>) == 0 && !invariants_hold(m_queue))
      fail("inside a callback: internal invariants broken");
  }

  void react(std::uint64_t id) {
    const std::uint64_t r = mix(id ^ m_salt);
    const tick now = m_queue.now();
    probe(r);
    switch (r % 12) {
      case 0:
        schedule(add(now, (r >> 8) % 4));
        break;
      case 1:
        schedule(add(now, (r >> 8) % 2000));
        break;
      case 2:
        cancel(pick_handle(r >> 8));
        break;
      case 3:
        reschedule(pick_handle(r >> 8), add(now, (r >> 20) % 100));
        break;
      case 4:
        reschedule(pick_handle(r >> 8), now);
        break;
      case 5:  // far away: beyond every horizon, up to the end of time
        schedule(add(now, (r >> 8) << ((r >> 4) % 16)));
        break;
      case 6:
        reschedule(pick_handle(r >> 8), UINT64_MAX - (r >> 20) % 3);
        break;
      default:
        break;
    }
    probe(r >> 3);
  }

  void cancel(timer_handle h) {
    const std::uint64_t id = id_of(h);
    const std::optional<std::uint64_t> value = m_queue.cancel(h);
    if (value) {
      if (*value != id) fail("cancel returned the wrong payload");
      expect_gone(id);
    }
    record('C', id, value.has_value(), value.value_or(0));
  }

  void reschedule(timer_handle h, tick deadline) {
    const std::uint64_t id = id_of(h);
    const bool moved = m_queue.reschedule(h, deadline);
    if (moved) {
      expect_gone(id);
      expect_scheduled(id, deadline);
    }
    record('R', id, moved, deadline);
  }

  auto on_expire() {
    return [this](tick deadline, std::uint64_t&& id) {
      ++m_fired;
      record('F', deadline, id, m_queue.now());
      if constexpr (coarse) {
        auto it = m_live.find(id);
        if (it == m_live.end()) return fail("timer " + std::to_string(id) + " fired but was not pending");
        if (m_queue.now() < it->second.first) fail("timer " + std::to_string(id) + " fired early");
        if (m_queue.now() > it->second.second) fail("timer " + std::to_string(id) + " fired too late");
        if (m_queue.now() < m_last_fire) fail("fire times went backwards");
        m_last_fire = m_queue.now();
        expect_gone(id);
      }
      react(id);
    };
  }

  // Mostly short steps, sometimes huge jumps; the end of time is reached only in the last 5% of a run (or by a run
  // that starts near it), so that most of the run still has time ahead of it.
  tick advance_target() {
    const tick now = m_queue.now();
    const tick to = any_advance_target(now);
    const bool late_in_run = m_step * 20 > m_operations * 19;
    if (to > now && to - now > (tick{1} << 48) && !late_in_run) return add(now, m_rng.below(tick{1} << 48));
    if (to > now && to - now > (tick{1} << 24) && m_rng.below(4) != 0) return add(now, m_rng.below(5000));
    return to;
  }

  tick any_advance_target(tick now) {
    switch (m_rng.below(10)) {
      case 0:
        return now;
      case 1:
        return add(now, 1);
      case 2:
      case 3:
        return add(now, m_rng.below(64));
      case 4:
        return m_queue.next_expiration().value_or(now);
      case 5:
        return sub(m_queue.next_expiration().value_or(now + 1), 1);
      case 6:
        return add(now, tick{1} << m_rng.below(64));
      case 7:
        return random_time(m_rng, now);
      case 8:
        return sub(now, m_rng.below(10));
      default:
        if (m_step * 20 > m_operations * 19 && m_rng.below(20) == 0) return UINT64_MAX;
        return add(now, m_rng.below(5000));
    }
  }

  void advance(tick to, std::size_t throw_at = 0) {
    const tick before = m_queue.now();
    const std::optional<tick> next = m_queue.next_expiration();
    std::size_t calls = 0;
    auto expire = on_expire();
    bool thrown = false;
    std::size_t fired = 0;
    try {
      fired = m_queue.advance(to, [&](tick deadline, std::uint64_t&& id) {
        if (calls++ == 0 && next && m_queue.now() != *next) fail("the first firing is not at next_expiration()");
        expire(deadline, std::move(id));
        if (calls == throw_at) throw callback_failure();
      });
    } catch (const callback_failure&) {
      thrown = true;
    }
    if (!thrown && to >= before) {
      if (next && *next <= to && calls == 0) fail("next_expiration() was due but nothing fired");
      if (next && *next > to && calls != 0) fail("fired before next_expiration()");
      if (m_queue.now() != to) fail("now() is not the advance target");
      if (fired != calls) fail("advance returned the wrong count");
    }
    if (to < before && (calls != 0 || m_queue.now() != before)) fail("advancing backwards changed something");
    if constexpr (coarse) {
      if (!thrown && to >= before && !m_by_latest.empty() && m_by_latest.begin()->first <= to) {
        fail("timer " + std::to_string(m_by_latest.begin()->second) + " is overdue");
      }
    }
    m_last_fire = 0;
    record('A', to, thrown ? UINT64_MAX : fired, m_queue.now());
  }

  // advance(to) in slices of at most `budget` firings, as an event loop that bounds its work per turn does: must
  // fire exactly what one advance(to) fires, in the same order.
  void advance_in_budgets(tick to, std::size_t budget) {
    const tick before = m_queue.now();
    auto expire = on_expire();
    std::size_t total = 0;
    for (;;) {
      const std::size_t fired = m_queue.advance(to, expire, budget);
      total += fired;
      const std::optional<tick> next = m_queue.next_expiration();
      const bool more_due = to >= before && next && *next <= to;
      if (fired > budget) fail("a budgeted advance fired more than its budget");
      if (fired < budget && more_due) fail("a budgeted advance stopped short with timers still due");
      if (!more_due) break;
      if (m_queue.now() > to) fail("a budgeted advance that stopped early moved now() past its target");
      if (!m_error.empty()) break;
    }
    if (to >= before && m_queue.now() != to) fail("now() is not the target after the budgeted advances");
    record('B', to, total, m_queue.now());
  }

  void step() {
    const std::uint64_t choice = m_rng.below(1000);
    const tick now = m_queue.now();
    if (choice < 400) {
      schedule(random_time(m_rng, now));
    } else if (choice < 530) {
      cancel(pick_handle(m_rng.next()));
    } else if (choice < 630) {
      reschedule(pick_handle(m_rng.next()), random_time(m_rng, now));
    } else if (choice < 680) {
      const timer_handle h = pick_handle(m_rng.next());
      const std::uint64_t* payload = m_queue.get(h);
      const bool pending = m_queue.pending(h);
      if ((payload != nullptr) != pending || (payload && *payload != id_of(h))) fail("get() disagrees with pending()");
      record('P', id_of(h), pending, m_queue.expiry(h).value_or(0));
    } else if (choice < 940) {
      advance(advance_target());
    } else if (choice < 985) {
      advance_in_budgets(advance_target(), 1 + m_rng.below(4));
    } else if (choice < 992) {
      advance(add(now, m_rng.below(500)), 1 + m_rng.below(3));
    } else if (choice < 995) {
      Q moved(std::move(m_queue));
      m_queue = std::move(moved);
      record('M', m_queue.size(), 0, m_queue.now());
    } else if (choice < 997) {
      m_queue.drain([this](tick deadline, std::uint64_t&& id) {
        record('D', deadline, id, m_queue.now());
        expect_gone(id);
      });
    } else {
      m_queue.clear();
      if constexpr (coarse) {
        m_live.clear();
        m_by_latest.clear();
      }
      record('X', m_queue.size(), 0, m_queue.now());
    }
    const std::optional<tick> next = m_queue.next_expiration();
    if constexpr (coarse) {
      if (m_queue.size() != m_live.size()) fail("size() disagrees with the timers pending");
      record('S', m_queue.size(), next.has_value(), 0);
    } else {
      record('S', m_queue.size(), next.has_value(), next.value_or(0));
    }
    if (m_queue.empty() != (m_queue.size() == 0) || next.has_value() == m_queue.empty()) {
      fail("empty(), size() and next_expiration() disagree");
    }
  }

  Q m_queue;
  Source m_rng;
  std::uint64_t m_salt;
  std::size_t m_operations;
  std::size_t m_step = 0;
  std::vector<timer_handle> m_handles;
  std::vector<trace_event> m_trace;
  std::string m_error;
  std::size_t m_fired = 0;
  std::size_t m_checked = 0;
  tick m_last_fire = 0;
  std::map<std::uint64_t, std::pair<tick, tick>> m_live;  // coarse: id -> (due, latest fire time)
  std::set<std::pair<tick, std::uint64_t>> m_by_latest;
};

}  // namespace timing_wheel_test
