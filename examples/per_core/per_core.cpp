// One timer loop per core, and a router that lets any thread schedule into any loop by key (a connection id, an
// instrument, a session). Each loop thread owns a concurrent_service and sleeps in ppoll on its eventfd; producer
// threads route timers to loop (key % loops). The program checks that every timer fired exactly once, on the loop
// its key names, never before its time, and exits 1 otherwise.
//
//   per_core [--loops N] [--producers P] [--timers T]   (T timers per producer, due 0 to 50 ms ahead)
#include <timing_wheel/concurrent.hpp>
#include <timing_wheel/eventfd.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include <poll.h>
#include <sys/prctl.h>
#include <time.h>

namespace {

using steady = std::chrono::steady_clock;

struct timer_job {
  std::uint64_t key;
  std::uint32_t id;
  steady::time_point due;
};

// One loop: its service, its wake-up, its thread.
class timer_loop {
 public:
  using service = timing_wheel::concurrent_service<timer_job, steady, std::chrono::microseconds>;

  timer_loop() : m_timers(std::ref(m_wake), steady::now(), std::chrono::microseconds(100)) {}

  service& timers() noexcept { return m_timers; }

  // Runs on its own thread until stop(): fire(job) for each due timer; then drains what is left into `leftover`.
  template <class Fire, class Leftover>
  void run(Fire&& fire, Leftover&& leftover) {
    // Linux stretches a normal thread's timed sleep by up to 50 us (its timer slack): too coarse for 100 us ticks.
    ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    pollfd watched{m_wake.fd(), POLLIN, 0};
    while (!m_stop.load(std::memory_order_acquire)) {
      const auto wait = m_timers.time_until_next(steady::now());  // right before sleeping: arms the wake-up
      timespec until{};
      if (wait) {
        until.tv_sec = static_cast<time_t>(wait->count() / 1'000'000);
        until.tv_nsec = static_cast<long>(wait->count() % 1'000'000) * 1000;
      }
      const int ready = ::ppoll(&watched, 1, wait ? &until : nullptr, nullptr);
      m_timers.poll(steady::now(), fire);  // the due timers first; the eventfd's read can wait
      // While awake the loop is never signalled (it looks at the inbox before it sleeps), so a read after the poll
      // loses nothing; and it is needed only when a producer did signal.
      if (ready > 0 && (watched.revents & POLLIN) != 0) m_wake.clear();
    }
    m_timers.drain(leftover);
  }
  void stop() {
    m_stop.store(true, std::memory_order_release);
    m_wake();
  }

 private:
  timing_wheel::eventfd_wakeup m_wake;
  service m_timers;
  std::atomic<bool> m_stop{false};
};

// Any thread: which loop a key belongs to, and a schedule into it.
class router {
 public:
  explicit router(std::vector<std::unique_ptr<timer_loop>>& loops) : m_loops(loops) {}
  [[nodiscard]] std::size_t loop_of(std::uint64_t key) const noexcept { return key % m_loops.size(); }
  timing_wheel::remote_handle schedule_at(std::uint64_t key, steady::time_point when, timer_job job) {
    return m_loops[loop_of(key)]->timers().schedule_at(when, job);
  }
  void cancel(std::uint64_t key, timing_wheel::remote_handle handle) { m_loops[loop_of(key)]->timers().cancel(handle); }

 private:
  std::vector<std::unique_ptr<timer_loop>>& m_loops;
};

}  // namespace

int main(int argc, char** argv) {
  std::size_t loops = 2;
  std::size_t producers = 4;
  std::size_t per_producer = 50'000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--loops") == 0) loops = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--producers") == 0) producers = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--timers") == 0) per_producer = std::strtoull(argv[i + 1], nullptr, 10);
  }
  if (loops == 0) loops = 1;
  const std::size_t total = producers * per_producer;
  std::vector<std::atomic<int>> fired(total);
  std::atomic<std::size_t> fired_total{0};
  std::vector<std::atomic<int>> wrong_loop(loops);
  std::atomic<std::size_t> early{0};
  std::atomic<std::size_t> leftover{0};

  std::vector<std::unique_ptr<timer_loop>> owned;
  for (std::size_t i = 0; i < loops; ++i) owned.push_back(std::make_unique<timer_loop>());
  router route(owned);
  std::vector<std::thread> loop_threads;
  for (std::size_t i = 0; i < loops; ++i) {
    loop_threads.emplace_back([&, i] {
      owned[i]->run(
          [&, i](timer_job& job) {
            if (steady::now() < job.due) early.fetch_add(1);
            if (route.loop_of(job.key) != i) wrong_loop[i].fetch_add(1);
            fired[job.id].fetch_add(1);
            fired_total.fetch_add(1);
          },
          [&](timer_job&&) { leftover.fetch_add(1); });
    });
  }
  std::vector<std::thread> producer_threads;
  for (std::size_t p = 0; p < producers; ++p) {
    producer_threads.emplace_back([&, p] {
      std::mt19937_64 random(p + 1);
      for (std::size_t i = 0; i < per_producer; ++i) {
        const auto id = static_cast<std::uint32_t>(p * per_producer + i);
        const std::uint64_t key = random();
        const steady::time_point due = steady::now() + std::chrono::microseconds(random() % 50'000);
        route.schedule_at(key, due, timer_job{key, id, due});
      }
    });
  }
  for (std::thread& t : producer_threads) t.join();
  // Shut down once every timer has fired (a slow build may lag behind its due times), or after a minute.
  const steady::time_point give_up = steady::now() + std::chrono::minutes(1);
  while (fired_total.load() < total && steady::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  for (auto& loop : owned) loop->stop();
  for (std::thread& t : loop_threads) t.join();

  std::size_t once = 0;
  for (const auto& count : fired) once += count.load() == 1 ? 1U : 0U;
  std::size_t misrouted = 0;
  for (const auto& count : wrong_loop) misrouted += static_cast<std::size_t>(count.load());
  const bool ok = once == total && early.load() == 0 && misrouted == 0 && leftover.load() == 0;
  std::printf(
      "%zu loops, %zu producers: %zu timers, %zu fired exactly once, %zu early, %zu on the wrong loop, "
      "%zu left at shutdown: %s\n",
      loops, producers, total, once, early.load(), misrouted, leftover.load(), ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
