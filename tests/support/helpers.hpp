// Small helpers shared by the behaviour tests.
#pragma once

#include <timing_wheel/timer_queue.hpp>

#include <cstddef>
#include <utility>
#include <vector>

namespace timing_wheel_test {

// One firing as the callback saw it.
template <class T>
struct firing {
  timing_wheel::tick deadline;
  T value;
  timing_wheel::tick now;
  friend bool operator==(const firing&, const firing&) = default;
};

// Advances to `to` and returns what fired, in order.
template <class Q>
std::vector<firing<typename Q::value_type>> advance_collect(Q& q, timing_wheel::tick to) {
  std::vector<firing<typename Q::value_type>> fired;
  const std::size_t count = q.advance(to, [&](timing_wheel::tick deadline, typename Q::value_type&& value) {
    fired.push_back({deadline, std::move(value), q.now()});
  });
  if (count != fired.size()) fired.clear();  // a wrong count shows up as a wrong sequence
  return fired;
}

// The values of a firing sequence.
template <class T>
std::vector<T> values(const std::vector<firing<T>>& fired) {
  std::vector<T> out;
  for (const auto& f : fired) out.push_back(f.value);
  return out;
}

}  // namespace timing_wheel_test
