// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

// Opt-in integration with libuv (Debian libuv1-dev): uv_timer_service, timers on a uv_loop_t backed by the
// hierarchical wheel, with one uv_timer_t armed at the next expiration doing the waiting.

#include <timing_wheel/chrono.hpp>
#include <timing_wheel/detail/armed_service.hpp>
#include <timing_wheel/detail/config.hpp>
#include <timing_wheel/detail/unique_function.hpp>

#include <uv.h>

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

TIMING_WHEEL_NAMESPACE_BEGIN

/// Timers for a libuv loop, kept in a timer_service (a hierarchical wheel): schedule, reschedule and cancel are
/// O(1), where a uv_timer_t per timer pays O(log n) in the loop's heap. Callbacks are called as `callback()` on the
/// loop's thread, never before their time point (relative times count from the clock, not from the loop's cached
/// time as uv_timer_start's do: never early by the time the loop has been busy). cancel() destroys a callback without
/// calling it, as uv_timer_stop() drops a timer. While no timer is pending the service's handle is stopped, so
/// uv_run() returns when nothing else is active; destroying (or close()-ing) the service destroys what is pending
/// and closes the handle, which the loop frees on its next iteration, as uv_close() requires. Single-threaded, like
/// the loop: from other threads use concurrent.hpp with a uv_async_t as the wake-up hook.
///
/// A reschedule to a later time (an idle timeout reset on every read) only records the new time: the timer stays
/// queued for the earlier one and, when that comes, is queued again instead of firing. So it never fires early, a
/// reset costs a store, and the service may wake once at the earlier time with nothing to run. Callbacks due at the
/// same time run in the order they were queued (a postponed one counts from when it is queued again).
///
///     uv_loop_t* loop = uv_default_loop();
///     timing_wheel::uv_timer_service<> timers(loop);
///     auto h = timers.schedule_after(std::chrono::seconds(30), [] { /* idle: close the stream */ });
///     timers.reschedule_after(h, std::chrono::seconds(30));   // on every read: O(1)
///     uv_run(loop, UV_RUN_DEFAULT);
///
/// `Queue<U>` is the queue underneath: the default `hierarchical_wheel<U>` allocates 0.7 MB of slot lists; for many
/// loops with few timers each, an alias template of `hierarchical_wheel<U, 8, 8>` (62 KB) or `min_heap<U>` keeps each
/// service small.
template <class Resolution = std::chrono::milliseconds, template <class> class Queue = detail::default_service_queue>
class uv_timer_service {
 public:
  using clock = std::chrono::steady_clock;                ///< the clock time points come from
  using time_point = clock::time_point;                   ///< a point of that clock
  using duration = clock::duration;                       ///< a length of that clock
  using callback_type = detail::unique_function<void()>;  ///< a callback, type-erased and move-only
  /// The timer_service underneath (its one-shot handles are its own, not this service's).
  using service_type = typename detail::armed_service<callback_type, Resolution, Queue>::service_type;

  /// Effects: a service on `loop`, one tick per `resolution`. Throws: bad_alloc (also if uv_timer_init fails).
  explicit uv_timer_service(uv_loop_t* loop, Resolution resolution = Resolution(1))
      : m_core(resolution), m_handle(new uv_timer_t) {
    if (uv_timer_init(loop, m_handle) != 0) {
      delete m_handle;
      detail::throw_bad_alloc();
    }
    m_handle->data = this;
  }
  uv_timer_service(const uv_timer_service&) = delete;
  uv_timer_service& operator=(const uv_timer_service&) = delete;
  /// Effects: close().
  ~uv_timer_service() { close(); }

  /// Effects: destroys every pending callback without calling it and closes the handle (freed by the loop on its
  /// next iteration). The service may not schedule again. Idempotent.
  void close() noexcept {
    if (m_handle == nullptr) return;
    m_handle->data = nullptr;
    uv_close(reinterpret_cast<uv_handle_t*>(m_handle),
             [](uv_handle_t* handle) { delete reinterpret_cast<uv_timer_t*>(handle); });
    m_handle = nullptr;
    m_core.clear();
  }

