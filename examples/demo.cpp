// The wheel at work: an hour of connection timeouts, rescheduled on activity, run on all three queues side by side.
// Every structure must fire the same timers at the same ticks; the demo prints what it saw and checks that.
#include <timing_wheel/timing_wheel.hpp>

#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {
using timing_wheel::tick;

struct outcome {
  std::uint64_t fired = 0;
  std::uint64_t checksum = 0;  // over (tick, connection) in firing order
  tick last_fire = 0;
  double milliseconds = 0;
};

std::uint64_t next_random(std::uint64_t& state) {
  state += 0x9e3779b97f4a7c15ULL;
  std::uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// 50,000 connections, one tick = 1 ms, a 30 s idle timeout pushed back whenever a connection talks. Four in five
// connections talk often, so their timeouts keep moving back; the quiet fifth time out and reconnect. One in a
// hundred also has a one-hour session limit. Time moves in steps of 1 to 100 ms for a simulated hour.
template <class Queue>
outcome run(const char* name) {
  constexpr std::uint32_t connections = 50'000;
  constexpr tick idle_timeout = 30'000;
  constexpr tick hour = 3600 * 1000;
  const auto started = std::chrono::steady_clock::now();

  Queue timers;
  timers.reserve(connections + connections / 100);
  std::vector<timing_wheel::timer_handle> idle(connections);
  for (std::uint32_t c = 0; c < connections; ++c) idle[c] = timers.insert(idle_timeout, c);
  for (std::uint32_t c = 0; c < connections; c += 100) timers.insert(hour, c + connections);

  outcome out;
  std::uint64_t random = 42;
  const auto on_expire = [&](tick deadline, std::uint32_t&& who) {
    ++out.fired;
    out.checksum = (out.checksum ^ (timers.now() * 1'000'003 + who)) * 0x100000001b3ULL;
    out.last_fire = timers.now();
    if (deadline != timers.now())
      std::printf("%s: timer due %" PRIu64 " fired at %" PRIu64 "\n", name, deadline, timers.now());
    if (who < connections) idle[who] = timers.insert(timers.now() + idle_timeout, who);  // a reconnect
  };
  while (timers.now() < hour) {
    for (int i = 0; i < 400; ++i) {  // chatty connections talk: their timeout moves back
      const auto c = static_cast<std::uint32_t>(next_random(random) % (connections / 5 * 4));
      timers.reschedule(idle[c], timers.now() + idle_timeout);
    }
    timers.advance(timers.now() + 1 + next_random(random) % 100, on_expire);
  }
  timers.drain([](tick, std::uint32_t&&) {});
  out.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  std::printf("%-34s fired %8" PRIu64 "  checksum %016" PRIx64 "  %7.1f ms\n", name, out.fired, out.checksum,
              out.milliseconds);
  return out;
}
}  // namespace

int main() {
  std::puts("A simulated hour of 50,000 connections with 30 s idle timeouts (1 tick = 1 ms):");
  const outcome wheel = run<timing_wheel::hierarchical_wheel<std::uint32_t>>("hierarchical_wheel<6 x 4096, exact>");
  const outcome flat = run<timing_wheel::flat_wheel<std::uint32_t, 4096>>("flat_wheel<4096 slots>");
  const outcome heap = run<timing_wheel::min_heap<std::uint32_t>>("min_heap");
  const bool same = wheel.checksum == flat.checksum && wheel.checksum == heap.checksum && wheel.fired == heap.fired;
  std::puts(same ? "all three fired the same timers at the same ticks, in the same order"
                 : "MISMATCH: the structures disagree");
  return same ? 0 : 1;
}
