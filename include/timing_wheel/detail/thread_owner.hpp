// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

#include <timing_wheel/detail/config.hpp>

#ifndef NDEBUG
#include <atomic>
#include <cstdint>
#include <thread>
#endif

TIMING_WHEEL_NAMESPACE_BEGIN
namespace detail {

inline constexpr const char* used_from_two_threads =
    "a timer queue (or timer_service) used from two threads at once: it belongs to one thread; schedule from others "
    "through timing_wheel/concurrent.hpp";

// Catches a single-threaded queue entered by a second thread while a first is inside it (debug builds only; an
// optimised build keeps an empty member and no code). Re-entry from the same thread (a callback) is fine, and so is
// handing a queue to another thread between calls.
#ifdef NDEBUG
class thread_owner {
 public:
  struct scope {};
  [[nodiscard]] scope enter() const noexcept { return {}; }
};
#else
class thread_owner {
 public:
  class scope {
   public:
    explicit scope(const thread_owner& owner) noexcept : m_owner(&owner) {}
    scope(const scope&) = delete;
    scope& operator=(const scope&) = delete;
    ~scope() {
      if (--m_owner->m_depth == 0) m_owner->m_thread.store(std::thread::id{}, std::memory_order_release);
    }

   private:
    const thread_owner* m_owner;
  };

  // Each queue has its own: a queue moved into starts unowned (queue_base's moves leave this member alone).
  thread_owner() noexcept = default;
  thread_owner(const thread_owner&) = delete;
  thread_owner& operator=(const thread_owner&) = delete;
  ~thread_owner() = default;

  [[nodiscard]] scope enter() const noexcept {
    const std::thread::id me = std::this_thread::get_id();
    if (m_thread.load(std::memory_order_acquire) != me) {
      std::thread::id nobody{};
      const bool mine = m_thread.compare_exchange_strong(nobody, me, std::memory_order_acq_rel);
      TIMING_WHEEL_ASSERT(mine, used_from_two_threads);
      static_cast<void>(mine);
    }
    ++m_depth;
    return scope(*this);
  }

 private:
  mutable std::atomic<std::thread::id> m_thread{};
  mutable std::uint32_t m_depth = 0;  // written by the owning thread only
};
#endif

}  // namespace detail
TIMING_WHEEL_NAMESPACE_END