  /// Effects: calls callback() on the loop at the first moment at or after `when`, unless cancelled first.
  /// Returns: its handle. Requires: not closed (asserted). Throws: bad_alloc.
  template <detail::loop_callback Callback>
  timer_handle schedule_at(time_point when, Callback&& callback) {
    TIMING_WHEEL_ASSERT(m_handle != nullptr, "uv_timer_service used after close()");
    return m_core.schedule_at(when, callback_type(std::forward<Callback>(callback)), wait_until());
  }
  /// Effects: schedule_at(clock::now() + delay, callback), saturating at the end of the clock.
  template <detail::loop_callback Callback>
  timer_handle schedule_after(duration delay, Callback&& callback) {
    return schedule_at(detail::saturating_add(clock::now(), delay), std::forward<Callback>(callback));
  }
  /// Effects: calls callback() every `period` from now + period, as timer_service::schedule_every.
  /// Returns: its handle. Requires: not closed (asserted).
  template <detail::loop_callback Callback>
  periodic_handle schedule_every(duration period, Callback&& callback, missed_period policy = missed_period::skip) {
    TIMING_WHEEL_ASSERT(m_handle != nullptr, "uv_timer_service used after close()");
    return m_core.schedule_every(period, clock::now(), callback_type(std::forward<Callback>(callback)), policy,
                                 wait_until());
  }

  /// Effects: moves a pending timer to `when`. A later time is recorded (a store), an earlier one moves it in the
  /// wheel (O(1)). Returns: false if it is not pending.
  bool reschedule(timer_handle handle, time_point when) { return m_core.reschedule(handle, when, wait_until()); }
  /// Effects: reschedule(handle, clock::now() + delay): the idle-timeout reset. Returns: false if not pending.
  bool reschedule_after(timer_handle handle, duration delay) {
    return m_core.reschedule_after(handle, delay, wait_until());
  }
  /// Effects: cancels a pending timer, destroying its callback without a call. Returns: false if not pending.
  bool cancel(timer_handle handle) { return stop_if_empty(m_core.cancel(handle).has_value()); }
  /// Effects: as cancel, for a periodic timer.
  bool cancel(periodic_handle handle) { return stop_if_empty(m_core.cancel(handle)); }

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
  // Starts the handle to wake at `at`. libuv counts whole milliseconds of its cached loop time, so it may wake a
  // little early: the poll then fires nothing and re-arms.
  [[nodiscard]] auto wait_until() noexcept {
    return [this](time_point at) {
      if (m_handle == nullptr) return;
      const auto wait = std::chrono::ceil<std::chrono::milliseconds>(std::max(at - clock::now(), duration::zero()));
      uv_timer_start(m_handle, &uv_timer_service::on_timer, static_cast<std::uint64_t>(wait.count()), 0);
    };
  }

  // With nothing pending the handle stops, so that uv_run can return. Returns: `cancelled`.
  bool stop_if_empty(bool cancelled) noexcept {
    if (cancelled && size() == 0 && m_handle != nullptr && m_core.armed()) {
      uv_timer_stop(m_handle);
      m_core.disarm();
    }
    return cancelled;
  }

  static void on_timer(uv_timer_t* handle) {
    auto* self = static_cast<uv_timer_service*>(handle->data);
    if (self == nullptr) return;
    self->m_core.disarm();
    struct rearm_on_exit {  // a callback that throws leaves the rest armed
      uv_timer_service& service;
      explicit rearm_on_exit(uv_timer_service& owner) noexcept : service(owner) {}
      rearm_on_exit(const rearm_on_exit&) = delete;
      rearm_on_exit& operator=(const rearm_on_exit&) = delete;
      ~rearm_on_exit() { service.m_core.arm(service.wait_until()); }
    } rearm{*self};
    self->m_core.poll(clock::now(), [](callback_type& callback) { callback(); });
  }

  detail::armed_service<callback_type, Resolution, Queue> m_core;
  uv_timer_t* m_handle;  // owned until close() hands it to uv_close
};

TIMING_WHEEL_NAMESPACE_END
