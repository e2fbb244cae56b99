# The metadata is in pyproject.toml; this file only adds the build step that
# compiles libskit from the parent source tree and bundles it (skit_build.py).
import os
import sys

from setuptools import setup

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from skit_build import commands  # noqa: E402

setup(cmdclass=commands(here))
