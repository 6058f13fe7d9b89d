// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

#include <timing_wheel/detail/bitmap.hpp>
#include <timing_wheel/detail/intrusive_list.hpp>
#include <timing_wheel/detail/queue_base.hpp>
#include <timing_wheel/timer_queue.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

TIMING_WHEEL_NAMESPACE_BEGIN
namespace detail {
template <class T>
struct flat_node {
  tick deadline = 0;
  tick due = 0;  // max(deadline, now() at insertion): selects the slot, and the revolution it fires in
  std::uint32_t link = nil;
  std::uint32_t prev = nil;
  std::uint32_t generation = 0;
  payload_slot<T> payload;
};
}  // namespace detail

/// One hashed ring of `Slots` slots, as Netty's HashedWheelTimer: a timer due at tick d waits in slot d % Slots and
/// fires in the revolution that reaches d; timers of later revolutions are looked at and left in place.
///
/// Order: non-decreasing due time (due = max(deadline, now() at insertion)), equal due times in insertion order, a
/// reschedule counting as a new insertion: the same sequence as min_heap and hierarchical_wheel<precision::exact>.
/// Lateness: none. Costs: insert, cancel, reschedule O(1); an advance shorter than a revolution sweeps each occupied
/// slot it covers once, looking at every timer there (as Netty's ticking does); a longer one jumps from due time to
/// due time through next_expiration(), which looks at most one revolution of slots plus, when nothing is due within
/// a revolution, every pending timer. It never walks empty slots one by one, however far advance() jumps.
/// Single-threaded. `Instr`: an instrumentation policy (instrumentation.hpp); the default counts nothing.
/// The ring lives inside the object: a ring of many thousands of slots makes a large object (allocate it).
///
///     timing_wheel::flat_wheel<int, 60> timers;      // sixty one-tick slots
///     timers.insert(120, 1);                          // two revolutions ahead, slot 0
///     timers.insert(5, 2);
///     timers.advance(200, [](timing_wheel::tick, int&&) {});   // fires 2 at tick 5, then 1 at tick 120
template <class T, std::size_t Slots = 256, class Instr = no_instrumentation>
class flat_wheel : public detail::queue_base<T, detail::flat_node<T>, Instr> {
  static_assert(Slots >= 1, "flat_wheel needs at least one slot");
  using base = detail::queue_base<T, detail::flat_node<T>, Instr>;
  static constexpr std::size_t not_walking = Slots;

 public:
  using value_type = T;                        ///< the payload
  static constexpr std::size_t slots = Slots;  ///< slots in the ring

  /// Effects: an empty queue whose now() is `start`.
  explicit flat_wheel(tick start = 0) noexcept : base(start) {}
  /// Effects: an empty queue whose now() is `start`, holding at most `capacity.timers` timers; all its storage is
  /// allocated here, and nothing after. Throws: bad_alloc.
  explicit flat_wheel(fixed_capacity capacity, tick start = 0) : base(start) {
    this->m_nodes.fix_capacity(capacity.timers);
  }

  /// Effects: takes over `other`'s timers (their handles stay valid here); `other` is empty and usable.
  /// Stack: a few hundred bytes, whatever `Slots` (the ring is copied and reset in place).
  flat_wheel(flat_wheel&& other) noexcept
      : base(std::move(other)),
        m_slots(other.m_slots),
        m_occupied(other.m_occupied),
        m_next(std::exchange(other.m_next, std::nullopt)),
        m_next_known(std::exchange(other.m_next_known, true)),
        m_due_now(std::exchange(other.m_due_now, false)) {
    other.reset_ring();
  }
  /// Effects: destroys this queue's payloads, then takes over `other`'s timers; `other` is empty and usable.
  flat_wheel& operator=(flat_wheel&& other) noexcept {
    if (this != &other) {
      base::operator=(std::move(other));
      m_slots = other.m_slots;
      m_occupied = other.m_occupied;
      other.reset_ring();
      m_next = std::exchange(other.m_next, std::nullopt);
      m_next_known = std::exchange(other.m_next_known, true);
      m_due_now = std::exchange(other.m_due_now, false);
    }
    return *this;
  }
  ~flat_wheel() = default;

  /// Effects: schedules `value` for `deadline` (a past deadline is due at now()). Returns: its handle.
  /// Complexity: O(1). Throws: bad_alloc, or what T's constructor throws; then the queue is unchanged.
  timer_handle insert(tick deadline, T value) { return emplace(deadline, std::move(value)); }

  /// Effects: as insert, unless the queue is at its fixed capacity: then the payload is handed back in `rejected`
  /// and nothing changes (backpressure). Throws: what insert throws, for a growable queue.
  try_insert_result<T> try_insert(tick deadline, T value) {
    return base::try_insert_into(*this, deadline, std::move(value));
  }

  /// As insert, constructing the payload in place from `args`.
  template <class... Args>
  timer_handle emplace(tick deadline, Args&&... args) {
    [[maybe_unused]] const auto owned = this->owned();
    const auto [index, node] = this->create_node(deadline, std::forward<Args>(args)...);
    link(index, deadline);
    return base::handle_of(index, node);
  }

  /// Effects: removes a pending timer. Returns: its payload, or nullopt if `handle` is not pending.
  /// Complexity: O(1).
  std::optional<T> cancel(timer_handle handle) {
    [[maybe_unused]] const auto owned = this->owned();
    auto* const node = this->pending_node(handle);
    if (node == nullptr) return std::nullopt;
    return this->cancel_node(handle.index, *node, [this](std::uint32_t index) { unlink(index); });
  }

  /// Effects: moves a pending timer to `deadline`, as a new insertion; the payload stays in place.
  /// Returns: false, changing nothing, if `handle` is not pending. Complexity: O(1).
  bool reschedule(timer_handle handle, tick deadline) noexcept {
    [[maybe_unused]] const auto owned = this->owned();
    if (!this->pending(handle)) return false;
    unlink(handle.index);
    this->m_nodes[handle.index].deadline = deadline;
    link(handle.index, deadline);
    return true;
  }

  /// Returns: the due time of the next timer to fire, or nullopt when empty. Cached until the queue changes.
  /// Complexity: O(Slots / 64 + timers looked at), at most every pending timer.
  [[nodiscard]] std::optional<tick> next_expiration() const noexcept {
    [[maybe_unused]] const auto owned = this->owned();
    if (!m_next_known) {
      m_next = find_next_due();
      m_next_known = true;
    }
    return m_next;
  }

  /// Returns: the timer that fires next (its handle, deadline and payload in place), or nullopt when empty: the one
  /// advance(*next_expiration(), f) would call f on first.
  /// Complexity: next_expiration()'s, plus the timers of its slot.
  [[nodiscard]] std::optional<timer_view<T>> peek() noexcept { return this->view_of(first_index()); }
  /// As peek(), on a const queue: the payload is const.
  [[nodiscard]] std::optional<timer_view<const T>> peek() const noexcept { return this->view_of(first_index()); }

  /// Effects: fires, in order, every timer due at or before `to`, calling on_expire(deadline, T&&) (or
  /// on_expire(T&&)) with now() set to the timer's due time; then now() == to. Same callback and budget rules as
  /// min_heap::advance. Returns: how many timers fired. Requires: not called from a callback.
  template <class F>
  requires expiry_callback<F, T> std::size_t advance(tick to, F&& on_expire, std::size_t budget = SIZE_MAX) {
    [[maybe_unused]] const auto owned = this->owned();
    this->assert_not_in_callback(detail::in_callback_advance);
    if (to < this->m_now) return 0;
    if (to - this->m_now < Slots) return sweep(to, on_expire, budget);
    std::size_t fired = 0;
    for (;;) {
      const std::optional<tick> due = next_expiration();
      if (!due || *due > to) break;
      if (fired == budget) {  // stopped early: now() stays at the last fire time
        m_due_now = true;
        return fired;
      }
      this->m_now = *due;
      m_due_now = true;  // if a callback throws, the rest of this slot stays due at now()
      fired += fire_slot(*due, on_expire, budget - fired);
    }
    this->m_now = to;
    m_due_now = false;
    return fired;
  }

  /// Effects: hands every pending payload to f(deadline, T&&) (or f(T&&)) in fire order and empties the queue;
  /// now() is unchanged. f may not use the queue. If f throws, the timers not yet handed over stay pending.
  template <class F>
  requires expiry_callback<F, T>
  void drain(F&& f) { base::drain_through(*this, f); }

  /// Effects: destroys every pending payload; handles issued before are never pending again. Throws nothing
  /// (unless TIMING_WHEEL_ASSERT is made to throw). Requires: not called from a callback.
  void clear() {
    [[maybe_unused]] const auto owned = this->owned();
    this->assert_not_in_callback(detail::in_callback_clear);
    this->destroy_payloads();
    reset_ring();
    m_next.reset();
    m_next_known = true;
    m_due_now = false;
  }

  /// Effects: makes room for `n` timers, so that inserting up to n allocates nothing.
  void reserve(std::size_t n) {
    [[maybe_unused]] const auto owned = this->owned();
    this->m_nodes.reserve(n);
  }

  /// A testing aid: true when every internal invariant holds (lists well linked and matching the bitmap, every
  /// timer in the slot of its due time and not yet due before now(), the cached next expiration right, counts
  /// adding up). Complexity: O(size() + Slots + capacity()).
  [[nodiscard]] bool check_invariants() const noexcept {
    if (!this->nodes_hold()) return false;
    std::size_t counted = 0;
    std::optional<tick> smallest;
    for (std::size_t slot = 0; slot < Slots; ++slot) {
      const detail::list_head& list = m_slots[slot];
      if (list.empty() == m_occupied.test(slot)) return false;
      std::uint32_t prev = detail::nil;
      for (std::uint32_t i = list.head; i != detail::nil; prev = i, i = this->m_nodes[i].link) {
        const auto& node = this->m_nodes[i];
        if (++counted > this->size() || node.prev != prev || !this->m_nodes.is_live(node.generation)) return false;
        if (slot_of(node.due) != slot || node.due < this->m_now || node.due < node.deadline) return false;
        if (!smallest || node.due < *smallest) smallest = node.due;
      }
      if (list.tail != prev) return false;
    }
    if (m_next_known && m_next != smallest) return false;
    return counted == this->size();
  }

 private:
  [[nodiscard]] static std::size_t slot_of(tick due) noexcept { return static_cast<std::size_t>(due % Slots); }

  // Empties the ring in place: `m_slots = {}` or std::exchange would build a ring-sized temporary on the stack
  // (32 KB at 4,096 slots), more than a coroutine's stack may hold.
  void reset_ring() noexcept {
    m_slots.fill(detail::list_head{});
    m_occupied.clear();
  }

  // The first timer of its slot's list due at next_expiration(): the slot fires its list in order.
  [[nodiscard]] std::uint32_t first_index() const noexcept {
    const std::optional<tick> next = next_expiration();
    if (!next) return detail::nil;
    for (std::uint32_t i = m_slots[slot_of(*next)].head; i != detail::nil; i = this->m_nodes[i].link) {
      if (this->m_nodes[i].due == *next) return i;
    }
    return detail::nil;
  }

  void link(std::uint32_t index, tick deadline) noexcept {
    auto& node = this->m_nodes[index];
    node.due = std::max(deadline, this->m_now);
    const std::size_t slot = slot_of(node.due);
    detail::list_push_back(this->m_nodes, m_slots[slot], index);
    m_occupied.set(slot);
    // A timer appended behind the walk of the slot being fired must still be seen by that walk.
    if (m_cursor == detail::nil && m_walking == slot) m_cursor = index;
    if (node.due == this->m_now) m_due_now = true;
    if (m_next_known && (!m_next || node.due < *m_next)) m_next = node.due;
  }

  void unlink(std::uint32_t index) noexcept {
    auto& node = this->m_nodes[index];
    const std::size_t slot = slot_of(node.due);
    if (m_cursor == index) m_cursor = node.link;
    detail::list_unlink(this->m_nodes, m_slots[slot], index);
    if (m_slots[slot].empty()) m_occupied.reset(slot);
    if (m_next == node.due) m_next_known = false;
  }

  // Takes the list, not its slot number: g++ -O3 folds this body across ring sizes and then misreads an index
  // into the other size's array as out of bounds (-Warray-bounds).
  [[nodiscard]] bool list_holds(const detail::list_head& list, tick due) const noexcept {
    for (std::uint32_t i = list.head; i != detail::nil; i = this->m_nodes[i].link) {
      if (this->m_nodes[i].due == due) return true;
    }
    return false;
  }

  // An advance shorter than a revolution: each occupied slot from now() to `to` is swept once, firing its timers
  // due at that tick in list (insertion) order and looking past the later revolutions' ones. now()'s own slot was
  // swept when now() was reached, unless a timer has been made due at now() since (m_due_now).
  template <class F>
  std::size_t sweep(tick to, F& on_expire, std::size_t budget) {
    const tick start = this->m_now;
    const tick reach = to - start;  // < Slots: no slot is met twice
    const std::size_t first = slot_of(start);
    std::size_t fired = 0;
    tick last_fire = start;
    const auto stop_early = [&](tick from) {
      if (first_due_within(start, from - start, reach)) {  // more is due by `to`: resume from here next time
        this->m_now = last_fire;
        m_due_now = true;
        return true;
      }
      return false;
    };
    if (budget == 0 && stop_early(start)) return 0;
    tick distance = m_due_now ? 0 : 1;
    while (fired < budget && distance <= reach) {
      const std::size_t slot = m_occupied.find_next_wrapping((first + distance) % Slots);
      if (slot == m_occupied.npos) break;
      const tick found = slot >= first ? slot - first : slot + Slots - first;
      if (found < distance || found > reach) break;  // wrapped round, or beyond `to`
      const tick at = start + found;
      this->m_now = at;
      m_due_now = true;  // if a callback throws, the rest of this slot stays due at now()
      const std::size_t n = fire_slot(at, on_expire, budget - fired);
      fired += n;
      if (n > 0) last_fire = at;
      if (fired == budget && stop_early(at)) return fired;
      distance = found + 1;
    }
    this->m_now = to;
    m_due_now = false;
    return fired;
  }

  // The first due time in [origin + from, origin + reach] (reach < Slots), walking the occupied slots round from
  // origin's slot.
  [[nodiscard]] std::optional<tick> first_due_within(tick origin, tick from, tick reach) const noexcept {
    reach = std::min(reach, UINT64_MAX - origin);  // no tick lies past the end of time
    const std::size_t start = slot_of(origin);
    for (std::size_t slot = m_occupied.find_next_wrapping((start + from) % Slots); slot != m_occupied.npos;) {
      const std::size_t distance = slot >= start ? slot - start : slot + Slots - start;
      if (distance < from || distance > reach) break;  // went round, or beyond reach
      if (list_holds(m_slots[slot], origin + distance)) return origin + distance;
      const std::size_t next = m_occupied.find_next_wrapping((slot + 1) % Slots);
      const std::size_t next_distance = next >= start ? next - start : next + Slots - start;
      if (next == m_occupied.npos || next_distance <= distance) break;  // went all the way round
      slot = next;
    }
    return std::nullopt;
  }

  // Looks one revolution ahead slot by occupied slot; if nothing is due within it, every timer is a revolution or
  // more away and the answer is the smallest due time of all.
  [[nodiscard]] std::optional<tick> find_next_due() const noexcept {
    if (this->empty()) return std::nullopt;
    if (const std::optional<tick> due = first_due_within(this->m_now, 0, Slots - 1)) return due;
    tick smallest = UINT64_MAX;
    for (std::size_t slot = m_occupied.find_first(); slot != m_occupied.npos; slot = m_occupied.find_next(slot + 1)) {
      for (std::uint32_t i = m_slots[slot].head; i != detail::nil; i = this->m_nodes[i].link) {
        smallest = std::min(smallest, this->m_nodes[i].due);
      }
    }
    return smallest;
  }

  template <class F>
  std::size_t fire_slot(tick due, F& on_expire, std::size_t budget) {
    const std::size_t slot = slot_of(due);
    struct walk_guard {
      flat_wheel& wheel;
      ~walk_guard() {
        wheel.m_walking = not_walking;
        wheel.m_cursor = detail::nil;
        wheel.m_next_known = false;
      }
    } guard{*this};
    m_walking = slot;
    m_cursor = m_slots[slot].head;
    m_next_known = false;
    std::size_t fired = 0;
    std::size_t looked_at = 0;
    while (m_cursor != detail::nil && fired < budget) {
      const std::uint32_t index = m_cursor;
      m_cursor = this->m_nodes[index].link;
      ++looked_at;
      this->m_instr.inspected();
      if (this->m_nodes[index].due != due) {  // a later revolution's timer
        this->m_instr.looked_empty();
        continue;
      }
      unlink(index);
      ++fired;
      this->fire_node(index, on_expire);
    }
    this->m_instr.slot_processed(looked_at);
    return fired;
  }

  std::array<detail::list_head, Slots> m_slots{};
  detail::bitmap<Slots> m_occupied;
  mutable std::optional<tick> m_next;  // smallest due time pending, valid while m_next_known
  mutable bool m_next_known = true;
  bool m_due_now = false;                // a timer may wait in now()'s slot, due at now()
  std::uint32_t m_cursor = detail::nil;  // next node of the slot being fired
  std::size_t m_walking = not_walking;   // the slot being fired
};

TIMING_WHEEL_NAMESPACE_END
