# embed_templates.cmake — the templates of `mcf new-model` (core/program/templates/*.in) as
# C, so that the program carries them: no file is looked up at run time.  Each template
# becomes an array of its lines, newlines included, ending with NULL,
#     const char *const mcfi_template_<id>[]
# <id> being the file's name without ".in", made a C identifier (model.c.in: model_c;
# CMakeLists.txt.in: CMakeLists_txt).  core/program/new_model.h declares them.
#
#   cmake -DOUT=FILE.c "-DTEMPLATES=A.in|B.in|..." -P embed_templates.cmake
#
# FILE.c is rewritten only when its text changes.
if(NOT OUT OR NOT TEMPLATES)
  message(FATAL_ERROR "embed_templates.cmake: give -DOUT=FILE.c and -DTEMPLATES=A.in|B.in")
endif()
string(REPLACE "|" ";" templates "${TEMPLATES}")

set(text "/* Written by core/cmake/embed_templates.cmake from core/program/templates/ at build\n")
string(APPEND text " * time: do not edit.  The templates of `mcf new-model` (new_model.c). */\n")
string(APPEND text "#include <stddef.h>\n\n#include \"new_model.h\"\n")
foreach(t IN LISTS templates)
  get_filename_component(name "${t}" NAME)
  string(REGEX REPLACE "\\.in$" "" name "${name}")
  string(MAKE_C_IDENTIFIER "${name}" id)
  file(READ "${t}" body)
  # C escapes: the backslash first; '?' against trigraphs (-std=c11); tabs and CRs visible
  string(REPLACE "\\" "\\\\" body "${body}")
  string(REPLACE "\"" "\\\"" body "${body}")
  string(REPLACE "?" "\\?" body "${body}")
  string(REPLACE "\t" "\\t" body "${body}")
  string(REPLACE "\r" "\\r" body "${body}")
  # one string literal per line; a last line without a newline keeps none
  set(last_newline OFF)
  if(body MATCHES "\n$")
    set(last_newline ON)
    string(REGEX REPLACE "\n$" "" body "${body}")
  endif()
  string(REPLACE "\n" "\\n\",\n    \"" body "${body}")
  if(last_newline)
    string(APPEND body "\\n")
  endif()
  string(APPEND text "\n/* ${name}.in */\nconst char *const mcfi_template_${id}[] = {\n")
  string(APPEND text "    \"${body}\",\n    NULL};\n")
endforeach()

set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
