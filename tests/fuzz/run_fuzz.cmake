# Runs a libFuzzer target for SECONDS on the seed corpus SEEDS, writing new
# inputs to WORK (never to the seeds), and fails on any crash, leak,
# sanitizer report or timeout; the reproducer lands next to WORK.
#
# Every seed loads whole: -max_len is the largest seed's size (at least 4096),
# since libFuzzer cuts longer inputs to it. REACH (optional, ;-separated
# function names) must each be covered by the end of the run: the run prints
# their edge coverage (libFuzzer's -print_coverage) and fails naming any it
# never entered.
file(MAKE_DIRECTORY ${WORK})
file(GLOB_RECURSE seeds LIST_DIRECTORIES false ${SEEDS}/*)
set(largest 0)
foreach(seed IN LISTS seeds)
  file(SIZE ${seed} size)
  if(size GREATER largest)
    set(largest ${size})
  endif()
endforeach()
set(max_len 4096)
if(largest GREATER max_len)
  set(max_len ${largest})
endif()
message(STATUS "fuzzing ${SECONDS} s from the seeds in ${SEEDS}: the largest is ${largest} bytes; -max_len=${max_len}")
set(coverage)
if(REACH)
  set(coverage -print_coverage=1)
endif()
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048 -max_len=${max_len}
          -print_final_stats=1 ${coverage} -artifact_prefix=${WORK}/../fuzz-crash- ${WORK} ${SEEDS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
# The per-function coverage lines are thousands: print the rest, then the ones asked for.
string(REGEX REPLACE "(^|\n) *(UN)?COVERED_[A-Z]+:[^\n]*" "" shown "${out}")
message("${shown}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the fuzzer found a problem (exit ${rc}); see the report above and ${WORK}/../fuzz-crash-*")
endif()
if(NOT out MATCHES "seed corpus: files: [0-9]+ min: [0-9]+b max: ([0-9]+)b")
  message(FATAL_ERROR "libFuzzer did not report loading the seed corpus from ${SEEDS}")
endif()
if(CMAKE_MATCH_1 LESS largest)
  message(FATAL_ERROR "libFuzzer loaded seeds of at most ${CMAKE_MATCH_1} bytes, but the largest is ${largest}: cut")
endif()
if(REACH AND out MATCHES "invalid path to external symbolizer")
  set(why "llvm-symbolizer is not installed (Debian: llvm; tools/setup.sh installs it): the functions reached cannot be named")
  if(DEFINED ENV{CI} AND NOT "$ENV{CI}" STREQUAL "")
    message(FATAL_ERROR "MISSING under CI: ${why}")
  endif()
  message("SKIPPED: ${why}")
  return()
endif()
set(missing)
foreach(function IN LISTS REACH)
  if(out MATCHES "COVERED_FUNC: hits: ([1-9][0-9]*) edges: ([0-9]+/[0-9]+) [^\n]*${function}(\\[abi:[a-z0-9]+\\])?\\(")
    message(STATUS "reached ${function}: ${CMAKE_MATCH_1} hits, ${CMAKE_MATCH_2} edges")
  else()
    list(APPEND missing ${function})
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "the fuzzer never entered: ${missing}")
endif()
