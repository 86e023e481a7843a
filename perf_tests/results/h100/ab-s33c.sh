#!/bin/bash
# Session 33, call 33.3 (not made: the session's device time was spent): ab-s33b.sh's call with
# build/cuda built from bd3cb9f (device-range slices counted by each team thread's lanes, 40 bytes
# of spills where 7dbf91d's team reduction spilled 196), against 9aaa695's benchmarks in
# build/ab/s33/mid_cuda_bench. Carry what ab-s33b.sh lists.
CALL=33.3 TAG=ab-s33c exec bash "$(dirname "$0")/ab-s33b.sh"
