#!/bin/sh
# enable-xrdp.sh - written by vfiowiz for this VM.
#
# Copy it into the Linux guest (Debian, Ubuntu or Fedora) and run it there
# as root:
#
#	sudo sh ./enable-xrdp.sh
#
# It installs and enables xrdp, makes it listen on 127.0.0.1 only or opens
# its port in the firewall to the allow-list only, and prints what it did.
# Running it again changes nothing more.
set -eu

# Addresses or networks that may connect (filled in by vfiowiz).
ALLOW='192.0.2.10 198.51.100.0/24 2001:db8::/32'
# The port xrdp listens on.
PORT=3389
# 1: listen on 127.0.0.1 only: connect through an SSH tunnel into the guest.
LOOPBACK=0
# 1: also this guest's own subnets: set for a guest behind the host's NAT
# network, where an SSH tunnel through the host arrives from.
LOCAL_SUBNET=1

INI=/etc/xrdp/xrdp.ini
NFT_FILE=/etc/xrdp/vfiowiz-allow.nft
DROPIN=/etc/systemd/system/xrdp.service.d/vfiowiz-allow.conf

say() { printf 'vfiowiz: %s\n' "$*"; }
die() { printf 'vfiowiz: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run this as root: sudo sh $0"
[ -r /etc/os-release ] || die "/etc/os-release is missing: unknown distribution"
# shellcheck source=/dev/null
. /etc/os-release
family=
for id in ${ID:-} ${ID_LIKE:-}; do
	case $id in
	debian | ubuntu) family=debian; break ;;
	fedora | rhel | centos) family=fedora; break ;;
	esac
done

# 1. Install xrdp.
case $family in
debian)
	if ! dpkg -s xrdp 2>/dev/null | grep -q '^Status: install ok installed'; then
		apt-get update
		DEBIAN_FRONTEND=noninteractive apt-get install -y xrdp
		say "xrdp installed"
	fi
	# xrdp reads its TLS key through the ssl-cert group.
	if getent group ssl-cert >/dev/null && ! id -nG xrdp | grep -qw ssl-cert; then
		usermod -a -G ssl-cert xrdp
		say "xrdp added to the ssl-cert group"
	fi
	;;
fedora)
	if ! rpm -q xrdp >/dev/null 2>&1; then
		dnf install -y xrdp
		say "xrdp installed"
	fi
	;;
*)
	die "this script knows Debian, Ubuntu and Fedora, not ${ID:-this system}"
	;;
esac
[ -f "$INI" ] || die "$INI is missing after the install"

# 2. Where xrdp listens: the port= line of [Globals] (other sections have
# port= lines of their own).
if [ "$LOOPBACK" = 1 ]; then
	want="tcp://.:$PORT"
else
	want=$PORT
fi
current=$(awk '/^\[/ { g = ($1 == "[Globals]") } g && /^port=/ { print substr($0, 6); exit }' "$INI")
restart=0
if [ "$current" != "$want" ]; then
	[ -f "$INI.vfiowiz-orig" ] || cp -p "$INI" "$INI.vfiowiz-orig"
	awk -v want="$want" '/^\[/ { g = ($1 == "[Globals]") }
		g && /^port=/ { print "port=" want; next } { print }' "$INI" >"$INI.vfiowiz-new"
	cat "$INI.vfiowiz-new" >"$INI"
	rm -f "$INI.vfiowiz-new"
	restart=1
	say "xrdp now listens on port=$want (the original is in $INI.vfiowiz-orig)"
else
	say "xrdp listens on port=$want"
fi

# 3. The firewall: only the allow-list may reach the port.
open_firewall() {
	if command -v ufw >/dev/null 2>&1 && ufw status | grep -q '^Status: active'; then
		for a in $ALLOW; do
			ufw allow proto tcp from "$a" to any port "$PORT"
		done
		say "ufw: port $PORT open to $ALLOW"
	elif command -v firewall-cmd >/dev/null 2>&1 && firewall-cmd --state >/dev/null 2>&1; then
		for a in $ALLOW; do
			case $a in
			*:*) fam=ipv6 ;;
			*) fam=ipv4 ;;
			esac
			firewall-cmd --permanent --add-rich-rule="rule family=\"$fam\" source address=\"$a\" port port=\"$PORT\" protocol=\"tcp\" accept"
		done
		firewall-cmd --reload
		say "firewalld: port $PORT open to $ALLOW"
	else
		# No firewall in charge: a table of ours, loaded before xrdp starts.
		if ! command -v nft >/dev/null 2>&1; then
			case $family in
			debian) DEBIAN_FRONTEND=noninteractive apt-get install -y nftables ;;
			fedora) dnf install -y nftables ;;
			esac
		fi
		v4='' v6=''
		for a in $ALLOW; do
			case $a in
			*:*) v6="${v6:+$v6, }$a" ;;
			*) v4="${v4:+$v4, }$a" ;;
			esac
		done
		e4='' e6=''
		[ -z "$v4" ] || e4=" elements = { $v4 };"
		[ -z "$v6" ] || e6=" elements = { $v6 };"
		{
			echo "# Written by enable-xrdp.sh (vfiowiz): only the allow-list reaches xrdp."
			echo "table inet vfiowiz_xrdp"
			echo "delete table inet vfiowiz_xrdp"
			echo "table inet vfiowiz_xrdp {"
			echo "	set allow4 { type ipv4_addr; flags interval; auto-merge;$e4 }"
			echo "	set allow6 { type ipv6_addr; flags interval; auto-merge;$e6 }"
			echo "	chain input {"
			echo "		type filter hook input priority filter; policy accept;"
			echo "		iif \"lo\" accept"
			echo "		tcp dport $PORT ip saddr @allow4 accept"
			echo "		tcp dport $PORT ip6 saddr @allow6 accept"
			echo "		tcp dport $PORT drop"
			echo "	}"
			echo "}"
		} >"$NFT_FILE.new"
		nft -c -f "$NFT_FILE.new" || die "nft refused $NFT_FILE.new"
		mv "$NFT_FILE.new" "$NFT_FILE"
		mkdir -p "$(dirname "$DROPIN")"
		nft_bin=$(command -v nft)
		printf '[Service]\nExecStartPre=%s -f %s\n' "$nft_bin" "$NFT_FILE" >"$DROPIN"
		systemctl daemon-reload
		restart=1
		say "nftables: port $PORT open to $ALLOW only (table inet vfiowiz_xrdp, loaded by xrdp.service)"
	fi
}

if [ "$LOCAL_SUBNET" = 1 ] && [ "$LOOPBACK" != 1 ] && command -v ip >/dev/null 2>&1; then
	for net in $(ip -o -f inet route show scope link | awk '{ print $1 }'); do
		ALLOW="${ALLOW:+$ALLOW }$net"
	done
fi
if [ "$LOOPBACK" = 1 ]; then
	say "no firewall opening: xrdp is reached through an SSH tunnel into this guest"
	command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] ||
		say "WARNING: no SSH server here; install openssh-server for the tunnel"
elif [ -z "$ALLOW" ]; then
	say "WARNING: the allow-list is empty: port $PORT is open to every address this guest can be reached from"
else
	open_firewall
fi

# 4. Start xrdp now and at every boot.
systemctl enable xrdp >/dev/null 2>&1 || systemctl enable xrdp
if [ "$restart" = 1 ]; then
	systemctl restart xrdp
else
	systemctl start xrdp
fi
if systemctl is-active --quiet xrdp; then
	say "done: xrdp is running on port $PORT"
else
	die "xrdp did not start: see journalctl -u xrdp"
fi
