fuzz-build/core/storage.o: core/storage.c core/storage.h core/sysroot.h \
  core/vw.h config.h core/exec.h

core/storage.h:

core/sysroot.h:

core/vw.h:

config.h:

core/exec.h:
