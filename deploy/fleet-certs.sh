#!/bin/sh
# Makes the fleet server's TLS files: a small CA (made once, kept) and a server certificate
# for the names kiosks use in fleet-url, signed by it (docs/FLEET.md, TLS).
#
#   deploy/fleet-certs.sh DIR NAME [NAME...]      e.g. DIR=/etc/kioskfleet NAME=fleet.example.org
#
# In DIR: ca.key (the CA's key: keep it off the server, 0600), ca.crt (copy it to every kiosk
# as /etc/kioskcards/fleet-ca.crt), server.key (0600) and server.crt for postgresql.conf's
# ssl_key_file / ssl_cert_file. A NAME made of digits and dots, or with a ':', is an IP
# address; anything else a DNS name. Run again to renew the server certificate (the CA stays).
set -eu
[ $# -ge 2 ] || { echo "usage: $0 DIR SERVER-NAME [MORE-NAMES...]" >&2; exit 2; }
dir=$1
shift
san=""
for name in "$@"; do
    case $name in
        *:*) kind=IP ;;
        *[!0-9.]*) kind=DNS ;;
        *) kind=IP ;;
    esac
    san="${san:+$san,}$kind:$name"
done
cd "$dir"
umask 077
ec="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
if [ ! -e ca.key ]; then
    # shellcheck disable=SC2086 # $ec is several arguments
    openssl req -x509 $ec -keyout ca.key -out ca.crt -days 3650 -subj "/CN=KioskCards fleet CA"
fi
# shellcheck disable=SC2086
openssl req $ec -keyout server.key -out server.csr -subj "/CN=$1"
printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$san" >server.ext
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 825 \
    -extfile server.ext
chmod 644 ca.crt server.crt
rm -f server.csr server.ext
echo "fleet-certs: $dir/server.crt for $san, signed by $dir/ca.crt"
