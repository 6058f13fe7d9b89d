// Idle timeouts inside the event loops people run: N connection timeouts on one loop, each reset many times, with
// the engine's own timers (one asio::steady_timer, or one uv_timer_t, per connection) against this library's
// service for that engine (asio_timer_service, uv_timer_service), on the same loop, one side per process.
//
//   timing_wheel_loop_timers --engine asio|uv --side native|wheel --timers N
//
// Prints one JSON line: ns per arm (N timers, 30 s ahead), per reset (10^6 resets of random connections, the loop
// run after every 1000 so Asio's aborted waits complete), per cancel (all N); RSS growth per armed timer; and the
// loop's CPU time per reset over one second of a steady load (a 1 ms ticker resetting 1000 random connections a
// tick, so the loop's own machinery, waking and waiting, counts too).
#include <timing_wheel/asio.hpp>
#include <timing_wheel/uv.hpp>

#include <uv.h>
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace {
using steady = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr std::size_t resets = 1'000'000;
constexpr std::size_t batch = 1000;
constexpr auto timeout = 30s;

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  double size = 0;
  double resident = 0;
  statm >> size >> resident;
  return resident * static_cast<double>(sysconf(_SC_PAGESIZE));
}

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

double ns_since(steady::time_point start, std::size_t ops) {
  return std::chrono::duration<double, std::nano>(steady::now() - start).count() / static_cast<double>(ops);
}

struct result {
  double arm_ns = 0;
  double reset_ns = 0;
  double cancel_ns = 0;
  double bytes_per_timer = 0;
  double load_cpu_ns = 0;         // the loop's CPU time per reset during one second of the steady load
  std::uint64_t load_resets = 0;  // resets the ticker made in that second (up to 10^6)
  std::uint64_t fired = 0;
};

// The two Asio sides, behind one shape: arm(i), reset(i), cancel(i), and the loop.
struct asio_native {
  asio::io_context& io;
  std::vector<asio::steady_timer> timers;
  std::uint64_t* fired;
  asio_native(asio::io_context& context, std::size_t n, std::uint64_t* count) : io(context), fired(count) {
    timers.reserve(n);
  }
  void wait(std::size_t i) {
    timers[i].async_wait([this](std::error_code ec) {
      if (!ec) ++*fired;
    });
  }
  void arm(std::size_t i) {
    timers.emplace_back(io, timeout + std::chrono::milliseconds(i % 1000));
    wait(i);
  }
  void reset(std::size_t i) {
    timers[i].expires_after(timeout);  // cancels the wait outstanding: its handler is queued with operation_aborted
    wait(i);
  }
  void cancel(std::size_t i) { timers[i].cancel(); }
};

struct asio_wheel {
  timing_wheel::asio_timer_service<> service;
  std::vector<timing_wheel::timer_handle> handles;
  std::uint64_t* fired;
  asio_wheel(asio::io_context& context, std::size_t n, std::uint64_t* count) : service(context), fired(count) {
    service.reserve(n);
    handles.reserve(n);
  }
  void arm(std::size_t i) {
    handles.push_back(service.schedule_after(timeout + std::chrono::milliseconds(i % 1000), [this](std::error_code ec) {
      if (!ec) ++*fired;
    }));
  }
  void reset(std::size_t i) { service.reschedule_after(handles[i], timeout); }
  void cancel(std::size_t i) { service.cancel(handles[i]); }
};

template <class Side>
result run_asio(std::size_t n) {
  result out;
  asio::io_context io(1);
  const double rss_before = rss_bytes();
  Side side(io, n, &out.fired);
  auto start = steady::now();
  for (std::size_t i = 0; i < n; ++i) side.arm(i);
  out.arm_ns = ns_since(start, n);
  out.bytes_per_timer = (rss_bytes() - rss_before) / static_cast<double>(n);
  io.poll();
  start = steady::now();
  for (std::size_t r = 0; r < resets; ++r) {
    side.reset(mix(r) % n);
    if (r % batch == batch - 1) io.poll();
  }
  out.reset_ns = ns_since(start, resets);
  // The steady load: a ticker on the same loop resets `batch` connections a millisecond for one second.
  asio::steady_timer ticker(io);
  std::uint64_t r = resets;
  const auto load_end = steady::now() + 1s;
  std::function<void(std::error_code)> tick = [&](std::error_code) {
    for (std::size_t k = 0; k < batch; ++k) side.reset(mix(r++) % n);
    if (steady::now() >= load_end) return;
    ticker.expires_after(1ms);
    ticker.async_wait(tick);
  };
  const double cpu_before = cpu_seconds();
  ticker.expires_after(1ms);
  ticker.async_wait(tick);
  while (steady::now() < load_end) io.run_one_for(10ms);
  out.load_resets = r - resets;
  out.load_cpu_ns = (cpu_seconds() - cpu_before) * 1e9 / static_cast<double>(out.load_resets);
  start = steady::now();
  for (std::size_t i = 0; i < n; ++i) side.cancel(i);
  io.poll();
  out.cancel_ns = ns_since(start, n);
  return out;
}

struct uv_native {
  uv_loop_t* loop;
  std::unique_ptr<uv_timer_t[]> timers;
  std::uint64_t* fired;
  uv_native(uv_loop_t* l, std::size_t n, std::uint64_t* count) : loop(l), timers(new uv_timer_t[n]), fired(count) {}
  static void on_timer(uv_timer_t* t) { ++*static_cast<std::uint64_t*>(t->data); }
  void arm(std::size_t i) {
    uv_timer_init(loop, &timers[i]);
    timers[i].data = fired;
    uv_timer_start(&timers[i], &uv_native::on_timer,
                   static_cast<std::uint64_t>((timeout + std::chrono::milliseconds(i % 1000)) / 1ms), 0);
  }
  void reset(std::size_t i) {
    uv_timer_start(&timers[i], &uv_native::on_timer, static_cast<std::uint64_t>(timeout / 1ms), 0);
  }
  void cancel(std::size_t i) { uv_timer_stop(&timers[i]); }
  void close(std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) uv_close(reinterpret_cast<uv_handle_t*>(&timers[i]), nullptr);
    uv_run(loop, UV_RUN_DEFAULT);
  }
};

struct uv_wheel {
  timing_wheel::uv_timer_service<> service;
  std::vector<timing_wheel::timer_handle> handles;
  std::uint64_t* fired;
  uv_wheel(uv_loop_t* loop, std::size_t n, std::uint64_t* count) : service(loop), fired(count) {
    service.reserve(n);
    handles.reserve(n);
  }
  void arm(std::size_t i) {
    handles.push_back(service.schedule_after(timeout + std::chrono::milliseconds(i % 1000), [this] { ++*fired; }));
  }
  void reset(std::size_t i) { service.reschedule_after(handles[i], timeout); }
  void cancel(std::size_t i) { service.cancel(handles[i]); }
  void close(std::size_t) { service.close(); }
};

struct uv_ticker {
  uv_timer_t handle{};
  std::function<void()> tick;
};

template <class Side>
result run_uv(std::size_t n) {
  result out;
  uv_loop_t loop;
  uv_loop_init(&loop);
  {
    const double rss_before = rss_bytes();
    Side side(&loop, n, &out.fired);
    auto start = steady::now();
    for (std::size_t i = 0; i < n; ++i) side.arm(i);
    out.arm_ns = ns_since(start, n);
    out.bytes_per_timer = (rss_bytes() - rss_before) / static_cast<double>(n);
    start = steady::now();
    for (std::size_t r = 0; r < resets; ++r) {
      side.reset(mix(r) % n);
      if (r % batch == batch - 1) uv_run(&loop, UV_RUN_NOWAIT);
    }
    out.reset_ns = ns_since(start, resets);
    uv_ticker ticker;
    uv_timer_init(&loop, &ticker.handle);
    std::uint64_t r = resets;
    const auto load_end = steady::now() + 1s;
    ticker.tick = [&] {
      if (steady::now() >= load_end) return;
      for (std::size_t k = 0; k < batch; ++k) side.reset(mix(r++) % n);
    };
    ticker.handle.data = &ticker;
    const double cpu_before = cpu_seconds();
    uv_timer_start(
        &ticker.handle, [](uv_timer_t* t) { static_cast<uv_ticker*>(t->data)->tick(); }, 1, 1);
    // The ticker repeats until the loop stops here: were it to stop itself, a uv_run(UV_RUN_ONCE) that ran it
    // would then sleep until the first connection's timeout, 30 s.
    while (steady::now() < load_end) uv_run(&loop, UV_RUN_ONCE);
    uv_timer_stop(&ticker.handle);
    out.load_resets = r - resets;
    out.load_cpu_ns = (cpu_seconds() - cpu_before) * 1e9 / static_cast<double>(out.load_resets);
    uv_close(reinterpret_cast<uv_handle_t*>(&ticker.handle), nullptr);
    start = steady::now();
    for (std::size_t i = 0; i < n; ++i) side.cancel(i);
    uv_run(&loop, UV_RUN_NOWAIT);
    out.cancel_ns = ns_since(start, n);
    side.close(n);
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  uv_loop_close(&loop);
  return out;
}

[[noreturn]] void usage() {
  std::fputs("usage: timing_wheel_loop_timers --engine asio|uv --side native|wheel --timers N\n", stderr);
  std::exit(2);
}
}  // namespace

int main(int argc, char** argv) {
  std::string engine;
  std::string side;
  std::size_t n = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--engine") {
      engine = argv[i + 1];
    } else if (arg == "--side") {
      side = argv[i + 1];
    } else if (arg == "--timers") {
      n = static_cast<std::size_t>(std::strtod(argv[i + 1], nullptr));
    } else {
      usage();
    }
  }
  if (n == 0 || (side != "native" && side != "wheel")) usage();
  result out;
  std::string name;
  if (engine == "asio") {
    out = side == "native" ? run_asio<asio_native>(n) : run_asio<asio_wheel>(n);
    name = side == "native" ? "asio::steady_timer" : "asio_timer_service";
  } else if (engine == "uv") {
    out = side == "native" ? run_uv<uv_native>(n) : run_uv<uv_wheel>(n);
    name = side == "native" ? "uv_timer_t" : "uv_timer_service";
  } else {
    usage();
  }
  if (out.fired != 0) {  // every timer is 30 s ahead and cancelled at the end: none may fire
    std::fprintf(stderr, "timing_wheel_loop_timers: %llu timers fired early\n",
                 static_cast<unsigned long long>(out.fired));
    return 1;
  }
  std::printf(
      "{\"engine\": \"%s\", \"structure\": \"%s\", \"timers\": %zu, \"arm_ns\": %.1f, \"reset_ns\": %.1f, "
      "\"cancel_ns\": %.1f, \"bytes_per_timer\": %.1f, \"load_cpu_ns\": %.1f, \"load_resets\": %llu}\n",
      engine.c_str(), name.c_str(), n, out.arm_ns, out.reset_ns, out.cancel_ns, out.bytes_per_timer, out.load_cpu_ns,
      static_cast<unsigned long long>(out.load_resets));
  return 0;
}
