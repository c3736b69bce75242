# The Debian layout (see LumenInstall.cmake): the multiarch libdir, and for each package its
# /usr/share/doc/<package>/copyright (DEP-5) and changelog.gz. Packages (LumenPackaging.cmake):
#   deb_lib liblumen1, deb_io liblumen-io1, deb_dev liblumen-dev, deb_io_dev liblumen-io-dev,
#   deb_tools lumen-tools.
if (NOT CMAKE_LIBRARY_ARCHITECTURE OR NOT LUMEN_GZIP)
    message(STATUS "Lumen: no Debian multiarch triplet or gzip here, no DEB packages")
    return()
endif ()
set(LUMEN_DEB_PACKAGES deb_lib liblumen${PROJECT_VERSION_MAJOR} deb_dev liblumen-dev
                       deb_tools lumen-tools)
if (TARGET lumen_io_shared)
    list(APPEND LUMEN_DEB_PACKAGES deb_io liblumen-io${PROJECT_VERSION_MAJOR} deb_io_dev liblumen-io-dev)
endif ()
lumen_install_layout(debian LIBDIR "lib/${CMAKE_LIBRARY_ARCHITECTURE}" EXCLUDE_FROM_ALL
                     RUNTIME deb_lib IO deb_io DEVELOPMENT deb_dev IO_DEVELOPMENT deb_io_dev
                     TOOLS deb_tools)

set(changelog "${PROJECT_BINARY_DIR}/install-debian/changelog.gz")
add_custom_command(OUTPUT "${changelog}"
                   COMMAND ${LUMEN_GZIP} -9nc "${PROJECT_SOURCE_DIR}/packaging/debian/changelog" > "${changelog}"
                   DEPENDS "${PROJECT_SOURCE_DIR}/packaging/debian/changelog" VERBATIM)
add_custom_target(lumen_deb_changelog ALL DEPENDS "${changelog}")
set(LUMEN_DEB_COMPONENTS "")
while (LUMEN_DEB_PACKAGES)
    list(POP_FRONT LUMEN_DEB_PACKAGES comp package)
    if (comp STREQUAL "deb_tools" AND NOT TARGET lumen_cli)
        continue()
    endif ()
    list(APPEND LUMEN_DEB_COMPONENTS ${comp})
    string(TOUPPER ${comp} COMP)
    set(LUMEN_DEB_${COMP}_NAME ${package})
    install(FILES "${PROJECT_SOURCE_DIR}/packaging/debian/copyright" "${changelog}"
            DESTINATION "${CMAKE_INSTALL_DATAROOTDIR}/doc/${package}" COMPONENT ${comp} EXCLUDE_FROM_ALL)
endwhile ()
