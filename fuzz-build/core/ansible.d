fuzz-build/core/ansible.o: core/ansible.c core/ansible.h core/change.h \
  core/sysroot.h core/vw.h config.h core/hostplan.h core/answers.h \
  core/acs.h core/facts.h core/cmdline.h core/sha256.h core/exec.h

core/ansible.h:

core/change.h:

core/sysroot.h:

core/vw.h:

config.h:

core/hostplan.h:

core/answers.h:

core/acs.h:

core/facts.h:

core/cmdline.h:

core/sha256.h:

core/exec.h:
