import fnmatch
import os
import shutil


def load(conanfile, path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def copy(conanfile, pattern, src, dst):
    copied = []
    for root, _, files in os.walk(src):
        for name in files:
            rel = os.path.relpath(os.path.join(root, name), src)
            if fnmatch.fnmatch(rel, pattern):
                os.makedirs(os.path.dirname(os.path.join(dst, rel)), exist_ok=True)
                shutil.copy2(os.path.join(src, rel), os.path.join(dst, rel))
                copied.append(rel)
    return copied
