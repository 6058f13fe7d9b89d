// timing_wheel/asio.hpp over standalone Asio.
#include <timing_wheel/asio.hpp>

#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/strand.hpp>

#include <functional>
#include <system_error>

namespace net = asio;
using error_code = std::error_code;
using service_type = timing_wheel::asio_timer_service<std::chrono::microseconds>;
#define FLAVOUR "asio_timer_service"
#include "integration/asio_cases.hpp"
