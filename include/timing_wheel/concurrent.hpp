// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

// The cross-thread front ends (opt-in): any thread schedules, cancels and reschedules timers that one loop thread
// owns and fires, through concurrent_service (std::chrono time) or concurrent_queue (ticks, over a raw queue). Requests
// wait in an inbox behind a short critical section; the loop applies them at the start of each poll and before it
// sleeps, and is woken only when a request brings its next wake-up forward.

#include <timing_wheel/chrono.hpp>
#include <timing_wheel/detail/config.hpp>
#include <timing_wheel/timer_queue.hpp>

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

TIMING_WHEEL_NAMESPACE_BEGIN

/// Names one timer scheduled through a concurrent_service or concurrent_queue. Issued at once, on the calling
/// thread, before the loop has seen the request: any thread may cancel or reschedule with it straight away. Once its
/// timer fires or is cancelled, the handle is stale for good; requests with it are ignored.
struct remote_handle {
  std::uint32_t index = 0;       ///< its record in the front end
  std::uint32_t generation = 0;  ///< that record's generation (odd while in use; {} is never in use)

  /// Handles are equal when they name the same record and generation.
  friend constexpr bool operator==(remote_handle, remote_handle) noexcept = default;
};

/// What try_schedule() answers: the handle, or, when a bounded inbox was full, the payload handed back (and a handle
/// that names nothing).
template <class T>
struct try_schedule_result {
  remote_handle handle;       ///< the new timer (names nothing when rejected)
  std::optional<T> rejected;  ///< the payload handed back by a full inbox, or nullopt

  /// True when the request was accepted.
  explicit operator bool() const noexcept { return !rejected.has_value(); }
};

/// Bounds the requests waiting for the loop: schedules beyond it are refused (try_schedule hands the payload back,
/// schedule throws std::length_error). Cancels and reschedules always enter (try_reschedule refuses them too).
struct inbox_capacity {
  std::size_t requests;  ///< the most requests waiting at once
};

/// What the front end counts, for tests and monitoring (read on the loop thread).
struct concurrent_stats {
  std::uint64_t requests = 0;  ///< requests applied by the loop
  std::uint64_t wakeups = 0;   ///< times a producer called the wake-up hook
  std::uint64_t ignored = 0;   ///< cancels and reschedules whose timer had already fired or been cancelled
};

namespace detail {

enum class request_kind : std::uint8_t { schedule, cancel, reschedule };

template <class T>
struct remote_entry {
  T value;
  std::uint32_t record;

  remote_entry(T&& v, std::uint32_t r) : value(std::move(v)), record(r) {}
};

// The shared half of a concurrent front end: the inbox, the records that handles name, the sleep the loop
// announced, and the wake-up hook. Everything here is guarded by one mutex, held for a push or a swap, never while
// a payload's callback runs. `When` is what a request carries: a tick or a time point.
template <class T, class When>
class remote_inbox {
 public:
  struct request {
    request_kind kind{};
    remote_handle handle;
    When when;
    std::optional<T> value;
  };

  remote_inbox(std::function<void()> wake, std::size_t bound) : m_wake(std::move(wake)), m_bound(bound) {}

  // Producer side. Returns: the handle, or a handle naming nothing (generation 0) when the inbox is full.
  // `wake_tick` is the tick the request may fire at: the loop is woken if it sleeps past it.
  // Throws: bad_alloc, having changed nothing (the room is made before a record is taken).
  remote_handle push_schedule(When when, tick wake_tick, std::optional<T>& value) {
    bool wake = false;
    remote_handle handle{};
    {
      const std::lock_guard<std::mutex> lock(m_lock);
      if (m_inbox.size() >= m_bound) return handle;
      if (m_inbox.size() == m_inbox.capacity()) m_inbox.reserve(std::max<std::size_t>(64, 2 * m_inbox.capacity()));
      handle = allocate();
      m_inbox.push_back(request{request_kind::schedule, handle, when, std::move(value)});
      value.reset();  // taken: nothing to hand back
      wake = should_wake(wake_tick);
    }
    if (wake) m_wake();
    return handle;
  }
  // Returns: false when `bounded` and the inbox is full.
  bool push(request_kind kind, remote_handle handle, When when, tick wake_tick, bool bounded) {
    bool wake = false;
    {
      const std::lock_guard<std::mutex> lock(m_lock);
      if (bounded && m_inbox.size() >= m_bound) return false;
      m_inbox.push_back(request{kind, handle, when, std::nullopt});
      wake = kind == request_kind::reschedule && should_wake(wake_tick);
    }
    if (wake) m_wake();
    return true;
  }

