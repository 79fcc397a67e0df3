#!/bin/sh
# udhcpc's script in L2: report the lease.
[ "$1" = bound ] && echo "L2 lease $ip"
exit 0
