// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

#include <timing_wheel/version.hpp>

#include <cstdio>
#include <cstdlib>
#include <new>

// Everything lives in timing_wheel::v0; the inline namespace keeps two major versions linkable in one program.
#define TIMING_WHEEL_NAMESPACE_BEGIN \
  namespace timing_wheel {           \
  inline namespace v0 {
#define TIMING_WHEEL_NAMESPACE_END \
  }                                \
  }

// A violated precondition (calling advance() from inside a callback, say): `message` says what the caller did, in
// the caller's words. On unless NDEBUG is defined: it prints "timing_wheel: <message> (file:line)" and aborts.
// Define TIMING_WHEEL_ASSERT(condition, message) yourself, before the first include, to route it elsewhere.
#ifndef TIMING_WHEEL_ASSERT
#ifdef NDEBUG
#define TIMING_WHEEL_ASSERT(condition, message) static_cast<void>(0)
#else
#define TIMING_WHEEL_ASSERT(condition, message) \
  ((condition) ? static_cast<void>(0) : ::timing_wheel::detail::assertion_failed(message, __FILE__, __LINE__))
#endif
#endif

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#define TIMING_WHEEL_HAS_EXCEPTIONS 1
#else
#define TIMING_WHEEL_HAS_EXCEPTIONS 0
#endif

// The few small steps every insert, fire and cascade takes: inlined whatever the compiler's budget says, so that
// adding a caller elsewhere does not move them out of line (g++ did, and the backtest then ran 4% more instructions).
#if defined(__GNUC__) || defined(__clang__)
#define TIMING_WHEEL_HOT [[gnu::always_inline]]
#else
#define TIMING_WHEEL_HOT
#endif

// The rare, long part of a call kept out of line, so that its common short part inlines at the caller.
#if defined(__GNUC__) || defined(__clang__)
#define TIMING_WHEEL_NOINLINE [[gnu::noinline]]
#else
#define TIMING_WHEEL_NOINLINE
#endif

TIMING_WHEEL_NAMESPACE_BEGIN
namespace detail {

[[noreturn]] inline void assertion_failed(const char* message, const char* file, int line) noexcept {
  std::fprintf(stderr, "timing_wheel: %s (%s:%d)\n", message, file, line);
  std::abort();
}

// A hint to start loading `address` into the cache. Inline assembly on x86-64: g++ -O3 may find a function whose
// only effect is __builtin_prefetch free of side effects and delete every call to it.
inline void prefetch(const void* address) noexcept {
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
  __asm__ __volatile__("prefetcht0 %0" : : "m"(*static_cast<const char*>(address)));
#elif defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(address);
#else
  static_cast<void>(address);
#endif
}

// Running out of memory or of handle space: throws, or aborts when exceptions are off.
[[noreturn]] inline void throw_bad_alloc() {
#if TIMING_WHEEL_HAS_EXCEPTIONS
  throw std::bad_alloc();
#else
  std::fputs("timing_wheel: out of memory\n", stderr);
  std::abort();
#endif
}

}  // namespace detail
TIMING_WHEEL_NAMESPACE_END
