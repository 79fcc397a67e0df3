fuzz-build/core/nvlink.o: core/nvlink.c core/nvlink.h core/facts.h \
  core/sysroot.h core/vw.h config.h core/exec.h

core/nvlink.h:

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:

core/exec.h:
