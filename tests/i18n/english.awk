# english.awk - English text left on the screens (or in the output) of a
# translated run.  Text is compared as words: box drawing, arrows and
# punctuation around words are dropped, and a file is one stream of words,
# so a sentence wrapped over lines is still found.
#
# Catalog mode:  awk -f english.awk -v mode=catalog CATALOG.po FILE...
#   CATALOG.po: every msgid of the sources with its translation (msgattrib
#   --no-wrap output).  A msgid is English on the screen when one of its
#   word windows (4 words, or the whole msgid when shorter; format
#   directives split it) appears in a FILE and in no translation of the
#   catalog (translators keep commands, paths and names as they are); more
#   than half of a msgid's windows must be seen, so that a few words shared
#   with another message do not count.  Pieces of a msgid shorter than three
#   words are not looked for (tests/i18n/english.txt lists the short
#   strings that matter, as phrases).  Messages translated as themselves are
#   skipped.
#   Prints: FOUND <tab> msgid <tab> words seen <tab> file
#
# Phrase mode:  awk -f english.awk -v mode=phrases [-v expect=1] LIST FILE...
#   LIST: English phrases, one a line (# comments).  Prints FOUND <tab>
#   phrase <tab> file for each phrase seen; with expect=1 (the English run,
#   checking the walk itself) MISSING <tab> phrase for each phrase never seen.

function words(s,    n, i, t, out, a) {
	# box drawing, arrows, marks, ellipsis; no-break spaces; quotes
	gsub(/│|┌|┐|└|┘|─|▲|▼|↑|↓|→|·|…|«|»|“|”|‘|’/, " ", s)
	gsub(NBSP, " ", s)
	gsub(NNBSP, " ", s)
	gsub(/\t/, " ", s)
	n = split(s, a, / +/)
	out = ""
	for (i = 1; i <= n; i++) {
		t = a[i]
		gsub(/^[][(){}"'<>,.;:!?*|]+/, "", t)
		gsub(/[][(){}"'<>,.;:!?*|]+$/, "", t)
		if (t != "")
			out = out (out == "" ? "" : " ") t
	}
	return out
}

# All windows of 1 to 4 words of the word string w into set[].
function add_windows(w, set, tag,    n, a, i, k, key, j) {
	n = split(w, a, " ")
	for (i = 1; i <= n; i++) {
		key = ""
		for (k = 0; k < 4 && i + k <= n; k++) {
			key = key (k ? " " : "") a[i + k]
			if (!(key in set))
				set[key] = tag
		}
	}
}

# A window that says something in English: two lowercase letters in a row,
# and for a single word at least four letters.
function wordy(key) {
	if (key !~ /[a-z][a-z]/)
		return 0
	if (key !~ / / && length(key) < 4)
		return 0
	return 1
}

# Unescape a PO string.
function unpo(s) {
	gsub(/\\"/, "\"", s)
	gsub(/\\\\/, "\\", s)
	return s
}

# Whether msgid s shows in English: its word windows (4 words, or 3 for a
# piece of 3 words; shorter pieces say too little to tell English text from
# names and data) that are in no translation, more than half of them seen in
# the files.  Returns the first window seen, or "".
function english_window(s,    nf, frag, f, w, n, a, k, i, j, key, total, found, first) {
	gsub(/\\n|\\t/, "\001", s)
	gsub(/%[-+ #0-9.*]*(hh|h|ll|l|z|j|t)?[diouxXeEfgGcsp%]/, "\001", s)
	s = unpo(s)
	nf = split(s, frag, "\001")
	total = found = 0
	first = ""
	for (f = 1; f <= nf; f++) {
		w = words(frag[f])
		n = split(w, a, " ")
		if (n < 3)
			continue
		k = n < 4 ? n : 4
		for (i = 1; i + k - 1 <= n; i++) {
			key = a[i]
			for (j = 1; j < k; j++)
				key = key " " a[i + j]
			if ((key in translated) || !wordy(key))
				continue
			total++
			if (key in seen) {
				found++
				if (first == "")
					first = key
			}
		}
	}
	return found * 2 > total ? first : ""
}

function flush_entry(    i) {
	if (have) {
		if (id != "") {
			ne++
			eid[ne] = id
			eplural[ne] = plural
			same[ne] = (str == id && (plural == "" || str1 == plural))
			for (i = 0; i < nstr; i++)
				add_windows(words(unpo(strs[i])), translated, 1)
		}
	}
	have = 0
	id = plural = str = str1 = ""
	nstr = 0
	field = ""
}

function qstr(line) {	# the string of a PO line: msgid "..." or "..."
	sub(/^[^"]*"/, "", line)
	sub(/"[ \t]*$/, "", line)
	return line
}

BEGIN {
	NBSP = sprintf("%c%c", 194, 160)		# U+00A0, before French colons
	NNBSP = sprintf("%c%c%c", 226, 128, 175)	# U+202F
	if (mode == "")
		mode = "catalog"
	ne = 0
	nstr = 0
}

# ---- the first file: the catalog or the phrase list ----
FNR == 1 { fileno++ }

fileno == 1 && mode == "catalog" {
	if ($0 ~ /^#/ || $0 ~ /^[ \t]*$/) {
		if ($0 ~ /^[ \t]*$/)
			flush_entry()
		next
	}
	if ($0 ~ /^msgid /) {
		flush_entry()
		have = 1
		field = "id"
		id = qstr($0)
	} else if ($0 ~ /^msgid_plural /) {
		field = "plural"
		plural = qstr($0)
	} else if ($0 ~ /^msgstr(\[[0-9]+\])? /) {
		field = "str"
		strs[nstr] = qstr($0)
		if (nstr == 0)
			str = strs[0]
		if (nstr == 1)
			str1 = strs[1]
		nstr++
	} else if ($0 ~ /^"/) {
		if (field == "id")
			id = id qstr($0)
		else if (field == "plural")
			plural = plural qstr($0)
		else if (field == "str") {
			strs[nstr - 1] = strs[nstr - 1] qstr($0)
			if (nstr == 1)
				str = strs[0]
			if (nstr == 2)
				str1 = strs[1]
		}
	}
	next
}

fileno == 1 && mode == "phrases" {
	if ($0 ~ /^#/ || $0 ~ /^[ \t]*$/)
		next
	np++
	phrase[np] = $0
	pwords[np] = words($0)
	next
}

# ---- the screens ----
fileno > 1 && FNR == 1 {
	if (fileno == 2)
		flush_entry()
	nfiles++
	fname[nfiles] = FILENAME
	stream[nfiles] = ""
}

fileno > 1 {
	w = words($0)
	if (w != "")
		stream[nfiles] = stream[nfiles] " " w
}

END {
	if (fileno == 1)
		flush_entry()
	for (f = 1; f <= nfiles; f++)
		if (mode == "catalog")
			add_windows(substr(stream[f], 2), seen, fname[f])
	if (mode == "catalog") {
		for (e = 1; e <= ne; e++) {
			if (same[e])
				continue
			key = english_window(eid[e])
			if (key == "" && eplural[e] != "")
				key = english_window(eplural[e])
			if (key != "")
				printf "FOUND\t%s\t%s\t%s\n", eid[e], key, seen[key]
		}
		exit 0
	}
	for (p = 1; p <= np; p++) {
		hit = ""
		for (f = 1; f <= nfiles && hit == ""; f++)
			if (index(stream[f] " ", " " pwords[p] " "))
				hit = fname[f]
		if (hit != "" && !expect)
			printf "FOUND\t%s\t%s\n", phrase[p], hit
		if (hit == "" && expect)
			printf "MISSING\t%s\n", phrase[p]
	}
}
