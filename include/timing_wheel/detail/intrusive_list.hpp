// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

#include <timing_wheel/detail/slab.hpp>

#include <cstdint>

TIMING_WHEEL_NAMESPACE_BEGIN
namespace detail {

// A doubly linked list threaded through slab nodes by index (node members `link` = next and `prev`). Appending
// keeps insertion order, which is how the wheels keep equal deadlines first-in, first-out.
struct list_head {
  std::uint32_t head = nil;
  std::uint32_t tail = nil;

  [[nodiscard]] bool empty() const noexcept { return head == nil; }
};

// `node` is nodes[index], which the caller already holds.
template <class Slab, class Node>
void list_push_back(Slab& nodes, list_head& list, std::uint32_t index, Node& node) noexcept {
  node.link = nil;
  node.prev = list.tail;
  if (list.tail != nil) {
    nodes[list.tail].link = index;
  } else {
    list.head = index;
  }
  list.tail = index;
}

template <class Slab>
void list_push_back(Slab& nodes, list_head& list, std::uint32_t index) noexcept {
  list_push_back(nodes, list, index, nodes[index]);
}

template <class Slab>
void list_unlink(Slab& nodes, list_head& list, std::uint32_t index) noexcept {
  const auto& node = nodes[index];
  if (node.prev != nil) {
    nodes[node.prev].link = node.link;
  } else {
    list.head = node.link;
  }
  if (node.link != nil) {
    nodes[node.link].prev = node.prev;
  } else {
    list.tail = node.prev;
  }
}

}  // namespace detail
TIMING_WHEEL_NAMESPACE_END
