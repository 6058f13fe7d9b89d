// W2's operations, shared by bench/latency.cpp (which times them), bench/moves.cpp (which counts what a poll
// moves) and bench/instructions.cpp (which counts a tick's instructions): each op is an insert (80%) due 10..1000 ticks
// ahead, a cancel of a random live timer (5%) or nothing (15%), from a seeded sequence, so all of them replay the same
// operations.
#pragma once

#include "structures.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bench {

inline constexpr std::uint64_t trading_seed = 12345;      // every W2 program replays the same operations
inline constexpr std::size_t trading_ops_per_tick = 100;  // W2's lighter load (latency.cpp also runs 250)
inline constexpr tick trading_horizon = 1000;             // the furthest an insert is due ahead of now()

template <class Handle>
class trading_mix {
 public:
  explicit trading_mix(std::uint64_t seed) : m_random(seed) {}

  // One op on a queue whose now() is `now`: insert(deadline, id) inserts and returns the handle; cancel(handle)
  // cancels (each a callable, so the caller may time the queue's call alone). Out of line, and its bookkeeping in
  // functions of their own, so that the mix compiles alike whatever queue it drives and bench/instructions can
  // subtract it: inlined, the vectors' growth paths went in or out of each copy with the compiler's budget, and a
  // change to the wheel once moved the subtracted baseline by 1,500 instructions a tick.
  template <class Insert, class Cancel>
  [[gnu::noinline]] void op(tick now, Insert&& insert, Cancel&& cancel) {
    const std::uint64_t r = mix(++m_random);
    const std::uint64_t kind = r % 100;
    if (kind < 80) {
      const std::uint32_t id = take_id();
      remember(id, insert(now + 10 + (r >> 8) % (trading_horizon - 9), id));
    } else if (kind < 85 && !m_live.empty()) {
      const std::uint32_t id = m_live[(r >> 8) % m_live.size()];
      cancel(m_handles[id]);
      forget(id);
    }
  }

  // A timer fired: its id is free again.
  void fired(std::uint32_t id) { forget(id); }
  // Timers the queue should hold.
  [[nodiscard]] std::size_t live() const { return m_live.size(); }

 private:
  [[gnu::noinline]] std::uint32_t take_id() {
    if (m_free_ids.empty()) {
      const auto id = static_cast<std::uint32_t>(m_handles.size());
      m_handles.emplace_back();
      m_position.push_back(0);
      return id;
    }
    const std::uint32_t id = m_free_ids.back();
    m_free_ids.pop_back();
    return id;
  }
  [[gnu::noinline]] void remember(std::uint32_t id, Handle handle) {
    m_handles[id] = handle;
    m_position[id] = static_cast<std::uint32_t>(m_live.size());
    m_live.push_back(id);
  }
  [[gnu::noinline]] void forget(std::uint32_t id) {
    const std::uint32_t last = m_live.back();
    m_live[m_position[id]] = last;
    m_position[last] = m_position[id];
    m_live.pop_back();
    m_free_ids.push_back(id);
  }

  std::uint64_t m_random;
  std::vector<Handle> m_handles;
  std::vector<std::uint32_t> m_live;      // ids of pending timers
  std::vector<std::uint32_t> m_position;  // of each id in m_live
  std::vector<std::uint32_t> m_free_ids;
};

}  // namespace bench
