#!/bin/sh
# Written by vfiowiz (GPU passthrough); 'vfiowiz undo' takes it back.
# modprobe runs this in place of loading vfio-pci (see /etc/modprobe.d/vfiowiz.conf).
# Another device on this host has the same ids as these functions, so they
# go to vfio-pci by address: driver_override is set before vfio-pci and the
# host drivers load (softdeps load vfio-pci first).
for dev in @ADDRESSES@; do
	sys=/sys/bus/pci/devices/$dev
	[ -e "$sys/driver_override" ] || continue
	echo vfio-pci > "$sys/driver_override"
	if [ -e "$sys/driver" ] && ! [ "$sys/driver" -ef /sys/bus/pci/drivers/vfio-pci ]; then
		echo "$dev" > "$sys/driver/unbind"
	fi
done
exec /sbin/modprobe --ignore-install vfio-pci "$@"
