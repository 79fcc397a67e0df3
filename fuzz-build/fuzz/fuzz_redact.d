fuzz-build/fuzz/fuzz_redact.o: fuzz/fuzz_redact.c core/redact.h core/vw.h \
  config.h fuzz/fuzzutil.h

core/redact.h:

core/vw.h:

config.h:

fuzz/fuzzutil.h:
