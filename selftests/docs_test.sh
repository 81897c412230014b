#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# docs_test.sh - make htmldocs builds the book from Documentation/*.rst with
# Sphinx without a single warning, and a warning fails it; the book is read
# in order, whole, linked, indexed, and shows options as they are typed.
#
# Usage: selftests/docs_test.sh
#
# Checks: the build and its warnings; an HTML page per .rst file; every
# page listed once in index.rst's toctrees (no glob), in the parts of the
# reading order, and a page left out fails the build; no chapter named as a
# plain "Documentation/NAME.rst" in the text (a :doc: link instead); an
# index with entries from every chapter; every option written in a page
# ("--like") in its HTML as typed, and no en dash made of "--"; a page with
# a warning fails the build. Needs python3-sphinx (scripts/setup). Prints TAP;
# exit 0 pass, 1 fail. Takes a few seconds.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
CB_SELFTESTS=$top/selftests
. "$CB_SELFTESTS/ktap.sh"
cd "$top" || exit 1

out=$top/build/htmldocs
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The parts of the book, in reading order: index.rst's toctree captions.
parts=("What it is" "The module" "Measuring" "Comparing and bisecting" "Tracing"
       "Testing" "Packaging")

ktap_print_header

command -v sphinx-build >/dev/null ||
	ktap_exit_fail_msg "sphinx-build missing: install python3-sphinx (scripts/setup)"

rm -rf "$out"
if make -s htmldocs >"$tmp/log" 2>&1; then
	ktap_test_pass "make htmldocs succeeds"
else
	sed 's/^/# /' "$tmp/log" | head -n 40
	ktap_test_fail "make htmldocs succeeds"
fi

if grep -qiE 'warning|error' "$tmp/log"; then
	grep -iE 'warning|error' "$tmp/log" | head -n 40 | sed 's/^/# /'
	ktap_test_fail "Sphinx printed no warning"
else
	ktap_test_pass "Sphinx printed no warning"
fi

