#!/usr/bin/env python3
"""Idle timeouts in the engines' own loops: runs timing_wheel_loop_timers for Asio and libuv, both sides (the
engine's own timers and this library's service), 10^4, 10^5 and 10^6 connections, each side in its own process,
alternated, 3 rounds; writes loop_timers.jsonl and prints the table of medians (ratios against the engine's own).

  bench/loops.py --out DIR [--bin DIR] [--rounds K] [--docs]

--docs rewrites the <!-- bench: loops --> sections of README.md and docs/integrations.md. bench/run runs it.
"""
import json
import os
import statistics
import subprocess
import sys

SIZES = (10_000, 100_000, 1_000_000)
ENGINES = (("asio", "asio::steady_timer", "asio_timer_service"), ("uv", "uv_timer_t", "uv_timer_service"))
METRICS = (("arm_ns", "arm ns"), ("reset_ns", "reset ns"), ("cancel_ns", "cancel ns"),
           ("bytes_per_timer", "bytes per timer"), ("load_cpu_ns", "loop CPU ns per reset"))


def fmt(v):
    return "-" if v is None else ("{:,.0f}".format(v) if v >= 100 else "{:.1f}".format(v))


def table(records):
    """Markdown: per engine and size, the medians of each side, and the engine's own over the service's."""
    by = {}
    for r in records:
        by.setdefault((r["engine"], r["structure"], r["timers"]), []).append(r)
    lines = ["**Timers inside the engines' loops** (N connection timeouts 30 s ahead, 10^6 resets of random "
             "connections; the loop's CPU per reset under a steady 10^6 resets/s; median of the rounds, one process "
             "each; (Kx): the engine's own timers cost K times the service's)", "",
             "| engine | connections | structure | " + " | ".join(label for _, label in METRICS) + " |",
             "|---|---|---|" + "---|" * len(METRICS)]
    for engine, native, wheel in ENGINES:
        for n in SIZES:
            medians = {}
            for s in (native, wheel):
                runs = by.get((engine, s, n), [])
                medians[s] = {k: statistics.median(r[k] for r in runs) if runs else None for k, _ in METRICS}
            for s in (wheel, native):
                cells = []
                for k, _ in METRICS:
                    v = medians[s][k]
                    ratio = ""
                    if s == native and v and medians[wheel][k]:
                        ratio = " (%.1fx)" % (v / medians[wheel][k])
                    cells.append(fmt(v) + ratio)
                lines.append("| %s | %s | `%s` | %s |" % (engine, "{:,}".format(n), s, " | ".join(cells)))
    return "\n".join(lines)


def ratio_sentence(records, n=100_000):
    """The README's line: at n connections, how much less a reset costs and how much less memory a timer takes."""
    def median(engine, structure, key):
        values = [r[key] for r in records if r["engine"] == engine and r["structure"] == structure and r["timers"] == n]
        return statistics.median(values) if values else None

    parts = []
    for engine, native, wheel in ENGINES:
        reset = (median(engine, native, "reset_ns"), median(engine, wheel, "reset_ns"))
        memory = (median(engine, native, "bytes_per_timer"), median(engine, wheel, "bytes_per_timer"))
        if None in reset or None in memory:
            return "(not measured in this run)"
        parts.append("%.1fx less than with `%s`, in %.1fx less memory" % (reset[0] / reset[1], native,
                                                                                memory[0] / memory[1]))
    return "At {:,} connections a reset costs {}; {}.".format(n, parts[0], parts[1])


def main(argv):
    out, binary, rounds, docs = None, "build/bench/bench", 3, False
    i = 0
    while i < len(argv):
        if argv[i] == "--out":
            out, i = argv[i + 1], i + 2
        elif argv[i] == "--bin":
            binary, i = argv[i + 1], i + 2
        elif argv[i] == "--rounds":
            rounds, i = int(argv[i + 1]), i + 2
        elif argv[i] == "--docs":
            docs, i = True, i + 1
        else:
            sys.exit(__doc__)
    if out is None:
        sys.exit(__doc__)
    program = os.path.join(binary, "timing_wheel_loop_timers")
    if not os.path.exists(program):
        print("loops: %s not built (needs libasio-dev and libuv1-dev): skipped" % program)
        return
    records = []
    with open(os.path.join(out, "loop_timers.jsonl"), "w") as f:
        for _ in range(rounds):
            for n in SIZES:
                for engine, _, _ in ENGINES:
                    for side in ("native", "wheel"):
                        run = subprocess.run([program, "--engine", engine, "--side", side, "--timers", str(n)],
                                             capture_output=True, text=True)
                        if run.returncode != 0:
                            sys.exit("loops: %s %s %d failed: %s" % (engine, side, n, run.stderr.strip()))
                        line = run.stdout.strip()
                        print(line, flush=True)
                        f.write(line + "\n")
                        records.append(json.loads(line))
    text = table(records)
    print(text)
    if docs:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import docs as docs_module  # bench/docs.py
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        for path in ("README.md", os.path.join("docs", "integrations.md")):
            docs_module.splice(os.path.join(root, path), {"loops": text, "loops_ratio": ratio_sentence(records)},
                               partial=True)


if __name__ == "__main__":
    main(sys.argv[1:])
