"""Conan 2 recipe for timing_wheel, a header-only library: nothing is built, the package is the headers plus the
CMake config and pkg-config files that `cmake --install` writes."""
import os
import re

from conan import ConanFile
from conan.tools.cmake import CMake, cmake_layout
from conan.tools.files import copy, load


class TimingWheelConan(ConanFile):
    name = "timing_wheel"
    description = "Header-only C++20 timer queues: hierarchical timing wheel, hashed flat wheel, indexed min-heap"
    license = "MIT"
    package_type = "header-library"
    settings = "os", "arch", "compiler", "build_type"
    generators = "CMakeToolchain"
    no_copy_source = True
    # The recipe sits in conan/; the sources it packages are the repository's.
    source_patterns = ("CMakeLists.txt", "cmake/*", "include/*", "LICENSE")

    def set_version(self):
        # The one source of the version is include/timing_wheel/version.hpp.
        text = load(self, os.path.join(self.recipe_folder, "..", "include", "timing_wheel", "version.hpp"))
        parts = [re.search(rf"#define TIMING_WHEEL_VERSION_{p} (\d+)", text).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
        self.version = ".".join(parts)

    def export_sources(self):
        root = os.path.join(self.recipe_folder, "..")
        for pattern in self.source_patterns:
            copy(self, pattern, root, self.export_sources_folder)

    def layout(self):
        cmake_layout(self)

    def package_id(self):
        self.info.clear()

    def build(self):
        cmake = CMake(self)
        cmake.configure(variables={
            "TIMING_WHEEL_BUILD_TESTS": "OFF",
            "TIMING_WHEEL_BUILD_EXAMPLES": "OFF",
            "TIMING_WHEEL_BUILD_BENCHMARKS": "OFF",
            "TIMING_WHEEL_INSTALL": "ON",
        })

    def package(self):
        CMake(self).install()
        copy(self, "LICENSE", self.source_folder, os.path.join(self.package_folder, "licenses"))

    def package_info(self):
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []
        self.cpp_info.set_property("cmake_file_name", "timing_wheel")
        self.cpp_info.set_property("cmake_target_name", "timing_wheel::timing_wheel")
        self.cpp_info.set_property("pkg_config_name", "timing_wheel")
