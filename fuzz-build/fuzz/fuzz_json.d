fuzz-build/fuzz/fuzz_json.o: fuzz/fuzz_json.c core/json.h core/vw.h \
  config.h fuzz/fuzzutil.h

core/json.h:

core/vw.h:

config.h:

fuzz/fuzzutil.h:
