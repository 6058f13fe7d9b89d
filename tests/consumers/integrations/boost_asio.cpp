// A consumer of timing_wheel::boost_asio: one timer on a Boost.Asio io_context.
#include <timing_wheel/boost_asio.hpp>

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstdio>

int main() {
  boost::asio::io_context io;
  timing_wheel::boost_asio_timer_service<> timers(io);
  bool fired = false;
  timers.schedule_after(std::chrono::milliseconds(2), [&](boost::system::error_code ec) { fired = !ec; });
  io.run();
  std::puts(fired ? "boost_asio: fired" : "boost_asio: not fired");
  return fired ? 0 : 1;
}
