# An overlay port for this repository: vcpkg install timing-wheel --overlay-ports=<repo>/ports
# It builds from the checkout the port sits in; a registry port would use vcpkg_from_github instead.
set(SOURCE_PATH "${CMAKE_CURRENT_LIST_DIR}/../..")

vcpkg_cmake_configure(
    SOURCE_PATH "${SOURCE_PATH}"
    OPTIONS
        -DTIMING_WHEEL_BUILD_TESTS=OFF
        -DTIMING_WHEEL_BUILD_EXAMPLES=OFF
        -DTIMING_WHEEL_BUILD_BENCHMARKS=OFF
        -DTIMING_WHEEL_INSTALL=ON
)
vcpkg_cmake_install()
vcpkg_cmake_config_fixup(PACKAGE_NAME timing_wheel CONFIG_PATH share/timing_wheel/cmake)
vcpkg_fixup_pkgconfig()

# Header-only: nothing is built, so there is no debug tree and no library directory.
file(REMOVE_RECURSE "${CURRENT_PACKAGES_DIR}/debug" "${CURRENT_PACKAGES_DIR}/lib")
file(INSTALL "${CMAKE_CURRENT_LIST_DIR}/usage" DESTINATION "${CURRENT_PACKAGES_DIR}/share/${PORT}")
vcpkg_install_copyright(FILE_LIST "${SOURCE_PATH}/LICENSE")
