# Strict warnings and optional sanitizers for the project's own targets only; never on the interface target.
function(timing_wheel_strict target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Werror -Wshadow -Wconversion -Wsign-conversion)
  target_link_libraries(${target} PRIVATE timing_wheel::timing_wheel)
  if(TIMING_WHEEL_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=${TIMING_WHEEL_SANITIZE} -fno-omit-frame-pointer
                                             -fno-sanitize-recover=all)
    target_link_options(${target} PRIVATE -fsanitize=${TIMING_WHEEL_SANITIZE})
  endif()
endfunction()
