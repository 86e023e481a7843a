# Spack recipe for kmask, a C++17 header/library package built on Kokkos.
#
# Use it through the package repository in this directory:
#   spack repo add ./spack
#   spack install kmask+cuda cuda_arch=90
import os

from spack.package import *


class Kmask(CMakePackage, CudaPackage):
    """kmask: masked data-parallel kernels on top of Kokkos."""

    # Placeholders: set homepage and git to the real project location before
    # publishing this recipe; example.invalid never resolves.
    homepage = "https://example.invalid/kmask"
    git = "https://example.invalid/kmask.git"

    version("main", branch="main")
    version("0.1.0", tag="v0.1.0")

    # The Kokkos backends are chosen by the Kokkos installation that kmask is
    # built against; these variants only request them from Kokkos.  The CUDA
    # backend is the "cuda" variant inherited from CudaPackage.
    variant("serial", default=True, description="Require the Kokkos Serial backend")
    variant("openmp", default=False, description="Require the Kokkos OpenMP backend")
    variant("tests", default=False, description="Build the unit tests (GoogleTest)")
    variant(
        "benchmarks",
        default=False,
        description="Build the benchmarks (Google Benchmark, Kokkos Kernels)",
    )
    variant("examples", default=False, description="Build the examples")

    depends_on("cxx", type="build")
    depends_on("cmake@3.16:", type="build")

    depends_on("kokkos@3.4:")
    depends_on("kokkos+serial", when="+serial")
    depends_on("kokkos+openmp", when="+openmp")
    depends_on("kokkos+cuda", when="+cuda")
    # Kokkos 3 only allows device lambdas with Kokkos_ENABLE_CUDA_LAMBDA; from
    # Kokkos 4 on they are always enabled and the variant no longer exists.
    depends_on("kokkos+cuda_lambda", when="+cuda ^kokkos@:3")

    # kmask and Kokkos have to generate code for the same GPU.
    for arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos cuda_arch={arch}", when=f"+cuda cuda_arch={arch}")

    conflicts(
        "+cuda",
        when="cuda_arch=none",
        msg="kmask+cuda needs a GPU architecture, e.g. kmask+cuda cuda_arch=90",
    )

    # The benchmarks compare against Kokkos Kernels, which shares our Kokkos.
    depends_on("kokkos-kernels@3.4:", when="+benchmarks")
    depends_on("googletest", type="build", when="+tests")
    depends_on("benchmark", type="build", when="+benchmarks")

    # `spack test run kmask` builds a small consumer project with a compiler.
    test_requires_compiler = True

    # Where the consumer example lives in the source tree and in the prefix.
    consumer_src_dir = join_path("examples", "consumer")

    def cmake_args(self):
        spec = self.spec
        args = [self.define("Kokkos_ROOT", spec["kokkos"].prefix)]
        if spec.satisfies("+cuda"):
            # Compile with the compiler Kokkos was configured for
            # (nvcc_wrapper for the CUDA backend).
            args.append(self.define("CMAKE_CXX_COMPILER", spec["kokkos"].kokkos_cxx))
        args.extend(
            [
                self.define_from_variant("KMASK_ENABLE_TESTS", "tests"),
                self.define_from_variant("KMASK_ENABLE_BENCHMARKS", "benchmarks"),
                self.define_from_variant("KMASK_ENABLE_EXAMPLES", "examples"),
            ]
        )
        return args

    @property
    def installed_consumer_dir(self):
        """Directory of the installed copy of examples/consumer."""
        return self.prefix.share.kmask.examples.consumer

    @run_after("install")
    def install_consumer_example(self):
        """Install examples/consumer so that `spack test run` can build it."""
        src = join_path(self.stage.source_path, self.consumer_src_dir)
        if os.path.isdir(src):
            install_tree(src, self.installed_consumer_dir)

    def _consumer_cxx(self):
        """C++ compiler for the consumer build, or None to let CMake choose."""
        if self.spec.satisfies("+cuda"):
            try:
                return self.spec["kokkos"].kokkos_cxx
            except (AttributeError, NameError):
                pass  # fall through to the compiler of the test environment
        return os.environ.get("CXX")

    def test_consumer(self):
        """configure, build and run the installed consumer example"""
        src = self.installed_consumer_dir
        if not os.path.isdir(src):
            raise SkipTest(f"{src} is not installed")

        cmake = which(self.spec["cmake"].prefix.bin.cmake) or which("cmake", required=True)
        args = [
            src,
            self.define("kmask_ROOT", self.prefix),
            self.define("Kokkos_ROOT", self.spec["kokkos"].prefix),
        ]
        cxx = self._consumer_cxx()
        if cxx:
            args.append(self.define("CMAKE_CXX_COMPILER", cxx))

        with working_dir("consumer_build", create=True):
            cmake(*args)
            cmake("--build", ".")
            consumer = which(join_path(os.getcwd(), "kmask_consumer"), required=True)
            consumer()
