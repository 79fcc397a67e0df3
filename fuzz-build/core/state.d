fuzz-build/core/state.o: core/state.c core/state.h core/answers.h \
  core/acs.h core/facts.h core/sysroot.h core/vw.h config.h core/apply.h \
  core/change.h

core/state.h:

core/answers.h:

core/acs.h:

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:

core/apply.h:

core/change.h:
