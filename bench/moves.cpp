// W2's mix (bench/latency.cpp: each op an insert 10..1000 ticks ahead (80%), a cancel of a random live timer (5%) or
// nothing; a poll every `ops-per-tick` ops) on the exact wheel, counting instead of timing: how many timers each poll
// moves down a level (cascades and the spreading), and where in the level-2 revolution (65,536 ticks) the worst
// polls fall. Counts do not move with this VM's noise, so they show a poll's burst when the wall-clock tail cannot.
//
//   timing_wheel_moves [--polls N] [--ops-per-tick K] [--worst W]
//
// Prints "moves per poll: mean M p50 P p99 Q p99.9 R max X", then the W worst polls (tick, tick mod 65,536, moved).
// Exits 1 if a timer is lost or an invariant breaks (checked every 997 ticks).
#include "structures.hpp"
#include "trading_mix.hpp"

#include <timing_wheel/hierarchical_wheel.hpp>
#include <timing_wheel/instrumentation.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {
using bench::tick;
using counted_wheel = timing_wheel::hierarchical_wheel<std::uint32_t, 8, 8, timing_wheel::precision::exact,
                                                       timing_wheel::counting_instrumentation>;

struct poll_moves {
  tick at;
  std::uint64_t moved;
};
}  // namespace

int main(int argc, char** argv) {
  std::size_t polls = 100'000;
  std::size_t ops_per_tick = bench::trading_ops_per_tick;
  std::size_t worst = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    const std::size_t value = std::stoull(argv[i + 1]);
    if (arg == "--polls") {
      polls = value;
    } else if (arg == "--ops-per-tick") {
      ops_per_tick = value;
    } else if (arg == "--worst") {
      worst = value;
    } else {
      std::fprintf(stderr, "usage: timing_wheel_moves [--polls N] [--ops-per-tick K] [--worst W]\n");
      return 2;
    }
  }
  counted_wheel q;
  bench::trading_mix<timing_wheel::timer_handle> mix(bench::trading_seed);  // latency.cpp's: the same operations
  const auto insert = [&](tick deadline, std::uint32_t id) { return q.insert(deadline, id); };
  const auto cancel = [&](timing_wheel::timer_handle h) { static_cast<void>(q.cancel(h)); };
  std::vector<poll_moves> moves;
  moves.reserve(polls);
  const std::size_t warmup = 1000;
  for (std::size_t tick_count = 0; tick_count < warmup + polls; ++tick_count) {
    for (std::size_t op = 0; op < ops_per_tick; ++op) mix.op(q.now(), insert, cancel);
    const std::uint64_t before = q.instrumentation().cascades;
    q.advance(q.now() + 1, [&](tick, std::uint32_t&& id) { mix.fired(id); });
    if (tick_count >= warmup) moves.push_back({q.now(), q.instrumentation().cascades - before});
    if (tick_count % 997 == 0 && !q.check_invariants()) {
      std::fprintf(stderr, "moves: an invariant broke at tick %" PRIu64 "\n", q.now());
      return 1;
    }
  }
  if (q.size() != mix.live()) {
    std::fprintf(stderr, "moves: %zu pending but %zu expected: timers were lost\n", q.size(), mix.live());
    return 1;
  }
  std::uint64_t total = 0;
  for (const poll_moves& m : moves) total += m.moved;
  std::vector<poll_moves>& sorted = moves;  // by moves, from here on
  std::sort(sorted.begin(), sorted.end(), [](const poll_moves& a, const poll_moves& b) { return a.moved < b.moved; });
  const auto at = [&](double quantile) {
    return sorted[static_cast<std::size_t>(quantile * static_cast<double>(sorted.size() - 1))].moved;
  };
  std::printf("moves per poll: mean %.1f p50 %" PRIu64 " p99 %" PRIu64 " p99.9 %" PRIu64 " max %" PRIu64 "\n",
              static_cast<double>(total) / static_cast<double>(moves.size()), at(0.5), at(0.99), at(0.999),
              sorted.back().moved);
  for (std::size_t k = 0; k < worst && k < sorted.size(); ++k) {
    const poll_moves& m = sorted[sorted.size() - 1 - k];
    std::printf("tick %" PRIu64 " (mod 65536: %" PRIu64 ") moved %" PRIu64 "\n", m.at, m.at % 65536, m.moved);
  }
  return 0;
}
