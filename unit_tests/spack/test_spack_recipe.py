#!/usr/bin/env python3
"""Checks of the kmask Spack recipe (spack/packages/kmask/package.py).

Spack itself is not needed: a small, explicit stand-in for the few names the
recipe takes from `spack.package` is put into sys.modules, the recipe is
loaded from its file, and its directives and methods are checked.

Run: python3 unit_tests/spack/test_spack_recipe.py
"""
import contextlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import types
import unittest

# The recipe is loaded from its file below: no spack/packages/kmask/__pycache__ may land in the
# source tree (the ctest also sets PYTHONDONTWRITEBYTECODE=1).
sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.abspath(__file__))
RECIPE = os.path.join(HERE, "..", "..", "spack", "packages", "kmask", "package.py")

KOKKOS_PREFIX = "/opt/kokkos"
KOKKOS_CXX = "/opt/kokkos/bin/nvcc_wrapper"
CMAKE_PREFIX = "/opt/cmake"


# --------------------------------------------------------------------------
# Minimal stand-in for `spack.package`
# --------------------------------------------------------------------------

# Every directive called while the recipe's class body runs lands here.
DIRECTIVES = []
# Every call of an executable returned by the fake `which` lands here.
CALLS = []


class Prefix(str):
    """Like Spack's Prefix: a path whose attributes are sub-paths."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Prefix(os.path.join(self, name))


def _parse_constraint(text):
    """'+a ~b c=d' -> {'a': True, 'b': False, 'c': 'd'}.

    Only what the checks below need; anything else (^dep, @version,
    %compiler) is refused rather than silently ignored.
    """
    wanted = {}
    for token in text.split():
        for sign, name, key, value in re.findall(r"([+~])(\w+)|(\w+)=(\S+)", token):
            if name:
                wanted[name] = sign == "+"
            else:
                wanted[key] = value
        if not re.fullmatch(r"(?:[+~]\w+|\w+=\S+)+", token):
            raise ValueError(f"unsupported constraint token {token!r}")
    return wanted


def satisfies(values, constraint):
    """Whether a {variant: value} dict meets a constraint string."""
    return all(values.get(k) == v for k, v in _parse_constraint(constraint).items())


class Variant:
    def __init__(self, value):
        self.value = value


class Dependency:
    """A dependency node in a fake spec: a prefix plus a few attributes."""

    def __init__(self, prefix, **attributes):
        self.prefix = Prefix(prefix)
        self.__dict__.update(attributes)


class Spec:
    """A concrete kmask spec: variant values plus dependency nodes."""

    def __init__(self, values, deps):
        self.values = dict(values)
        self.variants = {k: Variant(v) for k, v in self.values.items()}
        self.deps = deps

    def satisfies(self, constraint):
        return satisfies(self.values, constraint)

    def __contains__(self, constraint):
        return self.satisfies(constraint)

    def __getitem__(self, name):
        return self.deps[name]


def variant(name, default=None, description="", **kwargs):
    DIRECTIVES.append(("variant", name, {"default": default}))


def version(name, **kwargs):
    DIRECTIVES.append(("version", name, kwargs))


def depends_on(spec, when=None, type=None):
    DIRECTIVES.append(("depends_on", spec, {"when": when, "type": type}))


def conflicts(spec, when=None, msg=None):
    DIRECTIVES.append(("conflicts", spec, {"when": when, "msg": msg}))


def run_after(phase):
    def decorate(method):
        method.run_after = phase
        return method

    return decorate


def join_path(*parts):
    return os.path.join(*parts)


def install_tree(src, dest):
    shutil.copytree(src, dest)


@contextlib.contextmanager
def working_dir(path, create=False):
    if create:
        os.makedirs(path, exist_ok=True)
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


class FakeExecutable:
    """Records its calls instead of running anything."""

    def __init__(self, path):
        self.path = path

    def __call__(self, *args):
        CALLS.append((os.path.basename(self.path),) + tuple(str(a) for a in args))
        if args[:1] == ("--build",):
            # Stand in for the target that the consumer project builds.
            open("kmask_consumer", "w").close()


def which(name, required=False):
    """Bare names resolve; a path resolves if it is the fake cmake or exists."""
    if os.sep not in name or name == os.path.join(CMAKE_PREFIX, "bin", "cmake") \
            or os.path.exists(name):
        return FakeExecutable(name)
    if required:
        raise RuntimeError(f"{name} not found")
    return None


class SkipTest(Exception):
    pass


def _define(name, value):
    """Spack's CMakePackage.define: BOOL for bools, STRING otherwise."""
    if isinstance(value, bool):
        return f"-D{name}:BOOL={'ON' if value else 'OFF'}"
    return f"-D{name}:STRING={value}"


class CMakePackage:
    def __init__(self, spec, prefix="/opt/kmask", source_path="/tmp/kmask-src"):
        self.spec = spec
        self.prefix = Prefix(prefix)
        self.stage = types.SimpleNamespace(source_path=source_path)

    define = staticmethod(_define)

    def define_from_variant(self, name, variant=None):
        return _define(name, self.spec.variants[variant or name.lower()].value)


class CudaPackage:
    cuda_arch_values = ("70", "80", "86", "90")


def make_fake_spack():
    package = types.ModuleType("spack.package")
    names = [
        "CMakePackage", "CudaPackage", "variant", "version", "depends_on", "conflicts",
        "run_after", "join_path", "install_tree", "working_dir", "which", "SkipTest",
    ]
    for name in names:
        setattr(package, name, globals()[name])
    package.__all__ = names
    spack = types.ModuleType("spack")
    spack.package = package
    return {"spack": spack, "spack.package": package}


def load_recipe():
    DIRECTIVES.clear()
    sys.modules.update(make_fake_spack())
    spec = importlib.util.spec_from_file_location("kmask_spack_recipe", RECIPE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, list(DIRECTIVES)


# --------------------------------------------------------------------------
# Fake concretizer: the recorded conflicts that a spec violates
# --------------------------------------------------------------------------

def violated_conflicts(directives, values):
    return [
        (trigger, extra)
        for kind, trigger, extra in directives
        if kind == "conflicts" and satisfies(values, trigger)
        and (extra["when"] is None or satisfies(values, extra["when"]))
    ]


# --------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------

DEFAULTS = {"cuda": False, "cuda_arch": "none", "serial": True, "openmp": False,
            "tests": False, "benchmarks": False, "examples": False}


def make_spec(**values):
    deps = {
        "kokkos": Dependency(KOKKOS_PREFIX, kokkos_cxx=KOKKOS_CXX),
        "cmake": Dependency(CMAKE_PREFIX),
    }
    return Spec(dict(DEFAULTS, **values), deps)


class RecipeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.module, cls.directives = load_recipe()
        cls.Kmask = cls.module.Kmask

    def dependencies(self):
        return [(spec, extra["when"]) for kind, spec, extra in self.directives
                if kind == "depends_on"]

    def test_class_and_versions(self):
        self.assertTrue(issubclass(self.Kmask, CMakePackage))
        self.assertTrue(issubclass(self.Kmask, CudaPackage))
        versions = {name: kw for kind, name, kw in self.directives if kind == "version"}
        self.assertEqual(versions["main"], {"branch": "main"})
        self.assertEqual(versions["0.1.0"], {"tag": "v0.1.0"})

    def test_variant_defaults(self):
        defaults = {name: kw["default"] for kind, name, kw in self.directives
                    if kind == "variant"}
        self.assertEqual(defaults, {"serial": True, "openmp": False, "tests": False,
                                    "benchmarks": False, "examples": False})

    def test_cmake_args_cuda(self):
        spec = make_spec(cuda=True, cuda_arch="90", openmp=False, serial=True, tests=False)
        args = self.Kmask(spec).cmake_args()
        self.assertIn(f"-DKokkos_ROOT:STRING={KOKKOS_PREFIX}", args)
        self.assertIn(f"-DCMAKE_CXX_COMPILER:STRING={KOKKOS_CXX}", args)
        self.assertIn("-DKMASK_ENABLE_TESTS:BOOL=OFF", args)
        self.assertIn("-DKMASK_ENABLE_BENCHMARKS:BOOL=OFF", args)
        self.assertIn("-DKMASK_ENABLE_EXAMPLES:BOOL=OFF", args)

    def test_cmake_args_openmp_has_no_compiler(self):
        args = self.Kmask(make_spec(openmp=True, cuda=False)).cmake_args()
        self.assertIn(f"-DKokkos_ROOT:STRING={KOKKOS_PREFIX}", args)
        self.assertFalse([a for a in args if a.startswith("-DCMAKE_CXX_COMPILER")], args)

    def test_cmake_args_tests_on(self):
        args = self.Kmask(make_spec(tests=True)).cmake_args()
        self.assertIn("-DKMASK_ENABLE_TESTS:BOOL=ON", args)

    def test_dependencies(self):
        deps = self.dependencies()
        self.assertIn(("cmake@3.16:", None), deps)
        self.assertIn(("kokkos@3.4:", None), deps)
        self.assertIn(("kokkos+serial", "+serial"), deps)
        self.assertIn(("kokkos+openmp", "+openmp"), deps)
        self.assertIn(("kokkos+cuda", "+cuda"), deps)
        self.assertIn(("kokkos+cuda_lambda", "+cuda ^kokkos@:3"), deps)
        self.assertIn(("kokkos-kernels@3.4:", "+benchmarks"), deps)
        self.assertIn(("googletest", "+tests"), deps)
        self.assertIn(("benchmark", "+benchmarks"), deps)
        for arch in CudaPackage.cuda_arch_values:
            self.assertIn((f"kokkos cuda_arch={arch}", f"+cuda cuda_arch={arch}"), deps)

    def test_cuda_arch_none_conflict(self):
        conflicts = [(s, e["when"]) for k, s, e in self.directives if k == "conflicts"]
        self.assertIn(("+cuda", "cuda_arch=none"), conflicts)

    def test_fake_concretizer(self):
        self.assertTrue(violated_conflicts(self.directives,
                                           dict(DEFAULTS, cuda=True, cuda_arch="none")))
        self.assertFalse(violated_conflicts(self.directives,
                                            dict(DEFAULTS, cuda=True, cuda_arch="90")))
        self.assertFalse(violated_conflicts(self.directives, dict(DEFAULTS, openmp=True)))

    def test_install_and_smoke_test(self):
        with tempfile.TemporaryDirectory() as tmp:
            source = os.path.join(tmp, "src")
            consumer = os.path.join(source, "examples", "consumer")
            os.makedirs(consumer)
            with open(os.path.join(consumer, "CMakeLists.txt"), "w") as f:
                f.write("project(kmask_consumer CXX)\n")
            prefix = os.path.join(tmp, "prefix")
            pkg = self.Kmask(make_spec(cuda=True, cuda_arch="90"), prefix, source)

            self.assertEqual(self.Kmask.install_consumer_example.run_after, "install")
            pkg.install_consumer_example()
            installed = os.path.join(prefix, "share", "kmask", "examples", "consumer")
            self.assertTrue(os.path.isfile(os.path.join(installed, "CMakeLists.txt")))

            CALLS.clear()
            with working_dir(tmp):
                pkg.test_consumer()
            self.assertEqual(CALLS[0][:2], ("cmake", installed))
            self.assertIn(f"-Dkmask_ROOT:STRING={prefix}", CALLS[0])
            self.assertIn(f"-DKokkos_ROOT:STRING={KOKKOS_PREFIX}", CALLS[0])
            self.assertIn(f"-DCMAKE_CXX_COMPILER:STRING={KOKKOS_CXX}", CALLS[0])
            self.assertEqual(CALLS[1], ("cmake", "--build", "."))
            self.assertEqual(CALLS[2], ("kmask_consumer",))

    def test_smoke_test_skips_without_consumer(self):
        with tempfile.TemporaryDirectory() as tmp:
            pkg = self.Kmask(make_spec(), os.path.join(tmp, "prefix"))
            with self.assertRaises(SkipTest):
                pkg.test_consumer()


if __name__ == "__main__":
    unittest.main(verbosity=2)
