// Replaces the global operator new and delete with malloc-based ones that ask the including program first:
// `bool allow_allocation()` (defined by that program) returning false makes the allocation fail. Include it in one
// translation unit of a program of its own.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

bool allow_allocation();

namespace replace_new_detail {
inline void* allocate(std::size_t size, std::size_t align) {
  if (!allow_allocation()) return nullptr;
  size = size == 0 ? 1 : size;
  return std::aligned_alloc(align, (size + align - 1) / align * align);
}
}  // namespace replace_new_detail

void* operator new(std::size_t size) {
  if (void* p = replace_new_detail::allocate(size, alignof(std::max_align_t))) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, std::align_val_t align) {
  if (void* p = replace_new_detail::allocate(size, static_cast<std::size_t>(align))) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
  return replace_new_detail::allocate(size, static_cast<std::size_t>(align));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
