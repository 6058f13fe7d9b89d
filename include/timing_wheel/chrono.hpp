// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

// The std::chrono front end (opt-in): time points and durations in, ticks underneath, and the sleep an event loop
// may take. Stands on the timer_queue contract; the default queue is the exact hierarchical wheel.

#include <timing_wheel/detail/config.hpp>
#include <timing_wheel/hierarchical_wheel.hpp>
#include <timing_wheel/timer_queue.hpp>

#include <chrono>
#include <climits>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <ratio>
#include <type_traits>
#include <utility>
#include <vector>

TIMING_WHEEL_NAMESPACE_BEGIN

/// What a periodic timer does when the loop polls late and one or more of its periods have passed unfired.
enum class missed_period {
  /// Fire once for every missed period (each with its own due time), at most `burst_limit` times per poll; past
  /// the limit, as skip.
  burst,
  /// Fire once, then continue at the next multiple of the period after the poll's time.
  skip,
  /// Fire once, then restart the period from the poll's time.
  delay,
};

/// Names one periodic timer of one timer_service. Stays valid across firings until the timer is cancelled or
/// retires; a default-constructed handle is never pending.
struct periodic_handle {
  std::uint32_t index = 0;       ///< its periodic record in the service
  std::uint32_t generation = 0;  ///< that record's generation (odd while in use)

  /// Handles are equal when they name the same record and generation.
  friend constexpr bool operator==(periodic_handle, periodic_handle) noexcept = default;
};

namespace detail {
inline constexpr std::uint32_t not_periodic = UINT32_MAX;

template <class T>
struct service_entry {
  T value;
  std::uint32_t periodic;  // index of its periodic record, or not_periodic

  service_entry(T&& v, std::uint32_t record) : value(std::move(v)), periodic(record) {}
  // A one-shot timer's payload built in place (timer_service::emplace_at).
  template <class... Args>
  explicit service_entry(std::in_place_t, Args&&... args)
      : value(std::forward<Args>(args)...), periodic(not_periodic) {}
};

template <class U>
using default_service_queue = hierarchical_wheel<U>;

// t + d, stopping at the ends of the clock instead of overflowing.
template <class TimePoint>
[[nodiscard]] constexpr TimePoint saturating_add(TimePoint t, typename TimePoint::duration d) noexcept {
  using duration = typename TimePoint::duration;
  if (d > duration::zero() && t > TimePoint::max() - d) return TimePoint::max();
  if (d < duration::zero() && t < TimePoint::min() - d) return TimePoint::min();
  return t + d;
}
}  // namespace detail

/// Returns: the timeout, in milliseconds, to give epoll_wait (or poll) for a wait of `wait`: -1 (sleep until an
/// event) when nothing is pending, 0 when something is due, otherwise the wait rounded up to whole milliseconds,
/// at least 1 and at most `cap`. A timer that is not yet due never yields 0, so the loop does not spin.
template <class Rep, class Period>
[[nodiscard]] int epoll_timeout_ms(std::optional<std::chrono::duration<Rep, Period>> wait,
                                   std::chrono::milliseconds cap = std::chrono::milliseconds(INT_MAX)) noexcept {
  if (!wait) return -1;
  if (*wait <= std::chrono::duration<Rep, Period>::zero()) return 0;
  const auto limit =
      std::max<std::chrono::milliseconds::rep>(1, std::min<std::chrono::milliseconds::rep>(cap.count(), INT_MAX));
  // Converted the way that divides, never multiplies: a 32-bit count of nanoseconds holds no INT_MAX milliseconds,
  // and a count of hours may hold more milliseconds than an int64 does.
  if constexpr (std::ratio_greater_v<Period, std::milli>) {
    if (*wait > std::chrono::floor<std::chrono::duration<Rep, Period>>(std::chrono::milliseconds(limit))) {
      return static_cast<int>(limit);
    }
  }
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(*wait).count();
  return static_cast<int>(std::clamp<std::chrono::milliseconds::rep>(ms, 1, limit));
}

/// Timers on a std::chrono clock: one-shot and periodic, any payload, over any timer_queue (default: the exact
/// hierarchical wheel). Time point t maps to tick ceil((t - epoch) / resolution), so a timer never fires before its
/// time point: poll(now) fires the timers whose tick is at or before floor((now - epoch) / resolution), in the
/// queue's order (for the exact wheel: due time, then insertion). The resolution is any positive duration.
///
/// A clock that steps backwards (a bad clock, a VM migration) fires nothing and loses nothing: the ticks already
/// passed stay passed, and timers fire once the clock comes back past their time. Time points before the epoch
/// count as the epoch; time points further from the epoch than duration::max() (an epoch near the start of the clock)
/// fire at a poll at time_point::max(). Single-threaded, like the queues.
///
///     timing_wheel::timer_service<std::function<void()>> timers;   // 1 ms resolution, steady_clock
///     timers.schedule_after(std::chrono::seconds(30), [] { /* idle timeout */ });
///     timers.schedule_every(std::chrono::seconds(1), std::chrono::steady_clock::now(), [] { /* heartbeat */ });
///     for (;;) {  // the event loop
///       wait_for_io(timing_wheel::epoll_timeout_ms(timers.time_until_next(std::chrono::steady_clock::now())));
///       timers.poll(std::chrono::steady_clock::now());   // invokes what is due
///     }
template <class T, class Clock = std::chrono::steady_clock, class Resolution = std::chrono::milliseconds,
          template <class> class Queue = detail::default_service_queue>
class timer_service {
 public:
  using value_type = T;                                ///< the payload
  using clock = Clock;                                 ///< the clock time points come from
  using time_point = typename Clock::time_point;       ///< the clock's time point
  using duration = typename Clock::duration;           ///< the clock's duration
  using resolution_type = Resolution;                  ///< the type of one tick's length
  using queue_type = Queue<detail::service_entry<T>>;  ///< the queue underneath
  static_assert(timer_queue<queue_type>, "Queue<U> must be a timer_queue");
  static_assert(std::is_integral_v<typename duration::rep> && std::is_integral_v<typename Resolution::rep>,
                "timer_service counts time in integers: the clock's and the resolution's rep must be integral");
  static_assert(std::ratio_divide<typename Resolution::period, typename duration::period>::num <=
                    INTMAX_MAX / std::ratio_divide<typename Resolution::period, typename duration::period>::den,
                "the ratio between the resolution's period and the clock's is too fine to convert exactly");

  /// Effects: a service whose tick 0 is `epoch`, one tick lasting `resolution`. Requires: resolution > 0
  /// (asserted); in a build without assertions, a resolution that is not positive is taken as Resolution(1).
  explicit timer_service(time_point epoch = Clock::now(), Resolution resolution = Resolution(1))
      : m_epoch(epoch), m_resolution(resolution > Resolution::zero() ? resolution : Resolution(1)) {
    TIMING_WHEEL_ASSERT(resolution > Resolution::zero(), "timer_service needs a positive resolution");
  }

  /// Effects: schedules `value` to fire at the first poll at or after `when` (a past `when` is due at the next
  /// poll). Returns: its handle. Complexity: the queue's insert, O(1) for the wheels.
  timer_handle schedule_at(time_point when, T value) {
    return m_queue.insert(tick_at_or_after(when), entry{std::move(value), detail::not_periodic});
  }

  /// As schedule_at, constructing the payload in place from `args`: if the queue cannot allocate, bad_alloc leaves
  /// `args` untouched (an rvalue passed in is not moved from) and the service unchanged.
  template <class... Args>
  timer_handle emplace_at(time_point when, Args&&... args) {
    return m_queue.emplace(tick_at_or_after(when), std::in_place, std::forward<Args>(args)...);
  }

  /// Effects: schedule_at(Clock::now() + delay, value), saturating at the end of the clock's range.
  timer_handle schedule_after(duration delay, T value) {
    return schedule_at(detail::saturating_add(Clock::now(), delay), std::move(value));
  }

  /// Effects: a periodic timer firing at first, first + period, first + 2 * period, ... (each due time computed from
  /// the previous due time, so it never drifts), until cancelled, or until the next due time would pass the end of
  /// the clock's or the tick range (it retires then). `policy` says what a late poll does with missed periods.
  /// A period shorter than the resolution (or not positive) is taken as the resolution, rounded up to the clock's
  /// unit: the timer fires once a tick, in every build (period() tells the period in use).
  /// Returns: a handle valid across firings.
  periodic_handle schedule_every(duration period, time_point first, T value, missed_period policy = missed_period::skip,
                                 std::size_t burst_limit = 16) {
    const std::uint32_t index = acquire_record();
    periodic_record& record = m_periodic[index];
    record.due = first;
    record.period = period_fits(period) ? period : shortest_period();
    record.policy = policy;
    record.burst_limit = std::max<std::size_t>(burst_limit, 1);
#if TIMING_WHEEL_HAS_EXCEPTIONS
    try {
      record.current = m_queue.insert(tick_at_or_after(first), entry{std::move(value), index});
    } catch (...) {
      release_record(index);
      throw;
    }
#else
    record.current = m_queue.insert(tick_at_or_after(first), entry{std::move(value), index});
#endif
    return periodic_handle{index, record.generation};
  }

  /// Effects: cancels a pending one-shot timer. Returns: its payload, or nullopt if `handle` is not pending.
  std::optional<T> cancel(timer_handle handle) {
    std::optional<entry> taken = m_queue.cancel(handle);
    if (!taken) return std::nullopt;
    return std::optional<T>(std::in_place, std::move(taken->value));
  }

  /// Effects: stops a periodic timer; from inside its own callback, it does not fire again and its payload is
  /// destroyed when the callback returns. Returns: false, changing nothing, if `handle` is not pending.
  bool cancel(periodic_handle handle) {
    if (!pending(handle)) return false;
    periodic_record& record = m_periodic[handle.index];
    if (record.firing) {
      record.cancelled = true;
      return true;
    }
    static_cast<void>(m_queue.cancel(record.current));
    release_record(handle.index);
    return true;
  }

  /// Effects: moves a pending one-shot timer to `when`, as a new insertion. Returns: false if not pending.
  bool reschedule(timer_handle handle, time_point when) { return m_queue.reschedule(handle, tick_at_or_after(when)); }

  /// Effects: restarts a periodic timer: it next fires at `first`, then every period after it (from inside its own
  /// callback too). Returns: false, changing nothing, if `handle` is not pending.
  bool reschedule(periodic_handle handle, time_point first) {
    if (!pending(handle)) return false;
    periodic_record& record = m_periodic[handle.index];
    record.due = first;
    if (record.firing) {
      record.restarted = true;
      return true;
    }
    return m_queue.reschedule(record.current, tick_at_or_after(first));
  }

  /// Effects: a periodic timer repeats every `period` from its next rearming on: its next due time stays as it
  /// is, the ones after follow the new period (from inside its own callback, the next due time already does), as
  /// libuv's uv_timer_set_repeat. Returns: false, changing nothing, if `handle` is not pending or `period` is
  /// shorter than the resolution (or not positive).
  bool set_period(periodic_handle handle, duration period) {
    if (!pending(handle) || !period_fits(period)) return false;
    m_periodic[handle.index].period = period;
    return true;
  }

  /// Effects: what a late poll does with this periodic timer's missed periods from now on (see missed_period);
  /// `burst_limit` is taken as at least 1. Returns: false, changing nothing, if `handle` is not pending.
  bool set_missed_period(periodic_handle handle, missed_period policy, std::size_t burst_limit = 16) {
    if (!pending(handle)) return false;
    m_periodic[handle.index].policy = policy;
    m_periodic[handle.index].burst_limit = std::max<std::size_t>(burst_limit, 1);
    return true;
  }

  /// Returns: a periodic timer's period, or nullopt if not pending.
  [[nodiscard]] std::optional<duration> period(periodic_handle handle) const noexcept {
    if (!pending(handle)) return std::nullopt;
    return m_periodic[handle.index].period;
  }

  /// Returns: whether the one-shot timer is still waiting to fire.
  [[nodiscard]] bool pending(timer_handle handle) const noexcept { return m_queue.pending(handle); }
  /// Returns: whether the periodic timer is still scheduled (true from inside its callback unless it cancelled).
  [[nodiscard]] bool pending(periodic_handle handle) const noexcept {
    return handle.index < m_periodic.size() && (handle.generation & 1U) != 0 &&
           m_periodic[handle.index].generation == handle.generation && !m_periodic[handle.index].cancelled;
  }
  /// Returns: the time point at which a one-shot timer becomes due (its tick's start), or nullopt if not pending.
  [[nodiscard]] std::optional<time_point> expiry(timer_handle handle) const noexcept {
    const std::optional<tick> at = m_queue.expiry(handle);
    if (!at) return std::nullopt;
    return time_of(*at);
  }
  /// Returns: the next due time of a periodic timer, or nullopt if not pending.
  [[nodiscard]] std::optional<time_point> next_due(periodic_handle handle) const noexcept {
    if (!pending(handle)) return std::nullopt;
    return m_periodic[handle.index].due;
  }
  /// Returns: the payload in place, or nullptr if not pending.
  [[nodiscard]] T* get(timer_handle handle) noexcept {
    entry* found = m_queue.get(handle);
    return found != nullptr ? std::addressof(found->value) : nullptr;
  }

  /// Effects: makes room for `timers` pending timers, `periodic` of them periodic, so that scheduling up to that
  /// many allocates nothing. Throws: bad_alloc.
  void reserve(std::size_t timers, std::size_t periodic = 0) {
    m_queue.reserve(timers);
    m_periodic.reserve(periodic);
  }

  /// Effects: hands every pending payload, one-shot and periodic, to f(T&&) in fire order and empties the service;
  /// every handle issued before is never pending again. f may not use the service. Requires: not called from a
  /// callback.
  template <class F>
  requires std::invocable<F&, T&&>
  void drain(F&& f) {
    m_queue.drain([&f](entry&& pending) { std::invoke(f, std::move(pending.value)); });
    clear();
  }

  /// Effects: cancels every timer, one-shot and periodic, destroying their payloads; every handle issued before is
  /// never pending again. Requires: not called from a callback (asserted).
  void clear() {
    m_queue.clear();
    m_free_record = detail::not_periodic;
    for (std::size_t index = m_periodic.size(); index-- > 0;) {
      const auto at = static_cast<std::uint32_t>(index);
      if ((m_periodic[at].generation & 1U) != 0) {
        release_record(at);
      } else {
        m_periodic[at].next_free = m_free_record;
        m_free_record = at;
      }
    }
  }

  /// Returns: pending timers, one-shot and periodic.
  [[nodiscard]] std::size_t size() const noexcept { return m_queue.size(); }
  /// Returns: size() == 0.
  [[nodiscard]] bool empty() const noexcept { return m_queue.empty(); }
  /// Returns: the time point of tick 0.
  [[nodiscard]] time_point epoch() const noexcept { return m_epoch; }
  /// Returns: the length of one tick.
  [[nodiscard]] Resolution resolution() const noexcept { return m_resolution; }
  /// Returns: the queue underneath (its ticks are this service's).
  [[nodiscard]] const queue_type& queue() const noexcept { return m_queue; }

  /// Returns: how long the loop may sleep from `now`: nullopt when nothing is pending, zero when a timer is due,
  /// otherwise the time until the next timer's tick rounded up to a whole Resolution unit (never early, never 0).
  [[nodiscard]] std::optional<Resolution> time_until_next(time_point now) const noexcept {
    const std::optional<tick> next = m_queue.next_expiration();
    if (!next) return std::nullopt;
    const time_point at = time_of(*next);
    if (at <= now) return Resolution::zero();
    return in_resolution(distance(now, at).span, true);
  }

  /// Returns: epoll_timeout_ms(time_until_next(now), cap).
  [[nodiscard]] int timeout_ms(time_point now,
                               std::chrono::milliseconds cap = std::chrono::milliseconds(INT_MAX)) const noexcept {
    return epoll_timeout_ms(time_until_next(now), cap);
  }

  /// Effects: fires every timer due at `now`, in order, calling on_fire(T&) or on_fire(time_point due, T&) (due:
  /// time_of() the tick it fires in, its time point rounded up to the resolution) with the payload in place (a one-shot
  /// payload may be moved from; it is destroyed afterwards). Callbacks may schedule, cancel and reschedule, their own
  /// timer included; what they make due by `now` fires in this poll. A `now` whose tick the service has already passed
  /// fires nothing. A poll at time_point::max() fires every pending timer: no later poll can come. If on_fire throws,
  /// its timer counts as fired (a periodic one is rearmed first), the exception propagates and the rest stay pending
  /// for the next poll. Returns: how many timers fired. Requires: not called from a callback.
  template <class F>
  requires std::invocable<F&, T&> || std::invocable<F&, time_point, T&> std::size_t poll(time_point now, F&& on_fire) {
    if (now < m_epoch) return 0;
    // Nothing comes after the clock's last time point: a poll there fires everything pending (the timers in its
    // last partial tick, and those a coarse queue rounded up past it), so none waits for a poll that cannot come.
    const tick to = now == time_point::max() ? UINT64_MAX : tick_at_or_before(now);
    ++m_poll_serial;
    return m_queue.advance(to, [this, &on_fire, to, now](tick at, entry&& fired) {
      if (fired.periodic == detail::not_periodic) {
        call(on_fire, at, fired.value);
      } else {
        fire_periodic(on_fire, at, to, now, fired);
      }
    });
  }

  /// Effects: as poll(now, f) with f invoking each due payload: payload().
  std::size_t poll(time_point now) requires std::invocable<T&> {
    return poll(now, [](T& payload) { std::invoke(payload); });
  }

  /// Effects: as poll(now, f) with f invoking each due payload with the context: payload(context).
  template <class Context>
  requires(!std::invocable<Context&, T&> && !std::invocable<Context&, time_point, T&> &&
           std::invocable<T&, Context&>) std::size_t poll(time_point now, Context&& context) {
    return poll(now, [&context](T& payload) { std::invoke(payload, context); });
  }

  /// Returns: the tick a time point falls in, rounded up (when a timer for it fires) or down (how far a poll
  /// reaches), and the time point a tick starts at.
  [[nodiscard]] tick tick_at_or_after(time_point when) const noexcept { return to_tick(when, true); }
  /// Returns: the tick `when` falls in, rounded down: how far a poll at `when` reaches.
  [[nodiscard]] tick tick_at_or_before(time_point when) const noexcept { return to_tick(when, false); }
  /// Returns: the time point tick `at` starts at (never before it), or time_point::max() past the clock's range.
  [[nodiscard]] time_point time_of(tick at) const noexcept {
    if (at == last_tick) return time_point::max();       // where due times past the tick range go
    const std::optional<duration> offset = span_of(at);  // rounded up: never before the tick's true start
    if (!offset || *offset > distance(m_epoch, time_point::max()).span) return time_point::max();
    return m_epoch + *offset;
  }

 private:
  using entry = detail::service_entry<T>;

  struct periodic_record {
    timer_handle current{};  // its timer in the queue, while not firing
    time_point due{};        // the due time it is scheduled for (while firing: of the firing)
    duration period{};
    missed_period policy = missed_period::skip;
    std::size_t burst_limit = 1;
    std::size_t fired_this_poll = 0;
    std::uint64_t poll_serial = 0;
    std::uint32_t generation = 0;  // odd while in use
    std::uint32_t next_free = detail::not_periodic;
    bool firing = false;
    bool cancelled = false;
    bool restarted = false;
  };

  template <class F>
  void call(F& on_fire, tick at, T& value) {
    if constexpr (std::is_invocable_v<F&, time_point, T&>) {
      std::invoke(on_fire, time_of(at), value);
    } else {
      std::invoke(on_fire, value);
    }
  }

  // Runs a periodic timer's callback, then puts it back in the queue for its next due time (or retires it).
  template <class F>
  void fire_periodic(F& on_fire, tick at, tick to, time_point now, entry& fired) {
    const std::uint32_t index = fired.periodic;
    {
      periodic_record& record = m_periodic[index];
      record.firing = true;
      record.current = timer_handle{};
      if (record.poll_serial != m_poll_serial) {
        record.poll_serial = m_poll_serial;
        record.fired_this_poll = 0;
      }
      ++record.fired_this_poll;
    }
#if TIMING_WHEEL_HAS_EXCEPTIONS
    try {
      call(on_fire, at, fired.value);
    } catch (...) {
      rearm(index, to, now, fired);
      throw;
    }
#else
    call(on_fire, at, fired.value);
#endif
    rearm(index, to, now, fired);
  }

  void rearm(std::uint32_t index, tick to, time_point now, entry& fired) {
    periodic_record& record = m_periodic[index];  // the callback may have grown m_periodic: look it up again
    record.firing = false;
    if (record.cancelled) {
      release_record(index);
      return;
    }
    std::optional<time_point> next;
    if (record.restarted) {
      record.restarted = false;
      next = record.due;
    } else {
      next = next_due(record, to, now);
    }
    if (!next) {
      release_record(index);
      return;
    }
    record.due = *next;
#if TIMING_WHEEL_HAS_EXCEPTIONS
    try {
      record.current = m_queue.insert(tick_at_or_after(*next), std::move(fired));
    } catch (...) {
      release_record(index);  // out of memory: it retires rather than leave a dangling handle
      throw;
    }
#else
    record.current = m_queue.insert(tick_at_or_after(*next), std::move(fired));
#endif
  }

  // The due time after record.due, applying the missed-period policy when it is already due by `to`.
  [[nodiscard]] std::optional<time_point> next_due(const periodic_record& record, tick to,
                                                   time_point now) const noexcept {
    const std::optional<time_point> following = add(record.due, record.period);
    if (!following || tick_at_or_after(*following) > to) return following;
    switch (record.policy) {
      case missed_period::burst:
        if (record.fired_this_poll < record.burst_limit) return following;
        [[fallthrough]];
      case missed_period::skip: {
        // The first due + k * period whose tick is after `to`, i.e. strictly after the start of tick `to`.
        const time_point reach = time_of(to);
        const std::uint64_t periods = static_cast<std::uint64_t>(distance(record.due, reach).span / record.period) + 1;
        std::optional<time_point> candidate = add_periods(record.due, record.period, periods);
        while (candidate && tick_at_or_after(*candidate) <= to) candidate = add(*candidate, record.period);
        return candidate;
      }
      case missed_period::delay:
        return add(std::max(now, record.due), record.period);
    }
    return std::nullopt;
  }

  // t + d, or nullopt past the end of the clock's range (a tick count of any Resolution reaches further).
  [[nodiscard]] static std::optional<time_point> add(time_point t, duration d) noexcept {
    if (t > time_point::max() - d) return std::nullopt;
    return t + d;
  }
  [[nodiscard]] static std::optional<time_point> add_periods(time_point t, duration period,
                                                             std::uint64_t count) noexcept {
    if (count > static_cast<std::uint64_t>(distance(t, time_point::max()).span / period)) return std::nullopt;
    return add(t, period * static_cast<typename duration::rep>(count));
  }

  // A period a periodic timer may have: positive and at least one resolution.
  [[nodiscard]] duration shortest_period() const noexcept {
    return std::max(span_of(1).value_or(duration::max()), duration(1));
  }
  [[nodiscard]] bool period_fits(duration period) const noexcept { return period >= shortest_period(); }

  // to - from for from <= to, saturated at duration::max() (an epoch near the start of the clock and a time point
  // near its end are further apart than a duration reaches).
  struct clock_distance {
    duration span;
    bool saturated;
  };
  [[nodiscard]] static clock_distance distance(time_point from, time_point to) noexcept {
    if (from.time_since_epoch() < duration::zero() &&
        to.time_since_epoch() > from.time_since_epoch() + duration::max()) {
      return {duration::max(), true};
    }
    return {to - from, false};
  }

  [[nodiscard]] tick to_tick(time_point when, bool round_up) const noexcept {
    if (when <= m_epoch) return 0;
    const clock_distance far = distance(m_epoch, when);
    const tick ticks = units_to_tick(far.span, round_up);
    // Beyond duration::max() from the epoch: after every tick a poll before time_point::max() reaches, and before
    // the one it reaches (time_of() answers max() for it), so such a timer fires at a poll at max(), never early.
    if (far.saturated && round_up && ticks != last_tick) return ticks + 1;
    return ticks;
  }

