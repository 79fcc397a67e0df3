fuzz-build/core/findings.o: core/findings.c core/findings.h core/facts.h \
  core/sysroot.h core/vw.h config.h

core/findings.h:

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:
