// advance, drain and clear from inside a callback are precondition violations, caught by TIMING_WHEEL_ASSERT. This
// program routes the assertion to an exception to observe it, so it is a binary of its own (one definition of the
// macro per program).
#include <stdexcept>

struct assertion_fired : std::logic_error {
  using std::logic_error::logic_error;
};
// Thrown from a function, not a throw expression in the macro: some checks sit in noexcept members, where a throw
// expression draws -Wterminate (and would terminate, which this program never triggers).
[[noreturn]] inline void raise_assertion(const char* message) { throw assertion_fired(message); }
#define TIMING_WHEEL_ASSERT(condition, message) ((condition) ? static_cast<void>(0) : raise_assertion(message))

#include "support/queues.hpp"

#include <cstdio>
#include <string_view>
#include <tuple>
#include <typeinfo>

using timing_wheel::tick;

// The misuse is caught with a message that starts with what the user called, in their words.
template <class Q, class Misuse>
bool caught(Misuse misuse, std::string_view expected) {
  Q q;
  q.insert(1, 1);
  q.insert(2, 2);
  try {
    q.advance(10, [&](tick, int&&) { misuse(q); });
  } catch (const assertion_fired& fired) {
    if (std::string_view(fired.what()).substr(0, expected.size()) != expected) {
      std::printf("message \"%s\" does not start with \"%.*s\"\n", fired.what(), static_cast<int>(expected.size()),
                  expected.data());
      return false;
    }
    // The queue is still usable: the timer that was firing counts as fired, the other stays pending.
    return q.size() == 1 && q.advance(10, [](tick, int&&) {}) == 1 && q.empty();
  }
  return false;
}

template <class Q>
int failures() {
  int failed = 0;
  failed += caught<Q>([](Q& q) { q.advance(5, [](tick, int&&) {}); }, "advance() called from inside a timer callback")
                ? 0
                : 1;
  failed += caught<Q>([](Q& q) { q.drain([](tick, int&&) {}); }, "drain() called from inside a timer callback") ? 0 : 1;
  failed += caught<Q>([](Q& q) { q.clear(); }, "clear() called from inside a timer callback") ? 0 : 1;
  std::printf("%s: %s\n", typeid(Q).name(), failed == 0 ? "ok" : "FAILED");
  return failed;
}

template <class... Q>
int count_failures(std::tuple<Q...>*) {
  return (0 + ... + failures<Q>());
}

int main() {
  constexpr int checks = 3 * std::tuple_size_v<timing_wheel_test::all_queues<int>>;
  const int failed = count_failures(static_cast<timing_wheel_test::all_queues<int>*>(nullptr));
  std::printf("%d passed, %d failed\n", checks - failed, failed);
  return failed == 0 ? 0 : 1;
}
