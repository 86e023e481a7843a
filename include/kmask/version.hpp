#ifndef KMASK_VERSION_HPP
#define KMASK_VERSION_HPP

/// \file version.hpp
/// \brief kmask's version, at compile time and from the built library.

/// Major version of the kmask headers (incompatible API changes).
#define KMASK_VERSION_MAJOR 0
/// Minor version of the kmask headers (compatible additions).
#define KMASK_VERSION_MINOR 1
/// Patch version of the kmask headers (fixes only).
#define KMASK_VERSION_PATCH 0

namespace kmask {
/// The library's version, "MAJOR.MINOR.PATCH", as compiled into libkmask.
const char* version() noexcept;
/// A one-line description of the Kokkos configuration libkmask was built against.
const char* kokkos_configuration() noexcept;
}  // namespace kmask

#endif
