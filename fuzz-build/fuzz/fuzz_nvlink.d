fuzz-build/fuzz/fuzz_nvlink.o: fuzz/fuzz_nvlink.c core/nvlink.h \
  core/facts.h core/sysroot.h core/vw.h config.h fuzz/fuzzutil.h

core/nvlink.h:

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:

fuzz/fuzzutil.h:
