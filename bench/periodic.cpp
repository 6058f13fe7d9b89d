// Periodic tickers (BitWheel's IntervalHeap scenario): a handful of periodic timers, 1 ms apart in phase, polled
// every millisecond. timer_service::schedule_every on the wheel against the small hand-rolled min-heap of tickers
// a user would otherwise write. Each run checks how many fired and a checksum of (due, id).
#include <timing_wheel/chrono.hpp>
#include <timing_wheel/min_heap.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

namespace {
using timing_wheel::tick;

struct manual_clock {
  using rep = std::int64_t;
  using period = std::milli;
  using duration = std::chrono::milliseconds;
  using time_point = std::chrono::time_point<manual_clock>;
  [[maybe_unused]] static constexpr bool is_steady = true;
  static time_point now() noexcept { return time_point{}; }
};

constexpr tick polls = 100'000;

struct tally {
  std::uint64_t fired = 0;
  std::uint64_t sum = 0;
  void add(tick due, std::uint64_t id) {
    ++fired;
    sum += due * 1'000'003 + id;  // order-insensitive: same-tick order differs between the structures
  }
};

// The ticker with id i fires every (i + 1) ms starting at tick i + 1.
tally reference(std::size_t tickers) {
  tally t;
  for (tick now = 1; now <= polls; ++now) {
    for (std::size_t i = 0; i < tickers; ++i) {
      if (now >= i + 1 && (now - (i + 1)) % (i + 1) == 0) t.add(now, i);
    }
  }
  return t;
}

void check(benchmark::State& state, const tally& got, const tally& expected) {
  if (got.fired != expected.fired || got.sum != expected.sum) state.SkipWithError("wrong timers fired");
}

void service_tickers(benchmark::State& state) {
  const auto tickers = static_cast<std::size_t>(state.range(0));
  const tally expected = reference(tickers);
  tally got;
  for (auto _ : state) {
    got = {};
    timing_wheel::timer_service<std::uint64_t, manual_clock> service(manual_clock::time_point{});
    for (std::size_t i = 0; i < tickers; ++i) {
      service.schedule_every(std::chrono::milliseconds(i + 1),
                             manual_clock::time_point(std::chrono::milliseconds(i + 1)), i,
                             timing_wheel::missed_period::burst);
    }
    for (tick now = 1; now <= polls; ++now) {
      service.poll(manual_clock::time_point(std::chrono::milliseconds(now)),
                   [&](manual_clock::time_point due, std::uint64_t& id) {
                     got.add(static_cast<tick>(due.time_since_epoch().count()), id);
                   });
    }
    benchmark::DoNotOptimize(got);
  }
  check(state, got, expected);
  state.counters["ns_per_poll"] =
      benchmark::Counter(static_cast<double>(polls) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// What a user writes without a library: a binary heap of (due, period, id) tickers.
void interval_heap_tickers(benchmark::State& state) {
  const auto tickers = static_cast<std::size_t>(state.range(0));
  const tally expected = reference(tickers);
  struct ticker {
    tick due;
    tick period;
    std::uint64_t id;
  };
  const auto later = [](const ticker& a, const ticker& b) { return a.due > b.due || (a.due == b.due && a.id > b.id); };
  tally got;
  for (auto _ : state) {
    got = {};
    std::vector<ticker> heap;
    for (std::size_t i = 0; i < tickers; ++i) heap.push_back({i + 1, i + 1, i});
    std::make_heap(heap.begin(), heap.end(), later);
    for (tick now = 1; now <= polls; ++now) {
      while (!heap.empty() && heap.front().due <= now) {
        std::pop_heap(heap.begin(), heap.end(), later);
        ticker& t = heap.back();
        got.add(t.due, t.id);
        t.due += t.period;
        std::push_heap(heap.begin(), heap.end(), later);
      }
    }
    benchmark::DoNotOptimize(got);
  }
  check(state, got, expected);
  state.counters["ns_per_poll"] =
      benchmark::Counter(static_cast<double>(polls) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
}  // namespace

BENCHMARK(service_tickers)
    ->Name("periodic_tickers/timer_service_wheel")
    ->Arg(5)
    ->Arg(10)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(interval_heap_tickers)
    ->Name("periodic_tickers/interval_heap")
    ->Arg(5)
    ->Arg(10)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
