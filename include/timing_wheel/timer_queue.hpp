// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

// The contract every queue keeps (the timer_queue concept) and scoped_timer, which owns a timer of any of them.

#include <timing_wheel/types.hpp>

#include <concepts>
#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>

TIMING_WHEEL_NAMESPACE_BEGIN

/// Owns one timer of a queue (or of a timer_service, with Handle = periodic_handle for a periodic one) and cancels
/// it when it goes out of scope, as RAII event objects do. Movable, not copyable; release() gives up ownership and
/// returns the handle, so the timer stays scheduled. A timer that has fired or been cancelled by other means is
/// simply not pending: destroying its owner does nothing. Requires: the queue outlives its scoped_timer objects (or
/// they are released first); the payload's move does not throw (cancel runs in the destructor).
///
///     timing_wheel::scoped_timer guard(timers, timers.insert(deadline, "request timeout"));
///     // ... the request completes before the deadline: guard's destructor cancels the timer.
template <class Owner, class Handle = timer_handle>
class scoped_timer {
 public:
  scoped_timer() noexcept = default;
  /// Effects: owns `handle`, a timer of `owner`.
  scoped_timer(Owner& owner, Handle handle) noexcept : m_owner(&owner), m_handle(handle) {}
  scoped_timer(const scoped_timer&) = delete;
  scoped_timer& operator=(const scoped_timer&) = delete;
  /// Effects: takes over what `other` owned; `other` owns nothing.
  scoped_timer(scoped_timer&& other) noexcept : m_owner(other.m_owner), m_handle(other.release()) {}
  /// Effects: cancels the timer owned so far (if pending), then takes over `other`'s.
  scoped_timer& operator=(scoped_timer&& other) noexcept {
    if (this != &other) {
      reset();
      m_owner = other.m_owner;
      m_handle = other.release();
    }
    return *this;
  }
  ~scoped_timer() { reset(); }

  /// Effects: cancels the owned timer if it is still pending, and owns nothing.
  void reset() noexcept {
    if (m_owner != nullptr && m_owner->pending(m_handle)) static_cast<void>(m_owner->cancel(m_handle));
    m_owner = nullptr;
    m_handle = Handle{};
  }
  /// Effects: stops owning the timer, which stays scheduled. Returns: its handle.
  Handle release() noexcept {
    m_owner = nullptr;
    return std::exchange(m_handle, Handle{});
  }
  /// Returns: the owned handle (a default one when nothing is owned).
  [[nodiscard]] Handle get() const noexcept { return m_handle; }
  /// Returns: whether the owned timer is still pending.
  [[nodiscard]] bool pending() const noexcept { return m_owner != nullptr && m_owner->pending(m_handle); }
  /// Returns: pending().
  explicit operator bool() const noexcept { return pending(); }

 private:
  Owner* m_owner = nullptr;
  Handle m_handle{};
};

namespace detail {
// Stands for any on_expire callback in the concept below.
template <class T>
struct expire_sink {
  void operator()(tick, T&&) const noexcept {}
};
}  // namespace detail

/// The contract shared by hierarchical_wheel, flat_wheel and min_heap (see README, "The contract").
template <class Q>
concept timer_queue = requires(Q& q, const Q& cq, tick t, timer_handle h, typename Q::value_type&& v,
                               detail::expire_sink<typename Q::value_type> sink) {
  typename Q::value_type;
  requires !std::is_copy_constructible_v<Q>;
  requires std::is_nothrow_move_constructible_v<Q>;
  { q.insert(t, std::move(v)) } -> std::same_as<timer_handle>;
  { q.cancel(h) } -> std::same_as<std::optional<typename Q::value_type>>;
  { q.reschedule(h, t) } -> std::same_as<bool>;
  { cq.pending(h) } -> std::same_as<bool>;
  { q.advance(t, sink) } -> std::same_as<std::size_t>;
  { q.advance(t, sink, std::size_t{}) } -> std::same_as<std::size_t>;
  { cq.next_expiration() } -> std::same_as<std::optional<tick>>;
  { cq.expiry(h) } -> std::same_as<std::optional<tick>>;
  { q.get(h) } -> std::same_as<typename Q::value_type*>;
  {q.drain(sink)};
  { cq.now() } -> std::same_as<tick>;
  { cq.size() } -> std::same_as<std::size_t>;
  { cq.empty() } -> std::same_as<bool>;
  {q.clear()};
  {q.reserve(std::size_t{})};
};

TIMING_WHEEL_NAMESPACE_END
