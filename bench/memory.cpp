// Bytes per live timer with an 8-byte payload: one structure per process (so that one's freed memory does not
// flatter the next), N timers due in [1, 2^20) inserted after reserve(N). Reports the growth of the resident set
// and of the bytes malloc holds, each divided by N.
//
//   timing_wheel_memory --structure NAME [--timers N]     (prints one JSON object)
#include "structures.hpp"

#include <malloc.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {
std::size_t resident_bytes() {
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return 0;
  unsigned long size = 0;
  unsigned long resident = 0;
  if (std::fscanf(statm, "%lu %lu", &size, &resident) != 2) resident = 0;
  std::fclose(statm);
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

std::size_t malloc_bytes() {
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}
}  // namespace

int main(int argc, char** argv) {
  std::string which;
  std::size_t timers = 10'000'000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--structure") {
      which = argv[i + 1];
    } else if (arg == "--timers") {
      timers = static_cast<std::size_t>(std::strtod(argv[i + 1], nullptr));
    }
  }
  bool found = false;
  bench::for_each_structure([&]<class S>() {
    if (S::name != which) return;
    found = true;
    const std::size_t rss_before = resident_bytes();
    const std::size_t malloc_before = malloc_bytes();
    auto q = std::make_unique<typename S::type>();
    q->reserve(timers);
    for (std::size_t i = 0; i < timers; ++i) q->insert(1 + bench::mix(i) % ((bench::tick{1} << 20) - 1), i);
    const double n = static_cast<double>(timers);
    std::printf("{\"structure\":\"%s\",\"timers\":%zu,\"rss_bytes_per_timer\":%.1f,\"malloc_bytes_per_timer\":%.1f}\n",
                which.c_str(), q->size(), static_cast<double>(resident_bytes() - rss_before) / n,
                static_cast<double>(malloc_bytes() - malloc_before) / n);
  });
  if (!found) {
    std::fprintf(stderr, "timing_wheel_memory: unknown structure '%s'\n", which.c_str());
    return 2;
  }
  return 0;
}
