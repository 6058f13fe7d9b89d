// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

#include <timing_wheel/detail/slab.hpp>
#include <timing_wheel/detail/thread_owner.hpp>
#include <timing_wheel/types.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

TIMING_WHEEL_NAMESPACE_BEGIN
namespace detail {

inline constexpr const char* in_callback_advance =
    "advance() called from inside a timer callback: return from the callback, then advance again";
inline constexpr const char* in_callback_drain = "drain() called from inside a timer callback";
inline constexpr const char* in_callback_clear =
    "clear() called from inside a timer callback: cancel the timers one by one there, or clear after advance returns";

// What every queue does the same way: handles, payload lifetime, the firing protocol, the callback guard.
// Node requirements: those of slab, plus `tick deadline` and `payload_slot<T> payload`. `Instr` is the queue's
// instrumentation policy: an empty one takes no space ([[no_unique_address]]) and its hooks compile to nothing.
template <class T, class Node, class Instr>
class queue_base {
  static_assert(instrumentation_policy<Instr>, "Instr must model timing_wheel::instrumentation_policy");
  static_assert(std::is_object_v<T> && !std::is_const_v<T> && std::is_nothrow_destructible_v<T>,
                "the payload must be a non-const object type with a non-throwing destructor");
  static_assert(std::is_move_constructible_v<T>, "the payload must be move-constructible (cancel returns it)");

 public:
  using value_type = T;

  queue_base(const queue_base&) = delete;
  queue_base& operator=(const queue_base&) = delete;

  /// Returns: the current time. During a callback, the fire time being fired.
  [[nodiscard]] tick now() const noexcept { return m_now; }
  /// Returns: the number of pending timers (a timer whose callback is running is no longer pending).
  [[nodiscard]] std::size_t size() const noexcept { return m_size; }
  [[nodiscard]] bool empty() const noexcept { return m_size == 0; }
  /// Returns: whether `handle` names a timer of this queue that has not fired, been cancelled or been cleared.
  [[nodiscard]] bool pending(timer_handle handle) const noexcept {
    return m_nodes.matches(handle.index, handle.generation);
  }
  /// Returns: the deadline the timer was scheduled with (not rounded), or nullopt if `handle` is not pending.
  [[nodiscard]] std::optional<tick> expiry(timer_handle handle) const noexcept {
    if (!pending(handle)) return std::nullopt;
    return m_nodes[handle.index].deadline;
  }
  /// Returns: the payload in place, or nullptr if `handle` is not pending. Valid until the timer fires or is
  /// cancelled.
  [[nodiscard]] T* get(timer_handle handle) noexcept {
    if (!pending(handle)) return nullptr;
    return std::addressof(m_nodes[handle.index].payload.value);
  }
  [[nodiscard]] const T* get(timer_handle handle) const noexcept {
    if (!pending(handle)) return nullptr;
    return std::addressof(m_nodes[handle.index].payload.value);
  }
  /// Effects: calls f(handle, deadline, payload) for every pending timer, in unspecified order (not fire order),
  /// the payload as T& (const T& on a const queue). Requires: f does not insert, cancel, reschedule or advance.
  /// Complexity: O(capacity()).
  template <class F>
  void for_each(F&& f) {
    visit_live(*this, f);
  }
  template <class F>
  void for_each(F&& f) const {
    visit_live(*this, f);
  }

  /// Returns: how many timers the queue holds without allocating.
  [[nodiscard]] std::size_t capacity() const noexcept { return m_nodes.capacity(); }
  /// Returns: the most timers the queue can hold: its fixed capacity, or the index space (2^32 - 1) when growable.
  [[nodiscard]] std::size_t max_size() const noexcept { return m_nodes.limit(); }
  /// Returns: whether a fixed-capacity queue holds as many timers as it may (a growable queue is never full).
  [[nodiscard]] bool full() const noexcept { return m_nodes.full(); }

  /// Returns: the instrumentation policy object, with whatever it counted.
  [[nodiscard]] const Instr& instrumentation() const noexcept { return m_instr; }
  [[nodiscard]] Instr& instrumentation() noexcept { return m_instr; }

  /// Test-only: ages a pending timer's slot so that the next reuses reach the generation wrap-around.
  void set_generation_for_testing(timer_handle handle, std::uint32_t generation) noexcept {
    TIMING_WHEEL_ASSERT(pending(handle) && slab<Node>::is_live(generation),
                        "set_generation_for_testing() needs a pending timer and an odd generation");
    m_nodes.set_generation_for_testing(handle.index, generation);
  }

 protected:
  explicit queue_base(tick start) noexcept : m_now(start) {}
  queue_base(queue_base&& other) noexcept
      : m_nodes(std::move(other.m_nodes)),
        m_size(std::exchange(other.m_size, 0)),
        m_now(other.m_now),
        m_instr(std::move(other.m_instr)) {}
  queue_base& operator=(queue_base&& other) noexcept {
    if (this != &other) {
      destroy_payloads();
      m_nodes = std::move(other.m_nodes);
      m_size = std::exchange(other.m_size, 0);
      m_now = other.m_now;
      m_instr = std::move(other.m_instr);
    }
    return *this;
  }
  // (A payload that needs no destructor leaves nothing to visit: the storage goes at once, not node by node.)
  ~queue_base() {
    if constexpr (!std::is_trivially_destructible_v<T>) destroy_payloads();
  }

  [[nodiscard]] static timer_handle handle_of(std::uint32_t index, const Node& node) noexcept {
    return timer_handle{index, node.generation};
  }

  // peek() for every queue: the view of node `index` (nil: nothing pending).
  [[nodiscard]] std::optional<timer_view<T>> view_of(std::uint32_t index) noexcept {
    if (index == nil) return std::nullopt;
    Node& node = m_nodes[index];
    return timer_view<T>{handle_of(index, node), node.deadline, std::addressof(node.payload.value)};
  }
  [[nodiscard]] std::optional<timer_view<const T>> view_of(std::uint32_t index) const noexcept {
    if (index == nil) return std::nullopt;
    const Node& node = m_nodes[index];
    return timer_view<const T>{handle_of(index, node), node.deadline, std::addressof(node.payload.value)};
  }

  /// A live node holding the payload. Strong guarantee: if allocation or the payload's constructor throws, the
  /// queue is unchanged. The caller links it and counts it.
  template <class... Args>
  [[nodiscard]] typename slab<Node>::acquired create_node(tick deadline, Args&&... args) {
    const auto created = m_nodes.acquire();
    Node& node = created.node;
#if TIMING_WHEEL_HAS_EXCEPTIONS
    try {
      ::new (static_cast<void*>(std::addressof(node.payload.value))) T(std::forward<Args>(args)...);
    } catch (...) {
      slab<Node>::retire(node);
      m_nodes.release(created.index, node);
      throw;
    }
#else
    ::new (static_cast<void*>(std::addressof(node.payload.value))) T(std::forward<Args>(args)...);
#endif
    node.deadline = deadline;
    ++m_size;
    m_instr.inserted();
    return created;
  }

  /// The node a pending handle names, or nullptr when it is not pending (found once: each lookup costs a few
  /// instructions).
  [[nodiscard]] Node* pending_node(timer_handle handle) noexcept {
    return m_nodes.find(handle.index, handle.generation);
  }

  /// Cancels a linked node (`node`, which `index` names): moves its payload out (if that throws, nothing changed),
  /// then `unlink(index)`, then frees the node.
  template <class Unlink>
  [[nodiscard]] std::optional<T> cancel_node(std::uint32_t index, Node& node, Unlink&& unlink) {
    std::optional<T> value(std::in_place, std::move(node.payload.value));
    unlink(index);
    free_node(index, node);
    m_instr.cancelled();
    return value;
  }

  /// Fires an unlinked node: the timer stops being pending, then the callback runs on the payload in place, then
  /// the node is freed, whether the callback returns or throws.
  template <class F>
  void fire_node(std::uint32_t index, F& on_expire) {
    fire_node(index, m_nodes[index], on_expire);
  }
  /// As fire_node(index, f), given the node `index` names.
  template <class F>
  void fire_node(std::uint32_t index, Node& node, F& on_expire) {  // nodes never move, even if the slab grows
    slab<Node>::retire(node);
    --m_size;
    m_instr.fired();
    struct release_on_exit {
      queue_base& queue;
      std::uint32_t index;
      Node& node;
      ~release_on_exit() {
        std::destroy_at(std::addressof(node.payload.value));
        queue.m_nodes.release(index, node);
        queue.m_in_callback = false;
      }
    } guard{*this, index, node};
    m_in_callback = true;
    invoke_expiry<T>(on_expire, node.deadline, std::move(node.payload.value));
  }

  /// Destroys every pending payload and frees its node; the caller resets its own structure.
  void destroy_payloads() noexcept {
    if (m_size != 0) m_nodes.for_each_live([this](std::uint32_t index) { free_node(index); });  // a scan of every node
    m_size = 0;
  }

  // try_insert() for every queue: a full fixed-capacity queue hands the payload back and changes nothing.
  template <class Queue>
  static try_insert_result<T> try_insert_into(Queue& queue, tick deadline, T&& value) {
    if (queue.m_nodes.full()) return {timer_handle{}, std::optional<T>(std::move(value))};
    return {queue.insert(deadline, std::move(value)), std::nullopt};
  }

  // drain() for every queue: advance to the end of time handing each payload to f(deadline, T&&) or f(T&&), then
  // put now() back (the queue is empty, so any now() is consistent).
  template <class Queue, class F>
  static void drain_through(Queue& queue, F& f) {
    queue.assert_not_in_callback(in_callback_drain);
    const tick start = queue.m_now;
    queue.advance(UINT64_MAX, f);
    queue.m_now = start;
  }

  // for_each() on a mutable or const queue: the payload comes as T& or const T&.
  template <class Self, class F>
  static void visit_live(Self& self, F& f) {
    self.m_nodes.for_each_live([&](std::uint32_t index) {
      auto& node = self.m_nodes[index];
      std::invoke(f, handle_of(index, node), node.deadline, node.payload.value);
    });
  }

  // check_invariants() for the slab, from inside a callback too (its node is retired but not yet released).
  [[nodiscard]] bool nodes_hold() const noexcept { return m_nodes.check_invariants(m_in_callback ? 1 : 0); }

  // Held for the length of each public member that reads or changes the queue: a debug build stops when a second
  // thread enters meanwhile.
  [[nodiscard]] thread_owner::scope owned() const noexcept { return m_owner.enter(); }

  // advance, drain and clear may not run inside a callback: the queue is between two timers of one advance.
  void assert_not_in_callback([[maybe_unused]] const char* message) const {
    TIMING_WHEEL_ASSERT(!m_in_callback, message);
  }

  slab<Node> m_nodes;
  std::size_t m_size = 0;
  tick m_now;
  bool m_in_callback = false;
  [[no_unique_address]] Instr m_instr;
  [[no_unique_address]] thread_owner m_owner;

 private:
  void free_node(std::uint32_t index) noexcept { free_node(index, m_nodes[index]); }
  void free_node(std::uint32_t index, Node& node) noexcept {
    std::destroy_at(std::addressof(node.payload.value));
    slab<Node>::retire(node);
    m_nodes.release(index, node);
    --m_size;
  }
};

}  // namespace detail
TIMING_WHEEL_NAMESPACE_END
