// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

// The earliest timers of one crowded slot list, kept between next_expiration() calls. An exact wheel answers
// next_expiration() for a slot above level 0 by reading the slot's timers. A loop that cancels its earliest timer
// and asks again (request timeouts that end in the order they started, the loop re-arming its sleep after each)
// read the whole slot every time: 10^5 timers in one slot made each call 70 us. This keeps an eighth of the list
// (1,024 at least), its earliest, and `bound`: every timer of the list due before it is kept. They are kept sorted,
// a run consumed from its front, so that dropping the earliest once it is gone costs a step, not a heap's pop (the
// pop was a fifth of such a loop's instructions); timers that join the list before the bound wait in a small
// min-heap after the run. An entry whose timer has since been cancelled, moved or fired stays until it reaches the
// front, where the wheel's test drops it. When both run dry the list is read again: at most once per an eighth of
// its timers gone, so a call costs O(log n) amortised.
//
// A list read in deadline order (timeouts of one length, appended as they start) is marked sorted instead, and
// stays so while every timer that joins it is due no earlier than the last: then its first live entry is its
// earliest, and the wheel answers from that in O(1) without the run (W6, request timeouts: the reads again made up
// a quarter of its instructions). A timer joining out of order ends it, and everything kept: the list is read again.

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
  // Up to this many live timers a list is read whole each time (cheaper than keeping its earliest).
  static constexpr std::uint32_t worth_keeping = 64;

  struct entry {
    tick due;
    std::uint32_t index;
  };

  // How many entries are kept for a list of `timers`: an eighth, at least 1,024 (16 KB), a power of two.
  [[nodiscard]] static std::size_t capacity_for(std::size_t timers) noexcept {
    return std::bit_ceil(std::max<std::size_t>(1024, timers / 8));
  }

  earliest_timers() noexcept = default;
  earliest_timers(earliest_timers&& other) noexcept
      : m_entries(std::move(other.m_entries)),
        m_capacity(std::exchange(other.m_capacity, 0)),
        m_size(std::exchange(other.m_size, 0)),
        m_head(std::exchange(other.m_head, 0)),
        m_run_end(std::exchange(other.m_run_end, 0)),
        m_bound(other.m_bound),
        m_list(std::exchange(other.m_list, nil)),
        m_context(other.m_context),
        m_sorted(std::exchange(other.m_sorted, false)),
        m_last(other.m_last) {}
  earliest_timers& operator=(earliest_timers&& other) noexcept {
    m_entries = std::move(other.m_entries);
    m_capacity = std::exchange(other.m_capacity, 0);
    m_size = std::exchange(other.m_size, 0);
    m_head = std::exchange(other.m_head, 0);
    m_run_end = std::exchange(other.m_run_end, 0);
    m_bound = other.m_bound;
    m_list = std::exchange(other.m_list, nil);
    m_context = other.m_context;
    m_sorted = std::exchange(other.m_sorted, false);
    m_last = other.m_last;
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
    m_entries.reset(new entry[wanted]);  // NOLINT(modernize-make-unique): it would write every entry
    m_capacity = wanted;
    forget();
  }

  // Keeps nothing (the wheel was cleared or moved from).
  void forget() noexcept {
    m_list = nil;
    m_context = nil;
    m_sorted = false;
  }

  // The list kept, or nil, and the context it was read in.
  [[nodiscard]] std::uint32_t list() const noexcept { return m_list; }
  [[nodiscard]] std::uint32_t context() const noexcept { return m_context; }
  // Whether `list` is kept as sorted: its live timers, front to back, are due in non-decreasing order, none after
  // last_due(); its earliest is its first live timer.
  [[nodiscard]] bool sorted(std::uint32_t list) const noexcept { return m_sorted && list == m_list; }
  [[nodiscard]] tick last_due() const noexcept { return m_last; }

  // A timer due at `due` joined the list kept. (Out of line: insertions above level 0 compare their list with
  // list(), and only that comparison should sit on their path.)
  TIMING_WHEEL_NOINLINE void joined(tick due, std::uint32_t index) noexcept {
    if (m_sorted) {  // (nothing else is kept: the list answers)
      if (due >= m_last) {
        m_last = due;
      } else {
        forget();
      }
      return;
    }
    if (due >= m_bound) return;  // it cannot be the earliest while an entry kept before it is still there
    if (m_size == m_capacity && !make_room()) {  // full: read the list again next time
      m_list = nil;
      return;
    }
    m_entries[m_size++] = {due, index};
    std::push_heap(m_entries.get() + m_run_end, m_entries.get() + m_size, later);
  }

  // The earliest due time kept for `list` (read with the same `context`) if an entry for which still_there(entry)
  // holds is left; otherwise nullopt, and the caller reads the list again (begin, offer each timer, end).
  template <class StillThere>
  [[nodiscard]] std::optional<tick> earliest(std::uint32_t list, std::uint32_t context,
                                             StillThere&& still_there) noexcept {
    if (list != m_list || context != m_context || m_sorted) return std::nullopt;
    while (m_head < m_run_end && !still_there(m_entries[m_head])) ++m_head;
    while (m_size > m_run_end && !still_there(m_entries[m_run_end])) {
      std::pop_heap(m_entries.get() + m_run_end, m_entries.get() + m_size, later);
      --m_size;
    }
    const tick run_front = m_head < m_run_end ? m_entries[m_head].due : UINT64_MAX;
    if (m_size > m_run_end) return std::min(run_front, m_entries[m_run_end].due);
    if (m_head < m_run_end) return run_front;
    return std::nullopt;
  }

  // The only timer of `list` (read with `context`) due at `due`, its earliest due time as earliest() last answered,
  // if what is kept shows there is one: every timer of the list due before the bound is kept, so when one kept
  // entry still there is due then and no other is, no other timer of the list is. nil when that is not known (ties,
  // or `due` at the bound): the caller reads the list. (peek() asks it: the timer, not only its due time.)
  template <class StillThere>
  [[nodiscard]] std::uint32_t only_earliest(std::uint32_t list, std::uint32_t context, tick due,
                                            StillThere&& still_there) const noexcept {
    if (list != m_list || context != m_context || m_sorted || due >= m_bound) return nil;
    std::uint32_t only = nil;
    // Entries due before `due` are no longer there (earliest() answered `due`); another due then is a tie.
    const auto alone = [&](const entry& kept) {
      if (kept.due != due || !still_there(kept)) return true;
      if (only == nil) only = kept.index;
      return kept.index == only;  // (a timer moved within the list and back to the same time is kept twice)
    };
    for (std::size_t at = m_head; at < m_run_end && m_entries[at].due <= due; ++at) {
      if (!alone(m_entries[at])) return nil;
    }
    if (m_size > m_run_end) {  // the joined ones: a min-heap, none due before `due`; a tie at its top: read the list
      if (m_entries[m_run_end].due == due) return nil;
    }
    return only;
  }

  // Starts keeping `list` of `timers`, read in `context` (the caller's word for what still_there() accepts), its
  // timers offered front to back. False if no entries can be allocated (then the caller reads the list itself);
  // fewer already there are used if more cannot be.
  [[nodiscard]] bool begin(std::uint32_t list, std::uint32_t context, std::size_t timers) noexcept {
    const std::size_t wanted = capacity_for(timers);
    if (wanted > m_capacity) {
      if (auto* const larger = new (std::nothrow) entry[wanted]) {
        m_entries.reset(larger);
        m_capacity = wanted;
      } else if (!m_entries) {
        return false;
      }
    }
    m_list = list;
    m_context = context;
    m_size = 0;
    m_head = 0;
    m_run_end = 0;
    m_bound = UINT64_MAX;
    m_sorted = true;  // until a timer is offered out of order
    m_last = 0;
    return true;
  }

  // One live timer of the list being read: kept while it is among the earliest (once the entries are full, a
  // max-heap until end()).
  void offer(tick due, std::uint32_t index) noexcept {
    m_sorted = m_sorted && due >= m_last;
    m_last = due;
    if (m_size == m_capacity && due >= m_entries[0].due) {  // most of a long list stops here
      m_bound = std::min(m_bound, due);
      return;
    }
    keep(due, index);
  }

  // The list has been read (at least one timer offered): returns its earliest due time. (If it was in order, what
  // is kept goes unused from here: sorted() answers.)
  tick end() noexcept {
    std::sort(m_entries.get(), m_entries.get() + m_size, earlier);
    m_head = 0;
    m_run_end = m_size;
    return m_entries[0].due;
  }

 private:
  struct earlier_first {
    bool operator()(const entry& a, const entry& b) const noexcept { return a.due < b.due; }
  };
  struct later_first {
    bool operator()(const entry& a, const entry& b) const noexcept { return a.due > b.due; }
  };
  static constexpr earlier_first earlier{};  // orders the max-heap of the read, and the run
  static constexpr later_first later{};      // orders the min-heap of the timers that joined since

  // Slides the run and the joined timers to the front over the run's consumed entries, when those are a quarter
  // of the room at least (so each slide makes room for as many joins as a quarter of the entries it moves).
  [[nodiscard]] bool make_room() noexcept {
    if (m_head < m_capacity / 4) return false;
    std::move(m_entries.get() + m_head, m_entries.get() + m_size, m_entries.get());
    m_run_end -= m_head;
    m_size -= m_head;
    m_head = 0;
    return true;
  }

  TIMING_WHEEL_NOINLINE void keep(tick due, std::uint32_t index) noexcept {
    if (m_size < m_capacity) {  // filling up: in any order, one heap built when full
      m_entries[m_size++] = {due, index};
      if (m_size == m_capacity) std::make_heap(m_entries.get(), m_entries.get() + m_size, earlier);
      return;
    }
    m_bound = std::min(m_bound, m_entries[0].due);  // the latest kept one leaves
    std::pop_heap(m_entries.get(), m_entries.get() + m_size, earlier);
    m_entries[m_size - 1] = {due, index};
    std::push_heap(m_entries.get(), m_entries.get() + m_size, earlier);
  }

  // [m_head, m_run_end): the run, sorted; [m_run_end, m_size): the joined timers, a min-heap. (While a list is read,
  // [0, m_size) is a max-heap of the earliest so far.)
  std::unique_ptr<entry[]> m_entries;
  std::size_t m_capacity = 0;
  std::size_t m_size = 0;
  std::size_t m_head = 0;
  std::size_t m_run_end = 0;
  tick m_bound = UINT64_MAX;  // every live timer of the list due before this is kept
  std::uint32_t m_list = nil;
  std::uint32_t m_context = nil;
  bool m_sorted = false;  // the list was read in deadline order and every timer since joined it in order
  tick m_last = 0;        // the latest due time offered or joined, while sorted
};

}  // namespace detail
TIMING_WHEEL_NAMESPACE_END
