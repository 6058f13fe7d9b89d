// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

// A ready-made wake-up hook for the cross-thread front end on Linux (opt-in; needs <sys/eventfd.h>): producers
// call it, the loop watches fd() in its epoll (or poll) set and calls clear() when it is readable.

#include <timing_wheel/detail/config.hpp>

#include <cerrno>
#include <cstdint>
#include <system_error>
#include <utility>

#include <sys/eventfd.h>
#include <unistd.h>

TIMING_WHEEL_NAMESPACE_BEGIN

/// An eventfd that producers signal and the loop waits on. Movable, not copyable; pass it as std::ref(wake).
class eventfd_wakeup {
 public:
  /// Effects: a non-blocking, close-on-exec eventfd. Throws: std::system_error if the kernel refuses one.
  eventfd_wakeup() : m_fd(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
    if (m_fd < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  }
  eventfd_wakeup(const eventfd_wakeup&) = delete;
  eventfd_wakeup& operator=(const eventfd_wakeup&) = delete;
  /// Effects: takes over `other`'s descriptor.
  eventfd_wakeup(eventfd_wakeup&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
  /// Effects: closes this descriptor, then takes over `other`'s.
  eventfd_wakeup& operator=(eventfd_wakeup&& other) noexcept {
    if (this != &other) {
      close_fd();
      m_fd = std::exchange(other.m_fd, -1);
    }
    return *this;
  }
  ~eventfd_wakeup() { close_fd(); }

  /// Any thread. Effects: makes fd() readable (a counter that cannot overflow in practice: 2^64 - 2 wake-ups).
  void operator()() const noexcept {
    const std::uint64_t one = 1;
    while (::write(m_fd, &one, sizeof one) < 0 && errno == EINTR) {
    }
  }
  /// Loop thread. Effects: makes fd() unreadable again. Returns: how many wake-ups arrived since the last clear.
  std::uint64_t clear() const noexcept {  // NOLINT(modernize-use-nodiscard): a loop that only re-arms ignores it
    std::uint64_t count = 0;
    while (::read(m_fd, &count, sizeof count) < 0 && errno == EINTR) {
    }
    return count;
  }
  /// Returns: the descriptor to watch for EPOLLIN.
  [[nodiscard]] int fd() const noexcept { return m_fd; }

 private:
  void close_fd() noexcept {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = -1;
  }
  int m_fd;
};

TIMING_WHEEL_NAMESPACE_END
