#!/usr/bin/env bash
# Full disk: runs full_disk_writer (1 and 2 ranks; plain commits, staged
# puts, CommitAsync, and CommitAsync with staged puts) on small file systems the
# test makes itself: a 16 MiB tmpfs, and a 16 MiB ext4 image on a loop
# device (real fsync, delayed allocation). Needs root (mount); a kind that
# cannot be made is reported and left out, and the test is skipped (exit
# 77) only when neither can be made.
# Usage: full_disk_test.sh FULL_DISK_WRITER MPIEXEC
set -u
writer=$1 mpiexec=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-full-disk-XXXXXX")
mnt=$tmp/mnt
mkdir -p "$mnt"
cleanup() {
  mountpoint -q "$mnt" && umount "$mnt"
  rm -rf "$tmp"
}
trap cleanup EXIT
ran=0 failures=0

run_on() {  # run_on KIND: the mount is ready at $mnt
  for mode in plain staging async async-staging; do
    for np in 1 2; do
      rm -rf "${mnt:?}"/*
      echo "== $1, $mode, $np rank(s)"
      # Bounded: a hang fails the run, not the suite.
      if ! timeout -k 5 120 "$mpiexec" -n "$np" "$writer" "$mnt" "$mode"; then
        echo "FAIL: $1, $mode, $np rank(s)"
        failures=$((failures + 1))
      fi
    done
  done
  ran=$((ran + 1))
}

if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: mounting a small file system needs root (running as uid $(id -u))"
  exit 77
fi
if out=$(mount -t tmpfs -o size=16m cairn-full-disk "$mnt" 2>&1); then
  run_on tmpfs
  umount "$mnt"
else
  echo "tmpfs left out: mount -t tmpfs failed: $out"
fi
if command -v mkfs.ext4 >/dev/null && command -v losetup >/dev/null; then
  truncate -s 16M "$tmp/ext4.img"
  if ! out=$(mkfs.ext4 -q -F "$tmp/ext4.img" 2>&1); then
    echo "ext4 left out: mkfs.ext4 failed: $out"
  elif out=$(mount -o loop "$tmp/ext4.img" "$mnt" 2>&1); then
    run_on ext4-loop
    umount "$mnt"
  else
    echo "ext4 left out: mount -o loop failed (no loop devices here?): $out"
  fi
else
  echo "ext4 left out: mkfs.ext4 or losetup missing"
fi
if [ $ran -eq 0 ]; then
  echo "SKIP: no small file system could be made (see above)"
  exit 77
fi
echo "full-disk runs on $ran file system kind(s), failures: $failures"
[ $failures -eq 0 ]
