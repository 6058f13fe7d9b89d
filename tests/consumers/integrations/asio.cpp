// A consumer of timing_wheel::asio: one timer on an io_context.
#include <timing_wheel/asio.hpp>

#include <asio/io_context.hpp>

#include <chrono>
#include <cstdio>
#include <system_error>

int main() {
  asio::io_context io;
  timing_wheel::asio_timer_service<> timers(io);
  bool fired = false;
  timers.schedule_after(std::chrono::milliseconds(2), [&](std::error_code ec) { fired = !ec; });
  io.run();
  std::puts(fired ? "asio: fired" : "asio: not fired");
  return fired ? 0 : 1;
}
