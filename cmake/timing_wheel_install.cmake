include(CMakePackageConfigHelpers)

install(TARGETS timing_wheel EXPORT timing_wheel_targets)
install(DIRECTORY include/timing_wheel DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(timing_wheel_config_dir ${CMAKE_INSTALL_DATADIR}/timing_wheel/cmake)
install(EXPORT timing_wheel_targets NAMESPACE timing_wheel:: FILE timing_wheelTargets.cmake
        DESTINATION ${timing_wheel_config_dir})
configure_package_config_file(cmake/timing_wheelConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/timing_wheelConfig.cmake INSTALL_DESTINATION ${timing_wheel_config_dir})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/timing_wheelConfigVersion.cmake
  COMPATIBILITY SameMajorVersion ARCH_INDEPENDENT)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/timing_wheelConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/timing_wheelConfigVersion.cmake
              ${CMAKE_CURRENT_SOURCE_DIR}/cmake/timing_wheel_integrations.cmake
        DESTINATION ${timing_wheel_config_dir})

configure_file(cmake/timing_wheel.pc.in ${CMAKE_CURRENT_BINARY_DIR}/timing_wheel.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/timing_wheel.pc DESTINATION ${CMAKE_INSTALL_DATADIR}/pkgconfig)
