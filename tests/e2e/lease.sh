#!/bin/sh
# udhcpc's script in L2: report the lease on the console.
[ "$1" = bound ] && echo "L2 lease $ip" > /dev/console
exit 0
