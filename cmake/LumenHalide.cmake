# Everything that differs between Halide versions in Lumen's build lives here. Supported: the
# current Halide (PyPI wheel, see scripts/requirements.txt) and Halide 14 (Debian 12).
#
#   lumen_add_generator(<target> SOURCES <src>...)
#
# Makes the generator executable Lumen::<target>. A native build compiles it and exports it to
# <build>/cmake/LumenGeneratorsConfig.cmake; a cross build (e.g. for Windows) imports it from a
# host build instead: -DLumenGenerators_ROOT=<host build dir> (Halide's add_halide_generator).
#
#   lumen_add_halide_pipelines(<target> GENERATOR <exe> PIPELINES <name>...
#                              CPU_TARGETS <t>... GPU_TARGETS <t>...)
#
# For each pipeline <p> (generator "lumen_<p>") it makes the static Halide libraries
#   - lumen__<p>_cpu: ONE multi-target library over CPU_TARGETS (best first), Halide's wrapper
#     choosing a variant at run time through halide_can_use_target_features;
#   - lumen__<p>_<backend>: one library per GPU target (backend = cuda, opencl, ... from the target),
# all with the user_context feature and no runtime of their own, and ONE Halide runtime library
# lumen_runtime for the union of all targets:
#   - Halide 15+: Halide's own helpers, add_halide_runtime(lumen_runtime TARGETS ...) and
#     add_halide_library(... USE_RUNTIME lumen_runtime);
#   - Halide 14 (no public add_halide_runtime): the generator's -r / -e object, wrapped in static
#     libraries of the same names, so that the rest of the build is the same.
# <target> becomes an INTERFACE library for compiling against the generated headers; its
# properties: LUMEN_LIBRARIES (the pipeline libraries), LUMEN_RUNTIME (the runtime library),
# LUMEN_OBJECTS (every generated object file, runtime included, for the static liblumen and the
# tests), LUMEN_RUNTIME_OBJECT, LUMEN_GPU_BACKENDS, LUMEN_CPU_TARGETS, LUMEN_GPU_TARGETS.
# <target>_generate makes everything. LUMEN_HALIDE_VERSION is the Halide version found.

# No version in find_package: Halide's version files accept only the same major version.
if (CMAKE_CROSSCOMPILING)  # only the runtime headers, GenRT and the CMake helpers: no libHalide
    find_package(HalideHelpers REQUIRED)
    set(LUMEN_HALIDE_VERSION "${HalideHelpers_VERSION}")
else ()
    find_package(Halide REQUIRED)
    set(LUMEN_HALIDE_VERSION "${Halide_VERSION}")
endif ()
if (LUMEN_HALIDE_VERSION VERSION_LESS 14)
    message(FATAL_ERROR "Lumen needs Halide 14 or later; found ${LUMEN_HALIDE_VERSION}.")
endif ()
find_package(Threads REQUIRED)
message(STATUS "Lumen: Halide ${LUMEN_HALIDE_VERSION}")

function(lumen_add_generator TARGET)
    cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES")
    if (CMAKE_CROSSCOMPILING)
        find_package(LumenGenerators QUIET)
        if (NOT TARGET Lumen::${TARGET})
            message(FATAL_ERROR "Lumen: no host generator Lumen::${TARGET}. A cross build needs "
                    "-DLumenGenerators_ROOT=<a host build of Lumen> (cmake --preset release && "
                    "cmake --build --preset release --target ${TARGET}).")
        endif ()
    endif ()
    file(MAKE_DIRECTORY "${PROJECT_BINARY_DIR}/cmake")
    add_halide_generator(${TARGET} SOURCES ${ARG_SOURCES}
                         PACKAGE_NAME LumenGenerators PACKAGE_NAMESPACE Lumen::
                         EXPORT_FILE "${PROJECT_BINARY_DIR}/cmake/LumenGeneratorsConfig.cmake")
    if (TARGET ${TARGET})  # built here: a unity build compiles Halide.h once
        set_target_properties(${TARGET} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 0)
    endif ()
