"""A stand-in for the parts of Conan 2 the recipe touches, so CI can load the recipe without Conan (which is not
installable here). It records calls; it builds nothing."""


class ConanFile:
    def __init__(self, recipe_folder):
        self.recipe_folder = recipe_folder
        self.version = None
