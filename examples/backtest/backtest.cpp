// A backtest's event loop: several pre-sorted market-data streams (as if read from the capture files of several
// exchanges) are merged in time order by a timer queue, and every market event schedules follow-ups at +1 ms,
// +100 ms, +1 s and +1 min (order timeouts, re-quotes, risk checks). One tick is one microsecond; the streams
// cover one hour. The program checks that every timer fires in time order, ties in insertion order, and that none
// is lost.
//
//   backtest --events N [--streams K] [--queue wheel|heap] [--seed S] [--step] [--rss]
//
// --step drives the queue as an event loop does: ask next_expiration(), advance to it, repeat (the follow-ups are
// still scheduled from the callbacks); without it the whole replay is one advance.
// prints one line: events N timers M order ok events/s X peak-live L
// where M counts every timer fired (market events and follow-ups), then, with --rss, a line "peak-rss-kb K".
// Exits 1 if the order check or the count fails. Built in bench/ (timing_wheel_backtest), it also races the
// benchmark baselines: --queue wheel-8x8|lean|textbook|pq|multimap|btree|boost|flat.
#include <timing_wheel/hierarchical_wheel.hpp>
#include <timing_wheel/min_heap.hpp>
#ifdef TIMING_WHEEL_BACKTEST_BASELINES
#include "structures.hpp"
#endif

#include <sys/resource.h>

#include <array>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace {
using timing_wheel::tick;

constexpr tick hour_us = 3'600'000'000;
constexpr std::array<tick, 4> follow_up_delays{1'000, 100'000, 1'000'000, 60'000'000};
constexpr std::uint32_t market_event = UINT32_MAX;

struct options {
  std::uint64_t events = 1'000'000;
  std::uint32_t streams = 4;
  std::string queue = "wheel";
  std::uint64_t seed = 1;
  bool step = false;
};

// A capture file of one exchange, read lazily: event times in non-decreasing order over the hour, with ties.
class stream {
 public:
  stream(std::uint64_t events, std::uint64_t seed) : m_left(events), m_state(seed) {
    m_mean_gap = events == 0 ? hour_us : hour_us / events;
  }
  [[nodiscard]] bool next(tick& at) {
    if (m_left == 0) return false;
    --m_left;
    m_time += random() % (2 * m_mean_gap + 1);  // gaps of 0 make same-microsecond ties
    at = m_time;
    return true;
  }

 private:
  std::uint64_t random() {
    m_state += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = m_state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t m_left;
  std::uint64_t m_state;
  std::uint64_t m_mean_gap;
  tick m_time = 0;
};

struct timer {
  std::uint64_t sequence;  // insertion order, to check that ties fire first-in first-out
  std::uint32_t stream;    // the stream a market event came from
  std::uint32_t kind;      // market_event, or the index of the follow-up delay
};

struct result {
  std::uint64_t events = 0;
  std::uint64_t fired = 0;
  std::uint64_t inserted = 0;
  std::size_t peak_live = 0;
  bool in_order = true;
  double seconds = 0;
};

template <class Queue>
result run(const options& opt) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<stream> streams;
  streams.reserve(opt.streams);
  for (std::uint32_t s = 0; s < opt.streams; ++s) {
    streams.emplace_back(opt.events / opt.streams + (s < opt.events % opt.streams ? 1 : 0), opt.seed * 1000 + s);
  }

  Queue queue;
  result out;
  std::uint64_t sequence = 0;
  tick last_time = 0;
  std::uint64_t last_sequence = 0;
  const auto schedule = [&](tick at, std::uint32_t from, std::uint32_t kind) {
    queue.insert(at, timer{++sequence, from, kind});
    ++out.inserted;
  };
  for (std::uint32_t s = 0; s < opt.streams; ++s) {
    tick at = 0;
    if (streams[s].next(at)) schedule(at, s, market_event);
  }
  out.peak_live = queue.size();

  const auto on_fire = [&](tick at, timer&& t) {
    ++out.fired;
    if (at < last_time || (at == last_time && t.sequence < last_sequence)) out.in_order = false;
    last_time = at;
    last_sequence = t.sequence;
    if (t.kind != market_event) return;
    ++out.events;
    for (std::uint32_t k = 0; k < follow_up_delays.size(); ++k) schedule(at + follow_up_delays[k], t.stream, k);
    tick next = 0;
    if (streams[t.stream].next(next)) schedule(next, t.stream, market_event);
    if (queue.size() > out.peak_live) out.peak_live = queue.size();
  };
  // The whole replay is one advance: the callbacks schedule what comes next (follow-ups, the stream's next event)
  // and the queue jumps from due time to due time by itself; or, with --step, one advance per due time.
  if (opt.step) {
    while (const std::optional<tick> due = queue.next_expiration()) queue.advance(*due, on_fire);
  } else {
    queue.advance(UINT64_MAX, on_fire);
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

[[noreturn]] void usage() {
  std::fputs("usage: backtest --events N [--streams K] [--queue wheel|heap] [--seed S] [--step] [--rss]\n", stderr);
  std::exit(2);
}

std::uint64_t parse_number(const char* text) {
  char* end = nullptr;
  const double value = std::strtod(text, &end);  // accepts 1e8
  if (end == text || *end != '\0' || value < 0 || value > 1e15) usage();
  return static_cast<std::uint64_t>(value);
}
}  // namespace

int main(int argc, char** argv) {
  options opt;
  bool report_rss = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--rss") {
      report_rss = true;
      continue;
    }
    if (arg == "--step") {
      opt.step = true;
      continue;
    }
    if (i + 1 >= argc) usage();
    const char* value = argv[++i];
    if (arg == "--events") {
      opt.events = parse_number(value);
    } else if (arg == "--streams") {
      opt.streams = static_cast<std::uint32_t>(parse_number(value));
    } else if (arg == "--queue") {
      opt.queue = value;
    } else if (arg == "--seed") {
      opt.seed = parse_number(value);
    } else {
      usage();
    }
  }
  if (opt.streams == 0 || opt.streams > 1'000'000) usage();

  result out;
  if (opt.queue == "wheel") {
    out = run<timing_wheel::hierarchical_wheel<timer>>(opt);
  } else if (opt.queue == "heap") {
    out = run<timing_wheel::min_heap<timer>>(opt);
#ifdef TIMING_WHEEL_BACKTEST_BASELINES
  } else if (opt.queue == "wheel-8x8") {
    out = run<timing_wheel::hierarchical_wheel<timer, 8, 8>>(opt);
  } else if (opt.queue == "pq") {
    out = run<bench::tombstone_queue<timer>>(opt);
  } else if (opt.queue == "multimap") {
    out = run<bench::multimap_queue<timer>>(opt);
  } else if (opt.queue == "lean") {
    out = run<bench::lean_heap<timer>>(opt);
  } else if (opt.queue == "textbook") {
    out = run<bench::textbook_wheel<timer>>(opt);
  } else if (opt.queue == "flat") {
    out = run<timing_wheel::flat_wheel<timer, 4096>>(opt);
#if TIMING_WHEEL_BENCH_HAS_ABSL
  } else if (opt.queue == "btree") {
    out = run<bench::btree_queue<timer>>(opt);
#endif
#if TIMING_WHEEL_BENCH_HAS_BOOST
  } else if (opt.queue == "boost") {
    out = run<bench::boost_heap_queue<timer>>(opt);
#endif
#endif
  } else {
    usage();
  }
  const bool complete =
      out.events == opt.events && out.fired == out.inserted && out.fired == opt.events * (1 + follow_up_delays.size());
  const bool ok = out.in_order && complete;
  std::printf("events %" PRIu64 " timers %" PRIu64 " order %s events/s %.0f peak-live %zu\n", out.events, out.fired,
              ok ? "ok" : "FAILED", out.seconds > 0 ? static_cast<double>(out.events) / out.seconds : 0.0,
              out.peak_live);
  if (!complete) {
    std::fprintf(stderr,
                 "backtest: lost timers: %" PRIu64 " events of %" PRIu64 ", %" PRIu64 " fired of %" PRIu64
                 " scheduled\n",
                 out.events, opt.events, out.fired, out.inserted);
  }
  if (!out.in_order) std::fputs("backtest: a timer fired out of time order\n", stderr);
  if (report_rss) {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("peak-rss-kb %ld\n", usage.ru_maxrss);
  }
  return ok ? 0 : 1;
}
