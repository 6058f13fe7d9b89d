// The yardsticks users know, behind the API subset the benchmarks use (insert, cancel, reschedule, advance,
// next_expiration, size, now, reserve). Each fires in (due, insertion) order, as the contract does, so the same
// checksum holds for all. The Abseil and Boost ones are built only when their headers are installed
// (libabsl-dev, libboost-dev); the suite runs without them.
#pragma once

#include <timing_wheel/timer_queue.hpp>

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
