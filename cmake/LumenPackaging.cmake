# CPack: TGZ, ZIP, STGZ (.sh) archives of the portable install tree, and Debian packages (one per
# deb_* component of LumenDebian.cmake). `cpack --config <build>/CPackConfig.cmake` (or the
# "packages" preset).
set(CPACK_PACKAGE_NAME Lumen)
set(CPACK_PACKAGE_VENDOR "The Lumen developers")
set(CPACK_PACKAGE_CONTACT "Lumen developers <lumen@example.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(LUMEN_HOMEPAGE_URL "" CACHE STRING "The project's web page, for the packages (none by default)")
if (LUMEN_HOMEPAGE_URL)
    set(CPACK_PACKAGE_HOMEPAGE_URL "${LUMEN_HOMEPAGE_URL}")
endif ()
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_RESOURCE_FILE_README "${PROJECT_BINARY_DIR}/doc/README.md")
set(CPACK_PACKAGE_INSTALL_DIRECTORY "Lumen")
set(CPACK_PACKAGE_CHECKSUM SHA256)
if (DEFINED CPACK_SYSTEM_NAME)
elseif (WIN32)  # Lumen-<version>-win64.zip / .exe
    math(EXPR bits "${CMAKE_SIZEOF_VOID_P} * 8")
    set(CPACK_SYSTEM_NAME win${bits})
else ()
    set(CPACK_SYSTEM_NAME "${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR}")
endif ()
set(CPACK_PACKAGE_FILE_NAME "Lumen-${PROJECT_VERSION}-${CPACK_SYSTEM_NAME}")
set(CPACK_COMPONENTS_ALL runtime development)
if (TARGET lumen_cli)
    list(APPEND CPACK_COMPONENTS_ALL tools)
endif ()
set(CPACK_COMPONENT_RUNTIME_DISPLAY_NAME "Lumen runtime library")
set(CPACK_COMPONENT_DEVELOPMENT_DISPLAY_NAME "Lumen headers, static library, CMake package")
set(CPACK_COMPONENT_DEVELOPMENT_DEPENDS runtime)
set(CPACK_COMPONENT_TOOLS_DISPLAY_NAME "lumen command-line tool")
set(CPACK_COMPONENT_TOOLS_DEPENDS runtime)

if (WIN32)
    set(CPACK_GENERATOR ZIP NSIS)
    # A 64-bit installer (Debian's nsis has the amd64 stubs) for the 64-bit DLL, into
    # "Program Files". CPack has no option for NSIS's Target, so it rides on the line
    # "SetCompressor ..." of CPack's script (CPACK_NSIS_DEFINES is CPack's own).
    set(CPACK_NSIS_COMPRESSOR "lzma\n Target amd64-unicode")
    set(CPACK_NSIS_INSTALL_ROOT "$PROGRAMFILES64")
    set(CPACK_NSIS_DISPLAY_NAME "Lumen ${PROJECT_VERSION}")
    set(CPACK_NSIS_ENABLE_UNINSTALL_BEFORE_INSTALL ON)
else ()
    set(CPACK_GENERATOR TGZ ZIP STGZ)
    if (LUMEN_DEB_COMPONENTS)
        list(APPEND CPACK_GENERATOR DEB)
    endif ()
endif ()

# Debian: one package per deb_* component (LumenDebian.cmake), built from the Debian layout; the
# DEB generator swaps in those components (packaging/CPackProject.cmake) and strips the binaries.
if (LUMEN_DEB_COMPONENTS)
    set(CPACK_LUMEN_DEB_COMPONENTS ${LUMEN_DEB_COMPONENTS})
    set(CPACK_PROJECT_CONFIG_FILE "${PROJECT_SOURCE_DIR}/packaging/CPackProject.cmake")
    set(CPACK_DEB_COMPONENT_INSTALL ON)
    set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
    set(CPACK_DEBIAN_PACKAGE_SOURCE lumen)
    set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
    # Our own libraries, found in the build tree: their Depends are written out below.
    set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${PROJECT_BINARY_DIR}/sdk"
                                                    "${PROJECT_BINARY_DIR}/sdk/io")
    set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
    set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
    if (LUMEN_HOMEPAGE_URL)
        set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${LUMEN_HOMEPAGE_URL}")
    endif ()
    set(same "(= ${PROJECT_VERSION})")
    set(lib liblumen${PROJECT_VERSION_MAJOR})
    set(iolib liblumen-io${PROJECT_VERSION_MAJOR})
    set(triggers "${PROJECT_SOURCE_DIR}/packaging/debian/triggers")
    # name;section;Depends (besides shlibdeps);synopsis;extended description (lines <= 80 chars)
    set(pkg_deb_lib "${lib}" libs "" "Lumen image processing library (Halide pipelines)"
        "Lumen is an image processing SDK with a C API: levels, grayscale, Gaussian\nblur, unsharp mask, resize, Sobel and YUV conversions, built as Halide\npipelines for several x86-64 CPU levels and for CUDA and OpenCL devices,\nchosen at run time.\n\nThis package contains the shared library.")
    set(pkg_deb_dev liblumen-dev libdevel "${lib} ${same}"
        "Lumen image processing library - development files"
        "Lumen is an image processing SDK with a C API built from Halide pipelines.\n\nThis package contains the C headers, the static library, the CMake package\n(find_package(Lumen)), the pkg-config files lumen and lumen-static, the\nAPI reference (HTML), lumen(3) and the examples.")
    set(pkg_deb_io "${iolib}" libs "${lib} ${same}" "Lumen image I/O library (PNG and JPEG)"
        "lumen_io reads and writes PNG (8 and 16 bit) and JPEG files as Lumen images,\ndetecting the format from the content.\n\nThis package contains the shared library.")
    set(pkg_deb_io_dev liblumen-io-dev libdevel
        "${iolib} ${same}, liblumen-dev ${same}, libpng-dev, libjpeg-dev"
        "Lumen image I/O library (PNG and JPEG) - development files"
        "lumen_io reads and writes PNG and JPEG files as Lumen images.\n\nThis package contains its header, static library and the pkg-config files\nlumen-io and lumen-io-static (CMake: find_package(Lumen COMPONENTS io)).")
    set(pkg_deb_tools lumen-tools graphics "${lib} ${same}, ${iolib} ${same}"
        "Lumen image processing command-line tool"
        "The lumen command runs Lumen's pipelines (blur, resize, sharpen, ...) on PNG\nand JPEG files, alone or chained, and shows which CPU variant and GPU\nbackends the library can use.")
    foreach (comp IN LISTS LUMEN_DEB_COMPONENTS)
        string(TOUPPER ${comp} COMP)
        list(GET pkg_${comp} 0 name)
        list(GET pkg_${comp} 1 section)
        list(GET pkg_${comp} 2 depends)
        list(GET pkg_${comp} 3 synopsis)
        list(GET pkg_${comp} 4 extended)
        set(CPACK_DEBIAN_${COMP}_PACKAGE_NAME ${name})
        set(CPACK_DEBIAN_${COMP}_PACKAGE_SECTION ${section})
        set(CPACK_DEBIAN_${COMP}_PACKAGE_DEPENDS "${depends}")
        set(CPACK_DEBIAN_${COMP}_DESCRIPTION "${synopsis}\n${extended}")
        set(CPACK_COMPONENT_${COMP}_DISPLAY_NAME "${name}")
        if (section STREQUAL "libs")
            # An ldconfig trigger, and no maintainer scripts: CPack (3.31) writes postinst/postrm
            # calling ldconfig for any library under /usr/lib and has no switch for it, but skips
            # them when CONTROL_EXTRA names files called postinst/postrm; these do not exist, so
            # none is packaged (CPack warns "Adding file to tar"). lintian checks the result.
            set(CPACK_DEBIAN_${COMP}_PACKAGE_CONTROL_EXTRA "${triggers}" /nonexistent/postinst
                /nonexistent/postrm)
        endif ()
    endforeach ()
endif ()

include(CPack)
