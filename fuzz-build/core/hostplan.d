fuzz-build/core/hostplan.o: core/hostplan.c core/hostplan.h \
  core/answers.h core/acs.h core/facts.h core/sysroot.h core/vw.h \
  config.h core/change.h core/cmdline.h core/augedit.h core/bind.h \
  core/findings.h

core/hostplan.h:

core/answers.h:

core/acs.h:

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:

core/change.h:

core/cmdline.h:

core/augedit.h:

core/bind.h:

core/findings.h:
