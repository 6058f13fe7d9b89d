class CMake:
    def __init__(self, conanfile):
        self.conanfile = conanfile


def cmake_layout(conanfile):
    pass