  // Loop side: moves every waiting request into `batch` (emptied first; the loop is awake from now on, so
  // producers need not wake it) and gives back the records of the timers that are done. Throws nothing: `m_free`
  // has room for every record.
  void take(std::vector<request>& batch, std::vector<std::uint32_t>& released) noexcept {
    batch.clear();
    const std::lock_guard<std::mutex> lock(m_lock);
    m_inbox.swap(batch);
    for (const std::uint32_t index : released) {
      ++m_generations[index];  // odd (in use) to even (free)
      m_free.push_back(index);
    }
    released.clear();
    m_asleep_until = 0;
    m_no_deadline = false;
    m_wake_sent = false;
  }
  // Loop side, just before it sleeps: announces the tick it will wake at (nullopt: only a request wakes it),
  // unless requests arrived in the meantime. Returns: false if requests wait (apply them and ask again).
  bool announce_sleep(std::optional<tick> until) {
    const std::lock_guard<std::mutex> lock(m_lock);
    if (!m_inbox.empty()) return false;
    m_asleep_until = until.value_or(UINT64_MAX);
    m_no_deadline = !until.has_value();
    return true;
  }
  [[nodiscard]] std::uint64_t wakeups() const {
    const std::lock_guard<std::mutex> lock(m_lock);
    return m_wakeups;
  }

 private:
  remote_handle allocate() {
    std::uint32_t index = 0;
    if (!m_free.empty()) {
      index = m_free.back();
      m_free.pop_back();
    } else {
      if (m_generations.size() >= UINT32_MAX) throw_bad_alloc();
      if (m_generations.size() == m_generations.capacity()) {
        const std::size_t grown = std::max<std::size_t>(64, 2 * m_generations.capacity());
        m_free.reserve(grown);  // take() gives every record back without allocating
        m_generations.reserve(grown);
      }
      index = static_cast<std::uint32_t>(m_generations.size());
      m_generations.push_back(0);
    }
    std::uint32_t& generation = m_generations[index];
    if (generation == UINT32_MAX - 1) generation = 0;  // even to even: skip the wrap so odd stays "in use"
    ++generation;
    return remote_handle{index, generation};
  }
  // A request that may fire at `at` wakes a loop asleep past it (or with no deadline at all), once per sleep.
  bool should_wake(tick at) {
    if (m_wake_sent || (at >= m_asleep_until && !m_no_deadline)) return false;
    m_wake_sent = true;
    ++m_wakeups;
    return true;
  }

  mutable std::mutex m_lock;
  std::vector<request> m_inbox;
  std::vector<std::uint32_t> m_generations;
  std::vector<std::uint32_t> m_free;
  tick m_asleep_until = 0;     // 0: the loop is awake and will look at the inbox before it sleeps
  bool m_no_deadline = false;  // asleep until a request wakes it
  bool m_wake_sent = false;
  std::uint64_t m_wakeups = 0;
  std::function<void()> m_wake;
  std::size_t m_bound;
};

// The loop's half of a front end: the inbox, and which timer of the loop's queue or service each record stands
// for. apply() hands the waiting requests to the target in inbox order; done() gives a record back once its timer
// fired or was cancelled, so later requests with its handle are ignored.
template <class T, class When>
class remote_loop {
 public:
  using inbox_type = remote_inbox<T, When>;

  remote_loop(std::function<void()> wake, std::size_t bound) : m_inbox(std::move(wake), bound) {}

  [[nodiscard]] inbox_type& inbox() noexcept { return m_inbox; }
  [[nodiscard]] const inbox_type& inbox() const noexcept { return m_inbox; }

  // insert(when, T&&, record) schedules into the target, building its entry in place, and returns its
  // timer_handle; the target's cancel(timer_handle) and reschedule(timer_handle, When) do the rest.
  // If the target throws (bad_alloc), the request that failed and those after it stay, in order, for the next
  // apply(), which starts with them: an accepted request is never lost (a payload whose insertion failed is still
  // in its request: the targets allocate before they move it).
  template <class Target, class Insert>
  void apply(Target& target, Insert&& insert) {
    if (m_applied < m_batch.size()) apply_batch(target, insert);  // what a throw left
    m_inbox.take(m_batch, m_released);
    m_applied = 0;
    apply_batch(target, insert);
  }
  // Records are handed out in order from the producers' side: growing to fit each new one alone called the
  // vector's resize once a request (about 40 of the loop's 640 instructions a request in a throughput run).
  // m_released grows with them: done() runs as a timer fires, where an allocation failing would lose it.
  [[gnu::cold]] void grow_records(std::uint32_t index) {
    const std::size_t grown = std::max(std::size_t{index} + 1, 2 * m_records.size());
    m_released.reserve(grown);
    m_records.resize(grown);
  }
  void done(std::uint32_t index) noexcept {
    m_records[index].generation = 0;
    m_released.push_back(index);
  }
  [[nodiscard]] concurrent_stats stats() const {
    concurrent_stats counted = m_stats;
    counted.wakeups = m_inbox.wakeups();
    return counted;
  }

 private:
  template <class Target, class Insert>
  void apply_batch(Target& target, Insert& insert) {
    for (; m_applied < m_batch.size(); ++m_applied) {
      typename inbox_type::request& request = m_batch[m_applied];
      const remote_handle handle = request.handle;
      if (request.kind == request_kind::schedule) {
        if (handle.index >= m_records.size()) grow_records(handle.index);
        m_records[handle.index] = {handle.generation, insert(request.when, std::move(*request.value), handle.index)};
      } else if (handle.index >= m_records.size() || m_records[handle.index].generation != handle.generation ||
                 handle.generation == 0) {
        ++m_stats.ignored;
      } else if (request.kind == request_kind::cancel) {
        static_cast<void>(target.cancel(m_records[handle.index].timer));
        done(handle.index);
      } else {
        static_cast<void>(target.reschedule(m_records[handle.index].timer, request.when));
      }
      ++m_stats.requests;
    }
  }

  struct record {
    std::uint32_t generation = 0;  // of the request that scheduled it; 0 when done
    timer_handle timer{};
  };

  inbox_type m_inbox;
  std::vector<typename inbox_type::request> m_batch;  // the loop's: the requests taken, m_applied of them applied
  std::size_t m_applied = 0;
  std::vector<record> m_records;          // the loop's
  std::vector<std::uint32_t> m_released;  // the loop's: records to hand back
  concurrent_stats m_stats;
};

[[noreturn]] inline void throw_inbox_full() {
#if TIMING_WHEEL_HAS_EXCEPTIONS
  throw std::length_error("timing_wheel: the bounded inbox is full");
#else
  throw_bad_alloc();
#endif
}

}  // namespace detail

/// A timer_service that any thread may schedule into, cancel and reschedule, owned and polled by one loop thread.
/// Producer members (any thread): schedule_at, schedule_after, try_schedule_at, cancel, reschedule,
/// try_reschedule. Loop members (the owning thread only): poll, time_until_next, timeout_ms, drain, service.
///
/// Contract: requests from one thread apply in the order they were made; requests from several threads apply in
/// the order they entered the inbox (the order their calls took its lock), so two timers for the same tick fire in
/// that order. A cancel or reschedule that reaches the loop before the timer fires means what it says, even if the
/// loop had not yet applied the schedule: it applies after it. poll(now) first applies every waiting request, so a
/// timer due at or before `now` that was scheduled before the call fires in it. The loop must ask time_until_next
/// (or timeout_ms) right before it sleeps: that announces its wake-up, and a later request due before it calls the
/// wake-up hook, once per sleep; requests that do not bring the wake-up forward (cancels, later timers) do not.
/// Out of memory: a producer's call that throws bad_alloc made no request. A loop call that cannot apply a request
/// (the queue's bad_alloc) throws it, and that request and those after it wait, in order, for the next loop call:
/// nothing accepted is lost, and a timer whose schedule failed so still holds its payload.
///
///     timing_wheel::eventfd_wakeup wake;                         // timing_wheel/eventfd.hpp, or any callable
///     timing_wheel::concurrent_service<std::function<void()>> timers(std::ref(wake));
///     auto h = timers.schedule_after(30s, [] { /* ... */ });      // from any thread
///     timers.cancel(h);                                           // from any thread
///     for (;;) {                                                  // the loop thread, wake.fd() in its epoll set
///       epoll_wait(epfd, events, n, timers.timeout_ms(std::chrono::steady_clock::now()));
///       wake.clear();
///       timers.poll(std::chrono::steady_clock::now());
///     }
template <class T, class Clock = std::chrono::steady_clock, class Resolution = std::chrono::milliseconds,
          template <class> class Queue = detail::default_service_queue>
