fuzz-build/core/sysroot.o: core/sysroot.c core/sysroot.h core/vw.h \
  config.h

core/sysroot.h:

core/vw.h:

config.h:
