fuzz-build/fuzz/fuzzutil.o: fuzz/fuzzutil.c fuzz/fuzzutil.h core/vw.h \
  config.h

fuzz/fuzzutil.h:

core/vw.h:

config.h:
