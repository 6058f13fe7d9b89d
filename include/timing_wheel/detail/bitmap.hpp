// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

#include <timing_wheel/detail/config.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

TIMING_WHEEL_NAMESPACE_BEGIN
namespace detail {

// Occupancy of a ring of `Size` slots: one bit per slot, set while the slot holds a timer. Finding the next occupied
// slot costs O(Size / 64) word tests at worst and never looks at an empty slot one by one.
template <std::size_t Size>
class bitmap {
  static_assert(Size >= 1, "a ring needs at least one slot");
  static constexpr std::size_t word_count = (Size + 63) / 64;

 public:
  static constexpr std::size_t npos = Size;

  void set(std::size_t i) noexcept { m_words[i / 64] |= bit(i); }
  void reset(std::size_t i) noexcept { m_words[i / 64] &= ~bit(i); }
  [[nodiscard]] bool test(std::size_t i) const noexcept { return (m_words[i / 64] & bit(i)) != 0; }
  void clear() noexcept { m_words = {}; }

  [[nodiscard]] bool any() const noexcept {
    if constexpr (word_count == 1) {
      return m_words[0] != 0;
    } else {
      std::uint64_t any_bit = 0;
      for (std::uint64_t word : m_words) any_bit |= word;
      return any_bit != 0;
    }
  }

  /// The first set bit at or after `from` (from <= Size), or npos.
  [[nodiscard]] std::size_t find_next(std::size_t from) const noexcept {
    if (from >= Size) return npos;
    std::size_t w = from / 64;
    std::uint64_t word = m_words[w] & (~std::uint64_t{0} << (from % 64));
    while (word == 0) {
      if (++w == word_count) return npos;
      word = m_words[w];
    }
    return w * 64 + static_cast<std::size_t>(std::countr_zero(word));
  }

  [[nodiscard]] std::size_t find_first() const noexcept { return find_next(0); }

  /// The first set bit going round the ring from `from`: [from, Size) then [0, from). npos if none is set.
  [[nodiscard]] std::size_t find_next_wrapping(std::size_t from) const noexcept {
    const std::size_t found = find_next(from);
    if (found != npos || from == 0) return found;
    const std::size_t wrapped = find_first();
    return wrapped < from ? wrapped : npos;
  }

 private:
  static constexpr std::uint64_t bit(std::size_t i) noexcept { return std::uint64_t{1} << (i % 64); }

  std::array<std::uint64_t, word_count> m_words{};
};

}  // namespace detail
TIMING_WHEEL_NAMESPACE_END
