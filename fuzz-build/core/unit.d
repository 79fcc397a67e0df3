fuzz-build/core/unit.o: core/unit.c core/unit.h core/answers.h core/acs.h \
  core/facts.h core/sysroot.h core/vw.h config.h core/findings.h \
  core/nvlink.h core/cmdline.h

core/unit.h:

core/answers.h:

core/acs.h:

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:

core/findings.h:

core/nvlink.h:

core/cmdline.h:
