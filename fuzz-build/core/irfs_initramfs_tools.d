fuzz-build/core/irfs_initramfs_tools.o: core/irfs_initramfs_tools.c \
  core/hostplan.h core/answers.h core/acs.h core/facts.h core/sysroot.h \
  core/vw.h config.h core/change.h core/cmdline.h core/augedit.h \
  core/vmplan.h core/unit.h core/findings.h core/nvlink.h

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

core/vmplan.h:

core/unit.h:

core/findings.h:

core/nvlink.h:
