// A timer queue too simple to be wrong: the oracle the real queues are checked against.
#pragma once

#include <timing_wheel/timer_queue.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

namespace timing_wheel_test {
using timing_wheel::tick;
using timing_wheel::timer_handle;

// Pending timers in a std::set ordered by (due, insertion number); a handle's index is the insertion number,
// never reused.
template <class T>
class model_queue {
  struct timer {
    tick deadline;
    tick due;
    std::uint64_t seq;
    T value;
  };

 public:
  using value_type = T;

  explicit model_queue(tick start = 0) : m_now(start) {}

  timer_handle insert(tick deadline, T value) {
    const auto id = static_cast<std::uint32_t>(m_timers.size() + m_retired);
    const tick due = std::max(deadline, m_now);
    m_timers.emplace(id, timer{deadline, due, m_seq, std::move(value)});
    m_order.emplace(due, m_seq++, id);
    return {id, 1};
  }
  std::optional<T> cancel(timer_handle h) {
    auto it = find(h);
    if (it == m_timers.end()) return std::nullopt;
    std::optional<T> value(std::move(it->second.value));
    m_order.erase({it->second.due, it->second.seq, h.index});
    m_timers.erase(it);
    ++m_retired;
    return value;
  }
  bool reschedule(timer_handle h, tick deadline) {
    auto it = find(h);
    if (it == m_timers.end()) return false;
    m_order.erase({it->second.due, it->second.seq, h.index});
    it->second.deadline = deadline;
    it->second.due = std::max(deadline, m_now);
    it->second.seq = m_seq++;
    m_order.emplace(it->second.due, it->second.seq, h.index);
    return true;
  }
  [[nodiscard]] bool pending(timer_handle h) const { return find(h) != m_timers.end(); }
  [[nodiscard]] std::optional<tick> expiry(timer_handle h) const {
    auto it = find(h);
    if (it == m_timers.end()) return std::nullopt;
    return it->second.deadline;
  }
  [[nodiscard]] T* get(timer_handle h) {
    auto it = find(h);
    return it == m_timers.end() ? nullptr : &it->second.value;
  }
  [[nodiscard]] std::optional<tick> next_expiration() const {
    if (m_order.empty()) return std::nullopt;
    return std::get<0>(*m_order.begin());
  }
  template <class F>
  std::size_t advance(tick to, F&& on_expire, std::size_t budget = SIZE_MAX) {
    if (to < m_now) return 0;
    std::size_t fired = 0;
    while (!m_order.empty() && std::get<0>(*m_order.begin()) <= to) {
      if (fired == budget) return fired;
      const auto [due, seq, id] = *m_order.begin();
      m_order.erase(m_order.begin());
      auto node = m_timers.extract(id);
      ++m_retired;
      m_now = due;
      ++fired;
      on_expire(node.mapped().deadline, std::move(node.mapped().value));
    }
    m_now = to;
    return fired;
  }
  template <class F>
  void drain(F&& f) {
    const tick start = m_now;
    advance(UINT64_MAX, [&f](tick deadline, T&& value) { f(deadline, std::move(value)); });
    m_now = start;
  }
  [[nodiscard]] tick now() const { return m_now; }
  [[nodiscard]] std::size_t size() const { return m_timers.size(); }
  [[nodiscard]] bool empty() const { return m_timers.empty(); }
  void clear() {
    m_retired += m_timers.size();
    m_timers.clear();
    m_order.clear();
  }
  void reserve(std::size_t) {}

  // The two indexes agree: each pending timer is in the order once, under its own due time (never before its
  // deadline) and a number already given out; nothing else is in the order.
  [[nodiscard]] bool check_invariants() const {
    if (m_order.size() != m_timers.size()) return false;
    return std::all_of(m_timers.begin(), m_timers.end(), [this](const auto& entry) {
      const timer& t = entry.second;
      return t.due == std::max(t.deadline, t.due) && t.seq < m_seq && m_order.count({t.due, t.seq, entry.first}) == 1;
    });
  }

 private:
  auto find(timer_handle h) const { return h.generation == 1 ? m_timers.find(h.index) : m_timers.end(); }
  auto find(timer_handle h) { return h.generation == 1 ? m_timers.find(h.index) : m_timers.end(); }

  std::map<std::uint32_t, timer> m_timers;
  std::set<std::tuple<tick, std::uint64_t, std::uint32_t>> m_order;
  std::size_t m_retired = 0;
  std::uint64_t m_seq = 0;
  tick m_now;
};

}  // namespace timing_wheel_test
