# cmake -DSRC=python/simphant -DDST=build/python/simphant -P python/sync_package.cmake
# Mirrors the package's Python files (*.py, py.typed), the web page's static files
# (serve/static/: *.html, *.js, *.css) and the gym tasks' models (gym/assets/: *.xml and
# their licence, *.txt) from SRC into DST: copies the
# changed ones, removes those no longer in SRC. The compiled module and the schema in DST
# are left alone. SRC and DST may be relative to the current folder.
get_filename_component(SRC ${SRC} ABSOLUTE)
get_filename_component(DST ${DST} ABSOLUTE)
file(GLOB_RECURSE src_files RELATIVE ${SRC} ${SRC}/*.py ${SRC}/py.typed ${SRC}/serve/static/*.html
     ${SRC}/serve/static/*.js ${SRC}/serve/static/*.css ${SRC}/gym/assets/*.xml ${SRC}/gym/assets/*.txt)
foreach(f IN LISTS src_files)
  get_filename_component(dir ${DST}/${f} DIRECTORY)
  file(MAKE_DIRECTORY ${dir})
  file(COPY_FILE ${SRC}/${f} ${DST}/${f} ONLY_IF_DIFFERENT)
endforeach()
file(GLOB_RECURSE dst_files RELATIVE ${DST} ${DST}/*.py ${DST}/py.typed ${DST}/serve/static/*.html
     ${DST}/serve/static/*.js ${DST}/serve/static/*.css ${DST}/gym/assets/*.xml ${DST}/gym/assets/*.txt)
foreach(f IN LISTS dst_files)
  if(NOT EXISTS ${SRC}/${f})
    file(REMOVE ${DST}/${f})
  endif()
endforeach()
