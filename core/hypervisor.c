/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hypervisor.c - which hypervisor runs this guest (hypervisor.h). */
#include "hypervisor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

static char *dmi(const struct vw_sysroot *sr, const char *key)
{
	char rel[64], *v, *t;

	snprintf(rel, sizeof(rel), "sys/class/dmi/id/%s", key);
	v = vw_sysroot_read_line(sr, rel);
	if (!v)
		return vw_xstrdup("");
	t = vw_xstrdup(vw_strtrim(v));
	free(v);
	return t;
}

/* Leaf 0x40000000: EBX, ECX, EDX spell the vendor. */
static void cpuid_vendor(const struct vw_sysroot *sr, char out[13])
{
	out[0] = '\0';
	if (vw_sysroot_is_host(sr)) {
#if defined(__x86_64__) || defined(__i386__)
		unsigned a, b, c, d, hv;

		/* Only when leaf 1 sets the hypervisor bit: bare metal may
		 * answer anything at 0x40000000. */
		if (__get_cpuid(1, &a, &b, &hv, &d) && (hv & (1u << 31))) {
			__cpuid(0x40000000, a, b, c, d);
			memcpy(out, &b, 4);
			memcpy(out + 4, &c, 4);
			memcpy(out + 8, &d, 4);
			out[12] = '\0';
		}
#endif
	} else {
		char *v = vw_sysroot_read_line(sr, ".vfiowiz/cpuid/0x40000000");

		if (v)
			snprintf(out, 13, "%s", v);
		free(v);
	}
	for (int i = 0; i < 12 && out[i]; i++)
		if ((unsigned char)out[i] < ' ' || (unsigned char)out[i] > '~')
			out[i] = ' ';
}

void vw_hv_detect(struct vw_hv_info *h, const struct vw_sysroot *sr)
{
	char *cmdline = vw_sysroot_read_line(sr, "proc/cmdline");
	bool have_dmi = vw_sysroot_is_dir(sr, "sys/class/dmi/id");
	const char *c;

	memset(h, 0, sizeof(*h));
	cpuid_vendor(sr, h->cpuid);
	c = h->cpuid;
	h->sys_vendor = dmi(sr, "sys_vendor");
	h->product_name = dmi(sr, "product_name");
	h->bios_vendor = dmi(sr, "bios_vendor");
	if (strstr(h->bios_vendor, "Proxmox")) {
		h->hv = VW_HV_PROXMOX;
		h->evidence = vw_xasprintf("DMI bios_vendor \"%s\"", h->bios_vendor);
	} else if (vw_startswith(h->sys_vendor, "VMware") || !strcmp(c, "VMwareVMware")) {
		h->hv = VW_HV_VMWARE;
	} else if (!strcmp(h->sys_vendor, "Microsoft Corporation") && !strcmp(h->product_name, "Virtual Machine")) {
		h->hv = VW_HV_HYPERV;
	} else if (!strcmp(h->sys_vendor, "Xen") || !strcmp(c, "XenVMMXenVMM")) {
		h->hv = VW_HV_XEN;
	} else if (!strcmp(h->sys_vendor, "QEMU") || vw_startswith(c, "KVMKVMKVM") || !strcmp(c, "TCGTCGTCGTCG")) {
		h->hv = have_dmi || !vw_startswith(c, "KVMKVMKVM") ? VW_HV_KVM : VW_HV_FIRECRACKER;
		if (!have_dmi && cmdline && strstr(cmdline, "firecracker"))
			h->evidence = vw_xasprintf("CPUID 0x40000000 \"%s\", no DMI, firecracker on the kernel command line", c);
	} else if (!have_dmi && cmdline && strstr(cmdline, "firecracker")) {
		h->hv = VW_HV_FIRECRACKER;
		h->evidence = vw_xstrdup("no DMI, firecracker on the kernel command line");
	} else if (!strcmp(c, "Microsoft Hv")) {
		h->hv = VW_HV_HYPERV;
	} else if (*c) {
		h->hv = VW_HV_UNKNOWN;
	}
	if (!h->evidence) {
		struct vw_buf b = VW_BUF_INIT;

		vw_buf_adds(&b, "");
		if (*c)
			vw_buf_printf(&b, "CPUID 0x40000000 \"%s\"", c);
		if (*h->sys_vendor)
			vw_buf_printf(&b, "%sDMI \"%s\" \"%s\"", b.len ? ", " : "", h->sys_vendor, h->product_name);
		else if (!have_dmi)
			vw_buf_printf(&b, "%sno DMI", b.len ? ", " : "");
		h->evidence = vw_buf_steal(&b);
	}
	free(cmdline);
}

void vw_hv_done(struct vw_hv_info *h)
{
	free(h->sys_vendor);
	free(h->product_name);
	free(h->bios_vendor);
	free(h->evidence);
	memset(h, 0, sizeof(*h));
}

const char *vw_hv_name(enum vw_hv hv)
{
	static const char *const names[] = { "none", "unknown", "kvm", "proxmox", "vmware", "hyperv", "xen",
					     "firecracker" };

	return (unsigned)hv < VW_ARRAY_SIZE(names) ? names[hv] : "unknown";
}

const char *vw_hv_title(enum vw_hv hv)
{
	switch (hv) {
	case VW_HV_KVM: return _("KVM/QEMU (libvirt or plain QEMU)");
	case VW_HV_PROXMOX: return _("Proxmox VE (KVM/QEMU)");
	case VW_HV_VMWARE: return _("VMware ESXi");
	case VW_HV_HYPERV: return _("Microsoft Hyper-V");
	case VW_HV_XEN: return _("Xen");
	case VW_HV_FIRECRACKER: return _("a KVM microVM without firmware (Firecracker-like)");
	case VW_HV_NONE: return _("none");
	default: return _("an unknown hypervisor");
	}
}

char *vw_hv_bar_fix(enum vw_hv hv, uint64_t sum64)
{
	uint64_t w = (uint64_t)32 << 30;
	unsigned long long mb, gb;

	while (w < sum64 + sum64 / 4 && w < ((uint64_t)1 << 56))
		w <<= 1;
	mb = (unsigned long long)(w >> 20);
	gb = (unsigned long long)(w >> 30);
	switch (hv) {
	case VW_HV_KVM:
		return vw_xasprintf(_("On the host, in the domain (virsh edit NAME): <cpu mode='host-passthrough'> holding <maxphysaddr mode='passthrough'/> (libvirt 8.7 or later), and <qemu:commandline><qemu:arg value='-fw_cfg'/><qemu:arg value='name=opt/ovmf/X-PciMmio64Mb,string=%llu'/></qemu:commandline> with xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0' on <domain>; the machine must be q35 with OVMF (UEFI). vfiowiz on the host writes these."),
				    mb);
	case VW_HV_PROXMOX:
		return vw_xasprintf(_("On the Proxmox host, in /etc/pve/qemu-server/VMID.conf: cpu: host,phys-bits=host and args: -fw_cfg name=opt/ovmf/X-PciMmio64Mb,string=%llu, with bios: ovmf and machine: q35; then stop and start the VM (qm stop VMID; qm start VMID)."),
				    mb);
	case VW_HV_VMWARE:
		return vw_xasprintf(_("On ESXi, with the VM powered off, in its .vmx (Edit Settings, VM Options, Advanced, Configuration Parameters): pciPassthru.use64bitMMIO = \"TRUE\" and pciPassthru.64bitMMIOSizeGB = \"%llu\"; firmware = \"efi\"; and reserve all guest memory (Memory, Reserve all guest memory), which passthrough requires."),
				    gb);
	case VW_HV_HYPERV:
		return vw_xasprintf(_("On the Hyper-V host, in PowerShell as administrator with the VM off: Set-VM -Name VM -AutomaticStopAction TurnOff -GuestControlledCacheTypes $true -LowMemoryMappedIoSpace 3Gb -HighMemoryMappedIoSpace %lluMb. The GPU goes to the VM with DDA: $loc = (Get-PnpDeviceProperty -KeyName DEVPKEY_Device_LocationPaths -InstanceId ID).Data[0]; Disable-PnpDevice -InstanceId ID; Dismount-VMHostAssignableDevice -Force -LocationPath $loc; Add-VMAssignableDevice -LocationPath $loc -VMName VM."),
				    mb);
	case VW_HV_XEN:
		return vw_xasprintf(_("On the Xen host, in the domain's xl configuration: the GPU in pci = [ ... ] and room for its BARs (mmio_hole = 3072 for the 32-bit ones; %llu MiB of 64-bit BARs need hvmloader to place them above 4 GiB); then xl destroy and xl create the domain."),
				    mb);
	case VW_HV_FIRECRACKER:
		return vw_xasprintf(_("This microVM has no firmware setting for it: the VMM that passes the GPU must reserve %llu MiB of 64-bit MMIO space above 4 GiB for the device."),
				    mb);
	default:
		return vw_xasprintf(_("On the hypervisor: give the VM UEFI firmware, the host CPU's physical address width and a 64-bit MMIO window of %llu MiB above 4 GiB."),
				    mb);
	}
}
