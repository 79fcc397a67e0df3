fuzz-build/fuzz/fuzz_kcmdline.o: fuzz/fuzz_kcmdline.c core/cmdline.h \
  core/vw.h config.h fuzz/fuzzutil.h

core/cmdline.h:

core/vw.h:

config.h:

fuzz/fuzzutil.h:
