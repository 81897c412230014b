# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# kernel.sh - configuring and building a kernel tree the way copybench's
# kernels are made, sourced by scripts/kernel-cache (the cached debug and
# bisect kernels) and, through bash, by tools/bisect-kernel (every step of
# a bisect: tools/bisect_kernel/kernel.py).
#
# Gives (bash; set -u safe; nothing runs at source time):
#   kernel_configure SRC OBJ FRAGMENT LOG
#       "make tinyconfig" in build directory OBJ (O=; OBJ may be SRC itself),
#       FRAGMENT merged on top with the kernel's merge_config.sh, then
#       "make olddefconfig"; make's output appended to LOG; status of make
#   kernel_unmet CONFIG FRAGMENT
#       each CONFIG_ line of FRAGMENT ("=y", "=N", "=string" or "# ... is not
#       set") that does not hold in the .config CONFIG, one per line with
#       what CONFIG has instead; nothing when all hold
#   kernel_targets CONFIG
#       the make targets that give tools/vm-run a bootable tree and
#       out-of-tree modules what they build against: vmlinux and modules
#       (which writes Module.symvers), bzImage when the kernel has no PVH
#       entry for qemu to enter
#   kernel_build SRC OBJ JOBS LOG
#       those targets with -jJOBS, nice'd, output appended to LOG
#   kernel_first_error LOG
#       the first line of a failed build's log that says why (a compiler
#       or linker error, make's own "***"), else its last line
#   kernel_tree_reset TREE REV
#       the git tree TREE put back at REV, detached, as a bisect or a
#       killed test may have left it: git's stale locks removed, a bisect
#       ended, changes and untracked files dropped, every branch deleted;
#       status 0 when all of that worked

kernel_configure() {
	local src=$1 obj=$2 fragment=$3 log=$4
	{
		make -C "$src" O="$obj" tinyconfig &&
		"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$fragment" &&
		make -C "$src" O="$obj" olddefconfig
	} >>"$log" 2>&1
}

kernel_unmet() {
	local config=$1 fragment=$2 line name
	while read -r line; do
		case "$line" in
		CONFIG_*=*)
			grep -qxF "$line" "$config" ||
				echo "$line (the .config has: $(grep -m1 "^${line%%=*}=" "$config" ||
					echo "not set"))" ;;
		"# CONFIG_"*" is not set")
			name=${line#\# }
			name=${name%% *}
			! grep -q "^$name=" "$config" ||
				echo "$line (the .config has: $(grep -m1 "^$name=" "$config"))" ;;
		esac
	done <"$fragment"
}

kernel_targets() {
	local config=$1
	echo vmlinux modules
	grep -qx 'CONFIG_PVH=y' "$config" || echo bzImage
}

kernel_build() {
	local src=$1 obj=$2 jobs=$3 log=$4
	# shellcheck disable=SC2046 # one target a word
	nice -n 10 make -C "$src" O="$obj" -j"$jobs" $(kernel_targets "$obj/.config") >>"$log" 2>&1
}

kernel_first_error() {
	local log=$1 line
	line=$(grep -m1 -E ': (fatal )?error: |: undefined reference to |\*\*\* ' "$log")
	[ -n "$line" ] || line=$(tail -n 1 "$log")
	echo "$line"
}

kernel_tree_reset() {
	local tree=$1 rev=$2
	rm -f "$tree/.git/index.lock" "$tree/.git/HEAD.lock"
	# Clean first: git bisect reset refuses to leave changed files, and
	# a bisect's branch cannot be deleted while the bisect lasts.
	git -C "$tree" checkout -q -f --detach "$rev" && git -C "$tree" clean -fdq || return
	git -C "$tree" bisect reset "$rev" >/dev/null 2>&1 || :
	git -C "$tree" checkout -q -f --detach "$rev" &&
		git -C "$tree" for-each-ref --format='%(refname:short)' refs/heads/ |
			xargs -r git -C "$tree" branch -q -D
}
