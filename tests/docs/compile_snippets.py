#!/usr/bin/env python3
"""Every ```cpp block in the given Markdown files compiles and links, as pasted, with g++ and clang++ under
-Wall -Wextra -Wpedantic -Werror; README.md's block that includes timing_wheel.hpp must be examples/quickstart.cpp.
Prints one line per block and "docs: N passed, M failed"; exits 1 on any failure."""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BLOCK = re.compile(r"^```cpp\n(.*?)^```", re.S | re.M)


def compile_block(code, compiler, out_dir, name):
    source = os.path.join(out_dir, name + ".cpp")
    with open(source, "w", encoding="utf-8") as f:
        f.write(code)
    command = [compiler, "-std=c++20", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-I", os.path.join(ROOT, "include"),
               source, "-o", os.path.join(out_dir, name + "." + os.path.basename(compiler))]
    if "timing_wheel/asio.hpp" in code or "timing_wheel/boost_asio.hpp" in code:
        command.append("-pthread")  # the engines a block includes are linked as their CMake targets link them
    if "timing_wheel/uv.hpp" in code:
        command.append("-luv")
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    return result.returncode == 0, result.stderr


def main(paths):
    passed = failed = 0
    with open(os.path.join(ROOT, "examples", "quickstart.cpp"), encoding="utf-8") as f:
        quickstart = f.read()
    with tempfile.TemporaryDirectory() as out_dir:
        for path in paths:
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                text = f.read()
            for number, match in enumerate(BLOCK.finditer(text), 1):
                code = match.group(1)
                line = text.count("\n", 0, match.start()) + 2
                label = f"{path}:{line}"
                if path == "README.md" and "timing_wheel/timing_wheel.hpp" in code and quickstart.find(code) < 0:
                    print(f"FAILED {label}: the 30-second example differs from examples/quickstart.cpp")
                    failed += 1
                    continue
                for compiler in ("g++", "clang++"):
                    name = re.sub(r"\W", "_", f"{path}_{number}")
                    ok, errors = compile_block(code, compiler, out_dir, name)
                    if ok:
                        print(f"compiles: {label} ({compiler})")
                        passed += 1
                    else:
                        print(f"FAILED {label} ({compiler}):\n{errors}")
                        failed += 1
    print(f"docs: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
