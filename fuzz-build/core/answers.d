fuzz-build/core/answers.o: core/answers.c core/answers.h core/acs.h \
  core/facts.h core/sysroot.h core/vw.h config.h core/apply.h \
  core/change.h core/nvlink.h

core/answers.h:

core/acs.h:

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:

core/apply.h:

core/change.h:

core/nvlink.h:
