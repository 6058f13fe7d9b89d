#include "support/catch.hpp"
#include "support/random_ops.hpp"

#include <timing_wheel/detail/bitmap.hpp>

#include <cstddef>
#include <utility>
#include <vector>

using namespace timing_wheel_test;
using timing_wheel::detail::bitmap;

namespace {

// The answers of a bitmap, worked out from a plain vector of flags.
struct flags_model {
  std::vector<bool> set;
  [[nodiscard]] std::size_t find_next(std::size_t from) const {
    for (std::size_t i = from; i < set.size(); ++i) {
      if (set[i]) return i;
    }
    return set.size();
  }
  [[nodiscard]] std::size_t find_next_wrapping(std::size_t from) const {
    const std::size_t found = find_next(from);
    if (found != set.size()) return found;
    const std::size_t wrapped = find_next(0);
    return wrapped < from ? wrapped : set.size();
  }
  [[nodiscard]] bool any() const { return find_next(0) != set.size(); }
};

// Sets and resets bits at random, in clusters and across whole words, and checks every query against the model.
template <std::size_t Size>
void check_against_model(std::uint64_t seed) {
  INFO("bitmap<" << Size << ">, TIMING_WHEEL_SEED=" << seed);
  rng r{seed};
  bitmap<Size> bits;
  flags_model model{std::vector<bool>(Size)};
  for (int step = 0; step < 4'000; ++step) {
    // A slot at a word boundary half the time: where the scan moves from one word to the next.
    std::size_t i = r.below(Size);
    if (r.below(2) == 0) i = std::min(Size - 1, (i / 64) * 64 + (r.below(2) == 0 ? 0 : 63));
    if (r.below(3) == 0) {
      bits.reset(i);
      model.set[i] = false;
    } else if (r.below(8) == 0) {
      for (std::size_t k = 0; k < Size; ++k) {  // empty the ring at times, so any() and npos are exercised
        bits.reset(k);
        model.set[k] = false;
      }
    } else {
      bits.set(i);
      model.set[i] = true;
    }
    REQUIRE(bits.test(i) == model.set[i]);
    REQUIRE(bits.any() == model.any());
    REQUIRE(bits.find_first() == model.find_next(0));
    const std::size_t from = r.below(Size + 1);
    REQUIRE(bits.find_next(from) == model.find_next(from));
    const std::size_t around = r.below(Size);
    REQUIRE(bits.find_next_wrapping(around) == model.find_next_wrapping(around));
    if (r.below(64) == 0) {  // a swap with a ring of its own history: both answer as each other's model did
      bitmap<Size> other;
      flags_model other_model{std::vector<bool>(Size)};
      for (int k = 0; k < 16; ++k) {
        const std::size_t j = r.below(Size);
        other.set(j);
        other_model.set[j] = true;
      }
      bits.swap(other);
      std::swap(model, other_model);
      for (std::size_t k = 0; k < Size; ++k) {
        REQUIRE(bits.test(k) == model.set[k]);
        REQUIRE(other.test(k) == other_model.set[k]);
      }
      REQUIRE(bits.find_first() == model.find_next(0));
      REQUIRE(other.find_first() == other_model.find_next(0));
      REQUIRE(other.any() == other_model.any());
    }
  }
  bits.clear();
  CHECK(!bits.any());
  CHECK(bits.find_first() == bitmap<Size>::npos);
}

}  // namespace

TEST_CASE("bitmap: every query matches a model, at sizes of one word and many", "[bitmap][differential]") {
  const std::uint64_t seed = seed_or(0xb17a9);
  check_against_model<1>(seed);
  check_against_model<60>(seed);
  check_against_model<64>(seed);
  check_against_model<65>(seed);  // the smallest ring with a summary word
  check_against_model<256>(seed);
  check_against_model<448>(seed);
  check_against_model<512>(seed);
  check_against_model<1000>(seed);
  check_against_model<4096>(seed);
  check_against_model<4097>(seed);  // the smallest ring past the summary's 64 words: the loop over words
}

TEST_CASE("bitmap: the next set bit is found across empty words and at the last slot", "[bitmap]") {
  bitmap<256> bits;
  bits.set(255);
  CHECK(bits.find_next(0) == 255);
  CHECK(bits.find_next(255) == 255);
  CHECK(bits.find_next(256) == bitmap<256>::npos);
  bits.set(3);
  CHECK(bits.find_next(4) == 255);
  CHECK(bits.find_next_wrapping(200) == 255);
  bits.reset(255);
  CHECK(bits.find_next(4) == bitmap<256>::npos);
  CHECK(bits.find_next_wrapping(200) == 3);
  bits.reset(3);
  CHECK(!bits.any());
}