endfunction()

# Halide's OS name for the platform being built for.
if (WIN32)
    set(LUMEN_HALIDE_OS windows)
elseif (APPLE)
    set(LUMEN_HALIDE_OS osx)
else ()
    set(LUMEN_HALIDE_OS linux)
endif ()

# The backend a GPU target string is for.
function(_lumen_gpu_backend target out)
    foreach (b IN ITEMS cuda opencl metal d3d12compute vulkan webgpu)
        if (target MATCHES "(^|-)${b}(-|$)")
            set(${out} ${b} PARENT_SCOPE)
            return()
        endif ()
    endforeach ()
    message(FATAL_ERROR "Lumen: no GPU backend in Halide target '${target}'")
endfunction()

function(lumen_add_halide_pipelines TARGET)
    cmake_parse_arguments(PARSE_ARGV 1 ARG "" "GENERATOR" "PIPELINES;CPU_TARGETS;GPU_TARGETS")
    set(rt lumen_runtime)
    if (LUMEN_HALIDE_VERSION VERSION_LESS 15)
        _lumen_halide14_runtime(${rt} ${ARG_GENERATOR} ${ARG_CPU_TARGETS} ${ARG_GPU_TARGETS})
    else ()
        add_halide_runtime(${rt} TARGETS ${ARG_CPU_TARGETS} ${ARG_GPU_TARGETS})
    endif ()

    set(libs "")
    set(backends "")
    foreach (p IN LISTS ARG_PIPELINES)
        _lumen_halide_library(lumen__${p}_cpu ${ARG_GENERATOR} lumen_${p} ${rt} ${ARG_CPU_TARGETS})
        list(APPEND libs lumen__${p}_cpu)
        foreach (t IN LISTS ARG_GPU_TARGETS)
            _lumen_gpu_backend("${t}" b)
            _lumen_halide_library(lumen__${p}_${b} ${ARG_GENERATOR} lumen_${p} ${rt} ${t})
            list(APPEND libs lumen__${p}_${b})
            list(APPEND backends ${b})
        endforeach ()
    endforeach ()

    # The generated object files (for the static liblumen, which must carry them itself).
    set(objects "")
    foreach (lib IN LISTS libs rt)
        get_target_property(srcs ${lib} SOURCES)
        foreach (src IN LISTS srcs)
            cmake_path(ABSOLUTE_PATH src BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}")
            list(APPEND objects "${src}")
        endforeach ()
    endforeach ()
    list(GET objects -1 rt_object)

    add_custom_target(${TARGET}_generate)
    add_dependencies(${TARGET}_generate ${libs} ${rt})
    add_library(${TARGET} INTERFACE)
    add_dependencies(${TARGET} ${TARGET}_generate)
    target_include_directories(${TARGET} INTERFACE "${CMAKE_CURRENT_BINARY_DIR}")
    target_link_libraries(${TARGET} INTERFACE Halide::Runtime Threads::Threads ${CMAKE_DL_LIBS}
                                              "$<$<NOT:$<PLATFORM_ID:Windows>>:m>")
    list(REMOVE_DUPLICATES backends)
    _lumen_pipelines_header("${CMAKE_CURRENT_BINARY_DIR}/${TARGET}.h" "${ARG_PIPELINES}"
                            "${backends}")
    set_target_properties(${TARGET} PROPERTIES
                          LUMEN_LIBRARIES "${libs}"
                          LUMEN_RUNTIME ${rt}
                          LUMEN_OBJECTS "${objects}"
                          LUMEN_RUNTIME_OBJECT "${rt_object}"
                          LUMEN_GPU_BACKENDS "${backends}"
                          LUMEN_CPU_TARGETS "${ARG_CPU_TARGETS}"
                          LUMEN_GPU_TARGETS "${ARG_GPU_TARGETS}")
endfunction()

# One Halide library over TARGETS (several: a multi-target library), using the runtime RT.
# <header>: every pipeline's generated header, and LUMEN__TABLE(p), its functions by lumen_backend
# ({NULL (AUTO), CPU, CUDA, OPENCL}; NULL where not built), so the C wrapper lists no pipeline.
function(_lumen_pipelines_header header pipelines backends)
    set(text "/* Generated by lumen_add_halide_pipelines (cmake/LumenHalide.cmake). */\n")
    foreach (p IN LISTS pipelines)
        foreach (b IN LISTS backends ITEMS cpu)
            string(APPEND text "#include \"lumen__${p}_${b}.h\"\n")
        endforeach ()
    endforeach ()
    set(table "NULL, lumen__##p##_cpu")
    foreach (b IN ITEMS cuda opencl)
        if (b IN_LIST backends)
            string(APPEND table ", lumen__##p##_${b}")
        else ()
            string(APPEND table ", NULL")
        endif ()
    endforeach ()
    string(APPEND text "#define LUMEN__TABLE(p) {${table}}\n")
    file(CONFIGURE OUTPUT "${header}" CONTENT "${text}" @ONLY)
endfunction()

function(_lumen_halide_library lib gen generator rt)
    if (LUMEN_HALIDE_VERSION VERSION_LESS 15)
        _lumen_halide14_library(${lib} ${gen} ${generator} ${ARGN})
    else ()
        add_halide_library(${lib} FROM ${gen} GENERATOR ${generator}
                           TARGETS ${ARGN} FEATURES user_context USE_RUNTIME ${rt})
    endif ()
endfunction()

# --- Halide 14: what add_halide_runtime / add_halide_library(USE_RUNTIME) do in later versions.
if (WIN32)
    set(_lumen_obj .obj)
else ()
    set(_lumen_obj .o)
endif ()

# ONE runtime for every target: Halide takes the union of the GPU features and the intersection
# of the CPU ones.
function(_lumen_halide14_runtime rt gen)
    list(JOIN ARGN "," targets)
    set(out "${CMAKE_CURRENT_BINARY_DIR}/${rt}${_lumen_obj}")
    add_custom_command(OUTPUT "${out}"
                       COMMAND ${gen} -r ${rt} -e object -o "${CMAKE_CURRENT_BINARY_DIR}"
                               "target=${targets}"
                       DEPENDS ${gen}
                       COMMENT "Halide runtime (one for all pipelines): ${targets}"
                       VERBATIM)
    _lumen_halide14_wrap(${rt} "${out}")
    target_link_libraries(${rt} INTERFACE Halide::Runtime Threads::Threads ${CMAKE_DL_LIBS})
endfunction()

# One library over TARGETS (several: Halide's multi-target objects + wrapper).
function(_lumen_halide14_library lib gen generator)
    set(dir "${CMAKE_CURRENT_BINARY_DIR}")
    list(TRANSFORM ARGN APPEND "-user_context-no_runtime" OUTPUT_VARIABLE targets)
    list(LENGTH targets n)
    if (n EQUAL 1)
        set(outs "${dir}/${lib}${_lumen_obj}")
    else ()
        list(TRANSFORM targets PREPEND "${dir}/${lib}-" OUTPUT_VARIABLE outs)
        list(TRANSFORM outs APPEND "${_lumen_obj}")
        list(APPEND outs "${dir}/${lib}_wrapper${_lumen_obj}")
    endif ()
    list(JOIN targets "," target_arg)
    add_custom_command(OUTPUT ${outs} "${dir}/${lib}.h"
                       COMMAND ${gen} -g ${generator} -f ${lib} -e object,c_header -o "${dir}"
                               "target=${target_arg}"
                       DEPENDS ${gen}
                       COMMENT "Halide ${lib}"
                       VERBATIM)
    _lumen_halide14_wrap(${lib} ${outs})
    target_link_libraries(${lib} INTERFACE lumen_runtime)
endfunction()

function(_lumen_halide14_wrap lib)
    add_library(${lib} STATIC ${ARGN})
    set_target_properties(${lib} PROPERTIES LINKER_LANGUAGE CXX POSITION_INDEPENDENT_CODE ON)
endfunction()
