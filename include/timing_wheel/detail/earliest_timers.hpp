// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

// The earliest timers of one crowded slot list, kept between next_expiration() calls. An exact wheel answers
// next_expiration() for a slot above level 0 by reading the slot's timers. A loop that cancels its earliest timer
// and asks again (request timeouts that end in the order they started, the loop re-arming its sleep after each)
// read the whole slot every time: 10^5 timers in one slot made each call 70 us. This keeps an eighth of the list
// (1,024 at least), its earliest, in a min-heap on the due time, and `bound`: every timer of the list due before it
// is in the heap. An entry whose timer has since been cancelled, moved or fired stays until it reaches the top,
// where the wheel's test drops it. When the heap runs dry the list is read again: at most once per an eighth of its
// timers gone, so a call costs O(log n) amortised.

#include <timing_wheel/detail/config.hpp>
#include <timing_wheel/detail/slab.hpp>
#include <timing_wheel/types.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <utility>

TIMING_WHEEL_NAMESPACE_BEGIN
namespace detail {

class earliest_timers {
 public:
  // Up to this many live timers a list is read whole each time (cheaper than the heap).
  static constexpr std::uint32_t worth_keeping = 64;

  struct entry {
    tick due;
    std::uint32_t index;
  };

  // How many entries the heap holds for a list of `timers`: an eighth, at least 1,024 (16 KB), a power of two.
  [[nodiscard]] static std::size_t capacity_for(std::size_t timers) noexcept {
    return std::bit_ceil(std::max<std::size_t>(1024, timers / 8));
  }

  earliest_timers() noexcept = default;
  earliest_timers(earliest_timers&& other) noexcept
      : m_heap(std::move(other.m_heap)),
        m_capacity(std::exchange(other.m_capacity, 0)),
        m_size(std::exchange(other.m_size, 0)),
        m_bound(other.m_bound),
        m_list(std::exchange(other.m_list, nil)),
        m_context(other.m_context) {}
  earliest_timers& operator=(earliest_timers&& other) noexcept {
    m_heap = std::move(other.m_heap);
    m_capacity = std::exchange(other.m_capacity, 0);
    m_size = std::exchange(other.m_size, 0);
    m_bound = other.m_bound;
    m_list = std::exchange(other.m_list, nil);
    m_context = other.m_context;
    return *this;
  }
  earliest_timers(const earliest_timers&) = delete;
  earliest_timers& operator=(const earliest_timers&) = delete;
  ~earliest_timers() = default;

  // Makes room for a list of `timers` now (reserve(), a fixed capacity), so that reading one later allocates
  // nothing. The entries are not written: pages never used cost no memory. Throws: bad_alloc.
  void reserve(std::size_t timers) {
    const std::size_t wanted = capacity_for(timers);
    if (wanted <= m_capacity) return;
    m_heap.reset(new entry[wanted]);  // NOLINT(modernize-make-unique): it would write every entry
    m_capacity = wanted;
    forget();
  }

  // Keeps nothing (the wheel was cleared or moved from).
  void forget() noexcept {
    m_list = nil;
    m_context = nil;
  }

  // The list kept, or nil, and the context it was read in.
  [[nodiscard]] std::uint32_t list() const noexcept { return m_list; }
  [[nodiscard]] std::uint32_t context() const noexcept { return m_context; }

  // A timer due at `due` joined the list kept. (Out of line: insertions above level 0 compare their list with
  // list(), and only that comparison should sit on their path.)
  TIMING_WHEEL_NOINLINE void joined(tick due, std::uint32_t index) noexcept {
    if (due >= m_bound) return;  // it cannot be the earliest while an entry in the heap is still there
    if (m_size == m_capacity) {  // full: read the list again next time
      m_list = nil;
      return;
    }
    m_heap[m_size++] = {due, index};
    std::push_heap(m_heap.get(), m_heap.get() + m_size, later);
  }

  // The earliest due time kept for `list` (read with the same `context`) if an entry for which still_there(entry)
  // holds is left; otherwise nullopt, and the caller reads the list again (begin, offer each timer, end).
  template <class StillThere>
  [[nodiscard]] std::optional<tick> earliest(std::uint32_t list, std::uint32_t context,
                                             StillThere&& still_there) noexcept {
    if (list != m_list || context != m_context) return std::nullopt;
    while (m_size > 0 && !still_there(m_heap[0])) {
      std::pop_heap(m_heap.get(), m_heap.get() + m_size, later);
      --m_size;
    }
    if (m_size == 0) return std::nullopt;
    return m_heap[0].due;
  }

  // Starts keeping `list` of `timers`, read in `context` (the caller's word for what still_there() accepts). False
  // if no heap can be allocated (then the caller reads the list itself); a smaller one already there is used if a
  // larger cannot be.
  [[nodiscard]] bool begin(std::uint32_t list, std::uint32_t context, std::size_t timers) noexcept {
    const std::size_t wanted = capacity_for(timers);
    if (wanted > m_capacity) {
      if (auto* const larger = new (std::nothrow) entry[wanted]) {
        m_heap.reset(larger);
        m_capacity = wanted;
      } else if (!m_heap) {
        return false;
      }
    }
    m_list = list;
    m_context = context;
    m_size = 0;
    m_bound = UINT64_MAX;
    return true;
  }

  // One live timer of the list being read: kept while it is among the earliest (once the heap is full, a max-heap
  // until end()).
  void offer(tick due, std::uint32_t index) noexcept {
    if (m_size == m_capacity && due >= m_heap[0].due) {  // most of a long list stops here
      m_bound = std::min(m_bound, due);
      return;
    }
    keep(due, index);
  }

  // The list has been read (at least one timer offered): returns its earliest due time.
  tick end() noexcept {
    std::make_heap(m_heap.get(), m_heap.get() + m_size, later);
    return m_heap[0].due;
  }

 private:
  struct earlier_first {
    bool operator()(const entry& a, const entry& b) const noexcept { return a.due < b.due; }
  };
  struct later_first {
    bool operator()(const entry& a, const entry& b) const noexcept { return a.due > b.due; }
  };
  static constexpr earlier_first earlier{};  // orders the max-heap of the read
  static constexpr later_first later{};      // orders the min-heap between reads

  TIMING_WHEEL_NOINLINE void keep(tick due, std::uint32_t index) noexcept {
    if (m_size < m_capacity) {  // filling up: in any order, one heap built when full
      m_heap[m_size++] = {due, index};
      if (m_size == m_capacity) std::make_heap(m_heap.get(), m_heap.get() + m_size, earlier);
      return;
    }
    m_bound = std::min(m_bound, m_heap[0].due);  // the latest kept one leaves
    std::pop_heap(m_heap.get(), m_heap.get() + m_size, earlier);
    m_heap[m_size - 1] = {due, index};
    std::push_heap(m_heap.get(), m_heap.get() + m_size, earlier);
  }

  std::unique_ptr<entry[]> m_heap;
  std::size_t m_capacity = 0;
  std::size_t m_size = 0;
  tick m_bound = UINT64_MAX;  // every live timer of the list due before this is in the heap
  std::uint32_t m_list = nil;
  std::uint32_t m_context = nil;
};

}  // namespace detail
TIMING_WHEEL_NAMESPACE_END
