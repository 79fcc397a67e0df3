fuzz-build/core/vm_proxmox.o: core/vm_proxmox.c core/vmplan.h \
  core/answers.h core/acs.h core/facts.h core/sysroot.h core/vw.h \
  config.h core/change.h core/unit.h core/findings.h core/nvlink.h \
  core/exec.h core/storage.h

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

core/exec.h:

core/storage.h:
