"""Loads conan/conanfile.py against the stand-in and checks what CI can check without Conan: the version comes from
version.hpp, the package is a header library, and the sources it exports are the ones the CMake install needs."""
import importlib.util
import os
import re
import sys
import tempfile

repo = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("recipe", os.path.join(repo, "conan", "conanfile.py"))
recipe = importlib.util.module_from_spec(spec)
spec.loader.exec_module(recipe)

conanfile = recipe.TimingWheelConan(os.path.join(repo, "conan"))
conanfile.set_version()
header = open(os.path.join(repo, "include", "timing_wheel", "version.hpp"), encoding="utf-8").read()
expected = ".".join(re.search(rf"TIMING_WHEEL_VERSION_{p} (\d+)", header).group(1) for p in ("MAJOR", "MINOR", "PATCH"))
problems = []
if conanfile.version != expected:
    problems.append(f"recipe version {conanfile.version} != version.hpp {expected}")
if conanfile.package_type != "header-library":
    problems.append("package_type is not header-library")
with tempfile.TemporaryDirectory() as exported:
    conanfile.export_sources_folder = exported
    conanfile.export_sources()
    for needed in ("CMakeLists.txt", "LICENSE", "cmake/timing_wheelConfig.cmake.in", "include/timing_wheel/timing_wheel.hpp"):
        if not os.path.isfile(os.path.join(exported, needed)):
            problems.append(f"export_sources misses {needed}")
for problem in problems:
    print("conan recipe:", problem)
print(f"conan recipe: version {conanfile.version}, {'FAILED' if problems else 'ok'}")
sys.exit(1 if problems else 0)
