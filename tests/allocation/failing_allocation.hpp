// The allocation that fails: a program replacing operator new (replace_new.hpp) through this header fails the
// allocation its countdown reaches, counting only those made inside counted(), so that the test's own bookkeeping
// never fails. Include it in the one translation unit of such a program.
#pragma once

#include "allocation/replace_new.hpp"

namespace failing_allocation {
// Only allocations made by the code under test count: the test arms the countdown around each call into it.
inline bool armed = false;
inline long countdown = -1;  // the counted allocation that reaches 0 fails; negative: none fails

// Calls call() with the countdown armed.
template <class F>
decltype(auto) counted(F&& call) {
  struct disarm {
    ~disarm() { armed = false; }
  } guard;
  armed = true;
  return call();
}
}  // namespace failing_allocation

bool allow_allocation() {
  using namespace failing_allocation;
  return !(armed && countdown >= 0 && countdown-- == 0);
}
