# Build flags as INTERFACE targets (targets, not global flags):
#   lumen_hardening: stack protector, fortify, RELRO + BIND_NOW, non-executable stack (GCC/Clang)
#   lumen_sanitize:  -fsanitize=${LUMEN_SANITIZE} (e.g. address,undefined) for Lumen's own C code
#                    and the tests; the Halide-generated code is not instrumented.
set(LUMEN_SANITIZE "" CACHE STRING "Sanitizers for Lumen's C code and tests, e.g. address,undefined")
option(LUMEN_BUILD_FUZZERS "Build the libFuzzer harness (clang; add fuzzer-no-link to LUMEN_SANITIZE)")

add_library(lumen_hardening INTERFACE)
set(gnu_elf "$<AND:$<C_COMPILER_ID:GNU,Clang>,$<NOT:$<PLATFORM_ID:Windows,Darwin>>>")
# (not for mingw: both need libssp there; MSVC has /GS on by default)
set(gnu_not_win "$<AND:$<C_COMPILER_ID:GNU,Clang>,$<NOT:$<PLATFORM_ID:Windows>>>")
target_compile_options(lumen_hardening INTERFACE
    "$<${gnu_not_win}:-fstack-protector-strong>"
    "$<$<AND:${gnu_not_win},$<NOT:$<CONFIG:Debug>>>:-D_FORTIFY_SOURCE=2>")
target_link_options(lumen_hardening INTERFACE
    "$<${gnu_elf}:LINKER:-z,relro;LINKER:-z,now;LINKER:-z,noexecstack>")

add_library(lumen_sanitize INTERFACE)
if (LUMEN_SANITIZE)
    target_compile_options(lumen_sanitize INTERFACE -fsanitize=${LUMEN_SANITIZE}
                           -fno-omit-frame-pointer -fno-sanitize-recover=all)
    target_link_options(lumen_sanitize INTERFACE -fsanitize=${LUMEN_SANITIZE})
endif ()

# lumen_shared_library(<target> <version script>): the SONAME version, and on ELF only the version
# script's symbols leave the library, which must resolve every symbol itself (--no-undefined).
function(lumen_shared_library target version_script)
    set_target_properties(${target} PROPERTIES
                          VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
                          LINK_DEPENDS "${version_script}")
    set(gnu_elf "$<AND:$<C_COMPILER_ID:GNU,Clang>,$<NOT:$<PLATFORM_ID:Windows,Darwin>>>")
    target_link_options(${target} PRIVATE "$<${gnu_elf}:LINKER:--version-script=${version_script}>")
    if (NOT LUMEN_SANITIZE)  # sanitizer runtimes come with the executable
        target_link_options(${target} PRIVATE "$<${gnu_elf}:LINKER:--no-undefined>")
    endif ()
endfunction()

# lumen_aliases(<name> <target>): Lumen::<name>_shared and Lumen::<name>_static for <target>_shared
# and <target>_static, and Lumen::<name> for the one BUILD_SHARED_LIBS picks (shared if unset),
# as the installed package names them.
function(lumen_aliases name target)
    add_library(Lumen::${name}_shared ALIAS ${target}_shared)
    add_library(Lumen::${name}_static ALIAS ${target}_static)
    if (BUILD_SHARED_LIBS OR NOT DEFINED BUILD_SHARED_LIBS)
        add_library(Lumen::${name} ALIAS ${target}_shared)
    else ()
        add_library(Lumen::${name} ALIAS ${target}_static)
    endif ()
endfunction()
