#!/usr/bin/env python3
"""Turns one bench/run result folder into summary.md (the tables the README quotes), summary.csv and SVG plots.

Usage: bench/report.py RESULTS_DIR [--docs]
With --docs, also writes the run's tables into README.md and docs/benchmarks.md (bench/docs.py).
Reads throughput.json (Google Benchmark, medians of repetitions), latency.jsonl, backtest.jsonl, memory.jsonl,
periodic.json and machine.json from RESULTS_DIR.
"""
import csv
import json
import statistics
import os
import sys

# Ratios are against BASE, the lean 4-ary heap: what a user writes in an afternoon.
BASE = "lean_4ary_heap"
ORDER = ["hierarchical_wheel", "hierarchical_wheel_8x8", "hierarchical_wheel_coarse", "lean_4ary_heap", "textbook_wheel", "flat_wheel_4096",
         "min_heap",
         "priority_queue_tombstones", "std_multimap", "absl_btree_map", "boost_d_ary_heap"]
COLOURS = {"lean_4ary_heap": "#000000", "textbook_wheel": "#bcbd22", "hierarchical_wheel": "#1f77b4", "hierarchical_wheel_8x8": "#17becf", "hierarchical_wheel_coarse": "#aec7e8", "flat_wheel_4096": "#ff7f0e",
           "min_heap": "#d62728", "priority_queue_tombstones": "#9467bd", "std_multimap": "#8c564b",
           "absl_btree_map": "#2ca02c", "boost_d_ary_heap": "#7f7f7f"}
BACKTEST_NAMES = {"wheel": "hierarchical_wheel", "heap": "min_heap", "lean": "lean_4ary_heap",
                  "textbook": "textbook_wheel", "pq": "priority_queue_tombstones",
                  "multimap": "std_multimap", "btree": "absl_btree_map", "boost": "boost_d_ary_heap",
                  "flat": "flat_wheel_4096"}


def load_jsonl(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip().startswith("{")]


def throughput(results):
    """{workload: {structure: {variant: counters}}} from the medians."""
    path = os.path.join(results, "throughput.json")
    table = {}
    if not os.path.exists(path):
        return table
    with open(path) as f:
        data = json.load(f)
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        if b.get("error_occurred"):
            continue
        parts = [p for p in b["run_name"].split("/")
                 if not p.startswith(("iterations:", "repeats:", "manual_time", "real_time"))]
        workload, structure, variant = parts[0], parts[1], "/".join(parts[2:])
        table.setdefault(workload, {}).setdefault(structure, {})[variant] = b
    return table


def fmt(x, digits=0):
    if x is None:
        return "-"
    if x >= 100:
        return "{:,.0f}".format(x)
    return ("{:.%df}" % max(digits, 1 if x < 10 else 0)).format(x)


def events_label(n):
    """10000000 -> '10^7', 2000000 -> '2x10^6'."""
    exponent = len("%d" % n) - 1
    lead = n / 10 ** exponent
    return ("10^%d" % exponent) if lead == 1 else ("%gx10^%d" % (lead, exponent))


def ratio(x, base):
    if x is None or not base:
        return ""
    return " (%.2fx)" % (x / base)


def structures_in(d):
    return [s for s in ORDER if s in d]


def median_runs(records, fields):
    """One record per structure, each field the median over that structure's runs (a run is one process)."""
    by_structure = {}
    for r in records:
        by_structure.setdefault(r["structure"], []).append(r)
    merged = []
    for runs in by_structure.values():
        m = dict(runs[0])
        for f in fields:
            m[f] = statistics.median(r[f] for r in runs)
        m["runs"] = len(runs)
        merged.append(m)
    return merged


def main():
    results = sys.argv[1]
    machine = json.load(open(os.path.join(results, "machine.json")))
    tp = throughput(results)
    latency = load_jsonl(os.path.join(results, "latency.jsonl"))
    # W4 runs at one or more sizes: each size's runs have their own medians.
    backtest_runs = load_jsonl(os.path.join(results, "backtest.jsonl"))
    backtest = {n: median_runs([r for r in backtest_runs if r["events"] == n], ("events_per_s", "peak_rss_kb"))
                for n in sorted({r["events"] for r in backtest_runs})}
    memory = load_jsonl(os.path.join(results, "memory.jsonl"))
    md = []
    rows = []
    md.append("Machine: %s, %s cores, %s; compiler %s, flags `%s`; %s. Medians of %s; ratios against `%s` in "
              "the same run (lower is better unless said)." % (machine["cpu"], machine["cores"], machine["os"],
                                                              machine["compiler"], machine["flags"], machine["date"],
                                                              machine["method"], BASE))
    md.append("")

    w1 = tp.get("W1_bulk", {})
    for size in ("10000000", "1000000", "10000"):
        for mode in ("jump", "tick"):
            variant = size + "/" + mode
            present = [s for s in structures_in(w1) if variant in w1[s]]
            if not present:
                continue
            base = w1.get(BASE, {}).get(variant)
            md.append("**W1 bulk, %s timers, fired %s** (ns per timer)" % (
                "{:,}".format(int(size)), "in one advance" if mode == "jump" else "one tick per advance"))
            md.append("")
            md.append("| structure | insert | fire | insert + fire |")
            md.append("|---|---|---|---|")
            for s in present:
                c = w1[s][variant]
                total = c["insert_ns"] + c["fire_ns"]
                bt = (base["insert_ns"] + base["fire_ns"]) if base else None
                md.append("| `%s` | %s%s | %s%s | %s%s |" % (s, fmt(c["insert_ns"]), ratio(c["insert_ns"], base and base["insert_ns"]),
                                                           fmt(c["fire_ns"]), ratio(c["fire_ns"], base and base["fire_ns"]),
                                                           fmt(total), ratio(total, bt)))
                rows.append(["W1", variant, s, "insert_ns", c["insert_ns"]])
                rows.append(["W1", variant, s, "fire_ns", c["fire_ns"]])
            md.append("")

    def w2_table(title, k, by, present, suffix, workload):
        md.append(title)
        md.append("")
        md.append("| structure | insert p50 | insert p99.9 | cancel p50 | cancel p99.9 | poll p50 | poll p99 | poll p99.9 | poll p99.99 | poll mean |")
        md.append("|---|---|---|---|---|---|---|---|---|---|")
        for s in present:
            i, c, p = (by[s][op + suffix] for op in ("insert", "cancel", "poll"))
            md.append("| `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                s, fmt(i["p50"]), fmt(i["p99.9"]), fmt(c["p50"]), fmt(c["p99.9"]), fmt(p["p50"]), fmt(p["p99"]),
                fmt(p["p99.9"]), fmt(p["p99.99"]), fmt(p["mean"])))
            for op in ("insert", "cancel", "poll"):
                for q in ("p50", "p99.9", "mean"):
                    rows.append([workload, str(k), s, op + "_" + q, by[s][op + suffix][q]])
        md.append("")

    for k in (100, 250):
        entries = [e for e in latency if e["ops_per_tick"] == k]
        if not entries:
            continue
        by = {}
        for e in entries:
            by.setdefault(e["structure"], {})[e["op"]] = e
        w2_table("**W2 trading, a tick every %d ops** (ns per operation; median of 3 runs; %s polls each)" % (
            k, "{:,}".format(next(e["samples"] for e in entries if e["op"] == "poll"))), k, by, structures_in(by), "",
            "W2")
        floors = [s for s in structures_in(by) if "poll_floor" in by[s]]
        if floors:
            w2_table("**W2, a tick every %d ops, with the machine's interruptions filtered out** (each operation's "
                     "fastest time over the 3 runs, which replay the same seeded operations; ns)" % k, k, by, floors,
                     "_floor", "W2_floor")

    def w3_table(workload, title, csv_name):
        by = tp.get(workload, {})
        if not by:
            return
        base = by.get(BASE, {}).get("")
        md.append(title)
        md.append("")
        md.append("| structure | ns per op | bytes per timer (malloc, at the end) |")
        md.append("|---|---|---|")
        for s in structures_in(by):
            c = by[s][""]
            md.append("| `%s` | %s%s | %s |" % (s, fmt(c["ns_per_op"]), ratio(c["ns_per_op"], base and base["ns_per_op"]),
                                               fmt(c["bytes_per_timer"])))
            rows.append([csv_name, "", s, "ns_per_op", c["ns_per_op"]])
            rows.append([csv_name, "", s, "bytes_per_timer", c["bytes_per_timer"]])
        md.append("")

    w3_table("W3_timeouts", "**W3 network timeouts** (10^6 live 30 s timeouts, reschedule a random one per op, 1 ms every "
             "1000 ops)", "W3")
    w3_table("W3_random_timeouts", "**W3 with random timeouts** (as W3, but each reschedule and re-arm draws its timeout "
             "in [1 s, 101 s): timers move between slot lists)", "W3_random")

    if backtest:
        # One table, a column of events/s for each size (smallest first), and the peak RSS of the largest.
        sizes = list(backtest)
        by = {n: {b["structure"]: b for b in backtest[n]} for n in sizes}
        present = [s for s in ORDER if all(s in by[n] for n in sizes)]
        md.append("**W4 backtest** (%s market events over an hour, 4 follow-ups each, 1 us ticks; median of each "
                  "structure's runs, one process each, the structures alternated; higher events/s is better)" %
                  " and ".join(events_label(n) for n in sizes))
        md.append("")
        md.append("| structure | " + " | ".join("events/s, %s events" % events_label(n) for n in sizes) +
                  " | peak RSS, %s events |" % events_label(sizes[-1]))
        md.append("|---|" + "---|" * (len(sizes) + 1))
        for s in present:
            cells = []
            for n in sizes:
                b, base = by[n][s], by[n].get(BASE)
                cells.append("%s%s" % (fmt(b["events_per_s"]), ratio(b["events_per_s"], base and base["events_per_s"])))
                rows.append(["W4", "%d" % n, s, "events_per_s", b["events_per_s"]])
                rows.append(["W4", "%d" % n, s, "peak_rss_kb", b["peak_rss_kb"]])
            b, base = by[sizes[-1]][s], by[sizes[-1]].get(BASE)
            cells.append("%.0f MB%s" % (b["peak_rss_kb"] / 1024, ratio(b["peak_rss_kb"], base and base["peak_rss_kb"])))
            md.append("| `%s` | %s |" % (s, " | ".join(cells)))
        md.append("")

    w5 = tp.get("W5_sparse", {})
    if w5:
        md.append("**W5 sparse idle** (1000 timers; ns per advance of 2^k ticks)")
        md.append("")
        md.append("| structure | 2^10 | 2^20 | 2^30 |")
        md.append("|---|---|---|---|")
        base = w5.get(BASE, {})
        for s in structures_in(w5):
            cells = []
            for k in ("2^10", "2^20", "2^30"):
                c = w5[s].get(k)
                v = c["ns_per_advance"] if c else None
                cells.append(fmt(v) + ratio(v, base.get(k, {}).get("ns_per_advance")))
                if v is not None:
                    rows.append(["W5", k, s, "ns_per_advance", v])
            md.append("| `%s` | %s |" % (s, " | ".join(cells)))
        md.append("")

    w6 = tp.get("W6_requests", {})
    if w6:
        base = w6.get(BASE, {}).get("")
        md.append("**W6 request timeouts** (10^5 requests in flight with 30 s timeouts at 1 us ticks; each op the "
                  "oldest completes, its timeout, the earliest, is cancelled, a new one starts, and the loop asks "
                  "`next_expiration()`; ns per op)")
        md.append("")
        md.append("| structure | ns per op |")
        md.append("|---|---|")
        for s in structures_in(w6):
            c = w6[s][""]
            md.append("| `%s` | %s%s |" % (s, fmt(c["ns_per_op"]), ratio(c["ns_per_op"], base and base["ns_per_op"])))
            rows.append(["W6", "", s, "ns_per_op", c["ns_per_op"]])
        md.append("")

    if memory:
        md.append("**Memory** (10^7 timers with an 8-byte payload, after reserve; one process each)")
        md.append("")
        md.append("| structure | bytes per timer (RSS growth) | bytes per timer (malloc) |")
        md.append("|---|---|---|")
        for m in sorted(memory, key=lambda m: ORDER.index(m["structure"])):
            md.append("| `%s` | %.1f | %.1f |" % (m["structure"], m["rss_bytes_per_timer"], m["malloc_bytes_per_timer"]))
            rows.append(["memory", "", m["structure"], "rss_bytes_per_timer", m["rss_bytes_per_timer"]])
        md.append("")

    concurrent = load_jsonl(os.path.join(results, "concurrent.jsonl"))
    if concurrent:
        md.append("**Cross-thread scheduling** (P producers into one loop; requests/s: timers due within 1 ms, "
                  "scheduled as fast as possible, median of 3; latency: a due-now timer from schedule to firing, ns)")
        md.append("")
        md.append("| structure | producers | requests/s | latency p50 | p99 | p99.9 |")
        md.append("|---|---|---|---|---|---|")
        by = {}
        for c in concurrent:
            by.setdefault((c["structure"], c["producers"]), {}).update(c)
        base = {p: v for (s, p), v in by.items() if s == "mutex_priority_queue_condvar"}
        for (s, p), c in sorted(by.items(), key=lambda kv: (kv[0][1], kv[0][0] != "concurrent_service")):
            b = base.get(p, {})
            md.append("| `%s` | %d | %s%s | %s | %s | %s |" % (
                s, p, fmt(c.get("requests_per_s")), ratio(c.get("requests_per_s"), b.get("requests_per_s")),
                fmt(c.get("latency_p50_ns")), fmt(c.get("latency_p99_ns")), fmt(c.get("latency_p999_ns"))))
            rows.append(["concurrent", str(p), s, "requests_per_s", c.get("requests_per_s")])
            rows.append(["concurrent", str(p), s, "latency_p99_ns", c.get("latency_p99_ns")])
        md.append("")

    loop_timers = load_jsonl(os.path.join(results, "loop_timers.jsonl"))
    if loop_timers:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import loops  # bench/loops.py
        md.append(loops.table(loop_timers))
        md.append("")
        for r in loop_timers:
            rows.append(["loops", "%s/%d" % (r["engine"], r["timers"]), r["structure"], "reset_ns", r["reset_ns"]])

    with open(os.path.join(results, "summary.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(results, "summary.csv"), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["workload", "variant", "structure", "metric", "value"])
        writer.writerows(rows)
    plots(results, tp, latency, backtest, memory)
    if "--docs" in sys.argv[2:]:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import docs  # bench/docs.py
        docs.main(results, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    print("\n".join(md))


def plots(results, tp, latency, backtest, memory):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib missing (apt-get install python3-matplotlib): no plots", file=sys.stderr)
        return

    def save(fig, name):
        fig.tight_layout()
        fig.savefig(os.path.join(results, name), format="svg")
        plt.close(fig)

    w1 = tp.get("W1_bulk", {})
    variant = "10000000/jump"
    present = [s for s in structures_in(w1) if variant in w1[s]]
    if present:
        fig, ax = plt.subplots(figsize=(8, 4))
        xs = range(len(present))
        ax.bar([x - 0.2 for x in xs], [w1[s][variant]["insert_ns"] for s in present], 0.4, label="insert")
        ax.bar([x + 0.2 for x in xs], [w1[s][variant]["fire_ns"] for s in present], 0.4, label="fire")
        ax.set_xticks(list(xs))
        ax.set_xticklabels(present, rotation=25, ha="right")
        ax.set_yscale("log")
        ax.set_ylabel("ns per timer (log)")
        ax.set_title("W1: 10^7 timers due in [1, 2^20), insert then fire all")
        ax.legend()
        save(fig, "w1_bulk.svg")

    entries = [e for e in latency if e["ops_per_tick"] == 100 and e["op"] == "poll"]
    floors = [e for e in latency if e["ops_per_tick"] == 100 and e["op"] == "poll_floor"]
    if entries:
        panels = [(entries, "as measured (median of 3 runs)")] + ([(floors, "interruptions filtered out")] if floors else [])
        fig, axes = plt.subplots(1, len(panels), figsize=(8 * len(panels), 4), sharey=True, squeeze=False)
        qs = ["p50", "p90", "p99", "p99.9", "p99.99"]
        for ax, (panel, title) in zip(axes[0], panels):
            for e in sorted(panel, key=lambda e: ORDER.index(e["structure"])):
                ax.plot(qs, [max(e[q], 1) for q in qs], marker="o", label=e["structure"], color=COLOURS[e["structure"]])
            ax.set_yscale("log")
            ax.set_title("W2 poll latency, a tick every 100 ops: " + title, fontsize=10)
        axes[0][0].set_ylabel("poll latency, ns (log)")
        axes[0][0].legend(fontsize=8)
        save(fig, "w2_poll.svg")

    w3 = tp.get("W3_timeouts", {})
    if w3:
        present = structures_in(w3)
        fig, ax = plt.subplots(figsize=(8, 4))
        ax.bar(present, [w3[s][""]["ns_per_op"] for s in present], color=[COLOURS[s] for s in present])
        ax.set_ylabel("ns per reschedule")
        ax.set_title("W3: 10^6 live 30 s timeouts, reschedule a random one")
        plt.setp(ax.get_xticklabels(), rotation=25, ha="right")
        save(fig, "w3_timeouts.svg")

    if backtest:
        sizes = list(backtest)
        present = [s for s in ORDER if all(any(b["structure"] == s for b in backtest[n]) for n in sizes)]
        fig, ax = plt.subplots(figsize=(8, 4))
        width = 0.8 / len(sizes)
        for k, n in enumerate(sizes):
            by = {b["structure"]: b for b in backtest[n]}
            ax.bar([i + (k - (len(sizes) - 1) / 2) * width for i in range(len(present))],
                   [by[s]["events_per_s"] / 1e6 for s in present], width,
                   color=[COLOURS[s] for s in present], alpha=1.0 if k == len(sizes) - 1 else 0.55,
                   label="%s events" % events_label(n))
        ax.set_xticks(range(len(present)))
        ax.set_xticklabels(present)
        ax.set_ylabel("million events per second")
        ax.set_title("W4: backtest, %s events with 4 follow-ups each (higher is better)" %
                     " and ".join(events_label(n) for n in sizes))
        if len(sizes) > 1:
            ax.legend()
        plt.setp(ax.get_xticklabels(), rotation=25, ha="right")
        save(fig, "w4_backtest.svg")

    w5 = tp.get("W5_sparse", {})
    if w5:
        fig, ax = plt.subplots(figsize=(8, 4))
        for s in structures_in(w5):
            ks = [k for k in ("2^10", "2^20", "2^30") if k in w5[s]]
            ax.plot(ks, [w5[s][k]["ns_per_advance"] for k in ks], marker="o", label=s, color=COLOURS[s])
        ax.set_yscale("log")
        ax.set_ylabel("ns per advance (log)")
        ax.set_xlabel("jump length (ticks)")
        ax.set_title("W5: 1000 sparse timers, 4096 jumps")
        ax.legend(fontsize=8)
        save(fig, "w5_sparse.svg")

    if memory:
        m = sorted(memory, key=lambda m: ORDER.index(m["structure"]))
        fig, ax = plt.subplots(figsize=(8, 4))
        ax.bar([x["structure"] for x in m], [x["rss_bytes_per_timer"] for x in m],
               color=[COLOURS[x["structure"]] for x in m])
        ax.axhline(32, color="k", linestyle="--", linewidth=1)
        ax.set_ylabel("bytes per timer (RSS)")
        ax.set_title("Memory: 10^7 timers, 8-byte payload")
        plt.setp(ax.get_xticklabels(), rotation=25, ha="right")
        save(fig, "memory.svg")


if __name__ == "__main__":
    main()
