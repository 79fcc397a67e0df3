fuzz-build/core/vmplan.o: core/vmplan.c core/vmplan.h core/answers.h \
  core/acs.h core/facts.h core/sysroot.h core/vw.h config.h \
  core/change.h core/unit.h core/findings.h core/nvlink.h core/storage.h

core/vmplan.h:

core/answers.h:

core/acs.h:

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:

core/change.h:

core/unit.h:

core/findings.h:

core/nvlink.h:

core/storage.h:
