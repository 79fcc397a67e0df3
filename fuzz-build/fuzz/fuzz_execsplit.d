fuzz-build/fuzz/fuzz_execsplit.o: fuzz/fuzz_execsplit.c core/exec.h \
  core/sysroot.h core/vw.h config.h fuzz/fuzzutil.h

core/exec.h:

core/sysroot.h:

core/vw.h:

config.h:

fuzz/fuzzutil.h:
