// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

// The Asio timer service, written once for standalone Asio and Boost.Asio: `Net` names the flavour's types. Include
// timing_wheel/asio.hpp or timing_wheel/boost_asio.hpp, which define it and include the engine; this file includes
// none.

#include <timing_wheel/chrono.hpp>
#include <timing_wheel/detail/armed_service.hpp>
#include <timing_wheel/detail/unique_function.hpp>

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

TIMING_WHEEL_NAMESPACE_BEGIN

/// Timers for an Asio executor, kept in a timer_service (a hierarchical wheel): schedule, reschedule and cancel are
/// O(1) and allocate at most the handler's own storage, where a `steady_timer` per timer pays O(log n) in Asio's
/// heap and an operation per `async_wait`. One `steady_timer`, armed at the next expiration, does the waiting.
///
/// A reschedule to a later time (an idle timeout reset on every read) only records the new time: the timer stays
/// queued for the earlier one and, when that comes, is queued again instead of firing. So it never fires early, a
/// reset costs a store, and the service may wake once at the earlier time with nothing to run. Handlers due at the
/// same time run in the order they were queued (a postponed one counts from when it is queued again).
///
/// Handlers are called as `handler(error_code)` on the service's executor: with a success code when due (never
/// before their time point), with `operation_aborted` when cancelled (posted, never called inside cancel()). A
/// periodic handler is called with success once a period and destroyed without a call when cancelled. Destroying
/// the service destroys every pending handler without calling it, as destroying an io_context does.
///
/// Threads: like Asio's own I/O objects, one service is used from one thread at a time: a single-threaded
/// io_context, or a strand of a multi-threaded one (pass the strand as the executor and call the service from
/// handlers running on it, or post to it). From other threads, post to get_executor(), or use concurrent.hpp's
/// concurrent_service with a hook that posts a poll.
///
/// `Queue<U>` is the queue underneath: the default `hierarchical_wheel<U>` allocates 0.7 MB of slot lists; for many
/// executors with few timers each, an alias template of `hierarchical_wheel<U, 8, 8>` (62 KB) or `min_heap<U>` keeps
/// each service small.
template <class Net, class Resolution = std::chrono::milliseconds,
          template <class> class Queue = detail::default_service_queue>
class basic_asio_timer_service {
 public:
  using executor_type = typename Net::executor_type;               ///< where handlers run and the steady_timer waits
  using error_code = typename Net::error_code;                     ///< what handlers are called with
  using clock = std::chrono::steady_clock;                         ///< Asio's steady_timer clock
  using time_point = clock::time_point;                            ///< a point of that clock
  using duration = clock::duration;                                ///< a length of that clock
  using handler_type = detail::unique_function<void(error_code)>;  ///< a handler, type-erased and move-only
  /// The timer_service underneath (its one-shot handles are its own, not this service's).
  using service_type = typename detail::armed_service<handler_type, Resolution, Queue>::service_type;

  /// Effects: a service on `executor` (an io_context's, or a strand), one tick per `resolution`.
  explicit basic_asio_timer_service(executor_type executor, Resolution resolution = Resolution(1))
      : m_core(resolution), m_timer(std::move(executor)) {}
  /// Effects: a service on `context.get_executor()` (an io_context), one tick per `resolution`.
  template <class Context>
  requires requires(Context& context) { executor_type(context.get_executor()); }
  explicit basic_asio_timer_service(Context& context, Resolution resolution = Resolution(1))
      : basic_asio_timer_service(executor_type(context.get_executor()), resolution) {}
  basic_asio_timer_service(const basic_asio_timer_service&) = delete;
  basic_asio_timer_service& operator=(const basic_asio_timer_service&) = delete;
  /// Effects: cancels the wait; every pending handler is destroyed without being called.
  ~basic_asio_timer_service() = default;

  /// Returns: the executor handlers run on.
  [[nodiscard]] executor_type get_executor() const noexcept { return m_timer.get_executor(); }

  /// Effects: calls handler(error_code{}) on the executor at the first moment at or after `when` (a past `when`: as
  /// soon as the executor runs it), unless cancelled first. Returns: its handle. Throws: bad_alloc.
  template <detail::loop_callback<error_code> Handler>
  timer_handle schedule_at(time_point when, Handler&& handler) {
    return m_core.schedule_at(when, handler_type(std::forward<Handler>(handler)), wait_until());
  }
  /// Effects: schedule_at(clock::now() + delay, handler), saturating at the end of the clock.
  template <detail::loop_callback<error_code> Handler>
  timer_handle schedule_after(duration delay, Handler&& handler) {
    return schedule_at(detail::saturating_add(clock::now(), delay), std::forward<Handler>(handler));
  }
  /// Effects: calls handler(error_code{}) every `period` from now + period, as timer_service::schedule_every
  /// (never drifting; `policy` says what a late wake-up does with missed periods). Returns: its handle.
  template <detail::loop_callback<error_code> Handler>
  periodic_handle schedule_every(duration period, Handler&& handler, missed_period policy = missed_period::skip) {
    return m_core.schedule_every(period, clock::now(), handler_type(std::forward<Handler>(handler)), policy,
                                 wait_until());
  }