class concurrent_service {
  using entry = detail::remote_entry<T>;

 public:
  using value_type = T;                                                 ///< the payload
  using service_type = timer_service<entry, Clock, Resolution, Queue>;  ///< the service the loop owns
  using time_point = typename Clock::time_point;                        ///< the clock's time point
  using duration = typename Clock::duration;                            ///< the clock's duration

  /// Effects: a front end whose loop is woken by calling `wake` (from the producer's thread, outside any lock),
  /// with tick 0 at `epoch`, one tick per `resolution`, and a growable inbox.
  explicit concurrent_service(std::function<void()> wake, time_point epoch = Clock::now(),
                              Resolution resolution = Resolution(1))
      : m_service(epoch, resolution), m_loop(std::move(wake), SIZE_MAX) {}
  /// Effects: as above, with at most `bound.requests` requests waiting.
  concurrent_service(std::function<void()> wake, inbox_capacity bound, time_point epoch = Clock::now(),
                     Resolution resolution = Resolution(1))
      : m_service(epoch, resolution), m_loop(std::move(wake), bound.requests) {}
  concurrent_service(const concurrent_service&) = delete;
  concurrent_service& operator=(const concurrent_service&) = delete;
  ~concurrent_service() = default;

  /// Any thread. Effects: asks the loop to fire `value` at the first poll at or after `when`. Returns: its handle,
  /// usable at once. Throws: std::length_error when a bounded inbox is full (the payload is lost: use
  /// try_schedule_at to keep it), bad_alloc.
  remote_handle schedule_at(time_point when, T value) {
    try_schedule_result<T> result = try_schedule_at(when, std::move(value));
    if (!result) detail::throw_inbox_full();
    return result.handle;
  }
  /// Any thread. Effects: schedule_at(Clock::now() + delay, value), saturating at the end of the clock.
  remote_handle schedule_after(duration delay, T value) {
    return schedule_at(detail::saturating_add(Clock::now(), delay), std::move(value));
  }
  /// Any thread. Effects: as schedule_at, but a full bounded inbox hands the payload back in `.rejected`.
  try_schedule_result<T> try_schedule_at(time_point when, T value) {
    std::optional<T> held(std::in_place, std::move(value));
    const remote_handle handle = m_loop.inbox().push_schedule(when, m_service.tick_at_or_after(when), held);
    return {handle, std::move(held)};
  }
  /// Any thread. Effects: asks the loop to cancel the timer; its payload is destroyed on the loop thread. A handle
  /// whose timer has fired or been cancelled by then is ignored.
  void cancel(remote_handle handle) {
    static_cast<void>(m_loop.inbox().push(detail::request_kind::cancel, handle, time_point{}, UINT64_MAX, false));
  }
  /// Any thread. Effects: asks the loop to move the timer to `when`, as a new insertion (ignored if it has fired or
  /// been cancelled by then).
  void reschedule(remote_handle handle, time_point when) {
    static_cast<void>(
        m_loop.inbox().push(detail::request_kind::reschedule, handle, when, m_service.tick_at_or_after(when), false));
  }
  /// Any thread. Effects: as reschedule. Returns: false, asking nothing, when a bounded inbox is full.
  bool try_reschedule(remote_handle handle, time_point when) {
    return m_loop.inbox().push(detail::request_kind::reschedule, handle, when, m_service.tick_at_or_after(when), true);
  }

  /// Loop thread. Effects: applies every waiting request, then fires what is due at `now` as timer_service::poll
  /// does, calling on_fire(T&) or on_fire(time_point due, T&). Returns: how many fired.
  template <class F>
  requires std::invocable<F&, T&> || std::invocable<F&, time_point, T&> std::size_t poll(time_point now, F&& on_fire) {
    apply();
    return m_service.poll(now, [this, &on_fire](time_point due, entry& fired) {
      m_loop.done(fired.record);
      if constexpr (std::is_invocable_v<F&, time_point, T&>) {
        std::invoke(on_fire, due, fired.value);
      } else {
        std::invoke(on_fire, fired.value);
      }
    });
  }
  /// Loop thread. Effects: as poll(now, f) with f invoking each due payload.
  std::size_t poll(time_point now) requires std::invocable<T&> {
    return poll(now, [](T& payload) { std::invoke(payload); });
  }

