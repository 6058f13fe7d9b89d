// Every structure the suite measures, with the name it reports, and the workloads' shared pieces: the seeded
// generator and the checksum of what fired.
#pragma once

#include "baselines.hpp"

#include <timing_wheel/timing_wheel.hpp>

#include <cstdint>
#include <string_view>
#include <utility>

namespace bench {
using payload = std::uint64_t;

inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Order-sensitive over (deadline, id) for exact structures; coarse ones may fire a little late and in another
// order, so for them it covers what fired, not when.
struct checksum {
  std::uint64_t value = 0;
  std::uint64_t count = 0;
  bool ordered = true;
  void add(tick deadline, std::uint64_t id) {
    ++count;
    if (ordered) {
      value = (value ^ (deadline * 31 + id)) * 0x100000001b3ULL;
    } else {
      value += mix(deadline * 31 + id);
    }
  }
  friend bool operator==(const checksum&, const checksum&) = default;
};

template <class Q>
using handle_of = decltype(std::declval<Q&>().insert(tick{}, payload{}));

template <class Q, const char* Name, bool Exact = true, bool Slow = false, bool WalksTicks = false>
struct structure {
  using type = Q;
  static constexpr std::string_view name = Name;
  static constexpr bool exact = Exact;             // fires in (due, insertion) order
  static constexpr bool slow = Slow;               // walks many timers per tick: skipped at the largest sizes
  static constexpr bool walks_ticks = WalksTicks;  // visits every tick of a jump: long jumps skipped
};

inline constexpr char wheel_name[] = "hierarchical_wheel";
inline constexpr char narrow_name[] = "hierarchical_wheel_8x8";
inline constexpr char coarse_name[] = "hierarchical_wheel_coarse";
inline constexpr char flat_name[] = "flat_wheel_4096";
inline constexpr char heap_name[] = "min_heap";
inline constexpr char pq_name[] = "priority_queue_tombstones";
inline constexpr char multimap_name[] = "std_multimap";
inline constexpr char btree_name[] = "absl_btree_map";
inline constexpr char boost_name[] = "boost_d_ary_heap";
inline constexpr char lean_heap_name[] = "lean_4ary_heap";
inline constexpr char textbook_name[] = "textbook_wheel";

using exact_wheel = structure<timing_wheel::hierarchical_wheel<payload>, wheel_name>;
// The default shape before 6 x 4,096: 62 KB of slot lists instead of 0.7 MB, faster when timers are sparse
// (docs/design.md, "Geometry").
using narrow_wheel = structure<timing_wheel::hierarchical_wheel<payload, 8, 8>, narrow_name>;
using coarse_wheel =
    structure<timing_wheel::hierarchical_wheel<payload, 6, 6, timing_wheel::precision::coarse>, coarse_name, false>;
using flat = structure<timing_wheel::flat_wheel<payload, 4096>, flat_name, true, true>;
using heap = structure<timing_wheel::min_heap<payload>, heap_name>;
using pq = structure<tombstone_queue<payload>, pq_name>;
using multimap = structure<multimap_queue<payload>, multimap_name>;
using lean = structure<lean_heap<payload>, lean_heap_name>;
using textbook = structure<textbook_wheel<payload>, textbook_name, true, false, true>;
#if TIMING_WHEEL_BENCH_HAS_ABSL
using btree = structure<btree_queue<payload>, btree_name>;
#endif
#if TIMING_WHEEL_BENCH_HAS_BOOST
using boost_heap = structure<boost_heap_queue<payload>, boost_name>;
#endif

// Calls f.template operator()<S>() for every structure built into this binary.
template <class F>
void for_each_structure(F&& f) {
  f.template operator()<exact_wheel>();
  f.template operator()<narrow_wheel>();
  f.template operator()<coarse_wheel>();
  f.template operator()<lean>();
  f.template operator()<textbook>();
  f.template operator()<flat>();
  f.template operator()<heap>();
  f.template operator()<pq>();
  f.template operator()<multimap>();
#if TIMING_WHEEL_BENCH_HAS_ABSL
  f.template operator()<btree>();
#endif
#if TIMING_WHEEL_BENCH_HAS_BOOST
  f.template operator()<boost_heap>();
#endif
}

}  // namespace bench
