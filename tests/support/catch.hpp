// Catch2 2.x (Debian 12) and 3.x (vcpkg, Conan) behind one include.
#pragma once

#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#define TIMING_WHEEL_CATCH_VERSION 3
#elif __has_include(<catch2/catch.hpp>)
#include <catch2/catch.hpp>
#define TIMING_WHEEL_CATCH_VERSION 2
#else
#error "Catch2 not found: apt-get install catch2 (2.x) or install Catch2 3.x"
#endif
