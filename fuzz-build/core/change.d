fuzz-build/core/change.o: core/change.c core/change.h core/sysroot.h \
  core/vw.h config.h core/exec.h

core/change.h:

core/sysroot.h:

core/vw.h:

config.h:

core/exec.h:
