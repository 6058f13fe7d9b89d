// The idle-timeout echo server of examples/idle_timeouts, on libuv: a TCP echo server that closes connections idle
// for longer than a timeout. Each connection has one timer in a timing_wheel::uv_timer_service; every read pushes
// it back (an O(1) reschedule instead of a uv_timer_t's again/start in the loop's heap), and one uv_timer_t armed
// at the next expiration does the waiting, so the server sleeps while nothing is due.
//
//   idle_timeouts_uv --port N --idle-ms MS     (--port 0 picks a free port)
//
// First line of output: "listening on 127.0.0.1:PORT". SIGUSR1 prints a line of counters; SIGINT or SIGTERM
// prints them and exits 0.
#include "../idle_timeouts/server_common.hpp"

#include <timing_wheel/uv.hpp>

#include <uv.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <unordered_set>

namespace {
using idle_server::counters;
using idle_server::print_counters;

[[noreturn]] void fail(const char* what, int status) {
  std::fprintf(stderr, "idle_timeouts_uv: %s: %s\n", what, uv_strerror(status));
  std::exit(1);
}

class server;

struct connection {
  uv_tcp_t stream{};  // first: the uv handle's address is the connection's
  server* owner = nullptr;
  timing_wheel::timer_handle idle_timer{};
  char buffer[4096];
};

struct write_request {
  uv_write_t request{};
  char* data = nullptr;
};

class server {
 public:
  server(uv_loop_t* loop, int port, std::chrono::milliseconds idle) : m_loop(loop), m_idle(idle), m_timers(loop) {
    uv_tcp_init(loop, &m_listener);
    m_listener.data = this;
    sockaddr_in address{};
    uv_ip4_addr("127.0.0.1", port, &address);
    if (const int status = uv_tcp_bind(&m_listener, reinterpret_cast<const sockaddr*>(&address), 0); status != 0) {
      fail("bind", status);
    }
    if (const int status = uv_listen(reinterpret_cast<uv_stream_t*>(&m_listener), 4096, &server::on_connection);
        status != 0) {
      fail("listen", status);
    }
    sockaddr_storage bound{};
    int length = sizeof bound;
    uv_tcp_getsockname(&m_listener, reinterpret_cast<sockaddr*>(&bound), &length);
    m_port = ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    for (uv_signal_t& s : m_signals) {
      uv_signal_init(loop, &s);
      s.data = this;
    }
    uv_signal_start(&m_signals[0], &server::on_signal, SIGINT);
    uv_signal_start(&m_signals[1], &server::on_signal, SIGTERM);
    uv_signal_start(&m_signals[2], &server::on_signal, SIGUSR1);
  }

  [[nodiscard]] int port() const { return m_port; }

 private:
  static void on_connection(uv_stream_t* listener, int status) {
    auto* self = static_cast<server*>(listener->data);
    ++self->m_counters.wakeups;
    if (status < 0) return;
    auto* c = new connection;
    c->owner = self;
    uv_tcp_init(self->m_loop, &c->stream);
    c->stream.data = c;
    if (uv_accept(listener, reinterpret_cast<uv_stream_t*>(&c->stream)) != 0) {
      uv_close(reinterpret_cast<uv_handle_t*>(&c->stream), &server::on_closed);
      return;
    }
    c->idle_timer = self->m_timers.schedule_after(self->m_idle, [self, c] {
      ++self->m_counters.wakeups;
      ++self->m_counters.closed_idle;
      self->close(c);
    });
    self->m_open.insert(c);
    ++self->m_counters.accepted;
    ++self->m_counters.open;
    uv_read_start(reinterpret_cast<uv_stream_t*>(&c->stream), &server::on_alloc, &server::on_read);
  }

  static void on_alloc(uv_handle_t* handle, std::size_t, uv_buf_t* buffer) {
    auto* c = static_cast<connection*>(handle->data);
    *buffer = uv_buf_init(c->buffer, sizeof c->buffer);
  }

  static void on_read(uv_stream_t* stream, ssize_t got, const uv_buf_t*) {
    auto* c = static_cast<connection*>(stream->data);
    server* self = c->owner;
    ++self->m_counters.wakeups;
    if (got < 0) {  // end of stream or an error
      static_cast<void>(self->m_timers.cancel(c->idle_timer));
      ++self->m_counters.closed_by_peer;
      self->close(c);
      return;
    }
    if (got == 0) return;
    self->m_timers.reschedule_after(c->idle_timer, self->m_idle);  // activity: the timeout starts again, O(1)
    auto* w = new write_request;
    w->data = new char[static_cast<std::size_t>(got)];
    std::memcpy(w->data, c->buffer, static_cast<std::size_t>(got));
    const uv_buf_t echo = uv_buf_init(w->data, static_cast<unsigned>(got));
    if (uv_write(&w->request, stream, &echo, 1, &server::on_written) != 0) on_written(&w->request, -1);
  }

  static void on_written(uv_write_t* request, int) {
    auto* w = reinterpret_cast<write_request*>(request);
    delete[] w->data;
    delete w;
  }

  void close(connection* c) {
    if (m_open.erase(c) == 0) return;
    --m_counters.open;
    uv_close(reinterpret_cast<uv_handle_t*>(&c->stream), &server::on_closed);
  }

  static void on_closed(uv_handle_t* handle) { delete static_cast<connection*>(handle->data); }

  static void on_signal(uv_signal_t* handle, int signal) {
    auto* self = static_cast<server*>(handle->data);
    ++self->m_counters.wakeups;
    if (signal == SIGUSR1) {
      print_counters(self->m_counters);
      return;
    }
    self->shut_down();
  }

  // Closes every handle, so that uv_run returns once the close callbacks ran.
  void shut_down() {
    while (!m_open.empty()) {
      connection* c = *m_open.begin();
      static_cast<void>(m_timers.cancel(c->idle_timer));
      close(c);
    }
    print_counters(m_counters);
    uv_close(reinterpret_cast<uv_handle_t*>(&m_listener), nullptr);
    for (uv_signal_t& s : m_signals) uv_close(reinterpret_cast<uv_handle_t*>(&s), nullptr);
    m_timers.close();
  }

  uv_loop_t* m_loop;
  std::chrono::milliseconds m_idle;
  timing_wheel::uv_timer_service<> m_timers;
  uv_tcp_t m_listener{};
  uv_signal_t m_signals[3]{};
  std::unordered_set<connection*> m_open;
  counters m_counters;
  int m_port = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const idle_server::options opt = idle_server::parse_options(argc, argv, "idle_timeouts_uv");
  idle_server::raise_descriptor_limit();
  std::signal(SIGPIPE, SIG_IGN);
  uv_loop_t loop;
  uv_loop_init(&loop);
  {
    server s(&loop, opt.port, opt.idle);
    std::printf("listening on 127.0.0.1:%d\n", s.port());
    std::fflush(stdout);
    uv_run(&loop, UV_RUN_DEFAULT);
  }
  uv_run(&loop, UV_RUN_DEFAULT);  // the timer service's handle, closed by its destructor
  return uv_loop_close(&loop) == 0 ? 0 : 1;
}
