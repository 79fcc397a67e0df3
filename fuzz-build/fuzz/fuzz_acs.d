fuzz-build/fuzz/fuzz_acs.o: fuzz/fuzz_acs.c core/acs.h core/facts.h \
  core/sysroot.h core/vw.h config.h fuzz/fuzzutil.h

core/acs.h:

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:

fuzz/fuzzutil.h:
