// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

#include <timing_wheel/detail/config.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

TIMING_WHEEL_NAMESPACE_BEGIN
namespace detail {

// Occupancy of a ring of `Size` slots: one bit per slot, set while the slot holds a timer. Finding the next occupied
// slot never looks at an empty slot one by one: in a ring of 65 to 4,096 slots a summary word says which words hold
// a bit, and finding the first is two bit scans. (Each operation is a few instructions, forced inline: g++ moved
// set() out of line once the wheel's firing path grew, and W2 ran 1% more instructions.)
template <std::size_t Size>
class bitmap {
  static_assert(Size >= 1, "a ring needs at least one slot");
  static constexpr std::size_t word_count = (Size + 63) / 64;
  // Rings of 2 to 64 words keep the summary: find_first() is then two bit scans and any() one load, without a
  // branch. A loop over the words mostly stops at the first, in fewer instructions, but its exit mispredicted: at
  // 256 slots the summary costs 1.5 instructions a timer on the backtest, and saves 0.7 of its 2.3 mispredicted
  // branches a timer and a tenth of its time. (Its upkeep is branch-free too: whether a reset empties a word is as
  // hard to predict.)
  static constexpr bool summarised = word_count >= 2 && word_count <= 64;
  struct no_summary {};

 public:
  static constexpr std::size_t npos = Size;

  TIMING_WHEEL_HOT void set(std::size_t i) noexcept {
    m_words[i / 64] |= bit(i);
    if constexpr (summarised) m_summary |= bit(i / 64);
  }
  TIMING_WHEEL_HOT void reset(std::size_t i) noexcept {
    m_words[i / 64] &= ~bit(i);
    if constexpr (summarised) {
      m_summary &= ~(std::uint64_t{m_words[i / 64] == 0} << (i / 64));
    }
  }
  TIMING_WHEEL_HOT [[nodiscard]] bool test(std::size_t i) const noexcept { return (m_words[i / 64] & bit(i)) != 0; }
  void clear() noexcept {
    m_words = {};
    m_summary = {};
  }

  // Swaps two rings' bits; a summarised ring swaps only the words either holds a bit in (a wheel swaps rings as each
  // span begins: a whole swap of two 4,096-slot bitmaps moves 1.5 KB, mostly zeros).
  void swap(bitmap& other) noexcept {
    if constexpr (summarised) {
      for (std::uint64_t words = m_summary | other.m_summary; words != 0; words &= words - 1) {
        const auto w = static_cast<std::size_t>(std::countr_zero(words));
        std::swap(m_words[w], other.m_words[w]);
      }
      std::swap(m_summary, other.m_summary);
    } else {
      std::swap(m_words, other.m_words);
    }
  }

  TIMING_WHEEL_HOT [[nodiscard]] bool any() const noexcept {
    if constexpr (word_count == 1) {
      return m_words[0] != 0;
    } else if constexpr (summarised) {
      return m_summary != 0;
    } else {
      std::uint64_t any_bit = 0;
      for (std::uint64_t word : m_words) any_bit |= word;
      return any_bit != 0;
    }
  }

  /// The first set bit at or after `from` (from <= Size), or npos.
  TIMING_WHEEL_HOT [[nodiscard]] std::size_t find_next(std::size_t from) const noexcept {
    if (from >= Size) return npos;
    std::size_t w = from / 64;
    std::uint64_t word = m_words[w] & (~std::uint64_t{0} << (from % 64));
    if constexpr (summarised) {
      if (word == 0) {
        const std::uint64_t later = m_summary & ((~std::uint64_t{0} << w) << 1);
        if (later == 0) return npos;
        w = static_cast<std::size_t>(std::countr_zero(later));
        word = m_words[w];
      }
    } else {
      while (word == 0) {
        if (++w == word_count) return npos;
        word = m_words[w];
      }
    }
    return w * 64 + static_cast<std::size_t>(std::countr_zero(word));
  }

  TIMING_WHEEL_HOT [[nodiscard]] std::size_t find_first() const noexcept {
    if constexpr (summarised) {
      if (m_summary == 0) return npos;
      const auto w = static_cast<std::size_t>(std::countr_zero(m_summary));
      return w * 64 + static_cast<std::size_t>(std::countr_zero(m_words[w]));
    } else {
      return find_next(0);
    }
  }

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
  // Bit w set while word w is non-zero.
  [[no_unique_address]] std::conditional_t<summarised, std::uint64_t, no_summary> m_summary{};
};

}  // namespace detail
TIMING_WHEEL_NAMESPACE_END