  // Conversions between clock units and resolution units, in unsigned integers: exact wherever the result fits,
  // saturated where it does not, never an overflow (a resolution finer than the clock's, a narrow rep, or a ratio
  // like a third of a second multiplies). For the usual case, ms or us on a nanosecond clock, a division by a
  // constant, and by `step` only when a tick is longer than one unit: a division instruction takes tens of cycles
  // (a conversion took 2.0 ns through std::chrono's rounding, 1.25 now).
  using clock_units_per_unit = std::ratio_divide<typename Resolution::period, typename duration::period>;
  static constexpr auto unit_num = static_cast<std::uint64_t>(clock_units_per_unit::num);
  static constexpr auto unit_den = static_cast<std::uint64_t>(clock_units_per_unit::den);
  static constexpr std::uint64_t too_many = UINT64_MAX;

  [[nodiscard]] static constexpr std::uint64_t divided(std::uint64_t n, std::uint64_t d, bool round_up) noexcept {
    return n / d + (round_up && n % d != 0 ? 1 : 0);
  }
  // A clock duration >= 0 in whole resolution units, rounded up or down; too_many when that does not fit.
  [[nodiscard]] static std::uint64_t units_in(duration span, bool round_up) noexcept {
    const auto count = static_cast<std::uint64_t>(span.count());
    if (unit_den > 1 && count > too_many / unit_den) return too_many;
    return divided(count * unit_den, unit_num, round_up);
  }
  // As units_in, as a Resolution, at most Resolution::max().
  [[nodiscard]] static Resolution in_resolution(duration span, bool round_up) noexcept {
    const std::uint64_t units = units_in(span, round_up);
    if (units > static_cast<std::uint64_t>(Resolution::max().count())) return Resolution::max();
    return Resolution(static_cast<typename Resolution::rep>(units));
  }
  // The clock duration `ticks` ticks last, rounded up; nullopt past duration::max().
  [[nodiscard]] std::optional<duration> span_of(tick ticks) const noexcept {
    const auto step = static_cast<std::uint64_t>(m_resolution.count());
    if (ticks > too_many / step) return std::nullopt;
    const std::uint64_t units = ticks * step;
    // units * num / den, rounded up, without forming units * num: (q * den + r) * num / den.
    const std::uint64_t whole = units / unit_den;
    const std::uint64_t part = units % unit_den;
    if (whole > too_many / unit_num) return std::nullopt;
    const std::uint64_t count = whole * unit_num + divided(part * unit_num, unit_den, true);
    if (count < whole * unit_num || count > static_cast<std::uint64_t>(duration::max().count())) return std::nullopt;
    return duration(static_cast<typename duration::rep>(count));
  }

  // The tick a due time rounds to when its count of ticks does not fit in one (a resolution finer than the
  // clock's, far from the epoch); a poll short of time_point::max() reaches the one before it, so such a timer
  // fires at a poll at max(), never early.
  static constexpr tick last_tick = UINT64_MAX;

  // Requires: since >= 0.
  [[nodiscard]] tick units_to_tick(duration since, bool round_up) const noexcept {
    const std::uint64_t units = units_in(since, round_up);
    if (units == too_many) return round_up ? last_tick : last_tick - 1;
    const auto step = static_cast<std::uint64_t>(m_resolution.count());
    if (step == 1) return units;
    return divided(units, step, round_up);
  }

  std::uint32_t acquire_record() {
    std::uint32_t index = m_free_record;
    if (index != detail::not_periodic) {
      m_free_record = m_periodic[index].next_free;
    } else {
      if (m_periodic.size() >= detail::not_periodic) detail::throw_bad_alloc();
      index = static_cast<std::uint32_t>(m_periodic.size());
      m_periodic.emplace_back();
    }
    periodic_record& record = m_periodic[index];
    const std::uint32_t generation = record.generation + 1;  // even (free) to odd (in use)
    record = periodic_record{};
    record.generation = generation;
    return index;
  }

  void release_record(std::uint32_t index) noexcept {
    periodic_record& record = m_periodic[index];
    ++record.generation;  // odd to even (UINT32_MAX wraps to 0)
    record.cancelled = false;
    record.firing = false;
    record.current = timer_handle{};
    record.next_free = m_free_record;
    m_free_record = index;
  }

  queue_type m_queue;
  time_point m_epoch;
  Resolution m_resolution;
  std::uint64_t m_poll_serial = 0;
  std::vector<periodic_record> m_periodic;
  std::uint32_t m_free_record = detail::not_periodic;
};

TIMING_WHEEL_NAMESPACE_END
