// One workload, once, on one structure: the program bench/instructions runs under cachegrind, so that a hot-path
// change is judged by instruction and miss counts, which this machine's noise does not move.
//
//   timing_wheel_instructions WORKLOAD STRUCTURE N
//
// WORKLOAD: w1-jump, w1-tick (N timers due in [1, 2^20), fired in one advance or tick by tick), w2 (N ticks of W2's
// trading mix, bench/trading_mix.hpp: 100 operations and a poll each, then the rest fired), w3 (N live 30 s
// timeouts, 4N reschedules, a tick every 1000), w5 (N timers over 4096 * 2^20 ticks, 4096 advances of 2^20),
// w6 (N requests in flight with 30 s timeouts at 1 us ticks; 10N ops, each: the oldest completes, its timeout
// cancelled, a new one starts, and next_expiration() is asked; its answers make the checksum), w7 (N ticks of an event
// loop's short timers: each tick sends two messages with a retransmit timer each, due 200 to 206 ticks ahead, the
// older of the two sent 21 ticks before is acknowledged, its timer cancelled, and time advances one tick: the other
// fires), or none (the same inputs and reference run with no queue under test: the harness's own cost, to
// subtract). STRUCTURE: a name from
// bench/structures.hpp. Prints "ops K checksum C"; exits 1 if the structure fired the wrong timers.
#include "structures.hpp"
#include "trading_mix.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {
using bench::checksum;
using bench::mix;
using bench::payload;
using bench::tick;

struct totals {
  std::uint64_t ops = 0;
  checksum fired;
};

// Inputs are generated up front by every run, the empty one included, so subtracting it leaves the queue's work.
struct inputs {
  std::string workload;
  std::size_t n = 0;
  std::vector<tick> deadlines;
  std::vector<std::uint32_t> victims;  // w3: which timer each operation reschedules
};

inputs make_inputs(std::string_view workload, std::size_t n) {
  inputs in{std::string(workload), n, {}, {}};
  const bool sparse = workload == "w5";
  const tick range = sparse ? tick{4096} << 20 : tick{1} << 20;
  if (workload == "w2" || workload == "w6" || workload == "w7")
    return in;  // their operations follow from the op number
  if (workload != "w3") {
    in.deadlines.resize(n);
    for (std::size_t i = 0; i < n; ++i) in.deadlines[i] = 1 + mix(i) % (range - 1);
  } else {
    in.victims.resize(4 * n);
    for (std::size_t op = 0; op < in.victims.size(); ++op) in.victims[op] = static_cast<std::uint32_t>(mix(op) % n);
  }
  return in;
}

// W7, out of line so that adding it changed nothing in how the other workloads compile.
template <class Q>
[[gnu::noinline]] void retransmits(Q& q, std::size_t ticks, totals& out) {
  constexpr std::size_t sent = 2;  // messages a tick
  constexpr std::size_t lag = 20;  // ticks before the older one is acknowledged
  std::vector<bench::handle_of<Q>> unacknowledged(sent * (lag + 1));
  const auto on_expire = [&out](tick deadline, payload&& id) { out.fired.add(deadline, id); };
  for (std::size_t t = 0; t < ticks; ++t) {
    const std::size_t row = t % (lag + 1) * sent;
    if (t > lag) q.cancel(unacknowledged[row]);
    for (std::size_t i = 0; i < sent; ++i) {
      const std::uint64_t id = t * sent + i;
      unacknowledged[row + i] = q.insert(q.now() + 200 + mix(id) % 7, id);
    }
    q.advance(q.now() + 1, on_expire);
  }
  q.advance(q.now() + 300, on_expire);
  out.ops = ticks;
}

template <class Q>
totals run(const inputs& in) {
  totals out;
  Q q;
  q.reserve(in.n);
  const auto on_expire = [&out](tick deadline, payload&& id) { out.fired.add(deadline, id); };
  if (in.workload == "w1-jump" || in.workload == "w1-tick") {
    for (std::size_t i = 0; i < in.n; ++i) q.insert(in.deadlines[i], i);
    if (in.workload == "w1-tick") {
      for (tick t = 1; t <= tick{1} << 20; ++t) q.advance(t, on_expire);
    } else {
      q.advance(tick{1} << 20, on_expire);
    }
    out.ops = in.n;
  } else if (in.workload == "w5") {
    for (std::size_t i = 0; i < in.n; ++i) q.insert(in.deadlines[i], i);
    for (tick t = 1; t <= 4096; ++t) q.advance(t << 20, on_expire);
    out.ops = 4096;
  } else if (in.workload == "w2") {
    using handle = bench::handle_of<Q>;
    bench::trading_mix<handle> ops(bench::trading_seed);
    const auto insert = [&q](tick deadline, std::uint32_t id) { return q.insert(deadline, id); };
    const auto cancel = [&q](handle h) { static_cast<void>(q.cancel(h)); };
    const auto fire = [&](tick deadline, payload&& id) {
      out.fired.add(deadline, id);
      ops.fired(static_cast<std::uint32_t>(id));
    };
    for (std::size_t t = 0; t < in.n; ++t) {
      for (std::size_t i = 0; i < bench::trading_ops_per_tick; ++i) ops.op(q.now(), insert, cancel);
      q.advance(q.now() + 1, fire);
    }
    q.advance(q.now() + bench::trading_horizon, fire);
    out.ops = in.n;
  } else if (in.workload == "w6") {
    constexpr tick timeout = 30'000'000;
    constexpr tick spacing = 150;  // a request completes 15 s after it starts
    std::vector<bench::handle_of<Q>> in_flight(in.n);
    for (std::size_t i = 0; i < in.n; ++i) in_flight[i] = q.insert(i * spacing + timeout, i);
    for (std::size_t op = 0; op < 10 * in.n; ++op) {
      const tick now = (in.n + op) * spacing;
      q.advance(now, on_expire);
      q.cancel(in_flight[op % in.n]);
      in_flight[op % in.n] = q.insert(now + timeout, in.n + op);
      if (const auto next = q.next_expiration()) out.fired.add(*next, op);
    }
    out.ops = 10 * in.n;
  } else if (in.workload == "w7") {
    retransmits(q, in.n, out);
  } else if (in.workload == "w3") {
    constexpr tick timeout = 30'000;
    std::vector<bench::handle_of<Q>> handles(in.n);
    for (std::size_t i = 0; i < in.n; ++i) handles[i] = q.insert(timeout + i % 1000, i);
    const auto reinsert = [&](tick deadline, payload&& id) {
      out.fired.add(deadline, id);
      handles[id] = q.insert(q.now() + timeout, id);
    };
    for (std::size_t op = 0; op < in.victims.size(); ++op) {
      q.reschedule(handles[in.victims[op]], q.now() + timeout);
      if ((op + 1) % 1000 == 0) q.advance(q.now() + 1, reinsert);
    }
    q.advance(UINT64_MAX - 1, on_expire);
    out.ops = in.victims.size();
  }
  return out;
}

// The harness alone: what every run spends outside the queue (reading the inputs, the checksum of as many timers).
totals run_none(const inputs& in) {
  totals out;
  if (in.workload == "w2") {  // the mix's own work: its operations, on no queue
    // (With the handle type of this library's queues, so that its bookkeeping is the same code theirs runs.)
    bench::trading_mix<timing_wheel::timer_handle> ops(bench::trading_seed);
    const auto insert = [](tick, std::uint32_t) { return timing_wheel::timer_handle{}; };
    const auto cancel = [](timing_wheel::timer_handle) {};
    for (std::size_t t = 0; t < in.n; ++t) {
      for (std::size_t i = 0; i < bench::trading_ops_per_tick; ++i) ops.op(t, insert, cancel);
    }
    out.ops = in.n;
    return out;
  }
  if (in.workload == "w7") {  // the timers' due times, and the checksum of the half that fires
    for (std::size_t t = 0; t < in.n; ++t) {
      const tick acknowledged = 200 + mix(2 * t) % 7;
      out.fired.add(acknowledged + mix(2 * t + 1) % 7, 2 * t + 1);
    }
    out.ops = in.n;
    return out;
  }
  if (in.workload == "w6") {  // the answers' checksum
    for (std::size_t op = 0; op < 10 * in.n; ++op) out.fired.add(op, op);
    out.ops = 10 * in.n;
    return out;
  }
  const std::size_t timers = in.workload == "w3" ? in.victims.size() / 1000 + in.n : in.n;
  for (std::size_t i = 0; i < timers; ++i) out.fired.add(in.deadlines.empty() ? i : in.deadlines[i], i);
  for (const std::uint32_t victim : in.victims) out.ops += victim != UINT32_MAX ? 1 : 0;
  if (in.workload != "w3") out.ops = in.workload == "w5" ? 4096 : in.n;
  return out;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fputs("usage: timing_wheel_instructions w1-jump|w1-tick|w2|w3|w5|w6|w7 STRUCTURE|none N\n", stderr);
    return 2;
  }
  const std::string_view workload = argv[1];
  const std::string_view wanted = argv[2];
  const std::size_t n = std::strtoull(argv[3], nullptr, 10);
  if (n == 0 || (workload != "w1-jump" && workload != "w1-tick" && workload != "w2" && workload != "w3" &&
                 workload != "w5" && workload != "w6" && workload != "w7")) {
    std::fputs("timing_wheel_instructions: unknown workload or N = 0\n", stderr);
    return 2;
  }
  const inputs in = make_inputs(workload, n);
  // The reference: min_heap's run, itself cross-checked by the tests; run by `none` too, so it is subtracted.
  const totals expected = run<timing_wheel::min_heap<payload>>(in);
  totals got;
  bool found = wanted == "none";
  bool exact = true;
  if (found) got = run_none(in);
  bench::for_each_structure([&]<class S>() {
    if (S::name != wanted) return;
    found = true;
    exact = S::exact;
    got = run<typename S::type>(in);
  });
  if (!found) {
    std::fprintf(stderr, "timing_wheel_instructions: no structure named %.*s\n", static_cast<int>(wanted.size()),
                 wanted.data());
    return 2;
  }
  std::printf("ops %" PRIu64 " checksum %016" PRIx64 "\n", got.ops, got.fired.value);
  if (wanted != "none" && (got.fired.count != expected.fired.count || (exact && !(got.fired == expected.fired)))) {
    std::fputs("timing_wheel_instructions: wrong timers fired\n", stderr);
    return 1;
  }
  return 0;
}
