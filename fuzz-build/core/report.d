fuzz-build/core/report.o: core/report.c core/report.h core/facts.h \
  core/sysroot.h core/vw.h config.h core/findings.h core/json.h

core/report.h:

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:

core/findings.h:

core/json.h:
