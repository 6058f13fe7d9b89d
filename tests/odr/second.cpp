#include <timing_wheel/timing_wheel.hpp>

#include <cstddef>

std::size_t fire_in_second_unit() {
  timing_wheel::hierarchical_wheel<int> wheel;
  timing_wheel::min_heap<int> heap;
  timing_wheel::flat_wheel<int> flat;
  for (int i = 0; i < 100; ++i) {
    wheel.insert(static_cast<timing_wheel::tick>(i * 89), i);
    heap.insert(static_cast<timing_wheel::tick>(i * 89), i);
    flat.insert(static_cast<timing_wheel::tick>(i * 89), i);
  }
  const auto ignore = [](timing_wheel::tick, int&&) {};
  return wheel.advance(100000, ignore) + heap.advance(100000, ignore) + flat.advance(100000, ignore);
}