  /// Effects: moves a pending timer to `when`; its handler stays. A later time is recorded (a store), an earlier one
  /// moves it in the wheel (O(1)). Returns: false if it is not pending.
  bool reschedule(timer_handle handle, time_point when) { return m_core.reschedule(handle, when, wait_until()); }
  /// Effects: reschedule(handle, clock::now() + delay): the idle-timeout reset.
  bool reschedule_after(timer_handle handle, duration delay) {
    return m_core.reschedule_after(handle, delay, wait_until());
  }
  /// Effects: cancels a pending timer: its handler is posted to the executor with `operation_aborted`.
  /// Returns: false (nothing posted) if it is not pending.
  bool cancel(timer_handle handle) {
    std::optional<handler_type> cancelled = m_core.cancel(handle);
    if (!cancelled) return false;
    abort(std::move(*cancelled));
    return true;
  }
  /// Effects: cancels a periodic timer; its handler is destroyed without a call. Returns: false if not pending.
  bool cancel(periodic_handle handle) { return m_core.cancel(handle); }
  /// Effects: cancels every pending timer, periodic ones included: each handler is posted once with
  /// `operation_aborted`. Returns: how many.
  std::size_t cancel_all() {
    std::vector<handler_type> cancelled;
    cancelled.reserve(size());
    m_core.drain([&cancelled](handler_type&& handler) { cancelled.push_back(std::move(handler)); });
    for (handler_type& handler : cancelled) abort(std::move(handler));
    return cancelled.size();
  }

  /// Returns: pending timers.
  [[nodiscard]] std::size_t size() const noexcept { return m_core.size(); }
  /// Returns: whether the one-shot timer is still waiting to fire.
  [[nodiscard]] bool pending(timer_handle handle) const noexcept { return m_core.pending(handle); }
  /// Returns: the time point a pending one-shot timer is due at (the last one it was scheduled or moved to), or
  /// nullopt if not pending.
  [[nodiscard]] std::optional<time_point> expiry(timer_handle handle) const noexcept { return m_core.expiry(handle); }
  /// Returns: the timer_service underneath, for the periodic timers' queries (period, next_due).
  [[nodiscard]] const service_type& service() const noexcept { return m_core.service(); }
  /// Makes room for `timers` timers (and `periodic` periodic ones) without allocating later. Throws: bad_alloc.
  void reserve(std::size_t timers, std::size_t periodic = 0) { m_core.reserve(timers, periodic); }

 private:
  // Arms the steady_timer at `at`; the wait outstanding, if any, completes with operation_aborted and is ignored.
  [[nodiscard]] auto wait_until() noexcept {
    return [this](time_point at) {
      m_timer.expires_at(at);
      const std::uint64_t wait = ++m_waits;
      m_timer.async_wait([this, alive = std::weak_ptr<const bool>(m_alive), wait](const error_code& ec) {
        if (alive.expired() || ec == Net::operation_aborted() || wait != m_waits) return;
        m_core.disarm();
        fire();
      });
    };
  }

  void fire() {
    struct rearm_on_exit {  // a throwing handler propagates out of run(), as in Asio; the rest stay armed
      basic_asio_timer_service& service;
      explicit rearm_on_exit(basic_asio_timer_service& owner) noexcept : service(owner) {}
      rearm_on_exit(const rearm_on_exit&) = delete;
      rearm_on_exit& operator=(const rearm_on_exit&) = delete;
      ~rearm_on_exit() { service.m_core.arm(service.wait_until()); }
    } rearm{*this};
    m_core.poll(clock::now(), [](handler_type& handler) { handler(error_code{}); });
  }

  void abort(handler_type&& handler) {
    Net::post(m_timer.get_executor(),
              [handler = std::move(handler)]() mutable { handler(error_code(Net::operation_aborted())); });
  }

  detail::armed_service<handler_type, Resolution, Queue> m_core;
  typename Net::steady_timer m_timer;
  std::shared_ptr<const bool> m_alive =
      std::make_shared<const bool>(true);  // a wait outliving the service sees it gone
  std::uint64_t m_waits = 0;               // numbers the waits: only the latest may fire
};

TIMING_WHEEL_NAMESPACE_END
