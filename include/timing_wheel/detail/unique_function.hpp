// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

// A move-only callable, for completion handlers and callbacks that std::function cannot hold (they own a socket, a
// promise, a coroutine). One allocation when it is made; moving it moves a pointer.

#include <timing_wheel/detail/config.hpp>

#include <concepts>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

TIMING_WHEEL_NAMESPACE_BEGIN
namespace detail {

template <class Signature>
class unique_function;

template <class R, class... Args>
class unique_function<R(Args...)> {
 public:
  unique_function() noexcept = default;
  template <class F>
  requires(!std::same_as<std::remove_cvref_t<F>, unique_function> && std::invocable<std::decay_t<F>&, Args...>)
      unique_function(F&& f)  // NOLINT(google-explicit-constructor): a handler converts as std::function's does
      : m_callable(std::make_unique<holder<std::decay_t<F>>>(std::forward<F>(f))) {}

  R operator()(Args... args) { return m_callable->call(std::forward<Args>(args)...); }
  explicit operator bool() const noexcept { return m_callable != nullptr; }

 private:
  struct callable {
    callable() = default;
    callable(const callable&) = delete;
    callable& operator=(const callable&) = delete;
    virtual ~callable() = default;
    virtual R call(Args... args) = 0;
  };
  template <class F>
  struct holder final : callable {
    template <class G>
    explicit holder(G&& g) : f(std::forward<G>(g)) {}
    R call(Args... args) override { return std::invoke(f, std::forward<Args>(args)...); }
    F f;
  };

  std::unique_ptr<callable> m_callable;
};

}  // namespace detail
TIMING_WHEEL_NAMESPACE_END
