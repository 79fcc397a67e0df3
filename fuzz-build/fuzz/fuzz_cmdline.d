fuzz-build/fuzz/fuzz_cmdline.o: fuzz/fuzz_cmdline.c core/facts.h \
  core/sysroot.h core/vw.h config.h fuzz/fuzzutil.h

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:

fuzz/fuzzutil.h:
