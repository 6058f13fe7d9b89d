// The slot lists' storage on its own: chunk_pool against a model of plain queues, lone entries included.
#include "support/catch.hpp"
#include "support/random_ops.hpp"

#include <timing_wheel/detail/chunk_list.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

using namespace timing_wheel_test;
using timing_wheel::detail::chunk_list;
using timing_wheel::detail::chunk_pool;

namespace {

// A few lists, their model (the live values in order) and where the pool says each value is, as a wheel's nodes
// keep it: every position handed out or relocated must still find its value and its list.
struct pool_under_test {
  static constexpr std::uint32_t list_count = 5;
  chunk_pool pool;
  std::vector<chunk_list> lists = std::vector<chunk_list>(list_count);
  std::vector<std::deque<std::uint32_t>> model = std::vector<std::deque<std::uint32_t>>(list_count);
  std::unordered_map<std::uint32_t, std::uint32_t> position_of;
  std::uint32_t next_value = 0;
  std::size_t relocated = 0;  // entries the pool has moved (each a node a wheel rewrites)

  pool_under_test() { pool.reserve_for(4'000, list_count); }

  auto relocator() {
    return [this](std::uint32_t value, std::uint32_t position) {
      position_of[value] = position;
      ++relocated;
    };
  }

  void push(std::uint32_t id) {
    const std::uint32_t value = next_value++;
    position_of[value] = pool.push_back(lists[id], id, value, [&](std::uint32_t moved, std::uint32_t position) {
      REQUIRE(model[id].size() == 1);  // only a lone entry moves, into the list's first chunk
      REQUIRE(moved == model[id].front());
      position_of[moved] = position;
    });
    model[id].push_back(value);
  }

  // The wheel's way to remove one entry: a lone list just empties; otherwise the entry dies in place, a dead front
  // goes at once, and a list left with nothing live is released, else its compaction takes a step (if due).
  void remove(std::uint32_t id, std::size_t which) {
    const std::uint32_t value = model[id][which];
    const std::uint32_t position = position_of.at(value);
    REQUIRE(pool.owner(position) == id);
    if (lists[id].lone()) {
      lists[id] = {};
    } else {
      pool.kill(lists[id], position);
      if (position == lists[id].front && lists[id].live != 0) {
        pool.drop_dead_front(lists[id]);
        REQUIRE(pool.entry(lists[id].front) == model[id][which + 1]);  // the next live one leads
      }
      settle(id);
    }
    model[id].erase(model[id].begin() + static_cast<std::ptrdiff_t>(which));
    position_of.erase(value);
  }

  // The wheel's way to reschedule a timer within its list: its entry goes to the back, as the wheel's
  // move_to_back() does it (the place it leaves dies and a step of the compaction may follow; a dead front goes).
  void move_to_back(std::uint32_t id, std::size_t which) {
    const std::uint32_t value = model[id][which];
    const std::uint32_t position = position_of.at(value);
    position_of[value] = pool.move_to_back(lists[id], id, position, value, relocator());
    REQUIRE(pool.entry(position_of[value]) == value);
    REQUIRE(pool.owner(position_of[value]) == id);
    if (position == lists[id].front) pool.drop_dead_run(lists[id]);
    model[id].erase(model[id].begin() + static_cast<std::ptrdiff_t>(which));
    model[id].push_back(value);
  }

  void settle(std::uint32_t id) {
    if (lists[id].live == 0) {
      pool.release(lists[id]);
    } else {
      pool.compact_some(lists[id], id, relocator());
    }
  }

  void pop(std::uint32_t id) {
    REQUIRE(pool.pop_front(lists[id]) == model[id].front());
    position_of.erase(model[id].front());
    model[id].pop_front();
    settle(id);
  }

  // What a prefetch that returns what it loaded answers for `value` (a wheel's: the node's address): the walks must
  // hand each value its own answer.
  static std::uint64_t loaded_for(std::uint32_t value) { return (std::uint64_t{value} << 20) ^ 0x5eed; }

  // Empties a list the way a cascade does, with a prefetch that returns nothing or one that returns what it loaded.
  void take_all(std::uint32_t id, bool loading) {
    std::vector<std::uint32_t> taken;
    if (lists[id].lone()) {
      taken.push_back(pool.pop_front(lists[id]));
    } else if (loading) {
      pool.consume(
          lists[id], [](std::uint32_t value) { return loaded_for(value); },
          [&](std::uint32_t value, std::uint64_t loaded) {
            REQUIRE(loaded == loaded_for(value));
            taken.push_back(value);
          });
    } else {
      pool.consume(
          lists[id], [](std::uint32_t) {}, [&](std::uint32_t value) { taken.push_back(value); });
    }
    REQUIRE(taken == std::vector<std::uint32_t>(model[id].begin(), model[id].end()));
    for (const std::uint32_t value : taken) position_of.erase(value);
    model[id].clear();
    REQUIRE(lists[id].empty());
  }

  // Takes the first `count` live entries in batches, the way the spreading moves a share.
  void take_front(std::uint32_t id, std::uint32_t count) {
    std::vector<std::uint32_t> taken;
    pool.pop_front(
        lists[id], count, [](std::uint32_t value) { return loaded_for(value); },
        [&](std::uint32_t value, std::uint64_t loaded) {
          REQUIRE(loaded == loaded_for(value));
          taken.push_back(value);
        });
    REQUIRE(taken ==
            std::vector<std::uint32_t>(model[id].begin(), model[id].begin() + static_cast<std::ptrdiff_t>(count)));
    for (const std::uint32_t value : taken) position_of.erase(value);
    model[id].erase(model[id].begin(), model[id].begin() + static_cast<std::ptrdiff_t>(count));
    settle(id);
  }

  void check() {
    std::uint32_t chunks = 0;
    for (std::uint32_t id = 0; id < list_count; ++id) {
      const chunk_list& list = lists[id];
      REQUIRE(list.live == model[id].size());
      REQUIRE(list.lone() == (list.live == 1 && list.dead == 0 && pool.chunks_of(list, id) == 0));
      REQUIRE(pool.compaction_holds(list, id));
      const std::uint32_t spanned = pool.chunks_of(list, id);
      REQUIRE(spanned != timing_wheel::detail::nil);
      chunks += spanned;
      std::vector<std::uint32_t> seen;
      pool.for_each_live(list, [&](std::uint32_t value) { seen.push_back(value); });
      REQUIRE(seen == std::vector<std::uint32_t>(model[id].begin(), model[id].end()));
      for (const std::uint32_t value : model[id]) {
        const std::uint32_t position = position_of.at(value);
        REQUIRE(pool.owner(position) == id);
        if (!list.lone()) REQUIRE(pool.entry(position) == value);
      }
    }
    REQUIRE(chunks + pool.free_count() == pool.used());
  }
};

}  // namespace

TEST_CASE("chunk lists: a list's entries and positions match a model through every operation",
          "[chunk_list][differential]") {
  const std::uint64_t seed = seed_or(0xc4a17);
  INFO("TIMING_WHEEL_SEED=" << seed);
  rng r{seed};
  pool_under_test t;
  for (int step = 0; step < 20'000; ++step) {
    const auto id = static_cast<std::uint32_t>(r.below(pool_under_test::list_count));
    const std::size_t size = t.model[id].size();
    const std::uint64_t choice = r.below(16);
    // Lists stay short most of the time (lone, or one chunk), so each becomes lone and chunked again and again.
    if (choice < 6 && size < (id == 0 ? 200U : 20U)) {
      t.push(id);
    } else if (choice < 10 && size > 0) {
      t.remove(id, static_cast<std::size_t>(r.below(size)));
    } else if (choice < 13 && size > 0) {
      t.pop(id);
    } else if (choice == 13) {
      t.take_all(id, r.below(2) == 0);
    } else if (choice == 14 && size > 1) {
      t.take_front(id, static_cast<std::uint32_t>(1 + r.below(size - 1)));
    } else if (choice == 15 && size > 1) {
      t.move_to_back(id, static_cast<std::size_t>(r.below(size)));
    }
    if (step % 16 == 0) t.check();
  }
  t.check();
}

TEST_CASE("chunk lists: a removal moves at most a compaction step's entries, and the list stays bounded",
          "[chunk_list][compaction]") {
  // One long list with entries removed and moved to the back at random, as idle timeouts are cancelled and reset:
  // its compaction runs in steps (each entry it moves is a node to rewrite), never a whole list at once.
  const std::uint64_t seed = seed_or(0x5e95);
  INFO("TIMING_WHEEL_SEED=" << seed);
  rng r{seed};
  pool_under_test t;
  for (int i = 0; i < 3'000; ++i) t.push(0);
  std::size_t most_moved = 0;
  bool compacted = false;
  for (int step = 0; step < 30'000; ++step) {
    const std::size_t size = t.model[0].size();
    const std::size_t which = static_cast<std::size_t>(r.below(size));
    const std::size_t before = t.relocated;
    const std::uint64_t choice = r.below(8);
    if (choice < 5 && size > 1) {
      t.move_to_back(0, which);  // a reset
    } else if (choice < 7 && size > 1'000) {
      t.remove(0, which);  // a cancel
    } else {
      t.push(0);
    }
    const std::size_t moved = t.relocated - before;
    compacted = compacted || t.pool.compacting(0);
    most_moved = std::max(most_moved, moved);
    REQUIRE(moved <= timing_wheel::detail::compaction_step);
    REQUIRE(t.lists[0].dead <= timing_wheel::detail::most_dead(t.lists[0].live));
    if (step % 64 == 0) t.check();
  }
  t.check();
  CHECK(compacted);       // the list was compacted, in steps,
  CHECK(most_moved > 0);  // which moved entries
}

TEST_CASE("chunk lists: removing entries front to back leaves no dead entry and frees the chunks passed",
          "[chunk_list]") {
  pool_under_test t;
  const std::uint32_t per_chunk = timing_wheel::detail::entries_per_chunk;
  for (std::uint32_t i = 0; i < 3 * per_chunk; ++i) t.push(1);
  CHECK(t.pool.used() == 3);
  // A dead entry in the middle stays (compaction is for crowded lists); once the front reaches it, it goes too.
  t.remove(1, per_chunk + 2);
  CHECK(t.lists[1].dead == 1);
  for (std::uint32_t i = 0; i < per_chunk + 2; ++i) {
    t.remove(1, 0);
    CHECK(t.lists[1].dead == (i + 1 < per_chunk + 2 ? 1U : 0U));
    t.check();
  }
  CHECK(t.lists[1].live == 2 * per_chunk - 3);
  CHECK(t.pool.free_count() == 1);  // the first chunk, left behind
  t.check();
}

TEST_CASE("chunk lists: a lone entry takes no chunk, a second moves it into one", "[chunk_list]") {
  pool_under_test t;
  t.push(3);
  CHECK(t.lists[3].lone());
  CHECK(t.pool.used() == 0);
  CHECK(t.pool.owner(t.position_of.at(0)) == 3);
  t.push(3);  // the first value is relocated to offset 0 of a fresh chunk
  CHECK(!t.lists[3].lone());
  CHECK(t.pool.used() == 1);
  CHECK(t.pool.entry(t.position_of.at(0)) == 0);
  CHECK(t.pool.entry(t.position_of.at(1)) == 1);
  t.pop(3);
  t.pop(3);
  CHECK(t.lists[3].empty());
  CHECK(t.pool.free_count() == 1);
  t.push(3);  // lone again: the freed chunk stays free
  CHECK(t.lists[3].lone());
  CHECK(t.pool.free_count() == 1);
  t.check();
}

// Compaction's edges: the first dead entry at every offset (a chunk's first and last included), runs of dead
// entries up to and across a chunk's end, a dead tail (the list then ends a chunk earlier), live entries after the
// run, in lists of one to four chunks. Its positions must find their values and its chunks add up (check()).
TEST_CASE("chunk lists: compaction keeps order and frees the chunks it empties, for every run of dead entries",
          "[chunk_list]") {
  const std::uint32_t per_chunk = timing_wheel::detail::entries_per_chunk;
  for (std::uint32_t length = 2; length <= 4 * per_chunk; ++length) {
    for (std::uint32_t first_dead = 0; first_dead < length; ++first_dead) {
      for (const std::uint32_t dead_run : {1U, 2U, per_chunk - 1, per_chunk, per_chunk + 1, length - first_dead}) {
        if (first_dead + dead_run > length) continue;
        for (const std::uint32_t live_every : {0U, 1U, 2U, 3U}) {  // after the run: none, every, every 2nd, 3rd live
          if (first_dead == 0 && dead_run == length) continue;     // compaction needs a live entry
          pool_under_test t;
          for (std::uint32_t i = 0; i < length; ++i) t.push(2);
          if (t.lists[2].lone()) continue;
          std::vector<std::uint32_t> killed;
          for (std::uint32_t i = first_dead; i < length; ++i) {
            const bool in_run = i < first_dead + dead_run;
            const bool dies = in_run || live_every == 0 || (i - first_dead - dead_run) % live_every != 0;
            if (dies) killed.push_back(i);
          }
          if (killed.size() == length) continue;
          for (const std::uint32_t value : killed) {
            t.pool.kill(t.lists[2], t.position_of.at(value));
            t.position_of.erase(value);
          }
          for (auto it = killed.rbegin(); it != killed.rend(); ++it) {
            t.model[2].erase(t.model[2].begin() + static_cast<std::ptrdiff_t>(*it));
          }
          t.pool.drop_dead_front(t.lists[2]);
          t.pool.compact(t.lists[2], 2, t.relocator());
          REQUIRE(!t.pool.compacting(2));
          INFO("length " << length << ", first dead " << first_dead << ", dead run " << dead_run << ", live every "
                         << live_every);
          REQUIRE(t.lists[2].dead == 0);
          // The live entries fill the chunks from the list's front on, and no chunk more.
          const std::uint32_t front_offset = timing_wheel::detail::offset_of(t.lists[2].front);
          REQUIRE(t.pool.chunks_of(t.lists[2], 2) == (front_offset + t.lists[2].live + per_chunk - 1) / per_chunk);
          t.check();
        }
      }
    }
  }
}
