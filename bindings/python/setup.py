"""Only marks the wheel as platform-specific when libkiln.so is bundled in it
(build_wheel.sh copies it into kiln/); the metadata is in pyproject.toml.
The package itself is pure Python (ctypes), so the tag is py3-none-<platform>."""
import os

from setuptools import setup
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
BUNDLED = os.path.exists(os.path.join(HERE, "kiln", "libkiln.so"))


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return BUNDLED


cmdclass = {}
if BUNDLED:
    try:
        from wheel.bdist_wheel import bdist_wheel

        class PlatformWheel(bdist_wheel):
            def finalize_options(self):
                super().finalize_options()
                self.root_is_pure = False

            def get_tag(self):
                _, _, plat = super().get_tag()
                return "py3", "none", plat

        cmdclass["bdist_wheel"] = PlatformWheel
    except ImportError:
        pass

setup(distclass=BinaryDistribution, cmdclass=cmdclass)
