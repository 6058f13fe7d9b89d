// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

// Opt-in integration with standalone Asio (Debian libasio-dev): asio_timer_service, timers on an Asio executor backed
// by the hierarchical wheel. For Boost.Asio include timing_wheel/boost_asio.hpp instead (or as well).

#include <timing_wheel/asio_service.hpp>

#include <asio/any_io_executor.hpp>
#include <asio/error.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>

#include <chrono>
#include <system_error>
#include <utility>

TIMING_WHEEL_NAMESPACE_BEGIN
namespace detail {
struct standalone_asio {
  using executor_type = ::asio::any_io_executor;
  using error_code = std::error_code;
  using steady_timer = ::asio::steady_timer;
  static constexpr auto operation_aborted() noexcept { return ::asio::error::operation_aborted; }
  template <class Executor, class F>
  static void post(const Executor& executor, F&& f) {
    ::asio::post(executor, std::forward<F>(f));
  }
};
}  // namespace detail

/// basic_asio_timer_service for standalone Asio: handlers take `std::error_code`.
///
///     asio::io_context io;
///     timing_wheel::asio_timer_service<> timers(io);
///     auto h = timers.schedule_after(std::chrono::seconds(30), [](std::error_code ec) {
///       if (!ec) { /* idle: close the connection */ }
///     });
///     timers.reschedule_after(h, std::chrono::seconds(30));   // on every read: O(1)
///     io.run();
template <class Resolution = std::chrono::milliseconds, template <class> class Queue = detail::default_service_queue>
using asio_timer_service = basic_asio_timer_service<detail::standalone_asio, Resolution, Queue>;

TIMING_WHEEL_NAMESPACE_END
