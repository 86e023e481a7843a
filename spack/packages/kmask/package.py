# Copyright kmask contributors. SPDX-License-Identifier: (Apache-2.0 WITH LLVM-exception)
#
# Spack recipe for kmask, a C++17 library on Kokkos for validity-bitmask ("null mask") algebra.
# For the current Spack API (dependency packages as self["kokkos"]). Use it from this checkout:
#   spack repo add ./spack
#   spack develop --path $PWD kmask@=main && spack add kmask@=main+openmp && spack install
import os

from spack.package import *


class Kmask(CMakePackage, CudaPackage):
    """Validity-bitmask ("null mask") algebra on Kokkos: combine, count and copy the null masks
    of columnar data (cudf / Arrow layout) on Serial, OpenMP and CUDA, many masks per launch."""

    # Where the project is published. The checkout this recipe was written in has no remote to
    # read them from: confirm homepage, git and the maintainers' GitHub handles before submitting.
    # No release is tagged yet, so `main` is the only version (from git, or from a checkout with
    # `spack develop`).
    homepage = "https://github.com/kmask/kmask"
    git = "https://github.com/kmask/kmask.git"

    maintainers("kmask")

    license("Apache-2.0 WITH LLVM-exception")

    version("main", branch="main")

    # The backends come from the Kokkos that kmask is built against; these variants request them.
    # CUDA is the "cuda" variant (with cuda_arch) inherited from CudaPackage.
    variant("serial", default=True, description="Require the Kokkos Serial backend")
    variant("openmp", default=False, description="Require the Kokkos OpenMP backend")
    variant("shared", default=True, description="Build kmask as a shared library")
    variant("tests", default=False, description="Build the unit tests (also built under spack install --test)")
    variant("benchmarks", default=False, description="Build the benchmarks (Google Benchmark)")
    variant("examples", default=False, description="Build the examples")

    depends_on("cxx", type="build")
    depends_on("cmake@3.16:", type="build")

    # Verified with Kokkos 3.4.01 and 4.6.01 (docs/kokkos-versions.md); Kokkos 5 is not yet, so
    # the range stops at 4 rather than letting the concretizer pick the newest Kokkos.
    depends_on("kokkos@3.4:4")
    depends_on("kokkos+serial", when="+serial")
    depends_on("kokkos+openmp", when="+openmp")
    depends_on("kokkos+cuda", when="+cuda")
    # kmask launches device lambdas: Kokkos' cuda_lambda variant (Kokkos_ENABLE_CUDA_LAMBDA) exists
    # through Kokkos 4 and must be on wherever it exists.
    depends_on("kokkos+cuda_lambda", when="+cuda ^kokkos@:4")
    # With gcc as the host compiler, CUDA code is compiled through Kokkos' nvcc_wrapper (Spack's
    # Kokkos refuses +cuda ~wrapper with gcc); kmask is compiled with the same wrapper.
    depends_on("kokkos+wrapper", when="+cuda %gcc")
    # A shared kmask carries Kokkos' code when Kokkos is a static library: it must be PIC.
    depends_on("kokkos+pic", when="+shared")

    # kmask and Kokkos generate code for the same GPU.
    for arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos cuda_arch={arch}", when=f"+cuda cuda_arch={arch}")

    conflicts(
        "+cuda",
        when="cuda_arch=none",
        msg="kmask+cuda needs a GPU architecture, e.g. kmask+cuda cuda_arch=90",
    )
    # kmask is written to Kokkos' portable API but built and tested on Serial, OpenMP and CUDA
    # only; other Kokkos backends are refused until they are tested.
    for backend in ("rocm", "sycl", "openmptarget", "threads", "hpx"):
        conflicts(
            f"^kokkos+{backend}",
            msg=f"kmask is tested on the Serial, OpenMP and CUDA backends of Kokkos, not {backend}",
        )

    depends_on("googletest", type="build", when="+tests")
    depends_on("googletest", type="test")
    depends_on("benchmark", type="build", when="+benchmarks")

    # The stand-alone test builds the consumer example against the installed kmask.
    test_requires_compiler = True
    consumer_src_dir = join_path("examples", "consumer")

    def _kokkos_cxx(self):
        """The compiler Kokkos was configured with (nvcc_wrapper for +cuda with gcc)."""
        return self["kokkos"].kokkos_cxx

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define("Kokkos_ROOT", spec["kokkos"].prefix),
            self.define_from_variant("BUILD_SHARED_LIBS", "shared"),
            self.define("KMASK_ENABLE_TESTS", self.run_tests or spec.satisfies("+tests")),
            self.define_from_variant("KMASK_ENABLE_BENCHMARKS", "benchmarks"),
            self.define_from_variant("KMASK_ENABLE_EXAMPLES", "examples"),
            # The fuzz targets and the MPI example belong to the project's own test command.
            self.define("KMASK_ENABLE_FUZZ", False),
            self.define("KMASK_ENABLE_MPI", False),
        ]
        if spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CXX_COMPILER", self._kokkos_cxx()))
        return args

    @run_after("install")
    def cache_consumer_example(self):
        """Keep examples/consumer with the installation for the stand-alone test."""
        cache_extra_test_sources(self, [self.consumer_src_dir])

    def test_consumer(self):
        """configure, build and run the cached consumer example against the installed kmask"""
        src = join_path(self.test_suite.current_test_cache_dir, self.consumer_src_dir)
        if not os.path.isdir(src):
            raise SkipTest(f"{src} was not cached at install time")

        cmake = which(self.spec["cmake"].prefix.bin.cmake, required=True)
        args = [
            src,
            self.define("kmask_ROOT", self.prefix),
            self.define("Kokkos_ROOT", self.spec["kokkos"].prefix),
        ]
        if self.spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CXX_COMPILER", self._kokkos_cxx()))

        with working_dir("consumer_build", create=True):
            cmake(*args)
            cmake("--build", ".")
            if self.spec.satisfies("+cuda") and not which("nvidia-smi"):
                # The consumer runs on the default backend, CUDA, which needs a GPU.
                print("kmask_consumer built; not run: no GPU on this machine (no nvidia-smi)")
                return
            consumer = which(join_path(os.getcwd(), "kmask_consumer"), required=True)
            consumer()
