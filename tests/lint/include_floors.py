#!/usr/bin/env python3
"""The include graph as designed: every public and detail header sits on a floor, and an include may only go to
its own floor or one below. Exits 1, naming each include that goes up (or a header that has no floor).

Floors, bottom up:
  ground       the configuration and the vocabulary every part speaks (tick, handles, instrumentation)
  parts        detail/: the engines' building blocks (bitmaps, slab, entry lists, heap, the queue base)
  contract     the timer_queue concept, scoped_timer, the counting instrumentation
  queues       the three queues
  front end    std::chrono time over a queue (its default queue is the exact wheel, one floor down), eventfd
  cross-thread the cross-thread front end, and the service core the event-loop integrations share
  integrations the Asio and libuv services
  entry points the headers users include for one engine or for everything
"""
import pathlib
import re
import sys

FLOORS = [
    ("ground", ["version.hpp", "detail/config.hpp", "types.hpp"]),
    ("parts", ["detail/bitmap.hpp", "detail/slab.hpp", "detail/chunk_list.hpp", "detail/earliest_timers.hpp", "detail/intrusive_list.hpp",
               "detail/indexed_heap.hpp", "detail/spreading.hpp", "detail/wheel_geometry.hpp", "detail/thread_owner.hpp", "detail/unique_function.hpp",
               "detail/queue_base.hpp"]),
    ("contract", ["timer_queue.hpp", "instrumentation.hpp"]),
    ("queues", ["flat_wheel.hpp", "hierarchical_wheel.hpp", "min_heap.hpp"]),
    ("front end", ["chrono.hpp", "eventfd.hpp"]),
    ("cross-thread", ["concurrent.hpp", "detail/armed_service.hpp"]),
    ("integrations", ["asio_service.hpp", "uv.hpp"]),
    ("entry points", ["asio.hpp", "boost_asio.hpp", "timing_wheel.hpp"]),
]


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "include") / "timing_wheel"
    floor_of = {header: level for level, (_, headers) in enumerate(FLOORS) for header in headers}
    problems = []
    for path in sorted(root.rglob("*.hpp")):
        header = path.relative_to(root).as_posix()
        if header not in floor_of:
            problems.append(f"{header}: on no floor (add it to FLOORS in {sys.argv[0]})")
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = re.match(r"\s*#\s*include\s*<timing_wheel/([^>]+)>", line)
            if not match:
                continue
            target = match.group(1)
            if target not in floor_of:
                problems.append(f"{header}:{number}: includes {target}, which is on no floor")
            elif floor_of[target] > floor_of[header]:
                problems.append(f"{header}:{number}: includes {target} on the {FLOORS[floor_of[target]][0]} floor, "
                                f"above its own ({FLOORS[floor_of[header]][0]})")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
