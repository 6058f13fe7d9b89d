// Cross-thread scheduling: P producer threads schedule timers into one loop thread. Against what most people write
// instead (a std::mutex, a std::priority_queue and a std::condition_variable, as in common thread pools), same run.
//
//   throughput: each producer schedules --requests timers due 0 to 1 ms ahead as fast as it can; requests per
//               second from the first request to the last timer fired.
//   latency:    each producer schedules a timer due now every ~50 us; the time from the call to its firing
//               (p50, p99, p99.9), the loop asleep in between.
//
// Prints one JSON object per (structure, producers, metric) line. Usage: concurrent [--requests N] [--samples N]
#include <timing_wheel/concurrent.hpp>
#include <timing_wheel/eventfd.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <queue>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <poll.h>
#include <sys/prctl.h>
#include <time.h>

namespace {

using steady = std::chrono::steady_clock;
using namespace std::chrono_literals;

struct job {
  steady::time_point sent;
  std::vector<std::int64_t>* latencies;  // nullptr: throughput run
};

// For the latency runs, both loop threads sleep as long as they ask: Linux's default timer slack (50 us for a normal
// thread) stretches a wait of a microsecond or two to about 50, so the tail would measure the kernel, not the
// queues (a due-now timer lands on the next 1 us tick, and a loop that polls just before it sleeps for the rest).
void sleep_as_asked() { ::prctl(PR_SET_TIMERSLACK, 1UL); }

// What a user writes: producers push under the mutex and notify; the loop sleeps on the condition variable until
// the earliest due time, then pops and runs what is due outside the lock.
class mutex_heap_timers {
 public:
  void schedule_at(steady::time_point when, job j) {
    {
      const std::lock_guard<std::mutex> lock(m_lock);
      m_heap.push(entry{when, m_sequence++, j});
    }
    m_ready.notify_one();
  }
  // Runs until stop() and nothing is left; calls fire(job&) for each due timer.
  template <class F>
  void run(F&& fire) {
    std::vector<job> due;
    std::unique_lock<std::mutex> lock(m_lock);
    for (;;) {
      if (m_heap.empty()) {
        if (m_stop) return;
        m_ready.wait(lock);
        continue;
      }
      const steady::time_point now = steady::now();
      if (m_heap.top().when > now) {
        m_ready.wait_until(lock, m_heap.top().when);
        continue;
      }
      while (!m_heap.empty() && m_heap.top().when <= now) {
        due.push_back(m_heap.top().what);
        m_heap.pop();
      }
      lock.unlock();
      for (job& j : due) fire(j);
      due.clear();
      lock.lock();
    }
  }
  void stop() {
    {
      const std::lock_guard<std::mutex> lock(m_lock);
      m_stop = true;
    }
    m_ready.notify_one();
  }

 private:
  struct entry {
    steady::time_point when;
    std::uint64_t sequence;
    job what;
    bool operator<(const entry& other) const {  // the earliest on top, ties in order
      return when != other.when ? when > other.when : sequence > other.sequence;
    }
  };
  std::mutex m_lock;
  std::condition_variable m_ready;
  std::priority_queue<entry> m_heap;
  std::uint64_t m_sequence = 0;
  bool m_stop = false;
};

// This library: a concurrent_service polled by an event loop (ppoll on the eventfd, as epoll would), 1 us ticks.
class wheel_timers {
 public:
  wheel_timers() : m_timers(std::ref(m_wake), steady::now(), 1us) {}
  void schedule_at(steady::time_point when, job j) { m_timers.schedule_at(when, j); }
  template <class F>
  void run(F&& fire) {
    pollfd watched{m_wake.fd(), POLLIN, 0};
    for (;;) {
      m_timers.poll(steady::now(), [&](job& j) { fire(j); });
      // After the poll, so that the read is not between a wake-up and its timer firing; safe there, because no
      // producer signals an awake loop (it is awake from the poll until time_until_next announces its sleep).
      if ((watched.revents & POLLIN) != 0) m_wake.clear();
      watched.revents = 0;
      if (m_stop.load(std::memory_order_acquire) && m_timers.size() == 0) {
        m_timers.poll(steady::now(), [&](job& j) { fire(j); });  // what arrived with the stop
        if (m_timers.size() == 0) return;
      }
      const auto wait = m_timers.time_until_next(steady::now());  // announces the sleep
      if (wait && wait->count() == 0) continue;
      // ppoll takes nanoseconds (epoll_pwait2 does too): the loop sleeps to the microsecond tick, as
      // wait_until does for the condition variable.
      timespec until{};
      if (wait) {
        until.tv_sec = static_cast<time_t>(wait->count() / 1'000'000);
        until.tv_nsec = static_cast<long>(wait->count() % 1'000'000) * 1000;
      }
      ::ppoll(&watched, 1, wait ? &until : nullptr, nullptr);
    }
  }
  void stop() {
    m_stop.store(true, std::memory_order_release);
    m_wake();
  }

 private:
  timing_wheel::eventfd_wakeup m_wake;
  timing_wheel::concurrent_service<job, steady, std::chrono::microseconds> m_timers;
  std::atomic<bool> m_stop{false};
};

template <class Timers>
double throughput(int producers, std::size_t requests) {
  Timers timers;
  std::atomic<std::size_t> fired{0};
  const std::size_t total = requests * static_cast<std::size_t>(producers);
  const steady::time_point start = steady::now();
  std::thread loop([&] { timers.run([&](job&) { fired.fetch_add(1, std::memory_order_relaxed); }); });
  std::vector<std::thread> threads;
  for (int p = 0; p < producers; ++p) {
    threads.emplace_back([&, p] {
      std::mt19937_64 random(static_cast<std::uint64_t>(p) + 1);
      for (std::size_t i = 0; i < requests; ++i) {
        timers.schedule_at(steady::now() + std::chrono::microseconds(random() % 1000), job{{}, nullptr});
      }
    });
  }
  for (std::thread& t : threads) t.join();
  while (fired.load(std::memory_order_relaxed) < total) std::this_thread::sleep_for(100us);
  const double seconds = std::chrono::duration<double>(steady::now() - start).count();
  timers.stop();
  loop.join();
  return static_cast<double>(total) / seconds;
}

template <class Timers>
std::vector<std::int64_t> latency(int producers, std::size_t samples) {
  Timers timers;
  std::vector<std::int64_t> latencies;
  latencies.reserve(samples * static_cast<std::size_t>(producers));
  std::atomic<std::size_t> fired{0};
  std::thread loop([&] {
    sleep_as_asked();
    timers.run([&](job& j) {
      j.latencies->push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(steady::now() - j.sent).count());
      fired.fetch_add(1, std::memory_order_release);
    });
  });
  std::vector<std::thread> threads;
  for (int p = 0; p < producers; ++p) {
    threads.emplace_back([&, p] {
      std::mt19937_64 random(static_cast<std::uint64_t>(p) + 7);
      for (std::size_t i = 0; i < samples; ++i) {
        std::this_thread::sleep_for(std::chrono::microseconds(20 + random() % 60));
        const steady::time_point now = steady::now();
        timers.schedule_at(now, job{now, &latencies});
      }
    });
  }
  for (std::thread& t : threads) t.join();
  while (fired.load(std::memory_order_acquire) < samples * static_cast<std::size_t>(producers)) {
    std::this_thread::sleep_for(100us);
  }
  timers.stop();
  loop.join();
  std::sort(latencies.begin(), latencies.end());
  return latencies;
}

std::int64_t percentile(const std::vector<std::int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  const auto at = static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1));
  return sorted[at];
}

template <class Timers>
void measure(const char* name, std::size_t requests, std::size_t samples, int rounds) {
  for (const int producers : {1, 2, 4}) {
    std::vector<double> rates;
    for (int round = 0; round < rounds; ++round) rates.push_back(throughput<Timers>(producers, requests));
    std::sort(rates.begin(), rates.end());
    std::printf("{\"structure\": \"%s\", \"producers\": %d, \"requests_per_s\": %.0f}\n", name, producers,
                rates[rates.size() / 2]);
    const std::vector<std::int64_t> sorted = latency<Timers>(producers, samples);
    std::printf(
        "{\"structure\": \"%s\", \"producers\": %d, \"latency_p50_ns\": %lld, \"latency_p99_ns\": %lld, "
        "\"latency_p999_ns\": %lld, \"samples\": %zu}\n",
        name, producers, static_cast<long long>(percentile(sorted, 0.5)),
        static_cast<long long>(percentile(sorted, 0.99)), static_cast<long long>(percentile(sorted, 0.999)),
        sorted.size());
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t requests = 250'000;
  std::size_t samples = 5'000;
  int rounds = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--requests") == 0) requests = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--samples") == 0) samples = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::atoi(argv[i + 1]);
  }
  measure<wheel_timers>("concurrent_service", requests, samples, rounds);
  measure<mutex_heap_timers>("mutex_priority_queue_condvar", requests, samples, rounds);
}
