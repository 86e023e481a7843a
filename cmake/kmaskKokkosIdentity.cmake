# Which Kokkos is in scope: kmask_kokkos_identity(<version var> <devices var>) sets the version
# ("4.6.1") and the enabled devices (sorted, e.g. "OPENMP;SERIAL") of the Kokkos that Kokkos::kokkos
# stands for here. Used twice, so both sides compute it the same way: by kmask's build, to record
# what it was built with, and by kmaskConfig.cmake, to compare that record with the consumer's Kokkos.
#
# A Kokkos from find_package sets Kokkos_VERSION and Kokkos_DEVICES. A Kokkos added with
# add_subdirectory() sets neither outside its own directory, but its options (Kokkos_ENABLE_<device>)
# are cache entries and its libraries carry the version as the VERSION property (Kokkos 3.4 and 4.x).
function(kmask_kokkos_identity version_var devices_var)
  set(version "${Kokkos_VERSION}")
  if(version STREQUAL "")
    foreach(lib kokkoscore Kokkos::kokkoscore)
      if(TARGET ${lib})
        get_target_property(v ${lib} VERSION)
        if(v)
          set(version "${v}")
          break()
        endif()
      endif()
    endforeach()
  endif()
  set(devices ${Kokkos_DEVICES})
  if(NOT devices)
    foreach(dev SERIAL OPENMP THREADS HPX CUDA HIP SYCL OPENMPTARGET OPENACC)
      if(Kokkos_ENABLE_${dev})
        list(APPEND devices ${dev})
      endif()
    endforeach()
  endif()
  list(REMOVE_DUPLICATES devices)
  list(SORT devices)
  if(version STREQUAL "")
    set(version "unknown")
  endif()
  set(${version_var} "${version}" PARENT_SCOPE)
  set(${devices_var} "${devices}" PARENT_SCOPE)
endfunction()
