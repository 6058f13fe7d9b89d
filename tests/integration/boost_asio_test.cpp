// timing_wheel/boost_asio.hpp over Boost.Asio.
#include <timing_wheel/boost_asio.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

#include <functional>

namespace net = boost::asio;
using error_code = boost::system::error_code;
// Over the 8 x 256 wheel (standalone Asio's tests run the default): the queue is a parameter of the service.
template <class U>
using small_wheel = timing_wheel::hierarchical_wheel<U, 8, 8>;
using service_type = timing_wheel::boost_asio_timer_service<std::chrono::microseconds, small_wheel>;
static_assert(sizeof(service_type) < 128 * 1024, "a service over the 8 x 256 wheel is a small object");
#define FLAVOUR "boost_asio_timer_service over an 8 x 256 wheel"
#include "integration/asio_cases.hpp"
