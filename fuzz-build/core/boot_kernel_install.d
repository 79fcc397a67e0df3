fuzz-build/core/boot_kernel_install.o: core/boot_kernel_install.c \
  core/hostplan.h core/answers.h core/acs.h core/facts.h core/sysroot.h \
  core/vw.h config.h core/change.h core/cmdline.h core/augedit.h

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
