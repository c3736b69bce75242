# Read by cpack for each generator (CPACK_PROJECT_CONFIG_FILE): the DEB generator packages the
# Debian layout's deb_* components (cmake/LumenDebian.cmake), stripped.
if (CPACK_GENERATOR STREQUAL "DEB")
    set(CPACK_COMPONENTS_ALL ${CPACK_LUMEN_DEB_COMPONENTS})
    set(CPACK_STRIP_FILES ON)
    unset(CPACK_PACKAGE_DESCRIPTION_SUMMARY)  # else CPack puts it above each package's synopsis
endif ()
