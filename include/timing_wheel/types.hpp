// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

// The ground floor of the library: the words every queue and every part of an engine speaks (ticks, handles, views,
// capacity, instrumentation, the expiry callback). It includes nothing of the library but its configuration, so
// detail/ can use these without the contract (timer_queue.hpp) above it.

#include <timing_wheel/detail/config.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>

TIMING_WHEEL_NAMESPACE_BEGIN

/// Time as the queues see it: an unsigned count of ticks. Every value, 0 and UINT64_MAX included, is a valid
/// deadline and a valid now().
using tick = std::uint64_t;

/// Names one scheduled timer of one queue: the index of its node and that node's generation when it was scheduled.
/// Trivially copyable, 8 bytes. A default-constructed handle is never pending. Once its timer fires, is cancelled
/// or is cleared, the handle is stale forever: every query answers "not pending", even after the node is reused.
/// Handles are meaningful only to the queue that issued them (or the queue it was moved into).
struct timer_handle {
  std::uint32_t index = 0;       ///< the node of the timer in its queue
  std::uint32_t generation = 0;  ///< that node's generation when scheduled (even: never pending, so {} is not)

  /// Handles are equal when they name the same node and generation.
  friend constexpr bool operator==(timer_handle, timer_handle) noexcept = default;
};
static_assert(sizeof(timer_handle) == 8 && std::is_trivially_copyable_v<timer_handle>);

/// One pending timer as peek() and for_each() show it: its handle, the deadline it was scheduled with (not
/// rounded), and its payload in place (U is T, or const T for a const queue). Valid until the queue changes.
template <class U>
struct timer_view {
  timer_handle handle{};  ///< the timer's handle
  tick deadline = 0;      ///< the deadline it was scheduled with
  U* payload = nullptr;   ///< its payload, in place
};

/// Asks a queue to hold at most `timers` pending timers, with all its storage allocated at construction: it never
/// allocates afterwards, and try_insert() on a full queue hands the payload back instead of growing.
struct fixed_capacity {
  std::size_t timers;  ///< the most timers pending at once
};

/// What try_insert() answers: the new timer's handle, or, when the queue was full, the payload handed back (and a
/// handle that is never pending).
template <class T>
struct try_insert_result {
  timer_handle handle;        ///< the new timer (never pending when rejected)
  std::optional<T> rejected;  ///< the payload handed back by a full queue, or nullopt

  /// True when the timer was scheduled.
  explicit operator bool() const noexcept { return !rejected.has_value(); }
};

/// The default instrumentation policy of every queue: counts nothing, costs nothing (an empty member, every hook an
/// empty inline function). See instrumentation.hpp for one that counts.
struct no_instrumentation {
  constexpr void inserted() noexcept {}                   ///< does nothing
  constexpr void cancelled() noexcept {}                  ///< does nothing
  constexpr void fired() noexcept {}                      ///< does nothing
  constexpr void inspected() noexcept {}                  ///< does nothing
  constexpr void looked_empty() noexcept {}               ///< does nothing
  constexpr void cascaded() noexcept {}                   ///< does nothing
  constexpr void compared() noexcept {}                   ///< does nothing
  constexpr void slot_processed(std::size_t) noexcept {}  ///< does nothing
};

/// What a queue tells its instrumentation policy (the trailing template parameter of every queue):
/// inserted / cancelled / fired: one timer inserted, cancelled, fired;
/// inspected: one timer looked at while a slot is processed (fired, cascaded, or put back);
/// looked_empty: a timer looked at and put back because it is not due yet (flat_wheel: a later revolution's);
/// cascaded: one timer moved down a level (or in from the overflow store);
/// compared: one comparison of two timers' (due, sequence) keys in a heap;
/// slot_processed(n): a slot holding n timers was processed.
template <class I>
concept instrumentation_policy = std::is_nothrow_default_constructible_v<I> &&
    std::is_nothrow_move_constructible_v<I> && requires(I& i, std::size_t n) {
  i.inserted();
  i.cancelled();
  i.fired();
  i.inspected();
  i.looked_empty();
  i.cascaded();
  i.compared();
  i.slot_processed(n);
};

/// What advance() accepts as its callback: f(tick deadline, T&& payload), or f(T&& payload) (then the deadline is
/// not passed). A callable that takes both forms gets the first.
template <class F, class T>
concept expiry_callback = std::invocable<F&, tick, T&&> || std::invocable<F&, T&&>;

namespace detail {
// Calls an expiry_callback in the form it takes: f(deadline, T&&), else f(T&&). T is given, never deduced.
template <class T, class F>
requires expiry_callback<F, T>
decltype(auto) invoke_expiry(F& f, tick deadline, std::type_identity_t<T>&& value) {
  if constexpr (std::invocable<F&, tick, T&&>) {
    return std::invoke(f, deadline, std::move(value));
  } else {
    return std::invoke(f, std::move(value));
  }
}

}  // namespace detail

TIMING_WHEEL_NAMESPACE_END
