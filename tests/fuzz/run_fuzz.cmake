# Runs the JPEG validator fuzz target for SECONDS on the seed corpus, writing
# new inputs to WORK (never to the seeds), and fails on any crash, leak,
# sanitizer report or timeout; the reproducer lands next to WORK.
file(MAKE_DIRECTORY ${WORK})
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048 -max_len=4096
          -print_final_stats=1 -artifact_prefix=${WORK}/../fuzz-crash- ${WORK} ${SEEDS}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the fuzzer found a problem (exit ${rc}); see the report above and ${WORK}/../fuzz-crash-*")
endif()