  /// Loop thread, right before it sleeps. Effects: applies what waits, and announces the wake-up it returns, so
  /// that a request due earlier wakes the loop. Returns: as timer_service::time_until_next.
  [[nodiscard]] std::optional<Resolution> time_until_next(time_point now) {
    for (;;) {
      apply();
      const std::optional<tick> next = m_service.queue().next_expiration();
      if (m_loop.inbox().announce_sleep(next)) return m_service.time_until_next(now);
    }
  }
  /// Loop thread, right before it sleeps. Returns: epoll_timeout_ms(time_until_next(now), cap).
  [[nodiscard]] int timeout_ms(time_point now, std::chrono::milliseconds cap = std::chrono::milliseconds(INT_MAX)) {
    return epoll_timeout_ms(time_until_next(now), cap);
  }

  /// Loop thread, at shutdown (after the producers stop). Effects: applies what waits, then hands every pending
  /// payload to f(T&&) in fire order; the front end is empty afterwards.
  template <class F>
  requires std::invocable<F&, T&&>
  void drain(F&& f) {
    apply();
    m_service.drain([this, &f](entry&& pending) {
      m_loop.done(pending.record);
      std::invoke(f, std::move(pending.value));
    });
  }

  /// Loop thread. Returns: the service underneath (its periodic timers and queries are the loop's to use).
  [[nodiscard]] service_type& service() noexcept { return m_service; }
  /// Loop thread. Returns: pending timers, requests not yet applied excluded.
  [[nodiscard]] std::size_t size() const noexcept { return m_service.size(); }
  /// Loop thread. Returns: what has been counted (wake-ups: by the producers, read under the inbox lock).
  [[nodiscard]] concurrent_stats stats() const { return m_loop.stats(); }

 private:
  void apply() {
    m_loop.apply(m_service, [this](time_point when, T&& value, std::uint32_t record) {
      return m_service.emplace_at(when, std::move(value), record);
    });
  }

  service_type m_service;  // the loop's; producers read only its epoch and resolution (never written)
  detail::remote_loop<T, time_point> m_loop;
};

/// A raw queue that any thread may insert into, cancel and reschedule, owned and advanced by one loop thread: the
/// tick-level sibling of concurrent_service, for loops that keep their own time. `Queue<U>` is the queue underneath
/// (hierarchical_wheel by default; min_heap, flat_wheel or a wheel of another shape through an alias template).
/// Producer members (any thread): insert, try_insert, cancel, reschedule, try_reschedule. Loop members (the owning
/// thread only): advance, next_expiration, drain, queue, size, now, stats.
///
/// Contract: as concurrent_service's. Requests from one thread apply in the order they were made, requests from
/// several in the order they took the inbox's lock (so timers due at the same tick fire in that order); a cancel
/// or reschedule that reaches the loop before its timer fires means what it says, even before the insert was
/// applied. advance(to) first applies every waiting request, so a timer due at or before `to` that was inserted
/// before the call fires in it; one inserted from a callback waits for the next advance. The loop calls
/// next_expiration() right before it sleeps: a later request due before the answer calls the wake-up hook, once
/// per sleep.
///
///     timing_wheel::eventfd_wakeup wake;
///     timing_wheel::concurrent_queue<order_id> timeouts(std::ref(wake));
///     auto h = timeouts.insert(deadline, id);                  // from any thread
///     timeouts.reschedule(h, deadline + 500);                  // from any thread
///     for (;;) {                                               // the loop thread
///       const std::optional<tick> next = timeouts.next_expiration();
///       wait_until(next);                                       // e.g. epoll on wake.fd() with a timeout
///       wake.clear();
///       timeouts.advance(current_tick(), [](tick due, order_id&& id) { /* ... */ });
///     }
template <class T, template <class> class Queue = detail::default_service_queue>
class concurrent_queue {
  using entry = detail::remote_entry<T>;

 public:
  using value_type = T;             ///< the payload
  using queue_type = Queue<entry>;  ///< the queue the loop owns

  /// Effects: a front end whose loop is woken by calling `wake` (from the producer's thread, outside any lock),
  /// over an empty queue whose now() is `start`, with a growable inbox.
  explicit concurrent_queue(std::function<void()> wake, tick start = 0)
      : m_queue(start), m_loop(std::move(wake), SIZE_MAX) {}
  /// Effects: as above, with at most `bound.requests` requests waiting.
  concurrent_queue(std::function<void()> wake, inbox_capacity bound, tick start = 0)
      : m_queue(start), m_loop(std::move(wake), bound.requests) {}
  concurrent_queue(const concurrent_queue&) = delete;
  concurrent_queue& operator=(const concurrent_queue&) = delete;
  ~concurrent_queue() = default;

  /// Any thread. Effects: asks the loop to insert `value` due at `deadline` (a past deadline is due at the loop's
  /// now()). Returns: its handle, usable at once. Throws: std::length_error when a bounded inbox is full (the
  /// payload is lost: use try_insert to keep it), bad_alloc.
  remote_handle insert(tick deadline, T value) {
    try_schedule_result<T> result = try_insert(deadline, std::move(value));
    if (!result) detail::throw_inbox_full();
    return result.handle;
  }
  /// Any thread. Effects: as insert, but a full bounded inbox hands the payload back in `.rejected`.
  try_schedule_result<T> try_insert(tick deadline, T value) {
    std::optional<T> held(std::in_place, std::move(value));
    const remote_handle handle = m_loop.inbox().push_schedule(deadline, deadline, held);
    return {handle, std::move(held)};
  }
  /// Any thread. Effects: asks the loop to cancel the timer; its payload is destroyed on the loop thread. A handle
  /// whose timer has fired or been cancelled by then is ignored.
  void cancel(remote_handle handle) {
    static_cast<void>(m_loop.inbox().push(detail::request_kind::cancel, handle, 0, UINT64_MAX, false));
  }
  /// Any thread. Effects: asks the loop to move the timer to `deadline`, as a new insertion (ignored if it has fired
  /// or been cancelled by then).
  void reschedule(remote_handle handle, tick deadline) {
    static_cast<void>(m_loop.inbox().push(detail::request_kind::reschedule, handle, deadline, deadline, false));
  }
  /// Any thread. Effects: as reschedule. Returns: false, asking nothing, when a bounded inbox is full.
  bool try_reschedule(remote_handle handle, tick deadline) {
    return m_loop.inbox().push(detail::request_kind::reschedule, handle, deadline, deadline, true);
  }

  /// Loop thread. Effects: applies every waiting request, then queue().advance(to, ...), calling on_expire(tick,
  /// T&&) or on_expire(T&&) for each timer due by `to`, in the queue's order. Returns: how many fired. If on_expire
  /// throws, as the queue's advance: its timer counts as fired, the rest stay pending.
  template <class F>
  requires expiry_callback<F, T> std::size_t advance(tick to, F&& on_expire) {
    apply();
    return m_queue.advance(to, [this, &on_expire](tick due, entry&& fired) {
      m_loop.done(fired.record);
      detail::invoke_expiry<T>(on_expire, due, std::move(fired.value));
    });
  }

  /// Loop thread, right before it sleeps. Effects: applies what waits, and announces the tick it returns as the
  /// loop's wake-up, so that a request due earlier wakes it. Returns: the queue's next_expiration(), or nullopt
  /// (sleep until a request wakes the loop).
  [[nodiscard]] std::optional<tick> next_expiration() {
    for (;;) {
      apply();
      const std::optional<tick> next = m_queue.next_expiration();
      if (m_loop.inbox().announce_sleep(next)) return next;
    }
  }

  /// Loop thread, at shutdown (after the producers stop). Effects: applies what waits, then hands every pending
  /// payload to f(tick, T&&) or f(T&&) in fire order; the front end is empty afterwards.
  template <class F>
  requires expiry_callback<F, T>
  void drain(F&& f) {
    apply();
    m_queue.drain([this, &f](tick due, entry&& pending) {
      m_loop.done(pending.record);
      detail::invoke_expiry<T>(f, due, std::move(pending.value));
    });
  }

  /// Loop thread. Returns: the queue underneath (for queries; timers inserted into it directly are the loop's own).
  [[nodiscard]] queue_type& queue() noexcept { return m_queue; }
  /// Loop thread. Returns: pending timers, requests not yet applied excluded.
  [[nodiscard]] std::size_t size() const noexcept { return m_queue.size(); }
  /// Loop thread. Returns: the queue's now().
  [[nodiscard]] tick now() const noexcept { return m_queue.now(); }
  /// Loop thread. Returns: what has been counted (wake-ups: by the producers, read under the inbox lock).
  [[nodiscard]] concurrent_stats stats() const { return m_loop.stats(); }

 private:
  void apply() {
    m_loop.apply(m_queue, [this](tick deadline, T&& value, std::uint32_t record) {
      return m_queue.emplace(deadline, std::move(value), record);
    });
  }

  queue_type m_queue;  // the loop's
  detail::remote_loop<T, tick> m_loop;
};

TIMING_WHEEL_NAMESPACE_END
