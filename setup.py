# `pip install .` here installs the package in python/ (metadata in
# pyproject.toml), with libskit built from this source tree and bundled
# (python/skit_build.py).
import os
import sys

from setuptools import setup

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "python"))
from skit_build import commands  # noqa: E402

setup(cmdclass=commands(here))
