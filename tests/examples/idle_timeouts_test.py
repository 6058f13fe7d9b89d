#!/usr/bin/env python3
"""Drives examples/idle_timeouts on 127.0.0.1: thousands of connections, some talking, most going quiet.

Checks that every quiet connection is closed no earlier than the idle timeout and within TOLERANCE after it, that
no talking connection is closed, and that the server sleeps while nothing is due (its epoll wake-ups, read through
SIGUSR1, do not grow while it waits). Usage: idle_timeouts_test.py PATH_TO_IDLE_TIMEOUTS [QUIET ACTIVE]
"""
import os
import resource
import selectors
import signal
import socket
import subprocess
import sys
import time

IDLE_MS = 1500
TOLERANCE = 0.35  # seconds after the timeout, for a loaded 2-core machine and this Python client
TALK_EVERY = 0.25  # seconds between messages on a talking connection (well inside IDLE_MS)


SERVERS = []


def fail(message):
    print("FAIL: " + message, flush=True)
    for server in SERVERS:  # a server left running would keep ctest waiting on its output
        server.process.kill()
    sys.exit(1)


class Server:
    def __init__(self, binary):
        self.process = subprocess.Popen([binary, "--port", "0", "--idle-ms", str(IDLE_MS)],
                                        stdout=subprocess.PIPE, text=True)
        SERVERS.append(self)
        first = self.process.stdout.readline().strip()
        prefix = "listening on 127.0.0.1:"
        if not first.startswith(prefix):
            fail("first line was %r" % first)
        self.port = int(first[len(prefix):])

    def stats(self):
        self.process.send_signal(signal.SIGUSR1)
        line = self.process.stdout.readline().split()
        if not line or line[0] != "stats":
            fail("expected a stats line, got %r" % line)
        return {line[i]: int(line[i + 1]) for i in range(1, len(line), 2)}

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        final = self.process.stdout.readline()
        code = self.process.wait(timeout=10)
        if code != 0:
            fail("server exited %d" % code)
        return final


class Connection:
    def __init__(self, port, talking):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setblocking(False)
        self.talking = talking
        self.last_send = None
        self.closed_at = None
        self.echoed = False  # the server has read (and answered) what it sent

    def send(self):
        # Taken before sending: the server may read the message (and restart the timeout) before send() returns.
        self.last_send = time.monotonic()
        self.sock.send(b"ping")


def main():
    binary = sys.argv[1]
    quiet_count = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    active_count = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = quiet_count + active_count + 64
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(need, soft)), hard))
    server = Server(binary)
    selector = selectors.DefaultSelector()
    idle = IDLE_MS / 1000.0

    # Phase 1: quiet connections say one thing each, then go quiet.
    connections = open_connections(server.port, selector, quiet_count, talking=False)
    opened = time.monotonic()
    first_deadline = min(c.last_send for c in connections) + idle

    # Phase 2: while quiet timers are pending but none is due, the server must sleep. The window starts once the
    # server has answered every quiet connection (a slow build may still be reading them), so that what it counts
    # is wake-ups with nothing to do.
    settle_by = first_deadline - 0.75
    while time.monotonic() < settle_by and not all(c.echoed for c in connections):
        watch(selector, timeout=min(0.05, max(0.0, settle_by - time.monotonic())))
    drain_echoes(selector, until=min(time.monotonic() + 0.05, settle_by))
    window_end = first_deadline - 0.25
    if window_end - time.monotonic() < 0.3:
        fail("opening %d connections took too long to leave an idle window" % quiet_count)
    before = server.stats()
    drain_echoes(selector, until=window_end)
    after = server.stats()
    sleeping_wakeups = after["wakeups"] - before["wakeups"]
    print("wake-ups while %d timers pending and none due for %.2f s: %d"
          % (after["open"], window_end - opened, sleeping_wakeups), flush=True)
    if sleeping_wakeups > 3:  # the two SIGUSR1s themselves, and slack
        fail("the server woke %d times with nothing due: a busy loop" % sleeping_wakeups)

    # Phase 3: talking connections keep talking while the quiet ones time out.
    talkers = open_connections(server.port, selector, active_count, talking=True)
    connections += talkers
    talk_until = time.monotonic() + idle + 1.0
    next_talk = time.monotonic() + TALK_EVERY
    while time.monotonic() < talk_until:
        watch(selector, timeout=0.01)
        if time.monotonic() >= next_talk:
            for c in talkers:
                if c.closed_at is None:
                    c.send()
            next_talk += TALK_EVERY
    closed_talkers = [c for c in talkers if c.closed_at is not None]
    if closed_talkers:
        fail("%d talking connections were closed" % len(closed_talkers))

    # Phase 4: the talkers go quiet too; wait for everything to close.
    give_up = time.monotonic() + idle + 5
    while any(c.closed_at is None for c in connections) and time.monotonic() < give_up:
        watch(selector, timeout=0.05)
    still_open = [c for c in connections if c.closed_at is None]
    if still_open:
        fail("%d connections were never closed" % len(still_open))
    lateness = sorted(c.closed_at - c.last_send - idle for c in connections)
    early = [x for x in lateness if x < 0]
    if early:
        fail("%d connections closed before the timeout (earliest %.1f ms early)" % (len(early), -early[0] * 1000))
    late = [x for x in lateness if x > TOLERANCE]
    if late:
        fail("%d connections closed more than %.0f ms late (worst %.1f ms)"
             % (len(late), TOLERANCE * 1000, late[-1] * 1000))
    print("closed %d connections after the %d ms timeout: lateness p50 %.1f ms, max %.1f ms"
          % (len(lateness), IDLE_MS, lateness[len(lateness) // 2] * 1000, lateness[-1] * 1000), flush=True)

    # Phase 5: nothing pending: the server sleeps until told otherwise.
    before = server.stats()
    if before["open"] != 0 or before["closed-idle"] != len(connections):
        fail("unexpected counters %r" % before)
    time.sleep(1.0)
    after = server.stats()
    idle_wakeups = after["wakeups"] - before["wakeups"]
    print("wake-ups in 1 s with nothing pending: %d" % idle_wakeups, flush=True)
    if idle_wakeups > 2:
        fail("the server woke %d times in 1 s with nothing pending" % idle_wakeups)
    final = server.stop()
    print("server: " + final.strip())
    print("ok")


def open_connections(port, selector, count, talking):
    """Opens `count` connections that each send one message, watched by `selector`."""
    opened = []
    for _ in range(count):
        c = Connection(port, talking)
        c.send()
        opened.append(c)
        selector.register(c.sock, selectors.EVENT_READ, c)
    return opened


def drain_echoes(selector, until):
    while time.monotonic() < until:
        watch(selector, timeout=max(0.0, min(0.05, until - time.monotonic())))


def watch(selector, timeout):
    for key, _ in selector.select(timeout):
        c = key.data
        try:
            data = c.sock.recv(4096)
        except BlockingIOError:
            continue
        except ConnectionResetError:
            data = b""
        if data:
            c.echoed = True
        if not data:
            c.closed_at = time.monotonic()
            selector.unregister(c.sock)
            c.sock.close()


if __name__ == "__main__":
    main()
