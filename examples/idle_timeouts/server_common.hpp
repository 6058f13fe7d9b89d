// What the three idle-timeout servers (epoll, Asio, libuv) share: the command line, the counters they print, and
// the descriptor limit they lift. Each server's own file is the part that differs: how it meets its event loop.
//
//   PROGRAM --port N --idle-ms MS     (--port 0 picks a free port)
#pragma once

#include <sys/resource.h>

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace idle_server {

struct counters {
  std::uint64_t wakeups = 0;  // times the loop woke and ran the server's code
  std::uint64_t accepted = 0;
  std::uint64_t closed_idle = 0;
  std::uint64_t closed_by_peer = 0;
  std::uint64_t open = 0;
};

// The line SIGUSR1 asks for, and the last line before exiting.
inline void print_counters(const counters& c) {
  std::printf("stats wakeups %" PRIu64 " accepted %" PRIu64 " open %" PRIu64 " closed-idle %" PRIu64
              " closed-by-peer %" PRIu64 "\n",
              c.wakeups, c.accepted, c.open, c.closed_idle, c.closed_by_peer);
  std::fflush(stdout);
}

// Thousands of connections need thousands of descriptors: lift the soft limit to the hard one.
inline void raise_descriptor_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    static_cast<void>(setrlimit(RLIMIT_NOFILE, &limit));
  }
}

struct options {
  int port = 0;
  std::chrono::milliseconds idle{0};
};

[[noreturn]] inline void usage(const char* program) {
  std::fprintf(stderr, "usage: %s --port N --idle-ms MS\n", program);
  std::exit(2);
}

// Parses --port N --idle-ms MS; anything else prints the usage and exits 2.
inline options parse_options(int argc, char** argv, const char* program) {
  const auto number = [program](const char* text, long low, long high) {
    char* end = nullptr;
    errno = 0;
    const long value = std::strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < low || value > high) usage(program);
    return value;
  };
  long port = -1;
  long idle_ms = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--port") {
      port = number(argv[i + 1], 0, 65535);
    } else if (arg == "--idle-ms") {
      idle_ms = number(argv[i + 1], 1, 86'400'000);
    } else {
      usage(program);
    }
  }
  if (argc % 2 == 0 || port < 0 || idle_ms < 0) usage(program);
  return {static_cast<int>(port), std::chrono::milliseconds(idle_ms)};
}

}  // namespace idle_server
