fuzz-build/core/picks.o: core/picks.c core/picks.h core/acs.h \
  core/facts.h core/sysroot.h core/vw.h config.h core/answers.h \
  core/nvlink.h core/unit.h core/findings.h

core/picks.h:

core/acs.h:

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:

core/answers.h:

core/nvlink.h:

core/unit.h:

core/findings.h:
