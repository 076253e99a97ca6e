# shellcheck shell=sh disable=SC2034,SC2317  # VM_* are read by e2e.sh; functions run indirectly
# Boot reaches userspace, the release binary runs inside (its ldd closure is complete), and
# fontconfig finds the packed fonts through the prebuilt cache.
VM_DISPLAY=virtio

guest() {
  version=$(KioskCards --version)
  echo "$version"
  kiosk_check "KioskCards --version prints its version" kiosk_matches "$version" "KioskCards [0-9]*"
  sans=$(fc-match sans-serif)
  echo "sans-serif: $sans"
  kiosk_check "fc-match maps sans-serif to DejaVu Sans" kiosk_matches "$sans" "*DejaVu Sans*"
  # -v tells per font directory whether the cache built on the host is valid here.
  cache=$(fc-cache -v 2>&1)
  echo "$cache" | grep -E 'cache' || true
  kiosk_check "the prebuilt fontconfig cache is valid in the guest" \
    kiosk_matches "$cache" "*existing cache is valid*"
  kiosk_check "and nothing had to be re-cached" test "$(echo "$cache" | grep -c 'new cache contents')" = 0
}
