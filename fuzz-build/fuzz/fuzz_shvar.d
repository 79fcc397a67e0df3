fuzz-build/fuzz/fuzz_shvar.o: fuzz/fuzz_shvar.c core/augedit.h \
  core/sysroot.h core/vw.h config.h fuzz/fuzzutil.h

core/augedit.h:

core/sysroot.h:

core/vw.h:

config.h:

fuzz/fuzzutil.h:
