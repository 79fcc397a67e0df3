fuzz-build/core/pcinames.o: core/pcinames.c core/facts.h core/sysroot.h \
  core/vw.h config.h

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:
