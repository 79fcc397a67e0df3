#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udhcpc's script in L2: report the lease on the console.
# shellcheck disable=SC2154 # udhcpc sets $ip
[ "$1" = bound ] && echo "L2 lease $ip" > /dev/console
exit 0
