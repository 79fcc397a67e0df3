fuzz-build/core/facts.o: core/facts.c core/facts.h core/sysroot.h \
  core/vw.h config.h core/cmdline.h

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:

core/cmdline.h:
