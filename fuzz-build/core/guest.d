fuzz-build/core/guest.o: core/guest.c core/guest.h core/facts.h \
  core/sysroot.h core/vw.h config.h core/findings.h core/nvlink.h \
  core/exec.h core/json.h core/report.h

core/guest.h:

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:

core/findings.h:

core/nvlink.h:

core/exec.h:

core/json.h:

core/report.h:
