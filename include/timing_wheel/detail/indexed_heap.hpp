// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

#include <timing_wheel/types.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

TIMING_WHEEL_NAMESPACE_BEGIN
namespace detail {

// One timer in a heap: its due time, its insertion sequence number (equal due times leave in insertion order) and
// its slab node, in 16 bytes. Entries carry their key so sifting compares without touching the nodes.
struct heap_entry {
  tick key;
  std::uint32_t seq;
  std::uint32_t node;
};
static_assert(sizeof(heap_entry) == 16);

// A 4-ary min-heap on (key, seq) that reports every entry's position through `on_move(node, position)`, so that
// a node can be found in O(1) and removed or re-keyed in O(log n). Four children per parent halve the depth of a
// binary heap; their entries share a cache line or two. Every comparison of two entries is reported to `counter`
// (an instrumentation policy: counter.compared()).
class indexed_heap {
 public:
  static constexpr std::size_t arity = 4;

  [[nodiscard]] std::size_t size() const noexcept { return m_entries.size(); }
  [[nodiscard]] bool empty() const noexcept { return m_entries.empty(); }
  [[nodiscard]] const heap_entry& top() const noexcept { return m_entries.front(); }
  [[nodiscard]] const heap_entry& at(std::size_t position) const noexcept { return m_entries[position]; }
  void reserve(std::size_t n) { m_entries.reserve(n); }
  void clear() noexcept { m_entries.clear(); }

  /// Makes the next push() unable to throw; may throw bad_alloc itself, changing nothing.
  void make_room() {
    if (m_entries.size() == m_entries.capacity()) [[unlikely]]
      grow();
  }

  /// Requires make_room() since the last push.
  template <class OnMove, class Count>
  void push(tick key, std::uint32_t node, OnMove&& on_move, Count& counter) noexcept {
    m_entries.push_back(heap_entry{key, m_seq++, node});
    sift_up(m_entries.size() - 1, on_move, counter);
    if (m_seq == UINT32_MAX) [[unlikely]]
      renumber(on_move);
  }

  /// Test-only: the sequence number the next push or rekey takes, to reach the renumbering without 2^32 pushes.
  void set_sequence_for_testing(std::uint32_t seq) noexcept { m_seq = seq; }

  template <class OnMove, class Count>
  void erase(std::size_t position, OnMove&& on_move, Count& counter) noexcept {
    const std::size_t last = m_entries.size() - 1;
    if (position != last) {
      const heap_entry moved = m_entries[last];
      m_entries.pop_back();
      place_and_sift(position, moved, on_move, counter);
    } else {
      m_entries.pop_back();
    }
  }

  template <class OnMove, class Count>
  void pop(OnMove&& on_move, Count& counter) noexcept {
    erase(0, on_move, counter);
  }

  /// Gives the entry at `position` a new key and a fresh sequence number: it counts as a new insertion.
  template <class OnMove, class Count>
  void rekey(std::size_t position, tick key, OnMove&& on_move, Count& counter) noexcept {
    heap_entry entry = m_entries[position];
    entry.key = key;
    entry.seq = m_seq++;
    place_and_sift(position, entry, on_move, counter);
    if (m_seq == UINT32_MAX) [[unlikely]]
      renumber(on_move);
  }

  [[nodiscard]] static bool before(const heap_entry& a, const heap_entry& b) noexcept {
    return a.key < b.key || (a.key == b.key && a.seq < b.seq);
  }

 private:
  [[gnu::cold]] void grow() { m_entries.reserve(std::max<std::size_t>(16, m_entries.capacity() * 2)); }

  // The 32-bit sequence numbers ran out (after 2^32 - 1 pushes and rekeys): the entries are sorted, which keeps
  // a valid heap and every tie's order, and numbered afresh from 0 by position. O(n log n) once in 2^32 operations.
  template <class OnMove>
  [[gnu::cold]] void renumber(OnMove& on_move) noexcept {
    std::sort(m_entries.begin(), m_entries.end(), before);
    for (std::size_t position = 0; position < m_entries.size(); ++position) {
      m_entries[position].seq = static_cast<std::uint32_t>(position);
      on_move(m_entries[position].node, position);
    }
    m_seq = static_cast<std::uint32_t>(m_entries.size());
  }

  template <class OnMove, class Count>
  void place_and_sift(std::size_t position, const heap_entry& entry, OnMove& on_move, Count& counter) noexcept {
    m_entries[position] = entry;
    if (position > 0 && (counter.compared(), before(entry, m_entries[(position - 1) / arity]))) {
      sift_up(position, on_move, counter);
    } else {
      sift_down(position, on_move, counter);
    }
  }

  template <class OnMove, class Count>
  void sift_up(std::size_t position, OnMove& on_move, Count& counter) noexcept {
    const heap_entry entry = m_entries[position];
    while (position > 0) {
      const std::size_t parent = (position - 1) / arity;
      counter.compared();
      if (!before(entry, m_entries[parent])) break;
      m_entries[position] = m_entries[parent];
      on_move(m_entries[position].node, position);
      position = parent;
    }
    m_entries[position] = entry;
    on_move(entry.node, position);
  }

  template <class OnMove, class Count>
  void sift_down(std::size_t position, OnMove& on_move, Count& counter) noexcept {
    const heap_entry entry = m_entries[position];
    const std::size_t count = m_entries.size();
    for (;;) {
      const std::size_t first = position * arity + 1;
      if (first >= count) break;
      std::size_t best = first;
      const auto take_if_earlier = [&](std::size_t child) {
        counter.compared();
        if (before(m_entries[child], m_entries[best])) best = child;
      };
      if (first + arity <= count) {
        // A whole family: a loop of constant length, which the compiler unrolls wherever the heap is inlined. The
        // general loop below was compiled differently from build to build (min_heap's W1 moved by 34 instructions
        // a timer with unrelated changes); unrolled, min_heap does 13-19% fewer on W1, W3 and W6.
        for (std::size_t child = first + 1; child < first + arity; ++child) take_if_earlier(child);
      } else {
        for (std::size_t child = first + 1; child < count; ++child) take_if_earlier(child);
      }
      counter.compared();
      if (!before(m_entries[best], entry)) break;
      m_entries[position] = m_entries[best];
      on_move(m_entries[position].node, position);
      position = best;
    }
    m_entries[position] = entry;
    on_move(entry.node, position);
  }

  std::vector<heap_entry> m_entries;
  std::uint32_t m_seq = 0;
};

}  // namespace detail
TIMING_WHEEL_NAMESPACE_END
