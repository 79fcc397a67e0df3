fuzz-build/core/apply.o: core/apply.c core/apply.h core/change.h \
  core/sysroot.h core/vw.h config.h core/sha256.h core/exec.h

core/apply.h:

core/change.h:

core/sysroot.h:

core/vw.h:

config.h:

core/sha256.h:

core/exec.h:
