// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

#include <timing_wheel/detail/slab.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

TIMING_WHEEL_NAMESPACE_BEGIN
namespace detail {

// A slot list as a queue of 32-bit entries (node indices) in chained 64-byte chunks, instead of links threaded
// through the nodes: walking a list reads consecutive entries, so the nodes they name can be fetched ahead and in
// parallel rather than one dependent miss after another. An entry's position (chunk << 4 | offset) is all a node
// keeps to find it; a cancelled entry is marked dead in place (O(1), order kept) and a list whose dead entries
// outnumber its live ones is compacted, so memory stays bounded by the live entries. Which list a chunk belongs to
// is kept apart, two bytes a chunk in a dense array, so a cancel learns it without waiting on the chunk's cache
// line (the entry itself is only written).
//
// Compaction goes in steps of compaction_step entries, one each time an entry of the list is removed, so that no
// removal waits for a whole list: with 10^6 idle timeouts in a few slots (W3), a reschedule that compacted its list
// at once moved up to a quarter of them, 8-15 ms, seven times in 5x10^6 reschedules. Between steps the list stays
// whole: the entries the compaction has read and not yet written back are dead ones (the list's gap), and the chunks
// it has emptied are freed as it goes.
//
// A list holding one entry and nothing else keeps it in its own header, with no chunk: most slots of a sparse wheel
// hold a lone timer (the backtest, or 10^6 timers over 2^20 ticks), and a chunk for each cost an acquire and a
// release of the free list and a cache line more to touch at every placement and firing. Such an entry's position
// names the list instead of a chunk (inline_position()); a second entry moves it into a chunk.
inline constexpr std::uint32_t entries_per_chunk = 15;
inline constexpr unsigned offset_bits = 4;
inline constexpr std::uint32_t dead_entry = nil;
// chunk_list::front of a list whose one entry is inline (no position has it: chunk numbers stop short of it).
inline constexpr std::uint32_t inline_front = nil - 1;
// Chunk numbers from here up name lists (owner ids are 16 bits) in the positions of inline entries.
inline constexpr std::uint32_t inline_chunks_from = (1U << (32 - offset_bits)) - 1 - (1U << 16);
// A list may hold this many dead entries per live one before it is compacted. Compaction moves every live entry
// and rewrites its node's position, so a higher ratio means fewer moves per cancel (1 / ratio) but more chunks:
// at 3, a reschedule-heavy run did 6-7% fewer instructions and 12% fewer L1 misses than at 1, yet W3 (10^6
// timers, out of cache) ran 5-13% slower in 5 of 5 alternated runs, and the bound on timers fell to 10^9. With
// the branch-free compaction, 2 against 1: examples/demo.cpp 5.6% fewer instructions and 4-8% faster, W3 13% slower.
inline constexpr std::uint32_t dead_per_live = 1;
// Entries a compaction reads per removal from its list. A compaction that starts with d dead entries in a list of e
// reads at most e + e / (compaction_step - 1) entries (a removal may append one: a reschedule), so it ends within
// e / (compaction_step - 1) removals, and the dead entries they add stay a few per cent of the list.
inline constexpr std::uint32_t compaction_step = 32;
// A list holding more dead entries than this, for its live ones, is compacted at once: one that was compacting in
// steps holds at most 7% more than its live ones (they may fall by as many meanwhile); only a list whose live entries
// were taken from its front faster than its compaction stepped gets here.
[[nodiscard]] constexpr std::uint32_t most_dead(std::uint32_t live) noexcept {
  return live + live / 4 + entries_per_chunk;
}

struct alignas(64) entry_chunk {
  std::uint32_t next;  // the next chunk of its list, or nil; the free-list link while free
  std::array<std::uint32_t, entries_per_chunk> entries;
};
static_assert(sizeof(entry_chunk) == 64);

struct chunk_list {
  std::uint32_t front = nil;  // position of the first entry (live or dead); nil when empty, inline_front when lone
  std::uint32_t back = nil;   // position one past the last entry (offset 1 to entries_per_chunk); the lone entry
  std::uint32_t live = 0;
  std::uint32_t dead = 0;

  [[nodiscard]] bool empty() const noexcept { return front == nil; }
  // One live entry, kept in `back`; no dead ones, no chunk.
  [[nodiscard]] bool lone() const noexcept { return front == inline_front; }
  // A list holding more than dead_per_live dead entries per live one (and at least a chunk's worth) is due for
  // compaction: then every list holds at most max(dead_per_live * live, entries_per_chunk - 1) dead entries.
  [[nodiscard]] bool crowded() const noexcept { return dead > dead_per_live * live && dead >= entries_per_chunk; }
};

[[nodiscard]] constexpr std::uint32_t chunk_of(std::uint32_t position) noexcept { return position >> offset_bits; }
[[nodiscard]] constexpr std::uint32_t offset_of(std::uint32_t position) noexcept {
  return position & ((1U << offset_bits) - 1);
}
// The position of the lone entry of list `id`.
[[nodiscard]] constexpr std::uint32_t inline_position(std::uint32_t id) noexcept {
  return (inline_chunks_from + id) << offset_bits;
}

// The chunks of every list of one queue, in one array (and the list each chunk belongs to in a second, two bytes a
// chunk), so a chunk lookup is one indexed load. The arrays are grown only by reserve(), which moves the chunks to
// a larger array: a queue reserves enough for its live timers before it changes anything, so appending,
// cancelling and cascading never allocate (see chunks_needed()) and no chunk moves while a list is being walked.
class chunk_pool {
 public:
  static constexpr std::uint32_t max_chunks = inline_chunks_from;  // the numbers above name lists

  // Chunks enough for `timers` live entries spread over `lists` lists, each holding at most most_dead(live) dead
  // entries, plus one chain being emptied by a cascade: a list of e entries (a compaction's gap among its dead ones)
  // spans at most e / 15 + 2 chunks, so a list of `live` live entries at most 2.25 * live / 15 + 3. Only lists
  // holding a live entry hold chunks (an emptied list gives its chunks back), and there are at most `timers` of
  // those. A timer a cascade has moved counts in its new list, which it fills by one entry, not 2.25; that slack
  // covers the dead entries still in the chain.
  [[nodiscard]] static constexpr std::size_t chunks_needed(std::size_t timers, std::size_t lists) noexcept {
    return (9 * timers / 4 + entries_per_chunk - 1) / entries_per_chunk + 4 * (std::min(lists, timers) + 1);
  }

  chunk_pool() noexcept = default;
  chunk_pool(const chunk_pool&) = delete;
  chunk_pool& operator=(const chunk_pool&) = delete;
  chunk_pool(chunk_pool&& other) noexcept
      : m_chunks(std::exchange(other.m_chunks, nullptr)),
        m_owners(std::exchange(other.m_owners, nullptr)),
        m_compactions(std::exchange(other.m_compactions, nullptr)),
        m_compacting(std::exchange(other.m_compacting, 0)),
        m_capacity(std::exchange(other.m_capacity, 0)),
        m_timers_covered(std::exchange(other.m_timers_covered, 0)),
        m_used(std::exchange(other.m_used, 0)),
        m_free(std::exchange(other.m_free, nil)) {}
  chunk_pool& operator=(chunk_pool&& other) noexcept {
    if (this != &other) {
      release_storage();
      m_chunks = std::exchange(other.m_chunks, nullptr);
      m_owners = std::exchange(other.m_owners, nullptr);
      m_compactions = std::exchange(other.m_compactions, nullptr);
      m_compacting = std::exchange(other.m_compacting, 0);
      m_capacity = std::exchange(other.m_capacity, 0);
      m_timers_covered = std::exchange(other.m_timers_covered, 0);
      m_used = std::exchange(other.m_used, 0);
      m_free = std::exchange(other.m_free, nil);
    }
    return *this;
  }
  ~chunk_pool() { release_storage(); }

  [[nodiscard]] entry_chunk& operator[](std::uint32_t chunk) noexcept { return m_chunks[chunk]; }
  [[nodiscard]] const entry_chunk& operator[](std::uint32_t chunk) const noexcept { return m_chunks[chunk]; }
  [[nodiscard]] std::uint32_t& entry(std::uint32_t position) noexcept {
    return m_chunks[chunk_of(position)].entries[offset_of(position)];
  }
  [[nodiscard]] std::uint32_t entry(std::uint32_t position) const noexcept {
    return m_chunks[chunk_of(position)].entries[offset_of(position)];
  }
  // The list the entry at `position` belongs to.
  [[nodiscard]] std::uint32_t owner(std::uint32_t position) const noexcept {
    const std::uint32_t chunk = chunk_of(position);
    return chunk >= inline_chunks_from ? chunk - inline_chunks_from : m_owners[chunk];
  }
  // Chunks ever handed out (in lists or on the free list).
  [[nodiscard]] std::uint32_t used() const noexcept { return m_used; }
  // Chunks allocated.
  [[nodiscard]] std::size_t capacity() const noexcept { return m_capacity; }

  /// Makes room for `chunks` chunks in all. Strong guarantee: throws bad_alloc and changes nothing.
  void reserve(std::size_t chunks) {
    if (chunks > m_capacity) grow(chunks);
  }

  /// True when the chunks allocated hold `timers` live entries, whatever is cancelled or cascaded.
  [[nodiscard]] bool covers(std::size_t timers) const noexcept { return timers <= m_timers_covered; }

  /// Makes room for `timers` live entries over `lists` lists (chunks_needed()). Strong guarantee.
  TIMING_WHEEL_HOT void reserve_for(std::size_t timers, std::size_t lists) {
    if (timers > m_timers_covered) [[unlikely]]
      cover(timers, lists);
  }

 private:
  // The walks that hand a list's entries to f(value) call prefetch(value) ahead of it. A prefetch that returns what
  // it loaded (the node's address) has that handed on as f(value, loaded): looking the node up again cost a few
  // instructions a timer at every cascade.
  struct nothing_loaded {};
  template <class Prefetch>
  using loaded_by = std::conditional_t<std::is_void_v<std::invoke_result_t<Prefetch&, std::uint32_t>>, nothing_loaded,
                                       std::invoke_result_t<Prefetch&, std::uint32_t>>;
  template <class Prefetch>
  static loaded_by<Prefetch> load(Prefetch& prefetch, std::uint32_t value) {
    if constexpr (std::is_same_v<loaded_by<Prefetch>, nothing_loaded>) {
      prefetch(value);
      return {};
    } else {
      return prefetch(value);
    }
  }
  template <class F, class Loaded>
  static void hand(F& f, std::uint32_t value, const Loaded& loaded) {
    if constexpr (std::is_same_v<Loaded, nothing_loaded>) {
      f(value);
    } else {
      f(value, loaded);
    }
  }

  TIMING_WHEEL_NOINLINE void cover(std::size_t timers, std::size_t lists) {
    if (m_compactions == nullptr) {  // zeroed: no compaction under way (pages untouched until a list needs one)
      m_compactions = static_cast<compaction*>(std::calloc(lists, sizeof(compaction)));
      if (m_compactions == nullptr) throw_bad_alloc();
    }
    reserve(chunks_needed(timers, lists));
    // The most live entries the chunks now allocated cover (chunks_needed() grows with `timers`), so that the next
    // calls return at the first test.
    std::size_t covered = timers;
    std::size_t beyond = m_capacity * entries_per_chunk * 4 / 9 + 1;  // chunks_needed(beyond) > capacity
    while (beyond - covered > 1) {
      const std::size_t middle = covered + (beyond - covered) / 2;
      (chunks_needed(middle, lists) <= m_capacity ? covered : beyond) = middle;
    }
    m_timers_covered = std::max(covered, timers);
  }

 public:
  /// Every chunk becomes free again (and every compaction stops); the memory stays. `lists`: as for reserve_for().
  void reset(std::size_t lists) noexcept {
    m_used = 0;
    m_free = nil;
    if (m_compacting != 0) std::memset(static_cast<void*>(m_compactions), 0, lists * sizeof(compaction));
    m_compacting = 0;
  }

  /// Appends `value` to `list` (whose id is `id`). If the list held a lone entry, it moves into a chunk first and
  /// relocate(its value, its new position) is called. Returns: the position of `value`. Requires: a free chunk if
  /// the last is full.
  template <class Relocate>
  TIMING_WHEEL_HOT std::uint32_t push_back(chunk_list& list, std::uint32_t id, std::uint32_t value,
                                           Relocate&& relocate) noexcept {
    if (list.front >= inline_front) [[unlikely]] {  // (nil or inline_front: a list without a chunk)
      if (list.front == nil) {
        list = {inline_front, value, 1, 0};
        return inline_position(id);
      }
      const std::uint32_t first = acquire(id) << offset_bits;
      const std::uint32_t lone = list.back;
      entry(first) = lone;
      list.front = first;
      list.back = first + 1;
      relocate(lone, first);
    }
    ++list.live;
    return append_entry(list, id, value);
  }

  /// The position after `position` in its list, or `back` at the end.
  [[nodiscard]] std::uint32_t step(std::uint32_t position, std::uint32_t back) const noexcept {
    ++position;
    if (offset_of(position) == entries_per_chunk && position != back) {
      position = (*this)[chunk_of(position)].next << offset_bits;
    }
    return position;
  }

  /// Removes and returns the first live entry, dropping the dead ones before it and freeing the chunks it leaves.
  /// Requires: list.live > 0. The list may be left crowded or holding only dead entries (then: release()).
  TIMING_WHEEL_HOT std::uint32_t pop_front(chunk_list& list) noexcept {
    if (list.lone()) return std::exchange(list, chunk_list{}).back;
    for (;;) {
      const std::uint32_t position = list.front;
      const std::uint32_t value = entry(position);
      const std::uint32_t next = position + 1;
      if (next == list.back) {
        stop_compaction(chunk_of(position));
        free_chunk(chunk_of(position));
        list.front = list.back = nil;
      } else if (offset_of(next) == entries_per_chunk) {
        const std::uint32_t chunk = chunk_of(position);
        list.front = (*this)[chunk].next << offset_bits;
        front_chunk_freed(chunk);
      } else {
        list.front = next;
      }
      if (value != dead_entry) {
        --list.live;
        return value;
      }
      --list.dead;
    }
  }

  /// Removes the first `count` live entries of `list` (and the dead ones before and among them), calling f(value)
  /// for each in order, and frees the chunks it leaves. They go in batches: one walk takes a batch's entries off
  /// the list into a local array and hands each to prefetch(value), so their nodes load in parallel, then f runs
  /// on the batch. f may append to other lists of this pool, not to `list`.
  /// Requires: count <= list.live; the list is not lone (pop_front(list) takes that entry: one call of f, so that
  /// the compiler inlines it). The list may be left crowded or holding only dead entries (then: release()).
  template <class Prefetch, class F>
  void pop_front(chunk_list& list, std::uint32_t count, Prefetch&& prefetch, F&& f) noexcept {
    TIMING_WHEEL_ASSERT(!list.lone(), "chunk_pool::pop_front(list, count): a lone entry is taken by pop_front(list)");
    constexpr std::uint32_t batch_size = 16;
    // Read only where filled (the entries taken): zeroing them would cost stores every call.
    std::array<std::uint32_t, batch_size> batch;         // NOLINT(cppcoreguidelines-pro-type-member-init)
    std::array<loaded_by<Prefetch>, batch_size> loaded;  // NOLINT(cppcoreguidelines-pro-type-member-init)
    const std::uint32_t last = chunk_of(list.back - 1);
    const std::uint32_t last_end = offset_of(list.back - 1) + 1;
    std::uint32_t chunk = chunk_of(list.front);
    std::uint32_t at = offset_of(list.front);
    while (count > 0) {
      std::uint32_t taken = 0;
      const std::uint32_t wanted = std::min(count, batch_size);
      bool emptied = false;
      // A chunk at a time: the chunk lookup and the end test run once a chunk, not once an entry.
      while (taken < wanted) {
        const entry_chunk& holder = m_chunks[chunk];
        if (chunk != last) detail::prefetch(&m_chunks[holder.next]);  // else chained chunks miss one after another
        const std::uint32_t end = chunk == last ? last_end : entries_per_chunk;
        for (; at < end && taken < wanted; ++at) {
          const std::uint32_t value = holder.entries[at];
          if (value == dead_entry) {
            --list.dead;
            continue;
          }
          loaded[taken] = load(prefetch, value);
          batch[taken++] = value;
        }
        if (at < end) break;
        if (chunk == last) {
          stop_compaction(chunk);
          free_chunk(chunk);
          emptied = true;
          break;
        }
        const std::uint32_t next = holder.next;
        front_chunk_freed(chunk);  // f may reuse it: its entries have been read
        chunk = next;
        at = 0;
      }
      list.live -= taken;
      count -= taken;
      if (emptied) {
        list.front = list.back = nil;
      } else {
        list.front = (chunk << offset_bits) | at;
      }
      for (std::uint32_t i = 0; i < taken; ++i) hand(f, batch[i], loaded[i]);
    }
    if (list.live != 0) drop_dead_front(list);
  }

  /// Marks the entry at `position` of `list` dead. Requires: the list is not lone (a lone entry goes with
  /// `list = {}`: no chunk to give back). The caller then calls compact_some() or release().
  TIMING_WHEEL_HOT void kill(chunk_list& list, std::uint32_t position) noexcept {
    TIMING_WHEEL_ASSERT(!list.lone(), "chunk_pool::kill: a lone entry goes with its list");
    entry(position) = dead_entry;
    --list.live;
    ++list.dead;
  }

  /// Moves the live entry `value` at `position` of `list` (whose id is `id`) to the back: its place turns dead, and
  /// the list keeps as many live entries; a step of its compaction may move others (relocate). Returns: its new
  /// position. Requires: the list holds another live entry (so it is not lone) and, if its last chunk is full, a free
  /// chunk. The list may be left with a dead front.
  // (The caller passes the value it knows, the node's index: reading it from the entry made the append wait on
  // that entry's cache line, a miss at a random place in a long list; the dead mark is a store, which does not.)
  template <class Relocate>
  TIMING_WHEEL_HOT std::uint32_t move_to_back(chunk_list& list, std::uint32_t id, std::uint32_t position,
                                              std::uint32_t value, Relocate&& relocate) noexcept {
    TIMING_WHEEL_ASSERT(list.live >= 2, "chunk_pool::move_to_back: the list must hold another live entry");
    TIMING_WHEEL_ASSERT(entry(position) == value, "chunk_pool::move_to_back: the entry at `position` is not `value`");
    ++list.dead;
    entry(position) = dead_entry;
    compact_some(list, id, relocate);  // (before the append: a step may move entries, and this one is placed after)
    return append_entry(list, id, value);
  }

  /// After `removed` entries of `list` (whose id is `id`, holding a live entry) were removed: if the list holds more
  /// dead entries than live ones (and at least a chunk's worth), its compaction (started if need be) reads
  /// compaction_step entries for each; a list past most_dead() is compacted at once. Calls relocate(value, new
  /// position) for every entry it moves.
  template <class Relocate>
  TIMING_WHEEL_HOT void compact_some(chunk_list& list, std::uint32_t id, Relocate&& relocate,
                                     std::uint32_t removed = 1) noexcept {
    // (A compaction under way whose list is no longer crowded waits: its list stays within bounds meanwhile. Lone
    // lists hold no dead entry.)
    if (list.dead > dead_per_live * list.live && list.dead >= entries_per_chunk) [[unlikely]]
      compact_crowded(list, id, relocate, removed);
  }

  /// Drops the dead entries at the front of `list`, freeing the chunks it leaves. Requires: list.live > 0, the list
  /// not lone. Taking timers front to back with peek() and cancel() walked a dead prefix that grew with each
  /// (20,000 timers due at one tick: 5.5 us a timer); a wheel calls this where its removals and partial walks may
  /// leave a dead front (the single pop_front, on the firing path, does not: each check there cost a firing 7
  /// instructions).
  TIMING_WHEEL_HOT void drop_dead_front(chunk_list& list) noexcept {
    if (entry(list.front) == dead_entry) drop_dead_run(list);
  }

  /// drop_dead_front() for a list whose front is known dead. (Out of line: rare, and inlined it cost the backtest
  /// 5% more mispredicted branches.)
  TIMING_WHEEL_NOINLINE void drop_dead_run(chunk_list& list) noexcept {
    while (entry(list.front) == dead_entry) {
      const std::uint32_t next = list.front + 1;
      if (offset_of(next) == entries_per_chunk) {
        const std::uint32_t chunk = chunk_of(list.front);
        list.front = (*this)[chunk].next << offset_bits;
        front_chunk_freed(chunk);
      } else {
        list.front = next;
      }
      --list.dead;
    }
  }

  /// Frees every chunk of `list` and empties it.
  void release(chunk_list& list) noexcept {
    if (list.front >= inline_front) {  // no chunk
      list = {};
      return;
    }
    std::uint32_t chunk = chunk_of(list.front);
    stop_compaction(chunk);
    const std::uint32_t last = chunk_of(list.back - 1);
    while (chunk != last) {
      const std::uint32_t next = (*this)[chunk].next;
      free_chunk(chunk);
      chunk = next;
    }
    free_chunk(last);
    list = {};
  }

  // compact_some() for a crowded list.
  template <class Relocate>
  TIMING_WHEEL_NOINLINE void compact_crowded(chunk_list& list, std::uint32_t id, Relocate& relocate,
                                             std::uint32_t removed) noexcept {
    compaction& job = m_compactions[id];
    step_compaction(list, job, relocate, compaction_step * std::min(removed, UINT32_MAX / compaction_step));
    while (list.dead > most_dead(list.live)) [[unlikely]] step_compaction(list, job, relocate, compaction_step);
  }

  /// Compacts `list` (whose id is `id`) to the end now: what compact_some() does in steps. Requires: the list holds a
  /// live entry in a chunk.
  template <class Relocate>
  void compact(chunk_list& list, std::uint32_t id, Relocate&& relocate) noexcept {
    compaction& job = m_compactions[id];
    do {
      step_compaction(list, job, relocate, compaction_step);
    } while (job.active != 0);
  }
  /// Whether the count of compactions under way over `lists` lists is right.
  [[nodiscard]] bool compactions_counted(std::size_t lists) const noexcept {
    std::size_t active = 0;
    for (std::size_t id = 0; m_compactions != nullptr && id < lists; ++id) active += m_compactions[id].active;
    return active == m_compacting;
  }
  /// Whether a compaction of list `id` is under way.
  [[nodiscard]] bool compacting(std::uint32_t id) const noexcept {
    return m_compacting != 0 && m_compactions[id].active != 0;
  }

  /// Whether `list` (whose id is `id`) holds no more dead entries than most_dead() allows, and a compaction under way
  /// on it has nothing but dead entries between its write and read positions, which are in the list in that order
  /// (or the front has passed them, which its next step puts right).
  [[nodiscard]] bool compaction_holds(const chunk_list& list, std::uint32_t id) const noexcept {
    if (list.front >= inline_front) return !compacting(id);
    if (list.dead > most_dead(list.live)) return false;
    const compaction& job = m_compactions[id];
    if (job.active == 0 || job.gone != 0) return true;
    // (A write position at a chunk's end stands for the start of the next chunk.)
    std::uint32_t write = job.write;
    if (offset_of(write) == entries_per_chunk && write != list.back)
      write = (*this)[chunk_of(write)].next << offset_bits;
    bool in_gap = false;
    for (std::uint32_t at = list.front;; at = step(at, list.back)) {
      if (at == write) in_gap = true;
      if (at == job.read) return true;
      if (at == list.back) return false;
      if (in_gap && entry(at) != dead_entry) return false;
    }
  }

 private:
  // A compaction under way on one list: the entries before `write` are done, those from `read` on not yet read, and
  // those between are dead (the gap), in at most two chunks (the ones between are freed as `read` leaves them).
  // `gone`: the list's front has freed the chunk of `write` (1) or of `read` (2) since the last step.
  struct compaction {
    std::uint32_t write;
    std::uint32_t read;
    std::uint8_t active;
    std::uint8_t gone;
  };
  static constexpr std::uint8_t write_gone = 1;
  static constexpr std::uint8_t read_gone = 2;

  // A chunk leaving the front of its list: a compaction under way there notes it if it held its write or read
  // position (the list's front has passed them). (Queues that never compact skip the lookup: m_compacting.)
  void front_chunk_freed(std::uint32_t chunk) noexcept {
    if (m_compacting != 0) [[unlikely]]
      note_front_passed(chunk);
    free_chunk(chunk);
  }
  TIMING_WHEEL_NOINLINE void note_front_passed(std::uint32_t chunk) noexcept {
    compaction& job = m_compactions[m_owners[chunk]];
    if (job.active != 0) {
      if (chunk == chunk_of(job.write)) job.gone |= write_gone;
      if (chunk == chunk_of(job.read)) job.gone |= read_gone;
    }
  }
  // The list holding `chunk` is being emptied: its compaction stops.
  void stop_compaction(std::uint32_t chunk) noexcept {
    if (m_compacting != 0) [[unlikely]]
      stop_compaction_of(m_owners[chunk]);
  }
  TIMING_WHEEL_NOINLINE void stop_compaction_of(std::uint32_t id) noexcept {
    compaction& job = m_compactions[id];
    m_compacting -= job.active;
    job.active = 0;
  }

  // The list's front may have moved past the compaction's positions since its last step (firing, the spreading, a
  // dead front dropped): what the front passed is gone, and the gap starts at the front at the latest.
  void catch_up(const chunk_list& list, compaction& job) noexcept {
    const std::uint32_t front = list.front;
    if (job.gone != 0) {
      if ((job.gone & read_gone) != 0) {
        job.write = job.read = front;
      } else {  // (the front is in the read position's chunk, which followed the write position's)
        job.write = front;
        if (offset_of(front) > offset_of(job.read)) job.read = front;
      }
      job.gone = 0;
    } else if (chunk_of(front) == chunk_of(job.write) && front > job.write) {
      job.write = front;
      if (chunk_of(job.read) == chunk_of(front) && front > job.read) job.read = front;
    }
  }

  // Reads up to `budget` entries of the compaction of `list`: each live one moves to the write position (its
  // node learns where, relocate()), each read place turns dead, and a chunk the read position leaves that is all gap
  // is freed. When the read position reaches the end, the list ends at the write position. (Chunk by chunk, through a
  // pointer each for reading and writing, as the whole-list compaction went: the lookups run once a chunk. The copy
  // takes no branch on which entries are dead: cancels leave them in no pattern a predictor learns.)
  template <class Relocate>
  TIMING_WHEEL_NOINLINE void step_compaction(chunk_list& list, compaction& job, Relocate& relocate,
                                             std::uint32_t budget) noexcept {
    if (job.active == 0) {
      job = {list.front, list.front, 1, 0};
      ++m_compacting;
    }
    catch_up(list, job);
    const std::uint32_t last = chunk_of(list.back - 1);
    const std::uint32_t last_end = offset_of(list.back - 1) + 1;
    std::uint32_t read_chunk = chunk_of(job.read);
    std::uint32_t read_at = offset_of(job.read);
    std::uint32_t write_chunk = chunk_of(job.write);
    std::uint32_t write_at = offset_of(job.write);  // (entries_per_chunk: the next live entry opens the next chunk)
    entry_chunk* read = &(*this)[read_chunk];
    entry_chunk* write = &(*this)[write_chunk];
    // Until the first dead entry, nothing moves. (The write position stays at the end of a chunk the read position
    // leaves until a live entry follows: a gap that opens at the next chunk's start and runs to the end leaves the
    // list ending there. Only at the list's front does a write position start a chunk.)
    if (read_chunk == write_chunk && read_at == write_at) {
      for (;;) {
        const std::uint32_t end = read_chunk == last ? last_end : entries_per_chunk;
        while (read_at < end && budget > 0 && read->entries[read_at] != dead_entry) {
          ++read_at;
          --budget;
        }
        if (read_at > 0 || read_chunk == write_chunk) {
          write_chunk = read_chunk;
          write = read;
          write_at = read_at;
        }
        if (read_at < end || read_chunk == last) {
          // Stopped at the first dead entry: the gap opens with it.
          if (read_at < end && budget > 0 && read == write && read_at == write_at) {
            ++read_at;
            --budget;
          }
          break;
        }
        read_chunk = read->next;
        read = &(*this)[read_chunk];
        read_at = 0;
      }
    }
    const std::uint32_t moved_chunk = write_chunk;  // the entries this step moves start here
    const std::uint32_t moved_at = write_at;
    while (budget > 0) {
      const std::uint32_t end = read_chunk == last ? last_end : entries_per_chunk;
      const std::uint32_t stop = budget < end - read_at ? read_at + budget : end;
      budget -= stop - read_at;
      for (; read_at < stop; ++read_at) {
        const std::uint32_t value = read->entries[read_at];
        read->entries[read_at] = dead_entry;
        if (write_at == entries_per_chunk) [[unlikely]] {
          if (value == dead_entry) continue;
          write_chunk = write->next;
          write = &(*this)[write_chunk];
          write_at = 0;
        }
        write->entries[write_at] = value;
        write_at += value != dead_entry ? 1U : 0U;
      }
      if (read_at < end || read_chunk == last) break;
      const std::uint32_t next = read->next;
      if (read_chunk != write_chunk) {  // all gap: it goes
        write->next = next;
        free_chunk(read_chunk);
        list.dead -= entries_per_chunk;
      }
      read_chunk = next;
      read = &(*this)[read_chunk];
      read_at = 0;
    }
    // Every entry moved this step learns its place: they are the ones from (moved_chunk, moved_at) to the write
    // position.
    for (std::uint32_t chunk = moved_chunk, at = moved_at;;) {
      const std::uint32_t end = chunk == write_chunk ? write_at : entries_per_chunk;
      const entry_chunk& holder = (*this)[chunk];
      for (; at < end; ++at) relocate(holder.entries[at], (chunk << offset_bits) | at);
      if (chunk == write_chunk) break;
      chunk = holder.next;
      at = 0;
    }
    job.write = (write_chunk << offset_bits) | write_at;
    job.read = (read_chunk << offset_bits) | read_at;
    if (read_chunk == last && read_at == last_end) finish_compaction(list, job);
  }

  // The read position has reached the end of `list`: what lies from the write position on is gap, and goes.
  void finish_compaction(chunk_list& list, compaction& job) noexcept {
    job.active = 0;
    --m_compacting;
    const std::uint32_t write = job.write;
    if (write == list.back) return;
    const std::uint32_t last = chunk_of(list.back - 1);
    const std::uint32_t kept = chunk_of(write);
    if (last == kept) {
      list.dead -= list.back - write;
    } else {  // (the last chunk follows the write position's: those between were freed)
      list.dead -= (entries_per_chunk - offset_of(write)) + offset_of(list.back - 1) + 1;
      free_chunk(last);
      (*this)[kept].next = nil;
    }
    list.back = write;
  }

 public:
  /// Empties `list`, calling f(value) for each live entry in order. Requires: the list is not lone (as for the
  /// batched pop_front). prefetch(value) is called for a chunk's live
  /// entries while the chunk before it is being handed to f, and the chunk after that is loaded meanwhile, so
  /// nodes and chunks arrive in parallel instead of one miss at a time. Each chunk is freed once read, so f may
  /// append to other lists of this pool.
  // (Inlined at the cascade, as it was before stopping a compaction became part of it.)
  template <class Prefetch, class F>
  TIMING_WHEEL_HOT void consume(chunk_list& list, Prefetch&& prefetch, F&& f) noexcept {
    TIMING_WHEEL_ASSERT(!list.lone(), "chunk_pool::consume: a lone entry is taken by pop_front(list)");
    if (list.front == nil) return;
    const chunk_list chain = std::exchange(list, chunk_list{});
    const std::uint32_t first = chunk_of(chain.front);
    stop_compaction(first);
    const std::uint32_t last = chunk_of(chain.back - 1);
    const auto range = [&](std::uint32_t chunk) {
      return std::pair<std::uint32_t, std::uint32_t>{chunk == first ? offset_of(chain.front) : 0,
                                                     chunk == last ? offset_of(chain.back - 1) + 1 : entries_per_chunk};
    };
    // What prefetch() answered for the live entries of the chunk being handed to f and of the next one (read only
    // where filled: the same entries, which nothing changes meanwhile).
    using loaded_chunk = std::array<loaded_by<Prefetch>, entries_per_chunk>;
    std::array<loaded_chunk, 2> loaded;  // NOLINT(cppcoreguidelines-pro-type-member-init)
    const auto prefetch_entries = [&](std::uint32_t chunk, loaded_chunk& into) {
      const entry_chunk& entries = (*this)[chunk];
      const auto [begin, end] = range(chunk);
      for (std::uint32_t at = begin; at < end; ++at) {
        if (entries.entries[at] != dead_entry) into[at] = load(prefetch, entries.entries[at]);
      }
    };
    prefetch_entries(first, loaded[0]);
    for (std::uint32_t chunk = first, side = 0;; side ^= 1U) {
      entry_chunk& current = (*this)[chunk];
      const std::uint32_t next = current.next;
      if (chunk != last) {
        if (const std::uint32_t after = (*this)[next].next; after != nil) detail::prefetch(&(*this)[after]);
        prefetch_entries(next, loaded[side ^ 1U]);
      }
      const auto [begin, end] = range(chunk);
      for (std::uint32_t at = begin; at < end; ++at) {
        if (current.entries[at] != dead_entry) hand(f, current.entries[at], loaded[side][at]);
      }
      free_chunk(chunk);
      if (chunk == last) return;
      chunk = next;
    }
  }

  /// Calls f(value) for every live entry of `list`, front to back.
  template <class F>
  void for_each_live(const chunk_list& list, F&& f) const {
    static_cast<void>(find_live(list, [&f](std::uint32_t value) {
      f(value);
      return false;
    }));
  }

  /// Returns: the first live entry of `list`, front to back, for which pred(value) holds; nil if none.
  template <class P>
  [[nodiscard]] std::uint32_t find_live(const chunk_list& list, P&& pred) const {
    if (list.front >= inline_front) return list.lone() && pred(list.back) ? list.back : nil;
    const std::uint32_t last = chunk_of(list.back - 1);
    std::uint32_t chunk = chunk_of(list.front);
    for (std::uint32_t at = offset_of(list.front);; at = 0) {
      const entry_chunk& entries = (*this)[chunk];
      const std::uint32_t end = chunk == last ? offset_of(list.back - 1) + 1 : entries_per_chunk;
      for (; at < end; ++at) {
        if (entries.entries[at] != dead_entry && pred(entries.entries[at])) return entries.entries[at];
      }
      if (chunk == last) return nil;
      chunk = entries.next;
    }
  }

  /// Counts the chunks of `list` and checks that each names `id` as its owner; nil if one does not.
  [[nodiscard]] std::uint32_t chunks_of(const chunk_list& list, std::uint32_t id) const noexcept {
    if (list.front >= inline_front) return 0;
    std::uint32_t count = 1;
    const std::uint32_t last = chunk_of(list.back - 1);
    for (std::uint32_t chunk = chunk_of(list.front); chunk != last; chunk = (*this)[chunk].next, ++count) {
      if (owner(chunk << offset_bits) != id || count > m_used) return nil;
    }
    return owner(last << offset_bits) == id ? count : nil;
  }

  [[nodiscard]] std::uint32_t free_count() const noexcept {
    std::uint32_t count = 0;
    for (std::uint32_t chunk = m_free; chunk != nil && count <= m_used; chunk = (*this)[chunk].next) ++count;
    return count;
  }

 private:
  // Writes `value` after the last entry of `list` (id `id`), which holds a chunk, chaining a new chunk when the last
  // is full. Returns: its position. (The counts are the caller's.)
  TIMING_WHEEL_HOT std::uint32_t append_entry(chunk_list& list, std::uint32_t id, std::uint32_t value) noexcept {
    if (offset_of(list.back) == entries_per_chunk) {
      const std::uint32_t chunk = acquire(id);
      (*this)[chunk_of(list.back)].next = chunk;
      list.back = chunk << offset_bits;
    }
    const std::uint32_t position = list.back++;
    entry(position) = value;
    return position;
  }

  TIMING_WHEEL_HOT std::uint32_t acquire(std::uint32_t owner) noexcept {
    std::uint32_t chunk = m_free;
    if (chunk != nil) {
      m_free = m_chunks[chunk].next;
    } else {
      // The queue reserves chunks_needed() before it holds more timers, so this cannot run out; if it ever did,
      // stopping beats writing past the pool (on even with NDEBUG, and noexcept like its callers).
      if (m_used >= m_capacity) [[unlikely]]
        assertion_failed("chunk pool exhausted", __FILE__, __LINE__);
      chunk = m_used++;
    }
    m_chunks[chunk].next = nil;
    m_owners[chunk] = static_cast<std::uint16_t>(owner);
    return chunk;
  }

  void free_chunk(std::uint32_t chunk) noexcept {
    m_chunks[chunk].next = m_free;
    m_free = chunk;
  }

  // Moves the chunks to arrays of at least `chunks` (doubling, so growing one timer at a time is amortised O(1)).
  // Strong guarantee: throws bad_alloc and changes nothing.
  [[gnu::cold]] void grow(std::size_t chunks) {
    if (chunks > max_chunks) throw_bad_alloc();
    const std::size_t capacity = std::min<std::size_t>(std::max({chunks, 2 * m_capacity, std::size_t{64}}), max_chunks);
    void* memory =
        ::operator new (capacity * sizeof(entry_chunk), std::align_val_t{alignof(entry_chunk)}, std::nothrow);
    if (memory == nullptr) throw_bad_alloc();
    auto* owners = static_cast<std::uint16_t*>(::operator new(capacity * sizeof(std::uint16_t), std::nothrow));
    if (owners == nullptr) {
      free_chunks(static_cast<entry_chunk*>(memory));
      throw_bad_alloc();
    }
    auto* fresh = static_cast<entry_chunk*>(memory);
    if (m_used > 0) {
      std::memcpy(static_cast<void*>(fresh), m_chunks, std::size_t{m_used} * sizeof(entry_chunk));
      std::memcpy(owners, m_owners, std::size_t{m_used} * sizeof(std::uint16_t));
    }
    release_arrays();
    m_chunks = fresh;
    m_owners = owners;
    m_capacity = capacity;
  }

  static void free_chunks(entry_chunk* chunks) noexcept {
    ::operator delete (chunks, std::align_val_t{alignof(entry_chunk)});
  }

  void release_arrays() noexcept {
    if (m_chunks != nullptr) free_chunks(m_chunks);
    ::operator delete(m_owners);
    m_chunks = nullptr;
    m_owners = nullptr;
  }

  void release_storage() noexcept {
    release_arrays();
    std::free(m_compactions);
    m_compactions = nullptr;
    m_capacity = 0;
    m_timers_covered = 0;
    m_used = 0;
    m_free = nil;
  }

  entry_chunk* m_chunks = nullptr;
  std::uint16_t* m_owners = nullptr;    // the list each chunk belongs to
  compaction* m_compactions = nullptr;  // per list id, from the first reserve_for()
  std::uint32_t m_compacting = 0;       // compactions under way
  std::size_t m_capacity = 0;           // chunks allocated
  std::size_t m_timers_covered = 0;     // live entries reserve_for() last found room for
  std::uint32_t m_used = 0;             // chunks ever handed out (in lists or free)
  std::uint32_t m_free = nil;
};

}  // namespace detail
TIMING_WHEEL_NAMESPACE_END
