// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

#include <timing_wheel/detail/config.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>

TIMING_WHEEL_NAMESPACE_BEGIN
namespace detail {

inline constexpr std::uint32_t nil = UINT32_MAX;

// Storage for a payload whose lifetime the node's owner manages by hand: a node exists before and after its payload.
template <class T>
union payload_slot {
  // Not "= default": with a non-trivial T that would delete them, and the slot must exist without a T in it.
  payload_slot() noexcept {}  // NOLINT(modernize-use-equals-default)
  ~payload_slot() {}          // NOLINT(modernize-use-equals-default)
  payload_slot(const payload_slot&) = delete;
  payload_slot& operator=(const payload_slot&) = delete;
  T value;
};

// Nodes addressed by a 32-bit index, stored in chunks of 2^chunk_bits nodes that never move (a callback may hold a
// payload while the slab grows): node i is entry i % 2^chunk_bits of chunk i / 2^chunk_bits, found through a table
// of chunk addresses, so a lookup is a shift, a load and a mask. Storage comes in blocks that double the capacity,
// each cut into chunks; only the table moves when it grows.
//
// Node requirements: default-constructible, trivially destructible apart from its payload_slot, with members
// `std::uint32_t generation` and `std::uint32_t link` (the free-list link while free).
//
// Generations: a free node's generation is even, a live one's odd. acquire() and retire() each add one, so a handle
// (index, odd generation) stops matching the moment its timer is retired, and a default handle (generation 0) never
// matches. In a growable slab a node whose generation wraps to 0 is parked for good, so no stale handle can ever
// match a later timer. A fixed-capacity slab may not shrink: it reuses nodes first-in first-out, so one node's
// generation wraps only after 2^31 * capacity reuses of the whole slab, and then starts again at 1.
template <class Node>
class slab {
  static constexpr unsigned chunk_bits = 8;
  static constexpr std::size_t chunk_size = std::size_t{1} << chunk_bits;
  static constexpr std::size_t max_blocks = 40;  // doubling from one chunk reaches 2^32 nodes in 25 blocks

 public:
  static constexpr std::size_t max_nodes = nil;  // index nil means "no node"

  slab() noexcept = default;
  slab(const slab&) = delete;
  slab& operator=(const slab&) = delete;
  slab(slab&& other) noexcept
      : m_table(std::exchange(other.m_table, nullptr)),
        m_blocks(std::exchange(other.m_blocks, {})),
        m_block_count(std::exchange(other.m_block_count, 0)),
        m_table_size(std::exchange(other.m_table_size, 0)),
        m_capacity(std::exchange(other.m_capacity, 0)),
        m_used(std::exchange(other.m_used, 0)),
        m_free_head(std::exchange(other.m_free_head, nil)),
        m_free_tail(std::exchange(other.m_free_tail, nil)),
        m_limit(std::exchange(other.m_limit, max_nodes)) {}
  slab& operator=(slab&& other) noexcept {
    if (this != &other) {
      release_storage();
      m_table = std::exchange(other.m_table, nullptr);
      m_blocks = std::exchange(other.m_blocks, {});
      m_block_count = std::exchange(other.m_block_count, 0);
      m_table_size = std::exchange(other.m_table_size, 0);
      m_capacity = std::exchange(other.m_capacity, 0);
      m_used = std::exchange(other.m_used, 0);
      m_free_head = std::exchange(other.m_free_head, nil);
      m_free_tail = std::exchange(other.m_free_tail, nil);
      m_limit = std::exchange(other.m_limit, max_nodes);
    }
    return *this;
  }
  ~slab() { release_storage(); }

  TIMING_WHEEL_HOT [[nodiscard]] Node& operator[](std::uint32_t index) noexcept {
    return m_table[index >> chunk_bits][index & (chunk_size - 1)];
  }
  TIMING_WHEEL_HOT [[nodiscard]] const Node& operator[](std::uint32_t index) const noexcept {
    return m_table[index >> chunk_bits][index & (chunk_size - 1)];
  }

  /// Nodes ever handed out (free or live); every index below it names a constructed node.
  [[nodiscard]] std::uint32_t used() const noexcept { return m_used; }
  [[nodiscard]] std::size_t capacity() const noexcept { return std::min<std::size_t>(m_capacity, max_nodes); }
  [[nodiscard]] static bool is_live(std::uint32_t generation) noexcept { return (generation & 1U) != 0; }

  /// True when `index` names a node whose generation is `generation` and that node is live.
  [[nodiscard]] bool matches(std::uint32_t index, std::uint32_t generation) const noexcept {
    return index < m_used && is_live(generation) && (*this)[index].generation == generation;
  }
  /// The node matches() finds, or nullptr.
  [[nodiscard]] Node* find(std::uint32_t index, std::uint32_t generation) noexcept {
    if (index >= m_used || !is_live(generation)) return nullptr;
    Node& node = (*this)[index];
    return node.generation == generation ? &node : nullptr;
  }

  /// Allocates storage for `nodes` now and never more: the slab becomes fixed-capacity.
  void fix_capacity(std::size_t nodes) {
    reserve(nodes);
    m_limit = nodes;
  }
  [[nodiscard]] bool fixed() const noexcept { return m_limit != max_nodes; }
  [[nodiscard]] std::size_t limit() const noexcept { return m_limit; }
  /// True when acquire() would hand out a node never used before (index used()) rather than a free one.
  [[nodiscard]] bool next_is_new() const noexcept { return m_free_head == nil; }
  /// True when acquire() would have to grow past a fixed capacity.
  [[nodiscard]] bool full() const noexcept { return m_free_head == nil && m_used >= m_limit; }

  /// A node acquire() handed out: its index, and the node (found once: each lookup costs a few instructions).
  struct acquired {
    std::uint32_t index;
    Node& node;
  };

  /// Returns a live node (odd generation). Strong guarantee: throws bad_alloc and changes nothing when storage,
  /// index space or a fixed capacity runs out.
  [[nodiscard]] acquired acquire() {
    const std::uint32_t index = m_free_head;
    if (index == nil) return acquire_new();
    Node& node = (*this)[index];
    m_free_head = node.link;
    ++node.generation;
    return {index, node};
  }

  /// The node's timer is no longer pending: every handle to it goes stale. Its payload may still be in use.
  static void retire(Node& node) noexcept { ++node.generation; }

  /// Returns a retired node (`node`, which `index` names) to the free list: at the front in a growable slab (the
  /// hottest node is reused first), unless its generation wrapped (then it is parked for good); at the back in a
  /// fixed one.
  void release(std::uint32_t index, Node& node) noexcept {
    if (fixed()) {
      node.link = nil;
      if (m_free_head != nil) {
        (*this)[m_free_tail].link = index;
      } else {
        m_free_head = index;
      }
      m_free_tail = index;
      return;
    }
    if (node.generation == 0) return;
    node.link = m_free_head;
    m_free_head = index;
  }

  void reserve(std::size_t nodes) {
    nodes = std::min(nodes, m_limit);
    if (nodes > m_capacity) grow(nodes);
  }

  /// Calls f(index) for every live node, in index order.
  template <class F>
  void for_each_live(F&& f) const {
    for (std::uint32_t i = 0; i < m_used; ++i) {
      if (is_live((*this)[i].generation)) f(i);
    }
  }

  /// A testing aid: the free list holds only free nodes, each once, and every node is live, free or parked.
  // `firing`: how many nodes are retired but not yet released (a callback is running on their payload).
  [[nodiscard]] bool check_invariants(std::size_t firing = 0) const noexcept {
    std::size_t free = 0;
    for (std::uint32_t i = m_free_head; i != nil; i = (*this)[i].link) {
      if (i >= m_used || ++free > m_used || is_live((*this)[i].generation)) return false;
    }
    std::size_t accounted = free;
    for (std::uint32_t i = 0; i < m_used; ++i) {
      const std::uint32_t generation = (*this)[i].generation;
      if (is_live(generation) || (generation == 0 && !fixed() && !on_free_list(i))) ++accounted;  // live or parked
    }
    return accounted + firing == m_used;
  }

  [[nodiscard]] bool on_free_list(std::uint32_t index) const noexcept {
    std::size_t steps = 0;
    for (std::uint32_t i = m_free_head; i != nil && steps++ <= m_used; i = (*this)[i].link) {
      if (i == index) return true;
    }
    return false;
  }

  /// Test-only: sets a node's generation, to reach the wrap-around without 2^31 reuses.
  void set_generation_for_testing(std::uint32_t index, std::uint32_t generation) noexcept {
    (*this)[index].generation = generation;
  }

 private:
  // One more block, of at least `nodes - capacity` nodes and at least the capacity so far (so growing one node at
  // a time is amortised O(1)), in whole chunks. Strong guarantee: throws bad_alloc and changes nothing.
  [[gnu::cold]] void grow(std::size_t nodes) {
    if (nodes > max_nodes || m_block_count == max_blocks) throw_bad_alloc();
    std::size_t size = std::max(nodes - m_capacity, m_capacity);
    size = (size + chunk_size - 1) / chunk_size * chunk_size;
    const std::size_t chunks = size / chunk_size;
    const std::size_t table_size = m_capacity / chunk_size + chunks;
    Node** table = m_table;
    if (table_size > m_table_size) {
      const std::size_t grown = std::max(table_size, 2 * m_table_size);
      table = static_cast<Node**>(::operator new(grown * sizeof(Node*), std::nothrow));
      if (table == nullptr) throw_bad_alloc();
      if (m_table != nullptr) std::copy(m_table, m_table + m_capacity / chunk_size, table);
    }
    void* memory = ::operator new (size * sizeof(Node), std::align_val_t{alignof(Node)}, std::nothrow);
    if (memory == nullptr) {
      if (table != m_table) ::operator delete(table);
      throw_bad_alloc();
    }
    auto* block = static_cast<Node*>(memory);
    for (std::size_t k = 0; k < chunks; ++k) table[m_capacity / chunk_size + k] = block + k * chunk_size;
    if (table != m_table) {
      ::operator delete(m_table);
      m_table = table;
      m_table_size = std::max(table_size, 2 * m_table_size);
    }
    m_blocks[m_block_count++] = block;
    m_capacity += size;
  }

  // acquire() when no node is free: the slab's next unused one.
  [[nodiscard]] acquired acquire_new() {
    if (m_used >= m_limit) throw_bad_alloc();
    if (m_used == m_capacity) grow(std::size_t{m_used} + 1);
    const std::uint32_t index = m_used;
    Node& node = *::new (static_cast<void*>(&(*this)[index])) Node();
    ++m_used;
    ++node.generation;
    return {index, node};
  }

  void release_storage() noexcept {
    for (std::size_t k = 0; k < m_block_count; ++k) {
      ::operator delete (m_blocks[k], std::align_val_t{alignof(Node)});
    }
    ::operator delete(m_table);
    m_table = nullptr;
    m_blocks = {};
    m_block_count = 0;
    m_table_size = 0;
    m_capacity = 0;
    m_used = 0;
    m_free_head = nil;
    m_free_tail = nil;
  }

  Node** m_table = nullptr;                  // chunk k of the nodes starts at m_table[k]
  std::array<Node*, max_blocks> m_blocks{};  // the allocations the chunks were cut from
  std::size_t m_block_count = 0;
  std::size_t m_table_size = 0;  // entries m_table has room for
  std::size_t m_capacity = 0;    // nodes allocated (a multiple of chunk_size)
  std::uint32_t m_used = 0;
  std::uint32_t m_free_head = nil;
  std::uint32_t m_free_tail = nil;  // a fixed slab's last free node (FIFO reuse); valid while m_free_head is not nil
  std::size_t m_limit = max_nodes;
};

}  // namespace detail
TIMING_WHEEL_NAMESPACE_END
