# `cmake --install build --prefix P` puts into P:
#   bin/simphant                         the command-line program
#   lib/libsimphant.so*                  the core library
#   include/simphant/...                 the library's headers (everything under src/simphant
#                                        except the CLI's own)
#   lib/cmake/SimPhant/                  the CMake package: find_package(SimPhant) gives
#                                        the target SimPhant::simphant
# A consumer's CMakeLists.txt (examples/cpp/CMakeLists.txt is one):
#   find_package(SimPhant 0.2 REQUIRED)
#   target_link_libraries(my_program PRIVATE SimPhant::simphant)
include(CMakePackageConfigHelpers)

set(SIMPHANT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/SimPhant)

install(TARGETS simphant_core EXPORT SimPhantTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS simphant RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/simphant DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp" PATTERN "cli" EXCLUDE)
install(EXPORT SimPhantTargets NAMESPACE SimPhant:: DESTINATION ${SIMPHANT_CMAKE_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/SimPhantConfig.cmake.in ${PROJECT_BINARY_DIR}/SimPhantConfig.cmake
                              INSTALL_DESTINATION ${SIMPHANT_CMAKE_DIR})
# No compatibility promise across minor versions before 1.0 (the soname changes with each).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/SimPhantConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/SimPhantConfig.cmake ${PROJECT_BINARY_DIR}/SimPhantConfigVersion.cmake
        DESTINATION ${SIMPHANT_CMAKE_DIR})
