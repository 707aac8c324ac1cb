# Install rules: libcairn, the public headers, the cairn tool, the Fortran
# module (when built), a CMake package (cairnConfig.cmake exporting
# cairn::cairn and cairn::fortran) and a pkg-config file (cairn.pc).
#
#   cmake --install build --prefix P
#   find_package(cairn 0.2 REQUIRED)   + target_link_libraries(app PRIVATE cairn::cairn)
#   pkg-config --cflags --libs cairn   (PKG_CONFIG_PATH=P/lib/pkgconfig)
include(CMakePackageConfigHelpers)

set(CAIRN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/cairn)

# The installed library, tool and Fortran library keep the directories
# outside the project they were linked from (MPI's, when it is not in the
# loader's default paths: an environment module's), as the build tree's
# copies do; CMake drops them on install otherwise, and `cairn ls` then
# needs the MPI module loaded. LD_LIBRARY_PATH still comes first.
set_target_properties(cairn_lib cairn_tool PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
if(TARGET cairn_fortran)
  set_target_properties(cairn_fortran PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
endif()

install(TARGETS cairn_lib EXPORT cairnTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES
  include/cairn/array.h include/cairn/cairn.h include/cairn/export.h include/cairn/iostream.h
  include/cairn/options.h include/cairn/status.h include/cairn/store.h
  include/cairn/stream.h include/cairn/tags.h
  ${PROJECT_BINARY_DIR}/include/cairn/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cairn)
install(TARGETS cairn_tool RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# cairn::fortran in an export set of its own: cairnConfig.cmake loads it
# only for a project whose Fortran compiler wrote the installed cairn.mod
# (else it compiles cairn.f90 in the project instead).
if(TARGET cairn_fortran)
  install(TARGETS cairn_fortran EXPORT cairnFortranTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES ${CAIRN_FORTRAN_MODDIR}/cairn.mod DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cairn/fortran)
  install(EXPORT cairnFortranTargets NAMESPACE cairn:: DESTINATION ${CAIRN_CMAKE_DIR})
endif()
# The module's source too, with or without a Fortran compiler here: a .mod
# is read only by the compiler (often the version) that wrote it, so a user
# of another Fortran compiler (ifx, nvfortran, flang, Cray) compiles
# cairn.f90 into the program and links libcairn alone (README;
# cairnConfig.cmake does it for CMake projects).
install(FILES fortran/cairn.f90 DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cairn/fortran)

install(EXPORT cairnTargets NAMESPACE cairn:: DESTINATION ${CAIRN_CMAKE_DIR})
set(CAIRN_CONFIG_SHARED ${BUILD_SHARED_LIBS})
if(TARGET cairn_fortran)
  set(CAIRN_CONFIG_FORTRAN ON)
  set(CAIRN_CONFIG_Fortran_ID "${CMAKE_Fortran_COMPILER_ID}")
  set(CAIRN_CONFIG_Fortran_VERSION "${CMAKE_Fortran_COMPILER_VERSION}")
else()
  set(CAIRN_CONFIG_FORTRAN OFF)
  set(CAIRN_CONFIG_Fortran_ID "")
  set(CAIRN_CONFIG_Fortran_VERSION "")
endif()
configure_package_config_file(cmake/cairnConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cairnConfig.cmake INSTALL_DESTINATION ${CAIRN_CMAKE_DIR})
# Before 1.0 a minor version may break the API: same major.minor only.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cairnConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cairnConfig.cmake ${PROJECT_BINARY_DIR}/cairnConfigVersion.cmake
  DESTINATION ${CAIRN_CMAKE_DIR})

# cairn.pc: MPI's C flags and libraries as CMake's FindMPI found them, so
# that a plain cc (not mpicc) can build against it.
set(CAIRN_PC_MPI_CFLAGS "")
foreach(d IN LISTS MPI_C_INCLUDE_DIRS)
  string(APPEND CAIRN_PC_MPI_CFLAGS " -I${d}")
endforeach()
set(CAIRN_PC_MPI_LIBS "")
foreach(l IN LISTS MPI_C_LIBRARIES)
  string(APPEND CAIRN_PC_MPI_LIBS " ${l}")
endforeach()
if(BUILD_SHARED_LIBS)
  # libcairn.so records its own needs (libxxhash, libstdc++).
  set(CAIRN_PC_LIBS_PRIVATE "")
  set(CAIRN_PC_REQUIRES_PRIVATE "")
else()
  set(CAIRN_PC_LIBS_PRIVATE "-lstdc++ -lpthread")
  set(CAIRN_PC_REQUIRES_PRIVATE "libxxhash")
endif()
# Relocatable: the prefix is found from the .pc file's own place, so that
# `cmake --install --prefix P` gives a cairn.pc that points into P.
file(RELATIVE_PATH CAIRN_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(cmake/cairn.pc.in ${PROJECT_BINARY_DIR}/cairn.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cairn.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
