fuzz-build/core/acs.o: core/acs.c core/acs.h core/facts.h core/sysroot.h \
  core/vw.h config.h

core/acs.h:

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:
