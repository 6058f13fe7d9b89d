// The test runner's entry point for Catch2 2.x; with 3.x the tests link Catch2::Catch2WithMain instead.
#if __has_include(<catch2/catch.hpp>) && !__has_include(<catch2/catch_test_macros.hpp>)
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#endif
