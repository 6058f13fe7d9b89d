// W3's loop (bench/throughput.cpp: 10^6 live 30 s timeouts, each operation reschedules a random one to now + 30 s,
// 1 ms passes every 1000 operations) with every reschedule timed alone with the TSC: the tail of a reschedule, where
// a structure that reorganises itself now and then (a heap's growth, a list's compaction) shows it. The loop runs
// twice per structure and the second run is reported: the first touches the memory the allocator then reuses, so
// page faults (8 us each on this VM) stay out of the tail.
//
//   timing_wheel_reschedule_tail [--ops N] [--structure NAME]
//
// Prints one line per structure: p50, p99, p99.9, p99.99 and the slowest reschedule in ns, the reschedules over 1 ms,
// and the operation index of the five slowest (a spike at the same index in every run is the structure's; one that
// moves is the machine's). Exits 1 if a structure fired the wrong timers.
#include "structures.hpp"
#include "tsc.hpp"

#include <malloc.h>
#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace {
using bench::mix;
using bench::payload;
using bench::tick;
using bench::tsc;

struct run_result {
  std::vector<std::uint64_t> cycles;  // per reschedule
  bench::checksum fired;
};

template <class Q>
run_result run(std::size_t ops) {
  constexpr std::size_t live = 1'000'000;
  constexpr tick timeout = 30'000;
  auto q = std::make_unique<Q>();
  q->reserve(live);
  std::vector<bench::handle_of<Q>> handles(live);
  for (std::size_t i = 0; i < live; ++i) handles[i] = q->insert(timeout + i % 1000, i);
  run_result out;
  out.cycles.resize(ops);
  const auto reinsert = [&](tick deadline, payload&& id) {
    out.fired.add(deadline, id);
    handles[id] = q->insert(q->now() + timeout, id);
  };
  for (std::size_t op = 0; op < ops; ++op) {
    const std::size_t who = mix(op) % live;
    const std::uint64_t t0 = tsc::now();
    q->reschedule(handles[who], q->now() + timeout);
    out.cycles[op] = tsc::now() - t0;
    if ((op + 1) % 1000 == 0) q->advance(q->now() + 1, reinsert);
  }
  q->advance(UINT64_MAX - 1, [&](tick deadline, payload&& id) { out.fired.add(deadline, id); });
  return out;
}

template <class S>
bool measure(std::size_t ops, const tsc& clock, const bench::checksum* expected) {
  using Q = typename S::type;
  static_cast<void>(run<Q>(ops));  // warms the allocator's memory
  run_result result = run<Q>(ops);
  if (S::exact && expected != nullptr && !(result.fired == *expected)) {
    std::fprintf(stderr, "reschedule_tail: %s fired the wrong timers\n", S::name.data());
    return false;
  }
  std::vector<std::size_t> slowest(result.cycles.size());
  for (std::size_t i = 0; i < slowest.size(); ++i) slowest[i] = i;
  const auto by_cycles = [&](std::size_t a, std::size_t b) { return result.cycles[a] > result.cycles[b]; };
  std::partial_sort(slowest.begin(), slowest.begin() + 5, slowest.end(), by_cycles);
  std::vector<std::uint64_t> sorted = result.cycles;
  std::sort(sorted.begin(), sorted.end());
  const auto at = [&](double q) {
    return clock.ns(
        sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(q * static_cast<double>(sorted.size())))]);
  };
  const auto over_1ms =
      std::count_if(sorted.begin(), sorted.end(), [&](std::uint64_t c) { return clock.ns(c) > 1e6F; });
  std::printf("%-26s p50 %6.0f  p99 %7.0f  p99.9 %8.0f  p99.99 %9.0f  max %10.0f ns  over 1 ms: %td  slowest at",
              S::name.data(), at(0.5), at(0.99), at(0.999), at(0.9999), clock.ns(sorted.back()), over_1ms);
  for (std::size_t i = 0; i < 5; ++i) std::printf(" %zu", slowest[i]);
  std::printf("\n");
  std::fflush(stdout);
  return true;
}
}  // namespace

int main(int argc, char** argv) {
  std::size_t ops = 5'000'000;
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--ops") {
      ops = std::stoull(argv[i + 1]);
    } else if (arg == "--structure") {
      only = argv[i + 1];
    } else {
      std::fputs("usage: timing_wheel_reschedule_tail [--ops N] [--structure NAME]\n", stderr);
      return 2;
    }
  }
  if (ops < 5) ops = 5;
  // Freed blocks stay with the allocator (no trim, no mmap), so the second run reuses the first one's pages.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, -1);
  const tsc clock;
  const bench::checksum expected = run<typename bench::heap::type>(ops).fired;  // min_heap's run: the reference
  bool ok = true;
  const auto one = [&]<class S>() {
    if (only.empty() || only == S::name) ok = measure<S>(ops, clock, &expected) && ok;
  };
  one.template operator()<bench::exact_wheel>();
  one.template operator()<bench::lean>();
  one.template operator()<bench::textbook>();
  one.template operator()<bench::pq>();
#if TIMING_WHEEL_BENCH_HAS_ABSL
  one.template operator()<bench::btree>();
#endif
  return ok ? 0 : 1;
}
