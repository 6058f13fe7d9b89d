// The idle-timeout echo server of examples/idle_timeouts, on Asio (standalone): a TCP echo server that closes
// connections idle for longer than a timeout. Each connection has one timer in a timing_wheel::asio_timer_service;
// every read pushes it back (an O(1) reschedule instead of a steady_timer's cancel and re-wait), and one steady_timer
// armed at the next expiration does the waiting, so the server sleeps while nothing is due.
//
//   idle_timeouts_asio --port N --idle-ms MS     (--port 0 picks a free port)
//
// First line of output: "listening on 127.0.0.1:PORT". SIGUSR1 prints a line of counters; SIGINT or SIGTERM
// prints them and exits 0.
#include "../idle_timeouts/server_common.hpp"

#include <timing_wheel/asio.hpp>

#include <asio/buffer.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/signal_set.hpp>
#include <asio/write.hpp>

#include <array>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <unordered_map>

namespace {
using asio::ip::tcp;
using idle_server::counters;
using idle_server::print_counters;

class server {
 public:
  server(asio::io_context& io, int port, std::chrono::milliseconds idle)
      : m_io(io),
        m_idle(idle),
        m_timers(io),
        m_acceptor(io, tcp::endpoint(asio::ip::address_v4::loopback(), static_cast<std::uint16_t>(port))),
        m_signals(io, SIGINT, SIGTERM, SIGUSR1) {}

  [[nodiscard]] int port() const { return m_acceptor.local_endpoint().port(); }

  void start() {
    accept();
    wait_for_signal();
  }

 private:
  struct connection {
    explicit connection(asio::io_context& io) : socket(io) {}
    tcp::socket socket;
    std::array<char, 4096> buffer{};
    timing_wheel::timer_handle idle_timer{};
  };
  using pointer = std::shared_ptr<connection>;

  void accept() {
    m_acceptor.async_accept([this](std::error_code ec, tcp::socket socket) {
      ++m_counters.wakeups;
      if (ec == asio::error::operation_aborted) return;
      if (!ec) {
        auto c = std::make_shared<connection>(m_io);
        c->socket = std::move(socket);
        c->idle_timer = m_timers.schedule_after(m_idle, [this, c](std::error_code timer_ec) {
          ++m_counters.wakeups;
          if (timer_ec) return;  // cancelled: the connection ended first
          ++m_counters.closed_idle;
          close(c);
        });
        m_open.emplace(c.get(), c);
        ++m_counters.accepted;
        ++m_counters.open;
        read(c);
      }
      accept();  // out of descriptors (EMFILE): the rest wait in the backlog and are retried
    });
  }

  void read(const pointer& c) {
    c->socket.async_read_some(asio::buffer(c->buffer), [this, c](std::error_code ec, std::size_t got) {
      ++m_counters.wakeups;
      if (ec) {
        if (c->socket.is_open()) {  // end of stream or an error, not our own close
          static_cast<void>(m_timers.cancel(c->idle_timer));
          ++m_counters.closed_by_peer;
          close(c);
        }
        return;
      }
      m_timers.reschedule_after(c->idle_timer, m_idle);  // activity: the timeout starts again, O(1)
      asio::async_write(c->socket, asio::buffer(c->buffer, got), [this, c](std::error_code write_ec, std::size_t) {
        ++m_counters.wakeups;
        if (!write_ec) read(c);
      });
    });
  }

  void close(const pointer& c) {
    std::error_code ignored;
    c->socket.close(ignored);  // the read outstanding completes with operation_aborted
    if (m_open.erase(c.get()) == 1) --m_counters.open;
  }

  void wait_for_signal() {
    m_signals.async_wait([this](std::error_code ec, int signal) {
      ++m_counters.wakeups;
      if (ec) return;
      if (signal == SIGUSR1) {
        print_counters(m_counters);
        wait_for_signal();
        return;
      }
      shut_down();
    });
  }

  void shut_down() {
    std::error_code ignored;
    m_acceptor.close(ignored);
    while (!m_open.empty()) {
      const pointer c = m_open.begin()->second;
      static_cast<void>(m_timers.cancel(c->idle_timer));
      close(c);
    }
    print_counters(m_counters);
    m_io.stop();
  }

  asio::io_context& m_io;
  std::chrono::milliseconds m_idle;
  timing_wheel::asio_timer_service<> m_timers;
  tcp::acceptor m_acceptor;
  asio::signal_set m_signals;
  std::unordered_map<connection*, pointer> m_open;
  counters m_counters;
};

}  // namespace

int main(int argc, char** argv) {
  const idle_server::options opt = idle_server::parse_options(argc, argv, "idle_timeouts_asio");
  idle_server::raise_descriptor_limit();
  std::signal(SIGPIPE, SIG_IGN);
  asio::io_context io(1);
  server s(io, opt.port, opt.idle);
  std::printf("listening on 127.0.0.1:%d\n", s.port());
  std::fflush(stdout);
  s.start();
  io.run();
  return 0;
}
