// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

#include <timing_wheel/detail/indexed_heap.hpp>
#include <timing_wheel/detail/queue_base.hpp>
#include <timing_wheel/timer_queue.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

TIMING_WHEEL_NAMESPACE_BEGIN
namespace detail {
template <class T>
struct heap_node {
  tick deadline = 0;
  std::uint32_t link = nil;  // position in the heap while pending; free-list link while free
  std::uint32_t generation = 0;
  payload_slot<T> payload;
};
}  // namespace detail

/// An indexed 4-ary min-heap of timers: the baseline every wheel is measured and cross-checked against.
///
/// Order: timers fire in non-decreasing due time (due = max(deadline, now() at insertion)); equal due times fire in
/// insertion order, a reschedule counting as a new insertion. Lateness: none, each timer fires in the advance() whose
/// range holds its due time. Costs: insert, cancel and reschedule O(log n); next_expiration O(1); advance
/// O((fired + 1) log n) however far it jumps. Single-threaded: one queue belongs to one thread. `Instr`: an
/// instrumentation policy (instrumentation.hpp); the default counts nothing and costs nothing.
///
///     timing_wheel::min_heap<int> timers;            // now() == 0
///     auto h = timers.insert(30, 7);                 // due at tick 30
///     timers.insert(10, 8);
///     timers.cancel(h);                              // returns 7
///     timers.advance(100, [](timing_wheel::tick deadline, int&& id) { /* deadline 10, id 8 */ });
template <class T, class Instr = no_instrumentation>
class min_heap : public detail::queue_base<T, detail::heap_node<T>, Instr> {
  using base = detail::queue_base<T, detail::heap_node<T>, Instr>;

 public:
  using value_type = T;  ///< the payload

  /// Effects: an empty queue whose now() is `start`.
  explicit min_heap(tick start = 0) noexcept : base(start) {}
  /// Effects: an empty queue whose now() is `start`, holding at most `capacity.timers` timers; all its storage is
  /// allocated here, and nothing after. Throws: bad_alloc.
  explicit min_heap(fixed_capacity capacity, tick start = 0) : base(start) {
    this->m_nodes.fix_capacity(capacity.timers);
    m_heap.reserve(capacity.timers);
    m_position.assign(capacity.timers, 0);
  }
  /// Effects: takes over `other`'s timers (their handles stay valid here); `other` is empty and usable.
  min_heap(min_heap&&) noexcept = default;
  /// Effects: destroys this queue's payloads, then takes over `other`'s timers; `other` is empty and usable.
  min_heap& operator=(min_heap&&) noexcept = default;
  ~min_heap() = default;

  /// Effects: schedules `value` for `deadline` (a past deadline is due at now()). Returns: its handle.
  /// Complexity: O(log n). Throws: bad_alloc, or what T's constructor throws; then the queue is unchanged.
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
    m_heap.make_room();
    // The next node is a free one or the slab's next unused one: its position slot must exist before it does.
    if (this->m_nodes.next_is_new() && m_position.size() <= this->m_nodes.used()) grow_positions();
    const auto [index, node] = this->create_node(deadline, std::forward<Args>(args)...);
    m_heap.push(due(deadline), index, on_move(), this->m_instr);
    return base::handle_of(index, node);
  }

  /// Effects: removes a pending timer. Returns: its payload, or nullopt if `handle` is not pending (fired,
  /// cancelled, cleared, default-constructed or stale). Complexity: O(log n).
  std::optional<T> cancel(timer_handle handle) {
    [[maybe_unused]] const auto owned = this->owned();
    auto* const node = this->pending_node(handle);
    if (node == nullptr) return std::nullopt;
    return this->cancel_node(handle.index, *node, [this](std::uint32_t index) {
      m_heap.erase(m_position[index], on_move(), this->m_instr);
    });
  }

  /// Effects: moves a pending timer to `deadline`, as a new insertion (it fires after timers already due at the
  /// same time). The payload stays in place. Returns: false, changing nothing, if `handle` is not pending.
  /// Complexity: O(log n).
  bool reschedule(timer_handle handle, tick deadline) noexcept {
    [[maybe_unused]] const auto owned = this->owned();
    if (!this->pending(handle)) return false;
    this->m_nodes[handle.index].deadline = deadline;
    m_heap.rekey(m_position[handle.index], due(deadline), on_move(), this->m_instr);
    return true;
  }

  /// Returns: the due time of the next timer to fire, or nullopt when empty. Complexity: O(1).
  [[nodiscard]] std::optional<tick> next_expiration() const noexcept {
    [[maybe_unused]] const auto owned = this->owned();
    if (m_heap.empty()) return std::nullopt;
    return m_heap.top().key;
  }

  /// Returns: the timer that fires next (its handle, deadline and payload in place), or nullopt when empty: the one
  /// advance(*next_expiration(), f) would call f on first. Complexity: O(1).
  [[nodiscard]] std::optional<timer_view<T>> peek() noexcept { return this->view_of(first_index()); }
  /// As peek(), on a const queue: the payload is const.
  [[nodiscard]] std::optional<timer_view<const T>> peek() const noexcept { return this->view_of(first_index()); }

  /// Effects: fires, in order, every timer due at or before `to`, calling on_expire(deadline, T&&) (or
  /// on_expire(T&&)) with now() set to the timer's due time; then now() == to. The callback may insert, cancel and
  /// reschedule; timers so scheduled at or before `to` fire in this call. A `to` before now() fires nothing and changes
  /// nothing. If on_expire throws, its timer counts as fired, now() stays at its due time, the exception propagates and
  /// every timer not yet fired stays pending. Returns: how many timers fired.
  /// With a `budget`, at most that many timers fire (as ratas' advance(delta, max_execute)): if it stops early,
  /// now() is the fire time of the last timer fired, next_expiration() <= to says more is due, and the next call
  /// continues in the same order. Requires: not called from a callback. Complexity: O((fired + 1) log n).
  template <class F>
  requires expiry_callback<F, T> std::size_t advance(tick to, F&& on_expire, std::size_t budget = SIZE_MAX) {
    [[maybe_unused]] const auto owned = this->owned();
    this->assert_not_in_callback(detail::in_callback_advance);
    if (to < this->m_now) return 0;
    std::size_t fired = 0;
    while (!m_heap.empty() && m_heap.top().key <= to) {
      if (fired == budget) return fired;  // stopped early: now() stays at the last fire time
      const detail::heap_entry top = m_heap.top();
      m_heap.pop(on_move(), this->m_instr);
      this->m_now = top.key;
      ++fired;
      this->fire_node(top.node, on_expire);
    }
    this->m_now = to;
    return fired;
  }

  /// Test-only: the sequence number (it orders equal due times) the next insert or reschedule takes, to reach the
  /// renumbering at 2^32 - 1 without that many operations.
  void set_sequence_for_testing(std::uint32_t seq) noexcept { m_heap.set_sequence_for_testing(seq); }

  /// Effects: hands every pending payload to f(deadline, T&&) (or f(T&&)) in fire order and empties the queue;
  /// now() is unchanged. f may not use the queue. If f throws, the timers not yet handed over stay pending and
  /// now() is the due time of the one whose handover threw.
  template <class F>
  requires expiry_callback<F, T>
  void drain(F&& f) { base::drain_through(*this, f); }

  /// Effects: destroys every pending payload; handles issued before are never pending again. Throws nothing
  /// (unless TIMING_WHEEL_ASSERT is made to throw). Requires: not called from a callback.
  void clear() {
    [[maybe_unused]] const auto owned = this->owned();
    this->assert_not_in_callback(detail::in_callback_clear);
    this->destroy_payloads();
    m_heap.clear();
  }

  /// Effects: makes room for `n` timers, so that inserting up to n allocates nothing.
  void reserve(std::size_t n) {
    [[maybe_unused]] const auto owned = this->owned();
    this->m_nodes.reserve(n);
    m_heap.reserve(n);
    m_position.reserve(n);
  }

  /// A testing aid: true when every internal invariant holds (heap order, positions recorded for the nodes, only live
  /// nodes in the heap, counts adding up). Complexity: O(size() + capacity()).
  [[nodiscard]] bool check_invariants() const noexcept {
    if (m_heap.size() != this->size() || !this->nodes_hold()) return false;
    for (std::size_t position = 0; position < m_heap.size(); ++position) {
      const detail::heap_entry& entry = m_heap.at(position);
      const auto& node = this->m_nodes[entry.node];
      if (!this->m_nodes.is_live(node.generation) || m_position[entry.node] != position) return false;
      if (entry.key < this->m_now || entry.key < node.deadline) return false;
      if (position > 0 &&
          detail::indexed_heap::before(entry, m_heap.at((position - 1) / detail::indexed_heap::arity))) {
        return false;
      }
    }
    return true;
  }

 private:
  [[nodiscard]] tick due(tick deadline) const noexcept { return deadline > this->m_now ? deadline : this->m_now; }

  [[nodiscard]] auto on_move() noexcept {
    return
        [this](std::uint32_t index, std::size_t position) { m_position[index] = static_cast<std::uint32_t>(position); };
  }

  [[nodiscard]] std::uint32_t first_index() const noexcept { return m_heap.empty() ? detail::nil : m_heap.top().node; }

  [[gnu::cold, gnu::noinline]] void grow_positions() {
    m_position.insert(m_position.end(), std::size_t{this->m_nodes.used()} + 1 - m_position.size(), 0);
  }

  detail::indexed_heap m_heap;
  // Each node's entry position, by node index: a sift updates it for every entry it moves, and a flat array costs
  // one store where the slab's node lookup costs several instructions.
  std::vector<std::uint32_t> m_position;
};

TIMING_WHEEL_NAMESPACE_END
