// The Hand: a simulated day of timers raced through a min-heap, a one-ring hashed wheel (sixty minute-buckets)
// and a two-level hierarchical wheel, counting one unit for all three: one timer looked at (a heap comparison, a
// wheel inspection). One tick is one minute.
//
//   the_hand [--rate R] [--long L] [--seed S] [--days D] [--cancel C] [--json] [--html FILE]
//
// --rate: Poisson arrivals per minute (1.2); --long: share of timers due past the hour (1/3); --cancel: share of
// timers cancelled before they fire (0). Prints a table (or, with --json, one JSON object); --html writes a
// self-contained page with the three panels. Exits 1 if the three structures did not fire the same timers at the
// same minutes.
#include <timing_wheel/instrumentation.hpp>
#include <timing_wheel/timing_wheel.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace {
using timing_wheel::counting_instrumentation;
using timing_wheel::tick;

constexpr tick minutes_per_day = 1440;

struct settings {
  double rate = 1.2;
  double long_share = 1.0 / 3.0;
  std::uint64_t seed = 1;
  std::uint64_t days = 1;
  double cancel = 0.0;
  bool json = false;
  std::string html;
};

// splitmix64: the same stream on every platform and standard library.
class random_source {
 public:
  explicit random_source(std::uint64_t seed) : m_state(seed) {}
  std::uint64_t next() {
    m_state += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = m_state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }     // [0, 1)
  tick between(tick low, tick high) { return low + next() % (high - low + 1); }  // [low, high]

 private:
  std::uint64_t m_state;
};

struct timer_plan {
  tick arrives;
  tick due;
  tick cancel_at;  // UINT64_MAX: never cancelled
  bool is_long;
};

// Poisson arrivals (exponential gaps at `rate` per minute), each timer short (1..60 minutes) or long (61..1440).
std::vector<timer_plan> make_day(const settings& s) {
  random_source random(s.seed);
  std::vector<timer_plan> plan;
  const tick end = minutes_per_day * s.days;
  double t = 0;
  for (;;) {
    t += -std::log(1.0 - random.uniform()) / s.rate;
    if (t >= static_cast<double>(end)) break;
    const auto arrives = static_cast<tick>(t);
    const bool is_long = random.uniform() < s.long_share;
    const tick delay = is_long ? random.between(61, 1440) : random.between(1, 60);
    timer_plan p{arrives, arrives + delay, UINT64_MAX, is_long};
    if (random.uniform() < s.cancel) p.cancel_at = random.between(arrives, p.due - 1);
    plan.push_back(p);
  }
  return plan;
}

struct figures {
  const char* key;
  const char* label;
  counting_instrumentation counts;
  std::uint64_t insert_looks = 0;
  std::uint64_t fire_looks = 0;
  std::uint64_t cancel_looks = 0;
  std::vector<std::uint64_t> per_minute;  // looks spent in each minute
  std::vector<std::pair<tick, std::uint32_t>> fired;
};

template <class Queue>
figures race(const char* key, const char* label, const std::vector<timer_plan>& plan, tick end) {
  figures out{key, label, {}, 0, 0, 0, std::vector<std::uint64_t>(end + 1, 0), {}};
  Queue queue;
  std::vector<timing_wheel::timer_handle> handles(plan.size());
  std::vector<std::vector<std::uint32_t>> cancels_at(end + 1);
  for (std::uint32_t id = 0; id < plan.size(); ++id) {
    if (plan[id].cancel_at <= end) cancels_at[plan[id].cancel_at].push_back(id);
  }
  const auto looks = [&queue] { return queue.instrumentation().looks(); };
  std::size_t next_arrival = 0;
  for (tick minute = 0; minute <= end; ++minute) {
    const std::uint64_t at_start = looks();
    queue.advance(minute, [&](tick due, std::uint32_t&& id) { out.fired.emplace_back(due, id); });
    const std::uint64_t after_fire = looks();
    out.fire_looks += after_fire - at_start;
    for (; next_arrival < plan.size() && plan[next_arrival].arrives == minute; ++next_arrival) {
      handles[next_arrival] = queue.insert(plan[next_arrival].due, static_cast<std::uint32_t>(next_arrival));
    }
    const std::uint64_t after_insert = looks();
    out.insert_looks += after_insert - after_fire;
    for (const std::uint32_t id : cancels_at[minute]) static_cast<void>(queue.cancel(handles[id]));
    out.cancel_looks += looks() - after_insert;
    out.per_minute[minute] = looks() - at_start;
  }
  out.counts = queue.instrumentation();
  return out;
}

double ratio(std::uint64_t a, std::uint64_t b) {
  return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
}

struct race_result {
  settings options;
  std::size_t arrived = 0;
  std::size_t cancelled = 0;
  std::size_t served = 0;
  bool same = true;
  std::array<figures, 3> structures;
};

void print_table(const race_result& r) {
  std::printf("The Hand: %llu day(s), %.2f timers/min, %.0f%% past the hour, %.0f%% cancelled, seed %llu\n",
              static_cast<unsigned long long>(r.options.days), r.options.rate, r.options.long_share * 100,
              r.options.cancel * 100, static_cast<unsigned long long>(r.options.seed));
  std::printf("timers: %zu arrived, %zu served (fired), %zu cancelled\n\n", r.arrived, r.served, r.cancelled);
  std::printf("%-26s %8s %8s %8s %8s %16s %9s %11s\n", "structure", "looks", "/insert", "/fire", "/served",
              "empty looks", "cascades", "comparisons");
  for (const figures& f : r.structures) {
    char empty[32];
    std::snprintf(empty, sizeof empty, "%llu (%.0f%%)", static_cast<unsigned long long>(f.counts.empty_looks),
                  100 * ratio(f.counts.empty_looks, f.counts.looks()));
    std::printf("%-26s %8llu %8.1f %8.1f %8.1f %16s %9llu %11llu\n", f.label,
                static_cast<unsigned long long>(f.counts.looks()), ratio(f.insert_looks, f.counts.inserts),
                ratio(f.fire_looks, f.counts.fires), ratio(f.counts.looks(), r.served), empty,
                static_cast<unsigned long long>(f.counts.cascades),
                static_cast<unsigned long long>(f.counts.comparisons));
  }
  std::printf("\n%s\n", r.same ? "all three fired the same timers at the same minutes"
                               : "MISMATCH: the structures fired different timers or at different minutes");
}

std::string json_of(const race_result& r, bool with_minutes) {
  std::string out;
  char buffer[512];
  std::snprintf(buffer, sizeof buffer,
                "{\"settings\":{\"rate\":%g,\"long\":%g,\"seed\":%llu,\"days\":%llu,\"cancel\":%g},"
                "\"arrived\":%zu,\"cancelled\":%zu,\"served\":%zu,\"same\":%s",
                r.options.rate, r.options.long_share, static_cast<unsigned long long>(r.options.seed),
                static_cast<unsigned long long>(r.options.days), r.options.cancel, r.arrived, r.cancelled, r.served,
                r.same ? "true" : "false");
  out += buffer;
  for (const figures& f : r.structures) {
    std::snprintf(
        buffer, sizeof buffer,
        ",\"%s\":{\"looks\":%llu,\"looks_per_timer\":%.4f,\"looks_per_insert\":%.4f,"
        "\"looks_per_fire\":%.4f,\"empty_looks\":%llu,\"cascades\":%llu,\"comparisons\":%llu,"
        "\"inspections\":%llu,\"fires\":%llu,\"max_slot_occupancy\":%llu",
        f.key, static_cast<unsigned long long>(f.counts.looks()), ratio(f.counts.looks(), r.served),
        ratio(f.insert_looks, f.counts.inserts), ratio(f.fire_looks, f.counts.fires),
        static_cast<unsigned long long>(f.counts.empty_looks), static_cast<unsigned long long>(f.counts.cascades),
        static_cast<unsigned long long>(f.counts.comparisons), static_cast<unsigned long long>(f.counts.inspections),
        static_cast<unsigned long long>(f.counts.fires), static_cast<unsigned long long>(f.counts.max_slot_occupancy));
    out += buffer;
    if (with_minutes) {
      out += ",\"per_minute\":[";
      for (std::size_t m = 0; m < f.per_minute.size(); ++m) {
        if (m > 0) out += ',';
        out += std::to_string(f.per_minute[m]);
      }
      out += ']';
    }
    out += '}';
  }
  out += '}';
  return out;
}

// The page: the table, then three panels drawn by the script from the embedded figures (no network).
bool write_html(const race_result& r, const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) return false;
  std::fputs(R"page(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>The Hand: heap, one ring, two rings</title>
<style>
body { font: 14px system-ui, sans-serif; margin: 16px 24px; color: #222; background: #fff; }
h1 { font-size: 20px; margin: 0 0 4px; }
p.settings { margin: 0 0 12px; color: #555; }
table { border-collapse: collapse; margin-bottom: 14px; }
th, td { padding: 3px 10px; text-align: right; border-bottom: 1px solid #ddd; }
th:first-child, td:first-child { text-align: left; }
.panels { display: flex; gap: 14px; }
.panel { flex: 1; border: 1px solid #ccc; border-radius: 6px; padding: 8px; min-width: 0; }
.panel h2 { font-size: 15px; margin: 0 0 2px; }
.panel .big { font-size: 26px; font-weight: 600; }
svg text { font: 11px system-ui, sans-serif; fill: #555; }
#tip { position: fixed; pointer-events: none; background: #222; color: #fff; padding: 2px 6px; border-radius: 3px;
       font-size: 12px; display: none; }
</style></head><body>
<h1>The Hand: a day of timers, three structures, one unit of work (a timer looked at)</h1>
)page",
             file);
  std::fprintf(file,
               "<p class=\"settings\" id=\"settings\">%llu day(s), %.2f timers/min, %.0f%% past the hour, %.0f%% "
               "cancelled, seed %llu: <span id=\"arrived\">%zu</span> arrived, <span id=\"served\">%zu</span> "
               "served, <span id=\"cancelled\">%zu</span> cancelled. %s</p>\n",
               static_cast<unsigned long long>(r.options.days), r.options.rate, r.options.long_share * 100,
               r.options.cancel * 100, static_cast<unsigned long long>(r.options.seed), r.arrived, r.served,
               r.cancelled, r.same ? "All three fired the same timers at the same minutes." : "MISMATCH");
  std::fputs(
      "<table><tr><th>structure</th><th>looks</th><th>per insert</th><th>per fire</th><th>per timer "
      "served</th><th>empty looks</th><th>cascades</th><th>comparisons</th></tr>\n",
      file);
  for (const figures& f : r.structures) {
    std::fprintf(file,
                 "<tr><td>%s</td><td id=\"%s-looks\">%llu</td><td>%.1f</td><td>%.1f</td>"
                 "<td id=\"%s-looks_per_timer\">%.4f</td><td id=\"%s-empty_looks\">%llu</td>"
                 "<td id=\"%s-cascades\">%llu</td><td id=\"%s-comparisons\">%llu</td></tr>\n",
                 f.label, f.key, static_cast<unsigned long long>(f.counts.looks()),
                 ratio(f.insert_looks, f.counts.inserts), ratio(f.fire_looks, f.counts.fires), f.key,
                 ratio(f.counts.looks(), r.served), f.key, static_cast<unsigned long long>(f.counts.empty_looks), f.key,
                 static_cast<unsigned long long>(f.counts.cascades), f.key,
                 static_cast<unsigned long long>(f.counts.comparisons));
  }
  std::fputs("</table>\n<div class=\"panels\" id=\"panels\"></div><div id=\"tip\"></div>\n", file);
  std::fprintf(file, "<script id=\"figures\" type=\"application/json\">%s</script>\n", json_of(r, true).c_str());
  std::fputs(R"js(<script>
"use strict";
const data = JSON.parse(document.getElementById("figures").textContent);
const keys = [["min_heap", "min_heap (4-ary)", "#d62728"], ["flat_wheel", "flat_wheel&lt;60&gt; (one ring)", "#ff7f0e"],
              ["hierarchical_wheel", "hierarchical_wheel&lt;2, 6&gt; (two rings)", "#1f77b4"]];
const NS = "http://www.w3.org/2000/svg";
const W = 440, H = 330, left = 46, right = 8, top1 = 14, h1 = 130, top2 = 178, h2 = 120;
const minutes = data[keys[0][0]].per_minute.length;
const cumulative = {};
let cumMax = 1;
for (const [key] of keys) {
  let sum = 0;
  cumulative[key] = data[key].per_minute.map(v => (sum += v));
  cumMax = Math.max(cumMax, sum);
}
function el(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}
function text(parent, x, y, s, anchor) {
  const t = el("text", {x, y, "text-anchor": anchor || "start"}, parent);
  t.textContent = s;
}
const x = m => left + (W - left - right) * m / Math.max(1, minutes - 1);
const tip = document.getElementById("tip");
for (const [key, label, color] of keys) {
  const f = data[key];
  const panel = document.createElement("div");
  panel.className = "panel";
  panel.innerHTML = `<h2 style="color:${color}">${label}</h2><div><span class="big" id="${key}-panel-per-timer">` +
                    `${f.looks_per_timer.toFixed(1)}</span> looks per timer served, ${f.looks} in all</div>`;
  const svg = el("svg", {width: "100%", viewBox: `0 0 ${W} ${H}`, role: "img"});
  panel.appendChild(svg);
  document.getElementById("panels").appendChild(panel);
  // Cumulative looks through the day, on one scale for all three panels; the other two in grey.
  text(svg, left, top1 - 3, "cumulative looks, one scale for all three (the others in grey)");
  el("line", {x1: left, y1: top1 + h1, x2: W - right, y2: top1 + h1, stroke: "#999"}, svg);
  text(svg, left - 4, top1 + 8, String(cumMax), "end");
  text(svg, left - 4, top1 + h1, "0", "end");
  for (const [other, , otherColor] of keys) {
    const c = cumulative[other];
    const step = Math.max(1, Math.floor(c.length / 400));
    let d = "";
    for (let m = 0; m < c.length; m += step) {
      d += (d ? "L" : "M") + x(m).toFixed(1) + "," + (top1 + h1 - h1 * c[m] / cumMax).toFixed(1);
    }
    d += "L" + x(c.length - 1).toFixed(1) + "," + (top1 + h1 - h1 * c[c.length - 1] / cumMax).toFixed(1);
    el("path", {d, fill: "none", stroke: other === key ? color : "#ccc", "stroke-width": other === key ? 2.5 : 1.2}, svg);
  }
  // Work per minute, on this structure's own scale.
  const perMax = Math.max(1, ...f.per_minute);
  text(svg, left, top2 - 3, `looks per minute, this panel's own scale (max ${perMax})`);
  el("line", {x1: left, y1: top2 + h2, x2: W - right, y2: top2 + h2, stroke: "#999"}, svg);
  const bw = Math.max(0.6, (W - left - right) / minutes);
  f.per_minute.forEach((v, m) => {
    if (v === 0) return;
    const bh = h2 * v / perMax;
    const bar = el("rect", {x: x(m).toFixed(2), y: (top2 + h2 - bh).toFixed(2), width: bw.toFixed(2),
                            height: bh.toFixed(2), fill: color}, svg);
    bar.addEventListener("mousemove", e => {
      tip.style.display = "block";
      tip.style.left = (e.clientX + 10) + "px";
      tip.style.top = (e.clientY + 10) + "px";
      tip.textContent = `minute ${m}: ${v} looks`;
    });
    bar.addEventListener("mouseleave", () => { tip.style.display = "none"; });
  });
  for (let hour = 0; hour * 60 < minutes; hour += 6) text(svg, x(hour * 60), H - 4, hour + "h", "middle");
  if (key === "hierarchical_wheel") {
    for (let m = 64; m < minutes; m += 64) {
      el("line", {x1: x(m), y1: top2, x2: x(m), y2: top2 + h2, stroke: "#1f77b4", "stroke-opacity": 0.25,
                  "stroke-dasharray": "2,2"}, svg);
    }
    text(svg, W - right, top2 + 10, "dashed: 64-minute spans; each one's cascade is spread over the span before", "end");
  }
  if (key === "flat_wheel") {
    const share = (100 * f.empty_looks / Math.max(1, f.looks)).toFixed(0);
    text(svg, W - right, top2 + 10, `${share}% of looks find nothing due`, "end");
  }
}
document.body.setAttribute("data-drawn", "yes");
</script>
</body></html>
)js",
             file);
  return std::fclose(file) == 0;
}

[[noreturn]] void usage() {
  std::fputs("usage: the_hand [--rate R] [--long L] [--seed S] [--days D] [--cancel C] [--json] [--html FILE]\n",
             stderr);
  std::exit(2);
}

double parse_real(const char* text, double low, double high) {
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(value >= low && value <= high)) usage();
  return value;
}
}  // namespace

int main(int argc, char** argv) {
  settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--json") {
      s.json = true;
      continue;
    }
    if (i + 1 >= argc) usage();
    const char* value = argv[++i];
    if (arg == "--rate") {
      s.rate = parse_real(value, 1e-6, 1e4);
    } else if (arg == "--long") {
      s.long_share = parse_real(value, 0, 1);
    } else if (arg == "--seed") {
      s.seed = static_cast<std::uint64_t>(parse_real(value, 0, 1e18));
    } else if (arg == "--days") {
      s.days = static_cast<std::uint64_t>(parse_real(value, 1, 3650));
    } else if (arg == "--cancel") {
      s.cancel = parse_real(value, 0, 1);
    } else if (arg == "--html") {
      s.html = value;
    } else {
      usage();
    }
  }

  const std::vector<timer_plan> plan = make_day(s);
  const tick end = minutes_per_day * s.days;
  race_result r{
      s,
      plan.size(),
      0,
      0,
      true,
      {race<timing_wheel::min_heap<std::uint32_t, counting_instrumentation>>("min_heap", "min_heap (4-ary)", plan, end),
       race<timing_wheel::flat_wheel<std::uint32_t, 60, counting_instrumentation>>(
           "flat_wheel", "flat_wheel<60> (one ring)", plan, end),
       race<timing_wheel::hierarchical_wheel<std::uint32_t, 2, 6, timing_wheel::precision::exact,
                                             counting_instrumentation>>("hierarchical_wheel", "hierarchical_wheel<2,6>",
                                                                        plan, end)}};
  r.served = r.structures[0].fired.size();
  r.cancelled = static_cast<std::size_t>(r.structures[0].counts.cancels);
  for (const figures& f : r.structures) r.same = r.same && f.fired == r.structures[0].fired;
  // The model: a timer is served when due within the day and not cancelled before then.
  std::size_t expected = 0;
  for (const timer_plan& p : plan) expected += p.due <= end && p.cancel_at >= p.due ? 1 : 0;
  r.same = r.same && expected == r.served;
  for (const auto& [due, id] : r.structures[0].fired) r.same = r.same && plan[id].due == due;

  if (s.json) {
    std::printf("%s\n", json_of(r, false).c_str());
  } else {
    print_table(r);
  }
  if (!s.html.empty()) {
    if (!write_html(r, s.html)) {
      std::fprintf(stderr, "the_hand: cannot write %s\n", s.html.c_str());
      return 2;
    }
    if (!s.json) std::printf("page written to %s\n", s.html.c_str());
  }
  return r.same ? 0 : 1;
}
