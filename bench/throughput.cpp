// Throughput workloads (one tick = 1 ms), every structure on the same seeded inputs. Every run checks a checksum of
// the (deadline, id) sequence fired against the reference (a sort of the inputs, or min_heap's run), so a fast but
// wrong structure fails instead of winning.
//   W1 bulk:   insert N timers due in [1, 2^20), then fire them all, in one advance ("jump") or one tick per
//              advance ("tick"); counters insert_ns and fire_ns per timer. Inserting includes the first touch of
//              the memory reserve() took (fresh pages every repetition, as in a new process: see main()).
//   W3 network timeouts: 10^6 live 30 s timeouts; each op reschedules a random one to now + 30 s; 1 ms passes
//              every 1000 ops; then a final drain. Counters ns_per_op, and heap_bytes (live malloc bytes) per timer.
//   W3 random timeouts: the same loop, but each reschedule (and each re-arm of a timer that fired) picks its
//              timeout at random in [1 s, 101 s): timers move between slot lists instead of to the back of theirs.
//   W5 sparse idle: 1000 timers over [1, 4096 * 2^k); 4096 advances of 2^k ticks; ns per advance, k = 10, 20, 30.
//   W6 request timeouts (1 us ticks): 10^5 requests in flight, each with a 30 s timeout, one starting every 150 us;
//              each op the oldest completes (its timeout, the earliest, is cancelled), a new one starts, and the loop
//              asks next_expiration() to re-arm its sleep. 10^6 ops; ns per op. Checksum: every answer.
#include "structures.hpp"

#include <benchmark/benchmark.h>

#include <malloc.h>
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {
using bench::checksum;
using bench::mix;
using bench::payload;
using bench::tick;
using clock_type = std::chrono::steady_clock;

double nanoseconds(clock_type::duration d) { return std::chrono::duration<double, std::nano>(d).count(); }

std::size_t malloc_bytes() {
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

std::vector<tick> bulk_deadlines(std::size_t n) {
  std::vector<tick> deadlines(n);
  for (std::size_t i = 0; i < n; ++i) deadlines[i] = 1 + mix(i) % ((tick{1} << 20) - 1);
  return deadlines;
}

checksum sorted_reference(const std::vector<tick>& deadlines, bool ordered) {
  std::vector<std::pair<tick, std::uint64_t>> sorted;
  sorted.reserve(deadlines.size());
  for (std::size_t i = 0; i < deadlines.size(); ++i) sorted.emplace_back(deadlines[i], i);
  std::stable_sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.first < b.first; });
  checksum c;
  c.ordered = ordered;
  for (auto& [d, id] : sorted) c.add(d, id);
  return c;
}

void verify(benchmark::State& state, const checksum& got, const checksum& expected) {
  if (!(got == expected)) state.SkipWithError("wrong timers fired: checksum mismatch");
}

template <class S>
void bulk(benchmark::State& state, std::size_t n, bool tick_by_tick) {
  using Q = typename S::type;
  const std::vector<tick> deadlines = bulk_deadlines(n);
  const checksum expected = sorted_reference(deadlines, S::exact);
  double insert_ns = 0;
  double fire_ns = 0;
  for (auto _ : state) {
    auto q = std::make_unique<Q>();
    q->reserve(n);
    checksum got;
    got.ordered = S::exact;
    const auto on_expire = [&got](tick deadline, payload&& id) { got.add(deadline, id); };
    const auto started = clock_type::now();
    for (std::size_t i = 0; i < n; ++i) q->insert(deadlines[i], i);
    const auto inserted = clock_type::now();
    if (tick_by_tick) {
      for (tick t = 1; t <= tick{1} << 20; ++t) q->advance(t, on_expire);
    } else {
      q->advance(tick{1} << 20, on_expire);
    }
    const auto fired = clock_type::now();
    insert_ns += nanoseconds(inserted - started);
    fire_ns += nanoseconds(fired - inserted);
    state.SetIterationTime(std::chrono::duration<double>(fired - started).count());
    verify(state, got, expected);
    state.PauseTiming();
    q.reset();
    state.ResumeTiming();
  }
  const auto timers = static_cast<double>(n) * static_cast<double>(state.iterations());
  state.counters["insert_ns"] = insert_ns / timers;
  state.counters["fire_ns"] = fire_ns / timers;
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

// W3's timeouts: 30 s each, or (random) one in [1 s, 101 s) drawn from `draw`, a count of the draws so far, which
// every structure makes in the same order (exact ones fire in the same order).
tick timeout_of(bool random, std::uint64_t draw) { return random ? 1'000 + mix(draw ^ 0x5eedULL) % 100'000 : 30'000; }

// The W3 loop. `before_drain` runs when the tombstones (if any) are at their peak, just before the final drain.
template <class Q, class Hook>
checksum run_timeouts(Q& q, std::vector<bench::handle_of<Q>>& handles, std::size_t ops, double& ns_per_op, bool random,
                      Hook&& before_drain) {
  checksum got;
  std::uint64_t draws = 0;
  const auto reinsert = [&](tick deadline, payload&& id) {
    got.add(deadline, id);
    handles[id] = q.insert(q.now() + timeout_of(random, draws++), id);
  };
  const auto started = clock_type::now();
  for (std::size_t op = 0; op < ops; ++op) {
    const std::size_t who = mix(op) % handles.size();
    q.reschedule(handles[who], q.now() + timeout_of(random, draws++));
    if ((op + 1) % 1000 == 0) q.advance(q.now() + 1, reinsert);
  }
  ns_per_op = nanoseconds(clock_type::now() - started) / static_cast<double>(ops);
  before_drain();
  q.advance(UINT64_MAX - 1, [&](tick deadline, payload&& id) { got.add(deadline, id); });
  return got;
}

template <class Q>
std::vector<bench::handle_of<Q>> start_timeouts(Q& q, std::size_t live) {
  q.reserve(live);
  std::vector<bench::handle_of<Q>> handles(live);
  for (std::size_t i = 0; i < live; ++i) handles[i] = q.insert(30'000 + i % 1000, i);
  return handles;
}

// W3's size: live timers, and reschedules measured.
constexpr std::size_t timeouts_live = 1'000'000;
constexpr std::size_t timeouts_ops = 5'000'000;

// min_heap's runs of the W3 loop (itself cross-checked by the tests): the reference, computed once for every
// structure.
const checksum& timeouts_reference(bool random) {
  static const std::array<checksum, 2> runs = [] {
    std::array<checksum, 2> both;
    for (const bool with_random : {false, true}) {
      timing_wheel::min_heap<payload> reference;
      auto handles = start_timeouts(reference, timeouts_live);
      double unused = 0;
      both[with_random ? 1 : 0] = run_timeouts(reference, handles, timeouts_ops, unused, with_random, [] {});
    }
    return both;
  }();
  return runs[random ? 1 : 0];
}

template <class S>
void timeouts(benchmark::State& state, bool random) {
  using Q = typename S::type;
  constexpr std::size_t live = timeouts_live;
  constexpr std::size_t ops = timeouts_ops;
  const checksum& expected = timeouts_reference(random);
  double ns = 0;
  double bytes = 0;
  for (auto _ : state) {
    const std::size_t before = malloc_bytes();
    auto q = std::make_unique<Q>();
    auto handles = start_timeouts(*q, live);
    const std::size_t handle_bytes = handles.capacity() * sizeof(handles[0]);
    double op_ns = 0;
    const checksum got = run_timeouts(*q, handles, ops, op_ns, random,
                                      [&] { bytes += static_cast<double>(malloc_bytes() - before - handle_bytes); });
    ns += op_ns;
    state.SetIterationTime(op_ns * static_cast<double>(ops) * 1e-9);
    if (S::exact) verify(state, got, expected);
    // (A coarse wheel fires in another order, so its re-arms draw other timeouts: only a fixed timeout keeps the
    // count comparable.)
    if (!random && got.count != expected.count) state.SkipWithError("timers were lost");
    state.PauseTiming();
    q.reset();
    state.ResumeTiming();
  }
  state.counters["ns_per_op"] = ns / static_cast<double>(state.iterations());
  state.counters["bytes_per_timer"] = bytes / static_cast<double>(state.iterations()) / static_cast<double>(live);
}

// The W6 loop: returns the checksum of next_expiration()'s answers (and of any timer fired: none should).
template <class Q>
checksum run_requests(Q& q, std::size_t live, std::size_t ops, double& ns_per_op) {
  constexpr tick timeout = 30'000'000;
  constexpr tick spacing = 150;  // 10^5 in flight: a request completes 15 s after it starts, well within its timeout
  std::vector<bench::handle_of<Q>> in_flight(live);  // oldest first, from op % live on
  for (std::size_t i = 0; i < live; ++i) in_flight[i] = q.insert(i * spacing + timeout, i);
  checksum got;
  const auto fired = [&got](tick deadline, payload&& id) { got.add(deadline, id); };
  const auto started = clock_type::now();
  for (std::size_t op = 0; op < ops; ++op) {
    const tick now = (live + op) * spacing;
    q.advance(now, fired);
    const std::size_t oldest = op % live;
    q.cancel(in_flight[oldest]);
    in_flight[oldest] = q.insert(now + timeout, live + op);
    if (const std::optional<tick> next = q.next_expiration()) got.add(*next, op);
  }
  ns_per_op = nanoseconds(clock_type::now() - started) / static_cast<double>(ops);
  return got;
}

template <class S>
void requests(benchmark::State& state) {
  using Q = typename S::type;
  constexpr std::size_t live = 100'000;
  constexpr std::size_t ops = 1'000'000;
  static const checksum expected = [] {  // min_heap's run (itself cross-checked by the tests) is the reference
    timing_wheel::min_heap<payload> reference;
    double unused = 0;
    return run_requests(reference, live, ops, unused);
  }();
  double ns = 0;
  for (auto _ : state) {
    auto q = std::make_unique<Q>();
    q->reserve(live);
    double op_ns = 0;
    const checksum got = run_requests(*q, live, ops, op_ns);
    ns += op_ns;
    state.SetIterationTime(op_ns * static_cast<double>(ops) * 1e-9);
    if (S::exact) verify(state, got, expected);  // a coarse wheel answers its rounded fire times
    if (got.count != expected.count) state.SkipWithError("a timer fired or an answer was missing");
    state.PauseTiming();
    q.reset();
    state.ResumeTiming();
  }
  state.counters["ns_per_op"] = ns / static_cast<double>(state.iterations());
}

template <class S>
void sparse(benchmark::State& state, unsigned jump_log) {
  using Q = typename S::type;
  const tick jump = tick{1} << jump_log;
  std::vector<tick> deadlines(1000);
  for (std::size_t i = 0; i < deadlines.size(); ++i) deadlines[i] = 1 + mix(i + 7) % (4096 * jump - 1);
  const checksum expected = sorted_reference(deadlines, S::exact);
  double ns = 0;
  for (auto _ : state) {
    auto q = std::make_unique<Q>();
    for (std::size_t i = 0; i < deadlines.size(); ++i) q->insert(deadlines[i], i);
    checksum got;
    got.ordered = S::exact;
    const auto on_expire = [&got](tick deadline, payload&& id) { got.add(deadline, id); };
    const auto started = clock_type::now();
    for (tick to = jump; to <= 4096 * jump; to += jump) q->advance(to, on_expire);
    const auto elapsed = clock_type::now() - started;
    ns += nanoseconds(elapsed);
    state.SetIterationTime(std::chrono::duration<double>(elapsed).count());
    verify(state, got, expected);
  }
  state.counters["ns_per_advance"] = ns / static_cast<double>(state.iterations()) / 4096;
}

void register_all() {
  bench::for_each_structure([]<class S>() {
    const std::string name(S::name);
    for (const std::size_t n : {std::size_t{10'000}, std::size_t{1'000'000}, std::size_t{10'000'000}}) {
      for (const bool tick_by_tick : {false, true}) {
        // A single ring walks thousands of timers per tick at 10^7 (and a std::multimap needs minutes): skipped.
        if (n == 10'000'000 && (S::slow || S::name == bench::multimap_name)) continue;
        benchmark::RegisterBenchmark(
            ("W1_bulk/" + name + "/" + std::to_string(n) + (tick_by_tick ? "/tick" : "/jump")).c_str(),
            [n, tick_by_tick](benchmark::State& state) { bulk<S>(state, n, tick_by_tick); })
            ->UseManualTime()
            ->Iterations(n >= 1'000'000 ? 1 : 20)
            ->Unit(benchmark::kMillisecond);
      }
    }
    benchmark::RegisterBenchmark(("W3_timeouts/" + name).c_str(),
                                 [](benchmark::State& state) { timeouts<S>(state, false); })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("W3_random_timeouts/" + name).c_str(),
                                 [](benchmark::State& state) { timeouts<S>(state, true); })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
    // A wheel without bitmaps finds the next timer by walking ticks and reading a whole slot: minutes here.
    if (!S::slow && !S::walks_ticks) {
      benchmark::RegisterBenchmark(("W6_requests/" + name).c_str(), requests<S>)
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    }
    for (const unsigned jump_log : {10U, 20U, 30U}) {
      if (S::walks_ticks && jump_log > 10) continue;  // 4096 jumps of 2^20 ticks walked one by one: minutes
      benchmark::RegisterBenchmark(("W5_sparse/" + name + "/2^" + std::to_string(jump_log)).c_str(),
                                   [jump_log](benchmark::State& state) { sparse<S>(state, jump_log); })
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
  });
}
}  // namespace

int main(int argc, char** argv) {
  // glibc raises its mmap threshold to the size of each large block freed, so whether a repetition's reserve() gets
  // fresh pages (8 us a first-touch fault on this VM) or reuses warm ones depended on the blocks the structures
  // before it freed: W1's inserts at 10^6 read 29 ns for one wheel and 8 for another with the same code. A fixed
  // threshold gives every large block fresh pages, every repetition, every structure, as a new process gets them.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
