// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

// Opt-in integration with Boost.Asio (Debian libboost-dev): boost_asio_timer_service, the same service as
// timing_wheel/asio.hpp's, with handlers taking boost::system::error_code.

#include <timing_wheel/asio_service.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/system/error_code.hpp>

#include <chrono>
#include <utility>

TIMING_WHEEL_NAMESPACE_BEGIN
namespace detail {
struct boost_asio {
  using executor_type = ::boost::asio::any_io_executor;
  using error_code = ::boost::system::error_code;
  using steady_timer = ::boost::asio::steady_timer;
  static constexpr auto operation_aborted() noexcept { return ::boost::asio::error::operation_aborted; }
  template <class Executor, class F>
  static void post(const Executor& executor, F&& f) {
    ::boost::asio::post(executor, std::forward<F>(f));
  }
};
}  // namespace detail

/// basic_asio_timer_service for Boost.Asio: handlers take `boost::system::error_code`.
template <class Resolution = std::chrono::milliseconds, template <class> class Queue = detail::default_service_queue>
using boost_asio_timer_service = basic_asio_timer_service<detail::boost_asio, Resolution, Queue>;

TIMING_WHEEL_NAMESPACE_END
