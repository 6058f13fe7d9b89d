// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

// What the engine integrations (asio_service.hpp, uv.hpp) share: a timer_service of type-erased callbacks, and the
// rule that keeps the engine's one timer armed at or before the next expiration. Each schedule or reschedule that
// may bring the next expiration forward calls `wait_until(at)` when the engine timer must move earlier (or is not
// armed); a later next expiration leaves it, costing at most one early wake-up that re-arms.

#include <timing_wheel/chrono.hpp>

#include <chrono>
#include <concepts>
#include <optional>
#include <type_traits>
#include <utility>

TIMING_WHEEL_NAMESPACE_BEGIN
namespace detail {

// A handler or callback a service can hold and call with `Args...`.
template <class F, class... Args>
concept loop_callback = std::invocable < std::decay_t<F>
&, Args... > &&std::move_constructible<std::decay_t<F>>;

template <class Callback, class Resolution>
class armed_service {
 public:
  using clock = std::chrono::steady_clock;
  using time_point = clock::time_point;
  using duration = clock::duration;
  using service_type = timer_service<Callback, clock, Resolution>;

  explicit armed_service(Resolution resolution) : m_service(clock::now(), resolution) {}

  template <class WaitUntil>
  timer_handle schedule_at(time_point when, Callback&& callback, WaitUntil&& wait_until) {
    const timer_handle handle = m_service.schedule_at(when, std::move(callback));
    arm(wait_until);
    return handle;
  }
  // The first firing one period from now.
  template <class WaitUntil>
  periodic_handle schedule_every(duration period, Callback&& callback, missed_period policy, WaitUntil&& wait_until) {
    const periodic_handle handle =
        m_service.schedule_every(period, saturating_add(clock::now(), period), std::move(callback), policy);
    arm(wait_until);
    return handle;
  }
  template <class WaitUntil>
  bool reschedule(timer_handle handle, time_point when, WaitUntil&& wait_until) {
    const bool moved = m_service.reschedule(handle, when);
    if (moved) arm(wait_until);
    return moved;
  }

  // Calls wait_until(at) if the engine timer must wake earlier than it is armed for (or is not armed).
  template <class WaitUntil>
  void arm(WaitUntil&& wait_until) {
    const std::optional<tick> next = m_service.queue().next_expiration();
    if (!next) return;
    const time_point at = m_service.time_of(*next);
    if (m_armed && m_armed_at <= at) return;
    m_armed = true;
    m_armed_at = at;
    wait_until(at);
  }
  // The engine timer fired or was stopped: the next arm() arms it whatever it was armed for.
  void disarm() noexcept { m_armed = false; }
  [[nodiscard]] bool armed() const noexcept { return m_armed; }

  [[nodiscard]] service_type& service() noexcept { return m_service; }
  [[nodiscard]] const service_type& service() const noexcept { return m_service; }

 private:
  service_type m_service;
  time_point m_armed_at{};
  bool m_armed = false;
};

}  // namespace detail
TIMING_WHEEL_NAMESPACE_END
