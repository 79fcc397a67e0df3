fuzz-build/core/snapshot.o: core/snapshot.c core/snapshot.h \
  core/sysroot.h core/vw.h config.h core/tarsafe.h core/exec.h \
  core/redact.h

core/snapshot.h:

core/sysroot.h:

core/vw.h:

config.h:

core/tarsafe.h:

core/exec.h:

core/redact.h:
