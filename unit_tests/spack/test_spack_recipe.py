#!/usr/bin/env python3
"""Checks of the kmask Spack recipe (spack/packages/kmask/package.py).

Spack itself is not needed: a small, explicit stand-in for the few names the
recipe takes from `spack.package` (as current Spack spells them: a dependency's
package is self["name"], spec["name"] is a Spec) is put into sys.modules, the
recipe is loaded from its file, and its directives and methods are checked,
including what its depends_on/conflicts demand of concrete specs.

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
REPO_ROOT = os.path.join(HERE, "..", "..")


# --------------------------------------------------------------------------
# Minimal stand-in for `spack.package`, modelling the current API (Spack >= 1.0):
# spec["kokkos"] is a Spec (prefix, version, variants; no package attributes), and the
# dependency's *package* (with Kokkos' kokkos_cxx property) is self["kokkos"]. A recipe that
# still asks spec["kokkos"].kokkos_cxx gets an AttributeError, as it does under Spack.
# --------------------------------------------------------------------------

# Every directive called while the recipe's class body runs lands here.
DIRECTIVES = []
# Every call of an executable returned by the fake `which` lands here.
CALLS = []
# Whether the fake machine has a GPU (nvidia-smi on the PATH).
MACHINE = {"gpu": False}


class Prefix(str):
    """Like Spack's Prefix: a path whose attributes are sub-paths."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Prefix(os.path.join(self, name))


def _version_tuple(text):
    return tuple(int(p) for p in text.split("."))


def version_satisfies(version, constraint):
    """Spack's '@lo:hi' ranges: hi includes every version it is a prefix of (@:4 holds 4.6.01)."""
    v = _version_tuple(version)
    if ":" not in constraint:
        c = _version_tuple(constraint)
        return v[:len(c)] == c
    lo, hi = constraint.split(":")
    if lo and v < _version_tuple(lo):
        return False
    if hi:
        h = _version_tuple(hi)
        if v[:len(h)] > h:
            return False
    return True


def parse_spec(text):
    """'name @v +a ~b c=d %comp ^dep@v+e' -> {node: {...}} with node '' for the package itself.

    Each node maps variant names to True/False/value, plus '@' (a version constraint) and
    '%' (the compiler). Anything else is refused rather than silently ignored.
    """
    nodes = {"": {}}
    node = ""
    first = True
    for token in text.split():
        if token.startswith("^"):
            m = re.fullmatch(r"\^([\w-]+)(.*)", token)
            node, token = m.group(1), m.group(2)
            nodes.setdefault(node, {})
        elif first and re.match(r"[a-z][\w-]*(?=$|[+~@%])", token):
            # a dependency spec names its package first: 'kokkos+cuda', 'kokkos cuda_arch=90'
            node = re.match(r"[a-z][\w-]*(?=$|[+~@%])", token).group(0)
            token = token[len(node):]
            nodes.setdefault(node, {})
        first = False
        for m in re.finditer(r"@([\d.:]+)|%([\w-]+)|([+~])(\w+)|(\w+)=(\S+)|(.)", token):
            ver, comp, sign, name, key, value, junk = m.groups()
            if junk is not None:
                raise ValueError(f"unsupported constraint {text!r}")
            if ver:
                nodes[node]["@"] = ver
            elif comp:
                nodes[node]["%"] = comp
            elif name:
                nodes[node][name] = sign == "+"
            else:
                nodes[node][key] = value
    return nodes


def node_satisfies(values, wanted):
    for key, want in wanted.items():
        if key == "@":
            if not version_satisfies(values["@"], want):
                return False
        elif values.get(key, False if isinstance(want, bool) else None) != want:
            return False
    return True


def satisfies(spec_nodes, constraint):
    """Whether a concrete {node: values} meets a constraint string."""
    for node, wanted in parse_spec(constraint).items():
        if node not in spec_nodes:
            if wanted:
                return False
            continue
        if not node_satisfies(spec_nodes[node], wanted):
            return False
    return True


class Variant:
    def __init__(self, value):
        self.value = value


class Spec:
    """A concrete spec node: its values, a prefix, and its dependency nodes (also Specs)."""

    def __init__(self, values, prefix="/opt/kmask", deps=None):
        self.values = dict(values)
        self.prefix = Prefix(prefix)
        self.variants = {k: Variant(v) for k, v in self.values.items() if k not in ("@", "%")}
        self.deps = deps or {}

    def nodes(self):
        nodes = {"": self.values}
        nodes.update({name: dep.values for name, dep in self.deps.items()})
        return nodes

    def satisfies(self, constraint):
        return satisfies(self.nodes(), constraint)

    def __contains__(self, constraint):
        return self.satisfies(constraint)

    def __getitem__(self, name):
        return self.deps[name]  # a Spec: no package attributes such as kokkos_cxx


class KokkosPackage:
    """What self["kokkos"] returns: Kokkos' package, whose kokkos_cxx is nvcc_wrapper with +wrapper."""

    def __init__(self, spec):
        self.spec = spec
        self.prefix = spec.prefix

    @property
    def kokkos_cxx(self):
        if self.spec.satisfies("+wrapper"):
            return KOKKOS_CXX
        return "/usr/bin/g++"


class OtherPackage:
    def __init__(self, spec):
        self.spec = spec
        self.prefix = spec.prefix


def variant(name, default=None, description="", **kwargs):
    DIRECTIVES.append(("variant", name, {"default": default}))


def version(name, **kwargs):
    DIRECTIVES.append(("version", name, kwargs))


def depends_on(spec, when=None, type=None):
    DIRECTIVES.append(("depends_on", spec, {"when": when, "type": type}))


def conflicts(spec, when=None, msg=None):
    DIRECTIVES.append(("conflicts", spec, {"when": when, "msg": msg}))


def license(identifier, checked_by=None, when=None):
    DIRECTIVES.append(("license", identifier, {"checked_by": checked_by}))


def maintainers(*names):
    DIRECTIVES.append(("maintainers", names, {}))


def run_after(phase):
    def decorate(method):
        method.run_after = phase
        return method

    return decorate


def join_path(*parts):
    return os.path.join(*parts)


def install_test_root(pkg):
    return os.path.join(pkg.prefix, ".spack", "test")


def cache_extra_test_sources(pkg, srcs):
    """Spack's: copies the named source paths into the installation's test root."""
    for src in [srcs] if isinstance(srcs, str) else srcs:
        shutil.copytree(os.path.join(pkg.stage.source_path, src), os.path.join(install_test_root(pkg), src))


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
    """The fake cmake and existing files resolve; nvidia-smi only on a machine with a GPU."""
    found = (name == os.path.join(CMAKE_PREFIX, "bin", "cmake") or (os.sep in name and os.path.exists(name))
             or (name == "nvidia-smi" and MACHINE["gpu"]))
    if found:
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
    def __init__(self, spec, prefix="/opt/kmask", source_path="/tmp/kmask-src", run_tests=False):
        self.spec = spec
        self.prefix = Prefix(prefix)
        self.stage = types.SimpleNamespace(source_path=source_path)
        self.run_tests = run_tests
        self.test_suite = types.SimpleNamespace(current_test_cache_dir=install_test_root(self))

    define = staticmethod(_define)

    def define_from_variant(self, name, variant=None):
        return _define(name, self.spec.variants[variant or name.lower()].value)

    def __getitem__(self, name):
        """The dependency's package (current Spack API)."""
        dep = self.spec[name]
        return KokkosPackage(dep) if name == "kokkos" else OtherPackage(dep)


class CudaPackage:
    cuda_arch_values = ("70", "80", "86", "90")


