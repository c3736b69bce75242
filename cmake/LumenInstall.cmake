# Install rules, in two layouts of the same files (lumen_install_layout below):
#  - portable: lib/, for `cmake --install`, the archives (TGZ, ZIP, STGZ) and the Windows packages;
#    components runtime, development, tools;
#  - debian: the multiarch libdir (lib/x86_64-linux-gnu), a copyright file and changelog in
#    share/doc/<package>, compressed man pages; components deb_<name>, one per Debian package, only
#    for CPack's DEB generator (EXCLUDE_FROM_ALL: a plain install never sees them).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(LUMEN_DOCDIR "${CMAKE_INSTALL_DATAROOTDIR}/doc/lumen")
find_program(LUMEN_GZIP gzip)

# Files made once for both layouts: the installed README (README.md without its source-only parts),
# Doxygen HTML (docs/Doxyfile.in), gzipped man pages.
file(READ "${PROJECT_SOURCE_DIR}/README.md" readme)
string(REGEX REPLACE "<!-- source-only -->.*<!-- /source-only -->\n?" "" readme "${readme}")
set(old "")
if (EXISTS "${PROJECT_BINARY_DIR}/doc/README.md")
    file(READ "${PROJECT_BINARY_DIR}/doc/README.md" old)
endif ()
if (NOT old STREQUAL readme)
    file(WRITE "${PROJECT_BINARY_DIR}/doc/README.md" "${readme}")
endif ()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/README.md")

set(man_pages "")
foreach (page IN ITEMS lumen.1 lumen.3)
    set(in "${PROJECT_SOURCE_DIR}/packaging/man/${page}")
    if (EXISTS "${in}" AND LUMEN_GZIP)
        add_custom_command(OUTPUT "${PROJECT_BINARY_DIR}/doc/${page}.gz"
                           COMMAND ${LUMEN_GZIP} -9nc "${in}" > "${PROJECT_BINARY_DIR}/doc/${page}.gz"
                           DEPENDS "${in}" VERBATIM)
        list(APPEND man_pages "${PROJECT_BINARY_DIR}/doc/${page}.gz")
    endif ()
endforeach ()
add_custom_target(lumen_man ALL DEPENDS ${man_pages})

find_package(Doxygen QUIET)
option(LUMEN_BUILD_DOCS "Build the API reference (Doxygen HTML, warnings are errors)" ${DOXYGEN_FOUND})
if (LUMEN_BUILD_DOCS)
    find_package(Doxygen REQUIRED)
    set(LUMEN_DOXYGEN_INPUT "${PROJECT_SOURCE_DIR}/sdk/include/lumen ${PROJECT_BINARY_DIR}/sdk/include/lumen")
    if (TARGET lumen_io_shared)
        string(APPEND LUMEN_DOXYGEN_INPUT " ${PROJECT_SOURCE_DIR}/sdk/io/include/lumen")
    endif ()
    configure_file("${PROJECT_SOURCE_DIR}/docs/Doxyfile.in" "${PROJECT_BINARY_DIR}/doc/Doxyfile" @ONLY)
    file(GLOB headers CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/sdk/include/lumen/*.h"
                                        "${PROJECT_SOURCE_DIR}/sdk/io/include/lumen/*.h")
    add_custom_command(OUTPUT "${PROJECT_BINARY_DIR}/doc/html/index.html"
                       COMMAND ${CMAKE_COMMAND} -E rm -rf "${PROJECT_BINARY_DIR}/doc/html"
                       COMMAND Doxygen::doxygen "${PROJECT_BINARY_DIR}/doc/Doxyfile"
                       DEPENDS ${headers} "${PROJECT_BINARY_DIR}/doc/Doxyfile"
                               "${PROJECT_BINARY_DIR}/sdk/include/lumen/version.h"
                       WORKING_DIRECTORY "${PROJECT_BINARY_DIR}/doc" VERBATIM)
    add_custom_target(lumen_docs ALL DEPENDS "${PROJECT_BINARY_DIR}/doc/html/index.html")
endif ()

# <name>_shared and <name>_static into the layout's export sets (one per flavour): the shared
# library in component <runtime>; its namelink, import library and the static one in <dev>.
function(lumen__install_library layout libdir exclude name runtime dev)
    install(TARGETS ${name}_shared EXPORT LumenSharedTargets-${layout}
            RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT ${runtime} ${exclude}
            LIBRARY DESTINATION "${libdir}" COMPONENT ${runtime} ${exclude}
                    NAMELINK_COMPONENT ${dev}
            ARCHIVE DESTINATION "${libdir}" COMPONENT ${dev} ${exclude}
            INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
    install(TARGETS ${name}_static EXPORT LumenStaticTargets-${layout}
            ARCHIVE DESTINATION "${libdir}" COMPONENT ${dev} ${exclude}
            INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
endfunction()

# lumen_install_layout(<layout> LIBDIR <dir> [EXCLUDE_FROM_ALL]
#                      RUNTIME <c> IO <c> DEVELOPMENT <c> IO_DEVELOPMENT <c> TOOLS <c>)
# The same files in both layouts, each in the component given for its kind.
function(lumen_install_layout layout)
    cmake_parse_arguments(PARSE_ARGV 1 arg "EXCLUDE_FROM_ALL"
                          "LIBDIR;RUNTIME;IO;DEVELOPMENT;IO_DEVELOPMENT;TOOLS" "")
    set(x "")
    if (arg_EXCLUDE_FROM_ALL)
        set(x EXCLUDE_FROM_ALL)
    endif ()
    set(libdir "${arg_LIBDIR}")
    set(cmakedir "${libdir}/cmake/Lumen")
    set(out "${PROJECT_BINARY_DIR}/install-${layout}")

    # The libraries, in one export set per flavour (lumen_io's targets beside the core's).
    lumen__install_library(${layout} "${libdir}" "${x}" lumen ${arg_RUNTIME} ${arg_DEVELOPMENT})
    install(DIRECTORY "${PROJECT_SOURCE_DIR}/sdk/include/lumen" "${PROJECT_BINARY_DIR}/sdk/include/lumen"
            DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT ${arg_DEVELOPMENT} ${x}
            FILES_MATCHING PATTERN "*.h")
    set(pcs lumen lumen-static)
    if (TARGET lumen_io_shared)
        lumen__install_library(${layout} "${libdir}" "${x}" lumen_io ${arg_IO}
                               ${arg_IO_DEVELOPMENT})
        install(FILES "${PROJECT_SOURCE_DIR}/sdk/io/include/lumen/lumen_io.h"
                DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/lumen" COMPONENT ${arg_IO_DEVELOPMENT} ${x})
        list(APPEND pcs lumen-io lumen-io-static)
    endif ()

    # The CMake package (the build tree's too, for the portable layout).
    foreach (flavour IN ITEMS Shared Static)
        install(EXPORT Lumen${flavour}Targets-${layout} NAMESPACE Lumen::
                FILE Lumen${flavour}Targets.cmake DESTINATION "${cmakedir}"
                COMPONENT ${arg_DEVELOPMENT} ${x})
        if (layout STREQUAL "portable")
            export(EXPORT Lumen${flavour}Targets-${layout} NAMESPACE Lumen::
                   FILE "${PROJECT_BINARY_DIR}/Lumen${flavour}Targets.cmake")
        endif ()
    endforeach ()
    set(LUMEN_HAVE_IO OFF)
    if (TARGET lumen_io_shared)
        set(LUMEN_HAVE_IO ON)
    endif ()
    configure_package_config_file(cmake/LumenConfig.cmake.in "${out}/LumenConfig.cmake"
                                  INSTALL_DESTINATION "${cmakedir}")
    if (layout STREQUAL "portable")
        configure_package_config_file(cmake/LumenConfig.cmake.in "${PROJECT_BINARY_DIR}/LumenConfig.cmake"
                                      INSTALL_DESTINATION "${PROJECT_BINARY_DIR}")
        write_basic_package_version_file("${PROJECT_BINARY_DIR}/LumenConfigVersion.cmake"
                                         COMPATIBILITY SameMajorVersion)
    endif ()
    install(FILES "${out}/LumenConfig.cmake" "${PROJECT_BINARY_DIR}/LumenConfigVersion.cmake"
            DESTINATION "${cmakedir}" COMPONENT ${arg_DEVELOPMENT} ${x})

    # pkg-config files whose prefix is found from their own place (${pcfiledir}): relocatable.
    file(RELATIVE_PATH LUMEN_PC_TO_PREFIX "/${libdir}/pkgconfig" "/")
    string(REGEX REPLACE "/$" "" LUMEN_PC_TO_PREFIX "${LUMEN_PC_TO_PREFIX}")
    set(LUMEN_PC_LIBDIR "${libdir}")
    foreach (pc IN LISTS pcs)
        configure_file("${PROJECT_SOURCE_DIR}/packaging/${pc}.pc.in" "${out}/${pc}.pc" @ONLY)
        set(comp ${arg_DEVELOPMENT})
        if (pc MATCHES "^lumen-io")
            set(comp ${arg_IO_DEVELOPMENT})
        endif ()
        install(FILES "${out}/${pc}.pc" DESTINATION "${libdir}/pkgconfig" COMPONENT ${comp} ${x})
    endforeach ()

    # The CLI and the manual pages.
    if (TARGET lumen_cli)
        install(TARGETS lumen_cli RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT ${arg_TOOLS} ${x})
        if (layout STREQUAL "debian")  # the library is in a system directory: no RUNPATH
            install(CODE "file(RPATH_REMOVE FILE \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/lumen\")"
                    COMPONENT ${arg_TOOLS} ${x})
        endif ()
    endif ()
    foreach (page IN LISTS man_pages)
        get_filename_component(name "${page}" NAME)
        if (name MATCHES "^lumen\\.1" AND TARGET lumen_cli)
            install(FILES "${page}" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1" COMPONENT ${arg_TOOLS} ${x})
        elseif (name MATCHES "^lumen\\.3")
            install(FILES "${page}" DESTINATION "${CMAKE_INSTALL_MANDIR}/man3" COMPONENT ${arg_DEVELOPMENT} ${x})
        endif ()
    endforeach ()

    # Documentation: licences (Debian: in each package's copyright file instead), the user's
    # README, examples, the API reference.
    if (NOT layout STREQUAL "debian")
        install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" "${PROJECT_SOURCE_DIR}/packaging/THIRD-PARTY-NOTICES.txt"
                DESTINATION "${LUMEN_DOCDIR}" COMPONENT ${arg_RUNTIME} ${x})
    endif ()
    install(FILES "${PROJECT_BINARY_DIR}/doc/README.md"
            DESTINATION "${LUMEN_DOCDIR}" COMPONENT ${arg_DEVELOPMENT} ${x})
    install(DIRECTORY "${PROJECT_SOURCE_DIR}/examples/" DESTINATION "${LUMEN_DOCDIR}/examples"
            COMPONENT ${arg_DEVELOPMENT} ${x})
    if (LUMEN_BUILD_DOCS)
        install(DIRECTORY "${PROJECT_BINARY_DIR}/doc/html/" DESTINATION "${LUMEN_DOCDIR}/html"
                COMPONENT ${arg_DEVELOPMENT} ${x})
    endif ()
endfunction()

lumen_install_layout(portable LIBDIR "${CMAKE_INSTALL_LIBDIR}" RUNTIME runtime IO runtime
                     DEVELOPMENT development IO_DEVELOPMENT development TOOLS tools)

# Debian: five packages; share/doc/<package>/ holds its copyright (DEP-5) and changelog.
if (CMAKE_SYSTEM_NAME STREQUAL "Linux")
    include(LumenDebian)
endif ()
