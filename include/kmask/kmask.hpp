#ifndef KMASK_KMASK_HPP
#define KMASK_KMASK_HPP

/// \file kmask.hpp
/// \brief Everything in kmask: validity-bitmask algebra on Kokkos.
///
/// \mainpage kmask
/// kmask combines, counts and copies validity ("null") masks — one bit per row, 1 = valid, in the
/// cudf / Arrow layout (bit `i` is bit `i % 32` of 32-bit word `i / 32`) — on any Kokkos backend.
/// Its centre is the segmented binop (segmented_binop.hpp): many destinations, each combining
/// several sources from arbitrary bit offsets, in one launch that scales with the mask size, with
/// each destination's null count. Every function takes the execution space instance first and has
/// an overload on the default execution space. Start with kmask.hpp and README.md.

#include <kmask/binop.hpp>
#include <kmask/copy_bitmask.hpp>
#include <kmask/count.hpp>
#include <kmask/count_device_ranges.hpp>
#include <kmask/create_mask.hpp>
#include <kmask/move_bits.hpp>
#include <kmask/make_masks.hpp>
#include <kmask/operators.hpp>
#include <kmask/segmented_binop.hpp>
#include <kmask/superimpose_tree.hpp>
#include <kmask/types.hpp>
#include <kmask/version.hpp>
#include <kmask/batch_count.hpp>

#endif
