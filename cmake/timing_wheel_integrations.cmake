# The opt-in integration targets, each defined only when its engine is found, so the core target never depends on
# an engine:
#   timing_wheel::asio        timing_wheel/asio.hpp over standalone Asio (<asio.hpp>, Debian libasio-dev)
#   timing_wheel::boost_asio  timing_wheel/boost_asio.hpp over Boost.Asio (Debian libboost-dev)
#   timing_wheel::uv          timing_wheel/uv.hpp over libuv (Debian libuv1-dev)
# Included by the build (with timing_wheel_integration_scope GLOBAL, for add_subdirectory and FetchContent users)
# and by the installed package's config file.
find_package(Threads QUIET)

if(NOT TARGET timing_wheel::asio AND TARGET Threads::Threads)
  find_path(TIMING_WHEEL_ASIO_INCLUDE_DIR NAMES asio.hpp)
  if(TIMING_WHEEL_ASIO_INCLUDE_DIR)
    add_library(timing_wheel::asio INTERFACE IMPORTED ${timing_wheel_integration_scope})
    set_target_properties(timing_wheel::asio PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${TIMING_WHEEL_ASIO_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES "timing_wheel::timing_wheel;Threads::Threads")
  endif()
endif()

if(NOT TARGET timing_wheel::boost_asio AND TARGET Threads::Threads)
  find_path(TIMING_WHEEL_BOOST_ASIO_INCLUDE_DIR NAMES boost/asio.hpp)
  if(TIMING_WHEEL_BOOST_ASIO_INCLUDE_DIR)
    add_library(timing_wheel::boost_asio INTERFACE IMPORTED ${timing_wheel_integration_scope})
    set_target_properties(timing_wheel::boost_asio PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${TIMING_WHEEL_BOOST_ASIO_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES "timing_wheel::timing_wheel;Threads::Threads")
  endif()
endif()

if(NOT TARGET timing_wheel::uv)
  find_path(TIMING_WHEEL_UV_INCLUDE_DIR NAMES uv.h)
  find_library(TIMING_WHEEL_UV_LIBRARY NAMES uv libuv)
  if(TIMING_WHEEL_UV_INCLUDE_DIR AND TIMING_WHEEL_UV_LIBRARY)
    add_library(timing_wheel::uv INTERFACE IMPORTED ${timing_wheel_integration_scope})
    set_target_properties(timing_wheel::uv PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${TIMING_WHEEL_UV_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES "timing_wheel::timing_wheel;${TIMING_WHEEL_UV_LIBRARY}")
  endif()
endif()
