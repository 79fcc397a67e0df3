fuzz-build/fuzz/fuzz_answers.o: fuzz/fuzz_answers.c core/answers.h \
  core/acs.h core/facts.h core/sysroot.h core/vw.h config.h core/state.h \
  fuzz/fuzzutil.h

core/answers.h:

core/acs.h:

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:

core/state.h:

fuzz/fuzzutil.h:
