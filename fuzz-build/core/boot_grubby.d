fuzz-build/core/boot_grubby.o: core/boot_grubby.c core/hostplan.h \
  core/answers.h core/acs.h core/facts.h core/sysroot.h core/vw.h \
  config.h core/change.h core/cmdline.h core/augedit.h

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
