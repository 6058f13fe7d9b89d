// The yardsticks users know, behind the API subset the benchmarks use (insert, cancel, reschedule, advance,
// next_expiration, size, now, reserve). Each fires in (due, insertion) order, as the contract does, so the same
// checksum holds for all. The Abseil and Boost ones are built only when their headers are installed
// (libabsl-dev, libboost-dev); the suite runs without them.
#pragma once

#include <timing_wheel/timer_queue.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

#if __has_include(<absl/container/btree_map.h>)
#include <absl/container/btree_map.h>
#define TIMING_WHEEL_BENCH_HAS_ABSL 1
#else
#define TIMING_WHEEL_BENCH_HAS_ABSL 0
#endif
#if __has_include(<boost/heap/d_ary_heap.hpp>)
#include <boost/heap/d_ary_heap.hpp>
#define TIMING_WHEEL_BENCH_HAS_BOOST 1
#else
#define TIMING_WHEEL_BENCH_HAS_BOOST 0
#endif

namespace bench {
using timing_wheel::tick;

// std::priority_queue with lazy cancellation: a cancel or reschedule leaves a tombstone in the heap that is skipped
// when it reaches the top. The usual hand-written timer queue; its memory grows with the cancel rate.
template <class T>
class tombstone_queue {
 public:
  struct handle {
    std::uint32_t record = UINT32_MAX;
    std::uint32_t generation = 0;
  };

  void reserve(std::size_t n) {
    m_records.reserve(n);
    std::vector<entry> storage;
    storage.reserve(n);
    m_heap = heap_type(later{}, std::move(storage));
  }
  handle insert(tick deadline, T value) {
    std::uint32_t index = m_free;
    if (index != UINT32_MAX) {
      m_free = m_records[index].next_free;
      m_records[index].value = std::move(value);
    } else {
      index = static_cast<std::uint32_t>(m_records.size());
      m_records.push_back(record{std::move(value), 0, UINT32_MAX, false});
    }
    record& r = m_records[index];
    r.live = true;
    m_heap.push(entry{std::max(deadline, m_now), m_seq++, index, r.generation});
    ++m_size;
    return handle{index, r.generation};
  }
  bool cancel(handle h) {
    if (!pending(h)) return false;
    release(h.record);
    return true;
  }
  // A reschedule is a cancel (tombstone) and a new entry; the handle is updated in place.
  bool reschedule(handle& h, tick deadline) {
    if (!pending(h)) return false;
    record& r = m_records[h.record];
    ++r.generation;
    h.generation = r.generation;
    m_heap.push(entry{std::max(deadline, m_now), m_seq++, h.record, r.generation});
    return true;
  }
  template <class F>
  std::size_t advance(tick to, F&& on_expire) {
    std::size_t fired = 0;
    while (!m_heap.empty() && m_heap.top().due <= to) {
      const entry top = m_heap.top();
      m_heap.pop();
      record& r = m_records[top.record];
      if (!r.live || r.generation != top.generation) continue;  // a tombstone
      m_now = top.due;
      T value = std::move(r.value);
      release(top.record);
      ++fired;
      on_expire(top.due, std::move(value));
    }
    m_now = std::max(m_now, to);
    return fired;
  }
  [[nodiscard]] std::optional<tick> next_expiration() {
    while (!m_heap.empty()) {
      const entry& top = m_heap.top();
      const record& r = m_records[top.record];
      if (r.live && r.generation == top.generation) return top.due;
      m_heap.pop();
    }
    return std::nullopt;
  }
  [[nodiscard]] std::size_t size() const { return m_size; }
  [[nodiscard]] tick now() const { return m_now; }
  [[nodiscard]] std::size_t tombstones() const { return m_heap.size() - m_size; }

 private:
  struct entry {
    tick due;
    std::uint64_t seq;
    std::uint32_t record;
    std::uint32_t generation;
  };
  struct later {
    bool operator()(const entry& a, const entry& b) const { return a.due > b.due || (a.due == b.due && a.seq > b.seq); }
  };
  struct record {
    T value;
    std::uint32_t generation;
    std::uint32_t next_free;
    bool live;
  };
  using heap_type = std::priority_queue<entry, std::vector<entry>, later>;

  [[nodiscard]] bool pending(handle h) const {
    return h.record < m_records.size() && m_records[h.record].live && m_records[h.record].generation == h.generation;
  }
  void release(std::uint32_t index) {
    record& r = m_records[index];
    r.live = false;
    ++r.generation;
    r.next_free = m_free;
    m_free = index;
    --m_size;
  }

  heap_type m_heap;
  std::vector<record> m_records;
  std::uint32_t m_free = UINT32_MAX;
  std::uint64_t m_seq = 0;
  std::size_t m_size = 0;
  tick m_now = 0;
};

// std::multimap keyed by due time: equal keys keep insertion order; the handle is the iterator.
template <class T>
class multimap_queue {
 public:
  using handle = typename std::multimap<tick, T>::iterator;

  void reserve(std::size_t) {}
  handle insert(tick deadline, T value) { return m_map.emplace(std::max(deadline, m_now), std::move(value)); }
  bool cancel(handle h) {
    m_map.erase(h);
    return true;
  }
  bool reschedule(handle& h, tick deadline) {
    auto node = m_map.extract(h);
    node.key() = std::max(deadline, m_now);
    h = m_map.insert(std::move(node));
    return true;
  }
  template <class F>
  std::size_t advance(tick to, F&& on_expire) {
    std::size_t fired = 0;
    while (!m_map.empty() && m_map.begin()->first <= to) {
      auto node = m_map.extract(m_map.begin());
      m_now = node.key();
      ++fired;
      on_expire(node.key(), std::move(node.mapped()));
    }
    m_now = std::max(m_now, to);
    return fired;
  }
  [[nodiscard]] std::optional<tick> next_expiration() const {
    if (m_map.empty()) return std::nullopt;
    return m_map.begin()->first;
  }
  [[nodiscard]] std::size_t size() const { return m_map.size(); }
  [[nodiscard]] tick now() const { return m_now; }

 private:
  std::multimap<tick, T> m_map;
  tick m_now = 0;
};

// What a user writes in an afternoon: an indexed 4-ary min-heap of 16-byte entries (due, a 32-bit insertion number
// for first-in first-out ties, the node), each node knowing its entry's position so that cancel and reschedule are
// O(log n). No generations: a handle is the node index, valid until its timer fires or is cancelled (the benchmarks
// never use a stale one). The lean yardstick for every heap-shaped cost.
template <class T>
class lean_heap {
 public:
  using handle = std::uint32_t;

  void reserve(std::size_t n) {
    m_heap.reserve(n);
    m_nodes.reserve(n);
  }
  handle insert(tick deadline, T value) {
    std::uint32_t index = m_free;
    if (index != none) {
      m_free = m_nodes[index].position;
      m_nodes[index].value = std::move(value);
    } else {
      index = static_cast<std::uint32_t>(m_nodes.size());
      m_nodes.push_back(node{std::move(value), 0});
    }
    m_heap.push_back(entry{std::max(deadline, m_now), m_seq++, index});
    sift_up(m_heap.size() - 1);
    return index;
  }
  bool cancel(handle h) {
    remove_at(m_nodes[h].position);
    release(h);
    return true;
  }
  bool reschedule(handle h, tick deadline) {
    const std::size_t at = m_nodes[h].position;
    m_heap[at].due = std::max(deadline, m_now);
    m_heap[at].seq = m_seq++;
    sift_down(sift_up(at));
    return true;
  }
  template <class F>
  std::size_t advance(tick to, F&& on_expire) {
    std::size_t fired = 0;
    while (!m_heap.empty() && m_heap.front().due <= to) {
      const entry top = m_heap.front();
      remove_at(0);
      m_now = top.due;
      T value = std::move(m_nodes[top.node].value);
      release(top.node);
      ++fired;
      on_expire(top.due, std::move(value));
    }
    m_now = std::max(m_now, to);
    return fired;
  }
  [[nodiscard]] std::optional<tick> next_expiration() const {
    if (m_heap.empty()) return std::nullopt;
    return m_heap.front().due;
  }
  [[nodiscard]] std::size_t size() const { return m_heap.size(); }
  [[nodiscard]] tick now() const { return m_now; }

 private:
  static constexpr std::uint32_t none = UINT32_MAX;
  struct entry {
    tick due;
    std::uint32_t seq;
    std::uint32_t node;
  };
  struct node {
    T value;
    std::uint32_t position;  // of its entry; while free, the next free node
  };
  static bool before(const entry& a, const entry& b) {
    return a.due < b.due || (a.due == b.due && static_cast<std::int32_t>(a.seq - b.seq) < 0);
  }
  void place(std::size_t at, const entry& e) {
    m_heap[at] = e;
    m_nodes[e.node].position = static_cast<std::uint32_t>(at);
  }
  std::size_t sift_up(std::size_t at) {
    const entry moving = m_heap[at];
    while (at > 0) {
      const std::size_t parent = (at - 1) / 4;
      if (!before(moving, m_heap[parent])) break;
      place(at, m_heap[parent]);
      at = parent;
    }
    place(at, moving);
    return at;
  }
  void sift_down(std::size_t at) {
    const entry moving = m_heap[at];
    const std::size_t n = m_heap.size();
    for (;;) {
      const std::size_t first = at * 4 + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t last = std::min(first + 4, n);
      for (std::size_t child = first + 1; child < last; ++child) {
        if (before(m_heap[child], m_heap[best])) best = child;
      }
      if (!before(m_heap[best], moving)) break;
      place(at, m_heap[best]);
      at = best;
    }
    place(at, moving);
  }
  void remove_at(std::size_t at) {
    const entry last = m_heap.back();
    m_heap.pop_back();
    if (at == m_heap.size()) return;
    m_heap[at] = last;
    sift_down(sift_up(at));
  }
  void release(std::uint32_t index) {
    m_nodes[index].position = m_free;
    m_free = index;
  }

  std::vector<entry> m_heap;
  std::vector<node> m_nodes;
  std::uint32_t m_free = none;
  std::uint32_t m_seq = 0;
  tick m_now = 0;
};

// The textbook hierarchical wheel (Varghese & Lauck): 8 levels of 256 slots cover every tick, each slot an
// intrusive doubly-linked list of nodes appended at the tail. A timer waits in the level of the highest 8-bit digit
// in which its due time differs from now; when level L's digit wraps to 0, the slot of level L + 1 that now enters
// cascades down (in list order, so equal due times stay first-in first-out). No bitmaps: advance() looks at each
// level-0 slot in turn for the next occupied one, and skips to the next wrap of the lowest levels while they are all
// empty (a count per level). A handle is the node index.
template <class T>
class textbook_wheel {
 public:
  using handle = std::uint32_t;

  textbook_wheel() {
    m_slots.fill(none);
    m_tails.fill(none);
  }
  void reserve(std::size_t n) { m_nodes.reserve(n); }
  handle insert(tick deadline, T value) {
    std::uint32_t index = m_free;
    if (index != none) {
      m_free = m_nodes[index].next;
      m_nodes[index].value = std::move(value);
    } else {
      index = static_cast<std::uint32_t>(m_nodes.size());
      m_nodes.push_back(node{0, none, none, 0, std::move(value)});
    }
    m_nodes[index].due = std::max(deadline, m_now);
    link(index);
    ++m_size;
    return index;
  }
  bool cancel(handle h) {
    unlink(h);
    release(h);
    --m_size;
    return true;
  }
  bool reschedule(handle h, tick deadline) {
    unlink(h);
    m_nodes[h].due = std::max(deadline, m_now);
    link(h);
    return true;
  }
  template <class F>
  std::size_t advance(tick to, F&& on_expire) {
    std::size_t fired = fire_slot(on_expire);  // timers a callback scheduled for now()
    while (m_now < to) {
      if (m_size == 0) {
        m_now = to;
        break;
      }
      if (m_count[0] != 0) {  // the next occupied slot of this revolution, by looking at each one
        tick digit = (m_now & mask) + 1;
        while (m_slots[digit] == none) ++digit;
        const tick next = (m_now & ~mask) | digit;
        if (next > to) {
          m_now = to;
          break;
        }
        m_now = next;
        fired += fire_slot(on_expire);
        continue;
      }
      // The lowest levels are empty: nothing happens before the next wrap of the highest empty one.
      std::size_t empty = 1;
      while (m_count[empty] == 0) ++empty;
      const tick boundary = ((m_now >> (bits * empty)) + 1) << (bits * empty);
      if (boundary == 0 || boundary > to) {
        m_now = to;
        break;
      }
      m_now = boundary;
      // Every level whose digit wrapped to 0 lets the slot above it cascade, the highest first.
      std::size_t wrapped = 0;
      while (wrapped + 1 < levels && ((m_now >> (bits * wrapped)) & mask) == 0) ++wrapped;
      for (std::size_t level = wrapped; level > 0; --level) cascade(slot_of(level, m_now));
      fired += fire_slot(on_expire);
    }
    return fired;
  }
  // The earliest due time: found by walking forward from now, level by level (what a wheel without bitmaps does).
  [[nodiscard]] std::optional<tick> next_expiration() const {
    if (m_size == 0) return std::nullopt;
    for (std::size_t level = 0; level < levels; ++level) {
      const std::size_t shift = bits * level;
      for (tick digit = (m_now >> shift) & mask; digit <= mask; ++digit) {
        const std::uint32_t head = m_slots[level * slots + digit];
        if (head == none) continue;
        tick earliest = UINT64_MAX;
        for (std::uint32_t at = head; at != none; at = m_nodes[at].next) earliest = std::min(earliest, m_nodes[at].due);
        return earliest;
      }
    }
    return std::nullopt;
  }
  [[nodiscard]] std::size_t size() const { return m_size; }
  [[nodiscard]] tick now() const { return m_now; }

 private:
  static constexpr std::size_t levels = 8;
  static constexpr std::size_t bits = 8;
  static constexpr std::size_t slots = 256;
  static constexpr tick mask = slots - 1;
  static constexpr std::uint32_t none = UINT32_MAX;
  struct node {
    tick due;
    std::uint32_t prev, next;
    std::uint32_t slot;  // the list it is in
    T value;
  };
  struct list {
    std::uint32_t head, tail;
  };

  [[nodiscard]] static std::size_t slot_of(std::size_t level, tick at) {
    return level * slots + ((at >> (bits * level)) & mask);
  }
  void link(std::uint32_t index) {
    node& n = m_nodes[index];
    const auto level = static_cast<std::size_t>(std::bit_width((n.due ^ m_now) | 1) - 1) / bits;
    const std::size_t slot = slot_of(level, n.due);
    n.slot = static_cast<std::uint32_t>(slot);
    ++m_count[level];
    n.next = none;
    n.prev = m_tails[slot];
    if (n.prev == none) {
      m_slots[slot] = index;
    } else {
      m_nodes[n.prev].next = index;
    }
    m_tails[slot] = index;
  }
  void unlink(std::uint32_t index) {
    const node& n = m_nodes[index];
    --m_count[n.slot / slots];
    if (n.prev == none) {
      m_slots[n.slot] = n.next;
    } else {
      m_nodes[n.prev].next = n.next;
    }
    if (n.next == none) {
      m_tails[n.slot] = n.prev;
    } else {
      m_nodes[n.next].prev = n.prev;
    }
  }
  void release(std::uint32_t index) {
    m_nodes[index].next = m_free;
    m_free = index;
  }
  void cascade(std::size_t slot) {
    std::uint32_t at = m_slots[slot];
    m_slots[slot] = none;
    m_tails[slot] = none;
    while (at != none) {
      const std::uint32_t next = m_nodes[at].next;
      --m_count[slot / slots];
      link(at);
      at = next;
    }
  }
  template <class F>
  std::size_t fire_slot(F& on_expire) {
    const std::size_t slot = slot_of(0, m_now);
    std::size_t fired = 0;
    while (m_slots[slot] != none) {  // a callback may append to this slot
      const std::uint32_t index = m_slots[slot];
      unlink(index);
      T value = std::move(m_nodes[index].value);
      const tick due = m_nodes[index].due;
      release(index);
      --m_size;
      ++fired;
      on_expire(due, std::move(value));
    }
    return fired;
  }

  std::array<std::uint32_t, levels * slots> m_slots{};
  std::array<std::uint32_t, levels * slots> m_tails{};
  std::array<std::size_t, levels> m_count{};  // timers per level
  std::vector<node> m_nodes;
  std::uint32_t m_free = none;
  std::size_t m_size = 0;
  tick m_now = 0;
};

#if TIMING_WHEEL_BENCH_HAS_ABSL
// absl::btree_map keyed by (due, insertion sequence); the handle is the key.
template <class T>
class btree_queue {
 public:
  using key = std::pair<tick, std::uint64_t>;
  using handle = key;

  void reserve(std::size_t) {}
  handle insert(tick deadline, T value) {
    const key k{std::max(deadline, m_now), m_seq++};
    m_map.emplace(k, std::move(value));
    return k;
  }
  bool cancel(handle h) { return m_map.erase(h) == 1; }
  bool reschedule(handle& h, tick deadline) {
    auto found = m_map.find(h);
    if (found == m_map.end()) return false;
    T value = std::move(found->second);
    m_map.erase(found);
    h = key{std::max(deadline, m_now), m_seq++};
    m_map.emplace(h, std::move(value));
    return true;
  }
  template <class F>
  std::size_t advance(tick to, F&& on_expire) {
    std::size_t fired = 0;
    while (!m_map.empty() && m_map.begin()->first.first <= to) {
      auto first = m_map.begin();
      const tick due = first->first.first;
      T value = std::move(first->second);
      m_map.erase(first);
      m_now = due;
      ++fired;
      on_expire(due, std::move(value));
    }
    m_now = std::max(m_now, to);
    return fired;
  }
  [[nodiscard]] std::optional<tick> next_expiration() const {
    if (m_map.empty()) return std::nullopt;
    return m_map.begin()->first.first;
  }
  [[nodiscard]] std::size_t size() const { return m_map.size(); }
  [[nodiscard]] tick now() const { return m_now; }

 private:
  absl::btree_map<key, T> m_map;
  std::uint64_t m_seq = 0;
  tick m_now = 0;
};
#endif

#if TIMING_WHEEL_BENCH_HAS_BOOST
// boost::heap::d_ary_heap (4-ary, mutable): handles allow erase and update in O(log n).
template <class T>
class boost_heap_queue {
  struct entry {
    tick due;
    std::uint64_t seq;
    T value;
  };
  struct later {
    bool operator()(const entry& a, const entry& b) const { return a.due > b.due || (a.due == b.due && a.seq > b.seq); }
  };
  using heap_type =
      boost::heap::d_ary_heap<entry, boost::heap::arity<4>, boost::heap::mutable_<true>, boost::heap::compare<later>>;

 public:
  using handle = typename heap_type::handle_type;

  void reserve(std::size_t n) { m_heap.reserve(n); }
  handle insert(tick deadline, T value) {
    return m_heap.push(entry{std::max(deadline, m_now), m_seq++, std::move(value)});
  }
  bool cancel(handle h) {
    m_heap.erase(h);
    return true;
  }
  bool reschedule(handle& h, tick deadline) {
    (*h).due = std::max(deadline, m_now);
    (*h).seq = m_seq++;
    m_heap.update(h);
    return true;
  }
  template <class F>
  std::size_t advance(tick to, F&& on_expire) {
    std::size_t fired = 0;
    while (!m_heap.empty() && m_heap.top().due <= to) {
      entry top = m_heap.top();
      m_heap.pop();
      m_now = top.due;
      ++fired;
      on_expire(top.due, std::move(top.value));
    }
    m_now = std::max(m_now, to);
    return fired;
  }
  [[nodiscard]] std::optional<tick> next_expiration() const {
    if (m_heap.empty()) return std::nullopt;
    return m_heap.top().due;
  }
  [[nodiscard]] std::size_t size() const { return m_heap.size(); }
  [[nodiscard]] tick now() const { return m_now; }

 private:
  heap_type m_heap;
  std::uint64_t m_seq = 0;
  tick m_now = 0;
};
#endif

}  // namespace bench