# Every page is in the book.
missing=
for f in Documentation/*.rst; do
	page=$(basename "$f" .rst).html
	[ -s "$out/$page" ] || missing="$missing $page"
done
if [ -z "$missing" ]; then
	ktap_test_pass "every .rst page of Documentation/ has its HTML page"
else
	ktap_print_msg "missing:$missing"
	ktap_test_fail "every .rst page of Documentation/ has its HTML page"
fi

# index.rst's toctrees: their captions and entries, in order ("caption"
# lines and "page" lines), read the way Sphinx reads them.
toctrees() {
	awk '
	/^\.\. toctree::/ { in_t = 1; next }
	in_t && /^   :caption:/ { sub(/^   :caption: */, ""); print "caption " $0; next }
	in_t && /^   :glob:/ { print "glob"; next }
	in_t && /^   :/ { next }
	in_t && /^   [^ :]/ { sub(/^ +/, ""); print "page " $0; next }
	in_t && /^[^ ]/ { in_t = 0 }' Documentation/index.rst
}
toctree_whole() {
	local t f name bad=0
	t=$(toctrees)
	grep -qx glob <<<"$t" && { echo "index.rst globs: no reading order"; bad=1; }
	for f in Documentation/*.rst; do
		name=$(basename "$f" .rst)
		[ "$name" = index ] && continue
		case $(grep -cx "page $name" <<<"$t") in
		1) ;;
		0) echo "$name.rst is in no toctree of index.rst"; bad=1 ;;
		*) echo "$name.rst is listed twice"; bad=1 ;;
		esac
	done
	while read -r _ name; do
		[ -f "Documentation/$name.rst" ] || { echo "the toctree lists $name, which is no page"; bad=1; }
	done < <(grep '^page ' <<<"$t")
	return $bad
}
if toctree_whole >"$tmp/toc" 2>&1; then
	ktap_test_pass "index.rst lists every page once, without a glob"
else
	sed 's/^/# /' "$tmp/toc"
	ktap_test_fail "index.rst lists every page once, without a glob"
fi

reading_order() {
	local got want
	got=$(toctrees | sed -n 's/^caption //p')
	want=$(printf '%s\n' "${parts[@]}")
	[ "$got" = "$want" ] && return 0
	# shellcheck disable=SC2086 # as written: echo joins the lines with spaces
	echo "parts: $(echo $got | tr '\n' ',')"
	# shellcheck disable=SC2086 # as written: echo joins the lines with spaces
	echo "want:  $(echo $want | tr '\n' ',')"
	return 1
}
if reading_order >"$tmp/order" 2>&1 && [ "$(toctrees | sed -n '2s/^page //p')" = intro ]; then
	ktap_test_pass "the book opens on what copybench is and follows the reading order"
else
	sed 's/^/# /' "$tmp/order"
	ktap_test_fail "the book opens on what copybench is and follows the reading order"
fi

# A page left out of the toctrees fails the build.
cp -r Documentation VERSION "$tmp/"
printf '.. SPDX-License-Identifier: GPL-2.0\n\n======\norphan\n======\n\nText.\n' \
	>"$tmp/Documentation/zz-orphan.rst"
if make -s htmldocs HTMLDOCS_SRC="$tmp/Documentation" HTMLDOCS="$tmp/html-orphan" \
		>"$tmp/orphan.log" 2>&1; then
	ktap_test_fail "a page missing from the toctrees fails make htmldocs"
elif grep -q "zz-orphan.rst.*isn't included in any toctree" "$tmp/orphan.log"; then
	ktap_test_pass "a page missing from the toctrees fails make htmldocs"
else
	sed 's/^/# /' "$tmp/orphan.log" | head -n 20
	ktap_test_fail "a page missing from the toctrees fails make htmldocs (for another reason)"
fi
rm -f "$tmp/Documentation/zz-orphan.rst"

# The pages' text, with the HTML's tags and code blocks (<pre>) removed:
# what a reader reads as prose. One file per page.
mkdir -p "$tmp/text"
python3 - "$out" "$tmp/text" <<'EOF'
import html, os, re, sys
src, dst = sys.argv[1], sys.argv[2]
for name in os.listdir(src):
    if not name.endswith(".html"):
        continue
    t = open(os.path.join(src, name), encoding="utf-8").read()
    t = re.sub(r"(?s)<pre.*?</pre>", " ", t)
    t = re.sub(r"(?s)<script.*?</script>", " ", t)
    t = html.unescape(re.sub(r"<[^>]+>", "", t))
    open(os.path.join(dst, name[:-5] + ".txt"), "w", encoding="utf-8").write(t)
EOF

# No chapter named as a file in prose: a :doc: link.
if grep -Ho 'Documentation/[a-z_-]*\.rst' "$tmp"/text/*.txt >"$tmp/plain"; then
	sed 's/^/# /' "$tmp/plain"
	ktap_test_fail "no plain-text Documentation/NAME.rst in the book: chapters are links"
else
	ktap_test_pass "no plain-text Documentation/NAME.rst in the book: chapters are links"
fi

# The index has entries, from every chapter.
index_full() {
	local f name n bad=0
	n=$(grep -o '<li><a href="[a-z-]*\.html#' "$out/genindex.html" | wc -l)
	echo "genindex.html: $n entries"
	[ "$n" -gt 0 ] || bad=1
	for f in Documentation/*.rst; do
		name=$(basename "$f" .rst)
		[ "$name" = index ] && continue
		grep -q "href=\"$name\.html#" "$out/genindex.html" ||
			{ echo "$name.rst has no index entry"; bad=1; }
	done
	return $bad
}
if index_full >"$tmp/index" 2>&1; then
	ktap_print_msg "$(head -n 1 "$tmp/index")"
	ktap_test_pass "the index has entries from every chapter"
else
	sed 's/^/# /' "$tmp/index"
	ktap_test_fail "the index has entries from every chapter"
fi

# Options as typed: every "--option" of a page's source is in its HTML, and
# no en dash stands where "--" was (smartquotes).
options_typed() {
	local f name opt bad=0
	for f in Documentation/*.rst; do
		name=$(basename "$f" .rst)
		# shellcheck disable=SC2013 # options, one word each
		for opt in $(grep -o -- '--[a-z][a-z0-9-]*' "$f" | sort -u); do
			grep -qF -- "$opt" "$out/$name.html" ||
				{ echo "$name: $opt is not in $name.html as typed"; bad=1; }
		done
	done
	if grep -Ho -P '.{0,20}[\x{2013}\x{2014}][a-z].{0,20}' "$tmp"/text/*.txt; then
		echo "an en or em dash before a word: '--' turned into a dash"
		bad=1
	fi
	return $bad
}
if options_typed >"$tmp/opts" 2>&1; then
	ktap_test_pass "options render as typed (sweep --like, not an en dash)"
else
	head -n 20 "$tmp/opts" | sed 's/^/# /'
	ktap_test_fail "options render as typed (sweep --like, not an en dash)"
fi

# The same target on a copy with one bad title must fail: warnings are
# errors, and a page of the directory is read even if nothing links it.
printf '.. SPDX-License-Identifier: GPL-2.0\n\n====\nbroken title\n====\n' \
	>"$tmp/Documentation/zz-broken.rst"
if make -s htmldocs HTMLDOCS_SRC="$tmp/Documentation" HTMLDOCS="$tmp/html" \
		>"$tmp/bad.log" 2>&1; then
	ktap_test_fail "a page with a warning fails make htmldocs"
elif grep -q 'zz-broken.rst.*WARNING' "$tmp/bad.log"; then
	ktap_test_pass "a page with a warning fails make htmldocs"
else
	sed 's/^/# /' "$tmp/bad.log" | head -n 20
	ktap_test_fail "a page with a warning fails make htmldocs (for another reason)"
fi

ktap_end
