fuzz-build/core/bind.o: core/bind.c core/bind.h core/answers.h core/acs.h \
  core/facts.h core/sysroot.h core/vw.h config.h core/hostplan.h \
  core/change.h core/cmdline.h core/augedit.h core/vmplan.h core/unit.h \
  core/findings.h core/nvlink.h

core/bind.h:

core/answers.h:

core/acs.h:

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:

core/hostplan.h:

core/change.h:

core/cmdline.h:

core/augedit.h:

core/vmplan.h:

core/unit.h:

core/findings.h:

core/nvlink.h:
