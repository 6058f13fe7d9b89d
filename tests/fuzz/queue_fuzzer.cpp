// libFuzzer target: the input's bytes decide every operation (inserts at every scale of deadline, cancels and
// reschedules of live, fired and never-valid handles, small and huge advances, callbacks that mutate the queue,
// throwing callbacks, moves, drains, clears). Every exact queue must leave the model's trace; every coarse wheel
// must fire each timer within its bounds; every queue's internal invariants must hold throughout.
#include "support/model_queue.hpp"
#include "support/queues.hpp"
#include "support/random_ops.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

using namespace timing_wheel_test;

namespace {
constexpr std::size_t max_operations = 2000;

// Queue operations checked over the whole run (the model's own excluded), printed when the fuzzer exits.
struct checked_operations {
  std::uint64_t count = 0;
  ~checked_operations() {
    std::fprintf(stderr, "checked queue operations: %llu\n", static_cast<unsigned long long>(count));
  }
} checked;

tick start_from(std::uint8_t choice, std::uint64_t raw) {
  switch (choice % 4) {
    case 0:
      return raw % 1000;
    case 1:
      return (tick{1} << 32) - raw % 1000;
    case 2:
      return UINT64_MAX - raw % (tick{1} << 24);
    default:
      return raw;
  }
}

[[noreturn]] void report(const char* queue, const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", queue, what.c_str());
  std::abort();
}

template <class Q>
void check_exact(const std::uint8_t* data, std::size_t size, tick start, const std::vector<trace_event>& expected) {
  random_run<Q, byte_source> run(start, byte_source(data, size), max_operations, size);
  if (const std::string error = run.run(); !error.empty()) report(typeid(Q).name(), error);
  if (const std::string diff = compare_traces(expected, run.trace()); !diff.empty()) report(typeid(Q).name(), diff);
  checked.count += run.checked();
}

template <class Q>
void check_coarse(const std::uint8_t* data, std::size_t size, tick start) {
  random_run<Q, byte_source> run(start, byte_source(data, size), max_operations, size);
  if (const std::string error = run.run(); !error.empty()) report(typeid(Q).name(), error);
  checked.count += run.checked();
}

template <class... Q>
void check_all_exact(std::tuple<Q...>*, const std::uint8_t* data, std::size_t size, tick start,
                     const std::vector<trace_event>& expected) {
  (check_exact<Q>(data, size, start, expected), ...);
}
template <class... Q>
void check_all_coarse(std::tuple<Q...>*, const std::uint8_t* data, std::size_t size, tick start) {
  (check_coarse<Q>(data, size, start), ...);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 9) return 0;
  std::uint64_t raw = 0;
  for (std::size_t i = 1; i < 9; ++i) raw = (raw << 8) | data[i];
  const tick start = start_from(data[0], raw);
  data += 9;
  size -= 9;

  random_run<model_queue<std::uint64_t>, byte_source> model(start, byte_source(data, size), max_operations, size);
  if (const std::string error = model.run(); !error.empty()) report("model", error);
  check_all_exact(static_cast<randomised_exact_queues<std::uint64_t>*>(nullptr), data, size, start, model.trace());
  check_all_coarse(static_cast<randomised_coarse_queues<std::uint64_t>*>(nullptr), data, size, start);
  return 0;
}
