"""setuptools commands that put libskit inside the wheel.

`pip install ./python` (or `pip install .` at the top of the source tree)
builds the C library from the source tree this file sits in and copies
libskit.so.1 into the package as skit/_libs/libskit.so.1, which skit/_lib.py
loads before any other copy (only $SKIT_LIBRARY wins over it). The installed
package then needs nothing from the source tree, and no `make install`,
PKG_CONFIG_PATH or SKIT_LIBRARY.

When to bundle ($SKIT_BUNDLE_LIBRARY):
  auto (default)  bundle unless `pkg-config --exists skit` finds an
                  installed skit, which the package then loads at run time;
  1               always bundle;
  0               never (the package looks the library up at run time).
The C sources are the directory holding configure.ac and lib/skit.h: the
directory of setup.py or its parent, or $SKIT_SOURCE_DIR. An sdist of
python/ alone has none; building it needs an installed skit or
$SKIT_SOURCE_DIR.

The build: autoreconf -fi when the source tree has no configure script (a
git checkout), then configure --without-cuda --disable-static (plus
$SKIT_CONFIGURE_FLAGS) in a temporary directory and `make libskit.la` with
$SKIT_BUILD_JOBS jobs (default: every CPU). The CUDA plugin is left out: it
is loaded from the installed prefix, which a wheel does not have.
"""
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1 takes it from the wheel package
    try:
        from wheel.bdist_wheel import bdist_wheel
    except ImportError:
        bdist_wheel = None

LIBRARY = "libskit.so.1"


def _log(message):
    print(f"skit: {message}", file=sys.stderr, flush=True)


def _source_dir(here):
    env = os.environ.get("SKIT_SOURCE_DIR")
    candidates = [env] if env else [here, os.path.dirname(here)]
    for path in candidates:
        if os.path.isfile(os.path.join(path, "configure.ac")) and \
           os.path.isfile(os.path.join(path, "lib", "skit.h")):
            return os.path.abspath(path)
    return None


def _installed():
    try:
        return subprocess.run(["pkg-config", "--exists", "skit"], timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _decide(here):
    """(bundle?, source dir); raises when the package could not load any
    libskit once installed."""
    mode = os.environ.get("SKIT_BUNDLE_LIBRARY", "auto").strip().lower()
    if mode not in ("auto", "1", "0"):
        raise SystemExit(f"skit: SKIT_BUNDLE_LIBRARY must be auto, 1 or 0, got {mode!r}")
    if mode == "0":
        return False, None
    if mode == "auto" and _installed():
        _log("pkg-config finds an installed skit: the package will load it "
             "(SKIT_BUNDLE_LIBRARY=1 bundles a build of its own instead)")
        return False, None
    source = _source_dir(here)
    if source is None:
        raise SystemExit(
            "skit: no C sources to build libskit from, and no installed skit (pkg-config skit). "
            "Install from a source tree (`pip install ./python` or `pip install .` at its top), "
            "set SKIT_SOURCE_DIR to one, or install the C library first (make install).")
    return True, source


def _run(cmd, cwd):
    _log("$ " + " ".join(shlex.quote(c) for c in cmd))
    result = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode:
        # pip shows a failed build's output: the tail says what is missing
        sys.stderr.write(result.stdout[-6000:])
        raise SystemExit(f"skit: `{' '.join(cmd)}` failed (exit {result.returncode}) in {cwd}")


def build_library(source, dest):
    """Build libskit from `source` and copy the real file of libskit.so.1
    (not the symlink libtool makes) to `dest`."""
    if not os.path.exists(os.path.join(source, "configure")):
        if shutil.which("autoreconf") is None:
            raise SystemExit("skit: the source tree has no configure script and autoreconf is missing: "
                             "apt-get install autoconf automake libtool pkg-config")
        _run(["autoreconf", "-fi"], source)
    jobs = os.environ.get("SKIT_BUILD_JOBS") or str(os.cpu_count() or 1)
    flags = shlex.split(os.environ.get("SKIT_CONFIGURE_FLAGS", ""))
    with tempfile.TemporaryDirectory(prefix="skit-libbuild-") as tmp:
        _run([os.path.join(source, "configure"), "-q", "--without-cuda", "--disable-static"] + flags, tmp)
        _run(["make", f"-j{jobs}", "libskit.la"], tmp)
        built = os.path.realpath(os.path.join(tmp, ".libs", LIBRARY))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(built, dest)
        os.chmod(dest, 0o755)
    _log(f"bundled {LIBRARY} into the package")


def commands(here):
    """The cmdclass of setup(): build_py that bundles libskit and, when it
    does, a wheel tagged for this platform (any Python 3: nothing in it
    depends on the interpreter's ABI)."""
    here = os.path.abspath(here)
    decision = []

    def decided():
        if not decision:
            decision.append(_decide(here))
        return decision[0]

    class BuildPy(build_py):
        def run(self):
            super().run()
            # an editable install runs from the source tree, which finds the
            # build tree's library (skit/_lib.py)
            if getattr(self, "editable_mode", False):
                return
            bundle, source = decided()
            if bundle:
                build_library(source, os.path.join(self.build_lib, "skit", "_libs", LIBRARY))

    cmdclass = {"build_py": BuildPy}
    if bdist_wheel is not None:
        class BdistWheel(bdist_wheel):
            def finalize_options(self):
                super().finalize_options()
                if decided()[0]:
                    self.root_is_pure = False

            def get_tag(self):
                python, abi, platform = super().get_tag()
                return ("py3", "none", platform) if decided()[0] else (python, abi, platform)

        cmdclass["bdist_wheel"] = BdistWheel
    return cmdclass
