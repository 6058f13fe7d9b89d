// timing_wheel/boost_asio.hpp over Boost.Asio.
#include <timing_wheel/boost_asio.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

#include <functional>

namespace net = boost::asio;
using error_code = boost::system::error_code;
using service_type = timing_wheel::boost_asio_timer_service<std::chrono::microseconds>;
#define FLAVOUR "boost_asio_timer_service"
#include "integration/asio_cases.hpp"
