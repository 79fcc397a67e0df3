fuzz-build/core/exec.o: core/exec.c core/exec.h core/sysroot.h core/vw.h \
  config.h

core/exec.h:

core/sysroot.h:

core/vw.h:

config.h:
