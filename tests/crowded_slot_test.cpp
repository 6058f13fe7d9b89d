// next_expiration() on slots that hold many timers: an exact wheel keeps a crowded slot's earliest timers between
// calls (detail/earliest_timers.hpp). Checked against min_heap after every operation, with the patterns that
// empty, refill and outgrow what it keeps: cancelling the earliest (request timeouts ending in the order they
// started), rescheduling it, inserting before and after it, cancelling at random, reusing freed nodes for the same
// deadline, and time moving (cascades, spread rings).
#include "support/catch.hpp"
#include "support/random_ops.hpp"

#include <timing_wheel/timing_wheel.hpp>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

using namespace timing_wheel_test;
using timing_wheel::hierarchical_wheel;
using timing_wheel::min_heap;
using timing_wheel::tick;
using timing_wheel::timer_handle;

namespace {

using crowded_queues = std::tuple<hierarchical_wheel<std::uint64_t>, hierarchical_wheel<std::uint64_t, 6, 6>,
                                  hierarchical_wheel<std::uint64_t, 16, 4>, hierarchical_wheel<std::uint64_t, 3, 7>>;

// The queue under test and min_heap side by side: same operations, the same handles' ids, the same answers.
template <class Q>
struct side_by_side {
  Q queue;
  min_heap<std::uint64_t> reference;
  std::vector<timer_handle> handles;  // by id, in the queue under test
  std::vector<timer_handle> reference_handles;
  std::vector<tick> deadline_of;  // by id; UINT64_MAX once gone
  std::string error;
  std::size_t checks = 0;

  explicit side_by_side(tick start) : queue(start), reference(start) {}

  std::uint64_t insert(tick deadline) {
    const std::uint64_t id = handles.size();
    handles.push_back(queue.insert(deadline, id));
    reference_handles.push_back(reference.insert(deadline, id));
    deadline_of.push_back(deadline);
    return id;
  }
  void cancel(std::uint64_t id) {
    const auto got = queue.cancel(handles[id]);
    const auto expected = reference.cancel(reference_handles[id]);
    if (got != expected && error.empty()) error = "cancel(" + std::to_string(id) + ") answered differently";
    deadline_of[id] = UINT64_MAX;
  }
  void reschedule(std::uint64_t id, tick deadline) {
    const bool got = queue.reschedule(handles[id], deadline);
    const bool expected = reference.reschedule(reference_handles[id], deadline);
    if (got != expected && error.empty()) error = "reschedule(" + std::to_string(id) + ") answered differently";
    if (expected) deadline_of[id] = deadline;
  }
  void advance(tick to) {
    std::vector<std::uint64_t> got;
    std::vector<std::uint64_t> expected;
    queue.advance(to, [&](tick, std::uint64_t&& id) { got.push_back(id); });
    reference.advance(to, [&](tick, std::uint64_t&& id) { expected.push_back(id); });
    for (const std::uint64_t id : expected) deadline_of[id] = UINT64_MAX;
    if (got != expected && error.empty()) error = "advance(" + std::to_string(to) + ") fired differently";
  }
  // Moves time short of the next expiration, or onto it one time in `onto_one_in`. Returns: false if nothing waits.
  bool advance_toward_next(rng& r, std::uint64_t onto_one_in) {
    const auto next = reference.next_expiration();
    if (!next) return false;
    const tick now = queue.now();
    advance(r.below(onto_one_in) == 0 ? *next : now + r.below(*next - now + 1));
    return true;
  }
  // The pending id due first (by the reference's order: due time, then insertion), or UINT64_MAX.
  [[nodiscard]] std::uint64_t earliest_id() const {
    const auto first = reference.peek();
    return first ? *first->payload : UINT64_MAX;
  }
  void check(const char* after) {
    if (!error.empty()) return;
    if (queue.next_expiration() != reference.next_expiration()) {
      const auto show = [](std::optional<tick> t) { return t ? std::to_string(*t) : std::string("none"); };
      error = std::string("after ") + after + ": next_expiration() " + show(queue.next_expiration()) +
              ", min_heap says " + show(reference.next_expiration());
    } else if (++checks % 16 == 0 && !queue.check_invariants()) {
      error = std::string("after ") + after + ": internal invariants broken";
    }
  }
};

// The end of a round: everything left fires (in min_heap's order), and nothing went wrong on the way.
template <class Q>
void require_clean_end(side_by_side<Q>& both) {
  both.advance(UINT64_MAX);
  both.check("the end");
  REQUIRE(both.error == "");
  CHECK(both.queue.check_invariants());
}

// Deadlines close together some way ahead: `width` ticks from `base`.
struct deadline_span {
  tick base;
  tick width;
  [[nodiscard]] tick draw(rng& r) const { return base + r.below(width); }
};

// Runs body(both, r, span) for `rounds` seeded rounds (the seed printed on failure, TIMING_WHEEL_SEED replays it),
// each on a fresh queue and min_heap starting before tick 1000, with a span of 1 to max_width ticks that starts
// `ahead` to ahead + 2^(min_log + 29) ticks after now().
template <class Q, class Body>
void seeded_rounds(std::uint64_t fallback_seed, std::uint64_t rounds, tick ahead, unsigned min_log, tick max_width,
                   Body&& body) {
  const std::uint64_t seed = seed_or(fallback_seed);
  for (std::uint64_t round = 0; round < rounds; ++round) {
    INFO("seed " << seed << ", round " << round << " (TIMING_WHEEL_SEED=" << seed << " replays)");
    rng r{seed + round * 0x9e3779b97f4a7c15ULL};
    side_by_side<Q> both(r.below(1000));
    const tick base = both.queue.now() + ahead + r.below(tick{1} << (min_log + r.below(30)));
    const tick width = 1 + r.below(max_width);
    body(both, r, deadline_span{base, width});
  }
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("next_expiration() follows a crowded slot's earliest timer as it is cancelled",
                        "[next_expiration][crowded]", crowded_queues) {
  // 3,000 timers in one span far ahead (more than the wheel keeps), cancelled in due order: each answer is the
  // next deadline.
  for (const tick ahead : {tick{5'000}, tick{40'000'000}, (tick{1} << 40) + 12'345}) {
    TestType q(3);
    std::vector<timer_handle> handles;
    for (tick i = 0; i < 3000; ++i) handles.push_back(q.insert(ahead + 2 * i, i));
    for (tick i = 0; i + 1 < 3000; ++i) {
      REQUIRE(q.cancel(handles[i]) == i);
      REQUIRE(q.next_expiration() == ahead + 2 * (i + 1));
    }
    CHECK(q.check_invariants());
  }
}

TEMPLATE_LIST_TEST_CASE("next_expiration() takes in timers that join a crowded slot ahead of what it keeps",
                        "[next_expiration][crowded]", crowded_queues) {
  // 3,000 timers 4 ticks apart in one span (more than the wheel keeps: 1,024). The earliest are cancelled, then
  // timers join the gaps before and among the kept ones: the first fill the room the cancelled ones left, the next
  // overflow it (the slot is read again). Every answer is checked against min_heap.
  for (const tick ahead : {tick{40'000'000}, (tick{1} << 40) + 12'345}) {
    INFO("timers from " << ahead);
    side_by_side<TestType> both(3);
    for (tick i = 0; i < 3000; ++i) both.insert(ahead + 4 * i);
    both.check("the insertions");
    for (int i = 0; i < 600; ++i) {
      both.cancel(both.earliest_id());
      both.check("cancelling the earliest");
    }
    for (tick gap = 0; gap < 1200; ++gap) {
      both.insert(ahead + 4 * (600 + gap) + 1 + gap % 3);
      both.check("inserting into a gap");
      if (gap % 5 == 0) {
        both.cancel(both.earliest_id());
        both.check("cancelling the earliest");
      }
    }
    while (both.earliest_id() != UINT64_MAX && both.error.empty()) {
      both.cancel(both.earliest_id());
      both.check("cancelling the earliest");
    }
    REQUIRE(both.error == "");
    CHECK(both.queue.check_invariants());
  }
}

TEMPLATE_LIST_TEST_CASE("next_expiration() on crowded slots matches min_heap under cancels, reschedules and time",
                        "[next_expiration][crowded][differential]", crowded_queues) {
  // A burst of deadlines close together: slots above level 0 with hundreds to thousands.
  seeded_rounds<TestType>(0xc0ffee, 6, 1000, 10, 4000, [](side_by_side<TestType>& both, rng& r, deadline_span span) {
    const auto in_span = [&] { return span.draw(r); };
    for (std::size_t i = 0, n = 200 + r.below(2500); i < n; ++i) both.insert(in_span());
    both.check("the bursts");
    for (std::size_t step = 0; step < 4000 && both.error.empty(); ++step) {
      const std::uint64_t earliest = both.earliest_id();
      const char* what = "";
      switch (r.below(16)) {
        case 0:
        case 1:
        case 2:
        case 3:
        case 4:
        case 5:  // the earliest ends first
          if (earliest == UINT64_MAX) break;
          what = "cancelling the earliest";
          both.cancel(earliest);
          break;
        case 6:  // the earliest is pushed back, within the span or beyond it
          if (earliest == UINT64_MAX) break;
          what = "rescheduling the earliest";
          both.reschedule(earliest, r.below(2) == 0 ? in_span() : span.base + span.width + r.below(100'000));
          break;
        case 7: {  // a timer ahead of the earliest, or behind it
          what = "inserting into the span";
          both.insert(r.below(4) == 0 ? span.base - r.below(std::min<tick>(span.base - both.queue.now(), 500))
                                      : in_span());
          break;
        }
        case 8: {  // a freed node reused for the deadline its last timer had
          if (earliest == UINT64_MAX) break;
          what = "cancelling the earliest and inserting at its deadline";
          const tick deadline = both.deadline_of[earliest];
          both.cancel(earliest);
          both.insert(deadline);
          break;
        }
        case 9:
        case 10: {  // any pending timer cancelled or moved
          const std::uint64_t id = r.below(both.handles.size());
          if (both.deadline_of[id] == UINT64_MAX) break;
          what = "cancelling or rescheduling at random";
          if (r.below(2) == 0) {
            both.cancel(id);
          } else {
            both.reschedule(id, in_span());
          }
          break;
        }
        case 11:  // time moves, short of the earliest or into the span
          if (both.advance_toward_next(r, 3)) what = "advancing";
          break;
        default:
          what = "asking again";
          break;
      }
      both.check(what);
    }
    require_clean_end(both);
  });
}

TEMPLATE_LIST_TEST_CASE("reschedules that stay in their slot match min_heap, moved ahead of the earliest or behind",
                        "[reschedule][crowded][differential]", crowded_queues) {
  // A timer moved within its slot: next_expiration() must follow it ahead of the earliest, away from being the
  // earliest, and into ties; the order must stay first-in first-out. Slots of 1 to 300 timers in a narrow span, time
  // moving into it now and then (cascades, spread rings).
  seeded_rounds<TestType>(0x5107, 12, 100, 8, 64, [](side_by_side<TestType>& both, rng& r, deadline_span span) {
    const auto in_span = [&] { return span.draw(r); };
    for (std::size_t i = 0, n = 1 + r.below(300); i < n; ++i) both.insert(in_span());
    both.check("the insertions");
    for (std::size_t step = 0; step < 3000 && both.error.empty(); ++step) {
      const std::uint64_t id = r.below(both.handles.size());
      const std::uint64_t earliest = both.earliest_id();
      const char* what = "asking again";
      switch (r.below(10)) {
        case 0:
        case 1:
        case 2:  // any pending timer, anywhere in the span
          if (both.deadline_of[id] == UINT64_MAX) break;
          what = "rescheduling within the span";
          both.reschedule(id, in_span());
          break;
        case 3:
        case 4: {  // ahead of the earliest, or tying with it
          if (both.deadline_of[id] == UINT64_MAX || earliest == UINT64_MAX) break;
          const tick first = both.deadline_of[earliest];
          what = "rescheduling to the earliest deadline or before it";
          both.reschedule(id, first - r.below(std::min<tick>(first - both.queue.now(), 4) + 1));
          break;
        }
        case 5:  // the earliest, again to the span
          if (earliest == UINT64_MAX) break;
          what = "rescheduling the earliest";
          both.reschedule(earliest, in_span());
          break;
        case 6:
          what = "inserting into the span";
          both.insert(in_span());
          break;
        case 7:
          if (both.deadline_of[id] == UINT64_MAX) break;
          what = "cancelling";
          both.cancel(id);
          break;
        case 8:  // time moves, short of the earliest or up to it
          if (both.advance_toward_next(r, 4)) what = "advancing";
          break;
        default:
          break;
      }
      both.check(what);
    }
    require_clean_end(both);
  });
}

TEMPLATE_LIST_TEST_CASE("a crowded slot whose timers join in deadline order answers from its front",
                        "[next_expiration][crowded][differential]", crowded_queues) {
  // Request timeouts: timers of one length start in order; the earliest completes (cancelled) or is renewed (moved
  // to the back), new ones start, time moves. The slot's timers stay in deadline order, which the wheel answers from
  // (its first live timer) until one joins out of order (then it reads the slot again). next_expiration() and
  // peek() are checked against min_heap after every operation.
  seeded_rounds<TestType>(0x50f7ed, 6, 1000, 12, 1, [](side_by_side<TestType>& both, rng& r, deadline_span span) {
    tick last = span.base;
    const auto in_order = [&] { return last += r.below(3); };
    for (int i = 0; i < 2000; ++i) both.insert(in_order());
    both.check("the insertions");
    for (std::size_t step = 0; step < 6000 && both.error.empty(); ++step) {
      const std::uint64_t earliest = both.earliest_id();
      const char* what = "asking again";
      switch (r.below(10)) {
        case 0:
        case 1:
        case 2:
          if (earliest == UINT64_MAX) break;
          what = "cancelling the earliest";
          both.cancel(earliest);
          break;
        case 3:
          if (earliest == UINT64_MAX) break;
          what = "moving the earliest to the back";
          both.reschedule(earliest, in_order());
          break;
        case 4:
          if (both.advance_toward_next(r, 64)) what = "advancing";
          break;
        case 5:  // now and then one out of order: before the earliest, or anywhere among the others
          if (r.below(20) == 0 && earliest != UINT64_MAX) {
            what = "inserting out of order";
            const tick first = both.deadline_of[earliest];
            both.insert(r.below(2) == 0 ? first - std::min<tick>(first - both.queue.now(), 1 + r.below(3))
                                        : first + r.below(last - first + 1));
          } else {
            what = "inserting in order";
            both.insert(in_order());
          }
          break;
        default:
          what = "inserting in order";
          both.insert(in_order());
          break;
      }
      both.check(what);
      const auto first = both.queue.peek();
      if (both.error.empty() && (first ? *first->payload : UINT64_MAX) != both.earliest_id()) {
        both.error = std::string("after ") + what + ": peek() names another timer than min_heap";
      }
    }
    require_clean_end(both);
  });
}

TEMPLATE_LIST_TEST_CASE("idle timeouts reset again and again match min_heap", "[reschedule][crowded][differential]",
                        crowded_queues) {
  // Connections whose timeout restarts on activity: each reset moves a timer to now() + timeout, mostly within the
  // list above level 0 it already waits in (its entry goes to the back), now and then across into the next one.
  // Many resets a tick make ties in insertion order; dead entries pile up (compactions, dead fronts dropped); now and
  // then a connection closes or opens; time moves a tick or a stride, and the timeouts that come due fire and are
  // checked against min_heap, with next_expiration() after every step.
  const std::uint64_t seed = seed_or(0x1d1e);
  for (std::uint64_t round = 0; round < 8; ++round) {
    INFO("seed " << seed << ", round " << round << " (TIMING_WHEEL_SEED=" << seed << " replays)");
    rng r{seed + round * 0x9e3779b97f4a7c15ULL};
    side_by_side<TestType> both(r.below(1000));
    const tick timeout = tick{1} << (5 + r.below(20));  // 32 ticks to 16 M: one level or another, by geometry
    const std::uint64_t connections = 20 + r.below(600);
    for (std::uint64_t i = 0; i < connections; ++i) both.insert(both.queue.now() + timeout);
    both.check("the connections opening");
    for (std::size_t step = 0; step < 6000 && both.error.empty(); ++step) {
      const std::uint64_t id = r.below(both.handles.size());
      const char* what = "asking again";
      switch (r.below(40)) {
        case 0:
          what = "a tick passing";
          both.advance(both.queue.now() + 1);
          break;
        case 1:
          what = "a longer stride passing";
          both.advance(both.queue.now() + 1 + r.below(timeout / 4 + 1));
          break;
        case 2:
          if (both.deadline_of[id] == UINT64_MAX) break;
          what = "a connection closing";
          both.cancel(id);
          break;
        case 3:
          what = "a connection opening";
          both.insert(both.queue.now() + timeout);
          break;
        default:
          if (both.deadline_of[id] == UINT64_MAX) break;
          what = "activity resetting a timeout";
          both.reschedule(id, both.queue.now() + timeout);
          break;
      }
      both.check(what);
    }
    require_clean_end(both);
  }
}
