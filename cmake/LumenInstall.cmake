# Install rules: headers, liblumen (shared + static), the CMake package, pkg-config files, docs.
# Components: "runtime" (the shared library) and "development" (everything to build against it).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(LUMEN_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/Lumen"
    CACHE STRING "Where LumenConfig.cmake is installed, relative to the prefix")
mark_as_advanced(LUMEN_INSTALL_CMAKEDIR)

install(TARGETS lumen_shared EXPORT LumenSharedTargets
        RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT runtime
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT runtime
                NAMELINK_COMPONENT development
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development
        INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(TARGETS lumen_static EXPORT LumenStaticTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development
        INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/sdk/include/lumen" "${PROJECT_BINARY_DIR}/sdk/include/lumen"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT development
        FILES_MATCHING PATTERN "*.h")

# The CMake package, installed and for the build tree (find_package with Lumen_DIR=<build dir>).
foreach (flavour IN ITEMS Shared Static)
    install(EXPORT Lumen${flavour}Targets NAMESPACE Lumen::
            DESTINATION "${LUMEN_INSTALL_CMAKEDIR}" COMPONENT development)
    export(EXPORT Lumen${flavour}Targets NAMESPACE Lumen::
           FILE "${PROJECT_BINARY_DIR}/Lumen${flavour}Targets.cmake")
endforeach ()
configure_package_config_file(cmake/LumenConfig.cmake.in "${PROJECT_BINARY_DIR}/LumenConfig.cmake"
                              INSTALL_DESTINATION "${LUMEN_INSTALL_CMAKEDIR}")
write_basic_package_version_file("${PROJECT_BINARY_DIR}/LumenConfigVersion.cmake"
                                 COMPATIBILITY SameMajorVersion)
install(FILES "${PROJECT_BINARY_DIR}/LumenConfig.cmake" "${PROJECT_BINARY_DIR}/LumenConfigVersion.cmake"
        DESTINATION "${LUMEN_INSTALL_CMAKEDIR}" COMPONENT development)

# pkg-config files whose prefix is found from their own place (${pcfiledir}): relocatable.
file(RELATIVE_PATH LUMEN_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" LUMEN_PC_TO_PREFIX "${LUMEN_PC_TO_PREFIX}")
foreach (pc IN ITEMS lumen lumen-static)
    configure_file("${PROJECT_SOURCE_DIR}/packaging/${pc}.pc.in" "${PROJECT_BINARY_DIR}/${pc}.pc" @ONLY)
    install(FILES "${PROJECT_BINARY_DIR}/${pc}.pc"
            DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig" COMPONENT development)
endforeach ()

install(FILES "${PROJECT_SOURCE_DIR}/README.md" "${PROJECT_SOURCE_DIR}/LICENSE"
              "${PROJECT_SOURCE_DIR}/packaging/THIRD-PARTY-NOTICES.txt"
        DESTINATION "${CMAKE_INSTALL_DATAROOTDIR}/doc/lumen" COMPONENT runtime)
