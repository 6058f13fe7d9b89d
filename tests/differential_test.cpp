// Random operation sequences at every scale, applied to every structure and shape: the exact ones must leave the
// model's trace event for event; the coarse ones must fire every timer within its bounds (coarse_test.cpp).
#include "support/catch.hpp"
#include "support/model_queue.hpp"
#include "support/queues.hpp"
#include "support/random_ops.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

using namespace timing_wheel_test;

namespace {
struct run_config {
  tick start;
  std::uint64_t seed;
};

// 4 runs of 25,000 operations: 10^5 per shape, starting at 0, before a 2^32 boundary, anywhere, and near the end
// of time.
std::vector<run_config> configs() {
  const std::uint64_t seed = seed_or(20261130);
  return {
      {0, seed}, {(tick{1} << 32) - 300, seed + 1}, {mix(seed), seed + 2}, {UINT64_MAX - (tick{1} << 24), seed + 3}};
}
constexpr std::size_t operations_per_run = 25'000;

const std::vector<trace_event>& model_trace(const run_config& config) {
  static std::map<std::pair<tick, std::uint64_t>, std::vector<trace_event>> cache;
  auto [it, fresh] = cache.try_emplace({config.start, config.seed});
  if (fresh) {
    random_run<model_queue<std::uint64_t>> model(config.start, config.seed, operations_per_run);
    const std::string error = model.run();
    if (!error.empty()) FAIL("the model itself failed: " << error);
    it->second = model.trace();
  }
  return it->second;
}
}  // namespace

TEMPLATE_LIST_TEST_CASE("exact queues reproduce the model's trace over random operations", "[differential]",
                        randomised_exact_queues<std::uint64_t>) {
  for (const run_config& config : configs()) {
    INFO("replay with TIMING_WHEEL_SEED=" << config.seed << " (start " << config.start << ")");
    random_run<TestType> run(config.start, config.seed, operations_per_run);
    REQUIRE(run.run() == "");
    REQUIRE(run.fired() > operations_per_run / 10);
    REQUIRE(compare_traces(model_trace(config), run.trace()) == "");
  }
}

TEMPLATE_LIST_TEST_CASE("coarse wheels fire every timer within its bounds over random operations", "[differential]",
                        randomised_coarse_queues<std::uint64_t>) {
  for (const run_config& config : configs()) {
    INFO("replay with TIMING_WHEEL_SEED=" << config.seed << " (start " << config.start << ")");
    random_run<TestType> run(config.start, config.seed, operations_per_run);
    REQUIRE(run.run() == "");
    REQUIRE(run.fired() > operations_per_run / 10);
  }
}

namespace {
// A payload large enough that 250,000 timers' nodes outgrow the cache (64 MB): the wheel's firing then loads the
// next slot's timers ahead of firing them, a path smaller runs never take.
struct fat_payload {
  std::uint64_t id = 0;
  std::array<std::uint64_t, 29> padding{};
};

// Inserts 250,000 timers at several densities (lone timers, crowded slots, ties), then advances by jumps and tick by
// tick while the callbacks insert, cancel and reschedule; returns every firing as (deadline, id, now()).
template <class Q>
std::vector<std::tuple<tick, std::uint64_t, tick>> fat_run(std::uint64_t seed) {
  Q q;
  rng r{seed};
  std::vector<timer_handle> handles;
  std::vector<std::tuple<tick, std::uint64_t, tick>> fired;
  const auto add = [&](tick deadline) {
    const std::uint64_t id = handles.size();
    handles.push_back(q.insert(deadline, fat_payload{id, {}}));
  };
  for (std::size_t i = 0; i < 250'000; ++i) {
    switch (r.below(4)) {
      case 0:
        add(1 + r.below(tick{1} << 20));  // mostly lone in their slots
        break;
      case 1:
        add(1 + r.below(4096));  // several a slot, in level 0 from the start
        break;
      case 2:
        add(1 + r.below(64) * 1000);  // ties
        break;
      default:
        add(1 + r.below(tick{1} << 24));  // beyond the run: cascaded, some still pending at the end
    }
  }
  const auto on_expire = [&](tick deadline, fat_payload&& payload) {
    fired.emplace_back(deadline, payload.id, q.now());
    switch (r.below(16)) {
      case 0:
        add(q.now());  // due now: fires in this call
        break;
      case 1:
        add(q.now() + 1 + r.below(5000));
        break;
      case 2:
        static_cast<void>(q.cancel(handles[r.below(handles.size())]));
        break;
      case 3:
        static_cast<void>(q.reschedule(handles[r.below(handles.size())], q.now() + r.below(100'000)));
        break;
      default:
        break;
    }
  };
  while (q.now() < (tick{1} << 21)) {
    if (r.below(2) == 0) {
      q.advance(q.now() + 1 + r.below(tick{1} << 16), on_expire);
    } else {
      for (std::size_t i = r.below(3000); i > 0; --i) q.advance(q.now() + 1, on_expire);
    }
  }
  return fired;
}
}  // namespace

TEMPLATE_TEST_CASE("wheels whose nodes outgrow the cache fire as min_heap does", "[differential]",
                   (hierarchical_wheel<fat_payload>), (hierarchical_wheel<fat_payload, 8, 8>)) {
  const std::uint64_t seed = seed_or(20261205);
  INFO("replay with TIMING_WHEEL_SEED=" << seed);
  const auto expected = fat_run<min_heap<fat_payload>>(seed);
  REQUIRE(expected.size() > 100'000);
  REQUIRE(fat_run<TestType>(seed) == expected);
}
