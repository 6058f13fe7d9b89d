// Random operation sequences at every scale, applied to every structure and shape: the exact ones must leave the
// model's trace event for event; the coarse ones must fire every timer within its bounds (coarse_test.cpp).
#include "support/catch.hpp"
#include "support/model_queue.hpp"
#include "support/queues.hpp"
#include "support/random_ops.hpp"

#include <cstdint>
#include <map>
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
