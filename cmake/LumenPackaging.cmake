# CPack: TGZ, ZIP, STGZ (.sh) archives of the whole install tree, and two Debian packages:
# liblumen1 (runtime: the shared library) and liblumen-dev (headers, static library, CMake and
# pkg-config files). `cpack --config <build>/CPackConfig.cmake` (or the "packages" preset).
set(CPACK_PACKAGE_NAME Lumen)
set(CPACK_PACKAGE_VENDOR "The Lumen developers")
set(CPACK_PACKAGE_CONTACT "Lumen developers <lumen@example.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_HOMEPAGE_URL "${PROJECT_HOMEPAGE_URL}")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_RESOURCE_FILE_README "${PROJECT_SOURCE_DIR}/README.md")
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
    set(CPACK_NSIS_COMPRESSOR "lzma\n  Target amd64-unicode")
    set(CPACK_NSIS_INSTALL_ROOT "$PROGRAMFILES64")
    set(CPACK_NSIS_DISPLAY_NAME "Lumen ${PROJECT_VERSION}")
    set(CPACK_NSIS_ENABLE_UNINSTALL_BEFORE_INSTALL ON)
else ()
    set(CPACK_GENERATOR TGZ ZIP DEB STGZ)
endif ()

# Debian: one package per component, named and versioned the Debian way: liblumen1, liblumen-dev,
# lumen-tools (the CLI).
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${PROJECT_HOMEPAGE_URL}")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME liblumen${PROJECT_VERSION_MAJOR})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME liblumen-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS
    "liblumen${PROJECT_VERSION_MAJOR} (= ${PROJECT_VERSION})")
# lumen-tools links liblumen.so.1 from liblumen1: dpkg-shlibdeps finds it in the build tree.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${PROJECT_BINARY_DIR}/sdk")
set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME lumen-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION graphics)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "liblumen${PROJECT_VERSION_MAJOR} (= ${PROJECT_VERSION})")
set(CPACK_COMPONENT_TOOLS_DESCRIPTION
    "The lumen command-line tool: info, run and chain Lumen pipelines on PNG files, demo.")
set(CPACK_DEBIAN_TOOLS_DESCRIPTION "${CPACK_COMPONENT_TOOLS_DESCRIPTION}")
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION
    "Lumen image processing library: Halide pipelines (CPU variants, CUDA, OpenCL) with a C API.")
set(CPACK_COMPONENT_DEVELOPMENT_DESCRIPTION
    "Lumen development files: C headers, static library, CMake package and pkg-config files.")
# Debian reads a package description from the component's description.
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "${CPACK_COMPONENT_RUNTIME_DESCRIPTION}")
set(CPACK_DEBIAN_DEVELOPMENT_DESCRIPTION "${CPACK_COMPONENT_DEVELOPMENT_DESCRIPTION}")
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)

include(CPack)
