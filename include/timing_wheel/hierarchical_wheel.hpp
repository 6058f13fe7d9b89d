// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

// The hierarchical wheel: one engine for both modes. What the modes differ in is its geometry policy
// (detail/wheel_geometry.hpp); how an exact wheel cascades without bursts is the spreading (detail/spreading.hpp);
// the slot lists are chunk lists (detail/chunk_list.hpp), the nodes live in a slab (detail/slab.hpp) and timers
// beyond the horizon in an indexed heap (detail/indexed_heap.hpp). This file puts them together: placing a timer,
// finding the next event, advancing to it.

#include <timing_wheel/detail/bitmap.hpp>
#include <timing_wheel/detail/chunk_list.hpp>
#include <timing_wheel/detail/earliest_timers.hpp>
#include <timing_wheel/detail/indexed_heap.hpp>
#include <timing_wheel/detail/queue_base.hpp>
#include <timing_wheel/detail/spreading.hpp>
#include <timing_wheel/detail/wheel_geometry.hpp>
#include <timing_wheel/timer_queue.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <type_traits>
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

template <std::size_t Levels, std::size_t Bits, precision P>
using geometry_of =
    std::conditional_t<P == precision::exact, exact_geometry<Levels, Bits>, coarse_geometry<Levels, Bits>>;
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
///     timing_wheel::hierarchical_wheel<std::string> timers;   // 6 levels of 4,096 slots, exact
///     auto h = timers.insert(1'000'000, "session timeout");
///     timers.reschedule(h, 2'000'000);                          // O(1)
///     while (auto due = timers.next_expiration())               // found from the bitmaps
///       timers.advance(*due, [](timing_wheel::tick, std::string&& what) { /* ... */ });
template <class T, std::size_t Levels = 6, std::size_t Bits = 12, precision P = precision::exact,
          class Instr = no_instrumentation>
class hierarchical_wheel : public detail::queue_base<T, detail::wheel_node<T>, Instr> {
  static_assert(Levels >= 1, "hierarchical_wheel needs at least one level");
  static_assert(Bits >= 1 && Bits <= 12, "Bits must be 1 to 12: each level has 2^Bits slots");
  using base = detail::queue_base<T, detail::wheel_node<T>, Instr>;
  using node_type = detail::wheel_node<T>;
  // Everything exact and coarse mode differ in.
  using geometry = detail::geometry_of<Levels, Bits, P>;
  static_assert(detail::wheel_geometry<geometry>);

 public:
  using value_type = T;                          ///< the payload
  static constexpr precision mode = P;           ///< exact or coarse
  static constexpr std::size_t levels = Levels;  ///< rings of slots
  static constexpr std::size_t bits = Bits;      ///< log2 of the slots per ring
  /// Slots per level.
  static constexpr std::size_t slots = geometry::slots;
  /// log2 of the ratio between the granules of two adjacent levels: Bits (exact), Bits - 3 or 1 (coarse).
  static constexpr std::size_t level_shift = geometry::level_shift;
  /// Levels whose granule fits in a tick; any further levels would stay empty and are not built.
  static constexpr std::size_t active_levels = geometry::active_levels;

  /// The span of ticks one slot of `level` stands for (exact), or the rounding unit of a timer placed in `level`
  /// (coarse): 2^(level_shift * level), 0 past the active levels.
  [[nodiscard]] static constexpr tick granule(std::size_t level) noexcept { return geometry::granule(level); }

  /// Exact: the aligned span of ticks the wheel covers, 2^(Levels * Bits), or UINT64_MAX when that is the whole tick
  /// range (no overflow store). Coarse: the longest delay that always lands in the wheel, (2^Bits - 2) * granule of
  /// the top level.
  static constexpr tick horizon = geometry::horizon;

  /// Returns: the most a timer inserted `delay` ticks ahead of now() can fire after its due time: 0 in exact mode.
  [[nodiscard]] static constexpr tick max_lateness(tick delay) noexcept { return geometry::max_lateness(delay); }

  // ===================================================================================================== lifetime

  /// Effects: an empty queue whose now() is `start`.
  explicit hierarchical_wheel(tick start = 0) noexcept : base(start) {}
  /// Effects: an empty queue whose now() is `start`, holding at most `capacity.timers` timers; all its storage is
  /// allocated here, and nothing after. Throws: bad_alloc.
  explicit hierarchical_wheel(fixed_capacity capacity, tick start = 0) : base(start) {
    this->m_nodes.fix_capacity(capacity.timers);
    reserve_chunks(capacity.timers);
    if constexpr (geometry::may_overflow) m_overflow.reserve(capacity.timers);
    if constexpr (geometry::cascades) {
      if (capacity.timers > detail::earliest_timers::worth_keeping) m_earliest.reserve(capacity.timers);
    }
  }

  /// Effects: takes over `other`'s timers (their handles stay valid here); `other` is empty and usable.
  /// Complexity: O(1) in the timers; the slot lists move with their pointer, the bitmaps (a few KB) are copied.
  hierarchical_wheel(hierarchical_wheel&& other) noexcept
      : base(std::move(other)),
        m_rings(other.m_rings),
        m_lists(std::move(other.m_lists)),
        m_chunks(std::move(other.m_chunks)),
        m_overflow(std::exchange(other.m_overflow, {})),
        m_spread(std::exchange(other.m_spread, {})),
        m_known(std::exchange(other.m_known, {})),
        m_next(std::exchange(other.m_next, {})),
        m_earliest(std::move(other.m_earliest)) {
    other.m_rings.reset();
  }
  /// Effects: destroys this queue's payloads, then takes over `other`'s timers; `other` is empty and usable.
  hierarchical_wheel& operator=(hierarchical_wheel&& other) noexcept {
    if (this != &other) {
      base::operator=(std::move(other));
      m_rings = other.m_rings;
      other.m_rings.reset();
      m_lists = std::move(other.m_lists);
      m_chunks = std::move(other.m_chunks);
      m_overflow = std::exchange(other.m_overflow, {});
      m_spread = std::exchange(other.m_spread, {});
      m_known = std::exchange(other.m_known, {});
      m_next = std::exchange(other.m_next, {});
      m_earliest = std::move(other.m_earliest);
    }
    return *this;
  }
  ~hierarchical_wheel() = default;

  // ================================================================================= insert, cancel, reschedule

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
    if (where.in == store::overflow) make_overflow_room();
    const auto [index, node] = this->create_node(deadline, std::forward<Args>(args)...);
    put(index, node, where);
    return base::handle_of(index, node);
  }

  /// Effects: removes a pending timer. Returns: its payload, or nullopt if `handle` is not pending (fired,
  /// cancelled, cleared, default-constructed or stale). Complexity: O(1) in the wheel, O(log n) beyond the horizon.
  std::optional<T> cancel(timer_handle handle) {
    [[maybe_unused]] const auto owned = this->owned();
    node_type* const node = this->pending_node(handle);
    if (node == nullptr) return std::nullopt;
    return this->cancel_node(handle.index, *node,
                             [this, node](std::uint32_t) { unlink(*node, list_of(node->link), true); });
  }

  /// Effects: moves a pending timer to `deadline`, as a new insertion (it fires after timers already due at the
  /// same time); the payload stays in place. Returns: false, changing nothing, if `handle` is not pending.
  /// Complexity: O(1) in the wheel. Throws: bad_alloc only when the timer moves beyond the horizon; then nothing
  /// changed.
  bool reschedule(timer_handle handle, tick deadline) {
    [[maybe_unused]] const auto owned = this->owned();
    node_type* const pending = this->pending_node(handle);
    if (pending == nullptr) return false;
    const placement where = locate(due_of(deadline));
    node_type& node = *pending;
    const std::uint32_t from = list_of(node.link);
    if (geometry::cascades && where.level != 0 && from == where.list && m_lists[from].live >= 2) {
      move_to_back(handle.index, node, deadline, where);
      return true;
    }
    if (where.in == store::overflow) make_overflow_room();
    unlink(node, from, false);
    node.deadline = deadline;
    put(handle.index, node, where);
    return true;
  }

  // ============================================================================================ time and firing

  /// Returns: exact: the smallest due time pending; coarse: the tick of the next firing (advance(x - 1) fires
  /// nothing, advance(x) fires at least one timer); nullopt when empty. Cached until the queue changes.
  /// Complexity: coarse O(Levels); exact O(1) when a level-0 slot is next, else it reads the next slot's timers
  /// once and keeps a crowded slot's earliest eighth between calls: amortised O(log n) as its timers go. May
  /// allocate (16 bytes a kept timer) unless reserve() or a fixed capacity did; if that fails it reads the slot.
  [[nodiscard]] std::optional<tick> next_expiration() const noexcept {
    [[maybe_unused]] const auto owned = this->owned();
    if (!m_next.known) {
      m_next.value = find_next_expiration();
      m_next.known = true;
    }
    return m_next.value;
  }

  /// Returns: the timer that fires next (its handle, deadline and payload in place), or nullopt when empty: the one
  /// advance(*next_expiration(), f) would call f on first.
  /// Complexity: next_expiration()'s; plus, when the next slot is above level 0 and holds other timers due at the
  /// same time, its timers before the one found (a level-0 slot's timers are all due together: O(1)).
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
    // No event and no share to move down before m_known.quiet_until, as long as now() moves by the strides the
    // spreading assumed: an idle advance is O(1).
    if (to < m_known.quiet_until && to - this->m_now - m_spread.least_stride <= m_spread.stride_range) {
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
    m_rings.reset();
    if (m_lists) std::fill_n(m_lists.get(), list_total, detail::chunk_list{});
    m_chunks.reset(list_total);
    m_overflow.clear();
    m_spread = {};
    m_known = {};
    m_next = {};
    m_earliest.forget();
  }

  // ==================================================================================================== capacity

  /// Effects: makes room for `n` timers, so that inserting up to n allocates nothing, beyond the horizon included.
  void reserve(std::size_t n) {
    [[maybe_unused]] const auto owned = this->owned();
    this->m_nodes.reserve(n);
    reserve_chunks(std::min(n, this->max_size()));
    if constexpr (geometry::may_overflow) m_overflow.reserve(n);
    if constexpr (geometry::cascades) {
      if (n > detail::earliest_timers::worth_keeping) m_earliest.reserve(n);
    }
  }

  /// Returns: how many pending timers wait in the overflow store, beyond the horizon.
  [[nodiscard]] std::size_t overflow_size() const noexcept { return m_overflow.size(); }

 private:
  // ====================================================================================== rings, lists, events

  // Exact wheels cascade through a spread ring per level below the top (detail/spreading.hpp).
  static constexpr bool spreads = geometry::cascades && active_levels >= 2;
  static constexpr std::size_t spread_levels = spreads ? active_levels - 1 : 0;  // levels with a spread ring
  static constexpr std::size_t list_count = active_levels * slots;               // the levels' own rings
  static constexpr std::size_t list_total = list_count + spread_levels * slots;
  static constexpr auto overflow_id = static_cast<std::uint32_t>(list_total);  // the overflow store's list id
  static_assert(list_total < UINT16_MAX, "list ids are kept in 16 bits");
  static constexpr std::uint32_t none = detail::nil;
  static constexpr tick slot_mask = geometry::slot_mask;

  // Where a timer is kept: a level's ring, a level's spread ring, or the overflow store beyond the horizon.
  enum class store : std::uint8_t { level_ring, spread_ring, overflow };
  struct placement {
    std::uint32_t list;   // slot list id (overflow_id in the overflow store)
    std::uint16_t level;  // the level whose ring or spread ring holds the list
    store in;
    tick fire;  // when it will fire
  };

  // What happens next: a slot's timers fire (level 0, or any level of a coarse wheel) or cascade (a higher level
  // of an exact wheel), a level's spread ring swaps in as its next span begins, or the overflow store hands over;
  // or nothing is pending.
  enum class event_kind : std::uint32_t { none, fire, cascade, span_start, overflow };
  struct event {
    std::uint32_t where = none;  // fire, cascade: the slot list; span_start: the level whose spread ring swaps in
    event_kind kind = event_kind::none;
    tick at = 0;
  };

  // Each level below the top lives in one of two physical rings (list ids level * slots + slot, or list_count +
  // level * slots + slot), the other being its spread ring; a span start swaps them without touching a node.
  // The lookups below are on every insert, cancel and cascade: they read a small table kept by swap_in() instead
  // of working the swap out each time.
  struct ring_role {
    std::uint8_t level;
    bool spread;  // the level's spread ring, not its own
  };
  struct ring_map {
    std::array<std::uint32_t, active_levels> first{};   // first list id of each level's ring
    std::array<std::uint32_t, spread_levels> spread{};  // first list id of each level's spread ring
    std::array<ring_role, list_total / slots> role{};   // per physical ring: whose it is

    constexpr ring_map() noexcept {
      for (std::size_t level = 0; level < active_levels; ++level) {
        first[level] = static_cast<std::uint32_t>(level * slots);
        role[level] = {static_cast<std::uint8_t>(level), false};
      }
      for (std::size_t level = 0; level < spread_levels; ++level) {
        spread[level] = static_cast<std::uint32_t>(list_count + level * slots);
        role[active_levels + level] = {static_cast<std::uint8_t>(level), true};
      }
    }
  };
  // The bitmaps of every ring, and which physical ring serves which level now. (The slot lists themselves, 16 bytes
  // a slot, are m_lists.)
  struct ring_storage {
    std::array<detail::bitmap<slots>, active_levels> occupied{};  // occupied slots of each level's ring
    std::array<detail::bitmap<slots>, spread_levels> spread{};    // occupied slots of each spread ring
    ring_map map{};
    tick levels_used = 0;  // bit L set while level L's ring holds a timer
    tick spread_used = 0;  // bit L set while level L's spread ring holds a timer

    // Back to the state of a new wheel, in place (`rings = {}` would build a temporary of a few KB on the stack).
    void reset() noexcept {
      for (detail::bitmap<slots>& ring : occupied) ring.clear();
      for (detail::bitmap<slots>& ring : spread) ring.clear();
      map = ring_map{};
      levels_used = 0;
      spread_used = 0;
    }
  };
  // What the last advance() worked out, valid until the queue changes.
  struct known_state {
    tick quiet_until = 0;  // advance(to) with to < quiet_until only moves now(), at the spreading's quiet_stride
    event next{};          // next_event() when the last advance() returned, valid while `valid`: idle advances
    bool valid = false;    // (now() short of quiet_until) leave it right
    // next.at when advance() left `next` valid and a level-0 slot's firing, else UINT64_MAX: a timer put into a
    // level-0 slot at or after it changes neither `next` nor quiet_until (put()). (Once `next` is forgotten,
    // quiet_until is 0 or still a bound below it, so a stale kept_from misleads nothing.)
    tick kept_from = UINT64_MAX;
  };
  // What next_expiration() answers: cached, as a const query, until the queue changes.
  struct next_expiration_cache {
    std::optional<tick> value;
    bool known = true;
  };

  [[nodiscard]] std::uint32_t list_id(std::size_t level, tick slot) const noexcept {
    return m_rings.map.first[level] + static_cast<std::uint32_t>(slot);
  }
  [[nodiscard]] std::uint32_t spread_base(std::size_t level) const noexcept { return m_rings.map.spread[level]; }
  [[nodiscard]] ring_role role_of(std::uint32_t list) const noexcept {
    if constexpr (spreads) {
      return m_rings.map.role[list / slots];
    } else {
      return {static_cast<std::uint8_t>(list / slots), false};
    }
  }
  [[nodiscard]] static constexpr std::size_t chunks_needed(std::size_t timers) noexcept {
    return detail::chunk_pool::chunks_needed(timers, list_total);
  }
  // Chunks enough for `timers` live timers, whatever is cancelled or cascaded: put() never allocates.
  // (The slot lists come with the first room made: a wheel that never held a timer, or was moved from, has none.
  // Every path that reads a list has a timer pending, except advance_through() and check_invariants(), which
  // test for them.)
  void reserve_chunks(std::size_t timers) {
    if (!m_lists && timers != 0) [[unlikely]]
      m_lists = make_lists();
    m_chunks.reserve_for(timers, list_total);
  }
  struct lists_deleter {
    void operator()(detail::chunk_list* lists) const noexcept { ::operator delete(lists); }
  };
  using list_array = std::unique_ptr<detail::chunk_list[], lists_deleter>;
  [[nodiscard]] static list_array make_lists() {
    void* memory = ::operator new(list_total * sizeof(detail::chunk_list), std::nothrow);
    if (memory == nullptr) detail::throw_bad_alloc();
    auto* lists = static_cast<detail::chunk_list*>(memory);
    std::uninitialized_fill_n(lists, list_total, detail::chunk_list{});
    return list_array(lists);
  }

  // ========================================================================= placing and removing one timer

  [[nodiscard]] tick due_of(tick deadline) const noexcept { return std::max(deadline, this->m_now); }

  // Where a timer due at `due` (>= now()) goes.
  TIMING_WHEEL_HOT [[nodiscard]] placement locate(tick due) const noexcept {
    const detail::wheel_position at = geometry::locate(due, this->m_now);
    if (at.level == detail::wheel_position::beyond) return {overflow_id, 0, store::overflow, due};
    return {list_id(at.level, at.slot), static_cast<std::uint16_t>(at.level), store::level_ring, at.fire};
  }

  // A timer due in a level-0 slot at or after the one whose firing the last advance() found next leaves that the
  // next event, and the quiet stretch before it right (m_known.kept_from): an event loop scheduling short timers
  // between advances neither searches the bitmaps again at the next one nor stops taking its idle advances inline.
  // Anywhere else it forgets both (above level 0 the spreading may have a list to look at again).
  TIMING_WHEEL_HOT void put(std::uint32_t index, node_type& node, placement where) noexcept {
    if (where.in == store::overflow) {
      forget_known();
      m_overflow.push(where.fire, index, on_move(), this->m_instr);  // on_move() sets the node's link
    } else if (where.level == 0) {
      // (fire + 1 wraps at the last tick, so a timer due then always forgets: kept_from's UINT64_MAX says none.)
      if (where.fire + 1 <= m_known.kept_from) forget_known();
      // (Level 0's lists are often empty when a timer comes: writing the bits always beat a branch on it, which
      // cost the backtest 14% more mispredicted branches.)
      append(index, node, where);
    } else {
      // A list holding timers has its slot's bit set already: the bitmaps are written only when it fills.
      const bool filled = !m_lists[where.list].empty();
      if (filled || !put_past_empty_source(index, node, where)) {
        if (filled) {
          node.link = push_entry(where.list, index);
        } else {
          append(index, node, where);
        }
        // (Not at level 0: it is no level's source, and its ring's lists are never kept.)
        source_grew(where.list, where.level);
        joined(where.list, node, index);
      }
      forget_known();
    }
    if (m_next.known && (!m_next.value || where.fire < *m_next.value)) m_next.value = where.fire;
  }
  void forget_known() noexcept {
    m_known.quiet_until = 0;
    forget_event();
  }

  // A timer whose list (`where`, in level L >= 1's own ring) is the source of level L-1's next span and holds
  // nothing goes into L-1's spread ring instead, where the spreading would move it. Every timer due in that span
  // waits in the source or in that ring (a span that does not start a new revolution of level L has no other
  // source), so with the source empty, appending to the ring keeps equal due times in order, and the timer moves
  // once less. Timers that cross a boundary of level L a few hundred ticks ahead, as a loop's timeouts do, used to
  // move twice: W2's polls in the last 417 ticks before each level-2 boundary moved 150-180 timers, against 68
  // elsewhere. Returns: true if it placed the timer. Requires: the list `where` names is empty (put() tests that
  // first: most insertions stop there). (Its cheap tests inline; the rest is out of line, so that put()'s common
  // path still knows it appends to a level's own ring.)
  TIMING_WHEEL_HOT bool put_past_empty_source(std::uint32_t index, node_type& node, placement where) noexcept {
    if constexpr (spreads) {
      const tick digit = (this->m_now >> (Bits * where.level)) & slot_mask;
      if (digit == slot_mask || (where.list & slot_mask) != digit + 1) return false;  // not the next span's source
      return open_spread_ring(index, node, where);
    } else {
      static_cast<void>(index);
      static_cast<void>(node);
      static_cast<void>(where);
      return false;
    }
  }

  TIMING_WHEEL_NOINLINE bool open_spread_ring(std::uint32_t index, node_type& node, placement where) noexcept {
    const std::size_t below = where.level - 1;
    const tick span_start = (this->m_now | detail::low_mask(Bits * where.level)) + 1;
    if (((m_rings.spread_used >> below) & 1U) == 0) {
      m_spread.span_start[below] = span_start;  // the ring opens for that span here
    } else if (m_spread.span_start[below] != span_start) {
      return false;
    }
    const auto list = spread_base(below) + static_cast<std::uint32_t>((where.fire >> (Bits * below)) & slot_mask);
    append(index, node, placement{list, static_cast<std::uint16_t>(below), store::spread_ring, where.fire});
    joined(list, node, index);
    if (below > 0) source_grew(list, below);  // (slot 0 of a spread ring may be the next source of the level below)
    return true;
  }

  // Adds a timer to a slot list and marks the slot occupied. Alone, without put()'s bookkeeping, for a timer that a
  // cascade or the spreading moves down a level: it stays pending, so it never goes beyond the horizon and is due no
  // earlier than the next event already known.
  // `node` is the node `index` names: the callers hold it already, and each lookup costs a few instructions.
  TIMING_WHEEL_HOT void append(std::uint32_t index, node_type& node, placement where) noexcept {
    node.link = push_entry(where.list, index);
    if (spreads && where.in == store::spread_ring) {
      m_rings.spread[where.level].set(where.list & slot_mask);
      m_rings.spread_used |= tick{1} << where.level;
    } else {
      m_rings.occupied[where.level].set(where.list & slot_mask);
      m_rings.levels_used |= tick{1} << where.level;
    }
  }

  // Appends a timer's entry to a slot list. Returns: its position, for the node's link.
  TIMING_WHEEL_HOT std::uint32_t push_entry(std::uint32_t list, std::uint32_t index) noexcept {
    return m_chunks.push_back(m_lists[list], list, index, [this](std::uint32_t moved, std::uint32_t position) {
      this->m_nodes[moved].link = position;
    });
  }

  // A timer was appended to `list`: if that list's earliest timers are kept (detail/earliest_timers.hpp), it joins
  // them. Called where timers join a list someone may have asked about: insertions and reschedules above level 0
  // (put(); level 0's ring is never kept) and the spreading's moves into the ring holding the kept list (tested once
  // a share). Not by cascades: they fill lists of a ring that were empty since now() left their span (or, at a span
  // start, before anyone can ask), and cascade() and swap_in() forget what was kept of the lists they empty or swap;
  // check_invariants() checks it.
  TIMING_WHEEL_HOT void joined(std::uint32_t list, const node_type& node, std::uint32_t index) const noexcept {
    if constexpr (geometry::cascades) {
      if (list == m_earliest.list()) [[unlikely]]
        m_earliest.joined(node.deadline, index);
    }
  }

  // Takes a pending timer out of its list or the overflow store. A cancel keeps the next event the last advance
  // found (`keep_event`) unless it empties the list that event names or the event is a spread ring's span start or
  // the overflow store's (a ring or the store may empty or start later): any other event stays the next one, and an
  // event loop that cancels a timer between advances (W7) searched the bitmaps again at each. A reschedule forgets
  // it at once: its put() above level 0 forgets it anyway, and testing cost W3 8 instructions a reschedule.
  // `list`: list_of(node.link), which a reschedule has found already.
  TIMING_WHEEL_HOT void unlink(const node_type& node, std::uint32_t list, bool keep_event) noexcept {
    if (!keep_event) forget_event();
    if (list == overflow_id) {
      forget_event();
      if (m_next.value == node.deadline) m_next.known = false;
      m_overflow.erase(node.link >> detail::offset_bits, on_move(), this->m_instr);
      return;
    }
    // (Only coarse wheels read the level and slot, and they have no spread rings: the list id says both.)
    if (m_next.known && m_next.value == geometry::fire_time(node.deadline, list / slots, list & slot_mask, this->m_now))
      m_next.known = false;
    remove_entry(list, node.link);
    if (keep_event &&
        (m_known.next.kind >= event_kind::span_start || (list == m_known.next.where && m_lists[list].empty())))
      forget_event();
  }

  // A reschedule that leaves a timer in its list above level 0 among other timers, as an idle timeout reset soon
  // after its last reset does: the entry moves to the back (a new insertion), and nothing else changes. The list
  // keeps as many timers, so the bitmaps, the spreading's counts and the next event stay as they were, and unlink()
  // and put() would reach the same state through more instructions. Out of cache those count: a reschedule's
  // instructions decide how many of its misses overlap the next operation's. (Exact wheels only, whose lists above
  // level 0 never fire, so no firing is walking this one.) Requires: the timer's entry is in where.list, which
  // holds another live timer.
  TIMING_WHEEL_HOT void move_to_back(std::uint32_t index, node_type& node, tick deadline, placement where) noexcept {
    const std::uint32_t position = node.link;
    detail::chunk_list& entries = m_lists[where.list];
    if (m_next.known && m_next.value == due_of(node.deadline)) m_next.known = false;
    node.deadline = deadline;
    node.link = m_chunks.move_to_back(entries, where.list, position, index, relocator());
    if (position == entries.front) m_chunks.drop_dead_run(entries);
    joined(where.list, node, index);
    forget_known();
    if (m_next.known && (!m_next.value || where.fire < *m_next.value)) m_next.value = where.fire;
  }

  // Marks a timer's entry dead; an emptied list gives its chunks back, a crowded one is compacted (a step of it).
  // (A lone entry just goes.)
  TIMING_WHEEL_HOT void remove_entry(std::uint32_t list, std::uint32_t position) noexcept {
    detail::chunk_list& entries = m_lists[list];
    if (entries.lone()) {
      entries = {};
      slot_emptied(list, role_of(list));
      return;
    }
    m_chunks.kill(entries, position);
    // A dead front goes at once (peek() reads from it). Lists keep a live front outside a firing: the firing, whose
    // single pops may leave a dead one, drops it when a budget stops it (stopped_in), the spreading's moves too; a
    // callback that throws mid-list leaves it until the list fires on or is compacted.
    if (position == entries.front && entries.live != 0) m_chunks.drop_dead_run(entries);
    after_removal(list, [this, list] { return role_of(list); });
  }

  // `role`: returns role_of(list), asked only when the list empties (the firing loop knows it without the lookup,
  // and a reschedule-heavy run spent 5 instructions an operation on a lookup it rarely used). `removed`: how many
  // entries left it (the compaction keeps pace with them).
  template <class Role>
  TIMING_WHEEL_HOT void after_removal(std::uint32_t list, Role&& role, std::uint32_t removed = 1) noexcept {
    detail::chunk_list& entries = m_lists[list];
    if (entries.live == 0) {
      m_chunks.release(entries);
      slot_emptied(list, role());
    } else {
      m_chunks.compact_some(entries, list, relocator(), removed);
    }
  }
  // What the slot lists call when they move an entry: its node learns the new position.
  [[nodiscard]] auto relocator() noexcept {
    return [this](std::uint32_t index, std::uint32_t position) { this->m_nodes[index].link = position; };
  }

  // (The level's bit goes without a branch: whether a ring empties is a coin toss on a sparse wheel, and the branch
  // mispredicted a twentieth of the backtest's mispredicted branches.)
  TIMING_WHEEL_HOT void slot_emptied(std::uint32_t list, ring_role role) noexcept {
    if (spreads && role.spread) {
      m_rings.spread[role.level].reset(list & slot_mask);
      m_rings.spread_used &= ~(tick{!m_rings.spread[role.level].any()} << role.level);
    } else {
      m_rings.occupied[role.level].reset(list & slot_mask);
      m_rings.levels_used &= ~(tick{!m_rings.occupied[role.level].any()} << role.level);
    }
  }

  // unlink() for the loops that fire or move a list front to back. Requires: the list holds a timer.
  TIMING_WHEEL_HOT std::uint32_t take_front(std::uint32_t list, ring_role role) noexcept {
    const std::uint32_t index = m_chunks.pop_front(m_lists[list]);
    after_removal(list, [role] { return role; });
    m_next.known = false;  // a callback may have asked next_expiration(), which may be this timer's
    return index;
  }

  void prefetch_node(std::uint32_t index) const noexcept { detail::prefetch(&this->m_nodes[index]); }
  // Starts loading a node and returns it, for walks that use it once it has arrived.
  node_type* load_node(std::uint32_t index) noexcept {
    node_type* node = &this->m_nodes[index];
    detail::prefetch(node);
    return node;
  }

  // ============================================================================================== what is next

  // The next tick at which something happens: a slot fires or cascades, a spread ring swaps in, or the overflow
  // store hands over.
  [[nodiscard]] event next_event() const noexcept {
    const detail::slot_event slot = geometry::earliest_slot(m_rings.levels_used, m_rings.occupied.data(), this->m_now);
    event next{};
    if (slot.level != detail::wheel_position::beyond) {
      const bool cascades = geometry::cascades && slot.level > 0;
      next = {list_id(slot.level, slot.slot), cascades ? event_kind::cascade : event_kind::fire, slot.at};
    }
    if constexpr (spreads) {
      // The lowest non-empty spread ring swaps in when now() reaches its span start; every timer of a lower level
      // is due before that, and a slot event at the same tick waits (its timers come later).
      if (m_rings.spread_used != 0) {
        const auto level = static_cast<std::uint32_t>(std::countr_zero(m_rings.spread_used));
        const tick at = m_spread.span_start[level];
        if (next.kind == event_kind::none || at <= next.at) return {level, event_kind::span_start, at};
      }
    }
    if constexpr (geometry::may_overflow) {
      // (Exact: the overflow timers' span starts after every tick the wheel's timers are due at.)
      if (!m_overflow.empty()) {
        const tick at = geometry::overflow_event(m_overflow.top().key);
        if (next.kind == event_kind::none || at < next.at) return {overflow_id, event_kind::overflow, at};
      }
    }
    return next;
  }

  // next_event() as the last advance() left it, while nothing has changed since (an event loop asks
  // next_expiration() and then advances to it: both start from this instead of searching the bitmaps again). The
  // idle advances since then moved now() short of that event's tick, which changes no answer: the slots now() passed
  // were empty. (Searching again whenever now() had moved cost W5's advances that meet a timer, and each tick of a
  // tick-by-tick loop that fires, about 25 instructions.)
  [[nodiscard]] event current_event() const noexcept { return m_known.valid ? m_known.next : next_event(); }
  void forget_event() noexcept { m_known.valid = false; }

  [[nodiscard]] std::optional<tick> find_next_expiration() const noexcept {
    const event next = current_event();
    switch (next.kind) {
      case event_kind::none:
        return std::nullopt;
      case event_kind::overflow:
        return m_overflow.top().key;
      case event_kind::span_start: {
        // Everything pending is due at or after the span start: the earliest is in the spread ring's first slot or
        // among the timers still waiting to move down.
        // (The most crowded of those lists is the one whose earliest timers are kept; a kept timer the spreading
        // has moved from a waiting list into the ring still counts: it is due in the span all the same.)
        std::array<std::uint32_t, active_levels + 1> lists{};
        std::size_t count = 0;
        lists[count++] = spread_base(next.where) + static_cast<std::uint32_t>(m_rings.spread[next.where].find_first());
        for_each_waiting(next.where, next.at, [&](std::uint32_t list, std::size_t, bool) { lists[count++] = list; });
        const auto crowded =
            std::max_element(lists.begin(), lists.begin() + count,
                             [&](std::uint32_t a, std::uint32_t b) { return m_lists[a].live < m_lists[b].live; });
        tick earliest = earliest_of_span(*crowded, spread_base(next.where));
        for (auto list = lists.begin(); list != lists.begin() + count; ++list) {
          if (list != crowded) earliest = std::min(earliest, earliest_in(*list));
        }
        return earliest;
      }
      case event_kind::cascade:  // a slot above level 0 spans many ticks: its earliest timer is the answer
        return earliest_of_span(next.where, none);
      case event_kind::fire:
        return next.at;
    }
    return std::nullopt;
  }

  // The node of the timer that fires next, or nil. Lists fire, cascade and are swapped in front to back, so among
  // equal due times the first in list order, and the first list in the order find_next_expiration() reads them,
  // fires first.
  [[nodiscard]] std::uint32_t first_index() const noexcept {
    const event next = next_event();
    if (next.kind == event_kind::none) return detail::nil;
    if (next.kind == event_kind::overflow) return m_overflow.top().node;
    // (A coarse slot fires all its timers at once: its first is the first live one.)
    const tick due = geometry::cascades ? *next_expiration() : UINT64_MAX;
    std::uint32_t found = detail::nil;
    // (It stops at the first: taking timers with peek() and cancel() would read a crowded slot each time.)
    const auto first_due_at = [&](std::uint32_t list) {
      if (found != detail::nil) return;
      found = m_chunks.find_live(m_lists[list], [&](std::uint32_t index) {
        return std::max(this->m_nodes[index].deadline, this->m_now) <= due;
      });
    };
    if (next.kind == event_kind::span_start) {
      first_due_at(spread_base(next.where) + static_cast<std::uint32_t>(m_rings.spread[next.where].find_first()));
      for_each_waiting(next.where, next.at, [&](std::uint32_t list, std::size_t, bool) { first_due_at(list); });
      return found;
    }
    if constexpr (geometry::cascades) {
      // A crowded slot above level 0: its earliest timers are kept (next_expiration() above), and when only one
      // is due then, that is the one, without reading the list up to it (peek() and cancel() in a loop over one
      // crowded slot read half of it each time).
      if (next.kind == event_kind::cascade) {
        const std::uint32_t only = m_earliest.only_earliest(next.where, none, due, still_kept(next.where, none));
        if (only != detail::nil) return only;
      }
    }
    first_due_at(next.where);
    return found;
  }

  // earliest_in() for a list whose timers are due at their deadlines (a slot above level 0, a spread ring's). A
  // crowded list's earliest timers are kept between calls (detail/earliest_timers.hpp), so that asking again after
  // its earliest timer was cancelled does not read the whole list; one kept in deadline order answers with its first
  // live timer. `ring`: the first list of a spread ring whose timers may also answer (they are all due in the span
  // asked about), or none.
  [[nodiscard]] tick earliest_of_span(std::uint32_t list, std::uint32_t ring) const noexcept {
    const detail::chunk_list& entries = m_lists[list];
    if (entries.live <= detail::earliest_timers::worth_keeping) return earliest_in(list);
    if (m_earliest.sorted(list)) {
      return this->m_nodes[m_chunks.find_live(entries, [](std::uint32_t) { return true; })].deadline;
    }
    if (const std::optional<tick> due = kept_earliest(list, ring)) return *due;
    if (!m_earliest.begin(list, ring, entries.live)) return earliest_in(list);
    m_chunks.for_each_live(entries,
                           [&](std::uint32_t index) { m_earliest.offer(this->m_nodes[index].deadline, index); });
    return m_earliest.end();
  }

  // What m_earliest keeps for `list` read with `ring`, if anything is still there.
  [[nodiscard]] std::optional<tick> kept_earliest(std::uint32_t list, std::uint32_t ring) const noexcept {
    return m_earliest.earliest(list, ring, still_kept(list, ring));
  }
  // Whether an entry m_earliest keeps for `list` read with `ring` is still a timer there, due then.
  [[nodiscard]] auto still_kept(std::uint32_t list, std::uint32_t ring) const noexcept {
    return [this, list, ring](const detail::earliest_timers::entry& kept) {
      const node_type& node = this->m_nodes[kept.index];
      if (!detail::slab<node_type>::is_live(node.generation) || node.deadline != kept.due || in_overflow(node.link))
        return false;
      const std::uint32_t owner = m_chunks.owner(node.link);
      return owner == list || (ring != none && owner - ring < slots);
    };
  }

  [[nodiscard]] tick earliest_in(std::uint32_t list) const noexcept {
    tick earliest = UINT64_MAX;
    m_chunks.for_each_live(m_lists[list],
                           [&](std::uint32_t index) { earliest = std::min(earliest, this->m_nodes[index].deadline); });
    return earliest;
  }

  // ================================================================================== advancing: fire, cascade

  // advance() past the quiet stretch: out of line, so that the many advances that only move now() stay a few
  // instructions inlined at the caller (W1 tick by tick: 45 instructions an idle advance when it was one function).
  template <class F>
  TIMING_WHEEL_NOINLINE std::size_t advance_through(tick to, F& on_expire, std::size_t budget) {
    if (!m_lists) [[unlikely]] {  // never held a timer: nothing to fire, no list to look at
      this->m_now = to;
      return 0;
    }
    const tick stride = std::max<tick>(to - this->m_now, 1);  // the spreading expects the next advance to move as far
    m_known.quiet_until = 0;
    m_next.known = false;
    std::size_t fired = 0;
    const bool ahead = geometry::cascades && nodes_outgrow(look_ahead_bytes);
    event next = current_event();
    forget_event();  // the loop changes the queue; callbacks asking next_expiration() search afresh
    for (; next.kind != event_kind::none && next.at <= to; next = event_after(next)) {
      if (fired == budget) {
        // Stop early only if a timer is really due by `to`: a cascade alone fires nothing and must still run.
        const std::optional<tick> due = find_next_expiration();
        if (due && *due <= to) {  // now() stays at the last fire time
          stopped_in(next);
          return fired;
        }
        budget = SIZE_MAX;
      }
      this->m_now = next.at;
      if (next.kind == event_kind::overflow) {
        fired += take_from_overflow(on_expire);
      } else if (next.kind == event_kind::span_start) {
        enter_next_span(next.where);
      } else if (next.kind == event_kind::fire) {
        fired += fire_list(next.where, on_expire, budget - fired, ahead);
      } else if (const lone_timer only = lone_timer_due_by(m_lists[next.where], to); only.node != nullptr) {
        // Nothing pending is due before a slot's lone timer (lower levels are empty, later slots and levels hold
        // later spans): it fires now instead of cascading level by level. Sparse timers cost O(1) each.
        node_type& node = *only.node;
        remove_entry(next.where, node.link);
        m_next.known = false;
        this->m_now = node.deadline;
        ++fired;
        this->m_instr.inspected();
        this->fire_node(only.index, node, on_expire);
      } else {
        cascade(next.where, role_of(next.where).level);
      }
    }
    this->m_now = to;
    m_known.quiet_until = next.kind == event_kind::none ? UINT64_MAX : next.at;  // nothing changed since `next`
    if constexpr (spreads) {
      // Firing level 0 changes no source: the spreading, asked only when due, costs nothing on most advances.
      if (to >= m_spread.until || stride > m_spread.quiet_stride || stride < m_spread.least_stride) {
        m_spread.until = spread(stride);
      }
      m_known.quiet_until = std::min(m_known.quiet_until, m_spread.until);
      if (m_spread.until == 0) return fired;  // a share moved: `next` may be out of date
    }
    // Still the next event: nothing changed since it was found, and now() moved up to `to`, short of it, which
    // changes no slot it names.
    m_known.next = next;
    m_known.valid = true;
    // (In an exact wheel, a level-0 slot fires before any other slot's event; a coarse wheel's levels overlap.)
    if constexpr (geometry::cascades) m_known.kept_from = next.kind == event_kind::fire ? next.at : UINT64_MAX;
    return fired;
  }

  // Timers whose nodes take more than this many bytes mostly come from DRAM when they fire (their nodes lie in
  // insertion order, they fire in deadline order), so the firing starts loading the next slot's while this one
  // fires. W1 on this machine: 3x10^6 and 10^7 timers (72 and 240 MB of nodes) fired 7-10% faster with it in one
  // advance, up to 14% tick by tick; at 10^6 (24 MB, within the last-level cache) it cost 3% in one advance.
  static constexpr std::size_t look_ahead_bytes = std::size_t{32} << 20;
  // A queue whose nodes take fewer bytes than this finds them in the L2 cache (half of this machine's 512 KB a core)
  // when a slot fires: loading a slot's nodes ahead only costs the firing loop. An event loop's retransmit timers
  // (W7, 420 pending): 560 to 547 instructions a tick, 84.4 to 82.1 ns (medians of 6 alternated runs).
  static constexpr std::size_t prefetch_bytes = std::size_t{256} << 10;
  [[nodiscard]] bool nodes_outgrow(std::size_t bytes) const noexcept {
    return this->size() * sizeof(node_type) > bytes;
  }
  // Starts loading what firing level 0's `slot` (or npos: none) reads first, the lone timer's node or the first
  // chunk, so that it arrives while the slot before it fires.
  TIMING_WHEEL_HOT void look_ahead(std::size_t slot) const noexcept {
    if (slot == detail::bitmap<slots>::npos) return;
    const detail::chunk_list& entries = m_lists[list_id(0, slot)];
    if (entries.lone()) {
      prefetch_node(entries.back);
    } else if (!entries.empty()) {
      detail::prefetch(&m_chunks[detail::chunk_of(entries.front)]);
    }
  }

  // The event after `done`, the one just handled. In an exact wheel, a level-0 slot that fired and emptied is
  // followed by the first occupied slot of its ring, if there is one (the slots before the one that fired are past,
  // so empty): every other event (a cascade, a span start, the overflow store) comes at or after the ring's end, and
  // timers the callbacks add before that land in the ring. One bitmap search instead of next_event()'s: the backtest's
  // slots mostly hold one timer, so a firing is as many searches as timers. (find_first(), not find_next() from the
  // slot after: its two bit scans take no branch, and find_next()'s branch on the word running out cost W1 0.2
  // mispredicts a timer.)
  [[nodiscard]] event event_after(event done) const noexcept {
    if constexpr (geometry::cascades) {
      if (done.kind == event_kind::fire && m_lists[done.where].empty()) {
        const std::size_t slot = m_rings.occupied[0].find_first();
        if (slot != detail::bitmap<slots>::npos)
          return {list_id(0, slot), event_kind::fire, (done.at & ~slot_mask) | slot};
      }
    }
    return next_event();
  }

  // The budget stopped the firing before `next`, maybe within its list: the single pops of the firing may have left
  // dead entries at its front, which the removals keep short elsewhere (remove_entry).
  TIMING_WHEEL_NOINLINE void stopped_in(event next) noexcept {
    if (next.kind != event_kind::fire) return;
    detail::chunk_list& entries = m_lists[next.where];
    if (!entries.empty() && !entries.lone()) m_chunks.drop_dead_front(entries);
  }

  // Fires a slot list due at now(), front to back; timers the callbacks append to it (due now) fire too. `ahead`:
  // whether to start loading the next slot's timers (asked once an advance; never in a coarse wheel, whose level 0 is
  // not the next to fire). (Forced inline at its one caller: g++ moved it out of line once it grew, and the call cost
  // the backtest 20 instructions a timer.)
  template <class F>
  TIMING_WHEEL_HOT std::size_t fire_list(std::uint32_t list, F& on_expire, std::size_t budget, bool ahead) {
    // Slots fire from a level's own ring: level 0's in a cascading wheel, any level's in a coarse one (whose rings
    // never swap, so the list id says the level).
    const ring_role role{static_cast<std::uint8_t>(geometry::cascades ? 0 : list / slots), false};
    detail::chunk_list& entries = m_lists[list];
    if (entries.lone()) {  // most slots of a sparse wheel: without the loop's bookkeeping
      const std::uint32_t index = std::exchange(entries, detail::chunk_list{}).back;
      slot_emptied(list, role);
      if (ahead) look_ahead(m_rings.occupied[0].find_first());  // (the slots up to this one are empty)
      m_next.known = false;
      this->m_instr.inspected();
      this->m_instr.slot_processed(1);
      this->fire_node(index, on_expire);
      return 1;
    }
    std::size_t fired = 0;
    if (ahead) look_ahead(m_rings.occupied[0].find_next((list & slot_mask) + 1));
    // (One live timer among dead entries: nothing to load ahead.)
    const bool loads = nodes_outgrow(prefetch_bytes) && entries.live > 1;
    if (loads) {
      prefetch_nodes(entries.front, entries.back);
      prefetch_next_chunk(entries);
    }
    while (!entries.empty() && fired < budget) {
      // A chunk begins: the next one's nodes load (unless one timer is left).
      if (loads && detail::offset_of(entries.front) == 0 && entries.live > 1) prefetch_next_chunk(entries);
      const std::uint32_t index = take_front(list, role);
      ++fired;
      this->m_instr.inspected();
      this->fire_node(index, on_expire);
    }
    this->m_instr.slot_processed(fired);
    return fired;
  }

  // Loads the nodes a list's entries name from `position` to the end of its chunk (or of the list, `back`), so that
  // they arrive together. Once a chunk, not once a timer: W2's firing loop spent 17 instructions a timer finding
  // the entry a few places ahead.
  void prefetch_nodes(std::uint32_t position, std::uint32_t back) const noexcept {
    const detail::entry_chunk& holder = m_chunks[detail::chunk_of(position)];
    const bool last = detail::chunk_of(position) == detail::chunk_of(back - 1);
    const std::uint32_t end = last ? detail::offset_of(back - 1) + 1 : detail::entries_per_chunk;
    for (std::uint32_t at = detail::offset_of(position); at < end; ++at) {
      if (holder.entries[at] != detail::dead_entry) prefetch_node(holder.entries[at]);
    }
  }
  // While a chunk's timers fire, the nodes of the next chunk load. Requires: the list holds a timer.
  void prefetch_next_chunk(const detail::chunk_list& entries) const noexcept {
    const std::uint32_t chunk = detail::chunk_of(entries.front);
    if (chunk != detail::chunk_of(entries.back - 1)) {
      prefetch_nodes(m_chunks[chunk].next << detail::offset_bits, entries.back);
    }
  }

  // now() has just entered the span of this slot of `level`'s ring: its timers move to lower levels, in list
  // order, so that equal due times keep their insertion order. The lists it fills, in levels 1 to level - 1, are
  // the sources of levels 0 to level - 2: only those levels' spreading is planned again (W5: sparse timers
  // cascade from a high level every few advances, and the levels above keep their plans).
  void cascade(std::uint32_t list, std::size_t level) noexcept {
    if (level >= 2) m_spread.forget_below(level - 1);
    if (list == m_earliest.list()) m_earliest.forget();  // it empties now, and cascades refill it unseen
    slot_emptied(list, {static_cast<std::uint8_t>(level), false});
    detail::chunk_list& entries = m_lists[list];
    if (entries.lone()) {
      const std::uint32_t index = m_chunks.pop_front(entries);
      move_down(index, this->m_nodes[index]);
      this->m_instr.slot_processed(1);
      return;
    }
    std::size_t moved = 0;
    m_chunks.consume(
        entries, [this](std::uint32_t index) { return load_node(index); },
        [&](std::uint32_t index, node_type* node) {
          move_down(index, *node);
          ++moved;
        });
    this->m_instr.slot_processed(moved);
  }

  // A cascading timer goes where its due time now selects, in a lower level.
  TIMING_WHEEL_HOT void move_down(std::uint32_t index, node_type& node) noexcept {
    append(index, node, locate(node.deadline));
    this->m_instr.inspected();
    this->m_instr.cascaded();
  }

  struct lone_timer {
    std::uint32_t index;
    node_type* node;  // nullptr: none
  };
  // The list's only timer, if it has one and it is due by `to`; otherwise node is nullptr. (It takes the list, not
  // its id: g++ -O3 folds this body across wheel shapes and then misreads an index into another shape's array as
  // out of bounds.)
  [[nodiscard]] lone_timer lone_timer_due_by(const detail::chunk_list& entries, tick to) noexcept {
    if (entries.live != 1) return {detail::nil, nullptr};
    std::uint32_t index = entries.back;
    if (!entries.lone()) {
      std::uint32_t at = entries.front;  // a few dead entries may come first
      while (m_chunks.entry(at) == detail::dead_entry) at = m_chunks.step(at, entries.back);
      index = m_chunks.entry(at);
    }
    node_type& node = this->m_nodes[index];
    return {index, node.deadline <= to ? &node : nullptr};
  }

  // =============================================================================================== the spreading

  // Calls f(list, level, spread) for every list holding timers of level L's span that starts at `start` (L's spread
  // ring having been swapped in or not): slot 0 of each higher spread ring whose span also starts there (spread:
  // true), then the slot of the first level whose span does not, where the rest still waits. In age order: earlier
  // lists hold older timers.
  template <class F>
  void for_each_waiting(std::size_t level, tick start, F&& f) const {
    for (std::size_t up = level + 1; up < active_levels; ++up) {
      const tick digit = (start >> (Bits * up)) & slot_mask;
      if (digit != 0 || up >= spread_levels) {
        f(list_id(up, digit), up, false);
        return;
      }
      if (((m_rings.spread_used >> up) & 1U) != 0 && m_spread.span_start[up] == start) {
        f(spread_base(up), up, true);
      }
    }
  }

  // now() has reached level L's span start and level L (and everything below) is empty: the spread ring, holding
  // the timers already moved down, becomes level L's ring. Its slot 0 begins now and cascades first; then the
  // higher spread rings whose span begins now too are swapped in and their slot 0 cascades, and last whatever still
  // waits in a higher level (a cascade appends, so equal due times keep their order).
  void enter_next_span(std::size_t level) noexcept {
    if constexpr (spreads) {
      const tick start = this->m_now;
      swap_in(level);
      for_each_waiting(level, start, [this](std::uint32_t list, std::size_t up, bool spread) {
        if (spread) {
          swap_in(up);
        } else if (!m_lists[list].empty()) {
          cascade(list, up);
        }
      });
    }
  }

  void swap_in(std::size_t level) noexcept {
    m_spread.forget_all();
    ring_map& map = m_rings.map;
    // Earliest timers kept of a list of this level, or for its span: the lists change roles, and cascades refill
    // them unseen.
    const std::uint32_t kept = m_earliest.list();
    if (m_earliest.context() == map.spread[level] || m_earliest.context() == map.first[level] ||
        kept - map.spread[level] < slots || kept - map.first[level] < slots) {
      m_earliest.forget();
    }
    std::swap(map.first[level], map.spread[level]);
    std::swap(map.role[map.first[level] / slots], map.role[map.spread[level] / slots]);
    m_rings.occupied[level].swap(m_rings.spread[level]);
    m_rings.spread_used &= ~(tick{1} << level);
    if (m_rings.occupied[level].any()) m_rings.levels_used |= tick{1} << level;
    if (level > 0 && m_rings.occupied[level].test(0)) cascade(list_id(level, 0), level);
  }

  // A timer was added to slot list `list` of `level` (above 0). What spread() last worked out still holds unless the
  // list is the crowded source it planned to spread later and has outgrown the room that plan left (its share would
  // need one more advance), or the list just turned crowded (spread() may have passed it as sparse, or it is a
  // source that was sparse): a list with a few timers, or one already crowded later in the ring, changes nothing it
  // decided. So an event loop inserting between advances does not pay the spreading's look-ahead each time. (A
  // plan outlives the span it was made in only if the next source was sparse then; it can turn crowded only
  // through here or a cascade from above.)
  TIMING_WHEEL_HOT void source_grew(std::uint32_t list, std::size_t level) noexcept {
    if constexpr (spreads) {
      const std::uint32_t live = m_lists[list].live;
      const std::size_t below = level - 1;
      if (live == detail::spread_burst + 1 || (list == m_spread.source[below] && live > m_spread.room[below])) {
        m_spread.forget(below);
      }
    }
  }

  // For each level, moves the share of its next span's timers due this advance (detail::decide_share()) from the
  // front of its source into its spread ring, so that equal due times keep their order. An event loop that
  // advances every tick, or every k ticks, spreads every cascade over a whole span.
  // Returns: the tick before which it has nothing to do (as long as advances keep to quiet_stride): 0 when a share
  // moved (more are due next advance), else the first tick at which a waiting share must start moving or a level's
  // source may hold more than spread_burst timers (UINT64_MAX: never). What it works out for a level holds until
  // that level's tick or stride is passed or its source changes: until then the level is not looked at again, so
  // an event loop that inserts between advances pays only for the levels it touched.
  tick spread(tick stride) noexcept {
    const tick now = this->m_now;
    bool moved = false;
    m_spread.quiet_stride = UINT64_MAX;
    m_spread.least_stride = 0;
    // Level L's next span waits in level L+1 or in its spread ring: only the levels with something above are looked
    // at, and a source is counted only when its bitmap says it is occupied.
    const tick levels_above = ((m_rings.levels_used | m_rings.spread_used) >> 1) & detail::low_mask(spread_levels);
    tick quiet = UINT64_MAX;
    for (tick above = levels_above; above != 0; above &= above - 1) {
      const auto level = static_cast<std::size_t>(std::countr_zero(above));
      const std::size_t shift = Bits * (level + 1);
      const tick span_end = now | detail::low_mask(shift);
      if (span_end == UINT64_MAX) break;  // no next span, here or above
      const tick level_bit = tick{1} << level;
      if (stride > detail::low_mask(shift)) {
        // Each advance crosses level L's whole ring: moving its next span down an advance early would do the
        // cascade's work, no less, and planning it again at every advance cost W5's 2^30-tick jumps a tenth of
        // their instructions. Passed over for strides this long (the levels above have longer rings).
        m_spread.least_stride = detail::low_mask(shift) + 1;
        m_spread.planned &= ~level_bit;
        continue;
      }
      if (m_spread.holds(level_bit, level, now, stride)) {
        quiet = std::min(quiet, m_spread.quiet[level]);
        m_spread.quiet_stride = std::min(m_spread.quiet_stride, m_spread.stride[level]);
        continue;
      }
      const std::uint32_t source = source_at(level, now);
      if (source == none || !detail::must_spread(m_lists[source].live)) {
        m_spread.source[level] = none;  // turning crowded is seen by source_grew() anyway
        m_spread.quiet[level] = next_crowded_source(level, (now >> shift) & slot_mask);
        m_spread.stride[level] = UINT64_MAX;
        m_spread.planned |= level_bit;
        quiet = std::min(quiet, m_spread.quiet[level]);
        continue;
      }
      const std::uint32_t live = m_lists[source].live;
      // (A source still waiting to start takes its arrivals into the wait: its plan is made again below.)
      const bool started = m_spread.span_start[level] == span_end + 1 && ((m_rings.spread_used >> level) & 1U) != 0;
      const detail::share_decision share =
          detail::decide_share(live, m_spread.left[level], started, now, span_end + 1, stride);
      m_spread.span_start[level] = span_end + 1;  // where the spread ring swaps in, even if now() lands exactly there
      if (share.moves == 0) {
        m_spread.quiet[level] = share.start;
        m_spread.stride[level] = stride;
        m_spread.source[level] = source;
        m_spread.room[level] = share.room;
        m_spread.left[level] = live;
        m_spread.planned |= level_bit;
        quiet = std::min(quiet, m_spread.quiet[level]);
        m_spread.quiet_stride = std::min(m_spread.quiet_stride, stride);
        continue;
      }
      moved = true;
      // Moving again next advance; and this level's spread ring, which it fills, is a source of the level below.
      m_spread.planned &= ~(level_bit | (level_bit >> 1));
      const std::uint32_t target = spread_base(level);
      const auto move_share = [&](auto into_kept_ring) {
        m_chunks.pop_front(
            m_lists[source], share.moves, [this](std::uint32_t index) { return load_node(index); },
            [&](std::uint32_t index, node_type* loaded) {
              node_type& node = *loaded;
              const tick deadline = node.deadline;
              const auto list = target + static_cast<std::uint32_t>((deadline >> (Bits * level)) & slot_mask);
              append(index, node, placement{list, static_cast<std::uint16_t>(level), store::spread_ring, deadline});
              if constexpr (decltype(into_kept_ring)::value) joined(list, node, index);
              this->m_instr.cascaded();
              this->m_instr.inspected();
            });
      };
      // Timers joining the ring that holds the list whose earliest timers are kept join those too (tested once a
      // share: the loop over its timers stays as it was).
      if (m_earliest.list() - target < slots) {
        move_share(std::true_type{});
      } else {
        move_share(std::false_type{});
      }
      m_spread.left[level] = m_lists[source].live;
      after_removal(
          source, [this, source] { return role_of(source); }, share.moves);
      m_next.known = false;
    }
    m_spread.stride_range = m_spread.quiet_stride - m_spread.least_stride;
    return moved ? 0 : quiet;
  }

  // The list level L's next span is spread from at tick `at` (as the slots stand now), or none.
  [[nodiscard]] std::uint32_t source_at(std::size_t level, tick at) const noexcept {
    const std::size_t shift = Bits * (level + 1);
    const tick digit = (at >> shift) & slot_mask;
    if (digit != slot_mask) {
      return m_rings.occupied[level + 1].test(digit + 1) ? list_id(level + 1, digit + 1) : none;
    }
    if ((at | detail::low_mask(shift)) == UINT64_MAX || level + 1 >= spread_levels ||
        !m_rings.spread[level + 1].test(0)) {
      return none;
    }
    return spread_base(level + 1);
  }

  // The first tick after now() at which level L's source (digit is now()'s digit in level L+1) may hold more than
  // spread_burst timers, as the slots of level L+1 stand now: the start of the span before the next crowded slot,
  // or, past sparse_slots_passed uncrowded ones, the last one's start; the spread ring's turn is checked when it
  // comes. Lists only shrink in between, or grow by insertions that source_grew() lets pass (into a slot already
  // crowded, or one left with few timers); anything else re-plans the level.
  [[nodiscard]] tick next_crowded_source(std::size_t level, tick digit) const noexcept {
    const std::size_t shift = Bits * (level + 1);
    const tick now = this->m_now;
    if (digit == slot_mask) return (now | detail::low_mask(shift)) + 1;  // the next revolution starts: an event
    const tick revolution = now & ~detail::low_mask(shift + Bits);
    // Slots of a few timers are passed over (now() meeting them needs nothing spread), up to a bound, so that
    // sparse timers do not run spread() at every slot they fire from (W5).
    std::size_t next = m_rings.occupied[level + 1].find_next(digit + 2);
    for (std::size_t looked = 1;; ++looked) {
      if (next == detail::bitmap<slots>::npos) return revolution | (slot_mask << shift);
      if (detail::must_spread(m_lists[list_id(level + 1, next)].live)) return revolution | ((next - 1) << shift);
      if (looked == detail::sparse_slots_passed) return revolution | (next << shift);
      next = m_rings.occupied[level + 1].find_next(next + 1);
    }
  }

  // ========================================================================================= the overflow store

  // A timer in the overflow store keeps its heap position in `link`, with the offset no list entry has.
  static constexpr std::uint32_t overflow_mark = detail::entries_per_chunk;
  static constexpr std::size_t overflow_limit = (std::size_t{1} << (32 - detail::offset_bits)) - 1;  // (the last: nil)
  [[nodiscard]] static constexpr std::uint32_t overflow_link(std::size_t position) noexcept {
    return static_cast<std::uint32_t>(position << detail::offset_bits) | overflow_mark;
  }
  [[nodiscard]] static constexpr bool in_overflow(std::uint32_t link) noexcept {
    return detail::offset_of(link) == overflow_mark;
  }
  // The list a pending timer's `link` places it in: a slot list, or overflow_id.
  [[nodiscard]] std::uint32_t list_of(std::uint32_t link) const noexcept {
    return in_overflow(link) ? overflow_id : m_chunks.owner(link);
  }
  void make_overflow_room() {
    if (m_overflow.size() >= overflow_limit) detail::throw_bad_alloc();  // heap positions must fit in `link`
    m_overflow.make_room();
  }
  [[nodiscard]] auto on_move() noexcept {
    return [this](std::uint32_t index, std::size_t position) { this->m_nodes[index].link = overflow_link(position); };
  }

  // Exact: now() has entered the span of the earliest overflow timers: they move into the wheel in (due, insertion)
  // order. Coarse: the earliest overflow timer is due now: it fires.
  template <class F>
  std::size_t take_from_overflow(F& on_expire) {
    if constexpr (geometry::cascades) {
      while (!m_overflow.empty() && geometry::overflow_event(m_overflow.top().key) == this->m_now) {
        const std::uint32_t index = m_overflow.top().node;
        m_overflow.pop(on_move(), this->m_instr);
        node_type& node = this->m_nodes[index];
        put(index, node, locate(node.deadline));
        this->m_instr.inspected();
        this->m_instr.cascaded();
      }
      static_cast<void>(on_expire);
      return 0;
    } else {
      const std::uint32_t index = m_overflow.top().node;
      m_overflow.pop(on_move(), this->m_instr);
      m_next.known = false;  // a callback may have asked next_expiration(), which may be this timer's
      this->m_instr.inspected();
      this->fire_node(index, on_expire);
      return 1;
    }
  }

 public:
  // ================================================================================================ testing aids

  /// Test-only: the sequence number the overflow store's next insertion takes (see min_heap).
  void set_sequence_for_testing(std::uint32_t seq) noexcept { m_overflow.set_sequence_for_testing(seq); }

  /// A testing aid: true when every internal invariant holds (each list's entries name timers that know their
  /// position, matching the bitmaps, every timer in the slot its due time and now() select, dead entries within
  /// bounds, chunks accounted for, the cached next expiration right, counts adding up).
  /// Complexity: O(size() + Levels * slots + capacity()).
  [[nodiscard]] bool check_invariants() const noexcept {
    if (!this->nodes_hold()) return false;
    if (!m_lists) {  // never held a timer since it was made, moved from or moved into
      return this->size() == 0 && m_rings.levels_used == 0 && m_rings.spread_used == 0 && m_overflow.empty() &&
             !m_chunks.covers(1) && (!m_next.known || !m_next.value);
    }
    if (m_next.known && m_next.value != find_next_expiration()) return false;
    const event next = next_event();
    if (next.kind != event_kind::none && next.at < m_known.quiet_until) return false;
    if (m_known.valid &&
        (m_known.next.kind != next.kind || m_known.next.where != next.where || m_known.next.at != next.at)) {
      return false;
    }
    if (m_known.kept_from != UINT64_MAX &&
        (!geometry::cascades || m_known.quiet_until > m_known.kept_from ||
         (m_known.valid && (next.kind != event_kind::fire || m_known.kept_from != next.at)))) {
      return false;
    }
    if ((spreads && m_known.quiet_until > m_spread.until) || !quiet_until_holds()) return false;
    std::size_t counted = 0;
    std::size_t chunks = 0;
    // Every entry of `list` in order; check(node) for each live one.
    const auto list_holds = [&](std::uint32_t list, auto&& check) {
      const detail::chunk_list& entries = m_lists[list];
      const std::uint32_t spanned = m_chunks.chunks_of(entries, list);
      if (spanned == detail::nil || entries.empty() != (entries.live == 0) || !m_chunks.compaction_holds(entries, list))
        return false;
      if (entries.empty()) return entries.dead == 0;
      if (entries.lone()) {
        const std::uint32_t index = entries.back;
        if (entries.live != 1 || entries.dead != 0 || index >= this->m_nodes.used() || ++counted > this->size())
          return false;
        const auto& node = this->m_nodes[index];
        return node.link == detail::inline_position(list) && this->m_nodes.is_live(node.generation) && check(node);
      }
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
        if (m_lists[list].empty() == m_rings.occupied[level].test(slot)) return false;
        if (role_of(list).level != level || role_of(list).spread) return false;
        level_used = level_used || !m_lists[list].empty();
        const bool holds = list_holds(
            list, [&](const node_type& node) { return geometry::holds(level, slot, node.deadline, this->m_now); });
        if (!holds) return false;
      }
      if (level_used != (((m_rings.levels_used >> level) & 1U) != 0)) return false;
    }
    // The spread rings: ring L holds the next level-(L+1) span's timers, already moved down, in the slot of their
    // level-L digit.
    for (std::size_t level = 0; level < spread_levels; ++level) {
      const std::size_t span_shift = Bits * (level + 1);
      bool used = false;
      for (std::size_t slot = 0; slot < slots; ++slot) {
        const std::uint32_t list = spread_base(level) + static_cast<std::uint32_t>(slot);
        if (m_lists[list].empty() == m_rings.spread[level].test(slot)) return false;
        if (role_of(list).level != level || !role_of(list).spread) return false;
        used = used || !m_lists[list].empty();
        const bool holds = list_holds(list, [&](const node_type& node) {
          return (node.deadline >> span_shift) == (this->m_now >> span_shift) + 1 &&
                 (node.deadline >> span_shift) == (m_spread.span_start[level] >> span_shift) &&
                 ((node.deadline >> (Bits * level)) & slot_mask) == slot;
        });
        if (!holds) return false;
      }
      if (used != (((m_rings.spread_used >> level) & 1U) != 0)) return false;
    }
    for (std::size_t position = 0; position < m_overflow.size(); ++position) {
      const detail::heap_entry& entry = m_overflow.at(position);
      const auto& node = this->m_nodes[entry.node];
      if (entry.key != node.deadline || node.link != overflow_link(position)) return false;
      if (position > 0 &&
          detail::indexed_heap::before(entry, m_overflow.at((position - 1) / detail::indexed_heap::arity)))
        return false;
      // Exact: beyond the horizon until its span begins. (Coarse: a timer placed there stays, as now() nears it.)
      if (geometry::cascades && locate(entry.key).in != store::overflow) return false;
    }
    // Chunks in lists and free ones make up all handed out, within what was reserved for the live timers.
    if (chunks + m_chunks.free_count() != m_chunks.used() || chunks > chunks_needed(this->size()) ||
        !m_chunks.compactions_counted(list_total)) {
      return false;
    }
    // What is kept of a crowded list answers as reading it would: no timer joined it unseen (joined()). A list kept
    // as sorted is in deadline order, none after the last due time seen.
    if (const std::uint32_t kept = m_earliest.list(); geometry::cascades && kept != none && m_earliest.sorted(kept)) {
      tick previous = 0;
      bool in_order = true;
      m_chunks.for_each_live(m_lists[kept], [&](std::uint32_t index) {
        in_order = in_order && this->m_nodes[index].deadline >= previous;
        previous = this->m_nodes[index].deadline;
      });
      if (!in_order || previous > m_earliest.last_due()) return false;
    } else if (geometry::cascades && kept != none) {
      const std::uint32_t ring = m_earliest.context();
      if (const std::optional<tick> due = kept_earliest(kept, ring)) {
        tick in_ring = UINT64_MAX;
        for (std::uint32_t list = ring; ring != none && list < ring + slots; ++list)
          in_ring = std::min(in_ring, earliest_in(list));
        // (With a spread ring, a kept timer may have moved into it: due in the span, no later than the list's.)
        if (*due > earliest_in(kept) || *due < std::min(earliest_in(kept), in_ring)) return false;
      }
    }
    return counted + m_overflow.size() == this->size();
  }

 private:
  // check_invariants(): advances skipped before quiet_until (at most quiet_stride ticks each) would have moved
  // nothing down: every source of this level-(L+1) revolution that now() meets before then holds at most
  // spread_burst timers, or few enough that min_share an advance still empties it in the advances left after the
  // last skipped tick.
  [[nodiscard]] bool quiet_until_holds() const noexcept {
    if constexpr (spreads) {
      if (m_spread.until <= this->m_now) return true;
      const tick last = m_spread.until - 1;
      for (std::size_t level = 0; level < spread_levels; ++level) {
        const std::size_t shift = Bits * (level + 1);
        if (m_spread.least_stride > detail::low_mask(shift)) continue;  // passed over: advances cross its ring
        const tick revolution_end = this->m_now | detail::low_mask(shift + Bits);
        for (tick at = this->m_now; at <= std::min(last, revolution_end);) {
          const tick span_end = at | detail::low_mask(shift);
          const std::uint32_t source = source_at(level, at);
          if (source != none && detail::must_spread(m_lists[source].live)) {
            const tick ticks_left = span_end - std::min(last, span_end);  // after the last skipped tick
            const tick stride = m_spread.quiet_stride;
            const tick advances_left = stride == UINT64_MAX ? 0 : detail::ceil_div(ticks_left, stride);
            if (detail::advances_to_spread(m_lists[source].live) > advances_left) return false;
          }
          if (span_end == UINT64_MAX) break;
          at = span_end + 1;
        }
      }
    }
    return true;
  }

  // ======================================================================================================= state

  ring_storage m_rings;
  // Every ring's slot lists, on the heap (0.7 MB for the default shape, 62 KB for 8 x 8): the wheel stays a few KB,
  // safe on a small stack, and a move takes them over in O(1). Allocated with the first room for a timer.
  list_array m_lists;
  detail::chunk_pool m_chunks;
  detail::indexed_heap m_overflow;
  detail::spreading_state<spread_levels> m_spread;
  known_state m_known;
  mutable next_expiration_cache m_next;
  mutable detail::earliest_timers m_earliest;  // exact wheels: the earliest timers of one crowded slot list
};

TIMING_WHEEL_NAMESPACE_END
