// Throughput of the three queues on the same seeded inputs, one tick = 1 ms. Every run checks what fired against a
// reference, so a fast but wrong structure fails the benchmark instead of winning it.
#include <timing_wheel/timing_wheel.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

namespace {
using timing_wheel::tick;

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

template <class Q>
constexpr bool keeps_exact_order = true;
template <class T, std::size_t L, std::size_t B>
constexpr bool keeps_exact_order<timing_wheel::hierarchical_wheel<T, L, B, timing_wheel::precision::coarse>> = false;

// Order-sensitive for exact queues; for coarse ones (which may fire a little late, in another order) it covers
// what fired, not when.
struct checksum {
  std::uint64_t value = 0;
  std::uint64_t count = 0;
  template <bool Ordered>
  void add(tick deadline, std::uint64_t id) {
    ++count;
    if constexpr (Ordered) {
      value = (value ^ (deadline * 31 + id)) * 0x100000001b3ULL;
    } else {
      value += mix(deadline * 31 + id);
    }
  }
};

void verify(benchmark::State& state, const checksum& got, const checksum& expected) {
  if (got.value != expected.value || got.count != expected.count) {
    state.SkipWithError("wrong timers fired: checksum mismatch");
  }
}

// W1: insert N timers due uniformly in [1, 2^20), then fire them all in one advance.
std::vector<tick> bulk_deadlines(std::size_t n) {
  std::vector<tick> deadlines(n);
  for (std::size_t i = 0; i < n; ++i) deadlines[i] = 1 + mix(i) % ((tick{1} << 20) - 1);
  return deadlines;
}

template <bool Ordered>
checksum bulk_reference(const std::vector<tick>& deadlines) {
  std::vector<std::pair<tick, std::uint64_t>> sorted;
  for (std::size_t i = 0; i < deadlines.size(); ++i) sorted.emplace_back(deadlines[i], i);
  std::stable_sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.first < b.first; });
  checksum c;
  for (auto& [d, id] : sorted) c.add<Ordered>(d, id);
  return c;
}

template <class Q>
void bulk_insert_then_fire(benchmark::State& state) {
  constexpr bool ordered = keeps_exact_order<Q>;
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<tick> deadlines = bulk_deadlines(n);
  const checksum expected = bulk_reference<ordered>(deadlines);
  for (auto _ : state) {
    Q q;
    q.reserve(n);
    for (std::size_t i = 0; i < n; ++i) q.insert(deadlines[i], i);
    checksum got;
    q.advance(tick{1} << 20, [&](tick deadline, std::uint64_t&& id) { got.add<ordered>(deadline, id); });
    verify(state, got, expected);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

// W5: 1000 timers over [1, 2^32), advanced in 4096 jumps of 2^20 ticks: the cost of time passing with little due.
template <class Q>
void sparse_jumps(benchmark::State& state) {
  constexpr bool ordered = keeps_exact_order<Q>;
  std::vector<tick> deadlines(1000);
  for (std::size_t i = 0; i < deadlines.size(); ++i) deadlines[i] = 1 + mix(i + 7) % ((tick{1} << 32) - 1);
  const checksum expected = bulk_reference<ordered>(deadlines);
  for (auto _ : state) {
    state.PauseTiming();
    Q q;
    for (std::size_t i = 0; i < deadlines.size(); ++i) q.insert(deadlines[i], i);
    checksum got;
    state.ResumeTiming();
    for (tick to = tick{1} << 20; to <= tick{1} << 32; to += tick{1} << 20) {
      q.advance(to, [&](tick deadline, std::uint64_t&& id) { got.add<ordered>(deadline, id); });
    }
    verify(state, got, expected);
  }
  state.SetItemsProcessed(state.iterations() * 4096);
  state.SetLabel("items = advances");
}

// W3-like: 10^5 live connection timeouts of 30 s; each op reschedules a random one to now + 30 s; time moves 1 ms
// every 1000 ops.
template <class Q>
void reschedule_timeouts(benchmark::State& state) {
  constexpr std::size_t live = 100'000;
  constexpr tick timeout = 30'000;
  Q q;
  q.reserve(live);
  std::vector<timing_wheel::timer_handle> handles(live);
  for (std::size_t i = 0; i < live; ++i) handles[i] = q.insert(timeout + i % 1000, i);
  std::uint64_t ops = 0;
  std::uint64_t fired = 0;
  for (auto _ : state) {
    const std::size_t who = mix(ops) % live;
    q.reschedule(handles[who], q.now() + timeout);
    if (++ops % 1000 == 0) {
      q.advance(q.now() + 1, [&](tick, std::uint64_t&& id) {
        ++fired;
        handles[id] = q.insert(q.now() + timeout, id);
      });
    }
  }
  if (q.size() != live) state.SkipWithError("timers were lost");
  state.counters["fired"] = static_cast<double>(fired);
  state.SetItemsProcessed(state.iterations());
}

using exact_wheel = timing_wheel::hierarchical_wheel<std::uint64_t>;
using coarse_wheel = timing_wheel::hierarchical_wheel<std::uint64_t, 6, 6, timing_wheel::precision::coarse>;
using flat = timing_wheel::flat_wheel<std::uint64_t, 4096>;
using heap = timing_wheel::min_heap<std::uint64_t>;

BENCHMARK(bulk_insert_then_fire<exact_wheel>)
    ->Name("W1_bulk/hierarchical_wheel")
    ->Arg(10'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bulk_insert_then_fire<coarse_wheel>)
    ->Name("W1_bulk/hierarchical_wheel_coarse")
    ->Arg(10'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bulk_insert_then_fire<flat>)
    ->Name("W1_bulk/flat_wheel_4096")
    ->Arg(10'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bulk_insert_then_fire<heap>)
    ->Name("W1_bulk/min_heap")
    ->Arg(10'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond);

BENCHMARK(sparse_jumps<exact_wheel>)->Name("W5_sparse_jumps/hierarchical_wheel")->Unit(benchmark::kMicrosecond);
BENCHMARK(sparse_jumps<coarse_wheel>)->Name("W5_sparse_jumps/hierarchical_wheel_coarse")->Unit(benchmark::kMicrosecond);
BENCHMARK(sparse_jumps<flat>)->Name("W5_sparse_jumps/flat_wheel_4096")->Unit(benchmark::kMicrosecond);
BENCHMARK(sparse_jumps<heap>)->Name("W5_sparse_jumps/min_heap")->Unit(benchmark::kMicrosecond);

BENCHMARK(reschedule_timeouts<exact_wheel>)->Name("W3_reschedule/hierarchical_wheel");
BENCHMARK(reschedule_timeouts<coarse_wheel>)->Name("W3_reschedule/hierarchical_wheel_coarse");
BENCHMARK(reschedule_timeouts<flat>)->Name("W3_reschedule/flat_wheel_4096");
BENCHMARK(reschedule_timeouts<heap>)->Name("W3_reschedule/min_heap");
}  // namespace

BENCHMARK_MAIN();
