// A TCP echo server on epoll that closes connections idle for longer than a timeout. Each connection has one timer
// in a timing_wheel::timer_service; activity pushes it back (an O(1) reschedule), and the time until the next
// timer is epoll_wait's timeout, so the server sleeps while nothing is due.
//
//   idle_timeouts --port N --idle-ms MS     (--port 0 picks a free port)
//
// First line of output: "listening on 127.0.0.1:PORT". SIGUSR1 prints a line of counters; SIGINT or SIGTERM
// prints them and exits 0. Linux only.
#include "server_common.hpp"

#include <timing_wheel/chrono.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <csignal>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {
using clock_type = std::chrono::steady_clock;
using idle_server::counters;
using idle_server::print_counters;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "idle_timeouts: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

class server {
 public:
  server(int port, std::chrono::milliseconds idle) : m_idle(idle), m_timers(clock_type::now()) {
    m_listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (m_listener < 0) fail("socket");
    const int yes = 1;
    setsockopt(m_listener, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(m_listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) fail("bind");
    if (listen(m_listener, 4096) != 0) fail("listen");
    socklen_t length = sizeof address;
    if (getsockname(m_listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) fail("getsockname");
    m_port = ntohs(address.sin_port);

    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGUSR1);
    if (sigprocmask(SIG_BLOCK, &signals, nullptr) != 0) fail("sigprocmask");
    m_signals = signalfd(-1, &signals, SFD_NONBLOCK | SFD_CLOEXEC);
    if (m_signals < 0) fail("signalfd");

    m_epoll = epoll_create1(EPOLL_CLOEXEC);
    if (m_epoll < 0) fail("epoll_create1");
    watch(m_listener);
    watch(m_signals);
  }

  [[nodiscard]] int port() const { return m_port; }

  // Runs until SIGINT or SIGTERM.
  void run() {
    std::array<epoll_event, 256> events{};
    for (;;) {
      const int timeout = m_timers.timeout_ms(clock_type::now());
      const int ready = epoll_wait(m_epoll, events.data(), static_cast<int>(events.size()), timeout);
      ++m_counters.wakeups;
      if (ready < 0 && errno != EINTR) fail("epoll_wait");
      for (int i = 0; i < ready; ++i) {
        const int fd = events[static_cast<std::size_t>(i)].data.fd;
        if (fd == m_listener) {
          accept_all();
        } else if (fd == m_signals) {
          if (!handle_signals()) return;
        } else {
          serve(fd);
        }
      }
      m_timers.poll(clock_type::now(), [this](int& fd) {
        ++m_counters.closed_idle;
        m_connections[static_cast<std::size_t>(fd)] = {};
        close_connection(fd);
      });
    }
  }

  void shut_down() {
    for (std::size_t fd = 0; fd < m_connections.size(); ++fd) {
      if (m_connections[fd].open) close_connection(static_cast<int>(fd));
    }
    print_counters(m_counters);
  }

 private:
  struct connection {
    timing_wheel::timer_handle idle_timer{};
    bool open = false;
  };

  void watch(int fd) const {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = fd;
    if (epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &event) != 0) fail("epoll_ctl");
  }

  void accept_all() {
    for (;;) {
      const int fd = accept4(m_listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNABORTED) return;
        if (errno == EMFILE || errno == ENFILE) return;  // out of descriptors: the rest wait in the backlog
        fail("accept4");
      }
      if (static_cast<std::size_t>(fd) >= m_connections.size()) m_connections.resize(static_cast<std::size_t>(fd) + 1);
      watch(fd);
      m_connections[static_cast<std::size_t>(fd)] = {m_timers.schedule_after(m_idle, fd), true};
      ++m_counters.accepted;
      ++m_counters.open;
    }
  }

  // Echoes what arrived and pushes the idle timeout back; closes on end of stream or error.
  void serve(int fd) {
    connection& c = m_connections[static_cast<std::size_t>(fd)];
    std::array<char, 4096> buffer{};
    for (;;) {
      const ssize_t got = read(fd, buffer.data(), buffer.size());
      if (got > 0) {
        m_timers.reschedule(c.idle_timer, clock_type::now() + m_idle);
        // Echo; a peer that does not read is not this example's concern, so a short write is dropped.
        static_cast<void>(write(fd, buffer.data(), static_cast<std::size_t>(got)));
        continue;
      }
      if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (got < 0 && errno == EINTR) continue;
      static_cast<void>(m_timers.cancel(c.idle_timer));
      c = {};
      ++m_counters.closed_by_peer;
      close_connection(fd);
      return;
    }
  }

  void close_connection(int fd) {
    epoll_ctl(m_epoll, EPOLL_CTL_DEL, fd, nullptr);
    close(fd);
    --m_counters.open;
  }

  // Returns false when asked to stop.
  bool handle_signals() {
    signalfd_siginfo info{};
    while (read(m_signals, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      if (info.ssi_signo == SIGUSR1) {
        print_counters(m_counters);
      } else {
        return false;
      }
    }
    return true;
  }

  std::chrono::milliseconds m_idle;
  timing_wheel::timer_service<int> m_timers;
  std::vector<connection> m_connections;
  counters m_counters;
  int m_listener = -1;
  int m_signals = -1;
  int m_epoll = -1;
  int m_port = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const idle_server::options opt = idle_server::parse_options(argc, argv, "idle_timeouts");
  idle_server::raise_descriptor_limit();
  std::signal(SIGPIPE, SIG_IGN);
  server s(opt.port, opt.idle);
  std::printf("listening on 127.0.0.1:%d\n", s.port());
  std::fflush(stdout);
  s.run();
  s.shut_down();
  return 0;
}
