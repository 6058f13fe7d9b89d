// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

#include <timing_wheel/detail/bitmap.hpp>
#include <timing_wheel/detail/chunk_list.hpp>
#include <timing_wheel/detail/indexed_heap.hpp>
#include <timing_wheel/detail/queue_base.hpp>
#include <timing_wheel/timer_queue.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

TIMING_WHEEL_NAMESPACE_BEGIN

/// How a hierarchical_wheel trades precision for work.
enum class precision {
  /// Timers cascade down the levels and each fires on its own tick, in due-time order, ties first-in first-out.
  exact,
  /// Linux-style: a timer is placed once, in a level 8x coarser than the one below, and fires at its due time
  /// rounded up to that level's granule: never early, never cascaded, late by less than one granule.
  coarse,
};

namespace detail {
// A timer's slot list holds its index (chunk_list.hpp); the node keeps only where that entry is.
template <class T>
struct wheel_node {
  tick deadline = 0;
  std::uint32_t link = nil;  // while pending: the position of its entry in its list; while free: free-list link
  std::uint32_t generation = 0;
  payload_slot<T> payload;
};

[[nodiscard]] constexpr tick low_mask(std::size_t bits) noexcept {
  return bits >= 64 ? ~tick{0} : (tick{1} << bits) - 1;
}

// a / b rounded up, for any a (no a + b - 1 to overflow). Requires: b > 0.
[[nodiscard]] constexpr tick ceil_div(tick a, tick b) noexcept { return a == 0 ? 0 : (a - 1) / b + 1; }
}  // namespace detail

/// A hierarchical timing wheel (Varghese & Lauck): `Levels` rings of 2^Bits slots, a bitmap of occupied slots per
/// level and a summary bitmap of occupied levels, timers in an intrusive slab. Insert, cancel and reschedule are
/// O(1); next_expiration() and each step of advance() come from the bitmaps, never from walking empty ticks, so a
/// jump of any length costs O(Levels + timers fired + timers cascaded).
///
/// precision::exact: level L holds the timers whose due time first differs from now() in base-2^Bits digit L; when
/// now() enters a slot's span, its timers cascade to lower levels. Order: non-decreasing due time
/// (due = max(deadline, now() at insertion)), equal due times in insertion order across cascades, a reschedule
/// counting as a new insertion: the same sequence as min_heap and flat_wheel. Lateness: none.
///
/// precision::coarse: granule(L) = 2^(level_shift * L) with level_shift = Bits - 3 (1 when Bits < 4), so levels
/// overlap as Linux's do. A timer is placed once, in the lowest level whose ring reaches its due time, and fires at
/// its due time rounded up to that level's granule: never early, and late by less than granule(L), which is under
/// 2^level_shift / (2^Bits - 2) of its delay (12.9% for Bits = 6). max_lateness(delay) gives the bound. Order:
/// non-decreasing fire time.
///
/// Beyond the horizon (exact: a due time outside now()'s aligned span of 2^(Levels*Bits) ticks; coarse: a delay the
/// top ring cannot reach, or a fire time that would round past the last tick) timers wait in an overflow heap:
/// exact mode moves them into the wheel when now() enters their span, coarse mode fires them from there on their
/// due time. Nothing is ever rejected. Single-threaded: one queue belongs to one thread. `Instr`: an
/// instrumentation policy (instrumentation.hpp); the default counts nothing and costs nothing.
///
///     timing_wheel::hierarchical_wheel<std::string> timers;   // 8 levels of 256 slots, exact
///     auto h = timers.insert(1'000'000, "session timeout");
///     timers.reschedule(h, 2'000'000);                          // O(1)
///     while (auto due = timers.next_expiration())               // found from the bitmaps
///       timers.advance(*due, [](timing_wheel::tick, std::string&& what) { /* ... */ });
template <class T, std::size_t Levels = 8, std::size_t Bits = 8, precision P = precision::exact,
          class Instr = no_instrumentation>
class hierarchical_wheel : public detail::queue_base<T, detail::wheel_node<T>, Instr> {
  static_assert(Levels >= 1, "hierarchical_wheel needs at least one level");
  static_assert(Bits >= 1 && Bits <= 8, "Bits must be 1 to 8: each level has 2^Bits slots");
  static_assert(P == precision::exact || Bits >= 2,
                "coarse mode needs Bits >= 2: rings of 2 slots reach no granule ahead, so a timer could fire up to "
                "2^62 ticks late");
  using base = detail::queue_base<T, detail::wheel_node<T>, Instr>;
  using node_type = detail::wheel_node<T>;

 public:
  using value_type = T;                          ///< the payload
  static constexpr precision mode = P;           ///< exact or coarse
  static constexpr std::size_t levels = Levels;  ///< rings of slots
  static constexpr std::size_t bits = Bits;      ///< log2 of the slots per ring
  /// Slots per level.
  static constexpr std::size_t slots = std::size_t{1} << Bits;
  /// log2 of the ratio between the granules of two adjacent levels.
  static constexpr std::size_t level_shift = P == precision::exact ? Bits : (Bits >= 4 ? Bits - 3 : 1);
  /// Levels whose granule fits in a tick; any further levels would stay empty and are not built.
  static constexpr std::size_t active_levels = std::min(Levels, 63 / level_shift + 1);

  /// The span of ticks one slot of `level` stands for (exact), or the rounding unit of a timer placed in `level`
  /// (coarse): 2^(level_shift * level), at most 2^(Bits * level).
  [[nodiscard]] static constexpr tick granule(std::size_t level) noexcept {
    return level < active_levels ? tick{1} << (level_shift * level) : 0;
  }

  /// Coarse: the longest delay that always lands in the wheel.
  [[nodiscard]] static constexpr tick top_reach() noexcept {
    const std::size_t top_shift = level_shift * (active_levels - 1);
    if (top_shift + Bits >= 64) return UINT64_MAX;
    const tick reach_in_granules = tick{slots} - 2;  // the ring less now()'s slot and the ambiguous last one
    return reach_in_granules << top_shift;
  }

  /// Exact: the aligned span of ticks the wheel covers, 2^(Levels * Bits), or UINT64_MAX when that is the whole tick
  /// range (no overflow store). Coarse: the longest delay that always lands in the wheel, (2^Bits - 2) * granule of
  /// the top level.
  static constexpr tick horizon =
      P == precision::exact ? (Levels * Bits >= 64 ? UINT64_MAX : tick{1} << (Levels * Bits)) : top_reach();

  /// Returns: the most a timer inserted `delay` ticks ahead of now() can fire after its due time: 0 in exact mode.
  [[nodiscard]] static constexpr tick max_lateness(tick delay) noexcept {
    if constexpr (P == precision::exact) {
      return 0;
    } else {
      if (delay == 0) return 0;
      for (std::size_t level = 0; level < active_levels; ++level) {
        if (((delay - 1) >> (level_shift * level)) + 1 <= slots - 2) return granule(level) - 1;
      }
      return granule(active_levels - 1) - 1;
    }
  }

  /// Effects: an empty queue whose now() is `start`.
  explicit hierarchical_wheel(tick start = 0) noexcept : base(start) {}
  /// Effects: an empty queue whose now() is `start`, holding at most `capacity.timers` timers; all its storage is
  /// allocated here, and nothing after. Throws: bad_alloc.
  explicit hierarchical_wheel(fixed_capacity capacity, tick start = 0) : base(start) {
    this->m_nodes.fix_capacity(capacity.timers);
    reserve_chunks(capacity.timers);
    if constexpr (may_overflow) m_overflow.reserve(capacity.timers);
  }

  /// Effects: takes over `other`'s timers (their handles stay valid here); `other` is empty and usable.
  hierarchical_wheel(hierarchical_wheel&& other) noexcept
      : base(std::move(other)),
        m_lists(std::exchange(other.m_lists, {})),
        m_chunks(std::move(other.m_chunks)),
        m_occupied(std::exchange(other.m_occupied, {})),
        m_ahead(std::exchange(other.m_ahead, {})),
        m_rings(std::exchange(other.m_rings, ring_map::initial())),
        m_ahead_used(std::exchange(other.m_ahead_used, 0)),
        m_ahead_span(std::exchange(other.m_ahead_span, {})),
        m_spread_left(std::exchange(other.m_spread_left, {})),
        m_levels_used(std::exchange(other.m_levels_used, 0)),
        m_overflow(std::exchange(other.m_overflow, {})),
        m_quiet_until(std::exchange(other.m_quiet_until, 0)),
        m_quiet_stride(std::exchange(other.m_quiet_stride, UINT64_MAX)),
        m_spread_until(std::exchange(other.m_spread_until, 0)),
        m_level_quiet(other.m_level_quiet),
        m_level_stride(other.m_level_stride),
        m_level_source(other.m_level_source),
        m_level_source_room(other.m_level_source_room),
        m_levels_planned(std::exchange(other.m_levels_planned, 0)),
        m_next(std::exchange(other.m_next, std::nullopt)),
        m_next_known(std::exchange(other.m_next_known, true)) {
    other.forget_event();
  }
  /// Effects: destroys this queue's payloads, then takes over `other`'s timers; `other` is empty and usable.
  hierarchical_wheel& operator=(hierarchical_wheel&& other) noexcept {
    if (this != &other) {
      base::operator=(std::move(other));
      m_lists = std::exchange(other.m_lists, {});
      m_chunks = std::move(other.m_chunks);
      m_occupied = std::exchange(other.m_occupied, {});
      m_ahead = std::exchange(other.m_ahead, {});
      m_rings = std::exchange(other.m_rings, ring_map::initial());
      m_ahead_used = std::exchange(other.m_ahead_used, 0);
      m_ahead_span = std::exchange(other.m_ahead_span, {});
      m_spread_left = std::exchange(other.m_spread_left, {});
      m_levels_used = std::exchange(other.m_levels_used, 0);
      m_overflow = std::exchange(other.m_overflow, {});
      m_quiet_until = std::exchange(other.m_quiet_until, 0);
      m_level_quiet = other.m_level_quiet;
      m_level_stride = other.m_level_stride;
      m_level_source = other.m_level_source;
      m_level_source_room = other.m_level_source_room;
      m_levels_planned = std::exchange(other.m_levels_planned, 0);
      m_quiet_stride = std::exchange(other.m_quiet_stride, UINT64_MAX);
      m_spread_until = std::exchange(other.m_spread_until, 0);
      m_next = std::exchange(other.m_next, std::nullopt);
      m_next_known = std::exchange(other.m_next_known, true);
      forget_event();
      other.forget_event();
    }
    return *this;
  }
  ~hierarchical_wheel() = default;

  /// Effects: schedules `value` for `deadline` (a past deadline is due at now()). Returns: its handle.
  /// Complexity: O(1) in the wheel, O(log n) beyond the horizon. Throws: bad_alloc, or what T's constructor
  /// throws; then the queue is unchanged.
  TIMING_WHEEL_HOT timer_handle insert(tick deadline, T value) { return emplace(deadline, std::move(value)); }

  /// Effects: as insert, unless the queue is at its fixed capacity: then the payload is handed back in `rejected`
  /// and nothing changes (backpressure). Throws: what insert throws, for a growable queue.
  try_insert_result<T> try_insert(tick deadline, T value) {
    return base::try_insert_into(*this, deadline, std::move(value));
  }

  /// As insert, constructing the payload in place from `args`.
  // Inlined at the caller: a call's register saves and restores were a fifth of an insertion's instructions.
  template <class... Args>
  TIMING_WHEEL_HOT timer_handle emplace(tick deadline, Args&&... args) {
    [[maybe_unused]] const auto owned = this->owned();
    const placement where = locate(due_of(deadline));
    if (!m_chunks.covers(this->size() + 1)) [[unlikely]]  // (the bound is for a fixed capacity: never past it)
      reserve_chunks(std::min(this->size() + 1, this->max_size()));
    if (where.list == overflow_id) make_overflow_room();
    const std::uint32_t index = this->create_node(deadline, std::forward<Args>(args)...);
    node_type& node = this->m_nodes[index];
    put(index, node, where);
    return base::handle_of(index, node);
  }

  /// Effects: removes a pending timer. Returns: its payload, or nullopt if `handle` is not pending (fired,
  /// cancelled, cleared, default-constructed or stale). Complexity: O(1) in the wheel, O(log n) beyond the horizon.
  std::optional<T> cancel(timer_handle handle) {
    [[maybe_unused]] const auto owned = this->owned();
    if (!this->pending(handle)) return std::nullopt;
    return this->cancel_node(handle.index, [this](std::uint32_t index) { unlink(this->m_nodes[index]); });
  }

  /// Effects: moves a pending timer to `deadline`, as a new insertion (it fires after timers already due at the
  /// same time); the payload stays in place. Returns: false, changing nothing, if `handle` is not pending.
  /// Complexity: O(1) in the wheel. Throws: bad_alloc only when the timer moves beyond the horizon; then nothing
  /// changed.
  bool reschedule(timer_handle handle, tick deadline) {
    [[maybe_unused]] const auto owned = this->owned();
    if (!this->pending(handle)) return false;
    const placement where = locate(due_of(deadline));
    if (where.list == overflow_id) make_overflow_room();
    node_type& node = this->m_nodes[handle.index];
    unlink(node);
    node.deadline = deadline;
    put(handle.index, node, where);
    return true;
  }

  /// Returns: exact: the smallest due time pending; coarse: the tick of the next firing (advance(x - 1) fires
  /// nothing, advance(x) fires at least one timer); nullopt when empty. Cached until the queue changes.
  /// Complexity: exact O(1) plus the timers of the earliest occupied slot above level 0; coarse O(Levels).
  [[nodiscard]] std::optional<tick> next_expiration() const noexcept {
    [[maybe_unused]] const auto owned = this->owned();
    if (!m_next_known) {
      m_next = find_next_expiration();
      m_next_known = true;
    }
    return m_next;
  }

  /// Returns: the timer that fires next (its handle, deadline and payload in place), or nullopt when empty: the one
  /// advance(*next_expiration(), f) would call f on first.
  /// Complexity: next_expiration()'s, plus the timers of the slots it looks at.
  [[nodiscard]] std::optional<timer_view<T>> peek() noexcept { return this->view_of(first_index()); }
  /// As peek(), on a const queue: the payload is const.
  [[nodiscard]] std::optional<timer_view<const T>> peek() const noexcept { return this->view_of(first_index()); }

  /// Effects: fires, in order, every timer whose fire time is at or before `to`, calling on_expire(deadline, T&&)
  /// (or on_expire(T&&)) with now() set to the fire time; then now() == to. The callback may insert, cancel and
  /// reschedule; timers so scheduled to fire at or before `to` fire in this call, in order. A `to` before now() fires
  /// nothing and changes nothing. If on_expire throws, its timer counts as fired, now() stays at its fire time, the
  /// exception propagates and every timer not yet fired stays pending. With a `budget`, at most that many timers fire
  /// (cascades do not count): if it stops early, now() is the fire time of the last timer fired,
  /// next_expiration() <= to says more is due, and the next call continues in the same order.
  /// Returns: how many timers fired. Requires: not called from a callback.
  /// Complexity: O(Levels + fired + cascaded), however far it jumps.
  template <class F>
  requires expiry_callback<F, T> std::size_t advance(tick to, F&& on_expire, std::size_t budget = SIZE_MAX) {
    [[maybe_unused]] const auto owned = this->owned();
    this->assert_not_in_callback(detail::in_callback_advance);
    if (to < this->m_now) return 0;
    // No event and no share to move down before m_quiet_until, as long as now() moves no faster than the spreading
    // assumed: an idle advance is O(1).
    if (to < m_quiet_until && to - this->m_now <= m_quiet_stride) {
      this->m_now = to;
      return 0;
    }
    return advance_through(to, on_expire, budget);
  }

  /// Effects: hands every pending payload to f(deadline, T&&) (or f(T&&)) in fire order and empties the queue;
  /// now() is unchanged. f may not use the queue. If f throws, the timers not yet handed over stay pending and
  /// now() is the fire time of the one whose handover threw.
  template <class F>
  requires expiry_callback<F, T>
  void drain(F&& f) { base::drain_through(*this, f); }

  /// Effects: destroys every pending payload; handles issued before are never pending again. Throws nothing
  /// (unless TIMING_WHEEL_ASSERT is made to throw). Requires: not called from a callback.
  void clear() {
    [[maybe_unused]] const auto owned = this->owned();
    this->assert_not_in_callback(detail::in_callback_clear);
    this->destroy_payloads();
    m_lists = {};
    m_chunks.reset();
    m_occupied = {};
    m_ahead = {};
    m_rings = ring_map::initial();
    m_ahead_used = 0;
    m_ahead_span = {};
    m_spread_left = {};
    m_levels_used = 0;
    m_levels_planned = 0;
    m_level_source = no_sources();
    m_overflow.clear();
    m_quiet_until = 0;
    m_quiet_stride = UINT64_MAX;
    m_spread_until = 0;
    forget_event();
    m_next.reset();
    m_next_known = true;
  }

  /// Effects: makes room for `n` timers, so that inserting up to n allocates nothing, beyond the horizon included.
  void reserve(std::size_t n) {
    [[maybe_unused]] const auto owned = this->owned();
    this->m_nodes.reserve(n);
    reserve_chunks(std::min(n, this->max_size()));
    if constexpr (may_overflow) m_overflow.reserve(n);
  }

  /// Test-only: the sequence number the overflow store's next insertion takes (see min_heap).
  void set_sequence_for_testing(std::uint32_t seq) noexcept { m_overflow.set_sequence_for_testing(seq); }

  /// Returns: how many pending timers wait in the overflow store, beyond the horizon.
  [[nodiscard]] std::size_t overflow_size() const noexcept { return m_overflow.size(); }

  /// A testing aid: true when every internal invariant holds (each list's entries name timers that know their
  /// position, matching the bitmaps, every timer in the slot its due time and now() select, dead entries within
  /// bounds, chunks accounted for, the cached next expiration right, counts adding up).
  /// Complexity: O(size() + Levels * slots + capacity()).
  [[nodiscard]] bool check_invariants() const noexcept {
    if (!this->nodes_hold()) return false;
    if (m_next_known && m_next != find_next_expiration()) return false;
    const event next = next_event();
    if (next.list != none && next.at < m_quiet_until) return false;
    if (m_event_known && m_event_now == this->m_now && (m_event.list != next.list || m_event.at != next.at))
      return false;
    if ((precascades && m_quiet_until > m_spread_until) || !quiet_until_holds()) return false;
    std::size_t counted = 0;
    std::size_t chunks = 0;
    // Every entry of `list` in order; check(node) for each live one.
    const auto list_holds = [&](std::uint32_t list, auto&& check) {
      const detail::chunk_list& entries = m_lists[list];
      const std::uint32_t spanned = m_chunks.chunks_of(entries, list);
      if (spanned == detail::nil || entries.empty() != (entries.live == 0) || entries.crowded()) return false;
      if (entries.empty()) return entries.dead == 0;
      chunks += spanned;
      std::uint32_t live = 0;
      std::uint32_t dead = 0;
      for (std::uint32_t at = entries.front; at != entries.back; at = m_chunks.step(at, entries.back)) {
        const std::uint32_t index = m_chunks.entry(at);
        if (index == detail::dead_entry) {
          ++dead;
          continue;
        }
        if (index >= this->m_nodes.used() || ++counted > this->size() || ++live > entries.live) return false;
        const auto& node = this->m_nodes[index];
        if (node.link != at || !this->m_nodes.is_live(node.generation) || !check(node)) return false;
      }
      return live == entries.live && dead == entries.dead;
    };
    for (std::size_t level = 0; level < active_levels; ++level) {
      bool level_used = false;
      for (std::size_t slot = 0; slot < slots; ++slot) {
        const std::uint32_t list = list_id(level, slot);
        if (m_lists[list].empty() == m_occupied[level].test(slot)) return false;
        level_used = level_used || !m_lists[list].empty();
        if (!list_holds(list, [&](const detail::wheel_node<T>& node) { return locate_check(node, list); })) {
          return false;
        }
      }
      if (level_used != (((m_levels_used >> level) & 1U) != 0)) return false;
    }
    // The ahead rings: ring L holds the next level-(L+1) span's timers, already moved down, in the slot of their
    // level-L digit.
    for (std::size_t level = 0; level < ahead_levels; ++level) {
      const std::size_t span_shift = Bits * (level + 1);
      bool used = false;
      for (std::size_t slot = 0; slot < slots; ++slot) {
        const std::uint32_t list = ahead_base(level) + static_cast<std::uint32_t>(slot);
        if (m_lists[list].empty() == m_ahead[level].test(slot)) return false;
        used = used || !m_lists[list].empty();
        const bool holds = list_holds(list, [&](const detail::wheel_node<T>& node) {
          return (node.deadline >> span_shift) == (this->m_now >> span_shift) + 1 &&
                 (node.deadline >> span_shift) == (m_ahead_span[level] >> span_shift) &&
                 ((node.deadline >> (Bits * level)) & slot_mask) == slot;
        });
        if (!holds) return false;
      }
      if (used != (((m_ahead_used >> level) & 1U) != 0)) return false;
    }
    for (std::size_t position = 0; position < m_overflow.size(); ++position) {
      const detail::heap_entry& entry = m_overflow.at(position);
      const auto& node = this->m_nodes[entry.node];
      if (entry.key != node.deadline || node.link != overflow_link(position)) return false;
      if (position > 0 &&
          detail::indexed_heap::before(entry, m_overflow.at((position - 1) / detail::indexed_heap::arity)))
        return false;
      if (locate(entry.key).list != overflow_id && P == precision::exact) return false;
    }
    // Chunks in lists and free ones make up all handed out, within what was reserved for the live timers.
    if (chunks + m_chunks.free_count() != m_chunks.used() || chunks > chunks_needed(this->size())) return false;
    return counted + m_overflow.size() == this->size();
  }

 private:
  // Exact wheels covering all 64 bits never use the overflow store; coarse ones may, for the last granules of time.
  static constexpr bool may_overflow = P == precision::coarse || Levels * Bits < 64;
  static constexpr std::uint32_t none = detail::nil;
  // Events that swap in level L's ahead ring are numbered boundary_first - L.
  static constexpr std::uint32_t boundary_first = detail::nil - 2;
  static constexpr std::uint32_t boundary_last = boundary_first - 63;
  static constexpr std::size_t list_count = active_levels * slots;
  // Exact wheels move the timers of each level's next span down a bounded number per advance(), into a second ring
  // of that level below (its ahead ring), instead of all at once when the span begins: no cascade bursts.
  static constexpr bool precascades = P == precision::exact && active_levels >= 2;
  static constexpr std::size_t ahead_levels = precascades ? active_levels - 1 : 0;  // levels with an ahead ring
  static constexpr std::size_t list_total = list_count + ahead_levels * slots;
  static constexpr auto overflow_id = static_cast<std::uint32_t>(list_total);
  static_assert(list_total < UINT16_MAX, "list ids are kept in 16 bits");
  // How many of a span's timers may still wait to cascade when the span begins: a few cascade at once (cheaper than
  // moving them one per advance when timers are sparse), more are spread.
  static constexpr std::uint32_t boundary_burst = 2;
  // A share smaller than this waits, and moves this many an advance in the last advances before its span instead
  // of one in each: advances in between stay O(1) (sparse timers: W5).
  static constexpr std::uint32_t min_share = 8;
  // How many occupied but uncrowded slots next_crowded_source() looks past for a crowded one.
  static constexpr std::size_t sparse_slots_passed = 8;
  static constexpr tick slot_mask = slots - 1;

  struct placement {
    std::uint32_t list;   // slot list id, or overflow_id
    std::uint32_t level;  // level_of(list), known where the list is chosen
    tick fire;            // when it will fire
  };
  struct event {
    std::uint32_t list;  // list to fire or cascade, overflow_id, or none
    tick at;
  };

  [[nodiscard]] tick due_of(tick deadline) const noexcept { return std::max(deadline, this->m_now); }

  // Each level below the top lives in one of two physical rings (list ids level * slots + slot, or list_count +
  // level * slots + slot), the other being its ahead ring; entering a span swaps them without touching a node.
  // The two lookups below are on every insert, cancel and cascade: they read a small table (m_rings) kept by
  // swap_in() instead of working the swap out each time.
  struct ring_map {
    std::array<std::uint32_t, active_levels> first;     // first list id of each level's ring
    std::array<std::uint32_t, ahead_levels> ahead;      // first list id of each level's ahead ring
    std::array<std::uint8_t, list_total / slots> role;  // per physical ring: its level, or active_levels + L

    [[nodiscard]] static constexpr ring_map initial() noexcept {
      ring_map map{};
      for (std::size_t level = 0; level < active_levels; ++level) {
        map.first[level] = static_cast<std::uint32_t>(level * slots);
        map.role[level] = static_cast<std::uint8_t>(level);
      }
      for (std::size_t level = 0; level < ahead_levels; ++level) {
        map.ahead[level] = static_cast<std::uint32_t>(list_count + level * slots);
        map.role[active_levels + level] = static_cast<std::uint8_t>(active_levels + level);
      }
      return map;
    }
  };
  [[nodiscard]] std::uint32_t list_id(std::size_t level, tick slot) const noexcept {
    return m_rings.first[level] + static_cast<std::uint32_t>(slot);
  }
  [[nodiscard]] std::uint32_t ahead_base(std::size_t level) const noexcept { return m_rings.ahead[level]; }
  // The level of a list, or active_levels + L for level L's ahead ring.
  [[nodiscard]] std::size_t level_of(std::uint32_t list) const noexcept {
    if constexpr (precascades) {
      return m_rings.role[list / slots];
    } else {
      return list / slots;
    }
  }
  [[nodiscard]] static constexpr std::array<std::uint32_t, ahead_levels> no_sources() noexcept {
    std::array<std::uint32_t, ahead_levels> sources{};
    sources.fill(none);
    return sources;
  }
  [[nodiscard]] static constexpr std::size_t chunks_needed(std::size_t timers) noexcept {
    return detail::chunk_pool::chunks_needed(timers, list_total);
  }
  // Chunks enough for `timers` live timers, whatever is cancelled or cascaded: put() never allocates.
  void reserve_chunks(std::size_t timers) { m_chunks.reserve_for(timers, list_total); }
  // A timer in the overflow store keeps its heap position in `link`, with the offset no list entry has.
  static constexpr std::uint32_t overflow_mark = detail::entries_per_chunk;
  static constexpr std::size_t overflow_limit = detail::chunk_pool::max_chunks;
  [[nodiscard]] static constexpr std::uint32_t overflow_link(std::size_t position) noexcept {
    return static_cast<std::uint32_t>(position << detail::offset_bits) | overflow_mark;
  }
  [[nodiscard]] static constexpr bool in_overflow(std::uint32_t link) noexcept {
    return detail::offset_of(link) == overflow_mark;
  }
  void make_overflow_room() {
    if (m_overflow.size() >= overflow_limit) detail::throw_bad_alloc();  // heap positions must fit in `link`
    m_overflow.make_room();
  }

  // Where a timer due at `due` (>= now()) goes.
  TIMING_WHEEL_HOT [[nodiscard]] placement locate(tick due) const noexcept {
    const tick now = this->m_now;
    if constexpr (P == precision::exact) {
      // The highest base-2^Bits digit in which due and now differ: the timer must wait in that level until now()
      // reaches the span of its slot there, and no lower level can tell its slot apart from now()'s.
      const std::size_t level = (static_cast<std::size_t>(std::bit_width((due ^ now) | 1)) - 1) / Bits;
      if (level >= Levels) return {overflow_id, 0, due};
      return {list_id(level, (due >> (level * Bits)) & slot_mask), static_cast<std::uint32_t>(level), due};
    } else {
      if (due == now) return {list_id(0, now & slot_mask), 0, due};
      for (std::size_t level = 0; level < active_levels; ++level) {
        const std::size_t shift = level_shift * level;
        const tick rounded_down = (due - 1) >> shift;             // fire time = (rounded_down + 1) << shift
        if (rounded_down - (now >> shift) > slots - 2) continue;  // a full revolution away: ambiguous slot
        if (rounded_down == (UINT64_MAX >> shift)) break;         // would round up past the last tick
        return {list_id(level, (rounded_down + 1) & slot_mask), static_cast<std::uint32_t>(level),
                (rounded_down + 1) << shift};
      }
      return {overflow_id, 0, due};
    }
  }

  [[nodiscard]] bool locate_check(const detail::wheel_node<T>& node, std::uint32_t list) const noexcept {
    if constexpr (P == precision::exact) {
      const std::size_t level = level_of(list);
      if (level == 0) return fire_time_of(list) >= this->m_now && node.deadline <= fire_time_of(list);
      return locate(node.deadline).list == list && node.deadline > this->m_now;
    } else {
      return fire_time_of(list) >= this->m_now && fire_time_of(list) >= node.deadline;
    }
  }

  // The fire time of the timers in a slot list.
  [[nodiscard]] tick fire_time_of(std::uint32_t list) const noexcept {
    const tick slot = list & slot_mask;
    if constexpr (P == precision::exact) {
      return (this->m_now & ~slot_mask) | slot;  // only asked of level 0
    } else {
      return coarse_fire_time(list / slots, slot);
    }
  }

  // Coarse: when slot `slot` of `level` fires: the first time at or after now() whose granule there is the slot's,
  // this revolution of the ring or the next.
  [[nodiscard]] tick coarse_fire_time(std::size_t level, tick slot) const noexcept {
    const std::size_t shift = level_shift * level;
    const tick revolution = this->m_now >> shift;
    return (revolution + ((slot - revolution) & slot_mask)) << shift;
  }

  TIMING_WHEEL_HOT void put(std::uint32_t index, node_type& node, placement where) noexcept {
    m_quiet_until = 0;  // an earlier event
    forget_event();
    if (where.list == overflow_id) {
      m_overflow.push(where.fire, index, on_move(), this->m_instr);  // on_move() sets the node's link
    } else {
      append(index, node, where);
      if (where.level > 0) source_grew(where.list, where.level);  // level 0 is no level's source
    }
    if (m_next_known && (!m_next || where.fire < *m_next)) m_next = where.fire;
  }

  // Adds a timer to a slot list and marks the slot occupied. Alone, without put()'s bookkeeping, for a timer that a
  // cascade or the spreading moves down a level: it stays pending, so it never goes beyond the horizon and is due no
  // earlier than the next event already known.
  // `node` is the node `index` names: the callers hold it already, and each lookup costs a few instructions.
  TIMING_WHEEL_HOT void append(std::uint32_t index, node_type& node, placement where) noexcept {
    node.link = m_chunks.push_back(m_lists[where.list], where.list, index);
    const std::size_t level = where.level;
    if (precascades && level >= active_levels) {
      m_ahead[level - active_levels].set(where.list & slot_mask);
      m_ahead_used |= tick{1} << (level - active_levels);
    } else {
      m_occupied[level].set(where.list & slot_mask);
      m_levels_used |= tick{1} << level;
    }
  }

  TIMING_WHEEL_HOT void unlink(const node_type& node) noexcept {
    forget_event();
    if (in_overflow(node.link)) {
      if (m_next == node.deadline) m_next_known = false;
      m_overflow.erase(node.link >> detail::offset_bits, on_move(), this->m_instr);
      return;
    }
    const std::uint32_t list = m_chunks.owner(node.link);
    if (m_next_known && m_next == (P == precision::exact && level_of(list) > 0 ? node.deadline : fire_time_of(list))) {
      m_next_known = false;
    }
    remove_entry(list, node.link);
  }

  // Marks a timer's entry dead; an emptied list gives its chunks back, a crowded one is compacted.
  TIMING_WHEEL_HOT void remove_entry(std::uint32_t list, std::uint32_t position) noexcept {
    detail::chunk_list& entries = m_lists[list];
    m_chunks.kill(entries, position);
    after_removal(list);
  }

  TIMING_WHEEL_HOT void after_removal(std::uint32_t list) noexcept {
    detail::chunk_list& entries = m_lists[list];
    if (entries.live == 0) {
      m_chunks.release(entries);
      slot_emptied(list, level_of(list));
    } else if (entries.crowded()) {
      m_chunks.compact(entries,
                       [this](std::uint32_t index, std::uint32_t position) { this->m_nodes[index].link = position; });
    }
  }

  // unlink() for the loops that fire or move a list front to back. Requires: the list holds a timer.
  TIMING_WHEEL_HOT std::uint32_t take_front(std::uint32_t list) noexcept {
    const std::uint32_t index = m_chunks.pop_front(m_lists[list]);
    after_removal(list);
    m_next_known = false;  // a callback may have asked next_expiration(), which may be this timer's
    return index;
  }

  void prefetch_node(std::uint32_t index) const noexcept { detail::prefetch(&this->m_nodes[index]); }

  // Loads ahead the node a few entries after the front of `list`, while the front one fires (into the next chunk
  // when the front is near the end of its own).
  void prefetch_ahead(const detail::chunk_list& entries) const noexcept {
    constexpr std::uint32_t distance = 4;
    const std::uint32_t last = detail::chunk_of(entries.back - 1);
    std::uint32_t chunk = detail::chunk_of(entries.front);
    std::uint32_t at = detail::offset_of(entries.front) + distance;
    const detail::entry_chunk* holder = &m_chunks[chunk];
    if (at >= detail::entries_per_chunk) {
      if (chunk == last) return;
      chunk = holder->next;
      holder = &m_chunks[chunk];
      at -= detail::entries_per_chunk;
    }
    if (chunk == last && at > detail::offset_of(entries.back - 1)) return;
    if (const std::uint32_t index = holder->entries[at]; index != detail::dead_entry) prefetch_node(index);
  }

  TIMING_WHEEL_HOT void slot_emptied(std::uint32_t list, std::size_t level) noexcept {
    if (precascades && level >= active_levels) {
      m_ahead[level - active_levels].reset(list & slot_mask);
      if (!m_ahead[level - active_levels].any()) m_ahead_used &= ~(tick{1} << (level - active_levels));
    } else {
      m_occupied[level].reset(list & slot_mask);
      if (!m_occupied[level].any()) m_levels_used &= ~(tick{1} << level);
    }
  }

  // The levels' sources may have changed: precascade() looks at every level again at the next advance.
  void spread_changed() noexcept {
    m_spread_until = 0;
    m_levels_planned = 0;
  }
  // Level L's source may have grown: precascade() looks at that level again at the next advance.
  void spread_changed(std::size_t level) noexcept {
    m_spread_until = 0;
    m_levels_planned &= ~(tick{1} << level);
  }

  // A timer was added to slot list `list` of `level` (above 0). What precascade() last worked out still holds
  // unless the list is the crowded source it planned to spread later and has outgrown the room that plan left
  // (its share would need one more advance), or the list just turned crowded (precascade() may have passed it as
  // sparse, or it is a source that was sparse): a list with a few timers, or one already crowded later in the
  // ring, changes nothing it decided. So an event loop inserting between advances does not pay the spreading's
  // look-ahead each time. (A plan outlives the span it was made in only if the next source was sparse then; it can
  // turn crowded only through here or a cascade from above.)
  TIMING_WHEEL_HOT void source_grew(std::uint32_t list, std::size_t level) noexcept {
    if constexpr (precascades) {
      const std::uint32_t live = m_lists[list].live;
      if (live == boundary_burst + 1 || (list == m_level_source[level - 1] && live > m_level_source_room[level - 1])) {
        spread_changed(level - 1);
      }
    }
  }

  [[nodiscard]] auto on_move() noexcept {
    return [this](std::uint32_t index, std::size_t position) { this->m_nodes[index].link = overflow_link(position); };
  }

  // The next tick at which something happens: a slot fires, a slot cascades, or the overflow store hands over.
  [[nodiscard]] event next_event() const noexcept {
    const tick now = this->m_now;
    if constexpr (P == precision::exact) {
      // Every timer of a lower level is due before any timer of a higher one, so the lowest occupied level holds
      // the next event; within it, slots above now()'s digit hold later spans in order (no wrap-around).
      event regular{none, 0};
      if (m_levels_used != 0) {
        const auto level = static_cast<std::size_t>(std::countr_zero(m_levels_used));
        const tick slot = m_occupied[level].find_first();
        const std::size_t shift = level * Bits;
        regular = {list_id(level, slot), (now & ~detail::low_mask(shift + Bits)) | (slot << shift)};
      }
      if constexpr (precascades) {
        // The lowest non-empty ahead ring swaps in when now() reaches the start of its span; every regular timer of
        // a lower level is due before that, and a regular event at the same tick waits (its timers come later).
        if (m_ahead_used != 0) {
          const auto level = static_cast<std::size_t>(std::countr_zero(m_ahead_used));
          const tick at = m_ahead_span[level];
          if (regular.list == none || at <= regular.at) return {boundary_first - static_cast<std::uint32_t>(level), at};
        }
      }
      if (regular.list != none) return regular;
      if (!m_overflow.empty()) return {overflow_id, m_overflow.top().key & ~detail::low_mask(Levels * Bits)};
      return {none, 0};
    } else {
      // Levels overlap in time, so every level is asked; each ring is searched from now()'s slot round.
      event best{none, UINT64_MAX};
      for (tick used = m_levels_used; used != 0; used &= used - 1) {
        const auto level = static_cast<std::size_t>(std::countr_zero(used));
        const tick slot = m_occupied[level].find_next_wrapping((now >> (level_shift * level)) & slot_mask);
        const tick at = coarse_fire_time(level, slot);
        if (best.list == none || at < best.at) best = {list_id(level, slot), at};
      }
      if (!m_overflow.empty() && (best.list == none || m_overflow.top().key < best.at)) {
        best = {overflow_id, m_overflow.top().key};
      }
      return best;
    }
  }

  // next_event() as the last advance() left it, while nothing has changed since (an event loop asks
  // next_expiration() and then advances to it: both start from this instead of searching the bitmaps again).
  [[nodiscard]] event current_event() const noexcept {
    return m_event_known && m_event_now == this->m_now ? m_event : next_event();
  }
  void forget_event() noexcept { m_event_known = false; }

  [[nodiscard]] std::optional<tick> find_next_expiration() const noexcept {
    const event next = current_event();
    if (next.list == none) return std::nullopt;
    if constexpr (P == precision::exact) {
      if (next.list == overflow_id) return m_overflow.top().key;
      if (next.list >= boundary_last && next.list <= boundary_first) {
        // Everything pending is due at or after the span start: the earliest is in the ahead ring's first slot or
        // among the timers still waiting to move down.
        const std::size_t level = boundary_first - next.list;
        tick earliest = UINT64_MAX;
        const auto scan = [&](std::uint32_t list) { earliest = std::min(earliest, earliest_in(list)); };
        scan(ahead_base(level) + static_cast<std::uint32_t>(m_ahead[level].find_first()));
        for_each_waiting(level, next.at, [&](std::uint32_t list, std::size_t, bool) { scan(list); });
        return earliest;
      }
      if (level_of(next.list) > 0) {  // a higher level's slot spans many ticks: its earliest timer is the answer
        return earliest_in(next.list);
      }
    }
    return next.at;
  }

  // The node of the timer that fires next, or nil. Lists fire, cascade and are swapped in front to back, so among
  // equal due times the first in list order, and the first list in the order find_next_expiration() reads them,
  // fires first.
  [[nodiscard]] std::uint32_t first_index() const noexcept {
    const event next = next_event();
    if (next.list == none) return detail::nil;
    if (next.list == overflow_id) return m_overflow.top().node;
    std::uint32_t found = detail::nil;
    const auto first_due_at = [&](std::uint32_t list, tick due) {
      m_chunks.for_each_live(m_lists[list], [&](std::uint32_t index) {
        if (found == detail::nil && std::max(this->m_nodes[index].deadline, this->m_now) <= due) found = index;
      });
    };
    if constexpr (P == precision::exact) {
      const tick due = *next_expiration();
      if (next.list >= boundary_last && next.list <= boundary_first) {
        const std::size_t level = boundary_first - next.list;
        first_due_at(ahead_base(level) + static_cast<std::uint32_t>(m_ahead[level].find_first()), due);
        for_each_waiting(level, next.at, [&](std::uint32_t list, std::size_t, bool) { first_due_at(list, due); });
        return found;
      }
      first_due_at(next.list, due);
    } else {
      first_due_at(next.list, UINT64_MAX);
    }
    return found;
  }

  [[nodiscard]] tick earliest_in(std::uint32_t list) const noexcept {
    tick earliest = UINT64_MAX;
    m_chunks.for_each_live(m_lists[list],
                           [&](std::uint32_t index) { earliest = std::min(earliest, this->m_nodes[index].deadline); });
    return earliest;
  }

  // advance() past the quiet stretch: out of line, so that the many advances that only move now() stay a few
  // instructions inlined at the caller (W1 tick by tick: 45 instructions an idle advance when it was one function).
  template <class F>
  TIMING_WHEEL_NOINLINE std::size_t advance_through(tick to, F& on_expire, std::size_t budget) {
    const tick stride = std::max<tick>(to - this->m_now, 1);  // the spreading expects the next advance to move as far
    m_quiet_until = 0;
    m_next_known = false;
    std::size_t fired = 0;
    event next = current_event();
    forget_event();  // the loop changes the queue; callbacks asking next_expiration() search afresh
    for (; next.list != none && next.at <= to; next = next_event()) {
      if (fired == budget) {
        // Stop early only if a timer is really due by `to`: a cascade alone fires nothing and must still run.
        const std::optional<tick> due = find_next_expiration();
        if (due && *due <= to) return fired;  // now() stays at the last fire time
        budget = SIZE_MAX;
      }
      this->m_now = next.at;
      if (next.list == overflow_id) {
        fired += take_from_overflow(on_expire);
      } else if (next.list >= boundary_last && next.list <= boundary_first) {
        enter_next_span(boundary_first - next.list);
      } else if (P == precision::coarse || level_of(next.list) == 0) {
        fired += fire_list(next.list, on_expire, budget - fired);
      } else if (const std::uint32_t only = lone_timer_due_by(m_lists[next.list], to); only != detail::nil) {
        // Nothing pending is due before a slot's lone timer (lower levels are empty, later slots and levels hold
        // later spans): it fires now instead of cascading level by level. Sparse timers cost O(1) each.
        node_type& node = this->m_nodes[only];
        remove_entry(next.list, node.link);
        m_next_known = false;
        this->m_now = node.deadline;
        ++fired;
        this->m_instr.inspected();
        this->fire_node(only, node, on_expire);
      } else {
        cascade(next.list);
      }
    }
    this->m_now = to;
    m_quiet_until = next.list == none ? UINT64_MAX : next.at;  // nothing changed since `next` was found
    if constexpr (precascades) {
      // Firing level 0 changes no source: the spreading, asked only when due, costs nothing on most advances.
      if (to >= m_spread_until || stride > m_quiet_stride) m_spread_until = precascade(stride);
      m_quiet_until = std::min(m_quiet_until, m_spread_until);
      if (m_spread_until == 0) return fired;  // a share moved: `next` may be out of date
    }
    // Still the next event: nothing changed since it was found, and now() moved up to `to`, short of it, which
    // changes no slot it names.
    m_event = next;
    m_event_now = to;
    m_event_known = true;
    return fired;
  }

  // Fires a slot list due at now(), front to back; timers the callbacks append to it (due now) fire too.
  template <class F>
  std::size_t fire_list(std::uint32_t list, F& on_expire, std::size_t budget) {
    std::size_t fired = 0;
    while (!m_lists[list].empty() && fired < budget) {
      if (m_lists[list].live > 1) prefetch_ahead(m_lists[list]);  // a lone timer's node is being loaded already
      const std::uint32_t index = take_front(list);
      ++fired;
      this->m_instr.inspected();
      this->fire_node(index, on_expire);
    }
    this->m_instr.slot_processed(fired);
    return fired;
  }

  // now() has just entered the span of this slot: its timers move to lower levels, in list order, so that equal
  // due times keep their insertion order.
  void cascade(std::uint32_t list) noexcept {
    const std::size_t level = level_of(list);
    if (level >= 2) spread_changed();  // the lists filled above level 0 may be sources (level 0 is none)
    slot_emptied(list, level);
    std::size_t moved = 0;
    m_chunks.consume(
        m_lists[list], [this](std::uint32_t index) { prefetch_node(index); },
        [&](std::uint32_t index) {
          node_type& node = this->m_nodes[index];
          append(index, node, locate(node.deadline));
          this->m_instr.inspected();
          this->m_instr.cascaded();
          ++moved;
        });
    this->m_instr.slot_processed(moved);
  }

  // The list's only timer, if it has one and it is due by `to`; otherwise nil. (It takes the list, not its id: g++
  // -O3 folds this body across wheel shapes and then misreads an index into another shape's array as out of bounds.)
  [[nodiscard]] std::uint32_t lone_timer_due_by(const detail::chunk_list& entries, tick to) const noexcept {
    if (entries.live != 1) return detail::nil;
    std::uint32_t at = entries.front;  // fewer than a chunk of dead entries may come first
    while (m_chunks.entry(at) == detail::dead_entry) at = m_chunks.step(at, entries.back);
    const std::uint32_t index = m_chunks.entry(at);
    return this->m_nodes[index].deadline <= to ? index : detail::nil;
  }

  // Calls f(list) for every list holding timers of the span that starts at `start` (level L's ahead ring having
  // been swapped in or not): the slot 0 of each higher ahead ring whose span also starts there, then the slot of
  // the first level whose span does not, where the rest still waits. In age order: earlier lists hold older timers.
  template <class F>
  void for_each_waiting(std::size_t level, tick start, F&& f) const {
    for (std::size_t up = level + 1; up < active_levels; ++up) {
      const tick digit = (start >> (Bits * up)) & slot_mask;
      if (digit != 0 || up >= ahead_levels) {
        f(list_id(up, digit), up, false);
        return;
      }
      if (((m_ahead_used >> up) & 1U) != 0 && m_ahead_span[up] == start) f(ahead_base(up), up, true);
    }
  }

  // now() has reached the start of level L's next span and level L (and everything below) is empty: the ahead
  // ring, holding the timers already moved down, becomes level L. Its slot 0 begins now and cascades first; then
  // the higher ahead rings whose span begins now too are swapped in and their slot 0 cascades, and last whatever
  // still waits in a higher level (a cascade appends, so equal due times keep their order).
  void enter_next_span(std::size_t level) noexcept {
    if constexpr (precascades) {
      const tick start = this->m_now;
      swap_in(level);
      for_each_waiting(level, start, [this](std::uint32_t list, std::size_t up, bool ahead) {
        if (ahead) {
          swap_in(up);
        } else if (!m_lists[list].empty()) {
          cascade(list);
        }
      });
    }
  }

  void swap_in(std::size_t level) noexcept {
    spread_changed();
    std::swap(m_rings.first[level], m_rings.ahead[level]);
    std::swap(m_rings.role[m_rings.first[level] / slots], m_rings.role[m_rings.ahead[level] / slots]);
    std::swap(m_occupied[level], m_ahead[level]);
    m_ahead_used &= ~(tick{1} << level);
    if (m_occupied[level].any()) m_levels_used |= tick{1} << level;
    if (level > 0 && m_occupied[level].test(0)) cascade(list_id(level, 0));
  }

  // For each level, the bounded share of its next span's timers moved down per advance(): what is left waiting,
  // divided by the advances left before the span begins (rounded up; the ticks left over the last advance's
  // stride), taken from the front of the list so that equal due times keep their order. An event loop that advances
  // every tick, or every k ticks, spreads every cascade over a whole span. A source that min_share timers an
  // advance would empty in time waits until then.
  // Returns: the tick before which it has nothing to do (as long as advances keep to m_quiet_stride): 0 when a share
  // moved (more are due next advance), else the first tick at which a waiting share must start moving or a level's
  // source may hold more than boundary_burst timers (UINT64_MAX: never). What it works out for a level holds until
  // that level's tick or stride is passed or its sources change (spread_changed()): until then the level is not
  // looked at again, so an event loop that inserts between advances pays only for the levels it touched.
  tick precascade(tick stride) noexcept {
    const tick now = this->m_now;
    bool crowded = false;
    m_quiet_stride = UINT64_MAX;
    // Level L's next span waits in level L+1 or in its ahead ring: only the levels with something above are looked
    // at, and a source is counted only when its bitmap says it is occupied.
    const tick levels_above = ((m_levels_used | m_ahead_used) >> 1) & detail::low_mask(ahead_levels);
    tick quiet = UINT64_MAX;
    for (tick above = levels_above; above != 0; above &= above - 1) {
      const auto level = static_cast<std::size_t>(std::countr_zero(above));
      const std::size_t shift = Bits * (level + 1);
      const tick digit = (now >> shift) & slot_mask;
      const tick span_end = now | detail::low_mask(shift);
      if (span_end == UINT64_MAX) break;  // no next span, here or above
      const tick level_bit = tick{1} << level;
      if ((m_levels_planned & level_bit) != 0 && now < m_level_quiet[level] && stride <= m_level_stride[level]) {
        quiet = std::min(quiet, m_level_quiet[level]);
        m_quiet_stride = std::min(m_quiet_stride, m_level_stride[level]);
        continue;
      }
      const std::uint32_t source = source_at(level, now);
      if (source == none || m_lists[source].live <= boundary_burst) {
        m_level_source[level] = none;  // turning crowded is seen by source_grew() anyway
        m_level_quiet[level] = next_crowded_source(level, digit);
        m_level_stride[level] = UINT64_MAX;
        m_levels_planned |= level_bit;
        quiet = std::min(quiet, m_level_quiet[level]);
        continue;
      }
      const tick ticks_left = span_end - now + 1;
      const tick advances_left = detail::ceil_div(ticks_left, stride);
      // Timers inserted into the source since the last share move at once, on top of the share of those that
      // were there: otherwise a source fed while it is spread (the next span is near) is left to grow and its
      // share swells as the span approaches (W2: from 170 to 1,700 moves an advance in the last ticks before a
      // level-2 boundary).
      const std::uint32_t live = m_lists[source].live;
      // (A source still waiting to start takes its arrivals into the wait: its plan is made again below.)
      const bool started = m_ahead_span[level] == span_end + 1 && ((m_ahead_used >> level) & 1U) != 0;
      const std::uint32_t arrived = started && live > m_spread_left[level] ? live - m_spread_left[level] : 0;
      const std::uint32_t waiting = live - arrived > boundary_burst ? live - arrived - boundary_burst : 0;
      m_ahead_span[level] = span_end + 1;  // where the ahead ring swaps in, even if now() lands exactly there
      // It can wait until min_share an advance would just empty it: `batches` advances ahead of the span, in this
      // stride (fewer than advances_left, so later than now).
      if (const tick batches = detail::ceil_div(waiting, min_share); arrived == 0 && batches < advances_left) {
        m_level_quiet[level] = span_end + 1 - batches * stride;
        m_level_stride[level] = stride;
        m_level_source[level] = source;
        // The same start holds while the share still takes `batches` advances: arrivals up to that many wait too.
        m_level_source_room[level] =
            static_cast<std::uint32_t>(std::min<tick>(boundary_burst + batches * min_share, UINT32_MAX));
        m_levels_planned |= level_bit;
        quiet = std::min(quiet, m_level_quiet[level]);
        m_quiet_stride = std::min(m_quiet_stride, stride);
        m_spread_left[level] = live;
        continue;
      }
      crowded = true;
      // Moving again next advance; and this level's ahead ring, which it fills, is a source of the level below.
      m_levels_planned &= ~(level_bit | (level_bit >> 1));
      const std::uint32_t target = ahead_base(level);
      const auto moves = static_cast<std::uint32_t>(
          std::min<tick>(live - boundary_burst, detail::ceil_div(waiting, advances_left) + arrived));
      m_chunks.pop_front(
          m_lists[source], moves, [this](std::uint32_t index) { prefetch_node(index); },
          [&](std::uint32_t index) {
            node_type& node = this->m_nodes[index];
            const tick deadline = node.deadline;
            append(index, node,
                   placement{target + static_cast<std::uint32_t>((deadline >> (Bits * level)) & slot_mask),
                             static_cast<std::uint32_t>(active_levels + level), deadline});
            this->m_instr.cascaded();
            this->m_instr.inspected();
          });
      m_spread_left[level] = m_lists[source].live;
      after_removal(source);
      m_next_known = false;
    }
    return crowded ? 0 : quiet;
  }

  // The list level L's next span is spread from at tick `at` (as the slots stand now), or none.
  [[nodiscard]] std::uint32_t source_at(std::size_t level, tick at) const noexcept {
    const std::size_t shift = Bits * (level + 1);
    const tick digit = (at >> shift) & slot_mask;
    if (digit != slot_mask) return m_occupied[level + 1].test(digit + 1) ? list_id(level + 1, digit + 1) : none;
    if ((at | detail::low_mask(shift)) == UINT64_MAX || level + 1 >= ahead_levels || !m_ahead[level + 1].test(0)) {
      return none;
    }
    return ahead_base(level + 1);
  }

  // check_invariants(): advances skipped before m_quiet_until (at most m_quiet_stride ticks each) would have moved
  // nothing down: every source of this level-(L+1) revolution that now() meets before then holds at most
  // boundary_burst timers, or few enough that min_share an advance still empties it in the advances left after the
  // last skipped tick.
  [[nodiscard]] bool quiet_until_holds() const noexcept {
    if constexpr (precascades) {
      if (m_spread_until <= this->m_now) return true;
      const tick last = m_spread_until - 1;
      for (std::size_t level = 0; level < ahead_levels; ++level) {
        const std::size_t shift = Bits * (level + 1);
        const tick revolution_end = this->m_now | detail::low_mask(shift + Bits);
        for (tick at = this->m_now; at <= std::min(last, revolution_end);) {
          const tick span_end = at | detail::low_mask(shift);
          const std::uint32_t source = source_at(level, at);
          if (source != none && m_lists[source].live > boundary_burst) {
            const tick ticks_left = span_end - std::min(last, span_end);  // after the last skipped tick
            const tick advances_left = m_quiet_stride == UINT64_MAX ? 0 : detail::ceil_div(ticks_left, m_quiet_stride);
            if (detail::ceil_div(m_lists[source].live - boundary_burst, min_share) > advances_left) return false;
          }
          if (span_end == UINT64_MAX) break;
          at = span_end + 1;
        }
      }
    }
    return true;
  }

  // The first tick after now() at which level L's source (digit is now()'s digit in level L+1) may hold more than
  // boundary_burst timers, as the slots of level L+1 stand now: the start of the span before the next crowded slot,
  // or, past sparse_slots_passed uncrowded ones, the last one's start; the ahead ring's turn is checked when it
  // comes. Lists only shrink in between, or grow by insertions that source_grew() lets pass (into a slot already
  // crowded, or one left with few timers); anything else re-plans the level (spread_changed()).
  [[nodiscard]] tick next_crowded_source(std::size_t level, tick digit) const noexcept {
    const std::size_t shift = Bits * (level + 1);
    const tick now = this->m_now;
    if (digit == slot_mask) return (now | detail::low_mask(shift)) + 1;  // the next revolution starts: an event
    const tick revolution = now & ~detail::low_mask(shift + Bits);
    // Slots of a few timers are passed over (now() meeting them needs nothing spread), up to a bound, so that
    // sparse timers do not run precascade() at every slot they fire from (W5).
    std::size_t next = m_occupied[level + 1].find_next(digit + 2);
    for (std::size_t looked = 1;; ++looked) {
      if (next == detail::bitmap<slots>::npos) return revolution | (slot_mask << shift);
      if (m_lists[list_id(level + 1, next)].live > boundary_burst) return revolution | ((next - 1) << shift);
      if (looked == sparse_slots_passed) return revolution | (next << shift);
      next = m_occupied[level + 1].find_next(next + 1);
    }
  }

  // Exact: now() has entered the span of the earliest overflow timers: they move into the wheel in (due, insertion)
  // order. Coarse: the earliest overflow timer is due now: it fires.
  template <class F>
  std::size_t take_from_overflow(F& on_expire) {
    if constexpr (P == precision::exact) {
      if constexpr (Levels * Bits < 64) {
        const tick span = this->m_now >> (Levels * Bits);
        while (!m_overflow.empty() && (m_overflow.top().key >> (Levels * Bits)) == span) {
          const std::uint32_t index = m_overflow.top().node;
          m_overflow.pop(on_move(), this->m_instr);
          node_type& node = this->m_nodes[index];
          put(index, node, locate(node.deadline));
          this->m_instr.inspected();
          this->m_instr.cascaded();
        }
      }
      static_cast<void>(on_expire);
      return 0;
    } else {
      const std::uint32_t index = m_overflow.top().node;
      m_overflow.pop(on_move(), this->m_instr);
      m_next_known = false;  // a callback may have asked next_expiration(), which may be this timer's
      this->m_instr.inspected();
      this->fire_node(index, on_expire);
      return 1;
    }
  }

  std::array<detail::chunk_list, list_total> m_lists{};  // the slot lists and the ahead rings' lists
  detail::chunk_pool m_chunks;
  std::array<detail::bitmap<slots>, active_levels> m_occupied{};
  std::array<detail::bitmap<slots>, ahead_levels> m_ahead{};  // occupied slots of each ahead ring
  ring_map m_rings = ring_map::initial();                     // which physical ring each level and ahead ring lives in
  tick m_ahead_used = 0;                                      // bit L set while level L's ahead ring holds a timer
  std::array<tick, ahead_levels> m_ahead_span{};              // the start of the span each ahead ring holds
  std::array<std::uint32_t, ahead_levels> m_spread_left{};    // timers left in its source after the last share
  tick m_levels_used = 0;                                     // bit L set while level L holds a timer
  detail::indexed_heap m_overflow;
  tick m_quiet_until = 0;            // advance(to) with to < m_quiet_until only moves now(): see advance()
  tick m_quiet_stride = UINT64_MAX;  // the stride m_quiet_until assumes (a share left to later advances)
  tick m_spread_until = 0;           // precascade() has nothing to do before this tick, at m_quiet_stride
  std::array<tick, ahead_levels> m_level_quiet{};   // per level: what precascade() last worked out for it, ...
  std::array<tick, ahead_levels> m_level_stride{};  // ... for advances of at most this many ticks ...
  std::array<std::uint32_t, ahead_levels> m_level_source =
      no_sources();                                               // ... and the crowded source it waits to spread ...
  std::array<std::uint32_t, ahead_levels> m_level_source_room{};  // ... while it holds at most this many timers ...
  tick m_levels_planned = 0;                                      // ... valid while the level's bit is set
  mutable std::optional<tick> m_next;  // what next_expiration() answers, valid while m_next_known
  event m_event{none, 0};              // next_event() when the last advance() returned, valid while m_event_known
  tick m_event_now = 0;                // ... and now() is still this
  bool m_event_known = false;
  mutable bool m_next_known = true;
};

TIMING_WHEEL_NAMESPACE_END