def make_fake_spack():
    package = types.ModuleType("spack.package")
    names = [
        "CMakePackage", "CudaPackage", "variant", "version", "depends_on", "conflicts", "license",
        "maintainers", "run_after", "join_path", "cache_extra_test_sources", "working_dir", "which",
        "SkipTest",
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
# Fake concretizer: what the recorded directives demand of a concrete spec
# --------------------------------------------------------------------------

def violated_conflicts(directives, spec):
    return [
        (trigger, extra)
        for kind, trigger, extra in directives
        if kind == "conflicts" and spec.satisfies(trigger)
        and (extra["when"] is None or spec.satisfies(extra["when"]))
    ]


def unmet_dependencies(directives, spec):
    """The depends_on constraints (active under their `when`) that the spec's nodes do not meet."""
    unmet = []
    for kind, dep, extra in directives:
        if kind != "depends_on" or (extra["when"] is not None and not spec.satisfies(extra["when"])):
            continue
        for node, wanted in parse_spec(dep).items():
            if node in spec.deps and not node_satisfies(spec.deps[node].values, wanted):
                unmet.append(dep)
    return unmet


# --------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------

DEFAULTS = {"cuda": False, "cuda_arch": "none", "serial": True, "openmp": False, "shared": True,
            "tests": False, "benchmarks": False, "examples": False, "%": "gcc"}
KOKKOS = {"@": "4.6.01", "serial": True, "openmp": False, "cuda": False, "cuda_arch": "none",
          "cuda_lambda": False, "wrapper": False, "pic": True, "shared": False}


def make_spec(kokkos=None, **values):
    deps = {
        "kokkos": Spec(dict(KOKKOS, **(kokkos or {})), KOKKOS_PREFIX),
        "cmake": Spec({"@": "3.25.1"}, CMAKE_PREFIX),
    }
    return Spec(dict(DEFAULTS, **values), deps=deps)


def cuda_spec(**values):
    """kmask+cuda cuda_arch=90 %gcc with the Kokkos the recipe asks for."""
    kokkos = {"cuda": True, "cuda_arch": "90", "cuda_lambda": True, "wrapper": True}
    return make_spec(kokkos=kokkos, cuda=True, cuda_arch="90", **values)


class RecipeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.module, cls.directives = load_recipe()
        cls.Kmask = cls.module.Kmask

    def dependencies(self):
        return [(spec, extra["when"]) for kind, spec, extra in self.directives
                if kind == "depends_on"]

    def directive(self, kind):
        return [(name, extra) for k, name, extra in self.directives if k == kind]

    def test_stand_in_models_the_current_api(self):
        # The old spelling must fail here as it fails under current Spack.
        with self.assertRaises(AttributeError):
            make_spec()["kokkos"].kokkos_cxx
        self.assertEqual(self.Kmask(cuda_spec())["kokkos"].kokkos_cxx, KOKKOS_CXX)
        with open(RECIPE) as f:
            self.assertFalse('spec["kokkos"].kokkos_cxx' in f.read(), "the recipe still asks the Spec for kokkos_cxx")

    def test_class_versions_license_maintainers(self):
        self.assertTrue(issubclass(self.Kmask, CMakePackage))
        self.assertTrue(issubclass(self.Kmask, CudaPackage))
        versions = {name: kw for kind, name, kw in self.directives if kind == "version"}
        # `main` is what `spack develop --path <checkout> kmask@=main` names (README).
        self.assertEqual(versions, {"main": {"branch": "main"}})
        for url in (self.Kmask.homepage, self.Kmask.git):
            self.assertTrue(url.startswith("https://"), url)
            self.assertNotIn("example.invalid", url)
        self.assertTrue(self.Kmask.git.endswith(".git"))
        licenses = [name for name, _ in self.directive("license")]
        self.assertEqual(licenses, ["Apache-2.0 WITH LLVM-exception"])
        with open(os.path.join(REPO_ROOT, "LICENSE")) as f:
            text = f.read()
        self.assertIn("Apache License", text)
        self.assertIn("LLVM Exceptions to the Apache 2.0 License", text)
        self.assertTrue(self.directive("maintainers") and all(self.directive("maintainers")[0][0]))

    def test_variant_defaults(self):
        defaults = {name: kw["default"] for kind, name, kw in self.directives
                    if kind == "variant"}
        self.assertEqual(defaults, {"serial": True, "openmp": False, "shared": True, "tests": False,
                                    "benchmarks": False, "examples": False})

    def test_cmake_args_cuda(self):
        args = self.Kmask(cuda_spec()).cmake_args()
        self.assertIn(f"-DKokkos_ROOT:STRING={KOKKOS_PREFIX}", args)
        self.assertIn(f"-DCMAKE_CXX_COMPILER:STRING={KOKKOS_CXX}", args)
        self.assertIn("-DBUILD_SHARED_LIBS:BOOL=ON", args)
        self.assertIn("-DKMASK_ENABLE_TESTS:BOOL=OFF", args)
        self.assertIn("-DKMASK_ENABLE_BENCHMARKS:BOOL=OFF", args)
        self.assertIn("-DKMASK_ENABLE_EXAMPLES:BOOL=OFF", args)
        self.assertIn("-DKMASK_ENABLE_FUZZ:BOOL=OFF", args)

    def test_cmake_args_openmp_has_no_compiler(self):
        args = self.Kmask(make_spec(openmp=True, kokkos={"openmp": True})).cmake_args()
        self.assertIn(f"-DKokkos_ROOT:STRING={KOKKOS_PREFIX}", args)
        self.assertFalse([a for a in args if a.startswith("-DCMAKE_CXX_COMPILER")], args)

    def test_cmake_args_tests_follow_variant_and_run_tests(self):
        args = self.Kmask(make_spec(tests=False)).cmake_args()
        self.assertIn("-DKMASK_ENABLE_TESTS:BOOL=OFF", args)
        args = self.Kmask(make_spec(tests=False), run_tests=True).cmake_args()
        self.assertIn("-DKMASK_ENABLE_TESTS:BOOL=ON", args)  # spack install --test=root
        args = self.Kmask(make_spec(tests=True)).cmake_args()
        self.assertIn("-DKMASK_ENABLE_TESTS:BOOL=ON", args)

    def test_cmake_args_static(self):
        args = self.Kmask(make_spec(shared=False)).cmake_args()
        self.assertIn("-DBUILD_SHARED_LIBS:BOOL=OFF", args)

    def test_dependencies(self):
        deps = self.dependencies()
        self.assertIn(("cmake@3.16:", None), deps)
        self.assertIn(("kokkos@3.4:4", None), deps)
        self.assertIn(("kokkos+serial", "+serial"), deps)
        self.assertIn(("kokkos+openmp", "+openmp"), deps)
        self.assertIn(("kokkos+cuda", "+cuda"), deps)
        self.assertIn(("kokkos+cuda_lambda", "+cuda ^kokkos@:4"), deps)
        self.assertIn(("kokkos+wrapper", "+cuda %gcc"), deps)
        self.assertIn(("kokkos+pic", "+shared"), deps)
        self.assertIn(("googletest", "+tests"), deps)
        self.assertIn(("benchmark", "+benchmarks"), deps)
        self.assertIn(("googletest", "test"),
                      [(s, e["type"]) for k, s, e in self.directives if k == "depends_on" and e["when"] is None])
        for arch in CudaPackage.cuda_arch_values:
            self.assertIn((f"kokkos cuda_arch={arch}", f"+cuda cuda_arch={arch}"), deps)

    def test_fake_concretizer_dependencies(self):
        self.assertEqual(unmet_dependencies(self.directives, cuda_spec()), [])
        self.assertEqual(unmet_dependencies(self.directives, make_spec()), [])
        # Kokkos 5 (what an open-ended range concretizes to) is outside the verified range.
        self.assertIn("kokkos@3.4:4", unmet_dependencies(self.directives, make_spec(kokkos={"@": "5.1.1"})))
        self.assertEqual(unmet_dependencies(self.directives, make_spec(kokkos={"@": "3.4.01"})), [])
        # +cuda with gcc needs nvcc_wrapper and device lambdas; with clang no wrapper.
        no_wrapper = {"cuda": True, "cuda_arch": "90", "cuda_lambda": True, "wrapper": False}
        self.assertIn("kokkos+wrapper",
                      unmet_dependencies(self.directives, make_spec(kokkos=no_wrapper, cuda=True, cuda_arch="90")))
        self.assertNotIn("kokkos+wrapper", unmet_dependencies(
            self.directives, make_spec(kokkos=no_wrapper, cuda=True, cuda_arch="90", **{"%": "clang"})))
        no_lambda = {"cuda": True, "cuda_arch": "90", "cuda_lambda": False, "wrapper": True}
        self.assertIn("kokkos+cuda_lambda",
                      unmet_dependencies(self.directives, make_spec(kokkos=no_lambda, cuda=True, cuda_arch="90")))
        wrong_arch = {"cuda": True, "cuda_arch": "80", "cuda_lambda": True, "wrapper": True}
        self.assertIn("kokkos cuda_arch=90",
                      unmet_dependencies(self.directives, make_spec(kokkos=wrong_arch, cuda=True, cuda_arch="90")))
        self.assertIn("kokkos+pic", unmet_dependencies(self.directives, make_spec(kokkos={"pic": False})))
        self.assertNotIn("kokkos+pic",
                         unmet_dependencies(self.directives, make_spec(shared=False, kokkos={"pic": False})))

    def test_cuda_arch_none_conflict(self):
        conflicts = [(s, e["when"]) for k, s, e in self.directives if k == "conflicts"]
        self.assertIn(("+cuda", "cuda_arch=none"), conflicts)

    def test_fake_concretizer_conflicts(self):
        self.assertTrue(violated_conflicts(self.directives, make_spec(cuda=True, cuda_arch="none")))
        self.assertFalse(violated_conflicts(self.directives, cuda_spec()))
        self.assertFalse(violated_conflicts(self.directives, make_spec(openmp=True, kokkos={"openmp": True})))
        for backend in ("rocm", "sycl", "openmptarget", "threads", "hpx"):
            self.assertTrue(violated_conflicts(self.directives, make_spec(kokkos={backend: True})), backend)

    def test_install_and_smoke_test(self):
        for gpu in (False, True):
            with tempfile.TemporaryDirectory() as tmp:
                source = os.path.join(tmp, "src")
                consumer = os.path.join(source, "examples", "consumer")
                os.makedirs(consumer)
                with open(os.path.join(consumer, "CMakeLists.txt"), "w") as f:
                    f.write("project(kmask_consumer CXX)\n")
                prefix = os.path.join(tmp, "prefix")
                pkg = self.Kmask(cuda_spec(), prefix, source)

                self.assertEqual(self.Kmask.cache_consumer_example.run_after, "install")
                pkg.cache_consumer_example()
                cached = os.path.join(prefix, ".spack", "test", "examples", "consumer")
                self.assertTrue(os.path.isfile(os.path.join(cached, "CMakeLists.txt")))

                CALLS.clear()
                MACHINE["gpu"] = gpu
                try:
                    with working_dir(tmp):
                        pkg.test_consumer()
                finally:
                    MACHINE["gpu"] = False
                self.assertEqual(CALLS[0][:2], ("cmake", cached))
                self.assertIn(f"-Dkmask_ROOT:STRING={prefix}", CALLS[0])
                self.assertIn(f"-DKokkos_ROOT:STRING={KOKKOS_PREFIX}", CALLS[0])
                self.assertIn(f"-DCMAKE_CXX_COMPILER:STRING={KOKKOS_CXX}", CALLS[0])
                self.assertEqual(CALLS[1], ("cmake", "--build", "."))
                # The CUDA consumer runs only where there is a GPU.
                self.assertEqual(CALLS[2:], [("kmask_consumer",)] if gpu else [])

    def test_smoke_test_runs_host_consumer(self):
        with tempfile.TemporaryDirectory() as tmp:
            source = os.path.join(tmp, "src")
            os.makedirs(os.path.join(source, "examples", "consumer"))
            pkg = self.Kmask(make_spec(openmp=True, kokkos={"openmp": True}), os.path.join(tmp, "prefix"), source)
            pkg.cache_consumer_example()
            CALLS.clear()
            with working_dir(tmp):
                pkg.test_consumer()
            self.assertFalse([a for a in CALLS[0] if a.startswith("-DCMAKE_CXX_COMPILER")], CALLS[0])
            self.assertEqual(CALLS[2], ("kmask_consumer",))

    def test_smoke_test_skips_without_consumer(self):
        with tempfile.TemporaryDirectory() as tmp:
            pkg = self.Kmask(make_spec(), os.path.join(tmp, "prefix"))
            with self.assertRaises(SkipTest):
                pkg.test_consumer()


if __name__ == "__main__":
    unittest.main(verbosity=2)
