fuzz-build/fuzz/fuzz_tar.o: fuzz/fuzz_tar.c core/tarsafe.h core/vw.h \
  config.h fuzz/fuzzutil.h

core/tarsafe.h:

core/vw.h:

config.h:

fuzz/fuzzutil.h:
