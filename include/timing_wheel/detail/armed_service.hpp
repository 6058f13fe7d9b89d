// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

// What the engine integrations (asio_service.hpp, uv.hpp) share: a timer_service of type-erased callbacks, the
// rule that keeps the engine's one timer armed at or before the next expiration, and one-shot timers whose resets
// to a later time cost a store.
//
// Arming: each schedule or reschedule that may bring the next expiration forward calls `wait_until(at)` when the
// engine timer must move earlier (or is not armed); a later next expiration leaves it, costing at most one early
// wake-up that re-arms.
//
// Postponing: a connection's idle timeout is reset on every read, nearly always to a later time, and nearly never
// fires. Each one-shot timer has a record holding the time it is queued for and the time it is due; a reschedule
// to a time at or after the queued one only writes the due time (no queue work), and when the queued time comes
// the timer is queued again for its due time instead of firing. Earlier times go to the queue at once. So a timer
// fires at its due time, never before; equal due times fire in the order they were queued; the engine may wake
// once at a postponed time with nothing to run. The due time and the generation are kept apart from the rest of
// the record, 16 bytes a timer: the common reset (to a time at or after the due one) touches only those, so the
// part of the records that resets keep in cache is half as large.

#include <timing_wheel/chrono.hpp>

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

TIMING_WHEEL_NAMESPACE_BEGIN
namespace detail {

// A handler or callback a service can hold and call with `Args...`.
template <class F, class... Args>
concept loop_callback = std::invocable < std::decay_t<F>
&, Args... > &&std::move_constructible<std::decay_t<F>>;

template <class Callback, class Resolution, template <class> class Queue>
class armed_service {
 public:
  using clock = std::chrono::steady_clock;
  using time_point = clock::time_point;
  using duration = clock::duration;
  // What the queue holds: the callback, and the record of a one-shot timer (nil for a periodic one).
  struct entry {
    Callback callback;
    std::uint32_t record;
  };
  using service_type = timer_service<entry, clock, Resolution, Queue>;

  explicit armed_service(Resolution resolution) : m_service(clock::now(), resolution) {}

  template <class WaitUntil>
  timer_handle schedule_at(time_point when, Callback&& callback, WaitUntil&& wait_until) {
    const std::uint32_t index = acquire_record();
    queued_timer& queued = m_queued[index];
#if TIMING_WHEEL_HAS_EXCEPTIONS
    try {
      queued.handle = m_service.schedule_at(when, entry{std::move(callback), index});
    } catch (...) {
      release_record(index);
      throw;
    }
#else
    queued.handle = m_service.schedule_at(when, entry{std::move(callback), index});
#endif
    queued.at = when;
    m_records[index].due = when;
    arm(wait_until);
    return timer_handle{index, m_records[index].generation};
  }
  // The first firing one period after `now`.
  template <class WaitUntil>
  periodic_handle schedule_every(duration period, time_point now, Callback&& callback, missed_period policy,
                                 WaitUntil&& wait_until) {
    const periodic_handle handle =
        m_service.schedule_every(period, saturating_add(now, period), entry{std::move(callback), nil}, policy);
    arm(wait_until);
    return handle;
  }
  // A later time is recorded (O(1), no queue work); an earlier one moves the queued timer. The due time is never
  // before the queued one, so a time at or after it needs nothing else.
  template <class WaitUntil>
  bool reschedule(timer_handle handle, time_point when, WaitUntil&& wait_until) {
    if (!pending(handle)) return false;
    one_shot& record = m_records[handle.index];
    const bool later_than_due = when >= record.due;
    record.due = when;
    if (later_than_due) return true;
    queued_timer& queued = m_queued[handle.index];
    if (when >= queued.at) return true;
    queued.at = when;
    [[maybe_unused]] const bool moved = m_service.reschedule(queued.handle, when);
    TIMING_WHEEL_ASSERT(moved, "a pending one-shot timer's queued timer is pending");
    arm(wait_until);
    return true;
  }
  // reschedule(handle, clock::now() + delay). The record starts loading before the clock is read: the clock's ordered
  // counter read lets nothing after it start early, so a load issued after it would wait alone, one exposed cache
  // miss per reset; issued before, the miss overlaps the clock read.
  template <class WaitUntil>
  bool reschedule_after(timer_handle handle, duration delay, WaitUntil&& wait_until) {
    if (handle.index < m_records.size()) detail::prefetch(&m_records[handle.index]);
    return reschedule(handle, saturating_add(clock::now(), delay), wait_until);
  }
  // Returns: the callback of a pending one-shot timer, taken out; nullopt if not pending.
  std::optional<Callback> cancel(timer_handle handle) {
    if (!pending(handle)) return std::nullopt;
    std::optional<entry> taken = m_service.cancel(m_queued[handle.index].handle);
    release_record(handle.index);
    if (!taken) return std::nullopt;
    return std::optional<Callback>(std::in_place, std::move(taken->callback));
  }
  bool cancel(periodic_handle handle) { return m_service.cancel(handle); }

  [[nodiscard]] bool pending(timer_handle handle) const noexcept {
    return handle.index < m_records.size() && (handle.generation & 1U) != 0 &&
           m_records[handle.index].generation == handle.generation;
  }
  // The time a pending one-shot timer is due: it fires at the first poll at or after it.
  [[nodiscard]] std::optional<time_point> expiry(timer_handle handle) const noexcept {
    if (!pending(handle)) return std::nullopt;
    return m_records[handle.index].due;
  }

  // Fires what is due at `now`, calling on_fire(Callback&); a postponed timer whose queued time has come is queued
  // again for its due time (in this poll if that is due too). Room for one more timer is made first, so that queueing
  // again allocates nothing unless the callbacks schedule timers of their own: if memory runs out then, bad_alloc
  // propagates and that one timer's callback is destroyed uncalled.
  template <class F>
  void poll(time_point now, F&& on_fire) {
    m_service.reserve(m_service.size() + 1, 0);
    m_service.poll(now, [this, &on_fire](entry& fired) {
      if (const std::uint32_t index = fired.record; index != nil) {
        const time_point due = m_records[index].due;
        queued_timer& queued = m_queued[index];
        if (due > queued.at) {
          queued.at = due;
#if TIMING_WHEEL_HAS_EXCEPTIONS
          try {
            queued.handle = m_service.schedule_at(due, std::move(fired));
          } catch (...) {
            release_record(index);  // its callback went with the failed insertion: no longer pending
            throw;
          }
#else
          queued.handle = m_service.schedule_at(due, std::move(fired));
#endif
          return;
        }
        release_record(index);
      }
      on_fire(fired.callback);
    });
  }

  // Hands every pending callback to f(Callback&&) in fire order and empties the service.
  template <class F>
  void drain(F&& f) {
    m_service.drain([this, &f](entry&& pending_entry) {
      if (pending_entry.record != nil) release_record(pending_entry.record);
      f(std::move(pending_entry.callback));
    });
  }
  // Destroys every pending callback; every handle issued before is never pending again.
  void clear() {
    m_service.clear();
    for (std::uint32_t index = 0; index < m_records.size(); ++index) {
      if ((m_records[index].generation & 1U) != 0) release_record(index);
    }
  }

  [[nodiscard]] std::size_t size() const noexcept { return m_service.size(); }
  void reserve(std::size_t timers, std::size_t periodic) {
    m_service.reserve(timers, periodic);
    m_records.reserve(timers);
    m_queued.reserve(timers);
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

  [[nodiscard]] const service_type& service() const noexcept { return m_service; }

 private:
  // A one-shot timer, apart from its callback: what a reset to a later time touches (16 bytes)...
  struct one_shot {
    time_point due;                // the time it fires at: its queued time, or later if postponed
    std::uint32_t generation = 0;  // odd while pending
    std::uint32_t next_free = nil;
  };
  // ...and what only a move, a cancel or its queued time's coming touches.
  struct queued_timer {
    timer_handle handle;  // the queue's timer, while pending
    time_point at;        // the time it is queued for
  };

  std::uint32_t acquire_record() {
    if (m_free != nil) {
      const std::uint32_t index = m_free;
      m_free = m_records[index].next_free;
      ++m_records[index].generation;
      return index;
    }
    if (m_records.size() >= nil) throw_bad_alloc();
    // m_queued may end one longer than m_records if the second growth throws; the next growth reuses that slot.
    m_queued.resize(m_records.size() + 1);
    m_records.emplace_back();
    m_records.back().generation = 1;
    return static_cast<std::uint32_t>(m_records.size() - 1);
  }
  void release_record(std::uint32_t index) noexcept {
    one_shot& record = m_records[index];
    if (++record.generation == 0) return;  // wrapped: parked for good, so no stale handle matches a later timer
    record.next_free = m_free;
    m_free = index;
  }

  service_type m_service;
  std::vector<one_shot> m_records;
  std::vector<queued_timer> m_queued;  // indexed as m_records
  std::uint32_t m_free = nil;
  time_point m_armed_at{};
  bool m_armed = false;
};

}  // namespace detail
TIMING_WHEEL_NAMESPACE_END
