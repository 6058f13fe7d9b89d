#!/usr/bin/env python3
"""Writes a bench/run result into the docs: the README's benchmark table and the tables of docs/benchmarks.md, each
between the markers <!-- bench: NAME --> and <!-- /bench -->, from RESULTS_DIR/summary.md (written by report.py).
The prose around the markers names no figure, so a new run changes only what lies between them.

Usage: bench/docs.py RESULTS_DIR [ROOT]   (bench/run calls it through report.py --docs)
"""
import json
import os
import re
import sys

NAMES = {"hierarchical_wheel": "`hierarchical_wheel`", "hierarchical_wheel_coarse": "`hierarchical_wheel` coarse",
         "hierarchical_wheel_8x8": "`hierarchical_wheel<T, 8, 8>`",
         "lean_4ary_heap": "lean 4-ary heap", "textbook_wheel": "textbook wheel", "min_heap": "`min_heap`",
         "priority_queue_tombstones": "`priority_queue` + tombstones", "absl_btree_map": "`absl::btree_map`"}
W4_ROWS = ["hierarchical_wheel", "hierarchical_wheel_8x8", "lean_4ary_heap", "textbook_wheel", "min_heap",
           "priority_queue_tombstones", "absl_btree_map"]
FIRE_ROWS = ["hierarchical_wheel", "hierarchical_wheel_coarse", "lean_4ary_heap", "textbook_wheel", "absl_btree_map"]
SMALL_ROWS = ["hierarchical_wheel", "lean_4ary_heap", "textbook_wheel", "min_heap", "priority_queue_tombstones"]


def table_lines(summary, title_prefix):
    """The cells of each line of the summary.md table under the title starting with title_prefix, header first."""
    start = summary.index(title_prefix)
    block = summary[start:].split("\n\n")[1]
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in block.splitlines()]


def table(summary, title_prefix):
    """The rows of that table: {structure: [cells]}."""
    return {cells[0].strip("`"): cells[1:] for cells in table_lines(summary, title_prefix)[2:]}


def header(summary, title_prefix):
    """The column names of that table."""
    return table_lines(summary, title_prefix)[0]


def number(cell):
    """The leading figure of a cell such as '2,972,388 (2.02x)', or None."""
    match = re.match(r"[\d,.]+", cell)
    return float(match.group(0).replace(",", "")) if match else None


def markdown(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(out)


def sections(summary, run):
    w4 = table(summary, "**W4 backtest**")
    w1j = table(summary, "**W1 bulk, 10,000,000 timers, fired in one advance**")
    w1t = table(summary, "**W1 bulk, 10,000,000 timers, fired one tick per advance**")
    w2 = table(summary, "**W2, a tick every 100 ops, with the machine")
    w3 = table(summary, "**W3 network timeouts**")
    w5 = table(summary, "**W5 sparse idle**")
    memory = table(summary, "**Memory**")
    out = {"run": "`bench/results/%s/`" % run}
    # (A column of events/s for each size the run measured, then the peak RSS.)
    out["w4"] = markdown(header(summary, "**W4 backtest**"), [[NAMES[k]] + w4[k] for k in W4_ROWS if k in w4])
    out["w1"] = markdown(["structure", "one advance: insert", "fire", "tick by tick: insert", "fire"],
                         [[NAMES[k], w1j[k][0], w1j[k][1], w1t[k][0], w1t[k][1]] for k in FIRE_ROWS])
    # (The 8 x 8 shape, the default before 6 x 12: its polls sit beside the default's.)
    w2_rows = FIRE_ROWS[:1] + [k for k in ["hierarchical_wheel_8x8"] if k in w2] + FIRE_ROWS[1:]
    out["w2"] = markdown(["structure", "insert p50", "cancel p50", "poll p50", "poll p99.9"],
                         [[NAMES[k], w2[k][0], w2[k][2], w2[k][4], w2[k][6]] for k in w2_rows])
    out["w3w5"] = markdown(["structure", "W3", "W5 (2^20)", "memory"],
                           [[NAMES[k], w3[k][0], "(walks every slot)" if w5[k][1] == "-" else w5[k][1], memory[k][0]]
                            for k in SMALL_ROWS])
    if "**Cross-thread scheduling**" in summary:
        start = summary.index("**Cross-thread scheduling**")
        out["concurrent"] = "\n\n".join(summary[start:].split("\n\n")[:2])
    else:
        out["concurrent"] = "(not measured in this run)"
    loops = "**Timers inside the engines' loops**"
    if loops in summary:
        out["loops"] = "\n\n".join(summary[summary.index(loops):].split("\n\n")[:2])
    else:
        out["loops"] = "(not measured in this run)"
    out["plots"] = "\n".join(
        "![%s](../bench/results/%s/%s.svg)" % (title, run, name)
        for title, name in (("W1", "w1_bulk"), ("W2 poll latency", "w2_poll"), ("W3", "w3_timeouts"),
                            ("W4", "w4_backtest"), ("W5", "w5_sparse"), ("Memory", "memory")))

    def ratio(rows, a, b, column):
        # Against the table's own base, its ratio: computed before rounding (18 against 10 ns is 1.75x, not 1.80x).
        if rows[b][column].endswith("(1.00x)") and (given := re.search(r"\(([\d.]+x)\)$", rows[a][column])):
            return given.group(1)
        x, y = number(rows[a][column]), number(rows[b][column])
        return "%.2fx" % (x / y) if x and y else "-"

    wheel, lean, textbook, btree = "hierarchical_wheel", "lean_4ary_heap", "textbook_wheel", "absl_btree_map"
    w4_sizes = [name.split(", ", 1)[1] for name in header(summary, "**W4 backtest**")[1:-1]]
    out["ratios"] = "\n".join([
        "- backtest (W4) events/s: " + "; ".join(
            "%s the lean heap's, %s the textbook wheel's, %s the B-tree's at %s" % (
                ratio(w4, wheel, lean, column), ratio(w4, wheel, textbook, column), ratio(w4, wheel, btree, column), size)
            for column, size in enumerate(w4_sizes)),
        "- firing 10^7 timers (W1), per timer: %s the B-tree's in one advance, %s tick by tick; inserting: %s the "
        "lean heap's" % (ratio(w1j, wheel, btree, 1), ratio(w1t, wheel, btree, 1), ratio(w1j, wheel, lean, 0)),
        "- event-loop poll (W2, 100 ops a tick) p50: %s the lean heap's, %s the B-tree's; its p99.9 is %s its p50" % (
            ratio(w2, wheel, lean, 4), ratio(w2, wheel, btree, 4),
            "%.2fx" % (number(w2[wheel][6]) / number(w2[wheel][4]))),
        "- reschedule-heavy timeouts (W3): %s `priority_queue` with tombstones per op; sparse jumps (W5): %s the lean "
        "heap per advance" % (ratio(w3, wheel, "priority_queue_tombstones", 0), ratio(w5, wheel, lean, 1)),
        "- memory: %s bytes per timer with an 8-byte payload" % memory[wheel][0],
    ])
    return out


def splice(path, generated, partial=False):
    """Rewrites the file's <!-- bench: NAME --> sections from `generated`; with `partial`, leaves the others."""
    with open(path, encoding="utf-8") as f:
        text = f.read()

    def fill(match):
        name = match.group(1)
        if name not in generated:
            if partial:
                return match.group(0)
            raise SystemExit("%s: no generated section named %s" % (path, name))
        body = generated[name]
        inline = "\n" not in match.group(0)
        return ("<!-- bench: %s -->%s<!-- /bench -->" if inline else "<!-- bench: %s -->\n%s\n<!-- /bench -->") % (
            name, body)

    updated, count = re.subn(r"<!-- bench: (\w+) -->.*?<!-- /bench -->", fill, text, flags=re.S)
    if count == 0:
        raise SystemExit("%s has no <!-- bench: NAME --> markers" % path)
    with open(path, "w", encoding="utf-8") as f:
        f.write(updated)


def main(results, root):
    with open(os.path.join(results, "summary.md"), encoding="utf-8") as f:
        generated = sections(f.read(), os.path.basename(os.path.normpath(os.path.realpath(results))))
    import loops  # bench/loops.py, beside this file
    records = [json.loads(line) for line in open(os.path.join(results, "loop_timers.jsonl"))] \
        if os.path.exists(os.path.join(results, "loop_timers.jsonl")) else []
    generated["loops_ratio"] = loops.ratio_sentence(records)
    for path in ("README.md", os.path.join("docs", "benchmarks.md"), os.path.join("docs", "concurrent.md"),
                 os.path.join("docs", "integrations.md")):
        splice(os.path.join(root, path), generated)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
