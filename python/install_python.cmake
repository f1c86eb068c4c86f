# install_python.cmake — run by `cmake --install` (python/CMakeLists.txt sets MCF_PYTHON,
# MCF_PYTHON_DIR, MCF_PYTHON_SOURCE, MCF_BINDIR): the package into the interpreter's
# site-packages under the install prefix (Debian's /usr/local/lib/python3.X/dist-packages for
# /usr/local), or lib/python3.X/site-packages under any other prefix (then on PYTHONPATH),
# and mcf/_paths.py with the installed program's path.
if(NOT MCF_PYTHON_DIR)
  execute_process(
    COMMAND "${MCF_PYTHON}" -c "import os, site, sys
p = os.path.abspath(sys.argv[1])
dirs = [d for d in site.getsitepackages() if os.path.abspath(d).startswith(p + os.sep)]
print(dirs[0] if dirs else os.path.join(p, 'lib', 'python%d.%d' % sys.version_info[:2], 'site-packages'))" "${CMAKE_INSTALL_PREFIX}"
    OUTPUT_VARIABLE MCF_PYTHON_DIR OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mcf: ${MCF_PYTHON} could not name its site-packages under "
            "${CMAKE_INSTALL_PREFIX}; set MCF_PYTHON_INSTALL_DIR")
  endif()
endif()
file(INSTALL "${MCF_PYTHON_SOURCE}" DESTINATION "$ENV{DESTDIR}${MCF_PYTHON_DIR}"
     FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE PATTERN "_paths.py" EXCLUDE)
set(program "${CMAKE_INSTALL_PREFIX}/${MCF_BINDIR}/mcf")
file(WRITE "$ENV{DESTDIR}${MCF_PYTHON_DIR}/mcf/_paths.py"
     "# written by cmake --install: the mcf program installed with this package\nPROGRAM = \"${program}\"\n")
message(STATUS "Installing: the Python package mcf into ${MCF_PYTHON_DIR} (program ${program})")
