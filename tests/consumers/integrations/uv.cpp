// A consumer of timing_wheel::uv: one timer on a libuv loop, which then closes cleanly.
#include <timing_wheel/uv.hpp>

#include <uv.h>

#include <chrono>
#include <cstdio>

int main() {
  uv_loop_t loop;
  uv_loop_init(&loop);
  bool fired = false;
  {
    timing_wheel::uv_timer_service<> timers(&loop);
    timers.schedule_after(std::chrono::milliseconds(2), [&] { fired = true; });
    uv_run(&loop, UV_RUN_DEFAULT);
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  const bool closed = uv_loop_close(&loop) == 0;
  std::puts(fired && closed ? "uv: fired" : "uv: not fired");
  return fired && closed ? 0 : 1;
}
